//! What the `tune` stage needs of a game: a named weight vector, its starting values and range,
//! and a fast game between two weight vectors (the fitness game). The tuner knows nothing else
//! of any game; each game that can be tuned implements [`Tunable`] in its own folder (most
//! sets as a [`WeightSet`], data and a fitness game) and lists its weight sets in its registry
//! entry (`RegisteredGame::weight_sets`; `registry::tunable` finds one by the game's name and
//! the set's).
//!
//! Weights travel in a [`WeightsFile`] (JSON): the game, the weight set's name, the weights by
//! name. The engine's players load one with `weights=FILE`, and the tuner writes one.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::agents::Agent;
use crate::game::{Action, Game, Outcome};
use crate::mcts::{Budget, RolloutPolicy, Search, SearchConfig, TreePolicy};
use crate::rng::derive_seed;

/// A weight set of one game that the tuner can search.
pub trait Tunable: Send + Sync {
    /// The game's registry name (`amazons`).
    fn game(&self) -> &'static str;

    /// The weight set's name, written into weights files so that one set is never read as
    /// another.
    fn set(&self) -> &'static str;

    /// One name a weight, in vector order (`opening.t1`, ...).
    fn names(&self) -> Vec<String>;

    /// The weights the game plays today: the tuner's starting point and the yardstick of the
    /// final match.
    fn start(&self) -> Vec<f32>;

    /// The weights as the engine should play them: a set whose fitness player cannot see some
    /// property of the weights (Amazons: the scale of each phase, since a one-turn greedy
    /// player compares positions of one phase) fixes it here, as the starting weights have
    /// it. By default the weights as they are.
    fn normalise(&self, values: &[f32]) -> Vec<f32> {
        values.to_vec()
    }

    /// What [`normalise`](Self::normalise) does, for the tuned weights' table (empty: nothing).
    fn normalise_note(&self) -> &'static str {
        ""
    }

    /// The fitness players this game offers (the first is the default).
    fn players(&self) -> &'static [&'static str];

    /// The player kind whose `weights=` key reads this set: `tune`'s final match plays it
    /// (`KIND:time_ms=T,weights=FILE`). By default the game's `mcts`.
    fn final_player(&self) -> &'static str {
        "mcts"
    }

    /// Plays one fitness game: weights `p1` as the first player against `p2`, both played by
    /// the fitness player `player`, from the opening numbered `opening` (the same number gives
    /// the same opening; different numbers give varied ones).
    fn play(&self, p1: &[f32], p2: &[f32], player: &str, opening: u64) -> Result<Outcome, String>;
}

/// A weight set given as data: a fixed vector with its names and start, its fitness players
/// and a function that plays one fitness game. [`Tunable`] is implemented once for them all.
#[derive(Clone, Copy, Debug)]
pub struct WeightSet {
    /// [`Tunable::game`].
    pub game: &'static str,
    /// [`Tunable::set`].
    pub set: &'static str,
    /// [`Tunable::names`].
    pub names: fn() -> Vec<String>,
    /// [`Tunable::start`].
    pub start: fn() -> Vec<f32>,
    /// [`Tunable::players`]: the default first.
    pub players: &'static [&'static str],
    /// [`Tunable::final_player`].
    pub final_player: &'static str,
    /// [`Tunable::normalise`] (`<[f32]>::to_vec`: the weights as they are).
    pub normalise: fn(&[f32]) -> Vec<f32>,
    /// [`Tunable::normalise_note`].
    pub normalise_note: &'static str,
    /// One fitness game.
    pub play: FitnessGame,
}

/// One fitness game of a [`WeightSet`], as [`Tunable::play`] with the set: `player` is one of
/// the set's players.
pub type FitnessGame = fn(&WeightSet, &[f32], &[f32], &str, u64) -> Result<Outcome, String>;

impl Tunable for WeightSet {
    fn game(&self) -> &'static str {
        self.game
    }

    fn set(&self) -> &'static str {
        self.set
    }

    fn names(&self) -> Vec<String> {
        (self.names)()
    }

    fn start(&self) -> Vec<f32> {
        (self.start)()
    }

    fn normalise(&self, values: &[f32]) -> Vec<f32> {
        (self.normalise)(values)
    }

    fn normalise_note(&self) -> &'static str {
        self.normalise_note
    }

    fn players(&self) -> &'static [&'static str] {
        self.players
    }

    fn final_player(&self) -> &'static str {
        self.final_player
    }

    /// Refuses a player not among [`players`](Self::players), then plays the set's game.
    fn play(&self, p1: &[f32], p2: &[f32], player: &str, opening: u64) -> Result<Outcome, String> {
        if !self.players.contains(&player) {
            return Err(unknown_player(self, player));
        }
        (self.play)(self, p1, p2, player, opening)
    }
}

/// Plays a fitness game from `state` to its end, each move from `mover` (the mover's index, 0
/// or 1, and the position). A side with no move to give ends the game where it stands: a draw
/// unless the position is decided.
pub fn play_out<G: Game>(
    mut state: G,
    mut mover: impl FnMut(usize, &G) -> Result<Option<Action>, String>,
) -> Result<Outcome, String> {
    while !state.is_terminal() {
        match mover(state.to_move().index(), &state)? {
            Some(a) => state.apply(a),
            None => break,
        }
    }
    Ok(state.outcome().unwrap_or(Outcome::Draw))
}

/// Plays a fitness game from `state` between two MCTS searches of `iterations` a move, one a
/// side: `search` builds side `k`'s (0 or 1) from its configuration, seeded by the opening
/// number (`derive_seed(opening, k + 1)`).
pub fn play_searches<G: Game, T: TreePolicy, R: RolloutPolicy<G>>(
    state: G,
    opening: u64,
    iterations: u64,
    search: impl Fn(usize, SearchConfig) -> Search<G, T, R>,
) -> Result<Outcome, String> {
    let mut searches = [0, 1].map(|k| {
        search(
            k,
            SearchConfig {
                seed: derive_seed(opening, k as u64 + 1),
                budget: Budget::iterations(iterations),
                ..SearchConfig::default()
            },
        )
    });
    play_out(state, |side, s| {
        let result = searches[side].run(s).map_err(|e| e.to_string())?;
        Ok(Some(result.best))
    })
}

/// Plays a fitness game from `state` between two players, one a side, each told of the game
/// first: the players of sets whose fitness player is the engine's own (a search to a fixed
/// depth). A player's error is the game's.
pub fn play_agents<G: Game, A: Agent<G>>(state: G, mut players: [A; 2]) -> Result<Outcome, String> {
    for p in &mut players {
        p.new_game(&state, &[]).map_err(|e| e.to_string())?;
    }
    play_out(state, |side, s| {
        let choice = players[side].choose(s, &[]).map_err(|e| e.to_string())?;
        Ok(Some(choice.action))
    })
}

/// An evaluation's weights as whole numbers: `w` must hold one number for each of `names`
/// (a tuned file's, or a match's), each finite and within `+-max`.
pub fn whole_weights(w: &[f32], names: &[String], max: i32) -> Result<Vec<i32>, String> {
    if w.len() != names.len() {
        return Err(format!(
            "the evaluation weights are {} numbers ({}), not {}",
            names.len(),
            names.join(", "),
            w.len()
        ));
    }
    if let Some(bad) = w.iter().find(|x| !x.is_finite() || x.abs() > max as f32) {
        return Err(format!(
            "an evaluation weight is {bad}: each must be a number within +-{max}"
        ));
    }
    Ok(w.iter().map(|x| x.round() as i32).collect())
}

/// The number in a fitness player's name (`pvs4`: 4, `mcts200`: 200) of `tunable`'s, which
/// must be one of its [`players`](Tunable::players).
pub fn fitness_number(tunable: &dyn Tunable, player: &str) -> Result<u32, String> {
    tunable
        .players()
        .contains(&player)
        .then(|| {
            player
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .parse()
                .ok()
        })
        .flatten()
        .ok_or_else(|| unknown_player(tunable, player))
}

/// The error of a fitness player `tunable` does not offer.
fn unknown_player(tunable: &dyn Tunable, player: &str) -> String {
    format!(
        "no fitness player '{player}' for {}'s {} set ({})",
        tunable.game(),
        tunable.set(),
        tunable.players().join(", ")
    )
}

/// Weights on disk: which game and set they are for, and each weight by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightsFile {
    pub game: String,
    pub set: String,
    /// `(name, value)` in the set's order.
    pub weights: Vec<(String, f32)>,
}

impl WeightsFile {
    /// The file for `values` of `tunable`'s set.
    pub fn new(tunable: &dyn Tunable, values: &[f32]) -> WeightsFile {
        WeightsFile {
            game: tunable.game().to_string(),
            set: tunable.set().to_string(),
            weights: tunable
                .names()
                .into_iter()
                .zip(values.iter().copied())
                .collect(),
        }
    }

    /// The values, checked against `tunable`: the same game, set and names in the same order,
    /// every value finite.
    pub fn values_for(&self, tunable: &dyn Tunable) -> Result<Vec<f32>, String> {
        if self.game != tunable.game() || self.set != tunable.set() {
            return Err(format!(
                "weights for {} ({}), not for {} ({})",
                self.game,
                self.set,
                tunable.game(),
                tunable.set()
            ));
        }
        let names = tunable.names();
        if self.weights.len() != names.len() {
            return Err(format!(
                "{} weights, the set '{}' has {}",
                self.weights.len(),
                tunable.set(),
                names.len()
            ));
        }
        for ((name, value), expected) in self.weights.iter().zip(&names) {
            if name != expected {
                return Err(format!("weight '{name}' where '{expected}' was expected"));
            }
            if !value.is_finite() {
                return Err(format!("weight '{name}' is {value}"));
            }
        }
        Ok(self.weights.iter().map(|(_, v)| *v).collect())
    }

    /// Reads a weights file of any game and set; errors name the file.
    pub fn read(path: &Path) -> Result<WeightsFile, String> {
        let text = crate::line_reader::read_text_file(path)
            .map_err(|e| format!("cannot read weights file {}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("weights file {}: {e}", path.display()))
    }

    /// Reads and checks a weights file for `tunable`; errors name the file.
    pub fn load(path: &Path, tunable: &dyn Tunable) -> Result<Vec<f32>, String> {
        WeightsFile::read(path)?
            .values_for(tunable)
            .map_err(|e| format!("weights file {}: {e}", path.display()))
    }

    /// Reads and checks a weights file for `tunable`, then turns its values into `T` by
    /// `parse`; errors name the file.
    pub fn load_as<T>(
        path: &Path,
        tunable: &dyn Tunable,
        parse: impl FnOnce(&[f32]) -> Result<T, String>,
    ) -> Result<T, String> {
        parse(&WeightsFile::load(path, tunable)?)
            .map_err(|e| format!("weights file {}: {e}", path.display()))
    }

    /// Writes the file whole or not at all (a temporary file renamed over the target).
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).expect("weights serialise");
        write_atomically(path, text.as_bytes())
    }
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`: a reader (or
/// a run killed half-way) sees the old file or the new one, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::tunable;

    #[test]
    fn a_weights_file_round_trips_and_is_checked() {
        let t = tunable("amazons", None).unwrap();
        let start = t.start();
        let file = WeightsFile::new(t.as_ref(), &start);
        let dir = std::env::temp_dir().join(format!("tuning-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.json");
        file.save(&path).unwrap();
        assert_eq!(WeightsFile::load(&path, t.as_ref()).unwrap(), start);

        let mut other = file.clone();
        other.game = "dots".into();
        assert!(other
            .values_for(t.as_ref())
            .unwrap_err()
            .contains("not for amazons"));
        let mut short = file.clone();
        short.weights.pop();
        assert!(short
            .values_for(t.as_ref())
            .unwrap_err()
            .contains("weights, the set"));
        let mut renamed = file.clone();
        renamed.weights[0].0 = "x".into();
        assert!(renamed.values_for(t.as_ref()).unwrap_err().contains("'x'"));

        std::fs::write(&path, "{\"game\": \"amazons\"").unwrap();
        let e = WeightsFile::load(&path, t.as_ref()).unwrap_err();
        assert!(e.contains("w.json"), "{e}");
        assert!(tunable("chess", None).is_err());
        assert!(tunable("amazons", Some("pieces")).is_err());
        let other_set = tunable("amazons", Some("w-segments")).unwrap();
        let e = file.values_for(other_set.as_ref()).unwrap_err();
        assert!(e.contains("phases") && e.contains("w-segments"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every weight set of every game: a name a weight, the start saved to a weights file
    /// loads back as it was and is what the set's final player reads (`KIND:weights=FILE`),
    /// the set is found by its name, and the game's other sets refuse the file.
    #[test]
    fn every_weight_set_round_trips_through_its_weights_file() {
        use crate::agents::parse_spec;
        use crate::game_spec::GameSpec;
        use crate::games::RegisteredGame;
        use crate::registry::{tunable_games, GameVisitor, Lookup};

        struct Check(std::path::PathBuf);
        impl GameVisitor for Check {
            type Output = usize;
            fn visit<G: RegisteredGame>(self, start: G) -> usize {
                let sets = G::weight_sets();
                for set in &sets {
                    let (game, name) = (set.game(), set.set());
                    assert_eq!(game, G::NAME);
                    let values = set.start();
                    assert_eq!(values.len(), set.names().len(), "{game} {name}");
                    let path = self.0.join(format!("{game}-{name}.json"));
                    WeightsFile::new(set.as_ref(), &values).save(&path).unwrap();
                    assert_eq!(WeightsFile::load(&path, set.as_ref()).unwrap(), values);
                    let spec = format!("{}:weights={}", set.final_player(), path.display());
                    if let Err(e) = G::build_player(&parse_spec(&spec).unwrap(), &start) {
                        panic!("{game} {name}: {spec}: {e}");
                    }
                    assert_eq!(G::tunable(Some(name)).unwrap().unwrap().set(), name);
                    for other in sets.iter().filter(|o| o.set() != name) {
                        let e = WeightsFile::load(&path, other.as_ref()).unwrap_err();
                        assert!(
                            e.contains(&format!("not for {game} ({})", other.set())),
                            "{e}"
                        );
                    }
                }
                assert_eq!(G::tunable(None).unwrap().unwrap().set(), sets[0].set());
                sets.len()
            }
        }
        let dir = std::env::temp_dir().join(format!("weight-sets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let games = tunable_games();
        assert!(games.len() >= 3, "{games:?}");
        for game in games {
            let spec = GameSpec::named(game).unwrap();
            assert!(spec.visit(Check(dir.clone())).unwrap() >= 1, "{game}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The shipped tuned weights load for their set.
    #[test]
    fn the_shipped_amazons_weights_load() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models/amazons/tuned-phases.json");
        let t = tunable("amazons", Some("phases")).unwrap();
        let values = WeightsFile::load(&path, t.as_ref()).unwrap();
        assert_eq!(values.len(), 15);
        // Scaled as the engine plays them: each phase sums to the start's.
        for (v, s) in values.chunks(5).zip(t.start().chunks(5)) {
            assert!((v.iter().sum::<f32>() - s.iter().sum::<f32>()).abs() < 1e-3);
        }
    }
}
