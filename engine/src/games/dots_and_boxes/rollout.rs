//! Rollouts that know the game (`rollout=chains`, `rollout=sacrifices`): random *safe* edges
//! while any is left (with `sacrifices`, also the handout of a 1-chain or a 2-chain by its middle
//! line, as QDab's rollouts draw among its class-1 moves), the endgame after them valued exactly.
//!
//! Uniformly random playouts misjudge every middle-game position: they hand chains over at
//! random, so who will have to open the long chains (what decides the game) never shows in their
//! results. These rollouts play the part of the game that is a real choice at random (the safe
//! edges and the short chains' sacrifices that change who gets control, in random order,
//! captures taken as they come) and the rest as well as it can be played:
//!
//! * once the position is a simple loony endgame (independent chains and loops), its value is
//!   read from strings-and-coins theory ([`LoonyValues`]) and the rollout ends there;
//! * when no safe edge is left but chains still meet at a junction, or when the taker of an
//!   opened chain must choose between taking all and keeping control, the exact solver answers
//!   within a small node limit (it reaches a simple endgame within a few moves);
//! * only if it gives up does the rollout fall back to a rule: hand over the fewest boxes, take
//!   everything offered or keep control as the rival would ([`keeps_control`]).
//!
//! So a rollout samples the one thing random play can sample well (the order of the safe moves,
//! hence the parity of what is left when they run out) and resolves the rest exactly. Measured
//! at 300 ms a move against `qdab` (docs/players.md): safe edges alone 24-76, with the
//! sacrifices 20-20.

use super::analysis::{
    capture_and_safe_edges, capture_edges, double_deal, free_capture, keeps_control, random_edge,
    sacrifice, safe_edges, take_all, tree_moves,
};
use super::chains::LoonyValues;
use super::endgame::EndgameSolver;
use super::qdab::canonical::{canonical, Board};
use super::{DotsAndBoxes, Geometry};
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
    /// The moves tree nodes search.
    pub tree: TreeMoves,
    /// Whether rollouts also sacrifice 1-chains and 2-chains while safe edges are left.
    pub sacrifices: bool,
    /// Positions the solver may search for one rollout.
    pub solver_nodes: u64,
    /// The canonical move generator's tables, made on first use.
    board: Option<Board>,
}

impl Clone for ChainRollout {
    fn clone(&self) -> ChainRollout {
        // The solver's table is per thread and made on first use.
        ChainRollout {
            values: self.values.clone(),
            solver: None,
            endings: [0; 3],
            tree: self.tree,
            sacrifices: self.sacrifices,
            solver_nodes: self.solver_nodes,
            board: None,
        }
    }
}

impl Default for ChainRollout {
    fn default() -> ChainRollout {
        ChainRollout {
            values: LoonyValues::new(),
            solver: None,
            endings: [0; 3],
            tree: TreeMoves::All,
            sacrifices: false,
            solver_nodes: SOLVER_NODES,
            board: None,
        }
    }
}

impl ChainRollout {
    pub fn new() -> ChainRollout {
        ChainRollout::default()
    }

    /// The play-outs' exact solver for `geo`'s boards, made on first use.
    fn solver(&mut self, geo: &'static Geometry) -> &mut EndgameSolver {
        if !self.solver.as_ref().is_some_and(|s| s.fits_geometry(geo)) {
            self.solver = Some(EndgameSolver::new(geo.rows, geo.cols, SOLVER_TABLE_BITS));
        }
        self.solver.as_mut().expect("made just above")
    }

    /// The canonical move generator's tables for `geo`, made on first use.
    fn board(&mut self, geo: &'static Geometry) -> &Board {
        match self.board {
            Some(ref board) if std::ptr::eq(board.geo, geo) => {}
            _ => self.board = Some(Board::new(geo)),
        }
        self.board.as_ref().expect("set just above")
    }

    /// Keeps only the moves worth searching at a tree node ([`tree_moves`], or
    /// [`canonical_tree_moves`]) in `actions`.
    pub fn narrow(&mut self, state: &DotsAndBoxes, actions: &mut Vec<Action>) {
        let geo = state.geometry();
        let keep = match self.tree {
            TreeMoves::All => return,
            TreeMoves::Safe => tree_moves(geo, state.edges()),
            TreeMoves::Canonical => canonical_tree_moves(self.board(geo), state.edges()),
        };
        actions.retain(|&a| keep >> a & 1 == 1);
    }

    /// The final margin (P1 minus P2) of `state` played out as the module says.
    pub fn final_margin(&mut self, state: &DotsAndBoxes, rng: &mut Rng) -> i32 {
        let geo = state.geometry();
        let mut edges = state.edges();
        let [s1, s2] = state.scores().expect("Dots and Boxes keeps scores");
        let mut lead = s1 as i32 - s2 as i32;
        let mut mover = state.to_move();
        let sign = |p: Player| if p == Player::P1 { 1 } else { -1 };
        // Draws `e` for `mover`: the boxes it closes are theirs.
        let close = |edges: &mut u128, lead: &mut i32, e: usize, mover| {
            *edges |= 1u128 << e;
            for mask in geo.edge_box_masks[e] {
                if *edges & mask == mask {
                    *lead += sign(mover);
                }
            }
        };
        let mut solver_may_answer = true;
        loop {
            if edges == geo.all_edges {
                return lead;
            }
            if let Some(e) = free_capture(geo, edges) {
                close(&mut edges, &mut lead, e, mover);
                continue;
            }
            let (captures, safe) = capture_and_safe_edges(geo, edges);
            // A simple loony endgame has no box to take and no safe edge: only then is it
            // worth reading the strings.
            if captures | safe == 0 {
                if let Some(v) = self.values.future_value(geo, edges) {
                    self.endings[0] += 1;
                    return lead + sign(mover) * v;
                }
            }
            if captures == 0 && safe != 0 {
                // With `sacrifices`, the short chains' handouts are drawn among the safe edges
                // (QDab's rollouts: its class-1 moves).
                let pool = if self.sacrifices {
                    canonical(self.board(geo), edges).class1
                } else {
                    safe
                };
                let e = random_edge(pool, rng);
                edges |= 1u128 << e;
                mover = mover.opponent();
                continue;
            }
            // An opened chain to take (or to decline), or a loony position with a junction: the
            // solver, when what follows has no safe edge left (else it would search the middle
            // game), within its node limit.
            if solver_may_answer && safe == 0 && safe_edges(geo, take_all(geo, edges).1) == 0 {
                let nodes = self.solver_nodes;
                if let Some(v) = self.solver(geo).try_edges_value(edges, nodes) {
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
                close(&mut edges, &mut lead, e, mover);
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

/// A position where a turn starts: its edges, each player's boxes and the player to move (what
/// the net-guided rollouts ask the value net about).
#[derive(Clone, Copy, Debug)]
pub struct Turn {
    pub edges: u128,
    /// The boxes each player (P1, P2) has closed, as bits by box index.
    pub owners: [u64; 2],
    pub mover: Player,
}

impl Turn {
    /// `state`'s position as a turn.
    pub fn of(state: &DotsAndBoxes) -> Turn {
        Turn {
            edges: state.edges(),
            owners: state.box_owners(),
            mover: state.to_move(),
        }
    }
}

/// Fewer canonical moves than this of classes 1 and 2, and the chain openings (class 3) are
/// searched too (QDab's mark: 5 to 7 by the stage of the game).
const CLASS3_BELOW: u32 = 6;

/// The moves of a tree node by QDab's canonical classes (`tree=canonical`): with a box to
/// take, [`tree_moves`]'s exact reductions; otherwise the safe edges, the sacrifice of each
/// 1-chain and the hard-hearted handout of each 2-chain (one move each), and the opening of
/// every chain and loop once few of those are left.
pub fn canonical_tree_moves(board: &Board, edges: u128) -> u128 {
    let geo = board.geo;
    if capture_edges(geo, edges) != 0 {
        return tree_moves(geo, edges);
    }
    let c = canonical(board, edges);
    let mut moves = c.class1 | c.class2;
    if moves.count_ones() < CLASS3_BELOW {
        moves |= c.class3;
    }
    if moves == 0 {
        !edges & geo.all_edges
    } else {
        moves
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

/// The moves a Dots-and-Boxes search's tree nodes search (the `tree` key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeMoves {
    /// Every free edge (the paper's).
    All,
    /// Captures and double-deals, else safe edges, else every edge ([`tree_moves`]).
    Safe,
    /// The capture reductions, else QDab's canonical moves ([`canonical_tree_moves`]).
    Canonical,
}

impl TreeMoves {
    /// The `tree` key's value.
    pub fn name(self) -> &'static str {
        match self {
            TreeMoves::All => "all",
            TreeMoves::Safe => "safe",
            TreeMoves::Canonical => "canonical",
        }
    }
}

/// The Dots-and-Boxes keys of an `mcts` or `nn` spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DotsSearch {
    pub rollout: DotsRolloutKind,
    /// `tree=all|safe|canonical`: the moves tree nodes search.
    pub tree: TreeMoves,
    /// `rollout=sacrifices`: chain rollouts that also hand over short chains.
    pub sacrifices: bool,
    /// `endgame_nodes=N`: the chain rollouts' solver budget ([`SOLVER_NODES`] by default).
    pub solver_nodes: u64,
}

impl DotsSearch {
    /// The paper's search: random rollouts over every move (`mcts`'s default).
    pub const PAPER: DotsSearch = DotsSearch {
        rollout: DotsRolloutKind::Random,
        tree: TreeMoves::All,
        sacrifices: false,
        solver_nodes: SOLVER_NODES,
    };

    /// The product's (`nn`'s default): chain rollouts with the short chains' sacrifices, tree
    /// nodes searching QDab's canonical moves. Measured at 300 ms a move against `qdab`: 29-11,
    /// where chain rollouts over safe edges alone scored 10-30 and 24-76 (docs/players.md).
    pub const PRODUCT: DotsSearch = DotsSearch {
        rollout: DotsRolloutKind::Chains,
        tree: TreeMoves::Canonical,
        sacrifices: true,
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
            out.tree = TreeMoves::All;
        }
        if keys.iter().any(|(k, v)| k == "rollout" && v == "random") {
            out = DotsSearch {
                solver_nodes: out.solver_nodes,
                ..DotsSearch::PAPER
            };
        }
        for (key, value) in keys {
            match key.as_str() {
                "rollout" => {
                    out.rollout = match value.as_str() {
                        "random" => DotsRolloutKind::Random,
                        "chains" | "sacrifices" => {
                            // Chains keep the defaults' tree unless the keys say.
                            if !has("tree") {
                                out.tree = defaults.tree;
                            }
                            out.sacrifices = value == "sacrifices";
                            DotsRolloutKind::Chains
                        }
                        _ => {
                            return Err(format!(
                        "player '{text}': rollout is random, chains or sacrifices, not '{value}'"
                    ))
                        }
                    }
                }
                "tree" => {
                    out.tree = match value.as_str() {
                        "all" => TreeMoves::All,
                        "safe" => TreeMoves::Safe,
                        "canonical" => TreeMoves::Canonical,
                        _ => {
                            return Err(format!(
                                "player '{text}': tree is all, safe or canonical, not '{value}'"
                            ))
                        }
                    }
                }
                "endgame_nodes" => {
                    out.solver_nodes = value.parse().map_err(|_| {
                        format!("player '{text}': endgame_nodes is a count, not '{value}'")
                    })?
                }
                _ => return Err(format!("player '{text}': unknown key '{key}'")),
            }
        }
        if out.rollout == DotsRolloutKind::Random
            && (out.tree != TreeMoves::All || has("endgame_nodes"))
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
            tree: self.tree,
            sacrifices: self.sacrifices,
            solver_nodes: self.solver_nodes,
            ..ChainRollout::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::dots_and_boxes::analysis::greedy_moves;
    use crate::games::dots_and_boxes::chains::Strings;

    /// Greedy random play (captures, else safe edges, else anything) from the empty board until
    /// `stop` holds; `None` if the game ends first.
    fn greedy_until(
        rows: usize,
        cols: usize,
        rng: &mut Rng,
        stop: impl Fn(&DotsAndBoxes) -> bool,
    ) -> Option<DotsAndBoxes> {
        let mut state = DotsAndBoxes::new(rows, cols).unwrap();
        while !state.is_terminal() {
            if stop(&state) {
                return Some(state);
            }
            let e = random_edge(greedy_moves(state.geometry(), state.edges()), rng);
            state.apply(e as Action);
        }
        None
    }

    /// P1's final margin under perfect play from `state`.
    fn exact_margin(state: &DotsAndBoxes) -> i32 {
        let mut solver = EndgameSolver::new(state.rows(), state.cols(), 18);
        let m = solver.final_margin(state);
        if state.to_move() == Player::P1 {
            m
        } else {
            -m
        }
    }

    /// Once no safe edge is left the rollout has no random choice: with a budget the solver
    /// never exhausts, it ends with the perfect-play margin, from positions with boxes to take
    /// and without, on several board shapes.
    #[test]
    fn with_no_safe_edge_left_a_rollout_is_perfect_play() {
        let mut rng = Rng::new(21);
        let mut rollout = ChainRollout {
            solver_nodes: u64::MAX,
            ..ChainRollout::default()
        };
        let mut checked = 0;
        for (rows, cols) in [(3, 3), (2, 5), (4, 4), (3, 5), (5, 5)] {
            for _ in 0..60 {
                let Some(state) = greedy_until(rows, cols, &mut rng, |s| {
                    safe_edges(s.geometry(), s.edges()) == 0
                }) else {
                    continue;
                };
                assert_eq!(
                    rollout.final_margin(&state, &mut rng),
                    exact_margin(&state),
                    "{rows}x{cols} {}",
                    state.edge_string()
                );
                checked += 1;
            }
        }
        assert!(checked > 200, "{checked}");
        assert!(
            rollout.endings[0] > 0 && rollout.endings[1] > 0,
            "{:?}",
            rollout.endings
        );
    }

    /// A simple loony endgame ends the rollout at once with its strings-and-coins value.
    #[test]
    fn a_simple_loony_endgame_is_valued_without_playing_it() {
        let mut rng = Rng::new(22);
        let mut rollout = ChainRollout::new();
        let mut found = 0;
        for _ in 0..300 {
            let Some(state) = greedy_until(4, 4, &mut rng, |s| {
                Strings::read(s.geometry(), s.edges()).is_some_and(|st| !st.is_empty())
                    && capture_edges(s.geometry(), s.edges()) == 0
            }) else {
                continue;
            };
            let before = rollout.endings;
            assert_eq!(rollout.final_margin(&state, &mut rng), exact_margin(&state));
            assert_eq!(rollout.endings[0], before[0] + 1);
            assert_eq!(rollout.endings[1..], before[1..]);
            found += 1;
        }
        assert!(found > 30, "{found}");
    }

    /// The solver's budget is respected: with a budget of one position it gives up, and the
    /// fallback rule still ends the game (a margin within the board's boxes, of the right
    /// parity on an odd board).
    #[test]
    fn a_tiny_solver_budget_falls_back_to_the_rule() {
        let mut rng = Rng::new(23);
        let mut rollout = ChainRollout {
            solver_nodes: 1,
            ..ChainRollout::default()
        };
        assert_rollouts_end_the_game(&mut rollout, &mut rng);
        assert!(rollout.endings[2] > 0, "{:?}", rollout.endings);
    }

    /// 200 rollouts from the empty 5x5 board: each ends the game, with a margin within the
    /// board's 25 boxes and odd (no draw on an odd board).
    fn assert_rollouts_end_the_game(rollout: &mut ChainRollout, rng: &mut Rng) {
        let empty = DotsAndBoxes::new(5, 5).unwrap();
        for _ in 0..200 {
            let m = rollout.final_margin(&empty, rng);
            assert!(m.abs() <= 25 && m % 2 != 0, "{m}");
        }
    }

    #[test]
    fn tree_moves_keep_what_is_worth_searching() {
        let board = |moves: &str| DotsAndBoxes::from_move_text(3, 3, moves).unwrap();
        let moves_of = |s: &DotsAndBoxes| {
            let bits = tree_moves(s.geometry(), s.edges());
            (0..s.num_edges()).filter(|e| bits >> e & 1 == 1).count()
        };
        // The empty board: every edge is safe.
        let empty = DotsAndBoxes::new(3, 3).unwrap();
        assert_eq!(moves_of(&empty), empty.num_edges());
        // A corner box with three sides drawn and the box next to it open: its capture leads
        // nowhere, so it is the only move.
        let s = board("h0,0 v0,0 h1,0");
        let bits = tree_moves(s.geometry(), s.edges());
        assert_eq!(bits, 1u128 << s.geometry().vertical(0, 1));
        // Every move of a safe-edge position is safe.
        let s = board("h0,0 h1,1 v2,3");
        let safe = safe_edges(s.geometry(), s.edges());
        assert_eq!(tree_moves(s.geometry(), s.edges()), safe);
        // A 3-chain along the top row, opened at its left end: the capture of the first box and
        // the double-dealing edge of the box it leads into (Barker and Korf's reduction); no
        // other edge.
        let s = board("h0,0 h0,1 h0,2 h1,0 h1,1 h1,2 v0,0");
        let geo = s.geometry();
        let bits = tree_moves(geo, s.edges());
        let capture = 1u128 << geo.vertical(0, 1);
        let decline = 1u128 << geo.vertical(0, 2);
        assert_eq!(bits, capture | decline);
    }

    /// `tree=canonical` on positions of greedy random play: free edges only, never empty, the
    /// exact reductions when a box can be taken; otherwise, while at least `CLASS3_BELOW` moves
    /// of classes 1 and 2 exist, every move that is not a safe edge hands over one or two boxes
    /// that cannot be declined (a short chain's sacrifice), and such moves do occur.
    #[test]
    fn canonical_tree_moves_are_safe_edges_and_short_sacrifices() {
        let mut rng = Rng::new(24);
        let geo = Geometry::get(5, 5);
        let board = Board::new(geo);
        let mut sacrifices_seen = 0;
        for game in 0..300 {
            let stop = 12 + game % 28;
            let Some(state) = greedy_until(5, 5, &mut rng, |s| s.edges_drawn() as usize >= stop)
            else {
                continue;
            };
            let edges = state.edges();
            let free = !edges & geo.all_edges;
            let moves = canonical_tree_moves(&board, edges);
            assert!(moves != 0 && moves & !free == 0, "{}", state.edge_string());
            if capture_edges(geo, edges) != 0 {
                assert_eq!(moves, tree_moves(geo, edges));
                continue;
            }
            let c = canonical(&board, edges);
            if (c.class1 | c.class2).count_ones() < CLASS3_BELOW {
                let want = if c.all() == 0 { free } else { c.all() };
                assert_eq!(moves, want);
                continue;
            }
            assert_eq!(moves, c.class1 | c.class2);
            let mut others = moves & !safe_edges(geo, edges);
            while others != 0 {
                let e = others.trailing_zeros() as usize;
                others &= others - 1;
                let (boxes, declinable) = sacrifice(geo, edges, e);
                assert!(
                    (1..=2).contains(&boxes) && !declinable,
                    "{} {e}: {boxes} {declinable}",
                    state.edge_string()
                );
                sacrifices_seen += 1;
            }
        }
        assert!(sacrifices_seen > 20, "{sacrifices_seen}");
    }

    /// `rollout=sacrifices` still ends every rollout with a margin of the right parity.
    #[test]
    fn rollouts_with_sacrifices_end_the_game() {
        let mut rng = Rng::new(25);
        let mut rollout = ChainRollout {
            sacrifices: true,
            ..ChainRollout::default()
        };
        assert_rollouts_end_the_game(&mut rollout, &mut rng);
    }

    #[test]
    fn search_keys_are_read_and_refused_by_name() {
        let keys = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let read = |list: &[(&str, &str)], d| DotsSearch::from_keys("p", &keys(list), d);
        assert_eq!(read(&[], DotsSearch::PRODUCT), Ok(DotsSearch::PRODUCT));
        assert_eq!(read(&[], DotsSearch::PAPER), Ok(DotsSearch::PAPER));
        assert_eq!(
            read(&[("rollout", "random")], DotsSearch::PRODUCT),
            Ok(DotsSearch::PAPER)
        );
        let chains = read(&[("rollout", "chains")], DotsSearch::PAPER).unwrap();
        assert_eq!(chains.rollout, DotsRolloutKind::Chains);
        assert_eq!(chains.tree, TreeMoves::All);
        let deep = read(&[("endgame_nodes", "9000")], DotsSearch::PRODUCT).unwrap();
        assert_eq!(deep.solver_nodes, 9000);
        for (list, want) in [
            (
                &[("rollout", "smart")][..],
                "rollout is random, chains or sacrifices",
            ),
            (&[("tree", "some")][..], "tree is all, safe or canonical"),
            (&[("endgame_nodes", "-1")][..], "endgame_nodes is a count"),
            (&[("tree", "safe")][..], "need rollout=chains"),
        ] {
            let e = read(list, DotsSearch::PAPER).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }
}
