//! The learned evaluation of `pvs`: a pattern net, NNUE-style (the shape of the Gomocup
//! leaders' evaluations since 2020), trained by `train` on self-play and run here without a
//! framework.
//!
//! * **Inputs**: what the pattern evaluation sees. Each empty point has, in each of its four
//!   directions, the [`Shape`] each colour would make there ([`ShapeBoard::shape`]). Seen from
//!   one side, a (point, direction) is one of 81 codes: `9 * own shape + other's shape`.
//! * **Points**: a point's activation is `clamp(bias + sum over its four directions of the
//!   code's embedding, 0, 1)`, a vector of `features`: one learnt table of
//!   81 rows, the same for every direction and point, so the net is
//!   blind to the board's symmetries by construction. The nonlinearity is per point: a four and
//!   a live three through the same point can be worth more than the two apart.
//! * **Sides**: the activations of every empty point are summed twice, once seen from each
//!   colour (own = black, own = white).
//! * **Head**: the side to move's sum and the other's, concatenated and divided by
//!   [`POINT_NORM`], a dense layer of `hidden` clipped-ReLU units and one output, the logit of
//!   the side to move's chance to win.
//!
//! A stone changes the shapes of the points on its four lines only, so the sums are kept
//! move by move ([`ShapeBoard`] moves the points whose shapes changed, in integers: a move and
//! its unmake restore them exactly; lazily, when a position below the move is evaluated), and
//! an evaluation is the head alone.
//!
//! The file is safetensors: `point.embedding` (81 x features), `point.bias` (features),
//! `head.weight` (hidden x 2 features, PyTorch's `nn.Linear` layout), `head.bias`,
//! `output.weight` (1 x hidden), `output.bias` (1), f32, with string metadata naming the format, game, rule, size and encoding.

use std::collections::BTreeMap;
use std::path::Path;

use super::patterns::Shape;
use super::shape_board::ShapeBoard;
use super::Rule;
use crate::game::Player;
use crate::nn::{parse_safetensors, write_safetensors, TensorEntry};

/// What a pattern net's file says it is.
pub const NET_FORMAT: &str = "gomoku pattern net";
/// The inputs' definition: shape pairs of the empty points, by direction.
pub const NET_ENCODING: &str = "gomoku-shape-pairs-v1";
/// The codes of a (point, direction) seen from one side: `9 * own shape + other's shape`.
pub const CODES: usize = Shape::ALL.len() * Shape::ALL.len();
/// The head reads each side's sum of point activations divided by this (a board has up to
/// 400 empty points: it keeps the head's inputs near 1).
pub const POINT_NORM: f32 = 32.0;
/// A point activation of 1 in the engine's integers (i16: the embedding's rows are summed
/// sixteen features to an AVX2 instruction).
pub const ACT_ONE: i16 = 1 << 11;
/// The largest magnitude of a quantised embedding or bias entry (2.93 as a float): five of
/// them sum inside an i16. Larger trained weights are clamped (a point's activation is
/// clamped to [0, 1] anyway).
const MAX_QUANTISED: f32 = 6000.0;
/// The most features and hidden units a file may have.
const MAX_WIDTH: usize = 256;

/// The product's net for `rule` on a `size` board, where it has one: the freestyle net, for
/// freestyle and the standard rule ([`PatternNet::plays`]) on 15x15 and the bigger boards,
/// where its sums are carried over ([`PatternNet::size_offset`]). At 100 ms against the fitted
/// shapes it scored 0.650 on 20x20 and 0.703 under the standard rule (docs/gomoku-results.md).
/// The copy compiled into the binary, so `best` plays with it from any working directory.
pub fn product_net(rule: Rule, size: usize) -> Option<std::sync::Arc<PatternNet>> {
    static NET: std::sync::OnceLock<Option<std::sync::Arc<PatternNet>>> =
        std::sync::OnceLock::new();
    let net = NET
        .get_or_init(|| {
            let bytes = include_bytes!("../../../../models/gomoku-15-freestyle/model.safetensors");
            PatternNet::from_bytes(bytes).ok().map(std::sync::Arc::new)
        })
        .clone()?;
    (net.plays(rule) && size >= net.size).then_some(net)
}

/// The four codes of empty point `p` seen from `side` (`9 * its own shape + the other's`).
#[inline]
pub fn point_codes(board: &ShapeBoard, side: Player, p: usize) -> [usize; 4] {
    board.pair_codes(p).map(|c| pair_seen_from(c, side.index()))
}

/// A pattern net's weights, as trained (f32), and the integer form the engine sums.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternNet {
    pub rule: Rule,
    pub size: usize,
    pub features: usize,
    pub hidden: usize,
    /// CODES x features, row-major.
    pub embedding: Vec<f32>,
    pub point_bias: Vec<f32>,
    /// hidden x (2 features): the side to move's sum first.
    pub head_weight: Vec<f32>,
    pub head_bias: Vec<f32>,
    pub output_weight: Vec<f32>,
    pub output_bias: f32,
    /// Everything else the file says (dataset, metrics, command ...), kept as written.
    pub extra: BTreeMap<String, String>,
    /// The embedding and bias in units of [`ACT_ONE`].
    embedding_q: Vec<i16>,
    bias_q: Vec<i16>,
    /// The head's weights over the integer sums: `head_weight / (ACT_ONE * POINT_NORM)`.
    head_q: Vec<f32>,
}

/// Each pair code seen from each colour (0 black, 1 white: each side's own shape first), 256
/// long so that a byte indexes it without a bound check.
const PAIR_SEEN_FROM: [[u8; 256]; 2] = {
    let nine = Shape::ALL.len();
    let mut table = [[0u8; 256]; 2];
    let mut c = 0;
    while c < nine * nine {
        table[0][c] = c as u8;
        table[1][c] = ((c % nine) * nine + c / nine) as u8;
        c += 1;
    }
    table
};

/// A pair code ([`ShapeBoard::pair_codes`]) seen from `colour` (0 black, 1 white).
#[inline(always)]
fn pair_seen_from(pair: u8, colour: usize) -> usize {
    usize::from(PAIR_SEEN_FROM[colour & 1][usize::from(pair)])
}

impl PatternNet {
    /// A net from its weights (checked against its sizes).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        rule: Rule,
        size: usize,
        embedding: Vec<f32>,
        point_bias: Vec<f32>,
        head_weight: Vec<f32>,
        head_bias: Vec<f32>,
        output_weight: Vec<f32>,
        output_bias: f32,
    ) -> Result<PatternNet, String> {
        let features = point_bias.len();
        let hidden = head_bias.len();
        if features == 0 || features > MAX_WIDTH || hidden == 0 || hidden > MAX_WIDTH {
            return Err(format!(
                "{features} features and {hidden} hidden units: each must be 1 to {MAX_WIDTH}"
            ));
        }
        for (name, got, want) in [
            ("point.embedding", embedding.len(), CODES * features),
            ("head.weight", head_weight.len(), hidden * 2 * features),
            ("output.weight", output_weight.len(), hidden),
        ] {
            if got != want {
                return Err(format!(
                    "{name} has {got} numbers, the net's sizes want {want}"
                ));
            }
        }
        let all = embedding
            .iter()
            .chain(&point_bias)
            .chain(&head_weight)
            .chain(&head_bias)
            .chain(&output_weight)
            .chain(std::iter::once(&output_bias));
        if let Some(bad) = all.clone().find(|w| !w.is_finite() || w.abs() > 1e4) {
            return Err(format!(
                "a weight is {bad}: each must be finite and within 1e4"
            ));
        }
        let scale = 1.0 / (f32::from(ACT_ONE) * POINT_NORM);
        Ok(PatternNet {
            rule,
            size,
            features,
            hidden,
            embedding_q: embedding.iter().map(quantise).collect(),
            bias_q: point_bias.iter().map(quantise).collect(),
            head_q: head_weight.iter().map(|w| w * scale).collect(),
            embedding,
            point_bias,
            head_weight,
            head_bias,
            output_weight,
            output_bias,
            extra: BTreeMap::new(),
        })
    }

    /// The inputs' definition, as the file names it.
    pub fn encoding(&self) -> &'static str {
        NET_ENCODING
    }

    /// Whether the net plays this rule and board, else what does not fit: its own rule, on
    /// any board. On a board of another size its sums are carried over
    /// ([`size_offset`](Self::size_offset)).
    pub fn check_fits(&self, rule: Rule, size: usize) -> Result<(), String> {
        if !self.plays(rule) {
            return Err(format!(
                "the net was trained for {} {}x{}, this game is {} {size}x{size}",
                self.rule.name(),
                self.size,
                self.size,
                rule.name()
            ));
        }
        Ok(())
    }

    /// Whether the net plays `rule`: its own, and a freestyle net the standard rule too. The
    /// two differ only in the overline, which is no five under the standard rule: the shapes
    /// the net reads are the rule's own (a point that makes only an overline makes nothing),
    /// and what it learnt of their worth carries over. Renju's forbidden points do not.
    pub fn plays(&self, rule: Rule) -> bool {
        rule == self.rule || (self.rule, rule) == (Rule::Freestyle, Rule::Standard)
    }

    /// What the sums of a `size` board start from (the same for both colours), in the
    /// engine's integers: the empty trained board's sums less the empty `size` board's. Zero on
    /// the net's own board. On a bigger board the extra points, far from every stone, would
    /// each add their activations (on the shipped net one feature counts such points: the
    /// board's emptiness); started there, a position whose stones keep away from the edges
    /// sums as the same stones on the board the net learnt.
    pub fn size_offset(&self, size: usize) -> Vec<i32> {
        if size == self.size {
            return vec![0; self.features];
        }
        let trained = self.empty_board_sums(self.size);
        let here = self.empty_board_sums(size);
        trained.iter().zip(&here).map(|(t, h)| t - h).collect()
    }

    /// The sums of the empty `size` board (either colour's: they are the same), each point
    /// set as the board sets it ([`update_point`](Self::update_point)).
    fn empty_board_sums(&self, size: usize) -> Vec<i32> {
        let f = self.features;
        let mut sums = vec![0i32; f];
        let Ok(empty) = super::Gomoku::new(size, self.rule) else {
            return sums;
        };
        let board = ShapeBoard::new(&empty);
        let (mut pre, mut acts) = (vec![0i16; f], vec![0i16; f]);
        for p in 0..board.points() {
            // A fresh point each time: its activations start at zero, as a board's do.
            acts.fill(0);
            let codes = board.pair_codes(p);
            self.update_point(0, Some(codes), &mut pre, &mut acts, &mut sums);
        }
        sums
    }

    /// [`size_offset`](Self::size_offset) in f32 (the reference's).
    fn size_offset_f32(&self, size: usize) -> Vec<f32> {
        if size == self.size {
            return vec![0.0; self.features];
        }
        let sums = |n: usize| {
            let mut sums = vec![0f32; self.features];
            if let Ok(empty) = super::Gomoku::new(n, self.rule) {
                let board = ShapeBoard::new(&empty);
                for p in 0..board.points() {
                    for (s, a) in sums
                        .iter_mut()
                        .zip(self.reference_point(&board, Player::P1, p))
                    {
                        *s += a;
                    }
                }
            }
            sums
        };
        let (trained, here) = (sums(self.size), sums(size));
        trained.iter().zip(&here).map(|(t, h)| t - h).collect()
    }

    /// Sets a point's preactivations and activations seen from `colour` (0 black, 1 white;
    /// `pre`, `acts`, features long) to those of its four line codes (`None`: a stone, which
    /// counts nothing), and moves `sums` by the change.
    #[inline(always)]
    fn update_point(
        &self,
        colour: usize,
        codes: Option<[u8; 4]>,
        pre: &mut [i16],
        acts: &mut [i16],
        sums: &mut [i32],
    ) {
        let f = self.features;
        let (pre, acts, sums) = (&mut pre[..f], &mut acts[..f], &mut sums[..f]);
        let Some(codes) = codes else {
            for (s, a) in sums.iter_mut().zip(acts.iter_mut()) {
                *s -= i32::from(*a);
                *a = 0;
            }
            return;
        };
        let [r0, r1, r2, r3] = codes.map(|c| {
            let c = pair_seen_from(c, colour);
            &self.embedding_q[c * f..c * f + f]
        });
        let bias = &self.bias_q[..f];
        // Wrapping sums are exact: the quantised weights keep every point's value inside an
        // i16 ([`MAX_QUANTISED`]), whatever the partial sums do.
        for i in 0..f {
            pre[i] = bias[i]
                .wrapping_add(r0[i])
                .wrapping_add(r1[i])
                .wrapping_add(r2[i])
                .wrapping_add(r3[i]);
        }
        for i in 0..f {
            settle(pre[i], &mut pre[i], &mut acts[i], &mut sums[i]);
        }
    }

    /// One direction's pair code of a point seen from `colour` goes from `old` to `new`:
    /// its preactivations move by the difference of the rows (exactly: integers), and its
    /// activations and `sums` follow.
    #[inline(always)]
    fn shift_point(
        &self,
        colour: usize,
        old: u8,
        new: u8,
        pre: &mut [i16],
        acts: &mut [i16],
        sums: &mut [i32],
    ) {
        let f = self.features;
        let (pre, acts, sums) = (&mut pre[..f], &mut acts[..f], &mut sums[..f]);
        let (o, n) = (pair_seen_from(old, colour), pair_seen_from(new, colour));
        let rows = (&self.embedding_q[o * f..], &self.embedding_q[n * f..]);
        if f == 16 {
            // The shipped width, fixed: the compiler keeps each row in registers.
            return shift_fixed::<16>(pre, acts, sums, rows);
        }
        let (ro, rn) = (&rows.0[..f], &rows.1[..f]);
        for i in 0..f {
            let v = pre[i].wrapping_sub(ro[i]).wrapping_add(rn[i]);
            settle(v, &mut pre[i], &mut acts[i], &mut sums[i]);
        }
    }

    /// The side to move's logit from the integer sums of its side and the other's.
    #[inline(always)]
    fn head(&self, mine: &[i32], theirs: &[i32]) -> f32 {
        let f = self.features;
        // The inputs in f32 once, not once a hidden unit.
        let mut input = [0f32; 2 * MAX_WIDTH];
        for (x, &s) in input.iter_mut().zip(mine[..f].iter().chain(&theirs[..f])) {
            *x = s as f32;
        }
        let input = &input[..2 * f];
        let mut out = self.output_bias;
        for (k, row) in self.head_q.chunks_exact(2 * f).enumerate() {
            // Eight sums side by side: one vector multiply-add a step, not a serial chain.
            let mut lanes = [0f32; 8];
            let (row_chunks, input_chunks) = (row.chunks_exact(8), input.chunks_exact(8));
            let mut h = self.head_bias[k];
            for (w, x) in row_chunks.remainder().iter().zip(input_chunks.remainder()) {
                h += w * x;
            }
            for (w, x) in row_chunks.zip(input_chunks) {
                for j in 0..8 {
                    lanes[j] += w[j] * x[j];
                }
            }
            h += lanes.iter().sum::<f32>();
            out += self.output_weight[k] * h.clamp(0.0, 1.0);
        }
        out
    }

    /// [`head`](Self::head) compiled for AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn head_avx2(&self, mine: &[i32], theirs: &[i32]) -> f32 {
        self.head(mine, theirs)
    }

    /// The side to move's logit from the integer sums of its side and the other's.
    pub fn logit(&self, mine: &[i32], theirs: &[i32]) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has AVX2 and FMA (checked once, [`has_avx2`]).
            return unsafe { self.head_avx2(mine, theirs) };
        }
        self.head(mine, theirs)
    }

    /// The side to move's logit in f32 from a board's shapes, as `train` computes it: the
    /// reference the integer sums are checked against.
    pub fn reference_logit(&self, board: &ShapeBoard) -> f32 {
        let f = self.features;
        let me = board.to_move();
        let offset = self.size_offset_f32(board.position().size());
        let mut sums = [offset.clone(), offset];
        for p in (0..board.points()).filter(|&p| board.is_empty(p)) {
            for (side, sum) in [me, me.opponent()].into_iter().zip(&mut sums) {
                for (s, a) in sum.iter_mut().zip(self.reference_point(board, side, p)) {
                    *s += a;
                }
            }
        }
        let input: Vec<f32> = sums.concat().iter().map(|s| s / POINT_NORM).collect();
        let mut out = self.output_bias;
        for k in 0..self.hidden {
            let row = &self.head_weight[k * 2 * f..(k + 1) * 2 * f];
            let h: f32 =
                self.head_bias[k] + row.iter().zip(&input).map(|(w, x)| w * x).sum::<f32>();
            out += self.output_weight[k] * h.clamp(0.0, 1.0);
        }
        out
    }

    /// Empty point `p`'s activations seen from `side`, in f32 from the board's shapes.
    fn reference_point(&self, board: &ShapeBoard, side: Player, p: usize) -> Vec<f32> {
        let f = self.features;
        let codes = point_codes(board, side, p);
        (0..f)
            .map(|i| {
                let v: f32 = self.point_bias[i]
                    + codes
                        .iter()
                        .map(|&c| self.embedding[c * f + i])
                        .sum::<f32>();
                v.clamp(0.0, 1.0)
            })
            .collect()
    }

    /// The metadata the net writes of itself (the rest of a file's is kept in `extra`).
    fn own_metadata(&self) -> [(&'static str, String); 9] {
        [
            ("format", NET_FORMAT.to_string()),
            ("game", "gomoku".to_string()),
            ("rule", self.rule.name().to_string()),
            ("size", self.size.to_string()),
            ("encoding", self.encoding().to_string()),
            ("features", self.features.to_string()),
            ("hidden", self.hidden.to_string()),
            ("point_norm", POINT_NORM.to_string()),
            (
                "output_activation",
                "sigmoid: the side to move's chance to win".to_string(),
            ),
        ]
    }

    /// The tensors, in the order of the file and the fingerprint.
    fn tensors(&self) -> [TensorEntry<'_>; 6] {
        let (f, h) = (self.features, self.hidden);
        [
            TensorEntry::new("point.embedding", vec![CODES, f], &self.embedding),
            TensorEntry::new("point.bias", vec![f], &self.point_bias),
            TensorEntry::new("head.weight", vec![h, 2 * f], &self.head_weight),
            TensorEntry::new("head.bias", vec![h], &self.head_bias),
            TensorEntry::new("output.weight", vec![1, h], &self.output_weight),
            TensorEntry::new(
                "output.bias",
                vec![1],
                std::slice::from_ref(&self.output_bias),
            ),
        ]
    }

    /// Writes the net as safetensors with its metadata (and `extra`'s).
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let mut meta = self.extra.clone();
        for (key, value) in self.own_metadata() {
            meta.insert(key.into(), value);
        }
        write_safetensors(path, &meta, &self.tensors())
            .map_err(|e| format!("model {}: {e}", path.display()))
    }

    /// [`weights_fingerprint`](crate::nn::weights_fingerprint) of the weights and biases.
    pub fn fingerprint(&self) -> String {
        crate::nn::weights_fingerprint(&self.tensors().map(|t| t.data))
    }

    /// Reads a net written by [`save`](Self::save); any error names the file and what does
    /// not fit.
    pub fn load(path: &Path) -> Result<PatternNet, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("model {}: cannot read: {e}", path.display()))?;
        PatternNet::from_bytes(&bytes).map_err(|e| format!("model {}: {e}", path.display()))
    }

    /// [`load`](Self::load) from the file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternNet, String> {
        let (meta, mut tensors) = parse_safetensors(bytes)?;
        let get = |key: &str| {
            meta.get(key)
                .map(String::as_str)
                .ok_or_else(|| format!("its metadata has no '{key}'"))
        };
        let format = get("format")?;
        if format != NET_FORMAT {
            return Err(format!("format '{format}', not a {NET_FORMAT}"));
        }
        let game = get("game")?;
        if game != "gomoku" {
            return Err(format!("a net for {game}, not gomoku"));
        }
        let encoding = get("encoding")?;
        if encoding != NET_ENCODING {
            return Err(format!(
                "encoding '{encoding}'; this engine reads '{NET_ENCODING}' only"
            ));
        }
        let rule = Rule::parse(get("rule")?)?;
        let size: usize = get("size")?
            .parse()
            .map_err(|_| format!("size '{}' is not a number", get("size").unwrap_or("")))?;
        let mut take = |name: &str| {
            tensors
                .remove(name)
                .map(|(_, data)| data)
                .ok_or_else(|| format!("it has no tensor '{name}'"))
        };
        let mut net = PatternNet::new(
            rule,
            size,
            take("point.embedding")?,
            take("point.bias")?,
            take("head.weight")?,
            take("head.bias")?,
            take("output.weight")?,
            match take("output.bias")?[..] {
                [x] => x,
                ref v => return Err(format!("output.bias has {} numbers, not 1", v.len())),
            },
        )?;
        if let Some(name) = tensors.keys().min() {
            return Err(format!(
                "it has a tensor '{name}' this engine does not read"
            ));
        }
        let own = net.own_metadata().map(|(key, _)| key);
        net.extra = meta
            .into_iter()
            .filter(|(k, _)| !own.contains(&k.as_str()))
            .collect();
        Ok(net)
    }
}

/// A weight in the engine's integers (units of [`ACT_ONE`]), clamped to [`MAX_QUANTISED`].
fn quantise(w: &f32) -> i16 {
    (w * f32::from(ACT_ONE))
        .round()
        .clamp(-MAX_QUANTISED, MAX_QUANTISED) as i16
}

/// A point's new preactivation `v` of one feature: stored, its activation (clamped to [0, 1])
/// stored, and the side's sum moved by the activation's change.
#[inline(always)]
fn settle(v: i16, pre: &mut i16, act: &mut i16, sum: &mut i32) {
    *pre = v;
    let a = v.clamp(0, ACT_ONE);
    *sum += i32::from(a) - i32::from(*act);
    *act = a;
}

/// A point's preactivations move by row `rows.1` less row `rows.0` (both at least `F` long)
/// and settle, `F` features wide.
#[inline(always)]
fn shift_fixed<const F: usize>(
    pre: &mut [i16],
    acts: &mut [i16],
    sums: &mut [i32],
    rows: (&[i16], &[i16]),
) {
    let (Some(pre), Some(acts), Some(sums), Some(out), Some(into)) = (
        pre.first_chunk_mut::<F>(),
        acts.first_chunk_mut::<F>(),
        sums.first_chunk_mut::<F>(),
        rows.0.first_chunk::<F>(),
        rows.1.first_chunk::<F>(),
    ) else {
        unreachable!("rows and points {F} features wide")
    };
    for i in 0..F {
        let v = pre[i].wrapping_sub(out[i]).wrapping_add(into[i]);
        settle(v, &mut pre[i], &mut acts[i], &mut sums[i]);
    }
}

/// Whether the CPU runs AVX2 and FMA (asked once).
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    })
}

/// The sums a [`ShapeBoard`] keeps for a net: each empty point's activations seen from each
/// colour, and their sums.
#[derive(Clone)]
pub struct NetSums {
    pub net: std::sync::Arc<PatternNet>,
    /// By point, then colour (black's view first), `features` each: the activations, and
    /// the preactivations (of empty points).
    acts: Vec<i16>,
    pre: Vec<i16>,
    sums: [Vec<i32>; 2],
    /// Whether the CPU runs AVX2 ([`has_avx2`], asked once here).
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

impl NetSums {
    pub fn new(net: std::sync::Arc<PatternNet>, size: usize) -> NetSums {
        let f = net.features;
        let points = size * size;
        let offset = net.size_offset(size);
        NetSums {
            acts: vec![0; points * 2 * f],
            pre: vec![0; points * 2 * f],
            sums: [offset.clone(), offset],
            net,
            #[cfg(target_arch = "x86_64")]
            avx2: has_avx2(),
        }
    }

    /// Sets point `p`'s activations seen from each colour from its four line codes (`None`
    /// for a stone, which counts nothing) and moves the sums by the change.
    #[inline]
    pub fn set_point(&mut self, p: usize, codes: Option<[u8; 4]>) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: the CPU has AVX2 (checked once, [`has_avx2`]).
            return unsafe { self.set_point_avx2(p, codes) };
        }
        self.set_point_portable(p, codes)
    }

    #[inline(always)]
    fn set_point_portable(&mut self, p: usize, codes: Option<[u8; 4]>) {
        let f = self.net.features;
        let (black, white) = self.acts[p * 2 * f..(p + 1) * 2 * f].split_at_mut(f);
        let (pre_b, pre_w) = self.pre[p * 2 * f..(p + 1) * 2 * f].split_at_mut(f);
        let [sb, sw] = &mut self.sums;
        for (colour, pre, acts, sums) in [(0, pre_b, black, sb), (1, pre_w, white, sw)] {
            self.net.update_point(colour, codes, pre, acts, sums);
        }
    }

    /// [`set_point`](Self::set_point) compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn set_point_avx2(&mut self, p: usize, codes: Option<[u8; 4]>) {
        self.set_point_portable(p, codes)
    }

    /// One direction's line code of empty point `p` goes from `old` to `new`: its activations
    /// follow by the rows' difference, cheaper than [`set_point`](Self::set_point).
    #[inline]
    pub fn shift_point(&mut self, p: usize, old: u8, new: u8) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: the CPU has AVX2 (checked once, [`has_avx2`]).
            return unsafe { self.shift_point_avx2(p, old, new) };
        }
        self.shift_point_portable(p, old, new)
    }

    #[inline(always)]
    fn shift_point_portable(&mut self, p: usize, old: u8, new: u8) {
        let f = self.net.features;
        let (black, white) = self.acts[p * 2 * f..(p + 1) * 2 * f].split_at_mut(f);
        let (pre_b, pre_w) = self.pre[p * 2 * f..(p + 1) * 2 * f].split_at_mut(f);
        let [sb, sw] = &mut self.sums;
        for (colour, pre, acts, sums) in [(0, pre_b, black, sb), (1, pre_w, white, sw)] {
            self.net.shift_point(colour, old, new, pre, acts, sums);
        }
    }

    /// [`shift_point`](Self::shift_point) compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn shift_point_avx2(&mut self, p: usize, old: u8, new: u8) {
        self.shift_point_portable(p, old, new)
    }

    /// The logit of `to_move`'s chance to win.
    pub fn logit(&self, to_move: Player) -> f32 {
        let me = to_move.index();
        self.net.logit(&self.sums[me], &self.sums[1 - me])
    }

    /// The sums by colour (for tests).
    pub fn sums(&self) -> &[Vec<i32>; 2] {
        &self.sums
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Action, Game};
    use crate::games::gomoku::Gomoku;
    use crate::rng::Rng;
    use std::sync::Arc;

    /// A net of random weights (the embedding wide enough that points saturate both ways).
    pub(crate) fn random_net(rule: Rule, size: usize, seed: u64) -> PatternNet {
        let mut rng = Rng::new(seed);
        let mut draw = |n: usize, scale: f64| -> Vec<f32> {
            (0..n)
                .map(|_| ((rng.unit_f64() * 2.0 - 1.0) * scale) as f32)
                .collect()
        };
        let (f, h) = (8, 5);
        PatternNet::new(
            rule,
            size,
            draw(CODES * f, 0.6),
            draw(f, 0.3),
            draw(h * 2 * f, 1.0),
            draw(h, 0.5),
            draw(h, 2.0),
            0.1,
        )
        .unwrap()
    }

    /// The sums of a fresh board of `g` with `net`.
    fn fresh_sums(g: &Gomoku, net: &Arc<PatternNet>) -> [Vec<i32>; 2] {
        let mut board = ShapeBoard::new(g).with_net(net.clone()).unwrap();
        board.net_sums().unwrap().sums().clone()
    }

    #[test]
    fn the_sums_follow_moves_and_unmakes_exactly_and_match_the_f32_reference() {
        let mut rng = Rng::new(11);
        // The last two play a net on a board of another size than its own.
        for (rule, trained, size) in [
            (Rule::Freestyle, 15, 15),
            (Rule::Standard, 9, 9),
            (Rule::Renju, 15, 15),
            (Rule::Freestyle, 15, 20),
            (Rule::Standard, 15, 9),
        ] {
            let net = Arc::new(random_net(rule, trained, 5));
            let start = Gomoku::new(size, rule).unwrap();
            let mut board = ShapeBoard::new(&start).with_net(net.clone()).unwrap();
            let first = board.net_sums().unwrap().sums().clone();
            let mut moves = Vec::new();
            while !board.won() && board.position().stones() < board.points() {
                board.position().legal_actions(&mut moves);
                if moves.is_empty() {
                    break;
                }
                board.make(usize::from(rng.pick(&moves)));
                let want = fresh_sums(board.position(), &net);
                assert_eq!(board.net_sums().unwrap().sums(), &want);
                let (fast, exact) = (board.net_logit().unwrap(), net.reference_logit(&board));
                // Rounding to 1/2048 moves a logit by a few thousandths (a score unit is 1/400);
                // on another board the offset adds two empty boards' rounding.
                let slack = if trained == size { 1.0 } else { 3.0 };
                assert!(
                    (fast - exact).abs() < slack * 4e-3 * (1.0 + exact.abs()),
                    "{fast} vs {exact}"
                );
                // A pass changes the side the logit is for, and nothing else.
                board.pass();
                let passed = board.net_logit().unwrap();
                let exact = net.reference_logit(&board);
                assert!((passed - exact).abs() < slack * 4e-3 * (1.0 + passed.abs()));
                board.pass();
            }
            while board.ply() > 0 {
                board.unmake();
            }
            assert_eq!(board.net_sums().unwrap().sums(), &first);
        }
    }

    /// On a bigger board a net sums a position whose stones keep away from the edges exactly
    /// as it does the same stones on its own board: the extra points count as its far points.
    #[test]
    fn a_net_sums_central_stones_on_a_bigger_board_as_on_its_own() {
        let mut rng = Rng::new(17);
        let net = Arc::new(random_net(Rule::Freestyle, 15, 8));
        for _ in 0..20 {
            let (mut small, mut big) = (
                Gomoku::new(15, Rule::Freestyle).unwrap(),
                Gomoku::new(20, Rule::Freestyle).unwrap(),
            );
            // Up to six stones in the centre 3x3 of the 15x15 board (rows and columns 6 to 8),
            // the same on the 20x20 board moved by (2, 3).
            for _ in 0..1 + rng.below(6) {
                let (r, c) = (6 + rng.below(3) as usize, 6 + rng.below(3) as usize);
                let (a, b) = ((r * 15 + c) as Action, ((r + 2) * 20 + c + 3) as Action);
                if small.is_legal(a) && !small.is_terminal() {
                    small.apply(a);
                    big.apply(b);
                }
            }
            assert_eq!(fresh_sums(&small, &net), fresh_sums(&big, &net));
        }
        // On its own board nothing is added.
        assert!(net.size_offset(15).iter().all(|&v| v == 0));
    }

    /// The sums are brought up lazily: after any mix of moves, unmakes and syncs they equal
    /// a fresh board's, and moves unmade before a sync never reach them.
    #[test]
    fn lazy_sums_follow_any_mix_of_moves_unmakes_and_syncs() {
        let net = Arc::new(random_net(Rule::Freestyle, 15, 9));
        let mut rng = Rng::new(3);
        let start = Gomoku::new(15, Rule::Freestyle).unwrap();
        let mut board = ShapeBoard::new(&start).with_net(net.clone()).unwrap();
        let mut moves = Vec::new();
        for step in 0..400 {
            let roll = rng.below(10);
            if roll < 5 && !board.won() {
                board.position().legal_actions(&mut moves);
                if !moves.is_empty() {
                    board.make(usize::from(rng.pick(&moves)));
                }
            } else if roll < 8 && board.ply() > 0 {
                board.unmake();
            } else {
                let want = fresh_sums(board.position(), &net);
                assert_eq!(board.net_sums().unwrap().sums(), &want, "step {step}");
            }
        }
        // A board that got its net with moves made unmakes them right.
        let mut later = ShapeBoard::new(&start);
        for m in ["h8", "h9", "i8", "g8", "j9"] {
            later.make(usize::from(start.parse_legal_action(m).unwrap()));
        }
        let mut later = later.with_net(net.clone()).unwrap();
        later.make(usize::from(start.parse_legal_action("a1").unwrap()));
        while later.ply() > 0 {
            later.unmake();
        }
        assert_eq!(later.net_sums().unwrap().sums(), &fresh_sums(&start, &net));
    }

    #[test]
    fn a_saved_net_loads_the_same_and_other_rules_and_boards_are_refused() {
        let dir = std::env::temp_dir().join(format!("gomoku-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("model.safetensors");
        let mut net = random_net(Rule::Freestyle, 15, 3);
        net.extra.insert("positions".into(), "1234".into());
        net.save(&path).unwrap();
        let back = PatternNet::load(&path).unwrap();
        assert_eq!(back.encoding(), NET_ENCODING);
        assert_eq!(back, net);
        assert!(back.check_fits(Rule::Freestyle, 15).is_ok());
        // Another board of its rule is played (its sums carried over), and the standard rule
        // (freestyle less the overline); renju is not.
        assert!(back.check_fits(Rule::Freestyle, 20).is_ok());
        assert!(back.check_fits(Rule::Standard, 20).is_ok());
        let e = back.check_fits(Rule::Renju, 20).unwrap_err();
        assert_eq!(
            e,
            "the net was trained for freestyle 15x15, this game is renju 20x20"
        );
        let g = Gomoku::new(15, Rule::Renju).unwrap();
        let e = ShapeBoard::new(&g).with_net(Arc::new(back)).err().unwrap();
        assert!(e.contains("this game is renju 15x15"), "{e}");

        // A truncated file, a Dots-and-Boxes value net and a missing file, each named.
        let bytes = std::fs::read(&path).unwrap();
        let cut = dir.join("cut.safetensors");
        std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
        let e = PatternNet::load(&cut).unwrap_err();
        assert!(e.starts_with(&format!("model {}: ", cut.display())), "{e}");
        assert!(e.contains("truncated"), "{e}");
        let e = PatternNet::load(&dir.join("none.safetensors")).unwrap_err();
        assert!(e.contains("cannot read"), "{e}");
        let dab = dir.join("dab.safetensors");
        let meta = BTreeMap::from([("format".to_string(), "selfplay-mcts value net".to_string())]);
        write_safetensors(&dab, &meta, &[TensorEntry::new("x", vec![1], &[0.0])]).unwrap();
        let e = PatternNet::load(&dab).unwrap_err();
        assert!(
            e.ends_with("format 'selfplay-mcts value net', not a gomoku pattern net"),
            "{e}"
        );
        // A net of the retired windows encoding (issue 83) is refused by name, in one line.
        let windowed = dir.join("windows.safetensors");
        let mut meta = BTreeMap::from([
            ("format".to_string(), NET_FORMAT.to_string()),
            ("game".to_string(), "gomoku".to_string()),
            (
                "encoding".to_string(),
                "gomoku-shape-pairs-windows-v1".to_string(),
            ),
        ]);
        write_safetensors(&windowed, &meta, &[TensorEntry::new("x", vec![1], &[0.0])]).unwrap();
        let e = PatternNet::load(&windowed).unwrap_err();
        assert_eq!(
            e,
            format!(
                "model {}: encoding 'gomoku-shape-pairs-windows-v1'; this engine reads \
                 '{NET_ENCODING}' only",
                windowed.display()
            )
        );
        // So is a tensor the net does not read.
        meta.insert("encoding".into(), NET_ENCODING.into());
        meta.insert("rule".into(), "freestyle".into());
        meta.insert("size".into(), "15".into());
        let mut tensors = Vec::from(net.tensors());
        tensors.push(TensorEntry::new("window.embedding", vec![1], &[0.0]));
        write_safetensors(&windowed, &meta, &tensors).unwrap();
        let e = PatternNet::load(&windowed).unwrap_err();
        assert!(
            e.ends_with("it has a tensor 'window.embedding' this engine does not read"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The shipped net loads, fits freestyle and standard but not renju, and scores the empty board, the side
    /// to move (black) ahead, within a plausible margin.
    #[test]
    fn the_shipped_net_loads_for_its_board() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models/gomoku-15-freestyle/model.safetensors");
        let net = Arc::new(PatternNet::load(&path).unwrap());
        assert_eq!(
            (net.rule, net.size, net.features),
            (Rule::Freestyle, 15, 16)
        );
        assert!(net.check_fits(Rule::Renju, 15).is_err());
        // `best`'s copy is the same net, for its rule on its board and the bigger ones.
        let product = product_net(Rule::Freestyle, 15).expect("the binary's copy reads");
        assert_eq!(product.embedding, net.embedding);
        assert!(
            product_net(Rule::Freestyle, 20).is_some() && product_net(Rule::Standard, 15).is_some()
        );
        assert!(
            product_net(Rule::Renju, 15).is_none() && product_net(Rule::Freestyle, 13).is_none()
        );
        let mut board = ShapeBoard::new(&Gomoku::new(15, Rule::Freestyle).unwrap())
            .with_net(net)
            .unwrap();
        let logit = board.net_logit().unwrap();
        assert!(logit.is_finite() && logit.abs() < 5.0, "{logit}");
    }

    #[test]
    fn weights_of_the_wrong_shape_are_refused() {
        let good = random_net(Rule::Freestyle, 15, 1);
        let e = PatternNet::new(
            Rule::Freestyle,
            15,
            good.embedding[1..].to_vec(),
            good.point_bias.clone(),
            good.head_weight.clone(),
            good.head_bias.clone(),
            good.output_weight.clone(),
            0.0,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "point.embedding has 647 numbers, the net's sizes want 648"
        );
    }
}
