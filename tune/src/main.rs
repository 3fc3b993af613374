//! The `tune` binary: `tune run` tunes a game's evaluation weights.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use selfplay::shard::{resolve_shard, ShardSource};
use tune::config::{Encoding, TuneConfig};
use tune::run::RunOptions;

#[derive(Parser)]
#[command(
    name = "tune",
    version,
    about = "Evaluation weights tuned by a parallel island genetic algorithm"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evolve weights (resumable, islands on all cores or as shards on many machines).
    Run(Box<RunArgs>),
}

#[derive(Args)]
struct RunArgs {
    /// A starting point: `default` (about 12 minutes on two cores) or `paper` (120
    /// individuals, 100 generations). A --config file replaces it; flags override either.
    #[arg(long)]
    preset: Option<String>,
    /// TOML config (see configs/tune-amazons.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Continue the run in the output folder from its checkpoints.
    #[arg(long)]
    resume: bool,
    /// Run only the islands i, i + n, ... of n shards (also from Slurm or Kubernetes variables).
    #[arg(long, value_name = "i/n")]
    shard: Option<String>,
    /// Shard count for a Kubernetes indexed Job (the index is JOB_COMPLETION_INDEX).
    #[arg(long)]
    shards: Option<u32>,
    /// No progress bar and no per-generation lines.
    #[arg(long)]
    quiet: bool,
    /// Stop after this many generations (resume later with --resume).
    #[arg(long)]
    stop_after: Option<usize>,
    /// A game with a weight set to tune [default: amazons; gomoku and surakarta have one too].
    #[arg(long)]
    game: Option<String>,
    /// The game's weight set [default: the game's first: phases for Amazons; w-segments is the GA paper's].
    #[arg(long)]
    set: Option<String>,
    /// The fitness player of a group game [default: greedy, the evaluation after one turn].
    #[arg(long)]
    player: Option<String>,
    /// Islands: sub-populations that evolve apart and trade migrants [default: 2].
    #[arg(long)]
    islands: Option<usize>,
    /// Individuals on each island, a multiple of --group-size [default: 32].
    #[arg(long)]
    population: Option<usize>,
    /// Individuals in a tournament group; every pair plays both colours [default: 4].
    #[arg(long)]
    group_size: Option<usize>,
    /// Generations to evolve [default: 80].
    #[arg(long)]
    generations: Option<usize>,
    /// How a genome codes the weights [default: binary, the paper's].
    #[arg(long, value_enum)]
    encoding: Option<Encoding>,
    /// Bits a weight with the binary encoding [default: 7, the paper's].
    #[arg(long)]
    bits: Option<u32>,
    /// The lowest value of every weight [default: 0].
    #[arg(long)]
    min: Option<f32>,
    /// The highest value of every weight [default: 1].
    #[arg(long)]
    max: Option<f32>,
    /// Crossover probability at or below the mean fitness (Formula 5) [default: 0.9].
    #[arg(long)]
    pc1: Option<f64>,
    /// Crossover probability at the best fitness [default: 0.6].
    #[arg(long)]
    pc2: Option<f64>,
    /// Mutation probability at or below the mean fitness, per bit or weight (Formula 6) [default: 0.1].
    #[arg(long)]
    pm1: Option<f64>,
    /// Mutation probability at the best fitness [default: 0.001].
    #[arg(long)]
    pm2: Option<f64>,
    /// A real-coded mutation's standard deviation, as a share of the range [default: 0.1].
    #[arg(long)]
    sigma: Option<f32>,
    /// Generations between two migrations [default: 5].
    #[arg(long)]
    migration_interval: Option<usize>,
    /// Individuals each island sends every other island at a migration, its best [default: 2].
    #[arg(long)]
    migrants: Option<usize>,
    /// Seconds an island waits for the others' migrants before going on [default: 600].
    #[arg(long)]
    migration_timeout_s: Option<u64>,
    /// Games the best of each island plays against the starting weights each generation (0: off) [default: 16].
    #[arg(long)]
    yardstick_games: Option<usize>,
    /// Games played at once (0: one a core, at most 256) [default: 0]. `--threads` is its old
    /// spelling.
    #[arg(long, alias = "threads", value_parser = engine::cli::parse_threads)]
    parallel_games: Option<usize>,
    /// The seed of the run [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// The run folder: checkpoints, migrants, fitness.csv, the best weights [default: runs/tune].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Games of the final match, tuned against starting weights, seats swapped (0: none) [default: 20].
    #[arg(long)]
    final_games: Option<usize>,
    /// Milliseconds a move in the final match [default: 100].
    #[arg(long)]
    final_time_ms: Option<u64>,
}

/// Sets each field whose flag was given.
macro_rules! override_fields {
    ($config:ident, $args:ident, $($field:ident),* $(,)?) => {
        $(if let Some(v) = $args.$field.clone() { $config.$field = v; })*
    };
}

fn config_of(args: &RunArgs) -> Result<TuneConfig, String> {
    let mut config = match (&args.config, &args.preset) {
        (Some(_), Some(_)) => return Err("give --config or --preset, not both".into()),
        (Some(path), None) => TuneConfig::from_file(path)?,
        (None, Some(name)) => TuneConfig::preset(name)?,
        (None, None) => TuneConfig::default(),
    };
    let base_game = config.game.clone();
    override_fields!(
        config,
        args,
        game,
        set,
        player,
        islands,
        population,
        group_size,
        generations,
        encoding,
        bits,
        min,
        max,
        pc1,
        pc2,
        pm1,
        pm2,
        sigma,
        migration_interval,
        migrants,
        migration_timeout_s,
        yardstick_games,
        parallel_games,
        seed,
        out,
        final_games,
        final_time_ms,
    );
    // Another game than the base's: its own first weight set and fitness player, unless given.
    if config.game != base_game {
        let tunable = engine::registry::tunable(&config.game, None)?;
        if args.set.is_none() {
            config.set = tunable.set().to_string();
        }
        if args.player.is_none() {
            config.player = tunable.players()[0].to_string();
        }
    }
    if args.shards.is_some() {
        config.shards = args.shards;
    }
    config.validate().map_err(|e| match &args.config {
        Some(path) => format!("config {}: {e}", path.display()),
        None => e,
    })?;
    Ok(config)
}

fn run(args: &RunArgs) -> Result<(), String> {
    let config = config_of(args)?;
    let (shard, source) = resolve_shard(args.shard.as_deref(), config.shards, |name| {
        std::env::var(name).ok()
    })?;
    if !args.quiet && source != ShardSource::Single {
        eprintln!(
            "tune: shard {}/{}: islands i with i % {} == {}",
            shard.index, shard.count, shard.count, shard.index
        );
    }
    let summary = tune::run::run(&RunOptions {
        config: config.clone(),
        shard,
        resume: args.resume,
        quiet: args.quiet,
        stop_after: args.stop_after,
        shard_from: match source {
            ShardSource::Slurm => Some("Slurm"),
            ShardSource::Kubernetes => Some("Kubernetes"),
            ShardSource::Flag | ShardSource::Single => None,
        },
    })?;
    println!(
        "{}, {} in {:.0} s ({:.1} games/s); run folder {}",
        engine::cli::count(summary.generations as u64, "generation"),
        engine::cli::count(summary.games as u64, "game"),
        summary.seconds,
        summary.games as f64 / summary.seconds.max(1e-9),
        config.out.display()
    );
    if let Some(best) = &summary.best {
        println!("best weights: {} (table: best-weights.md)", best.display());
    }
    if let Some(table) = &summary.final_match {
        print!("tuned (A) against the starting weights (B):\n{table}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli: Cli = engine::cli::parse_args();
    let result = match &cli.command {
        Command::Run(args) => run(args),
    };
    engine::cli::finish("tune", result)
}
