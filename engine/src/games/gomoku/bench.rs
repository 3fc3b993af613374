//! `engine bench --game gomoku`: random rollouts a second on the empty board, and MCTS
//! iterations a second (plain, and the engine's candidates next to the stones) from the empty
//! board and from a middle-game position.

use super::search::{GomokuKnowledge, GomokuRollout};
use super::Gomoku;
use crate::bench::{mcts_figures, random_games_figure, BenchOptions, Figure};
use crate::game::Game;
use crate::mcts::{Search, Ucb};

/// Stones of the middle-game position (on any size from 15 up): 20 stones about the centre,
/// black to move, nobody with four.
const MIDDLE: [&str; 20] = [
    "h8", "i9", "g9", "h9", "h10", "g8", "i7", "j8", "f9", "g10", "i10", "j10", "g7", "f6", "j9",
    "k10", "e8", "h6", "f7", "e6",
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

pub fn figures(start: &Gomoku, opts: &BenchOptions) -> Vec<Figure> {
    let mut out = vec![random_games_figure(
        "random rollouts from the empty board, 1 thread",
        start,
        opts,
        20_000,
    )];
    let positions = [
        ("empty board", Some(*start)),
        ("middle game", middle_game(start)),
    ];
    for (label, position) in positions {
        let Some(position) = position else { continue };
        for (name, knowledge) in [
            ("plain MCTS", GomokuKnowledge::default()),
            ("the engine's MCTS (near=1)", GomokuKnowledge::ENGINE),
        ] {
            out.extend(mcts_figures(
                &format!("{name}, {label}"),
                &position,
                opts,
                |config| {
                    let cp = config.cp;
                    Search::new(config, Ucb::new(cp), GomokuRollout { knowledge })
                },
            ));
        }
    }
    out
}
