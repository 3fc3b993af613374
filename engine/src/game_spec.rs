//! What a game is called and which parameters it takes ([`GameInfo`], declared by each game),
//! and a game with its parameter values ([`GameSpec`]: what a dataset, a model and a match are
//! about).
//!
//! This layer knows no game: a spec is built from the [`GameInfo`] of its own game, or read by
//! name from a list of them. The registry (`crate::registry`) holds the list of every game and
//! reads specs by name for the layers above it; a layer below it that reads a spec from a file
//! names the games it accepts ([`GameSpec::from_json_in`]).

use std::fmt;

use serde::{Serialize, Serializer};

/// Parameters a game can take at most.
pub const MAX_PARAMS: usize = 4;

/// The values a parameter may take.
#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    /// A whole number in `min..=max`.
    Int { min: i64, max: i64 },
    /// One of these numbers.
    OneOf(&'static [i64]),
    /// One of these words (stored as its index).
    Choice(&'static [&'static str]),
}

/// One parameter of a game, as `game NAME key=value` and `--param key=value` read it.
#[derive(Clone, Copy, Debug)]
pub struct ParamDecl {
    pub name: &'static str,
    pub kind: ParamKind,
    /// The default value (the index of the word for a [`ParamKind::Choice`]).
    pub default: i64,
    pub help: &'static str,
}

impl ParamDecl {
    /// Reads a value given as text, checking it against the kind.
    fn read(&self, game: &str, text: &str) -> Result<i64, String> {
        let text = text.trim();
        match self.kind {
            ParamKind::Choice(words) => words
                .iter()
                .position(|w| w.eq_ignore_ascii_case(text))
                .map(|i| i as i64)
                .ok_or_else(|| {
                    format!(
                        "{game} parameter {} is one of {}, not '{text}'",
                        self.name,
                        words.join(", ")
                    )
                }),
            _ => {
                let v: i64 = text.parse().map_err(|_| {
                    format!(
                        "{game} parameter {} must be a whole number, got '{text}'",
                        self.name
                    )
                })?;
                self.check(game, v)?;
                Ok(v)
            }
        }
    }

    fn check(&self, game: &str, v: i64) -> Result<(), String> {
        let ok = match self.kind {
            ParamKind::Int { min, max } => (min..=max).contains(&v),
            ParamKind::OneOf(values) => values.contains(&v),
            ParamKind::Choice(words) => (0..words.len() as i64).contains(&v),
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{game} parameter {} is {}, not {v}",
                self.name,
                self.allowed()
            ))
        }
    }

    /// The allowed values in words.
    pub fn allowed(&self) -> String {
        match self.kind {
            ParamKind::Int { min, max } => format!("{min} to {max}"),
            ParamKind::OneOf(values) => values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" or "),
            ParamKind::Choice(words) => words.join(" or "),
        }
    }

    /// A value as written in `key=value` and in JSON.
    pub fn show(&self, v: i64) -> String {
        match self.kind {
            ParamKind::Choice(words) => words[v as usize].to_string(),
            _ => v.to_string(),
        }
    }
}

/// A key of a player kind: its name, its default as written (empty: none) and what it does.
#[derive(Clone, Copy, Debug)]
pub struct KeyDecl {
    pub name: &'static str,
    pub default: &'static str,
    pub help: &'static str,
    /// `Some(words)` when the value names a file the player reads (a net, a weights file),
    /// unless it is one of `words` (`product`, `none`), which open no file of the user's.
    /// `engine serve` takes only those words and the shipped models' names from a page.
    pub names_file: Option<&'static [&'static str]>,
}

/// A kind of player a spec names (`KIND:key=value,...`), as `engine players` lists it and the
/// spec parser reads it.
#[derive(Clone, Copy, Debug)]
pub struct PlayerDecl {
    pub kind: &'static str,
    /// One line: what it is and what it is for.
    pub about: &'static str,
    /// A named player (`best`, `paper`): the spec it stands for; keys given after the name are
    /// added to it (`best:time_ms=300`).
    pub alias_of: Option<&'static str>,
    /// Whether it runs a program on this machine (`external`, `gomocup`): `engine serve`
    /// refuses such a player from a page unless started with `--allow-external`.
    pub runs_program: bool,
    /// Its own keys (beside the keys every search shares, for a search).
    pub keys: &'static [KeyDecl],
}

/// The keys of `first`, then those of `then`, as one table of `N` (a table of one kind's keys
/// built from others' whole, so that a key added to either is never left out). A length that
/// is not the sum fails the build.
pub const fn joined_keys<const N: usize>(first: &[KeyDecl], then: &[KeyDecl]) -> [KeyDecl; N] {
    assert!(
        first.len() + then.len() == N,
        "the joined table's length is not the sum of its parts"
    );
    let mut out = [key("", "", ""); N];
    let mut i = 0;
    while i < N {
        out[i] = if i < first.len() {
            first[i]
        } else {
            then[i - first.len()]
        };
        i += 1;
    }
    out
}

/// A [`KeyDecl`], as the declarations' tables write one.
pub const fn key(name: &'static str, default: &'static str, help: &'static str) -> KeyDecl {
    KeyDecl {
        name,
        default,
        help,
        names_file: None,
    }
}

/// A [`KeyDecl`] whose value names a file the player reads, or is one of `words`.
pub const fn file_key(
    name: &'static str,
    default: &'static str,
    help: &'static str,
    words: &'static [&'static str],
) -> KeyDecl {
    KeyDecl {
        names_file: Some(words),
        ..key(name, default, help)
    }
}

impl PlayerDecl {
    /// The key `name` of this kind, if it has one.
    pub fn key(&self, name: &str) -> Option<&'static KeyDecl> {
        self.keys.iter().find(|k| k.name == name)
    }
}

/// What a game declares of itself: its names, its parameters, and how to check a set of
/// parameter values (by building the start position).
#[derive(Debug)]
pub struct GameInfo {
    /// The canonical name, as the CLI, the protocol and datasets write it.
    pub name: &'static str,
    /// Other accepted spellings.
    pub aliases: &'static [&'static str],
    /// One line on the game.
    pub about: &'static str,
    /// The parameters, in the order a [`GameSpec`] keeps them.
    pub params: &'static [ParamDecl],
    /// Keys an `mcts` player spec reads for this game's own search (other games refuse them).
    pub search_keys: &'static [KeyDecl],
    /// The game's own kinds of player, its `best` and `paper` among them.
    pub players: &'static [PlayerDecl],
    /// Whether these parameter values (in `params` order) make a game.
    pub check: fn(&[i64]) -> Result<(), String>,
    /// A short form for people (`dots_and_boxes 5x5`); by default the canonical text.
    pub short: Option<fn(&[i64]) -> String>,
}

/// A game and its parameter values: what a dataset, a model and a match are about.
///
/// Serialised as one JSON object, the name then the parameters in their declared order:
/// `{"game": "dots_and_boxes", "rows": 5, "cols": 5}`, `{"game": "tictactoe"}`,
/// `{"game": "amazons", "size": 10, "turn": "split"}`.
#[derive(Clone, Copy)]
pub struct GameSpec {
    info: &'static GameInfo,
    values: [i64; MAX_PARAMS],
}

impl PartialEq for GameSpec {
    fn eq(&self, other: &GameSpec) -> bool {
        self.info.name == other.info.name && self.values == other.values
    }
}

impl Eq for GameSpec {}

impl std::hash::Hash for GameSpec {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.info.name.hash(state);
        self.values.hash(state);
    }
}

impl GameSpec {
    /// The game of `info` with its default parameters.
    pub fn defaults(info: &'static GameInfo) -> GameSpec {
        let mut values = [0; MAX_PARAMS];
        for (v, p) in values.iter_mut().zip(info.params) {
            *v = p.default;
        }
        GameSpec { info, values }
    }

    /// The game of `info` with these parameter values (in declared order), checked.
    pub fn with_values(info: &'static GameInfo, values: &[i64]) -> Result<GameSpec, String> {
        let mut spec = GameSpec::defaults(info);
        for ((slot, v), p) in spec.values.iter_mut().zip(values).zip(info.params) {
            p.check(info.name, *v)?;
            *slot = *v;
        }
        spec.check()?;
        Ok(spec)
    }

    /// The spec of a game built from these parameter values (not checked again: a game's own
    /// `spec()`).
    pub fn of_game(info: &'static GameInfo, values: &[i64]) -> GameSpec {
        let mut spec = GameSpec::defaults(info);
        for (slot, v) in spec.values.iter_mut().zip(values) {
            *slot = *v;
        }
        spec
    }

    /// The game `name` (or an alias) among `games`, with its default parameters.
    pub fn named_in(games: &[&'static GameInfo], name: &str) -> Result<GameSpec, String> {
        let wanted = name.trim().replace('-', "_").to_ascii_lowercase();
        let info = games
            .iter()
            .find(|e| e.name == wanted || e.aliases.contains(&wanted.as_str()))
            .ok_or_else(|| {
                let names: Vec<&str> = games.iter().map(|g| g.name).collect();
                format!(
                    "unknown game '{}' (known: {})",
                    name.trim(),
                    names.join(", ")
                )
            })?;
        Ok(GameSpec::defaults(info))
    }

    /// The game `name` among `games` with parameters given as `key=value` words; the result
    /// is checked by building the game's start position.
    pub fn parse_in<S: AsRef<str>>(
        games: &[&'static GameInfo],
        name: &str,
        params: &[S],
    ) -> Result<GameSpec, String> {
        let mut spec = GameSpec::named_in(games, name)?;
        let mut seen: Vec<&str> = Vec::new();
        for param in params {
            let param = param.as_ref();
            let (key, value) = param
                .split_once('=')
                .ok_or_else(|| format!("parameter '{param}' is not key=value"))?;
            let key = key.trim();
            if seen.contains(&key) {
                return Err(format!("game parameter {key} is given twice"));
            }
            seen.push(key);
            spec.set(key, value)?;
        }
        spec.check()?;
        Ok(spec)
    }

    /// Reads the JSON object [`Serialize`] writes, for one of `games`; unknown keys are refused
    /// by name.
    pub fn from_json_in(
        games: &[&'static GameInfo],
        value: &serde_json::Value,
    ) -> Result<GameSpec, String> {
        let object = value
            .as_object()
            .ok_or_else(|| format!("a game is a JSON object, not {value}"))?;
        let name = object
            .get("game")
            .and_then(|v| v.as_str())
            .ok_or_else(|| "the game object has no \"game\" name".to_string())?;
        let mut spec = GameSpec::named_in(games, name)?;
        for (key, v) in object {
            if key == "game" {
                continue;
            }
            let text = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                other => return Err(format!("parameter {key}: unexpected value {other}")),
            };
            spec.set(key, &text)?;
        }
        spec.check()?;
        Ok(spec)
    }

    /// Sets one parameter from its text.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let info = self.info;
        let index = info
            .params
            .iter()
            .position(|p| p.name == key)
            .ok_or_else(|| self.no_such_param(key))?;
        self.values[index] = info.params[index].read(info.name, value)?;
        Ok(())
    }

    fn no_such_param(&self, key: &str) -> String {
        let info = self.info;
        if info.params.is_empty() {
            format!("{} takes no parameter '{key}'", info.name)
        } else {
            let names: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            format!(
                "{} has the parameters {}, not '{key}'",
                info.name,
                names.join(", ")
            )
        }
    }

    /// Whether the parameters make a game (builds its start position).
    pub fn check(&self) -> Result<(), String> {
        (self.info.check)(self.values())
    }

    /// What the game declares of itself.
    pub fn info(&self) -> &'static GameInfo {
        self.info
    }

    /// The canonical game name.
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    /// The value of parameter `key` (a word's index for a choice), if the game has it.
    pub fn get(&self, key: &str) -> Option<i64> {
        let i = self.info.params.iter().position(|p| p.name == key)?;
        Some(self.values[i])
    }

    /// The parameter values in their declared order.
    pub fn values(&self) -> &[i64] {
        &self.values[..self.info.params.len()]
    }

    /// `(name, value as written)` for every parameter.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        self.info
            .params
            .iter()
            .zip(self.values)
            .map(|(p, v)| (p.name, p.show(v)))
            .collect()
    }

    /// How the protocol's `game` command answers: `dots_and_boxes rows=5 cols=5`, `tictactoe`.
    pub fn canonical(&self) -> String {
        let mut out = self.name().to_string();
        for (k, v) in self.params() {
            out.push_str(&format!(" {k}={v}"));
        }
        out
    }
}

impl fmt::Display for GameSpec {
    /// The game's short form (`dots_and_boxes 5x5`), else its canonical text (`tictactoe`,
    /// `amazons size=10 turn=split`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.info.short {
            Some(short) => f.write_str(&short(self.values())),
            None => f.write_str(&self.canonical()),
        }
    }
}

impl fmt::Debug for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GameSpec({})", self.canonical())
    }
}

impl Serialize for GameSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let info = self.info;
        let mut map = serializer.serialize_map(Some(1 + info.params.len()))?;
        map.serialize_entry("game", info.name)?;
        for (p, &v) in info.params.iter().zip(&self.values) {
            match p.kind {
                ParamKind::Choice(words) => map.serialize_entry(p.name, words[v as usize])?,
                _ => map.serialize_entry(p.name, &v)?,
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_parameter_given_twice_is_refused() {
        use crate::registry::Lookup;
        for err in [
            GameSpec::parse("gomoku", &["size=15", "size=9"]).unwrap_err(),
            GameSpec::from_text("gomoku:size=15,size=15").unwrap_err(),
        ] {
            assert_eq!(err, "game parameter size is given twice");
        }
    }

    use super::*;

    #[test]
    fn joined_keys_keep_both_tables_in_order() {
        const FIRST: [KeyDecl; 2] = [key("a", "1", "first"), key("b", "", "second")];
        const THEN: [KeyDecl; 1] = [key("c", "x", "third")];
        const BOTH: [KeyDecl; 3] = joined_keys(&FIRST, &THEN);
        let names: Vec<&str> = BOTH.iter().map(|k| k.name).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!((BOTH[2].default, BOTH[2].help), ("x", "third"));
    }
}
