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
//!
//! Ours add: the energy as the mover's minus the opponent's (`relative`), fading with visits
//! (`progressive`), a rollout stopped by its step limit won by the side with more pieces
//! (`cutoff=pieces`), and rollouts that take a capture when there is one with some chance
//! (`captures`), and leaves scored by a quiescence search of material and mobility (the
//! rival's) instead of rollouts, every child scored as its node is expanded (`quiescence`).
//! [`Heuristics::ENGINE`] (`heuristic=engine`: `best` with `quiescence=150`, `cp` 0.3) is the
//! engine's default.
//!
//! Spec keys of `mcts` on Surakarta: `heuristic=0|1|paper|best|engine` (a preset: plain, the
//! default; the paper's three strategies; ours with rollouts; ours with quiescence leaves),
//! then each switch alone, applied over the preset:
//! `energy=0|1`, `position=X`, `attack=X`, `defence=X` (the weights), `weights=FILE` (a weights
//! file `tune` wrote), `relative=0|1`, `progressive=0|1`, `lead=L` (0: no early stop), `steps=N`
//! (0: no limit), `cutoff=draw|pieces`, `captures=P`, `quiescence=S` (0: rollouts; with it,
//! `cp` left at its default becomes 0.3).

use crate::game_spec::{file_key, key, KeyDecl};
use std::path::Path;

use super::energy::EnergyWeights;
use super::tuning::load_energy;
use super::{MoveList, Surakarta};
use crate::agents::spec::unknown_search_key;
use crate::game::{Action, Game, Outcome};
use crate::mcts::{Reward, RolloutPolicy, Search, SearchConfig, Ucb};
use crate::rng::Rng;

/// The paper's strategies and ours, each on or off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heuristics {
    /// The energy's weights, when the energy biases selection.
    pub energy: Option<EnergyWeights>,
    /// The bias is the mover's energy minus the opponent's (ours), not the mover's alone.
    pub relative: bool,
    /// The bias fades as `1 / (visits + 1)` (progressive bias, ours) instead of staying.
    pub progressive: bool,
    /// A rollout ends when one side leads by more than this many pieces (0: never).
    pub lead: u32,
    /// A rollout ends after this many moves (0: never)...
    pub steps: u32,
    /// ...as a draw (the paper), or won by the side with more pieces (ours).
    pub cutoff: Cutoff,
    /// The chance that a rollout move is a capture (at random among them) when there is one
    /// (ours; 0: uniformly random moves).
    pub captures: f32,
    /// Leaves scored by a quiescence search of material and mobility (the rival's), as a
    /// win probability, instead of a rollout (ours; 0: rollouts). The number is the scale:
    /// a lead of this many points (100 a piece) is worth tanh(1) = 0.76 in the mean.
    pub quiescence: f32,
}

/// How a rollout stopped by its step limit scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cutoff {
    Draw,
    Pieces,
}

impl Heuristics {
    /// Plain MCTS: random rollouts to the end, no energy.
    pub const PLAIN: Heuristics = Heuristics {
        energy: None,
        relative: false,
        progressive: false,
        lead: 0,
        steps: 0,
        cutoff: Cutoff::Draw,
        captures: 0.0,
        quiescence: 0.0,
    };

    /// The paper's heuristic MCTS: its energy weights, L = 3, 50 steps.
    pub const PAPER: Heuristics = Heuristics {
        energy: Some(EnergyWeights::PAPER),
        relative: false,
        progressive: false,
        lead: 3,
        steps: 50,
        cutoff: Cutoff::Draw,
        captures: 0.0,
        quiescence: 0.0,
    };

    /// Ours, the engine's default: the paper's early stop at a lead above 3 and its 50-move
    /// limit, but a rollout stopped by the limit goes to the side with more pieces, and a
    /// rollout move is a capture whenever one exists, 4 times in 5; no energy (which did not
    /// help at our speeds: docs/surakarta-results.md).
    pub const BEST: Heuristics = Heuristics {
        energy: None,
        relative: false,
        progressive: false,
        lead: 3,
        steps: 50,
        cutoff: Cutoff::Pieces,
        captures: 0.8,
        quiescence: 0.0,
    };

    /// The best MCTS (the protocol's `set_option engine mcts`): [`BEST`] with leaves scored
    /// by the quiescence search at scale 150, the strongest MCTS we measured
    /// (docs/surakarta-results.md); the alpha-beta, `best`, beats it.
    ///
    /// [`BEST`]: Self::BEST
    pub const ENGINE: Heuristics = Heuristics {
        quiescence: 150.0,
        ..Heuristics::BEST
    };

    /// The exploration constant for a search whose spec left `cp` at the generic default:
    /// 0.3 with quiescence leaves (their values are graded, not wins and losses), else as it
    /// is.
    pub fn fit_cp(&self, config: &mut SearchConfig) {
        if self.quiescence > 0.0 && config.cp == Ucb::DEFAULT_CP {
            config.cp = 0.3;
        }
    }

    /// The tree policy these heuristics select with.
    pub fn ucb(&self, cp: f64) -> Ucb {
        Ucb::new(cp).with_progressive_bias(self.progressive)
    }

    /// A search with these heuristics ([`fit_cp`](Self::fit_cp) applied).
    pub fn search(&self, mut config: SearchConfig) -> Search<Surakarta, Ucb, SurakartaRollout> {
        self.fit_cp(&mut config);
        let cp = config.cp;
        Search::new(config, self.ucb(cp), SurakartaRollout::new(*self))
    }

    /// Reads the Surakarta keys of an `mcts` spec (see the module's documentation).
    pub fn from_keys(text: &str, keys: &[(String, String)]) -> Result<Heuristics, String> {
        let err = |e: String| format!("player '{text}': {e}");
        let switch = |key: &str, value: &str| crate::agents::spec::switch(key, value).map_err(err);
        let number = |key: &str, value: &str| {
            value
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| err(format!("{key} must be a number, got '{value}'")))
        };
        let whole =
            |key: &str, value: &str| crate::agents::spec::number::<u32>(key, value).map_err(err);
        let mut h = match keys.iter().find(|(k, _)| k == "heuristic") {
            Some((_, v)) if v == "paper" => Heuristics::PAPER,
            Some((_, v)) if v == "best" => Heuristics::BEST,
            Some((_, v)) if v == "engine" => Heuristics::ENGINE,
            Some((k, v)) => match switch(k, v) {
                Ok(true) => Heuristics::PAPER,
                Ok(false) => Heuristics::PLAIN,
                Err(_) => {
                    return Err(err(format!(
                    "heuristic is 0 (plain), 1 or paper (the paper's), or best (ours), not '{v}'"
                )))
                }
            },
            None => Heuristics::PLAIN,
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
                "weights" => weights = load_energy(Path::new(value)).map_err(err)?,
                "relative" => h.relative = switch(key, value)?,
                "progressive" => h.progressive = switch(key, value)?,
                "lead" => h.lead = whole(key, value)?,
                "steps" => h.steps = whole(key, value)?,
                "cutoff" => {
                    h.cutoff = match value.as_str() {
                        "draw" => Cutoff::Draw,
                        "pieces" => Cutoff::Pieces,
                        _ => return Err(err(format!("cutoff is draw or pieces, not '{value}'"))),
                    }
                }
                "quiescence" => {
                    h.quiescence = number(key, value)?;
                    if h.quiescence < 0.0 {
                        return Err(err(format!(
                            "quiescence is a scale of 0 or more, not {value}"
                        )));
                    }
                }
                "captures" => {
                    h.captures = number(key, value)?;
                    if !(0.0..=1.0).contains(&h.captures) {
                        return Err(err(format!(
                            "captures is a chance from 0 to 1, not {value}"
                        )));
                    }
                }
                other => return Err(unknown_search_key(text, other, &Surakarta::MCTS_KEYS)),
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
    pub const MCTS_KEYS: [KeyDecl; 13] = [
        key(
            "heuristic",
            "0",
            "a preset: 0 (plain), 1 or paper (the paper's three strategies), best (ours with rollouts), engine (ours with quiescence leaves)",
        ),
        key("energy", "0", "1: the energy of a move's position added to UCT"),
        key(
            "relative",
            "0",
            "1: the energy as the mover's minus the opponent's",
        ),
        key("progressive", "0", "1: the energy fades with visits"),
        key(
            "cutoff",
            "draw",
            "a rollout stopped by its step limit: draw, or pieces (more pieces win)",
        ),
        key(
            "captures",
            "0",
            "the chance a rollout takes a capture when there is one",
        ),
        key(
            "quiescence",
            "0",
            "leaves scored by a quiescence search at this scale (0: rollouts)",
        ),
        key("position", "", "the energy's position weight"),
        key("attack", "", "the energy's attack weight"),
        key("defence", "", "the energy's defence weight"),
        file_key("weights", "", "a weights file of the energy, as tune writes it", &[]),
        key(
            "lead",
            "0",
            "a rollout ends once a side leads by more pieces (the paper's 3; 0: never)",
        ),
        key(
            "steps",
            "0",
            "a rollout ends after this many moves (the paper's 50; 0: no limit)",
        ),
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

impl SurakartaRollout {
    /// A position's value for P1 by the quiescence search, squashed by the scale; a finished
    /// game's by its result.
    fn leaf_value(&self, state: &Surakarta) -> Reward {
        if state.is_terminal() {
            return state.outcome_by_pieces().into();
        }
        let score = super::rival::quiescence_score(state, LEAF_PLIES, LEAF_NODES);
        let mover = (score as f32 / self.heuristics.quiescence).tanh();
        Reward {
            p1: if state.to_move() == crate::game::Player::P1 {
                mover
            } else {
                -mover
            },
        }
    }
}

impl Default for SurakartaRollout {
    /// The engine's ([`Heuristics::ENGINE`]).
    fn default() -> SurakartaRollout {
        SurakartaRollout::new(Heuristics::ENGINE)
    }
}

/// Capture plies and nodes at most of a leaf's quiescence search.
const LEAF_PLIES: u32 = 6;
const LEAF_NODES: u32 = 400;

impl RolloutPolicy<Surakarta> for SurakartaRollout {
    const FRACTIONAL: bool = true;

    #[inline]
    fn rollout_reward(&mut self, state: &mut Surakarta, rng: &mut Rng) -> Reward {
        if self.heuristics.quiescence <= 0.0 {
            return self.rollout(state, rng).into();
        }
        self.leaf_value(state)
    }

    /// With a quiescence scale, every child of a node being expanded is scored by it: the
    /// children are searched best first and each starts with its score as a first visit.
    fn child_rewards(
        &mut self,
        state: &Surakarta,
        actions: &[Action],
        out: &mut Vec<Reward>,
    ) -> bool {
        if self.heuristics.quiescence <= 0.0 {
            return false;
        }
        out.clear();
        for &a in actions {
            let mut child = *state;
            child.apply(a);
            out.push(self.leaf_value(&child));
        }
        true
    }
    #[inline]
    fn rollout(&mut self, state: &mut Surakarta, rng: &mut Rng) -> Outcome {
        let Heuristics {
            lead,
            steps,
            cutoff,
            captures,
            ..
        } = self.heuristics;
        let mut moves = MoveList::new();
        let mut played = 0;
        // The lead changes only with a capture (the no-capture count back to 0).
        let mut check_lead = lead > 0;
        loop {
            if state.is_terminal() {
                return state.outcome_by_pieces();
            }
            if check_lead && state.piece_difference().unsigned_abs() > lead {
                return state.outcome_by_pieces();
            }
            if steps > 0 && played >= steps {
                return match cutoff {
                    Cutoff::Draw => Outcome::Draw,
                    Cutoff::Pieces => state.outcome_by_pieces(),
                };
            }
            if captures > 0.0
                && (rng.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32) < captures
            {
                state.captures_into(&mut moves);
                if !moves.is_empty() {
                    let pick = rng.pick(moves.as_slice());
                    state.apply(pick);
                    played += 1;
                    check_lead = lead > 0;
                    continue;
                }
            }
            state.play_random(&mut moves, rng);
            played += 1;
            check_lead = lead > 0 && state.quiet_plies() == 0;
        }
    }

    #[inline]
    fn gives_bias(&self) -> bool {
        self.heuristics.energy.is_some()
    }

    fn child_bias(&mut self, state: &Surakarta, actions: &[Action], out: &mut Vec<f32>) {
        out.clear();
        if let Some(weights) = self.heuristics.energy {
            let relative = self.heuristics.relative;
            out.extend(actions.iter().map(|&a| {
                // The opponent's terms cost as much again: only when they count.
                let f = if relative {
                    let (mine, theirs) = state.energy_terms_both_after(a);
                    weights.energy(mine) - weights.energy(theirs)
                } else {
                    weights.energy(state.energy_terms_after(a))
                };
                2.0 * f
            }));
        }
    }
}
