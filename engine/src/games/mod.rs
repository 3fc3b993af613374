//! The games the engine hosts, one folder each (rules, notation, value-net encoding, the game's
//! own knowledge and players, tests), and the registry every command reaches them through.

pub mod amazons;
pub mod dots_and_boxes;
pub mod gomoku;
pub mod registry;
pub mod surakarta;
pub mod tictactoe;

pub use amazons::Amazons;
pub use dots_and_boxes::DotsAndBoxes;
pub use gomoku::Gomoku;
pub use registry::{
    describe_games, game_names, GameSpec, GameVisitor, ParamDecl, ParamKind, RegisteredGame,
    Searched,
};
pub use surakarta::Surakarta;
pub use tictactoe::TicTacToe;
