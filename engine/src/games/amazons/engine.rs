//! Amazons in the registry: parameters, the protocol position, the engine's search (MG with
//! shallow rollouts), the players a spec names, and the benchmark.

use std::path::Path;
use std::time::{Duration, Instant};

use super::eval::{EvalWeights, Evaluator};
use super::players::{AlphaBeta, AmazonsMcts, AmazonsMctsConfig, Greedy};
use super::rollout::{Backup, EvalRollout};
use super::tuning::AmazonsWeights;
use super::{Amazons, TurnShape};
use crate::agents::spec::{switch, unknown_search_key, ALPHABETA_KEYS};
use crate::agents::spec::{AlphaBetaKeys, GreedyKeys};
use crate::agents::{Agent, AgentSpec};
use crate::game::{Game, Player};
use crate::game_spec::{file_key, key, KeyDecl, ParamDecl, ParamKind, PlayerDecl};
use crate::games::{RegisteredGame, Searched, WeightsChoice};
use crate::mcts::bench::{BenchOptions, BenchOutput, Figure};
use crate::mcts::{Budget, Search, SearchConfig};
use crate::rng::Rng;
use crate::tuning::Tunable;

const SHAPES: [&str; 2] = ["split", "whole"];

impl RegisteredGame for Amazons {
    const NAME: &'static str = "amazons";
    const ABOUT: &'static str =
        "The Game of the Amazons (queen move, then arrow; who cannot move loses).";
    const PARAMS: &'static [ParamDecl] = &[
        ParamDecl {
            name: "size",
            kind: ParamKind::OneOf(&super::SIZES),
            default: 10,
            help: "10 the standard game, 8 Botzone's, 6 OpenSpiel's",
        },
        ParamDecl {
            name: "turn",
            kind: ParamKind::Choice(&SHAPES),
            default: 0,
            help: "split: queen move and arrow are two plies (Move Groups); whole: one action",
        },
    ];

    fn from_params(values: &[i64]) -> Result<Amazons, String> {
        let shape = if values[1] == 0 {
            TurnShape::Split
        } else {
            TurnShape::Whole
        };
        Amazons::new(values[0] as usize, shape)
    }

    fn param_values(&self) -> Vec<i64> {
        vec![
            self.size() as i64,
            i64::from(self.shape() == TurnShape::Whole),
        ]
    }

    const PLAYERS: &'static [PlayerDecl] = &[
        PlayerDecl {
            kind: "best",
            about: "the strongest measured: mcts with its defaults (34-6 against alphabeta, 78-22 against the paper's whole-turn MCTS at 1 s)",
            alias_of: Some("mcts"),
            runs_program: false,
            keys: &[],
        },
        PlayerDecl {
            kind: "paper",
            about: "the paper's MCTS + MG-PEO: Move Groups, Parallel Evaluation, random expansion, shallow rollouts, the paper's evaluation",
            alias_of: Some("mcts:turn=split,pe=1,expand=random,backup=sign,cp=1.414,eval=paper"),
            runs_program: false,
            keys: &[],
        },
        PlayerDecl {
            kind: "alphabeta",
            about: "the rival: iterative-deepening alpha-beta over whole turns with the paper's evaluation",
            alias_of: None,
            runs_program: false,
            keys: &ALPHABETA_KEYS,
        },
        PlayerDecl {
            kind: "greedy",
            about: "the best evaluation after one turn: fast, tune's fitness player",
            alias_of: None,
            runs_program: false,
            keys: &[
                key("seed", "1", "the seed of its ties"),
                file_key("weights", "", "a weights file of the evaluation, as tune writes it", &[]),
            ],
        },
    ];

    const MCTS_KEYS: &'static [KeyDecl] = &[
        key("turn", "split", "split: Move Groups (the queen move and the arrow as two plies); whole: one node a turn"),
        key("depth", "2", "random whole turns before the evaluation"),
        key("backup", "expected", "what a leaf backs up: sign (the paper's), sample or expected (the evaluation's win probability)"),
        key("scale", "2", "the evaluation's scale in sample and expected"),
        key("expand", "eval", "eval: every child evaluated at expansion; random: the paper's random order"),
        key("reuse", "1", "1: the tree is kept from move to move"),
        key("eval", "corrected", "the evaluation: corrected or paper"),
        key("tempo", "", "the tempo weight, one or one a phase (a,b,c)"),
        key("arrow", "", "the pending arrow's weight, one or one a phase"),
        file_key("weights", "", "a weights file of the evaluation, as tune writes it", &[]),
        key("pe", "0", "1: Parallel Evaluation (the paper's PEO)"),
    ];

    type Rollout = EvalRollout;

    /// `BOARD TO_MOVE [FROM-TO]`: the board (rows from rank n down, `W` P1, `B` P2, `x` an
    /// arrow, `.` empty, rows split by `/`), the player to move, and in a split game the queen
    /// move whose arrow is due.
    fn parse_position(&self, args: &[&str]) -> Result<Amazons, String> {
        let usage = "set_position BOARD TO_MOVE [FROM-TO of the amazon whose arrow is due]";
        if !(2..=3).contains(&args.len()) {
            return Err(format!("expected {usage}, got {} arguments", args.len()));
        }
        let to_move = Player::parse(args[1])
            .ok_or_else(|| format!("the player to move is 1 or 2, got '{}'", args[1]))?;
        let pending = match args.get(2) {
            Some(text) => {
                let (from, to) = text.split_once('-').ok_or_else(|| {
                    format!("the queen move whose arrow is due is FROM-TO, got '{text}'")
                })?;
                Some((to, from))
            }
            None => None,
        };
        Amazons::from_board(self.size(), self.shape(), args[0], to_move, pending)
    }

    fn position_text(&self) -> String {
        let mut text = format!("{} {}", self.board_string(), self.to_move().number());
        if let Some((to, from)) = self.pending() {
            text.push_str(&format!(
                " {}-{}",
                self.square_name(from),
                self.square_name(to)
            ));
        }
        text
    }

    type Memory = ();

    // The protocol's one option of its own: a `weights` file of the evaluation.
    crate::weights_option!();

    /// MG search with shallow rollouts; in a split game the answer is the whole turn (the queen
    /// move and the arrow the search preferred under it).
    fn engine_search(
        &self,
        weights: &WeightsChoice,
        config: SearchConfig,
        _: &mut (),
    ) -> Result<Searched, String> {
        let mut mcts = AmazonsMctsConfig::new(config);
        if let Some((_, file)) = weights {
            mcts.weights.take_tuned(&AmazonsWeights::from_file(file)?);
        }
        if self.mid_turn() {
            let cp = mcts.search.cp;
            let result = Search::new(
                mcts.search.clone(),
                crate::mcts::Ucb::new(cp),
                mcts.rollout(),
            )
            .run(self)
            .map_err(|e| e.to_string())?;
            return Ok(Searched::from_result(result));
        }
        let mut player = AmazonsMcts::new("engine", mcts);
        let (turn, result) = player.search_turn(self, 0)?;
        Ok(Searched {
            plies: self.turn_plies(turn),
            result: Some(result),
            note: None,
        })
    }

    fn build_kind(spec: &AgentSpec, start: &Amazons) -> Result<Box<dyn Agent<Amazons>>, String> {
        match spec {
            AgentSpec::Mcts {
                text,
                config,
                game_keys,
                ..
            } => {
                let mut mcts = AmazonsMctsConfig::new(config.clone());
                read_search_keys(text, game_keys, &mut mcts)?;
                Ok(Box::new(AmazonsMcts::new(text.clone(), mcts)))
            }
            AgentSpec::Game { kind, text, keys } if kind == "greedy" => {
                let GreedyKeys { seed, weights } = GreedyKeys::read(text, keys, true)?;
                Ok(Box::new(
                    Greedy::new(seed).with_weights(weights_or_paper(weights.as_deref())?),
                ))
            }
            AgentSpec::Game { kind, text, keys } if kind == "alphabeta" => {
                let AlphaBetaKeys {
                    time_ms,
                    max_depth,
                    seed,
                    weights,
                } = AlphaBetaKeys::read(text, keys)?;
                Ok(Box::new(
                    AlphaBeta::new(
                        text.clone(),
                        Duration::from_millis(time_ms),
                        max_depth,
                        seed,
                    )
                    .with_weights(weights_or_paper(weights.as_deref())?),
                ))
            }
            other => other.build::<Amazons>(start.spec(), Self::PLAYERS),
        }
    }

    /// Whole turns, bulk-counted at the leaves.
    fn perft(&self, depth: u32) -> u64 {
        if self.mid_turn() {
            return 0;
        }
        Amazons::perft(self, depth)
    }

    fn bench(start: &Amazons, options: &BenchOptions) -> Result<BenchOutput, String> {
        options.no_model(Self::NAME)?;
        Ok(BenchOutput::figures(bench_figures(start, options)))
    }

    fn weight_sets() -> Vec<Box<dyn Tunable>> {
        AmazonsWeights::SETS
            .iter()
            .map(|set| Box::new(AmazonsWeights::for_set(set).expect("a set")) as Box<dyn Tunable>)
            .collect()
    }
}

/// Reads the Amazons keys of an `mcts` spec: `turn=split|whole`, `depth=N` (random whole turns
/// before the evaluation), `backup=sign|sample|expected`, `scale=X` (of `sample` and
/// `expected`), `expand=eval|random`, `reuse=0|1` (tree reuse), `eval=paper|corrected` (the
/// evaluation's weights), `weights=FILE` (the phases' weights from a `tune` weights file), `tempo=X[/Y/Z]` and `arrow=X[/Y/Z]` (its two corrections, per
/// phase), `pe=0|1` (Parallel Evaluation).
pub(super) fn read_search_keys(
    text: &str,
    keys: &[(String, String)],
    config: &mut AmazonsMctsConfig,
) -> Result<(), String> {
    let err = |e: String| format!("player '{text}': {e}");
    let mut scale = None;
    let mut backup = None;
    for (key, value) in keys {
        match key.as_str() {
            "turn" => {
                config.shape = match value.as_str() {
                    "split" | "mg" => TurnShape::Split,
                    "whole" => TurnShape::Whole,
                    _ => return Err(err(format!("turn is split or whole, not '{value}'"))),
                }
            }
            "depth" => {
                config.depth = value
                    .parse()
                    .map_err(|_| err(format!("depth must be a whole number, got '{value}'")))?
            }
            "backup" => {
                // The scale is set below, from `scale` or the backup it replaces.
                backup = Some(match value.as_str() {
                    "sign" => Backup::Sign,
                    "sample" => Backup::Sample { scale: 1.0 },
                    "expected" => Backup::Expected { scale: 1.0 },
                    _ => {
                        return Err(err(format!(
                            "backup is sign, sample or expected, not '{value}'"
                        )))
                    }
                })
            }
            "scale" => {
                scale = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|s: &f32| s.is_finite() && *s > 0.0)
                        .ok_or_else(|| {
                            err(format!("scale must be a positive number, got '{value}'"))
                        })?,
                )
            }
            "expand" => {
                config.evaluate_children = match value.as_str() {
                    "eval" => true,
                    "random" => false,
                    _ => return Err(err(format!("expand is eval or random, not '{value}'"))),
                }
            }
            "reuse" => config.reuse_tree = switch(key, value).map_err(err)?,
            "eval" => {
                let base = match value.as_str() {
                    "paper" => EvalWeights::paper(),
                    "corrected" => EvalWeights::corrected(),
                    _ => return Err(err(format!("eval is paper or corrected, not '{value}'"))),
                };
                // Explicit `tempo` and `arrow` keys win, in whatever order they come.
                if !keys.iter().any(|(k, _)| k == "tempo") {
                    config.weights.tempo = base.tempo;
                }
                if !keys.iter().any(|(k, _)| k == "arrow") {
                    config.weights.pending_arrow = base.pending_arrow;
                }
            }
            "weights" => {
                let loaded = weights_or_paper(Some(Path::new(value))).map_err(err)?;
                config.weights.take_tuned(&loaded);
            }
            "tempo" => config.weights.tempo = per_phase(key, value).map_err(err)?,
            "arrow" => config.weights.pending_arrow = per_phase(key, value).map_err(err)?,
            "pe" => config.parallel_eval = switch(key, value).map_err(err)?,
            other => return Err(unknown_search_key(text, other, Amazons::MCTS_KEYS)),
        }
    }
    let scale = scale.unwrap_or(config.backup.scale());
    config.backup = backup.unwrap_or(config.backup).with_scale(scale);
    Ok(())
}

/// The paper's weights, or those of a weights file of either of `tune`'s Amazons sets.
fn weights_or_paper(file: Option<&Path>) -> Result<EvalWeights, String> {
    match file {
        None => Ok(EvalWeights::paper()),
        Some(path) => AmazonsWeights::load(path),
    }
}

/// A constant per phase: `X` (every phase) or `X/Y/Z` (opening, middle, ending).
fn per_phase(key: &str, value: &str) -> Result<[f32; 3], String> {
    let bad = || {
        format!("{key} is a number or three numbers a/b/c (opening/middle/ending), not '{value}'")
    };
    let numbers: Vec<f32> = value
        .split('/')
        .map(|x| x.parse().ok().filter(|x: &f32| x.is_finite()))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    match numbers[..] {
        [x] => Ok([x; 3]),
        [a, b, c] => Ok([a, b, c]),
        _ => Err(bad()),
    }
}

/// A middle-game position of the 10x10 game for the benchmark: 20 seeded random turns.
pub fn bench_middle_game(start: &Amazons) -> Amazons {
    let mut state = *start;
    let mut rng = Rng::new(20);
    for _ in 0..20 {
        state.play_random_turn(&mut rng);
    }
    state
}

/// `engine bench --game amazons`: evaluation cost, perft, random turns, and MCTS iterations a
/// second of MG and the whole-turn baseline, from the start and from a middle game.
fn bench_figures(start: &Amazons, options: &BenchOptions) -> Vec<Figure> {
    let mut figures = Vec::new();
    let middle = bench_middle_game(start);
    let evaluator = Evaluator::new(EvalWeights::paper());
    let mut parallel = EvalRollout::default().with_parallel(true);
    for (label, pos) in [("start", *start), ("middle game", middle)] {
        figures.push(Figure::new(
            format!("evaluation, {label}"),
            ns_per_call(|| evaluator.value(std::hint::black_box(&pos))),
            "ns",
        ));
        parallel.evaluate(&pos);
        figures.push(Figure::new(
            format!("evaluation, {label}, parallel (caller + helper thread)"),
            ns_per_call(|| parallel.evaluate(std::hint::black_box(&pos))),
            "ns",
        ));
    }
    // Perft 2 (whole turns, bulk-counted leaves).
    let t = Instant::now();
    let leaves = start.perft(2);
    let secs = t.elapsed().as_secs_f64();
    figures.push(Figure::new(
        format!("perft 2 from the start ({leaves} leaves)"),
        leaves as f64 / secs / 1e6,
        "M leaves/s",
    ));
    // Random whole turns to the end of the game.
    let mut rng = Rng::new(options.seed);
    let t = Instant::now();
    let games = 2_000;
    for _ in 0..games {
        let mut s = *start;
        s.random_rollout(&mut rng);
    }
    figures.push(Figure::new(
        "random games to the end, 1 thread",
        games as f64 / t.elapsed().as_secs_f64(),
        "games/s",
    ));
    // MCTS iterations a second.
    let iterations = options.iterations;
    for (label, pos) in [("start", *start), ("middle game", middle)] {
        for (shape_label, shape, parallel) in [
            ("MG (split)", TurnShape::Split, false),
            ("whole-turn", TurnShape::Whole, false),
            (
                "MG-PEO (split, parallel evaluation)",
                TurnShape::Split,
                true,
            ),
        ] {
            let paper = AmazonsMctsConfig {
                parallel_eval: parallel,
                ..AmazonsMctsConfig::paper(SearchConfig::default())
            };
            let mut thread_counts = vec![1];
            // A PE search thread has a helper thread of its own: one is already two cores' worth.
            if options.threads > 1 && !parallel {
                thread_counts.push(options.threads);
            }
            for threads in thread_counts {
                let pos = pos.with_shape(shape);
                let rate = mcts_rate(&pos, iterations, threads, &paper, options);
                figures.push(Figure::new(
                    format!(
                        "MCTS {shape_label}, {label}, {threads} thread{}",
                        if threads == 1 { "" } else { "s" }
                    ),
                    rate,
                    "iterations/s",
                ));
            }
        }
        // The product's search: each iteration evaluates every child of the node it expands.
        let product = AmazonsMctsConfig::new(SearchConfig::default());
        let rate = mcts_rate(&pos, iterations / 20, 1, &product, options);
        figures.push(Figure::new(
            format!("MCTS MG, evaluated expansion (the default mcts), {label}, 1 thread"),
            rate,
            "iterations/s",
        ));
    }
    figures
}

/// Nanoseconds a call of `f`, over 20,000 calls.
fn ns_per_call(mut f: impl FnMut() -> f32) -> f64 {
    let n = 20_000;
    let t = Instant::now();
    let mut sink = 0.0f32;
    for _ in 0..n {
        sink += std::hint::black_box(f());
    }
    std::hint::black_box(sink);
    t.elapsed().as_nanos() as f64 / n as f64
}

/// Iterations a second of the MCTS `mcts` describes (its budget and threads aside) from `pos`:
/// `repeats` searches of `iterations` a thread.
fn mcts_rate(
    pos: &Amazons,
    iterations: u64,
    threads: usize,
    mcts: &AmazonsMctsConfig,
    options: &BenchOptions,
) -> f64 {
    let config = SearchConfig {
        budget: Budget::iterations(iterations.max(1) * threads as u64),
        threads,
        seed: options.seed,
        ..mcts.search.clone()
    };
    let cp = config.cp;
    let mut search = Search::new(config, crate::mcts::Ucb::new(cp), mcts.rollout());
    let (mut total, mut secs) = (0u64, 0.0f64);
    for _ in 0..options.repeats.max(1) {
        let r = search.run(pos).expect("the position is not over");
        total += r.iterations;
        secs += r.elapsed.as_secs_f64();
    }
    total as f64 / secs.max(1e-9)
}
