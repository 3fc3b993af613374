//! The search benchmark behind `engine bench`: MCTS iterations per second on 5x5 Dots and Boxes
//! from the empty board and from a fixed position with 40 of 60 edges drawn, on one thread and
//! on several.

use std::time::Instant;

use serde::Serialize;

use crate::game::{Action, Game};
use crate::games::DotsAndBoxes;
use crate::mcts::{Budget, Search, SearchConfig, BYTES_PER_NODE};
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
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            iterations: 100_000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            repeats: 10,
            seed: 1,
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
    pub iterations_per_measurement: u64,
    pub repeats: usize,
}

/// Iterations/s over `repeats` searches of `iterations` per thread (a fresh tree each time,
/// as a game's moves have): total iterations over total wall time.
fn measure(state: &DotsAndBoxes, threads: usize, opts: &BenchOptions) -> f64 {
    let config = SearchConfig {
        budget: Budget::iterations(opts.iterations * threads as u64),
        threads,
        seed: opts.seed,
        ..SearchConfig::default()
    };
    let mut search = Search::plain(config);
    let start = Instant::now();
    let mut iterations = 0;
    for _ in 0..opts.repeats.max(1) {
        iterations += search
            .run(state)
            .expect("bench positions are not over")
            .iterations;
    }
    iterations as f64 / start.elapsed().as_secs_f64()
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
    progress("tree_bytes_100k");
    let tree_bytes_100k = Search::plain(SearchConfig {
        budget: Budget::iterations(100_000),
        seed: opts.seed,
        ..SearchConfig::default()
    })
    .run(&empty)
    .expect("the empty board is not over")
    .tree_bytes();
    BenchReport {
        empty_1t,
        edges40_1t,
        empty_nt,
        edges40_nt,
        threads,
        bytes_per_node: BYTES_PER_NODE,
        tree_bytes_100k,
        rollouts_empty_1t,
        iterations_per_measurement: opts.iterations,
        repeats: opts.repeats,
    }
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
        };
        let mut seen = Vec::new();
        let report = run(&opts, |name| seen.push(name.to_string()));
        assert_eq!(seen.len(), 6);
        let json = serde_json::to_value(&report).unwrap();
        for key in [
            "empty_1t",
            "edges40_1t",
            "empty_nt",
            "edges40_nt",
            "rollouts_empty_1t",
        ] {
            assert!(json[key].as_f64().unwrap() > 0.0, "{key}");
        }
        assert_eq!(json["threads"], 2);
        assert_eq!(json["bytes_per_node"], 28);
        assert!(json["tree_bytes_100k"].as_u64().unwrap() > 100_000);
    }
}
