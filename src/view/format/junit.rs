//! `compare --junit FILE`: JUnit XML, one test case per level and metric,
//! failed when it regressed, so a CI system shows the gate as tests.

use super::{Comparison, Format};
use crate::compare::gate::Line;
use crate::model::record::RunRecord;

pub struct Junit;

impl Format for Junit {
    fn key(&self) -> crate::output::FormatKey {
        crate::output::FormatKey::Junit
    }

    fn comparison(&self, c: &Comparison) -> Option<String> {
        let Some(base) = c.runs.first() else { return Some(String::new()) };
        Some(c.runs[1..].iter().zip(c.verdicts).map(|(r, ls)| junit(base, r, ls)).collect())
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// JUnit XML: one test case per level and metric, failed when it regressed.
pub fn junit(base: &RunRecord, new: &RunRecord, ls: &[Line]) -> String {
    let failures = ls.iter().filter(|l| l.regression).count();
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    o.push_str(&format!("<testsuites name=\"fairbench compare\" tests=\"{}\" failures=\"{failures}\">\n", ls.len()));
    o.push_str(&format!("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">\n", xml_escape(&format!("run {} against baseline run {}", new.id, base.id)), ls.len()));
    for l in ls {
        let name = xml_escape(&format!("{} {}", l.at(), l.metric.name()));
        if l.regression {
            o.push_str(&format!("    <testcase classname=\"fairbench.compare\" name=\"{name}\">\n      <failure message=\"{}\"/>\n    </testcase>\n", xml_escape(&l.words)));
        } else {
            o.push_str(&format!("    <testcase classname=\"fairbench.compare\" name=\"{name}\">\n      <system-out>{}</system-out>\n    </testcase>\n", xml_escape(&l.words)));
        }
    }
    o.push_str("  </testsuite>\n</testsuites>\n");
    o
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::gate::{lines, tests::run, Metric};

    #[test]
    fn a_regression_is_a_failed_case() {
        let base = run(1, &[1203.1, 1188.4, 1250.0, 1199.9, 1221.7]);
        let new = run(2, &[1102.5, 1130.2, 1099.0, 1150.8, 1111.1]);
        let ls = lines(&base, &new, &[Metric::Throughput, Metric::P99], Some(0.05));
        let x = junit(&base, &new, &ls);
        assert!(x.contains("tests=\"2\" failures=\"1\"") && x.contains("<failure message=\"throughput: B is slower by 7.7%"), "{x}");
    }
}
