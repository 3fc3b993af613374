//! Player spec strings: `KIND[:key=value,key=value...]`.
//!
//! * `random`, `greedy` — key `seed` (1).
//! * `rival` — the QDab-style rival (Dots and Boxes). Keys: `iterations` (20000, its search
//!   over safe edges), `time_ms`, `threads`, `cp`, `seed`, `solver_edges` (30: the exact
//!   solver answers from this many free edges on), `solver_nodes` (4000000: its limit).
//! * `qdab` — the second rival (Dots and Boxes), modelled on QDab: a search of its own over
//!   canonical moves. Keys: `time_ms` (300), `iterations` (none; with both, whichever ends
//!   first), `threads` (1), `seed` (1), `solver_nodes` (4000000: the root solve from turn 24,
//!   at most half the time's worth), `leaf_nodes` (20000: one leaf or rollout's solve).
//! * `mcts` — plain MCTS. Keys: `iterations` (default 100000), `time_ms`, `threads` (1), `cp`,
//!   `counter` (`double` or `single`), `seed` (1), and on Dots and Boxes `solver_edges` (0: the
//!   paper's plain MCTS; N > 0 takes free captures at once and lets the exact solver move
//!   from N free edges on), `solver_nodes` (4000000), `solver_table` (20: the solver's table,
//!   2^N entries of 32 bytes, kept between moves) and `safe_first` (0; 1: with no box to
//!   take and a safe edge left, only the safe edges are searched at the root).
//! * `nn` — net-guided MCTS (Dots and Boxes). The `mcts` keys and `model` (default the
//!   product's `models/dab-5x5-sv/model.safetensors`, with `rollout=random` the paper's
//!   `models/dab-5x5/model.safetensors`), `threshold` (0.9), `from_move` (0), `prior` (1),
//!   `prior_visits` (0: a progressive bias); `solver_edges` is 34, `prove_edges` 40, `rollout`
//!   `sacrifices`, `tree` `canonical` and `cp` 0.35 by default (`solver_edges=0,rollout=random`
//!   is the paper's engine, with no game knowledge and `cp` sqrt(2)).
//! * On Amazons, `mcts` also reads `turn` (`split`: Move Groups, the default; `whole`: one node
//!   a turn), `depth` (random whole turns before the evaluation, 2), `backup`, `scale`,
//!   `expand`, `reuse`, `eval`, `tempo`, `arrow`, `weights` and `pe` (docs/amazons.md); other
//!   games refuse these keys. Any game's `mcts` reads `minimax` (the weight of implicit
//!   minimax backups, 0), `widen` (progressive widening: the children a node opens first,
//!   in the order of their biases; 0, off) and `transpositions` (1: a move's value counts every
//!   visit to the position it leads to, by any path; 0, off; for games that key their
//!   positions, Dots and Boxes so far). `greedy` is the best
//!   evaluation after one turn there.
//! * `alphabeta` — iterative-deepening alpha-beta over whole turns (Amazons). Keys: `time_ms`
//!   (1000), `depth` (the deepest iteration, 64), `seed` (1), `weights` (a weights file of the
//!   evaluation, as `tune` writes; also on Amazons `greedy` and `mcts`).
//! * `external` — a program speaking the text protocol. Keys: `cmd` (required), `name`,
//!   `time_ms` (sent as its `time_ms` option), `timeout_ms` (how long `genmove` may take; by
//!   default twice `time_ms` and at least a second more, else 60 s), and `opt.NAME=VALUE` for any
//!   other option. A comma inside `cmd` is kept when what follows it is not one of these keys.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::{Agent, ExternalAgent, ExternalConfig, MctsAgent, RandomAgent};
use crate::game::Game;
use crate::games::dots_and_boxes::{
    DotsKnowledge, DotsSearch, EndgameConfig, GreedyAgent, KnowledgeAgent, QdabAgent, QdabConfig,
    RivalAgent, RivalConfig,
};
use crate::games::{DotsAndBoxes, GameSpec};
use crate::mcts::{Budget, CounterMode, RolloutPolicy, SearchConfig, Ucb};
use crate::nn::{
    load_dab_net, load_late_net, load_policy_net, LateNet, LateUse, NetGuide, NetRollout,
    PAPER_MODEL, PRODUCT_CP, PRODUCT_MODEL, PRODUCT_PRIOR,
};

/// The weight of a policy net's biases when `policy_weight` is not given.
const DEFAULT_POLICY_WEIGHT: f64 = 0.5;

/// How `nn` uses a policy net (`policy=`).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyUse {
    pub path: PathBuf,
    /// `policy_weight=`: the weight of its biases on the tree's children (0: none).
    pub weight: f64,
    /// `policy_rollout=`: the temperature at which it draws the chain rollouts' free moves
    /// (0, the default: they are drawn uniformly).
    pub rollout: f64,
}

/// A parsed player spec.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    Mcts {
        text: String,
        config: SearchConfig,
        endgame: EndgameConfig,
        safe_first: bool,
        /// Keys a game reads for its own search (Amazons: `turn`, `depth`, `backup`, `scale`,
        /// `pe`), checked by the game that builds the player.
        game_keys: Vec<(String, String)>,
    },
    Nn {
        text: String,
        config: SearchConfig,
        model: PathBuf,
        guide: NetGuide,
        /// A late net (`late=`), the free edges from which it serves the play-outs
        /// (`horizon=`), how (`late_use=`) and, as a prior, with what weight (`late_weight=`).
        late: Option<(PathBuf, u32, LateUse, f32)>,
        /// A policy net (`policy=`) and how it is used (`policy_weight=`, `policy_rollout=`).
        policy: Option<PolicyUse>,
        endgame: EndgameConfig,
        safe_first: bool,
        /// Keys of the Dots-and-Boxes search (`rollout`).
        game_keys: Vec<(String, String)>,
    },
    External(ExternalConfig),
    Random {
        seed: u64,
    },
    Greedy {
        seed: u64,
        /// A weights file of the game's evaluation (Amazons; `tune` writes them).
        weights: Option<PathBuf>,
    },
    Rival {
        text: String,
        config: RivalConfig,
    },
    /// The QDab-modelled rival (Dots and Boxes).
    Qdab {
        text: String,
        config: QdabConfig,
    },
    /// Iterative-deepening alpha-beta with a time budget a move (Amazons).
    AlphaBeta {
        text: String,
        time_ms: u64,
        max_depth: u32,
        seed: u64,
        /// A weights file of the evaluation (`tune` writes them).
        weights: Option<PathBuf>,
    },
}

/// Whether `key` is a key of `mcts` that some game reads for its own search (each game
/// declares its own in the registry; the others refuse them).
fn is_game_search_key(key: &str) -> bool {
    crate::games::registry::search_key_owner(key).is_some()
}

const SEARCH_KEYS: [&str; 9] = [
    "iterations",
    "time_ms",
    "threads",
    "cp",
    "counter",
    "seed",
    "minimax",
    "widen",
    "transpositions",
];
const SOLVER_KEYS: [&str; 5] = [
    "solver_edges",
    "solver_nodes",
    "prove_edges",
    "prove_nodes",
    "solver_table",
];
/// Dots-and-Boxes knowledge for `mcts` and `nn`.
const KNOWLEDGE_KEYS: [&str; 1] = ["safe_first"];
const NET_KEYS: [&str; 15] = [
    "model",
    "policy",
    "policy_weight",
    "policy_rollout",
    "threshold",
    "from_move",
    "mix",
    "blend",
    "ask",
    "prior",
    "prior_visits",
    "late",
    "horizon",
    "late_use",
    "late_weight",
];
const EXTERNAL_KEYS: [&str; 4] = ["cmd", "name", "time_ms", "timeout_ms"];

/// An MCTS player of Dots and Boxes with the knowledge its spec asks for (none: plain search).
fn with_knowledge<R: RolloutPolicy<DotsAndBoxes> + 'static>(
    agent: MctsAgent<DotsAndBoxes, R>,
    safe_first: bool,
    endgame: EndgameConfig,
) -> Box<dyn Agent<DotsAndBoxes>> {
    Box::new(KnowledgeAgent::new(
        agent,
        DotsKnowledge::new(endgame, safe_first),
    ))
}

/// Splits `key=value,key=value`, keeping commas inside values when what follows is not a key.
fn pairs(body: &str, known: &dyn Fn(&str) -> bool) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for piece in body.split(',') {
        let key = piece.split_once('=').map(|(k, _)| k.trim());
        match key {
            Some(k) if known(k) => {
                let (k, v) = piece.split_once('=').expect("has '='");
                out.push((k.trim().to_string(), v.trim().to_string()));
            }
            _ => match out.last_mut() {
                Some((k, v)) if k == "cmd" => {
                    v.push(',');
                    v.push_str(piece);
                }
                _ => {
                    let name = key.unwrap_or(piece.trim());
                    return Err(format!("unknown key '{name}'"));
                }
            },
        }
    }
    Ok(out)
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{key} must be a number, got '{value}'"))
}

/// Reads a spec string.
pub fn parse_spec(text: &str) -> Result<AgentSpec, String> {
    let text = text.trim();
    let err = |e: String| format!("player '{text}': {e}");
    let (kind, body) = text.split_once(':').unwrap_or((text, ""));
    let body = body.trim();
    match kind {
        "random" | "greedy" => {
            let known = |k: &str| k == "seed" || (kind == "greedy" && k == "weights");
            let list = if body.is_empty() {
                Vec::new()
            } else {
                pairs(body, &known).map_err(err)?
            };
            let (mut seed, mut weights) = (1, None);
            for (key, value) in &list {
                match key.as_str() {
                    "weights" => weights = Some(PathBuf::from(value)),
                    _ => seed = number(key, value).map_err(err)?,
                }
            }
            Ok(if kind == "random" {
                AgentSpec::Random { seed }
            } else {
                AgentSpec::Greedy { seed, weights }
            })
        }
        "mcts" | "nn" | "rival" => {
            let net = kind == "nn";
            let rival = kind == "rival";
            let known = |k: &str| {
                (SEARCH_KEYS.contains(&k) && !(rival && k == "counter"))
                    || (net && NET_KEYS.contains(&k))
                    || (SOLVER_KEYS.contains(&k) && !(rival && k.starts_with("prove_")))
                    || (!rival && KNOWLEDGE_KEYS.contains(&k))
                    || ((kind == "mcts" || net) && is_game_search_key(k))
            };
            let list = if body.is_empty() {
                Vec::new()
            } else {
                pairs(body, &known).map_err(err)?
            };
            let mut config = SearchConfig {
                seed: 1,
                ..SearchConfig::default()
            };
            let mut iterations = Some(if rival { 20_000u64 } else { 100_000 });
            let mut time_ms = None;
            let mut rival_config = RivalConfig::default();
            let mut endgame = match kind {
                "rival" => rival_config.endgame,
                "nn" => EndgameConfig::ENGINE,
                _ => EndgameConfig::from_edges(0),
            };
            // Neither searches only the safe edges at the root by default: plain MCTS is the
            // paper's, with no knowledge, and the product's tree searches QDab's canonical
            // moves there (safe edges and the short chains' sacrifices; `tree=canonical`).
            let mut safe_first = false;
            let mut model = PathBuf::from(PAPER_MODEL);
            let mut guide = NetGuide::default();
            let (mut late, mut horizon, mut late_use) = (None, LateNet::HORIZON, LateUse::End);
            let mut late_weight: f32 = 1.0;
            let (mut policy, mut policy_weight) = (None, DEFAULT_POLICY_WEIGHT);
            let mut policy_rollout: f64 = 0.0;
            let mut game_keys = Vec::new();
            for (key, value) in &list {
                match key.as_str() {
                    k if is_game_search_key(k) => game_keys.push((key.clone(), value.clone())),
                    "iterations" => iterations = Some(number(key, value).map_err(err)?),
                    "time_ms" => {
                        time_ms = Some(number::<u64>(key, value).map_err(err)?);
                        if !list.iter().any(|(k, _)| k == "iterations") {
                            iterations = None;
                        }
                    }
                    "threads" => config.threads = number(key, value).map_err(err)?,
                    "cp" => config.cp = number(key, value).map_err(err)?,
                    "minimax" => {
                        config.minimax = number(key, value).map_err(err)?;
                        if !(0.0..=1.0).contains(&config.minimax) {
                            return Err(err(format!(
                                "minimax is a weight from 0 to 1, got '{value}'"
                            )));
                        }
                    }
                    "seed" => config.seed = number(key, value).map_err(err)?,
                    "widen" => config.widen = number(key, value).map_err(err)?,
                    "transpositions" => {
                        config.transpositions = match value.as_str() {
                            "1" => true,
                            "0" => false,
                            _ => {
                                return Err(err(format!(
                                    "transpositions is 0 or 1, not '{value}'"
                                )))
                            }
                        }
                    }
                    "counter" => {
                        config.counter = match value.as_str() {
                            "double" => CounterMode::Double,
                            "single" => CounterMode::Single,
                            _ => {
                                return Err(err(format!(
                                    "counter is double or single, not '{value}'"
                                )))
                            }
                        }
                    }
                    "safe_first" => {
                        safe_first = match value.as_str() {
                            "1" => true,
                            "0" => false,
                            _ => return Err(err(format!("safe_first is 0 or 1, not '{value}'"))),
                        }
                    }
                    "model" => model = PathBuf::from(value),
                    "late" => late = Some(PathBuf::from(value)),
                    "policy" => policy = Some(PathBuf::from(value)),
                    "policy_weight" => {
                        policy_weight = number(key, value).map_err(err)?;
                        if !(policy_weight.is_finite() && policy_weight >= 0.0) {
                            return Err(err(format!(
                                "policy_weight must be a non-negative number, got '{value}'"
                            )));
                        }
                    }
                    "policy_rollout" => {
                        policy_rollout = number(key, value).map_err(err)?;
                        if !(policy_rollout.is_finite() && policy_rollout >= 0.0) {
                            return Err(err(format!(
                                "policy_rollout is a temperature (0: off), got '{value}'"
                            )));
                        }
                    }
                    "horizon" => horizon = number(key, value).map_err(err)?,
                    "late_use" => {
                        late_use = LateUse::parse(value).ok_or_else(|| {
                            err(format!(
                                "late_use is end, pick, sure, prior or blend, not '{value}'"
                            ))
                        })?
                    }
                    "late_weight" => {
                        late_weight = number(key, value).map_err(err)?;
                        if !(late_weight.is_finite() && late_weight >= 0.0) {
                            return Err(err(format!(
                                "late_weight must be a non-negative number, got '{value}'"
                            )));
                        }
                    }
                    "threshold" => guide.threshold = number(key, value).map_err(err)?,
                    "from_move" => guide.from_move = number(key, value).map_err(err)?,
                    "mix" => guide.mix = number(key, value).map_err(err)?,
                    "blend" => guide.blend = number(key, value).map_err(err)?,
                    "prior" => guide.prior = number(key, value).map_err(err)?,
                    "prior_visits" => guide.prior_visits = number(key, value).map_err(err)?,
                    "ask" => {
                        guide.every_turn = match value.as_str() {
                            "leaf" => false,
                            "turns" => true,
                            _ => return Err(err(format!("ask is leaf or turns, not '{value}'"))),
                        }
                    }
                    "solver_edges" => endgame.edges = number(key, value).map_err(err)?,
                    "solver_nodes" => endgame.nodes = number(key, value).map_err(err)?,
                    "prove_edges" => endgame.prove_edges = number(key, value).map_err(err)?,
                    "prove_nodes" => endgame.prove_nodes = number(key, value).map_err(err)?,
                    "solver_table" => {
                        endgame.table_bits = number(key, value).map_err(err)?;
                        if !EndgameConfig::TABLE_BITS_RANGE.contains(&endgame.table_bits) {
                            return Err(err(format!(
                                "solver_table is the solver's table size as a power of two, \
                                 16 to 26, got '{value}'"
                            )));
                        }
                    }
                    _ => unreachable!("keys were checked"),
                }
            }
            if iterations == Some(0) || time_ms == Some(0) || config.threads == 0 {
                return Err(err(
                    "iterations, time_ms and threads must be positive".into()
                ));
            }
            if !(config.cp.is_finite() && config.cp >= 0.0) {
                return Err(err(format!(
                    "cp must be a non-negative number, got {}",
                    config.cp
                )));
            }
            if config.transpositions && config.minimax > 0.0 {
                return Err(err(
                    "transpositions and minimax do not go together: a node's minimax value \
                     is its own subtree's"
                        .into(),
                ));
            }
            config.budget = Budget {
                iterations,
                time: time_ms.map(Duration::from_millis),
            };
            // The product's net and its prior, unless a model, a prior or the paper's random
            // rollouts are asked for (a net made on other games measured nothing as a prior).
            let given = |k: &str| list.iter().any(|(key, _)| key == k);
            let random = game_keys.iter().any(|(k, v)| k == "rollout" && v == "random");
            if net && !given("model") && !random {
                model = PathBuf::from(PRODUCT_MODEL);
                if !given("prior") {
                    guide.prior = PRODUCT_PRIOR;
                }
            }
            // The product's search explores less than the paper's (any net, chain rollouts).
            if net && !random && !given("cp") {
                config.cp = PRODUCT_CP;
            }
            guide.check().map_err(err)?;
            if let Some(key) = ["horizon", "late_use", "late_weight"]
                .into_iter()
                .find(|&key| late.is_none() && list.iter().any(|(k, _)| k == key))
            {
                return Err(err(format!("{key} is the late net's: name one with late=")));
            }
            if late_use == LateUse::Blend && late_weight > 1.0 {
                return Err(err(format!(
                    "late_weight is the late net's share of a leaf's reward with late_use=blend: at most 1, got {late_weight}"
                )));
            }
            let late = late.map(|path| (path, horizon, late_use, late_weight));
            if let Some(key) = ["policy_weight", "policy_rollout"]
                .into_iter()
                .find(|&key| policy.is_none() && list.iter().any(|(k, _)| k == key))
            {
                return Err(err(format!(
                    "{key} is the policy net's: name one with policy="
                )));
            }
            let policy = policy.map(|path| PolicyUse {
                path,
                weight: policy_weight,
                rollout: policy_rollout,
            });
            let text = text.to_string();
            if rival {
                rival_config.search = config;
                rival_config.endgame = endgame;
                return Ok(AgentSpec::Rival {
                    text,
                    config: rival_config,
                });
            }
            Ok(if net {
                AgentSpec::Nn {
                    text,
                    config,
                    model,
                    guide,
                    late,
                    policy,
                    endgame,
                    safe_first,
                    game_keys,
                }
            } else {
                AgentSpec::Mcts {
                    text,
                    config,
                    endgame,
                    safe_first,
                    game_keys,
                }
            })
        }
        "qdab" => {
            let known = |k: &str| QdabConfig::KEYS.contains(&k);
            let list = if body.is_empty() {
                Vec::new()
            } else {
                pairs(body, &known).map_err(err)?
            };
            let config = QdabConfig::from_pairs(&list).map_err(err)?;
            Ok(AgentSpec::Qdab {
                text: text.to_string(),
                config,
            })
        }
        "alphabeta" => {
            let known = |k: &str| ["time_ms", "depth", "seed", "weights"].contains(&k);
            let list = if body.is_empty() {
                Vec::new()
            } else {
                pairs(body, &known).map_err(err)?
            };
            let (mut time_ms, mut max_depth, mut seed) = (1000u64, 64u32, 1u64);
            let mut weights = None;
            for (key, value) in &list {
                match key.as_str() {
                    "time_ms" => time_ms = number(key, value).map_err(err)?,
                    "depth" => max_depth = number(key, value).map_err(err)?,
                    "weights" => weights = Some(PathBuf::from(value)),
                    _ => seed = number(key, value).map_err(err)?,
                }
            }
            if time_ms == 0 || max_depth == 0 {
                return Err(err("time_ms and depth must be positive".into()));
            }
            Ok(AgentSpec::AlphaBeta {
                text: text.to_string(),
                time_ms,
                max_depth,
                seed,
                weights,
            })
        }
        "external" => {
            let known = |k: &str| EXTERNAL_KEYS.contains(&k) || k.starts_with("opt.");
            let list = pairs(body, &known).map_err(err)?;
            let mut config = ExternalConfig::new("");
            let mut timeout = None;
            for (key, value) in list {
                match key.as_str() {
                    "cmd" => config.command = value,
                    "name" => config.name = Some(value),
                    "time_ms" => config.time_ms = Some(number(&key, &value).map_err(err)?),
                    "timeout_ms" => timeout = Some(number::<u64>(&key, &value).map_err(err)?),
                    _ => {
                        let name = key.trim_start_matches("opt.").to_string();
                        config.options.push((name, value));
                    }
                }
            }
            if config.command.trim().is_empty() {
                return Err(err("external needs cmd=COMMAND".into()));
            }
            config.move_timeout = match (timeout, config.time_ms) {
                (Some(t), _) => Duration::from_millis(t),
                (None, Some(t)) => ExternalConfig::default_move_timeout(t),
                (None, None) => Duration::from_secs(60),
            };
            Ok(AgentSpec::External(config))
        }
        other => Err(err(format!(
            "unknown player kind '{other}' (known: random, greedy, rival, qdab, mcts, nn, alphabeta, external)"
        ))),
    }
}

impl AgentSpec {
    /// A player of Dots and Boxes on `board`'s size.
    pub fn build_dots(&self, board: &DotsAndBoxes) -> Result<Box<dyn Agent<DotsAndBoxes>>, String> {
        match self {
            AgentSpec::Nn {
                text,
                config,
                model,
                guide,
                late,
                policy,
                endgame,
                safe_first,
                game_keys,
            } => {
                let search = DotsSearch::from_keys(text, game_keys, DotsSearch::PRODUCT)?;
                let chains = search.chain_rollout();
                if chains.is_none() && (late.is_some() || policy.is_some()) {
                    let key = if late.is_some() { "late" } else { "policy" };
                    return Err(format!(
                        "player '{text}': {key} needs chain rollouts (rollout=chains or sacrifices)"
                    ));
                }
                let leaf_keys = guide.mix > 0.0 || guide.blend > 0.0 || guide.every_turn;
                if chains.is_none() && (leaf_keys || guide.prior > 0.0) {
                    // Random rollouts ask the net at every step: no leaf is left to mix.
                    let key = if guide.every_turn {
                        "ask=turns"
                    } else if guide.prior > 0.0 {
                        "prior"
                    } else if guide.blend > 0.0 {
                        "blend"
                    } else {
                        "mix"
                    };
                    return Err(format!(
                        "player '{text}': {key} needs chain rollouts (rollout=chains or sacrifices)"
                    ));
                }
                let net = load_dab_net(model, board).map_err(|e| e.to_string())?;
                let mut rollout = NetRollout::new(Arc::new(net), *guide)?;
                if let Some(chains) = chains {
                    rollout = rollout.then_chains(chains);
                }
                if let Some((path, horizon, late_use, weight)) = late {
                    let net = load_late_net(path, board).map_err(|e| e.to_string())?;
                    let late = LateNet::new(Arc::new(net), *horizon)
                        .with_role(*late_use)
                        .with_weight(*weight);
                    rollout = rollout.with_late(late);
                }
                if let Some(policy) = policy {
                    let net = load_policy_net(&policy.path, board).map_err(|e| e.to_string())?;
                    rollout = rollout.with_policy(net, policy.weight, policy.rollout);
                }
                let ucb = guide.tree_policy(config.cp);
                let agent = MctsAgent::new(text.clone(), config.clone(), ucb, rollout)
                    .with_reuse(search.reuse);
                Ok(with_knowledge(agent, *safe_first, *endgame))
            }
            AgentSpec::Mcts {
                text,
                config,
                endgame,
                safe_first,
                game_keys,
            } => {
                let search = DotsSearch::from_keys(text, game_keys, DotsSearch::PAPER)?;
                let agent: Box<dyn Agent<DotsAndBoxes>> = match search.chain_rollout() {
                    None => {
                        let agent =
                            MctsAgent::plain(text.clone(), config.clone()).with_reuse(search.reuse);
                        with_knowledge(agent, *safe_first, *endgame)
                    }
                    Some(chains) => {
                        let agent = MctsAgent::new(
                            text.clone(),
                            config.clone(),
                            Ucb::new(config.cp),
                            chains,
                        )
                        .with_reuse(search.reuse);
                        with_knowledge(agent, *safe_first, *endgame)
                    }
                };
                Ok(agent)
            }
            AgentSpec::Greedy { seed, weights } => match weights {
                Some(_) => {
                    Err("player greedy: weights files are for Amazons, not Dots and Boxes".into())
                }
                None => Ok(Box::new(GreedyAgent::new(*seed))),
            },
            AgentSpec::Rival { text, config } => {
                Ok(Box::new(RivalAgent::new(text.clone(), config.clone())))
            }
            AgentSpec::Qdab { text, config } => {
                Ok(Box::new(QdabAgent::new(text.clone(), config.clone())))
            }
            other => other.build(GameSpec::dots_and_boxes(board.rows(), board.cols())?),
        }
    }

    /// Whether an `mcts` spec sets knowledge of Dots and Boxes (any solver key or the safe
    /// edges first), which other games cannot give it.
    pub fn asks_dots_knowledge(&self) -> bool {
        matches!(self, AgentSpec::Mcts { endgame, safe_first, .. }
            if *endgame != EndgameConfig::from_edges(0) || *safe_first)
    }

    /// A player of any game without Dots-and-Boxes knowledge (`nn`, `greedy`, `rival` and
    /// `qdab` are refused).
    pub fn build<G: Game>(&self, spec: GameSpec) -> Result<Box<dyn Agent<G>>, String> {
        match self {
            AgentSpec::Mcts {
                text,
                config,
                game_keys,
                ..
            } => {
                refuse_game_keys(text, game_keys, spec.name())?;
                if self.asks_dots_knowledge() {
                    return Err(format!(
                        "player '{text}': the exact endgame (solver_edges, solver_nodes, \
                         prove_edges, prove_nodes) and safe_first are for Dots and Boxes only, \
                         not {spec}"
                    ));
                }
                Ok(Box::new(MctsAgent::plain(text.clone(), config.clone())))
            }
            AgentSpec::Nn { text, .. } => Err(format!(
                "player '{text}': value nets guide Dots and Boxes only, not {spec}"
            )),
            AgentSpec::External(config) => Ok(Box::new(ExternalAgent::new(config.clone(), spec))),
            AgentSpec::Random { seed } => Ok(Box::new(RandomAgent::new(*seed))),
            AgentSpec::Greedy { .. } | AgentSpec::Rival { .. } | AgentSpec::Qdab { .. } => Err(
                format!("players greedy, rival and qdab know Dots and Boxes only, not {spec}"),
            ),
            AgentSpec::AlphaBeta { text, .. } => Err(format!(
                "player '{text}': alphabeta plays Amazons only, not {spec}"
            )),
        }
    }
}

/// Refuses the keys another game's search reads.
pub fn refuse_game_keys(text: &str, keys: &[(String, String)], game: &str) -> Result<(), String> {
    match keys.first() {
        Some((key, _)) => Err(format!(
            "player '{text}': {key} is a key of the {} search, not of {game}",
            crate::games::registry::search_key_owner(key).unwrap_or("another game's")
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proofs_and_late_nets_are_read_and_refused_by_name() {
        match parse_spec("mcts:solver_edges=34,prove_edges=40,prove_nodes=5000").unwrap() {
            AgentSpec::Mcts { endgame, .. } => {
                assert_eq!((endgame.edges, endgame.prove_edges), (34, 40));
                assert_eq!(endgame.prove_nodes, 5000);
            }
            other => panic!("{other:?}"),
        }
        match parse_spec("nn:late=l.safetensors,horizon=35").unwrap() {
            AgentSpec::Nn { late, .. } => {
                assert_eq!(
                    late,
                    Some((PathBuf::from("l.safetensors"), 35, LateUse::End, 1.0))
                );
            }
            other => panic!("{other:?}"),
        }
        for (text, role) in [
            ("pick", LateUse::Pick),
            ("sure", LateUse::Sure),
            ("prior", LateUse::Prior),
            ("blend", LateUse::Blend),
        ] {
            match parse_spec(&format!("nn:late=l.safetensors,late_use={text}")).unwrap() {
                AgentSpec::Nn { late, .. } => {
                    let horizon = LateNet::HORIZON;
                    let path = PathBuf::from("l.safetensors");
                    assert_eq!(late, Some((path, horizon, role, 1.0)));
                }
                other => panic!("{other:?}"),
            }
        }
        let err = parse_spec("nn:late=l.safetensors,late_use=judge").unwrap_err();
        assert!(
            err.contains("late_use is end, pick, sure, prior or blend, not 'judge'"),
            "{err}"
        );
        match parse_spec("nn:late=l.safetensors,late_use=prior,late_weight=2.5").unwrap() {
            AgentSpec::Nn { late, .. } => assert_eq!(late.map(|l| l.3), Some(2.5)),
            other => panic!("{other:?}"),
        }
        let err = parse_spec("nn:late=l.safetensors,late_weight=-1").unwrap_err();
        assert!(
            err.contains("late_weight must be a non-negative number"),
            "{err}"
        );
        let err = parse_spec("nn:late=l.safetensors,late_use=blend,late_weight=1.5").unwrap_err();
        assert!(err.contains("at most 1"), "{err}");
        match parse_spec("nn:late=l.safetensors,late_use=blend,late_weight=0.5").unwrap() {
            AgentSpec::Nn { late, .. } => assert_eq!(late.map(|l| l.3), Some(0.5)),
            other => panic!("{other:?}"),
        }
        let err = parse_spec("nn:late_weight=1").unwrap_err();
        assert!(err.contains("late_weight is the late net's"), "{err}");
        let err = parse_spec("nn:late_use=pick").unwrap_err();
        assert!(err.contains("late_use is the late net's"), "{err}");
        match parse_spec("nn").unwrap() {
            AgentSpec::Nn { late, .. } => assert_eq!(late, None),
            other => panic!("{other:?}"),
        }
        // The rival has no proofs; plain MCTS may have proofs without the solver.
        let err = parse_spec("rival:prove_edges=40").unwrap_err();
        assert!(err.contains("prove_edges"), "{err}");
        // The solver's table: 2^20 entries unless a size is named.
        let table = |text: &str| match parse_spec(text).unwrap() {
            AgentSpec::Nn { endgame, .. } | AgentSpec::Mcts { endgame, .. } => endgame.table_bits,
            other => panic!("{other:?}"),
        };
        assert_eq!(table("nn"), EndgameConfig::TABLE_BITS);
        assert_eq!(table("mcts:solver_edges=34"), EndgameConfig::TABLE_BITS);
        assert_eq!(table("nn:solver_table=18"), 18);
        let err = parse_spec("nn:solver_table=30").unwrap_err();
        assert!(
            err.contains("solver_table is the solver's table size"),
            "{err}"
        );
        assert!(parse_spec("mcts:solver_table=22")
            .unwrap()
            .asks_dots_knowledge());
        match parse_spec("mcts:prove_edges=40").unwrap() {
            AgentSpec::Mcts { endgame, .. } => assert!(endgame.is_on() && endgame.edges == 0),
            other => panic!("{other:?}"),
        }
        let err = parse_spec("nn:horizon=30").unwrap_err();
        assert!(err.contains("name one with late="), "{err}");
        let board = DotsAndBoxes::new(5, 5).unwrap();
        let err = parse_spec("nn:late=l.safetensors,rollout=random")
            .unwrap()
            .build_dots(&board)
            .err()
            .unwrap();
        assert!(err.contains("late needs chain rollouts"), "{err}");
        let err = parse_spec("nn:late=/no/such/late.safetensors")
            .unwrap()
            .build_dots(&board)
            .err()
            .unwrap();
        assert!(err.contains("/no/such/late.safetensors"), "{err}");
    }

    #[test]
    fn transpositions_are_read_and_refused_by_name() {
        for (text, on) in [
            ("mcts:transpositions=1", true),
            ("nn:transpositions=0", false),
        ] {
            match parse_spec(text).unwrap() {
                AgentSpec::Mcts { config, .. } | AgentSpec::Nn { config, .. } => {
                    assert_eq!(config.transpositions, on, "{text}")
                }
                other => panic!("{other:?}"),
            }
        }
        let err = parse_spec("mcts:transpositions=yes").unwrap_err();
        assert!(err.contains("transpositions is 0 or 1"), "{err}");
        let err = parse_spec("mcts:transpositions=1,minimax=0.5").unwrap_err();
        assert!(err.contains("do not go together"), "{err}");
    }

    #[test]
    fn policy_nets_are_read_and_refused_by_name() {
        let policy_of = |text: &str| match parse_spec(text).unwrap() {
            AgentSpec::Nn { policy, .. } => policy,
            other => panic!("{other:?}"),
        };
        let use_of = |weight, rollout| {
            Some(PolicyUse {
                path: PathBuf::from("p.safetensors"),
                weight,
                rollout,
            })
        };
        assert_eq!(
            policy_of("nn:policy=p.safetensors,policy_weight=0.25"),
            use_of(0.25, 0.0)
        );
        assert_eq!(
            policy_of("nn:policy=p.safetensors"),
            use_of(DEFAULT_POLICY_WEIGHT, 0.0)
        );
        assert_eq!(
            policy_of("nn:policy=p.safetensors,policy_weight=0,policy_rollout=0.5"),
            use_of(0.0, 0.5)
        );
        for key in ["policy_weight", "policy_rollout"] {
            let err = parse_spec(&format!("nn:{key}=1")).unwrap_err();
            assert!(err.contains(&format!("{key} is the policy net's")), "{err}");
            let err = parse_spec(&format!("nn:policy=p.safetensors,{key}=-1")).unwrap_err();
            assert!(err.contains(key), "{err}");
        }
        let board = DotsAndBoxes::new(5, 5).unwrap();
        let err = parse_spec("nn:policy=p.safetensors,rollout=random")
            .unwrap()
            .build_dots(&board)
            .err()
            .unwrap();
        assert!(err.contains("policy needs chain rollouts"), "{err}");
        let err = parse_spec("nn:policy=/no/such/policy.safetensors")
            .unwrap()
            .build_dots(&board)
            .err()
            .unwrap();
        assert!(err.contains("/no/such/policy.safetensors"), "{err}");
    }

    #[test]
    fn specs_are_read_with_defaults_and_errors_named() {
        match parse_spec("mcts").unwrap() {
            AgentSpec::Mcts { config, .. } => {
                assert_eq!(config.budget, Budget::iterations(100_000));
                assert_eq!(config.counter, CounterMode::Double);
            }
            other => panic!("{other:?}"),
        }
        match parse_spec("mcts:time_ms=50,counter=single,threads=2").unwrap() {
            AgentSpec::Mcts { config, .. } => {
                assert_eq!(config.budget, Budget::time(Duration::from_millis(50)));
                assert_eq!(config.counter, CounterMode::Single);
                assert_eq!(config.threads, 2);
            }
            other => panic!("{other:?}"),
        }
        match parse_spec("nn:threshold=0.8,iterations=5000").unwrap() {
            AgentSpec::Nn {
                model,
                guide,
                config,
                ..
            } => {
                assert_eq!(model, PathBuf::from(PRODUCT_MODEL));
                assert_eq!(guide.threshold, 0.8);
                assert_eq!(guide.prior, PRODUCT_PRIOR);
                assert_eq!(guide.prior_visits, 0.0);
                assert_eq!(config.cp, PRODUCT_CP);
            }
            other => panic!("{other:?}"),
        }
        // The product's constant unless one is given; the paper's engine keeps the paper's.
        for (spec, want_cp) in [
            ("nn:cp=1", 1.0),
            ("nn:model=a.safetensors", PRODUCT_CP),
            ("nn:rollout=random", Ucb::DEFAULT_CP),
            ("mcts:rollout=sacrifices", Ucb::DEFAULT_CP),
        ] {
            match parse_spec(spec).unwrap() {
                AgentSpec::Nn { config, .. } | AgentSpec::Mcts { config, .. } => {
                    assert_eq!(config.cp, want_cp, "{spec}")
                }
                other => panic!("{other:?}"),
            }
        }
        match parse_spec("nn:prior_visits=30").unwrap() {
            AgentSpec::Nn { guide, .. } => assert_eq!(guide.prior_visits, 30.0),
            other => panic!("{other:?}"),
        }
        for (spec, want) in [
            (
                "nn:prior_visits=-1",
                "prior_visits must be a non-negative number",
            ),
            ("nn:prior=0,prior_visits=5", "it needs prior above 0"),
        ] {
            let e = parse_spec(spec).unwrap_err();
            assert!(e.contains(want), "{spec}: {e}");
        }
        // The paper's rollouts keep the paper's net; a named model or prior is taken as given.
        for (spec, want_model, want_prior) in [
            ("nn:rollout=random", PAPER_MODEL, 0.0),
            ("nn:model=a.safetensors", "a.safetensors", 0.0),
            ("nn:prior=0", PRODUCT_MODEL, 0.0),
            ("nn:prior=2,rollout=chains", PRODUCT_MODEL, 2.0),
        ] {
            match parse_spec(spec).unwrap() {
                AgentSpec::Nn { model, guide, .. } => {
                    assert_eq!(model, PathBuf::from(want_model), "{spec}");
                    assert_eq!(guide.prior, want_prior, "{spec}");
                }
                other => panic!("{other:?}"),
            }
        }
        match parse_spec("external:cmd=prog --x a,b --y,time_ms=500,opt.seed=3").unwrap() {
            AgentSpec::External(c) => {
                assert_eq!(c.command, "prog --x a,b --y");
                assert_eq!(c.time_ms, Some(500));
                assert_eq!(c.move_timeout, Duration::from_millis(1500));
                assert_eq!(c.options, vec![("seed".to_string(), "3".to_string())]);
            }
            other => panic!("{other:?}"),
        }
        // Who has the exact endgame by default: the rival (QDab's solver late) and the
        // product's engine; plain MCTS is the paper's, with none.
        let edges = |text: &str| match parse_spec(text).unwrap() {
            AgentSpec::Mcts { endgame, .. } | AgentSpec::Nn { endgame, .. } => endgame.edges,
            AgentSpec::Rival { config, .. } => config.endgame.edges,
            other => panic!("{other:?}"),
        };
        assert_eq!(edges("mcts"), 0);
        assert_eq!(edges("nn"), EndgameConfig::ENGINE.edges);
        assert_eq!(edges("rival"), EndgameConfig::RIVAL.edges);
        assert_eq!(edges("nn:solver_edges=0"), 0);
        assert_eq!(edges("mcts:solver_edges=34"), 34);
        let safe_first = |text: &str| match parse_spec(text).unwrap() {
            AgentSpec::Mcts { safe_first, .. } | AgentSpec::Nn { safe_first, .. } => safe_first,
            other => panic!("{other:?}"),
        };
        // The product's canonical tree searches the root's moves itself (docs/players.md).
        assert!(!safe_first("nn") && safe_first("nn:safe_first=1"));
        assert!(!safe_first("mcts") && safe_first("mcts:safe_first=1"));
        for dots_only in [
            "mcts:solver_edges=30",
            "mcts:solver_nodes=5",
            "mcts:safe_first=1",
        ] {
            let e = parse_spec(dots_only)
                .unwrap()
                .build::<crate::games::TicTacToe>(GameSpec::named("tictactoe").unwrap())
                .err()
                .unwrap();
            assert!(e.contains("for Dots and Boxes only"), "{e}");
        }
        assert!(parse_spec("mcts")
            .unwrap()
            .build::<crate::games::TicTacToe>(GameSpec::named("tictactoe").unwrap())
            .is_ok());
        // `mix`, `ask=turns` and `prior` need chain rollouts: refused before the net is read.
        let board = DotsAndBoxes::new(5, 5).unwrap();
        for (key, says) in [
            ("mix=0.5", "mix needs chain rollouts"),
            ("ask=turns", "ask=turns needs chain rollouts"),
            ("prior=1", "prior needs chain rollouts"),
        ] {
            let e = parse_spec(&format!("nn:rollout=random,{key},model=no-such-file"))
                .unwrap()
                .build_dots(&board)
                .err()
                .unwrap();
            assert!(e.contains(says), "{key}: {e}");
        }
        for (bad, says) in [
            ("chess", "unknown player kind"),
            ("mcts:width=3", "unknown key 'width'"),
            ("mcts:iterations=x", "iterations must be a number"),
            ("mcts:model=a", "unknown key 'model'"),
            ("nn:threshold=3", "threshold"),
            ("external:name=x", "needs cmd"),
            ("mcts:counter=triple", "double or single"),
            ("nn:safe_first=yes", "0 or 1"),
            ("nn:ask=sometimes", "leaf or turns"),
            ("nn:prior=-1", "prior must be a non-negative number"),
            ("rival:safe_first=1", "unknown key 'safe_first'"),
            ("qdab:cp=1", "unknown key 'cp'"),
            ("qdab:time_ms=fast", "time_ms must be a whole number"),
            ("qdab:iterations=0", "iterations must be positive"),
            ("qdab:threads=1000", "threads must be 1 to 64"),
            ("qdab:leaf_nodes=-3", "leaf_nodes must be a whole number"),
        ] {
            let e = parse_spec(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains(says), "{bad}: {e}");
        }
    }
}
