//! The `engine` binary as a user runs it: net-guided analysis and the refusals before a search.

use std::process::Command;

fn engine(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_engine"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("the engine binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const MODEL: &str = "models/dab-5x5/model.safetensors";
const EDGES40: &str = "11 35 1 51 39 30 19 16 58 57 3 24 56 15 37 14 36 50 7 31 2 26 4 42 40 54 20 18 45 38 6 59 29 32 12 33 53 52 23 28";

#[test]
fn analyse_with_a_model_reports_what_the_net_did() {
    let (ok, out, err) = engine(&[
        "analyse",
        "--moves",
        EDGES40,
        "--iterations",
        "3000",
        "--model",
        MODEL,
        "--threshold",
        "0.6",
        "--json",
    ]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &json["rollouts"];
    assert_eq!(r["rollouts"], 3000);
    assert!(r["net_evaluations"].as_u64().unwrap() >= 3000, "{r}");
    // The shipped net reaches 0.6 in some of these positions (it never reaches 0.9).
    assert!(r["net_cutoffs"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(json["net"]["threshold"], 0.6);
    let (ok, out, _) = engine(&[
        "analyse",
        "--moves",
        EDGES40,
        "--iterations",
        "3000",
        "--model",
        MODEL,
    ]);
    assert!(ok);
    assert!(out.contains("rollouts ended by the net"), "{out}");
}

#[test]
fn models_that_do_not_fit_are_refused_before_any_search() {
    let (ok, _, err) = engine(&["analyse", "--rows", "4", "--cols", "4", "--model", MODEL]);
    assert!(!ok);
    assert!(
        err.contains(MODEL) && err.contains("5x5") && err.contains("4x4"),
        "{err}"
    );
    let (ok, _, err) = engine(&["analyse", "--game", "tictactoe", "--model", MODEL]);
    assert!(!ok && err.contains("Dots and Boxes only"), "{err}");
    let (ok, _, err) = engine(&["analyse", "--model", MODEL, "--threshold", "0"]);
    assert!(!ok && err.contains("--threshold"), "{err}");
    let (ok, _, err) = engine(&["bench", "--model", "models/none.safetensors"]);
    assert!(!ok && err.contains("models/none.safetensors"), "{err}");
    let (ok, _, err) = engine(&["play", "--rows", "3", "--cols", "3", "--model", MODEL]);
    assert!(!ok && err.contains("3x3"), "{err}");
}
