//! Every flag of `train` says what it does: a walk over every subcommand's `--help` that
//! fails on a flag without a description.

#[test]
fn every_flag_of_train_is_described() {
    let program = std::path::Path::new(env!("CARGO_BIN_EXE_train"));
    let found = engine::cli::undocumented_flags_of(program).unwrap();
    assert!(
        found.is_empty(),
        "flags without a description:\n{}",
        found.join("\n")
    );
}
