//! Tic-tac-toe: the small game on which the search is checked against exact minimax.
//!
//! Cells are numbered 0..9 row by row (0 top left, 8 bottom right); a move is written as its
//! cell number or as a letter and a row, `a1` (top left) to `c3` (bottom right). P1 plays X.
//! Value-net input: 18 floats, 9 for X's cells then 9 for O's (1.0 where the mark is).

use std::collections::HashMap;
use std::fmt;

use crate::game::{Action, ActionError, Game, Outcome, Player};

const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];
const FULL: u16 = 0b111_111_111;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TicTacToe {
    /// Cells marked by P1 (X) and by P2 (O).
    marks: [u16; 2],
}

impl TicTacToe {
    pub fn new() -> TicTacToe {
        TicTacToe::default()
    }

    /// The position after `moves` (text, separated by spaces), each checked for legality.
    pub fn from_move_text(text: &str) -> Result<TicTacToe, (usize, ActionError)> {
        let mut s = TicTacToe::new();
        for (i, word) in text.split_whitespace().enumerate() {
            let a = s.parse_legal_action(word).map_err(|e| (i, e))?;
            s.apply(a);
        }
        Ok(s)
    }

    /// The position from its nine cells row by row (`a1 b1 c1 a2 ... c3`), each `X`, `O` or
    /// `.` (either case; `-` also means empty). The player to move follows from the counts.
    pub fn from_board_string(text: &str) -> Result<TicTacToe, String> {
        let cells: Vec<char> = text.trim().chars().collect();
        if cells.len() != 9 {
            return Err(format!(
                "a board is 9 cells of X, O or '.', got {} characters",
                cells.len()
            ));
        }
        let mut s = TicTacToe::new();
        for (i, c) in cells.into_iter().enumerate() {
            match c {
                'x' | 'X' => s.marks[0] |= 1 << i,
                'o' | 'O' => s.marks[1] |= 1 << i,
                '.' | '-' => {}
                other => return Err(format!("cell {} is '{other}', expected X, O or '.'", i + 1)),
            }
        }
        let (x, o) = (s.marks[0].count_ones(), s.marks[1].count_ones());
        if x != o && x != o + 1 {
            return Err(format!(
                "{x} X and {o} O cannot happen: X moves first, so X has as many marks as O or one more"
            ));
        }
        if Self::has_line(s.marks[0]) && Self::has_line(s.marks[1]) {
            return Err("both players have a line".into());
        }
        Ok(s)
    }

    /// The nine cells row by row, `X`, `O` or `.`: what [`from_board_string`](Self::from_board_string) reads.
    pub fn board_string(&self) -> String {
        (0..9)
            .map(|i| {
                if self.marks[0] >> i & 1 == 1 {
                    'X'
                } else if self.marks[1] >> i & 1 == 1 {
                    'O'
                } else {
                    '.'
                }
            })
            .collect()
    }

    fn has_line(marks: u16) -> bool {
        let mut found = false;
        for line in LINES {
            found |= marks & line == line;
        }
        found
    }

    fn occupied(&self) -> u16 {
        self.marks[0] | self.marks[1]
    }
}

impl Game for TicTacToe {
    fn name(&self) -> &'static str {
        "tictactoe"
    }

    fn to_move(&self) -> Player {
        if self.occupied().count_ones() % 2 == 0 {
            Player::P1
        } else {
            Player::P2
        }
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.is_terminal() {
            return;
        }
        let mut free = !self.occupied() & FULL;
        while free != 0 {
            out.push(free.trailing_zeros() as Action);
            free &= free - 1;
        }
    }

    fn max_actions(&self) -> usize {
        9
    }

    fn is_legal(&self, action: Action) -> bool {
        action < 9 && !self.is_terminal() && self.occupied() >> action & 1 == 0
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action));
        let p = self.to_move().index();
        self.marks[p] |= 1 << action;
    }

    fn is_terminal(&self) -> bool {
        self.occupied() == FULL || Self::has_line(self.marks[0]) || Self::has_line(self.marks[1])
    }

    fn outcome(&self) -> Option<Outcome> {
        if Self::has_line(self.marks[0]) {
            Some(Outcome::P1Win)
        } else if Self::has_line(self.marks[1]) {
            Some(Outcome::P2Win)
        } else if self.occupied() == FULL {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn feature_len(&self) -> usize {
        18
    }

    fn encode_features(&self, out: &mut [f32]) {
        assert_eq!(out.len(), 18, "feature buffer length");
        for cell in 0..9 {
            out[cell] = (self.marks[0] >> cell & 1) as f32;
            out[9 + cell] = (self.marks[1] >> cell & 1) as f32;
        }
    }

    fn parse_action(&self, text: &str) -> Result<Action, ActionError> {
        let t = text.trim().to_ascii_lowercase();
        let malformed = || ActionError::Malformed {
            text: text.trim().to_string(),
            expected: "a cell 0-8 or a column a-c and a row 1-3 (e.g. b2)".into(),
        };
        let bytes = t.as_bytes();
        match bytes {
            [d] if d.is_ascii_digit() => {
                let cell = d - b'0';
                if cell > 8 {
                    return Err(ActionError::OutOfRange {
                        text: t.clone(),
                        detail: "cells are 0 to 8".into(),
                    });
                }
                Ok(cell as Action)
            }
            [col @ b'a'..=b'c', row @ b'1'..=b'3'] => {
                Ok(((row - b'1') * 3 + (col - b'a')) as Action)
            }
            _ => Err(malformed()),
        }
    }

    fn format_action(&self, action: Action) -> String {
        let col = (b'a' + (action % 3) as u8) as char;
        format!("{col}{}", action / 3 + 1)
    }
}

impl fmt::Display for TicTacToe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  a b c")?;
        for row in 0..3 {
            write!(f, "{}", row + 1)?;
            for col in 0..3 {
                let cell = row * 3 + col;
                let mark = if self.marks[0] >> cell & 1 == 1 {
                    'X'
                } else if self.marks[1] >> cell & 1 == 1 {
                    'O'
                } else {
                    '.'
                };
                write!(f, " {mark}")?;
            }
            writeln!(f)?;
        }
        match self.outcome() {
            Some(o) => write!(f, "game over: {o}"),
            None => write!(
                f,
                "{} ({}) to move",
                self.to_move(),
                ["X", "O"][self.to_move().index()]
            ),
        }
    }
}

/// Exact minimax over the whole game (a few thousand positions), memoised.
#[derive(Default)]
pub struct TicTacToeSolver {
    memo: HashMap<TicTacToe, i32>,
}

impl TicTacToeSolver {
    pub fn new() -> TicTacToeSolver {
        TicTacToeSolver::default()
    }

    /// +1 if the player to move wins with perfect play, 0 for a draw, -1 for a loss.
    pub fn value(&mut self, state: &TicTacToe) -> i32 {
        if let Some(o) = state.outcome() {
            return o.value_for(state.to_move());
        }
        if let Some(&v) = self.memo.get(state) {
            return v;
        }
        let mut actions = Vec::new();
        state.legal_actions(&mut actions);
        let best = actions
            .iter()
            .map(|&a| {
                let mut child = *state;
                child.apply(a);
                -self.value(&child)
            })
            .max()
            .expect("a non-terminal position has moves");
        self.memo.insert(*state, best);
        best
    }

    /// The moves that keep the best achievable value.
    pub fn optimal_actions(&mut self, state: &TicTacToe) -> Vec<Action> {
        let mut actions = Vec::new();
        state.legal_actions(&mut actions);
        let values: Vec<(Action, i32)> = actions
            .iter()
            .map(|&a| {
                let mut child = *state;
                child.apply(a);
                (a, -self.value(&child))
            })
            .collect();
        let best = values.iter().map(|&(_, v)| v).max().unwrap_or(0);
        values
            .into_iter()
            .filter(|&(_, v)| v == best)
            .map(|(a, _)| a)
            .collect()
    }
}

impl crate::games::RegisteredGame for TicTacToe {
    const NAME: &'static str = "tictactoe";
    const ALIASES: &'static [&'static str] = &["tic_tac_toe"];
    const ABOUT: &'static str = "Tic-tac-toe, solved exactly: the search's test bench.";

    fn from_params(_: &[i64]) -> Result<TicTacToe, String> {
        Ok(TicTacToe::new())
    }

    fn param_values(&self) -> Vec<i64> {
        Vec::new()
    }

    type Rollout = crate::mcts::RandomRollout;

    /// `BOARD`: nine cells row by row, each X, O or '.'.
    fn parse_position(&self, args: &[&str]) -> Result<TicTacToe, String> {
        match args {
            [board] => TicTacToe::from_board_string(board),
            _ => Err(format!(
                "expected set_position BOARD (nine cells of X, O or '.'), got {} arguments",
                args.len()
            )),
        }
    }

    fn position_text(&self) -> String {
        self.board_string()
    }

    type Memory = ();

    type Options = ();

    const PLAYERS: &'static [crate::game_spec::PlayerDecl] = &[
        crate::game_spec::PlayerDecl {
            kind: "best",
            about: "the strongest here: plain MCTS, which plays tic-tac-toe perfectly with enough iterations",
            alias_of: Some("mcts"),
            runs_program: false,
            keys: &[],
        },
        crate::game_spec::PlayerDecl {
            kind: "paper",
            about: "the Dots-and-Boxes paper's plain MCTS, on the game that proves the search",
            alias_of: Some("mcts"),
            runs_program: false,
            keys: &[],
        },
    ];
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn all_positions() -> HashSet<TicTacToe> {
        let mut seen = HashSet::new();
        let mut stack = vec![TicTacToe::new()];
        let mut buf = Vec::new();
        while let Some(s) = stack.pop() {
            if !seen.insert(s) {
                continue;
            }
            s.legal_actions(&mut buf);
            for &a in &buf {
                let mut c = s;
                c.apply(a);
                stack.push(c);
            }
        }
        seen
    }

    #[test]
    fn the_game_has_5478_positions_and_is_a_draw() {
        // 5,478 legal positions reachable from the empty board (a classic count).
        let positions = all_positions();
        assert_eq!(positions.len(), 5478);
        let terminal = positions.iter().filter(|p| p.is_terminal()).count();
        assert_eq!(terminal, 958);
        let mut solver = TicTacToeSolver::new();
        assert_eq!(solver.value(&TicTacToe::new()), 0);
        // Every first move draws with perfect play.
        assert_eq!(solver.optimal_actions(&TicTacToe::new()).len(), 9);
    }

    #[test]
    fn known_positions() {
        let mut solver = TicTacToeSolver::new();
        // X: a1 b1, O: a2 b2; X to move wins at c1 only.
        let s = TicTacToe::from_move_text("a1 a2 b1 b2").unwrap();
        assert_eq!(s.to_move(), Player::P1);
        assert_eq!(solver.optimal_actions(&s), vec![2]);
        // O to move must block c1... X: a1 b1, O: b2; O to move.
        let s = TicTacToe::from_move_text("a1 b2 b1").unwrap();
        assert_eq!(solver.optimal_actions(&s), vec![2]);
        // A finished game.
        let s = TicTacToe::from_move_text("a1 a2 b1 b2 c1").unwrap();
        assert_eq!(s.outcome(), Some(Outcome::P1Win));
        let mut buf = vec![1];
        s.legal_actions(&mut buf);
        assert!(buf.is_empty());
        assert!(TicTacToe::from_move_text("a1 a1").is_err());
        assert!(TicTacToe::from_move_text("a1 a2 b1 b2 c1 c2").is_err());
    }

    #[test]
    fn notation_round_trip() {
        let s = TicTacToe::new();
        for a in 0..9 {
            assert_eq!(s.parse_action(&s.format_action(a)), Ok(a));
            assert_eq!(s.parse_action(&a.to_string()), Ok(a));
        }
        assert!(s.parse_action("d1").is_err());
        assert!(s.parse_action("9").is_err());
        assert!(s.parse_action("").is_err());
    }
}
