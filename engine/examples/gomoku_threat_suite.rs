//! The Gomoku threat-solving suite: positions from games where the side to move has a forced
//! win by continuous fours (VCF) or by threes and fours (VCT).
//!
//! `build FILE [PER_KIND [MAX_GAMES]]` plays games of `pvs` against itself at 30 ms a move
//! from the ten openings (at most `MAX_GAMES`, 2,000), one random move in every five plies to
//! leave wins on the board. It keeps each distinct position, the side to move with no five
//! point, whose VCF needs at least two fours (found with no node limit), or that has no VCF
//! and a VCT of at least two threats (looked for where it has at least two lines with a four
//! or a live three to make, within 8 threats and 1,000,000 nodes; the positions whose search
//! reaches the limit are left out and counted), `PER_KIND` (100) of each.
//!
//! When `FILE` holds a suite already, its positions are kept and only the kinds short of
//! `PER_KIND` are looked for (the games' random moves seeded anew by how many it holds), so a
//! stopped or short build goes on where it ended.
//!
//! The suite the engine ships is `engine/src/games/gomoku/threat_suite.txt`, built with
//! `cargo run --release -p engine --example gomoku_threat_suite -- build
//! engine/src/games/gomoku/threat_suite.txt 100 60`; `engine bench --game gomoku` solves it
//! at the root limits of `pvs` (share solved, nodes a second, time).
//!
//! Kept because it makes the threat suite engine/src/games/gomoku/threat_suite.txt (the tests' and the bench's positions) and its figures in docs/lab/gomoku.md.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::time::Duration;

use engine::game::{Game, Player};
use engine::games::gomoku::patterns::Shape;
use engine::games::gomoku::pvs::{Pvs, PvsConfig};
use engine::games::gomoku::shape_board::ShapeBoard;
use engine::games::gomoku::threat_space::{read_suite, ThreatKind, ThreatSearch};
use engine::games::gomoku::{Gomoku, Rule};
use engine::rng::Rng;

/// Nodes the check of a VCT may take (a position that needs more is left out).
const VCT_CHECK_NODES: u64 = 1_000_000;

const OPENINGS: &str = include_str!("../../configs/gomoku-openings.txt");

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["build", file] => build(file, 100, 2_000),
        ["build", file, n] => build(file, number(n)?, 2_000),
        ["build", file, n, games] => build(file, number(n)?, number(games)?),
        _ => Err("usage: gomoku_threat_suite build FILE [PER_KIND [MAX_GAMES]]".into()),
    }
}

fn number(text: &str) -> Result<usize, String> {
    text.parse().map_err(|_| format!("not a number: {text}"))
}

/// The openings' positions (15x15 freestyle), from the file `engine match --positions` reads.
fn openings() -> Result<Vec<Gomoku>, String> {
    let mut out = Vec::new();
    for line in OPENINGS.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut g = Gomoku::new(15, Rule::Freestyle)?;
        for m in line.split_whitespace() {
            let a = g
                .parse_legal_action(m)
                .map_err(|e| format!("opening '{line}': {e}"))?;
            g.apply(a);
        }
        out.push(g);
    }
    Ok(out)
}

/// The (point, line) pairs where `player` makes a four or a live three: a VCT needs two.
fn threat_lines(board: &ShapeBoard, player: Player) -> i32 {
    [Shape::Four, Shape::LiveFour, Shape::LiveThree]
        .iter()
        .map(|&s| board.count(player, s))
        .sum()
}

fn build(file: &str, per_kind: usize, max_games: usize) -> Result<(), String> {
    let starts = openings()?;
    let mut seen = HashSet::new();
    let (mut vcf, mut vct) = (Vec::new(), Vec::new());
    if let Ok(text) = std::fs::read_to_string(file) {
        for s in read_suite(file, &text)? {
            seen.insert(ShapeBoard::new(&s.position).hash());
            let entry = (s.threats, s.position.to_move(), s.position.board_string());
            match s.kind {
                ThreatKind::Vcf => vcf.push(entry),
                ThreatKind::Vct => vct.push(entry),
            }
        }
        eprintln!(
            "{file}: {} VCF and {} VCT positions kept",
            vcf.len(),
            vct.len()
        );
    }
    let mut rng = Rng::new(2026 + (vcf.len() + vct.len()) as u64);
    let mut player = Pvs::new("suite", PvsConfig::new(Duration::from_millis(30)));
    let mut solver = ThreatSearch::new();
    let mut games = 0;
    let mut undecided = 0;
    while (vcf.len() < per_kind || vct.len() < per_kind) && games < max_games {
        let mut g = starts[games % starts.len()];
        games += 1;
        while !g.is_terminal() {
            let board = ShapeBoard::new(&g);
            let me = g.to_move();
            if !board.has_five_point(me) && seen.insert(board.hash()) {
                let mut b = board.clone();
                solver.clear();
                let found = solver.find(&mut b, ThreatKind::Vcf, 30, u64::MAX, None);
                if found.is_some() && solver.depth() >= 2 && vcf.len() < per_kind {
                    vcf.push((solver.depth(), me, g.board_string()));
                } else if found.is_none() && vct.len() < per_kind && threat_lines(&board, me) >= 2 {
                    solver.clear();
                    let found = solver.find(&mut b, ThreatKind::Vct, 8, VCT_CHECK_NODES, None);
                    if found.is_some() && solver.depth() >= 2 {
                        vct.push((solver.depth(), me, g.board_string()));
                    }
                    undecided += usize::from(solver.aborted());
                }
            }
            let mut moves = Vec::new();
            g.legal_actions(&mut moves);
            let a = if g.stones() % 5 == 4 {
                rng.pick(&moves)
            } else {
                player
                    .best_move_within(&g, Duration::from_millis(30))
                    .ok_or("no move")?
                    .0
            };
            g.apply(a);
        }
        eprintln!(
            "{games} games: {} VCF, {} VCT positions ({undecided} left undecided)",
            vcf.len(),
            vct.len()
        );
        // Written after every game, so a stopped build keeps what it found.
        write_suite(file, &vcf, &vct)?;
    }
    write_suite(file, &vcf, &vct)?;
    println!(
        "{file}: {} VCF and {} VCT positions from {games} games ({undecided} positions' VCT check reached {VCT_CHECK_NODES} nodes)",
        vcf.len(),
        vct.len()
    );
    Ok(())
}

/// A suite position: the threats of its win, the side to move, the board.
type Entry = (u32, Player, String);

fn write_suite(file: &str, vcf: &[Entry], vct: &[Entry]) -> Result<(), String> {
    let mut text = String::from(
        "# The Gomoku threat-solving suite (engine/examples/gomoku_threat_suite.rs): kind, the\n\
         # threats of the win (a VCF's found with no node limit, a VCT's within 1,000,000\n\
         # nodes), the side to move, the 15x15 freestyle board (ranks from the top, X black,\n\
         # O white).\n",
    );
    for (kind, list) in [("vcf", vcf), ("vct", vct)] {
        for (depth, me, board) in list.iter() {
            writeln!(text, "{kind} {depth} {} {board}", me.number()).expect("a string");
        }
    }
    let partial = format!("{file}.partial");
    std::fs::write(&partial, text).map_err(|e| format!("{partial}: {e}"))?;
    std::fs::rename(&partial, file).map_err(|e| format!("{file}: {e}"))
}
