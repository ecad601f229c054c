//! LinkBench's own lines after fairbench's sysbench-format output: its
//! progress line every `progressfreq` seconds, `REQUEST PHASE COMPLETED`,
//! and per operation its final line with exact HDR percentiles where Java
//! LinkBench prints bucket bounds; `--csvstats` and `--csvstream` files.
//! Nothing here grows with the run's length: one line per interval goes
//! to the stream file and is forgotten.

use super::props::OPS;
use super::LinkBench;
use crate::model::{Interval, LevelResult, RunInfo, Sink};
use crate::output::StandardOutput;
use crate::stats::pct_ms;
use hdrhistogram::Histogram;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct LinkBenchSink {
    console: Box<dyn Sink>,
    json: bool,
    progressfreq: f64,
    next_progress: f64,
    done: u64,
    /// Requests expected in all (0: no limit), for the progress line.
    expected: u64,
    maxtime: f64,
    failed: Arc<AtomicU64>,
    csvstats: Option<std::path::PathBuf>,
    stream: Option<std::io::BufWriter<std::fs::File>>,
    stream_path: Option<std::path::PathBuf>,
    /// Requests and errors so far, per operation and in all: LinkBench's
    /// `totalops` and `totalerrors` columns are running totals.
    stream_totals: Vec<u64>,
    stream_errors: u64,
}

/// The percentiles of LinkBench's final lines.
const PCTS: [(f64, &str); 5] = [(25.0, "p25"), (50.0, "p50"), (75.0, "p75"), (95.0, "p95"), (99.0, "p99")];

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// One operation's final line, LinkBench's layout with exact values.
pub fn op_line(op: &str, h: &Histogram<u64>) -> String {
    let mut s = format!("{op} count = {}", h.len());
    for (p, name) in PCTS {
        s.push_str(&format!("  {name} = {:.3}ms", pct_ms(h, p)));
    }
    s.push_str(&format!("  max = {:.3}ms  mean = {:.3}ms", ms(h.max()), h.mean() / 1000.0));
    s
}

/// The `--csvstats` header: LinkBench's columns; low and high of a
/// percentile are the same exact value.
pub const CSVSTATS_HEADER: &str = "op,count,p25_low,p25_high,p50_low,p50_high,p75_low,p75_high,p95_low,p95_high,p99_low,p99_high,max,mean";
/// The `--csvstream` header: one row per operation per report interval.
pub const CSVSTREAM_HEADER: &str = "threadID,timestamp,op,totalops,totalerrors,ops,sampleDuration_us,sampleOps,mean_us,min_us,p25_us,p50_us,p75_us,p90_us,p95_us,p99_us,max_us";

impl LinkBenchSink {
    pub fn new(w: &LinkBench, json: bool, percentile: u32, standard: &dyn StandardOutput) -> LinkBenchSink {
        LinkBenchSink {
            console: standard.console(json, percentile),
            json,
            progressfreq: w.cfg.progressfreq,
            next_progress: w.cfg.progressfreq,
            done: 0,
            expected: w.requests_total,
            maxtime: w.maxtime,
            failed: w.failed.clone(),
            csvstats: w.csvstats.clone(),
            stream: None,
            stream_path: w.csvstream.clone(),
            stream_totals: Vec::new(),
            stream_errors: 0,
        }
    }

    fn open_stream(&mut self) {
        let Some(p) = &self.stream_path else { return };
        match std::fs::File::create(p) {
            Ok(f) => {
                let mut b = std::io::BufWriter::new(f);
                let _ = writeln!(b, "{CSVSTREAM_HEADER}");
                self.stream = Some(b);
            }
            Err(e) => eprintln!("warning: cannot write --csvstream file {}: {e}", p.display()),
        }
    }

    fn stream_interval(&mut self, iv: &Interval) {
        let Some(s) = self.stream.as_mut() else { return };
        let totals = &mut self.stream_totals;
        totals.resize(totals.len().max(iv.w.kinds.len()), 0);
        for (t, k) in totals.iter_mut().zip(&iv.w.kinds) {
            *t += k.events;
        }
        self.stream_errors += iv.w.errors;
        // LinkBench writes the sample's duration in milliseconds under the
        // header `sampleDuration_us`; files read by its tools expect that.
        let sample_ms = (iv.secs * 1e3).round() as u64;
        let ts = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        for (i, k) in iv.w.kinds.iter().enumerate() {
            if totals[i] == 0 {
                continue;
            }
            if k.events == 0 {
                // LinkBench's row for an operation without samples this time.
                let _ = writeln!(s, "all,{ts},{},{},{},0,{},0,,,,,,,,,", OPS.get(i).copied().unwrap_or("?"), totals[i], self.stream_errors, sample_ms);
                continue;
            }
            let h = &k.lat;
            let p = |q: f64| h.value_at_quantile(q / 100.0);
            let _ = writeln!(
                s,
                "all,{ts},{},{},{},{},{},{},{:.1},{},{},{},{},{},{},{},{}",
                OPS.get(i).copied().unwrap_or("?"),
                totals[i],
                self.stream_errors,
                k.events,
                sample_ms,
                k.events,
                h.mean(),
                h.min(),
                p(25.0),
                p(50.0),
                p(75.0),
                p(90.0),
                p(95.0),
                p(99.0),
                h.max()
            );
        }
        let _ = s.flush();
    }

    fn write_csvstats(&self, r: &LevelResult) {
        let Some(p) = &self.csvstats else { return };
        let mut out = String::from(CSVSTATS_HEADER);
        out.push('\n');
        for (i, k) in r.total.kinds.iter().enumerate() {
            if k.events == 0 {
                continue;
            }
            out.push_str(&format!("{},{}", OPS.get(i).copied().unwrap_or("?"), k.lat.len()));
            for (q, _) in PCTS {
                let v = pct_ms(&k.lat, q);
                out.push_str(&format!(",{v:.3},{v:.3}"));
            }
            out.push_str(&format!(",{:.3},{:.3}\n", ms(k.lat.max()), k.lat.mean() / 1000.0));
        }
        if let Err(e) = std::fs::write(p, out) {
            eprintln!("warning: cannot write --csvstats file {}: {e}", p.display());
        }
    }
}

impl Sink for LinkBenchSink {
    fn start(&mut self, threads: usize) {
        self.console.start(threads);
        self.done = 0;
        self.next_progress = self.progressfreq;
        self.open_stream();
    }

    fn interval(&mut self, iv: &Interval, rate_mode: bool) {
        self.console.interval(iv, rate_mode);
        if iv.warmup {
            return;
        }
        self.done += iv.w.events;
        self.stream_interval(iv);
        if !self.json && self.progressfreq > 0.0 && iv.t >= self.next_progress {
            self.next_progress += self.progressfreq;
            let expected = if self.expected > 0 { self.expected.to_string() } else { "-".into() };
            let pct = if self.expected > 0 { self.done as f64 * 100.0 / self.expected as f64 } else { 0.0 };
            let used = if self.maxtime > 0.0 { iv.t * 100.0 / self.maxtime } else { 0.0 };
            println!(
                "{}/{expected} requests finished: {pct:.1}% complete at {:.1} ops/sec {:.1}/{:.0} secs elapsed: {used:.1}% of time limit used",
                self.done,
                self.done as f64 / iv.t.max(1e-9),
                iv.t,
                self.maxtime
            );
        }
    }

    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        self.console.summary(r, info);
        self.write_csvstats(r);
        self.stream = None;
        if self.json {
            return;
        }
        let n = r.total.events;
        let secs = r.elapsed_s.max(1e-9);
        println!();
        for (i, k) in r.total.kinds.iter().enumerate() {
            if k.events > 0 {
                println!("{}", op_line(OPS.get(i).copied().unwrap_or("?"), &k.lat));
            }
        }
        let failed = self.failed.swap(0, Ordering::Relaxed);
        if failed > 0 {
            println!("Failed requests: {failed}");
        }
        println!("REQUEST PHASE COMPLETED. {n} requests done in {:.0} seconds. Requests/second = {}", secs, (n as f64 / secs) as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_line_has_linkbench_fields_with_exact_values() {
        let mut h = crate::stats::new_hist();
        for us in [500u64, 710, 1000, 2000, 15_000] {
            h.record(us).unwrap();
        }
        let l = op_line("GET_LINKS_LIST", &h);
        assert!(l.starts_with("GET_LINKS_LIST count = 5  p25 = 0.710ms  p50 = 1.000ms"), "{l}");
        assert!(l.contains("max = 15.007ms") || l.contains("max = 15.000ms"), "{l}");
        assert!(l.contains("mean = "), "{l}");
    }
}
