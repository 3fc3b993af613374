//! What each epoch measured: losses, accuracy and the paper's quantity (how often the net is
//! sure, its largest output at least the threshold, and how often it is then right); the table
//! on screen, `metrics.csv` and the curves.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// Running sums over the batches of one pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub positions: u64,
    loss_sum: f64,
    correct: u64,
    sure: u64,
    sure_correct: u64,
}

impl Tally {
    /// Adds a batch: its mean loss, the outputs (3 a row) and the labels.
    pub fn add(&mut self, mean_loss: f64, outputs: &[f32], labels: &[u8], threshold: f64) {
        let n = labels.len();
        self.positions += n as u64;
        self.loss_sum += mean_loss * n as f64;
        for (row, &label) in outputs.chunks_exact(3).zip(labels) {
            let (best, value) =
                row.iter().enumerate().fold(
                    (0, f32::MIN),
                    |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc },
                );
            let right = best == crate::data::hard_class(label) as usize;
            self.correct += right as u64;
            if value as f64 >= threshold {
                self.sure += 1;
                self.sure_correct += right as u64;
            }
        }
    }

    pub fn loss(&self) -> f64 {
        self.loss_sum / self.positions.max(1) as f64
    }
    pub fn accuracy(&self) -> f64 {
        self.correct as f64 / self.positions.max(1) as f64
    }
    /// Share of positions where the largest output reaches the threshold.
    pub fn sure_share(&self) -> f64 {
        self.sure as f64 / self.positions.max(1) as f64
    }
    /// How often a sure prediction names the real outcome.
    pub fn sure_accuracy(&self) -> f64 {
        self.sure_correct as f64 / self.sure.max(1) as f64
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochMetrics {
    pub epoch: usize,
    pub train_loss: f64,
    pub train_accuracy: f64,
    pub valid_loss: f64,
    pub valid_accuracy: f64,
    pub valid_sure_share: f64,
    pub valid_sure_accuracy: f64,
    pub seconds: f64,
    pub positions_per_second: f64,
}

impl EpochMetrics {
    pub fn from_tallies(epoch: usize, train: &Tally, valid: &Tally, seconds: f64) -> EpochMetrics {
        EpochMetrics {
            epoch,
            train_loss: train.loss(),
            train_accuracy: train.accuracy(),
            valid_loss: valid.loss(),
            valid_accuracy: valid.accuracy(),
            valid_sure_share: valid.sure_share(),
            valid_sure_accuracy: valid.sure_accuracy(),
            seconds,
            positions_per_second: train.positions as f64 / seconds.max(1e-9),
        }
    }

    pub const HEADER: &'static str =
        "epoch  train loss  train acc  valid loss  valid acc  sure (>=thr)  sure right   seconds  positions/s";

    pub fn row(&self) -> String {
        format!(
            "{:>5}  {:>10.5}  {:>8.2}%  {:>10.5}  {:>8.2}%  {:>11.2}%  {:>9.2}%  {:>8.1}  {:>11.0}",
            self.epoch,
            self.train_loss,
            100.0 * self.train_accuracy,
            self.valid_loss,
            100.0 * self.valid_accuracy,
            100.0 * self.valid_sure_share,
            100.0 * self.valid_sure_accuracy,
            self.seconds,
            self.positions_per_second
        )
    }
}

/// Writes `metrics.csv`, one row an epoch.
pub fn write_csv(path: &Path, rows: &[EpochMetrics]) -> Result<(), String> {
    let mut text = String::from(
        "epoch,train_loss,train_accuracy,valid_loss,valid_accuracy,valid_sure_share,valid_sure_accuracy,seconds,positions_per_second\n",
    );
    for m in rows {
        text += &format!(
            "{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.3},{:.1}\n",
            m.epoch,
            m.train_loss,
            m.train_accuracy,
            m.valid_loss,
            m.valid_accuracy,
            m.valid_sure_share,
            m.valid_sure_accuracy,
            m.seconds,
            m.positions_per_second
        );
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// One curve: its legend, colour and value per epoch.
type Series = (String, plotters::style::RGBColor, fn(&EpochMetrics) -> f64);

/// Draws the loss curves and the accuracy curves side by side as an SVG picture.
pub fn plot(path: &Path, rows: &[EpochMetrics], threshold: f64) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());
    let root = SVGBackend::new(path, (1100, 450)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(550);
    let top = rows
        .iter()
        .flat_map(|m| [m.train_loss, m.valid_loss])
        .fold(0.0f64, f64::max)
        .max(1e-6)
        * 1.05;
    let losses: Vec<Series> = vec![
        ("train".into(), BLUE, |m| m.train_loss),
        ("validation".into(), RED, |m| m.valid_loss),
    ];
    panel(&left, "loss", top, rows, losses).map_err(|e| err(&e))?;
    let accuracies: Vec<Series> = vec![
        ("train accuracy".into(), BLUE, |m| m.train_accuracy),
        ("validation accuracy".into(), RED, |m| m.valid_accuracy),
        (
            format!("validation: share with max output >= {threshold}"),
            GREEN,
            |m| m.valid_sure_share,
        ),
        ("validation: sure and right".into(), MAGENTA, |m| {
            m.valid_sure_accuracy
        }),
    ];
    panel(
        &right,
        "accuracy and sure predictions",
        1.0,
        rows,
        accuracies,
    )
    .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// One chart of curves over the epochs, y from 0 to `top`.
fn panel<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    caption: &str,
    top: f64,
    rows: &[EpochMetrics],
    series: Vec<Series>,
) -> Result<(), plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    let last = rows.last().map_or(1, |m| m.epoch).max(2);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(1usize..last, 0.0..top)?;
    chart.configure_mesh().x_desc("epoch").draw()?;
    for (name, color, value) in series {
        chart
            .draw_series(LineSeries::new(
                rows.iter().map(|m| (m.epoch, value(m))),
                &color,
            ))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE)
        .border_style(BLACK)
        .draw()
}
