//! `--hdr-log FILE`: the run's per-interval latency histograms as a standard
//! HdrHistogram interval log (compressed V2 histograms, as HdrHistogram's
//! own `HistogramLogReader` and `HistogramLogProcessor` read them), with
//! the group, member, host and clock offset, and each level's summary, on
//! `#fairbench-...` comment lines those tools skip. `fairbench merge` adds
//! the logs of a group's members.
//!
//! Times are on the database's clock (the member's clock plus its measured
//! offset), so the members' intervals line up. Values are microseconds.
//! Each interval is tagged `threads=N` (its load level). Whatever the
//! intervals did not hold (a level's tail after its last boundary, or a
//! whole level without intermediate reports) is written as one last
//! interval, so a level's intervals add up to its summary exactly.

use crate::error::{Error, Result};
use crate::model::{Interval, LevelResult, RunInfo, Sink, StartGate, Stop};
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub struct HdrLog {
    path: String,
    out: Box<dyn Write + Send>,
    ser: V2DeflateSerializer,
    gate: Option<Arc<dyn StartGate>>,
    info_line: String,
    /// BaseTime: the first level's start, database clock, seconds.
    base_s: Option<f64>,
    level_start_s: f64,
    written: Option<Histogram<u64>>,
    last_t: f64,
    failed: bool,
}

impl HdrLog {
    /// `-` writes the log to standard output, among the run's report.
    pub fn create(path: &std::path::Path, info: &RunInfo, gate: Option<Arc<dyn StartGate>>) -> Result<HdrLog> {
        let out: Box<dyn Write + Send> = if path.as_os_str() == "-" {
            Box::new(WholeLines(Vec::new()))
        } else {
            Box::new(std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| Error::Io(format!("--hdr-log {}: {e}", path.display())))?))
        };
        let info_line = format!("label={} workload={} engine={} percentile={}", info.label.replace(' ', "_"), info.workload, info.engine, info.percentile);
        Ok(HdrLog { path: path.display().to_string(), out, ser: V2DeflateSerializer::new(), gate, info_line, base_s: None, level_start_s: 0.0, written: None, last_t: 0.0, failed: false })
    }

    fn header(&mut self, member: &crate::model::GroupMember, start_s: f64) -> std::io::Result<()> {
        let mut b = IntervalLogWriterBuilder::new();
        b.add_comment("fairbench hdr-log: latencies in microseconds; intervals tagged threads=N (the load level); add members' logs with fairbench merge");
        b.add_comment(&format!(
            "fairbench-member group={} member={} members={} size={} host={} clock_offset_ms={:.3} {}",
            member.group,
            member.name,
            member.names.join(","),
            member.size,
            member.host,
            member.clock_offset_ms,
            self.info_line
        ));
        let at = UNIX_EPOCH + Duration::from_secs_f64(start_s);
        b.with_start_time(at).with_base_time(at);
        b.begin_log_with(&mut self.out, &mut self.ser)?;
        self.out.flush()
    }

    fn histogram(&mut self, h: &Histogram<u64>, from_s: f64, secs: f64, threads: usize) -> std::io::Result<()> {
        self.histogram_unflushed(h, from_s, secs, threads)?;
        self.out.flush()
    }

    /// An interval's histogram line and its `#fairbench-interval` line
    /// reach the output together (one flush), so on stdout no report line
    /// comes between them.
    fn histogram_unflushed(&mut self, h: &Histogram<u64>, from_s: f64, secs: f64, threads: usize) -> std::io::Result<()> {
        let tag = format!("threads={threads}");
        let start = Duration::from_secs_f64((self.level_start_s - self.base_s.unwrap_or(0.0) + from_s).max(0.0));
        let mut w = IntervalLogWriterBuilder::new().begin_log_with(&mut self.out, &mut self.ser)?;
        w.write_histogram(h, start, Duration::from_secs_f64(secs.max(0.0)), Tag::new(&tag)).map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        Ok(())
    }

    fn report(&mut self, r: std::io::Result<()>) {
        if let Err(e) = r {
            if !self.failed {
                eprintln!("fairbench: --hdr-log {}: {e}; the log is incomplete", self.path);
            }
            self.failed = true;
        }
    }
}

/// Standard output shared with the run's report: the log's lines are held
/// until a flush and then written in one locked write, so a report line
/// never lands inside one of them (`fairbench merge` skips the report's
/// lines, as in a `kubectl logs` capture).
struct WholeLines(Vec<u8>);

impl Write for WholeLines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(&self.0)?;
        self.0.clear();
        out.flush()
    }
}

fn now_s() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// On with `--hdr-log`.
pub fn on(s: &super::sinks::Setup) -> bool {
    s.hdr_log.is_some()
}

pub fn open(s: &mut super::sinks::Setup, _: &mut super::sinks::Shared) -> Result<Option<Box<dyn Sink>>> {
    match s.hdr_log {
        Some(path) => Ok(Some(Box::new(HdrLog::create(path, s.info, s.gate.clone())?))),
        None => Ok(None),
    }
}

impl Sink for HdrLog {
    fn start(&mut self, _threads: usize) {
        let member = self.gate.as_ref().and_then(|g| g.member()).unwrap_or(crate::model::GroupMember {
            member: 1,
            name: "1".into(),
            names: vec!["1".into()],
            size: 1,
            host: crate::env::hostname(),
            ..Default::default()
        });
        // The group's instant where there is one: every member's level
        // then starts at the same second of the log.
        self.level_start_s = if member.start_ms > 0 { member.start_ms as f64 / 1000.0 } else { now_s() + member.clock_offset_ms / 1000.0 };
        if self.base_s.is_none() {
            self.base_s = Some(self.level_start_s);
            let r = self.header(&member, self.level_start_s);
            self.report(r);
        }
        self.written = None;
        self.last_t = 0.0;
    }

    fn interval(&mut self, iv: &Interval, _rate_mode: bool) {
        if iv.warmup {
            return;
        }
        let written = self.written.get_or_insert_with(crate::stats::new_hist);
        let _ = written.add(&iv.w.lat);
        let line = format!(
            "fairbench-interval threads={} t={:.3} secs={:.3} events={} reads={} writes={} other={} errors={} reconnects={} cpu_user_s={:.3} cpu_sys_s={:.3}",
            iv.threads, iv.t, iv.secs, iv.w.events, iv.w.reads, iv.w.writes, iv.w.other, iv.w.errors, iv.w.reconnects, iv.cpu_user_s, iv.cpu_sys_s
        );
        let r = self.histogram_unflushed(&iv.w.lat, iv.t - iv.secs, iv.secs, iv.threads).and_then(|()| writeln!(self.out, "#{line}")).and_then(|()| self.out.flush());
        self.last_t = iv.t;
        self.report(r);
    }

    fn summary(&mut self, r: &LevelResult, _info: &RunInfo) {
        let mut rest = r.total.lat.clone();
        if let Some(w) = &self.written {
            // Only what the intervals held: never below zero.
            if rest.subtract(w).is_err() {
                rest.reset();
            }
        }
        let mut res = Ok(());
        if !rest.is_empty() {
            let warm = if r.intervals.iter().any(|i| i.warmup) { r.intervals.iter().filter(|i| i.warmup).map(|i| i.t).fold(0.0, f64::max) } else { 0.0 };
            let from = self.last_t.max(warm);
            let end = (warm + r.elapsed_s).max(from);
            res = self.histogram(&rest, from, end - from, r.threads);
        }
        let stop = match &r.stop {
            Stop::Completed => "completed",
            Stop::Interrupted => "interrupted",
            Stop::Failed(_) => "failed",
        };
        let t = &r.total;
        let line = format!(
            "#fairbench-summary threads={} start_s={:.6} elapsed_s={:.6} events={} reads={} writes={} other={} errors={} reconnects={} cpu_user_s={:.3} cpu_sys_s={:.3} stop={stop}",
            r.threads, self.level_start_s, r.elapsed_s, t.events, t.reads, t.writes, t.other, t.errors, t.reconnects, r.cpu_user_s, r.cpu_sys_s
        );
        let res = res.and_then(|()| writeln!(self.out, "{line}")).and_then(|()| self.out.flush());
        self.report(res);
    }
}
