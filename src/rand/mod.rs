//! Random numbers for workload generation, behaving like sysbench's `sb_rand.c`.
//!
//! Every client stream owns an [`Rng`] (xoroshiro128+, as each sysbench thread
//! does), seeded the way sysbench seeds its threads so that a `--rand-seed`
//! gives the same key sequences as sysbench. On top of it sit the key
//! distributions of `--rand-type` ([`Dist`]), sysbench's string templates for
//! the `c`/`pad` columns (plus BMK-kit's compressible `--rand-data` variant),
//! the `sysbench.rand.unique()` permutation and TPC-C's NURand.
//!
//! Nothing here allocates, locks or touches atomics on the per-query path:
//! each stream's generator is plain owned state.

mod dist;
mod glibc;
mod template;
mod unique;

pub use dist::{Dist, DistConfig, RandType};
pub use glibc::GlibcRandom;
pub use template::{fill_template, fill_template_rnd_data, BulkTemplate, C_TEMPLATE, PAD_TEMPLATE};
pub use unique::UniquePermutation;

use std::sync::OnceLock;

/// xoroshiro128+ generator, as sysbench uses per thread.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 2],
}

impl Rng {
    /// Deterministic generator for client `stream` (0, 1, 2, ..) of a run
    /// seeded with `seed` (`--rand-seed`).
    ///
    /// sysbench calls `srandom(seed)` and then every worker thread takes four
    /// consecutive `random()` values for its state, in thread-creation order.
    /// Stream `i` therefore gets values `4i..4i+4` of that sequence, which is
    /// exactly sysbench thread `i`'s state whenever sysbench starts no
    /// background thread (no `--report-interval`, `--rate` or checkpoints) and
    /// its threads reach their seeding in order, as they normally do. (Each
    /// such background thread takes the next slice first, shifting sysbench's
    /// thread `i` to stream `i + 1` per thread.)
    ///
    /// Seeds above `u32::MAX` are folded into 32 bits, because that is all the
    /// glibc generator takes; seed 0 behaves like seed 1 (glibc's rule).
    /// Any stream number is cheap: the glibc sequence is jumped, not stepped.
    pub fn from_seed(seed: u64, stream: u64) -> Rng {
        let mut g = GlibcRandom::new(glibc_seed(seed));
        g.skip(stream.saturating_mul(4));
        Rng::from_glibc(&mut g)
    }

    /// Generator for `stream` seeded from the clock and the OS: the same as
    /// `from_seed(entropy_seed(), stream)`, so all streams of one process share
    /// one seed (as sysbench's `srandom(time(NULL))` does) and never overlap.
    pub fn from_entropy(stream: u64) -> Rng {
        Rng::from_seed(entropy_seed(), stream)
    }

    /// Generator for `stream` under `--rand-seed`'s rule (see [`seed_or_entropy`]).
    pub fn from_seed_or_entropy(seed: u64, stream: u64) -> Rng {
        Rng::from_seed(seed_or_entropy(seed), stream)
    }

    /// sysbench's per-thread seeding: two 64-bit words, each from two `random()` calls.
    fn from_glibc(g: &mut GlibcRandom) -> Rng {
        let mut word = || (u64::from(g.next()) << 32) | u64::from(g.next());
        let s = [word(), word()];
        // An all-zero state would make xoroshiro emit zeros forever; glibc
        // cannot realistically produce it, but it costs nothing to rule out.
        Rng { s: if s == [0, 0] { [1, 0] } else { s } }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        // The original 2016 xoroshiro128+ parameters (55, 14, 36), which is the
        // variant sysbench ships; the 2018 revision uses different rotations.
        let [s0, mut s1] = self.s;
        let out = s0.wrapping_add(s1);
        s1 ^= s0;
        self.s = [s0.rotate_left(55) ^ s1 ^ (s1 << 14), s1.rotate_left(36)];
        out
    }

    /// [0, 1) from 52 random bits, like sysbench's `sb_rand_uniform_double`.
    #[inline]
    pub fn uniform_double(&mut self) -> f64 {
        // The top 52 bits become the mantissa of a double in [1, 2).
        f64::from_bits(0x3FF0_0000_0000_0000 | (self.next_u64() >> 12)) - 1.0
    }

    /// Inclusive [a, b] with sysbench's formula `a + U*(b-a+1)`, truncated.
    /// Takes u64 so that tables above 2^32 rows work. `a > b` is a caller bug
    /// (debug assertion); release builds then return `a`.
    #[inline]
    pub fn uniform(&mut self, a: u64, b: u64) -> u64 {
        debug_assert!(a <= b, "uniform({a}, {b}): empty range");
        let span = b.saturating_sub(a);
        add_f(a, self.uniform_double() * (span as f64 + 1.0), span)
    }
}

/// glibc's `srandom` takes 32 bits. Folding the high half in keeps every seed
/// below 2^32 (all that sysbench's `int --rand-seed` can express) unchanged.
fn glibc_seed(seed: u64) -> u32 {
    (seed ^ (seed >> 32)) as u32
}

/// The seed [`Rng::from_entropy`] uses, drawn once per process from the
/// clock and the OS. It lies in [1, 2^31), so it can be reported and passed
/// back as `--rand-seed` (to this tool or to sysbench) to repeat the run.
pub fn entropy_seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| {
        use std::hash::BuildHasher;
        use std::time::{SystemTime, UNIX_EPOCH};
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        // RandomState carries per-process keys from the OS's random source.
        let h = std::collections::hash_map::RandomState::new().hash_one((nanos, std::process::id()));
        h % 0x7FFF_FFFF + 1
    })
}

/// `--rand-seed`'s rule, sysbench's: 0 (the default) draws the process's
/// seed from entropy ([`entropy_seed`]), anything else is the seed.
pub fn seed_or_entropy(seed: u64) -> u64 {
    if seed == 0 {
        entropy_seed()
    } else {
        seed
    }
}

/// `a + x` truncated, kept within [a, a + span].
///
/// sysbench adds the fractional offset to `a` in double precision and
/// truncates the sum. Where sysbench can work at all (results below 2^32) we
/// do the same, so results are bit-identical; beyond that the offset is
/// truncated first, which stays exact for any `a`. A NaN offset (only
/// possible from a nonsensical configuration) still lands inside the range.
#[inline]
fn add_f(a: u64, x: f64, span: u64) -> u64 {
    let b = a + span;
    if b <= u64::from(u32::MAX) {
        // Bounds applied in floating point compile to branch-free min/max (an
        // integer clamp here became unpredictable branches that doubled the
        // cost of a template); NaN ends up at b. Going through i64 keeps each
        // conversion a single instruction.
        let (af, bf) = (a as i64 as f64, b as i64 as f64);
        (af + x).min(bf).max(af) as i64 as u64
    } else {
        add_trunc(a, x, span)
    }
}

/// `a + trunc(x)`, kept within [a, a + span]: sysbench's `a + (uint32_t) x`.
#[inline]
fn add_trunc(a: u64, x: f64, span: u64) -> u64 {
    // `as` saturates: negative and NaN offsets become 0.
    a + (x as u64).min(span)
}

/// TPC-C's NURand(A, x, y) = (((uniform(0, A) | uniform(x, y)) + C) % (y - x + 1)) + x,
/// drawing the two uniforms in that order, as sysbench-tpcc does.
pub fn nurand(rng: &mut Rng, a: u64, c: u64, x: u64, y: u64) -> u64 {
    debug_assert!(x <= y, "nurand: empty range [{x}, {y}]");
    let mixed = rng.uniform(0, a) | rng.uniform(x, y);
    // u128 so that neither `+ c` nor `y - x + 1` can overflow.
    let m = u128::from(y.saturating_sub(x)) + 1;
    x + ((u128::from(mixed) + u128::from(c)) % m) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rand_seed_zero_draws_the_process_seed_and_any_other_is_kept() {
        assert_eq!(seed_or_entropy(0), entropy_seed());
        assert_eq!(seed_or_entropy(7), 7);
        let (mut a, mut b) = (Rng::from_seed_or_entropy(7, 3), Rng::from_seed(7, 3));
        assert_eq!((a.next_u64(), a.next_u64()), (b.next_u64(), b.next_u64()));
        let (mut a, mut b) = (Rng::from_seed_or_entropy(0, 3), Rng::from_entropy(3));
        assert_eq!((a.next_u64(), a.next_u64()), (b.next_u64(), b.next_u64()));
    }

    /// Expected xoroshiro outputs for sysbench threads 0..3, computed by a
    /// small C program that seeds from the real glibc `srandom`/`random`.
    #[test]
    fn matches_sysbench_thread_seeding() {
        let cases: [(u64, [[u64; 3]; 3]); 2] = [
            (
                1,
                [
                    [0xcfc7ddd098ae6c39, 0x6048490ff8b9e709, 0xe50dc3ce9d0287aa],
                    [0x9f99709b7b9eb5eb, 0xe5a50fe83818e274, 0x706aa0ccf8c423b5],
                    [0x60a977e397675478, 0x934afb9b1240d889, 0x6bca99a85d6545d2],
                ],
            ),
            (
                3_000_000_000,
                [
                    [0xb1a7d840440070d5, 0x91ab760273cdbd67, 0xb8c873ed558a31e1],
                    [0x9d7ccbbbb711986c, 0x3f0e2752fb04c2e2, 0xd046b3903afc8d28],
                    [0xb57fbe318319e227, 0x53262c963ca3e960, 0xa05076ad842ec2c0],
                ],
            ),
        ];
        for (seed, streams) in cases {
            for (i, want) in streams.iter().enumerate() {
                let mut r = Rng::from_seed(seed, i as u64);
                let got = [r.next_u64(), r.next_u64(), r.next_u64()];
                assert_eq!(&got, want, "seed {seed} stream {i}");
            }
        }
        let r = Rng::from_seed(42, 1);
        assert_eq!(r.s, [0x1a66e56420043586, 0x517abfed6e8b2d9c]);
    }

    #[test]
    fn reproducible_and_independent() {
        let draw = |seed, stream| {
            let mut r = Rng::from_seed(seed, stream);
            (0..64).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7, 3), draw(7, 3));
        assert_ne!(draw(7, 3), draw(7, 4));
        assert_ne!(draw(7, 3), draw(8, 3));
        // No stream's output should show up in another stream's output.
        let a: std::collections::HashSet<u64> = draw(7, 0).into_iter().collect();
        assert!(draw(7, 1).iter().all(|v| !a.contains(v)));
        // Seeds above u32::MAX are folded, not truncated.
        assert_ne!(draw((1 << 32) + 5, 0), draw(5, 0));
    }

    #[test]
    fn stream_is_next_slice_of_glibc_sequence() {
        // Stream i starts where stream i-1's four values end, even far out.
        let mut g = GlibcRandom::new(99);
        g.skip(4 * 999_999);
        let mut slice = || (u64::from(g.next()) << 32) | u64::from(g.next());
        let want = [slice(), slice()];
        assert_eq!(Rng::from_seed(99, 999_999).s, want);
    }

    #[test]
    fn entropy_is_shared_per_process_and_reportable() {
        let s = entropy_seed();
        assert!((1..0x8000_0000).contains(&s));
        assert_eq!(s, entropy_seed());
        let mut a = Rng::from_entropy(5);
        let mut b = Rng::from_seed(s, 5);
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(Rng::from_entropy(0).next_u64(), Rng::from_entropy(1).next_u64());
    }

    #[test]
    fn uniform_double_uses_top_52_bits() {
        let mut r = Rng::from_seed(3, 0);
        for _ in 0..1000 {
            let raw = r.clone().next_u64();
            let d = r.uniform_double();
            assert!((0.0..1.0).contains(&d));
            assert_eq!(d, (raw >> 12) as f64 / (1u64 << 52) as f64);
        }
    }

    /// First values of `a + U*(b-a+1)` in C double arithmetic for seed 1, stream 0.
    #[test]
    fn uniform_matches_sysbench_formula() {
        let mut r = Rng::from_seed(1, 0);
        let mut c = r.clone();
        for _ in 0..1000 {
            let want = (10.0 + c.uniform_double() * 10_000.0) as u64;
            assert_eq!(r.uniform(10, 10_009), want);
        }
    }

    /// sysbench adds before truncating: with U just below 0.5 and a large `a`,
    /// a + 10U rounds up to a + 5 where truncating first would give a + 4.
    #[test]
    fn uniform_rounds_like_sysbench() {
        let mut r = Rng { s: [((1u64 << 51) - 1) << 12, 0] };
        let a = 4_000_000_000;
        assert_eq!(r.uniform(a, a + 9), a + 5);
    }

    #[test]
    fn uniform_chi_square() {
        const K: usize = 100;
        const N: usize = 1_000_000;
        let mut r = Rng::from_seed(11, 0);
        let mut counts = [0u64; K];
        for _ in 0..N {
            let v = r.uniform(1, K as u64);
            assert!((1..=K as u64).contains(&v));
            counts[(v - 1) as usize] += 1;
        }
        let expect = (N / K) as f64;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - expect).powi(2) / expect).sum();
        // 99 degrees of freedom: mean 99, sd 14; 170 is five sd out.
        assert!(chi2 < 170.0, "chi2 = {chi2}");
        assert!(counts.iter().all(|&c| c > 0));
    }

    #[test]
    fn uniform_edges() {
        let mut r = Rng::from_seed(5, 0);
        assert_eq!(r.uniform(9, 9), 9);
        assert_eq!(r.uniform(u64::MAX, u64::MAX), u64::MAX);
        let mut max = 0;
        for _ in 0..10_000 {
            let v = r.uniform(1, 1_000_000_000_000);
            assert!((1..=1_000_000_000_000).contains(&v));
            max = max.max(v);
            // Neither the full u64 range nor one straddling 2^32 may overflow.
            r.uniform(0, u64::MAX);
            let z = r.uniform(u64::from(u32::MAX) - 3, u64::from(u32::MAX) + 3);
            assert!((u64::from(u32::MAX) - 3..=u64::from(u32::MAX) + 3).contains(&z));
        }
        // Not squeezed into 32 bits.
        assert!(max > 900_000_000_000);
    }

    #[test]
    fn nurand_stays_in_range() {
        let mut r = Rng::from_seed(17, 0);
        for &(a, c, x, y) in &[(255, 123, 0, 999), (1023, 259, 1, 3000), (8191, 7911, 1, 100_000), (255, 0, 5, 5)] {
            let mut seen = std::collections::HashSet::new();
            for _ in 0..50_000 {
                let v = nurand(&mut r, a, c, x, y);
                assert!((x..=y).contains(&v), "nurand({a},{c},{x},{y}) = {v}");
                seen.insert(v);
            }
            // Covers a good part of the range.
            assert!(seen.len() as u64 >= (y - x + 1).min(500));
        }
        // Extreme arguments must not overflow.
        nurand(&mut r, u64::MAX, u64::MAX, 0, u64::MAX);
    }
}
