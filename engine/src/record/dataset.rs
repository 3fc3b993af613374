//! Datasets (a folder with a manifest and record files) and reading them as training positions.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::file::{RecordReader, FORMAT_VERSION};
use super::RecordError;
use crate::game::{Game, Outcome, Player};
use crate::game_record::{GameRecord, MoveKind, MoveRecord};
// A manifest names its game: reading one reads the game by name among the registered ones.
use crate::registry::GameSpec;

/// The manifest's file name inside a dataset folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Which part of a sharded run a dataset is: games with `index % count == index_of_shard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    pub index: u32,
    pub count: u32,
}

/// One record file of a dataset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// File name, relative to the dataset folder.
    pub name: String,
    pub games: u64,
    pub positions: u64,
}

/// `manifest.json`: what a dataset holds and how it was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always "mcts-game-records".
    pub format: String,
    pub format_version: u32,
    pub game: GameSpec,
    /// The program and version that wrote the games.
    pub generator: String,
    /// The generator's settings that determine the games (a run into this folder with other
    /// settings is refused).
    pub config: serde_json::Value,
    /// How each game's seed follows from the config.
    pub seeds: String,
    pub shard: Option<ShardInfo>,
    /// Games the run was asked for (in this shard).
    pub games_planned: u64,
    /// Games and positions in the files when the manifest was last written (`selfplay run`
    /// writes it after every game, so a killed run's files hold at most the one game appended
    /// as it was killed more; the files are the truth, the manifest is rewritten on resume).
    pub games: u64,
    pub positions: u64,
    pub complete: bool,
    pub files: Vec<FileEntry>,
    /// For a merged dataset: the folders it was merged from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
}

impl Manifest {
    pub const FORMAT: &'static str = "mcts-game-records";

    /// Reads `DIR/manifest.json`.
    pub fn read(dir: &Path) -> Result<Manifest, RecordError> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| RecordError::io(&path, e))?;
        let manifest: Manifest =
            serde_json::from_str(&text).map_err(|e| RecordError::Manifest {
                path: path.clone(),
                detail: format!("not a dataset manifest: {e}"),
            })?;
        if manifest.format != Manifest::FORMAT || manifest.format_version != FORMAT_VERSION {
            return Err(RecordError::Manifest {
                path,
                detail: format!(
                    "format '{}' version {}; this build reads '{}' version {FORMAT_VERSION}",
                    manifest.format,
                    manifest.format_version,
                    Manifest::FORMAT
                ),
            });
        }
        Ok(manifest)
    }

    /// Writes `DIR/manifest.json` atomically (a temporary file renamed over the old one), forced
    /// to disk.
    pub fn write(&self, dir: &Path) -> Result<(), RecordError> {
        self.write_to(dir, true)
    }

    /// Writes `DIR/manifest.json` atomically as [`write`](Self::write) does, without forcing it
    /// to disk: a killed process loses nothing of it (the system keeps what was written), a
    /// power cut may. Cheap enough to follow every game a run appends.
    pub fn write_unsynced(&self, dir: &Path) -> Result<(), RecordError> {
        self.write_to(dir, false)
    }

    fn write_to(&self, dir: &Path, sync: bool) -> Result<(), RecordError> {
        let path = dir.join(MANIFEST_FILE);
        let tmp = dir.join(format!("{MANIFEST_FILE}.tmp"));
        let mut text = serde_json::to_string_pretty(self).expect("a manifest serialises");
        text.push('\n');
        std::fs::write(&tmp, text)
            .and_then(|_| {
                if sync {
                    std::fs::File::open(&tmp)?.sync_all()
                } else {
                    Ok(())
                }
            })
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| RecordError::io(&path, e))
    }
}

/// A dataset folder opened for reading.
#[derive(Clone, Debug)]
pub struct Dataset {
    dir: PathBuf,
    manifest: Manifest,
}

impl Dataset {
    /// Opens `dir`: reads its manifest and checks that every listed file exists.
    pub fn open(dir: &Path) -> Result<Dataset, RecordError> {
        let manifest = Manifest::read(dir)?;
        for f in &manifest.files {
            let path = dir.join(&f.name);
            if !path.is_file() {
                return Err(RecordError::Manifest {
                    path: dir.join(MANIFEST_FILE),
                    detail: format!("lists {} but {} is missing", f.name, path.display()),
                });
            }
        }
        Ok(Dataset {
            dir: dir.to_path_buf(),
            manifest,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn spec(&self) -> GameSpec {
        self.manifest.game
    }

    /// The record files, in manifest order.
    pub fn files(&self) -> Vec<PathBuf> {
        self.manifest
            .files
            .iter()
            .map(|f| self.dir.join(&f.name))
            .collect()
    }

    /// Every game of every file, in file order. Errors name the file and byte offset; a torn
    /// last record ([`RecordError::is_torn_tail`]) ends its file, and reading goes on with the
    /// next file if the caller continues.
    pub fn games(&self) -> Games {
        Games {
            files: self.files().into(),
            spec: self.spec(),
            current: None,
            location: (PathBuf::new(), 0),
            skip_torn: false,
            torn: Vec::new(),
        }
    }

    /// Every position of every game, for a game type `G` whose start position `initial` is
    /// built from the dataset's spec (`dataset.spec().start()?`).
    pub fn positions<G: Game>(&self, initial: G) -> Positions<G> {
        Positions {
            games: self.games(),
            initial,
            pending: VecDeque::new(),
            features: Vec::new(),
        }
    }
}

/// Iterator over the games of a dataset.
pub struct Games {
    files: VecDeque<PathBuf>,
    spec: GameSpec,
    current: Option<RecordReader>,
    location: (PathBuf, u64),
    skip_torn: bool,
    torn: Vec<String>,
}

impl Games {
    /// Skips torn last records (games a killed run had not finished) instead of returning
    /// them as errors; [`torn_tails`](Self::torn_tails) lists what was skipped.
    pub fn skipping_torn_tails(mut self) -> Games {
        self.skip_torn = true;
        self
    }

    /// The torn last records skipped so far, as messages naming file and offset.
    pub fn torn_tails(&self) -> &[String] {
        &self.torn
    }

    /// The file and byte offset of the game returned last.
    pub fn location(&self) -> (&Path, u64) {
        (&self.location.0, self.location.1)
    }
}

impl Iterator for Games {
    type Item = Result<GameRecord, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.current.is_none() {
                let path = self.files.pop_front()?;
                match RecordReader::open(&path) {
                    Ok(reader) if *reader.spec() != self.spec => {
                        let detail = format!(
                            "holds {} games but the manifest says {}",
                            reader.spec(),
                            self.spec
                        );
                        return Some(Err(RecordError::Mismatch { path, detail }));
                    }
                    Ok(reader) => self.current = Some(reader),
                    Err(e) => return Some(Err(e)),
                }
            }
            let reader = self.current.as_mut().expect("a reader is open");
            match reader.next_record() {
                Some(Ok((offset, game))) => {
                    self.location = (reader.path().to_path_buf(), offset);
                    return Some(Ok(game));
                }
                Some(Err(e)) if self.skip_torn && e.is_torn_tail() => {
                    self.torn.push(e.to_string());
                    self.current = None;
                }
                Some(Err(e)) => return Some(Err(e)),
                None => self.current = None,
            }
        }
    }
}

/// One training position: the state before a recorded move, and how the game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Position {
    pub game_index: u64,
    /// 0 for the first move of the game.
    pub ply: usize,
    pub to_move: Player,
    pub kind: MoveKind,
    /// The value-net input (85 floats on 5x5 Dots and Boxes, the paper's Table 2).
    pub features: Vec<f32>,
    /// The game's final outcome: the value net's target.
    pub label: Outcome,
}

/// Replays a record from `initial`, calling `visit` with the state before each move. Checks
/// that every move is legal and made by the player to move, and that the final state's outcome
/// and scores are the recorded ones; returns the final state.
pub fn replay<G: Game>(
    record: &GameRecord,
    initial: G,
    mut visit: impl FnMut(&G, usize, &MoveRecord),
) -> Result<G, String> {
    let mut state = initial;
    for (ply, m) in record.moves.iter().enumerate() {
        if !state.is_legal(m.action) {
            return Err(format!(
                "move {} ({}) is illegal: {}",
                ply + 1,
                state.format_action(m.action),
                state.illegal_reason(m.action)
            ));
        }
        if state.to_move() != m.player {
            return Err(format!(
                "move {} is recorded for {} but {} is to move",
                ply + 1,
                m.player,
                state.to_move()
            ));
        }
        visit(&state, ply, m);
        state.apply(m.action);
    }
    match state.outcome() {
        None => Err(format!(
            "the game is not over after its {} moves",
            record.moves.len()
        )),
        Some(o) if o != record.outcome => Err(format!(
            "the moves end in {o:?}, the record says {:?}",
            record.outcome
        )),
        Some(_) => {
            let scores = crate::game_record::recorded_scores(&state, record.outcome);
            if scores != record.scores {
                return Err(format!(
                    "the moves end {}-{}, the record says {}-{}",
                    scores[0], scores[1], record.scores[0], record.scores[1]
                ));
            }
            Ok(state)
        }
    }
}

/// Iterator over the positions of a dataset (see [`Dataset::positions`]).
pub struct Positions<G: Game> {
    games: Games,
    initial: G,
    pending: VecDeque<Position>,
    features: Vec<f32>,
}

impl<G: Game> Iterator for Positions<G> {
    type Item = Result<Position, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(p) = self.pending.pop_front() {
                return Some(Ok(p));
            }
            let game = match self.games.next()? {
                Ok(g) => g,
                Err(e) => return Some(Err(e)),
            };
            let n = self.initial.feature_len();
            self.features.resize(n, 0.0);
            let pending = &mut self.pending;
            let features = &mut self.features;
            let replayed = replay(&game, self.initial.clone(), |state, ply, m| {
                state.encode_features(features);
                pending.push_back(Position {
                    game_index: game.index,
                    ply,
                    to_move: state.to_move(),
                    kind: m.kind,
                    features: features.clone(),
                    label: game.outcome,
                });
            });
            if let Err(detail) = replayed {
                self.pending.clear();
                let (path, offset) = self.games.location();
                return Some(Err(RecordError::BadGame {
                    path: path.to_path_buf(),
                    offset,
                    detail: format!("game {}: {detail}", game.index),
                }));
            }
        }
    }
}
