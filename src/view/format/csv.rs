//! `results export --csv`: one row per interval and one per level summary,
//! in one table (the `row` column tells them apart), for spreadsheets and
//! plotting tools. The columns are documented in docs/results.md; a test holds
//! the two together.

use crate::db::waits::CLASSES;
use crate::model::efficiency::{of_run, Efficiency};
use crate::model::record::{IntervalRec, LevelRec, RunRecord};
use std::fmt::Write;

pub const COLUMNS: &[&str] = &[
    "row",
    "run_id",
    "label",
    "tag",
    "workload",
    "engine",
    "level_no",
    "threads",
    "seq",
    "t_s",
    "secs",
    "warmup",
    "events",
    "tps",
    "qps",
    "reads",
    "writes",
    "other",
    "trx_stmts",
    "errors",
    "reconnects",
    "p95_ms",
    "p99_ms",
    "cpu_cores",
    "srv_cpu_us_per_trx",
    "srv_cpu_us_per_query",
    "cli_cpu_us_per_trx",
    "host_cpu_us_per_trx",
    "host_busy_pct",
    "host_iowait_pct",
    "host_steal_pct",
    "srv_cs_per_trx",
    "host_cs_per_trx",
    "reads_per_trx",
    "read_kb_per_trx",
    "writes_per_trx",
    "write_kb_per_trx",
    "fsyncs_per_commit",
    "wait_cpu_us_per_trx",
    "wait_read_us_per_trx",
    "wait_write_us_per_trx",
    "wait_log_us_per_trx",
    "wait_row_lock_us_per_trx",
    "wait_table_lock_us_per_trx",
    "wait_latch_us_per_trx",
    "wait_client_us_per_trx",
    "wait_replication_us_per_trx",
    "wait_other_us_per_trx",
    "top_statement",
    "top_statement_calls_per_trx",
    "top_statement_us_per_trx",
];

/// The hardware columns a summary row fills (an interval row leaves them
/// empty): the figures, the server's time by class (in [`CLASSES`]'
/// order) and its top statement.
const HARDWARE_COLUMNS: usize = 14 + CLASSES.len() + 3;

/// A field as RFC 4180 wants it: quoted when it holds a comma, quote or line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn f(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn interval_row(r: &RunRecord, l: &LevelRec, i: &IntervalRec) -> Vec<String> {
    let s = i.secs.max(1e-9);
    let q = i.reads + i.writes + i.other;
    vec![
        "interval".into(),
        r.id.to_string(),
        field(&r.label),
        field(&r.tag),
        field(&r.workload),
        field(&r.engine),
        l.level_no.to_string(),
        l.threads.to_string(),
        i.seq.to_string(),
        f(i.t),
        f(i.secs),
        u8::from(i.warmup).to_string(),
        i.events.to_string(),
        f(i.events as f64 / s),
        f(q as f64 / s),
        i.reads.to_string(),
        i.writes.to_string(),
        i.other.to_string(),
        i.trx_stmts.to_string(),
        i.errors.to_string(),
        i.reconnects.to_string(),
        f(i.p95_ms),
        f(i.p99_ms),
        f(i.cpu_s / s),
    ]
    .into_iter()
    .chain(std::iter::repeat_n(String::new(), HARDWARE_COLUMNS))
    .collect()
}

/// A summary row's hardware columns, empty where a figure is absent.
fn hardware(e: Option<&Efficiency>) -> Vec<String> {
    let o = |v: Option<f64>| v.map(f).unwrap_or_default();
    let Some(e) = e else { return vec![String::new(); HARDWARE_COLUMNS] };
    let host = |g: fn(&crate::model::efficiency::HostShares) -> f64| o(e.host.as_ref().map(|h| g(h) * 100.0));
    vec![
        o(e.server_cpu_us_per_trx),
        o(e.server_cpu_us_per_query),
        o(e.client_cpu_us_per_trx),
        o(e.host_cpu_us_per_trx),
        host(|h| h.busy),
        host(|h| h.iowait),
        host(|h| h.steal),
        o(e.server_cs_per_trx()),
        o(e.host_cs_per_trx),
        o(e.reads_per_trx),
        o(e.read_kb_per_trx),
        o(e.writes_per_trx),
        o(e.write_kb_per_trx),
        o(e.fsyncs_per_commit),
    ]
    .into_iter()
    .chain(CLASSES.iter().map(|c| o(e.server_time.as_ref().map(|t| t.of_class(*c)))))
    .chain(match e.statements.first() {
        Some(s) => [field(&s.text), f(s.calls_per_trx), f(s.us_per_trx)],
        None => Default::default(),
    })
    .collect()
}

/// The level's figures; counts the summary does not keep (reads, writes,
/// errors...) are summed over its measured intervals.
fn summary_row(r: &RunRecord, l: &LevelRec, e: Option<&Efficiency>) -> Vec<String> {
    let m: Vec<&IntervalRec> = l.intervals.iter().filter(|i| !i.warmup).collect();
    let sum = |g: fn(&IntervalRec) -> u64| m.iter().map(|i| g(i)).sum::<u64>().to_string();
    vec![
        "summary".into(),
        r.id.to_string(),
        field(&r.label),
        field(&r.tag),
        field(&r.workload),
        field(&r.engine),
        l.level_no.to_string(),
        l.threads.to_string(),
        String::new(),
        f(l.elapsed_s),
        f(l.elapsed_s),
        "0".into(),
        l.events.to_string(),
        f(l.tps),
        f(l.qps),
        sum(|i| i.reads),
        sum(|i| i.writes),
        sum(|i| i.other),
        l.trx_stmts.to_string(),
        sum(|i| i.errors),
        sum(|i| i.reconnects),
        f(l.p95_ms),
        f(l.p99_ms),
        f(l.cpu_cores),
    ]
    .into_iter()
    .chain(hardware(e))
    .collect()
}

/// The CSV format in the registry (`view::format`).
pub struct Csv;

impl super::Format for Csv {
    fn key(&self) -> crate::output::FormatKey {
        crate::output::FormatKey::Csv
    }

    fn runs(&self, store: &std::path::Path, refs: &[String]) -> Option<crate::error::Result<String>> {
        let rs = if refs.is_empty() { crate::store::load_all(store) } else { crate::store::load_many(store, refs) };
        Some(rs.map(|rs| csv(&rs)))
    }
}

pub fn csv(runs: &[RunRecord]) -> String {
    let mut o = COLUMNS.join(",");
    o.push('\n');
    for r in runs {
        let hw = of_run(r);
        for (n, l) in r.levels.iter().enumerate() {
            for i in &l.intervals {
                let _ = writeln!(o, "{}", interval_row(r, l, i).join(","));
            }
            let e = hw.get(n).filter(|e| e.secs > 0.0);
            let _ = writeln!(o, "{}", summary_row(r, l, e).join(","));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_with_commas_and_quotes_are_quoted() {
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("plain"), "plain");
    }

    #[test]
    fn every_row_has_every_column() {
        let l = LevelRec { level_no: 1, threads: 2, intervals: vec![IntervalRec { seq: 0, t: 1.0, secs: 1.0, events: 5, ..Default::default() }], ..Default::default() };
        let r = RunRecord { id: 7, label: "x,y".into(), levels: vec![l], ..Default::default() };
        let text = csv(&[r]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].starts_with("interval,7,\"x,y\","));
        assert!(lines[2].starts_with("summary,7,"));
    }
}
