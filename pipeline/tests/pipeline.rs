//! The main command end to end on a tiny setting: every stage runs and reports.

use std::process::Command;

#[test]
fn the_pipeline_runs_every_stage() {
    let out = std::env::temp_dir().join(format!("pipeline-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let positions = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/state-s-40.txt");
    let run = Command::new(env!("CARGO_BIN_EXE_pipeline"))
        .args([
            "--out",
            out.to_str().unwrap(),
            "--games",
            "24",
            "--iterations",
            "300",
        ])
        .args([
            "--epochs",
            "2",
            "--match-games",
            "4",
            "--match-iterations",
            "500",
            "--match-time-ms",
            "20",
        ])
        .args(["--positions", positions, "--threads", "2"])
        .args([
            "--generations",
            "2",
            "--generation-games",
            "6",
            "--generation-iterations",
            "100",
            "--generation-targets",
            "search",
            "--generation-min-visits",
            "3",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stdout}\n{stderr}");
    for stage in [
        "== 1/3 self-play",
        "== 2/3 training",
        "match 1 of 2",
        "match 2 of 2",
        "== generation 1 of 2: 6 games of best:model=none,iterations=100",
        "== generation 2 of 2: 6 games of best:model=",
        "generation 2's engine against the engine that played its games",
        "generation 2's engine against the same search without a net",
        "pipeline done",
    ] {
        assert!(stdout.contains(stage), "{stage}:\n{stdout}");
    }
    // Each generation's net reads who is to move and was trained on its games and (after the
    // first) the previous generation's, here on their searches' values.
    let gen2 = engine::nn::ValueNet::load(
        &out.join("gen-2/model/model.safetensors"),
        engine::registry::GAMES,
    )
    .unwrap();
    assert_eq!(
        gen2.meta.encoding,
        engine::games::dots_and_boxes::net::DAB_ENCODING_TO_MOVE
    );
    assert_eq!(gen2.meta.extra["dataset_games"], "12");
    // Trained on the searches' values, as asked: the card names the rows.
    let card = std::fs::read_to_string(out.join("gen-2/model/MODEL.md")).unwrap();
    assert!(
        card.contains(
            "| targets | the recorded searches' values: each root move of at least 3 visits"
        ),
        "{card}"
    );
    let gen_match: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("gen-2/match.json")).unwrap())
            .unwrap();
    assert_eq!(gen_match["pair"]["games"], 4);
    let no_net: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("gen-2/match-no-net.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(no_net["players"][1]["spec"], "best:model=none,time_ms=20");
    assert!(out.join("data/games.rec").exists());
    assert!(out.join("model/model.safetensors").exists());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("match-2.json")).unwrap()).unwrap();
    assert_eq!(report["pair"]["games"], 4);
    // report.md says what was run, each stage's time, the net and both matches, with plots.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for part in [
        "# Pipeline run: 5x5 Dots and Boxes",
        "--match-games 4",
        "Machine: ",
        "| 1/3 self-play |",
        "| 2/3 training |",
        "## The net",
        "![training curves](model/curves.svg)",
        "| 1 | `paper:net=1,",
        "| 2 | `nn:model=",
        "![match scores](scores.svg)",
        "### Match 2: ",
        "[gen-2/report.md](gen-2/report.md)",
    ] {
        assert!(md.contains(part), "{part}:\n{md}");
    }
    let svg = std::fs::read_to_string(out.join("scores.svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(out.join("model/curves.svg").exists());
    let gen2_md = std::fs::read_to_string(out.join("gen-2/report.md")).unwrap();
    assert!(gen2_md.contains("# Generation 2 of 2"), "{gen2_md}");
    assert!(
        gen2_md.contains("against the same search without a net"),
        "{gen2_md}"
    );
    assert!(out.join("gen-2/scores.svg").exists());
    // A second run finds the dataset complete and trains afresh.
    let again = Command::new(env!("CARGO_BIN_EXE_pipeline"))
        .args([
            "--out",
            out.to_str().unwrap(),
            "--games",
            "24",
            "--iterations",
            "300",
        ])
        .args([
            "--epochs",
            "1",
            "--match-games",
            "2",
            "--match-iterations",
            "200",
            "--match-time-ms",
            "10",
        ])
        .args([
            "--positions",
            positions,
            "--threads",
            "1",
            "--generations",
            "2",
        ])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    // The generations' nets are kept: a stopped run goes on where it stopped.
    let again_out = String::from_utf8_lossy(&again.stdout);
    assert_eq!(
        again_out.matches("kept from an earlier run").count(),
        2,
        "{again_out}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// Bad arguments and missing files are refused before any stage runs: nothing is written.
#[test]
fn arguments_and_files_are_checked_before_any_work() {
    let root = std::env::temp_dir().join(format!("pipeline-checks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let missing = root.join("missing.txt");
    let missing = missing.to_str().unwrap();
    for (args, says) in [
        (vec!["--epochs", "0"], "--epochs must be positive"),
        (vec!["--match-games", "0"], "--match-games must be positive"),
        (vec!["--positions", missing], "missing.txt"),
        (
            vec!["--games", "-3"],
            "--games takes no negative value, got '-3'",
        ),
        // Match 1 plays each position twice: an odd count would be rounded up unasked.
        (
            vec!["--match-games", "3"],
            "--match-games 3: match 1 plays each start position twice, the seats swapped, so the count must be even; give 2 or 4",
        ),
        // A Gomoku flag is not silently ignored by the Dots and Boxes run.
        (
            vec!["--size", "9"],
            "--size does not apply to --game dots_and_boxes: only the Gomoku run reads it",
        ),
    ] {
        let out = root.join("out");
        let run = Command::new(env!("CARGO_BIN_EXE_pipeline"))
            .args(["--out", out.to_str().unwrap()])
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{args:?} was accepted");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    // Run from a folder without the repository's configs/, the default positions are named.
    let run = Command::new(env!("CARGO_BIN_EXE_pipeline"))
        .args(["--out", root.join("out").to_str().unwrap()])
        .current_dir(&root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("run from its root, or pass --positions"),
        "{stderr}"
    );
    assert!(!root.join("out").exists());
    std::fs::remove_dir_all(&root).unwrap();
}

/// `--game gomoku`: generations of the pattern net on a small board, each with its games, its
/// net (whose card ends with its matches), its matches and its report; a second run keeps them.
#[test]
fn gomoku_generations_run_and_are_kept() {
    let out = std::env::temp_dir().join(format!("pipeline-gomoku-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let args = |generations: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pipeline"));
        command
            .args(["--game", "gomoku", "--size", "9", "--out"])
            .arg(&out)
            .args(["--games", "8", "--time-ms", "10", "--epochs", "2"])
            .args(["--match-games", "4", "--match-time-ms", "10"])
            .args(["--parallel-games", "2", "--generations", generations])
            // Seed 24 holds out games 2 and 3 of generation 1, one opening's pair: one of
            // them is no repeat of a training game, so the net has positions to validate on.
            .args(["--seed", "24"]);
        command
    };
    let run = args("2").output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for stage in [
        // No shipped net on 9x9: `product` is the fitted evaluation, named so and met once.
        "no shipped net plays 9x9 freestyle: generation 1 plays the fitted evaluation (model=none)",
        "== generation 1 of 2: 8 games of pvs:time_ms=10,model=none against itself",
        "== generation 2 of 2: 8 games of pvs:time_ms=10,model=",
        "generation 2's net against the player that made its games, 4 games",
        "generation 2's net against the fitted evaluation, 4 games",
        "pipeline done",
    ] {
        assert!(stdout.contains(stage), "{stage}:\n{stdout}");
    }
    assert_eq!(
        stdout.matches("against the fitted evaluation").count(),
        1,
        "{stdout}"
    );
    let net =
        engine::games::gomoku::net::PatternNet::load(&out.join("gen-2/net/model.safetensors"))
            .unwrap();
    assert!(net
        .check_fits(engine::games::gomoku::Rule::Freestyle, 9)
        .is_ok());
    // Generation 2's net learnt from both generations' games.
    assert!(
        net.extra["dataset"].contains("gen-1/data") && net.extra["dataset"].contains("gen-2/data"),
        "{:?}",
        net.extra
    );
    let card = std::fs::read_to_string(out.join("gen-2/net/MODEL.md")).unwrap();
    assert!(card.contains("## Generation 2's matches"), "{card}");
    assert!(card.contains("Against the fitted evaluation:"), "{card}");
    let fitted: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("gen-2/match-fitted.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(fitted["pair"]["games"], 4);
    assert_eq!(fitted["players"][1]["spec"], "pvs:time_ms=10,model=none");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("# Pipeline run: Gomoku 9x9 freestyle, 2 generation(s)")
            && md.contains("| 2 | ")
            && md.contains("[gen-2/report.md](gen-2/report.md)"),
        "{md}"
    );
    assert!(out.join("gen-1/report.md").exists() && out.join("gen-1/data/games.rec").exists());

    let again = args("2").output().unwrap();
    let again_out = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success(), "{again_out}");
    assert_eq!(
        again_out.matches("kept from an earlier run").count(),
        2,
        "{again_out}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// `--game gomoku` checks its model, datasets and numbers before any game.
#[test]
fn gomoku_arguments_are_checked_before_any_work() {
    let root = std::env::temp_dir().join(format!("pipeline-gomoku-checks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let missing = root.join("missing.safetensors");
    let missing = missing.to_str().unwrap();
    let no_data = root.join("no-data");
    let no_data = no_data.to_str().unwrap();
    for (args, says) in [
        (vec!["--generations", "0"], "--generations must be positive"),
        (vec!["--time-ms", "0"], "--time-ms must be positive"),
        (vec!["--rule", "go"], "--rule: "),
        (vec!["--start-model", missing], "--start-model "),
        (vec!["--data", no_data], "--data "),
        (vec!["--size", "30"], "a Gomoku board is"),
        // Games are played in seat-swapped pairs: 3 would play 4 where the report says 3.
        (
            vec!["--games", "3"],
            "--games 3: Gomoku's self-play games are played in pairs from each random opening, the seats swapped, so the count must be even; give 2 or 4",
        ),
        (vec!["--games", "1"], "--games 1: "),
        (vec!["--match-games", "5"], "give 4 or 6"),
        // Seed 1's split holds out neither game 0 nor game 1: the net could not be validated.
        (
            vec!["--games", "2"],
            "--games 2 with --seed 1 holds out no game for validation",
        ),
        (
            vec!["--data", no_data, "--data", no_data],
            "is given twice as a dataset",
        ),
        // A Dots and Boxes flag is not silently ignored by the Gomoku run.
        (
            vec!["--rows", "3"],
            "--rows does not apply to --game gomoku: only the Dots and Boxes run reads it",
        ),
        (
            vec!["--generation-games", "10"],
            "--generation-games does not apply to --game gomoku",
        ),
    ] {
        let out = root.join("out");
        let run = Command::new(env!("CARGO_BIN_EXE_pipeline"))
            .args(["--game", "gomoku", "--out", out.to_str().unwrap()])
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{args:?} was accepted");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    std::fs::remove_dir_all(&root).unwrap();
}
