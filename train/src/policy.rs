//! `train policy`: a policy net for the product's search, fitted to how recorded searches
//! shared their visits among the root's moves.
//!
//! A recorded move that was searched may carry the root's statistics (each child's visits,
//! `selfplay`'s records): the target of its position is then those visits over their sum, and
//! the loss is the cross-entropy of a softmax over the root's moves alone (the others are
//! masked). A move recorded without them (chosen by the solver or a proof, or in records from
//! before `engine match --records` kept them), or every move with `--targets chosen`, is the
//! target alone, over every legal move: the net learns to foretell the choice. The inputs are the grid
//! with the player to move (`dab-table2-tomove-v1`), the outputs one logit per edge, and the net
//! is written in the engine's policy format (`engine::nn::PolicyNet`). No player reads it now:
//! `nn:policy=` was retired in issue 83 (docs/lab/dots-and-boxes.md).
//! The whole set is held in memory (a few hundred bytes a position).

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor};
use engine::game::Game;
use engine::games::dots_and_boxes::net::DAB_ENCODING_TO_MOVE;
use engine::games::DotsAndBoxes;
use engine::nn::ModelMeta;
use engine::record::{replay, GameRecord, MoveKind};
use engine::registry::Lookup;
use engine::rng::{derive_seed, Rng};
use engine::Player;

use crate::data::{open_readers, DataIndex, GameRef};
use crate::model::{input_tensor, Net};
use crate::trainer::MODEL_FILE;

/// Added to the logit of a move the root did not have: its share is zero after the softmax.
const MASKED: f32 = -1.0e4;

/// What a position's target is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyTargets {
    /// The root's visit shares where the record has them, else the chosen move.
    #[default]
    Shares,
    /// The chosen move alone, over every legal move, even where root statistics exist.
    Chosen,
}

/// The settings of a policy run.
#[derive(Clone, Debug)]
pub struct PolicyConfig {
    /// Datasets of one Dots-and-Boxes size, with root statistics (`engine match --records`,
    /// `selfplay`).
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub hidden: usize,
    pub epochs: usize,
    /// Stop after this many epochs without a better validation loss (0: never).
    pub patience: usize,
    pub batch_size: usize,
    pub learning_rate: f64,
    pub validation_share: f64,
    pub seed: u64,
    /// Positions whose root had fewer visits in all are left out.
    pub min_visits: u32,
    pub targets: PolicyTargets,
}

impl Default for PolicyConfig {
    fn default() -> PolicyConfig {
        PolicyConfig {
            data: Vec::new(),
            out: PathBuf::from("policy"),
            hidden: 100,
            epochs: 40,
            patience: 4,
            batch_size: 256,
            learning_rate: 1e-3,
            validation_share: 0.1,
            seed: 1,
            min_visits: 100,
            targets: PolicyTargets::Shares,
        }
    }
}

impl PolicyConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.data.is_empty() {
            return Err("a policy is trained on at least one dataset: --data DIR".into());
        }
        if self.hidden == 0 || self.epochs == 0 || self.batch_size == 0 {
            return Err("hidden, epochs and batch_size must be positive".into());
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(format!(
                "learning_rate must be positive, got {}",
                self.learning_rate
            ));
        }
        if !(0.0..1.0).contains(&self.validation_share) {
            return Err(format!(
                "validation_share is in [0, 1), got {}",
                self.validation_share
            ));
        }
        Ok(())
    }
}

/// Positions in memory: each a row of inputs, of target shares and of the logit mask.
#[derive(Clone, Debug, Default)]
pub struct PolicyRows {
    pub inputs: usize,
    pub outputs: usize,
    pub features: Vec<f32>,
    pub targets: Vec<f32>,
    pub masks: Vec<f32>,
}

impl PolicyRows {
    pub fn new(board: &DotsAndBoxes) -> PolicyRows {
        PolicyRows {
            inputs: board.feature_len() + 1,
            outputs: board.geometry().num_edges,
            ..PolicyRows::default()
        }
    }

    pub fn len(&self) -> usize {
        self.targets.len() / self.outputs.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Adds a row for each searched position of `game` (from `initial`) whose root had at least
    /// two moves and `min_visits` visits, or, without root statistics (or with
    /// [`PolicyTargets::Chosen`]), with two legal moves or more.
    pub fn add_game(
        &mut self,
        game: &GameRecord,
        initial: DotsAndBoxes,
        min_visits: u32,
        targets: PolicyTargets,
    ) -> Result<(), String> {
        let (inputs, outputs) = (self.inputs, self.outputs);
        let use_shares = targets == PolicyTargets::Shares;
        replay(game, initial, |state, ply, m| {
            let total: u64 = m.root.iter().map(|r| r.visits as u64).sum();
            let shares = use_shares && m.root.len() >= 2 && total >= min_visits as u64;
            // A record without root statistics (a move the solver or a proof chose) still says
            // which move was played: all of the target on it, over every legal move.
            let chosen = (m.root.is_empty() || !use_shares)
                && m.kind == MoveKind::Searched
                && state.edges().count_ones() + 1 < outputs as u32;
            if !shares && !chosen {
                return;
            }
            let start = self.features.len();
            self.features.resize(start + inputs, 0.0);
            let row = &mut self.features[start..];
            state.encode_features(&mut row[..inputs - 1]);
            row[inputs - 1] = if state.to_move() == Player::P1 {
                1.0
            } else {
                0.0
            };
            let start = self.targets.len();
            self.targets.resize(start + outputs, 0.0);
            self.masks.resize(start + outputs, MASKED);
            if shares {
                for r in &m.root {
                    let e = r.action as usize;
                    debug_assert!(e < outputs, "game {} ply {ply}: edge {e}", game.index);
                    self.targets[start + e] = (r.visits as f64 / total as f64) as f32;
                    self.masks[start + e] = 0.0;
                }
            } else {
                let free = !state.edges() & ((1u128 << outputs) - 1);
                for e in (0..outputs).filter(|&e| free >> e & 1 == 1) {
                    self.masks[start + e] = 0.0;
                }
                self.targets[start + m.action as usize] = 1.0;
            }
        })
        .map(|_| ())
        .map_err(|e| format!("game {}: {e}", game.index))
    }

    fn load(
        games: &[GameRef],
        files: &[PathBuf],
        board: &DotsAndBoxes,
        config: &PolicyConfig,
    ) -> Result<PolicyRows, String> {
        let mut rows = PolicyRows::new(board);
        let mut readers = open_readers(files)?;
        for g in games {
            let game = readers[g.file]
                .read_at(g.offset)
                .map_err(|e| e.to_string())?;
            rows.add_game(&game, *board, config.min_visits, config.targets)
                .map_err(|e| format!("{}: {e}", files[g.file].display()))?;
        }
        Ok(rows)
    }

    /// The rows `order[range]`, gathered: (inputs, targets, masks).
    fn gather(&self, picks: &[u32]) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let (i, o) = (self.inputs, self.outputs);
        let mut x = Vec::with_capacity(picks.len() * i);
        let mut t = Vec::with_capacity(picks.len() * o);
        let mut m = Vec::with_capacity(picks.len() * o);
        for &r in picks {
            let r = r as usize;
            x.extend_from_slice(&self.features[r * i..(r + 1) * i]);
            t.extend_from_slice(&self.targets[r * o..(r + 1) * o]);
            m.extend_from_slice(&self.masks[r * o..(r + 1) * o]);
        }
        (x, t, m)
    }
}

/// What one epoch measured.
#[derive(Clone, Debug)]
pub struct PolicyEpoch {
    pub epoch: usize,
    pub train_loss: f64,
    pub valid_loss: f64,
    /// How often the net's favourite move is the search's most visited one (validation).
    pub valid_top1: f64,
    pub seconds: f64,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct PolicySummary {
    pub model: PathBuf,
    pub train_positions: usize,
    pub valid_positions: usize,
    /// The share of validation positions whose most visited move a uniform guess names.
    pub uniform_top1: f64,
    /// The validation loss of a uniform guess over each position's moves.
    pub uniform_loss: f64,
    pub best: PolicyEpoch,
    pub epochs_run: usize,
}

fn tensor(rows: Vec<f32>, width: usize, device: &Device) -> Tensor<2> {
    input_tensor(&rows, width, device)
}

/// Cross-entropy of the masked softmax against the target shares, per row summed, batch mean.
fn policy_loss(logits: Tensor<2>, masks: Tensor<2>, targets: Tensor<2>) -> Tensor<1> {
    let logp = log_softmax(logits + masks, 1);
    (targets * logp).sum_dim(1).mean().neg()
}

/// Index of the largest value of each `width`-long row.
fn row_argmax(values: &[f32], width: usize) -> impl Iterator<Item = usize> + '_ {
    values.chunks_exact(width).map(|row| {
        row.iter()
            .enumerate()
            .fold((0, f32::MIN), |b, (k, &v)| if v > b.1 { (k, v) } else { b })
            .0
    })
}

/// Trains a policy net and writes the best one (by validation loss) to `out/model.safetensors`,
/// with `out/metrics.csv`.
pub fn train_policy(
    config: &PolicyConfig,
    verbose: bool,
    command: &str,
) -> Result<PolicySummary, String> {
    config.validate()?;
    let say = |text: String| {
        if verbose {
            eprintln!("train policy: {text}");
        }
    };
    let index = DataIndex::build(&config.data, config.validation_share, config.seed)?;
    if index.spec.name() != "dots_and_boxes" {
        return Err(format!(
            "policy nets are for dots_and_boxes, {} holds {}",
            index.dirs_text(),
            index.spec
        ));
    }
    let board: DotsAndBoxes = index.spec.start()?;
    let start = Instant::now();
    let train = PolicyRows::load(&index.train, &index.files, &board, config)?;
    let valid = PolicyRows::load(&index.valid, &index.files, &board, config)?;
    if train.is_empty() {
        return Err(format!(
            "{}: no searched position with at least {} root visits (records of engine match \
             --records or selfplay carry them)",
            index.dirs_text(),
            config.min_visits
        ));
    }
    // A uniform guess over each position's moves: how often it names the most visited one,
    // and its cross-entropy (ln of the number of moves).
    let (uniform_top1, uniform_loss) = {
        let (mut top1, mut loss) = (0.0, 0.0);
        for (r, best) in row_argmax(&valid.targets, valid.outputs).enumerate() {
            let row = &valid.masks[r * valid.outputs..(r + 1) * valid.outputs];
            let moves = row.iter().filter(|&&m| m == 0.0).count();
            let target = &valid.targets[r * valid.outputs..(r + 1) * valid.outputs];
            let ties = target.iter().filter(|&&t| t == target[best]).count();
            top1 += ties as f64 / moves as f64;
            loss += (moves as f64).ln();
        }
        let n = valid.len().max(1) as f64;
        (top1 / n, loss / n)
    };
    say(format!(
        "{}: {} positions for training, {} for validation ({} games), read in {:.1}s",
        index.dirs_text(),
        train.len(),
        valid.len(),
        index.train.len() + index.valid.len(),
        start.elapsed().as_secs_f64()
    ));
    engine::cli::create_out_dir("--out", &config.out)?;
    let device = Device::flex().autodiff();
    let plain = device.clone().without_autodiff();
    let (inputs, outputs) = (train.inputs, train.outputs);
    let mut net = Some(Net::with_outputs(
        inputs,
        config.hidden,
        outputs,
        config.seed,
        &device,
    ));
    let mut optim = AdamConfig::new().init();
    let mut history: Vec<PolicyEpoch> = Vec::new();
    let mut best: Option<PolicyEpoch> = None;
    let mut bad_epochs = 0;
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    say("epoch  train loss  valid loss  valid top-1  seconds".into());
    for epoch in 1..=config.epochs {
        let t0 = Instant::now();
        let mut rng = Rng::new(derive_seed(config.seed, epoch as u64));
        rng.shuffle(&mut order);
        let mut loss_sum = 0.0;
        for picks in order.chunks(config.batch_size) {
            let model = net.take().expect("the net is there between batches");
            let (x, t, m) = train.gather(picks);
            let logits = model.logits(tensor(x, inputs, &device));
            let loss = policy_loss(
                logits,
                tensor(m, outputs, &device),
                tensor(t, outputs, &device),
            );
            let value: f32 = loss.clone().into_scalar();
            loss_sum += value as f64 * picks.len() as f64;
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            net = Some(optim.step(config.learning_rate, model, grads));
        }
        let model = net.as_ref().expect("the net is there");
        let valid_model = model.valid();
        let (mut valid_loss, mut agree) = (0.0, 0usize);
        let all: Vec<u32> = (0..valid.len() as u32).collect();
        for picks in all.chunks(4096) {
            let (x, t, m) = valid.gather(picks);
            let masked = valid_model.logits(tensor(x, inputs, &plain)) + tensor(m, outputs, &plain);
            let logits: Vec<f32> = masked
                .clone()
                .into_data()
                .try_to_vec()
                .map_err(|e| format!("{e:?}"))?;
            let logp = log_softmax(masked, 1);
            let loss: f32 = (tensor(t.clone(), outputs, &plain) * logp)
                .sum_dim(1)
                .mean()
                .neg()
                .into_scalar();
            valid_loss += loss as f64 * picks.len() as f64;
            agree += row_argmax(&logits, outputs)
                .zip(row_argmax(&t, outputs))
                .filter(|(a, b)| a == b)
                .count();
        }
        let n_valid = valid.len().max(1) as f64;
        let metrics = PolicyEpoch {
            epoch,
            train_loss: loss_sum / train.len() as f64,
            valid_loss: if valid.is_empty() {
                f64::NAN
            } else {
                valid_loss / n_valid
            },
            valid_top1: agree as f64 / n_valid,
            seconds: t0.elapsed().as_secs_f64(),
        };
        say(format!(
            "{:>5}  {:>10.5}  {:>10.5}  {:>10.2}%  {:>7.1}",
            epoch,
            metrics.train_loss,
            metrics.valid_loss,
            100.0 * metrics.valid_top1,
            metrics.seconds
        ));
        let watched = |m: &PolicyEpoch| {
            if valid.is_empty() {
                m.train_loss
            } else {
                m.valid_loss
            }
        };
        history.push(metrics.clone());
        if best.as_ref().is_none_or(|b| watched(&metrics) < watched(b)) {
            bad_epochs = 0;
            let mut extra = std::collections::BTreeMap::new();
            extra.insert("kind".to_string(), "policy".to_string());
            extra.insert("dataset".to_string(), index.dirs_text());
            extra.insert("epoch".to_string(), epoch.to_string());
            extra.insert(
                "valid_loss".to_string(),
                format!("{:.5}", metrics.valid_loss),
            );
            extra.insert(
                "valid_top1".to_string(),
                format!("{:.4}", metrics.valid_top1),
            );
            extra.insert("train_positions".to_string(), train.len().to_string());
            extra.insert("command".to_string(), command.to_string());
            let meta = ModelMeta {
                game: index.spec,
                encoding: DAB_ENCODING_TO_MOVE.to_string(),
                inputs,
                hidden: config.hidden,
                extra,
            };
            model
                .to_policy_net(meta)
                .save(&config.out.join(MODEL_FILE))
                .map_err(|e| e.to_string())?;
            best = Some(metrics);
        } else {
            bad_epochs += 1;
        }
        write_metrics(&config.out.join("metrics.csv"), &history)?;
        if config.patience > 0 && bad_epochs >= config.patience {
            say(format!(
                "early stop: no better validation loss for {} epochs",
                config.patience
            ));
            break;
        }
    }
    Ok(PolicySummary {
        model: config.out.join(MODEL_FILE),
        train_positions: train.len(),
        valid_positions: valid.len(),
        uniform_top1,
        uniform_loss,
        best: best.expect("at least one epoch ran"),
        epochs_run: history.len(),
    })
}

fn write_metrics(path: &Path, history: &[PolicyEpoch]) -> Result<(), String> {
    let mut text = String::from("epoch,train_loss,valid_loss,valid_top1,seconds\n");
    for m in history {
        text += &format!(
            "{},{:.6},{:.6},{:.6},{:.2}\n",
            m.epoch, m.train_loss, m.valid_loss, m.valid_top1, m.seconds
        );
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
