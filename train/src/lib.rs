//! Fits the Dots-and-Boxes paper's value net (85 inputs, 100 sigmoid hidden units, 3 sigmoid
//! outputs) to a `selfplay` dataset with burn, on CPU (flex or ndarray) or GPU (wgpu, feature
//! `gpu`), and exports it to the engine's burn-free safetensors format.
//!
//! * [`config`]: the run's settings (TOML file, flags override).
//! * [`data`]: positions read through `engine::record`, split by game, shuffled batches.
//! * [`model`]: the net in burn and its conversion to `engine::nn::ValueNet`.
//! * [`trainer`]: the loop, checkpoints, resume, early stopping, export.
//! * [`pattern`]: `train pattern`, the Gomoku pattern net (`pvs`'s learned evaluation).
//! * [`metrics`], [`card`]: what each epoch measured, `metrics.csv`, the curves, the card.

pub mod card;
pub mod config;
pub mod data;
pub mod metrics;
pub mod model;
pub mod pattern;
pub mod row_cache;
pub mod sparse;
pub mod trainer;
