//! The random shapes LinkBench draws from: links per node, Zipf access
//! over shuffled ids, log-normal payload sizes, geometric multiget sizes.

use crate::rand::Rng;

/// Links per node when no `data_file` is given: (links, share of nodes
/// with at most that many), used with LinkBench's step rule like a data
/// file's `nlinks`. Up to 10 links these are the points of LinkBench's
/// Distribution.dat (FB's 2011 graph: 45.33% none, 77.46% at most one);
/// above, every point whose value is 1.6x the previous one kept, with the
/// share above it scaled by 0.775 so that the coarser steps (each node
/// takes the top of its step) load as many links as the full file. Fitted
/// to Java LinkBench with Distribution.dat at maxid1=100001: 1,368,899
/// links, 13.69 per node with link_type_count=2. The same points give
/// 99.50 per node at maxid1=10001 (Java: 99.51) and 5.28 at 1000001
/// (Java's rule: 5.25), the largest node's 961,963 links weighing less as
/// the graph grows.
pub const BUILTIN_NLINKS: &[(u64, f64)] = &[
    (0, 0.453316057),
    (1, 0.774625911),
    (2, 0.869580595),
    (3, 0.919930543),
    (4, 0.944507991),
    (5, 0.958280717),
    (6, 0.967225280),
    (7, 0.973200885),
    (8, 0.977614232),
    (9, 0.980776769),
    (10, 0.983280337),
    (16, 0.993087252),
    (26, 0.996055295),
    (42, 0.997485968),
    (68, 0.998306960),
    (109, 0.998758738),
    (175, 0.999044926),
    (280, 0.999246833),
    (448, 0.999405492),
    (717, 0.999536318),
    (1148, 0.999649057),
    (1837, 0.999746490),
    (2940, 0.999830422),
    (4704, 0.999895537),
    (7527, 0.999941747),
    (12044, 0.999971649),
    (19271, 0.999987810),
    (30840, 0.999995486),
    (49385, 0.999998517),
    (79273, 0.999999518),
    (127774, 0.999999819),
    (209452, 0.999999939),
    (407190, 0.999999987),
    (906857, 0.999999997),
    (961963, 1.0),
];

/// LinkBench's links per node for the node at place `pos` of `n` (0 the
/// busiest): the value of the first point whose share is at least
/// 1 - pos/n, i.e. the top of the step that quantile falls in, never
/// interpolated (PiecewiseLinearDistribution.expectedCount). `cdf` ends at
/// share 1 (the data file's loader checks it), so every place has a point.
pub fn step_value(cdf: &[(u64, f64)], pos: u64, n: u64) -> u64 {
    let u = 1.0 - pos as f64 / n.max(1) as f64;
    let ix = cdf.partition_point(|p| p.1 < u);
    cdf.get(ix).or(cdf.last()).map_or(0, |p| p.0)
}

/// java.util.Random's generator (a 48-bit LCG), as far as LinkBench's
/// shufflers use it, so their permutations are Java LinkBench's own.
struct JavaRandom(u64);

impl JavaRandom {
    const MULT: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;

    fn new(seed: u64) -> JavaRandom {
        JavaRandom((seed ^ Self::MULT) & Self::MASK)
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.0 = (self.0.wrapping_mul(Self::MULT).wrapping_add(0xB)) & Self::MASK;
        (self.0 >> (48 - bits)) as i64 as i32
    }

    /// `nextInt(bound)` for bound > 0.
    fn next_int(&mut self, bound: i32) -> i32 {
        if bound & bound.wrapping_neg() == bound {
            return ((bound as i64 * self.next(31) as i64) >> 31) as i32;
        }
        loop {
            let bits = self.next(31);
            let val = bits % bound;
            // Java's overflow test: reject the top, uneven slice.
            if bits.wrapping_sub(val).wrapping_add(bound - 1) >= 0 {
                return val;
            }
        }
    }
}

/// Java LinkBench's InvertibleShuffler: ids fall into `groups` classes by
/// their residue, and each class is rotated by its own amount drawn from
/// java.util.Random(seed), so `permute` puts rank r (0 the busiest) on
/// the same id Java LinkBench does for the same n.
#[derive(Clone, Debug)]
pub struct Shuffler {
    n: u64,
    groups: u64,
    rotate: Vec<u64>,
    min_group: u64,
    rounded_up: u64,
    rounded_down: u64,
}

impl Shuffler {
    pub fn new(seed: u64, groups: u64, n: u64) -> Shuffler {
        let n = n.max(1);
        let groups = groups.min(n).max(1);
        // Java divides (int) n, which is n itself below 2^31.
        let min_group = (n / groups).max(1);
        let mut rng = JavaRandom::new(seed);
        let bound = i32::try_from(min_group).unwrap_or(i32::MAX);
        let rotate = (0..groups).map(|_| rng.next_int(bound).unsigned_abs() as u64).collect();
        let rounded_down = (n / groups) * groups;
        let rounded_up = if n == rounded_down { n } else { rounded_down + groups };
        Shuffler { n, groups, rotate, min_group, rounded_up, rounded_down }
    }

    fn shuffle(&self, i: u64, inverse: bool) -> u64 {
        let i = i.min(self.n - 1);
        let group = i % self.groups;
        let big = group < self.n % self.groups;
        let mut r = self.rotate[group as usize];
        if inverse {
            r = if big { self.min_group + 1 - r } else { self.min_group - r };
        }
        let j = i + self.groups * r;
        if j < self.n {
            return j;
        }
        let out = if big { j % self.rounded_up } else { j % self.rounded_down };
        if out >= self.n {
            group
        } else {
            out
        }
    }

    /// Rank (0 the busiest) to id offset: Java's `permute`.
    pub fn permute(&self, i: u64) -> u64 {
        self.shuffle(i, false)
    }

    /// Id offset to rank: Java's `invertPermute`.
    pub fn invert(&self, i: u64) -> u64 {
        self.shuffle(i, true)
    }
}

/// Java LinkBench's shuffler seeds (RealDistribution): the out-degree's,
/// which the link accesses correlated with it share; the uncorrelated link
/// accesses'; the node accesses'. Each uses 1024 groups.
pub const NLINKS_SEED: u64 = 20_343_988_438_726_021;
pub const UNCORR_SEED: u64 = 53_238_253_823_453;
pub const NODE_SEED: u64 = 4_766_565_305_853_767_165;
pub const SHUFFLE_GROUPS: u64 = 1024;

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
/// rounded to the nearest byte and clamped below `max`
/// (LogNormalDistribution.choose).
pub fn lognormal_size(rng: &mut Rng, median: f64, max: usize) -> usize {
    if median <= 0.0 {
        return 0;
    }
    let v = median * normal(rng).exp();
    (v.round() as usize).min(max - 1)
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
        for n in [1u64, 2, 10, 1000, 1025, 9999, 10000] {
            let s = Shuffler::new(NLINKS_SEED, SHUFFLE_GROUPS, n);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = s.permute(x);
                assert!(!seen[y as usize], "n={n} x={x}");
                seen[y as usize] = true;
                assert_eq!(s.invert(y), x, "n={n}");
            }
        }
    }

    #[test]
    fn shuffler_places_ids_as_java_linkbench_does() {
        // (seed, n, permute(0), permute(1), permute(5), invert(0), invert(n-1))
        // as Java LinkBench's InvertibleShuffler gives them.
        let want: [(u64, u64, [u64; 5]); 9] = [
            (NLINKS_SEED, 10_000, [5120, 4097, 6149, 5120, 9999]),
            (NLINKS_SEED, 100_000, [14336, 59393, 88069, 86016, 30367]),
            (NLINKS_SEED, 10_000_000, [355328, 5764097, 4770821, 9645056, 6701695]),
            (UNCORR_SEED, 10_000, [8192, 2049, 4101, 2048, 1807]),
            (UNCORR_SEED, 100_000, [86016, 22529, 87045, 14336, 38559]),
            (UNCORR_SEED, 10_000_000, [5915648, 7568385, 2262021, 4084736, 6147711]),
            (NODE_SEED, 10_000, [8192, 1025, 8197, 2048, 9999]),
            (NODE_SEED, 100_000, [88064, 34817, 74757, 12288, 58015]),
            (NODE_SEED, 1000, [0, 1, 5, 0, 999]),
        ];
        for (seed, n, w) in want {
            let s = Shuffler::new(seed, SHUFFLE_GROUPS, n);
            assert_eq!([s.permute(0), s.permute(1), s.permute(5), s.invert(0), s.invert(n - 1)], w, "seed {seed} n {n}");
        }
    }

    #[test]
    fn java_random_matches_java() {
        // new java.util.Random(42): nextInt() = -1170105035, nextInt(10) = 3 after it.
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next(32), -1_170_105_035);
        assert_eq!(r.next_int(10), 3);
        // Powers of two take the multiply path.
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_int(16), 11);
    }

    #[test]
    fn step_value_takes_the_top_of_each_step() {
        // 45% none, 75% at most 2, 100% at most 10, over 10 places:
        // u = 1.0, 0.9, .., 0.1 for places 0..9.
        let cdf = [(0, 0.45), (2, 0.75), (10, 1.0)];
        let got: Vec<u64> = (0..10).map(|pos| step_value(&cdf, pos, 10)).collect();
        // u in (0.75, 1] -> 10 (places 0..2), (0.45, 0.75] -> 2 (3..5), else 0.
        assert_eq!(got, vec![10, 10, 10, 2, 2, 2, 0, 0, 0, 0]);
    }

    #[test]
    fn step_value_at_a_point_exactly_takes_that_point() {
        // u = 1 - 5/10 = 0.5 equals the first share: its point, not the next.
        assert_eq!(step_value(&[(1, 0.5), (7, 1.0)], 5, 10), 1);
        assert_eq!(step_value(&[(1, 0.5), (7, 1.0)], 4, 10), 7);
        // The busiest place always gets the last point.
        assert_eq!(step_value(&[(0, 0.9), (99, 1.0)], 0, 1_000_000), 99);
    }

    #[test]
    fn builtin_nlinks_is_a_cdf_ending_at_one() {
        assert!(BUILTIN_NLINKS.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
        assert_eq!(BUILTIN_NLINKS.last().unwrap().1, 1.0);
        assert_eq!(step_value(BUILTIN_NLINKS, 99_999, 100_000), 0);
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
