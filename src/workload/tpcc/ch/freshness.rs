//! The analytic side's freshness. The TPC-C clients note when each
//! New-Order committed; an analytic query reads every district's next
//! order id in the snapshot it runs in, so the newest order it saw in each
//! district is known, and when that order committed. Two figures per query:
//! how old the newest order it saw was when it began, and how long the
//! oldest order it missed had been committed (0 when it saw every order
//! committed before it began: a replica's lag shows here).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

/// Commits kept per district: enough for minutes of lag at the rates one
/// district sustains (its New-Orders serialize on its row).
const KEPT: usize = 4096;

/// When the recent New-Orders of every district committed.
pub struct CommitLog {
    warehouses: u32,
    districts: Vec<Mutex<VecDeque<(i64, Instant)>>>,
}

impl CommitLog {
    pub fn new(datasets: u32, warehouses: u32) -> CommitLog {
        CommitLog { warehouses, districts: (0..datasets as usize * warehouses as usize * 10).map(|_| Mutex::new(VecDeque::new())).collect() }
    }

    fn slot(&self, ds: u32, w: i64, d: i64) -> Option<&Mutex<VecDeque<(i64, Instant)>>> {
        let i = (ds as i64 - 1) * self.warehouses as i64 * 10 + (w - 1) * 10 + (d - 1);
        usize::try_from(i).ok().and_then(|i| self.districts.get(i))
    }

    /// Order `o_id` of district (`ds`, `w`, `d`) has committed now.
    pub fn committed(&self, ds: u32, w: i64, d: i64, o_id: i64) {
        self.record(ds, w, d, o_id, Instant::now());
    }

    fn record(&self, ds: u32, w: i64, d: i64, o_id: i64, at: Instant) {
        let Some(slot) = self.slot(ds, w, d) else { return };
        let mut q = slot.lock().unwrap_or_else(|e| e.into_inner());
        if q.len() == KEPT {
            q.pop_front();
        }
        q.push_back((o_id, at));
    }

    fn when(&self, ds: u32, w: i64, d: i64, o_id: i64) -> Option<Instant> {
        let q = self.slot(ds, w, d)?.lock().unwrap_or_else(|e| e.into_inner());
        // Commits come nearly in order: the one asked for is near the end.
        q.iter().rev().find(|(o, _)| *o == o_id).map(|(_, t)| *t)
    }

    /// What a query that began at `began` saw, given each district's next
    /// order id in its snapshot as (warehouse, district, next id): the age
    /// of the newest order seen and the time the oldest missed one had been
    /// committed, in milliseconds. None when no order it saw committed
    /// during the run (the loaded orders have no commit time).
    pub fn sample(&self, ds: u32, began: Instant, next_ids: &[(i64, i64, i64)]) -> Option<Sample> {
        let mut newest: Option<Instant> = None;
        let mut missed_ms: f64 = 0.0;
        for &(w, d, next) in next_ids {
            if let Some(t) = self.when(ds, w, d, next - 1) {
                newest = Some(newest.map_or(t, |n| n.max(t)));
            }
            if let Some(t) = self.when(ds, w, d, next) {
                if t <= began {
                    missed_ms = missed_ms.max(began.duration_since(t).as_secs_f64() * 1e3);
                }
            }
        }
        newest.map(|t| Sample { age_ms: began.saturating_duration_since(t).as_secs_f64() * 1e3, missed_ms })
    }
}

/// One analytic query's freshness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub age_ms: f64,
    pub missed_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A query that saw every order committed before it began missed
    /// nothing; one whose snapshot lacks a committed order reports how long
    /// that order had been committed.
    #[test]
    fn a_snapshot_behind_the_commits_reports_the_lag() {
        let log = CommitLog::new(1, 2);
        let began = Instant::now();
        log.record(1, 1, 3, 3001, began - Duration::from_millis(10));
        log.record(1, 1, 3, 3002, began - Duration::from_millis(4));
        let ms = |s: Sample| (s.age_ms.round(), s.missed_ms.round());
        assert_eq!(ms(log.sample(1, began, &[(1, 3, 3003)]).unwrap()), (4.0, 0.0), "saw every order");
        assert_eq!(ms(log.sample(1, began, &[(1, 3, 3002)]).unwrap()), (10.0, 4.0), "missed 3002, committed 4 ms before");
        log.committed(1, 1, 3, 3003);
        assert_eq!(ms(log.sample(1, began, &[(1, 3, 3003)]).unwrap()), (4.0, 0.0), "3003 committed after the query began: not missed");
        assert_eq!(log.sample(1, began, &[(2, 1, 3001)]), None, "no commit seen in that district");
        assert_eq!(log.sample(1, began, &[(9, 1, 3001)]), None, "a warehouse beyond the log");
    }
}
