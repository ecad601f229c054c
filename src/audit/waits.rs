//! What the server's time per transaction (its wait classes) says about a
//! run's fairness: a run that measured queueing on locked rows rather than
//! the engine, and two runs whose transactions waited on the log for very
//! different times. (A run "in memory" that waited on reads is the
//! hardware rule's, with the reads' wait time as evidence.)

use super::{apart, finding, ids, per_run_figure};
use crate::db::waits::Class;
use crate::model::efficiency::{of_run, Efficiency};
use crate::model::record::{Finding, RunRecord, Severity};

/// Lock waits above this share of a transaction's time: the run measured contention.
const LOCK_SHARE: f64 = 0.5;
/// Two runs' log waits per transaction this far apart (and above the
/// floor) waited on their logs differently.
const LOG_FACTOR: f64 = 3.0;
const LOG_FLOOR_US: f64 = 50.0;

/// The mean time of a transaction at a level, µs (each client one at a time).
pub fn mean_latency_us(e: &Efficiency) -> Option<f64> {
    (e.tps > 0.0 && e.threads > 0).then(|| e.threads as f64 * 1e6 / e.tps)
}

pub fn rule_lock_waits_dominate(r: &RunRecord, hw: &[Efficiency]) -> Vec<Finding> {
    let mut out = Vec::new();
    for e in hw {
        let (Some(t), Some(lat)) = (&e.server_time, mean_latency_us(e)) else { continue };
        let (row, table) = (t.of_class(Class::RowLock), t.of_class(Class::TableLock));
        if row + table <= LOCK_SHARE * lat {
            continue;
        }
        let top = t.top_of(if row >= table { Class::RowLock } else { Class::TableLock }).map(|w| format!(", most in {}", w.event)).unwrap_or_default();
        out.push(finding(
            "lock-waits-dominate",
            Severity::Warning,
            vec![r.id],
            format!(
                "run {} at {} threads: lock waits take {:.0}% of each transaction's time: it measured clients queueing on the same rows, not the engine",
                r.id,
                e.threads,
                (row + table) * 100.0 / lat
            ),
            vec![format!("{} threads: row locks {row:.1} µs and table locks {table:.1} µs per transaction of {lat:.1} µs{top}", e.threads)],
            "spread the keys (more rows, a uniform distribution) or run fewer clients, unless contention is what the comparison is about: then say so beside the figures",
        ));
    }
    out
}

/// Log waits per transaction, the most of any level, per run.
fn log_waits(r: &RunRecord) -> Option<f64> {
    of_run(r).iter().filter_map(|e| e.server_time.as_ref()).map(|t| t.of_class(Class::Log)).reduce(f64::max)
}

pub fn rule_log_waits_differ(rs: &[&RunRecord]) -> Vec<Finding> {
    let per: Vec<Option<f64>> = rs.iter().map(|r| log_waits(r)).collect();
    let Some((lo, hi)) = apart(&per, LOG_FLOOR_US, LOG_FACTOR) else { return vec![] };
    vec![finding(
        "log-waits-differ",
        Severity::Warning,
        ids(rs),
        format!("the transactions waited on the log differently: {lo:.1} against {hi:.1} µs per transaction in log write and sync"),
        per_run_figure(rs, &per, |v| format!("{v:.1} µs per transaction in log write and sync"), "server time not recorded"),
        "check that every side commits alike (the durability settings, group commit, the log's device) before comparing throughput",
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::waits::key;
    use crate::env::Sample;
    use crate::model::record::{LevelRec, StoredSample};

    fn run(id: i64, waits: &[(Class, &str, f64)]) -> RunRecord {
        let deltas = waits.iter().map(|(c, e, s)| (key(*c, e), *s)).collect();
        // 8 clients, 1000 transactions in 1 s: 8000 µs each.
        let l = LevelRec {
            threads: 8,
            tps: 1000.0,
            events: 1000,
            queries: 1000,
            samples: vec![StoredSample { seq: 1, t: 1.0, dt: 1.0, sample: Sample { deltas, ..Sample::default() } }],
            ..LevelRec::default()
        };
        RunRecord { id, engine: "postgres".into(), levels: vec![l], ..RunRecord::default() }
    }

    #[test]
    fn hot_rows_and_a_differing_log_are_named() {
        let hot = run(1, &[(Class::RowLock, "transactionid", 6.0), (Class::Cpu, "CPU", 1.0)]);
        let calm = run(2, &[(Class::RowLock, "transactionid", 0.5), (Class::Log, "WALSync", 0.3), (Class::Cpu, "CPU", 2.0)]);
        let f = rule_lock_waits_dominate(&hot, &of_run(&hot));
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("75%") && f[0].evidence[0].contains("transactionid"), "{f:?}");
        assert!(rule_lock_waits_dominate(&calm, &of_run(&calm)).is_empty());
        let synced = run(3, &[(Class::Log, "WALSync", 3.0)]);
        let f = rule_log_waits_differ(&[&calm, &synced]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("300.0 against 3000.0"), "{}", f[0].message);
        assert!(rule_log_waits_differ(&[&calm, &calm]).is_empty());
        // No log waits at all is a difference (nothing synced); no server time recorded is not.
        assert_eq!(rule_log_waits_differ(&[&hot, &calm]).len(), 1);
        assert!(rule_log_waits_differ(&[&run(4, &[]), &calm]).is_empty());
    }
}
