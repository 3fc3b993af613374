//! Small pieces the workspace's command-line programs share.

use std::process::ExitCode;

/// The exit of a program whose work returned `result`: success, or the error on stderr as
/// `program: error: ...` and a failure code.
pub fn finish(program: &str, result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Sets each named field of `config` from the same-named `Option` field of `args` when the
/// flag was given: how a flag overrides a key of a TOML config.
#[macro_export]
macro_rules! override_from_flags {
    ($config:expr, $args:expr; $($field:ident),* $(,)?) => {$(
        if let Some(v) = $args.$field.clone() {
            $config.$field = v;
        }
    )*};
}
