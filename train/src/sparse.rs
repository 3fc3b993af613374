//! The pattern net's forward and backward written out by hand, for `train pattern
//! --trainer sparse` (the default).
//!
//! Why not burn: a position's input is a sum of table rows, about 225 points x 4 directions x
//! 2 sides of a 16-wide table of 81 rows, and most of the board's empty points read the same
//! four codes (no stone near them). Burn, given the batch as tensors, gathers a row for every
//! point and direction (a 2 x 900 x 16 tensor a position), sums, clamps and masks it, and
//! keeps every intermediate for the backward pass: some 2,000 positions a second on this
//! machine. Here each position is stored as the distinct sets of four codes its empty points
//! read, each with how many points read it (a point's activation depends on its four codes
//! only, the table being the same for every point and direction): a mid-game position is
//! some 40 such entries instead of 225 points. Forward and backward run over the entries, the
//! gradient of the table is a scatter into 81 rows, and a batch is split over the cores.
//! `tests` checks the gradients against burn's autodiff of [`crate::pattern::PatternModel`].

use engine::game::Player;
use engine::games::gomoku::net::{point_codes, PatternNet, CODES, POINT_NORM};
use engine::games::gomoku::patterns::Shape;
use engine::games::gomoku::shape_board::ShapeBoard;
use engine::games::gomoku::Rule;

/// One entry of a packed position: the four codes an empty point reads (sorted), and how many
/// of the position's empty points read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub codes: [u8; 4],
    pub count: u8,
}

/// Positions packed as entries, one after another.
#[derive(Clone, Debug, PartialEq)]
pub struct Packed {
    /// Where each position's entries start, and one past the last's.
    starts: Vec<u64>,
    entries: Vec<Entry>,
}

impl Default for Packed {
    fn default() -> Packed {
        Packed {
            starts: vec![0],
            entries: Vec::new(),
        }
    }
}

impl Packed {
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries of position `i`.
    pub fn get(&self, i: usize) -> &[Entry] {
        &self.entries[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Bytes held a position (entries and index).
    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>() + self.starts.len() * 8
    }

    /// Adds `other`'s positions after these.
    pub fn append(&mut self, other: &Packed) {
        let base = self.entries.len() as u64;
        self.starts
            .extend(other.starts[1..].iter().map(|&s| s + base));
        self.entries.extend_from_slice(&other.entries);
    }

    /// Writes the positions to `w`: their count, each one's entry count, then the entries
    /// (four codes and a count, five bytes each), little-endian.
    pub fn write_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        w.write_all(&(self.len() as u64).to_le_bytes())?;
        let mut bytes = Vec::with_capacity(self.len() * 2 + self.entries.len() * 5);
        for pair in self.starts.windows(2) {
            bytes.extend_from_slice(&((pair[1] - pair[0]) as u16).to_le_bytes());
        }
        for e in &self.entries {
            bytes.extend_from_slice(&e.codes);
            bytes.push(e.count);
        }
        w.write_all(&bytes)
    }

    /// Reads positions [`write_to`](Self::write_to) wrote.
    pub fn read_from(r: &mut impl std::io::Read) -> std::io::Result<Packed> {
        let mut word = [0u8; 8];
        r.read_exact(&mut word)?;
        let len = usize::try_from(u64::from_le_bytes(word))
            .map_err(|_| std::io::Error::other("a position count beyond memory"))?;
        let mut sizes = vec![0u8; len * 2];
        r.read_exact(&mut sizes)?;
        let mut starts = Vec::with_capacity(len + 1);
        starts.push(0u64);
        let mut total = 0u64;
        for size in sizes.chunks_exact(2) {
            total += u64::from(u16::from_le_bytes([size[0], size[1]]));
            starts.push(total);
        }
        let mut bytes = vec![0u8; total as usize * 5];
        r.read_exact(&mut bytes)?;
        let entries = bytes
            .chunks_exact(5)
            .map(|e| Entry {
                codes: [e[0], e[1], e[2], e[3]],
                count: e[4],
            })
            .collect();
        Ok(Packed { starts, entries })
    }

    /// Appends the position whose shapes `board` keeps, seen from `side`. `keys` is scratch.
    pub fn push(&mut self, board: &ShapeBoard, side: Player, keys: &mut Vec<u32>) {
        keys.clear();
        for p in 0..board.points() {
            if board.is_empty(p) {
                let mut c = point_codes(board, side, p).map(|c| c as u8);
                c.sort_unstable();
                keys.push(u32::from_le_bytes(c));
            }
        }
        keys.sort_unstable();
        let mut i = 0;
        while i < keys.len() {
            let mut j = i + 1;
            while j < keys.len() && keys[j] == keys[i] && j - i < usize::from(u8::MAX) {
                j += 1;
            }
            self.entries.push(Entry {
                codes: keys[i].to_le_bytes(),
                count: (j - i) as u8,
            });
            i = j;
        }
        self.starts.push(self.entries.len() as u64);
    }
}

/// The code of the same point seen from the other side (the two shapes swapped).
fn swapped(code: u8) -> u8 {
    let nine = Shape::ALL.len() as u8;
    (code % nine) * nine + code / nine
}

/// The net's parameters in one flat vector (so the optimiser and the gradients are one loop):
/// the embedding (CODES x features), the point bias, the head (hidden x 2 features, the side to
/// move's sum first), its bias, the output's weights and its bias.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseNet {
    pub features: usize,
    pub hidden: usize,
    pub params: Vec<f32>,
}

/// Where each part of [`SparseNet::params`] starts.
#[derive(Clone, Copy, Debug)]
struct Layout {
    f: usize,
    h: usize,
    bias: usize,
    w1: usize,
    b1: usize,
    w2: usize,
    b2: usize,
    len: usize,
}

impl Layout {
    fn new(f: usize, h: usize) -> Layout {
        let bias = CODES * f;
        let w1 = bias + f;
        let b1 = w1 + h * 2 * f;
        let w2 = b1 + h;
        let b2 = w2 + h;
        Layout {
            f,
            h,
            bias,
            w1,
            b1,
            w2,
            b2,
            len: b2 + 1,
        }
    }
}

impl SparseNet {
    fn layout(&self) -> Layout {
        Layout::new(self.features, self.hidden)
    }

    /// The weights of `net`.
    pub fn from_net(net: &PatternNet) -> Result<SparseNet, String> {
        let mut params = Vec::with_capacity(Layout::new(net.features, net.hidden).len);
        params.extend(&net.embedding[..CODES * net.features]);
        params.extend(&net.point_bias);
        params.extend(&net.head_weight);
        params.extend(&net.head_bias);
        params.extend(&net.output_weight);
        params.push(net.output_bias);
        Ok(SparseNet {
            features: net.features,
            hidden: net.hidden,
            params,
        })
    }

    /// The net in the engine's format.
    pub fn to_net(&self, rule: Rule, size: usize) -> Result<PatternNet, String> {
        let l = self.layout();
        let p = &self.params;
        PatternNet::new(
            rule,
            size,
            p[..l.bias].to_vec(),
            p[l.bias..l.w1].to_vec(),
            p[l.w1..l.b1].to_vec(),
            p[l.b1..l.w2].to_vec(),
            p[l.w2..l.b2].to_vec(),
            p[l.b2],
        )
    }

    /// The logit of the side to move's chance to win in `position`, leaving in `scratch` what
    /// [`backward`](Self::backward) needs.
    pub fn forward(&self, position: &[Entry], scratch: &mut Scratch) -> f32 {
        match self.features {
            16 => self.forward_with::<16>(position, scratch),
            32 => self.forward_with::<32>(position, scratch),
            _ => self.forward_with::<0>(position, scratch),
        }
    }

    /// [`forward`](Self::forward) with the width `F` known (0: read from the net).
    fn forward_with<const F: usize>(&self, position: &[Entry], scratch: &mut Scratch) -> f32 {
        let l = self.layout();
        let (f, h) = (if F == 0 { l.f } else { F }, l.h);
        let p = &self.params;
        scratch.resize(f, h);
        let table = &p[..l.bias];
        let bias = &p[l.bias..l.w1];
        let (mine, theirs) = scratch.x.split_at_mut(f);
        mine.fill(0.0);
        theirs.fill(0.0);
        let pre = &mut scratch.pre;
        for e in position {
            let n = f32::from(e.count);
            point_pre::<F>(table, bias, e.codes, pre);
            for (s, &a) in mine.iter_mut().zip(pre.iter()) {
                *s += n * a.clamp(0.0, 1.0);
            }
            point_pre::<F>(table, bias, e.codes.map(swapped), pre);
            for (s, &a) in theirs.iter_mut().zip(pre.iter()) {
                *s += n * a.clamp(0.0, 1.0);
            }
        }
        for s in scratch.x.iter_mut() {
            *s /= POINT_NORM;
        }
        let mut logit = p[l.b2];
        for k in 0..h {
            let row = &p[l.w1 + k * 2 * f..l.w1 + (k + 1) * 2 * f];
            let z = p[l.b1 + k] + dot(row, &scratch.x);
            scratch.hidden_pre[k] = z;
            logit += p[l.w2 + k] * z.clamp(0.0, 1.0);
        }
        logit
    }

    /// Adds to `grads` the gradient of a loss whose derivative by the logit of `position` is
    /// `dlogit`, after [`forward`](Self::forward) of the same position left `scratch`.
    pub fn backward(
        &self,
        position: &[Entry],
        scratch: &mut Scratch,
        dlogit: f32,
        grads: &mut [f32],
    ) {
        match self.features {
            16 => self.backward_with::<16>(position, scratch, dlogit, grads),
            32 => self.backward_with::<32>(position, scratch, dlogit, grads),
            _ => self.backward_with::<0>(position, scratch, dlogit, grads),
        }
    }

    /// [`backward`](Self::backward) with the width `F` known (0: read from the net).
    fn backward_with<const F: usize>(
        &self,
        position: &[Entry],
        scratch: &mut Scratch,
        dlogit: f32,
        grads: &mut [f32],
    ) {
        let l = self.layout();
        let (f, h) = (if F == 0 { l.f } else { F }, l.h);
        let p = &self.params;
        grads[l.b2] += dlogit;
        let dx = &mut scratch.dx;
        dx.fill(0.0);
        for k in 0..h {
            let z = scratch.hidden_pre[k];
            grads[l.w2 + k] += dlogit * z.clamp(0.0, 1.0);
            // burn's clamp passes the gradient on the bounds too.
            if !(0.0..=1.0).contains(&z) {
                continue;
            }
            let dz = dlogit * p[l.w2 + k];
            grads[l.b1 + k] += dz;
            let row = l.w1 + k * 2 * f;
            for (g, &x) in grads[row..row + 2 * f].iter_mut().zip(&scratch.x) {
                *g += dz * x;
            }
            for (d, &w) in dx.iter_mut().zip(&p[row..row + 2 * f]) {
                *d += dz * w;
            }
        }
        for d in dx.iter_mut() {
            *d /= POINT_NORM;
        }
        let table = &p[..l.bias];
        let bias = &p[l.bias..l.w1];
        let (table_grads, rest) = grads.split_at_mut(l.bias);
        let bias_grads = &mut rest[..f];
        let (d_mine, d_theirs) = dx.split_at(f);
        let (pre, g) = (&mut scratch.pre, &mut scratch.point_grad);
        for e in position {
            let n = f32::from(e.count);
            for (codes, d) in [(e.codes, d_mine), (e.codes.map(swapped), d_theirs)] {
                point_pre::<F>(table, bias, codes, pre);
                let mut any = false;
                for ((g, &a), &d) in g.iter_mut().zip(pre.iter()).zip(d) {
                    let pass = (0.0..=1.0).contains(&a);
                    *g = if pass { n * d } else { 0.0 };
                    any |= pass;
                }
                if !any {
                    continue;
                }
                for (b, &g) in bias_grads.iter_mut().zip(g.iter()) {
                    *b += g;
                }
                for c in codes {
                    let row = usize::from(c) * f;
                    for (t, &g) in table_grads[row..row + f].iter_mut().zip(g.iter()) {
                        *t += g;
                    }
                }
            }
        }
    }
}

/// A point's pre-activation: the bias and its four codes' rows.
#[inline]
fn point_pre<const F: usize>(table: &[f32], bias: &[f32], codes: [u8; 4], pre: &mut [f32]) {
    let f = if F == 0 { bias.len() } else { F };
    let (bias, pre) = (&bias[..f], &mut pre[..f]);
    let row = |c: u8| &table[usize::from(c) * f..usize::from(c) * f + f];
    let (r0, r1, r2, r3) = (row(codes[0]), row(codes[1]), row(codes[2]), row(codes[3]));
    for i in 0..f {
        pre[i] = bias[i] + r0[i] + r1[i] + r2[i] + r3[i];
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// One thread's working space for a position.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    x: Vec<f32>,
    dx: Vec<f32>,
    pre: Vec<f32>,
    point_grad: Vec<f32>,
    hidden_pre: Vec<f32>,
}

impl Scratch {
    fn resize(&mut self, f: usize, h: usize) {
        self.x.resize(2 * f, 0.0);
        self.dx.resize(2 * f, 0.0);
        self.pre.resize(f, 0.0);
        self.point_grad.resize(f, 0.0);
        self.hidden_pre.resize(h, 0.0);
    }
}

/// `ln(1 + e^x)`, without overflow.
fn softplus(x: f32) -> f32 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// A row without a ranking block.
pub const NO_BLOCK: u32 = u32::MAX;

/// What a batch is made of: the rows' positions and targets, and for rows with a ranking
/// block, the block's children (the position after the move played first).
pub struct Batch<'a> {
    pub rows: &'a Packed,
    pub targets: &'a [f32],
    /// Per row, its block's index in `children` ([`NO_BLOCK`]: no ranking row).
    pub blocks: &'a [u32],
    pub children: &'a Packed,
    /// Positions a block.
    pub block_size: usize,
    /// The ranking loss's weight.
    pub rank_weight: f32,
}

impl Batch<'_> {
    fn block(&self, b: u32) -> impl Iterator<Item = &[Entry]> {
        let first = b as usize * self.block_size;
        (first..first + self.block_size).map(|c| self.children.get(c))
    }
}

/// The ranking loss of a block whose children have values (logits, each seen from the child's
/// side to move) `v`: minus the mover's log-chance that the first is the best of the block
/// (a softmax over `-v`); and its derivative by each `v`, into `dv`.
fn rank_loss(v: &[f32], dv: &mut [f32]) -> f32 {
    let top = v.iter().fold(f32::INFINITY, |m, &x| m.min(x));
    let sum: f32 = v.iter().map(|&x| (top - x).exp()).sum();
    for (j, (d, &x)) in dv.iter_mut().zip(v).enumerate() {
        let share = (top - x).exp() / sum;
        *d = if j == 0 { 1.0 - share } else { -share };
    }
    // -log softmax(-v)[0] = v0 + log sum exp(-v)
    v[0] - top + sum.ln()
}

/// The gradient of the batch `picks` (the mean value loss plus the ranking loss's weight times
/// the mean ranking loss over the batch's blocks) into `grads` (zeroed here), split over
/// `threads`; returns the sum of the rows' value losses.
pub fn batch_gradient(
    net: &SparseNet,
    batch: &Batch,
    picks: &[u32],
    threads: usize,
    grads: &mut Vec<Vec<f32>>,
) -> f64 {
    let len = net.layout().len;
    let threads = threads.clamp(1, picks.len().max(1));
    grads.resize_with(threads, Vec::new);
    let blocks = picks
        .iter()
        .filter(|&&r| batch.blocks[r as usize] != NO_BLOCK)
        .count();
    let value_scale = 1.0 / picks.len() as f32;
    let rank_scale = if blocks > 0 {
        batch.rank_weight / blocks as f32
    } else {
        0.0
    };
    let part = picks.len().div_ceil(threads);
    let work = |picks: &[u32], grads: &mut Vec<f32>| -> f64 {
        grads.clear();
        grads.resize(len, 0.0);
        let mut scratch = Scratch::default();
        let mut child_scratch = vec![Scratch::default(); batch.block_size];
        let (mut v, mut dv) = (vec![0.0; batch.block_size], vec![0.0; batch.block_size]);
        let mut loss = 0.0;
        for &r in picks {
            let r = r as usize;
            let position = batch.rows.get(r);
            let logit = net.forward(position, &mut scratch);
            let t = batch.targets[r];
            loss += f64::from(softplus(logit) - t * logit);
            net.backward(
                position,
                &mut scratch,
                (sigmoid(logit) - t) * value_scale,
                grads,
            );
            let b = batch.blocks[r];
            if b != NO_BLOCK && rank_scale > 0.0 {
                for ((x, child), s) in v.iter_mut().zip(batch.block(b)).zip(&mut child_scratch) {
                    *x = net.forward(child, s);
                }
                rank_loss(&v, &mut dv);
                for ((d, child), s) in dv.iter().zip(batch.block(b)).zip(&mut child_scratch) {
                    net.backward(child, s, d * rank_scale, grads);
                }
            }
        }
        loss
    };
    let loss = std::thread::scope(|s| {
        let mut chunks = picks.chunks(part).zip(grads.iter_mut());
        let (first, first_grads) = chunks.next().expect("a batch has a row");
        let handles: Vec<_> = chunks
            .map(|(picks, g)| s.spawn(move || work(picks, g)))
            .collect();
        let mut loss = work(first, first_grads);
        for h in handles {
            loss += h.join().expect("a gradient thread does not panic");
        }
        loss
    });
    let (sum, rest) = grads.split_first_mut().expect("one thread at least");
    for g in rest.iter().take(picks.len().div_ceil(part) - 1) {
        for (s, &x) in sum.iter_mut().zip(g) {
            *s += x;
        }
    }
    loss
}

/// The chance of each row of `picks` (in order) and, for those with a block, the mover's
/// log-chances of the block's children, block after block.
pub fn evaluate(
    net: &SparseNet,
    batch: &Batch,
    picks: &[u32],
    threads: usize,
) -> (Vec<f32>, Vec<f32>) {
    let threads = threads.clamp(1, picks.len().max(1));
    let part = picks.len().div_ceil(threads).max(1);
    let work = |picks: &[u32]| {
        let mut scratch = Scratch::default();
        let mut chances = Vec::with_capacity(picks.len());
        let mut ranks = Vec::new();
        for &r in picks {
            let r = r as usize;
            chances.push(sigmoid(net.forward(batch.rows.get(r), &mut scratch)));
            let b = batch.blocks[r];
            if b != NO_BLOCK {
                let v: Vec<f32> = batch
                    .block(b)
                    .map(|child| net.forward(child, &mut scratch))
                    .collect();
                let top = v.iter().fold(f32::INFINITY, |m, &x| m.min(x));
                let log_sum = v.iter().map(|&x| (top - x).exp()).sum::<f32>().ln();
                ranks.extend(v.iter().map(|&x| top - x - log_sum));
            }
        }
        (chances, ranks)
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = picks
            .chunks(part)
            .map(|picks| s.spawn(move || work(picks)))
            .collect();
        let (mut chances, mut ranks) = (Vec::new(), Vec::new());
        for h in handles {
            let (c, r) = h.join().expect("an evaluation thread does not panic");
            chances.extend(c);
            ranks.extend(r);
        }
        (chances, ranks)
    })
}

/// Adam as burn's `AdamConfig::new()` makes it: betas 0.9 and 0.999, epsilon 1e-5, no decay.
#[derive(Clone, Debug)]
pub struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    time: i32,
}

impl Adam {
    const BETA_1: f32 = 0.9;
    const BETA_2: f32 = 0.999;
    const EPSILON: f32 = 1e-5;

    pub fn new(len: usize) -> Adam {
        Adam {
            m: vec![0.0; len],
            v: vec![0.0; len],
            time: 0,
        }
    }

    pub fn step(&mut self, rate: f64, params: &mut [f32], grads: &[f32]) {
        self.time += 1;
        let correction_2 = (1.0 - Self::BETA_2.powi(self.time)).sqrt();
        let factor = correction_2 / (1.0 - Self::BETA_1.powi(self.time));
        let epsilon = Self::EPSILON * correction_2;
        let rate = rate as f32;
        for (((p, &g), m), v) in params
            .iter_mut()
            .zip(grads)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            *m = Self::BETA_1 * *m + (1.0 - Self::BETA_1) * g;
            *v = Self::BETA_2 * *v + (1.0 - Self::BETA_2) * g * g;
            *p -= rate * *m * factor / (v.sqrt() + epsilon);
        }
    }
}
