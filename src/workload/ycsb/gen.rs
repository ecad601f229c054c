//! YCSB's number generators, drawn the way its core workload draws them:
//! the scrambled zipfian (zipfian over 10^10 items with YCSB's precomputed
//! zeta, then FNV-hashed onto the record count), the skewed latest (the
//! newest acknowledged insert minus a zipfian distance), hotspot,
//! exponential, sequential and uniform key choosers; the acknowledged
//! counter that grows the key space as inserts complete; field and scan
//! lengths. Each client draws from its own [`Rng`]; what YCSB shares between
//! its threads (the insert counter, a sequential chooser) is shared here too.

use crate::rand::Rng;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// YCSB's zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// The item count of the zipfian under a scrambled zipfian, and its zeta
/// for the constant 0.99 (YCSB computes it once and ships the number).
pub const SCRAMBLED_ITEMS: u64 = 10_000_000_000;
pub const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

const FNV_OFFSET_BASIS_64: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME_64: u64 = 1_099_511_628_211;

/// YCSB's 64-bit FNV hash of a number (its `Utils.fnvhash64`): the eight
/// bytes low first, the result's absolute value as a Java long.
pub fn fnvhash64(mut val: i64) -> i64 {
    let mut h = FNV_OFFSET_BASIS_64;
    for _ in 0..8 {
        let octet = (val & 0xff) as u64;
        val >>= 8;
        h ^= octet;
        h = h.wrapping_mul(FNV_PRIME_64);
    }
    (h as i64).wrapping_abs()
}

/// Σ_{i=st}^{n-1} 1/(i+1)^θ added to `initial`. Beyond a few million terms
/// the tail is its Euler-Maclaurin estimate (relative error below 1e-12),
/// so a zipfian over 10^10 items with another constant than YCSB's starts
/// at once instead of summing for minutes.
pub fn zeta(st: u64, n: u64, theta: f64, initial: f64) -> f64 {
    const EXACT: u64 = 4_000_000;
    let mut sum = initial;
    let exact_end = n.min(st.saturating_add(EXACT));
    for i in st..exact_end {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    if exact_end < n {
        // Σ_{k=a}^{b} k^-θ ≈ ∫_a^b x^-θ dx + (a^-θ + b^-θ)/2 + θ/12 (a^-θ-1 - b^-θ-1)
        let (a, b) = ((exact_end + 1) as f64, n as f64);
        let f = |x: f64| x.powf(-theta);
        let integral = if (theta - 1.0).abs() < 1e-12 { (b / a).ln() } else { (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta) };
        sum += integral + (f(a) + f(b)) / 2.0 + theta / 12.0 * (a.powf(-theta - 1.0) - b.powf(-theta - 1.0));
    }
    sum
}

/// YCSB's ZipfianGenerator (Gray et al.'s method): item `base` is the most
/// popular; the item count may grow between draws (its zeta is extended,
/// never recomputed).
#[derive(Clone, Debug)]
pub struct Zipfian {
    items: u64,
    base: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    zeta2theta: f64,
    count_for_zeta: u64,
}

impl Zipfian {
    /// Items `min..=max` with constant `theta`.
    pub fn new(min: u64, max: u64, theta: f64) -> Zipfian {
        let n = max - min + 1;
        Zipfian::with_zetan(min, max, theta, zeta(0, n, theta, 0.0))
    }

    /// As [`Zipfian::new`] with zeta(items) given.
    pub fn with_zetan(min: u64, max: u64, theta: f64, zetan: f64) -> Zipfian {
        let items = max - min + 1;
        let zeta2theta = zeta(0, 2, theta, 0.0);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2theta / zetan);
        Zipfian { items, base: min, theta, alpha: 1.0 / (1.0 - theta), zetan, eta, zeta2theta, count_for_zeta: items }
    }

    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        self.next_of(self.items, rng)
    }

    /// A draw over `itemcount` items, which may have grown since the last.
    pub fn next_of(&mut self, itemcount: u64, rng: &mut Rng) -> u64 {
        if itemcount > self.count_for_zeta {
            self.zetan = zeta(self.count_for_zeta, itemcount, self.theta, self.zetan);
            self.count_for_zeta = itemcount;
            // As YCSB: eta keeps the item count the generator was made with.
            self.eta = (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2theta / self.zetan);
        }
        let u = rng.uniform_double();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        self.base + (itemcount as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }
}

/// YCSB's ScrambledZipfianGenerator: a zipfian over 10^10 items hashed onto
/// `min..=max`, so the popular keys are spread over the key space.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    gen: Zipfian,
    min: u64,
    itemcount: u64,
}

impl ScrambledZipfian {
    pub fn new(min: u64, max: u64, theta: f64) -> ScrambledZipfian {
        let gen = if theta == ZIPFIAN_CONSTANT { Zipfian::with_zetan(0, SCRAMBLED_ITEMS, theta, SCRAMBLED_ZETAN) } else { Zipfian::new(0, SCRAMBLED_ITEMS, theta) };
        ScrambledZipfian { gen, min, itemcount: max - min + 1 }
    }

    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        let v = self.gen.next(rng);
        (self.min as i64 + fnvhash64(v as i64) % self.itemcount as i64) as u64
    }
}

/// YCSB's AcknowledgedCounterGenerator: insert keys handed out in order; the
/// highest key below which every insert has completed is the `last` that
/// reads may ask for. Shared by all clients, as in YCSB.
#[derive(Debug)]
pub struct AckCounter {
    next: AtomicU64,
    limit: AtomicU64,
    pending: Mutex<BTreeSet<u64>>,
}

impl AckCounter {
    /// Keys from `start`; every key below it exists.
    pub fn new(start: u64) -> AckCounter {
        AckCounter { next: AtomicU64::new(start), limit: AtomicU64::new(start.wrapping_sub(1)), pending: Mutex::new(BTreeSet::new()) }
    }

    /// The next key to insert.
    pub fn next(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// The highest key below which all inserts have completed.
    pub fn last(&self) -> u64 {
        self.limit.load(Ordering::Acquire)
    }

    /// The insert of `key` has completed (or failed: YCSB acknowledges it
    /// either way, so the counter moves on).
    pub fn acknowledge(&self, key: u64) {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        p.insert(key);
        let mut limit = self.limit.load(Ordering::Relaxed);
        while p.remove(&limit.wrapping_add(1)) {
            limit = limit.wrapping_add(1);
        }
        self.limit.store(limit, Ordering::Release);
    }
}

/// How the core workload picks the key of a read, update, scan or
/// read-modify-write (`requestdistribution`).
#[derive(Clone, Debug)]
pub enum KeyChooser {
    Uniform {
        lo: u64,
        hi: u64,
    },
    Zipfian(ScrambledZipfian),
    /// The newest keys most often: last acknowledged insert minus a zipfian draw.
    Latest(Zipfian),
    Hotspot {
        lo: u64,
        hot: u64,
        cold: u64,
        hot_opn: f64,
    },
    /// last acknowledged insert minus an exponential draw.
    Exponential {
        gamma: f64,
    },
    /// `lo..=hi` in order, round and round, one counter for all clients.
    Sequential {
        lo: u64,
        span: u64,
        counter: std::sync::Arc<AtomicU64>,
    },
}

impl KeyChooser {
    /// YCSB's HotspotIntegerGenerator over `lo..=hi`.
    pub fn hotspot(lo: u64, hi: u64, data_fraction: f64, opn_fraction: f64) -> KeyChooser {
        let interval = hi - lo + 1;
        let hot = (interval as f64 * data_fraction) as u64;
        KeyChooser::Hotspot { lo, hot, cold: interval - hot, hot_opn: opn_fraction }
    }

    /// YCSB's ExponentialGenerator(percentile, range): `percentile` percent
    /// of the draws fall below `range`.
    pub fn exponential(percentile: f64, range: f64) -> KeyChooser {
        KeyChooser::Exponential { gamma: -(1.0 - percentile / 100.0).ln() / range }
    }

    /// The next key number, never above `last` (the newest acknowledged
    /// insert): YCSB's `nextKeynum`.
    pub fn next(&mut self, rng: &mut Rng, last: u64) -> u64 {
        match self {
            KeyChooser::Exponential { gamma } => loop {
                let d = (-rng.uniform_double().max(f64::MIN_POSITIVE).ln() / *gamma) as u64;
                if d <= last {
                    return last - d;
                }
            },
            KeyChooser::Latest(z) => last - z.next_of(last, rng).min(last),
            _ => {
                // Rejected draws beyond `last` are drawn again, as YCSB does;
                // bounded, in case the chooser cannot reach below `last`.
                for _ in 0..1000 {
                    let k = self.draw(rng);
                    if k <= last {
                        return k;
                    }
                }
                last
            }
        }
    }

    fn draw(&mut self, rng: &mut Rng) -> u64 {
        match self {
            KeyChooser::Uniform { lo, hi } => rng.uniform(*lo, *hi),
            KeyChooser::Zipfian(z) => z.next(rng),
            KeyChooser::Hotspot { lo, hot, cold, hot_opn } => {
                let r = rng.next_u64() >> 1;
                if rng.uniform_double() < *hot_opn && *hot > 0 {
                    *lo + r % *hot
                } else {
                    *lo + *hot + r % (*cold).max(1)
                }
            }
            KeyChooser::Sequential { lo, span, counter } => *lo + counter.fetch_add(1, Ordering::Relaxed) % *span,
            KeyChooser::Latest(_) | KeyChooser::Exponential { .. } => unreachable!("drawn from the insert counter"),
        }
    }
}

/// A length: a field's (`fieldlengthdistribution`) or a scan's
/// (`scanlengthdistribution`).
#[derive(Clone, Debug)]
pub enum Length {
    Constant(u64),
    Uniform(u64, u64),
    Zipfian(Zipfian),
}

impl Length {
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        match self {
            Length::Constant(n) => *n,
            Length::Uniform(lo, hi) => rng.uniform(*lo, *hi),
            Length::Zipfian(z) => z.next(rng),
        }
    }
}

/// Fills `out` with `len` random printable bytes as YCSB's RandomByteIterator
/// makes them (' ' plus six random bits masked with 95), ten per draw.
pub fn random_value(rng: &mut Rng, len: usize, out: &mut String) {
    out.clear();
    let mut bits = 0u64;
    let mut left = 0;
    for _ in 0..len {
        if left == 0 {
            bits = rng.next_u64();
            left = 10;
        }
        out.push(char::from(b' ' + ((bits & 63) as u8 & 95)));
        bits >>= 6;
        left -= 1;
    }
}

/// A record's field values, each as long as `len` draws: YCSB's buildValues.
pub fn fill_values(rng: &mut Rng, len: &mut Length, out: &mut [String]) {
    for v in out {
        let n = len.next(rng) as usize;
        random_value(rng, n, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn rng() -> Rng {
        Rng::from_seed(42, 0)
    }

    /// Share of `draws` that land on the `top` most frequent keys.
    fn top_share(counts: &HashMap<u64, u64>, draws: u64, top: usize) -> f64 {
        let mut c: Vec<u64> = counts.values().copied().collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        c.iter().take(top).sum::<u64>() as f64 / draws as f64
    }

    #[test]
    fn fnv_matches_ycsb_utils() {
        // Utils.fnvhash64 of 0, 1 and 12345 as YCSB computes them (Java longs).
        assert_eq!(fnvhash64(0), 6_284_781_860_667_377_211);
        assert_eq!(fnvhash64(1), 8_517_097_267_634_966_620);
        assert_eq!(fnvhash64(12345), 1_792_800_413_050_876_852);
    }

    #[test]
    fn ycsb_scrambled_zeta_is_the_zeta_of_its_item_count() {
        let z = zeta(0, SCRAMBLED_ITEMS + 1, ZIPFIAN_CONSTANT, 0.0);
        assert!((z - SCRAMBLED_ZETAN).abs() < 1e-6, "{z}");
    }

    #[test]
    fn zeta_tail_estimate_matches_the_sum() {
        let exact: f64 = (1..=6_000_000u64).map(|i| 1.0 / (i as f64).powf(0.8)).sum();
        assert!((zeta(0, 6_000_000, 0.8, 0.0) - exact).abs() / exact < 1e-10);
    }

    #[test]
    fn zipfian_favours_its_first_items_as_ycsb_does() {
        // YCSB's zipfian over 1000 items, constant 0.99: item 0 takes
        // 1/zeta(1000) of the draws (13.4%), item 1 half as much again.
        let mut z = Zipfian::new(0, 999, ZIPFIAN_CONSTANT);
        let mut r = rng();
        let n = 400_000;
        let mut c = vec![0u64; 1000];
        for _ in 0..n {
            c[z.next(&mut r) as usize] += 1;
        }
        let p0 = c[0] as f64 / n as f64;
        let want = 1.0 / zeta(0, 1000, 0.99, 0.0);
        assert!((p0 - want).abs() < 0.005, "{p0} vs {want}");
        assert!(c[0] > c[1] && c[1] > c[10] && c[10] > c[500]);
    }

    #[test]
    fn scrambled_zipfian_spreads_hot_keys_and_keeps_them_hot() {
        // 100k records: the hottest 1% takes about 37% of draws under
        // YCSB's scrambled zipfian (its hash folds 10^10 ranks onto the keys).
        let mut g = ScrambledZipfian::new(0, 99_999, ZIPFIAN_CONSTANT);
        let mut r = rng();
        let n = 500_000;
        let mut counts = HashMap::new();
        for _ in 0..n {
            let k = g.next(&mut r);
            assert!(k < 100_000);
            *counts.entry(k).or_insert(0u64) += 1;
        }
        let share = top_share(&counts, n, 1000);
        assert!((0.30..0.45).contains(&share), "top 1% share {share}");
        // The hottest key is not key 0: scrambled.
        let hottest = counts.iter().max_by_key(|(_, c)| **c).map(|(k, _)| *k).unwrap();
        assert_ne!(hottest, 0);
    }

    #[test]
    fn latest_reads_the_newest_keys_most() {
        let ack = AckCounter::new(10_000);
        let mut ch = KeyChooser::Latest(Zipfian::new(0, ack.last() - 1, ZIPFIAN_CONSTANT));
        let mut r = rng();
        let n = 200_000;
        let mut newest = 0;
        for _ in 0..n {
            let k = ch.next(&mut r, ack.last());
            assert!(k <= ack.last());
            if k >= ack.last() - 99 {
                newest += 1;
            }
        }
        // The newest 1% of 10k keys: over half the draws.
        let share = newest as f64 / n as f64;
        assert!(share > 0.5, "{share}");
        // Inserts move the hot spot.
        for k in 10_000..10_500 {
            ack.acknowledge(ack.next());
            assert_eq!(ack.last(), k);
        }
        let k = ch.next(&mut r, ack.last());
        assert!(k <= 10_499);
    }

    #[test]
    fn acknowledged_counter_waits_for_gaps() {
        let ack = AckCounter::new(100);
        assert_eq!(ack.last(), 99);
        let (a, b, c) = (ack.next(), ack.next(), ack.next());
        ack.acknowledge(b);
        ack.acknowledge(c);
        assert_eq!(ack.last(), 99, "100 is still in flight");
        ack.acknowledge(a);
        assert_eq!(ack.last(), 102);
    }

    #[test]
    fn hotspot_sends_its_share_to_the_hot_set() {
        let mut ch = KeyChooser::hotspot(0, 9_999, 0.2, 0.8);
        let mut r = rng();
        let n = 100_000;
        let hot = (0..n).filter(|_| ch.next(&mut r, 9_999) < 2_000).count();
        let share = hot as f64 / n as f64;
        assert!((share - 0.8).abs() < 0.01, "{share}");
    }

    #[test]
    fn exponential_puts_its_percentile_within_its_range() {
        // YCSB's defaults: 95% of draws within exponential.frac of the records from the newest.
        let range = 10_000.0 * 0.857_142_857_1;
        let mut ch = KeyChooser::exponential(95.0, range);
        let mut r = rng();
        let last = 1_000_000;
        let n = 100_000;
        let within = (0..n).filter(|_| last - ch.next(&mut r, last) < range as u64).count();
        let share = within as f64 / n as f64;
        assert!((share - 0.95).abs() < 0.01, "{share}");
    }

    #[test]
    fn sequential_goes_round_in_order() {
        let mut ch = KeyChooser::Sequential { lo: 5, span: 3, counter: Default::default() };
        let mut r = rng();
        let v: Vec<u64> = (0..7).map(|_| ch.next(&mut r, 100)).collect();
        assert_eq!(v, [5, 6, 7, 5, 6, 7, 5]);
    }

    #[test]
    fn uniform_covers_its_range_evenly() {
        let mut ch = KeyChooser::Uniform { lo: 0, hi: 99 };
        let mut r = rng();
        let mut c = [0u32; 100];
        for _ in 0..100_000 {
            c[ch.next(&mut r, 99) as usize] += 1;
        }
        assert!(c.iter().all(|&n| (800..1200).contains(&n)), "{c:?}");
    }

    #[test]
    fn values_are_printable_and_sized() {
        let mut r = rng();
        let mut s = String::new();
        random_value(&mut r, 100, &mut s);
        assert_eq!(s.len(), 100);
        assert!(s.bytes().all(|b| (32..128).contains(&b)));
    }
}
