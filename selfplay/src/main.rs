//! The `selfplay` binary: run, merge, stats, export.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use engine::record::{Manifest, MANIFEST_FILE};
use selfplay::config::{Counter, RunConfig};
use selfplay::run::{dataset_dir, Progress, RunOptions};
use selfplay::shard::{resolve_shard, ShardSource};

#[derive(Parser)]
#[command(
    name = "selfplay",
    version,
    about = "Self-play datasets from plain MCTS or any player"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play games and append them to a dataset (resumable, shardable).
    Run(Box<RunArgs>),
    /// Join datasets of one config (the shards of a run) into a new one.
    Merge(MergeArgs),
    /// Counts, results, margins, lengths and duplicates of a dataset.
    Stats(StatsArgs),
    /// Write a dataset's positions as NumPy arrays.
    Export(ExportArgs),
}

#[derive(Args)]
struct RunArgs {
    /// TOML config (see configs/); flags override its keys. Without it, built-in defaults:
    /// 5x5 Dots and Boxes, 1,000 games, 100,000 iterations a move, all cores.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Continue the dataset in the output folder (or start it if there is none). Without
    /// --config the run's settings are the dataset's own, read from its manifest, so that
    /// `--resume --out DIR` alone continues it; a flag that differs from them is refused.
    #[arg(long)]
    resume: bool,
    /// Play only shard i of n (games with index % n == i). Read from Slurm or Kubernetes
    /// variables when not given.
    #[arg(long, value_name = "i/n")]
    shard: Option<String>,
    /// Shard count for a Kubernetes indexed Job (the index is JOB_COMPLETION_INDEX).
    #[arg(long)]
    shards: Option<u32>,
    /// The game (engine games lists them) [default: dots_and_boxes].
    #[arg(long)]
    game: Option<String>,
    /// Dots and Boxes: rows of boxes [default: 5].
    #[arg(long)]
    rows: Option<usize>,
    /// Dots and Boxes: columns of boxes [default: 5].
    #[arg(long)]
    cols: Option<usize>,
    /// A game parameter as key=value, repeatable (Amazons: --param size=8).
    #[arg(long = "param", short = 'p')]
    param: Vec<String>,
    /// Games in the whole run (over all shards).
    #[arg(long)]
    games: Option<u64>,
    /// MCTS iterations for every searched move.
    #[arg(long)]
    iterations: Option<u64>,
    /// UCB's exploration constant [default: 1.414, the paper's sqrt 2].
    #[arg(long)]
    cp: Option<f64>,
    /// double: each node read from its mover's view; single: the paper's first version [default: double].
    #[arg(long, value_enum)]
    counter: Option<Counter>,
    /// Games played at once (0: one a core, at most 256; in a Slurm task one a CPU of
    /// SLURM_CPUS_PER_TASK) [default: 0]. `--threads` is its old spelling.
    #[arg(long, alias = "threads", value_parser = engine::cli::parse_threads)]
    parallel_games: Option<usize>,
    /// Threads inside each game's search (root parallel), 1 to 256 [default: 1].
    #[arg(long, value_parser = engine::cli::parse_threads)]
    search_threads: Option<usize>,
    /// The seed of the run: game k is seeded from it and k [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// Output folder (a folder holding another dataset is refused; --resume continues one)
    /// [default: data/selfplay-5x5].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Draw the first K searched moves in proportion to root visits (variety).
    #[arg(long, value_name = "K")]
    sample_moves: Option<u32>,
    /// Play the first K moves uniformly at random, unsearched (variety).
    #[arg(long, value_name = "K")]
    random_opening_moves: Option<u32>,
    /// Dots and Boxes: the exact solver plays both sides once this many edges or fewer are
    /// free (perfect endgames, so late positions are labelled with their perfect-play result).
    #[arg(long, value_name = "N")]
    solver_edges: Option<u32>,
    /// Do not keep root statistics with each move (smaller files).
    #[arg(long)]
    no_root_stats: bool,
    /// A player for both sides instead of the built-in plain search: any spec `engine match`
    /// takes (for example nn:iterations=30000), its root statistics kept with each move (the
    /// data of `train run --value-targets search`). The spec then sets iterations, cp and the
    /// rest of the search.
    #[arg(long, value_name = "SPEC")]
    player: Option<String>,
    /// Force records to disk after this many games.
    #[arg(long)]
    sync_every: Option<u32>,
    /// Seconds between progress lines when stderr is not a terminal.
    #[arg(long, default_value_t = 60)]
    log_every: u64,
    /// No progress output (errors and the summary line only).
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct MergeArgs {
    /// Dataset folders to join (for example data/run/shard-*).
    #[arg(required = true)]
    sources: Vec<PathBuf>,
    /// New dataset folder.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
struct StatsArgs {
    /// The dataset folder (with its manifest.json).
    dir: PathBuf,
    /// One JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    Npy,
}

#[derive(Args)]
struct ExportArgs {
    /// The dataset folder (with its manifest.json).
    dir: PathBuf,
    /// The format of the arrays: npy (NumPy, one file an array).
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// Folder that receives the arrays.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite arrays already in --out (without it they are refused).
    #[arg(long)]
    force: bool,
}

fn main() -> ExitCode {
    let result = match engine::cli::parse_args::<Cli>().command {
        Command::Run(args) => run(*args),
        Command::Merge(args) => merge(args),
        Command::Stats(args) => stats(args),
        Command::Export(args) => export(args),
    };
    engine::cli::finish("selfplay", result)
}

fn run(args: RunArgs) -> Result<(), String> {
    let mut config = match &args.config {
        Some(path) => RunConfig::from_file(path)?,
        None => RunConfig::default(),
    };
    apply_flags(&mut config, &args);
    let (shard, source) = resolve_shard(args.shard.as_deref(), config.shards, |name| {
        std::env::var(name).ok()
    })?;
    // A shard count other than that of the shard folders already in --out is refused before
    // anything is read or written: with the Slurm variables, the usual cause is a task rerun
    // as an array of its own.
    selfplay::shard::check_shard_folders(&config.out, shard).map_err(|e| match source {
        ShardSource::Slurm => format!(
            "{e}.\nThe shard came from the Slurm array variables (SLURM_ARRAY_TASK_COUNT={}): \
             `sbatch --array=ID job.sbatch` submits a new array of its own, not task ID of \
             the first array",
            shard.count
        ),
        _ => e,
    })?;
    // A resume without a config file continues the dataset's own settings, from its manifest,
    // with the flags given on top (`-p size=9` of a Gomoku dataset needs no --game): one that
    // differs from the dataset's is refused by the run with the differences, as ever.
    if args.resume && args.config.is_none() {
        let dir = dataset_dir(&config.out, shard);
        if dir.join(MANIFEST_FILE).is_file() {
            let manifest = Manifest::read(&dir).map_err(|e| e.to_string())?;
            // This shard's planned games are exactly those of a run of planned x count games.
            let games = manifest.games_planned * u64::from(shard.count);
            config = config
                .resumed_from(&manifest.config, games)
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            apply_flags(&mut config, &args);
        }
    }
    // Inside a Slurm task, one game a core counts the task's CPUs: a cluster that does not bind
    // CPUs shows a task the whole node, and each of its cores would run several games.
    let slurm_cpus = if config.parallel_games == 0 {
        selfplay::config::slurm_cpus(|name| std::env::var(name).ok())?
    } else {
        None
    };
    if let Some(cpus) = slurm_cpus {
        config.parallel_games = (cpus / config.search_threads.max(1)).max(1);
    }
    config.validate().map_err(|e| match &args.config {
        Some(path) => format!("config {}: {e}", path.display()),
        None => e,
    })?;
    let progress = if args.quiet {
        Progress::Quiet
    } else {
        Progress::Auto {
            log_every: Duration::from_secs(args.log_every.max(1)),
        }
    };
    if !args.quiet && source != ShardSource::Single {
        eprintln!(
            "selfplay: shard {}/{} (from {})",
            shard.index,
            shard.count,
            match source {
                ShardSource::Flag => "--shard",
                ShardSource::Slurm => "the Slurm array variables",
                ShardSource::Kubernetes => "JOB_COMPLETION_INDEX",
                ShardSource::Single => "",
            }
        );
    }
    if let (Some(cpus), false) = (slurm_cpus, args.quiet) {
        eprintln!(
            "selfplay: {} games at once (SLURM_CPUS_PER_TASK={cpus}; --parallel-games overrides)",
            config.parallel_games
        );
    }
    let summary = selfplay::run::run(&RunOptions {
        config,
        shard,
        resume: args.resume,
        progress,
    })?;
    println!("{}", summary.line());
    Ok(())
}

/// Sets the keys of `config` whose flags were given (a flag overrides a config file's key and
/// a resumed dataset's setting).
fn apply_flags(config: &mut RunConfig, args: &RunArgs) {
    engine::override_from_flags!(
        config,
        args;
        game,
        rows,
        cols,
        games,
        iterations,
        cp,
        counter,
        parallel_games,
        search_threads,
        seed,
        out,
        sample_moves,
        random_opening_moves,
        solver_edges,
        sync_every
    );
    if args.shards.is_some() {
        config.shards = args.shards;
    }
    if !args.param.is_empty() {
        config.params = args.param.clone();
    }
    if args.no_root_stats {
        config.root_stats = false;
    }
    if args.player.is_some() {
        config.player = args.player.clone();
    }
}

fn merge(args: MergeArgs) -> Result<(), String> {
    let s = selfplay::merge::merge(&args.sources, &args.out)?;
    for w in &s.torn_records_dropped {
        eprintln!("selfplay: warning: {w}");
    }
    println!(
        "merged {} datasets into {}: {} games, {} positions, {} duplicates skipped{}",
        s.sources,
        s.out.display(),
        s.games,
        s.positions,
        s.duplicates_skipped,
        if s.complete {
            " (complete)"
        } else {
            " (incomplete: a source is unfinished or a shard is missing)"
        }
    );
    Ok(())
}

fn stats(args: StatsArgs) -> Result<(), String> {
    let s = selfplay::stats::stats(&args.dir)?;
    if args.json {
        println!("{}", serde_json::to_string(&s).expect("stats serialise"));
    } else {
        print!("{}", s.text());
    }
    Ok(())
}

fn export(args: ExportArgs) -> Result<(), String> {
    let s = match args.format {
        ExportFormat::Npy => selfplay::export::export_npy(&args.dir, &args.out, args.force)?,
    };
    for w in &s.warnings {
        eprintln!("selfplay: warning: {w}");
    }
    println!(
        "exported {} positions ({} features each) to {}",
        s.positions,
        s.feature_len,
        s.files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
