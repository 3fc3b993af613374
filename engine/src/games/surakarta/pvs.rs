//! The product's Surakarta searcher (`pvs`): a principal variation search built as the
//! chess-style searchers are, over an evaluation whose weights `tune` can tune (set `eval`).
//!
//! * **Iterative deepening** of negamax PVS: the first move with the full window, the rest
//!   with a null window, searched again when they beat it; from depth 4 the root searches an
//!   aspiration window around the last iteration's score ([`PvsConfig::aspiration`]).
//! * **Ordering**: the table's move, captures (of undefended pieces first), two killers a ply,
//!   then the history heuristic.
//! * **Reductions**: late quiet moves a ply or two shallower, searched again at full depth when
//!   they beat alpha ([`PvsConfig::lmr`]). A null move and a check extension for capture
//!   threats were measured worse and retired (docs/lab/surakarta.md).
//! * **Quiescence**: captures only, the evaluation as the score of standing pat.
//! * **A transposition table** keyed by the position's hash, shared lock-free by the threads
//!   (lazy SMP) and kept between moves of a game ([`crate::transposition`]). As in chess
//!   programs it ignores the repetition history and the no-capture count; a decided score
//!   (which a repetition can make, under the Olympiad rule a win or a loss) is not stored.
//! * **The rules decide finished games**: a repeated position (`repetition=end`) or the
//!   no-capture limit ends the game and the side with more pieces wins. So the search seeks a
//!   repetition when ahead and avoids it when behind; a draw scores [`PvsConfig::contempt`]
//!   below zero for the side the search plays, so it avoids one when level too.
//! * **The evaluation** ([`EvalWeights`]): for each side, its pieces, its moves, the paper's
//!   position map, the enemy pieces it attacks, its own pieces it defends, its pieces left
//!   attacked and undefended and its pieces on the circuits' crossings; the side to move's
//!   terms less the opponent's, weighted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::circuits::{reach, step_targets, Rings};
use super::energy::POSITION_MAP;
use super::{MoveList, Surakarta, ACTIONS, MAX_MOVES, POINTS};
use crate::agents::{Agent, AgentError, Choice};
use crate::game::{Action, Game, Outcome, Player};
use crate::rng::Rng;
use crate::transposition::{Bound, Table, DECIDED, WIN};

/// Capture plies at most in the quiescence search.
const QUIESCENCE_PLIES: i32 = 8;
const MAX_PLY: usize = 128;
/// The largest evaluation weight: 12 pieces with at most 144 moves keep the sums far inside
/// an `i32` and short of a decided score.
pub const MAX_WEIGHT: i32 = 1_000;

/// The evaluation's terms, by [`EvalWeights::NAMES`] order.
pub const TERMS: usize = 7;

/// The evaluation's weights, each applied to the side to move's term less the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalWeights(pub [i32; TERMS]);

impl EvalWeights {
    /// The terms, as weights files name them.
    pub const NAMES: [&'static str; TERMS] = [
        "piece", "mobility", "position", "attack", "defence", "hanging", "crossing",
    ];

    /// Hand-set: a piece is 100; a move 1; the position map's 0-20 a piece, halved; an
    /// attacked enemy piece 4, a defended own piece 2, an own piece attacked and undefended
    /// -12; a piece on a crossing of the circuits 0 (the position map already values those
    /// points; the term is there for `tune`).
    pub const DEFAULT: EvalWeights = EvalWeights([100, 1, 1, 4, 2, -12, 0]);

    /// The rival's evaluation: material and mobility only.
    pub const MATERIAL: EvalWeights = EvalWeights([100, 1, 0, 0, 0, 0, 0]);

    pub fn to_vec(self) -> Vec<f32> {
        self.0.iter().map(|&w| w as f32).collect()
    }

    pub fn from_slice(w: &[f32]) -> Result<EvalWeights, String> {
        let names = EvalWeights::NAMES.map(String::from);
        let w = crate::tuning::whole_weights(w, &names, MAX_WEIGHT)?;
        Ok(EvalWeights(w.try_into().expect("one a term")))
    }
}

/// The 16 points where two stations meet (a rank and a file of the circuits cross): files b-e
/// of ranks 2-5. A piece there can leave along either line.
const CROSSINGS: u64 = 0b011110 << 6 | 0b011110 << 12 | 0b011110 << 18 | 0b011110 << 24;

/// One side's terms (the position map halved, so a weight of 1 makes it 0-10 a piece).
/// Also the enemy pieces it attacks and its own pieces it defends.
fn side_terms(own: u64, enemy: u64, occupied: u64, rings: Rings) -> ([i32; TERMS], u64, u64) {
    let (mut moves, mut position) = (0, 0);
    let (mut attacked, mut defended) = (0u64, 0u64);
    let mut rest = own;
    while rest != 0 {
        let p = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let r = reach(p, rings);
        moves += (step_targets(p, occupied) | (r & enemy)).count_ones() as i32;
        position += POSITION_MAP[p] as i32;
        attacked |= r & enemy;
        defended |= r & own;
    }
    let terms = [
        own.count_ones() as i32,
        moves,
        position / 2,
        attacked.count_ones() as i32,
        defended.count_ones() as i32,
        0,
        (own & CROSSINGS).count_ones() as i32,
    ];
    (terms, attacked, defended)
}

/// The evaluation of `state` for the side to move.
pub fn evaluate(state: &Surakarta, weights: &EvalWeights) -> i32 {
    let me = state.to_move();
    let (own, enemy) = (state.pieces(me), state.pieces(me.opponent()));
    let occupied = own | enemy;
    let rings = Rings::of(occupied);
    let (mut mine, mine_attacks, my_defended) = side_terms(own, enemy, occupied, rings);
    let (mut theirs, their_attacks, their_defended) = side_terms(enemy, own, occupied, rings);
    // Hanging: the pieces attacked and defended by none of their side's.
    mine[5] = (their_attacks & !my_defended).count_ones() as i32;
    theirs[5] = (mine_attacks & !their_defended).count_ones() as i32;
    let score: i32 = (0..TERMS)
        .map(|t| weights.0[t] * (mine[t] - theirs[t]))
        .sum();
    score.clamp(-DECIDED + 1, DECIDED - 1)
}

/// The pieces of `own` another of its pieces reaches along a circuit.
fn defended_set(own: u64, rings: Rings) -> u64 {
    let mut defended = 0u64;
    let mut rest = own;
    while rest != 0 {
        let p = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        defended |= reach(p, rings) & own;
    }
    defended
}

/// How the searcher searches; each switch measured on its own in
/// `docs/surakarta-results.md`.
#[derive(Clone, Debug)]
pub struct PvsConfig {
    pub time: Duration,
    pub max_depth: u32,
    pub threads: usize,
    pub weights: EvalWeights,
    pub seed: u64,
    /// Late move reductions of quiet moves.
    pub lmr: bool,
    /// Aspiration windows at the root from depth 4.
    pub aspiration: bool,
    /// What a draw costs the side the search plays (its opponent gains as much).
    pub contempt: i32,
    /// Whether the table is kept from one move to the next.
    pub keep_table: bool,
}

impl PvsConfig {
    pub fn new(time: Duration) -> PvsConfig {
        PvsConfig {
            time,
            max_depth: 64,
            threads: 1,
            weights: EvalWeights::DEFAULT,
            seed: 1,
            lmr: true,
            aspiration: true,
            contempt: 20,
            keep_table: true,
        }
    }
}

/// One thread's search.
struct Worker<'a> {
    config: &'a PvsConfig,
    table: &'a Table,
    stop: &'a AtomicBool,
    deadline: Instant,
    /// The side the search plays (draws cost it the contempt).
    root_side: Player,
    nodes: u64,
    killers: [[Action; 2]; MAX_PLY],
    history: Vec<u32>,
}

impl<'a> Worker<'a> {
    fn new(
        config: &'a PvsConfig,
        table: &'a Table,
        stop: &'a AtomicBool,
        deadline: Instant,
        root_side: Player,
    ) -> Worker<'a> {
        Worker {
            config,
            table,
            stop,
            deadline,
            root_side,
            nodes: 0,
            killers: [[Action::MAX; 2]; MAX_PLY],
            history: vec![0; ACTIONS],
        }
    }

    fn stopped(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes % 1024 == 0 && Instant::now() >= self.deadline {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.stop.load(Ordering::Relaxed)
    }

    /// A finished game's score for the side to move: more pieces win (sooner better), a draw
    /// costs the root's side the contempt.
    fn finished(&self, state: &Surakarta, ply: usize) -> i32 {
        match state.outcome_by_pieces() {
            Outcome::Draw if state.to_move() == self.root_side => -self.config.contempt,
            Outcome::Draw => self.config.contempt,
            o if o.winner() == Some(state.to_move()) => WIN - ply as i32,
            _ => -(WIN - ply as i32),
        }
    }

    fn quiesce(
        &mut self,
        state: &Surakarta,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        left: i32,
    ) -> i32 {
        if self.stopped() {
            return 0;
        }
        if state.is_terminal() {
            return self.finished(state, ply);
        }
        let stand = evaluate(state, &self.config.weights);
        if stand >= beta || left == 0 || ply >= MAX_PLY - 1 {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut captures = MoveList::new();
        state.captures_into(&mut captures);
        let mut best = stand;
        for &a in captures.as_slice() {
            let mut child = *state;
            child.apply(a);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, left - 1);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The node's moves, best first by the ordering: the table's move, captures (of
    /// undefended pieces first), killers, history. Returns how many.
    fn order(
        &self,
        state: &Surakarta,
        tt_move: Option<usize>,
        ply: usize,
        out: &mut [(u32, Action); MAX_MOVES],
    ) -> usize {
        let mut moves = MoveList::new();
        state.legal_into(&mut moves);
        let me = state.to_move();
        let (own, enemy) = (state.pieces(me), state.pieces(me.opponent()));
        let their_defended = defended_set(enemy, Rings::of(own | enemy));
        let killers = self.killers[ply.min(MAX_PLY - 1)];
        for (slot, &a) in out.iter_mut().zip(moves.as_slice()) {
            let to = a as usize % POINTS;
            let key = if Some(a as usize) == tt_move {
                u32::MAX
            } else if enemy >> to & 1 == 1 {
                u32::MAX - 2 + u32::from(their_defended >> to & 1 == 0)
            } else if killers[0] == a {
                u32::MAX - 3
            } else if killers[1] == a {
                u32::MAX - 4
            } else {
                self.history[a as usize].min(u32::MAX - 5)
            };
            *slot = (key, a);
        }
        let n = moves.len();
        out[..n].sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
        n
    }

    fn search(
        &mut self,
        state: &Surakarta,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if self.stopped() {
            return 0;
        }
        if state.is_terminal() {
            return self.finished(state, ply);
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(state, &self.config.weights);
        }
        if depth <= 0 {
            return self.quiesce(state, alpha, beta, ply, QUIESCENCE_PLIES);
        }
        let key = state.hash();
        let mut tt_move = None;
        if let Some(e) = self.table.probe(key) {
            tt_move = e.best;
            if let Some(score) = e.cutoff(depth, alpha, beta, ply) {
                return score;
            }
        }
        let pv = beta - alpha > 1;
        let mut ordered: [(u32, Action); MAX_MOVES] = [(0, 0); MAX_MOVES];
        let n = self.order(state, tt_move, ply, &mut ordered);
        let alpha0 = alpha;
        let (mut best, mut best_move) = (-WIN - 1, ordered[0].1);
        for (i, &(_, a)) in ordered[..n].iter().enumerate() {
            let capture = state.is_capture(a);
            let mut child = *state;
            child.apply(a);
            let reduction = if self.config.lmr && !capture && !pv && i >= 3 && depth >= 3 {
                1 + i32::from(i >= 12)
            } else {
                0
            };
            let score = if i == 0 {
                -self.search(&child, depth - 1, -beta, -alpha, ply + 1)
            } else {
                let mut s =
                    -self.search(&child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                if s > alpha && reduction > 0 {
                    s = -self.search(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta {
                    s = -self.search(&child, depth - 1, -beta, -alpha, ply + 1);
                }
                s
            };
            if self.stop.load(Ordering::Relaxed) {
                return 0;
            }
            if score > best {
                best = score;
                best_move = a;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                if !capture {
                    let k = &mut self.killers[ply];
                    if k[0] != a {
                        k[1] = k[0];
                        k[0] = a;
                    }
                    let h = &mut self.history[a as usize];
                    *h = h.saturating_add((depth * depth) as u32);
                }
                break;
            }
        }
        let bound = Bound::of(best, alpha0, beta);
        // A decided score may come from a repetition, which depends on the path's history,
        // not on the position the table keys: kept out of it, with its move.
        let score_kept = (best.abs() <= DECIDED).then_some(best);
        if let Some(score) = score_kept {
            self.table
                .store(key, score, ply, depth, bound, Some(best_move as usize));
        }
        best
    }

    /// One pass over the root's moves (the best so far first) within (`alpha`, `beta`): the
    /// best move and score, `None` when stopped before the first move was searched. A score
    /// at or below `alpha` or at or above `beta` is a bound, as the window's.
    fn root(
        &mut self,
        state: &Surakarta,
        moves: &mut [Action],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(Action, i32)> {
        let mut best = None;
        for i in 0..moves.len() {
            let a = moves[i];
            let mut child = *state;
            child.apply(a);
            let score = if i == 0 {
                -self.search(&child, depth - 1, -beta, -alpha, 1)
            } else {
                let s = -self.search(&child, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && s < beta {
                    -self.search(&child, depth - 1, -beta, -alpha, 1)
                } else {
                    s
                }
            };
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            if i == 0 || score > alpha {
                best = Some((a, score));
                moves[..=i].rotate_right(1);
            }
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }

    /// An iteration of `depth`, with an aspiration window around `guess` where the config
    /// asks for one (widened until the score falls inside).
    fn iterate(
        &mut self,
        state: &Surakarta,
        moves: &mut [Action],
        depth: i32,
        guess: Option<i32>,
    ) -> Option<(Action, i32)> {
        let full = (-WIN - 1, WIN + 1);
        let mut delta = 30;
        let (mut alpha, mut beta) = match guess {
            Some(g) if self.config.aspiration && depth >= 4 && g.abs() < DECIDED => {
                (g - delta, g + delta)
            }
            _ => full,
        };
        let mut last = None;
        loop {
            // Stopped before the re-search's first move (the one that failed high) finished:
            // the pass before still named it.
            let Some(found) = self.root(state, moves, depth, alpha, beta) else {
                return last;
            };
            if self.stop.load(Ordering::Relaxed) {
                return Some(found);
            }
            last = Some(found);
            let score = found.1;
            if score <= alpha && alpha > full.0 {
                delta *= 4;
                alpha = if delta > 1_000 { full.0 } else { score - delta };
            } else if score >= beta && beta < full.1 {
                delta *= 4;
                beta = if delta > 1_000 { full.1 } else { score + delta };
            } else {
                return Some(found);
            }
        }
    }
}

/// The searcher, as a player.
pub struct Pvs {
    name: String,
    config: PvsConfig,
    table: Table,
    rng: Rng,
    /// The side of the last search (the table's draws are scored for it).
    last_side: Option<Player>,
    nodes: u64,
    depth: u32,
}

impl Pvs {
    pub fn new(name: impl Into<String>, config: PvsConfig) -> Pvs {
        let rng = Rng::new(config.seed);
        Pvs {
            name: name.into(),
            config,
            table: Table::new(20),
            rng,
            last_side: None,
            nodes: 0,
            depth: 0,
        }
    }

    /// Nodes and the deepest iteration completed by the last search.
    pub fn last_search(&self) -> (u64, u32) {
        (self.nodes, self.depth)
    }

    /// The best move and its score for the side to move (100 a piece) within the
    /// configured time or depth; `None` when the game is over.
    pub fn best_move(&mut self, state: &Surakarta) -> Option<(Action, i32)> {
        let started = Instant::now();
        let deadline = started + self.config.time;
        let mut list = MoveList::new();
        state.legal_into(&mut list);
        let mut moves: Vec<Action> = list.as_slice().to_vec();
        if moves.is_empty() {
            return None;
        }
        self.rng.shuffle(&mut moves);
        let side = state.to_move();
        if !self.config.keep_table || self.last_side != Some(side) {
            self.table.clear();
        }
        self.last_side = Some(side);
        self.nodes = 0;
        self.depth = 0;
        if moves.len() == 1 {
            return Some((moves[0], 0));
        }
        let stop = AtomicBool::new(false);
        let (config, table, stop) = (&self.config, &self.table, &stop);
        let max_depth = config.max_depth as i32;
        let (best, nodes, completed) = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..config.threads.max(1))
                .map(|t| {
                    let mut moves = moves.clone();
                    scope.spawn(move || {
                        let mut helper = Worker::new(config, table, stop, deadline, side);
                        // Helpers start a ply deeper on odd threads, so the threads part.
                        let mut depth = 1 + (t as i32 % 2);
                        let mut guess = None;
                        while depth <= max_depth && !stop.load(Ordering::Relaxed) {
                            guess = helper.iterate(state, &mut moves, depth, guess).map(|f| f.1);
                            depth += 1;
                        }
                        helper.nodes
                    })
                })
                .collect();
            let mut worker = Worker::new(config, table, stop, deadline, side);
            let mut best = (moves[0], 0);
            let mut completed = 0;
            for depth in 1..=max_depth {
                let guess = (depth > 1).then_some(best.1);
                if let Some(found) = worker.iterate(state, &mut moves, depth, guess) {
                    // A stopped iteration's best is kept too: its first move was the last
                    // best, so any move it names beat that one.
                    best = found;
                    if !stop.load(Ordering::Relaxed) {
                        completed = depth as u32;
                    }
                }
                if stop.load(Ordering::Relaxed) || best.1.abs() > DECIDED {
                    break;
                }
            }
            stop.store(true, Ordering::Relaxed);
            let helper_nodes: u64 = helpers.into_iter().map(|h| h.join().unwrap_or(0)).sum();
            (best, worker.nodes + helper_nodes, completed)
        });
        self.nodes = nodes;
        self.depth = completed;
        Some(best)
    }
}

impl Agent<Surakarta> for Pvs {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    fn new_game(&mut self, _start: &Surakarta, _moves: &[Action]) -> Result<(), AgentError> {
        self.table.clear();
        self.last_side = None;
        Ok(())
    }

    fn choose(&mut self, state: &Surakarta, _moves: &[Action]) -> Result<Choice, AgentError> {
        let (action, score) = self
            .best_move(state)
            .ok_or_else(|| AgentError::new("no legal move"))?;
        // A score as a win probability: a piece ahead is about 73%.
        Ok(Choice::scored(action, self.nodes, score, DECIDED, 100.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::surakarta::Rules;

    fn position(board: &str, to_move: Player) -> Surakarta {
        let pieces = Surakarta::parse_board(board).expect("a board");
        Surakarta::from_pieces(pieces, to_move, Rules::default(), 0)
    }

    fn play(state: &mut Surakarta, moves: &[&str]) {
        for m in moves {
            let a = state.parse_action(m).expect("a legal move");
            state.apply(a);
            assert!(!state.is_terminal(), "{m} ends the game");
        }
    }

    fn searcher(depth: u32) -> Pvs {
        let mut config = PvsConfig::new(Duration::from_secs(60));
        config.max_depth = depth;
        Pvs::new("pvs", config)
    }

    /// P1 in the corners (a1, and f1 with `p1_corners` 2), P2 on f6 (and a6 with
    /// `p2_corner`): after a1b1 f6f5 b1a1, P2's f5f6 repeats the first position and ends the
    /// game.
    fn repetition_ahead_of(p2_corner: bool, p1_corners: usize) -> Surakarta {
        let top = if p2_corner { "O....O" } else { ".....O" };
        let bottom = if p1_corners == 2 { "X....X" } else { "X....." };
        let board = format!("{top}/....../....../....../....../{bottom}");
        let mut state = position(&board, Player::P1);
        play(&mut state, &["a1b1", "f6f5", "b1a1"]);
        let repeat = state.parse_action("f5f6").unwrap();
        let mut child = state;
        child.apply(repeat);
        assert!(child.is_terminal(), "f5f6 repeats the first position");
        state
    }

    #[test]
    fn a_repetition_is_sought_ahead_and_avoided_behind_or_level() {
        let repeat = |s: &Surakarta| s.parse_action("f5f6").unwrap();
        // Ahead (two pieces to one): the repetition wins.
        let ahead = repetition_ahead_of(true, 1);
        let (a, score) = searcher(4).best_move(&ahead).unwrap();
        assert_eq!(a, repeat(&ahead));
        assert!(score > DECIDED);
        // Behind (one to two): it loses at once, and is avoided (a later loss scores better).
        let behind = repetition_ahead_of(false, 2);
        let (a, score) = searcher(4).best_move(&behind).unwrap();
        assert_ne!(a, repeat(&behind));
        assert!(score > -(WIN - 1), "the repetition's loss is the quickest");
        // Level (two each): a draw, avoided at the default contempt; at a contempt of -500 a
        // one-ply search (which sees no win for either side) takes the draw.
        let level = repetition_ahead_of(true, 2);
        let (a, _) = searcher(4).best_move(&level).unwrap();
        assert_ne!(a, repeat(&level));
        let mut config = PvsConfig::new(Duration::from_secs(60));
        config.max_depth = 1;
        config.contempt = -500;
        let (a, score) = Pvs::new("pvs", config).best_move(&level).unwrap();
        assert_eq!((a, score), (repeat(&level), 500));
    }

    #[test]
    fn a_free_capture_is_taken_by_either_side() {
        // c1 and a3 attack each other round the a1 loop of the outer circuit; the corners
        // take no part. The side to move takes, a piece up.
        let board = ".....O/....../....../O...../....../X.X...";
        let p1 = position(board, Player::P1);
        let (a, score) = searcher(3).best_move(&p1).unwrap();
        assert_eq!(a, p1.parse_action("c1a3").unwrap());
        assert!(score >= 50, "the capture scored {score}");
        let p2 = position(board, Player::P2);
        let (a, score) = searcher(3).best_move(&p2).unwrap();
        assert_eq!(a, p2.parse_action("a3c1").unwrap());
        assert!(score >= 50, "the capture scored {score}");
    }

    #[test]
    fn threads_and_switches_play_legal_moves() {
        let mut state = Surakarta::new(Rules::default());
        let mut config = PvsConfig::new(Duration::from_millis(30));
        config.threads = 2;
        let mut two = Pvs::new("two", config.clone());
        config.threads = 1;
        config.lmr = false;
        config.aspiration = false;
        config.keep_table = false;
        let mut switched = Pvs::new("switched", config);
        let mut legal = Vec::new();
        for ply in 0..30 {
            if state.is_terminal() {
                break;
            }
            let p = if ply % 2 == 0 {
                &mut two
            } else {
                &mut switched
            };
            let (a, _) = p.best_move(&state).unwrap();
            state.legal_actions(&mut legal);
            assert!(legal.contains(&a));
            // A single legal move is played without a search.
            assert!(legal.len() == 1 || p.last_search().0 > 0);
            state.apply(a);
        }
    }

    #[test]
    fn weights_outside_their_range_are_refused() {
        assert!(EvalWeights::from_slice(&[1.0; 6]).is_err());
        assert!(EvalWeights::from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, f32::NAN]).is_err());
        assert!(EvalWeights::from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 5_000.0]).is_err());
        assert_eq!(
            EvalWeights::from_slice(&EvalWeights::DEFAULT.to_vec()).unwrap(),
            EvalWeights::DEFAULT
        );
    }

    #[test]
    fn the_crossing_term_counts_pieces_where_two_lines_of_the_circuits_cross() {
        let only = |t: usize| {
            let mut w = [0; TERMS];
            w[t] = 1;
            EvalWeights(w)
        };
        let crossing = only(6);
        // Two pieces each: P1 on c3 and b2 (crossings), P2 on a6 and f4 (not).
        let board = "O...../....../.....O/..X.../.X..../......";
        let p1 = position(board, Player::P1);
        assert_eq!(evaluate(&p1, &crossing), 2);
        assert_eq!(evaluate(&position(board, Player::P2), &crossing), -2);
        assert_eq!(evaluate(&p1, &only(0)), 0, "two pieces each");
        // The start is level, and the sixteen crossings are the inner 4x4 square.
        let start = Surakarta::new(Rules::default());
        assert_eq!(evaluate(&start, &crossing), 0);
        assert_eq!(CROSSINGS.count_ones(), 16);
        for p in 0..POINTS {
            let (file, rank) = (p % 6, p / 6);
            let inner = (1..=4).contains(&file) && (1..=4).contains(&rank);
            assert_eq!(CROSSINGS >> p & 1 == 1, inner, "point {p}");
        }
    }
}
