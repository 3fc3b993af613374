//! The `engine` binary as a user runs it: net-guided analysis and the refusals before a search.

use std::io::Write;
use std::process::{Command, Stdio};

fn engine(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_engine"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("the engine binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const MODEL: &str = "models/dab-5x5/model.safetensors";
const EDGES40: &str = "11 35 1 51 39 30 19 16 58 57 3 24 56 15 37 14 36 50 7 31 2 26 4 42 40 54 20 18 45 38 6 59 29 32 12 33 53 52 23 28";

#[test]
fn analyse_with_a_model_reports_what_the_net_did() {
    // The paper's net-guided engine: random rollouts the net ends once it is sure.
    let (ok, out, err) = engine(&[
        "analyse",
        "--moves",
        EDGES40,
        "--iterations",
        "3000",
        "--player",
        "paper:net=1,threshold=0.6",
        "--json",
    ]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &json["rollouts"];
    assert_eq!(r["rollouts"], 3000);
    assert!(r["net_evaluations"].as_u64().unwrap() >= 3000, "{r}");
    // The shipped net is sure of some of these positions.
    assert!(r["net_cutoffs"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(
        json["player"], "paper:net=1,threshold=0.6,iterations=3000",
        "{json}"
    );
    let (ok, out, _) = engine(&[
        "analyse",
        "--moves",
        EDGES40,
        "--iterations",
        "3000",
        "--player",
        "paper:net=1",
        "--model",
        MODEL,
    ]);
    assert!(ok);
    assert!(out.contains("rollouts ("), "{out}");
    // The product's engine at 40 edges drawn: the exact solver answers, and says so.
    let (ok, out, err) = engine(&["analyse", "--moves", EDGES40]);
    assert!(ok, "{err}");
    assert!(out.contains("the exact solver's move"), "{out}");
}

#[test]
fn models_that_do_not_fit_are_refused_before_any_search() {
    let (ok, _, err) = engine(&["analyse", "--rows", "4", "--cols", "4", "--model", MODEL]);
    assert!(!ok);
    assert!(
        err.contains(MODEL) && err.contains("5x5") && err.contains("4x4"),
        "{err}"
    );
    // A flag whose key the player does not take is named.
    let (ok, _, err) = engine(&["analyse", "--game", "tictactoe", "--model", MODEL]);
    assert!(
        !ok && err.contains("unknown key 'model'") && err.contains("--model"),
        "{err}"
    );
    let (ok, _, err) = engine(&["analyse", "--model", MODEL, "--player", "best:threshold=0"]);
    assert!(!ok && err.contains("threshold"), "{err}");
    let (ok, _, err) = engine(&["analyse", "--time-ms", "5", "--player", "best:time_ms=9"]);
    assert!(
        !ok && err.contains("--time-ms and the player's time_ms= both set"),
        "{err}"
    );
    let (ok, _, err) = engine(&["bench", "--model", "models/none.safetensors"]);
    assert!(!ok && err.contains("models/none.safetensors"), "{err}");
    let (ok, _, err) = engine(&["play", "--rows", "3", "--cols", "3", "--model", MODEL]);
    assert!(!ok && err.contains("3x3"), "{err}");
}

/// `bench --model` without --game measures the net's game on the net's board: a Gomoku pattern
/// net selects Gomoku 15x15 freestyle and `pvs` with the net (it stopped at the value-net
/// loader before), a 6x6 Dots-and-Boxes net 6x6.
#[test]
fn bench_takes_the_game_and_the_board_from_the_model() {
    let bench = |model: &str| {
        let (ok, out, err) = engine(&[
            "bench",
            "--model",
            model,
            "--iterations",
            "100",
            "--repeats",
            "1",
            "--threads",
            "1",
            "--json",
        ]);
        assert!(ok, "{model}: {err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let json = bench("models/gomoku-15-freestyle/model.safetensors");
    assert_eq!(json["game"]["game"], "gomoku", "{}", json["game"]);
    assert_eq!(json["game"]["size"], 15, "{}", json["game"]);
    assert_eq!(json["game"]["rule"], "freestyle", "{}", json["game"]);
    let names: Vec<&str> = json["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"pvs, middle game, 1 thread with the pattern net"),
        "{names:?}"
    );
    let json = bench("models/dab-6x6/model.safetensors");
    assert_eq!(
        (json["game"]["rows"].clone(), json["game"]["cols"].clone()),
        (6.into(), 6.into())
    );
    // A board flag still names the board, and the net is checked against it.
    let (ok, _, err) = engine(&[
        "bench",
        "--model",
        "models/dab-6x6/model.safetensors",
        "--rows",
        "5",
        "--cols",
        "5",
    ]);
    assert!(!ok && err.contains("6x6") && err.contains("5x5"), "{err}");
}

#[test]
fn a_match_reports_statistics_json_and_records() {
    let dir = std::env::temp_dir().join(format!("engine-cli-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("match.json");
    let records = dir.join("games");
    let (ok, out, err) = engine(&[
        "match",
        "--p1",
        "greedy",
        "--p2",
        "rival:iterations=300",
        "--games",
        "6",
        "--positions",
        "configs/state-s-40.txt",
        "--threads",
        "2",
        "--quiet",
        "--json",
        json.to_str().unwrap(),
        "--records",
        records.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("6 games of dots_and_boxes 5x5"), "{out}");
    assert!(out.contains("A vs B: score"), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["pair"]["games"], 6);
    assert_eq!(report["games"].as_array().unwrap().len(), 6);
    // Three positions, each played with A in both seats.
    let seats: Vec<(u64, String)> = report["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["position"].as_u64().unwrap(),
                g["a_seat"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(seats[0], (0, "P1".into()));
    assert_eq!(seats[1], (0, "P2".into()));
    assert_eq!(seats[5], (2, "P2".into()));
    // The rival converts every seat perfect play wins for it (it plays those endgames exactly).
    assert_eq!(
        report["players"][1]["converted"],
        report["players"][1]["winnable_seats"]
    );
    // The records are a dataset the rest of the pipeline reads.
    let dataset = engine::record::Dataset::open(&records).unwrap();
    assert_eq!(dataset.games().count(), 6);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `engine match --records` keeps what the search behind each move did: a tree search's
/// iterations and root moves (their visits adding up to the iterations, or one fewer), nothing
/// for a player that does not search.
#[test]
fn match_records_keep_each_searchs_root_moves() {
    let dir = std::env::temp_dir().join(format!("engine-cli-roots-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let records = dir.join("games");
    let (ok, _, err) = engine(&[
        "match",
        "--p1",
        "mcts:iterations=300",
        "--p2",
        "greedy",
        "--games",
        "2",
        "--parallel-games",
        "1",
        "--quiet",
        "--records",
        records.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let dataset = engine::record::Dataset::open(&records).unwrap();
    let mut searched = 0;
    for (index, game) in dataset.games().enumerate() {
        let game = game.unwrap();
        // A is P1 in the even games.
        let a = if index % 2 == 0 {
            engine::Player::P1
        } else {
            engine::Player::P2
        };
        for m in &game.moves {
            assert_eq!(m.kind, engine::record::MoveKind::Searched);
            if m.player == a {
                let visits: u64 = m.root.iter().map(|r| u64::from(r.visits)).sum();
                // The root's own first iteration expands it without visiting a child.
                assert_eq!(m.iterations, 300, "{m:?}");
                assert!((299..=300).contains(&visits), "{visits} visits: {m:?}");
                assert!(m.root.iter().any(|r| r.action == m.action), "{m:?}");
                searched += 1;
            } else {
                assert!(m.iterations == 0 && m.root.is_empty(), "{m:?}");
            }
        }
    }
    assert!(searched >= 20, "{searched} searched moves");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn match_errors_name_the_problem() {
    let (ok, _, err) = engine(&["match", "--p1", "chess", "--p2", "greedy"]);
    assert!(!ok && err.contains("unknown player kind 'chess'"), "{err}");
    let (ok, _, err) = engine(&[
        "match",
        "--p1",
        "greedy",
        "--p2",
        "greedy",
        "--sprt",
        "0,50,0.05",
    ]);
    assert!(!ok && err.contains("--sprt"), "{err}");
    let bad = std::env::temp_dir().join(format!("bad-positions-{}.txt", std::process::id()));
    std::fs::write(&bad, "0 1 2\n3 3\n").unwrap();
    let (ok, _, err) = engine(&[
        "match",
        "--p1",
        "greedy",
        "--p2",
        "greedy",
        "--positions",
        bad.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains(":2: move 2") && err.contains("already drawn"),
        "{err}"
    );
    std::fs::remove_file(bad).unwrap();
    let (ok, _, err) = engine(&[
        "match",
        "--p1",
        "greedy",
        "--p2",
        "mcts",
        "--game",
        "tictactoe",
    ]);
    assert!(
        !ok && err.contains("unknown player kind 'greedy' for tictactoe"),
        "{err}"
    );
}

#[test]
fn tictactoe_matches_and_position_files_work() {
    let (ok, out, err) = engine(&[
        "match",
        "--game",
        "tictactoe",
        "--p1",
        "mcts:iterations=2000",
        "--p2",
        "random",
        "--games",
        "10",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("10 games of tictactoe"), "{out}");
    let (ok, out, err) = engine(&["positions", "--edges", "40", "--count", "3", "--solve"]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines
            .iter()
            .all(|l| l.contains("winner=") && l.contains("to_move=")),
        "{out}"
    );
    // The shipped file is what the command makes.
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../configs/state-s-40.txt"
    ))
    .unwrap();
    let (_, fifty, _) = engine(&[
        "positions",
        "--edges",
        "40",
        "--count",
        "50",
        "--seed",
        "1",
        "--solve",
    ]);
    assert_eq!(fifty, shipped);
}

#[test]
fn the_paper_command_writes_every_table() {
    let out = std::env::temp_dir().join(format!("paper-{}.md", std::process::id()));
    let (ok, _, err) = engine(&[
        "paper",
        "--games",
        "2",
        "--empty-games",
        "2",
        "--scale-down",
        "1000",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let md = std::fs::read_to_string(&out).unwrap();
    for heading in [
        "## From 40-edge State-S-like positions",
        "## From 20-edge positions",
        "## From the empty board",
        "## Net-guided against plain MCTS",
    ] {
        assert!(md.contains(heading), "{heading}\n{md}");
    }
    // 13 paper rows from the 40-edge positions, 6 from each other set, 2 rows of the product's
    // engine in each set, 5 net-guided vs plain.
    let rows = md
        .lines()
        .filter(|l| {
            l.starts_with("| ") && !l.starts_with("| table") && !l.starts_with("| iterations")
        })
        .count();
    assert_eq!(rows, 13 + 6 + 6 + 3 * 2 + 5, "{md}");
    assert!(md.contains("net-guided + knowledge"), "{md}");
    assert!(md.contains("--scale-down 1000"));
    std::fs::remove_file(out).unwrap();
}

/// Surakarta through the commands: a match of each player kind it has, the engine's own
/// analysis, and spec keys refused by name.
#[test]
fn surakarta_players_play_and_bad_keys_are_named() {
    let (ok, out, err) = engine(&[
        "match",
        "--game",
        "surakarta",
        "--p1",
        "mcts:iterations=300,heuristic=best",
        "--p2",
        "pvs:time_ms=20,threads=2",
        "--games",
        "2",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("2 games of surakarta"), "{out}");
    let (ok, out, err) = engine(&[
        "analyse",
        "--game",
        "surakarta",
        "--player",
        "mcts",
        "--iterations",
        "2000",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("visits") && out.contains("best: "), "{out}");
    for (spec, says) in [
        ("mcts:captures=3", "captures is a chance from 0 to 1"),
        (
            "mcts:turn=split",
            "unknown key 'turn' (it takes iterations, time_ms, threads, cp, counter, seed, heuristic,",
        ),
        (
            "mcts:heuristic=1,solver_edges=30",
            "unknown key 'solver_edges' (it takes iterations,",
        ),
        ("alphabeta:weights=x.json", "takes no weights"),
        (
            "alphabeta:width=3",
            "unknown key 'width' (it takes time_ms, depth, seed, weights)",
        ),
        ("pvs:frob=1", "unknown key 'frob' (it takes time_ms, depth, threads,"),
        (
            "pvs:weights=models/amazons/tuned-phases.json",
            "weights for amazons (phases), not for surakarta (eval)",
        ),
        ("pvs:weights=no-such.json", "no-such.json"),
        ("pvs:contempt=5000", "contempt is within +-1000"),
        ("pvs:null_move=2", "null_move"),
        (
            "pvs:threads=300",
            "threads is 0 (one a core) to 256, not 300",
        ),
    ] {
        let (ok, _, err) = engine(&[
            "match",
            "--game",
            "surakarta",
            "--p1",
            spec,
            "--p2",
            "random",
        ]);
        assert!(!ok && err.contains(says), "{spec}: {err}");
    }
}

/// `engine players` lists every game's `best` and `paper` with the keys the parser reads, and
/// `--game` one game's; `match --help` names every kind.
#[test]
fn players_lists_best_and_paper_for_every_game() {
    let (ok, out, err) = engine(&["players"]);
    assert!(ok, "{err}");
    for game in [
        "dots_and_boxes",
        "tictactoe",
        "amazons",
        "surakarta",
        "gomoku",
    ] {
        let block = out
            .split(&format!("{game}: "))
            .nth(1)
            .unwrap_or_else(|| panic!("{game} is listed:\n{out}"));
        let block = block.split("\n\n").next().unwrap();
        for kind in ["best", "paper", "random", "mcts", "external"] {
            assert!(
                block.contains(&format!("\n  {kind} ")),
                "{game} {kind}:\n{block}"
            );
        }
    }
    assert!(out.contains("qdab") && out.contains("solver_edges=0") && out.contains("cmd"));
    let (ok, out, err) = engine(&["players", "--game", "surakarta"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("= pvs") && out.contains("alphabeta") && !out.contains("dots_and_boxes"),
        "{out}"
    );
    let (ok, _, err) = engine(&["players", "--game", "chess"]);
    assert!(!ok && err.contains("unknown game 'chess'"), "{err}");
    let (ok, out, _) = engine(&["match", "--help"]);
    assert!(ok);
    for kind in [
        "best",
        "paper",
        "qdab",
        "rival",
        "nn",
        "alphabeta",
        "greedy",
    ] {
        assert!(out.contains(kind), "{kind}:\n{out}");
    }
}

/// `engine analyse --player SPEC` and `engine play --player SPEC` run any player a spec names:
/// the product's engine (`best`), a rival without a tree, a bad spec refused by name.
#[test]
fn play_and_analyse_take_a_player_spec() {
    let (ok, out, err) = engine(&["analyse", "--player", "best:iterations=3000"]);
    assert!(ok, "{err}");
    assert!(out.contains("best: ") && out.contains("visits"), "{out}");
    // On 3x3 the exact solver answers before any search, and says so.
    let (ok, out, err) = engine(&[
        "analyse",
        "--rows",
        "3",
        "--cols",
        "3",
        "--player",
        "best:iterations=3000",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("without a tree search"), "{out}");
    let (ok, out, err) = engine(&[
        "analyse",
        "--game",
        "surakarta",
        "--player",
        "best:time_ms=50",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("by best") && out.contains("without a tree"),
        "{out}"
    );
    let (ok, _, err) = engine(&["analyse", "--player", "best:frobnicate=1"]);
    assert!(!ok && err.contains("unknown key 'frobnicate'"), "{err}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_engine"))
        .args([
            "play",
            "--game",
            "tictactoe",
            "--player",
            "best:iterations=500",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"a1\nb1\nc1\na2\nb2\nc2\na3\nb3\nc3\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("Engine (P2) plays") && text.contains("iterations"),
        "{text}"
    );
}

/// A match where every game was drawn says so instead of an interval of no width, and a spec
/// longer than the table's column is named in full below it.
#[test]
fn drawn_matches_and_long_specs_read_plainly() {
    let long = "mcts:iterations=20000,seed=1,counter=double,cp=1.4142135623730951";
    let (ok, out, err) = engine(&[
        "match",
        "--game",
        "tictactoe",
        "--p1",
        long,
        "--p2",
        "mcts:iterations=20000",
        "--games",
        "2",
        "--parallel-games",
        "1",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("2 games of tictactoe") && out.contains("on 1 thread\n"),
        "{out}"
    );
    assert!(out.contains("Elo 0 (every game drawn: no bound)"), "{out}");
    assert!(out.contains(&format!("A = {long}")), "{out}");
}

/// Gomoku's searcher refuses a depth, a thread count, a reduction or a node limit beyond its
/// range, naming the key.
#[test]
fn gomoku_pvs_keys_out_of_range_are_named() {
    for (spec, says) in [
        (
            "pvs:threads=300",
            "threads is 0 (one a core) to 256, not 300",
        ),
        (
            "pvs:depth=500",
            "depth is a whole number from 1 to 120, got '500'",
        ),
        (
            "pvs:time_ms=18446744073709551615",
            "time_ms is a whole number from 1 to 86400000",
        ),
        (
            "pvs:time_ms=0",
            "time_ms is a whole number from 1 to 86400000, got '0'",
        ),
        // A retired key reads as any unknown key, with the keys the player takes.
        (
            "pvs:null_move=2",
            "unknown key 'null_move' (it takes time_ms, depth, threads, beam",
        ),
        (
            "pvs:lmr=step",
            "unknown key 'lmr' (it takes time_ms, depth, threads, beam",
        ),
        ("pvs:vct=-1", "vct"),
        ("pvs:order=fitted", "unknown key 'order' (it takes time_ms"),
    ] {
        let (ok, _, err) = engine(&["match", "--game", "gomoku", "--p1", spec, "--p2", "random"]);
        assert!(!ok && err.contains(says), "{spec}: {err}");
    }
}

/// Issue 61: outputs are checked before the first game, a player that cannot start is an error
/// before it, thread counts share one bound, and negative or oversized numbers say what is
/// wrong.
#[test]
fn outputs_players_and_numbers_are_checked_before_any_game() {
    let dir = std::env::temp_dir().join(format!("engine-cli-checks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ttt = ["match", "--game", "tictactoe", "--games", "2", "--quiet"];
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = ttt.to_vec();
        args.extend_from_slice(extra);
        engine(&args)
    };
    // --json into a folder that does not exist: refused before the match, not after it.
    let (ok, out, err) = run(&[
        "--p1",
        "random",
        "--p2",
        "random",
        "--json",
        "/nonexistent-dir/x.json",
    ]);
    assert!(
        !ok && err.contains("/nonexistent-dir does not exist"),
        "{err}"
    );
    assert!(!out.contains("score"), "the match was played: {out}");
    // An existing --json file is refused without --force and overwritten with it.
    let json = dir.join("m.json");
    std::fs::write(&json, "mine").unwrap();
    let json_arg = json.to_str().unwrap();
    let (ok, _, err) = run(&["--p1", "random", "--p2", "random", "--json", json_arg]);
    assert!(!ok && err.contains("exists: pass --force"), "{err}");
    assert_eq!(std::fs::read_to_string(&json).unwrap(), "mine");
    let forced = [
        "--p1", "random", "--p2", "random", "--json", json_arg, "--force",
    ];
    let (ok, _, err) = run(&forced);
    assert!(ok, "{err}");
    assert!(std::fs::read_to_string(&json)
        .unwrap()
        .contains("\"games\""));
    // engine positions --out follows the same rule.
    let positions = dir.join("p.txt");
    std::fs::write(&positions, "mine").unwrap();
    let (ok, _, err) = engine(&[
        "positions",
        "--rows",
        "2",
        "--cols",
        "2",
        "--edges",
        "4",
        "--count",
        "1",
        "--out",
        positions.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("exists: pass --force"), "{err}");
    // A program that cannot start is an error before the first game, not a match of forfeits.
    let (ok, out, err) = run(&["--p1", "external:cmd=/nonexistent/prog", "--p2", "random"]);
    assert!(!ok && err.contains("the engine did not start"), "{err}");
    assert!(!out.contains("score"), "{out}");
    // One bound and one message for every thread count; numbers say what is wrong.
    for (args, says) in [
        (
            vec![
                "--p1",
                "mcts:threads=100000,iterations=10",
                "--p2",
                "random",
            ],
            "threads is 0 (one a core) to 256, not 100000",
        ),
        (
            vec![
                "--p1",
                "random",
                "--p2",
                "random",
                "--parallel-games",
                "100000",
            ],
            "is 0 (one a core) to 256, not 100000",
        ),
        (
            vec!["--p1", "mcts:time_ms=-1", "--p2", "random"],
            "time_ms is a whole number from 1 to 86400000, got '-1'",
        ),
        (
            vec![
                "--p1",
                "mcts:iterations=100,iterations=200",
                "--p2",
                "random",
            ],
            "key 'iterations' is given twice",
        ),
        (
            vec!["--p1", "random", "--p2", "random", "--games", "-3"],
            "--games takes no negative value, got '-3'",
        ),
    ] {
        let (ok, _, err) = run(&args);
        assert!(!ok && err.contains(says), "{args:?}: {err}");
    }
    let (ok, _, err) = engine(&["analyse", "--threads", "100000", "--player", "mcts"]);
    assert!(!ok && err.contains("256, not 100000"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 61: a closed standard output (`engine players | head -1`) ends the program quietly,
/// without a panic's message.
#[cfg(unix)]
#[test]
fn a_closed_output_ends_quietly() {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0i32; 2];
    // SAFETY: pipe2() fills two new descriptors, each owned once below; close-on-exec keeps
    // the read end out of programs other tests start meanwhile.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read); // nobody reads: the first write fails with a broken pipe
    let out = Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("players")
        .env("RUST_BACKTRACE", "1")
        .stdout(Stdio::from(write))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "{err}");
    assert_eq!(out.status.code(), Some(141));
}

/// Issue 61: on the empty Gomoku board, analyse says what chose the move.
#[test]
fn analyse_says_what_chose_a_move_without_a_search() {
    let (ok, out, err) = engine(&["analyse", "--game", "gomoku", "--player", "best"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("opening: the centre of the empty board"),
        "{out}"
    );
    assert!(!out.contains("a forced or solved move"), "{out}");
}

/// A Gomocup brain analyses the position it is given, not the empty board: it is told the
/// game's moves (here it must block black's four at h12).
#[test]
fn analyse_tells_a_gomocup_brain_the_moves() {
    let brain = format!("gomocup:cmd={}", env!("CARGO_BIN_EXE_pbrain-engine"));
    let moves = "h8 h7 h9 a1 h10 a2 h11";
    let (ok, out, err) = engine(&[
        "analyse", "--game", "gomoku", "--moves", moves, "--player", &brain,
    ]);
    assert!(ok, "{err}");
    assert!(out.starts_with("h12:"), "{out}");
}
