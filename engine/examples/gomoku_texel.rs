//! Fits the weights of `pvs`'s evaluation to game results (Texel's method, as chess engines
//! tune theirs): reads the JSON reports of `engine match` games of Gomoku, takes every quiet
//! position (no five point and no live three on either side, the positions the evaluation
//! scores on its own), and finds the weights under which a logistic function of the
//! evaluation best predicts the side to move's result. The live-four weights (the scores of a
//! live three on the board) have no quiet position to learn from and keep their values.
//! The games of one start position in five are held out, and their loss is reported for the
//! starting and the fitted weights, so that a fit that only learns its own games shows
//! (`--hold-out game`: every fifth game instead, as the first version did; then a game's
//! seat-swapped twin may be fitted, and the held-out loss flatters).
//!
//! `cargo run --release -p engine --example gomoku_texel -- OUT.json [--from WEIGHTS.json]
//! [--hold-out position|game] REPORT.json...` (OUT.json: a weights file of `tune`'s set `eval`, for
//! `pvs:weights=OUT.json`, never overwritten; the fit starts from `--from`'s weights, by default
//! `pvs`'s own, and keeps their live-four weights)
//!
//! Kept because it makes the fitted evaluation `best` plays without a net (docs/gomoku.md, docs/gomoku-results.md).

use engine::game::{Action, Game};
use engine::games::gomoku::patterns::Shape;
use engine::games::gomoku::pvs::EvalWeights;
use engine::games::gomoku::shape_board::ShapeBoard;
use engine::games::gomoku::tuning::{load_eval, EVAL};
use engine::games::gomoku::{Gomoku, Rule};
use engine::tuning::WeightsFile;

/// The shapes weighed (one to live four, by [`Shape`] order) and the features of a position:
/// the side to move's counts, then the opponent's, negated (the evaluation's signs).
const SHAPES: usize = 7;
const FEATURES: usize = 2 * SHAPES;

/// The features fitted: all but the two live-four counts, which are 0 in quiet positions.
fn fitted(i: usize) -> bool {
    i % SHAPES != SHAPES - 1
}

struct Sample {
    features: [f64; FEATURES],
    /// The side to move's result: 1 won, 0 lost, 0.5 drawn.
    result: f64,
}

impl Sample {
    /// The side to move's chance to win under `P(win) = sigmoid(eval / scale)`, the
    /// evaluation's weights `w`.
    fn win_chance(&self, w: &[f64; FEATURES], scale: f64) -> f64 {
        let eval: f64 = self.features.iter().zip(w).map(|(f, w)| f * w).sum();
        1.0 / (1.0 + (-eval / scale).exp())
    }
}

/// The quiet positions of one game's report (`game`, as errors name it), after its opening.
fn samples_of(
    report: &serde_json::Value,
    file: &str,
    game: &str,
    out: &mut Vec<Sample>,
) -> Result<(), String> {
    let moves: Vec<Action> = report["moves"]
        .as_array()
        .ok_or(format!("{file}: {game}: no moves"))?
        .iter()
        .map(|m| m.as_u64().and_then(|m| Action::try_from(m).ok()))
        .collect::<Option<_>>()
        .ok_or(format!("{file}: {game}: a move that is not a point number"))?;
    let start = report["start_moves"].as_u64().unwrap_or(0) as usize;
    let winner = match report["outcome"].as_str() {
        Some("P1Win") => Some(0),
        Some("P2Win") => Some(1),
        Some("Draw") => None,
        other => return Err(format!("{file}: {game}: an outcome of {other:?}")),
    };
    let mut g = Gomoku::new(15, Rule::Freestyle)?;
    for (i, &m) in moves.iter().enumerate() {
        if !g.is_legal(m) {
            return Err(format!("{file}: {game}: move {} is not legal", i + 1));
        }
        g.apply(m);
        if i + 1 < start || g.is_terminal() {
            continue;
        }
        let board = ShapeBoard::new(&g);
        let me = board.to_move();
        let opp = me.opponent();
        let tactical = [me, opp]
            .iter()
            .any(|&p| board.has_five_point(p) || board.count(p, Shape::LiveFour) > 0);
        if tactical {
            continue;
        }
        let mut features = [0.0; FEATURES];
        for s in 0..SHAPES {
            features[s] = f64::from(board.count(me, Shape::ALL[s + 1]));
            features[SHAPES + s] = -f64::from(board.count(opp, Shape::ALL[s + 1]));
        }
        let result = match winner {
            None => 0.5,
            Some(w) if w == me.index() => 1.0,
            Some(_) => 0.0,
        };
        out.push(Sample { features, result });
    }
    Ok(())
}

/// The mean cross-entropy of the results under `P(win) = sigmoid(eval / scale)`.
fn loss(samples: &[Sample], w: &[f64; FEATURES], scale: f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = s.win_chance(w, scale).clamp(1e-9, 1.0 - 1e-9);
            -(s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len() as f64
}

/// The scale that fits the starting weights best (a golden-section search over its log).
fn fit_scale(samples: &[Sample], w: &[f64; FEATURES]) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 12.0f64);
    for _ in 0..60 {
        let a = lo + (hi - lo) * 0.382;
        let b = lo + (hi - lo) * 0.618;
        if loss(samples, w, a.exp()) < loss(samples, w, b.exp()) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// Gradient descent (Adam) on the logs of the fitted weights, which keeps each positive and
/// moves small and large weights alike by shares.
fn fit(samples: &[Sample], start: &[f64; FEATURES], scale: f64, steps: usize) -> [f64; FEATURES] {
    // Only the fitted weights (positive, checked) go through logarithms.
    let mut theta = start.map(|w| w.max(f64::MIN_POSITIVE).ln());
    let (mut m, mut v) = ([0.0; FEATURES], [0.0; FEATURES]);
    let (rate, b1, b2) = (0.02, 0.9, 0.999);
    for step in 1..=steps {
        let w = weights_of(start, &theta);
        let mut grad = [0.0; FEATURES];
        for s in samples {
            let p = s.win_chance(&w, scale);
            for i in 0..FEATURES {
                grad[i] += (p - s.result) * s.features[i] * w[i] / scale;
            }
        }
        for i in (0..FEATURES).filter(|&i| fitted(i)) {
            let g = grad[i] / samples.len() as f64;
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - b1.powi(step as i32));
            let vh = v[i] / (1.0 - b2.powi(step as i32));
            theta[i] -= rate * mh / (vh.sqrt() + 1e-12);
        }
    }
    weights_of(start, &theta)
}

/// The weights: the fitted ones from their logarithms `theta`, the others as they start.
fn weights_of(start: &[f64; FEATURES], theta: &[f64; FEATURES]) -> [f64; FEATURES] {
    let mut w = *start;
    for i in (0..FEATURES).filter(|&i| fitted(i)) {
        w[i] = theta[i].exp();
    }
    w
}

fn main() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gomoku_texel OUT.json [--from WEIGHTS.json] [--hold-out position|game] \
                 REPORT.json...";
    let mut default = EvalWeights::DEFAULT;
    if let Some(at) = args.iter().position(|a| a == "--from") {
        let file = args.get(at + 1).ok_or(usage)?.clone();
        default = load_eval(std::path::Path::new(&file))?;
        args.drain(at..at + 2);
    }
    let mut by_position = true;
    if let Some(at) = args.iter().position(|a| a == "--hold-out") {
        by_position = match args.get(at + 1).map(String::as_str) {
            Some("position") => true,
            Some("game") => false,
            other => {
                let given = other.unwrap_or("nothing");
                return Err(format!("--hold-out is position or game, not '{given}'"));
            }
        };
        args.drain(at..at + 2);
    }
    let out = args.first().ok_or(usage)?;
    if args.len() < 2 {
        return Err(usage.into());
    }
    if std::path::Path::new(out).exists() {
        return Err(format!("{out} exists: choose another file"));
    }
    let (mut train, mut held_out) = (Vec::new(), Vec::new());
    let mut games = 0u64;
    for file in &args[1..] {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        let report: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
        let game = &report["game"];
        let freestyle_15 =
            game["game"] == "gomoku" && game["size"] == 15 && game["rule"] == "freestyle";
        if !freestyle_15 {
            return Err(format!(
                "{file}: not a 15x15 freestyle Gomoku match ({game})"
            ));
        }
        for game in report["games"]
            .as_array()
            .ok_or(format!("{file}: no games"))?
        {
            // By start position, the twin of a game (the same opening with the seats swapped,
            // the same moves where the players are alike) is never fitted while it is held out.
            let position = game["position"].as_u64().unwrap_or(games);
            let key = if by_position { position } else { games };
            let into = if key % 5 == 4 {
                &mut held_out
            } else {
                &mut train
            };
            // A forfeit's result came from a rule, not from the board.
            if game["report"]["forfeit"].is_null() {
                let name = format!("game {}", game["index"]);
                samples_of(&game["report"], file, &name, into)?;
            }
            games += 1;
        }
    }
    let mut start = [0.0; FEATURES];
    for (w, from) in start.iter_mut().zip(default.to_vec()) {
        *w = f64::from(from);
    }
    if train.is_empty() || held_out.is_empty() {
        return Err(format!(
            "{games} games gave {} quiet positions to fit and {} to hold out: both need some \
             (the games of every fifth start position, or with --hold-out game every fifth \
             game, are held out)",
            train.len(),
            held_out.len()
        ));
    }
    if let Some(i) = (0..FEATURES).find(|&i| fitted(i) && start[i] <= 0.0) {
        return Err(format!(
            "the starting weight {} is {}: the fit works on logarithms, so each must be positive",
            EvalWeights::names()[i],
            start[i]
        ));
    }
    let scale = fit_scale(&train, &start);
    println!(
        "{games} games: {} quiet positions to fit, {} held out; scale {scale:.1}",
        train.len(),
        held_out.len()
    );
    let fitted_weights = fit(&train, &start, scale, 600);
    println!(
        "loss (fitted games / held out): starting weights {:.4} / {:.4}, fitted {:.4} / {:.4}",
        loss(&train, &start, scale),
        loss(&held_out, &start, scale),
        loss(&train, &fitted_weights, scale),
        loss(&held_out, &fitted_weights, scale)
    );
    let names = EvalWeights::names();
    for (i, name) in names.iter().enumerate() {
        println!(
            "  {name:<18} {:>8.1} -> {:>8.1}",
            start[i], fitted_weights[i]
        );
    }
    let values: Vec<f32> = fitted_weights.iter().map(|&w| w.round() as f32).collect();
    EvalWeights::from_slice(&values).map_err(|e| format!("the fitted weights: {e}"))?;
    WeightsFile::new(&EVAL, &values).save(std::path::Path::new(out))?;
    println!("wrote {out}");
    Ok(())
}
