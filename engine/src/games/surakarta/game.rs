//! Surakarta behind the [`Game`] trait: moves, notation, the board as text.

use std::fmt;

use super::{MoveList, Surakarta, ACTIONS, MAX_MOVES, POINTS};
use crate::game::{Action, ActionError, Game, Outcome, Player};
use crate::rng::Rng;

impl Surakarta {
    /// The board as text: ranks 6 to 1 separated by `/`, `X` P1, `O` P2, `.` empty.
    pub fn board_string(&self) -> String {
        (0..6)
            .rev()
            .map(|rank| {
                (0..6)
                    .map(|file| self.cell(rank * 6 + file))
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    fn cell(&self, p: usize) -> char {
        if self.pieces[0] >> p & 1 == 1 {
            'X'
        } else if self.pieces[1] >> p & 1 == 1 {
            'O'
        } else {
            '.'
        }
    }

    /// Reads a board written as [`board_string`](Self::board_string) does.
    pub fn parse_board(text: &str) -> Result<[u64; 2], String> {
        let rows: Vec<&str> = text.trim().split('/').collect();
        if rows.len() != 6 || rows.iter().any(|r| r.chars().count() != 6) {
            return Err(format!(
                "board '{text}' is not six rows of six points (ranks 6 to 1, split by '/')"
            ));
        }
        let mut pieces = [0u64; 2];
        for (i, row) in rows.iter().enumerate() {
            let rank = 5 - i;
            for (file, c) in row.chars().enumerate() {
                let bit = 1u64 << (rank * 6 + file);
                match c {
                    'X' | 'x' => pieces[0] |= bit,
                    'O' | 'o' => pieces[1] |= bit,
                    '.' => {}
                    other => {
                        return Err(format!(
                            "board '{text}': '{other}' is not X (P1), O (P2) or '.'"
                        ))
                    }
                }
            }
        }
        if pieces[0].count_ones() > 12 || pieces[1].count_ones() > 12 {
            return Err(format!("board '{text}': more than 12 pieces a side"));
        }
        Ok(pieces)
    }

    fn point_name(p: usize) -> String {
        format!("{}{}", (b'a' + (p % 6) as u8) as char, p / 6 + 1)
    }

    fn parse_point(text: &str, whole: &str) -> Result<usize, ActionError> {
        let b = text.as_bytes();
        match b {
            [f @ b'a'..=b'z', r @ b'0'..=b'9'] => {
                let (file, rank) = ((f - b'a') as usize, (r - b'0') as usize);
                if file >= 6 || !(1..=6).contains(&rank) {
                    return Err(ActionError::OutOfRange {
                        text: whole.to_string(),
                        detail: format!("'{text}' is off the board (files a-f, ranks 1-6)"),
                    });
                }
                Ok((rank - 1) * 6 + file)
            }
            _ => Err(ActionError::Malformed {
                text: whole.to_string(),
                expected: "from and to points such as a2a3 (or a2-a3, a2xa3)".into(),
            }),
        }
    }
}

impl Game for Surakarta {
    fn name(&self) -> &'static str {
        "surakarta"
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        let mut moves = MoveList::new();
        self.legal_into(&mut moves);
        out.clear();
        out.extend_from_slice(moves.as_slice());
    }

    fn max_actions(&self) -> usize {
        MAX_MOVES
    }

    fn is_legal(&self, action: Action) -> bool {
        if self.over || action as usize >= ACTIONS {
            return false;
        }
        let (from, to) = (action as usize / POINTS, action as usize % POINTS);
        if self.pieces[self.to_move.index()] >> from & 1 == 0
            || self.moves_from(from) >> to & 1 == 0
        {
            return false;
        }
        !(self.forbids_repeats() && self.would_repeat(action))
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal move {action} in\n{self}");
        self.play(action);
    }

    fn is_terminal(&self) -> bool {
        self.over
    }

    /// Uniformly random moves from a list on the stack, to the end of the game.
    fn random_rollout(&mut self, rng: &mut Rng) -> Outcome {
        let mut moves = MoveList::new();
        while !self.over {
            self.play_random(&mut moves, rng);
        }
        self.outcome_by_pieces()
    }

    fn outcome(&self) -> Option<Outcome> {
        self.over.then(|| self.outcome_by_pieces())
    }

    fn scores(&self) -> Option<[u32; 2]> {
        Some([self.pieces[0].count_ones(), self.pieces[1].count_ones()])
    }

    /// P1's pieces, P2's pieces (36 points each), and 1 when P1 is to move.
    fn feature_len(&self) -> usize {
        2 * POINTS + 1
    }

    fn encode_features(&self, out: &mut [f32]) {
        for p in 0..POINTS {
            out[p] = (self.pieces[0] >> p & 1) as f32;
            out[POINTS + p] = (self.pieces[1] >> p & 1) as f32;
        }
        out[2 * POINTS] = f32::from(u8::from(self.to_move == Player::P1));
    }

    /// `a2a3`, `a2-a3` or `a2xa3`; or the move id (`from * 36 + to`).
    fn parse_action(&self, text: &str) -> Result<Action, ActionError> {
        let t = text.trim().to_ascii_lowercase();
        if let Ok(id) = t.parse::<usize>() {
            if id >= ACTIONS {
                return Err(ActionError::OutOfRange {
                    text: t,
                    detail: format!("move ids are 0 to {}", ACTIONS - 1),
                });
            }
            return Ok(id as Action);
        }
        let compact: String = t.chars().filter(|c| *c != '-' && *c != 'x').collect();
        if compact.len() != 4 || !compact.is_ascii() {
            return Err(ActionError::Malformed {
                text: t,
                expected: "from and to points such as a2a3 (or a2-a3, a2xa3)".into(),
            });
        }
        let from = Surakarta::parse_point(&compact[..2], &t)?;
        let to = Surakarta::parse_point(&compact[2..], &t)?;
        Ok((from * POINTS + to) as Action)
    }

    fn format_action(&self, action: Action) -> String {
        let (from, to) = (action as usize / POINTS, action as usize % POINTS);
        format!(
            "{}{}",
            Surakarta::point_name(from),
            Surakarta::point_name(to)
        )
    }

    fn illegal_reason(&self, action: Action) -> String {
        let (from, to) = (action as usize / POINTS, action as usize % POINTS);
        let me = self.to_move.index();
        let name = |p| Surakarta::point_name(p);
        if self.pieces[me] >> from & 1 == 0 {
            format!(
                "{} has no piece of the side to move ({})",
                name(from),
                self.to_move
            )
        } else if self.pieces[me] >> to & 1 == 1 {
            format!("{} holds a piece of the same side", name(to))
        } else if self.pieces[1 - me] >> to & 1 == 1 {
            format!(
                "no circuit path from {} to {} over empty points through a corner loop",
                name(from),
                name(to)
            )
        } else if self.moves_from(from) >> to & 1 == 0 {
            format!("{} is not a neighbour of {}", name(to), name(from))
        } else {
            "it would repeat an earlier position".into()
        }
    }
}

impl fmt::Display for Surakarta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..6).rev() {
            write!(f, "{} ", rank + 1)?;
            for file in 0..6 {
                write!(f, " {}", self.cell(rank * 6 + file))?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d e f")?;
        write!(
            f,
            "{} to move; X (P1) {} pieces, O (P2) {}; {} plies without a capture",
            self.to_move,
            self.pieces[0].count_ones(),
            self.pieces[1].count_ones(),
            self.quiet
        )
    }
}

impl fmt::Debug for Surakarta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Surakarta({} {})", self.board_string(), self.to_move)
    }
}

impl PartialEq for Surakarta {
    /// The same pieces, side to move, rules, no-capture count and history.
    fn eq(&self, other: &Surakarta) -> bool {
        let len = self.history_len as usize;
        self.pieces == other.pieces
            && self.to_move == other.to_move
            && self.rules == other.rules
            && self.quiet == other.quiet
            && self.over == other.over
            && len == other.history_len as usize
            && self.history[..len] == other.history[..len]
    }
}
