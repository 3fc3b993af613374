//! Fits the quiet moves' order of `pvs:order=fitted` ([`FITTED_ORDER`]) to the moves played in
//! self-play records, and compares the orders: for positions with no five point and no live
//! three on the board, where each order puts the move played among the candidates.
//!
//! `cargo run --release -p engine --example gomoku_order_fit -- DATASET... [-- REPORT.json...]`
//!
//! Trains on nine positions in ten of the datasets' searched moves (from the fifth stone);
//! the tenth, and both players' moves in each `engine match --json` report, are held out.
//! Prints the weights as `FITTED_ORDER` is written, then the table.

use engine::game::Player;
use engine::games::gomoku::move_order::{order_features, FITTED_ORDER, ORDER_FEATURES};
use engine::games::gomoku::patterns::Shape;
use engine::games::gomoku::pvs::shape_order;
use engine::games::gomoku::shape_board::ShapeBoard;
use engine::games::gomoku::{Gomoku, Rule};
use engine::record::{Dataset, MoveKind};

const NF: usize = ORDER_FEATURES;

/// An order's scores of a position's candidates.
type OrderOf<'a> = Box<dyn Fn(&Position) -> Vec<f32> + 'a>;
const RANKS: [(usize, &str); 6] = [
    (1, "first"),
    (3, "first 3"),
    (5, "first 5"),
    (9, "first 9"),
    (20, "first 20"),
    (usize::MAX, "all"),
];

/// A position's candidates: their features, their weighed-shapes order, the move played.
struct Position {
    features: Vec<[u8; NF]>,
    shapes: Vec<i32>,
    played: usize,
    /// 0: self-play, 1 and 2: a report's player A and B.
    source: usize,
}

/// Whether neither side has a five point or a live three: the positions a quiet order serves.
fn quiet(board: &ShapeBoard) -> bool {
    let me = board.to_move();
    [me, me.opponent()]
        .iter()
        .all(|&s| !board.has_five_point(s) && board.count(s, Shape::LiveFour) == 0)
}

fn position(
    board: &ShapeBoard,
    played: usize,
    source: usize,
    cands: &mut Vec<usize>,
) -> Option<Position> {
    let me = board.to_move();
    board.candidates(cands);
    Some(Position {
        played: cands.iter().position(|&p| p == played)?,
        features: cands
            .iter()
            .map(|&p| order_features(board, me, p))
            .collect(),
        shapes: cands.iter().map(|&p| shape_order(board, me, p).0).collect(),
        source,
    })
}

fn score(f: &[u8; NF], w: &[f32]) -> f32 {
    f.iter().zip(w).map(|(&x, &wi)| f32::from(x) * wi).sum()
}

/// The move played's rank by `scores` (from 1), ties shared evenly: a point-order tie-break
/// puts it anywhere among them.
fn rank_of(scores: &[f32], played: usize) -> usize {
    let s = scores[played];
    let ahead = scores.iter().filter(|&&x| x > s).count();
    let tied = scores.iter().filter(|&&x| x == s).count() - 1;
    ahead + 1 + tied / 2
}

/// Softmax regression of the move played over each position's candidates (Adam, batches of
/// 256, 30 epochs).
fn fit(train: &[&Position]) -> Vec<f32> {
    let mut w = vec![0f32; NF];
    let (mut m1, mut m2) = (vec![0f32; NF], vec![0f32; NF]);
    let (lr, b1, b2) = (0.02f32, 0.9f32, 0.999f32);
    let mut step = 0;
    for epoch in 1..=30 {
        let mut loss = 0.0f64;
        for batch in train.chunks(256) {
            let mut grad = vec![0f32; NF];
            for pos in batch {
                let scores: Vec<f32> = pos.features.iter().map(|f| score(f, &w)).collect();
                let max = scores.iter().cloned().fold(f32::MIN, f32::max);
                let exps: Vec<f32> = scores.iter().map(|s| (s - max).exp()).collect();
                let z: f32 = exps.iter().sum();
                loss -= f64::from((exps[pos.played] / z).ln());
                for (c, f) in pos.features.iter().enumerate() {
                    let g = exps[c] / z - f32::from(u8::from(c == pos.played));
                    for k in 0..NF {
                        grad[k] += g * f32::from(f[k]);
                    }
                }
            }
            step += 1;
            for k in 0..NF {
                let g = grad[k] / batch.len() as f32;
                m1[k] = b1 * m1[k] + (1.0 - b1) * g;
                m2[k] = b2 * m2[k] + (1.0 - b2) * g * g;
                let (mh, vh) = (m1[k] / (1.0 - b1.powi(step)), m2[k] / (1.0 - b2.powi(step)));
                w[k] -= lr * mh / (vh.sqrt() + 1e-8);
            }
        }
        if epoch % 10 == 0 {
            eprintln!("epoch {epoch}: loss {:.4}", loss / train.len() as f64);
        }
    }
    w
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
    if split == 0 {
        return Err("usage: gomoku_order_fit DATASET... [-- REPORT.json...]".into());
    }
    let start = Gomoku::new(15, Rule::Freestyle)?;
    let mut positions = Vec::new();
    let mut cands = Vec::new();
    for dir in &args[..split] {
        let data = Dataset::open(std::path::Path::new(dir)).map_err(|e| format!("{dir}: {e}"))?;
        for game in data.games() {
            let game = game.map_err(|e| format!("{dir}: {e}"))?;
            let mut board = ShapeBoard::new(&start);
            for m in &game.moves {
                let p = m.action as usize;
                if m.kind == MoveKind::Searched && board.ply() >= 4 && quiet(&board) {
                    positions.extend(position(&board, p, 0, &mut cands));
                }
                board.make(p);
            }
        }
    }
    for path in args.iter().skip(split + 1) {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let report: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        for game in report["games"]
            .as_array()
            .ok_or(format!("{path}: no games"))?
        {
            let a_is_p1 = game["a_seat"].as_str() == Some("P1");
            let r = &game["report"];
            let first = r["start_moves"].as_u64().unwrap_or(0) as usize;
            let moves = r["moves"].as_array().ok_or(format!("{path}: no moves"))?;
            let mut board = ShapeBoard::new(&start);
            for (i, m) in moves.iter().enumerate() {
                let p = m.as_u64().ok_or(format!("{path}: a move is not a point"))? as usize;
                if i >= first && quiet(&board) {
                    let side = 1 + usize::from((board.to_move() == Player::P1) != a_is_p1);
                    positions.extend(position(&board, p, side, &mut cands));
                }
                board.make(p);
            }
        }
    }
    let held_out = |i: usize, p: &Position| p.source > 0 || i % 10 == 0;
    let train: Vec<&Position> = (positions.iter().enumerate())
        .filter(|&(i, p)| !held_out(i, p))
        .map(|(_, p)| p)
        .collect();
    eprintln!("{} positions, {} to train on", positions.len(), train.len());
    let w = fit(&train);
    let hundredths: Vec<i16> = w.iter().map(|x| (x * 100.0).round() as i16).collect();
    println!("pub const FITTED_ORDER: [i16; ORDER_FEATURES] = {hundredths:?};");
    let compiled: Vec<f32> = FITTED_ORDER.iter().map(|&x| f32::from(x)).collect();
    println!(
        "\n| moves | order | positions | {} |",
        RANKS.map(|r| r.1).join(" | ")
    );
    println!("|---|---|---:|{}", "---:|".repeat(RANKS.len()));
    for (source, name) in ["self-play, held out", "report's A", "report's B"]
        .iter()
        .enumerate()
    {
        let orders: [(&str, OrderOf); 3] = [
            (
                "weighed shapes",
                Box::new(|p| p.shapes.iter().map(|&s| s as f32).collect()),
            ),
            (
                "fitted now",
                Box::new(|p| p.features.iter().map(|f| score(f, &w)).collect()),
            ),
            (
                "compiled in",
                Box::new(|p| p.features.iter().map(|f| score(f, &compiled)).collect()),
            ),
        ];
        for (order, scores_of) in &orders {
            let mut counts = [0u32; RANKS.len()];
            let mut total = 0;
            for (i, pos) in positions.iter().enumerate() {
                if pos.source != source || !held_out(i, pos) {
                    continue;
                }
                let r = rank_of(&scores_of(pos), pos.played);
                counts[RANKS
                    .iter()
                    .position(|&(b, _)| r <= b)
                    .unwrap_or(RANKS.len() - 1)] += 1;
                total += 1;
            }
            if total == 0 {
                continue;
            }
            let mut so_far = 0;
            let shares: Vec<String> = counts
                .iter()
                .map(|&n| {
                    so_far += n;
                    format!("{:.0}%", 100.0 * f64::from(so_far) / f64::from(total))
                })
                .collect();
            println!("| {name} | {order} | {total} | {} |", shares.join(" | "));
        }
    }
    Ok(())
}
