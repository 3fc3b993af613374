//! The heuristic paper's energy function (its section 4.1): `F(s) = aP FP + aA FA + aD FD`,
//! for the player who has just moved into `s`.
//!
//! * `FP`, position: the sum of the paper's map (Eq. 2) over the player's pieces: corners 0,
//!   edges 5, the circuits' crossing points 10 and the other circuit points 20.
//! * `FA`, attack: the player's pieces that can capture ("the more captures, the more
//!   aggressive").
//! * `FD`, defence: the player's pieces that another of its pieces reaches along a circuit, so
//!   that an enemy piece capturing one of them could be captured in return. (The capturer's
//!   own point, which the capture empties, is not taken into account: the occupancy is the
//!   present one.)
//!
//! The paper's weights are `aP = 0.000025`, `aA = 0.03`, `aD = 0.03`; they are a weight vector
//! `tune` can tune ([`super::tuning`]).

use super::circuits::{reach, Rings};
use super::{Surakarta, POINTS};
use crate::game::{Action, Player};

/// The paper's position map (Eq. 2), a1 first; it is symmetric, so the ranks' order does not
/// matter.
pub const POSITION_MAP: [u32; POINTS] = [
    0, 5, 5, 5, 5, 0, //
    5, 10, 20, 20, 10, 5, //
    5, 20, 10, 10, 20, 5, //
    5, 20, 10, 10, 20, 5, //
    5, 10, 20, 20, 10, 5, //
    0, 5, 5, 5, 5, 0, //
];

/// The weights of the energy's three terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnergyWeights {
    pub position: f32,
    pub attack: f32,
    pub defence: f32,
}

impl EnergyWeights {
    /// The paper's weights.
    pub const PAPER: EnergyWeights = EnergyWeights {
        position: 0.000025,
        attack: 0.03,
        defence: 0.03,
    };

    /// The weights' names, as spec keys and weights files write them.
    pub const NAMES: [&'static str; 3] = ["position", "attack", "defence"];

    pub fn to_vec(self) -> Vec<f32> {
        vec![self.position, self.attack, self.defence]
    }

    /// The weights from a vector in [`NAMES`](Self::NAMES) order.
    pub fn from_slice(w: &[f32]) -> EnergyWeights {
        EnergyWeights {
            position: w[0],
            attack: w[1],
            defence: w[2],
        }
    }

    /// `F` for these terms.
    #[inline]
    pub fn energy(&self, terms: EnergyTerms) -> f32 {
        self.position * terms.position as f32
            + self.attack * terms.attack as f32
            + self.defence * terms.defence as f32
    }
}

impl Default for EnergyWeights {
    fn default() -> EnergyWeights {
        EnergyWeights::PAPER
    }
}

/// The three terms of one player's energy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnergyTerms {
    pub position: u32,
    pub attack: u32,
    pub defence: u32,
}

/// The terms of `own`'s energy against `enemy`'s pieces.
#[inline]
pub fn energy_terms(own: u64, enemy: u64) -> EnergyTerms {
    let rings = Rings::of(own | enemy);
    let (mut position, mut attack, mut reached) = (0, 0, 0u64);
    let mut rest = own;
    while rest != 0 {
        let p = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        position += POSITION_MAP[p];
        let r = reach(p, rings);
        attack += u32::from(r & enemy != 0);
        reached |= r;
    }
    EnergyTerms {
        position,
        attack,
        defence: (reached & own).count_ones(),
    }
}

impl Surakarta {
    /// The terms of `player`'s energy in this position.
    pub fn energy_terms(&self, player: Player) -> EnergyTerms {
        energy_terms(self.pieces(player), self.pieces(player.opponent()))
    }

    /// The terms of the mover's energy after `action` (legal here), without playing it.
    #[inline]
    pub fn energy_terms_after(&self, action: Action) -> EnergyTerms {
        let (own, enemy) = self.pieces_after(action);
        energy_terms(own, enemy)
    }

    /// The terms of the mover's energy and of the opponent's after `action`.
    #[inline]
    pub fn energy_terms_both_after(&self, action: Action) -> (EnergyTerms, EnergyTerms) {
        let (own, enemy) = self.pieces_after(action);
        (energy_terms(own, enemy), energy_terms(enemy, own))
    }

    /// The mover's pieces and the opponent's after `action`.
    #[inline]
    fn pieces_after(&self, action: Action) -> (u64, u64) {
        let (from, to) = (action as usize / POINTS, action as usize % POINTS);
        let me = self.to_move;
        let own = self.pieces(me) ^ ((1 << from) | (1 << to));
        (own, self.pieces(me.opponent()) & !(1 << to))
    }
}
