//! Threat-space search on the incremental board: victory by continuous fours (VCF) and by
//! threes and fours (VCT), the proofs strong Gomoku engines run before and inside their main
//! search.
//!
//! * **The attacker** (the side to move at the root) plays only threats: a move that makes a
//!   four (VCF and VCT) or a live three (VCT). Once it has a five point it has won. When the
//!   defender has a five point, its only move is the block, and the line goes on only if it
//!   still has a threat on the board.
//! * **The defender** answers exactly: against a four, the one block (or nothing when there are
//!   two five points); against a three, its own fours (each forces a block) and every point of
//!   the attacker's fours and fives, each kept only if after it the attacker has no live four
//!   left to make (or if it makes a four). A defender with a five point has won.
//! * Renju: black's threats and blocks are only the points the rule lets black play, and a
//!   live three of black's only threatens if the point that would make it a live four is one.
//! * Depth counts the attacker's threats (forced blocks are free). Proven positions and the
//!   depth to which others were searched in vain go to a table keyed by the Zobrist hash. A
//!   node limit (and an optional deadline) ends the search with no answer, never a wrong one.

use std::time::Instant;

use super::patterns::Shape;
use super::shape_board::ShapeBoard;
use super::{Gomoku, Rule};
use crate::game::{Action, Player};

/// What the attacker may threaten with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreatKind {
    /// Fours only (continuous fours).
    Vcf,
    /// Fours and live threes.
    Vct,
}

/// Which moves [`ThreatSearch::keep_defences`] keeps against the opponent's threats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defend {
    /// Every candidate, the moves given first, each searched with a sixteenth of the nodes:
    /// those after which the search ends without a win (`pvs`).
    Proven,
    /// The moves given, each with a quarter of the nodes: those after which no win is found,
    /// the search ended or not (the plain-board players: the rival, MCTS's `vcf`).
    Found,
}

/// One table entry: a position with the attacker to move.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    /// The attacker wins (at any depth), or (false) no win was found within `depth` threats.
    win: bool,
    depth: u8,
}

const TABLE_BITS: u32 = 16;

/// The searcher, with its table and limits.
pub struct ThreatSearch {
    table: Vec<Entry>,
    nodes: u64,
    limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
    /// The moves of every node on the current path, each node's after its parent's.
    stack: Vec<usize>,
    scratch: Vec<usize>,
    /// The threats of the last win found (the iteration that found it).
    depth: u32,
}

impl ThreatSearch {
    pub fn new() -> ThreatSearch {
        ThreatSearch {
            table: vec![Entry::default(); 1 << TABLE_BITS],
            nodes: 0,
            limit: u64::MAX,
            deadline: None,
            aborted: false,
            stack: Vec::with_capacity(4096),
            scratch: Vec::with_capacity(512),
            depth: 0,
        }
    }

    /// Nodes visited by the last search.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The threats of the attacker's line in the last win found (0: a five on the board).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Whether the last search stopped at its limit (its "no" means "not found in time").
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Forgets the proven positions (a new game).
    pub fn clear(&mut self) {
        self.table.fill(Entry::default());
    }

    /// The first move of a forced win of the side to move by `kind`'s threats, at most
    /// `max_depth` of them, within `limit` nodes (and before `deadline`); the board is left as
    /// it was.
    pub fn find(
        &mut self,
        board: &mut ShapeBoard,
        kind: ThreatKind,
        max_depth: u32,
        limit: u64,
        deadline: Option<Instant>,
    ) -> Option<usize> {
        (self.nodes, self.limit, self.deadline) = (0, limit, deadline);
        (self.aborted, self.depth) = (false, 0);
        let me = board.to_move();
        if board.has_five_point(me) {
            board.five_points(me, &mut self.scratch);
            return self.scratch.first().copied();
        }
        let blocking = board.has_five_point(me.opponent());
        for depth in 1..=max_depth {
            let found = self.first_winning_move(board, depth, kind, blocking);
            if found.is_some() {
                self.depth = depth;
            }
            if found.is_some() || self.aborted {
                return found;
            }
        }
        None
    }

    /// Where the opponent (as if the side to move passed) has a win by `kind`'s threats: the
    /// moves after which it has none, as `defend` tries them. All of `moves` stay when none
    /// breaks it or time runs out (at `by`): the opponent may still err.
    pub fn keep_defences(
        &mut self,
        board: &mut ShapeBoard,
        moves: &mut Vec<usize>,
        (kind, defend): (ThreatKind, Defend),
        nodes: u64,
        by: Option<Instant>,
    ) {
        board.pass();
        let threat = self.find(board, kind, 30, nodes, by);
        board.pass();
        if threat.is_none() {
            return;
        }
        let me = board.to_move();
        let (points, share) = match defend {
            Defend::Proven => {
                let mut all = Vec::new();
                board.candidates(&mut all);
                all.sort_by_key(|p| moves.iter().position(|m| m == p).unwrap_or(usize::MAX));
                (all, 16)
            }
            Defend::Found => (moves.clone(), 4),
        };
        let mut kept = Vec::new();
        for p in points {
            if by.is_some_and(|by| Instant::now() >= by) {
                return;
            }
            if !board.playable(me, p) {
                continue;
            }
            board.make(p);
            let found = self.find(board, kind, 30, nodes / share, by);
            let breaks = found.is_none() && (defend == Defend::Found || !self.aborted());
            board.unmake();
            if breaks {
                kept.push(p);
            }
        }
        if !kept.is_empty() {
            *moves = kept;
        }
    }

    /// For the players that search the plain board (the rival, MCTS's `vcf`): a VCF of the
    /// side to move within `nodes`, else `moves` narrowed to those that break the opponent's
    /// VCF ([`keep_defences`](Self::keep_defences)).
    pub fn vcf_or_defences(
        &mut self,
        state: &Gomoku,
        moves: &mut Vec<Action>,
        nodes: u64,
        by: Option<Instant>,
    ) -> Option<Action> {
        let mut board = ShapeBoard::new(state);
        if let Some(p) = self.find(&mut board, ThreatKind::Vcf, 30, nodes, by) {
            return Some(p as Action);
        }
        let mut points: Vec<usize> = moves.iter().map(|&a| usize::from(a)).collect();
        self.keep_defences(
            &mut board,
            &mut points,
            (ThreatKind::Vcf, Defend::Found),
            nodes,
            by,
        );
        *moves = points.into_iter().map(|p| p as Action).collect();
        None
    }

    /// The attacker's (to move) first move that wins within `depth` threats: the block of the
    /// defender's five point when `blocking` (free, and the line goes on only while a threat
    /// stands), else its threats while depth is left.
    fn first_winning_move(
        &mut self,
        board: &mut ShapeBoard,
        depth: u32,
        kind: ThreatKind,
        blocking: bool,
    ) -> Option<usize> {
        let me = board.to_move();
        let start = self.stack.len();
        if blocking {
            self.push_block(board, me);
        } else if depth > 0 {
            self.push_threats(board, kind);
        }
        let mut found = None;
        for i in start..self.stack.len() {
            let p = self.stack[i];
            board.make(p);
            let wins = if blocking {
                self.threatens(board, me, kind) && self.defend(board, depth, kind)
            } else {
                self.defend(board, depth - 1, kind)
            };
            board.unmake();
            if wins {
                found = Some(p);
                break;
            }
            if self.aborted {
                break;
            }
        }
        self.stack.truncate(start);
        found
    }

    /// Whether the attacker (to move) wins within `depth` more threats.
    fn attack(&mut self, board: &mut ShapeBoard, depth: u32, kind: ThreatKind) -> bool {
        let me = board.to_move();
        if board.has_five_point(me) {
            return true;
        }
        if self.count_node() {
            return false;
        }
        let key = self.table_key(board, kind);
        if let Some(win) = self.known(key, depth) {
            return win;
        }
        let blocking = board.has_five_point(me.opponent());
        let win = self
            .first_winning_move(board, depth, kind, blocking)
            .is_some();
        if !self.aborted {
            self.remember(key, win, depth);
        }
        win
    }

    /// The table's key of the position (the attacker to move) for `kind`'s threats.
    fn table_key(&self, board: &ShapeBoard, kind: ThreatKind) -> u64 {
        board.hash() ^ (kind as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// What the table knows of `key` within `depth` threats: a win (at any depth), no win,
    /// or nothing.
    fn known(&self, key: u64, depth: u32) -> Option<bool> {
        let entry = self.table[(key as usize) & ((1 << TABLE_BITS) - 1)];
        (entry.key == key && (entry.win || u32::from(entry.depth) >= depth)).then_some(entry.win)
    }

    /// Remembers that `key` is a win, or (`win` false) none within `depth` threats.
    fn remember(&mut self, key: u64, win: bool, depth: u32) {
        self.table[(key as usize) & ((1 << TABLE_BITS) - 1)] = Entry {
            key,
            win,
            depth: depth.min(255) as u8,
        };
    }

    /// Whether the attacker (who just moved) wins whatever the defender (to move) does.
    fn defend(&mut self, board: &mut ShapeBoard, depth: u32, kind: ThreatKind) -> bool {
        let defender = board.to_move();
        let attacker = defender.opponent();
        if board.has_five_point(defender) {
            return false;
        }
        if self.count_node() {
            return false;
        }
        let start = self.stack.len();
        board.five_points(attacker, &mut self.scratch);
        match self.scratch.len() {
            0 => {
                if !self.has_live_four_point(board, attacker) {
                    // No threat stands: the defender is free.
                    return false;
                }
                self.push_defences(board, defender, attacker);
            }
            1 => {
                let q = self.scratch[0];
                if !board.playable(defender, q) {
                    return true;
                }
                self.stack.push(q);
            }
            _ => return true,
        }
        let end = self.stack.len();
        let mut wins = true;
        for i in start..end {
            let p = self.stack[i];
            board.make(p);
            wins = self.attack(board, depth, kind);
            board.unmake();
            if !wins || self.aborted {
                wins = wins && !self.aborted;
                break;
            }
        }
        self.stack.truncate(start);
        wins
    }

    /// Counts a node; true when the limit or the deadline is reached.
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.limit {
            self.aborted = true;
        } else if self.nodes % 1024 == 0 {
            if let Some(deadline) = self.deadline {
                if Instant::now() >= deadline {
                    self.aborted = true;
                }
            }
        }
        self.aborted
    }

    /// Whether `player` (who just moved) has a threat standing: a five point, or under VCT a
    /// live-four point it may play.
    fn threatens(&mut self, board: &ShapeBoard, player: Player, kind: ThreatKind) -> bool {
        board.has_five_point(player)
            || (kind == ThreatKind::Vct && self.has_live_four_point(board, player))
    }

    /// Whether `player` has a point where it makes a live four (and may play it).
    fn has_live_four_point(&self, board: &ShapeBoard, player: Player) -> bool {
        if board.count(player, Shape::LiveFour) == 0 {
            return false;
        }
        if !board.has_forbidden_points(player) {
            return true;
        }
        (0..board.points()).any(|p| {
            board.is_empty(p)
                && (0..4).any(|d| board.shape(player, p, d) == Shape::LiveFour)
                && board.playable(player, p)
        })
    }

    /// The attacker's block of the defender's five point, if it may play it.
    fn push_block(&mut self, board: &ShapeBoard, me: Player) {
        board.five_points(me.opponent(), &mut self.scratch);
        if self.scratch.len() == 1 && board.playable(me, self.scratch[0]) {
            self.stack.push(self.scratch[0]);
        }
    }

    /// The attacker's threats, the strongest first (double threats, fours, threes).
    fn push_threats(&mut self, board: &ShapeBoard, kind: ThreatKind) {
        let me = board.to_move();
        board.candidates(&mut self.scratch);
        let start = self.stack.len();
        for &p in &self.scratch {
            let t = board.threat(me, p);
            let threat = t.fours > 0 || (kind == ThreatKind::Vct && t.live_threes > 0);
            if threat && board.playable(me, p) {
                self.stack.push(p);
            }
        }
        let rank = |p: usize| {
            let t = board.threat(me, p);
            (t.is_double(), t.fours, t.live_threes, std::cmp::Reverse(p))
        };
        self.stack[start..].sort_unstable_by_key(|&p| std::cmp::Reverse(rank(p)));
    }

    /// The defender's answers to a three: its own fours, and each point of the attacker's
    /// fours and fives after which no live four is left to the attacker.
    fn push_defences(&mut self, board: &mut ShapeBoard, defender: Player, attacker: Player) {
        board.candidates(&mut self.scratch);
        let candidates = std::mem::take(&mut self.scratch);
        for &p in &candidates {
            let counter = board.threat(defender, p).fours > 0;
            let on_line = (0..4).any(|d| board.shape(attacker, p, d) >= Shape::Four);
            if !(counter || on_line) || !board.playable(defender, p) {
                continue;
            }
            if !counter {
                board.make(p);
                let stops = !self.has_live_four_point(board, attacker);
                board.unmake();
                if !stops {
                    continue;
                }
            }
            self.stack.push(p);
        }
        self.scratch = candidates;
    }
}

/// One position of a threat suite (the shipped `threat_suite.txt`, built by
/// `examples/gomoku_threat_suite.rs`): a 15x15 freestyle position whose side to move has a
/// win by `kind`'s threats.
pub struct SuitePosition<'a> {
    pub kind: ThreatKind,
    /// The threats of the win the builder found.
    pub threats: u32,
    pub position: Gomoku,
    /// The suite's line, for messages.
    pub line: &'a str,
}

/// The shipped threat suite ([`read_suite`]).
pub fn threat_suite() -> Result<Vec<SuitePosition<'static>>, String> {
    read_suite("threat_suite.txt", include_str!("threat_suite.txt"))
}

/// A threat suite's text, each line read (`kind threats side board`; `#` comments and blank
/// lines skipped); an error names `name` and the line that does not read.
pub fn read_suite<'a>(name: &str, text: &'a str) -> Result<Vec<SuitePosition<'a>>, String> {
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    lines
        .map(|(i, line)| {
            let err = |why: String| format!("{name}:{}: {why}", i + 1);
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [kind, threats, side, board] = fields[..] else {
                return Err(err("not 'kind threats side board'".into()));
            };
            let threats = threats
                .parse()
                .map_err(|_| err(format!("threats '{threats}' is not a count")))?;
            let kind = match kind {
                "vcf" => ThreatKind::Vcf,
                "vct" => ThreatKind::Vct,
                other => return Err(err(format!("kind '{other}' is not vcf or vct"))),
            };
            let me = Player::parse(side).ok_or_else(|| err(format!("side '{side}'")))?;
            let position = Gomoku::from_board(15, Rule::Freestyle, board, me).map_err(err)?;
            Ok(SuitePosition {
                kind,
                threats,
                position,
                line,
            })
        })
        .collect()
}

impl Default for ThreatSearch {
    fn default() -> ThreatSearch {
        ThreatSearch::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    use crate::games::gomoku::tests::{double_four, ranks_board as board};

    /// The first move of the win found.
    fn solve(ranks: &[(usize, &str)], to_move: Player, kind: ThreatKind) -> Option<String> {
        solve_in(
            &Gomoku::from_board(15, Rule::Freestyle, &board(ranks), to_move).unwrap(),
            kind,
        )
    }

    /// The first move of the win found in `g`.
    fn solve_in(g: &Gomoku, kind: ThreatKind) -> Option<String> {
        let mut b = ShapeBoard::new(g);
        let hash = b.hash();
        let mut search = ThreatSearch::new();
        let found = search.find(&mut b, kind, 20, 1_000_000, None);
        assert_eq!(b.hash(), hash, "the board is left as it was");
        assert!(!search.aborted());
        found.map(|p| g.point_name(p))
    }

    /// In positions of random games on a 9x9 board, every win found starts with a threat or
    /// the block of a five point, and leaves the board as it was; most searches end within
    /// their limit, and some find wins.
    #[test]
    fn wins_in_random_positions_start_with_a_threat_or_a_block() {
        let mut rng = crate::rng::Rng::new(75);
        let mut moves = Vec::new();
        let (mut wins, mut positions, mut settled) = (0, 0, 0);
        while positions < 200 {
            let mut g = Gomoku::new(9, Rule::Freestyle).unwrap();
            let stones = 6 + rng.below(14);
            while g.stones() < stones as usize && g.winner().is_none() {
                g.legal_actions(&mut moves);
                g.apply(rng.pick(&moves));
            }
            if g.winner().is_some() {
                continue;
            }
            positions += 1;
            let me = g.to_move();
            for kind in [ThreatKind::Vcf, ThreatKind::Vct] {
                let mut b = ShapeBoard::new(&g);
                let hash = b.hash();
                let mut search = ThreatSearch::new();
                let found = search.find(&mut b, kind, 30, 50_000, None);
                assert_eq!(b.hash(), hash);
                if search.aborted() {
                    continue;
                }
                settled += 1;
                if let Some(p) = found {
                    let t = b.threat(me, p);
                    let threat = t.five || t.fours > 0 || t.live_threes > 0;
                    assert!(
                        threat || b.threat(me.opponent(), p).five,
                        "{}",
                        g.board_string()
                    );
                    wins += 1;
                }
            }
        }
        // The positions hold wins to find, not only their absence.
        assert!(
            wins >= 40 && settled >= 300,
            "{wins} wins, {settled} of 400 settled"
        );
    }

    #[test]
    fn continuous_fours_are_found_and_blocked_lines_are_not() {
        let (black, white) = (double_four(Player::P1), double_four(Player::P2));
        assert_eq!(solve_in(&black, ThreatKind::Vcf).as_deref(), Some("d8"));
        // White to move must block a five point first and has no fours after it.
        assert_eq!(solve_in(&white, ThreatKind::Vcf), None);
    }

    /// Every position of the shipped suite reads, and each VCF in it is found again (with
    /// the node limit `pvs` uses at its root), starting with a four.
    #[test]
    fn the_suites_continuous_fours_are_found() {
        let suite = threat_suite().unwrap();
        let vcfs: Vec<&SuitePosition> =
            suite.iter().filter(|s| s.kind == ThreatKind::Vcf).collect();
        for s in &vcfs {
            let me = s.position.to_move();
            let mut b = ShapeBoard::new(&s.position);
            let found = ThreatSearch::new().find(&mut b, ThreatKind::Vcf, 30, 200_000, None);
            let p = found.unwrap_or_else(|| panic!("no VCF in {}", s.line));
            assert!(
                b.threat(me, p).is_four() || b.threat(me, p).five,
                "{}",
                s.line
            );
        }
        assert_eq!(vcfs.len(), 100, "the suite's VCF positions");
        let vcts = suite.iter().filter(|s| s.kind == ThreatKind::Vct).count();
        assert_eq!(vcts, 100, "the suite's VCT positions");
    }

    #[test]
    fn a_double_three_wins_by_vct_but_not_by_vcf() {
        // Black's e8 f8 and g6 g7 meet at g8: two live threes at once, which no single stone
        // stops (white's stones make no four), a VCT and not a VCF.
        let ranks = [
            (8, "....XX"),
            (7, "......X"),
            (6, "......X"),
            (1, "O..O..O...O"),
        ];
        assert_eq!(
            solve(&ranks, Player::P1, ThreatKind::Vct).as_deref(),
            Some("g8")
        );
        assert_eq!(solve(&ranks, Player::P1, ThreatKind::Vcf), None);
        // A live three with the move is a VCF: the live four next.
        let ranks = [(8, "....XXX"), (1, "O..O..O")];
        let found = solve(&ranks, Player::P1, ThreatKind::Vcf);
        assert!(matches!(found.as_deref(), Some("d8" | "h8")), "{found:?}");
    }
}
