//! Player spec strings: `KIND[:key=value,key=value...]`, read without knowing the game.
//!
//! Every game has `random`, `mcts` and `external` ([`EVERY_GAME`]; `mcts` reads the keys every
//! search shares, [`SEARCH_KEYS`], and leaves the others to the game). Any other kind (`best`,
//! `paper`, `nn`, `rival`, `alphabeta`, ...) is a game's own, declared in its folder as a
//! [`PlayerDecl`]: its keys are kept as written and the game reads them when it builds the
//! player. `engine players` prints every declaration; nothing else lists them.

use std::path::PathBuf;
use std::time::Duration;

use super::{Agent, ExternalAgent, ExternalConfig, MctsAgent, RandomAgent};
use crate::cli::search_threads;
use crate::game::Game;
use crate::game_spec::{file_key, key, GameSpec, KeyDecl, PlayerDecl};
use crate::mcts::{Budget, CounterMode, SearchConfig};

/// A parsed player spec.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// MCTS with the keys every search shares read into `config`; `game_keys` are the others,
    /// in order, for the game's own search.
    Mcts {
        text: String,
        config: SearchConfig,
        game_keys: Vec<(String, String)>,
    },
    External(ExternalConfig),
    Random {
        seed: u64,
    },
    /// A kind of a game's own, with its keys as written: the game reads them.
    Game {
        kind: String,
        text: String,
        keys: Vec<(String, String)>,
    },
}

/// The keys every MCTS search shares.
pub const SEARCH_KEYS: [KeyDecl; 6] = [
    key(
        "iterations",
        "100000",
        "iterations a move, over all threads (none when only time_ms is given)",
    ),
    key(
        "time_ms",
        "",
        "milliseconds a move (with iterations: whichever ends first)",
    ),
    key(
        "threads",
        "1",
        "search threads (root parallelisation: one tree each; 0: one a core; at most 256)",
    ),
    key("cp", "1.414", "UCB's exploration constant (sqrt 2)"),
    key(
        "counter",
        "double",
        "double: each node read from its mover's view; single: the paper's first, the root player's",
    ),
    key("seed", "1", "the seed of the search's random choices"),
];

/// `random`, which every game has.
pub const RANDOM: PlayerDecl = PlayerDecl {
    kind: "random",
    about: "uniformly random legal moves: a floor, and fast for tests",
    alias_of: None,
    runs_program: false,
    keys: &[key("seed", "1", "the seed of its choices")],
};

/// `mcts`, which every game has: the keys every search shares, and the game's own.
pub const MCTS: PlayerDecl = PlayerDecl {
    kind: "mcts",
    about: "MCTS with the game's own search (plain MCTS unless its keys say)",
    alias_of: None,
    runs_program: false,
    keys: &SEARCH_KEYS,
};

/// `external`, which every game has.
pub const EXTERNAL: PlayerDecl = PlayerDecl {
    kind: "external",
    about: "a program speaking the text protocol (docs/PROTOCOL.md); an illegal move, a crash or a time-out loses",
    alias_of: None,
    runs_program: true,
    keys: &[
        key(
            "cmd",
            "",
            "the command line (required; commas kept when no key follows)",
        ),
        key(
            "name",
            "",
            "the name in tables (default: the command line)",
        ),
        key("time_ms", "", "sent as its time_ms option"),
        key(
            "timeout_ms",
            "",
            "how long genmove may take (default twice time_ms and a second more, else 60000)",
        ),
        key("opt.NAME", "", "set_option NAME VALUE before the game"),
    ],
};

/// The kinds every game has.
pub const EVERY_GAME: [PlayerDecl; 3] = [RANDOM, MCTS, EXTERNAL];

/// Whether `key` is one of the keys every search shares.
fn is_search_key(key: &str) -> bool {
    SEARCH_KEYS.iter().any(|k| k.name == key)
}

/// Splits `key=value,key=value`, keeping commas inside values when what follows is not a key,
/// and inside a value in double quotes (`cmd="prog --player pvs:quick_vcf=0,beam=12"`, the
/// quotes dropped).
fn pairs(body: &str, known: &dyn Fn(&str) -> bool) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut pieces: Vec<String> = Vec::new();
    let mut quoted: Option<String> = None;
    for piece in body.split(',') {
        match quoted.take() {
            Some(mut open) => {
                open.push(',');
                open.push_str(piece);
                if piece.trim_end().ends_with('"') {
                    pieces.push(open);
                } else {
                    quoted = Some(open);
                }
            }
            None => {
                let value = piece.split_once('=').map(|(_, v)| v.trim_start());
                match value {
                    Some(v)
                        if v.starts_with('"') && !(v.len() > 1 && v.trim_end().ends_with('"')) =>
                    {
                        quoted = Some(piece.to_string())
                    }
                    _ => pieces.push(piece.to_string()),
                }
            }
        }
    }
    if let Some(open) = quoted {
        return Err(format!("a quoted value is not closed: '{}'", open.trim()));
    }
    for piece in &pieces {
        let piece = piece.as_str();
        if let Some((k, v)) = piece.split_once('=') {
            let v = v.trim();
            if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
                if !known(k.trim()) {
                    return Err(format!("unknown key '{}'", k.trim()));
                }
                out.push((k.trim().to_string(), v[1..v.len() - 1].to_string()));
                continue;
            }
        }
        let key = piece.split_once('=').map(|(k, _)| k.trim());
        match key {
            Some(k) if known(k) => {
                let (k, v) = piece.split_once('=').expect("has '='");
                out.push((k.trim().to_string(), v.trim().to_string()));
            }
            _ => match out.last_mut() {
                Some((k, v)) if k == "cmd" => {
                    v.push(',');
                    v.push_str(piece);
                }
                _ => {
                    let name = key.unwrap_or(piece.trim());
                    return Err(format!("unknown key '{name}'"));
                }
            },
        }
    }
    for (i, (key, _)) in out.iter().enumerate() {
        if out[..i].iter().any(|(k, _)| k == key) {
            return Err(format!("key '{key}' is given twice: give it once"));
        }
    }
    Ok(out)
}

/// A type of number a key holds, with its range in words for the message when a value does
/// not fit.
pub trait KeyNumber: std::str::FromStr {
    /// `a whole number from 0 to 4294967295`, `a number`.
    fn range() -> String;
    /// Whether the type holds negative values.
    const SIGNED: bool;
    /// Whether the type holds fractions.
    const FRACTIONS: bool = false;
}

macro_rules! whole_numbers {
    ($($t:ty),*) => {$(
        impl KeyNumber for $t {
            fn range() -> String {
                format!("a whole number from {} to {}", <$t>::MIN, <$t>::MAX)
            }
            const SIGNED: bool = <$t>::MIN != 0;
        }
    )*};
}
whole_numbers!(u8, u16, u32, u64, usize, i8, i16, i32, i64);

impl KeyNumber for f64 {
    fn range() -> String {
        "a number".into()
    }
    const SIGNED: bool = true;
    const FRACTIONS: bool = true;
}

impl KeyNumber for f32 {
    fn range() -> String {
        "a number".into()
    }
    const SIGNED: bool = true;
    const FRACTIONS: bool = true;
}

/// Reads a number a key holds; a value that does not fit says why: negative, a fraction, too
/// large, or not a number, with the range the key takes.
pub fn number<T: KeyNumber>(key: &str, value: &str) -> Result<T, String> {
    let text = value.trim();
    text.parse().map_err(|_| {
        let digits = text.strip_prefix('-').unwrap_or(text);
        let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        let why = match text.parse::<f64>() {
            _ if text.starts_with('-') && !T::SIGNED => "must not be negative",
            Ok(x) if !x.is_finite() => "must be a finite number",
            Ok(x) if x.fract() != 0.0 && !T::FRACTIONS => "must be a whole number",
            Ok(_) if whole => "is out of range",
            Ok(_) if !T::FRACTIONS => "must be a whole number in digits",
            _ => "must be a number",
        };
        if T::FRACTIONS {
            format!("{key} {why}, got '{value}'")
        } else {
            format!("{key} {why} ({}), got '{value}'", T::range())
        }
    })
}

/// The longest time a move may be given, in milliseconds (a day): a larger `time_ms` is a
/// mistake, and one near `u64`'s range would search without end.
pub const MAX_TIME_MS: u64 = 86_400_000;

/// Reads a whole number a key holds that must lie in `min..=max`; any value outside it (a
/// negative, a fraction, zero where the range starts at 1, a number too large) gets the one
/// message that gives the range: `time_ms is a whole number from 1 to 86400000, got '-5'`.
pub fn whole_in<T>(key: &str, value: &str, min: T, max: T) -> Result<T, String>
where
    T: KeyNumber + PartialOrd + std::fmt::Display + Copy,
{
    number::<T>(key, value)
        .ok()
        .filter(|v| *v >= min && *v <= max)
        .ok_or_else(|| format!("{key} is a whole number from {min} to {max}, got '{value}'"))
}

/// Reads a move's time in milliseconds: 1 to [`MAX_TIME_MS`].
pub fn time_ms(key: &str, value: &str) -> Result<u64, String> {
    whole_in(key, value, 1, MAX_TIME_MS)
}

/// Reads an on/off switch a key holds: `1` (also `on`, `true`) or `0` (`off`, `false`).
pub fn switch(key: &str, value: &str) -> Result<bool, String> {
    match value {
        "1" | "on" | "true" => Ok(true),
        "0" | "off" | "false" => Ok(false),
        _ => Err(format!("{key} is 0 or 1, not '{value}'")),
    }
}

/// The error for a key the player's kind does not read, listing the keys it takes (a retired
/// key reads as any unknown one).
pub fn unknown_key_in(text: &str, key: &str, known: &[KeyDecl]) -> String {
    unknown_key_of(text, key, known.iter().map(|k| k.name))
}

/// The error for a key an `mcts` player does not read: it lists the keys every search shares
/// ([`SEARCH_KEYS`]) and then the game's own search's (`game`).
pub fn unknown_search_key(text: &str, key: &str, game: &[KeyDecl]) -> String {
    unknown_key_of(text, key, SEARCH_KEYS.iter().chain(game).map(|k| k.name))
}

fn unknown_key_of<'a>(text: &str, key: &str, names: impl Iterator<Item = &'a str>) -> String {
    format!(
        "player '{text}': unknown key '{key}' (it takes {})",
        names.collect::<Vec<_>>().join(", ")
    )
}

/// Refuses any of `keys` that is not one of `known`.
pub fn only_keys(text: &str, keys: &[(String, String)], known: &[KeyDecl]) -> Result<(), String> {
    match keys
        .iter()
        .find(|(k, _)| !known.iter().any(|d| d.name == k))
    {
        Some((key, _)) => Err(unknown_key_in(text, key, known)),
        None => Ok(()),
    }
}

/// Refuses any of an `mcts` player's own keys (`keys`, those the shared search did not read)
/// that is not one of the game's search's (`game`), listing both.
pub fn only_search_keys(
    text: &str,
    keys: &[(String, String)],
    game: &[KeyDecl],
) -> Result<(), String> {
    match keys.iter().find(|(k, _)| !game.iter().any(|d| d.name == k)) {
        Some((key, _)) => Err(unknown_search_key(text, key, game)),
        None => Ok(()),
    }
}

/// Reads the keys every search shares from `keys` into a search configuration (seed 1,
/// `iterations` by default, unless `time_ms` alone is given), checked; `takes` says which of
/// them this kind of player reads. Returns the configuration and the other keys, in order.
pub fn read_search_keys(
    text: &str,
    keys: &[(String, String)],
    iterations: u64,
    takes: &dyn Fn(&str) -> bool,
) -> Result<(SearchConfig, Vec<(String, String)>), String> {
    let err = |e: String| format!("player '{text}': {e}");
    let mut config = SearchConfig {
        seed: 1,
        ..SearchConfig::default()
    };
    let mut iterations = Some(iterations);
    let mut time_ms = None;
    let mut rest = Vec::new();
    for (key, value) in keys {
        if !(is_search_key(key) && takes(key)) {
            rest.push((key.clone(), value.clone()));
            continue;
        }
        match key.as_str() {
            "iterations" => iterations = Some(number(key, value).map_err(err)?),
            "time_ms" => {
                time_ms = Some(self::time_ms(key, value).map_err(err)?);
                if !keys.iter().any(|(k, _)| k == "iterations") {
                    iterations = None;
                }
            }
            "threads" => {
                config.threads = search_threads(number(key, value).map_err(err)?).map_err(err)?
            }
            "cp" => config.cp = number(key, value).map_err(err)?,
            "seed" => config.seed = number(key, value).map_err(err)?,
            "counter" => {
                config.counter = match value.as_str() {
                    "double" => CounterMode::Double,
                    "single" => CounterMode::Single,
                    _ => return Err(err(format!("counter is double or single, not '{value}'"))),
                }
            }
            _ => unreachable!("one of SEARCH_KEYS"),
        }
    }
    if iterations == Some(0) || time_ms == Some(0) || config.threads == 0 {
        return Err(err("iterations and time_ms must be positive".into()));
    }
    if !(config.cp.is_finite() && config.cp >= 0.0) {
        return Err(err(format!(
            "cp must be a non-negative number, got {}",
            config.cp
        )));
    }
    config.budget = Budget {
        iterations,
        time: time_ms.map(Duration::from_millis),
    };
    Ok((config, rest))
}

/// The keys of an alpha-beta player (any game's that has one), as [`AlphaBetaKeys`] reads them.
pub const ALPHABETA_KEYS: [KeyDecl; 4] = [
    key("time_ms", "1000", "milliseconds a move"),
    key("depth", "64", "the deepest iteration"),
    key("seed", "1", "the seed of its ties"),
    file_key(
        "weights",
        "",
        "a weights file of the evaluation, as tune writes it",
        &[],
    ),
];

/// An alpha-beta player's keys (any game's that has one): `time_ms` (1000), `depth` (the
/// deepest iteration, 64), `seed` (1), `weights` (a weights file of the evaluation, as `tune`
/// writes it).
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaBetaKeys {
    pub time_ms: u64,
    pub max_depth: u32,
    pub seed: u64,
    pub weights: Option<PathBuf>,
}

impl AlphaBetaKeys {
    /// The keys of an `alphabeta` spec.
    pub fn read(text: &str, keys: &[(String, String)]) -> Result<AlphaBetaKeys, String> {
        let err = |e: String| format!("player '{text}': {e}");
        let mut out = AlphaBetaKeys {
            time_ms: 1000,
            max_depth: 64,
            seed: 1,
            weights: None,
        };
        for (key, value) in keys {
            match key.as_str() {
                "time_ms" => out.time_ms = time_ms(key, value).map_err(err)?,
                "depth" => out.max_depth = whole_in(key, value, 1, 128).map_err(err)?,
                "weights" => out.weights = Some(PathBuf::from(value)),
                "seed" => out.seed = number(key, value).map_err(err)?,
                _ => return Err(unknown_key_in(text, key, &ALPHABETA_KEYS)),
            }
        }
        Ok(out)
    }
}

/// A `greedy` player's keys: `seed` (1), and where the game allows, `weights` (a weights file).
#[derive(Clone, Debug, PartialEq)]
pub struct GreedyKeys {
    pub seed: u64,
    pub weights: Option<PathBuf>,
}

impl GreedyKeys {
    /// The keys of a `greedy` spec; `weights` only when the game's evaluation has them.
    pub fn read(
        text: &str,
        keys: &[(String, String)],
        takes_weights: bool,
    ) -> Result<GreedyKeys, String> {
        let mut out = GreedyKeys {
            seed: 1,
            weights: None,
        };
        for (key, value) in keys {
            match key.as_str() {
                "seed" => {
                    out.seed = number(key, value).map_err(|e| format!("player '{text}': {e}"))?
                }
                "weights" if takes_weights => out.weights = Some(PathBuf::from(value)),
                _ => {
                    let takes = ["seed", "weights"];
                    let names = takes[..1 + usize::from(takes_weights)].iter().copied();
                    return Err(unknown_key_of(text, key, names));
                }
            }
        }
        Ok(out)
    }
}

/// Reads a spec string (its kind and keys; a game's own kinds are read by the game).
pub fn parse_spec(text: &str) -> Result<AgentSpec, String> {
    let text = text.trim();
    let err = |e: String| format!("player '{text}': {e}");
    let (kind, body) = text.split_once(':').unwrap_or((text, ""));
    let (kind, body) = (kind.trim(), body.trim());
    let any_key = |_: &str| true;
    let list = |known: &dyn Fn(&str) -> bool| {
        if body.is_empty() && kind != "external" {
            Ok(Vec::new())
        } else {
            pairs(body, known).map_err(err)
        }
    };
    match kind {
        "random" => {
            let mut seed = 1;
            for (key, value) in list(&|k| k == "seed")? {
                seed = number(&key, &value).map_err(err)?;
            }
            Ok(AgentSpec::Random { seed })
        }
        "mcts" => {
            let (config, game_keys) = read_search_keys(text, &list(&any_key)?, 100_000, &any_key)?;
            Ok(AgentSpec::Mcts {
                text: text.to_string(),
                config,
                game_keys,
            })
        }
        "external" => {
            let known = |k: &str| EXTERNAL.key(k).is_some() || k.starts_with("opt.");
            let mut config = ExternalConfig::new("");
            let mut timeout = None;
            for (key, value) in list(&known)? {
                match key.as_str() {
                    "cmd" => config.command = value,
                    "name" => config.name = Some(value),
                    "time_ms" => config.time_ms = Some(time_ms(&key, &value).map_err(err)?),
                    "timeout_ms" => timeout = Some(number::<u64>(&key, &value).map_err(err)?),
                    _ => {
                        let name = key.trim_start_matches("opt.").to_string();
                        config.options.push((name, value));
                    }
                }
            }
            if config.command.trim().is_empty() {
                return Err(err("external needs cmd=COMMAND".into()));
            }
            config.move_timeout = match (timeout, config.time_ms) {
                (Some(t), _) => Duration::from_millis(t),
                (None, Some(t)) => ExternalConfig::default_move_timeout(t),
                (None, None) => Duration::from_secs(60),
            };
            Ok(AgentSpec::External(config))
        }
        _ if !kind.is_empty() && kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            Ok(AgentSpec::Game {
                kind: kind.to_string(),
                text: text.to_string(),
                keys: list(&any_key)?,
            })
        }
        other => Err(err(format!("'{other}' is not a player kind"))),
    }
}

/// A named player (`best`, `paper`) of `players` as the spec it stands for, with the keys given
/// after the name added: `best:time_ms=300` is `nn:time_ms=300` where `best` is `nn`. `None`
/// when `spec` names no alias.
pub fn expand_alias(spec: &AgentSpec, players: &[PlayerDecl]) -> Result<Option<AgentSpec>, String> {
    let AgentSpec::Game { kind, keys, .. } = spec else {
        return Ok(None);
    };
    let Some(target) = players
        .iter()
        .find(|p| p.kind == kind)
        .and_then(|p| p.alias_of)
    else {
        return Ok(None);
    };
    let keys: Vec<String> = keys.iter().map(|(k, v)| key_value(k, v)).collect();
    parse_spec(&with_keys(target, &keys)).map(Some)
}

/// `key=value` as a spec reads it back as the same key and value: a value holding a comma in
/// double quotes, so that it stays one value (`cp="1,model=x"` read as it was given is a value
/// of `cp`, not a `model` key) whenever a spec is written from keys already read.
pub fn key_value(key: &str, value: &str) -> String {
    if value.contains(',') {
        format!("{key}=\"{value}\"")
    } else {
        format!("{key}={value}")
    }
}

/// The declaration of the kind `kind` among the kinds every game has and `players` (a game's
/// own), if one declares it.
pub fn declaration<'a>(kind: &str, players: &'a [PlayerDecl]) -> Option<&'a PlayerDecl> {
    EVERY_GAME.iter().chain(players).find(|p| p.kind == kind)
}

/// The error for a kind that neither every game nor `game` (its own kinds: `players`)
/// declares, listing the kinds it has.
pub fn unknown_kind(text: &str, kind: &str, game: &str, players: &[PlayerDecl]) -> String {
    let all: Vec<&str> = EVERY_GAME.iter().chain(players).map(|p| p.kind).collect();
    format!(
        "player '{text}': unknown player kind '{kind}' for {game} (its kinds: {})",
        all.join(", ")
    )
}

/// Whether the player `spec` names runs a program on this machine: the one place that decides
/// it, from the kind's declaration ([`PlayerDecl::runs_program`]; an alias, from the kind it
/// stands for). A kind that no declaration names counts as one that does. `engine serve`
/// refuses such a player from a page unless started with `--allow-external`.
pub fn runs_program(spec: &AgentSpec, players: &[PlayerDecl]) -> bool {
    fn kind_runs(kind: &str, players: &[PlayerDecl], depth: usize) -> bool {
        let Some(decl) = declaration(kind, players) else {
            return true;
        };
        match decl.alias_of {
            _ if decl.runs_program => true,
            // An alias names another kind, never itself; a chain this long is a mistake.
            Some(_) if depth > 4 => true,
            Some(target) => {
                let target = target.split(':').next().unwrap_or(target).trim();
                kind_runs(target, players, depth + 1)
            }
            None => false,
        }
    }
    match spec {
        AgentSpec::External(_) => EXTERNAL.runs_program,
        AgentSpec::Random { .. } => RANDOM.runs_program,
        AgentSpec::Mcts { .. } => MCTS.runs_program,
        AgentSpec::Game { kind, .. } => kind_runs(kind, players, 0),
    }
}

/// The spec `base` (a kind, with or without keys) with `keys` (each `key=value`) after its own;
/// a key `base` already has takes the new value (`paper:cp=2` over an alias's `cp=1.414`).
pub fn with_keys(base: &str, keys: &[String]) -> String {
    let base = base.trim();
    let (kind, body) = base.split_once(':').unwrap_or((base, ""));
    let replaced: Vec<&str> = keys
        .iter()
        .filter_map(|pair| pair.split_once('=').map(|(k, _)| k.trim()))
        .collect();
    // The base's own keys read as a spec reads them (`pairs`, quoted values whole), written
    // back without those replaced; a base that does not read is kept as it is, for
    // `parse_spec` to refuse.
    let mut pieces: Vec<String> = match pairs(body.trim(), &|_| true) {
        _ if body.trim().is_empty() => Vec::new(),
        Ok(own) => own
            .into_iter()
            .filter(|(k, _)| !replaced.contains(&k.as_str()))
            .map(|(k, v)| key_value(&k, &v))
            .collect(),
        Err(_) => vec![body.trim().to_string()],
    };
    pieces.extend(keys.iter().cloned());
    if pieces.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}:{}", pieces.join(","))
    }
}

impl AgentSpec {
    /// The value of `key` as written in a game kind's or `mcts`' keys, if given.
    pub fn key(&self, key: &str) -> Option<&str> {
        let keys = match self {
            AgentSpec::Game { keys, .. } => keys,
            AgentSpec::Mcts { game_keys, .. } => game_keys,
            _ => return None,
        };
        keys.iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A player of any game from the kinds every game has (`mcts` without keys of a game's
    /// own, `random`, `external`); another kind is refused, naming the kinds `game` has (those
    /// every game has, and `players`, its own).
    pub fn build<G: Game>(
        &self,
        game: GameSpec,
        players: &[PlayerDecl],
    ) -> Result<Box<dyn Agent<G>>, String> {
        match self {
            AgentSpec::Mcts {
                text,
                config,
                game_keys,
            } => match game_keys.first() {
                Some((key, _)) => Err(unknown_key_in(text, key, &SEARCH_KEYS)),
                None => Ok(Box::new(MctsAgent::plain(text.clone(), config.clone()))),
            },
            AgentSpec::External(config) => ExternalAgent::start(config.clone(), game)
                .map(|agent| Box::new(agent) as Box<dyn Agent<G>>)
                .map_err(|e| {
                    format!(
                        "player 'external:cmd={}': the engine did not start: {e}",
                        config.command
                    )
                }),
            AgentSpec::Random { seed } => Ok(Box::new(RandomAgent::new(*seed))),
            AgentSpec::Game { kind, text, .. } => {
                Err(unknown_kind(text, kind, game.name(), players))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_added_after_a_specs_own() {
        let keys = ["time_ms=5".to_string(), "seed=2".to_string()];
        assert_eq!(with_keys("best", &keys), "best:time_ms=5,seed=2");
        assert_eq!(with_keys("best:", &keys), "best:time_ms=5,seed=2");
        assert_eq!(with_keys("nn:cp=1", &keys), "nn:cp=1,time_ms=5,seed=2");
        assert_eq!(with_keys(" mcts ", &[]), "mcts");
        // A key the base has takes the new value; quoted commas stay with their value.
        let cp = ["cp=2".to_string()];
        assert_eq!(
            with_keys("mcts:cp=1.414,turn=split", &cp),
            "mcts:turn=split,cp=2"
        );
        let quoted = r#"gomocup:cmd="pb --player pvs:cp=1,beam=3",cp=1"#;
        assert_eq!(
            with_keys(quoted, &cp),
            r#"gomocup:cmd="pb --player pvs:cp=1,beam=3",cp=2"#
        );
    }

    #[test]
    fn specs_are_read_with_defaults_and_errors_named() {
        match parse_spec("mcts").unwrap() {
            AgentSpec::Mcts { config, .. } => {
                assert_eq!(config.budget, Budget::iterations(100_000));
                assert_eq!(config.counter, CounterMode::Double);
            }
            other => panic!("{other:?}"),
        }
        match parse_spec("mcts:time_ms=50,counter=single,threads=2,turn=whole").unwrap() {
            AgentSpec::Mcts {
                config, game_keys, ..
            } => {
                assert_eq!(config.budget, Budget::time(Duration::from_millis(50)));
                assert_eq!(config.counter, CounterMode::Single);
                assert_eq!(config.threads, 2);
                assert_eq!(game_keys, vec![("turn".to_string(), "whole".to_string())]);
            }
            other => panic!("{other:?}"),
        }
        match parse_spec("external:cmd=prog --x a,b --y,time_ms=500,opt.seed=3").unwrap() {
            AgentSpec::External(c) => {
                assert_eq!(c.command, "prog --x a,b --y");
                assert_eq!(c.time_ms, Some(500));
                assert_eq!(c.move_timeout, Duration::from_millis(1500));
                assert_eq!(c.options, vec![("seed".to_string(), "3".to_string())]);
            }
            other => panic!("{other:?}"),
        }
        // A quoted value keeps its commas and its key=value pieces.
        let quoted = r#"gomocup:cmd="pb --player pvs:quick_vcf=0,beam=12",turn_ms=5"#;
        match parse_spec(quoted).unwrap() {
            AgentSpec::Game { keys, .. } => assert_eq!(
                keys,
                vec![
                    (
                        "cmd".to_string(),
                        "pb --player pvs:quick_vcf=0,beam=12".to_string()
                    ),
                    ("turn_ms".to_string(), "5".to_string())
                ]
            ),
            other => panic!("{other:?}"),
        }
        match parse_spec("nn:threshold=0.8").unwrap() {
            AgentSpec::Game { kind, keys, .. } => {
                assert_eq!(kind, "nn");
                assert_eq!(keys, vec![("threshold".to_string(), "0.8".to_string())]);
            }
            other => panic!("{other:?}"),
        }
        for (bad, says) in [
            ("ch-ess", "not a player kind"),
            ("mcts:iterations=x", "iterations must be a number"),
            ("mcts:iterations", "unknown key 'iterations'"),
            ("external:name=x", "needs cmd"),
            ("mcts:counter=triple", "double or single"),
            ("random:cp=1", "unknown key 'cp'"),
            (r#"external:cmd="prog a,b"#, "a quoted value is not closed"),
            (r#"random:cmd="x,y""#, "unknown key 'cmd'"),
            (
                "mcts:iterations=100,iterations=200",
                "key 'iterations' is given twice",
            ),
            (
                "mcts:iterations=-1",
                "iterations must not be negative (a whole number from 0 to",
            ),
            ("mcts:iterations=1.5", "iterations must be a whole number"),
            (
                "mcts:iterations=99999999999999999999",
                "iterations is out of range",
            ),
            (
                "mcts:threads=100000",
                "threads is 0 (one a core) to 256, not 100000",
            ),
            ("mcts:cp=abc", "cp must be a number, got 'abc'"),
        ] {
            let e = parse_spec(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn a_game_kind_or_a_game_key_is_refused_by_a_game_without_it() {
        let spec =
            GameSpec::defaults(<crate::games::TicTacToe as crate::games::RegisteredGame>::INFO);
        let build = |text: &str| {
            parse_spec(text)
                .unwrap()
                .build::<crate::games::TicTacToe>(spec, &[])
                .err()
        };
        assert!(build("mcts").is_none());
        let e = build("mcts:solver_edges=30").unwrap();
        assert!(e.contains("unknown key 'solver_edges'"), "{e}");
        // The generic switches retired in session 84 are unknown keys like any other.
        for key in ["minimax=0.5", "widen=5", "transpositions=1"] {
            let e = build(&format!("mcts:{key}")).unwrap();
            let name = key.split('=').next().unwrap();
            assert!(e.contains(&format!("unknown key '{name}'")), "{e}");
            assert!(
                e.ends_with("(it takes iterations, time_ms, threads, cp, counter, seed)"),
                "{e}"
            );
        }
        let e = build("nn").unwrap();
        assert!(e.contains("unknown player kind 'nn' for tictactoe"), "{e}");
        let keys = AlphaBetaKeys::read("alphabeta:depth=3", &[("depth".into(), "3".into())]);
        assert_eq!(keys.unwrap().max_depth, 3);
        assert!(AlphaBetaKeys::read("a", &[("time_ms".into(), "0".into())]).is_err());
        let e = GreedyKeys::read("greedy:weights=w", &[("weights".into(), "w".into())], false);
        assert!(e.unwrap_err().contains("unknown key 'weights'"));
    }
    /// A time, a depth or a beam out of its range gets one message with the range, whatever
    /// the value: negative, zero, a fraction, or too large (a time near u64's range would
    /// search without end).
    #[test]
    fn a_ranged_key_says_its_range_once() {
        for value in ["-5", "0", "1.5", "86400001", "18446744073709551615", "x"] {
            let e = time_ms("time_ms", value).unwrap_err();
            assert_eq!(
                e,
                format!("time_ms is a whole number from 1 to 86400000, got '{value}'")
            );
        }
        assert_eq!(time_ms("time_ms", "86400000"), Ok(MAX_TIME_MS));
        assert_eq!(whole_in::<u32>("depth", "7", 1, 120), Ok(7));
        let e = parse_spec("mcts:time_ms=18446744073709551615").unwrap_err();
        assert!(e.contains("from 1 to 86400000"), "{e}");
        let e = parse_spec("mcts:time_ms=0").unwrap_err();
        assert!(e.contains("time_ms is a whole number from 1"), "{e}");
        let e = AlphaBetaKeys::read("a", &[("depth".into(), "0".into())]).unwrap_err();
        assert!(
            e.contains("depth is a whole number from 1 to 128, got '0'"),
            "{e}"
        );
    }

    /// A value written back by `key_value` (and so by `with_keys` and an alias's expansion)
    /// is read as the same one value, a comma in it included.
    #[test]
    fn a_value_written_back_reads_as_itself() {
        for value in [
            "1",
            "1,model=/etc/passwd",
            "a,\"b",
            "prog --player pvs:beam=12,depth=30",
        ] {
            let text = format!("x:{}", key_value("cp", value));
            let spec = parse_spec(&text).unwrap();
            assert_eq!(spec.key("cp"), Some(value), "{text}");
            assert_eq!(spec.key("model"), None, "{text}");
            let again = parse_spec(&with_keys("x:seed=2", &[key_value("cp", value)])).unwrap();
            assert_eq!(again.key("cp"), Some(value), "{text}");
            assert_eq!(again.key("seed"), Some("2"), "{text}");
        }
    }

    /// Which kinds run a program: `external`, and a game's kind that declares it, directly or
    /// through an alias; a kind nothing declares counts as one that does.
    #[test]
    fn runs_program_follows_the_declarations_and_aliases() {
        const RUNS: PlayerDecl = PlayerDecl {
            kind: "brain",
            about: "",
            alias_of: None,
            runs_program: true,
            keys: &[],
        };
        const ALIAS: PlayerDecl = PlayerDecl {
            kind: "best",
            about: "",
            alias_of: Some("brain:x=1"),
            runs_program: false,
            keys: &[],
        };
        let players = [RUNS, ALIAS];
        let runs = |text: &str| runs_program(&parse_spec(text).unwrap(), &players);
        assert!(runs("external:cmd=sh"));
        assert!(runs("brain:cmd=x"));
        assert!(runs("best"));
        assert!(runs("nothing_declared"));
        assert!(!runs("mcts:iterations=5"));
        assert!(!runs("random"));
        let quiet = [PlayerDecl {
            alias_of: Some("mcts:cp=1"),
            ..ALIAS
        }];
        assert!(!runs_program(&parse_spec("best").unwrap(), &quiet));
    }
}
