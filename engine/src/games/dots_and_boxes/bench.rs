//! The Dots-and-Boxes benchmark behind `engine bench`: MCTS iterations per second on 5x5 from
//! the empty board and from a fixed position with 40 of 60 edges drawn, on one thread and on
//! several; the product's search; and with a model, the value net's cost.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use super::net::{load_dab_net, net_input, DabNet, NetGuide, NetRollout};
use super::{ChainRollout, DotsAndBoxes};
use crate::game::{Action, Game, Player};
use crate::mcts::bench::{BenchOptions, BenchOutput, Figure};
use crate::mcts::{
    Budget, RandomRollout, RolloutPolicy, RolloutStats, Search, SearchConfig, Ucb, BYTES_PER_NODE,
};
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

impl BenchReport {
    /// The report as `engine bench` prints it.
    pub fn text(&self, opts: &BenchOptions) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let m = |x: f64| format!("{:.2}M", x / 1e6);
        let _ = writeln!(
            out,
            "5x5 Dots and Boxes, plain MCTS, iterations/s over {} searches of {} iterations a thread:",
            opts.repeats, opts.iterations
        );
        let _ = writeln!(out, "  empty board,   1 thread : {}", m(self.empty_1t));
        let _ = writeln!(out, "  40-edge state, 1 thread : {}", m(self.edges40_1t));
        let _ = writeln!(
            out,
            "  empty board,   {}: {}",
            crate::cli::count(self.threads as u64, "thread"),
            m(self.empty_nt)
        );
        let _ = writeln!(
            out,
            "  40-edge state, {}: {}",
            crate::cli::count(self.threads as u64, "thread"),
            m(self.edges40_nt)
        );
        let _ = writeln!(
            out,
            "  bare random playouts from the empty board, 1 thread: {}/s",
            m(self.rollouts_empty_1t)
        );
        let _ = writeln!(
            out,
            "  the product's search (chain rollouts with sacrifices, canonical tree), empty board, 1 thread: {:.0}",
            self.chains_empty_1t
        );
        let _ = writeln!(
            out,
            "  bare chain rollouts from the empty board, 1 thread: {:.0}/s",
            self.chain_rollouts_empty_1t
        );
        let _ = writeln!(
            out,
            "  tree: {} bytes a node; a 100,000-iteration search from the empty board uses {:.1} MB",
            self.bytes_per_node,
            self.tree_bytes_100k as f64 / 1e6
        );
        if let (Some(full), Some(inc), Some(reference), Some(rate), Some(r)) = (
            self.nn_eval_full_ns,
            self.nn_eval_incremental_ns,
            self.nn_eval_reference_ns,
            self.nn_edges40_1t,
            self.nn_edges40_rollouts,
        ) {
            let _ = writeln!(
                out,
                "value net {} (threshold {}, from move {}):",
                opts.model
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string()),
                opts.threshold,
                opts.net_from_move
            );
            let _ = writeln!(
                out,
                "  full evaluation        : {full:.0} ns (reference forward pass {reference:.0} ns)"
            );
            let _ = writeln!(out, "  incremental evaluation : {inc:.0} ns a rollout step");
            let _ = writeln!(
                out,
                "  40-edge state, 1 thread, net-guided: {} ({:.0} ms for 50,000 iterations); {:.2} net calls a rollout, {:.1}% of rollouts ended by the net",
                m(rate),
                50_000.0 / rate * 1000.0,
                r.net_evaluations as f64 / r.rollouts.max(1) as f64,
                100.0 * r.net_cutoffs as f64 / r.rollouts.max(1) as f64
            );
        }
        out
    }

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

/// Moves of seeded random games of a `rows` x `cols` board: (edge, player, boxes closed), a
/// game's first move first.
pub(super) fn random_game_moves(
    rows: usize,
    cols: usize,
    games: usize,
    seed: u64,
) -> Vec<Vec<(usize, Player, [bool; 2])>> {
    let mut rng = Rng::new(seed);
    let mut actions = Vec::new();
    (0..games)
        .map(|_| {
            let mut state = DotsAndBoxes::new(rows, cols).expect("a valid board size");
            let mut moves = Vec::new();
            while !state.is_terminal() {
                state.legal_actions(&mut actions);
                let a = rng.pick(&actions);
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
/// On seeded random games of a `rows` x `cols` board.
pub(super) fn measure_net(net: &DabNet, rows: usize, cols: usize, seed: u64) -> (f64, f64, f64) {
    let reference = net.value_net();
    let games = random_game_moves(rows, cols, 200, seed);
    let mut inputs = Vec::new();
    for moves in games.iter().take(20) {
        let mut state = DotsAndBoxes::new(rows, cols).expect("a valid board size");
        for &(edge, _, _) in moves {
            state.apply(edge as Action);
            inputs.push(net_input(reference, &state));
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
    let empty = DotsAndBoxes::new(rows, cols).expect("a valid board size");
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

/// `rollout`'s play-outs a second from `state`, without a tree.
pub(super) fn measure_chain_rollouts(
    state: &DotsAndBoxes,
    opts: &BenchOptions,
    mut rollout: ChainRollout,
) -> f64 {
    let mut rng = Rng::new(opts.seed);
    let count = opts.iterations * opts.repeats.max(1) as u64;
    let start = Instant::now();
    let mut margins = 0i64;
    for _ in 0..count {
        margins += rollout.final_margin(state, &mut rng) as i64;
    }
    std::hint::black_box(margins);
    count as f64 / start.elapsed().as_secs_f64()
}

/// A value net laid out for the benchmark's board and how it guides rollouts.
pub type BenchNet = (Arc<DabNet>, NetGuide);

/// The net `opts` names (`--model`), checked before any search; none without one.
pub fn bench_net(opts: &BenchOptions, board: &DotsAndBoxes) -> Result<Option<BenchNet>, String> {
    let Some(path) = &opts.model else {
        return Ok(None);
    };
    let guide = NetGuide {
        threshold: opts.threshold,
        from_move: opts.net_from_move,
        ..NetGuide::default()
    };
    guide.check().map_err(|e| format!("--threshold: {e}"))?;
    let net = load_dab_net(path, board).map_err(|e| e.to_string())?;
    Ok(Some((Arc::new(net), guide)))
}

/// The benchmark as `engine bench` prints it: the report, its figures and its text.
pub fn output(opts: &BenchOptions) -> Result<BenchOutput, String> {
    let net = bench_net(opts, &DotsAndBoxes::new(5, 5).map_err(|e| e.to_string())?)?;
    let report = run(opts, net.as_ref(), |name| {
        if !opts.quiet {
            eprintln!("measuring {name} ...");
        }
    });
    let json = serde_json::to_value(&report).map_err(|e| e.to_string())?;
    let text = report.text(opts);
    Ok(BenchOutput {
        figures: report.figures(),
        report: Some((text, json)),
    })
}

/// Runs every measurement; `progress` is told the name of each before it starts.
pub fn run(
    opts: &BenchOptions,
    net: Option<&BenchNet>,
    mut progress: impl FnMut(&str),
) -> BenchReport {
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
        ..opts.clone()
    };
    progress("chains_empty_1t");
    let chains_empty_1t = measure_with(&empty, 1, &tenth, super::bench_board::product_chains()).0;
    progress("chain_rollouts_empty_1t");
    let chain_rollouts_empty_1t = measure_chain_rollouts(&empty, &tenth, ChainRollout::new());
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
    if let Some((net, guide)) = net {
        progress("nn_eval");
        let (full, incremental, reference) = measure_net(net, 5, 5, opts.seed);
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
            ..BenchOptions::default()
        };
        let mut seen = Vec::new();
        let report = run(&opts, None, |name| seen.push(name.to_string()));
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
        let opts = BenchOptions {
            iterations: 2_000,
            threads: 1,
            repeats: 1,
            model: Some(path),
            ..BenchOptions::default()
        };
        let net = bench_net(&opts, &edges40_position()).unwrap();
        let json = serde_json::to_value(run(&opts, net.as_ref(), |_| {})).unwrap();
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

    /// Every shipped model of Dots and Boxes is measured on its own board size, whatever its
    /// encoding (the product's nets read the player to move as one more input).
    #[test]
    fn every_shipped_model_can_be_benchmarked() {
        use crate::games::dots_and_boxes::net::load_value_net;
        use crate::games::RegisteredGame;
        let mut sizes = Vec::new();
        let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let mut measured = 0;
        for entry in std::fs::read_dir(&models).unwrap() {
            let dir = entry.unwrap().path();
            let path = dir.join("model.safetensors");
            // Other games' nets (Gomoku's pattern net) ship beside them.
            let dab = dir
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("dab-"));
            if !dab || !path.exists() {
                continue;
            }
            let opts = BenchOptions {
                iterations: 200,
                threads: 1,
                repeats: 1,
                model: Some(path.clone()),
                ..BenchOptions::default()
            };
            let board = DotsAndBoxes::from_spec(&load_value_net(&path).unwrap().meta.game).unwrap();
            let (rows, cols) = (board.rows(), board.cols());
            let net = bench_net(&opts, &board).unwrap();
            let net = net.as_ref().unwrap();
            let (full, incremental, reference) = measure_net(&net.0, rows, cols, 1);
            assert!(
                full > 0.0 && incremental > 0.0 && reference > 0.0,
                "{path:?}"
            );
            sizes.push((rows, cols));
            measured += 1;
        }
        assert!(measured >= 5, "{measured} models measured");
        for size in [(5, 5), (6, 6), (7, 7)] {
            assert!(sizes.contains(&size), "a shipped net of {size:?}");
        }
    }
}
