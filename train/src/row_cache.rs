//! Training rows streamed from disk, for `train pattern --memory-positions N`.
//!
//! A training set larger than N positions is read in once, N positions at a time (runs of
//! games in a seeded random order), and each run's packed rows are written to one cache file
//! in the output folder. Every epoch then reads the runs back in a new order, one at a time,
//! and shuffles the rows within each: memory holds one run and the held-out rows, whatever
//! the size of the set. The file goes when the run ends (also on an error); a run that is
//! killed leaves it, and the next run in that folder writes it anew.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::pattern::{PatternRows, RowCount};
use crate::sparse::Packed;

/// The cache file's name in the output folder.
pub const CACHE_FILE: &str = "rows.cache";

const MAGIC: &[u8; 8] = b"PATROWS1";

/// The runs of rows written so far, and the file that holds them.
pub struct RowCache {
    path: PathBuf,
    writer: Option<BufWriter<File>>,
    /// Where each run starts in the file, and its positions.
    runs: Vec<(u64, usize)>,
    end: u64,
    /// An empty set of rows with the runs' shape (points, children, packing).
    shape: PatternRows,
    /// Totals over the runs (`runs` among them).
    pub count: RowCount,
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> String {
    format!("{}: {what}: {e}", path.display())
}

impl RowCache {
    /// Creates (or empties) the cache file `dir/rows.cache`.
    pub fn create(dir: &Path, shape: &PatternRows) -> Result<RowCache, String> {
        let path = dir.join(CACHE_FILE);
        let file = File::create(&path).map_err(|e| io_error(&path, "cannot create", e))?;
        let shape = shape.empty_like();
        Ok(RowCache {
            path,
            writer: Some(BufWriter::new(file)),
            runs: Vec::new(),
            end: 0,
            shape,
            count: RowCount::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs written.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Bytes the file holds.
    pub fn bytes(&self) -> u64 {
        self.end
    }

    /// Appends one run of packed rows.
    pub fn push(&mut self, rows: &PatternRows) -> Result<(), String> {
        assert!(
            rows.pack,
            "the cache holds packed rows (the sparse trainer's)"
        );
        let mut bytes = Vec::new();
        encode(rows, &mut bytes).map_err(|e| io_error(&self.path, "cannot encode", e))?;
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| format!("{}: the cache is closed", self.path.display()))?;
        writer
            .write_all(&bytes)
            .map_err(|e| io_error(&self.path, "cannot write", e))?;
        self.runs.push((self.end, rows.len()));
        self.end += bytes.len() as u64;
        self.count.add(RowCount {
            runs: 1,
            ..RowCount::of(rows)
        });
        Ok(())
    }

    /// Ends the writing: the runs can be read from here on.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some(mut w) = self.writer.take() {
            w.flush()
                .map_err(|e| io_error(&self.path, "cannot write", e))?;
        }
        Ok(())
    }

    /// Run `k`'s rows.
    pub fn read(&self, k: usize) -> Result<PatternRows, String> {
        let (offset, positions) = self.runs[k];
        let mut file =
            File::open(&self.path).map_err(|e| io_error(&self.path, "cannot open", e))?;
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| io_error(&self.path, "cannot seek", e))?;
        let rows = decode(&mut BufReader::new(file), &self.shape)
            .map_err(|e| io_error(&self.path, &format!("run {k} cannot be read"), e))?;
        if rows.len() != positions {
            return Err(format!(
                "{}: run {k} holds {} positions, {positions} were written",
                self.path.display(),
                rows.len()
            ));
        }
        Ok(rows)
    }
}

impl Drop for RowCache {
    fn drop(&mut self) {
        self.writer = None;
        let _ = std::fs::remove_file(&self.path);
    }
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn get_u64(r: &mut impl Read) -> std::io::Result<u64> {
    let mut word = [0u8; 8];
    r.read_exact(&mut word)?;
    Ok(u64::from_le_bytes(word))
}

fn get_words(r: &mut impl Read, n: u64) -> std::io::Result<Vec<[u8; 4]>> {
    let n = usize::try_from(n).map_err(|_| std::io::Error::other("a count beyond memory"))?;
    let mut bytes = vec![0u8; n * 4];
    r.read_exact(&mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|w| [w[0], w[1], w[2], w[3]])
        .collect())
}

/// The rows the trainer reads (targets, ranking blocks, packed rows and children, and the
/// counts of games), after a magic word.
fn encode(rows: &PatternRows, out: &mut Vec<u8>) -> std::io::Result<()> {
    out.extend_from_slice(MAGIC);
    for n in [rows.games, rows.repeats, rows.blocks, rows.targets.len()] {
        put_u64(out, n as u64);
    }
    put_u64(out, rows.rank_block.len() as u64);
    for t in &rows.targets {
        out.extend_from_slice(&t.to_le_bytes());
    }
    for b in &rows.rank_block {
        out.extend_from_slice(&b.to_le_bytes());
    }
    rows.packed.write_to(out)?;
    rows.child_packed.write_to(out)
}

fn decode(r: &mut impl Read, shape: &PatternRows) -> std::io::Result<PatternRows> {
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic)?;
    if &magic != MAGIC {
        return Err(std::io::Error::other("not a run of rows"));
    }
    let mut rows = shape.clone();
    rows.games = get_u64(r)? as usize;
    rows.repeats = get_u64(r)? as usize;
    rows.blocks = get_u64(r)? as usize;
    let (targets, blocks) = (get_u64(r)?, get_u64(r)?);
    rows.targets = get_words(r, targets)?
        .into_iter()
        .map(f32::from_le_bytes)
        .collect();
    rows.rank_block = get_words(r, blocks)?
        .into_iter()
        .map(u32::from_le_bytes)
        .collect();
    rows.packed = Packed::read_from(r)?;
    rows.child_packed = Packed::read_from(r)?;
    if rows.packed.len() != rows.targets.len() {
        return Err(std::io::Error::other(
            "the packed rows and the targets differ in count",
        ));
    }
    Ok(rows)
}
