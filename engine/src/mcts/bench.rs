//! What `engine bench` measures of any game: MCTS iterations a second from a position on one
//! thread and on several, and bare random games to the end. A game adds its own figures (and
//! its own printout) in its folder.

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use super::{Budget, RolloutPolicy, Search, SearchConfig, TreePolicy};
use crate::game::Game;
use crate::rng::Rng;

/// What `engine bench` is asked to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Iterations of one search, per thread.
    pub iterations: u64,
    /// Threads for the several-thread figures.
    pub threads: usize,
    /// Searches per figure; a figure is their total iterations over their total time.
    pub repeats: usize,
    pub seed: u64,
    /// A value net to measure too (for games that have nets).
    pub model: Option<PathBuf>,
    /// With `model`: a rollout stops once the net's largest output reaches this.
    pub threshold: f64,
    /// With `model`: the net is asked only from this many moves played on.
    pub net_from_move: u32,
    /// No progress lines on standard error.
    pub quiet: bool,
    /// The game's own report, where it has one (what `engine bench` prints with no game named:
    /// the paper's 5x5 Dots-and-Boxes figures); otherwise its figures.
    pub report: bool,
}

impl BenchOptions {
    /// Refuses a `--model` for `game`, which has no value net to measure.
    pub fn no_model(&self, game: &str) -> Result<(), String> {
        match self.model {
            Some(_) => Err(format!("{game} has no value net to measure")),
            None => Ok(()),
        }
    }
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            iterations: 100_000,
            threads: crate::cli::cores(),
            repeats: 10,
            seed: 1,
            model: None,
            threshold: 0.9,
            net_from_move: 0,
            quiet: false,
            report: false,
        }
    }
}

/// One figure of a game's benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
}

impl Figure {
    pub fn new(name: impl Into<String>, value: f64, unit: &'static str) -> Figure {
        Figure {
            name: name.into(),
            value,
            unit,
        }
    }
}

/// What a game's benchmark gives `engine bench`: its figures, and where the game has one, its
/// own report (printed for the game's default benchmark instead of the figures' table).
#[derive(Clone, Debug)]
pub struct BenchOutput {
    pub figures: Vec<Figure>,
    /// The report as text and as JSON (`engine bench --json`).
    pub report: Option<(String, serde_json::Value)>,
}

impl BenchOutput {
    /// Figures only.
    pub fn figures(figures: Vec<Figure>) -> BenchOutput {
        BenchOutput {
            figures,
            report: None,
        }
    }
}

/// `engine bench` for any game: MCTS with the game's own rollout from the start position on
/// one thread and on `threads`, and bare random games to the end.
pub fn generic_figures<G: Game, R: RolloutPolicy<G> + Default>(
    start: &G,
    opts: &BenchOptions,
) -> Vec<Figure> {
    let mut out = mcts_figures("MCTS from the start", start, opts, |config| {
        let cp = config.cp;
        Search::new(config, super::Ucb::new(cp), R::default())
    });
    out.push(random_games_figure(
        "random games to the end, 1 thread",
        start,
        opts,
        1000,
    ));
    out
}

/// `games` random rollouts from `start` (the game's own `random_rollout`) on one thread, as
/// games a second.
pub fn random_games_figure<G: Game>(
    label: &str,
    start: &G,
    opts: &BenchOptions,
    games: u32,
) -> Figure {
    let mut rng = Rng::new(opts.seed);
    // A tenth as many first, untimed: the caches and the clock settle.
    for _ in 0..games / 10 {
        start.clone().random_rollout(&mut rng);
    }
    let begin = Instant::now();
    for _ in 0..games {
        start.clone().random_rollout(&mut rng);
    }
    Figure::new(
        label,
        f64::from(games) / begin.elapsed().as_secs_f64(),
        "games/s",
    )
}

/// `LABEL, N thread(s)` in iterations a second, on one thread and on
/// `opts.threads` when more: `repeats` searches of `iterations` a thread, each from a fresh
/// tree, made by `make` from the figure's config.
pub fn mcts_figures<G: Game, T: TreePolicy, R: RolloutPolicy<G>>(
    label: &str,
    start: &G,
    opts: &BenchOptions,
    make: impl Fn(SearchConfig) -> Search<G, T, R>,
) -> Vec<Figure> {
    let mut counts = vec![1];
    if opts.threads > 1 {
        counts.push(opts.threads);
    }
    counts
        .into_iter()
        .map(|threads| {
            let mut search = make(SearchConfig {
                budget: Budget::iterations(opts.iterations * threads as u64),
                threads,
                seed: opts.seed,
                ..SearchConfig::default()
            });
            let begin = Instant::now();
            let mut iterations = 0;
            for _ in 0..opts.repeats.max(1) {
                iterations += search.run(start).map_or(0, |r| r.iterations);
            }
            Figure::new(
                format!(
                    "{label}, {threads} thread{}",
                    if threads == 1 { "" } else { "s" }
                ),
                iterations as f64 / begin.elapsed().as_secs_f64(),
                "iterations/s",
            )
        })
        .collect()
}
