//! The paper's shallow rollouts: a few random whole turns, then the evaluation, mapped to the
//! result the tree backs up.

use super::eval::{EvalInput, EvalWeights, Evaluator};
use super::parallel_eval::ParallelTerms;
use super::Amazons;
use crate::game::{Game, Outcome};
use crate::mcts::RolloutPolicy;
use crate::rng::Rng;

/// How an evaluation becomes the result a rollout backs up (the tree counts wins).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Backup {
    /// A win for the side the evaluation favours (Lorentz's Invader, and what measured best
    /// here).
    Sign,
    /// A win for P1 with probability `1 / (1 + exp(-value / scale))`, else for P2: unbiased but
    /// noisier.
    Sample { scale: f32 },
}

/// Random whole turns (the arrow due first, when the leaf is mid-turn), `depth` of them, then
/// the evaluation: the paper's Shallow Rollout. A game that ends on the way backs up its result.
pub struct EvalRollout {
    pub depth: u32,
    pub evaluator: Evaluator,
    pub backup: Backup,
    /// Parallel Evaluation: each evaluation's terms split with a helper thread.
    pub parallel: bool,
    /// The helper, started at the first evaluation (a clone starts its own).
    helper: Option<ParallelTerms>,
}

impl Clone for EvalRollout {
    fn clone(&self) -> EvalRollout {
        EvalRollout {
            helper: None,
            ..*self
        }
    }
}

impl std::fmt::Debug for EvalRollout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalRollout")
            .field("depth", &self.depth)
            .field("backup", &self.backup)
            .field("parallel", &self.parallel)
            .finish()
    }
}

impl EvalRollout {
    /// The default depth in whole turns (see the README's measurements).
    pub const DEFAULT_DEPTH: u32 = 2;

    pub fn new(depth: u32, weights: EvalWeights, backup: Backup) -> EvalRollout {
        EvalRollout {
            depth,
            evaluator: Evaluator::new(weights),
            backup,
            parallel: false,
            helper: None,
        }
    }

    /// The same rollout with Parallel Evaluation on or off.
    pub fn with_parallel(mut self, parallel: bool) -> EvalRollout {
        self.parallel = parallel;
        self
    }

    /// The evaluation of `state` for P1, on this thread or split with the helper.
    #[inline]
    pub fn evaluate(&mut self, state: &Amazons) -> f32 {
        if !self.parallel {
            return self.evaluator.value(state);
        }
        let input = EvalInput::of(state, self.evaluator.weights.tie);
        let terms = self
            .helper
            .get_or_insert_with(ParallelTerms::new)
            .terms(&input);
        self.evaluator.value_of_terms(&terms, state)
    }
}

impl Default for EvalRollout {
    fn default() -> EvalRollout {
        EvalRollout::new(
            EvalRollout::DEFAULT_DEPTH,
            EvalWeights::paper(),
            Backup::Sign,
        )
    }
}

impl RolloutPolicy<Amazons> for EvalRollout {
    #[inline]
    fn rollout(&mut self, state: &mut Amazons, rng: &mut Rng) -> Outcome {
        if state.mid_turn() {
            state.play_random_turn(rng);
        }
        for _ in 0..self.depth {
            if !state.play_random_turn(rng) {
                return Outcome::win_for(state.to_move().opponent());
            }
        }
        if state.is_terminal() {
            return Outcome::win_for(state.to_move().opponent());
        }
        let value = self.evaluate(state);
        match self.backup {
            Backup::Sign => {
                if value > 0.0 {
                    Outcome::P1Win
                } else if value < 0.0 {
                    Outcome::P2Win
                } else {
                    Outcome::Draw
                }
            }
            Backup::Sample { scale } => {
                let p1 = 1.0 / (1.0 + (-(value / scale) as f64).exp());
                if rng.unit_f64() < p1 {
                    Outcome::P1Win
                } else {
                    Outcome::P2Win
                }
            }
        }
    }
}
