//! Proven moves in front of a player's own method: a capture that leads nowhere is taken at
//! once (it is never wrong), and once few enough edges are free the exact solver chooses the
//! move (as QDab and the rival do). Otherwise, or when the solver gives up at its node limit,
//! the player's own method does.

use crate::agents::{Agent, AgentError, Choice, MctsAgent};
use crate::game::{Action, Game};
use crate::games::dots_and_boxes::analysis::{free_capture, safe_first_moves};
use crate::games::dots_and_boxes::endgame::EndgameSolver;
use crate::games::dots_and_boxes::positions::free_edges;
use crate::games::DotsAndBoxes;
use std::time::Duration;

use crate::mcts::{Budget, RolloutPolicy};

/// Positions the exact solver searches in a millisecond on this machine, about (docs/players.md:
/// 125k in 17.9 ms): a proof's node limit when a player has a clock, and `qdab`'s timed solve.
pub const SOLVER_NODES_PER_MS: u64 = 7_000;

/// The search's time for a move of `time` after knowledge took `spent` of it (a proof that
/// found no win): the rest, and never less than a quarter.
pub fn time_after_knowledge(time: Duration, spent: Duration) -> Duration {
    time.saturating_sub(spent).max(time / 4)
}

/// When the exact solver takes over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndgameConfig {
    /// The solver answers once this many edges or fewer are free (0: never).
    pub edges: u32,
    /// It gives up past this many positions searched for one move.
    pub nodes: u64,
    /// Above `edges`, up to this many free edges, the solver tries to prove a win for the
    /// player to move (a null-window search) and plays a move that keeps it; a position it
    /// cannot prove won within `prove_nodes` is left to the search (0: never).
    pub prove_edges: u32,
    pub prove_nodes: u64,
    /// The solver's table holds 2^`table_bits` entries of 32 bytes. It is kept from move to
    /// move, so what one move's proofs and solves leave in it is what lets the next move's
    /// proof finish: with `nn`'s proofs, a table four times the default answered twice the
    /// proofs at 38 free edges along recorded games, and yet won no more games
    /// (docs/players.md), so the default stays.
    pub table_bits: u32,
    /// `edges` is the engine's for the board played ([`ENGINE_REACH`]), this number on boards
    /// it does not list.
    pub edges_by_board: bool,
    /// The same for `prove_edges`.
    pub prove_edges_by_board: bool,
}

/// The engine's solver and proof ranges (`edges`, `prove_edges`) on the boards where they
/// measured better than 5x5's 34 and 40: the solver reaches further into a bigger board's game
/// (on 7x7 the exact outcome of the product's own positions took 8 ms at 46 free edges and 91
/// ms at 50, on 6x6 7 ms at 40; at 34 free edges on 5x5, 16 ms), docs/players.md.
pub const ENGINE_REACH: [(usize, usize, u32, u32); 2] = [(6, 6, 40, 46), (7, 7, 44, 50)];

impl EndgameConfig {
    /// Never solve.
    pub const OFF: EndgameConfig = EndgameConfig {
        edges: 0,
        nodes: 0,
        prove_edges: 0,
        prove_nodes: 0,
        table_bits: EndgameConfig::TABLE_BITS,
        edges_by_board: false,
        prove_edges_by_board: false,
    };

    /// The table's size unless a player says otherwise: 2^20 entries, 32 MB.
    pub const TABLE_BITS: u32 = 20;

    /// The table sizes a player may ask for (`solver_table=`): 2 MB to 2 GB.
    pub const TABLE_BITS_RANGE: std::ops::RangeInclusive<u32> = 16..=26;

    /// Positions a proof may search by default: about 150 ms on this machine (the solver
    /// searches some 7,000 positions a millisecond).
    pub const PROVE_NODES: u64 = 1_000_000;

    /// The rival's (QDab's "late in the game"): on 5x5 the solver answered every tested
    /// position with 30 free edges in milliseconds (see docs/players.md).
    pub const RIVAL: EndgameConfig = EndgameConfig::from_edges(30);

    /// The net-guided engine's: the solver's move from 34 free edges (18 ms a move on average,
    /// 39 at worst, in the same test; seeing the endgame four edges before the rival wins the
    /// empty-board match against it), and from 40 free edges a proof of a win for the player
    /// to move within 2M positions (about 300 ms; 176-124 over 300 games against the same
    /// engine without it at 300 ms a move, see docs/players.md). On the boards of
    /// [`ENGINE_REACH`], its ranges there.
    pub const ENGINE: EndgameConfig = EndgameConfig {
        prove_edges: 40,
        prove_nodes: 2_000_000,
        edges_by_board: true,
        prove_edges_by_board: true,
        ..EndgameConfig::from_edges(34)
    };

    /// The solver from `edges` free edges on, giving up past 4M positions for one move (the
    /// player's own method then answers).
    pub const fn from_edges(edges: u32) -> EndgameConfig {
        EndgameConfig {
            edges,
            nodes: 4_000_000,
            prove_edges: 0,
            prove_nodes: EndgameConfig::PROVE_NODES,
            table_bits: EndgameConfig::TABLE_BITS,
            edges_by_board: false,
            prove_edges_by_board: false,
        }
    }

    /// The settings on a `rows` x `cols` board: a range that follows the board is the
    /// engine's there.
    pub fn on_board(self, rows: usize, cols: usize) -> EndgameConfig {
        let Some(&(_, _, edges, prove_edges)) = ENGINE_REACH
            .iter()
            .find(|&&(r, c, _, _)| (r, c) == (rows, cols))
        else {
            return self;
        };
        EndgameConfig {
            edges: if self.edges_by_board {
                edges
            } else {
                self.edges
            },
            prove_edges: if self.prove_edges_by_board {
                prove_edges
            } else {
                self.prove_edges
            },
            ..self
        }
    }

    /// Whether free captures are taken and the solver (or a proof) is asked at all.
    pub fn is_on(&self) -> bool {
        self.edges > 0 || self.prove_edges > 0
    }
}

/// The solver and when to ask it. Its table is kept from move to move and cleared for each new
/// game ([`new_game`](Self::new_game)), so that whether the solver answers within its node
/// limit depends on the game alone and a game replays exactly.
pub struct ExactEndgame {
    pub config: EndgameConfig,
    solver: Option<EndgameSolver>,
    /// The time a proof may take, when the player has a clock (see [`Self::set_move_time`]).
    move_time: Option<std::time::Duration>,
}

impl ExactEndgame {
    pub fn new(config: EndgameConfig) -> ExactEndgame {
        ExactEndgame {
            config,
            solver: None,
            move_time: None,
        }
    }

    /// A player's time a move: a solve or a proof then searches at most the positions the
    /// solver gets through in that time ([`SOLVER_NODES_PER_MS`]), so a short clock is kept
    /// (`None`: only `nodes` and `prove_nodes` limit them).
    pub fn set_move_time(&mut self, time: Option<std::time::Duration>) {
        self.move_time = time;
    }

    /// Forgets the positions the previous game solved.
    pub fn new_game(&mut self) {
        if let Some(solver) = &mut self.solver {
            solver.clear();
        }
    }

    /// With the endgame on: a free capture, else the solver's move (see
    /// [`try_solve`](Self::try_solve)).
    pub fn try_move(&mut self, state: &DotsAndBoxes) -> Option<Action> {
        self.known_move(state).map(KnownMove::action)
    }

    /// [`try_move`](Self::try_move), saying which of the two the move is.
    pub fn known_move(&mut self, state: &DotsAndBoxes) -> Option<KnownMove> {
        if state.is_terminal() || !self.config.is_on() {
            return None;
        }
        match free_capture(state.geometry(), state.edges()) {
            Some(e) => Some(KnownMove::FreeCapture(e as Action)),
            None => self
                .try_solve(state)
                .map(KnownMove::Solved)
                .or_else(|| self.try_prove(state).map(KnownMove::Proven)),
        }
    }

    fn solver_for(&mut self, state: &DotsAndBoxes) -> &mut EndgameSolver {
        if self.solver.as_ref().is_some_and(|s| !s.fits(state)) {
            self.solver = None;
        }
        self.solver.get_or_insert_with(|| {
            EndgameSolver::new(state.rows(), state.cols(), self.config.table_bits)
        })
    }

    /// Above the solver's range and up to `prove_edges` free edges: a move that keeps a win
    /// the solver proves for the player to move within `prove_nodes`.
    pub fn try_prove(&mut self, state: &DotsAndBoxes) -> Option<Action> {
        let config = self.config.on_board(state.rows(), state.cols());
        let free = free_edges(state);
        if free <= config.edges || free > config.prove_edges || state.is_terminal() {
            return None;
        }
        let nodes = self.within_move_time(config.prove_nodes);
        let solver = self.solver_for(state);
        // One budget for the proof and the move after it: a win (not a draw) is asked for.
        let before = solver.nodes();
        if !solver.try_edges_at_least(state.edges(), 1 - state.lead_of_mover(), nodes)? {
            return None;
        }
        let left = nodes.saturating_sub(solver.nodes() - before).max(1);
        let win = crate::game::Outcome::win_for(state.to_move());
        solver.try_outcome_move(state, win, left)
    }

    /// The solver's move when the position is late enough and it answers within its limit.
    pub fn try_solve(&mut self, state: &DotsAndBoxes) -> Option<Action> {
        let config = self.config.on_board(state.rows(), state.cols());
        let free = free_edges(state);
        if free > config.edges || state.is_terminal() {
            return None;
        }
        let nodes = self.within_move_time(config.nodes);
        self.solver_for(state)
            .try_best_action(state, nodes)
            .map(|(a, _)| a)
    }

    /// `limit` nodes, or fewer when the player's time a move is shorter than the solver takes
    /// to search that many.
    fn within_move_time(&self, limit: u64) -> u64 {
        let by_time = self.move_time.map_or(u64::MAX, |t| {
            (t.as_millis() as u64).saturating_mul(SOLVER_NODES_PER_MS)
        });
        limit.min(by_time).max(1)
    }
}

/// A move that knowledge of the game gives without a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownMove {
    /// A capture that leads nowhere, taken at once.
    FreeCapture(Action),
    /// The exact solver's move.
    Solved(Action),
    /// A move that keeps a win the solver proved (`prove_edges`).
    Proven(Action),
    /// The only safe edge (with `safe_first`).
    OnlySafeEdge(Action),
}

impl KnownMove {
    pub fn action(self) -> Action {
        match self {
            KnownMove::FreeCapture(a)
            | KnownMove::Solved(a)
            | KnownMove::Proven(a)
            | KnownMove::OnlySafeEdge(a) => a,
        }
    }

    /// How the move was found, for people.
    pub fn describe(self) -> &'static str {
        match self {
            KnownMove::FreeCapture(_) => "a free capture",
            KnownMove::Solved(_) => "the exact solver's move",
            KnownMove::Proven(_) => "a move that keeps a win the solver proved",
            KnownMove::OnlySafeEdge(_) => "the only safe edge",
        }
    }
}

/// The knowledge the `nn` and `mcts` specs give a player (`solver_edges`, `safe_first`): first a
/// move proven without search, else the root moves the search should consider. Used by
/// [`KnowledgeAgent`] and by callers that drive a search themselves (the protocol).
pub struct DotsKnowledge {
    endgame: ExactEndgame,
    safe_first: bool,
}

impl Default for DotsKnowledge {
    /// No knowledge: every move is searched.
    fn default() -> DotsKnowledge {
        DotsKnowledge::new(EndgameConfig::OFF, false)
    }
}

impl DotsKnowledge {
    pub fn new(endgame: EndgameConfig, safe_first: bool) -> DotsKnowledge {
        DotsKnowledge {
            endgame: ExactEndgame::new(endgame),
            safe_first,
        }
    }

    /// Forgets the positions the previous game solved.
    pub fn new_game(&mut self) {
        self.endgame.new_game();
    }

    /// The player's time a move, which bounds a proof ([`ExactEndgame::set_move_time`]).
    pub fn set_move_time(&mut self, time: Option<std::time::Duration>) {
        self.endgame.set_move_time(time);
    }

    /// Changes the settings, keeping the solver's table.
    pub fn configure(&mut self, endgame: EndgameConfig, safe_first: bool) {
        self.endgame.config = endgame;
        self.safe_first = safe_first;
    }

    /// The move knowledge gives, if any: with the endgame on a free capture or the solver's
    /// move, else with `safe_first` the only safe edge. Otherwise `root_moves` holds the moves
    /// the search should consider (empty: all of them).
    pub fn known_move(
        &mut self,
        state: &DotsAndBoxes,
        root_moves: &mut Vec<Action>,
    ) -> Option<KnownMove> {
        root_moves.clear();
        if state.is_terminal() {
            return None;
        }
        if let Some(known) = self.endgame.known_move(state) {
            return Some(known);
        }
        if self.safe_first {
            safe_first_moves(state, root_moves);
            if let [only] = root_moves[..] {
                return Some(KnownMove::OnlySafeEdge(only));
            }
        }
        None
    }
}

/// The product's Dots-and-Boxes player: an MCTS player (plain or net-guided) with the knowledge
/// its spec asks for in front of its search.
pub struct KnowledgeAgent<R: RolloutPolicy<DotsAndBoxes>> {
    search: MctsAgent<DotsAndBoxes, R>,
    knowledge: DotsKnowledge,
    root_moves: Vec<Action>,
    /// Whether the last move came from the search (not the knowledge).
    searched: bool,
}

impl<R: RolloutPolicy<DotsAndBoxes>> KnowledgeAgent<R> {
    pub fn new(search: MctsAgent<DotsAndBoxes, R>, knowledge: DotsKnowledge) -> Self {
        KnowledgeAgent {
            search,
            knowledge,
            root_moves: Vec::new(),
            searched: false,
        }
    }
}

impl<R: RolloutPolicy<DotsAndBoxes>> Agent<DotsAndBoxes> for KnowledgeAgent<R> {
    fn name(&self) -> String {
        self.search.name()
    }

    fn knowledge(&self, start: &DotsAndBoxes) -> Option<String> {
        self.search.knowledge(start)
    }

    fn reseed(&mut self, seed: u64) {
        self.search.reseed(seed);
    }

    fn new_game(&mut self, start: &DotsAndBoxes, moves: &[Action]) -> Result<(), AgentError> {
        self.knowledge.new_game();
        self.search.new_game(start, moves)
    }

    fn choose(&mut self, state: &DotsAndBoxes, moves: &[Action]) -> Result<Choice, AgentError> {
        let start = std::time::Instant::now();
        let budget = self.search.budget();
        self.knowledge.set_move_time(budget.time);
        let known = self.knowledge.known_move(state, &mut self.root_moves);
        self.searched = known.is_none();
        if let Some(known) = known {
            return Ok(Choice::known(known.action(), known.describe()));
        }
        if let Some(time) = budget.time {
            self.search.set_budget(Budget {
                time: Some(time_after_knowledge(time, start.elapsed())),
                ..budget
            });
        }
        let choice = self.search.choose_among(state, moves, &self.root_moves);
        self.search.set_budget(budget);
        choice
    }

    fn last_search(&self) -> Option<&crate::mcts::SearchResult> {
        self.search.last_search().filter(|_| self.searched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's ranges are its own on the boards it lists and 5x5's elsewhere; a range a
    /// player fixes stays on every board.
    #[test]
    fn the_engines_ranges_follow_the_board_and_fixed_ones_stay() {
        let on = |config: EndgameConfig, rows, cols| {
            let c = config.on_board(rows, cols);
            (c.edges, c.prove_edges)
        };
        assert_eq!(on(EndgameConfig::ENGINE, 5, 5), (34, 40));
        assert_eq!(on(EndgameConfig::ENGINE, 6, 6), (40, 46));
        assert_eq!(on(EndgameConfig::ENGINE, 4, 6), (34, 40));
        assert_eq!(on(EndgameConfig::ENGINE, 7, 7), (44, 50));
        let fixed = EndgameConfig {
            edges: 30,
            edges_by_board: false,
            ..EndgameConfig::ENGINE
        };
        assert_eq!(on(fixed, 7, 7), (30, 50));
        assert_eq!(on(EndgameConfig::RIVAL, 7, 7), (30, 0));
        assert_eq!(on(EndgameConfig::OFF, 7, 7), (0, 0));
    }
}
