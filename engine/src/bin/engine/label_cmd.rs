//! `engine label`: recorded Dots-and-Boxes games finished by perfect play from a horizon, as a
//! dataset for a late value net (`engine::games::dots_and_boxes::labels`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use clap::Args;

use engine::games::dots_and_boxes::labels::{Horizon, Labeller};
use engine::games::{DotsAndBoxes, GameSpec};
use engine::record::{Dataset, FileEntry, GameRecord, Manifest, RecordWriter, FORMAT_VERSION};
use engine::registry::Lookup;
use engine::rng::{derive_seed, Rng};

#[derive(Args)]
pub struct LabelArgs {
    /// A dataset of recorded games (`selfplay`, `engine match --records`); repeat for more.
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// The labelled dataset's folder (a rerun with the same settings goes on where it stopped).
    #[arg(long)]
    out: PathBuf,
    /// Perfect play from the first position with at most this many free edges.
    #[arg(long, default_value_t = 36)]
    free: u32,
    /// Leave the recorded game at a number of free edges drawn from --free to this, and reach
    /// the horizon by the chain rollouts' random moves.
    #[arg(long, default_value_t = 44)]
    from: u32,
    /// Label at most this many games of the inputs (all by default).
    #[arg(long)]
    games: Option<usize>,
    /// The seed of the horizons drawn for each game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads, each with its own solver table of 2^22 entries (128 MB); 0: one a core, at
    /// most 256.
    #[arg(long, default_value_t = 0, value_parser = engine::cli::parse_threads)]
    threads: usize,
    /// Positions the solver may search for one outcome or move (past it the game is skipped).
    #[arg(long, default_value_t = 400_000_000)]
    solver_nodes: u64,
}

const RECORD_FILE: &str = "games.rec";

pub fn label(args: LabelArgs) -> Result<(), String> {
    let horizon = Horizon {
        free: args.free,
        from: args.from,
        max_nodes: args.solver_nodes,
    };
    horizon.check()?;
    let threads = engine::cli::or_all_cores(args.threads);
    let (spec, sources) = read_sources(&args.data, args.games)?;
    let initial: DotsAndBoxes = spec.start()?;
    let config = serde_json::json!({
        "data": args.data.iter().map(|d| d.display().to_string()).collect::<Vec<_>>(),
        "free": args.free,
        "from": args.from,
        "seed": args.seed,
        "solver_nodes": args.solver_nodes,
    });
    let (mut out, done) = Output::open(&args.out, spec, config, sources.len() as u64)?;
    let todo: Vec<&GameRecord> = sources
        .iter()
        .filter(|g| !done.contains(&g.index))
        .collect();
    eprintln!(
        "labelling {} games ({} done before) into {}: perfect play from {} free edges, left at {}..={}",
        todo.len(),
        done.len(),
        args.out.display(),
        args.free,
        args.free,
        args.from
    );
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let (tx, rx) = mpsc::channel::<Result<(u64, Option<GameRecord>), String>>();
    std::thread::scope(|scope| -> Result<(), String> {
        // Each thread has its 128 MB table: no more threads than games to label.
        for _ in 0..threads.min(todo.len()).max(1) {
            let tx = tx.clone();
            let (todo, next, initial) = (&todo, &next, &initial);
            scope.spawn(move || {
                let mut labeller = Labeller::new(initial, 22);
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(source) = todo.get(k) else { break };
                    let mut rng = Rng::new(derive_seed(args.seed, source.index));
                    let result = labeller
                        .label(source, initial, horizon, &mut rng)
                        .map(|r| (source.index, r));
                    let failed = result.is_err();
                    if tx.send(result).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let (mut labelled, mut skipped) = (0u64, 0u64);
        for result in rx {
            let (index, record) = match result {
                Ok(r) => r,
                Err(e) => {
                    // Stop the other threads early; what is written stays.
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    return Err(e);
                }
            };
            match record {
                Some(r) => {
                    out.append(&r)?;
                    labelled += 1;
                }
                None => {
                    skipped += 1;
                    eprintln!("game {index}: past the solver's node limit, skipped");
                }
            }
            let n = labelled + skipped;
            if n % 200 == 0 {
                let s = start.elapsed().as_secs_f64();
                eprintln!(
                    "{n} of {} games in {s:.0} s ({:.2} s a game)",
                    todo.len(),
                    s / n as f64
                );
            }
        }
        // Complete when every game asked for is in the file (skipped ones are tried again).
        out.finish(skipped == 0 && next.load(Ordering::Relaxed) >= todo.len())?;
        eprintln!(
            "{labelled} games labelled, {skipped} skipped, in {:.1} s; {} games in {}",
            start.elapsed().as_secs_f64(),
            out.manifest.games,
            args.out.display()
        );
        Ok(())
    })
}

/// Every game of the datasets, numbered in order across them (the labelled record keeps the
/// number), up to `limit`.
fn read_sources(
    dirs: &[PathBuf],
    limit: Option<usize>,
) -> Result<(GameSpec, Vec<GameRecord>), String> {
    let mut spec = None;
    let mut games = Vec::new();
    'datasets: for dir in dirs {
        let dataset = Dataset::open(dir).map_err(|e| e.to_string())?;
        match spec {
            None if dataset.spec().name() != "dots_and_boxes" => {
                return Err(format!(
                    "{}: holds {} games; labels are for dots_and_boxes",
                    dir.display(),
                    dataset.spec()
                ))
            }
            None => spec = Some(dataset.spec()),
            Some(s) if s != dataset.spec() => {
                return Err(format!(
                    "{}: holds {} games, {} holds {s}",
                    dir.display(),
                    dataset.spec(),
                    dirs[0].display()
                ))
            }
            Some(_) => {}
        }
        let mut read = dataset.games().skipping_torn_tails();
        for game in read.by_ref() {
            if limit.is_some_and(|n| games.len() >= n) {
                break 'datasets;
            }
            let mut game = game.map_err(|e| e.to_string())?;
            game.index = games.len() as u64;
            games.push(game);
        }
    }
    let spec = spec.ok_or("no dataset named")?;
    Ok((spec, games))
}

/// The labelled dataset: one record file and its manifest, kept in step.
struct Output {
    dir: PathBuf,
    writer: RecordWriter,
    manifest: Manifest,
}

impl Output {
    /// Creates `dir`, or reopens it when a run with the same `config` wrote it; with the
    /// numbers of the source games labelled already (skipped ones are tried again).
    fn open(
        dir: &Path,
        spec: GameSpec,
        config: serde_json::Value,
        planned: u64,
    ) -> Result<(Output, HashSet<u64>), String> {
        let file = dir.join(RECORD_FILE);
        if file.exists() {
            let mut manifest = Manifest::read(dir).map_err(|e| e.to_string())?;
            if manifest.config != config {
                return Err(format!(
                    "{} was made with other settings ({}); give a new --out",
                    dir.display(),
                    manifest.config
                ));
            }
            let (writer, report) = RecordWriter::resume(&file, &spec).map_err(|e| e.to_string())?;
            manifest.games = report.indices.len() as u64;
            manifest.games_planned = planned;
            manifest.positions = report.positions;
            manifest.files[0].games = manifest.games;
            manifest.files[0].positions = manifest.positions;
            let done = report.indices.into_iter().collect();
            let out = Output {
                dir: dir.to_path_buf(),
                writer,
                manifest,
            };
            out.manifest.write(dir).map_err(|e| e.to_string())?;
            return Ok((out, done));
        }
        engine::cli::create_out_dir("--out", dir)?;
        let writer = RecordWriter::create(&file, &spec).map_err(|e| e.to_string())?;
        let manifest = Manifest {
            format: Manifest::FORMAT.into(),
            format_version: FORMAT_VERSION,
            game: spec,
            generator: format!("engine label {}", env!("CARGO_PKG_VERSION")),
            config,
            seeds: "source game k (numbered across the datasets in order): derive_seed(seed, k)"
                .into(),
            shard: None,
            games_planned: planned,
            games: 0,
            positions: 0,
            complete: false,
            files: vec![FileEntry {
                name: RECORD_FILE.into(),
                games: 0,
                positions: 0,
            }],
            sources: Vec::new(),
        };
        manifest.write(dir).map_err(|e| e.to_string())?;
        Ok((
            Output {
                dir: dir.to_path_buf(),
                writer,
                manifest,
            },
            HashSet::new(),
        ))
    }

    /// Appends a game; the file is synced and the manifest rewritten every 50 games, so a
    /// killed run keeps (nearly) all it labelled and a rerun finds the rest in the file.
    fn append(&mut self, game: &GameRecord) -> Result<(), String> {
        self.writer.append(game).map_err(|e| e.to_string())?;
        let m = &mut self.manifest;
        m.games += 1;
        m.positions += game.moves.len() as u64;
        m.files[0].games = m.games;
        m.files[0].positions = m.positions;
        if m.games % 50 == 0 {
            self.writer.sync().map_err(|e| e.to_string())?;
            self.manifest.write(&self.dir).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn finish(&mut self, complete: bool) -> Result<(), String> {
        self.writer.sync().map_err(|e| e.to_string())?;
        self.manifest.complete = complete;
        self.manifest.write(&self.dir).map_err(|e| e.to_string())
    }
}
