//! The two circuits, and captures along them in a few word operations.
//!
//! Each circuit is a ring of 24 stations (a point where a rank and a file of the circuit cross
//! is two stations). The occupied stations of a circuit are a `u64` holding the ring twice
//! ([`Rings`]), gathered from the board a rank at a time through a table. From a piece's
//! station, the first occupied station either way round is one trailing- or leading-zero count;
//! the path went round a corner loop when it crossed a multiple of six, which follows from the
//! station's index and the distance. [`capture_targets`] is the rule; the tests check it against a walk along the
//! circuits point by point.

use super::POINTS;

/// One circuit: its 24 points in order. Going from station `i` to `i + 1` (mod 24) goes round
/// a corner loop when `i % 6 == 5`.
pub(super) struct Circuit {
    pub(super) points: [u8; 24],
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
pub(super) static CIRCUITS: [Circuit; 2] = [circuit(1), circuit(2)];

/// For every point, its stations: `(circuit, index)`, at most two.
pub(super) struct Stations {
    pub(super) at: [[(u8, u8); 2]; POINTS],
    pub(super) count: [u8; POINTS],
    /// Per circuit, the point's own stations as bits of a doubled ring (see [`Rings`]):
    /// cleared when the piece on the point moves, as the rules count that point empty.
    pub(super) bits: [[u64; 2]; POINTS],
}

/// Station `i`'s bits in a doubled ring: `i` and `i + 24`.
const fn doubled(i: usize) -> u64 {
    (1 << i) | (1 << (i + 24))
}

const fn stations() -> Stations {
    let mut s = Stations {
        at: [[(0, 0); 2]; POINTS],
        count: [0; POINTS],
        bits: [[0; 2]; POINTS],
    };
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < 24 {
            let p = CIRCUITS[c].points[i] as usize;
            s.at[p][s.count[p] as usize] = (c as u8, i as u8);
            s.count[p] += 1;
            s.bits[p][c] |= doubled(i);
            i += 1;
        }
        c += 1;
    }
    s
}

pub(super) static STATIONS: Stations = stations();

/// `ROW_RINGS[c][rank][row]`: circuit `c`'s doubled-ring bits of the occupied points of a rank
/// whose six points are the bits of `row`.
static ROW_RINGS: [[[u64; 64]; 6]; 2] = row_rings();

const fn row_rings() -> [[[u64; 64]; 6]; 2] {
    let st = stations();
    let mut out = [[[0u64; 64]; 6]; 2];
    let mut c = 0;
    while c < 2 {
        let mut rank = 0;
        while rank < 6 {
            let mut row = 0;
            while row < 64 {
                let mut file = 0;
                while file < 6 {
                    if row >> file & 1 == 1 {
                        out[c][rank][row] |= st.bits[rank * 6 + file][c];
                    }
                    file += 1;
                }
                row += 1;
            }
            rank += 1;
        }
        c += 1;
    }
    out
}

/// `POINT_AT[c][k]`: the point at station `k % 24` of circuit `c`, for `k` in 0..48.
static POINT_AT: [[u8; 48]; 2] = point_at();

const fn point_at() -> [[u8; 48]; 2] {
    let mut out = [[0u8; 48]; 2];
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 48 {
            out[c][k] = CIRCUITS[c].points[k % 24];
            k += 1;
        }
        c += 1;
    }
    out
}

/// The occupied stations of each circuit, as doubled rings: station `i` is bits `i` and
/// `i + 24`, so the 23 stations after `i` (forwards) are bits `i + 1 .. i + 24` and the 23
/// before it (backwards) bits `i + 1 .. i + 24` read from the top down, with no rotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rings(pub [u64; 2]);

impl Rings {
    /// The stations of the points in `occupied`.
    #[inline]
    pub fn of(occupied: u64) -> Rings {
        let mut rings = [0u64; 2];
        for (rank, (inner, outer)) in ROW_RINGS[0].iter().zip(&ROW_RINGS[1]).enumerate() {
            let row = (occupied >> (6 * rank)) as usize & 63;
            rings[0] |= inner[row];
            rings[1] |= outer[row];
        }
        Rings(rings)
    }
}

/// The point (as a bit; 0 for none) the piece on `from` reaches along its station `k` (below
/// `STATIONS.count[from]`), forwards or backwards: the first occupied station that way, if the
/// path went round a corner loop. Whose piece is there is the caller's question.
#[inline]
pub fn capture_along(from: usize, k: usize, forwards: bool, rings: Rings) -> u64 {
    let (c, i) = STATIONS.at[from][k];
    let (c, i) = (c as usize, i as u32);
    // The point the piece leaves counts as empty.
    let ring = rings.0[c] & !STATIONS.bits[from][c];
    if ring == 0 {
        return 0;
    }
    let phase = i % 6;
    if forwards {
        // The first occupied station after i, d stations on; the path went round a loop if
        // it passed from a station 6k + 5 to the next.
        let d = (ring >> (i + 1)).trailing_zeros() + 1;
        u64::from(phase + d >= 6) << POINT_AT[c][(i + d) as usize]
    } else {
        // The highest occupied station below i + 24, at h = i + 24 - d; the path went round a
        // loop if it passed from a station 6k to the one before.
        let h = 63 - (ring & ((1u64 << (i + 24)) - 1)).leading_zeros();
        u64::from(i + 24 - h > phase) << POINT_AT[c][h as usize]
    }
}

/// The pieces of either side the piece on `from` reaches along the circuits (through a loop,
/// over empty points): the enemy's of them it can capture, its own side's it defends.
#[inline]
pub fn reach(from: usize, rings: Rings) -> u64 {
    let mut reached = 0u64;
    for k in 0..STATIONS.count[from] as usize {
        reached |= capture_along(from, k, true, rings) | capture_along(from, k, false, rings);
    }
    reached
}

/// The enemy pieces the piece on `from` can capture, given the occupied stations (`rings`,
/// including `from`'s own) and the enemy's pieces.
#[inline]
pub fn capture_targets_in(from: usize, rings: Rings, enemy: u64) -> u64 {
    reach(from, rings) & enemy
}

/// The enemy pieces the piece on `from` can capture, given both sides' pieces.
#[inline]
pub fn capture_targets(from: usize, own: u64, enemy: u64) -> u64 {
    capture_targets_in(from, Rings::of(own | enemy), enemy)
}

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

/// The eight directions `(file, rank)` of a step.
const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// Every point.
pub const BOARD: u64 = (1 << POINTS) - 1;

/// The points on some circuit (all but the four corners).
pub const ON_CIRCUITS: u64 = BOARD & !(1 | 1 << 5 | 1 << 30 | 1 << 35);

/// The points from which a step in direction `d` lands on one of `targets`.
#[inline]
pub fn step_sources(targets: u64, d: usize) -> u64 {
    // A source must not be on the edge the step leaves by.
    const KEEP: [u64; 8] = {
        let mut keep = [BOARD; 8];
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRS[d];
            if df == -1 {
                keep[d] &= !file(0);
            }
            if df == 1 {
                keep[d] &= !file(5);
            }
            if dr == -1 {
                keep[d] &= !0x3F;
            }
            if dr == 1 {
                keep[d] &= !(0x3F << 30);
            }
            d += 1;
        }
        keep
    };
    let (df, dr) = DIRS[d];
    let delta = df + 6 * dr;
    let back = if delta > 0 {
        targets >> delta
    } else {
        targets << -delta
    };
    back & KEEP[d]
}

/// `STEPS[p][dir]`: the neighbour of `p` in each of the eight directions, or `NONE` off the
/// board.
pub(super) static STEPS: [[u8; 8]; POINTS] = steps();
pub(super) const NONE: u8 = u8::MAX;

const fn steps() -> [[u8; 8]; POINTS] {
    let mut out = [[NONE; 8]; POINTS];
    let mut p = 0;
    while p < POINTS {
        let (f, r) = ((p % 6) as i32, (p / 6) as i32);
        let mut d = 0;
        while d < 8 {
            let (g, s) = (f + DIRS[d].0, r + DIRS[d].1);
            if g >= 0 && g < 6 && s >= 0 && s < 6 {
                out[p][d] = (s * 6 + g) as u8;
            }
            d += 1;
        }
        p += 1;
    }
    out
}

/// The empty neighbours of `from`.
#[inline]
pub fn step_targets(from: usize, occupied: u64) -> u64 {
    NEIGHBOURS[from] & !occupied
}

/// The six points of a file.
const fn file(f: usize) -> u64 {
    let mut bits = 0;
    let mut rank = 0;
    while rank < 6 {
        bits |= 1 << (rank * 6 + f);
        rank += 1;
    }
    bits
}

/// The points next to any of `pieces` (a king's move away).
#[inline]
pub fn neighbourhood(pieces: u64) -> u64 {
    // Not file a, not file f: a shift sideways must not wrap onto the next rank.
    const NOT_A: u64 = BOARD & !file(0);
    const NOT_F: u64 = BOARD & !file(5);
    let sideways = pieces | ((pieces << 1) & NOT_A) | ((pieces >> 1) & NOT_F);
    (sideways | (sideways << 6) | (sideways >> 6)) & BOARD & !pieces
}
