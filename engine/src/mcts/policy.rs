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

/// Visit counts up to this bound read 1/n, 1/sqrt(n) and sqrt(ln n) from tables.
const TABLE_SIZE: usize = 1 << 16;

struct UcbTables {
    /// `[1/n, 1/sqrt(n)]` per visit count n (entry 0 unused).
    child: Vec<[f32; 2]>,
    /// `sqrt(ln n)` per parent visit count n.
    parent: Vec<f32>,
}

fn tables() -> &'static UcbTables {
    static TABLES: OnceLock<UcbTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut child = vec![[0.0f32; 2]; TABLE_SIZE];
        let mut parent = vec![0.0f32; TABLE_SIZE];
        for n in 1..TABLE_SIZE {
            let x = n as f64;
            child[n] = [(1.0 / x) as f32, (1.0 / x.sqrt()) as f32];
            parent[n] = x.ln().sqrt() as f32;
        }
        UcbTables { child, parent }
    })
}

/// The paper's UCB (section 5.1): `X_j + 2 Cp sqrt(2 ln n / n_j)`, where `X_j` is the child's
/// wins minus losses over its visits from the viewer's side (the double counter), in [-1, 1].
///
/// Default `Cp = sqrt(2)`: Kocsis and Szepesvari's `Cp = 1/sqrt(2)` satisfies the Hoeffding bound
/// for rewards in [0, 1]; the double counter's `X_j` spans [-1, 1], twice that range, so the
/// equivalent constant is doubled, which is the 1.41 the paper reports.
///
/// No logarithm, square root or division per child: `sqrt(ln n)` is taken once per parent and
/// `1/n_j`, `1/sqrt(n_j)` come from tables. Exact ties are broken uniformly at random.
#[derive(Clone, Copy, Debug)]
pub struct Ucb {
    /// `2 * Cp * sqrt(2)`.
    scale: f32,
}

impl Ucb {
    pub const DEFAULT_CP: f64 = std::f64::consts::SQRT_2;

    pub fn new(cp: f64) -> Ucb {
        tables();
        Ucb {
            scale: (2.0 * cp * std::f64::consts::SQRT_2) as f32,
        }
    }

    #[inline]
    fn child_terms(n: u32) -> [f32; 2] {
        if (n as usize) < TABLE_SIZE {
            tables().child[n as usize]
        } else {
            let x = n as f32;
            [1.0 / x, 1.0 / x.sqrt()]
        }
    }

    #[inline]
    fn parent_term(n: u32) -> f32 {
        if (n as usize) < TABLE_SIZE {
            tables().parent[n as usize]
        } else {
            (n as f32).ln().sqrt()
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
        let explore = self.scale * Self::parent_term(parent_visits);
        let sign = match viewer {
            Player::P1 => 1.0f32,
            Player::P2 => -1.0f32,
        };
        let mut best = f32::NEG_INFINITY;
        let mut best_index = 0;
        let mut ties = 0u32;
        for (i, child) in children.iter().enumerate() {
            let [inv, inv_sqrt] = Self::child_terms(child.visits);
            let net = sign * (child.p1_wins as f32 - child.p2_wins as f32);
            let ucb = net * inv + explore * inv_sqrt;
            if ucb > best {
                best = ucb;
                best_index = i;
                ties = 1;
            } else if ucb == best {
                ties += 1;
                if rng.below(ties) == 0 {
                    best_index = i;
                }
            }
        }
        best_index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(visits: u32, p1: u32, p2: u32) -> Node {
        Node {
            visits,
            p1_wins: p1,
            p2_wins: p2,
            ..Node::default()
        }
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
