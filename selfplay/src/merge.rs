//! `selfplay merge`: joins the shards of a run (or any datasets of one config) into one.

use std::collections::hash_map::{DefaultHasher, Entry};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use engine::record::{Dataset, FileEntry, Manifest, RecordWriter, FORMAT_VERSION, MANIFEST_FILE};
use serde::Serialize;

use crate::config::identity_differences;
use crate::run::RECORD_FILE;

#[derive(Clone, Debug, Serialize)]
pub struct MergeSummary {
    pub out: PathBuf,
    pub sources: usize,
    pub games: u64,
    pub positions: u64,
    /// Games found in more than one source (identical, so kept once).
    pub duplicates_skipped: u64,
    /// Torn last records dropped from sources (games a killed run had not finished).
    pub torn_records_dropped: Vec<String>,
    pub complete: bool,
}

/// Merges `sources` into a new dataset at `out`. Refuses sources of different games or
/// settings, and a game index that appears twice with different contents.
pub fn merge(sources: &[PathBuf], out: &Path) -> Result<MergeSummary, String> {
    if sources.is_empty() {
        return Err("merge needs at least one source dataset".into());
    }
    let datasets: Vec<Dataset> = sources
        .iter()
        .map(|dir| Dataset::open(dir).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let first = &datasets[0];
    for d in &datasets[1..] {
        if d.spec() != first.spec() {
            return Err(format!(
                "refusing to merge: {} holds {} games, {} holds {} games",
                first.dir().display(),
                first.spec(),
                d.dir().display(),
                d.spec()
            ));
        }
        let diff = identity_differences(&first.manifest().config, &d.manifest().config);
        if !diff.is_empty() {
            return Err(format!(
                "refusing to merge datasets made with different settings ({} vs {}):\n  {}",
                first.dir().display(),
                d.dir().display(),
                diff.join("\n  ")
            ));
        }
    }
    if out.join(MANIFEST_FILE).exists() || out.join(RECORD_FILE).exists() {
        return Err(format!(
            "{} already holds a dataset; merge into a new folder",
            out.display()
        ));
    }
    let created = !out.exists();
    engine::cli::create_out_dir("--out", out)?;
    // The records go to a temporary name, renamed once every source is read: a merge that
    // fails leaves nothing behind, and its retry is not refused as a dataset already there.
    let partial = out.join(format!("{RECORD_FILE}.partial"));
    let _ = std::fs::remove_file(&partial); // left by a merge that was killed
    let finished = copy_games(&datasets, &partial, out)
        .and_then(|summary| finish(sources, &datasets, summary, &partial, out));
    if finished.is_err() {
        let _ = std::fs::remove_file(&partial);
        let _ = std::fs::remove_file(out.join(RECORD_FILE));
        if created {
            let _ = std::fs::remove_dir(out);
        }
    }
    finished
}

/// Renames the merged records into place and writes the manifest.
fn finish(
    sources: &[PathBuf],
    datasets: &[Dataset],
    mut summary: MergeSummary,
    partial: &Path,
    out: &Path,
) -> Result<MergeSummary, String> {
    let first = &datasets[0];
    std::fs::rename(partial, out.join(RECORD_FILE))
        .map_err(|e| format!("cannot rename {}: {e}", partial.display()))?;
    let shards: Vec<_> = datasets.iter().filter_map(|d| d.manifest().shard).collect();
    let counts_agree =
        shards.len() == datasets.len() && shards.iter().all(|s| s.count == shards[0].count);
    // Complete when every source is, and (for shards) every shard of the run is present.
    if counts_agree {
        let mut indices: Vec<u32> = shards.iter().map(|s| s.index).collect();
        indices.sort();
        indices.dedup();
        summary.complete &= indices.len() as u32 == shards[0].count;
    }
    let manifest = Manifest {
        format: Manifest::FORMAT.into(),
        format_version: FORMAT_VERSION,
        game: first.spec(),
        generator: format!("selfplay {} merge", env!("CARGO_PKG_VERSION")),
        config: first.manifest().config.clone(),
        seeds: first.manifest().seeds.clone(),
        shard: None,
        games_planned: datasets.iter().map(|d| d.manifest().games_planned).sum(),
        games: summary.games,
        positions: summary.positions,
        complete: summary.complete,
        files: vec![FileEntry {
            name: RECORD_FILE.into(),
            games: summary.games,
            positions: summary.positions,
        }],
        sources: sources.iter().map(|s| s.display().to_string()).collect(),
    };
    manifest.write(out).map_err(|e| e.to_string())?;
    Ok(summary)
}

/// Copies the games of `datasets` into a new record file at `partial`, each game index once:
/// the summary of a merge into `out` but its completeness across shards.
fn copy_games(datasets: &[Dataset], partial: &Path, out: &Path) -> Result<MergeSummary, String> {
    let first = &datasets[0];
    let mut writer = RecordWriter::create(partial, &first.spec()).map_err(|e| e.to_string())?;
    // Game index -> (hash of the record, where it came from), to tell copies from conflicts.
    let mut seen: HashMap<u64, (u64, String)> = HashMap::new();
    let mut summary = MergeSummary {
        out: out.to_path_buf(),
        sources: datasets.len(),
        games: 0,
        positions: 0,
        duplicates_skipped: 0,
        torn_records_dropped: Vec::new(),
        complete: true,
    };
    for d in datasets {
        summary.complete &= d.manifest().complete;
        let mut games = d.games().skipping_torn_tails();
        while let Some(item) = games.next() {
            let game = item.map_err(|e| e.to_string())?;
            let mut h = DefaultHasher::new();
            game.hash(&mut h);
            let hash = h.finish();
            let (path, offset) = games.location();
            let here = format!("{} byte {offset}", path.display());
            match seen.entry(game.index) {
                Entry::Occupied(e) => {
                    if e.get().0 != hash {
                        return Err(format!(
                            "game {} differs between {} and {here}: these are not shards of one run",
                            game.index,
                            e.get().1
                        ));
                    }
                    summary.duplicates_skipped += 1;
                    continue;
                }
                Entry::Vacant(e) => {
                    e.insert((hash, here));
                }
            }
            writer.append(&game).map_err(|e| e.to_string())?;
            summary.games += 1;
            summary.positions += game.moves.len() as u64;
        }
        summary
            .torn_records_dropped
            .extend_from_slice(games.torn_tails());
    }
    writer.sync().map_err(|e| e.to_string())?;
    Ok(summary)
}
