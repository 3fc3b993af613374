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

/// One entry as read back.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    pub best: Option<usize>,
}

impl Probe {
    /// The stored score, read at `ply`, where it is a win at least (a lower bound or exact,
    /// beyond [`DECIDED`]) whatever depth it was searched to.
    pub fn win(&self, ply: usize) -> Option<i32> {
        let score = from_table(self.score, ply);
        (self.bound != Bound::Upper && score > DECIDED).then_some(score)
    }

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

/// The table: buckets of two entries, two words each, the key stored xor the data, so that a
/// write torn between two threads reads as a miss. The first entry of a bucket keeps the
/// deepest search of the current search (a key's new result always replaces its own), the
/// second takes whatever the first does not; entries of an earlier search
/// ([`new_search`](Self::new_search)) give way to any new one.
pub struct Table {
    words: Vec<AtomicU64>,
    /// The bucket of a key is its low bits masked.
    mask: usize,
    /// The current search's number (6 bits, kept in each entry it stores).
    generation: AtomicU64,
}

/// Where an entry's data keeps its search's number, and how many bits it has.
const GENERATION_SHIFT: u32 = 42;
const GENERATION_MASK: u64 = 0x3F;

impl Table {
    /// A table of `2^bits` entries (16 bytes each, two a bucket; at least one bucket).
    pub fn new(bits: u32) -> Table {
        let buckets = 1usize << bits.saturating_sub(1);
        Table {
            words: (0..4 * buckets).map(|_| AtomicU64::new(0)).collect(),
            mask: buckets - 1,
            generation: AtomicU64::new(0),
        }
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for w in &self.words {
            w.store(0, Ordering::Relaxed);
        }
    }

    /// Starts a new search: the entries stored so far give way to the new search's.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// The data of entry `i` (a word index) where it holds `key`.
    #[inline]
    fn read(&self, i: usize, key: u64) -> Option<u64> {
        let data = self.words[i + 1].load(Ordering::Relaxed);
        (self.words[i].load(Ordering::Relaxed) ^ data == key && data != 0).then_some(data)
    }

    pub fn probe(&self, key: u64) -> Option<Probe> {
        let i = 4 * (key as usize & self.mask);
        let data = self.read(i, key).or_else(|| self.read(i + 2, key))?;
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
        let i = 4 * (key as usize & self.mask);
        let best = best.map_or(u16::MAX, |p| p as u16);
        let depth = depth.clamp(0, 255) as u8;
        let generation = self.generation.load(Ordering::Relaxed) & GENERATION_MASK;
        let data = u64::from(to_table(score, ply) as u32)
            | u64::from(depth) << 32
            | (bound as u64) << 40
            | generation << GENERATION_SHIFT
            | u64::from(best) << 48;
        // The deep entry gives way to its own key, to an earlier search's entry and to a
        // search as deep or deeper; else the second entry takes it.
        let deep = self.words[i + 1].load(Ordering::Relaxed);
        let deep_key = self.words[i].load(Ordering::Relaxed) ^ deep;
        let replace_deep = deep == 0
            || deep_key == key
            || (deep >> GENERATION_SHIFT) & GENERATION_MASK != generation
            || depth >= (deep >> 32) as u8;
        let j = if replace_deep { i } else { i + 2 };
        self.words[j].store(key ^ data, Ordering::Relaxed);
        self.words[j + 1].store(data, Ordering::Relaxed);
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
    fn entries_read_back_as_stored_and_wins_count_from_the_node() {
        let table = Table::new(4);
        assert!(table.probe(77).is_none());
        table.store(77, -1234, 3, 9, Bound::Lower, Some(1295));
        let e = table.probe(77).expect("stored");
        assert_eq!(
            (e.score, e.depth, e.bound, e.best),
            (-1234, 9, Bound::Lower, Some(1295))
        );
        // A key of the same bucket (8 of them) is a miss, then takes the second entry: the
        // first keeps the deeper search.
        assert!(table.probe(77 + 8).is_none());
        table.store(77 + 8, WIN - 7, 5, 2, Bound::Exact, None);
        let e = table.probe(77 + 8).expect("stored");
        assert_eq!(e.best, None);
        assert_eq!(from_table(e.score, 5), WIN - 7);
        assert_eq!(from_table(e.score, 1), WIN - 3);
        assert_eq!(e.cutoff(2, 0, 10, 5), Some(WIN - 7));
        assert_eq!(e.cutoff(3, 0, 10, 5), None);
        assert_eq!(table.probe(77).map(|e| e.depth), Some(9));
        // A third key replaces the second entry, not the deep one.
        table.store(77 + 16, 5, 0, 1, Bound::Upper, None);
        assert!(table.probe(77 + 8).is_none());
        assert_eq!(table.probe(77).map(|e| e.depth), Some(9));
        assert_eq!(table.probe(77 + 16).map(|e| e.score), Some(5));
        // A key's own result replaces its deep entry, however shallow.
        table.store(77, 6, 0, 3, Bound::Exact, None);
        assert_eq!(table.probe(77).map(|e| (e.score, e.depth)), Some((6, 3)));
        // Deeper takes the first entry.
        table.store(77 + 24, 7, 0, 4, Bound::Exact, None);
        assert!(table.probe(77).is_none());
        assert_eq!(table.probe(77 + 24).map(|e| e.depth), Some(4));
        // Once a new search starts, the old deep entry gives way to a shallow one.
        table.new_search();
        table.store(77 + 32, 8, 0, 1, Bound::Exact, None);
        assert!(table.probe(77 + 24).is_none());
        assert_eq!(table.probe(77 + 32).map(|e| e.depth), Some(1));
        table.clear();
        assert!(table.probe(77 + 32).is_none());
    }
}
