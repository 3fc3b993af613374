//! The registry: every game the engine hosts, by name, with typed parameters, and the one
//! generic dispatch every command goes through (in the spirit of OpenSpiel's registry).
//!
//! A game is a type implementing [`RegisteredGame`] (its name, its parameters, its start
//! position, what the protocol and the commands need of it) plus one line in [`registry!`] at the
//! bottom of this file. A command is written once, generically, as a [`GameVisitor`]; a
//! [`GameSpec`] (a game name and parameter values, as datasets, models and matches record it)
//! calls the visitor with the game's start position and its concrete type.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::agents::{Agent, AgentSpec};
use crate::bench::BenchOptions;
use crate::game::{Action, Game};
use crate::mcts::{RolloutPolicy, Search, SearchConfig, SearchResult, Ucb};
use crate::protocol::settings::Settings;

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
    fn show(&self, v: i64) -> String {
        match self.kind {
            ParamKind::Choice(words) => words[v as usize].to_string(),
            _ => v.to_string(),
        }
    }
}

/// What the registry knows of one game without its type.
pub struct Entry {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub about: &'static str,
    pub params: &'static [ParamDecl],
    pub search_keys: &'static [&'static str],
}

/// A game and its parameter values: what a dataset, a model and a match are about.
///
/// Serialised as one JSON object, the name then the parameters in their declared order:
/// `{"game": "dots_and_boxes", "rows": 5, "cols": 5}`, `{"game": "tictactoe"}`,
/// `{"game": "amazons", "size": 10, "turn": "split"}`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameSpec {
    entry: usize,
    values: [i64; MAX_PARAMS],
}

impl GameSpec {
    /// The game `name` (or an alias) with its default parameters.
    pub fn named(name: &str) -> Result<GameSpec, String> {
        let wanted = name.trim().replace('-', "_").to_ascii_lowercase();
        let entry = ENTRIES
            .iter()
            .position(|e| e.name == wanted || e.aliases.contains(&wanted.as_str()))
            .ok_or_else(|| {
                format!(
                    "unknown game '{}' (known: {})",
                    name.trim(),
                    game_names().join(", ")
                )
            })?;
        let mut values = [0; MAX_PARAMS];
        for (v, p) in values.iter_mut().zip(ENTRIES[entry].params) {
            *v = p.default;
        }
        Ok(GameSpec { entry, values })
    }

    /// The game `name` with parameters given as `key=value` words; the result is checked by
    /// building the game's start position.
    pub fn parse<S: AsRef<str>>(name: &str, params: &[S]) -> Result<GameSpec, String> {
        let mut spec = GameSpec::named(name)?;
        for param in params {
            let param = param.as_ref();
            let (key, value) = param
                .split_once('=')
                .ok_or_else(|| format!("parameter '{param}' is not key=value"))?;
            spec.set(key.trim(), value)?;
        }
        spec.check()?;
        Ok(spec)
    }

    /// Parses `NAME` or `NAME:key=value,key=value` (the form of command-line flags).
    pub fn from_text(text: &str) -> Result<GameSpec, String> {
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let params: Vec<&str> = rest.split(',').filter(|p| !p.trim().is_empty()).collect();
        GameSpec::parse(name, &params)
    }

    /// Sets one parameter from its text.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let entry = self.entry();
        let index = entry
            .params
            .iter()
            .position(|p| p.name == key)
            .ok_or_else(|| self.no_such_param(key))?;
        self.values[index] = entry.params[index].read(entry.name, value)?;
        Ok(())
    }

    fn no_such_param(&self, key: &str) -> String {
        let entry = self.entry();
        if entry.params.is_empty() {
            format!("{} takes no parameter '{key}'", entry.name)
        } else {
            let names: Vec<&str> = entry.params.iter().map(|p| p.name).collect();
            format!(
                "{} has the parameters {}, not '{key}'",
                entry.name,
                names.join(", ")
            )
        }
    }

    /// Whether the parameters make a game (builds its start position).
    pub fn check(&self) -> Result<(), String> {
        struct Check;
        impl GameVisitor for Check {
            type Output = ();
            fn visit<G: RegisteredGame>(self, _: G) {}
        }
        self.visit(Check)
    }

    fn entry(&self) -> &'static Entry {
        &ENTRIES[self.entry]
    }

    /// The canonical game name.
    pub fn name(&self) -> &'static str {
        self.entry().name
    }

    /// The value of parameter `key` (a word's index for a choice), if the game has it.
    pub fn get(&self, key: &str) -> Option<i64> {
        let i = self.entry().params.iter().position(|p| p.name == key)?;
        Some(self.values[i])
    }

    /// The parameter values in their declared order.
    pub fn values(&self) -> &[i64] {
        &self.values[..self.entry().params.len()]
    }

    /// `(name, value as written)` for every parameter.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        self.entry()
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

    /// Dots and Boxes of `rows` x `cols` boxes (checked).
    pub fn dots_and_boxes(rows: usize, cols: usize) -> Result<GameSpec, String> {
        GameSpec::parse(
            "dots_and_boxes",
            &[format!("rows={rows}"), format!("cols={cols}")],
        )
    }

    /// Whether this is Dots and Boxes.
    pub fn is_dots_and_boxes(&self) -> bool {
        self.name() == "dots_and_boxes"
    }

    /// Calls `visitor` with the start position of this game, as its own type.
    pub fn visit<V: GameVisitor>(&self, visitor: V) -> Result<V::Output, String> {
        dispatch(self, visitor)
    }

    /// The start position as a concrete type, when this spec is that game.
    pub fn start<G: RegisteredGame>(&self) -> Result<G, String> {
        if self.name() != G::NAME {
            return Err(format!("expected {}, found {self}", G::NAME));
        }
        G::from_spec(self)
    }
}

impl fmt::Display for GameSpec {
    /// `dots_and_boxes 5x5`, `tictactoe`, `amazons size=10 turn=split`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_dots_and_boxes() {
            return write!(f, "dots_and_boxes {}x{}", self.values[0], self.values[1]);
        }
        f.write_str(&self.canonical())
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
        let entry = self.entry();
        let mut map = serializer.serialize_map(Some(1 + entry.params.len()))?;
        map.serialize_entry("game", entry.name)?;
        for (p, &v) in entry.params.iter().zip(&self.values) {
            match p.kind {
                ParamKind::Choice(words) => map.serialize_entry(p.name, words[v as usize])?,
                _ => map.serialize_entry(p.name, &v)?,
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for GameSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<GameSpec, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(deserializer)?;
        GameSpec::from_json(&value).map_err(D::Error::custom)
    }
}

impl GameSpec {
    /// Reads the JSON object [`Serialize`] writes; unknown keys are refused by name.
    pub fn from_json(value: &serde_json::Value) -> Result<GameSpec, String> {
        let object = value
            .as_object()
            .ok_or_else(|| format!("a game is a JSON object, not {value}"))?;
        let name = object
            .get("game")
            .and_then(|v| v.as_str())
            .ok_or_else(|| "the game object has no \"game\" name".to_string())?;
        let mut spec = GameSpec::named(name)?;
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
}

/// What the engine's own search found for a position (the protocol's `genmove`, `engine play`
/// and `engine analyse` print it).
pub struct Searched {
    /// The move, and when the search saw the rest of the player's turn (an Amazons arrow after
    /// the queen move), the plies after it.
    pub plies: Vec<Action>,
    /// The search behind the move; `None` when knowledge answered without one.
    pub result: Option<SearchResult>,
    /// How the move was found when not by the search (a free capture, the solver).
    pub note: Option<String>,
}

impl Searched {
    /// The search's move, one ply, with the search behind it.
    pub fn from_result(result: SearchResult) -> Searched {
        Searched {
            plies: vec![result.best],
            result: Some(result),
            note: None,
        }
    }
}

/// Everything the commands need of one game. Implemented in the game's own folder.
pub trait RegisteredGame: Game + Sized {
    /// The canonical name, as the CLI, the protocol and datasets write it.
    const NAME: &'static str;
    /// Other accepted spellings.
    const ALIASES: &'static [&'static str] = &[];
    /// One line on the game.
    const ABOUT: &'static str;
    /// The parameters, in the order `GameSpec` keeps them.
    const PARAMS: &'static [ParamDecl] = &[];
    /// Keys an `mcts` player spec reads for this game's own search (other games refuse them);
    /// [`build_player`](Self::build_player) reads them.
    const SEARCH_KEYS: &'static [&'static str] = &[];

    /// The start position for these parameter values (in `PARAMS` order).
    fn from_params(values: &[i64]) -> Result<Self, String>;

    /// The parameter values of this position's game.
    fn param_values(&self) -> Vec<i64>;

    /// The start position of `spec`'s game.
    fn from_spec(spec: &GameSpec) -> Result<Self, String> {
        Self::from_params(spec.values())
    }

    /// The spec of this position's game.
    fn spec(&self) -> GameSpec {
        let mut spec = GameSpec::named(Self::NAME).expect("a registered game");
        for (slot, v) in spec.values.iter_mut().zip(self.param_values()) {
            *slot = v;
        }
        spec
    }

    /// The rollout the engine's own search uses by default (self-play, the protocol, `play`,
    /// `analyse`): random playouts, or a game's cut-off by its evaluation.
    type Rollout: RolloutPolicy<Self> + Default + 'static;

    /// The position `set_position` describes (same game and parameters as `self`).
    fn parse_position(&self, args: &[&str]) -> Result<Self, String>;

    /// The position as `set_position` arguments.
    fn position_text(&self) -> String;

    /// What a game keeps from move to move to choose its moves (a solver's table).
    type Memory: Default + Send;

    /// The engine's move for this position, with the protocol's settings (the net and the
    /// knowledge where the game has them). By default: MCTS with the game's rollout.
    fn engine_search(
        &self,
        _settings: &Settings,
        config: SearchConfig,
        _memory: &mut Self::Memory,
    ) -> Result<Searched, String> {
        let cp = config.cp;
        let result = Search::new(config, Ucb::new(cp), Self::Rollout::default())
            .run(self)
            .map_err(|e| e.to_string())?;
        Ok(Searched::from_result(result))
    }

    /// A player of this game from a spec string's parse (games add their own kinds).
    fn build_player(spec: &AgentSpec, start: &Self) -> Result<Box<dyn Agent<Self>>, String> {
        spec.build::<Self>(start.spec())
    }

    /// Leaves of the move tree `depth` deep (`engine perft`): by default plies, bulk-counted at
    /// the last level. Amazons counts whole turns whatever its turn shape.
    fn perft(&self, depth: u32) -> u64 {
        fn count<G: Game>(state: &G, depth: u32, buf: &mut Vec<Vec<Action>>) -> u64 {
            if depth == 0 || state.is_terminal() {
                return u64::from(depth == 0);
            }
            let level = depth as usize;
            let mut actions = std::mem::take(&mut buf[level]);
            state.legal_actions(&mut actions);
            let total = if depth == 1 {
                actions.len() as u64
            } else {
                actions
                    .iter()
                    .map(|&a| {
                        let mut next = state.clone();
                        next.apply(a);
                        count(&next, depth - 1, buf)
                    })
                    .sum()
            };
            buf[level] = actions;
            total
        }
        let mut buf = vec![Vec::new(); depth as usize + 1];
        count(self, depth, &mut buf)
    }

    /// Perfect moves for late positions (self-play's `solver_edges`: Dots and Boxes' exact
    /// endgame solver once `free` or fewer edges are free); by default none.
    fn endgame_oracle(&self, _free: u32) -> Box<Oracle<Self>> {
        Box::new(|_| None)
    }

    /// The figures `engine bench --game NAME` prints: `(label, value, unit)`.
    fn bench(start: &Self, options: &BenchOptions) -> Result<Vec<crate::bench::Figure>, String> {
        Ok(crate::bench::generic_figures(start, options))
    }
}

/// A source of perfect moves for late positions (`None` where it has none).
pub type Oracle<G> = dyn FnMut(&G) -> Option<Action> + Send;

/// A command written once for every game: called with the start position as its own type.
pub trait GameVisitor {
    type Output;
    fn visit<G: RegisteredGame>(self, start: G) -> Self::Output;
}

/// The registry: one line a game.
macro_rules! registry {
    ($($game:ty),* $(,)?) => {
        /// Every registered game.
        pub static ENTRIES: &[Entry] = &[$(Entry {
            name: <$game as RegisteredGame>::NAME,
            aliases: <$game as RegisteredGame>::ALIASES,
            about: <$game as RegisteredGame>::ABOUT,
            params: <$game as RegisteredGame>::PARAMS,
            search_keys: <$game as RegisteredGame>::SEARCH_KEYS,
        }),*];

        fn dispatch<V: GameVisitor>(spec: &GameSpec, visitor: V) -> Result<V::Output, String> {
            $(
                if spec.name() == <$game as RegisteredGame>::NAME {
                    let start = <$game as RegisteredGame>::from_spec(spec)?;
                    return Ok(visitor.visit(start));
                }
            )*
            unreachable!("a GameSpec names a registered game")
        }
    };
}

registry! {
    super::DotsAndBoxes,
    super::TicTacToe,
    super::Amazons,
    super::Surakarta,
    super::Gomoku,
}

/// The game whose search reads the `mcts` key `key`, if any does.
pub fn search_key_owner(key: &str) -> Option<&'static str> {
    ENTRIES
        .iter()
        .find(|e| e.search_keys.contains(&key))
        .map(|e| e.name)
}

/// The canonical names of all games.
pub fn game_names() -> Vec<&'static str> {
    ENTRIES.iter().map(|e| e.name).collect()
}

/// Every game with its parameters, for `--help` texts and the protocol.
pub fn describe_games() -> String {
    ENTRIES
        .iter()
        .map(|e| {
            let params: Vec<String> = e
                .params
                .iter()
                .map(|p| {
                    format!(
                        "{}={} ({}; {})",
                        p.name,
                        p.show(p.default),
                        p.allowed(),
                        p.help
                    )
                })
                .collect();
            if params.is_empty() {
                format!("{}: {}", e.name, e.about)
            } else {
                format!("{}: {} Parameters: {}", e.name, e.about, params.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_write_and_refuse_by_name() {
        let d = GameSpec::parse("dots-and-boxes", &["rows=3", "cols=4"]).unwrap();
        assert_eq!(d.to_string(), "dots_and_boxes 3x4");
        assert_eq!(d.canonical(), "dots_and_boxes rows=3 cols=4");
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(json, r#"{"game":"dots_and_boxes","rows":3,"cols":4}"#);
        let back: GameSpec = serde_json::from_str(&json).unwrap();
        assert_eq!(back, d);
        let t: GameSpec = serde_json::from_str(r#"{"game":"tictactoe"}"#).unwrap();
        assert_eq!(t.canonical(), "tictactoe");
        let a = GameSpec::from_text("amazons:size=8,turn=whole").unwrap();
        assert_eq!(a.canonical(), "amazons size=8 turn=whole");
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"{"game":"amazons","size":8,"turn":"whole"}"#);
        assert_eq!(serde_json::from_str::<GameSpec>(&json).unwrap(), a);
        for (bad, says) in [
            ("chess", "unknown game 'chess'"),
            ("amazons:size=9", "size is 10 or 8 or 6, not 9"),
            ("amazons:turn=half", "turn is one of split, whole"),
            (
                "amazons:rows=3",
                "amazons has the parameters size, turn, not 'rows'",
            ),
            ("tictactoe:rows=3", "tictactoe takes no parameter 'rows'"),
            ("dots_and_boxes:rows=9", "rows"),
            ("amazons:size", "not key=value"),
        ] {
            let e = GameSpec::from_text(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let e = serde_json::from_str::<GameSpec>(r#"{"game":"amazons","depth":3}"#).unwrap_err();
        assert!(e.to_string().contains("'depth'"), "{e}");
    }

    #[test]
    fn every_game_round_trips_through_its_spec() {
        struct Name;
        impl GameVisitor for Name {
            type Output = (&'static str, GameSpec);
            fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
                (start.name(), start.spec())
            }
        }
        for name in game_names() {
            let spec = GameSpec::named(name).unwrap();
            let (game_name, back) = spec.visit(Name).unwrap();
            assert_eq!(game_name, name);
            assert_eq!(back, spec);
        }
    }
}
