//! Exactly labelled games for a late value net (`engine label`): a recorded game is followed to a
//! position some free edges above a horizon, played on to the horizon by the chain rollouts'
//! random moves (a capture that leads nowhere, else a safe edge or a short chain's sacrifice,
//! else an opened chain's boxes), and finished by perfect play, so that every position from the
//! horizon on carries its exact outcome as the game's result.
//!
//! Why: the product's chain rollouts name the perfect-play winner of a 36-free-edge position of
//! its own games barely more often than a coin (56% for one rollout, 60% for the majority of 64;
//! `docs/players.md`), while the exact solver needs about a third of a second there. A net that
//! learns those outcomes can stand in for the solver at the rollouts' horizon. The random moves
//! before the horizon make the positions look like the ones a rollout reaches from the tree's
//! leaves, not only like the product's games.

use super::analysis::{capture_edges, free_capture, random_edge};
use super::endgame::EndgameSolver;
use super::qdab::canonical::{canonical, Board};
use super::DotsAndBoxes;
use crate::game::{Action, Game};
use crate::game_record::{recorded_scores, GameRecord, MoveKind, MoveRecord};
use crate::rng::Rng;

/// Where the exact part of a labelled game starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Horizon {
    /// Perfect play from the first position with at most this many free edges.
    pub free: u32,
    /// The recorded game is left at a number of free edges drawn uniformly from `free` to
    /// `from` (random moves bridge the rest).
    pub from: u32,
    /// Positions the solver may search for the outcome and for each move after it.
    pub max_nodes: u64,
}

impl Horizon {
    pub fn check(&self) -> Result<(), String> {
        if self.from < self.free {
            return Err(format!(
                "--from ({}) must be at least --free ({})",
                self.from, self.free
            ));
        }
        Ok(())
    }
}

/// One thread's tools: the solver (its table carries over between games) and the canonical
/// move tables.
pub struct Labeller {
    solver: EndgameSolver,
    board: Board,
}

impl Labeller {
    /// For boards like `initial`, with a solver table of `2^table_bits` entries.
    pub fn new(initial: &DotsAndBoxes, table_bits: u32) -> Labeller {
        Labeller {
            solver: EndgameSolver::new(initial.rows(), initial.cols(), table_bits),
            board: Board::new(initial.geometry()),
        }
    }

    /// `source` (a game from `initial`) labelled as the module says, with the random choices
    /// of `rng`; `Ok(None)` when the solver's node limit was not enough. The record keeps
    /// `source`'s index; its moves are `Given` up to the horizon and `Solved` after it. Errors
    /// name the move of `source` that is not legal.
    pub fn label(
        &mut self,
        source: &GameRecord,
        initial: &DotsAndBoxes,
        horizon: Horizon,
        rng: &mut Rng,
    ) -> Result<Option<GameRecord>, String> {
        let mut state = *initial;
        let mut moves = Vec::with_capacity(state.geometry().num_edges);
        let mut given = |state: &mut DotsAndBoxes, action| {
            moves.push(MoveRecord::unsearched(
                action,
                state.to_move(),
                MoveKind::Given,
            ));
            state.apply(action);
        };
        let leave_at = horizon.free + rng.below((horizon.from - horizon.free).saturating_add(1));
        for (ply, m) in source.moves.iter().enumerate() {
            if free_edges(&state) <= leave_at {
                break;
            }
            if !state.is_legal(m.action) {
                return Err(format!(
                    "game {}: move {} (ply {ply}) is not legal",
                    source.index, m.action
                ));
            }
            given(&mut state, m.action);
        }
        let geo = state.geometry();
        while free_edges(&state) > horizon.free && !state.is_terminal() {
            let edges = state.edges();
            let pool = canonical(&self.board, edges).class1;
            let e = match free_capture(geo, edges) {
                Some(e) => e,
                None if pool != 0 => random_edge(pool, rng),
                None => match capture_edges(geo, edges) {
                    0 => break, // no safe edge left: the exact part starts here
                    bits => bits.trailing_zeros() as usize,
                },
            };
            given(&mut state, e as Action);
        }
        if state.is_terminal() {
            return Ok(None);
        }
        let Some(outcome) = self.solver.try_outcome(&state, horizon.max_nodes) else {
            return Ok(None);
        };
        while !state.is_terminal() {
            let Some(a) = self
                .solver
                .try_outcome_move(&state, outcome, horizon.max_nodes)
            else {
                return Ok(None);
            };
            moves.push(MoveRecord {
                action: a,
                player: state.to_move(),
                kind: MoveKind::Solved,
                iterations: 0,
                root: Vec::new(),
            });
            state.apply(a);
        }
        debug_assert_eq!(state.outcome(), Some(outcome));
        Ok(Some(GameRecord {
            index: source.index,
            seed: source.seed,
            outcome,
            scores: recorded_scores(&state, outcome),
            moves,
        }))
    }
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
    use crate::record::replay;

    /// A recorded game of uniformly random moves on `rows` x `cols`.
    fn random_game(rows: usize, cols: usize, index: u64) -> (DotsAndBoxes, GameRecord) {
        let initial = DotsAndBoxes::new(rows, cols).unwrap();
        let mut state = initial;
        let mut rng = Rng::new(index);
        let mut moves = Vec::new();
        let mut legal = Vec::new();
        while !state.is_terminal() {
            state.legal_actions(&mut legal);
            let a = legal[rng.below(legal.len() as u32) as usize];
            moves.push(MoveRecord {
                action: a,
                player: state.to_move(),
                kind: MoveKind::Searched,
                iterations: 0,
                root: Vec::new(),
            });
            state.apply(a);
        }
        let outcome = state.outcome().unwrap();
        let record = GameRecord {
            index,
            seed: index,
            outcome,
            scores: recorded_scores(&state, outcome),
            moves,
        };
        (initial, record)
    }

    #[test]
    fn every_position_from_the_horizon_on_has_its_exact_outcome() {
        let horizon = Horizon {
            free: 10,
            from: 14,
            max_nodes: u64::MAX,
        };
        let mut outcomes = [0; 3];
        for index in 0..40 {
            let (initial, source) = random_game(3, 3, index);
            let mut labeller = Labeller::new(&initial, 16);
            let mut rng = Rng::new(100 + index);
            let record = labeller
                .label(&source, &initial, horizon, &mut rng)
                .unwrap()
                .expect("3x3 is solved within any limit");
            assert_eq!(record.index, index);
            outcomes[crate::game_record::outcome_class(record.outcome) as usize] += 1;
            let mut exact = EndgameSolver::new(3, 3, 16);
            replay(&record, initial, |state, ply, m| {
                let free = free_edges(state);
                match m.kind {
                    MoveKind::Given => {
                        assert!(free > horizon.free, "ply {ply}: given at {free} free edges");
                    }
                    MoveKind::Solved => {
                        assert_eq!(exact.outcome(state), record.outcome, "ply {ply}");
                    }
                    other => panic!("ply {ply}: a {other:?} move"),
                }
            })
            .unwrap();
            // The recorded game is followed to at least `from` free edges.
            let followed = record
                .moves
                .iter()
                .zip(&source.moves)
                .take_while(|(a, b)| a.action == b.action)
                .count();
            assert!(initial.num_edges() - followed <= horizon.from as usize);
        }
        assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
    }

    #[test]
    fn an_illegal_recorded_move_is_named() {
        let (initial, mut source) = random_game(3, 3, 7);
        source.moves[3].action = source.moves[1].action;
        let horizon = Horizon {
            free: 4,
            from: 4,
            max_nodes: u64::MAX,
        };
        let err = Labeller::new(&initial, 12)
            .label(&source, &initial, horizon, &mut Rng::new(1))
            .unwrap_err();
        assert!(err.contains("game 7") && err.contains("ply 3"), "{err}");
    }

    #[test]
    fn a_horizon_below_its_start_is_refused() {
        let h = Horizon {
            free: 36,
            from: 30,
            max_nodes: 1,
        };
        assert!(h.check().unwrap_err().contains("--from (30)"));
    }
}
