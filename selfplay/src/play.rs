//! One self-play game: every move chosen by MCTS with the game's own rollout (plain random
//! playouts for Dots and Boxes, as the paper generated its data), or by a named player (any
//! spec `engine match` takes) on both sides.

use engine::agents::Agent;
use engine::game::Action;
use engine::games::RegisteredGame;
use engine::mcts::{Budget, Search, SearchConfig, SearchResult, Ucb};
use engine::record::{recorded_scores, GameRecord, MoveKind, MoveRecord, RootStat};
use engine::rng::{derive_seed, Rng};

/// What decides a game besides its index (a projection of the run's config).
#[derive(Clone, Debug)]
pub struct PlaySettings {
    pub iterations: u64,
    pub cp: f64,
    pub counter: engine::mcts::CounterMode,
    pub search_threads: usize,
    pub seed: u64,
    pub sample_moves: u32,
    pub random_opening_moves: u32,
    pub root_stats: bool,
}

/// A source of perfect moves for late positions (the endgame solver), or none.
pub type Oracle<'a, G> = dyn FnMut(&G) -> Option<Action> + 'a;

/// Seed of game `index`: the run's seed and the index through splitmix64, so any shard,
/// machine or thread that plays game `index` plays the same game.
pub fn game_seed(run_seed: u64, index: u64) -> u64 {
    derive_seed(run_seed, index)
}

/// Plays game `index` from `initial` to the end and returns its record.
pub fn play_game<G: RegisteredGame>(
    initial: &G,
    settings: &PlaySettings,
    index: u64,
    oracle: &mut Oracle<'_, G>,
) -> GameRecord {
    let seed = game_seed(settings.seed, index);
    // The search draws from streams derived from `seed`; variety draws from its own stream.
    let mut variety = Rng::new(derive_seed(seed, u64::MAX));
    let config = SearchConfig {
        cp: settings.cp,
        counter: settings.counter,
        budget: Budget::iterations(settings.iterations),
        threads: settings.search_threads,
        seed,
        ..SearchConfig::default()
    };
    // The game's own rollout: random playouts, or Amazons' shallow rollouts and evaluation.
    let mut search = Search::new(config, Ucb::new(settings.cp), G::Rollout::default());
    let mut state = initial.clone();
    let mut legal: Vec<Action> = Vec::with_capacity(state.max_actions());
    let mut moves = Vec::new();
    let mut searched = 0u32;
    while !state.is_terminal() {
        let player = state.to_move();
        let solved = if (moves.len() as u32) < settings.random_opening_moves {
            None
        } else {
            oracle(&state)
        };
        let record = if let Some(action) = solved {
            MoveRecord::unsearched(action, player, MoveKind::Solved)
        } else if (moves.len() as u32) < settings.random_opening_moves {
            state.legal_actions(&mut legal);
            let action = legal[variety.below(legal.len() as u32) as usize];
            MoveRecord::unsearched(action, player, MoveKind::Given)
        } else {
            let result = search.run(&state).expect("a live position with a budget");
            let (action, kind) = if searched < settings.sample_moves {
                (sample_by_visits(&result, &mut variety), MoveKind::Sampled)
            } else {
                (result.best, MoveKind::Searched)
            };
            searched += 1;
            MoveRecord {
                action,
                player,
                kind,
                iterations: result.iterations.min(u32::MAX as u64) as u32,
                root: if settings.root_stats {
                    RootStat::of_search(&result)
                } else {
                    Vec::new()
                },
            }
        };
        state.apply(record.action);
        moves.push(record);
    }
    let outcome = state.outcome().expect("a finished game has an outcome");
    GameRecord {
        index,
        seed,
        outcome,
        scores: recorded_scores(&state, outcome),
        moves,
    }
}

/// Plays game `index` from `initial` with `players` (P1's and P2's, built from one spec) and
/// returns its record: the first `settings.random_opening_moves` moves uniformly at random
/// (given), then every move the players', with their searches' root statistics (when
/// `settings.root_stats`). The players are reseeded from the game's seed, so a player whose
/// budget is iterations plays the same game for the same index. A player that fails is an
/// error naming the game.
pub fn play_agent_game<G: RegisteredGame>(
    initial: &G,
    settings: &PlaySettings,
    index: u64,
    mut players: [&mut dyn Agent<G>; 2],
) -> Result<GameRecord, String> {
    let seed = game_seed(settings.seed, index);
    let mut variety = Rng::new(derive_seed(seed, u64::MAX));
    let mut state = initial.clone();
    let mut legal: Vec<Action> = Vec::with_capacity(state.max_actions());
    let mut opening = Vec::new();
    while (opening.len() as u32) < settings.random_opening_moves && !state.is_terminal() {
        state.legal_actions(&mut legal);
        let action = legal[variety.below(legal.len() as u32) as usize];
        state.apply(action);
        opening.push(action);
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.reseed(derive_seed(seed, seat as u64));
    }
    let report = engine::agents::play_game(initial, &opening, players)?;
    // Only a forfeit has no record.
    let Some(mut record) = report.to_record(initial, index, seed) else {
        let reason = report.forfeit.as_ref().map_or("", |f| f.reason.as_str());
        return Err(format!("game {index}: the player failed: {reason}"));
    };
    if !settings.root_stats {
        record.moves.iter_mut().for_each(|m| m.root.clear());
    }
    Ok(record)
}

/// A root move drawn with probability proportional to its visits.
fn sample_by_visits(result: &SearchResult, rng: &mut Rng) -> Action {
    let total: u64 = result.root_moves.iter().map(|m| m.visits).sum();
    if total == 0 {
        return result.best;
    }
    let mut pick = (rng.unit_f64() * total as f64) as u64;
    for m in &result.root_moves {
        if pick < m.visits {
            return m.action;
        }
        pick -= m.visits;
    }
    result.best
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::game::Game;
    use engine::games::DotsAndBoxes;
    use engine::record::replay;

    fn settings() -> PlaySettings {
        PlaySettings {
            iterations: 300,
            cp: engine::mcts::Ucb::DEFAULT_CP,
            counter: engine::mcts::CounterMode::Double,
            search_threads: 1,
            seed: 42,
            sample_moves: 0,
            random_opening_moves: 0,
            root_stats: true,
        }
    }

    #[test]
    fn games_replay_and_are_reproducible() {
        let board = DotsAndBoxes::new(3, 3).unwrap();
        for index in 0..4 {
            let game = play_game(&board, &settings(), index, &mut |_| None);
            assert_eq!(game.index, index);
            assert_eq!(game.moves.len(), 24);
            assert!(game.moves.iter().all(|m| m.kind == MoveKind::Searched));
            for m in &game.moves {
                let visits: u64 = m.root.iter().map(|r| r.visits as u64).sum();
                // The first iteration is a rollout from the root itself (a node is expanded on
                // its second visit), so the root moves share the other 299.
                assert_eq!(visits, 299, "root visits add up to the iterations");
                assert_eq!(m.iterations, 300);
                // The chosen move is a most-visited root move.
                let max = m.root.iter().map(|r| r.visits).max().unwrap();
                let chosen = m.root.iter().find(|r| r.action == m.action).unwrap();
                assert_eq!(chosen.visits, max);
            }
            replay(&game, board, |_, _, _| {}).unwrap();
            assert_eq!(play_game(&board, &settings(), index, &mut |_| None), game);
        }
        assert_ne!(
            play_game(&board, &settings(), 0, &mut |_| None),
            play_game(&board, &settings(), 1, &mut |_| None)
        );
    }

    #[test]
    fn variety_settings_mark_their_moves() {
        let board = DotsAndBoxes::new(3, 3).unwrap();
        let s = PlaySettings {
            sample_moves: 3,
            random_opening_moves: 2,
            root_stats: false,
            ..settings()
        };
        let game = play_game(&board, &s, 9, &mut |_| None);
        let kinds: Vec<MoveKind> = game.moves.iter().map(|m| m.kind).collect();
        assert_eq!(&kinds[..2], &[MoveKind::Given; 2]);
        assert_eq!(&kinds[2..5], &[MoveKind::Sampled; 3]);
        assert!(kinds[5..].iter().all(|&k| k == MoveKind::Searched));
        assert!(game.moves.iter().all(|m| m.root.is_empty()));
        assert_eq!(game.moves[0].iterations, 0);
        replay(&game, board, |_, _, _| {}).unwrap();
    }

    /// With `solver_edges`, the last moves are the solver's, and from the first of them on the
    /// game's result is the perfect-play result of every position.
    #[test]
    fn the_solver_plays_the_endgame_perfectly() {
        use engine::games::dots_and_boxes::endgame::EndgameSolver;
        let board = DotsAndBoxes::new(3, 3).unwrap();
        let mut oracle = board.endgame_oracle(14);
        let mut solver = EndgameSolver::new(3, 3, 16);
        for index in 0..4 {
            let game = play_game(&board, &settings(), index, oracle.as_mut());
            let first = game
                .moves
                .iter()
                .position(|m| m.kind == MoveKind::Solved)
                .expect("the solver plays the end");
            assert_eq!(first, 24 - 14);
            assert!(game.moves[first..]
                .iter()
                .all(|m| m.kind == MoveKind::Solved && m.iterations == 0));
            let mut state = board;
            for (i, m) in game.moves.iter().enumerate() {
                if i >= first {
                    assert_eq!(solver.outcome(&state), game.outcome, "move {i}");
                }
                state.apply(m.action);
            }
            replay(&game, board, |_, _, _| {}).unwrap();
        }
    }
}
