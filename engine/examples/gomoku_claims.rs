//! Whether the wins `pvs` claims hold: games of `pvs` against itself (40 ms a move from
//! h8 h9 i10, a random move in every nine plies so that wins appear on the board), and for
//! each game the first position where a side's root claimed a forced win (a five, a VCF or a
//! VCT); a claim is broken if that side did not win (a random move of its own afterwards
//! voids the claim).
//!
//! `cargo run --release -p engine --example gomoku_claims -- [GAMES]` (60)

use std::time::Duration;

use engine::game::{Game, Player};
use engine::games::gomoku::pvs::{Pvs, PvsConfig, WIN};
use engine::games::gomoku::{Gomoku, Rule};
use engine::rng::Rng;

fn main() -> Result<(), String> {
    let games: usize = match std::env::args().nth(1) {
        Some(n) => n.parse().map_err(|_| format!("GAMES: not a number: {n}"))?,
        None => 60,
    };
    let time = Duration::from_millis(40);
    let mut rng = Rng::new(9);
    let (mut claims, mut broken) = (0, 0);
    for game in 0..games {
        let mut g = Gomoku::new(15, Rule::Freestyle)?;
        for m in ["h8", "h9", "i10"] {
            g.apply(g.parse_legal_action(m).map_err(|e| e.to_string())?);
        }
        let mut players = [
            Pvs::new("a", PvsConfig::new(time)),
            Pvs::new("b", PvsConfig::new(time)),
        ];
        let mut claim: Option<(Player, String, usize)> = None;
        let mut moves = Vec::new();
        while !g.is_terminal() {
            let me = g.to_move();
            let random = g.stones() % 9 == 8;
            let a = if random {
                g.legal_actions(&mut moves);
                if claim.as_ref().is_some_and(|(c, _, _)| *c == me) {
                    claim = None;
                }
                moves[rng.below(moves.len() as u32) as usize]
            } else {
                let (a, score) = players[me.index()]
                    .best_move_within(&g, time)
                    .ok_or("no move")?;
                if score >= WIN - 1 && claim.is_none() {
                    claim = Some((me, g.board_string(), g.stones()));
                }
                a
            };
            g.apply(a);
        }
        if let Some((side, board, stones)) = claim {
            claims += 1;
            if g.winner() != Some(side) {
                broken += 1;
                println!(
                    "game {game}: {side} claimed a win at {stones} stones and did not win: {board}"
                );
            }
        }
    }
    println!("{games} games: {claims} claims, {broken} broken");
    Ok(())
}
