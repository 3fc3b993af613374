//! The settings of a training run: a TOML file from `configs/`, any key overridden by a flag.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Loss {
    /// Binary cross-entropy of each sigmoid output against the one-hot outcome.
    Bce,
    /// Mean squared error of the sigmoid outputs against the one-hot outcome.
    Mse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Optimiser {
    Adam,
    Sgd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// burn's CPU backend chosen by `cpu_backend`.
    Cpu,
    /// burn-wgpu (a build with `--features gpu`).
    Gpu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum CpuBackend {
    /// burn-flex, pure Rust (burn 0.22's recommended CPU backend).
    Flex,
    /// burn-ndarray (deprecated in burn 0.22, kept for comparison).
    Ndarray,
}

/// What the net reads (Dots and Boxes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// The paper's Table 2 grid (85 inputs on 5x5).
    #[default]
    Table2,
    /// The grid and the player to move (86 on 5x5), not in the paper.
    Table2ToMove,
}

/// What a position is labelled with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ValueTargets {
    /// Every position before a move, labelled with the game's outcome (the paper's).
    #[default]
    Outcome,
    /// The positions after each root move of every recorded search with at least `min_visits`
    /// visits, labelled with the search's mean result through that move (a soft target:
    /// P(P1 wins) = (1 + mean) / 2), so the net learns
    /// what a search would say of a move rather than who went on to win the game.
    Search,
}

/// Every setting of `train run`. Keys of the TOML file are these field names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Dataset folder written by `selfplay`.
    pub data: PathBuf,
    /// More datasets of the same game trained on with `data` (earlier generations, say).
    pub extra_data: Vec<PathBuf>,
    /// Hidden units (the paper: 100).
    pub hidden: usize,
    /// The input encoding (Dots and Boxes): `table2` (the paper's) or `table2-to-move`.
    pub encoding: Encoding,
    pub loss: Loss,
    pub optimiser: Optimiser,
    pub learning_rate: f64,
    /// SGD momentum (ignored by Adam).
    pub momentum: f64,
    pub batch_size: usize,
    pub epochs: usize,
    /// Share of games (not positions) held out for validation.
    pub validation_share: f64,
    pub seed: u64,
    /// Folder for the model, its card, metrics.csv, the curves and checkpoints.
    pub out: PathBuf,
    pub backend: Backend,
    pub cpu_backend: CpuBackend,
    /// Stop after this many epochs without a better validation loss (0: never stop early).
    pub patience: usize,
    /// The paper's cut-off: a prediction counts as sure when its largest output reaches this.
    pub threshold: f64,
    /// Positions held in memory. A dataset that fits is encoded once and reshuffled every
    /// epoch; a larger one is streamed in shuffled games through a buffer of this size.
    pub memory_positions: usize,
    /// The labels: game outcomes (the paper's) or the recorded searches' values.
    pub value_targets: ValueTargets,
    /// With `value_targets = search`: root moves with fewer visits are left out (their means
    /// are too noisy to learn from).
    pub min_visits: u32,
    /// Dots and Boxes: each training game is learnt in every mirror and rotation of its board
    /// too (8 images on a square board, 4 on another); validation keeps the games as played.
    pub symmetries: bool,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            data: PathBuf::from("data/selfplay-5x5"),
            extra_data: Vec::new(),
            hidden: 100,
            encoding: Encoding::Table2,
            loss: Loss::Bce,
            optimiser: Optimiser::Adam,
            learning_rate: 1e-3,
            momentum: 0.9,
            batch_size: 256,
            epochs: 30,
            validation_share: 0.1,
            seed: 1,
            // None given: a fresh folder under runs/ (`trainer::output_folder`).
            out: PathBuf::new(),
            backend: Backend::Cpu,
            cpu_backend: CpuBackend::Flex,
            patience: 5,
            threshold: 0.9,
            memory_positions: 2_000_000,
            value_targets: ValueTargets::Outcome,
            min_visits: 100,
            symmetries: false,
        }
    }
}

impl TrainConfig {
    pub fn from_file(path: &Path) -> Result<TrainConfig, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        toml::from_str(&text)
            .map_err(|e| format!("config {}: {}", path.display(), e.to_string().trim_end()))
    }

    /// `data` and then `extra_data`.
    pub fn datasets(&self) -> Vec<PathBuf> {
        std::iter::once(self.data.clone())
            .chain(self.extra_data.iter().cloned())
            .collect()
    }

    pub fn validate(&self) -> Result<(), String> {
        for (key, v) in [
            ("hidden", self.hidden),
            ("batch_size", self.batch_size),
            ("epochs", self.epochs),
            ("memory_positions", self.memory_positions),
        ] {
            if v == 0 {
                return Err(format!("{key} must be at least 1"));
            }
        }
        if !(self.learning_rate > 0.0 && self.learning_rate.is_finite()) {
            return Err(format!(
                "learning_rate must be > 0, not {}",
                self.learning_rate
            ));
        }
        if !(0.0..1.0).contains(&self.validation_share) {
            return Err(format!(
                "validation_share must be in [0, 1), not {}",
                self.validation_share
            ));
        }
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(format!(
                "threshold must be in [0, 1], not {}",
                self.threshold
            ));
        }
        if self.memory_positions < self.batch_size {
            return Err("memory_positions must be at least batch_size".into());
        }
        Ok(())
    }
}
