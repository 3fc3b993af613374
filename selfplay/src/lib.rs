//! Self-play datasets: plain MCTS plays games against itself (the Dots-and-Boxes paper's
//! section 5.2), many at once, appended crash-safely to a dataset that `train` reads through
//! `engine::record`.
//!
//! * [`config`]: the run's settings (TOML file, flags override).
//! * [`play`]: one game, every move chosen by search.
//! * [`run`]: parallel games, resume, manifest, progress and summary.
//! * [`shard`]: splitting a run over machines (flags, Slurm, Kubernetes).
//! * [`merge`], [`stats`], [`export`]: tools around a dataset.

pub mod config;
pub mod export;
pub mod merge;
pub mod play;
pub mod run;
pub mod shard;
pub mod stats;
