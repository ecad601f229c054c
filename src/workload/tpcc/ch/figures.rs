//! A phase's figures: tpmC and New-Order's p95 in both phases; in the
//! mixed phase also the analytic throughput, the change against TPC-C
//! alone, and the queries' freshness.

use super::freshness::Sample;
use super::{Alone, Phase, TPCC_KINDS};
use crate::model::LevelResult;
use crate::stats::pct_ms;

/// The p-th percentile of `v` (nearest rank), 0 when empty.
fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// What the analytic streams did over a level.
pub struct Analytic {
    pub streams: usize,
    /// Queries completed.
    pub done: u64,
    pub samples: Vec<Sample>,
    /// Queries cancelled at the time limit, named.
    pub timed_out: Vec<String>,
    /// Queries in flight when the phase ended, cancelled on the server and not counted.
    pub cut: Vec<String>,
    /// Queries the engine refused, with its reason.
    pub refused: Vec<String>,
}

/// The level's figures, and what TPC-C measured in it (the TPC-C-alone
/// phase's is what the mixed phase compares with).
pub fn level(phase: Phase, r: &LevelResult, a: &Analytic, alone: Option<&Alone>) -> (Vec<(String, String)>, Alone) {
    let secs = r.elapsed_s.max(1e-9);
    let kinds = &r.total.kinds;
    let new_order = kinds.first();
    let tpmc = new_order.map_or(0.0, |k| k.events as f64 * 60.0 / secs);
    let p95 = new_order.map_or(0.0, |k| pct_ms(&k.lat, 95.0));
    let measured = Alone { tpmc, new_order_p95_ms: p95 };
    let mut out = vec![("tpmC".to_string(), format!("{tpmc:.1}")), ("New-Order p95 ms".to_string(), format!("{p95:.3}"))];
    if phase == Phase::Alone {
        return (out, measured);
    }
    if let Some(a) = alone {
        out.push(("tpmC alone".into(), format!("{:.1}", a.tpmc)));
        if a.tpmc > 0.0 {
            out.push(("tpmC change vs alone %".into(), format!("{:+.1}", (tpmc / a.tpmc - 1.0) * 100.0)));
        }
        out.push(("New-Order p95 ms alone".into(), format!("{:.3}", a.new_order_p95_ms)));
    }
    // The queries' latencies include those cancelled or refused: the mean is over every query sent.
    let analytic = kinds.iter().skip(TPCC_KINDS.len());
    let (sent, busy_us) = analytic.fold((0u64, 0.0), |(n, us), k| (n + k.events, us + if k.lat.is_empty() { 0.0 } else { k.lat.mean() * k.events as f64 }));
    out.push(("analytic streams".into(), a.streams.to_string()));
    out.push(("analytic queries".into(), a.done.to_string()));
    out.push(("analytic queries per hour".into(), format!("{:.1}", a.done as f64 * 3600.0 / secs)));
    if sent > 0 {
        out.push(("analytic query mean s".into(), format!("{:.4}", busy_us / sent as f64 / 1e6)));
    }
    if !a.timed_out.is_empty() {
        out.push(("timed out".into(), a.timed_out.join(", ")));
    }
    if !a.cut.is_empty() {
        out.push(("cut at the end".into(), a.cut.join(", ")));
    }
    if !a.refused.is_empty() {
        out.push(("refused".into(), a.refused.join("; ")));
    }
    if !a.samples.is_empty() {
        let mut age: Vec<f64> = a.samples.iter().map(|s| s.age_ms).collect();
        let mut missed: Vec<f64> = a.samples.iter().map(|s| s.missed_ms).collect();
        out.push(("freshness samples".into(), a.samples.len().to_string()));
        for p in [50.0, 95.0] {
            out.push((format!("freshness age p{p} ms"), format!("{:.3}", percentile(&mut age, p))));
        }
        out.push(("freshness age max ms".into(), format!("{:.3}", percentile(&mut age, 100.0))));
        out.push(("freshness missed p95 ms".into(), format!("{:.3}", percentile(&mut missed, 95.0))));
        out.push(("freshness missed max ms".into(), format!("{:.3}", percentile(&mut missed, 100.0))));
    }
    (out, measured)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut v = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(percentile(&mut v, 50.0), 3.0);
        assert_eq!(percentile(&mut v, 95.0), 5.0);
        assert_eq!(percentile(&mut v, 100.0), 5.0);
        assert_eq!(percentile(&mut [], 50.0), 0.0);
    }
}
