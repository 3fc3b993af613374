//! `selfplay stats`: what a dataset holds, and how varied its games are.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::Path;

use engine::game::Game;
use engine::games::RegisteredGame;
use engine::record::{replay, Dataset, MoveKind};
use engine::registry::GameVisitor;
use engine::registry::Lookup;
use serde::Serialize;

use crate::run::OutcomeCounts;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Lengths {
    pub min: u64,
    pub mean: f64,
    pub max: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub dataset: String,
    pub game: String,
    pub games: u64,
    pub positions: u64,
    pub outcomes: OutcomeCounts,
    pub p1_rate: f64,
    pub p2_rate: f64,
    pub draw_rate: f64,
    /// P1's score minus P2's: mean, mean of the absolute value, and how many games each.
    pub margin_mean: f64,
    pub margin_abs_mean: f64,
    pub margin_histogram: BTreeMap<i64, u64>,
    pub length: Lengths,
    pub moves_searched: u64,
    pub moves_sampled: u64,
    pub moves_given: u64,
    pub moves_solved: u64,
    pub iterations_per_searched_move: f64,
    /// Games whose whole move list equals an earlier game's.
    pub duplicate_games: u64,
    pub duplicate_game_rate: f64,
    /// Positions (features and player to move) that occurred earlier in the dataset.
    pub distinct_positions: u64,
    pub duplicate_positions: u64,
    pub duplicate_position_rate: f64,
    /// Per game, the number of its first positions that earlier games already had: how long
    /// games follow a beaten track before they diverge.
    pub shared_opening_mean: f64,
    /// Torn last records skipped (a killed run not yet resumed).
    pub warnings: Vec<String>,
}

/// Reads every game of the dataset in `dir` and replays it.
pub fn stats(dir: &Path) -> Result<Stats, String> {
    let dataset = Dataset::open(dir).map_err(|e| e.to_string())?;
    struct Collect<'a>(&'a Dataset);
    impl GameVisitor for Collect<'_> {
        type Output = Result<Stats, String>;
        fn visit<G: RegisteredGame>(self, start: G) -> Self::Output {
            collect(self.0, start)
        }
    }
    dataset.spec().visit(Collect(&dataset))?
}

/// A 128-bit key of a position: its value-net features and the player to move.
fn position_key<G: Game>(state: &G, features: &mut [f32]) -> u128 {
    state.encode_features(features);
    let mut a = DefaultHasher::new();
    let mut b = DefaultHasher::new();
    0u8.hash(&mut a);
    1u8.hash(&mut b);
    for h in [&mut a, &mut b] {
        state.to_move().hash(h);
        for f in features.iter() {
            f.to_bits().hash(h);
        }
    }
    (a.finish() as u128) << 64 | b.finish() as u128
}

fn collect<G: Game>(dataset: &Dataset, initial: G) -> Result<Stats, String> {
    let mut s = Stats {
        dataset: dataset.dir().display().to_string(),
        game: dataset.spec().to_string(),
        length: Lengths {
            min: u64::MAX,
            ..Lengths::default()
        },
        ..Stats::default()
    };
    let mut move_lists: HashSet<Vec<u16>> = HashSet::new();
    let mut positions: HashSet<u128> = HashSet::new();
    let mut features = vec![0f32; initial.feature_len()];
    let mut margin_sum = 0i64;
    let mut margin_abs_sum = 0u64;
    let mut shared_sum = 0u64;
    let mut searched_iterations = 0u64;
    let mut games = dataset.games().skipping_torn_tails();
    while let Some(item) = games.next() {
        let game = item.map_err(|e| e.to_string())?;
        let mut shared = 0u64;
        let mut diverged = false;
        replay(&game, initial.clone(), |state, _, m| {
            let new = positions.insert(position_key(state, &mut features));
            if new {
                diverged = true;
            } else {
                s.duplicate_positions += 1;
                if !diverged {
                    shared += 1;
                }
            }
            match m.kind {
                MoveKind::Searched => s.moves_searched += 1,
                MoveKind::Sampled => s.moves_sampled += 1,
                MoveKind::Given => s.moves_given += 1,
                MoveKind::Solved => s.moves_solved += 1,
            }
            if matches!(m.kind, MoveKind::Searched | MoveKind::Sampled) {
                searched_iterations += m.iterations as u64;
            }
        })
        .map_err(|detail| {
            let (path, offset) = games.location();
            format!(
                "{}: game {} at byte offset {offset} does not replay: {detail}",
                path.display(),
                game.index
            )
        })?;
        shared_sum += shared;
        s.games += 1;
        let len = game.moves.len() as u64;
        s.positions += len;
        s.length.min = s.length.min.min(len);
        s.length.max = s.length.max.max(len);
        s.outcomes.add(game.outcome);
        let margin = game.scores[0] as i64 - game.scores[1] as i64;
        margin_sum += margin;
        margin_abs_sum += margin.unsigned_abs();
        *s.margin_histogram.entry(margin).or_default() += 1;
        if !move_lists.insert(game.moves.iter().map(|m| m.action).collect()) {
            s.duplicate_games += 1;
        }
    }
    s.warnings = games.torn_tails().to_vec();
    let games = s.games.max(1) as f64;
    let positions_n = s.positions.max(1) as f64;
    if s.games == 0 {
        s.length.min = 0;
    }
    s.length.mean = s.positions as f64 / games;
    s.p1_rate = s.outcomes.p1 as f64 / games;
    s.p2_rate = s.outcomes.p2 as f64 / games;
    s.draw_rate = s.outcomes.draw as f64 / games;
    s.margin_mean = margin_sum as f64 / games;
    s.margin_abs_mean = margin_abs_sum as f64 / games;
    s.iterations_per_searched_move =
        searched_iterations as f64 / (s.moves_searched + s.moves_sampled).max(1) as f64;
    s.duplicate_game_rate = s.duplicate_games as f64 / games;
    s.distinct_positions = positions.len() as u64;
    s.duplicate_position_rate = s.duplicate_positions as f64 / positions_n;
    s.shared_opening_mean = shared_sum as f64 / games;
    Ok(s)
}

impl Stats {
    /// The human-readable report.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let pct = |x: f64| format!("{:.1}%", 100.0 * x);
        out += &format!("dataset     {} ({})\n", self.dataset, self.game);
        out += &format!("games       {}\n", self.games);
        out += &format!("positions   {}\n", self.positions);
        out += &format!(
            "results     P1 {} ({})  P2 {} ({})  draw {} ({})\n",
            self.outcomes.p1,
            pct(self.p1_rate),
            self.outcomes.p2,
            pct(self.p2_rate),
            self.outcomes.draw,
            pct(self.draw_rate)
        );
        out += &format!(
            "margin      P1-P2 mean {:+.2}, mean |margin| {:.2}\n",
            self.margin_mean, self.margin_abs_mean
        );
        let hist: Vec<String> = self
            .margin_histogram
            .iter()
            .map(|(m, n)| format!("{m:+}:{n}"))
            .collect();
        out += &format!("            {}\n", hist.join(" "));
        out += &format!(
            "length      min {}  mean {:.1}  max {}\n",
            self.length.min, self.length.mean, self.length.max
        );
        out += &format!(
            "moves       searched {}  sampled {}  given {}  solved {}  ({:.0} iterations a searched move)\n",
            self.moves_searched,
            self.moves_sampled,
            self.moves_given,
            self.moves_solved,
            self.iterations_per_searched_move
        );
        out += &format!(
            "duplicates  games {} ({})  positions {} of {} ({}), {} distinct\n",
            self.duplicate_games,
            pct(self.duplicate_game_rate),
            self.duplicate_positions,
            self.positions,
            pct(self.duplicate_position_rate),
            self.distinct_positions
        );
        out += &format!(
            "openings    a game repeats its first {:.1} positions from earlier games, on average\n",
            self.shared_opening_mean
        );
        for w in &self.warnings {
            out += &format!("warning     {w}\n");
        }
        out
    }
}
