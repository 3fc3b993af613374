//! The search tree: nodes in one arena, children side by side, and the two numbers selection
//! reads of every child (its mean and 1/sqrt(visits)) in arrays of their own, so the selection
//! loop runs over contiguous floats that the compiler vectorises. 28 bytes a node in all.

use crate::game::{Action, Outcome, Player};
use crate::key_hash::KeyMap;

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
///
/// With implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant, 2014) each node also
/// keeps a minimax value of the rewards of the tree below it (a leaf's is its first reward, an
/// expanded node's the best of its visited children's for the player to move there), and the
/// value selection reads is `(1 - alpha) * mean + alpha * minimax`.
#[derive(Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    /// What selection reads: the mean reward from P1's view, blended with the minimax value
    /// when `alpha > 0`.
    mean_p1: Vec<f32>,
    inv_sqrt_visits: Vec<f32>,
    /// The weight of the minimax value (0: plain means, and the two arrays below stay empty).
    alpha: f32,
    /// The plain mean reward from P1's view, when `mean_p1` is blended.
    mc_p1: Vec<f32>,
    /// The minimax value from P1's view.
    minimax_p1: Vec<f32>,
    /// Whether nodes carry a selection bias (kept in `bias`, else empty).
    biased: bool,
    bias: Vec<f32>,
    /// Whether nodes of one position share their results (transpositions; see
    /// [`set_shared`](Self::set_shared)).
    shared: bool,
    /// Per node, its position's entry in `entries` ([`NO_ENTRY`] before it is linked).
    entry_of: Vec<u32>,
    entries: Vec<SharedStats>,
    entry_index: KeyMap<u64, u32>,
}

/// A node not linked to a position's shared statistics.
const NO_ENTRY: u32 = u32::MAX;

/// The results of every visit to one position, by whichever path it was reached.
#[derive(Clone, Copy)]
struct SharedStats {
    /// The position's transposition key.
    key: u64,
    visits: u32,
    sum_p1: f64,
}

impl Tree {
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.mean_p1.clear();
        self.inv_sqrt_visits.clear();
        self.mc_p1.clear();
        self.minimax_p1.clear();
        self.bias.clear();
        self.entry_of.clear();
        self.entries.clear();
        self.entry_index.clear();
    }

    /// Sets the weight of implicit minimax backups (0 turns them off); the tree must be empty.
    pub fn set_minimax_weight(&mut self, alpha: f32) {
        debug_assert!(self.is_empty());
        self.alpha = alpha.clamp(0.0, 1.0);
    }

    /// Whether nodes carry a selection bias ([`set_bias`](Self::set_bias)); the tree must be
    /// empty.
    pub fn set_biased(&mut self, on: bool) {
        debug_assert!(self.is_empty());
        self.biased = on;
    }

    /// Whether nodes reached by different paths at one position share their results (the
    /// tree must be empty). Each node keeps its own visits and results (what the exploration
    /// term, the root's choice and tree reuse read) and is linked by
    /// [`link`](Self::link) to its position's shared results, whose mean selection reads
    /// ([`refresh_shared`](Self::refresh_shared)): the value of a move counts every visit to
    /// the position it leads to, as UCT with a transposition table does (Childs, Brodeur and
    /// Kocsis, "Transpositions and move groups in Monte Carlo tree search", 2008). Not with
    /// implicit minimax backups. It costs about 40 bytes a node more (the own mean, the link,
    /// the position's results and its index), which the tree's byte figures leave out.
    pub fn set_shared(&mut self, on: bool) {
        debug_assert!(self.is_empty());
        debug_assert!(
            !(on && self.blends()),
            "shared results with minimax backups"
        );
        self.shared = on;
    }

    /// Links node `i` to the shared results of the position with transposition key `key`,
    /// once (later calls leave it linked as it is).
    #[inline]
    pub fn link(&mut self, i: usize, key: u64) {
        if !self.shared || self.entry_of[i] != NO_ENTRY {
            return;
        }
        let fresh = SharedStats {
            key,
            visits: 0,
            sum_p1: 0.0,
        };
        let entry = self.entry_for(fresh);
        self.entry_of[i] = entry;
        // Visits the node had before it was linked (an evaluated expansion's) count too.
        let visits = self.nodes[i].visits;
        if visits > 0 {
            let sum = self.mean_p1(i) as f64 * visits as f64;
            let stats = &mut self.entries[entry as usize];
            stats.visits += visits;
            stats.sum_p1 += sum;
        }
    }

    /// Whether node `i` is still to be linked to its position's shared results.
    #[inline]
    pub fn needs_link(&self, i: usize) -> bool {
        self.shared && self.entry_of[i] == NO_ENTRY
    }

    /// Positions with shared results.
    pub fn shared_positions(&self) -> usize {
        self.entries.len()
    }

    /// Sets what selection reads of the `count` children from `first` to their positions'
    /// shared means (a child not linked yet keeps its own).
    #[inline]
    pub fn refresh_shared(&mut self, first: usize, count: usize) {
        if !self.shared {
            return;
        }
        for i in first..first + count {
            let entry = self.entry_of[i];
            self.mean_p1[i] = match self.entries.get(entry as usize) {
                Some(stats) if stats.visits > 0 => (stats.sum_p1 / stats.visits as f64) as f32,
                _ => self.mc_p1[i],
            };
        }
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

    #[inline]
    fn blends(&self) -> bool {
        self.alpha > 0.0
    }

    /// Whether a node's own mean is kept apart (in `mc_p1`) from what selection reads.
    #[inline]
    fn keeps_own_mean(&self) -> bool {
        self.blends() || self.shared
    }

    pub fn reserve(&mut self, nodes: usize) {
        let more = nodes.saturating_sub(self.nodes.len());
        self.nodes.reserve(more);
        self.mean_p1.reserve(more);
        self.inv_sqrt_visits.reserve(more);
        if self.keeps_own_mean() {
            self.mc_p1.reserve(more);
        }
        if self.blends() {
            self.minimax_p1.reserve(more);
        }
        if self.shared {
            self.entry_of.reserve(more);
        }
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
        if self.keeps_own_mean() {
            self.mc_p1.push(0.0);
        }
        if self.blends() {
            self.minimax_p1.push(0.0);
        }
        if self.shared {
            self.entry_of.push(NO_ENTRY);
        }
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
        let mean = if fractional {
            let mean = self.mean_p1(i);
            mean + (reward.p1 - mean) / n
        } else {
            (node.p1_wins as f32 - node.p2_wins as f32) / n
        };
        self.inv_sqrt_visits[i] = 1.0 / n.sqrt();
        if self.shared {
            if let Some(stats) = self.entries.get_mut(self.entry_of[i] as usize) {
                stats.visits += 1;
                stats.sum_p1 += reward.p1 as f64;
            }
        }
        if self.keeps_own_mean() {
            self.mc_p1[i] = mean;
        }
        if self.blends() {
            if node.visits == 1 {
                self.minimax_p1[i] = reward.p1;
            }
            self.blend(i);
        } else {
            self.mean_p1[i] = mean;
        }
    }

    #[inline]
    fn blend(&mut self, i: usize) {
        self.mean_p1[i] = (1.0 - self.alpha) * self.mc_p1[i] + self.alpha * self.minimax_p1[i];
    }

    /// Implicit minimax: node `i`'s minimax value becomes the best of its visited children's
    /// for `mover`, the player to move at `i` (a leaf keeps its own).
    #[inline]
    pub fn update_minimax(&mut self, i: usize, mover: Player) {
        let node = self.nodes[i];
        if !self.blends() || !node.is_expanded() {
            return;
        }
        let sign = match mover {
            Player::P1 => 1.0f32,
            Player::P2 => -1.0f32,
        };
        let range =
            node.first_child as usize..node.first_child as usize + node.num_children as usize;
        let mut best = f32::NEG_INFINITY;
        for (child, &value) in self.nodes[range.clone()]
            .iter()
            .zip(&self.minimax_p1[range])
        {
            if child.visits > 0 {
                best = best.max(sign * value);
            }
        }
        if best > f32::NEG_INFINITY {
            self.minimax_p1[i] = sign * best;
            self.blend(i);
        }
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
        if self.shared {
            self.keep_shared_of_nodes(&scratch.entries);
        }
    }

    /// After a reroot: keeps the shared results (`old`, the old tree's) of the positions the
    /// kept nodes link to, renumbered, and forgets the rest, so that a game of reused trees
    /// holds no more positions than its nodes.
    fn keep_shared_of_nodes(&mut self, old: &[SharedStats]) {
        self.entries.clear();
        self.entry_index.clear();
        for i in 0..self.entry_of.len() {
            if let Some(&stats) = old.get(self.entry_of[i] as usize) {
                self.entry_of[i] = self.entry_for(stats);
            }
        }
    }

    /// The entry of `stats.key`'s position: the existing one, else a new one holding `stats`.
    fn entry_for(&mut self, stats: SharedStats) -> u32 {
        let next = self.entries.len() as u32;
        let entry = *self.entry_index.entry(stats.key).or_insert(next);
        if entry == next {
            self.entries.push(stats);
        }
        entry
    }

    fn copy_node_from(&mut self, other: &Tree, i: usize) {
        self.nodes.push(other.nodes[i]);
        self.mean_p1.push(other.mean_p1[i]);
        self.inv_sqrt_visits.push(other.inv_sqrt_visits[i]);
        self.alpha = other.alpha;
        self.shared = other.shared;
        if other.keeps_own_mean() {
            self.mc_p1.push(other.mc_p1[i]);
        }
        if other.blends() {
            self.minimax_p1.push(other.minimax_p1[i]);
        }
        if other.shared {
            self.entry_of.push(other.entry_of[i]);
        }
        self.biased = other.biased;
        if other.biased {
            self.bias.push(other.bias[i]);
        }
    }

    /// The mean reward of node `i` from P1's view (0 before its first visit), without the
    /// minimax blend.
    #[inline]
    pub fn mean_p1(&self, i: usize) -> f32 {
        if self.keeps_own_mean() {
            self.mc_p1[i]
        } else {
            self.mean_p1[i]
        }
    }

    /// The minimax value of node `i` from P1's view, when the tree keeps them.
    pub fn minimax_p1(&self, i: usize) -> Option<f32> {
        self.blends().then(|| self.minimax_p1[i])
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

    /// Implicit minimax: an expanded node's minimax value is the best of its visited children's
    /// for the player to move there; selection reads the blend, reports read the plain mean.
    #[test]
    fn implicit_minimax_blends_the_best_child() {
        let mut t = Tree::default();
        t.set_minimax_weight(0.25);
        for a in 0..4 {
            t.push(Node::leaf(a));
        }
        t.nodes[0].first_child = 1;
        t.nodes[0].num_children = 3;
        t.record(0, Reward { p1: 0.2 }, true);
        // Children 1 and 2 visited, child 3 not: it does not count.
        for (i, p1) in [(1, 0.6), (2, -0.4)] {
            t.record(i, Reward { p1 }, true);
            t.record(0, Reward { p1 }, true);
        }
        let mean = (0.2 + 0.6 - 0.4) / 3.0;
        assert!((t.mean_p1(0) - mean).abs() < 1e-6);
        // P1 to move picks child 1, P2 child 2.
        t.update_minimax(0, Player::P1);
        assert_eq!(t.minimax_p1(0), Some(0.6));
        assert!((t.children(0, 1).mean_p1[0] - (0.75 * mean + 0.25 * 0.6)).abs() < 1e-6);
        t.update_minimax(0, Player::P2);
        assert_eq!(t.minimax_p1(0), Some(-0.4));
        // A leaf keeps its first reward as its minimax value while its mean moves on.
        t.record(1, Reward { p1: -1.0 }, true);
        t.update_minimax(1, Player::P2);
        assert_eq!(t.minimax_p1(1), Some(0.6));
        assert!((t.mean_p1(1) - (-0.2)).abs() < 1e-6);
        // Rerooting keeps the values and the weight.
        let mut scratch = Tree::default();
        t.reroot(0, &mut scratch);
        assert_eq!(t.minimax_p1(2), Some(-0.4));
        // Without a weight the tree keeps no minimax values.
        assert_eq!(Tree::default().minimax_p1(0), None);
    }

    /// Transpositions: two nodes of one position share their results for selection, each
    /// keeps its own counts, a node not linked yet reads its own mean, and rerooting keeps the
    /// shared results.
    #[test]
    fn nodes_of_one_position_share_their_results() {
        let mut t = Tree::default();
        t.set_shared(true);
        for a in 0..4 {
            t.push(Node::leaf(a));
        }
        // Root 0 with children 1..=3; children 1 and 2 reach one position (key 7).
        t.nodes[0].first_child = 1;
        t.nodes[0].num_children = 3;
        t.link(1, 7);
        t.link(2, 7);
        assert!(!t.needs_link(1) && t.needs_link(3));
        assert_eq!(t.shared_positions(), 1);
        t.record(1, Outcome::P1Win, false);
        t.record(1, Outcome::P1Win, false);
        t.record(2, Outcome::P2Win, false);
        t.record(3, Outcome::P2Win, false);
        t.refresh_shared(1, 3);
        let c = t.children(1, 3);
        assert!((c.mean_p1[0] - 1.0 / 3.0).abs() < 1e-6);
        assert!((c.mean_p1[1] - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(c.mean_p1[2], -1.0);
        // Own counts and means are the node's alone.
        assert_eq!((c.nodes[0].visits, c.nodes[1].visits), (2, 1));
        assert_eq!((t.mean_p1(1), t.mean_p1(2)), (1.0, -1.0));
        assert_eq!(c.inv_sqrt_visits[1], 1.0);
        // A second link leaves a node where it was.
        t.link(2, 9);
        assert_eq!(t.shared_positions(), 1);
        // A node linked after its first visits brings them along.
        t.link(3, 8);
        assert_eq!(t.shared_positions(), 2);
        t.refresh_shared(3, 1);
        assert_eq!(t.children(3, 1).mean_p1[0], -1.0);
        // Rerooting at child 2 keeps its shared results and drops the other position's.
        let mut scratch = Tree::default();
        t.reroot(2, &mut scratch);
        assert_eq!(t.shared_positions(), 1);
        t.push(Node::leaf(5));
        t.nodes[0].first_child = 1;
        t.nodes[0].num_children = 1;
        t.link(1, 7);
        t.refresh_shared(1, 1);
        assert!((t.children(1, 1).mean_p1[0] - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(t.shared_positions(), 1);
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
