//! The Insert Benchmark's console. A sequence runs ten steps, and sysbench's
//! 45-line report after each buried what a reader compares between them: the
//! step's operation rate, its latency and what the writers kept up. Each step
//! ends with a few lines of those instead, and the last with one table of all
//! the steps, as Small Datum's reports give them. The interval lines stay
//! sysbench's, and JSON lines stay the standard ones.

use crate::model::{Checkpoint, Interval, LevelResult, RunInfo, Sink, Stop};
use crate::output::StandardOutput;
use std::io::Write;

/// The figure that is each step's own rate, by the step's kind.
const RATES: [&str; 3] = ["inserts/s", "indexed rows/s", "queries/s"];

/// One step's row of the closing table.
struct Row {
    step: String,
    secs: f64,
    rate: Option<(String, String)>,
    p99_ms: f64,
    max_ms: f64,
    writers: Option<String>,
}

pub struct IbenchSink {
    /// The standard console: its start and interval lines.
    standard: Box<dyn Sink>,
    steps: usize,
    embedded: bool,
    rows: Vec<Row>,
}

impl IbenchSink {
    pub fn new(steps: usize, embedded: bool, percentile: u32, standard: &'static dyn StandardOutput) -> IbenchSink {
        IbenchSink { standard: standard.console(false, percentile), steps, embedded, rows: Vec::new() }
    }
}

fn figure<'a>(r: &'a LevelResult, name: &str) -> Option<&'a str> {
    r.figures.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn max_ms(r: &LevelResult) -> f64 {
    if r.total.lat.is_empty() {
        0.0
    } else {
        r.total.lat.max() as f64 / 1000.0
    }
}

/// What a query step's writers did in rows a second: "801.3/800 met" (None in the other steps).
fn writers(r: &LevelResult) -> Option<String> {
    let got = figure(r, "background inserts/s")?;
    let target = figure(r, "background insert target/s").unwrap_or("?");
    let met = if figure(r, "background rate met") == Some("yes") { "met" } else { "missed" };
    Some(format!("{got}/{target} {met}"))
}

/// A step's report: its events and rate, errors, latency and CPU, its figures; each line
/// fitted to the terminal (`COLUMNS`).
pub fn step_text(r: &LevelResult, embedded: bool) -> String {
    let t = &r.total;
    let secs = r.elapsed_s.max(1e-9);
    let name = r.name.as_deref().unwrap_or("?");
    let cpu = r.cpu_user_s + r.cpu_sys_s;
    let mut lines = vec![
        format!("Step {name}: {} events in {:.2} s ({:.2}/s), errors: {}, reconnects: {}", t.events, r.elapsed_s, t.events as f64 / secs, t.errors, t.reconnects),
        format!(
            "    latency ms: p50 {:.3}, p95 {:.3}, p99 {:.3}, max {:.3}; {} CPU: {:.1}% of one core",
            t.pct_ms(50.0),
            t.pct_ms(95.0),
            t.pct_ms(99.0),
            max_ms(r),
            if embedded { "client+engine" } else { "client" },
            cpu * 100.0 / secs
        ),
    ];
    if !r.figures.is_empty() {
        let figures: Vec<String> = r.figures.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        lines.push(format!("    {}", figures.join(", ")));
    }
    match &r.stop {
        Stop::Completed => {}
        Stop::Interrupted => lines.push("    Stopped: interrupted; figures cover what ran until then.".into()),
        Stop::Failed(m) => lines.push(format!("    Stopped: {m}")),
    }
    lines.iter().map(|l| crate::columns::wrap(l) + "\n").collect()
}

/// The closing table: a row per step that ran.
fn table_text(rows: &[Row], planned: usize) -> String {
    let mut s = format!("Insert Benchmark: {} of {planned} step(s)\n", rows.len());
    s.push_str(&format!("  {:<8} {:>7} {:>9} {:<14} {:>7} {:>7}  {}\n", "step", "secs", "rate", "of", "p99 ms", "max ms", "writers/s"));
    for r in rows {
        let (rate, unit) = r.rate.clone().unwrap_or_else(|| ("-".into(), String::new()));
        s.push_str(&format!("  {:<8} {:>7.2} {:>9} {:<14} {:>7.2} {:>7.2}  {}\n", r.step, r.secs, rate, unit, r.p99_ms, r.max_ms, r.writers.as_deref().unwrap_or("-")));
    }
    s
}

impl Sink for IbenchSink {
    fn before_start(&mut self) {
        self.standard.before_start();
    }

    fn start(&mut self, threads: usize) {
        self.standard.start(threads);
    }

    fn interval(&mut self, iv: &Interval, rate_mode: bool) {
        self.standard.interval(iv, rate_mode);
    }

    fn checkpoint(&mut self, cp: &Checkpoint) {
        self.standard.checkpoint(cp);
    }

    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        let mut o = std::io::stdout().lock();
        let _ = writeln!(o);
        let _ = write!(o, "{}", step_text(r, self.embedded));
        let _ = writeln!(o, "Label: {}", info.label);
        let rate = RATES.iter().find_map(|&k| figure(r, k).map(|v| (v.to_string(), k.to_string())));
        self.rows.push(Row { step: r.name.clone().unwrap_or_else(|| "?".into()), secs: r.elapsed_s, rate, p99_ms: r.total.pct_ms(99.0), max_ms: max_ms(r), writers: writers(r) });
        // After the last step, or a step that stopped the sequence.
        if self.rows.len() == self.steps || r.stop != Stop::Completed {
            let _ = write!(o, "\n{}", table_text(&self.rows, self.steps));
        }
        let _ = o.flush();
    }
}
