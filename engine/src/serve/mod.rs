//! `engine serve`: play and watch every game of the registry in a browser.
//!
//! A small HTTP server (axum on tokio) with the page embedded in the binary (plain HTML, CSS and
//! JavaScript: no build step, no network). Each browser tab has its own game, named by a
//! session id the page makes; the games, the players and the moves go through the same code as
//! the protocol and `engine match` (the registry, the player specs, the games' notation).
//! The engine thinks on a blocking thread; when its request goes away (the tab was closed or
//! reloaded) or the page asks it to move now, the search's stop flag ends it.
//!
//! The API (every answer JSON; a refusal is a 4xx with `{"error": "..."}`) is in `docs/serve.md`.

mod guard;
mod table;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use serde_json::{json, Value};

use crate::registry::{GameSpec, Lookup, ParamKind, GAMES};
use guard::{check_request, Hosts, PlayerPolicy, ShippedModels};
use table::{
    base64_decode, budget_of, new_table, read_dataset_record, read_record, NewGame, Refusal,
    SeatSpec, Table,
};

pub use table::MAX_THREADS;

const INDEX_HTML: &str = include_str!("static/index.html");
const APP_JS: &str = include_str!("static/app.js");
const STYLE_CSS: &str = include_str!("static/style.css");

/// Games kept at most at once (one a tab); the least recently used goes first.
const MAX_SESSIONS: usize = 256;
/// A game nobody touched for this long is dropped.
const IDLE: Duration = Duration::from_secs(2 * 3600);

/// How `engine serve` was started.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub host: String,
    pub port: u16,
    /// Whether the page may name players that run programs (`external`, `gomocup`).
    pub allow_external: bool,
    /// Host names the server answers for beside the loopback names and the bound address.
    pub allow_hosts: Vec<String>,
    /// The models folder: a page may name the models in it, and no other file.
    pub models: PathBuf,
}

/// The engine thinking for a tab.
struct Busy {
    since: Instant,
    spec: String,
    stop: Arc<AtomicBool>,
}

struct Slot {
    table: Option<Box<dyn Table>>,
    /// The table's state while the engine thinks with the table.
    snapshot: Value,
    busy: Option<Busy>,
    touched: Instant,
}

struct App {
    sessions: Mutex<HashMap<String, Arc<Mutex<Slot>>>>,
    /// What a page's players may do.
    policy: PlayerPolicy,
    /// The names a request's `Host` may give.
    hosts: Hosts,
}

/// A lock that survives a panic of another holder (the data stays usable: every change to a
/// slot is one assignment).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An answer with a status: JSON, or a refusal.
struct Answer(Result<Value, Refusal>);

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        match self.0 {
            Ok(v) => (StatusCode::OK, axum::Json(v)).into_response(),
            Err(r) => {
                let status =
                    StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                (status, axum::Json(json!({"error": r.message}))).into_response()
            }
        }
    }
}

impl From<Result<Value, Refusal>> for Answer {
    fn from(r: Result<Value, Refusal>) -> Answer {
        Answer(r)
    }
}

fn not_found(session: &str) -> Refusal {
    Refusal {
        status: 404,
        message: format!("no game in session '{session}': POST /api/new first"),
    }
}

/// Reads a JSON object body.
fn body(bytes: &Bytes) -> Result<serde_json::Map<String, Value>, Refusal> {
    let v: Value = serde_json::from_slice(bytes)
        .map_err(|e| Refusal::bad(format!("the body is not JSON: {e}")))?;
    match v {
        Value::Object(m) => Ok(m),
        other => Err(Refusal::bad(format!(
            "the body is a JSON object, not {other}"
        ))),
    }
}

fn text_field<'a>(
    m: &'a serde_json::Map<String, Value>,
    key: &str,
) -> Result<Option<&'a str>, Refusal> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Refusal::bad(format!("\"{key}\" is a string, not {other}"))),
    }
}

fn session_of(m: &serde_json::Map<String, Value>) -> Result<String, Refusal> {
    let s = text_field(m, "session")?
        .ok_or_else(|| Refusal::bad("the body has no \"session\" (the tab's id)"))?;
    check_session(s)
}

fn check_session(s: &str) -> Result<String, Refusal> {
    if s.is_empty()
        || s.len() > 64
        || !s
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(Refusal::bad(
            "a session id is 1 to 64 letters, digits, '-' or '_'",
        ));
    }
    Ok(s.to_string())
}

impl App {
    fn slot(&self, session: &str) -> Result<Arc<Mutex<Slot>>, Refusal> {
        let slot = lock(&self.sessions)
            .get(session)
            .cloned()
            .ok_or_else(|| not_found(session))?;
        lock(&slot).touched = Instant::now();
        Ok(slot)
    }

    /// Runs `f` on the session's table unless the engine is thinking for it.
    fn with_table<T>(
        &self,
        session: &str,
        f: impl FnOnce(&mut dyn Table) -> Result<T, Refusal>,
    ) -> Result<T, Refusal> {
        let slot = self.slot(session)?;
        let mut slot = lock(&slot);
        if slot.busy.is_some() {
            return Err(Refusal::conflict(
                "the engine is thinking: wait for its move, or POST /api/stop",
            ));
        }
        match slot.table.as_mut() {
            Some(t) => f(t.as_mut()),
            None => Err(not_found(session)),
        }
    }

    fn insert(&self, session: String, table: Box<dyn Table>) {
        let mut sessions = lock(&self.sessions);
        if let Some(old) = sessions.get(&session) {
            if let Some(busy) = &lock(old).busy {
                busy.stop.store(true, Ordering::Relaxed);
            }
        }
        let now = Instant::now();
        sessions.retain(|_, s| now.duration_since(lock(s).touched) < IDLE);
        while sessions.len() >= MAX_SESSIONS {
            let oldest = sessions
                .iter()
                .min_by_key(|(_, s)| lock(s).touched)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => {
                    if let Some(s) = sessions.remove(&k) {
                        if let Some(busy) = &lock(&s).busy {
                            busy.stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                None => break,
            }
        }
        sessions.insert(
            session,
            Arc::new(Mutex::new(Slot {
                table: Some(table),
                snapshot: Value::Null,
                busy: None,
                touched: now,
            })),
        );
    }

    fn state(&self, session: &str) -> Result<Value, Refusal> {
        let slot = self.slot(session)?;
        let slot = lock(&slot);
        let table = slot.table.as_ref();
        let mut state = match (table, &slot.busy) {
            (Some(t), _) => t.state(),
            (None, Some(_)) => slot.snapshot.clone(),
            (None, None) => return Err(not_found(session)),
        };
        state["session"] = json!(session);
        state["thinking"] = match &slot.busy {
            Some(b) => {
                let (time_ms, iterations) = budget_of(&b.spec);
                json!({
                    "by": b.spec,
                    "elapsed_ms": b.since.elapsed().as_millis() as u64,
                    "time_ms": time_ms,
                    "iterations": iterations,
                })
            }
            None => Value::Null,
        };
        Ok(state)
    }
}

/// The games and their parameters, for the page's menus.
fn games() -> Value {
    let list: Vec<Value> = GAMES
        .iter()
        .map(|e| {
            let params: Vec<Value> = e
                .params
                .iter()
                .map(|p| {
                    let (kind, values) = match p.kind {
                        ParamKind::Int { min, max } => ("int", json!({"min": min, "max": max})),
                        ParamKind::OneOf(v) => ("one_of", json!(v)),
                        ParamKind::Choice(w) => ("choice", json!(w)),
                    };
                    let default = match p.kind {
                        ParamKind::Choice(w) => json!(w[p.default as usize]),
                        _ => json!(p.default),
                    };
                    json!({"name": p.name, "kind": kind, "values": values,
                           "default": default, "help": p.help})
                })
                .collect();
            // Every kind of player the game has, as declared (the menus read these).
            let players: Vec<Value> = crate::agents::spec::EVERY_GAME
                .iter()
                .chain(e.players)
                .map(|p| {
                    let mut keys: Vec<&crate::game_spec::KeyDecl> = p.keys.iter().collect();
                    if p.kind == "mcts" {
                        keys.extend(e.search_keys);
                    }
                    let keys: Vec<Value> = keys
                        .iter()
                        .map(|k| json!({"name": k.name, "default": k.default, "help": k.help}))
                        .collect();
                    json!({"kind": p.kind, "about": p.about, "alias_of": p.alias_of, "keys": keys})
                })
                .collect();
            let search_keys: Vec<&str> = e.search_keys.iter().map(|k| k.name).collect();
            json!({"name": e.name, "about": e.about, "params": params,
                   "search_keys": search_keys, "players": players})
        })
        .collect();
    json!({"games": list, "max_threads": MAX_THREADS})
}

async fn api_games(State(app): State<Arc<App>>) -> Answer {
    let mut list = games();
    list["models"] = json!(app.policy.models.names());
    Answer(Ok(list))
}

#[derive(serde::Deserialize)]
struct SessionQuery {
    session: Option<String>,
}

fn query_session(q: &SessionQuery) -> Result<String, Refusal> {
    match &q.session {
        Some(s) => check_session(s),
        None => Err(Refusal::bad("the query has no session=ID")),
    }
}

async fn api_state(State(app): State<Arc<App>>, Query(q): Query<SessionQuery>) -> Answer {
    Answer(query_session(&q).and_then(|s| app.state(&s)))
}

/// `POST /api/new {"session", "game", "params": {...}, "players": [spec|null, spec|null],
/// "record": "..."}`.
fn new_game(app: &App, bytes: &Bytes) -> Result<Value, Refusal> {
    let m = body(bytes)?;
    let session = session_of(&m)?;
    let mut moves = Vec::new();
    let mut spec = None;
    if let Some(record) = text_field(&m, "record")? {
        let (named, list) = read_record(record).map_err(Refusal::bad)?;
        spec = named;
        moves = list;
    }
    if let Some(data) = text_field(&m, "dataset")? {
        let bytes = base64_decode(data).map_err(|e| Refusal::bad(format!("dataset: {e}")))?;
        let (named, list) = read_dataset_record(&bytes)
            .map_err(|e| Refusal::bad(format!("dataset record: {e}")))?;
        spec = Some(named);
        moves = list;
    }
    let spec = match (spec, text_field(&m, "game")?) {
        (Some(s), _) => s,
        (None, Some(name)) => {
            let mut spec = GameSpec::named(name).map_err(Refusal::bad)?;
            if let Some(params) = m.get("params") {
                let params = params
                    .as_object()
                    .ok_or_else(|| Refusal::bad("\"params\" is an object of key: value"))?;
                for (k, v) in params {
                    let text = match v {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        other => {
                            return Err(Refusal::bad(format!(
                                "parameter {k}: unexpected value {other}"
                            )))
                        }
                    };
                    spec.set(k, &text).map_err(Refusal::bad)?;
                }
            }
            spec.check().map_err(Refusal::bad)?;
            spec
        }
        (None, None) => return Err(Refusal::bad("the body names no \"game\" (nor a record)")),
    };
    let players = match m.get("players") {
        None | Some(Value::Null) => [None, None],
        Some(Value::Array(a)) if a.len() == 2 => {
            let seat = |v: &Value| match v {
                Value::Null => Ok(None),
                Value::String(s) if matches!(s.trim(), "" | "human") => Ok(None),
                Value::String(s) => app.policy.screen(s, spec.info()).map(|built| {
                    Some(SeatSpec {
                        shown: s.trim().to_string(),
                        built,
                    })
                }),
                other => Err(Refusal::bad(format!(
                    "a player is a spec string or null (a person), not {other}"
                ))),
            };
            [seat(&a[0])?, seat(&a[1])?]
        }
        Some(other) => {
            return Err(Refusal::bad(format!(
                "\"players\" is [P1, P2], each a spec string or null, not {other}"
            )))
        }
    };
    if let Some(Value::String(s)) = m.get("moves") {
        moves.extend(s.split_whitespace().map(str::to_string));
    }
    let table = new_table(NewGame {
        spec,
        players,
        moves,
    })?;
    app.insert(session.clone(), table);
    app.state(&session)
}

async fn api_new(State(app): State<Arc<App>>, bytes: Bytes) -> Answer {
    Answer(new_game(&app, &bytes))
}

async fn api_play(State(app): State<Arc<App>>, bytes: Bytes) -> Answer {
    let run = || {
        let m = body(&bytes)?;
        let session = session_of(&m)?;
        let mv = text_field(&m, "move")?.ok_or_else(|| Refusal::bad("the body has no \"move\""))?;
        app.with_table(&session, |t| {
            if t.engine_to_move().is_some() {
                return Err(Refusal::conflict(
                    "the engine is to move: POST /api/engine for its move",
                ));
            }
            t.play(mv)
        })?;
        app.state(&session)
    };
    Answer(run())
}

async fn api_undo(State(app): State<Arc<App>>, bytes: Bytes) -> Answer {
    let run = || {
        let m = body(&bytes)?;
        let session = session_of(&m)?;
        app.with_table(&session, |t| t.undo())?;
        app.state(&session)
    };
    Answer(run())
}

async fn api_legal(State(app): State<Arc<App>>, bytes: Bytes) -> Answer {
    let run = || {
        let m = body(&bytes)?;
        let session = session_of(&m)?;
        let after = text_field(&m, "after")?.unwrap_or("");
        let legal = app.with_table(&session, |t| t.legal_after(after))?;
        Ok(json!({"legal": legal}))
    };
    Answer(run())
}

async fn api_stop(State(app): State<Arc<App>>, bytes: Bytes) -> Answer {
    let run = || {
        let m = body(&bytes)?;
        let session = session_of(&m)?;
        let slot = app.slot(&session)?;
        let slot = lock(&slot);
        let stopped = match &slot.busy {
            Some(b) => {
                b.stop.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        };
        Ok(json!({"stopped": stopped}))
    };
    Answer(run())
}

async fn api_record(State(app): State<Arc<App>>, Query(q): Query<SessionQuery>) -> Response {
    let run = || {
        let session = query_session(&q)?;
        app.with_table(&session, |t| Ok(t.record()))
    };
    match run() {
        Ok(text) => (
            [
                (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"game.txt\"",
                ),
            ],
            text,
        )
            .into_response(),
        Err(r) => Answer(Err(r)).into_response(),
    }
}

async fn api_dataset(State(app): State<Arc<App>>, Query(q): Query<SessionQuery>) -> Response {
    let run = || {
        let session = query_session(&q)?;
        app.with_table(&session, |t| t.dataset_record())
    };
    match run() {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, "application/octet-stream"),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"game.rec\"",
                ),
            ],
            bytes,
        )
            .into_response(),
        Err(r) => Answer(Err(r)).into_response(),
    }
}

/// Raises the stop flag when dropped unless disarmed: the engine's request went away.
struct StopOnDrop(Option<Arc<AtomicBool>>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(flag) = self.0.take() {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// A tab whose table the engine took to think with.
struct Thinking {
    session: String,
    slot: Arc<Mutex<Slot>>,
    table: Box<dyn Table>,
    stop: Arc<AtomicBool>,
}

/// Takes the tab's table for the engine's move, marking the tab busy.
fn start_thinking(app: &App, bytes: &Bytes) -> Result<Thinking, Refusal> {
    let m = body(bytes)?;
    let session = session_of(&m)?;
    let slot_arc = app.slot(&session)?;
    let mut slot = lock(&slot_arc);
    if slot.busy.is_some() {
        return Err(Refusal::conflict("the engine is already thinking"));
    }
    let spec = match slot.table.as_ref() {
        None => return Err(not_found(&session)),
        Some(t) => t.engine_to_move().ok_or_else(|| {
            Refusal::conflict("no engine is to move (a person's turn, or the game is over)")
        })?,
    };
    let table = slot.table.take().expect("checked just above");
    slot.snapshot = table.state();
    let stop = Arc::new(AtomicBool::new(false));
    slot.busy = Some(Busy {
        since: Instant::now(),
        spec,
        stop: stop.clone(),
    });
    drop(slot);
    Ok(Thinking {
        session,
        slot: slot_arc,
        table,
        stop,
    })
}

/// `POST /api/engine {"session"}`: the engine plays the side to move (one turn).
async fn api_engine(State(app): State<Arc<App>>, bytes: Bytes) -> Answer {
    let Thinking {
        session,
        slot,
        mut table,
        stop,
    } = match start_thinking(&app, &bytes) {
        Ok(x) => x,
        Err(e) => return Answer(Err(e)),
    };
    let mut guard = StopOnDrop(Some(stop.clone()));
    let back = slot.clone();
    let task = tokio::task::spawn_blocking(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::mcts::stop::with_stop(stop, || table.engine_turn())
        }));
        let mut slot = lock(&back);
        slot.table = Some(table);
        slot.busy = None;
        slot.touched = Instant::now();
        match result {
            Ok(r) => r,
            Err(_) => Err(Refusal {
                status: 500,
                message: "the engine failed on this position (a panic; see the server's log); \
                          the game is as it was before its move"
                    .into(),
            }),
        }
    });
    let result = match task.await {
        Ok(r) => r,
        Err(e) => Err(Refusal {
            status: 500,
            message: format!("the engine's task failed: {e}"),
        }),
    };
    guard.0 = None;
    Answer(result.and_then(|_| app.state(&session)))
}

async fn page(path: &'static str, kind: &'static str) -> Response {
    let body = match path {
        "index" => INDEX_HTML,
        "app" => APP_JS,
        _ => STYLE_CSS,
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn missing() -> Answer {
    Answer(Err(Refusal {
        status: 404,
        message: "no such page or API path (the API is under /api/: games, new, state, play, \
                  engine, stop, undo, legal, record, dataset)"
            .into(),
    }))
}

/// `route` (of the one method `takes`) answering any other method with 405 and the JSON error
/// every refusal has.
fn only(takes: &'static str, route: MethodRouter<Arc<App>>) -> MethodRouter<Arc<App>> {
    route.fallback(
        move |method: axum::http::Method, uri: axum::http::Uri| async move {
            Answer(Err(Refusal {
                status: 405,
                message: format!("{} takes {takes}, not {method}", uri.path()),
            }))
        },
    )
}

/// Refuses a request whose `Host`, `Origin` or type could come from another site's page
/// (`guard::check_request`), before any handler reads it.
async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    match check_request(&app.hosts, request.method(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refusal) => Answer(Err(refusal)).into_response(),
    }
}

/// The router, for a server or a test.
fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(|| page("index", "text/html; charset=utf-8")))
        .route(
            "/app.js",
            get(|| page("app", "text/javascript; charset=utf-8")),
        )
        .route(
            "/style.css",
            get(|| page("style", "text/css; charset=utf-8")),
        )
        .route("/api/games", only("GET", get(api_games)))
        .route("/api/state", only("GET", get(api_state)))
        .route("/api/record", only("GET", get(api_record)))
        .route("/api/dataset", only("GET", get(api_dataset)))
        .route("/api/new", only("POST", post(api_new)))
        .route("/api/play", only("POST", post(api_play)))
        .route("/api/engine", only("POST", post(api_engine)))
        .route("/api/stop", only("POST", post(api_stop)))
        .route("/api/undo", only("POST", post(api_undo)))
        .route("/api/legal", only("POST", post(api_legal)))
        .fallback(missing)
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Whether `host` means every address of the machine.
fn is_unspecified(addr: &SocketAddr) -> bool {
    addr.ip().is_unspecified()
}

/// Runs the server until the process is stopped: binds, prints the address to open, serves.
pub fn run(options: ServeOptions) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async move {
        let host = options.host.trim();
        let bind = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{}", options.port)
        } else {
            format!("{host}:{}", options.port)
        };
        let listener = tokio::net::TcpListener::bind(&bind)
            .await
            .map_err(|e| format!("cannot listen on {bind}: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the address: {e}"))?;
        if is_unspecified(&addr) {
            eprintln!(
                "engine serve: warning: listening on all addresses ({addr}): anyone who can \
                 reach this machine can use the page and its engine (by the names given with \
                 --allow-host)"
            );
            println!(
                "engine serve: open http://127.0.0.1:{}/ (Ctrl-C stops)",
                addr.port()
            );
        } else {
            println!("engine serve: open http://{addr}/ (Ctrl-C stops)");
        }
        if options.allow_external {
            eprintln!(
                "engine serve: warning: --allow-external: a page on this server may run any \
                 program on this machine as you (external:, gomocup: players)"
            );
        }
        let models = ShippedModels::scan(&options.models);
        let bound = match addr {
            SocketAddr::V4(a) => a.ip().to_string(),
            SocketAddr::V6(a) => format!("[{}]", a.ip()),
        };
        let app = Arc::new(App {
            sessions: Mutex::new(HashMap::new()),
            policy: PlayerPolicy {
                allow_external: options.allow_external,
                models,
            },
            hosts: Hosts::new(&bound, addr.port(), &options.allow_hosts),
        });
        axum::serve(listener, router(app))
            .await
            .map_err(|e| format!("the server stopped: {e}"))
    })
}
