//! The nets of Dots and Boxes: the paper's value net and the product's (their encodings and the
//! shipped files) and net-guided rollouts ([`guided`]: the paper's Algorithm 5, the net as a
//! prior over chain rollouts). The file format and the dense layers are the generic
//! [`crate::nn`]'s.

pub mod guided;

use std::path::Path;

use crate::games::{DotsAndBoxes, RegisteredGame};
use crate::nn::{ModelError, ValueNet};

pub use guided::{DabNet, NetGuide, NetRollout};

/// The paper's net (`models/dab-5x5`): the model of `nn` with the paper's random rollouts and of
/// `engine paper`.
pub const PAPER_MODEL: &str = "models/dab-5x5/model.safetensors";
/// The product's net (`models/dab-5x5-sv`, trained on the values of the product's own searches):
/// the model of `nn` with chain rollouts and of the protocol, asked as a prior. Measured at
/// 300 ms a move: 121-79 against `nn` with generation 1's net (`models/dab-5x5-gen1`), 101-99
/// against the same search without a net (docs/players.md).
pub const PRODUCT_MODEL: &str = "models/dab-5x5-sv/model.safetensors";

/// The weight of the product net's prior (`nn`'s `prior` and the protocol's): each child of a
/// tree node starts with a bias of this times the net's P(mover wins) - P(mover loses).
pub const PRODUCT_PRIOR: f64 = 1.0;

/// The threshold of the product's search (`nn` with chain rollouts, and the protocol's engine):
/// 1, so a play-out is never ended by the net and the net is not asked at the leaves at all,
/// only for its prior. The product's nets learn soft search values and are sure (an output at
/// 0.9 or more) of none of their validation positions (their cards), so at the paper's 0.9 the
/// leaf's call could only cost time. The call is cheap beside a chain rollout: on 5x5 at 300 ms
/// a move the search made 9,959 iterations a move at 1 and 10,187 at 0.9, and scored 53-47
/// (docs/players.md). The paper's random rollouts keep the paper's 0.9.
pub const PRODUCT_THRESHOLD: f64 = 1.0;

/// UCB's constant of the product's search (`nn` with chain rollouts, and the protocol's engine
/// when its `cp` is left at the generic default): the paper's `sqrt(2)` explores far more than
/// chain rollouts and exact endgames need. Measured at 300 ms a move, the search against itself
/// at a neighbouring constant: 0.7 beat `sqrt(2)` 64-36, 0.35 beat 0.7 67-33, and 0.15 and 0.5
/// lost to 0.35 43-57 and 42-58 (docs/players.md).
pub const PRODUCT_CP: f64 = 0.35;

/// The product's net of each board size it has one for: what `best`, `nn` (with chain rollouts)
/// and the protocol ask by default on that size. A size is listed only where its net measured
/// better than the same search without it (docs/players.md); on the others they search without
/// a net.
pub const PRODUCT_NETS: [(usize, usize, &str); 1] = [(5, 5, PRODUCT_MODEL)];

/// The value net a Dots-and-Boxes player asks (its spec's `model=`).
#[derive(Clone, Debug, PartialEq)]
pub enum NetChoice {
    /// The product's net of the board's size ([`PRODUCT_NETS`]); none on a size without one.
    Product,
    /// No net: the same search without one (`model=none`).
    Off,
    /// The net in this file, which must fit the board.
    File(std::path::PathBuf),
}

impl NetChoice {
    /// Reads a `model=` value: `product`, `none` or a file.
    pub fn parse(value: &str) -> NetChoice {
        match value {
            "product" => NetChoice::Product,
            "none" => NetChoice::Off,
            _ => NetChoice::File(value.into()),
        }
    }

    /// The net laid out for `board`, or `None` for no net; a file that does not fit `board`
    /// is refused with its path and both sizes.
    pub fn load(&self, board: &DotsAndBoxes) -> Result<Option<DabNet>, String> {
        match self {
            NetChoice::Product => product_net(board),
            NetChoice::Off => Ok(None),
            NetChoice::File(path) => load_dab_net(path, board)
                .map(Some)
                .map_err(|e| e.to_string()),
        }
    }
}

/// The product's net laid out for `board`, or `None` on a size it has no net for. Each file is
/// read once a process.
pub fn product_net(board: &DotsAndBoxes) -> Result<Option<DabNet>, String> {
    type Loaded = std::sync::OnceLock<Result<ValueNet, String>>;
    static NETS: [Loaded; PRODUCT_NETS.len()] = [const { Loaded::new() }; PRODUCT_NETS.len()];
    let Some(slot) = PRODUCT_NETS
        .iter()
        .position(|&(r, c, _)| (r, c) == (board.rows(), board.cols()))
    else {
        return Ok(None);
    };
    let path = PRODUCT_NETS[slot].2;
    let net = NETS[slot]
        .get_or_init(|| load_value_net(Path::new(path)).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)?;
    DabNet::new(net, board)
        .map(Some)
        .map_err(|detail| format!("{path}: {detail}"))
}

/// The shipped nets, compiled in: a shipped net's path (as written above, relative to the
/// repository) loads from any working directory, from the file when it is there (so a net
/// retrained in place is the one used) and from the binary's copy when it is not.
const SHIPPED: [(&str, &[u8]); 2] = [
    (
        PAPER_MODEL,
        include_bytes!("../../../../../models/dab-5x5/model.safetensors"),
    ),
    (
        PRODUCT_MODEL,
        include_bytes!("../../../../../models/dab-5x5-sv/model.safetensors"),
    ),
];

/// The binary's copy of the shipped net at `path`, if `path` names one.
fn shipped(path: &Path) -> Option<&'static [u8]> {
    SHIPPED
        .iter()
        .find(|(name, _)| Path::new(name) == path)
        .map(|&(_, bytes)| bytes)
}

/// Reads the value net at `path`: the file, or for a shipped net's path with no file there,
/// the binary's copy.
pub fn load_value_net(path: &Path) -> Result<ValueNet, ModelError> {
    ValueNet::load_or(path, &[DotsAndBoxes::INFO], shipped(path))
}

/// A value net's input for `board`: the grid, and the player to move where `net` reads it.
pub fn net_input(net: &ValueNet, board: &DotsAndBoxes) -> Vec<f32> {
    let mut input = vec![0f32; crate::game::Game::feature_len(board)];
    crate::game::Game::encode_features(board, &mut input);
    if reads_to_move(&net.meta.encoding) {
        let p1 = crate::game::Game::to_move(board) == crate::game::Player::P1;
        input.push(if p1 { 1.0 } else { 0.0 });
    }
    input
}

/// The encodings a Dots-and-Boxes value net may read, with their number of inputs on `board`.
pub fn value_encodings(board: &DotsAndBoxes) -> [(&'static str, usize); 2] {
    let n = crate::game::Game::feature_len(board);
    [(DAB_ENCODING, n), (DAB_ENCODING_TO_MOVE, n + 1)]
}

/// Loads the model at `path` for net-guided rollouts on `board`'s size. A file that cannot be
/// read, is damaged, or was made for another game, board size, encoding or layer layout is
/// refused with the path and the reason.
pub fn load_dab_net(path: &Path, board: &DotsAndBoxes) -> Result<DabNet, ModelError> {
    let net = load_value_net(path)?;
    DabNet::new(&net, board).map_err(|detail| ModelError {
        path: path.to_path_buf(),
        detail,
    })
}

/// The input encoding of Dots and Boxes nets: the paper's Table 2 grid (see
/// `games::dots_and_boxes`). Bumped if the encoding ever changes.
pub const DAB_ENCODING: &str = "dab-table2-v1";
/// The Table 2 grid plus one input saying who is to move (1.0 for P1, 0.0 for P2): 86 floats on
/// 5x5. Not in the paper; its input cannot tell who must move, which decides loony endgames.
pub const DAB_ENCODING_TO_MOVE: &str = "dab-table2-tomove-v1";

/// Whether a Dots-and-Boxes net with this encoding reads the player to move as its last input.
pub fn reads_to_move(encoding: &str) -> bool {
    encoding == DAB_ENCODING_TO_MOVE
}

#[cfg(test)]
mod guided_tests;
