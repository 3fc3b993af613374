//! The engine's own MCTS as a player (plain or net-guided, by its rollout policy).

use super::{Agent, AgentError, Choice};
use crate::game::{Action, Game};
use crate::mcts::{RandomRollout, RolloutPolicy, Search, SearchConfig, SearchResult, Ucb};
use crate::rng::derive_seed;

/// MCTS with a fixed budget a move. Its searches are seeded from its base seed, the game number
/// and the move number, so a game replays exactly for iteration budgets.
pub struct MctsAgent<G: Game, R: RolloutPolicy<G> = RandomRollout> {
    name: String,
    seed: u64,
    games: u64,
    search: Search<G, Ucb, R>,
    last: Option<SearchResult>,
    /// Whether a search keeps what the game's last search grew below its root (tree reuse).
    reuse_tree: bool,
    /// How many moves of the game had been played at its last search, for tree reuse.
    searched_at: Option<usize>,
}

impl<G: Game> MctsAgent<G> {
    /// Plain MCTS (random rollouts).
    pub fn plain(name: impl Into<String>, config: SearchConfig) -> MctsAgent<G> {
        let cp = config.cp;
        MctsAgent::new(name, config, Ucb::new(cp), RandomRollout)
    }
}

impl<G: Game, R: RolloutPolicy<G>> MctsAgent<G, R> {
    pub fn new(name: impl Into<String>, config: SearchConfig, ucb: Ucb, rollout: R) -> Self {
        MctsAgent {
            name: name.into(),
            seed: config.seed,
            games: 0,
            search: Search::new(config, ucb, rollout),
            last: None,
            reuse_tree: false,
            searched_at: None,
        }
    }

    /// With `reuse`, each search of a game goes on from the subtree the game's last search grew
    /// below the position it starts from, when the moves since lead to one (the root's moves
    /// unrestricted); otherwise it starts afresh.
    pub fn with_reuse(mut self, reuse: bool) -> Self {
        self.reuse_tree = reuse;
        self
    }

    /// The search's budget for one move.
    pub fn budget(&self) -> crate::mcts::Budget {
        self.search.config().budget
    }

    /// Sets the budget of the next moves.
    pub fn set_budget(&mut self, budget: crate::mcts::Budget) {
        self.search.set_budget(budget);
    }

    /// [`choose`](Agent::choose) with the root's moves restricted to `allowed` (every legal
    /// move when empty), for players whose knowledge of the game narrows them.
    pub fn choose_among(
        &mut self,
        state: &G,
        moves: &[Action],
        allowed: &[Action],
    ) -> Result<Choice, AgentError> {
        let seed = derive_seed(derive_seed(self.seed, self.games), moves.len() as u64);
        self.search.set_seed(seed);
        let since_last = match self.searched_at {
            Some(at) if self.reuse_tree && allowed.is_empty() => moves.get(at..),
            _ => None,
        };
        let result = match since_last {
            Some(path) => self.search.run_continuing(state, path),
            None => self.search.run_among(state, allowed),
        }
        .map_err(|e| AgentError::new(format!("search failed: {e}")))?;
        self.searched_at = Some(moves.len());
        let choice = Choice::searched(&result);
        self.last = Some(result);
        Ok(choice)
    }
}

impl<G: Game, R: RolloutPolicy<G>> Agent<G> for MctsAgent<G, R> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reseed(&mut self, seed: u64) {
        self.seed = seed;
        self.games = 0;
        self.searched_at = None;
    }

    fn new_game(&mut self, _start: &G, _moves: &[Action]) -> Result<(), AgentError> {
        self.games += 1;
        self.searched_at = None;
        Ok(())
    }

    fn choose(&mut self, state: &G, moves: &[Action]) -> Result<Choice, AgentError> {
        self.choose_among(state, moves, &[])
    }

    fn last_search(&self) -> Option<&SearchResult> {
        self.last.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::DotsAndBoxes;
    use crate::mcts::Budget;

    /// Visits of the root's moves in the agent's last search, and its own iterations.
    fn visits_and_iterations(agent: &MctsAgent<DotsAndBoxes>) -> (u64, u64) {
        let result = agent.last_search().expect("the agent searched");
        let visits = result.root_moves.iter().map(|m| m.visits).sum();
        (visits, result.iterations)
    }

    /// Two searches of one game, the second after the first's move; then a new game.
    fn two_moves_then_a_new_game(reuse: bool) -> [(u64, u64); 3] {
        let config = SearchConfig {
            budget: Budget::iterations(2_000),
            seed: 3,
            ..SearchConfig::default()
        };
        let mut agent = MctsAgent::plain("mcts", config).with_reuse(reuse);
        let start = DotsAndBoxes::new(2, 2).unwrap();
        let mut state = start;
        let mut moves = Vec::new();
        agent.new_game(&start, &moves).unwrap();
        let first = agent.choose(&state, &moves).unwrap().action;
        let after_first = visits_and_iterations(&agent);
        state.apply(first);
        moves.push(first);
        agent.choose(&state, &moves).unwrap();
        let after_second = visits_and_iterations(&agent);
        agent.new_game(&start, &[]).unwrap();
        agent.choose(&start, &[]).unwrap();
        [after_first, after_second, visits_and_iterations(&agent)]
    }

    #[test]
    fn tree_reuse_keeps_the_last_searchs_subtree_within_a_game_only() {
        // Without reuse every search's root visits are its own iterations' (the root's first
        // iteration visits no child).
        for (visits, iterations) in two_moves_then_a_new_game(false) {
            assert_eq!(iterations, 2_000);
            assert!(
                visits < iterations,
                "{visits} visits in {iterations} iterations"
            );
        }
        let [first, second, new_game] = two_moves_then_a_new_game(true);
        assert!(first.0 < first.1);
        // The first search's most visited move was expanded: its subtree's visits carry over.
        assert!(
            second.0 > second.1 + 100,
            "{} root visits after {} iterations",
            second.0,
            second.1
        );
        assert!(new_game.0 < new_game.1, "a new game starts afresh");
    }
}
