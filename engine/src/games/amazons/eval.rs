//! The Amazons evaluation of the MG-PEO paper (its Eq. 1-7, after Guo et al. and Lieberum):
//! named terms and one weight vector per game phase, so that `tune` can search the weights.
//!
//! Terms, all from P1's point of view over the empty squares `a`, with `Q_p(a)` and `K_p(a)` the
//! fewest queen moves and king moves side `p`'s amazons need to reach `a` (infinite when
//! unreachable):
//!
//! * `t1`, `t2` (territory): +1 for every square P1 reaches first, -1 for every square P2
//!   reaches first, `±k` for a tie (in favour of the side to move, which gets there first), 0 for
//!   a square nobody reaches; `t1` by queen moves, `t2` by king moves.
//! * `p1 = 2 Σ (2^-Q_P1(a) - 2^-Q_P2(a))`, `p2 = Σ clamp((K_P2(a) - K_P1(a)) / 6, -1, 1)`
//!   (position).
//! * `mobility = Σ F(P1's amazons) - Σ F(P2's amazons)`, where `F(s)` of an empty square is its
//!   number of empty neighbours and `F(amazon) = Σ F(s) / D(amazon, s)` over the squares `s` it
//!   reaches in one queen move, `D` the king distance (on an open ray, the number of steps).
//!
//! `value = w · (t1, t2, p1, p2, mobility)` with the weights of the phase, by the share of the
//! board covered by arrows: opening below 20% (10x10: arrows 0-19), middle below 50% (20-49),
//! ending after. The paper's Table 1 weights are [`EvalWeights::paper`].
//!
//! Everything is bitboard arithmetic on `u128`: distance layers by fills, the territory and
//! position sums by popcounts, the neighbour counts `F` as bit-sliced counters. No allocation.

use super::board::{king_step, queen_step, shift, shifts_of, Bits};
use super::Amazons;
use crate::game::{Game, Player};

/// The term names, in the order of [`EvalTerms::as_array`] and of each phase's weights.
pub const TERM_NAMES: [&str; 5] = ["t1", "t2", "p1", "p2", "mobility"];
/// The phases, in the order of [`EvalWeights::phases`].
pub const PHASE_NAMES: [&str; 3] = ["opening", "middle", "ending"];

/// The terms of one position, from P1's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EvalTerms {
    pub t1: f32,
    pub t2: f32,
    pub p1: f32,
    pub p2: f32,
    pub mobility: f32,
    /// Lieberum's `w = Σ 2^-|Q_P1(a) - Q_P2(a)|` over the squares both sides reach: how much
    /// of the board is still contested (large in the opening, 0 once the regions are apart).
    /// Not a weighted term: the GA paper's segments are chosen by it.
    pub w: f32,
}

impl EvalTerms {
    /// The terms from the queen half `(t1, p1, w)` and the king half `(t2, p2, mobility)`.
    pub fn from_halves(
        (t1, p1, w): (f32, f32, f32),
        (t2, p2, mobility): (f32, f32, f32),
    ) -> EvalTerms {
        EvalTerms {
            t1,
            t2,
            p1,
            p2,
            mobility,
            w,
        }
    }

    pub fn as_array(&self) -> [f32; 5] {
        [self.t1, self.t2, self.p1, self.p2, self.mobility]
    }
}

/// A weight vector per phase, the tie constant and the phase boundaries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvalWeights {
    /// `phases[phase][term]`, terms in [`TERM_NAMES`] order.
    pub phases: [[f32; 5]; 3],
    /// The tie constant `k` of `t1`, `t2` (0 < k < 1), counted for the side to move.
    pub tie: f32,
    /// Arrow coverage (share of the board's squares) where the middle game and the ending begin.
    pub boundaries: [f32; 2],
    /// Per phase, what the evaluation gives the side that made the last move merely for having
    /// moved (subtracted from its value): the static terms count a move's gains before the
    /// reply, so positions evaluated after one side's move and after the other's differ by
    /// about twice this. 0 in the paper.
    pub tempo: [f32; 3],
    /// Per phase, what a position in the middle of a turn (queen moved, arrow not yet shot)
    /// overrates for the side moving, beyond the tempo: the arrow that will land also blocks
    /// its own amazons. Subtracted from the mover's value so that a queen move is worth about
    /// what its best arrow will be. 0 in the paper (which evaluates whole turns).
    pub pending_arrow: [f32; 3],
    /// The GA paper's evaluation instead of `phases`, when set: weights of t1, t2, c1 (= p1),
    /// c2 (= p2) in five segments of `w` (its Eq. 2).
    pub w_segments: Option<WSegments>,
}

/// The GA paper's weights (Qiu et al., Eq. 2): `value = wt1 t1 + wt2 t2 + wc1 c1 + wc2 c2` with
/// one weight vector for each segment of `w`: (70, 45), (45, 30), (30, 20), (20, 10), (10, 0).
/// Its `c1`, `c2` (the strength of the space ownership) are our `p1`, `p2`; it has no mobility.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WSegments {
    /// `weights[segment][term]`, terms t1, t2, c1, c2.
    pub weights: [[f32; 4]; 5],
}

impl WSegments {
    /// Where the segments end, from the first (w above 45, and above 70 too) to the last.
    pub const BOUNDS: [f32; 4] = [45.0, 30.0, 20.0, 10.0];
    pub const NAMES: [&'static str; 5] = ["w70-45", "w45-30", "w30-20", "w20-10", "w10-0"];
    pub const TERMS: [&'static str; 4] = ["t1", "t2", "c1", "c2"];

    /// The segment of a position whose `w` is `w`.
    #[inline]
    pub fn segment(w: f32) -> usize {
        WSegments::BOUNDS.iter().take_while(|&&b| w < b).count()
    }

    /// The MG-PEO paper's Table 1 in this shape (mobility dropped): its opening weights for the
    /// first two segments, the middle game's for the third, the ending's for the last two.
    pub fn from_phases(phases: &[[f32; 5]; 3]) -> WSegments {
        let four = |p: &[f32; 5]| [p[0], p[1], p[2], p[3]];
        WSegments {
            weights: [
                four(&phases[0]),
                four(&phases[0]),
                four(&phases[1]),
                four(&phases[2]),
                four(&phases[2]),
            ],
        }
    }

    #[inline]
    pub fn value(&self, terms: &EvalTerms) -> f32 {
        let w = &self.weights[WSegments::segment(terms.w)];
        w[0] * terms.t1 + w[1] * terms.t2 + w[2] * terms.p1 + w[3] * terms.p2
    }
}

impl Default for EvalWeights {
    fn default() -> EvalWeights {
        EvalWeights::paper()
    }
}

impl EvalWeights {
    /// The paper's Table 1.
    pub fn paper() -> EvalWeights {
        EvalWeights {
            phases: [
                [0.14, 0.37, 0.13, 0.13, 0.20],
                [0.30, 0.25, 0.20, 0.20, 0.05],
                [0.80, 0.10, 0.05, 0.05, 0.00],
            ],
            tie: 0.2,
            boundaries: [0.2, 0.5],
            tempo: [0.0; 3],
            pending_arrow: [0.0; 3],
            w_segments: None,
        }
    }

    /// The paper's weights with the tempo and pending-arrow corrections measured on greedy
    /// games (the `measure_tempo_and_pending_arrow` test prints them; docs/amazons.md).
    pub fn corrected() -> EvalWeights {
        EvalWeights {
            tempo: [2.9, 0.25, -0.5],
            pending_arrow: [3.1, 1.4, 1.0],
            ..EvalWeights::paper()
        }
    }

    /// The phase (0 opening, 1 middle, 2 ending) of a position with `arrows` arrows on a board
    /// of `squares` squares.
    #[inline]
    pub fn phase(&self, arrows: u32, squares: u32) -> usize {
        let covered = arrows as f32 / squares as f32;
        if covered < self.boundaries[0] {
            0
        } else if covered < self.boundaries[1] {
            1
        } else {
            2
        }
    }

    /// The weights `tune` tunes (the phases' and the GA paper's segments) from `tuned`, the
    /// rest (tie, boundaries, corrections) kept.
    pub fn take_tuned(&mut self, tuned: &EvalWeights) {
        self.phases = tuned.phases;
        self.w_segments = tuned.w_segments;
    }

    /// The weighted sum of `terms` in `phase`.
    #[inline]
    pub fn value(&self, terms: &EvalTerms, phase: usize) -> f32 {
        let w = &self.phases[phase];
        let t = terms.as_array();
        w.iter().zip(t).map(|(w, t)| w * t).sum()
    }

    /// The 15 weights as one vector (phase by phase), for a tuner.
    pub fn to_vector(&self) -> Vec<f32> {
        self.phases.iter().flatten().copied().collect()
    }

    /// Weights from a vector of 15 (phase by phase), keeping the tie constant and boundaries.
    pub fn from_vector(&self, v: &[f32]) -> Result<EvalWeights, String> {
        if v.len() != 15 {
            return Err(format!(
                "expected 15 weights (3 phases x 5 terms), got {}",
                v.len()
            ));
        }
        let mut w = *self;
        for (i, x) in v.iter().enumerate() {
            w.phases[i / 5][i % 5] = *x;
        }
        Ok(w)
    }
}

/// Distances are tracked up to this many steps; farther squares count as unreachable (a king
/// path this long needs a maze of arrows the board cannot hold in practice).
const MAX_LAYERS: usize = 48;

/// `2^-k` for every difference of two distances.
const HALF_POWERS: [f32; MAX_LAYERS + 1] = {
    let mut t = [1.0f32; MAX_LAYERS + 1];
    let mut k = 1;
    while k <= MAX_LAYERS {
        t[k] = t[k - 1] * 0.5;
        k += 1;
    }
    t
};

/// Distance layers of both sides, filled in lockstep: `reach[p][d]` is every square side `p`
/// reaches in at most `d` moves (`reach[p][0]` empty).
struct Layers {
    reach: [[Bits; MAX_LAYERS + 1]; 2],
    /// The last `d` at which each side's reach grew.
    last: [usize; 2],
}

impl Layers {
    #[inline(always)]
    fn fill(pieces: [Bits; 2], empty: Bits, step: impl Fn(Bits) -> Bits) -> Layers {
        let mut layers = Layers {
            reach: [[0; MAX_LAYERS + 1]; 2],
            last: [0; 2],
        };
        for (side, &amazons) in pieces.iter().enumerate() {
            let mut frontier = amazons;
            let mut reached: Bits = 0;
            let mut d = 0;
            while frontier != 0 && d < MAX_LAYERS {
                let next = step(frontier) & empty & !reached;
                if next == 0 {
                    break;
                }
                d += 1;
                reached |= next;
                layers.reach[side][d] = reached;
                frontier = next;
            }
            layers.last[side] = d;
            for slot in layers.reach[side].iter_mut().skip(d + 1) {
                *slot = reached;
            }
        }
        layers
    }

    /// Squares side `p` reaches in exactly `d` moves.
    #[inline]
    fn layer(&self, p: usize, d: usize) -> Bits {
        self.reach[p][d] & !self.reach[p][d - 1]
    }

    #[inline]
    fn at_most(&self, p: usize, d: usize) -> Bits {
        self.reach[p][d.min(MAX_LAYERS)]
    }

    /// Territory: (P1 closer) - (P2 closer) + tie * ties.
    fn territory(&self, tie: f32) -> f32 {
        let depth = self.last[0].max(self.last[1]);
        let (mut mine, mut theirs, mut ties) = (0u32, 0u32, 0u32);
        for d in 1..=depth {
            let (a, b) = (self.layer(0, d), self.layer(1, d));
            mine += (a & !self.reach[1][d]).count_ones();
            theirs += (b & !self.reach[0][d]).count_ones();
            ties += (a & b).count_ones();
        }
        mine as f32 - theirs as f32 + tie * ties as f32
    }

    /// `Σ 2^-|D_P1 - D_P2|` over the squares both sides reach.
    fn contest(&self) -> f32 {
        let mut sum = 0.0f32;
        for d1 in 1..=self.last[0] {
            let mine = self.layer(0, d1);
            if mine == 0 {
                continue;
            }
            for d2 in 1..=self.last[1] {
                let both = (mine & self.layer(1, d2)).count_ones();
                sum += both as f32 * HALF_POWERS[d1.abs_diff(d2)];
            }
        }
        sum
    }

    /// `2 Σ (2^-D_P1 - 2^-D_P2)`.
    fn position_powers(&self) -> f32 {
        let mut sum = 0.0f32;
        let mut scale = 1.0f32;
        for d in 1..=self.last[0].max(self.last[1]) {
            scale *= 0.5;
            let diff = self.layer(0, d).count_ones() as f32 - self.layer(1, d).count_ones() as f32;
            sum += scale * diff;
        }
        2.0 * sum
    }

    /// `Σ clamp((D_P2 - D_P1) / 6, -1, 1)`, as (1/6) Σ_m (#[D_P2 - D_P1 >= m] - #[D_P1 - D_P2 >= m]).
    fn position_clamped(&self) -> f32 {
        let mut count = 0i32;
        for (me, other) in [(0usize, 1usize), (1, 0)] {
            let sign = if me == 0 { 1 } else { -1 };
            for d in 1..=self.last[me] {
                let layer = self.layer(me, d);
                for m in 1..=6 {
                    count += sign * (layer & !self.at_most(other, d + m - 1)).count_ones() as i32;
                }
            }
        }
        count as f32 / 6.0
    }
}

/// The bit-sliced count of empty neighbours of every square (`F` of the paper): bit `i` of each
/// square's count is in `planes[i]`.
#[inline(always)]
fn neighbour_counts<const W: i32>(empty: Bits) -> [Bits; 4] {
    let mut planes = [0 as Bits; 4];
    for s in shifts_of(W) {
        // Squares whose neighbour in this direction is empty.
        let mut carry = shift(empty, -s);
        for plane in planes.iter_mut() {
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
            if carry == 0 {
                break;
            }
        }
    }
    planes
}

/// `Σ F(s)` over the squares of `set`.
#[inline]
fn sum_counts(planes: &[Bits; 4], set: Bits) -> u32 {
    (set & planes[0]).count_ones()
        + 2 * (set & planes[1]).count_ones()
        + 4 * (set & planes[2]).count_ones()
        + 8 * (set & planes[3]).count_ones()
}

/// `Σ F(amazon)` over the amazons of `pieces`: ray by ray, the squares `d` steps out weigh `1/d`.
/// Rays of one direction from different amazons never share a square, so all four amazons
/// advance together.
#[inline(always)]
fn mobility<const W: i32>(pieces: Bits, empty: Bits, planes: &[Bits; 4]) -> f32 {
    let s = shifts_of(W);
    ray_mobility(pieces, empty, planes, s[0])
        + ray_mobility(pieces, empty, planes, s[1])
        + ray_mobility(pieces, empty, planes, s[2])
        + ray_mobility(pieces, empty, planes, s[3])
        + ray_mobility(pieces, empty, planes, s[4])
        + ray_mobility(pieces, empty, planes, s[5])
        + ray_mobility(pieces, empty, planes, s[6])
        + ray_mobility(pieces, empty, planes, s[7])
}

/// The part of [`mobility`] along the direction of shift `s`.
#[inline(always)]
fn ray_mobility(pieces: Bits, empty: Bits, planes: &[Bits; 4], s: i32) -> f32 {
    const INVERSE: [f32; 10] = [
        0.0,
        1.0,
        1.0 / 2.0,
        1.0 / 3.0,
        1.0 / 4.0,
        1.0 / 5.0,
        1.0 / 6.0,
        1.0 / 7.0,
        1.0 / 8.0,
        1.0 / 9.0,
    ];
    let mut total = 0.0f32;
    let mut front = shift(pieces, s) & empty;
    let mut d = 1;
    while front != 0 {
        total += sum_counts(planes, front) as f32 * INVERSE[d];
        front = shift(front, s) & empty;
        d += 1;
    }
    total
}

/// What the evaluation reads of a position: the board, and the tie constant signed for the
/// side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvalInput {
    pub width: u32,
    pub empty: Bits,
    pub pieces: [Bits; 2],
    pub tie: f32,
}

impl EvalInput {
    /// The input of `game` (an arrow due is ignored: the position as the board stands).
    #[inline]
    pub fn of(game: &Amazons, tie: f32) -> EvalInput {
        EvalInput {
            width: game.geometry().width as u32,
            empty: game.empty(),
            pieces: [game.pieces(Player::P1), game.pieces(Player::P2)],
            tie: if game.to_move() == Player::P1 {
                tie
            } else {
                -tie
            },
        }
    }
}

/// The terms of `game` (an arrow due is ignored: the position as the board stands).
pub fn terms(game: &Amazons, tie: f32) -> EvalTerms {
    let input = EvalInput::of(game, tie);
    EvalTerms::from_halves(queen_terms(&input), king_and_mobility_terms(&input))
}

/// `(t1, p1, w)`: the terms of the queen-move distances (the larger half of the work).
pub fn queen_terms(input: &EvalInput) -> (f32, f32, f32) {
    match input.width {
        11 => queen_terms_of_width::<11>(input),
        9 => queen_terms_of_width::<9>(input),
        _ => queen_terms_of_width::<7>(input),
    }
}

/// `(t2, p2, mobility)`: the terms of the king-move distances and the mobility.
pub fn king_and_mobility_terms(input: &EvalInput) -> (f32, f32, f32) {
    match input.width {
        11 => king_and_mobility_of_width::<11>(input),
        9 => king_and_mobility_of_width::<9>(input),
        _ => king_and_mobility_of_width::<7>(input),
    }
}

#[inline(never)]
fn queen_terms_of_width<const W: i32>(input: &EvalInput) -> (f32, f32, f32) {
    let empty = input.empty;
    let queen = Layers::fill(input.pieces, empty, |set| queen_step::<W>(set, empty));
    (
        queen.territory(input.tie),
        queen.position_powers(),
        queen.contest(),
    )
}

#[inline(never)]
fn king_and_mobility_of_width<const W: i32>(input: &EvalInput) -> (f32, f32, f32) {
    let empty = input.empty;
    let king = Layers::fill(input.pieces, empty, king_step::<W>);
    let planes = neighbour_counts::<W>(empty);
    let mobility = mobility::<W>(input.pieces[0], empty, &planes)
        - mobility::<W>(input.pieces[1], empty, &planes);
    (king.territory(input.tie), king.position_clamped(), mobility)
}

/// The evaluation with its weights: a value from P1's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Evaluator {
    pub weights: EvalWeights,
}

impl Evaluator {
    pub fn new(weights: EvalWeights) -> Evaluator {
        Evaluator { weights }
    }

    /// The value of `game` for P1 (positive: P1 is better).
    #[inline]
    pub fn value(&self, game: &Amazons) -> f32 {
        self.value_of_terms(&terms(game, self.weights.tie), game)
    }

    /// The weighted sum of `game`'s terms, by `game`'s phase.
    #[inline]
    pub fn value_of_terms(&self, terms: &EvalTerms, game: &Amazons) -> f32 {
        let squares = (game.size() * game.size()) as u32;
        let phase = self.weights.phase(game.arrows_shot(), squares);
        let value = match &self.weights.w_segments {
            None => self.weights.value(terms, phase),
            Some(segments) => segments.value(terms),
        };
        // The last ply was P1's when P2 is to move at a turn's start, or P1 is mid-turn.
        let p1_moved_last = (game.to_move() == Player::P2) != game.mid_turn();
        let mut tempo = self.weights.tempo[phase];
        if game.mid_turn() {
            tempo += self.weights.pending_arrow[phase];
        }
        if p1_moved_last {
            value - tempo
        } else {
            value + tempo
        }
    }

    /// The value of `game` for `player`.
    #[inline]
    pub fn value_for(&self, game: &Amazons, player: Player) -> f32 {
        let v = self.value(game);
        if player == Player::P1 {
            v
        } else {
            -v
        }
    }
}

/// The terms computed square by square from distance arrays: the definition, as a test oracle.
#[cfg(test)]
pub fn terms_by_definition(game: &Amazons, tie: f32) -> EvalTerms {
    use super::board::BitIter;
    let geo = game.geometry();
    let empty = game.empty();
    let n = geo.n;
    let inf = u32::MAX;
    // Breadth-first distances from a side's amazons, by queen or king moves.
    let distances = |side: Player, queen: bool| -> Vec<u32> {
        let mut dist = vec![inf; 128];
        let mut frontier: Vec<u32> = BitIter(game.pieces(side)).collect();
        let mut d = 0;
        while !frontier.is_empty() {
            d += 1;
            let mut next = Vec::new();
            for &b in &frontier {
                let targets = if queen {
                    geo.queen_reach(b, empty)
                } else {
                    geo.king[b as usize] & empty
                };
                for t in BitIter(targets) {
                    if dist[t as usize] == inf {
                        dist[t as usize] = d;
                        next.push(t);
                    }
                }
            }
            frontier = next;
        }
        dist
    };
    let tie = if game.to_move() == Player::P1 {
        tie
    } else {
        -tie
    };
    let (q1, q2) = (distances(Player::P1, true), distances(Player::P2, true));
    let (k1, k2) = (distances(Player::P1, false), distances(Player::P2, false));
    let delta = |a: u32, b: u32| -> f32 {
        if a == inf && b == inf {
            0.0
        } else if a == b {
            tie
        } else if a < b {
            1.0
        } else {
            -1.0
        }
    };
    let pow = |d: u32| if d == inf { 0.0 } else { 0.5f32.powi(d as i32) };
    let mut t = EvalTerms::default();
    for a in BitIter(empty) {
        let a = a as usize;
        t.t1 += delta(q1[a], q2[a]);
        t.t2 += delta(k1[a], k2[a]);
        t.p1 += 2.0 * (pow(q1[a]) - pow(q2[a]));
        if !(k1[a] == inf && k2[a] == inf) {
            let diff = k2[a].min(1000) as f32 - k1[a].min(1000) as f32;
            t.p2 += (diff / 6.0).clamp(-1.0, 1.0);
        }
        if q1[a] != inf && q2[a] != inf {
            t.w += 0.5f32.powi(q1[a].abs_diff(q2[a]) as i32);
        }
    }
    let f = |s: u32| (geo.king[s as usize] & empty).count_ones() as f32;
    for (side, sign) in [(Player::P1, 1.0f32), (Player::P2, -1.0)] {
        for amazon in BitIter(game.pieces(side)) {
            let (f0, r0) = geo.coords(amazon);
            for t_bit in BitIter(geo.queen_reach(amazon, empty)) {
                let (f1, r1) = geo.coords(t_bit);
                let d = (f0 as i32 - f1 as i32)
                    .abs()
                    .max((r0 as i32 - r1 as i32).abs());
                t.mobility += sign * f(t_bit) / d as f32;
            }
        }
    }
    let _ = n;
    t
}
