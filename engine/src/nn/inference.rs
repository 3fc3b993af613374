//! The value net laid out for speed: no allocation per call, f32, loops of eight lanes the
//! compiler turns into vector instructions, and a sigmoid without a call to `exp`.
//!
//! The hidden layer's weights are stored input-major (one column of `width` floats per input,
//! the hidden size rounded up to a multiple of [`LANES`], zero in the padding), so that adding
//! one input's contribution to the hidden pre-activations is one contiguous vector add. That is
//! what makes incremental evaluation cheap: a Dots-and-Boxes move changes one edge and at most
//! two boxes, three columns of the 85 (see [`super::rollout`]).
//!
//! Padding units have pre-activation 0, so sigmoid 0.5, and output weight 0: they add nothing.

use super::{sigmoid, ValueNet, OUTPUTS};

/// Floats processed together; a multiple of every x86 and ARM vector width for f32.
pub const LANES: usize = 8;

/// The clamp of `exp`'s argument: inside it `2^n` is a normal float and the sigmoid of the far
/// tail is never subnormal (subnormal arithmetic is slow on x86). `sigmoid(-80)` is 1.8e-35
/// and `sigmoid(87)` rounds to 1 in f32, so the clamp changes no result by more than 1.8e-35.
const EXP_MIN: f32 = -87.0;
const EXP_MAX: f32 = 80.0;

/// `e^y` in about 1.5 ulp over [`EXP_MIN`, `EXP_MAX`] (clamped outside): `y = n ln 2 + r` with
/// `n` the nearest integer to `y / ln 2` (rounded by the 1.5 * 2^23 trick, which needs no
/// rounding instruction), `ln 2` split in two parts so that `r` is exact to f32 precision
/// (Cody and Waite), `e^r` for `|r| <= ln(2)/2` by its Taylor series to degree 6 (truncation
/// error below 1.2e-7 relative), and `2^n` built from its exponent bits. Branch-free, so a loop
/// over it vectorises.
#[inline(always)]
pub fn fast_exp(y: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    // ln 2 = LN2_HI + LN2_LO, LN2_HI with few enough significant bits that n * LN2_HI is exact.
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    const ROUND: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
    let y = if y < EXP_MIN { EXP_MIN } else { y };
    let y = if y > EXP_MAX { EXP_MAX } else { y };
    let shifted = y * LOG2_E + ROUND;
    let n_float = shifted - ROUND;
    let n = (shifted.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let r = (y - n_float * LN2_HI) - n_float * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    let scale = f32::from_bits(((n + 127) as u32) << 23);
    p * scale
}

/// `1 / (1 + e^-x)` through [`fast_exp`]; within 2e-7 of the exact value (tested).
#[inline(always)]
pub fn fast_sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + fast_exp(-x))
}

/// `acc += delta`, elementwise; both of the net's width.
#[inline(always)]
pub fn add_into(acc: &mut [f32], delta: &[f32]) {
    for (a, d) in acc.chunks_exact_mut(LANES).zip(delta.chunks_exact(LANES)) {
        for k in 0..LANES {
            a[k] += d[k];
        }
    }
}

/// `acc += scale * column`, elementwise; both of the net's width.
#[inline(always)]
pub fn add_scaled_into(acc: &mut [f32], column: &[f32], scale: f32) {
    for (a, c) in acc.chunks_exact_mut(LANES).zip(column.chunks_exact(LANES)) {
        for k in 0..LANES {
            a[k] += scale * c[k];
        }
    }
}

/// The net in inference layout. Built once from a [`ValueNet`]; shared read-only by threads.
#[derive(Clone, Debug)]
pub struct FastNet {
    inputs: usize,
    width: usize,
    /// `inputs` columns of `width`: entry (i, j) is the weight from input i to hidden unit j.
    columns: Vec<f32>,
    /// Hidden biases, `width` long.
    bias: Vec<f32>,
    /// `OUTPUTS` rows of `width`.
    output: Vec<f32>,
    output_bias: [f32; OUTPUTS],
}

impl FastNet {
    pub fn new(net: &ValueNet) -> FastNet {
        let (inputs, hidden) = (net.inputs(), net.hidden());
        let width = hidden.div_ceil(LANES) * LANES;
        let mut columns = vec![0f32; inputs * width];
        for j in 0..hidden {
            for i in 0..inputs {
                columns[i * width + j] = net.hidden_weight[j * inputs + i];
            }
        }
        let mut bias = vec![0f32; width];
        bias[..hidden].copy_from_slice(&net.hidden_bias);
        let mut output = vec![0f32; OUTPUTS * width];
        for k in 0..OUTPUTS {
            output[k * width..k * width + hidden]
                .copy_from_slice(&net.output_weight[k * hidden..(k + 1) * hidden]);
        }
        let mut output_bias = [0f32; OUTPUTS];
        output_bias.copy_from_slice(&net.output_bias);
        FastNet {
            inputs,
            width,
            columns,
            bias,
            output,
            output_bias,
        }
    }

    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Length of a pre-activation buffer: the hidden size rounded up to [`LANES`].
    pub fn width(&self) -> usize {
        self.width
    }

    /// The hidden-layer weights of input `i`, `width` long.
    #[inline]
    pub fn column(&self, i: usize) -> &[f32] {
        &self.columns[i * self.width..(i + 1) * self.width]
    }

    /// The hidden biases, `width` long.
    pub fn bias(&self) -> &[f32] {
        &self.bias
    }

    /// The hidden pre-activations of a whole input vector, written to `acc` (`width` long):
    /// the full 85 x 100 product, one column at a time.
    pub fn preactivations(&self, input: &[f32], acc: &mut [f32]) {
        assert_eq!(input.len(), self.inputs, "input length");
        acc.copy_from_slice(&self.bias);
        for (i, &x) in input.iter().enumerate() {
            add_scaled_into(acc, self.column(i), x);
        }
    }

    /// The output logits (before the output sigmoid) from hidden pre-activations: one pass
    /// that takes the fast sigmoid of eight units at a time and accumulates all three outputs.
    #[inline]
    pub fn logits(&self, acc: &[f32]) -> [f32; OUTPUTS] {
        let w = self.width;
        let mut sums = [[0f32; LANES]; OUTPUTS];
        let rows = [
            &self.output[..w],
            &self.output[w..2 * w],
            &self.output[2 * w..3 * w],
        ];
        for (c, a) in acc[..w].chunks_exact(LANES).enumerate() {
            let mut h = [0f32; LANES];
            for k in 0..LANES {
                h[k] = fast_sigmoid(a[k]);
            }
            for (sum, row) in sums.iter_mut().zip(rows) {
                let row = &row[c * LANES..(c + 1) * LANES];
                for k in 0..LANES {
                    sum[k] += row[k] * h[k];
                }
            }
        }
        let mut out = self.output_bias;
        for (o, sum) in out.iter_mut().zip(&sums) {
            *o += sum.iter().sum::<f32>();
        }
        out
    }

    /// The three output probabilities (P1 wins, P2 wins, draw) of an input vector; `acc` is a
    /// scratch buffer of `width`.
    pub fn evaluate(&self, input: &[f32], acc: &mut [f32]) -> [f32; OUTPUTS] {
        self.preactivations(input, acc);
        self.logits(acc).map(sigmoid)
    }
}

/// An upper bound on how far [`FastNet::logits`] can be from the exact logits through the
/// sigmoid approximation alone: the largest absolute output row sum times the sigmoid's error
/// bound. (Summation order adds its own rounding, of the same order as the reference's.)
pub fn logit_error_bound(net: &ValueNet) -> f32 {
    let hidden = net.hidden();
    (0..OUTPUTS)
        .map(|k| {
            net.output_weight[k * hidden..(k + 1) * hidden]
                .iter()
                .map(|w| w.abs())
                .sum::<f32>()
        })
        .fold(0f32, f32::max)
        * SIGMOID_ERROR_BOUND
}

/// The bound on `|fast_sigmoid(x) - sigmoid(x)|` that the tests check over the whole f32 line.
pub const SIGMOID_ERROR_BOUND: f32 = 2e-7;
