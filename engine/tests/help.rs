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
