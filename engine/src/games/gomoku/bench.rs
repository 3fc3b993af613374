//! `engine bench --game gomoku`: random rollouts a second on the empty board, and MCTS
//! iterations a second (plain, the paper's and the engine's) from the empty board (plain
//! only), a three-stone opening and a middle-game position; the principal variation search's
//! nodes a second and depth in the middle game (one thread and `--threads`) beside the scanning
//! rival's, the threat-space searches over the threat suite (nodes a second, share solved,
//! time), and the incremental board's moves a second.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::net::PatternNet;
use super::patterns::PatternWeights;
use super::pvs::{Pvs, PvsConfig};
use super::rival::AlphaBeta;
use super::search::GomokuKnowledge;
use super::shape_board::ShapeBoard;
use super::threat_space::{threat_suite, ThreatKind, ThreatSearch};
use super::Gomoku;
use crate::agents::Agent;
use crate::game::Game;
use crate::mcts::bench::{mcts_figures, random_games_figure, BenchOptions, Figure};

/// Stones of the middle-game position (on any size from 15 up): the first 20 moves of a game of
/// the rival against itself at 100 ms a move, black to move against white's three g12-i12, with
/// neither side's win in sight (the engine's best move's value -0.11 after 20,000 iterations).
/// (An earlier position here was a forced win for black, which let the tree end its iterations
/// in solved lines and flattered the figures.)
const MIDDLE: [&str; 20] = [
    "h8", "i9", "h10", "h11", "g9", "i11", "f10", "e11", "i7", "j6", "h6", "i10", "h9", "h7", "i8",
    "i12", "i13", "g12", "f13", "h12",
];

/// Stones of the searcher's middle-game position: 22 moves of a game of `pvs` against
/// PentaZen (1 s a turn), white to move, undecided for both (PentaZen scored it 0, `pvs` +119 at
/// depth 10). [`MIDDLE`] is lost for its side to move within `pvs`'s horizon, which ends the
/// iterations early: a depth figure there measures nothing.
const SEARCHER_MIDDLE: [&str; 22] = [
    "h8", "h9", "i7", "g9", "i9", "g7", "i8", "i10", "g8", "j8", "i6", "i5", "h7", "j5", "f8",
    "e8", "h5", "h6", "f5", "g6", "g4", "j7",
];

/// `moves` played from `start`, if its board is at least `min_size` a side and the game goes
/// on after them.
fn after(start: &Gomoku, moves: &[&str], min_size: usize) -> Option<Gomoku> {
    if start.size() < min_size {
        return None;
    }
    let mut g = *start;
    for m in moves {
        g.apply(g.parse_legal_action(m).ok()?);
    }
    (!g.is_terminal()).then_some(g)
}

/// The middle-game position ([`MIDDLE`]) on `start`'s board, if it is large enough.
pub fn middle_game(start: &Gomoku) -> Option<Gomoku> {
    after(start, &MIDDLE, 15)
}

pub fn figures(start: &Gomoku, opts: &BenchOptions) -> Result<Vec<Figure>, String> {
    let mut out = vec![random_games_figure(
        "random rollouts from the empty board, 1 thread",
        start,
        opts,
        100_000,
    )];
    // The searches with knowledge start from the third stone, not the empty board: there
    // their only candidate is the centre, and a root with one move is played at once.
    let positions = [
        ("empty board", Some(*start)),
        ("opening h8 h9 i10", after(start, &["h8", "h9", "i10"], 10)),
        ("middle game", middle_game(start)),
    ];
    if let Some(middle) = middle_game(start) {
        out.extend(searcher_figures(&middle, opts)?);
    }
    for (label, position) in positions {
        let Some(position) = position else { continue };
        for (name, knowledge) in [
            ("plain MCTS", GomokuKnowledge::default()),
            ("the paper's MCTS (heuristic=paper)", GomokuKnowledge::PAPER),
            (
                "the engine's MCTS (heuristic=engine)",
                GomokuKnowledge::ENGINE,
            ),
        ] {
            if position.stones() == 0 && knowledge != GomokuKnowledge::default() {
                continue;
            }
            out.extend(mcts_figures(
                &format!("{name}, {label}"),
                &position,
                opts,
                |config| knowledge.search(config),
            ));
        }
    }
    Ok(out)
}

/// The searcher's figures in the middle game: `pvs` nodes a second and the depth it completes
/// in a second (one thread and `opts.threads`) in its own middle game ([`SEARCHER_MIDDLE`]),
/// VCF and VCT nodes a second (both sides to move, no node limit), and make-and-unmake pairs
/// a second of the incremental board.
fn searcher_figures(middle: &Gomoku, opts: &BenchOptions) -> Result<Vec<Figure>, String> {
    let mut out = Vec::new();
    // With `--model`, a pattern net's figures follow the weighed evaluation's, one thread.
    let net = match &opts.model {
        Some(path) => {
            let net = PatternNet::load(path)?;
            net.check_fits(middle.rule(), middle.size())
                .map_err(|e| format!("model {}: {e}", path.display()))?;
            Some(Arc::new(net))
        }
        None => None,
    };
    let mut runs: Vec<(usize, Option<Arc<PatternNet>>)> = vec![(1, None)];
    if opts.threads > 1 {
        runs.push((opts.threads, None));
    }
    if net.is_some() {
        runs.push((1, net.clone()));
    }
    let empty = Gomoku::new(middle.size(), middle.rule()).expect("the board's own size");
    let position = after(&empty, &SEARCHER_MIDDLE, 15).unwrap_or(*middle);
    for (t, model) in runs {
        let (mut nodes, mut depth, mut seconds) = (0u64, 0i32, 0f64);
        let with_net = if model.is_some() {
            " with the pattern net"
        } else {
            ""
        };
        for _ in 0..opts.repeats.max(1) {
            let mut config = PvsConfig::new(Duration::from_secs(1));
            config.model = model.clone();
            config.threads = t;
            let mut pvs = Pvs::new("bench", config);
            let started = Instant::now();
            pvs.best_move_within(&position, Duration::from_secs(1));
            seconds += started.elapsed().as_secs_f64();
            let (n, d) = pvs.last_search();
            nodes += n;
            depth = depth.max(d);
        }
        let label = format!("{t} thread{}{with_net}", if t == 1 { "" } else { "s" });
        out.push(Figure::new(
            format!("pvs, middle game, {label}"),
            nodes as f64 / seconds,
            "nodes/s",
        ));
        out.push(Figure::new(
            format!("pvs depth completed in 1 s, middle game, {label}"),
            f64::from(depth),
            "plies",
        ));
    }
    // The scanning alpha-beta (the rival: a board scan a leaf), for the incremental board's
    // gain.
    let mut rival = AlphaBeta::new("rival", Duration::from_secs(1), 64, PatternWeights::DEFAULT);
    let started = Instant::now();
    if let Ok(choice) = rival.choose(middle, &[]) {
        out.push(Figure::new(
            "alphabeta (the rival: scanning evaluation), middle game, 1 thread",
            choice.iterations as f64 / started.elapsed().as_secs_f64(),
            "nodes/s",
        ));
    }
    out.extend(suite_figures()?);
    let mut board = ShapeBoard::new(middle);
    let mut points = Vec::new();
    board.candidates(&mut points);
    out.push(Figure::new(
        "incremental board make and unmake, middle game, 1 thread",
        make_unmake_rate(&mut board, &points, false),
        "pairs/s",
    ));
    if let Some(net) = net {
        let mut board = ShapeBoard::new(middle).with_net(net)?;
        out.push(Figure::new(
            "incremental board make and unmake with the pattern net's sums brought up after each make (as at a leaf), middle game, 1 thread",
            make_unmake_rate(&mut board, &points, true),
            "pairs/s",
        ));
    }
    Ok(out)
}

/// Moves made and taken back a second on `board`, each of `points` in turn, for 300 ms; with
/// `sync`, the net's sums brought up after each make.
fn make_unmake_rate(board: &mut ShapeBoard, points: &[usize], sync: bool) -> f64 {
    let started = Instant::now();
    let mut pairs = 0u64;
    while started.elapsed() < Duration::from_millis(300) {
        for &p in points {
            board.make(p);
            if sync {
                board.sync_net();
            }
            board.unmake();
        }
        pairs += points.len() as u64;
    }
    pairs as f64 / started.elapsed().as_secs_f64()
}

/// VCF and VCT over the threat suite ([`threat_suite`]) at the root limits of `pvs`: nodes a
/// second, the share solved, and the mean time a position.
fn suite_figures() -> Result<Vec<Figure>, String> {
    let suite = threat_suite()?;
    let config = PvsConfig::new(Duration::from_secs(1));
    let mut out = Vec::new();
    // (the search's name, the positions', ...)
    for (search_name, name, kind, limit) in [
        ("VCF", "VCF", ThreatKind::Vcf, config.vcf_nodes),
        ("VCT", "VCT", ThreatKind::Vct, config.vct_nodes),
    ] {
        let (mut total, mut solved, mut nodes, mut seconds) = (0u32, 0u32, 0u64, 0f64);
        let mut search = ThreatSearch::new();
        for s in suite.iter().filter(|s| s.kind == kind) {
            let mut b = ShapeBoard::new(&s.position);
            search.clear();
            let started = Instant::now();
            let found = search.find(&mut b, kind, 30, limit, None);
            seconds += started.elapsed().as_secs_f64();
            nodes += search.nodes();
            total += 1;
            solved += u32::from(found.is_some());
        }
        let n = f64::from(total.max(1));
        out.push(Figure::new(
            format!("{search_name} search, the suite's {total} {name} positions, 1 thread"),
            nodes as f64 / seconds.max(1e-9),
            "nodes/s",
        ));
        out.push(Figure::new(
            format!("{name} positions solved by the {search_name} search within pvs's root limit ({limit} nodes)"),
            100.0 * f64::from(solved) / n,
            "%",
        ));
        out.push(Figure::new(
            format!("{search_name} search, mean time a suite position"),
            1000.0 * seconds / n,
            "ms",
        ));
    }
    Ok(out)
}
