//! The model card: a markdown page beside each model saying what it was trained on, how, and
//! how well it does.

use std::path::Path;

use crate::config::{TrainConfig, ValueTargets};
use crate::data::{DataIndex, Encoder};
use crate::metrics::EpochMetrics;

/// What the card says of the run itself: the command line, the device, and the rows trained on
/// and validated on (the positions, or with search targets one row per root move kept), known
/// when the data was encoded into memory and not when it was streamed.
pub struct CardRun<'a> {
    pub command: &'a str,
    pub device: &'a str,
    pub rows: Option<[u64; 2]>,
}

pub fn write_card(
    path: &Path,
    config: &TrainConfig,
    index: &DataIndex,
    history: &[EpochMetrics],
    best_epoch: usize,
    run: &CardRun,
) -> Result<(), String> {
    let CardRun {
        command,
        device,
        rows,
    } = *run;
    let inputs = Encoder::with_encoding(index.spec, config.encoding).map_or(0, |e| e.feature_len());
    let best = history.iter().find(|m| m.epoch == best_epoch);
    let games = index.train.len() + index.valid.len();
    let positions = DataIndex::positions(&index.train) + DataIndex::positions(&index.valid);
    let mut s = String::new();
    s += &format!("# Value net for {}\n\n", index.spec);
    s +=
        "The Dots-and-Boxes paper's value net (Cotarelo et al. 2021, section 5.2): the position's \
          Table 2 encoding in, one hidden layer of sigmoid units, three sigmoid outputs: P1 wins, \
          P2 wins, draw. The engine stops a rollout once the largest output reaches the \
          threshold.\n\n";
    s += "| | |\n|---|---|\n";
    s += "| file | `model.safetensors` (f32, PyTorch `nn.Linear` layout) |\n";
    s += &format!(
        "| layers | {}-{}-3, sigmoid hidden and output |\n",
        inputs, config.hidden
    );
    s += &format!(
        "| data | `{}`: {games} games, {positions} positions; {} games ({} positions) train, {} games ({} positions) validation, split by game |\n",
        index.dirs_text(),
        index.train.len(),
        DataIndex::positions(&index.train),
        index.valid.len(),
        DataIndex::positions(&index.valid)
    );
    s += &format!("| data settings | `{}` |\n", index.manifest_config_text());
    if config.value_targets == ValueTargets::Search {
        let counts = match rows {
            Some([train_rows, valid_rows]) => {
                format!("{train_rows} rows train, {valid_rows} validation")
            }
            None => "streamed, the rows not counted".to_string(),
        };
        s += &format!(
            "| targets | the recorded searches' values: each root move of at least {} visits gives the position after it, labelled with the search's mean result through it; {counts} |\n",
            config.min_visits
        );
    }
    if config.symmetries {
        let images = Encoder::with_encoding(index.spec, config.encoding)
            .and_then(|e| e.with_symmetries(true))
            .map_or(1, |e| e.copies());
        s += &format!(
            "| symmetries | each training game learnt in its board's {images} mirror and rotated images (validation as played) |\n"
        );
    }
    s += &format!(
        "| training | loss {:?}, {:?} lr {}, batch {}, seed {}, patience {}, on {device} |\n",
        config.loss,
        config.optimiser,
        config.learning_rate,
        config.batch_size,
        config.seed,
        config.patience
    );
    s += &format!("| command | `{command}` |\n");
    if let Some(b) = best {
        s += &format!(
            "| best epoch | {} of {} run: validation loss {:.5}, accuracy {:.2}%, sure (max output >= {}) on {:.2}% of positions, right on {:.2}% of those |\n",
            b.epoch,
            history.len(),
            b.valid_loss,
            100.0 * b.valid_accuracy,
            config.threshold,
            100.0 * b.valid_sure_share,
            100.0 * b.valid_sure_accuracy
        );
    }
    s += "\n## Epochs\n\n```\n";
    s += EpochMetrics::HEADER;
    s += "\n";
    for m in history {
        s += &m.row();
        s += "\n";
    }
    s += "```\n\nCurves: `curves.svg`; every figure: `metrics.csv`.\n";
    std::fs::write(path, s).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
