//! Gomoku (the fifth paper, `gomoku-mcts.txt`), with the rule sets Gomocup names.
//!
//! * A square board of `size` x `size` points (5 to 22; 15 and 20 are Gomocup's), black (P1)
//!   first, one stone a move on an empty point.
//! * `rule=freestyle`: five or more in a row wins. `rule=standard`: exactly five wins; an
//!   overline (six or more) does not win, and the game goes on. `rule=renju`: white wins with
//!   five or more; black wins with exactly five, and black may not play a forbidden point: an
//!   overline, a double four (two fours at once, also two in one line) or a double three (two
//!   live threes at once), unless the move makes exactly five, which wins whatever else it
//!   makes ([`renju`]).
//! * A full board with no winner is a draw.
//! * Notation: `h8` (files a, b, ... from the left, ranks 1, 2, ... from the bottom; no letter
//!   is skipped), and on input also Gomocup's `x,y` (0-based column from the left, row from
//!   the top).
//!
//! The board is one byte a point (0 empty, 1 black, 2 white), point `row * size + col` with row
//! 0 the bottom rank.

mod bench;
mod game;
pub mod gomocup;
pub mod manager;
pub mod net;
pub mod openings;
pub mod patterns;
pub mod pvs;
mod registry;
pub use registry::pvs_spec_config;
pub mod renju;
pub mod rival;
pub mod search;
pub mod shape_board;
#[cfg(test)]
pub(crate) mod tests;
pub mod threat_space;
pub mod tuning;

use crate::game::{Action, Player};

/// The largest side.
pub const MAX_SIZE: usize = 22;
/// The smallest side.
pub const MIN_SIZE: usize = 5;
/// Points of the largest board.
pub const MAX_POINTS: usize = MAX_SIZE * MAX_SIZE;

const EMPTY: u8 = 0;

/// The four line directions as (column, row) steps.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// What wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Five or more in a row.
    Freestyle,
    /// Exactly five; an overline does not win.
    Standard,
    /// Black: exactly five, and forbidden points; white: five or more.
    Renju,
}

impl Rule {
    pub const NAMES: [&'static str; 3] = ["freestyle", "standard", "renju"];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn from_index(i: usize) -> Rule {
        [Rule::Freestyle, Rule::Standard, Rule::Renju][i.min(2)]
    }

    /// The rule's name, as the game's `rule` parameter spells it.
    pub fn name(self) -> &'static str {
        Rule::NAMES[self.index()]
    }

    /// The rule named `text` (one of [`Rule::NAMES`]).
    pub fn parse(text: &str) -> Result<Rule, String> {
        Rule::NAMES
            .iter()
            .position(|&n| n == text)
            .map(Rule::from_index)
            .ok_or_else(|| format!("rule '{text}' is not one of {}", Rule::NAMES.join(", ")))
    }

    /// Whether only exactly five wins for `player` (an overline does not).
    #[inline]
    pub fn exactly_five(self, player: Player) -> bool {
        matches!(
            (self, player),
            (Rule::Standard, _) | (Rule::Renju, Player::P1)
        )
    }

    /// Whether a run of `run` stones of `player` wins.
    #[inline]
    pub fn wins(self, player: Player, run: usize) -> bool {
        if self.exactly_five(player) {
            run == 5
        } else {
            run >= 5
        }
    }
}

/// Words of a player's [line bits](Gomoku::lines): the rows, the columns, the diagonals
/// (up-right) and the anti-diagonals (down-right) of the largest board.
const LINE_WORDS: usize = 2 * MAX_SIZE + 2 * (2 * MAX_SIZE - 1);
const COLUMNS_AT: usize = MAX_SIZE;
const DIAGONALS_AT: usize = 2 * MAX_SIZE;
const ANTI_DIAGONALS_AT: usize = DIAGONALS_AT + 2 * MAX_SIZE - 1;

/// A position of Gomoku.
#[derive(Clone, Copy)]
pub struct Gomoku {
    cells: [u8; MAX_POINTS],
    /// Each player's stones line by line, a bit a point (the column's, or the row's in a
    /// column): a run through a point is two bit counts, not a walk (kept with `cells`).
    lines: [[u32; LINE_WORDS]; 2],
    size: u8,
    rule: Rule,
    to_move: Player,
    stones: u16,
    winner: Option<Player>,
    /// The last two moves, the latest first ([`NO_MOVE`] where unknown: a position set from
    /// a board). Not part of the position's identity; the rollouts' threat tracking reads it.
    last: [u16; 2],
}

/// No move in [`Gomoku::last_moves`].
pub const NO_MOVE: u16 = u16::MAX;

impl Gomoku {
    /// The empty board (`size` checked by the registry's parameters).
    pub fn new(size: usize, rule: Rule) -> Result<Gomoku, String> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(format!(
                "a Gomoku board is {MIN_SIZE} to {MAX_SIZE} points a side, not {size}"
            ));
        }
        Ok(Gomoku {
            cells: [EMPTY; MAX_POINTS],
            lines: [[0; LINE_WORDS]; 2],
            size: size as u8,
            rule,
            to_move: Player::P1,
            stones: 0,
            winner: None,
            last: [NO_MOVE; 2],
        })
    }

    pub fn size(&self) -> usize {
        self.size as usize
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    pub fn points(&self) -> usize {
        self.size() * self.size()
    }

    pub fn stones(&self) -> usize {
        self.stones as usize
    }

    pub fn winner(&self) -> Option<Player> {
        self.winner
    }

    /// The stone on point `p`: `None` when empty.
    #[inline]
    pub fn stone(&self, p: usize) -> Option<Player> {
        match self.cells[p] {
            1 => Some(Player::P1),
            2 => Some(Player::P2),
            _ => None,
        }
    }

    /// The point at column `col`, row `row` (row 0 the bottom rank), if on the board.
    #[inline]
    pub fn point(&self, col: i32, row: i32) -> Option<usize> {
        let n = self.size as i32;
        (col >= 0 && col < n && row >= 0 && row < n).then(|| (row * n + col) as usize)
    }

    /// The empty points within `d` (king steps) of a stone, as flags; the centre on an empty
    /// board.
    pub fn near_flags(&self, d: i32) -> [bool; MAX_POINTS] {
        let mut near = [false; MAX_POINTS];
        let n = self.size as i32;
        if self.stones == 0 {
            near[self.point(n / 2, n / 2).expect("the centre")] = true;
            return near;
        }
        for p in (0..self.points()).filter(|&p| self.stone(p).is_some()) {
            let (c, r) = self.col_row(p);
            for dr in -d..=d {
                for dc in -d..=d {
                    if let Some(q) = self.point(c + dc, r + dr) {
                        near[q] |= self.stone(q).is_none();
                    }
                }
            }
        }
        near
    }

    /// The same points, listed in ascending order.
    pub fn near_points(&self, d: i32, out: &mut Vec<usize>) {
        out.clear();
        let near = self.near_flags(d);
        out.extend((0..self.points()).filter(|&p| near[p]));
    }

    #[inline]
    fn col_row(&self, p: usize) -> (i32, i32) {
        let n = self.size();
        ((p % n) as i32, (p / n) as i32)
    }

    /// The stone byte at `k` steps from `p` in direction `d` (3 off the board).
    #[inline]
    fn at(&self, p: usize, d: (i32, i32), k: i32) -> u8 {
        let (c, r) = self.col_row(p);
        match self.point(c + d.0 * k, r + d.1 * k) {
            Some(q) => self.cells[q],
            None => 3,
        }
    }

    /// The run of `player`'s stones through `p` in direction `d`, counting `p` as theirs.
    #[inline]
    fn run(&self, p: usize, d: (i32, i32), player: Player) -> usize {
        let (c, r) = self.col_row(p);
        self.run_at(c, r, d, player.number())
    }

    /// [`run`](Self::run) from the point's column and row, for stones of `colour` (1 or 2).
    #[inline]
    fn run_at(&self, c: i32, r: i32, d: (i32, i32), colour: u8) -> usize {
        let (word, bit) = self.line_of(c, r, d);
        // Only the board's points have bits, so a run stops at the edge by itself.
        let x = self.lines[usize::from(colour - 1)][word] | 1 << bit;
        let up = (!(x >> bit)).trailing_zeros();
        let down = (!(x << (31 - bit))).leading_zeros();
        (up + down - 1) as usize
    }

    /// The line word through column `c`, row `r` along direction `d` (one of
    /// [`DIRECTIONS`]), and the point's bit in it.
    #[inline]
    fn line_of(&self, c: i32, r: i32, d: (i32, i32)) -> (usize, u32) {
        let n = self.size as i32;
        match d {
            (1, 0) => (r as usize, c as u32),
            (0, 1) => (COLUMNS_AT + c as usize, r as u32),
            (1, 1) => (DIAGONALS_AT + (c - r + n - 1) as usize, c as u32),
            _ => (ANTI_DIAGONALS_AT + (c + r) as usize, c as u32),
        }
    }

    /// Sets point `p` to `value` (`EMPTY`, 1 or 2), keeping the line bits.
    #[inline]
    fn set_cell(&mut self, p: usize, value: u8) {
        let (c, r) = self.col_row(p);
        self.set_cell_at(p, c, r, value);
    }

    /// [`set_cell`](Self::set_cell) with the point's column and row known.
    #[inline]
    fn set_cell_at(&mut self, p: usize, c: i32, r: i32, value: u8) {
        let old = self.cells[p];
        for d in DIRECTIONS {
            let (word, bit) = self.line_of(c, r, d);
            if old != EMPTY {
                self.lines[usize::from(old - 1)][word] &= !(1 << bit);
            }
            if value != EMPTY {
                self.lines[usize::from(value - 1)][word] |= 1 << bit;
            }
        }
        self.cells[p] = value;
    }

    /// Whether a stone of `player` on `p` makes a winning line under the rule.
    pub fn wins_at(&self, p: usize, player: Player) -> bool {
        // One division for the column and row, not one a direction.
        let (c, r) = self.col_row(p);
        self.wins_from(c, r, player)
    }

    /// [`wins_at`](Self::wins_at) the point at column `c`, row `r`.
    #[inline]
    fn wins_from(&self, c: i32, r: i32, player: Player) -> bool {
        let colour = player.number();
        DIRECTIONS
            .iter()
            .any(|&d| self.rule.wins(player, self.run_at(c, r, d, colour)))
    }

    /// Whether `p` is forbidden to the player to move (black under renju only).
    pub fn is_forbidden(&self, p: usize) -> bool {
        self.rule == Rule::Renju
            && self.to_move == Player::P1
            && self.cells[p] == EMPTY
            && renju::forbidden(self, p)
    }

    /// Puts a stone of `player` on `p` with no rule applied (tests and positions).
    fn put(&mut self, p: usize, player: Option<Player>) {
        let before = self.cells[p] != EMPTY;
        self.set_cell(p, player.map_or(EMPTY, |pl| pl.number()));
        let after = self.cells[p] != EMPTY;
        self.stones = self.stones + u16::from(after) - u16::from(before);
    }

    /// Plays `p` (legal) for the side to move.
    fn play(&mut self, p: usize) {
        let me = self.to_move;
        let (c, r) = self.col_row(p);
        self.set_cell_at(p, c, r, me.number());
        self.stones += 1;
        // Five stones of one colour need nine on the board (black's fifth is the ninth).
        if self.stones >= 9 && self.wins_from(c, r, me) {
            self.winner = Some(me);
        }
        self.to_move = me.opponent();
        self.last = [p as u16, self.last[0]];
    }

    /// Takes back `p`, the last move played, with `last` the moves before it (the searches'
    /// unmake: the position was not won before `p`).
    fn unplay(&mut self, p: usize, last: [u16; 2]) {
        let (c, r) = self.col_row(p);
        self.set_cell_at(p, c, r, EMPTY);
        self.stones -= 1;
        self.winner = None;
        self.to_move = self.to_move.opponent();
        self.last = last;
    }

    /// The last two moves, the latest first, where known.
    pub fn last_moves(&self) -> [Option<usize>; 2] {
        self.last.map(|m| (m != NO_MOVE).then_some(usize::from(m)))
    }

    /// A position from its stones (`X` black, `O` white, `.` empty; rows from the top rank
    /// down, split by `/`), with `to_move` to move; refused when the counts cannot happen or
    /// someone has already won.
    pub fn from_board(
        size: usize,
        rule: Rule,
        text: &str,
        to_move: Player,
    ) -> Result<Gomoku, String> {
        let mut g = Gomoku::new(size, rule)?;
        let rows: Vec<&str> = text.trim().split('/').collect();
        if rows.len() != size || rows.iter().any(|r| r.chars().count() != size) {
            return Err(format!(
                "board '{text}' is not {size} rows of {size} points (top rank first, split by '/')"
            ));
        }
        for (i, row) in rows.iter().enumerate() {
            for (col, c) in row.chars().enumerate() {
                let p = (size - 1 - i) * size + col;
                match c {
                    'X' | 'x' => g.put(p, Some(Player::P1)),
                    'O' | 'o' => g.put(p, Some(Player::P2)),
                    '.' => {}
                    other => {
                        return Err(format!(
                            "board '{text}': '{other}' is not X (black), O (white) or '.'"
                        ))
                    }
                }
            }
        }
        g.to_move = to_move;
        g.check_counts()?;
        for p in 0..g.points() {
            if let Some(pl) = g.stone(p) {
                if g.wins_at(p, pl) {
                    return Err(format!(
                        "board '{text}': {} already has a winning line at {}",
                        pl,
                        g.point_name(p)
                    ));
                }
            }
        }
        Ok(g)
    }

    /// Black has as many stones as white, or one more, as alternate moves make.
    fn check_counts(&self) -> Result<(), String> {
        let count = |colour| {
            self.cells[..self.points()]
                .iter()
                .filter(|&&c| c == colour)
                .count()
        };
        let (black, white) = (count(1), count(2));
        let ok = match self.to_move {
            Player::P1 => black == white,
            Player::P2 => black == white + 1,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{black} black and {white} white stones with {} to move cannot happen: black moves first",
                self.to_move
            ))
        }
    }

    /// `h8`: the file letter and the rank from the bottom.
    pub fn point_name(&self, p: usize) -> String {
        let (c, r) = self.col_row(p);
        format!("{}{}", (b'a' + c as u8) as char, r + 1)
    }

    /// The move at Gomocup's `x,y` (column from the left, row from the top, 0-based).
    pub fn gomocup_point(&self, x: i32, y: i32) -> Option<Action> {
        self.point(x, self.size as i32 - 1 - y).map(|p| p as Action)
    }

    /// Gomocup's `x,y` of a move.
    pub fn gomocup_coords(&self, action: Action) -> (i32, i32) {
        let (c, r) = self.col_row(action as usize);
        (c, self.size as i32 - 1 - r)
    }
}
