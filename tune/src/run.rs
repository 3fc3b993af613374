//! A tuning run: islands evolving generation by generation, a checkpoint per island after
//! every generation, migrants through files in the run folder, and at the end the best
//! weights and a match of them against the starting weights with the engine's search.
//!
//! Everything random derives from the seed, the island and the generation, and an island's
//! checkpoint holds its whole state between generations, so a run killed at any moment and
//! resumed plays on to the same result as a run never stopped (given the same migrants: an
//! island that waited in vain for another's migrants says so and goes on without them).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use engine::game::Outcome;
use engine::registry::tunable;
use engine::tuning::{write_atomically, Tunable, WeightsFile};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::io::IsTerminal;

use crate::config::TuneConfig;
use crate::genome::{Coding, Genome};
use crate::island::{
    emigrants, evolve, first_population, receive, tournament, yardstick, GenerationStats, Pairing,
    START,
};
use selfplay::shard::Shard;

/// What `tune run` was asked.
pub struct RunOptions {
    pub config: TuneConfig,
    pub shard: Shard,
    pub resume: bool,
    /// No progress bar and no per-generation lines.
    pub quiet: bool,
    /// Stop after this many generations of this invocation (checkpoints kept, no final
    /// step): a run can be played a slice at a time with `--resume`.
    pub stop_after: Option<usize>,
    /// Where the shard came from when a cluster's variables gave it (`Some("Slurm")`):
    /// such a task must follow the run's shard plan ([`check_shard_plan`]).
    pub shard_from: Option<&'static str>,
}

/// The file that keeps the shard count a run was started with.
pub const SHARD_PLAN_FILE: &str = "shards.txt";

/// Keeps the shard count of a run's first start in `out/shards.txt`, and refuses a task whose
/// shard came from a cluster's variables (`from`) with another count: `sbatch --array=1` on
/// a job of three tasks submits a new array of one (`SLURM_ARRAY_TASK_COUNT=1`), which would
/// play every island again beside the tasks that play them. A count given by `--shard` is the
/// user's choice and is followed.
pub fn check_shard_plan(out: &Path, shard: Shard, from: Option<&str>) -> Result<(), String> {
    let path = out.join(SHARD_PLAN_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return write_atomically(&path, format!("{}\n", shard.count).as_bytes());
    };
    let planned: u32 = text
        .trim()
        .parse()
        .map_err(|_| format!("{}: not a shard count: {:?}", path.display(), text.trim()))?;
    match from {
        Some(cluster) if planned != shard.count => Err(format!(
            "{} says this run's islands are played by {planned} shards, and {cluster}'s variables make this task shard {}/{} (sbatch --array=I submits a new array of one task, which would play every island again beside the tasks that play them): rerun one task with `scontrol requeue JOBID_I`, or name its shard: --shard I/{planned} --resume",
            path.display(),
            shard.index,
            shard.count
        )),
        _ => Ok(()),
    }
}

/// One island between two generations, as its checkpoint file holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// The config's identity ([`TuneConfig::identity`]); a checkpoint of another config is
    /// refused.
    pub identity: serde_json::Value,
    pub island: usize,
    /// Generations finished; `population` is the one the next generation plays.
    pub generations: usize,
    pub population: Vec<Genome>,
    pub history: Vec<GenerationStats>,
}

/// What a finished run (or shard) reports.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub generations: usize,
    pub games: usize,
    pub seconds: f64,
    /// The best weights' file, when this process wrote it.
    pub best: Option<PathBuf>,
    /// The final match's table, when this process played it.
    pub final_match: Option<String>,
}

fn checkpoint_path(out: &Path, island: usize) -> PathBuf {
    out.join(format!("island-{island:03}.json"))
}

fn migrant_path(out: &Path, generation: usize, island: usize) -> PathBuf {
    out.join("migrants")
        .join(format!("gen-{generation:04}-from-{island:03}.json"))
}

/// Reads a checkpoint; errors name the file.
pub fn load_checkpoint(path: &Path, config: &TuneConfig) -> Result<Checkpoint, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read checkpoint {}: {e}", path.display()))?;
    let c: Checkpoint = serde_json::from_str(&text)
        .map_err(|e| format!("checkpoint {} is damaged: {e}", path.display()))?;
    if c.identity != config.identity() {
        let diff = selfplay::config::identity_differences(&c.identity, &config.identity());
        return Err(format!(
            "checkpoint {} is from another config ({}); use another --out or the same settings",
            path.display(),
            diff.join(", ")
        ));
    }
    if c.population.len() != config.population {
        return Err(format!(
            "checkpoint {} is damaged: {} individuals",
            path.display(),
            c.population.len()
        ));
    }
    Ok(c)
}

fn save_checkpoint(out: &Path, c: &Checkpoint) -> Result<(), String> {
    let text = serde_json::to_string(c).expect("a checkpoint serialises");
    write_atomically(&checkpoint_path(out, c.island), text.as_bytes())
}

/// Runs (or resumes) the islands of this shard, then, on shard 0, the final steps.
pub fn run(options: &RunOptions) -> Result<Summary, String> {
    let config = &options.config;
    config.validate()?;
    let tunable = tunable(&config.game, Some(&config.set))?;
    let start = tunable.start();
    let coding = Coding::of(config);
    let out = &config.out;
    engine::cli::create_out_dir("--out", out)?;
    std::fs::create_dir_all(out.join("migrants"))
        .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let shard = options.shard;
    check_shard_plan(out, shard, options.shard_from)?;
    let mine: Vec<usize> = (0..config.islands)
        .filter(|i| *i as u32 % shard.count == shard.index)
        .collect();
    let mut islands: Vec<Checkpoint> = Vec::new();
    for &island in &mine {
        let path = checkpoint_path(out, island);
        if path.exists() {
            if !options.resume {
                return Err(format!(
                    "{} exists: pass --resume to continue that run, or choose another --out",
                    path.display()
                ));
            }
            islands.push(load_checkpoint(&path, config)?);
        } else {
            islands.push(Checkpoint {
                identity: config.identity(),
                island,
                generations: 0,
                population: first_population(config, &coding, island, &start),
                history: Vec::new(),
            });
        }
    }
    let config_text = toml::to_string(config).map_err(|e| e.to_string())?;
    write_atomically(&out.join("tune.toml"), config_text.as_bytes())?;
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut played = 0;
    loop {
        let generation = match islands.iter().map(|c| c.generations).min() {
            Some(g) if g < config.generations => g,
            _ => break,
        };
        if options.stop_after.is_some_and(|n| played >= n) {
            summary.generations = generation;
            summary.seconds = started.elapsed().as_secs_f64();
            return Ok(summary);
        }
        played += 1;
        let t = Instant::now();
        let due: Vec<usize> = (0..islands.len())
            .filter(|&k| islands[k].generations == generation)
            .collect();
        let mut games: Vec<Pairing> = Vec::new();
        let mut groups = Vec::new();
        for &k in &due {
            let (g, p) = tournament(config, islands[k].island, generation);
            groups.push(g);
            games.extend(p);
        }
        let weights: Vec<Vec<Vec<f32>>> = due
            .iter()
            .map(|&k| {
                islands[k]
                    .population
                    .iter()
                    .map(|g| coding.decode(g))
                    .collect()
            })
            .collect();
        let slot = |island: usize| {
            due.iter()
                .position(|&k| islands[k].island == island)
                .expect("due")
        };
        let of = |p: &Pairing, i: usize| -> &Vec<f32> {
            if i == START {
                &start
            } else {
                &weights[slot(p.island)][i]
            }
        };
        let outcomes = play_all(
            tunable.as_ref(),
            config,
            &games,
            |p| (of(p, p.p1), of(p, p.p2)),
            generation,
            options.quiet,
        )?;
        let mut nexts = Vec::new();
        let mut yardsticks: Vec<Pairing> = Vec::new();
        for (d, &k) in due.iter().enumerate() {
            let island = islands[k].island;
            let mut fitness = vec![0.0f64; config.population];
            for (p, o) in games
                .iter()
                .zip(&outcomes)
                .filter(|(p, _)| p.island == island)
            {
                let r = match o {
                    Outcome::P1Win => 1.0,
                    Outcome::P2Win => -1.0,
                    Outcome::Draw => 0.0,
                };
                fitness[p.p1] += r;
                fitness[p.p2] -= r;
            }
            let best = (0..fitness.len())
                .max_by(|&a, &b| fitness[a].total_cmp(&fitness[b]).then(b.cmp(&a)))
                .expect("a population");
            yardsticks.extend(yardstick(config, island, generation, best));
            let next = evolve(
                config,
                &coding,
                island,
                generation,
                &islands[k].population,
                &groups[d],
                &fitness,
            );
            nexts.push((
                next,
                GenerationStats {
                    generation,
                    island,
                    best: fitness[best],
                    mean: fitness.iter().sum::<f64>() / fitness.len() as f64,
                    best_weights: weights[d][best].clone(),
                    games: config.games_per_generation() + config.yardstick_games,
                    vs_start: None,
                    seconds: 0.0,
                    immigrants: 0,
                    missing: Vec::new(),
                },
            ));
        }
        // The yardstick: each island's best against the starting weights.
        let results = play_all(
            tunable.as_ref(),
            config,
            &yardsticks,
            |p| (of(p, p.p1), of(p, p.p2)),
            generation,
            true,
        )?;
        for (_, stats) in &mut nexts {
            let mine: Vec<f64> = yardsticks
                .iter()
                .zip(&results)
                .filter(|(p, _)| p.island == stats.island)
                .map(|(p, o)| {
                    let seat = if p.p1 == START {
                        engine::game::Player::P2
                    } else {
                        engine::game::Player::P1
                    };
                    (o.value_for(seat) as f64 + 1.0) / 2.0
                })
                .collect();
            if !mine.is_empty() {
                stats.vs_start = Some(mine.iter().sum::<f64>() / mine.len() as f64);
            }
            stats.seconds = t.elapsed().as_secs_f64();
        }
        let seconds = t.elapsed().as_secs_f64();
        games.extend(yardsticks);
        let migrate = config.islands > 1
            && (generation + 1) % config.migration_interval == 0
            && generation + 1 < config.generations;
        if migrate {
            for (next, stats) in &nexts {
                let text = serde_json::to_string(&emigrants(next, config.migrants))
                    .expect("genomes serialise");
                write_atomically(
                    &migrant_path(out, generation, stats.island),
                    text.as_bytes(),
                )?;
            }
            let deadline = Instant::now() + Duration::from_secs(config.migration_timeout_s);
            for (next, stats) in &mut nexts {
                let mut incoming = Vec::new();
                for other in (0..config.islands).filter(|&o| o != stats.island) {
                    match wait_for_migrants(&migrant_path(out, generation, other), deadline, config)
                    {
                        Ok(genomes) => incoming.extend(genomes),
                        Err(why) => {
                            eprintln!(
                                "tune: island {}: {why}; going on without them",
                                stats.island
                            );
                            stats.missing.push(other);
                        }
                    }
                }
                stats.immigrants = receive(next, incoming);
            }
        }
        for ((next, stats), &k) in nexts.into_iter().zip(&due) {
            let c = &mut islands[k];
            c.population = next;
            c.history.push(stats);
            c.generations = generation + 1;
            save_checkpoint(out, c)?;
        }
        summary.games += games.len();
        let rows = write_reports(out, config, &islands)?;
        if !options.quiet {
            let line: Vec<String> = rows
                .iter()
                .filter(|r| {
                    r.generation == generation && due.iter().any(|&k| islands[k].island == r.island)
                })
                .map(|r| {
                    let vs = r.vs_start.map_or(String::new(), |v| {
                        format!(", {:.0}% against the start", 100.0 * v)
                    });
                    format!("island {} best {:+}{vs}", r.island, r.best)
                })
                .collect();
            println!(
                "generation {}/{}: {} | {} games in {:.1} s ({:.1} games/s)",
                generation + 1,
                config.generations,
                line.join(" | "),
                games.len(),
                seconds,
                games.len() as f64 / seconds.max(1e-9)
            );
        }
    }
    summary.generations = config.generations;
    summary.seconds = started.elapsed().as_secs_f64();
    if shard.index == 0 {
        let best = finish(out, config, tunable.as_ref(), &start)?;
        summary.best = Some(best.clone());
        if config.final_games > 0 {
            summary.final_match = Some(crate::final_match::play(
                config,
                &best,
                &out.join("start-weights.json"),
                options.quiet,
            )?);
        }
    }
    Ok(summary)
}

/// Plays `games` on the config's threads, in any order, each result in its game's place.
fn play_all<'w>(
    tunable: &dyn Tunable,
    config: &TuneConfig,
    games: &[Pairing],
    weights: impl Fn(&Pairing) -> (&'w Vec<f32>, &'w Vec<f32>) + Sync,
    generation: usize,
    quiet: bool,
) -> Result<Vec<Outcome>, String> {
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(games.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed} (eta {eta}) {msg}")
                .expect("a valid template"),
        );
        bar.set_message(format!("generation {}", generation + 1));
        bar
    });
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Outcome, String>>>> = Mutex::new(vec![None; games.len()]);
    let threads = config.games_at_once().min(games.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = games.get(i) else { break };
                let (a, b) = weights(p);
                let r = tunable.play(a, b, &config.player, p.opening);
                results.lock().expect("no thread panics holding it")[i] = Some(r);
                if let Some(bar) = &bar {
                    bar.inc(1);
                }
            });
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    results
        .into_inner()
        .expect("no thread panicked")
        .into_iter()
        .map(|r| r.expect("every game was played"))
        .collect()
}

/// Another island's migrants for one generation: waits for the file until `deadline`.
fn wait_for_migrants(
    path: &Path,
    deadline: Instant,
    config: &TuneConfig,
) -> Result<Vec<Genome>, String> {
    loop {
        if path.exists() {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read migrants {}: {e}", path.display()))?;
            let genomes: Vec<Genome> = serde_json::from_str(&text)
                .map_err(|e| format!("migrant file {} is damaged ({e})", path.display()))?;
            let coding = Coding::of(config);
            let len = engine::registry::tunable(&config.game, Some(&config.set))?
                .names()
                .len();
            let fits = genomes.iter().all(|g| match g {
                Genome::Binary(c) => {
                    coding.encoding == crate::config::Encoding::Binary
                        && c.len() == len
                        && c.iter().all(|&x| x < 1 << config.bits)
                }
                Genome::Real(v) => {
                    coding.encoding == crate::config::Encoding::Real
                        && v.len() == len
                        && v.iter().all(|x| (config.min..=config.max).contains(x))
                }
            });
            if !fits {
                return Err(format!(
                    "migrant file {} holds genomes of another config",
                    path.display()
                ));
            }
            return Ok(genomes);
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "no migrants at {} after waiting {} s",
                path.display(),
                config.migration_timeout_s
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Every island's history, as `fitness.csv` and `fitness.svg`.
/// This process's islands come from memory (`mine`), the other shards' from their checkpoints.
fn write_reports(
    out: &Path,
    config: &TuneConfig,
    mine: &[Checkpoint],
) -> Result<Vec<GenerationStats>, String> {
    let mut rows = Vec::new();
    for island in 0..config.islands {
        if let Some(c) = mine.iter().find(|c| c.island == island) {
            rows.extend_from_slice(&c.history);
            continue;
        }
        let path = checkpoint_path(out, island);
        if path.exists() {
            rows.extend(load_checkpoint(&path, config)?.history);
        }
    }
    rows.sort_by_key(|r| (r.generation, r.island));
    crate::report::write_csv(&out.join("fitness.csv"), &rows)?;
    let max_score = 2.0 * (config.group_size - 1) as f64;
    crate::report::plot(&out.join("fitness.svg"), &rows, config.islands, max_score)?;
    Ok(rows)
}

/// Shard 0's last step: waits for every island's last generation, then writes the best
/// weights (of the islands' last-generation bests, the one that scored best against the
/// starting weights, then by tournament score, then the lowest island) as `best-weights.json`
/// and `best-weights.md`, and the starting weights beside them.
fn finish(
    out: &Path,
    config: &TuneConfig,
    tunable: &dyn Tunable,
    start: &[f32],
) -> Result<PathBuf, String> {
    let deadline = Instant::now() + Duration::from_secs(config.migration_timeout_s);
    let mut finals: Vec<GenerationStats> = Vec::new();
    for island in 0..config.islands {
        let path = checkpoint_path(out, island);
        loop {
            let done = path.exists() && {
                let c = load_checkpoint(&path, config)?;
                if c.generations >= config.generations {
                    finals.push(
                        c.history
                            .last()
                            .expect("a finished island has a history")
                            .clone(),
                    );
                    true
                } else {
                    false
                }
            };
            if done {
                break;
            }
            if Instant::now() >= deadline {
                eprintln!(
                    "tune: island {island} has not finished after {} s; choosing among the others",
                    config.migration_timeout_s
                );
                break;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
    // The yardstick (games against the starting weights) first, where there is one: it
    // compares islands, which their tournament scores do not.
    let key = |g: &GenerationStats| (g.vs_start.unwrap_or(0.0), g.best);
    let best = finals
        .iter()
        .max_by(|a, b| {
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0)
                .then(ka.1.total_cmp(&kb.1))
                .then(b.island.cmp(&a.island))
        })
        .ok_or("no island finished")?;
    let path = out.join("best-weights.json");
    let tuned = tunable.normalise(&best.best_weights);
    WeightsFile::new(tunable, &tuned).save(&path)?;
    WeightsFile::new(tunable, start).save(&out.join("start-weights.json"))?;
    let table = format!(
        "# Tuned weights: {} ({})\n\nIsland {}, generation {}, tournament score {:+} of {:+}, \
         {} against the starting weights; as the engine plays them{}.\n\n{}",
        tunable.game(),
        tunable.set(),
        best.island,
        best.generation + 1,
        best.best,
        2 * (config.group_size - 1),
        best.vs_start
            .map_or("not measured".to_string(), |v| format!("{:.0}%", 100.0 * v)),
        match tunable.normalise_note() {
            "" => String::new(),
            note => format!(" ({note})"),
        },
        crate::report::weights_table(&tunable.names(), &tuned, start)
    );
    write_atomically(&out.join("best-weights.md"), table.as_bytes())?;
    Ok(path)
}
