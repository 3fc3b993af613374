//! Players with Dots-and-Boxes knowledge: `greedy` and `rival`, a QDab-style player
//! (safe captures, safe edges searched first, the smallest sacrifice, the all-but-two
//! double-deal when control is worth it, and the exact solver late in the game).

use super::knowledge::{EndgameConfig, ExactEndgame};
use crate::agents::{Agent, AgentError, Choice};
use crate::game::Action;
use crate::games::dots_and_boxes::analysis::{
    double_deal, free_capture, greedy_moves, keeps_control, random_edge, sacrifice, safe_edges,
};
use crate::games::DotsAndBoxes;
use crate::mcts::{Search, SearchConfig};
use crate::rng::{derive_seed, Rng};

/// Closes a box when it can, else avoids drawing a box's third side, else plays at random.
pub struct GreedyAgent {
    rng: Rng,
}

impl GreedyAgent {
    pub fn new(seed: u64) -> GreedyAgent {
        GreedyAgent {
            rng: Rng::new(seed),
        }
    }
}

impl Agent<DotsAndBoxes> for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    fn new_game(&mut self, _: &DotsAndBoxes, _: &[Action]) -> Result<(), AgentError> {
        Ok(())
    }

    fn choose(&mut self, state: &DotsAndBoxes, _: &[Action]) -> Result<Choice, AgentError> {
        let pool = greedy_moves(state.geometry(), state.edges());
        Ok(Choice::plain(random_edge(pool, &mut self.rng) as Action))
    }
}

/// Settings of the rival.
#[derive(Clone, Debug, PartialEq)]
pub struct RivalConfig {
    /// The search over safe edges while the position is open.
    pub search: SearchConfig,
    /// When the exact solver answers (and when it gives up, leaving the move to the
    /// heuristics).
    pub endgame: EndgameConfig,
}

impl Default for RivalConfig {
    fn default() -> RivalConfig {
        RivalConfig {
            search: SearchConfig {
                budget: crate::mcts::Budget::iterations(20_000),
                seed: 1,
                ..SearchConfig::default()
            },
            endgame: EndgameConfig::RIVAL,
        }
    }
}

/// How the rival chose its last move (for tests and logs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RivalReason {
    Solver,
    FreeCapture,
    DoubleDeal,
    Capture,
    OnlySafeEdge,
    SearchSafeEdges,
    SmallestSacrifice,
}

/// The QDab-style rival for Dots and Boxes.
pub struct RivalAgent {
    name: String,
    config: RivalConfig,
    endgame: ExactEndgame,
    search: Search<DotsAndBoxes>,
    games: u64,
    pub last_reason: Option<RivalReason>,
    /// Iterations of the last move's search (0 when no search chose it).
    last_iterations: u64,
}

impl RivalAgent {
    pub fn new(name: impl Into<String>, config: RivalConfig) -> RivalAgent {
        RivalAgent {
            name: name.into(),
            search: Search::plain(config.search.clone()),
            endgame: ExactEndgame::new(config.endgame),
            config,
            games: 0,
            last_reason: None,
            last_iterations: 0,
        }
    }

    /// The move and why.
    pub fn decide(&mut self, state: &DotsAndBoxes, moves: &[Action]) -> (Action, RivalReason) {
        self.last_iterations = 0;
        let geo = state.geometry();
        let edges = state.edges();
        let free = !edges & geo.all_edges;
        if let Some(a) = self.endgame.try_solve(state) {
            return (a, RivalReason::Solver);
        }
        // A capture that leads nowhere is always right.
        if let Some(e) = free_capture(geo, edges) {
            return (e as Action, RivalReason::FreeCapture);
        }
        // Captures that lead into a chain: take them, except at the last two boxes of a chain
        // (or four of a loop), where keeping control may be worth more.
        if let Some((take, decline)) = double_deal(geo, edges) {
            if keeps_control(geo, edges, decline) {
                return (decline as Action, RivalReason::DoubleDeal);
            }
            return (take as Action, RivalReason::Capture);
        }
        let safe = safe_edges(geo, edges);
        if safe.count_ones() == 1 {
            return (safe.trailing_zeros() as Action, RivalReason::OnlySafeEdge);
        }
        if safe != 0 {
            let mut allowed = Vec::with_capacity(safe.count_ones() as usize);
            let mut bits = safe;
            while bits != 0 {
                allowed.push(bits.trailing_zeros() as Action);
                bits &= bits - 1;
            }
            let seed = derive_seed(
                derive_seed(self.config.search.seed, self.games),
                moves.len() as u64,
            );
            self.search.set_seed(seed);
            let result = self
                .search
                .run_among(state, &allowed)
                .expect("the position is open and the budget set");
            self.last_iterations = result.iterations;
            return (result.best, RivalReason::SearchSafeEdges);
        }
        // Every move hands something over: the fewest boxes, and among equals one the opponent
        // cannot decline (a 2-chain by its middle line).
        let mut best: Option<((u32, bool), usize)> = None;
        let mut bits = free;
        while bits != 0 {
            let e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let cost = sacrifice(geo, edges, e);
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, e));
            }
        }
        let (_, e) = best.expect("a position that is not over has a free edge");
        (e as Action, RivalReason::SmallestSacrifice)
    }
}

impl Agent<DotsAndBoxes> for RivalAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reseed(&mut self, seed: u64) {
        self.config.search.seed = seed;
        self.games = 0;
    }

    fn new_game(&mut self, _: &DotsAndBoxes, _: &[Action]) -> Result<(), AgentError> {
        self.games += 1;
        self.endgame.new_game();
        Ok(())
    }

    fn choose(&mut self, state: &DotsAndBoxes, moves: &[Action]) -> Result<Choice, AgentError> {
        let (action, reason) = self.decide(state, moves);
        self.last_reason = Some(reason);
        Ok(Choice {
            iterations: self.last_iterations,
            ..Choice::plain(action)
        })
    }
}
