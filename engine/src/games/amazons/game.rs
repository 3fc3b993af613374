//! The `Game` trait for Amazons: ids, legality, notation, the value-net encoding.

use super::board::{BitIter, Bits};
use super::{Amazons, Turn, TurnShape};
use crate::game::{Action, ActionError, Game, Outcome, Player};
use crate::rng::Rng;

impl Amazons {
    /// The (from, to) bits of a queen-ply id, if both are squares of the board.
    fn decode_queen(&self, action: Action) -> Option<(u32, u32)> {
        let a = (self.geo.n * self.geo.n) as u32;
        let (from, to) = (action as u32 / a, action as u32 % a);
        (from < a).then(|| {
            (
                self.geo.bit_of[from as usize] as u32,
                self.geo.bit_of[to as usize] as u32,
            )
        })
    }

    /// What kind of ply is due, in words (for error messages).
    fn ply_due(&self) -> &'static str {
        match (self.shape, self.pending) {
            (TurnShape::Whole, _) => "a whole turn such as d1-d7/g7",
            (TurnShape::Split, None) => "a queen move such as d1-d7 (or a whole turn d1-d7/g7)",
            (TurnShape::Split, Some(_)) => "the arrow's square such as g7",
        }
    }
}

impl Game for Amazons {
    fn name(&self) -> &'static str {
        "amazons"
    }

    #[inline]
    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        let empty = self.empty();
        match (self.shape, self.pending) {
            (TurnShape::Split, Some((to, _))) => {
                for arrow in BitIter(self.geo.queen_reach(to as u32, empty)) {
                    out.push(self.arrow_id(arrow));
                }
            }
            (TurnShape::Split, None) => {
                for from in BitIter(self.pieces[self.to_move.index()]) {
                    for to in BitIter(self.geo.queen_reach(from, empty)) {
                        out.push(self.queen_id(from, to));
                    }
                }
            }
            (TurnShape::Whole, _) => {
                let a = (self.geo.n * self.geo.n) as u32;
                for (index, from) in BitIter(self.pieces[self.to_move.index()]).enumerate() {
                    for to in BitIter(self.geo.queen_reach(from, empty)) {
                        let after = (empty | (1 << from)) & !(1 << to);
                        let base = (index as u32 * a + self.geo.square_of[to as usize] as u32) * a;
                        for arrow in BitIter(self.geo.queen_reach(to, after)) {
                            out.push((base + self.geo.square_of[arrow as usize] as u32) as Action);
                        }
                    }
                }
            }
        }
    }

    fn max_actions(&self) -> usize {
        // A queen reaches at most 4 (n - 1) squares.
        let reach = 4 * (self.geo.n - 1);
        match self.shape {
            TurnShape::Split => 4 * reach,
            TurnShape::Whole => 4 * reach * reach,
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        if self.is_terminal() {
            return false;
        }
        let empty = self.empty();
        match (self.shape, self.pending) {
            (TurnShape::Split, Some((to, _))) => {
                (action as usize) < self.geo.n * self.geo.n
                    && self.geo.queen_reach(to as u32, empty)
                        & (1 << self.geo.bit_of[action as usize])
                        != 0
            }
            (TurnShape::Split, None) => match self.decode_queen(action) {
                Some((from, to)) => {
                    self.pieces[self.to_move.index()] & (1 << from) != 0
                        && self.geo.queen_reach(from, empty) & (1 << to) != 0
                }
                None => false,
            },
            (TurnShape::Whole, _) => match self.decode_whole(action) {
                Some(turn) => self.is_legal_turn(turn),
                None => false,
            },
        }
    }

    #[inline]
    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal action {action}");
        let side = self.to_move.index();
        match (self.shape, self.pending) {
            (TurnShape::Split, Some(_)) => {
                self.arrows |= 1 << self.geo.bit_of[action as usize];
                self.pending = None;
                self.to_move = self.to_move.opponent();
            }
            (TurnShape::Split, None) => {
                let (from, to) = self.decode_queen(action).expect("a legal queen ply");
                self.pieces[side] ^= (1 << from) | (1 << to);
                self.pending = Some((to as u8, from as u8));
                self.turns += 1;
            }
            (TurnShape::Whole, _) => {
                let turn = self.decode_whole(action).expect("a legal whole turn");
                self.play_turn(turn);
            }
        }
    }

    #[inline]
    fn is_terminal(&self) -> bool {
        self.pending.is_none() && !self.can_move(self.to_move)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.is_terminal()
            .then(|| Outcome::win_for(self.to_move.opponent()))
    }

    /// Three planes of n² (the mover's amazons, the other side's, arrows), then 1 for P1 to
    /// move, then 1 while an arrow is due.
    fn feature_len(&self) -> usize {
        3 * self.geo.n * self.geo.n + 2
    }

    fn encode_features(&self, out: &mut [f32]) {
        let area = self.geo.n * self.geo.n;
        out.fill(0.0);
        let me = self.to_move.index();
        let planes: [Bits; 3] = [self.pieces[me], self.pieces[1 - me], self.arrows];
        for (p, set) in planes.iter().enumerate() {
            for bit in BitIter(*set) {
                out[p * area + self.geo.square_of[bit as usize] as usize] = 1.0;
            }
        }
        out[3 * area] = f32::from(self.to_move == Player::P1);
        out[3 * area + 1] = f32::from(self.pending.is_some());
    }

    fn parse_action(&self, text: &str) -> Result<Action, ActionError> {
        let text = text.trim();
        let malformed = || ActionError::Malformed {
            text: text.to_string(),
            expected: self.ply_due().into(),
        };
        let square = |s: &str| {
            self.parse_square(s)
                .map_err(|detail| ActionError::OutOfRange {
                    text: text.to_string(),
                    detail,
                })
        };
        if let Ok(id) = text.parse::<Action>() {
            return Ok(id);
        }
        match (self.shape, self.pending) {
            (TurnShape::Whole, _) => {
                let turn = self.parse_turn_text(text)?;
                if self.pieces[self.to_move.index()] & (1 << turn.from) == 0 {
                    return Err(ActionError::Illegal {
                        text: text.to_string(),
                        detail: format!(
                            "no amazon of {} on {}",
                            self.to_move,
                            self.square_name(turn.from)
                        ),
                    });
                }
                Ok(self.whole_id(turn))
            }
            (TurnShape::Split, None) => {
                if text.contains('/') {
                    return Err(ActionError::Malformed {
                        text: text.to_string(),
                        expected: "one ply here: the queen move such as d1-d7 (a whole turn \
                                   d1-d7/g7 is read where a turn is asked for)"
                            .into(),
                    });
                }
                let (from, to) = text.split_once('-').ok_or_else(malformed)?;
                Ok(self.queen_id(square(from)?, square(to)?))
            }
            (TurnShape::Split, Some(_)) => {
                if text.contains('-') || text.contains('/') {
                    return Err(malformed());
                }
                Ok(self.arrow_id(square(text)?))
            }
        }
    }

    fn format_action(&self, action: Action) -> String {
        match (self.shape, self.pending) {
            (TurnShape::Split, Some(_)) => {
                self.square_name(self.geo.bit_of[action as usize % 100] as u32)
            }
            (TurnShape::Split, None) => match self.decode_queen(action) {
                Some((from, to)) => {
                    format!("{}-{}", self.square_name(from), self.square_name(to))
                }
                None => format!("#{action}"),
            },
            (TurnShape::Whole, _) => match self.decode_whole(action) {
                Some(turn) => self.format_turn(turn),
                None => format!("#{action}"),
            },
        }
    }

    fn random_rollout(&mut self, rng: &mut Rng) -> Outcome {
        while self.play_random_turn(rng) {}
        Outcome::win_for(self.to_move.opponent())
    }

    fn illegal_reason(&self, action: Action) -> String {
        if self.is_terminal() {
            return "the game is over".into();
        }
        let empty = self.empty();
        let turn = match (self.shape, self.pending) {
            (TurnShape::Split, Some((to, _))) => {
                return format!(
                    "the amazon on {} cannot shoot to {}",
                    self.square_name(to as u32),
                    self.format_action(action)
                )
            }
            (TurnShape::Split, None) => match self.decode_queen(action) {
                Some((from, to)) => Turn {
                    from,
                    to,
                    arrow: to,
                },
                None => return format!("{action} is not a move id"),
            },
            (TurnShape::Whole, _) => match self.decode_whole(action) {
                Some(turn) => turn,
                None => return format!("{action} names no amazon of {}", self.to_move),
            },
        };
        if self.pieces[self.to_move.index()] & (1 << turn.from) == 0 {
            return format!(
                "no amazon of {} on {}",
                self.to_move,
                self.square_name(turn.from)
            );
        }
        if self.geo.queen_reach(turn.from, empty) & (1 << turn.to) == 0 {
            return format!(
                "the amazon on {} cannot reach {} (not on a free line)",
                self.square_name(turn.from),
                self.square_name(turn.to)
            );
        }
        format!(
            "from {} the arrow cannot reach {}",
            self.square_name(turn.to),
            self.square_name(turn.arrow)
        )
    }

    fn mid_turn(&self) -> bool {
        self.pending.is_some()
    }

    /// In a split game a whole turn `d1-d7/g7` is read as its two plies; each half alone as one.
    fn parse_legal_plies(&self, text: &str) -> Result<Vec<Action>, ActionError> {
        let text = text.trim();
        if self.shape == TurnShape::Split && self.pending.is_none() && text.contains('/') {
            let (queen, arrow) = text.split_once('/').expect("has '/'");
            let first = self.parse_legal_action(queen)?;
            let mut next = *self;
            next.apply(first);
            let second = next.parse_legal_action(arrow).map_err(|e| match e {
                ActionError::Illegal { detail, .. } => ActionError::Illegal {
                    text: text.to_string(),
                    detail,
                },
                other => other,
            })?;
            return Ok(vec![first, second]);
        }
        self.parse_legal_action(text).map(|a| vec![a])
    }

    /// `d1-d7/g7` for a queen ply and its arrow; one ply alone as itself.
    fn format_plies(&self, plies: &[Action]) -> String {
        match plies {
            [queen, arrow] if self.shape == TurnShape::Split && self.pending.is_none() => {
                let mut next = *self;
                next.apply(*queen);
                format!(
                    "{}/{}",
                    self.format_action(*queen),
                    next.format_action(*arrow)
                )
            }
            _ => {
                let mut state = *self;
                let mut words = Vec::new();
                for &a in plies {
                    words.push(state.format_action(a));
                    state.apply(a);
                }
                words.join(" ")
            }
        }
    }
}
