//! The search settings `set_option` changes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::games::dots_and_boxes::{DotsRolloutKind, DotsSearch, EndgameConfig, TreeMoves};
use crate::games::{DotsAndBoxes, GameSpec};
use crate::mcts::{Budget, CounterMode, SearchConfig, Ucb};
use crate::nn::{load_dab_net, product_net, DabNet, NetGuide, PRODUCT_PRIOR};
use crate::rng::derive_seed;
use crate::tuning::WeightsFile;

/// How moves are written in answers (`play` accepts both forms whatever this says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// The game's readable notation (`h0,1`, `b2`).
    Text,
    /// The numeric action id (OpenSpiel's for Dots and Boxes).
    Id,
}

/// The value net that guides the Dots-and-Boxes search (`set_option model`).
#[derive(Clone)]
pub enum ModelChoice {
    /// The product's net (`models/dab-5x5-sv`, compiled in) as a prior, on the board size it
    /// was made for (5x5); no net on other sizes and with the paper's random rollouts.
    Product,
    /// No net.
    Off,
    /// A net read from this file, checked against the game when set.
    File(PathBuf, Arc<DabNet>),
}

/// Every option, with its current value.
#[derive(Clone)]
pub struct Settings {
    pub iterations: Option<u64>,
    pub time_ms: Option<u64>,
    pub threads: usize,
    pub seed: u64,
    pub cp: f64,
    pub counter: CounterMode,
    pub model: ModelChoice,
    /// The net's threshold, first move and `prior` (progressive bias; only with chain rollouts).
    pub guide: NetGuide,
    /// Dots and Boxes: free captures at once and the exact solver from this many free edges
    /// (0: never), as the `solver_edges` of a player spec.
    pub solver_edges: u32,
    /// Dots and Boxes: above `solver_edges` and up to this many free edges, a win the solver
    /// proves for the player to move is kept without a search (0: never), as `prove_edges`.
    pub prove_edges: u32,
    /// Dots and Boxes: only the safe edges searched while there are any and no box to take.
    pub safe_first: bool,
    /// Dots and Boxes: how leaves are played out and which moves tree nodes search.
    pub dots_search: DotsSearch,
    pub notation: Notation,
    /// `genmove` answers one ply instead of a whole turn (Amazons' queen move alone).
    pub plies: bool,
    /// Evaluation weights from a `tune` weights file (Amazons), with the file's name.
    pub weights: Option<(PathBuf, WeightsFile)>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            iterations: Some(100_000),
            time_ms: None,
            threads: 1,
            seed: 1,
            cp: Ucb::DEFAULT_CP,
            counter: CounterMode::Double,
            // Dots and Boxes: the product's engine, what `nn` plays: its net as a prior over
            // chain rollouts, the knowledge below. `set_option engine paper` gives the paper's
            // plain MCTS.
            model: ModelChoice::Product,
            guide: NetGuide {
                prior: PRODUCT_PRIOR,
                ..NetGuide::default()
            },
            solver_edges: EndgameConfig::ENGINE.edges,
            prove_edges: EndgameConfig::ENGINE.prove_edges,
            safe_first: false,
            dots_search: DotsSearch::PRODUCT,
            notation: Notation::Text,
            plies: false,
            weights: None,
        }
    }
}

/// The option names, in the order `get_option` without a name lists them.
pub const OPTION_NAMES: [&str; 19] = [
    "iterations",
    "time_ms",
    "threads",
    "seed",
    "cp",
    "counter",
    "model",
    "threshold",
    "net_from_move",
    "prior",
    "solver_edges",
    "prove_edges",
    "safe_first",
    "rollout",
    "tree",
    "engine",
    "notation",
    "genmove_plies",
    "weights",
];

fn number<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{name} must be a whole number, got '{value}'"))
}

/// Whether a weights file is one of `game`'s weight sets, with the right weights.
fn weights_fit(path: &std::path::Path, file: &WeightsFile, game: GameSpec) -> Result<(), String> {
    let set = crate::tuning::tunable(game.name(), Some(&file.set))
        .map_err(|e| format!("weights file {}: {e}", path.display()))?;
    file.values_for(set.as_ref())
        .map(|_| ())
        .map_err(|e| format!("weights file {}: {e}", path.display()))
}

/// Refuses an option of Dots-and-Boxes knowledge for other games.
fn dots_only(name: &str, game: GameSpec) -> Result<(), String> {
    if game.is_dots_and_boxes() {
        Ok(())
    } else {
        Err(format!("{name} is for Dots and Boxes only, not {game}"))
    }
}

impl Settings {
    /// Sets one option; `game` is the current game (a model must fit it).
    pub fn set(&mut self, name: &str, value: &str, game: GameSpec) -> Result<(), String> {
        match name {
            "iterations" => {
                let n: u64 = number(name, value)?;
                self.iterations = (n > 0).then_some(n);
            }
            "time_ms" => {
                let n: u64 = number(name, value)?;
                self.time_ms = (n > 0).then_some(n);
            }
            "threads" => {
                let n: usize = number(name, value)?;
                if !(1..=1024).contains(&n) {
                    return Err(format!("threads must be 1 to 1024, got {n}"));
                }
                self.threads = n;
            }
            "seed" => self.seed = number(name, value)?,
            "cp" => {
                let cp: f64 = value
                    .parse()
                    .map_err(|_| format!("cp must be a number, got '{value}'"))?;
                if !(cp.is_finite() && cp >= 0.0) {
                    return Err(format!("cp must be a non-negative number, got {value}"));
                }
                self.cp = cp;
            }
            "counter" => {
                self.counter = match value {
                    "double" => CounterMode::Double,
                    "single" => CounterMode::Single,
                    _ => return Err(format!("counter is 'double' or 'single', got '{value}'")),
                }
            }
            "model" => match value {
                "none" => self.model = ModelChoice::Off,
                "product" => self.model = ModelChoice::Product,
                _ => self.set_model_file(value, game)?,
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
                if guide.prior > 0.0 && self.dots_search.chain_rollout().is_none() {
                    return Err("prior needs chain rollouts: set_option rollout sacrifices \
                                (or chains) first"
                        .into());
                }
                self.guide = guide;
            }
            "solver_edges" => {
                let n: u32 = number(name, value)?;
                if n > 0 {
                    dots_only(name, game)?;
                }
                self.solver_edges = n;
            }
            "prove_edges" => {
                let n: u32 = number(name, value)?;
                if n > 0 {
                    dots_only(name, game)?;
                }
                self.prove_edges = n;
            }
            "safe_first" => {
                self.safe_first = match value {
                    "0" => false,
                    "1" => {
                        dots_only(name, game)?;
                        true
                    }
                    _ => return Err(format!("safe_first is 0 or 1, got '{value}'")),
                }
            }
            "rollout" | "tree" => {
                let mut search = DotsSearch::from_keys(
                    "the protocol's",
                    &[(name.to_string(), value.to_string())],
                    self.dots_search,
                )
                .map_err(|e| e.replace("player 'the protocol's': ", ""))?;
                if name == "rollout"
                    && search.rollout == DotsRolloutKind::Chains
                    && search.tree == TreeMoves::All
                    && self.dots_search.rollout == DotsRolloutKind::Random
                {
                    // Chains searched over narrowed nodes unless told otherwise, as `nn`.
                    search.tree = TreeMoves::Safe;
                }
                if search != DotsSearch::PAPER {
                    dots_only(name, game)?;
                }
                if search.chain_rollout().is_none() {
                    // The prior is made and measured for chain rollouts only, as `nn` refuses
                    // `prior` with `rollout=random`: the paper's engine runs without it.
                    self.guide.prior = 0.0;
                }
                self.dots_search = search;
            }
            "engine" => match value {
                "product" => {
                    let fresh = Settings::default();
                    self.solver_edges = fresh.solver_edges;
                    self.prove_edges = fresh.prove_edges;
                    self.safe_first = fresh.safe_first;
                    self.dots_search = fresh.dots_search;
                    self.model = fresh.model;
                    self.guide.prior = fresh.guide.prior;
                }
                "paper" => {
                    self.solver_edges = 0;
                    self.prove_edges = 0;
                    self.safe_first = false;
                    self.dots_search = DotsSearch::PAPER;
                    self.guide.prior = 0.0;
                    if matches!(self.model, ModelChoice::Product) {
                        // The paper's plain MCTS; `set_option model PATH` adds a net.
                        self.model = ModelChoice::Off;
                    }
                }
                _ => return Err(format!("engine is 'product' or 'paper', got '{value}'")),
            },
            "genmove_plies" => {
                self.plies = match value {
                    "0" => false,
                    "1" => true,
                    _ => return Err(format!("genmove_plies is 0 or 1, got '{value}'")),
                }
            }
            "weights" => {
                if value == "none" {
                    self.weights = None;
                } else {
                    let path = PathBuf::from(value);
                    let file = WeightsFile::read(&path)?;
                    weights_fit(&path, &file, game)?;
                    self.weights = Some((path, file));
                }
            }
            "notation" => {
                self.notation = match value {
                    "text" => Notation::Text,
                    "id" => Notation::Id,
                    _ => return Err(format!("notation is 'text' or 'id', got '{value}'")),
                }
            }
            _ => {
                return Err(format!(
                    "unknown option '{name}' (known: {})",
                    OPTION_NAMES.join(", ")
                ))
            }
        }
        Ok(())
    }

    /// The current value of an option, as `set` reads it.
    pub fn get(&self, name: &str) -> Result<String, String> {
        Ok(match name {
            "iterations" => self.iterations.unwrap_or(0).to_string(),
            "time_ms" => self.time_ms.unwrap_or(0).to_string(),
            "threads" => self.threads.to_string(),
            "seed" => self.seed.to_string(),
            "cp" => self.cp.to_string(),
            "counter" => match self.counter {
                CounterMode::Double => "double".into(),
                CounterMode::Single => "single".into(),
            },
            "model" => match &self.model {
                ModelChoice::Product => "product".into(),
                ModelChoice::Off => "none".into(),
                ModelChoice::File(path, _) => path.display().to_string(),
            },
            "threshold" => self.guide.threshold.to_string(),
            "net_from_move" => self.guide.from_move.to_string(),
            "prior" => self.guide.prior.to_string(),
            "solver_edges" => self.solver_edges.to_string(),
            "prove_edges" => self.prove_edges.to_string(),
            "safe_first" => u8::from(self.safe_first).to_string(),
            "rollout" => match (self.dots_search.rollout, self.dots_search.sacrifices) {
                (DotsRolloutKind::Random, _) => "random".into(),
                (DotsRolloutKind::Chains, false) => "chains".into(),
                (DotsRolloutKind::Chains, true) => "sacrifices".into(),
            },
            "tree" => self.dots_search.tree.name().into(),
            "engine" => {
                let paper = self.solver_edges == 0
                    && !self.safe_first
                    && self.dots_search == DotsSearch::PAPER;
                let fresh = Settings::default();
                let product = self.solver_edges == fresh.solver_edges
                    && self.prove_edges == fresh.prove_edges
                    && self.safe_first == fresh.safe_first
                    && self.dots_search == fresh.dots_search
                    && matches!(self.model, ModelChoice::Product)
                    && self.guide.prior == fresh.guide.prior;
                match (paper, product) {
                    (true, _) => "paper".into(),
                    (_, true) => "product".into(),
                    _ => "custom".into(),
                }
            }
            "genmove_plies" => u8::from(self.plies).to_string(),
            "weights" => self
                .weights
                .as_ref()
                .map_or("none".into(), |(p, _)| p.display().to_string()),
            "notation" => match self.notation {
                Notation::Text => "text".into(),
                Notation::Id => "id".into(),
            },
            _ => {
                return Err(format!(
                    "unknown option '{name}' (known: {})",
                    OPTION_NAMES.join(", ")
                ))
            }
        })
    }

    /// The exact endgame the settings ask for (the product's node limits).
    pub fn endgame(&self) -> EndgameConfig {
        EndgameConfig {
            edges: self.solver_edges,
            prove_edges: self.prove_edges,
            ..EndgameConfig::ENGINE
        }
    }

    /// Whether the settings fit `game`: the loaded model and weights (if any).
    pub fn fit(&self, game: GameSpec) -> Result<(), String> {
        // The Dots-and-Boxes knowledge (solver_edges, safe_first, rollout, tree) is on by
        // default and other games ignore it, so it never stands in the way of a game.
        if let Some((path, file)) = &self.weights {
            weights_fit(path, file, game)
                .map_err(|e| format!("{e}; set_option weights none first"))?;
        }
        self.model_fits(game)
    }

    /// Whether the loaded model (if any) fits `game`.
    fn model_fits(&self, game: GameSpec) -> Result<(), String> {
        let ModelChoice::File(path, net) = &self.model else {
            return Ok(());
        };
        let fits = if game.is_dots_and_boxes() {
            let board: DotsAndBoxes = game.start()?;
            net.value_net()
                .check_fits(game, crate::Game::feature_len(&board))
        } else {
            Err(format!("value nets guide Dots and Boxes only, not {game}"))
        };
        fits.map_err(|e| {
            format!(
                "the model {} does not fit {game} ({e}); set_option model none first",
                path.display()
            )
        })
    }

    /// Reads the net at `path` for `game` (refused for other games and sizes).
    fn set_model_file(&mut self, path: &str, game: GameSpec) -> Result<(), String> {
        if !game.is_dots_and_boxes() {
            return Err(format!("value nets guide Dots and Boxes only, not {game}"));
        }
        let board: DotsAndBoxes = game.start()?;
        let net = load_dab_net(std::path::Path::new(path), &board).map_err(|e| e.to_string())?;
        self.model = ModelChoice::File(PathBuf::from(path), Arc::new(net));
        Ok(())
    }

    /// The net that guides the search of `board`, if any: the file's, or the product's where
    /// it fits and the rollouts are chain rollouts.
    pub fn dots_net(&self, board: &DotsAndBoxes) -> Result<Option<Arc<DabNet>>, String> {
        Ok(match &self.model {
            ModelChoice::File(_, net) => Some(Arc::clone(net)),
            ModelChoice::Off => None,
            ModelChoice::Product if self.dots_search.chain_rollout().is_none() => None,
            ModelChoice::Product => product_net(board)?.map(Arc::new),
        })
    }

    /// The search configuration for the move after `moves_played` moves of a game.
    pub fn search_config(&self, moves_played: u64) -> Result<SearchConfig, String> {
        if self.iterations.is_none() && self.time_ms.is_none() {
            return Err("no budget: set_option iterations or time_ms to a positive value".into());
        }
        Ok(SearchConfig {
            cp: self.cp,
            counter: self.counter,
            budget: Budget {
                iterations: self.iterations,
                time: self.time_ms.map(Duration::from_millis),
            },
            threads: self.threads,
            seed: derive_seed(self.seed, moves_played),
            ..SearchConfig::default()
        })
    }
}
