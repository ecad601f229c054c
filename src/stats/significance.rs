//! Whether a difference is real: the spread of repeated runs, and the
//! comparison of two series of them.
//!
//! Throughput is compared on the logarithm (Welch's t-test, unequal
//! variances): a ratio is what users read ("12% faster"), the log makes it a
//! difference, and the same model gives the test and the ratio's confidence
//! interval, so "significant" and "the interval excludes 1" always agree.
//! One series' own interval is a bootstrap of its median (seeded, so the
//! same runs always print the same interval).

/// The median (mean of the middle two for an even count); NaN when empty.
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Mean and sample standard deviation (n - 1).
pub fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = v.iter().sum::<f64>() / n;
    if v.len() < 2 {
        return (mean, f64::NAN);
    }
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// Coefficient of variation: sample standard deviation over the mean.
pub fn cv(v: &[f64]) -> f64 {
    let (m, s) = mean_sd(v);
    s / m
}

/// What repetitions of one level say about themselves.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    pub n: usize,
    pub median: f64,
    /// 95% bootstrap interval of the median (None below 2 repetitions).
    pub ci: Option<(f64, f64)>,
    /// Coefficient of variation (None below 2 repetitions).
    pub cv: Option<f64>,
    pub min: f64,
    pub max: f64,
}

/// Resamples of the bootstrap: enough that the interval's ends move by
/// well under a percent between seeds.
const RESAMPLES: usize = 4000;

pub fn spread(v: &[f64]) -> Spread {
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let several = v.len() >= 2;
    Spread { n: v.len(), median: median(v), ci: several.then(|| bootstrap_median(v, 0.95)), cv: several.then(|| cv(v)), min, max }
}

/// Percentile bootstrap interval of the median at `level`, seeded from the
/// data so that the same values always give the same interval.
pub fn bootstrap_median(v: &[f64], level: f64) -> (f64, f64) {
    let mut seed = v.iter().fold(0x9e37_79b9_7f4a_7c15u64, |h, x| (h ^ x.to_bits()).wrapping_mul(0x1000_0000_01b3));
    let mut next = || {
        // splitmix64
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let n = v.len();
    let mut meds = Vec::with_capacity(RESAMPLES);
    let mut sample = vec![0.0; n];
    for _ in 0..RESAMPLES {
        for x in sample.iter_mut() {
            *x = v[(next() % n as u64) as usize];
        }
        meds.push(median(&sample));
    }
    meds.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    let at = |q: f64| meds[((q * RESAMPLES as f64) as usize).min(RESAMPLES - 1)];
    (at(tail), at(1.0 - tail))
}

/// Welch's t-test of two samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// Mean of b minus mean of a.
    pub diff: f64,
    /// Standard error of the difference.
    pub se: f64,
    pub t: f64,
    /// Welch-Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// Welch's t-test of `b` against `a`; None unless each has 2 values or more.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (ma, sa) = mean_sd(a);
    let (mb, sb) = mean_sd(b);
    let (va, vb) = (sa * sa / a.len() as f64, sb * sb / b.len() as f64);
    let se = (va + vb).sqrt();
    let diff = mb - ma;
    if se == 0.0 {
        // Identical values in each: a difference is certain, none is none.
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return Some(Welch { diff, se, t: if diff == 0.0 { 0.0 } else { diff.signum() * f64::INFINITY }, df: (a.len() + b.len() - 2) as f64, p });
    }
    let df = (va + vb).powi(2) / (va * va / (a.len() as f64 - 1.0) + vb * vb / (b.len() as f64 - 1.0));
    let t = diff / se;
    Some(Welch { diff, se, t, df, p: t_two_sided_p(t, df) })
}

/// Two-sided p-value of Student's t with `df` degrees of freedom.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
}

/// The `q` quantile (0.5 < q < 1) of Student's t with `df` degrees of freedom.
pub fn t_quantile(q: f64, df: f64) -> f64 {
    let want = 2.0 * (1.0 - q);
    let (mut lo, mut hi) = (0.0, 1.0);
    while t_two_sided_p(hi, df) > want {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if t_two_sided_p(mid, df) > want {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection keeps the series where it converges.
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let s = G[1..].iter().enumerate().fold(G[0], |s, (i, g)| s + g / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + s.ln()
}

/// The regularized incomplete beta function I_x(a, b).
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // The continued fraction converges fast on this side; the other by symmetry.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// Lentz's evaluation of the incomplete beta's continued fraction.
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..400 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// Two series of one metric compared: `b` against the baseline `a`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratio {
    /// Ratio of the geometric means, b / a.
    pub ratio: f64,
    /// Its 95% confidence interval.
    pub ci: (f64, f64),
    pub p: f64,
    /// Repetitions each would need to resolve a 5% difference at this
    /// spread (80% power, 5% two-sided).
    pub needed_for_5pct: usize,
}

impl Ratio {
    pub fn significant(&self) -> bool {
        self.p < 0.05
    }
}

/// `b` against `a` on the logarithm; None unless each has 2 values or more
/// and every value is positive.
pub fn ratio(a: &[f64], b: &[f64]) -> Option<Ratio> {
    // Also refuses NaN, which no comparison with 0 lets through.
    if !a.iter().chain(b).all(|x| *x > 0.0) {
        return None;
    }
    let (la, lb): (Vec<f64>, Vec<f64>) = (a.iter().map(|x| x.ln()).collect(), b.iter().map(|x| x.ln()).collect());
    let w = welch(&la, &lb)?;
    let half = if w.se == 0.0 { 0.0 } else { t_quantile(0.975, w.df) * w.se };
    let (_, sa) = mean_sd(&la);
    let (_, sb) = mean_sd(&lb);
    let pooled_var = (sa * sa + sb * sb) / 2.0;
    // n per group for a two-sided 5% test with 80% power: 2 (z.975 + z.8)^2 s^2 / d^2.
    let d = 1.05f64.ln();
    let needed = (2.0 * (1.959_964 + 0.841_621f64).powi(2) * pooled_var / (d * d)).ceil().max(2.0) as usize;
    Some(Ratio { ratio: w.diff.exp(), ci: ((w.diff - half).exp(), (w.diff + half).exp()), p: w.p, needed_for_5pct: needed })
}

/// A p-value as people read it: "p = 0.032", "p < 0.001".
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else {
        format!("p = {p:.3}")
    }
}

/// A signed percentage: "+12.0%", "-3.1%".
fn pct(r: f64) -> String {
    format!("{:+.1}%", (r - 1.0) * 100.0)
}

/// The comparison in words. `higher_is_better` is true for throughput,
/// false for latency; `what` names the metric ("throughput", "p99").
pub fn verdict(r: &Ratio, n: usize, what: &str, higher_is_better: bool) -> String {
    let (lo, hi) = (pct(r.ci.0), pct(r.ci.1));
    if r.significant() {
        let better = (r.ratio > 1.0) == higher_is_better;
        let by = ((r.ratio - 1.0).abs() * 100.0).max(0.0);
        let word = match (what, better, higher_is_better) {
            (_, true, true) => "faster",
            (_, false, true) => "slower",
            (_, true, false) => "lower",
            (_, false, false) => "higher",
        };
        format!("{what}: B is {word} by {by:.1}% (95% CI {lo} to {hi}, {})", p_text(r.p))
    } else if r.needed_for_5pct > n {
        format!("{what}: too few repetitions to tell ({lo} to {hi}): about {} each would resolve a 5% difference at this spread", r.needed_for_5pct)
    } else {
        format!("{what}: no significant difference ({lo} to {hi}, {})", p_text(r.p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_spread() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let s = spread(&[100.0, 102.0, 98.0, 101.0, 99.0]);
        assert_eq!(s.median, 100.0);
        let (lo, hi) = s.ci.unwrap();
        assert!((98.0..=100.0).contains(&lo) && (100.0..=102.0).contains(&hi), "{lo} {hi}");
        assert_eq!(spread(&[1.0]).ci, None);
        // The same values give the same interval.
        assert_eq!(spread(&[100.0, 102.0, 98.0]).ci, spread(&[100.0, 102.0, 98.0]).ci);
    }

    #[test]
    fn identical_series_are_not_different() {
        let r = ratio(&[10.0, 10.0], &[10.0, 10.0]).unwrap();
        assert_eq!((r.ratio, r.p), (1.0, 1.0));
        assert!(!r.significant());
        assert!(ratio(&[10.0], &[10.0, 11.0]).is_none());
        assert!(ratio(&[0.0, 1.0], &[1.0, 1.0]).is_none());
    }

    /// Reference values computed once with SciPy 1.17.1 (NumPy log):
    /// `scipy.stats.ttest_ind(log(b), log(a), equal_var=False)` for t and p,
    /// the Welch-Satterthwaite df, and `exp(d -/+ scipy.stats.t.ppf(0.975, df) * se)`
    /// for the interval of the ratio.
    #[test]
    fn welch_on_logs_matches_scipy() {
        /// (name, a, b, t, p, df, ratio, ci low, ci high)
        type Case<'a> = (&'a str, &'a [f64], &'a [f64], f64, f64, f64, f64, f64, f64);
        #[rustfmt::skip]
        let cases: &[Case] = &[
            // (name, a, b, t, p, df, ratio, ci low, ci high)
            ("n2", &[1000.0, 1010.0], &[1100.0, 1080.0], 7.776436830693764, 0.03213291103881157, 1.541320147560094, 1.0845448924606007, 1.020885612648214, 1.1521737687253457),
            ("ties", &[500.0, 500.0, 510.0], &[500.0, 510.0, 510.0], 0.7071067811865475, 0.5185185185185185, 4.0, 1.006622709560113, 0.9808680121610922, 1.0330536492566613),
            ("n5", &[1203.1, 1188.4, 1250.0, 1199.9, 1221.7], &[1102.5, 1130.2, 1099.0, 1150.8, 1111.1], -6.5395431993067845, 0.00018096695668408166, 7.994740943663666, 0.9225716753554876, 0.8967200533026801, 0.9491685761162928),
            ("unequal", &[3.1, 3.3, 2.9, 3.0, 3.4, 3.2, 3.05], &[3.6, 2.7, 3.9], 0.6178204896543487, 0.5959560967984855, 2.143087924143927, 1.0727119203783673, 0.6779726228992231, 1.6972821988018403),
        ];
        let close = |got: f64, want: f64, what: &str, name: &str| assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{name} {what}: {got} vs SciPy {want}");
        for &(name, a, b, t, p, df, ratio_, lo, hi) in cases {
            let la: Vec<f64> = a.iter().map(|x| x.ln()).collect();
            let lb: Vec<f64> = b.iter().map(|x| x.ln()).collect();
            let w = welch(&la, &lb).unwrap();
            close(w.t, t, "t", name);
            close(w.p, p, "p", name);
            close(w.df, df, "df", name);
            let r = ratio(a, b).unwrap();
            close(r.ratio, ratio_, "ratio", name);
            close(r.ci.0, lo, "ci low", name);
            close(r.ci.1, hi, "ci high", name);
        }
        // scipy.stats.t.ppf and scipy.special.betainc.
        close(t_quantile(0.975, 2.0), 4.302652729749462, "t.ppf(0.975, 2)", "quantile");
        close(t_quantile(0.975, 7.3), 2.345066736547703, "t.ppf(0.975, 7.3)", "quantile");
        close(incomplete_beta(2.5, 0.5, 0.3), 0.018927124071945658, "betainc(2.5, 0.5, 0.3)", "beta");
    }

    #[test]
    fn verdicts_in_words() {
        let slower = ratio(&[1203.1, 1188.4, 1250.0, 1199.9, 1221.7], &[1102.5, 1130.2, 1099.0, 1150.8, 1111.1]).unwrap();
        assert_eq!(verdict(&slower, 5, "throughput", true), "throughput: B is slower by 7.7% (95% CI -10.3% to -5.1%, p < 0.001)");
        let same = ratio(&[500.0, 500.0, 510.0], &[500.0, 510.0, 510.0]).unwrap();
        assert_eq!(verdict(&same, 3, "throughput", true), "throughput: no significant difference (-1.9% to +3.3%, p = 0.519)");
        let noisy = ratio(&[3.1, 3.3, 2.9, 3.0, 3.4, 3.2, 3.05], &[3.6, 2.7, 3.9]).unwrap();
        assert!(verdict(&noisy, 3, "p99", false).starts_with("p99: too few repetitions to tell (-32.2% to +69.7%): about "), "{}", verdict(&noisy, 3, "p99", false));
    }
}
