//! The paper's shallow rollouts: a few random whole turns, then the evaluation, mapped to the
//! result the tree backs up.

use super::eval::{EvalInput, EvalWeights, Evaluator};
use super::parallel_eval::ParallelTerms;
use super::Amazons;
use crate::game::{Action, Game, Outcome};
use crate::mcts::{Reward, RolloutPolicy};
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
    /// P1's expected result under that probability, backed up as it is: the paper's
    /// `Δ = SituationEvaluation(S)` as a reward in [-1, 1], no sampling noise.
    Expected { scale: f32 },
}

impl Backup {
    /// The logistic scale of `expected` (and `sample`) unless a spec says otherwise: an
    /// evaluation lead of 2 is a 73% chance to win.
    pub const DEFAULT_SCALE: f32 = 2.0;

    /// The probability that P1 wins a position the evaluation puts at `value` for P1.
    #[inline]
    pub fn p1_win_probability(value: f32, scale: f32) -> f32 {
        1.0 / (1.0 + (-value / scale).exp())
    }

    /// P1's expected result in a position the evaluation puts at `value` for P1.
    #[inline]
    pub fn expected_reward(value: f32, scale: f32) -> Reward {
        Reward::from_win_probability(Backup::p1_win_probability(value, scale))
    }

    /// The logistic scale that maps an evaluation to a win probability (that of `sample` or
    /// `expected`; the default for `sign`).
    pub fn scale(&self) -> f32 {
        match *self {
            Backup::Sign => Backup::DEFAULT_SCALE,
            Backup::Sample { scale } | Backup::Expected { scale } => scale,
        }
    }

    /// The same kind of backup with logistic scale `scale` (`sign` has none).
    pub fn with_scale(self, scale: f32) -> Backup {
        match self {
            Backup::Sign => Backup::Sign,
            Backup::Sample { .. } => Backup::Sample { scale },
            Backup::Expected { .. } => Backup::Expected { scale },
        }
    }
}

/// Random whole turns (the arrow due first, when the leaf is mid-turn), `depth` of them, then
/// the evaluation: the paper's Shallow Rollout. A game that ends on the way backs up its result.
pub struct EvalRollout {
    pub depth: u32,
    pub evaluator: Evaluator,
    pub backup: Backup,
    /// Parallel Evaluation: each evaluation's terms split with a helper thread.
    pub parallel: bool,
    /// Expansion evaluates every new child (see [`RolloutPolicy::child_rewards`]) instead of
    /// playing a rollout from one of them.
    pub evaluate_children: bool,
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
            .field("evaluate_children", &self.evaluate_children)
            .finish()
    }
}

impl EvalRollout {
    /// The default depth in whole turns (see docs/amazons.md's measurements).
    pub const DEFAULT_DEPTH: u32 = 2;

    pub fn new(depth: u32, weights: EvalWeights, backup: Backup) -> EvalRollout {
        EvalRollout {
            depth,
            evaluator: Evaluator::new(weights),
            backup,
            parallel: false,
            evaluate_children: false,
            helper: None,
        }
    }

    /// The reward of a position just reached: its result if the game is over, else the
    /// evaluation's expectation.
    #[inline]
    fn reward_of(&mut self, state: &Amazons) -> Reward {
        if state.is_terminal() {
            return Outcome::win_for(state.to_move().opponent()).into();
        }
        let value = self.evaluate(state);
        Backup::expected_reward(value, self.backup.scale())
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

impl EvalRollout {
    /// Plays the shallow rollout from `state`: `Ok(evaluation for P1)` at its end, or
    /// `Err(outcome)` when the game ended on the way.
    #[inline]
    fn play_out(&mut self, state: &mut Amazons, rng: &mut Rng) -> Result<f32, Outcome> {
        if state.mid_turn() {
            state.play_random_turn(rng);
        }
        for _ in 0..self.depth {
            if !state.play_random_turn(rng) {
                return Err(Outcome::win_for(state.to_move().opponent()));
            }
        }
        if state.is_terminal() {
            return Err(Outcome::win_for(state.to_move().opponent()));
        }
        Ok(self.evaluate(state))
    }
}

impl RolloutPolicy<Amazons> for EvalRollout {
    const FRACTIONAL: bool = true;

    #[inline]
    fn rollout(&mut self, state: &mut Amazons, rng: &mut Rng) -> Outcome {
        let value = match self.play_out(state, rng) {
            Ok(value) => value,
            Err(outcome) => return outcome,
        };
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
            Backup::Sample { scale } | Backup::Expected { scale } => {
                let p1 = Backup::p1_win_probability(value, scale) as f64;
                if rng.unit_f64() < p1 {
                    Outcome::P1Win
                } else {
                    Outcome::P2Win
                }
            }
        }
    }

    fn child_rewards(
        &mut self,
        state: &Amazons,
        actions: &[Action],
        out: &mut Vec<Reward>,
    ) -> bool {
        if !self.evaluate_children {
            return false;
        }
        out.clear();
        for &action in actions {
            let mut child = *state;
            child.apply(action);
            out.push(self.reward_of(&child));
        }
        true
    }

    #[inline]
    fn rollout_reward(&mut self, state: &mut Amazons, rng: &mut Rng) -> Reward {
        let Backup::Expected { scale } = self.backup else {
            return self.rollout(state, rng).into();
        };
        match self.play_out(state, rng) {
            Ok(value) => Backup::expected_reward(value, scale),
            Err(outcome) => outcome.into(),
        }
    }
}
