//! `engine bench --game surakarta`: rollouts and plies a second, the energy's cost, and
//! iterations a second of plain MCTS, the paper's heuristic MCTS and ours, from the start;
//! the searchers' (`pvs`, the rival `alphabeta`) nodes a second and depth, from the start and
//! from a middle-game position.

use std::time::{Duration, Instant};

use super::pvs::{Pvs, PvsConfig};
use super::rival::AlphaBeta;
use super::search::{Heuristics, SurakartaRollout};
use super::{MoveList, Surakarta};
use crate::agents::Agent;
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
    out.extend(searcher_figures(start, opts));
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

/// The middle-game position of the searchers' figures: 20 plies of a 3-ply `pvs` from
/// `start` (the same position on every machine).
pub fn middle_game(start: &Surakarta) -> Surakarta {
    let mut config = PvsConfig::new(Duration::from_secs(60));
    config.max_depth = 3;
    let mut pvs = Pvs::new("opening", config);
    let mut state = *start;
    for _ in 0..20 {
        match pvs.best_move(&state) {
            Some((a, _)) if !state.is_terminal() => state.apply(a),
            _ => break,
        }
    }
    state
}

/// `pvs` nodes a second and the depth it completes in 1 s and in 0.1 s, from the start and
/// from [`middle_game`], on one thread and on `opts.threads`; the rival's nodes a second.
fn searcher_figures(start: &Surakarta, opts: &BenchOptions) -> Vec<Figure> {
    let mut out = Vec::new();
    let middle = middle_game(start);
    let mut threads = vec![1];
    if opts.threads > 1 {
        threads.push(opts.threads);
    }
    for (place, state) in [("start", start), ("middle game", &middle)] {
        for &t in &threads {
            let label = format!("{place}, {t} thread{}", if t == 1 { "" } else { "s" });
            for millis in [1000, 100] {
                let (mut nodes, mut depth, mut seconds) = (0u64, 0u32, 0f64);
                for _ in 0..opts.repeats.max(1) {
                    let mut config = PvsConfig::new(Duration::from_millis(millis));
                    config.threads = t;
                    let mut pvs = Pvs::new("bench", config);
                    let started = Instant::now();
                    pvs.best_move(state);
                    seconds += started.elapsed().as_secs_f64();
                    let (n, d) = pvs.last_search();
                    nodes += n;
                    depth = depth.max(d);
                }
                if millis == 1000 {
                    out.push(Figure::new(
                        format!("pvs, {label}"),
                        nodes as f64 / seconds,
                        "nodes/s",
                    ));
                }
                out.push(Figure::new(
                    format!(
                        "pvs depth completed in {} s, {label}",
                        millis as f64 / 1000.0
                    ),
                    f64::from(depth),
                    "plies",
                ));
            }
        }
        let mut rival = AlphaBeta::new("rival", Duration::from_secs(1), 64, opts.seed);
        let started = Instant::now();
        if let Ok(choice) = rival.choose(state, &[]) {
            out.push(Figure::new(
                format!("alphabeta (the rival), {place}, 1 thread"),
                choice.iterations as f64 / started.elapsed().as_secs_f64(),
                "nodes/s",
            ));
            out.push(Figure::new(
                format!("alphabeta depth completed in 1 s, {place}, 1 thread"),
                f64::from(rival.depth),
                "plies",
            ));
        }
    }
    out
}
