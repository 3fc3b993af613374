//! `engine serve` against a hostile page (docs/serve.md, "Security"): no program started and
//! no file opened that the user did not allow when starting the server, and no answer to
//! another site's page. The kinds and keys are walked from the registry, so that a kind or a
//! key added later is tested without being named here.

mod serve_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use engine::agents::parse_spec;
use engine::agents::spec::{runs_program, EVERY_GAME};
use engine::games::RegisteredGame;
use engine::registry::{GameSpec, GameVisitor, Lookup, PlayerDecl, GAMES};
use serde_json::{json, Value};
use serve_support::{http_with, Server};

/// A folder of its own under the system's temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("serve-security-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// A script that writes `marker` when run (by any shell).
    fn script(&self, marker: &Path) -> PathBuf {
        let path = self.0.join("probe.sh");
        std::fs::write(&path, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every kind of every game: (game, declaration).
fn every_kind() -> Vec<(&'static str, &'static PlayerDecl)> {
    GAMES
        .iter()
        .flat_map(|g| EVERY_GAME.iter().chain(g.players).map(move |p| (g.name, p)))
        .collect()
}

/// A request as another site's page sends it.
fn post(server: &Server, headers: &[(&str, &str)], body: &Value) -> (u16, String) {
    let (status, raw) = http_with(
        server.addr,
        "POST",
        "/api/new",
        headers,
        Some(&body.to_string()),
    );
    (status, String::from_utf8_lossy(&raw).into_owned())
}

/// The kinds that run a program, with a spec that makes each write `marker`: each of them is
/// refused from a foreign page (with either content type) and from the server's own page
/// without --allow-external, and nothing runs.
#[test]
fn no_player_kind_that_runs_a_program_runs_for_a_page() {
    let scratch = Scratch::new("programs");
    let marker = scratch.0.join("ran");
    let script = scratch.script(&marker);
    let plain = Server::start();
    let allowing = Server::start_with(&["--allow-external"]);
    let kinds: Vec<_> = every_kind()
        .into_iter()
        .filter(|(_, p)| p.runs_program)
        .collect();
    assert!(
        kinds.iter().any(|(_, p)| p.kind == "gomocup")
            && kinds.iter().any(|(_, p)| p.kind == "external"),
        "{kinds:?}"
    );
    for (game, decl) in kinds {
        assert!(
            decl.key("cmd").is_some(),
            "{}: a kind that runs a program takes cmd=",
            decl.kind
        );
        let shell = format!("{}:cmd=\"touch {}; true\"", decl.kind, marker.display());
        let direct = format!("{}:cmd={}", decl.kind, script.display());
        for spec in [&direct, &shell] {
            let body = json!({"session": "x", "game": game, "params": {}, "players": [spec, null]});
            for server in [&plain, &allowing] {
                let host = server.addr.to_string();
                let own = format!("http://{host}");
                for kind in ["text/plain", "application/json"] {
                    let foreign = [
                        ("Host", host.as_str()),
                        ("Origin", "http://evil.example"),
                        ("Content-Type", kind),
                    ];
                    let (status, answer) = post(server, &foreign, &body);
                    assert_eq!(status, 403, "{game} {spec} {kind}: {answer}");
                }
                // The server's own page, without a preflight: text/plain is refused too.
                let simple = [
                    ("Host", host.as_str()),
                    ("Origin", own.as_str()),
                    ("Content-Type", "text/plain"),
                ];
                let (status, answer) = post(server, &simple, &body);
                assert_eq!(status, 415, "{game} {spec}: {answer}");
            }
            let host = plain.addr.to_string();
            let own = format!("http://{host}");
            let from_page = [
                ("Host", host.as_str()),
                ("Origin", own.as_str()),
                ("Content-Type", "application/json"),
            ];
            let (status, answer) = post(&plain, &from_page, &body);
            assert_eq!(status, 400, "{game} {spec}: {answer}");
            assert!(answer.contains("--allow-external"), "{answer}");
            std::thread::sleep(Duration::from_millis(50));
            assert!(
                !marker.exists(),
                "{game} {spec}: the program ran for a page ({answer})"
            );
        }
    }
}

/// A request naming another host (a DNS-rebinding page) is refused, and so is a GET with a
/// foreign Origin; the server's own names are served.
#[test]
fn only_the_servers_own_hosts_are_answered() {
    let server = Server::start();
    let port = server.addr.port();
    let get =
        |headers: &[(&str, &str)]| http_with(server.addr, "GET", "/api/games", headers, None).0;
    assert_eq!(get(&[("Host", &format!("evil.example:{port}"))]), 403);
    assert_eq!(get(&[("Host", "127.0.0.1")]), 403, "another port");
    assert_eq!(get(&[]), 403, "no Host");
    for name in ["127.0.0.1", "localhost", "[::1]"] {
        assert_eq!(get(&[("Host", &format!("{name}:{port}"))]), 200, "{name}");
    }
    let host = format!("127.0.0.1:{port}");
    assert_eq!(
        get(&[("Host", &host), ("Origin", "http://evil.example")]),
        403
    );
    let lan = Server::start_with(&["--allow-host", "box.lan"]);
    let (status, _) = http_with(
        lan.addr,
        "GET",
        "/",
        &[("Host", &format!("box.lan:{}", lan.addr.port()))],
        None,
    );
    assert_eq!(status, 200, "a host named with --allow-host");
}

/// A key that names a file takes from a page only `product`, `none` or a shipped model's name,
/// and its refusal is the same whether the file exists or not: nothing of its size or
/// existence.
#[test]
fn a_page_names_no_file_but_the_shipped_models() {
    let server = Server::start();
    let (status, games) = server.get("/api/games");
    assert_eq!(status, 200);
    let models: Vec<&str> = games["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(
        models.contains(&"dab-5x5") && models.contains(&"gomoku-15-freestyle"),
        "{models:?}"
    );
    let cases = [
        ("gomoku", "pvs:model=", ""),
        ("gomoku", "pvs:weights=", ""),
        ("gomoku", "best:model=", ""),
        ("dots_and_boxes", "nn:model=", ",iterations=10"),
        ("dots_and_boxes", "paper:net=1,model=", ""),
        ("amazons", "mcts:weights=", ""),
        ("surakarta", "pvs:weights=", ""),
    ];
    for (game, prefix, suffix) in cases {
        let mut refusals = Vec::new();
        for file in [
            "/etc/passwd",
            "/no/such/file",
            "models/dab-5x5/model.safetensors",
        ] {
            let spec = format!("{prefix}{file}{suffix}");
            let (status, v) = server.post(
                "/api/new",
                &json!({"session": "f", "game": game, "players": [spec, null]}).to_string(),
            );
            assert_eq!(status, 400, "{spec}: {v}");
            let e = v["error"].as_str().unwrap().to_string();
            assert!(e.contains("shipped model"), "{spec}: {e}");
            refusals.push(e.replace(file, "FILE"));
        }
        assert!(
            refusals.iter().all(|r| r == &refusals[0]),
            "the refusals differ by file: {refusals:#?}"
        );
    }
    // A quoted value holding a comma stays one value when a kind passes its keys on (`paper`
    // to `nn`, an alias to its kind): it cannot smuggle a file key past the check.
    for (game, spec) in [
        ("dots_and_boxes", "paper:net=1,cp=\"1,model=/etc/passwd\""),
        ("gomoku", "best:time_ms=\"50,model=/etc/passwd\""),
    ] {
        let (status, v) = server.post(
            "/api/new",
            &json!({"session": "q", "game": game, "players": [spec, null]}).to_string(),
        );
        assert_eq!(status, 400, "{spec}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(!e.contains("header") && !e.contains("bytes"), "{spec}: {e}");
    }
    // A shipped model by its name, and the words the key takes.
    for (game, spec) in [
        ("gomoku", "pvs:model=gomoku-15-freestyle,time_ms=50"),
        ("gomoku", "pvs:model=none,time_ms=50"),
        ("gomoku", "best:model=product,time_ms=50"),
        ("dots_and_boxes", "nn:model=dab-5x5-sv,iterations=10"),
        (
            "amazons",
            "alphabeta:weights=amazons/tuned-phases.json,time_ms=50",
        ),
    ] {
        let state = server.ok(
            "/api/new",
            json!({"session": "g", "game": game, "players": [spec, null]}),
        );
        assert_eq!(state["players"][0], json!(spec), "the page's spec is shown");
    }
}

/// The walk every kind and key of the registry takes, with a probe for each key: `KEY=SCRIPT`
/// (a script writing a marker) and `KEY=MISSING` (a file that does not exist). A kind that
/// does not declare `runs_program` must not run the script when built and started; a key that
/// tries to open the missing file must be declared as naming a file (`names_file`), so that
/// `engine serve` screens it.
#[test]
fn every_kind_declares_what_it_runs_and_every_key_the_files_it_opens() {
    let scratch = Scratch::new("walk");
    let marker = scratch.0.join("ran");
    let script = scratch.script(&marker);
    let missing = scratch.0.join("missing-dir").join("missing.file");
    struct Walk<'a> {
        script: &'a Path,
        marker: &'a Path,
        missing: &'a Path,
    }
    impl GameVisitor for Walk<'_> {
        type Output = Vec<String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Vec<String> {
            let mut faults = Vec::new();
            let info = G::INFO;
            for decl in EVERY_GAME.iter().chain(info.players) {
                if decl.runs_program {
                    continue;
                }
                let mut keys: Vec<_> = decl.keys.iter().collect();
                if decl.kind == "mcts" {
                    keys.extend(info.search_keys);
                }
                for key in keys {
                    let name = key.name.replace("NAME", "probe");
                    for value in [self.script, self.missing] {
                        let text = format!("{}:{name}={}", decl.kind, value.display());
                        let built = parse_spec(&text).and_then(|spec| {
                            assert!(!runs_program(&spec, info.players), "{text}");
                            G::build_player(&spec, &start)
                        });
                        let error = match built {
                            Ok(mut agent) => agent.new_game(&start, &[]).err().map(|e| e.reason),
                            Err(e) => Some(e),
                        };
                        if self.marker.exists() {
                            faults.push(format!(
                                "{} {text}: ran a program, and its kind does not declare runs_program",
                                info.name
                            ));
                            let _ = std::fs::remove_file(self.marker);
                        }
                        let opened = error.as_deref().is_some_and(|e| {
                            e.contains("os error 2") || e.contains("No such file")
                        });
                        if value == self.missing && opened && key.names_file.is_none() {
                            faults.push(format!(
                                "{} {text}: opens a file, and the key is not a file_key ({error:?})",
                                info.name
                            ));
                        }
                    }
                }
            }
            faults
        }
    }
    let mut faults = Vec::new();
    let mut file_keys = 0;
    for game in GAMES {
        let spec = GameSpec::named(game.name).unwrap();
        let walk = Walk {
            script: &script,
            marker: &marker,
            missing: &missing,
        };
        faults.extend(spec.visit(walk).unwrap());
        file_keys += EVERY_GAME
            .iter()
            .chain(game.players)
            .flat_map(|p| p.keys.iter())
            .chain(game.search_keys)
            .filter(|k| k.names_file.is_some())
            .count();
    }
    assert!(faults.is_empty(), "{faults:#?}");
    assert!(file_keys >= 8, "the walk found {file_keys} file keys");
}
