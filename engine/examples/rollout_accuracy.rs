//! How well the product's chain rollouts (with sacrifices) name the perfect-play winner of the
//! positions of recorded 5x5 games at a given number of free edges, against the exact solver's
//! null-window outcome, and how long that outcome takes.
//!
//! `cargo run --release -p engine --example rollout_accuracy -- DATASET FREE COUNT [POLICY [T]]`
//! (the first position with at most FREE free edges of each of the first COUNT games; with a
//! policy net, the rollouts' free moves drawn by it at temperature T, 1 by default, as
//! `nn:policy_rollout=T` draws them). `late:NET` instead of a policy: a late value net
//! (`engine label`, `--encoding late`) picks the free moves within 36 free edges of the end,
//! the move that leaves the opponent the worst position by the net (QDab's play-outs near
//! their end) at T = 0, the default here, else drawn by a softmax of the net's scores over T.
//! `sure:NET`: the same net ends a play-out within 36 free edges where it is sure (0.9).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use engine::game::{Game, Outcome};
use engine::games::dots_and_boxes::analysis::random_edge;
use engine::games::dots_and_boxes::endgame::EndgameSolver;
use engine::games::dots_and_boxes::labels::free_edges;
use engine::games::dots_and_boxes::net::{load_late_net, load_policy_net, LateNet, LateUse};
use engine::games::dots_and_boxes::rollout::{ChainRollout, Turn};
use engine::games::DotsAndBoxes;
use engine::record::Dataset;
use engine::registry::Lookup;
use engine::rng::Rng;

const ROLLOUTS: u32 = 64;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, free, count, policy, temperature) = match &args[..] {
        [d, f, c] => (d, f, c, None, "1"),
        [d, f, c, p] => (d, f, c, Some(p), "1"),
        [d, f, c, p, t] => (d, f, c, Some(p), t.as_str()),
        _ => return Err("usage: rollout_accuracy DATASET FREE COUNT [POLICY [T]]".into()),
    };
    let temperature: f32 = temperature
        .parse()
        .map_err(|_| format!("T: not a number: {temperature}"))?;
    let free: u32 = free
        .parse()
        .map_err(|_| format!("FREE: not a number: {free}"))?;
    let count: usize = count
        .parse()
        .map_err(|_| format!("COUNT: not a number: {count}"))?;
    let dataset = Dataset::open(Path::new(dir)).map_err(|e| e.to_string())?;
    let board: DotsAndBoxes = dataset.spec().start()?;
    let late_net = |role: LateUse, path: &str| -> Result<LateNet, String> {
        let net = load_late_net(Path::new(path), &board).map_err(|e| e.to_string())?;
        let t = if args.len() > 4 { temperature } else { 0.0 };
        Ok(LateNet::new(Arc::new(net), LateNet::HORIZON)
            .with_role(role)
            .with_temperature(t))
    };
    let mut late = match policy {
        Some(p) if p.starts_with("late:") => Some(late_net(LateUse::Pick, &p[5..])?),
        Some(p) if p.starts_with("sure:") => Some(late_net(LateUse::Sure, &p[5..])?),
        _ => None,
    };
    let mut policy = match policy.filter(|_| late.is_none()) {
        Some(path) => Some(load_policy_net(Path::new(path), &board).map_err(|e| e.to_string())?),
        None => None,
    };
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
                let margin = match (policy.as_mut(), late.as_mut()) {
                    (_, Some(net)) if net.role == LateUse::Pick => {
                        let geo = position.geometry();
                        let mut pick = |t: &Turn, pool, rng: &mut Rng| net.pick(t, pool, geo, rng);
                        rollout.guided_margin(&position, &mut rng, &mut |_: &Turn| None, &mut pick)
                    }
                    (_, Some(net)) => {
                        let geo = position.geometry();
                        let mut judge = |t: &Turn| net.judge(t, geo);
                        let mut uniform = |_: &Turn, pool, rng: &mut Rng| random_edge(pool, rng);
                        rollout.guided_margin(&position, &mut rng, &mut judge, &mut uniform)
                    }
                    (Some(net), None) => {
                        let geo = position.geometry();
                        let mut pick = |t: &Turn, pool, rng: &mut Rng| {
                            net.draw(geo, t, pool, temperature, rng)
                        };
                        rollout.guided_margin(&position, &mut rng, &mut |_: &Turn| None, &mut pick)
                    }
                    (None, None) => rollout.final_margin(&position, &mut rng),
                };
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
