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
