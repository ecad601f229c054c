//! The statements that took the server's time over a level's measured
//! window, per transaction: each shape's executions and time per
//! transaction, its mean time, and what each execution did (rows
//! examined and sent, temporary tables, blocks read...), the largest
//! first.

use crate::db::digests::{Digest, CALLS, SECS};
use serde::Serialize;
use std::collections::BTreeMap;

/// How many statements a level keeps.
pub const TOP: usize = 10;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StatementTime {
    pub text: String,
    pub calls_per_trx: f64,
    /// Server time per transaction in this statement, µs.
    pub us_per_trx: f64,
    /// Mean time of one execution, µs.
    pub mean_us: f64,
    /// The engine's other counters, per execution.
    pub per_call: BTreeMap<String, f64>,
}

/// The top statements by time from a window's sums; empty when the server
/// kept none.
pub fn of(sums: &BTreeMap<String, Digest>, transactions: f64) -> Vec<StatementTime> {
    if transactions <= 0.0 {
        return Vec::new();
    }
    let mut all: Vec<StatementTime> = sums
        .values()
        .filter(|d| d.count(CALLS) > 0.0 && !d.text.is_empty())
        .map(|d| {
            let calls = d.count(CALLS);
            let per_call = d.counts.iter().filter(|(k, _)| *k != CALLS && *k != SECS).map(|(k, v)| (k.clone(), v / calls)).collect();
            StatementTime { text: d.text.clone(), calls_per_trx: calls / transactions, us_per_trx: d.count(SECS) * 1e6 / transactions, mean_us: d.count(SECS) * 1e6 / calls, per_call }
        })
        .collect();
    all.sort_by(|a, b| b.us_per_trx.total_cmp(&a.us_per_trx).then(b.calls_per_trx.total_cmp(&a.calls_per_trx)));
    all.truncate(TOP);
    all
}

/// One statement as a line: "0.9 x 120.3 µs = 108.3 µs/t, 1.0 rows examined: SELECT c FROM ...".
pub fn line(s: &StatementTime, width: usize) -> String {
    use crate::db::digests::{BLOCKS_READ, ROWS_EXAMINED};
    let what = if let Some(v) = s.per_call.get(ROWS_EXAMINED) {
        format!(", {v:.1} rows examined")
    } else if let Some(v) = s.per_call.get(BLOCKS_READ).filter(|v| **v > 0.0) {
        format!(", {v:.1} blocks read")
    } else {
        String::new()
    };
    let text: String = if s.text.chars().count() > width { format!("{}...", s.text.chars().take(width).collect::<String>()) } else { s.text.clone() };
    format!("{:.2} x {:.1} µs = {:.1}{what}: {text}", s.calls_per_trx, s.mean_us, s.us_per_trx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::digests::ROWS_EXAMINED;

    #[test]
    fn statements_are_ranked_by_time_per_transaction() {
        let d = |text: &str, calls: f64, secs: f64, examined: f64| Digest {
            text: text.into(),
            counts: [(CALLS.to_string(), calls), (SECS.to_string(), secs), (ROWS_EXAMINED.to_string(), examined)].into_iter().collect(),
        };
        let sums: BTreeMap<String, Digest> =
            [("a".to_string(), d("SELECT c FROM t WHERE id = ?", 10000.0, 0.5, 10000.0)), ("b".to_string(), d("UPDATE t SET k = k + 1 WHERE id = ?", 1000.0, 0.8, 1000.0))].into_iter().collect();
        let top = of(&sums, 1000.0);
        assert_eq!(top[0].text, "UPDATE t SET k = k + 1 WHERE id = ?");
        assert!((top[0].us_per_trx - 800.0).abs() < 1e-9 && (top[0].mean_us - 800.0).abs() < 1e-9);
        assert!((top[1].calls_per_trx - 10.0).abs() < 1e-12 && (top[1].mean_us - 50.0).abs() < 1e-9);
        assert_eq!(top[1].per_call[ROWS_EXAMINED], 1.0);
        assert_eq!(line(&top[1], 12), "10.00 x 50.0 µs = 500.0, 1.0 rows examined: SELECT c FRO...");
        assert!(of(&sums, 0.0).is_empty());
    }
}
