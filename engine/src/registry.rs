//! The registry: every game the engine hosts, by name, with typed parameters, and the one
//! generic dispatch every command goes through (in the spirit of OpenSpiel's registry).
//!
//! A game is a type implementing [`RegisteredGame`] in its own folder plus one line in
//! [`registry!`] at the bottom of this file. A command is written once, generically, as a
//! [`GameVisitor`]; a [`GameSpec`] (a game name and parameter values, as datasets, models and
//! matches record it) calls the visitor with the game's start position and its concrete type
//! ([`Lookup::visit`]).
//!
//! The registry sits above the games it lists: the layers below it (the games themselves, the
//! search, the players, the nets) never read a game by name from the whole list.

use serde::{Deserialize, Deserializer};

pub use crate::game_spec::{GameInfo, GameSpec, KeyDecl, ParamDecl, ParamKind, PlayerDecl};
pub use crate::games::{RegisteredGame, Searched};

/// A command written once for every game: called with the start position as its own type.
pub trait GameVisitor {
    type Output;
    fn visit<G: RegisteredGame>(self, start: G) -> Self::Output;
}

/// Reading a [`GameSpec`] by name among every registered game, and reaching the game's type.
pub trait Lookup: Sized {
    /// The game `name` (or an alias) with its default parameters.
    fn named(name: &str) -> Result<Self, String>;
    /// The game `name` with parameters given as `key=value` words (checked).
    fn parse<S: AsRef<str>>(name: &str, params: &[S]) -> Result<Self, String>;
    /// Parses `NAME` or `NAME:key=value,key=value` (the form of command-line flags).
    fn from_text(text: &str) -> Result<Self, String>;
    /// Reads the JSON object a spec serialises to; unknown keys are refused by name.
    fn from_json(value: &serde_json::Value) -> Result<Self, String>;
    /// Calls `visitor` with the start position of this game, as its own type.
    fn visit<V: GameVisitor>(&self, visitor: V) -> Result<V::Output, String>;
    /// The start position as a concrete type, when this spec is that game.
    fn start<G: RegisteredGame>(&self) -> Result<G, String>;
}

impl Lookup for GameSpec {
    fn named(name: &str) -> Result<GameSpec, String> {
        GameSpec::named_in(GAMES, name)
    }

    fn parse<S: AsRef<str>>(name: &str, params: &[S]) -> Result<GameSpec, String> {
        GameSpec::parse_in(GAMES, name, params)
    }

    fn from_text(text: &str) -> Result<GameSpec, String> {
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let params: Vec<&str> = rest.split(',').filter(|p| !p.trim().is_empty()).collect();
        GameSpec::parse(name, &params)
    }

    fn from_json(value: &serde_json::Value) -> Result<GameSpec, String> {
        GameSpec::from_json_in(GAMES, value)
    }

    fn visit<V: GameVisitor>(&self, visitor: V) -> Result<V::Output, String> {
        dispatch(self, visitor)
    }

    fn start<G: RegisteredGame>(&self) -> Result<G, String> {
        if self.name() != G::NAME {
            return Err(format!("expected {}, found {self}", G::NAME));
        }
        G::from_spec(self)
    }
}

impl<'de> Deserialize<'de> for GameSpec {
    /// Any registered game, as [`Lookup::from_json`] reads it.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<GameSpec, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(deserializer)?;
        GameSpec::from_json(&value).map_err(D::Error::custom)
    }
}

/// The registry: one line a game.
macro_rules! registry {
    ($($game:ty),* $(,)?) => {
        /// Every registered game, in the order `engine games` lists them.
        pub static GAMES: &[&GameInfo] = &[$(<$game as RegisteredGame>::INFO),*];

        fn dispatch<V: GameVisitor>(spec: &GameSpec, visitor: V) -> Result<V::Output, String> {
            $(
                if spec.name() == <$game as RegisteredGame>::NAME {
                    let start = <$game as RegisteredGame>::from_spec(spec)?;
                    return Ok(visitor.visit(start));
                }
            )*
            Err(format!("{} is not a registered game", spec.name()))
        }
    };
}

registry! {
    crate::games::DotsAndBoxes,
    crate::games::TicTacToe,
    crate::games::Amazons,
    crate::games::Surakarta,
    crate::games::Gomoku,
}

/// The game whose search reads the `mcts` key `key`, if any does.
pub fn search_key_owner(key: &str) -> Option<&'static str> {
    GAMES
        .iter()
        .find(|e| e.search_keys.iter().any(|k| k.name == key))
        .map(|e| e.name)
}

/// The canonical names of all games.
pub fn game_names() -> Vec<&'static str> {
    GAMES.iter().map(|e| e.name).collect()
}

/// The weight set `set` (the game's first by default) of `game`'s evaluation, for `tune` and
/// weights files.
pub fn tunable(game: &str, set: Option<&str>) -> Result<Box<dyn crate::tuning::Tunable>, String> {
    struct Find<'a>(Option<&'a str>);
    impl GameVisitor for Find<'_> {
        type Output = Option<Result<Box<dyn crate::tuning::Tunable>, String>>;
        fn visit<G: RegisteredGame>(self, _: G) -> Self::Output {
            G::tunable(self.0)
        }
    }
    let not_tunable = || {
        format!(
            "no weight set to tune for game '{game}' (tunable: {})",
            tunable_games().join(", ")
        )
    };
    let spec = GameSpec::named(game).map_err(|_| not_tunable())?;
    spec.visit(Find(set))?.unwrap_or_else(|| Err(not_tunable()))
}

/// The games with weight sets to tune.
pub fn tunable_games() -> Vec<&'static str> {
    struct Has;
    impl GameVisitor for Has {
        type Output = bool;
        fn visit<G: RegisteredGame>(self, _: G) -> bool {
            G::tunable(None).is_some()
        }
    }
    let mut names: Vec<&str> = GAMES
        .iter()
        .filter(|g| GameSpec::defaults(g).visit(Has).unwrap_or(false))
        .map(|g| g.name)
        .collect();
    names.sort_unstable();
    names
}

/// Every kind of player of `game` (all games when `None`) with its keys, their defaults and a
/// line each: `engine players`, made from the declarations the spec parser reads.
pub fn describe_players(game: Option<&str>) -> Result<String, String> {
    use std::fmt::Write;
    let games: Vec<&GameInfo> = match game {
        Some(name) => vec![GameSpec::named(name)?.info()],
        None => GAMES.to_vec(),
    };
    let mut out = String::new();
    for info in games {
        let _ = writeln!(out, "{}: {}", info.name, info.about);
        for p in info.players.iter().chain(&crate::agents::spec::EVERY_GAME) {
            let _ = writeln!(out, "  {:<10} {}", p.kind, p.about);
            if let Some(target) = p.alias_of {
                let _ = writeln!(
                    out,
                    "  {:<10}   = {target} (keys after the name refine it)",
                    ""
                );
            }
            let own: &[KeyDecl] = if p.kind == "mcts" {
                info.search_keys
            } else {
                &[]
            };
            for k in p.keys.iter().chain(own) {
                let key = if k.default.is_empty() {
                    k.name.to_string()
                } else {
                    format!("{}={}", k.name, k.default)
                };
                let _ = writeln!(out, "      {key:<24} {}", k.help);
            }
        }
        out.push('\n');
    }
    Ok(out.trim_end().to_string())
}

/// Every game with its parameters, for `--help` texts and the protocol.
pub fn describe_games() -> String {
    GAMES
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

    /// Every game has a `best` and a `paper` player, listed by `engine players` and built from
    /// their names, with keys after them.
    #[test]
    fn every_game_has_a_best_and_a_paper_player() {
        struct Build(&'static str);
        impl GameVisitor for Build {
            type Output = Result<String, String>;
            fn visit<G: RegisteredGame>(self, start: G) -> Result<String, String> {
                let spec = crate::agents::parse_spec(self.0)?;
                G::build_player(&spec, &start).map(|agent| agent.name())
            }
        }
        let all = describe_players(None).unwrap();
        for game in game_names() {
            let text = describe_players(Some(game)).unwrap();
            assert!(all.contains(&text), "{game}");
            for kind in ["best", "paper", "random", "mcts", "external"] {
                assert!(
                    text.contains(&format!("\n  {kind} ")),
                    "{game} {kind}:\n{text}"
                );
            }
            let spec = GameSpec::named(game).unwrap();
            for player in ["best", "paper", "best:seed=3"] {
                let built = spec.visit(Build(player)).unwrap();
                assert!(built.is_ok(), "{game} {player}: {built:?}");
            }
            let e = spec.visit(Build("worst")).unwrap().unwrap_err();
            assert!(
                e.contains("unknown player kind 'worst'") && e.contains("best"),
                "{e}"
            );
        }
        assert!(describe_players(Some("chess")).is_err());
    }
}
