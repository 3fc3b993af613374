//! A quiet move's order fitted to the moves `best` played in its own self-play games
//! (`pvs:order=fitted`): a linear score over the shapes a point makes for each side, the
//! distance to the last two moves and the pair of the point's best shapes, fitted as a
//! softmax over each position's candidates by `engine/examples/gomoku_order_fit.rs` on the
//! shipped datasets (`data/gomoku-*.tar.gz` unpacked): `cargo run --release -p engine
//! --example gomoku_order_fit -- runs/gomoku-gen-3/selfplay runs/gomoku-gen-2/selfplay
//! runs/gomoku-pvs-200ms-b runs/gomoku-pvs-200ms`.
//!
//! On held-out positions of those games it puts the move played among its first three 56% of
//! the time, where the weighed shapes ([`super::pvs::shape_order`]) do 48%; PentaZen's moves in
//! our matches against it, 54% against 44%. Against PentaZen it played level with the weighed
//! shapes (docs/gomoku-results.md, session 78), so it is not the default.

use super::patterns::Shape;
use super::shape_board::{PointThreat, ShapeBoard};
use crate::game::Player;

/// Features of a point: 8 counts of the mover's shapes over its four lines (one to five), 8 of
/// the other's, whether it makes or stops a double threat (2), its king distance to each of
/// the last two moves (1 to 5, 6 for farther; 12), and the pair of the mover's and the other's
/// best shapes on it (81).
pub const ORDER_FEATURES: usize = 8 + 8 + 2 + 12 + 81;

/// The point's features for `me` ([`ORDER_FEATURES`] of them, each a small count).
pub fn order_features(board: &ShapeBoard, me: Player, p: usize) -> [u8; ORDER_FEATURES] {
    let [last, before, ..] = board.recent_moves();
    let mut f = [0u8; ORDER_FEATURES];
    visit_features(board, me, p, [last, before], |k| f[k] += 1);
    f
}

/// Calls `visit` once for each unit of the point's features for `me`, by feature index (a
/// count of two, twice). `recent`: the board's last two moves.
#[inline(always)]
fn visit_features(
    board: &ShapeBoard,
    me: Player,
    p: usize,
    recent: [Option<usize>; 2],
    mut visit: impl FnMut(usize),
) {
    let opp = me.opponent();
    let (mut best_mine, mut best_theirs) = (0, 0);
    for d in 0..4 {
        let mine = board.shape(me, p, d) as usize;
        let theirs = board.shape(opp, p, d) as usize;
        if mine > 0 {
            visit(mine - 1);
        }
        if theirs > 0 {
            visit(8 + theirs - 1);
        }
        best_mine = best_mine.max(mine);
        best_theirs = best_theirs.max(theirs);
    }
    // A double threat needs a three or better on two lines: the threats are read only then.
    if best_mine >= Shape::Three as usize && double(board.threat(me, p)) {
        visit(16);
    }
    if best_theirs >= Shape::Three as usize && double(board.threat(opp, p)) {
        visit(17);
    }
    for (k, last) in recent.iter().enumerate() {
        if let Some(q) = last {
            visit(18 + 6 * k + board.distance(p, *q).clamp(1, 6) as usize - 1);
        }
    }
    visit(30 + Shape::ALL.len() * best_mine + best_theirs);
}

/// The fitted weights, in hundredths of a logit, by feature.
#[rustfmt::skip]
pub const FITTED_ORDER: [i16; ORDER_FEATURES] = [
    // mine: one, two, live two, three, live three, four, live four, five
    10, 29, 168, 162, 210, 268, 0, 0,
    // the other's, the same
    6, 0, 51, 102, 138, 270, 0, 0,
    // a double threat made, stopped
    326, 108,
    // distance 1 to 6+ from the last move
    39, 16, 6, 19, 0, -37,
    // from the one before
    41, 15, -29, -25, -48, -34,
    // the pair of the best shapes, mine by rows (none to five), the other's by columns
    -548,    0, -216, -125,  -42,  253,   99,    0,    0,
       0, -672, -337, -337, -190,   92,  108,    0,    0,
    -246, -262, -230, -275,  -73,  119,  124,    0,    0,
    -224, -101,  -52,  -80,  -99,   75,   32,    0,    0,
    -149,  -14,   -9,  -14,    6,  125,   81,    0,    0,
     156,  206,  207,  171,  141,  189,  106,    0,    0,
      -8,  225,  208,  195,  116,  197,   93,    0,    0,
       0,    0,    0,    0,    0,    0,    0,    0,    0,
       0,    0,    0,    0,    0,    0,    0,    0,    0,
];

/// The fitted score of `p` for `me`, in hundredths of a logit: [`FITTED_ORDER`] summed over
/// [`order_features`], without building them. `recent`: the board's last two moves
/// ([`ShapeBoard::recent_moves`]), read once a node.
pub fn fitted_order(board: &ShapeBoard, me: Player, p: usize, recent: [Option<usize>; 2]) -> i32 {
    let mut score = 0;
    visit_features(board, me, p, recent, |k| {
        score += i32::from(FITTED_ORDER[k])
    });
    score
}

/// Whether a point's threats make a double: two fours, a four and a live three, or two
/// live threes.
fn double(t: PointThreat) -> bool {
    t.is_double() || t.live_threes >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::{Gomoku, Rule};
    use crate::rng::Rng;

    /// The score read weight by weight is the weights' sum over the features, for both sides
    /// on every candidate of random games (near the stones, so that shapes and doubles arise).
    #[test]
    fn the_fitted_score_sums_the_weights_of_the_features() {
        let mut rng = Rng::new(78);
        let mut cands = Vec::new();
        let mut checked = 0;
        for _ in 0..40 {
            let mut board = ShapeBoard::new(&Gomoku::new(15, Rule::Freestyle).unwrap());
            for _ in 0..40 {
                board.candidates(&mut cands);
                if board.won() || cands.is_empty() {
                    break;
                }
                for &p in &cands {
                    for side in [Player::P1, Player::P2] {
                        let summed: i32 = order_features(&board, side, p)
                            .iter()
                            .zip(&FITTED_ORDER)
                            .map(|(&x, &w)| i32::from(x) * i32::from(w))
                            .sum();
                        let [m1, m2, ..] = board.recent_moves();
                        assert_eq!(fitted_order(&board, side, p, [m1, m2]), summed);
                        checked += 1;
                    }
                }
                board.make(cands[rng.below(cands.len() as u32) as usize]);
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
