//! What keeps a web page from using `engine serve` against its user: the checks on every
//! request (its `Host`, its `Origin`, a state-changing request's type) and on every player a
//! page names (no program started without `--allow-external`, no file opened but the shipped
//! models). `docs/serve.md` ("Security") says why each exists.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use axum::http::{header, HeaderMap, Method};

use super::table::Refusal;
use crate::agents::spec::{
    declaration, expand_alias, key_value, runs_program, unknown_kind, with_keys, EVERY_GAME,
};
use crate::agents::{parse_spec, AgentSpec};
use crate::game_spec::{GameInfo, KeyDecl};

/// The names and addresses a request's `Host` may give, each with the server's port: the
/// loopback names, the bound address, and those the user named with `--allow-host`.
#[derive(Clone, Debug)]
pub struct Hosts {
    port: u16,
    names: Vec<String>,
}

impl Hosts {
    /// The hosts of a server bound to `bound` (an address as `SocketAddr` shows it) on
    /// `port`, with `extra` names the user allowed.
    pub fn new(bound: &str, port: u16, extra: &[String]) -> Hosts {
        let mut names: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        names.push(bound.to_ascii_lowercase());
        names.extend(extra.iter().map(|h| h.trim().to_ascii_lowercase()));
        Hosts { port, names }
    }

    /// Whether `host` (a `Host` header's value, `name:port`) is one of them. A browser leaves
    /// the port out only for port 80.
    fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let port = format!(":{}", self.port);
        let name = match host.strip_suffix(&port) {
            Some(name) => name,
            None if self.port == 80 && !host.ends_with(']') && !host.contains(':') => &host,
            None if self.port == 80 && host.ends_with(']') => &host,
            None => return false,
        };
        self.names.iter().any(|n| n == name)
    }
}

/// A refusal of the request as a whole (403 unless said).
fn forbidden(message: String) -> Refusal {
    Refusal {
        status: 403,
        message,
    }
}

/// Checks a request's headers before any handler reads it:
/// - its `Host` is one of the server's (a DNS-rebinding page names its own);
/// - an `Origin`, when sent, is the server's own (`http://` and an allowed host): another
///   site's page gets a 403, whatever it asks;
/// - a request that changes state (every `POST`) is `application/json`, which a page of
///   another site cannot send without a preflight that this server never grants.
pub fn check_request(hosts: &Hosts, method: &Method, headers: &HeaderMap) -> Result<(), Refusal> {
    let text = |name: header::HeaderName| {
        headers
            .get(&name)
            .map(|v| v.to_str().map(str::to_string).unwrap_or_default())
    };
    let host = text(header::HOST).unwrap_or_default();
    if !hosts.allows(&host) {
        return Err(forbidden(format!(
            "this server does not answer for host '{}': open it as http://127.0.0.1:{}/ \
             (engine serve --allow-host NAME serves another name)",
            clip(&host),
            hosts.port
        )));
    }
    if let Some(origin) = text(header::ORIGIN) {
        let own = origin
            .strip_prefix("http://")
            .is_some_and(|rest| hosts.allows(rest));
        if !own {
            return Err(forbidden(format!(
                "requests from another site's page are refused (Origin '{}')",
                clip(&origin)
            )));
        }
    }
    if method == Method::POST {
        let kind = text(header::CONTENT_TYPE).unwrap_or_default();
        let essence = kind.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("application/json") {
            return Err(Refusal {
                status: 415,
                message: format!(
                    "a POST is Content-Type: application/json, not '{}'",
                    clip(&kind)
                ),
            });
        }
    }
    Ok(())
}

/// At most 80 characters of a header's value, for a message.
fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(80).collect();
    if out.len() < text.len() {
        out.push_str("...");
    }
    out
}

/// The files a page may name: the shipped models, by name, found in the models folder when
/// the server starts. Nothing else is opened for a page.
#[derive(Clone, Debug, Default)]
pub struct ShippedModels {
    /// `dab-5x5` (a folder's `model.safetensors`), `amazons/tuned-phases.json` (a weights file).
    files: BTreeMap<String, PathBuf>,
}

impl ShippedModels {
    /// The models in `folder`: each sub-folder's `model.safetensors` by the folder's name, and
    /// each sub-folder's `.json` files (weights files, as `tune` writes them) as `FOLDER/FILE`.
    /// A folder that cannot be read gives none.
    pub fn scan(folder: &Path) -> ShippedModels {
        let mut files = BTreeMap::new();
        let Ok(entries) = std::fs::read_dir(folder) else {
            return ShippedModels::default();
        };
        for entry in entries.flatten() {
            let dir = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if !dir.is_dir() || !usable(&name) {
                continue;
            }
            let net = dir.join("model.safetensors");
            if net.is_file() {
                files.insert(name.clone(), net);
            }
            for file in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = file.path();
                let Some(file_name) = file.file_name().to_str().map(str::to_string) else {
                    continue;
                };
                let weights = path.extension().is_some_and(|e| e == "json");
                if weights && path.is_file() && usable(&file_name) {
                    files.insert(format!("{name}/{file_name}"), path);
                }
            }
        }
        ShippedModels { files }
    }

    /// The names a page may give, in order.
    pub fn names(&self) -> Vec<&str> {
        self.files.keys().map(String::as_str).collect()
    }

    fn path(&self, name: &str) -> Option<&Path> {
        self.files.get(name).map(PathBuf::as_path)
    }
}

/// A name that a spec's value can carry as it is (no quote, comma or space).
fn usable(name: &str) -> bool {
    !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// What the server lets a page's players do.
#[derive(Clone, Debug)]
pub struct PlayerPolicy {
    pub allow_external: bool,
    pub models: ShippedModels,
}

/// Whether `key` names a file in `game`, and if so the words it takes in place of one: those
/// every declaration of a file key of that name has, among every kind of `game` (the kinds
/// every game has, the game's own, and its search's keys). A key is judged by its name over the
/// whole game, so that a kind passing its keys on to another (`paper` to `nn`) is covered.
fn file_words(game: &GameInfo, key: &str) -> Option<Vec<&'static str>> {
    let decls: Vec<&KeyDecl> = EVERY_GAME
        .iter()
        .chain(game.players)
        .flat_map(|p| p.keys.iter())
        .chain(game.search_keys)
        .filter(|k| k.name == key && k.names_file.is_some())
        .collect();
    let first = decls.first()?.names_file.unwrap_or(&[]);
    let common = |w: &&&str| {
        decls
            .iter()
            .all(|d| d.names_file.unwrap_or(&[]).contains(w))
    };
    Some(first.iter().filter(common).copied().collect())
}

impl PlayerPolicy {
    /// Checks a player spec a page sent for `game`, and returns the spec to build: the same,
    /// with a shipped model's name read as its file. Refused: a kind that runs a program
    /// (unless `--allow-external`), a kind the game does not declare, and a key naming a file
    /// that is not `product`, `none` (where the key takes them) or a shipped model. The
    /// refusal names the shipped models and says nothing of the file the page named.
    pub fn screen(&self, text: &str, game: &GameInfo) -> Result<String, Refusal> {
        let text = text.trim();
        let spec = parse_spec(text).map_err(Refusal::bad)?;
        if let AgentSpec::Game { kind, .. } = &spec {
            if declaration(kind, game.players).is_none() {
                return Err(Refusal::bad(unknown_kind(
                    text,
                    kind,
                    game.name,
                    game.players,
                )));
            }
        }
        if runs_program(&spec, game.players) && !self.allow_external {
            return Err(Refusal::bad(format!(
                "player '{text}': it runs a program on this machine, which the server does \
                 for a page only when started with --allow-external"
            )));
        }
        let expanded = expand_alias(&spec, game.players)
            .map_err(Refusal::bad)?
            .unwrap_or(spec);
        let keys = match &expanded {
            AgentSpec::Game { keys, .. } => keys.clone(),
            AgentSpec::Mcts { game_keys, .. } => game_keys.clone(),
            AgentSpec::External(_) | AgentSpec::Random { .. } => Vec::new(),
        };
        let mut rewritten = Vec::new();
        for (key, value) in &keys {
            let Some(words) = file_words(game, key) else {
                continue;
            };
            if words.contains(&value.as_str()) {
                continue;
            }
            match self.models.path(value) {
                Some(path) => rewritten.push(key_value(key, &path.display().to_string())),
                None => {
                    let names = self.models.names();
                    let shipped = if names.is_empty() {
                        "none in the server's models folder".to_string()
                    } else {
                        names.join(", ")
                    };
                    let words = if words.is_empty() {
                        String::new()
                    } else {
                        format!("{} or ", words.join(", "))
                    };
                    return Err(Refusal::bad(format!(
                        "player '{text}': {key} names a file, and from the page it takes only \
                         {words}a shipped model's name ({shipped}); the server opens no other file"
                    )));
                }
            }
        }
        Ok(if rewritten.is_empty() {
            text.to_string()
        } else {
            with_keys(text, &rewritten)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn hosts_are_the_loopback_names_the_bound_address_and_those_allowed() {
        let hosts = Hosts::new("127.0.0.1", 8080, &["Box.lan".to_string()]);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
            "box.lan:8080",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for no in [
            "evil.example:8080",
            "127.0.0.1:8081",
            "127.0.0.1",
            "localhost.evil.example:8080",
            "",
            "127.0.0.1:8080.evil",
        ] {
            assert!(!hosts.allows(no), "{no}");
        }
        let on_80 = Hosts::new("127.0.0.1", 80, &[]);
        assert!(on_80.allows("localhost") && on_80.allows("[::1]") && on_80.allows("localhost:80"));
    }

    #[test]
    fn a_foreign_origin_or_host_is_403_and_a_post_must_be_json() {
        let hosts = Hosts::new("127.0.0.1", 9000, &[]);
        let json = "application/json";
        let own = headers(&[
            (header::HOST, "127.0.0.1:9000"),
            (header::ORIGIN, "http://127.0.0.1:9000"),
            (header::CONTENT_TYPE, "application/json; charset=utf-8"),
        ]);
        assert!(check_request(&hosts, &Method::POST, &own).is_ok());
        let no_origin = headers(&[
            (header::HOST, "localhost:9000"),
            (header::CONTENT_TYPE, json),
        ]);
        assert!(check_request(&hosts, &Method::POST, &no_origin).is_ok());
        let cases = [
            (
                Method::POST,
                headers(&[
                    (header::HOST, "127.0.0.1:9000"),
                    (header::ORIGIN, "http://evil.example"),
                    (header::CONTENT_TYPE, json),
                ]),
                403,
            ),
            (
                Method::GET,
                headers(&[(header::HOST, "127.0.0.1:9000"), (header::ORIGIN, "null")]),
                403,
            ),
            (
                Method::GET,
                headers(&[(header::HOST, "evil.example:9000")]),
                403,
            ),
            (Method::GET, headers(&[]), 403),
            (
                Method::POST,
                headers(&[
                    (header::HOST, "127.0.0.1:9000"),
                    (header::CONTENT_TYPE, "text/plain"),
                ]),
                415,
            ),
            (
                Method::POST,
                headers(&[(header::HOST, "127.0.0.1:9000")]),
                415,
            ),
        ];
        for (method, h, status) in cases {
            let r = check_request(&hosts, &method, &h).expect_err("refused");
            assert_eq!(r.status, status, "{h:?}: {}", r.message);
        }
    }

    #[test]
    fn shipped_names_are_plain_words() {
        assert!(usable("dab-5x5") && usable("tuned-phases.json"));
        assert!(!usable("..") && !usable("a,b") && !usable("a b") && !usable(".hidden"));
    }
}
