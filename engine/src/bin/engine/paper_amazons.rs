//! `engine paper --game amazons`: the MG-PEO paper's ablation (its Table 8) and match points
//! (its Table 6) played again: plain whole-turn MCTS, with Parallel Evaluation, with Move
//! Groups, with both, and MG on all cores by root parallelism, each at equal time a move against
//! the whole-turn baseline and against the alpha-beta rival, seats swapped, written as markdown
//! beside the paper's numbers.

use std::fmt::Write as _;
use std::time::Instant;

use engine::agents::{parse_spec, MATCH_POINT};
use engine::arena::{run_match, MatchConfig, MatchGame, MatchReport};
use engine::games::amazons::{Amazons, TurnShape};
use engine::games::RegisteredGame;

use super::paper_cmd::PaperArgs;

/// One variant of the search: its label, its `mcts` keys, whether it is the paper's design
/// (then [`PAPER_SEARCH`] is added to its keys), and the paper's Table 8 row (win rate against
/// its 50 opponents, iterations in one second on an i7-11800H).
struct Variant {
    label: &'static str,
    keys: &'static str,
    paper_design: bool,
    paper: Option<(u32, u32)>,
}

/// The paper's MCTS as `mcts` keys: random expansion, shallow rollouts, the evaluation's sign,
/// the generic exploration constant, the paper's evaluation (the Amazons default search is
/// ours, not the paper's).
const PAPER_SEARCH: &str = "expand=random,backup=sign,cp=1.414,eval=paper";

impl Variant {
    /// The player's spec at `time_ms` a move.
    fn spec(&self, time_ms: u64) -> String {
        if self.paper_design {
            format!("mcts:time_ms={time_ms},{},{PAPER_SEARCH}", self.keys)
        } else {
            format!("mcts:time_ms={time_ms},{}", self.keys)
        }
    }
}

const VARIANTS: [Variant; 6] = [
    Variant {
        label: "MCTS (whole turn)",
        keys: "turn=whole,pe=0",
        paper_design: true,
        paper: Some((74, 2_176)),
    },
    Variant {
        label: "MCTS + PE",
        keys: "turn=whole,pe=1",
        paper_design: true,
        paper: Some((89, 10_026)),
    },
    Variant {
        label: "MCTS + MG",
        keys: "turn=split,pe=0",
        paper_design: true,
        paper: Some((83, 5_663)),
    },
    Variant {
        label: "MCTS + MG-PEO",
        keys: "turn=split,pe=1",
        paper_design: true,
        paper: Some((97, 45_536)),
    },
    Variant {
        label: "MCTS + MG, 2 threads (root parallel)",
        keys: "turn=split,pe=0,threads=2",
        paper_design: true,
        paper: None,
    },
    Variant {
        label: "MG, every child evaluated at expansion (the default `mcts`)",
        keys: "turn=split",
        paper_design: false,
        paper: None,
    },
];

/// The paper's match-point round of a lost game (the longest game of its table).
const PAPER_LOST_ROUNDS: f64 = 47.0;

/// The match-point figures of player A over a match: the mean round over the games it won
/// with a match point, and the paper's convention (a lost game, or one never sure, counts 47).
fn match_points(report: &MatchReport) -> (Option<f64>, f64) {
    let a = &report.players[0];
    let mut paper_sum = 0.0;
    for g in &report.games {
        let seat = g.a_seat.index();
        paper_sum += match (g.a_result(), g.report.match_point[seat]) {
            (1, Some(m)) => m as f64,
            _ => PAPER_LOST_ROUNDS,
        };
    }
    (
        a.mean_match_point(),
        paper_sum / report.games.len().max(1) as f64,
    )
}

fn play(
    start: &Amazons,
    specs: [&str; 2],
    args: &PaperArgs,
    progress: impl Fn(usize),
) -> Result<MatchReport, String> {
    let players = [parse_spec(specs[0])?, parse_spec(specs[1])?];
    let config = MatchConfig {
        game: start.spec(),
        players: [specs[0].to_string(), specs[1].to_string()],
        games: args.games,
        positions: Vec::new(),
        // One game at a time: a PE player's helper thread and a 2-thread player need the
        // second core.
        threads: 1,
        seed: args.seed,
        sprt: None,
        records: None,
        replace_records: false,
    };
    let build = || -> Result<_, String> {
        Ok([
            Amazons::build_player(&players[0], start)?,
            Amazons::build_player(&players[1], start)?,
        ])
    };
    run_match(start, &config, &build, |_: &MatchGame, r: &MatchReport| {
        progress(r.games.len())
    })
}

pub fn run(args: PaperArgs) -> Result<(), String> {
    let start = Amazons::new(10, TurnShape::Split)?;
    let t = args.time_ms;
    if t == 0 || args.games == 0 {
        return Err("--time-ms and --games must be positive".into());
    }
    let baseline = VARIANTS[0].spec(t);
    let rival = format!("alphabeta:time_ms={t}");
    let started = Instant::now();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# The MG-PEO paper's experiments, again (10x10 Amazons)\n\n\
         Made by `engine paper --game amazons --games {} --time-ms {t} --seed {}`: every row \
         plays {} games at {t} ms a move, seats swapped game by game, one game at a time on \
         this machine. *vs MCTS* is the plain whole-turn MCTS of the first row; *vs alpha-beta* \
         the iterative-deepening alpha-beta rival with the same evaluation. The paper's win \
         rates are against its 50 Botzone and competition opponents (its Table 8), its \
         iterations are in one second on an i7-11800H. Iterations a second are ours, in the \
         games (all plies the player searched; MG counts a queen-move or arrow node an \
         iteration, as the paper does). *Match point* is the first of a player's searched \
         moves at which its estimate reached {:.0}% (the paper's Table 6): the mean over the \
         games it won, and the paper's convention (a game lost or never sure counts {}).\n",
        args.games,
        args.seed,
        args.games,
        100.0 * MATCH_POINT,
        PAPER_LOST_ROUNDS,
    );
    let _ = writeln!(
        md,
        "| player | opponent | won | win rate | paper win rate | iterations/s | paper iterations in 1 s | match point (wins) | match point (paper's convention) |\n\
         |---|---|---|---|---|---|---|---|---|"
    );
    for (i, v) in VARIANTS.iter().enumerate() {
        let spec = v.spec(t);
        let mut opponents = vec![("alpha-beta", rival.as_str())];
        if i > 0 {
            opponents.insert(0, ("MCTS (whole turn)", baseline.as_str()));
        }
        for (opponent_label, opponent) in opponents {
            let label = format!("{} vs {opponent_label}", v.label);
            let report = play(&start, [&spec, opponent], &args, |done| {
                eprint!("\r{label}: {done}/{} games", args.games)
            })?;
            eprintln!();
            let a = &report.players[0];
            let games = a.wins + a.draws + a.losses;
            let (wins_mp, paper_mp) = match_points(&report);
            let (paper_rate, paper_iterations) = match v.paper {
                Some((r, n)) => (format!("{r}%"), format!("{n}")),
                None => ("-".into(), "-".into()),
            };
            let row = format!(
                "| {} | {opponent_label} | {}/{games} | {:.0}% | {paper_rate} | {:.0} | {paper_iterations} | {} | {:.1} |",
                v.label,
                a.wins,
                100.0 * a.wins as f64 / games.max(1) as f64,
                a.iterations as f64 / a.seconds.max(1e-9),
                wins_mp.map_or("-".to_string(), |m| format!("{m:.1}")),
                paper_mp,
            );
            eprintln!("{row}");
            let _ = writeln!(md, "{row}");
        }
    }
    let _ = writeln!(
        md,
        "\nAll rows took {:.0} s.",
        started.elapsed().as_secs_f64()
    );
    print!("{md}");
    if let Some(path) = &args.out {
        std::fs::write(path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
