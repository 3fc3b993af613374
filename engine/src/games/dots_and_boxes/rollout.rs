//! Rollouts that know the game (`rollout=chains`): random *safe* edges while any is left, the
//! endgame after them valued exactly.
//!
//! Uniformly random playouts misjudge every middle-game position: they hand chains over at
//! random, so who will have to open the long chains (what decides the game) never shows in their
//! results. These rollouts play the part of the game that is a real choice at random (the safe
//! edges, in random order, captures taken as they come) and the rest as well as it can be
//! played:
//!
//! * once the position is a simple loony endgame (independent chains and loops), its value is
//!   read from strings-and-coins theory ([`LoonyValues`]) and the rollout ends there;
//! * when no safe edge is left but chains still meet at a junction, or when the taker of an
//!   opened chain must choose between taking all and keeping control, the exact solver answers
//!   within a small node limit (it reaches a simple endgame within a few moves);
//! * only if it gives up does the rollout fall back to a rule: hand over the fewest boxes, take
//!   everything offered.
//!
//! So a rollout samples the one thing random play can sample well (the order of the safe moves,
//! hence the parity of what is left when they run out) and resolves the rest exactly.

use super::analysis::{
    capture_edges, double_deal, free_capture, keeps_control, random_edge, sacrifice, safe_edges,
    take_all, tree_moves,
};
use super::chains::LoonyValues;
use super::endgame::EndgameSolver;
use super::DotsAndBoxes;
use crate::game::{Action, Game, Outcome, Player};
use crate::mcts::RolloutPolicy;
use crate::rng::Rng;

/// Positions the solver may search to settle one rollout's endgame, by default
/// (`endgame_nodes`).
pub const SOLVER_NODES: u64 = 3_000;
/// Its table: 2^14 entries (512 KB) per search thread.
const SOLVER_TABLE_BITS: u32 = 14;

/// Rollouts by safe edges, then the exact endgame. Clone one per search thread.
pub struct ChainRollout {
    values: LoonyValues,
    solver: Option<EndgameSolver>,
    /// Rollouts that ended in a simple loony endgame, in the solver, or by the fallback rule.
    pub endings: [u64; 3],
    /// Whether tree nodes get only the moves worth searching ([`tree_moves`]).
    pub narrow_tree: bool,
    /// Positions the solver may search for one rollout.
    pub solver_nodes: u64,
}

impl Clone for ChainRollout {
    fn clone(&self) -> ChainRollout {
        // The solver's table is per thread and made on first use.
        ChainRollout {
            values: self.values.clone(),
            solver: None,
            endings: [0; 3],
            narrow_tree: self.narrow_tree,
            solver_nodes: self.solver_nodes,
        }
    }
}

impl Default for ChainRollout {
    fn default() -> ChainRollout {
        ChainRollout {
            values: LoonyValues::new(),
            solver: None,
            endings: [0; 3],
            narrow_tree: false,
            solver_nodes: SOLVER_NODES,
        }
    }
}

impl ChainRollout {
    pub fn new() -> ChainRollout {
        ChainRollout::default()
    }

    /// With `on`, tree nodes get only the moves worth searching.
    pub fn narrowing(mut self, on: bool) -> ChainRollout {
        self.narrow_tree = on;
        self
    }

    /// Keeps only the moves worth searching at a tree node ([`tree_moves`]) in `actions`.
    pub fn narrow(&self, state: &DotsAndBoxes, actions: &mut Vec<Action>) {
        if self.narrow_tree {
            let keep = tree_moves(state.geometry(), state.edges());
            actions.retain(|&a| keep >> a & 1 == 1);
        }
    }

    /// The final margin (P1 minus P2) of `state` played out as the module says.
    pub fn final_margin(&mut self, state: &DotsAndBoxes, rng: &mut Rng) -> i32 {
        let geo = state.geometry();
        let mut edges = state.edges();
        let [s1, s2] = state.scores().expect("Dots and Boxes keeps scores");
        let mut lead = s1 as i32 - s2 as i32;
        let mut mover = state.to_move();
        let sign = |p: Player| if p == Player::P1 { 1 } else { -1 };
        let mut solver_may_answer = true;
        loop {
            if edges == geo.all_edges {
                return lead;
            }
            if let Some(e) = free_capture(geo, edges) {
                lead += sign(mover) * geo.boxes_closed_by(edges, e) as i32;
                edges |= 1u128 << e;
                continue;
            }
            if let Some(v) = self.values.future_value(geo, edges) {
                self.endings[0] += 1;
                return lead + sign(mover) * v;
            }
            let captures = capture_edges(geo, edges);
            let safe = safe_edges(geo, edges);
            if captures == 0 && safe != 0 {
                let e = random_edge(safe, rng);
                edges |= 1u128 << e;
                mover = mover.opponent();
                continue;
            }
            // An opened chain to take (or to decline), or a loony position with a junction: the
            // solver, when what follows has no safe edge left (else it would search the middle
            // game), within its node limit.
            if solver_may_answer && safe == 0 && safe_edges(geo, take_all(geo, edges).1) == 0 {
                let solver = match &mut self.solver {
                    Some(solver) if solver.fits_geometry(geo) => solver,
                    slot => slot.insert(EndgameSolver::new(geo.rows, geo.cols, SOLVER_TABLE_BITS)),
                };
                if let Some(v) = solver.try_edges_value(edges, self.solver_nodes) {
                    self.endings[1] += 1;
                    return lead + sign(mover) * v;
                }
                // Too hard for its budget here; a few moves on it would be too, mostly.
                solver_may_answer = false;
            }
            if captures != 0 {
                // Take what is offered, or keep control where the rival would.
                if let Some((_, decline)) = double_deal(geo, edges) {
                    if keeps_control(geo, edges, decline) {
                        edges |= 1u128 << decline;
                        mover = mover.opponent();
                        continue;
                    }
                }
                let e = captures.trailing_zeros() as usize;
                lead += sign(mover) * geo.boxes_closed_by(edges, e) as i32;
                edges |= 1u128 << e;
                continue;
            }
            // Hand over the fewest boxes.
            self.endings[2] += 1;
            let mut best = (u32::MAX, 0usize);
            let mut bits = !edges & geo.all_edges;
            while bits != 0 {
                let e = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (boxes, _) = sacrifice(geo, edges, e);
                if boxes < best.0 {
                    best = (boxes, e);
                }
            }
            edges |= 1u128 << best.1;
            mover = mover.opponent();
        }
    }
}

impl RolloutPolicy<DotsAndBoxes> for ChainRollout {
    fn rollout(&mut self, state: &mut DotsAndBoxes, rng: &mut Rng) -> Outcome {
        match self.final_margin(state, rng).signum() {
            1 => Outcome::P1Win,
            -1 => Outcome::P2Win,
            _ => Outcome::Draw,
        }
    }

    fn restrict(&mut self, state: &DotsAndBoxes, actions: &mut Vec<Action>) {
        self.narrow(state, actions);
    }
}

/// How a Dots-and-Boxes search plays its leaves out (the `rollout` key of `mcts` and `nn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotsRolloutKind {
    /// Uniformly random edges to the end (the paper's).
    Random,
    /// Random safe edges, then the endgame valued exactly ([`ChainRollout`]).
    Chains,
}

/// The Dots-and-Boxes keys of an `mcts` or `nn` spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DotsSearch {
    pub rollout: DotsRolloutKind,
    /// `tree=safe`: tree nodes search only the moves worth it ([`tree_moves`]); `tree=all`.
    pub narrow_tree: bool,
    /// `endgame_nodes=N`: the chain rollouts' solver budget ([`SOLVER_NODES`] by default).
    pub solver_nodes: u64,
}

impl DotsSearch {
    /// The keys Dots and Boxes reads from a player spec.
    pub const KEYS: [&'static str; 3] = ["rollout", "tree", "endgame_nodes"];

    /// The paper's search: random rollouts over every move (`mcts`'s default).
    pub const PAPER: DotsSearch = DotsSearch {
        rollout: DotsRolloutKind::Random,
        narrow_tree: false,
        solver_nodes: SOLVER_NODES,
    };

    /// The product's: chain rollouts, tree nodes narrowed (`nn`'s default). Measured against
    /// the earlier random rollouts of `nn` at 300 ms a move: 29-11 (docs/players.md).
    pub const PRODUCT: DotsSearch = DotsSearch {
        rollout: DotsRolloutKind::Chains,
        narrow_tree: true,
        solver_nodes: SOLVER_NODES,
    };

    /// Reads `keys` of the spec `text` over `defaults`; any other game's key is refused by
    /// name. `rollout=random` alone also means `tree=all` (tree=safe needs chain rollouts).
    pub fn from_keys(
        text: &str,
        keys: &[(String, String)],
        defaults: DotsSearch,
    ) -> Result<DotsSearch, String> {
        let mut out = defaults;
        let has = |name: &str| keys.iter().any(|(k, _)| k == name);
        if has("rollout") && !has("tree") {
            out.narrow_tree = false;
        }
        for (key, value) in keys {
            match key.as_str() {
                "rollout" => {
                    out.rollout = match value.as_str() {
                        "random" => DotsRolloutKind::Random,
                        "chains" => {
                            out.narrow_tree |= !has("tree") && defaults.narrow_tree;
                            DotsRolloutKind::Chains
                        }
                        _ => {
                            return Err(format!(
                                "player '{text}': rollout is random or chains, not '{value}'"
                            ))
                        }
                    }
                }
                "tree" => {
                    out.narrow_tree = match value.as_str() {
                        "all" => false,
                        "safe" => true,
                        _ => {
                            return Err(format!(
                                "player '{text}': tree is all or safe, not '{value}'"
                            ))
                        }
                    }
                }
                "endgame_nodes" => {
                    out.solver_nodes = value.parse().map_err(|_| {
                        format!("player '{text}': endgame_nodes is a count, not '{value}'")
                    })?
                }
                _ => {
                    return Err(format!(
                        "player '{text}': {key} is a key of the {} search, not of dots_and_boxes",
                        crate::games::registry::search_key_owner(key).unwrap_or("another game's")
                    ))
                }
            }
        }
        if out.rollout == DotsRolloutKind::Random && (out.narrow_tree || has("endgame_nodes"))
        {
            return Err(format!(
                "player '{text}': tree=safe and endgame_nodes need rollout=chains"
            ));
        }
        Ok(out)
    }

    /// The chain rollout these keys ask for, if any.
    pub fn chain_rollout(&self) -> Option<ChainRollout> {
        (self.rollout == DotsRolloutKind::Chains).then(|| ChainRollout {
            narrow_tree: self.narrow_tree,
            solver_nodes: self.solver_nodes,
            ..ChainRollout::default()
        })
    }
}

#[cfg(test)]
mod probe {
    use super::*;
    #[test]
    #[ignore]
    fn probe_rollouts() {
        let mut rng = Rng::new(1);
        let mut r = ChainRollout::new();
        for drawn in [0usize, 10, 20, 25, 30] {
            let mut nodes = 0u64;
            let t = std::time::Instant::now();
            r.endings = [0; 3];
            let n = 2000;
            for _ in 0..n {
                let mut s = DotsAndBoxes::new(5, 5).unwrap();
                while (s.edges_drawn() as usize) < drawn {
                    let safe = crate::games::dots_and_boxes::analysis::greedy_moves(
                        s.geometry(),
                        s.edges(),
                    );
                    s.apply(random_edge(safe, &mut rng) as Action);
                }
                let before = r.solver.as_ref().map_or(0, |s| s.nodes());
                let _ = r.final_margin(&s, &mut rng);
                nodes += r.solver.as_ref().map_or(0, |s| s.nodes()) - before;
            }
            eprintln!(
                "drawn {drawn}: {:.1} us/rollout, endings {:?}, solver nodes/rollout {:.0}",
                t.elapsed().as_secs_f64() * 1e6 / n as f64,
                r.endings,
                nodes as f64 / n as f64
            );
        }
    }
}
