//! How often the chain rollouts end by their fallback rule, and how often that rule names the
//! wrong winner: for the first position with at most FREE free edges of each of the first COUNT
//! games of a dataset, ROLLOUTS chain rollouts with sacrifices (`nn`'s), each replayed with the
//! same random draws by a rollout whose solver never gives up; the two agree until the solver's
//! budget runs out, so every disagreement is the rule's.
//!
//! `cargo run --release -p engine --example fallback_accuracy -- DATASET FREE COUNT [ROLLOUTS]`
//!
//! Kept because it makes the chain rollouts' fallback figures of docs/lab/dots-and-boxes.md.

use std::path::Path;
use std::time::Instant;

use engine::game::Game;
use engine::games::dots_and_boxes::positions::first_with_free;
use engine::games::dots_and_boxes::rollout::ChainRollout;
use engine::games::DotsAndBoxes;
use engine::record::Dataset;
use engine::registry::Lookup;
use engine::rng::Rng;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(3..=4).contains(&args.len()) {
        return Err("usage: fallback_accuracy DATASET FREE COUNT [ROLLOUTS]".into());
    }
    let number = |text: &str, what: &str| -> Result<u64, String> {
        text.parse()
            .map_err(|_| format!("{what}: not a number: {text}"))
    };
    let free = number(&args[1], "FREE")? as u32;
    let count = number(&args[2], "COUNT")? as usize;
    let rollouts = match args.get(3) {
        Some(n) => number(n, "ROLLOUTS")?,
        None => 100,
    };
    let dataset = Dataset::open(Path::new(&args[0])).map_err(|e| e.to_string())?;
    let board: DotsAndBoxes = dataset.spec().start()?;
    let mut product = ChainRollout::new();
    product.sacrifices = true;
    let mut exact = product.clone();
    exact.solver_nodes = u64::MAX;
    let (mut total, mut fallbacks, mut wrong, mut margin_off, mut wrong_overall) =
        (0u64, 0, 0, 0, 0);
    let start = Instant::now();
    for (g, game) in dataset.games().take(count).enumerate() {
        let game = game.map_err(|e| e.to_string())?;
        let state = first_with_free(board, &game.moves, free);
        if state.is_terminal() {
            continue;
        }
        for r in 0..rollouts {
            let seed = (g as u64) << 32 | r;
            let before = product.endings[2];
            let m1 = product.final_margin(&state, &mut Rng::new(seed));
            let m2 = exact.final_margin(&state, &mut Rng::new(seed));
            total += 1;
            if m1.signum() != m2.signum() {
                wrong_overall += 1;
            }
            if product.endings[2] > before {
                fallbacks += 1;
                if m1.signum() != m2.signum() {
                    wrong += 1;
                }
                if m1 != m2 {
                    margin_off += 1;
                }
            }
        }
    }
    println!(
        "{total} rollouts from {free} free edges: {fallbacks} ended by the rule ({:.1}%), \
         of which {wrong} named the wrong winner ({:.1}%) and {margin_off} the wrong margin; \
         {:.2}% of all rollouts wrong; {:.1} s",
        100.0 * fallbacks as f64 / total.max(1) as f64,
        100.0 * wrong as f64 / fallbacks.max(1) as f64,
        100.0 * wrong_overall as f64 / total.max(1) as f64,
        start.elapsed().as_secs_f64()
    );
    println!(
        "endings (loony, solver, rule): product {:?}, exact {:?}",
        product.endings, exact.endings
    );
    Ok(())
}
