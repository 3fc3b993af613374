//! Training end to end on a small 3x3 dataset, resume, and the engine's forward pass against
//! burn's, and the pure parts of the library (all in one file: every test binary links
//! burn, and each link with LTO costs minutes).

use std::path::{Path, PathBuf};

use burn::tensor::Device;
use engine::games::dots_and_boxes::net::DAB_ENCODING;
use engine::games::GameSpec;
use engine::nn::{ModelMeta, ValueNet};
use engine::registry::Lookup;
use engine::rng::Rng;
use train::config::TrainConfig;
use train::metrics::{EpochMetrics, Tally};
use train::model::{input_tensor, Net};
use train::trainer::{train, TrainOptions, METRICS_FILE, MODEL_FILE};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("train-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A 3x3 self-play dataset of `games` games.
fn dataset(dir: &Path, games: u64) {
    dataset_of(dir, 3, games, 3);
}

/// A `size`x`size` self-play dataset of `games` games.
fn dataset_of(dir: &Path, size: usize, games: u64, seed: u64) {
    let config = selfplay::config::RunConfig {
        rows: size,
        cols: size,
        games,
        iterations: 300,
        parallel_games: 2,
        seed,
        out: dir.to_path_buf(),
        ..Default::default()
    };
    selfplay::run::run(&selfplay::run::RunOptions {
        config,
        shard: selfplay::shard::Shard { index: 0, count: 1 },
        resume: false,
        progress: selfplay::run::Progress::Quiet,
    })
    .unwrap();
}

fn options(data: &Path, out: &Path, epochs: usize, resume: bool) -> TrainOptions {
    TrainOptions {
        config: TrainConfig {
            data: data.to_path_buf(),
            out: out.to_path_buf(),
            epochs,
            batch_size: 64,
            learning_rate: 0.01,
            validation_share: 0.2,
            patience: 0,
            ..TrainConfig::default()
        },
        resume,
        force: false,
        verbose: false,
        command: "test".into(),
    }
}

#[test]
fn trains_exports_and_resumes_to_the_same_net() {
    let root = temp_dir("run");
    let data = root.join("data");
    dataset(&data, 80);
    let straight = root.join("straight");
    let s = train(&options(&data, &straight, 4, false)).unwrap();
    assert_eq!(s.epochs_run, 4);
    assert_eq!(s.train_positions + s.valid_positions, 80 * 24);
    assert!(s.valid_games > 0 && s.train_games > s.valid_games);
    let first = &s.history[0];
    let last = &s.history[3];
    assert!(last.train_loss < first.train_loss, "{first:?} -> {last:?}");
    // Every output file is there; the model fits the board and says what it was trained on.
    for f in [MODEL_FILE, METRICS_FILE, "MODEL.md", "curves.svg"] {
        assert!(straight.join(f).is_file(), "{f}");
    }
    let csv = std::fs::read_to_string(straight.join(METRICS_FILE)).unwrap();
    assert_eq!(csv.lines().count(), 5);
    let net = ValueNet::load(&straight.join(MODEL_FILE), engine::registry::GAMES).unwrap();
    net.check_fits(
        engine::games::DotsAndBoxes::spec_for(3, 3).unwrap(),
        &engine::games::dots_and_boxes::net::value_encodings(
            &engine::games::DotsAndBoxes::new(3, 3).unwrap(),
        ),
    )
    .unwrap();
    assert_eq!(net.meta.extra["dataset_games"], "80");
    assert!(net.meta.extra.contains_key("metrics"));

    // A second run into the same folder needs --resume.
    assert!(train(&options(&data, &straight, 4, false))
        .unwrap_err()
        .contains("--resume"));
    // Two epochs, then resumed to four: the same history as four straight epochs.
    let resumed = root.join("resumed");
    train(&options(&data, &resumed, 2, false)).unwrap();
    let r = train(&options(&data, &resumed, 4, true)).unwrap();
    assert_eq!(r.history.len(), 4);
    for (a, b) in r.history.iter().zip(&s.history) {
        let close = |x: f64, y: f64| (x - y).abs() < 1e-6;
        assert!(
            close(a.train_loss, b.train_loss) && close(a.valid_loss, b.valid_loss),
            "resumed {a:?} vs straight {b:?}"
        );
    }
    // Another setting is refused on resume.
    let mut other = options(&data, &resumed, 5, true);
    other.config.hidden = 20;
    assert!(train(&other).unwrap_err().contains("other settings"));

    // A folder that holds a model and no run (a shipped net) is never written over unasked:
    // the file is left as it was; --force replaces it.
    let shipped = root.join("shipped");
    std::fs::create_dir_all(&shipped).unwrap();
    std::fs::copy(straight.join(MODEL_FILE), shipped.join(MODEL_FILE)).unwrap();
    let before = std::fs::read(shipped.join(MODEL_FILE)).unwrap();
    let err = train(&options(&data, &shipped, 1, false)).unwrap_err();
    assert!(
        err.contains("already holds a model") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read(shipped.join(MODEL_FILE)).unwrap(), before);
    assert!(!shipped.join("checkpoints").exists());
    let mut forced = options(&data, &shipped, 1, false);
    forced.force = true;
    assert_eq!(train(&forced).unwrap().epochs_run, 1);
    assert_ne!(std::fs::read(shipped.join(MODEL_FILE)).unwrap(), before);
    std::fs::remove_dir_all(root).unwrap();
}

/// Without an output folder, a run writes to a fresh one under `runs/`.
#[test]
fn without_out_a_run_gets_a_fresh_folder_under_runs() {
    let dir = train::trainer::output_folder(Path::new("")).unwrap();
    assert!(dir.starts_with("runs") && !dir.exists(), "{dir:?}");
    assert!(dir.to_string_lossy().contains("train-"), "{dir:?}");
    let given = train::trainer::output_folder(Path::new("here")).unwrap();
    assert_eq!(given, PathBuf::from("here"));
    // The default config names no folder: it is never the shipped model's.
    assert_eq!(TrainConfig::default().out, PathBuf::new());
}

/// `extra_data` trains on more datasets of the same game, each split by game; the first keeps
/// the split it has alone; a dataset of another board is refused by name.
#[test]
fn trains_on_several_datasets_of_one_game() {
    let root = temp_dir("extra");
    let (a, b, small) = (root.join("a"), root.join("b"), root.join("small"));
    dataset(&a, 60);
    dataset_of(&b, 3, 40, 9);
    dataset_of(&small, 2, 10, 9);
    let alone = train(&options(&a, &root.join("alone"), 1, false)).unwrap();
    let mut both = options(&a, &root.join("both"), 1, false);
    both.config.extra_data = vec![b.clone()];
    let both = train(&both).unwrap();
    assert_eq!(both.train_positions + both.valid_positions, 100 * 24);
    assert_eq!(both.train_games + both.valid_games, 100);
    assert!(both.valid_games > alone.valid_games && both.train_games > alone.train_games);
    let net = ValueNet::load(&root.join("both").join(MODEL_FILE), engine::registry::GAMES).unwrap();
    assert_eq!(net.meta.extra["dataset_games"], "100");
    let named = format!("{} + {}", a.display(), b.display());
    assert_eq!(net.meta.extra["dataset"], named);
    let card = std::fs::read_to_string(root.join("both").join("MODEL.md")).unwrap();
    assert!(card.contains(&named), "{card}");
    assert!(!card.contains("| targets |"), "outcome labels: {card}");

    let mut mixed = options(&a, &root.join("mixed"), 1, false);
    mixed.config.extra_data = vec![small.clone()];
    let err = train(&mixed).unwrap_err();
    assert!(
        err.contains(&small.display().to_string()) && err.contains("2x2"),
        "{err}"
    );
    // The same folder twice (here as another spelling of it) is refused by name before
    // anything is written: its games would fall on both sides of the split.
    let mut twice = options(&a, &root.join("twice"), 1, false);
    twice.config.extra_data = vec![b.join("..").join("a")];
    let err = train(&twice).unwrap_err();
    assert!(
        err.contains(&format!("{} and ", a.display())) && err.contains("the same dataset folder"),
        "{err}"
    );
    assert!(!root.join("twice").exists());
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn engine_forward_pass_matches_burn() {
    let device = Device::flex();
    let net = Net::new(85, 100, 11, &device);
    let mut rng = Rng::new(5);
    let rows = 200;
    let values = [0.0f32, 0.25, 0.5, 0.75, 1.0];
    let inputs: Vec<f32> = (0..rows * 85)
        .map(|_| values[rng.below(5) as usize])
        .collect();
    let burn_out: Vec<f32> = net
        .forward(input_tensor(&inputs, 85, &device))
        .into_data()
        .try_to_vec()
        .unwrap();
    let meta = ModelMeta {
        game: engine::games::DotsAndBoxes::spec_for(5, 5).unwrap(),
        encoding: DAB_ENCODING.into(),
        inputs: 85,
        hidden: 100,
        extra: Default::default(),
    };
    let root = temp_dir("forward");
    let path = root.join("net.safetensors");
    net.to_value_net(meta).save(&path).unwrap();
    let engine_net = ValueNet::load(&path, engine::registry::GAMES).unwrap();
    let mut worst = 0f32;
    for r in 0..rows {
        let out = engine_net.forward(&inputs[r * 85..(r + 1) * 85]);
        for k in 0..3 {
            worst = worst.max((out[k] - burn_out[r * 3 + k]).abs());
        }
    }
    assert!(worst <= 1e-5, "largest difference {worst}");
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn epoch_rows_and_the_gpu_switch() {
    // The table row names every column of the header.
    let m = EpochMetrics {
        epoch: 1,
        train_loss: 0.5,
        train_accuracy: 0.6,
        valid_loss: 0.55,
        valid_accuracy: 0.58,
        valid_sure_share: 0.1,
        valid_sure_accuracy: 0.9,
        seconds: 1.0,
        positions_per_second: 1000.0,
    };
    assert_eq!(m.row().split_whitespace().count(), 9, "{}", m.row());
    #[cfg(not(feature = "gpu"))]
    {
        let config = TrainConfig {
            backend: train::config::Backend::Gpu,
            ..TrainConfig::default()
        };
        let err = train::trainer::device_for(&config).unwrap_err();
        assert!(err.contains("--features gpu"), "{err}");
    }
}

// The settings and the tallies.

#[test]
fn shipped_train_configs_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("train") && name.ends_with(".toml") {
            TrainConfig::from_file(&path).unwrap().validate().unwrap();
            seen += 1;
        }
    }
    assert!(seen >= 1);
}

#[test]
fn bad_keys_and_values_are_named() {
    let err = toml::from_str::<TrainConfig>("epochs = 3\nlearning_rat = 0.1\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("learning_rat") && err.contains("line 2"),
        "{err}"
    );
    let bad = TrainConfig {
        validation_share: 1.5,
        ..TrainConfig::default()
    };
    assert!(bad.validate().unwrap_err().contains("validation_share"));
}

#[test]
fn tally_counts_sure_and_right() {
    let mut t = Tally::default();
    let outputs = [
        0.95, 0.02, 0.01, // sure, says P1, right
        0.10, 0.92, 0.01, // sure, says P2, wrong (P1 won)
        0.60, 0.30, 0.05, // not sure, says P1, right
        0.20, 0.70, 0.10, // not sure, says P2, right
    ];
    t.add(0.5, &outputs, &[0, 0, 0, 1], 0.9);
    assert_eq!(t.positions, 4);
    assert!((t.loss() - 0.5).abs() < 1e-12);
    assert!((t.accuracy() - 0.75).abs() < 1e-12);
    assert!((t.sure_share() - 0.5).abs() < 1e-12);
    assert!((t.sure_accuracy() - 0.5).abs() < 1e-12);
    t.add(0.1, &[0.1, 0.1, 0.95], &[2], 0.9);
    assert!((t.loss() - (0.5 * 4.0 + 0.1) / 5.0).abs() < 1e-12);
    assert!((t.sure_accuracy() - 2.0 / 3.0).abs() < 1e-12);
}

/// The GPU path (burn-wgpu; in CI a software Vulkan device, Mesa's llvmpipe) trains the same
/// net as the CPU from the same start: losses and the exported net's outputs agree closely.
#[cfg(feature = "gpu")]
#[test]
fn gpu_training_matches_cpu() {
    let root = temp_dir("gpu");
    let data = root.join("data");
    dataset(&data, 40);
    let cpu = train(&options(&data, &root.join("cpu"), 2, false)).unwrap();
    let mut gpu_options = options(&data, &root.join("gpu"), 2, false);
    gpu_options.config.backend = train::config::Backend::Gpu;
    let gpu = train(&gpu_options).unwrap();
    assert!(gpu.device.starts_with("gpu"), "{}", gpu.device);
    for (c, g) in cpu.history.iter().zip(&gpu.history) {
        let rel = |a: f64, b: f64| (a - b).abs() / a.abs().max(1e-9);
        assert!(
            rel(c.train_loss, g.train_loss) < 1e-3 && rel(c.valid_loss, g.valid_loss) < 1e-3,
            "cpu {c:?} vs gpu {g:?}"
        );
    }
    let cpu_net =
        ValueNet::load(&root.join("cpu").join(MODEL_FILE), engine::registry::GAMES).unwrap();
    let gpu_net =
        ValueNet::load(&root.join("gpu").join(MODEL_FILE), engine::registry::GAMES).unwrap();
    let mut rng = Rng::new(9);
    let mut worst = 0f32;
    for _ in 0..100 {
        let x: Vec<f32> = (0..33).map(|_| rng.below(5) as f32 * 0.25).collect();
        let (a, b) = (cpu_net.forward(&x), gpu_net.forward(&x));
        for k in 0..3 {
            worst = worst.max((a[k] - b[k]).abs());
        }
    }
    assert!(worst < 1e-3, "outputs differ by {worst}");
    std::fs::remove_dir_all(root).unwrap();
}

/// The encoding with the player to move: one more input, the mover in it, and a model the
/// engine accepts for net-guided rollouts (and refuses to read as the paper's encoding).
#[test]
fn the_to_move_encoding_trains_and_loads() {
    let dir = temp_dir("to-move");
    let data = dir.join("data");
    dataset(&data, 12);
    let spec = engine::games::DotsAndBoxes::spec_for(3, 3).unwrap();
    let encoder =
        train::data::Encoder::with_encoding(spec, train::config::Encoding::Table2ToMove).unwrap();
    // 24 edges and 9 boxes, and the mover.
    assert_eq!(encoder.feature_len(), 34);
    assert_eq!(
        encoder.encoding_name(),
        engine::games::dots_and_boxes::net::DAB_ENCODING_TO_MOVE
    );
    let dataset = engine::record::Dataset::open(&data).unwrap();
    let game = dataset.games().next().unwrap().unwrap();
    let (mut features, mut labels) = (Vec::new(), Vec::new());
    encoder.encode(&game, &mut features, &mut labels).unwrap();
    let mut state = engine::games::DotsAndBoxes::new(3, 3).unwrap();
    for (row, m) in features.chunks(34).zip(&game.moves) {
        let p1 = engine::Game::to_move(&state) == engine::Player::P1;
        assert_eq!(row[33], if p1 { 1.0 } else { 0.0 });
        engine::Game::apply(&mut state, m.action);
    }
    let mut opts = options(&data, &dir.join("model"), 1, false);
    opts.config.encoding = train::config::Encoding::Table2ToMove;
    let summary = train(&opts).unwrap();
    let net = ValueNet::load(&summary.model, engine::registry::GAMES).unwrap();
    assert_eq!(
        net.meta.encoding,
        engine::games::dots_and_boxes::net::DAB_ENCODING_TO_MOVE
    );
    assert_eq!(net.inputs(), 34);
    let board = engine::games::DotsAndBoxes::new(3, 3).unwrap();
    assert!(engine::games::dots_and_boxes::net::DabNet::new(&net, &board).is_ok());
    std::fs::remove_dir_all(dir).unwrap();
}

fn write_dataset<G: engine::game::Game>(
    dir: &Path,
    start: G,
    spec: GameSpec,
    games: u64,
    seed: u64,
    mut choose: impl FnMut(&G, &[engine::game::Action], &mut Rng) -> engine::game::Action,
) {
    use engine::record::{recorded_scores, GameRecord, MoveKind, MoveRecord, RecordWriter};
    std::fs::create_dir_all(dir).unwrap();
    let mut writer = RecordWriter::create(&dir.join("games.rec"), &spec).unwrap();
    let mut rng = Rng::new(seed);
    let (mut positions, mut legal) = (0, Vec::new());
    for index in 0..games {
        let mut state = start.clone();
        let mut moves = Vec::new();
        while !state.is_terminal() {
            state.legal_actions(&mut legal);
            let action = choose(&state, &legal, &mut rng);
            moves.push(MoveRecord {
                action,
                player: state.to_move(),
                kind: MoveKind::Searched,
                iterations: 0,
                root: Vec::new(),
            });
            state.apply(action);
        }
        let outcome = state.outcome().unwrap();
        positions += moves.len() as u64;
        writer
            .append(&GameRecord {
                index,
                seed: index,
                outcome,
                scores: recorded_scores(&state, outcome),
                moves,
            })
            .unwrap();
    }
    writer.sync().unwrap();
    write_manifest(dir, spec, games, positions);
}

/// Soft labels: P(P1 wins) to the nearest 1/200 and back, hard classes by the likelier side;
/// the outcome classes keep their one-hot rows.
#[test]
fn soft_labels_hold_a_searchs_odds() {
    use train::data::{hard_class, soft_label, target_row, SOFT_BASE};
    for p in [0.0, 0.13, 0.5, 0.77, 1.0] {
        let label = soft_label(p);
        assert!(label >= SOFT_BASE);
        let row = target_row(label);
        assert!((row[0] as f64 - p).abs() <= 0.0025, "{p} {row:?}");
        assert!(
            (row[0] + row[1] - 1.0).abs() < 1e-6 && row[2] == 0.0,
            "{row:?}"
        );
        assert_eq!(hard_class(label), if p >= 0.5 { 0 } else { 1 }, "{p}");
    }
    assert_eq!(soft_label(-0.5), soft_label(0.0));
    assert_eq!(soft_label(1.5), soft_label(1.0));
    for class in 0..3u8 {
        let mut want = [0.0; 3];
        want[class as usize] = 1.0;
        assert_eq!(target_row(class), want);
        assert_eq!(hard_class(class), class);
    }
}

/// Search targets: one row for the position after each root move with enough visits of each
/// recorded search, labelled with the search's mean through that move; with `min_visits` above
/// every count there is none; a fit on them runs and learns.
#[test]
fn search_targets_label_the_positions_after_the_root_moves() {
    use engine::game::Game;
    use engine::games::DotsAndBoxes;
    use engine::record::{replay, Dataset};
    use train::config::{Encoding, ValueTargets};
    use train::data::{soft_label, Encoder};
    let root = temp_dir("search-targets");
    let data = root.join("data");
    dataset(&data, 30);
    let dataset = Dataset::open(&data).unwrap();
    let spec = dataset.spec();
    let board: DotsAndBoxes = spec.start().unwrap();
    let encoder = Encoder::with_encoding(spec, Encoding::Table2ToMove)
        .unwrap()
        .with_search_targets(20)
        .unwrap();
    let width = encoder.feature_len();
    let (mut rows, mut want_rows) = (0, 0);
    for game in dataset.games() {
        let game = game.unwrap();
        let (mut features, mut labels) = (Vec::new(), Vec::new());
        encoder.encode(&game, &mut features, &mut labels).unwrap();
        assert_eq!(features.len(), labels.len() * width);
        // The rows in order: each root move of 20 visits or more whose child goes on.
        let mut want = Vec::new();
        let mut want_features = Vec::new();
        replay(&game, board, |state, _, m| {
            for r in m.root.iter().filter(|r| r.visits >= 20) {
                let mut child = *state;
                child.apply(r.action);
                if child.is_terminal() {
                    continue;
                }
                let mut row = vec![0f32; width];
                child.encode_features(&mut row[..width - 1]);
                row[width - 1] = f32::from(child.to_move() == engine::Player::P1);
                want_features.extend(row);
                want.push(soft_label((1.0 + r.value_for(engine::Player::P1)) / 2.0));
            }
        })
        .unwrap();
        assert_eq!(labels, want, "game {}", game.index);
        assert_eq!(features, want_features, "game {}", game.index);
        rows += labels.len();
        want_rows += want.len();
    }
    assert!(rows > 100 && rows == want_rows, "{rows} rows");
    let none = Encoder::with_encoding(spec, Encoding::Table2)
        .unwrap()
        .with_search_targets(u32::MAX)
        .unwrap();
    let game = dataset.games().next().unwrap().unwrap();
    let (mut features, mut labels) = (Vec::new(), Vec::new());
    none.encode(&game, &mut features, &mut labels).unwrap();
    assert!(labels.is_empty() && features.is_empty());

    let mut opts = options(&data, &root.join("net"), 4, false);
    opts.config.value_targets = ValueTargets::Search;
    opts.config.min_visits = 20;
    let s = train(&opts).unwrap();
    assert_eq!(s.train_positions + s.valid_positions, rows as u64);
    assert!(s.history[3].train_loss < s.history[0].train_loss);
    // The card says what the rows were, with their counts.
    let card = std::fs::read_to_string(root.join("net").join("MODEL.md")).unwrap();
    let targets = format!(
        "at least 20 visits gives the position after it, labelled with the search's mean result through it; {} rows train, {} validation",
        s.train_positions, s.valid_positions
    );
    assert!(card.contains(&targets), "{card}");
    // Streamed, the rows are not counted ahead, and the card says so instead of a count.
    let mut streamed = options(&data, &root.join("streamed"), 1, false);
    streamed.config.value_targets = ValueTargets::Search;
    streamed.config.min_visits = 20;
    streamed.config.memory_positions = streamed.config.batch_size;
    train(&streamed).unwrap();
    let card = std::fs::read_to_string(root.join("streamed").join("MODEL.md")).unwrap();
    assert!(
        card.contains("mean result through it; streamed, the rows not counted |"),
        "{card}"
    );
    let mut unvisited = options(&data, &root.join("unvisited"), 1, false);
    unvisited.config.value_targets = ValueTargets::Search;
    unvisited.config.min_visits = u32::MAX;
    assert!(train(&unvisited)
        .unwrap_err()
        .contains("no recorded search"));
    std::fs::remove_dir_all(root).unwrap();
}

/// `--symmetries`: each game gives its rows once more in each mirror and rotation of its
/// board (8 on 3x3), with the same labels; the player to move does not change and the grid's
/// cells are only permuted; training then sees 8 times the rows and
/// validation the games as played; tictactoe is refused.
#[test]
fn symmetries_give_each_game_in_every_image_of_its_board() {
    use engine::record::Dataset;
    use train::config::{Encoding, ValueTargets};
    use train::data::Encoder;
    let root = temp_dir("symmetries");
    let data = root.join("data");
    dataset(&data, 12);
    let dataset = Dataset::open(&data).unwrap();
    let spec = dataset.spec();
    for (encoding, search) in [
        (Encoding::Table2, false),
        (Encoding::Table2ToMove, false),
        (Encoding::Table2ToMove, true),
    ] {
        let mut plain = Encoder::with_encoding(spec, encoding).unwrap();
        if search {
            plain = plain.with_search_targets(20).unwrap();
        }
        let all = plain.with_symmetries(true).unwrap();
        assert_eq!((plain.copies(), all.copies()), (1, 8));
        let width = plain.feature_len();
        let grid = 3 * 4 * 2 + 9;
        for game in dataset.games() {
            let game = game.unwrap();
            let (mut f1, mut l1) = (Vec::new(), Vec::new());
            plain.encode(&game, &mut f1, &mut l1).unwrap();
            let (mut f8, mut l8) = (Vec::new(), Vec::new());
            all.encode(&game, &mut f8, &mut l8).unwrap();
            assert_eq!(l8.len(), 8 * l1.len(), "{encoding:?}");
            assert_eq!(f8[..f1.len()], f1[..], "the game itself comes first");
            let n = l1.len();
            if encoding == Encoding::Table2 {
                // Outcome rows come in the game's order: image k's row i holds, at each edge's
                // image, what the game's row i holds at the edge.
                let board: engine::games::DotsAndBoxes = spec.start().unwrap();
                let geo = board.geometry();
                let maps = geo.symmetries();
                for (k, copy) in f8.chunks((n * width).max(1)).enumerate() {
                    for (orig, image) in f1.chunks(width).zip(copy.chunks(width)) {
                        for e in 0..geo.num_edges {
                            let to = maps[k][e] as usize;
                            assert_eq!(
                                image[geo.edge_feature[to] as usize],
                                orig[geo.edge_feature[e] as usize],
                                "image {k}, edge {e}"
                            );
                        }
                    }
                }
                assert!(f8[f1.len()..].chunks(f1.len()).any(|c| c != &f1[..]));
            }
            for copy in l8.chunks(n.max(1)).skip(1) {
                let (mut a, mut b) = (l1.clone(), copy.to_vec());
                a.sort();
                b.sort();
                assert_eq!(a, b, "{encoding:?}: the labels are the same");
            }
            // Each image's rows, as multisets of their grid cells and their extra inputs.
            let key = |row: &[f32]| {
                let mut cells: Vec<u32> = row[..grid].iter().map(|x| x.to_bits()).collect();
                cells.sort();
                let extra: Vec<u32> = row[grid..].iter().map(|x| x.to_bits()).collect();
                (cells, extra)
            };
            let mut want: Vec<_> = f1.chunks(width).map(key).collect();
            want.sort();
            for copy in f8.chunks(n.max(1) * width).skip(1) {
                let mut got: Vec<_> = copy.chunks(width).map(key).collect();
                got.sort();
                assert_eq!(got, want, "{encoding:?}");
            }
        }
    }
    // Training: 8 times the rows, the same validation, and the card says so.
    let mut once = options(&data, &root.join("once"), 1, false);
    once.config.value_targets = ValueTargets::Search;
    once.config.min_visits = 20;
    let a = train(&once).unwrap();
    let mut eight = options(&data, &root.join("eight"), 1, false);
    eight.config.value_targets = ValueTargets::Search;
    eight.config.min_visits = 20;
    eight.config.symmetries = true;
    let b = train(&eight).unwrap();
    assert_eq!(b.train_positions, 8 * a.train_positions);
    assert_eq!(b.valid_positions, a.valid_positions);
    let card = std::fs::read_to_string(root.join("eight").join("MODEL.md")).unwrap();
    assert!(
        card.contains("board's 8 mirror and rotated images"),
        "{card}"
    );
    let ttt = GameSpec::parse::<&str>("tictactoe", &[]).unwrap();
    let refused = Encoder::with_encoding(ttt, Encoding::Table2)
        .unwrap()
        .with_symmetries(true);
    assert!(refused.is_err());
}

/// A Gomoku dataset of `games` games on a 9x9 freestyle board: each side plays a five point
/// of its own, else blocks one of the other's, else a random point next to a stone (the
/// centre first). The records keep no search values: the targets are the results.
fn gomoku_dataset(dir: &Path, games: u64, seed: u64) {
    use engine::game::Game;
    use engine::games::gomoku::{Gomoku, Rule};
    use engine::games::RegisteredGame;
    let start = Gomoku::new(9, Rule::Freestyle).unwrap();
    let spec = start.spec();
    write_dataset(dir, start, spec, games, seed, |state, legal, rng| {
        let me = state.to_move();
        let near: Vec<_> = legal
            .iter()
            .copied()
            .filter(|&a| {
                let (c, r) = ((a % 9) as i32, (a / 9) as i32);
                (-1..=1).any(|dr| {
                    (-1..=1).any(|dc| {
                        state
                            .point(c + dc, r + dr)
                            .is_some_and(|q| state.stone(q).is_some())
                    })
                })
            })
            .collect();
        if let Some(&a) = legal.iter().find(|&&a| state.wins_at(a as usize, me)) {
            a
        } else if let Some(&a) = legal
            .iter()
            .find(|&&a| state.wins_at(a as usize, me.opponent()))
        {
            a
        } else if near.is_empty() {
            40
        } else {
            rng.pick(&near)
        }
    });
}

/// `train pattern` learns Gomoku results better than a constant guess, and its net loads in
/// the engine for its own board only, where `pvs:model=` plays with it; a dataset of another
/// game and a folder holding a model are refused before any training.
#[test]
fn a_gomoku_pattern_net_learns_results_and_plays_in_pvs() {
    use engine::game::Game;
    use engine::games::gomoku::net::PatternNet;
    use engine::games::gomoku::{Gomoku, Rule};
    use engine::games::RegisteredGame;
    use train::pattern::{train_pattern, LrDecay, PatternConfig, Trainer};
    let dir = temp_dir("pattern");
    let data = dir.join("data");
    gomoku_dataset(&data, 400, 5);
    let out = dir.join("net");
    let config = PatternConfig {
        data: vec![data.clone()],
        out: out.clone(),
        features: 8,
        hidden: 8,
        epochs: 20,
        patience: 0,
        batch_size: 64,
        learning_rate: 0.005,
        validation_share: 0.2,
        trainer: Trainer::Burn,
        ..PatternConfig::default()
    };
    let summary = train_pattern(&config, false, "test").unwrap();
    assert!(summary.train_positions > 1000 && summary.valid_positions > 0);
    assert!(
        summary.best.valid_loss < summary.constant_loss - 0.02,
        "{summary:?}"
    );
    let card = std::fs::read_to_string(out.join("MODEL.md")).unwrap();
    assert!(
        card.contains("gomoku-shape-pairs-v1") && card.contains("| 20 |"),
        "{card}"
    );

    let path = out.join(MODEL_FILE);
    let net = PatternNet::load(&path).unwrap();
    assert!(net.check_fits(Rule::Freestyle, 9).is_ok());
    assert_eq!(
        net.extra["train_positions"],
        summary.train_positions.to_string()
    );
    let small = Gomoku::new(9, Rule::Freestyle).unwrap();
    let spec =
        engine::agents::parse_spec(&format!("pvs:time_ms=50,model={}", path.display())).unwrap();
    let mut player = Gomoku::build_kind(&spec, &small).unwrap();
    let mut state = small;
    let mut moves = Vec::new();
    for m in ["e5", "e6"] {
        let a = state.parse_legal_action(m).unwrap();
        state.apply(a);
        moves.push(a);
    }
    assert!(state.is_legal(player.choose(&state, &moves).unwrap().action));
    // A bigger board of its rule is played (its sums carried over); another rule is refused.
    let large = Gomoku::new(15, Rule::Freestyle).unwrap();
    assert!(Gomoku::build_kind(&spec, &large).is_ok());
    let renju = Gomoku::new(9, Rule::Renju).unwrap();
    let err = Gomoku::build_kind(&spec, &renju).err().unwrap();
    assert!(
        err.contains("the net was trained for freestyle 9x9, this game is renju 9x9"),
        "{err}"
    );

    // The default, by the sparse trainer. (With the learning rate falling, which the card
    // says.)
    let plain = PatternConfig {
        out: dir.join("plain"),
        epochs: 2,
        lr_decay: LrDecay::Cosine,
        trainer: Trainer::Sparse,
        ..config.clone()
    };
    let summary = train_pattern(&plain, false, "test").unwrap();
    assert_eq!(summary.best.valid_rank_top1, 0.0);
    let card = std::fs::read_to_string(plain.out.join("MODEL.md")).unwrap();
    assert!(
        card.contains(
            "learning rate 0.005 falling along a half cosine to a twentieth of it at epoch 2"
        ) && card.contains("the sparse trainer"),
        "{card}"
    );
    assert!(PatternNet::load(&plain.out.join(MODEL_FILE)).is_ok());

    // A ranking loss: the games' moves touch a stone (or win or block), the alternatives are
    // any point within two of one, so the value net learns to rank the move played first
    // more often than a uniform guess among four (25%, cross-entropy 1.386): 33.9% after
    // three epochs.
    let ranked = PatternConfig {
        out: dir.join("ranked"),
        epochs: 3,
        rank_weight: 1.0,
        trainer: Trainer::Sparse,
        ..config.clone()
    };
    let summary = train_pattern(&ranked, false, "test").unwrap();
    assert!(
        summary.best.valid_rank_top1 > 0.3 && summary.best.valid_rank_loss < 1.36,
        "{summary:?}"
    );
    let card = std::fs::read_to_string(ranked.out.join("MODEL.md")).unwrap();
    assert!(
        card.contains("| Ranking | the value net made to rank the position after the move played above those after 3 other points"),
        "{card}"
    );
    let metrics = std::fs::read_to_string(ranked.out.join("metrics.csv")).unwrap();
    assert!(metrics.starts_with("epoch,train_loss,valid_loss,valid_accuracy,valid_policy_loss,valid_policy_top1,valid_rank_loss,valid_rank_top1,"), "{metrics}");
    // The same rows streamed from disk, some 300 positions a run: the same positions, a
    // ranking learnt as well, a card that says so, and no cache file left; burn's trainer,
    // which holds its rows in memory, is refused such a set before anything is read.
    let streamed = PatternConfig {
        out: dir.join("streamed"),
        memory_positions: 300,
        ..ranked.clone()
    };
    let s = train_pattern(&streamed, false, "test").unwrap();
    assert_eq!(
        (s.train_positions, s.valid_positions),
        (summary.train_positions, summary.valid_positions)
    );
    assert!(
        s.best.valid_rank_top1 > 0.3 && s.best.valid_rank_loss < 1.36,
        "{s:?}"
    );
    let card = std::fs::read_to_string(streamed.out.join("MODEL.md")).unwrap();
    assert!(
        card.contains("positions, streamed from disk in ")
            && card.contains("runs of at most --memory-positions 300"),
        "{card}"
    );
    assert!(!streamed.out.join(train::row_cache::CACHE_FILE).exists());
    let burn = PatternConfig {
        out: dir.join("streamed-burn"),
        trainer: Trainer::Burn,
        ..streamed.clone()
    };
    let err = train_pattern(&burn, false, "test").unwrap_err();
    assert!(
        err.contains("more than --memory-positions 300: the burn trainer holds its rows in memory"),
        "{err}"
    );
    assert!(!burn.out.exists());
    let bad = PatternConfig {
        rank_share: 0.0,
        ..ranked.clone()
    };
    let err = train_pattern(&bad, false, "test").unwrap_err();
    assert!(err.contains("rank_share is in (0, 1], got 0"), "{err}");

    let again = train_pattern(&config, false, "test").unwrap_err();
    assert!(
        again.contains("already holds a model; pass --force"),
        "{again}"
    );
    let dab = dir.join("dab");
    dataset(&dab, 4);
    let other = PatternConfig {
        data: vec![dab],
        out: dir.join("dab-net"),
        ..config
    };
    let err = train_pattern(&other, false, "test").unwrap_err();
    assert!(err.contains("pattern nets are for gomoku"), "{err}");
    assert!(!dir.join("dab-net").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `train pattern` refuses a run that holds out no game (`--validation-share 0`, or a share
/// that gives none of the games), whose net would be kept by a NaN validation loss, and a
/// dataset folder named twice, whose held-out games would be dropped as repeats; nothing is
/// written.
#[test]
fn a_pattern_run_without_held_out_games_or_with_a_folder_twice_is_refused() {
    use train::pattern::{train_pattern, PatternConfig};
    let dir = temp_dir("pattern-held-out");
    let data = dir.join("data");
    // Games 0 and 1 fall on the training side of seed 1's split at a share of 0.1.
    gomoku_dataset(&data, 2, 5);
    let config = PatternConfig {
        data: vec![data.clone()],
        out: dir.join("net"),
        epochs: 1,
        ..PatternConfig::default()
    };
    let none = PatternConfig {
        validation_share: 0.0,
        ..config.clone()
    };
    let err = train_pattern(&none, false, "test").unwrap_err();
    assert!(
        err.contains("--validation-share 0 holds out no game"),
        "{err}"
    );
    let err = train_pattern(&config, false, "test").unwrap_err();
    assert!(
        err.contains("--validation-share 0.1 holds out no game of the 2 in "),
        "{err}"
    );
    let twice = PatternConfig {
        data: vec![data.clone(), data.clone()],
        validation_share: 0.5,
        ..config.clone()
    };
    let err = train_pattern(&twice, false, "test").unwrap_err();
    assert!(
        err.contains(&format!("{} is given twice as a dataset", data.display())),
        "{err}"
    );
    assert!(!dir.join("net").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `train pattern --init` starts from a net of the run's sizes (here with `--trainer burn`),
/// and refuses one of other sizes or of another rule.
#[test]
fn a_gomoku_net_trains_from_a_net_of_its_sizes() {
    use engine::games::gomoku::net::PatternNet;
    use train::pattern::{train_pattern, PatternConfig, Trainer};
    let dir = temp_dir("pattern-init");
    let data = dir.join("data");
    gomoku_dataset(&data, 400, 5);
    let plain = PatternConfig {
        data: vec![data.clone()],
        out: dir.join("plain"),
        features: 8,
        hidden: 8,
        epochs: 10,
        patience: 0,
        batch_size: 64,
        learning_rate: 0.005,
        validation_share: 0.2,
        ..PatternConfig::default()
    };
    train_pattern(&plain, false, "test").unwrap();
    let shapes = plain.out.join(MODEL_FILE);
    let resumed = PatternConfig {
        out: dir.join("resumed"),
        init: Some(shapes.clone()),
        epochs: 2,
        trainer: Trainer::Burn,
        ..plain.clone()
    };
    let narrower = PatternConfig {
        out: dir.join("narrower"),
        features: 4,
        ..resumed.clone()
    };
    let err = train_pattern(&narrower, false, "test").unwrap_err();
    assert!(
        err.contains("has 8 features and 8 hidden units, the run asks for 4 and 8"),
        "{err}"
    );
    assert!(!narrower.out.exists());
    // Started from a net that learnt the results, not from scratch.
    let summary = train_pattern(&resumed, false, "test").unwrap();
    assert!(
        summary.best.valid_loss < summary.constant_loss - 0.02,
        "{summary:?}"
    );
    let card = std::fs::read_to_string(resumed.out.join("MODEL.md")).unwrap();
    assert!(
        card.contains(&format!("from {}", shapes.display())),
        "{card}"
    );
    // A net of another rule does not start a run on these games.
    let mut renju = PatternNet::load(&shapes).unwrap();
    renju.rule = engine::games::gomoku::Rule::Renju;
    let renju_path = dir.join("renju.safetensors");
    renju.save(&renju_path).unwrap();
    let err = train_pattern(
        &PatternConfig {
            out: dir.join("from-renju"),
            init: Some(renju_path),
            ..plain.clone()
        },
        false,
        "test",
    )
    .unwrap_err();
    assert!(
        err.contains("the net was trained for renju 9x9, this game is freestyle 9x9"),
        "{err}"
    );
    assert!(!dir.join("from-renju").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The manifest of a one-file dataset written by a test.
fn write_manifest(dir: &Path, spec: engine::games::GameSpec, games: u64, positions: u64) {
    use engine::record::{FileEntry, Manifest};
    Manifest {
        format: Manifest::FORMAT.into(),
        format_version: engine::record::FORMAT_VERSION,
        game: spec,
        generator: "train test".into(),
        config: serde_json::json!({}),
        seeds: "index".into(),
        shard: None,
        games_planned: games,
        games,
        positions,
        complete: true,
        files: vec![FileEntry {
            name: "games.rec".into(),
            games,
            positions,
        }],
        sources: Vec::new(),
    }
    .write(dir)
    .unwrap();
}

/// `train pattern` on a dataset whose last record is torn (a run killed while writing) leaves
/// that game out and says so, naming the file; a record damaged inside the file is corruption:
/// a one-line error naming the file, and nothing is written.
#[test]
fn a_torn_last_record_is_left_out_and_a_damaged_one_refused() {
    let dir = temp_dir("pattern-torn");
    let data = dir.join("data");
    gomoku_dataset(&data, 80, 3);
    let rec = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "rec"))
        .expect("a record file");
    let bytes = std::fs::read(&rec).unwrap();
    let train = |out: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_train"))
            .args(["pattern", "--data"])
            .arg(&data)
            .arg("--out")
            .arg(dir.join(out))
            .args([
                "--epochs",
                "1",
                "--features",
                "4",
                "--hidden",
                "4",
                "--quiet",
            ])
            .output()
            .unwrap()
    };
    std::fs::write(&rec, &bytes[..bytes.len() - 7]).unwrap();
    let torn = train("torn");
    let stderr = String::from_utf8_lossy(&torn.stderr);
    assert!(torn.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning") && stderr.contains(&rec.display().to_string()),
        "{stderr}"
    );
    assert!(dir.join("torn").join(MODEL_FILE).exists());
    // A byte changed in the middle of the file: a checksum that fails before the end.
    let mut damaged = bytes.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x55;
    std::fs::write(&rec, &damaged).unwrap();
    let broken = train("broken");
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(!broken.status.success());
    assert!(
        stderr.contains(&rec.display().to_string()) && stderr.trim().lines().count() == 1,
        "{stderr}"
    );
    assert!(!dir.join("broken").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
