//! The paper's knowledge for MCTS (its sections 2.2, 4.1 and 4.2), each part a switch of `mcts`
//! on Gomoku, so that its variants can be rebuilt:
//!
//! * `near=0|1|2`: the moves searched and played out are the empty points within this many
//!   points (king steps) of a stone; the centre on an empty board. 0: every empty point (plain
//!   MCTS, the default).
//! * `forced=0|1`: where the player to move can make five it plays that; else where the
//!   opponent could make five, it blocks there; in the tree and in the rollouts.
//! * `heuristic=off|root|all`: the pattern heuristic ([`super::patterns`]) scores the moves of
//!   the root (or of every node) when it is expanded, keeps the `top` best (`top=K`, 10 by
//!   default), and plays a five, or blocks the opponent's, without search.
//! * `stop=five|three|threat`: a rollout ends at a five (the game's end), at the first live
//!   three (its maker wins), or at the first winning threat (a live four, two fours, a four and
//!   a live three, two live threes: its maker wins), unless the opponent can make five at once.
//! * `weights=FILE`: the heuristic's pattern weights from a weight file (`tune`'s set `patterns`).
//!
//! Presets: `heuristic=paper` (near 1, heuristic at the root, top 10, stop at five, forced
//! replies: the paper's Table 1 first row) and `heuristic=engine` ([`GomokuKnowledge::ENGINE`]).

use super::patterns::{point_shapes, PatternWeights, PointShapes, Shape};
use super::rival::evaluate;
use super::threat_space::ThreatSearch;
use super::{Gomoku, MAX_POINTS};
use crate::agents::spec::switch;
use crate::game::{Action, Game, Outcome, Player};
use crate::mcts::{Reward, RolloutPolicy, Search, SearchConfig, Ucb};
use crate::rng::Rng;

/// The evaluation's scale in `leaf=eval` (the rival's: a score of this much is a 73% chance).
const EVAL_SCALE: f32 = 2_000.0;

/// Nodes of the root's VCF searches (`vcf=1`).
const ROOT_VCF_NODES: u64 = 20_000;

/// Which nodes the pattern heuristic prunes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Prune {
    #[default]
    Off,
    Root,
    All,
}

/// When a rollout stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Stop {
    /// At the end of the game.
    #[default]
    Five,
    /// At the first live three (or better): its maker wins.
    LiveThree,
    /// At the first winning threat: its maker wins.
    Threat,
}

/// The switches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GomokuKnowledge {
    pub near: u8,
    pub forced: bool,
    pub prune: Prune,
    pub top: u16,
    pub stop: Stop,
    pub weights: PatternWeights,
    /// At the root: a VCF (continuous fours) of the mover's is played without search, and
    /// where the opponent has one only the moves that break it are searched.
    pub vcf: bool,
    /// Leaves scored by the rival's pattern evaluation instead of a random rollout
    /// (`leaf=eval`; `leaf=rollout` the default).
    pub eval_leaves: bool,
    /// The progressive bias of a child by the heuristic: `bias * log(1 + score) / log(1 +
    /// best score)`, fading as `1 / (visits + 1)` (0: none).
    pub bias: f32,
}

impl Default for GomokuKnowledge {
    fn default() -> GomokuKnowledge {
        GomokuKnowledge::PLAIN
    }
}

impl GomokuKnowledge {
    /// The MCTS with this knowledge: UCB with the heuristic's progressive bias (a no-op where
    /// `bias` is 0).
    pub fn search(self, config: SearchConfig) -> Search<Gomoku, Ucb, GomokuRollout> {
        let cp = config.cp;
        Search::new(
            config,
            Ucb::new(cp).with_progressive_bias(true),
            GomokuRollout::new(self),
        )
    }

    /// Plain MCTS: every empty point, random rollouts to the end.
    pub const PLAIN: GomokuKnowledge = GomokuKnowledge {
        near: 0,
        forced: false,
        prune: Prune::Off,
        top: 10,
        stop: Stop::Five,
        weights: PatternWeights::DEFAULT,
        bias: 0.0,
        vcf: false,
        eval_leaves: false,
    };

    /// The paper's (Table 1, first row): candidates next to a stone, the pattern heuristic at
    /// the root keeping the top 10, fixed replies, rollouts to a five.
    pub const PAPER: GomokuKnowledge = GomokuKnowledge {
        near: 1,
        forced: true,
        prune: Prune::Root,
        ..GomokuKnowledge::PLAIN
    };

    /// Our MCTS (`heuristic=engine`, and what `mcts:weights=FILE` plays): the paper's with
    /// the heuristic at every node, its score as a bias, the root's VCF and leaves scored by
    /// the evaluation.
    pub const ENGINE: GomokuKnowledge = GomokuKnowledge {
        prune: Prune::All,
        bias: 0.5,
        vcf: true,
        eval_leaves: true,
        ..GomokuKnowledge::PAPER
    };

    /// Reads the Gomoku keys of an `mcts` spec (a preset first, then the keys over it).
    pub fn from_keys(text: &str, keys: &[(String, String)]) -> Result<GomokuKnowledge, String> {
        let err = |e: String| format!("player '{text}': {e}");
        // Weights with no other key mean the engine's search with those weights (what `tune`'s
        // final match plays as `mcts:weights=FILE`); plain MCTS would never read them.
        let mut k = if keys.iter().all(|(key, _)| key == "weights") && !keys.is_empty() {
            GomokuKnowledge::ENGINE
        } else {
            GomokuKnowledge::default()
        };
        for (_, value) in keys.iter().filter(|(k, _)| k == "heuristic") {
            match value.as_str() {
                "paper" => k = GomokuKnowledge::PAPER,
                "engine" => k = GomokuKnowledge::ENGINE,
                "off" | "0" => k.prune = Prune::Off,
                "root" => k.prune = Prune::Root,
                "all" => k.prune = Prune::All,
                _ => {
                    return Err(err(format!(
                        "heuristic is off, root, all, paper or engine, not '{value}'"
                    )))
                }
            };
        }
        for (key, value) in keys {
            match (key.as_str(), value.as_str()) {
                ("heuristic", _) => {}
                ("near", "0" | "1" | "2") => k.near = value.parse().expect("a digit"),
                ("near", _) => return Err(err(format!("near is 0, 1 or 2, not '{value}'"))),
                ("forced", _) => k.forced = switch(key, value).map_err(err)?,
                ("top", _) => {
                    k.top = value.parse().ok().filter(|&t| t >= 1).ok_or_else(|| {
                        err(format!("top is a count of moves from 1, not '{value}'"))
                    })?
                }
                ("bias", _) => {
                    k.bias = value
                        .parse()
                        .ok()
                        .filter(|b: &f32| b.is_finite() && *b >= 0.0)
                        .ok_or_else(|| err(format!("bias is a weight from 0, not '{value}'")))?
                }
                ("leaf", "rollout") => k.eval_leaves = false,
                ("leaf", "eval") => k.eval_leaves = true,
                ("leaf", _) => return Err(err(format!("leaf is rollout or eval, not '{value}'"))),
                ("vcf", _) => k.vcf = switch(key, value).map_err(err)?,
                ("stop", "five") => k.stop = Stop::Five,
                ("stop", "three") => k.stop = Stop::LiveThree,
                ("stop", "threat") => k.stop = Stop::Threat,
                ("stop", _) => {
                    return Err(err(format!("stop is five, three or threat, not '{value}'")))
                }
                ("weights", path) => {
                    k.weights =
                        super::tuning::load_patterns(std::path::Path::new(path)).map_err(err)?
                }
                (other, _) => {
                    let known = <Gomoku as crate::games::RegisteredGame>::MCTS_KEYS;
                    return Err(crate::agents::spec::unknown_search_key(text, other, known));
                }
            }
        }
        Ok(k)
    }
}

/// The move a forced reply takes among `moves`: a five of the mover's, else a block of the
/// opponent's.
fn forced_move(g: &Gomoku, moves: impl Iterator<Item = usize> + Clone) -> Option<usize> {
    let me = g.to_move();
    moves
        .clone()
        .find(|&p| g.wins_at(p, me))
        .or_else(|| moves.into_iter().find(|&p| g.wins_at(p, me.opponent())))
}

/// The rollout policy and tree knowledge of the Gomoku MCTS.
#[derive(Clone, Debug)]
pub struct GomokuRollout {
    pub knowledge: GomokuKnowledge,
    /// Stones on the board at the root of the current search (the root-only heuristic prunes
    /// the node with this many).
    root_stones: usize,
    /// Scores of the moves being pruned, reused.
    scored: Vec<(f32, Action)>,
    /// The empty points near the stones, for the leaf evaluation, reused.
    near: Vec<usize>,
    /// Whether `scored` holds the scores of the node `restrict` was last called on (the
    /// expansion's `child_bias` comes right after it).
    scored_fresh: bool,
}

impl GomokuRollout {
    pub fn new(knowledge: GomokuKnowledge) -> GomokuRollout {
        GomokuRollout {
            knowledge,
            root_stones: usize::MAX,
            scored: Vec::new(),
            scored_fresh: false,
            near: Vec::new(),
        }
    }

    /// Keeps the `top` moves by the pattern heuristic; a five, or the block of the opponent's,
    /// alone.
    fn prune(&mut self, state: &Gomoku, actions: &mut Vec<Action>) {
        let k = &self.knowledge;
        let me = state.to_move();
        let mut block = None;
        self.scored.clear();
        for &a in actions.iter() {
            let p = a as usize;
            // A line's `five` shape is the rules' winning run through the point.
            let (mine, theirs) = (
                point_shapes(state, p, me),
                point_shapes(state, p, me.opponent()),
            );
            if mine.five {
                actions.clear();
                actions.push(a);
                return;
            }
            if block.is_none() && theirs.five {
                block = Some(a);
            }
            self.scored
                .push((k.weights.shapes_score(&mine, &theirs), a));
        }
        if let Some(a) = block {
            actions.clear();
            actions.push(a);
            return;
        }
        let top = usize::from(k.top);
        if self.scored.len() > top {
            self.scored
                .select_nth_unstable_by(top - 1, |a, b| b.0.total_cmp(&a.0));
            self.scored.truncate(top);
        }
        actions.clear();
        actions.extend(self.scored.iter().map(|&(_, a)| a));
    }

    /// A leaf's value by the pattern evaluation (`leaf=eval`): a five to make wins, two of the
    /// opponent's lose, else the evaluation for the side to move through a logistic of the
    /// rival's scale.
    fn evaluated(&mut self, state: &Gomoku) -> Reward {
        if let Some(o) = state.outcome() {
            return o.into();
        }
        let me = state.to_move();
        state.near_points(2, &mut self.near);
        if self.near.iter().any(|&p| state.wins_at(p, me)) {
            return Outcome::win_for(me).into();
        }
        let theirs = self
            .near
            .iter()
            .filter(|&&p| state.wins_at(p, me.opponent()))
            .count();
        if theirs >= 2 {
            return Outcome::win_for(me.opponent()).into();
        }
        let score = evaluate(state, &self.knowledge.weights, &self.near) as f32;
        let mine = 1.0 / (1.0 + (-score / EVAL_SCALE).exp());
        let p1 = if me == Player::P1 { mine } else { 1.0 - mine };
        Reward::from_win_probability(p1)
    }
}

impl Default for GomokuRollout {
    /// The engine's own search: [`GomokuKnowledge::ENGINE`].
    fn default() -> GomokuRollout {
        GomokuRollout::new(GomokuKnowledge::ENGINE)
    }
}

impl RolloutPolicy<Gomoku> for GomokuRollout {
    const FRACTIONAL: bool = true;

    fn rollout_reward(&mut self, state: &mut Gomoku, rng: &mut Rng) -> Reward {
        if self.knowledge.eval_leaves {
            return self.evaluated(state);
        }
        self.rollout(state, rng).into()
    }

    fn begin_search(&mut self, root: &Gomoku) {
        self.root_stones = root.stones();
    }

    fn restrict(&mut self, state: &Gomoku, actions: &mut Vec<Action>) {
        let k = self.knowledge;
        self.scored_fresh = false;
        if k.near > 0 {
            let near = state.near_flags(i32::from(k.near));
            let before = actions.len();
            actions.retain(|&a| near[a as usize]);
            if actions.is_empty() && before > 0 {
                // Only a forbidden point was near: search them all rather than none.
                state.legal_actions(actions);
            }
        }
        let root = state.stones() == self.root_stones;
        let pruned = match k.prune {
            Prune::Off => false,
            Prune::Root => root,
            Prune::All => true,
        };
        if pruned {
            self.prune(state, actions);
            self.scored_fresh = true;
        } else if k.forced {
            if let Some(p) = forced_move(state, actions.iter().map(|&a| a as usize)) {
                if state.is_legal(p as Action) {
                    actions.clear();
                    actions.push(p as Action);
                }
            }
        }
        if k.vcf && root && actions.len() > 1 {
            let before = actions.clone();
            let mut threats = ThreatSearch::new();
            if let Some(p) = threats.vcf_or_defences(state, actions, ROOT_VCF_NODES, None) {
                actions.clear();
                actions.push(p);
            }
            self.scored_fresh &= *actions == before;
        }
    }

    fn gives_bias(&self) -> bool {
        self.knowledge.bias > 0.0
    }

    fn child_bias(&mut self, state: &Gomoku, actions: &[Action], out: &mut Vec<f32>) {
        out.clear();
        if !self.scored_fresh {
            self.scored.clear();
            let w = self.knowledge.weights;
            self.scored.extend(
                actions
                    .iter()
                    .map(|&a| (w.move_score(state, a as usize), a)),
            );
        }
        self.scored_fresh = false;
        let best = self.scored.iter().map(|s| s.0).fold(0.0f32, f32::max);
        let scale = self.knowledge.bias / (1.0 + best.max(0.0)).ln().max(f32::MIN_POSITIVE);
        for &a in actions {
            let score = self
                .scored
                .iter()
                .find(|s| s.1 == a)
                .map_or(0.0, |s| s.0.max(0.0));
            out.push(scale * (1.0 + score).ln());
        }
    }

    /// Random moves among the candidates (kept as a list that grows with each stone), with
    /// forced replies (a five, else the block of the opponent's), stopped where `stop` says.
    /// Each side's five points are found when its stone makes them: a four can only appear
    /// along the lines of the stone just played, which the shape table reads at once.
    fn rollout(&mut self, state: &mut Gomoku, rng: &mut Rng) -> Outcome {
        let k = self.knowledge;
        if k.near == 0 && !k.forced && k.stop == Stop::Five {
            return state.random_rollout(rng);
        }
        let d = i32::from(k.near.max(1));
        let flags = if k.near == 0 {
            let mut all = [false; MAX_POINTS];
            for (p, f) in all.iter_mut().enumerate().take(state.points()) {
                *f = state.stone(p).is_none();
            }
            all
        } else {
            state.near_flags(d)
        };
        let mut listed = flags;
        let mut list = [0u16; MAX_POINTS];
        let mut len = 0;
        for (p, &f) in flags.iter().enumerate().take(state.points()) {
            if f {
                list[len] = p as u16;
                len += 1;
            }
        }
        // Each player's five points (two are enough to know a four cannot be stopped), from
        // the tree's position and then from each stone played.
        let mut fives = FivePoints::default();
        if k.forced {
            fives.scan_start(state);
        }
        while !state.is_terminal() {
            let me = state.to_move();
            let forced = if k.forced {
                fives
                    .open(state, me)
                    .or_else(|| fives.open(state, me.opponent()))
            } else {
                None
            };
            let p = match forced.filter(|&p| state.is_legal(p as Action)) {
                Some(p) => p,
                None => {
                    let mut pick = None;
                    let mut tries = 0;
                    while len > 0 && tries < 4 * MAX_POINTS {
                        tries += 1;
                        let i = rng.below(len as u32) as usize;
                        let q = list[i] as usize;
                        if state.stone(q).is_some() {
                            // Taken since it was listed: drop it.
                            list[i] = list[len - 1];
                            len -= 1;
                            continue;
                        }
                        if state.is_legal(q as Action) {
                            pick = Some(q);
                            break;
                        }
                    }
                    match pick {
                        Some(q) => q,
                        // Nothing near is playable: any legal point, else a draw.
                        None => {
                            let mut moves = Vec::new();
                            state.legal_actions(&mut moves);
                            if moves.is_empty() {
                                return Outcome::Draw;
                            }
                            rng.pick(&moves) as usize
                        }
                    }
                }
            };
            state.play(p);
            if state.is_terminal() {
                break;
            }
            if k.forced || k.stop != Stop::Five {
                let shapes = point_shapes(state, p, me);
                if shapes.fours > 0 {
                    fives.add_from(state, p, me, &shapes);
                }
                let made = match k.stop {
                    Stop::Five => false,
                    Stop::LiveThree => shapes.best() >= Shape::LiveThree,
                    Stop::Threat => shapes.is_winning_threat(),
                };
                // The maker wins unless the opponent has a five to make first (looked for
                // along the opponent's lines when the five points are not tracked).
                if made {
                    let answer = if k.forced {
                        fives.open(state, me.opponent()).is_some()
                    } else {
                        FivePoints::any_five(state, me.opponent())
                    };
                    if !answer {
                        return Outcome::win_for(me);
                    }
                }
            }
            if k.near > 0 {
                let (c, r) = state.col_row(p);
                for dr in -d..=d {
                    for dc in -d..=d {
                        if let Some(q) = state.point(c + dc, r + dr) {
                            if !listed[q] && state.stone(q).is_none() {
                                listed[q] = true;
                                list[len] = q as u16;
                                len += 1;
                            }
                        }
                    }
                }
            }
        }
        state.outcome().expect("a finished game has an outcome")
    }
}

/// Each player's points that would make five, as a rollout learns of them (at most a few: a
/// point blocked since is skipped when read).
#[derive(Clone, Copy, Default)]
struct FivePoints {
    points: [[u16; 4]; 2],
    len: [u8; 2],
}

impl FivePoints {
    /// An open five point of `player`'s, forgetting the ones filled since.
    #[inline]
    fn open(&mut self, state: &Gomoku, player: Player) -> Option<usize> {
        let i = player.index();
        while self.len[i] > 0 {
            let p = usize::from(self.points[i][usize::from(self.len[i]) - 1]);
            if state.stone(p).is_none() {
                return Some(p);
            }
            self.len[i] -= 1;
        }
        None
    }

    fn push(&mut self, player: Player, p: usize) {
        let i = player.index();
        let n = usize::from(self.len[i]);
        if n < 4 && !self.points[i][..n].contains(&(p as u16)) {
            self.points[i][n] = p as u16;
            self.len[i] += 1;
        }
    }

    /// The five points of `player` along the lines through `p` where `shapes` has a four.
    fn add_from(&mut self, state: &Gomoku, p: usize, player: Player, shapes: &PointShapes) {
        let (c, r) = state.col_row(p);
        for (d, &(dc, dr)) in super::DIRECTIONS.iter().enumerate() {
            if !shapes.line(d).is_four() {
                continue;
            }
            for k in (-4..=4).filter(|&k| k != 0) {
                if let Some(q) = state.point(c + dc * k, r + dr * k) {
                    if state.stone(q).is_none() && state.wins_at(q, player) {
                        self.push(player, q);
                    }
                }
            }
        }
    }

    /// The five points at a rollout's start: along the lines of the last two stones (a four
    /// must be answered at once, so older ones are blocked), or the whole board where the
    /// moves are not known.
    fn scan_start(&mut self, state: &Gomoku) {
        let last = state.last_moves();
        if last.iter().all(Option::is_some) {
            for p in last.into_iter().flatten() {
                if let Some(owner) = state.stone(p) {
                    let shapes = point_shapes(state, p, owner);
                    if shapes.fours > 0 {
                        self.add_from(state, p, owner, &shapes);
                    }
                }
            }
            return;
        }
        for q in 0..state.points() {
            if state.stone(q).is_none() {
                for player in [Player::P1, Player::P2] {
                    if state.wins_at(q, player) {
                        self.push(player, q);
                    }
                }
            }
        }
    }

    /// Whether `player` has a five to make anywhere.
    fn any_five(state: &Gomoku, player: Player) -> bool {
        (0..state.points()).any(|q| state.stone(q).is_none() && state.wins_at(q, player))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;
    use crate::games::gomoku::shape_board::ShapeBoard;
    use crate::games::gomoku::threat_space::ThreatKind;
    use crate::games::gomoku::Rule;

    use crate::games::gomoku::tests::double_four;

    fn board(black: &[&str], white: &[&str], to_move: Player) -> Gomoku {
        crate::games::gomoku::tests::board(Rule::Freestyle, black, white, to_move)
    }

    fn restricted(g: &Gomoku, knowledge: GomokuKnowledge) -> Vec<String> {
        let mut actions = Vec::new();
        g.legal_actions(&mut actions);
        GomokuRollout::new(knowledge).restrict(g, &mut actions);
        let mut names: Vec<String> = actions.iter().map(|&a| g.format_action(a)).collect();
        names.sort();
        names
    }

    #[test]
    fn candidates_and_forced_replies() {
        let near = |near| GomokuKnowledge {
            near,
            ..GomokuKnowledge::PLAIN
        };
        // The empty board: the centre only.
        let empty = Gomoku::new(15, Rule::Freestyle).unwrap();
        assert_eq!(restricted(&empty, near(1)), ["h8"]);
        // One stone in the corner: its three neighbours; within 2, eight.
        let g = board(&["a1"], &[], Player::P2);
        assert_eq!(restricted(&g, near(1)), ["a2", "b1", "b2"]);
        assert_eq!(restricted(&g, near(2)).len(), 8);
        // Plain MCTS keeps every empty point.
        assert_eq!(restricted(&g, GomokuKnowledge::default()).len(), 224);
        // Black's four d8-g8 with white to move: white must block at c8 or h8; with white's
        // own four, white wins instead.
        let g = board(
            &["d8", "e8", "f8", "g8", "a1"],
            &["c8", "a3", "a5", "a7"],
            Player::P2,
        );
        assert_eq!(restricted(&g, GomokuKnowledge::PAPER), ["h8"]);
        let g = board(
            &["d8", "e8", "f8", "g8", "a1"],
            &["c8", "b3", "b4", "b5", "b6"],
            Player::P2,
        );
        let wins = restricted(&g, GomokuKnowledge::PAPER);
        assert!(wins == ["b2"] || wins == ["b7"], "{wins:?}");
    }

    #[test]
    fn rollouts_end_in_results() {
        let mut rng = Rng::new(2);
        for knowledge in [
            GomokuKnowledge::ENGINE,
            GomokuKnowledge::PAPER,
            GomokuKnowledge {
                forced: true,
                ..GomokuKnowledge::default()
            },
        ] {
            for rule in [Rule::Freestyle, Rule::Renju] {
                for _ in 0..20 {
                    let mut g = Gomoku::new(11, rule).unwrap();
                    let o = GomokuRollout::new(knowledge).rollout(&mut g, &mut rng);
                    assert!(g.is_terminal() || o == Outcome::Draw);
                    if g.is_terminal() {
                        assert_eq!(g.outcome(), Some(o));
                    }
                }
            }
        }
        let keys = |t: &str| {
            let (key, value) = t.split_once('=').unwrap();
            vec![(key.to_string(), value.to_string())]
        };
        let near = GomokuKnowledge::from_keys("m", &keys("near=2")).unwrap();
        assert_eq!(near.near, 2);
        for (bad, says) in [
            ("near=3", "near is 0, 1 or 2"),
            ("forced=yes", "forced is 0 or 1"),
            ("heuristic=leaf", "heuristic is off, root, all"),
            ("top=0", "top is a count"),
            ("stop=four", "stop is five, three or threat"),
            ("bias=-1", "bias is a weight from 0"),
            ("vcf=2", "vcf is 0 or 1"),
            ("weights=/no/such/file.json", "/no/such/file.json"),
            (
                "depth=3",
                "unknown key 'depth' (it takes iterations, time_ms, threads, cp, counter, seed, heuristic, near, forced, top, stop, leaf, bias, vcf, weights)",
            ),
        ] {
            let e = GomokuKnowledge::from_keys("m", &keys(bad)).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        // A preset, then keys over it, whatever their order.
        let both = [
            ("stop".to_string(), "threat".to_string()),
            ("heuristic".to_string(), "paper".to_string()),
        ];
        let k = GomokuKnowledge::from_keys("m", &both).unwrap();
        assert_eq!(k.prune, Prune::Root);
        assert_eq!(k.stop, Stop::Threat);
        assert_eq!(
            GomokuKnowledge::from_keys("m", &[]).unwrap(),
            GomokuKnowledge::default()
        );
    }

    #[test]
    fn stopped_rollouts_credit_the_threat_maker() {
        // Black to move with e8-g8 open at both ends, white far away with nothing: a random
        // rollout that stops at a live three or a winning threat is won by whoever made it,
        // and the first such shape on this board can only be black's unless white builds one
        // from nothing; check every stopped result against the board it stopped on.
        let mut rng = Rng::new(9);
        for stop in [Stop::LiveThree, Stop::Threat] {
            let knowledge = GomokuKnowledge {
                near: 1,
                forced: true,
                stop,
                ..GomokuKnowledge::default()
            };
            for _ in 0..200 {
                let mut g = board(&["e8", "f8", "g8"], &["a1", "o15"], Player::P2);
                let o = GomokuRollout::new(knowledge).rollout(&mut g, &mut rng);
                if g.is_terminal() {
                    assert_eq!(g.outcome(), Some(o));
                    continue;
                }
                // Stopped: the winner's last stone made the shape, and the loser cannot make
                // five at once.
                let winner = match o {
                    Outcome::P1Win => Player::P1,
                    Outcome::P2Win => Player::P2,
                    Outcome::Draw => panic!("a stopped rollout has a winner"),
                };
                let last = g.last_moves()[0].unwrap();
                assert_eq!(g.stone(last), Some(winner));
                let shapes = point_shapes(&g, last, winner);
                match stop {
                    Stop::LiveThree => assert!(shapes.best() >= Shape::LiveThree),
                    _ => assert!(shapes.is_winning_threat()),
                }
                assert!((0..g.points())
                    .all(|q| g.stone(q).is_some() || !g.wins_at(q, winner.opponent())));
            }
        }
    }

    #[test]
    fn the_root_plays_a_vcf_and_defends_against_one() {
        let g = double_four(Player::P1);
        let vcf = GomokuKnowledge {
            vcf: true,
            ..GomokuKnowledge::ENGINE
        };
        let mut policy = GomokuRollout::new(vcf);
        policy.begin_search(&g);
        let mut actions = Vec::new();
        g.legal_actions(&mut actions);
        policy.restrict(&g, &mut actions);
        assert_eq!(actions.len(), 1);
        assert_eq!(g.format_action(actions[0]), "d8");
        // White to move in the same shape: every move kept stops black's VCF.
        let g = double_four(Player::P2);
        let mut policy = GomokuRollout::new(vcf);
        policy.begin_search(&g);
        let mut actions = Vec::new();
        g.legal_actions(&mut actions);
        policy.restrict(&g, &mut actions);
        assert!(!actions.is_empty());
        for a in actions {
            let mut after = g;
            after.apply(a);
            let mut board = ShapeBoard::new(&after);
            let vcf = ThreatSearch::new().find(&mut board, ThreatKind::Vcf, 30, 20_000, None);
            assert_eq!(vcf, None, "{}", g.format_action(a));
        }
    }
}
