//! The Game of the Amazons on 10x10 (the standard game), 8x8 (Botzone's) and 6x6 (OpenSpiel's).
//!
//! # Rules
//!
//! Each side has four amazons. A turn is a queen-like move of one of your amazons onto an empty
//! square (any distance along a rank, file or diagonal, without crossing an amazon or an arrow),
//! then a queen-like arrow shot from the landing square onto an empty square; the shot may pass
//! over or land on the square just left. Arrows stay for the rest of the game. The player who
//! cannot move on their turn loses; there are no draws.
//!
//! Starts (P1 moves first; ranks count from P1's side):
//! * 10x10: P1 (White) a4 d1 g1 j4, P2 (Black) a7 d10 g10 j7.
//! * 8x8: Botzone's board, whose top side moves first: P1 a3 c1 f1 h3, P2 a6 c8 f8 h6
//!   (Botzone's `(x, y)` is file x, rank y + 1 here: its row 0 is P1's first rank).
//! * 6x6: OpenSpiel's, P1 b1 e1 a2 f2, P2 b6 e6 a5 f5.
//!
//! # Turn shapes
//!
//! * `turn=split` (default): the queen move and the arrow are two plies of the same player
//!   (Move Groups: two levels of the search tree). Ids: queen ply `from * n² + to`, arrow ply
//!   the arrow's square (compact squares `rank * n + file`).
//! * `turn=whole`: one action a turn (the paper's "traditional MCTS"). Id
//!   `(amazon * n² + to) * n² + arrow`, where `amazon` (0-3) is the rank of the moving amazon's
//!   square among its side's four in square order: below 40,000, so it fits 16 bits.
//!
//! # Notation
//!
//! `d1-d7/g7` (from-to/arrow; files a.., ranks 1..), read and written everywhere; where a ply is
//! asked for in a split game, `d1-d7` (the queen ply) or `g7` (the arrow) alone.

pub mod board;
pub mod botzone;
mod engine;
pub mod eval;
mod game;
pub mod parallel_eval;
pub mod players;
pub mod rollout;
#[cfg(test)]
mod tests;
pub mod tuning;

use std::fmt;

use crate::game::{Action, ActionError, Player};
use board::{BitIter, Bits, Geometry};

pub use engine::bench_middle_game;
pub use eval::{EvalTerms, EvalWeights, Evaluator, WSegments};
pub use players::{AlphaBeta, AmazonsMcts, AmazonsMctsConfig, Greedy};
pub use rollout::{Backup, EvalRollout};

/// How a turn is split into actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TurnShape {
    /// Queen move and arrow are two plies (Move Groups).
    Split,
    /// One action a turn.
    Whole,
}

/// A position of the Game of the Amazons.
#[derive(Clone, Copy)]
pub struct Amazons {
    geo: &'static Geometry,
    /// Amazons of P1 and P2.
    pieces: [Bits; 2],
    arrows: Bits,
    to_move: Player,
    shape: TurnShape,
    /// Split turns: the bit the amazon just moved to and the bit it left, while its arrow is due.
    pending: Option<(u8, u8)>,
    /// Whole turns played.
    turns: u16,
}

/// What makes a position equal to another: size, pieces, arrows, mover, shape, pending, turns.
type PositionKey = (
    usize,
    [Bits; 2],
    Bits,
    Player,
    TurnShape,
    Option<(u8, u8)>,
    u16,
);

impl Amazons {
    /// Everything that makes the position, the board size standing for its tables.
    fn key(&self) -> PositionKey {
        (
            self.geo.n,
            self.pieces,
            self.arrows,
            self.to_move,
            self.shape,
            self.pending,
            self.turns,
        )
    }
}

impl PartialEq for Amazons {
    fn eq(&self, other: &Amazons) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Amazons {}

impl std::hash::Hash for Amazons {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

/// The board sizes: the game's parameter `size`.
pub const SIZES: [i64; 3] = [10, 8, 6];

/// A whole turn: the amazon's square, where it lands, where its arrow lands (bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub from: u32,
    pub to: u32,
    pub arrow: u32,
}

impl Amazons {
    /// The start position of the `n` x `n` game (10, 8 or 6).
    pub fn new(n: usize, shape: TurnShape) -> Result<Amazons, String> {
        let start: (&[&str], &[&str]) = match n {
            10 => (&["a4", "d1", "g1", "j4"], &["a7", "d10", "g10", "j7"]),
            8 => (&["a3", "c1", "f1", "h3"], &["a6", "c8", "f8", "h6"]),
            6 => (&["b1", "e1", "a2", "f2"], &["b6", "e6", "a5", "f5"]),
            _ => {
                return Err(format!(
                    "Amazons is played on 10x10, 8x8 or 6x6, not {n}x{n}"
                ))
            }
        };
        let geo = Geometry::of(n);
        let mut game = Amazons {
            geo,
            pieces: [0; 2],
            arrows: 0,
            to_move: Player::P1,
            shape,
            pending: None,
            turns: 0,
        };
        for (side, squares) in [start.0, start.1].iter().enumerate() {
            for s in *squares {
                let b = game
                    .parse_square(s)
                    .expect("start squares are on the board");
                game.pieces[side] |= 1 << b;
            }
        }
        Ok(game)
    }

    /// A position from a board string (rows from the top, rank n first: `W`/`1` P1's amazon,
    /// `B`/`2` P2's, `x`/`X`/`#` an arrow, `.`/`-` empty; rows separated by `/` or given as one
    /// run of n² characters), the player to move, and for a split game the amazon whose arrow is
    /// due (its square) with the square it came from.
    pub fn from_board(
        n: usize,
        shape: TurnShape,
        board: &str,
        to_move: Player,
        pending: Option<(&str, &str)>,
    ) -> Result<Amazons, String> {
        let mut game = Amazons::new(n, shape)?;
        game.pieces = [0; 2];
        let cells: Vec<char> = board.chars().filter(|c| *c != '/').collect();
        if cells.len() != n * n {
            return Err(format!(
                "a {n}x{n} board has {} squares, the board string '{board}' has {}",
                n * n,
                cells.len()
            ));
        }
        for (i, c) in cells.iter().enumerate() {
            let (rank, file) = (n - 1 - i / n, i % n);
            let bit = 1u128 << game.geo.bit(file, rank);
            match c {
                'W' | 'w' | '1' => game.pieces[0] |= bit,
                'B' | 'b' | '2' => game.pieces[1] |= bit,
                'x' | 'X' | '#' => game.arrows |= bit,
                '.' | '-' => {}
                other => {
                    return Err(format!(
                        "'{other}' at {} is not W, B, x or . in the board string",
                        game.square_name(game.geo.bit(file, rank))
                    ))
                }
            }
        }
        for (side, name) in [(0, "P1 (W)"), (1, "P2 (B)")] {
            let count = game.pieces[side].count_ones();
            if count != 4 {
                return Err(format!(
                    "{name} has {count} amazons on the board string, not 4"
                ));
            }
        }
        game.to_move = to_move;
        game.turns = (game.arrows.count_ones()) as u16;
        if let Some((to, from)) = pending {
            if shape == TurnShape::Whole {
                return Err("a whole-turn game has no arrow due".into());
            }
            let to_bit = game
                .parse_square(to)
                .map_err(|e| format!("the amazon whose arrow is due: {e}"))?;
            let from_bit = game
                .parse_square(from)
                .map_err(|e| format!("the square it came from: {e}"))?;
            if game.pieces[to_move.index()] & (1 << to_bit) == 0 {
                return Err(format!(
                    "no amazon of {to_move} on {to}, whose arrow would be due"
                ));
            }
            if game.empty() & (1 << from_bit) == 0 {
                return Err(format!("{from}, the square the amazon left, is not empty"));
            }
            if game.geo.queen_reach(to_bit, game.empty() | (1 << to_bit)) & (1 << from_bit) == 0 {
                return Err(format!("an amazon on {to} cannot have come from {from}"));
            }
            game.pending = Some((to_bit as u8, from_bit as u8));
            game.turns = game.turns.saturating_add(1);
        }
        Ok(game)
    }

    pub fn size(&self) -> usize {
        self.geo.n
    }

    pub fn shape(&self) -> TurnShape {
        self.shape
    }

    pub fn geometry(&self) -> &'static Geometry {
        self.geo
    }

    /// The amazons of `player`.
    #[inline]
    pub fn pieces(&self, player: Player) -> Bits {
        self.pieces[player.index()]
    }

    #[inline]
    pub fn arrows(&self) -> Bits {
        self.arrows
    }

    /// The empty squares.
    #[inline]
    pub fn empty(&self) -> Bits {
        self.geo.squares & !(self.pieces[0] | self.pieces[1] | self.arrows)
    }

    /// Arrows on the board: the number of whole turns played since an empty board.
    #[inline]
    pub fn arrows_shot(&self) -> u32 {
        self.arrows.count_ones()
    }

    /// Whole turns played (arrows shot, plus the turn under way in a split game).
    pub fn turns(&self) -> u32 {
        self.turns as u32
    }

    /// In a split game, the amazon whose arrow is due (its bit) and the bit it left.
    #[inline]
    pub fn pending(&self) -> Option<(u32, u32)> {
        self.pending.map(|(t, f)| (t as u32, f as u32))
    }

    /// Whether the player to move can make a whole turn (some amazon has an empty neighbour).
    #[inline]
    pub fn can_move(&self, player: Player) -> bool {
        self.geo.king_step(self.pieces[player.index()]) & self.empty() != 0
    }

    /// The name of a bit's square (`d7`).
    pub fn square_name(&self, bit: u32) -> String {
        let (f, r) = self.geo.coords(bit);
        format!("{}{}", (b'a' + f as u8) as char, r + 1)
    }

    /// Reads a square name (`d7`, `j10`).
    pub fn parse_square(&self, text: &str) -> Result<u32, String> {
        let text = text.trim();
        let n = self.geo.n;
        let mut chars = text.chars();
        let file = chars
            .next()
            .filter(|c| c.is_ascii_alphabetic())
            .map(|c| c.to_ascii_lowercase() as usize - 'a' as usize)
            .ok_or_else(|| format!("'{text}' is not a square (a file letter, then a rank)"))?;
        let rank: usize = chars
            .as_str()
            .parse()
            .map_err(|_| format!("'{text}' is not a square (a file letter, then a rank)"))?;
        if file >= n || rank == 0 || rank > n {
            return Err(format!(
                "{text} is off the {n}x{n} board (files a-{}, ranks 1-{n})",
                (b'a' + n as u8 - 1) as char
            ));
        }
        Ok(self.geo.bit(file, rank - 1))
    }

    /// The compact square (`rank * n + file`) of a bit.
    #[inline]
    fn compact(&self, bit: u32) -> u32 {
        self.geo.square_of[bit as usize] as u32
    }

    /// The bit of a compact square.
    #[inline]
    fn bit_of(&self, square: u32) -> u32 {
        self.geo.bit_of[square as usize] as u32
    }

    fn area(&self) -> u32 {
        (self.geo.n * self.geo.n) as u32
    }

    /// The id of a whole turn (in a whole-turn game).
    pub fn whole_id(&self, turn: Turn) -> Action {
        let mine = self.pieces[self.to_move.index()];
        let index = (mine & ((1u128 << turn.from) - 1)).count_ones();
        let a = self.area();
        ((index * a + self.compact(turn.to)) * a + self.compact(turn.arrow)) as Action
    }

    /// The whole turn an id names in this position (not checked for legality); `None` when the
    /// id names no amazon of the player to move.
    pub fn decode_whole(&self, action: Action) -> Option<Turn> {
        let a = self.area();
        let action = action as u32;
        let (index, to, arrow) = (action / (a * a), action / a % a, action % a);
        if index >= 4 {
            return None;
        }
        let from = BitIter(self.pieces[self.to_move.index()]).nth(index as usize)?;
        Some(Turn {
            from,
            to: self.bit_of(to),
            arrow: self.bit_of(arrow),
        })
    }

    /// The queen-ply id of a move from `from` to `to` (bits).
    pub fn queen_id(&self, from: u32, to: u32) -> Action {
        (self.compact(from) * self.area() + self.compact(to)) as Action
    }

    /// The arrow-ply id of a shot onto `arrow` (bit).
    pub fn arrow_id(&self, arrow: u32) -> Action {
        self.compact(arrow) as Action
    }

    /// Whether `turn` is a legal whole turn for the player to move (no arrow due).
    pub fn is_legal_turn(&self, turn: Turn) -> bool {
        let mine = self.pieces[self.to_move.index()];
        if self.pending.is_some() || mine & (1 << turn.from) == 0 {
            return false;
        }
        let empty = self.empty();
        if self.geo.queen_reach(turn.from, empty) & (1 << turn.to) == 0 {
            return false;
        }
        let after = (empty | (1 << turn.from)) & !(1 << turn.to);
        self.geo.queen_reach(turn.to, after) & (1 << turn.arrow) != 0
    }

    /// Plays a whole turn (legal; checked in debug builds), whatever the turn shape.
    #[inline]
    pub fn play_turn(&mut self, turn: Turn) {
        debug_assert!(self.is_legal_turn(turn), "illegal turn {turn:?}");
        let side = self.to_move.index();
        self.pieces[side] ^= (1 << turn.from) | (1 << turn.to);
        self.arrows |= 1 << turn.arrow;
        self.to_move = self.to_move.opponent();
        self.turns += 1;
    }

    /// Plays a random whole turn (the arrow due first, in a split game mid-turn): a uniformly
    /// random (amazon, destination) pair, then a uniformly random arrow. False when the player
    /// to move has no turn (the game is over).
    #[inline]
    pub fn play_random_turn(&mut self, rng: &mut crate::rng::Rng) -> bool {
        let empty = self.empty();
        if let Some((to, _)) = self.pending {
            let reach = self.geo.queen_reach(to as u32, empty);
            let arrow = board::nth_bit(reach, rng.below(reach.count_ones()));
            self.arrows |= 1 << arrow;
            self.pending = None;
            self.to_move = self.to_move.opponent();
            return true;
        }
        let mine = self.pieces[self.to_move.index()];
        let mut reaches = [0u128; 4];
        let mut froms = [0u32; 4];
        let mut total = 0;
        for (i, from) in BitIter(mine).enumerate() {
            froms[i] = from;
            reaches[i] = self.geo.queen_reach(from, empty);
            total += reaches[i].count_ones();
        }
        if total == 0 {
            return false;
        }
        let mut k = rng.below(total);
        let mut i = 0;
        while k >= reaches[i].count_ones() {
            k -= reaches[i].count_ones();
            i += 1;
        }
        let from = froms[i];
        let to = board::nth_bit(reaches[i], k);
        let after = (empty | (1 << from)) & !(1 << to);
        let shots = self.geo.queen_reach(to, after);
        let arrow = board::nth_bit(shots, rng.below(shots.count_ones()));
        self.play_turn(Turn { from, to, arrow });
        true
    }

    /// Every legal whole turn, into `out` (cleared), in ascending whole-id order.
    pub fn whole_turns(&self, out: &mut Vec<Turn>) {
        out.clear();
        let empty = self.empty();
        for from in BitIter(self.pieces[self.to_move.index()]) {
            for to in BitIter(self.geo.queen_reach(from, empty)) {
                let after = (empty | (1 << from)) & !(1 << to);
                for arrow in BitIter(self.geo.queen_reach(to, after)) {
                    out.push(Turn { from, to, arrow });
                }
            }
        }
    }

    /// Whole turns from here, counted `depth` turns deep (the leaves are counted, not played).
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let empty = self.empty();
        let mut count = 0u64;
        for from in BitIter(self.pieces[self.to_move.index()]) {
            for to in BitIter(self.geo.queen_reach(from, empty)) {
                let after = (empty | (1 << from)) & !(1 << to);
                let shots = self.geo.queen_reach(to, after);
                if depth == 1 {
                    count += shots.count_ones() as u64;
                    continue;
                }
                for arrow in BitIter(shots) {
                    let mut next = *self;
                    next.play_turn(Turn { from, to, arrow });
                    count += next.perft(depth - 1);
                }
            }
        }
        count
    }

    /// The board as `set_position` reads it: rows from rank n down, joined by `/`.
    pub fn board_string(&self) -> String {
        let n = self.geo.n;
        let mut rows = Vec::with_capacity(n);
        for rank in (0..n).rev() {
            let row: String = (0..n)
                .map(|file| self.cell(self.geo.bit(file, rank)))
                .collect();
            rows.push(row);
        }
        rows.join("/")
    }

    fn cell(&self, bit: u32) -> char {
        let m = 1u128 << bit;
        if self.pieces[0] & m != 0 {
            'W'
        } else if self.pieces[1] & m != 0 {
            'B'
        } else if self.arrows & m != 0 {
            'x'
        } else {
            '.'
        }
    }

    /// Reads a whole turn `d1-d7/g7` (squares checked, legality not).
    pub fn parse_turn_text(&self, text: &str) -> Result<Turn, ActionError> {
        let malformed = || ActionError::Malformed {
            text: text.to_string(),
            expected: "a turn from-to/arrow such as d1-d7/g7".into(),
        };
        let (queen, arrow) = text.split_once('/').ok_or_else(malformed)?;
        let (from, to) = queen.split_once('-').ok_or_else(malformed)?;
        let square = |s: &str| {
            self.parse_square(s)
                .map_err(|detail| ActionError::OutOfRange {
                    text: text.to_string(),
                    detail,
                })
        };
        Ok(Turn {
            from: square(from)?,
            to: square(to)?,
            arrow: square(arrow)?,
        })
    }

    /// `d1-d7/g7`.
    pub fn format_turn(&self, turn: Turn) -> String {
        format!(
            "{}-{}/{}",
            self.square_name(turn.from),
            self.square_name(turn.to),
            self.square_name(turn.arrow)
        )
    }
}

impl fmt::Display for Amazons {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.geo.n;
        for rank in (0..n).rev() {
            write!(f, "{:>2} ", rank + 1)?;
            for file in 0..n {
                let bit = self.geo.bit(file, rank);
                let c = match self.pending {
                    Some((to, _)) if to as u32 == bit => '*',
                    _ => self.cell(bit),
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        write!(f, "   ")?;
        for file in 0..n {
            write!(f, " {}", (b'a' + file as u8) as char)?;
        }
        writeln!(f)?;
        let who = match self.to_move {
            Player::P1 => "P1 (W)",
            Player::P2 => "P2 (B)",
        };
        match self.pending {
            Some((to, from)) => write!(
                f,
                "{who} to shoot the arrow of the amazon that moved {}-{} (*)",
                self.square_name(from as u32),
                self.square_name(to as u32)
            ),
            None => write!(f, "{who} to move, turn {}", self.turns + 1),
        }
    }
}

impl fmt::Debug for Amazons {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Amazons({} {:?})", self.board_string(), self.to_move)
    }
}
