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

/// The machine's cores (1 when it cannot tell).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A count of threads or games at once as every command reads it: 0 means one a core.
pub fn or_all_cores(n: usize) -> usize {
    if n == 0 {
        cores()
    } else {
        n
    }
}

/// The most threads a searcher's `threads=` key takes (lazy SMP over one shared table).
pub const MAX_SEARCH_THREADS: usize = 256;

/// A searcher's `threads=` value as its players read it: 0 means one a core; above
/// [`MAX_SEARCH_THREADS`] is refused.
pub fn search_threads(n: usize) -> Result<usize, String> {
    if n > MAX_SEARCH_THREADS {
        return Err(format!("threads is at most {MAX_SEARCH_THREADS}, not {n}"));
    }
    Ok(or_all_cores(n))
}

/// `n` and the noun, singular or plural: `1 thread`, `2 threads`.
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
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

/// The flags of a clap `--help` text that have no description: option lines (`-x, --name
/// <VALUE>`) with no text beside them or indented under them but `[default: ...]`.
pub fn undocumented_flags(help: &str) -> Vec<String> {
    let lines: Vec<&str> = help.lines().collect();
    let is_flag = |t: &str| {
        t.starts_with("--")
            || (t.len() > 1 && t.starts_with('-') && t.as_bytes()[1].is_ascii_alphanumeric())
    };
    // Text with clap's bracketed notes (`[default: 1]`, `[possible values: ...]`) taken out.
    let words = |text: &str| -> String {
        let mut out = String::new();
        let mut depth = 0;
        for c in text.chars() {
            match c {
                '[' => depth += 1,
                ']' if depth > 0 => depth -= 1,
                _ if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out.trim().to_string()
    };
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if !is_flag(trimmed) {
            continue;
        }
        let indent = line.len() - trimmed.len();
        // The flag and its value names, up to two spaces before a description.
        let (flag, rest) = trimmed.split_once("  ").unwrap_or((trimmed, ""));
        let mut text = words(rest);
        for next in &lines[i + 1..] {
            let t = next.trim_start();
            if t.is_empty() || next.len() - t.len() <= indent || is_flag(t) {
                break;
            }
            if t.starts_with("Possible values:") {
                break;
            }
            text.push_str(&words(t));
        }
        if text.is_empty() {
            out.push(flag.trim().to_string());
        }
    }
    out
}

/// The subcommands a clap `--help` text lists (its `Commands:` section, `help` left out).
pub fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every flag without a description in `program`'s help and its subcommands' (one level),
/// as `program sub: --flag`.
pub fn undocumented_flags_of(program: &std::path::Path) -> Result<Vec<String>, String> {
    let help = |args: &[&str]| -> Result<String, String> {
        let out = std::process::Command::new(program)
            .args(args)
            .arg("--help")
            .output()
            .map_err(|e| format!("{}: {e}", program.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{} {} --help failed: {}",
                program.display(),
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let name = program
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let top = help(&[])?;
    let mut found: Vec<String> = undocumented_flags(&top)
        .into_iter()
        .map(|f| format!("{name}: {f}"))
        .collect();
    for sub in subcommands(&top) {
        let text = help(&[&sub])?;
        found.extend(
            undocumented_flags(&text)
                .into_iter()
                .map(|f| format!("{name} {sub}: {f}")),
        );
    }
    Ok(found)
}
