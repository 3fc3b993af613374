//! Gomoku in the registry: parameters and the protocol's position.

use super::{Gomoku, Rule, MAX_SIZE, MIN_SIZE};
use crate::game::{Game, Player};
use crate::games::registry::{ParamDecl, ParamKind, RegisteredGame};

impl RegisteredGame for Gomoku {
    const NAME: &'static str = "gomoku";
    const ABOUT: &'static str = "Gomoku (five in a row; freestyle, standard or renju rules).";
    const PARAMS: &'static [ParamDecl] = &[
        ParamDecl {
            name: "size",
            kind: ParamKind::Int {
                min: MIN_SIZE as i64,
                max: MAX_SIZE as i64,
            },
            default: 15,
            help: "points a side (15 and 20 are Gomocup's)",
        },
        ParamDecl {
            name: "rule",
            kind: ParamKind::Choice(&Rule::NAMES),
            default: 0,
            help: "freestyle: five or more wins; standard: exactly five; renju: black exactly five, with forbidden double three, double four and overline",
        },
    ];

    fn from_params(values: &[i64]) -> Result<Gomoku, String> {
        Gomoku::new(values[0] as usize, Rule::from_index(values[1] as usize))
    }

    fn param_values(&self) -> Vec<i64> {
        vec![self.size() as i64, self.rule().index() as i64]
    }

    type Rollout = crate::mcts::RandomRollout;

    /// `BOARD TO_MOVE`: ranks from the top down split by `/` (`X` black, `O` white, `.`
    /// empty), then the player to move (1 black, 2 white).
    fn parse_position(&self, args: &[&str]) -> Result<Gomoku, String> {
        let [board, side] = args else {
            return Err(format!(
                "expected set_position BOARD TO_MOVE (ranks from the top of X, O, '.' split by '/', then 1 or 2), got {} arguments",
                args.len()
            ));
        };
        let to_move = Player::parse(side)
            .ok_or_else(|| format!("the side to move is 1 or 2, not '{side}'"))?;
        Gomoku::from_board(self.size(), self.rule(), board, to_move)
    }

    fn position_text(&self) -> String {
        format!("{} {}", self.board_string(), self.to_move().number())
    }

    type Memory = ();
}
