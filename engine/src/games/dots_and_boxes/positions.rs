//! State-S-like start positions of Dots and Boxes for matches (`engine positions`), as the
//! paper's State S (section 6), written as a positions file `arena::positions` reads.

use std::fmt::Write as _;

use super::analysis::{capture_edges, greedy_moves, random_edge};
use super::endgame::EndgameSolver;
use super::DotsAndBoxes;
use crate::game::{Action, Game};
use crate::game_record::MoveRecord;
use crate::rng::{derive_seed, Rng};

/// Seeded random play from `board` to `edges` drawn that takes a capture when there is one,
/// else draws an edge that hands nothing over, else any edge: the position and its moves.
pub(super) fn knowing_random_play(
    board: &DotsAndBoxes,
    edges: u32,
    rng: &mut Rng,
) -> (DotsAndBoxes, Vec<Action>) {
    let mut s = *board;
    let mut moves = Vec::new();
    while s.edges_drawn() < edges && !s.is_terminal() {
        let a = random_edge(greedy_moves(s.geometry(), s.edges()), rng) as Action;
        s.apply(a);
        moves.push(a);
    }
    (s, moves)
}

/// State-S-like positions, as the paper's State S (section 6): `edges` drawn, equal scores, no
/// box capturable at once. Attempt k plays [`knowing_random_play`] seeded with
/// `derive_seed(seed, k)`; the first `count` positions that qualify are kept, in order.
pub fn state_s_like(
    rows: usize,
    cols: usize,
    edges: u32,
    count: usize,
    seed: u64,
) -> Result<Vec<(DotsAndBoxes, Vec<Action>)>, String> {
    let board = DotsAndBoxes::new(rows, cols).map_err(|e| e.to_string())?;
    if edges as usize >= board.num_edges() {
        return Err(format!(
            "a {rows}x{cols} board has only {} edges",
            board.num_edges()
        ));
    }
    let mut out = Vec::new();
    let limit = 1000 * count as u64 + 10_000;
    for attempt in 0..limit {
        if out.len() == count {
            break;
        }
        let mut rng = Rng::new(derive_seed(seed, attempt));
        let (s, moves) = knowing_random_play(&board, edges, &mut rng);
        let [a, b] = s.scores().expect("scores");
        if a == b && capture_edges(s.geometry(), s.edges()) == 0 && !s.is_terminal() {
            out.push((s, moves));
        }
    }
    if out.len() < count {
        return Err(format!(
            "found only {} of {count} positions with {edges} edges, equal scores and nothing to take",
            out.len()
        ));
    }
    Ok(out)
}

/// The positions file text: a header saying how it was made, then one line a position, with
/// its player to move, scores and (with `solve`) its winner and margin under perfect play.
pub fn positions_file(
    positions: &[(DotsAndBoxes, Vec<Action>)],
    header: &str,
    solve: bool,
) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "# {line}");
    }
    let mut solver = positions
        .first()
        .filter(|_| solve)
        .map(|(s, _)| EndgameSolver::for_board(s));
    for (s, moves) in positions {
        let ids: Vec<String> = moves.iter().map(|a| a.to_string()).collect();
        let [a, b] = s.scores().expect("scores");
        let _ = write!(
            out,
            "{}  # to_move={} scores={a}-{b}",
            ids.join(" "),
            s.to_move().number()
        );
        if let Some(solver) = solver.as_mut() {
            let margin = solver.final_margin(s);
            let winner = match margin.signum() {
                0 => "draw".to_string(),
                1 => s.to_move().number().to_string(),
                _ => s.to_move().opponent().number().to_string(),
            };
            let _ = write!(out, " winner={winner} margin={margin:+}");
        }
        out.push('\n');
    }
    out
}

/// Free edges of `state`.
pub fn free_edges(state: &DotsAndBoxes) -> u32 {
    state.geometry().num_edges as u32 - state.edges_drawn()
}

/// The first position of a game (`moves` played from `start`) with at most `free` free edges,
/// or where the moves or the game end before that.
pub fn first_with_free(start: DotsAndBoxes, moves: &[MoveRecord], free: u32) -> DotsAndBoxes {
    let mut state = start;
    for m in moves {
        if state.is_terminal() || free_edges(&state) <= free {
            break;
        }
        state.apply(m.action);
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::positions::read_positions;

    #[test]
    fn generated_positions_qualify_and_read_back_with_their_winners() {
        let found = state_s_like(5, 5, 40, 6, 1).unwrap();
        assert_eq!(found.len(), 6);
        for (s, moves) in &found {
            assert_eq!(s.edges_drawn(), 40);
            let [a, b] = s.scores().unwrap();
            assert_eq!(a, b);
            assert!(a > 0, "40 edges without a closed box cannot happen on 5x5");
            assert_eq!(capture_edges(s.geometry(), s.edges()), 0);
            assert_eq!(DotsAndBoxes::from_actions(5, 5, moves).unwrap(), *s);
        }
        // Reproducible.
        assert_eq!(state_s_like(5, 5, 40, 6, 1).unwrap(), found);
        let text = positions_file(&found, "test positions\nsecond line", true);
        assert!(text.starts_with("# test positions\n# second line\n"));
        let path = std::env::temp_dir().join(format!("positions-{}.txt", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let board = DotsAndBoxes::new(5, 5).unwrap();
        let read = read_positions(&path, &board).unwrap();
        assert_eq!(read.len(), 6);
        let mut solver = EndgameSolver::for_board(&board);
        for (p, (s, moves)) in read.iter().zip(&found) {
            assert_eq!(&p.moves, moves);
            assert_eq!(p.perfect, Some(solver.outcome(s)));
        }
        // Errors name the file, the line and the move.
        std::fs::write(&path, "0 1 2\n0 0\n").unwrap();
        let e = read_positions(&path, &board).unwrap_err();
        assert!(
            e.contains(&format!("{}:2: move 2", path.display())) && e.contains("already drawn"),
            "{e}"
        );
        std::fs::write(&path, "# only a comment\n").unwrap();
        assert!(read_positions(&path, &board)
            .unwrap_err()
            .contains("no positions"));
        std::fs::write(&path, "5 # winner=3\n").unwrap();
        assert!(read_positions(&path, &board)
            .unwrap_err()
            .contains(":1: winner="));
        std::fs::remove_file(&path).unwrap();
    }
}
