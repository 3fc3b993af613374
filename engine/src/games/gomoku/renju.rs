//! Renju's forbidden points for black, by the definitions of the rules (RIF):
//!
//! * A **five** is exactly five black stones in a row; a move that makes one wins, whatever
//!   else it makes (an overline or a double four elsewhere do not matter).
//! * An **overline** (six or more in a row) is forbidden.
//! * A **four** is a line where one more black stone makes a five. A **straight four**
//!   (`.XXXX.` with a five at either end) is one four; two fours in one line (`X.XXX.X` with
//!   the stone in the middle) are two. Two fours or more at once, a **double four**, are
//!   forbidden.
//! * A **live three** is a line where one more black stone makes a straight four, on a point
//!   that is not itself forbidden (with the stone just played on the board). Two live threes
//!   or more at once, a **double three**, are forbidden.
//!
//! The test places the stone and looks along each of the four lines; the point that would
//! make a three into a straight four is tested for being forbidden in turn (recursively, to a
//! depth no real position reaches).

use super::{Gomoku, DIRECTIONS, EMPTY};
use crate::game::Player;

const BLACK: u8 = 1;
/// Deeper than any chain of threes a board can hold, so the bound never cuts a real test.
const MAX_DEPTH: u32 = 8;

/// Whether black may not play the empty point `p`.
pub fn forbidden(g: &Gomoku, p: usize) -> bool {
    let mut board = *g;
    forbidden_in(&mut board, p, 0)
}

/// What black playing `p` makes, before the rule decides: for the tests and the notes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shapes {
    pub five: bool,
    pub overline: bool,
    pub fours: u32,
    pub live_threes: u32,
}

/// The shapes black playing the empty point `p` makes.
pub fn shapes(g: &Gomoku, p: usize) -> Shapes {
    let mut b = *g;
    b.set_cell(p, BLACK);
    let runs = DIRECTIONS.map(|d| b.run(p, d, Player::P1));
    let mut s = Shapes {
        five: runs.contains(&5),
        overline: runs.iter().any(|&r| r >= 6),
        ..Shapes::default()
    };
    for d in DIRECTIONS {
        s.fours += fours_in_line(&mut b, p, d);
        s.live_threes += u32::from(live_three_in_line(&mut b, p, d, 0));
    }
    s
}

fn forbidden_in(b: &mut Gomoku, p: usize, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    b.set_cell(p, BLACK);
    let verdict = judge(b, p, depth);
    b.set_cell(p, EMPTY);
    verdict
}

/// With black's stone on `p`: whether the move is forbidden.
fn judge(b: &mut Gomoku, p: usize, depth: u32) -> bool {
    let runs = DIRECTIONS.map(|d| b.run(p, d, Player::P1));
    if runs.contains(&5) {
        return false;
    }
    if runs.iter().any(|&r| r >= 6) {
        return true;
    }
    let fours: u32 = DIRECTIONS.iter().map(|&d| fours_in_line(b, p, d)).sum();
    if fours >= 2 {
        return true;
    }
    let mut threes = 0;
    for d in DIRECTIONS {
        if live_three_in_line(b, p, d, depth) {
            threes += 1;
            if threes >= 2 {
                return true;
            }
        }
    }
    false
}

/// The black run along `d` through `p` (black), as offsets from `p`: `(lo, hi)`.
fn span(b: &Gomoku, p: usize, d: (i32, i32)) -> (i32, i32) {
    let (mut lo, mut hi) = (0, 0);
    while b.at(p, d, lo - 1) == BLACK {
        lo -= 1;
    }
    while b.at(p, d, hi + 1) == BLACK {
        hi += 1;
    }
    (lo, hi)
}

/// Sets the point `k` steps from `p` along `d` (on the board) to `value`.
fn set(b: &mut Gomoku, p: usize, d: (i32, i32), k: i32, value: u8) {
    let (c, r) = b.col_row(p);
    let q = b.point(c + d.0 * k, r + d.1 * k).expect("on the board");
    b.set_cell(q, value);
}

/// The fours through `p` (black) along `d`: 0, 1 or 2.
fn fours_in_line(b: &mut Gomoku, p: usize, d: (i32, i32)) -> u32 {
    let mut completions = [0i32; 8];
    let mut count = 0;
    for k in (-4..=4).filter(|&k| k != 0) {
        if b.at(p, d, k) != EMPTY {
            continue;
        }
        set(b, p, d, k, BLACK);
        let (lo, hi) = span(b, p, d);
        if hi - lo + 1 == 5 && (lo..=hi).contains(&k) {
            completions[count] = k;
            count += 1;
        }
        set(b, p, d, k, EMPTY);
    }
    match count {
        0 => 0,
        1 => 1,
        // Both ends of one straight four are one four.
        2 if (completions[1] - completions[0]).abs() == 5 => 1,
        _ => 2,
    }
}

/// Whether `p` (black) makes a live three along `d`: some empty point makes a straight four
/// through `p` and is not itself forbidden.
fn live_three_in_line(b: &mut Gomoku, p: usize, d: (i32, i32), depth: u32) -> bool {
    for k in (-4..=4).filter(|&k| k != 0) {
        if b.at(p, d, k) != EMPTY {
            continue;
        }
        set(b, p, d, k, BLACK);
        let (lo, hi) = span(b, p, d);
        let straight = hi - lo + 1 == 4
            && (lo..=hi).contains(&k)
            && b.at(p, d, lo - 1) == EMPTY
            && b.at(p, d, hi + 1) == EMPTY
            && b.at(p, d, lo - 2) != BLACK
            && b.at(p, d, hi + 2) != BLACK;
        set(b, p, d, k, EMPTY);
        if straight {
            let (c, r) = b.col_row(p);
            let q = b.point(c + d.0 * k, r + d.1 * k).expect("on the board");
            if !forbidden_in(b, q, depth + 1) {
                return true;
            }
        }
    }
    false
}
