//! The inputs of a late net (encoding [`LATE_ENCODING`]): a position seen from the player to
//! move, for a net trained on exact outcomes near the solver's horizon (`engine label`).
//!
//! A net on the paper's grid alone learnt little there (about 60% on 8,500 positions of 30 to
//! 36 free edges), because who wins depends on counts and parities the grid holds only
//! implicitly: the lead, the chains and loops already formed, how many safe edges are left, and
//! whether the long chains' parity favours the player to move (the long chain rule: the first
//! player wants dots plus long chains even). A logistic regression on these features alone
//! named the winner of 71 to 73% of held-out positions (docs/players.md), so the net gets them as
//! inputs beside the grid. Its outputs are read from the mover's side too: (mover wins, mover
//! loses, draw).

use super::analysis::{across, capture_and_safe_edges};
use super::Geometry;
use crate::game::Player;

/// The model-file name of the encoding.
pub const LATE_ENCODING: &str = "dab-late-v1";

/// Inputs after the grid (edges, then boxes).
pub const LATE_EXTRA: usize = 21;

/// The number of inputs on `geo`'s board.
pub fn late_feature_len(geo: &Geometry) -> usize {
    geo.num_edges + geo.num_boxes + LATE_EXTRA
}

/// The components of boxes with exactly two free sides, joined through the free edges they
/// share, by kind (as [`analysis::components`](super::analysis::components), without
/// allocating).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChainCounts {
    pub ones: u32,
    pub twos: u32,
    /// Chains of 3 boxes or more, and their boxes.
    pub long: u32,
    pub long_boxes: u32,
    pub loops: u32,
    pub loop_boxes: u32,
}

impl ChainCounts {
    pub fn of(geo: &Geometry, edges: u128, two: u64) -> ChainCounts {
        let free = !edges & geo.all_edges;
        let mut out = ChainCounts::default();
        let mut open = two;
        while open != 0 {
            let start = open.trailing_zeros() as usize;
            let mut component = 1u64 << start;
            let mut frontier = component;
            let mut closed = true;
            while frontier != 0 {
                let b = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                let mut sides = free & geo.box_masks[b];
                while sides != 0 {
                    let e = sides.trailing_zeros() as usize;
                    sides &= sides - 1;
                    match across(geo, e, b) {
                        Some(m) if two >> m & 1 == 1 => {
                            if component >> m & 1 == 0 {
                                component |= 1 << m;
                                frontier |= 1 << m;
                            }
                        }
                        _ => closed = false,
                    }
                }
            }
            open &= !component;
            let size = component.count_ones();
            match (closed, size) {
                (true, _) => {
                    out.loops += 1;
                    out.loop_boxes += size;
                }
                (false, 1) => out.ones += 1,
                (false, 2) => out.twos += 1,
                (false, _) => {
                    out.long += 1;
                    out.long_boxes += size;
                }
            }
        }
        out
    }

    /// What controlling the rest is worth, by the notes' estimate: boxes in long chains and
    /// loops, minus 4 for every long chain after the first and 8 for every loop.
    pub fn control_value(&self) -> i32 {
        (self.long_boxes + self.loop_boxes) as i32
            - 4 * (self.long as i32 - 1).max(0)
            - 8 * self.loops as i32
    }
}

/// Writes the late net's inputs for the position (`edges`, box `owners` of P1 and P2, `mover`
/// to move) into `out` ([`late_feature_len`] long): each edge 1 drawn, 0 free; each box 1 the
/// mover's, -1 the opponent's, 0 open; then the counts and parities below, scaled to about
/// one.
pub fn late_features(
    geo: &Geometry,
    edges: u128,
    owners: [u64; 2],
    mover: Player,
    out: &mut [f32],
) {
    let (ne, nb) = (geo.num_edges, geo.num_boxes);
    assert_eq!(out.len(), late_feature_len(geo), "late input length");
    for (e, x) in out[..ne].iter_mut().enumerate() {
        *x = (edges >> e & 1) as f32;
    }
    let (mine, theirs) = (owners[mover.index()], owners[mover.opponent().index()]);
    for (b, x) in out[ne..ne + nb].iter_mut().enumerate() {
        *x = (mine >> b & 1) as f32 - (theirs >> b & 1) as f32;
    }
    let v = geo.valences(edges);
    let c = ChainCounts::of(geo, edges, v.two);
    let (captures, safe) = capture_and_safe_edges(geo, edges);
    let lead = mine.count_ones() as f32 - theirs.count_ones() as f32;
    let free = (!edges & geo.all_edges).count_ones();
    let dots = (geo.rows + 1) * (geo.cols + 1);
    let sign = |b: bool| if b { 1.0f32 } else { -1.0 };
    let first = mover == Player::P1;
    // The long chain rule: the first player wants dots + long chains even.
    let long_favours = sign(((dots as u32 + c.long) % 2 == 0) == first);
    let counted_favours = sign(((dots as u32 + c.long + c.ones + c.twos) % 2 == 0) == first);
    let extra = [
        lead / 5.0,
        free as f32 / 10.0,
        safe.count_ones() as f32 / 10.0,
        captures.count_ones() as f32 / 5.0,
        c.ones as f32 / 5.0,
        c.twos as f32 / 5.0,
        c.long as f32 / 5.0,
        c.loops as f32 / 5.0,
        c.control_value() as f32 / 10.0,
        c.long_boxes as f32 / 10.0,
        v.one.count_ones() as f32 / 10.0,
        v.two.count_ones() as f32 / 10.0,
        v.three.count_ones() as f32 / 10.0,
        v.four.count_ones() as f32 / 10.0,
        sign(first),
        long_favours,
        sign(safe.count_ones() % 2 == 1),
        counted_favours,
        sign(free % 2 == 0),
        long_favours * c.long_boxes as f32 / 10.0,
        long_favours * c.control_value() as f32 / 10.0,
    ];
    out[ne + nb..].copy_from_slice(&extra);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::dots_and_boxes::analysis::components;
    use crate::games::DotsAndBoxes;
    use crate::rng::Rng;

    /// The allocation-free counts are the components' on random positions of several boards.
    #[test]
    fn chain_counts_match_the_components() {
        let mut rng = Rng::new(3);
        let mut moves = Vec::new();
        for (rows, cols) in [(2, 2), (3, 3), (3, 5), (5, 5)] {
            for _ in 0..300 {
                let mut s = DotsAndBoxes::new(rows, cols).unwrap();
                let stop = rng.below(s.num_edges() as u32) as usize;
                for _ in 0..stop {
                    s.legal_actions(&mut moves);
                    s.apply(moves[rng.below(moves.len() as u32) as usize]);
                }
                let geo = s.geometry();
                let want = components(geo, s.edges());
                let got = ChainCounts::of(geo, s.edges(), geo.valences(s.edges()).two);
                let chains = |n: u32| want.chains.iter().filter(|&&k| k == n).count() as u32;
                assert_eq!(got.ones, chains(1), "{}", s.edge_string());
                assert_eq!(got.twos, chains(2));
                assert_eq!(got.long as usize, want.long_chains());
                assert_eq!(got.loops as usize, want.loops.len());
                assert_eq!(got.control_value(), want.control_value());
            }
        }
    }

    /// A 2x2 position with one box closed, read from both sides.
    #[test]
    fn features_are_read_from_the_movers_side() {
        let s = DotsAndBoxes::from_move_text(2, 2, "h0,0 v0,0 h1,0 v0,1").unwrap();
        let [a, b] = s.scores().unwrap();
        assert_eq!(a + b, 1, "one box closed");
        // Who closed it moves again.
        let mover = s.to_move();
        let geo = s.geometry();
        let n = late_feature_len(geo);
        let mut mine = vec![0f32; n];
        let mut theirs = vec![0f32; n];
        late_features(geo, s.edges(), s.box_owners(), mover, &mut mine);
        late_features(
            geo,
            s.edges(),
            s.box_owners(),
            mover.opponent(),
            &mut theirs,
        );
        let boxes = geo.num_edges..geo.num_edges + geo.num_boxes;
        assert_eq!(mine[boxes.clone()].iter().sum::<f32>(), 1.0);
        assert_eq!(theirs[boxes].iter().sum::<f32>(), -1.0);
        let extra = geo.num_edges + geo.num_boxes;
        assert_eq!(mine[extra], 0.2); // a lead of one box, over 5
        assert_eq!(theirs[extra], -0.2);
        let p1 = if mover == Player::P1 { 1.0 } else { -1.0 };
        assert_eq!(mine[extra + 14], p1);
        assert_eq!(theirs[extra + 14], -p1);
        assert_eq!(mine[extra + 1], 0.8); // 8 of 12 edges free
        assert_eq!(&mine[..geo.num_edges], &theirs[..geo.num_edges]);
        assert_eq!(mine[..geo.num_edges].iter().sum::<f32>(), 4.0);
    }
}
