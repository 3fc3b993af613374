//! Record files and datasets: the format `selfplay` writes and `train` reads (`data/FORMAT.md`).
//! The records themselves (a game's moves and result, how they are coded) are
//! [`crate::game_record`]'s, which the players and the games use without knowing of files.
//!
//! A dataset is a folder: `manifest.json` (what was generated, how, and which files hold it)
//! and record files (`*.rec`). A record file is a header (magic, format version, the game as
//! JSON) followed by records, each framed by its length and CRC-32. The reader here iterates
//! games, and positions with their value-net features and labels, so the trainer never depends
//! on the generator.

mod crc32;
mod dataset;
mod file;

pub use crate::game_record::{
    decode_game, encode_game, outcome_class, recorded_scores, GameRecord, MoveKind, MoveRecord,
    RootStat,
};
pub use crc32::crc32;
pub use dataset::{
    replay, Dataset, FileEntry, Manifest, Position, Positions, ShardInfo, MANIFEST_FILE,
};
pub use file::{
    scan, RecordReader, RecordWriter, ScanReport, FORMAT_VERSION, MAGIC, MAX_RECORD_BYTES,
};

use std::path::{Path, PathBuf};

/// Everything that can go wrong reading or writing records; each names its file.
#[derive(Debug)]
pub enum RecordError {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not a record file of a version this build reads.
    NotARecordFile { path: PathBuf, detail: String },
    /// A damaged record that is not the last thing in its file.
    Corrupt {
        path: PathBuf,
        offset: u64,
        detail: String,
    },
    /// A damaged or incomplete last record, as a killed writer leaves it.
    TornTail {
        path: PathBuf,
        offset: u64,
        detail: String,
    },
    /// A record that decodes but does not replay: an illegal move, a wrong result.
    BadGame {
        path: PathBuf,
        offset: u64,
        detail: String,
    },
    /// A manifest that is missing, unreadable, or does not match its files.
    Manifest { path: PathBuf, detail: String },
    /// Data of another game or configuration than the one expected.
    Mismatch { path: PathBuf, detail: String },
}

impl RecordError {
    pub fn io(path: &Path, source: std::io::Error) -> RecordError {
        RecordError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A torn last record: expected after a killed run, dropped by `--resume`.
    pub fn is_torn_tail(&self) -> bool {
        matches!(self, RecordError::TornTail { .. })
    }
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            RecordError::NotARecordFile { path, detail } => {
                write!(
                    f,
                    "{}: not a readable record file: {detail}",
                    path.display()
                )
            }
            RecordError::Corrupt {
                path,
                offset,
                detail,
            } => write!(
                f,
                "{}: corrupt record at byte offset {offset}: {detail}",
                path.display()
            ),
            RecordError::TornTail {
                path,
                offset,
                detail,
            } => write!(
                f,
                "{}: torn last record at byte offset {offset} (a killed run leaves one; \
                 `selfplay run --resume` drops it): {detail}",
                path.display()
            ),
            RecordError::BadGame {
                path,
                offset,
                detail,
            } => write!(
                f,
                "{}: record at byte offset {offset} does not replay: {detail}",
                path.display()
            ),
            RecordError::Manifest { path, detail } => write!(f, "{}: {detail}", path.display()),
            RecordError::Mismatch { path, detail } => write!(f, "{}: {detail}", path.display()),
        }
    }
}

impl std::error::Error for RecordError {}

#[cfg(test)]
mod tests;
