//! What a run leaves besides its checkpoints: `fitness.csv`, `fitness.svg` (best and mean
//! score per island over the generations) and the best weights as a table like the paper's
//! Tables I and II.

use std::path::Path;

use crate::island::GenerationStats;

/// One row a generation and island.
pub fn write_csv(path: &Path, rows: &[GenerationStats]) -> Result<(), String> {
    let mut text =
        String::from("generation,island,best,mean,vs_start,games,seconds,immigrants,missing\n");
    for r in rows {
        let missing: Vec<String> = r.missing.iter().map(|m| m.to_string()).collect();
        text += &format!(
            "{},{},{},{:.4},{},{},{:.2},{},{}\n",
            r.generation,
            r.island,
            r.best,
            r.mean,
            r.vs_start.map_or(String::new(), |v| format!("{v:.4}")),
            r.games,
            r.seconds,
            r.immigrants,
            missing.join(" ")
        );
    }
    engine::tuning::write_atomically(path, text.as_bytes())
}

/// Left: the best (thick) and mean (thin) tournament score of every island over the
/// generations. Right: each island's best against the starting weights (the yardstick).
pub fn plot(
    path: &Path,
    rows: &[GenerationStats],
    islands: usize,
    max_score: f64,
) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(path, (1100, 450)).into_drawing_area();
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(550);
        let last = rows
            .iter()
            .map(|r| r.generation + 1)
            .max()
            .unwrap_or(1)
            .max(2);
        let mut chart = ChartBuilder::on(&left)
            .caption(
                "tournament score: best (thick) and mean (thin) per island",
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(1usize..last, -max_score..max_score)?;
        chart.configure_mesh().x_desc("generation").draw()?;
        for island in 0..islands {
            let color = Palette99::pick(island).to_rgba();
            let mine: Vec<&GenerationStats> = rows.iter().filter(|r| r.island == island).collect();
            chart
                .draw_series(LineSeries::new(
                    mine.iter().map(|r| (r.generation + 1, r.best)),
                    color.stroke_width(3),
                ))?
                .label(format!("island {island}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3))
                });
            chart.draw_series(LineSeries::new(
                mine.iter().map(|r| (r.generation + 1, r.mean)),
                color.stroke_width(1),
            ))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE)
            .border_style(BLACK)
            .draw()?;
        let mut chart = ChartBuilder::on(&right)
            .caption("the best against the starting weights", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(1usize..last, 0.0..1.0)?;
        chart
            .configure_mesh()
            .x_desc("generation")
            .y_desc("score")
            .draw()?;
        for island in 0..islands {
            let color = Palette99::pick(island).to_rgba();
            chart.draw_series(LineSeries::new(
                rows.iter()
                    .filter(|r| r.island == island)
                    .filter_map(|r| r.vs_start.map(|v| (r.generation + 1, v))),
                color.stroke_width(2),
            ))?;
        }
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| err(&e))
}

/// The weights as a markdown table: names `row.column` (Amazons: `opening.t1`) become rows
/// and columns; `start` beside each for comparison.
pub fn weights_table(names: &[String], tuned: &[f32], start: &[f32]) -> String {
    let split = |n: &str| match n.split_once('.') {
        Some((row, col)) => (row.to_string(), col.to_string()),
        None => (String::new(), n.to_string()),
    };
    let mut rows: Vec<String> = Vec::new();
    let mut cols: Vec<String> = Vec::new();
    for n in names {
        let (r, c) = split(n);
        if !rows.contains(&r) {
            rows.push(r);
        }
        if !cols.contains(&c) {
            cols.push(c);
        }
    }
    let mut text = format!(
        "| | {} |\n|---|{}\n",
        cols.join(" | "),
        "---|".repeat(cols.len())
    );
    for r in &rows {
        let mut cells = Vec::new();
        for c in &cols {
            let cell = names
                .iter()
                .position(|n| split(n) == (r.clone(), c.clone()))
                .map_or(String::new(), |i| {
                    format!("{:.2} ({:.2})", tuned[i], start[i])
                });
            cells.push(cell);
        }
        text += &format!("| {r} | {} |\n", cells.join(" | "));
    }
    text + "\nEach cell: the tuned weight (the starting weight in brackets).\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_a_row_a_phase_and_a_column_a_term() {
        let names: Vec<String> = ["opening.t1", "opening.t2", "ending.t1", "ending.t2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let t = weights_table(&names, &[0.1, 0.2, 0.3, 0.4], &[0.0; 4]);
        assert!(t.starts_with("| | t1 | t2 |\n|---|---|---|\n"), "{t}");
        assert!(t.contains("| opening | 0.10 (0.00) | 0.20 (0.00) |"), "{t}");
        assert!(t.contains("| ending | 0.30 (0.00) | 0.40 (0.00) |"), "{t}");
    }

    #[test]
    fn csv_and_plot_are_written() {
        let dir = std::env::temp_dir().join(format!("tune-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rows: Vec<GenerationStats> = (0..6)
            .map(|g| GenerationStats {
                generation: g / 2,
                island: g % 2,
                best: 3.0,
                mean: 0.0,
                best_weights: vec![0.5],
                games: 24,
                vs_start: (g != 1).then_some(0.5),
                seconds: 1.0,
                immigrants: 0,
                missing: if g == 5 { vec![0] } else { vec![] },
            })
            .collect();
        write_csv(&dir.join("f.csv"), &rows).unwrap();
        let csv = std::fs::read_to_string(dir.join("f.csv")).unwrap();
        assert_eq!(csv.lines().count(), 7);
        assert!(csv.lines().last().unwrap().ends_with(",0,0"), "{csv}");
        assert!(csv.lines().nth(1).unwrap().contains(",0.5000,"), "{csv}");
        assert!(
            csv.lines().nth(2).unwrap().contains(",0.0000,,24,"),
            "{csv}"
        );
        plot(&dir.join("f.svg"), &rows, 2, 6.0).unwrap();
        assert!(std::fs::read_to_string(dir.join("f.svg"))
            .unwrap()
            .contains("<svg"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
