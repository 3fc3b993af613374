//! `engine serve` in a real browser: headless Chromium driven through chromedriver's WebDriver
//! API (plain HTTP, spoken with std's TcpStream). For every game: open the page, choose the
//! game and the players in the form, play a few moves by clicking the board, check every move
//! (the person's and the engine's) by the rules and the board the page drew against the
//! position, take a move back, and save a screenshot. Then a game between two engines (watch
//! mode) to its end, and a record loaded again through the page's file input.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`apt-get install chromium chromium-driver`);
//! `.ci/run` installs them and runs this test with `--ignored`. `CHROMEDRIVER` and `CHROMIUM`
//! name other binaries; `SERVE_SCREENSHOTS` a folder for the screenshots (by default cargo's
//! temporary folder for tests; `docs/screenshots` holds the ones the docs show).

mod serve_support;

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use serve_support::{check_by_rules, http, http_bytes, Server};

/// A chromedriver process and one browser session, both ended when dropped.
struct Driver {
    child: Child,
    addr: SocketAddr,
    session: String,
}

impl Driver {
    fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let program = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let child = Command::new(&program)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {program} ({e}): this test needs Debian's chromium and \
                     chromium-driver (apt-get install chromium chromium-driver)"
                )
            });
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let started = Instant::now();
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not listen"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut driver = Driver {
            child,
            addr,
            session: String::new(),
        };
        let binary = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": binary,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=800,743",
                         "--hide-scrollbars"],
            },
        }}});
        let (status, body) = http(addr, "POST", "/session", Some(&caps.to_string()));
        let v: Value = serde_json::from_str(&body).expect("JSON from chromedriver");
        assert_eq!(status, 200, "a browser session: {v}");
        driver.session = v["value"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        driver
    }

    /// One WebDriver command of the session; its `value`.
    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("/session/{}{path}", self.session);
        let body = body.to_string();
        let (status, text) = http(
            self.addr,
            method,
            &url,
            (method == "POST").then_some(body.as_str()),
        );
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text}"));
        assert_eq!(status, 200, "{method} {path} {body}: {v}");
        v["value"].clone()
    }

    fn goto(&self, url: &str) {
        self.cmd("POST", "/url", json!({"url": url}));
    }

    fn exec(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": args}),
        )
    }

    fn find(&self, css: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        v["element-6066-11e4-a52e-4f735466cecf"]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    fn click(&self, css: &str) {
        let id = self.find(css);
        let url = format!("/session/{}/element/{id}/click", self.session);
        let (status, text) = http(self.addr, "POST", &url, Some("{}"));
        assert_eq!(status, 200, "click {css}: {text}");
    }

    fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.cmd("POST", &format!("/element/{id}/clear"), json!({}));
        self.cmd(
            "POST",
            &format!("/element/{id}/value"),
            json!({"text": text}),
        );
    }

    fn body_data(&self, key: &str) -> String {
        self.exec(
            "return document.body.dataset[arguments[0]] || ''",
            json!([key]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    fn wait(&self, what: &str, timeout: Duration, mut ok: impl FnMut(&Driver) -> bool) {
        let started = Instant::now();
        while !ok(self) {
            assert!(
                started.elapsed() < timeout,
                "waited {timeout:?} for {what}; the page says: {}",
                self.exec(
                    "return document.getElementById('status').textContent + ' | ' + \
                     document.getElementById('error').textContent",
                    json!([])
                )
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&self, name: &str) -> PathBuf {
        self.exec("window.scrollTo(0, 0)", json!([]));
        // The pointer off the board, so that no square shows its hover shade.
        self.cmd(
            "POST",
            "/actions",
            json!({"actions": [{"type": "pointer", "id": "mouse", "actions": [
                {"type": "pointerMove", "x": 799, "y": 599, "origin": "viewport"}]}]}),
        );
        let data = self.cmd("GET", "/screenshot", json!({}));
        let png = base64_decode(data.as_str().expect("base64"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        // A relative folder is taken from the workspace's root (tests run in engine/).
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir = std::env::var("SERVE_SCREENSHOTS")
            .map(|d| root.join(d))
            .unwrap_or_else(|_| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
        std::fs::create_dir_all(&dir).expect("the screenshots folder");
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write the screenshot");
        path
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                http(
                    self.addr,
                    "DELETE",
                    &format!("/session/{}", self.session),
                    None,
                )
            }));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("WebDriver's screenshot is base64")
}

/// One game of the test: the game, its parameters as the form sets them, and the engine.
struct Case {
    game: &'static str,
    params: &'static [(&'static str, &'static str)],
    engine: &'static str,
    moves: usize,
}

fn state(server: &Server, session: &str) -> Value {
    let (status, s) = server.get(&format!("/api/state?session={session}"));
    assert_eq!(status, 200, "{s}");
    s
}

/// Every element carrying `attr`, with its name and its centre on the screen.
fn centres(d: &Driver, attr: &str) -> Vec<(String, f64, f64)> {
    let v = d.exec(
        "return Array.from(document.querySelectorAll('[' + arguments[0] + ']')).map(e => { \
           const r = e.getBoundingClientRect(); \
           return [e.getAttribute(arguments[0]), r.x + r.width / 2, r.y + r.height / 2, \
                   e.getAttribute('data-kind') || e.getAttribute('data-owner') || '']; })",
        json!([attr]),
    );
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let name = e[0].as_str().unwrap().to_string();
            let kind = e[3].as_str().unwrap();
            let name = if kind.is_empty() {
                name
            } else {
                format!("{name}={kind}")
            };
            (name, e[1].as_f64().unwrap(), e[2].as_f64().unwrap())
        })
        .collect()
}

/// (file, row from the top) of a square name on an `n`-line board.
fn square(name: &str, n: usize, tictactoe: bool) -> (f64, f64) {
    let file = (name.as_bytes()[0] - b'a') as f64;
    let number: usize = name[1..]
        .parse()
        .unwrap_or_else(|_| panic!("square {name}"));
    let row = if tictactoe { number - 1 } else { n - number };
    (file, row as f64)
}

/// The page drew the server's position: the same edges, boxes, stones, pieces and arrows, each
/// where its name says on the board's grid (so a click on it is a click on that spot).
fn check_drawing(d: &Driver, s: &Value) {
    let position = s["position"].as_str().unwrap();
    let words: Vec<&str> = position.split(' ').collect();
    let game = s["game"]["game"].as_str().unwrap();
    let near = |a: (f64, f64), b: (f64, f64), tol: f64, what: &str| {
        assert!(
            (a.0 - b.0).abs() <= tol && (a.1 - b.1).abs() <= tol,
            "{what} is drawn at {a:?}, expected {b:?} ({position})"
        );
    };
    if game == "dots_and_boxes" {
        let (rows, cols) = (
            s["game"]["rows"].as_u64().unwrap() as usize,
            s["game"]["cols"].as_u64().unwrap() as usize,
        );
        let dots: std::collections::HashMap<String, (f64, f64)> = centres(d, "data-dot")
            .into_iter()
            .map(|(n, x, y)| (n, (x, y)))
            .collect();
        assert_eq!(dots.len(), (rows + 1) * (cols + 1));
        let dot = |r: usize, c: usize| dots[&format!("{r},{c}")];
        let step = dot(0, 1).0 - dot(0, 0).0;
        assert!(step > 10.0, "dots {step} px apart");
        for r in 0..=rows {
            for c in 0..=cols {
                let want = (dot(0, 0).0 + c as f64 * step, dot(0, 0).1 + r as f64 * step);
                near(dot(r, c), want, 1.0, &format!("dot {r},{c}"));
            }
        }
        // Each edge (drawn or a click target) between its two dots.
        let edge_centre = |name: &str| -> (f64, f64) {
            let (r, c) = name[1..].split_once(',').unwrap();
            let (r, c): (usize, usize) = (r.parse().unwrap(), c.parse().unwrap());
            let (a, b) = if name.starts_with('h') {
                (dot(r, c), dot(r, c + 1))
            } else {
                (dot(r, c), dot(r + 1, c))
            };
            ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)
        };
        let mut drawn = Vec::new();
        for (name, x, y) in centres(d, "data-drawn") {
            near((x, y), edge_centre(&name), 1.5, &name);
            drawn.push(name);
        }
        for (name, x, y) in centres(d, "data-move") {
            near((x, y), edge_centre(&name), 1.5, &name);
        }
        let mut want = Vec::new();
        for (id, bit) in words[0].chars().enumerate() {
            if bit == '1' {
                let h = (rows + 1) * cols;
                want.push(if id < h {
                    format!("h{},{}", id / cols, id % cols)
                } else {
                    let v = id - h;
                    format!("v{},{}", v / (cols + 1), v % (cols + 1))
                });
            }
        }
        drawn.sort();
        want.sort();
        assert_eq!(drawn, want, "the drawn edges ({position})");
        let mut boxes: Vec<String> = centres(d, "data-box")
            .into_iter()
            .map(|(n, x, y)| {
                let (r, c) = n.split('=').next().unwrap().split_once(',').unwrap();
                let (r, c): (usize, usize) = (r.parse().unwrap(), c.parse().unwrap());
                let mid = (
                    (dot(r, c).0 + dot(r, c + 1).0) / 2.0,
                    (dot(r, c).1 + dot(r + 1, c).1) / 2.0,
                );
                near((x, y), mid, 1.5, &n);
                n
            })
            .collect();
        let mut owned: Vec<String> = words
            .get(4)
            .unwrap_or(&"")
            .chars()
            .enumerate()
            .filter(|(_, o)| *o != '.')
            .map(|(i, o)| format!("{},{}={o}", i / cols, i % cols))
            .collect();
        boxes.sort();
        owned.sort();
        assert_eq!(boxes, owned, "the boxes' owners ({position})");
        return;
    }
    let tictactoe = game == "tictactoe";
    let rows: Vec<String> = if tictactoe {
        words[0]
            .as_bytes()
            .chunks(3)
            .map(|c| String::from_utf8_lossy(c).to_string())
            .collect()
    } else {
        words[0].split('/').map(str::to_string).collect()
    };
    let n = rows.len();
    // The position's contents by square name.
    let mut want = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for (file, c) in row.chars().enumerate() {
            if c != '.' {
                let number = if tictactoe { i + 1 } else { n - i };
                want.push(format!("{}{number}={c}", (b'a' + file as u8) as char));
            }
        }
    }
    // Every square the page names: the click targets and the pieces, on one grid.
    let mut named = Vec::new();
    for attr in [
        "data-square",
        "data-move",
        "data-stone",
        "data-piece",
        "data-arrow",
    ] {
        named.extend(centres(d, attr).into_iter().map(|c| (attr, c)));
    }
    let targets: Vec<&(String, f64, f64)> = named
        .iter()
        .filter(|(a, _)| *a == "data-square" || *a == "data-move")
        .map(|(_, c)| c)
        .collect();
    assert!(targets.len() >= 2, "click targets on the board");
    // The grid from the targets: origin and step from the extremes.
    let grid: Vec<((f64, f64), (f64, f64))> = targets
        .iter()
        .map(|(name, x, y)| (square(name, n, tictactoe), (*x, *y)))
        .collect();
    let fit = |axis: usize| {
        let pts: Vec<(f64, f64)> = grid
            .iter()
            .map(|(sq, xy)| {
                if axis == 0 {
                    (sq.0, xy.0)
                } else {
                    (sq.1, xy.1)
                }
            })
            .collect();
        let lo = pts
            .iter()
            .cloned()
            .fold((f64::MAX, 0.0), |a, b| if b.0 < a.0 { b } else { a });
        let hi = pts
            .iter()
            .cloned()
            .fold((f64::MIN, 0.0), |a, b| if b.0 > a.0 { b } else { a });
        let step = if hi.0 > lo.0 {
            (hi.1 - lo.1) / (hi.0 - lo.0)
        } else {
            0.0
        };
        (lo.1 - lo.0 * step, step)
    };
    let ((x0, dx), (y0, dy)) = (fit(0), fit(1));
    let step = dx.abs().max(dy.abs());
    assert!(step > 10.0, "squares {step} px apart");
    let mut drawn = Vec::new();
    for (attr, (name, x, y)) in &named {
        let bare = name.split('=').next().unwrap();
        let (f, r) = square(bare, n, tictactoe);
        near(
            (*x, *y),
            (x0 + f * dx, y0 + r * dy),
            step * 0.3,
            &format!("{attr} {name}"),
        );
        if *attr != "data-square" && *attr != "data-move" {
            drawn.push(name.clone());
        }
    }
    drawn.sort();
    want.sort();
    assert_eq!(drawn, want, "the pieces on the board ({position})");
}

/// Waits until the page shows the server's game with a person to move (or its end) and
/// nothing on its way; returns the server's state.
fn settle(d: &Driver, server: &Server, session: &str) -> Value {
    settle_after(d, server, session, 0)
}

/// [`settle`] once the server has at least `turns` turns (a click's move is on its way).
fn settle_after(d: &Driver, server: &Server, session: &str, min_turns: usize) -> Value {
    let mut last = Value::Null;
    d.wait("the engine's answer", Duration::from_secs(60), |d| {
        let s = state(server, session);
        let count = s["turns"].as_array().map_or(0, |t| t.len());
        let turns = count.to_string();
        let done = count >= min_turns
            && s["thinking"].is_null()
            && (s["human_to_move"] == json!(true) || s["over"] == json!(true))
            && d.body_data("busy") == "0"
            && d.body_data("turns") == turns;
        last = s;
        done
    });
    last
}

/// Clicks `mv` (the game's notation) on the board as a person would.
fn click_move(d: &Driver, server: &Server, session: &str, game: &str, mv: &str) -> String {
    let squares = |text: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        for c in text.chars() {
            if c.is_ascii_lowercase() && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if c.is_ascii_alphanumeric() {
                cur.push(c);
            } else if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    };
    match game {
        "surakarta" => {
            let sq = squares(mv);
            d.click(&format!("[data-square='{}']", sq[0]));
            d.wait("the piece selected", Duration::from_secs(5), |d| {
                d.body_data("selection") == sq[0]
            });
            d.click(&format!("[data-square='{}']", sq[1]));
            mv.to_string()
        }
        "amazons" => {
            // A queen move of the legal list, then the first legal arrow after it.
            let sq = squares(mv);
            let queen = format!("{}-{}", sq[0], sq[1]);
            d.click(&format!("[data-square='{}']", sq[0]));
            d.click(&format!("[data-square='{}']", sq[1]));
            d.wait("the arrows on offer", Duration::from_secs(5), |d| {
                !d.body_data("arrows").is_empty()
            });
            let legal = server.ok("/api/legal", json!({"session": session, "after": queen}));
            let arrow = legal["legal"][0].as_str().unwrap().to_string();
            d.click(&format!("[data-square='{arrow}']"));
            format!("{queen}/{arrow}")
        }
        _ => {
            d.click(&format!("[data-move='{mv}']"));
            mv.to_string()
        }
    }
}

/// Does `send` (a click on New game, or a file sent to Load record) and waits for the page to
/// show the new game the server answered.
fn new_game(d: &Driver, send: impl FnOnce(&Driver)) {
    let before: u64 = d.body_data("games").parse().unwrap_or(0);
    send(d);
    d.wait("the new game", Duration::from_secs(20), |d| {
        d.body_data("games").parse::<u64>().unwrap_or(0) > before
    });
}

/// Sends a file to the page's Load record input.
fn send_file(d: &Driver, file: &std::path::Path) {
    let id = d.find("#load");
    d.cmd(
        "POST",
        &format!("/element/{id}/value"),
        json!({"text": file.display().to_string()}),
    );
}

fn choose(d: &Driver, select: &str, value: &str) {
    d.click(&format!("{select} option[value='{value}']"));
}

#[test]
#[ignore = "needs Debian's chromium and chromium-driver; .ci/run installs them and runs it"]
fn every_game_in_a_real_browser() {
    let server = Server::start();
    let d = Driver::start();
    d.goto(&server.url());
    d.wait("the page's first game", Duration::from_secs(20), |d| {
        !d.body_data("turns").is_empty()
    });
    let session = d.body_data("session");
    assert!(!session.is_empty());
    let cases = [
        Case {
            game: "dots_and_boxes",
            params: &[("rows", "3"), ("cols", "4")],
            engine: "mcts:iterations=5000",
            moves: 4,
        },
        Case {
            game: "tictactoe",
            params: &[],
            engine: "mcts:iterations=3000",
            moves: 2,
        },
        Case {
            game: "amazons",
            params: &[("size", "6")],
            engine: "mcts:iterations=3000",
            moves: 2,
        },
        Case {
            game: "surakarta",
            params: &[],
            engine: "mcts:iterations=3000",
            moves: 2,
        },
        Case {
            game: "gomoku",
            params: &[("size", "9")],
            engine: "mcts:iterations=5000",
            moves: 3,
        },
    ];
    for case in &cases {
        choose(&d, "#game", case.game);
        for (name, value) in case.params {
            let css = format!("#param-{name}");
            let is_select = d.exec(
                "return document.querySelector(arguments[0]).tagName",
                json!([css]),
            ) == json!("SELECT");
            if is_select {
                choose(&d, &css, value);
            } else {
                d.type_into(&css, value);
            }
        }
        choose(&d, "#p1-kind", "person");
        choose(&d, "#p2-kind", "engine");
        d.type_into("#p2-spec", case.engine);
        new_game(&d, |d| d.click("#new"));
        let mut s = settle(&d, &server, &session);
        assert_eq!(s["game"]["game"], json!(case.game));
        for (name, value) in case.params {
            assert_eq!(s["game"][name].to_string().trim_matches('"'), *value);
        }
        check_drawing(&d, &s);
        for k in 0..case.moves {
            if s["over"] == json!(true) {
                break;
            }
            let legal = s["legal"].as_array().unwrap();
            let pick = legal[(legal.len() / 2 + k) % legal.len()]
                .as_str()
                .unwrap()
                .to_string();
            let before = s["turns"].as_array().unwrap().len();
            let played = click_move(&d, &server, &session, case.game, &pick);
            s = settle_after(&d, &server, &session, before + 1);
            let turns = s["turns"].as_array().unwrap();
            assert!(
                turns.len() > before,
                "the click on {pick} ({played}) played nothing; the page says {}; {s}",
                d.exec(
                    "return document.getElementById('status').textContent + ' | ' + \
                     document.getElementById('error').textContent + ' | busy ' + \
                     document.body.dataset.busy",
                    json!([])
                )
            );
            assert_eq!(turns[before]["move"], json!(played), "{s}");
            assert!(turns[before]["by"].is_null());
            if turns.len() == before + 1 {
                // Dots and Boxes: the person closed a box and moves again.
                assert!(s["over"] == json!(true) || s["human_to_move"] == json!(true));
            } else {
                let reply = &turns[turns.len() - 1];
                assert_eq!(reply["by"], json!(case.engine), "the engine answered: {s}");
                let text = d.exec(
                    "return document.getElementById('analysis').textContent",
                    json!([]),
                );
                assert!(
                    text.as_str().unwrap().contains("iterations"),
                    "the search's figures on the page: {text}"
                );
            }
            check_by_rules(&s);
            check_drawing(&d, &s);
        }
        d.screenshot(case.game);
        // Take back: the engine's answer and the person's move before it.
        let before = s["turns"].as_array().unwrap().len();
        d.click("#undo");
        d.wait("the take-back", Duration::from_secs(10), |d| {
            d.body_data("turns").parse::<usize>().unwrap_or(usize::MAX) < before
        });
        let back = settle(&d, &server, &session);
        assert_eq!(back["human_to_move"], json!(true), "{back}");
        check_by_rules(&back);
        check_drawing(&d, &back);
    }

    // The engine settings write a player spec: the value net of Dots and Boxes, whose
    // prediction the page shows after the engine's move.
    choose(&d, "#game", "dots_and_boxes");
    d.type_into("#param-rows", "5");
    d.type_into("#param-cols", "5");
    d.click("#builder summary");
    choose(&d, "#b-kind", "nn");
    d.type_into("#b-iterations", "3000");
    d.click("#b-p2");
    let spec = d.exec("return document.getElementById('p2-spec').value", json!([]));
    assert_eq!(
        spec,
        json!("nn:iterations=3000,model=dab-5x5,threshold=0.9")
    );
    choose(&d, "#p1-kind", "person");
    new_game(&d, |d| d.click("#new"));
    let s = settle(&d, &server, &session);
    let pick = s["legal"][0].as_str().unwrap().to_string();
    click_move(&d, &server, &session, "dots_and_boxes", &pick);
    let s = settle_after(&d, &server, &session, 2);
    check_by_rules(&s);
    check_drawing(&d, &s);
    let text = d.exec(
        "return document.getElementById('analysis').textContent",
        json!([]),
    );
    assert!(
        text.as_str().unwrap().contains("value net: P1 wins"),
        "the net's prediction on the page: {text}"
    );
    d.click("#builder summary");

    // An engine field left at its default follows the game: Amazons' whole turns.
    choose(&d, "#game", "amazons");
    choose(&d, "#param-turn", "whole");
    assert_eq!(
        d.exec("return document.getElementById('p1-spec').value", json!([])),
        json!("best:time_ms=1000,turn=whole")
    );

    // Watch mode: two engines play tic-tac-toe to the end, move by move.
    choose(&d, "#game", "tictactoe");
    choose(&d, "#p1-kind", "engine");
    choose(&d, "#p2-kind", "engine");
    d.type_into("#p1-spec", "mcts:iterations=4000");
    d.type_into("#p2-spec", "mcts:iterations=300");
    new_game(&d, |d| d.click("#new"));
    d.wait("the engines' game to end", Duration::from_secs(60), |d| {
        d.exec(
            "return document.getElementById('status').dataset.over",
            json!([]),
        ) == json!("1")
    });
    let s = settle(&d, &server, &session);
    assert_eq!(s["over"], json!(true));
    assert!(s["turns"].as_array().unwrap().len() >= 5, "{s}");
    check_by_rules(&s);
    check_drawing(&d, &s);
    let clocks = s["clocks"].as_array().unwrap();
    assert!(clocks.iter().all(|c| c.as_f64().unwrap() > 0.0), "{s}");
    d.screenshot("watch");

    // The dataset record of the finished game, loaded again through the page's file input.
    let (status, bytes) = http_bytes(
        server.addr,
        "GET",
        &format!("/api/dataset?session={session}"),
        None,
    );
    assert_eq!(status, 200);
    let rec = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-browser-game.rec");
    std::fs::write(&rec, &bytes).unwrap();

    // A record loaded again through the page's file input.
    let (status, record) = http(
        server.addr,
        "GET",
        &format!("/api/record?session={session}"),
        None,
    );
    assert_eq!(status, 200);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("serve-browser-record.txt");
    std::fs::write(&file, &record).unwrap();
    choose(&d, "#game", "dots_and_boxes");
    choose(&d, "#p1-kind", "person");
    choose(&d, "#p2-kind", "person");
    new_game(&d, |d| d.click("#new"));
    new_game(&d, |d| send_file(d, &file));
    let loaded = state(&server, &session);
    assert_eq!(loaded["position"], s["position"], "{record}");
    assert_eq!(loaded["game"], s["game"]);
    assert_eq!(
        d.exec("return document.getElementById('game').value", json!([])),
        json!("tictactoe"),
        "the form follows the loaded game"
    );
    check_drawing(&d, &loaded);

    // The dataset record: the same game again (its plies as turns).
    choose(&d, "#game", "gomoku");
    new_game(&d, |d| d.click("#new"));
    new_game(&d, |d| send_file(d, &rec));
    let loaded = settle(&d, &server, &session);
    assert_eq!(loaded["position"], s["position"]);
    check_drawing(&d, &loaded);

    // While the engine thinks: the progress bar fills and the clock runs; "Move now" stops it.
    choose(&d, "#game", "gomoku");
    choose(&d, "#p1-kind", "engine");
    choose(&d, "#p2-kind", "person");
    d.type_into("#p1-spec", "mcts:time_ms=30000");
    new_game(&d, |d| d.click("#new"));
    d.wait("the progress bar", Duration::from_secs(10), |d| {
        d.exec(
            "const p = document.getElementById('progress'); \
             return !p.hidden && parseFloat(document.getElementById('bar').style.width) > 0 \
               && /thinking/.test(p.textContent)",
            json!([]),
        ) == json!(true)
    });
    let s = state(&server, &session);
    assert!(s["thinking"]["elapsed_ms"].as_u64().is_some(), "{s}");
    assert_eq!(s["thinking"]["time_ms"], json!(30000));
    let stopped = Instant::now();
    d.click("#stop");
    let s = settle(&d, &server, &session);
    assert!(
        stopped.elapsed() < Duration::from_secs(10),
        "Move now did not stop the search"
    );
    assert_eq!(s["turns"].as_array().unwrap().len(), 1, "{s}");
    assert!(s["clocks"][0].as_f64().unwrap() > 0.0, "{s}");
    check_by_rules(&s);
    check_drawing(&d, &s);
    assert!(
        d.exec(
            "return document.getElementById('progress').hidden",
            json!([])
        ) == json!(true),
        "the progress bar goes once the move is in"
    );
}
