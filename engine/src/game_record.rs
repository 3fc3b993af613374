//! The byte layout of one game record (the payload inside a record frame), little-endian
//! throughout. `data/FORMAT.md` is the same text for readers in other languages.
//!
//! ```text
//! u64 game_index       u64 seed           u8 outcome (0 P1 win, 1 P2 win, 2 draw)
//! u16 score_p1         u16 score_p2       u16 num_moves
//! num_moves times:
//!   u16 action   u8 player (1 or 2)   u8 kind (0 searched, 1 sampled, 2 given, 3 solved)
//!   u32 iterations   u16 num_root
//!   num_root times: u16 action   u32 visits   u32 p1_wins   u32 p2_wins
//! ```

use crate::game::{Action, Outcome, Player};

/// How a recorded move was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveKind {
    /// The search's choice (most visits).
    Searched = 0,
    /// Searched, then drawn among the root moves in proportion to their visits (for variety).
    Sampled = 1,
    /// Not searched: a random opening move or a move of a given starting position.
    Given = 2,
    /// Played by the exact endgame solver (self-play's `solver_edges`): a perfect move.
    Solved = 3,
}

/// The visits of the one root entry that records an estimate ([`RootStat::estimate`]).
pub const ESTIMATE_VISITS: u32 = 1000;

/// One root move of the search that chose a recorded move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct RootStat {
    pub action: Action,
    pub visits: u32,
    /// Rollouts through this move that P1 won, and that P2 won (draws count in neither).
    pub p1_wins: u32,
    pub p2_wins: u32,
}

impl RootStat {
    /// Every root move of `result`, its counts capped at `u32::MAX`.
    pub fn of_search(result: &crate::mcts::SearchResult) -> Vec<RootStat> {
        let cap = |v: u64| v.min(u32::MAX as u64) as u32;
        result
            .root_moves
            .iter()
            .map(|m| RootStat {
                action: m.action,
                visits: cap(m.visits),
                p1_wins: cap(m.p1_wins),
                p2_wins: cap(m.p2_wins),
            })
            .collect()
    }

    /// The one root entry that records a search without root statistics (an alpha-beta
    /// search, which gives a move and its estimate): the chosen move with [`ESTIMATE_VISITS`]
    /// visits and the mover's estimated chance to win, `win` in [0, 1], as its wins (no draws).
    /// Read back, its value for the mover is `2 win - 1`, what `train run --value-targets
    /// search` learns.
    pub fn estimate(action: Action, mover: Player, win: f64) -> RootStat {
        let n = ESTIMATE_VISITS;
        let mine = (win.clamp(0.0, 1.0) * f64::from(n)).round() as u32;
        let (p1_wins, p2_wins) = match mover {
            Player::P1 => (mine, n - mine),
            Player::P2 => (n - mine, mine),
        };
        RootStat {
            action,
            visits: n,
            p1_wins,
            p2_wins,
        }
    }

    /// Mean result from `player`'s view, in [-1, 1]: (wins - losses) / visits.
    pub fn value_for(&self, player: Player) -> f64 {
        let (w1, w2, n) = (self.p1_wins, self.p2_wins, self.visits);
        crate::mcts::mean_result(w1 as u64, w2 as u64, n as u64, player)
    }
}

/// One move of a recorded game, with the search behind it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct MoveRecord {
    pub action: Action,
    /// Who made the move (in Dots and Boxes a player moves again after closing a box).
    pub player: Player,
    pub kind: MoveKind,
    /// Search iterations spent on the move (0 for a given move).
    pub iterations: u32,
    /// Every root move of that search, in ascending action order (empty for a given move, or
    /// when the run was told not to keep root statistics).
    pub root: Vec<RootStat>,
}

impl MoveRecord {
    /// A move made without a search (an opening's, a random one, a replayed one), of `kind`
    /// (`Given`, or `Solved` by an oracle).
    pub fn unsearched(action: Action, player: Player, kind: MoveKind) -> MoveRecord {
        MoveRecord {
            action,
            player,
            kind,
            iterations: 0,
            root: Vec::new(),
        }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct GameRecord {
    /// The game's number in its run: with the run's base seed it fixes the game.
    pub index: u64,
    /// The seed the game was played with (derived from the run's seed and `index`).
    pub seed: u64,
    pub outcome: Outcome,
    /// Final scores (boxes in Dots and Boxes; 1-0, 0-1 or 0-0 in games without a score).
    pub scores: [u32; 2],
    pub moves: Vec<MoveRecord>,
}

impl GameRecord {
    /// The same game with every action, played or searched at a root, renamed by `map`: the
    /// image of the game under a symmetry of its board. Root moves stay in ascending order.
    pub fn with_actions_mapped(&self, map: impl Fn(Action) -> Action) -> GameRecord {
        let moves = self
            .moves
            .iter()
            .map(|m| {
                let mut root: Vec<RootStat> = m
                    .root
                    .iter()
                    .map(|r| RootStat {
                        action: map(r.action),
                        ..*r
                    })
                    .collect();
                root.sort_by_key(|r| r.action);
                MoveRecord {
                    action: map(m.action),
                    player: m.player,
                    kind: m.kind,
                    iterations: m.iterations,
                    root,
                }
            })
            .collect();
        GameRecord {
            index: self.index,
            seed: self.seed,
            outcome: self.outcome,
            scores: self.scores,
            moves,
        }
    }
}

/// The final scores a record keeps for a finished `state` with `outcome`: the game's own
/// scores, or 1-0, 0-1, 0-0 for a game without scores.
pub fn recorded_scores<G: crate::game::Game>(state: &G, outcome: Outcome) -> [u32; 2] {
    state.scores().unwrap_or(match outcome {
        Outcome::P1Win => [1, 0],
        Outcome::P2Win => [0, 1],
        Outcome::Draw => [0, 0],
    })
}

/// Bytes of a record before its moves, and of a move before its root statistics.
const GAME_FIXED: usize = 8 + 8 + 1 + 2 + 2 + 2;
const MOVE_FIXED: usize = 2 + 1 + 1 + 4 + 2;
const ROOT_ENTRY: usize = 2 + 4 + 4 + 4;

fn outcome_code(o: Outcome) -> u8 {
    match o {
        Outcome::P1Win => 0,
        Outcome::P2Win => 1,
        Outcome::Draw => 2,
    }
}

/// The class id of an outcome, as the value net's outputs and exported labels number them:
/// 0 = P1 wins, 1 = P2 wins, 2 = draw.
pub fn outcome_class(o: Outcome) -> u8 {
    outcome_code(o)
}

/// Appends the payload of `game` to `out`. Fails if a count does not fit its field.
pub fn encode_game(game: &GameRecord, out: &mut Vec<u8>) -> Result<(), String> {
    let fit16 = |v: usize, what: &str| {
        u16::try_from(v).map_err(|_| format!("{what} {v} does not fit 16 bits"))
    };
    out.reserve(GAME_FIXED + game.moves.len() * MOVE_FIXED);
    out.extend_from_slice(&game.index.to_le_bytes());
    out.extend_from_slice(&game.seed.to_le_bytes());
    out.push(outcome_code(game.outcome));
    out.extend_from_slice(&fit16(game.scores[0] as usize, "score")?.to_le_bytes());
    out.extend_from_slice(&fit16(game.scores[1] as usize, "score")?.to_le_bytes());
    out.extend_from_slice(&fit16(game.moves.len(), "move count")?.to_le_bytes());
    for m in &game.moves {
        out.extend_from_slice(&m.action.to_le_bytes());
        out.push(m.player.number());
        out.push(m.kind as u8);
        out.extend_from_slice(&m.iterations.to_le_bytes());
        out.extend_from_slice(&fit16(m.root.len(), "root move count")?.to_le_bytes());
        for r in &m.root {
            out.extend_from_slice(&r.action.to_le_bytes());
            out.extend_from_slice(&r.visits.to_le_bytes());
            out.extend_from_slice(&r.p1_wins.to_le_bytes());
            out.extend_from_slice(&r.p2_wins.to_le_bytes());
        }
    }
    Ok(())
}

/// A cursor over a payload that names the byte offset of whatever it fails to read.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let end = self.pos + N;
        let slice = self.bytes.get(self.pos..end).ok_or_else(|| {
            format!(
                "payload ends at byte {} inside {what} (needs {N} bytes at {})",
                self.bytes.len(),
                self.pos
            )
        })?;
        self.pos = end;
        Ok(slice.try_into().expect("slice of length N"))
    }
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take::<1>(what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take(what)?))
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(what)?))
    }
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(what)?))
    }
}

/// Decodes one payload. The error says what was wrong and at which byte of the payload.
pub fn decode_game(bytes: &[u8]) -> Result<GameRecord, String> {
    let mut c = Cursor { bytes, pos: 0 };
    let index = c.u64("game_index")?;
    let seed = c.u64("seed")?;
    let outcome = match c.u8("outcome")? {
        0 => Outcome::P1Win,
        1 => Outcome::P2Win,
        2 => Outcome::Draw,
        other => {
            return Err(format!(
                "outcome code {other} at payload byte 16 (expected 0-2)"
            ))
        }
    };
    let scores = [c.u16("score_p1")? as u32, c.u16("score_p2")? as u32];
    let num_moves = c.u16("num_moves")? as usize;
    let mut moves = Vec::with_capacity(num_moves);
    for i in 0..num_moves {
        let at = c.pos;
        let action = c.u16("move action")?;
        let player = match c.u8("move player")? {
            1 => Player::P1,
            2 => Player::P2,
            other => {
                return Err(format!(
                    "move {} (payload byte {at}): player {other}, expected 1 or 2",
                    i + 1
                ))
            }
        };
        let kind = match c.u8("move kind")? {
            0 => MoveKind::Searched,
            1 => MoveKind::Sampled,
            2 => MoveKind::Given,
            3 => MoveKind::Solved,
            other => {
                return Err(format!(
                    "move {} (payload byte {at}): kind {other}, expected 0-3",
                    i + 1
                ))
            }
        };
        let iterations = c.u32("move iterations")?;
        let num_root = c.u16("num_root")? as usize;
        if bytes.len() - c.pos < num_root * ROOT_ENTRY {
            return Err(format!(
                "move {} claims {num_root} root moves but the payload ends first",
                i + 1
            ));
        }
        let mut root = Vec::with_capacity(num_root);
        for _ in 0..num_root {
            root.push(RootStat {
                action: c.u16("root action")?,
                visits: c.u32("root visits")?,
                p1_wins: c.u32("root p1_wins")?,
                p2_wins: c.u32("root p2_wins")?,
            });
        }
        moves.push(MoveRecord {
            action,
            player,
            kind,
            iterations,
            root,
        });
    }
    if c.pos != bytes.len() {
        return Err(format!(
            "{} bytes left over after the last move (payload of {} bytes)",
            bytes.len() - c.pos,
            bytes.len()
        ));
    }
    Ok(GameRecord {
        index,
        seed,
        outcome,
        scores,
        moves,
    })
}
