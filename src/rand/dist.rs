//! The key distributions of sysbench's `--rand-type`.
//!
//! Arithmetic follows sysbench step by step (same operations, same order,
//! same precomputed multipliers) so that a given generator state yields the
//! same key as sysbench, but in u64 so ranges above 2^32 work, with every
//! result clamped into [a, b].

use super::{add_f, add_trunc, Rng};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RandType {
    Uniform,
    Gaussian,
    Special,
    Pareto,
    Zipfian,
}

impl RandType {
    pub const ALL: [RandType; 5] = [RandType::Uniform, RandType::Gaussian, RandType::Special, RandType::Pareto, RandType::Zipfian];

    pub fn name(&self) -> &'static str {
        match self {
            RandType::Uniform => "uniform",
            RandType::Gaussian => "gaussian",
            RandType::Special => "special",
            RandType::Pareto => "pareto",
            RandType::Zipfian => "zipfian",
        }
    }
}

impl fmt::Display for RandType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RandType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        RandType::ALL.into_iter().find(|t| t.name().eq_ignore_ascii_case(s)).ok_or_else(|| format!("invalid random distribution '{s}': expected one of uniform, gaussian, special, pareto, zipfian"))
    }
}

/// The `--rand-*` options.
#[derive(Clone, Debug)]
pub struct DistConfig {
    pub kind: RandType,
    /// Uniforms averaged per gaussian draw (`--rand-spec-iter`).
    pub spec_iter: u32,
    /// Width of the hot centre of `special`, in percent of the range (`--rand-spec-pct`).
    pub spec_pct: f64,
    /// Percent of `special` draws that go to the hot centre (`--rand-spec-res`).
    pub spec_res: f64,
    /// Pareto shape h: a fraction 1-h of draws fall in the lowest h of the range (`--rand-pareto-h`).
    pub pareto_h: f64,
    /// Zipfian exponent: P(k) ∝ k^-exp (`--rand-zipfian-exp`).
    pub zipfian_exp: f64,
}

impl Default for DistConfig {
    fn default() -> Self {
        DistConfig { kind: RandType::Uniform, spec_iter: 12, spec_pct: 1.0, spec_res: 75.0, pareto_h: 0.2, zipfian_exp: 0.8 }
    }
}

impl DistConfig {
    /// Rejects values for which a distribution would be meaningless or could
    /// loop forever (e.g. a NaN zipfian exponent).
    pub fn validate(&self) -> Result<(), String> {
        let c = self;
        if c.spec_iter == 0 {
            return Err("--rand-spec-iter must be at least 1".into());
        }
        if !(0.0..=100.0).contains(&c.spec_pct) {
            return Err(format!("--rand-spec-pct must be within [0, 100], got {}", c.spec_pct));
        }
        if !(0.0..=100.0).contains(&c.spec_res) {
            return Err(format!("--rand-spec-res must be within [0, 100], got {}", c.spec_res));
        }
        if !(c.pareto_h > 0.0 && c.pareto_h < 1.0) {
            return Err(format!("--rand-pareto-h must be within (0, 1), got {}", c.pareto_h));
        }
        if !(c.zipfian_exp >= 0.0 && c.zipfian_exp.is_finite()) {
            return Err(format!("--rand-zipfian-exp must be >= 0, got {}", c.zipfian_exp));
        }
        Ok(())
    }
}

/// A distribution over a fixed inclusive range [a, b], with its per-range
/// constants precomputed.
#[derive(Clone, Debug)]
pub struct Dist {
    a: u64,
    /// b - a.
    span: u64,
    /// b - a + 1 as a double: the number of values.
    n: f64,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform,
    Gaussian { iter: u32, inv_iter: f64 },
    Special { iter: u32, inv_iter: f64, t: f64, range_size: f64, d: f64, shift: f64 },
    Pareto { power: f64 },
    Zipfian { exp: f64, s: f64, h_x1: f64, h_n: f64 },
}

impl Dist {
    /// # Panics
    /// If `a > b` or `cfg.validate()` fails.
    pub fn new(cfg: &DistConfig, a: u64, b: u64) -> Dist {
        assert!(a <= b, "empty key range [{a}, {b}]");
        if let Err(e) = cfg.validate() {
            panic!("invalid distribution config: {e}");
        }
        let span = b - a;
        let n = span as f64 + 1.0;
        // sysbench keeps 1/iter and multiplies by it; dividing instead would
        // round differently now and then.
        let inv_iter = 1.0 / f64::from(cfg.spec_iter);
        let kind = match cfg.kind {
            RandType::Uniform => Kind::Uniform,
            // sysbench master dropped --rand-spec-iter but still reads it, so
            // it averages zero uniforms and every draw returns `a`; here the
            // option is honoured.
            RandType::Gaussian => Kind::Gaussian { iter: cfg.spec_iter, inv_iter },
            RandType::Special => {
                // sysbench 1.0: stretch the range so that a first uniform falls
                // in the real range only (100 - res)% of the time; those draws
                // are gaussian, the rest go uniformly into a window of pct% of
                // the range centred on its midpoint.
                let t = span as f64;
                let d = t * (cfg.spec_pct / 100.0);
                Kind::Special { iter: cfg.spec_iter, inv_iter, t, range_size: t * (100.0 / (100.0 - cfg.spec_res)), d, shift: t / 2.0 - t * (cfg.spec_pct / 200.0) }
            }
            RandType::Pareto => Kind::Pareto { power: cfg.pareto_h.ln() / (1.0 - cfg.pareto_h).ln() },
            RandType::Zipfian => {
                let e = cfg.zipfian_exp;
                Kind::Zipfian { exp: e, s: 2.0 - h_integral_inv(h_integral(2.5, e) - h(2.0, e), e), h_x1: h_integral(1.5, e) - 1.0, h_n: h_integral(n + 0.5, e) }
            }
        };
        Dist { a, span, n, kind }
    }

    pub fn kind(&self) -> RandType {
        match self.kind {
            Kind::Uniform => RandType::Uniform,
            Kind::Gaussian { .. } => RandType::Gaussian,
            Kind::Special { .. } => RandType::Special,
            Kind::Pareto { .. } => RandType::Pareto,
            Kind::Zipfian { .. } => RandType::Zipfian,
        }
    }

    /// The inclusive range (a, b).
    pub fn range(&self) -> (u64, u64) {
        (self.a, self.a + self.span)
    }

    #[inline]
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let (a, span, n) = (self.a, self.span, self.n);
        match self.kind {
            Kind::Uniform => add_f(a, rng.uniform_double() * n, span),
            Kind::Gaussian { iter, inv_iter } => {
                // Mean of `iter` uniforms (Irwin–Hall): bell-shaped around the midpoint.
                let mut sum = 0.0;
                for _ in 0..iter {
                    sum += rng.uniform_double() * n;
                }
                add_trunc(a, sum * inv_iter, span)
            }
            Kind::Special { iter, inv_iter, t, range_size, d, shift } => {
                let rnd = rng.uniform_double();
                if rnd * range_size < t {
                    let mut sum = 0.0;
                    for _ in 0..iter {
                        sum += rng.uniform_double();
                    }
                    add_f(a, sum * t * inv_iter, span)
                } else {
                    // The same uniform is reused for the hot window, as sysbench does.
                    add_trunc(a, rnd * (d + 1.0) + shift, span)
                }
            }
            Kind::Pareto { power } => add_trunc(a, n * rng.uniform_double().powf(power), span),
            Kind::Zipfian { exp, s, h_x1, h_n } => a + zipf_rank(rng, span, exp, s, h_x1, h_n) - 1,
        }
    }
}

/// Rank k in [1, span + 1] with P(k) ∝ k^-e, by rejection-inversion
/// (Hörmann & Derflinger 1996, in the form of Apache Commons RNG's sampler
/// that sysbench ported). H is an integral of the hat function h(x) = x^-e;
/// inverting H on a uniform gives a continuous x whose rounding k is accepted
/// when the hat's area over [k-1/2, k+1/2] is not more than h(k) apart. The
/// acceptance rate is high for all e, so the loop rarely repeats.
#[inline]
fn zipf_rank(rng: &mut Rng, span: u64, e: f64, s: f64, h_x1: f64, h_n: f64) -> u64 {
    let max_k = span.saturating_add(1);
    loop {
        let u = h_n + rng.uniform_double() * (h_x1 - h_n);
        let x = h_integral_inv(u, e);
        // Rounding can push x slightly outside [1, n]; NaN becomes 0, then 1.
        let k = ((x + 0.5) as u64).clamp(1, max_k);
        let kf = k as f64;
        // The first test is a cheap sufficient condition (valid for all e >= 0)
        // that saves the exact one most of the time.
        if kf - x <= s || u >= h_integral(kf + 0.5, e) - h(kf, e) {
            return k;
        }
    }
}

/// H(x) = (x^(1-e) - 1) / (1-e), or ln x for e = 1: an antiderivative of h.
/// Written through ln/expm1 so it stays accurate, and continuous, near e = 1.
fn h_integral(x: f64, e: f64) -> f64 {
    let ln_x = x.ln();
    expm1_over_x((1.0 - e) * ln_x) * ln_x
}

/// h(x) = x^-e.
fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

/// Inverse of H.
fn h_integral_inv(x: f64, e: f64) -> f64 {
    // 1 + t must stay >= 0 for the logarithm; rounding can dip just below -1.
    let t = (x * (1.0 - e)).max(-1.0);
    (ln1p_over_x(t) * x).exp()
}

/// ln(1+x)/x, by its Taylor series near 0 where the quotient loses precision.
fn ln1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// (e^x - 1)/x, by its Taylor series near 0.
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(kind: RandType) -> DistConfig {
        DistConfig { kind, ..DistConfig::default() }
    }

    fn draws(d: &Dist, n: usize, seed: u64) -> Vec<u64> {
        let mut r = Rng::from_seed(seed, 0);
        (0..n).map(|_| d.sample(&mut r)).collect()
    }

    fn mean_var(v: &[u64]) -> (f64, f64) {
        let n = v.len() as f64;
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        (mean, var)
    }

    #[test]
    fn parse_and_name() {
        for t in RandType::ALL {
            assert_eq!(t.name().parse::<RandType>(), Ok(t));
            assert_eq!(t.to_string(), t.name());
        }
        assert_eq!("Zipfian".parse::<RandType>(), Ok(RandType::Zipfian));
        let err = "normal".parse::<RandType>().unwrap_err();
        for t in RandType::ALL {
            assert!(err.contains(t.name()), "{err}");
        }
    }

    #[test]
    fn defaults_and_validation() {
        let d = DistConfig::default();
        assert_eq!(d.kind, RandType::Uniform);
        assert_eq!((d.spec_iter, d.spec_pct, d.spec_res), (12, 1.0, 75.0));
        assert_eq!((d.pareto_h, d.zipfian_exp), (0.2, 0.8));
        assert!(d.validate().is_ok());
        let bad = [
            DistConfig { spec_iter: 0, ..d.clone() },
            DistConfig { spec_pct: 101.0, ..d.clone() },
            DistConfig { spec_res: -1.0, ..d.clone() },
            DistConfig { pareto_h: 1.0, ..d.clone() },
            DistConfig { zipfian_exp: f64::NAN, ..d.clone() },
            DistConfig { zipfian_exp: -0.5, ..d.clone() },
        ];
        for c in bad {
            assert!(c.validate().is_err(), "{c:?}");
        }
    }

    #[test]
    fn gaussian_mean_and_variance() {
        let (a, b) = (1u64, 1_000_000u64);
        let range = (b - a + 1) as f64;
        for iter in [1u32, 12] {
            let d = Dist::new(&DistConfig { spec_iter: iter, ..cfg(RandType::Gaussian) }, a, b);
            let v = draws(&d, 200_000, 21);
            let (mean, var) = mean_var(&v);
            let want_var = range * range / (12.0 * f64::from(iter));
            assert!((mean - (a + b) as f64 / 2.0).abs() < 0.003 * range, "iter {iter}: mean {mean}");
            assert!((var / want_var - 1.0).abs() < 0.03, "iter {iter}: var {var} want {want_var}");
        }
    }

    #[test]
    fn special_concentrates_in_centre() {
        let (a, b) = (1u64, 1_000_000u64);
        let d = Dist::new(&cfg(RandType::Special), a, b);
        let v = draws(&d, 200_000, 22);
        let mid = (a + b) as f64 / 2.0;
        let half = 0.005 * (b - a) as f64;
        let central = v.iter().filter(|&&x| (x as f64 - mid).abs() <= half + 1.0).count();
        let frac = central as f64 / v.len() as f64;
        // 75% land in the window, plus the few of the 25% gaussian draws
        // (sd = range/12) that happen to fall there too (~1.2%).
        assert!((0.755..0.775).contains(&frac), "central fraction {frac}");
        // The rest really is spread out.
        let far = v.iter().filter(|&&x| (x as f64 - mid).abs() > 0.1 * (b - a) as f64).count();
        assert!(far as f64 / v.len() as f64 > 0.05);
    }

    #[test]
    fn pareto_80_20() {
        let (a, b) = (1u64, 1_000_000u64);
        let d = Dist::new(&cfg(RandType::Pareto), a, b);
        let v = draws(&d, 200_000, 23);
        let low = v.iter().filter(|&&x| x - a < (b - a + 1) / 5).count();
        let frac = low as f64 / v.len() as f64;
        assert!((frac - 0.8).abs() < 0.02, "lowest 20% got {frac}");
        // And the exact formula: a + trunc((b-a+1) * U^(ln h / ln(1-h))).
        let mut r = Rng::from_seed(23, 1);
        let mut c = r.clone();
        let power = 0.2f64.ln() / 0.8f64.ln();
        for _ in 0..1000 {
            let want = a + (1e6 * c.uniform_double().powf(power)) as u64;
            assert_eq!(d.sample(&mut r), want);
        }
    }

    #[test]
    fn zipfian_head() {
        let (a, b) = (1u64, 1000u64);
        let d = Dist::new(&cfg(RandType::Zipfian), a, b);
        let mut counts = vec![0u64; 1001];
        for x in draws(&d, 1_000_000, 24) {
            counts[x as usize] += 1;
        }
        let ratio = counts[1] as f64 / counts[2] as f64;
        assert!((ratio / 2f64.powf(0.8) - 1.0).abs() < 0.05, "count(1)/count(2) = {ratio}");
        assert!(counts[1..=10].windows(2).all(|w| w[0] > w[1]), "{:?}", &counts[1..=10]);
        // The whole shape: chi-square against P(k) = k^-0.8 / sum j^-0.8.
        let norm: f64 = (1..=1000).map(|k| (k as f64).powf(-0.8)).sum();
        let chi2: f64 = (1..=1000)
            .map(|k| {
                let expect = 1e6 * (k as f64).powf(-0.8) / norm;
                (counts[k] as f64 - expect).powi(2) / expect
            })
            .sum();
        // 999 degrees of freedom: mean 999, sd 45; 1225 is five sd out.
        assert!(chi2 < 1225.0, "chi2 = {chi2}");
        // The hottest key on its own, within five standard deviations.
        let p1 = 1e6 / norm;
        assert!((counts[1] as f64 - p1).abs() < 5.0 * p1.sqrt(), "count(1) = {}, want {p1}", counts[1]);
    }

    #[test]
    fn zipfian_exponent_edges() {
        // e = 1 goes through the series branches; e = 0 is uniform.
        let d = Dist::new(&DistConfig { zipfian_exp: 1.0, ..cfg(RandType::Zipfian) }, 1, 100);
        let v = draws(&d, 200_000, 25);
        let c = |k| v.iter().filter(|&&x| x == k).count() as f64;
        assert!((c(1) / c(2) - 2.0).abs() < 0.1);
        let d = Dist::new(&DistConfig { zipfian_exp: 0.0, ..cfg(RandType::Zipfian) }, 1, 10);
        let v = draws(&d, 100_000, 26);
        for k in 1..=10 {
            let f = v.iter().filter(|&&x| x == k).count() as f64 / 1e5;
            assert!((f - 0.1).abs() < 0.01, "k={k} f={f}");
        }
    }

    #[test]
    fn all_kinds_stay_in_range() {
        let big = 1_000_000_000_000u64;
        let m32 = u64::from(u32::MAX);
        let ranges = [(5, 5), (0, 0), (1, 2), (1, 10), (1, big), (big, 2 * big), (m32 - 5, m32 + 5), (0, u64::MAX)];
        let specials = [
            DistConfig { spec_pct: 100.0, ..cfg(RandType::Special) },
            DistConfig { spec_res: 100.0, ..cfg(RandType::Special) },
            DistConfig { spec_res: 0.0, spec_pct: 0.0, ..cfg(RandType::Special) },
            DistConfig { pareto_h: 0.7, ..cfg(RandType::Pareto) },
        ];
        let configs = RandType::ALL.map(cfg).into_iter().chain(specials);
        for c in configs {
            for &(a, b) in &ranges {
                let d = Dist::new(&c, a, b);
                assert_eq!(d.range(), (a, b));
                assert_eq!(d.kind(), c.kind);
                let v = draws(&d, 20_000, 27);
                assert!(v.iter().all(|x| (a..=b).contains(x)), "{c:?} [{a}, {b}]");
                if b - a < 10 {
                    // Tiny ranges can legitimately be constant: sysbench's special
                    // scales its gaussian part by b - a, so [a, a+1] gives only a.
                    continue;
                }
                // Never collapsed onto one value.
                assert!(v.iter().any(|&x| x != v[0]), "{c:?} [{a}, {b}] constant");
                if b - a >= big - 1 && c.kind == RandType::Uniform {
                    assert!(v.iter().any(|&x| x - a > m32), "offsets squeezed into 32 bits");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "empty key range")]
    fn reversed_range_panics() {
        Dist::new(&DistConfig::default(), 2, 1);
    }
}
