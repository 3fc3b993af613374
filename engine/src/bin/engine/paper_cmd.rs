//! `engine paper`: the Dots-and-Boxes paper's Tables 3, 4 and 5 played again against the rival,
//! from the State-S-like positions, from earlier positions and from the empty board, written as
//! markdown beside the paper's figures.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use engine::agents::parse_spec;
use engine::arena::positions::{read_positions, StartPosition};
use engine::arena::{format_ms, run_match, MatchConfig, MatchReport, PlayerStats};
use engine::games::dots_and_boxes::spec::build_dots;
use engine::games::{DotsAndBoxes, GameSpec};
use engine::registry::Lookup;

#[derive(Args)]
pub struct PaperArgs {
    /// Whose paper: dots_and_boxes (Tables 3-5) or amazons (the MG-PEO paper's Tables 6 and 8).
    #[arg(long, default_value = "dots_and_boxes")]
    pub game: String,
    /// Amazons: time a move of every player.
    #[arg(long, default_value_t = 1000)]
    pub time_ms: u64,
    /// The 40-edge positions (State S like, with perfect-play winners).
    #[arg(long, default_value = "configs/state-s-40.txt")]
    positions40: PathBuf,
    /// Earlier positions (20 edges drawn).
    #[arg(long, default_value = "configs/positions-20.txt")]
    positions20: PathBuf,
    /// Games a setting from the 40- and 20-edge positions (the paper played 100); Amazons: games
    /// a row.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Games a setting from the empty board.
    #[arg(long, default_value_t = 20)]
    empty_games: usize,
    /// The value net of Table 5.
    #[arg(long, default_value = "models/dab-5x5/model.safetensors")]
    model: PathBuf,
    /// The rival's spec.
    #[arg(long, default_value = "rival")]
    rival: String,
    /// Games played at once (0: one a core, at most 256). `--threads` is its old spelling.
    #[arg(long, alias = "threads", default_value_t = 0, value_parser = engine::cli::parse_threads)]
    parallel_games: usize,
    /// The seed of the matches: game k's players are seeded from it and k.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Iterations are divided by this, to try the command: 100 makes 100K 1K. Even so,
    /// `--games 2 --empty-games 2 --scale-down 1000 --parallel-games 1` took 12 s here.
    #[arg(long, default_value_t = 1)]
    scale_down: u64,
    /// Write the markdown here (also printed).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Overwrite the --out file when it exists (without it an existing file is refused before
    /// any game).
    #[arg(long)]
    pub force: bool,
}

/// One row: what our engine plays.
struct Setting {
    /// The paper's table number, or "ours" for the product's engine, with its knowledge.
    table: &'static str,
    label: &'static str,
    iterations: u64,
    spec: String,
    /// The paper's wins for its engine (P2) of 100 games from State S, and its P2 time a move.
    paper: Option<(u32, Option<u32>)>,
    good_paper: Option<u32>,
}

fn settings(model: &str, scale: u64) -> Vec<Setting> {
    let mut out = Vec::new();
    let it = |n: u64| (n / scale).max(1);
    for (n, paper) in [(10_000, 0), (100_000, 0)] {
        out.push(Setting {
            table: "3",
            label: "single counter",
            iterations: n,
            spec: format!("mcts:iterations={},counter=single", it(n)),
            paper: Some((paper, None)),
            good_paper: None,
        });
    }
    for (n, wins, ms) in [
        (1_000, 5, 13),
        (5_000, 14, 67),
        (10_000, 28, 129),
        (30_000, 35, 363),
        (50_000, 48, 586),
        (100_000, 49, 1226),
    ] {
        out.push(Setting {
            table: "4",
            label: "plain MCTS",
            iterations: n,
            spec: format!("mcts:iterations={}", it(n)),
            paper: Some((wins, Some(ms))),
            good_paper: None,
        });
    }
    for (n, wins, good, ms) in [
        (5_000, 54, 2_430, None),
        (10_000, 66, 5_553, None),
        (30_000, 75, 17_885, None),
        (50_000, 81, 30_410, Some(7_345)),
        (70_000, 82, 41_093, None),
    ] {
        out.push(Setting {
            table: "5",
            label: "net-guided, threshold 0.9",
            iterations: n,
            spec: format!(
                "paper:net=1,model={model},threshold=0.9,iterations={}",
                it(n)
            ),
            paper: Some((wins, ms)),
            good_paper: Some(good),
        });
    }
    // The product's engine of the paper's tables: the same searches with the safe edges first
    // at the root, free captures at once and the exact solver from 34 free edges on; plain
    // MCTS with the same knowledge shows what the net adds. Random rollouts as in the paper
    // (the product's chain rollouts came later; docs/players.md measures them), so that these
    // rows stay what docs/paper-results.md reports.
    for (label, spec) in [
        (
            "net-guided + knowledge",
            format!(
                "nn:model={model},threshold=0.9,iterations={},rollout=random",
                it(50_000)
            ),
        ),
        (
            "plain MCTS + knowledge",
            format!(
                "mcts:iterations={},solver_edges=34,safe_first=1",
                it(50_000)
            ),
        ),
    ] {
        out.push(Setting {
            table: "ours",
            label,
            iterations: 50_000,
            spec,
            paper: None,
            good_paper: None,
        });
    }
    out
}

/// The settings also played from the earlier positions and the empty board.
fn key_setting(s: &Setting) -> bool {
    matches!(
        (s.table, s.iterations),
        ("3", 100_000)
            | ("4", 10_000)
            | ("4", 50_000)
            | ("4", 100_000)
            | ("5", 5_000)
            | ("5", 50_000)
            | ("ours", _)
    )
}

/// One match of `args.games`-style settings between two specs from `positions`.
fn play_pair(
    board: &DotsAndBoxes,
    specs: [&str; 2],
    positions: &[StartPosition],
    games: usize,
    args: &PaperArgs,
) -> Result<MatchReport, String> {
    let players = [parse_spec(specs[0])?, parse_spec(specs[1])?];
    let config = MatchConfig {
        game: engine::games::DotsAndBoxes::spec_for(5, 5)?,
        players: [specs[0].to_string(), specs[1].to_string()],
        games,
        positions: positions.to_vec(),
        threads: engine::cli::or_all_cores(args.parallel_games),
        seed: args.seed,
        sprt: None,
        records: None,
        replace_records: false,
    };
    let build = || -> Result<_, String> {
        Ok([
            build_dots(&players[0], board)?,
            build_dots(&players[1], board)?,
        ])
    };
    run_match(board, &config, &build, |_, _| {})
}

/// "converted/winnable (share)", or "-" without annotated positions.
fn conversion(p: &PlayerStats) -> String {
    p.conversion().map_or("-".to_string(), |c| {
        format!("{}/{} ({:.0}%)", p.converted, p.winnable_seats, 100.0 * c)
    })
}

pub fn run(args: PaperArgs) -> Result<(), String> {
    if let Some(path) = &args.out {
        engine::cli::check_output_file(path, args.force).map_err(|e| format!("--out {e}"))?;
    }
    match GameSpec::named(&args.game)?.name() {
        "amazons" => return super::paper_amazons::run(args),
        "dots_and_boxes" => {}
        other => {
            return Err(format!(
                "engine paper knows dots_and_boxes and amazons, not {other}"
            ))
        }
    }
    let board = DotsAndBoxes::new(5, 5).map_err(|e| e.to_string())?;
    // A bad rival spec fails here, before any game.
    parse_spec(&args.rival)?;
    let model = args.model.display().to_string();
    let sets: Vec<(&str, Vec<StartPosition>, usize)> = vec![
        (
            "40-edge State-S-like positions",
            read_positions(&args.positions40, &board)?,
            args.games,
        ),
        (
            "20-edge positions",
            read_positions(&args.positions20, &board)?,
            args.games,
        ),
        ("the empty board", Vec::new(), args.empty_games),
    ];
    let started = Instant::now();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# The paper's Tables 3, 4 and 5, played again\n\n\
         Made by `engine paper --games {} --empty-games {} --parallel-games {} --seed {}{}` \
         (rival spec `{}`, model `{}`). Each start position is played twice, seats swapped; \
         \"ours\" is the engine of the row, \"W-L\" its wins and losses, \"converted\" the seats \
         that perfect play wins for it (from the exact solver's annotation) that it won. The \
         paper played one State S, its engine always P2, 100 games a row; its column is its \
         engine's wins of those 100. Tables 3-5 play the paper's engine, with no knowledge of \
         the game (`paper`, and `paper:net=1` with the net: random rollouts, no solver or proofs); rows *ours* play the same \
         search with the product's knowledge of the game (as the rival's): only the safe edges \
         searched at the root while there are any and no box to take, free captures taken at \
         once, and the exact solver from 34 free edges on (the rival's starts at 30), still with \
         the paper's random rollouts (`rollout=random`; the product's chain rollouts are \
         measured in docs/players.md).\n",
        args.games,
        args.empty_games,
        args.parallel_games,
        args.seed,
        if args.scale_down > 1 {
            format!(" --scale-down {}", args.scale_down)
        } else {
            String::new()
        },
        args.rival,
        model
    );
    for (set_index, (set_name, positions, games)) in sets.iter().enumerate() {
        let _ = writeln!(md, "\n## From {set_name} ({games} games a row)\n");
        let _ = writeln!(
            md,
            "| table | ours | iterations | paper: wins of 100 (P2) | ours W-L | score (95%) | converted | ms/move ours | ms/move rival | paper ms/move (P2) | good predictions a move (paper) |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
        for s in settings(&model, args.scale_down) {
            if set_index > 0 && !key_setting(&s) {
                continue;
            }
            let report = play_pair(&board, [&s.spec, &args.rival], positions, *games, &args)?;
            let a = &report.players[0];
            let b = &report.players[1];
            let p = &report.pair;
            let converted = conversion(a);
            let good = if a.rollouts.net_evaluations > 0 {
                format!(
                    "{:.0} ({})",
                    a.good_predictions_per_move(),
                    s.good_paper.map_or("-".into(), |g| g.to_string())
                )
            } else {
                "-".into()
            };
            let paper_wins = s.paper.map_or("-".into(), |(w, _)| w.to_string());
            let paper_ms = s.paper.and_then(|(_, ms)| ms);
            let line = format!(
                "| {} | {} | {}K | {} | {}-{} | {:.2} ({:.2}-{:.2}) | {} | {} | {} | {} | {} |",
                s.table,
                s.label,
                s.iterations / 1000,
                paper_wins,
                a.wins,
                a.losses,
                p.score,
                p.score_low,
                p.score_high,
                converted,
                format_ms(a.ms_per_move()),
                format_ms(b.ms_per_move()),
                paper_ms.map_or("-".into(), |m| m.to_string()),
                good
            );
            eprintln!(
                "[{:.0} s] {set_name}: {line}",
                started.elapsed().as_secs_f64()
            );
            let _ = writeln!(md, "{line}");
        }
    }
    // What the net adds to the same search, without the rival's endgame play in the way.
    let _ = writeln!(
        md,
        "\n## Net-guided against plain MCTS at the same iterations, from the 40-edge positions ({} games a row)\n",
        args.games
    );
    let _ = writeln!(
        md,
        "| iterations | net-guided W-L | score (95%) | Elo | LOS | converted: net-guided | converted: plain | ms/move net-guided | ms/move plain | good predictions a move |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|");
    for s in settings(&model, args.scale_down)
        .iter()
        .filter(|s| s.table == "5")
    {
        let plain = format!(
            "mcts:iterations={}",
            (s.iterations / args.scale_down).max(1)
        );
        let report = play_pair(&board, [&s.spec, &plain], &sets[0].1, args.games, &args)?;
        let (a, b, p) = (&report.players[0], &report.players[1], &report.pair);
        let line = format!(
            "| {}K | {}-{} | {:.2} ({:.2}-{:.2}) | {:+.0} +/- {:.0} | {:.1}% | {} | {} | {} | {} | {:.0} |",
            s.iterations / 1000,
            a.wins,
            a.losses,
            p.score,
            p.score_low,
            p.score_high,
            p.elo,
            p.elo_error,
            100.0 * p.los,
            conversion(a),
            conversion(b),
            format_ms(a.ms_per_move()),
            format_ms(b.ms_per_move()),
            a.good_predictions_per_move()
        );
        eprintln!(
            "[{:.0} s] net-guided vs plain: {line}",
            started.elapsed().as_secs_f64()
        );
        let _ = writeln!(md, "{line}");
    }
    let _ = writeln!(
        md,
        "\nTotal time {:.0} s on {}.",
        started.elapsed().as_secs_f64(),
        engine::cli::count(
            engine::cli::or_all_cores(args.parallel_games) as u64,
            "thread"
        )
    );
    print!("{md}");
    if let Some(path) = &args.out {
        std::fs::write(path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
