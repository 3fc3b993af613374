//! `train run`: the training loop, checkpoints and resume, early stopping, export of the best
//! net to the engine's format with its card.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::module::Module;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::store::ModuleRecord;
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor};
use engine::nn::ModelMeta;
use engine::rng::{derive_seed, Rng};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::card::{write_card, CardRun};
use crate::config::{Backend, CpuBackend, Loss, Optimiser, TrainConfig, ValueTargets};
use crate::data::{DataIndex, Encoder, Source};
use crate::metrics::{plot, write_csv, EpochMetrics, Tally};
use crate::model::{input_tensor, target_tensor, Net};

/// The model file written into the output folder.
pub const MODEL_FILE: &str = "model.safetensors";
pub const CARD_FILE: &str = "MODEL.md";
pub const METRICS_FILE: &str = "metrics.csv";
pub const PLOT_FILE: &str = "curves.svg";
pub const CHECKPOINTS: &str = "checkpoints";

#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub config: TrainConfig,
    pub resume: bool,
    /// Train into an output folder that already holds a model, replacing it.
    pub force: bool,
    /// Show progress bars and the epoch table.
    pub verbose: bool,
    /// The command that started the run, for the model card.
    pub command: String,
}

/// What a run produced.
#[derive(Clone, Debug, Serialize)]
pub struct TrainSummary {
    pub out: PathBuf,
    pub model: PathBuf,
    pub best_epoch: usize,
    pub best: Option<EpochMetrics>,
    pub epochs_run: usize,
    pub stopped_early: bool,
    pub train_positions: u64,
    pub valid_positions: u64,
    pub train_games: usize,
    pub valid_games: usize,
    pub device: String,
    pub history: Vec<EpochMetrics>,
    /// The output a position needs for the net to be "sure" of it (the config's threshold).
    pub threshold: f64,
}

impl TrainSummary {
    /// The run's result in one line, each figure with what it is measured on: what `train run`
    /// and the pipeline print last.
    pub fn final_line(&self) -> String {
        match &self.best {
            None => format!(
                "no epoch run (already at {} epochs); model {}",
                self.epochs_run,
                self.model.display()
            ),
            Some(b) if self.valid_positions == 0 => format!(
                "epoch {} of {}: train loss {:.4}, accuracy {:.1}% on the training positions (no validation set: too few games to hold some out); model {} ({:.0} positions/s on {})",
                b.epoch,
                self.epochs_run,
                b.train_loss,
                100.0 * b.train_accuracy,
                self.model.display(),
                b.positions_per_second,
                self.device
            ),
            Some(b) => format!(
                "best epoch {} of {}{}: on {} positions of {} held-out games, validation loss {:.4}, accuracy {:.1}%; the net is sure (an output >= {}) of {:.1}% of them and right on {:.1}% of those; model {} ({:.0} positions/s on {})",
                b.epoch,
                self.epochs_run,
                if self.stopped_early { " (early stop)" } else { "" },
                self.valid_positions,
                self.valid_games,
                b.valid_loss,
                100.0 * b.valid_accuracy,
                self.threshold,
                100.0 * b.valid_sure_share,
                100.0 * b.valid_sure_accuracy,
                self.model.display(),
                b.positions_per_second,
                self.device
            ),
        }
    }
}

/// Everything a checkpoint needs besides the model and optimiser records.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CheckpointState {
    epoch: usize,
    best_epoch: usize,
    best_loss: f64,
    bad_epochs: usize,
    history: Vec<EpochMetrics>,
    identity: serde_json::Value,
}

/// The settings a resumed run must share with the run it resumes.
fn identity(config: &TrainConfig) -> serde_json::Value {
    let mut identity = serde_json::json!({
        "data": config.data,
        "hidden": config.hidden,
        "loss": config.loss,
        "optimiser": config.optimiser,
        "learning_rate": config.learning_rate,
        "momentum": config.momentum,
        "batch_size": config.batch_size,
        "validation_share": config.validation_share,
        "seed": config.seed,
    });
    // Only when given, so that checkpoints made before `extra_data` existed still resume.
    if !config.extra_data.is_empty() {
        identity["extra_data"] = serde_json::json!(config.extra_data);
    }
    if config.symmetries {
        identity["symmetries"] = serde_json::json!(true);
    }
    identity
}

/// The burn device a config asks for, with autodiff.
pub fn device_for(config: &TrainConfig) -> Result<Device, String> {
    Ok(device_of(config.backend, config.cpu_backend)?.autodiff())
}

/// The burn device of a backend, without autodiff (a GPU that is not there is an error).
pub fn device_of(backend: Backend, cpu_backend: CpuBackend) -> Result<Device, String> {
    Ok(match backend {
        Backend::Cpu => match cpu_backend {
            CpuBackend::Flex => Device::flex(),
            #[allow(deprecated)] // burn 0.22 deprecates ndarray; kept for comparison
            CpuBackend::Ndarray => Device::ndarray(),
        },
        Backend::Gpu => gpu_device()?,
    })
}

#[cfg(feature = "gpu")]
fn gpu_device() -> Result<Device, String> {
    let device = Device::wgpu(burn::tensor::DeviceKind::DefaultDevice);
    // burn-wgpu looks for its adapter on the first operation and, where there is none, panics
    // in its device thread and then here. One small tensor probes it, those panics kept quiet,
    // so that a machine without a usable GPU gets a line saying what is missing.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let probe = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let one = Tensor::<1>::from_data(burn::tensor::TensorData::new(vec![1.0f32], [1]), &device);
        let read: Result<Vec<f32>, _> = one.into_data().try_to_vec();
        read.is_ok()
    }));
    std::panic::set_hook(report);
    match probe {
        Ok(true) => Ok(device),
        _ => Err(
            "--backend gpu: wgpu found no GPU adapter (Vulkan, Metal or DX12). On Linux it \
                  needs the GPU's Vulkan driver, the Vulkan loader (Debian: libvulkan1) and, \
                  for NVIDIA's driver, glvnd (libglvnd0); or train with --backend cpu"
                .into(),
        ),
    }
}

#[cfg(not(feature = "gpu"))]
fn gpu_device() -> Result<Device, String> {
    Err(
        "this train binary was built without GPU support; rebuild it with \
         `cargo build --release -p train --features gpu` (burn-wgpu: Vulkan, Metal or DX12)"
            .into(),
    )
}

/// The loss of a batch, from the output layer before its sigmoid.
pub fn loss(kind: Loss, logits: Tensor<2>, targets: Tensor<2>) -> Tensor<1> {
    match kind {
        // Binary cross-entropy per output, computed from logits so that it stays finite:
        // max(z, 0) - z*y + ln(1 + e^-|z|).
        Loss::Bce => {
            let positive = logits.clone().clamp_min(0.0);
            let soft = logits.clone().abs().neg().exp().log1p();
            (positive - logits * targets + soft).mean()
        }
        Loss::Mse => {
            let d = sigmoid(logits) - targets;
            (d.clone() * d).mean()
        }
    }
}

fn optimiser(config: &TrainConfig) -> ModuleOptimizer {
    match config.optimiser {
        Optimiser::Adam => AdamConfig::new().init(),
        Optimiser::Sgd => SgdConfig::new()
            .with_momentum(Some(
                MomentumConfig::new()
                    .with_momentum(config.momentum)
                    .with_dampening(0.0),
            ))
            .init(),
    }
}

fn latest_checkpoint(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("state.json").is_file())
        .collect();
    found.sort();
    found.pop()
}

fn progress_bar(multi: &MultiProgress, len: u64, template: &str) -> ProgressBar {
    let bar = multi.add(ProgressBar::new(len));
    bar.set_style(
        ProgressStyle::with_template(template)
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}

pub fn train(options: &TrainOptions) -> Result<TrainSummary, String> {
    let config = &options.config;
    config.validate()?;
    let index = DataIndex::build(&config.datasets(), config.validation_share, config.seed)?;
    let mut encoder = Encoder::with_encoding(index.spec, config.encoding)?;
    if config.value_targets == ValueTargets::Search {
        encoder = encoder.with_search_targets(config.min_visits)?;
    }
    // Training rows may come in every image of their board; validation's as played.
    let train_encoder = encoder
        .with_symmetries(config.symmetries)
        .map_err(|e| format!("{}: {e}, not {}", index.dirs_text(), index.spec))?;
    let copies = train_encoder.copies() as u64;
    let width = encoder.feature_len();
    let say = |text: String| {
        if options.verbose {
            eprintln!("train: {text}");
        }
    };
    for w in &index.warnings {
        say(format!("warning: {w}"));
    }
    let (mut train_positions, mut valid_positions) = (
        DataIndex::positions(&index.train) * copies,
        DataIndex::positions(&index.valid),
    );
    say(format!(
        "{}: {} games ({} positions{}) for training, {} games ({} positions) for validation, {} inputs",
        index.dirs_text(),
        index.train.len(),
        train_positions,
        if copies > 1 {
            format!(", each game in its board's {copies} symmetric images")
        } else {
            String::new()
        },
        index.valid.len(),
        valid_positions,
        width
    ));
    let in_memory = train_positions + valid_positions <= config.memory_positions as u64;
    let load_start = Instant::now();
    let (train_source, valid_source) = if in_memory {
        (
            Source::load(&index.train, &index.files, &train_encoder)?,
            Source::load(&index.valid, &index.files, &encoder)?,
        )
    } else {
        (
            Source::streamed(&index.train, &index.files, config.memory_positions),
            Source::streamed(&index.valid, &index.files, config.memory_positions),
        )
    };
    say(format!(
        "{} ({:.1}s)",
        if in_memory {
            "positions encoded into memory once".to_string()
        } else {
            format!(
                "streaming: more than memory_positions = {}, shuffled through a buffer of that size",
                config.memory_positions
            )
        },
        load_start.elapsed().as_secs_f64()
    ));
    if config.value_targets == ValueTargets::Search {
        // A row per root move with enough visits, not per position of the games.
        if in_memory {
            (train_positions, valid_positions) = (train_source.len(), valid_source.len());
        }
        say(if in_memory {
            format!(
                "search targets (root moves of at least {} visits): {train_positions} rows for training, {valid_positions} for validation",
                config.min_visits
            )
        } else {
            // Streamed, the rows are not counted ahead: a position gives one per root move kept.
            format!(
                "search targets (root moves of at least {} visits), streamed: the rows are not counted ahead",
                config.min_visits
            )
        });
        if in_memory && train_positions == 0 {
            return Err(format!(
                "value_targets = search: no recorded search of {} has a root move of {} visits or more (record games with root statistics: engine match --records)",
                index.dirs_text(),
                config.min_visits
            ));
        }
    }

    // The device first: a GPU that is not there is refused before the folder is made.
    let device = device_for(config)?;
    let out = &output_folder(&config.out)?;
    engine::cli::create_out_dir("--out", out)?;
    guard_model(out, options)?;
    say(format!("writing to {}", out.display()));
    let checkpoints = out.join(CHECKPOINTS);
    std::fs::create_dir_all(&checkpoints)
        .map_err(|e| format!("cannot create {}: {e}", checkpoints.display()))?;
    let plain_device = device.clone().without_autodiff();
    let mut net = Net::new(width, config.hidden, config.seed, &device);
    let mut optim = optimiser(config);
    let mut state = CheckpointState {
        epoch: 0,
        best_epoch: 0,
        best_loss: f64::INFINITY,
        bad_epochs: 0,
        history: Vec::new(),
        identity: identity(config),
    };
    match latest_checkpoint(&checkpoints) {
        Some(dir) if options.resume => {
            let text = std::fs::read_to_string(dir.join("state.json"))
                .map_err(|e| format!("cannot read {}: {e}", dir.join("state.json").display()))?;
            let saved: CheckpointState = serde_json::from_str(&text)
                .map_err(|e| format!("{}: {e}", dir.join("state.json").display()))?;
            if saved.identity != state.identity {
                return Err(format!(
                    "{} was trained with other settings ({}); this run has {}",
                    dir.display(),
                    saved.identity,
                    state.identity
                ));
            }
            let record = ModuleRecord::load(dir.join("model.bpk"))
                .map_err(|e| format!("{}: {e}", dir.join("model.bpk").display()))?;
            net = net.load_record(record);
            optim = optim
                .load(dir.join("optimiser.bpk"))
                .map_err(|e| format!("{}: {e}", dir.join("optimiser.bpk").display()))?;
            say(format!("resuming after epoch {} from {}", saved.epoch, dir.display()));
            state = saved;
        }
        Some(dir) => {
            return Err(format!(
                "{} holds a checkpoint of an earlier run ({}); pass --resume to continue it, or choose another --out",
                out.display(),
                dir.display()
            ))
        }
        None => {}
    }

    let meta_base = ModelMeta {
        game: index.spec,
        encoding: encoder.encoding_name().to_string(),
        inputs: width,
        hidden: config.hidden,
        extra: Default::default(),
    };
    let device_name = format!("{:?}", config.backend).to_lowercase()
        + &match config.backend {
            Backend::Cpu => format!(" ({:?})", config.cpu_backend).to_lowercase(),
            Backend::Gpu => " (wgpu)".into(),
        };
    let multi = MultiProgress::new();
    let show_bars = options.verbose && std::io::stderr().is_terminal();
    if !show_bars {
        multi.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    // The epoch table goes above the bars on a terminal, to stderr otherwise.
    let emit = |line: &str| {
        if show_bars {
            let _ = multi.println(line);
        } else if options.verbose {
            eprintln!("{line}");
        }
    };
    let epochs_bar = progress_bar(
        &multi,
        config.epochs as u64,
        "epochs    [{bar:30}] {pos}/{len} {msg}",
    );
    epochs_bar.set_position(state.epoch as u64);
    emit(EpochMetrics::HEADER);
    for m in &state.history {
        emit(&m.row());
    }
    let mut stopped_early = false;
    let mut net = Some(net);
    for epoch in state.epoch + 1..=config.epochs {
        let start = Instant::now();
        let batches = progress_bar(
            &multi,
            train_positions,
            "positions [{bar:30}] {pos}/{len} {per_sec} ETA {eta}",
        );
        let mut rng = Rng::new(derive_seed(config.seed, epoch as u64));
        let mut train_tally = Tally::default();
        let lr = config.learning_rate;
        train_source.for_each_batch(
            &train_encoder,
            config.batch_size,
            Some(&mut rng),
            |batch| {
                let model = net.take().expect("the net is there between batches");
                let x = input_tensor(batch.features, width, &device);
                let y = target_tensor(batch.labels, &device);
                let logits = model.logits(x);
                let batch_loss = loss(config.loss, logits.clone(), y);
                let loss_value: f32 = batch_loss.clone().into_scalar();
                let outputs: Vec<f32> = sigmoid(logits)
                    .into_data()
                    .try_to_vec()
                    .map_err(|e| format!("{e:?}"))?;
                let grads = GradientsParams::from_grads(batch_loss.backward(), &model);
                net = Some(optim.step(lr, model, grads));
                train_tally.add(loss_value as f64, &outputs, batch.labels, config.threshold);
                batches.inc(batch.labels.len() as u64);
                Ok(())
            },
        )?;
        batches.finish_and_clear();
        let model = net.as_ref().expect("the net is there");
        let valid_model = model.valid();
        let mut valid_tally = Tally::default();
        valid_source.for_each_batch(&encoder, config.batch_size.max(1024), None, |batch| {
            let x = input_tensor(batch.features, width, &plain_device);
            let y = target_tensor(batch.labels, &plain_device);
            let logits = valid_model.logits(x);
            let loss_value: f32 = loss(config.loss, logits.clone(), y).into_scalar();
            let outputs: Vec<f32> = sigmoid(logits)
                .into_data()
                .try_to_vec()
                .map_err(|e| format!("{e:?}"))?;
            valid_tally.add(loss_value as f64, &outputs, batch.labels, config.threshold);
            Ok(())
        })?;
        let metrics = EpochMetrics::from_tallies(
            epoch,
            &train_tally,
            &valid_tally,
            start.elapsed().as_secs_f64(),
        );
        emit(&metrics.row());
        // Early stopping watches the validation loss (the training loss without validation).
        let watched = if valid_tally.positions > 0 {
            metrics.valid_loss
        } else {
            metrics.train_loss
        };
        state.epoch = epoch;
        state.history.push(metrics.clone());
        if watched < state.best_loss {
            state.best_loss = watched;
            state.best_epoch = epoch;
            state.bad_epochs = 0;
            let mut meta = meta_base.clone();
            meta.extra = model_metadata(config, &index, &metrics, &options.command, &device_name);
            model
                .to_value_net(meta)
                .save(&out.join(MODEL_FILE))
                .map_err(|e| e.to_string())?;
        } else {
            state.bad_epochs += 1;
        }
        write_csv(&out.join(METRICS_FILE), &state.history)?;
        plot(&out.join(PLOT_FILE), &state.history, config.threshold)?;
        save_checkpoint(&checkpoints, model, &optim, &state)?;
        write_card(
            &out.join(CARD_FILE),
            config,
            &index,
            &state.history,
            state.best_epoch,
            &CardRun {
                command: &options.command,
                device: &device_name,
                rows: in_memory.then_some([train_positions, valid_positions]),
            },
        )?;
        epochs_bar.set_position(epoch as u64);
        epochs_bar.set_message(format!(
            "best validation loss {:.5} at epoch {}",
            state.best_loss, state.best_epoch
        ));
        if config.patience > 0 && state.bad_epochs >= config.patience {
            stopped_early = true;
            emit(&format!(
                "early stop: no better validation loss for {} epochs",
                config.patience
            ));
            break;
        }
    }
    epochs_bar.finish_and_clear();
    let best = state
        .history
        .iter()
        .find(|m| m.epoch == state.best_epoch)
        .cloned();
    Ok(TrainSummary {
        out: out.clone(),
        model: out.join(MODEL_FILE),
        best_epoch: state.best_epoch,
        best,
        epochs_run: state.epoch,
        stopped_early,
        train_positions,
        valid_positions,
        train_games: index.train.len(),
        valid_games: index.valid.len(),
        device: device_name,
        history: state.history,
        threshold: config.threshold,
    })
}

fn model_metadata(
    config: &TrainConfig,
    index: &DataIndex,
    best: &EpochMetrics,
    command: &str,
    device: &str,
) -> std::collections::BTreeMap<String, String> {
    let mut m = std::collections::BTreeMap::new();
    m.insert("dataset".into(), index.dirs_text());
    m.insert(
        "dataset_games".into(),
        (index.train.len() + index.valid.len()).to_string(),
    );
    m.insert(
        "dataset_positions".into(),
        (DataIndex::positions(&index.train) + DataIndex::positions(&index.valid)).to_string(),
    );
    m.insert("dataset_config".into(), index.manifest_config_text());
    m.insert(
        "train_config".into(),
        serde_json::to_string(config).expect("a config serialises"),
    );
    m.insert(
        "metrics".into(),
        serde_json::to_string(best).expect("metrics serialise"),
    );
    m.insert("command".into(), command.to_string());
    m.insert("trained_on".into(), device.to_string());
    m.insert(
        "trainer".into(),
        format!("train {} (burn 0.22.1)", env!("CARGO_PKG_VERSION")),
    );
    m
}

/// Writes `checkpoints/epoch-NNNN/` (model, optimiser, state last, so a folder with a state
/// is complete) and keeps the last two.
fn save_checkpoint(
    checkpoints: &Path,
    net: &Net,
    optim: &ModuleOptimizer,
    state: &CheckpointState,
) -> Result<(), String> {
    let dir = checkpoints.join(format!("epoch-{:04}", state.epoch));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    net.clone()
        .into_record()
        .save(dir.join("model.bpk"))
        .map_err(|e| format!("{}: {e}", dir.join("model.bpk").display()))?;
    optim
        .save(dir.join("optimiser.bpk"))
        .map_err(|e| format!("{}: {e}", dir.join("optimiser.bpk").display()))?;
    let text = serde_json::to_string_pretty(state).expect("a state serialises");
    let tmp = dir.join("state.json.tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, dir.join("state.json")))
        .map_err(|e| format!("cannot write {}: {e}", dir.join("state.json").display()))?;
    let mut all: Vec<PathBuf> = std::fs::read_dir(checkpoints)
        .map_err(|e| format!("{}: {e}", checkpoints.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    all.sort();
    if all.len() > 2 {
        for old in &all[..all.len() - 2] {
            let _ = std::fs::remove_dir_all(old);
        }
    }
    Ok(())
}

/// Where a run's outputs go: `out`, or when none is given, a fresh folder under `runs/`
/// (`runs/train-1`, `runs/train-2`, ...: the first that does not exist).
pub fn output_folder(out: &Path) -> Result<PathBuf, String> {
    if !out.as_os_str().is_empty() {
        return Ok(out.to_path_buf());
    }
    (1..)
        .map(|n| PathBuf::from("runs").join(format!("train-{n}")))
        .find(|dir| !dir.exists())
        .ok_or_else(|| "no free folder under runs/".to_string())
}

/// Refuses to train into a folder that holds a model (a shipped net, another run's result)
/// unless told to: `--force` replaces it, `--resume` continues the run that made it.
fn guard_model(out: &Path, options: &TrainOptions) -> Result<(), String> {
    let model = out.join(MODEL_FILE);
    if model.exists() && !options.force && !options.resume {
        return Err(format!(
            "{} already holds a model; pass --force to replace it, --resume to continue the run that made it, or choose another --out",
            model.display()
        ));
    }
    Ok(())
}
