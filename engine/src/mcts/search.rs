//! The search itself: one tree per worker thread (root parallelisation), merged at the root.

use std::time::{Duration, Instant};

use super::node::{Node, Reward, Tree, BYTES_PER_NODE};
use super::policy::{RandomRollout, RolloutPolicy, RolloutStats, TreePolicy, Ucb};
use crate::game::{Action, Game, Outcome, Player};
use crate::rng::{derive_seed, Rng};

/// How results are read during selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CounterMode {
    /// The paper's fix: every node is read from the view of the player who chooses at its
    /// parent, which in Dots and Boxes may be the same player as at the child.
    #[default]
    Double,
    /// The paper's first version (its Table 3): every node is read from the root player's view,
    /// so the search assumes the opponent plays for the root player too.
    Single,
}

/// When to stop: after `iterations` (in total, over all threads), after `time` (wall clock),
/// or at whichever comes first when both are set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub iterations: Option<u64>,
    pub time: Option<Duration>,
}

impl Budget {
    pub fn iterations(n: u64) -> Budget {
        Budget {
            iterations: Some(n),
            time: None,
        }
    }

    pub fn time(t: Duration) -> Budget {
        Budget {
            iterations: None,
            time: Some(t),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// The UCB exploration constant (see [`Ucb`] for the default and why).
    pub cp: f64,
    pub counter: CounterMode,
    pub budget: Budget,
    /// Independent trees searched in parallel and merged at the root.
    pub threads: usize,
    /// Base seed. Search number k of a `Search` uses seeds derived from (seed, k), so a game
    /// played by one `Search` is reproducible, and so is a single search from a fresh one.
    pub seed: u64,
    /// A tree stops growing (iterations go on, as rollouts from its leaves) at this many nodes.
    pub max_nodes: usize,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            cp: Ucb::DEFAULT_CP,
            counter: CounterMode::Double,
            budget: Budget::iterations(100_000),
            threads: 1,
            seed: 0,
            // 16M nodes of 28 bytes: 450 MB a tree, reached only by long timed searches.
            max_nodes: 16 << 20,
        }
    }
}

/// Statistics of one root move, merged over all threads.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct RootMove {
    pub action: Action,
    pub visits: u64,
    /// Playouts whose reward favoured each side (wins, when every playout ends in a result).
    pub p1_wins: u64,
    pub p2_wins: u64,
    /// The sum of the rewards from P1's view: `p1_wins - p2_wins` when every playout ended in
    /// a result, an evaluation's expectations otherwise.
    pub score_p1: f64,
}

impl RootMove {
    /// Mean reward from `player`'s view, in [-1, 1]: wins minus losses over visits when every
    /// playout ended in a result.
    pub fn value_for(&self, player: Player) -> f64 {
        mean_score(self.score_p1, self.visits, player)
    }
}

/// Mean result of `visits` rollouts with these win counts, from `player`'s view:
/// (wins - losses) / visits, in [-1, 1]; 0 without visits.
pub fn mean_result(p1_wins: u64, p2_wins: u64, visits: u64, player: Player) -> f64 {
    mean_score(p1_wins as f64 - p2_wins as f64, visits, player)
}

/// `score_p1` (a sum of rewards from P1's view) over `visits`, from `player`'s view; 0 without
/// visits.
fn mean_score(score_p1: f64, visits: u64, player: Player) -> f64 {
    if visits == 0 {
        return 0.0;
    }
    let d = if player == Player::P1 {
        score_p1
    } else {
        -score_p1
    };
    d / visits as f64
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move chosen: most visits; among equals the higher value for the player to move;
    /// among those the lowest id. (Most visits is the robust choice: the move the search trusted
    /// most, never one with a lucky mean from a handful of visits.)
    pub best: Action,
    /// The player to move at the root.
    pub to_move: Player,
    pub iterations: u64,
    pub elapsed: Duration,
    /// Nodes in all trees at the end.
    pub tree_nodes: u64,
    pub threads: usize,
    /// Every root move, in ascending action order.
    pub root_moves: Vec<RootMove>,
    /// What the rollouts did, over all threads (net evaluations and cut-offs for a net-guided
    /// search).
    pub rollouts: RolloutStats,
    /// When the player to move moves again after `best` (a turn of several plies), the search's
    /// most visited next ply of that player, if the tree reached it.
    pub reply: Option<Action>,
}

impl SearchResult {
    pub fn iterations_per_second(&self) -> f64 {
        self.iterations as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Bytes of tree memory used, over all threads.
    pub fn tree_bytes(&self) -> u64 {
        self.tree_nodes * BYTES_PER_NODE as u64
    }

    /// The root statistics of the chosen move.
    pub fn best_move(&self) -> &RootMove {
        self.root_moves
            .iter()
            .find(|m| m.action == self.best)
            .expect("the best move is a root move")
    }
}

/// Why a search could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchError {
    GameOver,
    NoBudget,
}

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SearchError::GameOver => write!(f, "the game is over: there is no move to search"),
            SearchError::NoBudget => {
                write!(f, "the search needs a budget: iterations, time, or both")
            }
        }
    }
}

impl std::error::Error for SearchError {}

/// A reusable searcher: keeps one tree arena per thread between searches.
pub struct Search<G: Game, T: TreePolicy = Ucb, R: RolloutPolicy<G> = RandomRollout> {
    config: SearchConfig,
    workers: Vec<Worker<G, T, R>>,
    searches: u64,
}

impl<G: Game> Search<G> {
    /// Plain MCTS: UCB selection with `config.cp`, random rollouts.
    pub fn plain(config: SearchConfig) -> Search<G> {
        let ucb = Ucb::new(config.cp);
        Search::new(config, ucb, RandomRollout)
    }
}

impl<G: Game, T: TreePolicy, R: RolloutPolicy<G>> Search<G, T, R> {
    pub fn new(config: SearchConfig, tree_policy: T, rollout: R) -> Search<G, T, R> {
        let threads = config.threads.max(1);
        let workers = (0..threads)
            .map(|_| Worker {
                _game: std::marker::PhantomData,
                tree_policy: tree_policy.clone(),
                rollout: rollout.clone(),
                tree: Tree::default(),
                path: Vec::new(),
                actions: Vec::new(),
                rewards: Vec::new(),
                biases: Vec::new(),
                ranked: Vec::new(),
                continue_along: None,
                scratch: Tree::default(),
                rng: Rng::new(0),
                rollouts: 0,
                root_actions: Vec::new(),
            })
            .collect();
        Search {
            config,
            workers,
            searches: 0,
        }
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Sets the budget of the next searches.
    pub fn set_budget(&mut self, budget: Budget) {
        self.config.budget = budget;
    }

    /// Sets the base seed; the next search is seeded as the first search of a fresh `Search`.
    pub fn set_seed(&mut self, seed: u64) {
        self.config.seed = seed;
        self.searches = 0;
    }

    /// The rollout policies of the workers (for policies that count things).
    pub fn rollout_policies(&self) -> impl Iterator<Item = &R> {
        self.workers.iter().map(|w| &w.rollout)
    }

    /// Searches `root` and returns the merged root statistics and the chosen move.
    pub fn run(&mut self, root: &G) -> Result<SearchResult, SearchError> {
        self.run_among(root, &[])
    }

    /// [`run`](Self::run) from a position reached by `path` (actions) from the last search's
    /// root: each tree keeps what it had learnt below that node (tree reuse) and grows on from
    /// there. Without such a node (another game, a path the tree never expanded) the search
    /// starts afresh.
    pub fn run_continuing(
        &mut self,
        root: &G,
        path: &[Action],
    ) -> Result<SearchResult, SearchError> {
        self.search(root, &[], Some(path))
    }

    /// [`run`](Self::run) with the root's moves restricted to `allowed` (all legal moves when
    /// empty): for players that search only the moves their knowledge leaves.
    pub fn run_among(&mut self, root: &G, allowed: &[Action]) -> Result<SearchResult, SearchError> {
        self.search(root, allowed, None)
    }

    fn search(
        &mut self,
        root: &G,
        allowed: &[Action],
        path: Option<&[Action]>,
    ) -> Result<SearchResult, SearchError> {
        debug_assert!(
            allowed.iter().all(|&a| root.is_legal(a)) && allowed.windows(2).all(|w| w[0] < w[1]),
            "root moves must be legal, in ascending order, each once"
        );
        for w in &mut self.workers {
            w.root_actions.clear();
            w.root_actions.extend_from_slice(allowed);
            w.continue_along = path.map(|p| p.to_vec());
        }
        if root.is_terminal() {
            return Err(SearchError::GameOver);
        }
        let budget = self.config.budget;
        if budget.iterations.is_none() && budget.time.is_none() {
            return Err(SearchError::NoBudget);
        }
        let search_seed = derive_seed(self.config.seed, self.searches);
        self.searches += 1;
        let threads = self.workers.len();
        let start = Instant::now();
        let deadline = budget.time.map(|t| start + t);
        let share = |i: usize| {
            budget.iterations.map(|n| {
                let n_threads = threads as u64;
                n / n_threads + u64::from((i as u64) < n % n_threads)
            })
        };
        let counter = self.config.counter;
        let max_nodes = self.config.max_nodes.max(2);
        let stop = super::stop::current();
        let stop = stop.as_deref();
        let outputs: Vec<WorkerOutput> = if threads == 1 {
            let w = &mut self.workers[0];
            vec![w.run(
                root,
                share(0),
                (deadline, stop),
                derive_seed(search_seed, 0),
                counter,
                max_nodes,
            )]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .workers
                    .iter_mut()
                    .enumerate()
                    .map(|(i, w)| {
                        let limit = share(i);
                        let seed = derive_seed(search_seed, i as u64);
                        scope.spawn(move || {
                            w.run(root, limit, (deadline, stop), seed, counter, max_nodes)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("search thread panicked"))
                    .collect()
            })
        };
        let elapsed = start.elapsed();
        let mut result = merge(root.to_move(), outputs, elapsed, threads);
        result.reply = self.reply(root, result.best);
        Ok(result)
    }

    /// When the player to move at the root moves again after `best` (a second ply of the
    /// same turn), the most visited of `best`'s children over all trees: the rest of the
    /// turn as the search sees it.
    fn reply(&self, root: &G, best: Action) -> Option<Action> {
        let mut after = root.clone();
        after.apply(best);
        if after.is_terminal() || after.to_move() != root.to_move() {
            return None;
        }
        let mut visits: Vec<(Action, u64)> = Vec::new();
        for w in &self.workers {
            let tree = &w.tree;
            let Some(root_node) = tree.nodes.first().filter(|n| n.is_expanded()) else {
                continue;
            };
            let first = root_node.first_child as usize;
            let children = &tree.nodes[first..first + root_node.num_children as usize];
            let Some(child) = children.iter().find(|c| c.action == best) else {
                continue;
            };
            if !child.is_expanded() {
                continue;
            }
            let first = child.first_child as usize;
            for g in &tree.nodes[first..first + child.num_children as usize] {
                match visits.iter_mut().find(|(a, _)| *a == g.action) {
                    Some((_, v)) => *v += g.visits as u64,
                    None => visits.push((g.action, g.visits as u64)),
                }
            }
        }
        visits
            .into_iter()
            .filter(|&(_, v)| v > 0)
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(a, _)| a)
    }
}

fn merge(
    to_move: Player,
    outputs: Vec<WorkerOutput>,
    elapsed: Duration,
    threads: usize,
) -> SearchResult {
    let mut root_moves: Vec<RootMove> = Vec::new();
    let mut iterations = 0;
    let mut tree_nodes = 0;
    let mut rollouts = RolloutStats::default();
    for out in outputs {
        iterations += out.iterations;
        tree_nodes += out.nodes as u64;
        rollouts.add(out.rollouts);
        for (child, score_p1) in out.root_children {
            match root_moves.iter_mut().find(|m| m.action == child.action) {
                Some(m) => {
                    m.visits += child.visits as u64;
                    m.p1_wins += child.p1_wins as u64;
                    m.p2_wins += child.p2_wins as u64;
                    m.score_p1 += score_p1;
                }
                None => root_moves.push(RootMove {
                    action: child.action,
                    visits: child.visits as u64,
                    p1_wins: child.p1_wins as u64,
                    p2_wins: child.p2_wins as u64,
                    score_p1,
                }),
            }
        }
    }
    root_moves.sort_by_key(|m| m.action);
    let best = root_moves
        .iter()
        .max_by(|a, b| {
            a.visits
                .cmp(&b.visits)
                .then(a.value_for(to_move).total_cmp(&b.value_for(to_move)))
                .then(b.action.cmp(&a.action))
        })
        .expect("a non-terminal root has moves")
        .action;
    SearchResult {
        best,
        to_move,
        iterations,
        elapsed,
        tree_nodes,
        threads,
        root_moves,
        rollouts,
        reply: None,
    }
}

struct WorkerOutput {
    iterations: u64,
    nodes: usize,
    /// The root's children and the sum of their rewards from P1's view.
    root_children: Vec<(Node, f64)>,
    rollouts: RolloutStats,
}

/// One tree and the buffers its iterations reuse.
struct Worker<G: Game, T, R> {
    _game: std::marker::PhantomData<fn() -> G>,
    tree_policy: T,
    rollout: R,
    tree: Tree,
    path: Vec<u32>,
    actions: Vec<Action>,
    /// The children's rewards of an expansion, when the rollout policy gives them.
    rewards: Vec<Reward>,
    /// The children's selection biases of an expansion, when the rollout policy gives them.
    biases: Vec<f32>,
    /// (reward for the player to move, action), sorted best first.
    ranked: Vec<(f32, Action)>,
    /// The actions from the last search's root to this search's root, when the caller asks
    /// to keep the subtree there.
    continue_along: Option<Vec<Action>>,
    /// The old tree while the kept subtree is copied out of it.
    scratch: Tree,
    rng: Rng,
    /// Rollouts played in the current search.
    rollouts: u64,
    /// The root's moves when restricted (empty: all legal moves).
    root_actions: Vec<Action>,
}

/// Iterations between two looks at the clock.
const CLOCK_EVERY: u64 = 64;

impl<G: Game, T: TreePolicy, R: RolloutPolicy<G>> Worker<G, T, R> {
    fn run(
        &mut self,
        root: &G,
        limit: Option<u64>,
        (deadline, stop): (Option<Instant>, Option<&std::sync::atomic::AtomicBool>),
        seed: u64,
        counter: CounterMode,
        max_nodes: usize,
    ) -> WorkerOutput {
        self.rng = Rng::new(seed);
        let kept = match self.continue_along.take() {
            Some(path) if self.root_actions.is_empty() => self.tree.follow(&path),
            _ => None,
        };
        match kept {
            Some(index) => self.tree.reroot(index, &mut self.scratch),
            None => {
                self.tree.clear();
                self.tree.set_biased(self.rollout.gives_bias());
            }
        }
        if let Some(n) = limit {
            // About two nodes per iteration at most, plus the last expansions' children.
            let want = (n as usize).saturating_mul(2).min(max_nodes) + 1024;
            self.tree.reserve(want);
        }
        if self.tree.is_empty() {
            self.tree.push(Node::leaf(0));
        }
        self.actions.reserve(root.max_actions());
        self.rollouts = 0;
        self.rollout.take_stats();
        self.rollout.begin_search(root);
        let root_player = root.to_move();
        root.legal_actions(&mut self.actions);
        let narrowable = self.actions.len() > 1;
        let mut iterations = 0u64;
        loop {
            if let Some(n) = limit {
                if iterations >= n {
                    break;
                }
            }
            if iterations % CLOCK_EVERY == 0
                && (deadline.is_some_and(|d| Instant::now() >= d) || super::stop::raised(stop))
            {
                break;
            }
            self.iterate(root, root_player, counter, max_nodes);
            iterations += 1;
            // The policy's knowledge left one move of several (a forced reply): searching on
            // cannot change the choice. (A root with a single legal move is still searched to
            // its budget, so that self-play records keep their iteration counts.)
            if iterations <= 2
                && narrowable
                && self.tree.nodes[0].is_expanded()
                && self.tree.nodes[0].num_children == 1
            {
                break;
            }
        }
        let root_node = self.tree.nodes[0];
        let root_children = if root_node.is_expanded() {
            let first = root_node.first_child as usize;
            let count = root_node.num_children as usize;
            (first..first + count)
                .map(|i| {
                    let node = self.tree.nodes[i];
                    let score = if self.rollout.fractional() {
                        self.tree.mean_p1(i) as f64 * node.visits as f64
                    } else {
                        node.p1_wins as f64 - node.p2_wins as f64
                    };
                    (node, score)
                })
                .collect()
        } else {
            // A search too short to expand the root still reports every move, unvisited.
            let mut actions = Vec::new();
            root.legal_actions(&mut actions);
            if !self.root_actions.is_empty() {
                actions.clone_from(&self.root_actions);
            }
            actions.into_iter().map(|a| (Node::leaf(a), 0.0)).collect()
        };
        let mut rollouts = self.rollout.take_stats();
        rollouts.rollouts = self.rollouts;
        WorkerOutput {
            iterations,
            nodes: self.tree.len(),
            root_children,
            rollouts,
        }
    }

    /// One MCTS iteration: selection, expansion, simulation, backpropagation.
    #[inline]
    fn iterate(&mut self, root: &G, root_player: Player, counter: CounterMode, max_nodes: usize) {
        let mut state = root.clone();
        self.path.clear();
        self.path.push(0);
        let mut index = 0usize;
        // Selection. Children are created in random order and a node is expanded on its
        // second visit, after which every visit goes to a child: so a node with v visits has
        // visited exactly its first v - 1 children, and the next unvisited one (infinite UCB,
        // ties among them random) is child v - 1.
        loop {
            let node = self.tree.nodes[index];
            if !node.is_expanded() {
                break;
            }
            let first = node.first_child as usize;
            let count = node.num_children as usize;
            let visited = node.visits as usize - 1;
            // A child that got its first visit from an evaluated expansion is not waiting.
            let pick = if visited < count && self.tree.nodes[first + visited].visits == 0 {
                visited
            } else {
                if self.tree.bias(first).is_some_and(f32::is_nan) {
                    self.bias_children(&state, first, count);
                }
                let viewer = match counter {
                    CounterMode::Double => state.to_move(),
                    CounterMode::Single => root_player,
                };
                self.tree_policy.select(
                    node.visits,
                    self.tree.children(first, count),
                    viewer,
                    &mut self.rng,
                )
            };
            index = first + pick;
            state.apply(self.tree.nodes[index].action);
            self.path.push(index as u32);
        }
        // Expansion (the paper's: a leaf already simulated once gets all its children) and
        // simulation from the first, random, child.
        let reward = if state.is_terminal() {
            terminal_outcome(&state).into()
        } else {
            if self.tree.nodes[index].visits > 0 && self.tree.len() < max_nodes {
                if index == 0 && !self.root_actions.is_empty() {
                    self.actions.clone_from(&self.root_actions);
                } else {
                    state.legal_actions(&mut self.actions);
                    self.rollout.restrict(&state, &mut self.actions);
                }
                self.rng.shuffle(&mut self.actions);
                let first = self.tree.len();
                if self
                    .rollout
                    .child_rewards(&state, &self.actions, &mut self.rewards)
                {
                    return self.expand_evaluated(index, state.to_move());
                }
                // Biases are needed only once every child has had its first visit (most nodes
                // never get that far), so they wait: the first child's bias is NaN until then
                // (see `bias_children`).
                for &a in &self.actions {
                    self.tree.push(Node::leaf(a));
                }
                if self.rollout.gives_bias() {
                    self.tree.set_bias(first, f32::NAN);
                }
                let parent = &mut self.tree.nodes[index];
                parent.first_child = first as u32;
                parent.num_children = self.actions.len() as u16;
                index = first;
                state.apply(self.tree.nodes[index].action);
                self.path.push(index as u32);
            }
            if state.is_terminal() {
                terminal_outcome(&state).into()
            } else {
                self.rollouts += 1;
                self.rollout.rollout_reward(&mut state, &mut self.rng)
            }
        };
        self.back_up(reward);
    }

    /// Gives the `count` children from `first` of the node at `state` their biases, put off
    /// from the node's expansion until selection first compares them.
    fn bias_children(&mut self, state: &G, first: usize, count: usize) {
        self.actions.clear();
        let children = &self.tree.nodes[first..first + count];
        self.actions.extend(children.iter().map(|c| c.action));
        self.rollout
            .child_bias(state, &self.actions, &mut self.biases);
        self.store_biases(first);
    }

    /// Gives `self.biases` to the children from `first`, in order.
    fn store_biases(&mut self, first: usize) {
        for (k, &b) in self.biases.iter().enumerate() {
            self.tree.set_bias(first + k, b);
        }
    }

    /// Backpropagation along the path, in absolute terms.
    #[inline]
    fn back_up(&mut self, reward: Reward) {
        let fractional = self.rollout.fractional();
        for &i in &self.path {
            self.tree.record(i as usize, reward, fractional);
        }
    }

    /// Expands node `index` with the children `self.actions` and their rewards `self.rewards`:
    /// best first for `mover`, each reward its child's first visit, and the best one backed up.
    fn expand_evaluated(&mut self, index: usize, mover: Player) {
        debug_assert_eq!(self.rewards.len(), self.actions.len());
        let sign = if mover == Player::P1 { 1.0 } else { -1.0 };
        self.ranked.clear();
        self.ranked.extend(
            self.rewards
                .iter()
                .zip(&self.actions)
                .map(|(r, &a)| (sign * r.p1, a)),
        );
        // Stable: equal rewards keep the shuffled order.
        self.ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        let first = self.tree.len();
        let fractional = self.rollout.fractional();
        for &(value, action) in &self.ranked {
            self.tree.push(Node::leaf(action));
            let child = self.tree.len() - 1;
            self.tree
                .record(child, Reward { p1: sign * value }, fractional);
        }
        let parent = &mut self.tree.nodes[index];
        parent.first_child = first as u32;
        parent.num_children = self.ranked.len() as u16;
        let best = Reward {
            p1: sign * self.ranked[0].0,
        };
        self.back_up(best);
    }
}

#[inline]
fn terminal_outcome<G: Game>(state: &G) -> Outcome {
    state.outcome().expect("a terminal position has an outcome")
}
