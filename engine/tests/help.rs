//! Every flag of `engine` and `pbrain-engine` says what it does: a walk over every subcommand's
//! `--help` that fails on a flag without a description.

use std::path::Path;

use engine::cli::{undocumented_flags, undocumented_flags_of};

#[test]
fn every_flag_of_engine_is_described() {
    let found = undocumented_flags_of(Path::new(env!("CARGO_BIN_EXE_engine"))).unwrap();
    assert!(
        found.is_empty(),
        "flags without a description:\n{}",
        found.join("\n")
    );
}

#[test]
fn pbrain_engine_prints_its_usage_and_describes_its_flags() {
    let found = undocumented_flags_of(Path::new(env!("CARGO_BIN_EXE_pbrain-engine"))).unwrap();
    assert!(found.is_empty(), "{found:?}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pbrain-engine"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("--threads") && text.contains("Gomocup"),
        "{text}"
    );
}

/// `play` and `analyse` read `--size` and `--model` for Gomoku too, and their help says so.
#[test]
fn board_and_model_flags_name_every_game_that_reads_them() {
    for command in ["play", "analyse"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_engine"))
            .args([command, "--help"])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let flag = |name: &str| {
            let at = text
                .find(&format!("--{name} <"))
                .unwrap_or_else(|| panic!("{command}: no --{name}"));
            // The flag's line and its description, up to the next flag's line.
            let mut lines = text[at..].lines();
            let first = lines.next().unwrap_or("").to_string();
            lines
                .take_while(|l| !l.trim_start().starts_with('-'))
                .fold(first, |all, l| all + " " + l.trim())
        };
        for name in ["size", "model"] {
            let help = flag(name);
            assert!(help.contains("Gomoku"), "{command} --{name}: {help}");
        }
    }
}

/// The checker itself: a flag with a description (beside it or under it) passes, one with
/// nothing or only `[default: ...]` is found; possible values are not flags.
#[test]
fn the_checker_finds_flags_without_a_description() {
    let help = "Options:
      --seed <SEED>    [default: 1]
      --games <GAMES>  Games to play [default: 100]
      --quiet
      --backend <BACKEND>
          Where to train

          Possible values:
          - cpu: burn's CPU backend

      --epochs <EPOCHS>
          

  -h, --help           Print help
";
    assert_eq!(
        undocumented_flags(help),
        ["--seed <SEED>", "--quiet", "--epochs <EPOCHS>"]
    );
}
