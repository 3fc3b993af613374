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
    fast_exp_with::<false>(y)
}

/// `a * b + c`: fused (one rounding) where the caller was compiled for FMA, else two steps.
#[inline(always)]
fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

#[inline(always)]
fn fast_exp_with<const FMA: bool>(y: f32) -> f32 {
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
    let mut p = 1.0 / 720.0;
    for c in [1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
        p = madd::<FMA>(p, r, c);
    }
    let scale = f32::from_bits(((n + 127) as u32) << 23);
    p * scale
}

/// `1 / (1 + e^-x)` through [`fast_exp`]; within 2e-7 of the exact value (tested).
#[inline(always)]
pub fn fast_sigmoid(x: f32) -> f32 {
    fast_sigmoid_with::<false>(x)
}

/// [`fast_sigmoid`], with fused multiply-adds when `FMA` (the AVX2 path's variant).
#[inline(always)]
pub fn fast_sigmoid_with<const FMA: bool>(x: f32) -> f32 {
    1.0 / (1.0 + fast_exp_with::<FMA>(-x))
}

/// `acc += delta`, elementwise; both of the net's width.
#[inline(always)]
pub fn add_into(acc: &mut [f32], delta: &[f32]) {
    for (a, d) in acc.iter_mut().zip(delta) {
        *a += d;
    }
}

/// `acc += scale * column`, elementwise; both of the net's width.
#[inline(always)]
pub fn add_scaled_into(acc: &mut [f32], column: &[f32], scale: f32) {
    for (a, c) in acc.iter_mut().zip(column) {
        *a += scale * c;
    }
}

/// The instruction set of the net's loops, chosen once at run time: the portable build targets
/// the x86-64 baseline (SSE2, four floats an instruction); CPUs with AVX2 and FMA run the same
/// loops compiled for eight, with fused multiply-adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    Baseline,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Simd {
    /// The widest this CPU supports (AVX2 means AVX2 and FMA), unless the environment
    /// variable `ENGINE_SIMD=baseline` asks for the portable loops (to compare, or to rule
    /// them out).
    pub fn detect() -> Simd {
        if std::env::var("ENGINE_SIMD").is_ok_and(|v| v.eq_ignore_ascii_case("baseline")) {
            return Simd::Baseline;
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            return Simd::Avx2;
        }
        Simd::Baseline
    }

    /// Every variant this CPU can run (for tests and benchmarks).
    pub fn available() -> Vec<Simd> {
        let mut all = vec![Simd::Baseline];
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            all.push(Simd::Avx2);
        }
        all
    }
}

/// The sum of eight lanes. Kept out of line: inlined, the vectoriser sees the three final
/// sums of [`FastNet::logits`] together and rearranges the whole loop's accumulators into
/// shuffled pairs of lanes, which made it half as fast.
#[inline(never)]
fn lane_sum(lanes: &[f32; LANES]) -> f32 {
    lanes.iter().sum()
}

/// A hidden layer (PyTorch's layout: `hidden_weight` is hidden x `inputs`, row-major) laid
/// out input-major: the padded width (the hidden size rounded up to [`LANES`]), one column of
/// that width per input, and the biases, zero in the padding.
pub fn input_major(
    hidden_weight: &[f32],
    hidden_bias: &[f32],
    inputs: usize,
) -> (usize, Vec<f32>, Vec<f32>) {
    let hidden = hidden_bias.len();
    let width = hidden.div_ceil(LANES) * LANES;
    let mut columns = vec![0f32; inputs * width];
    for j in 0..hidden {
        for i in 0..inputs {
            columns[i * width + j] = hidden_weight[j * inputs + i];
        }
    }
    let mut bias = vec![0f32; width];
    bias[..hidden].copy_from_slice(hidden_bias);
    (width, columns, bias)
}

/// The net in inference layout. Built once from a [`ValueNet`]; shared read-only by threads.
#[derive(Clone, Debug)]
pub struct FastNet {
    simd: Simd,
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
    /// The layout of `net`, its loops for the widest instructions this CPU has.
    pub fn new(net: &ValueNet) -> FastNet {
        FastNet::with_simd(net, Simd::detect())
    }

    /// The layout of `net` with loops for `simd` (which the CPU must support: see
    /// [`Simd::available`]).
    pub fn with_simd(net: &ValueNet, simd: Simd) -> FastNet {
        let (inputs, hidden) = (net.inputs(), net.hidden());
        let (width, columns, bias) = input_major(&net.hidden_weight, &net.hidden_bias, inputs);
        let mut output = vec![0f32; OUTPUTS * width];
        for k in 0..OUTPUTS {
            output[k * width..k * width + hidden]
                .copy_from_slice(&net.output_weight[k * hidden..(k + 1) * hidden]);
        }
        let mut output_bias = [0f32; OUTPUTS];
        output_bias.copy_from_slice(&net.output_bias);
        FastNet {
            simd,
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

    pub fn simd(&self) -> Simd {
        self.simd
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
        match self.simd {
            Simd::Baseline => self.preactivations_portable(input, acc),
            // SAFETY: `Simd::Avx2` is only chosen when the CPU has AVX2 and FMA.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { self.preactivations_avx2(input, acc) },
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn preactivations_avx2(&self, input: &[f32], acc: &mut [f32]) {
        self.preactivations_portable(input, acc)
    }

    #[inline(always)]
    fn preactivations_portable(&self, input: &[f32], acc: &mut [f32]) {
        acc.copy_from_slice(&self.bias);
        for (i, &x) in input.iter().enumerate() {
            add_scaled_into(acc, self.column(i), x);
        }
    }

    /// The output logits (before the output sigmoid) from hidden pre-activations: one pass
    /// that takes the fast sigmoid of eight units at a time and accumulates all three outputs.
    #[inline]
    pub fn logits(&self, acc: &[f32]) -> [f32; OUTPUTS] {
        match self.simd {
            Simd::Baseline => self.logits_portable::<false>(acc),
            // SAFETY: `Simd::Avx2` is only chosen when the CPU has AVX2 and FMA.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { self.logits_avx2(acc) },
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn logits_avx2(&self, acc: &[f32]) -> [f32; OUTPUTS] {
        self.logits_portable::<true>(acc)
    }

    #[inline(always)]
    fn logits_portable<const FMA: bool>(&self, acc: &[f32]) -> [f32; OUTPUTS] {
        let w = self.width;
        // Three separate lane accumulators (not an array of them): the vectoriser keeps each
        // in one register.
        let (mut s0, mut s1, mut s2) = ([0f32; LANES], [0f32; LANES], [0f32; LANES]);
        let (r0, rest) = self.output.split_at(w);
        let (r1, r2) = rest.split_at(w);
        let chunks = acc[..w]
            .chunks_exact(LANES)
            .zip(r0.chunks_exact(LANES))
            .zip(r1.chunks_exact(LANES).zip(r2.chunks_exact(LANES)));
        for ((a, w0), (w1, w2)) in chunks {
            // A plain loop, not `a.map(..)`: `map` is not always inlined, and then runs
            // outside the AVX2 function, one call per float.
            let mut h = [0f32; LANES];
            for k in 0..LANES {
                h[k] = fast_sigmoid_with::<FMA>(a[k]);
            }
            for k in 0..LANES {
                s0[k] = madd::<FMA>(w0[k], h[k], s0[k]);
            }
            for k in 0..LANES {
                s1[k] = madd::<FMA>(w1[k], h[k], s1[k]);
            }
            for k in 0..LANES {
                s2[k] = madd::<FMA>(w2[k], h[k], s2[k]);
            }
        }
        let [b0, b1, b2] = self.output_bias;
        [b0 + lane_sum(&s0), b1 + lane_sum(&s1), b2 + lane_sum(&s2)]
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
