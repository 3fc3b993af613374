//! Net-guided rollouts for Dots and Boxes: the paper's Algorithm 5 (section 5.2). At each step
//! of a rollout the net predicts (P1 wins, P2 wins, draw); once the largest reaches the
//! threshold the rollout stops and that outcome is backed up, otherwise one random move is
//! played and the net asked again.
//!
//! The hidden pre-activations are kept along the rollout and updated by the inputs a move
//! changes (one edge, at most two boxes), so a step costs three column adds, a hundred
//! sigmoids and three dot products instead of the 85 x 100 product. Each search starts them
//! once from its root; a rollout starts from the root's by the edges and boxes its leaf adds.
//!
//! The cut-off test runs on logits: `sigmoid(z) >= t` exactly when `z >= ln(t / (1 - t))`, so
//! the outputs need no sigmoid at all.

use std::sync::Arc;

use super::policy::DabPolicy;
use crate::game::{Game, Outcome, Player};
use crate::games::dots_and_boxes::analysis::{capture_and_safe_edges, random_edge, take_all};
use crate::games::dots_and_boxes::endgame::MoveOrder;
use crate::games::dots_and_boxes::late::late_features;
use crate::games::dots_and_boxes::rollout::Turn;
use crate::games::dots_and_boxes::ChainRollout;
use crate::games::dots_and_boxes::{
    Geometry, FEATURE_BOX_FREE, FEATURE_BOX_P1, FEATURE_BOX_P2, FEATURE_EDGE_DRAWN,
    FEATURE_EDGE_FREE, MAX_EDGES,
};
use crate::games::DotsAndBoxes;
use crate::mcts::{Reward, RolloutPolicy, RolloutStats, Ucb};
use crate::nn::inference::{add_into, FastNet, Simd};
use crate::nn::{draw_by_softmax, ValueNet, OUTPUTS};
use crate::rng::{HalfDraws, Rng};

/// How the net guides rollouts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetGuide {
    /// A rollout stops once the largest output reaches this (the paper's 0.9). In (0, 1]; at 1
    /// the net is asked at every step but never stops a rollout.
    pub threshold: f64,
    /// The net is asked only in positions with at least this many edges drawn (the paper used
    /// random rollouts early in the game, where the net is least sure and a call costs most).
    pub from_move: u32,
    /// With chain rollouts: the net is asked at the leaves only in positions with fewer than
    /// this many edges drawn (0: no limit), where the play-outs are longest; later leaves get
    /// the play-out alone (key `net_until_move`).
    pub until_move: u32,
    /// With chain rollouts (the product's search): the chance that a leaf the net is not sure
    /// of is scored by a draw from the net's own outputs instead of a rollout, so that a leaf's
    /// expected reward mixes the net's estimate and the rollout's (0: rollouts only).
    pub mix: f64,
    /// With chain rollouts: the net is asked at the leaf only (`false`, the default), or also
    /// at the start of every turn of the play-out, ending it once sure (`true`, key `ask=turns`).
    pub every_turn: bool,
    /// With chain rollouts: the weight of the net's expectation in a leaf's reward when it is
    /// not sure (AlphaGo's mixing: `blend * (P(P1 wins) - P(P2 wins)) + (1 - blend) * the
    /// rollout's result`, the net's value as a number rather than a draw as `mix` makes it; 0:
    /// rollouts only).
    pub blend: f64,
    /// With chain rollouts: the weight of the net's view of each child as a selection bias
    /// (progressive bias: `prior * (P(mover wins) - P(mover loses))` of the child, fading as
    /// `1 / (visits + 1)`), so that the tree tries first the moves the net likes (0: none).
    pub prior: f64,
    /// When positive, the prior is instead the child's value worth this many visits (Gelly and
    /// Silver's equivalent experience, [`Ucb::with_prior_visits`]), fading
    /// only as the child's own visits outweigh it (0: the progressive bias).
    pub prior_visits: f64,
    /// A node's children get their first visits in the order of the prior's biases (best
    /// first) instead of a random order, as a policy net's do: on a big board a node's first
    /// sweep over its children is most of its visits, and the bias acts only after it.
    pub order: bool,
}

impl NetGuide {
    pub const DEFAULT_THRESHOLD: f64 = 0.9;

    /// Checks the settings: a message naming the bad one.
    pub fn check(&self) -> Result<(), String> {
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(format!(
                "threshold must be above 0 and at most 1, got {}",
                self.threshold
            ));
        }
        if !(0.0..=1.0).contains(&self.mix) {
            return Err(format!("mix is a chance from 0 to 1, got {}", self.mix));
        }
        if !(0.0..=1.0).contains(&self.blend) {
            return Err(format!("blend is a weight from 0 to 1, got {}", self.blend));
        }
        if !(self.prior.is_finite() && self.prior >= 0.0) {
            return Err(format!(
                "prior must be a non-negative number, got {}",
                self.prior
            ));
        }
        if !(self.prior_visits.is_finite() && self.prior_visits >= 0.0) {
            return Err(format!(
                "prior_visits must be a non-negative number, got {}",
                self.prior_visits
            ));
        }
        if self.prior_visits > 0.0 && self.prior <= 0.0 {
            return Err("prior_visits weighs the net's prior: it needs prior above 0".into());
        }
        if self.order && self.prior <= 0.0 {
            return Err("prior_order orders by the net's prior: it needs prior above 0".into());
        }
        if self.until_move > 0 && self.until_move <= self.from_move {
            return Err(format!(
                "net_until_move={} is not above net_from_move={}: the net would never be asked at a leaf",
                self.until_move, self.from_move
            ));
        }
        Ok(())
    }

    /// Whether chain play-outs ask the net at all: something must come of a call (a threshold
    /// below 1 to end them, `mix` or `blend` to use the outputs, or `ask=turns`). Otherwise
    /// the net serves only as the tree's prior.
    pub fn asks_in_play_outs(&self) -> bool {
        self.threshold < 1.0 || self.mix > 0.0 || self.blend > 0.0 || self.every_turn
    }

    /// The tree policy of a search the net guides, with UCB's constant `cp`: the net's prior
    /// fades with visits (progressive bias), or counts as `prior_visits` visits.
    pub fn tree_policy(&self, cp: f64) -> Ucb {
        Ucb::new(cp)
            .with_progressive_bias(true)
            .with_prior_visits(self.prior_visits)
    }

    /// The logit the largest output logit must reach: `ln(t / (1 - t))`, +inf at 1.
    pub fn threshold_logit(&self) -> f32 {
        if self.threshold >= 1.0 {
            f32::INFINITY
        } else {
            (self.threshold / (1.0 - self.threshold)).ln() as f32
        }
    }
}

impl Default for NetGuide {
    fn default() -> NetGuide {
        NetGuide {
            threshold: NetGuide::DEFAULT_THRESHOLD,
            from_move: 0,
            until_move: 0,
            mix: 0.0,
            every_turn: false,
            blend: 0.0,
            prior: 0.0,
            prior_visits: 0.0,
            order: false,
        }
    }
}

/// The net's hidden-layer columns rearranged for one Dots-and-Boxes board: per edge, what
/// drawing it adds to the pre-activations; per box and owner, what closing it adds.
pub struct DabNet {
    /// The net as loaded (for reference evaluations).
    reference: ValueNet,
    net: FastNet,
    geo: &'static Geometry,
    /// Pre-activations of the empty board (every box free, every edge free).
    empty: Vec<f32>,
    /// Per edge id, `width` floats: `(drawn - free) * column(edge)`.
    edge_delta: Vec<f32>,
    /// Per player (P1, P2) and box, `width` floats: `(closed by player - free) * column(box)`.
    box_delta: [Vec<f32>; 2],
    /// For a net that reads who is to move: its column (the input is 1 for P1, 0 for P2).
    to_move: Option<Vec<f32>>,
}

impl std::fmt::Debug for DabNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DabNet({}, {}-{}-{OUTPUTS})",
            self.reference.meta.game,
            self.reference.inputs(),
            self.reference.hidden()
        )
    }
}

impl DabNet {
    /// Lays `net` out for `board`'s size, after checking that it was made for it.
    pub fn new(net: &ValueNet, board: &DotsAndBoxes) -> Result<DabNet, String> {
        DabNet::with_simd(net, board, Simd::detect())
    }

    /// [`new`](Self::new) with the loops for `simd` (which the CPU must support).
    pub fn with_simd(net: &ValueNet, board: &DotsAndBoxes, simd: Simd) -> Result<DabNet, String> {
        let spec = crate::games::DotsAndBoxes::spec_for(board.rows(), board.cols())?;
        net.check_fits(spec, &super::value_encodings(board))?;
        let fast = FastNet::with_simd(net, simd);
        let geo = board.geometry();
        let w = fast.width();
        let mut empty = fast.bias().to_vec();
        let mut edge_delta = vec![0f32; geo.num_edges * w];
        for e in 0..geo.num_edges {
            let column = fast.column(geo.edge_feature[e] as usize);
            for (d, c) in edge_delta[e * w..(e + 1) * w].iter_mut().zip(column) {
                *d = (FEATURE_EDGE_DRAWN - FEATURE_EDGE_FREE) * c;
            }
            for (a, c) in empty.iter_mut().zip(column) {
                *a += FEATURE_EDGE_FREE * c;
            }
        }
        let mut box_delta = [vec![0f32; geo.num_boxes * w], vec![0f32; geo.num_boxes * w]];
        for b in 0..geo.num_boxes {
            let column = fast.column(geo.box_feature[b] as usize);
            for (owner, value) in [FEATURE_BOX_P1, FEATURE_BOX_P2].into_iter().enumerate() {
                for (d, c) in box_delta[owner][b * w..(b + 1) * w].iter_mut().zip(column) {
                    *d = (value - FEATURE_BOX_FREE) * c;
                }
            }
            for (a, c) in empty.iter_mut().zip(column) {
                *a += FEATURE_BOX_FREE * c;
            }
        }
        // The empty board has P1 to move: its to-move input is 1.
        let to_move = super::reads_to_move(&net.meta.encoding).then(|| {
            let column = fast.column(board.feature_len()).to_vec();
            for (a, c) in empty.iter_mut().zip(&column) {
                *a += c;
            }
            column
        });
        Ok(DabNet {
            reference: net.clone(),
            net: fast,
            geo,
            empty,
            edge_delta,
            box_delta,
            to_move,
        })
    }

    /// The net as loaded, with its metadata.
    pub fn value_net(&self) -> &ValueNet {
        &self.reference
    }

    /// The general layout (for full evaluation from an input vector).
    pub fn fast_net(&self) -> &FastNet {
        &self.net
    }

    /// Length of a pre-activation buffer.
    pub fn width(&self) -> usize {
        self.net.width()
    }

    #[inline]
    fn edge(&self, e: usize) -> &[f32] {
        let w = self.net.width();
        &self.edge_delta[e * w..(e + 1) * w]
    }

    #[inline]
    fn closed_box(&self, owner: Player, b: usize) -> &[f32] {
        let w = self.net.width();
        &self.box_delta[owner.index()][b * w..(b + 1) * w]
    }

    /// Adds to `acc` the change from a position with `from` edges and box owners to one with
    /// `to` (a superset: only what was added counts).
    #[inline]
    pub fn add_changes(&self, acc: &mut [f32], from: (u128, [u64; 2]), to: (u128, [u64; 2])) {
        let mut new_edges = to.0 & !from.0;
        while new_edges != 0 {
            add_into(acc, self.edge(new_edges.trailing_zeros() as usize));
            new_edges &= new_edges - 1;
        }
        for owner in [Player::P1, Player::P2] {
            let i = owner.index();
            let mut new_boxes = to.1[i] & !from.1[i];
            while new_boxes != 0 {
                add_into(
                    acc,
                    self.closed_box(owner, new_boxes.trailing_zeros() as usize),
                );
                new_boxes &= new_boxes - 1;
            }
        }
    }

    /// The hidden pre-activations of `state`, from the empty board's by its edges, boxes and
    /// player to move.
    pub fn preactivations(&self, state: &DotsAndBoxes, acc: &mut [f32]) {
        acc.copy_from_slice(&self.empty);
        self.add_changes(acc, (0, [0, 0]), (state.edges(), state.box_owners()));
        self.change_mover(acc, Player::P1, state.to_move());
    }

    /// Adds to `acc` what a change of the player to move changes (nothing for a net that does
    /// not read it).
    #[inline]
    pub fn change_mover(&self, acc: &mut [f32], from: Player, to: Player) {
        if let (Some(column), true) = (&self.to_move, from != to) {
            let sign = if to == Player::P1 { 1.0 } else { -1.0 };
            crate::nn::inference::add_scaled_into(acc, column, sign);
        }
    }

    /// Writes the net's input for `state` (its encoding's length) into `out`.
    pub fn encode(&self, state: &DotsAndBoxes, out: &mut [f32]) {
        let n = state.feature_len();
        state.encode_features(&mut out[..n]);
        if self.to_move.is_some() {
            out[n] = if state.to_move() == Player::P1 {
                1.0
            } else {
                0.0
            };
        }
    }

    /// Adds to `acc` what the move `edge`, played by `mover`, changes: the edge, and each box
    /// it closed (`closed[slot]` for the edge's first and second box).
    #[inline]
    pub fn add_move(&self, acc: &mut [f32], edge: usize, mover: Player, closed: [bool; 2]) {
        add_into(acc, self.edge(edge));
        for (slot, &was_closed) in closed.iter().enumerate() {
            if was_closed {
                let b = self.geo.edge_boxes[edge][slot] as usize;
                add_into(acc, self.closed_box(mover, b));
            }
        }
    }

    /// The output logits (P1 wins, P2 wins, draw) from pre-activations.
    #[inline]
    pub fn logits(&self, acc: &[f32]) -> [f32; OUTPUTS] {
        self.net.logits(acc)
    }
}

/// The outcome the net calls, if its largest output reaches `threshold_logit` (ties go to the
/// first of P1 wins, P2 wins, draw).
#[inline]
pub fn net_call(logits: [f32; OUTPUTS], threshold_logit: f32) -> Option<Outcome> {
    let mut best = 0;
    for k in 1..OUTPUTS {
        if logits[k] > logits[best] {
            best = k;
        }
    }
    (logits[best] >= threshold_logit).then_some(match best {
        0 => Outcome::P1Win,
        1 => Outcome::P2Win,
        _ => Outcome::Draw,
    })
}

/// An outcome drawn with the chances the net's outputs give (each output's sigmoid, over their
/// sum).
fn draw_outcome(logits: [f32; OUTPUTS], rng: &mut Rng) -> Outcome {
    let p = logits.map(crate::nn::sigmoid);
    let r = rng.unit_f64() as f32 * (p[0] + p[1] + p[2]);
    if r < p[0] {
        Outcome::P1Win
    } else if r < p[0] + p[1] {
        Outcome::P2Win
    } else {
        Outcome::Draw
    }
}

/// P1's expected result by the net's outputs (each output's sigmoid, over their sum): P(P1
/// wins) - P(P2 wins).
fn expectation(logits: [f32; OUTPUTS]) -> f32 {
    let p = logits.map(crate::nn::sigmoid);
    (p[0] - p[1]) / (p[0] + p[1] + p[2])
}

/// Algorithm 5 as a [`RolloutPolicy`] for Dots and Boxes. Clone one per search thread: the
/// tables are shared, the buffers are the clone's own (allocated once, not per rollout).
#[derive(Clone)]
pub struct NetRollout {
    net: Arc<DabNet>,
    threshold_logit: f32,
    from_move: u32,
    until_move: u32,
    mix: f64,
    every_turn: bool,
    blend: f32,
    /// The net's expectation (P1's) at the last leaf it was asked at and not sure of, and its
    /// weight in the leaf's reward (`blend`, or the late net's `late_weight` within its horizon).
    leaf_value: Option<(f32, f32)>,
    /// Whether any leaf's reward may be blended (`blend` > 0 or a blending late net).
    blends: bool,
    prior: f32,
    /// Whether a chain rollout's leaf asks the net: not when nothing can come of it (a
    /// threshold of 1 ends no play-out, and no `mix`, `blend` or `ask=turns` reads it).
    leaf_asks: bool,
    /// First visits in the order of the biases ([`NetGuide::order`]).
    order: bool,
    /// A child's pre-activations, while the children of a node are given their biases.
    child_acc: Vec<f32>,
    /// The root of the current search (edges, owners, player to move) and its pre-activations.
    root: Option<(u128, [u64; 2], Player)>,
    root_acc: Vec<f32>,
    acc: Vec<f32>,
    stats: RolloutStats,
    /// With `rollout=chains`: the net is asked once at the leaf and, when it is not sure, the
    /// leaf is played out by safe edges and the exact endgame instead of at random.
    chains: Option<ChainRollout>,
    /// With chains: a net of exact outcomes that ends each play-out at its horizon.
    late: Option<LateNet>,
    /// A policy net whose shares of a node's moves become their biases, and its weight (0:
    /// no biases).
    policy: Option<(DabPolicy, f32)>,
    /// With a policy net: the temperature at which it draws the chain rollouts' free moves
    /// (0: they are drawn uniformly).
    policy_rollout: f32,
    /// The policy's shares of the children being given their biases.
    shares: Vec<f32>,
}

/// What a late net does in the chain play-outs (`late_use=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LateUse {
    /// `end`: it ends each play-out at the first turn within its horizon that still has a safe
    /// edge, by an outcome drawn with its chances.
    End,
    /// `pick`: it plays the play-out's free moves within its horizon, each the one that leaves
    /// the opponent the worst position by the net ([`LateNet::pick`]); the exact endgame still
    /// ends the play-out.
    Pick,
    /// `sure`: it ends a play-out at a turn within its horizon with a safe edge only when it
    /// gives one outcome at least [`LateNet::SURE`] (QDab ends its play-outs so).
    Sure,
    /// `prior`: it leaves the play-outs alone and gives the tree's children within its horizon
    /// a selection bias instead ([`LateNet::prior_biases`]), as the value net's `prior=` does
    /// further from the end.
    Prior,
    /// `blend`: at a leaf within its horizon that has a safe edge and no box to take, its
    /// expectation (in place of the value net's) makes `late_weight` of the leaf's reward, the
    /// rollout's result the rest; the play-outs are left alone, except at a `late_weight` of 1,
    /// where the net's value is the whole reward and no play-out runs.
    Blend,
}

impl LateUse {
    pub fn parse(text: &str) -> Option<LateUse> {
        match text {
            "end" => Some(LateUse::End),
            "pick" => Some(LateUse::Pick),
            "sure" => Some(LateUse::Sure),
            "prior" => Some(LateUse::Prior),
            "blend" => Some(LateUse::Blend),
            _ => None,
        }
    }
}

/// A late net (`late=`, `horizon=`, `late_use=`): trained on perfect-play outcomes of positions
/// at most `horizon` free edges from the end (`engine label`, encoding `dab-late-v1`), or on
/// recorded searches' values there (`train run --encoding late --value-targets search`), it
/// either scores a chain rollout at the first turn there that still has a safe edge, by an
/// outcome drawn with its chances, or plays the rollout's free moves there ([`LateUse`]).
/// Where it stands in, the rollouts' random safe edges name the perfect-play winner little
/// more often than a coin (docs/players.md); with no safe edge left the rollout's exact
/// endgame is better.
#[derive(Clone)]
pub struct LateNet {
    net: Arc<FastNet>,
    horizon: u32,
    input: Vec<f32>,
    acc: Vec<f32>,
    /// Its own draws (the rollout's generator is lent to the play-out while the net is asked).
    rng: Rng,
    /// Play-outs it ended since the last [`RolloutPolicy::take_stats`].
    cutoffs: u64,
    /// Positions it evaluated since then (to end play-outs or to choose their moves).
    pub evaluations: u64,
    pub role: LateUse,
    /// [`pick`](Self::pick)'s softmax temperature; 0 plays the best move.
    pub temperature: f32,
    /// With [`LateUse::Prior`]: the weight of its biases (`late_weight=`).
    pub weight: f32,
    /// The candidates' scores of one pick, kept to spare an allocation a pick.
    scores: Vec<f32>,
}

impl LateNet {
    /// Free edges at which the late nets of the product are asked, by default.
    pub const HORIZON: u32 = 36;
    /// The chance at which `late_use=sure` takes the net's word (the paper's threshold).
    pub const SURE: f32 = 0.9;

    /// `net` (checked by [`load_late_net`](super::load_late_net)) asked at `horizon`.
    pub fn new(net: Arc<FastNet>, horizon: u32) -> LateNet {
        LateNet {
            input: vec![0f32; net.inputs()],
            acc: vec![0f32; net.width()],
            net,
            horizon,
            rng: Rng::new(0x1A7E_0E75),
            cutoffs: 0,
            evaluations: 0,
            role: LateUse::End,
            temperature: 0.0,
            weight: 1.0,
            scores: Vec::new(),
        }
    }

    /// The net's chances (mover wins, mover loses, draw) for `turn`'s position.
    pub fn chances(&mut self, turn: &Turn, geo: &Geometry) -> [f32; OUTPUTS] {
        late_features(geo, turn.edges, turn.owners, turn.mover, &mut self.input);
        self.net.evaluate(&self.input, &mut self.acc)
    }

    /// The free move of a play-out (an edge of `pool`, not empty) that leaves the opponent the
    /// worst position by the net, QDab's rollout policy near its horizon: each candidate is
    /// drawn, the boxes it hands over taken by the opponent, and the net asked from the
    /// opponent's side. At `temperature` 0 the move of the highest P(opponent loses) -
    /// P(opponent wins) is played (ties at random); above it, a move is drawn by a softmax of
    /// those scores over the temperature. Past the horizon (more free edges after the move than
    /// it) the draw is uniform, as the net was not trained there.
    pub fn pick(&mut self, turn: &Turn, pool: u128, geo: &Geometry, rng: &mut Rng) -> usize {
        debug_assert!(pool != 0, "a pick from no edge");
        let free_after = geo.num_edges as u32 - turn.edges.count_ones() - 1;
        if free_after > self.horizon {
            return random_edge(pool, rng);
        }
        let mut scores = std::mem::take(&mut self.scores);
        scores.clear();
        let mut bits = pool;
        while bits != 0 {
            let e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let value = self.value_of_move(turn, e, geo);
            scores.push(value);
        }
        self.evaluations += scores.len() as u64;
        let chosen = if self.temperature > 0.0 {
            draw_by_softmax(pool, &mut scores, self.temperature, rng)
        } else {
            best_with_random_ties(pool, &scores, rng)
        };
        self.scores = scores;
        chosen
    }

    /// What the net makes of free move `e` (one that closes no box) for `turn`'s mover: the
    /// edge drawn, the boxes it hands over taken by the opponent, and P(opponent loses) -
    /// P(opponent wins) of what the opponent is left with.
    fn value_of_move(&mut self, turn: &Turn, e: usize, geo: &Geometry) -> f32 {
        let opponent = turn.mover.opponent();
        let taken_before = turn.owners[0] | turn.owners[1];
        let (_, after) = take_all(geo, turn.edges | 1u128 << e);
        let mut owners = turn.owners;
        owners[opponent.index()] |= geo.valences(after).closed & !taken_before;
        let next = Turn {
            edges: after,
            owners,
            mover: opponent,
        };
        let p = self.chances(&next, geo);
        p[1] - p[0]
    }

    /// Whether it gives the tree's children biases (`late_use=prior` with a weight above 0).
    pub fn gives_prior(&self) -> bool {
        self.role == LateUse::Prior && self.weight > 0.0
    }

    /// Adds [`weight`](Self::weight) times the net's value of each move of `actions` for the player to move at
    /// `turn` ([`value_of_move`](Self::value_of_move)) to its bias in `out` (same order), when
    /// the moves leave at most `horizon` free edges and none of them closes a box (with a box
    /// to take, the tree's moves are captures and double-deals, not the net's business); else
    /// leaves `out` as it is. Returns whether it added.
    pub fn prior_biases(
        &mut self,
        turn: &Turn,
        actions: &[crate::game::Action],
        geo: &Geometry,
        out: &mut [f32],
    ) -> bool {
        let free_after = (geo.num_edges as u32 - turn.edges.count_ones()).saturating_sub(1);
        if free_after > self.horizon || capture_and_safe_edges(geo, turn.edges).0 != 0 {
            return false;
        }
        for (&a, bias) in actions.iter().zip(out.iter_mut()) {
            *bias += self.weight * self.value_of_move(turn, a as usize, geo);
        }
        self.evaluations += actions.len() as u64;
        true
    }

    /// The same net with its play-outs' moves drawn at `temperature` (0: the best, greedily).
    pub fn with_temperature(mut self, temperature: f32) -> LateNet {
        self.temperature = temperature;
        self
    }

    /// The same net with its `late_use=prior` biases weighted by `weight`.
    pub fn with_weight(mut self, weight: f32) -> LateNet {
        self.weight = weight;
        self
    }

    /// The same net with another role.
    pub fn with_role(mut self, role: LateUse) -> LateNet {
        self.role = role;
        self
    }

    /// P1's expected result at `turn` by the net (P(mover wins) - P(mover loses), from P1's
    /// side), when `turn` is within its horizon with a safe edge and no box to take: the
    /// positions it was trained on that a rollout does not value exactly.
    pub fn leaf_value(&mut self, turn: &Turn, geo: &Geometry) -> Option<f32> {
        let free = geo.num_edges as u32 - turn.edges.count_ones();
        let (captures, safe) = capture_and_safe_edges(geo, turn.edges);
        if free > self.horizon || captures != 0 || safe == 0 {
            return None;
        }
        let p = self.chances(turn, geo);
        self.evaluations += 1;
        let mover = (p[0] - p[1]) / (p[0] + p[1] + p[2]);
        Some(if turn.mover == Player::P1 {
            mover
        } else {
            -mover
        })
    }

    /// The outcome that ends a play-out at `turn`, when `turn` is within its horizon with a safe
    /// edge: with [`LateUse::End`] one drawn with the net's chances, with [`LateUse::Sure`] the
    /// net's call when its chance of it reaches [`SURE`](Self::SURE) (else the play-out goes on).
    pub fn judge(&mut self, turn: &Turn, geo: &Geometry) -> Option<Outcome> {
        let free = geo.num_edges as u32 - turn.edges.count_ones();
        if matches!(self.role, LateUse::Pick | LateUse::Prior | LateUse::Blend)
            || free > self.horizon
            || capture_and_safe_edges(geo, turn.edges).1 == 0
        {
            return None;
        }
        let p = self.chances(turn, geo);
        self.evaluations += 1;
        let outcome = if self.role == LateUse::Sure {
            if p[0] >= Self::SURE {
                Outcome::win_for(turn.mover)
            } else if p[1] >= Self::SURE {
                Outcome::win_for(turn.mover.opponent())
            } else {
                return None;
            }
        } else {
            let r = self.rng.unit_f64() as f32 * (p[0] + p[1] + p[2]);
            if r < p[0] {
                Outcome::win_for(turn.mover)
            } else if r < p[0] + p[1] {
                Outcome::win_for(turn.mover.opponent())
            } else {
                Outcome::Draw
            }
        };
        self.cutoffs += 1;
        Some(outcome)
    }
}

/// The exact solver's guide near its root: moves by the net's value of the position they leave
/// ([`LateNet::value_of_move`]), best first; equals keep the solver's order.
impl MoveOrder for LateNet {
    fn order(&mut self, geo: &Geometry, turn: &Turn, moves: &mut [u8]) {
        let safe = capture_and_safe_edges(geo, turn.edges).1;
        let n = moves.iter().take_while(|&&e| safe >> e & 1 == 1).count();
        let moves = &mut moves[..n];
        let mut scored = [(0f32, 0u8); crate::games::dots_and_boxes::MAX_EDGES];
        for (slot, &e) in scored.iter_mut().zip(moves.iter()) {
            *slot = (self.value_of_move(turn, e as usize, geo), e);
        }
        let scored = &mut scored[..moves.len()];
        self.evaluations += moves.len() as u64;
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (m, (_, e)) in moves.iter_mut().zip(scored.iter()) {
            *m = *e;
        }
    }
}

/// The edge of `pool` whose score (`scores` in the order of `pool`'s bits) is highest, drawn
/// uniformly among equals.
fn best_with_random_ties(pool: u128, scores: &[f32], rng: &mut Rng) -> usize {
    let (mut best, mut best_score, mut ties) = (pool.trailing_zeros() as usize, f32::MIN, 0u32);
    let mut bits = pool;
    for &score in scores {
        let e = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        if score > best_score {
            (best, best_score, ties) = (e, score, 1);
        } else if score == best_score {
            ties += 1;
            if rng.below(ties) == 0 {
                best = e;
            }
        }
    }
    best
}

impl NetRollout {
    pub fn new(net: Arc<DabNet>, guide: NetGuide) -> Result<NetRollout, String> {
        guide.check()?;
        let w = net.width();
        Ok(NetRollout {
            threshold_logit: guide.threshold_logit(),
            from_move: guide.from_move,
            until_move: guide.until_move,
            mix: guide.mix,
            every_turn: guide.every_turn,
            blend: guide.blend as f32,
            leaf_value: None,
            blends: guide.blend > 0.0,
            prior: guide.prior as f32,
            leaf_asks: guide.asks_in_play_outs(),
            order: guide.order,
            child_acc: vec![0f32; w],
            root: None,
            root_acc: vec![0f32; w],
            acc: vec![0f32; w],
            stats: RolloutStats::default(),
            chains: None,
            late: None,
            policy: None,
            policy_rollout: 0.0,
            shares: Vec::new(),
            net,
        })
    }

    /// Play-outs end at `late`'s horizon, scored by it (with chains only).
    pub fn with_late(mut self, late: LateNet) -> NetRollout {
        self.blends |= late.role == LateUse::Blend && late.weight > 0.0;
        self.late = Some(late);
        self
    }

    /// Each child of a node gets a selection bias of `weight * ln(k * share)` from `policy`
    /// (k the node's number of moves: no bias for a move the net gives an even share), and a
    /// node's children get their first visits in the order of their biases.
    /// With `rollout_temperature` > 0, the net also draws each free move of the chain
    /// rollouts (a safe edge or a short chain's handout) with chances the softmax of its
    /// logits at that temperature, instead of uniformly.
    pub fn with_policy(
        mut self,
        policy: DabPolicy,
        weight: f64,
        rollout_temperature: f64,
    ) -> NetRollout {
        self.policy = Some((policy, weight as f32));
        self.policy_rollout = rollout_temperature as f32;
        self
    }

    /// Whether a late net gives the tree's children near its horizon biases.
    fn late_prior(&self) -> bool {
        self.late.as_ref().is_some_and(LateNet::gives_prior)
    }

    /// Whether the policy net gives the tree's children biases.
    fn policy_biases(&self) -> bool {
        self.policy.as_ref().is_some_and(|(_, w)| *w > 0.0)
    }

    /// The net at the leaf, then (when it is not sure) `chains`.
    pub fn then_chains(mut self, chains: ChainRollout) -> NetRollout {
        self.chains = Some(chains);
        self
    }

    /// Sets `self.acc` to the pre-activations of the position (`edges`, `owners`, `mover` to
    /// move).
    #[inline]
    fn start_from(&mut self, edges: u128, owners: [u64; 2], mover: Player) {
        let turn = Turn {
            edges,
            owners,
            mover,
        };
        preactivations_of(&self.net, self.root, &self.root_acc, &mut self.acc, &turn);
    }
}

/// Sets `acc` to the pre-activations of `turn`'s position: from the root's (`root_acc`) when the
/// position follows from the root, else from the empty board's.
#[inline]
fn preactivations_of(
    net: &DabNet,
    root: Option<(u128, [u64; 2], Player)>,
    root_acc: &[f32],
    acc: &mut [f32],
    turn: &Turn,
) {
    let to = (turn.edges, turn.owners);
    match root {
        Some((root_edges, root_owners, root_mover))
            if root_edges & !turn.edges == 0
                && root_owners[0] & !turn.owners[0] == 0
                && root_owners[1] & !turn.owners[1] == 0 =>
        {
            acc.copy_from_slice(root_acc);
            net.add_changes(acc, (root_edges, root_owners), to);
            net.change_mover(acc, root_mover, turn.mover);
        }
        _ => {
            acc.copy_from_slice(&net.empty);
            net.add_changes(acc, (0, [0, 0]), to);
            net.change_mover(acc, Player::P1, turn.mover);
        }
    }
}

impl RolloutPolicy<DotsAndBoxes> for NetRollout {
    /// With `blend`, a leaf's reward is a number between the results.
    fn fractional(&self) -> bool {
        self.blends
    }

    fn rollout_reward(&mut self, state: &mut DotsAndBoxes, rng: &mut Rng) -> Reward {
        self.leaf_value = None;
        let played = Reward::from(self.rollout(state, rng));
        match self.leaf_value.take() {
            Some((net, weight)) if weight > 0.0 => Reward {
                p1: weight * net + (1.0 - weight) * played.p1,
            },
            _ => played,
        }
    }

    fn begin_search(&mut self, root: &DotsAndBoxes) {
        self.net.preactivations(root, &mut self.root_acc);
        self.root = Some((root.edges(), root.box_owners(), root.to_move()));
    }

    /// A random playout like [`DotsAndBoxes::random_rollout`] (the free edges drawn in random
    /// order; stopped as soon as the lead exceeds the boxes left, when the result is settled),
    /// with the net asked before each move once `from_move` edges are drawn.
    fn rollout(&mut self, state: &mut DotsAndBoxes, rng: &mut Rng) -> Outcome {
        if self.chains.is_some() {
            return self.net_then_chains(state, rng);
        }
        let geo = state.geometry();
        let mut edges = state.edges();
        let mut owners = state.box_owners();
        let mut order = [0u8; MAX_EDGES];
        let n = state.free_edges_into(&mut order);
        let [s1, s2] = state.scores().expect("Dots and Boxes keeps scores");
        let mut lead = s1 as i32 - s2 as i32;
        let mut left = (geo.num_boxes as u32 - s1 - s2) as i32;
        let mut mover = state.to_move();
        let drawn_at_leaf = edges.count_ones();
        let mut guided = false;
        let mut draws = HalfDraws::new(rng);
        for i in 0..n {
            if drawn_at_leaf + i as u32 >= self.from_move {
                if !guided {
                    self.start_from(edges, owners, mover);
                    guided = true;
                }
                self.stats.net_evaluations += 1;
                if let Some(outcome) = net_call(self.net.logits(&self.acc), self.threshold_logit) {
                    self.stats.net_cutoffs += 1;
                    return outcome;
                }
            }
            let j = i + draws.below((n - i) as u32) as usize;
            let e = order[j] as usize;
            order[j] = order[i];
            edges |= 1u128 << e;
            let [a, b] = geo.edge_box_masks[e];
            let closed = [edges & a == a, edges & b == b];
            let count = closed[0] as i32 + closed[1] as i32;
            if guided {
                self.net.add_move(&mut self.acc, e, mover, closed);
            } else {
                for (slot, &c) in closed.iter().enumerate() {
                    if c {
                        owners[mover.index()] |= 1 << geo.edge_boxes[e][slot];
                    }
                }
            }
            let sign = if mover == Player::P1 { 1 } else { -1 };
            lead += sign * count;
            left -= count;
            if count == 0 {
                let next = mover.opponent();
                if guided {
                    self.net.change_mover(&mut self.acc, mover, next);
                }
                mover = next;
            }
            if lead.abs() > left {
                break;
            }
        }
        match lead.signum() {
            1 => Outcome::P1Win,
            -1 => Outcome::P2Win,
            _ => Outcome::Draw,
        }
    }

    fn take_stats(&mut self) -> RolloutStats {
        if let Some(late) = &mut self.late {
            self.stats.net_evaluations += std::mem::take(&mut late.evaluations);
            self.stats.net_cutoffs += std::mem::take(&mut late.cutoffs);
        }
        std::mem::take(&mut self.stats)
    }

    fn restrict(&mut self, state: &DotsAndBoxes, actions: &mut Vec<crate::game::Action>) {
        if let Some(chains) = &mut self.chains {
            chains.narrow(state, actions);
        }
    }

    #[inline]
    fn gives_bias(&self) -> bool {
        self.prior > 0.0 || self.policy_biases() || self.late_prior()
    }

    #[inline]
    fn first_visits_by_bias(&self) -> bool {
        // `order` needs a prior above 0 (`NetGuide::check`).
        self.policy_biases() || self.order
    }

    /// Each child's bias: the policy net's (see [`with_policy`](Self::with_policy)) plus
    /// `prior` times the value net's P(mover wins) - P(mover loses) after the move, the child's
    /// pre-activations made from the node's by the move's columns, plus a `late_use=prior`
    /// net's ([`LateNet::prior_biases`]).
    fn child_bias(
        &mut self,
        state: &DotsAndBoxes,
        actions: &[crate::game::Action],
        out: &mut Vec<f32>,
    ) {
        out.clear();
        if let Some((policy, weight)) = self.policy.as_mut().filter(|(_, w)| *w > 0.0) {
            policy.shares(state, actions, &mut self.shares);
            let k = actions.len() as f32;
            out.extend(
                self.shares
                    .iter()
                    .map(|&p| *weight * (k * p).max(1e-6).ln()),
            );
        } else {
            out.resize(actions.len(), 0.0);
        }
        if let Some(late) = self.late.as_mut().filter(|l| l.gives_prior()) {
            late.prior_biases(&Turn::of(state), actions, state.geometry(), out);
        }
        if self.prior <= 0.0 {
            return;
        }
        let mover = state.to_move();
        self.start_from(state.edges(), state.box_owners(), mover);
        let geo = state.geometry();
        let edges = state.edges();
        let (mine, theirs) = (mover.index(), mover.opponent().index());
        for (&a, bias) in actions.iter().zip(out.iter_mut()) {
            let e = a as usize;
            let after = edges | 1u128 << e;
            let [m0, m1] = geo.edge_box_masks[e];
            let closed = [after & m0 == m0, after & m1 == m1];
            self.child_acc.copy_from_slice(&self.acc);
            self.net.add_move(&mut self.child_acc, e, mover, closed);
            if !closed[0] && !closed[1] {
                self.net
                    .change_mover(&mut self.child_acc, mover, mover.opponent());
            }
            let p = self.net.logits(&self.child_acc).map(crate::nn::sigmoid);
            self.stats.net_evaluations += 1;
            *bias += self.prior * (p[mine] - p[theirs]);
        }
    }
}

impl NetRollout {
    /// One net call at the leaf; when no output reaches the threshold, a chain rollout (with
    /// `every_turn`, the net asked again at the start of each of its turns, before each random
    /// edge and before the endgame is valued, and the rollout ended once it is sure).
    fn net_then_chains(&mut self, state: &DotsAndBoxes, rng: &mut Rng) -> Outcome {
        let leaf = Turn::of(state);
        let NetRollout {
            net,
            threshold_logit,
            from_move,
            until_move,
            mix,
            every_turn,
            blend,
            leaf_value,
            root,
            root_acc,
            acc,
            stats,
            chains,
            late,
            policy,
            policy_rollout,
            leaf_asks,
            ..
        } = self;
        let geo = state.geometry();
        let mut ask = |turn: &Turn| -> Option<([f32; OUTPUTS], Option<Outcome>)> {
            let drawn = turn.edges.count_ones();
            if drawn < *from_move || (*until_move > 0 && drawn >= *until_move) {
                return None;
            }
            preactivations_of(net, *root, root_acc, acc, turn);
            stats.net_evaluations += 1;
            let logits = net.logits(acc);
            let call = net_call(logits, *threshold_logit);
            stats.net_cutoffs += call.is_some() as u64;
            Some((logits, call))
        };
        // Asked only where something can come of it (`leaf_asks`).
        let at_leaf = if *leaf_asks { ask(&leaf) } else { None };
        if let Some((logits, call)) = at_leaf {
            if let Some(outcome) = call {
                return outcome;
            }
            if *mix > 0.0 && rng.unit_f64() < *mix {
                return draw_outcome(logits, rng);
            }
            *leaf_value = Some((expectation(logits), *blend));
            if *blend >= 1.0 {
                // The net's value is the whole reward: no play-out (AlphaZero's leaf).
                return Outcome::Draw;
            }
        }
        if let Some(late) = late.as_mut().filter(|l| l.role == LateUse::Blend) {
            if let Some(value) = late.leaf_value(&leaf, geo) {
                *leaf_value = Some((value, late.weight));
                if late.weight >= 1.0 {
                    // The late net's value is the whole reward: no play-out.
                    return Outcome::Draw;
                }
            }
        }
        let chains = chains.as_mut().expect("called with chains on");
        let (mut late_end, late_pick) = match late.as_mut() {
            Some(net) if net.role == LateUse::Pick => (None, Some(net)),
            Some(net) if matches!(net.role, LateUse::Prior | LateUse::Blend) => (None, None),
            other => (other, None),
        };
        // The leaf itself was asked above.
        let mut judge = |turn: &Turn| {
            if let Some(outcome) = late_end.as_mut().and_then(|l| l.judge(turn, geo)) {
                return Some(outcome);
            }
            if !*every_turn || turn.edges == leaf.edges {
                return None;
            }
            ask(turn).and_then(|(_, call)| call)
        };
        let drawing_policy = policy.as_mut().filter(|_| *policy_rollout > 0.0);
        let margin = match (late_pick, drawing_policy) {
            (Some(late), _) => {
                let mut pick =
                    |turn: &Turn, pool: u128, rng: &mut Rng| late.pick(turn, pool, geo, rng);
                chains.guided_margin(state, rng, &mut judge, &mut pick)
            }
            (None, Some((policy, _))) => {
                let temperature = *policy_rollout;
                let mut pick = |turn: &Turn, pool: u128, rng: &mut Rng| {
                    policy.draw(geo, turn, pool, temperature, rng)
                };
                chains.guided_margin(state, rng, &mut judge, &mut pick)
            }
            (None, None) => chains.judged_margin(state, rng, &mut judge),
        };
        match margin.signum() {
            1 => Outcome::P1Win,
            -1 => Outcome::P2Win,
            _ => Outcome::Draw,
        }
    }
}
