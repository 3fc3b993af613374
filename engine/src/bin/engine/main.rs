//! The `engine` command: play against the engine, analyse a position, benchmark the search.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use engine::agents::{DotsKnowledge, EndgameConfig};
use engine::bench::{self, BenchOptions};
use engine::games::{DotsAndBoxes, TicTacToe};
use engine::interactive::{self, WithKnowledge};
use engine::mcts::{Budget, CounterMode, RolloutPolicy, Search, SearchConfig, Ucb, BYTES_PER_NODE};
use engine::nn::{load_dab_net, DabNet, NetGuide, NetRollout};
use engine::{Game, Player};

mod match_cmd;
mod paper_cmd;

#[derive(Parser)]
#[command(
    name = "engine",
    version,
    about = "MCTS engine for Dots and Boxes and other games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play against the engine in the terminal.
    Play(PlayArgs),
    /// Search one position and print the statistics of every move.
    Analyse(AnalyseArgs),
    /// Measure MCTS iterations per second on 5x5 Dots and Boxes.
    Bench(BenchArgs),
    /// Speak the text protocol on stdin/stdout (GTP-shaped; see docs/PROTOCOL.md).
    Protocol,
    /// Play a match between two players and report the statistics.
    Match(match_cmd::MatchArgs),
    /// Write a file of State-S-like start positions (with their perfect-play winners).
    Positions(match_cmd::PositionsArgs),
    /// Play the paper's Tables 3, 4 and 5 again against the rival and write them as markdown.
    Paper(paper_cmd::PaperArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum GameName {
    #[value(name = "dots_and_boxes", alias = "dots-and-boxes")]
    DotsAndBoxes,
    #[value(name = "tictactoe", alias = "tic-tac-toe")]
    Tictactoe,
}

#[derive(Args, Clone)]
struct BoardArgs {
    /// Which game.
    #[arg(long, value_enum, default_value = "dots_and_boxes")]
    game: GameName,
    /// Rows of boxes (Dots and Boxes, 1 to 7).
    #[arg(long, default_value_t = 5)]
    rows: usize,
    /// Columns of boxes (Dots and Boxes, 1 to 7).
    #[arg(long, default_value_t = 5)]
    cols: usize,
}

#[derive(Args, Clone)]
struct SearchArgs {
    /// Iterations a move, over all threads (default 100000 unless only --time-ms is given).
    #[arg(long)]
    iterations: Option<u64>,
    /// Wall-clock limit a move in milliseconds (with --iterations: whichever comes first).
    #[arg(long)]
    time_ms: Option<u64>,
    /// Threads (root parallelisation: one tree each, merged at the root).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seed of the search's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// UCB exploration constant Cp (default sqrt(2), the paper's 1.41 for results in [-1, 1]).
    #[arg(long, default_value_t = Ucb::DEFAULT_CP)]
    cp: f64,
    /// Use the paper's single counter (every node read from the root player's view) instead of
    /// the double counter.
    #[arg(long)]
    single_counter: bool,
}

impl SearchArgs {
    fn config(&self) -> Result<SearchConfig, String> {
        if self.threads == 0 {
            return Err("--threads must be at least 1".into());
        }
        if !(self.cp.is_finite() && self.cp >= 0.0) {
            return Err(format!(
                "--cp must be a non-negative number, got {}",
                self.cp
            ));
        }
        let iterations = match (self.iterations, self.time_ms) {
            (None, None) => Some(100_000),
            (it, _) => it,
        };
        if iterations == Some(0) || self.time_ms == Some(0) {
            return Err("--iterations and --time-ms must be positive".into());
        }
        Ok(SearchConfig {
            cp: self.cp,
            counter: if self.single_counter {
                CounterMode::Single
            } else {
                CounterMode::Double
            },
            budget: Budget {
                iterations,
                time: self.time_ms.map(Duration::from_millis),
            },
            threads: self.threads,
            seed: self.seed,
            ..SearchConfig::default()
        })
    }
}

/// The value net that guides rollouts (the paper's Algorithm 5).
#[derive(Args, Clone)]
struct NetArgs {
    /// A value net (model.safetensors from `train`): a rollout stops once the net is sure of
    /// the outcome. Dots and Boxes only; the model must be for this board size.
    #[arg(long)]
    model: Option<PathBuf>,
    /// With --model: a rollout stops once the net's largest output (P1 wins, P2 wins, draw)
    /// reaches this; at 1 the net is asked but never stops a rollout.
    #[arg(long, default_value_t = NetGuide::DEFAULT_THRESHOLD)]
    threshold: f64,
    /// With --model: ask the net only in positions with at least this many edges drawn
    /// (earlier rollout steps are plain random moves).
    #[arg(long, default_value_t = 0)]
    net_from_move: u32,
}

impl NetArgs {
    /// The net laid out for `board`, checked before any search; none without --model.
    fn load(&self, board: &DotsAndBoxes) -> Result<Option<(Arc<DabNet>, NetGuide)>, String> {
        let Some(path) = &self.model else {
            return Ok(None);
        };
        let guide = NetGuide {
            threshold: self.threshold,
            from_move: self.net_from_move,
        };
        guide.check().map_err(|e| format!("--threshold: {e}"))?;
        let net = load_dab_net(path, board).map_err(|e| e.to_string())?;
        Ok(Some((Arc::new(net), guide)))
    }

    /// Refuses --model for games without a value net.
    fn refuse_for(&self, game: &str) -> Result<(), String> {
        match &self.model {
            Some(_) => Err(format!(
                "--model: value nets guide Dots and Boxes only, not {game}"
            )),
            None => Ok(()),
        }
    }
}

/// What a search needs besides its settings: the net, when there is one.
fn rollout(net: &Option<(Arc<DabNet>, NetGuide)>) -> Option<NetRollout> {
    net.as_ref().map(|(net, guide)| {
        NetRollout::new(net.clone(), *guide).expect("the guide was checked when loaded")
    })
}

#[derive(Args)]
struct PlayArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Which side you play: 1 (moves first) or 2.
    #[arg(long, default_value = "1")]
    human: String,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    net: NetArgs,
    /// Dots and Boxes: take free captures at once and let the exact solver choose from this
    /// many free edges on (0: never; the product's engine uses 34).
    #[arg(long, default_value_t = 0)]
    solver_edges: u32,
    /// Dots and Boxes: search only the safe edges while there are any and no box to take.
    #[arg(long)]
    safe_first: bool,
}

#[derive(Args)]
struct AnalyseArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// The moves from the empty board, separated by spaces: ids or h<r>,<c> / v<r>,<c>.
    #[arg(long, conflicts_with = "edges")]
    moves: Option<String>,
    /// Dots and Boxes: the '0'/'1' string of all edges in id order.
    #[arg(long)]
    edges: Option<String>,
    /// With --edges: the scores as P1,P2.
    #[arg(long, requires = "edges", default_value = "0,0")]
    scores: String,
    /// With --edges: the player to move, 1 or 2.
    #[arg(long, requires = "edges", default_value = "1")]
    to_move: String,
    /// With --edges: who closed each box, one of 1/2/. per box in row-major order.
    #[arg(long, requires = "edges")]
    owners: Option<String>,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    net: NetArgs,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct BenchArgs {
    /// Iterations of one search, per thread (the paper's 100,000 a move by default).
    #[arg(long, default_value_t = 100_000)]
    iterations: u64,
    /// Threads for the *_nt figures (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Searches per figure (a fresh tree each); a figure is total iterations over total time.
    #[arg(long, default_value_t = 10)]
    repeats: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// With --model: also measure the net (evaluation cost, net-guided search from the 40-edge
    /// position). The model must be for 5x5.
    #[command(flatten)]
    net: NetArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Play(args) => play(args),
        Command::Analyse(args) => analyse(args),
        Command::Bench(args) => run_bench(args),
        Command::Match(args) => match_cmd::run(args),
        Command::Positions(args) => match_cmd::positions(args),
        Command::Paper(args) => paper_cmd::run(args),
        Command::Protocol => {
            engine::protocol::serve(&mut io::stdin().lock(), &mut io::stdout().lock())
                .map_err(|e| format!("protocol: {e}"))
        }
    };
    engine::cli::finish("engine", result)
}

fn play(args: PlayArgs) -> Result<(), String> {
    let human = Player::parse(&args.human)
        .ok_or_else(|| format!("--human must be 1 or 2, got '{}'", args.human))?;
    let config = args.search.config()?;
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let io_err = |e: io::Error| format!("terminal: {e}");
    match args.board.game {
        GameName::DotsAndBoxes => {
            let start =
                DotsAndBoxes::new(args.board.rows, args.board.cols).map_err(|e| e.to_string())?;
            let net = args.net.load(&start)?;
            if io::stdin().is_terminal() {
                writeln!(
                    out,
                    "Moves: h<r>,<c> is the line from dot (r,c) to dot (r,c+1); v<r>,<c> from (r,c) to (r+1,c); or an edge id."
                )
                .map_err(io_err)?;
            }
            let cp = config.cp;
            let knowledge = DotsKnowledge::new(
                EndgameConfig::from_edges(args.solver_edges),
                args.safe_first,
            );
            match rollout(&net) {
                Some(r) => {
                    let engine =
                        WithKnowledge::new(Search::new(config, Ucb::new(cp), r), knowledge);
                    interactive::play(start, human, engine, &mut input, &mut out)
                }
                None => {
                    let engine = WithKnowledge::new(Search::plain(config), knowledge);
                    interactive::play(start, human, engine, &mut input, &mut out)
                }
            }
            .map_err(io_err)?;
        }
        GameName::Tictactoe => {
            args.net.refuse_for("tictactoe")?;
            if args.solver_edges > 0 || args.safe_first {
                return Err("--solver-edges and --safe-first are for Dots and Boxes only".into());
            }
            let search = Search::plain(config);
            interactive::play(TicTacToe::new(), human, search, &mut input, &mut out)
                .map_err(io_err)?;
        }
    }
    Ok(())
}

fn analyse(args: AnalyseArgs) -> Result<(), String> {
    let config = args.search.config()?;
    match args.board.game {
        GameName::DotsAndBoxes => {
            let (rows, cols) = (args.board.rows, args.board.cols);
            let state = match &args.edges {
                Some(edges) => {
                    let scores = parse_scores(&args.scores)?;
                    let to_move = Player::parse(&args.to_move).ok_or_else(|| {
                        format!("--to-move must be 1 or 2, got '{}'", args.to_move)
                    })?;
                    DotsAndBoxes::from_edge_string(
                        rows,
                        cols,
                        edges,
                        scores,
                        to_move,
                        args.owners.as_deref(),
                    )
                }
                None => {
                    DotsAndBoxes::from_move_text(rows, cols, args.moves.as_deref().unwrap_or(""))
                }
            }
            .map_err(|e| e.to_string())?;
            let net = args.net.load(&state)?;
            let cp = config.cp;
            match rollout(&net) {
                Some(r) => analyse_state(&state, Search::new(config, Ucb::new(cp), r), &args),
                None => analyse_state(&state, Search::plain(config), &args),
            }
        }
        GameName::Tictactoe => {
            args.net.refuse_for("tictactoe")?;
            if args.edges.is_some() {
                return Err(
                    "--edges is for Dots and Boxes; give tic-tac-toe positions with --moves".into(),
                );
            }
            let state = TicTacToe::from_move_text(args.moves.as_deref().unwrap_or(""))
                .map_err(|(i, e)| format!("move {}: {e}", i + 1))?;
            analyse_state(&state, Search::plain(config), &args)
        }
    }
}

fn parse_scores(text: &str) -> Result<[u32; 2], String> {
    let bad = || format!("--scores must be two numbers P1,P2 (e.g. 3,2), got '{text}'");
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    Ok([
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    ])
}

fn analyse_state<G: Game, R: RolloutPolicy<G>>(
    state: &G,
    mut search: Search<G, Ucb, R>,
    args: &AnalyseArgs,
) -> Result<(), String> {
    let result = search.run(state).map_err(|e| e.to_string())?;
    let mover = result.to_move;
    let net = args.net.model.as_ref().map(|path| {
        serde_json::json!({
            "model": path.display().to_string(),
            "threshold": args.net.threshold,
            "from_move": args.net.net_from_move,
        })
    });
    if args.json {
        let moves: Vec<serde_json::Value> = result
            .root_moves
            .iter()
            .map(|m| {
                serde_json::json!({
                    "action": m.action,
                    "move": state.format_action(m.action),
                    "visits": m.visits,
                    "p1_wins": m.p1_wins,
                    "p2_wins": m.p2_wins,
                    "value": m.value_for(mover),
                })
            })
            .collect();
        let report = serde_json::json!({
            "game": state.name(),
            "to_move": mover.number(),
            "best": result.best,
            "best_move": state.format_action(result.best),
            "iterations": result.iterations,
            "elapsed_ms": result.elapsed.as_secs_f64() * 1000.0,
            "iterations_per_second": result.iterations_per_second(),
            "threads": result.threads,
            "tree_nodes": result.tree_nodes,
            "tree_bytes": result.tree_bytes(),
            "rollouts": result.rollouts,
            "net": net,
            "root_moves": moves,
        });
        println!("{report}");
        return Ok(());
    }
    println!("{state}\n");
    let mut rows: Vec<_> = result.root_moves.iter().collect();
    rows.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.action.cmp(&b.action)));
    println!(
        "{:>6} {:>6} {:>10} {:>7} {:>8}",
        "move", "id", "visits", "share", "value"
    );
    let total: u64 = rows.iter().map(|m| m.visits).sum::<u64>().max(1);
    for m in rows {
        println!(
            "{:>6} {:>6} {:>10} {:>6.1}% {:>+8.3}",
            state.format_action(m.action),
            m.action,
            m.visits,
            100.0 * m.visits as f64 / total as f64,
            m.value_for(mover)
        );
    }
    println!(
        "\nbest: {} (id {}) for {mover}; value is wins minus losses over visits for {mover}",
        state.format_action(result.best),
        result.best
    );
    println!(
        "{} iterations in {:.1} ms ({:.0} iterations/s, {} thread{}), {} tree nodes ({:.1} MB at {} bytes a node)",
        result.iterations,
        result.elapsed.as_secs_f64() * 1000.0,
        result.iterations_per_second(),
        result.threads,
        if result.threads == 1 { "" } else { "s" },
        result.tree_nodes,
        result.tree_bytes() as f64 / 1e6,
        BYTES_PER_NODE
    );
    if let Some(path) = &args.net.model {
        let r = result.rollouts;
        println!(
            "net {} (threshold {}, from move {}): {} evaluations, {} of {} rollouts ended by the net ({:.1}%; the paper's good predictions)",
            path.display(),
            args.net.threshold,
            args.net.net_from_move,
            r.net_evaluations,
            r.net_cutoffs,
            r.rollouts,
            100.0 * r.net_cutoffs as f64 / r.rollouts.max(1) as f64
        );
    }
    Ok(())
}

fn run_bench(args: BenchArgs) -> Result<(), String> {
    if args.iterations == 0 || args.repeats == 0 {
        return Err("--iterations and --repeats must be positive".into());
    }
    let defaults = BenchOptions::default();
    let five = DotsAndBoxes::new(5, 5).map_err(|e| e.to_string())?;
    let opts = BenchOptions {
        iterations: args.iterations,
        threads: args.threads.unwrap_or(defaults.threads).max(1),
        repeats: args.repeats,
        net: args.net.load(&five)?,
        ..defaults
    };
    let quiet = args.json;
    let report = bench::run(&opts, |name| {
        if !quiet {
            eprintln!("measuring {name} ...");
        }
    });
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&report).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let m = |x: f64| format!("{:.2}M", x / 1e6);
    println!(
        "5x5 Dots and Boxes, plain MCTS, iterations/s over {} searches of {} iterations a thread:",
        opts.repeats, opts.iterations
    );
    println!("  empty board,   1 thread : {}", m(report.empty_1t));
    println!("  40-edge state, 1 thread : {}", m(report.edges40_1t));
    println!(
        "  empty board,   {} threads: {}",
        report.threads,
        m(report.empty_nt)
    );
    println!(
        "  40-edge state, {} threads: {}",
        report.threads,
        m(report.edges40_nt)
    );
    println!(
        "  bare random playouts from the empty board, 1 thread: {}/s",
        m(report.rollouts_empty_1t)
    );
    println!(
        "  tree: {} bytes a node; a 100,000-iteration search from the empty board uses {:.1} MB",
        report.bytes_per_node,
        report.tree_bytes_100k as f64 / 1e6
    );
    if let (Some(full), Some(inc), Some(reference), Some(rate), Some(r)) = (
        report.nn_eval_full_ns,
        report.nn_eval_incremental_ns,
        report.nn_eval_reference_ns,
        report.nn_edges40_1t,
        report.nn_edges40_rollouts,
    ) {
        println!(
            "value net {} (threshold {}, from move {}):",
            args.net
                .model
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string()),
            args.net.threshold,
            args.net.net_from_move
        );
        println!(
            "  full evaluation        : {full:.0} ns (reference forward pass {reference:.0} ns)"
        );
        println!("  incremental evaluation : {inc:.0} ns a rollout step");
        println!(
            "  40-edge state, 1 thread, net-guided: {} ({:.0} ms for 50,000 iterations); {:.2} net calls a rollout, {:.1}% of rollouts ended by the net",
            m(rate),
            50_000.0 / rate * 1000.0,
            r.net_evaluations as f64 / r.rollouts.max(1) as f64,
            100.0 * r.net_cutoffs as f64 / r.rollouts.max(1) as f64
        );
    }
    Ok(())
}
