//! The protocol options of Dots and Boxes (`set_option`): the value net that guides the search
//! and the game's knowledge. By default the product's engine, what `nn` plays: its net as a
//! prior over chain rollouts, free captures, the exact solver and proofs; `set_option engine
//! paper` gives the paper's plain MCTS.

use std::path::PathBuf;
use std::sync::Arc;

use super::net::{load_dab_net, product_net, DabNet, NetGuide, PRODUCT_PRIOR, PRODUCT_THRESHOLD};
use super::{DotsAndBoxes, DotsRolloutKind, DotsSearch, EndgameConfig, TreeMoves};
use crate::games::OptionDecl;

/// The value net that guides the search (`set_option model`).
#[derive(Clone)]
pub enum ModelChoice {
    /// The product's net of the board's size (`net::PRODUCT_NETS`, compiled in) as a prior; no
    /// net on a size without one and with the paper's random rollouts.
    Product,
    /// No net.
    Off,
    /// A net read from this file, checked against the board when set.
    File(PathBuf, Arc<DabNet>),
}

/// Every option of Dots and Boxes, with its current value.
#[derive(Clone)]
pub struct DotsOptions {
    pub model: ModelChoice,
    /// The net's threshold, first move and `prior` (progressive bias; only with chain rollouts).
    pub guide: NetGuide,
    /// Free captures at once and the exact solver from this many free edges (0: never), as the
    /// `solver_edges` of a player spec.
    pub solver_edges: u32,
    /// Above `solver_edges` and up to this many free edges, a win the solver proves for the
    /// player to move is kept without a search (0: never), as `prove_edges`.
    pub prove_edges: u32,
    /// Each range above is the engine's for the board played (`EndgameConfig::on_board`) until
    /// it is set.
    pub endgame_by_board: [bool; 2],
    /// Only the safe edges searched while there are any and no box to take.
    pub safe_first: bool,
    /// How leaves are played out and which moves tree nodes search.
    pub search: DotsSearch,
}

impl Default for DotsOptions {
    fn default() -> DotsOptions {
        DotsOptions {
            model: ModelChoice::Product,
            guide: NetGuide {
                prior: PRODUCT_PRIOR,
                threshold: PRODUCT_THRESHOLD,
                ..NetGuide::default()
            },
            solver_edges: EndgameConfig::ENGINE.edges,
            prove_edges: EndgameConfig::ENGINE.prove_edges,
            endgame_by_board: [true; 2],
            safe_first: false,
            search: DotsSearch::PRODUCT,
        }
    }
}

/// The option names and their help, in the order `get_option` lists them.
pub const OPTIONS: [OptionDecl; 10] = [
    OptionDecl {
        name: "model",
        help: "the value net: product (default: the product's net of the board's size as a prior, none on a size without one), none, or a model file",
    },
    OptionDecl {
        name: "threshold",
        help: "the net ends a rollout once an output reaches this (default 1 with chain rollouts: never, and the net is not asked at the leaves; the paper's 0.9 with rollout random)",
    },
    OptionDecl {
        name: "net_from_move",
        help: "the net is asked from this many edges drawn on (default 0)",
    },
    OptionDecl {
        name: "prior",
        help: "the weight of the net's prior on tree children, chain rollouts only (default 1)",
    },
    OptionDecl {
        name: "solver_edges",
        help: "free captures and the exact solver from this many free edges (default: the engine's for the board, 34 on 5x5, 40 on 6x6, 44 on 7x7; 0: never)",
    },
    OptionDecl {
        name: "prove_edges",
        help: "a win the solver proves is kept without a search up to this many free edges (default: the engine's for the board, 40 on 5x5, 46 on 6x6, 50 on 7x7; 0: never)",
    },
    OptionDecl {
        name: "safe_first",
        help: "1: only the safe edges searched while there are any (default 0)",
    },
    OptionDecl {
        name: "rollout",
        help: "random (the paper's), chains or sacrifices (default sacrifices)",
    },
    OptionDecl {
        name: "tree",
        help: "the moves tree nodes search: all, safe or canonical (default canonical)",
    },
    OptionDecl {
        name: "engine",
        help: "best (default: the `best` player, nn: the net, chain rollouts and the knowledge) or paper (the paper's plain MCTS); sets the options above",
    },
];

use crate::agents::spec::number;

impl DotsOptions {
    /// Sets one option on `board`'s size; `Ok(false)` for a name that is not one of these.
    pub fn set(&mut self, name: &str, value: &str, board: &DotsAndBoxes) -> Result<bool, String> {
        match name {
            "model" => match value {
                "none" => self.model = ModelChoice::Off,
                "product" => self.model = ModelChoice::Product,
                _ => {
                    let net = load_dab_net(std::path::Path::new(value), board)
                        .map_err(|e| e.to_string())?;
                    self.model = ModelChoice::File(PathBuf::from(value), Arc::new(net));
                }
            },
            "threshold" => {
                let t: f64 = value
                    .parse()
                    .map_err(|_| format!("threshold must be a number, got '{value}'"))?;
                let guide = NetGuide {
                    threshold: t,
                    ..self.guide
                };
                guide.check()?;
                self.guide = guide;
            }
            "net_from_move" => self.guide.from_move = number(name, value)?,
            "prior" => {
                let guide = NetGuide {
                    prior: value
                        .parse()
                        .map_err(|_| format!("prior must be a number, got '{value}'"))?,
                    ..self.guide
                };
                guide.check()?;
                if guide.prior > 0.0 && self.search.chain_rollout().is_none() {
                    return Err("prior needs chain rollouts: set_option rollout sacrifices \
                                (or chains) first"
                        .into());
                }
                self.guide = guide;
            }
            "solver_edges" => {
                self.solver_edges = number(name, value)?;
                self.endgame_by_board[0] = false;
            }
            "prove_edges" => {
                self.prove_edges = number(name, value)?;
                self.endgame_by_board[1] = false;
            }
            "safe_first" => {
                self.safe_first = match value {
                    "0" => false,
                    "1" => true,
                    _ => return Err(format!("safe_first is 0 or 1, got '{value}'")),
                }
            }
            "rollout" | "tree" => {
                let mut search = DotsSearch::from_keys(
                    "the protocol's",
                    &[(name.to_string(), value.to_string())],
                    self.search,
                )
                .map_err(|e| e.replace("player 'the protocol's': ", ""))?;
                if name == "rollout"
                    && search.rollout == DotsRolloutKind::Chains
                    && search.tree == TreeMoves::All
                    && self.search.rollout == DotsRolloutKind::Random
                {
                    // Chains searched over narrowed nodes unless told otherwise, as `nn`.
                    search.tree = TreeMoves::Safe;
                }
                if search.chain_rollout().is_none() {
                    // The prior is made and measured for chain rollouts only, as `nn` refuses
                    // `prior` with `rollout=random`: the paper's engine runs without it, and
                    // its net ends play-outs at the paper's threshold.
                    self.guide.prior = 0.0;
                    self.guide.threshold = NetGuide::DEFAULT_THRESHOLD;
                }
                self.search = search;
            }
            "engine" => match value {
                // `product`: the old spelling of `best`.
                "best" | "product" => {
                    let fresh = DotsOptions::default();
                    self.solver_edges = fresh.solver_edges;
                    self.prove_edges = fresh.prove_edges;
                    self.endgame_by_board = fresh.endgame_by_board;
                    self.safe_first = fresh.safe_first;
                    self.search = fresh.search;
                    self.model = fresh.model;
                    self.guide.prior = fresh.guide.prior;
                    self.guide.threshold = fresh.guide.threshold;
                }
                "paper" => {
                    self.solver_edges = 0;
                    self.prove_edges = 0;
                    self.endgame_by_board = [false; 2];
                    self.safe_first = false;
                    self.search = DotsSearch::PAPER;
                    self.guide.prior = 0.0;
                    self.guide.threshold = NetGuide::DEFAULT_THRESHOLD;
                    if matches!(self.model, ModelChoice::Product) {
                        // The paper's plain MCTS; `set_option model PATH` adds a net.
                        self.model = ModelChoice::Off;
                    }
                }
                _ => return Err(format!("engine is 'best' or 'paper', got '{value}'")),
            },
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The current value of an option on `board`, as `set` reads it.
    pub fn get(&self, name: &str, board: &DotsAndBoxes) -> Option<String> {
        let endgame = self.endgame().on_board(board.rows(), board.cols());
        Some(match name {
            "model" => match &self.model {
                ModelChoice::Product => "product".into(),
                ModelChoice::Off => "none".into(),
                ModelChoice::File(path, _) => path.display().to_string(),
            },
            "threshold" => self.guide.threshold.to_string(),
            "net_from_move" => self.guide.from_move.to_string(),
            "prior" => self.guide.prior.to_string(),
            "solver_edges" => endgame.edges.to_string(),
            "prove_edges" => endgame.prove_edges.to_string(),
            "safe_first" => u8::from(self.safe_first).to_string(),
            "rollout" => match (self.search.rollout, self.search.sacrifices) {
                (DotsRolloutKind::Random, _) => "random".into(),
                (DotsRolloutKind::Chains, false) => "chains".into(),
                (DotsRolloutKind::Chains, true) => "sacrifices".into(),
            },
            "tree" => self.search.tree.name().into(),
            "engine" => {
                let paper =
                    self.solver_edges == 0 && !self.safe_first && self.search == DotsSearch::PAPER;
                let fresh = DotsOptions::default();
                let product = endgame == fresh.endgame().on_board(board.rows(), board.cols())
                    && self.safe_first == fresh.safe_first
                    && self.search == fresh.search
                    && matches!(self.model, ModelChoice::Product)
                    && self.guide.prior == fresh.guide.prior;
                match (paper, product) {
                    (true, _) => "paper".into(),
                    (_, true) => "best".into(),
                    _ => "custom".into(),
                }
            }
            _ => return None,
        })
    }

    /// The exact endgame the options ask for (the product's node limits).
    pub fn endgame(&self) -> EndgameConfig {
        EndgameConfig {
            edges: self.solver_edges,
            prove_edges: self.prove_edges,
            edges_by_board: self.endgame_by_board[0],
            prove_edges_by_board: self.endgame_by_board[1],
            ..EndgameConfig::ENGINE
        }
    }

    /// The net that guides the search of `board`, if any: the file's, or the product's where
    /// it fits and the rollouts are chain rollouts.
    pub fn net(&self, board: &DotsAndBoxes) -> Result<Option<Arc<DabNet>>, String> {
        Ok(match &self.model {
            ModelChoice::File(_, net) => Some(Arc::clone(net)),
            ModelChoice::Off => None,
            ModelChoice::Product if self.search.chain_rollout().is_none() => None,
            ModelChoice::Product => product_net(board)?.map(Arc::new),
        })
    }
}
