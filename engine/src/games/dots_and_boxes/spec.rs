//! The players of Dots and Boxes as a spec names them, on top of the kinds every game has
//! (`agents::parse_spec`):
//!
//! * `mcts` — plain MCTS, with the Dots-and-Boxes keys `solver_edges` (0: the paper's plain
//!   MCTS; N > 0 takes free captures at once and lets the exact solver move from N free edges
//!   on), `solver_nodes` (4000000), `prove_edges`, `prove_nodes`, `solver_table` (20: the
//!   solver's table, 2^N entries of 32 bytes, kept between moves), `safe_first` (0; 1: with no
//!   box to take and a safe edge left, only the safe edges are searched at the root) and the
//!   search's `rollout`, `tree`, and `endgame_nodes` ([`DotsSearch`]).
//! * `nn` — net-guided MCTS: the `mcts` keys and `model` (default the product's
//!   `models/dab-5x5-sv/model.safetensors`, with `rollout=random` the paper's
//!   `models/dab-5x5/model.safetensors`), `threshold` (1; 0.9 with `rollout=random`),
//!   `net_from_move` (0) and `prior` (1); `solver_edges` is 34, `prove_edges` 40, `rollout` `sacrifices`, `tree`
//!   `canonical` and `cp` 0.35 by default (`solver_edges=0,rollout=random` is the paper's
//!   engine, with no game knowledge and `cp` sqrt(2)).
//! * `rival` — the QDab-style rival. Keys: `iterations` (20000, its search over safe edges),
//!   `time_ms`, `threads`, `cp`, `seed`, `solver_edges` (30: the exact solver answers from
//!   this many free edges on), `solver_nodes` (4000000: its limit).
//! * `qdab` — the second rival, modelled on QDab: a search of its own over canonical moves.
//!   Keys: `time_ms` (300), `iterations` (none; with both, whichever ends first), `threads`
//!   (1), `seed` (1), `solver_nodes` (4000000: the root solve from turn 24, at most half the
//!   time's worth), `leaf_nodes` (20000: one leaf or rollout's solve).
//! * `greedy` — takes a box when it can, else a random safe edge. Key `seed` (1).

use std::sync::Arc;

use super::net::{
    NetChoice, NetGuide, NetRollout, PAPER_MODEL, PRODUCT_CP, PRODUCT_PRIOR, PRODUCT_THRESHOLD,
};
use super::{
    ChainRollout, DotsAndBoxes, DotsKnowledge, DotsSearch, EndgameConfig, GreedyAgent,
    KnowledgeAgent, QdabAgent, QdabConfig, RivalAgent, RivalConfig,
};
use crate::agents::spec::{
    expand_alias, key_value, number, only_keys, read_search_keys, switch, unknown_key_in,
    with_keys, GreedyKeys, SEARCH_KEYS,
};
use crate::agents::{parse_spec, Agent, AgentSpec, MctsAgent};
use crate::game_spec::{file_key, joined_keys, key, KeyDecl, PlayerDecl};
use crate::games::RegisteredGame;
use crate::mcts::{RolloutPolicy, SearchConfig, Ucb};

/// The exact endgame's keys (`mcts`, `nn`; `rival` has the first two).
const SOLVER: [KeyDecl; 5] = [
    key(
        "solver_edges",
        "0",
        "free captures at once and the exact solver from this many free edges (mcts 0: the paper's; nn 34, 40 on 6x6, 44 on 7x7; rival 30)",
    ),
    key(
        "solver_nodes",
        "4000000",
        "the solver's node limit a move",
    ),
    key(
        "prove_edges",
        "0",
        "up to this many free edges, a win the solver proves is kept without a search (nn 40, 46 on 6x6, 50 on 7x7)",
    ),
    key("prove_nodes", "1000000", "a proof's node limit (nn 2000000)"),
    key(
        "solver_table",
        "20",
        "the solver's table: 2^N entries of 32 bytes kept between moves (16 to 26)",
    ),
];

/// The keys of the search itself, which [`DotsSearch::from_keys`] reads.
const SEARCH_OWN: [KeyDecl; 3] = [
    key(
        "rollout",
        "random",
        "random (the paper's), chains (safe edges, then the endgame exactly) or sacrifices (chains with the short chains' sacrifices); nn: sacrifices",
    ),
    key(
        "tree",
        "all",
        "the moves tree nodes search: all, safe or canonical (QDab's); nn: canonical",
    ),
    key(
        "endgame_nodes",
        "3000",
        "the chain rollouts' solver budget",
    ),
];

/// The exact endgame's keys and `safe_first`, which the root reads.
const ROOT: [KeyDecl; 6] = joined_keys(
    &SOLVER,
    &[key(
        "safe_first",
        "0",
        "1: with no box to take, only the safe edges are searched at the root",
    )],
);

/// The keys `mcts` reads on Dots and Boxes, beside the keys every search shares.
pub const MCTS_KEYS: [KeyDecl; 9] = joined_keys(&ROOT, &SEARCH_OWN);

/// The net's keys of `nn`.
const NET: [KeyDecl; 4] = [
    file_key(
        "model",
        "product",
        "the value net: product (the product's net of the board's size, see models/README.md; none on a size without one), none (the same search without a net) or a file; with rollout=random the paper's models/dab-5x5",
        &["product", "none"],
    ),
    key(
        "threshold",
        "1",
        "a rollout ends once an output reaches this; 1 (chain rollouts): never, and the net is not asked at the leaves at all; with rollout=random the paper's 0.9",
    ),
    key(
        "net_from_move",
        "0",
        "the net is asked from this many edges drawn on (old spelling: from_move)",
    ),
    key(
        "prior",
        "1",
        "the weight of the net's P(win) - P(loss) as a bias on tree children (chain rollouts, any net; 0 with rollout=random)",
    ),
];

/// `nn`'s keys: the net's, those every search shares (`iterations`, `time_ms`, `threads`,
/// `seed`, `cp`, ...), and `mcts`'s own on Dots and Boxes.
const NN_KEYS: [KeyDecl; 19] = joined_keys(&joined_keys::<10>(&NET, &SEARCH_KEYS), &MCTS_KEYS);

/// `mcts`'s keys: those every search shares and its own on Dots and Boxes.
const MCTS_ALL_KEYS: [KeyDecl; 15] = joined_keys(&SEARCH_KEYS, &MCTS_KEYS);

/// `qdab`'s keys, as [`QdabConfig::from_pairs`] reads them.
const QDAB_KEYS: [KeyDecl; 6] = [
    key("time_ms", "300", "milliseconds a move"),
    key(
        "iterations",
        "",
        "iterations a move (with time_ms: whichever ends first)",
    ),
    key(
        "threads",
        "1",
        "search threads (0: one a core; at most 256)",
    ),
    key("seed", "1", "the seed of its choices"),
    key(
        "solver_nodes",
        "4000000",
        "the root solve from turn 24 (at most half the time's worth)",
    ),
    key("leaf_nodes", "20000", "one leaf or rollout's solve"),
];

/// `rival`'s keys.
const RIVAL_KEYS: [KeyDecl; 8] = [
    key(
        "iterations",
        "20000",
        "iterations of its search over safe edges",
    ),
    SEARCH_KEYS[1],
    SEARCH_KEYS[2],
    SEARCH_KEYS[3],
    SEARCH_KEYS[5],
    key(
        "solver_edges",
        "30",
        "the exact solver answers from this many free edges on",
    ),
    SOLVER[1],
    SOLVER[4],
];

/// The players of Dots and Boxes beside `random`, `mcts` and `external`.
pub const PLAYERS: [PlayerDecl; 6] = [
    PlayerDecl {
        kind: "best",
        about: "the strongest measured: nn, the product's engine (19-1 against the real QDab, issue 46; 92-8 against qdab)",
        alias_of: Some("nn"),
        runs_program: false,
        keys: &[],
    },
    PlayerDecl {
        kind: "paper",
        about: "the paper's player: its plain MCTS; with net=1 its net-guided engine (random rollouts ended by models/dab-5x5 at 0.9, no knowledge); other keys are mcts's or nn's",
        alias_of: None,
        runs_program: false,
        keys: &[key(
            "net",
            "0",
            "1: the paper's net ends the rollouts (section 5.2)",
        )],
    },
    PlayerDecl {
        kind: "nn",
        about: "the product's engine: MCTS over canonical moves, chain rollouts, the exact endgame and proofs, and the product's net as a prior on the boards that have one (models/README.md; model=none: without it)",
        alias_of: None,
        runs_program: false,
        keys: &NN_KEYS,
    },
    PlayerDecl {
        kind: "qdab",
        about: "a rival modelled on QDab: its own search over canonical moves and a root solve (beats rival 95-5)",
        alias_of: None,
        runs_program: false,
        keys: &QDAB_KEYS,
    },
    PlayerDecl {
        kind: "rival",
        about: "the first QDab-style rival: MCTS over safe edges, the exact solver from 30 free edges",
        alias_of: None,
        runs_program: false,
        keys: &RIVAL_KEYS,
    },
    PlayerDecl {
        kind: "greedy",
        about: "takes a box when it can, else a random safe edge: fast, for tests",
        alias_of: None,
        runs_program: false,
        keys: &[key("seed", "1", "the seed of its choices")],
    },
];

/// The spec `paper` stands for: the paper's plain MCTS, or with `net` its net-guided engine.
fn paper_spec(text: &str, keys: &[(String, String)]) -> Result<AgentSpec, String> {
    let mut net = false;
    let mut rest = Vec::new();
    for (k, v) in keys {
        if k == "net" {
            net = switch(k, v).map_err(|e| format!("player '{text}': {e}"))?;
        } else {
            rest.push(key_value(k, v));
        }
    }
    let base = if net {
        "nn:rollout=random,solver_edges=0,prove_edges=0"
    } else {
        "mcts"
    };
    parse_spec(&with_keys(base, &rest))
}

/// A Dots-and-Boxes player spec, read.
#[derive(Clone, Debug, PartialEq)]
pub enum DotsSpec {
    Mcts {
        text: String,
        config: SearchConfig,
        endgame: EndgameConfig,
        safe_first: bool,
        /// The keys of the search (`rollout`, `tree`, `endgame_nodes`).
        game_keys: Vec<(String, String)>,
    },
    Nn {
        text: String,
        config: SearchConfig,
        model: NetChoice,
        guide: NetGuide,
        endgame: EndgameConfig,
        safe_first: bool,
        /// The keys of the search (`rollout`, `tree`, `endgame_nodes`).
        game_keys: Vec<(String, String)>,
    },
    Rival {
        text: String,
        config: RivalConfig,
    },
    Qdab {
        text: String,
        config: QdabConfig,
    },
    Greedy {
        seed: u64,
    },
}

/// Reads a spec string as a Dots-and-Boxes player (`None` for the kinds every game builds
/// alike: `random`, `external`).
pub fn parse_dots(text: &str) -> Result<Option<DotsSpec>, String> {
    dots_spec(&parse_spec(text)?)
}

/// A spec read as a Dots-and-Boxes player (`None` for `random` and `external`).
pub fn dots_spec(spec: &AgentSpec) -> Result<Option<DotsSpec>, String> {
    // `best` as the spec it stands for.
    if let Some(expanded) = expand_alias(spec, &PLAYERS)? {
        return dots_spec(&expanded);
    }
    let (kind, text, keys) = match spec {
        AgentSpec::Mcts {
            text,
            config,
            game_keys,
        } => {
            // The shared keys are read already: the rest are the game's.
            return read_mcts_family("mcts", text, Some(config.clone()), game_keys).map(Some);
        }
        AgentSpec::Game { kind, text, keys } => (kind.as_str(), text, keys),
        AgentSpec::Random { .. } | AgentSpec::External(_) => return Ok(None),
    };
    match kind {
        "paper" => dots_spec(&paper_spec(text, keys)?),
        "nn" | "rival" => read_mcts_family(kind, text, None, keys).map(Some),
        "qdab" => {
            only_keys(text, keys, &QDAB_KEYS)?;
            let config =
                QdabConfig::from_pairs(keys).map_err(|e| format!("player '{text}': {e}"))?;
            Ok(Some(DotsSpec::Qdab {
                text: text.clone(),
                config,
            }))
        }
        "greedy" => {
            let keys = GreedyKeys::read(text, keys, false)?;
            Ok(Some(DotsSpec::Greedy { seed: keys.seed }))
        }
        other => Err(format!(
            "player '{text}': unknown player kind '{other}' for dots_and_boxes (its kinds: random, mcts, external, {})",
            PLAYERS.map(|p| p.kind).join(", ")
        )),
    }
}

/// Reads `mcts`, `nn` and `rival` specs: the shared search keys (already read into `config`
/// for `mcts`), the exact endgame, the knowledge, the nets and the search's own keys.
fn read_mcts_family(
    kind: &str,
    text: &str,
    config: Option<SearchConfig>,
    keys: &[(String, String)],
) -> Result<DotsSpec, String> {
    let err = |e: String| format!("player '{text}': {e}");
    let net = kind == "nn";
    let rival = kind == "rival";
    let (mut config, list) = match config {
        Some(config) => (config, keys.to_vec()),
        None => read_search_keys(text, keys, if rival { 20_000 } else { 100_000 }, &|k| {
            !(rival && k == "counter")
        })?,
    };
    // The keys this kind declares (the shared search keys are read above).
    let declared: &[KeyDecl] = match kind {
        "nn" => &NN_KEYS,
        "rival" => &RIVAL_KEYS,
        _ => &MCTS_KEYS,
    };
    let mut rival_config = RivalConfig::default();
    let mut endgame = match kind {
        "rival" => rival_config.endgame,
        "nn" => EndgameConfig::ENGINE,
        _ => EndgameConfig::from_edges(0),
    };
    // Neither searches only the safe edges at the root by default: plain MCTS is the paper's,
    // with no knowledge, and the product's tree searches QDab's canonical moves there (safe
    // edges and the short chains' sacrifices; `tree=canonical`).
    let mut safe_first = false;
    let mut model = NetChoice::File(PAPER_MODEL.into());
    let mut guide = NetGuide::default();
    let mut game_keys = Vec::new();
    for (key, value) in &list {
        let k = key.as_str();
        // `from_move`: the old spelling of `net_from_move`.
        let known = declared.iter().any(|d| d.name == k) || (kind == "nn" && k == "from_move");
        if !known {
            // The error lists the keys the kind takes (a retired key reads as any other).
            let all: &[KeyDecl] = match kind {
                "mcts" => &MCTS_ALL_KEYS,
                _ => declared,
            };
            return Err(unknown_key_in(text, key, all));
        }
        match k {
            k if SEARCH_OWN.iter().any(|d| d.name == k) => {
                game_keys.push((key.clone(), value.clone()))
            }
            "safe_first" => safe_first = switch(key, value).map_err(err)?,
            "model" => model = NetChoice::parse(value),
            "threshold" => guide.threshold = number(key, value).map_err(err)?,
            "net_from_move" | "from_move" => guide.from_move = number(key, value).map_err(err)?,
            "prior" => guide.prior = number(key, value).map_err(err)?,
            "solver_edges" => {
                endgame.edges = number(key, value).map_err(err)?;
                endgame.edges_by_board = false;
            }
            "solver_nodes" => endgame.nodes = number(key, value).map_err(err)?,
            "prove_edges" => {
                endgame.prove_edges = number(key, value).map_err(err)?;
                endgame.prove_edges_by_board = false;
            }
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
    // The product's net unless a model or the paper's random rollouts are asked for; with
    // chain rollouts any net is asked as the product's is, as a prior of PRODUCT_PRIOR unless
    // a prior is given (a named model once got none, so a file net was asked only at the
    // leaves: see docs/players.md, bigger boards).
    let given = |k: &str| keys.iter().any(|(key, _)| key == k);
    let random = game_keys
        .iter()
        .any(|(k, v)| k == "rollout" && v == "random");
    if net && !random {
        if !given("model") {
            model = NetChoice::Product;
        }
        if !given("prior") {
            guide.prior = PRODUCT_PRIOR;
        }
        if !given("threshold") {
            guide.threshold = PRODUCT_THRESHOLD;
        }
    }
    // The product's search explores less than the paper's (any net, chain rollouts).
    if net && !random && !given("cp") {
        config.cp = PRODUCT_CP;
    }
    guide.check().map_err(err)?;
    let text = text.to_string();
    if rival {
        rival_config.search = config;
        rival_config.endgame = endgame;
        return Ok(DotsSpec::Rival {
            text,
            config: rival_config,
        });
    }
    Ok(if net {
        DotsSpec::Nn {
            text,
            config,
            model,
            guide,
            endgame,
            safe_first,
            game_keys,
        }
    } else {
        DotsSpec::Mcts {
            text,
            config,
            endgame,
            safe_first,
            game_keys,
        }
    })
}

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

/// The search without a net: chain rollouts where the spec has them, else plain MCTS, with
/// the knowledge the spec asks for (`mcts`, and `nn` on a size without a product net).
fn without_net(
    text: &str,
    config: &SearchConfig,
    chains: Option<ChainRollout>,
    safe_first: bool,
    endgame: EndgameConfig,
) -> Box<dyn Agent<DotsAndBoxes>> {
    match chains {
        Some(chains) => with_knowledge(
            MctsAgent::new(text, config.clone(), Ucb::new(config.cp), chains),
            safe_first,
            endgame,
        ),
        None => with_knowledge(MctsAgent::plain(text, config.clone()), safe_first, endgame),
    }
}

/// A player of Dots and Boxes on `board`'s size.
pub fn build_dots(
    spec: &AgentSpec,
    board: &DotsAndBoxes,
) -> Result<Box<dyn Agent<DotsAndBoxes>>, String> {
    match dots_spec(spec)? {
        Some(dots) => dots.build(board),
        None => spec.build(board.spec(), &PLAYERS),
    }
}

/// `spec.build_dots(&board)`: [`build_dots`] as a method of any parsed spec.
pub trait BuildDots {
    fn build_dots(&self, board: &DotsAndBoxes) -> Result<Box<dyn Agent<DotsAndBoxes>>, String>;
}

impl BuildDots for AgentSpec {
    fn build_dots(&self, board: &DotsAndBoxes) -> Result<Box<dyn Agent<DotsAndBoxes>>, String> {
        build_dots(self, board)
    }
}

impl DotsSpec {
    /// The player on `board`'s size.
    pub fn build(&self, board: &DotsAndBoxes) -> Result<Box<dyn Agent<DotsAndBoxes>>, String> {
        match self {
            DotsSpec::Nn {
                text,
                config,
                model,
                guide,
                endgame,
                safe_first,
                game_keys,
            } => {
                let search = DotsSearch::from_keys(text, game_keys, DotsSearch::PRODUCT)?;
                let chains = search.chain_rollout();
                if chains.is_none() && guide.prior > 0.0 {
                    // Random rollouts ask the net at every step: no leaf to ask.
                    return Err(format!(
                        "player '{text}': prior needs chain rollouts (rollout=chains or sacrifices)"
                    ));
                }
                // The product's net is per board size: on a size without one its search runs
                // without a net (as with model=none), where a net named by hand must fit.
                let net = model
                    .load(board)
                    .map_err(|e| format!("player '{text}': {e}"))?;
                let Some(net) = net else {
                    return Ok(without_net(text, config, chains, *safe_first, *endgame));
                };
                let mut rollout = NetRollout::new(Arc::new(net), *guide)?;
                if let Some(chains) = chains {
                    rollout = rollout.then_chains(chains);
                }
                let ucb = guide.tree_policy(config.cp);
                let agent = MctsAgent::new(text.clone(), config.clone(), ucb, rollout);
                Ok(with_knowledge(agent, *safe_first, *endgame))
            }
            DotsSpec::Mcts {
                text,
                config,
                endgame,
                safe_first,
                game_keys,
            } => {
                let search = DotsSearch::from_keys(text, game_keys, DotsSearch::PAPER)?;
                let chains = search.chain_rollout();
                Ok(without_net(text, config, chains, *safe_first, *endgame))
            }
            DotsSpec::Greedy { seed } => Ok(Box::new(GreedyAgent::new(*seed))),
            DotsSpec::Rival { text, config } => {
                Ok(Box::new(RivalAgent::new(text.clone(), config.clone())))
            }
            DotsSpec::Qdab { text, config } => {
                Ok(Box::new(QdabAgent::new(text.clone(), config.clone())))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcts::{Budget, CounterMode};
    use std::time::Duration;

    /// The key tables are joined from their parts whole: `mcts`'s in the order its help lists
    /// them, and `nn`'s ending with them.
    #[test]
    fn key_tables_keep_their_parts_in_order() {
        let names = |keys: &[KeyDecl]| keys.iter().map(|k| k.name).collect::<Vec<_>>();
        let mcts = [
            "solver_edges",
            "solver_nodes",
            "prove_edges",
            "prove_nodes",
            "solver_table",
            "safe_first",
            "rollout",
            "tree",
            "endgame_nodes",
        ];
        assert_eq!(names(&MCTS_KEYS), mcts);
        assert_eq!(names(&NN_KEYS)[NET.len() + SEARCH_KEYS.len()..], mcts);
        assert_eq!(names(&SEARCH_OWN), mcts[6..]);
        // `engine players` lists every key `nn` (so `best`) takes: the shared search keys too.
        let nn = names(&NN_KEYS);
        for shared in ["iterations", "time_ms", "threads", "seed", "cp"] {
            assert!(nn.contains(&shared), "nn does not list {shared}");
        }
        let listed = crate::registry::describe_players(Some("dots_and_boxes")).unwrap();
        let nn_section = listed.split("\n  nn").nth(1).unwrap();
        let nn_section = nn_section.split("\n  qdab").next().unwrap();
        assert!(nn_section.contains("iterations=100000"), "{nn_section}");
    }

    /// Why the player `text` cannot be built on 5x5 (it must fail).
    fn build_error(text: &str) -> String {
        let board = DotsAndBoxes::new(5, 5).unwrap();
        parse_spec(text).unwrap().build(&board).err().unwrap()
    }

    fn parse_spec(text: &str) -> Result<DotsSpec, String> {
        parse_dots(text).map(|s| s.expect("a Dots-and-Boxes spec"))
    }

    #[test]
    fn proofs_are_read_and_refused_by_name() {
        match parse_spec("mcts:solver_edges=34,prove_edges=40,prove_nodes=5000").unwrap() {
            DotsSpec::Mcts { endgame, .. } => {
                assert_eq!((endgame.edges, endgame.prove_edges), (34, 40));
                assert_eq!(endgame.prove_nodes, 5000);
            }
            other => panic!("{other:?}"),
        }
        // The rival has no proofs; plain MCTS may have proofs without the solver.
        let err = parse_spec("rival:prove_edges=40").unwrap_err();
        assert!(err.contains("prove_edges"), "{err}");
        // The solver's table: 2^20 entries unless a size is named.
        let table = |text: &str| match parse_spec(text).unwrap() {
            DotsSpec::Nn { endgame, .. } | DotsSpec::Mcts { endgame, .. } => endgame.table_bits,
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
        match parse_spec("mcts:prove_edges=40").unwrap() {
            DotsSpec::Mcts { endgame, .. } => assert!(endgame.is_on() && endgame.edges == 0),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn specs_are_read_with_defaults_and_errors_named() {
        match parse_spec("mcts").unwrap() {
            DotsSpec::Mcts { config, .. } => {
                assert_eq!(config.budget, Budget::iterations(100_000));
                assert_eq!(config.counter, CounterMode::Double);
            }
            other => panic!("{other:?}"),
        }
        match parse_spec("mcts:time_ms=50,counter=single,threads=2").unwrap() {
            DotsSpec::Mcts { config, .. } => {
                assert_eq!(config.budget, Budget::time(Duration::from_millis(50)));
                assert_eq!(config.counter, CounterMode::Single);
                assert_eq!(config.threads, 2);
            }
            other => panic!("{other:?}"),
        }
        match parse_spec("nn:threshold=0.8,iterations=5000").unwrap() {
            DotsSpec::Nn {
                model,
                guide,
                config,
                ..
            } => {
                assert_eq!(model, NetChoice::Product);
                assert_eq!(guide.threshold, 0.8);
                assert_eq!(guide.prior, PRODUCT_PRIOR);
                assert_eq!(config.cp, PRODUCT_CP);
            }
            other => panic!("{other:?}"),
        }
        // The product's threshold with chain rollouts, the paper's with random ones.
        for (spec, want) in [
            ("nn", PRODUCT_THRESHOLD),
            ("nn:model=a.safetensors", PRODUCT_THRESHOLD),
            ("nn:rollout=random", NetGuide::DEFAULT_THRESHOLD),
        ] {
            match parse_spec(spec).unwrap() {
                DotsSpec::Nn { guide, .. } => assert_eq!(guide.threshold, want, "{spec}"),
                other => panic!("{other:?}"),
            }
        }
        // The net's first move: net_from_move, as the protocol option and --net-from-move say;
        // from_move is its old spelling.
        for text in ["nn:net_from_move=61", "nn:from_move=61"] {
            match parse_spec(text).unwrap() {
                DotsSpec::Nn { guide, .. } => assert_eq!(guide.from_move, 61, "{text}"),
                other => panic!("{other:?}"),
            }
        }
        // The product's constant unless one is given; the paper's engine keeps the paper's.
        for (spec, want_cp) in [
            ("nn:cp=1", 1.0),
            ("nn:model=a.safetensors", PRODUCT_CP),
            ("nn:rollout=random", Ucb::DEFAULT_CP),
            ("mcts:rollout=sacrifices", Ucb::DEFAULT_CP),
        ] {
            match parse_spec(spec).unwrap() {
                DotsSpec::Nn { config, .. } | DotsSpec::Mcts { config, .. } => {
                    assert_eq!(config.cp, want_cp, "{spec}")
                }
                other => panic!("{other:?}"),
            }
        }
        // The paper's rollouts keep the paper's net; a named model is asked as the product's
        // net is (a prior of PRODUCT_PRIOR) unless a prior is given.
        for (spec, want_model, want_prior) in [
            (
                "nn:rollout=random",
                NetChoice::File(PAPER_MODEL.into()),
                0.0,
            ),
            (
                "nn:model=a.safetensors",
                NetChoice::File("a.safetensors".into()),
                PRODUCT_PRIOR,
            ),
            (
                "nn:model=a.safetensors,prior=0",
                NetChoice::File("a.safetensors".into()),
                0.0,
            ),
            (
                "nn:model=a.safetensors,rollout=random",
                NetChoice::File("a.safetensors".into()),
                0.0,
            ),
            ("nn:model=none", NetChoice::Off, PRODUCT_PRIOR),
            ("nn:model=product", NetChoice::Product, PRODUCT_PRIOR),
            ("nn:prior=0", NetChoice::Product, 0.0),
            ("nn:prior=2,rollout=chains", NetChoice::Product, 2.0),
        ] {
            match parse_spec(spec).unwrap() {
                DotsSpec::Nn { model, guide, .. } => {
                    assert_eq!(model, want_model, "{spec}");
                    assert_eq!(guide.prior, want_prior, "{spec}");
                }
                other => panic!("{other:?}"),
            }
        }
        // Who has the exact endgame by default: the rival (QDab's solver late) and the
        // product's engine; plain MCTS is the paper's, with none.
        let edges = |text: &str| match parse_spec(text).unwrap() {
            DotsSpec::Mcts { endgame, .. } | DotsSpec::Nn { endgame, .. } => endgame.edges,
            DotsSpec::Rival { config, .. } => config.endgame.edges,
            other => panic!("{other:?}"),
        };
        assert_eq!(edges("mcts"), 0);
        assert_eq!(edges("nn"), EndgameConfig::ENGINE.edges);
        assert_eq!(edges("rival"), EndgameConfig::RIVAL.edges);
        assert_eq!(edges("nn:solver_edges=0"), 0);
        assert_eq!(edges("mcts:solver_edges=34"), 34);
        let safe_first = |text: &str| match parse_spec(text).unwrap() {
            DotsSpec::Mcts { safe_first, .. } | DotsSpec::Nn { safe_first, .. } => safe_first,
            other => panic!("{other:?}"),
        };
        // The product's canonical tree searches the root's moves itself (docs/players.md).
        assert!(!safe_first("nn") && safe_first("nn:safe_first=1"));
        assert!(!safe_first("mcts") && safe_first("mcts:safe_first=1"));
        // `prior` needs chain rollouts: refused before the net is read.
        let e = build_error("nn:rollout=random,prior=1,model=no-such-file");
        assert!(e.contains("prior needs chain rollouts"), "{e}");
        // A retired key (issue 83) reads as any unknown one, with the keys the player takes.
        for key in ["net_until_move", "late", "mix", "ask", "policy", "reuse"] {
            for player in ["nn", "best"] {
                let e = parse_spec(&format!("{player}:{key}=1")).unwrap_err();
                assert!(
                    e.contains(&format!("unknown key '{key}' (it takes model, threshold,")),
                    "{e}"
                );
            }
        }
        for (bad, says) in [
            ("mcts:width=3", "unknown key 'width'"),
            ("mcts:model=a", "unknown key 'model'"),
            ("nn:threshold=3", "threshold"),
            ("nn:safe_first=yes", "0 or 1"),
            ("nn:prior=-1", "prior must be a non-negative number"),
            ("rival:safe_first=1", "unknown key 'safe_first'"),
            ("qdab:cp=1", "unknown key 'cp'"),
            ("qdab:time_ms=fast", "time_ms must be a number"),
            ("qdab:iterations=0", "iterations must be positive"),
            (
                "qdab:threads=1000",
                "threads is 0 (one a core) to 256, not 1000",
            ),
            ("qdab:leaf_nodes=-3", "leaf_nodes must not be negative"),
        ] {
            let e = parse_spec(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains(says), "{bad}: {e}");
        }
    }

    /// `best` is `nn`, and the protocol's default options play the same engine; `paper` is the
    /// paper's plain MCTS, and with `net=1` its net-guided engine without any knowledge.
    #[test]
    fn best_is_the_protocols_engine_and_paper_the_papers() {
        let Ok(DotsSpec::Nn {
            model,
            guide,
            endgame,
            safe_first,
            game_keys,
            config,
            ..
        }) = parse_spec("best")
        else {
            panic!("best is nn");
        };
        let protocol = super::super::options::DotsOptions::default();
        assert_eq!(model, NetChoice::Product);
        assert!(matches!(
            protocol.model,
            super::super::options::ModelChoice::Product
        ));
        assert_eq!(guide, protocol.guide);
        assert_eq!(endgame, protocol.endgame());
        assert_eq!(safe_first, protocol.safe_first);
        let search = DotsSearch::from_keys("best", &game_keys, DotsSearch::PRODUCT).unwrap();
        assert_eq!(search, protocol.search);
        // The protocol's generic constant becomes the product's with chain rollouts, as nn's.
        assert_eq!(config.cp, PRODUCT_CP);
        match parse_spec("best:time_ms=300").unwrap() {
            DotsSpec::Nn { config, .. } => assert_eq!(config.budget.time.unwrap().as_millis(), 300),
            other => panic!("{other:?}"),
        }
        match parse_spec("paper").unwrap() {
            DotsSpec::Mcts {
                endgame,
                safe_first,
                game_keys,
                config,
                ..
            } => {
                assert!(!endgame.is_on() && !safe_first && game_keys.is_empty());
                assert_eq!(config.cp, Ucb::DEFAULT_CP);
            }
            other => panic!("{other:?}"),
        }
        match parse_spec("paper:net=1,iterations=500").unwrap() {
            DotsSpec::Nn {
                model,
                guide,
                endgame,
                game_keys,
                config,
                ..
            } => {
                assert_eq!(model, NetChoice::File(PAPER_MODEL.into()));
                assert_eq!((guide.prior, guide.threshold), (0.0, 0.9));
                assert!(!endgame.is_on(), "{endgame:?}");
                let search = DotsSearch::from_keys("p", &game_keys, DotsSearch::PRODUCT).unwrap();
                assert_eq!(search, DotsSearch::PAPER);
                assert_eq!(config.cp, Ucb::DEFAULT_CP);
                assert_eq!(config.budget.iterations, Some(500));
            }
            other => panic!("{other:?}"),
        }
        assert!(parse_spec("paper:net=2")
            .unwrap_err()
            .contains("net is 0 or 1"));
        // The product's nets are per board size: on a size without one `best` is its search
        // without a net, as `model=none` is on every size.
        for (rows, cols) in [(3, 3), (4, 5), (6, 6), (7, 7), (5, 5)] {
            let board = DotsAndBoxes::new(rows, cols).unwrap();
            for spec in ["best:iterations=100", "best:iterations=100,model=none"] {
                let built = parse_spec(spec).unwrap().build(&board);
                assert!(built.is_ok(), "{rows}x{cols} {spec}: {:?}", built.err());
            }
        }
        // A net of one board is refused on another, naming both sizes.
        let board = DotsAndBoxes::new(7, 7).unwrap();
        let e = parse_spec(&format!("best:model={PAPER_MODEL}"))
            .unwrap()
            .build(&board)
            .err()
            .unwrap();
        assert!(e.contains("5x5") && e.contains("7x7"), "{e}");
    }
}
