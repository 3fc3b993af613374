//! The shape of `engine/src` (docs/architecture.md): its folders and top-level files import
//! each other without a cycle, and the generic layers name no game. Read from the source, in
//! non-test code (files a `#[cfg(test)] mod` declares and `#[cfg(test)]` items are skipped; the
//! binaries are front ends, outside the graph).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use engine::registry::GAMES;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files that `#[cfg(test)] mod NAME;` declarations bring in (test code).
fn test_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() != "#[cfg(test)]" {
                continue;
            }
            let next = lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.starts_with("#["))
                .unwrap_or("");
            let declared = next
                .strip_prefix("pub(crate) mod ")
                .or_else(|| next.strip_prefix("mod "))
                .and_then(|rest| rest.strip_suffix(';'));
            if let Some(name) = declared {
                let dir = file.parent().unwrap();
                // A module's children sit beside `mod.rs`, or in a folder named after the file.
                let base = if file.file_name().unwrap() == "mod.rs" {
                    dir.to_path_buf()
                } else {
                    dir.join(file.file_stem().unwrap())
                };
                out.insert(base.join(format!("{name}.rs")));
                out.insert(dir.join(format!("{name}.rs")));
            }
        }
    }
    out
}

/// `text` without its `#[cfg(test)]` items (a `mod x;` line, or a braced item to its end), each
/// line of them left empty.
fn without_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[cfg(test)]" {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
            continue;
        }
        let mut k = i + 1;
        while k < lines.len() && lines[k].trim().starts_with("#[") {
            k += 1;
        }
        if k < lines.len() && lines[k].trim_end().ends_with(';') {
            out.push_str(&"\n".repeat(k + 1 - i));
            i = k + 1;
            continue;
        }
        let mut depth = 0i64;
        let mut opened = false;
        while k < lines.len() {
            for c in lines[k].chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            k += 1;
            if opened && depth <= 0 {
                break;
            }
        }
        // Blank lines keep the line numbers of what follows.
        out.push_str(&"\n".repeat(k - i));
        i = k;
    }
    out
}

/// The unit of a file: its top-level folder, or its own name for a top-level file.
fn unit_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The crate-level names `text` reaches: `crate::NAME` and the names in `crate::{A, B::..}`.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name);
            }
            continue;
        };
        // The group up to its closing brace; each top-level item's first name.
        let (mut depth, mut item_start, mut end) = (0, 0, group.len());
        let mut items = Vec::new();
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    end = i;
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&group[item_start..i]);
                    item_start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&group[item_start..end]);
        for item in items {
            let name = ident(item.trim());
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// The library's non-test sources (binaries left out), each with its unit.
fn library_sources() -> Vec<(PathBuf, String, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let tests = test_files(&files);
    files.sort();
    files
        .into_iter()
        .filter(|f| !tests.contains(f) && !f.starts_with(src().join("bin")))
        .filter(|f| f.file_name().unwrap() != "lib.rs")
        .map(|f| {
            let text = without_tests(&std::fs::read_to_string(&f).unwrap());
            let unit = unit_of(&f);
            (f, unit, text)
        })
        .collect()
}

/// Which units each unit imports, with a file that does it.
fn import_graph() -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let sources = library_sources();
    let units: BTreeSet<String> = sources.iter().map(|(_, u, _)| u.clone()).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for (file, unit, text) in &sources {
        let entry = graph.entry(unit.clone()).or_default();
        // Comments name modules in prose and doc links; only code imports.
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        for name in crate_paths(&code) {
            if &name != unit && units.contains(&name) {
                entry.entry(name).or_insert_with(|| file.clone());
            }
        }
    }
    graph
}

/// A cycle of the graph, if it has one (as a path that starts and ends at the same unit).
fn find_cycle(graph: &BTreeMap<String, BTreeMap<String, PathBuf>>) -> Option<Vec<String>> {
    fn visit(
        unit: &str,
        graph: &BTreeMap<String, BTreeMap<String, PathBuf>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(unit.to_string(), 1);
        stack.push(unit.to_string());
        for next in graph.get(unit).into_iter().flat_map(|m| m.keys()) {
            match state.get(next.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|u| u == next).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(cycle) = visit(next, graph, state, stack) {
                        return Some(cycle);
                    }
                }
            }
        }
        stack.pop();
        state.insert(unit.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for unit in graph.keys() {
        if !state.contains_key(unit.as_str()) {
            if let Some(cycle) = visit(unit, graph, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

#[test]
fn the_folders_of_the_engine_import_each_other_without_a_cycle() {
    let graph = import_graph();
    // The layers the graph must at least hold, so that a parser that finds nothing fails.
    assert!(graph["games"].contains_key("mcts"), "{graph:?}");
    assert!(graph["registry"].contains_key("games"), "{graph:?}");
    assert!(graph["protocol"].contains_key("registry"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("{} -> {} ({})", w[0], w[1], graph[&w[0]][&w[1]].display()))
            .collect();
        panic!(
            "the engine's folders import in a circle:\n{}",
            steps.join("\n")
        );
    }
}

#[test]
fn a_cycle_is_found_where_there_is_one() {
    let mut graph: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for (a, b) in [("games", "mcts"), ("mcts", "game"), ("game", "games")] {
        graph
            .entry(a.into())
            .or_default()
            .insert(b.into(), PathBuf::from("x.rs"));
    }
    assert_eq!(
        find_cycle(&graph),
        Some(vec![
            "game".into(),
            "games".into(),
            "mcts".into(),
            "game".into()
        ])
    );
    graph.get_mut("game").unwrap().clear();
    assert_eq!(find_cycle(&graph), None);
    let text =
        "use crate::{games::X, mcts};\nuse crate::nn::{a, b};\nlet x = crate::rng::Rng::new(1);";
    let found: Vec<String> = crate_paths(text).into_iter().collect();
    assert_eq!(found, ["games", "mcts", "nn", "rng"]);
    let stripped =
        without_tests("fn a() {}\n#[cfg(test)]\nmod tests {\n    use crate::x;\n}\nfn b() {}\n");
    assert_eq!(stripped, "fn a() {}\n\n\n\n\nfn b() {}\n");
}

/// `dots_and_boxes` -> `DotsAndBoxes`.
fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn the_generic_layers_name_no_game() {
    // Their code and their comments.
    let generic = [
        "mcts",
        "agents",
        "protocol",
        "arena",
        "record",
        "nn",
        "game_record",
        "line_reader",
        "rng",
        "key_hash",
    ];
    // Their code: their docs give games as examples of what a game may be or write.
    let generic_code = ["game", "game_spec", "tuning"];
    let mut words: Vec<String> = vec!["is_dots".into(), "TicTacToe".into()];
    for game in GAMES {
        words.push(game.name.to_string());
        words.push(camel(game.name));
    }
    let mut found = Vec::new();
    for (file, unit, text) in library_sources() {
        let code_only = generic_code.contains(&unit.as_str());
        if !(code_only || generic.contains(&unit.as_str())) {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let line = if code_only {
                line.split("//").next().unwrap_or("")
            } else {
                line
            };
            if let Some(word) = words.iter().find(|w| line.contains(w.as_str())) {
                found.push(format!(
                    "{}:{}: {word}: {}",
                    file.display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "generic code names a game:\n{}",
        found.join("\n")
    );
}
