//! Tree policies (how a child is chosen during selection) and rollout policies (how a leaf is
//! played out). Both are traits so that heuristics and the value net can plug in later.

use std::sync::OnceLock;

use super::node::Node;
use crate::game::{Game, Outcome, Player};
use crate::rng::Rng;

/// Chooses the child to descend into once every child has been visited at least once.
pub trait TreePolicy: Clone + Send + Sync {
    /// Index into `children` of the child to follow. `viewer` is the player whose results count
    /// (the player to move at the parent with the double counter, the root player with the
    /// single counter). Every child has `visits > 0`.
    fn select(&self, parent_visits: u32, children: &[Node], viewer: Player, rng: &mut Rng)
        -> usize;
}

/// Plays a leaf position out and returns the outcome to back up.
pub trait RolloutPolicy<G: Game>: Clone + Send {
    fn rollout(&mut self, state: &mut G, rng: &mut Rng) -> Outcome;
}

/// Uniformly random playouts (the game's own fast rollout where it has one).
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomRollout;

impl<G: Game> RolloutPolicy<G> for RandomRollout {
    #[inline]
    fn rollout(&mut self, state: &mut G, rng: &mut Rng) -> Outcome {
        state.random_rollout(rng)
    }
}

/// Parent visit counts below this bound read `sqrt(ln n)` from a table.
const TABLE_SIZE: usize = 1 << 16;

fn sqrt_ln_table() -> &'static [f32] {
    static TABLE: OnceLock<Vec<f32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..TABLE_SIZE)
            .map(|n| {
                if n == 0 {
                    0.0
                } else {
                    (n as f64).ln().sqrt() as f32
                }
            })
            .collect()
    })
}

/// The paper's UCB (section 5.1): `X_j + 2 Cp sqrt(2 ln n / n_j)`, where `X_j` is the child's
/// wins minus losses over its visits from the viewer's side (the double counter), in [-1, 1].
///
/// Default `Cp = sqrt(2)`: Kocsis and Szepesvari's `Cp = 1/sqrt(2)` satisfies the Hoeffding bound
/// for rewards in [0, 1]; the double counter's `X_j` spans [-1, 1], twice that range, so the
/// equivalent constant is doubled, which is the 1.41 the paper reports.
///
/// No logarithm, square root or division per child: `sqrt(ln n)` is taken once per parent (from
/// a table) and each node carries its mean and `1/sqrt(n_j)`. The maximum is found in one
/// branch-free pass and its holders in a second, so the loop does not mispredict on every new
/// leader; exact ties are broken uniformly at random.
#[derive(Clone, Copy, Debug)]
pub struct Ucb {
    /// `2 * Cp * sqrt(2)`.
    scale: f32,
    sqrt_ln: &'static [f32],
}

impl Ucb {
    pub const DEFAULT_CP: f64 = std::f64::consts::SQRT_2;

    pub fn new(cp: f64) -> Ucb {
        Ucb {
            scale: (2.0 * cp * std::f64::consts::SQRT_2) as f32,
            sqrt_ln: sqrt_ln_table(),
        }
    }

    #[inline]
    fn parent_term(&self, n: u32) -> f32 {
        match self.sqrt_ln.get(n as usize) {
            Some(&v) => v,
            None => (n as f32).ln().sqrt(),
        }
    }
}

impl Default for Ucb {
    fn default() -> Ucb {
        Ucb::new(Ucb::DEFAULT_CP)
    }
}

impl TreePolicy for Ucb {
    #[inline]
    fn select(
        &self,
        parent_visits: u32,
        children: &[Node],
        viewer: Player,
        rng: &mut Rng,
    ) -> usize {
        let explore = self.scale * self.parent_term(parent_visits);
        let sign = match viewer {
            Player::P1 => 1.0f32,
            Player::P2 => -1.0f32,
        };
        let ucb = |c: &Node| sign * c.mean_p1 + explore * c.inv_sqrt_visits;
        let best = children.iter().map(ucb).fold(f32::NEG_INFINITY, f32::max);
        let mut ties = 0u32;
        let mut pick = 0;
        for (i, child) in children.iter().enumerate() {
            if ucb(child) == best {
                ties += 1;
                // Reservoir sampling: the k-th equal child replaces the pick with chance 1/k.
                if ties == 1 || rng.below(ties) == 0 {
                    pick = i;
                }
            }
        }
        pick
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(visits: u32, p1: u32, p2: u32) -> Node {
        let mut n = Node::default();
        for i in 0..visits {
            n.record(if i < p1 {
                Outcome::P1Win
            } else if i < p1 + p2 {
                Outcome::P2Win
            } else {
                Outcome::Draw
            });
        }
        n
    }

    /// The table-driven formula equals the paper's formula computed directly.
    #[test]
    fn ucb_matches_the_formula() {
        let cp = 0.7;
        let ucb = Ucb::new(cp);
        let mut rng = Rng::new(0);
        let parent = 1000u32;
        let children = [
            node(10, 7, 2),
            node(100, 40, 50),
            node(70_000, 1, 2),
            node(3, 0, 3),
        ];
        for viewer in [Player::P1, Player::P2] {
            let direct: Vec<f64> = children
                .iter()
                .map(|c| {
                    let x = c.net_wins(viewer) as f64 / c.visits as f64;
                    x + 2.0 * cp * (2.0 * (parent as f64).ln() / c.visits as f64).sqrt()
                })
                .collect();
            let best = (0..children.len())
                .max_by(|&a, &b| direct[a].partial_cmp(&direct[b]).unwrap())
                .unwrap();
            assert_eq!(ucb.select(parent, &children, viewer, &mut rng), best);
        }
    }

    #[test]
    fn viewer_flips_the_preference() {
        let ucb = Ucb::new(0.01);
        let mut rng = Rng::new(0);
        let children = [node(100, 90, 10), node(100, 10, 90)];
        assert_eq!(ucb.select(200, &children, Player::P1, &mut rng), 0);
        assert_eq!(ucb.select(200, &children, Player::P2, &mut rng), 1);
    }

    #[test]
    fn ties_are_broken_at_random() {
        let ucb = Ucb::default();
        let mut rng = Rng::new(9);
        let children = [node(5, 2, 2); 4];
        let mut counts = [0; 4];
        for _ in 0..4000 {
            counts[ucb.select(20, &children, Player::P1, &mut rng)] += 1;
        }
        for c in counts {
            assert!((800..1200).contains(&c), "{counts:?}");
        }
    }
}
