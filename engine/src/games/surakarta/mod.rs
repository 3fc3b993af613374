//! Surakarta, as computer tournaments play it (the fourth paper, `surakarta-heuristic-mcts.txt`).
//!
//! * A 6x6 board of points, files a-f, ranks 1-6; twelve pieces a side on the two back ranks;
//!   the player on ranks 1-2 (P1) moves first.
//! * A non-capturing move steps to any of the eight neighbouring points that is empty.
//! * A capture travels along one of two circuits over empty points, passes through at least
//!   one of the circuit's corner loops, and ends on an enemy piece. The inner circuit runs
//!   along rank 2, file e, rank 5 and file b, joined by loops around the corners (a2 ... f2,
//!   loop, e1 ... e6, loop, f5 ... a5, loop, b6 ... b1, loop, back to a2); the outer one along
//!   rank 3, file d, rank 4 and file c (a3 ... f3, loop, d1 ... d6, loop, f4 ... a4, loop,
//!   c6 ... c1, loop). A capture may run either way round. The point the moving piece left
//!   counts as empty, the path may cross the same point twice (where a rank and a file of the
//!   circuit meet), and it is shorter than one full lap (so a piece never captures by coming
//!   back to its own point). Captures are optional.
//! * The game ends when the side to move has no pieces or no legal move, after `limit` plies
//!   without a capture (parameter, default 50; 0 for none), or, with `repetition=end` (the
//!   default, as the Computer Olympiad rules describe it), when a position (the pieces and the
//!   side to move) repeats one since the last capture. Then the side with more pieces wins and
//!   equal counts draw. `repetition=off` has no repetition rule; `repetition=forbid` makes a
//!   move that would repeat a position illegal instead, as MiniZero plays it.
//! * Notation: `a2a3` (from, to), and on input also `a2-a3` and `a2xa3`.
//!
//! The board is two `u64` bitboards (point `rank * 6 + file`, a1 = 0). Repetitions are found
//! by a 64-bit hash of the position; two different positions would have to collide.

mod game;
mod registry;
#[cfg(test)]
mod tests;

use crate::game::Player;

/// Points on the board.
pub const POINTS: usize = 36;
/// A move id: `from * 36 + to`.
pub const ACTIONS: usize = POINTS * POINTS;
/// Positions kept for the repetition rule (the no-capture limit is at most this minus one).
pub const HISTORY: usize = 128;
/// The largest no-capture limit.
pub const MAX_LIMIT: u16 = (HISTORY - 1) as u16;

/// What a repeated position does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repetition {
    /// The game ends (the default).
    End,
    /// Nothing: positions may repeat.
    Off,
    /// A move that would repeat a position is illegal.
    Forbid,
}

impl Repetition {
    pub const NAMES: [&'static str; 3] = ["end", "off", "forbid"];

    pub fn index(self) -> usize {
        match self {
            Repetition::End => 0,
            Repetition::Off => 1,
            Repetition::Forbid => 2,
        }
    }

    pub fn from_index(i: usize) -> Repetition {
        [Repetition::End, Repetition::Off, Repetition::Forbid][i.min(2)]
    }
}

/// The rules a game is played by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub repetition: Repetition,
    /// Plies without a capture that end the game (0: no limit).
    pub limit: u16,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            repetition: Repetition::End,
            limit: 50,
        }
    }
}

/// One of the two circuits: its 24 points in order, and after which indices the path goes
/// round a corner loop (to the next index).
struct Circuit {
    points: [u8; 24],
}

const fn point(file: u8, rank: u8) -> u8 {
    rank * 6 + file
}

/// The points of a circuit through files `lo`, `hi` = 5 - `lo` and ranks `lo`, `hi`: along
/// rank `lo` to the right, up file `hi`, along rank `hi` to the left, down file `lo`.
const fn circuit(lo: u8) -> Circuit {
    let hi = 5 - lo;
    let mut points = [0u8; 24];
    let mut k = 0;
    while k < 6 {
        points[k] = point(k as u8, lo);
        points[6 + k] = point(hi, k as u8);
        points[12 + k] = point(5 - k as u8, hi);
        points[18 + k] = point(lo, 5 - k as u8);
        k += 1;
    }
    Circuit { points }
}

/// The inner circuit (files b, e; ranks 2, 5) and the outer one (files c, d; ranks 3, 4).
const CIRCUITS: [Circuit; 2] = [circuit(1), circuit(2)];

/// Whether going from index `i` to `i + 1` (mod 24) of a circuit goes round a corner loop.
#[inline]
const fn loop_after(i: usize) -> bool {
    i % 6 == 5
}

/// For every point, where it lies on the circuits: `(circuit, index)` pairs, at most two.
struct Stations {
    at: [[(u8, u8); 2]; POINTS],
    count: [u8; POINTS],
}

const fn stations() -> Stations {
    let mut s = Stations {
        at: [[(0, 0); 2]; POINTS],
        count: [0; POINTS],
    };
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < 24 {
            let p = CIRCUITS[c].points[i] as usize;
            s.at[p][s.count[p] as usize] = (c as u8, i as u8);
            s.count[p] += 1;
            i += 1;
        }
        c += 1;
    }
    s
}

static STATIONS: Stations = stations();

/// The eight neighbours of every point.
static NEIGHBOURS: [u64; POINTS] = neighbours();

const fn neighbours() -> [u64; POINTS] {
    let mut out = [0u64; POINTS];
    let mut p = 0;
    while p < POINTS {
        let (f, r) = ((p % 6) as i32, (p / 6) as i32);
        let mut df = -1;
        while df <= 1 {
            let mut dr = -1;
            while dr <= 1 {
                let (g, s) = (f + df, r + dr);
                if (df != 0 || dr != 0) && g >= 0 && g < 6 && s >= 0 && s < 6 {
                    out[p] |= 1 << (s * 6 + g);
                }
                dr += 1;
            }
            df += 1;
        }
        p += 1;
    }
    out
}

/// The enemy pieces the piece on `from` can capture, given both sides' pieces.
#[inline]
pub fn capture_targets(from: usize, own: u64, enemy: u64) -> u64 {
    let occupied = (own | enemy) & !(1 << from);
    let mut targets = 0u64;
    for k in 0..STATIONS.count[from] as usize {
        let (c, start) = STATIONS.at[from][k];
        let points = &CIRCUITS[c as usize].points;
        let start = start as usize;
        for forward in [true, false] {
            let mut looped = false;
            let mut i = start;
            for _ in 1..24 {
                let next = if forward { (i + 1) % 24 } else { (i + 23) % 24 };
                looped |= if forward {
                    loop_after(i)
                } else {
                    loop_after(next)
                };
                i = next;
                let q = points[i] as usize;
                let bit = 1u64 << q;
                if occupied & bit == 0 {
                    continue;
                }
                if enemy & bit != 0 && looped {
                    targets |= bit;
                }
                break;
            }
        }
    }
    targets
}

/// The empty neighbours of `from`.
#[inline]
pub fn step_targets(from: usize, occupied: u64) -> u64 {
    NEIGHBOURS[from] & !occupied
}

/// A position of Surakarta.
#[derive(Clone, Copy)]
pub struct Surakarta {
    pieces: [u64; 2],
    to_move: Player,
    rules: Rules,
    /// Plies since the last capture (or the start).
    quiet: u16,
    /// Hashes of the positions since the last capture, this one last (`repetition` not off).
    history: [u64; HISTORY],
    history_len: u16,
    /// Set once the game has ended.
    over: bool,
}

/// The pieces at the start: P1 on ranks 1-2, P2 on ranks 5-6.
pub const START: [u64; 2] = [0xFFF, 0xFFF << 24];

impl Surakarta {
    pub fn new(rules: Rules) -> Surakarta {
        Surakarta::from_pieces(START, Player::P1, rules, 0)
    }

    /// A position with these pieces, `to_move` to move and `quiet` plies since the last capture
    /// (its history starts here).
    pub fn from_pieces(pieces: [u64; 2], to_move: Player, rules: Rules, quiet: u16) -> Surakarta {
        let mut s = Surakarta {
            pieces,
            to_move,
            rules,
            quiet,
            history: [0; HISTORY],
            history_len: 0,
            over: false,
        };
        s.remember();
        s.over = s.ends_here();
        s
    }

    pub fn rules(&self) -> Rules {
        self.rules
    }

    pub fn pieces(&self, player: Player) -> u64 {
        self.pieces[player.index()]
    }

    pub fn quiet_plies(&self) -> u16 {
        self.quiet
    }

    /// The hash of the pieces and the side to move.
    #[inline]
    pub fn hash(&self) -> u64 {
        let mix = |mut z: u64| {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        mix(self.pieces[0] ^ mix(self.pieces[1] ^ ((self.to_move.index() as u64) << 40)))
    }

    fn remember(&mut self) {
        if self.rules.repetition == Repetition::Off {
            return;
        }
        let len = self.history_len as usize;
        if len < HISTORY {
            self.history[len] = self.hash();
            self.history_len += 1;
        } else {
            // Only a limit above MAX_LIMIT, which the parameters refuse, gets here.
            self.history.copy_within(1.., 0);
            self.history[HISTORY - 1] = self.hash();
        }
    }

    /// Whether the current position (the last in the history) repeats an earlier one.
    fn repeats(&self) -> bool {
        let len = self.history_len as usize;
        len > 1 && self.history[..len - 1].contains(&self.history[len - 1])
    }

    /// Every (from, targets) of the side to move, steps and captures, before the repetition
    /// rule.
    #[inline]
    fn moves_from(&self, from: usize) -> u64 {
        let me = self.to_move.index();
        let (own, enemy) = (self.pieces[me], self.pieces[1 - me]);
        step_targets(from, own | enemy) | capture_targets(from, own, enemy)
    }

    /// The moves of the side to move, as ids in ascending order, before the repetition rule.
    fn pseudo_legal(&self, out: &mut Vec<crate::game::Action>) {
        out.clear();
        self.any_move(|a| {
            out.push(a);
            false
        });
    }

    /// Whether some move of the side to move (before the repetition rule) passes `test`,
    /// trying them in ascending id order.
    fn any_move(&self, mut test: impl FnMut(crate::game::Action) -> bool) -> bool {
        let mut own = self.pieces[self.to_move.index()];
        while own != 0 {
            let from = own.trailing_zeros() as usize;
            own &= own - 1;
            let mut targets = self.moves_from(from);
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                if test((from * POINTS + to) as crate::game::Action) {
                    return true;
                }
            }
        }
        false
    }

    /// The position after `action`, with its history (the game-over flag not yet updated).
    fn after(&self, action: crate::game::Action) -> Surakarta {
        let (from, to) = (action as usize / POINTS, action as usize % POINTS);
        let me = self.to_move.index();
        let mut next = *self;
        let capture = next.pieces[1 - me] & (1 << to) != 0;
        next.pieces[me] ^= (1 << from) | (1 << to);
        next.pieces[1 - me] &= !(1 << to);
        next.to_move = self.to_move.opponent();
        if capture {
            next.quiet = 0;
            next.history_len = 0;
        } else {
            next.quiet += 1;
        }
        next.remember();
        next
    }

    /// Whether a move that reaches a repeated position is refused here.
    fn forbids_repeats(&self) -> bool {
        self.rules.repetition == Repetition::Forbid
    }

    /// Whether the game ends in this position (with its history).
    fn ends_here(&self) -> bool {
        if self.pieces[0] == 0 || self.pieces[1] == 0 {
            return true;
        }
        if self.rules.limit > 0 && self.quiet >= self.rules.limit {
            return true;
        }
        if self.rules.repetition == Repetition::End && self.repeats() {
            return true;
        }
        if self.forbids_repeats() {
            return !self.any_move(|a| !self.after(a).repeats());
        }
        !self.any_move(|_| true)
    }
}
