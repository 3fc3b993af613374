//! One game between two players, every move checked.

use std::time::Instant;

use super::Agent;
use crate::game::{Action, Game, Outcome, Player};
use crate::game_record::{recorded_scores, GameRecord, MoveKind, MoveRecord, RootStat};
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
    /// Per seat, the moves that took search iterations (not a solver's or forced move).
    pub searched_moves: [u32; 2],
    pub rollouts: [RolloutStats; 2],
    /// Per seat, the moves whose search gave a win probability, and the first of them (1-based)
    /// at which the estimate reached [`MATCH_POINT`]: the paper's "match point round".
    pub estimated_moves: [u32; 2],
    pub match_point: [Option<u32>; 2],
    /// For each move made after the start position, what the search behind it did (no root
    /// moves when no tree search chose it): what `engine match --records` keeps.
    #[serde(skip)]
    pub searches: Vec<MoveSearch>,
    /// For each move made after the start position: the milliseconds its player took, and
    /// what the player said of it ([`Choice::note`](super::Choice::note)), where it said.
    pub move_ms: Vec<f64>,
    pub notes: Vec<Option<String>>,
}

/// The search behind one move of a game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveSearch {
    pub iterations: u64,
    /// Every root move of the tree search that chose the move; for a search without a tree
    /// that gave an estimate (alpha-beta), the chosen move alone with that estimate
    /// ([`RootStat::estimate`]); empty otherwise.
    pub root: Vec<RootStat>,
}

impl GameReport {
    /// The game as a dataset record (what `engine match --records` and `selfplay run --player`
    /// write): the start position's moves as given, every later move with its search's
    /// iterations and root moves. `None` for a game lost by forfeit, which ends before the end
    /// of the game.
    pub fn to_record<G: Game>(&self, initial: &G, index: u64, seed: u64) -> Option<GameRecord> {
        if self.forfeit.is_some() {
            return None;
        }
        let mut state = initial.clone();
        let mut moves = Vec::with_capacity(self.moves.len());
        for (i, &a) in self.moves.iter().enumerate() {
            let search = i
                .checked_sub(self.start_moves)
                .and_then(|k| self.searches.get(k));
            moves.push(MoveRecord {
                action: a,
                player: state.to_move(),
                kind: if i < self.start_moves {
                    MoveKind::Given
                } else {
                    MoveKind::Searched
                },
                iterations: search.map_or(0, |s| s.iterations.min(u32::MAX as u64) as u32),
                root: search.map_or_else(Vec::new, |s| s.root.clone()),
            });
            state.apply(a);
        }
        Some(GameRecord {
            index,
            seed,
            outcome: self.outcome,
            scores: recorded_scores(&state, self.outcome),
            moves,
        })
    }
}

/// The win probability at which a player's game counts as won (the MG-PEO paper's 90%).
pub const MATCH_POINT: f64 = 0.9;

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
        searched_moves: [0; 2],
        seconds: [0.0; 2],
        iterations: [0; 2],
        rollouts: [RolloutStats::default(); 2],
        estimated_moves: [0; 2],
        match_point: [None; 2],
        searches: Vec::new(),
        move_ms: Vec::new(),
        notes: Vec::new(),
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
        let took = started.elapsed().as_secs_f64();
        report.seconds[seat] += took;
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
                report.searched_moves[seat] += u32::from(c.iterations > 0);
                report.rollouts[seat].add(c.rollouts);
                if let Some(p) = c.win_probability {
                    report.estimated_moves[seat] += 1;
                    if p >= MATCH_POINT && report.match_point[seat].is_none() {
                        report.match_point[seat] = Some(report.estimated_moves[seat]);
                    }
                }
                // A tree search's root moves; else a search's estimate of the move it chose
                // (alpha-beta), so that its value is kept with the move.
                let root = match seats[seat].last_search() {
                    Some(result) => RootStat::of_search(result),
                    None => c
                        .win_probability
                        .filter(|_| c.iterations > 0)
                        .map(|p| vec![RootStat::estimate(c.action, mover, p)])
                        .unwrap_or_default(),
                };
                report.searches.push(MoveSearch {
                    iterations: c.iterations,
                    root,
                });
                report.move_ms.push(took * 1000.0);
                report.notes.push(c.note);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{AgentError, Choice};
    use crate::game_record::ESTIMATE_VISITS;
    use crate::games::TicTacToe;

    /// Plays the first legal move and reports the next of its scripted estimates.
    struct Scripted {
        estimates: Vec<Option<f64>>,
        next: usize,
    }

    impl Agent<TicTacToe> for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }

        fn new_game(&mut self, _: &TicTacToe, _: &[Action]) -> Result<(), AgentError> {
            Ok(())
        }

        fn choose(&mut self, state: &TicTacToe, _: &[Action]) -> Result<Choice, AgentError> {
            let mut moves = Vec::new();
            state.legal_actions(&mut moves);
            let estimate = self.estimates.get(self.next).copied().flatten();
            self.next += 1;
            Ok(Choice {
                win_probability: estimate,
                ..Choice::plain(moves[0])
            })
        }
    }

    /// A search without root statistics that gives an estimate (alpha-beta) keeps it with its
    /// move as one root entry; a move without a search, or without an estimate, keeps none.
    #[test]
    fn an_alpha_beta_estimate_is_kept_with_its_move() {
        struct Estimating;
        impl Agent<TicTacToe> for Estimating {
            fn name(&self) -> String {
                "estimating".into()
            }
            fn new_game(&mut self, _: &TicTacToe, _: &[Action]) -> Result<(), AgentError> {
                Ok(())
            }
            fn choose(&mut self, state: &TicTacToe, _: &[Action]) -> Result<Choice, AgentError> {
                let mut moves = Vec::new();
                state.legal_actions(&mut moves);
                Ok(Choice::scored(moves[0], 50, 100, 10_000, 100.0))
            }
        }
        let start = TicTacToe::new();
        let mut p1 = Estimating;
        let mut p2 = Scripted {
            estimates: vec![Some(0.3); 5],
            next: 0,
        };
        let report = play_game(&start, &[], [&mut p1, &mut p2]).unwrap();
        let record = report.to_record(&start, 0, 1).unwrap();
        // P1's moves: score 100 at scale 100 is a win chance of 1/(1+e^-1), about 0.731.
        let first = &record.moves[0];
        assert_eq!(first.root.len(), 1);
        let r = first.root[0];
        assert_eq!((r.action, r.visits), (first.action, ESTIMATE_VISITS));
        assert_eq!((r.p1_wins, r.p2_wins), (731, 269));
        assert!((r.value_for(Player::P1) - 0.462).abs() < 1e-9);
        // P2's scripted moves gave an estimate without a search (no iterations): nothing kept.
        assert!(record.moves[1].root.is_empty());
    }

    /// The match point is the first searched move (moves without an estimate not counted) whose
    /// estimate reaches 90%; a player never that sure has none.
    #[test]
    fn match_point_is_the_first_sure_searched_move() {
        let start = TicTacToe::new();
        let mut p1 = Scripted {
            estimates: vec![None, Some(0.5), Some(0.91), Some(0.2), Some(0.95)],
            next: 0,
        };
        let mut p2 = Scripted {
            estimates: vec![Some(0.1), Some(0.89999)],
            next: 0,
        };
        let report = play_game(&start, &[], [&mut p1, &mut p2]).unwrap();
        assert_eq!(report.estimated_moves[0], report.moves_made[0] - 1);
        assert_eq!(report.match_point, [Some(2), None]);
    }
}
