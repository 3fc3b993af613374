//! Proof-number search over the threat tree of [`ThreatSearch`]: the same moves (the
//! attacker's threats, the defender's exact answers), searched best-first instead of by
//! iterative deepening.
//!
//! Each node keeps a proof number (how many leaves at least must still be proven wins for the
//! attacker) and a disproof number (how many must be proven otherwise). The search always
//! expands a most-proving leaf: at the attacker's nodes it follows the child with the least
//! proof number, at the defender's the child with the least disproof number. So it runs deep
//! where the defender has one answer, and a win 20 plies away costs about as many expansions as
//! the proof has nodes, where iterative deepening searches every shallower tree in full first.
//! It also keeps no table: a position reached by two orders of threats is searched twice.

use std::time::Instant;

use super::{ThreatKind, ThreatSearch};
use crate::games::gomoku::shape_board::ShapeBoard;

/// A proof or disproof number that no sum reaches.
const INFINITE: u32 = u32::MAX / 4;
/// No node: the root's parent.
const NONE: u32 = u32::MAX;
/// Nodes the tree may hold (about 20 bytes each); the search gives up past it.
const MAX_TREE: usize = 1 << 24;

#[derive(Clone, Copy)]
pub(super) struct Node {
    parent: u32,
    /// The children are `first..first + children` (once expanded).
    first: u32,
    children: u16,
    /// The move that led here.
    point: u16,
    proof: u32,
    disproof: u32,
    /// The attacker's threats left (a block of a five point uses none).
    threats_left: u8,
    expanded: bool,
    /// The attacker is to move (else the defender).
    attacker: bool,
    /// The attacker's move here was the block of a five point: it wins only while a threat of
    /// its own still stands.
    block: bool,
}

impl Node {
    fn leaf(parent: usize, point: usize, threats_left: u32, attacker: bool, block: bool) -> Node {
        Node {
            parent: parent as u32,
            first: 0,
            children: 0,
            point: point as u16,
            proof: 1,
            disproof: 1,
            threats_left: threats_left.min(255) as u8,
            expanded: false,
            attacker,
            block,
        }
    }

    fn children(&self) -> std::ops::Range<usize> {
        self.first as usize..(self.first as usize + usize::from(self.children))
    }
}

impl ThreatSearch {
    /// [`ThreatSearch::find`] by proof-number search: the first move of a forced win of the
    /// side to move by `kind`'s threats, at most `max_depth` of them, within `limit`
    /// expansions (and before `deadline`); the board is left as it was. Whole: every three of
    /// the attacker's is searched, whatever [`ThreatSearch::set_local_threes`] says.
    pub fn prove(
        &mut self,
        board: &mut ShapeBoard,
        kind: ThreatKind,
        max_depth: u32,
        limit: u64,
        deadline: Option<Instant>,
    ) -> Option<usize> {
        if let Some(five) = self.start(board, limit, deadline) {
            return Some(five);
        }
        let local = std::mem::replace(&mut self.local_threes, false);
        let mut tree = std::mem::take(&mut self.tree);
        tree.clear();
        tree.push(Node::leaf(0, 0, max_depth, true, false));
        tree[0].parent = NONE;
        // The board is at `current`'s position throughout.
        let mut current = 0;
        'search: while tree[0].proof != 0 && tree[0].disproof != 0 {
            while tree[current].expanded {
                let node = tree[current];
                let by = |n: &Node| if node.attacker { n.proof } else { n.disproof };
                // An expanded node with both numbers above 0 has children.
                let Some(next) = node.children().min_by_key(|&c| by(&tree[c])) else {
                    self.aborted = true;
                    break 'search;
                };
                board.make(usize::from(tree[next].point));
                current = next;
            }
            if self.count_node() || tree.len() > MAX_TREE {
                self.aborted = true;
                break;
            }
            self.expand(board, &mut tree, current, kind);
            current = self.back_up(board, &mut tree, current, kind);
        }
        while current != 0 {
            board.unmake();
            current = tree[current].parent as usize;
        }
        self.local_threes = local;
        let root = tree[0];
        // A proven root has a proven child (its own five point was answered above).
        let winner = root
            .children()
            .find(|&c| root.proof == 0 && tree[c].proof == 0);
        let found = winner.map(|winner| {
            self.depth = proof_threats(&tree, winner);
            usize::from(tree[winner].point)
        });
        self.tree = tree;
        found
    }

    /// Expands leaf `at` (the board at its position): its children, or its proof or disproof
    /// when the game or the threats end there.
    fn expand(
        &mut self,
        board: &mut ShapeBoard,
        tree: &mut Vec<Node>,
        at: usize,
        kind: ThreatKind,
    ) {
        let node = tree[at];
        let start = self.stack.len();
        let mut children_threats = u32::from(node.threats_left);
        let mut block = false;
        // Some(true): proven; Some(false): disproven; None: the children decide.
        let settled = if node.attacker {
            let me = board.to_move();
            let known = match at {
                // The root's win is wanted with its move.
                0 => None,
                _ => self.known(self.table_key(board, kind), children_threats),
            };
            if board.has_five_point(me) {
                Some(true)
            } else if known.is_some() {
                known
            } else if board.has_five_point(me.opponent()) {
                self.push_block(board, me);
                block = true;
                None
            } else if node.threats_left > 0 {
                self.push_threats(board, kind, at == 0);
                children_threats -= 1;
                None
            } else {
                Some(false)
            }
        } else {
            let defender = board.to_move();
            let attacker = defender.opponent();
            // After a block, the attacker needs a threat still standing; a defender with a five
            // point wins.
            let free = node.block && !self.threatens(board, attacker, kind);
            if free || board.has_five_point(defender) {
                Some(false)
            } else {
                board.five_points(attacker, &mut self.scratch);
                match self.scratch.len() {
                    0 if !self.has_live_four_point(board, attacker) => Some(false),
                    0 => {
                        self.push_defences(board, defender, attacker);
                        None
                    }
                    1 if !board.playable(defender, self.scratch[0]) => Some(true),
                    1 => {
                        self.stack.push(self.scratch[0]);
                        None
                    }
                    _ => Some(true),
                }
            }
        };
        let first = tree.len();
        if settled.is_none() {
            for &p in &self.stack[start..] {
                let child = Node::leaf(at, p, children_threats, !node.attacker, block);
                tree.push(child);
            }
        }
        self.stack.truncate(start);
        let children = (tree.len() - first) as u16;
        let n = &mut tree[at];
        n.expanded = true;
        n.first = first as u32;
        n.children = children;
        // No move left: the attacker's node is lost, the defender's won.
        let proven =
            settled.unwrap_or(false) || (settled.is_none() && n.children == 0 && !n.attacker);
        let disproven =
            settled == Some(false) || (settled.is_none() && n.children == 0 && n.attacker);
        if proven || disproven {
            (n.proof, n.disproof) = if proven { (0, INFINITE) } else { (INFINITE, 0) };
            if n.attacker {
                let key = self.table_key(board, kind);
                self.remember(key, proven, u32::from(node.threats_left));
            }
        } else {
            let count = u32::from(n.children);
            // The attacker needs one child proven, the defender's every answer.
            (n.proof, n.disproof) = if n.attacker { (1, count) } else { (count, 1) };
        }
    }
}

impl ThreatSearch {
    /// Brings the numbers of `from` (just expanded) and its ancestors up to date, unmaking
    /// moves on the way, and stops at the first ancestor whose numbers stay as they were (or
    /// the root): the next most-proving leaf is below it. Returns that node. An attacker's
    /// node settled on the way goes to the table.
    fn back_up(
        &mut self,
        board: &mut ShapeBoard,
        tree: &mut [Node],
        from: usize,
        kind: ThreatKind,
    ) -> usize {
        let mut at = from;
        loop {
            if at != from {
                let node = tree[at];
                let (mut min, mut sum) = (INFINITE, 0u32);
                for c in node.children() {
                    let (mine, other) = if node.attacker {
                        (tree[c].proof, tree[c].disproof)
                    } else {
                        (tree[c].disproof, tree[c].proof)
                    };
                    min = min.min(mine);
                    sum = sum.saturating_add(other).min(INFINITE);
                }
                let (proof, disproof) = if node.attacker {
                    (min, sum)
                } else {
                    (sum, min)
                };
                if (proof, disproof) == (node.proof, node.disproof) {
                    return at;
                }
                tree[at].proof = proof;
                tree[at].disproof = disproof;
                if node.attacker && (proof == 0 || disproof == 0) {
                    let key = self.table_key(board, kind);
                    self.remember(key, proof == 0, u32::from(node.threats_left));
                }
            }
            if at == 0 {
                return 0;
            }
            board.unmake();
            at = tree[at].parent as usize;
        }
    }
}

/// The attacker's threats on a proof's line from `node` (a defender's node whose proof is
/// 0): the proven child at each of the attacker's nodes, the first answer at the defender's.
fn proof_threats(tree: &[Node], mut node: usize) -> u32 {
    let mut threats = 0;
    loop {
        let n = tree[node];
        let next = if n.attacker {
            n.children().find(|&c| tree[c].proof == 0)
        } else {
            if n.threats_left < tree[n.parent as usize].threats_left {
                threats += 1;
            }
            n.children().next()
        };
        match next {
            Some(c) => node = c,
            None => return threats,
        }
    }
}
