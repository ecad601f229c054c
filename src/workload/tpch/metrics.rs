//! The spec's metrics (clause 5.4): Power@Size from the power test's
//! query and refresh times, Throughput@Size from the throughput test's
//! length, QphH@Size from both; and what each level reports beside them.

use super::{Op, Test, Timing, KINDS};

/// A number as short as it reads: 1, 0.01, 0.1.
pub fn number(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The geometric mean of `secs`, each raised to a thousandth of the
/// longest first, as the spec bounds the shortest (clause 5.4.1.4).
pub fn geometric_mean(secs: &[f64]) -> f64 {
    if secs.is_empty() {
        return 0.0;
    }
    let floor = secs.iter().cloned().fold(0.0, f64::max) / 1000.0;
    let logs: f64 = secs.iter().map(|s| s.max(floor).max(1e-9).ln()).sum();
    (logs / secs.len() as f64).exp()
}

/// Power@Size: 3600 × SF over the geometric mean of the power test's
/// query and refresh times in seconds.
pub fn power_at_size(secs: &[f64], sf: f64) -> f64 {
    3600.0 * sf / geometric_mean(secs)
}

/// Throughput@Size: queries an hour over the test, times SF.
pub fn throughput_at_size(streams: usize, queries: usize, elapsed_s: f64, sf: f64) -> f64 {
    (streams * queries) as f64 * 3600.0 / elapsed_s.max(1e-9) * sf
}

/// A level's figures: its metric (or why there is none), the queries that
/// timed out, and in the power test each query's and refresh function's
/// seconds. `power` carries Power@Size from the power test to QphH@Size.
pub fn figures(test: Test, timings: &[Timing], sf: f64, streams: usize, elapsed_s: f64, complete: bool, power: &mut Option<f64>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let timed_out: Vec<String> = timings.iter().filter(|t| t.timed_out).map(|t| format!("{} (stream {})", KINDS[t.op.kind()], t.stream)).collect();
    let mut refused: Vec<String> = timings.iter().filter_map(|t| Some(format!("{}: {}", KINDS[t.op.kind()], t.refused.as_ref()?))).collect();
    refused.sort();
    refused.dedup();
    let failed = !timed_out.is_empty() || !refused.is_empty();
    let partial = if complete { "" } else { " (a subset: not the spec's)" };
    match test {
        Test::Power => {
            let secs: Vec<f64> = timings.iter().map(|t| t.secs).collect();
            if !failed && !secs.is_empty() {
                let p = power_at_size(&secs, sf);
                out.push((format!("Power@Size{partial}"), format!("{p:.1}")));
                *power = Some(p);
            } else {
                *power = None;
            }
            for t in timings {
                out.push((format!("{} seconds", KINDS[t.op.kind()]), format!("{:.4}", t.secs)));
            }
        }
        Test::Throughput => {
            let queries = timings.iter().filter(|t| t.stream > 0 && matches!(t.op, Op::Query(_))).count();
            let per_stream = queries.checked_div(streams).unwrap_or(0);
            if !failed && per_stream > 0 {
                let t = throughput_at_size(streams, per_stream, elapsed_s, sf);
                out.push((format!("Throughput@Size{partial}"), format!("{t:.1}")));
                if let Some(p) = *power {
                    out.push((format!("QphH@Size{partial}"), format!("{:.1}", (p * t).sqrt())));
                }
            }
            out.push(("query streams".into(), streams.to_string()));
        }
    }
    if !timed_out.is_empty() {
        out.push(("timed out".into(), timed_out.join(", ")));
    }
    if !refused.is_empty() {
        out.push(("refused".into(), refused.join("; ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_follow_the_spec() {
        // Every time 2 s at SF 1: 3600 / 2.
        assert!((power_at_size(&[2.0; 24], 1.0) - 1800.0).abs() < 1e-6);
        // The shortest is raised to a thousandth of the longest.
        assert!((geometric_mean(&[1000.0, 0.001]) - (1000.0f64 * 1.0).sqrt()).abs() < 1e-9);
        // 2 streams of 22 queries in an hour at SF 10.
        assert!((throughput_at_size(2, 22, 3600.0, 10.0) - 440.0).abs() < 1e-9);
        assert_eq!((number(1.0), number(0.01), number(0.1), number(30.0)), ("1".into(), "0.01".into(), "0.1".into(), "30".into()));
    }

    #[test]
    fn a_timed_out_query_leaves_no_metric_and_is_named() {
        let t = |op, secs, timed_out| Timing { stream: 0, op, secs, timed_out, refused: None };
        let mut power = None;
        let f = figures(Test::Power, &[t(Op::Query(1), 1.0, false), t(Op::Query(18), 5.0, true)], 1.0, 2, 6.0, true, &mut power);
        assert!(power.is_none() && !f.iter().any(|(k, _)| k.starts_with("Power@Size")));
        assert!(f.contains(&("timed out".to_string(), "Q18 (stream 0)".to_string())), "{f:?}");
        let f = figures(Test::Power, &[t(Op::Query(1), 4.0, false)], 1.0, 2, 4.0, false, &mut power);
        assert_eq!(f[0], ("Power@Size (a subset: not the spec's)".to_string(), "900.0".to_string()));
        assert_eq!(power, Some(900.0));
    }
}
