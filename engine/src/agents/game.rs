//! One game between two players, every move checked.

use std::time::Instant;

use super::Agent;
use crate::game::{Action, Game, Outcome, Player};
use crate::mcts::RolloutStats;

/// A player lost without finishing: who, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Forfeit {
    pub player: Player,
    pub reason: String,
}

/// What happened in one game.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GameReport {
    /// Every move from the empty board, the start position's moves first.
    pub moves: Vec<Action>,
    /// How many of `moves` made the start position.
    pub start_moves: usize,
    pub outcome: Outcome,
    /// The final scores, for games that keep score (at a forfeit: the scores then).
    pub scores: Option<[u32; 2]>,
    pub forfeit: Option<Forfeit>,
    /// Per seat (P1, P2): moves chosen, thinking time, search iterations, rollout statistics.
    pub moves_made: [u32; 2],
    pub seconds: [f64; 2],
    pub iterations: [u64; 2],
    pub rollouts: [RolloutStats; 2],
}

/// Plays from `initial` (the empty board) after `start_moves` (checked for legality) to the
/// end: `agents[0]` plays P1, `agents[1]` P2. A player whose `new_game` or `choose` fails, or
/// whose move is illegal, loses the game with the reason recorded.
pub fn play_game<G: Game>(
    initial: &G,
    start_moves: &[Action],
    agents: [&mut dyn Agent<G>; 2],
) -> Result<GameReport, String> {
    let mut state = initial.clone();
    for (i, &a) in start_moves.iter().enumerate() {
        if !state.is_legal(a) || state.is_terminal() {
            return Err(format!(
                "start move {} ({}) is illegal",
                i + 1,
                state.format_action(a)
            ));
        }
        state.apply(a);
    }
    let mut moves = start_moves.to_vec();
    let mut report = GameReport {
        moves: Vec::new(),
        start_moves: start_moves.len(),
        outcome: Outcome::Draw,
        scores: None,
        forfeit: None,
        moves_made: [0; 2],
        seconds: [0.0; 2],
        iterations: [0; 2],
        rollouts: [RolloutStats::default(); 2],
    };
    let [a1, a2] = agents;
    let mut seats: [&mut dyn Agent<G>; 2] = [a1, a2];
    let mut forfeit = None;
    for (seat, agent) in seats.iter_mut().enumerate() {
        if let Err(e) = agent.new_game(&state, &moves) {
            forfeit = Some(Forfeit {
                player: [Player::P1, Player::P2][seat],
                reason: format!("could not start the game: {e}"),
            });
            break;
        }
    }
    while forfeit.is_none() && !state.is_terminal() {
        let mover = state.to_move();
        let seat = mover.index();
        let started = Instant::now();
        let choice = seats[seat].choose(&state, &moves);
        report.seconds[seat] += started.elapsed().as_secs_f64();
        match choice {
            Err(e) => {
                forfeit = Some(Forfeit {
                    player: mover,
                    reason: e.reason,
                })
            }
            Ok(c) if !state.is_legal(c.action) => {
                forfeit = Some(Forfeit {
                    player: mover,
                    reason: format!(
                        "illegal move {}: {}",
                        c.action,
                        state.illegal_reason(c.action)
                    ),
                })
            }
            Ok(c) => {
                report.moves_made[seat] += 1;
                report.iterations[seat] += c.iterations;
                report.rollouts[seat].add(c.rollouts);
                state.apply(c.action);
                moves.push(c.action);
            }
        }
    }
    report.outcome = match &forfeit {
        Some(f) => Outcome::win_for(f.player.opponent()),
        None => state
            .outcome()
            .expect("the loop ends at the end of the game"),
    };
    report.scores = state.scores();
    report.forfeit = forfeit;
    report.moves = moves;
    Ok(report)
}
