//! `fairbench compare`: runs or sweeps side by side per load level, the
//! configuration differences that matter grouped by what they affect, and
//! the audit's findings first, since they decide whether the numbers below
//! them mean anything.

use crate::audit::{self, memory_fit};
use crate::env::durability::durability;
use crate::env::{human_bytes, Server};
use crate::model::record::{Finding, RunRecord};
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
    for (k, v) in &r.options {
        if k != "threads" && k != "rand-seed" {
            put(&format!("--{k}"), v.as_str().unwrap_or("").to_string());
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
            put("memory: dataset on disk", human_bytes(d as f64));
        }
        put("client CPUs available", e.host.cpus_available.to_string());
        put("client host", format!("{} ({})", e.host.hostname, e.host.cpu_model));
        for (k, v) in &e.host.settings {
            put(&format!("host {k}"), v.clone());
        }
        let d = durability(s);
        m.insert("durability class".into(), Norm::same("durability", d.class.name().into()));
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
    let var = match s.engine.as_str() {
        "mysql" => "innodb_buffer_pool_size",
        "postgres" => "shared_buffers",
        _ => "cache_size/mmap_size",
    };
    let size = human_bytes(c as f64);
    Some(Norm::new("memory", size.clone(), format!("{var} = {size}")))
}

/// A server variable as a number of bytes (PostgreSQL units applied).
fn var_bytes(s: &Server, name: &str) -> Option<u64> {
    let v = s.var(name)?;
    if s.engine == "postgres" {
        crate::env::pg_bytes(v, s.units.get(name).map(String::as_str))
    } else {
        v.trim().parse::<f64>().ok().map(|v| v as u64)
    }
}

fn var_num(s: &Server, name: &str) -> Option<f64> {
    s.var(name).and_then(|v| v.trim().parse().ok())
}

/// InnoDB's flush method by name; MariaDB may report it as a number.
fn innodb_flush_method(s: &Server) -> Option<String> {
    let v = s.var("innodb_flush_method")?.to_ascii_uppercase();
    const BY_NUMBER: &[&str] = &["FSYNC", "O_DSYNC", "LITTLESYNC", "NOSYNC", "O_DIRECT", "O_DIRECT_NO_FSYNC"];
    Some(v.parse::<usize>().ok().and_then(|i| BY_NUMBER.get(i)).map(|n| n.to_string()).unwrap_or(v))
}

/// How the redo log / WAL reaches the disk at commit, as the system call.
fn log_sync(s: &Server) -> Option<Norm> {
    let (var, val, call) = match s.engine.as_str() {
        "mysql" => {
            let m = innodb_flush_method(s)?;
            let call = match m.as_str() {
                "O_DSYNC" => "O_DSYNC writes",
                "LITTLESYNC" | "NOSYNC" => "none",
                _ => "fsync()",
            };
            ("innodb_flush_method", m, call)
        }
        "postgres" => {
            let m = s.var("wal_sync_method")?.to_ascii_lowercase();
            let call = match m.as_str() {
                "fdatasync" => "fdatasync()",
                "open_datasync" => "O_DSYNC writes",
                "open_sync" => "O_SYNC writes",
                "fsync_writethrough" => "fsync() with write-through",
                _ => "fsync()",
            };
            ("wal_sync_method", m, call)
        }
        _ => return None,
    };
    Some(Norm::new("IO", call, format!("{var} = {val}: {call}")))
}

/// Whether data files go through the OS page cache: with buffered IO the
/// OS caches pages beyond the engine's own cache, so "IO-bound" differs.
fn data_file_io(s: &Server) -> Option<Norm> {
    let (direct, why) = match s.engine.as_str() {
        "mysql" => {
            let m = innodb_flush_method(s)?;
            (m.starts_with("O_DIRECT"), format!("innodb_flush_method = {m}"))
        }
        "postgres" => {
            let d = s.var("debug_io_direct").unwrap_or("").to_ascii_lowercase();
            (d.contains("data"), if d.is_empty() { "PostgreSQL reads and writes through the OS".to_string() } else { format!("debug_io_direct = {d}") })
        }
        _ => return None,
    };
    let key = if direct { "direct (bypasses the OS page cache)" } else { "buffered (the OS page cache holds data too)" };
    Some(Norm::new("IO", key, format!("{key}: {why}")))
}

/// Background page flushing, in pages per second.
fn background_flush(s: &Server) -> Option<Norm> {
    match s.engine.as_str() {
        "mysql" => {
            let cap = var_num(s, "innodb_io_capacity")?;
            let max = var_num(s, "innodb_io_capacity_max").map(|m| format!(" (max {m:.0})")).unwrap_or_default();
            Some(Norm::new("IO", format!("about {cap:.0} pages/s"), format!("innodb_io_capacity = {cap:.0}{max}: about {cap:.0} pages/s")))
        }
        "postgres" => {
            let pages = var_num(s, "bgwriter_lru_maxpages")?;
            let delay = var_num(s, "bgwriter_delay").filter(|d| *d > 0.0)?;
            let rate = pages * 1000.0 / delay;
            Some(Norm::new("IO", format!("about {rate:.0} pages/s"), format!("bgwriter_lru_maxpages = {pages:.0} every bgwriter_delay = {delay:.0} ms: up to {rate:.0} pages/s")))
        }
        _ => None,
    }
}

/// Concurrent IO the engine issues: InnoDB's IO threads, PostgreSQL's prefetch depth.
fn io_concurrency(s: &Server) -> Option<Norm> {
    match s.engine.as_str() {
        "mysql" => {
            let (r, w) = (var_num(s, "innodb_read_io_threads")?, var_num(s, "innodb_write_io_threads")?);
            Some(Norm::same("IO", format!("innodb_read_io_threads = {r:.0}, innodb_write_io_threads = {w:.0}")))
        }
        "postgres" => {
            let e = var_num(s, "effective_io_concurrency")?;
            let maint = var_num(s, "maintenance_io_concurrency").map(|m| format!(", maintenance_io_concurrency = {m:.0}")).unwrap_or_default();
            Some(Norm::same("IO", format!("effective_io_concurrency = {e:.0}{maint}")))
        }
        _ => None,
    }
}

/// Redo log / WAL the engine may fill before it must checkpoint.
fn log_capacity(s: &Server) -> Option<Norm> {
    let (bytes, shown) = match s.engine.as_str() {
        // MySQL 8.0.30+ sizes the redo log with one variable; older servers and MariaDB by file.
        "mysql" => match var_bytes(s, "innodb_redo_log_capacity") {
            Some(b) => (b, format!("innodb_redo_log_capacity = {}", human_bytes(b as f64))),
            None => {
                let f = var_bytes(s, "innodb_log_file_size")?;
                let n = var_num(s, "innodb_log_files_in_group").unwrap_or(1.0).max(1.0) as u64;
                (f * n, format!("innodb_log_file_size = {} x {n} file(s)", human_bytes(f as f64)))
            }
        },
        "postgres" => {
            let b = var_bytes(s, "max_wal_size")?;
            (b, format!("max_wal_size = {}", human_bytes(b as f64)))
        }
        _ => return None,
    };
    let size = human_bytes(bytes as f64);
    Some(Norm::new("IO", size.clone(), format!("{shown}: {size}")))
}

/// Memory the log is written into before it goes to the file.
fn log_buffer(s: &Server) -> Option<Norm> {
    let (var, bytes) = match s.engine.as_str() {
        "mysql" => ("innodb_log_buffer_size", var_bytes(s, "innodb_log_buffer_size")?),
        "postgres" => {
            // -1: sized from shared_buffers (1/32, between 64 kB and one 16 MB WAL segment).
            let b = if s.var("wal_buffers").map(str::trim) == Some("-1") { s.cache_bytes.map(|c| (c / 32).clamp(64 << 10, 16 << 20))? } else { var_bytes(s, "wal_buffers")? };
            ("wal_buffers", b)
        }
        _ => return None,
    };
    let size = human_bytes(bytes as f64);
    Some(Norm::new("IO", size.clone(), format!("{var} = {size}")))
}

/// How client connections map onto the server's workers.
fn connection_handling(s: &Server) -> Option<Norm> {
    let max = s.var("max_connections").map(|m| format!(", max_connections = {m}")).unwrap_or_default();
    match s.engine.as_str() {
        "mysql" => {
            let h = s.var("thread_handling").unwrap_or("one-thread-per-connection").to_ascii_lowercase();
            let key = if h.contains("pool") { "thread pool" } else { "one worker per connection" };
            let size = if h.contains("pool") { s.var("thread_pool_size").map(|n| format!(" of {n}")).unwrap_or_default() } else { String::new() };
            Some(Norm::new("concurrency", key, format!("thread_handling = {h}{size}{max}")))
        }
        "postgres" => Some(Norm::new("concurrency", "one worker per connection", format!("one process per connection{max}"))),
        _ => None,
    }
}

/// Settings that mean the same on every engine though named differently;
/// only compared between runs of different engines (same-engine runs
/// compare the variables themselves).
fn engine_lines(s: &Server) -> BTreeMap<&'static str, Norm> {
    let all: [(&'static str, Option<Norm>); 7] = [
        ("IO: log sync at commit", log_sync(s)),
        ("IO: data file access", data_file_io(s)),
        ("IO: background flushing", background_flush(s)),
        ("IO: concurrent IO", io_concurrency(s)),
        ("IO: log size before a checkpoint", log_capacity(s)),
        ("IO: log buffer", log_buffer(s)),
        ("concurrency: connection handling", connection_handling(s)),
    ];
    all.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))).collect()
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
    Compared { findings: audit::audit(rs), diffs: config_diff(rs) }
}

fn thread_levels(rs: &[&RunRecord]) -> Vec<usize> {
    let s: BTreeSet<usize> = rs.iter().flat_map(|r| r.levels.iter().map(|l| l.threads)).collect();
    s.into_iter().collect()
}

pub fn text(rs: &[&RunRecord]) -> String {
    let c = compare(rs);
    let mut o = audit::findings_text(&c.findings);
    o.push('\n');
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
    let base = rs[0];
    o.push_str(&format!("Per load level (difference against run {}):\n", base.id));
    o.push_str(&format!("  {:>7}  {:>5}  {:>12} {:>8}  {:>12} {:>8}  {:>9} {:>8}  {:>9} {:>8}\n", "threads", "run", "tps", "diff", "qps", "diff", "p95 ms", "diff", "p99 ms", "diff"));
    let d = |x: Option<f64>| x.map(|v| format!("{v:+.1}%")).unwrap_or_else(|| "".into());
    for t in thread_levels(rs) {
        let b = base.levels.iter().find(|l| l.threads == t);
        for r in rs {
            let Some(l) = r.levels.iter().find(|l| l.threads == t) else {
                o.push_str(&format!("  {t:>7}  {:>5}  {:>12}\n", r.id, "not run"));
                continue;
            };
            let (dt, dq, d95, d99) = match (b, r.id == base.id) {
                (Some(b), false) => (pct(b.tps, l.tps), pct(b.qps, l.qps), pct(b.p95_ms, l.p95_ms), pct(b.p99_ms, l.p99_ms)),
                _ => (None, None, None, None),
            };
            o.push_str(&format!("  {t:>7}  {:>5}  {:>12.2} {:>8}  {:>12.2} {:>8}  {:>9.2} {:>8}  {:>9.2} {:>8}\n", r.id, l.tps, d(dt), l.qps, d(dq), l.p95_ms, d(d95), l.p99_ms, d(d99)));
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
    o
}

pub fn json(rs: &[&RunRecord]) -> Value {
    let c = compare(rs);
    let base = rs[0];
    let levels: Vec<Value> = thread_levels(rs)
        .into_iter()
        .map(|t| {
            let b = base.levels.iter().find(|l| l.threads == t);
            let runs: Vec<Value> = rs
                .iter()
                .filter_map(|r| {
                    let l = r.levels.iter().find(|l| l.threads == t)?;
                    let diff = |f: fn(&crate::model::record::LevelRec) -> f64| b.filter(|_| r.id != base.id).and_then(|b| pct(f(b), f(l)));
                    Some(json!({
                        "run": r.id, "tps": l.tps, "qps": l.qps, "qps_without_trx": l.qps_no_trx, "p95_ms": l.p95_ms, "p99_ms": l.p99_ms,
                        "tps_diff_pct": diff(|l| l.tps), "qps_diff_pct": diff(|l| l.qps), "p95_diff_pct": diff(|l| l.p95_ms), "p99_diff_pct": diff(|l| l.p99_ms),
                    }))
                })
                .collect();
            json!({ "threads": t, "runs": runs })
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
        "config_diff": groups,
    })
}
