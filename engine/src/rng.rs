//! A small, fast, seedable random number generator: xoshiro256++ seeded through SplitMix64.
//!
//! Written here rather than taken from `rand` so that a seed means the same stream forever:
//! datasets record seeds, and `rand`'s `SmallRng` does not promise a stable algorithm across
//! versions.

/// SplitMix64 step: used to expand seeds and to derive independent child seeds.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix64(*state)
}

/// SplitMix64's finaliser: every bit of `z` moves about half the bits of the result (the
/// games' position hashes are built of it).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derives a seed for stream `index` of a run seeded with `base` (threads, games, shards).
pub fn derive_seed(base: u64, index: u64) -> u64 {
    let mut s = base ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    splitmix64(&mut s);
    splitmix64(&mut s)
}

/// Maps 32 uniform random bits (in the low half of `bits`) to `0..n` (`n > 0`) by Lemire's
/// multiply-shift.
#[inline]
fn scale_below(bits: u64, n: u32) -> u32 {
    debug_assert!(n > 0 && bits >> 32 == 0);
    ((bits * n as u64) >> 32) as u32
}

/// xoshiro256++ (Blackman and Vigna).
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = (self.s[0].wrapping_add(self.s[3]))
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-shift on 32 random bits.
    /// The bias is below n / 2^32, far under anything a search can notice for n < 2^16.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        scale_below(self.next_u64() >> 32, n)
    }

    /// A uniform element of `items` (not empty), drawn by [`below`](Self::below).
    #[inline]
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }

    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Shuffles `items` uniformly (Fisher-Yates).
    #[inline]
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// Uniform draws below small bounds, two from each 64-bit output (low half, then high half):
/// half the generator work where a loop draws many small numbers, as a rollout does.
pub struct HalfDraws<'a> {
    rng: &'a mut Rng,
    spare: u64,
    has_spare: bool,
}

impl<'a> HalfDraws<'a> {
    pub fn new(rng: &'a mut Rng) -> HalfDraws<'a> {
        HalfDraws {
            rng,
            spare: 0,
            has_spare: false,
        }
    }

    /// A uniform integer in `0..n` (`n > 0`), Lemire's multiply-shift on 32 random bits.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        let bits = if self.has_spare {
            self.spare
        } else {
            let x = self.rng.next_u64();
            self.spare = x >> 32;
            x & 0xFFFF_FFFF
        };
        self.has_spare = !self.has_spare;
        scale_below(bits, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_different_seeds_differ() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let mut c = Rng::new(8);
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut rng = Rng::new(1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[rng.below(6) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn half_draws_use_both_halves_and_stay_uniform() {
        let mut a = Rng::new(4);
        let x = a.clone().next_u64();
        let mut draws = HalfDraws::new(&mut a);
        assert_eq!(draws.below(1 << 16) as u64, (x & 0xFFFF_FFFF) >> 16);
        assert_eq!(draws.below(1 << 16) as u64, x >> 48);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[draws.below(7) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut rng = Rng::new(3);
        let mut v: Vec<u32> = (0..50).collect();
        rng.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }

    #[test]
    fn derived_seeds_differ() {
        let seeds: std::collections::HashSet<u64> = (0..1000).map(|i| derive_seed(42, i)).collect();
        assert_eq!(seeds.len(), 1000);
    }
}
