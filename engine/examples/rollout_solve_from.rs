//! How well chain rollouts foretell the perfect-play winner: for the first position with at
//! most FREE free edges of each of the first COUNT games of a dataset that the exact solver
//! settles within 20M positions, ROLLOUTS chain rollouts with sacrifices (`nn`'s), each ended
//! by the solver once at most SOLVE_FROM free edges are left (0: only once no safe edge is
//! left, as `nn` does) within NODES positions: the share of rollouts whose winner is the
//! perfect-play winner, the share of positions where most rollouts name it, and the time.
//!
//! `cargo run --release -p engine --example rollout_solve_from -- DATASET FREE COUNT ROLLOUTS SOLVE_FROM [NODES]`
//!
//! Kept because it makes the rollouts' solver range (`endgame_nodes`) in docs/lab/dots-and-boxes.md.

use std::path::Path;
use std::time::Instant;

use engine::game::{Game, Outcome};
use engine::games::dots_and_boxes::endgame::EndgameSolver;
use engine::games::dots_and_boxes::positions::first_with_free;
use engine::games::dots_and_boxes::rollout::ChainRollout;
use engine::games::DotsAndBoxes;
use engine::record::Dataset;
use engine::registry::Lookup;
use engine::rng::Rng;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(5..=6).contains(&args.len()) {
        return Err(
            "usage: rollout_solve_from DATASET FREE COUNT ROLLOUTS SOLVE_FROM [NODES]".into(),
        );
    }
    let number = |text: &str, what: &str| -> Result<u64, String> {
        text.parse()
            .map_err(|_| format!("{what}: not a number: {text}"))
    };
    let free = number(&args[1], "FREE")? as u32;
    let count = number(&args[2], "COUNT")? as usize;
    let rollouts = number(&args[3], "ROLLOUTS")?;
    let solve_from = number(&args[4], "SOLVE_FROM")? as u32;
    let dataset = Dataset::open(Path::new(&args[0])).map_err(|e| e.to_string())?;
    let board: DotsAndBoxes = dataset.spec().start()?;
    let mut rollout = ChainRollout::new();
    rollout.sacrifices = true;
    rollout.solve_from = solve_from;
    if let Some(n) = args.get(5) {
        rollout.solver_nodes = number(n, "NODES")?;
    }
    let mut judge = EndgameSolver::new(board.rows(), board.cols(), 22);
    let (mut positions, mut right, mut majority_right) = (0u64, 0u64, 0u64);
    let mut rollout_time = 0.0;
    for (g, game) in dataset.games().take(count).enumerate() {
        let game = game.map_err(|e| e.to_string())?;
        let state = first_with_free(board, &game.moves, free);
        if state.is_terminal() {
            continue;
        }
        let Some(truth) = judge.try_outcome(&state, 20_000_000) else {
            continue;
        };
        if truth == Outcome::Draw {
            continue;
        }
        positions += 1;
        let start = Instant::now();
        let mut named = 0u64;
        for r in 0..rollouts {
            let margin = rollout.final_margin(&state, &mut Rng::new((g as u64) << 32 | r));
            let winner = match margin.signum() {
                1 => Outcome::P1Win,
                -1 => Outcome::P2Win,
                _ => Outcome::Draw,
            };
            named += (winner == truth) as u64;
        }
        rollout_time += start.elapsed().as_secs_f64();
        right += named;
        majority_right += (2 * named > rollouts) as u64;
    }
    println!(
        "{positions} positions at {free} free edges, solve_from {solve_from}, {} nodes: \
         rollouts right {:.1}%, majority right {:.1}% ({majority_right}), {:.1} us a rollout",
        rollout.solver_nodes,
        100.0 * right as f64 / (positions * rollouts).max(1) as f64,
        100.0 * majority_right as f64 / positions.max(1) as f64,
        1e6 * rollout_time / (positions * rollouts).max(1) as f64
    );
    println!("endings (loony, solver, rule): {:?}", rollout.endings);
    Ok(())
}
