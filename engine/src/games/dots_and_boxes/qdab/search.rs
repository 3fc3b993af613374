//! QDab's search: a UCT tree of its own over canonical moves, where a tree edge is one
//! canonical move followed by every forced capture (so a node is a decision point); selection
//! by UCB1-Tuned with first-play urgency; rollouts of random canonical moves; the exact solver
//! (win or loss) once few canonical moves are left.

use std::time::Instant;

use super::canonical::{canonical, forced_capture, Board, Canonical};
use crate::game::{Game, Outcome, Player};
use crate::games::dots_and_boxes::analysis::{random_edge, valence};
use crate::games::dots_and_boxes::endgame::EndgameSolver;
use crate::games::dots_and_boxes::{DotsAndBoxes, Geometry, MAX_EDGES};
use crate::rng::Rng;

/// Before this turn, tree nodes below the root and rollouts leave out moves into untouched
/// territory (both sides of the edge untouched) when enough other moves exist; from it on, a
/// tree node also gets the class-3 move of the shortest link.
pub const UNTOUCHED_UNTIL: u32 = 16;
/// From this turn on, tree nodes get every class-3 move.
pub const CLASS3_FROM: u32 = 20;
/// From this turn on, the root is solved exactly.
pub const SOLVE_FROM: u32 = 24;

/// The turn of a 5x5 game (60 edges) at the same stage as `turn` on a board of `num_edges`
/// edges: QDab's turn thresholds are for 5x5, and other sizes read them at this scale.
#[inline]
pub fn stage(turn: u32, num_edges: usize) -> u32 {
    (turn as u64 * 60 / num_edges.max(1) as u64) as u32
}

/// QDab's settings for one search, by the stage of its root.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Edges of the board (for [`stage`]).
    pub num_edges: usize,
    /// The player to move at the root (whose untried moves are more urgent).
    pub root: Player,
    /// The UCB1-Tuned constant.
    pub c: f64,
    /// A tree node adds class-3 moves when it has fewer class-1/2 moves than this.
    pub tree_mark: u32,
    /// A rollout step does the same below this.
    pub rollout_mark: u32,
    /// A position with this many canonical moves or fewer is solved (QDab's `searchMove`).
    pub solve_at: u32,
}

impl Schedule {
    /// The settings at the root's `turn` on a board of `num_edges` edges.
    pub fn new(turn: u32, root: Player, num_edges: usize) -> Schedule {
        let turn = stage(turn, num_edges);
        let (c, tree_mark, rollout_mark) = match turn {
            0..=9 => (2.0, 5, 7),
            10..=20 => (1.0, 6, 8),
            _ => (1.0, 7, 8),
        };
        let solve_at = match turn {
            0..=4 => 6,
            5..=8 => 8,
            9..=12 => 9,
            13..=18 => 10,
            19 => 11,
            20..=21 => 12,
            22..=23 => 13,
            _ => 14,
        };
        Schedule {
            num_edges,
            root,
            c,
            tree_mark,
            rollout_mark,
            solve_at,
        }
    }

    /// The stage of a position at `turn` (see [`stage`]).
    #[inline]
    pub fn stage(&self, turn: u32) -> u32 {
        stage(turn, self.num_edges)
    }

    /// First-play urgency of an untried move of `mover`.
    fn urgency(&self, mover: Player) -> f64 {
        if mover == self.root {
            0.76
        } else {
            0.61
        }
    }
}

/// The moves a tree node at stage `turn` (see [`stage`]) searches (the root with `at_root`):
/// the class-2 moves if any; else
/// the class-1 moves (below the root and before [`UNTOUCHED_UNTIL`], the ones that touch
/// played territory when there are `mark` of them), with the class-3 moves when fewer than
/// `mark` are left or from [`CLASS3_FROM`] on, and the shortest link's from
/// [`UNTOUCHED_UNTIL`] on.
pub fn tree_moves(c: &Canonical, turn: u32, mark: u32, at_root: bool) -> u128 {
    if c.class2 != 0 {
        return c.class2;
    }
    let mut moves = c.class1;
    if turn < UNTOUCHED_UNTIL && !at_root {
        let touched = moves & !c.untouched;
        if touched.count_ones() >= mark {
            moves = touched;
        }
    }
    if moves.count_ones() < mark || turn >= CLASS3_FROM {
        moves |= c.class3;
    } else if turn >= UNTOUCHED_UNTIL {
        if let Some(e) = c.shortest3 {
            moves |= 1u128 << e;
        }
    }
    moves
}

/// The moves a rollout step draws from: as [`tree_moves`] below the root, with class 3 only
/// when fewer than `mark` others are left.
pub fn rollout_moves(c: &Canonical, turn: u32, mark: u32) -> u128 {
    if c.class2 != 0 {
        return c.class2;
    }
    let mut moves = c.class1;
    if turn < UNTOUCHED_UNTIL {
        let touched = moves & !c.untouched;
        if touched.count_ones() >= mark {
            moves = touched;
        }
    }
    if moves.count_ones() < mark {
        moves |= c.class3;
    }
    moves
}

/// `moves`, or if the rules left none (they always leave one in a position that is not over),
/// every canonical move, or every free edge.
#[inline]
pub fn some_moves(moves: u128, c: &Canonical, geo: &Geometry, edges: u128) -> u128 {
    [moves, c.all(), !edges & geo.all_edges]
        .into_iter()
        .find(|&m| m != 0)
        .unwrap_or(0)
}

/// A position as the search plays it: edges, P1's lead, boxes left, the mover and the turn
/// (moves so far that closed no box).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub edges: u128,
    pub lead: i32,
    pub left: i32,
    pub mover: Player,
    pub turn: u32,
}

#[inline]
fn sign(p: Player) -> i32 {
    match p {
        Player::P1 => 1,
        Player::P2 => -1,
    }
}

impl Pos {
    pub fn new(state: &DotsAndBoxes, turn: u32) -> Pos {
        let [p1, p2] = state.box_owners();
        let geo = state.geometry();
        Pos {
            edges: state.edges(),
            lead: p1.count_ones() as i32 - p2.count_ones() as i32,
            left: (geo.num_boxes as u32 - p1.count_ones() - p2.count_ones()) as i32,
            mover: state.to_move(),
            turn,
        }
    }

    /// Draws edge `e` (free).
    #[inline]
    pub fn play(&mut self, geo: &Geometry, e: usize) {
        let closed = geo.boxes_closed_by(self.edges, e) as i32;
        self.edges |= 1u128 << e;
        if closed == 0 {
            self.mover = self.mover.opponent();
            self.turn += 1;
        } else {
            self.lead += sign(self.mover) * closed;
            self.left -= closed;
        }
    }

    /// Plays every forced capture (QDab's `Play`).
    #[inline]
    pub fn play_forced(&mut self, geo: &Geometry) {
        while let Some(e) = forced_capture(geo, self.edges) {
            self.play(geo, e);
        }
    }

    /// The outcome once it is decided (a lead larger than the boxes left, or the game over).
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        if self.lead > self.left {
            Some(Outcome::P1Win)
        } else if -self.lead > self.left {
            Some(Outcome::P2Win)
        } else if self.left == 0 {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// The outcome when the mover takes `future` net boxes from here on.
    #[inline]
    pub fn outcome_after(&self, future: i32) -> Outcome {
        match (self.lead + sign(self.mover) * future).signum() {
            1 => Outcome::P1Win,
            -1 => Outcome::P2Win,
            _ => Outcome::Draw,
        }
    }
}

/// A node: the canonical move that led to it, its results, its children (made all at once,
/// best prior first; the first `tried` have been played), and its solved outcome.
#[derive(Clone, Copy, Debug)]
struct Node {
    first_child: u32,
    visits: u32,
    p1_wins: u32,
    draws: u32,
    prior: f32,
    children: u8,
    tried: u8,
    edge: u8,
    solved: Option<Outcome>,
}

impl Node {
    fn new(edge: u8, prior: f32) -> Node {
        Node {
            first_child: 0,
            visits: 0,
            p1_wins: 0,
            draws: 0,
            prior,
            children: 0,
            tried: 0,
            edge,
            solved: None,
        }
    }

    /// The sum of `viewer`'s rewards (1 a win, 1/2 a draw) and of their squares.
    #[inline]
    fn sums(&self, viewer: Player) -> (f64, f64) {
        let wins = match viewer {
            Player::P1 => self.p1_wins,
            Player::P2 => self.visits - self.p1_wins - self.draws,
        } as f64;
        let draws = self.draws as f64;
        (wins + 0.5 * draws, wins + 0.25 * draws)
    }

    #[inline]
    fn record(&mut self, outcome: Outcome) {
        self.visits += 1;
        match outcome {
            Outcome::P1Win => self.p1_wins += 1,
            Outcome::Draw => self.draws += 1,
            Outcome::P2Win => {}
        }
    }
}

/// When a search stops.
#[derive(Clone, Copy, Debug)]
pub struct Stop {
    pub iterations: Option<u64>,
    pub deadline: Option<Instant>,
}

impl Stop {
    fn reached(&self, done: u64) -> bool {
        match (self.iterations, self.deadline) {
            (None, None) => true,
            (n, t) => n.is_some_and(|n| done >= n) || t.is_some_and(|t| Instant::now() >= t),
        }
    }
}

/// One root move after a search: its edge, visits, and the root mover's summed reward.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootMove {
    pub edge: usize,
    pub visits: u32,
    pub reward: f64,
}

/// What a search thread owns: the board's tables, its tree, its solver and its random numbers.
pub struct Worker {
    board: Board,
    solver: EndgameSolver,
    rng: Rng,
    nodes: Vec<Node>,
    path: Vec<u32>,
    /// The tree stops growing at this many nodes (iterations go on, as rollouts).
    max_nodes: usize,
    /// Positions the solver may search to settle one leaf or rollout.
    pub leaf_nodes: u64,
    /// Leaf and rollout solves answered, and given up at the node limit.
    pub solves: [u64; 2],
}

impl Worker {
    /// A worker for `state`'s board, with a solver table of `2^table_bits` entries.
    pub fn new(state: &DotsAndBoxes, leaf_nodes: u64, table_bits: u32) -> Worker {
        Worker {
            board: Board::new(state.geometry()),
            solver: EndgameSolver::new(state.rows(), state.cols(), table_bits),
            rng: Rng::new(0),
            nodes: Vec::new(),
            path: Vec::new(),
            max_nodes: 4 << 20,
            leaf_nodes,
            solves: [0; 2],
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn solver(&mut self) -> &mut EndgameSolver {
        &mut self.solver
    }

    /// Forgets the positions solved in the previous game (so a game replays exactly).
    pub fn new_game(&mut self) {
        self.solver.clear();
    }

    /// Searches from `root` (with no forced capture) until `stop`, at least one iteration; the
    /// root's moves that were tried, and the iterations run.
    pub fn search(
        &mut self,
        root: &Pos,
        schedule: &Schedule,
        stop: Stop,
        seed: u64,
    ) -> (Vec<RootMove>, u64) {
        self.rng = Rng::new(seed);
        self.nodes.clear();
        self.nodes.push(Node::new(0, 0.0));
        let mut done = 0u64;
        loop {
            self.iterate(root, schedule);
            done += 1;
            if stop.reached(done) {
                break;
            }
        }
        let root_node = self.nodes[0];
        let first = root_node.first_child as usize;
        let moves = self.nodes[first..first + root_node.tried as usize]
            .iter()
            .map(|n| RootMove {
                edge: n.edge as usize,
                visits: n.visits,
                reward: n.sums(root.mover).0,
            })
            .collect();
        (moves, done)
    }

    /// One iteration: down the tree, one new node and its rollout (or a solved leaf), and the
    /// outcome backed up along the path.
    fn iterate(&mut self, root: &Pos, schedule: &Schedule) {
        let geo = self.board.geo;
        let mut pos = *root;
        let mut node = 0usize;
        self.path.clear();
        self.path.push(0);
        let outcome = loop {
            // The root is never a leaf: a search must try its moves even when the game is
            // already decided.
            if node != 0 {
                if let Some(o) = self.nodes[node].solved.or_else(|| pos.outcome()) {
                    break o;
                }
            }
            if self.nodes[node].children == 0 {
                let c = canonical(&self.board, pos.edges);
                if node != 0 && c.count() <= schedule.solve_at {
                    if let Some(o) = self.solve(&pos) {
                        self.nodes[node].solved = Some(o);
                        break o;
                    }
                }
                if !self.expand(node, &pos, &c, schedule) {
                    break self.rollout(pos, schedule);
                }
            }
            let (child, new) = self.select(node, pos.mover, schedule);
            pos.play(geo, self.nodes[child].edge as usize);
            pos.play_forced(geo);
            self.path.push(child as u32);
            node = child;
            if new {
                break self.rollout(pos, schedule);
            }
        };
        for &n in &self.path {
            self.nodes[n as usize].record(outcome);
        }
    }

    /// The exact outcome of `pos`, within the leaf node limit.
    fn solve(&mut self, pos: &Pos) -> Option<Outcome> {
        let answer = self.solver.try_edges_value(pos.edges, self.leaf_nodes);
        self.solves[answer.is_none() as usize] += 1;
        answer.map(|future| pos.outcome_after(future))
    }

    /// Makes the children of `node` (at `pos`, canonical moves `c`), best prior first: the
    /// value of the same move one level up for this node's mover, else the first-play urgency
    /// (less a hair for edges whose sides are more open, plus a hair of noise). False when the
    /// tree is full.
    fn expand(&mut self, node: usize, pos: &Pos, c: &Canonical, schedule: &Schedule) -> bool {
        let geo = self.board.geo;
        let turn = schedule.stage(pos.turn);
        let moves = tree_moves(c, turn, schedule.tree_mark, node == 0);
        let mut moves = some_moves(moves, c, geo, pos.edges);
        let count = moves.count_ones() as usize;
        if self.nodes.len() + count > self.max_nodes {
            return false;
        }
        let mut above = [f32::NAN; MAX_EDGES];
        if let [.., parent, _] = self.path[..] {
            let p = self.nodes[parent as usize];
            let first = p.first_child as usize;
            for sibling in &self.nodes[first..first + p.tried as usize] {
                if sibling.visits > 0 {
                    let mean = sibling.sums(pos.mover).0 / sibling.visits as f64;
                    above[sibling.edge as usize] = (mean + 1e-10) as f32;
                }
            }
        }
        let mut order = [(0f32, 0u8); MAX_EDGES];
        for slot in order.iter_mut().take(count) {
            let e = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let prior = if above[e].is_nan() {
                let open: u32 = geo.edge_boxes[e]
                    .iter()
                    .map(|&b| match b {
                        u8::MAX => 4,
                        b => valence(geo, pos.edges, b as usize),
                    })
                    .sum();
                (schedule.urgency(pos.mover) - open as f64 * 1e-5 + self.rng.unit_f64() * 1e-8)
                    as f32
            } else {
                above[e]
            };
            *slot = (prior, e as u8);
        }
        order[..count].sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let first = self.nodes.len();
        self.nodes
            .extend(order[..count].iter().map(|&(prior, e)| Node::new(e, prior)));
        let n = &mut self.nodes[node];
        n.first_child = first as u32;
        n.children = count as u8;
        true
    }

    /// The child to follow from `node` for `viewer` (the player to move there), and whether it
    /// is tried for the first time: UCB1-Tuned over the tried children, against the next
    /// untried one's prior with the exploration a child of average visits would get.
    fn select(&mut self, node: usize, viewer: Player, schedule: &Schedule) -> (usize, bool) {
        let n = self.nodes[node];
        let parent_visits = n.visits.max(1) as f64;
        let ln = parent_visits.ln();
        let first = n.first_child as usize;
        let tried = n.tried as usize;
        let mut best = (f64::NEG_INFINITY, first);
        for (i, child) in self.nodes[first..first + tried].iter().enumerate() {
            let visits = child.visits.max(1) as f64;
            let (sum, squares) = child.sums(viewer);
            let mean = sum / visits;
            let variance = squares / visits - mean * mean + (2.0 * ln / visits).sqrt();
            let value = mean + schedule.c * (variance.min(0.25) * ln / visits).sqrt();
            if value > best.0 {
                best = (value, first + i);
            }
        }
        if tried < n.children as usize {
            let next = self.nodes[first + tried].prior as f64;
            let urgency = next + schedule.c * (0.25 * ln * tried as f64 / parent_visits).sqrt();
            if tried == 0 || best.0 < urgency {
                self.nodes[node].tried += 1;
                return (first + tried, true);
            }
        }
        (best.1, false)
    }

    /// Random canonical moves with their forced captures until the position is decided or few
    /// enough canonical moves are left to solve it (when the solver gives up, play goes on and
    /// it tries again two moves fewer on).
    fn rollout(&mut self, mut pos: Pos, schedule: &Schedule) -> Outcome {
        let geo = self.board.geo;
        let mut solve_at = schedule.solve_at;
        loop {
            if let Some(o) = pos.outcome() {
                return o;
            }
            let c = canonical(&self.board, pos.edges);
            let count = c.count();
            if count <= solve_at {
                match self.solve(&pos) {
                    Some(o) => return o,
                    None => solve_at = count.saturating_sub(2),
                }
            }
            let moves = rollout_moves(&c, schedule.stage(pos.turn), schedule.rollout_mark);
            let moves = some_moves(moves, &c, geo, pos.edges);
            pos.play(geo, random_edge(moves, &mut self.rng));
            pos.play_forced(geo);
        }
    }
}
