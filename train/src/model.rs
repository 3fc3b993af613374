//! The paper's value net in burn: inputs -> sigmoid hidden layer -> three sigmoid outputs
//! (P1 wins, P2 wins, draw), and its conversion to the engine's burn-free [`ValueNet`].

use burn::module::{Module, Param};
use burn::nn::Linear;
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor, TensorData};
use engine::nn::{ModelMeta, ValueNet, OUTPUTS};
use engine::rng::Rng;

#[derive(Module, Debug)]
pub struct Net {
    pub hidden: Linear,
    pub output: Linear,
}

/// A linear layer with weights drawn uniformly from +-1/sqrt(inputs) by our own generator, so
/// a seed gives the same starting net on every backend (CPU and GPU runs can be compared).
pub fn linear(inputs: usize, outputs: usize, rng: &mut Rng, device: &Device) -> Linear {
    let bound = 1.0 / (inputs as f64).sqrt();
    let mut draw = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| ((rng.unit_f64() * 2.0 - 1.0) * bound) as f32)
            .collect()
    };
    // burn keeps a linear layer's weight as [inputs, outputs].
    let weight = Tensor::<2>::from_data(
        TensorData::new(draw(inputs * outputs), [inputs, outputs]),
        device,
    );
    let bias = Tensor::<1>::from_data(TensorData::new(draw(outputs), [outputs]), device);
    Linear {
        weight: Param::from_tensor(weight),
        bias: Some(Param::from_tensor(bias)),
    }
}

impl Net {
    /// The value net: three outputs.
    pub fn new(inputs: usize, hidden: usize, seed: u64, device: &Device) -> Net {
        Net::with_outputs(inputs, hidden, OUTPUTS, seed, device)
    }

    /// The same two layers with `outputs` outputs (a policy net: one per edge).
    pub fn with_outputs(
        inputs: usize,
        hidden: usize,
        outputs: usize,
        seed: u64,
        device: &Device,
    ) -> Net {
        let mut rng = Rng::new(seed);
        Net {
            hidden: linear(inputs, hidden, &mut rng, device),
            output: linear(hidden, outputs, &mut rng, device),
        }
    }

    /// The output layer before its sigmoid (the losses work on these for stability).
    pub fn logits(&self, input: Tensor<2>) -> Tensor<2> {
        self.output.forward(sigmoid(self.hidden.forward(input)))
    }

    /// The three outputs in [0, 1].
    pub fn forward(&self, input: Tensor<2>) -> Tensor<2> {
        sigmoid(self.logits(input))
    }

    /// The value net in the engine's format.
    pub fn to_value_net(&self, meta: ModelMeta) -> ValueNet {
        let [hidden_weight, hidden_bias, output_weight, output_bias] = self.weights();
        ValueNet {
            meta,
            hidden_weight,
            hidden_bias,
            output_weight,
            output_bias,
        }
    }

    /// The weights in the engine's layout (PyTorch's: [outputs, inputs]): hidden weight and
    /// bias, output weight and bias.
    fn weights(&self) -> [Vec<f32>; 4] {
        let (hidden_weight, hidden_bias) = transposed(&self.hidden);
        let (output_weight, output_bias) = transposed(&self.output);
        [hidden_weight, hidden_bias, output_weight, output_bias]
    }
}

/// A linear layer's weight in PyTorch's layout ([outputs, inputs], where burn keeps [inputs,
/// outputs]) and its bias.
pub fn transposed(layer: &Linear) -> (Vec<f32>, Vec<f32>) {
    let w = layer.weight.val();
    let [inputs, outputs] = w.dims();
    let w: Vec<f32> = w.into_data().try_to_vec().expect("f32 weights");
    let mut t = vec![0f32; inputs * outputs];
    for i in 0..inputs {
        for o in 0..outputs {
            t[o * inputs + i] = w[i * outputs + o];
        }
    }
    let b: Vec<f32> = layer
        .bias
        .as_ref()
        .expect("layers have a bias")
        .val()
        .into_data()
        .try_to_vec()
        .expect("f32 bias");
    (t, b)
}

/// The layer whose weights [`transposed`] gives: `weight` in PyTorch's layout (outputs x
/// inputs), and `bias`.
pub fn untransposed(
    weight: &[f32],
    bias: &[f32],
    inputs: usize,
    outputs: usize,
    device: &Device,
) -> Linear {
    let mut w = vec![0f32; inputs * outputs];
    for o in 0..outputs {
        for i in 0..inputs {
            w[i * outputs + o] = weight[o * inputs + i];
        }
    }
    // burn keeps a linear layer's weight as [inputs, outputs].
    Linear {
        weight: Param::from_tensor(Tensor::<2>::from_data(
            TensorData::new(w, [inputs, outputs]),
            device,
        )),
        bias: Some(Param::from_tensor(Tensor::<1>::from_data(
            TensorData::new(bias.to_vec(), [outputs]),
            device,
        ))),
    }
}

/// Rows of `features` (each `width` long) as a tensor on `device`.
pub fn input_tensor(features: &[f32], width: usize, device: &Device) -> Tensor<2> {
    let rows = features.len() / width;
    Tensor::<2>::from_data(TensorData::new(features.to_vec(), [rows, width]), device)
}

/// One-hot targets for class labels 0..3.
pub fn target_tensor(labels: &[u8], device: &Device) -> Tensor<2> {
    let mut t = vec![0f32; labels.len() * OUTPUTS];
    for (row, &l) in t.chunks_exact_mut(OUTPUTS).zip(labels) {
        row.copy_from_slice(&crate::data::target_row(l));
    }
    Tensor::<2>::from_data(TensorData::new(t, [labels.len(), OUTPUTS]), device)
}
