//! The `engine` command: play against the engine, analyse a position, benchmark the search.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use engine::games::dots_and_boxes::net::NetGuide;
use engine::games::{GameSpec, RegisteredGame};
use engine::interactive;
use engine::mcts::bench::BenchOptions;
use engine::mcts::{SearchResult, BYTES_PER_NODE};
use engine::registry::{describe_games, describe_players, GameVisitor, Lookup};
use engine::{Action, Game, Player};

mod botzone_cmd;
mod match_cmd;
mod paper_amazons;
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
    /// Measure MCTS iterations per second (5x5 Dots and Boxes unless --game names a game).
    Bench(BenchArgs),
    /// Count the leaves of the move tree from the start (Amazons: whole turns), with the time.
    Perft(PerftArgs),
    /// List the games and their parameters.
    Games,
    /// List every game's players (`best`, `paper`, its own kinds, random, mcts, external) with
    /// their keys, defaults and a line each.
    Players(PlayersArgs),
    /// Speak Botzone's simple interaction for 8x8 Amazons (one turn per run, or keep running).
    Botzone(botzone_cmd::BotzoneArgs),
    /// Speak the text protocol on stdin/stdout (GTP-shaped; see docs/PROTOCOL.md).
    Protocol,
    /// Play a match between two players and report the statistics.
    Match(match_cmd::MatchArgs),
    /// Write a file of State-S-like start positions (with their perfect-play winners).
    Positions(match_cmd::PositionsArgs),
    /// Play a paper's experiments again and write them as markdown (Dots and Boxes: Tables 3-5
    /// against the rival; Amazons: the MG-PEO ablation).
    Paper(paper_cmd::PaperArgs),
    /// Play and watch every game in a browser: a local web server (see docs/serve.md).
    Serve(ServeArgs),
}

#[derive(Args)]
struct PlayersArgs {
    /// Only this game's players [default: every game's].
    #[arg(long)]
    game: Option<String>,
}

#[derive(Args)]
struct ServeArgs {
    /// The port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on; 0.0.0.0 or :: opens the page to other machines.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Let the page name players that run programs on this machine (external:, gomocup:);
    /// prints a warning. Off: they are refused.
    #[arg(long)]
    allow_external: bool,
    /// Also answer requests for this host name (a LAN name or address served on purpose,
    /// with --host); repeat for more [default: only localhost, 127.0.0.1, [::1] and the
    /// bound address].
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// The models folder: a page may name its models (model=dab-5x5) and no other file.
    #[arg(long, default_value = "models")]
    models: std::path::PathBuf,
}

#[derive(Args, Clone)]
pub struct BoardArgs {
    /// Which game (`engine games` lists them with their parameters).
    #[arg(long, default_value = "dots_and_boxes")]
    pub game: String,
    /// A game parameter as key=value, repeatable (`-p size=8 -p turn=whole`).
    #[arg(long = "param", short = 'p')]
    pub params: Vec<String>,
    /// Rows of boxes (Dots and Boxes, 1 to 7; default 5): the parameter rows.
    #[arg(long)]
    pub rows: Option<usize>,
    /// Columns of boxes (Dots and Boxes, 1 to 7; default 5): the parameter cols.
    #[arg(long)]
    pub cols: Option<usize>,
    /// Board size (Amazons: 10, 8 or 6, default 10; Gomoku: 5 to 22, default 15): the
    /// parameter size.
    #[arg(long)]
    pub size: Option<usize>,
}

/// `params` with the board flags given added as parameters.
fn with_board_flags(
    params: &[String],
    rows: Option<usize>,
    cols: Option<usize>,
    size: Option<usize>,
) -> Vec<String> {
    let mut params = params.to_vec();
    for (key, value) in [("rows", rows), ("cols", cols), ("size", size)] {
        if let Some(v) = value {
            params.push(format!("{key}={v}"));
        }
    }
    params
}

impl BoardArgs {
    /// The game and its parameters, checked.
    pub fn spec(&self) -> Result<GameSpec, String> {
        let params = with_board_flags(&self.params, self.rows, self.cols, self.size);
        GameSpec::parse(&self.game, &params)
    }
}

/// The engine a person plays or a position is analysed with: a player spec, and the flags that
/// add the common keys to it.
#[derive(Args)]
struct PlayerArgs {
    /// The engine as a player spec, as `engine match` takes them: `best` (the game's strongest),
    /// `paper` (its paper's player), `nn`, `qdab`, `alphabeta`, ... with keys after a colon
    /// (`best:time_ms=1000`, `paper:net=1`, `nn:model=FILE`). `engine players` lists every
    /// kind with its keys and defaults.
    #[arg(long, default_value = "best")]
    player: String,
    /// Milliseconds a move: adds time_ms=MS to the player.
    #[arg(long)]
    time_ms: Option<u64>,
    /// Iterations a move, over all threads: adds iterations=N to the player [player's default:
    /// 100000 for MCTS players unless only a time is given].
    #[arg(long)]
    iterations: Option<u64>,
    /// Search threads (0: one a core, at most 256): adds threads=N to the player [player's
    /// default: 1].
    #[arg(long, value_parser = engine::cli::parse_threads)]
    threads: Option<usize>,
    /// Seed of the search's random choices: adds seed=N to the player [player's default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// A net file, or product or none (Dots and Boxes: a value net from `train run`; Gomoku: a
    /// pattern net from `train pattern`): adds model=PATH to the player.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Evaluation weights from `tune` (best-weights.json; Amazons, Gomoku, Surakarta): adds
    /// weights=PATH to the player.
    #[arg(long)]
    weights: Option<PathBuf>,
}

impl PlayerArgs {
    /// The player spec with the flags' keys added; a key both in the spec and a flag is refused.
    fn resolve(&self) -> Result<EnginePlayer, String> {
        let threads = self.threads.map(engine::cli::or_all_cores);
        let flags = [
            ("time-ms", "time_ms", self.time_ms.map(|v| v.to_string())),
            (
                "iterations",
                "iterations",
                self.iterations.map(|v| v.to_string()),
            ),
            ("threads", "threads", threads.map(|v| v.to_string())),
            ("seed", "seed", self.seed.map(|v| v.to_string())),
            (
                "model",
                "model",
                self.model.as_ref().map(|p| p.display().to_string()),
            ),
            (
                "weights",
                "weights",
                self.weights.as_ref().map(|p| p.display().to_string()),
            ),
        ];
        let text = self.player.trim();
        let body = text.split_once(':').map_or("", |(_, body)| body);
        let (mut added, mut given) = (Vec::new(), Vec::new());
        for (flag, key, value) in flags {
            let Some(value) = value else { continue };
            if body
                .split(',')
                .any(|k| k.split('=').next().map(str::trim) == Some(key))
            {
                return Err(format!(
                    "--{flag} and the player's {key}= both set ('{text}'): give one"
                ));
            }
            added.push(engine::agents::spec::key_value(key, &value));
            given.push(format!("--{flag}"));
        }
        Ok(EnginePlayer {
            text: engine::agents::spec::with_keys(text, &added),
            flags: given,
        })
    }
}

/// The engine's player as `--player` and the flags name it.
struct EnginePlayer {
    /// The spec, the flags' keys included.
    text: String,
    /// The flags that added keys to it.
    flags: Vec<String>,
}

impl EnginePlayer {
    /// The player of `start`'s game; an error about a key a flag added names the flag.
    fn build<G: RegisteredGame>(
        &self,
        start: &G,
    ) -> Result<Box<dyn engine::agents::Agent<G>>, String> {
        let spec = engine::agents::parse_spec(&self.text)?;
        G::build_player(&spec, start).map_err(|e| {
            if self.flags.is_empty() {
                return e;
            }
            format!(
                "{e} ({} {} keys to the player; `engine players --game {}` lists the keys it takes)",
                self.flags.join(", "),
                if self.flags.len() == 1 { "adds" } else { "add" },
                G::NAME
            )
        })
    }
}

#[derive(Args)]
struct PlayArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Which side you play: 1 (moves first) or 2.
    #[arg(long, default_value = "1")]
    human: String,
    #[command(flatten)]
    engine: PlayerArgs,
}

#[derive(Args)]
struct AnalyseArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// The moves from the start, separated by spaces, in the game's notation or as ids
    /// (Dots and Boxes: h<r>,<c> / v<r>,<c>; Amazons: d1-d7/g7).
    #[arg(long, conflicts_with_all = ["edges", "position"])]
    moves: Option<String>,
    /// The position as the protocol's set_position arguments, in one string (Amazons:
    /// "BOARD TO_MOVE [FROM-TO]").
    #[arg(long, conflicts_with = "edges")]
    position: Option<String>,
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
    engine: PlayerArgs,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// The value net the benchmark measures (the paper's Algorithm 5).
#[derive(Args, Clone)]
struct BenchNetArgs {
    /// A net to measure too: a value net (model.safetensors from `train`: evaluation cost,
    /// net-guided search; on 5x5 from the 40-edge position) or a Gomoku pattern net (`pvs`
    /// with it). Without --game, the game and, without a board flag, the board are the net's.
    #[arg(long)]
    model: Option<PathBuf>,
    /// With --model: a rollout stops once the net's largest output (P1 wins, P2 wins, draw)
    /// reaches this; at 1 the net is asked but never stops a rollout.
    #[arg(long, default_value_t = NetGuide::DEFAULT_THRESHOLD)]
    threshold: f64,
    /// With --model: ask the net only in positions with at least this many edges drawn
    /// (earlier rollout steps are plain random moves); the players' net_from_move.
    #[arg(long, default_value_t = 0)]
    net_from_move: u32,
}

#[derive(Args)]
struct BenchArgs {
    /// Another game than 5x5 Dots and Boxes (with -p/--size for its parameters).
    #[arg(long)]
    game: Option<String>,
    /// A game parameter as key=value for --game, repeatable.
    #[arg(long = "param", short = 'p')]
    params: Vec<String>,
    /// Rows of boxes (Dots and Boxes, 1 to 7): the product's search, the exact solver's reach
    /// and, with --model, the net's figures on that board instead of the paper's 5x5 report.
    #[arg(long)]
    rows: Option<usize>,
    /// Columns of boxes (Dots and Boxes, 1 to 7), as --rows.
    #[arg(long)]
    cols: Option<usize>,
    /// Board size for --game (Amazons: 10, 8 or 6; Gomoku: 5 to 22).
    #[arg(long)]
    size: Option<usize>,
    /// Iterations of one search, per thread (default: the paper's 100,000 a move for Dots and
    /// Boxes, 20,000 for other games).
    #[arg(long)]
    iterations: Option<u64>,
    /// Threads for the *_nt figures (0: one a core, at most 256) [default: 0].
    #[arg(long, value_parser = engine::cli::parse_threads)]
    threads: Option<usize>,
    /// Searches per figure (a fresh tree each); a figure is total iterations over total time.
    #[arg(long, default_value_t = 10)]
    repeats: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    net: BenchNetArgs,
}

fn main() -> ExitCode {
    let cli: Cli = engine::cli::parse_args();
    let result = match cli.command {
        Command::Play(args) => play(args),
        Command::Analyse(args) => analyse(args),
        Command::Bench(args) => run_bench(args),
        Command::Perft(args) => perft(args),
        Command::Games => {
            println!("{}", describe_games());
            Ok(())
        }
        Command::Players(args) => {
            describe_players(args.game.as_deref()).map(|text| println!("{text}"))
        }
        Command::Botzone(args) => botzone_cmd::run(args),
        Command::Match(args) => match_cmd::run(args),
        Command::Positions(args) => match_cmd::positions(args),
        Command::Paper(args) => paper_cmd::run(args),
        Command::Serve(args) => engine::serve::run(engine::serve::ServeOptions {
            host: args.host,
            port: args.port,
            allow_external: args.allow_external,
            allow_hosts: args.allow_hosts,
            models: args.models,
        }),
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
    let spec = args.board.spec()?;
    let player = args.engine.resolve()?;
    struct PlayCmd {
        human: Player,
        player: EnginePlayer,
    }
    impl GameVisitor for PlayCmd {
        type Output = Result<(), String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Result<(), String> {
            let stdin = io::stdin();
            let mut input = stdin.lock();
            let mut out = io::stdout().lock();
            let io_err = |e: io::Error| format!("terminal: {e}");
            let agent = self.player.build(&start)?;
            let engine = interactive::AgentSide::new(agent, &start)?;
            if io::stdin().is_terminal() {
                let mut moves = Vec::new();
                start.legal_actions(&mut moves);
                let example = moves
                    .first()
                    .map_or(String::new(), |&a| start.format_action(a));
                writeln!(
                    out,
                    "Moves in the game's notation (for example {example}), or an id."
                )
                .map_err(io_err)?;
            }
            interactive::play(start, self.human, engine, &mut input, &mut out).map_err(io_err)?;
            Ok(())
        }
    }
    spec.visit(PlayCmd { human, player })?
}

fn analyse(args: AnalyseArgs) -> Result<(), String> {
    let spec = args.board.spec()?;
    let player = args.engine.resolve()?;
    struct AnalyseCmd<'a> {
        args: &'a AnalyseArgs,
        player: EnginePlayer,
    }
    impl GameVisitor for AnalyseCmd<'_> {
        type Output = Result<(), String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Result<(), String> {
            let args = self.args;
            // The moves from the start, where the position was given by them: a player that
            // replays the game (a Gomocup brain) is told them, as a match tells it.
            let mut history = Vec::new();
            let state = if let Some(edges) = &args.edges {
                if start.name() != "dots_and_boxes" {
                    return Err(
                        "--edges is for Dots and Boxes; give positions with --moves or --position"
                            .into(),
                    );
                }
                let mut words = vec![edges.as_str()];
                let (p1, p2) = args.scores.split_once(',').ok_or_else(|| {
                    format!(
                        "--scores must be two numbers P1,P2 (e.g. 3,2), got '{}'",
                        args.scores
                    )
                })?;
                words.extend([p1.trim(), p2.trim(), args.to_move.as_str()]);
                if let Some(owners) = &args.owners {
                    words.push(owners);
                }
                start.parse_position(&words)?
            } else if let Some(position) = &args.position {
                let words: Vec<&str> = position.split_whitespace().collect();
                start.parse_position(&words)?
            } else {
                let mut state = start.clone();
                for (i, word) in args
                    .moves
                    .as_deref()
                    .unwrap_or("")
                    .split_whitespace()
                    .enumerate()
                {
                    let plies = state
                        .parse_legal_plies(word)
                        .map_err(|e| format!("move {}: {e}", i + 1))?;
                    for a in plies {
                        state.apply(a);
                        history.push(a);
                    }
                }
                state
            };
            if state.is_terminal() {
                return Err("the game is over: there is no move to search".into());
            }
            // Without the moves, the game starts where it is to be searched.
            let first = if history.is_empty() { &state } else { &start };
            analyse_with_player(&self.player, first, &state, &history, args)
        }
    }
    spec.visit(AnalyseCmd {
        args: &args,
        player,
    })?
}

/// `engine analyse`: the player's move for `state`, with its search's root moves when a tree
/// search chose it, else what the player said of it (a forced reply, a solver's move, an
/// alpha-beta's score).
fn analyse_with_player<G: RegisteredGame>(
    player: &EnginePlayer,
    start: &G,
    state: &G,
    history: &[Action],
    args: &AnalyseArgs,
) -> Result<(), String> {
    let text = player.text.as_str();
    let mut agent = player.build(state)?;
    agent
        .new_game(start, &[])
        .map_err(|e| format!("{text}: {e}"))?;
    let choice = agent
        .choose(state, history)
        .map_err(|e| format!("{text}: {e}"))?;
    if let Some(result) = agent.last_search() {
        let result = result.clone();
        return analyse_report(state, &result, &[choice.action], text, args);
    }
    let odds = choice.win_probability.map_or(String::new(), |p| {
        format!(", {:.0}% to win for it", 100.0 * p)
    });
    let how = if let Some(how) = choice.how {
        format!("{how}, found without a tree search")
    } else if let (0, Some(note)) = (choice.iterations, &choice.note) {
        // The player's own account of what chose it (`pbrain`'s MESSAGE for Gomoku).
        format!("found without a tree search ({note})")
    } else if choice.iterations == 0 {
        "found without a tree search (knowledge: a forced or solved move)".to_string()
    } else {
        format!("{} nodes searched without a tree", choice.iterations)
    };
    if args.json {
        let json = serde_json::json!({
            "player": text,
            "best": state.format_action(choice.action),
            "best_id": choice.action,
            "iterations": choice.iterations,
            "win_probability": choice.win_probability,
            "how": choice.how,
            "note": choice.note,
        });
        println!("{json}");
    } else {
        let name = agent.name();
        let by = if name == text {
            name
        } else {
            format!("{text} ({name})")
        };
        println!(
            "{}: {} by {by} ({how}{odds})",
            state.format_action(choice.action),
            choice.action,
        );
        if let (Some(note), true) = (&choice.note, choice.iterations > 0) {
            println!("search: {note}");
        }
    }
    Ok(())
}

fn analyse_report<G: Game>(
    state: &G,
    result: &SearchResult,
    plies: &[engine::Action],
    player: &str,
    args: &AnalyseArgs,
) -> Result<(), String> {
    let mover = result.to_move;
    let turn = state.format_plies(plies);
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
            "turn": turn,
            "iterations": result.iterations,
            "elapsed_ms": result.elapsed.as_secs_f64() * 1000.0,
            "iterations_per_second": result.iterations_per_second(),
            "threads": result.threads,
            "tree_nodes": result.tree_nodes,
            "tree_bytes": result.tree_bytes(),
            "rollouts": result.rollouts,
            "player": player,
            "root_moves": moves,
        });
        println!("{report}");
        return Ok(());
    }
    println!("{state}\n");
    let mut rows: Vec<_> = result.root_moves.iter().collect();
    rows.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.action.cmp(&b.action)));
    println!(
        "{:>8} {:>6} {:>10} {:>7} {:>8}",
        "move", "id", "visits", "share", "value"
    );
    let total: u64 = rows.iter().map(|m| m.visits).sum::<u64>().max(1);
    for m in rows.iter().take(40) {
        println!(
            "{:>8} {:>6} {:>10} {:>6.1}% {:>+8.3}",
            state.format_action(m.action),
            m.action,
            m.visits,
            100.0 * m.visits as f64 / total as f64,
            m.value_for(mover)
        );
    }
    if rows.len() > 40 {
        println!(
            "  ... {} more moves (--json lists them all)",
            rows.len() - 40
        );
    }
    println!(
        "\nbest: {} (id {}) for {mover}; value is wins minus losses over visits for {mover}",
        state.format_action(result.best),
        result.best
    );
    if plies.len() > 1 {
        println!("the whole turn: {turn}");
    }
    if result.root_moves.len() == 1 {
        // A figure of a few iterations a second would look like a bug: say what happened.
        println!(
            "only one move to search (the game's knowledge leaves one candidate: a forced reply, \
             or the opening point): the search stopped at once"
        );
    }
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
    let r = result.rollouts;
    if r.net_evaluations > 0 {
        println!(
            "the net: {} evaluations; it ended {} of {} rollouts ({:.1}%, the paper's good predictions)",
            r.net_evaluations,
            r.net_cutoffs,
            r.rollouts,
            100.0 * r.net_cutoffs as f64 / r.rollouts.max(1) as f64
        );
    }
    println!("by {player}");
    Ok(())
}

#[derive(Args)]
struct PerftArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Depth in whole turns (Amazons) or plies.
    #[arg(long, default_value_t = 2)]
    depth: u32,
}

fn perft(args: PerftArgs) -> Result<(), String> {
    let spec = args.board.spec()?;
    struct PerftCmd(u32);
    impl GameVisitor for PerftCmd {
        type Output = (u64, f64);
        fn visit<G: RegisteredGame>(self, start: G) -> (u64, f64) {
            let t = std::time::Instant::now();
            let n = start.perft(self.0);
            (n, t.elapsed().as_secs_f64())
        }
    }
    for depth in 1..=args.depth {
        let (leaves, secs) = spec.visit(PerftCmd(depth))?;
        println!(
            "{spec} perft {depth}: {leaves} leaves in {secs:.3} s ({:.1} M leaves/s)",
            leaves as f64 / secs.max(1e-9) / 1e6
        );
    }
    Ok(())
}

/// The game `engine bench` measures when none is named: the paper's.
const BENCH_GAME: &str = "dots_and_boxes";

/// The game and board a model file was made for, read from its metadata by its format: a value
/// net names its game and board, a Gomoku pattern net its rule and size. None for a file that
/// cannot be read or is of another format: the game's own benchmark then says what is wrong.
fn model_game(path: &std::path::Path) -> Result<Option<GameSpec>, String> {
    use engine::games::gomoku::net::{PatternNet, NET_FORMAT as PATTERN_NET};
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(None);
    };
    let Some(format) = engine::nn::parse_safetensors(&bytes)
        .ok()
        .and_then(|(meta, _)| meta.get("format").cloned())
    else {
        return Ok(None);
    };
    match format.as_str() {
        engine::nn::MODEL_FORMAT => engine::nn::ValueNet::load(path, engine::registry::GAMES)
            .map(|net| Some(net.meta.game))
            .map_err(|e| e.to_string()),
        PATTERN_NET => {
            let net = PatternNet::load(path)?;
            let params = [
                format!("size={}", net.size),
                format!("rule={}", net.rule.name()),
            ];
            GameSpec::parse(engine::games::Gomoku::NAME, &params).map(Some)
        }
        _ => Ok(None),
    }
}

fn run_bench(args: BenchArgs) -> Result<(), String> {
    if args.iterations == Some(0) || args.repeats == 0 {
        return Err("--iterations and --repeats must be positive".into());
    }
    // Without --game or a board: 5x5 Dots and Boxes, the paper's benchmark, printed as its
    // report. Without --game, a --model's metadata names the game, and without a board flag
    // its board too.
    let params = with_board_flags(&args.params, args.rows, args.cols, args.size);
    let from_model = match (&args.game, &args.net.model) {
        (None, Some(path)) => model_game(path)?,
        _ => None,
    };
    let spec = match from_model {
        Some(spec) if params.is_empty() => spec,
        Some(spec) => GameSpec::parse(spec.name(), &params)?,
        None => GameSpec::parse(args.game.as_deref().unwrap_or(BENCH_GAME), &params)?,
    };
    let default_game = args.game.is_none()
        && args.rows.is_none()
        && args.cols.is_none()
        && spec == GameSpec::parse(BENCH_GAME, &[] as &[String])?;
    let defaults = BenchOptions::default();
    let opts = BenchOptions {
        iterations: args.iterations.unwrap_or(0),
        threads: args
            .threads
            .map_or(defaults.threads, engine::cli::or_all_cores),
        repeats: args.repeats,
        model: args.net.model.clone(),
        threshold: args.net.threshold,
        net_from_move: args.net.net_from_move,
        quiet: args.json,
        report: default_game,
        ..defaults
    };
    struct BenchCmd(BenchOptions);
    impl GameVisitor for BenchCmd {
        type Output = Result<(engine::mcts::bench::BenchOutput, u64), String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            let mut opts = self.0;
            if opts.iterations == 0 {
                opts.iterations = G::BENCH_ITERATIONS;
            }
            Ok((G::bench(&start, &opts)?, opts.iterations))
        }
    }
    if !args.json && !default_game {
        eprintln!("measuring {spec} ...");
    }
    let (output, iterations) = spec.visit(BenchCmd(opts.clone()))??;
    if default_game {
        if let Some((text, json)) = &output.report {
            if args.json {
                println!("{json}");
            } else {
                print!("{text}");
            }
            return Ok(());
        }
    }
    if args.json {
        let report = serde_json::json!({ "game": spec, "figures": output.figures });
        println!("{report}");
        return Ok(());
    }
    println!(
        "{spec}: {} searches of {iterations} iterations a thread for each MCTS figure",
        opts.repeats
    );
    for f in output.figures {
        println!("  {:<58} {:>14.1} {}", f.name, f.value, f.unit);
    }
    Ok(())
}
