//! How far the product's proofs reach: for the first position with at most FREE free edges of
//! each of the first COUNT games of a dataset, the null-window search "does the player to move
//! win?" (`nn`'s `prove_edges`), within NODES positions (2,000,000, `nn`'s), from an empty table
//! of 2^BITS entries (22 by default; `nn`'s is 20): how often it answers, and with how many
//! positions searched.
//!
//! With FREE written `warm:FROM`, each game is followed instead from its first position with at
//! most FROM free edges down to 35, a proof asked at every position on the way with the table
//! kept from one to the next (as `nn`, which keeps its table between moves, asks them), and the
//! answers counted by free edges.
//!
//! `cargo run --release -p engine --example proof_effort -- DATASET FREE COUNT [NODES [BITS]]`
//!
//! Kept because it makes the reach of `nn`'s proofs (`prove_edges`) in docs/lab/dots-and-boxes.md.

use std::path::Path;
use std::time::Instant;

use engine::game::Game;
use engine::games::dots_and_boxes::endgame::EndgameSolver;
use engine::games::dots_and_boxes::positions::free_edges;
use engine::games::DotsAndBoxes;
use engine::record::Dataset;
use engine::registry::Lookup;

/// Where the warm runs stop: `nn`'s solver plays from 34 free edges.
const WARM_DOWN_TO: u32 = 35;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(3..=5).contains(&args.len()) {
        return Err("usage: proof_effort DATASET FREE|warm:FROM COUNT [NODES [BITS]]".into());
    }
    let number = |text: &str, what: &str| -> Result<u64, String> {
        text.parse()
            .map_err(|_| format!("{what}: not a number: {text}"))
    };
    let (warm, free) = match args[1].strip_prefix("warm:") {
        Some(from) => (true, number(from, "FROM")? as u32),
        None => (false, number(&args[1], "FREE")? as u32),
    };
    let count = number(&args[2], "COUNT")? as usize;
    let nodes = match args.get(3) {
        Some(n) => number(n, "NODES")?,
        None => 2_000_000,
    };
    let bits = match args.get(4) {
        Some(b) => number(b, "BITS")? as u32,
        None => 22,
    };
    let dataset = Dataset::open(Path::new(&args[0])).map_err(|e| e.to_string())?;
    let board: DotsAndBoxes = dataset.spec().start()?;
    let mut solver = EndgameSolver::new(board.rows(), board.cols(), bits);
    // By free edges: (asked, won, lost, positions searched by the answered).
    let mut tally = vec![(0u32, 0u32, 0u32, Vec::new()); free as usize + 1];
    let start = Instant::now();
    for game in dataset.games().take(count) {
        let game = game.map_err(|e| e.to_string())?;
        let mut state = board;
        solver.clear();
        for m in &game.moves {
            let left = free_edges(&state);
            let done = if warm {
                left < WARM_DOWN_TO
            } else {
                left <= free
            };
            if state.is_terminal() || done {
                break;
            }
            if left <= free {
                ask(&mut solver, &state, nodes, &mut tally[left as usize]);
            }
            state.apply(m.action);
        }
        let left = free_edges(&state);
        if !warm && !state.is_terminal() && left <= free {
            ask(&mut solver, &state, nodes, &mut tally[left as usize]);
        }
    }
    for (left, (asked, won, lost, used)) in tally.iter_mut().enumerate() {
        if *asked == 0 {
            continue;
        }
        used.sort_unstable();
        let median = used.get(used.len() / 2).copied().unwrap_or(0);
        println!(
            "{left} free edges: {asked} positions, won {won}, lost {lost}, unanswered {}; \
             answered in a median {median} positions",
            *asked - *won - *lost
        );
    }
    println!(
        "{nodes} positions a proof, a table of 2^{bits}; {:.1} s in all",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// One proof of `state`, counted into `tally`.
fn ask(
    solver: &mut EndgameSolver,
    state: &DotsAndBoxes,
    nodes: u64,
    tally: &mut (u32, u32, u32, Vec<u64>),
) {
    let before = solver.nodes();
    let answer = solver.try_edges_at_least(state.edges(), 1 - state.lead_of_mover(), nodes);
    let used = solver.nodes() - before;
    tally.0 += 1;
    match answer {
        Some(true) => tally.1 += 1,
        Some(false) => tally.2 += 1,
        None => return,
    }
    tally.3.push(used);
}
