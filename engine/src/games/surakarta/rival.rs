//! The rival: iterative-deepening alpha-beta over material and mobility with a time budget a
//! move, so that the MCTS players are measured against something that is not themselves.
//!
//! * Negamax with alpha-beta, principal-variation search at each node after the first move,
//!   a transposition table (position hash, depth, bound, best move), the table's move first,
//!   then captures, then quiet moves by the history heuristic.
//! * At the horizon, a quiescence search over captures (up to [`QUIESCENCE_PLIES`] deep) with
//!   the evaluation as the stand-pat score.
//! * The evaluation, for the side to move: 100 a piece ahead plus 1 a move of mobility ahead
//!   (steps and captures of each side).
//! * Finished games score by the rules (the side with more pieces wins), sooner wins better.
//!   The table ignores the repetition history and the no-capture count, as chess programs'
//!   tables do.
//! * The root's moves are shuffled by the seed first, so equal moves vary from game to game.

use std::time::{Duration, Instant};

use super::{MoveList, Surakarta, ACTIONS};
use crate::agents::{Agent, AgentError, Choice};
use crate::game::{Action, Game, Outcome};
use crate::rng::Rng;

/// A won game's score (less the plies to it).
const WIN: i32 = 1_000_000;
/// Capture plies at most in the quiescence search.
pub const QUIESCENCE_PLIES: u32 = 8;
const PIECE: i32 = 100;
const MOBILITY: i32 = 1;
/// Transposition table entries (a power of two): 16 bytes each.
const TABLE_SIZE: usize = 1 << 20;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i32,
    best: Action,
    depth: i8,
    bound: Bound,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

/// Alpha-beta with iterative deepening and a clock.
pub struct AlphaBeta {
    name: String,
    time: Duration,
    max_depth: u32,
    rng: Rng,
    table: Vec<Entry>,
    history: Vec<u32>,
    deadline: Instant,
    stopped: bool,
    /// Nodes of the last search.
    pub nodes: u64,
    /// The deepest iteration the last search completed.
    pub depth: u32,
}

impl AlphaBeta {
    pub fn new(name: impl Into<String>, time: Duration, max_depth: u32, seed: u64) -> AlphaBeta {
        AlphaBeta {
            name: name.into(),
            time,
            max_depth: max_depth.max(1),
            rng: Rng::new(seed),
            table: vec![Entry::default(); TABLE_SIZE],
            history: vec![0; ACTIONS],
            deadline: Instant::now(),
            stopped: false,
            nodes: 0,
            depth: 0,
        }
    }

    /// The best move and its score (for the side to move, 100 a piece) by the deepest
    /// iteration that finished in time (the first always finishes).
    pub fn best_move(&mut self, state: &Surakarta) -> Option<(Action, i32)> {
        let mut moves = MoveList::new();
        state.legal_into(&mut moves);
        let mut root: Vec<Action> = moves.as_slice().to_vec();
        if root.is_empty() {
            return None;
        }
        self.rng.shuffle(&mut root);
        self.nodes = 0;
        self.depth = 0;
        self.stopped = false;
        self.deadline = Instant::now() + self.time;
        self.history.iter_mut().for_each(|h| *h /= 8);
        let mut best = (root[0], 0);
        for depth in 1..=self.max_depth {
            let (mut alpha, beta) = (-WIN - 1, WIN + 1);
            let mut found = None;
            for i in 0..root.len() {
                let a = root[i];
                let mut child = *state;
                child.apply(a);
                let score = -self.search(&child, depth as i32 - 1, -beta, -alpha, 1);
                if self.stopped && depth > 1 {
                    break;
                }
                if found.is_none() || score > alpha {
                    alpha = score;
                    found = Some((a, score));
                    // The best so far leads the next iteration.
                    root[..=i].rotate_right(1);
                }
            }
            if self.stopped && depth > 1 {
                break;
            }
            best = found.expect("the root has moves");
            self.depth = depth;
            if best.1.abs() >= WIN - 1000 {
                break;
            }
        }
        Some(best)
    }

    fn out_of_time(&mut self) -> bool {
        if self.nodes & 1023 == 0 && Instant::now() >= self.deadline {
            self.stopped = true;
        }
        self.stopped
    }

    /// The score of a finished game for the side to move, `ply` plies from the root.
    pub fn finished(state: &Surakarta, ply: i32) -> i32 {
        match state.outcome_by_pieces() {
            Outcome::Draw => 0,
            o if o.winner() == Some(state.to_move()) => WIN - ply,
            _ => -(WIN - ply),
        }
    }

    /// Material and mobility for the side to move.
    pub fn evaluate(state: &Surakarta) -> i32 {
        let me = state.to_move().index();
        let material = state.piece_difference() * if me == 0 { 1 } else { -1 };
        let mobility = state.mobility();
        PIECE * material + MOBILITY * (mobility[me] as i32 - mobility[1 - me] as i32)
    }

    fn search(
        &mut self,
        state: &Surakarta,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: i32,
    ) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        if state.is_terminal() {
            return AlphaBeta::finished(state, ply);
        }
        if depth <= 0 {
            return self.quiesce(state, alpha, beta, ply);
        }
        let key = state.hash();
        let slot = key as usize & (TABLE_SIZE - 1);
        let entry = self.table[slot];
        let mut table_move = None;
        if entry.key == key {
            table_move = Some(entry.best);
            if i32::from(entry.depth) >= depth {
                let hit = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => entry.score >= beta,
                    Bound::Upper => entry.score <= alpha,
                };
                if hit {
                    return entry.score;
                }
            }
        }
        let mut moves = MoveList::new();
        state.legal_into(&mut moves);
        let mut ordered: [(u32, Action); super::MAX_MOVES] = [(0, 0); super::MAX_MOVES];
        let n = moves.len();
        for (slot, &a) in ordered.iter_mut().zip(moves.as_slice()) {
            let key = if Some(a) == table_move {
                u32::MAX
            } else if state.is_capture(a) {
                u32::MAX - 1
            } else {
                self.history[a as usize].min(u32::MAX - 2)
            };
            *slot = (key, a);
        }
        ordered[..n].sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
        let original_alpha = alpha;
        let (mut best, mut best_move) = (-WIN - 1, ordered[0].1);
        for (i, &(_, a)) in ordered[..n].iter().enumerate() {
            let mut child = *state;
            child.apply(a);
            let score = if i == 0 {
                -self.search(&child, depth - 1, -beta, -alpha, ply + 1)
            } else {
                // A null window first: most moves only need proving worse.
                let s = -self.search(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                if s > alpha && s < beta {
                    -self.search(&child, depth - 1, -beta, -alpha, ply + 1)
                } else {
                    s
                }
            };
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = a;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if !state.is_capture(a) {
                    self.history[a as usize] += (depth * depth) as u32;
                }
                break;
            }
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table[slot] = Entry {
            key,
            score: best,
            best: best_move,
            depth: depth.min(i8::MAX as i32) as i8,
            bound,
        };
        best
    }

    /// Captures only, with the evaluation as the score of standing pat.
    fn quiesce(&mut self, state: &Surakarta, alpha: i32, beta: i32, ply: i32) -> i32 {
        let (deadline, nodes, stopped) = (self.deadline, &mut self.nodes, &mut self.stopped);
        let mut stop = || {
            *nodes += 1;
            if *nodes & 1023 == 0 && Instant::now() >= deadline {
                *stopped = true;
            }
            *stopped
        };
        quiesce(state, alpha, beta, ply, QUIESCENCE_PLIES, &mut stop)
    }
}

/// A quiescence search: the evaluation as the score of standing pat, then captures only, up
/// to `plies` deep; the score is for the side to move. `stop` is called once a node (it may
/// count them) and ends the search where it returns true (the node then scores its
/// evaluation).
pub fn quiesce(
    state: &Surakarta,
    mut alpha: i32,
    beta: i32,
    ply: i32,
    plies: u32,
    stop: &mut impl FnMut() -> bool,
) -> i32 {
    if state.is_terminal() {
        return AlphaBeta::finished(state, ply);
    }
    let stand = AlphaBeta::evaluate(state);
    if stop() || stand >= beta || plies == 0 {
        return stand;
    }
    alpha = alpha.max(stand);
    let mut captures = MoveList::new();
    state.captures_into(&mut captures);
    let mut best = stand;
    for &a in captures.as_slice() {
        let mut child = *state;
        child.apply(a);
        let score = -quiesce(&child, -beta, -alpha, ply + 1, plies - 1, stop);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The score of `state` for the side to move by a quiescence search of at most `plies`
/// capture plies and `max_nodes` nodes (the MCTS's leaf evaluation).
pub fn quiescence_score(state: &Surakarta, plies: u32, max_nodes: u32) -> i32 {
    let mut nodes = 0;
    let mut stop = || {
        nodes += 1;
        nodes > max_nodes
    };
    quiesce(state, -WIN - 1, WIN + 1, 0, plies, &mut stop)
}

impl Agent<Surakarta> for AlphaBeta {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    fn new_game(&mut self, _start: &Surakarta, _moves: &[Action]) -> Result<(), AgentError> {
        self.table.iter_mut().for_each(|e| *e = Entry::default());
        self.history.iter_mut().for_each(|h| *h = 0);
        Ok(())
    }

    fn choose(&mut self, state: &Surakarta, _moves: &[Action]) -> Result<Choice, AgentError> {
        let (action, score) = self
            .best_move(state)
            .ok_or_else(|| AgentError::new("no legal move"))?;
        // A score as a win probability: a piece ahead is about 73%.
        Ok(Choice::scored(action, self.nodes, score, WIN - 1000, 100.0))
    }
}
