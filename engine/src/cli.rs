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

/// The command line of a program, read as every binary of the workspace reads it, with
/// output closing quietly ([`exit_quietly_when_output_closes`]). A negative number after a
/// flag (`--games -3`), which clap takes for an unknown flag, is named as a negative value.
pub fn parse_args<P: clap::Parser>() -> P {
    exit_quietly_when_output_closes();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match P::try_parse_from(&argv) {
        Ok(parsed) => parsed,
        Err(e) => {
            if e.kind() == clap::error::ErrorKind::UnknownArgument {
                if let Some(message) = negative_flag_value(&argv) {
                    eprintln!("error: {message}");
                    std::process::exit(2);
                }
            }
            e.exit()
        }
    }
}

/// `--flag -N`: the message for the first flag followed by a negative number, if any.
fn negative_flag_value(argv: &[std::ffi::OsString]) -> Option<String> {
    argv.windows(2).find_map(|pair| {
        let (flag, value) = (pair[0].to_str()?, pair[1].to_str()?);
        let negative = value.len() > 1
            && value.starts_with('-')
            && value[1..].parse::<f64>().is_ok_and(|x| x.is_finite());
        (flag.starts_with("--") && !flag.contains('=') && negative)
            .then(|| format!("{flag} takes no negative value, got '{value}'"))
    })
}

/// Makes a closed standard output (`engine players | head -1`) end the program quietly with
/// the status a shell gives a pipe's writer (141), where printing would panic with a message
/// (and a backtrace where RUST_BACKTRACE is set). Other panics are reported as before.
pub fn exit_quietly_when_output_closes() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        report(info)
    }));
}

/// Checks, before any work, that an output file (`--json`, `--out`) can be written at the
/// end: its folder exists and takes a new file, and the file is not there already unless
/// `force` (the one rule of every command: an existing output is refused unless `--force`).
pub fn check_output_file(path: &std::path::Path, force: bool) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!("{} is a folder, not a file", path.display()));
    }
    if path.exists() && !force {
        return Err(format!(
            "{} exists: pass --force to overwrite it, or name another file",
            path.display()
        ));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!(
            "{}: the folder {} does not exist",
            path.display(),
            parent.display()
        ));
    }
    // A probe file proves the folder takes a new file (permissions, a read-only disk).
    let name = path
        .file_name()
        .map_or("output".into(), |n| n.to_string_lossy());
    let probe = parent.join(format!(".{name}.{}.probe", std::process::id()));
    std::fs::File::create(&probe).map_err(|e| {
        format!(
            "{}: cannot write in {}: {e}",
            path.display(),
            parent.display()
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Checks, before any work, that an output folder given as `flag` (`--out`, `--records`) can
/// be one: neither it nor a folder above it is a file (which the system would report only as
/// "File exists" or "Not a directory"). Creates nothing.
pub fn check_out_dir(flag: &str, path: &std::path::Path) -> Result<(), String> {
    // The nearest of the path and its parents that exists must be a folder.
    let existing = path
        .ancestors()
        .find(|p| !p.as_os_str().is_empty() && p.exists());
    match existing {
        Some(found) if !found.is_dir() && found == path => {
            Err(format!("{flag} {} is a file, not a folder", path.display()))
        }
        Some(found) if !found.is_dir() => Err(format!(
            "{flag} {}: {} is a file, not a folder",
            path.display(),
            found.display()
        )),
        _ => Ok(()),
    }
}

/// Creates an output folder given as `flag` (`--out`, `--records`) and its parents, as every
/// command of the workspace does: a file in its place is named as such ([`check_out_dir`]).
pub fn create_out_dir(flag: &str, path: &std::path::Path) -> Result<(), String> {
    check_out_dir(flag, path)?;
    std::fs::create_dir_all(path)
        .map_err(|e| format!("{flag} {}: cannot create it: {e}", path.display()))
}

/// The machine's cores (1 when it cannot tell).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A count of threads or games at once as every command reads it: 0 means one a core.
pub fn or_all_cores(n: usize) -> usize {
    if n == 0 {
        cores().min(MAX_THREADS)
    } else {
        n
    }
}

/// The most threads anything takes: a searcher's `threads=` (lazy SMP over one shared table,
/// root-parallel trees), and games played at once. More fails to start or runs out of memory
/// long before it pays on any machine these programs run on.
pub const MAX_THREADS: usize = 256;

/// A count of threads (or games at once) named `what` as every command and player reads it:
/// 0 means one a core, and above [`MAX_THREADS`] is refused with the one message all share.
pub fn threads(what: &str, n: usize) -> Result<usize, String> {
    if n > MAX_THREADS {
        return Err(format!(
            "{what} is 0 (one a core) to {MAX_THREADS}, not {n}"
        ));
    }
    Ok(or_all_cores(n))
}

/// A thread or games-at-once flag's value as clap reads it (`value_parser`): a whole number
/// from 0 (one a core) to [`MAX_THREADS`], kept as given (0 stays 0).
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let n: usize = text.trim().parse().map_err(|_| {
        if text.trim().starts_with('-') {
            format!("must not be negative: 0 (one a core) to {MAX_THREADS}")
        } else {
            format!("must be a whole number: 0 (one a core) to {MAX_THREADS}")
        }
    })?;
    if n > MAX_THREADS {
        return Err(format!("is 0 (one a core) to {MAX_THREADS}, not {n}"));
    }
    Ok(n)
}

/// A searcher's `threads=` value as its players read it: 0 means one a core; above
/// [`MAX_THREADS`] is refused.
pub fn search_threads(n: usize) -> Result<usize, String> {
    threads("threads", n)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_folder_that_is_a_file_is_named_as_such() {
        let dir = std::env::temp_dir().join(format!("cli-out-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("taken");
        std::fs::write(&file, "x").unwrap();
        let err = create_out_dir("--out", &file).unwrap_err();
        assert_eq!(
            err,
            format!("--out {} is a file, not a folder", file.display())
        );
        let below = file.join("shard-0000-of-0002");
        let err = create_out_dir("--records", &below).unwrap_err();
        assert_eq!(
            err,
            format!(
                "--records {}: {} is a file, not a folder",
                below.display(),
                file.display()
            )
        );
        // A new folder and its parents are made; an existing folder is taken as it is.
        let nested = dir.join("a/b");
        create_out_dir("--out", &nested).unwrap();
        assert!(nested.is_dir());
        create_out_dir("--out", &nested).unwrap();
        check_out_dir("--out", &dir.join("not/yet")).unwrap();
        assert!(!dir.join("not").exists(), "a check creates nothing");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
