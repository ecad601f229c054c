//! A series' repetitions per level: the median throughput with its 95%
//! interval, the spread between repetitions, and the latency medians.

use crate::model::record::Repeated;
use crate::stats::significance::{median, spread, Spread};
use serde_json::{json, Value};

/// Repetitions whose throughput varies more than this (coefficient of
/// variation) are too noisy to tell a few percent apart.
pub const NOISY_CV: f64 = 0.05;

fn ci_text(s: &Spread, digits: usize) -> String {
    match s.ci {
        Some((lo, hi)) => format!("[{lo:.digits$}, {hi:.digits$}]"),
        None => "-".into(),
    }
}

/// The series table, and a warning line for each level whose spread is
/// above [`NOISY_CV`]. `order` is how the repetitions ran.
pub fn text(levels: &[Repeated], order: &str) -> String {
    let most = levels.iter().map(|l| l.tps.len()).max().unwrap_or(0);
    let mut o = format!("Repetitions: up to {most} per level, {order}\n");
    o.push_str(&format!("  {:>7}  {:>3}  {:>10}  {:>21}  {:>6}  {:>21}  {:>8}  {:>8}  {:>19}\n", "threads", "n", "tps median", "95% CI", "CV", "range", "p95 ms", "p99 ms", "p99 95% CI"));
    let mut noisy = Vec::new();
    for l in levels {
        let s = spread(&l.tps);
        let p99 = spread(&l.p99_ms);
        let cv = s.cv.map(|c| format!("{:.1}%", c * 100.0)).unwrap_or_else(|| "-".into());
        o.push_str(&format!(
            "  {:>7}  {:>3}  {:>10.2}  {:>21}  {:>6}  {:>21}  {:>8.3}  {:>8.3}  {:>19}\n",
            l.threads,
            s.n,
            s.median,
            ci_text(&s, 2),
            cv,
            format!("{:.2} - {:.2}", s.min, s.max),
            median(&l.p95_ms),
            p99.median,
            ci_text(&p99, 3)
        ));
        if s.cv.is_some_and(|c| c > NOISY_CV) {
            let who = if l.threads == 1 { "1 client".to_string() } else { format!("{} clients", l.threads) };
            noisy.push(format!("{who} (CV {:.1}%)", s.cv.unwrap_or(0.0) * 100.0));
        }
    }
    if !noisy.is_empty() {
        o.push_str(&format!(
            "Warning: throughput varies by more than {:.0}% between repetitions at {}: a difference of a few percent cannot be told from this series.\n",
            NOISY_CV * 100.0,
            noisy.join(", ")
        ));
    }
    o
}

/// The same as one JSON object.
pub fn json(levels: &[Repeated], order: &str) -> Value {
    let one = |v: &[f64]| {
        let s = spread(v);
        json!({ "n": s.n, "median": s.median, "ci95": s.ci.map(|(a, b)| [a, b]), "cv": s.cv, "min": s.min, "max": s.max, "values": v })
    };
    json!({
        "type": "series",
        "order": order,
        "levels": levels.iter().map(|l| json!({ "threads": l.threads, "tps": one(&l.tps), "p95_ms": one(&l.p95_ms), "p99_ms": one(&l.p99_ms) })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noisy_levels_are_named() {
        let levels = vec![
            Repeated { threads: 1, step: None, tps: vec![100.0, 101.0, 99.0], p95_ms: vec![1.0; 3], p99_ms: vec![2.0; 3] },
            Repeated { threads: 4, step: None, tps: vec![300.0, 400.0, 350.0], p95_ms: vec![3.0; 3], p99_ms: vec![4.0; 3] },
        ];
        let t = text(&levels, "interleaved");
        assert!(t.contains("Warning: throughput varies by more than 5% between repetitions at 4 clients (CV 14.3%)"), "{t}");
        assert!(!t.contains("1 clients"), "{t}");
        assert_eq!(json(&levels, "interleaved")["levels"][1]["tps"]["median"], 350.0);
    }
}
