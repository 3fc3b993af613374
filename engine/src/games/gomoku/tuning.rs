//! The pattern heuristic's weights (attack and defence, a score a shape) as a weight set for
//! `tune` (set `patterns`): fitness games between two players that differ only in their
//! weights, from varied openings.
//!
//! Fitness players: `greedy` (the heuristic's best move, no search: a game takes about a
//! millisecond, and the weights are all that differ) and `mcts200` (the paper's MCTS, 200
//! iterations a move, as its Table 2's "200 simulations").

use super::patterns::PatternWeights;
use super::pvs::{EvalWeights, Pvs, PvsConfig};
use super::search::{GomokuKnowledge, GomokuRollout};
use super::{Gomoku, Rule};
use crate::game::{Action, Game, Outcome};
use crate::mcts::{Budget, SearchConfig};
use crate::rng::{derive_seed, Rng};
use crate::tuning::{play_out, Tunable, WeightsFile};
use std::time::Duration;

/// Stones of every fitness game's opening, put at random within 3 points of the centre.
pub const OPENING_STONES: usize = 4;

/// The fitness players, the default first.
const FITNESS_PLAYERS: [&str; 2] = ["greedy", "mcts200"];

/// The Gomoku pattern weights (set `patterns`, 16 weights).
#[derive(Clone, Copy, Debug, Default)]
pub struct GomokuPatterns;

impl GomokuPatterns {
    /// The weights in a weights file `tune` wrote; errors name the file.
    pub fn load(path: &std::path::Path) -> Result<PatternWeights, String> {
        let w = WeightsFile::load(path, &GomokuPatterns)?;
        PatternWeights::from_slice(&w).map_err(|e| format!("weights file {}: {e}", path.display()))
    }

    /// The opening numbered `opening`: [`OPENING_STONES`] stones at random near the centre of
    /// a 15x15 freestyle board, black to move.
    pub fn opening(opening: u64) -> Gomoku {
        let mut state = Gomoku::new(15, Rule::Freestyle).expect("15 is a size");
        let mut rng = Rng::new(derive_seed(0x60_0000, opening));
        while state.stones() < OPENING_STONES {
            let c = 7 + rng.below(7) as i32 - 3;
            let r = 7 + rng.below(7) as i32 - 3;
            let p = state.point(c, r).expect("near the centre") as Action;
            if state.is_legal(p) {
                state.apply(p);
            }
        }
        state
    }
}

/// The greedy player's move: the best by the heuristic among the points next to a stone (the
/// first of equals), a five or a block first.
pub fn greedy_move(state: &Gomoku, weights: PatternWeights) -> Option<Action> {
    let mut policy = GomokuRollout::new(GomokuKnowledge {
        near: 1,
        top: 1,
        weights,
        ..GomokuKnowledge::ENGINE
    });
    let mut actions = Vec::new();
    state.legal_actions(&mut actions);
    crate::mcts::RolloutPolicy::restrict(&mut policy, state, &mut actions);
    actions.first().copied()
}

impl Tunable for GomokuPatterns {
    fn game(&self) -> &'static str {
        "gomoku"
    }

    fn set(&self) -> &'static str {
        "patterns"
    }

    fn names(&self) -> Vec<String> {
        PatternWeights::names()
    }

    fn start(&self) -> Vec<f32> {
        PatternWeights::DEFAULT.to_vec()
    }

    fn players(&self) -> &'static [&'static str] {
        &FITNESS_PLAYERS
    }

    fn play(&self, p1: &[f32], p2: &[f32], player: &str, opening: u64) -> Result<Outcome, String> {
        let weights = [
            PatternWeights::from_slice(p1)?,
            PatternWeights::from_slice(p2)?,
        ];
        let state = GomokuPatterns::opening(opening);
        match player {
            "greedy" => play_out(state, |side, s| Ok(greedy_move(s, weights[side]))),
            "mcts200" => {
                let mut searches = [0, 1].map(|k| {
                    let config = SearchConfig {
                        seed: derive_seed(opening, k as u64 + 1),
                        budget: Budget::iterations(200),
                        ..SearchConfig::default()
                    };
                    GomokuKnowledge {
                        weights: weights[k],
                        ..GomokuKnowledge::PAPER
                    }
                    .search(config)
                });
                play_out(state, |side, s| {
                    let result = searches[side].run(s).map_err(|e| e.to_string())?;
                    Ok(Some(result.best))
                })
            }
            other => Err(format!(
                "no fitness player '{other}' for gomoku ({})",
                FITNESS_PLAYERS.join(", ")
            )),
        }
    }
}

/// The fitness players of the `eval` set: the searcher to a fixed depth, one thread.
const EVAL_PLAYERS: [&str; 2] = ["pvs4", "pvs6"];

/// The evaluation weights of the product's searcher ([`Pvs`], set `eval`, 14 weights).
#[derive(Clone, Copy, Debug, Default)]
pub struct GomokuEval;

/// The `eval` weights in a weights file `tune` wrote; errors name the file.
pub fn load_eval(path: &std::path::Path) -> Result<EvalWeights, String> {
    WeightsFile::load_as(path, &GomokuEval, EvalWeights::from_slice)
}

impl Tunable for GomokuEval {
    fn game(&self) -> &'static str {
        "gomoku"
    }

    fn set(&self) -> &'static str {
        "eval"
    }

    fn names(&self) -> Vec<String> {
        EvalWeights::names()
    }

    fn start(&self) -> Vec<f32> {
        EvalWeights::DEFAULT.to_vec()
    }

    fn players(&self) -> &'static [&'static str] {
        &EVAL_PLAYERS
    }

    fn final_player(&self) -> &'static str {
        "pvs"
    }

    fn play(&self, p1: &[f32], p2: &[f32], player: &str, opening: u64) -> Result<Outcome, String> {
        let depth = crate::tuning::fitness_depth(self, player)?;
        let mut players = [p1, p2].map(|w| {
            let mut config = PvsConfig::new(Duration::from_secs(60));
            config.max_depth = depth;
            EvalWeights::from_slice(w)
                .map(|weights| Pvs::new(player, PvsConfig { weights, ..config }))
        });
        play_out(GomokuPatterns::opening(opening), |side, s| {
            let searcher = players[side].as_mut().map_err(|e| e.clone())?;
            Ok(searcher
                .best_move_within(s, Duration::from_secs(60))
                .map(|(a, _)| a))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::patterns::Shape;

    #[test]
    fn fitness_games_finish_and_weights_round_trip() {
        let t = GomokuPatterns;
        let start = t.start();
        assert_eq!(start.len(), t.names().len());
        for opening in 0..3 {
            let o = t.play(&start, &start, "greedy", opening).unwrap();
            assert!(matches!(o, Outcome::P1Win | Outcome::P2Win | Outcome::Draw));
        }
        // Weights that ignore every shape but five lose to the heuristic's.
        let mut blind = vec![0.0; 16];
        blind[7] = 1.0;
        let mut score = 0;
        for opening in 0..6 {
            let first = t.play(&start, &blind, "greedy", opening).unwrap();
            let second = t.play(&blind, &start, "greedy", opening).unwrap();
            score += i32::from(first == Outcome::P1Win);
            score += i32::from(second == Outcome::P2Win);
        }
        assert!(score >= 10, "the heuristic won {score} of 12");
        let dir = std::env::temp_dir().join(format!("gomoku-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.json");
        WeightsFile::new(&t, &start).save(&path).unwrap();
        assert_eq!(
            GomokuPatterns::load(&path).unwrap(),
            PatternWeights::DEFAULT
        );
        assert!(t.play(&start, &start, "alphabeta", 0).is_err());
    }

    #[test]
    fn the_hand_set_evaluation_weights_load_from_configs() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../configs/gomoku-eval-hand-set.json"
        );
        let hand_set = load_eval(std::path::Path::new(path)).unwrap();
        assert_eq!(hand_set.mine, [0, 1, 4, 12, 16, 70, 90, 700, 0]);
        assert_eq!(hand_set.theirs, [0, 1, 4, 10, 14, 55, 70, 450, 0]);
        // The fitted default keeps the hand-set live-four weights (no quiet position sets them).
        let live_four = Shape::LiveFour as usize;
        assert_eq!(
            EvalWeights::DEFAULT.mine[live_four],
            hand_set.mine[live_four]
        );
        assert_eq!(
            EvalWeights::DEFAULT.theirs[live_four],
            hand_set.theirs[live_four]
        );
    }
}
