//! The games the engine hosts, one module each (rules, notation, value-net encoding, tests).

pub mod dots_and_boxes;
pub mod tictactoe;

pub use dots_and_boxes::DotsAndBoxes;
pub use tictactoe::TicTacToe;

/// Canonical names of the games, as the CLI and the protocol accept them.
pub const GAME_NAMES: [&str; 2] = ["dots_and_boxes", "tictactoe"];

use serde::{Deserialize, Serialize};

/// A game and its parameters: what a dataset, a model and a match are about.
///
/// Serialised as `{"game": "dots_and_boxes", "rows": 5, "cols": 5}` or `{"game": "tictactoe"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "game", deny_unknown_fields)]
pub enum GameSpec {
    /// Dots and Boxes on a board of `rows` x `cols` boxes.
    #[serde(rename = "dots_and_boxes")]
    DotsAndBoxes { rows: u8, cols: u8 },
    #[serde(rename = "tictactoe")]
    TicTacToe,
}

impl GameSpec {
    /// Builds a spec from a game name and (for Dots and Boxes) the board size, checking both.
    pub fn new(name: &str, rows: usize, cols: usize) -> Result<GameSpec, String> {
        match name {
            "dots_and_boxes" => {
                DotsAndBoxes::new(rows, cols).map_err(|e| e.to_string())?;
                Ok(GameSpec::DotsAndBoxes {
                    rows: rows as u8,
                    cols: cols as u8,
                })
            }
            "tictactoe" => Ok(GameSpec::TicTacToe),
            other => Err(format!(
                "unknown game '{other}' (known: {})",
                GAME_NAMES.join(", ")
            )),
        }
    }

    /// The canonical game name.
    pub fn name(&self) -> &'static str {
        match self {
            GameSpec::DotsAndBoxes { .. } => "dots_and_boxes",
            GameSpec::TicTacToe => "tictactoe",
        }
    }

    /// The empty Dots-and-Boxes board of this size, or an error naming the spec.
    pub fn dots_and_boxes(&self) -> Result<DotsAndBoxes, String> {
        match *self {
            GameSpec::DotsAndBoxes { rows, cols } => {
                DotsAndBoxes::new(rows as usize, cols as usize).map_err(|e| e.to_string())
            }
            other => Err(format!("expected dots_and_boxes, found {other}")),
        }
    }
}

impl std::fmt::Display for GameSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameSpec::DotsAndBoxes { rows, cols } => write!(f, "dots_and_boxes {rows}x{cols}"),
            GameSpec::TicTacToe => write!(f, "tictactoe"),
        }
    }
}
