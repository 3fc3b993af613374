//! Surakarta in the registry: parameters and the protocol's position.

use super::search::{Heuristics, SurakartaRollout};
use super::tuning::SurakartaEnergy;
use super::{Repetition, Rules, Surakarta, MAX_LIMIT};
use crate::agents::{Agent, AgentSpec, MctsAgent};
use crate::bench::{BenchOptions, Figure};
use crate::game::{Game, Player};
use crate::games::registry::{ParamDecl, ParamKind, RegisteredGame, Searched};
use crate::mcts::{Search, SearchConfig, Ucb};
use crate::protocol::settings::Settings;

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

    const SEARCH_KEYS: &'static [&'static str] = &Surakarta::SEARCH_KEY_LIST;

    /// The paper's heuristic MCTS (energy, early stop at a lead of 3, draw after 50 moves).
    type Rollout = SurakartaRollout;

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

    /// The paper's heuristic MCTS, with the energy's weights of the `weights` option if set.
    fn engine_search(
        &self,
        settings: &Settings,
        config: SearchConfig,
        _: &mut (),
    ) -> Result<Searched, String> {
        let mut heuristics = Heuristics::PAPER;
        if let Some((path, _)) = &settings.weights {
            heuristics.energy = Some(SurakartaEnergy::load(path)?);
        }
        let cp = config.cp;
        let result = Search::new(config, Ucb::new(cp), SurakartaRollout::new(heuristics))
            .run(self)
            .map_err(|e| e.to_string())?;
        Ok(Searched {
            plies: vec![result.best],
            result: Some(result),
            note: None,
        })
    }

    /// `mcts` reads the heuristic MCTS's switches ([`Heuristics::from_keys`]; plain MCTS
    /// when none is given); `alphabeta` is the rival.
    fn build_player(
        spec: &AgentSpec,
        start: &Surakarta,
    ) -> Result<Box<dyn Agent<Surakarta>>, String> {
        match spec {
            AgentSpec::Mcts {
                text,
                config,
                game_keys,
                ..
            } => {
                let heuristics = Heuristics::from_keys(text, game_keys)?;
                let cp = config.cp;
                Ok(Box::new(MctsAgent::new(
                    text.clone(),
                    config.clone(),
                    Ucb::new(cp),
                    SurakartaRollout::new(heuristics),
                )))
            }
            other => other.build::<Surakarta>(start.spec()),
        }
    }

    fn bench(start: &Surakarta, options: &BenchOptions) -> Result<Vec<Figure>, String> {
        Ok(super::bench::figures(start, options))
    }
}
