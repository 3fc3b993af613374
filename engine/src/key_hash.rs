//! Hash maps keyed by positions: the keys are bit sets or hashes already, not chosen by an
//! adversary, so one multiply (or none) does what the default SipHash does at many times the
//! cost of the lookup it serves.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`KeyHasher`]: for `u64` keys that are hashes already (a plain counter
/// as a key would fill few buckets) and `u128` edge sets.
pub type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// FNV-1a's offset basis: the state [`fnv1a`] starts from for a stable fingerprint.
pub const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// Folds `bytes` into an FNV-1a `state`, a byte at a time.
pub fn fnv1a(mut state: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        state = (state ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    state
}

/// Hashes a `u64` key as it is (a hash already) and a `u128` (an edge set) by folding it and
/// one multiply; other keys byte by byte (FNV-1a).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv1a(self.0, bytes);
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }

    fn write_u128(&mut self, key: u128) {
        let folded = key as u64 ^ ((key >> 64) as u64).rotate_left(29);
        self.0 = folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (folded >> 31);
    }
}
