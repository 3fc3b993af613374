//! `tune`: evaluation weights tuned by a parallel island genetic algorithm, after Qiu et al.,
//! "Optimizing the evaluation parameters of Amazon chess with parallel genetic algorithm"
//! (`amazons-parallel-ga.txt`). The games' weight sets come from [`engine::tuning`]; this crate
//! knows no game.

pub mod config;
pub mod final_match;
pub mod genome;
pub mod island;
pub mod report;
pub mod run;
