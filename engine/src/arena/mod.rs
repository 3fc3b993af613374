//! Matches between two players: games in parallel, each start position played twice with the
//! seats swapped, honest statistics (cutechess's formulas, see [`stats`]), an optional SPRT
//! that stops early, and every game kept as a record in the dataset format.

pub mod positions;
pub mod stats;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use serde::Serialize;

use crate::agents::{play_game, Agent, GameReport};
use crate::game::{Game, Outcome, Player};
use crate::games::GameSpec;
use crate::mcts::RolloutStats;
use crate::record::{Manifest, RecordWriter};
use crate::rng::derive_seed;
use positions::StartPosition;
use stats::{PairStats, Sprt, SprtState, Tally};

/// What a match is.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub game: GameSpec,
    /// The two players' spec strings: A and B.
    pub players: [String; 2],
    /// Games to play (each start position twice, seats swapped; so rounded up to even when
    /// positions are given).
    pub games: usize,
    /// Start positions (none: the empty board).
    pub positions: Vec<StartPosition>,
    pub threads: usize,
    pub seed: u64,
    pub sprt: Option<Sprt>,
    /// A folder to write every game to (`games.rec` and `manifest.json`).
    pub records: Option<PathBuf>,
    /// Replace a dataset already in the `records` folder (`--force`), once the players are
    /// built; without it such a folder is refused before the first game.
    pub replace_records: bool,
}

/// One finished game of a match.
#[derive(Clone, Debug, Serialize)]
pub struct MatchGame {
    pub index: usize,
    /// Index into the start positions (0 for the empty board).
    pub position: usize,
    /// The seat player A had.
    pub a_seat: Player,
    pub report: GameReport,
    /// The start position's winner under perfect play, when the positions file says.
    pub perfect: Option<Outcome>,
}

impl MatchGame {
    /// +1, 0, -1 for player A.
    pub fn a_result(&self) -> i32 {
        self.report.outcome.value_for(self.a_seat)
    }
}

/// Per player: results and costs.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PlayerStats {
    pub spec: String,
    pub name: String,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub forfeits: u32,
    pub moves: u64,
    /// The moves that took search iterations (the rest came from knowledge: a solver, a
    /// forced reply).
    pub searched_moves: u64,
    pub seconds: f64,
    pub iterations: u64,
    pub rollouts: RolloutStats,
    /// Games from positions that perfect play wins for this player's seat, and how many of
    /// those it won.
    pub winnable_seats: u32,
    pub converted: u32,
    /// Over the games this player won after its estimate reached the match point (90%): how
    /// many, and the sum of the searched moves it took (the MG-PEO paper's Table 6).
    pub match_point_games: u32,
    pub match_point_moves: u64,
}

/// Milliseconds with three significant digits or more (a solver's move takes microseconds).
pub fn format_ms(ms: f64) -> String {
    let decimals = if ms >= 10.0 {
        1
    } else if ms >= 1.0 {
        2
    } else {
        3
    };
    format!("{ms:.decimals$}")
}

impl PlayerStats {
    pub fn ms_per_move(&self) -> f64 {
        1000.0 * self.seconds / self.moves.max(1) as f64
    }

    /// The paper's "good predictions": rollouts the net ended, a move on average.
    pub fn good_predictions_per_move(&self) -> f64 {
        self.rollouts.net_cutoffs as f64 / self.moves.max(1) as f64
    }

    /// Share of the winnable seats converted.
    pub fn conversion(&self) -> Option<f64> {
        (self.winnable_seats > 0).then(|| self.converted as f64 / self.winnable_seats as f64)
    }

    /// The mean match-point move over the games won with one, if any.
    pub fn mean_match_point(&self) -> Option<f64> {
        (self.match_point_games > 0)
            .then(|| self.match_point_moves as f64 / self.match_point_games as f64)
    }
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    pub game: GameSpec,
    pub seed: u64,
    pub threads: usize,
    pub games_planned: usize,
    pub players: [PlayerStats; 2],
    /// A against B.
    pub pair: PairStats,
    pub sprt: Option<(Sprt, SprtState)>,
    pub stopped_early: bool,
    pub seconds: f64,
    pub games: Vec<MatchGame>,
}

/// Builds a fresh pair of players (A, B) for one worker thread.
pub type PlayerFactory<'a, G> = dyn Fn() -> Result<[Box<dyn Agent<G>>; 2], String> + Sync + 'a;

/// Plays a match; `progress` hears of every finished game with the report so far.
pub fn run_match<G: Game>(
    initial: &G,
    config: &MatchConfig,
    build: &PlayerFactory<'_, G>,
    mut progress: impl FnMut(&MatchGame, &MatchReport),
) -> Result<MatchReport, String> {
    if let Some(s) = &config.sprt {
        s.check()?;
    }
    let starts: Vec<StartPosition> = if config.positions.is_empty() {
        vec![StartPosition::default()]
    } else {
        config.positions.clone()
    };
    let games = if config.positions.is_empty() {
        config.games
    } else {
        config.games.div_ceil(2) * 2
    };
    let threads = config.threads.clamp(1, games.max(1));
    // Build once up front so that a bad spec or model fails before any game.
    let [a, b] = build()?;
    let names = [a.name(), b.name()];
    drop((a, b));
    let mut records = match &config.records {
        Some(dir) => Some(Records::create(dir, config)?),
        None => None,
    };
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let mut report = MatchReport {
        game: config.game,
        seed: config.seed,
        threads,
        games_planned: games,
        players: [0, 1].map(|i| PlayerStats {
            spec: config.players[i].clone(),
            name: names[i].clone(),
            ..PlayerStats::default()
        }),
        pair: PairStats::from_tally(Tally::default()),
        sprt: None,
        stopped_early: false,
        seconds: 0.0,
        games: Vec::new(),
    };
    let (send, receive) = mpsc::channel::<Result<MatchGame, String>>();
    let outcome: Result<(), String> = std::thread::scope(|scope| {
        for _ in 0..threads {
            let send = send.clone();
            let (next, stop, starts) = (&next, &stop, &starts);
            scope.spawn(move || {
                let players = match build() {
                    Ok(p) => p,
                    Err(e) => {
                        let _ = send.send(Err(e));
                        return;
                    }
                };
                let [mut a, mut b] = players;
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        return;
                    }
                    let position = (index / 2) % starts.len();
                    let start = &starts[position];
                    let a_seat = if index % 2 == 0 {
                        Player::P1
                    } else {
                        Player::P2
                    };
                    let seed = derive_seed(config.seed, index as u64);
                    a.reseed(derive_seed(seed, 0));
                    b.reseed(derive_seed(seed, 1));
                    let seats: [&mut dyn Agent<G>; 2] = match a_seat {
                        Player::P1 => [a.as_mut(), b.as_mut()],
                        Player::P2 => [b.as_mut(), a.as_mut()],
                    };
                    let result = play_game(initial, &start.moves, seats).map(|r| MatchGame {
                        index,
                        position,
                        a_seat,
                        report: r,
                        perfect: start.perfect,
                    });
                    if send.send(result).is_err() {
                        return;
                    }
                }
            });
        }
        drop(send);
        let mut tally = Tally::default();
        for result in receive.iter() {
            let game = match result {
                Ok(g) => g,
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            };
            if let Some(r) = records.as_mut() {
                r.append(initial, &game, config)?;
            }
            match game.a_result() {
                1 => tally.wins += 1,
                0 => tally.draws += 1,
                _ => tally.losses += 1,
            }
            add_game(&mut report.players, &game);
            report.pair = PairStats::from_tally(tally);
            if let Some(sprt) = config.sprt {
                let state = sprt.state(tally);
                report.sprt = Some((sprt, state));
                if state.verdict != "continue" && !stop.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                    report.stopped_early = true;
                }
            }
            report.seconds = started.elapsed().as_secs_f64();
            progress(&game, &report);
            report.games.push(game);
        }
        Ok(())
    });
    outcome?;
    report.games.sort_by_key(|g| g.index);
    if let Some(r) = records.as_mut() {
        r.finish(!report.stopped_early)?;
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// The report as a table for people: per player W/D/L, time and iterations a move, good
/// predictions, forfeits and converted seats; the pair's score, Elo, LOS and SPRT; forfeits.
pub fn report_table(report: &MatchReport, seconds: f64) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let games: u32 = report.pair.games;
    let _ = writeln!(
        out,
        "{} of {} in {:.1} s on {} thread{}{}",
        crate::cli::count(games, "game"),
        report.game,
        seconds,
        report.threads,
        if report.threads == 1 { "" } else { "s" },
        if report.stopped_early {
            " (stopped early by the SPRT)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "  {:<40} {:>4} {:>4} {:>4} {:>8} {:>10} {:>12} {:>9} {:>9}",
        "player", "W", "D", "L", "ms/move", "iter/move", "good pred.", "forfeits", "converted"
    );
    for (label, p) in ["A", "B"].iter().zip(&report.players) {
        let conversion = p.conversion().map_or("-".to_string(), |c| {
            format!("{}/{} {:.0}%", p.converted, p.winnable_seats, 100.0 * c)
        });
        let good = if p.rollouts.net_evaluations > 0 {
            format!("{:.0}", p.good_predictions_per_move())
        } else {
            "-".into()
        };
        let name: String = format!("{label} {}", shown_name(p))
            .chars()
            .take(40)
            .collect();
        // A player that counts no search (an outside program) has no figure, not a zero.
        let iterations = if p.searched_moves > 0 {
            format!("{:.0}", p.iterations as f64 / p.searched_moves as f64)
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "  {:<40} {:>4} {:>4} {:>4} {:>8} {:>10} {:>12} {:>9} {:>9}",
            name,
            p.wins,
            p.draws,
            p.losses,
            format_ms(p.ms_per_move()),
            iterations,
            good,
            p.forfeits,
            conversion
        );
    }
    // iter/move is over the searched moves: a move the knowledge gave takes none.
    for (label, p) in ["A", "B"].iter().zip(&report.players) {
        if 0 < p.searched_moves && p.searched_moves < p.moves {
            let _ = writeln!(
                out,
                "  {label}: iter/move over its {} searched moves of {}; the rest came without a search",
                p.searched_moves, p.moves
            );
        }
    }
    // A spec the table cut or named otherwise is given in full below it, so that two players
    // that differ only late in their specs (a weights file) stay apart.
    for (label, p) in ["A", "B"].iter().zip(&report.players) {
        if shown_name(p) != p.spec || p.spec.chars().count() > 38 {
            let _ = writeln!(out, "  {label} = {}", p.spec);
        }
    }
    let pair = &report.pair;
    let elo = if pair.wins == 0 && pair.losses == 0 {
        // Every game drawn: the games bound no difference (the interval has no width).
        "Elo 0 (every game drawn: no bound)".to_string()
    } else {
        // An even score is +0.0, not -0.0.
        let elo = if pair.elo.abs() < 0.05 { 0.0 } else { pair.elo };
        format!("Elo {elo:+.1} +/- {:.1}", pair.elo_error)
    };
    let _ = writeln!(
        out,
        "  A vs B: score {:.3} (95% {:.3} to {:.3}), {elo}, LOS {:.1}%",
        pair.score,
        pair.score_low,
        pair.score_high,
        100.0 * pair.los
    );
    if let Some((s, state)) = &report.sprt {
        let _ = writeln!(
            out,
            "  SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} (bounds {:.2}, {:.2}): {}",
            s.elo0, s.elo1, s.alpha, s.beta, state.llr, state.lower, state.upper, state.verdict
        );
    }
    for g in report.games.iter().filter(|g| g.report.forfeit.is_some()) {
        let f = g.report.forfeit.as_ref().expect("filtered");
        let who = if f.player == g.a_seat { "A" } else { "B" };
        let _ = writeln!(out, "  game {}: {who} forfeited: {}", g.index, f.reason);
    }
    out
}

fn add_game(players: &mut [PlayerStats; 2], game: &MatchGame) {
    let seats = match game.a_seat {
        Player::P1 => [0, 1],
        Player::P2 => [1, 0],
    };
    let r = &game.report;
    for (who, &seat) in seats.iter().enumerate() {
        let p = &mut players[who];
        let player = [Player::P1, Player::P2][seat];
        match r.outcome.value_for(player) {
            1 => p.wins += 1,
            0 => p.draws += 1,
            _ => p.losses += 1,
        }
        if r.forfeit.as_ref().is_some_and(|f| f.player == player) {
            p.forfeits += 1;
        }
        p.moves += r.moves_made[seat] as u64;
        p.seconds += r.seconds[seat];
        p.iterations += r.iterations[seat];
        p.searched_moves += r.searched_moves[seat] as u64;
        p.rollouts.add(r.rollouts[seat]);
        if let (1, Some(m)) = (r.outcome.value_for(player), r.match_point[seat]) {
            p.match_point_games += 1;
            p.match_point_moves += m as u64;
        }
        if game.perfect == Some(Outcome::win_for(player)) {
            p.winnable_seats += 1;
            if r.outcome == Outcome::win_for(player) {
                p.converted += 1;
            }
        }
    }
}

/// A match's games as a dataset: the record file and its manifest, kept in step.
struct Records {
    dir: PathBuf,
    writer: RecordWriter,
    manifest: Manifest,
}

impl Records {
    fn create(dir: &std::path::Path, config: &MatchConfig) -> Result<Records, String> {
        crate::cli::create_out_dir("--records", dir)?;
        let file = dir.join("games.rec");
        if config.replace_records {
            for old in [file.clone(), dir.join(crate::record::MANIFEST_FILE)] {
                if old.exists() {
                    std::fs::remove_file(&old).map_err(|e| format!("{}: {e}", old.display()))?;
                }
            }
        }
        if file.exists() {
            return Err(format!(
                "{} exists: give the match's records a new folder, or pass --force to replace them",
                file.display()
            ));
        }
        let writer = RecordWriter::create(&file, &config.game).map_err(|e| e.to_string())?;
        let manifest = Manifest {
            format: Manifest::FORMAT.into(),
            format_version: crate::record::FORMAT_VERSION,
            game: config.game,
            generator: format!("engine match {}", env!("CARGO_PKG_VERSION")),
            config: serde_json::json!({
                "players": config.players,
                "games": config.games,
                "positions": config.positions.len(),
                "seed": config.seed,
            }),
            seeds:
                "game k: derive_seed(seed, k); player A derive_seed(that, 0), B derive_seed(that, 1)"
                    .into(),
            shard: None,
            games_planned: config.games as u64,
            games: 0,
            positions: 0,
            complete: false,
            files: vec![crate::record::FileEntry {
                name: "games.rec".into(),
                games: 0,
                positions: 0,
            }],
            sources: Vec::new(),
        };
        manifest.write(dir).map_err(|e| e.to_string())?;
        Ok(Records {
            dir: dir.to_path_buf(),
            writer,
            manifest,
        })
    }

    /// A game as a record: the start position's moves as given, the players' as searched, each
    /// with its search's iterations and root moves (where a tree search chose it). Games
    /// lost by forfeit end before the end of the game, so they are left out of the records (the
    /// JSON report has them). Whether it was written.
    fn append<G: Game>(
        &mut self,
        initial: &G,
        game: &MatchGame,
        config: &MatchConfig,
    ) -> Result<(), String> {
        let seed = derive_seed(config.seed, game.index as u64);
        let Some(record) = game.report.to_record(initial, game.index as u64, seed) else {
            return Ok(());
        };
        self.writer.append(&record).map_err(|e| e.to_string())?;
        self.writer.sync().map_err(|e| e.to_string())?;
        // The manifest follows every game, so a killed match keeps its count.
        let m = &mut self.manifest;
        m.games += 1;
        m.positions += game.report.moves.len() as u64;
        m.files[0].games = m.games;
        m.files[0].positions = m.positions;
        m.write(&self.dir).map_err(|e| e.to_string())
    }

    /// Marks the dataset complete (or not, after an early stop).
    fn finish(&mut self, complete: bool) -> Result<(), String> {
        self.writer.sync().map_err(|e| e.to_string())?;
        self.manifest.complete = complete;
        self.manifest.write(&self.dir).map_err(|e| e.to_string())
    }
}

/// The name a report's tables give a player: the name it gave itself where that is not its
/// spec's kind alone (a Gomocup brain's `ABOUT` name, a `name=` key), else its spec.
fn shown_name(p: &PlayerStats) -> &str {
    let kind = p.spec.split(':').next().unwrap_or("");
    if p.name.is_empty() || p.name == kind || p.spec.starts_with(&p.name) {
        &p.spec
    } else {
        &p.name
    }
}
