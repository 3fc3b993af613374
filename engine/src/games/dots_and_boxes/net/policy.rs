//! The policy net of Dots and Boxes: the value net's inputs and sigmoid hidden layer, and one
//! output logit per edge; over a node's moves, a softmax of their logits is the net's guess of
//! how the search would share its visits among them.
//!
//! Trained by `train policy` on the root visit counts the search records with every move
//! (`engine match --records`, `selfplay`), and asked once at each expansion of the product's
//! tree: each child starts with a selection bias from its share (`policy=`, `policy_weight=`
//! of `nn`), so the search tries first and longest the moves a search like it preferred in
//! positions like this one.

use std::path::Path;
use std::sync::Arc;

use super::{reads_to_move, DAB_ENCODING_TO_MOVE};
use crate::game::{Action, Game, Player};
use crate::games::dots_and_boxes::rollout::Turn;
use crate::games::dots_and_boxes::{encode_position, Geometry};
use crate::games::{DotsAndBoxes, RegisteredGame};
use crate::nn::inference::{add_scaled_into, fast_sigmoid, input_major};
use crate::nn::{draw_by_softmax, softmax_in_place, ModelError, PolicyNet};
use crate::rng::Rng;

/// Checks that `net` reads `board`'s positions (its size, the grid with the player to move)
/// and has an output for each of its edges.
pub fn policy_fits(net: &PolicyNet, board: &DotsAndBoxes) -> Result<(), String> {
    let spec = crate::games::DotsAndBoxes::spec_for(board.rows(), board.cols())?;
    if net.meta.game != spec {
        return Err(format!(
            "the net was trained for {}, not {spec}",
            net.meta.game
        ));
    }
    if net.meta.encoding != DAB_ENCODING_TO_MOVE {
        return Err(format!(
            "a policy net reads encoding '{DAB_ENCODING_TO_MOVE}', this one '{}'",
            net.meta.encoding
        ));
    }
    let want = board.feature_len() + usize::from(reads_to_move(&net.meta.encoding));
    if net.meta.inputs != want {
        return Err(format!(
            "the net has {} inputs, {spec} positions have {want}",
            net.meta.inputs
        ));
    }
    let edges = board.geometry().num_edges;
    if net.outputs != edges {
        return Err(format!(
            "the net has {} outputs, {spec} has {edges} edges",
            net.outputs
        ));
    }
    Ok(())
}

/// Loads a policy net (made by `train policy`) for `board`'s size, refusing any other file
/// with the path and the reason.
pub fn load_policy_net(path: &Path, board: &DotsAndBoxes) -> Result<DabPolicy, ModelError> {
    let net = PolicyNet::load(path, &[DotsAndBoxes::INFO])?;
    policy_fits(&net, board).map_err(|detail| ModelError {
        path: path.to_path_buf(),
        detail,
    })?;
    Ok(DabPolicy::new(&net))
}

/// The weights laid out for the search: the hidden layer input-major (one column of `width`
/// floats per input, zero padding), so that a position's pre-activations are a sum of the
/// columns of its non-zero inputs.
#[derive(Debug)]
struct Layout {
    inputs: usize,
    width: usize,
    columns: Vec<f32>,
    bias: Vec<f32>,
    /// One row of `width` per edge.
    output: Vec<f32>,
    output_bias: Vec<f32>,
}

/// A policy net as the search asks it: shared weights, and this clone's own buffers (one
/// clone per search thread; nothing is allocated per call).
#[derive(Clone, Debug)]
pub struct DabPolicy {
    layout: Arc<Layout>,
    input: Vec<f32>,
    hidden: Vec<f32>,
    /// The chances of a [`draw`](Self::draw)'s edges.
    weights: Vec<f32>,
}

impl DabPolicy {
    /// `net` laid out for the search (checked by [`policy_fits`] first).
    pub fn new(net: &PolicyNet) -> DabPolicy {
        let (inputs, hidden) = (net.meta.inputs, net.meta.hidden);
        let (width, columns, bias) = input_major(&net.hidden_weight, &net.hidden_bias, inputs);
        let mut output = vec![0f32; net.outputs * width];
        for k in 0..net.outputs {
            output[k * width..k * width + hidden]
                .copy_from_slice(&net.output_weight[k * hidden..(k + 1) * hidden]);
        }
        DabPolicy {
            layout: Arc::new(Layout {
                inputs,
                width,
                columns,
                bias,
                output,
                output_bias: net.output_bias.clone(),
            }),
            input: vec![0f32; inputs],
            hidden: vec![0f32; width],
            weights: Vec::with_capacity(net.outputs),
        }
    }

    /// The hidden layer's activations for a position given as bits (what a play-out holds).
    fn hidden_of(&mut self, geo: &Geometry, turn: &Turn) {
        let layout = &*self.layout;
        let n = layout.inputs - 1;
        encode_position(geo, turn.edges, turn.owners, &mut self.input[..n]);
        self.input[n] = if turn.mover == Player::P1 { 1.0 } else { 0.0 };
        let w = layout.width;
        self.hidden.copy_from_slice(&layout.bias);
        for (i, &x) in self.input.iter().enumerate() {
            if x != 0.0 {
                add_scaled_into(&mut self.hidden, &layout.columns[i * w..(i + 1) * w], x);
            }
        }
        for h in &mut self.hidden {
            *h = fast_sigmoid(*h);
        }
    }

    /// The logit of edge `e` for the position of the last [`hidden_of`](Self::hidden_of).
    #[inline]
    fn logit(&self, e: usize) -> f32 {
        let layout = &*self.layout;
        let w = layout.width;
        let row = &layout.output[e * w..(e + 1) * w];
        layout.output_bias[e]
            + row
                .iter()
                .zip(&self.hidden)
                .map(|(r, h)| r * h)
                .sum::<f32>()
    }

    /// The net's shares of `actions` (moves of `state`), into `out` in the same order: a
    /// softmax of their logits, summing to 1.
    pub fn shares(&mut self, state: &DotsAndBoxes, actions: &[Action], out: &mut Vec<f32>) {
        let turn = Turn::of(state);
        self.hidden_of(state.geometry(), &turn);
        out.clear();
        out.extend(actions.iter().map(|&a| self.logit(a as usize)));
        softmax_in_place(out, 1.0);
    }

    /// An edge of `pool` (edge bits, not empty) for the play-out's position `turn`, drawn with
    /// chances the softmax of the net's logits divided by `temperature`: how a play-out guided
    /// by the net chooses among its free moves.
    pub fn draw(
        &mut self,
        geo: &Geometry,
        turn: &Turn,
        pool: u128,
        temperature: f32,
        rng: &mut Rng,
    ) -> usize {
        debug_assert!(pool != 0, "a draw from no edge");
        self.hidden_of(geo, turn);
        let mut weights = std::mem::take(&mut self.weights);
        weights.clear();
        let mut bits = pool;
        while bits != 0 {
            let e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            weights.push(self.logit(e));
        }
        let chosen = draw_by_softmax(pool, &mut weights, temperature, rng);
        self.weights = weights;
        chosen
    }
}
