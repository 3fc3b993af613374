//! Amazons players: MCTS on either turn shape (MG or the whole-turn baseline) with shallow
//! rollouts, the alpha-beta rival, and greedy (best evaluation after one turn).
//!
//! Every player thinks in whole turns and plays in whatever shape the game has: in a split game
//! a player that chose a whole turn returns its queen move and keeps the arrow for the next
//! ply; in a whole-turn game an MG search answers the whole turn.

use std::time::{Duration, Instant};

use super::eval::{EvalWeights, Evaluator};
use super::rollout::{Backup, EvalRollout};
use super::{Amazons, Turn, TurnShape};
use crate::agents::{Agent, AgentError, Choice};
use crate::game::{Action, Game, Player};
use crate::mcts::{Search, SearchConfig, SearchResult, Ucb};
use crate::rng::{derive_seed, Rng};

impl Amazons {
    /// The same position with turns of another shape (no arrow may be due for `Whole`).
    pub fn with_shape(&self, shape: TurnShape) -> Amazons {
        debug_assert!(shape == TurnShape::Split || self.pending.is_none());
        Amazons { shape, ..*self }
    }

    /// The plies of a whole turn in this game's shape.
    pub fn turn_plies(&self, turn: Turn) -> Vec<Action> {
        match self.shape {
            TurnShape::Whole => vec![self.whole_id(turn)],
            TurnShape::Split => vec![self.queen_id(turn.from, turn.to), self.arrow_id(turn.arrow)],
        }
    }

    /// The best arrow for the amazon whose arrow is due, by the evaluation (a fallback when a
    /// search did not reach the arrow).
    pub fn best_arrow(&self, evaluator: &Evaluator) -> Option<u32> {
        let (to, _) = self.pending?;
        let me = self.to_move;
        let mut best = None;
        for arrow in super::board::BitIter(self.geo.queen_reach(to as u32, self.empty())) {
            let mut next = *self;
            next.apply(self.arrow_id(arrow));
            let v = evaluator.value_for(&next, me);
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((arrow, v));
            }
        }
        best.map(|(a, _)| a)
    }
}

/// The arrow a player chose with its queen move, kept for the next ply of a split game.
#[derive(Default)]
struct PlannedArrow {
    /// The position after the queen move, and the arrow.
    planned: Option<(Amazons, Action)>,
}

impl PlannedArrow {
    /// The planned arrow if `state` is the position it was planned for.
    fn take(&mut self, state: &Amazons) -> Option<Action> {
        match self.planned.take() {
            Some((at, arrow)) if at == *state && state.is_legal(arrow) => Some(arrow),
            _ => None,
        }
    }

    /// The planned arrow, or (when the queen move was not this player's plan) the arrow with
    /// the best evaluation.
    fn arrow_or_best(
        &mut self,
        state: &Amazons,
        evaluator: &Evaluator,
    ) -> Result<Choice, AgentError> {
        if let Some(arrow) = self.take(state) {
            return Ok(Choice::plain(arrow));
        }
        let arrow = state
            .best_arrow(evaluator)
            .ok_or_else(|| AgentError::new("no arrow to shoot"))?;
        Ok(Choice::plain(state.arrow_id(arrow)))
    }

    /// The first ply of `turn` in `state`'s shape, keeping the arrow of a split game.
    fn first_ply(&mut self, state: &Amazons, turn: Turn) -> Action {
        let plies = state.turn_plies(turn);
        if let [queen, arrow] = plies[..] {
            let mut after = *state;
            after.apply(queen);
            self.planned = Some((after, arrow));
        }
        plies[0]
    }
}

/// How an Amazons MCTS player searches.
#[derive(Clone, Debug, PartialEq)]
pub struct AmazonsMctsConfig {
    pub search: SearchConfig,
    /// Split: Move Groups (queen move and arrow as two tree levels); Whole: one node a turn.
    pub shape: TurnShape,
    /// Random whole turns in a rollout before the evaluation.
    pub depth: u32,
    pub backup: Backup,
    pub weights: EvalWeights,
    /// Parallel Evaluation: every evaluation split with a helper thread (per search thread).
    pub parallel_eval: bool,
    /// Expansion evaluates every new child instead of playing a rollout from one.
    pub evaluate_children: bool,
    /// Each search keeps the subtree of the position it starts from that the last search of
    /// the game grew (tree reuse), instead of starting afresh.
    pub reuse_tree: bool,
}

impl AmazonsMctsConfig {
    /// The exploration constant of the Amazons search unless a spec sets `cp`: with every
    /// child evaluated at expansion the search should trust its values (measured: see
    /// docs/amazons.md).
    pub const DEFAULT_CP: f64 = 0.1;

    /// The product's Amazons search: Move Groups, every child evaluated at expansion with the
    /// corrected evaluation ([`EvalWeights::corrected`]), its win probability backed up. `search.cp` at the generic default
    /// ([`Ucb::DEFAULT_CP`]) is read as unset and becomes [`Self::DEFAULT_CP`].
    pub fn new(mut search: SearchConfig) -> AmazonsMctsConfig {
        if search.cp == Ucb::DEFAULT_CP {
            search.cp = AmazonsMctsConfig::DEFAULT_CP;
        }
        AmazonsMctsConfig {
            search,
            shape: TurnShape::Split,
            depth: EvalRollout::DEFAULT_DEPTH,
            backup: Backup::Expected {
                scale: Backup::DEFAULT_SCALE,
            },
            weights: EvalWeights::corrected(),
            parallel_eval: false,
            evaluate_children: true,
            reuse_tree: true,
        }
    }

    /// The paper's MCTS: children expanded in random order, one shallow rollout from the
    /// first, the paper's evaluation and its sign backed up, the generic exploration constant.
    pub fn paper(search: SearchConfig) -> AmazonsMctsConfig {
        let cp = search.cp;
        let mut config = AmazonsMctsConfig::new(search);
        config.search.cp = cp;
        config.backup = Backup::Sign;
        config.evaluate_children = false;
        config.reuse_tree = false;
        config.weights = EvalWeights::paper();
        config
    }

    pub fn rollout(&self) -> EvalRollout {
        let mut rollout = EvalRollout::new(self.depth, self.weights, self.backup)
            .with_parallel(self.parallel_eval);
        rollout.evaluate_children = self.evaluate_children;
        rollout
    }
}

/// MCTS with shallow rollouts on either turn shape.
pub struct AmazonsMcts {
    name: String,
    config: AmazonsMctsConfig,
    search: Search<Amazons, Ucb, EvalRollout>,
    seed: u64,
    games: u64,
    planned: PlannedArrow,
    evaluator: Evaluator,
    /// The position of this game's last search (in the game's shape) and the moves played
    /// before it, for tree reuse.
    last_search: Option<(Amazons, usize)>,
    /// The search behind the last choice, when there was one in the game's own shape (its
    /// root moves are then the game's actions).
    last_result: Option<SearchResult>,
}

impl AmazonsMcts {
    pub fn new(name: impl Into<String>, config: AmazonsMctsConfig) -> AmazonsMcts {
        let search = Search::new(
            config.search.clone(),
            Ucb::new(config.search.cp),
            config.rollout(),
        );
        AmazonsMcts {
            name: name.into(),
            seed: config.search.seed,
            evaluator: Evaluator::new(config.weights),
            config,
            search,
            games: 0,
            planned: PlannedArrow::default(),
            last_search: None,
            last_result: None,
        }
    }

    /// Searches `state` (a turn's start) in the player's shape: the whole turn it chose, and the
    /// search behind it.
    pub fn search_turn(
        &mut self,
        state: &Amazons,
        move_number: u64,
    ) -> Result<(Turn, SearchResult), String> {
        self.search_turn_along(state, move_number, None)
    }

    /// [`search_turn`](Self::search_turn) for the turn after `moves` (the game's plies from its
    /// start), keeping what the last search of this game learnt below `state` (tree reuse,
    /// unless `reuse=0`).
    pub fn search_next_turn(
        &mut self,
        state: &Amazons,
        moves: &[Action],
    ) -> Result<(Turn, SearchResult), String> {
        let path = match (self.config.reuse_tree, &self.last_search) {
            (true, Some((last, played))) => moves
                .get(*played..)
                .and_then(|since| plies_in_shape(last, since, self.config.shape))
                .filter(|(reached, _)| reached == state)
                .map(|(_, path)| path),
            _ => None,
        };
        let searched = self.search_turn_along(state, moves.len() as u64, path.as_deref())?;
        self.last_search = Some((*state, moves.len()));
        Ok(searched)
    }

    /// Sets the budget of the next searches.
    pub fn set_budget(&mut self, budget: crate::mcts::Budget) {
        self.config.search.budget = budget;
        self.search.set_budget(budget);
    }

    /// [`search_turn`](Self::search_turn), keeping the last search's subtree at the end of
    /// `path` (the plies from its root, in this player's shape) when there is one.
    fn search_turn_along(
        &mut self,
        state: &Amazons,
        move_number: u64,
        path: Option<&[Action]>,
    ) -> Result<(Turn, SearchResult), String> {
        let seed = derive_seed(derive_seed(self.seed, self.games), move_number);
        self.search.set_seed(seed);
        let root = state.with_shape(self.config.shape);
        let result = match path {
            Some(path) => self.search.run_continuing(&root, path),
            None => self.search.run(&root),
        }
        .map_err(|e| e.to_string())?;
        let turn = match self.config.shape {
            TurnShape::Whole => root.decode_whole(result.best).expect("a legal whole turn"),
            TurnShape::Split => {
                let mut after = root;
                after.apply(result.best);
                let (to, from) = after.pending().expect("an arrow is due after a queen move");
                let arrow = match result.reply {
                    Some(a) => after.geometry().bit_of[a as usize] as u32,
                    None => after
                        .best_arrow(&self.evaluator)
                        .expect("an amazon that moved can shoot back"),
                };
                Turn { from, to, arrow }
            }
        };
        Ok((turn, result))
    }
}

impl Agent<Amazons> for AmazonsMcts {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reseed(&mut self, seed: u64) {
        self.seed = seed;
        self.games = 0;
    }

    fn new_game(&mut self, _start: &Amazons, _moves: &[Action]) -> Result<(), AgentError> {
        self.games += 1;
        self.planned = PlannedArrow::default();
        self.last_search = None;
        self.last_result = None;
        Ok(())
    }

    fn choose(&mut self, state: &Amazons, moves: &[Action]) -> Result<Choice, AgentError> {
        self.last_result = None;
        if state.mid_turn() {
            if let Some(arrow) = self.planned.take(state) {
                return Ok(Choice::plain(arrow));
            }
            // The queen move was not ours to plan: search the arrow itself.
            let result = self
                .search
                .run(state)
                .map_err(|e| AgentError::new(e.to_string()))?;
            let choice = Choice::searched(&result);
            self.last_result = Some(result);
            return Ok(choice);
        }
        let (turn, result) = self
            .search_next_turn(state, moves)
            .map_err(AgentError::new)?;
        let choice = Choice {
            action: self.planned.first_ply(state, turn),
            ..Choice::searched(&result)
        };
        if self.config.shape == state.shape() {
            self.last_result = Some(result);
        }
        Ok(choice)
    }

    fn last_search(&self) -> Option<&SearchResult> {
        self.last_result.as_ref()
    }
}

/// The position `plies` (in `from`'s shape) lead to from `from`, and the same moves as actions
/// of a game of `shape`; `None` if a ply is illegal or the plies end in the middle of a turn.
pub(crate) fn plies_in_shape(
    from: &Amazons,
    plies: &[Action],
    shape: TurnShape,
) -> Option<(Amazons, Vec<Action>)> {
    let mut state = *from;
    let mut path = Vec::with_capacity(plies.len());
    let mut turn_start = state;
    for &ply in plies {
        if !state.is_legal(ply) {
            return None;
        }
        let before = state;
        state.apply(ply);
        let turn = match from.shape() {
            TurnShape::Whole => before.decode_whole(ply),
            // The queen half: wait for the arrow.
            TurnShape::Split if before.pending().is_none() => {
                turn_start = before;
                continue;
            }
            TurnShape::Split => {
                let (to, from) = before.pending()?;
                let arrow = (state.arrows() & !before.arrows()).trailing_zeros();
                Some(Turn { from, to, arrow })
            }
        }?;
        let start = if from.shape() == TurnShape::Whole {
            before
        } else {
            turn_start
        };
        path.extend(start.with_shape(shape).turn_plies(turn));
    }
    (!state.mid_turn()).then_some((state, path))
}

/// Iterative-deepening alpha-beta (negamax) over whole turns with the same evaluation: the rival
/// an Amazons player knows. Interior nodes order their turns by the evaluation one turn on; the
/// root keeps the order of the last finished depth.
pub struct AlphaBeta {
    name: String,
    time: Duration,
    max_depth: u32,
    evaluator: Evaluator,
    planned: PlannedArrow,
    rng: Rng,
    /// Per depth, the turns of the node being searched there (reused, no allocation once grown).
    buffers: Vec<Vec<(f32, Turn)>>,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
}

const WIN: f32 = 1.0e6;

impl AlphaBeta {
    pub fn new(name: impl Into<String>, time: Duration, max_depth: u32, seed: u64) -> AlphaBeta {
        AlphaBeta {
            name: name.into(),
            time,
            max_depth: max_depth.max(1),
            evaluator: Evaluator::default(),
            planned: PlannedArrow::default(),
            rng: Rng::new(seed),
            buffers: Vec::new(),
            nodes: 0,
            deadline: None,
            stopped: false,
        }
    }

    pub fn with_weights(mut self, weights: EvalWeights) -> AlphaBeta {
        self.evaluator = Evaluator::new(weights);
        self
    }

    /// The best whole turn from `state` (a turn's start) and the depth it was searched to.
    pub fn best_turn(&mut self, state: &Amazons) -> Option<(Turn, u32)> {
        let root = state.with_shape(TurnShape::Whole);
        let me = root.to_move();
        let mut turns = Vec::new();
        root.whole_turns(&mut turns);
        if turns.is_empty() {
            return None;
        }
        self.nodes = 0;
        self.stopped = false;
        self.deadline = Some(Instant::now() + self.time);
        // Depth 1 in full (it is also the ordering), random among equals.
        let mut scored: Vec<(f32, Turn)> = turns
            .iter()
            .map(|&t| {
                let mut next = root;
                next.play_turn(t);
                let v = if next.is_terminal() {
                    WIN
                } else {
                    self.evaluator.value_for(&next, me)
                };
                (v + self.rng.unit_f64() as f32 * 1e-4, t)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut best = (scored[0].1, 1);
        for depth in 2..=self.max_depth {
            let mut alpha = -f32::INFINITY;
            let mut rescored = Vec::with_capacity(scored.len());
            for &(_, t) in &scored {
                let mut next = root;
                next.play_turn(t);
                let v = -self.negamax(&next, depth - 1, 1, -f32::INFINITY, -alpha);
                if self.stopped {
                    break;
                }
                alpha = alpha.max(v);
                rescored.push((v, t));
            }
            if self.stopped {
                // A partial depth still helps when its first, principal, move was searched.
                if let Some(&(v, t)) = rescored.iter().max_by(|a, b| a.0.total_cmp(&b.0)) {
                    if v > -WIN / 2.0 && rescored.len() > 1 {
                        best = (t, depth);
                    }
                }
                break;
            }
            rescored.sort_by(|a, b| b.0.total_cmp(&a.0));
            best = (rescored[0].1, depth);
            // Only the best move's value is exact; the rest are bounds, good enough to order.
            scored = rescored;
            if scored[0].0 >= WIN / 2.0 {
                break;
            }
        }
        Some(best)
    }

    fn negamax(&mut self, pos: &Amazons, depth: u32, ply: usize, mut alpha: f32, beta: f32) -> f32 {
        self.nodes += 1;
        // Every node: a node near the frontier evaluates every turn (thousands of evaluations,
        // milliseconds), so the clock costs nothing beside it and the budget is kept.
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = true;
        }
        if self.stopped {
            return 0.0;
        }
        let me = pos.to_move();
        if !pos.can_move(me) {
            return -WIN + ply as f32;
        }
        if depth == 0 {
            return self.evaluator.value_for(pos, me);
        }
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
        }
        let mut list = std::mem::take(&mut self.buffers[ply]);
        list.clear();
        let empty = pos.empty();
        let geo = pos.geometry();
        for from in super::board::BitIter(pos.pieces(me)) {
            for to in super::board::BitIter(geo.queen_reach(from, empty)) {
                let after = (empty | (1 << from)) & !(1 << to);
                for arrow in super::board::BitIter(geo.queen_reach(to, after)) {
                    list.push((0.0, Turn { from, to, arrow }));
                }
            }
        }
        let mut best = -f32::INFINITY;
        if depth == 1 {
            // The frontier: every child is evaluated anyway, so no ordering.
            for &(_, t) in &list {
                let mut next = *pos;
                next.play_turn(t);
                let v = if next.can_move(next.to_move()) {
                    self.evaluator.value_for(&next, me)
                } else {
                    WIN - ply as f32
                };
                best = best.max(v);
                if best >= beta {
                    break;
                }
            }
        } else {
            for entry in list.iter_mut() {
                let mut next = *pos;
                next.play_turn(entry.1);
                entry.0 = self.evaluator.value_for(&next, me);
            }
            list.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            for &(_, t) in &list {
                let mut next = *pos;
                next.play_turn(t);
                let v = -self.negamax(&next, depth - 1, ply + 1, -beta, -alpha);
                if self.stopped {
                    break;
                }
                best = best.max(v);
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        self.buffers[ply] = list;
        best
    }
}

impl Agent<Amazons> for AlphaBeta {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    fn new_game(&mut self, _start: &Amazons, _moves: &[Action]) -> Result<(), AgentError> {
        self.planned = PlannedArrow::default();
        Ok(())
    }

    fn choose(&mut self, state: &Amazons, _moves: &[Action]) -> Result<Choice, AgentError> {
        if state.mid_turn() {
            return self.planned.arrow_or_best(state, &self.evaluator);
        }
        let (turn, _) = self
            .best_turn(state)
            .ok_or_else(|| AgentError::new("no legal turn"))?;
        Ok(Choice {
            iterations: self.nodes,
            ..Choice::plain(self.planned.first_ply(state, turn))
        })
    }
}

/// The turn with the best evaluation one turn on (random among equals).
pub struct Greedy {
    evaluator: Evaluator,
    rng: Rng,
    planned: PlannedArrow,
    turns: Vec<Turn>,
}

impl Greedy {
    pub fn new(seed: u64) -> Greedy {
        Greedy {
            evaluator: Evaluator::default(),
            rng: Rng::new(seed),
            planned: PlannedArrow::default(),
            turns: Vec::new(),
        }
    }

    pub fn with_weights(mut self, weights: EvalWeights) -> Greedy {
        self.evaluator = Evaluator::new(weights);
        self
    }

    pub fn best_turn(&mut self, state: &Amazons) -> Option<Turn> {
        let root = state.with_shape(TurnShape::Whole);
        let me: Player = root.to_move();
        root.whole_turns(&mut self.turns);
        let mut best: Option<(f32, u32, Turn)> = None;
        let mut ties = 0u32;
        for &t in &self.turns {
            let mut next = root;
            next.play_turn(t);
            let v = if next.is_terminal() {
                WIN
            } else {
                self.evaluator.value_for(&next, me)
            };
            match best {
                Some((b, _, _)) if v < b => {}
                Some((b, _, _)) if v == b => {
                    ties += 1;
                    if self.rng.below(ties + 1) == 0 {
                        best = Some((v, ties, t));
                    }
                }
                _ => {
                    ties = 0;
                    best = Some((v, 0, t));
                }
            }
        }
        best.map(|(_, _, t)| t)
    }
}

impl Agent<Amazons> for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    fn new_game(&mut self, _start: &Amazons, _moves: &[Action]) -> Result<(), AgentError> {
        self.planned = PlannedArrow::default();
        Ok(())
    }

    fn choose(&mut self, state: &Amazons, _moves: &[Action]) -> Result<Choice, AgentError> {
        if state.mid_turn() {
            return self.planned.arrow_or_best(state, &self.evaluator);
        }
        let turn = self
            .best_turn(state)
            .ok_or_else(|| AgentError::new("no legal turn"))?;
        Ok(Choice::plain(self.planned.first_ply(state, turn)))
    }
}
