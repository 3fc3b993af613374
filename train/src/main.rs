//! The `train` binary: `train run` (Dots-and-Boxes value nets) and `train pattern` (Gomoku
//! pattern nets).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use train::config::{Backend, CpuBackend, Encoding, Loss, Optimiser, TrainConfig, ValueTargets};
use train::pattern::{train_pattern, Keep, LrDecay, PatternConfig, RankMoves, RankPick, Trainer};
use train::trainer::{train, TrainOptions};

#[derive(Parser)]
#[command(
    name = "train",
    version,
    about = "Fits the paper's value net to a selfplay dataset"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train (or resume training) and export the best net.
    Run(Box<RunArgs>),
    /// Fit a Gomoku pattern net (pvs's learned evaluation, `pvs:model=`) to recorded games.
    Pattern(Box<PatternArgs>),
}

#[derive(Args)]
struct PatternArgs {
    /// Gomoku dataset folder (`engine match --records`, `selfplay run`); repeatable, one rule
    /// and board.
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// Output folder: model.safetensors (the best epoch's), MODEL.md and metrics.csv.
    #[arg(long, default_value = "runs/gomoku-net")]
    out: PathBuf,
    /// Features a point (the width of the point table) [default: 16, or --init's]
    #[arg(long)]
    features: Option<usize>,
    /// Hidden units of the head [default: 32, or --init's]
    #[arg(long)]
    hidden: Option<usize>,
    /// Training epochs at most.
    #[arg(long, default_value_t = PatternConfig::default().epochs)]
    epochs: usize,
    /// Stop after this many epochs without a better held-out objective: the validation loss,
    /// plus the ranking's at its weight (0: never).
    #[arg(long, default_value_t = PatternConfig::default().patience)]
    patience: usize,
    /// Positions a batch.
    #[arg(long, default_value_t = PatternConfig::default().batch_size)]
    batch_size: usize,
    /// The learning rate (Adam).
    #[arg(long, default_value_t = PatternConfig::default().learning_rate)]
    learning_rate: f64,
    /// How the learning rate falls: none (the same every epoch) or cosine (down a half cosine
    /// to a twentieth of it at the last of --epochs).
    #[arg(long, value_enum, default_value_t = PatternConfig::default().lr_decay)]
    lr_decay: LrDecay,
    /// The share of games held out for validation.
    #[arg(long, default_value_t = PatternConfig::default().validation_share)]
    validation_share: f64,
    /// The seed of the split, the shuffles and the initial weights.
    #[arg(long, default_value_t = PatternConfig::default().seed)]
    seed: u64,
    /// The share of a searched position's target that is the search's estimate (the rest is
    /// the game's result).
    #[arg(long, default_value_t = PatternConfig::default().search_weight)]
    search_weight: f64,
    /// The weight of a ranking loss beside the value's; 0: none. The value net is also asked
    /// about the position after the move played and after --rank-alternatives other points
    /// near the stones, and learns to find the move played the best of them (as the search
    /// compares sibling positions).
    #[arg(long, default_value_t = PatternConfig::default().rank_weight)]
    rank_weight: f64,
    /// The other moves a ranking row compares with the move played.
    #[arg(long, default_value_t = PatternConfig::default().rank_alternatives)]
    rank_alternatives: usize,
    /// The share of positions given a ranking row (each costs 1 + --rank-alternatives
    /// evaluations a training step).
    #[arg(long, default_value_t = PatternConfig::default().rank_share)]
    rank_share: f64,
    /// Which other moves a ranking row compares with the move played: near (points within two
    /// of a stone, at random) or ordered (drawn from the best 2 x --rank-alternatives points
    /// by the search's move order; measured worse: 0.422 against a near-trained net,
    /// docs/gomoku-results.md).
    #[arg(long, value_enum, default_value_t = RankPick::Near)]
    rank_pick: RankPick,
    /// Whose moves get ranking rows: all (every move played but forced blocks) or winner (the
    /// moves of the side that won the game: the loser's hold the mistakes that lost it).
    #[arg(long, value_enum, default_value_t = RankMoves::All)]
    rank_moves: RankMoves,
    /// Start from this net's weights (a model.safetensors of train pattern) instead of random
    /// ones; its features and hidden units are the run's (a --features or --hidden that differs
    /// is refused).
    #[arg(long, value_name = "MODEL")]
    init: Option<PathBuf>,
    /// The positions learnt: all (but those with a five or live four to make) or quiet (no
    /// five point and no live three on the board for either side).
    #[arg(long, value_enum, default_value_t = Keep::All)]
    keep: Keep,
    /// Train on this share of the training games, the first ones in the datasets' order (the
    /// held-out games stay the same: the points of a curve of loss against data compare).
    #[arg(long, default_value_t = PatternConfig::default().train_share)]
    train_share: f64,
    /// What computes the gradients: sparse (the net's forward and backward written out for
    /// its sparse input, on every core) or burn (burn's autodiff on --backend, slower: the
    /// reference the sparse trainer's gradients are checked against, and the GPU's).
    #[arg(long, value_enum, default_value_t = Trainer::Sparse)]
    trainer: Trainer,
    /// Threads of the sparse trainer (0: every core this process may use).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Training sets of more positions (the records' count) are not held in memory: the
    /// sparse trainer packs them once into OUT/rows.cache, this many positions at a time, and
    /// streams that file every epoch, one run at a time (about 400 bytes a position held,
    /// 750 with ranking rows at a third); the file is removed when the run ends.
    #[arg(long, default_value_t = PatternConfig::default().memory_positions)]
    memory_positions: usize,
    /// Where --trainer burn trains: cpu, or gpu (a build with --features gpu).
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    backend: Backend,
    /// CPU backend of burn (--trainer burn).
    #[arg(long, value_enum, default_value_t = CpuBackend::Flex)]
    cpu_backend: CpuBackend,
    /// Replace a model already in the output folder (without it, such a folder is refused).
    #[arg(long)]
    force: bool,
    /// Only the final line.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct RunArgs {
    /// TOML config (see configs/train-5x5.toml); flags override its keys.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Dataset folder written by selfplay [default: data/selfplay-5x5].
    #[arg(long)]
    data: Option<PathBuf>,
    /// Another dataset of the same game to train on too (repeatable; an earlier generation's
    /// games, say). Its games are split into training and validation as `--data`'s are.
    #[arg(long = "extra-data", value_name = "DIR")]
    extra_data: Vec<PathBuf>,
    /// Training epochs at most [default: 30].
    #[arg(long)]
    epochs: Option<usize>,
    /// Where to train: cpu, or gpu (a build with --features gpu) [default: cpu].
    #[arg(long, value_enum)]
    backend: Option<Backend>,
    /// CPU backend of burn.
    #[arg(long, value_enum)]
    cpu_backend: Option<CpuBackend>,
    /// Input encoding: table2 (the paper's) or table2-to-move (adds the player to move).
    #[arg(long, value_enum)]
    encoding: Option<Encoding>,
    /// The seed of the split, the shuffles and the initial weights [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// Output folder: model.safetensors, MODEL.md, metrics.csv, curves.svg, checkpoints/
    /// [default: a fresh folder runs/train-N; a folder holding a model is refused without
    /// --force or --resume].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Hidden units [default: 100, the paper's].
    #[arg(long)]
    hidden: Option<usize>,
    /// The loss of the sigmoid outputs against the labels [default: bce].
    #[arg(long, value_enum)]
    loss: Option<Loss>,
    /// adam, or sgd with momentum 0.9 [default: adam].
    #[arg(long, value_enum)]
    optimiser: Option<Optimiser>,
    /// The learning rate [default: 0.001].
    #[arg(long)]
    learning_rate: Option<f64>,
    /// Positions a batch [default: 256].
    #[arg(long)]
    batch_size: Option<usize>,
    /// The share of games (not positions) held out for validation [default: 0.1].
    #[arg(long)]
    validation_share: Option<f64>,
    /// Stop after this many epochs without a better validation loss (0: never) [default: 5].
    #[arg(long)]
    patience: Option<usize>,
    /// The output a net must reach to be sure, for the sure-share figures [default: 0.9, the paper's].
    #[arg(long)]
    threshold: Option<f64>,
    /// Training sets up to this many positions are encoded into memory once; larger ones are streamed [default: 2000000].
    #[arg(long)]
    memory_positions: Option<usize>,
    /// Labels: outcome (each position's game result, the paper's) or search (the recorded
    /// searches' mean result through each root move, a soft target; needs root statistics,
    /// as `engine match --records` keeps them).
    #[arg(long, value_enum)]
    value_targets: Option<ValueTargets>,
    /// With --value-targets search: root moves with fewer visits are left out [default: 100].
    #[arg(long)]
    min_visits: Option<u32>,
    /// Dots and Boxes: learn each training game in every mirror and rotation of its board too
    /// (8 times the rows on a square board, 4 on another; validation keeps the games as played)
    /// [default: off].
    #[arg(long)]
    symmetries: bool,
    /// Continue from the last checkpoint in the output folder.
    #[arg(long)]
    resume: bool,
    /// Replace a model already in the output folder (without it, such a folder is refused).
    #[arg(long)]
    force: bool,
    /// Only the final line.
    #[arg(long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let result = match engine::cli::parse_args::<Cli>().command {
        Command::Run(args) => run(*args),
        Command::Pattern(args) => pattern(*args),
    };
    engine::cli::finish("train", result)
}

fn run(args: RunArgs) -> Result<(), String> {
    let mut config = match &args.config {
        Some(path) => TrainConfig::from_file(path)?,
        None => TrainConfig::default(),
    };
    engine::override_from_flags!(
        config,
        args;
        data,
        epochs,
        backend,
        cpu_backend,
        encoding,
        seed,
        out,
        hidden,
        loss,
        optimiser,
        learning_rate,
        batch_size,
        validation_share,
        patience,
        threshold,
        memory_positions,
        value_targets,
        min_visits
    );
    if !args.extra_data.is_empty() {
        config.extra_data = args.extra_data.clone();
    }
    if args.symmetries {
        config.symmetries = true;
    }
    config.validate().map_err(|e| match &args.config {
        Some(path) => format!("config {}: {e}", path.display()),
        None => e,
    })?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let summary = train(&TrainOptions {
        config,
        resume: args.resume,
        force: args.force,
        verbose: !args.quiet,
        command,
    })?;
    println!("{}", summary.final_line());
    Ok(())
}

fn pattern(args: PatternArgs) -> Result<(), String> {
    // Sizes not given are the net's to start from, or the defaults.
    let (features, hidden) = match &args.init {
        Some(path) => {
            let net = engine::games::gomoku::net::PatternNet::load(path)
                .map_err(|e| format!("--init {}: {e}", path.display()))?;
            (net.features, net.hidden)
        }
        None => (
            PatternConfig::default().features,
            PatternConfig::default().hidden,
        ),
    };
    let config = PatternConfig {
        data: args.data,
        out: args.out,
        features: args.features.unwrap_or(features),
        hidden: args.hidden.unwrap_or(hidden),
        epochs: args.epochs,
        patience: args.patience,
        batch_size: args.batch_size,
        learning_rate: args.learning_rate,
        lr_decay: args.lr_decay,
        validation_share: args.validation_share,
        seed: args.seed,
        search_weight: args.search_weight,
        rank_weight: args.rank_weight,
        rank_alternatives: args.rank_alternatives,
        rank_share: args.rank_share,
        rank_pick: args.rank_pick,
        rank_moves: args.rank_moves,
        init: args.init,
        keep: args.keep,
        trainer: args.trainer,
        threads: args.threads,
        memory_positions: args.memory_positions,
        train_share: args.train_share,
        backend: args.backend,
        cpu_backend: args.cpu_backend,
        force: args.force,
    };
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let s = train_pattern(&config, !args.quiet, &command)?;
    println!(
        "best epoch {} of {}: validation loss {:.5} (the fitted evaluation's {:.5}, a constant guess's {:.5}), accuracy {:.2}% on {} positions ({} for training) | {}",
        s.best.epoch,
        s.epochs_run,
        s.best.valid_loss,
        s.baseline_loss,
        s.constant_loss,
        100.0 * s.best.valid_accuracy,
        s.valid_positions,
        s.train_positions,
        s.model.display()
    );
    Ok(())
}
