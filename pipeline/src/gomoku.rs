//! `pipeline --game gomoku`: generations of Gomoku's pattern net (issue 62), the loop the
//! design names with the product's own stages. Generation k: `pvs` with the net of generation
//! k - 1 (generation 1: `--start-model`, the shipped net by default) plays itself from random
//! openings at a short clock, recording its games with its searches' values; a pattern net is
//! trained on every generation's games so far (and `--data`); then the new net meets the
//! player that made its games and the fitted evaluation (`pvs:model=none`) at equal time. Each
//! generation's folder (`gen-K/`) holds its games (`data/`), its net (`net/`, whose card ends
//! with its matches), the matches' JSON and `report.md`; a generation whose net exists is kept,
//! so a stopped run goes on where it stopped.

use std::path::{Path, PathBuf};
use std::time::Instant;

use engine::arena::positions::{read_positions, StartPosition};
use engine::arena::{report_table, MatchReport};
use engine::games::gomoku::openings::random_openings;
use engine::games::gomoku::{Gomoku, Rule};
use engine::games::RegisteredGame;
use engine::record::Dataset;
use train::pattern::{train_pattern, PatternConfig};

use crate::report::{Report, REPORT_FILE};

/// The balanced openings of 15x15 freestyle: where the matches start by default there.
const BALANCED: &str = "configs/gomoku-balanced-openings.txt";

/// What the Gomoku generations play, train and match.
pub struct GomokuRun {
    pub out: PathBuf,
    pub size: usize,
    pub rule: Rule,
    pub generations: usize,
    /// Self-play games a generation (two from each random opening, seats swapped).
    pub games: usize,
    /// Milliseconds a self-play move.
    pub time_ms: u64,
    /// The model generation 1's games are played with: `product`, `none` or a path.
    pub start_model: String,
    /// More datasets every generation's net trains on.
    pub data: Vec<PathBuf>,
    pub epochs: usize,
    pub features: usize,
    pub match_games: usize,
    pub match_time_ms: u64,
    /// Start positions of the matches (default: the balanced openings on 15x15 freestyle,
    /// else random openings).
    pub positions: Option<PathBuf>,
    pub threads: usize,
    pub seed: u64,
}

/// The `pvs` spec of a player with `model` at `time_ms` a move.
fn player(model: &str, time_ms: u64) -> String {
    format!("pvs:time_ms={time_ms},model={model}")
}

pub fn run(g: &GomokuRun) -> Result<(), String> {
    let started = Instant::now();
    let start = Gomoku::new(g.size, g.rule)?;
    for (flag, value) in [
        ("--generations", g.generations as u64),
        ("--games", g.games as u64),
        ("--time-ms", g.time_ms),
        ("--epochs", g.epochs as u64),
        ("--match-games", g.match_games as u64),
        ("--match-time-ms", g.match_time_ms),
    ] {
        if value == 0 {
            return Err(format!("{flag} must be positive"));
        }
    }
    crate::check_pairs(
        "--games",
        g.games as u64,
        "Gomoku's self-play games are played in pairs from each random opening, the seats swapped",
    )?;
    crate::check_pairs(
        "--match-games",
        g.match_games as u64,
        "the matches play each start position twice, the seats swapped",
    )?;
    // Generation 1's net is kept by its loss on the held-out games (a tenth of them, each by
    // a hash of its number and the seed, as `train pattern` splits them): with none of its
    // games held out and no --data, its training would be refused after the self-play.
    let share = PatternConfig::default().validation_share;
    if g.data.is_empty()
        && !(0..g.games as u64).any(|i| train::data::is_validation(i, g.seed, share))
    {
        return Err(format!(
            "--games {} with --seed {} holds out no game for validation (train pattern holds out a share of {share} of the games, each by a hash of its number and the seed): play more games, or add --data",
            g.games, g.seed
        ));
    }
    train::data::check_distinct_dirs(&g.data).map_err(|e| format!("--data: {e}"))?;
    // A model path goes into a player spec, where a comma would end it.
    if g.out.display().to_string().contains(',') || g.start_model.contains(',') {
        return Err(format!(
            "--out {} / --start-model {}: a player spec cannot name a model path with a comma",
            g.out.display(),
            g.start_model
        ));
    }
    // Every file and spec is checked before minutes of self-play.
    engine::agents::parse_spec(&player(&g.start_model, g.time_ms))
        .and_then(|spec| Gomoku::build_player(&spec, &start).map(drop))
        .map_err(|e| format!("--start-model {}: {e}", g.start_model))?;
    for dir in &g.data {
        let data = Dataset::open(dir).map_err(|e| format!("--data {}: {e}", dir.display()))?;
        let spec = data.manifest().game;
        if spec != start.spec() {
            return Err(format!(
                "--data {} holds {spec} games, the run plays {}",
                dir.display(),
                start.spec()
            ));
        }
    }
    let balanced = Path::new(BALANCED);
    let (positions, from) = match &g.positions {
        Some(path) => (
            read_positions(path, &start)?,
            format!("{} (seats swapped)", path.display()),
        ),
        None if (g.size, g.rule) == (15, Rule::Freestyle) => (
            read_positions(balanced, &start).map_err(|e| {
                format!("{e} (the default openings of the matches come with the repository: run from its root, or pass --positions)")
            })?,
            format!("{BALANCED} (seats swapped)"),
        ),
        None => (
            starts(random_openings(
                &start,
                g.match_games.div_ceil(2),
                4,
                g.seed ^ 0x6d61_7463,
            )?),
            "random 4-stone openings of the centre (seats swapped)".to_string(),
        ),
    };
    println!(
        "== Gomoku {}x{} {}: {} generation(s) of {} self-play games at {} ms a move, a pattern net each, matched at {} ms a move -> {}",
        g.size,
        g.size,
        g.rule.name(),
        g.generations,
        g.games,
        g.time_ms,
        g.match_time_ms,
        g.out.display()
    );
    // `product` where no net ships for the board or rule is the fitted evaluation: named
    // so, not as a net it does not have.
    let shipped = engine::games::gomoku::net::product_net(g.rule, g.size).is_some();
    let mut previous = if g.start_model == "product" && !shipped {
        println!(
            "no shipped net plays {}x{} {}: generation 1 plays the fitted evaluation (model=none)",
            g.size,
            g.size,
            g.rule.name()
        );
        "none".to_string()
    } else {
        g.start_model.clone()
    };
    let first_model = previous.clone();
    let mut datasets: Vec<PathBuf> = Vec::new();
    for k in 1..=g.generations {
        let dir = g.out.join(format!("gen-{k}"));
        let (data, net_dir) = (dir.join("data"), dir.join("net"));
        let model = net_dir.join(train::trainer::MODEL_FILE);
        let model_text = model.display().to_string();
        datasets.push(data.clone());
        let seed = engine::rng::derive_seed(g.seed, k as u64);
        let maker = player(&previous, g.time_ms);
        if model.exists() {
            println!(
                "\n== generation {k} of {}: kept from an earlier run ({})",
                g.generations,
                model.display()
            );
            previous = model_text;
            continue;
        }
        let mut report = Report::new(
            &dir,
            &format!("Gomoku generation {k} of {}", g.generations),
            vec![
                ("its games' player".into(), format!("`{maker}`")),
                ("games".into(), g.games.to_string()),
                ("epochs at most".into(), g.epochs.to_string()),
                ("features a point".into(), g.features.to_string()),
                ("match games".into(), g.match_games.to_string()),
                ("match ms a move".into(), g.match_time_ms.to_string()),
                ("games at once".into(), g.threads.to_string()),
            ],
        );

        let stage = Instant::now();
        println!(
            "\n== generation {k} of {}: {} games of {maker} against itself -> {}",
            g.generations,
            g.games,
            data.display()
        );
        if Dataset::open(&data).is_ok_and(|d| d.manifest().complete) {
            println!("games kept from an earlier run");
        } else {
            if data.exists() {
                println!("an unfinished set of games from an earlier run: played again");
                std::fs::remove_dir_all(&data).map_err(|e| format!("{}: {e}", data.display()))?;
            }
            let openings = starts(random_openings(&start, g.games.div_ceil(2), 4, seed)?);
            let played = crate::play_match(
                &start,
                [&maker, &maker],
                g.games,
                openings,
                g.threads,
                seed,
                Some(data.clone()),
            )?;
            println!(
                "{} games in {:.0} s (black {}, white {}, drawn {})",
                played.games.len(),
                played.seconds,
                black_results(&played, 1),
                black_results(&played, -1),
                black_results(&played, 0),
            );
        }
        report.stage("games", stage.elapsed().as_secs_f64());

        let stage = Instant::now();
        let mut trained_on = datasets.clone();
        trained_on.extend(g.data.iter().cloned());
        println!(
            "training generation {k}'s net on {} -> {}",
            trained_on
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(" + "),
            net_dir.display()
        );
        let config = PatternConfig {
            data: trained_on,
            out: net_dir.clone(),
            features: g.features,
            epochs: g.epochs,
            // The value net also ranks the move played above three others on a third of
            // the positions: 0.645 and 0.682 against the fitted evaluation where the same
            // data without it gave 0.615 (docs/gomoku-results.md, session 68).
            rank_weight: 0.5,
            rank_share: 0.33,
            seed: g.seed,
            // The net of a run stopped during its training is replaced.
            force: true,
            ..PatternConfig::default()
        };
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let summary = train_pattern(&config, true, &command)?;
        let line = format!(
            "best epoch {} of {}: validation loss {:.5} (the fitted evaluation's {:.5}, a constant guess's {:.5}), accuracy {:.2}% on {} positions ({} for training)",
            summary.best.epoch,
            summary.epochs_run,
            summary.best.valid_loss,
            summary.baseline_loss,
            summary.constant_loss,
            100.0 * summary.best.valid_accuracy,
            summary.valid_positions,
            summary.train_positions
        );
        println!("{line}");
        report.stage("training", stage.elapsed().as_secs_f64());
        report.note(format!(
            "The net: {line}. Its card: [net/MODEL.md](net/MODEL.md)."
        ));
        report.write()?;

        let new = player(&model_text, g.match_time_ms);
        let mut rivals = vec![(
            player(&previous, g.match_time_ms),
            "the player that made its games",
            "match.json",
        )];
        if previous != "none" {
            rivals.push((
                player("none", g.match_time_ms),
                "the fitted evaluation",
                "match-fitted.json",
            ));
        }
        let mut card = format!("\n## Generation {k}'s matches\n\nIts games: {} of `{maker}`. The new net (A) at equal time, from {from}:\n", g.games);
        for (i, (rival, who, file)) in rivals.iter().enumerate() {
            let stage = Instant::now();
            println!(
                "generation {k}'s net against {who}, {} games:",
                g.match_games
            );
            let played = crate::play_match(
                &start,
                [&new, rival],
                g.match_games,
                positions.clone(),
                g.threads,
                engine::rng::derive_seed(seed, 1 + i as u64),
                None,
            )?;
            let table = report_table(&played, played.seconds);
            print!("{table}");
            crate::write_json(&dir.join(file), &played)?;
            report.stage(
                &format!("match against {who}"),
                stage.elapsed().as_secs_f64(),
            );
            report.add_match(
                &format!("generation {k}'s net against {who}"),
                &from,
                &played,
            );
            report.write()?;
            card.push_str(&format!("\nAgainst {who}:\n\n```\n{table}```\n"));
        }
        let card_path = net_dir.join("MODEL.md");
        let mut text = std::fs::read_to_string(&card_path)
            .map_err(|e| format!("{}: {e}", card_path.display()))?;
        text.push_str(&card);
        engine::tuning::write_atomically(&card_path, text.as_bytes())?;
        previous = model_text;
    }
    let mut summary = Report::new(
        &g.out,
        &format!(
            "Pipeline run: Gomoku {}x{} {}, {} generation(s)",
            g.size,
            g.size,
            g.rule.name(),
            g.generations
        ),
        vec![
            (
                "board".into(),
                format!("{}x{} {}", g.size, g.size, g.rule.name()),
            ),
            ("generation 1's model".into(), first_model),
            ("self-play games a generation".into(), g.games.to_string()),
            ("self-play ms a move".into(), g.time_ms.to_string()),
            ("seed".into(), g.seed.to_string()),
        ],
    );
    let mut table = String::from(
        "| generation | against the player of its games | against the fitted evaluation | report |\n|---|---|---|---|",
    );
    for k in 1..=g.generations {
        let dir = g.out.join(format!("gen-{k}"));
        table.push_str(&format!(
            "\n| {k} | {} | {} | [gen-{k}/{REPORT_FILE}](gen-{k}/{REPORT_FILE}) |",
            score_of(&dir.join("match.json")),
            score_of(&dir.join("match-fitted.json")),
        ));
    }
    summary.note(format!(
        "The new net's score at equal time ({} ms a move), with its 95% interval:\n\n{table}",
        g.match_time_ms
    ));
    summary.write()?;
    println!(
        "\npipeline done in {:.0} s; the last net is {}, the report {}",
        started.elapsed().as_secs_f64(),
        previous,
        g.out.join(REPORT_FILE).display()
    );
    Ok(())
}

/// Openings' moves as start positions.
fn starts(openings: Vec<Vec<engine::game::Action>>) -> Vec<StartPosition> {
    openings
        .into_iter()
        .map(|moves| StartPosition {
            moves,
            perfect: None,
        })
        .collect()
}

/// The score of player A in a match's JSON, with its interval ("-" where there is none).
fn score_of(path: &Path) -> String {
    let read = || -> Option<String> {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
        let pair = &json["pair"];
        Some(format!(
            "{}-{}-{}, {:.3} ({:.3} to {:.3})",
            pair["wins"].as_u64()?,
            pair["draws"].as_u64()?,
            pair["losses"].as_u64()?,
            pair["score"].as_f64()?,
            pair["score_low"].as_f64()?,
            pair["score_high"].as_f64()?
        ))
    };
    read().unwrap_or_else(|| "-".to_string())
}

/// The games of `report` whose result for black is `value` (1 a win, 0 a draw, -1 a loss).
fn black_results(report: &MatchReport, value: i32) -> usize {
    let black = engine::game::Player::P1;
    report
        .games
        .iter()
        .filter(|m| m.report.outcome.value_for(black) == value)
        .count()
}
