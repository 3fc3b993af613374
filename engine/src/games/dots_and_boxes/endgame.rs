//! The exact endgame solver for boards up to 5x5 and beyond: negamax with alpha-beta over the
//! drawn edges, a fixed-size transposition table of value bounds, move ordering, and the chain
//! reductions of Barker and Korf ("Solving Dots-and-Boxes", AAAI 2012):
//!
//! * **Free captures.** A capturable box whose last edge leads nowhere (the border, a box that
//!   edge also closes, or a box left with two or more free edges) is taken at once: declining it
//!   can never help, so it is the only move searched.
//! * **Capture or double-deal.** When every capturable box leads into a chain (its last edge is
//!   shared with a box of valence 2), only captures and double-dealing moves are searched (for
//!   each such box, the other free edge of the next box, which leaves the two boxes to the
//!   opponent and the turn with them). Every other move is dominated. (Restricting this to one
//!   chain is wrong when several are open: the double-deal belongs to the last one taken; the
//!   tests found that on 3x4.)
//! * **Simple loony endgames.** Once every open box has exactly two free sides the position is a
//!   sum of independent chains and loops, valued at once by strings-and-coins theory
//!   ([`chains`](super::chains)) instead of searched.
//! * **Ordering.** Captures, then safe edges (they leave no capturable box), then the rest,
//!   the ones that hand over fewest boxes first.
//! * **Enhanced transposition cutoffs.** Before a node searches a child, each child is looked
//!   up in the table: a stored bound that already ends the node ends it.
//!
//! The value of a position is the net number of boxes the player to move takes from now on under
//! perfect play; it depends on the drawn edges alone. The tests check the solver against the
//! plain solver (`solver.rs`) on thousands of random positions of several board sizes.

use super::analysis::captures;
use super::chains::LoonyValues;
use super::{DotsAndBoxes, Geometry, MAX_EDGES};
use crate::game::{Action, Game, Outcome};

/// One slot of the transposition table: the edge set and bounds on its value.
#[derive(Clone, Copy)]
struct Entry {
    key: u128,
    lower: i8,
    upper: i8,
    used: bool,
}

const EMPTY: Entry = Entry {
    key: 0,
    lower: 0,
    upper: 0,
    used: false,
};

/// Exact solver; keep one per board size and thread (its table carries over between calls).
pub struct EndgameSolver {
    geo: &'static Geometry,
    table: Vec<Entry>,
    mask: usize,
    nodes: u64,
    loony: LoonyValues,
    /// Searching stops (and stores nothing more) once `nodes` passes this.
    node_limit: u64,
    aborted: bool,
}

impl EndgameSolver {
    /// A solver with a table of `2^table_bits` entries (32 bytes each).
    pub fn new(rows: usize, cols: usize, table_bits: u32) -> EndgameSolver {
        let size = 1usize << table_bits;
        EndgameSolver {
            geo: Geometry::get(rows, cols),
            table: vec![EMPTY; size],
            mask: size - 1,
            nodes: 0,
            loony: LoonyValues::new(),
            node_limit: u64::MAX,
            aborted: false,
        }
    }

    /// A solver for `state`'s board with a 2^20-entry table (32 MB).
    pub fn for_board(state: &DotsAndBoxes) -> EndgameSolver {
        EndgameSolver::new(state.rows(), state.cols(), 20)
    }

    /// Whether this solver is for `state`'s board size.
    pub fn fits(&self, state: &DotsAndBoxes) -> bool {
        std::ptr::eq(self.geo, state.geometry())
    }

    /// Whether this solver is for boards of `geo`.
    pub fn fits_geometry(&self, geo: &Geometry) -> bool {
        std::ptr::eq(self.geo, geo)
    }

    /// The future value (net boxes for the player to move) of the edge set `edges`, within
    /// `max_nodes` positions searched, or `None` when that is not enough.
    pub fn try_edges_value(&mut self, edges: u128, max_nodes: u64) -> Option<i32> {
        self.node_limit = self.nodes.saturating_add(max_nodes);
        self.aborted = false;
        let n = self.geo.num_boxes as i32;
        let value = self.search(edges, -n - 1, n + 1);
        self.node_limit = u64::MAX;
        (!std::mem::take(&mut self.aborted)).then_some(value)
    }

    /// Whether the future value of `edges` is at least `target`, within `max_nodes` positions
    /// searched (`None` when that is not enough). A null-window search: it proves a bound, not
    /// the value, and takes a fraction of [`try_edges_value`](Self::try_edges_value)'s time.
    pub fn try_edges_at_least(&mut self, edges: u128, target: i32, max_nodes: u64) -> Option<bool> {
        self.node_limit = self.nodes.saturating_add(max_nodes);
        self.aborted = false;
        let value = self.search(edges, target - 1, target);
        self.node_limit = u64::MAX;
        (!std::mem::take(&mut self.aborted)).then_some(value >= target)
    }

    /// The outcome under perfect play of `state`, decided by one null-window search (whether
    /// the player to move ends ahead, level or behind): what a training label needs, faster
    /// than the value. `None` past `max_nodes` positions searched.
    pub fn try_outcome(&mut self, state: &DotsAndBoxes, max_nodes: u64) -> Option<Outcome> {
        self.check(state);
        let lead = state.lead_of_mover();
        let mover = state.to_move();
        // Ahead at the end: future value > -lead, i.e. at least 1 - lead.
        if self.try_edges_at_least(state.edges(), 1 - lead, max_nodes)? {
            return Some(Outcome::win_for(mover));
        }
        // An odd number of boxes has no draw: the final margin is odd.
        if self.geo.num_boxes % 2 == 0
            && self.try_edges_at_least(state.edges(), -lead, max_nodes)?
        {
            return Some(Outcome::Draw);
        }
        Some(Outcome::win_for(mover.opponent()))
    }

    /// A move that keeps `outcome`, the perfect-play outcome of `state` (as
    /// [`try_outcome`](Self::try_outcome) found it): the winner's first move in search order
    /// that still wins (a draw's that still draws), the loser's first move. Null-window
    /// searches of the children, mostly answered by the table the outcome's search filled.
    /// `None` past `max_nodes` positions searched.
    pub fn try_outcome_move(
        &mut self,
        state: &DotsAndBoxes,
        outcome: Outcome,
        max_nodes: u64,
    ) -> Option<Action> {
        self.check(state);
        assert!(!state.is_terminal(), "the game is over");
        let edges = state.edges();
        let lead = state.lead_of_mover();
        let mut moves = [0u8; MAX_EDGES];
        let count = self.ordered_moves(edges, &mut moves, false);
        // The future value the move must reach: ahead (1 - lead) to win, level (-lead) to draw.
        let target = match outcome {
            o if o == Outcome::win_for(state.to_move()) => 1 - lead,
            Outcome::Draw => -lead,
            _ => return Some(moves[0] as Action),
        };
        self.node_limit = self.nodes.saturating_add(max_nodes);
        self.aborted = false;
        let mut found = None;
        for &e in &moves[..count] {
            let v = self.child_value(edges, e as usize, target - 1, target);
            if self.aborted {
                break;
            }
            if v >= target {
                found = Some(e as Action);
                break;
            }
        }
        self.node_limit = u64::MAX;
        let aborted = std::mem::take(&mut self.aborted);
        assert!(
            aborted || found.is_some(),
            "no move keeps the outcome the solver found"
        );
        found.filter(|_| !aborted)
    }

    /// Forgets every position solved (the table's memory is kept).
    pub fn clear(&mut self) {
        self.table.fill(EMPTY);
    }

    /// Positions searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn check(&self, state: &DotsAndBoxes) {
        assert!(
            self.fits(state),
            "endgame solver built for another board size"
        );
    }

    /// Net boxes still to come for the player to move, under perfect play.
    pub fn future_value(&mut self, state: &DotsAndBoxes) -> i32 {
        self.check(state);
        let n = self.geo.num_boxes as i32;
        self.search(state.edges(), -n - 1, n + 1)
    }

    /// The final margin (player to move minus opponent) under perfect play.
    pub fn final_margin(&mut self, state: &DotsAndBoxes) -> i32 {
        state.lead_of_mover() + self.future_value(state)
    }

    /// The outcome under perfect play.
    pub fn outcome(&mut self, state: &DotsAndBoxes) -> Outcome {
        match self.final_margin(state).signum() {
            0 => Outcome::Draw,
            1 => Outcome::win_for(state.to_move()),
            _ => Outcome::win_for(state.to_move().opponent()),
        }
    }

    /// A move of best final margin for the player to move, and that margin. Among equal moves
    /// the first in search order (captures, safe edges, small sacrifices, then by id).
    pub fn best_action(&mut self, state: &DotsAndBoxes) -> (Action, i32) {
        self.check(state);
        assert!(!state.is_terminal(), "the game is over");
        let edges = state.edges();
        let target = self.search(edges, -100, 100);
        let mut moves = [0u8; MAX_EDGES];
        let count = self.ordered_moves(edges, &mut moves, false);
        let mut best = (moves[0] as Action, i32::MIN);
        for &e in &moves[..count] {
            let v = self.child_value(edges, e as usize, -100, 100);
            if self.aborted {
                break;
            }
            if v > best.1 {
                best = (e as Action, v);
            }
            if v == target {
                break;
            }
        }
        (best.0, state.lead_of_mover() + best.1)
    }

    /// [`best_action`](Self::best_action) within `max_nodes` positions searched, or `None` when
    /// the position is too hard for that (what was learnt on the way is kept: a later call may
    /// get further).
    pub fn try_best_action(
        &mut self,
        state: &DotsAndBoxes,
        max_nodes: u64,
    ) -> Option<(Action, i32)> {
        self.node_limit = self.nodes.saturating_add(max_nodes);
        self.aborted = false;
        let answer = self.best_action(state);
        self.node_limit = u64::MAX;
        let aborted = std::mem::take(&mut self.aborted);
        (!aborted).then_some(answer)
    }

    /// The value, for the player to move at `edges`, of drawing `e`.
    #[inline]
    fn child_value(&mut self, edges: u128, e: usize, alpha: i32, beta: i32) -> i32 {
        let closed = self.geo.boxes_closed_by(edges, e) as i32;
        let child = edges | 1u128 << e;
        if closed > 0 {
            closed + self.search(child, alpha - closed, beta - closed)
        } else {
            -self.search(child, -beta, -alpha)
        }
    }

    /// The moves worth searching at `edges`, best first, into `out`; their count. With
    /// `reduce`, the chain reductions apply (a single forced capture, or capture and
    /// double-deal); without, every free edge is listed (for `best_action`'s root).
    fn ordered_moves(&self, edges: u128, out: &mut [u8; MAX_EDGES], reduce: bool) -> usize {
        let geo = self.geo;
        let free = !edges & geo.all_edges;
        // Capturable boxes and what their capture leads into. `declines` are the
        // double-dealing moves: for a capturable box whose last edge `e` leads into a box `n` of
        // valence 2, the other free edge of `n`.
        let v = geo.valences(edges);
        let mut capture_edges = 0u128;
        let mut declines = 0u128;
        for (e, into) in captures(geo, edges, v) {
            capture_edges |= 1u128 << e;
            match into {
                Some(n) => declines |= free & geo.box_masks[n] & !(1u128 << e),
                None if reduce => {
                    out[0] = e as u8;
                    return 1;
                }
                None => {}
            }
        }
        if reduce && capture_edges != 0 {
            // Every capturable box leads into a chain: take one, or double-deal.
            let mut count = 0;
            let mut bits = capture_edges;
            while bits != 0 {
                out[count] = bits.trailing_zeros() as u8;
                count += 1;
                bits &= bits - 1;
            }
            let mut bits = declines & !capture_edges;
            while bits != 0 {
                out[count] = bits.trailing_zeros() as u8;
                count += 1;
                bits &= bits - 1;
            }
            return count;
        }
        // Captures, then safe edges, then the rest by how many boxes they hand over (the
        // number of valence-2 boxes they touch, a cheap stand-in).
        let mut count = 0;
        let mut push_all = |bits: u128, out: &mut [u8; MAX_EDGES]| {
            let mut bits = bits;
            while bits != 0 {
                out[count] = bits.trailing_zeros() as u8;
                count += 1;
                bits &= bits - 1;
            }
        };
        push_all(capture_edges, out);
        // An edge hands over a box for each of its boxes of valence 2: sort the rest into
        // those touching none, one or two such boxes, a word operation each.
        let rest = free & !capture_edges;
        let two = geo.sides_of(v.two);
        let mut twice = 0u128;
        let mut bits = rest & two;
        while bits != 0 {
            let e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let [x, y] = geo.edge_boxes[e];
            if y != u8::MAX && v.two >> x & 1 == 1 && v.two >> y & 1 == 1 {
                twice |= 1u128 << e;
            }
        }
        let tiers = [rest & !two, rest & two & !twice, twice];
        for tier in tiers {
            push_all(tier, out);
        }
        count
    }

    /// Enhanced transposition cutoff (ETC: Plaat, Schaeffer, Pijls and de Bruin, 1996): a child
    /// whose stored bound already lifts the mover's value to `beta` ends the node before any
    /// child is searched.
    /// Measured (`solver_timing`): 24-32% fewer positions searched from 24 free edges on,
    /// 14-19% less time from 32 on.
    fn transposition_cutoff(&self, edges: u128, moves: &[u8], beta: i32) -> Option<i32> {
        for &e in moves {
            let child = edges | 1u128 << e;
            let entry = self.table[self.slot(child)];
            if !entry.used || entry.key != child {
                continue;
            }
            let closed = self.geo.boxes_closed_by(edges, e as usize) as i32;
            let v = if closed > 0 {
                closed + entry.lower as i32
            } else {
                -(entry.upper as i32)
            };
            if v >= beta {
                return Some(v);
            }
        }
        None
    }

    fn slot(&self, edges: u128) -> usize {
        let h = (edges as u64 ^ (edges >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 40) as usize & self.mask
    }

    fn search(&mut self, edges: u128, mut alpha: i32, mut beta: i32) -> i32 {
        if edges == self.geo.all_edges {
            return 0;
        }
        self.nodes += 1;
        if self.nodes > self.node_limit {
            // Unwind: every value from here on is meaningless and none is stored.
            self.aborted = true;
            return 0;
        }
        if let Some(v) = self.loony.future_value(self.geo, edges) {
            return v;
        }
        let slot = self.slot(edges);
        let entry = self.table[slot];
        let (mut lower, mut upper) = (-100i32, 100i32);
        if entry.used && entry.key == edges {
            lower = entry.lower as i32;
            upper = entry.upper as i32;
            if lower == upper || lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut moves = [0u8; MAX_EDGES];
        let count = self.ordered_moves(edges, &mut moves, true);
        let mut best = i32::MIN;
        if let Some(v) = self.transposition_cutoff(edges, &moves[..count], beta) {
            best = v;
        }
        for &e in &moves[..count] {
            if best >= beta {
                break;
            }
            let v = self.child_value(edges, e as usize, alpha, beta);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
            }
            if best > alpha {
                alpha = best;
            }
            if alpha >= beta {
                break;
            }
        }
        // Fail-soft bounds: below the window the value is at most `best`, above it at least.
        if best <= alpha0 {
            upper = upper.min(best);
        } else if best >= beta0 {
            lower = lower.max(best);
        } else {
            lower = best;
            upper = best;
        }
        self.table[slot] = Entry {
            key: edges,
            lower: lower as i8,
            upper: upper as i8,
            used: true,
        };
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::dots_and_boxes::solver::Solver;
    use crate::rng::Rng;

    /// A random position with `free` edges left, reached by uniformly random moves.
    fn random_position(rows: usize, cols: usize, free: usize, rng: &mut Rng) -> DotsAndBoxes {
        let mut state = DotsAndBoxes::new(rows, cols).unwrap();
        let mut buf = Vec::new();
        while state.num_edges() - (state.edges_drawn() as usize) > free {
            state.legal_actions(&mut buf);
            state.apply(rng.pick(&buf));
        }
        state
    }

    /// The null-window outcome is the plain solver's, on boards with draws (2x2, 2x3, 3x4)
    /// and without; a game played on by outcome-keeping moves ends in that outcome.
    #[test]
    fn null_window_outcomes_and_the_moves_that_keep_them_are_exact() {
        let mut rng = Rng::new(11);
        for (rows, cols, max_free) in [(2, 2, 12), (2, 3, 17), (3, 3, 20), (3, 4, 18), (5, 5, 16)] {
            let mut plain = Solver::new(rows, cols);
            let mut fast = EndgameSolver::new(rows, cols, 16);
            let mut outcomes = [0; 3];
            for i in 0..120 {
                let free = 1 + (i % max_free);
                let mut state = random_position(rows, cols, free, &mut rng);
                if state.is_terminal() {
                    continue;
                }
                if i % 2 == 0 {
                    fast.clear();
                }
                let want = plain.outcome(&state);
                let got = fast.try_outcome(&state, u64::MAX).unwrap();
                assert_eq!(got, want, "{rows}x{cols} {}", state.edge_string());
                outcomes[crate::game_record::outcome_class(got) as usize] += 1;
                while !state.is_terminal() {
                    let a = fast.try_outcome_move(&state, want, u64::MAX).unwrap();
                    state.apply(a);
                    if !state.is_terminal() {
                        assert_eq!(plain.outcome(&state), want, "{}", state.edge_string());
                    }
                }
                assert_eq!(state.outcome(), Some(want));
            }
            // Both players win somewhere; the even boards draw somewhere too.
            assert!(
                outcomes[0] > 0 && outcomes[1] > 0,
                "{rows}x{cols} {outcomes:?}"
            );
            if rows * cols % 2 == 0 && rows * cols <= 6 {
                assert!(outcomes[2] > 0, "{rows}x{cols} {outcomes:?}");
            }
        }
    }

    /// Past the node limit the answers are `None`, not guesses.
    #[test]
    fn null_window_searches_give_up_cleanly() {
        let mut rng = Rng::new(12);
        let state = random_position(5, 5, 30, &mut rng);
        let mut solver = EndgameSolver::new(5, 5, 16);
        assert_eq!(solver.try_outcome(&state, 10), None);
        let outcome = solver.try_outcome(&state, u64::MAX).unwrap();
        solver.clear();
        assert_eq!(solver.try_outcome_move(&state, outcome, 10), None);
        assert!(solver.try_outcome_move(&state, outcome, u64::MAX).is_some());
    }

    /// The reductions change nothing: same values as the plain alpha-beta solver.
    #[test]
    fn agrees_with_the_plain_solver_on_random_positions() {
        let mut rng = Rng::new(5);
        for (rows, cols, max_free) in [
            (1, 3, 10),
            (2, 2, 12),
            (2, 3, 17),
            (3, 3, 20),
            (2, 5, 20),
            (3, 4, 18),
            (5, 5, 16),
        ] {
            let mut plain = Solver::new(rows, cols);
            let mut fast = EndgameSolver::new(rows, cols, 16);
            for i in 0..150 {
                let free = 1 + (i % max_free);
                let state = random_position(rows, cols, free, &mut rng);
                if state.is_terminal() {
                    continue;
                }
                assert_eq!(
                    fast.future_value(&state),
                    plain.future_value(&state),
                    "{rows}x{cols} {}",
                    state.edge_string()
                );
                let (action, margin) = fast.best_action(&state);
                assert_eq!(margin, plain.final_margin(&state));
                let best: Vec<i32> = plain
                    .action_margins(&state)
                    .into_iter()
                    .filter(|&(a, _)| a == action)
                    .map(|(_, m)| m)
                    .collect();
                assert_eq!(
                    best,
                    vec![margin],
                    "{rows}x{cols} {}: {action}",
                    state.edge_string()
                );
            }
        }
    }

    /// Many more, smaller positions on seven board shapes: the case of several chains open at
    /// once (where a too-narrow double-deal reduction went wrong) is common among them.
    #[test]
    fn agrees_with_the_plain_solver_on_many_small_positions() {
        let mut rng = Rng::new(99);
        for (rows, cols) in [(2, 3), (3, 3), (2, 4), (3, 4), (1, 5), (2, 5), (4, 4)] {
            let mut plain = Solver::new(rows, cols);
            let mut fast = EndgameSolver::new(rows, cols, 16);
            for _ in 0..2000 {
                let free = 1 + rng.below(14) as usize;
                let state = random_position(rows, cols, free, &mut rng);
                if state.is_terminal() {
                    continue;
                }
                assert_eq!(
                    fast.future_value(&state),
                    plain.future_value(&state),
                    "{rows}x{cols} {}",
                    state.edge_string()
                );
            }
        }
    }

    #[test]
    fn whole_small_boards_are_solved() {
        for (rows, cols) in [(1, 1), (1, 2), (2, 2), (2, 3)] {
            let state = DotsAndBoxes::new(rows, cols).unwrap();
            let mut plain = Solver::new(rows, cols);
            let mut fast = EndgameSolver::new(rows, cols, 16);
            assert_eq!(
                fast.final_margin(&state),
                plain.final_margin(&state),
                "{rows}x{cols}"
            );
        }
    }

    #[test]
    fn a_node_limit_gives_up_and_a_later_call_still_answers_right() {
        let mut rng = Rng::new(8);
        let state = random_position(3, 4, 16, &mut rng);
        let mut exact = EndgameSolver::new(3, 4, 16);
        let want = exact.best_action(&state).1;
        let mut limited = EndgameSolver::new(3, 4, 16);
        assert_eq!(limited.try_best_action(&state, 5), None);
        assert_eq!(
            limited.try_best_action(&state, u64::MAX).map(|a| a.1),
            Some(want)
        );
    }
}

#[cfg(test)]
mod timing {
    use super::*;
    use crate::games::dots_and_boxes::analysis::safe_edges;
    use crate::rng::Rng;

    /// Not a check, a measurement (ignored by default): seconds per `best_action` on 5x5
    /// positions reached by random play that hands nothing over while it can, ten positions a
    /// row. `cargo test --release -p engine --lib solver_timing -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn solver_timing() {
        let mut rng = Rng::new(3);
        // The players' table size (for_board), so the figures are what they meet.
        let mut solver = EndgameSolver::new(5, 5, 20);
        let mut buf = Vec::new();
        for free in [24, 28, 30, 32, 34, 36] {
            let (mut worst, mut total, mut nodes) = (0f64, 0f64, 0u64);
            for _ in 0..10 {
                let mut state = DotsAndBoxes::new(5, 5).unwrap();
                while state.num_edges() - (state.edges_drawn() as usize) > free {
                    let safe = safe_edges(state.geometry(), state.edges());
                    state.legal_actions(&mut buf);
                    if safe != 0 {
                        buf.retain(|&a| safe >> a & 1 == 1);
                    }
                    state.apply(rng.pick(&buf));
                }
                let n0 = solver.nodes();
                let t = std::time::Instant::now();
                solver.best_action(&state);
                let dt = t.elapsed().as_secs_f64();
                nodes += solver.nodes() - n0;
                worst = worst.max(dt);
                total += dt;
            }
            eprintln!(
                "{free} free edges: mean {:.1} ms, worst {:.1} ms, {} positions searched on average",
                total * 100.0,
                worst * 1000.0,
                nodes / 10
            );
        }
    }
}
