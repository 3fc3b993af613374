//! Gomoku behind the [`Game`] trait: moves, notation, the board as text.

use std::fmt;

use super::{Gomoku, Rule, EMPTY, MAX_POINTS};
use crate::game::{Action, ActionError, Game, Outcome, Player};
use crate::rng::Rng;

impl Gomoku {
    /// The board as text: ranks from the top down split by `/`, `X` black, `O` white, `.`.
    pub fn board_string(&self) -> String {
        let n = self.size();
        (0..n)
            .rev()
            .map(|row| {
                (0..n)
                    .map(|col| self.cell_char(row * n + col))
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    fn cell_char(&self, p: usize) -> char {
        match self.stone(p) {
            Some(Player::P1) => 'X',
            Some(Player::P2) => 'O',
            None => '.',
        }
    }

    fn is_full(&self) -> bool {
        self.stones() == self.points()
    }
}

impl Game for Gomoku {
    fn name(&self) -> &'static str {
        "gomoku"
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    /// Every empty point, less black's forbidden points under renju.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.is_terminal() {
            return;
        }
        let renju_black = self.rule == Rule::Renju && self.to_move == Player::P1;
        for p in 0..self.points() {
            if self.cells[p] == EMPTY && !(renju_black && super::renju::forbidden(self, p)) {
                out.push(p as Action);
            }
        }
    }

    fn max_actions(&self) -> usize {
        self.points()
    }

    fn is_legal(&self, action: Action) -> bool {
        let p = action as usize;
        !self.is_terminal() && p < self.points() && self.cells[p] == EMPTY && !self.is_forbidden(p)
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal move {action}");
        self.play(action as usize);
    }

    fn is_terminal(&self) -> bool {
        self.winner.is_some() || self.is_full()
    }

    /// Random stones on the empty points (a list on the stack, a point drawn and removed each
    /// move; under renju a point forbidden to black is drawn again, and a black side with
    /// only forbidden points left draws the game).
    fn random_rollout(&mut self, rng: &mut Rng) -> Outcome {
        let mut empty = [0u16; MAX_POINTS];
        let mut len = 0;
        for p in 0..self.points() {
            if self.cells[p] == EMPTY {
                empty[len] = p as u16;
                len += 1;
            }
        }
        let renju = self.rule == Rule::Renju;
        while !self.is_terminal() {
            let mut tries = len;
            loop {
                let i = rng.below(len as u32) as usize;
                let p = empty[i] as usize;
                if renju && self.to_move == Player::P1 && super::renju::forbidden(self, p) {
                    tries -= 1;
                    if tries == 0 {
                        return Outcome::Draw;
                    }
                    continue;
                }
                empty[i] = empty[len - 1];
                len -= 1;
                self.play(p);
                break;
            }
        }
        self.outcome().expect("a finished game has an outcome")
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.winner {
            Some(p) => Some(Outcome::win_for(p)),
            None if self.is_full() => Some(Outcome::Draw),
            None => None,
        }
    }

    /// Black's stones, white's stones (a plane of `size * size` each), and 1 when black is to
    /// move.
    fn feature_len(&self) -> usize {
        2 * self.points() + 1
    }

    fn encode_features(&self, out: &mut [f32]) {
        let n = self.points();
        for p in 0..n {
            out[p] = f32::from(u8::from(self.cells[p] == 1));
            out[n + p] = f32::from(u8::from(self.cells[p] == 2));
        }
        out[2 * n] = f32::from(u8::from(self.to_move == Player::P1));
    }

    /// `h8` (file letter, rank from the bottom) or Gomocup's `x,y` (0-based column, row from
    /// the top).
    fn parse_action(&self, text: &str) -> Result<Action, ActionError> {
        let t = text.trim().to_ascii_lowercase();
        let malformed = || {
            ActionError::Malformed {
            text: t.clone(),
            expected: "a point such as h8 (file, rank from the bottom) or x,y (Gomocup: column, row from the top, from 0)".into(),
        }
        };
        let n = self.size() as i32;
        let off = |detail: String| ActionError::OutOfRange {
            text: t.clone(),
            detail,
        };
        if let Some((x, y)) = t.split_once(',') {
            let x: i32 = x.trim().parse().map_err(|_| malformed())?;
            let y: i32 = y.trim().parse().map_err(|_| malformed())?;
            return self.gomocup_point(x, y).ok_or_else(|| {
                off(format!(
                    "{x},{y} is off the {n}x{n} board (0 to {} each)",
                    n - 1
                ))
            });
        }
        let mut chars = t.chars();
        let file = chars
            .next()
            .filter(|c| c.is_ascii_lowercase())
            .ok_or_else(malformed)?;
        let rank: i32 = chars.as_str().parse().map_err(|_| malformed())?;
        let col = file as i32 - 'a' as i32;
        self.point(col, rank - 1)
            .map(|p| p as Action)
            .ok_or_else(|| {
                off(format!(
                    "{t} is off the {n}x{n} board (files a-{}, ranks 1-{n})",
                    (b'a' + n as u8 - 1) as char
                ))
            })
    }

    fn format_action(&self, action: Action) -> String {
        if (action as usize) < MAX_POINTS {
            self.point_name(action as usize)
        } else {
            format!("#{action}")
        }
    }

    /// Gomocup's openings (`x,y, x,y, ...`: offsets from the centre point `size / 2`, column
    /// then row from the top, pairs separated by commas), as c-gomoku-cli and the tournament
    /// read them. A line of `x,y` words separated by spaces alone is Gomocup's absolute points
    /// and is left to [`parse_action`](Game::parse_action).
    fn parse_start_line(&self, line: &str) -> Option<Result<Vec<Action>, String>> {
        let pieces: Vec<&str> = line.trim().trim_end_matches(',').split(',').collect();
        let numbers: Vec<i32> = pieces
            .iter()
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        if numbers.is_empty() || numbers.len() % 2 != 0 {
            return None;
        }
        let centre = (self.size() / 2) as i32;
        let mut state = *self;
        let mut moves = Vec::with_capacity(numbers.len() / 2);
        for (i, pair) in numbers.chunks(2).enumerate() {
            let (dx, dy) = (pair[0], pair[1]);
            let (x, y) = (centre + dx, centre + dy);
            let at = format!("stone {} (offset {dx},{dy}, point {x},{y})", i + 1);
            let Some(a) = state.gomocup_point(x, y) else {
                let n = self.size();
                return Some(Err(format!("{at} is off the {n}x{n} board")));
            };
            if state.is_terminal() {
                return Some(Err(format!("{at} comes after a five: the game is over")));
            }
            if !state.is_legal(a) {
                return Some(Err(format!("{at}: {}", state.illegal_reason(a))));
            }
            state.apply(a);
            moves.push(a);
        }
        Some(Ok(moves))
    }

    fn illegal_reason(&self, action: Action) -> String {
        let p = action as usize;
        if p >= self.points() {
            format!("{} is off the board", self.format_action(action))
        } else if let Some(owner) = self.stone(p) {
            format!("{} is taken by {owner}", self.point_name(p))
        } else if self.is_forbidden(p) {
            let s = super::renju::shapes(self, p);
            let why = if s.overline {
                "an overline"
            } else if s.fours >= 2 {
                "a double four"
            } else {
                "a double three"
            };
            format!(
                "{} is forbidden to black under renju ({why})",
                self.point_name(p)
            )
        } else {
            "the game is over".into()
        }
    }
}

impl fmt::Display for Gomoku {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.size();
        for row in (0..n).rev() {
            write!(f, "{:>2} ", row + 1)?;
            for col in 0..n {
                write!(f, " {}", self.cell_char(row * n + col))?;
            }
            writeln!(f)?;
        }
        write!(f, "   ")?;
        for col in 0..n {
            write!(f, " {}", (b'a' + col as u8) as char)?;
        }
        writeln!(f)?;
        write!(
            f,
            "{} to move; {} stones; {}",
            self.to_move,
            self.stones(),
            self.rule.name()
        )
    }
}

impl fmt::Debug for Gomoku {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Gomoku({} {})", self.board_string(), self.to_move)
    }
}

impl PartialEq for Gomoku {
    fn eq(&self, other: &Gomoku) -> bool {
        self.size == other.size
            && self.rule == other.rule
            && self.to_move == other.to_move
            && self.winner == other.winner
            && self.cells[..self.points()] == other.cells[..other.points()]
    }
}
