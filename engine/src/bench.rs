//! The search benchmark behind `engine bench`: MCTS iterations per second on 5x5 Dots and Boxes
//! from the empty board and from a fixed position with 40 of 60 edges drawn, on one thread and
//! on several.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::game::{Action, Game, Player};
use crate::games::dots_and_boxes::{ChainRollout, DotsSearch};
use crate::games::DotsAndBoxes;
use crate::mcts::{
    Budget, RandomRollout, RolloutPolicy, RolloutStats, Search, SearchConfig, TreePolicy, Ucb,
    BYTES_PER_NODE,
};
use crate::nn::{DabNet, NetGuide, NetRollout};
use crate::rng::Rng;

/// A 5x5 position with 40 of 60 edges drawn, 4 boxes each, P1 to move and no box capturable at
/// once, like the paper's State S. Found by seeded random play that takes captures and avoids
/// third sides (seed 40, 68th attempt); fixed here as its OpenSpiel move list.
pub const EDGES40_MOVES: [Action; 40] = [
    11, 35, 1, 51, 39, 30, 19, 16, 58, 57, 3, 24, 56, 15, 37, 14, 36, 50, 7, 31, 2, 26, 4, 42, 40,
    54, 20, 18, 45, 38, 6, 59, 29, 32, 12, 33, 53, 52, 23, 28,
];

/// The 40-edge benchmark position.
pub fn edges40_position() -> DotsAndBoxes {
    DotsAndBoxes::from_actions(5, 5, &EDGES40_MOVES).expect("the benchmark move list is legal")
}

#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Iterations of one search, per thread (default 100,000: the paper's search a move).
    pub iterations: u64,
    /// Threads for the `_nt` figures.
    pub threads: usize,
    /// Searches per figure; a figure is their total iterations over their total time.
    pub repeats: usize,
    pub seed: u64,
    /// A value net (laid out for 5x5) and how it guides rollouts: adds the `nn_*` figures.
    pub net: Option<(Arc<DabNet>, NetGuide)>,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            iterations: 100_000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            repeats: 10,
            seed: 1,
            net: None,
        }
    }
}

/// The figures `engine bench --json` prints. Iterations per second unless named otherwise.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub empty_1t: f64,
    pub edges40_1t: f64,
    pub empty_nt: f64,
    pub edges40_nt: f64,
    pub threads: usize,
    pub bytes_per_node: usize,
    /// Tree bytes of one 100,000-iteration search from the empty board, one thread.
    pub tree_bytes_100k: u64,
    /// Bare random playouts per second from the empty board (no tree): the ceiling for any
    /// one-rollout-per-iteration search.
    pub rollouts_empty_1t: f64,
    /// The product's search (chain rollouts, narrowed tree nodes: `nn`'s without its net),
    /// iterations/s from the empty board, one thread; measured over a tenth of the iterations
    /// (each of its rollouts does far more).
    pub chains_empty_1t: f64,
    /// Chain rollouts (random safe edges, then the endgame exactly) from the empty board, one
    /// thread, without a tree.
    pub chain_rollouts_empty_1t: f64,
    pub iterations_per_measurement: u64,
    pub repeats: usize,
    /// With a model: nanoseconds per full evaluation (the 85 x hidden product and the outputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nn_eval_full_ns: Option<f64>,
    /// With a model: nanoseconds per incremental step (one move's columns added, the outputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nn_eval_incremental_ns: Option<f64>,
    /// With a model: the reference forward pass (`ValueNet::forward`), nanoseconds per call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nn_eval_reference_ns: Option<f64>,
    /// With a model: net-guided MCTS iterations/s from the 40-edge position, one thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nn_edges40_1t: Option<f64>,
    /// With a model: what the rollouts of the `nn_edges40_1t` searches did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nn_edges40_rollouts: Option<RolloutStats>,
    /// With a model: the instruction set of the net's loops ("Avx2" or "Baseline").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nn_simd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nn_threshold: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nn_from_move: Option<u32>,
}

/// One figure of a game's benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
}

impl Figure {
    pub fn new(name: impl Into<String>, value: f64, unit: &'static str) -> Figure {
        Figure {
            name: name.into(),
            value,
            unit,
        }
    }
}

impl BenchReport {
    /// The report as figures (what `engine bench --game dots_and_boxes` prints).
    pub fn figures(&self) -> Vec<Figure> {
        let t = self.threads;
        let mut out = vec![
            Figure::new("MCTS, empty board, 1 thread", self.empty_1t, "iterations/s"),
            Figure::new(
                "MCTS, 40-edge state, 1 thread",
                self.edges40_1t,
                "iterations/s",
            ),
            Figure::new(
                format!("MCTS, empty board, {t} threads"),
                self.empty_nt,
                "iterations/s",
            ),
            Figure::new(
                format!("MCTS, 40-edge state, {t} threads"),
                self.edges40_nt,
                "iterations/s",
            ),
            Figure::new(
                "random playouts from the empty board, 1 thread",
                self.rollouts_empty_1t,
                "playouts/s",
            ),
            Figure::new(
                "product's search (chain rollouts), empty board, 1 thread",
                self.chains_empty_1t,
                "iterations/s",
            ),
            Figure::new(
                "chain rollouts from the empty board, 1 thread",
                self.chain_rollouts_empty_1t,
                "playouts/s",
            ),
        ];
        out.push(Figure::new(
            "tree bytes a node",
            self.bytes_per_node as f64,
            "bytes",
        ));
        out
    }
}

/// `engine bench` for any registered game: MCTS with the game's own rollout from the start
/// position on one thread and on `threads`, and bare random games to the end.
pub fn generic_figures<G: crate::games::RegisteredGame>(
    start: &G,
    opts: &BenchOptions,
) -> Vec<Figure> {
    let mut out = mcts_figures("MCTS from the start", start, opts, |config| {
        let cp = config.cp;
        Search::new(config, Ucb::new(cp), G::Rollout::default())
    });
    out.push(random_games_figure(
        "random games to the end, 1 thread",
        start,
        opts,
        1000,
    ));
    out
}

/// `games` random rollouts from `start` (the game's own `random_rollout`) on one thread, as
/// games a second.
pub fn random_games_figure<G: Game>(
    label: &str,
    start: &G,
    opts: &BenchOptions,
    games: u32,
) -> Figure {
    let mut rng = Rng::new(opts.seed);
    // A tenth as many first, untimed: the caches and the clock settle.
    for _ in 0..games / 10 {
        start.clone().random_rollout(&mut rng);
    }
    let begin = Instant::now();
    for _ in 0..games {
        start.clone().random_rollout(&mut rng);
    }
    Figure::new(
        label,
        f64::from(games) / begin.elapsed().as_secs_f64(),
        "games/s",
    )
}

/// `LABEL, N thread(s)` in iterations a second, on one thread and on
/// `opts.threads` when more: `repeats` searches of `iterations` a thread, each from a fresh
/// tree, made by `make` from the figure's config.
pub fn mcts_figures<G: Game, T: TreePolicy, R: RolloutPolicy<G>>(
    label: &str,
    start: &G,
    opts: &BenchOptions,
    make: impl Fn(SearchConfig) -> Search<G, T, R>,
) -> Vec<Figure> {
    let mut counts = vec![1];
    if opts.threads > 1 {
        counts.push(opts.threads);
    }
    counts
        .into_iter()
        .map(|threads| {
            let mut search = make(SearchConfig {
                budget: Budget::iterations(opts.iterations * threads as u64),
                threads,
                seed: opts.seed,
                ..SearchConfig::default()
            });
            let begin = Instant::now();
            let mut iterations = 0;
            for _ in 0..opts.repeats.max(1) {
                iterations += search.run(start).map_or(0, |r| r.iterations);
            }
            Figure::new(
                format!(
                    "{label}, {threads} thread{}",
                    if threads == 1 { "" } else { "s" }
                ),
                iterations as f64 / begin.elapsed().as_secs_f64(),
                "iterations/s",
            )
        })
        .collect()
}

/// Iterations/s over `repeats` searches of `iterations` per thread (a fresh tree each time,
/// as a game's moves have): total iterations over total wall time.
fn measure(state: &DotsAndBoxes, threads: usize, opts: &BenchOptions) -> f64 {
    measure_with(state, threads, opts, RandomRollout).0
}

/// [`measure`] with any rollout policy; also what the rollouts did.
fn measure_with<R: RolloutPolicy<DotsAndBoxes>>(
    state: &DotsAndBoxes,
    threads: usize,
    opts: &BenchOptions,
    rollout: R,
) -> (f64, RolloutStats) {
    let config = SearchConfig {
        budget: Budget::iterations(opts.iterations * threads as u64),
        threads,
        seed: opts.seed,
        ..SearchConfig::default()
    };
    let mut search = Search::new(config.clone(), Ucb::new(config.cp), rollout);
    let start = Instant::now();
    let mut iterations = 0;
    let mut stats = RolloutStats::default();
    for _ in 0..opts.repeats.max(1) {
        let result = search.run(state).expect("bench positions are not over");
        iterations += result.iterations;
        stats.add(result.rollouts);
    }
    (iterations as f64 / start.elapsed().as_secs_f64(), stats)
}

/// Moves of seeded random 5x5 games: (edge, player, boxes closed), a game's first move first.
fn random_game_moves(games: usize, seed: u64) -> Vec<Vec<(usize, Player, [bool; 2])>> {
    let mut rng = Rng::new(seed);
    let mut actions = Vec::new();
    (0..games)
        .map(|_| {
            let mut state = DotsAndBoxes::new(5, 5).expect("5x5 is a valid size");
            let mut moves = Vec::new();
            while !state.is_terminal() {
                state.legal_actions(&mut actions);
                let a = actions[rng.below(actions.len() as u32) as usize];
                let mover = state.to_move();
                let [b0, b1] = state.geometry().edge_box_masks[a as usize];
                let edges = state.edges() | 1u128 << a;
                state.apply(a);
                moves.push((a as usize, mover, [edges & b0 == b0, edges & b1 == b1]));
            }
            moves
        })
        .collect()
}

/// Nanoseconds per evaluation: full (input vector to outputs), incremental (one move's
/// columns added, then the outputs), and the reference forward pass.
fn measure_net(net: &DabNet, reference: &crate::nn::ValueNet, seed: u64) -> (f64, f64, f64) {
    let games = random_game_moves(200, seed);
    let mut inputs = Vec::new();
    for moves in games.iter().take(20) {
        let mut state = DotsAndBoxes::new(5, 5).expect("5x5 is a valid size");
        for &(edge, _, _) in moves {
            state.apply(edge as Action);
            let mut x = vec![0f32; state.feature_len()];
            state.encode_features(&mut x);
            inputs.push(x);
        }
    }
    let fast = net.fast_net();
    let mut acc = vec![0f32; net.width()];
    let mut sink = 0f32;
    let start = Instant::now();
    let rounds = 20;
    for _ in 0..rounds {
        for x in &inputs {
            fast.preactivations(x, &mut acc);
            sink += fast.logits(&acc)[0];
        }
    }
    let full_ns = start.elapsed().as_nanos() as f64 / (rounds * inputs.len()) as f64;
    let empty = DotsAndBoxes::new(5, 5).expect("5x5 is a valid size");
    let mut steps = 0usize;
    let start = Instant::now();
    for _ in 0..5 {
        for moves in &games {
            net.preactivations(&empty, &mut acc);
            for &(edge, mover, closed) in moves {
                net.add_move(&mut acc, edge, mover, closed);
                sink += net.logits(&acc)[0];
            }
            steps += moves.len();
        }
    }
    let incremental_ns = start.elapsed().as_nanos() as f64 / steps as f64;
    let start = Instant::now();
    for x in &inputs {
        sink += reference.forward(x)[0];
    }
    let reference_ns = start.elapsed().as_nanos() as f64 / inputs.len() as f64;
    std::hint::black_box(sink);
    (full_ns, incremental_ns, reference_ns)
}

fn measure_rollouts(state: &DotsAndBoxes, opts: &BenchOptions) -> f64 {
    let mut rng = Rng::new(opts.seed);
    let count = opts.iterations * opts.repeats.max(1) as u64;
    let start = Instant::now();
    let mut p1_wins = 0u64;
    for _ in 0..count {
        let mut s = *state;
        p1_wins += (s.random_rollout(&mut rng) == crate::game::Outcome::P1Win) as u64;
    }
    std::hint::black_box(p1_wins);
    count as f64 / start.elapsed().as_secs_f64()
}

/// Chain rollouts a second from `state`, without a tree.
fn measure_chain_rollouts(state: &DotsAndBoxes, opts: &BenchOptions) -> f64 {
    let mut rng = Rng::new(opts.seed);
    let mut rollout = ChainRollout::new();
    let count = opts.iterations * opts.repeats.max(1) as u64;
    let start = Instant::now();
    let mut margins = 0i64;
    for _ in 0..count {
        margins += rollout.final_margin(state, &mut rng) as i64;
    }
    std::hint::black_box(margins);
    count as f64 / start.elapsed().as_secs_f64()
}

/// Runs every measurement; `progress` is told the name of each before it starts.
pub fn run(opts: &BenchOptions, mut progress: impl FnMut(&str)) -> BenchReport {
    let empty = DotsAndBoxes::new(5, 5).expect("5x5 is a valid size");
    let edges40 = edges40_position();
    let threads = opts.threads.max(1);
    progress("empty_1t");
    let empty_1t = measure(&empty, 1, opts);
    progress("edges40_1t");
    let edges40_1t = measure(&edges40, 1, opts);
    progress("empty_nt");
    let empty_nt = measure(&empty, threads, opts);
    progress("edges40_nt");
    let edges40_nt = measure(&edges40, threads, opts);
    progress("rollouts_empty_1t");
    let rollouts_empty_1t = measure_rollouts(&empty, opts);
    let tenth = BenchOptions {
        iterations: (opts.iterations / 10).max(1),
        net: None,
        ..*opts
    };
    progress("chains_empty_1t");
    let product = DotsSearch::PRODUCT
        .chain_rollout()
        .expect("the product's search has chain rollouts");
    let chains_empty_1t = measure_with(&empty, 1, &tenth, product).0;
    progress("chain_rollouts_empty_1t");
    let chain_rollouts_empty_1t = measure_chain_rollouts(&empty, &tenth);
    progress("tree_bytes_100k");
    let tree_bytes_100k = Search::plain(SearchConfig {
        budget: Budget::iterations(100_000),
        seed: opts.seed,
        ..SearchConfig::default()
    })
    .run(&empty)
    .expect("the empty board is not over")
    .tree_bytes();
    let mut report = BenchReport {
        empty_1t,
        edges40_1t,
        empty_nt,
        edges40_nt,
        threads,
        bytes_per_node: BYTES_PER_NODE,
        tree_bytes_100k,
        rollouts_empty_1t,
        chains_empty_1t,
        chain_rollouts_empty_1t,
        iterations_per_measurement: opts.iterations,
        repeats: opts.repeats,
        nn_eval_full_ns: None,
        nn_eval_incremental_ns: None,
        nn_eval_reference_ns: None,
        nn_edges40_1t: None,
        nn_edges40_rollouts: None,
        nn_simd: None,
        nn_threshold: None,
        nn_from_move: None,
    };
    if let Some((net, guide)) = &opts.net {
        progress("nn_eval");
        let (full, incremental, reference) = measure_net(net, net.value_net(), opts.seed);
        report.nn_eval_full_ns = Some(full);
        report.nn_eval_incremental_ns = Some(incremental);
        report.nn_eval_reference_ns = Some(reference);
        progress("nn_edges40_1t");
        let rollout = NetRollout::new(net.clone(), *guide).expect("the guide was checked");
        let (rate, stats) = measure_with(&edges40, 1, opts, rollout);
        report.nn_edges40_1t = Some(rate);
        report.nn_edges40_rollouts = Some(stats);
        report.nn_simd = Some(format!("{:?}", net.fast_net().simd()));
        report.nn_threshold = Some(guide.threshold);
        report.nn_from_move = Some(guide.from_move);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;

    #[test]
    fn the_40_edge_position_is_like_state_s() {
        let s = edges40_position();
        assert_eq!(s.edges_drawn(), 40);
        assert_eq!(s.scores(), Some([4, 4]));
        assert_eq!(s.to_move(), Player::P1);
        let mut moves = Vec::new();
        s.legal_actions(&mut moves);
        assert!(moves.iter().all(|&a| s.boxes_closed_by(a) == 0));
    }

    #[test]
    fn a_tiny_bench_reports_every_figure() {
        let opts = BenchOptions {
            iterations: 2_000,
            threads: 2,
            repeats: 1,
            seed: 1,
            net: None,
        };
        let mut seen = Vec::new();
        let report = run(&opts, |name| seen.push(name.to_string()));
        assert_eq!(seen.len(), 8);
        let json = serde_json::to_value(&report).unwrap();
        for key in [
            "empty_1t",
            "edges40_1t",
            "empty_nt",
            "edges40_nt",
            "rollouts_empty_1t",
            "chains_empty_1t",
            "chain_rollouts_empty_1t",
        ] {
            assert!(json[key].as_f64().unwrap() > 0.0, "{key}");
        }
        assert_eq!(json["threads"], 2);
        assert_eq!(json["bytes_per_node"], 28);
        assert!(json["tree_bytes_100k"].as_u64().unwrap() > 100_000);
        assert!(json.get("nn_edges40_1t").is_none());
    }

    #[test]
    fn a_bench_with_a_net_reports_the_net_figures() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models/dab-5x5/model.safetensors");
        let five = DotsAndBoxes::new(5, 5).unwrap();
        let net = Arc::new(crate::nn::load_dab_net(&path, &five).unwrap());
        let opts = BenchOptions {
            iterations: 2_000,
            threads: 1,
            repeats: 1,
            seed: 1,
            net: Some((net, NetGuide::default())),
        };
        let json = serde_json::to_value(run(&opts, |_| {})).unwrap();
        for key in [
            "nn_eval_full_ns",
            "nn_eval_incremental_ns",
            "nn_eval_reference_ns",
            "nn_edges40_1t",
        ] {
            assert!(json[key].as_f64().unwrap() > 0.0, "{key}");
        }
        let rollouts = &json["nn_edges40_rollouts"];
        // From the 40-edge position every iteration is a rollout and the net is asked at least
        // once in each (the 0.9 threshold may or may not end any).
        assert!(rollouts["rollouts"].as_u64().unwrap() > 1_000);
        assert!(rollouts["net_evaluations"].as_u64() >= rollouts["rollouts"].as_u64());
        assert_eq!(json["nn_threshold"], 0.9);
    }
}
