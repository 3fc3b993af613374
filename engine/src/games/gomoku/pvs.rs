//! The product's Gomoku searcher (`pvs`): principal variation search over the incremental
//! board, with threat-space proofs, as the classical Gomocup engines search.
//!
//! * **At the root**, before any search: a five is played, a five point of the opponent's is
//!   blocked, then a VCF and a VCT of our own are looked for ([`ThreatSearch`]), and the
//!   opponent's VCF as if we passed: if it has one, only the moves after which it has none are
//!   searched.
//! * **Iterative deepening** of a negamax principal variation search: the first move with the
//!   full window, the rest with a null window and searched again when they beat it; late
//!   moves reduced by `ln(depth) ln(moves) / 2` plies (late move reductions, [`reduction`]),
//!   searched again at full depth when they beat alpha.
//! * **At the horizon**: a quick VCF ([`Worker::quick_vcf`]) where the static score is below
//!   beta, and at any node a live four to make with no four to fear is a win.
//! * **Moves that matter**: against a four, the block only (not counted as depth); against a
//!   live three, our fours and the points of the opponent's fours and fives; else the points
//!   near the stones, the best [`PvsConfig::beam`] by pattern score, history and killers.
//! * **A transposition table** keyed by the Zobrist hash, shared lock-free by the threads
//!   (lazy SMP: each thread searches the same root with the table as the only link, and the
//!   first thread's answer is played).
//! * **The evaluation**: the count of each shape each side can make on the empty points
//!   ([`ShapeBoard::count`]) weighted by [`EvalWeights`], the side to move's and the
//!   opponent's apart; a live three with the move and no four to fear is scored as a win.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::net::PatternNet;
use super::patterns::Shape;
use super::shape_board::ShapeBoard;
use super::threat_space::{Defend, ThreatKind, ThreatSearch};
use super::{Gomoku, MAX_POINTS};
use crate::agents::{Agent, AgentError, Choice};
use crate::game::{Action, Game, Player};
pub use crate::transposition::WIN;
use crate::transposition::{Bound, Table, DECIDED};

const MAX_PLY: usize = 128;

/// The evaluation's weights: each shape the side to move can make on an empty point (a point
/// and a direction), and each the opponent can, by [`Shape`] order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvalWeights {
    pub mine: [i32; 9],
    pub theirs: [i32; 9],
}

impl EvalWeights {
    /// Fitted to game results (session 52, `engine/examples/gomoku_texel.rs`, Texel's method)
    /// from the hand-set weights of `configs/gomoku-eval-hand-set.json` (the default until
    /// then: each shape a few times the one below) over 500 games of `pvs` against itself; the
    /// live-four weights, which no quiet position teaches, stay hand-set. 120-80 against the
    /// hand-set weights over 200 games (`docs/gomoku-results.md`).
    pub const DEFAULT: EvalWeights = EvalWeights {
        mine: [0, 1, 1, 13, 23, 106, 96, 700, 0],
        theirs: [0, 1, 1, 6, 20, 54, 109, 450, 0],
    };

    /// The weights' names, as a weight file spells them (the `none` and `five` shapes are
    /// decided by the search, not weighed).
    pub fn names() -> Vec<String> {
        let shapes = &Shape::NAMES[1..8];
        let named = |side| shapes.iter().map(move |shape| format!("{side}-{shape}"));
        ["mine", "theirs"].into_iter().flat_map(named).collect()
    }

    pub fn to_vec(&self) -> Vec<f32> {
        self.mine[1..8]
            .iter()
            .chain(&self.theirs[1..8])
            .map(|&w| w as f32)
            .collect()
    }

    pub fn from_slice(w: &[f32]) -> Result<EvalWeights, String> {
        let w = crate::tuning::whole_weights(w, &EvalWeights::names(), MAX_WEIGHT)?;
        let mut out = EvalWeights {
            mine: [0; 9],
            theirs: [0; 9],
        };
        out.mine[1..8].copy_from_slice(&w[..7]);
        out.theirs[1..8].copy_from_slice(&w[7..]);
        Ok(out)
    }
}

/// The largest evaluation weight: with at most 484 points in four lines a side the sums stay
/// far inside an `i32`, and the evaluation is clamped short of a decided score.
const MAX_WEIGHT: i32 = 10_000;

/// Move ordering: what each shape of the mover's (attack) and the opponent's (defence) on a
/// point is worth as a move, by [`Shape`] order.
const ORDER_ATTACK: [i32; 9] = [0, 1, 8, 24, 40, 400, 500, 8_000, 100_000];
const ORDER_DEFENCE: [i32; 9] = [0, 1, 6, 18, 30, 300, 350, 6_000, 50_000];

/// How much the move order thinks of empty point `p` for `me` by its shapes alone (no history,
/// no policy): what it makes for `me` ([`ORDER_ATTACK`]) and what it takes from the other
/// ([`ORDER_DEFENCE`]) along its four lines, and a live four's worth more where it makes or
/// stops a double threat; and whether `p` makes a four for `me`. `train pattern --rank-pick
/// ordered` draws its alternatives by it.
pub fn shape_order(board: &ShapeBoard, me: Player, p: usize) -> (i32, bool) {
    let opp = me.opponent();
    let mut shapes = 0;
    for d in 0..4 {
        shapes += ORDER_ATTACK[board.shape(me, p, d) as usize]
            + ORDER_DEFENCE[board.shape(opp, p, d) as usize];
    }
    let mine = board.threat(me, p);
    if mine.is_winning_threat() {
        shapes += ORDER_ATTACK[Shape::LiveFour as usize];
    }
    let theirs = board.threat(opp, p);
    if theirs.is_winning_threat() {
        shapes += ORDER_DEFENCE[Shape::LiveFour as usize];
    }
    (shapes, mine.is_four())
}

/// Orders a node's moves, (point, order score), best first (ties by point), keeping the
/// first `beam` and the threats (fours and better) behind them in front; how many are kept.
/// A selection and two short sorts in place of sorting every candidate: the same moves in the
/// same order as a full sort filtered.
fn order_beam(moves: &mut [(usize, i32)], beam: usize) -> usize {
    let order = |&(p, s): &(usize, i32)| (std::cmp::Reverse(s), p);
    let threat = |&(_, s): &(usize, i32)| s >= ORDER_ATTACK[Shape::Four as usize];
    if moves.len() <= beam.saturating_add(1) {
        moves.sort_unstable_by_key(order);
        let front = beam.min(moves.len());
        return front + moves[front..].iter().take_while(|m| threat(m)).count();
    }
    moves.select_nth_unstable_by_key(beam, order);
    let (front, rest) = moves.split_at_mut(beam);
    front.sort_unstable_by_key(order);
    let mut threats = 0;
    for i in 0..rest.len() {
        if threat(&rest[i]) {
            rest.swap(threats, i);
            threats += 1;
        }
    }
    rest[..threats].sort_unstable_by_key(order);
    beam + threats
}

/// How the searcher searches.
#[derive(Clone, Debug)]
pub struct PvsConfig {
    pub time: Duration,
    pub max_depth: u32,
    pub threads: usize,
    pub weights: EvalWeights,
    /// Quiet moves searched at a node (the best by ordering).
    pub beam: usize,
    /// Node limits of the root's threat searches (VCF, VCT).
    pub vcf_nodes: u64,
    pub vct_nodes: u64,
    /// Node budget of the quick VCF at the horizon ([`Worker::quick_vcf`]; 0: none).
    pub quick_vcf: u32,
    /// A learned evaluation in place of the weighed shape counts ([`super::net`]).
    pub model: Option<Arc<PatternNet>>,
    /// Without a `model`: the product's net where the rule and board have one
    /// ([`super::net::product_net`], 15x15 freestyle), else the weighed shapes (`best`).
    pub product_net: bool,
    /// The transposition table's size in MiB (rounded down to a power of two entries).
    pub hash_mb: usize,
}

/// The net's logit in the search's score units: a score of `s` is a chance to win of
/// `sigmoid(s / 400)`, as the moves' estimates are recorded ([`Choice::scored`]).
const NET_SCORE_SCALE: f32 = 400.0;

/// The most fours in a line of the horizon's quick VCF.
const QUICK_VCF_FOURS: u32 = 8;

/// The factor of the late move reductions ([`reduction`]).
const LMR_SCALE: f32 = 0.5;

/// Late move reductions: the plies by which the `n`th move (from 0) of a node `depth` deep is
/// searched shallower first: `ln(depth) * ln(n + 1) / 2`, rounded, for every move but the first
/// (threats too), from depth 3, at most `depth - 2` (the caller takes a ply less on the
/// principal variation; never below depth 1).
fn reduction(depth: i32, n: usize) -> i32 {
    if n >= 1 && depth >= 3 {
        let r = (depth as f32).ln() * ((n + 1) as f32).ln() * LMR_SCALE;
        ((r + 0.5) as i32).min(depth - 2)
    } else {
        0
    }
}

impl PvsConfig {
    pub fn new(time: Duration) -> PvsConfig {
        PvsConfig {
            time,
            max_depth: 60,
            threads: 1,
            weights: EvalWeights::DEFAULT,
            beam: 20,
            vcf_nodes: 200_000,
            vct_nodes: 100_000,
            quick_vcf: 50,
            model: None,
            product_net: false,
            hash_mb: 16,
        }
    }
}

/// One thread's search.
struct Worker<'a> {
    config: &'a PvsConfig,
    table: &'a Table,
    stop: &'a AtomicBool,
    deadline: Instant,
    board: ShapeBoard,
    nodes: u64,
    /// The node count at which the clock is next read: every 1,024 nodes, the quick VCF's
    /// counted with the rest.
    next_clock: u64,
    killers: [[u16; 2]; MAX_PLY],
    history: Vec<[u32; MAX_POINTS]>,
    /// Every node's moves on the current path, each node's after its parent's.
    stack: Vec<(usize, i32)>,
    scratch: Vec<usize>,
}

impl<'a> Worker<'a> {
    fn new(
        config: &'a PvsConfig,
        table: &'a Table,
        stop: &'a AtomicBool,
        deadline: Instant,
        board: ShapeBoard,
    ) -> Worker<'a> {
        Worker {
            config,
            table,
            stop,
            deadline,
            board,
            nodes: 0,
            next_clock: 0,
            killers: [[u16::MAX; 2]; MAX_PLY],
            history: vec![[0; MAX_POINTS]; 2],
            stack: Vec::with_capacity(8192),
            scratch: Vec::with_capacity(512),
        }
    }

    fn stopped(&mut self) -> bool {
        if self.nodes >= self.next_clock {
            self.next_clock = self.nodes + 1024;
            if Instant::now() >= self.deadline {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        self.stop.load(Ordering::Relaxed)
    }

    /// The static score for the side to move, short of a decided score.
    fn evaluate(&mut self) -> i32 {
        self.static_score().clamp(-DECIDED + 1, DECIDED - 1)
    }

    /// The evaluation of the side to move's shapes: the net's, else the weighed counts.
    fn static_score(&mut self) -> i32 {
        if let Some(logit) = self.board.net_logit() {
            return (logit * NET_SCORE_SCALE).round() as i32;
        }
        let b = &self.board;
        let me = b.to_move();
        let opp = me.opponent();
        let w = &self.config.weights;
        let mut score = 0;
        for s in 1..8 {
            score +=
                w.mine[s] * b.count(me, Shape::ALL[s]) - w.theirs[s] * b.count(opp, Shape::ALL[s]);
        }
        score
    }

    /// Whether the side to move wins by fours (VCF) within `fours` of them and the node
    /// `budget`: each four's block is forced, the defender may not make a four of its own by
    /// it, and the line is won by a five point left unblockable (a live four or two fours) or
    /// a live four to make with no four of the defender's to delay it. After the first four,
    /// only fours on the lines through the last one (within four points) are tried. A quick
    /// search of the horizon's tactics: "not found" proves nothing.
    fn quick_vcf(&mut self, fours: u32, last: Option<usize>, budget: &mut u32) -> bool {
        let me = self.board.to_move();
        let opp = me.opponent();
        if self.board.live_four_wins() {
            return true;
        }
        if fours == 0 || *budget == 0 || !self.board.has_four_point(me) {
            return false;
        }
        let start = self.stack.len();
        match last {
            Some(q) => self.board.line_points(q, 4, &mut self.stack),
            None => {
                self.board.candidates(&mut self.scratch);
                self.stack.extend(self.scratch.iter().map(|&p| (p, 0)));
            }
        }
        let mut won = false;
        for i in start..self.stack.len() {
            let p = self.stack[i].0;
            if !self.board.threat(me, p).is_four() {
                continue;
            }
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            self.nodes += 1;
            self.board.make(p);
            // The defender's answers: the five points the four made.
            let mark = self.stack.len();
            self.board.line_points(p, 4, &mut self.stack);
            let mut block = None;
            let mut blocks = 0;
            for j in mark..self.stack.len() {
                let q = self.stack[j].0;
                if (0..4).any(|d| self.board.shape(me, q, d) == Shape::Five) {
                    blocks += 1;
                    block = Some(q);
                }
            }
            self.stack.truncate(mark);
            won = match block {
                _ if blocks >= 2 => true,
                None => false,
                Some(q) => {
                    self.board.make(q);
                    let on = !self.board.has_five_point(opp)
                        && self.quick_vcf(fours - 1, Some(p), budget);
                    self.board.unmake();
                    on
                }
            };
            self.board.unmake();
            if won {
                break;
            }
        }
        self.stack.truncate(start);
        won
    }

    /// A horizon node's score from its static score `stand`: a win where the side to move has
    /// a quick VCF ([`Worker::quick_vcf`]) and `stand` is short of beta, else `stand`.
    fn horizon(&mut self, stand: i32, beta: i32, ply: usize) -> i32 {
        let me = self.board.to_move();
        if self.config.quick_vcf > 0
            && stand < beta
            && stand.abs() < DECIDED
            && self.board.has_four_point(me)
            && !self.board.has_forbidden_points(me)
        {
            let mut budget = self.config.quick_vcf;
            if self.quick_vcf(QUICK_VCF_FOURS, None, &mut budget) {
                return WIN - ply as i32 - 5;
            }
        }
        stand
    }

    /// Pushes the node's moves (scored, best first) and returns whether the node is forced
    /// (a single block, not counted as depth). `None`: the side to move has lost.
    fn push_moves(&mut self, ply: usize, tt_move: Option<usize>) -> Option<bool> {
        let me = self.board.to_move();
        let opp = me.opponent();
        let start = self.stack.len();
        self.board.five_points(opp, &mut self.scratch);
        if !self.scratch.is_empty() {
            let q = self.scratch[0];
            if self.scratch.len() > 1 || !self.board.playable(me, q) {
                return None;
            }
            self.stack.push((q, 0));
            return Some(true);
        }
        let defending = self.board.count(opp, Shape::LiveFour) > 0;
        self.board.candidates(&mut self.scratch);
        let killers = self.killers[ply.min(MAX_PLY - 1)];
        for &p in &self.scratch {
            let (mut score, mine_four) = self.order_score(p, me);
            if defending {
                // Against a live three: our fours, and the points of its fours and fives.
                let on_line = (0..4).any(|d| self.board.shape(opp, p, d) >= Shape::Four);
                if !(mine_four || on_line) {
                    continue;
                }
            }
            if Some(p) == tt_move {
                score = i32::MAX;
            } else if killers.contains(&(p as u16)) {
                score += 5_000;
            }
            self.stack.push((p, score));
        }
        // Beyond the beam only the threats stay (the beam counts from the first move), and
        // under renju black's forbidden points go (checked only for the moves kept).
        let kept = start + order_beam(&mut self.stack[start..], self.config.beam);
        self.stack.truncate(kept);
        let forbidden = self.board.has_forbidden_points(me);
        let mut kept = start;
        for i in start..self.stack.len() {
            let (p, s) = self.stack[i];
            // The beam's moves and the threats only are left ([`order_beam`]).
            if !forbidden || self.board.playable(me, p) {
                self.stack[kept] = (p, s);
                kept += 1;
            }
        }
        self.stack.truncate(kept);
        Some(false)
    }

    /// The ordering score of `p` for `me`, and whether it makes a four for `me`: the
    /// history's, plus the shapes' (weighed by [`ORDER_ATTACK`] and [`ORDER_DEFENCE`]).
    fn order_score(&self, p: usize, me: Player) -> (i32, bool) {
        let (shapes, makes_four) = shape_order(&self.board, me, p);
        let history = self.history[me.index()][p].min(4_000) as i32;
        (history + shapes, makes_four)
    }

    fn search(&mut self, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.stopped() {
            return 0;
        }
        let me = self.board.to_move();
        if self.board.has_five_point(me) {
            return WIN - ply as i32;
        }
        if self.board.position().stones() >= self.board.points() {
            return 0;
        }
        if self.board.live_four_wins() {
            return WIN - ply as i32 - 3;
        }
        let threatened = self.board.has_five_point(me.opponent());
        if (depth <= 0 && !threatened) || ply >= MAX_PLY - 1 {
            let stand = self.evaluate();
            return self.horizon(stand, beta, ply);
        }
        let key = self.board.hash();
        let mut tt_move = None;
        if let Some(e) = self.table.probe(key) {
            tt_move = e.best;
            if let Some(score) = e.cutoff(depth, alpha, beta, ply) {
                return score;
            }
        }
        let start = self.stack.len();
        let Some(forced) = self.push_moves(ply, tt_move) else {
            self.stack.truncate(start);
            return -(WIN - ply as i32 - 1);
        };
        let end = self.stack.len();
        if end == start {
            return self.evaluate();
        }
        let alpha0 = alpha;
        let mut best = -WIN;
        let mut best_move = None;
        for i in start..end {
            let p = self.stack[i].0;
            let n = i - start;
            let new_depth = if forced { depth } else { depth - 1 };
            // Every move but the block, a ply less on the principal variation.
            let reduction = if forced {
                0
            } else {
                let pv = i32::from(beta - alpha > 1);
                (reduction(depth, n) - pv).max(0)
            };
            self.board.make(p);
            let mut score;
            if n == 0 {
                score = -self.search(new_depth, -beta, -alpha, ply + 1);
            } else {
                score = -self.search(new_depth - reduction, -alpha - 1, -alpha, ply + 1);
                if score > alpha && reduction > 0 {
                    score = -self.search(new_depth, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta {
                    score = -self.search(new_depth, -beta, -alpha, ply + 1);
                }
            }
            self.board.unmake();
            if self.stop.load(Ordering::Relaxed) {
                self.stack.truncate(start);
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(p);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if !forced && depth > 0 {
                    let k = &mut self.killers[ply.min(MAX_PLY - 1)];
                    if k[0] != p as u16 {
                        k[1] = k[0];
                        k[0] = p as u16;
                    }
                    let h = &mut self.history[me.index()][p];
                    *h = h.saturating_add((depth * depth) as u32);
                }
                break;
            }
        }
        self.stack.truncate(start);
        let bound = Bound::of(best, alpha0, beta);
        // The table keeps depths from 0: a node past the horizon would pass for one at it.
        if depth >= 0 {
            self.table.store(key, best, ply, depth, bound, best_move);
        }
        best
    }

    /// One iteration at the root over `moves` (the best so far first): the best move and
    /// score, or `None` when stopped before the first move was searched.
    fn root(&mut self, moves: &mut [usize], depth: i32) -> Option<(usize, i32)> {
        let mut alpha = -WIN;
        let beta = WIN;
        let mut best = None;
        for i in 0..moves.len() {
            let p = moves[i];
            self.board.make(p);
            let mut score;
            if i == 0 {
                score = -self.search(depth - 1, -beta, -alpha, 1);
            } else {
                score = -self.search(depth - 1, -alpha - 1, -alpha, 1);
                if score > alpha {
                    score = -self.search(depth - 1, -beta, -alpha, 1);
                }
            }
            self.board.unmake();
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            if score > alpha {
                alpha = score;
                best = Some((p, score));
                // The best first in the next iteration.
                moves[..=i].rotate_right(1);
            }
        }
        best
    }
}

/// A legal move of a lost position, scored as lost.
fn any_legal(state: &Gomoku) -> Option<(Action, i32)> {
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    legal.first().map(|&a| (a, -WIN))
}

/// The searcher, as a player.
pub struct Pvs {
    name: String,
    config: PvsConfig,
    table: Table,
    threats: ThreatSearch,
    nodes: u64,
    depth: i32,
    /// How the last search found its move: `search`, or what made one unnecessary.
    found: &'static str,
    /// The last search's score and time.
    score: i32,
    took: Duration,
}

impl Pvs {
    pub fn new(name: impl Into<String>, config: PvsConfig) -> Pvs {
        Pvs {
            name: name.into(),
            table: Table::with_mb(config.hash_mb),
            threats: ThreatSearch::new(),
            config,
            nodes: 0,
            depth: 0,
            found: "search",
            score: 0,
            took: Duration::ZERO,
        }
    }

    /// The net the player evaluates `state` with: its model's, else the product's where
    /// `best` plays one on this rule and board, else none (the weighed shapes).
    fn net_for(&self, state: &Gomoku) -> Option<std::sync::Arc<PatternNet>> {
        match &self.config.model {
            Some(net) => Some(net.clone()),
            None if self.config.product_net => super::net::product_net(state.rule(), state.size()),
            None => None,
        }
    }

    /// The last search in a line, as a brain's `MESSAGE` or a match report's note says it:
    /// how the move was found, the deepest iteration completed, the score for the mover,
    /// nodes and milliseconds.
    pub fn last_note(&self) -> String {
        format!(
            "{} depth {} ev {} nodes {} tm {}",
            self.found,
            self.depth,
            self.score,
            self.nodes,
            self.took.as_millis()
        )
    }

    /// Nodes and the deepest iteration completed by the last search.
    pub fn last_search(&self) -> (u64, i32) {
        (self.nodes, self.depth)
    }

    /// The move and its score for the side to move within `time` (`None`: no legal move):
    /// iterations run on until `time` is spent, as a fixed time a move allows (a stopped
    /// iteration still improves on the last, its first move being the last's best).
    pub fn best_move_within(&mut self, state: &Gomoku, time: Duration) -> Option<(Action, i32)> {
        self.search_timed(state, time, time, true)
    }

    /// [`best_move_within`](Self::best_move_within) a clock's way: no new iteration once
    /// three fifths of `soft` are spent, unless the position is critical (a live three of the
    /// opponent's on the board, or the score dropping between iterations), which may take up
    /// to two and a half times `soft`; never past `hard`.
    pub fn best_move_timed(
        &mut self,
        state: &Gomoku,
        soft: Duration,
        hard: Duration,
    ) -> Option<(Action, i32)> {
        self.search_timed(state, soft, hard, false)
    }

    /// The search of both: with `fill`, no iteration is held back to save time for the clock.
    fn search_timed(
        &mut self,
        state: &Gomoku,
        soft: Duration,
        hard: Duration,
        fill: bool,
    ) -> Option<(Action, i32)> {
        let started = Instant::now();
        let found = self.search_inner(state, soft, hard, fill, started);
        self.took = started.elapsed();
        self.score = found.map_or(0, |(_, s)| s);
        found
    }

    fn search_inner(
        &mut self,
        state: &Gomoku,
        soft: Duration,
        hard: Duration,
        fill: bool,
        started: Instant,
    ) -> Option<(Action, i32)> {
        self.found = "search";
        let hard = hard.max(Duration::from_millis(1));
        let soft = soft.min(hard);
        self.nodes = 0;
        self.depth = 0;
        let mut board = ShapeBoard::new(state);
        let me = board.to_move();
        let attacked = board.count(me.opponent(), Shape::LiveFour) > 0;
        // An iteration may run on to the hard limit only where the position is critical.
        let deadline = started
            + if attacked || fill {
                hard
            } else {
                (soft * 2).min(hard)
            };
        let mut fives = Vec::new();
        board.five_points(me, &mut fives);
        if let Some(&p) = fives.first() {
            self.found = "five";
            return Some((p as Action, WIN));
        }
        board.five_points(me.opponent(), &mut fives);
        if let Some(&p) = fives.iter().find(|&&p| board.playable(me, p)) {
            // The block is forced (two five points: lost whatever we do).
            self.found = "block";
            let score = if fives.len() > 1 { -WIN } else { 0 };
            return Some((p as Action, score));
        }
        let threat_deadline = Some(started + soft / 3);
        for (kind, nodes, how) in [
            (ThreatKind::Vcf, self.config.vcf_nodes, "vcf"),
            (ThreatKind::Vct, self.config.vct_nodes, "vct"),
        ] {
            let found = self
                .threats
                .find(&mut board, kind, 30, nodes, threat_deadline);
            self.nodes += self.threats.nodes();
            if let Some(p) = found {
                self.found = how;
                return Some((p as Action, WIN - 1));
            }
        }
        let net = self.net_for(state);
        if let Some(net) = &net {
            // The root's threat searches ran without it (they never evaluate). A net for
            // another rule or board is refused when the player is built (the registry checks
            // its model); one that slips through is left out, not trusted.
            if let Ok(with_net) = board.clone().with_net(net.clone()) {
                board = with_net;
            }
        }
        // The root's moves: as any node's.
        let stop = AtomicBool::new(false);
        let stop = &stop;
        let mut moves = {
            let mut worker = Worker::new(&self.config, &self.table, stop, deadline, board.clone());
            if worker.push_moves(0, None).is_none() {
                return any_legal(state);
            }
            worker.stack.iter().map(|&(p, _)| p).collect::<Vec<usize>>()
        };
        if moves.is_empty() {
            return any_legal(state);
        }
        // Against the opponent's VCF (as if we passed): only the moves that break it (all of
        // them when none does: the opponent may still err).
        if moves.len() > 1 {
            let vcf = self.config.vcf_nodes;
            let by = Some(started + soft / 2);
            self.threats.keep_defences(
                &mut board,
                &mut moves,
                (ThreatKind::Vcf, Defend::Proven),
                vcf,
                by,
            );
        }
        if moves.len() == 1 {
            self.found = if state.stones() == 0 {
                "opening: the centre of the empty board"
            } else {
                "single candidate"
            };
            return Some((moves[0] as Action, 0));
        }
        let threads = self.config.threads.max(1);
        let max_depth = self.config.max_depth as i32;
        let (config, table) = (&self.config, &self.table);
        let mut worker = Worker::new(config, table, stop, deadline, board.clone());
        let results = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads)
                .map(|t| {
                    let mut helper = Worker::new(config, table, stop, deadline, board.clone());
                    let mut moves = moves.clone();
                    scope.spawn(move || {
                        // Helpers start a ply deeper on odd threads, so the threads part.
                        let mut depth = 1 + (t as i32 % 2);
                        while depth <= max_depth && !stop.load(Ordering::Relaxed) {
                            helper.root(&mut moves, depth);
                            depth += 1;
                        }
                        helper.nodes
                    })
                })
                .collect();
            let mut best = (moves[0], 0);
            let mut completed = 0;
            let mut depth = 1;
            let mut last_score = None;
            while depth <= max_depth {
                // A stopped iteration's best is kept too: each move it names was searched
                // through, and the best so far was searched first.
                if let Some(found) = worker.root(&mut moves, depth) {
                    best = found;
                    if !stop.load(Ordering::Relaxed) {
                        completed = depth;
                    }
                }
                if stop.load(Ordering::Relaxed) || best.1.abs() > DECIDED {
                    break;
                }
                // An iteration costs a few times the last: do not start one that cannot end
                // in the time allowed, which a critical position stretches.
                let dropping = matches!(last_score, Some(s) if depth >= 4 && best.1 < s - 150);
                let allowed = if attacked || dropping {
                    (soft * 5 / 2).min(hard)
                } else {
                    soft
                };
                if !fill && started.elapsed() * 5 > allowed * 3 {
                    break;
                }
                last_score = Some(best.1);
                depth += 1;
            }
            stop.store(true, Ordering::Relaxed);
            let helper_nodes: u64 = helpers.into_iter().map(|h| h.join().unwrap_or(0)).sum();
            (best, worker.nodes + helper_nodes, completed)
        });
        let ((p, score), nodes, completed) = results;
        self.depth = completed;
        self.nodes += nodes;
        Some((p as Action, score))
    }
}

impl Agent<Gomoku> for Pvs {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn knowledge(&self, start: &Gomoku) -> Option<String> {
        let net = self.net_for(start)?;
        Some(format!("pattern net {}", net.fingerprint()))
    }

    fn new_game(&mut self, _start: &Gomoku, _moves: &[Action]) -> Result<(), AgentError> {
        self.threats.clear();
        Ok(())
    }

    fn choose(&mut self, state: &Gomoku, _moves: &[Action]) -> Result<Choice, AgentError> {
        let (action, score) = self
            .best_move_within(state, self.config.time)
            .ok_or_else(|| AgentError::new("no legal move"))?;
        Ok(Choice {
            note: Some(self.last_note()),
            ..Choice::scored(action, self.nodes, score, DECIDED, 400.0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::threat_space::threat_suite;
    use crate::rng::Rng;

    /// The beam's moves and the threats behind them, in the order of a full sort filtered,
    /// over random scores with ties and beams from none to more than the moves.
    #[test]
    fn the_beam_keeps_what_a_full_sort_keeps() {
        let mut rng = Rng::new(5);
        let four = ORDER_ATTACK[Shape::Four as usize];
        for _ in 0..2_000 {
            let n = rng.below(70) as usize;
            let mut moves: Vec<(usize, i32)> = (0..n)
                .map(|p| {
                    let s = rng.below(8) as i32;
                    // Some threats, some near the threshold, many ties.
                    (
                        p,
                        if s == 0 {
                            four + rng.below(3) as i32
                        } else {
                            four - 1 - s
                        },
                    )
                })
                .collect();
            let beam = rng.below(30) as usize;
            let mut sorted = moves.clone();
            sorted.sort_by_key(|&(p, s)| (std::cmp::Reverse(s), p));
            let expected: Vec<(usize, i32)> = sorted
                .iter()
                .enumerate()
                .filter(|&(i, &(_, s))| i < beam || s >= four)
                .map(|(_, &m)| m)
                .collect();
            let kept = order_beam(&mut moves, beam);
            assert_eq!(moves[..kept], expected[..], "beam {beam}, {n} moves");
        }
    }

    /// A small table loses no short win: on the threat suite's short wins, with the root's
    /// threat searches off so that the tree must find them, a search with a small table
    /// (`hash_mb=1`) finds every win the plain search finds at the same depth (and the plain
    /// search finds most).
    #[test]
    fn pruning_keeps_the_trees_wins() {
        let suite = threat_suite().unwrap();
        let short: Vec<_> = suite.iter().filter(|s| s.threats <= 3).take(24).collect();
        let win_with = |hash_mb: Option<usize>, g: &Gomoku| {
            let mut config = PvsConfig::new(Duration::from_secs(600));
            (config.vcf_nodes, config.vct_nodes, config.max_depth) = (0, 0, 7);
            config.hash_mb = hash_mb.unwrap_or(config.hash_mb);
            let mut pvs = Pvs::new("pvs", config);
            let (_, score) = pvs.best_move_within(g, Duration::from_secs(600)).unwrap();
            score > DECIDED
        };
        let mut plain_wins = 0;
        for s in &short {
            let plain = win_with(None, &s.position);
            plain_wins += usize::from(plain);
            if plain {
                assert!(win_with(Some(1), &s.position), "hash_mb=1: {}", s.line);
            }
        }
        assert!(
            plain_wins * 2 >= short.len(),
            "{plain_wins} of {}",
            short.len()
        );
    }

    fn worker_on<'a>(
        config: &'a PvsConfig,
        table: &'a Table,
        stop: &'a AtomicBool,
        position: &Gomoku,
    ) -> Worker<'a> {
        let far = Instant::now() + Duration::from_secs(600);
        Worker::new(config, table, stop, far, ShapeBoard::new(position))
    }

    /// The quick VCF finds most of the suite's VCFs, and leaves the board as it found it.
    #[test]
    fn the_quick_vcf_finds_the_suites_vcfs() {
        let config = PvsConfig::new(Duration::from_secs(1));
        let (table, stop) = (Table::new(10), AtomicBool::new(false));
        let suite = threat_suite().unwrap();
        let vcfs: Vec<_> = suite.iter().filter(|s| s.kind == ThreatKind::Vcf).collect();
        let mut found = 0;
        for s in &vcfs {
            let mut w = worker_on(&config, &table, &stop, &s.position);
            let hash = w.board.hash();
            let mut budget = 100_000;
            found += usize::from(w.quick_vcf(QUICK_VCF_FOURS, None, &mut budget));
            assert_eq!(w.board.hash(), hash, "{}", s.line);
            assert!(w.stack.is_empty());
        }
        assert!(found * 10 >= vcfs.len() * 8, "{found} of {}", vcfs.len());
    }

    /// Every win it claims is one: the full threat search proves it (as a VCT: the quick
    /// search also counts a live four to make, which no four of the defender's can delay), in
    /// positions of random games where the side to move can make a four.
    #[test]
    fn every_quick_vcf_win_is_a_vcf() {
        let config = PvsConfig::new(Duration::from_secs(1));
        let (table, stop) = (Table::new(10), AtomicBool::new(false));
        let mut rng = Rng::new(7);
        let mut proofs = ThreatSearch::new();
        let (mut claimed, mut tried) = (0, 0);
        for _ in 0..300 {
            let mut g = Gomoku::new(15, crate::games::gomoku::Rule::Freestyle).unwrap();
            let c = g.point(7, 7).unwrap() as Action;
            g.apply(c);
            let plies = 8 + rng.below(30);
            let mut near = Vec::new();
            for _ in 0..plies {
                ShapeBoard::new(&g).candidates(&mut near);
                if g.is_terminal() || near.is_empty() {
                    break;
                }
                let p = rng.pick(&near);
                g.apply(p as Action);
            }
            if g.is_terminal() {
                continue;
            }
            let mut w = worker_on(&config, &table, &stop, &g);
            let me = w.board.to_move();
            if w.board.has_five_point(me)
                || w.board.has_five_point(me.opponent())
                || !w.board.has_four_point(me)
            {
                continue;
            }
            tried += 1;
            let mut budget = 10_000;
            if w.quick_vcf(QUICK_VCF_FOURS, None, &mut budget) {
                claimed += 1;
                let mut board = ShapeBoard::new(&g);
                let proof = proofs.find(&mut board, ThreatKind::Vct, 30, 5_000_000, None);
                assert!(proof.is_some(), "claimed a VCF in {}", g.board_string());
            }
        }
        assert!(tried > 50 && claimed > 0, "{claimed} of {tried}");
    }
}
