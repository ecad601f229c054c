//! Non-repeating pseudo-random u32 ids, as sysbench's `sysbench.rand.unique()`
//! (Jeff Preshing's RandomSequence).
//!
//! For a prime p ≡ 3 (mod 4), x -> x² mod p on the lower half of [0, p) and
//! x -> p - x² mod p on the upper half is a bijection of [0, p). Applying it
//! twice around a seeded offset and an xor scrambles a counter into ids that
//! look random yet never repeat before 2^32 draws.

use super::{glibc_seed, GlibcRandom};

/// Largest prime below 2^32; it is ≡ 3 (mod 4).
const PRIME: u32 = 4_294_967_291;

fn permute(x: u32) -> u32 {
    // The five values at or above the prime map to themselves.
    if x >= PRIME {
        return x;
    }
    let residue = (u64::from(x) * u64::from(x) % u64::from(PRIME)) as u32;
    if x <= PRIME / 2 {
        residue
    } else {
        PRIME - residue
    }
}

/// A seeded bijection on u32. Callers draw ids by feeding it a counter
/// (0, 1, 2, .. shared by all clients), the way sysbench's atomic counter does.
#[derive(Clone, Copy, Debug)]
pub struct UniquePermutation {
    base: u32,
    offset: u32,
}

impl UniquePermutation {
    /// Seeds it as sysbench does: from the 5th and 6th `random()` values after
    /// `srandom(seed)` (the first four seed the main thread's generator).
    ///
    /// sysbench runs this before it applies `--rand-seed`, so its sequence is
    /// always that of glibc's default state: `new(1)` reproduces
    /// sysbench's `sysbench.rand.unique()` for any `--rand-seed`.
    pub fn new(seed: u64) -> Self {
        let mut g = GlibcRandom::new(glibc_seed(seed));
        for _ in 0..4 {
            g.next();
        }
        // sysbench passes two `random()` calls as the arguments of one call;
        // GCC evaluates them right to left, so the first value drawn becomes
        // the offset seed and the second the index seed.
        let offset_seed = g.next();
        let index_seed = g.next();
        UniquePermutation { base: permute(permute(index_seed).wrapping_add(0x682f_0161)), offset: permute(permute(offset_seed).wrapping_add(0x4679_0905)) }
    }

    /// The `index`-th id of the sequence; distinct indexes give distinct ids.
    #[inline]
    pub fn at(&self, index: u32) -> u32 {
        let i = self.base.wrapping_add(index);
        permute(permute(i).wrapping_add(self.offset) ^ 0x5bf0_3635)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_edges() {
        for x in PRIME..=u32::MAX {
            assert_eq!(permute(x), x);
        }
        assert_eq!(permute(0), 0);
        assert_eq!(permute(2), 4);
        assert_eq!(permute(PRIME - 1), PRIME - 1);
        // x and p - x share a square; the halves must map them apart.
        assert_ne!(permute(PRIME / 2), permute(PRIME / 2 + 1));
        // Values below the prime stay below it, or the bijection would break.
        for x in (0..PRIME).step_by(65_521) {
            assert!(permute(x) < PRIME);
        }
    }

    /// Computed by a small C program from glibc's default `random()` state.
    #[test]
    fn matches_sysbench_sequence() {
        let u = UniquePermutation::new(1);
        let got: Vec<u32> = (0..5).map(|i| u.at(i)).collect();
        assert_eq!(got, [2672933100, 2916245674, 2834291422, 4086920756, 1846093984]);
    }

    fn assert_distinct(u: &UniquePermutation, start: u32, count: u32) {
        let mut v: Vec<u32> = (0..count).map(|i| u.at(start.wrapping_add(i))).collect();
        v.sort_unstable();
        let before = v.len();
        v.dedup();
        assert_eq!(v.len(), before, "duplicate ids from index {start}");
    }

    #[test]
    fn no_duplicates() {
        let u = UniquePermutation::new(12345);
        assert_distinct(&u, 0, 1 << 20);
        // Across the counter's wrap-around as well.
        assert_distinct(&u, u32::MAX - (1 << 19), 1 << 20);
        // Different seeds give different sequences.
        let w = UniquePermutation::new(54321);
        assert!((0..100).any(|i| u.at(i) != w.at(i)));
    }

    #[test]
    fn spread_over_u32() {
        let u = UniquePermutation::new(7);
        let high = (0..100_000).filter(|&i| u.at(i) >= 1 << 31).count();
        assert!((45_000..55_000).contains(&high), "{high}");
    }
}
