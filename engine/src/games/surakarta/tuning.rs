//! The energy's weights (position, attack, defence) as a weight set for `tune`: fitness games
//! between two heuristic MCTS players, each with its own weights, at a fixed number of
//! iterations a move, from varied openings.

use std::time::Duration;

use super::energy::EnergyWeights;
use super::pvs::{EvalWeights, Pvs, PvsConfig, MAX_WEIGHT};
use super::search::Heuristics;
use super::{Rules, Surakarta};
use crate::game::{Game, Outcome};
use crate::rng::{derive_seed, Rng};
use crate::tuning::{fitness_number, play_agents, play_searches, WeightSet, WeightsFile};

/// Random plies of every fitness game's opening.
pub const OPENING_PLIES: usize = 4;

/// The Surakarta energy's three weights, as `tune` searches them (set `energy`); its fitness
/// players are heuristic MCTS at this many iterations a move.
pub const ENERGY: WeightSet = WeightSet {
    game: "surakarta",
    set: "energy",
    names: || EnergyWeights::NAMES.iter().map(|n| n.to_string()).collect(),
    start: || EnergyWeights::PAPER.to_vec(),
    players: &["mcts1000", "mcts200"],
    final_player: "mcts",
    normalise: <[f32]>::to_vec,
    normalise_note: "",
    play: play_energy,
};

/// The energy's weights in a weights file `tune` wrote.
pub fn load_energy(path: &std::path::Path) -> Result<EnergyWeights, String> {
    WeightsFile::load(path, &ENERGY).map(|w| EnergyWeights::from_slice(&w))
}

/// The opening numbered `opening`: [`OPENING_PLIES`] random moves from the start.
pub fn opening(opening: u64) -> Surakarta {
    let mut state = Surakarta::new(Rules::default());
    let mut rng = Rng::new(derive_seed(0x5A4A_0000, opening));
    let mut moves = super::MoveList::new();
    for _ in 0..OPENING_PLIES {
        if state.is_terminal() {
            break;
        }
        state.play_random(&mut moves, &mut rng);
    }
    state
}

/// A fitness game of `energy`: two heuristic MCTS players, each with its own weights.
fn play_energy(
    set: &WeightSet,
    p1: &[f32],
    p2: &[f32],
    player: &str,
    opening_number: u64,
) -> Result<Outcome, String> {
    let iterations = fitness_number(set, player)?;
    let weights = [p1, p2];
    play_searches(
        opening(opening_number),
        opening_number,
        u64::from(iterations),
        |k, config| {
            Heuristics {
                energy: Some(EnergyWeights::from_slice(weights[k])),
                ..Heuristics::PAPER
            }
            .search(config)
        },
    )
}

/// The evaluation weights of the product's searcher ([`Pvs`], set `eval`); its fitness
/// players search to a fixed depth, one thread.
pub const EVAL: WeightSet = WeightSet {
    game: "surakarta",
    set: "eval",
    names: || EvalWeights::NAMES.iter().map(|n| n.to_string()).collect(),
    start: || EvalWeights::DEFAULT.to_vec(),
    players: &["pvs3", "pvs5"],
    final_player: "pvs",
    normalise: normalise_eval,
    normalise_note: "scaled so that a piece is 100",
    play: play_eval,
};

/// The `eval` weights in a weights file `tune` wrote; errors name the file.
pub fn load_eval(path: &std::path::Path) -> Result<EvalWeights, String> {
    WeightsFile::load_as(path, &EVAL, EvalWeights::from_slice)
}

/// Contempt and the aspiration windows are in the evaluation's units: the weights are scaled
/// so that a piece is 100, as the hand-set ones have it (each within [`MAX_WEIGHT`]); the
/// fitness games play them so too.
fn normalise_eval(values: &[f32]) -> Vec<f32> {
    let piece = values.first().copied().unwrap_or(0.0);
    if piece <= 0.0 {
        return values.to_vec();
    }
    let most = MAX_WEIGHT as f32;
    values
        .iter()
        .map(|v| (v * 100.0 / piece).clamp(-most, most))
        .collect()
}

/// A fitness game of `eval`: the two searchers to a fixed depth (no clock, so a game depends
/// on nothing but the weights and the opening), each seeded by the opening.
fn play_eval(
    set: &WeightSet,
    p1: &[f32],
    p2: &[f32],
    player: &str,
    opening_number: u64,
) -> Result<Outcome, String> {
    let depth = fitness_number(set, player)?;
    let [a, b] = [(p1, 1), (p2, 2)].map(|(w, k)| -> Result<Pvs, String> {
        let mut config = PvsConfig::new(Duration::from_secs(3600));
        config.max_depth = depth;
        // As the engine will play them: scaled so a piece is 100 (contempt and the
        // aspiration windows are in the evaluation's units), then rounded.
        config.weights = EvalWeights::from_slice(&normalise_eval(w))?;
        config.seed = derive_seed(opening_number, k);
        Ok(Pvs::new(player, config))
    });
    play_agents(opening(opening_number), [a?, b?])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::Tunable;

    #[test]
    fn eval_fitness_games_finish_and_the_weights_are_scaled() {
        let t = EVAL;
        let start = t.start();
        assert_eq!(
            EvalWeights::from_slice(&start).unwrap(),
            EvalWeights::DEFAULT
        );
        for opening in 0..2 {
            let o = t.play(&start, &start, "pvs3", opening).unwrap();
            assert!(matches!(o, Outcome::P1Win | Outcome::P2Win | Outcome::Draw));
        }
        let err = t.play(&start, &start, "pvs4", 0).unwrap_err();
        assert!(err.contains("pvs3, pvs5"), "{err}");
        // Scaled so a piece is 100; the ratios kept.
        let halved: Vec<f32> = start.iter().map(|w| w / 2.0).collect();
        assert_eq!(t.normalise(&halved), start);
    }
}
