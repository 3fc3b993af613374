//! Record files: a header, then framed records (length, CRC-32, payload), appended one write
//! at a time so that a killed writer leaves at most one torn record, at the end.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::crc32::crc32;
use super::RecordError;
use crate::game_record::{decode_game, encode_game, GameRecord};
use crate::registry::{GameSpec, Lookup};

/// The first eight bytes of every record file.
pub const MAGIC: [u8; 8] = *b"MCTSGAME";
/// The version of the header and record layout, written in every file.
pub const FORMAT_VERSION: u32 = 1;
/// No valid record is larger than this: a longer length field means a damaged frame.
pub const MAX_RECORD_BYTES: u32 = 64 << 20;
/// Header meta data is small; a longer length means this is not a record file.
const MAX_META_BYTES: u32 = 1 << 16;

/// Builds the file header for a game spec.
fn header_bytes(spec: &GameSpec) -> Vec<u8> {
    let meta = serde_json::to_vec(spec).expect("a game spec serialises");
    let mut out = Vec::with_capacity(20 + meta.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    out.extend_from_slice(&meta);
    out.extend_from_slice(&crc32(&meta).to_le_bytes());
    out
}

/// Reads and checks a file header; returns the spec and the header's length in bytes.
fn read_header(path: &Path, r: &mut impl Read) -> Result<(GameSpec, u64), RecordError> {
    let bad = |detail: String| RecordError::NotARecordFile {
        path: path.to_path_buf(),
        detail,
    };
    let io = |e| RecordError::io(path, e);
    let mut fixed = [0u8; 16];
    read_full(r, &mut fixed)
        .map_err(io)?
        .then_some(())
        .ok_or_else(|| bad("shorter than the 16-byte header".into()))?;
    if fixed[..8] != MAGIC {
        return Err(bad(format!(
            "starts with {:?}, not the magic \"MCTSGAME\"",
            String::from_utf8_lossy(&fixed[..8])
        )));
    }
    let version = u32::from_le_bytes(fixed[8..12].try_into().unwrap());
    if version != FORMAT_VERSION {
        return Err(bad(format!(
            "format version {version}; this build reads version {FORMAT_VERSION}"
        )));
    }
    let meta_len = u32::from_le_bytes(fixed[12..16].try_into().unwrap());
    if meta_len > MAX_META_BYTES {
        return Err(bad(format!("header meta length {meta_len} is implausible")));
    }
    let mut meta = vec![0u8; meta_len as usize + 4];
    if !read_full(r, &mut meta).map_err(io)? {
        return Err(bad("the header is cut short".into()));
    }
    let stored = u32::from_le_bytes(meta[meta_len as usize..].try_into().unwrap());
    let meta = &meta[..meta_len as usize];
    if crc32(meta) != stored {
        return Err(bad("header checksum mismatch".into()));
    }
    let value: serde_json::Value =
        serde_json::from_slice(meta).map_err(|e| bad(format!("header meta: {e}")))?;
    let spec = GameSpec::from_json(&value).map_err(|e| bad(format!("header meta: {e}")))?;
    Ok((spec, 16 + meta_len as u64 + 4))
}

/// Fills `buf` completely; `Ok(false)` if the stream ends first (having read what it could).
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<bool> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => return Ok(false),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Appends game records to a file.
pub struct RecordWriter {
    file: File,
    path: PathBuf,
    frame: Vec<u8>,
    unsynced: usize,
}

/// What a scan of an existing file found.
#[derive(Debug)]
pub struct ScanReport {
    pub spec: GameSpec,
    /// The game index of every complete record, in file order.
    pub indices: Vec<u64>,
    /// Positions (moves) in the complete records.
    pub positions: u64,
    /// Bytes up to the end of the last complete record.
    pub valid_len: u64,
    /// A torn last record: its offset and what was wrong.
    pub torn: Option<(u64, String)>,
}

impl RecordWriter {
    /// Creates a new file (never overwrites) and writes its header.
    pub fn create(path: &Path, spec: &GameSpec) -> Result<RecordWriter, RecordError> {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| RecordError::io(path, e))?;
        file.write_all(&header_bytes(spec))
            .and_then(|_| file.sync_data())
            .map_err(|e| RecordError::io(path, e))?;
        Ok(RecordWriter {
            file,
            path: path.to_path_buf(),
            frame: Vec::new(),
            unsynced: 0,
        })
    }

    /// Opens an existing file to append to it: checks its spec, drops a torn last record
    /// (truncating the file to its last complete record) and reports what it holds. Fails on a
    /// damaged record anywhere else.
    pub fn resume(path: &Path, spec: &GameSpec) -> Result<(RecordWriter, ScanReport), RecordError> {
        let report = scan(path)?;
        if report.spec != *spec {
            return Err(RecordError::Mismatch {
                path: path.to_path_buf(),
                detail: format!("it holds {} games, this run plays {spec}", report.spec),
            });
        }
        let mut file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| RecordError::io(path, e))?;
        file.set_len(report.valid_len)
            .and_then(|_| file.seek(SeekFrom::End(0)).map(|_| ()))
            .and_then(|_| file.sync_data())
            .map_err(|e| RecordError::io(path, e))?;
        Ok((
            RecordWriter {
                file,
                path: path.to_path_buf(),
                frame: Vec::new(),
                unsynced: 0,
            },
            report,
        ))
    }

    /// Appends one record with a single write, so a kill leaves it whole or torn at the end.
    pub fn append(&mut self, game: &GameRecord) -> Result<(), RecordError> {
        self.frame.clear();
        self.frame.extend_from_slice(&[0u8; 8]);
        encode_game(game, &mut self.frame).map_err(|detail| RecordError::Corrupt {
            path: self.path.clone(),
            offset: 0,
            detail: format!("game {} cannot be encoded: {detail}", game.index),
        })?;
        let len = (self.frame.len() - 8) as u32;
        let crc = crc32(&self.frame[8..]);
        self.frame[..4].copy_from_slice(&len.to_le_bytes());
        self.frame[4..8].copy_from_slice(&crc.to_le_bytes());
        self.file
            .write_all(&self.frame)
            .map_err(|e| RecordError::io(&self.path, e))?;
        self.unsynced += 1;
        Ok(())
    }

    /// Records appended since the last [`sync`](Self::sync).
    pub fn unsynced(&self) -> usize {
        self.unsynced
    }

    /// Forces appended records to disk (a killed process loses nothing already appended; this
    /// guards against a power cut).
    pub fn sync(&mut self) -> Result<(), RecordError> {
        self.file
            .sync_data()
            .map_err(|e| RecordError::io(&self.path, e))?;
        self.unsynced = 0;
        Ok(())
    }
}

/// Reads the records of one file in order.
pub struct RecordReader {
    reader: BufReader<File>,
    path: PathBuf,
    spec: GameSpec,
    offset: u64,
    file_len: u64,
    payload: Vec<u8>,
    done: bool,
}

impl RecordReader {
    pub fn open(path: &Path) -> Result<RecordReader, RecordError> {
        let file = File::open(path).map_err(|e| RecordError::io(path, e))?;
        let file_len = file.metadata().map_err(|e| RecordError::io(path, e))?.len();
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let (spec, offset) = read_header(path, &mut reader)?;
        Ok(RecordReader {
            reader,
            path: path.to_path_buf(),
            spec,
            offset,
            file_len,
            payload: Vec::new(),
            done: false,
        })
    }

    pub fn spec(&self) -> &GameSpec {
        &self.spec
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The offset of the next record (after the last one read).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads the record at byte `offset` (an offset this reader or a scan returned before);
    /// reading then goes on after it.
    pub fn read_at(&mut self, offset: u64) -> Result<GameRecord, RecordError> {
        self.reader
            .seek(SeekFrom::Start(offset))
            .map_err(|e| RecordError::io(&self.path, e))?;
        self.offset = offset;
        self.done = false;
        match self.next_record() {
            Some(result) => result.map(|(_, game)| game),
            None => Err(RecordError::Corrupt {
                path: self.path.clone(),
                offset,
                detail: "no record starts at the end of the file".into(),
            }),
        }
    }

    /// The next record and its offset; `None` at a clean end. A damaged record is
    /// [`RecordError::Corrupt`], unless it is the last thing in the file, where a killed writer
    /// leaves it: then it is [`RecordError::TornTail`] and reading ends.
    pub fn next_record(&mut self) -> Option<Result<(u64, GameRecord), RecordError>> {
        if self.done || self.offset == self.file_len {
            return None;
        }
        let at = self.offset;
        let result = self.read_one(at);
        if result.is_err() {
            self.done = true;
        }
        Some(result.map(|g| (at, g)))
    }

    fn read_one(&mut self, at: u64) -> Result<GameRecord, RecordError> {
        let remaining = self.file_len - at;
        let torn = |detail: String| RecordError::TornTail {
            path: self.path.clone(),
            offset: at,
            detail,
        };
        if remaining < 8 {
            return Err(torn(format!("{remaining} bytes, less than a record frame")));
        }
        let mut frame = [0u8; 8];
        read_full(&mut self.reader, &mut frame).map_err(|e| RecordError::io(&self.path, e))?;
        let len = u32::from_le_bytes(frame[..4].try_into().unwrap());
        let stored = u32::from_le_bytes(frame[4..].try_into().unwrap());
        let end = at + 8 + len as u64;
        if len > MAX_RECORD_BYTES || end > self.file_len {
            // A length that runs past the end of the file: the write was cut short (or the
            // length itself is damaged, which only the last record can be without the records
            // after it failing too).
            return Err(torn(format!(
                "length {len} runs past the end of the file ({} bytes)",
                self.file_len
            )));
        }
        self.payload.resize(len as usize, 0);
        read_full(&mut self.reader, &mut self.payload)
            .map_err(|e| RecordError::io(&self.path, e))?;
        let damaged = |detail: String| {
            if end == self.file_len {
                RecordError::TornTail {
                    path: self.path.clone(),
                    offset: at,
                    detail,
                }
            } else {
                RecordError::Corrupt {
                    path: self.path.clone(),
                    offset: at,
                    detail,
                }
            }
        };
        let computed = crc32(&self.payload);
        if computed != stored {
            return Err(damaged(format!(
                "checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"
            )));
        }
        let game = decode_game(&self.payload).map_err(damaged)?;
        self.offset = end;
        Ok(game)
    }
}

impl Iterator for RecordReader {
    type Item = Result<(u64, GameRecord), RecordError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record()
    }
}

/// Reads a whole file, checking every record: what a resumed run starts from.
pub fn scan(path: &Path) -> Result<ScanReport, RecordError> {
    let mut reader = RecordReader::open(path)?;
    let mut indices = Vec::new();
    let mut positions = 0;
    let mut torn = None;
    while let Some(item) = reader.next_record() {
        match item {
            Ok((_, game)) => {
                indices.push(game.index);
                positions += game.moves.len() as u64;
            }
            Err(RecordError::TornTail { offset, detail, .. }) => torn = Some((offset, detail)),
            Err(e) => return Err(e),
        }
    }
    Ok(ScanReport {
        spec: reader.spec,
        indices,
        positions,
        valid_len: reader.offset,
        torn,
    })
}
