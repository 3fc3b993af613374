//! `engine serve` over HTTP: the built server on a free port, every game played through the
//! API, the engine's replies checked by the rules, and the refusals of bad requests.

mod serve_support;

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use serve_support::{check_by_rules, http, http_bytes, Server};

/// The first legal move of the state (a person's move).
fn first_legal(state: &Value) -> String {
    state["legal"][0]
        .as_str()
        .unwrap_or_else(|| panic!("no legal move: {state}"))
        .to_string()
}

#[test]
fn every_game_plays_against_the_engine_takes_back_and_keeps_the_rules() {
    let server = Server::start();
    let (status, games) = server.get("/api/games");
    assert_eq!(status, 200);
    let names: Vec<&str> = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    for name in [
        "dots_and_boxes",
        "tictactoe",
        "amazons",
        "surakarta",
        "gomoku",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let cases = [
        (
            json!({"game": "dots_and_boxes", "params": {"rows": 3, "cols": 4}}),
            "mcts:iterations=3000",
        ),
        (json!({"game": "tictactoe"}), "mcts:iterations=2000"),
        (
            json!({"game": "amazons", "params": {"size": 6}}),
            "mcts:iterations=2000",
        ),
        (
            json!({"game": "amazons", "params": {"size": 6, "turn": "whole"}}),
            "mcts:iterations=500,turn=whole",
        ),
        (json!({"game": "surakarta"}), "mcts:iterations=2000"),
        (
            json!({"game": "gomoku", "params": {"size": 9}}),
            "mcts:iterations=2000",
        ),
    ];
    for (i, (game, engine)) in cases.iter().enumerate() {
        let session = format!("api-{i}");
        let mut body = game.clone();
        body["session"] = json!(session);
        body["players"] = json!([null, engine]);
        let mut state = server.ok("/api/new", body);
        assert_eq!(state["human_to_move"], json!(true), "{state}");
        for _ in 0..3 {
            if state["over"] == json!(true) {
                break;
            }
            let mv = first_legal(&state);
            state = server.ok("/api/play", json!({"session": session, "move": mv}));
            // The engine answers every turn it has (Dots and Boxes: a capture moves again).
            while state["over"] == json!(false) && state["human_to_move"] == json!(false) {
                state = server.ok("/api/engine", json!({"session": session}));
                let a = &state["analysis"];
                assert_eq!(a["by"], json!(engine), "{a}");
                let search = &a["search"];
                assert!(search["iterations"].as_u64().unwrap_or(0) > 0, "{a}");
                let visits: u64 = search["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["visits"].as_u64().unwrap())
                    .sum();
                assert!(visits > 0, "{a}");
                let (p1, p2) = (
                    search["value"]["p1"].as_f64().unwrap(),
                    search["value"]["p2"].as_f64().unwrap(),
                );
                assert!((p1 + p2).abs() < 1e-9 && p1.abs() <= 1.0, "{a}");
            }
            check_by_rules(&state);
        }
        let turns = state["turns"].as_array().unwrap().len();
        assert!(turns >= 2, "{state}");
        // Take back: the engine's answer and the person's move before it.
        let back = server.ok("/api/undo", json!({"session": session}));
        let left = back["turns"].as_array().unwrap().len();
        assert!(left < turns, "{turns} -> {left}");
        assert_eq!(back["human_to_move"], json!(true), "{back}");
        assert_eq!(back["analysis"], Value::Null);
        check_by_rules(&back);
        // The record is a plain move list that loads again to the same position.
        let (status, record) = http(
            server.addr,
            "GET",
            &format!("/api/record?session={session}"),
            None,
        );
        assert_eq!(status, 200, "{record}");
        assert!(record.contains("\ngame "), "{record}");
        let again = server.ok(
            "/api/new",
            json!({"session": format!("{session}-again"), "record": record, "players": [null, engine]}),
        );
        assert_eq!(again["position"], back["position"], "{record}");
        assert_eq!(again["game"], back["game"]);
    }
}

#[test]
fn bad_requests_get_4xx_with_a_message_and_the_server_goes_on() {
    let server = Server::start();
    let s =
        json!({"session": "bad", "game": "tictactoe", "players": [null, "mcts:iterations=100"]});
    server.ok("/api/new", s);
    let cases: Vec<(&str, String, u16, &str)> =
        vec![
        ("/api/new", "{not json".into(), 400, "not JSON"),
        ("/api/new", "[1,2]".into(), 400, "JSON object"),
        (
            "/api/new",
            json!({"session": "x", "game": "chess"}).to_string(),
            400,
            "unknown game 'chess'",
        ),
        (
            "/api/new",
            json!({"session": "x", "game": "amazons", "params": {"size": 9}}).to_string(),
            400,
            "size",
        ),
        (
            "/api/new",
            json!({"session": "x", "game": "tictactoe", "players": [null, "mcts:width=3"]})
                .to_string(),
            400,
            "unknown key 'width'",
        ),
        (
            "/api/new",
            json!({"session": "x", "game": "tictactoe", "players": [null, "external:cmd=sh"]})
                .to_string(),
            400,
            "--allow-external",
        ),
        (
            "/api/new",
            json!({"session": "x", "game": "tictactoe", "players": [null, "mcts:threads=1000"]})
                .to_string(),
            400,
            "threads",
        ),
        (
            "/api/new",
            json!({"session": "a b", "game": "tictactoe"}).to_string(),
            400,
            "session id",
        ),
        (
            "/api/play",
            json!({"session": "bad", "move": "z9"}).to_string(),
            400,
            "'z9'",
        ),
        (
            "/api/play",
            json!({"session": "bad", "move": "hello"}).to_string(),
            400,
            "cannot read move",
        ),
        (
            "/api/play",
            json!({"session": "bad", "move": 3}).to_string(),
            400,
            "string",
        ),
        (
            "/api/play",
            json!({"session": "nobody", "move": "a1"}).to_string(),
            404,
            "no game in session",
        ),
        (
            "/api/engine",
            json!({"session": "bad"}).to_string(),
            409,
            "no engine is to move",
        ),
        (
            "/api/undo",
            json!({"session": "bad"}).to_string(),
            409,
            "no move to take back",
        ),
        ("/api/nothing", "{}".into(), 404, "no such page"),
        ("/api/games", "{}".into(), 405, "/api/games takes GET, not POST"),
    ];
    for (path, body, status, says) in &cases {
        let (got, v) = server.post(path, body);
        assert_eq!(got, *status, "{path} {body}: {v}");
        let e = v["error"].as_str().unwrap_or_default();
        assert!(e.contains(says), "{path} {body}: {e}");
    }
    // An illegal move: a taken cell.
    server.ok("/api/play", json!({"session": "bad", "move": "b2"}));
    let (status, v) = server.post(
        "/api/play",
        &json!({"session": "bad", "move": "b2"}).to_string(),
    );
    assert_eq!(status, 409, "{v}"); // the engine is to move
    let state = server.ok("/api/engine", json!({"session": "bad"}));
    let (status, v) = server.post(
        "/api/play",
        &json!({"session": "bad", "move": "b2"}).to_string(),
    );
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("illegal"), "{v}");
    check_by_rules(&state);
    let (status, _) = server.get("/api/state?session=bad");
    assert_eq!(status, 200, "the server still answers");
    let (status, page) = http(server.addr, "GET", "/", None);
    assert_eq!(status, 200);
    assert!(page.contains("<svg id=\"board\""), "{page}");
}

/// A search whose request goes away (the tab was closed) stops at once instead of thinking on
/// for its whole budget; "move now" stops one too.
#[test]
fn a_search_stops_when_its_request_goes_away_or_on_move_now() {
    let server = Server::start();
    server.ok(
        "/api/new",
        json!({"session": "gone", "game": "dots_and_boxes", "players": ["mcts:time_ms=60000", null]}),
    );
    let body = json!({"session": "gone"}).to_string();
    let mut stream = TcpStream::connect(server.addr).unwrap();
    write!(
        stream,
        "POST /api/engine HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let (_, state) = server.get("/api/state?session=gone");
    assert!(state["thinking"].is_object(), "thinking: {state}");
    drop(stream);
    let started = Instant::now();
    loop {
        let (_, state) = server.get("/api/state?session=gone");
        if state["thinking"].is_null() {
            // The stopped search still played a legal move.
            assert_eq!(state["turns"].as_array().unwrap().len(), 1, "{state}");
            check_by_rules(&state);
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the search went on after its request was dropped"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Move now: the second engine move is stopped by /api/stop.
    server.ok(
        "/api/new",
        json!({"session": "now", "game": "gomoku", "players": ["mcts:time_ms=60000", null]}),
    );
    let addr = server.addr;
    let waiter =
        std::thread::spawn(move || http(addr, "POST", "/api/engine", Some(r#"{"session":"now"}"#)));
    std::thread::sleep(Duration::from_millis(400));
    let started = Instant::now();
    let stopped = server.ok("/api/stop", json!({"session": "now"}));
    assert_eq!(stopped["stopped"], json!(true));
    let (status, _) = waiter.join().unwrap();
    assert_eq!(status, 200);
    assert!(started.elapsed() < Duration::from_secs(10));
    let (_, state) = server.get("/api/state?session=now");
    check_by_rules(&state);
    assert_eq!(state["turns"].as_array().unwrap().len(), 1);
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Two engines play to the end (watch mode through the API); the finished game downloads in
/// the dataset record format, with the searches' root moves, and loads again.
#[test]
fn a_game_of_two_engines_downloads_as_a_dataset_record_and_loads_again() {
    let server = Server::start();
    let mut state = server.ok(
        "/api/new",
        json!({"session": "watch", "game": "dots_and_boxes", "params": {"rows": 2, "cols": 2},
               "players": ["mcts:iterations=2000", "mcts:iterations=500"]}),
    );
    let (status, v) = http(server.addr, "GET", "/api/dataset?session=watch", None);
    assert_eq!(status, 409, "{v}");
    while state["over"] == json!(false) {
        state = server.ok("/api/engine", json!({"session": "watch"}));
    }
    check_by_rules(&state);
    let clocks = state["clocks"].as_array().unwrap();
    assert!(clocks.iter().all(|c| c.as_f64().unwrap() > 0.0), "{state}");
    let (status, bytes) = http_bytes(server.addr, "GET", "/api/dataset?session=watch", None);
    assert_eq!(status, 200);
    assert!(bytes.starts_with(&engine::record::MAGIC));
    // The bytes are a record file that the dataset reader reads.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("serve-api-game.rec");
    std::fs::write(&path, &bytes).unwrap();
    let mut reader = engine::record::RecordReader::open(&path).unwrap();
    assert_eq!(serde_json::to_value(reader.spec()).unwrap(), state["game"]);
    let (_, game) = reader.next().unwrap().unwrap();
    assert_eq!(game.moves.len(), 12, "every edge of a 2x2 board");
    assert_eq!(
        serde_json::to_value(game.outcome).unwrap(),
        json!(match state["result"].as_str().unwrap() {
            "P1 wins" => "P1Win",
            "P2 wins" => "P2Win",
            _ => "Draw",
        })
    );
    let searched = game
        .moves
        .iter()
        .filter(|m| m.kind == engine::record::MoveKind::Searched)
        .count();
    assert!(searched >= 6, "{searched} searched moves");
    assert!(game
        .moves
        .iter()
        .filter(|m| m.kind == engine::record::MoveKind::Searched)
        .all(|m| m.iterations > 0 && !m.root.is_empty()));
    let again = server.ok(
        "/api/new",
        json!({"session": "again", "dataset": base64(&bytes)}),
    );
    assert_eq!(again["position"], state["position"]);
    assert_eq!(again["over"], json!(true));
    let (status, v) = server.post(
        "/api/new",
        &json!({"session": "again", "dataset": base64(b"MCTSGAME but not a record")}).to_string(),
    );
    assert_eq!(status, 400, "{v}");
}

/// The product's net-guided player of Dots and Boxes: its search's net figures and the net's
/// prediction for the position.
#[test]
fn the_net_guided_player_shows_the_nets_figures() {
    let server = Server::start();
    server.ok(
        "/api/new",
        json!({"session": "nn", "game": "dots_and_boxes",
               "players": ["nn:iterations=3000,solver_edges=0,safe_first=0,rollout=random,model=dab-5x5", null]}),
    );
    let state = server.ok("/api/engine", json!({"session": "nn"}));
    let a = &state["analysis"];
    let net = &a["net"];
    let sum: f64 = ["p1", "p2", "draw"]
        .iter()
        .map(|k| net[k].as_f64().unwrap())
        .sum();
    assert!(sum > 0.0 && sum < 3.0, "{a}");
    assert!(a["search"]["net_evaluations"].as_u64().unwrap() > 0, "{a}");
    assert!(
        a["search"]["net_cutoffs"].as_u64().unwrap() <= a["search"]["rollouts"].as_u64().unwrap()
    );
    check_by_rules(&state);
}
