//! `selfplay export --format npy`: the positions of a dataset as NumPy arrays.
//!
//! `features.npy` (N x F, float32: 85 floats on 5x5 Dots and Boxes), `labels.npy` (N, int64
//! class ids: 0 = P1 wins, 1 = P2 wins, 2 = draw) and `game_index.npy` (N, int64), written in
//! NumPy's `.npy` format version 1.0 and streamed, so memory stays flat however big the set.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use engine::game::Game;
use engine::games::RegisteredGame;
use engine::record::{outcome_class, Dataset};
use engine::registry::GameVisitor;
use engine::registry::Lookup;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct ExportSummary {
    pub out: PathBuf,
    pub positions: u64,
    pub feature_len: usize,
    pub files: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// The header of a `.npy` file (format 1.0) for a little-endian array of `descr` and `shape`.
pub fn npy_header(descr: &str, shape: &[u64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Magic (6) + version (2) + length (2) + dict + newline, padded to a multiple of 64.
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.div_ceil(64) * 64 - unpadded));
    dict.push('\n');
    let mut out = Vec::with_capacity(10 + dict.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// The arrays `export_npy` writes into its folder.
pub const NPY_FILES: [&str; 3] = ["features.npy", "labels.npy", "game_index.npy"];

/// Writes the dataset in `dir` as NumPy arrays into `out`. Arrays already there are refused
/// unless `force` (the rule of every output), before anything is read or written.
pub fn export_npy(dir: &Path, out: &Path, force: bool) -> Result<ExportSummary, String> {
    engine::cli::check_out_dir("--out", out)?;
    if let Some(there) = NPY_FILES.iter().map(|f| out.join(f)).find(|p| p.exists()) {
        if !force {
            return Err(format!(
                "{} exists: pass --force to overwrite the arrays, or choose another --out",
                there.display()
            ));
        }
    }
    let dataset = Dataset::open(dir).map_err(|e| e.to_string())?;
    struct Write<'a>(&'a Dataset, &'a Path);
    impl GameVisitor for Write<'_> {
        type Output = Result<ExportSummary, String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            write_arrays(self.0, start, self.1)
        }
    }
    dataset.spec().visit(Write(&dataset, out))?
}

fn create(path: &Path) -> Result<BufWriter<File>, String> {
    File::create(path)
        .map(|f| BufWriter::with_capacity(1 << 20, f))
        .map_err(|e| format!("cannot create {}: {e}", path.display()))
}

fn write_arrays<G: Game>(
    dataset: &Dataset,
    initial: G,
    out: &Path,
) -> Result<ExportSummary, String> {
    // First pass: count the positions (the header states the shape before the data).
    let mut count = 0u64;
    let mut games = dataset.games().skipping_torn_tails();
    for item in games.by_ref() {
        count += item.map_err(|e| e.to_string())?.moves.len() as u64;
    }
    let warnings = games.torn_tails().to_vec();
    engine::cli::create_out_dir("--out", out)?;
    let width = initial.feature_len();
    let paths = NPY_FILES.map(|f| out.join(f));
    let mut features = create(&paths[0])?;
    let mut labels = create(&paths[1])?;
    let mut games = create(&paths[2])?;
    let io = |path: &Path, e: std::io::Error| format!("writing {}: {e}", path.display());
    features
        .write_all(&npy_header("<f4", &[count, width as u64]))
        .map_err(|e| io(&paths[0], e))?;
    labels
        .write_all(&npy_header("<i8", &[count]))
        .map_err(|e| io(&paths[1], e))?;
    games
        .write_all(&npy_header("<i8", &[count]))
        .map_err(|e| io(&paths[2], e))?;
    let mut written = 0u64;
    for item in dataset.positions(initial) {
        let p = match item {
            Ok(p) => p,
            Err(e) if e.is_torn_tail() => continue,
            Err(e) => return Err(e.to_string()),
        };
        for f in &p.features {
            features
                .write_all(&f.to_le_bytes())
                .map_err(|e| io(&paths[0], e))?;
        }
        labels
            .write_all(&(outcome_class(p.label) as i64).to_le_bytes())
            .map_err(|e| io(&paths[1], e))?;
        games
            .write_all(&(p.game_index as i64).to_le_bytes())
            .map_err(|e| io(&paths[2], e))?;
        written += 1;
    }
    if written != count {
        return Err(format!(
            "{}: the dataset changed while it was exported ({count} positions counted, {written} read)",
            dataset.dir().display()
        ));
    }
    for (w, p) in [
        (features, &paths[0]),
        (labels, &paths[1]),
        (games, &paths[2]),
    ] {
        w.into_inner()
            .map_err(|e| io(p, e.into_error()))?
            .sync_all()
            .map_err(|e| io(p, e))?;
    }
    Ok(ExportSummary {
        out: out.to_path_buf(),
        positions: count,
        feature_len: width,
        files: paths.to_vec(),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::npy_header;

    #[test]
    fn header_is_padded_to_64_bytes_and_parses() {
        for shape in [vec![0u64, 85], vec![123_456_789, 85], vec![7]] {
            let h = npy_header("<f4", &shape);
            assert_eq!(h.len() % 64, 0);
            assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
            let len = u16::from_le_bytes([h[8], h[9]]) as usize;
            assert_eq!(10 + len, h.len());
            assert_eq!(*h.last().unwrap(), b'\n');
        }
        let h = npy_header("<i8", &[7]);
        let text = String::from_utf8_lossy(&h[10..]);
        assert!(text.starts_with("{'descr': '<i8', 'fortran_order': False, 'shape': (7,), }"));
    }
}
