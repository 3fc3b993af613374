//! Gomoku's weight sets for `tune`: the pattern heuristic's weights (`patterns`, attack and
//! defence, a score a shape) and the searcher's evaluation (`eval`), each tuned by fitness games
//! between two players that differ only in their weights, from varied openings.

use super::patterns::PatternWeights;
use super::pvs::{EvalWeights, Pvs, PvsConfig};
use super::search::{GomokuKnowledge, GomokuRollout};
use super::{Gomoku, Rule};
use crate::game::{Action, Game, Outcome};
use crate::rng::{derive_seed, Rng};
use crate::tuning::{fitness_number, play_agents, play_out, play_searches, WeightSet, WeightsFile};
use std::time::Duration;

/// Stones of every fitness game's opening, put at random within 3 points of the centre.
pub const OPENING_STONES: usize = 4;

/// The Gomoku pattern weights (set `patterns`, 16 weights).
pub const PATTERNS: WeightSet = WeightSet {
    game: "gomoku",
    set: "patterns",
    names: PatternWeights::names,
    start: || PatternWeights::DEFAULT.to_vec(),
    players: &["greedy", "mcts200"],
    final_player: "mcts",
    normalise: <[f32]>::to_vec,
    normalise_note: "",
    play: play_patterns,
};

/// The pattern weights in a weights file `tune` wrote; errors name the file.
pub fn load_patterns(path: &std::path::Path) -> Result<PatternWeights, String> {
    WeightsFile::load_as(path, &PATTERNS, PatternWeights::from_slice)
}

/// The opening numbered `opening`: [`OPENING_STONES`] stones at random near the centre of a
/// 15x15 freestyle board, black to move.
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

/// A fitness game of `patterns`: `greedy` (the heuristic's best move, no search: a game takes
/// about a millisecond, and the weights are all that differ) or `mcts200` (the paper's MCTS,
/// 200 iterations a move, as its Table 2's "200 simulations").
fn play_patterns(
    _: &WeightSet,
    p1: &[f32],
    p2: &[f32],
    player: &str,
    opening_number: u64,
) -> Result<Outcome, String> {
    let weights = [
        PatternWeights::from_slice(p1)?,
        PatternWeights::from_slice(p2)?,
    ];
    let state = opening(opening_number);
    if player == "greedy" {
        return play_out(state, |side, s| Ok(greedy_move(s, weights[side])));
    }
    play_searches(state, opening_number, 200, |k, config| {
        GomokuKnowledge {
            weights: weights[k],
            ..GomokuKnowledge::PAPER
        }
        .search(config)
    })
}

/// The evaluation weights of the product's searcher ([`Pvs`], set `eval`, 14 weights); its
/// fitness players search to a fixed depth, one thread.
pub const EVAL: WeightSet = WeightSet {
    game: "gomoku",
    set: "eval",
    names: EvalWeights::names,
    start: || EvalWeights::DEFAULT.to_vec(),
    players: &["pvs4", "pvs6"],
    final_player: "pvs",
    normalise: <[f32]>::to_vec,
    normalise_note: "",
    play: play_eval,
};

/// The `eval` weights in a weights file `tune` wrote; errors name the file.
pub fn load_eval(path: &std::path::Path) -> Result<EvalWeights, String> {
    WeightsFile::load_as(path, &EVAL, EvalWeights::from_slice)
}

/// A fitness game of `eval`: the two searchers to the player's depth.
fn play_eval(
    set: &WeightSet,
    p1: &[f32],
    p2: &[f32],
    player: &str,
    opening_number: u64,
) -> Result<Outcome, String> {
    let depth = fitness_number(set, player)?;
    let [a, b] = [p1, p2].map(|w| -> Result<Pvs, String> {
        let mut config = PvsConfig::new(Duration::from_secs(60));
        config.max_depth = depth;
        config.weights = EvalWeights::from_slice(w)?;
        Ok(Pvs::new(player, config))
    });
    play_agents(opening(opening_number), [a?, b?])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::patterns::Shape;
    use crate::tuning::Tunable;

    #[test]
    fn fitness_games_finish_and_the_heuristic_beats_blind_weights() {
        let t = PATTERNS;
        let start = t.start();
        assert_eq!(
            PatternWeights::from_slice(&start).unwrap(),
            PatternWeights::DEFAULT
        );
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
