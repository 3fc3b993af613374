//! Training data: positions of a `selfplay` dataset, read through `engine::record`, split into
//! training and validation by game, encoded on the fly and served in shuffled batches with
//! bounded memory.

use std::path::PathBuf;

use engine::game::Game;
use engine::games::{DotsAndBoxes, GameSpec, TicTacToe};
use engine::record::{outcome_class, replay, Dataset, GameRecord, RecordReader, RootStat};
use engine::registry::Lookup;
use engine::rng::{derive_seed, Rng};

/// Where one game lives.
#[derive(Clone, Copy, Debug)]
pub struct GameRef {
    pub file: usize,
    pub offset: u64,
    pub index: u64,
    pub positions: u32,
}

/// Whether game `index` belongs to the validation set: a hash of (seed, index), so the split is
/// by game (no game has positions on both sides) and the same on every run and resume.
pub fn is_validation(index: u64, seed: u64, share: f64) -> bool {
    let h = derive_seed(seed ^ 0x05EE_D0F5_A11D, index);
    ((h >> 11) as f64 / (1u64 << 53) as f64) < share
}

/// Refuses a dataset folder named twice (`--data D --data D`, or `D` and `./D`: compared as
/// canonical paths where they exist): its games would be read twice and split two ways, some of
/// them on both sides of the training/validation split.
pub fn check_distinct_dirs(dirs: &[PathBuf]) -> Result<(), String> {
    let canonical: Vec<PathBuf> = dirs
        .iter()
        .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()))
        .collect();
    for (k, dir) in dirs.iter().enumerate() {
        if let Some(j) = canonical[..k].iter().position(|c| *c == canonical[k]) {
            let first = &dirs[j];
            return Err(if first == dir {
                format!(
                    "{} is given twice as a dataset: name each folder once (its games would be read twice, some on both sides of the validation split)",
                    dir.display()
                )
            } else {
                format!(
                    "{} and {} are the same dataset folder: name each folder once (its games would be read twice, some on both sides of the validation split)",
                    first.display(),
                    dir.display()
                )
            });
        }
    }
    Ok(())
}

/// The game's initial position, as the encoder replays it.
#[derive(Clone, Copy)]
enum Board {
    DotsAndBoxes(DotsAndBoxes),
    TicTacToe(TicTacToe),
}

/// Replays games into (features, label) rows.
#[derive(Clone, Copy)]
pub struct Encoder {
    board: Board,
    feature_len: usize,
    /// The player to move as one more input (1 for P1, 0 for P2).
    to_move: bool,
    /// With search targets: the fewest visits a root move needs to give a row.
    search_targets: Option<u32>,
    /// Dots and Boxes: each game is encoded once more in each of its board's mirror and
    /// rotated images (`Geometry::symmetries`).
    symmetric: bool,
}

/// Labels 0, 1 and 2 are outcome classes (P1 wins, P2 wins, draw); a label from `SOFT_BASE` on
/// is a search's value as a soft target: P(P1 wins) = (label - SOFT_BASE) / SOFT_STEPS, P(P2
/// wins) the rest, no draw (a draw's half is in both).
pub const SOFT_BASE: u8 = 3;
pub const SOFT_STEPS: u8 = 200;

/// The soft label of P(P1 wins) = `p1` (clamped to [0, 1], to the nearest 1/200).
pub fn soft_label(p1: f64) -> u8 {
    SOFT_BASE + (p1.clamp(0.0, 1.0) * SOFT_STEPS as f64).round() as u8
}

/// The target outputs of `label` (P1 wins, P2 wins, draw).
pub fn target_row(label: u8) -> [f32; 3] {
    match label.checked_sub(SOFT_BASE) {
        None => {
            let mut row = [0.0; 3];
            row[label as usize] = 1.0;
            row
        }
        Some(steps) => {
            let p1 = steps as f32 / SOFT_STEPS as f32;
            [p1, 1.0 - p1, 0.0]
        }
    }
}

/// The outcome class a prediction is scored against: the label's, or a soft label's likelier
/// side (P1 at even odds).
pub fn hard_class(label: u8) -> u8 {
    match label.checked_sub(SOFT_BASE) {
        None => label,
        Some(steps) => u8::from(2 * u16::from(steps) < u16::from(SOFT_STEPS)),
    }
}

impl Encoder {
    /// The paper's encoding.
    pub fn new(spec: GameSpec) -> Result<Encoder, String> {
        Encoder::with_encoding(spec, crate::config::Encoding::Table2)
    }

    pub fn with_encoding(
        spec: GameSpec,
        encoding: crate::config::Encoding,
    ) -> Result<Encoder, String> {
        let board = match spec.name() {
            "dots_and_boxes" => Board::DotsAndBoxes(spec.start()?),
            "tictactoe" => Board::TicTacToe(TicTacToe::new()),
            other => {
                return Err(format!(
                    "train fits value nets of dots_and_boxes and tictactoe, not {other}"
                ))
            }
        };
        let to_move = encoding == crate::config::Encoding::Table2ToMove;
        let feature_len = match &board {
            Board::DotsAndBoxes(g) => g.feature_len() + usize::from(to_move),
            Board::TicTacToe(g) => g.feature_len(),
        };
        if to_move && !matches!(board, Board::DotsAndBoxes(_)) {
            return Err("encoding table2-to-move is for dots_and_boxes".into());
        }
        Ok(Encoder {
            board,
            feature_len,
            to_move,
            search_targets: None,
            symmetric: false,
        })
    }

    /// With `on`, every game gives its rows once for each symmetry of its board (8 on a square
    /// Dots-and-Boxes board, 4 on another): the same game mirrored and rotated, as a net
    /// should judge it alike. The training set grows that many times; the labels are the same.
    pub fn with_symmetries(mut self, on: bool) -> Result<Encoder, String> {
        if on && !matches!(self.board, Board::DotsAndBoxes(_)) {
            return Err("symmetries are for dots_and_boxes".into());
        }
        self.symmetric = on;
        Ok(self)
    }

    /// How many rows sets each game gives: the board's symmetries with `with_symmetries`, else 1.
    pub fn copies(&self) -> usize {
        match self.board {
            Board::DotsAndBoxes(g) if self.symmetric => g.geometry().symmetries().len(),
            _ => 1,
        }
    }

    /// Labels positions with the recorded searches' values (rows: the position after each root
    /// move with at least `min_visits` visits) instead of the games' outcomes.
    pub fn with_search_targets(mut self, min_visits: u32) -> Result<Encoder, String> {
        self.search_targets = Some(min_visits);
        Ok(self)
    }

    /// The model-file name of the encoding.
    pub fn encoding_name(&self) -> &'static str {
        match self.board {
            Board::DotsAndBoxes(_) if self.to_move => {
                engine::games::dots_and_boxes::net::DAB_ENCODING_TO_MOVE
            }
            Board::DotsAndBoxes(_) => engine::games::dots_and_boxes::net::DAB_ENCODING,
            Board::TicTacToe(_) => "tictactoe-v1",
        }
    }

    pub fn feature_len(&self) -> usize {
        self.feature_len
    }

    /// Appends one row per position of `game` (the state before each move) to `features` and its label (the game's outcome class)
    /// to `labels`; with [`with_symmetries`](Self::with_symmetries), then the rows of each of
    /// the game's images under its board's other symmetries.
    pub fn encode(
        &self,
        game: &GameRecord,
        features: &mut Vec<f32>,
        labels: &mut Vec<u8>,
    ) -> Result<(), String> {
        self.encode_one(game, features, labels)?;
        if let Board::DotsAndBoxes(g) = self.board {
            if self.symmetric {
                // The game itself was replayed first, so its actions are the board's edges.
                let edges = g.num_edges();
                for map in &g.geometry().symmetries()[1..] {
                    let image = game.with_actions_mapped(|a| {
                        if (a as usize) < edges {
                            map[a as usize] as engine::game::Action
                        } else {
                            a
                        }
                    });
                    self.encode_one(&image, features, labels)?;
                }
            }
        }
        Ok(())
    }

    /// [`encode`](Self::encode)'s rows of `game` itself.
    fn encode_one(
        &self,
        game: &GameRecord,
        features: &mut Vec<f32>,
        labels: &mut Vec<u8>,
    ) -> Result<(), String> {
        /// One row per position: `row` writes the features into the row's `width` floats and
        /// returns the label.
        fn rows<G: Game>(
            initial: G,
            game: &GameRecord,
            width: usize,
            row: impl Fn(&G, &mut [f32]) -> u8,
            features: &mut Vec<f32>,
            labels: &mut Vec<u8>,
        ) -> Result<(), String> {
            replay(game, initial, |state, _, _| {
                let start = features.len();
                features.resize(start + width, 0.0);
                labels.push(row(state, &mut features[start..]));
            })
            .map(|_| ())
        }
        // The grid encodings: the game's features, then who is to move if asked, and the
        // game's outcome class.
        fn grid<G: Game>(to_move: bool, outcome: u8) -> impl Fn(&G, &mut [f32]) -> u8 {
            move |state, out| {
                let n = out.len() - usize::from(to_move);
                state.encode_features(&mut out[..n]);
                if to_move && state.to_move() == engine::Player::P1 {
                    out[n] = 1.0;
                }
                outcome
            }
        }
        let (width, to_move) = (self.feature_len, self.to_move);
        if let Some(min_visits) = self.search_targets {
            let rows = SearchRows {
                game,
                width,
                to_move,
                min_visits,
            };
            return match self.board {
                Board::DotsAndBoxes(g) => rows.encode(g, features, labels),
                Board::TicTacToe(g) => rows.encode(g, features, labels),
            };
        }
        let outcome = outcome_class(game.outcome);
        match self.board {
            Board::DotsAndBoxes(g) => {
                rows(g, game, width, grid(to_move, outcome), features, labels)
            }
            Board::TicTacToe(g) => rows(g, game, width, grid(to_move, outcome), features, labels),
        }
    }
}

/// The rows of one game's recorded searches (search targets).
struct SearchRows<'a> {
    game: &'a GameRecord,
    width: usize,
    to_move: bool,
    min_visits: u32,
}

impl SearchRows<'_> {
    /// Calls `row` with the position after each root move with `min_visits` visits or more of
    /// each searched move of the game (those that are not over) and that root move's
    /// statistics. Errors name a root move that is not legal.
    fn each_child<G: Game>(
        &self,
        initial: G,
        mut row: impl FnMut(&G, &RootStat),
    ) -> Result<(), String> {
        let mut bad = None;
        replay(self.game, initial, |state, ply, m| {
            for r in m.root.iter().filter(|r| r.visits >= self.min_visits) {
                if !state.is_legal(r.action) {
                    bad.get_or_insert(format!(
                        "game {}: root move {} of move {} is not legal",
                        self.game.index,
                        r.action,
                        ply + 1
                    ));
                    continue;
                }
                let mut child = state.clone();
                child.apply(r.action);
                if !child.is_terminal() {
                    row(&child, r);
                }
            }
        })?;
        bad.map_or(Ok(()), Err)
    }

    /// A row for each position of [`each_child`](Self::each_child): the grid encoding
    /// ([`grid_row`](Self::grid_row)) and the search's value.
    fn encode<G: Game>(
        &self,
        initial: G,
        features: &mut Vec<f32>,
        labels: &mut Vec<u8>,
    ) -> Result<(), String> {
        self.each_child(initial, |child, r| {
            let start = features.len();
            features.resize(start + self.width, 0.0);
            labels.push(self.grid_row(child, r, &mut features[start..]));
        })
    }

    /// A grid encoding's row (who is to move last, if asked), labelled with the search's mean
    /// result through the move as P(P1 wins).
    fn grid_row<G: Game>(&self, child: &G, r: &RootStat, out: &mut [f32]) -> u8 {
        let n = self.width - usize::from(self.to_move);
        child.encode_features(&mut out[..n]);
        if self.to_move && child.to_move() == engine::Player::P1 {
            out[n] = 1.0;
        }
        soft_label((1.0 + r.value_for(engine::Player::P1)) / 2.0)
    }
}

/// The games of one or more datasets (of one game), indexed once and split by game.
pub struct DataIndex {
    pub dirs: Vec<PathBuf>,
    pub spec: GameSpec,
    /// Every record file of every dataset; a [`GameRef`] points into this list.
    pub files: Vec<PathBuf>,
    pub train: Vec<GameRef>,
    pub valid: Vec<GameRef>,
    /// Torn last records skipped (a killed selfplay run not yet resumed).
    pub warnings: Vec<String>,
    /// Each dataset's manifest config, in the order of `dirs`.
    pub manifest_configs: Vec<serde_json::Value>,
}

impl DataIndex {
    /// Indexes the datasets in `dirs` (the first one's split is the same as when it is alone:
    /// each later dataset's games are split with a seed derived from `seed` and its place, as
    /// two datasets number their games alike).
    pub fn build(dirs: &[PathBuf], validation_share: f64, seed: u64) -> Result<DataIndex, String> {
        check_distinct_dirs(dirs)?;
        let datasets: Vec<Dataset> = dirs
            .iter()
            .map(|dir| Dataset::open(dir).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let first = datasets.first().ok_or("no dataset to train on")?;
        let mut index = DataIndex {
            dirs: dirs.to_vec(),
            spec: first.spec(),
            files: Vec::new(),
            train: Vec::new(),
            valid: Vec::new(),
            warnings: Vec::new(),
            manifest_configs: Vec::new(),
        };
        for (k, dataset) in datasets.iter().enumerate() {
            if dataset.spec() != index.spec {
                return Err(format!(
                    "{} holds {} games, {} holds {} games: one game a training run",
                    first.dir().display(),
                    index.spec,
                    dataset.dir().display(),
                    dataset.spec()
                ));
            }
            index
                .manifest_configs
                .push(dataset.manifest().config.clone());
            let split_seed = if k == 0 {
                seed
            } else {
                engine::rng::derive_seed(seed, k as u64)
            };
            for path in dataset.files() {
                let file = index.files.len();
                index.files.push(path.clone());
                let reader = RecordReader::open(&path).map_err(|e| e.to_string())?;
                for item in reader {
                    match item {
                        Ok((offset, game)) => {
                            let r = GameRef {
                                file,
                                offset,
                                index: game.index,
                                positions: game.moves.len() as u32,
                            };
                            if is_validation(game.index, split_seed, validation_share) {
                                index.valid.push(r);
                            } else {
                                index.train.push(r);
                            }
                        }
                        Err(e) if e.is_torn_tail() => index.warnings.push(e.to_string()),
                        Err(e) => return Err(e.to_string()),
                    }
                }
            }
        }
        if index.train.is_empty() {
            return Err(format!(
                "{}: no games to train on ({} in validation)",
                index.dirs_text(),
                index.valid.len()
            ));
        }
        Ok(index)
    }

    /// The dataset folders, joined by ` + `.
    pub fn dirs_text(&self) -> String {
        let names: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
        names.join(" + ")
    }

    /// The manifest configs: one dataset's alone, several as a JSON list.
    pub fn manifest_config_text(&self) -> String {
        match self.manifest_configs.as_slice() {
            [one] => one.to_string(),
            many => serde_json::Value::Array(many.to_vec()).to_string(),
        }
    }

    pub fn positions(games: &[GameRef]) -> u64 {
        games.iter().map(|g| g.positions as u64).sum()
    }
}

/// Positions served in batches, from memory or streamed from the record files.
pub enum Source {
    /// Every position encoded once; each epoch visits them in a new random order.
    InMemory { features: Vec<f32>, labels: Vec<u8> },
    /// Each epoch reads the games in a new random order into a buffer of at most `buffer`
    /// positions, shuffles the buffer and serves it.
    Streamed {
        games: Vec<GameRef>,
        files: Vec<PathBuf>,
        buffer: usize,
    },
}

/// A batch: `labels.len()` rows of `width` features.
pub struct Batch<'a> {
    pub features: &'a [f32],
    pub labels: &'a [u8],
}

impl Source {
    /// Encodes `games` into memory.
    pub fn load(games: &[GameRef], files: &[PathBuf], encoder: &Encoder) -> Result<Source, String> {
        let n = DataIndex::positions(games) as usize * encoder.copies();
        let mut features = Vec::with_capacity(n * encoder.feature_len());
        let mut labels = Vec::with_capacity(n);
        let mut readers = open_readers(files)?;
        for g in games {
            let game = readers[g.file]
                .read_at(g.offset)
                .map_err(|e| e.to_string())?;
            encoder.encode(&game, &mut features, &mut labels)?;
        }
        Ok(Source::InMemory { features, labels })
    }

    pub fn streamed(games: &[GameRef], files: &[PathBuf], buffer: usize) -> Source {
        Source::Streamed {
            games: games.to_vec(),
            files: files.to_vec(),
            buffer,
        }
    }

    /// Calls `visit` with every position once, in batches of `batch_size` (the last may be
    /// smaller), shuffled by `rng` when `shuffle` is set.
    pub fn for_each_batch(
        &self,
        encoder: &Encoder,
        batch_size: usize,
        shuffle: Option<&mut Rng>,
        mut visit: impl FnMut(Batch) -> Result<(), String>,
    ) -> Result<(), String> {
        let width = encoder.feature_len();
        let mut batch_features = Vec::with_capacity(batch_size * width);
        let mut batch_labels = Vec::with_capacity(batch_size);
        // Serves rows of (features, labels) in the order `order` (or in order when empty).
        let mut serve = |features: &[f32],
                         labels: &[u8],
                         order: Option<&[u32]>,
                         visit: &mut dyn FnMut(Batch) -> Result<(), String>|
         -> Result<(), String> {
            let n = labels.len();
            let mut start = 0;
            while start < n {
                let end = (start + batch_size).min(n);
                match order {
                    None => visit(Batch {
                        features: &features[start * width..end * width],
                        labels: &labels[start..end],
                    })?,
                    Some(order) => {
                        batch_features.clear();
                        batch_labels.clear();
                        for &i in &order[start..end] {
                            let i = i as usize;
                            batch_features.extend_from_slice(&features[i * width..(i + 1) * width]);
                            batch_labels.push(labels[i]);
                        }
                        visit(Batch {
                            features: &batch_features,
                            labels: &batch_labels,
                        })?;
                    }
                }
                start = end;
            }
            Ok(())
        };
        match self {
            Source::InMemory { features, labels } => {
                let order = shuffle.map(|rng| shuffled(labels.len(), rng));
                serve(features, labels, order.as_deref(), &mut visit)
            }
            Source::Streamed {
                games,
                files,
                buffer,
            } => {
                let mut readers = open_readers(files)?;
                let mut game_order: Vec<GameRef> = games.clone();
                let mut rng = shuffle;
                if let Some(rng) = rng.as_deref_mut() {
                    rng.shuffle(&mut game_order);
                }
                let mut features = Vec::with_capacity(buffer * width);
                let mut labels = Vec::with_capacity(*buffer);
                let mut next = 0;
                while next < game_order.len() {
                    features.clear();
                    labels.clear();
                    while next < game_order.len() && labels.len() < *buffer {
                        let g = game_order[next];
                        let game = readers[g.file]
                            .read_at(g.offset)
                            .map_err(|e| e.to_string())?;
                        encoder.encode(&game, &mut features, &mut labels)?;
                        next += 1;
                    }
                    let order = rng.as_deref_mut().map(|r| shuffled(labels.len(), r));
                    serve(&features, &labels, order.as_deref(), &mut visit)?;
                }
                Ok(())
            }
        }
    }

    /// The rows in memory; streamed, the games' positions (an upper bound without search
    /// targets or a free-edge range, and without the images of `--symmetries`).
    pub fn len(&self) -> u64 {
        match self {
            Source::InMemory { labels, .. } => labels.len() as u64,
            Source::Streamed { games, .. } => DataIndex::positions(games),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn shuffled(n: usize, rng: &mut Rng) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut order);
    order
}

pub(crate) fn open_readers(files: &[PathBuf]) -> Result<Vec<RecordReader>, String> {
    files
        .iter()
        .map(|p| RecordReader::open(p).map_err(|e| e.to_string()))
        .collect()
}
