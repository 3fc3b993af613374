//! The README's `engine` examples run as written, and say what the README shows: each example
//! is a `$ engine ...` line in a code block, followed by the output it printed (`...` for
//! lines left out). A line shown is checked by its first word (timings vary), and the
//! example must succeed.

use std::process::Command;

/// `(arguments, the first words of the lines shown)` of every `$ engine` example.
fn examples(readme: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut out: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    let mut in_block = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ engine ") {
            let args = command.split_whitespace().map(str::to_string).collect();
            out.push((args, Vec::new()));
        } else if line.starts_with('$') {
            // Another program's example: not checked here.
            out.push((Vec::new(), Vec::new()));
        } else if let Some((args, shown)) = out.last_mut() {
            let word = line.split_whitespace().next().unwrap_or("");
            if !args.is_empty() && !word.is_empty() && word != "..." {
                shown.push(word.to_string());
            }
        }
    }
    out.into_iter()
        .filter(|(args, _)| !args.is_empty())
        .collect()
}

#[test]
fn the_readmes_engine_examples_run_as_shown() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 2, "the README shows engine examples");
    for (args, shown) in examples {
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
        for word in shown {
            assert!(
                stdout
                    .lines()
                    .any(|l| l.split_whitespace().next() == Some(word.as_str())),
                "engine {}: no line begins with '{word}' in\n{stdout}",
                args.join(" ")
            );
        }
    }
}
