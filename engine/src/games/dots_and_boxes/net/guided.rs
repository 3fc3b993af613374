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

use crate::game::{Game, Outcome, Player};
use crate::games::dots_and_boxes::rollout::Turn;
use crate::games::dots_and_boxes::ChainRollout;
use crate::games::dots_and_boxes::{
    Geometry, FEATURE_BOX_FREE, FEATURE_BOX_P1, FEATURE_BOX_P2, FEATURE_EDGE_DRAWN,
    FEATURE_EDGE_FREE, MAX_EDGES,
};
use crate::games::DotsAndBoxes;
use crate::mcts::{RolloutPolicy, RolloutStats, Ucb};
use crate::nn::inference::{add_into, FastNet, Simd};
use crate::nn::{ValueNet, OUTPUTS};
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
    /// With chain rollouts: the weight of the net's view of each child as a selection bias
    /// (progressive bias: `prior * (P(mover wins) - P(mover loses))` of the child, fading as
    /// `1 / (visits + 1)`), so that the tree tries first the moves the net likes (0: none).
    pub prior: f64,
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
        if !(self.prior.is_finite() && self.prior >= 0.0) {
            return Err(format!(
                "prior must be a non-negative number, got {}",
                self.prior
            ));
        }
        Ok(())
    }

    /// Whether chain play-outs ask the net at all: something must come of a call (a threshold
    /// below 1 to end them). Otherwise the net serves only as the tree's prior.
    pub fn asks_in_play_outs(&self) -> bool {
        self.threshold < 1.0
    }

    /// The tree policy of a search the net guides, with UCB's constant `cp`: the net's prior
    /// fades with visits (progressive bias).
    pub fn tree_policy(&self, cp: f64) -> Ucb {
        Ucb::new(cp).with_progressive_bias(true)
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
            prior: 0.0,
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

/// Algorithm 5 as a [`RolloutPolicy`] for Dots and Boxes. Clone one per search thread: the
/// tables are shared, the buffers are the clone's own (allocated once, not per rollout).
#[derive(Clone)]
pub struct NetRollout {
    net: Arc<DabNet>,
    threshold_logit: f32,
    from_move: u32,
    prior: f32,
    /// Whether a chain rollout's leaf asks the net: not when nothing can come of it (a
    /// threshold of 1 ends no play-out).
    leaf_asks: bool,
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
}

impl NetRollout {
    pub fn new(net: Arc<DabNet>, guide: NetGuide) -> Result<NetRollout, String> {
        guide.check()?;
        let w = net.width();
        Ok(NetRollout {
            threshold_logit: guide.threshold_logit(),
            from_move: guide.from_move,
            prior: guide.prior as f32,
            leaf_asks: guide.asks_in_play_outs(),
            child_acc: vec![0f32; w],
            root: None,
            root_acc: vec![0f32; w],
            acc: vec![0f32; w],
            stats: RolloutStats::default(),
            chains: None,
            net,
        })
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
    fn knowledge(&self) -> Option<String> {
        Some(format!("value net {}", self.net.reference.fingerprint()))
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
        std::mem::take(&mut self.stats)
    }

    fn restrict(&mut self, state: &DotsAndBoxes, actions: &mut Vec<crate::game::Action>) {
        if let Some(chains) = &mut self.chains {
            chains.narrow(state, actions);
        }
    }

    #[inline]
    fn gives_bias(&self) -> bool {
        self.prior > 0.0
    }

    /// Each child's bias: `prior` times the value net's P(mover wins) - P(mover loses) after
    /// the move, the child's pre-activations made from the node's by the move's columns.
    fn child_bias(
        &mut self,
        state: &DotsAndBoxes,
        actions: &[crate::game::Action],
        out: &mut Vec<f32>,
    ) {
        out.clear();
        out.resize(actions.len(), 0.0);
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
    /// One net call at the leaf; when no output reaches the threshold, a chain rollout.
    fn net_then_chains(&mut self, state: &DotsAndBoxes, rng: &mut Rng) -> Outcome {
        // Asked only where something can come of it (`leaf_asks`).
        if self.leaf_asks {
            let leaf = Turn::of(state);
            let drawn = leaf.edges.count_ones();
            if drawn >= self.from_move {
                preactivations_of(&self.net, self.root, &self.root_acc, &mut self.acc, &leaf);
                self.stats.net_evaluations += 1;
                let call = net_call(self.net.logits(&self.acc), self.threshold_logit);
                if let Some(outcome) = call {
                    self.stats.net_cutoffs += 1;
                    return outcome;
                }
            }
        }
        let chains = self.chains.as_mut().expect("called with chains on");
        let margin = chains.final_margin(state, rng);
        match margin.signum() {
            1 => Outcome::P1Win,
            -1 => Outcome::P2Win,
            _ => Outcome::Draw,
        }
    }
}
