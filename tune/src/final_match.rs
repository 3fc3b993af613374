//! The run's last word: the tuned weights against the starting weights, played by the engine's
//! default search of the game (for Amazons MG-PEO), seats swapped, with `engine match`'s
//! statistics.

use std::path::Path;

use engine::agents::parse_spec;
use engine::arena::{report_table, run_match, MatchConfig, MatchReport};
use engine::games::{GameSpec, RegisteredGame};
use engine::registry::GameVisitor;
use engine::registry::Lookup;

use crate::config::TuneConfig;

/// The two players' specs: the player that reads the set's weights (the engine's `mcts` for
/// most sets) at the final time a move with each weights file.
pub fn specs(config: &TuneConfig, tuned: &Path, start: &Path) -> Result<[String; 2], String> {
    let kind = engine::registry::tunable(&config.game, Some(&config.set))?.final_player();
    Ok([tuned, start].map(|f| {
        format!(
            "{kind}:time_ms={},weights={}",
            config.final_time_ms,
            f.display()
        )
    }))
}

/// Plays the match, writes `final-match.json` into the run folder and returns the table.
pub fn play(
    config: &TuneConfig,
    tuned: &Path,
    start: &Path,
    quiet: bool,
) -> Result<String, String> {
    let players = specs(config, tuned, start)?;
    let parsed = [parse_spec(&players[0])?, parse_spec(&players[1])?];
    let spec = GameSpec::from_text(&config.game)?;
    let match_config = MatchConfig {
        game: spec,
        players: players.clone(),
        games: config.final_games,
        positions: Vec::new(),
        threads: config.games_at_once(),
        seed: config.seed,
        sprt: None,
        records: None,
        replace_records: false,
    };
    struct Final<'a> {
        config: &'a MatchConfig,
        parsed: &'a [engine::agents::AgentSpec; 2],
        quiet: bool,
    }
    impl GameVisitor for Final<'_> {
        type Output = Result<MatchReport, String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            let build = || -> Result<_, String> {
                Ok([
                    G::build_player(&self.parsed[0], &start)?,
                    G::build_player(&self.parsed[1], &start)?,
                ])
            };
            let planned = self.config.games;
            let quiet = self.quiet;
            run_match(&start, self.config, &build, |_, r| {
                let p = &r.pair;
                let done = (p.wins + p.draws + p.losses) as usize;
                if !quiet && (done % 10 == 0 || done == planned) {
                    eprintln!(
                        "final match {done}/{planned}: tuned {}-{}-{} score {:.3}",
                        p.wins, p.draws, p.losses, p.score
                    );
                }
            })
        }
    }
    let started = std::time::Instant::now();
    let report = spec.visit(Final {
        config: &match_config,
        parsed: &parsed,
        quiet,
    })??;
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    engine::tuning::write_atomically(&config.out.join("final-match.json"), json.as_bytes())?;
    Ok(report_table(&report, started.elapsed().as_secs_f64()))
}
