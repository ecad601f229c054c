//! PostgreSQL's own generator (xoroshiro128** seeded through splitmix64),
//! so that `permute()` gives the very permutation pgbench gives for a seed,
//! and the random functions draw with the same formulas.

#[derive(Clone, Debug)]
pub struct PgRng {
    s0: u64,
    s1: u64,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut v = *state;
    v = (v ^ (v >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    v = (v ^ (v >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    v ^ (v >> 31)
}

impl PgRng {
    pub fn new(seed: u64) -> PgRng {
        let mut s = seed;
        let s0 = splitmix64(&mut s);
        let s1 = splitmix64(&mut s);
        // All zeroes is the generator's fixed point.
        if s0 == 0 && s1 == 0 {
            PgRng { s0: 0x5851_F42D_4C95_7F2D, s1: 0x1405_7B7E_F767_814F }
        } else {
            PgRng { s0, s1 }
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s0 = self.s0;
        let sx = self.s1 ^ s0;
        let val = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        self.s0 = s0.rotate_left(24) ^ sx ^ (sx << 16);
        self.s1 = sx.rotate_left(37);
        val
    }

    /// [0, 1) from 53 random bits.
    #[inline]
    pub fn double(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi] by bitmask rejection.
    #[inline]
    pub fn range_u64(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let range = hi - lo;
        let shift = range.leading_zeros();
        loop {
            let v = self.next_u64() >> shift;
            if v <= range {
                return lo + v;
            }
        }
    }

    /// Uniform in [lo, hi] (signed; the caller has checked the range fits).
    #[inline]
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        let span = hi.wrapping_sub(lo) as u64;
        lo.wrapping_add(self.range_u64(0, span) as i64)
    }

    /// A standard normal deviate (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.double();
        let u2 = self.double();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).sin()
    }

    /// Exponential over [lo, hi]: `param` sets how fast it falls off.
    pub fn exponential(&mut self, lo: i64, hi: i64, param: f64) -> i64 {
        let cut = (-param).exp();
        let u = 1.0 - self.double();
        let r = -(cut + (1.0 - cut) * u).ln() / param;
        lo.wrapping_add(((hi - lo + 1) as f64 * r) as i64)
    }

    /// Gaussian over [lo, hi], truncated at `param` standard deviations.
    pub fn gaussian(&mut self, lo: i64, hi: i64, param: f64) -> i64 {
        let sd = loop {
            let x = self.normal();
            if x >= -param && x < param {
                break x;
            }
        };
        let r = (sd + param) / (param * 2.0);
        lo.wrapping_add(((hi - lo + 1) as f64 * r) as i64)
    }

    /// Zipfian over [lo, hi] with exponent `s` > 1, by rejection
    /// (Devroye's method), as pgbench draws it.
    pub fn zipfian(&mut self, lo: i64, hi: i64, s: f64) -> i64 {
        let n = (hi - lo + 1) as f64;
        let b = 2f64.powf(s - 1.0);
        let x = loop {
            let u = 1.0 - self.double();
            let v = self.double();
            let x = u.powf(-1.0 / (s - 1.0)).floor();
            let t = (1.0 + 1.0 / x).powf(s - 1.0);
            if v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n {
                break x;
            }
        };
        lo + x as i64 - 1
    }
}

/// pgbench's `permute(i, size, seed)`: a pseudorandom bijection of
/// [0, size) chosen by `seed`.
pub fn permute(val: i64, size: i64, seed: i64) -> i64 {
    if size < 2 {
        return 0;
    }
    let mut st = PgRng::new(seed as u64);
    let size = size as u64;
    let mut v = (val as u64) % size;
    let masklen = 63 - size.leading_zeros();
    let mask = (1u64 << masklen) - 1;
    for _ in 0..6 {
        let m = (st.next_u64() & mask) | 1;
        let r = st.next_u64() & mask;
        if v <= mask {
            v = (v.wrapping_mul(m) ^ r) & mask;
            v = ((v << 1) & mask) | (v >> (masklen - 1));
        }
        let m = (st.next_u64() & mask) | 1;
        let r = st.next_u64() & mask;
        let mut t = size - 1 - v;
        if t <= mask {
            t = (t.wrapping_mul(m) ^ r) & mask;
            t = ((t << 1) & mask) | (t >> (masklen - 1));
            v = size - 1 - t;
        }
        let r = st.range_u64(0, size - 1);
        v = (v + r) % size;
    }
    v as i64
}

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const MM2_MUL: u64 = 0xc6a4_a793_5bd1_e995;
const MM2_ROT: u32 = 47;

/// FNV-1a over the 8 bytes of `val`, low byte first, from `seed`.
pub fn hash_fnv1a(val: i64, seed: i64) -> i64 {
    let mut h = FNV_OFFSET ^ seed as u64;
    let mut v = val as u64;
    for _ in 0..8 {
        h ^= v & 0xff;
        h = h.wrapping_mul(FNV_PRIME);
        v >>= 8;
    }
    h as i64
}

/// 64-bit MurmurHash2 of one 8-byte value.
pub fn hash_murmur2(val: i64, seed: i64) -> i64 {
    let mut h = (seed as u64) ^ MM2_MUL.wrapping_mul(8);
    let mut k = val as u64;
    k = k.wrapping_mul(MM2_MUL);
    k ^= k >> MM2_ROT;
    k = k.wrapping_mul(MM2_MUL);
    h ^= k;
    h = h.wrapping_mul(MM2_MUL);
    h ^= h >> MM2_ROT;
    h = h.wrapping_mul(MM2_MUL);
    h ^= h >> MM2_ROT;
    h as i64
}
