//! How often a player keeps a win: from the horizon of each game of an `engine label` dataset
//! (the first position of perfect play) that perfect play wins for the player to move, the
//! player chooses a move and the exact solver says whether it still wins.
//!
//! `cargo run --release -p engine --example keeps_wins -- LABELLED SPEC [GAMES]`
//!
//! Kept because it makes the figures of docs/lab/dots-and-boxes.md on how often a player keeps a win.

use std::path::Path;

use engine::agents::parse_spec;
use engine::game::{Game, Outcome};
use engine::games::dots_and_boxes::endgame::EndgameSolver;
use engine::games::dots_and_boxes::spec::BuildDots;
use engine::games::DotsAndBoxes;
use engine::record::{Dataset, MoveKind};
use engine::registry::Lookup;

/// Positions the solver may search to check one position (far more than 36 free edges need).
const NODES: u64 = 50_000_000;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, spec, games) = match &args[..] {
        [dir, spec] => (dir, spec, 60),
        [dir, spec, games] => (
            dir,
            spec,
            games
                .parse()
                .map_err(|_| format!("GAMES: not a number: {games}"))?,
        ),
        _ => return Err("usage: keeps_wins LABELLED SPEC [GAMES]".into()),
    };
    let dataset = Dataset::open(Path::new(dir)).map_err(|e| e.to_string())?;
    let board: DotsAndBoxes = dataset.spec().start()?;
    let mut player = parse_spec(spec)?.build_dots(&board)?;
    let mut solver = EndgameSolver::new(board.rows(), board.cols(), 22);
    let (mut won, mut kept) = (0, 0);
    for game in dataset.games().take(games) {
        let game = game.map_err(|e| e.to_string())?;
        let Some(horizon) = game.moves.iter().position(|m| m.kind == MoveKind::Solved) else {
            continue;
        };
        let mut state = board;
        let moves: Vec<_> = game.moves[..horizon].iter().map(|m| m.action).collect();
        for &a in &moves {
            state.apply(a);
        }
        let win = Outcome::win_for(state.to_move());
        if solver.try_outcome(&state, NODES) != Some(win) {
            continue;
        }
        won += 1;
        player.new_game(&board, &[]).map_err(|e| e.to_string())?;
        let choice = player.choose(&state, &moves).map_err(|e| e.to_string())?;
        let mut after = state;
        after.apply(choice.action);
        let still = if after.is_terminal() {
            after.outcome()
        } else {
            solver.try_outcome(&after, NODES)
        };
        kept += u32::from(still == Some(win));
    }
    println!("{spec}: kept {kept} of {won} won positions");
    Ok(())
}
