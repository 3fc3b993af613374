//! A transposition table for the alpha-beta searchers, shared lock-free by their threads
//! (lazy SMP), and the score conventions that go with it. Ignorant of every game: a position
//! is its 64-bit hash, a move a number below `u16::MAX`.

use std::sync::atomic::{AtomicU64, Ordering};

/// The score of a won position (less the plies to the win).
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are wins or losses found by the search.
pub const DECIDED: i32 = WIN - 1_000;

/// What a stored score says of the position's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 0,
    Lower = 1,
    Upper = 2,
}

impl Bound {
    /// What a search's `best` score says, searched in the window (`alpha`, `beta`): at least
    /// `best` where it reached `beta`, at most where it did not beat `alpha`, else exactly.
    #[inline]
    pub fn of(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// One entry as read back.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    pub best: Option<usize>,
}

impl Probe {
    /// The stored score where it decides a search of `depth` in the window (`alpha`, `beta`),
    /// read at `ply` from the root.
    pub fn cutoff(&self, depth: i32, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
        if self.depth < depth {
            return None;
        }
        let score = from_table(self.score, ply);
        match self.bound {
            Bound::Exact => Some(score),
            Bound::Lower if score >= beta => Some(score),
            Bound::Upper if score <= alpha => Some(score),
            _ => None,
        }
    }
}

/// The table: two words an entry, the key stored xor the data, so that a write torn between
/// two threads reads as a miss. Always replaces.
pub struct Table {
    words: Vec<AtomicU64>,
    mask: usize,
}

impl Table {
    /// A table of `2^bits` entries (16 bytes each).
    pub fn new(bits: u32) -> Table {
        Table {
            words: (0..2usize << bits).map(|_| AtomicU64::new(0)).collect(),
            mask: (1 << bits) - 1,
        }
    }

    /// The largest table within `mb` MiB (a power of two entries, at least 2^10).
    pub fn with_mb(mb: usize) -> Table {
        Table::new(Table::bits_within(mb))
    }

    /// The log2 of the entries that fit in `mb` MiB, at least 10.
    fn bits_within(mb: usize) -> u32 {
        let entries = (mb.max(1) << 20) / 16;
        (usize::BITS - 1 - entries.leading_zeros()).max(10)
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for w in &self.words {
            w.store(0, Ordering::Relaxed);
        }
    }

    pub fn probe(&self, key: u64) -> Option<Probe> {
        let i = 2 * (key as usize & self.mask);
        let data = self.words[i + 1].load(Ordering::Relaxed);
        if self.words[i].load(Ordering::Relaxed) ^ data != key || data == 0 {
            return None;
        }
        let best = (data >> 48) as u16;
        Some(Probe {
            score: data as u32 as i32,
            depth: i32::from((data >> 32) as u8),
            bound: match (data >> 40) & 3 {
                0 => Bound::Exact,
                1 => Bound::Lower,
                _ => Bound::Upper,
            },
            best: (best != u16::MAX).then_some(usize::from(best)),
        })
    }

    /// Stores a score as the search found it `ply` plies from the root.
    pub fn store(
        &self,
        key: u64,
        score: i32,
        ply: usize,
        depth: i32,
        bound: Bound,
        best: Option<usize>,
    ) {
        let i = 2 * (key as usize & self.mask);
        let best = best.map_or(u16::MAX, |p| p as u16);
        let data = u64::from(to_table(score, ply) as u32)
            | u64::from(depth.clamp(0, 255) as u8) << 32
            | (bound as u64) << 40
            | u64::from(best) << 48;
        self.words[i].store(key ^ data, Ordering::Relaxed);
        self.words[i + 1].store(data, Ordering::Relaxed);
    }
}

/// A win or loss as the table keeps it: counted from the node, not the root.
pub fn to_table(score: i32, ply: usize) -> i32 {
    if score > DECIDED {
        score + ply as i32
    } else if score < -DECIDED {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score as seen `ply` plies from the root.
pub fn from_table(score: i32, ply: usize) -> i32 {
    if score > DECIDED {
        score - ply as i32
    } else if score < -DECIDED {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sized_by_mb() {
        // 16 MiB of 16-byte entries is 2^20 of them; a table is at least 2^10.
        assert_eq!(Table::bits_within(16), 20);
        assert_eq!(Table::bits_within(1), 16);
        assert_eq!(Table::bits_within(48), 21);
        assert_eq!(Table::bits_within(0), 16);
        assert_eq!(Table::with_mb(1).mask + 1, 1 << 16);
    }

    #[test]
    fn entries_read_back_as_stored_and_wins_count_from_the_node() {
        let table = Table::new(4);
        assert!(table.probe(77).is_none());
        table.store(77, -1234, 3, 9, Bound::Lower, Some(1295));
        let e = table.probe(77).expect("stored");
        assert_eq!(
            (e.score, e.depth, e.bound, e.best),
            (-1234, 9, Bound::Lower, Some(1295))
        );
        // A key of the same slot is a miss, then replaces.
        assert!(table.probe(77 + 16).is_none());
        table.store(77 + 16, WIN - 7, 5, 2, Bound::Exact, None);
        let e = table.probe(77 + 16).expect("stored");
        assert_eq!(e.best, None);
        assert_eq!(from_table(e.score, 5), WIN - 7);
        assert_eq!(from_table(e.score, 1), WIN - 3);
        assert_eq!(e.cutoff(2, 0, 10, 5), Some(WIN - 7));
        assert_eq!(e.cutoff(3, 0, 10, 5), None);
        assert!(table.probe(77).is_none());
        table.clear();
        assert!(table.probe(77 + 16).is_none());
    }
}
