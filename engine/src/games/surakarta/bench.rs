//! `engine bench --game surakarta`: rollouts and plies a second, the energy's cost, and
//! iterations a second of plain MCTS, the paper's heuristic MCTS and ours, from the start.

use std::time::Instant;

use super::search::{Heuristics, SurakartaRollout};
use super::{MoveList, Surakarta};
use crate::game::Game;
use crate::mcts::bench::{mcts_figures, BenchOptions, Figure};
use crate::mcts::RolloutPolicy;
use crate::rng::Rng;

/// Rollouts timed for each rollout figure.
const ROLLOUTS: u64 = 50_000;

pub fn figures(start: &Surakarta, opts: &BenchOptions) -> Vec<Figure> {
    let mut out = Vec::new();
    let mut rng = Rng::new(opts.seed);
    // Random games to the end: games and plies a second.
    let mut moves = MoveList::new();
    let (mut plies, begin) = (0u64, Instant::now());
    for _ in 0..ROLLOUTS / 5 {
        let mut s = *start;
        while !s.is_terminal() {
            s.play_random(&mut moves, &mut rng);
            plies += 1;
        }
    }
    let seconds = begin.elapsed().as_secs_f64();
    out.push(Figure::new(
        "random games to the end, 1 thread",
        (ROLLOUTS / 5) as f64 / seconds,
        "games/s",
    ));
    out.push(Figure::new(
        "random plies, 1 thread",
        plies as f64 / seconds,
        "plies/s",
    ));
    // The paper's rollouts: stopped at a lead of more than 3 pieces or after 50 moves.
    let mut paper = SurakartaRollout::new(Heuristics::PAPER);
    let begin = Instant::now();
    for _ in 0..ROLLOUTS {
        let mut s = *start;
        paper.rollout(&mut s, &mut rng);
    }
    out.push(Figure::new(
        "paper's rollouts (lead > 3 or 50 moves), 1 thread",
        ROLLOUTS as f64 / begin.elapsed().as_secs_f64(),
        "rollouts/s",
    ));
    // The energy of every move from the start, as an expansion computes it.
    let mut list = Vec::new();
    start.legal_actions(&mut list);
    let weights = Heuristics::PAPER.energy.unwrap_or_default();
    let (mut sum, begin, rounds) = (0.0f32, Instant::now(), 20_000);
    for _ in 0..rounds {
        for &a in &list {
            sum += weights.energy(std::hint::black_box(start).energy_terms_after(a));
        }
    }
    let ns = begin.elapsed().as_secs_f64() * 1e9 / (rounds * list.len().max(1)) as f64;
    std::hint::black_box(sum);
    out.push(Figure::new("energy of one move", ns, "ns"));
    for (name, heuristics) in [
        ("plain MCTS", Heuristics::PLAIN),
        ("paper's heuristic MCTS", Heuristics::PAPER),
        ("our MCTS with rollouts", Heuristics::BEST),
        ("the engine's MCTS (quiescence leaves)", Heuristics::ENGINE),
    ] {
        let label = format!("{name} from the start");
        out.extend(mcts_figures(&label, start, opts, |config| {
            heuristics.search(config)
        }));
    }
    out
}
