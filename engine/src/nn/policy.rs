//! Policy nets: a value net's inputs and sigmoid hidden layer, and one output logit per move;
//! over a node's moves, a softmax of their logits is the net's guess of how the search would
//! share its visits among them. The file and the reference forward pass; a game lays a policy
//! net out for its search in its own folder.

use std::path::Path;

use super::{sigmoid, FileLayout, ModelError, ModelMeta};
use crate::game_spec::GameInfo;
use crate::rng::Rng;

/// What every policy-net file says it is.
pub const POLICY_FORMAT: &str = "selfplay-mcts policy net";

/// A policy net's weights, in PyTorch's layout (weight rows are output units).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyNet {
    pub meta: ModelMeta,
    /// Outputs: one per edge of the board.
    pub outputs: usize,
    /// hidden x inputs, row-major.
    pub hidden_weight: Vec<f32>,
    pub hidden_bias: Vec<f32>,
    /// outputs x hidden, row-major.
    pub output_weight: Vec<f32>,
    pub output_bias: Vec<f32>,
}

impl PolicyNet {
    /// The output logits for one input vector: the reference forward pass.
    pub fn forward(&self, input: &[f32]) -> Vec<f32> {
        let (n_in, n_hidden) = (self.meta.inputs, self.meta.hidden);
        assert_eq!(input.len(), n_in, "input length");
        let hidden: Vec<f32> = (0..n_hidden)
            .map(|j| {
                let row = &self.hidden_weight[j * n_in..(j + 1) * n_in];
                sigmoid(
                    row.iter().zip(input).map(|(w, x)| w * x).sum::<f32>() + self.hidden_bias[j],
                )
            })
            .collect();
        (0..self.outputs)
            .map(|k| {
                let row = &self.output_weight[k * n_hidden..(k + 1) * n_hidden];
                row.iter().zip(&hidden).map(|(w, h)| w * h).sum::<f32>() + self.output_bias[k]
            })
            .collect()
    }

    /// Writes the net as safetensors, with its metadata.
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        FileLayout::POLICY.write(
            path,
            &self.meta,
            self.outputs,
            [
                &self.hidden_weight,
                &self.hidden_bias,
                &self.output_weight,
                &self.output_bias,
            ],
        )
    }

    /// Reads a net written by [`save`](Self::save), checking every tensor's shape.
    pub fn load(path: &Path, games: &[&'static GameInfo]) -> Result<PolicyNet, ModelError> {
        let (meta, outputs, [hidden_weight, hidden_bias, output_weight, output_bias]) =
            FileLayout::POLICY.read(path, games, None)?;
        Ok(PolicyNet {
            meta,
            outputs,
            hidden_weight,
            hidden_bias,
            output_weight,
            output_bias,
        })
    }
}

/// An edge of `pool` drawn with the probabilities of a softmax of `logits / temperature`
/// (`logits` in the order of `pool`'s bits, made the probabilities in place).
pub fn draw_by_softmax(pool: u128, logits: &mut [f32], temperature: f32, rng: &mut Rng) -> usize {
    debug_assert_eq!(logits.len(), pool.count_ones() as usize);
    softmax_in_place(logits, temperature);
    let mut r = rng.unit_f64() as f32;
    let mut bits = pool;
    let mut chosen = pool.trailing_zeros() as usize;
    for &p in logits.iter() {
        let e = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        chosen = e;
        if r < p {
            break;
        }
        r -= p;
    }
    chosen
}

/// `values` (logits) made a softmax of `values / temperature` in place.
pub fn softmax_in_place(values: &mut [f32], temperature: f32) {
    let top = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for z in values.iter_mut() {
        *z = ((*z - top) / temperature).exp();
        sum += *z;
    }
    for z in values.iter_mut() {
        *z /= sum;
    }
}
