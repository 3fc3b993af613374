//! `engine match` and `engine positions`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use engine::agents::parse_spec;
use engine::arena::positions::read_positions;
use engine::arena::stats::Sprt;
use engine::arena::{report_table, run_match, MatchConfig, MatchGame, MatchReport, PlayerFactory};
use engine::games::dots_and_boxes::positions::{positions_file, state_s_like};
use engine::games::RegisteredGame;
use engine::registry::{GameVisitor, Lookup};

#[derive(Args)]
pub struct MatchArgs {
    /// Player A (plays P1 in the even games): KIND[:key=value,...]. Every game has best (its
    /// strongest), paper (its paper's player), random, mcts and external; Dots and Boxes adds
    /// nn, qdab, rival and greedy, Amazons alphabeta and greedy, Gomoku and Surakarta
    /// alphabeta. E.g. `best:time_ms=300`, `qdab:time_ms=300`, `paper:net=1` or (Amazons)
    /// `mcts:time_ms=1000,turn=whole`. `engine players` lists every kind with its keys.
    #[arg(long)]
    p1: String,
    /// Player B.
    #[arg(long)]
    p2: String,
    /// Games to play (each start position twice, seats swapped).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Start positions: one a line, the moves from the start in the game's notation or as ids
    /// (OpenSpiel's for Dots and Boxes; `# winner=1` comments give the perfect-play winner).
    /// Default: the start position.
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Games played at once, each on its own thread with its own players (0: one a core, at
    /// most 256; a player's own search threads are its spec's threads=, 1 unless given).
    /// `--threads` is its old spelling.
    #[arg(long, alias = "threads", default_value_t = 0, value_parser = engine::cli::parse_threads)]
    parallel_games: usize,
    /// Seed of the match: game k's players are seeded from it and k.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the report (every figure and every game) as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write every game as a record (dataset format) into this new folder.
    #[arg(long)]
    records: Option<PathBuf>,
    /// Overwrite the --json file, and replace the dataset in the --records folder, when they
    /// exist (without it they are refused before the first game).
    #[arg(long)]
    force: bool,
    /// Sequential probability ratio test: ELO0,ELO1,ALPHA,BETA (e.g. 0,50,0.05,0.05); the match
    /// stops once it accepts either hypothesis.
    #[arg(long)]
    sprt: Option<String>,
    #[command(flatten)]
    board: crate::BoardArgs,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
}

fn parse_sprt(text: &str) -> Result<Sprt, String> {
    let parts: Vec<f64> = text
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("--sprt takes ELO0,ELO1,ALPHA,BETA, got '{text}'"))?;
    let [elo0, elo1, alpha, beta] = parts[..] else {
        return Err(format!(
            "--sprt takes four numbers ELO0,ELO1,ALPHA,BETA, got '{text}'"
        ));
    };
    let sprt = Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    };
    sprt.check().map_err(|e| format!("--sprt: {e}"))?;
    Ok(sprt)
}

/// Progress: a bar on a terminal, a line every tenth of the match otherwise.
struct Progress {
    bar: Option<ProgressBar>,
    planned: usize,
    next_line: usize,
    quiet: bool,
}

impl Progress {
    fn new(planned: usize, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(planned as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} games {elapsed} (eta {eta}) {msg}",
                )
                .expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        Progress {
            bar,
            planned,
            next_line: planned.div_ceil(10).max(1),
            quiet,
        }
    }

    fn update(&mut self, report: &MatchReport) {
        let done = report.players[0].wins + report.players[0].draws + report.players[0].losses;
        let p = &report.pair;
        let msg = format!(
            "A {}-{}-{} score {:.3} Elo {:+.0}",
            p.wins, p.draws, p.losses, p.score, p.elo
        );
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
            bar.set_message(msg);
        } else if !self.quiet && done as usize >= self.next_line {
            eprintln!("{done}/{} games: {msg}", self.planned);
            self.next_line += self.planned.div_ceil(10).max(1);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

pub fn run(args: MatchArgs) -> Result<(), String> {
    let spec = args.board.spec()?;
    let specs = [parse_spec(&args.p1)?, parse_spec(&args.p2)?];
    if args.games == 0 {
        return Err("--games must be positive".into());
    }
    if let Some(path) = &args.json {
        engine::cli::check_output_file(path, args.force).map_err(|e| format!("--json {e}"))?;
    }
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let started = Instant::now();
    struct MatchCmd<'a> {
        args: &'a MatchArgs,
        specs: &'a [engine::agents::AgentSpec; 2],
        sprt: Option<Sprt>,
    }
    impl GameVisitor for MatchCmd<'_> {
        type Output = Result<MatchReport, String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            let positions = match &self.args.positions {
                Some(path) => read_positions(path, &start)?,
                None => Vec::new(),
            };
            let config = config(self.args, start.spec(), positions, self.sprt);
            let build = || -> Result<_, String> {
                Ok([
                    G::build_player(&self.specs[0], &start)?,
                    G::build_player(&self.specs[1], &start)?,
                ])
            };
            with_progress(&start, &config, &build, self.args.quiet)
        }
    }
    let report = spec.visit(MatchCmd {
        args: &args,
        specs: &specs,
        sprt,
    })??;
    print!("{}", report_table(&report, started.elapsed().as_secs_f64()));
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// [`run_match`] with the progress display.
fn with_progress<G: engine::Game>(
    initial: &G,
    config: &MatchConfig,
    build: &PlayerFactory<'_, G>,
    quiet: bool,
) -> Result<MatchReport, String> {
    let mut progress = Progress::new(config.games, quiet);
    let report = run_match(initial, config, build, |_: &MatchGame, r: &MatchReport| {
        progress.update(r)
    });
    progress.finish();
    report
}

fn config(
    args: &MatchArgs,
    game: engine::games::GameSpec,
    positions: Vec<engine::arena::positions::StartPosition>,
    sprt: Option<Sprt>,
) -> MatchConfig {
    MatchConfig {
        game,
        players: [args.p1.clone(), args.p2.clone()],
        games: args.games,
        positions,
        threads: engine::cli::or_all_cores(args.parallel_games),
        seed: args.seed,
        sprt,
        records: args.records.clone(),
        replace_records: args.force,
    }
}

#[derive(Args)]
pub struct PositionsArgs {
    /// Edges drawn in every position.
    #[arg(long, default_value_t = 40)]
    edges: u32,
    /// How many positions.
    #[arg(long, default_value_t = 50)]
    count: usize,
    /// The seed of the positions: attempt k plays random moves seeded from it and k.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Rows of boxes.
    #[arg(long, default_value_t = 5)]
    rows: usize,
    /// Columns of boxes.
    #[arg(long, default_value_t = 5)]
    cols: usize,
    /// Annotate each position with its winner under perfect play (the exact solver; practical
    /// from about 30 free edges down).
    #[arg(long)]
    solve: bool,
    /// Write here instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Overwrite the --out file when it exists (without it an existing file is refused).
    #[arg(long)]
    force: bool,
}

pub fn positions(args: PositionsArgs) -> Result<(), String> {
    if let Some(path) = &args.out {
        engine::cli::check_output_file(path, args.force).map_err(|e| format!("--out {e}"))?;
    }
    let found = state_s_like(args.rows, args.cols, args.edges, args.count, args.seed)?;
    let header = format!(
        "{} State-S-like positions of {}x{} Dots and Boxes: {} edges drawn, equal scores, no box capturable at once.\n\
         Made by `engine positions --edges {} --count {} --seed {} --rows {} --cols {}{}`: attempt k plays seeded random\n\
         moves (derive_seed(seed, k)) that take a capture when there is one, else hand nothing over, else any edge;\n\
         the first positions that qualify are kept. One position a line: the OpenSpiel ids of its moves.",
        args.count,
        args.rows,
        args.cols,
        args.edges,
        args.edges,
        args.count,
        args.seed,
        args.rows,
        args.cols,
        if args.solve { " --solve" } else { "" }
    );
    let text = positions_file(&found, &header, args.solve);
    match &args.out {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display())),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
