//! Helpers shared by the integration tests.

use engine::games::dots_and_boxes::analysis::safe_edges;
use engine::games::DotsAndBoxes;
use engine::{Game, Rng};

/// Plays up to `moves` random safe edges (edges that draw no box's third side) from `start`,
/// stopping early once none is left: positions of an open game at a random point.
pub fn random_safe_play(start: DotsAndBoxes, moves: u32, rng: &mut Rng) -> DotsAndBoxes {
    let mut s = start;
    let mut buf = Vec::new();
    for _ in 0..moves {
        let safe = safe_edges(s.geometry(), s.edges());
        if safe == 0 {
            break;
        }
        s.legal_actions(&mut buf);
        buf.retain(|&a| safe >> a & 1 == 1);
        s.apply(rng.pick(&buf));
    }
    s
}
