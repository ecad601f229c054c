//! Change points in a series of measurements (one metric of runs in order): E-Divisive with
//! means (Matteson and James, "A Nonparametric Approach for Multiple Change Point Analysis of
//! Multivariate Data", 2014), the method MongoDB's signal-processing-algorithms and Apache Otava
//! run over performance series. No distribution is assumed: a split's statistic is the energy
//! distance between the points before and after it, the best split of a segment is tested by
//! permuting the segment (the share of shuffles with a statistic as large is its p-value), and a
//! significant one cuts the segment in two, until no segment has one.

use crate::rand::Rng;

/// One change: the series moves from `before` (the mean of the segment ending at `at`) to
/// `after` (the mean of the one starting there).
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The index of the first point after the change.
    pub at: usize,
    pub before: f64,
    pub after: f64,
    /// The permutation test's p-value of the split.
    pub p: f64,
}

impl Change {
    /// `after / before - 1`.
    pub fn relative(&self) -> f64 {
        if self.before == 0.0 {
            0.0
        } else {
            self.after / self.before - 1.0
        }
    }
}

/// How the search is run.
#[derive(Clone, Copy, Debug)]
pub struct Search {
    /// The p-value a change must be under.
    pub alpha: f64,
    /// Shuffles per test (the smallest p-value it can give is 1 / (permutations + 1)).
    pub permutations: usize,
    /// Points each side of a change at least.
    pub min_size: usize,
    /// The shuffles' seed: the same series gives the same answer.
    pub seed: u64,
}

impl Default for Search {
    fn default() -> Search {
        Search { alpha: 0.01, permutations: 999, min_size: 2, seed: 1 }
    }
}

/// The best split of `x` and its statistic: (index of the first point after it, q).
fn best_split(x: &[f64], min_size: usize) -> Option<(usize, f64)> {
    let n = x.len();
    if n < 2 * min_size.max(1) {
        return None;
    }
    let d = |i: usize, j: usize| (x[i] - x[j]).abs();
    // within[t]: the sum of distances among x[..t]; within_after[t]: among x[t..].
    let mut within = vec![0.0; n + 1];
    for t in 1..n {
        within[t + 1] = within[t] + (0..t).map(|i| d(i, t)).sum::<f64>();
    }
    let mut within_after = vec![0.0; n + 1];
    for t in (0..n.saturating_sub(1)).rev() {
        within_after[t] = within_after[t + 1] + (t + 1..n).map(|j| d(t, j)).sum::<f64>();
    }
    let total = within[n];
    let mut best: Option<(usize, f64)> = None;
    for t in min_size.max(1)..=n - min_size.max(1) {
        let (m, k) = (t as f64, (n - t) as f64);
        let cross = total - within[t] - within_after[t];
        let mean_within = |sum: f64, c: f64| if c > 1.0 { 2.0 * sum / (c * (c - 1.0)) } else { 0.0 };
        let energy = 2.0 * cross / (m * k) - mean_within(within[t], m) - mean_within(within_after[t], k);
        let q = m * k / (m + k) * energy;
        if best.is_none_or(|(_, b)| q > b) {
            best = Some((t, q));
        }
    }
    best
}

/// The change points of `x`, in order.
pub fn detect(x: &[f64], s: Search) -> Vec<Change> {
    let mut rng = Rng::from_seed(s.seed, 0);
    let mut cuts: Vec<usize> = vec![0, x.len()];
    let mut ps: Vec<(usize, f64)> = Vec::new();
    loop {
        // The most divergent split over every segment, tested by shuffling its segment.
        let candidate = cuts.windows(2).filter_map(|w| best_split(&x[w[0]..w[1]], s.min_size).map(|(t, q)| (w[0], w[1], w[0] + t, q))).max_by(|a, b| a.3.total_cmp(&b.3));
        let Some((lo, hi, at, q)) = candidate else { break };
        let mut seg = x[lo..hi].to_vec();
        let mut as_large = 0usize;
        for _ in 0..s.permutations {
            for i in (1..seg.len()).rev() {
                let j = rng.uniform(0, i as u64) as usize;
                seg.swap(i, j);
            }
            if best_split(&seg, s.min_size).is_some_and(|(_, qp)| qp >= q) {
                as_large += 1;
            }
        }
        let p = (as_large + 1) as f64 / (s.permutations + 1) as f64;
        if p > s.alpha {
            break;
        }
        ps.push((at, p));
        cuts.push(at);
        cuts.sort_unstable();
    }
    let mean = |a: usize, b: usize| x[a..b].iter().sum::<f64>() / (b - a).max(1) as f64;
    ps.sort_by_key(|(at, _)| *at);
    ps.iter()
        .map(|&(at, p)| {
            let i = cuts.binary_search(&at).unwrap_or(0);
            Change { at, before: mean(cuts[i - 1], at), after: mean(at, cuts[i + 1]), p }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A series of `levels` (value, length) with noise of relative size `noise`.
    fn series(levels: &[(f64, usize)], noise: f64, seed: u64) -> Vec<f64> {
        let mut rng = Rng::from_seed(seed, 7);
        levels.iter().flat_map(|&(v, n)| std::iter::repeat_n(v, n)).map(|v| v * (1.0 + noise * (2.0 * rng.uniform_double() - 1.0))).collect()
    }

    #[test]
    fn a_step_is_found_where_it_is() {
        for seed in 1..6 {
            let x = series(&[(1000.0, 30), (900.0, 30)], 0.03, seed);
            let c = detect(&x, Search::default());
            assert_eq!(c.len(), 1, "seed {seed}: {c:?}");
            assert!((29..=31).contains(&c[0].at), "seed {seed}: {c:?}");
            assert!((c[0].relative() + 0.1).abs() < 0.02 && c[0].p <= 0.01, "{c:?}");
        }
    }

    #[test]
    fn two_steps_are_both_found() {
        let x = series(&[(500.0, 20), (600.0, 15), (450.0, 25)], 0.02, 3);
        let at: Vec<usize> = detect(&x, Search::default()).iter().map(|c| c.at).collect();
        assert_eq!(at.len(), 2, "{at:?}");
        assert!((19..=21).contains(&at[0]) && (34..=36).contains(&at[1]), "{at:?}");
    }

    #[test]
    fn flat_noise_has_no_change() {
        let mut found = 0;
        for seed in 1..21 {
            let x = series(&[(1000.0, 40)], 0.05, seed);
            found += detect(&x, Search::default()).len();
        }
        // At alpha 0.01, twenty flat series give a false change rarely; three would be a defect.
        assert!(found <= 1, "{found} changes in 20 flat series");
    }

    #[test]
    fn a_late_step_of_two_points_is_found_and_short_series_give_none() {
        let x = series(&[(100.0, 10), (70.0, 3)], 0.01, 5);
        let c = detect(&x, Search { min_size: 2, ..Search::default() });
        assert_eq!(c.iter().map(|c| c.at).collect::<Vec<_>>(), [10], "{c:?}");
        assert!(detect(&[1.0, 2.0, 3.0], Search::default()).is_empty());
        assert!(detect(&[], Search::default()).is_empty());
    }

    #[test]
    fn the_same_series_gives_the_same_answer() {
        let x = series(&[(10.0, 12), (12.0, 12)], 0.05, 9);
        assert_eq!(detect(&x, Search::default()), detect(&x, Search::default()));
    }
}
