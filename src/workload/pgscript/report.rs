//! pgbench's own output, line for line (`--pgbench-output`, which `fairbench pgbench` sets):
//! progress lines on stderr in place of the sysbench-style ones, and after fairbench's summary
//! the report pgbench 15 prints, from the same counts. Scripts that read pgbench's output read
//! these lines; the figures are fairbench's measurements.

use crate::model::{Interval, LevelResult, RunInfo, Sink};
use crate::stats::Window;
use hdrhistogram::Histogram;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The run's settings the report names, as the command line gave them.
#[derive(Clone, Debug, Default)]
pub struct ReportSpec {
    pub max_tries: u32,
    pub latency_limit_ms: Option<f64>,
    pub rate: f64,
    /// -P given: latencies are measured one by one, and their average and deviation printed.
    pub progress: bool,
    pub progress_timestamp: bool,
    /// -T, in whole seconds; None under -t.
    pub duration_s: Option<u64>,
    /// -t: transactions per client.
    pub per_client: u64,
    pub threads: usize,
    pub failures_detailed: bool,
    /// -C: a connection per transaction.
    pub connect: bool,
}

/// What the workload learns once connected: the scale and the accounts' partitioning.
#[derive(Clone, Debug, Default)]
pub struct Found {
    pub scale: i64,
    /// (method, partitions) when pgbench_accounts is partitioned.
    pub partitions: Option<(String, u32)>,
}

/// pgbench's description of a script: its own for a built-in, the file name for a file.
pub fn describe(path: &str) -> String {
    match path.strip_prefix("builtin:") {
        Some("tpcb-like") => "<builtin: TPC-B (sort of)>".into(),
        Some("simple-update") => "<builtin: simple update>".into(),
        Some("select-only") => "<builtin: select only>".into(),
        Some(other) => format!("<builtin: {other}>"),
        None => path.to_string(),
    }
}

pub struct PgbenchSink {
    pub standard: Box<dyn Sink>,
    pub spec: ReportSpec,
    /// (description, weight) of each script.
    pub scripts: Vec<(String, u32)>,
    /// `-r`: each script's commands as (step, as shown).
    pub commands: Option<Vec<Vec<(usize, String)>>>,
    pub query_mode: &'static str,
    pub found: Arc<Mutex<Found>>,
}

fn ms(us: f64) -> f64 {
    us / 1000.0
}

/// Mean and standard deviation of a histogram of µs, in ms; zeros when empty.
fn mean_sd(h: &Histogram<u64>) -> (f64, f64) {
    if h.is_empty() {
        (0.0, 0.0)
    } else {
        (ms(h.mean()), ms(h.stdev()))
    }
}

/// The mean wait of an arrival for a client, in ms: corrected minus uncorrected latency.
fn lag_ms(w: &Window) -> f64 {
    if w.lat.is_empty() || w.lat_raw.is_empty() {
        0.0
    } else {
        ms((w.lat.mean() - w.lat_raw.mean()).max(0.0))
    }
}

fn pct(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

impl PgbenchSink {
    /// pgbench's progress line for one interval.
    pub fn progress_line(&self, iv: &Interval) -> String {
        let w = &iv.w;
        let when = if self.spec.progress_timestamp {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
            format!("{now:.3} s")
        } else {
            format!("{:.1} s", iv.t)
        };
        let (lat, sd) = mean_sd(&w.lat);
        let mut s = format!("progress: {when}, {:.1} tps, lat {lat:.3} ms stddev {sd:.3}, {} failed", w.events as f64 / iv.secs.max(1e-9), w.tries.failed);
        if self.spec.rate > 0.0 {
            s.push_str(&format!(", lag {:.3} ms", lag_ms(w)));
            if self.spec.latency_limit_ms.is_some() {
                s.push_str(&format!(", {} skipped", w.tries.skipped));
            }
        }
        if self.spec.max_tries != 1 {
            s.push_str(&format!(", {} retried, {} retries", w.tries.retried, w.tries.retries));
        }
        s
    }

    /// pgbench's report of a level.
    pub fn report(&self, r: &LevelResult) -> String {
        let sp = &self.spec;
        let t = &r.total;
        let tr = &t.tries;
        let found = self.found.lock().map(|f| f.clone()).unwrap_or_default();
        let cnt = t.events;
        let failures = tr.failed;
        let total_cnt = cnt + tr.skipped + failures;
        let secs = r.elapsed_s.max(1e-9);
        let mut out = Vec::new();
        let mut p = |l: String| out.push(l);
        p(format!("transaction type: {}", if self.scripts.len() == 1 { self.scripts[0].0.clone() } else { "multiple scripts".into() }));
        p(format!("scaling factor: {}", found.scale));
        if let Some((method, n)) = &found.partitions {
            p(format!("partition method: {method}"));
            p(format!("partitions: {n}"));
        }
        p(format!("query mode: {}", self.query_mode));
        p(format!("number of clients: {}", r.threads));
        p(format!("number of threads: {}", sp.threads));
        if sp.max_tries > 0 {
            p(format!("maximum number of tries: {}", sp.max_tries));
        }
        match sp.duration_s {
            None => {
                p(format!("number of transactions per client: {}", sp.per_client));
                p(format!("number of transactions actually processed: {cnt}/{}", sp.per_client * r.threads as u64));
            }
            Some(d) => {
                p(format!("duration: {d} s"));
                p(format!("number of transactions actually processed: {cnt}"));
            }
        }
        if total_cnt > 0 {
            p(format!("number of failed transactions: {failures} ({:.3}%)", pct(failures, total_cnt)));
            if sp.failures_detailed {
                let ser = failures - tr.failed_deadlock;
                p(format!("number of serialization failures: {ser} ({:.3}%)", pct(ser, total_cnt)));
                p(format!("number of deadlock failures: {} ({:.3}%)", tr.failed_deadlock, pct(tr.failed_deadlock, total_cnt)));
            }
            if sp.max_tries != 1 {
                p(format!("number of transactions retried: {} ({:.3}%)", tr.retried, pct(tr.retried, total_cnt)));
                p(format!("total number of retries: {}", tr.retries));
            }
            if sp.rate > 0.0 && sp.latency_limit_ms.is_some() {
                p(format!("number of transactions skipped: {} ({:.3}%)", tr.skipped, pct(tr.skipped, total_cnt)));
            }
            if let Some(l) = sp.latency_limit_ms {
                p(format!("number of transactions above the {l:.1} ms latency limit: {}/{cnt} ({:.3}%)", tr.late, pct(tr.late, cnt)));
            }
            if sp.rate > 0.0 || sp.progress || sp.latency_limit_ms.is_some() {
                let (avg, sd) = mean_sd(&t.lat);
                if cnt > 0 {
                    p(format!("latency average = {avg:.3} ms"));
                    p(format!("latency stddev = {sd:.3} ms"));
                }
            } else {
                // pgbench's figure when it did not time each transaction: the run's time per
                // transaction and client, failures included.
                let avg = 1000.0 * secs * r.threads as f64 / total_cnt as f64;
                p(format!("latency average = {avg:.3} ms{}", if failures > 0 { " (including failures)" } else { "" }));
            }
            if sp.rate > 0.0 && cnt > 0 {
                p(format!("rate limit schedule lag: avg {:.3} (max {:.3}) ms", lag_ms(t), ms(t.lag_max_us as f64)));
            }
            if sp.connect {
                p(format!("average connection time = {:.3} ms", ms(t.reconnect_us as f64) / (cnt + failures).max(1) as f64));
                p(format!("tps = {:.6} (including reconnection times)", cnt as f64 / secs));
            } else {
                p(format!("initial connection time = {:.3} ms", r.connect_s * 1000.0));
                p(format!("tps = {:.6} (without initial connection time)", cnt as f64 / secs));
            }
            if self.scripts.len() > 1 {
                let total_weight: u32 = self.scripts.iter().map(|s| s.1).sum();
                for (i, (desc, weight)) in self.scripts.iter().enumerate() {
                    let k = t.kinds.get(i);
                    let (n, failed, skipped) = k.map(|k| (k.events, k.failed, k.skipped)).unwrap_or((0, 0, 0));
                    let all = n + failed + skipped;
                    p(format!("SQL script {}: {desc}", i + 1));
                    p(format!(" - weight: {weight} (targets {:.1}% of total)", pct(*weight as u64, total_weight as u64)));
                    p(format!(" - {n} transactions ({:.1}% of total, tps = {:.6})", pct(n, cnt), n as f64 / secs));
                    if all > 0 {
                        p(format!(" - number of failed transactions: {failed} ({:.3}%)", pct(failed, all)));
                        if sp.failures_detailed {
                            let dead = k.map(|k| k.failed_deadlock).unwrap_or(0);
                            p(format!(" - number of serialization failures: {} ({:.3}%)", failed - dead, pct(failed - dead, all)));
                            p(format!(" - number of deadlock failures: {dead} ({:.3}%)", pct(dead, all)));
                        }
                        if sp.max_tries != 1 {
                            let (retried, retries) = k.map(|k| (k.retried, k.retries)).unwrap_or((0, 0));
                            p(format!(" - number of transactions retried: {retried} ({:.3}%)", pct(retried, all)));
                            p(format!(" - total number of retries: {retries}"));
                        }
                        if sp.rate > 0.0 && sp.latency_limit_ms.is_some() {
                            p(format!(" - number of transactions skipped: {skipped} ({:.3}%)", pct(skipped, all)));
                        }
                    }
                    if let Some(k) = k.filter(|k| !k.lat.is_empty()) {
                        let (avg, sd) = mean_sd(&k.lat);
                        p(format!(" - latency average = {avg:.3} ms"));
                        p(format!(" - latency stddev = {sd:.3} ms"));
                    }
                    self.per_command(i, " - ", t, &mut p);
                }
            } else {
                self.per_command(0, "", t, &mut p);
            }
        }
        let mut s = out.join("\n");
        s.push('\n');
        s
    }
}

impl PgbenchSink {
    /// pgbench's `-r` lines for script `i`: each command's mean latency, its failures and, with
    /// retries allowed, its retries.
    fn per_command(&self, i: usize, prefix: &str, t: &Window, p: &mut dyn FnMut(String)) {
        let Some(cmds) = self.commands.as_ref().and_then(|c| c.get(i)) else { return };
        let retries = self.spec.max_tries != 1;
        p(format!("{prefix}statement latencies in milliseconds{}:", if retries { ", failures and retries" } else { " and failures" }));
        for (step, shown) in cmds {
            let k = t.steps.get(*step);
            let avg = k.filter(|k| !k.lat.is_empty()).map(|k| ms(k.lat.mean())).unwrap_or(0.0);
            let failed = k.map(|k| k.failed).unwrap_or(0);
            if retries {
                p(format!("   {avg:11.3}  {failed:10}  {:10}  {shown}", k.map(|k| k.retries).unwrap_or(0)));
            } else {
                p(format!("   {avg:11.3}  {failed:10}  {shown}"));
            }
        }
    }
}

impl Sink for PgbenchSink {
    fn before_start(&mut self) {
        self.standard.before_start();
    }

    fn start(&mut self, threads: usize) {
        self.standard.start(threads);
    }

    fn interval(&mut self, iv: &Interval, _rate_mode: bool) {
        if !iv.warmup {
            eprintln!("{}", self.progress_line(iv));
        }
    }

    fn stall(&mut self, seq: usize, secs: f64) {
        self.standard.stall(seq, secs);
    }

    fn unreported(&mut self, iv: &Interval) {
        self.standard.unreported(iv);
    }

    fn checkpoint(&mut self, cp: &crate::model::Checkpoint) {
        self.standard.checkpoint(cp);
    }

    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        self.standard.summary(r, info);
        let mut o = std::io::stdout().lock();
        let _ = write!(o, "{}", self.report(r));
        let _ = o.flush();
    }
}
