//! Tuning runs end to end on a small config: resumable to the same result, islands that wait
//! for missing migrants and go on, bad input refused by name.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use selfplay::shard::Shard;
use tune::config::TuneConfig;
use tune::run::{load_checkpoint, run, Checkpoint, RunOptions};

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tune-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn small(out: &Path) -> TuneConfig {
    TuneConfig {
        population: 4,
        generations: 4,
        migration_interval: 2,
        migrants: 1,
        migration_timeout_s: 30,
        yardstick_games: 2,
        parallel_games: 2,
        final_games: 0,
        out: out.to_path_buf(),
        ..TuneConfig::default()
    }
}

fn options(config: TuneConfig) -> RunOptions {
    RunOptions {
        config,
        shard: Shard { index: 0, count: 1 },
        resume: true,
        quiet: true,
        stop_after: None,
        shard_from: None,
    }
}

/// An island's checkpoint without the wall-clock times.
fn timeless(path: &Path, config: &TuneConfig) -> Checkpoint {
    let mut c = load_checkpoint(path, config).unwrap();
    for h in &mut c.history {
        h.seconds = 0.0;
    }
    c
}

#[test]
fn a_run_in_slices_ends_where_a_whole_run_ends() {
    let (a, b) = (folder("whole"), folder("slices"));
    run(&options(small(&a))).unwrap();
    for _ in 0..4 {
        let o = RunOptions {
            stop_after: Some(1),
            ..options(small(&b))
        };
        run(&o).unwrap();
    }
    run(&options(small(&b))).unwrap();
    for island in ["island-000.json", "island-001.json"] {
        assert_eq!(
            timeless(&a.join(island), &small(&a)),
            timeless(&b.join(island), &small(&b))
        );
    }
    assert_eq!(
        std::fs::read_to_string(a.join("best-weights.json")).unwrap(),
        std::fs::read_to_string(b.join("best-weights.json")).unwrap()
    );
    let csv = std::fs::read_to_string(a.join("fitness.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4 * 2);
    assert!(std::fs::read_to_string(a.join("fitness.svg"))
        .unwrap()
        .contains("<svg"));
    // Migrants went both ways after generation 2 (index 1), not after the last.
    assert!(a.join("migrants/gen-0001-from-000.json").exists());
    assert!(!a.join("migrants/gen-0003-from-000.json").exists());
    let c = load_checkpoint(&a.join("island-001.json"), &small(&a)).unwrap();
    assert_eq!(c.history[1].immigrants, 1);
    assert!(c.history.iter().all(|h| h.missing.is_empty()));
    assert!(c.history.iter().all(|h| h.vs_start.is_some()));
    // A fresh run into a used folder is refused; another config's checkpoint too.
    let e = run(&RunOptions {
        resume: false,
        ..options(small(&a))
    })
    .unwrap_err();
    assert!(e.contains("--resume"), "{e}");
    let other = TuneConfig {
        seed: 9,
        ..small(&a)
    };
    let e = run(&options(other)).unwrap_err();
    assert!(
        e.contains("island-000.json") && e.contains("another config") && e.contains("seed"),
        "{e}"
    );
    for dir in [a, b] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_missing_island_is_waited_for_then_left_out() {
    let dir = folder("missing");
    let config = TuneConfig {
        migration_timeout_s: 1,
        ..small(&dir)
    };
    // Shard 0 of 2 runs island 0 alone: island 1 never sends migrants.
    let o = RunOptions {
        shard: Shard { index: 0, count: 2 },
        ..options(config.clone())
    };
    let summary = run(&o).unwrap();
    let c = load_checkpoint(&dir.join("island-000.json"), &config).unwrap();
    assert_eq!(c.generations, 4);
    assert_eq!(c.history[1].missing, vec![1]);
    assert_eq!(c.history[1].immigrants, 0);
    assert!(!dir.join("island-001.json").exists());
    // The best weights come from the island that finished.
    assert!(summary.best.unwrap().exists());
    // A damaged migrant file is reported and left out like a missing one.
    let dir2 = folder("damaged");
    let config2 = TuneConfig {
        migration_timeout_s: 1,
        ..small(&dir2)
    };
    std::fs::create_dir_all(dir2.join("migrants")).unwrap();
    std::fs::write(
        dir2.join("migrants/gen-0001-from-001.json"),
        "[{\"Binary\": [1, 2",
    )
    .unwrap();
    run(&RunOptions {
        shard: Shard { index: 0, count: 2 },
        ..options(config2.clone())
    })
    .unwrap();
    let c = load_checkpoint(&dir2.join("island-000.json"), &config2).unwrap();
    assert_eq!(c.history[1].missing, vec![1]);
    for d in [dir, dir2] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// `kill -9` in the middle of a run, then `--resume`: the same best weights as a run never
/// stopped.
#[test]
fn kill_and_resume_from_the_command_line() {
    let (a, b) = (folder("cli-whole"), folder("cli-killed"));
    let args = |out: &Path| -> Vec<String> {
        [
            "run",
            "--population",
            "4",
            "--generations",
            "6",
            "--migration-interval",
            "2",
            "--migrants",
            "1",
            "--final-games",
            "0",
            "--yardstick-games",
            "2",
            "--set",
            "w-segments",
            "--parallel-games",
            "2",
            "--quiet",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect()
    };
    let tune = env!("CARGO_BIN_EXE_tune");
    let status = Command::new(tune).args(args(&a)).status().unwrap();
    assert!(status.success());
    let mut child = Command::new(tune).args(args(&b)).spawn().unwrap();
    let started = Instant::now();
    while !b.join("island-001.json").exists() && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let mut resumed = args(&b);
    resumed.push("--resume".into());
    let status = Command::new(tune).args(&resumed).status().unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(a.join("best-weights.json")).unwrap(),
        std::fs::read_to_string(b.join("best-weights.json")).unwrap()
    );
    // Every flag reached the config the run wrote down.
    let written = std::fs::read_to_string(a.join("tune.toml")).unwrap();
    for line in [
        "population = 4",
        "generations = 6",
        "migration_interval = 2",
        "migrants = 1",
        "final_games = 0",
        "yardstick_games = 2",
        "set = \"w-segments\"",
        "parallel_games = 2",
    ] {
        assert!(written.contains(line), "{line} not in\n{written}");
    }
    assert!(std::fs::read_to_string(a.join("best-weights.json"))
        .unwrap()
        .contains("w70-45.t1"));
    // Bad input: an unknown key in a config file is named with its file and line.
    let bad = a.join("bad.toml");
    std::fs::write(&bad, "islands = 2\npopulaton = 8\n").unwrap();
    let out = Command::new(tune)
        .args(["run", "--config", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("bad.toml") && e.contains("populaton"), "{e}");
    for dir in [a, b] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// A task whose shard comes from Slurm's variables follows the shard count the run started
/// with: `sbatch --array=1` (a new array of one task, `SLURM_ARRAY_TASK_COUNT=1`) on a run of
/// two shards is refused before it plays, naming the ways that work; `--shard` is followed.
#[test]
fn a_task_of_another_shard_plan_from_slurm_is_refused() {
    use tune::run::SHARD_PLAN_FILE;
    let dir = folder("plan");
    let config = small(&dir);
    run(&RunOptions {
        shard: Shard { index: 1, count: 2 },
        stop_after: Some(1),
        shard_from: Some("Slurm"),
        ..options(config.clone())
    })
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join(SHARD_PLAN_FILE)).unwrap(),
        "2\n"
    );
    let before = std::fs::read(dir.join("island-000.json")).ok();
    let e = run(&RunOptions {
        shard: Shard { index: 0, count: 1 },
        shard_from: Some("Slurm"),
        ..options(config.clone())
    })
    .unwrap_err();
    assert!(
        e.contains("played by 2 shards")
            && e.contains("shard 0/1")
            && e.contains("scontrol requeue")
            && e.contains("--shard I/2 --resume"),
        "{e}"
    );
    assert_eq!(std::fs::read(dir.join("island-000.json")).ok(), before);
    // The same task named by the flag is the user's choice.
    run(&RunOptions {
        shard: Shard { index: 0, count: 2 },
        stop_after: Some(1),
        shard_from: Some("Slurm"),
        ..options(config)
    })
    .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
