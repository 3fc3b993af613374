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
//! The board is two `u64` bitboards (point `rank * 6 + file`, a1 = 0). Captures are found on
//! the circuits' occupancy rings with a few word operations ([`circuits`]); a random rollout
//! draws its moves by tries without listing them ([`Surakarta::play_random`]) and allocates
//! nothing. Repetitions are found by a 64-bit hash of the position; two different positions
//! would have to collide.

mod bench;
mod circuits;
pub mod energy;
mod game;
pub mod pvs;
mod registry;
pub mod rival;
pub mod search;
#[cfg(test)]
mod tests;
pub mod tuning;

pub use circuits::{capture_targets, neighbourhood, step_targets, Rings};

use crate::game::{Action, Outcome, Player};
use crate::rng::{mix64, Rng};
use circuits::capture_targets_in;

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

/// The index of the `n`-th (from 0) set bit of `bits`, which has more than `n`.
#[inline]
fn nth_bit(mut bits: u64, n: u32) -> usize {
    for _ in 0..n {
        bits &= bits - 1;
    }
    bits.trailing_zeros() as usize
}

/// A position of Surakarta.
#[derive(Clone, Copy)]
pub struct Surakarta {
    pieces: [u64; 2],
    to_move: Player,
    rules: Rules,
    /// Plies since the last capture (or the start).
    quiet: u16,
    history_len: u16,
    /// Set once the game has ended.
    over: bool,
    /// Hashes of the positions since the last capture, this one last (`repetition` not off).
    history: [u64; HISTORY],
    /// A one-word Bloom filter of the history's hashes ([`filter_bit`] of each).
    seen: u64,
    /// Whether this position's bit was in the filter before it: only then can it repeat, and
    /// only then is the history searched.
    may_repeat: bool,
}

/// The pieces at the start: P1 on ranks 1-2, P2 on ranks 5-6.
pub const START: [u64; 2] = [0xFFF, 0xFFF << 24];

/// The most moves a position can have: twelve pieces with eight steps or four captures each.
pub const MAX_MOVES: usize = 12 * 12;

/// A list of moves on the stack (rollouts allocate nothing).
pub struct MoveList {
    moves: [Action; MAX_MOVES],
    len: usize,
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList {
            moves: [0; MAX_MOVES],
            len: 0,
        }
    }

    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.moves[..self.len]
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn push(&mut self, action: Action) {
        self.moves[self.len] = action;
        self.len += 1;
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

/// A hash's bit in the one-word filter of the positions since the last capture.
#[inline]
fn filter_bit(hash: u64) -> u64 {
    1 << (hash >> 58)
}

/// The hash of a position: its pieces and the side to move.
#[inline]
fn position_hash(pieces: [u64; 2], to_move: Player) -> u64 {
    mix64(pieces[0] ^ mix64(pieces[1] ^ ((to_move.index() as u64) << 40)))
}

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
            seen: 0,
            may_repeat: false,
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
        position_hash(self.pieces, self.to_move)
    }

    #[inline]
    fn remember(&mut self) {
        if self.rules.repetition == Repetition::Off {
            return;
        }
        let len = self.history_len as usize;
        let hash = self.hash();
        if len < HISTORY {
            self.history[len] = hash;
            self.history_len += 1;
        } else {
            // Only a limit above MAX_LIMIT, which the parameters refuse, gets here (the
            // filter keeps the dropped hash's bit: it may only say "maybe" more often).
            self.history.copy_within(1.., 0);
            self.history[HISTORY - 1] = hash;
        }
        let bit = filter_bit(hash);
        self.may_repeat = self.seen & bit != 0;
        self.seen |= bit;
    }

    /// Whether the current position (the last in the history) repeats an earlier one.
    #[inline]
    fn repeats(&self) -> bool {
        let len = self.history_len as usize;
        self.may_repeat && len > 1 && self.history[..len - 1].contains(&self.history[len - 1])
    }

    /// Whether `action` (a pseudo-legal move) would reach a position of the history. A capture
    /// never does: the pieces since the last capture all number more.
    #[inline]
    fn would_repeat(&self, action: Action) -> bool {
        let (from, to) = (action as usize / POINTS, action as usize % POINTS);
        let me = self.to_move.index();
        if self.pieces[1 - me] >> to & 1 == 1 {
            return false;
        }
        let mut pieces = self.pieces;
        pieces[me] ^= (1 << from) | (1 << to);
        let hash = position_hash(pieces, self.to_move.opponent());
        self.seen & filter_bit(hash) != 0
            && self.history[..self.history_len as usize].contains(&hash)
    }

    /// The side to move's pieces and the other side's.
    #[inline]
    fn own_enemy(&self) -> (u64, u64) {
        let me = self.to_move.index();
        (self.pieces[me], self.pieces[1 - me])
    }

    /// Every target of the piece on `from` (steps and captures), before the repetition rule.
    #[inline]
    fn moves_from(&self, from: usize) -> u64 {
        let (own, enemy) = self.own_enemy();
        step_targets(from, own | enemy) | capture_targets(from, own, enemy)
    }

    /// Whether some move of the side to move (before the repetition rule) passes `test`,
    /// trying them in ascending id order.
    #[inline]
    fn any_move(&self, test: impl FnMut(Action) -> bool) -> bool {
        self.any_move_of(false, test)
    }

    /// [`any_move`](Self::any_move) over the captures only, or over every move.
    #[inline]
    fn any_move_of(&self, captures_only: bool, mut test: impl FnMut(Action) -> bool) -> bool {
        let (own, enemy) = self.own_enemy();
        let occupied = own | enemy;
        let rings = Rings::of(occupied);
        let steps = if captures_only { !0 } else { occupied };
        let mut rest = own;
        while rest != 0 {
            let from = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut targets = step_targets(from, steps) | capture_targets_in(from, rings, enemy);
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                if test((from * POINTS + to) as Action) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the side to move has a move (before the repetition rule): a step is found with
    /// one word operation; only a side with every piece walled in looks for a capture.
    #[inline]
    fn has_pseudo_legal_move(&self) -> bool {
        let (own, enemy) = self.own_enemy();
        let occupied = own | enemy;
        if neighbourhood(own) & !occupied != 0 {
            return true;
        }
        let rings = Rings::of(occupied);
        let mut rest = own;
        while rest != 0 {
            let from = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if capture_targets_in(from, rings, enemy) != 0 {
                return true;
            }
        }
        false
    }

    /// Plays `action` (legal here) in place and decides whether the game has ended.
    #[inline]
    fn play(&mut self, action: Action) {
        let (from, to) = (action as usize / POINTS, action as usize % POINTS);
        let me = self.to_move.index();
        let capture = self.pieces[1 - me] >> to & 1 == 1;
        self.pieces[me] ^= (1 << from) | (1 << to);
        self.pieces[1 - me] &= !(1 << to);
        self.to_move = self.to_move.opponent();
        if capture {
            self.quiet = 0;
            self.history_len = 0;
            self.seen = 0;
        } else {
            self.quiet += 1;
        }
        self.remember();
        self.over = self.ends_here();
    }

    /// Whether a move that reaches a repeated position is refused here.
    #[inline]
    fn forbids_repeats(&self) -> bool {
        self.rules.repetition == Repetition::Forbid
    }

    /// Whether the game ends in this position (with its history).
    #[inline]
    fn ends_here(&self) -> bool {
        if self.pieces[0] == 0 || self.pieces[1] == 0 {
            return true;
        }
        if self.rules.limit > 0 && self.quiet >= self.rules.limit {
            return true;
        }
        match self.rules.repetition {
            Repetition::End => self.repeats() || !self.has_pseudo_legal_move(),
            Repetition::Off => !self.has_pseudo_legal_move(),
            Repetition::Forbid => !self.any_move(|a| !self.would_repeat(a)),
        }
    }

    /// The legal moves into a list on the stack, in ascending id order.
    #[inline]
    pub fn legal_into(&self, out: &mut MoveList) {
        out.len = 0;
        if self.over {
            return;
        }
        let forbid = self.forbids_repeats();
        self.any_move(|a| {
            if !(forbid && self.would_repeat(a)) {
                out.push(a);
            }
            false
        });
    }

    /// Plays one uniformly random legal move (the game must not be over).
    ///
    /// Without the `forbid` rule no move list is made: a try draws one of the side's pieces and
    /// one of twelve slots (eight step directions; two directions along each of at most two
    /// circuit stations), and keeps the move if the slot holds one. A capture that two slots
    /// of the piece reach is kept with probability one over their number, so every legal move
    /// is drawn with the same probability, `1 / (12 * pieces)` a try.
    #[inline]
    pub fn play_random(&mut self, moves: &mut MoveList, rng: &mut Rng) {
        if self.forbids_repeats() {
            self.legal_into(moves);
            debug_assert!(!moves.is_empty(), "a game that is not over has a move");
            let pick = moves.moves[rng.below(moves.len as u32) as usize];
            self.play(pick);
            return;
        }
        let action = self.random_move_by_tries(rng);
        self.play(action);
    }

    /// A uniformly random move before the repetition rule (see
    /// [`play_random`](Self::play_random)); the side to move must have one.
    ///
    /// The steps are counted exactly, direction by direction, with word operations; the
    /// captures are four slots for each piece on a circuit (two directions on each of at most
    /// two stations). A draw picks one of the steps or one of the slots; a slot that holds no
    /// capture, or a capture that several slots of the piece reach (kept with probability one
    /// over their number), is drawn again. So every legal move has the same chance.
    #[inline]
    fn random_move_by_tries(&self, rng: &mut Rng) -> Action {
        let (own, enemy) = self.own_enemy();
        let occupied = own | enemy;
        let empty = circuits::BOARD & !occupied;
        // The pieces that can step in each direction, and how many.
        let mut movers = [0u64; 8];
        let mut steps = 0u32;
        for (d, m) in movers.iter_mut().enumerate() {
            *m = own & circuits::step_sources(empty, d);
            steps += m.count_ones();
        }
        let on_circuits = own & circuits::ON_CIRCUITS;
        let slots = 4 * on_circuits.count_ones();
        let mut rings = None;
        loop {
            let mut r = rng.below(steps + slots);
            if r < steps {
                for (d, &m) in movers.iter().enumerate() {
                    let count = m.count_ones();
                    if r < count {
                        let from = nth_bit(m, r);
                        let to = circuits::STEPS[from][d] as usize;
                        return (from * POINTS + to) as Action;
                    }
                    r -= count;
                }
                unreachable!("r is below the count of steps");
            }
            r -= steps;
            let from = nth_bit(on_circuits, r / 4);
            let (k, forwards) = (((r % 4) >> 1) as usize, r % 2 == 0);
            let stations = circuits::STATIONS.count[from] as usize;
            if k >= stations {
                continue;
            }
            let rings = *rings.get_or_insert_with(|| Rings::of(occupied));
            let target = circuits::capture_along(from, k, forwards, rings) & enemy;
            if target == 0 {
                continue;
            }
            let mut same = 0;
            for k in 0..stations {
                for forwards in [true, false] {
                    same += u32::from(circuits::capture_along(from, k, forwards, rings) == target);
                }
            }
            if same > 1 && rng.below(same) != 0 {
                continue;
            }
            return (from * POINTS + target.trailing_zeros() as usize) as Action;
        }
    }

    /// The outcome by the pieces on the board: the side with more wins.
    #[inline]
    pub fn outcome_by_pieces(&self) -> Outcome {
        Outcome::from_scores(self.pieces[0].count_ones(), self.pieces[1].count_ones())
    }

    /// The captures of the side to move (never refused by the repetition rule).
    pub fn captures_into(&self, out: &mut MoveList) {
        out.len = 0;
        if self.over {
            return;
        }
        self.any_move_of(true, |a| {
            out.push(a);
            false
        });
    }

    /// Whether `action` takes a piece.
    #[inline]
    pub fn is_capture(&self, action: Action) -> bool {
        let (_, enemy) = self.own_enemy();
        enemy >> (action as usize % POINTS) & 1 == 1
    }

    /// The moves (steps and captures, before the repetition rule) each side would have if it
    /// were to move: `[P1's, P2's]`.
    pub fn mobility(&self) -> [u32; 2] {
        let occupied = self.pieces[0] | self.pieces[1];
        let rings = Rings::of(occupied);
        let count = |own: u64, enemy: u64| {
            let mut rest = own;
            let mut n = 0;
            while rest != 0 {
                let from = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                n += (step_targets(from, occupied) | capture_targets_in(from, rings, enemy))
                    .count_ones();
            }
            n
        };
        [
            count(self.pieces[0], self.pieces[1]),
            count(self.pieces[1], self.pieces[0]),
        ]
    }

    /// P1's pieces minus P2's.
    #[inline]
    pub fn piece_difference(&self) -> i32 {
        self.pieces[0].count_ones() as i32 - self.pieces[1].count_ones() as i32
    }
}
