//! `report.md` of a pipeline run (and of each generation): what was run, on what machine, how
//! long each stage took, the trained net's figures, and each match's table with its interval and
//! Elo, with the plots beside it as SVG (the training curves `train` draws, and the matches'
//! scores). It is written again after every stage, so a run stopped midway keeps the report of
//! what it finished.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use engine::arena::{report_table, MatchReport};
use train::trainer::{TrainSummary, CARD_FILE, PLOT_FILE};

/// The file a report is written to, in its run's folder.
pub const REPORT_FILE: &str = "report.md";
/// The plot of the matches' scores, beside the report.
pub const SCORES_PLOT: &str = "scores.svg";

/// One match of the report.
struct MatchEntry {
    title: String,
    from: String,
    table: String,
    report: MatchReport,
}

/// The net a stage trained: its summary and where its folder is, relative to the report.
struct Training {
    summary: TrainSummary,
    folder: String,
}

/// A report being built as the run goes.
pub struct Report {
    dir: PathBuf,
    title: String,
    command: String,
    settings: Vec<(String, String)>,
    stages: Vec<(String, f64)>,
    training: Option<Training>,
    matches: Vec<MatchEntry>,
    notes: Vec<String>,
}

/// The machine in words: its CPU model (from /proc/cpuinfo where there is one) and cores.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    format!(
        "{model}, {}",
        engine::cli::count(engine::cli::cores() as u64, "core")
    )
}

impl Report {
    /// A report written to `dir/report.md`, headed `title`, with the settings of the run.
    pub fn new(dir: &Path, title: &str, settings: Vec<(String, String)>) -> Report {
        Report {
            dir: dir.to_path_buf(),
            title: title.to_string(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
            settings,
            stages: Vec::new(),
            training: None,
            matches: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A finished stage and its wall-clock seconds.
    pub fn stage(&mut self, name: &str, seconds: f64) {
        self.stages.push((name.to_string(), seconds));
    }

    /// The net trained in `folder` (relative to the report's folder).
    pub fn training(&mut self, summary: &TrainSummary, folder: &str) {
        self.training = Some(Training {
            summary: summary.clone(),
            folder: folder.to_string(),
        });
    }

    /// A match, `title` saying who played, `from` where its games started.
    pub fn add_match(&mut self, title: &str, from: &str, report: &MatchReport) {
        self.matches.push(MatchEntry {
            title: title.to_string(),
            from: from.to_string(),
            table: report_table(report, report.seconds),
            report: report.clone(),
        });
    }

    /// A line of its own at the end (a generation's report, say).
    pub fn note(&mut self, line: String) {
        self.notes.push(line);
    }

    /// The report as markdown.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# {}\n", self.title);
        let _ = writeln!(md, "```\n$ {}\n```\n", self.command);
        let _ = writeln!(md, "Machine: {}.\n", machine());
        if !self.settings.is_empty() {
            let _ = writeln!(md, "| setting | value |\n|---|---|");
            for (k, v) in &self.settings {
                let _ = writeln!(md, "| {k} | {v} |");
            }
            md.push('\n');
        }
        if !self.stages.is_empty() {
            let _ = writeln!(md, "## Stages\n\n| stage | seconds |\n|---|---|");
            for (name, seconds) in &self.stages {
                let _ = writeln!(md, "| {name} | {seconds:.0} |");
            }
            let total: f64 = self.stages.iter().map(|(_, s)| s).sum();
            let _ = writeln!(md, "| all | {total:.0} |\n");
        }
        if let Some(t) = &self.training {
            let s = &t.summary;
            let _ = writeln!(md, "## The net\n");
            let _ = writeln!(md, "{}\n", s.final_line());
            let _ = writeln!(
                md,
                "Trained on {} positions of {} games, validated on {} positions of {} games; \
                 {} epochs run, the best {}{}. Its card: [{folder}/{CARD_FILE}]({folder}/{CARD_FILE}).\n",
                s.train_positions,
                s.train_games,
                s.valid_positions,
                s.valid_games,
                s.epochs_run,
                s.best_epoch,
                if s.stopped_early { " (stopped early)" } else { "" },
                folder = t.folder,
            );
            let _ = writeln!(md, "![training curves]({}/{PLOT_FILE})\n", t.folder);
        }
        if !self.matches.is_empty() {
            let _ = writeln!(md, "## Matches\n");
            let _ = writeln!(
                md,
                "| match | A | B | W-D-L of A | score of A (95% interval) | Elo of A |\n|---|---|---|---|---|---|"
            );
            for (i, m) in self.matches.iter().enumerate() {
                let p = &m.report.pair;
                let _ = writeln!(
                    md,
                    "| {} | `{}` | `{}` | {}-{}-{} | {:.3} ({:.3} to {:.3}) | {:+.0} ± {:.0} |",
                    i + 1,
                    m.report.players[0].spec,
                    m.report.players[1].spec,
                    p.wins,
                    p.draws,
                    p.losses,
                    p.score,
                    p.score_low,
                    p.score_high,
                    p.elo,
                    p.elo_error
                );
            }
            let _ = writeln!(md, "\n![match scores]({SCORES_PLOT})\n");
            for (i, m) in self.matches.iter().enumerate() {
                let _ = writeln!(md, "### Match {}: {}\n\nFrom {}.\n", i + 1, m.title, m.from);
                let _ = writeln!(md, "```\n{}```\n", m.table);
            }
        }
        for line in &self.notes {
            let _ = writeln!(md, "{line}\n");
        }
        md
    }

    /// Writes `report.md` and the scores' plot (when there are matches) into the run's folder.
    pub fn write(&self) -> Result<(), String> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        if !self.matches.is_empty() {
            let scores: Vec<(f64, f64, f64)> = self
                .matches
                .iter()
                .map(|m| {
                    (
                        m.report.pair.score,
                        m.report.pair.score_low,
                        m.report.pair.score_high,
                    )
                })
                .collect();
            plot_scores(&self.dir.join(SCORES_PLOT), &scores)?;
        }
        let path = self.dir.join(REPORT_FILE);
        engine::tuning::write_atomically(&path, self.markdown().as_bytes())
    }
}

/// Each match's score of A (a dot) with its 95% interval (a bar), against the even line.
fn plot_scores(path: &Path, scores: &[(f64, f64, f64)]) -> Result<(), String> {
    use plotters::prelude::*;
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(path, (640, 360)).into_drawing_area();
        root.fill(&WHITE)?;
        let n = scores.len() as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "score of A in each match, with its 95% interval",
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(0.5..n + 0.5, 0.0..1.0)?;
        chart
            .configure_mesh()
            .x_desc("match")
            .y_desc("score")
            .x_labels(scores.len().max(2))
            .x_label_formatter(&|x| {
                if (x.fract()).abs() < 1e-9 {
                    format!("{x:.0}")
                } else {
                    String::new()
                }
            })
            .draw()?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(0.5, 0.5), (n + 0.5, 0.5)],
            BLACK.mix(0.4),
        )))?;
        for (i, &(score, low, high)) in scores.iter().enumerate() {
            let x = i as f64 + 1.0;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, low), (x, high)],
                BLUE.stroke_width(3),
            )))?;
            chart.draw_series(std::iter::once(Circle::new((x, score), 5, BLUE.filled())))?;
        }
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| format!("plot {}: {e}", path.display()))
}
