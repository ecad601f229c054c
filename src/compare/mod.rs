//! `fairbench compare`: runs or sweeps side by side per load level, the
//! configuration differences that matter grouped by what they affect, and
//! the audit's findings first, since they decide whether the numbers below
//! them mean anything.

pub mod gate;
pub mod series;
pub mod waits;

use crate::audit::{self, memory_fit};
use crate::db::engines::Aspect;
use crate::env::durability::durability;
use crate::env::Server;
use crate::model::capacity::Capacity;
use crate::model::efficiency::{self, Efficiency};
use crate::model::record::{Finding, LevelKey, LevelRec, RunRecord};
use crate::stats::gaps::{GapSpan, Outage};
use crate::stats::significance::median;
use crate::units::human_bytes;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Group of a setting, by name: what it changes.
pub fn group_of(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    const DUR: &[&str] = &[
        "flush_log_at_trx_commit",
        "flush_log_at_timeout",
        "sync_binlog",
        "log_bin",
        "doublewrite",
        "flush_method",
        "fsync",
        "synchronous",
        "full_page_writes",
        "wal_sync_method",
        "journal_mode",
        "commit_delay",
        "commit_siblings",
        "binlog_commit_wait",
        "wal_writer",
        "wal_level",
        "binlog_format",
        "durability",
    ];
    const MEM: &[&str] =
        &["buffer_pool", "shared_buffers", "cache_size", "work_mem", "effective_cache_size", "mmap_size", "memory fit", "dataset", "cache", "temp_buffers", "maintenance_work_mem", "huge_pages"];
    const IO: &[&str] = &[
        "io_capacity",
        "io_threads",
        "log_file_size",
        "max_wal_size",
        "min_wal_size",
        "checkpoint",
        "wal_buffers",
        "log_buffer",
        "bgwriter",
        "flush_neighbors",
        "random_page_cost",
        "effective_io",
        "page_size",
        "wal_autocheckpoint",
        "adaptive_flushing",
        "max_dirty_pages",
        "lru_scan_depth",
        "read_ahead",
        "io_scheduler",
        "dirty",
        "flush_after",
        "maintenance_io",
        "native_aio",
        "log_write_ahead",
        "flush_sync",
        "log_file_buffering",
        "wal_compression",
        "io_method",
        "io_workers",
        "io_direct",
        "io_combine",
        "redo_log",
    ];
    const CONC: &[&str] = &["threads", "thread_concurrency", "max_connections", "thread_pool", "thread_handling", "worker", "parallel", "client", "spin", "concurrency"];
    if DUR.iter().any(|k| n.contains(k)) {
        "durability"
    } else if MEM.iter().any(|k| n.contains(k)) {
        "memory"
    } else if IO.iter().any(|k| n.contains(k)) {
        "IO"
    } else if CONC.iter().any(|k| n.contains(k)) {
        "concurrency"
    } else {
        "other"
    }
}

/// A setting in terms every engine shares: `key` is what is compared,
/// `shown` what is printed (with the engine's own variables, so a reader
/// sees which knob to turn on which side).
#[derive(Clone, Debug, PartialEq)]
struct Norm {
    group: &'static str,
    key: String,
    shown: String,
}

impl Norm {
    fn same(group: &'static str, v: String) -> Norm {
        Norm { group, key: v.clone(), shown: v }
    }

    fn new(group: &'static str, key: impl Into<String>, shown: impl Into<String>) -> Norm {
        Norm { group, key: key.into(), shown: shown.into() }
    }
}

/// Normalised settings of a run, comparable across engines.
fn normalised(r: &RunRecord) -> BTreeMap<String, Norm> {
    let mut m = BTreeMap::new();
    let mut put = |k: &str, v: String| {
        m.insert(k.to_string(), Norm::same(group_of(k), v));
    };
    put("engine", r.engine.clone());
    put("workload", r.workload.clone());
    put("transport", r.transport.clone());
    for (k, v) in r.options.pairs() {
        if k != "threads" && k != "rand-seed" {
            put(&format!("--{k}"), v);
        }
    }
    put("client threads (levels)", r.levels.iter().map(|l| l.threads.to_string()).collect::<Vec<_>>().join(","));
    if let Some(e) = &r.env_start {
        let s = &e.server;
        put("server version", s.version.clone());
        if let Some(t) = crate::env::tls_text(s) {
            put("connection TLS", t);
        }
        if let Some(d) = s.dataset_bytes {
            put("memory: dataset on disk", format!("{}{}", human_bytes(d as f64), if s.dataset_estimated { " (estimate)" } else { "" }));
        }
        put("client CPUs available", e.host.cpus_available.to_string());
        put("client host", format!("{} ({})", e.host.hostname, e.host.cpu_model));
        for (k, v) in &e.host.settings {
            put(&format!("host {k}"), v.clone());
        }
        let d = durability(s);
        m.insert("durability class".into(), Norm::same("durability", d.class.name().into()));
        if let Some(spec) = crate::db::engines::named(&s.engine) {
            for (name, v) in spec.commit_settings(s) {
                m.insert(format!("durability: {name}"), Norm::same("durability", v));
            }
        }
        if let Some(t) = d.torn_pages {
            m.insert("durability: torn-page protection".into(), Norm::same("durability", if t { "on" } else { "off" }.into()));
        }
        let (fit, _) = memory_fit(s);
        m.insert("memory fit".into(), Norm::same("memory", fit.name().into()));
        if let Some(n) = engine_cache(s) {
            m.insert("memory: engine cache".into(), n);
        }
    }
    m
}

/// The engine's page cache, named by its own variable.
fn engine_cache(s: &Server) -> Option<Norm> {
    let c = s.cache_bytes?;
    let var = crate::db::engines::named(&s.engine).map_or("cache", |e| e.cache_setting());
    let size = human_bytes(c as f64);
    Some(Norm::new("memory", size.clone(), format!("{var} = {size}")))
}

/// Settings that mean the same on every engine though named differently;
/// only compared between runs of different engines (same-engine runs
/// compare the variables themselves).
fn engine_lines(s: &Server) -> BTreeMap<&'static str, Norm> {
    let Some(engine) = crate::db::engines::named(&s.engine) else { return BTreeMap::new() };
    engine
        .common_settings(s)
        .into_iter()
        .map(|(aspect, c)| {
            let (line, group) = match aspect {
                Aspect::LogSync => ("IO: log sync at commit", "IO"),
                Aspect::DataFileIo => ("IO: data file access", "IO"),
                Aspect::BackgroundFlush => ("IO: background flushing", "IO"),
                Aspect::IoConcurrency => ("IO: concurrent IO", "IO"),
                Aspect::LogCapacity => ("IO: log size before a checkpoint", "IO"),
                Aspect::LogBuffer => ("IO: log buffer", "IO"),
                Aspect::Connections => ("concurrency: connection handling", "concurrency"),
            };
            (line, Norm::new(group, c.key, c.shown))
        })
        .collect()
}

/// Raw server settings, compared only between runs of the same engine.
fn raw_vars(s: &Server) -> BTreeMap<String, String> {
    let mut m: BTreeMap<String, String> = s.variables.clone();
    for (k, v) in &s.session {
        m.insert(k.clone(), v.clone());
    }
    // Identity and bookkeeping that always differ and say nothing about the result.
    const NOISE: &[&str] = &[
        "port",
        "socket",
        "pid_file",
        "datadir",
        "hostname",
        "server_id",
        "server_uuid",
        "gtid",
        "timestamp",
        "data_directory",
        "config_file",
        "hba_file",
        "ident_file",
        "log_error",
        "general_log_file",
        "slow_query_log_file",
        "tmpdir",
        "unix_socket",
        "external_pid_file",
        "insert_id",
        "last_insert_id",
        "rand_seed",
        "pseudo_thread_id",
        "warning_count",
        "error_count",
        "identity",
        "application_name",
        "krb_server",
        "cluster_name",
        "wsrep",
        "page_count",
        "innodb_buffer_pool_load_at_startup",
        "log_bin_basename",
        "log_bin_index",
        "relay_log",
        "lc_messages_dir",
        "plugin_dir",
        "character_sets_dir",
        "basedir",
        "secure_file_priv",
    ];
    m.retain(|k, _| !NOISE.iter().any(|n| k.contains(n)));
    m
}

pub struct Diff {
    pub group: &'static str,
    pub name: String,
    pub values: Vec<String>,
}

pub fn config_diff(rs: &[&RunRecord]) -> Vec<Diff> {
    let mut out = Vec::new();
    let norms: Vec<BTreeMap<String, Norm>> = rs.iter().map(|r| normalised(r)).collect();
    push_differing(&mut out, &norms, true);
    let servers: Option<Vec<&Server>> = rs.iter().map(|r| r.env_start.as_ref().map(|e| &e.server)).collect();
    let same_engine = rs.windows(2).all(|w| w[0].engine == w[1].engine);
    match servers {
        Some(ss) if same_engine => {
            let raws: Vec<BTreeMap<String, String>> = ss.iter().map(|s| raw_vars(s)).collect();
            let keys: BTreeSet<&String> = raws.iter().flat_map(|m| m.keys()).collect();
            for k in keys {
                let vals: Vec<String> = raws.iter().map(|m| m.get(k).cloned().unwrap_or_else(|| "-".into())).collect();
                if vals.windows(2).any(|w| w[0] != w[1]) {
                    out.push(Diff { group: group_of(k), name: format!("server {k}"), values: vals });
                }
            }
        }
        Some(ss) => {
            let lines: Vec<BTreeMap<String, Norm>> = ss.iter().map(|s| engine_lines(s).into_iter().map(|(k, v)| (k.to_string(), v)).collect()).collect();
            // A line one engine has no counterpart for says nothing about a difference.
            push_differing(&mut out, &lines, false);
        }
        None => {}
    }
    let order = |g: &str| ["durability", "memory", "IO", "concurrency", "other"].iter().position(|x| *x == g).unwrap_or(9);
    out.sort_by(|a, b| order(a.group).cmp(&order(b.group)).then(a.name.cmp(&b.name)));
    out
}

/// Adds a line for each name whose compared values differ between the runs.
/// `missing`: whether a run without the name counts as "-" (else the name is skipped).
fn push_differing(out: &mut Vec<Diff>, per_run: &[BTreeMap<String, Norm>], missing: bool) {
    let names: BTreeSet<&String> = per_run.iter().flat_map(|m| m.keys()).collect();
    for k in names {
        if !missing && per_run.iter().any(|m| !m.contains_key(k)) {
            continue;
        }
        let keys: Vec<Option<&str>> = per_run.iter().map(|m| m.get(k).map(|n| n.key.as_str())).collect();
        if keys.windows(2).all(|w| w[0] == w[1]) {
            continue;
        }
        let group = per_run.iter().find_map(|m| m.get(k)).map(|n| n.group).unwrap_or("other");
        let values = per_run.iter().map(|m| m.get(k).map(|n| n.shown.clone()).unwrap_or_else(|| "-".into())).collect();
        out.push(Diff { group, name: k.clone(), values });
    }
}

fn pct(a: f64, b: f64) -> Option<f64> {
    if a > 0.0 {
        Some((b - a) * 100.0 / a)
    } else {
        None
    }
}

pub struct Compared {
    pub findings: Vec<Finding>,
    pub diffs: Vec<Diff>,
}

pub fn compare(rs: &[&RunRecord]) -> Compared {
    Compared { findings: audit::compared(rs), diffs: config_diff(rs) }
}

/// A run's figures at `threads` clients: the medians of its completed
/// repetitions, or the one level as measured.
fn at_level(r: &RunRecord, key: &LevelKey) -> Option<LevelRec> {
    let done: Vec<&LevelRec> = r.levels.iter().filter(|l| l.key() == *key && l.status == "completed").collect();
    if done.len() < 2 {
        return done.first().copied().or_else(|| r.levels.iter().find(|l| l.key() == *key)).cloned();
    }
    let med = |f: fn(&LevelRec) -> f64| median(&done.iter().map(|l| f(l)).collect::<Vec<_>>());
    // The outage is not a typical figure but the worst: the repetition with the longest gap.
    let outage = done.iter().filter_map(|l| l.outage.as_ref()).max_by(|a, b| gap_of(a).total_cmp(&gap_of(b))).cloned();
    Some(LevelRec {
        threads: key.threads,
        tps: med(|l| l.tps),
        qps: med(|l| l.qps),
        qps_no_trx: med(|l| l.qps_no_trx),
        p95_ms: med(|l| l.p95_ms),
        p99_ms: med(|l| l.p99_ms),
        outage,
        ..done[0].clone()
    })
}

fn gap_of(o: &Outage) -> f64 {
    o.all.as_ref().map(|g| g.secs).unwrap_or(0.0)
}

/// A level's longest gap in seconds as a column shows it: "<0.02" when
/// none was above the threshold, "-" when it was not measured, a trailing
/// "+" when it lasted to the level's end.
fn gap_cell(o: Option<&Outage>, pick: fn(&Outage) -> Option<&GapSpan>) -> String {
    match o {
        None => "-".into(),
        Some(o) => match pick(o) {
            Some(g) => format!("{:.3}{}", g.secs, if g.open { "+" } else { "" }),
            None => format!("<{}", o.threshold_ms / 1e3),
        },
    }
}

/// Whether any run measured a level more than once (a series).
fn any_series(rs: &[&RunRecord]) -> bool {
    rs.iter().any(|r| r.repeated().iter().any(|l| l.tps.len() >= 2))
}

/// The first column's heading: "step" where the levels are steps.
pub fn level_column(rs: &[&RunRecord]) -> &'static str {
    LevelKey::heading(rs.iter().any(|r| r.levels.iter().any(|l| l.step().is_some())))
}

fn level_keys(rs: &[&RunRecord]) -> Vec<LevelKey> {
    LevelKey::of(rs.iter().flat_map(|r| r.levels.iter().map(|l| l.key())))
}

/// The findings that say the sides ran different software: the server's
/// version and build, the host's kernel, fairbench's own build.
const SOFTWARE: [(&str, &str); 4] =
    [("server-version-mismatch", "server version"), ("server-build-mismatch", "server build"), ("kernel-mismatch", "kernel"), ("fairbench-build-mismatch", "fairbench")];

/// "Not the same software" and a line per difference, first in `compare`'s
/// text so that nobody reads a version's effect as a setting's; empty when
/// every side ran the same.
fn software_text(findings: &[Finding]) -> String {
    let mut o = String::new();
    for (rule, what) in SOFTWARE {
        if let Some(f) = findings.iter().find(|f| f.rule == rule) {
            o.push_str(&format!("  {what} ({}): {}\n", f.severity.name(), f.evidence.join("; ")));
        }
    }
    if o.is_empty() {
        return o;
    }
    format!("Not the same software on every side:\n{o}\n")
}

/// The comparison as text. `verdicts` holds each run after the first
/// against it, level by level (`gate::lines`); they are shown when a run
/// has repetitions or when `max_regression` judges them.
pub fn text(rs: &[&RunRecord], verdicts: &[Vec<gate::Line>], max_regression: Option<f64>) -> String {
    let c = compare(rs);
    let mut o = software_text(&c.findings);
    o.push_str(&audit::findings_text(&c.findings));
    o.push('\n');
    let hardware: Vec<Vec<Efficiency>> = rs.iter().map(|r| efficiency::of_run(r)).collect();
    if let Some(s) = waits::sentence(rs, &hardware, &c.diffs) {
        o.push_str(&format!("Where the server's time differs most: {s}\n\n"));
    }
    o.push_str("Runs:\n");
    for r in rs {
        o.push_str(&format!(
            "  {:>4}: {} on {} ({}, {}), {}{}\n",
            r.id,
            r.label,
            r.target,
            r.engine,
            r.transport,
            r.status_text(),
            if r.tag.is_empty() { String::new() } else { format!(" [{}]", r.tag) }
        ));
    }
    o.push('\n');
    o.push_str(&capacity_text(rs));
    let base = rs[0];
    let series = any_series(rs);
    let medians = if series { ", medians of the repetitions" } else { "" };
    o.push_str(&format!("Per load level (difference against run {}{medians}):\n", base.id));
    let mut table = crate::columns::Table::new(2, 2, [level_column(rs), "run", "tps", "diff", "qps", "diff", "p95 ms", "diff", "p99 ms", "diff", "gap s", "write gap s"]).glue([3, 5, 7, 9]);
    let d = |x: Option<f64>| x.map(|v| format!("{v:+.1}%")).unwrap_or_else(|| "".into());
    for key in level_keys(rs) {
        let b = at_level(base, &key);
        let t = key.cell();
        for r in rs {
            let Some(l) = at_level(r, &key) else {
                table.row(vec![t.clone(), r.id.to_string(), "not run".into()]);
                continue;
            };
            let (dt, dq, d95, d99) = match (&b, r.id == base.id) {
                (Some(b), false) => (pct(b.tps, l.tps), pct(b.qps, l.qps), pct(b.p95_ms, l.p95_ms), pct(b.p99_ms, l.p99_ms)),
                _ => (None, None, None, None),
            };
            let (gap, wgap) = (gap_cell(l.outage.as_ref(), |o| o.all.as_ref()), gap_cell(l.outage.as_ref(), |o| o.write.as_ref()));
            table.row(vec![
                t.clone(),
                r.id.to_string(),
                format!("{:.2}", l.tps),
                d(dt),
                format!("{:.2}", l.qps),
                d(dq),
                format!("{:.2}", l.p95_ms),
                d(d95),
                format!("{:.2}", l.p99_ms),
                d(d99),
                gap,
                wgap,
            ]);
        }
    }
    o.push_str(&table.text());
    o.push_str(&figures_text(rs));
    o.push_str(&kinds_text(rs));
    o.push_str(&efficiency_text(rs, &hardware));
    o.push_str(&waits::text(rs, &hardware));
    if series || max_regression.is_some() {
        for (r, ls) in rs[1..].iter().zip(verdicts) {
            o.push('\n');
            o.push_str(&gate::text(base, r, ls, max_regression));
        }
    }
    o.push('\n');
    if c.diffs.is_empty() {
        o.push_str("Configuration: no differences recorded.\n");
    } else {
        o.push_str("Configuration differences (only what differs):\n");
        let mut group = "";
        for df in &c.diffs {
            if df.group != group {
                group = df.group;
                o.push_str(&format!("  {group}:\n"));
            }
            let vals: Vec<String> = rs.iter().zip(&df.values).map(|(r, v)| format!("[{}] {v}", r.id)).collect();
            o.push_str(&format!("    {}: {}\n", df.name, vals.join("  ")));
        }
    }
    crate::columns::wrap(&o)
}

/// `--find-max` results side by side: each run's capacity under its objective, with its ratio
/// to the first run's (a comparison of two objectives is said to be one).
fn capacity_text(rs: &[&RunRecord]) -> String {
    let found: Vec<(&RunRecord, &Capacity)> = rs.iter().filter_map(|r| Some((*r, r.capacity.as_ref()?))).collect();
    let Some((base, b)) = found.first() else { return String::new() };
    let mut o = format!("Capacity (find-max; ratio against run {}):\n", base.id);
    for (r, c) in &found {
        let ratio = match (c.capacity, b.capacity) {
            (Some(x), Some(y)) if y > 0.0 && r.id != base.id => format!("  x{:.3}", x / y),
            _ => String::new(),
        };
        let value = c.capacity.map_or_else(|| "none met".to_string(), |v| format!("{v:.2} events/s"));
        let other = if c.objective != b.objective || c.by != b.by { "  (another objective: not comparable)" } else { "" };
        o.push_str(&format!("  {:>4}: {value} under {} by {}, {}{ratio}{other}\n", r.id, c.objective, c.by, c.bracket_text()));
    }
    o.push('\n');
    o
}

/// The capacities of the runs that searched one, with ratios to the first's.
fn capacity_json(rs: &[&RunRecord]) -> Value {
    let base = rs.iter().find_map(|r| r.capacity.as_ref()?.capacity);
    Value::Array(
        rs.iter()
            .filter_map(|r| {
                let c = r.capacity.as_ref()?;
                Some(json!({ "run": r.id, "objective": c.objective, "by": c.by, "capacity": c.capacity, "met": c.met, "missed": c.missed,
                    "ratio": c.capacity.zip(base).filter(|(_, b)| *b > 0.0).map(|(x, b)| x / b) }))
            })
            .collect(),
    )
}

/// The figures a workload measured per level (a step's inserts/s, queries/s,
/// whether its writers kept their rate), each numeric one with its
/// difference against the first run's.
fn figures_text(rs: &[&RunRecord]) -> String {
    let mut o = String::new();
    for key in level_keys(rs) {
        let base: BTreeMap<String, String> = at_level(rs[0], &key).map(|l| l.figures().into_iter().collect()).unwrap_or_default();
        for r in rs {
            let Some(l) = at_level(r, &key) else { continue };
            let figures = l.figures();
            if figures.is_empty() {
                continue;
            }
            if o.is_empty() {
                o.push_str(&format!("\nWorkload figures (difference against run {}):\n", rs[0].id));
            }
            let cells: Vec<String> = figures
                .iter()
                .map(|(k, v)| {
                    let diff = match (base.get(k).and_then(|b| b.parse::<f64>().ok()), v.parse::<f64>().ok()) {
                        (Some(b), Some(x)) if r.id != rs[0].id => pct(b, x).map(|d| format!(" ({d:+.1}%)")).unwrap_or_default(),
                        _ => String::new(),
                    };
                    format!("{k} {v}{diff}")
                })
                .collect();
            o.push_str(&format!("  {:>7}  {:>5}  {}\n", key.cell(), r.id, cells.join(", ")));
        }
    }
    o
}

/// Each kind of event's mean latency per level (TPC-C's transactions,
/// TPC-H's and CH-benCHmark's queries), run by run, with its ratio to the
/// first run's; kinds no run completed are left out.
fn kinds_text(rs: &[&RunRecord]) -> String {
    let mean = |l: &crate::model::record::LevelRec, name: &str| {
        l.kinds()
            .iter()
            .find(|k| k.get("name").and_then(|n| n.as_str()) == Some(name))
            .filter(|k| k.get("events").and_then(|e| e.as_u64()).unwrap_or(0) > 0)
            .and_then(|k| k.get("latency_ms")?.get("avg")?.as_f64())
    };
    let head = [level_column(rs).to_string(), "kind".to_string()].into_iter().chain(rs.iter().map(|r| format!("run {}", r.id)));
    let mut table = crate::columns::Table::new(2, 2, head);
    for key in level_keys(rs) {
        let levels: Vec<Option<crate::model::record::LevelRec>> = rs.iter().map(|r| at_level(r, &key)).collect();
        let mut names: Vec<String> = Vec::new();
        for l in levels.iter().flatten() {
            for k in l.kinds() {
                if let Some(n) = k.get("name").and_then(|n| n.as_str()) {
                    if !names.iter().any(|x| x == n) && mean(l, n).is_some() {
                        names.push(n.to_string());
                    }
                }
            }
        }
        for name in names {
            let values: Vec<Option<f64>> = levels.iter().map(|l| l.as_ref().and_then(|l| mean(l, &name))).collect();
            let cells = values.iter().enumerate().map(|(i, v)| efficiency::with_ratio(*v, values[0], i == 0));
            table.row([key.cell(), name].into_iter().chain(cells).collect());
        }
    }
    if table.is_empty() || rs.len() < 2 {
        return String::new();
    }
    format!("\nMean latency by kind (ms; in brackets the ratio to run {}):\n{}", rs[0].id, table.text())
}

/// A run's hardware figures at `threads` (a series' first repetition), of
/// its figures computed once.
fn efficiency_at<'a>(figures: &'a [Efficiency], key: &LevelKey) -> Option<&'a Efficiency> {
    figures.iter().find(|e| e.key() == *key && e.secs > 0.0)
}

/// The per-operation figures side by side, each with its ratio to the first
/// run's (as Small Datum's tables are relative to a base version).
fn efficiency_text(rs: &[&RunRecord], all: &[Vec<Efficiency>]) -> String {
    let base = rs[0];
    let head = [level_column(rs), "run", "tps"].into_iter().chain(efficiency::FIGURES.iter().map(|f| f.short));
    let mut table = crate::columns::Table::new(2, 2, head);
    for key in level_keys(rs) {
        let Some(b) = efficiency_at(&all[0], &key) else { continue };
        for (r, figures) in rs.iter().zip(all) {
            let Some(e) = efficiency_at(figures, &key) else { continue };
            let mut cells = vec![key.cell(), r.id.to_string(), format!("{:.1}", e.tps)];
            cells.extend(efficiency::FIGURES.iter().map(|f| efficiency::with_ratio((f.of)(e), (f.of)(b), r.id == base.id)));
            table.row(cells);
        }
    }
    if table.is_empty() {
        return String::new();
    }
    format!("\nHardware per transaction (CPU in µs; in brackets the ratio to run {}):\n{}", base.id, table.text())
}

/// The comparison as JSON, `verdicts` as for [`text`].
pub fn json(rs: &[&RunRecord], verdicts: &[Vec<gate::Line>]) -> Value {
    let c = compare(rs);
    let base = rs[0];
    let hardware: Vec<Vec<Efficiency>> = rs.iter().map(|r| efficiency::of_run(r)).collect();
    let levels: Vec<Value> = level_keys(rs)
        .into_iter()
        .map(|key| {
            let b = at_level(base, &key);
            let runs: Vec<Value> = rs
                .iter()
                .filter_map(|r| {
                    let l = at_level(r, &key)?;
                    let diff = |f: fn(&LevelRec) -> f64| b.as_ref().filter(|_| r.id != base.id).and_then(|b| pct(f(b), f(&l)));
                    Some(json!({
                        "run": r.id, "tps": l.tps, "qps": l.qps, "qps_without_trx": l.qps_no_trx, "p95_ms": l.p95_ms, "p99_ms": l.p99_ms,
                        "tps_diff_pct": diff(|l| l.tps), "qps_diff_pct": diff(|l| l.qps), "p95_diff_pct": diff(|l| l.p95_ms), "p99_diff_pct": diff(|l| l.p99_ms),
                        "outage": l.outage,
                        "figures": l.figures().into_iter().map(|(k, v)| (k, Value::String(v))).collect::<serde_json::Map<String, Value>>(),
                    }))
                })
                .collect();
            let efficiency: Vec<Value> = rs.iter().zip(&hardware).filter_map(|(r, figures)| Some(json!({ "run": r.id, "figures": efficiency_at(figures, &key)? }))).collect();
            json!({ "threads": key.threads, "step": key.step, "runs": runs, "efficiency": efficiency })
        })
        .collect();
    let mut groups: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for d in &c.diffs {
        groups.entry(d.group).or_default().push(json!({ "name": d.name, "values": d.values }));
    }
    json!({
        "type": "compare",
        "baseline": base.id,
        "runs": rs.iter().map(|r| json!({ "id": r.id, "label": r.label, "tag": r.tag, "engine": r.engine, "target": r.target, "transport": r.transport, "status": r.status, "status_text": r.status_text() })).collect::<Vec<_>>(),
        "findings": c.findings,
        "levels": levels,
        "capacity": capacity_json(rs),
        "config_diff": groups,
        "server_time_difference": waits::sentence(rs, &hardware, &c.diffs),
        "significance": rs[1..].iter().zip(verdicts).map(|(r, ls)| json!({ "run": r.id, "baseline": base.id, "levels": gate::json(ls) })).collect::<Vec<_>>(),
    })
}
