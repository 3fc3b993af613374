//! The search tree: nodes in one arena, children side by side, and the two numbers selection
//! reads of every child (its mean and 1/sqrt(visits)) in arrays of their own, so the selection
//! loop runs over contiguous floats that the compiler vectorises. 28 bytes a node in all.

use crate::game::{Action, Outcome, Player};

/// One node of the tree, for the position reached by `action` from its parent.
///
/// Results are kept in absolute terms, a counter for P1's wins and one for P2's (the paper's
/// double counter; draws are `visits - p1_wins - p2_wins`), so the same node can be read from
/// either player's point of view: the selection reads it from the view of the player who chooses
/// at the parent, who may be the same player as at the child.
///
/// A rollout policy that backs up fractional rewards (an evaluation's expectation) counts each
/// as a win for the side it favours; the mean reward is then kept by the [`Tree`] alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub visits: u32,
    pub p1_wins: u32,
    pub p2_wins: u32,
    /// Index of the first child in the arena; 0 means not expanded (index 0 is the root, which
    /// is nobody's child). Children are `first_child .. first_child + num_children`.
    pub first_child: u32,
    pub num_children: u16,
    /// The action that leads from the parent to this node.
    pub action: Action,
}

/// Bytes one tree node takes: the node and its two selection floats.
pub const BYTES_PER_NODE: usize = std::mem::size_of::<Node>() + 2 * std::mem::size_of::<f32>();

impl Node {
    #[inline]
    pub fn leaf(action: Action) -> Node {
        Node {
            action,
            ..Node::default()
        }
    }

    #[inline]
    pub fn is_expanded(&self) -> bool {
        self.first_child != 0
    }

    /// Wins minus losses from `viewer`'s point of view.
    #[inline]
    pub fn net_wins(&self, viewer: Player) -> i64 {
        let d = self.p1_wins as i64 - self.p2_wins as i64;
        match viewer {
            Player::P1 => d,
            Player::P2 => -d,
        }
    }

    /// Counts one visit, as a win for the side `reward` favours.
    #[inline]
    pub fn record(&mut self, reward: Reward) {
        self.visits += 1;
        if reward.p1 > 0.0 {
            self.p1_wins += 1;
        } else if reward.p1 < 0.0 {
            self.p2_wins += 1;
        }
    }
}

/// What one iteration backs up: its result from P1's view in [-1, 1] (a win 1, a loss -1, a
/// draw 0, an evaluation's expectation anywhere between).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reward {
    pub p1: f32,
}

impl Reward {
    /// P1's expected result when P1 wins with probability `p1_wins` and never draws.
    #[inline]
    pub fn from_win_probability(p1_wins: f32) -> Reward {
        Reward {
            p1: (2.0 * p1_wins - 1.0).clamp(-1.0, 1.0),
        }
    }
}

impl From<Outcome> for Reward {
    #[inline]
    fn from(outcome: Outcome) -> Reward {
        let p1 = match outcome {
            Outcome::P1Win => 1.0,
            Outcome::P2Win => -1.0,
            Outcome::Draw => 0.0,
        };
        Reward { p1 }
    }
}

/// The children of one node as selection sees them.
#[derive(Clone, Copy)]
pub struct Children<'a> {
    pub nodes: &'a [Node],
    /// Per child, `(p1_wins - p2_wins) / visits`.
    pub mean_p1: &'a [f32],
    /// Per child, `1 / sqrt(visits)`.
    pub inv_sqrt_visits: &'a [f32],
    /// Per child, a constant the tree policy adds to its value for the player choosing at the
    /// parent (a heuristic's term added to UCT); empty when
    /// the search has none.
    pub bias: &'a [f32],
}

/// The arena: node `i` is `nodes[i]`, with `mean_p1[i]` and `inv_sqrt_visits[i]` kept up to date
/// by [`Tree::record`] so that selection, which reads every child of every node on the path,
/// does no division.
#[derive(Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    /// The mean reward from P1's view.
    mean_p1: Vec<f32>,
    inv_sqrt_visits: Vec<f32>,
    /// Whether nodes carry a selection bias (kept in `bias`, else empty).
    biased: bool,
    bias: Vec<f32>,
}

impl Tree {
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.mean_p1.clear();
        self.inv_sqrt_visits.clear();
        self.bias.clear();
    }

    /// Whether nodes carry a selection bias ([`set_bias`](Self::set_bias)); the tree must be
    /// empty.
    pub fn set_biased(&mut self, on: bool) {
        debug_assert!(self.is_empty());
        self.biased = on;
    }

    /// Sets node `i`'s selection bias (for the player choosing at its parent).
    #[inline]
    pub fn set_bias(&mut self, i: usize, value: f32) {
        self.bias[i] = value;
    }

    /// Node `i`'s selection bias, when the tree keeps them.
    pub fn bias(&self, i: usize) -> Option<f32> {
        self.biased.then(|| self.bias[i])
    }

    pub fn reserve(&mut self, nodes: usize) {
        let more = nodes.saturating_sub(self.nodes.len());
        self.nodes.reserve(more);
        self.mean_p1.reserve(more);
        self.inv_sqrt_visits.reserve(more);
        if self.biased {
            self.bias.reserve(more);
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    #[inline]
    pub fn push(&mut self, node: Node) {
        self.nodes.push(node);
        self.mean_p1.push(0.0);
        self.inv_sqrt_visits.push(f32::INFINITY);
        if self.biased {
            self.bias.push(0.0);
        }
    }

    /// Adds one result to node `i`. With `fractional` the mean moves by the reward itself
    /// (kept incrementally); without, every reward is a result (1, 0 or -1) and the mean is
    /// computed exactly from the counts.
    #[inline]
    pub fn record(&mut self, i: usize, reward: impl Into<Reward>, fractional: bool) {
        let reward = reward.into();
        self.nodes[i].record(reward);
        let node = self.nodes[i];
        let n = node.visits as f32;
        self.mean_p1[i] = if fractional {
            let mean = self.mean_p1[i];
            mean + (reward.p1 - mean) / n
        } else {
            (node.p1_wins as f32 - node.p2_wins as f32) / n
        };
        self.inv_sqrt_visits[i] = 1.0 / n.sqrt();
    }

    /// The node reached from the root by `path` (actions), if the tree holds it.
    pub fn follow(&self, path: &[Action]) -> Option<usize> {
        let mut index = 0;
        self.nodes.first()?;
        for &action in path {
            let node = self.nodes[index];
            if !node.is_expanded() {
                return None;
            }
            let first = node.first_child as usize;
            let offset = self.nodes[first..first + node.num_children as usize]
                .iter()
                .position(|c| c.action == action)?;
            index = first + offset;
        }
        Some(index)
    }

    /// Keeps only the subtree under node `root`, which becomes node 0, every node's statistics
    /// and its children's order as they were. `scratch` is a buffer (left holding the old tree).
    pub fn reroot(&mut self, root: usize, scratch: &mut Tree) {
        scratch.clear();
        scratch.copy_node_from(self, root);
        let mut next = 0;
        // Breadth first: the children of each copied node are copied side by side.
        while next < scratch.len() {
            let old = scratch.nodes[next];
            if old.is_expanded() {
                let first = old.first_child as usize;
                let new_first = scratch.len();
                for i in first..first + old.num_children as usize {
                    scratch.copy_node_from(self, i);
                }
                scratch.nodes[next].first_child = new_first as u32;
            }
            next += 1;
        }
        std::mem::swap(self, scratch);
    }

    fn copy_node_from(&mut self, other: &Tree, i: usize) {
        self.nodes.push(other.nodes[i]);
        self.mean_p1.push(other.mean_p1[i]);
        self.inv_sqrt_visits.push(other.inv_sqrt_visits[i]);
        self.biased = other.biased;
        if other.biased {
            self.bias.push(other.bias[i]);
        }
    }

    /// The mean reward of node `i` from P1's view (0 before its first visit).
    #[inline]
    pub fn mean_p1(&self, i: usize) -> f32 {
        self.mean_p1[i]
    }

    /// The `count` children starting at `first`.
    #[inline]
    pub fn children(&self, first: usize, count: usize) -> Children<'_> {
        let range = first..first + count;
        Children {
            nodes: &self.nodes[range.clone()],
            mean_p1: &self.mean_p1[range.clone()],
            inv_sqrt_visits: &self.inv_sqrt_visits[range.clone()],
            bias: if self.biased { &self.bias[range] } else { &[] },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_is_twenty_eight_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 20);
        assert_eq!(BYTES_PER_NODE, 28);
    }

    #[test]
    fn net_wins_reads_both_views() {
        let mut n = Node::leaf(3);
        for o in [
            Outcome::P1Win,
            Outcome::P1Win,
            Outcome::P2Win,
            Outcome::Draw,
        ] {
            n.record(o.into());
        }
        assert_eq!(n.visits, 4);
        assert_eq!((n.p1_wins, n.p2_wins), (2, 1));
        assert_eq!(n.net_wins(Player::P1), 1);
        assert_eq!(n.net_wins(Player::P2), -1);
    }

    /// Rerooting keeps the subtree's statistics and shape and drops the rest.
    #[test]
    fn reroot_keeps_the_subtree() {
        // 0 -> (1: a=10, 2: a=11); 2 -> (3: a=20, 4: a=21); 4 -> (5: a=30).
        let mut t = Tree::default();
        for a in [0, 10, 11, 20, 21, 30] {
            t.push(Node::leaf(a));
        }
        for (parent, first, count) in [(0, 1, 2), (2, 3, 2), (4, 5, 1)] {
            t.nodes[parent].first_child = first;
            t.nodes[parent].num_children = count;
        }
        for (i, o) in [
            (2, Outcome::P1Win),
            (4, Outcome::P2Win),
            (4, Outcome::P2Win),
            (5, Outcome::Draw),
        ] {
            t.record(i, o, false);
        }
        assert_eq!(t.follow(&[11, 21, 30]), Some(5));
        assert_eq!(t.follow(&[11, 22]), None);
        assert_eq!(t.follow(&[10, 20]), None, "node 1 is not expanded");
        let mut scratch = Tree::default();
        t.reroot(t.follow(&[11]).unwrap(), &mut scratch);
        assert_eq!(t.len(), 4);
        assert_eq!(t.nodes[0].visits, 1);
        assert_eq!(t.follow(&[21, 30]), Some(3));
        assert_eq!((t.nodes[2].visits, t.nodes[2].p2_wins), (2, 2));
        assert_eq!(t.children(1, 2).mean_p1[1], -1.0);
        assert_eq!(t.children(3, 1).nodes[0].visits, 1);
    }

    /// An evaluation's expectation moves the mean by its size and counts for the side it favours.
    #[test]
    fn fractional_rewards_count_for_the_side_they_favour() {
        let mut t = Tree::default();
        t.push(Node::leaf(0));
        t.record(0, Reward::from_win_probability(0.75), true);
        t.record(0, Reward::from_win_probability(0.5), true);
        t.record(0, Reward::from_win_probability(0.0), true);
        let n = t.nodes[0];
        assert_eq!((n.visits, n.p1_wins, n.p2_wins), (3, 1, 1));
        assert!((t.mean_p1(0) - (-0.5 / 3.0)).abs() < 1e-6);
    }

    #[test]
    fn tree_keeps_the_selection_floats() {
        let mut t = Tree::default();
        t.push(Node::leaf(0));
        t.push(Node::leaf(1));
        for o in [
            Outcome::P1Win,
            Outcome::P1Win,
            Outcome::P2Win,
            Outcome::Draw,
        ] {
            t.record(1, o, false);
        }
        let c = t.children(1, 1);
        assert_eq!(c.nodes[0].visits, 4);
        assert_eq!(c.mean_p1[0], 0.25);
        assert_eq!(c.inv_sqrt_visits[0], 0.5);
    }
}
