//! Position facts that Dots-and-Boxes knowledge rests on (the strings-and-coins view): box
//! valences, capturing edges, safe edges, what a sacrifice hands over, and the long-chain count.

use super::{DotsAndBoxes, Geometry, Valences};
use crate::game::Action;
use crate::rng::Rng;

/// Undrawn sides of box `b` (0 for a closed box).
#[inline]
pub fn valence(geo: &Geometry, edges: u128, b: usize) -> u32 {
    4 - (edges & geo.box_masks[b]).count_ones()
}

/// The box on the other side of edge `e` from box `b`, if any.
#[inline]
pub fn across(geo: &Geometry, e: usize, b: usize) -> Option<usize> {
    let [x, y] = geo.edge_boxes[e];
    let other = if x as usize == b { y } else { x };
    (other != u8::MAX).then_some(other as usize)
}

/// The free edges that close a box now.
#[inline]
pub fn capture_edges(geo: &Geometry, edges: u128) -> u128 {
    let free = !edges & geo.all_edges;
    free & geo.sides_of(geo.valences(edges).one)
}

/// The free edges that neither close a box nor leave one capturable: no box they border has
/// two free sides (or one).
#[inline]
pub fn safe_edges(geo: &Geometry, edges: u128) -> u128 {
    let free = !edges & geo.all_edges;
    let v = geo.valences(edges);
    free & !geo.sides_of(v.one | v.two)
}

/// [`capture_edges`] and [`safe_edges`] from one count of the valences (a rollout's step needs
/// both).
#[inline]
pub fn capture_and_safe_edges(geo: &Geometry, edges: u128) -> (u128, u128) {
    let free = !edges & geo.all_edges;
    let v = geo.valences(edges);
    (
        free & geo.sides_of(v.one),
        free & !geo.sides_of(v.one | v.two),
    )
}

/// Every capture at `edges` (whose valences are `v`): for each box of valence 1, its last free
/// edge and the box of valence 2 that edge leads into, if any (then the capture opens the next
/// box of a chain; otherwise it leads nowhere).
#[inline]
pub fn captures(
    geo: &Geometry,
    edges: u128,
    v: Valences,
) -> impl Iterator<Item = (usize, Option<usize>)> + '_ {
    let free = !edges & geo.all_edges;
    let mut ones = v.one;
    std::iter::from_fn(move || {
        if ones == 0 {
            return None;
        }
        let b = ones.trailing_zeros() as usize;
        ones &= ones - 1;
        let e = (free & geo.box_masks[b]).trailing_zeros() as usize;
        let into = across(geo, e, b).filter(|&n| v.two >> n & 1 == 1);
        Some((e, into))
    })
}

/// The root moves a search needs while the position is open (`safe_first`): with no box to
/// capture and some safe edge left, the safe edges only (what QDab searches); otherwise none,
/// meaning every move. Sacrifices in the open are rarely right, and the search spends its
/// iterations where the choice is.
pub fn safe_first_moves(state: &DotsAndBoxes, out: &mut Vec<Action>) {
    out.clear();
    let geo = state.geometry();
    if capture_edges(geo, state.edges()) != 0 {
        return;
    }
    let mut bits = safe_edges(geo, state.edges());
    while bits != 0 {
        out.push(bits.trailing_zeros() as Action);
        bits &= bits - 1;
    }
}

/// The moves worth searching at a node (`tree=safe`), as an edge set: a capture that leads
/// nowhere alone; else, with boxes to take, the captures and the double-dealing moves (every
/// other move is dominated: Barker and Korf's reduction, exact); else the safe edges if any
/// (QDab's choice, a heuristic: a sacrifice while safe edges remain is never searched); else
/// every free edge.
pub fn tree_moves(geo: &Geometry, edges: u128) -> u128 {
    let free = !edges & geo.all_edges;
    let v = geo.valences(edges);
    let mut captures = 0u128;
    let mut declines = 0u128;
    for (e, into) in self::captures(geo, edges, v) {
        match into {
            Some(n) => {
                captures |= 1u128 << e;
                declines |= free & geo.box_masks[n] & !(1u128 << e);
            }
            None => return 1u128 << e,
        }
    }
    if captures != 0 {
        return captures | declines;
    }
    match free & !geo.sides_of(v.two) {
        0 => free,
        safe => safe,
    }
}

/// What a greedy player chooses among: the capturing edges if any, else the safe edges if any,
/// else every free edge.
pub fn greedy_moves(geo: &Geometry, edges: u128) -> u128 {
    let captures = capture_edges(geo, edges);
    if captures != 0 {
        return captures;
    }
    let safe = safe_edges(geo, edges);
    if safe != 0 {
        return safe;
    }
    !edges & geo.all_edges
}

/// A uniformly random member of a non-empty edge set: the k-th lowest bit, k drawn from `rng`.
pub fn random_edge(bits: u128, rng: &mut Rng) -> usize {
    let mut k = rng.below(bits.count_ones());
    let mut b = bits;
    loop {
        let e = b.trailing_zeros() as usize;
        if k == 0 {
            return e;
        }
        k -= 1;
        b &= b - 1;
    }
}

/// A capture that leads nowhere: a capturable box whose last edge is on the border or shared
/// with a box that does not then become capturable (valence other than 2). Taking it is never
/// wrong (the endgame solver's first reduction, checked against the plain solver).
pub fn free_capture(geo: &Geometry, edges: u128) -> Option<usize> {
    captures(geo, edges, geo.valences(edges)).find_map(|(e, into)| into.is_none().then_some(e))
}

/// A capturable box whose last edge leads into a box of valence 2: the position where the
/// player to move can double-deal. Returns (capturing edge, the double-dealing edge).
pub fn double_deal(geo: &Geometry, edges: u128) -> Option<(usize, usize)> {
    let free = !edges & geo.all_edges;
    captures(geo, edges, geo.valences(edges)).find_map(|(e, into)| {
        into.map(|n| {
            let f = (free & geo.box_masks[n] & !(1u128 << e)).trailing_zeros() as usize;
            (e, f)
        })
    })
}

/// Whether the double-deal `decline` (from [`double_deal`]) is worth more than taking
/// everything, by the notes' estimate: at the last two boxes of a chain (or four of a loop) that
/// the decline hands over whole, with no safe edge left after the capture and a long chain or a
/// loop still to come, when controlling the rest ([`Components::control_value`]) is worth more
/// than the boxes given up.
pub fn keeps_control(geo: &Geometry, edges: u128, decline: usize) -> bool {
    let (taken, after_all) = take_all(geo, edges);
    if !((taken == 2 || taken == 4) && sacrifice(geo, edges, decline) == (taken, false)) {
        return false;
    }
    let rest = components(geo, after_all);
    safe_edges(geo, after_all) == 0
        && (rest.long_chains() > 0 || !rest.loops.is_empty())
        && rest.control_value() > taken as i32
}

/// Takes every capturable box, one at a time, as long as any is left: the boxes taken and
/// the edges after.
pub fn take_all(geo: &Geometry, mut edges: u128) -> (u32, u128) {
    let mut taken = 0;
    loop {
        let captures = capture_edges(geo, edges);
        if captures == 0 {
            return (taken, edges);
        }
        let e = captures.trailing_zeros() as usize;
        taken += geo.boxes_closed_by(edges, e);
        edges |= 1u128 << e;
    }
}

/// What drawing the non-capturing edge `e` hands over: the boxes the opponent can then take in
/// a row, and whether the opponent could decline the last two by a double-deal (a half-hearted
/// handout, an opened long chain or loop) rather than being forced to take them all.
pub fn sacrifice(geo: &Geometry, edges: u128, e: usize) -> (u32, bool) {
    let after = edges | 1u128 << e;
    let declinable = double_deal(geo, after).is_some();
    (take_all(geo, after).0, declinable)
}

/// The chains and loops of a position with no safe edge left (each free edge then borders a
/// box of valence 2, or the component is about to be opened): the sizes of the components of
/// boxes joined through shared free edges, split into chains and loops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Components {
    pub chains: Vec<u32>,
    pub loops: Vec<u32>,
}

impl Components {
    /// Long chains (3 boxes or more).
    pub fn long_chains(&self) -> usize {
        self.chains.iter().filter(|&&n| n >= 3).count()
    }

    /// What controlling the rest is worth, by the notes' estimate: boxes in long chains and
    /// loops, minus 4 for every long chain after the first and 8 for every loop.
    pub fn control_value(&self) -> i32 {
        let long: Vec<u32> = self.chains.iter().copied().filter(|&n| n >= 3).collect();
        let boxes: u32 = long.iter().sum::<u32>() + self.loops.iter().sum::<u32>();
        boxes as i32 - 4 * (long.len() as i32 - 1).max(0) - 8 * self.loops.len() as i32
    }
}

/// The components of valence-2 boxes (boxes with exactly two free sides), joined through the
/// free edges they share: a component whose every box has both free sides inside it is a loop.
pub fn components(geo: &Geometry, edges: u128) -> Components {
    let n = geo.num_boxes;
    let mut seen = vec![false; n];
    let mut out = Components::default();
    let free = !edges & geo.all_edges;
    for start in 0..n {
        if seen[start] || valence(geo, edges, start) != 2 {
            continue;
        }
        let mut stack = vec![start];
        seen[start] = true;
        let mut size = 0;
        let mut closed_loop = true;
        while let Some(b) = stack.pop() {
            size += 1;
            let mut sides = free & geo.box_masks[b];
            while sides != 0 {
                let e = sides.trailing_zeros() as usize;
                sides &= sides - 1;
                match across(geo, e, b) {
                    Some(m) if valence(geo, edges, m) == 2 => {
                        if !seen[m] {
                            seen[m] = true;
                            stack.push(m);
                        }
                    }
                    _ => closed_loop = false,
                }
            }
        }
        if closed_loop {
            out.loops.push(size);
        } else {
            out.chains.push(size);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: usize, cols: usize, moves: &str) -> DotsAndBoxes {
        DotsAndBoxes::from_move_text(rows, cols, moves).unwrap()
    }

    #[test]
    fn captures_safe_edges_and_sacrifices_on_a_known_position() {
        // 1x3: the top and bottom of all three boxes drawn, then the left end: a 3-chain whose
        // left box is capturable by its right side.
        let s = board(1, 3, "h0,0 h0,1 h0,2 h1,0 h1,1 h1,2 v0,0");
        let geo = s.geometry();
        assert_eq!(capture_edges(geo, s.edges()), 1 << geo.vertical(0, 1));
        assert_eq!(safe_edges(geo, s.edges()), 0);
        // Capturing leads into the middle box (valence 2): a double-deal is possible, by the
        // far side of the middle box.
        assert_eq!(
            double_deal(geo, s.edges()),
            Some((geo.vertical(0, 1), geo.vertical(0, 2)))
        );
        assert_eq!(take_all(geo, s.edges()).0, 3);
        // Before the end was opened: one long chain of 3.
        let closed = board(1, 3, "h0,0 h0,1 h0,2 h1,0 h1,1 h1,2");
        let c = components(geo, closed.edges());
        assert_eq!(c.chains, vec![3]);
        assert_eq!(c.long_chains(), 1);
        // Opening it at an end hands over all three and lets the taker double-deal; opening it
        // in the middle hands over all three too.
        assert_eq!(
            sacrifice(geo, closed.edges(), geo.vertical(0, 0)),
            (3, true)
        );
        assert_eq!(sacrifice(geo, closed.edges(), geo.vertical(0, 1)).0, 3);
    }

    #[test]
    fn a_two_chain_by_its_middle_line_cannot_be_declined() {
        // 1x2 with top and bottom drawn: a 2-chain. The middle line is the hard-hearted handout.
        let s = board(1, 2, "h0,0 h0,1 h1,0 h1,1");
        let geo = s.geometry();
        assert_eq!(sacrifice(geo, s.edges(), geo.vertical(0, 1)), (2, false));
        assert_eq!(sacrifice(geo, s.edges(), geo.vertical(0, 0)), (2, true));
    }

    #[test]
    fn a_loop_is_found() {
        // 2x2 with the outer border drawn: the four boxes form a loop through the inner edges.
        let s = board(2, 2, "h0,0 h0,1 h2,0 h2,1 v0,0 v1,0 v0,2 v1,2");
        let c = components(s.geometry(), s.edges());
        assert_eq!(c.loops, vec![4]);
        assert!(c.chains.is_empty());
    }
}
