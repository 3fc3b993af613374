//! The first of the paper's knowledge for MCTS (its sections 2.2 and 4): candidate moves only
//! near the stones, and fixed replies to a five, in the tree and in the rollouts. Each is a
//! switch of `mcts` on Gomoku:
//!
//! * `near=0|1|2`: the moves searched and played out are the empty points within this many
//!   points (king steps) of a stone; the centre on an empty board. 0: every empty point (plain
//!   MCTS, the default).
//! * `forced=0|1`: where the player to move can make five it plays that; else where the
//!   opponent could make five, it blocks there (off by default).
//!
//! The pattern heuristic, pruning to the top moves and the rollouts' stop conditions are the
//! next steps.

use super::{Gomoku, MAX_POINTS};
use crate::game::{Action, Game, Outcome};
use crate::mcts::RolloutPolicy;
use crate::rng::Rng;

/// The switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GomokuKnowledge {
    pub near: u8,
    pub forced: bool,
}

impl GomokuKnowledge {
    /// The paper's: candidates within 2 of a stone, and forced replies.
    pub const PAPER: GomokuKnowledge = GomokuKnowledge {
        near: 2,
        forced: true,
    };

    /// The engine's own search (the protocol, `play`, `analyse`, the Gomocup brain): candidates
    /// next to a stone. Measured at 0.2 s a move against plain MCTS: `near=1` 10-0, `near=2`
    /// 8-2; the forced replies did not help (`near=2,forced=1` against `near=2` 3-7; 10 games
    /// each; docs/gomoku.md), so they stay off until the tree and the rollouts use them better.
    pub const ENGINE: GomokuKnowledge = GomokuKnowledge {
        near: 1,
        forced: false,
    };

    /// Reads the Gomoku keys of an `mcts` spec.
    pub fn from_keys(text: &str, keys: &[(String, String)]) -> Result<GomokuKnowledge, String> {
        let err = |e: String| format!("player '{text}': {e}");
        let mut k = GomokuKnowledge::default();
        for (key, value) in keys {
            match (key.as_str(), value.as_str()) {
                ("near", "0" | "1" | "2") => k.near = value.parse().expect("a digit"),
                ("near", _) => return Err(err(format!("near is 0, 1 or 2, not '{value}'"))),
                ("forced", "0" | "off") => k.forced = false,
                ("forced", "1" | "on") => k.forced = true,
                ("forced", _) => return Err(err(format!("forced is 0 or 1, not '{value}'"))),
                (other, _) => {
                    return Err(err(format!(
                        "{other} is not a key of the Gomoku search (near, forced)"
                    )))
                }
            }
        }
        Ok(k)
    }
}

/// The empty points within `d` of a stone (the centre on an empty board), as flags.
fn near_stones(g: &Gomoku, d: i32) -> [bool; MAX_POINTS] {
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
#[derive(Clone, Copy, Debug)]
pub struct GomokuRollout {
    pub knowledge: GomokuKnowledge,
}

impl Default for GomokuRollout {
    /// The engine's own search: [`GomokuKnowledge::ENGINE`].
    fn default() -> GomokuRollout {
        GomokuRollout {
            knowledge: GomokuKnowledge::ENGINE,
        }
    }
}

impl RolloutPolicy<Gomoku> for GomokuRollout {
    fn restrict(&mut self, state: &Gomoku, actions: &mut Vec<Action>) {
        let k = self.knowledge;
        if k.near > 0 {
            let near = near_stones(state, i32::from(k.near));
            let before = actions.len();
            actions.retain(|&a| near[a as usize]);
            if actions.is_empty() && before > 0 {
                // Only a forbidden point was near: search them all rather than none.
                state.legal_actions(actions);
            }
        }
        if k.forced {
            if let Some(p) = forced_move(state, actions.iter().map(|&a| a as usize)) {
                if state.is_legal(p as Action) {
                    actions.clear();
                    actions.push(p as Action);
                }
            }
        }
    }

    /// Random moves among the candidates (kept as a list that grows with each stone), with
    /// forced replies looked for along the lines of the last two stones.
    fn rollout(&mut self, state: &mut Gomoku, rng: &mut Rng) -> Outcome {
        let k = self.knowledge;
        if k.near == 0 && !k.forced {
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
            near_stones(state, d)
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
        let mut last: [Option<usize>; 2] = [None, None];
        while !state.is_terminal() {
            let mut forced = None;
            if k.forced {
                let around = last.iter().flatten().flat_map(|&p| line_points(state, p));
                forced = forced_move(state, around.filter(|&q| state.stone(q).is_none()));
                if forced.is_some_and(|p| !state.is_legal(p as Action)) {
                    forced = None;
                }
            }
            let p = match forced {
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
                            moves[rng.below(moves.len() as u32) as usize] as usize
                        }
                    }
                }
            };
            state.play(p);
            last = [last[1], Some(p)];
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

/// The points up to four away from `p` along its four lines.
fn line_points(g: &Gomoku, p: usize) -> impl Iterator<Item = usize> + Clone + '_ {
    let (c, r) = g.col_row(p);
    super::DIRECTIONS.iter().flat_map(move |&(dc, dr)| {
        (-4..=4)
            .filter(|&k| k != 0)
            .filter_map(move |k| g.point(c + dc * k, r + dr * k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;
    use crate::games::gomoku::Rule;

    fn board(black: &[&str], white: &[&str], to_move: Player) -> Gomoku {
        let mut g = Gomoku::new(15, Rule::Freestyle).unwrap();
        for (names, player) in [(black, Player::P1), (white, Player::P2)] {
            for name in names {
                let p = g.parse_action(name).unwrap() as usize;
                g.put(p, Some(player));
            }
        }
        g.to_move = to_move;
        g
    }

    fn restricted(g: &Gomoku, knowledge: GomokuKnowledge) -> Vec<String> {
        let mut actions = Vec::new();
        g.legal_actions(&mut actions);
        GomokuRollout { knowledge }.restrict(g, &mut actions);
        let mut names: Vec<String> = actions.iter().map(|&a| g.format_action(a)).collect();
        names.sort();
        names
    }

    #[test]
    fn candidates_and_forced_replies() {
        let near1 = GomokuKnowledge {
            near: 1,
            forced: false,
        };
        // The empty board: the centre only.
        let empty = Gomoku::new(15, Rule::Freestyle).unwrap();
        assert_eq!(restricted(&empty, near1), ["h8"]);
        // One stone in the corner: its three neighbours; within 2, eight.
        let g = board(&["a1"], &[], Player::P2);
        assert_eq!(restricted(&g, near1), ["a2", "b1", "b2"]);
        assert_eq!(
            restricted(
                &g,
                GomokuKnowledge {
                    near: 2,
                    forced: false
                }
            )
            .len(),
            8
        );
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
                near: 0,
                forced: true,
            },
        ] {
            for rule in [Rule::Freestyle, Rule::Renju] {
                for _ in 0..20 {
                    let mut g = Gomoku::new(11, rule).unwrap();
                    let o = GomokuRollout { knowledge }.rollout(&mut g, &mut rng);
                    assert!(g.is_terminal() || o == Outcome::Draw);
                    if g.is_terminal() {
                        assert_eq!(g.outcome(), Some(o));
                    }
                }
            }
        }
        let keys = |t: &str| {
            vec![(
                t.split('=').next().unwrap().to_string(),
                t.split('=').nth(1).unwrap().to_string(),
            )]
        };
        assert_eq!(
            GomokuKnowledge::from_keys("m", &keys("near=2"))
                .unwrap()
                .near,
            2
        );
        assert!(GomokuKnowledge::from_keys("m", &keys("near=3"))
            .unwrap_err()
            .contains("near is 0, 1 or 2"));
        assert!(GomokuKnowledge::from_keys("m", &keys("forced=yes"))
            .unwrap_err()
            .contains("forced is 0 or 1"));
    }
}
