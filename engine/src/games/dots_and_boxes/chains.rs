//! Simple loony endgames, solved at once by strings-and-coins theory.
//!
//! A position is a *simple loony endgame* when every box not yet closed has exactly two free
//! sides. Then no box can be captured, no edge is safe, and the boxes fall into independent
//! chains (both ends on the border) and loops. Every move opens one of them, and the opponent,
//! now in control, either takes all its boxes and moves next, or keeps control by declining the
//! last two boxes of a long chain (the all-but-two trick: it draws the far edge, the opener takes
//! the two and must open the next) or the last four of a loop (all-but-four). With `r` the value
//! of the rest for the player who must open next, opening a component of `n` boxes is worth, to
//! the opener:
//!
//! * a 1-chain: `-(1 + r)` (the single box leads nowhere: taking it is never wrong);
//! * a 2-chain: `-(2 + r)`, opened by its middle line so that it cannot be declined (opened at an
//!   end it could be, which is never better for the opener);
//! * a chain of 3 or more: `-max(n + r, n - 4 - r)`;
//! * a loop: `-max(n + r, n - 8 - r)`;
//!
//! and the position is worth the best of these over its components (Berlekamp, *The
//! Dots-and-Boxes Game*, chapters on control and the all-but rules). The value only depends on
//! the multiset of component sizes, so it is computed by recursion over multisets with a cache
//! that persists across calls: the few distinct endgames of a search are each solved once. The
//! tests check it against the exact solver on random positions of several board sizes.

use crate::key_hash::KeyMap;

use super::analysis::across;
use super::Geometry;

/// Marks a loop in a component's code (the low six bits are its size).
const LOOP: u8 = 0x40;
const SIZE_BITS: u8 = 0x3f;
/// Components a cached multiset can hold (seven bits each in a `u128` key).
const MAX_COMPONENTS: usize = 18;
/// The cache is emptied once it holds this many multisets.
const CACHE_LIMIT: usize = 1 << 20;

/// The chains and loops of a simple loony endgame, as codes (size, plus [`LOOP`] for a loop).
#[derive(Clone, Copy, Debug)]
pub struct Strings {
    codes: [u8; MAX_COMPONENTS],
    len: usize,
}

impl Strings {
    /// Reads `edges` as a simple loony endgame: `None` unless every open box has exactly two
    /// free sides (or when it has more components than a key can hold).
    pub fn read(geo: &Geometry, edges: u128) -> Option<Strings> {
        let free = !edges & geo.all_edges;
        let v = geo.valences(edges);
        if v.one | v.three | v.four != 0 {
            return None;
        }
        let mut open = v.two;
        let mut out = Strings {
            codes: [0; MAX_COMPONENTS],
            len: 0,
        };
        while open != 0 {
            // Walk the component of the lowest open box through the free edges its boxes share.
            let start = open.trailing_zeros() as usize;
            let mut frontier = 1u64 << start;
            open &= !frontier;
            let mut size = 0u8;
            let mut ends = 0;
            while frontier != 0 {
                let b = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                size += 1;
                let mut sides = free & geo.box_masks[b];
                while sides != 0 {
                    let e = sides.trailing_zeros() as usize;
                    sides &= sides - 1;
                    match across(geo, e, b) {
                        Some(m) => {
                            if open & 1 << m != 0 {
                                open &= !(1 << m);
                                frontier |= 1 << m;
                            }
                        }
                        None => ends += 1,
                    }
                }
            }
            if out.len == MAX_COMPONENTS {
                return None;
            }
            out.codes[out.len] = if ends == 0 { size | LOOP } else { size };
            out.len += 1;
        }
        out.codes[..out.len].sort_unstable();
        Some(out)
    }

    /// Chain sizes, then loop sizes (each ascending).
    pub fn sizes(&self) -> (Vec<u32>, Vec<u32>) {
        let mut chains = Vec::new();
        let mut loops = Vec::new();
        for &c in &self.codes[..self.len] {
            let size = (c & SIZE_BITS) as u32;
            if c & LOOP != 0 {
                loops.push(size);
            } else {
                chains.push(size);
            }
        }
        (chains, loops)
    }

    /// Whether no component is left (every box closed).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Values of simple loony endgames, with the multisets already solved.
#[derive(Clone, Default)]
pub struct LoonyValues {
    cache: KeyMap<u128, i8>,
}

impl LoonyValues {
    pub fn new() -> LoonyValues {
        LoonyValues::default()
    }

    /// Net boxes still to come for the player to move at `edges` under perfect play, when the
    /// position is a simple loony endgame; `None` otherwise.
    pub fn future_value(&mut self, geo: &Geometry, edges: u128) -> Option<i32> {
        Strings::read(geo, edges).map(|s| self.value(&s))
    }

    /// The value of `strings` for the player who must open the next component.
    pub fn value(&mut self, strings: &Strings) -> i32 {
        if self.cache.len() > CACHE_LIMIT {
            self.cache.clear();
        }
        self.solve(&strings.codes[..strings.len])
    }

    fn solve(&mut self, codes: &[u8]) -> i32 {
        if codes.is_empty() {
            return 0;
        }
        let key = codes.iter().fold(0u128, |k, &c| (k << 7) | (c as u128 + 1));
        if let Some(&v) = self.cache.get(&key) {
            return v as i32;
        }
        let mut best = i32::MIN;
        let mut rest = [0u8; MAX_COMPONENTS];
        for i in 0..codes.len() {
            if i > 0 && codes[i] == codes[i - 1] {
                continue; // the same component size again: the same value
            }
            rest[..i].copy_from_slice(&codes[..i]);
            rest[i..codes.len() - 1].copy_from_slice(&codes[i + 1..]);
            let r = self.solve(&rest[..codes.len() - 1]);
            let n = (codes[i] & SIZE_BITS) as i32;
            let taker = if codes[i] & LOOP != 0 {
                (n + r).max(n - 8 - r)
            } else if n >= 3 {
                (n + r).max(n - 4 - r)
            } else {
                n + r
            };
            best = best.max(-taker);
        }
        self.cache.insert(key, best as i8);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::dots_and_boxes::analysis::greedy_moves;
    use crate::games::dots_and_boxes::endgame::EndgameSolver;
    use crate::games::dots_and_boxes::solver::Solver;
    use crate::games::DotsAndBoxes;
    use crate::rng::Rng;

    fn board(rows: usize, cols: usize, moves: &str) -> DotsAndBoxes {
        DotsAndBoxes::from_move_text(rows, cols, moves).unwrap()
    }

    #[test]
    fn components_of_known_positions() {
        // 1x3 with top and bottom drawn: one 3-chain.
        let s = board(1, 3, "h0,0 h0,1 h0,2 h1,0 h1,1 h1,2");
        let strings = Strings::read(s.geometry(), s.edges()).unwrap();
        assert_eq!(strings.sizes(), (vec![3], vec![]));
        // 2x2 with the outer border drawn: a loop of four.
        let s = board(2, 2, "h0,0 h0,1 h2,0 h2,1 v0,0 v1,0 v0,2 v1,2");
        let strings = Strings::read(s.geometry(), s.edges()).unwrap();
        assert_eq!(strings.sizes(), (vec![], vec![4]));
        // The empty board is not an endgame: its boxes have four free sides.
        let s = DotsAndBoxes::new(2, 2).unwrap();
        assert!(Strings::read(s.geometry(), s.edges()).is_none());
    }

    #[test]
    fn textbook_values() {
        let mut values = LoonyValues::new();
        let value = |values: &mut LoonyValues, codes: &[u8]| {
            let mut s = Strings {
                codes: [0; MAX_COMPONENTS],
                len: codes.len(),
            };
            s.codes[..codes.len()].copy_from_slice(codes);
            s.codes[..codes.len()].sort_unstable();
            values.value(&s)
        };
        // One 3-chain: the opener hands it all over.
        assert_eq!(value(&mut values, &[3]), -3);
        // Two 3-chains: the controller declines the first (1 - 2) and takes the second (3).
        assert_eq!(value(&mut values, &[3, 3]), -2);
        // A 4-loop and a 5-chain: open the loop; the controller declines all four and gets the
        // chain (-4 + 5): -1 for the opener (opening the chain first costs 5).
        assert_eq!(value(&mut values, &[4 | LOOP, 5]), -1);
        // Short chains flip control: a 1-chain and a 6-chain: open the 1-chain (-1), then the
        // opponent must open the 6: 6 - 1 = +5 for the first opener.
        assert_eq!(value(&mut values, &[1, 6]), 5);
    }

    /// Positions reached by greedy random play, kept the first time they are simple loony
    /// endgames.
    fn simple_endgames(rows: usize, cols: usize, count: usize, rng: &mut Rng) -> Vec<DotsAndBoxes> {
        let mut found = Vec::new();
        let mut attempts = 0;
        while found.len() < count && attempts < count * 200 {
            attempts += 1;
            let mut state = DotsAndBoxes::new(rows, cols).unwrap();
            while !state.is_terminal() {
                if Strings::read(state.geometry(), state.edges()).is_some() {
                    found.push(state);
                    break;
                }
                // Mostly greedy (that is how games reach loony endgames), sometimes any edge.
                let pool = if rng.below(8) == 0 {
                    !state.edges() & state.geometry().all_edges
                } else {
                    greedy_moves(state.geometry(), state.edges())
                };
                let e = crate::games::dots_and_boxes::analysis::random_edge(pool, rng);
                state.apply(e as crate::game::Action);
            }
        }
        found
    }

    #[test]
    fn agrees_with_the_plain_solver_on_small_boards() {
        let mut rng = Rng::new(11);
        let mut values = LoonyValues::new();
        for (rows, cols) in [(2, 2), (2, 3), (3, 3), (1, 6), (2, 4)] {
            let mut solver = Solver::new(rows, cols);
            let positions = simple_endgames(rows, cols, 150, &mut rng);
            assert!(positions.len() >= 50, "{rows}x{cols}: {}", positions.len());
            for state in positions {
                let geo = state.geometry();
                assert_eq!(
                    values.future_value(geo, state.edges()),
                    Some(solver.future_value(&state)),
                    "{rows}x{cols} {}",
                    state.edge_string()
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_endgame_solver_on_larger_boards() {
        let mut rng = Rng::new(12);
        let mut values = LoonyValues::new();
        for (rows, cols) in [(4, 4), (5, 5), (3, 5)] {
            let mut solver = EndgameSolver::new(rows, cols, 18);
            let positions = simple_endgames(rows, cols, 100, &mut rng);
            assert!(positions.len() >= 30, "{rows}x{cols}: {}", positions.len());
            let mut with_loops = 0;
            for state in positions {
                let geo = state.geometry();
                let strings = Strings::read(geo, state.edges()).unwrap();
                with_loops += !strings.sizes().1.is_empty() as u32;
                assert_eq!(
                    values.value(&strings),
                    solver.future_value(&state),
                    "{rows}x{cols} {}: {:?}",
                    state.edge_string(),
                    strings.sizes()
                );
            }
            assert!(with_loops > 0, "{rows}x{cols}: no loop was tested");
        }
    }
}
