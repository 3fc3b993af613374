//! The rival: alpha-beta over the pattern evaluation with a threat-space search of continuous
//! fours (VCF), under a time budget (`alphabeta:time_ms=...`), so that the MCTS players have
//! something that is not MCTS to be measured against.
//!
//! * **Threats first.** A five is played at once; the opponent's five point is blocked. Then a
//!   VCF search (victory by continuous fours: every move of the attacker makes a four, the
//!   defender's reply is the one block, until a five or a live four) finds a forced win; one is
//!   also looked for against us (a VCF of the opponent's if we passed), and if there is one
//!   the moves searched are the ones that break it (its points and the fours we can make).
//! * **Alpha-beta.** Iterative deepening, negamax with alpha-beta; each node's moves are the
//!   empty points within two of a stone, ordered by the pattern heuristic and cut to the best
//!   [`BEAM`]. A node where the opponent threatens five has only the block (a forced reply
//!   does not count as depth). The leaf evaluation sums, over the empty points near the
//!   stones, the shapes each side would make there ([`evaluate`]).

use std::time::{Duration, Instant};

use super::patterns::{point_shapes, PatternWeights};
use super::threat_space::ThreatSearch;
use super::Gomoku;
use crate::agents::{Agent, AgentError, Choice};
use crate::game::{Action, Game, Player};

/// The score of a won position (less the plies to the win).
pub const WIN: i32 = 10_000_000;
/// Moves searched at each node of the alpha-beta.
pub const BEAM: usize = 12;
/// Nodes the rival's VCF searches may visit.
const VCF_NODES: u64 = 20_000;

/// The side to move's view of the position: for each empty point near the stones, the shapes
/// each side would make there, weighted by the attack weights; the side to move's count a
/// little more (it moves first).
pub fn evaluate(g: &Gomoku, weights: &PatternWeights, points: &[usize]) -> i32 {
    let me = g.to_move();
    let (mut mine, mut theirs) = (0.0f32, 0.0f32);
    for &p in points {
        let (a, b) = (point_shapes(g, p, me), point_shapes(g, p, me.opponent()));
        for d in 0..4 {
            mine += weights.attack[a.lines[d] as usize];
            theirs += weights.attack[b.lines[d] as usize];
        }
    }
    (mine * 1.2 - theirs) as i32
}

/// The points of `points` where `player` would make five.
fn five_points(g: &Gomoku, player: Player, points: &[usize], out: &mut Vec<usize>) {
    out.clear();
    out.extend(points.iter().copied().filter(|&p| g.wins_at(p, player)));
}

/// The alpha-beta rival.
pub struct AlphaBeta {
    name: String,
    time: Duration,
    max_depth: u32,
    weights: PatternWeights,
    deadline: Instant,
    stopped: bool,
    nodes: u64,
    threats: ThreatSearch,
}

impl AlphaBeta {
    pub fn new(
        name: impl Into<String>,
        time: Duration,
        max_depth: u32,
        weights: PatternWeights,
    ) -> AlphaBeta {
        AlphaBeta {
            name: name.into(),
            time,
            max_depth,
            weights,
            deadline: Instant::now(),
            stopped: false,
            nodes: 0,
            threats: ThreatSearch::new(),
        }
    }

    /// The move and its score for the side to move (`None` when there is no legal move).
    pub fn best_move(&mut self, state: &Gomoku) -> Option<(Action, i32)> {
        self.deadline = Instant::now() + self.time;
        self.stopped = false;
        self.nodes = 0;
        let me = state.to_move();
        let mut near = Vec::new();
        state.near_points(2, &mut near);
        near.retain(|&p| state.is_legal(p as Action));
        if near.is_empty() {
            let mut all = Vec::new();
            state.legal_actions(&mut all);
            return all.first().map(|&a| (a, 0));
        }
        let mut fives = Vec::new();
        five_points(state, me, &near, &mut fives);
        if let Some(&p) = fives.first() {
            return Some((p as Action, WIN));
        }
        five_points(state, me.opponent(), &near, &mut fives);
        if let Some(&p) = fives.first() {
            // Blocked, or lost whatever we do if there are two.
            let score = if fives.len() > 1 { -WIN } else { 0 };
            return Some((p as Action, score));
        }
        // A VCF of ours is played; else the moves to search are the heuristic's best, and
        // when the opponent has a VCF, only the ones that may break it.
        let mut moves = self.ordered(state, &near, BEAM * 2);
        let by = Some(Instant::now() + self.time / 3);
        if let Some(p) = self
            .threats
            .vcf_or_defences(state, &mut moves, VCF_NODES, by)
        {
            return Some((p, WIN - 1));
        }
        self.deepen(state, moves)
    }

    /// Iterative deepening over the root's `moves` (not empty), the best first next time.
    fn deepen(&mut self, state: &Gomoku, mut moves: Vec<Action>) -> Option<(Action, i32)> {
        let mut best = (moves[0], 0);
        for depth in 1..=self.max_depth {
            let mut alpha = -WIN - 1;
            let mut depth_best = None;
            for i in 0..moves.len() {
                let a = moves[i];
                let mut child = *state;
                child.play(a as usize);
                let score = -self.search(&child, depth - 1, -WIN - 1, -alpha, 1);
                if self.stopped {
                    break;
                }
                if score > alpha {
                    alpha = score;
                    depth_best = Some((a, score));
                    // Search the best first next time.
                    moves[..=i].rotate_right(1);
                }
            }
            if self.stopped {
                // A partial iteration's best stands only if it beat the last one's first move.
                if let Some(b) = depth_best {
                    if b.0 != best.0 && b.1 > best.1 {
                        best = b;
                    }
                }
                break;
            }
            if let Some(b) = depth_best {
                best = b;
            }
            if best.1.abs() >= WIN - 100 {
                break;
            }
        }
        Some(best)
    }

    /// `near` by the heuristic for the side to move, the best `keep` (legal ones only).
    fn ordered(&self, state: &Gomoku, near: &[usize], keep: usize) -> Vec<Action> {
        let mut scored: Vec<(f32, usize)> = near
            .iter()
            .map(|&p| (self.weights.move_score(state, p), p))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored
            .into_iter()
            .map(|(_, p)| p as Action)
            .filter(|&a| state.is_legal(a))
            .take(keep)
            .collect()
    }

    fn out_of_time(&mut self) -> bool {
        if self.nodes % 1024 == 0 && Instant::now() >= self.deadline {
            self.stopped = true;
        }
        self.stopped
    }

    /// Negamax with alpha-beta from the side to move in `state`.
    fn search(&mut self, state: &Gomoku, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        if let Some(w) = state.winner() {
            return if w == state.to_move() {
                WIN - ply
            } else {
                -(WIN - ply)
            };
        }
        let mut near = Vec::new();
        state.near_points(2, &mut near);
        if near.is_empty() {
            return 0;
        }
        let me = state.to_move();
        let mut fives = Vec::new();
        five_points(state, me, &near, &mut fives);
        if fives.iter().any(|&p| state.is_legal(p as Action)) {
            return WIN - ply - 1;
        }
        five_points(state, me.opponent(), &near, &mut fives);
        let moves: Vec<Action> = match fives.len() {
            0 if depth == 0 => return evaluate(state, &self.weights, &near),
            0 => self.ordered(state, &near, BEAM),
            1 => vec![fives[0] as Action],
            _ => return -(WIN - ply - 2),
        };
        let depth = if fives.len() == 1 { depth } else { depth - 1 };
        let mut best = -WIN - 1;
        for a in moves {
            if !state.is_legal(a) {
                continue;
            }
            let mut child = *state;
            child.play(a as usize);
            let score = -self.search(&child, depth, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        if best == -WIN - 1 {
            // Only forbidden points: a renju black that cannot block.
            return -(WIN - ply - 2);
        }
        best
    }
}

impl Agent<Gomoku> for AlphaBeta {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, _start: &Gomoku, _moves: &[Action]) -> Result<(), AgentError> {
        self.threats.clear();
        Ok(())
    }

    fn choose(&mut self, state: &Gomoku, _moves: &[Action]) -> Result<Choice, AgentError> {
        let (action, score) = self
            .best_move(state)
            .ok_or_else(|| AgentError::new("no legal move"))?;
        Ok(Choice::scored(
            action,
            self.nodes,
            score,
            WIN - 1000,
            2_000.0,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;
    use crate::games::gomoku::Rule;

    fn position(rows: &str, to_move: Player) -> Gomoku {
        Gomoku::from_board(15, Rule::Freestyle, rows, to_move).unwrap()
    }

    fn rival() -> AlphaBeta {
        AlphaBeta::new(
            "ab",
            Duration::from_millis(300),
            64,
            PatternWeights::DEFAULT,
        )
    }

    use crate::games::gomoku::tests::{double_four, ranks_board as board};

    #[test]
    fn wins_blocks_and_finds_continuous_fours() {
        // Black's four d8-g8: black to move makes five; white to move blocks.
        let b = board(&[(8, "...XXXX"), (1, "O.O.O.O")]);
        let g = position(&b, Player::P1);
        let (a, s) = rival().best_move(&g).unwrap();
        assert!(["c8", "h8"].contains(&g.format_action(a).as_str()));
        assert_eq!(s, WIN);
        let b = board(&[(8, "...XXXX"), (1, "O.O.O")]);
        let g = position(&b, Player::P2);
        let (a, _) = rival().best_move(&g).unwrap();
        assert!(["c8", "h8"].contains(&g.format_action(a).as_str()));
        // A VCF: the double four at d8; white has nothing. The rival plays it through, each of
        // its moves a four or a five and scored as won, the defender's block forced.
        let mut state = double_four(Player::P1);
        let mut plies = 0;
        while !state.is_terminal() {
            let (p, score) = rival().best_move(&state).unwrap();
            let shapes = point_shapes(&state, p as usize, Player::P1);
            assert!(
                shapes.five || shapes.fours > 0,
                "{}",
                state.point_name(p as usize)
            );
            assert!(score >= WIN - 1, "{score}");
            state.play(p as usize);
            if state.is_terminal() {
                break;
            }
            let mut near = Vec::new();
            state.near_points(1, &mut near);
            let mut fives = Vec::new();
            five_points(&state, Player::P1, &near, &mut fives);
            assert!(!fives.is_empty());
            state.play(fives[0]);
            plies += 1;
            assert!(plies < 20);
        }
        assert_eq!(state.winner(), Some(Player::P1));
        // Without the attacker's stones there is no VCF, and no win is claimed.
        let quiet = position(&board(&[(8, "...X")]), Player::P2);
        let (_, score) = rival().best_move(&quiet).unwrap();
        assert!(score < WIN - 1000, "{score}");
    }

    #[test]
    fn the_rival_stops_a_live_three_and_beats_random() {
        // White to move against black's live three e8-g8: it blocks at an end (d8 or h8), or
        // the split points that also stop the live four.
        let b = board(&[(8, "....XXX"), (1, "O.O")]);
        let g = position(&b, Player::P2);
        let (a, _) = rival().best_move(&g).unwrap();
        let name = g.format_action(a);
        assert!(["d8", "h8", "c8", "i8"].contains(&name.as_str()), "{name}");
        // Against random moves near the stones it wins both seats.
        let mut rng = crate::rng::Rng::new(5);
        for seat in [Player::P1, Player::P2] {
            let mut g = Gomoku::new(15, Rule::Freestyle).unwrap();
            let mut r = AlphaBeta::new("ab", Duration::from_millis(20), 3, PatternWeights::DEFAULT);
            while !g.is_terminal() {
                let a = if g.to_move() == seat {
                    r.best_move(&g).unwrap().0
                } else {
                    let mut near = Vec::new();
                    g.near_points(1, &mut near);
                    rng.pick(&near) as Action
                };
                g.apply(a);
            }
            assert_eq!(g.winner(), Some(seat));
        }
    }
}
