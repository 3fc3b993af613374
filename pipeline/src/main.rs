//! `pipeline`: the whole product on its built-in default, small enough for about ten minutes
//! on two cores. Self-play a small dataset (5x5 unless `--rows`/`--cols` say otherwise) with
//! plain MCTS, train the paper's value net on it, then play the net-guided engine against plain
//! MCTS from the State-S-like positions and, with its knowledge of the game, against the rival
//! from the empty board, printing each stage's result. Everything goes under `--out`. With
//! `--generations N`, then N generations of nets trained on the product's own games
//! (`generations.rs`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, Parser};

mod generations;
mod gomoku;
mod report;

use engine::agents::parse_spec;
use engine::arena::positions::read_positions;
use engine::arena::positions::StartPosition;
use engine::arena::{report_table, run_match, MatchConfig, MatchReport};
use engine::games::dots_and_boxes::positions::state_s_like;
use engine::games::{DotsAndBoxes, RegisteredGame};
use selfplay::config::RunConfig;
use selfplay::run::{Progress, RunOptions};
use selfplay::shard::Shard;
use train::config::{TrainConfig, ValueTargets};
use train::trainer::{train, TrainOptions};

#[derive(Parser)]
#[command(
    name = "pipeline",
    version,
    about = "Self-play, training and matches, end to end"
)]
struct Args {
    /// The game: dots_and_boxes (the paper's stages, then --generations of nets) or gomoku
    /// (--generations of Gomoku's pattern net: self-play with the current net, train, match).
    #[arg(long, value_enum, default_value_t = PipelineGame::DotsAndBoxes)]
    game: PipelineGame,
    /// Folder for the datasets, the models and the match reports [default: runs/pipeline;
    /// Gomoku: runs/pipeline-gomoku].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Gomoku: the board's side.
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// Gomoku: the rule (freestyle, standard or renju).
    #[arg(long, default_value = "freestyle")]
    rule: String,
    /// Gomoku: the net generation 1's games are played with: product (the shipped net where
    /// the rule and board have one, else the fitted evaluation), none (the fitted evaluation)
    /// or a model.safetensors.
    #[arg(long, default_value = "product")]
    start_model: String,
    /// Gomoku: a dataset every generation's net also trains on (repeatable), say the shipped
    /// ones of data/README.md.
    #[arg(long)]
    data: Vec<PathBuf>,
    /// Gomoku: milliseconds a self-play move.
    #[arg(long, default_value_t = 100)]
    time_ms: u64,
    /// Gomoku: features a point of the pattern net.
    #[arg(long, default_value_t = 16)]
    features: usize,
    /// Dots and Boxes: rows of boxes of the board (1 to 7).
    #[arg(long, default_value_t = 5)]
    rows: usize,
    /// Dots and Boxes: columns of boxes of the board (1 to 7).
    #[arg(long, default_value_t = 5)]
    cols: usize,
    /// Self-play games [default: 4000; Gomoku: 400 a generation, two from each random
    /// opening with the seats swapped, so an even count].
    #[arg(long)]
    games: Option<u64>,
    /// Dots and Boxes: MCTS iterations a self-play move.
    #[arg(long, default_value_t = 5_000)]
    iterations: u64,
    /// Training epochs at most (early stopping may end sooner).
    #[arg(long, default_value_t = 30)]
    epochs: usize,
    /// Games of each match (an even count: a match from start positions plays each twice,
    /// the seats swapped).
    #[arg(long, default_value_t = 100)]
    match_games: usize,
    /// Dots and Boxes: iterations a move of the net-guided engine and of plain MCTS in the
    /// first match.
    #[arg(long, default_value_t = 20_000)]
    match_iterations: u64,
    /// Milliseconds a move of the product's engine and of the rival in the second match (equal
    /// time: the product's chain rollouts cost more an iteration than the rival's). Gomoku: of
    /// both sides in every generation's matches.
    #[arg(long, default_value_t = 100)]
    match_time_ms: u64,
    /// Start positions of the match against plain MCTS (the rival match starts from the empty
    /// board) [default: configs/state-s-40.txt on 5x5; on other boards 50 State-S-like positions
    /// made as `engine positions` makes them, with two thirds of the edges drawn]. Gomoku: of
    /// every match [default: configs/gomoku-balanced-openings.txt on 15x15 freestyle, else
    /// random 4-stone openings of the centre].
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Games played at once in self-play and matches (0: one a core). `--threads` is its old
    /// spelling.
    #[arg(long, alias = "threads", default_value_t = 0, value_parser = engine::cli::parse_threads)]
    parallel_games: usize,
    /// The seed of the run: self-play, training and matches are seeded from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// After the paper's stages, this many generations of nets trained on the product's own
    /// games (generation k's games played by the product guided by generation k-1's net), each
    /// matched against the engine that played its games (`gen-K/` under `--out`) [default: 0;
    /// Gomoku: 1].
    #[arg(long)]
    generations: Option<usize>,
    /// Dots and Boxes: games of the product against itself a generation (Gomoku: --games).
    #[arg(long, default_value_t = 2000)]
    generation_games: usize,
    /// Dots and Boxes: iterations a move of those games.
    #[arg(long, default_value_t = 1000)]
    generation_iterations: u64,
    /// Dots and Boxes: what each generation's net learns: outcome (who won each game) or search (the recorded
    /// searches' values of their root moves, as the shipped `models/dab-5x5-sv` was made).
    #[arg(long, value_enum, default_value_t = ValueTargets::Outcome)]
    generation_targets: ValueTargets,
    /// Dots and Boxes: with search targets, the visits a root move needs to give a row.
    #[arg(long, default_value_t = 100)]
    generation_min_visits: u32,
}

fn main() -> ExitCode {
    let args: Args = engine::cli::parse_args();
    let game = args.game;
    let result = given_flags()
        .and_then(|given| check_flags_apply(game, &given))
        .and_then(|()| run(args));
    engine::cli::finish("pipeline", result)
}

/// The flags only Gomoku's run reads (clap's ids: the long names with `_` for `-`).
const GOMOKU_ONLY: [&str; 6] = ["size", "rule", "start_model", "data", "time_ms", "features"];

/// The flags only Dots and Boxes' run reads.
const DOTS_AND_BOXES_ONLY: [&str; 8] = [
    "rows",
    "cols",
    "iterations",
    "match_iterations",
    "generation_games",
    "generation_iterations",
    "generation_targets",
    "generation_min_visits",
];

/// The command line's matches again (`parse_args` has already refused a bad one), to tell a
/// flag given from one left at its default.
fn given_flags() -> Result<ArgMatches, String> {
    Args::command()
        .try_get_matches_from(std::env::args_os())
        .map_err(|e| e.to_string())
}

/// Refuses a flag given on the command line that the chosen game's run does not read
/// (`--game gomoku --rows 3`), naming the flag and the game, where it would be ignored.
fn check_flags_apply(game: PipelineGame, given: &ArgMatches) -> Result<(), String> {
    let (other, game_name, other_name) = match game {
        PipelineGame::Gomoku => (&DOTS_AND_BOXES_ONLY[..], "gomoku", "Dots and Boxes"),
        PipelineGame::DotsAndBoxes => (&GOMOKU_ONLY[..], "dots_and_boxes", "Gomoku"),
    };
    for id in other {
        if given.value_source(id) == Some(ValueSource::CommandLine) {
            return Err(format!(
                "--{} does not apply to --game {game_name}: only the {other_name} run reads it",
                id.replace('_', "-")
            ));
        }
    }
    Ok(())
}

/// Refuses an odd `count` of games for `flag` where they are played in pairs (each start
/// position twice, the seats swapped: an odd count would be rounded up), naming the even
/// counts either side of it. `why` says where the pairs are.
fn check_pairs(flag: &str, count: u64, why: &str) -> Result<(), String> {
    if count % 2 == 0 {
        return Ok(());
    }
    let nearest = if count == 1 {
        "2".to_string()
    } else {
        format!("{} or {}", count - 1, count + 1)
    };
    Err(format!(
        "{flag} {count}: {why}, so the count must be even; give {nearest}"
    ))
}

/// The games the pipeline runs.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum PipelineGame {
    #[value(name = "dots_and_boxes")]
    DotsAndBoxes,
    Gomoku,
}

fn run(args: Args) -> Result<(), String> {
    if let Some(out) = &args.out {
        engine::cli::check_out_dir("--out", out)?;
    }
    if args.game == PipelineGame::Gomoku {
        return gomoku::run(&gomoku::GomokuRun {
            out: args
                .out
                .unwrap_or_else(|| PathBuf::from("runs/pipeline-gomoku")),
            size: args.size,
            rule: engine::games::gomoku::Rule::parse(&args.rule)
                .map_err(|e| format!("--rule: {e}"))?,
            generations: args.generations.unwrap_or(1),
            games: args.games.unwrap_or(400) as usize,
            time_ms: args.time_ms,
            start_model: args.start_model,
            data: args.data,
            epochs: args.epochs,
            features: args.features,
            match_games: args.match_games,
            match_time_ms: args.match_time_ms,
            positions: args.positions,
            threads: engine::cli::or_all_cores(args.parallel_games),
            seed: args.seed,
        });
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs/pipeline"));
    let games = args.games.unwrap_or(4000);
    let generations = args.generations.unwrap_or(0);
    let started = Instant::now();
    let threads = engine::cli::or_all_cores(args.parallel_games);
    let data = out.join("data");
    let model_dir = out.join("model");

    let board = DotsAndBoxes::new(args.rows, args.cols).map_err(|e| e.to_string())?;
    let size = format!("{}x{}", args.rows, args.cols);
    // Every argument and every file the stages need is checked here, before minutes of work.
    for (flag, value) in [
        ("--games", games),
        ("--iterations", args.iterations),
        ("--epochs", args.epochs as u64),
        ("--match-games", args.match_games as u64),
        ("--match-iterations", args.match_iterations),
        ("--match-time-ms", args.match_time_ms),
        ("--generation-games", args.generation_games as u64),
        ("--generation-iterations", args.generation_iterations),
    ] {
        if value == 0 {
            return Err(format!("{flag} must be positive"));
        }
    }
    check_pairs(
        "--match-games",
        args.match_games as u64,
        "match 1 plays each start position twice, the seats swapped",
    )?;
    let (positions, positions_name) = match &args.positions {
        Some(path) => (read_positions(path, &board)?, path.display().to_string()),
        None if (args.rows, args.cols) == (5, 5) => {
            let path = Path::new("configs/state-s-40.txt");
            let read = read_positions(path, &board).map_err(|e| {
                format!("{e} (the default positions of 5x5 come with the repository: run from its root, or pass --positions)")
            })?;
            (read, path.display().to_string())
        }
        None => {
            let edges = (board.num_edges() * 2 / 3) as u32;
            let made = state_s_like(args.rows, args.cols, edges, 50, args.seed)?;
            let positions = made
                .into_iter()
                .map(|(_, moves)| StartPosition {
                    moves,
                    perfect: None,
                })
                .collect();
            (
                positions,
                format!("State-S-like positions of {size} with {edges} edges drawn"),
            )
        }
    };
    let mut report = report::Report::new(
        &out,
        &format!("Pipeline run: {size} Dots and Boxes"),
        vec![
            ("board".into(), size.clone()),
            ("self-play games".into(), games.to_string()),
            (
                "self-play iterations a move".into(),
                args.iterations.to_string(),
            ),
            ("epochs at most".into(), args.epochs.to_string()),
            ("match games".into(), args.match_games.to_string()),
            (
                "match 1 iterations a move".into(),
                args.match_iterations.to_string(),
            ),
            ("match 2 ms a move".into(), args.match_time_ms.to_string()),
            ("positions of match 1".into(), positions_name.clone()),
            ("games at once".into(), threads.to_string()),
            ("seed".into(), args.seed.to_string()),
            ("generations".into(), generations.to_string()),
        ],
    );
    let stage_started = Instant::now();
    println!("== 1/3 self-play: {} games of {size} Dots and Boxes, plain MCTS at {} iterations a move, {} at once -> {}", games, args.iterations, engine::cli::count(threads as u64, "game"), data.display());
    let config = RunConfig {
        rows: args.rows,
        cols: args.cols,
        games,
        iterations: args.iterations,
        parallel_games: threads,
        seed: args.seed,
        out: data.clone(),
        ..RunConfig::default()
    };
    config.validate()?;
    let train_config = TrainConfig {
        data: data.clone(),
        out: model_dir.clone(),
        epochs: args.epochs,
        seed: args.seed,
        ..TrainConfig::default()
    };
    train_config.validate()?;
    let summary = selfplay::run::run(&RunOptions {
        config,
        shard: Shard { index: 0, count: 1 },
        // A second run with the same settings finds the games played and goes on.
        resume: true,
        progress: Progress::Auto {
            log_every: Duration::from_secs(15),
        },
    })?;
    println!("{}", summary.line());
    report.stage("1/3 self-play", stage_started.elapsed().as_secs_f64());
    report.write()?;

    let stage_started = Instant::now();
    println!(
        "\n== 2/3 training the paper's value net ({}-100-3) on {} -> {}",
        engine::game::Game::feature_len(&board),
        data.display(),
        model_dir.display()
    );
    if model_dir.exists() {
        // The pipeline's own model from an earlier run: train afresh.
        std::fs::remove_dir_all(&model_dir).map_err(|e| format!("{}: {e}", model_dir.display()))?;
    }
    let trained = train(&TrainOptions {
        config: train_config,
        resume: false,
        force: false,
        verbose: true,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    })?;
    println!("{}", trained.final_line());
    report.stage("2/3 training", stage_started.elapsed().as_secs_f64());
    report.training(&trained, "model");
    report.write()?;

    // Against plain MCTS the net is on its own (no game knowledge on either side: what the
    // net adds), from the State-S-like positions. Against the rival it plays as the product's
    // engine (chain rollouts, safe edges first, the exact endgame) at equal time a move, from
    // the empty board:
    // from the 40-edge positions both sides would play the solver from the first move, an
    // even score that measures nothing. `paper:net=1` is the paper's net-guided engine:
    // random rollouts the net ends, no knowledge of the game.
    let nn = format!(
        "paper:net=1,model={},threshold=0.9,iterations={}",
        trained.model.display(),
        args.match_iterations
    );
    let from_file = format!(
        "{positions_name} ({} positions, seats swapped)",
        positions.len()
    );
    let pairs = [
        (
            nn,
            format!("mcts:iterations={}", args.match_iterations),
            positions,
            from_file,
        ),
        (
            format!(
                "nn:model={},threshold=0.9,time_ms={}",
                trained.model.display(),
                args.match_time_ms
            ),
            format!("rival:time_ms={}", args.match_time_ms),
            Vec::new(),
            "the empty board (seats alternating)".to_string(),
        ),
    ];
    for (i, (nn, rival, starts, from)) in pairs.iter().enumerate() {
        let stage_started = Instant::now();
        println!(
            "\n== 3/3 match {} of 2: {nn} against {rival}, {} games from {from}",
            i + 1,
            args.match_games,
        );
        let played = play_match(
            &board,
            [nn, rival],
            args.match_games,
            starts.clone(),
            threads,
            args.seed,
            None,
        )?;
        print!("{}", report_table(&played, played.seconds));
        let json = out.join(format!("match-{}.json", i + 1));
        write_json(&json, &played)?;
        println!("  report: {}", json.display());
        let stage = format!("3/3 match {} of 2", i + 1);
        report.stage(&stage, stage_started.elapsed().as_secs_f64());
        report.add_match(&format!("{nn} against {rival}"), from, &played);
        report.write()?;
    }
    if generations > 0 {
        let stage_started = Instant::now();
        generations::run(
            &out,
            &board,
            &generations::Generations {
                count: generations,
                games: args.generation_games,
                iterations: args.generation_iterations,
                targets: args.generation_targets,
                min_visits: args.generation_min_visits,
                epochs: args.epochs.max(1),
                match_games: args.match_games,
                match_time_ms: args.match_time_ms,
                threads,
                seed: args.seed,
            },
        )?;
        report.stage(
            &format!("{} generations", generations),
            stage_started.elapsed().as_secs_f64(),
        );
        for k in 1..=generations {
            report.note(format!(
                "Generation {k}: [gen-{k}/{}](gen-{k}/{})",
                report::REPORT_FILE,
                report::REPORT_FILE
            ));
        }
        report.write()?;
    }
    println!(
        "\npipeline done in {:.0} s; everything is in {}, its report in {}",
        started.elapsed().as_secs_f64(),
        out.display(),
        out.join(report::REPORT_FILE).display()
    );
    Ok(())
}

/// Plays `games` games of `players` (A, B) from `start` (any registered game), from
/// `positions` (none: the start; each twice with the seats swapped), writing them to `records`
/// if given.
fn play_match<G: RegisteredGame>(
    start: &G,
    players: [&str; 2],
    games: usize,
    positions: Vec<StartPosition>,
    threads: usize,
    seed: u64,
    records: Option<PathBuf>,
) -> Result<MatchReport, String> {
    let config = MatchConfig {
        game: start.spec(),
        players: players.map(str::to_string),
        games,
        positions,
        threads,
        seed,
        sprt: None,
        records,
        replace_records: false,
    };
    let specs = [parse_spec(players[0])?, parse_spec(players[1])?];
    let build = || -> Result<_, String> {
        Ok([
            G::build_player(&specs[0], start)?,
            G::build_player(&specs[1], start)?,
        ])
    };
    // A line on stderr at each tenth of the games: self-play for a net runs for hours.
    let step = games.div_ceil(10).max(1);
    let mut shown = 0;
    run_match(start, &config, &build, |_, report| {
        let p = &report.players[0];
        let done = (p.wins + p.draws + p.losses) as usize;
        if done / step > shown {
            shown = done / step;
            eprintln!(
                "  {done}/{games} games, {:.0} s ({} to {}: {}-{}-{})",
                report.seconds, players[0], players[1], p.wins, p.draws, p.losses
            );
        }
    })
}

fn write_json(path: &Path, report: &MatchReport) -> Result<(), String> {
    let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
