//! Helpers of the `engine serve` tests: the built server on a free port, a small HTTP/1.1
//! client on std's TcpStream (for the server's API and for chromedriver's WebDriver API), and
//! a replay of a game by the rules.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use engine::games::{GameSpec, RegisteredGame};
use engine::registry::{GameVisitor, Lookup};
use serde_json::Value;

/// `engine serve --port 0` as a child process, killed when dropped.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
}

impl Server {
    pub fn start() -> Server {
        Server::start_with(&[])
    }

    pub fn start_with(args: &[&str]) -> Server {
        // From the workspace's root, where the player specs' default model path points.
        let mut child = Command::new(env!("CARGO_BIN_EXE_engine"))
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start engine serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("read the address line");
        // "engine serve: open http://127.0.0.1:PORT/ (Ctrl-C stops)"
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        let addr: SocketAddr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|e| panic!("address in {line:?}: {e}"));
        Server { child, addr }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        let (status, body) = http(self.addr, "GET", path, None);
        (status, json_of(&body))
    }

    pub fn post(&self, path: &str, body: &str) -> (u16, Value) {
        let (status, body) = http(self.addr, "POST", path, Some(body));
        (status, json_of(&body))
    }

    /// POST that must succeed.
    pub fn ok(&self, path: &str, body: Value) -> Value {
        let (status, v) = self.post(path, &body.to_string());
        assert_eq!(status, 200, "{path} {body}: {v}");
        v
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"))
}

/// One HTTP/1.1 request (Connection: close); returns the status and the body.
pub fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let (status, raw) = http_bytes(addr, method, path, body);
    (status, String::from_utf8_lossy(&raw).to_string())
}

/// [`http`] with the body's bytes as they came.
pub fn http_bytes(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (u16, Vec<u8>) {
    let host = addr.to_string();
    let headers = [
        ("Host", host.as_str()),
        ("Content-Type", "application/json"),
    ];
    http_with(addr, method, path, &headers, body)
}

/// One HTTP/1.1 request with exactly these headers (beside `Connection` and
/// `Content-Length`), as a browser or another site's page would send it.
pub fn http_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .expect("timeout");
    let body = body.unwrap_or("");
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(body.as_bytes()).expect("write");
    // Read the head, then exactly the body (some servers keep the connection open).
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).expect("read the answer's head");
        assert!(n > 0, "the connection closed in the head: {head:?}");
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    };
    let mut raw = Vec::new();
    if let Some(n) = header("content-length") {
        let n: usize = n.parse().expect("a length");
        raw.resize(n, 0);
        reader.read_exact(&mut raw).expect("read the body");
    } else if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).expect("a chunk size");
            let n = usize::from_str_radix(size.trim(), 16).expect("hex chunk size");
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).expect("a chunk");
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&chunk[..n]);
        }
    } else {
        reader.read_to_end(&mut raw).expect("read the body");
    }
    (status, raw)
}

/// Replays `state`'s turns by the rules from the start of its game and checks that they
/// reach its position: every move the page or the engine made was legal.
pub fn check_by_rules(state: &Value) {
    struct Replay<'a>(&'a Value);
    impl GameVisitor for Replay<'_> {
        type Output = Result<String, String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            let mut s = start;
            for t in self.0["turns"].as_array().ok_or("no turns")? {
                let text = t["move"].as_str().ok_or("a turn without a move")?;
                let mover = s.to_move().number() as u64;
                if t["player"].as_u64() != Some(mover) {
                    return Err(format!("{text}: P{mover} was to move, not {}", t["player"]));
                }
                // A turn of several plies is written with spaces (or Amazons' slash).
                for word in text.split_whitespace() {
                    let plies = s
                        .parse_legal_plies(word)
                        .map_err(|e| format!("turn {text}: {e}"))?;
                    for a in plies {
                        s.apply(a);
                    }
                }
            }
            Ok(s.position_text())
        }
    }
    let spec = GameSpec::from_json(&state["game"]).expect("the state names its game");
    let position = spec
        .visit(Replay(state))
        .expect("a game")
        .unwrap_or_else(|e| panic!("the moves are not legal by the rules: {e}\n{state}"));
    assert_eq!(
        Some(position.as_str()),
        state["position"].as_str(),
        "the replayed moves reach another position"
    );
}
