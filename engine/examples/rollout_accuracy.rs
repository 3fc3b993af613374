//! How well the product's chain rollouts (with sacrifices) name the perfect-play winner of the
//! positions of recorded 5x5 games at a given number of free edges, against the exact solver's
//! null-window outcome, and how long that outcome takes.
//!
//! `cargo run --release -p engine --example rollout_accuracy -- DATASET FREE COUNT` (the first
//! position with at most FREE free edges of each of the first COUNT games). The policy and late
//! nets that once drew or ended these play-outs were retired in issue 83 (`git show
//! df42d1a:engine/examples/rollout_accuracy.rs`).
//!
//! Kept because it makes the chain rollouts' accuracy in docs/engine.md and docs/lab/dots-and-boxes.md.

use std::path::Path;
use std::time::Instant;

use engine::game::{Game, Outcome};
use engine::games::dots_and_boxes::endgame::EndgameSolver;
use engine::games::dots_and_boxes::positions::free_edges;
use engine::games::dots_and_boxes::rollout::ChainRollout;
use engine::games::DotsAndBoxes;
use engine::record::Dataset;
use engine::registry::Lookup;
use engine::rng::Rng;

const ROLLOUTS: u32 = 64;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, free, count] = &args[..] else {
        return Err("usage: rollout_accuracy DATASET FREE COUNT".into());
    };
    let free: u32 = free
        .parse()
        .map_err(|_| format!("FREE: not a number: {free}"))?;
    let count: usize = count
        .parse()
        .map_err(|_| format!("COUNT: not a number: {count}"))?;
    let dataset = Dataset::open(Path::new(dir)).map_err(|e| e.to_string())?;
    let board: DotsAndBoxes = dataset.spec().start()?;
    let mut solver = EndgameSolver::new(board.rows(), board.cols(), 22);
    let mut rollout = ChainRollout::new();
    rollout.sacrifices = true;
    let mut rng = Rng::new(7);
    let (mut n, mut single, mut majority, mut game_result) = (0u32, 0u32, 0u32, 0u32);
    let (mut seconds, mut worst) = (0f64, 0f64);
    for game in dataset.games().take(count) {
        let game = game.map_err(|e| e.to_string())?;
        let mut state = board;
        let Some(position) = game.moves.iter().find_map(|m| {
            let here = (free_edges(&state) <= free).then_some(state);
            state.apply(m.action);
            here
        }) else {
            continue;
        };
        solver.clear();
        let start = Instant::now();
        let exact = solver
            .try_outcome(&position, u64::MAX)
            .expect("no node limit");
        let took = start.elapsed().as_secs_f64();
        seconds += took;
        worst = worst.max(took);
        let agree = (0..ROLLOUTS)
            .filter(|_| {
                let margin = rollout.final_margin(&position, &mut rng);
                let said = match margin.signum() {
                    1 => Outcome::P1Win,
                    -1 => Outcome::P2Win,
                    _ => Outcome::Draw,
                };
                said == exact
            })
            .count() as u32;
        n += 1;
        single += agree;
        majority += u32::from(2 * agree > ROLLOUTS);
        game_result += u32::from(game.outcome == exact);
    }
    if n == 0 {
        return Err("no game reached that many free edges".into());
    }
    let pct = |k: u32, of: u32| 100.0 * k as f64 / of as f64;
    println!(
        "{free} free edges, {n} positions: exact outcome {:.3} s a position (worst {worst:.3} s); \
         one rollout right {:.1}%, the majority of {ROLLOUTS} right {:.1}%, the game's result right {:.1}%",
        seconds / n as f64,
        pct(single, n * ROLLOUTS),
        pct(majority, n),
        pct(game_result, n)
    );
    Ok(())
}
