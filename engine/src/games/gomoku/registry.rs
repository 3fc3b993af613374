//! Gomoku in the registry: parameters and the protocol's position.

use super::manager::{BrainConfig, GomocupAgent, GOMOCUP_KEYS};
use super::patterns::PatternWeights;
use super::pvs::{Pvs, PvsConfig};
use super::rival::AlphaBeta;
use super::search::{GomokuKnowledge, GomokuRollout};
use super::tuning::{load_patterns, EVAL, PATTERNS};
use super::{Gomoku, Rule, MAX_SIZE, MIN_SIZE};
use crate::agents::spec::{
    number, only_search_keys, time_ms, unknown_key_in, whole_in, AlphaBetaKeys, ALPHABETA_KEYS,
};
use crate::agents::{Agent, AgentSpec, MctsAgent};
use crate::game::{Game, Player};
use crate::game_spec::{file_key, key, KeyDecl, ParamDecl, ParamKind, PlayerDecl};
use crate::games::{best_player_search, KeptBest, RegisteredGame, Searched, WeightsChoice};
use crate::mcts::bench::{BenchOptions, BenchOutput};
use crate::mcts::{SearchConfig, Ucb};
use crate::tuning::Tunable;
use std::path::Path;
use std::time::Duration;

/// The keys of `pvs` ([`Pvs`]).
const PVS_KEYS: [KeyDecl; 11] = [
    key("time_ms", "1000", "milliseconds a move"),
    key("depth", "60", "the deepest iteration"),
    key("threads", "1", "search threads (lazy SMP: one shared table; 0: one a core; at most 256)"),
    key("beam", "20", "quiet moves searched at a node, the best by ordering (threats always)"),
    file_key("weights", "", "a weights file of the evaluation (tune's set 'eval')", &[]),
    key("seed", "1", "read as every player's is; the search makes no random choice, so it changes nothing"),
    key("vcf", "200000", "node limit of the root's VCF search, ours and (as if we passed) the opponent's (0: none)"),
    key("vct", "100000", "node limit of the root's VCT search (0: none); the root's threat searches stop at a third of the move's time whatever their limits"),
    key("quick_vcf", "50", "node budget of a quick VCF at the horizon (fours along the last four's lines, 8 deep) where the static score is below beta (0: none)"),
    key("hash_mb", "16", "the transposition table's size in MiB (a power of two entries of 16 bytes, rounded down)"),
    file_key("model", "none", "a pattern net (train's model.safetensors; it plays its own rule, a freestyle net the standard rule too, on any board) as the evaluation in place of the weighed shapes; product: the shipped net where it plays (freestyle and standard, 15x15 and bigger), else the weighed shapes (best's); none: the weighed shapes", &["product", "none"]),
];

/// The search configuration of a `pvs` (or `best`) spec, such as `pvs:beam=12`: what
/// `pbrain-engine --player` plays, its time then taken from the manager's clock.
pub fn pvs_spec_config(text: &str) -> Result<PvsConfig, String> {
    let spec = crate::agents::parse_spec(text)?;
    let spec = crate::agents::spec::expand_alias(&spec, Gomoku::PLAYERS)?.unwrap_or(spec);
    match &spec {
        AgentSpec::Game { kind, text, keys } if kind == "pvs" => pvs_config(text, keys),
        _ => Err(format!(
            "player '{text}': the brain plays pvs (or best) with its keys, not this"
        )),
    }
}

/// A `pvs` player's configuration from its keys.
fn pvs_config(text: &str, keys: &[(String, String)]) -> Result<PvsConfig, String> {
    let err = |e: String| format!("player '{text}': {e}");
    let mut config = PvsConfig::new(Duration::from_millis(1000));
    for (key, value) in keys {
        match key.as_str() {
            "time_ms" => config.time = Duration::from_millis(time_ms(key, value).map_err(err)?),
            "depth" => config.max_depth = whole_in(key, value, 1, 120).map_err(err)?,
            "threads" => config.threads = number(key, value).map_err(err)?,
            "beam" => config.beam = whole_in(key, value, 1, 1000).map_err(err)?,
            "vcf" => config.vcf_nodes = number(key, value).map_err(err)?,
            "vct" => config.vct_nodes = number(key, value).map_err(err)?,
            "seed" => {
                number::<u64>(key, value).map_err(err)?;
            }
            "hash_mb" => config.hash_mb = whole_in(key, value, 1, 4096).map_err(err)?,
            "quick_vcf" => config.quick_vcf = number(key, value).map_err(err)?,
            "weights" => {
                config.weights = super::tuning::load_eval(Path::new(value)).map_err(err)?
            }
            "model" if value == "none" => (config.model, config.product_net) = (None, false),
            "model" if value == "product" => (config.model, config.product_net) = (None, true),
            "model" => {
                let net = super::net::PatternNet::load(Path::new(value)).map_err(err)?;
                (config.model, config.product_net) = (Some(std::sync::Arc::new(net)), false);
            }
            _ => return Err(unknown_key_in(text, key, &PVS_KEYS)),
        }
    }
    config.threads = crate::cli::search_threads(config.threads).map_err(err)?;
    Ok(config)
}

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

    const PLAYERS: &'static [PlayerDecl] = &[
        PlayerDecl {
            kind: "best",
            about: "the strongest measured: pvs, the principal variation search with threat-space proofs, with the shipped pattern net under freestyle and standard on 15x15 and bigger boards (model=product; model=none: the fitted evaluation; docs/gomoku-results.md)",
            alias_of: Some("pvs:model=product"),
            runs_program: false,
            keys: &[],
        },
        PlayerDecl {
            kind: "paper",
            about: "the paper's MCTS (its Table 1 first row): points near stones, forced replies, pruning at the root",
            alias_of: Some("mcts:heuristic=paper"),
            runs_program: false,
            keys: &[],
        },
        PlayerDecl {
            kind: "pvs",
            about: "principal variation search with threat-space proofs (VCF, VCT) over incrementally kept shapes",
            alias_of: None,
            runs_program: false,
            keys: &PVS_KEYS,
        },
        PlayerDecl {
            kind: "alphabeta",
            about: "the rival: alpha-beta with a pattern evaluation and VCF",
            alias_of: None,
            runs_program: false,
            keys: &ALPHABETA_KEYS,
        },
        PlayerDecl {
            kind: "gomocup",
            about: "any Gomocup brain (pbrain protocol), its clock kept as a tournament manager keeps it; a crash, a bad answer, an illegal move or a move past its time loses",
            alias_of: None,
            runs_program: true,
            keys: &GOMOCUP_KEYS,
        },
    ];

    const MCTS_KEYS: &'static [KeyDecl] = &[
        key(
            "heuristic",
            "off",
            "a preset: off (plain), root, all, paper (the paper's) or engine (ours)",
        ),
        key(
            "near",
            "0",
            "candidates within 1 or 2 of a stone (0: every point)",
        ),
        key(
            "forced",
            "0",
            "1: a five to make or block is played at once",
        ),
        key(
            "top",
            "10",
            "pruning keeps this many moves by pattern score",
        ),
        key(
            "stop",
            "five",
            "rollouts stop at a five, a live three or a threat",
        ),
        key(
            "leaf",
            "rollout",
            "rollout, or eval: leaves scored by the pattern evaluation",
        ),
        key(
            "bias",
            "0",
            "the weight of the pattern score as a bias on children",
        ),
        key(
            "vcf",
            "0",
            "1: a victory by continuous fours is searched first",
        ),
        file_key(
            "weights",
            "",
            "a weights file of the pattern scores, as tune writes it",
            &[],
        ),
    ];

    /// The engine's knowledge ([`GomokuKnowledge::ENGINE`]).
    type Rollout = GomokuRollout;

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

    type Memory = KeptBest<Gomoku>;

    // The protocol's one option of its own: a `weights` file of the evaluation.
    crate::weights_option!();

    /// The `best` player ([`Pvs`], kept between moves: [`best_player_search`]) for the search's
    /// time (1 s when it names only iterations) and threads; with the `weights` option (a `patterns` file), the engine's MCTS
    /// ([`GomokuKnowledge::ENGINE`]) with those pattern weights.
    fn engine_search(
        &self,
        weights: &WeightsChoice,
        config: SearchConfig,
        memory: &mut Self::Memory,
    ) -> Result<Searched, String> {
        let Some((path, _)) = weights else {
            return best_player_search(self, &config, memory);
        };
        let mut knowledge = GomokuKnowledge::ENGINE;
        knowledge.weights = load_patterns(path)?;
        let result = knowledge
            .search(config)
            .run(self)
            .map_err(|e| e.to_string())?;
        Ok(Searched::from_result(result))
    }

    /// `mcts` reads the knowledge switches ([`GomokuKnowledge::from_keys`]; plain MCTS when
    /// none is given); `alphabeta` is the rival ([`AlphaBeta`]: pattern evaluation and VCF).
    fn build_kind(spec: &AgentSpec, start: &Gomoku) -> Result<Box<dyn Agent<Gomoku>>, String> {
        match spec {
            AgentSpec::Mcts {
                text,
                config,
                game_keys,
            } => {
                only_search_keys(text, game_keys, Self::MCTS_KEYS)?;
                let knowledge = GomokuKnowledge::from_keys(text, game_keys)?;
                Ok(Box::new(MctsAgent::new(
                    text.clone(),
                    config.clone(),
                    Ucb::new(config.cp).with_progressive_bias(true),
                    GomokuRollout::new(knowledge),
                )))
            }
            AgentSpec::Game { kind, text, keys } if kind == "pvs" => {
                let config = pvs_config(text, keys)?;
                if let Some(net) = &config.model {
                    net.check_fits(start.rule(), start.size())
                        .map_err(|e| format!("player '{text}': {e}"))?;
                }
                Ok(Box::new(Pvs::new(text, config)))
            }
            AgentSpec::Game { kind, text, keys } if kind == "alphabeta" => {
                let AlphaBetaKeys {
                    time_ms,
                    max_depth,
                    weights,
                    ..
                } = AlphaBetaKeys::read(text, keys)?;
                let weights = match weights {
                    Some(path) => {
                        load_patterns(&path).map_err(|e| format!("player '{text}': {e}"))?
                    }
                    None => PatternWeights::DEFAULT,
                };
                Ok(Box::new(AlphaBeta::new(
                    text.clone(),
                    Duration::from_millis(time_ms),
                    max_depth,
                    weights,
                )))
            }
            AgentSpec::Game { kind, text, keys } if kind == "gomocup" => {
                let config = BrainConfig::read(text, keys)?;
                let agent = GomocupAgent::start(config)
                    .map_err(|e| format!("player '{text}': the brain did not start: {e}"))?;
                Ok(Box::new(agent))
            }
            other => other.build::<Gomoku>(start.spec(), Self::PLAYERS),
        }
    }

    fn bench(start: &Gomoku, options: &BenchOptions) -> Result<BenchOutput, String> {
        Ok(BenchOutput::figures(super::bench::figures(start, options)?))
    }

    fn weight_sets() -> Vec<Box<dyn Tunable>> {
        vec![Box::new(PATTERNS), Box::new(EVAL)]
    }
}
