//! The settings of a tuning run: a TOML file from `configs/` or a preset, any key overridden by
//! a flag. Unknown keys are refused by name.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How a weight is written in a chromosome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// The paper's: `bits` bits a weight, the code scaled onto [min, max].
    Binary,
    /// One float a weight; mutation adds Gaussian noise.
    Real,
}

/// Every setting of `tune run`. Keys of the TOML file are these field names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TuneConfig {
    /// A game with a weight set to tune (`amazons`).
    pub game: String,
    /// The game's weight set (Amazons: `phases`, the engine's evaluation, five terms in three
    /// phases; `w-segments`, the GA paper's t1, t2, c1, c2 in five segments of `w`).
    pub set: String,
    /// The fitness player (Amazons: `greedy`, the evaluation after one turn; `alphabeta2`).
    pub player: String,
    /// Islands: sub-populations that evolve apart and exchange migrants.
    pub islands: usize,
    /// Individuals on each island (a multiple of `group_size`).
    pub population: usize,
    /// Individuals in a tournament group; every pair plays both colours.
    pub group_size: usize,
    pub generations: usize,
    pub encoding: Encoding,
    /// Bits a weight with the binary encoding (the paper: 7, two decimals in [0, 1]).
    pub bits: u32,
    /// The range of every weight.
    pub min: f32,
    pub max: f32,
    /// Adaptive crossover probability: `pc1` at or below the mean fitness, falling to `pc2`
    /// at the best (the paper's Formula 5).
    pub pc1: f64,
    pub pc2: f64,
    /// Adaptive mutation probability, per bit (binary) or per weight (real), from `pm1` to
    /// `pm2` (Formula 6).
    pub pm1: f64,
    pub pm2: f64,
    /// The standard deviation of a real-coded mutation, as a share of the range.
    pub sigma: f32,
    /// Generations between two migrations (an epoch).
    pub migration_interval: usize,
    /// Individuals each island sends to every other island at a migration (its best); they
    /// take the places of the receivers' newest children.
    pub migrants: usize,
    /// How long an island waits for the others' migrants before it goes on without them.
    pub migration_timeout_s: u64,
    /// A yardstick the tournament scores are not: each generation the best individual of every
    /// island plays this many fitness games against the starting weights (half of them with
    /// each colour; 0 turns it off).
    pub yardstick_games: usize,
    /// Games played at once; 0 = one per core (`threads` is its old spelling).
    #[serde(alias = "threads")]
    pub parallel_games: usize,
    pub seed: u64,
    /// The run folder (checkpoints, migrants, fitness.csv, the best weights).
    pub out: PathBuf,
    /// The final match, tuned weights against the starting ones with the engine's default
    /// search: games (seats swapped; 0 skips it) and time a move.
    pub final_games: usize,
    pub final_time_ms: u64,
    /// Shard count for a Kubernetes indexed Job (whose index is `JOB_COMPLETION_INDEX`).
    pub shards: Option<u32>,
}

impl Default for TuneConfig {
    /// The built-in default: about 12 minutes on two cores.
    fn default() -> TuneConfig {
        TuneConfig {
            game: "amazons".into(),
            set: "phases".into(),
            player: "greedy".into(),
            islands: 2,
            population: 32,
            group_size: 4,
            generations: 80,
            encoding: Encoding::Binary,
            bits: 7,
            min: 0.0,
            max: 1.0,
            pc1: 0.9,
            pc2: 0.6,
            pm1: 0.1,
            pm2: 0.001,
            sigma: 0.1,
            migration_interval: 5,
            migrants: 2,
            migration_timeout_s: 600,
            yardstick_games: 16,
            parallel_games: 0,
            seed: 1,
            out: PathBuf::from("runs/tune"),
            final_games: 20,
            final_time_ms: 100,
            shards: None,
        }
    }
}

/// The named starting points of `--preset`.
pub const PRESETS: [&str; 2] = ["default", "paper"];

impl TuneConfig {
    /// A preset: `default`, or `paper` (the paper's weight set, 120 individuals in 30 groups
    /// of 4 on 3 islands as the paper's 3 threads, 100 generations, and a 100-game final match
    /// at 1 s a move).
    pub fn preset(name: &str) -> Result<TuneConfig, String> {
        match name {
            "default" => Ok(TuneConfig::default()),
            "paper" => Ok(TuneConfig {
                set: "w-segments".into(),
                islands: 3,
                population: 40,
                generations: 100,
                migration_interval: 10,
                out: PathBuf::from("runs/tune-paper"),
                final_games: 100,
                final_time_ms: 1000,
                ..TuneConfig::default()
            }),
            other => Err(format!(
                "no preset '{other}' (presets: {})",
                PRESETS.join(", ")
            )),
        }
    }

    /// Reads a TOML file; an unknown key or a value of the wrong type is an error naming the
    /// file, the key and the line.
    pub fn from_file(path: &Path) -> Result<TuneConfig, String> {
        let text = engine::line_reader::read_text_file(path)
            .map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        TuneConfig::from_toml(&text).map_err(|e| format!("config {}: {e}", path.display()))
    }

    pub fn from_toml(text: &str) -> Result<TuneConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())
    }

    pub fn validate(&self) -> Result<(), String> {
        let tunable = engine::registry::tunable(&self.game, Some(&self.set))?;
        if !tunable.players().contains(&self.player.as_str()) {
            return Err(format!(
                "player '{}' is not a fitness player of {} ({})",
                self.player,
                self.game,
                tunable.players().join(", ")
            ));
        }
        engine::cli::threads("parallel_games", self.parallel_games)?;
        if self.islands == 0 || self.generations == 0 {
            return Err("islands and generations must be positive".into());
        }
        if self.group_size < 2 || self.population < self.group_size {
            return Err(format!(
                "group_size must be at least 2 and population at least group_size (got {} and {})",
                self.group_size, self.population
            ));
        }
        if self.population % self.group_size != 0 || self.group_size % 2 != 0 {
            return Err(format!(
                "population ({}) must be a multiple of group_size ({}), which must be even: the better half of each group are the parents",
                self.population, self.group_size
            ));
        }
        if !(1..=24).contains(&self.bits) {
            return Err(format!("bits must be 1 to 24, got {}", self.bits));
        }
        if !(self.min.is_finite() && self.max.is_finite() && self.min < self.max) {
            return Err(format!(
                "min must be below max, got {} and {}",
                self.min, self.max
            ));
        }
        for (name, p) in [
            ("pc1", self.pc1),
            ("pc2", self.pc2),
            ("pm1", self.pm1),
            ("pm2", self.pm2),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("{name} is a probability, got {p}"));
            }
        }
        if !(self.sigma.is_finite() && self.sigma > 0.0) {
            return Err(format!("sigma must be positive, got {}", self.sigma));
        }
        if self.yardstick_games % 2 == 1 {
            return Err(format!(
                "yardstick_games must be even (each colour half the games), got {}",
                self.yardstick_games
            ));
        }
        if self.migration_interval == 0 {
            return Err("migration_interval must be positive".into());
        }
        if self.migrants * (self.islands - 1) * 2 > self.population {
            return Err(format!(
                "migrants ({}) from each of the {} other islands must fit in half an island's population ({})",
                self.migrants,
                self.islands - 1,
                self.population
            ));
        }
        Ok(())
    }

    /// Games played at once (`parallel_games`, 0: one a core).
    pub fn games_at_once(&self) -> usize {
        engine::cli::or_all_cores(self.parallel_games)
    }

    /// What decides the result: every key but where and how fast the run goes. A checkpoint
    /// written under another identity is refused.
    pub fn identity(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("a config serialises");
        let map = v.as_object_mut().expect("an object");
        for key in [
            "parallel_games",
            "out",
            "shards",
            "migration_timeout_s",
            "final_games",
            "final_time_ms",
        ] {
            map.remove(key);
        }
        v
    }

    /// Fitness games per island and generation: the paper's Formula (3),
    /// `((m/n)^2 - m/n) * n` for `m` individuals in `n` groups.
    pub fn games_per_generation(&self) -> usize {
        let groups = self.population / self.group_size;
        (self.group_size * self.group_size - self.group_size) * groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_shipped_configs_validate() {
        for name in PRESETS {
            TuneConfig::preset(name).unwrap().validate().unwrap();
        }
        let paper = TuneConfig::preset("paper").unwrap();
        assert_eq!(paper.islands * paper.population, 120);
        assert_eq!(paper.islands * paper.population / paper.group_size, 30);
        // Formula (3) for the paper's 120 individuals in 30 groups: 360 games.
        assert_eq!(paper.games_per_generation() * paper.islands, 360);
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
        let shipped = TuneConfig::from_file(&dir.join("tune-amazons.toml")).unwrap();
        shipped.validate().unwrap();
        assert_eq!(shipped, TuneConfig::default());
    }

    #[test]
    fn bad_keys_and_values_are_named() {
        let e = TuneConfig::from_toml("islands = 2\npopulaton = 8\n").unwrap_err();
        assert!(e.contains("populaton") && e.contains("line 2"), "{e}");
        let e = TuneConfig::from_toml("encoding = \"gray\"").unwrap_err();
        assert!(e.contains("gray"), "{e}");
        for (bad, named) in [
            (
                TuneConfig {
                    population: 10,
                    ..TuneConfig::default()
                },
                "population",
            ),
            (
                TuneConfig {
                    group_size: 3,
                    population: 9,
                    ..TuneConfig::default()
                },
                "even",
            ),
            (
                TuneConfig {
                    pc1: 1.5,
                    ..TuneConfig::default()
                },
                "pc1",
            ),
            (
                TuneConfig {
                    min: 1.0,
                    max: 0.0,
                    ..TuneConfig::default()
                },
                "min",
            ),
            (
                TuneConfig {
                    player: "random".into(),
                    ..TuneConfig::default()
                },
                "random",
            ),
            (
                TuneConfig {
                    game: "chess".into(),
                    ..TuneConfig::default()
                },
                "chess",
            ),
            (
                TuneConfig {
                    migrants: 17,
                    ..TuneConfig::default()
                },
                "migrants",
            ),
        ] {
            let e = bad.validate().unwrap_err();
            assert!(e.contains(named), "{named}: {e}");
        }
    }

    #[test]
    fn identity_ignores_where_and_how_fast() {
        let a = TuneConfig::default();
        let b = TuneConfig {
            parallel_games: 7,
            out: "elsewhere".into(),
            final_games: 4,
            ..a.clone()
        };
        assert_eq!(a.identity(), b.identity());
        let c = TuneConfig {
            seed: 2,
            ..a.clone()
        };
        assert_ne!(a.identity(), c.identity());
    }
}
