//! `engine bench --game gomoku`: random rollouts a second on the empty board, and MCTS
//! iterations a second (plain, the paper's and the engine's) from the empty board (plain
//! only), a three-stone opening and a middle-game position.

use super::search::GomokuKnowledge;
use super::Gomoku;
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

/// The middle-game position on `start`'s board, if it is large enough.
pub fn middle_game(start: &Gomoku) -> Option<Gomoku> {
    if start.size() < 15 {
        return None;
    }
    let mut g = *start;
    for m in MIDDLE {
        let a = g.parse_legal_action(m).ok()?;
        g.apply(a);
        if g.is_terminal() {
            return None;
        }
    }
    Some(g)
}

/// The opening h8 h9 i10 (white to move), on boards from 10 up.
fn opening(start: &Gomoku) -> Option<Gomoku> {
    let mut g = *start;
    for m in ["h8", "h9", "i10"] {
        g.apply(g.parse_legal_action(m).ok()?);
    }
    (start.size() >= 10).then_some(g)
}

pub fn figures(start: &Gomoku, opts: &BenchOptions) -> Vec<Figure> {
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
        ("opening h8 h9 i10", opening(start)),
        ("middle game", middle_game(start)),
    ];
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
    out
}
