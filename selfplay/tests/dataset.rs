//! End-to-end tests of `selfplay`: a run killed with SIGKILL and resumed, shards against one
//! run, merge, stats, export, and config errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use engine::games::DotsAndBoxes;
use engine::record::{outcome_class, Dataset, GameRecord, Manifest};
use selfplay::config::RunConfig;
use selfplay::run::{run, Progress, RunOptions, RECORD_FILE};
use selfplay::shard::Shard;

const BIN: &str = env!("CARGO_BIN_EXE_selfplay");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("selfplay-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn small_config(out: &Path, games: u64, iterations: u64) -> RunConfig {
    RunConfig {
        rows: 3,
        cols: 3,
        games,
        iterations,
        parallel_games: 2,
        seed: 11,
        out: out.to_path_buf(),
        sync_every: 1,
        ..RunConfig::default()
    }
}

fn run_quiet(
    config: RunConfig,
    shard: Shard,
    resume: bool,
) -> Result<selfplay::run::RunSummary, String> {
    run(&RunOptions {
        config,
        shard,
        resume,
        progress: Progress::Quiet,
    })
}

/// All games of a dataset, sorted by index, checking that no index appears twice.
fn games_by_index(dir: &Path) -> Vec<GameRecord> {
    let mut games: Vec<GameRecord> = Dataset::open(dir)
        .unwrap()
        .games()
        .map(|g| g.unwrap())
        .collect();
    games.sort_by_key(|g| g.index);
    for pair in games.windows(2) {
        assert_ne!(pair[0].index, pair[1].index, "game {} twice", pair[0].index);
    }
    games
}

const ONE: Shard = Shard { index: 0, count: 1 };

/// Waits until `count` says at least `at_least` games are on disk (the run still going), then
/// kills the run with SIGKILL, mid-game.
fn kill_once(child: &mut std::process::Child, at_least: u64, count: impl Fn() -> u64) {
    let started = Instant::now();
    while count() < at_least {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run wrote nothing"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
}

#[test]
fn killed_run_resumes_without_losing_or_repeating_a_game() {
    let root = temp_dir("kill");
    let (killed, reference) = (root.join("killed"), root.join("reference"));
    let games = 48u64;
    let args = |out: &Path| {
        vec![
            "run".to_string(),
            "--game=dots_and_boxes".into(),
            "--rows=3".into(),
            "--cols=3".into(),
            format!("--games={games}"),
            "--iterations=20000".into(),
            "--threads=2".into(),
            "--seed=5".into(),
            "--sync-every=1".into(),
            "--quiet".into(),
            format!("--out={}", out.display()),
        ]
    };
    let mut child = Command::new(BIN)
        .args(args(&killed))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until some games are on disk, then SIGKILL the run mid-game.
    kill_once(&mut child, 4, || {
        Manifest::read(&killed).map_or(0, |m| m.games)
    });
    let before = engine::record::scan(&killed.join(RECORD_FILE)).unwrap();
    assert!(
        (before.indices.len() as u64) < games,
        "the kill came after the run finished; make the games longer"
    );
    // Make sure a torn last record is there to be dropped, as a kill inside a write leaves it:
    // a frame that promises 500 bytes and holds 100.
    let mut bytes = std::fs::read(killed.join(RECORD_FILE)).unwrap();
    bytes.extend_from_slice(&500u32.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    bytes.extend_from_slice(&[7u8; 100]);
    std::fs::write(killed.join(RECORD_FILE), &bytes).unwrap();

    // A resume reads the run's settings from the dataset's manifest: `--resume --out DIR` alone
    // continues it. A flag given that differs from the dataset is refused with the difference,
    // before anything is touched (the torn record stays for the resume to drop).
    let resume = |flags: &[&str]| {
        Command::new(BIN)
            .args(["run", "--resume", "--quiet"])
            .arg(format!("--out={}", killed.display()))
            .args(flags)
            .output()
            .unwrap()
    };
    let out = resume(&["--rows=3", "--seed=6"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("seed: 5 vs 6") && !err.contains("\"rows\""),
        "{err}"
    );
    let out = resume(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(killed.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["dropped_torn_record_at"], before.valid_len);
    assert_eq!(
        summary["games_this_run"].as_u64().unwrap() + before.indices.len() as u64,
        games,
        "the resumed run played exactly the missing games"
    );
    let out = Command::new(BIN).args(args(&reference)).output().unwrap();
    assert!(out.status.success());
    let (resumed, uninterrupted) = (games_by_index(&killed), games_by_index(&reference));
    assert_eq!(resumed.len() as u64, games);
    assert_eq!(
        resumed, uninterrupted,
        "the same games as a run that was never killed"
    );
    let manifest = Manifest::read(&killed).unwrap();
    assert!(manifest.complete);
    assert_eq!(manifest.games, games);
    std::fs::remove_dir_all(root).unwrap();
}

/// A run stopped between syncs (Ctrl-C, a kill) leaves a manifest that counts the games its
/// records hold, not those of the last sync.
#[test]
fn an_interrupted_run_leaves_a_manifest_that_counts_its_games() {
    let root = temp_dir("interrupted");
    let dir = root.join("d");
    // The default sync_every (16 games) and interval (10 s): no sync before the kill.
    let mut child = Command::new(BIN)
        .args([
            "run",
            "--game=dots_and_boxes",
            "--rows=3",
            "--cols=3",
            "--games=48",
            "--iterations=20000",
            "--threads=2",
            "--seed=5",
            "--quiet",
        ])
        .arg(format!("--out={}", dir.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let records =
        || engine::record::scan(&dir.join(RECORD_FILE)).map_or(0, |r| r.indices.len() as u64);
    kill_once(&mut child, 3, records);
    let held = records();
    assert!(held < 48, "the kill came after the run finished");
    let manifest = Manifest::read(&dir).unwrap();
    // A kill can fall between a game's record and the manifest that counts it: one behind.
    assert!(
        manifest.games == held || manifest.games + 1 == held,
        "the manifest counts {} games, the records hold {held}",
        manifest.games
    );
    assert_eq!(manifest.files[0].games, manifest.games);
    assert!(!manifest.complete);
    std::fs::remove_dir_all(root).unwrap();
}

/// An output folder that is a file is named as such by every command that writes one.
#[test]
fn a_file_given_as_the_output_folder_is_named_as_such() {
    let root = temp_dir("out-file");
    let file = root.join("taken");
    std::fs::write(&file, "not a folder").unwrap();
    let says = format!("--out {} is a file, not a folder", file.display());
    let err = run_quiet(small_config(&file, 2, 300), ONE, false).unwrap_err();
    assert_eq!(err, says);
    let err = run_quiet(
        small_config(&file, 2, 300),
        Shard { index: 1, count: 2 },
        false,
    )
    .unwrap_err();
    assert_eq!(err, says);
    let dataset = root.join("d");
    run_quiet(small_config(&dataset, 2, 300), ONE, false).unwrap();
    let err = selfplay::merge::merge(std::slice::from_ref(&dataset), &file).unwrap_err();
    assert_eq!(err, says);
    let err = selfplay::export::export_npy(&dataset, &file, false).unwrap_err();
    assert_eq!(err, says);
    let out = Command::new(BIN)
        .args(["run", "--games=1", "--iterations=50", "--quiet"])
        .arg(format!("--out={}", file.display()))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&says),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder");
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn shards_play_exactly_the_games_of_one_run_and_merge() {
    let root = temp_dir("shards");
    let whole = root.join("whole");
    run_quiet(small_config(&whole, 10, 500), ONE, false).unwrap();
    let sharded = root.join("sharded");
    let mut shard_dirs = Vec::new();
    for index in 0..3 {
        let s = run_quiet(
            small_config(&sharded, 10, 500),
            Shard { index, count: 3 },
            false,
        )
        .unwrap();
        assert_eq!(s.games_this_run, [4, 3, 3][index as usize]);
        shard_dirs.push(s.dataset);
    }
    assert_eq!(
        shard_dirs[1].file_name().unwrap().to_str().unwrap(),
        "shard-0001-of-0003"
    );
    let merged = root.join("merged");
    let summary = selfplay::merge::merge(&shard_dirs, &merged).unwrap();
    assert_eq!(summary.games, 10);
    assert!(summary.complete);
    assert_eq!(games_by_index(&merged), games_by_index(&whole));
    // Merging a shard twice keeps its games once; an incomplete set of shards says so.
    let again = root.join("again");
    let s =
        selfplay::merge::merge(&[shard_dirs[0].clone(), shard_dirs[0].clone()], &again).unwrap();
    assert_eq!((s.games, s.duplicates_skipped, s.complete), (4, 4, false));
    // Different settings are refused, naming the setting.
    let other = root.join("other");
    run_quiet(small_config(&other, 2, 400), ONE, false).unwrap();
    let err = selfplay::merge::merge(&[whole.clone(), other], &root.join("mixed")).unwrap_err();
    assert!(err.contains("iterations: 500 vs 400"), "{err}");
    // Merging into an existing dataset is refused.
    assert!(selfplay::merge::merge(std::slice::from_ref(&whole), &merged).is_err());
    // A merge that meets a corrupt source fails and leaves nothing: its retry goes through.
    let corrupt = root.join("corrupt");
    std::fs::create_dir_all(&corrupt).unwrap();
    for file in ["manifest.json", RECORD_FILE] {
        std::fs::copy(shard_dirs[1].join(file), corrupt.join(file)).unwrap();
    }
    let mut bytes = std::fs::read(corrupt.join(RECORD_FILE)).unwrap();
    // Header: magic (8), version (4), metadata length (4), metadata, CRC (4); then the first
    // record's frame: length (4), CRC (4), payload. A payload byte of the first record flipped
    // is a damaged record, not a torn tail.
    let meta = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let first_payload = 16 + meta + 4 + 8;
    bytes[first_payload + 2] ^= 0xff;
    std::fs::write(corrupt.join(RECORD_FILE), bytes).unwrap();
    let retry = root.join("retry");
    let sources = [shard_dirs[0].clone(), corrupt];
    assert!(selfplay::merge::merge(&sources, &retry).is_err());
    assert!(!retry.exists(), "a failed merge left {}", retry.display());
    let s = selfplay::merge::merge(&shard_dirs, &retry).unwrap();
    assert_eq!(s.games, 10);
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_folder_with_another_dataset_is_refused() {
    let root = temp_dir("refuse");
    let dir = root.join("d");
    run_quiet(small_config(&dir, 2, 300), ONE, false).unwrap();
    let err = run_quiet(small_config(&dir, 2, 300), ONE, false).unwrap_err();
    assert!(err.contains("--resume"), "{err}");
    let mut other = small_config(&dir, 2, 300);
    other.seed = 12;
    let err = run_quiet(other, ONE, true).unwrap_err();
    assert!(err.contains("seed: 11 vs 12"), "{err}");
    let mut bigger = small_config(&dir, 2, 300);
    bigger.rows = 4;
    let err = run_quiet(bigger, ONE, true).unwrap_err();
    assert!(err.contains("game"), "{err}");
    // Resuming a finished dataset with more games plays only the new ones.
    let s = run_quiet(small_config(&dir, 5, 300), ONE, true).unwrap();
    assert_eq!((s.games_this_run, s.games_done, s.complete), (3, 5, true));
    // A resume with fewer games is refused and leaves the manifest and summary as they were.
    let summary = std::fs::read(dir.join("summary.json")).unwrap();
    let err = run_quiet(small_config(&dir, 3, 300), ONE, true).unwrap_err();
    assert!(
        err.contains("5 planned games (5 done); a resume never lowers"),
        "{err}"
    );
    assert_eq!(Manifest::read(&dir).unwrap().games_planned, 5);
    assert_eq!(std::fs::read(dir.join("summary.json")).unwrap(), summary);
    std::fs::remove_dir_all(root).unwrap();
}

/// Reads a little-endian `.npy` file: (descr, shape, data bytes).
fn read_npy(path: &Path) -> (String, Vec<u64>, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
    let descr = header
        .split("'descr': '")
        .nth(1)
        .unwrap()
        .split('\'')
        .next()
        .unwrap();
    let shape_text = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let shape = shape_text
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect();
    (descr.to_string(), shape, bytes[10 + len..].to_vec())
}

#[test]
fn stats_and_npy_export_agree_with_the_reader() {
    let root = temp_dir("export");
    let dir = root.join("d");
    let mut config = small_config(&dir, 6, 300);
    config.sample_moves = 2;
    run_quiet(config, ONE, false).unwrap();
    let dataset = Dataset::open(&dir).unwrap();
    let positions: Vec<_> = dataset
        .positions(DotsAndBoxes::new(3, 3).unwrap())
        .map(|p| p.unwrap())
        .collect();
    assert_eq!(positions.len(), 6 * 24);

    let stats = selfplay::stats::stats(&dir).unwrap();
    assert_eq!((stats.games, stats.positions), (6, 144));
    assert_eq!(stats.moves_sampled, 12);
    assert_eq!(
        stats.outcomes.p1 + stats.outcomes.p2 + stats.outcomes.draw,
        6
    );
    assert_eq!(stats.margin_histogram.values().sum::<u64>(), 6);
    // Every game starts from the empty board: at least five repeated first positions.
    assert!(stats.duplicate_positions >= 5);
    assert_eq!(stats.distinct_positions + stats.duplicate_positions, 144);

    let out = root.join("npy");
    let s = selfplay::export::export_npy(&dir, &out, false).unwrap();
    assert_eq!(s.positions, 144);
    // Arrays already there are refused without force, and written again with it.
    let err = selfplay::export::export_npy(&dir, &out, false).unwrap_err();
    assert!(err.contains("features.npy exists: pass --force"), "{err}");
    assert_eq!(
        selfplay::export::export_npy(&dir, &out, true)
            .unwrap()
            .positions,
        144
    );
    let (descr, shape, data) = read_npy(&out.join("features.npy"));
    assert_eq!((descr.as_str(), shape), ("<f4", vec![144, 24 + 9]));
    let floats: Vec<f32> = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let (descr, shape, labels) = read_npy(&out.join("labels.npy"));
    assert_eq!((descr.as_str(), shape), ("<i8", vec![144]));
    let (_, _, index) = read_npy(&out.join("game_index.npy"));
    for (i, p) in positions.iter().enumerate() {
        assert_eq!(&floats[i * 33..(i + 1) * 33], &p.features[..]);
        let label = i64::from_le_bytes(labels[i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!(label, outcome_class(p.label) as i64);
        let game = i64::from_le_bytes(index[i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!(game as u64, p.game_index);
    }
    // A torn last record (a killed run not yet resumed) is skipped with a warning that names
    // the file and offset; the complete games still count.
    let records = dir.join(RECORD_FILE);
    let len = std::fs::metadata(&records).unwrap().len();
    let mut bytes = std::fs::read(&records).unwrap();
    bytes.extend_from_slice(&[200, 0, 0, 0, 1, 2, 3, 4, 5]);
    std::fs::write(&records, bytes).unwrap();
    let torn = selfplay::stats::stats(&dir).unwrap();
    assert_eq!((torn.games, torn.positions), (6, 144));
    assert_eq!(torn.warnings.len(), 1);
    assert!(
        torn.warnings[0].contains(&format!("offset {len}")),
        "{}",
        torn.warnings[0]
    );
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn command_line_errors_name_what_is_wrong() {
    let root = temp_dir("cli");
    let bad = root.join("bad.toml");
    std::fs::write(&bad, "games = 3\niteratons = 10\n").unwrap();
    let out = Command::new(BIN)
        .args(["run", "--config"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("iteratons"),
        "{err}"
    );
    // A flag's value is checked like the file's.
    let out = Command::new(BIN)
        .args(["run", "--iterations", "0", "--quiet"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("iterations must be at least 1"));
    // Slurm array variables choose the shard.
    let out = Command::new(BIN)
        .args([
            "run",
            "--rows=2",
            "--cols=2",
            "--games=4",
            "--iterations=50",
            "--quiet",
        ])
        .arg(format!("--out={}", root.join("slurm").display()))
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shard = root.join("slurm/shard-0001-of-0002");
    let games: Vec<u64> = games_by_index(&shard).iter().map(|g| g.index).collect();
    assert_eq!(games, vec![1, 3]);
    // Stats of a folder that is not a dataset names the manifest it looked for.
    let out = Command::new(BIN).arg("stats").arg(&root).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("manifest.json"));
    std::fs::remove_dir_all(root).unwrap();
}

/// Rerunning one task of a Slurm array as `sbatch --array=1 job.sbatch` makes an array of one
/// task (SLURM_ARRAY_TASK_COUNT=1): the run would be unsharded, inside the folder of the
/// shards. It is refused before anything is written, naming the shards and the ways that work;
/// `--shard i/n` then reruns the shard.
#[test]
fn a_slurm_task_rerun_as_an_array_of_one_is_refused() {
    let root = temp_dir("slurm-rerun");
    let out = root.join("run");
    let selfplay = |extra: &[&str], env: &[(&str, &str)]| {
        let mut cmd = Command::new(BIN);
        cmd.args([
            "run",
            "--rows=2",
            "--cols=2",
            "--games=4",
            "--iterations=50",
            "--quiet",
        ])
        .arg(format!("--out={}", out.display()))
        .args(extra);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    // The array --array=0-1: two tasks.
    for id in ["0", "1"] {
        let o = selfplay(
            &[],
            &[("SLURM_ARRAY_TASK_ID", id), ("SLURM_ARRAY_TASK_COUNT", "2")],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // Task 1 again as `sbatch --array=1`: an array of one, from 1.
    let o = selfplay(
        &["--resume"],
        &[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "1"),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    for needle in [
        "shard-0000-of-0002",
        "shard-0001-of-0002",
        "unsharded",
        "--shard i/2",
        "scontrol requeue",
        "SLURM_ARRAY_TASK_COUNT=1",
    ] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
    assert!(!out.join(RECORD_FILE).exists() && !out.join("manifest.json").exists());
    // The same by flag is refused too; --shard 1/2 reruns the task's own shard.
    let o = selfplay(&["--shard=0/1"], &[]);
    assert!(!o.status.success());
    let o = selfplay(&["--shard=1/2", "--resume"], &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(root).unwrap();
}

/// Inside a Slurm task, one game a core counts SLURM_CPUS_PER_TASK, not the node's cores;
/// --parallel-games still wins.
#[test]
fn a_slurm_task_plays_one_game_a_cpu_it_was_given() {
    let root = temp_dir("slurm-cpus");
    let parallel = |out: &Path, extra: &[&str], cpus: &str| -> (u64, String) {
        let o = Command::new(BIN)
            .args([
                "run",
                "--rows=2",
                "--cols=2",
                "--games=8",
                "--iterations=50",
            ])
            .arg(format!("--out={}", out.display()))
            .args(extra)
            .env("SLURM_CPUS_PER_TASK", cpus)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(selfplay::run::SUMMARY_FILE)).unwrap(),
        )
        .unwrap();
        (summary["parallel_games"].as_u64().unwrap(), err)
    };
    // Three on this two-core machine: the task's figure, not the machine's.
    let (n, err) = parallel(&root.join("a"), &[], "3");
    assert_eq!(n, 3);
    assert!(
        err.contains("3 games at once (SLURM_CPUS_PER_TASK=3"),
        "{err}"
    );
    assert_eq!(parallel(&root.join("b"), &["--search-threads=2"], "6").0, 3);
    assert_eq!(parallel(&root.join("c"), &["--parallel-games=2"], "5").0, 2);
    let o = Command::new(BIN)
        .args(["run", "--rows=2", "--cols=2", "--games=2", "--quiet"])
        .arg(format!("--out={}", root.join("d").display()))
        .env("SLURM_CPUS_PER_TASK", "many")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("SLURM_CPUS_PER_TASK='many'"));
    std::fs::remove_dir_all(root).unwrap();
}

/// `player`: a named player plays both sides, its root statistics kept with each searched move,
/// and game k is the same game however the run is split (reseeded from the game's seed).
#[test]
fn a_named_player_makes_reproducible_resumable_games_with_root_statistics() {
    let root = temp_dir("player");
    let config = |out: PathBuf, games: u64| RunConfig {
        player: Some("mcts:iterations=300,solver_edges=8".into()),
        random_opening_moves: 2,
        ..RunConfig {
            iterations: RunConfig::default().iterations,
            ..small_config(&out, games, 1)
        }
    };
    let whole = root.join("whole");
    let summary = run_quiet(config(whole.clone(), 6), ONE, false).unwrap();
    assert!(summary.complete);
    assert_eq!(summary.iterations_per_move, 300);
    let split = root.join("split");
    run_quiet(config(split.clone(), 3), ONE, false).unwrap();
    let err = run_quiet(config(split.clone(), 6), ONE, false).unwrap_err();
    assert!(err.contains("--resume"), "{err}");
    run_quiet(config(split.clone(), 6), ONE, true).unwrap();
    let games = games_by_index(&whole);
    assert_eq!(games, games_by_index(&split));
    assert_eq!(games.len(), 6);
    let board = DotsAndBoxes::new(3, 3).unwrap();
    for game in &games {
        engine::record::replay(game, board, |_, _, _| {}).unwrap();
        let kinds: Vec<_> = game.moves.iter().map(|m| m.kind).collect();
        assert_eq!(&kinds[..2], &[engine::record::MoveKind::Given; 2]);
        // Searched moves until the solver's 8 free edges, whose moves need no search.
        for (i, m) in game.moves.iter().enumerate().skip(2) {
            let visits: u64 = m.root.iter().map(|r| r.visits as u64).sum();
            if i < 24 - 8 && m.iterations > 0 {
                assert_eq!(m.iterations, 300, "move {i}");
                assert!(visits > 0 && visits < 300, "move {i}: {visits}");
                assert!(m.root.iter().any(|r| r.action == m.action), "move {i}");
            }
            if i >= 24 - 8 {
                assert!(m.iterations == 0 && m.root.is_empty(), "move {i}");
            }
        }
    }
    // Another player is another dataset.
    let other = RunConfig {
        player: Some("mcts:iterations=200".into()),
        ..config(whole.clone(), 6)
    };
    let err = run_quiet(other, ONE, true).unwrap_err();
    assert!(err.contains("player"), "{err}");
    // A key the game does not have is refused before the folder is made.
    let bad = RunConfig {
        player: Some("mcts:threshold=0.5".into()),
        ..config(root.join("bad"), 2)
    };
    assert!(run_quiet(bad, ONE, false).is_err());
    assert!(!root.join("bad").exists());
}

/// A dataset records the net its player plays with, and a resume with another net under the
/// same spec (a rewritten model file, a binary that ships a newer one) is refused instead of
/// mixing two generations; a dataset from before nets were recorded takes the run's, once.
#[test]
fn a_resume_with_another_net_is_refused() {
    use engine::game::Game;
    use engine::games::dots_and_boxes::net::DAB_ENCODING;
    use engine::nn::{ModelMeta, ValueNet, OUTPUTS};
    let root = temp_dir("net");
    let board = DotsAndBoxes::new(3, 3).unwrap();
    let (inputs, hidden) = (board.feature_len(), 8);
    let net = |scale: f32| {
        let values = |n: usize| -> Vec<f32> {
            (0..n)
                .map(|i| scale * ((i * 7 % 13) as f32 - 6.0) / 6.0)
                .collect()
        };
        ValueNet {
            meta: ModelMeta {
                game: DotsAndBoxes::spec_for(3, 3).unwrap(),
                encoding: DAB_ENCODING.into(),
                inputs,
                hidden,
                extra: Default::default(),
            },
            hidden_weight: values(inputs * hidden),
            hidden_bias: values(hidden),
            output_weight: values(OUTPUTS * hidden),
            output_bias: values(OUTPUTS),
        }
    };
    let model = root.join("model.safetensors");
    net(1.0).save(&model).unwrap();
    let out = root.join("run");
    let config = |games: u64| RunConfig {
        player: Some(format!("nn:iterations=60,model={}", model.display())),
        iterations: RunConfig::default().iterations,
        ..small_config(&out, games, 1)
    };
    run_quiet(config(2), ONE, false).unwrap();
    let recorded = |out: &Path| Manifest::read(out).unwrap().config["player_net"].clone();
    let first = recorded(&out);
    assert!(
        first.as_str().is_some_and(|s| s.starts_with("value net ")),
        "{first}"
    );
    // The same net again: the resume plays on.
    run_quiet(config(3), ONE, true).unwrap();
    assert_eq!(recorded(&out), first);
    // The file rewritten with other weights: refused, naming both nets, nothing played.
    net(0.5).save(&model).unwrap();
    let err = run_quiet(config(4), ONE, true).unwrap_err();
    assert!(
        err.contains("player_net: ") && err.contains(" vs "),
        "{err}"
    );
    assert_eq!(Manifest::read(&out).unwrap().games, 3);
    // A manifest written before nets were recorded: the run's net is taken, and kept.
    let path = out.join(engine::record::MANIFEST_FILE);
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    manifest["config"]
        .as_object_mut()
        .unwrap()
        .remove("player_net");
    std::fs::write(&path, manifest.to_string()).unwrap();
    run_quiet(config(4), ONE, true).unwrap();
    assert_ne!(recorded(&out), first);
    assert!(recorded(&out).is_string());
    assert_eq!(Manifest::read(&out).unwrap().games, 4);
    std::fs::remove_dir_all(root).unwrap();
}
