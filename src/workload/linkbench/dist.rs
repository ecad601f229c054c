//! The random shapes LinkBench draws from: links per node, Zipf access
//! over shuffled ids, log-normal payload sizes, geometric multiget sizes.

use crate::rand::Rng;

/// Links per node as the cumulative share of nodes with at most `n` links,
/// from FB's 2011 `nlinks` data: 45.33% have none, 77.46% at most one,
/// 98.33% at most ten, the largest node about 962k. Between these points
/// the tail falls as a power law, the shape of the published CDF, with its
/// points set so a load has LinkBench's reported ~4.7 links per node.
const NLINKS_CDF: &[(u64, f64)] = &[
    (0, 0.4533),
    (1, 0.7746),
    (2, 0.8610),
    (3, 0.9050),
    (4, 0.9310),
    (5, 0.9480),
    (6, 0.9600),
    (7, 0.9690),
    (8, 0.9755),
    (9, 0.9800),
    (10, 0.9833),
    (20, 0.9922),
    (50, 0.9968),
    (100, 0.99835),
    (1000, 0.99978),
    (10_000, 0.999975),
    (100_000, 0.9999975),
    (961_963, 1.0),
];

/// Links of a node at quantile `q` in [0,1) of the degree distribution.
pub fn nlinks_at(q: f64) -> u64 {
    let mut prev = (0u64, 0.0f64);
    for &(n, c) in NLINKS_CDF {
        if q < c {
            if n <= prev.0 + 1 || c <= prev.1 {
                return n;
            }
            // Log-linear between the two points of the tail.
            let f = (q - prev.1) / (c - prev.1);
            let lo = (prev.0 as f64 + 1.0).ln();
            let hi = (n as f64).ln();
            return (lo + f * (hi - lo)).exp().round() as u64;
        }
        prev = (n, c);
    }
    NLINKS_CDF[NLINKS_CDF.len() - 1].0
}

/// A bijection of [0, n): x -> (a*x + b) mod n, with a coprime to n, so
/// hot ranks land on scattered ids and the inverse is as cheap.
#[derive(Clone, Copy, Debug)]
pub struct Shuffler {
    n: u64,
    a: u64,
    b: u64,
    a_inv: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn mod_inverse(a: u64, n: u64) -> u64 {
    let (mut t, mut new_t, mut r, mut new_r) = (0i128, 1i128, n as i128, a as i128);
    while new_r != 0 {
        let q = r / new_r;
        (t, new_t) = (new_t, t - q * new_t);
        (r, new_r) = (new_r, r - q * new_r);
    }
    t.rem_euclid(n as i128) as u64
}

impl Shuffler {
    pub fn new(n: u64, seed: u64) -> Shuffler {
        let n = n.max(1);
        let mut a = (seed % n).max(1);
        while gcd(a, n) != 1 {
            a = if a + 1 >= n { 1 } else { a + 1 };
        }
        let b = seed.rotate_left(17) % n;
        Shuffler { n, a, b, a_inv: mod_inverse(a % n, n) }
    }

    pub fn apply(&self, x: u64) -> u64 {
        ((self.a as u128 * x as u128 + self.b as u128) % self.n as u128) as u64
    }

    pub fn invert(&self, y: u64) -> u64 {
        let d = (y as i128 - self.b as i128).rem_euclid(self.n as i128) as u128;
        ((d * self.a_inv as u128) % self.n as u128) as u64
    }
}

/// The seeds of LinkBench's shufflers (the degree one is its
/// NLINKS_SHUFFLER_SEED); fairbench's shuffle is its own, so the ids
/// differ from Java LinkBench's while the shapes match.
pub const NLINKS_SEED: u64 = 20_343_988_438_726_021;
pub const ACCESS_SEED: u64 = 0x5DEE_CE66_D1CE_4E5B;

/// Zipf over ranks [0, n) with exponent `s` > 0, by rejection-inversion
/// (Hörmann and Derflinger): O(1) per draw and no table, so 100M ids cost
/// nothing to set up.
#[derive(Clone, Copy, Debug)]
pub struct Zipf {
    n: f64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    c: f64,
}

impl Zipf {
    pub fn new(n: u64, s: f64) -> Zipf {
        let mut z = Zipf { n: n.max(1) as f64, s, h_x1: 0.0, h_n: 0.0, c: 0.0 };
        z.h_x1 = z.h(1.5) - 1.0;
        z.h_n = z.h(z.n + 0.5);
        z.c = 2.0 - z.h_inv(z.h(2.5) - (2.0f64).powf(-s));
        z
    }

    fn h(&self, x: f64) -> f64 {
        let l = x.ln();
        helper2((1.0 - self.s) * l) * l
    }

    fn h_inv(&self, x: f64) -> f64 {
        let mut t = x * (1.0 - self.s);
        if t < -1.0 {
            t = -1.0;
        }
        (helper1(t) * x).exp()
    }

    /// A rank in [0, n), 0 the most frequent.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_n + rng.uniform_double() * (self.h_x1 - self.h_n);
            let x = self.h_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.c || u >= self.h(k + 0.5) - (-(k.ln()) * self.s).exp() {
                return k as u64 - 1;
            }
        }
    }
}

/// log(1+x)/x, finite near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// (exp(x)-1)/x, finite near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x))
    }
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = rng.uniform_double().max(f64::MIN_POSITIVE);
    let u2 = rng.uniform_double();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// LinkBench's payload size: log-normal with this median and sigma 1,
/// clamped below `max`.
pub fn lognormal_size(rng: &mut Rng, median: f64, max: usize) -> usize {
    if median <= 0.0 {
        return 0;
    }
    let v = median * normal(rng).exp();
    (v as usize).min(max - 1)
}

/// Geometric number of trials to the first success with probability `p`,
/// kept in [min, max) (LinkBench's multiget size).
pub fn geometric(rng: &mut Rng, p: f64, min: u64, max: u64) -> u64 {
    let u = rng.uniform_double().max(f64::MIN_POSITIVE);
    let k = if p >= 1.0 { 1 } else { (u.ln() / (1.0 - p).ln()).ceil().max(1.0) as u64 };
    (min + k - 1).clamp(min, max.saturating_sub(1).max(min))
}

/// Payload bytes: printable ASCII where a motif of `motif` bytes repeats
/// with a share `unique` of fresh bytes, as LinkBench's motif generator
/// aims at a compression ratio (links ~30%, nodes ~60%). Bytes stay
/// printable and free of quote-escaping backslashes so every engine's
/// text and bulk paths carry them alike.
pub fn fill_payload(rng: &mut Rng, out: &mut Vec<u8>, len: usize, unique: f64) {
    out.clear();
    const MOTIF: usize = 128;
    let mut motif = [0u8; MOTIF];
    for b in motif.iter_mut() {
        *b = printable(rng.next_u64());
    }
    for i in 0..len {
        let fresh = rng.uniform_double() < unique;
        out.push(if fresh { printable(rng.next_u64()) } else { motif[i % MOTIF] });
    }
}

fn printable(r: u64) -> u8 {
    // '0'..'z', the backslash swapped for '/'.
    let b = b'0' + (r % 75) as u8;
    if b == b'\\' {
        b'/'
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffler_is_a_bijection() {
        for n in [1u64, 2, 10, 1000, 9999] {
            let s = Shuffler::new(n, NLINKS_SEED);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = s.apply(x);
                assert!(!seen[y as usize]);
                seen[y as usize] = true;
                assert_eq!(s.invert(y), x);
            }
        }
    }

    #[test]
    fn nlinks_matches_published_points() {
        assert_eq!(nlinks_at(0.0), 0);
        assert_eq!(nlinks_at(0.45), 0);
        assert_eq!(nlinks_at(0.5), 1);
        assert_eq!(nlinks_at(0.979), 9);
        assert!(nlinks_at(0.9999999) > 100_000);
    }

    #[test]
    fn zipf_favours_low_ranks() {
        let z = Zipf::new(10_000, 0.8);
        let mut rng = Rng::from_seed(1, 0);
        let mut low = 0;
        for _ in 0..10_000 {
            let k = z.sample(&mut rng);
            assert!(k < 10_000);
            if k < 100 {
                low += 1;
            }
        }
        // Zipf(0.8) over 10k puts about a third of draws on the top 1%.
        assert!((2500..4500).contains(&low), "{low}");
    }

    #[test]
    fn geometric_stays_in_range() {
        let mut rng = Rng::from_seed(2, 0);
        let mut sum = 0;
        for _ in 0..10_000 {
            let k = geometric(&mut rng, 0.382, 1, 128);
            assert!((1..128).contains(&k));
            sum += k;
        }
        let mean = sum as f64 / 10_000.0;
        assert!((2.4..2.85).contains(&mean), "{mean}");
    }
}
