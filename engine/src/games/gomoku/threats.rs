//! Threat-space search: victory by continuous fours (VCF). The attacker plays only moves that
//! make a four (or five); the defender's reply is forced, the one block of the five point; the
//! line wins at a five, at a live four or two fours at once (two five points, one block), and
//! fails where the defender makes five first or the attacker runs out of fours. Used by the
//! rival at its root and by the MCTS's `vcf` switch (a won root played without search, a lost
//! one narrowed to the moves that break the opponent's VCF).

use super::patterns::{point_shapes, Shape};
use super::{Gomoku, MAX_POINTS};
use crate::game::{Action, Game, Player};

/// The deepest VCF line, in attacker moves.
pub const VCF_DEPTH: u32 = 12;

/// The empty points within `d` of a stone (the centre on an empty board), as flags.
pub fn near_flags(g: &Gomoku, d: i32) -> [bool; MAX_POINTS] {
    let mut near = [false; MAX_POINTS];
    let n = g.size() as i32;
    if g.stones() == 0 {
        near[g.point(n / 2, n / 2).expect("the centre")] = true;
        return near;
    }
    for p in 0..g.points() {
        if g.stone(p).is_none() {
            continue;
        }
        let (c, r) = g.col_row(p);
        for dr in -d..=d {
            for dc in -d..=d {
                if let Some(q) = g.point(c + dc, r + dr) {
                    near[q] |= g.stone(q).is_none();
                }
            }
        }
    }
    near
}

/// The same points, listed in ascending order.
pub fn candidates(g: &Gomoku, d: i32, out: &mut Vec<usize>) {
    out.clear();
    let near = near_flags(g, d);
    out.extend((0..g.points()).filter(|&p| near[p]));
}

/// The points where `player` would make five.
pub fn five_points(g: &Gomoku, player: Player, points: &[usize], out: &mut Vec<usize>) {
    out.clear();
    out.extend(points.iter().copied().filter(|&p| g.wins_at(p, player)));
}

/// A VCF searcher with a budget of nodes a search.
#[derive(Clone, Debug)]
pub struct Vcf {
    limit: u32,
    nodes: u32,
}

impl Vcf {
    pub fn new(limit: u32) -> Vcf {
        Vcf { limit, nodes: 0 }
    }

    /// A first move of a VCF of the side to move, if one is found within the budget.
    pub fn find(&mut self, state: &Gomoku) -> Option<usize> {
        self.nodes = 0;
        self.search(state, state.to_move(), VCF_DEPTH)
    }

    /// Whether the opponent of the side to move would have a VCF if the side to move passed.
    pub fn opponent_has(&mut self, state: &Gomoku) -> bool {
        let mut passed = *state;
        passed.to_move = state.to_move().opponent();
        self.find(&passed).is_some()
    }

    /// Where the opponent has a VCF, keeps the moves of `moves` after which it has none (all
    /// of them when none does: the game is lost anyway). Each check has a quarter of the
    /// budget.
    pub fn keep_defences(&mut self, state: &Gomoku, moves: &mut Vec<Action>) {
        if !self.opponent_has(state) {
            return;
        }
        let mut quarter = Vcf::new(self.limit / 4);
        let breaking: Vec<Action> = moves
            .iter()
            .copied()
            .filter(|&a| {
                let mut after = *state;
                after.play(a as usize);
                !after.is_terminal() && quarter.find(&after).is_none()
            })
            .collect();
        if !breaking.is_empty() {
            *moves = breaking;
        }
    }

    /// A first move of a victory by continuous fours for `attacker` (to move in `state`), if
    /// one is found within the depth and node limits.
    fn search(&mut self, state: &Gomoku, attacker: Player, depth: u32) -> Option<usize> {
        if depth == 0 || self.nodes >= self.limit {
            return None;
        }
        let mut near = Vec::new();
        candidates(state, 1, &mut near);
        let defender = attacker.opponent();
        let mut blocks = Vec::new();
        five_points(state, defender, &near, &mut blocks);
        for &p in &near {
            self.nodes += 1;
            if !state.is_legal(p as Action) {
                continue;
            }
            if state.wins_at(p, attacker) {
                return Some(p);
            }
            // The defender's own five point must be blocked by this very move.
            if blocks.iter().any(|&b| b != p) {
                continue;
            }
            let shapes = point_shapes(state, p, attacker);
            if shapes.fours == 0 {
                continue;
            }
            let mut after = *state;
            after.play(p);
            // The defender's answers: a five of its own ends the line; else the block.
            let mut line = Vec::new();
            candidates(&after, 1, &mut line);
            let mut fives = Vec::new();
            five_points(&after, attacker, &line, &mut fives);
            if fives.len() >= 2 || shapes.lines.contains(&(Shape::LiveFour as u8)) {
                if !line.iter().any(|&q| after.wins_at(q, defender)) {
                    return Some(p);
                }
                continue;
            }
            let Some(&block) = fives.first() else {
                continue;
            };
            if after.wins_at(block, defender) || !after.is_legal(block as Action) {
                continue;
            }
            let mut answered = after;
            answered.play(block);
            if answered.is_terminal() {
                continue;
            }
            if self.search(&answered, attacker, depth - 1).is_some() {
                return Some(p);
            }
            if self.nodes >= self.limit {
                return None;
            }
        }
        None
    }
}
