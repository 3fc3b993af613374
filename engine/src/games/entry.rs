//! What a game offers the engine's commands, beside its rules ([`RegisteredGame`]): its name
//! and parameters, its position text, the engine's own search, its players, its protocol
//! options, its benchmark figures and its weight sets. Implemented in the game's own folder;
//! the registry (`crate::registry`) lists the games and dispatches to them.

use std::path::PathBuf;
use std::time::Duration;

use crate::agents::spec::expand_alias;
use crate::agents::{Agent, AgentSpec};
use crate::game::{Action, Game};
use crate::game_spec::{GameInfo, GameSpec, KeyDecl, ParamDecl, PlayerDecl};
use crate::mcts::bench::{generic_figures, BenchOptions, BenchOutput};
use crate::mcts::{RolloutPolicy, Search, SearchConfig, SearchResult, Ucb};
use crate::tuning::{Tunable, WeightsFile};

/// One option of a game's own that the protocol's `set_option` takes (beside the options every
/// game shares).
#[derive(Clone, Copy, Debug)]
pub struct OptionDecl {
    pub name: &'static str,
    /// What it does, its values and its default, in one line.
    pub help: &'static str,
}

/// The protocol's `weights` option, for games whose evaluation `tune` tunes: a weights file,
/// checked against the game's weight sets when set.
pub const WEIGHTS_OPTION: OptionDecl = OptionDecl {
    name: "weights",
    help: "a weights file of the evaluation, as `tune` writes it, or none (default none)",
};

/// The value of a [`WEIGHTS_OPTION`]: the file and its name.
pub type WeightsChoice = Option<(PathBuf, WeightsFile)>;

/// Sets a [`WEIGHTS_OPTION`] of game `G` from its text (`none` or a path).
pub fn set_weights_option<G: RegisteredGame>(
    choice: &mut WeightsChoice,
    value: &str,
) -> Result<(), String> {
    if value == "none" {
        *choice = None;
        return Ok(());
    }
    let path = PathBuf::from(value);
    let file = WeightsFile::read(&path)?;
    let set = G::tunable(Some(&file.set))
        .unwrap_or_else(|| Err(format!("{} has no weight sets", G::NAME)))
        .map_err(|e| format!("weights file {}: {e}", path.display()))?;
    file.values_for(set.as_ref())
        .map_err(|e| format!("weights file {}: {e}", path.display()))?;
    *choice = Some((path, file));
    Ok(())
}

/// The items of a `RegisteredGame` impl whose one protocol option of its own is a
/// [`WEIGHTS_OPTION`] (the games `tune` tunes): `Options`, `OPTIONS`, `set_option`, `get_option`.
#[macro_export]
macro_rules! weights_option {
    () => {
        type Options = $crate::games::WeightsChoice;

        const OPTIONS: &'static [$crate::games::OptionDecl] = &[$crate::games::WEIGHTS_OPTION];

        fn set_option(
            &self,
            options: &mut $crate::games::WeightsChoice,
            name: &str,
            value: &str,
        ) -> Result<bool, String> {
            if name != $crate::games::WEIGHTS_OPTION.name {
                return Ok(false);
            }
            $crate::games::set_weights_option::<Self>(options, value).map(|_| true)
        }

        fn get_option(&self, options: &$crate::games::WeightsChoice, name: &str) -> Option<String> {
            (name == $crate::games::WEIGHTS_OPTION.name)
                .then(|| $crate::games::weights_option_text(options))
        }
    };
}

/// The text of a [`WEIGHTS_OPTION`].
pub fn weights_option_text(choice: &WeightsChoice) -> String {
    choice
        .as_ref()
        .map_or("none".into(), |(p, _)| p.display().to_string())
}

/// What the engine's own search found for a position (the protocol's `genmove` answers it).
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
    /// Keys an `mcts` player spec reads for this game's own search (other games refuse them),
    /// with their defaults and help; [`build_kind`](Self::build_kind) reads them.
    const MCTS_KEYS: &'static [KeyDecl] = &[];

    /// The game's own kinds of player beside `random`, `mcts` and `external`: `best` (the
    /// strongest measured) and `paper` (the game's paper's player) among them, as names of
    /// other specs or kinds [`build_kind`](Self::build_kind) reads.
    const PLAYERS: &'static [PlayerDecl] = &[];

    /// All of the above, as the layers that know no game read it.
    const INFO: &'static GameInfo = &GameInfo {
        name: Self::NAME,
        aliases: Self::ALIASES,
        about: Self::ABOUT,
        params: Self::PARAMS,
        search_keys: Self::MCTS_KEYS,
        players: Self::PLAYERS,
        check: Self::check_params,
        short: Self::SHORT,
    };

    /// A short form of a spec for people (`dots_and_boxes 5x5`); by default the canonical text.
    const SHORT: Option<fn(&[i64]) -> String> = None;

    /// Whether these parameter values make a game.
    fn check_params(values: &[i64]) -> Result<(), String> {
        Self::from_params(values).map(|_| ())
    }

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
        GameSpec::of_game(Self::INFO, &self.param_values())
    }

    /// The rollout the engine's own search uses by default (self-play, the protocol): random
    /// playouts, or a game's cut-off by its evaluation.
    type Rollout: RolloutPolicy<Self> + Default + 'static;

    /// The position `set_position` describes (same game and parameters as `self`).
    fn parse_position(&self, args: &[&str]) -> Result<Self, String>;

    /// The position as `set_position` arguments.
    fn position_text(&self) -> String;

    /// What a game keeps from move to move to choose its moves (a solver's table).
    type Memory: Default + Send;

    /// The game's own options of the protocol (`set_option`), beside the ones every game
    /// shares: what [`engine_search`](Self::engine_search) reads.
    type Options: Default + Send;

    /// The names and help of [`Options`](Self::Options), in the order `get_option` lists them.
    const OPTIONS: &'static [OptionDecl] = &[];

    /// Sets one of the game's own options (`self` is the game's start position, which a net or
    /// a weights file must fit). `Ok(false)`: the game has no option of that name.
    fn set_option(
        &self,
        _options: &mut Self::Options,
        _name: &str,
        _value: &str,
    ) -> Result<bool, String> {
        Ok(false)
    }

    /// The value of one of the game's own options on this game's board, as `set_option` reads
    /// it.
    fn get_option(&self, _options: &Self::Options, _name: &str) -> Option<String> {
        None
    }

    /// The engine's move for this position, with the game's options (the net and the
    /// knowledge where the game has them). By default: MCTS with the game's rollout.
    fn engine_search(
        &self,
        _options: &Self::Options,
        config: SearchConfig,
        _memory: &mut Self::Memory,
    ) -> Result<Searched, String> {
        let cp = config.cp;
        let result = Search::new(config, Ucb::new(cp), Self::Rollout::default())
            .run(self)
            .map_err(|e| e.to_string())?;
        Ok(Searched::from_result(result))
    }

    /// A player of this game from a spec string's parse: a named player (`best`, `paper`) as
    /// the spec it stands for, then [`build_kind`](Self::build_kind).
    fn build_player(spec: &AgentSpec, start: &Self) -> Result<Box<dyn Agent<Self>>, String> {
        match expand_alias(spec, Self::PLAYERS)? {
            // Errors name the spec the player typed as well as the one it stands for.
            Some(expanded) => Self::build_kind(&expanded, start).map_err(|e| {
                let AgentSpec::Game { text, .. } = spec else {
                    return e;
                };
                format!("{e} (from '{text}')")
            }),
            None => Self::build_kind(spec, start),
        }
    }

    /// A player of one of the kinds: the game's own (declared in [`PLAYERS`](Self::PLAYERS))
    /// and the ones every game has.
    fn build_kind(spec: &AgentSpec, start: &Self) -> Result<Box<dyn Agent<Self>>, String> {
        spec.build::<Self>(start.spec(), Self::PLAYERS)
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

    /// Iterations of one benchmark search a thread when `engine bench` is not told.
    const BENCH_ITERATIONS: u64 = 20_000;

    /// What `engine bench` measures and prints for this game: by default MCTS with the game's
    /// rollout from the start and random games to the end.
    fn bench(start: &Self, options: &BenchOptions) -> Result<BenchOutput, String> {
        options.no_model(Self::NAME)?;
        Ok(BenchOutput::figures(
            generic_figures::<Self, Self::Rollout>(start, options),
        ))
    }

    /// The weight sets of the game's evaluation for `tune` and weights files, the default
    /// first; by default none.
    fn weight_sets() -> Vec<Box<dyn Tunable>> {
        Vec::new()
    }

    /// The weight set named `set` among [`weight_sets`](Self::weight_sets) (the first by
    /// default); `None` when the game has none to tune.
    fn tunable(set: Option<&str>) -> Option<Result<Box<dyn Tunable>, String>> {
        let mut sets = Self::weight_sets();
        if sets.is_empty() {
            return None;
        }
        let names: Vec<&str> = sets.iter().map(|s| s.set()).collect();
        let name = set.unwrap_or(names[0]);
        Some(match names.iter().position(|&n| n == name) {
            Some(i) => Ok(sets.swap_remove(i)),
            None => Err(format!(
                "{} has no weight set '{name}' ({})",
                Self::NAME,
                names.join(", ")
            )),
        })
    }
}

/// The protocol's `best` player where a game's engine plays it, kept from move to move so that
/// its table carries over (as in a match), with the spec it was built from.
pub type KeptBest<G> = Option<(String, Box<dyn Agent<G>>)>;

/// The move of the game's `best` player for the search's time (1 s when it names only
/// iterations) and threads: the player `best:time_ms=T,threads=N` builds, kept in `kept` and
/// built again only when the time or the threads change, reseeded by the search's seed. The
/// note names the kind that `best` stands for (`best (pvs)`).
pub fn best_player_search<G: RegisteredGame>(
    state: &G,
    config: &SearchConfig,
    kept: &mut KeptBest<G>,
) -> Result<Searched, String> {
    let time = config.budget.time.unwrap_or(Duration::from_secs(1));
    let text = format!(
        "best:time_ms={},threads={}",
        time.as_millis(),
        config.threads.max(1)
    );
    let player = match kept {
        Some((built, player)) if *built == text => player,
        _ => {
            let player = G::build_player(&crate::agents::parse_spec(&text)?, state)?;
            &mut kept.insert((text, player)).1
        }
    };
    let kind = G::PLAYERS
        .iter()
        .find(|p| p.kind == "best")
        .and_then(|p| p.alias_of)
        .map_or("best", |alias| alias.split(':').next().unwrap_or(alias));
    player.reseed(config.seed);
    let choice = player
        .choose(state, &[])
        .map_err(|e| format!("best ({kind}): {e}"))?;
    let odds = choice.win_probability.map_or(String::new(), |p| {
        format!(", {:.0}% to win for it", 100.0 * p)
    });
    Ok(Searched {
        plies: vec![choice.action],
        result: None,
        note: Some(format!(
            "best ({kind}): {} nodes in {} ms{odds}",
            choice.iterations,
            time.as_millis()
        )),
    })
}

/// A source of perfect moves for late positions (`None` where it has none).
pub type Oracle<G> = dyn FnMut(&G) -> Option<Action> + Send;
