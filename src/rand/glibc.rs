//! Emulation of glibc's `srandom()`/`random()` (the default TYPE_3 additive
//! feedback generator). sysbench seeds every thread's xoroshiro128+ state from
//! `random()` after `srandom(--rand-seed)`, so reproducing this generator is
//! what lets a given seed produce the same per-thread streams as sysbench.

/// Degree of the TYPE_3 trinomial x^31 + x^3 + 1: 31 words of state.
const DEG: usize = 31;
/// Distance between the two taps.
const SEP: usize = 3;

/// glibc `random()` state after `srandom(seed)`.
#[derive(Clone, Debug)]
pub struct GlibcRandom {
    state: [u32; DEG],
    front: usize,
    rear: usize,
}

impl GlibcRandom {
    /// Same as glibc `srandom(seed)`; seed 0 is replaced by 1, as glibc does.
    pub fn new(seed: u32) -> Self {
        let mut state = [0u32; DEG];
        let seed = if seed == 0 { 1 } else { seed };
        state[0] = seed;
        // glibc fills the table with 16807 * x mod (2^31 - 1), using Schrage's
        // trick on a *signed* 32-bit word, so seeds >= 2^31 start negative and
        // need the same signed arithmetic to give the same table.
        let mut word = seed as i32 as i64;
        for slot in state.iter_mut().skip(1) {
            let hi = word / 127_773;
            let lo = word % 127_773;
            word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            *slot = word as u32;
        }
        let mut g = GlibcRandom { state, front: SEP, rear: 0 };
        // glibc throws away the first 10 * DEG outputs to decorrelate the
        // linear-congruential start.
        for _ in 0..10 * DEG {
            g.next();
        }
        g
    }

    /// Advance as if `next()` had been called `n` times, in O(log n).
    ///
    /// Read from the front slot, the ring holds the last 31 words
    /// `x(t-31) .. x(t-1)` of the sequence `x(t) = x(t-31) + x(t-3)` (mod 2^32),
    /// whose characteristic polynomial is P = X^31 - X^28 - 1. For any such
    /// recurrence, `X^m mod P = Σ c_j X^j` gives `x(t-31+m) = Σ c_j x(t-31+j)`,
    /// so the window for m = n..n+31 follows from X^n mod P and its 30 shifts.
    pub fn skip(&mut self, n: u64) {
        let window: [u32; DEG] = std::array::from_fn(|j| self.state[(self.front + j) % DEG]);
        // Both taps move on by n, keeping their distance of SEP.
        let shift = (n % DEG as u64) as usize;
        self.front = (self.front + shift) % DEG;
        self.rear = (self.rear + shift) % DEG;
        let mut poly = x_pow_mod(n);
        for i in 0..DEG {
            let v = poly.iter().zip(&window).fold(0u32, |acc, (c, w)| acc.wrapping_add(c.wrapping_mul(*w)));
            self.state[(self.front + i) % DEG] = v;
            poly = times_x(&poly);
        }
    }

    /// Next value of `random()`, in [0, 2^31).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u32 {
        let v = self.state[self.front].wrapping_add(self.state[self.rear]);
        self.state[self.front] = v;
        self.front = (self.front + 1) % DEG;
        self.rear = (self.rear + 1) % DEG;
        // The lowest bit of an additive generator is the weakest; glibc drops it.
        v >> 1
    }
}

/// Polynomials of degree < 31 over Z/2^32 (wrapping u32 coefficients,
/// lowest degree first), kept reduced modulo P = X^31 - X^28 - 1.
type Poly = [u32; DEG];

/// Reduce using X^31 = X^28 + 1, i.e. X^d = X^(d-3) + X^(d-31) for d >= 31;
/// going downwards lets terms that land at 31 or above be reduced again.
fn reduce(mut c: [u32; 2 * DEG - 1]) -> Poly {
    for d in (DEG..c.len()).rev() {
        let k = std::mem::take(&mut c[d]);
        c[d - SEP] = c[d - SEP].wrapping_add(k);
        c[d - DEG] = c[d - DEG].wrapping_add(k);
    }
    std::array::from_fn(|j| c[j])
}

fn times_x(p: &Poly) -> Poly {
    let mut c = [0u32; 2 * DEG - 1];
    c[1..=DEG].copy_from_slice(p);
    reduce(c)
}

fn mul_mod(a: &Poly, b: &Poly) -> Poly {
    let mut c = [0u32; 2 * DEG - 1];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            c[i + j] = c[i + j].wrapping_add(x.wrapping_mul(y));
        }
    }
    reduce(c)
}

/// X^n mod P by square-and-multiply over the bits of n.
fn x_pow_mod(n: u64) -> Poly {
    let mut r: Poly = [0; DEG];
    r[0] = 1;
    for bit in (0..u64::BITS - n.leading_zeros()).rev() {
        r = mul_mod(&r, &r);
        if n >> bit & 1 == 1 {
            r = times_x(&r);
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_seed_1() {
        let mut g = GlibcRandom::new(1);
        let first: Vec<u32> = (0..6).map(|_| g.next()).collect();
        assert_eq!(first, [1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335]);
    }

    #[test]
    fn seed_zero_is_seed_one() {
        let mut a = GlibcRandom::new(0);
        let mut b = GlibcRandom::new(1);
        for _ in 0..100 {
            assert_eq!(a.next(), b.next());
        }
    }

    #[test]
    fn skip_equals_stepping() {
        for seed in [1u32, 77, 3_000_000_000] {
            for n in [0u64, 1, 2, 3, 30, 31, 32, 62, 100, 4 * 1_000, 123_457] {
                // Start from a state that has already moved, not only a fresh one.
                let mut stepped = GlibcRandom::new(seed);
                stepped.next();
                let mut jumped = stepped.clone();
                for _ in 0..n {
                    stepped.next();
                }
                jumped.skip(n);
                for i in 0..70 {
                    assert_eq!(jumped.next(), stepped.next(), "seed {seed} skip {n} output {i}");
                }
            }
        }
    }

    /// Cross-check against the C library this process is linked with. Uses the
    /// reentrant `*_r` calls on private state, so nothing else in the process
    /// that calls `random()` can interfere.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn matches_real_glibc() {
        use std::ffi::{c_char, c_int, c_uint};
        #[repr(C)]
        struct RandomData {
            fptr: *mut i32,
            rptr: *mut i32,
            state: *mut i32,
            rand_type: c_int,
            rand_deg: c_int,
            rand_sep: c_int,
            end_ptr: *mut i32,
        }
        unsafe extern "C" {
            fn initstate_r(seed: c_uint, buf: *mut c_char, len: usize, data: *mut RandomData) -> c_int;
            fn random_r(data: *mut RandomData, result: *mut i32) -> c_int;
        }
        for seed in [1u32, 2, 42, 12345, 0x7fff_ffff, 0x8000_0000, 3_000_000_000, u32::MAX] {
            // 128 bytes of state selects TYPE_3, glibc's default.
            let mut words = [0i32; 32];
            let mut data: RandomData = unsafe { std::mem::zeroed() };
            let rc = unsafe { initstate_r(seed, words.as_mut_ptr().cast(), 128, &mut data) };
            assert_eq!(rc, 0);
            let mut g = GlibcRandom::new(seed);
            for i in 0..1000 {
                let mut want = 0i32;
                assert_eq!(unsafe { random_r(&mut data, &mut want) }, 0);
                assert_eq!(g.next(), want as u32, "seed {seed}, output {i}");
            }
        }
    }
}
