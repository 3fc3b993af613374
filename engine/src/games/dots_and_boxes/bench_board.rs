//! `engine bench --rows R --cols C`: the product's search on any board, as figures. Plain MCTS
//! from the empty board; the product's search (chain rollouts with sacrifices, the canonical
//! tree) from the empty board and from a State-S-like position (safe play's last few safe
//! edges), on one thread and on several; bare chain rollouts; the exact solver's reach (how
//! many positions a second it solves at N free edges, and what share within the engine's
//! node limit); and with `--model`, the net's cost and the net-guided search's speed beside
//! the same search without it.

use std::sync::Arc;
use std::time::Instant;

use super::endgame::EndgameSolver;
use super::net::{DabNet, NetGuide, NetRollout, PRODUCT_CP, PRODUCT_PRIOR};
use super::{DotsAndBoxes, DotsSearch, EndgameConfig};
use crate::mcts::bench::{generic_figures, mcts_figures, BenchOptions, Figure};
use crate::mcts::{RandomRollout, Search, Ucb};
use crate::rng::{derive_seed, Rng};

use super::analysis::{capture_edges, safe_edges};

/// The free-edge counts at which the solver's reach is measured (those below the board's edge
/// count): around the engine's 34 (`solver_edges`) and 40 (`prove_edges`).
const REACH_FREE_EDGES: [usize; 10] = [20, 24, 28, 32, 34, 36, 40, 44, 48, 52];
/// Positions solved for each free-edge count.
const REACH_POSITIONS: u64 = 6;

/// A position of a `rows` x `cols` board with `free` edges free and no box to take, from the
/// seeded play of `engine positions` (a capture when there is one, else an edge that hands
/// nothing over, else any edge): the first of the attempts seeded from `seed` that stops on a
/// turn with no box to take. `free` must be below the board's edge count.
pub fn position_with_free_edges(rows: usize, cols: usize, free: usize, seed: u64) -> DotsAndBoxes {
    let board = DotsAndBoxes::new(rows, cols).expect("a valid board size");
    let edges = board.num_edges();
    assert!(
        free < edges,
        "{rows}x{cols} has {edges} edges, not {free} free"
    );
    let drawn = (edges - free) as u32;
    (0..)
        .map(|k| {
            let mut rng = Rng::new(derive_seed(seed, k));
            super::positions::knowing_random_play(&board, drawn, &mut rng).0
        })
        .find(|s| s.edges_drawn() == drawn && capture_edges(s.geometry(), s.edges()) == 0)
        .expect("some attempt stops on a turn with no box to take")
}

/// The State-S-like position of the board's figures: of the positions
/// [`position_with_free_edges`] makes with seed 40, the one with the most free edges and at most
/// six safe edges left, the middle game's last choices before the chains are handed out.
pub fn middle_game(rows: usize, cols: usize) -> DotsAndBoxes {
    let edges = DotsAndBoxes::new(rows, cols)
        .expect("a valid board size")
        .num_edges();
    (1..edges)
        .rev()
        .map(|free| position_with_free_edges(rows, cols, free, 40))
        .find(|state| {
            let safe = safe_edges(state.geometry(), state.edges());
            safe.count_ones() <= 6
        })
        .expect("safe play runs out of safe edges")
}

/// The product's play-outs (chain rollouts with sacrifices).
pub(super) fn product_chains() -> super::ChainRollout {
    DotsSearch::PRODUCT
        .chain_rollout()
        .expect("the product's search has chain rollouts")
}

/// The figures of `engine bench --rows R --cols C` on `start`'s board, with `net` (and how it
/// guides) when `--model` named one.
pub fn board_figures(
    start: &DotsAndBoxes,
    opts: &BenchOptions,
    net: Option<&(Arc<DabNet>, NetGuide)>,
) -> Vec<Figure> {
    let (rows, cols) = (start.rows(), start.cols());
    let middle = middle_game(rows, cols);
    let drawn = middle.edges_drawn();
    let mut out = generic_figures::<_, RandomRollout>(start, opts);
    // Each of the product's iterations plays a whole chain rollout: a fiftieth as many.
    let product_opts = BenchOptions {
        iterations: (opts.iterations / 50).max(100),
        ..opts.clone()
    };
    let product = |config: crate::mcts::SearchConfig| {
        Search::new(config, Ucb::new(PRODUCT_CP), product_chains())
    };
    out.extend(mcts_figures(
        "product's search, empty board",
        start,
        &product_opts,
        product,
    ));
    out.extend(mcts_figures(
        &format!("product's search, {drawn}-edge state"),
        &middle,
        &product_opts,
        product,
    ));
    out.push(Figure::new(
        "chain rollouts from the empty board, 1 thread",
        super::bench::measure_chain_rollouts(start, &product_opts, product_chains()),
        "playouts/s",
    ));
    out.extend(solver_reach(start));
    if let Some((net, guide)) = net {
        let (full, incremental, _) = super::bench::measure_net(net, rows, cols, opts.seed);
        out.push(Figure::new(
            "value net, full evaluation",
            full,
            "ns/evaluation",
        ));
        out.push(Figure::new(
            "value net, incremental evaluation (one move added)",
            incremental,
            "ns/evaluation",
        ));
        let one_thread = BenchOptions {
            threads: 1,
            ..product_opts.clone()
        };
        for (name, state) in [
            ("empty board".to_string(), start),
            (format!("{drawn}-edge state"), &middle),
        ] {
            let guided = mcts_figures(
                &format!("net-guided product's search (prior {PRODUCT_PRIOR}), {name}"),
                state,
                &one_thread,
                |config| {
                    let guide = NetGuide {
                        prior: PRODUCT_PRIOR,
                        ..*guide
                    };
                    let rollout = NetRollout::new(net.clone(), guide)
                        .expect("the guide was checked")
                        .then_chains(product_chains());
                    Search::new(config, guide.tree_policy(PRODUCT_CP), rollout)
                },
            );
            out.extend(guided);
        }
    }
    out
}

/// The exact solver at each free-edge count of [`REACH_FREE_EDGES`] up to three quarters of the
/// board's edges: positions solved a second (each from an empty table, within the engine's node
/// limit) and the share solved within that limit.
fn solver_reach(start: &DotsAndBoxes) -> Vec<Figure> {
    let (rows, cols) = (start.rows(), start.cols());
    let limit = EndgameConfig::ENGINE.nodes;
    let mut solver = EndgameSolver::new(rows, cols, EndgameConfig::ENGINE.table_bits);
    let mut out = Vec::new();
    for free in REACH_FREE_EDGES {
        if free > start.num_edges() * 3 / 4 {
            continue;
        }
        let (mut solved, mut seconds) = (0u64, 0f64);
        for k in 0..REACH_POSITIONS {
            let state = position_with_free_edges(rows, cols, free, 1000 * free as u64 + k);
            solver.clear();
            let begin = Instant::now();
            let value = solver.try_edges_value(state.edges(), limit);
            seconds += begin.elapsed().as_secs_f64();
            solved += value.is_some() as u64;
        }
        out.push(Figure::new(
            format!("exact solver at {free} free edges, positions solved"),
            solved as f64 / seconds,
            "positions/s",
        ));
        out.push(Figure::new(
            format!(
                "exact solver at {free} free edges, solved within {}M nodes",
                limit / 1_000_000
            ),
            100.0 * solved as f64 / REACH_POSITIONS as f64,
            "%",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    #[test]
    fn positions_have_the_free_edges_asked_and_no_box_to_take() {
        for (rows, cols) in [(3, 3), (5, 5), (6, 6), (7, 7)] {
            for free in [4, 12, 20, 34]
                .into_iter()
                .filter(|&f| f < 2 * rows * (cols + 1))
            {
                let state = position_with_free_edges(rows, cols, free, 7);
                let left = state.num_edges() - state.edges_drawn() as usize;
                assert_eq!(left, free, "{rows}x{cols}");
                let mut moves = Vec::new();
                state.legal_actions(&mut moves);
                assert!(moves.iter().all(|&a| state.boxes_closed_by(a) == 0));
            }
            let middle = middle_game(rows, cols);
            let safe = super::safe_edges(middle.geometry(), middle.edges());
            assert!((1..=6).contains(&safe.count_ones()), "{rows}x{cols}");
        }
    }

    #[test]
    fn a_tiny_board_bench_reports_the_products_search_and_the_solvers_reach() {
        let opts = BenchOptions {
            iterations: 5_000,
            threads: 2,
            repeats: 1,
            ..BenchOptions::default()
        };
        let board = DotsAndBoxes::new(4, 4).unwrap();
        let figures = board_figures(&board, &opts, None);
        let names: Vec<&str> = figures.iter().map(|f| f.name.as_str()).collect();
        for want in [
            "product's search, empty board, 1 thread",
            "product's search, empty board, 2 threads",
            "chain rollouts from the empty board, 1 thread",
            "exact solver at 20 free edges, solved within 4M nodes",
            "exact solver at 28 free edges, positions solved",
        ] {
            assert!(names.contains(&want), "{want} not in {names:?}");
        }
        // 4x4 has 40 edges: figures up to 30 free edges.
        assert!(!names.iter().any(|n| n.contains("32 free")));
        for f in &figures {
            assert!(f.value.is_finite() && f.value >= 0.0, "{f:?}");
        }
        let solved = figures
            .iter()
            .find(|f| f.name == "exact solver at 20 free edges, solved within 4M nodes")
            .unwrap();
        assert_eq!(solved.value, 100.0);
    }
}
