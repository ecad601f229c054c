//! Series compared level by level with a significance test, and the
//! regression gate built on it (`compare --baseline BASE NEW
//! --max-regression 5%`): one verdict per level and metric, in words; the
//! markdown table and JUnit XML are renderings of them (`view::format`).

use crate::model::record::{LevelKey, Repeated, RunRecord};
use crate::stats::significance::{median, ratio, verdict, Ratio};

/// What a verdict is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Throughput,
    P99,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Throughput => "throughput",
            Metric::P99 => "p99",
        }
    }

    fn higher_is_better(self) -> bool {
        self == Metric::Throughput
    }

    fn values(self, r: &Repeated) -> &[f64] {
        match self {
            Metric::Throughput => &r.tps,
            Metric::P99 => &r.p99_ms,
        }
    }
}

/// One level and metric of a run against the baseline.
#[derive(Clone, Debug)]
pub struct Line {
    pub threads: usize,
    /// The level's step, for a workload whose levels are steps.
    pub step: Option<String>,
    pub metric: Metric,
    pub base_median: f64,
    pub new_median: f64,
    pub n: (usize, usize),
    /// None with fewer than two repetitions on either side.
    pub test: Option<Ratio>,
    /// The verdict in words.
    pub words: String,
    /// Worse than the baseline beyond the threshold (significantly, when
    /// there are repetitions to test).
    pub regression: bool,
}

/// Each level both runs measured, for each metric: `new` against `base`.
/// `max_regression` is a fraction (0.05); None judges nothing.
pub fn lines(base: &RunRecord, new: &RunRecord, metrics: &[Metric], max_regression: Option<f64>) -> Vec<Line> {
    let (bl, nl) = (base.repeated(), new.repeated());
    let mut out = Vec::new();
    for n in &nl {
        let Some(b) = bl.iter().find(|b| b.key() == n.key()) else { continue };
        for &m in metrics {
            let (bv, nv) = (m.values(b), m.values(n));
            let (bm, nm) = (median(bv), median(nv));
            let test = ratio(bv, nv);
            // How much worse the new run is, as a fraction (positive: worse).
            let worse = |r: f64| if m.higher_is_better() { 1.0 - r } else { r - 1.0 };
            let (words, regression) = match &test {
                Some(t) => (verdict(t, bv.len().min(nv.len()), m.name(), m.higher_is_better()), max_regression.is_some_and(|max| t.significant() && worse(t.ratio) > max)),
                None => {
                    let r = if bm > 0.0 { nm / bm } else { f64::NAN };
                    let words = format!("{}: {:+.1}% (one measurement on a side: no significance test; repeat with --repeat)", m.name(), (r - 1.0) * 100.0);
                    (words, max_regression.is_some_and(|max| worse(r) > max))
                }
            };
            out.push(Line { threads: n.threads, step: n.step.clone(), metric: m, base_median: bm, new_median: nm, n: (bv.len(), nv.len()), test, words, regression });
        }
    }
    out
}

impl Line {
    pub fn key(&self) -> LevelKey {
        LevelKey { step: self.step.clone(), threads: self.threads }
    }

    /// Its level: the step (with its clients), or the client count.
    pub fn at(&self) -> String {
        match &self.step {
            Some(s) => format!("{s} ({})", clients(self.threads)),
            None => clients(self.threads),
        }
    }
}

/// "1 client", "4 clients".
pub fn clients(n: usize) -> String {
    if n == 1 {
        "1 client".into()
    } else {
        format!("{n} clients")
    }
}

/// One line per level and metric, saying why it passes or fails.
pub fn text(base: &RunRecord, new: &RunRecord, ls: &[Line], max_regression: Option<f64>) -> String {
    let mut o = format!("Run {} against baseline run {} (Welch's t-test on the logarithm, 95%):\n", new.id, base.id);
    for l in ls {
        let gate = match max_regression {
            Some(max) if l.regression => format!("  FAIL: worse than the baseline by more than {:.1}%", max * 100.0),
            Some(_) => "  ok".to_string(),
            None => String::new(),
        };
        o.push_str(&format!("  {}, {} [{} vs {} repetitions]{gate}\n", l.at(), l.words, l.n.0, l.n.1));
    }
    o
}

/// The lines as JSON values.
pub fn json(ls: &[Line]) -> Vec<serde_json::Value> {
    ls.iter()
        .map(|l| {
            serde_json::json!({
                "threads": l.threads, "step": l.step, "metric": l.metric.name(), "baseline_median": l.base_median, "new_median": l.new_median,
                "repetitions": [l.n.0, l.n.1], "ratio": l.test.as_ref().map(|t| t.ratio), "ci95": l.test.as_ref().map(|t| [t.ci.0, t.ci.1]),
                "p": l.test.as_ref().map(|t| t.p), "significant": l.test.as_ref().map(Ratio::significant), "verdict": l.words, "regression": l.regression,
            })
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::record::LevelRec;

    pub(crate) fn run(id: i64, tps: &[f64]) -> RunRecord {
        let levels = tps.iter().enumerate().map(|(i, t)| LevelRec { level_no: i, threads: 4, status: "completed".into(), tps: *t, p99_ms: 10.0 + i as f64 * 0.1, ..LevelRec::default() }).collect();
        RunRecord { id, levels, ..RunRecord::default() }
    }

    #[test]
    fn a_significant_slowdown_beyond_the_threshold_fails() {
        let base = run(1, &[1203.1, 1188.4, 1250.0, 1199.9, 1221.7]);
        let new = run(2, &[1102.5, 1130.2, 1099.0, 1150.8, 1111.1]);
        let ls = lines(&base, &new, &[Metric::Throughput, Metric::P99], Some(0.05));
        assert!(ls[0].regression, "{:?}", ls[0]);
        assert!(!ls[1].regression, "{:?}", ls[1]);
        // Not beyond 10%: passes.
        assert!(!lines(&base, &new, &[Metric::Throughput], Some(0.10))[0].regression);
    }
}
