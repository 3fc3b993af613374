//! `selfplay run`: plays the games of one shard in parallel and appends them to the dataset,
//! resuming where a killed run stopped.

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use engine::agents::{Agent, AgentSpec};
use engine::games::{GameSpec, RegisteredGame};
use engine::record::{
    FileEntry, GameRecord, Manifest, RecordWriter, FORMAT_VERSION, MANIFEST_FILE,
};
use engine::registry::GameVisitor;
use engine::registry::Lookup;
use engine::Outcome;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::config::{identity_differences, RunConfig};
use crate::play::{play_agent_game, play_game, PlaySettings};
use crate::shard::{shard_games, shard_len, Shard};

/// The record file of a dataset written by `run`.
pub const RECORD_FILE: &str = "games.rec";
/// The end-of-run summary, beside the manifest.
pub const SUMMARY_FILE: &str = "summary.json";

/// How often records and the manifest are forced to disk, at the latest (the manifest is
/// rewritten after every game).
const SYNC_INTERVAL: Duration = Duration::from_secs(10);

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A progress bar on a terminal; plain lines every `log_every` otherwise (batch logs).
    Auto { log_every: Duration },
    /// Nothing but errors (tests).
    Quiet,
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub config: RunConfig,
    pub shard: Shard,
    pub resume: bool,
    pub progress: Progress,
}

/// Counts of P1 wins, P2 wins and draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OutcomeCounts {
    pub p1: u64,
    pub p2: u64,
    pub draw: u64,
}

impl OutcomeCounts {
    pub fn add(&mut self, o: Outcome) {
        match o {
            Outcome::P1Win => self.p1 += 1,
            Outcome::P2Win => self.p2 += 1,
            Outcome::Draw => self.draw += 1,
        }
    }
}

/// What a run did; also written to `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub dataset: PathBuf,
    pub game: String,
    pub shard: Shard,
    pub games_planned: u64,
    /// Games in the dataset now (earlier runs included).
    pub games_done: u64,
    pub complete: bool,
    pub games_this_run: u64,
    pub positions_this_run: u64,
    pub elapsed_s: f64,
    pub parallel_games: usize,
    pub search_threads: usize,
    /// Cores the run kept busy: parallel games x search threads, at most the machine's cores.
    pub cores_used: usize,
    pub games_per_hour: f64,
    pub games_per_hour_per_core: f64,
    pub iterations_per_move: u64,
    pub iterations_per_second: f64,
    pub outcomes_this_run: OutcomeCounts,
    /// A torn last record found and dropped on resume: its byte offset.
    pub dropped_torn_record_at: Option<u64>,
}

impl RunSummary {
    /// The one line printed at the end of a run.
    pub fn line(&self) -> String {
        let o = &self.outcomes_this_run;
        let n = self.games_this_run.max(1) as f64;
        format!(
            "{} ({} positions) in {} | {:.0} games/h, {:.0} games/h/core on {} | \
             {:.2}M iterations/s | P1 {:.1}% P2 {:.1}% draw {:.1}% | {} {}/{} games{}",
            engine::cli::count(self.games_this_run, "game"),
            self.positions_this_run,
            format_duration(self.elapsed_s),
            self.games_per_hour,
            self.games_per_hour_per_core,
            engine::cli::count(self.cores_used as u64, "core"),
            self.iterations_per_second / 1e6,
            100.0 * o.p1 as f64 / n,
            100.0 * o.p2 as f64 / n,
            100.0 * o.draw as f64 / n,
            self.dataset.display(),
            self.games_done,
            self.games_planned,
            if self.complete { " (complete)" } else { "" }
        )
    }
}

fn format_duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{seconds:.1}s")
    }
}

/// The folder a shard writes into: `out` itself for an unsharded run.
pub fn dataset_dir(out: &Path, shard: Shard) -> PathBuf {
    if shard.count == 1 {
        out.to_path_buf()
    } else {
        out.join(format!("shard-{:04}-of-{:04}", shard.index, shard.count))
    }
}

/// How game seeds follow from the config, as the manifest states it.
pub fn seeds_note(seed: u64) -> String {
    format!(
        "game k is played with seed derive_seed({seed}, k) = splitmix64 of ({seed} xor \
         splitmix64(k)); shard i of n plays the games with k % n == i"
    )
}

/// Runs (or resumes) the games of one shard.
pub fn run(options: &RunOptions) -> Result<RunSummary, String> {
    options.config.validate()?;
    crate::shard::check_shard_folders(&options.config.out, options.shard)?;
    struct Run<'a>(&'a RunOptions);
    impl GameVisitor for Run<'_> {
        type Output = Result<RunSummary, String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            run_game(self.0, start.spec(), start)
        }
    }
    options.config.spec()?.visit(Run(options))?
}

/// The identity's field for the fingerprint of the net the player plays with
/// ([`Agent::knowledge`](engine::agents::Agent::knowledge)): a resume with another net (a
/// binary that ships a newer one, another `model=`) is refused, since it would mix two
/// generations of games in one dataset.
const PLAYER_NET: &str = "player_net";

/// The dataset folder as a run finds it.
struct Existing {
    writer: RecordWriter,
    done: HashSet<u64>,
    positions: u64,
    torn_at: Option<u64>,
}

fn open_dataset(
    dir: &Path,
    spec: &GameSpec,
    identity: &serde_json::Value,
    shard: Shard,
    resume: bool,
    games_planned: u64,
) -> Result<Existing, String> {
    let records = dir.join(RECORD_FILE);
    if !dir.join(MANIFEST_FILE).exists() {
        if records.exists() {
            return Err(format!(
                "{} exists without a {MANIFEST_FILE}: not a dataset this program wrote; \
                 choose another --out",
                records.display()
            ));
        }
        let writer = RecordWriter::create(&records, spec).map_err(|e| e.to_string())?;
        return Ok(Existing {
            writer,
            done: HashSet::new(),
            positions: 0,
            torn_at: None,
        });
    }
    let manifest = Manifest::read(dir).map_err(|e| e.to_string())?;
    let mut recorded = manifest.config.clone();
    // A dataset from before nets were recorded: its net is taken on trust, once (and said so
    // only when nothing else refuses the resume).
    let mut adopted_net = None;
    if let (Some(net), Some(fields)) = (identity.get(PLAYER_NET), recorded.as_object_mut()) {
        if !fields.contains_key(PLAYER_NET) {
            fields.insert(PLAYER_NET.into(), net.clone());
            adopted_net = Some(net);
        }
    }
    let differences = identity_differences(&recorded, identity);
    if !differences.is_empty() {
        return Err(format!(
            "{} holds a dataset made with other settings (dataset vs this run):\n  {}\n\
             Use another --out, or the dataset's settings.",
            dir.display(),
            differences.join("\n  ")
        ));
    }
    if manifest.shard != Some(shard) {
        return Err(format!(
            "{} holds shard {:?} of a run; this run is shard {}/{}",
            dir.display(),
            manifest.shard,
            shard.index,
            shard.count
        ));
    }
    if !resume {
        return Err(format!(
            "{} already holds a dataset ({} games when last recorded); pass --resume to \
             continue it, or choose another --out",
            dir.display(),
            manifest.games
        ));
    }
    if games_planned < manifest.games_planned {
        return Err(format!(
            "{} holds a dataset of {} planned games ({} done); a resume never lowers that: \
             pass --games {} or more",
            dir.display(),
            manifest.games_planned,
            manifest.games,
            manifest.games_planned
        ));
    }
    let (writer, report) = RecordWriter::resume(&records, spec).map_err(|e| e.to_string())?;
    let mut done = HashSet::with_capacity(report.indices.len());
    for &k in &report.indices {
        if !done.insert(k) {
            return Err(format!(
                "{} holds game {k} twice: the file was not written by one run; refusing to add to it",
                records.display()
            ));
        }
    }
    if let Some(net) = adopted_net {
        eprintln!(
            "selfplay: {} does not record the net its games were played with; \
             from now on it records this run's, {net}",
            dir.display()
        );
    }
    Ok(Existing {
        writer,
        done,
        positions: report.positions,
        torn_at: report.torn.map(|(offset, _)| offset),
    })
}

fn run_game<G: RegisteredGame>(
    options: &RunOptions,
    spec: GameSpec,
    initial: G,
) -> Result<RunSummary, String> {
    let config = &options.config;
    let shard = options.shard;
    // A player that cannot be built (a key for another game, a missing net) is refused before
    // the dataset folder is touched.
    let (player, net) = match &config.player {
        Some(text) => {
            let parsed = PlayerSpec {
                text,
                spec: engine::agents::parse_spec(text)?,
            };
            let net = build_players(&parsed, &initial)?[0].knowledge(&initial);
            (Some(parsed), net)
        }
        None => (None, None),
    };
    let dir = dataset_dir(&config.out, shard);
    engine::cli::create_out_dir("--out", &config.out)?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut identity = config.identity();
    if let (Some(net), Some(fields)) = (net, identity.as_object_mut()) {
        fields.insert(PLAYER_NET.into(), net.into());
    }
    let games_planned = shard_len(shard, config.games);
    let Existing {
        mut writer,
        mut done,
        positions: mut positions_total,
        torn_at,
    } = open_dataset(&dir, &spec, &identity, shard, options.resume, games_planned)?;
    let pending: Vec<u64> = shard_games(shard, config.games)
        .filter(|k| !done.contains(k))
        .collect();
    let mut manifest = Manifest {
        format: Manifest::FORMAT.into(),
        format_version: FORMAT_VERSION,
        game: spec,
        generator: format!("selfplay {}", env!("CARGO_PKG_VERSION")),
        config: identity,
        seeds: seeds_note(config.seed),
        shard: Some(shard),
        games_planned,
        games: done.len() as u64,
        positions: positions_total,
        complete: pending.is_empty(),
        files: vec![FileEntry {
            name: RECORD_FILE.into(),
            games: done.len() as u64,
            positions: positions_total,
        }],
        sources: Vec::new(),
    };
    manifest.write(&dir).map_err(|e| e.to_string())?;

    let settings = PlaySettings {
        iterations: config.iterations,
        cp: config.cp,
        counter: config.counter.into(),
        search_threads: config.search_threads,
        seed: config.seed,
        sample_moves: config.sample_moves,
        random_opening_moves: config.random_opening_moves,
        root_stats: config.root_stats,
    };
    let parallel = config.games_at_once().min(pending.len().max(1));
    let cores = engine::cli::cores();
    let cores_used = (parallel * config.search_threads).min(cores).max(1);
    let mut reporter = Reporter::new(options.progress, games_planned, done.len() as u64, &dir);
    if let Some(offset) = torn_at {
        reporter.say(&format!(
            "dropped a torn last record at byte {offset} of {} (a game cut off by the kill; it \
             is played again)",
            dir.join(RECORD_FILE).display()
        ));
    }
    if done.len() as u64 > 0 && !pending.is_empty() {
        reporter.say(&format!(
            "resuming: {} of {games_planned} games done, {} to play",
            done.len(),
            pending.len()
        ));
    }

    let start = Instant::now();
    let mut this_run = OutcomeCounts::default();
    let mut games_this_run = 0u64;
    let mut positions_this_run = 0u64;
    let mut iterations_this_run = 0u64;
    let mut searched_this_run = 0u64;
    let mut last_sync = Instant::now();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::sync_channel::<Result<GameRecord, String>>(parallel * 2);
    // The first failure (a player's, or writing): the run stops after the games in flight.
    let mut failure: Option<String> = None;
    std::thread::scope(|scope| {
        for _ in 0..parallel {
            let tx = tx.clone();
            let (next, stop, pending, settings, initial, player) =
                (&next, &stop, &pending, &settings, &initial, &player);
            let solver_edges = config.solver_edges;
            scope.spawn(move || {
                // One solver a thread: its table carries over between a game's moves.
                let mut oracle = initial.endgame_oracle(solver_edges);
                // With a player: one for each side a thread.
                let built = player.as_ref().map(|spec| build_players(spec, initial));
                let mut players = match built.transpose() {
                    Ok(players) => players,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pending.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let game = match &mut players {
                        Some([p1, p2]) => {
                            play_agent_game(initial, settings, pending[i], [&mut **p1, &mut **p2])
                        }
                        None => Ok(play_game(initial, settings, pending[i], oracle.as_mut())),
                    };
                    if tx.send(game).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for game in rx.iter() {
            let game = match game {
                Ok(game) => game,
                Err(e) => {
                    failure = Some(e);
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            };
            if let Err(e) = writer.append(&game) {
                failure = Some(format!("writing the dataset {} failed: {e}", dir.display()));
                stop.store(true, Ordering::Relaxed);
                break;
            }
            done.insert(game.index);
            this_run.add(game.outcome);
            games_this_run += 1;
            positions_this_run += game.moves.len() as u64;
            positions_total += game.moves.len() as u64;
            iterations_this_run += game.moves.iter().map(|m| m.iterations as u64).sum::<u64>();
            searched_this_run += game.moves.iter().filter(|m| m.iterations > 0).count() as u64;
            // The manifest follows every game, so that a run stopped by Ctrl-C or a kill
            // leaves a manifest that counts the games its records hold; forcing both to disk
            // (against a power cut) waits for `sync_every` games or SYNC_INTERVAL.
            set_counts(&mut manifest, done.len() as u64, positions_total);
            let durable = writer.unsynced() >= config.sync_every as usize
                || last_sync.elapsed() >= SYNC_INTERVAL;
            let written = if durable {
                writer.sync().and_then(|_| manifest.write(&dir))
            } else {
                manifest.write_unsynced(&dir)
            };
            if let Err(e) = written {
                failure = Some(format!("writing the dataset {} failed: {e}", dir.display()));
                stop.store(true, Ordering::Relaxed);
                break;
            }
            if durable {
                last_sync = Instant::now();
            }
            reporter.game_done(positions_this_run, games_this_run, start.elapsed());
        }
        // Leaving the loop early drops the receiver: workers stop after their current game.
    });
    reporter.finish();
    if let Some(e) = failure {
        return Err(e);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let remaining = shard_games(shard, config.games)
        .filter(|k| !done.contains(k))
        .count();
    set_counts(&mut manifest, done.len() as u64, positions_total);
    manifest.complete = remaining == 0;
    writer.sync().map_err(|e| e.to_string())?;
    manifest.write(&dir).map_err(|e| e.to_string())?;
    let hours = elapsed.max(1e-9) / 3600.0;
    let summary = RunSummary {
        dataset: dir.clone(),
        game: spec.to_string(),
        shard,
        games_planned,
        games_done: done.len() as u64,
        complete: manifest.complete,
        games_this_run,
        positions_this_run,
        elapsed_s: elapsed,
        parallel_games: parallel,
        search_threads: config.search_threads,
        cores_used,
        games_per_hour: games_this_run as f64 / hours,
        games_per_hour_per_core: games_this_run as f64 / hours / cores_used as f64,
        // A player's budget may be its clock: the mean over its searched moves.
        iterations_per_move: match player {
            Some(_) => iterations_this_run / searched_this_run.max(1),
            None => config.iterations,
        },
        iterations_per_second: iterations_this_run as f64 / elapsed.max(1e-9),
        outcomes_this_run: this_run,
        dropped_torn_record_at: torn_at,
    };
    let mut json = serde_json::to_string_pretty(&summary).expect("a summary serialises");
    json.push('\n');
    let summary_path = dir.join(SUMMARY_FILE);
    std::fs::write(&summary_path, json)
        .map_err(|e| format!("cannot write {}: {e}", summary_path.display()))?;
    Ok(summary)
}

/// The run's `player`: its spec as written (for errors) and as parsed.
struct PlayerSpec<'a> {
    text: &'a str,
    spec: AgentSpec,
}

/// P1's and P2's player, built from the run's `player`; an error names the spec.
fn build_players<G: RegisteredGame>(
    player: &PlayerSpec,
    initial: &G,
) -> Result<[Box<dyn Agent<G>>; 2], String> {
    let build = || {
        G::build_player(&player.spec, initial).map_err(|e| format!("player {:?}: {e}", player.text))
    };
    Ok([build()?, build()?])
}

/// Records the games and positions now in the run's one record file.
fn set_counts(manifest: &mut Manifest, games: u64, positions: u64) {
    manifest.games = games;
    manifest.positions = positions;
    manifest.files[0].games = games;
    manifest.files[0].positions = positions;
}

/// Progress: an indicatif bar on a terminal, plain log lines in a batch job, or nothing.
struct Reporter {
    bar: Option<ProgressBar>,
    log_every: Option<Duration>,
    last_log: Instant,
    planned: u64,
    done_before: u64,
}

impl Reporter {
    fn new(progress: Progress, planned: u64, done_before: u64, dir: &Path) -> Reporter {
        let mut reporter = Reporter {
            bar: None,
            log_every: None,
            last_log: Instant::now(),
            planned,
            done_before,
        };
        if let Progress::Auto { log_every } = progress {
            if std::io::stderr().is_terminal() {
                let bar = ProgressBar::new(planned).with_position(done_before);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{elapsed_precise} [{bar:30}] {pos}/{len} games | {msg} | ETA {eta}",
                    )
                    .expect("a valid template")
                    .progress_chars("=> "),
                );
                bar.set_message(format!("writing {}", dir.display()));
                bar.reset_eta();
                reporter.bar = Some(bar);
            } else {
                reporter.log_every = Some(log_every);
                eprintln!(
                    "selfplay: {done_before}/{planned} games done, writing {}",
                    dir.display()
                );
            }
        }
        reporter
    }

    fn say(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(format!("selfplay: {text}")),
            None if self.log_every.is_some() => eprintln!("selfplay: {text}"),
            None => {}
        }
    }

    fn game_done(&mut self, positions: u64, games: u64, elapsed: Duration) {
        let per_hour = games as f64 / elapsed.as_secs_f64().max(1e-9) * 3600.0;
        let done = self.done_before + games;
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(format!("{positions} positions | {per_hour:.0} games/h"));
        } else if let Some(every) = self.log_every {
            if self.last_log.elapsed() >= every || done == self.planned {
                let left = self.planned.saturating_sub(done) as f64;
                let eta = if per_hour > 0.0 {
                    left / per_hour * 3600.0
                } else {
                    0.0
                };
                eprintln!(
                    "selfplay: {done}/{} games | {positions} positions | {per_hour:.0} games/h | ETA {}",
                    self.planned,
                    format_duration(eta)
                );
                self.last_log = Instant::now();
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}
