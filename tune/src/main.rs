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
    #[arg(long)]
    game: Option<String>,
    #[arg(long)]
    set: Option<String>,
    #[arg(long)]
    player: Option<String>,
    #[arg(long)]
    islands: Option<usize>,
    #[arg(long)]
    population: Option<usize>,
    #[arg(long)]
    group_size: Option<usize>,
    #[arg(long)]
    generations: Option<usize>,
    #[arg(long, value_enum)]
    encoding: Option<Encoding>,
    #[arg(long)]
    bits: Option<u32>,
    #[arg(long)]
    min: Option<f32>,
    #[arg(long)]
    max: Option<f32>,
    #[arg(long)]
    pc1: Option<f64>,
    #[arg(long)]
    pc2: Option<f64>,
    #[arg(long)]
    pm1: Option<f64>,
    #[arg(long)]
    pm2: Option<f64>,
    #[arg(long)]
    sigma: Option<f32>,
    #[arg(long)]
    migration_interval: Option<usize>,
    #[arg(long)]
    migrants: Option<usize>,
    #[arg(long)]
    migration_timeout_s: Option<u64>,
    #[arg(long)]
    yardstick_games: Option<usize>,
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long)]
    out: Option<PathBuf>,
    #[arg(long)]
    final_games: Option<usize>,
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
        threads,
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
    })?;
    println!(
        "{} generations, {} games in {:.0} s ({:.1} games/s); run folder {}",
        summary.generations,
        summary.games,
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
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Run(args) => run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tune: {e}");
            ExitCode::FAILURE
        }
    }
}
