//! An incremental view of a Gomoku position, for the alpha-beta and threat-space searches.
//!
//! Each point keeps, for each of the four directions, a code of its ten neighbours along the
//! line (five either side, two bits each: empty, black, white, off the board). A stone changes
//! the codes of the forty points that can see it and nothing else, and a code is one read in a
//! table of the shape each colour would make on the point ([`super::patterns::coded_table`],
//! 4^10 entries, the same definitions as the MCTS heuristic's). So the shapes of every empty
//! point, the count of each shape by colour (the evaluation's inputs), the points near the
//! stones and a Zobrist hash follow a move and its unmake in a few hundred operations, where a
//! board scan would cost thousands.

use std::sync::{Arc, OnceLock};

use super::net::{NetSums, PatternNet};
use super::patterns::{coded_table, digit, PointShapes, Shape};
use super::{renju, Gomoku, Rule, DIRECTIONS, EMPTY, MAX_POINTS};
use crate::game::{Game, Player};
use crate::rng::splitmix64;

/// Points either side of a point its code reads.
const REACH: i32 = 5;
/// Points within this (king) distance of a stone are the search's candidates.
const NEAR: i32 = 2;

/// A (point, direction)'s shapes for both colours in one byte: `9 * black's + white's` (the
/// pattern net's code seen from black).
#[inline]
fn pair(black: u8, white: u8) -> u8 {
    black * 9 + white
}

/// The shapes of a pair code, black's then white's (256 long: a byte indexes them without a
/// bounds check).
struct PairParts {
    black: [u8; 256],
    white: [u8; 256],
}

const PARTS: PairParts = {
    let mut parts = PairParts {
        black: [0; 256],
        white: [0; 256],
    };
    let mut c = 0;
    while c < 81 {
        parts.black[c] = (c / 9) as u8;
        parts.white[c] = (c % 9) as u8;
        c += 1;
    }
    parts
};

/// The pair tables (4^10 entries, one read for both colours' shapes), by whether exactly five
/// wins for black and for white: freestyle, renju (black only) and standard.
fn pair_table(black_exactly: bool, white_exactly: bool) -> &'static [u8] {
    static TABLES: [OnceLock<Vec<u8>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    TABLES[usize::from(black_exactly) * 2 + usize::from(white_exactly)].get_or_init(|| {
        let (black, white) = (coded_table(black_exactly, 1), coded_table(white_exactly, 2));
        black
            .iter()
            .zip(&white)
            .map(|(&b, &w)| pair(b, w))
            .collect()
    })
}

/// Zobrist keys: one a point a colour, and one for white to move.
struct Zobrist {
    stones: [[u64; MAX_POINTS]; 2],
    white_to_move: u64,
}

fn zobrist() -> &'static Zobrist {
    static KEYS: OnceLock<Zobrist> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut state = 0x5EED_0F60_4D0C_u64;
        let mut stones = [[0; MAX_POINTS]; 2];
        for colour in &mut stones {
            for key in colour.iter_mut() {
                *key = splitmix64(&mut state);
            }
        }
        Zobrist {
            stones,
            white_to_move: splitmix64(&mut state),
        }
    })
}

/// A position with its shapes kept up to date move by move.
#[derive(Clone)]
pub struct ShapeBoard {
    pos: Gomoku,
    size: i32,
    /// The pair table of the rule: both colours' shapes of a code.
    table: &'static [u8],
    /// Each point's neighbour codes by direction.
    keys: Vec<[u32; 4]>,
    /// The shape each colour makes on each point by direction (kept for empty points).
    shapes: [Vec<[u8; 4]>; 2],
    /// The (empty point, direction) pairs of each shape, by colour (16 wide: a shape indexes
    /// it masked, without a bounds check).
    counts: [[i32; 16]; 2],
    /// Stones within [`NEAR`] of each point.
    near: Vec<u8>,
    hash: u64,
    /// The moves made, each with the position's last moves before it (for the unmake).
    made: Vec<(u16, [u16; 2])>,
    /// Index steps along each direction of [`DIRECTIONS`].
    steps: [i32; 4],
    /// The points on the board, up to [`REACH`], behind and ahead of each point along each
    /// direction: the line walks need no bounds check.
    room: Vec<[[u8; 2]; 4]>,
    /// The (point, direction, pair code before) of each pair a move changed, move after move:
    /// the unmake puts them back without reading the table.
    undo: Vec<(u16, u8, u8)>,
    /// Where each move made starts in `undo`, with the shape counts before it.
    undo_marks: Vec<(u32, [[i32; 16]; 2])>,
    /// A pattern net's sums where one is attached ([`Self::with_net`]), brought up to date
    /// lazily ([`Self::sync_net`]): a move's changes wait in `net_log` until a position below
    /// it is evaluated, so moves unmade unevaluated (a quick VCF's, a cut by the table) cost the
    /// net nothing.
    net: Option<NetSums>,
    /// The waiting changes, move after move: the stone's point ([`NET_CLEAR`]), then each line
    /// point whose pair codes changed, with its old and new pair code.
    net_log: Vec<(u16, u8, u8)>,
    /// Where each move made starts in `net_log` (the moves already in the sums: anything).
    net_marks: Vec<u32>,
    /// The moves made whose changes are in the sums (the first `net_applied`).
    net_applied: usize,
}

/// In the net's log, a stone's point, which leaves the sums.
const NET_CLEAR: u8 = u8::MAX;

/// An empty point that sees a move along one of its lines ([`ShapeBoard::set_on_lines`]).
#[derive(Clone, Copy)]
struct LineNeighbour {
    point: u16,
    direction: u8,
}

impl ShapeBoard {
    pub fn new(pos: &Gomoku) -> ShapeBoard {
        let exactly = |player| pos.rule().exactly_five(player);
        let size = pos.size() as i32;
        let points = pos.points();
        let mut board = ShapeBoard {
            pos: *pos,
            size,
            table: pair_table(exactly(Player::P1), exactly(Player::P2)),
            keys: vec![[0; 4]; points],
            shapes: [vec![[0; 4]; points], vec![[0; 4]; points]],
            counts: [[0; 16]; 2],
            near: vec![0; points],
            hash: 0,
            made: Vec::with_capacity(points),
            steps: DIRECTIONS.map(|(dc, dr)| dc + dr * size),
            room: vec![[[0; 2]; 4]; points],
            undo: Vec::with_capacity(8 * points),
            undo_marks: Vec::with_capacity(points),
            net: None,
            net_log: Vec::new(),
            net_marks: Vec::with_capacity(points),
            net_applied: 0,
        };
        let keys = zobrist();
        for p in 0..points {
            let (c, r) = board.col_row(p);
            for (d, &(dc, dr)) in DIRECTIONS.iter().enumerate() {
                let mut key = 0u32;
                for k in (-REACH..=REACH).filter(|&k| k != 0) {
                    let code = match pos.point(c + dc * k, r + dr * k) {
                        Some(q) => u32::from(pos.cells[q]),
                        None => 3,
                    };
                    key |= code << (2 * digit(k));
                }
                board.keys[p][d] = key;
                for (side, sign) in [-1, 1].into_iter().enumerate() {
                    let on_board = (1..=REACH)
                        .take_while(|&k| pos.point(c + sign * dc * k, r + sign * dr * k).is_some())
                        .count();
                    board.room[p][d][side] = on_board as u8;
                }
            }
            if let Some(player) = pos.stone(p) {
                board.hash ^= keys.stones[player.index()][p];
                board.add_near(p, 1);
            }
        }
        for p in 0..points {
            board.refresh_point(p);
        }
        if pos.to_move() == Player::P2 {
            board.hash ^= keys.white_to_move;
        }
        // Tables kept between games must not mistake one board size or rule for another.
        let mut game = (size as u64) << 2 | pos.rule().index() as u64;
        board.hash ^= splitmix64(&mut game);
        board
    }

    /// The board with `net`'s sums kept as moves are made, for [`net_logit`](Self::net_logit);
    /// refused when the net was made for another rule or board size.
    pub fn with_net(mut self, net: Arc<PatternNet>) -> Result<ShapeBoard, String> {
        net.check_fits(self.pos.rule(), self.size as usize)?;
        let mut sums = NetSums::new(net, self.size as usize);
        for p in (0..self.points()).filter(|&p| self.is_empty(p)) {
            sums.set_point(p, Some(self.pair_codes(p)));
        }
        self.net = Some(sums);
        // The moves made so far are in the fresh sums.
        self.net_log.clear();
        self.net_marks = vec![0; self.made.len()];
        self.net_applied = self.made.len();
        Ok(self)
    }

    /// Brings the net's sums up to the position: applies the changes of the moves made since
    /// they were last brought up.
    pub fn sync_net(&mut self) {
        let Some(net) = &mut self.net else {
            return;
        };
        if self.net_applied == self.made.len() {
            return;
        }
        for &(q, old, new) in &self.net_log {
            let q = usize::from(q);
            if old == NET_CLEAR {
                net.set_point(q, None);
            } else {
                net.shift_point(q, old, new);
            }
        }
        self.net_log.clear();
        self.net_applied = self.made.len();
    }

    /// The attached net's logit of the side to move's chance to win.
    #[inline]
    pub fn net_logit(&mut self) -> Option<f32> {
        self.sync_net();
        self.net.as_ref().map(|n| n.logit(self.to_move()))
    }

    /// The attached net's sums, brought up to the position (for tests).
    pub fn net_sums(&mut self) -> Option<&NetSums> {
        self.sync_net();
        self.net.as_ref()
    }

    /// The position.
    pub fn position(&self) -> &Gomoku {
        &self.pos
    }

    pub fn to_move(&self) -> Player {
        self.pos.to_move()
    }

    /// The Zobrist hash of the stones and the side to move.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn points(&self) -> usize {
        self.near.len()
    }

    /// Moves made since the board was built.
    pub fn ply(&self) -> usize {
        self.made.len()
    }

    #[inline]
    fn col_row(&self, p: usize) -> (i32, i32) {
        ((p as i32) % self.size, (p as i32) / self.size)
    }

    #[inline]
    pub fn is_empty(&self, p: usize) -> bool {
        self.pos.cells[p] == EMPTY
    }

    /// The shape `player` makes on `p` along direction `d` (an index into [`DIRECTIONS`]).
    #[inline]
    pub fn shape(&self, player: Player, p: usize, d: usize) -> Shape {
        Shape::ALL[self.shapes[player.index()][p][d] as usize]
    }

    /// The (empty point, direction) pairs where `player` makes `shape`.
    #[inline]
    pub fn count(&self, player: Player, shape: Shape) -> i32 {
        self.counts[player.index()][shape as usize]
    }

    /// Whether `player` has a point that makes five (a four on the board).
    #[inline]
    pub fn has_five_point(&self, player: Player) -> bool {
        self.count(player, Shape::Five) > 0
    }

    /// Whether `player` has a point that makes a four of any kind.
    #[inline]
    pub fn has_four_point(&self, player: Player) -> bool {
        self.count(player, Shape::Four) + self.count(player, Shape::LiveFour) > 0
    }

    /// What `player` makes on `p` over its four lines.
    #[inline]
    pub fn threat(&self, player: Player, p: usize) -> PointShapes {
        PointShapes::from_lines(self.shapes[player.index()][p])
    }

    /// Whether `player` may play `p`: empty, and under renju not a point forbidden to black.
    pub fn playable(&self, player: Player, p: usize) -> bool {
        self.is_empty(p)
            && !(player == Player::P1
                && self.pos.rule() == Rule::Renju
                && renju::forbidden(&self.pos, p))
    }

    /// Whether `player`'s points may be forbidden to them (black under renju).
    pub fn has_forbidden_points(&self, player: Player) -> bool {
        player == Player::P1 && self.pos.rule() == Rule::Renju
    }

    /// The empty points within two of a stone (the centre on an empty board), into `out`.
    pub fn candidates(&self, out: &mut Vec<usize>) {
        out.clear();
        if self.pos.stones() == 0 {
            let c = self.size / 2;
            out.push((c * self.size + c) as usize);
            return;
        }
        out.extend((0..self.points()).filter(|&p| self.near[p] > 0 && self.is_empty(p)));
    }

    /// Whether the side to move has won: it can make a live four (a live three of its own),
    /// and the opponent has no five point to win with and no four to make to delay it (under
    /// renju, not where black's points may be forbidden).
    pub fn live_four_wins(&self) -> bool {
        let me = self.to_move();
        let opp = me.opponent();
        self.count(me, Shape::LiveFour) > 0
            && !self.has_five_point(opp)
            && !self.has_four_point(opp)
            && !self.has_forbidden_points(me)
    }

    /// The empty points on the four lines through `p`, at most `reach` away, appended to
    /// `out` (each once: two lines through `p` meet nowhere else).
    pub fn line_points(&self, p: usize, reach: i32, out: &mut Vec<(usize, i32)>) {
        let (c, r) = self.col_row(p);
        for &(dc, dr) in &DIRECTIONS {
            for k in (-reach..=reach).filter(|&k| k != 0) {
                if let Some(q) = self.pos.point(c + dc * k, r + dr * k) {
                    if self.is_empty(q) {
                        out.push((q, 0));
                    }
                }
            }
        }
    }

    /// The points where `player` makes five, into `out` (each once).
    pub fn five_points(&self, player: Player, out: &mut Vec<usize>) {
        out.clear();
        if !self.has_five_point(player) {
            return;
        }
        let five = Shape::Five as u8;
        out.extend((0..self.points()).filter(|&p| {
            self.near[p] > 0 && self.is_empty(p) && self.shapes[player.index()][p].contains(&five)
        }));
    }

    /// Plays `p` (empty, legal, the game not over) for the side to move.
    pub fn make(&mut self, p: usize) {
        let player = self.pos.to_move();
        self.undo_marks.push((self.undo.len() as u32, self.counts));
        // The point leaves the empty points: its shapes stop counting (and stay as they are
        // while it is taken: only empty points' shapes follow the lines).
        for d in 0..4 {
            self.count_pair(self.pair_code(p, d), -1);
        }
        let record = if self.net.is_some() {
            self.net_marks.push(self.net_log.len() as u32);
            self.net_log.push((p as u16, NET_CLEAR, NET_CLEAR));
            true
        } else {
            false
        };
        self.made.push((p as u16, self.pos.last));
        self.pos.play(p);
        self.place_on_lines(p, u32::from(player.number()), record);
        self.add_near(p, 1);
        let keys = zobrist();
        self.hash ^= keys.stones[player.index()][p] ^ keys.white_to_move;
    }

    /// Takes back the last [`make`](Self::make).
    pub fn unmake(&mut self) {
        let (p, last) = self.made.pop().expect("unmake without a move");
        let p = usize::from(p);
        let player = self.pos.to_move().opponent();
        // The move is in the net's sums (take it out now) or still waits in the log (drop it).
        let apply = match self.net_marks.pop() {
            Some(_) if self.net_applied > self.made.len() => {
                self.net_applied = self.made.len();
                true
            }
            Some(mark) => {
                self.net_log.truncate(mark as usize);
                false
            }
            None => false,
        };
        self.pos.unplay(p, last);
        let (mark, counts) = self.undo_marks.pop().expect("a mark a move");
        self.lift_from_lines(p, mark as usize, apply);
        self.undo.truncate(mark as usize);
        self.counts = counts;
        if apply {
            let codes = self.pair_codes(p);
            if let Some(net) = &mut self.net {
                net.set_point(p, Some(codes));
            }
        }
        self.add_near(p, -1);
        let keys = zobrist();
        self.hash ^= keys.stones[player.index()][p] ^ keys.white_to_move;
    }

    /// Gives the move to the other side without a stone (a null move, to ask what the
    /// opponent threatens); a second pass undoes it.
    pub fn pass(&mut self) {
        self.pos.to_move = self.pos.to_move.opponent();
        self.hash ^= zobrist().white_to_move;
    }

    /// Whether the last move made won the game.
    pub fn won(&self) -> bool {
        self.pos.winner().is_some()
    }

    /// Sets `p`'s digit to `code` (0 empty, 1 black, 2 white) in the keys of the points that
    /// see it along its lines, and visits the empty ones with their new key.
    /// Both line walks of a move go through them in this order.
    #[inline(always)]
    fn set_on_lines(
        &mut self,
        p: usize,
        code: u32,
        mut visit: impl FnMut(&mut ShapeBoard, LineNeighbour, u32),
    ) {
        for d in 0..4 {
            let step = self.steps[d];
            let [behind, ahead] = self.room[p][d];
            for (sign, room) in [(-1, behind), (1, ahead)] {
                for k in 1..=i32::from(room) {
                    let q = (p as i32 + sign * step * k) as usize;
                    // `p` is at offset -sign * k from `q`.
                    let shift = 2 * digit(-sign * k);
                    let key = (self.keys[q][d] & !(3 << shift)) | code << shift;
                    self.keys[q][d] = key;
                    if self.is_empty(q) {
                        let neighbour = LineNeighbour {
                            point: q as u16,
                            direction: d as u8,
                        };
                        visit(self, neighbour, key);
                    }
                }
            }
        }
    }

    /// Puts `player`'s code (1 black, 2 white) of the stone just played on `p` in the keys of
    /// the points that see it, reads their shapes and keeps the pairs it changed for the
    /// unmake; with `record`, the changes wait in the net's log.
    fn place_on_lines(&mut self, p: usize, code: u32, record: bool) {
        self.set_on_lines(p, code, |board, n, key| {
            let (q, d) = (usize::from(n.point), usize::from(n.direction));
            let new = board.table[key as usize & 0xF_FFFF];
            let old = board.pair_code(q, d);
            if old != new {
                board.set_pair(q, d, new);
                board.count_pair(old, -1);
                board.count_pair(new, 1);
                board.undo.push((n.point, n.direction, old));
            }
            if record && old != new {
                board.net_log.push((n.point, old, new));
            }
        });
    }

    /// Clears `p`'s digit (its stone taken back) from the keys of the points that see it and
    /// puts back the pairs its move changed (`undo` from `mark` on); with `apply`, moves the
    /// net's sums back as well. The counts are the caller's to restore.
    fn lift_from_lines(&mut self, p: usize, mark: usize, apply: bool) {
        let mut next = mark;
        self.set_on_lines(p, 0, |board, n, key| {
            let (q, d) = (usize::from(n.point), usize::from(n.direction));
            // The make walked the same points in the same order, and they were empty then.
            let now = board.pair_code(q, d);
            let before = match board.undo.get(next) {
                Some(&(up, ud, before)) if up == n.point && ud == n.direction => {
                    next += 1;
                    board.set_pair(q, d, before);
                    before
                }
                _ => now,
            };
            debug_assert_eq!(before, board.table[key as usize & 0xF_FFFF]);
            if apply && now != before {
                if let Some(net) = &mut board.net {
                    net.shift_point(q, now, before);
                }
            }
        });
        debug_assert_eq!(next, self.undo.len(), "every change of the move put back");
    }

    /// Sets both colours' shapes of (`p`, `d`) from a pair code.
    #[inline]
    fn set_pair(&mut self, p: usize, d: usize, pair: u8) {
        self.shapes[0][p][d] = PARTS.black[usize::from(pair)];
        self.shapes[1][p][d] = PARTS.white[usize::from(pair)];
    }

    /// Counts (`delta` 1) or uncounts (-1) the two shapes of a pair code.
    #[inline]
    fn count_pair(&mut self, pair: u8, delta: i32) {
        let pair = usize::from(pair);
        self.counts[0][usize::from(PARTS.black[pair]) & 15] += delta;
        self.counts[1][usize::from(PARTS.white[pair]) & 15] += delta;
    }

    /// The pair code of (`p`, `d`): `9 * black's shape + white's`.
    #[inline]
    fn pair_code(&self, p: usize, d: usize) -> u8 {
        pair(self.shapes[0][p][d], self.shapes[1][p][d])
    }

    /// The pair codes of `p`'s four directions: what a pattern net reads of the point.
    #[inline]
    pub fn pair_codes(&self, p: usize) -> [u8; 4] {
        std::array::from_fn(|d| self.pair_code(p, d))
    }

    /// Reads the shapes of `p` from its keys and counts them if it is empty.
    fn refresh_point(&mut self, p: usize) {
        for d in 0..4 {
            let pair = self.table[self.keys[p][d] as usize & 0xF_FFFF];
            self.set_pair(p, d, pair);
            if self.is_empty(p) {
                self.count_pair(pair, 1);
            }
        }
    }

    fn add_near(&mut self, p: usize, delta: i8) {
        let (c, r) = self.col_row(p);
        let last = self.size - 1;
        let columns = (c - NEAR).max(0) as usize..=(c + NEAR).min(last) as usize;
        for row in (r - NEAR).max(0)..=(r + NEAR).min(last) {
            let start = row as usize * self.size as usize;
            for n in &mut self.near[start + columns.start()..=start + columns.end()] {
                *n = n.wrapping_add_signed(delta);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::patterns::point_shapes;
    use crate::games::gomoku::tests::ranks_board;
    use crate::rng::Rng;

    /// The board's shapes, counts and hash equal a fresh board's built from the position.
    fn assert_fresh(board: &ShapeBoard) {
        let fresh = ShapeBoard::new(board.position());
        assert_eq!(board.keys, fresh.keys);
        assert_eq!(board.counts, fresh.counts);
        assert_eq!(board.near, fresh.near);
        assert_eq!(board.hash, fresh.hash);
        for p in (0..board.points()).filter(|&p| board.is_empty(p)) {
            assert_eq!(board.shapes[0][p], fresh.shapes[0][p]);
            assert_eq!(board.shapes[1][p], fresh.shapes[1][p]);
        }
    }

    #[test]
    fn shapes_follow_random_games_and_their_unmakes_under_every_rule() {
        let mut rng = Rng::new(7);
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            for size in [7, 15] {
                let start = Gomoku::new(size, rule).unwrap();
                let mut board = ShapeBoard::new(&start);
                let mut hashes = vec![board.hash()];
                let mut moves = Vec::new();
                while !board.won() && board.pos.stones() < board.points() {
                    board.pos.legal_actions(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    let p = usize::from(rng.pick(&moves));
                    board.make(p);
                    hashes.push(board.hash());
                    // The table's shapes are the scanning heuristic's, point by point.
                    for q in (0..board.points()).filter(|&q| board.is_empty(q)) {
                        for player in [Player::P1, Player::P2] {
                            let scanned = point_shapes(board.position(), q, player);
                            for d in 0..4 {
                                assert_eq!(board.shape(player, q, d) as u8, scanned.lines[d]);
                            }
                        }
                    }
                    if board.ply() % 5 == 0 {
                        assert_fresh(&board);
                    }
                }
                while board.ply() > 0 {
                    board.unmake();
                    hashes.pop();
                    assert_eq!(Some(&board.hash()), hashes.last());
                }
                assert_fresh(&board);
                assert_eq!(board.counts, ShapeBoard::new(&start).counts);
            }
        }
    }

    #[test]
    fn five_points_and_threats_are_read_from_the_shapes() {
        let rows = ranks_board(&[(8, "...XXXX"), (1, "O.O.O.O")]);
        let g = Gomoku::from_board(15, Rule::Freestyle, &rows, Player::P1).unwrap();
        let board = ShapeBoard::new(&g);
        let mut fives = Vec::new();
        board.five_points(Player::P1, &mut fives);
        let names: Vec<String> = fives.iter().map(|&p| g.point_name(p)).collect();
        assert_eq!(names, ["c8", "h8"]);
        assert!(board.threat(Player::P1, fives[0]).five);
        assert!(!board.has_five_point(Player::P2));
        // White's b1: O.O.O.O with b1 makes a broken line, a four (one five point left).
        let b1 = g.point(1, 0).unwrap();
        assert!(board.threat(Player::P2, b1).is_four());
    }
}
