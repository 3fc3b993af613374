//! The search settings every game shares (`set_option`): the budget, the threads, the seed,
//! UCB's constant and counter, and how answers are written. A game's own options (a net, its
//! knowledge, a weights file) are its registry entry's ([`crate::games::RegisteredGame::OPTIONS`]).

use std::time::Duration;

use crate::mcts::{Budget, CounterMode, SearchConfig, Ucb};
use crate::rng::derive_seed;

/// How moves are written in answers (`play` accepts both forms whatever this says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// The game's readable notation (`h0,1`, `b2`).
    Text,
    /// The numeric action id.
    Id,
}

/// Every shared option, with its current value.
#[derive(Clone, Debug)]
pub struct Settings {
    pub iterations: Option<u64>,
    pub time_ms: Option<u64>,
    pub threads: usize,
    pub seed: u64,
    pub cp: f64,
    pub counter: CounterMode,
    pub notation: Notation,
    /// `genmove` answers one ply instead of a whole turn of several plies.
    pub plies: bool,
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
            notation: Notation::Text,
            plies: false,
        }
    }
}

/// The shared option names, in the order `list_options` lists them (a game's own follow).
pub const OPTION_NAMES: [&str; 8] = [
    "iterations",
    "time_ms",
    "threads",
    "seed",
    "cp",
    "counter",
    "notation",
    "genmove_plies",
];

use crate::agents::spec::number;

impl Settings {
    /// Sets one shared option; `Ok(false)` when `name` is not one of them.
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool, String> {
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
                self.threads = crate::cli::search_threads(number(name, value)?)?;
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
            "genmove_plies" => {
                self.plies = match value {
                    "0" => false,
                    "1" => true,
                    _ => return Err(format!("genmove_plies is 0 or 1, got '{value}'")),
                }
            }
            "notation" => {
                self.notation = match value {
                    "text" => Notation::Text,
                    "id" => Notation::Id,
                    _ => return Err(format!("notation is 'text' or 'id', got '{value}'")),
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The current value of a shared option, as `set` reads it.
    pub fn get(&self, name: &str) -> Option<String> {
        Some(match name {
            "iterations" => self.iterations.unwrap_or(0).to_string(),
            "time_ms" => self.time_ms.unwrap_or(0).to_string(),
            "threads" => self.threads.to_string(),
            "seed" => self.seed.to_string(),
            "cp" => self.cp.to_string(),
            "counter" => match self.counter {
                CounterMode::Double => "double".into(),
                CounterMode::Single => "single".into(),
            },
            "genmove_plies" => u8::from(self.plies).to_string(),
            "notation" => match self.notation {
                Notation::Text => "text".into(),
                Notation::Id => "id".into(),
            },
            _ => return None,
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

/// The options a client set, shared and the game's own, each name's last value in the order
/// they were last set: replayed on a new game so that the options outlive a `game` command.
#[derive(Clone, Debug, Default)]
pub struct OptionLog {
    entries: Vec<(String, String)>,
}

impl OptionLog {
    /// Records `name value` as the last value of `name`.
    pub fn record(&mut self, name: &str, value: &str) {
        self.entries.retain(|(n, _)| n != name);
        self.entries.push((name.to_string(), value.to_string()));
    }

    /// `(name, value)` in the order last set.
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }
}
