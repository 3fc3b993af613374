//! Bitboards of the Amazons board: one `u128` with a guard column, ray tables and the fills the
//! rules and the evaluation are built from.
//!
//! Square (file f, rank r), both from 0, is bit `r * (n + 1) + f`: the extra column `n` of every
//! row is never a square, so a shift by one step in any of the eight directions never wraps a
//! square of one row onto the other edge of the next (it lands on the guard column, which the
//! empty mask never contains). 10x10 uses 110 of the 128 bits.
//!
//! Move ids use the compact square `r * n + f` instead (`< 100`).

use std::sync::OnceLock;

/// A set of squares.
pub type Bits = u128;

/// The eight directions as (file step, rank step): the first four increase the bit index.
pub const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (0, 1),
    (1, 1),
    (-1, 1),
    (-1, 0),
    (0, -1),
    (-1, -1),
    (1, -1),
];

/// Everything that depends only on the board size.
pub struct Geometry {
    pub n: usize,
    /// Bits per row (`n + 1`).
    pub width: usize,
    /// Every square.
    pub squares: Bits,
    /// `rays[d][b]`: the squares from bit `b` (excluded) to the edge in direction `d`.
    pub rays: [[Bits; 128]; 8],
    /// Bit of compact square `s`.
    pub bit_of: [u8; 100],
    /// Compact square of bit `b` (255 off the board).
    pub square_of: [u8; 128],
    /// Shift amounts of the eight directions (positive: towards higher bits).
    pub shifts: [i32; 8],
    /// `king[b]`: the squares one king step from bit `b`.
    pub king: [Bits; 128],
}

impl Geometry {
    fn new(n: usize) -> Geometry {
        let width = n + 1;
        let mut g = Geometry {
            n,
            width,
            squares: 0,
            rays: [[0; 128]; 8],
            bit_of: [0; 100],
            square_of: [255; 128],
            shifts: [0; 8],
            king: [0; 128],
        };
        for r in 0..n {
            for f in 0..n {
                let b = r * width + f;
                g.squares |= 1 << b;
                g.bit_of[r * n + f] = b as u8;
                g.square_of[b] = (r * n + f) as u8;
            }
        }
        for (d, &(df, dr)) in DIRECTIONS.iter().enumerate() {
            g.shifts[d] = dr * width as i32 + df;
            for r in 0..n as i32 {
                for f in 0..n as i32 {
                    let b = r as usize * width + f as usize;
                    let (mut x, mut y) = (f + df, r + dr);
                    while (0..n as i32).contains(&x) && (0..n as i32).contains(&y) {
                        g.rays[d][b] |= 1 << (y as usize * width + x as usize);
                        x += df;
                        y += dr;
                    }
                }
            }
        }
        for b in 0..128 {
            if g.squares & (1 << b) != 0 {
                g.king[b] = g.king_step(1 << b) & g.squares & !(1 << b);
            }
        }
        g
    }

    /// The geometry of an `n` x `n` board (6, 8 or 10; built once).
    pub fn of(n: usize) -> &'static Geometry {
        static TABLES: [OnceLock<Geometry>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let slot = match n {
            6 => 0,
            8 => 1,
            10 => 2,
            _ => panic!("Amazons boards are 6, 8 or 10 squares wide, not {n}"),
        };
        TABLES[slot].get_or_init(|| Geometry::new(n))
    }

    /// The bit of (file, rank).
    #[inline]
    pub fn bit(&self, file: usize, rank: usize) -> u32 {
        (rank * self.width + file) as u32
    }

    /// (file, rank) of a bit.
    #[inline]
    pub fn coords(&self, bit: u32) -> (usize, usize) {
        (bit as usize % self.width, bit as usize / self.width)
    }

    /// The squares a queen on `bit` reaches through `empty` (sliding until a non-empty square).
    #[inline]
    pub fn queen_reach(&self, bit: u32, empty: Bits) -> Bits {
        let b = bit as usize;
        let occupied = !empty;
        let mut reach = 0;
        for d in 0..4 {
            let ray = self.rays[d][b];
            let blockers = ray & occupied;
            reach |= if blockers == 0 {
                ray
            } else {
                ray ^ self.rays[d][blockers.trailing_zeros() as usize]
            };
        }
        for d in 4..8 {
            let ray = self.rays[d][b];
            let blockers = ray & occupied;
            reach |= if blockers == 0 {
                ray
            } else {
                ray ^ self.rays[d][127 - blockers.leading_zeros() as usize]
            };
        }
        reach & empty
    }

    /// Every square one king step from a square of `set` (guard bits included; mask them).
    #[inline]
    pub fn king_step(&self, set: Bits) -> Bits {
        match self.width {
            11 => king_step::<11>(set),
            9 => king_step::<9>(set),
            _ => king_step::<7>(set),
        }
    }

    /// Every square one queen move from a square of `set`, sliding through `empty`.
    #[inline]
    pub fn queen_step(&self, set: Bits, empty: Bits) -> Bits {
        match self.width {
            11 => queen_step::<11>(set, empty),
            9 => queen_step::<9>(set, empty),
            _ => queen_step::<7>(set, empty),
        }
    }
}

/// The shifts of the eight directions on a board `w` bits wide, in [`DIRECTIONS`] order.
pub const fn shifts_of(w: i32) -> [i32; 8] {
    [1, w, w + 1, w - 1, -1, -w, -w - 1, -w + 1]
}

// The fills below take the row width `W` (bits per row: 7, 9 or 11) as a constant, so that
// every shift of a `u128` is by an immediate: a shift by a variable amount costs a branch or
// a pair of conditional moves for the 64-bit halves, and these fills are most of the
// evaluation's time. Callers dispatch once on `Geometry::width`.

/// Every square one king step from a square of `set` on a board `W` bits wide (guard bits
/// included; mask them).
#[inline(always)]
pub fn king_step<const W: i32>(set: Bits) -> Bits {
    let horizontal = set | (set << 1) | (set >> 1);
    horizontal | (horizontal << W) | (horizontal >> W)
}

/// Every square one queen move from a square of `set` through `empty`, on a board `W` bits
/// wide: one occluded fill per direction (Kogge-Stone, doubling steps).
#[inline(always)]
pub fn queen_step<const W: i32>(set: Bits, empty: Bits) -> Bits {
    let s = shifts_of(W);
    let out = occluded_fill(set, empty, s[0])
        | occluded_fill(set, empty, s[1])
        | occluded_fill(set, empty, s[2])
        | occluded_fill(set, empty, s[3])
        | occluded_fill(set, empty, s[4])
        | occluded_fill(set, empty, s[5])
        | occluded_fill(set, empty, s[6])
        | occluded_fill(set, empty, s[7]);
    out & empty
}

/// Shifts by `s` bits (left when positive).
#[inline(always)]
pub fn shift(x: Bits, s: i32) -> Bits {
    if s >= 0 {
        x << s
    } else {
        x >> -s
    }
}

/// The squares reached from `gen` by repeated steps of `s` through `empty` (one step onto a
/// non-empty square is included, as in chess attack sets; the caller masks it away).
#[inline(always)]
fn occluded_fill(gen: Bits, empty: Bits, s: i32) -> Bits {
    // Kogge-Stone: after k rounds every run of up to 2^k - 1 empty squares is crossed; 4 rounds
    // cross 15 > 9, the longest run on 10x10.
    let mut g = gen;
    let mut p = empty;
    g |= p & shift(g, s);
    p &= shift(p, s);
    g |= p & shift(g, 2 * s);
    p &= shift(p, 2 * s);
    g |= p & shift(g, 4 * s);
    p &= shift(p, 4 * s);
    g |= p & shift(g, 8 * s);
    shift(g, s)
}

/// Iterates the bits of a set, lowest first.
#[derive(Clone, Copy)]
pub struct BitIter(pub Bits);

impl Iterator for BitIter {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(b)
    }
}

/// The `k`-th lowest set bit of `x` (`k < popcount(x)`).
#[inline]
pub fn nth_bit(mut x: Bits, k: u32) -> u32 {
    let low = x as u64;
    let low_count = low.count_ones();
    let (mut word, mut k, base) = if k < low_count {
        (low, k, 0)
    } else {
        x >>= 64;
        (x as u64, k - low_count, 64)
    };
    while k > 0 {
        word &= word - 1;
        k -= 1;
    }
    base + word.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fills agree with square-by-square sliding on random boards.
    #[test]
    fn fills_match_sliding() {
        let mut rng = crate::rng::Rng::new(3);
        for n in [6, 8, 10] {
            let g = Geometry::of(n);
            for _ in 0..200 {
                let mut empty = g.squares;
                for _ in 0..rng.below(60) {
                    let s = rng.below((n * n) as u32) as usize;
                    empty &= !(1u128 << g.bit_of[s]);
                }
                let from = g.bit_of[rng.below((n * n) as u32) as usize] as u32;
                let mut slow = 0u128;
                let (f0, r0) = g.coords(from);
                for (df, dr) in DIRECTIONS {
                    let (mut x, mut y) = (f0 as i32 + df, r0 as i32 + dr);
                    while (0..n as i32).contains(&x) && (0..n as i32).contains(&y) {
                        let b = g.bit(x as usize, y as usize);
                        if empty & (1 << b) == 0 {
                            break;
                        }
                        slow |= 1 << b;
                        x += df;
                        y += dr;
                    }
                }
                assert_eq!(g.queen_reach(from, empty), slow);
                assert_eq!(g.queen_step(1 << from, empty), slow);
                let king = g.king_step(1 << from) & g.squares & !(1 << from);
                assert_eq!(king.count_ones(), {
                    let mut c = 0;
                    for (df, dr) in DIRECTIONS {
                        let (x, y) = (f0 as i32 + df, r0 as i32 + dr);
                        c += ((0..n as i32).contains(&x) && (0..n as i32).contains(&y)) as u32;
                    }
                    c
                });
            }
        }
    }

    #[test]
    fn nth_bit_finds_every_bit() {
        let x: u128 = (1 << 3) | (1 << 63) | (1 << 64) | (1 << 100);
        let bits: Vec<u32> = BitIter(x).collect();
        for (k, &b) in bits.iter().enumerate() {
            assert_eq!(nth_bit(x, k as u32), b);
        }
    }
}
