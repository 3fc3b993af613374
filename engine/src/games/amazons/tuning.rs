//! The Amazons evaluation as a weight set for `tune`: the 15 weights of [`EvalWeights`] (five
//! terms in each of three phases), and fitness games between two weight vectors played by a
//! fast player that uses them.

use std::time::Duration;

use super::eval::{EvalWeights, Evaluator, WSegments, PHASE_NAMES, TERM_NAMES};
use super::players::{AlphaBeta, Greedy};
use super::{Amazons, Turn, TurnShape};
use crate::game::{Game, Outcome};
use crate::rng::{derive_seed, Rng};
use crate::tuning::{Tunable, WeightsFile};

/// Whole turns of every fitness game's opening, chosen at random among the best few by the
/// paper's evaluation: varied games from sensible positions.
pub const OPENING_TURNS: usize = 4;
/// The opening's turns are drawn from this many best turns.
const OPENING_CHOICES: usize = 8;

/// The Amazons weights `tune` searches, one of two sets:
///
/// * `phases`: [`EvalWeights::phases`] (the MG-PEO paper's five terms in three phases by the
///   arrows shot) as one vector, phase by phase; what the engine plays.
/// * `w-segments`: the GA paper's t1, t2, c1, c2 in five segments of Lieberum's `w`
///   ([`WSegments`]), starting from the MG-PEO weights put in that shape.
///
/// The tie constant, the phase boundaries and the search's corrections stay as they are.
#[derive(Clone, Debug, Default)]
pub struct AmazonsWeights {
    /// The size of the fitness games' board (0: 10).
    pub size: usize,
    /// The `w-segments` set instead of `phases`.
    pub w_segments: bool,
}

impl AmazonsWeights {
    /// The sets' names, the default first.
    pub const SETS: [&'static str; 2] = ["phases", "w-segments"];

    pub fn for_set(set: &str) -> Result<AmazonsWeights, String> {
        match set {
            "phases" => Ok(AmazonsWeights::default()),
            "w-segments" => Ok(AmazonsWeights {
                w_segments: true,
                ..AmazonsWeights::default()
            }),
            other => Err(format!(
                "amazons has no weight set '{other}' ({})",
                AmazonsWeights::SETS.join(", ")
            )),
        }
    }

    /// The evaluation's weights with `values` of this set, on top of the paper's other
    /// constants.
    pub fn eval_weights(&self, values: &[f32]) -> Result<EvalWeights, String> {
        if !self.w_segments {
            return EvalWeights::paper().from_vector(values);
        }
        if values.len() != 20 {
            return Err(format!(
                "expected 20 weights (5 segments x 4 terms), got {}",
                values.len()
            ));
        }
        let mut segments = WSegments::from_phases(&EvalWeights::paper().phases);
        for (i, &v) in values.iter().enumerate() {
            segments.weights[i / 4][i % 4] = v;
        }
        Ok(EvalWeights {
            w_segments: Some(segments),
            ..EvalWeights::paper()
        })
    }

    /// The evaluation's weights in a weights file of either set, read already.
    pub fn from_file(file: &WeightsFile) -> Result<EvalWeights, String> {
        let set = AmazonsWeights::for_set(&file.set)?;
        set.eval_weights(&file.values_for(&set)?)
    }

    /// The evaluation's weights in a weights file of either set.
    pub fn load(path: &std::path::Path) -> Result<EvalWeights, String> {
        AmazonsWeights::from_file(&WeightsFile::read(path)?)
            .map_err(|e| format!("weights file {}: {e}", path.display()))
    }

    fn board(&self) -> usize {
        if self.size == 0 {
            10
        } else {
            self.size
        }
    }

    /// The opening numbered `opening`: [`OPENING_TURNS`] turns, each drawn from the best
    /// [`OPENING_CHOICES`] by the paper's evaluation.
    pub fn opening(&self, opening: u64) -> Amazons {
        let mut state = Amazons::new(self.board(), TurnShape::Whole).expect("a known size");
        let mut rng = Rng::new(derive_seed(0x09E0_0000, opening));
        let evaluator = Evaluator::default();
        let mut turns: Vec<Turn> = Vec::new();
        for _ in 0..OPENING_TURNS {
            state.whole_turns(&mut turns);
            let me = state.to_move();
            let mut scored: Vec<(f32, Turn)> = turns
                .iter()
                .map(|&t| {
                    let mut next = state;
                    next.play_turn(t);
                    (evaluator.value_for(&next, me), t)
                })
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            let k = scored.len().min(OPENING_CHOICES) as u32;
            if k == 0 {
                break;
            }
            state.play_turn(scored[rng.below(k) as usize].1);
        }
        state
    }
}

/// The fitness players, the default first.
const FITNESS_PLAYERS: [&str; 2] = ["greedy", "alphabeta2"];

/// A fitness player: chooses whole turns with its weights.
enum FitnessPlayer {
    Greedy(Greedy),
    AlphaBeta(AlphaBeta),
}

impl FitnessPlayer {
    fn new(kind: &str, weights: EvalWeights, seed: u64) -> Result<FitnessPlayer, String> {
        match kind {
            "greedy" => Ok(FitnessPlayer::Greedy(
                Greedy::new(seed).with_weights(weights),
            )),
            // Depth 2 in full, never cut by the clock, so a game is a function of its seed.
            "alphabeta2" => Ok(FitnessPlayer::AlphaBeta(
                AlphaBeta::new("alphabeta2", Duration::from_secs(3600), 2, seed)
                    .with_weights(weights),
            )),
            other => Err(format!(
                "no fitness player '{other}' for amazons ({})",
                FITNESS_PLAYERS.join(", ")
            )),
        }
    }

    fn turn(&mut self, state: &Amazons) -> Option<Turn> {
        match self {
            FitnessPlayer::Greedy(g) => g.best_turn(state),
            FitnessPlayer::AlphaBeta(a) => a.best_turn(state).map(|(t, _)| t),
        }
    }
}

impl Tunable for AmazonsWeights {
    fn game(&self) -> &'static str {
        "amazons"
    }

    fn set(&self) -> &'static str {
        AmazonsWeights::SETS[usize::from(self.w_segments)]
    }

    fn names(&self) -> Vec<String> {
        if self.w_segments {
            return WSegments::NAMES
                .iter()
                .flat_map(|p| WSegments::TERMS.iter().map(move |t| format!("{p}.{t}")))
                .collect();
        }
        PHASE_NAMES
            .iter()
            .flat_map(|p| TERM_NAMES.iter().map(move |t| format!("{p}.{t}")))
            .collect()
    }

    fn start(&self) -> Vec<f32> {
        let paper = EvalWeights::paper();
        if self.w_segments {
            return WSegments::from_phases(&paper.phases)
                .weights
                .iter()
                .flatten()
                .copied()
                .collect();
        }
        paper.to_vector()
    }

    /// Each phase's (or segment's) weights scaled to the sum the starting weights have there:
    /// greedy fitness games compare positions of one phase, so they cannot tell a phase's
    /// weights from a multiple of them, but the engine's search maps values to win
    /// probabilities, where the scale matters.
    fn normalise(&self, values: &[f32]) -> Vec<f32> {
        let width = if self.w_segments { 4 } else { 5 };
        let start = self.start();
        let mut out = values.to_vec();
        for (chunk, base) in out.chunks_mut(width).zip(start.chunks(width)) {
            let (sum, target) = (chunk.iter().sum::<f32>(), base.iter().sum::<f32>());
            if sum > 0.0 {
                for w in chunk.iter_mut() {
                    *w *= target / sum;
                }
            }
        }
        out
    }

    fn normalise_note(&self) -> &'static str {
        "each phase scaled to the starting weights' sum"
    }

    fn players(&self) -> &'static [&'static str] {
        &FITNESS_PLAYERS
    }

    fn play(&self, p1: &[f32], p2: &[f32], player: &str, opening: u64) -> Result<Outcome, String> {
        let mut players = [
            FitnessPlayer::new(player, self.eval_weights(p1)?, derive_seed(opening, 1))?,
            FitnessPlayer::new(player, self.eval_weights(p2)?, derive_seed(opening, 2))?,
        ];
        let mut state = self.opening(opening);
        while !state.is_terminal() {
            let turn = players[state.to_move().index()]
                .turn(&state)
                .ok_or("a player found no turn in a position that is not over")?;
            state.play_turn(turn);
        }
        Ok(state.outcome().expect("a finished game has an outcome"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fitness games are functions of their opening number; different numbers give different
    /// openings; weights that ignore territory lose to the paper's more often than not.
    #[test]
    fn fitness_games_are_reproducible_and_varied() {
        let t = AmazonsWeights {
            size: 6,
            w_segments: false,
        };
        let start = t.start();
        assert_eq!(start.len(), t.names().len());
        assert_eq!(t.names()[0], "opening.t1");
        let a = t.play(&start, &start, "greedy", 3).unwrap();
        assert_eq!(a, t.play(&start, &start, "greedy", 3).unwrap());
        let openings: std::collections::HashSet<String> =
            (0..8).map(|i| t.opening(i).board_string()).collect();
        assert!(openings.len() >= 6, "{openings:?}");
        // Mobility only, against the paper's weights.
        let mut blind = vec![0.0; 15];
        for phase in 0..3 {
            blind[phase * 5 + 4] = 1.0;
        }
        let mut paper_score = 0;
        for opening in 0..10 {
            paper_score += t
                .play(&start, &blind, "greedy", opening)
                .unwrap()
                .value_for(crate::game::Player::P1);
            paper_score -= t
                .play(&blind, &start, "greedy", opening)
                .unwrap()
                .value_for(crate::game::Player::P1);
        }
        assert!(paper_score > 0, "{paper_score}");
        // Normalising keeps the start and scales each phase to the start's sum.
        let n = t.normalise(&start);
        assert!(n.iter().zip(&start).all(|(a, b)| (a - b).abs() < 1e-6));
        let doubled: Vec<f32> = start.iter().map(|w| 2.0 * w).collect();
        let n = t.normalise(&doubled);
        assert!(n.iter().zip(&start).all(|(a, b)| (a - b).abs() < 1e-6));
        assert!(t.play(&start, &start, "minimax", 0).is_err());
        assert!(t.play(&start, &start[1..], "greedy", 0).is_err());
    }

    /// The GA paper's set: 20 weights by segment of `w`; its start is the MG-PEO weights in
    /// that shape, and a position's segment follows its `w`.
    #[test]
    fn the_w_segment_set_evaluates_by_segment() {
        use crate::games::amazons::eval::terms;
        let t = AmazonsWeights::for_set("w-segments").unwrap();
        assert_eq!(t.names().len(), 20);
        assert_eq!(t.names()[4], "w45-30.t1");
        let start = t.start();
        assert_eq!(&start[..4], &[0.14, 0.37, 0.13, 0.13]);
        let weights = t.eval_weights(&start).unwrap();
        let evaluator = Evaluator::new(weights);
        let mut rng = Rng::new(2);
        let mut s = Amazons::new(10, TurnShape::Whole).unwrap();
        let mut segments_seen = [false; 5];
        while !s.is_terminal() {
            let x = terms(&s, 0.2);
            let k = WSegments::segment(x.w);
            segments_seen[k] = true;
            let w = EvalWeights::paper().phases[[0, 0, 1, 2, 2][k]];
            let expected = w[0] * x.t1 + w[1] * x.t2 + w[2] * x.p1 + w[3] * x.p2;
            assert!((evaluator.value(&s) - expected).abs() < 1e-3);
            s.play_random_turn(&mut rng);
        }
        assert!(
            segments_seen.iter().filter(|&&x| x).count() >= 3,
            "{segments_seen:?}"
        );
        assert_eq!(WSegments::segment(80.0), 0);
        assert_eq!(WSegments::segment(45.0), 0);
        assert_eq!(WSegments::segment(44.9), 1);
        assert_eq!(WSegments::segment(0.0), 4);
        assert!(t.eval_weights(&start[1..]).is_err());
        assert!(AmazonsWeights::for_set("pieces").is_err());
    }
}
