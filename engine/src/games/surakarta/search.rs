//! The heuristic MCTS of the paper (its section 4), each of its strategies a switch:
//!
//! * the energy `F(s)` of the position a move reaches, for the player making it, added to that
//!   child's UCT value (`energy`; [`super::energy`]). Our means run from -1 to 1 where the
//!   paper's win rates run from 0 to 1, so the bias is `2 F(s)`, the paper's term on our scale;
//! * rollouts that stop when one side leads by more than `lead` pieces (the paper's L = 3),
//!   the side ahead counted the winner;
//! * rollouts that stop as a draw after `steps` moves (the paper's 50);
//! * root parallelisation over `threads` (the generic search's).
//!
//! Plain MCTS (the paper's baseline) has none: random rollouts to the end of the game.
//! Spec keys of `mcts` on Surakarta: `heuristic=0|1` (all three of the paper's strategies,
//! off by default), then each alone: `energy=0|1`, `position=X`, `attack=X`, `defence=X` (the
//! weights), `weights=FILE` (a weights file `tune` wrote), `lead=L` (0: no early stop),
//! `steps=N` (0: no limit).

use std::path::Path;

use super::energy::EnergyWeights;
use super::tuning::SurakartaEnergy;
use super::{MoveList, Surakarta};
use crate::game::{Action, Game, Outcome};
use crate::mcts::{RolloutPolicy, RolloutStats};
use crate::rng::Rng;

/// The paper's strategies, each on or off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heuristics {
    /// The energy's weights, when the energy biases selection.
    pub energy: Option<EnergyWeights>,
    /// A rollout ends when one side leads by more than this many pieces (0: never).
    pub lead: u32,
    /// A rollout ends in a draw after this many moves (0: never).
    pub steps: u32,
}

impl Heuristics {
    /// Plain MCTS: random rollouts to the end, no energy.
    pub const PLAIN: Heuristics = Heuristics {
        energy: None,
        lead: 0,
        steps: 0,
    };

    /// The paper's heuristic MCTS: its energy weights, L = 3, 50 steps.
    pub const PAPER: Heuristics = Heuristics {
        energy: Some(EnergyWeights::PAPER),
        lead: 3,
        steps: 50,
    };

    /// Reads the Surakarta keys of an `mcts` spec (see the module's documentation).
    pub fn from_keys(text: &str, keys: &[(String, String)]) -> Result<Heuristics, String> {
        let err = |e: String| format!("player '{text}': {e}");
        let switch = |key: &str, value: &str| match value {
            "1" | "on" | "true" => Ok(true),
            "0" | "off" | "false" => Ok(false),
            _ => Err(err(format!("{key} is 0 or 1, not '{value}'"))),
        };
        let number = |key: &str, value: &str| {
            value
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| err(format!("{key} must be a number, got '{value}'")))
        };
        let whole = |key: &str, value: &str| {
            value
                .parse::<u32>()
                .map_err(|_| err(format!("{key} must be a whole number, got '{value}'")))
        };
        let mut h = match keys.iter().find(|(k, _)| k == "heuristic") {
            Some((k, v)) if switch(k, v)? => Heuristics::PAPER,
            _ => Heuristics::PLAIN,
        };
        // The weights, whether or not the energy is on yet (`energy=1` may come later).
        let mut weights = h.energy.unwrap_or_default();
        for (key, value) in keys {
            match key.as_str() {
                "heuristic" => {}
                "energy" => {
                    h.energy = switch(key, value)?.then_some(weights);
                }
                "position" => weights.position = number(key, value)?,
                "attack" => weights.attack = number(key, value)?,
                "defence" => weights.defence = number(key, value)?,
                "weights" => weights = SurakartaEnergy::load(Path::new(value)).map_err(err)?,
                "lead" => h.lead = whole(key, value)?,
                "steps" => h.steps = whole(key, value)?,
                other => {
                    return Err(err(format!(
                        "{other} is not a key of the Surakarta search ({})",
                        Surakarta::SEARCH_KEY_LIST.join(", ")
                    )))
                }
            }
        }
        if let Some(e) = h.energy.as_mut() {
            *e = weights;
        }
        Ok(h)
    }
}

impl Surakarta {
    /// The keys of `mcts` the Surakarta search reads.
    pub const SEARCH_KEY_LIST: [&'static str; 8] = [
        "heuristic",
        "energy",
        "position",
        "attack",
        "defence",
        "weights",
        "lead",
        "steps",
    ];
}

/// The rollout and selection bias of the heuristic MCTS (plain MCTS with every switch off).
#[derive(Clone, Copy, Debug)]
pub struct SurakartaRollout {
    pub heuristics: Heuristics,
}

impl SurakartaRollout {
    pub fn new(heuristics: Heuristics) -> SurakartaRollout {
        SurakartaRollout { heuristics }
    }
}

impl Default for SurakartaRollout {
    /// The paper's heuristic MCTS.
    fn default() -> SurakartaRollout {
        SurakartaRollout::new(Heuristics::PAPER)
    }
}

impl RolloutPolicy<Surakarta> for SurakartaRollout {
    #[inline]
    fn rollout(&mut self, state: &mut Surakarta, rng: &mut Rng) -> Outcome {
        let Heuristics { lead, steps, .. } = self.heuristics;
        let mut moves = MoveList::new();
        let mut played = 0;
        loop {
            if state.is_terminal() {
                return state.outcome_by_pieces();
            }
            if lead > 0 && state.piece_difference().unsigned_abs() > lead {
                return state.outcome_by_pieces();
            }
            if steps > 0 && played >= steps {
                return Outcome::Draw;
            }
            state.play_random(&mut moves, rng);
            played += 1;
        }
    }

    #[inline]
    fn gives_bias(&self) -> bool {
        self.heuristics.energy.is_some()
    }

    fn child_bias(&mut self, state: &Surakarta, actions: &[Action], out: &mut Vec<f32>) {
        out.clear();
        if let Some(weights) = self.heuristics.energy {
            out.extend(
                actions
                    .iter()
                    .map(|&a| 2.0 * weights.energy(state.energy_terms_after(a))),
            );
        }
    }

    fn take_stats(&mut self) -> RolloutStats {
        RolloutStats::default()
    }
}
