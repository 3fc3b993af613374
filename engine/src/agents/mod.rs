//! Players of a game, behind one trait: the engine's own searches and external programs that
//! speak the text protocol. A player is named by a spec string (`mcts:iterations=20000`,
//! `external:cmd=./engine protocol`), so match runners and command lines can build any of them.
//! Players that know one game live with that game's folder under `games/`; the game's
//! registry entry builds them from a spec.

mod external;
mod game;
mod mcts;
pub mod process;
mod random;
pub mod spec;

pub use external::{ExternalAgent, ExternalConfig};
pub use game::{play_game, Forfeit, GameReport, MoveSearch, MATCH_POINT};
pub use mcts::MctsAgent;
pub use process::{ChildProcess, Silence};
pub use random::RandomAgent;
pub use spec::{parse_spec, AgentSpec};

use crate::game::{Action, Game};
use crate::mcts::{RolloutStats, SearchResult};

/// A move chosen, with what the search behind it did (when there was one).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub action: Action,
    pub iterations: u64,
    pub rollouts: RolloutStats,
    /// The mover's estimate of its chance to win after this move, in [0, 1], when a search
    /// gave one (the paper's "evaluation value" of its match points).
    pub win_probability: Option<f64>,
    /// How the move was found when no search chose it (`the exact solver's move`, `a free
    /// capture`), for the notes of `engine play` and `analyse`.
    pub how: Option<&'static str>,
    /// What the player said of its search for this move, for reports: a search's depth,
    /// evaluation and nodes, or a Gomocup brain's `MESSAGE` lines.
    pub note: Option<String>,
}

impl Choice {
    /// An alpha-beta search's move after `nodes` nodes, its score read as a win probability:
    /// certain from `decided` on (a proven win or loss), else a logistic of `score / scale`.
    pub fn scored(action: Action, nodes: u64, score: i32, decided: i32, scale: f64) -> Choice {
        let win = if score.abs() >= decided {
            f64::from(u8::from(score > 0))
        } else {
            1.0 / (1.0 + (-f64::from(score) / scale).exp())
        };
        Choice {
            iterations: nodes,
            win_probability: Some(win),
            ..Choice::plain(action)
        }
    }

    pub fn plain(action: Action) -> Choice {
        Choice {
            action,
            iterations: 0,
            rollouts: RolloutStats::default(),
            win_probability: None,
            how: None,
            note: None,
        }
    }

    /// A move the player's knowledge gave without a search, and how.
    pub fn known(action: Action, how: &'static str) -> Choice {
        Choice {
            how: Some(how),
            ..Choice::plain(action)
        }
    }

    /// The move a search chose, with its iterations, rollouts and the chosen move's mean result
    /// as a win probability for the mover.
    pub fn searched(result: &SearchResult) -> Choice {
        let mean = result.best_move().value_for(result.to_move);
        Choice {
            action: result.best,
            iterations: result.iterations,
            rollouts: result.rollouts,
            win_probability: Some((mean + 1.0) / 2.0),
            how: None,
            note: None,
        }
    }
}

/// Why a player could not give a legal move: it loses the game for that reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentError {
    pub reason: String,
}

impl AgentError {
    pub fn new(reason: impl Into<String>) -> AgentError {
        AgentError {
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for AgentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for AgentError {}

/// Anything that plays a game: given the position and the moves that led to it, a move.
pub trait Agent<G: Game>: Send {
    /// A short description for tables and logs.
    fn name(&self) -> String;

    /// Seeds the player's random choices for the next game (match runners call it before
    /// each game so that a game replays whatever thread plays it). Players without random
    /// choices, or that cannot be seeded (external programs), ignore it.
    fn reseed(&mut self, _seed: u64) {}

    /// A game begins at `start`, reached from the game's empty board by `moves`.
    fn new_game(&mut self, start: &G, moves: &[Action]) -> Result<(), AgentError>;

    /// The move for the player to move in `state`, reached from the empty board by `moves`
    /// (every move of the game so far, both players'). The caller checks legality.
    fn choose(&mut self, state: &G, moves: &[Action]) -> Result<Choice, AgentError>;

    /// The search behind the last [`choose`](Agent::choose), when a tree search made that
    /// choice (`engine serve` shows its root moves); `None` otherwise.
    fn last_search(&self) -> Option<&SearchResult> {
        None
    }

    /// What the player plays with beyond its keys, from `start` on: the fingerprint of a
    /// learned net (`selfplay` records it, and refuses to resume a dataset with another).
    /// `None` for a player of keys alone.
    fn knowledge(&self, _start: &G) -> Option<String> {
        None
    }
}
