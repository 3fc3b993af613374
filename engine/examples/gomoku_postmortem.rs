//! Where a Gomoku player lost its games: reads the JSON report of an `engine match` and, for
//! each game player A (or B) lost, finds the loser's first move after which the winner had a
//! forced win by threats (a VCF or a VCT within the node limit), and how many of the loser's
//! candidate moves at that point would have left the winner none. A move with safe
//! alternatives is a search error; one with none means the game was lost earlier, beyond
//! what the threat search sees.
//!
//! `cargo run --release -p engine --example gomoku_postmortem -- REPORT.json [a|b] [NODES]`
//! (player a, 1,000,000 nodes a threat search)
//!
//! Kept because it makes the post-mortems of lost games in docs/lab/gomoku.md.

use engine::game::{Action, Game, Player};
use engine::games::gomoku::shape_board::ShapeBoard;
use engine::games::gomoku::threat_space::{ThreatKind, ThreatSearch};
use engine::games::gomoku::{Gomoku, Rule};

/// Whether the side to move has a forced win by threats within `nodes` (a VCF, then a VCT);
/// `None` when a search reached its limit without an answer.
fn threat_win(search: &mut ThreatSearch, board: &mut ShapeBoard, nodes: u64) -> Option<bool> {
    let mut unknown = false;
    for kind in [ThreatKind::Vcf, ThreatKind::Vct] {
        if search.find(board, kind, 30, nodes, None).is_some() {
            return Some(true);
        }
        unknown |= search.aborted();
    }
    (!unknown).then_some(false)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: gomoku_postmortem REPORT.json [a|b] [NODES]")?;
    let side = args.get(1).map(String::as_str).unwrap_or("a");
    if side != "a" && side != "b" {
        return Err(format!("the player is a or b, not '{side}'"));
    }
    let nodes: u64 = match args.get(2) {
        Some(n) => n.parse().map_err(|_| format!("NODES: not a number: {n}"))?,
        None => 1_000_000,
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let report: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let games = report["games"]
        .as_array()
        .ok_or(format!("{path}: no games"))?;
    let mut search = ThreatSearch::new();
    let (mut lost, mut errors) = (0, 0);
    for game in games {
        let a_seat = game["a_seat"].as_str().unwrap_or("P1");
        let seat = match (side, a_seat) {
            ("a", "P1") | ("b", "P2") => Player::P1,
            _ => Player::P2,
        };
        let r = &game["report"];
        let loss = if seat == Player::P1 { "P2Win" } else { "P1Win" };
        if r["outcome"].as_str() != Some(loss) {
            continue;
        }
        lost += 1;
        let moves: Vec<Action> = r["moves"]
            .as_array()
            .ok_or("a game without moves")?
            .iter()
            .map(|m| m.as_u64().unwrap_or(0) as Action)
            .collect();
        let start = r["start_moves"].as_u64().unwrap_or(0) as usize;
        let mut g = Gomoku::new(15, Rule::Freestyle)?;
        let mut verdict = format!("no threat win found before the end ({} moves)", moves.len());
        for (i, &m) in moves.iter().enumerate() {
            let before = g;
            g.apply(m);
            if i < start || before.to_move() != seat || g.is_terminal() {
                continue;
            }
            let mut board = ShapeBoard::new(&g);
            if threat_win(&mut search, &mut board, nodes) != Some(true) {
                continue;
            }
            let proof = (search.nodes(), search.depth());
            // The loser's move let the winner in: were there moves that did not?
            let mut board = ShapeBoard::new(&before);
            let mut candidates = Vec::new();
            board.candidates(&mut candidates);
            let (mut safe, mut unknown) = (Vec::new(), 0);
            for &p in &candidates {
                if !board.playable(seat, p) {
                    continue;
                }
                board.make(p);
                match threat_win(&mut search, &mut board, nodes / 4) {
                    Some(false) => safe.push(before.format_action(p as Action)),
                    None => unknown += 1,
                    Some(true) => {}
                }
                board.unmake();
            }
            if !safe.is_empty() {
                errors += 1;
            }
            verdict = format!(
                "move {} ({}) let in a threat win ({} nodes, {} threats); of {} candidates {} \
                 were safe {:?}, {} unknown",
                i + 1,
                before.format_action(m),
                proof.0,
                proof.1,
                candidates.len(),
                safe.len(),
                &safe[..safe.len().min(8)],
                unknown
            );
            break;
        }
        let opening: Vec<String> = moves[..start].iter().map(|&m| g.format_action(m)).collect();
        println!(
            "game {} (position {}, {:?}, opening {}): {verdict}",
            game["index"],
            game["position"],
            seat,
            opening.join(" ")
        );
    }
    println!("{lost} games lost; {errors} with a safe move at the first threat win let in");
    Ok(())
}
