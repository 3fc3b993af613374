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
        }
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
        let result = self
            .search
            .run_among(state, allowed)
            .map_err(|e| AgentError::new(format!("search failed: {e}")))?;
        let choice = Choice::searched(&result);
        self.last = Some(result);
        Ok(choice)
    }
}

impl<G: Game, R: RolloutPolicy<G>> Agent<G> for MctsAgent<G, R> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn knowledge(&self, _start: &G) -> Option<String> {
        self.search.rollout_policies().next()?.knowledge()
    }

    fn reseed(&mut self, seed: u64) {
        self.seed = seed;
        self.games = 0;
    }

    fn new_game(&mut self, _start: &G, _moves: &[Action]) -> Result<(), AgentError> {
        self.games += 1;
        Ok(())
    }

    fn choose(&mut self, state: &G, moves: &[Action]) -> Result<Choice, AgentError> {
        self.choose_among(state, moves, &[])
    }

    fn last_search(&self) -> Option<&SearchResult> {
        self.last.as_ref()
    }
}
