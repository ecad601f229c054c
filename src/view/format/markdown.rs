//! `compare --format markdown`: one table per run against the baseline,
//! for a CI job summary.

use super::{Comparison, Format};
use crate::compare::gate::Line;
use crate::model::record::RunRecord;
use crate::stats::significance::Ratio;

pub struct Markdown;

impl Format for Markdown {
    fn key(&self) -> crate::output::FormatKey {
        crate::output::FormatKey::Markdown
    }

    fn comparison(&self, c: &Comparison) -> Option<String> {
        let Some(base) = c.runs.first() else { return Some(String::new()) };
        Some(c.runs[1..].iter().zip(c.verdicts).map(|(r, ls)| markdown(base, r, ls, c.max_regression) + "\n").collect())
    }

    fn sweep(&self, t: &crate::sweep::table::Table) -> Option<String> {
        Some(crate::view::sweep::markdown(t))
    }
}

/// The comparison as a markdown table (for a CI job summary).
pub fn markdown(base: &RunRecord, new: &RunRecord, ls: &[Line], max_regression: Option<f64>) -> String {
    let mut o = format!("### fairbench: run {} against baseline run {}\n\n", new.id, base.id);
    o.push_str("| clients | metric | baseline (median) | new (median) | change | 95% CI | p | repetitions | verdict |\n");
    o.push_str("|---:|---|---:|---:|---:|---|---:|---|---|\n");
    for l in ls {
        let (change, ci, p) = match &l.test {
            Some(t) => (
                format!("{:+.1}%", (t.ratio - 1.0) * 100.0),
                format!("{:+.1}% to {:+.1}%", (t.ci.0 - 1.0) * 100.0, (t.ci.1 - 1.0) * 100.0),
                crate::stats::significance::p_text(t.p).trim_start_matches("p = ").trim_start_matches("p ").to_string(),
            ),
            None => (format!("{:+.1}%", (l.new_median / l.base_median - 1.0) * 100.0), "-".into(), "-".into()),
        };
        let verdict = match max_regression {
            Some(_) if l.regression => "**regression**",
            Some(_) => "ok",
            None if l.test.as_ref().is_some_and(Ratio::significant) => "significant",
            None => "-",
        };
        o.push_str(&format!("| {} | {} | {:.2} | {:.2} | {change} | {ci} | {p} | {} vs {} | {verdict} |\n", l.key().cell(), l.metric.name(), l.base_median, l.new_median, l.n.0, l.n.1));
    }
    o
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::gate::{lines, tests::run, Metric};

    #[test]
    fn a_regression_is_a_bold_row() {
        let base = run(1, &[1203.1, 1188.4, 1250.0, 1199.9, 1221.7]);
        let new = run(2, &[1102.5, 1130.2, 1099.0, 1150.8, 1111.1]);
        let ls = lines(&base, &new, &[Metric::Throughput, Metric::P99], Some(0.05));
        let md = markdown(&base, &new, &ls, Some(0.05));
        assert!(md.contains("| 4 | throughput | 1203.10 | 1111.10 | -7.7% | -10.3% to -5.1% | < 0.001 | 5 vs 5 | **regression** |"), "{md}");
    }
}
