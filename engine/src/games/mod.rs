//! The games the engine hosts, one folder each (rules, notation, value-net encoding, the game's
//! own knowledge, players, nets and protocol options, tests), and what a game offers the
//! commands ([`RegisteredGame`]). The registry (`crate::registry`) lists them.

pub mod amazons;
pub mod dots_and_boxes;
mod entry;
pub mod gomoku;
pub mod surakarta;
pub mod tictactoe;

pub use amazons::Amazons;
pub use dots_and_boxes::DotsAndBoxes;
pub use entry::{
    best_player_search, set_weights_option, weights_option_text, KeptBest, OptionDecl, Oracle,
    RegisteredGame, Searched, WeightsChoice, WEIGHTS_OPTION,
};
pub use gomoku::Gomoku;
pub use surakarta::Surakarta;
pub use tictactoe::TicTacToe;

pub use crate::game_spec::{GameInfo, GameSpec, ParamDecl, ParamKind};
