//! `qdab`: a second Dots-and-Boxes rival, modelled on QDab (Zhuang et al., "Improving
//! Monte-Carlo tree search for dots-and-boxes with a novel board representation and artificial
//! neural networks", CIG 2015; its agent `quctann`), written from a study of what it does.
//!
//! * The position is read as links of strings and coins; forced captures (a capture that leads
//!   nowhere, an opened chain down to its last two boxes, an opened loop down to its last four)
//!   are played at once, and only *canonical* moves are searched, by class
//!   ([`canonical`](self::canonical)).
//! * From turn 24 on (a turn ends with a move that closes no box; QDab's turns are for 5x5,
//!   other boards read them scaled by 60 over their edges) the exact solver chooses the root
//!   move; otherwise a UCT search of its own over canonical moves does
//!   ([`search`](self::search)): UCB1-Tuned with first-play urgency, random canonical rollouts,
//!   the exact solver (win or loss) once few canonical moves are left, the most visited root
//!   move played.
//!
//! Left out: QDab's value nets (25-7-1 per stage on chain-count features; not available), the
//! random subsampling of wide nodes early in the game, the few untouched-territory moves it
//! adds at the root (ours keeps them all there), its corner-symmetry table beyond one border
//! edge a box, and its speed-driven adjustment of the solving depth (ours solves at its
//! turn-by-turn depth within a node limit, and plays on when the limit is reached).

pub mod canonical;
pub mod search;

use std::time::{Duration, Instant};

use self::canonical::{canonical, forced_capture};
use self::search::{stage, tree_moves, Pos, RootMove, Schedule, Stop, Worker, SOLVE_FROM};
use super::knowledge::SOLVER_NODES_PER_MS;
use crate::agents::{Agent, AgentError, Choice};
use crate::game::{Action, Game};
use crate::games::DotsAndBoxes;
use crate::mcts::Budget;
use crate::rng::derive_seed;

// A timed root solve is given half its time at the solver's rate (`SOLVER_NODES_PER_MS`).
/// Solver table of each search thread: 2^20 entries (32 MB).
const TABLE_BITS: u32 = 20;

/// Settings of `qdab`.
#[derive(Clone, Debug, PartialEq)]
pub struct QdabConfig {
    /// Time and iterations a move (`time_ms`, `iterations`).
    pub budget: Budget,
    /// Independent trees searched at once, merged at the root (`threads`).
    pub threads: usize,
    pub seed: u64,
    /// Positions the solver may search for the root move from turn 24 on (`solver_nodes`);
    /// with a time budget at most half the time's worth.
    pub solver_nodes: u64,
    /// Positions it may search to settle one tree leaf or rollout (`leaf_nodes`).
    pub leaf_nodes: u64,
}

impl Default for QdabConfig {
    fn default() -> QdabConfig {
        QdabConfig {
            budget: Budget::time(Duration::from_millis(300)),
            threads: 1,
            seed: 1,
            solver_nodes: 4_000_000,
            leaf_nodes: 20_000,
        }
    }
}

impl QdabConfig {
    /// Reads `key=value` pairs over the defaults; errors name the key.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<QdabConfig, String> {
        let mut config = QdabConfig::default();
        let (mut time_ms, mut iterations) = (None, None);
        for (key, value) in pairs {
            let number = || crate::agents::spec::number::<u64>(key, value);
            let positive = || match number()? {
                0 => Err(format!("{key} must be positive, got '{value}'")),
                n => Ok(n),
            };
            match key.as_str() {
                "time_ms" => time_ms = Some(positive()?),
                "iterations" => iterations = Some(positive()?),
                "threads" => {
                    config.threads = crate::cli::search_threads(number()? as usize)?;
                }
                "seed" => config.seed = number()?,
                "solver_nodes" => config.solver_nodes = positive()?,
                "leaf_nodes" => config.leaf_nodes = positive()?,
                // The keys are declared with the player (`spec::QDAB_KEYS`, `engine players`).
                other => return Err(format!("unknown key '{other}'")),
            }
        }
        if time_ms.is_some() || iterations.is_some() {
            config.budget = Budget {
                iterations,
                time: time_ms.map(Duration::from_millis),
            };
        }
        Ok(config)
    }

    /// The solver's node limit for a root move.
    fn root_solver_nodes(&self) -> u64 {
        match self.budget.time {
            Some(t) => {
                let worth = (t.as_millis() as u64).saturating_mul(SOLVER_NODES_PER_MS / 2);
                self.solver_nodes.min(worth.max(1))
            }
            None => self.solver_nodes,
        }
    }
}

/// How `qdab` chose its last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QdabReason {
    /// A forced capture (QDab's `Play` at the root).
    Forced,
    /// The exact solver's move (from turn 24 on, or once the game is decided).
    Solved,
    /// The only canonical move.
    OnlyMove,
    /// The most visited root move of the search.
    Searched,
}

/// The `qdab` player.
pub struct QdabAgent {
    name: String,
    config: QdabConfig,
    /// One a search thread, made for the board of the first game.
    workers: Vec<Worker>,
    games: u64,
    pub last_reason: Option<QdabReason>,
    last_iterations: u64,
    last_value: Option<f64>,
}

/// Turns played before `state`: moves that closed no box. Counted from the game's moves when
/// they lead to `state`, else estimated as edges drawn less boxes closed.
pub fn turns_played(state: &DotsAndBoxes, moves: &[Action]) -> u32 {
    let closed = {
        let [p1, p2] = state.box_owners();
        (p1 | p2).count_ones()
    };
    let estimate = state.edges_drawn().saturating_sub(closed);
    if moves.len() != state.edges_drawn() as usize {
        return estimate;
    }
    let Ok(mut replay) = DotsAndBoxes::new(state.rows(), state.cols()) else {
        return estimate;
    };
    let mut turns = 0;
    for &a in moves {
        if !replay.is_legal(a) {
            return estimate;
        }
        turns += (replay.boxes_closed_by(a) == 0) as u32;
        replay.apply(a);
    }
    if replay.edges() == state.edges() {
        turns
    } else {
        estimate
    }
}

impl QdabAgent {
    pub fn new(name: impl Into<String>, config: QdabConfig) -> QdabAgent {
        QdabAgent {
            name: name.into(),
            config,
            workers: Vec::new(),
            games: 0,
            last_reason: None,
            last_iterations: 0,
            last_value: None,
        }
    }

    fn ready_workers(&mut self, state: &DotsAndBoxes) {
        let fits = self
            .workers
            .first()
            .is_some_and(|w| std::ptr::eq(w.board().geo, state.geometry()));
        if !fits {
            self.workers = (0..self.config.threads.max(1))
                .map(|_| Worker::new(state, self.config.leaf_nodes, TABLE_BITS))
                .collect();
        }
    }

    /// The move and how it was found.
    pub fn decide(
        &mut self,
        state: &DotsAndBoxes,
        moves: &[Action],
    ) -> Result<(Action, QdabReason), AgentError> {
        self.last_iterations = 0;
        self.last_value = None;
        if state.is_terminal() {
            return Err(AgentError::new("qdab: the game is over"));
        }
        let start = Instant::now();
        self.ready_workers(state);
        let geo = state.geometry();
        let edges = state.edges();
        if let Some(e) = forced_capture(geo, edges) {
            return Ok((e as Action, QdabReason::Forced));
        }
        let turn = turns_played(state, moves);
        let root = Pos::new(state, turn);
        let solver_nodes = self.config.root_solver_nodes();
        let first = &mut self.workers[0];
        if stage(turn, geo.num_edges) >= SOLVE_FROM || root.outcome().is_some() {
            if let Some((a, _)) = first.solver().try_best_action(state, solver_nodes) {
                return Ok((a, QdabReason::Solved));
            }
        }
        let schedule = Schedule::new(turn, state.to_move(), geo.num_edges);
        let c = canonical(first.board(), edges);
        let candidates = tree_moves(&c, schedule.stage(turn), schedule.tree_mark, true);
        let candidates = search::some_moves(candidates, &c, geo, edges);
        if candidates.count_ones() == 1 {
            return Ok((candidates.trailing_zeros() as Action, QdabReason::OnlyMove));
        }
        let seed = derive_seed(
            derive_seed(self.config.seed, self.games),
            moves.len() as u64,
        );
        let best = self.search(&root, &schedule, start, seed)?;
        Ok((best as Action, QdabReason::Searched))
    }

    /// Runs the search on every worker (one thread each when there are several) and returns
    /// the most visited root move over all of them.
    fn search(
        &mut self,
        root: &Pos,
        schedule: &Schedule,
        start: Instant,
        seed: u64,
    ) -> Result<usize, AgentError> {
        let budget = self.config.budget;
        let threads = self.workers.len() as u64;
        let stop_for = |i: u64| Stop {
            iterations: budget
                .iterations
                .map(|n| (n / threads + u64::from(i < n % threads)).max(1)),
            deadline: budget.time.map(|t| start + t),
        };
        let results: Vec<(Vec<RootMove>, u64)> = if threads == 1 {
            vec![self.workers[0].search(root, schedule, stop_for(0), seed)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .workers
                    .iter_mut()
                    .enumerate()
                    .map(|(i, w)| {
                        let stop = stop_for(i as u64);
                        let seed = derive_seed(seed, i as u64);
                        scope.spawn(move || w.search(root, schedule, stop, seed))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join())
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|_| AgentError::new("qdab: a search thread failed"))?
        };
        let mut visits = [0u64; crate::games::dots_and_boxes::MAX_EDGES];
        let mut reward = [0f64; crate::games::dots_and_boxes::MAX_EDGES];
        self.last_iterations = 0;
        for (moves, iterations) in &results {
            self.last_iterations += iterations;
            for m in moves {
                visits[m.edge] += m.visits as u64;
                reward[m.edge] += m.reward;
            }
        }
        let best = (0..visits.len())
            .max_by_key(|&e| (visits[e], std::cmp::Reverse(e)))
            .filter(|&e| visits[e] > 0)
            .ok_or_else(|| AgentError::new("qdab: the search tried no move"))?;
        self.last_value = Some(reward[best] / visits[best] as f64);
        Ok(best)
    }
}

impl Agent<DotsAndBoxes> for QdabAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reseed(&mut self, seed: u64) {
        self.config.seed = seed;
        self.games = 0;
    }

    fn new_game(&mut self, start: &DotsAndBoxes, _: &[Action]) -> Result<(), AgentError> {
        self.games += 1;
        self.ready_workers(start);
        for w in &mut self.workers {
            w.new_game();
        }
        Ok(())
    }

    fn choose(&mut self, state: &DotsAndBoxes, moves: &[Action]) -> Result<Choice, AgentError> {
        let (action, reason) = self.decide(state, moves)?;
        self.last_reason = Some(reason);
        Ok(Choice {
            iterations: self.last_iterations,
            win_probability: self.last_value,
            ..Choice::plain(action)
        })
    }
}
