//! The settings of a self-play run: a TOML file from `configs/`, any key overridden by a flag.

use std::path::{Path, PathBuf};

use engine::games::GameSpec;
use engine::mcts::CounterMode;
use engine::registry::Lookup;
use serde::{Deserialize, Serialize};

/// How the search reads its win counters (the paper's Table 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    Double,
    Single,
}

impl From<Counter> for CounterMode {
    fn from(c: Counter) -> CounterMode {
        match c {
            Counter::Double => CounterMode::Double,
            Counter::Single => CounterMode::Single,
        }
    }
}

/// Every setting of `selfplay run`. Keys of the TOML file are these field names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// A registered game: `dots_and_boxes`, `tictactoe`, `amazons` (`engine games` lists them).
    pub game: String,
    /// Board size in boxes (Dots and Boxes; ignored by games without these parameters).
    pub rows: usize,
    pub cols: usize,
    /// Other game parameters as `key=value` (Amazons: `["size=8", "turn=whole"]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// Games in the whole run (all shards together).
    pub games: u64,
    /// MCTS iterations for every searched move (the paper: 100,000).
    pub iterations: u64,
    /// UCB exploration constant.
    pub cp: f64,
    pub counter: Counter,
    /// Games played at once; 0 = one per core (`threads` is its old spelling).
    #[serde(alias = "threads")]
    pub parallel_games: usize,
    /// Threads inside one game's search (root parallel); 1 keeps the paper's search.
    pub search_threads: usize,
    /// Base seed: game k is played with a seed derived from (seed, k).
    pub seed: u64,
    /// Output folder (a sharded run writes into `out/shard-IIII-of-NNNN`).
    pub out: PathBuf,
    /// Variety: the first `sample_moves` searched moves of each game are drawn among the root
    /// moves in proportion to their visits instead of taking the most visited.
    pub sample_moves: u32,
    /// Variety: the first `random_opening_moves` moves are uniformly random, not searched.
    pub random_opening_moves: u32,
    /// Dots and Boxes: once this many edges or fewer are free, the exact endgame solver plays
    /// both sides (0: never), so every later position's outcome is its perfect-play result.
    pub solver_edges: u32,
    /// Keep every root move's visits and wins with each move (a future policy target).
    pub root_stats: bool,
    /// Shard count for a Kubernetes indexed Job (whose index is `JOB_COMPLETION_INDEX`).
    pub shards: Option<u32>,
    /// Force records to disk after this many games (records are written at once; this bounds
    /// what a power cut, not a kill, can lose).
    pub sync_every: u32,
    /// Instead of the built-in plain search, this player (any spec `engine match` takes, such
    /// as `nn:iterations=30000`) plays both sides, its root statistics kept with each searched
    /// move: the data `train run --value-targets search` learns from. The built-in search's
    /// own settings (`iterations`, `cp`, `counter`, `search_threads`, `sample_moves`,
    /// `solver_edges`) are then the spec's to give.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig {
            game: "dots_and_boxes".into(),
            rows: 5,
            cols: 5,
            params: Vec::new(),
            games: 1000,
            iterations: 100_000,
            cp: engine::mcts::Ucb::DEFAULT_CP,
            counter: Counter::Double,
            parallel_games: 0,
            search_threads: 1,
            seed: 1,
            out: PathBuf::from("data/selfplay-5x5"),
            sample_moves: 0,
            random_opening_moves: 0,
            solver_edges: 0,
            root_stats: true,
            shards: None,
            sync_every: 16,
            player: None,
        }
    }
}

impl RunConfig {
    /// Reads a TOML file; an unknown key or a value of the wrong type is an error naming the
    /// file, the key and the line.
    pub fn from_file(path: &Path) -> Result<RunConfig, String> {
        let text = engine::line_reader::read_text_file(path)
            .map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        RunConfig::from_toml(&text).map_err(|e| format!("config {}: {e}", path.display()))
    }

    pub fn from_toml(text: &str) -> Result<RunConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())
    }

    /// The game and board this config plays.
    pub fn spec(&self) -> Result<GameSpec, String> {
        let mut params = self.params.clone();
        let named = GameSpec::named(&self.game)?;
        if named.get("rows").is_some() {
            // Pushed below: given here too, they would be given twice.
            let board =
                |p: &&String| matches!(p.split('=').next().map(str::trim), Some("rows" | "cols"));
            if let Some(p) = params.iter().find(board) {
                return Err(format!(
                    "game parameter '{p}': rows and cols have keys of their own (--rows, --cols)"
                ));
            }
            params.push(format!("rows={}", self.rows));
            params.push(format!("cols={}", self.cols));
        }
        GameSpec::parse(&self.game, &params)
    }

    /// Checks values a TOML type cannot: ranges and the game.
    pub fn validate(&self) -> Result<(), String> {
        self.spec()?;
        let positive = [
            ("games", self.games),
            ("iterations", self.iterations),
            ("search_threads", self.search_threads as u64),
            ("sync_every", self.sync_every as u64),
        ];
        for (key, value) in positive {
            if value == 0 {
                return Err(format!("{key} must be at least 1"));
            }
        }
        engine::cli::threads("parallel_games", self.parallel_games)?;
        engine::cli::threads("search_threads", self.search_threads)?;
        if !(self.cp.is_finite() && self.cp >= 0.0) {
            return Err(format!("cp must be a finite number >= 0, not {}", self.cp));
        }
        if self.iterations > u32::MAX as u64 {
            return Err(format!(
                "iterations {} does not fit the record's 32-bit field",
                self.iterations
            ));
        }
        if self.shards == Some(0) {
            return Err("shards must be at least 1".into());
        }
        if self.solver_edges > 0 && self.game != "dots_and_boxes" {
            return Err("solver_edges is for dots_and_boxes".into());
        }
        if self.solver_edges > 40 {
            return Err(format!(
                "solver_edges {} is beyond what the solver answers in reasonable time (at most 40; 30 takes milliseconds)",
                self.solver_edges
            ));
        }
        if let Some(player) = &self.player {
            self.validate_player(player)?;
        }
        Ok(())
    }

    /// With `player`, the built-in search's settings must be left at their defaults: the
    /// player's spec says how it searches, and a setting that would be ignored is refused.
    fn validate_player(&self, player: &str) -> Result<(), String> {
        // The game reads its own kinds and keys: build the player once to check them.
        struct Build(engine::agents::AgentSpec);
        impl engine::registry::GameVisitor for Build {
            type Output = Result<(), String>;
            fn visit<G: engine::games::RegisteredGame>(self, start: G) -> Result<(), String> {
                G::build_player(&self.0, &start).map(|_| ())
            }
        }
        let parsed = engine::agents::parse_spec(player)?;
        self.spec()?.visit(Build(parsed))??;
        let default = RunConfig::default();
        let unused = [
            ("iterations", self.iterations != default.iterations),
            ("cp", self.cp != default.cp),
            ("counter", self.counter != default.counter),
            (
                "search_threads",
                self.search_threads != default.search_threads,
            ),
            ("sample_moves", self.sample_moves != default.sample_moves),
            ("solver_edges", self.solver_edges != default.solver_edges),
        ];
        match unused.iter().find(|(_, set)| *set) {
            Some((key, _)) => Err(format!(
                "{key} is the built-in search's setting; with player {player:?} the player's \
                 spec says how it searches (for example nn:iterations=30000,solver_edges=34)"
            )),
            None => Ok(()),
        }
    }

    /// Games played at once: `parallel_games`, or one per core (over the search threads) when
    /// it is 0.
    pub fn games_at_once(&self) -> usize {
        if self.parallel_games > 0 {
            return self.parallel_games;
        }
        let cores = engine::cli::cores();
        (cores / self.search_threads.max(1)).max(1)
    }

    /// The settings that decide which games are played. Two runs with the same identity play
    /// the same game for the same index; a dataset folder only takes games of one identity.
    /// (`games`, `parallel_games`, `out` and the sync interval change how many games and how fast,
    /// not which.)
    pub fn identity(&self) -> serde_json::Value {
        if let Some(player) = &self.player {
            // The player's spec replaces the built-in search's settings.
            return serde_json::json!({
                "game": self.spec().ok(),
                "player": player,
                "seed": self.seed,
                "random_opening_moves": self.random_opening_moves,
                "root_stats": self.root_stats,
            });
        }
        let mut identity = serde_json::json!({
            "game": self.spec().ok(),
            "iterations": self.iterations,
            "cp": self.cp,
            "counter": self.counter,
            "search_threads": self.search_threads,
            "seed": self.seed,
            "sample_moves": self.sample_moves,
            "random_opening_moves": self.random_opening_moves,
            "root_stats": self.root_stats,
        });
        // Only when set, so that datasets made before the key existed keep their identity.
        if self.solver_edges > 0 {
            identity["solver_edges"] = self.solver_edges.into();
        }
        identity
    }
}

/// What a dataset's manifest keeps of the run that wrote it: [`RunConfig::identity`] but the
/// game. A key absent is the built-in search's default (a run with a player has none of them).
#[derive(Deserialize)]
struct Identity {
    player: Option<String>,
    iterations: Option<u64>,
    cp: Option<f64>,
    counter: Option<Counter>,
    search_threads: Option<usize>,
    seed: u64,
    sample_moves: Option<u32>,
    random_opening_moves: u32,
    root_stats: bool,
    solver_edges: Option<u32>,
}

impl RunConfig {
    /// The settings of the run that wrote a dataset, read back from its manifest's `config`
    /// (the run's [`identity`](Self::identity)), playing `games` in the whole run: what
    /// `--resume` without a config file continues. The keys an identity leaves out (`out`,
    /// `parallel_games`, `shards`, `sync_every`) are this config's.
    pub fn resumed_from(
        &self,
        identity: &serde_json::Value,
        games: u64,
    ) -> Result<RunConfig, String> {
        fn unreadable<E: std::fmt::Display>(e: E) -> String {
            format!(
                "the dataset's settings cannot be read back from its manifest ({e}); give them \
                 as flags or a --config"
            )
        }
        let spec = GameSpec::from_json(&identity["game"]).map_err(unreadable)?;
        let kept: Identity = serde_json::from_value(identity.clone()).map_err(unreadable)?;
        let default = RunConfig::default();
        let mut config = RunConfig {
            game: spec.name().to_string(),
            params: Vec::new(),
            games,
            iterations: kept.iterations.unwrap_or(default.iterations),
            cp: kept.cp.unwrap_or(default.cp),
            counter: kept.counter.unwrap_or(default.counter),
            search_threads: kept.search_threads.unwrap_or(default.search_threads),
            seed: kept.seed,
            sample_moves: kept.sample_moves.unwrap_or(default.sample_moves),
            random_opening_moves: kept.random_opening_moves,
            solver_edges: kept.solver_edges.unwrap_or(0),
            root_stats: kept.root_stats,
            player: kept.player,
            ..self.clone()
        };
        if let (Some(rows), Some(cols)) = (spec.get("rows"), spec.get("cols")) {
            config.rows = rows as usize;
            config.cols = cols as usize;
        }
        // The other parameters as `key=value`, those at their default left out as a run's
        // flags would leave them.
        config.params = spec
            .info()
            .params
            .iter()
            .zip(spec.values())
            .filter(|(p, v)| !matches!(p.name, "rows" | "cols") && **v != p.default)
            .map(|(p, v)| format!("{}={}", p.name, p.show(*v)))
            .collect();
        Ok(config)
    }
}

/// The CPUs of a Slurm task (`SLURM_CPUS_PER_TASK`, set by `--cpus-per-task`; `env` looks a
/// variable up), at most [`engine::cli::MAX_THREADS`]: what "one game a core" counts inside a
/// task, since a cluster that does not bind CPUs shows each task the whole node. None outside
/// Slurm; a value that is not a positive number is refused.
pub fn slurm_cpus(env: impl Fn(&str) -> Option<String>) -> Result<Option<usize>, String> {
    let Some(text) = env("SLURM_CPUS_PER_TASK") else {
        return Ok(None);
    };
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(Some(n.min(engine::cli::MAX_THREADS))),
        _ => Err(format!(
            "environment variable SLURM_CPUS_PER_TASK='{text}' is not a positive number; \
             pass --parallel-games N"
        )),
    }
}

/// The keys on which two identities differ, as "key: a vs b" lines.
pub fn identity_differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let (ma, mb) = (
        a.as_object().unwrap_or(&empty),
        b.as_object().unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| ma.get(*k) != mb.get(*k))
        .map(|k| {
            let show =
                |v: Option<&serde_json::Value>| v.map_or("(absent)".into(), |v| v.to_string());
            format!("{k}: {} vs {}", show(ma.get(k)), show(mb.get(k)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_cpus_count_a_task_s_cores() {
        let env = |value: Option<&'static str>| {
            move |name: &str| (name == "SLURM_CPUS_PER_TASK").then_some(value?.to_string())
        };
        assert_eq!(slurm_cpus(env(None)), Ok(None));
        assert_eq!(slurm_cpus(env(Some("8"))), Ok(Some(8)));
        assert_eq!(
            slurm_cpus(env(Some("1000"))),
            Ok(Some(engine::cli::MAX_THREADS))
        );
        for bad in ["0", "x", ""] {
            let err = slurm_cpus(env(Some(bad))).unwrap_err();
            assert!(
                err.contains("SLURM_CPUS_PER_TASK") && err.contains("--parallel-games"),
                "{err}"
            );
        }
    }

    #[test]
    fn shipped_configs_parse_and_validate() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with("selfplay") && name.ends_with(".toml") {
                let config = RunConfig::from_file(&path).unwrap();
                config.validate().unwrap();
                seen += 1;
            }
        }
        assert!(seen >= 2, "configs/selfplay-*.toml");
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let err = RunConfig::from_toml("games = 10\niteratons = 5\n").unwrap_err();
        assert!(err.contains("iteratons"), "{err}");
        assert!(err.contains("line 2"), "{err}");
        let err = RunConfig::from_toml("games = \"many\"\n").unwrap_err();
        assert!(err.contains("games") || err.contains("line 1"), "{err}");
    }

    #[test]
    fn bad_values_are_named() {
        let cases = [
            ("iterations = 0", "iterations"),
            ("games = 0", "games"),
            ("cp = -1.0", "cp"),
            ("game = \"chess\"", "chess"),
            ("rows = 9", "9"),
            ("search_threads = 0", "search_threads"),
            ("params = [\"rows=3\"]", "--rows"),
        ];
        for (text, key) in cases {
            let err = RunConfig::from_toml(text).unwrap().validate().unwrap_err();
            assert!(err.contains(key), "{text}: {err}");
        }
    }

    #[test]
    fn identity_ignores_how_fast_and_how_many() {
        let a = RunConfig::default();
        let b = RunConfig {
            games: 5,
            parallel_games: 7,
            out: "elsewhere".into(),
            sync_every: 1,
            ..RunConfig::default()
        };
        assert_eq!(a.identity(), b.identity());
        let c = RunConfig {
            iterations: 5,
            ..RunConfig::default()
        };
        let diff = identity_differences(&a.identity(), &c.identity());
        assert_eq!(diff, vec!["iterations: 100000 vs 5".to_string()]);
    }

    #[test]
    fn a_resume_reads_every_setting_back_from_the_identity() {
        let runs = [
            "game = \"gomoku\"\nparams = [\"size=9\", \"rule=renju\"]\ngames = 7\n\
             iterations = 300\ncp = 0.7\ncounter = \"single\"\nseed = 9\nsample_moves = 4\n\
             random_opening_moves = 2\nroot_stats = false\nsearch_threads = 2\n",
            "rows = 3\ncols = 4\ngames = 5\nsolver_edges = 12\nseed = 3\n",
            "game = \"tictactoe\"\nplayer = \"mcts:iterations=200\"\ngames = 4\nseed = 8\n",
        ];
        // Where the run writes and how fast are this invocation's, not the dataset's.
        let here = RunConfig {
            out: "elsewhere".into(),
            parallel_games: 3,
            sync_every: 2,
            ..RunConfig::default()
        };
        for text in runs {
            let run = RunConfig::from_toml(text).unwrap();
            run.validate().unwrap();
            let back = here.resumed_from(&run.identity(), run.games).unwrap();
            assert_eq!(
                back,
                RunConfig {
                    out: here.out.clone(),
                    parallel_games: 3,
                    sync_every: 2,
                    ..run.clone()
                },
                "{text}"
            );
            assert_eq!(back.identity(), run.identity(), "{text}");
        }
        let err = here
            .resumed_from(&serde_json::json!({"game": {"game": "chess"}}), 1)
            .unwrap_err();
        assert!(err.contains("chess"), "{err}");
    }

    #[test]
    fn a_player_replaces_the_built_in_search_and_its_settings() {
        let config = RunConfig::from_toml("player = \"nn:iterations=2000\"\ngames = 4\n").unwrap();
        config.validate().unwrap();
        let identity = config.identity();
        assert_eq!(identity["player"], "nn:iterations=2000");
        assert!(identity.get("iterations").is_none(), "{identity}");
        let other = RunConfig {
            player: Some("mcts:iterations=2000".into()),
            ..config.clone()
        };
        let diff = identity_differences(&identity, &other.identity());
        assert_eq!(diff.len(), 1, "{diff:?}");
        assert!(diff[0].starts_with("player:"), "{diff:?}");
        // A setting of the built-in search is refused by name, not ignored.
        for text in [
            "iterations = 500",
            "cp = 0.5",
            "solver_edges = 30",
            "sample_moves = 2",
        ] {
            let key = text.split(' ').next().unwrap();
            let err = RunConfig::from_toml(&format!("player = \"nn\"\n{text}\n"))
                .unwrap()
                .validate()
                .unwrap_err();
            assert!(err.starts_with(key), "{text}: {err}");
        }
        let err = RunConfig::from_toml("player = \"nn:nonsense=1\"\n")
            .unwrap()
            .validate()
            .unwrap_err();
        assert!(err.contains("nonsense"), "{err}");
    }
}
