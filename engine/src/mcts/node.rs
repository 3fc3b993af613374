//! The search tree's node: 28 bytes, children stored side by side in one arena.

use crate::game::{Action, Outcome, Player};

/// One node of the tree, for the position reached by `action` from its parent.
///
/// Results are kept in absolute terms, a counter for P1's wins and one for P2's (the paper's
/// double counter; draws are `visits - p1_wins - p2_wins`), so the same node can be read from
/// either player's point of view: the selection reads it from the view of the player who chooses
/// at the parent, who may be the same player as at the child.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
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
    /// `(p1_wins - p2_wins) / visits`, kept up to date by [`Node::record`] so that selection,
    /// which reads every child of every node on the path, does no division.
    pub mean_p1: f32,
    /// `1 / sqrt(visits)`, for the same reason.
    pub inv_sqrt_visits: f32,
}

/// Bytes one tree node takes.
pub const BYTES_PER_NODE: usize = std::mem::size_of::<Node>();

impl Node {
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

    #[inline]
    pub fn record(&mut self, outcome: Outcome) {
        self.visits += 1;
        match outcome {
            Outcome::P1Win => self.p1_wins += 1,
            Outcome::P2Win => self.p2_wins += 1,
            Outcome::Draw => {}
        }
        let n = self.visits as f32;
        self.mean_p1 = (self.p1_wins as f32 - self.p2_wins as f32) / n;
        self.inv_sqrt_visits = 1.0 / n.sqrt();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_is_twenty_eight_bytes() {
        assert_eq!(BYTES_PER_NODE, 28);
    }

    #[test]
    fn net_wins_reads_both_views() {
        let mut n = Node::leaf(3);
        n.record(Outcome::P1Win);
        n.record(Outcome::P1Win);
        n.record(Outcome::P2Win);
        n.record(Outcome::Draw);
        assert_eq!(n.visits, 4);
        assert_eq!(n.net_wins(Player::P1), 1);
        assert_eq!(n.net_wins(Player::P2), -1);
        assert_eq!(n.mean_p1, 0.25);
        assert_eq!(n.inv_sqrt_visits, 0.5);
    }
}
