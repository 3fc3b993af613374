//! The games the engine hosts, one module each (rules, notation, value-net encoding, tests).

pub mod dots_and_boxes;
pub mod tictactoe;

pub use dots_and_boxes::DotsAndBoxes;
pub use tictactoe::TicTacToe;

/// Canonical names of the games, as the CLI and the protocol accept them.
pub const GAME_NAMES: [&str; 2] = ["dots_and_boxes", "tictactoe"];
