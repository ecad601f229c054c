//! Measurement: per-worker windows of counters and HDR histograms.
//!
//! Each worker thread records into its own [`Window`]; once per report
//! interval the window is swapped out and sent to the reporter, which merges
//! the windows of all workers. HDR histograms merge exactly, so merged
//! percentiles are as exact as per-worker ones, and no lock or atomic is
//! touched per query.

pub mod changepoint;
pub mod gaps;
pub mod significance;

use hdrhistogram::Histogram;
use std::collections::BTreeMap;

/// Latencies are recorded in microseconds, 3 significant digits, up to 1 h.
pub const HIST_MAX_US: u64 = 3_600_000_000;

pub fn new_hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIST_MAX_US, 3).expect("valid histogram bounds")
}

/// A histogram that holds nothing and takes a few bytes (for intervals
/// whose latencies were reported already).
pub fn empty_hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 2, 0).expect("valid histogram bounds")
}

/// Counts of one interval (or of a whole run, once merged).
#[derive(Clone, Debug)]
pub struct Window {
    pub events: u64,
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    /// Retryable errors (each restarted an event).
    pub errors: u64,
    pub reconnects: u64,
    /// Of `reconnects`, those made on purpose between events, not after a
    /// lost connection (a TLS 1.2 session renewed before its record limit).
    pub planned_reconnects: u64,
    /// Error counts by engine code ("1213", "40001", "SQLITE_BUSY", "lost").
    pub errors_by_code: BTreeMap<String, u64>,
    /// Event latency. In rate mode: from the intended start (corrected).
    pub lat: Histogram<u64>,
    /// Rate mode only: from the actual start (uncorrected).
    pub lat_raw: Histogram<u64>,
    /// Rate mode: arrivals dropped because the queue was full.
    pub dropped: u64,
    /// Rate mode: events waiting at the end of the interval.
    pub queue_len: u64,
    /// Rate mode: clients busy at the end of the interval.
    pub busy: u64,
    /// BEGIN/COMMIT/ROLLBACK issued (to report QPS without them).
    pub trx_stmts: u64,
    /// Per event kind (TPC-C transactions); empty for uniform workloads.
    pub kinds: Vec<KindWindow>,
    /// Per statement kind, for workloads that time statements one by one
    /// (`events` counts statements); empty otherwise.
    pub steps: Vec<KindWindow>,
    /// Events per host of a target that lists several (cluster nodes), in
    /// the target's order; empty with one host.
    pub per_host: Vec<u64>,
    /// The clients' gaps without a completed event (see [`gaps`]); the
    /// reporter takes them out of each window as it arrives.
    pub gaps: gaps::GapLog,
    /// Events retried, given up (`--max-tries`), late or skipped (`--latency-limit`).
    pub tries: Tries,
    /// Rate mode: the longest wait of an arrival for a free client, in µs (pgbench's lag).
    pub lag_max_us: u64,
    /// Microseconds spent in reconnects between events (`--reconnect`, pgbench's -C).
    pub reconnect_us: u64,
}

/// What became of the events that did not simply succeed on their first try, as pgbench counts
/// them: an event restarted after a serialization failure or a deadlock is retried (once, however
/// many times it was restarted: those are the retries); one that ran out of tries failed and is
/// not in the latencies; one slower than `--latency-limit` is late; one whose arrival was already
/// later than the limit when a client took it was skipped without being sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tries {
    pub retried: u64,
    pub retries: u64,
    pub failed: u64,
    /// Of `failed`, those whose last error was a deadlock (the rest: serialization failures).
    pub failed_deadlock: u64,
    pub late: u64,
    pub skipped: u64,
}

impl Tries {
    pub fn add(&mut self, o: &Tries) {
        self.retried += o.retried;
        self.retries += o.retries;
        self.failed += o.failed;
        self.failed_deadlock += o.failed_deadlock;
        self.late += o.late;
        self.skipped += o.skipped;
    }
}

/// Counts of one kind of event.
#[derive(Clone, Debug)]
pub struct KindWindow {
    pub events: u64,
    /// Events that ended in a rollback the workload intended.
    pub rollbacks: u64,
    /// Retryable errors that restarted an event of this kind.
    pub retries: u64,
    /// Events of this kind given up after `--max-tries`.
    pub failed: u64,
    /// Events of this kind restarted at least once (whatever became of them).
    pub retried: u64,
    /// Of `failed`, those whose last error was a deadlock.
    pub failed_deadlock: u64,
    /// Arrivals dealt this kind and skipped, already later than `--latency-limit`.
    pub skipped: u64,
    pub lat: Histogram<u64>,
}

impl KindWindow {
    /// Every count back to zero, the histogram emptied but kept (no interval allocates one).
    /// Taken apart field by field, so that a count added to the kind cannot be left out.
    pub fn clear(&mut self) {
        let KindWindow { events, rollbacks, retries, failed, retried, failed_deadlock, skipped, lat } = self;
        lat.reset();
        for n in [events, rollbacks, retries, failed, retried, failed_deadlock, skipped] {
            *n = 0;
        }
    }

    /// Another window's counts of the same kind (histograms merge exactly).
    pub fn add(&mut self, b: &KindWindow) {
        self.events += b.events;
        self.rollbacks += b.rollbacks;
        self.retries += b.retries;
        self.failed += b.failed;
        self.retried += b.retried;
        self.failed_deadlock += b.failed_deadlock;
        self.skipped += b.skipped;
        let _ = self.lat.add(&b.lat);
    }
}

impl Default for KindWindow {
    fn default() -> Self {
        KindWindow { events: 0, rollbacks: 0, retries: 0, failed: 0, retried: 0, failed_deadlock: 0, skipped: 0, lat: new_hist() }
    }
}

impl Default for Window {
    fn default() -> Self {
        Window { lat: new_hist(), lat_raw: new_hist(), ..Window::counts_only() }
    }
}

impl Window {
    /// A window for counters alone, as [`compact`](Self::compact) leaves
    /// one: its histograms are small and empty, so one per logged interval
    /// costs little (`fairbench merge` adds each interval's latencies into
    /// it as they are decoded).
    pub fn counts_only() -> Window {
        Window {
            events: 0,
            reads: 0,
            writes: 0,
            other: 0,
            errors: 0,
            reconnects: 0,
            planned_reconnects: 0,
            errors_by_code: BTreeMap::new(),
            lat: empty_hist(),
            lat_raw: empty_hist(),
            dropped: 0,
            queue_len: 0,
            busy: 0,
            trx_stmts: 0,
            kinds: Vec::new(),
            steps: Vec::new(),
            per_host: Vec::new(),
            gaps: gaps::GapLog::default(),
            tries: Tries::default(),
            lag_max_us: 0,
            reconnect_us: 0,
        }
    }

    pub fn queries(&self) -> u64 {
        self.reads + self.writes + self.other
    }

    pub fn record(&mut self, corrected_us: u64, raw_us: u64, rate_mode: bool) {
        self.events += 1;
        self.lat.saturating_record(corrected_us.max(1));
        if rate_mode {
            self.lat_raw.saturating_record(raw_us.max(1));
        }
    }

    /// Per-kind accounting for workloads with several event kinds.
    pub fn record_kind(&mut self, kind: usize, us: u64, rolled_back: bool) {
        if self.kinds.len() <= kind {
            self.kinds.resize_with(kind + 1, KindWindow::default);
        }
        let k = &mut self.kinds[kind];
        k.events += 1;
        k.rollbacks += u64::from(rolled_back);
        k.lat.saturating_record(us.max(1));
    }

    /// One statement of kind `step` took `us` microseconds.
    pub fn record_step(&mut self, step: usize, us: u64) {
        if self.steps.len() <= step {
            self.steps.resize_with(step + 1, KindWindow::default);
        }
        let k = &mut self.steps[step];
        k.events += 1;
        k.lat.saturating_record(us.max(1));
    }

    /// An error came at statement `step`: it failed the event (`give_up`) or restarted it.
    pub fn count_step_error(&mut self, step: usize, give_up: bool) {
        if self.steps.len() <= step {
            self.steps.resize_with(step + 1, KindWindow::default);
        }
        if give_up {
            self.steps[step].failed += 1;
        } else {
            self.steps[step].retries += 1;
        }
    }

    /// An event completed on host `host` of `hosts` (a cluster's node).
    pub fn count_host(&mut self, host: usize, hosts: usize) {
        if self.per_host.len() < hosts {
            self.per_host.resize(hosts, 0);
        }
        self.per_host[host] += 1;
    }

    /// A retryable error restarted an event of `kind`.
    /// An event of `kind` restarted; `first`: for the first time.
    pub fn count_kind_retry(&mut self, kind: usize, first: bool) {
        if self.kinds.len() <= kind {
            self.kinds.resize_with(kind + 1, KindWindow::default);
        }
        self.kinds[kind].retries += 1;
        self.kinds[kind].retried += u64::from(first);
    }

    /// An event of `kind` was given up after its last try; `deadlock`: its last error was one.
    pub fn count_kind_failed(&mut self, kind: usize, deadlock: bool) {
        if self.kinds.len() <= kind {
            self.kinds.resize_with(kind + 1, KindWindow::default);
        }
        self.kinds[kind].failed += 1;
        self.kinds[kind].failed_deadlock += u64::from(deadlock);
    }

    /// An arrival of `kind` skipped, already later than `--latency-limit`.
    pub fn count_kind_skipped(&mut self, kind: usize) {
        if self.kinds.len() <= kind {
            self.kinds.resize_with(kind + 1, KindWindow::default);
        }
        self.kinds[kind].skipped += 1;
    }

    /// Drops what an interval no longer needs once every sink has seen it:
    /// its latency histograms (about 190 KB each at 1 h and 3 digits) and
    /// its per-kind and per-statement windows. The run keeps its intervals
    /// to the end, so a 24-hour run at one per second would otherwise hold
    /// tens of GB; the counters stay.
    pub fn compact(&mut self) {
        self.lat = empty_hist();
        self.lat_raw = empty_hist();
        self.kinds = Vec::new();
        self.steps = Vec::new();
        self.gaps = gaps::GapLog::default();
    }

    /// Empty again, as a new window, its histograms kept: a window a worker fills is handed
    /// back to it once merged, so no interval allocates the 190 KB each histogram takes (freed
    /// and allocated afresh every interval, they fragmented the heap: 2 MB in half a minute at
    /// 200 intervals a second). Event kinds and steps stay, empty, for the same reason.
    pub fn reset(&mut self) {
        let (lat, lat_raw, mut kinds, mut steps, mut per_host) = (
            std::mem::replace(&mut self.lat, empty_hist()),
            std::mem::replace(&mut self.lat_raw, empty_hist()),
            std::mem::take(&mut self.kinds),
            std::mem::take(&mut self.steps),
            std::mem::take(&mut self.per_host),
        );
        *self = Window { lat, lat_raw, ..Window::counts_only() };
        self.lat.reset();
        self.lat_raw.reset();
        for k in kinds.iter_mut().chain(steps.iter_mut()) {
            k.clear();
        }
        per_host.iter_mut().for_each(|n| *n = 0);
        (self.kinds, self.steps, self.per_host) = (kinds, steps, per_host);
    }

    /// Its counters alone, as [`compact`](Self::compact) would leave it, `self` left whole.
    pub fn counters(&self) -> Window {
        Window {
            events: self.events,
            reads: self.reads,
            writes: self.writes,
            other: self.other,
            errors: self.errors,
            reconnects: self.reconnects,
            planned_reconnects: self.planned_reconnects,
            errors_by_code: self.errors_by_code.clone(),
            dropped: self.dropped,
            queue_len: self.queue_len,
            busy: self.busy,
            trx_stmts: self.trx_stmts,
            per_host: self.per_host.clone(),
            tries: self.tries,
            lag_max_us: self.lag_max_us,
            reconnect_us: self.reconnect_us,
            ..Window::counts_only()
        }
    }

    pub fn count_error(&mut self, code: &str) {
        self.errors += 1;
        *self.errors_by_code.entry(code.to_string()).or_default() += 1;
    }

    /// Add another window's counts (histograms merge exactly).
    pub fn merge(&mut self, o: &Window) {
        self.events += o.events;
        self.reads += o.reads;
        self.writes += o.writes;
        self.other += o.other;
        self.errors += o.errors;
        self.reconnects += o.reconnects;
        self.planned_reconnects += o.planned_reconnects;
        for (k, v) in &o.errors_by_code {
            *self.errors_by_code.entry(k.clone()).or_default() += v;
        }
        let _ = self.lat.add(&o.lat);
        let _ = self.lat_raw.add(&o.lat_raw);
        self.dropped += o.dropped;
        self.queue_len += o.queue_len;
        self.busy += o.busy;
        self.trx_stmts += o.trx_stmts;
        self.tries.add(&o.tries);
        self.lag_max_us = self.lag_max_us.max(o.lag_max_us);
        self.reconnect_us += o.reconnect_us;
        if self.kinds.len() < o.kinds.len() {
            self.kinds.resize_with(o.kinds.len(), KindWindow::default);
        }
        for (a, b) in self.kinds.iter_mut().zip(&o.kinds) {
            a.add(b);
        }
        if self.steps.len() < o.steps.len() {
            self.steps.resize_with(o.steps.len(), KindWindow::default);
        }
        for (a, b) in self.steps.iter_mut().zip(&o.steps) {
            a.add(b);
        }
        if self.per_host.len() < o.per_host.len() {
            self.per_host.resize(o.per_host.len(), 0);
        }
        for (a, b) in self.per_host.iter_mut().zip(&o.per_host) {
            *a += b;
        }
        if !o.gaps.is_empty() {
            self.gaps.merge(&o.gaps);
        }
    }

    /// Latency percentile in milliseconds (0 when nothing was recorded).
    pub fn pct_ms(&self, p: f64) -> f64 {
        pct_ms(&self.lat, p)
    }
}

pub fn pct_ms(h: &Histogram<u64>, p: f64) -> f64 {
    if h.is_empty() {
        return 0.0;
    }
    h.value_at_quantile(p / 100.0) as f64 / 1000.0
}

/// sysbench's latency histogram: 1024 buckets on a log scale from 0.001 ms
/// to 100000 ms (`sb_histogram.c`). A value lands in the bucket whose
/// log-scale position is nearest; values outside the range are clamped.
pub mod sb_hist {
    use hdrhistogram::Histogram;

    pub const BUCKETS: usize = 1024;
    const MIN_MS: f64 = 1e-3;
    const MAX_MS: f64 = 1e5;

    fn mult() -> f64 {
        (BUCKETS - 1) as f64 / (MAX_MS.ln() - MIN_MS.ln())
    }

    /// The bucket of a latency in milliseconds.
    pub fn bucket(ms: f64) -> usize {
        let ms = ms.clamp(MIN_MS, MAX_MS);
        (((ms.ln() - MIN_MS.ln()) * mult() + 0.5).floor() as usize).min(BUCKETS - 1)
    }

    /// The value sysbench prints for bucket `i`, in milliseconds.
    pub fn value(i: usize) -> f64 {
        (i as f64 / mult() + MIN_MS.ln()).exp()
    }

    /// The counts of a microsecond HDR histogram in sysbench's buckets:
    /// each recorded value (the middle of its HDR bucket) goes whole into
    /// one bucket, so the counts add up to the histogram's.
    pub fn counts(h: &Histogram<u64>) -> Vec<u64> {
        let mut c = vec![0u64; BUCKETS];
        for v in h.iter_recorded() {
            let us = h.median_equivalent(v.value_iterated_to());
            c[bucket(us as f64 / 1000.0)] += v.count_at_value();
        }
        c
    }
}

/// Per-client totals, for sysbench's "threads fairness" block.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientTotals {
    pub events: u64,
    /// Time spent inside events, seconds.
    pub busy_s: f64,
}

/// Mean and population standard deviation.
pub fn mean_stddev(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// CPU used by this process (user, system), seconds.
pub fn process_cpu() -> (f64, f64) {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    (t(ru.ru_utime), t(ru.ru_stime))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_is_exact() {
        let mut a = Window::default();
        let mut b = Window::default();
        for v in 1..=500 {
            a.record(v, v, false);
        }
        for v in 501..=1000 {
            b.record(v, v, false);
        }
        a.reads = 3;
        b.reads = 4;
        a.merge(&b);
        assert_eq!(a.events, 1000);
        assert_eq!(a.reads, 7);
        assert!((a.pct_ms(50.0) - 0.5).abs() < 0.001);
        assert!((a.pct_ms(99.0) - 0.99).abs() < 0.002);
    }

    /// Skipped arrivals of a kind were counted again in every later interval: the interval's
    /// reset zeroed the kinds' counts one by one, and missed the one added last.
    #[test]
    fn window_reset_clears_every_kind_count() {
        let mut w = Window::default();
        w.count_kind_skipped(1);
        w.count_kind_failed(1, true);
        w.count_kind_retry(0, true);
        w.record_step(0, 100);
        w.reset();
        for k in w.kinds.iter().chain(&w.steps) {
            assert_eq!((k.events, k.rollbacks, k.retries, k.failed, k.retried, k.failed_deadlock, k.skipped, k.lat.len()), (0, 0, 0, 0, 0, 0, 0, 0));
        }
        assert_eq!(w.kinds.len(), 2, "the kinds stay, empty");
    }

    /// Statement windows merge like the event ones: counts add, and a
    /// worker that never timed a kind still merges with one that did.
    #[test]
    fn statement_windows_merge() {
        let mut a = Window::default();
        let mut b = Window::default();
        a.record_step(0, 100);
        b.record_step(0, 300);
        b.record_step(2, 50);
        a.merge(&b);
        assert_eq!(a.steps.iter().map(|k| k.events).collect::<Vec<_>>(), vec![2, 0, 1]);
        assert_eq!(a.steps[0].lat.max(), 300);
    }

    /// sysbench's bucket formula: 0.001 ms is bucket 0, 100000 ms the last,
    /// and a bucket's printed value lands back in that bucket.
    #[test]
    fn sysbench_buckets() {
        assert_eq!(sb_hist::bucket(0.001), 0);
        assert_eq!(sb_hist::bucket(0.0001), 0);
        assert_eq!(sb_hist::bucket(1e5), 1023);
        assert_eq!(sb_hist::bucket(1e9), 1023);
        for i in [0, 1, 100, 511, 1000, 1023] {
            assert_eq!(sb_hist::bucket(sb_hist::value(i)), i);
        }
        // sysbench prints 1.0 ms as 1.007 (bucket 384).
        assert_eq!(sb_hist::bucket(1.0), 384);
        assert_eq!(format!("{:.3}", sb_hist::value(384)), "1.007");
        let mut w = Window::default();
        for us in [20, 21, 21, 4000, 100_000] {
            w.record(us, us, false);
        }
        let c = sb_hist::counts(&w.lat);
        assert_eq!(c.iter().sum::<u64>(), 5);
        assert_eq!(c[sb_hist::bucket(0.021)], 2);
    }

    #[test]
    fn stddev() {
        let (m, s) = mean_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(m, 5.0);
        assert_eq!(s, 2.0);
    }
}
