//! Tree policies (how a child is chosen during selection) and rollout policies (how a leaf is
//! played out). Both are traits so that heuristics and the value net can plug in later.

use std::sync::OnceLock;

use super::node::{Children, Reward};
use crate::game::{Action, Game, Outcome, Player};
use crate::rng::Rng;

/// Chooses the child to descend into once every child has been visited at least once.
pub trait TreePolicy: Clone + Send + Sync {
    /// Index into `children` of the child to follow. `viewer` is the player whose results count
    /// (the player to move at the parent with the double counter, the root player with the
    /// single counter). Every child has `visits > 0`.
    fn select(
        &self,
        parent_visits: u32,
        children: Children<'_>,
        viewer: Player,
        rng: &mut Rng,
    ) -> usize;
}

/// Plays a leaf position out and returns the outcome to back up.
///
/// Each search thread has its own clone. A search calls [`begin_search`](Self::begin_search)
/// once with the root, then `rollout` once per iteration that does not end in the tree, then
/// [`take_stats`](Self::take_stats).
pub trait RolloutPolicy<G: Game>: Clone + Send {
    /// Prepares for a search from `root` (a policy may cache what every rollout shares).
    #[inline]
    fn begin_search(&mut self, _root: &G) {}

    /// The fingerprint of a net the policy asks (as [`Agent::knowledge`](crate::agents::Agent::knowledge)).
    fn knowledge(&self) -> Option<String> {
        None
    }

    /// Plays `state` (a leaf of the tree) out, or stops early, and returns the outcome to back up.
    fn rollout(&mut self, state: &mut G, rng: &mut Rng) -> Outcome;

    /// Whether [`rollout_reward`](Self::rollout_reward) or
    /// [`child_rewards`](Self::child_rewards) may give rewards strictly between the results;
    /// the tree then keeps its means incrementally instead of from the win counts.
    const FRACTIONAL: bool = false;

    /// Whether this policy, with its settings, gives fractional rewards: by default
    /// [`FRACTIONAL`](Self::FRACTIONAL). A policy whose rewards are fractional under some
    /// settings only says so here, so that under the others the tree keeps its means from the
    /// win counts exactly as before.
    #[inline]
    fn fractional(&self) -> bool {
        Self::FRACTIONAL
    }

    /// What the search backs up for a leaf: the rollout's outcome, unless the policy ends in an
    /// evaluation whose expectation it backs up instead (then [`FRACTIONAL`](Self::FRACTIONAL)).
    #[inline]
    fn rollout_reward(&mut self, state: &mut G, rng: &mut Rng) -> Reward {
        self.rollout(state, rng).into()
    }

    /// Rewards for every child of a node being expanded (`actions`, the moves from `state`),
    /// into `out` in the same order, or `false` (the default) to leave expansion as it is.
    ///
    /// With rewards the search puts the children in the order of their reward for the player
    /// to move (best first), records each reward as the child's first visit, and backs up the
    /// best of them instead of playing a rollout: every iteration looks one ply ahead of the
    /// tree with the policy's evaluation, and selection starts from an informed order.
    #[inline]
    fn child_rewards(&mut self, _state: &G, _actions: &[Action], _out: &mut Vec<Reward>) -> bool {
        false
    }

    /// Narrows the moves a node being expanded gets (`actions`, every legal move of `state`):
    /// a game's knowledge of which moves are worth searching (candidates near the
    /// pieces, forced replies). It must leave at least one. By default all stay.
    #[inline]
    fn restrict(&mut self, _state: &G, _actions: &mut Vec<Action>) {}

    /// Whether [`child_bias`](Self::child_bias) gives selection biases (the tree then keeps
    /// one per node).
    #[inline]
    fn gives_bias(&self) -> bool {
        false
    }

    /// Selection biases for the children of a node being expanded (`actions`, the moves from
    /// `state`), into `out` in the same order: a constant the tree policy adds to each child's
    /// value for the player to move at `state` (a heuristic's term). Called only
    /// when [`gives_bias`](Self::gives_bias).
    #[inline]
    fn child_bias(&mut self, _state: &G, _actions: &[Action], _out: &mut Vec<f32>) {}

    /// What the rollouts since the last call did, and resets the counts.
    #[inline]
    fn take_stats(&mut self) -> RolloutStats {
        RolloutStats::default()
    }
}

/// Counts kept by a rollout policy over one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RolloutStats {
    /// Rollouts played (iterations whose leaf was not a finished game).
    pub rollouts: u64,
    /// Value-net evaluations.
    pub net_evaluations: u64,
    /// Rollouts the net ended because an output reached the threshold: the paper's
    /// "good predictions" (its Table 5).
    pub net_cutoffs: u64,
}

impl RolloutStats {
    pub fn add(&mut self, other: RolloutStats) {
        self.rollouts += other.rollouts;
        self.net_evaluations += other.net_evaluations;
        self.net_cutoffs += other.net_cutoffs;
    }
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

#[inline]
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
    /// Children's biases fade as `1 / (visits + 1)` (progressive bias) instead of staying.
    progressive: bool,
}

impl Ucb {
    pub const DEFAULT_CP: f64 = std::f64::consts::SQRT_2;

    pub fn new(cp: f64) -> Ucb {
        Ucb {
            scale: (2.0 * cp * std::f64::consts::SQRT_2) as f32,
            sqrt_ln: sqrt_ln_table(),
            progressive: false,
        }
    }

    /// Children's biases ([`Children::bias`]) divided by their visits plus one (Chaslot et
    /// al.'s progressive bias) instead of added whole at every visit.
    pub fn with_progressive_bias(mut self, on: bool) -> Ucb {
        self.progressive = on;
        self
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

/// Lanes of the selection loop: eight independent running maxima the compiler keeps in vector
/// registers (no NaN can occur, so `if u > m` is exactly `maxps`).
const LANES: usize = 8;

impl TreePolicy for Ucb {
    #[inline]
    fn select(
        &self,
        parent_visits: u32,
        children: Children<'_>,
        viewer: Player,
        rng: &mut Rng,
    ) -> usize {
        let explore = self.scale * self.parent_term(parent_visits);
        let sign = match viewer {
            Player::P1 => 1.0f32,
            Player::P2 => -1.0f32,
        };
        if !children.bias.is_empty() {
            return select_biased(children, sign, explore, self.progressive, rng);
        }
        let means = children.mean_p1;
        let inv_sqrts = &children.inv_sqrt_visits[..means.len()];
        // The same expression in both passes, so equal inputs give bit-equal values.
        let ucb = |mean: f32, inv_sqrt: f32| sign * mean + explore * inv_sqrt;
        // Pass 1: the maximum.
        let mut lanes = [f32::NEG_INFINITY; LANES];
        let mut mean_chunks = means.chunks_exact(LANES);
        let mut sqrt_chunks = inv_sqrts.chunks_exact(LANES);
        for (m, q) in (&mut mean_chunks).zip(&mut sqrt_chunks) {
            for k in 0..LANES {
                let u = ucb(m[k], q[k]);
                lanes[k] = if u > lanes[k] { u } else { lanes[k] };
            }
        }
        let mut best = lanes
            .iter()
            .fold(f32::NEG_INFINITY, |a, &b| if b > a { b } else { a });
        for (&m, &q) in mean_chunks.remainder().iter().zip(sqrt_chunks.remainder()) {
            let u = ucb(m, q);
            best = if u > best { u } else { best };
        }
        // Pass 2: how many children hold it (almost always one), then the chosen one of them,
        // uniformly at random when several tie.
        let ties: u32 = means
            .iter()
            .zip(inv_sqrts)
            .map(|(&m, &q)| (ucb(m, q) == best) as u32)
            .sum();
        let mut wanted = if ties > 1 { rng.below(ties) } else { 0 };
        for (i, (&m, &q)) in means.iter().zip(inv_sqrts).enumerate() {
            if ucb(m, q) == best {
                if wanted == 0 {
                    return i;
                }
                wanted -= 1;
            }
        }
        unreachable!("the maximum is held by some child")
    }
}

/// UCB plus each child's bias, in one plain pass (the biased trees' nodes have a few dozen
/// children); exact ties broken uniformly at random.
fn select_biased(
    children: Children<'_>,
    sign: f32,
    explore: f32,
    progressive: bool,
    rng: &mut Rng,
) -> usize {
    let value = |i: usize| {
        let bias = if progressive {
            children.bias[i] / (children.nodes[i].visits + 1) as f32
        } else {
            children.bias[i]
        };
        sign * children.mean_p1[i] + explore * children.inv_sqrt_visits[i] + bias
    };
    best_of(children.mean_p1.len(), value, rng)
}

/// The index in `0..n` of the largest `value`, exact ties broken uniformly at random.
#[inline]
fn best_of(n: usize, value: impl Fn(usize) -> f32, rng: &mut Rng) -> usize {
    let (mut best, mut ties, mut pick) = (f32::NEG_INFINITY, 0u32, 0usize);
    for i in 0..n {
        let v = value(i);
        if v > best {
            (best, ties, pick) = (v, 1, i);
        } else if v == best {
            // Reservoir sampling: the k-th holder replaces the pick with probability 1/k.
            ties += 1;
            if rng.below(ties) == 0 {
                pick = i;
            }
        }
    }
    pick
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::mcts::node::{Node, Tree};

    /// A tree of one root and these children, each given as (visits, P1 wins, P2 wins).
    fn tree(children: &[(u32, u32, u32)]) -> Tree {
        tree_biased(children, false)
    }

    /// The same, its nodes carrying biases (all 0) when `biased`.
    fn tree_biased(children: &[(u32, u32, u32)], biased: bool) -> Tree {
        let mut t = Tree::default();
        t.set_biased(biased);
        t.push(Node::leaf(0));
        for (i, &(visits, p1, p2)) in children.iter().enumerate() {
            t.push(Node::leaf(i as u16));
            for v in 0..visits {
                let o = if v < p1 {
                    Outcome::P1Win
                } else if v < p1 + p2 {
                    Outcome::P2Win
                } else {
                    Outcome::Draw
                };
                t.record(i + 1, o, false);
            }
        }
        t
    }

    fn select(ucb: &Ucb, parent: u32, t: &Tree, viewer: Player, rng: &mut Rng) -> usize {
        ucb.select(parent, t.children(1, t.len() - 1), viewer, rng)
    }

    /// The cached, vectorised formula picks what the paper's formula computed directly picks.
    #[test]
    fn ucb_matches_the_formula() {
        let cp = 0.7;
        let ucb = Ucb::new(cp);
        let mut rng = Rng::new(0);
        let parent = 1000u32;
        // More than eight children, so both the vector lanes and the remainder are exercised.
        let spec = [
            (10, 7, 2),
            (100, 40, 50),
            (70_000, 1, 2),
            (3, 0, 3),
            (17, 9, 8),
            (40, 1, 30),
            (5, 5, 0),
            (900, 450, 300),
            (12, 2, 9),
            (2, 1, 1),
            (64, 30, 33),
        ];
        let t = tree(&spec);
        let children = &t.nodes[1..];
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
            assert_eq!(select(&ucb, parent, &t, viewer, &mut rng), best);
        }
    }

    /// A child's bias is added to its UCB value for the player choosing, whoever that is;
    /// trees without biases give selection an empty slice.
    #[test]
    fn biases_add_to_the_choosers_value() {
        let ucb = Ucb::new(0.01);
        let mut rng = Rng::new(0);
        let mut t = Tree::default();
        t.set_biased(true);
        t.push(Node::leaf(0));
        t.nodes[0].first_child = 1;
        t.nodes[0].num_children = 2;
        for (i, p1_wins) in [(1, 60), (2, 50)] {
            t.push(Node::leaf(i as u16));
            for v in 0..100 {
                let o = if v < p1_wins {
                    Outcome::P1Win
                } else {
                    Outcome::P2Win
                };
                t.record(i, o, false);
            }
        }
        // P1 prefers child 0 by 0.2 in mean; a bias of 0.3 on child 1 turns it round.
        assert_eq!(select(&ucb, 200, &t, Player::P1, &mut rng), 0);
        t.set_bias(2, 0.3);
        assert_eq!(t.bias(2), Some(0.3));
        assert_eq!(select(&ucb, 200, &t, Player::P1, &mut rng), 1);
        // P2 already preferred child 1; the bias is P2's now and changes nothing.
        assert_eq!(select(&ucb, 200, &t, Player::P2, &mut rng), 1);
        t.set_bias(1, 0.6);
        assert_eq!(select(&ucb, 200, &t, Player::P2, &mut rng), 0);
        // Rerooting keeps the biases.
        let mut scratch = Tree::default();
        t.reroot(0, &mut scratch);
        assert_eq!(t.bias(1), Some(0.6));
        assert!(Tree::default().children(0, 0).bias.is_empty());
    }

    #[test]
    fn viewer_flips_the_preference() {
        let ucb = Ucb::new(0.01);
        let mut rng = Rng::new(0);
        let t = tree(&[(100, 90, 10), (100, 10, 90)]);
        assert_eq!(select(&ucb, 200, &t, Player::P1, &mut rng), 0);
        assert_eq!(select(&ucb, 200, &t, Player::P2, &mut rng), 1);
    }

    #[test]
    fn ties_are_broken_at_random() {
        let ucb = Ucb::default();
        let mut rng = Rng::new(9);
        // Nine equal children and one worse: the ties span the vector lanes and the remainder.
        let mut spec = vec![(5, 2, 2); 9];
        spec.insert(4, (5, 0, 4));
        let t = tree(&spec);
        let mut counts = [0; 10];
        for _ in 0..9000 {
            counts[select(&ucb, 20, &t, Player::P1, &mut rng)] += 1;
        }
        assert_eq!(counts[4], 0);
        counts[4] = 1000;
        for c in counts {
            assert!((800..1200).contains(&c), "{counts:?}");
        }
    }
}
