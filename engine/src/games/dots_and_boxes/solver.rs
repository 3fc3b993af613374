//! An exact solver for small Dots-and-Boxes boards: negamax with alpha-beta over the set of drawn
//! edges and a transposition table. Used as the test oracle for the search.
//!
//! The value of a position is the number of boxes the player to move will take from now on,
//! minus the number the opponent will take, under perfect play. It depends only on the drawn
//! edges (not on the scores or on who is to move), so the table is keyed by the edge set alone.
//! A move that closes a box adds the boxes to the mover and the mover moves again; any other move
//! hands the turn over, so the child's value is negated.
//!
//! Practical up to about 25 free edges (3x3 from the empty board takes seconds); the 5x5 endgame
//! solver with chain reductions belongs to the rival issue.

use std::collections::HashMap;

use super::{DotsAndBoxes, Geometry};
use crate::game::{Action, Game, Outcome};

#[derive(Clone, Copy)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// Alpha-beta solver with a transposition table that persists across calls on one board size.
pub struct Solver {
    geo: &'static Geometry,
    table: HashMap<u128, (i8, Bound)>,
    nodes: u64,
}

impl Solver {
    pub fn new(rows: usize, cols: usize) -> Solver {
        Solver {
            geo: Geometry::get(rows, cols),
            table: HashMap::new(),
            nodes: 0,
        }
    }

    /// Positions searched so far (a measure of work).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Net boxes still to come for the player to move, under perfect play.
    pub fn future_value(&mut self, state: &DotsAndBoxes) -> i32 {
        self.check(state);
        let n = self.geo.num_boxes as i32;
        self.search(state.edges(), -n - 1, n + 1)
    }

    /// The final score margin (player to move minus opponent) under perfect play.
    pub fn final_margin(&mut self, state: &DotsAndBoxes) -> i32 {
        state.lead_of_mover() + self.future_value(state)
    }

    /// Each legal action with the final margin (for the player to move now) it leads to.
    pub fn action_margins(&mut self, state: &DotsAndBoxes) -> Vec<(Action, i32)> {
        let mut actions = Vec::new();
        state.legal_actions(&mut actions);
        let mover = state.to_move();
        actions
            .into_iter()
            .map(|a| {
                let mut child = *state;
                child.apply(a);
                let m = self.final_margin(&child);
                (a, if child.to_move() == mover { m } else { -m })
            })
            .collect()
    }

    /// The actions that reach the best achievable outcome (win, else draw, else loss) for the
    /// player to move. This is what a search that maximises its winning chances must pick from;
    /// the margin of the win does not matter to it.
    pub fn optimal_actions_by_outcome(&mut self, state: &DotsAndBoxes) -> Vec<Action> {
        let margins = self.action_margins(state);
        let best = margins.iter().map(|&(_, m)| m.signum()).max().unwrap_or(0);
        margins
            .into_iter()
            .filter(|&(_, m)| m.signum() == best)
            .map(|(a, _)| a)
            .collect()
    }

    /// The outcome of the game under perfect play from `state`.
    pub fn outcome(&mut self, state: &DotsAndBoxes) -> Outcome {
        let margin = self.final_margin(state);
        match margin.signum() {
            0 => Outcome::Draw,
            1 => Outcome::win_for(state.to_move()),
            _ => Outcome::win_for(state.to_move().opponent()),
        }
    }

    fn check(&self, state: &DotsAndBoxes) {
        assert!(
            std::ptr::eq(self.geo, state.geometry()),
            "solver built for another board size"
        );
    }

    fn search(&mut self, edges: u128, mut alpha: i32, mut beta: i32) -> i32 {
        let geo = self.geo;
        if edges == geo.all_edges {
            return 0;
        }
        self.nodes += 1;
        if let Some(&(v, bound)) = self.table.get(&edges) {
            let v = v as i32;
            match bound {
                Bound::Exact => return v,
                Bound::Lower => alpha = alpha.max(v),
                Bound::Upper => beta = beta.min(v),
            }
            if alpha >= beta {
                return v;
            }
        }
        let original_alpha = alpha;
        let mut best = i32::MIN;
        // Captures first: they are forced-good far more often than not, and cut early.
        let free = !edges & geo.all_edges;
        let mut captures = 0u128;
        let mut bits = free;
        while bits != 0 {
            let e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if geo.boxes_closed_by(edges, e) > 0 {
                captures |= 1u128 << e;
            }
        }
        'outer: for group in [captures, free & !captures] {
            let mut bits = group;
            while bits != 0 {
                let e = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let closed = geo.boxes_closed_by(edges, e) as i32;
                let child = edges | 1u128 << e;
                let v = if closed > 0 {
                    closed + self.search(child, alpha - closed, beta - closed)
                } else {
                    -self.search(child, -beta, -alpha)
                };
                best = best.max(v);
                alpha = alpha.max(v);
                if alpha >= beta {
                    break 'outer;
                }
            }
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.insert(edges, (best as i8, bound));
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Plain memoised minimax without pruning: slow but obviously right.
    fn plain_value(geo: &Geometry, edges: u128, memo: &mut HashMap<u128, i32>) -> i32 {
        if edges == geo.all_edges {
            return 0;
        }
        if let Some(&v) = memo.get(&edges) {
            return v;
        }
        let mut best = i32::MIN;
        for e in 0..geo.num_edges {
            if edges >> e & 1 == 1 {
                continue;
            }
            let closed = geo.boxes_closed_by(edges, e) as i32;
            let child = edges | 1u128 << e;
            let v = if closed > 0 {
                closed + plain_value(geo, child, memo)
            } else {
                -plain_value(geo, child, memo)
            };
            best = best.max(v);
        }
        memo.insert(edges, best);
        best
    }

    #[test]
    fn one_by_one_is_a_second_player_win() {
        // Four edges, no capture possible before the fourth: P2 draws it and takes the box.
        let state = DotsAndBoxes::new(1, 1).unwrap();
        let mut solver = Solver::new(1, 1);
        assert_eq!(solver.final_margin(&state), -1);
        assert_eq!(solver.outcome(&state), Outcome::P2Win);
    }

    #[test]
    fn alpha_beta_agrees_with_plain_minimax_on_small_boards() {
        let mut rng = Rng::new(11);
        for (rows, cols) in [(1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (1, 4)] {
            let geo = Geometry::get(rows, cols);
            let mut memo = HashMap::new();
            let mut solver = Solver::new(rows, cols);
            for _ in 0..40 {
                // A random position: random game prefix of random length.
                let mut state = DotsAndBoxes::new(rows, cols).unwrap();
                let stop = rng.below(geo.num_edges as u32) as usize;
                let mut buf = Vec::new();
                for _ in 0..stop {
                    state.legal_actions(&mut buf);
                    let a = rng.pick(&buf);
                    state.apply(a);
                }
                let expected = plain_value(geo, state.edges(), &mut memo);
                assert_eq!(
                    solver.future_value(&state),
                    expected,
                    "{rows}x{cols} edges {}",
                    state.edge_string()
                );
            }
        }
    }

    #[test]
    fn small_board_values_from_the_empty_board() {
        // Computed independently by the unpruned minimax above; pinned so a regression in either
        // the rules or the solver shows.
        for (rows, cols) in [(1, 2), (2, 2), (2, 3)] {
            let geo = Geometry::get(rows, cols);
            let expected = plain_value(geo, 0, &mut HashMap::new());
            let mut solver = Solver::new(rows, cols);
            let state = DotsAndBoxes::new(rows, cols).unwrap();
            assert_eq!(solver.final_margin(&state), expected, "{rows}x{cols}");
        }
    }

    #[test]
    fn optimal_actions_take_a_free_box_when_it_wins() {
        // 1x2 board: the middle edge and both outer boxes' three sides drawn... build a position
        // where P1 can close a box and the rest follows.
        let mut state = DotsAndBoxes::new(1, 1).unwrap();
        for a in [0, 1, 2] {
            state.apply(a);
        }
        // P2 to move (three non-closing moves: P1, P2, P1), the fourth edge closes the box.
        assert_eq!(state.to_move(), crate::game::Player::P2);
        let mut solver = Solver::new(1, 1);
        assert_eq!(solver.optimal_actions_by_outcome(&state), vec![3]);
        assert_eq!(solver.final_margin(&state), 1);
    }
}
