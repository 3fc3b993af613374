//! The energy's weights (position, attack, defence) as a weight set for `tune`: fitness games
//! between two heuristic MCTS players, each with its own weights, at a fixed number of
//! iterations a move, from varied openings.

use std::time::Duration;

use super::energy::EnergyWeights;
use super::pvs::{EvalWeights, Pvs, PvsConfig, MAX_WEIGHT};
use super::search::Heuristics;
use super::{Rules, Surakarta};
use crate::agents::Agent;
use crate::game::{Game, Outcome};
use crate::mcts::{Budget, SearchConfig};
use crate::rng::{derive_seed, Rng};
use crate::tuning::{play_out, Tunable, WeightsFile};

/// Random plies of every fitness game's opening.
pub const OPENING_PLIES: usize = 4;

/// The fitness players: heuristic MCTS at this many iterations a move, the default first.
const FITNESS_PLAYERS: [&str; 2] = ["mcts1000", "mcts200"];

/// The Surakarta energy's three weights, as `tune` searches them (set `energy`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SurakartaEnergy;

impl SurakartaEnergy {
    /// The energy's weights in a weights file `tune` wrote.
    pub fn load(path: &std::path::Path) -> Result<EnergyWeights, String> {
        WeightsFile::load(path, &SurakartaEnergy).map(|w| EnergyWeights::from_slice(&w))
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
}

fn iterations(player: &str) -> Result<u64, String> {
    FITNESS_PLAYERS
        .contains(&player)
        .then(|| player.trim_start_matches("mcts").parse().ok())
        .flatten()
        .ok_or_else(|| {
            format!(
                "no fitness player '{player}' for surakarta ({})",
                FITNESS_PLAYERS.join(", ")
            )
        })
}

impl Tunable for SurakartaEnergy {
    fn game(&self) -> &'static str {
        "surakarta"
    }

    fn set(&self) -> &'static str {
        "energy"
    }

    fn names(&self) -> Vec<String> {
        EnergyWeights::NAMES.iter().map(|n| n.to_string()).collect()
    }

    fn start(&self) -> Vec<f32> {
        EnergyWeights::PAPER.to_vec()
    }

    fn players(&self) -> &'static [&'static str] {
        &FITNESS_PLAYERS
    }

    fn play(&self, p1: &[f32], p2: &[f32], player: &str, opening: u64) -> Result<Outcome, String> {
        let n = iterations(player)?;
        let mut searches = [(p1, 1), (p2, 2)].map(|(w, k)| {
            let config = SearchConfig {
                seed: derive_seed(opening, k),
                budget: Budget::iterations(n),
                ..SearchConfig::default()
            };
            let heuristics = Heuristics {
                energy: Some(EnergyWeights::from_slice(w)),
                ..Heuristics::PAPER
            };
            heuristics.search(config)
        });
        play_out(SurakartaEnergy::opening(opening), |side, s| {
            let result = searches[side].run(s).map_err(|e| e.to_string())?;
            Ok(Some(result.best))
        })
    }
}

/// The fitness players of the `eval` set: the searcher to a fixed depth, one thread.
const EVAL_PLAYERS: [&str; 2] = ["pvs3", "pvs5"];

/// The evaluation weights of the product's searcher ([`Pvs`], set `eval`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SurakartaEval;

/// The `eval` weights in a weights file `tune` wrote; errors name the file.
pub fn load_eval(path: &std::path::Path) -> Result<EvalWeights, String> {
    WeightsFile::load_as(path, &SurakartaEval, EvalWeights::from_slice)
}

impl Tunable for SurakartaEval {
    fn game(&self) -> &'static str {
        "surakarta"
    }

    fn set(&self) -> &'static str {
        "eval"
    }

    fn names(&self) -> Vec<String> {
        EvalWeights::NAMES.iter().map(|n| n.to_string()).collect()
    }

    fn start(&self) -> Vec<f32> {
        EvalWeights::DEFAULT.to_vec()
    }

    /// Contempt and the aspiration windows are in the evaluation's units: the weights are
    /// scaled so that a piece is 100, as the hand-set ones have it (each within
    /// [`MAX_WEIGHT`]); the fitness games play them so too.
    fn normalise(&self, values: &[f32]) -> Vec<f32> {
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

    fn normalise_note(&self) -> &'static str {
        "scaled so that a piece is 100"
    }

    fn players(&self) -> &'static [&'static str] {
        &EVAL_PLAYERS
    }

    fn final_player(&self) -> &'static str {
        "pvs"
    }

    /// The two searchers to a fixed depth (no clock, so a game depends on nothing but the
    /// weights and the opening), each seeded by the opening.
    fn play(&self, p1: &[f32], p2: &[f32], player: &str, opening: u64) -> Result<Outcome, String> {
        let depth = crate::tuning::fitness_depth(self, player)?;
        let mut players = Vec::new();
        for (w, k) in [(p1, 1), (p2, 2)] {
            let mut config = PvsConfig::new(Duration::from_secs(3600));
            config.max_depth = depth;
            // As the engine will play them: scaled so a piece is 100 (contempt and the
            // aspiration windows are in the evaluation's units), then rounded.
            config.weights = EvalWeights::from_slice(&self.normalise(w))?;
            config.seed = derive_seed(opening, k);
            players.push(Pvs::new(player, config));
        }
        let state = SurakartaEnergy::opening(opening);
        for p in &mut players {
            p.new_game(&state, &[]).map_err(|e| e.to_string())?;
        }
        play_out(state, |side, s| {
            Ok(players[side].best_move(s).map(|(a, _)| a))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_fitness_games_finish_and_weights_round_trip() {
        let t = SurakartaEval;
        let start = t.start();
        assert_eq!(start.len(), t.names().len());
        for opening in 0..2 {
            let o = t.play(&start, &start, "pvs3", opening).unwrap();
            assert!(matches!(o, Outcome::P1Win | Outcome::P2Win | Outcome::Draw));
        }
        let err = t.play(&start, &start, "pvs4", 0).unwrap_err();
        assert!(err.contains("pvs3, pvs5"), "{err}");
        // Scaled so a piece is 100; the ratios kept.
        let halved: Vec<f32> = start.iter().map(|w| w / 2.0).collect();
        assert_eq!(t.normalise(&halved), start);
        let dir = std::env::temp_dir().join(format!("surakarta-eval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.json");
        WeightsFile::new(&t, &start).save(&path).unwrap();
        assert_eq!(load_eval(&path).unwrap(), EvalWeights::DEFAULT);
        // The energy's file is another set's.
        WeightsFile::new(&SurakartaEnergy, &SurakartaEnergy.start())
            .save(&path)
            .unwrap();
        let err = load_eval(&path).unwrap_err();
        assert!(err.contains("not for surakarta (eval)"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
