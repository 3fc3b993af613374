//! How the Gomocup brain spends its clock: two brains play each other as a manager seats them
//! (INFO timeout_turn, timeout_match and time_left before each TURN, the time each answer took
//! taken off its own clock), and each answer's time is set against the turn's limit.
//!
//! `cargo run --release -p engine --example gomocup_clock -- [TURN_MS MATCH_MS [GAMES]]`;
//! without arguments: 100 ms, 1 s and 5 s turns with a 180 s game, then 1 s turns with a 10 s
//! game (a nearly spent clock by the end).
//!
//! Kept because it makes the clock figures of docs/gomoku.md (how the brain spends its time).

use std::time::Instant;

use engine::game::Game;
use engine::games::gomoku::gomocup::Brain;
use engine::games::gomoku::{Gomoku, Rule};

fn main() -> Result<(), String> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().map_err(|_| format!("not a number: {a}")))
        .collect::<Result<_, _>>()?;
    let settings = match args[..] {
        [] => vec![
            (100, 180_000, 2),
            (1_000, 180_000, 1),
            (5_000, 180_000, 1),
            (1_000, 10_000, 1),
        ],
        [turn, game] => vec![(turn, game, 1)],
        [turn, game, games] => vec![(turn, game, games)],
        _ => return Err("usage: gomocup_clock [TURN_MS MATCH_MS [GAMES]]".into()),
    };
    println!("turn ms  match ms  games  moves  mean ms  max ms  over the turn  least left ms");
    for (turn, game_ms, games) in settings {
        let (mut moves, mut total, mut max, mut over, mut least) = (0, 0u128, 0u128, 0, u64::MAX);
        for _ in 0..games {
            let (m, t, mx, o, l) = play(turn, game_ms)?;
            moves += m;
            total += t;
            max = max.max(mx);
            over += o;
            least = least.min(l);
        }
        println!(
            "{turn:>7}  {game_ms:>8}  {games:>5}  {moves:>5}  {:>7.0}  {max:>6}  {over:>13}  {least:>13}",
            total as f64 / moves.max(1) as f64
        );
    }
    Ok(())
}

/// One game: moves, total and longest answer (ms), answers over the turn's limit, and the
/// least time either clock had left.
fn play(turn: u64, game_ms: u64) -> Result<(usize, u128, u128, usize, u64), String> {
    let mut brains = [Brain::new(), Brain::new()];
    for brain in &mut brains {
        brain.handle_line(&format!("INFO timeout_turn {turn}"));
        brain.handle_line(&format!("INFO timeout_match {game_ms}"));
        brain.handle_line("START 15");
    }
    let mut left = [game_ms; 2];
    let mut g = Gomoku::new(15, Rule::Freestyle)?;
    let (mut moves, mut total, mut max, mut over) = (0, 0u128, 0u128, 0);
    let mut seat = 0;
    let mut last: Option<String> = None;
    while !g.is_terminal() {
        brains[seat].handle_line(&format!("INFO time_left {}", left[seat]));
        let command = match &last {
            None => "BEGIN".to_string(),
            Some(m) => format!("TURN {m}"),
        };
        let started = Instant::now();
        let answer = brains[seat].handle_line(&command).lines;
        let ms = started.elapsed().as_millis();
        let text = answer.first().ok_or("no answer")?.clone();
        let (x, y) = text
            .split_once(',')
            .and_then(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?)))
            .ok_or(format!("not a move: {text}"))?;
        let a = g
            .gomocup_point(x, y)
            .ok_or(format!("off the board: {text}"))?;
        g.apply(a);
        moves += 1;
        total += ms;
        max = max.max(ms);
        over += usize::from(ms > u128::from(turn));
        left[seat] = left[seat].saturating_sub(ms as u64);
        last = Some(text);
        seat = 1 - seat;
    }
    Ok((moves, total, max, over, left[0].min(left[1])))
}
