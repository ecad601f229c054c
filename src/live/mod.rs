//! What a run shows while it runs, through the live sinks of its registry
//! (`sinks.rs`): console text in sysbench 1.1's format (line for line, so
//! existing parsers keep working) followed by fairbench's extra figures;
//! JSON lines with a checked-in schema (`schema/run.schema.json`); sysbench's
//! checkpoint reports, the HDR log, the live page and OpenMetrics; and the
//! SVG charts and flame graphs the views of stored runs draw with.
//! (The `report` command, an HTML page of stored runs, is `view::html`.)

pub mod bars;
pub mod chart;
pub mod flame;
pub mod hdrlog;
pub mod http;
pub mod page;
pub mod series;
pub mod sinks;
pub mod snapshot;
pub mod sysbench;

use crate::model::RunInfo;
use crate::model::{Checkpoint, Interval, LevelResult, Sink, Stop};
use crate::stats::gaps::remarkable_kind;
use crate::stats::{mean_stddev, pct_ms, ClientTotals, Window};
use serde_json::{json, Value};
use std::io::Write;

impl RunInfo {
    /// The engine runs inside fairbench (SQLite): the process's CPU is the
    /// client's and the engine's together.
    pub fn embedded(&self) -> bool {
        self.transport == "embedded"
    }

    /// The key distribution the workload drew with, when it draws with
    /// `--rand-type` (its options record it).
    pub fn distribution(&self) -> Option<String> {
        self.options.data.rand_type.clone()
    }
}

/// The console's format is `--output`'s value.
pub use crate::output::ConsoleFormat as Format;

pub struct Console {
    pub format: Format,
    pub percentile: u32,
    pub level_threads: usize,
}

fn out() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}

impl Sink for Console {
    fn start(&mut self, threads: usize) {
        self.level_threads = threads;
        if self.format == Format::Text {
            let mut o = out();
            let _ = writeln!(o, "Threads started!\n");
            let _ = o.flush();
        }
    }

    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        let mut o = out();
        match self.format {
            Format::Json => {
                let _ = writeln!(o, "{}", summary_json(r, info));
            }
            Format::Text => {
                let _ = writeln!(o);
                let _ = write!(o, "{}", summary_text(r, info));
            }
        }
        let _ = o.flush();
    }

    fn interval(&mut self, iv: &Interval, rate_mode: bool) {
        let mut o = out();
        match self.format {
            Format::Text => {
                let _ = writeln!(o, "{}", interval_line(iv, self.percentile));
                if rate_mode {
                    let _ = writeln!(o, "[ {:.0}s ] queue length: {}, concurrency: {}", iv.t, iv.w.queue_len, iv.w.busy);
                }
                if let Some(l) = nodes_line(iv) {
                    let _ = writeln!(o, "{l}");
                }
            }
            Format::Json => {
                let _ = writeln!(o, "{}", interval_json(iv, self.percentile, rate_mode));
            }
        }
        let _ = o.flush();
    }
}

/// The console is on when it prints JSON lines, or text at the verbosity
/// that shows reports.
pub fn console_on(s: &sinks::Setup) -> bool {
    s.format.json() || s.loud
}

/// The workload's own console where it brings one, else the standard one.
pub fn console_open(s: &mut sinks::Setup, _: &mut sinks::Shared) -> crate::error::Result<Option<Box<dyn Sink>>> {
    Ok(Some(s.own_console.take().unwrap_or_else(|| Box::new(Console { format: s.format, percentile: s.percentile, level_threads: 0 }))))
}

/// The standard console output as the workloads reach it
/// ([`crate::output::StandardOutput`]): the driver hands it to a workload
/// whose own output prints it or builds on its lines.
pub struct Standard;

impl crate::output::StandardOutput for Standard {
    fn console(&self, json: bool, percentile: u32) -> Box<dyn Sink> {
        Box::new(Console { format: if json { Format::Json } else { Format::Text }, percentile, level_threads: 0 })
    }
    fn interval_line(&self, iv: &Interval, percentile: u32) -> String {
        interval_line(iv, percentile)
    }
    fn interval_json(&self, iv: &Interval, percentile: u32, rate_mode: bool) -> Value {
        interval_json(iv, percentile, rate_mode)
    }
    fn summary_text(&self, r: &LevelResult, info: &RunInfo) -> String {
        summary_text(r, info)
    }
    fn summary_json(&self, r: &LevelResult, info: &RunInfo) -> Value {
        summary_json(r, info)
    }
}

/// sysbench 1.1's intermediate report line.
pub fn interval_line(iv: &Interval, percentile: u32) -> String {
    let s = iv.secs.max(1e-9);
    let w = &iv.w;
    format!(
        "[ {:.0}s ] thds: {} tps: {:.2} qps: {:.2} (r/w/o: {:.2}/{:.2}/{:.2}) lat (ms,{}%): {:.2} err/s: {:.2} reconn/s: {:.2}",
        iv.t,
        iv.threads,
        w.events as f64 / s,
        w.queries() as f64 / s,
        w.reads as f64 / s,
        w.writes as f64 / s,
        w.other as f64 / s,
        percentile,
        w.pct_ms(percentile as f64),
        w.errors as f64 / s,
        w.reconnects as f64 / s
    )
}

/// A cluster target's events per second on each node, in the target's
/// order, after the sysbench line (which stays as sysbench prints it).
pub fn nodes_line(iv: &Interval) -> Option<String> {
    if iv.w.per_host.is_empty() {
        return None;
    }
    let s = iv.secs.max(1e-9);
    let per: Vec<String> = iv.w.per_host.iter().map(|&n| format!("{:.2}", n as f64 / s)).collect();
    Some(format!("[ {:.0}s ] tps per node: {}", iv.t, per.join(" / ")))
}

/// The `host:port` of each node a run's target lists, for its per-node figures.
fn node_names(info: &RunInfo, n: usize) -> Vec<String> {
    let hosts = crate::db::Target::parse(&info.target).map(|t| t.hosts).unwrap_or_default();
    (0..n).map(|i| hosts.get(i).map(|(h, p)| format!("{h}:{p}")).unwrap_or_else(|| format!("node {}", i + 1))).collect()
}

pub fn interval_json(iv: &Interval, percentile: u32, rate_mode: bool) -> Value {
    let s = iv.secs.max(1e-9);
    let w = &iv.w;
    json!({
        "type": "interval",
        "time_s": iv.t,
        "interval_s": iv.secs,
        "threads": iv.threads,
        "warmup": iv.warmup,
        "events": w.events,
        "tps": w.events as f64 / s,
        "qps": w.queries() as f64 / s,
        "reads_per_s": w.reads as f64 / s,
        "writes_per_s": w.writes as f64 / s,
        "other_per_s": w.other as f64 / s,
        "percentile": percentile,
        "latency_pct_ms": w.pct_ms(percentile as f64),
        "latency_ms": lat_obj(&w.lat),
        "errors_per_s": w.errors as f64 / s,
        "reconnects_per_s": w.reconnects as f64 / s,
        "queue_length": if rate_mode { json!(w.queue_len) } else { Value::Null },
        "concurrency": if rate_mode { json!(w.busy) } else { Value::Null },
        "dropped": w.dropped,
        "cpu_cores": (iv.cpu_user_s + iv.cpu_sys_s) / s,
        "events_per_node": if iv.w.per_host.is_empty() { Value::Null } else { json!(iv.w.per_host) },
    })
}

fn lat_obj(h: &hdrhistogram::Histogram<u64>) -> Value {
    json!({
        "min": if h.is_empty() { 0.0 } else { h.min() as f64 / 1000.0 },
        "avg": if h.is_empty() { 0.0 } else { h.mean() / 1000.0 },
        "p50": pct_ms(h, 50.0),
        "p90": pct_ms(h, 90.0),
        "p95": pct_ms(h, 95.0),
        "p99": pct_ms(h, 99.0),
        "p999": pct_ms(h, 99.9),
        "max": if h.is_empty() { 0.0 } else { h.max() as f64 / 1000.0 },
    })
}

fn stop_name(s: &Stop) -> &'static str {
    match s {
        Stop::Completed => "completed",
        Stop::Interrupted => "interrupted",
        Stop::Failed(_) => "failed",
    }
}

/// sysbench 1.1's final report, then fairbench's extra lines.
pub fn summary_text(r: &LevelResult, info: &RunInfo) -> String {
    summary_text_after(r, None, info)
}

/// The final report when `--report-checkpoints` reset sysbench's counters:
/// sysbench's part covers `tail` (what came after the last checkpoint), as
/// sysbench's does, and says so in one line; fairbench's figures below it
/// cover the whole run, as the stored run does.
pub fn summary_text_after(r: &LevelResult, tail: Option<&Checkpoint>, info: &RunInfo) -> String {
    let mut s = match tail {
        Some(cp) => {
            let mut s = sysbench_report(&cp.w, cp.secs, &cp.clients, info.percentile);
            s.push_str(&format!(
                "Note: the report above covers the {:.4}s after the last checkpoint ({}s); the figures below and the stored run cover the whole run ({} events in {:.4}s).\n\n",
                cp.secs, cp.at_s, r.total.events, r.elapsed_s
            ));
            s
        }
        None => sysbench_report(&r.total, r.elapsed_s, &r.clients, info.percentile),
    };
    s.push_str(&extras_text(r, info));
    s
}

/// sysbench 1.1's report block, SQL statistics to Threads fairness, for the
/// counters `t` over `elapsed_s` seconds; it ends with an empty line.
pub fn sysbench_report(t: &Window, elapsed_s: f64, clients: &[ClientTotals], percentile: u32) -> String {
    let secs = elapsed_s.max(1e-9);
    let h = &t.lat;
    let mut s = String::new();
    let mut p = |line: String| {
        s.push_str(&line);
        s.push('\n');
    };
    p("SQL statistics:".into());
    p("    queries performed:".into());
    p(format!("        read:                            {}", t.reads));
    p(format!("        write:                           {}", t.writes));
    p(format!("        other:                           {}", t.other));
    p(format!("        total:                           {}", t.queries()));
    p(format!("    transactions:                        {:<6} ({:.2} per sec.)", t.events, t.events as f64 / secs));
    p(format!("    queries:                             {:<6} ({:.2} per sec.)", t.queries(), t.queries() as f64 / secs));
    p(format!("    ignored errors:                      {:<6} ({:.2} per sec.)", t.errors, t.errors as f64 / secs));
    p(format!("    reconnects:                          {:<6} ({:.2} per sec.)", t.reconnects, t.reconnects as f64 / secs));
    p(String::new());
    p("Throughput:".into());
    p(format!("    events/s (eps):                      {:.4}", t.events as f64 / secs));
    p(format!("    time elapsed:                        {elapsed_s:.4}s"));
    p(format!("    total number of events:              {}", t.events));
    p(String::new());
    let (min, max) = if h.is_empty() { (0.0, 0.0) } else { (h.min() as f64 / 1000.0, h.max() as f64 / 1000.0) };
    let avg = if h.is_empty() { 0.0 } else { h.mean() / 1000.0 };
    p("Latency (ms):".into());
    p(format!("         min: {min:39.2}"));
    p(format!("         avg: {avg:39.2}"));
    p(format!("         max: {max:39.2}"));
    p(format!("        {percentile:3}th percentile: {:27.2}", t.pct_ms(percentile as f64)));
    p(format!("         sum: {:39.2}", avg * t.events as f64));
    p(String::new());
    let ev: Vec<f64> = clients.iter().map(|c| c.events as f64).collect();
    let ex: Vec<f64> = clients.iter().map(|c| c.busy_s).collect();
    let (em, es) = mean_stddev(&ev);
    let (xm, xs) = mean_stddev(&ex);
    p("Threads fairness:".into());
    p(format!("    events (avg/stddev):           {em:.4}/{es:3.2}"));
    p(format!("    execution time (avg/stddev):   {xm:.4}/{xs:3.2}"));
    p(String::new());
    s
}

/// fairbench's figures after sysbench's report: HDR percentiles, per kind,
/// per statement and per node, errors, client CPU, how the run stopped.
fn extras_text(r: &LevelResult, info: &RunInfo) -> String {
    let t = &r.total;
    let secs = r.elapsed_s.max(1e-9);
    let h = &t.lat;
    let (max, mut s) = (if h.is_empty() { 0.0 } else { h.max() as f64 / 1000.0 }, String::new());
    let mut p = |line: String| {
        s.push_str(&line);
        s.push('\n');
    };
    p("Latency percentiles (ms, HDR histogram, 3 significant digits):".into());
    for (name, q) in [("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0), ("p99.9", 99.9)] {
        p(format!("    {name:<6} {:>12.3}", pct_ms(h, q)));
    }
    p(format!("    {:<6} {max:>12.3}", "max"));
    if !r.figures.is_empty() {
        p(format!("{}:", r.name.as_deref().map(|n| format!("Step {n}")).unwrap_or_else(|| "Workload figures".into())));
        for (k, v) in &r.figures {
            p(format!("    {:<33}{v}", format!("{k}:")));
        }
    }
    if r.rate > 0.0 {
        let u = &t.lat_raw;
        p(format!(
            "Open loop at {:.2} events/s: latency above is from each event's intended start; from its actual start (uncorrected): p50 {:.3} p95 {:.3} p99 {:.3} max {:.3} ms; arrivals dropped (queue full): {}",
            r.rate,
            pct_ms(u, 50.0),
            pct_ms(u, 95.0),
            pct_ms(u, 99.0),
            if u.is_empty() { 0.0 } else { u.max() as f64 / 1000.0 },
            t.dropped
        ));
    }
    if !t.kinds.is_empty() {
        p("Events by kind:".into());
    }
    for (i, k) in t.kinds.iter().enumerate() {
        let name = info.kinds.get(i).map(String::as_str).unwrap_or("?");
        p(format!(
            "    {name:<14} {:>9} events ({:.2}/s), {} rolled back, latency ms p50 {:.3} p95 {:.3} p99 {:.3} max {:.3}",
            k.events,
            k.events as f64 / secs,
            k.rollbacks,
            pct_ms(&k.lat, 50.0),
            pct_ms(&k.lat, 95.0),
            pct_ms(&k.lat, 99.0),
            if k.lat.is_empty() { 0.0 } else { k.lat.max() as f64 / 1000.0 }
        ));
    }
    if !t.steps.is_empty() {
        p("Statements by kind:".into());
    }
    for (i, k) in t.steps.iter().enumerate() {
        let name = info.steps.get(i).map(String::as_str).unwrap_or("?");
        p(format!(
            "    {name:<14} {:>9} statements ({:.2}/s), latency ms avg {:.3} p50 {:.3} p95 {:.3} p99 {:.3} max {:.3}",
            k.events,
            k.events as f64 / secs,
            if k.lat.is_empty() { 0.0 } else { k.lat.mean() / 1000.0 },
            pct_ms(&k.lat, 50.0),
            pct_ms(&k.lat, 95.0),
            pct_ms(&k.lat, 99.0),
            if k.lat.is_empty() { 0.0 } else { k.lat.max() as f64 / 1000.0 }
        ));
    }
    if !t.per_host.is_empty() {
        p("Events by node (the target's hosts):".into());
        for (name, &n) in node_names(info, t.per_host.len()).iter().zip(&t.per_host) {
            p(format!("    {name:<22} {n:>9} events ({:.2}/s, {:.1}%)", n as f64 / secs, n as f64 * 100.0 / t.events.max(1) as f64));
        }
    }
    if !t.errors_by_code.is_empty() {
        let parts: Vec<String> = t.errors_by_code.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        p(format!("Errors by code: {}", parts.join(", ")));
    }
    let tr = &t.tries;
    if *tr != crate::stats::Tries::default() {
        let all = (t.events + tr.failed + tr.skipped).max(1) as f64;
        p(format!(
            "Tries: {} events retried ({} retries), {} failed ({:.3}%, {} by deadlock), {} late, {} skipped",
            tr.retried,
            tr.retries,
            tr.failed,
            tr.failed as f64 * 100.0 / all,
            tr.failed_deadlock,
            tr.late,
            tr.skipped
        ));
    }
    if t.planned_reconnects > 0 {
        p(format!("Planned reconnects: {} of the {} (TLS 1.2 sessions renewed before their cipher's record limit; not errors)", t.planned_reconnects, t.reconnects));
    }
    for line in outage_lines(r) {
        p(line);
    }
    if t.trx_stmts > 0 {
        let q = t.queries().saturating_sub(t.trx_stmts);
        p(format!("Queries without BEGIN/COMMIT: {q} ({:.2} per sec.)", q as f64 / secs));
    }
    let cpu = r.cpu_user_s + r.cpu_sys_s;
    let per_q = if t.queries() > 0 { cpu * 1e6 / t.queries() as f64 } else { 0.0 };
    p(format!(
        "{}: {:.2}s user + {:.2}s sys = {:.1}% of one core, {:.1} us per query",
        if info.embedded() { "Client+engine CPU (the engine runs inside fairbench)" } else { "Client CPU" },
        r.cpu_user_s,
        r.cpu_sys_s,
        cpu * 100.0 / secs,
        per_q
    ));
    match &r.stop {
        Stop::Completed => {}
        Stop::Interrupted => p("Stopped: interrupted; figures cover what ran until then.".into()),
        Stop::Failed(m) => p(format!("Stopped: {m}")),
    }
    if let Some(d) = info.distribution().filter(|d| !info.label.contains(d.as_str())) {
        p(format!("Keys drawn with the {d} distribution (--rand-type)"));
    }
    p(format!("Label: {}", info.label));
    s
}

/// The longest gaps without a completed event: overall always (it is the
/// answer to "did it ever stop?", in one line), for writes whenever the
/// level wrote, and per kind only when remarkable.
pub fn outage_lines(r: &LevelResult) -> Vec<String> {
    let Some(o) = &r.outage else { return Vec::new() };
    let t = &r.total;
    o.lines(t.writes > 0, |i, g| t.kinds.get(i).is_some_and(|k| remarkable_kind(g.secs, pct_ms(&k.lat, 99.0), k.events, r.elapsed_s)))
}

pub fn summary_json(r: &LevelResult, info: &RunInfo) -> Value {
    let t = &r.total;
    let secs = r.elapsed_s.max(1e-9);
    let ev: Vec<f64> = r.clients.iter().map(|c| c.events as f64).collect();
    let ex: Vec<f64> = r.clients.iter().map(|c| c.busy_s).collect();
    let (em, es) = mean_stddev(&ev);
    let (xm, xs) = mean_stddev(&ex);
    let cpu = r.cpu_user_s + r.cpu_sys_s;
    let opts = info.options.to_json();
    let mut v = json!({
        "type": "summary",
        "tool": "fairbench",
        "version": crate::VERSION,
        "label": info.label,
        "workload": info.workload,
        "engine": info.engine,
        "target": info.target,
        "transport": info.transport,
        "threads": r.threads,
        "time_s": r.elapsed_s,
        "status": stop_name(&r.stop),
        "error": match &r.stop { Stop::Failed(m) => Value::String(m.clone()), _ => Value::Null },
        "queries": { "read": t.reads, "write": t.writes, "other": t.other, "total": t.queries() },
        "transactions": t.events,
        "tps": t.events as f64 / secs,
        "qps": t.queries() as f64 / secs,
        "qps_without_trx": t.queries().saturating_sub(t.trx_stmts) as f64 / secs,
        "ignored_errors": t.errors,
        "reconnects": t.reconnects,
        "planned_reconnects": t.planned_reconnects,
        "errors_by_code": t.errors_by_code,
        "tries": t.tries,
        "percentile": info.percentile,
        "latency_ms": lat_obj(&t.lat),
        "rate": r.rate,
        "latency_uncorrected_ms": if r.rate > 0.0 { lat_obj(&t.lat_raw) } else { Value::Null },
        "dropped": t.dropped,
        "fairness": { "events_avg": em, "events_stddev": es, "time_avg_s": xm, "time_stddev_s": xs },
        "client_cpu": {
            "user_s": r.cpu_user_s,
            "sys_s": r.cpu_sys_s,
            "cores_used": cpu / secs,
            "us_per_query": if t.queries() > 0 { cpu * 1e6 / t.queries() as f64 } else { 0.0 },
            "includes_engine": info.embedded(),
        },
        "kinds": t.kinds.iter().enumerate().map(|(i, k)| json!({
            "name": info.kinds.get(i).cloned().unwrap_or_default(),
            "events": k.events,
            "rollbacks": k.rollbacks,
            "latency_ms": lat_obj(&k.lat),
        })).collect::<Vec<_>>(),
        "statements": t.steps.iter().enumerate().map(|(i, k)| json!({
            "name": info.steps.get(i).cloned().unwrap_or_default(),
            "count": k.events,
            "latency_ms": lat_obj(&k.lat),
        })).collect::<Vec<_>>(),
        "nodes": node_names(info, t.per_host.len()).into_iter().zip(&t.per_host).map(|(node, &n)| json!({
            "node": node,
            "events": n,
            "eps": n as f64 / secs,
        })).collect::<Vec<_>>(),
        "options": opts,
        "outage": r.outage,
    });
    // A level that is a step of a sequence says which, with its workload's figures.
    if let Some(name) = &r.name {
        v["step"] = Value::String(name.clone());
    }
    if !r.figures.is_empty() {
        v["figures"] = r.figures.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<serde_json::Map<String, Value>>().into();
    }
    v
}
