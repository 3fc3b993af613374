//! Surakarta in the registry: parameters and the protocol's position.

use std::path::Path;
use std::time::Duration;

use super::pvs::{Pvs, PvsConfig};
use super::rival::AlphaBeta;
use super::search::{Heuristics, SurakartaRollout};
use super::tuning::{load_energy, ENERGY, EVAL};
use super::{Repetition, Rules, Surakarta, MAX_LIMIT};
use crate::agents::spec::{
    number, switch, time_ms, unknown_key_in, whole_in, AlphaBetaKeys, ALPHABETA_KEYS,
};
use crate::agents::{Agent, AgentSpec, MctsAgent};
use crate::game::{Game, Player};
use crate::game_spec::{file_key, key, KeyDecl, ParamDecl, ParamKind, PlayerDecl};
use crate::games::{
    best_player_search, set_weights_option, weights_option_text, KeptBest, OptionDecl,
    RegisteredGame, Searched, WeightsChoice, WEIGHTS_OPTION,
};
use crate::mcts::bench::{BenchOptions, BenchOutput};
use crate::mcts::SearchConfig;
use crate::tuning::Tunable;

/// The keys of `pvs` ([`Pvs`]).
const PVS_KEYS: [KeyDecl; 9] = [
    key("time_ms", "1000", "milliseconds a move"),
    key("depth", "64", "the deepest iteration"),
    key("threads", "1", "search threads (lazy SMP: one shared table; 0: one a core)"),
    file_key("weights", "", "a weights file of the evaluation (tune's set 'eval'; default the hand-set weights)", &[]),
    key("seed", "1", "the order of equal root moves"),
    key("lmr", "1", "late move reductions of quiet moves"),
    key("aspiration", "1", "aspiration windows at the root from depth 4"),
    key("contempt", "20", "what a draw costs the searcher's side (100 a piece): above 0 it avoids repetitions when level"),
    key("keep_table", "1", "keep the transposition table from one move to the next"),
];

/// A `pvs` player from its keys.
fn pvs_player(text: &str, keys: &[(String, String)]) -> Result<Pvs, String> {
    let err = |e: String| format!("player '{text}': {e}");
    let mut config = PvsConfig::new(Duration::from_millis(1000));
    for (key, value) in keys {
        match key.as_str() {
            "time_ms" => config.time = Duration::from_millis(time_ms(key, value).map_err(err)?),
            "depth" => config.max_depth = whole_in(key, value, 1, 100).map_err(err)?,
            "threads" => config.threads = number(key, value).map_err(err)?,
            "seed" => config.seed = number(key, value).map_err(err)?,
            "lmr" => config.lmr = switch(key, value).map_err(err)?,
            "aspiration" => config.aspiration = switch(key, value).map_err(err)?,
            "keep_table" => config.keep_table = switch(key, value).map_err(err)?,
            "contempt" => config.contempt = number(key, value).map_err(err)?,
            "weights" => {
                config.weights = super::tuning::load_eval(Path::new(value)).map_err(err)?
            }
            _ => return Err(unknown_key_in(text, key, &PVS_KEYS)),
        }
    }
    if config.contempt.abs() > 1000 {
        return Err(err(format!(
            "contempt is within +-1000 (100 a piece), not {}",
            config.contempt
        )));
    }
    config.threads = crate::cli::search_threads(config.threads).map_err(err)?;
    Ok(Pvs::new(text, config))
}

/// The protocol's options of Surakarta: which engine answers `genmove`, and the MCTS's energy.
#[derive(Default)]
pub struct SurakartaOptions {
    /// Our heuristic MCTS instead of `best`, the alpha-beta.
    pub mcts: bool,
    /// The energy weights of the MCTS (`weights`).
    pub weights: WeightsChoice,
}

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

    const PLAYERS: &'static [PlayerDecl] = &[
        PlayerDecl {
            kind: "best",
            about: "the strongest measured: pvs, the principal variation search (it beats the alpha-beta rival, which beats every MCTS player; docs/surakarta-results.md)",
            alias_of: Some("pvs"),
            runs_program: false,
            keys: &[],
        },
        PlayerDecl {
            kind: "paper",
            about: "the paper's heuristic MCTS: the energy added to UCT, rollouts ended by a lead of 3 or after 50 steps",
            alias_of: Some("mcts:heuristic=paper"),
            runs_program: false,
            keys: &[],
        },
        PlayerDecl {
            kind: "pvs",
            about: "principal variation search: a weighted evaluation (tune's set 'eval'), killers, history, aspiration, late move reductions, a table kept between moves, lazy SMP",
            alias_of: None,
            runs_program: false,
            keys: &PVS_KEYS,
        },
        PlayerDecl {
            kind: "alphabeta",
            about: "the rival: iterative-deepening alpha-beta with material and mobility (takes no weights)",
            alias_of: None,
            runs_program: false,
            keys: &ALPHABETA_KEYS,
        },
    ];

    const MCTS_KEYS: &'static [KeyDecl] = &Surakarta::MCTS_KEYS;

    /// Our heuristic MCTS ([`Heuristics::ENGINE`]).
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

    type Memory = KeptBest<Surakarta>;

    type Options = SurakartaOptions;

    const OPTIONS: &'static [OptionDecl] = &[
        OptionDecl {
            name: "engine",
            help: "best (default: pvs, the principal variation search, the strongest measured; it reads time_ms, 1000 when unset, and threads) or mcts (our heuristic MCTS, which reads iterations and weights)",
        },
        WEIGHTS_OPTION,
    ];

    fn set_option(
        &self,
        options: &mut SurakartaOptions,
        name: &str,
        value: &str,
    ) -> Result<bool, String> {
        match name {
            "engine" => {
                options.mcts = match value {
                    "best" | "alphabeta" => false,
                    "mcts" => true,
                    _ => return Err(format!("engine is 'best' or 'mcts', got '{value}'")),
                }
            }
            "weights" => set_weights_option::<Self>(&mut options.weights, value)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn get_option(&self, options: &SurakartaOptions, name: &str) -> Option<String> {
        match name {
            "engine" => Some(if options.mcts { "mcts" } else { "best" }.into()),
            "weights" => Some(weights_option_text(&options.weights)),
            _ => None,
        }
    }

    /// `best`, the principal variation search (kept between moves: [`best_player_search`]),
    /// for the time a move (1 s when only iterations are set); with
    /// `engine mcts`, our heuristic MCTS ([`Heuristics::ENGINE`]), with the `weights` option's
    /// energy.
    fn engine_search(
        &self,
        options: &SurakartaOptions,
        config: SearchConfig,
        memory: &mut Self::Memory,
    ) -> Result<Searched, String> {
        if !options.mcts {
            return best_player_search(self, &config, memory);
        }
        let mut heuristics = Heuristics::ENGINE;
        if let Some((path, _)) = &options.weights {
            heuristics.energy = Some(load_energy(path)?);
        }
        let result = heuristics
            .search(config)
            .run(self)
            .map_err(|e| e.to_string())?;
        Ok(Searched::from_result(result))
    }

    /// `mcts` reads the heuristic MCTS's switches ([`Heuristics::from_keys`]; plain MCTS
    /// when none is given); `alphabeta` is the rival.
    fn build_kind(
        spec: &AgentSpec,
        start: &Surakarta,
    ) -> Result<Box<dyn Agent<Surakarta>>, String> {
        match spec {
            AgentSpec::Mcts {
                text,
                config,
                game_keys,
            } => {
                let heuristics = Heuristics::from_keys(text, game_keys)?;
                let mut config = config.clone();
                heuristics.fit_cp(&mut config);
                let cp = config.cp;
                Ok(Box::new(MctsAgent::new(
                    text.clone(),
                    config,
                    heuristics.ucb(cp),
                    SurakartaRollout::new(heuristics),
                )))
            }
            AgentSpec::Game { kind, text, keys } if kind == "pvs" => {
                Ok(Box::new(pvs_player(text, keys)?))
            }
            AgentSpec::Game { kind, text, keys } if kind == "alphabeta" => {
                let AlphaBetaKeys {
                    time_ms,
                    max_depth,
                    seed,
                    weights,
                } = AlphaBetaKeys::read(text, keys)?;
                if weights.is_some() {
                    return Err(format!(
                        "player '{text}': the Surakarta alphabeta's evaluation (material and mobility) takes no weights"
                    ));
                }
                Ok(Box::new(AlphaBeta::new(
                    text.clone(),
                    Duration::from_millis(time_ms),
                    max_depth,
                    seed,
                )))
            }
            other => other.build::<Surakarta>(start.spec(), Self::PLAYERS),
        }
    }

    fn bench(start: &Surakarta, options: &BenchOptions) -> Result<BenchOutput, String> {
        options.no_model(Self::NAME)?;
        Ok(BenchOutput::figures(super::bench::figures(start, options)))
    }

    fn weight_sets() -> Vec<Box<dyn Tunable>> {
        vec![Box::new(ENERGY), Box::new(EVAL)]
    }
}
