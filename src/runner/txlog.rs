//! pgbench's transaction logs (`--log`, pgbench's -l), for any workload: one file per worker
//! thread, named as pgbench names its threads' files (`PREFIX.PID`, then `PREFIX.PID.N`), with
//! a line per event or, with `--aggregate-interval`, a line per interval, in the fields pgbench
//! 15 writes, so that scripts which read pgbench's logs read these.

use crate::model::LogSpec;
use crate::rand::Rng;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How an event ended, as a log line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    Done,
    /// Out of tries; `deadlock` names its last error's kind.
    Failed {
        deadlock: bool,
    },
    /// Its arrival was already past `--latency-limit` when a client took it.
    Skipped,
}

/// One interval's sums, as pgbench aggregates them: successful events' latencies and lags in
/// µs; failures and skips counted apart.
#[derive(Clone, Copy, Debug, Default)]
struct Agg {
    start_s: u64,
    cnt: u64,
    sum: f64,
    sum2: f64,
    min: f64,
    max: f64,
    lag_sum: f64,
    lag_sum2: f64,
    lag_min: f64,
    lag_max: f64,
    skipped: u64,
    retried: u64,
    retries: u64,
    serialization: u64,
    deadlock: u64,
}

impl Agg {
    fn at(start_s: u64) -> Agg {
        Agg { start_s, ..Agg::default() }
    }
}

pub struct TxLog {
    out: BufWriter<File>,
    spec: LogSpec,
    rate_mode: bool,
    rng: Rng,
    agg: Option<Agg>,
}

/// The file of worker `worker`: pgbench's name for its thread of that number.
pub fn file_name(prefix: &str, worker: usize) -> String {
    let pid = std::process::id();
    if worker == 0 {
        format!("{prefix}.{pid}")
    } else {
        format!("{prefix}.{pid}.{worker}")
    }
}

fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_micros() as u64
}

impl TxLog {
    pub fn create(spec: &LogSpec, worker: usize, rate_mode: bool, seed: u64) -> std::io::Result<TxLog> {
        let out = BufWriter::with_capacity(64 * 1024, File::create(file_name(&spec.prefix, worker))?);
        let rng = Rng::from_seed_or_entropy(seed ^ 0x10c, worker as u64);
        let agg = (spec.aggregate_s > 0).then(|| Agg::at(now_us() / 1_000_000));
        Ok(TxLog { out, spec: spec.clone(), rate_mode, rng, agg })
    }

    /// One event of `client`, its `no`-th (from 1); `kind` is its script; latency and lag in µs;
    /// `tries` counts the first.
    #[allow(clippy::too_many_arguments)]
    pub fn event(&mut self, client: usize, no: u64, ended: Ended, kind: usize, latency_us: u64, lag_us: u64, tries: u32) {
        if self.spec.sampling < 1.0 && self.rng.uniform_double() > self.spec.sampling {
            return;
        }
        let now = now_us();
        let retries = tries.saturating_sub(1) as u64;
        if let Some(mut a) = self.agg {
            let every = self.spec.aggregate_s;
            while a.start_s + every <= now / 1_000_000 {
                self.write_agg(&a);
                a = Agg::at(a.start_s + every);
            }
            match ended {
                Ended::Done => {
                    let (l, g) = (latency_us as f64, lag_us as f64);
                    if a.cnt == 0 || l < a.min {
                        a.min = l;
                    }
                    if a.cnt == 0 || g < a.lag_min {
                        a.lag_min = g;
                    }
                    a.max = a.max.max(l);
                    a.lag_max = a.lag_max.max(g);
                    a.cnt += 1;
                    (a.sum, a.sum2) = (a.sum + l, a.sum2 + l * l);
                    (a.lag_sum, a.lag_sum2) = (a.lag_sum + g, a.lag_sum2 + g * g);
                }
                Ended::Failed { deadlock: true } => a.deadlock += 1,
                Ended::Failed { deadlock: false } => a.serialization += 1,
                Ended::Skipped => a.skipped += 1,
            }
            if retries > 0 {
                a.retried += 1;
                a.retries += retries;
            }
            self.agg = Some(a);
            return;
        }
        let what = match ended {
            Ended::Done => latency_us.to_string(),
            Ended::Skipped => "skipped".into(),
            Ended::Failed { .. } if !self.spec.failures_detailed => "failed".into(),
            Ended::Failed { deadlock: true } => "deadlock".into(),
            Ended::Failed { deadlock: false } => "serialization".into(),
        };
        let _ = write!(self.out, "{client} {no} {what} {kind} {} {}", now / 1_000_000, now % 1_000_000);
        if self.rate_mode {
            let _ = write!(self.out, " {}", if ended == Ended::Done { lag_us } else { 0 });
        }
        if self.spec.max_tries != 1 {
            let _ = write!(self.out, " {retries}");
        }
        let _ = self.out.write_all(b"\n");
    }

    /// pgbench's aggregate line: the lag sums are 0 outside rate mode, skips 0 without a latency
    /// limit, retries 0 with one try, failures by kind 0 unless `--failures-detailed`.
    fn write_agg(&mut self, a: &Agg) {
        let lag = if self.rate_mode { (a.lag_sum, a.lag_sum2, a.lag_min, a.lag_max) } else { (0.0, 0.0, 0.0, 0.0) };
        let skipped = if self.spec.latency_limit { a.skipped } else { 0 };
        let (retried, retries) = if self.spec.max_tries != 1 { (a.retried, a.retries) } else { (0, 0) };
        let (ser, dead) = if self.spec.failures_detailed { (a.serialization, a.deadlock) } else { (0, 0) };
        let _ = writeln!(
            self.out,
            "{} {} {:.0} {:.0} {:.0} {:.0} {:.0} {:.0} {:.0} {:.0} {skipped} {retried} {retries} {ser} {dead}",
            a.start_s, a.cnt, a.sum, a.sum2, a.min, a.max, lag.0, lag.1, lag.2, lag.3
        );
    }

    /// The last interval, complete or not, then the file's buffer.
    fn finish(&mut self) {
        if let Some(a) = self.agg.take() {
            if a.cnt + a.skipped + a.serialization + a.deadlock > 0 {
                self.write_agg(&a);
            }
        }
        let _ = self.out.flush();
    }
}

impl Drop for TxLog {
    fn drop(&mut self) {
        self.finish();
    }
}
