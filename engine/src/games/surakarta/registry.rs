//! Surakarta in the registry: parameters and the protocol's position.

use super::{Repetition, Rules, Surakarta, MAX_LIMIT};
use crate::game::{Game, Player};
use crate::games::registry::{ParamDecl, ParamKind, RegisteredGame};

impl RegisteredGame for Surakarta {
    const NAME: &'static str = "surakarta";
    const ABOUT: &'static str =
        "Surakarta (steps, and captures along the circuits through a corner loop).";
    const PARAMS: &'static [ParamDecl] = &[
        ParamDecl {
            name: "repetition",
            kind: ParamKind::Choice(&Repetition::NAMES),
            default: 0,
            help: "end: a repeated position ends the game (default, Computer Olympiad); off: no rule; forbid: a move that repeats is illegal (MiniZero)",
        },
        ParamDecl {
            name: "limit",
            kind: ParamKind::Int {
                min: 0,
                max: MAX_LIMIT as i64,
            },
            default: 50,
            help: "plies without a capture that end the game (0: no limit)",
        },
    ];

    fn from_params(values: &[i64]) -> Result<Surakarta, String> {
        Ok(Surakarta::new(Rules {
            repetition: Repetition::from_index(values[0] as usize),
            limit: values[1] as u16,
        }))
    }

    fn param_values(&self) -> Vec<i64> {
        let rules = self.rules();
        vec![rules.repetition.index() as i64, i64::from(rules.limit)]
    }

    type Rollout = crate::mcts::RandomRollout;

    /// `BOARD TO_MOVE [QUIET]`: ranks 6 to 1 split by `/` (`X` P1, `O` P2, `.` empty), the
    /// player to move (1 or 2), and the plies since the last capture (0). The repetition
    /// history starts at this position.
    fn parse_position(&self, args: &[&str]) -> Result<Surakarta, String> {
        let (board, side, quiet) = match args {
            [b, s] => (b, s, "0"),
            [b, s, q] => (b, s, *q),
            _ => {
                return Err(format!(
                    "expected set_position BOARD TO_MOVE [QUIET] (ranks 6 to 1 of X, O, '.' split by '/', then 1 or 2), got {} arguments",
                    args.len()
                ))
            }
        };
        let pieces = Surakarta::parse_board(board)?;
        let to_move = Player::parse(side)
            .ok_or_else(|| format!("the side to move is 1 or 2, not '{side}'"))?;
        let quiet: u16 = quiet.parse().map_err(|_| {
            format!("plies without a capture must be a whole number, not '{quiet}'")
        })?;
        Ok(Surakarta::from_pieces(pieces, to_move, self.rules(), quiet))
    }

    fn position_text(&self) -> String {
        format!(
            "{} {} {}",
            self.board_string(),
            self.to_move().number(),
            self.quiet_plies()
        )
    }

    type Memory = ();
}
