//! The README's `engine` examples run as written, and say what the README shows: each example
//! is a `$ engine ...` line in a code block, followed by the output it printed (`...` for
//! lines left out). A line shown is checked by its first word (timings vary), and the
//! example must succeed. Where no `...` is shown, every line the command prints must be
//! shown too (by its first word), so a line the binary adds makes the README stale here.

use std::process::Command;

/// One `$ engine` example: its arguments, the first words of the lines shown, and whether
/// some lines were left out (`...`).
struct Example {
    args: Vec<String>,
    shown: Vec<String>,
    cut: bool,
}

/// Every `$ engine` example of the README.
fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        let example = |args: Vec<String>| Example {
            args,
            shown: Vec::new(),
            cut: false,
        };
        if let Some(command) = line.strip_prefix("$ engine ") {
            out.push(example(
                command.split_whitespace().map(str::to_string).collect(),
            ));
        } else if line.starts_with('$') {
            // Another program's example: not checked here.
            out.push(example(Vec::new()));
        } else if let Some(e) = out.last_mut() {
            let word = line.split_whitespace().next().unwrap_or("");
            if word == "..." {
                e.cut = true;
            } else if !e.args.is_empty() && !word.is_empty() {
                e.shown.push(word.to_string());
            }
        }
    }
    out.into_iter().filter(|e| !e.args.is_empty()).collect()
}

#[test]
fn the_readmes_engine_examples_run_as_shown() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 2, "the README shows engine examples");
    for Example { args, shown, cut } in examples {
        let out = Command::new(env!("CARGO_BIN_EXE_engine"))
            .args(&args)
            .current_dir(root)
            .output()
            .expect("the engine binary runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "engine {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        for word in &shown {
            assert!(
                stdout
                    .lines()
                    .any(|l| l.split_whitespace().next() == Some(word.as_str())),
                "engine {}: no line begins with '{word}' in\n{stdout}",
                args.join(" ")
            );
        }
        if !cut {
            for line in stdout.lines() {
                let word = line.split_whitespace().next().unwrap_or("");
                assert!(
                    word.is_empty() || shown.iter().any(|w| w == word),
                    "engine {}: the README does not show the line '{line}' it prints",
                    args.join(" ")
                );
            }
        }
    }
}
