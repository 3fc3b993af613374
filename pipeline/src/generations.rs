//! `pipeline --generations N`: nets trained on the product's own games, generation after
//! generation, as `models/dab-5x5-gen1` was made by hand (docs/players.md).
//!
//! Generation 1's games are played by the product's search without a net (`best:model=none`;
//! the paper's net, trained on plain MCTS's games, measured nothing as a prior); each later
//! generation's by the product's search guided by the previous generation's net as a prior
//! (`best:model=...`). Each net reads the player to move (`table2-to-move`) and is trained on
//! its generation's games and the previous generation's (labelled with the games' outcomes, or
//! with `--generation-targets search` the values of the searches' root moves), then matched at
//! equal time from the empty board against the engine that played its games and, from
//! generation 2 on, against the same search without a net.

use std::path::{Path, PathBuf};
use std::time::Instant;

use engine::arena::report_table;
use engine::games::DotsAndBoxes;
use engine::record::Dataset;
use train::config::{Encoding, TrainConfig, ValueTargets};
use train::trainer::{train, TrainOptions};

/// What each generation plays, trains and matches.
pub struct Generations {
    pub count: usize,
    /// Games of the product against itself a generation.
    pub games: usize,
    /// Iterations a move of those games.
    pub iterations: u64,
    /// What the nets learn: the games' outcomes, or the recorded searches' values.
    pub targets: ValueTargets,
    /// With search targets, the visits a root move needs to give a row.
    pub min_visits: u32,
    pub epochs: usize,
    pub match_games: usize,
    pub match_time_ms: u64,
    pub threads: usize,
    pub seed: u64,
}

/// The product's engine (`best`): guided by `model` as a prior, or without a net.
fn product(model: Option<&Path>, budget: &str) -> String {
    match model {
        None => format!("best:model=none,{budget}"),
        Some(m) => format!("best:model={},{budget}", m.display()),
    }
}

/// Whether `dir` holds a finished set of games (a run stopped midway is played again).
fn complete(dir: &Path) -> bool {
    Dataset::open(dir).is_ok_and(|d| d.manifest().complete)
}

/// Runs the generations under `out` (`gen-1/`, `gen-2/`, ...: each `data/`, `model/` and
/// `match.json`). A generation whose net exists is kept, so a stopped run goes on where it
/// stopped.
pub fn run(out: &Path, board: &DotsAndBoxes, g: &Generations) -> Result<(), String> {
    if out.display().to_string().contains(',') {
        return Err(format!(
            "--out {}: a player spec cannot name a model path with a comma",
            out.display()
        ));
    }
    let mut previous: Option<(PathBuf, PathBuf)> = None; // (data, model) of the last generation
    for k in 1..=g.count {
        let dir = out.join(format!("gen-{k}"));
        let (data, model_dir) = (dir.join("data"), dir.join("model"));
        let model = model_dir.join(train::trainer::MODEL_FILE);
        let player = product(
            previous.as_ref().map(|(_, m)| m.as_path()),
            &format!("iterations={}", g.iterations),
        );
        let seed = engine::rng::derive_seed(g.seed, k as u64);
        if model.exists() {
            println!(
                "\n== generation {k} of {}: kept from an earlier run ({})",
                g.count,
                model.display()
            );
            previous = Some((data, model));
            continue;
        }
        let mut report = crate::report::Report::new(
            &dir,
            &format!("Generation {k} of {}", g.count),
            vec![
                ("its games' player".into(), format!("`{player}`")),
                ("games".into(), g.games.to_string()),
                ("targets".into(), format!("{:?}", g.targets).to_lowercase()),
                ("epochs at most".into(), g.epochs.to_string()),
                ("match games".into(), g.match_games.to_string()),
                ("match ms a move".into(), g.match_time_ms.to_string()),
                ("games at once".into(), g.threads.to_string()),
            ],
        );
        let stage_started = Instant::now();
        println!(
            "\n== generation {k} of {}: {} games of {player} against itself -> {}",
            g.count,
            g.games,
            data.display()
        );
        if complete(&data) {
            println!("games kept from an earlier run");
        } else {
            if data.exists() {
                println!("an unfinished set of games from an earlier run: played again");
                std::fs::remove_dir_all(&data).map_err(|e| format!("{}: {e}", data.display()))?;
            }
            let players = [player.as_str(), player.as_str()];
            let records = Some(data.clone());
            let report = crate::play_match(
                board,
                players,
                g.games,
                Vec::new(),
                g.threads,
                seed,
                records,
            )?;
            println!("{} games in {:.0} s", report.games.len(), report.seconds);
        }

        report.stage("games", stage_started.elapsed().as_secs_f64());
        let stage_started = Instant::now();
        println!("training generation {k}'s net -> {}", model_dir.display());
        if model_dir.exists() {
            std::fs::remove_dir_all(&model_dir)
                .map_err(|e| format!("{}: {e}", model_dir.display()))?;
        }
        let config = TrainConfig {
            data: data.clone(),
            extra_data: previous.iter().map(|(d, _)| d.clone()).collect(),
            out: model_dir.clone(),
            epochs: g.epochs,
            encoding: Encoding::Table2ToMove,
            value_targets: g.targets,
            min_visits: g.min_visits,
            patience: 8,
            seed: g.seed,
            ..TrainConfig::default()
        };
        let trained = train(&TrainOptions {
            config,
            resume: false,
            force: false,
            verbose: false,
            command: std::env::args().collect::<Vec<_>>().join(" "),
        })?;
        if let Some(best) = &trained.best {
            println!(
                "best epoch {} of {}: validation accuracy {:.1}%, sure {:.1}%",
                trained.best_epoch,
                trained.epochs_run,
                100.0 * best.valid_accuracy,
                100.0 * best.valid_sure_share
            );
        }

        report.stage("training", stage_started.elapsed().as_secs_f64());
        report.training(&trained, "model");
        report.write()?;
        let budget = format!("time_ms={}", g.match_time_ms);
        let new = product(Some(&model), &budget);
        let old = product(previous.as_ref().map(|(_, m)| m.as_path()), &budget);
        let mut rivals = vec![(
            old,
            "the engine that played its games",
            "match.json".to_string(),
        )];
        if previous.is_some() {
            rivals.push((
                product(None, &budget),
                "the same search without a net",
                "match-no-net.json".to_string(),
            ));
        }
        for (i, (rival, who, file)) in rivals.iter().enumerate() {
            let stage_started = Instant::now();
            println!(
                "generation {k}'s engine against {who}, {} games:",
                g.match_games
            );
            let match_seed = engine::rng::derive_seed(seed, 1 + i as u64);
            let played = crate::play_match(
                board,
                [new.as_str(), rival.as_str()],
                g.match_games,
                Vec::new(),
                g.threads,
                match_seed,
                None,
            )?;
            print!("{}", report_table(&played, played.seconds));
            crate::write_json(&dir.join(file), &played)?;
            report.stage(
                &format!("match against {who}"),
                stage_started.elapsed().as_secs_f64(),
            );
            report.add_match(
                &format!("generation {k}'s engine against {who}"),
                "the empty board (seats alternating)",
                &played,
            );
            report.write()?;
        }
        previous = Some((data, model));
    }
    Ok(())
}
