//! QDab's view of a position: *links*, its forced captures, and its canonical moves by class.
//!
//! Every free edge lies on a link: a path through boxes with exactly two free sides (valence 2)
//! that ends, at each side, at a *junction* (the border, or a box with three or four free
//! sides) or at a *capturable* box (valence 1), or that closes on itself (a loop). Written with
//! X for a junction, O for a box: `X-X` is a safe edge, `X-O-X` a 1-chain, `X-O-O-X` a 2-chain,
//! longer ones long chains; a link that starts at a capturable box is an opened chain.
//!
//! * **Forced captures** ([`forced_capture`]): a capturable box is taken at once unless its link
//!   is exactly `O-O-X` (an opened chain's last two boxes) or `O-O-O-O` (an opened loop's last
//!   four), where the taker may decline. So opened chains are eaten down to their last two boxes
//!   and opened loops down to their last four, and a capture that leads nowhere is taken.
//! * **Class 1**: the safe edges (`X-X`; of a box's border edges only one, they are alike), one
//!   edge of each 1-chain (both hand over the same box), the middle edge of each 2-chain (the
//!   hard-hearted handout, which cannot be declined).
//! * **Class 2**, at `O-O-X`: take, or double-deal (the far edge, leaving both boxes); at
//!   `O-O-O-O`: take, or all-but-four (the middle edge). When any exists, only these are searched.
//! * **Class 3**: one end edge of each 2-chain (the half-hearted handout), one end edge of each
//!   long chain, one edge of each loop.
//!
//! Two moves QDab treats as one lead to the same position once the opponent's forced captures
//! are played, up to which edges were drawn first.

use crate::games::dots_and_boxes::analysis::across;
use crate::games::dots_and_boxes::{Geometry, Valences, MAX_BOXES};

/// One board's tables for the move generator.
pub struct Board {
    pub geo: &'static Geometry,
    /// The border edges of each box that has two or more (the corners; every box of a board one
    /// box wide): drawing one or another of them is the same move.
    twins: [u128; MAX_BOXES],
    num_twins: usize,
}

impl Board {
    pub fn new(geo: &'static Geometry) -> Board {
        let mut board = Board {
            geo,
            twins: [0; MAX_BOXES],
            num_twins: 0,
        };
        for b in 0..geo.num_boxes {
            let mut border = 0u128;
            let mut sides = geo.box_masks[b];
            while sides != 0 {
                let e = sides.trailing_zeros() as usize;
                sides &= sides - 1;
                if across(geo, e, b).is_none() {
                    border |= 1u128 << e;
                }
            }
            if border.count_ones() >= 2 {
                board.twins[board.num_twins] = border;
                board.num_twins += 1;
            }
        }
        board
    }
}

/// How a walk along a link ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The border or a box of valence 3 or 4.
    Junction,
    /// A box of valence 1.
    Capturable(usize),
    /// Back at the box the walk started from.
    Loop,
}

/// A walk from a box along a link: the valence-2 boxes passed (not the start), the last edge
/// crossed, and what lies beyond it.
#[derive(Clone, Copy, Debug)]
struct Walk {
    passed: u64,
    last: usize,
    end: End,
}

/// Walks from box `start` out through its free edge `edge`, on through boxes of valence 2.
#[inline]
fn walk(geo: &Geometry, free: u128, v: &Valences, start: usize, mut edge: usize) -> Walk {
    let mut cur = start;
    let mut passed = 0u64;
    loop {
        let Some(next) = across(geo, edge, cur) else {
            return Walk {
                passed,
                last: edge,
                end: End::Junction,
            };
        };
        if next == start {
            return Walk {
                passed,
                last: edge,
                end: End::Loop,
            };
        }
        let bit = 1u64 << next;
        if v.two & bit == 0 {
            let end = if v.one & bit != 0 {
                End::Capturable(next)
            } else {
                End::Junction
            };
            return Walk {
                passed,
                last: edge,
                end,
            };
        }
        passed |= bit;
        edge = (free & geo.box_masks[next] & !(1u128 << edge)).trailing_zeros() as usize;
        cur = next;
    }
}

/// The free edge two boxes share (`pair` holds two adjacent boxes).
#[inline]
fn shared_edge(geo: &Geometry, free: u128, pair: u64) -> usize {
    let a = pair.trailing_zeros() as usize;
    let b = (pair & (pair - 1)).trailing_zeros() as usize;
    (free & geo.box_masks[a] & geo.box_masks[b]).trailing_zeros() as usize
}

/// Whether the link from a capturable box, walked to `w`, leaves the taker a choice: `O-O-X`
/// (one box passed, then a junction) or `O-O-O-O` (two passed, then a capturable box).
#[inline]
fn is_decision(w: &Walk) -> bool {
    match w.end {
        End::Junction => w.passed.count_ones() == 1,
        End::Capturable(_) => w.passed.count_ones() == 2,
        End::Loop => false,
    }
}

/// The capture QDab plays without a choice, if any: a capturable box whose link is not an
/// opened chain's last two boxes or an opened loop's last four.
pub fn forced_capture(geo: &Geometry, edges: u128) -> Option<usize> {
    let free = !edges & geo.all_edges;
    let v = geo.valences(edges);
    let mut ones = v.one;
    while ones != 0 {
        let o = ones.trailing_zeros() as usize;
        ones &= ones - 1;
        let e = (free & geo.box_masks[o]).trailing_zeros() as usize;
        if !is_decision(&walk(geo, free, &v, o, e)) {
            return Some(e);
        }
    }
    None
}

/// The canonical moves of a position, by class (edge sets), and what the move rules also ask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Canonical {
    pub class1: u128,
    pub class2: u128,
    pub class3: u128,
    /// The class-3 move of the shortest link (a 2-chain counts 2, a chain or loop its boxes).
    pub shortest3: Option<usize>,
    /// The free edges all of whose boxes are untouched (four free sides): QDab's "4-4" edges.
    pub untouched: u128,
}

impl Canonical {
    /// The canonical moves of every class.
    pub fn all(&self) -> u128 {
        self.class1 | self.class2 | self.class3
    }

    /// How many there are (QDab's `NumMoveAll`, which decides when it solves).
    pub fn count(&self) -> u32 {
        self.all().count_ones()
    }
}

/// The canonical moves at `edges`, meant for a position without a forced capture (the edges of
/// a forced capture's link are in no class).
pub fn canonical(board: &Board, edges: u128) -> Canonical {
    let geo = board.geo;
    let free = !edges & geo.all_edges;
    let v = geo.valences(edges);
    let mut out = Canonical {
        untouched: free & !geo.sides_of(geo.box_bits() & !v.four),
        ..Canonical::default()
    };
    // Safe edges, one border edge a box.
    let mut class1 = free & !geo.sides_of(v.one | v.two);
    for &twins in &board.twins[..board.num_twins] {
        let safe = class1 & twins;
        class1 &= !(safe & safe.wrapping_sub(1));
    }
    // Opened chains and loops at their last boxes.
    let mut seen = 0u64;
    let mut ones = v.one;
    while ones != 0 {
        let o = ones.trailing_zeros() as usize;
        ones &= ones - 1;
        let e = (free & geo.box_masks[o]).trailing_zeros() as usize;
        let w = walk(geo, free, &v, o, e);
        seen |= w.passed;
        match w.end {
            End::Junction if is_decision(&w) => out.class2 |= 1u128 << e | 1u128 << w.last,
            // Both ends of an `O-O-O-O` find it; one end's take is enough.
            End::Capturable(other) if is_decision(&w) && o < other => {
                out.class2 |= 1u128 << e | 1u128 << shared_edge(geo, free, w.passed)
            }
            _ => {}
        }
    }
    // Chains between junctions, and loops.
    let mut shortest = (u32::MAX, 0usize);
    let mut todo = v.two & !seen;
    while todo != 0 {
        let b = todo.trailing_zeros() as usize;
        let sides = free & geo.box_masks[b];
        let first = sides.trailing_zeros() as usize;
        let second = (sides & (sides - 1)).trailing_zeros() as usize;
        let one_way = walk(geo, free, &v, b, first);
        let mut boxes = one_way.passed | 1u64 << b;
        let end = if one_way.end == End::Loop {
            End::Loop
        } else {
            let other_way = walk(geo, free, &v, b, second);
            boxes |= other_way.passed;
            match (one_way.end, other_way.end) {
                (End::Capturable(_), _) | (_, End::Capturable(_)) => End::Capturable(b),
                _ => End::Junction,
            }
        };
        todo &= !boxes;
        let size = boxes.count_ones();
        let open = one_way.last;
        match (end, size) {
            // Part of an opened chain: forced or class 2, above.
            (End::Capturable(_), _) => continue,
            (End::Junction, 1) => class1 |= 1u128 << open,
            (End::Junction, 2) => {
                class1 |= 1u128 << shared_edge(geo, free, boxes);
                out.class3 |= 1u128 << open;
            }
            _ => out.class3 |= 1u128 << open,
        }
        if size > 1 && size < shortest.0 {
            shortest = (size, open);
        }
    }
    out.class1 = class1;
    out.shortest3 = (shortest.0 != u32::MAX).then_some(shortest.1);
    out
}
