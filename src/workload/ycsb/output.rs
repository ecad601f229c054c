//! YCSB's block of figures after fairbench's summary, as YCSB's client
//! prints it at the end of a phase: `[OVERALL]` run time and throughput,
//! then per operation its count, average, minimum, maximum, the
//! percentiles of `hdrhistogram.percentiles` (95th and 99th by default)
//! and its return codes. The latencies are HDR-exact, each statement's
//! own (a read-modify-write's read and update count as a READ and an
//! UPDATE too, as in YCSB). With a target rate they are also given from
//! each operation's intended start (`[Intended-READ]`, YCSB's
//! measurement.interval=both), corrected for coordinated omission.

use super::config::{INSERT, OPS};
use super::{Phase, Ycsb};
use crate::model::{LevelResult, RunInfo, Sink};
use crate::output::StandardOutput;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct YcsbSink {
    console: Box<dyn Sink>,
    json: bool,
    phase: Phase,
    percentiles: Vec<f64>,
    interval: String,
    loaded: Arc<AtomicU64>,
    insert_errors: Arc<AtomicU64>,
    status: Option<Status>,
    /// The load's table and records, and where an interrupted load resumes.
    table: String,
    insertcount: u64,
    resume: Arc<std::sync::Mutex<Option<super::Resume>>>,
}

/// YCSB's status line (`-s`): every `status.interval` seconds, on stderr,
/// the operations so far, the rate since the last line and each
/// operation's figures over that time.
struct Status {
    every: f64,
    next: f64,
    ops: u64,
    since_ops: u64,
    since_t: f64,
    steps: Vec<crate::stats::KindWindow>,
}

/// Java's DecimalFormat("#.##"): at most two decimals, no trailing zeros.
fn two_decimals(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// One operation's part of a status line: `[READ: Count=.., Max=.., Min=..,
/// Avg=.., 90=.., 99=.., 99.9=.., 99.99=..]`.
pub fn status_part(name: &str, h: &Histogram<u64>) -> String {
    let q = |p: f64| h.value_at_quantile(p / 100.0);
    format!(
        "[{name}: Count={}, Max={}, Min={}, Avg={}, 90={}, 99={}, 99.9={}, 99.99={}]",
        h.len(),
        if h.is_empty() { 0 } else { h.max() },
        if h.is_empty() { 0 } else { h.min() },
        two_decimals(h.mean()),
        q(90.0),
        q(99.0),
        q(99.9),
        q(99.99)
    )
}

impl Status {
    fn new(every: f64) -> Status {
        Status { every, next: every, ops: 0, since_ops: 0, since_t: 0.0, steps: Vec::new() }
    }

    fn interval(&mut self, iv: &crate::model::Interval, ops: u64) {
        self.ops += ops;
        self.since_ops += ops;
        self.steps.resize_with(self.steps.len().max(iv.w.steps.len()), Default::default);
        for (acc, s) in self.steps.iter_mut().zip(&iv.w.steps) {
            acc.events += s.events;
            let _ = acc.lat.add(&s.lat);
        }
        if iv.t + 1e-6 < self.next {
            return;
        }
        let secs = (iv.t - self.since_t).max(1e-9);
        let when = crate::units::now_rfc3339().replace('T', " ").trim_end_matches('Z').replacen('.', ":", 1);
        let mut line = format!("{when} {} sec: {} operations; {} current ops/sec;", iv.t.round() as u64, self.ops, two_decimals(self.since_ops as f64 / secs));
        for (i, s) in self.steps.iter().enumerate() {
            if s.events > 0 {
                line.push(' ');
                line.push_str(&status_part(OPS.get(i).copied().unwrap_or("?"), &s.lat));
            }
        }
        eprintln!("{line}");
        self.steps.iter_mut().for_each(|s| *s = Default::default());
        self.since_ops = 0;
        self.since_t = iv.t;
        while self.next <= iv.t + 1e-6 {
            self.next += self.every;
        }
    }
}

impl YcsbSink {
    pub fn new(w: &Ycsb, json: bool, percentile: u32, standard: &dyn StandardOutput) -> YcsbSink {
        YcsbSink {
            console: standard.console(json, percentile),
            json,
            phase: w.phase,
            percentiles: w.cfg.percentiles.clone(),
            interval: w.cfg.measurement_interval.clone(),
            loaded: w.loaded.clone(),
            insert_errors: w.insert_errors.clone(),
            status: w.cfg.status.then(|| Status::new(w.cfg.status_interval)),
            table: w.cfg.table.clone(),
            insertcount: w.cfg.insertcount,
            resume: w.resume.clone(),
        }
    }
}

/// YCSB's name of a percentile: 95 -> `95th`, 99.9 -> `99.9th`, 1 -> `1st`.
pub fn ordinal(p: f64) -> String {
    let s = if p.fract() == 0.0 { format!("{}", p as u64) } else { format!("{p}") };
    let suffix = if s.contains('.') {
        "th"
    } else {
        let n = p as u64;
        match (n % 10, n % 100) {
            (1, x) if x != 11 => "st",
            (2, x) if x != 12 => "nd",
            (3, x) if x != 13 => "rd",
            _ => "th",
        }
    };
    format!("{s}{suffix}")
}

/// One operation's lines, YCSB's layout; `failed` of the `operations`
/// returned an error.
pub fn op_lines(name: &str, h: &Histogram<u64>, operations: u64, failed: u64, percentiles: &[f64]) -> Vec<String> {
    let mut v = vec![format!("[{name}], Operations, {operations}"), format!("[{name}], AverageLatency(us), {}", h.mean())];
    v.push(format!("[{name}], MinLatency(us), {}", if h.is_empty() { 0 } else { h.min() }));
    v.push(format!("[{name}], MaxLatency(us), {}", if h.is_empty() { 0 } else { h.max() }));
    for &p in percentiles {
        v.push(format!("[{name}], {}PercentileLatency(us), {}", ordinal(p), h.value_at_quantile(p / 100.0)));
    }
    v.push(format!("[{name}], Return=OK, {}", operations - failed.min(operations)));
    if failed > 0 {
        v.push(format!("[{name}], Return=ERROR, {failed}"));
    }
    v
}

impl YcsbSink {
    fn block(&self, r: &LevelResult) -> Vec<String> {
        let t = &r.total;
        let secs = r.elapsed_s.max(1e-9);
        let ops = match self.phase {
            Phase::Load => self.loaded.load(Ordering::Relaxed),
            Phase::Run => t.events,
        };
        let mut out = vec![format!("[OVERALL], RunTime(ms), {}", (r.elapsed_s * 1000.0).round() as u64), format!("[OVERALL], Throughput(ops/sec), {}", ops as f64 / secs)];
        let intended = r.rate > 0.0 && self.interval != "op";
        let op_latency = !(r.rate > 0.0 && self.interval == "intended");
        for (i, name) in OPS.iter().enumerate() {
            let Some(s) = t.steps.get(i).filter(|s| s.events > 0) else { continue };
            // A batched load: one statement carries many records.
            let n = if self.phase == Phase::Load { ops } else { s.events };
            let failed = if i == INSERT { self.insert_errors.load(Ordering::Relaxed) } else { 0 };
            if op_latency {
                out.extend(op_lines(name, &s.lat, n, failed, &self.percentiles));
            }
            if let Some(k) = t.kinds.get(i).filter(|k| intended && k.events > 0) {
                out.extend(op_lines(&format!("Intended-{name}"), &k.lat, k.events, failed, &self.percentiles));
            }
        }
        if t.errors > 0 {
            out.push(format!("[OVERALL], Errors(retried), {}", t.errors));
        }
        out
    }
}

impl Sink for YcsbSink {
    fn start(&mut self, threads: usize) {
        let resumed = self.resume.lock().unwrap_or_else(|e| e.into_inner()).as_ref().filter(|r| r.clients == threads && self.phase == Phase::Load).map(|r| r.held);
        if let Some(held) = resumed {
            let line = format!("{} holds {held} of the {} records this load inserts (a load that did not finish): inserting the rest.", self.table, self.insertcount);
            if self.json {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        }
        self.console.start(threads);
        self.loaded.store(0, Ordering::Relaxed);
        self.insert_errors.store(0, Ordering::Relaxed);
        if let Some(s) = self.status.as_mut() {
            *s = Status::new(s.every);
        }
    }

    fn interval(&mut self, iv: &crate::model::Interval, rate_mode: bool) {
        self.console.interval(iv, rate_mode);
        if let Some(s) = self.status.as_mut().filter(|_| !iv.warmup) {
            // A batched load's statement carries many records: YCSB counts records.
            let ops = match self.phase {
                Phase::Load => self.loaded.load(Ordering::Relaxed).saturating_sub(s.ops),
                Phase::Run => iv.w.events,
            };
            s.interval(iv, ops);
        }
    }

    fn checkpoint(&mut self, cp: &crate::model::Checkpoint) {
        self.console.checkpoint(cp);
    }

    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        self.console.summary(r, info);
        if self.json {
            return;
        }
        println!();
        for l in self.block(r) {
            println!("{l}");
        }
        let taken = self.insert_errors.load(Ordering::Relaxed);
        if taken > 0 {
            eprintln!(
                "note: {taken} inserts found their key taken: the table holds records past recordcount from an earlier run with inserts; load it again (cleanup, then load) for YCSB's key space"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_have_ycsb_fields() {
        let mut h = crate::stats::new_hist();
        for us in [100u64, 200, 300] {
            h.record(us).unwrap();
        }
        assert_eq!(status_part("READ", &h), "[READ: Count=3, Max=300, Min=100, Avg=200, 90=300, 99=300, 99.9=300, 99.99=300]");
        assert_eq!(two_decimals(1234.5), "1234.5");
        assert_eq!(two_decimals(12.0), "12");
        assert_eq!(two_decimals(0.126), "0.13");
    }

    #[test]
    fn percentiles_are_named_as_ycsb_names_them() {
        assert_eq!(ordinal(95.0), "95th");
        assert_eq!(ordinal(99.0), "99th");
        assert_eq!(ordinal(99.9), "99.9th");
        assert_eq!(ordinal(1.0), "1st");
        assert_eq!(ordinal(22.0), "22nd");
        assert_eq!(ordinal(13.0), "13th");
    }

    #[test]
    fn an_operation_has_ycsb_lines_with_exact_values() {
        let mut h = crate::stats::new_hist();
        for us in [100u64, 200, 300, 400, 10_000] {
            h.record(us).unwrap();
        }
        let l = op_lines("READ", &h, 5, 0, &[95.0, 99.0]);
        assert_eq!(l[0], "[READ], Operations, 5");
        assert!(l[1].starts_with("[READ], AverageLatency(us), 2"), "{}", l[1]);
        assert_eq!(l[2], "[READ], MinLatency(us), 100");
        assert!(l[4].starts_with("[READ], 95thPercentileLatency(us), 100"), "{}", l[4]);
        assert_eq!(l.last().unwrap(), "[READ], Return=OK, 5");
    }
}
