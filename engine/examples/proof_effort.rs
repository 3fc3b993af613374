//! How far the product's proofs reach: for the first position with at most FREE free edges of
//! each of the first COUNT games of a dataset, the null-window search "does the player to move
//! win?" (`nn`'s `prove_edges`), within NODES positions: how often it answers, and with how many
//! positions searched.
//!
//! `cargo run --release -p engine --example proof_effort -- DATASET FREE COUNT [NODES]`

use std::path::Path;
use std::time::Instant;

use engine::game::Game;
use engine::games::dots_and_boxes::endgame::EndgameSolver;
use engine::games::dots_and_boxes::labels::free_edges;
use engine::games::DotsAndBoxes;
use engine::record::Dataset;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, what: &str| -> Result<u64, String> {
        args[i]
            .parse()
            .map_err(|_| format!("{what}: not a number: {}", args[i]))
    };
    if !(3..=4).contains(&args.len()) {
        return Err("usage: proof_effort DATASET FREE COUNT [NODES]".into());
    }
    let (free, count) = (number(1, "FREE")? as u32, number(2, "COUNT")? as usize);
    let nodes = if args.len() == 4 {
        number(3, "NODES")?
    } else {
        2_000_000
    };
    let dataset = Dataset::open(Path::new(&args[0])).map_err(|e| e.to_string())?;
    let board: DotsAndBoxes = dataset.spec().start()?;
    let mut solver = EndgameSolver::new(board.rows(), board.cols(), 22);
    let (mut asked, mut won, mut lost, mut spent) = (0, 0, 0, 0u64);
    let mut used = Vec::new();
    let start = Instant::now();
    for game in dataset.games().take(count) {
        let game = game.map_err(|e| e.to_string())?;
        let mut state = board;
        for m in &game.moves {
            if free_edges(&state) <= free || state.is_terminal() {
                break;
            }
            state.apply(m.action);
        }
        if state.is_terminal() || free_edges(&state) > free {
            continue;
        }
        asked += 1;
        solver.clear();
        let before = solver.nodes();
        let answer = solver.try_edges_at_least(state.edges(), 1 - state.lead_of_mover(), nodes);
        let n = solver.nodes() - before;
        spent += n.min(nodes);
        match answer {
            Some(true) => {
                won += 1;
                used.push(n);
            }
            Some(false) => {
                lost += 1;
                used.push(n);
            }
            None => {}
        }
    }
    used.sort_unstable();
    let median = used.get(used.len() / 2).copied().unwrap_or(0);
    println!(
        "{free} free edges, {asked} positions, {nodes} nodes: won {won}, lost {lost}, \
         unanswered {}; answered in a median {median} nodes; {spent} nodes, {:.1} s in all",
        asked - won - lost,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
