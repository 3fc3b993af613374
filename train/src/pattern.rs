//! `train pattern`: the Gomoku pattern net (`engine::games::gomoku::net`, pvs's learned
//! evaluation), fitted to self-play games of `pvs` with the values of its searches.
//!
//! Each position before a searched or given move is one row: for every point and direction
//! the code of the shapes the side to move and the other make there (81 codes; a stone is
//! code 81 and counts nothing), and a target, the side to move's chance to win. The target is
//! the game's result (1, 0, or 1/2 for a draw), blended with the search's estimate where the
//! record keeps one (`--search-weight`). Every position is kept but those where the side to
//! move has a five or a live four to make, which the search decides before it evaluates
//! (`--keep quiet`: only those without a five point or a live three for either side). Games that
//! repeat an earlier one move for move are read once. The net is blind to the board's
//! symmetries by construction (the same table for every point and direction), so no copies are
//! made. The whole set is held in memory (4 bytes a point a position).

use std::collections::{BTreeMap, HashSet};
use std::f64::consts::PI;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::module::{Module, Param};
use burn::nn::Linear;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::{log_softmax, sigmoid};
use burn::tensor::{Device, Int, Tensor, TensorData};
use engine::game::Game;
use engine::games::gomoku::net::{point_codes, PatternNet, CODES, NET_ENCODING, POINT_NORM};
use engine::games::gomoku::patterns::Shape;
use engine::games::gomoku::pvs::{shape_order, EvalWeights};
use engine::games::gomoku::shape_board::ShapeBoard;
use engine::games::gomoku::Gomoku;
use engine::record::{GameRecord, MoveKind};
use engine::registry::Lookup;
use engine::rng::{derive_seed, Rng};
use engine::Outcome;

use crate::config::{Backend, CpuBackend, Loss};
use crate::data::{open_readers, DataIndex, GameRef};
use crate::model::{linear, transposed, untransposed};
use crate::row_cache::RowCache;
use crate::sparse::{self, Adam, Packed, SparseNet, NO_BLOCK};
use crate::trainer::{device_of, loss, CARD_FILE, MODEL_FILE};

/// Which positions of a game become rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Keep {
    /// Every position but those the search decides before it evaluates (a five or a live
    /// four for the side to move to make).
    #[default]
    All,
    /// Quiet positions only: no five point and no live three on the board for either side
    /// (as Texel's fit took them). A net that never saw a live three misjudges the leaves
    /// that have one: it lost 0.193 to the fitted evaluation (docs/gomoku-results.md).
    Quiet,
}

/// What computes the net's gradients.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Trainer {
    /// The forward and backward written out for the net's sparse input (`sparse.rs`), on
    /// every core: some 50 times burn's speed.
    #[default]
    Sparse,
    /// burn's autodiff (`--backend`): the reference the sparse trainer's gradients are
    /// checked against (`the_sparse_gradients_are_burns`), and the GPU's.
    Burn,
}

/// Which other moves a ranking row compares with the move played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RankPick {
    /// Empty points within two of a stone (the board's candidates), drawn at random.
    #[default]
    Near,
    /// Drawn from the points the search's move order puts first by their shapes
    /// ([`shape_order`]): the best `2 * rank_alternatives` of the candidates. The search's
    /// real question is which of its few likely moves is best, not whether a move beats a
    /// random one.
    Ordered,
}

impl RankPick {
    /// How the ranking row's other moves were picked, for the model card.
    pub fn describe(self) -> &'static str {
        match self {
            RankPick::Near => "points within two of a stone, drawn at random",
            RankPick::Ordered => {
                "points drawn from the best twice as many by the search's move order (their shapes)"
            }
        }
    }
}

/// Whose moves a ranking row is made for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RankMoves {
    /// Every move played (but forced blocks).
    #[default]
    All,
    /// The moves of the game's winner only: the loser's moves hold the mistakes that lost
    /// it, and in a match against a stronger brain most of them are ours.
    Winner,
}

/// The share of the first epoch's learning rate left at the last with [`LrDecay::Cosine`].
const LR_FLOOR: f64 = 0.05;

/// How the learning rate moves over the epochs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LrDecay {
    /// The same rate every epoch.
    #[default]
    None,
    /// Down a half cosine from the rate at the first epoch to a twentieth of it at the last
    /// of `--epochs` (early stopping may end sooner).
    Cosine,
}

impl LrDecay {
    /// The rate of `epoch` (from 1) of `epochs`, `rate` the first epoch's.
    pub fn rate(self, rate: f64, epoch: usize, epochs: usize) -> f64 {
        match self {
            LrDecay::None => rate,
            LrDecay::Cosine => {
                let done = (epoch - 1) as f64 / (epochs.max(2) - 1) as f64;
                rate * (LR_FLOOR + (1.0 - LR_FLOOR) * 0.5 * (1.0 + (PI * done).cos()))
            }
        }
    }
}

/// The code of a point that holds a stone (its activation is masked to zero).
const STONE: u8 = CODES as u8;

/// The settings of a pattern-net run.
#[derive(Clone, Debug)]
pub struct PatternConfig {
    /// Gomoku datasets of one rule and board (`engine match --records`, `selfplay run`).
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub features: usize,
    pub hidden: usize,
    pub epochs: usize,
    /// Stop after this many epochs without a better validation loss (0: never).
    pub patience: usize,
    pub batch_size: usize,
    pub learning_rate: f64,
    /// How the learning rate falls over the epochs.
    pub lr_decay: LrDecay,
    pub validation_share: f64,
    /// The share of the training games trained on (the first ones; the held-out games stay).
    pub train_share: f64,
    pub seed: u64,
    /// The share of a searched position's target that is the search's estimate (the rest is
    /// the game's result).
    pub search_weight: f64,
    /// The weight of the ranking loss beside the value's (0: none): the value net itself,
    /// asked about the position after the move played and after `rank_alternatives` other
    /// points near the stones, should find the move played the best for the mover (a softmax
    /// over their values, as the search compares siblings).
    pub rank_weight: f64,
    /// The other moves of each ranking row.
    pub rank_alternatives: usize,
    /// The share of positions given a ranking row (each costs `1 + rank_alternatives`
    /// evaluations a step).
    pub rank_share: f64,
    /// Which other moves a ranking row compares with the move played.
    pub rank_pick: RankPick,
    /// Whose moves get ranking rows.
    pub rank_moves: RankMoves,
    /// A net to start from (its features and hidden units): its weights.
    pub init: Option<PathBuf>,
    /// Which positions are learnt.
    pub keep: Keep,
    /// What computes the gradients.
    pub trainer: Trainer,
    /// Threads of the sparse trainer (0: every core this process may use).
    pub threads: usize,
    /// Training sets of more positions are streamed from a cache file, this many positions
    /// in memory at a time ([`crate::row_cache`]).
    pub memory_positions: usize,
    pub backend: Backend,
    pub cpu_backend: CpuBackend,
    /// Replace a model already in `out`.
    pub force: bool,
}

impl Default for PatternConfig {
    fn default() -> PatternConfig {
        PatternConfig {
            data: Vec::new(),
            out: PathBuf::from("runs/gomoku-net"),
            features: 16,
            hidden: 32,
            epochs: 30,
            patience: 4,
            batch_size: 256,
            learning_rate: 2e-3,
            lr_decay: LrDecay::None,
            validation_share: 0.1,
            train_share: 1.0,
            seed: 1,
            search_weight: 0.5,
            rank_weight: 0.0,
            rank_alternatives: 3,
            rank_share: 1.0,
            rank_pick: RankPick::Near,
            rank_moves: RankMoves::All,
            init: None,
            keep: Keep::All,
            trainer: Trainer::Sparse,
            threads: 0,
            memory_positions: 2_000_000,
            backend: Backend::Cpu,
            cpu_backend: CpuBackend::Flex,
            force: false,
        }
    }
}

impl PatternConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.data.is_empty() {
            return Err("a pattern net is trained on at least one dataset: --data DIR".into());
        }
        if self.features == 0 || self.hidden == 0 || self.features > 256 || self.hidden > 256 {
            return Err("features and hidden are 1 to 256".into());
        }
        if self.epochs == 0 || self.batch_size == 0 {
            return Err("epochs and batch_size must be positive".into());
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(format!(
                "learning_rate must be positive, got {}",
                self.learning_rate
            ));
        }
        if self.validation_share == 0.0 {
            return Err(
                "--validation-share 0 holds out no game: the net kept is the epoch with the best held-out loss (give a share above 0, say the default 0.1)"
                    .into(),
            );
        }
        if !(self.validation_share > 0.0 && self.validation_share < 1.0) {
            return Err(format!(
                "validation_share is in (0, 1), got {}",
                self.validation_share
            ));
        }
        if !(self.rank_weight.is_finite() && self.rank_weight >= 0.0) {
            return Err(format!(
                "rank_weight is 0 or more, got {}",
                self.rank_weight
            ));
        }
        if !(self.train_share > 0.0 && self.train_share <= 1.0) {
            return Err(format!(
                "--train-share is in (0, 1], got {}",
                self.train_share
            ));
        }
        if !(self.rank_share > 0.0 && self.rank_share <= 1.0) {
            return Err(format!("rank_share is in (0, 1], got {}", self.rank_share));
        }
        if self.rank_alternatives == 0 || self.rank_alternatives > 32 {
            return Err(format!(
                "rank_alternatives is 1 to 32, got {}",
                self.rank_alternatives
            ));
        }
        if !(0.0..=1.0).contains(&self.search_weight) {
            return Err(format!(
                "search_weight is in [0, 1], got {}",
                self.search_weight
            ));
        }
        if self.memory_positions == 0 {
            return Err("--memory-positions must be positive".into());
        }
        if self.trainer == Trainer::Sparse && self.backend == Backend::Gpu {
            return Err("--backend gpu is burn's: give --trainer burn with it (the sparse trainer runs on the CPU's cores)".into());
        }
        Ok(())
    }
}

/// Positions in memory: `points * 4` codes each (seen from the side to move), a target, and
/// the fitted evaluation's score of the same position (the baseline).
#[derive(Clone, Debug, Default)]
pub struct PatternRows {
    pub points: usize,
    pub codes: Vec<u8>,
    pub targets: Vec<f32>,
    pub eval_scores: Vec<f32>,
    /// With a ranking loss: per row, its block of children (the position after the move
    /// played, then after each alternative) in `child_codes`, or [`NO_RANK`].
    pub rank_block: Vec<u32>,
    /// The children's codes, seen from their side to move: `children` positions a block.
    pub child_codes: Vec<u8>,
    /// Whether the rows and children are kept packed for the sparse trainer (`packed` and
    /// `child_packed`) instead of a point's codes each (`codes`, `child_codes`).
    pub pack: bool,
    pub packed: Packed,
    pub child_packed: Packed,
    /// Blocks of children kept.
    pub blocks: usize,
    /// Scratch for packing.
    keys: Vec<u32>,
    /// Positions a block of children (1 + the alternatives; 0 without a ranking loss).
    pub children: usize,
    /// Games read, and games skipped as repeats of an earlier one.
    pub games: usize,
    pub repeats: usize,
}

impl PatternRows {
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// No rows, of the same shape as these (points, children, packing).
    pub fn empty_like(&self) -> PatternRows {
        PatternRows {
            points: self.points,
            children: self.children,
            pack: self.pack,
            ..PatternRows::default()
        }
    }

    /// Adds the rows of one game (replayed from `start`).
    fn add_game(
        &mut self,
        game: &GameRecord,
        start: &Gomoku,
        config: &PatternConfig,
    ) -> Result<(), String> {
        let (search_weight, keep) = (config.search_weight, config.keep);
        let mut state = *start;
        let weights = EvalWeights::DEFAULT;
        for (ply, m) in game.moves.iter().enumerate() {
            let mover = state.to_move();
            if m.player != mover || !state.is_legal(m.action) {
                return Err(format!(
                    "game {}: move {} ({}) is not legal there",
                    game.index,
                    ply + 1,
                    m.action
                ));
            }
            let board = ShapeBoard::new(&state);
            let decided = match keep {
                Keep::All => board.has_five_point(mover) || board.live_four_wins(),
                Keep::Quiet => [mover, mover.opponent()]
                    .iter()
                    .any(|&p| board.has_five_point(p) || board.count(p, Shape::LiveFour) > 0),
            };
            if !decided {
                let result = match game.outcome {
                    Outcome::Draw => 0.5,
                    o if o == Outcome::win_for(mover) => 1.0,
                    _ => 0.0,
                };
                let estimate = match m.kind {
                    MoveKind::Given => None,
                    _ => m
                        .root
                        .iter()
                        .find(|r| r.action == m.action && r.visits > 0)
                        .map(|r| (1.0 + r.value_for(mover)) / 2.0),
                };
                let target = match estimate {
                    Some(e) => search_weight * e + (1.0 - search_weight) * result,
                    None => result,
                };
                if self.pack {
                    self.packed.push(&board, mover, &mut self.keys);
                } else {
                    push_codes(&mut self.codes, &board, mover);
                }
                let ranked_mover = match config.rank_moves {
                    RankMoves::All => true,
                    RankMoves::Winner => game.outcome == Outcome::win_for(mover),
                };
                let block = match self.children {
                    0 => None,
                    _ if !ranked_mover => None,
                    _ if board.has_five_point(mover.opponent()) => None, // a forced block
                    _ => {
                        let seed = derive_seed(config.seed ^ game.index, ply as u64);
                        let mut rng = Rng::new(seed);
                        (rng.unit_f64() < config.rank_share)
                            .then(|| {
                                self.add_children(
                                    &state,
                                    &board,
                                    m.action,
                                    config.rank_pick,
                                    &mut rng,
                                )
                            })
                            .flatten()
                    }
                };
                self.rank_block.push(block.unwrap_or(NO_RANK));
                self.targets.push(target as f32);
                let opp = mover.opponent();
                let score: i32 = (1..8)
                    .map(|s| {
                        weights.mine[s] * board.count(mover, Shape::ALL[s])
                            - weights.theirs[s] * board.count(opp, Shape::ALL[s])
                    })
                    .sum();
                self.eval_scores.push(score as f32);
            }
            state.apply(m.action);
        }
        Ok(())
    }

    /// Adds a block of children of `state` (whose shapes `board` keeps): the position after
    /// `played`, then after `children - 1` others ([`pick_alternatives`]). Its index, or
    /// `None` (nothing added) where there are too few other points.
    fn add_children(
        &mut self,
        state: &Gomoku,
        board: &ShapeBoard,
        played: u16,
        pick: RankPick,
        rng: &mut Rng,
    ) -> Option<u32> {
        let others = pick_alternatives(board, played, self.children - 1, pick, rng)?;
        let index = self.blocks as u32;
        self.blocks += 1;
        for &m in std::iter::once(&played).chain(&others) {
            let mut child = *state;
            child.apply(m);
            let board = ShapeBoard::new(&child);
            if self.pack {
                self.child_packed
                    .push(&board, child.to_move(), &mut self.keys);
            } else {
                push_codes(&mut self.child_codes, &board, child.to_move());
            }
        }
        Some(index)
    }

    /// The rows of `games` (those not in `seen`, which they join), replayed on `threads`
    /// threads: the games are read and told apart here, then each thread replays a run of
    /// them, and the runs' rows are joined in order (a ranking row's alternatives are drawn
    /// from its game's own seed, so the rows are the same for any number of threads).
    fn load(
        games: &[GameRef],
        files: &[PathBuf],
        start: &Gomoku,
        config: &PatternConfig,
        seen: &mut HashSet<u64>,
        threads: usize,
    ) -> Result<PatternRows, String> {
        let empty = PatternRows {
            points: start.points(),
            children: if config.rank_weight > 0.0 {
                1 + config.rank_alternatives
            } else {
                0
            },
            pack: config.trainer == Trainer::Sparse,
            ..PatternRows::default()
        };
        let mut readers = open_readers(files)?;
        let (mut kept, mut repeats) = (Vec::new(), 0);
        for g in games {
            let game = readers[g.file]
                .read_at(g.offset)
                .map_err(|e| e.to_string())?;
            let mut h = std::collections::hash_map::DefaultHasher::new();
            game.moves
                .iter()
                .map(|m| m.action)
                .collect::<Vec<_>>()
                .hash(&mut h);
            if seen.insert(h.finish()) {
                kept.push((g.file, game));
            } else {
                repeats += 1;
            }
        }
        let part = kept.len().div_ceil(threads.max(1)).max(1);
        let parts: Vec<Result<PatternRows, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = kept
                .chunks(part)
                .map(|run| {
                    let mut rows = empty.clone();
                    s.spawn(move || {
                        for (file, game) in run {
                            rows.games += 1;
                            rows.add_game(game, start, config)
                                .map_err(|e| format!("{}: {e}", files[*file].display()))?;
                        }
                        Ok(rows)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a replay thread does not panic"))
                .collect()
        });
        let mut rows = empty;
        rows.repeats = repeats;
        for part in parts {
            rows.append(part?);
        }
        Ok(rows)
    }

    /// Adds `other`'s rows after these.
    fn append(&mut self, other: PatternRows) {
        let blocks = self.blocks as u32;
        self.codes.extend(other.codes);
        self.targets.extend(other.targets);
        self.eval_scores.extend(other.eval_scores);
        self.rank_block.extend(other.rank_block.iter().map(|&b| {
            if b == NO_RANK {
                b
            } else {
                b + blocks
            }
        }));
        self.child_codes.extend(other.child_codes);
        self.packed.append(&other.packed);
        self.child_packed.append(&other.child_packed);
        self.blocks += other.blocks;
        self.games += other.games;
        self.repeats += other.repeats;
    }

    /// The packed rows as the sparse trainer reads them.
    fn sparse_batch(&self, rank_weight: f32) -> sparse::Batch<'_> {
        sparse::Batch {
            rows: &self.packed,
            targets: &self.targets,
            blocks: &self.rank_block,
            children: &self.child_packed,
            block_size: self.children,
            rank_weight,
        }
    }

    /// The rows `picks`, gathered: the side to move's codes, the other side's, the mask of
    /// empty points and the targets.
    fn gather(&self, picks: &[u32]) -> Gathered {
        let width = self.points * 4;
        let (mut mine, mut theirs, mut mask) = (Vec::new(), Vec::new(), Vec::new());
        for &r in picks {
            let r = r as usize;
            let row = &self.codes[r * width..(r + 1) * width];
            unpack(row, &mut mine, &mut theirs, &mut mask);
        }
        let targets = picks.iter().map(|&r| self.targets[r as usize]).collect();
        (mine, theirs, mask, targets)
    }

    /// The children of the rows of `picks` that have a ranking block, gathered as
    /// [`gather`](Self::gather) gathers rows (block after block), and how many blocks.
    fn gather_children(&self, picks: &[u32]) -> (Vec<i32>, Vec<i32>, Vec<f32>, usize) {
        let block = self.children * self.points * 4;
        let (mut mine, mut theirs, mut mask) = (Vec::new(), Vec::new(), Vec::new());
        let mut blocks = 0;
        for &r in picks {
            let b = self.rank_block.get(r as usize).copied().unwrap_or(NO_RANK);
            if b != NO_RANK {
                let b = b as usize;
                let codes = &self.child_codes[b * block..(b + 1) * block];
                unpack(codes, &mut mine, &mut theirs, &mut mask);
                blocks += 1;
            }
        }
        (mine, theirs, mask, blocks)
    }
}

/// No ranking block for a row.
const NO_RANK: u32 = NO_BLOCK;

/// `n` empty points within two of a stone (the board's candidates) other than `played`, for
/// a ranking row of the position whose shapes `board` keeps: drawn with `rng` among all of them
/// ([`RankPick::Near`]) or among the best `2 n` by the move order ([`RankPick::Ordered`]).
/// `None` where there are fewer than `n`.
fn pick_alternatives(
    board: &ShapeBoard,
    played: u16,
    n: usize,
    pick: RankPick,
    rng: &mut Rng,
) -> Option<Vec<u16>> {
    let mut candidates = Vec::new();
    board.candidates(&mut candidates);
    let mut others: Vec<u16> = candidates
        .into_iter()
        .filter(|&p| p != usize::from(played))
        .map(|p| p as u16)
        .collect();
    if others.len() < n {
        return None;
    }
    if pick == RankPick::Ordered {
        // The best by the move order first (ties by point, so a run repeats).
        let mover = board.to_move();
        others.sort_by_cached_key(|&p| {
            (
                std::cmp::Reverse(shape_order(board, mover, usize::from(p)).0),
                p,
            )
        });
        others.truncate(2 * n);
    }
    rng.shuffle(&mut others);
    others.truncate(n);
    Some(others)
}

/// Appends the codes of every point of `board` seen from `side` (a stone's: [`STONE`]).
fn push_codes(codes: &mut Vec<u8>, board: &ShapeBoard, side: engine::game::Player) {
    for p in 0..board.points() {
        if board.is_empty(p) {
            codes.extend(point_codes(board, side, p).map(|c| c as u8));
        } else {
            codes.extend([STONE; 4]);
        }
    }
}

/// Embedding rows (gathered codes) as a tensor on `device`.
fn int_tensor(codes: Vec<i32>, device: &Device) -> Tensor<1, Int> {
    let len = codes.len();
    Tensor::<1, Int>::from_data(TensorData::new(codes, [len]), device)
}

/// Unpacks stored codes (4 a point) into the net's inputs, each point's embedding rows: seen
/// from the side to move, the same seen from the other side, and the empty points' mask.
fn unpack(codes: &[u8], mine: &mut Vec<i32>, theirs: &mut Vec<i32>, mask: &mut Vec<f32>) {
    let nine = Shape::ALL.len() as u8;
    for point in codes.chunks_exact(4) {
        for &c in point {
            mine.push(i32::from(c));
            let swapped = if c == STONE {
                c
            } else {
                (c % nine) * nine + c / nine
            };
            theirs.push(i32::from(swapped));
        }
    }
    mask.extend(
        codes
            .chunks_exact(4)
            .map(|p| f32::from(u8::from(p[0] != STONE))),
    );
}

/// Gathered rows: codes seen from the side to move and from the other, the empty points'
/// mask and the targets.
type Gathered = (Vec<i32>, Vec<i32>, Vec<f32>, Vec<f32>);

/// The pattern net in burn.
#[derive(Module, Debug)]
pub struct PatternModel {
    /// (CODES + 1) x features: the last row is a stone's, masked out.
    pub embedding: Param<Tensor<2>>,
    pub point_bias: Param<Tensor<1>>,
    pub head: Linear,
    pub output: Linear,
}

impl PatternModel {
    pub fn new(features: usize, hidden: usize, seed: u64, device: &Device) -> PatternModel {
        let mut rng = Rng::new(seed);
        // Small codes' rows and a bias of a quarter: most points start inside (0, 1), where
        // the clamp passes gradients.
        let embedding: Vec<f32> = (0..(CODES + 1) * features)
            .map(|_| ((rng.unit_f64() * 2.0 - 1.0) * 0.15) as f32)
            .collect();
        let rows = CODES + 1;
        let embedding =
            Tensor::<2>::from_data(TensorData::new(embedding, [rows, features]), device);
        let bias =
            Tensor::<1>::from_data(TensorData::new(vec![0.25f32; features], [features]), device);
        PatternModel {
            embedding: Param::from_tensor(embedding),
            point_bias: Param::from_tensor(bias),
            head: linear(2 * features, hidden, &mut rng, device),
            output: linear(hidden, 1, &mut rng, device),
        }
    }

    /// A model holding `net`'s weights, to train on.
    pub fn from_net(net: &PatternNet, device: &Device) -> Result<PatternModel, String> {
        let (f, h) = (net.features, net.hidden);
        let mut embedding = net.embedding.clone();
        embedding.resize((CODES + 1) * f, 0.0);
        let rows = CODES + 1;
        let layer = |weight: &[f32], bias: &[f32], inputs: usize, outputs: usize| {
            untransposed(weight, bias, inputs, outputs, device)
        };
        let bias = Tensor::<1>::from_data(TensorData::new(net.point_bias.clone(), [f]), device);
        Ok(PatternModel {
            embedding: Param::from_tensor(Tensor::<2>::from_data(
                TensorData::new(embedding, [rows, f]),
                device,
            )),
            point_bias: Param::from_tensor(bias),
            head: layer(&net.head_weight, &net.head_bias, 2 * f, h),
            output: layer(&net.output_weight, &[net.output_bias], h, 1),
        })
    }

    /// The point activations of one side's `codes` (4 a point): rows
    /// x points x features (stones' too, masked by the caller).
    fn point_acts(&self, codes: Tensor<1, Int>, rows: usize, points: usize) -> Tensor<3> {
        let [_, f] = self.embedding.val().dims();
        let per_point = codes.dims()[0] / (rows * points);
        let pre = self
            .embedding
            .val()
            .select(0, codes)
            .reshape([rows, points, per_point, f])
            .sum_dim(2)
            .reshape([rows, points, f])
            + self.point_bias.val().reshape([1, 1, f]);
        pre.clamp(0.0, 1.0)
    }

    /// The logits of the side to move's chance to win (rows x 1).
    pub fn forward(
        &self,
        mine: Tensor<1, Int>,
        theirs: Tensor<1, Int>,
        mask: Tensor<3>,
        (rows, points): (usize, usize),
    ) -> Tensor<2> {
        let [_, f] = self.embedding.val().dims();
        let (a, b) = (
            self.point_acts(mine, rows, points),
            self.point_acts(theirs, rows, points),
        );
        let sum =
            |acts: Tensor<3>| (acts * mask.clone()).sum_dim(1).reshape([rows, f]) / POINT_NORM;
        let x = Tensor::cat(vec![sum(a), sum(b)], 1);
        self.output.forward(self.head.forward(x).clamp(0.0, 1.0))
    }

    /// The net in the engine's format.
    pub fn to_pattern_net(&self, start: &Gomoku) -> Result<PatternNet, String> {
        let vec = |t: Tensor<2>| -> Vec<f32> { t.into_data().try_to_vec().expect("f32 weights") };
        let [_, f] = self.embedding.val().dims();
        let mut embedding = vec(self.embedding.val());
        embedding.truncate(CODES * f);
        let point_bias: Vec<f32> = self
            .point_bias
            .val()
            .into_data()
            .try_to_vec()
            .expect("f32 bias");
        let (head_weight, head_bias) = transposed(&self.head);
        let (output_weight, output_bias) = transposed(&self.output);
        PatternNet::new(
            start.rule(),
            start.size(),
            embedding,
            point_bias,
            head_weight,
            head_bias,
            output_weight,
            output_bias[0],
        )
    }
}

/// What one epoch measured.
#[derive(Clone, Debug)]
pub struct PatternEpoch {
    pub epoch: usize,
    pub train_loss: f64,
    pub valid_loss: f64,
    /// How often the net's favourite side won the game (validation, decided games).
    pub valid_accuracy: f64,
    /// The ranking's cross-entropy of the move played among its block, and how often its
    /// position was the best of the block for the mover (validation; 0 without ranking).
    pub valid_rank_loss: f64,
    pub valid_rank_top1: f64,
    pub seconds: f64,
    pub positions_per_second: f64,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct PatternSummary {
    pub model: PathBuf,
    pub train_positions: usize,
    pub valid_positions: usize,
    /// The validation loss of the fitted linear evaluation's chance (`sigmoid(eval / scale)`,
    /// the scale fitted to the training rows).
    pub baseline_loss: f64,
    /// The validation loss of a constant guess: the training targets' mean.
    pub constant_loss: f64,
    pub best: PatternEpoch,
    pub epochs_run: usize,
    pub device: String,
}

/// The fitted evaluation's chances `sigmoid(score / scale)` of `rows`.
fn eval_chances(rows: &PatternRows, scale: f64) -> Vec<f32> {
    rows.eval_scores
        .iter()
        .map(|&s| (1.0 / (1.0 + (-f64::from(s) / scale).exp())) as f32)
        .collect()
}

/// The scale of the fitted evaluation's logistic that fits the training rows best (a
/// golden-section search over its logarithm, 10 to 10,000): the baseline is the evaluation
/// at its best, not at a scale fitted to other games.
fn fit_eval_scale(rows: &PatternRows) -> f64 {
    let loss_at =
        |log_scale: f64| cross_entropy(&eval_chances(rows, log_scale.exp()), &rows.targets);
    let (mut lo, mut hi) = (10f64.ln(), 10_000f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let (a, b) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if loss_at(a) < loss_at(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// Binary cross-entropy of chances `p` against targets.
fn cross_entropy(p: &[f32], targets: &[f32]) -> f64 {
    let n = p.len().max(1) as f64;
    p.iter()
        .zip(targets)
        .map(|(&p, &t)| {
            let p = f64::from(p).clamp(1e-7, 1.0 - 1e-7);
            let t = f64::from(t);
            -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / n
}

/// What computes the gradients of a run, and its net.
enum Fitter<O> {
    Burn {
        /// Taken out for each step (burn's optimiser consumes the model).
        net: Box<Option<PatternModel>>,
        optim: O,
    },
    Sparse {
        net: SparseNet,
        adam: Adam,
        /// A gradient buffer a thread.
        grads: Vec<Vec<f32>>,
    },
}

/// A net's outputs on the held-out rows.
#[derive(Default)]
struct Outputs {
    /// The side to move's chance of each row.
    chances: Vec<f32>,
    /// The mover's log-chances of each ranking block's children, block after block.
    ranks: Vec<f32>,
}

impl Outputs {
    /// The held-out metrics (the epoch and training figures left for the caller) against
    /// `targets`, with `children` positions a ranking block.
    fn metrics(&self, targets: &[f32], children: usize) -> PatternEpoch {
        let decided: Vec<(f32, f32)> = self
            .chances
            .iter()
            .zip(targets)
            .filter(|(_, &t)| t != 0.5)
            .map(|(&p, &t)| (p, t))
            .collect();
        let right = decided
            .iter()
            .filter(|(p, t)| (*p > 0.5) == (*t > 0.5))
            .count();
        let (mut rank_loss, mut rank_top1, mut rank_blocks) = (0.0, 0usize, 0usize);
        for block in self.ranks.chunks_exact(children.max(1)) {
            rank_loss -= f64::from(block[0]);
            rank_top1 += usize::from(block[1..].iter().all(|&o| o < block[0]));
            rank_blocks += 1;
        }
        PatternEpoch {
            epoch: 0,
            train_loss: f64::NAN,
            valid_loss: if targets.is_empty() {
                f64::NAN
            } else {
                cross_entropy(&self.chances, targets)
            },
            valid_accuracy: right as f64 / decided.len().max(1) as f64,
            valid_rank_loss: rank_loss / rank_blocks.max(1) as f64,
            valid_rank_top1: rank_top1 as f64 / rank_blocks.max(1) as f64,
            seconds: 0.0,
            positions_per_second: 0.0,
        }
    }
}

/// Trains a pattern net and writes the best one (by validation loss) to
/// `out/model.safetensors`, with `out/metrics.csv` and `out/MODEL.md`.
pub fn train_pattern(
    config: &PatternConfig,
    verbose: bool,
    command: &str,
) -> Result<PatternSummary, String> {
    config.validate()?;
    // A net to start from: of the run's sizes, read by this trainer.
    let from = match &config.init {
        Some(path) => {
            let net = PatternNet::load(path)?;
            if (net.features, net.hidden) != (config.features, config.hidden) {
                return Err(format!(
                    "--init {} has {} features and {} hidden units, the run asks for {} and {} (leave --features and --hidden out to take the net's)",
                    path.display(),
                    net.features,
                    net.hidden,
                    config.features,
                    config.hidden
                ));
            }
            Some(net)
        }
        None => None,
    };
    let say = |text: String| {
        if verbose {
            eprintln!("train pattern: {text}");
        }
    };
    let mut index = DataIndex::build(&config.data, config.validation_share, config.seed)?;
    for w in &index.warnings {
        // A torn last record (a run killed while writing): that game is left out.
        eprintln!("train pattern: warning: {w}");
    }
    let kept = (index.train.len() as f64 * config.train_share).ceil() as usize;
    index.train.truncate(kept);
    if index.spec.name() != "gomoku" {
        return Err(format!(
            "pattern nets are for gomoku, {} holds {} games (train run fits those)",
            index.dirs_text(),
            index.spec
        ));
    }
    if index.valid.is_empty() {
        return Err(format!(
            "--validation-share {} holds out no game of the {} in {}: the net kept is the epoch with the best held-out loss (raise the share, or train on more games)",
            config.validation_share,
            index.train.len(),
            index.dirs_text()
        ));
    }
    let start: Gomoku = index.spec.start()?;
    if let (Some(net), Some(path)) = (&from, &config.init) {
        net.check_fits(start.rule(), start.size())
            .map_err(|e| format!("--init {}: {e} ({})", path.display(), index.dirs_text()))?;
    }
    let model_path = config.out.join(MODEL_FILE);
    if model_path.exists() && !config.force {
        return Err(format!(
            "{} already holds a model; pass --force to replace it, or choose another --out",
            config.out.display()
        ));
    }
    let device = device_of(config.backend, config.cpu_backend)?.autodiff();
    let plain = device.clone().without_autodiff();
    let threads = engine::cli::or_all_cores(config.threads);
    let t_read = Instant::now();
    // The training games first: a held-out game that repeats one is left out.
    let mut seen = HashSet::new();
    let mut load = |games: &[GameRef]| {
        PatternRows::load(games, &index.files, &start, config, &mut seen, threads)
    };
    let records: u64 = index.train.iter().map(|g| u64::from(g.positions)).sum();
    let streamed = records > config.memory_positions as u64;
    if streamed && config.trainer == Trainer::Burn {
        return Err(format!(
            "{}: {records} training positions, more than --memory-positions {}: the burn trainer holds its rows in memory (raise --memory-positions, or leave --trainer burn out: the sparse trainer streams them from disk)",
            index.dirs_text(),
            config.memory_positions
        ));
    }
    let (train, eval_scale) = if streamed {
        // Runs of games in a seeded order, so that each run is a sample of every dataset.
        engine::cli::create_out_dir("--out", &config.out)?;
        let mut games = index.train.clone();
        Rng::new(derive_seed(config.seed, STREAM_ORDER_SEED)).shuffle(&mut games);
        let mut cache: Option<RowCache> = None;
        let mut eval_scale = None;
        for run in runs_of(&games, config.memory_positions) {
            let rows = load(run)?;
            if eval_scale.is_none() && !rows.is_empty() {
                // The fitted evaluation's scale, from the first run's rows.
                eval_scale = Some(fit_eval_scale(&rows));
            }
            let cache = match &mut cache {
                Some(cache) => cache,
                None => cache.insert(RowCache::create(&config.out, &rows)?),
            };
            cache.push(&rows)?;
            say(format!(
                "read {} positions of {} games into {} ({} runs, {:.0} MB)",
                cache.count.positions,
                cache.count.games,
                cache.path().display(),
                cache.runs(),
                cache.bytes() as f64 / 1e6
            ));
        }
        let mut cache =
            cache.ok_or_else(|| format!("{}: no game to train on", index.dirs_text()))?;
        cache.finish()?;
        (
            TrainSet::Streamed(cache),
            eval_scale.unwrap_or(DEFAULT_EVAL_SCALE),
        )
    } else {
        let rows = load(&index.train)?;
        let eval_scale = fit_eval_scale(&rows);
        (TrainSet::Memory(rows), eval_scale)
    };
    let valid = load(&index.valid)?;
    let counted = train.count();
    if counted.positions == 0 {
        return Err(format!("{}: no position to train on", index.dirs_text()));
    }
    if valid.is_empty() {
        return Err(format!(
            "{}: the {} held-out games give no position to validate on (each repeats a training game or has none to learn): the net kept is the epoch with the best held-out loss (raise --validation-share, or train on more games)",
            index.dirs_text(),
            index.valid.len()
        ));
    }
    let baseline_loss = cross_entropy(&eval_chances(&valid, eval_scale), &valid.targets);
    let mean = counted.target_sum / counted.positions as f64;
    let constant_loss = cross_entropy(&vec![mean as f32; valid.len()], &valid.targets);
    say(format!(
        "{}: {} positions for training ({} games), {} for validation ({} games); {} repeated games left out; read in {:.1}s",
        index.dirs_text(),
        counted.positions,
        counted.games,
        valid.len(),
        valid.games,
        counted.repeats + valid.repeats,
        t_read.elapsed().as_secs_f64()
    ));
    say(format!(
        "validation loss of the fitted evaluation: {baseline_loss:.5} (sigmoid(eval / {eval_scale:.1}), the scale fitted to the training rows); of a constant guess: {constant_loss:.5}"
    ));
    engine::cli::create_out_dir("--out", &config.out)?;
    let device_name = match (config.trainer, config.backend) {
        (Trainer::Sparse, _) => format!("cpu (the sparse trainer, {threads} threads)"),
        (Trainer::Burn, Backend::Cpu) => {
            format!("cpu (burn {:?})", config.cpu_backend).to_lowercase()
        }
        (Trainer::Burn, Backend::Gpu) => "gpu (burn wgpu)".into(),
    };
    let points = valid.points;
    let batch = |rows: &PatternRows, picks: &[u32], device: &Device| {
        let (mine, theirs, mask, targets) = rows.gather(picks);
        let n = picks.len();
        (
            int_tensor(mine, device),
            int_tensor(theirs, device),
            Tensor::<3>::from_data(TensorData::new(mask, [n, points, 1]), device),
            Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), device),
        )
    };
    let children = valid.children;
    // The mover's log-chance of each block's first child (the move played) being the best
    // of its block, by the values (seen from the child's side to move, so negated): blocks x 1.
    let ranked = |model: &PatternModel, rows: &PatternRows, picks: &[u32], device: &Device| {
        let (mine, theirs, mask, blocks) = rows.gather_children(picks);
        if blocks == 0 {
            return None;
        }
        let n = blocks * children;
        let mask = Tensor::<3>::from_data(TensorData::new(mask, [n, points, 1]), device);
        let (mine, theirs) = (int_tensor(mine, device), int_tensor(theirs, device));
        let value = model.forward(mine, theirs, mask, (n, points));
        let logp = log_softmax(-value.reshape([blocks, children]), 1);
        Some((logp.clone().slice([0..blocks, 0..1]), logp))
    };
    // The held-out outputs of a burn net: chances, and rank log-chances block after block.
    let burn_outputs = |valid_model: &PatternModel| -> Result<Outputs, String> {
        let mut out = Outputs::default();
        let all: Vec<u32> = (0..valid.len() as u32).collect();
        let floats = |t: Tensor<2>| -> Result<Vec<f32>, String> {
            t.into_data().try_to_vec().map_err(|e| format!("{e:?}"))
        };
        for picks in all.chunks(1024) {
            let (mine, theirs, mask, _) = batch(&valid, picks, &plain);
            let value = valid_model.forward(mine, theirs, mask, (picks.len(), points));
            out.chances.extend(floats(sigmoid(value))?);
            if let Some((_, logp)) = ranked(valid_model, &valid, picks, &plain) {
                out.ranks.extend(floats(logp)?);
            }
        }
        Ok(out)
    };
    let all_valid: Vec<u32> = (0..valid.len() as u32).collect();
    let rank_weight = config.rank_weight as f32;
    let validate = |fitter: &Fitter<_>| -> Result<PatternEpoch, String> {
        let outputs = match fitter {
            Fitter::Burn { net, .. } => {
                burn_outputs(&(**net).as_ref().expect("the net is there").valid())?
            }
            Fitter::Sparse { net, .. } => {
                let (chances, ranks) =
                    sparse::evaluate(net, &valid.sparse_batch(rank_weight), &all_valid, threads);
                Outputs { chances, ranks }
            }
        };
        Ok(outputs.metrics(&valid.targets, children))
    };
    if let (Some(path), Some(from)) = (&config.init, &from) {
        say(format!(
            "starting from {} ({} features, {} hidden)",
            path.display(),
            from.features,
            from.hidden,
        ));
    }
    let model = match &from {
        Some(from) => PatternModel::from_net(from, &device).map_err(|e| {
            format!(
                "--init {}: {e}",
                config.init.as_ref().expect("a net to start from").display()
            )
        })?,
        None => PatternModel::new(config.features, config.hidden, config.seed, &device),
    };
    let mut fitter = match config.trainer {
        Trainer::Burn => Fitter::Burn {
            net: Box::new(Some(model)),
            optim: AdamConfig::new().init(),
        },
        Trainer::Sparse => {
            // The same starting weights as burn's.
            let net = SparseNet::from_net(&model.to_pattern_net(&start)?)?;
            Fitter::Sparse {
                adam: Adam::new(net.params.len()),
                net,
                grads: Vec::new(),
            }
        }
    };
    let mut history: Vec<PatternEpoch> = Vec::new();
    let mut best: Option<PatternEpoch> = None;
    let mut bad_epochs = 0;
    let mut order: Vec<u32> = match &train {
        TrainSet::Memory(rows) => (0..rows.len() as u32).collect(),
        TrainSet::Streamed(_) => Vec::new(),
    };
    say(format!(
        "epoch  train loss  valid loss  valid accuracy  {}seconds  positions/s",
        if children > 0 {
            "  rank loss   rank first  "
        } else {
            ""
        }
    ));
    if verbose && config.init.is_some() && !valid.is_empty() {
        // How the starting net fits these held-out games, the figure the epochs are to beat.
        let m = validate(&fitter)?;
        say(format!(
            "    0  (the starting net)  {:>10.5}  {:>13.2}%  {}",
            m.valid_loss,
            100.0 * m.valid_accuracy,
            if children > 0 {
                format!(
                    "rank loss {:.4}, ranked first {:.2}%",
                    m.valid_rank_loss,
                    100.0 * m.valid_rank_top1
                )
            } else {
                String::new()
            }
        ));
    }
    for epoch in 1..=config.epochs {
        let t0 = Instant::now();
        let rate = config
            .lr_decay
            .rate(config.learning_rate, epoch, config.epochs);
        let mut rng = Rng::new(derive_seed(config.seed, epoch as u64));
        rng.shuffle(&mut order);
        let mut loss_sum = 0.0;
        match &mut fitter {
            Fitter::Burn { net, optim } => {
                let TrainSet::Memory(train) = &train else {
                    unreachable!("the burn trainer's rows are in memory (checked above)")
                };
                for picks in order.chunks(config.batch_size) {
                    let model = net.take().expect("the net is there between batches");
                    let (mine, theirs, mask, targets) = batch(train, picks, &device);
                    let logits = model.forward(mine, theirs, mask, (picks.len(), points));
                    let value_loss = loss(Loss::Bce, logits, targets);
                    let value: f32 = value_loss.clone().into_scalar();
                    let batch_loss = match ranked(&model, train, picks, &device) {
                        Some((played, _)) if config.rank_weight > 0.0 => {
                            value_loss - played.mean() * config.rank_weight
                        }
                        _ => value_loss,
                    };
                    loss_sum += value as f64 * picks.len() as f64;
                    let grads = GradientsParams::from_grads(batch_loss.backward(), &model);
                    **net = Some(optim.step(rate, model, grads));
                }
            }
            Fitter::Sparse { net, adam, grads } => {
                let mut step = |rows: &PatternRows, order: &[u32]| {
                    let data = rows.sparse_batch(rank_weight);
                    for picks in order.chunks(config.batch_size) {
                        loss_sum += sparse::batch_gradient(net, &data, picks, threads, grads);
                        adam.step(rate, &mut net.params, &grads[0]);
                    }
                };
                match &train {
                    TrainSet::Memory(rows) => step(rows, &order),
                    TrainSet::Streamed(cache) => {
                        // The runs in a new order each epoch, each run's rows shuffled.
                        let mut runs: Vec<usize> = (0..cache.runs()).collect();
                        rng.shuffle(&mut runs);
                        for k in runs {
                            let rows = cache.read(k)?;
                            order.clear();
                            order.extend(0..rows.len() as u32);
                            rng.shuffle(&mut order);
                            step(&rows, &order);
                        }
                    }
                }
            }
        }
        let train_seconds = t0.elapsed().as_secs_f64();
        // Validated before the clock is read: an epoch's seconds include its validation.
        let held_out = validate(&fitter)?;
        let metrics = PatternEpoch {
            epoch,
            train_loss: loss_sum / counted.positions as f64,
            seconds: t0.elapsed().as_secs_f64(),
            positions_per_second: counted.positions as f64 / train_seconds,
            ..held_out
        };
        say(format!(
            "{:>5}  {:>10.5}  {:>10.5}  {:>13.2}%  {}{:>7.1}  {:>11.0}",
            epoch,
            metrics.train_loss,
            metrics.valid_loss,
            100.0 * metrics.valid_accuracy,
            if children > 0 {
                format!(
                    "{:>11.4}  {:>11.2}%  ",
                    metrics.valid_rank_loss,
                    100.0 * metrics.valid_rank_top1
                )
            } else {
                String::new()
            },
            metrics.seconds,
            metrics.positions_per_second
        ));
        // The held-out objective the net is trained on: a ranking's loss counts at its weight, so an epoch that ranks better is not dropped for a dearer value loss.
        let watched = |m: &PatternEpoch| {
            let mut objective = m.valid_loss;
            if config.rank_weight > 0.0 {
                objective += config.rank_weight * m.valid_rank_loss;
            }
            objective
        };
        history.push(metrics.clone());
        if best.as_ref().is_none_or(|b| watched(&metrics) < watched(b)) {
            bad_epochs = 0;
            let mut net = match &fitter {
                Fitter::Burn { net, .. } => (**net)
                    .as_ref()
                    .expect("the net is there")
                    .to_pattern_net(&start)?,
                Fitter::Sparse { net, .. } => net.to_net(start.rule(), start.size())?,
            };
            net.extra = BTreeMap::from([
                ("dataset".to_string(), index.dirs_text()),
                ("epoch".to_string(), epoch.to_string()),
                (
                    "valid_loss".to_string(),
                    format!("{:.5}", metrics.valid_loss),
                ),
                (
                    "baseline_valid_loss".to_string(),
                    format!("{baseline_loss:.5}"),
                ),
                ("train_positions".to_string(), counted.positions.to_string()),
                (
                    "search_weight".to_string(),
                    config.search_weight.to_string(),
                ),
                ("trained_on".to_string(), device_name.clone()),
                ("command".to_string(), command.to_string()),
            ]);
            net.save(&model_path)?;
            best = Some(metrics);
        } else {
            bad_epochs += 1;
        }
        write_metrics(&config.out.join("metrics.csv"), &history)?;
        let summary = PatternSummary {
            model: model_path.clone(),
            train_positions: counted.positions,
            valid_positions: valid.len(),
            baseline_loss,
            constant_loss,
            best: best.clone().expect("an epoch was best"),
            epochs_run: history.len(),
            device: device_name.clone(),
        };
        // The card is rewritten after every epoch: the one a run stopped between epochs
        // (Ctrl-C) leaves says so.
        let stop_early = config.patience > 0 && bad_epochs >= config.patience;
        let state = if epoch == config.epochs {
            RunState::Finished
        } else if stop_early {
            RunState::StoppedEarly
        } else {
            RunState::Interrupted
        };
        write_card(
            &config.out.join(CARD_FILE),
            config,
            &index,
            &summary,
            &history,
            counted,
            RowCount::of(&valid),
            command,
            state,
        )?;
        if stop_early {
            say(format!(
                "early stop: no better held-out objective for {} epochs",
                config.patience
            ));
            break;
        }
    }
    Ok(PatternSummary {
        model: model_path,
        train_positions: counted.positions,
        valid_positions: valid.len(),
        baseline_loss,
        constant_loss,
        best: best.expect("at least one epoch ran"),
        epochs_run: history.len(),
        device: device_name,
    })
}

fn write_metrics(path: &Path, history: &[PatternEpoch]) -> Result<(), String> {
    // The policy's two columns stay, at zero (the policy was retired: issue 83), so that the
    // files of every run read alike.
    let mut text =
        String::from("epoch,train_loss,valid_loss,valid_accuracy,valid_policy_loss,valid_policy_top1,valid_rank_loss,valid_rank_top1,seconds,positions_per_second\n");
    for m in history {
        text += &format!(
            "{},{:.6},{:.6},{:.6},0.000000,0.000000,{:.6},{:.6},{:.2},{:.0}\n",
            m.epoch,
            m.train_loss,
            m.valid_loss,
            m.valid_accuracy,
            m.valid_rank_loss,
            m.valid_rank_top1,
            m.seconds,
            m.positions_per_second
        );
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// How far a run had got when its card was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// Written after an epoch with more to come: what the card says if the run stops there
    /// (Ctrl-C), as the next epoch rewrites it.
    Interrupted,
    /// Early stopping ended the run.
    StoppedEarly,
    /// Every epoch asked for ran.
    Finished,
}

impl RunState {
    /// The card's words for a run of `epochs` epochs at most that has run `run` of them.
    pub fn describe(self, run: usize, epochs: usize, patience: usize) -> String {
        match self {
            RunState::Interrupted => format!(
                "interrupted after {run} of {epochs} (unless still running: this card is rewritten after each epoch); a stopped run cannot be resumed: train again, or start a new run from this net with --init"
            ),
            RunState::StoppedEarly => format!(
                "stopped early after {run} of {epochs}: no better held-out objective for {patience} epochs"
            ),
            RunState::Finished => format!("all {epochs} run"),
        }
    }
}

/// How many positions and games a set of rows holds, how many games were left out as
/// repeats, and the sum of the targets; `runs` is the runs of a set streamed from disk (0: the
/// set is in memory).
#[derive(Clone, Copy, Debug, Default)]
pub struct RowCount {
    pub positions: usize,
    pub games: usize,
    pub repeats: usize,
    pub target_sum: f64,
    pub runs: usize,
}

impl RowCount {
    pub fn of(rows: &PatternRows) -> RowCount {
        RowCount {
            positions: rows.len(),
            games: rows.games,
            repeats: rows.repeats,
            target_sum: rows.targets.iter().map(|&t| f64::from(t)).sum(),
            runs: 0,
        }
    }
}

impl RowCount {
    /// Adds `other`'s counts to these (a run's to a streamed set's).
    pub fn add(&mut self, other: RowCount) {
        self.positions += other.positions;
        self.games += other.games;
        self.repeats += other.repeats;
        self.target_sum += other.target_sum;
        self.runs += other.runs;
    }
}

/// The training rows: in memory, or streamed from a cache file run by run.
enum TrainSet {
    Memory(PatternRows),
    Streamed(RowCache),
}

impl TrainSet {
    fn count(&self) -> RowCount {
        match self {
            TrainSet::Memory(rows) => RowCount::of(rows),
            TrainSet::Streamed(cache) => cache.count,
        }
    }
}

/// The seed (beside `--seed`) of the order the games of a streamed set are read in.
const STREAM_ORDER_SEED: u64 = 0x5747_EA3D;

/// The fitted evaluation's scale where no row was there to fit it.
const DEFAULT_EVAL_SCALE: f64 = 200.0;

/// `games` in runs of at most `positions` positions by the records' counts (a game longer
/// than that is a run of its own).
fn runs_of(games: &[GameRef], positions: usize) -> Vec<&[GameRef]> {
    let mut runs = Vec::new();
    let (mut start, mut held) = (0, 0usize);
    for (i, g) in games.iter().enumerate() {
        let n = g.positions as usize;
        if i > start && held + n > positions {
            runs.push(&games[start..i]);
            (start, held) = (i, 0);
        }
        held += n;
    }
    if start < games.len() {
        runs.push(&games[start..]);
    }
    runs
}

/// `MODEL.md`: what the net is, what it was trained on and how, how far the run got, and
/// each epoch.
#[allow(clippy::too_many_arguments)]
fn write_card(
    path: &Path,
    config: &PatternConfig,
    index: &DataIndex,
    summary: &PatternSummary,
    history: &[PatternEpoch],
    train: RowCount,
    valid: RowCount,
    command: &str,
    state: RunState,
) -> Result<(), String> {
    let b = &summary.best;
    let mut text = format!(
        "# Gomoku pattern net\n\n\
         `pvs:model={model}` plays with it (docs/gomoku-results.md).\n\n\
         | | |\n|---|---|\n\
         | Game | {spec} |\n\
         | Encoding | `{NET_ENCODING}`: per empty point and direction, the shapes of the side to move and of the other (81 codes) |\n\
         | Net | 81 codes -> {f} features a point (clipped ReLU), summed for each side / {POINT_NORM}, -> {h} hidden (clipped ReLU) -> 1 logit |\n\
         | Ranking | {ranking} |\n\
         | Data | {data}: {tg} games ({tp}) for training, {vg} games ({vp} positions) held out; {rep} repeated games left out |\n\
         | Target | the result, blended with the search's estimate at weight {sw} where the record has one; positions kept: {keep:?} |\n\
         | Training | Adam, learning rate {lr}{decay}, batch {bs}, seed {seed}{init}, on {device} |\n\
         | Kept epoch | {be} of the {er} run, the best by {objective}: validation loss {vl:.5} (the fitted evaluation's: {bl:.5}; a constant guess's: {cl:.5}), accuracy {acc:.2}% |\n\
         | Epochs | {run_state} |\n\
         | Command | `{command}` |\n\n\
         | Epoch | Train loss | Valid loss | Valid accuracy | Rank loss | Rank first | Seconds | Positions/s |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|\n",
        model = summary.model.display(),
        spec = index.spec,
        init = config.init.as_ref().map_or(String::new(), |p| format!(", from {}", p.display())),
        f = config.features,
        h = config.hidden,
        data = if config.train_share < 1.0 {
            format!(
                "{} (the first {}% of the training games: --train-share {})",
                index.dirs_text(),
                100.0 * config.train_share,
                config.train_share
            )
        } else {
            index.dirs_text()
        },
        tg = train.games,
        tp = if train.runs > 0 {
            format!(
                "{} positions, streamed from disk in {} runs of at most --memory-positions {}",
                train.positions, train.runs, config.memory_positions
            )
        } else {
            format!("{} positions", train.positions)
        },
        vg = valid.games,
        vp = valid.positions,
        rep = train.repeats + valid.repeats,
        sw = config.search_weight,
        keep = config.keep,
        lr = config.learning_rate,
        decay = match config.lr_decay {
            LrDecay::None => String::new(),
            LrDecay::Cosine => format!(
                " falling along a half cosine to a twentieth of it at epoch {}",
                config.epochs
            ),
        },
        bs = config.batch_size,
        seed = config.seed,
        device = summary.device,
        be = b.epoch,
        objective = {
            let mut terms = vec!["the validation loss".to_string()];
            if config.rank_weight > 0.0 {
                terms.push(format!("{} x the rank loss", config.rank_weight));
            }
            if terms.len() == 1 {
                "the validation loss".to_string()
            } else {
                format!("the held-out objective ({})", terms.join(" + "))
            }
        },
        er = summary.epochs_run,
        run_state = state.describe(summary.epochs_run, config.epochs, config.patience),
        vl = b.valid_loss,
        bl = summary.baseline_loss,
        cl = summary.constant_loss,
        acc = 100.0 * b.valid_accuracy,
        ranking = if config.rank_weight > 0.0 {
            format!(
                "the value net made to rank the position after the move played above those after {} other {} (a softmax over the mover's values), on {:.0}% of the positions{}, loss weight {}; validation: cross-entropy {:.4}, the move played ranked first {:.1}%",
                config.rank_alternatives,
                config.rank_pick.describe(),
                100.0 * config.rank_share,
                match config.rank_moves {
                    RankMoves::All => "",
                    RankMoves::Winner => " where the winner moved",
                },
                config.rank_weight,
                b.valid_rank_loss,
                100.0 * b.valid_rank_top1
            )
        } else {
            "none".to_string()
        },
    );
    for m in history {
        text += &format!(
            "| {} | {:.5} | {:.5} | {:.2}% | {:.4} | {:.1}% | {:.1} | {:.0} |\n",
            m.epoch,
            m.train_loss,
            m.valid_loss,
            100.0 * m.valid_accuracy,
            m.valid_rank_loss,
            100.0 * m.valid_rank_top1,
            m.seconds,
            m.positions_per_second
        );
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::{
        pick_alternatives, LrDecay, PatternConfig, PatternRows, RankMoves, RankPick, NO_RANK,
    };
    use engine::game::Game;
    use engine::game_record::{GameRecord, MoveKind, MoveRecord};
    use engine::games::gomoku::pvs::shape_order;
    use engine::games::gomoku::shape_board::ShapeBoard;
    use engine::games::gomoku::{Gomoku, Rule};
    use engine::rng::Rng;
    use engine::Outcome;

    /// A game of `line` from `start`, every move given (no search), ending in `outcome`.
    fn given_game(start: &Gomoku, index: u64, line: &[&str], outcome: Outcome) -> GameRecord {
        let mut state = *start;
        let mut moves = Vec::new();
        for m in line {
            let action = state.parse_action(m).unwrap();
            moves.push(MoveRecord::unsearched(
                action,
                state.to_move(),
                MoveKind::Given,
            ));
            state.apply(action);
        }
        let scores = match outcome {
            Outcome::Draw => [0, 0],
            o if o == Outcome::win_for(engine::game::Player::P1) => [1, 0],
            _ => [0, 1],
        };
        GameRecord {
            index,
            seed: 0,
            outcome,
            scores,
            moves,
        }
    }

    /// The trainer's model of a net gives the logit the engine's f32
    /// reference gives, on positions of either side to move: both read the same codes, each
    /// side's the same way.
    #[test]
    fn the_model_of_a_net_gives_the_engines_logit() {
        use super::{push_codes, PatternModel, PatternRows};
        use crate::config::{Backend, CpuBackend};
        use crate::trainer::device_of;
        use burn::tensor::{Int, Tensor, TensorData};
        use engine::games::gomoku::net::{PatternNet, CODES};
        let mut rng = Rng::new(5);
        let mut draw = |n: usize, scale: f64| -> Vec<f32> {
            (0..n)
                .map(|_| ((rng.unit_f64() * 2.0 - 1.0) * scale) as f32)
                .collect()
        };
        let (f, h) = (4, 3);
        let start = Gomoku::new(9, Rule::Freestyle).unwrap();
        let net = PatternNet::new(
            Rule::Freestyle,
            9,
            draw(CODES * f, 0.6),
            draw(f, 0.3),
            draw(h * 2 * f, 1.0),
            draw(h, 0.5),
            draw(h, 2.0),
            0.1,
        )
        .unwrap();
        let device = device_of(Backend::Cpu, CpuBackend::Flex).unwrap();
        let model = PatternModel::from_net(&net, &device).unwrap();
        let mut state = start;
        for (i, m) in ["e5", "e6", "d4", "f6", "c3", "g7", "e4"]
            .iter()
            .enumerate()
        {
            state.apply(state.parse_legal_action(m).unwrap());
            let board = ShapeBoard::new(&state);
            let mut rows = PatternRows {
                points: state.points(),
                ..PatternRows::default()
            };
            push_codes(&mut rows.codes, &board, state.to_move());
            rows.targets.push(0.5);
            let (mine, theirs, mask, _) = rows.gather(&[0]);
            let ints = |v: Vec<i32>| {
                let len = v.len();
                Tensor::<1, Int>::from_data(TensorData::new(v, [len]), &device)
            };
            let points = state.points();
            let mask = Tensor::<3>::from_data(TensorData::new(mask, [1, points, 1]), &device);
            let value = model.forward(ints(mine), ints(theirs), mask, (1, points));
            let trained: f32 = value.into_scalar();
            let engine = net.reference_logit(&board);
            assert!(
                (trained - engine).abs() < 1e-4,
                "move {i}: {trained} vs {engine}"
            );
        }
    }

    #[test]
    fn ordered_alternatives_come_from_the_move_orders_best() {
        // Black has a live three on row 8 (h8 i8 j8) and white two scattered stones: the
        // three's ends lead the move order.
        let mut state = Gomoku::new(15, Rule::Freestyle).unwrap();
        for m in ["h8", "c3", "i8", "m13", "j8"] {
            state.apply(state.parse_action(m).unwrap());
        }
        let board = ShapeBoard::new(&state);
        let mover = state.to_move();
        let mut candidates = Vec::new();
        board.candidates(&mut candidates);
        let played = state.parse_action("c4").unwrap();
        let mut ranked: Vec<(i32, usize)> = candidates
            .iter()
            .filter(|&&p| p != usize::from(played))
            .map(|&p| (shape_order(&board, mover, p).0, p))
            .collect();
        ranked.sort_by_key(|&(s, p)| (std::cmp::Reverse(s), p));
        let cut = ranked[5].0; // the sixth best's score: the best 2 x 3 reach it
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let picked = pick_alternatives(&board, played, 3, RankPick::Ordered, &mut rng).unwrap();
            assert_eq!(picked.len(), 3);
            for &p in &picked {
                assert_ne!(p, played);
                assert!(shape_order(&board, mover, usize::from(p)).0 >= cut, "{p}");
            }
            let mut rng = Rng::new(seed);
            let near = pick_alternatives(&board, played, 3, RankPick::Near, &mut rng).unwrap();
            assert!(near
                .iter()
                .all(|&p| candidates.contains(&usize::from(p)) && p != played));
        }
        // The blocks of the live three (g8, k8) are among the best six.
        let best: Vec<usize> = ranked[..6].iter().map(|&(_, p)| p).collect();
        for m in ["g8", "k8"] {
            assert!(
                best.contains(&usize::from(state.parse_action(m).unwrap())),
                "{m}"
            );
        }
        assert!(pick_alternatives(&board, played, 500, RankPick::Near, &mut Rng::new(1)).is_none());
    }

    /// The sparse trainer's gradients (value loss and ranking loss, each row's points packed
    /// by their codes) are burn's autodiff of the same net on the same rows, point by point.
    #[test]
    fn the_sparse_gradients_are_burns() {
        use super::{int_tensor, PatternModel, Trainer};
        use crate::config::{Backend, CpuBackend, Loss};
        use crate::sparse::{batch_gradient, evaluate, SparseNet};
        use crate::trainer::{device_of, loss};
        use burn::optim::GradientsParams;
        use burn::tensor::activation::log_softmax;
        use burn::tensor::{Tensor, TensorData};
        use engine::games::gomoku::net::{PatternNet, CODES};
        // A width the trainer has a kernel for, and one it reads from the net.
        for (f, h) in [(16, 4), (5, 3)] {
            let mut rng = Rng::new(9 + f as u64);
            let mut draw = |n: usize, scale: f64, centre: f64| -> Vec<f32> {
                (0..n)
                    .map(|_| ((rng.unit_f64() * 2.0 - 1.0) * scale + centre) as f32)
                    .collect()
            };
            // Rows large enough that some points clamp at 0, some at 1 and most pass.
            let net = PatternNet::new(
                Rule::Freestyle,
                9,
                draw(CODES * f, 0.3, 0.0),
                draw(f, 0.3, 0.3),
                draw(h * 2 * f, 2.0, 0.0),
                draw(h, 0.5, 0.3),
                draw(h, 2.0, 0.0),
                0.1,
            )
            .unwrap();
            let start = Gomoku::new(9, Rule::Freestyle).unwrap();
            let game = given_game(
                &start,
                1,
                &[
                    "e5", "e6", "d4", "f6", "c3", "g7", "e4", "d5", "f4", "c4", "g4",
                ],
                Outcome::win_for(engine::game::Player::P2),
            );
            let config = PatternConfig {
                rank_weight: 0.7,
                rank_share: 0.6,
                trainer: Trainer::Burn,
                ..PatternConfig::default()
            };
            let rows_of = |pack: bool| {
                let mut rows = PatternRows {
                    points: start.points(),
                    children: 4,
                    pack,
                    ..PatternRows::default()
                };
                rows.add_game(&game, &start, &config).unwrap();
                rows
            };
            let (plain, packed) = (rows_of(false), rows_of(true));
            assert_eq!(plain.rank_block, packed.rank_block);
            let blocks = plain.rank_block.iter().filter(|&&b| b != NO_RANK).count();
            assert!(
                blocks >= 2 && blocks < plain.len(),
                "{blocks} of {}",
                plain.len()
            );
            let picks: Vec<u32> = (0..plain.len() as u32).rev().collect();

            let sparse = SparseNet::from_net(&net).unwrap();
            let data = packed.sparse_batch(0.7);
            let mut grads = Vec::new();
            let value_sum = batch_gradient(&sparse, &data, &picks, 2, &mut grads);

            let device = device_of(Backend::Cpu, CpuBackend::Flex)
                .unwrap()
                .autodiff();
            let model = PatternModel::from_net(&net, &device).unwrap();
            let n = picks.len();
            let (mine, theirs, mask, targets) = plain.gather(&picks);
            let mask = Tensor::<3>::from_data(TensorData::new(mask, [n, plain.points, 1]), &device);
            let targets = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), &device);
            let logits = model.forward(
                int_tensor(mine, &device),
                int_tensor(theirs, &device),
                mask,
                (n, plain.points),
            );
            let value_loss = loss(Loss::Bce, logits, targets);
            let burn_value: f32 = value_loss.clone().into_scalar();
            assert!((value_sum as f32 / n as f32 - burn_value).abs() < 1e-5);
            let (mine, theirs, mask, b) = plain.gather_children(&picks);
            assert_eq!(b, blocks);
            let c = b * 4;
            let mask = Tensor::<3>::from_data(TensorData::new(mask, [c, plain.points, 1]), &device);
            let values = model.forward(
                int_tensor(mine, &device),
                int_tensor(theirs, &device),
                mask,
                (c, plain.points),
            );
            let logp = log_softmax(-values.reshape([b, 4]), 1);
            let total = value_loss - logp.clone().slice([0..b, 0..1]).mean() * 0.7;
            let burn_grads = GradientsParams::from_grads(total.backward(), &model);
            let flat = |t: Option<Tensor<2>>| -> Vec<f32> {
                t.expect("a gradient")
                    .into_data()
                    .try_to_vec::<f32>()
                    .unwrap()
            };
            let flat1 = |t: Option<Tensor<1>>| -> Vec<f32> {
                t.expect("a gradient")
                    .into_data()
                    .try_to_vec::<f32>()
                    .unwrap()
            };
            let mut expected = flat(burn_grads.get::<2>(model.embedding.id));
            expected.truncate(CODES * f); // the stone's row, masked out
            expected.extend(flat1(burn_grads.get::<1>(model.point_bias.id)));
            // burn keeps a linear layer's weight as [inputs, outputs]: transposed here.
            let head = flat(burn_grads.get::<2>(model.head.weight.id));
            expected.extend(
                (0..h)
                    .flat_map(|k| (0..2 * f).map(move |i| (k, i)))
                    .map(|(k, i)| head[i * h + k]),
            );
            expected.extend(flat1(
                burn_grads.get::<1>(model.head.bias.as_ref().unwrap().id),
            ));
            expected.extend(flat(burn_grads.get::<2>(model.output.weight.id)));
            expected.extend(flat1(
                burn_grads.get::<1>(model.output.bias.as_ref().unwrap().id),
            ));
            assert_eq!(expected.len(), grads[0].len());
            let scale = expected.iter().fold(0f32, |m, g| m.max(g.abs()));
            assert!(scale > 1e-3, "the gradients are not all vanishing: {scale}");
            let moved = grads[0].iter().filter(|g| g.abs() > 1e-6).count();
            assert!(
                moved > expected.len() / 4,
                "{moved} of {} parameters moved",
                expected.len()
            );
            for (i, (got, want)) in grads[0].iter().zip(&expected).enumerate() {
                assert!(
                    (got - want).abs() <= 1e-4 * scale.max(1.0),
                    "parameter {i}: sparse {got}, burn {want}"
                );
            }
            // The held-out outputs agree too: chances and the blocks' log-chances.
            let (chances, ranks) = evaluate(&sparse, &data, &picks, 3);
            let burn_logp: Vec<f32> = logp.into_data().try_to_vec::<f32>().unwrap();
            assert_eq!(ranks.len(), burn_logp.len());
            for (a, b) in ranks.iter().zip(&burn_logp) {
                assert!((a - b).abs() < 1e-4, "{a} {b}");
            }
            assert_eq!(chances.len(), n);
        }
    }

    /// Rows replayed in runs and joined (as `load` does on several threads) are the rows
    /// replayed in one go: the ranking blocks renumbered, the packed positions in order.
    #[test]
    fn rows_joined_are_the_rows_of_one_replay() {
        use super::Trainer;
        let start = Gomoku::new(9, Rule::Freestyle).unwrap();
        let game = |index: u64, line: &[&str]| given_game(&start, index, line, Outcome::Draw);
        let games = [
            game(1, &["e5", "e6", "d4", "f6", "c3", "g7", "e4", "d5"]),
            game(2, &["a1", "e5", "b2", "f5", "c3", "d4", "g6"]),
            game(3, &["e5", "d5", "e4", "d4", "e6", "d6", "f6"]),
        ];
        let config = PatternConfig {
            rank_weight: 0.5,
            rank_share: 0.7,
            trainer: Trainer::Sparse,
            ..PatternConfig::default()
        };
        let empty = PatternRows {
            points: start.points(),
            children: 4,
            pack: true,
            ..PatternRows::default()
        };
        let mut whole = empty.clone();
        for g in &games {
            whole.add_game(g, &start, &config).unwrap();
        }
        let mut joined = empty.clone();
        for run in [&games[..1], &games[1..]] {
            let mut part = empty.clone();
            for g in run {
                part.add_game(g, &start, &config).unwrap();
            }
            joined.append(part);
        }
        assert!(whole.blocks >= 3, "{} blocks", whole.blocks);
        assert_eq!(joined.targets, whole.targets);
        assert_eq!(joined.rank_block, whole.rank_block);
        assert_eq!(joined.blocks, whole.blocks);
        assert_eq!(joined.packed, whole.packed);
        assert_eq!(joined.child_packed, whole.child_packed);
        assert_eq!(joined.eval_scores, whole.eval_scores);

        // Runs written to the cache file read back as they were (but the evaluation's
        // scores, which only the in-memory fit reads), and the file goes with the cache.
        let dir = std::env::temp_dir().join(format!("row-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut parts = Vec::new();
        for run in [&games[..1], &games[1..]] {
            let mut part = empty.clone();
            for g in run {
                part.add_game(g, &start, &config).unwrap();
            }
            parts.push(part);
        }
        let mut cache = crate::row_cache::RowCache::create(&dir, &empty).unwrap();
        for part in &parts {
            cache.push(part).unwrap();
        }
        cache.finish().unwrap();
        assert_eq!((cache.runs(), cache.count.positions), (2, whole.len()));
        for (k, part) in parts.iter().enumerate().rev() {
            let read = cache.read(k).unwrap();
            assert_eq!(read.targets, part.targets);
            assert_eq!(read.rank_block, part.rank_block);
            assert_eq!(read.blocks, part.blocks);
            assert_eq!(read.packed, part.packed);
            assert_eq!(read.child_packed, part.child_packed);
            assert_eq!((read.points, read.children), (part.points, part.children));
        }
        let path = cache.path().to_path_buf();
        assert!(path.exists());
        drop(cache);
        assert!(!path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn runs_hold_at_most_the_positions_asked_but_a_longer_game() {
        let game = |positions| crate::data::GameRef {
            file: 0,
            offset: 0,
            index: 0,
            positions,
        };
        let games: Vec<crate::data::GameRef> = [3, 4, 2, 9, 1, 1].into_iter().map(game).collect();
        let sizes: Vec<Vec<u32>> = super::runs_of(&games, 7)
            .iter()
            .map(|run| run.iter().map(|g| g.positions).collect())
            .collect();
        assert_eq!(sizes, vec![vec![3, 4], vec![2], vec![9], vec![1, 1]]);
        assert!(super::runs_of(&[], 7).is_empty());
    }

    #[test]
    fn winner_only_ranking_rows_are_the_winners_moves() {
        // Black's five on row 8 while white plays on row 1: black wins at its fifth stone.
        let start = Gomoku::new(15, Rule::Freestyle).unwrap();
        let game = given_game(
            &start,
            3,
            &["h8", "a1", "i8", "c1", "j8", "e1", "k8", "g1", "l8"],
            Outcome::win_for(engine::game::Player::P1),
        );
        let rows_of = |rank_moves| {
            let config = PatternConfig {
                rank_weight: 1.0,
                rank_moves,
                ..PatternConfig::default()
            };
            let mut rows = PatternRows {
                points: start.points(),
                children: 4,
                ..PatternRows::default()
            };
            rows.add_game(&game, &start, &config).unwrap();
            rows
        };
        // Rows are the positions before each move but those decided (black's four to five
        // at the last): eight. The first has no stone to rank points near, the eighth is a
        // forced block; between them black moved at even plies.
        let all = rows_of(RankMoves::All);
        assert_eq!(all.len(), 8);
        let ranked = |rows: &PatternRows| -> Vec<usize> {
            (0..rows.len())
                .filter(|&r| rows.rank_block[r] != NO_RANK)
                .collect()
        };
        assert_eq!(ranked(&all), vec![1, 2, 3, 4, 5, 6]);
        let winner = rows_of(RankMoves::Winner);
        assert_eq!(winner.len(), 8);
        assert_eq!(ranked(&winner), vec![2, 4, 6]);
        assert_eq!(winner.child_codes.len() * 2, all.child_codes.len());
    }

    #[test]
    fn the_cosine_rate_falls_from_the_rate_to_a_twentieth_of_it() {
        let rates: Vec<f64> = (1..=10)
            .map(|e| LrDecay::Cosine.rate(0.002, e, 10))
            .collect();
        assert!((rates[0] - 0.002).abs() < 1e-12);
        assert!((rates[9] - 0.0001).abs() < 1e-12);
        assert!(rates.windows(2).all(|w| w[1] < w[0]), "{rates:?}");
        assert!((LrDecay::Cosine.rate(0.002, 1, 1) - 0.002).abs() < 1e-12);
        assert_eq!(LrDecay::None.rate(0.002, 7, 10), 0.002);
    }

    /// The card a run leaves when stopped between epochs (Ctrl-C after epoch 2 of 6) says it
    /// was interrupted there and cannot be resumed, not that epoch 2 of 2 was kept; a run that
    /// stopped early or ran every epoch says so.
    #[test]
    fn the_card_of_a_stopped_run_says_it_was_interrupted() {
        use super::{write_card, PatternEpoch, PatternSummary, RunState};
        use crate::data::DataIndex;
        use engine::games::RegisteredGame;
        use std::path::PathBuf;
        let index = DataIndex {
            dirs: vec![PathBuf::from("data/gomoku")],
            spec: Gomoku::new(9, Rule::Freestyle).unwrap().spec(),
            files: Vec::new(),
            train: Vec::new(),
            valid: Vec::new(),
            warnings: Vec::new(),
            manifest_configs: Vec::new(),
        };
        let epoch = |epoch| PatternEpoch {
            epoch,
            train_loss: 0.5,
            valid_loss: 0.6,
            valid_accuracy: 0.7,
            valid_rank_loss: 0.0,
            valid_rank_top1: 0.0,
            seconds: 1.0,
            positions_per_second: 100.0,
        };
        let history = vec![epoch(1), epoch(2)];
        let summary = PatternSummary {
            model: PathBuf::from("net/model.safetensors"),
            train_positions: 10,
            valid_positions: 2,
            baseline_loss: 0.6,
            constant_loss: 0.69,
            best: epoch(2),
            epochs_run: 2,
            device: "cpu (flex)".to_string(),
        };
        let config = PatternConfig {
            epochs: 6,
            ..PatternConfig::default()
        };
        let rows = PatternRows::default();
        let path = std::env::temp_dir().join(format!("pattern-card-{}.md", std::process::id()));
        let card = |state: RunState| {
            write_card(
                &path,
                &config,
                &index,
                &summary,
                &history,
                super::RowCount::of(&rows),
                super::RowCount::of(&rows),
                "test",
                state,
            )
            .unwrap();
            std::fs::read_to_string(&path).unwrap()
        };
        let interrupted = card(RunState::Interrupted);
        assert!(
            interrupted.contains("| Epochs | interrupted after 2 of 6 ")
                && interrupted.contains("cannot be resumed"),
            "{interrupted}"
        );
        assert!(
            interrupted.contains("| Kept epoch | 2 of the 2 run, the best")
                && !interrupted.contains("| Kept epoch | 2 of 2,"),
            "{interrupted}"
        );
        let early = card(RunState::StoppedEarly);
        assert!(
            early.contains("| Epochs | stopped early after 2 of 6: no better held-out objective for 4 epochs |"),
            "{early}"
        );
        assert!(card(RunState::Finished).contains("| Epochs | all 6 run |"));
        std::fs::remove_file(&path).unwrap();
    }
}
