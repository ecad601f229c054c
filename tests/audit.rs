//! The fairness audit: every rule on constructed records (one case that
//! fires, one that must not), then durability findings on the real servers.

mod common;

use common::*;
use fairbench::audit;
use fairbench::env::{Host, Sample, Server, Snapshot};
use fairbench::model::record::{Finding, IntervalRec, LevelRec, RunRecord, Severity, StoredSample};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

// ---------------------------------------------------------------------------
// Constructed records
// ---------------------------------------------------------------------------

fn vars(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
    kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn server(engine: &str, kv: &[(&str, &str)]) -> Server {
    Server { engine: engine.into(), version: format!("{engine} 1.0"), local: true, variables: vars(kv), dataset_bytes: Some(100 << 20), cache_bytes: Some(1 << 30), ..Server::default() }
}

fn mysql_durable() -> Server {
    server("mysql", &[("innodb_flush_log_at_trx_commit", "1"), ("log_bin", "OFF"), ("sync_binlog", "0"), ("innodb_doublewrite", "ON"), ("innodb_flush_method", "O_DIRECT")])
}

fn pg_durable() -> Server {
    server("postgres", &[("fsync", "on"), ("synchronous_commit", "on"), ("full_page_writes", "on"), ("wal_sync_method", "fdatasync")])
}

/// Intervals of one second at the given TPS values.
fn intervals(tps: &[u64]) -> Vec<IntervalRec> {
    tps.iter().enumerate().map(|(i, &e)| IntervalRec { seq: i, t: (i + 1) as f64, secs: 1.0, events: e, reads: e, ..IntervalRec::default() }).collect()
}

fn level(threads: usize, tps: &[u64]) -> LevelRec {
    let ivs = intervals(tps);
    let events: u64 = tps.iter().sum();
    let secs = tps.len() as f64;
    LevelRec {
        threads,
        status: "completed".into(),
        ended_at: Some("x".into()),
        events,
        queries: events,
        elapsed_s: secs,
        tps: events as f64 / secs,
        qps: events as f64 / secs,
        qps_no_trx: events as f64 / secs,
        p95_ms: 1.0,
        p99_ms: 2.0,
        intervals: ivs,
        ..LevelRec::default()
    }
}

fn record(id: i64, srv: Server, levels: Vec<LevelRec>) -> RunRecord {
    let options =
        fairbench::model::options::RunOptions::from_pairs([("db-ps-mode", "auto"), ("rand-type", "uniform"), ("tables", "1"), ("table-size", "10000"), ("skip-trx", "off"), ("warmup-time", "5")]);
    RunRecord {
        id,
        kind: "run".into(),
        label: "OLTP_RW-10Kx1tab-uniform-ps-trx".into(),
        workload: "oltp_read_write".into(),
        engine: srv.engine.clone(),
        target: "x".into(),
        transport: "tcp".into(),
        status: "completed".into(),
        options,
        env_start: Some(Snapshot { server: srv, host: Host { cpus: 8, cpus_available: 8, cpu_model: "cpu".into(), hostname: "h".into(), ..Host::default() }, ..Snapshot::default() }),
        levels,
        ..RunRecord::default()
    }
}

fn steady() -> Vec<LevelRec> {
    vec![level(4, &[1000, 1010, 990, 1000, 1005, 995, 1000, 1000])]
}

fn rules(fs: &[Finding]) -> Vec<&str> {
    fs.iter().map(|f| f.rule.as_str()).collect()
}

fn has(fs: &[Finding], rule: &str) -> bool {
    fs.iter().any(|f| f.rule == rule)
}

#[test]
fn durability_classes_across_engines() {
    use fairbench::env::durability::{durability, DurClass};
    assert_eq!(durability(&mysql_durable()).class, DurClass::Synced);
    let mut m = mysql_durable();
    m.variables.insert("innodb_flush_log_at_trx_commit".into(), "2".into());
    assert_eq!(durability(&m).class, DurClass::PerSecond);
    let mut m = mysql_durable();
    m.variables.insert("log_bin".into(), "ON".into());
    assert_eq!(durability(&m).class, DurClass::PerSecond, "binary log on but not synced per commit");
    m.variables.insert("sync_binlog".into(), "1".into());
    assert_eq!(durability(&m).class, DurClass::Synced);
    m.session.insert("sql_log_bin".into(), "OFF".into());
    m.variables.insert("sync_binlog".into(), "0".into());
    assert_eq!(durability(&m).class, DurClass::Synced, "the session does not write the binary log");
    assert_eq!(durability(&pg_durable()).class, DurClass::Synced);
    let mut p = pg_durable();
    p.variables.insert("synchronous_commit".into(), "off".into());
    assert_eq!(durability(&p).class, DurClass::PerSecond);
    p.variables.insert("fsync".into(), "off".into());
    assert_eq!(durability(&p).class, DurClass::NotSynced);
    let l = server("sqlite", &[("synchronous", "2"), ("journal_mode", "wal")]);
    assert_eq!(durability(&l).class, DurClass::Synced);
    let l = server("sqlite", &[("synchronous", "1"), ("journal_mode", "wal")]);
    assert_eq!(durability(&l).class, DurClass::PerSecond);
    let l = server("sqlite", &[("synchronous", "0"), ("journal_mode", "wal")]);
    assert_eq!(durability(&l).class, DurClass::NotSynced);
}

#[test]
fn rule_durability_mismatch() {
    let a = record(1, mysql_durable(), steady());
    let b = record(2, pg_durable(), steady());
    let fs = audit::rule_durability_mismatch(&[&a, &b]);
    assert!(fs.is_empty(), "matched durability across engines: {fs:?}");
    let mut m = mysql_durable();
    m.variables.insert("innodb_flush_log_at_trx_commit".into(), "2".into());
    let c = record(3, m, steady());
    let fs = audit::rule_durability_mismatch(&[&a, &c]);
    assert_eq!(rules(&fs), vec!["durability-mismatch"]);
    assert_eq!(fs[0].severity, Severity::Critical);
    assert!(fs[0].evidence.iter().any(|e| e.contains("innodb_flush_log_at_trx_commit=2")), "{fs:?}");
    // Torn-page protection is its own (lesser) finding.
    let mut p = pg_durable();
    p.variables.insert("full_page_writes".into(), "off".into());
    let d = record(4, p, steady());
    assert_eq!(rules(&audit::rule_durability_mismatch(&[&a, &d])), vec!["torn-page-protection-mismatch"]);
}

#[test]
fn rule_memory_fit_and_mismatch() {
    let a = record(1, mysql_durable(), steady());
    let b = record(2, pg_durable(), steady());
    assert!(audit::rule_memory_mismatch(&[&a, &b]).is_empty());
    let mut small = pg_durable();
    small.cache_bytes = Some(10 << 20); // 100 MiB of data in 10 MiB of cache
    let c = record(3, small, steady());
    let fs = audit::rule_memory_mismatch(&[&a, &c]);
    assert_eq!(rules(&fs), vec!["memory-fit-mismatch"]);
    assert!(fs[0].evidence.iter().any(|e| e.contains("IO-bound")) && fs[0].evidence.iter().any(|e| e.contains("in-memory")), "{fs:?}");
}

#[test]
fn rule_not_io_bound() {
    let mut a = record(1, mysql_durable(), steady());
    a.tag = "io-bound".into();
    let fs = audit::rule_memory(&a);
    assert!(has(&fs, "not-io-bound"), "dataset fits the cache: {fs:?}");
    let mut srv = mysql_durable();
    srv.cache_bytes = Some(10 << 20);
    let mut b = record(2, srv, steady());
    b.tag = "io-bound".into();
    // Real misses: a quarter of page requests went to disk.
    b.levels[0].samples = vec![StoredSample {
        seq: 1,
        t: 1.0,
        dt: 1.0,
        sample: Sample { deltas: [("Innodb_buffer_pool_reads".to_string(), 2500.0), ("Innodb_buffer_pool_read_requests".to_string(), 10000.0)].into(), ..Sample::default() },
    }];
    assert!(!has(&audit::rule_memory(&b), "not-io-bound"));
    // Not labelled IO-bound: no claim to check.
    let c = record(3, mysql_durable(), steady());
    assert!(!has(&audit::rule_memory(&c), "not-io-bound"));
}

#[test]
fn rule_partial_working_set() {
    // 100 MiB of data, the run picked ids from the first 10% of each table.
    let mut a = record(1, mysql_durable(), steady());
    a.options.insert("data-table-size", "100000");
    let fs = audit::rule_working_set(&a);
    assert_eq!(rules(&fs), vec!["partial-working-set"]);
    assert_eq!(fs[0].severity, Severity::Warning);
    assert!(fs[0].message.contains("1..10000 of the 100000") && fs[0].message.contains("(10%)"), "{fs:?}");
    assert!(fs[0].evidence.iter().any(|e| e.contains("10.0 MiB")), "{fs:?}");
    assert!(has(&audit::single(&a), "partial-working-set"));
    // Tables of the size the run uses: nothing to say.
    let b = record(2, mysql_durable(), steady());
    assert!(audit::rule_working_set(&b).is_empty());
    // Labelled IO-bound: the whole does not fit a 20 MiB cache, the touched part does.
    let mut srv = mysql_durable();
    srv.cache_bytes = Some(20 << 20);
    let mut c = record(3, srv.clone(), steady());
    c.tag = "io-bound".into();
    assert!(!has(&audit::rule_memory(&c), "not-io-bound"), "the whole run is IO-bound");
    c.options.insert("data-table-size", "100000");
    let fs = audit::rule_memory(&c);
    assert!(fs.iter().any(|f| f.rule == "not-io-bound" && f.message.contains("part of the tables it touches")), "{fs:?}");
}

#[test]
fn rule_fake_io_gain() {
    let reads = |phys: f64, logical: f64| {
        vec![StoredSample { seq: 1, t: 1.0, dt: 1.0, sample: Sample { deltas: [("blks_read".to_string(), phys), ("blks_hit".to_string(), logical - phys)].into(), ..Sample::default() } }]
    };
    let mut l1 = level(1, &[100, 100, 100]);
    l1.samples = reads(600.0, 3000.0); // 2 reads per transaction
    let mut l2 = level(2, &[200, 200, 200]);
    l2.samples = reads(120.0, 6000.0); // 0.2 reads per transaction
    let a = record(1, pg_durable(), vec![l1.clone(), l2]);
    let fs = audit::rule_fake_io_gain(&a);
    assert_eq!(rules(&fs), vec!["fake-io-bound-gain"], "{fs:?}");
    // Same reads per transaction at both levels: a real gain.
    let mut l2 = level(2, &[200, 200, 200]);
    l2.samples = reads(1200.0, 6000.0);
    let b = record(2, pg_durable(), vec![l1, l2]);
    assert!(audit::rule_fake_io_gain(&b).is_empty());
}

#[test]
fn rule_stalls() {
    let a = record(1, mysql_durable(), vec![level(4, &[1000, 1000, 1000, 0, 2, 1000, 1000, 1000])]);
    let fs = audit::rule_stalls(&a);
    assert_eq!(rules(&fs), vec!["stall"]);
    assert!(fs[0].evidence[0].contains("from 3s to 5s"), "{:?}", fs[0].evidence);
    // One slow second is not a stall.
    let b = record(2, mysql_durable(), vec![level(4, &[1000, 1000, 1000, 0, 1000, 1000, 1000])]);
    assert!(audit::rule_stalls(&b).is_empty());
    // Slow (20% of the median) is not near zero.
    let c = record(3, mysql_durable(), vec![level(4, &[1000, 1000, 200, 200, 200, 1000, 1000])]);
    assert!(audit::rule_stalls(&c).is_empty());
}

#[test]
fn rule_client_saturation() {
    let mut a = record(1, mysql_durable(), steady());
    a.levels[0].cpu_cores = 7.5; // of 8
    let fs = audit::rule_client_saturation(&a);
    assert_eq!(rules(&fs), vec!["client-saturation"]);
    assert!(fs[0].message.contains("the load generator may be the bottleneck"));
    a.levels[0].cpu_cores = 2.0;
    assert!(audit::rule_client_saturation(&a).is_empty());
}

#[test]
fn rule_client_saturation_per_interval() {
    // The level's average (3.4 of 8 cores) is fine, but from 2 s to 5 s the client used 7.6.
    let cpu = |a: &mut RunRecord, per_second: &[f64]| {
        for (iv, c) in a.levels[0].intervals.iter_mut().zip(per_second) {
            iv.cpu_s = *c;
        }
    };
    let mut a = record(1, mysql_durable(), steady());
    a.levels[0].cpu_cores = 3.4;
    cpu(&mut a, &[1.0, 1.0, 7.6, 7.4, 7.6, 1.0, 1.0, 1.0]);
    let fs = audit::rule_client_saturation(&a);
    assert_eq!(rules(&fs), vec!["client-saturation"]);
    assert!(fs[0].message.contains("the load generator may be the bottleneck"), "{}", fs[0].message);
    assert!(fs[0].evidence.iter().any(|e| e.contains("from 2s to 5s") && e.contains("peak 7.60 cores")), "{:?}", fs[0].evidence);
    // Busy but below 90% of the cores (7.0 of 8) in every interval: not saturated.
    let mut b = record(2, mysql_durable(), steady());
    b.levels[0].cpu_cores = 3.4;
    cpu(&mut b, &[1.0, 1.0, 7.0, 7.0, 7.0, 1.0, 1.0, 1.0]);
    assert!(audit::rule_client_saturation(&b).is_empty(), "{:?}", audit::rule_client_saturation(&b));
    // Saturated only while warming up: not measured, not reported.
    let mut c = record(3, mysql_durable(), steady());
    cpu(&mut c, &[8.0, 8.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    c.levels[0].intervals[0].warmup = true;
    c.levels[0].intervals[1].warmup = true;
    assert!(audit::rule_client_saturation(&c).is_empty());
}

#[test]
fn rule_tls_mismatch() {
    let with_tls = |id: i64, tls: Option<bool>| {
        let mut s = pg_durable();
        s.tls = tls;
        s.tls_cipher = tls.filter(|t| *t).map(|_| "TLS_AES_256_GCM_SHA384".to_string());
        record(id, s, steady())
    };
    let (a, b, c) = (with_tls(1, Some(true)), with_tls(2, Some(false)), with_tls(3, Some(true)));
    let fs = audit::rule_tls_mismatch(&[&a, &b]);
    assert_eq!(rules(&fs), vec!["tls-mismatch"]);
    assert!(fs[0].evidence.iter().any(|e| e.contains("TLS (TLS_AES_256_GCM_SHA384)")) && fs[0].evidence.iter().any(|e| e.contains("plain (no TLS)")), "{:?}", fs[0].evidence);
    assert!(has(&audit::audit(&[&a, &b]), "tls-mismatch"), "part of the audit of a comparison");
    assert!(audit::rule_tls_mismatch(&[&a, &c]).is_empty(), "both encrypted");
    // Not recorded (an older record): no claim either way.
    assert!(audit::rule_tls_mismatch(&[&a, &with_tls(4, None)]).is_empty());
}

#[test]
fn compare_normalises_settings_across_engines() {
    use fairbench::compare::config_diff;
    let mut my = mysql_durable();
    for (k, v) in [("innodb_io_capacity", "200"), ("innodb_io_capacity_max", "2000"), ("innodb_log_file_size", "1073741824"), ("innodb_log_buffer_size", "16777216"), ("max_connections", "151")] {
        my.variables.insert(k.into(), v.into());
    }
    let mut pg = pg_durable();
    for (k, v, unit) in [("bgwriter_lru_maxpages", "100", ""), ("bgwriter_delay", "200", "ms"), ("max_wal_size", "1024", "MB"), ("wal_buffers", "2048", "8kB"), ("max_connections", "151", "")] {
        pg.variables.insert(k.into(), v.into());
        if !unit.is_empty() {
            pg.units.insert(k.into(), unit.into());
        }
    }
    let diff = |a: &RunRecord, b: &RunRecord| config_diff(&[a, b]).into_iter().map(|d| (d.group, d.name, d.values)).collect::<Vec<_>>();
    let (a, b) = (record(1, my.clone(), steady()), record(2, pg.clone(), steady()));
    let d = diff(&a, &b);
    let line = |name: &str| d.iter().find(|(_, n, _)| n == name).cloned();
    // Differs: O_DIRECT vs buffered IO, fsync() vs fdatasync(), 200 vs 500 pages/s; each in IO with the engine's own variables.
    let (g, _, v) = line("IO: data file access").unwrap_or_else(|| panic!("{d:?}"));
    assert_eq!(g, "IO");
    assert!(v[0].contains("innodb_flush_method = O_DIRECT") && v[1].contains("buffered"), "{v:?}");
    let (g, _, v) = line("IO: log sync at commit").unwrap_or_else(|| panic!("{d:?}"));
    assert_eq!(g, "IO");
    assert!(v[0].contains("fsync()") && v[1].contains("wal_sync_method = fdatasync"), "{v:?}");
    let (_, _, v) = line("IO: background flushing").unwrap_or_else(|| panic!("{d:?}"));
    assert!(v[0].contains("innodb_io_capacity = 200") && v[1].contains("500 pages/s"), "{v:?}");
    // The same in both engines' terms: not shown (1 GiB of log, 16 MiB of log buffer,
    // 1 GiB of cache, same durability class and memory fit, one worker per connection).
    for same in ["IO: log size before a checkpoint", "IO: log buffer", "memory: engine cache", "durability class", "memory fit", "concurrency: connection handling"] {
        assert!(line(same).is_none(), "{same} is equal on both sides: {d:?}");
    }
    // Raw variables of different engines are never compared name by name.
    assert!(!d.iter().any(|(_, n, _)| n.starts_with("server ") && n != "server version"), "{d:?}");
    // A real difference in a normalised line shows, with each side's variable.
    pg.variables.insert("max_wal_size".into(), "4096".into());
    pg.cache_bytes = Some(256 << 20);
    let d = diff(&a, &record(3, pg, steady()));
    let line = |name: &str| d.iter().find(|(_, n, _)| n == name).cloned();
    let (g, _, v) = line("IO: log size before a checkpoint").unwrap_or_else(|| panic!("{d:?}"));
    assert_eq!(g, "IO");
    assert_eq!(v, vec!["innodb_log_file_size = 1.0 GiB x 1 file(s): 1.0 GiB".to_string(), "max_wal_size = 4.0 GiB: 4.0 GiB".to_string()]);
    let (g, _, v) = line("memory: engine cache").unwrap_or_else(|| panic!("{d:?}"));
    assert_eq!(g, "memory");
    assert_eq!(v, vec!["innodb_buffer_pool_size = 1.0 GiB".to_string(), "shared_buffers = 256.0 MiB".to_string()]);
    // Same engine: the variables themselves, in their groups, and no normalised lines.
    let mut my2 = my;
    my2.variables.insert("innodb_io_capacity".into(), "2000".into());
    let d = diff(&a, &record(4, my2, steady()));
    assert_eq!(d.iter().map(|(g, n, _)| (*g, n.as_str())).collect::<Vec<_>>(), vec![("IO", "server innodb_io_capacity")], "{d:?}");
}

#[test]
fn rule_cold_start() {
    let mut a = record(1, mysql_durable(), vec![level(4, &[100, 200, 900, 1000, 1000, 1000, 1000, 1000])]);
    assert!(audit::rule_cold_start(&a).is_empty(), "had --warmup-time");
    a.options.insert("warmup-time", "0");
    assert_eq!(rules(&audit::rule_cold_start(&a)), vec!["cold-start"]);
    let mut b = record(2, mysql_durable(), steady());
    b.options.insert("warmup-time", "0");
    assert!(audit::rule_cold_start(&b).is_empty());
}

#[test]
fn rule_config_mismatches() {
    let a = record(1, mysql_durable(), steady());
    let b = record(2, mysql_durable(), steady());
    assert!(audit::rule_config_mismatch(&[&a, &b]).is_empty(), "{:?}", audit::rule_config_mismatch(&[&a, &b]));
    let mut c = record(3, mysql_durable(), steady());
    c.transport = "socket".into();
    c.options.insert("db-ps-mode", "disable");
    c.options.insert("rand-type", "zipfian");
    c.options.insert("tables", "8");
    c.options.insert("skip-trx", "on");
    c.env_start.as_mut().unwrap().server.version = "mysql 2.0".into();
    let fs = audit::rule_config_mismatch(&[&a, &c]);
    for r in ["transport-mismatch", "prepared-mismatch", "distribution-mismatch", "table-count-mismatch", "transactions-mismatch", "server-version-mismatch"] {
        assert!(has(&fs, r), "{r} missing: {:?}", rules(&fs));
    }
    // Versions of different engines always differ: information only.
    let d = record(4, pg_durable(), steady());
    let fs = audit::rule_config_mismatch(&[&a, &d]);
    assert_eq!(fs.iter().find(|f| f.rule == "server-version-mismatch").map(|f| f.severity), Some(Severity::Info));
}

#[test]
fn rule_rate_not_sustained() {
    // 10 s at 1000 events/s asked; the level's summary says what happened.
    let rate_level = |tps: u64, dropped: u64| {
        let mut l = level(4, &[tps; 10]);
        l.summary = Some(serde_json::json!({ "rate": 1000.0, "dropped": dropped, "latency_ms": { "p95": 900.0 }, "latency_uncorrected_ms": { "p95": 1.5 } }));
        l
    };
    let a = record(1, mysql_durable(), vec![rate_level(600, 0)]);
    let fs = audit::rule_rate_not_sustained(&a);
    assert_eq!(rules(&fs), vec!["rate-not-sustained"]);
    assert_eq!(fs[0].severity, Severity::Warning);
    assert!(fs[0].message.contains("target rate not sustained: latency measures the client's queue"), "{fs:?}");
    let ev = fs[0].evidence.join(" | ");
    assert!(ev.contains("target 1000.00 events/s") && ev.contains("achieved 600.00 events/s (60%") && ev.contains("dropped 0 arrivals") && ev.contains("900.00 ms from the intended start"), "{ev}");
    // Dropped arrivals count even when the rate was nearly reached.
    assert!(has(&audit::single(&record(2, mysql_durable(), vec![rate_level(990, 5)])), "rate-not-sustained"));
    // Within the arrivals' randomness, nothing dropped: sustained.
    assert!(audit::rule_rate_not_sustained(&record(3, mysql_durable(), vec![rate_level(985, 0)])).is_empty());
    // Closed loop: no target to miss.
    assert!(audit::rule_rate_not_sustained(&record(4, mysql_durable(), steady())).is_empty());
}

#[test]
fn sqlite_memory_fit_counts_the_os_page_cache() {
    // 100 MiB of data, a 2 MiB SQLite cache, 4 GiB the OS page cache can use.
    let mut s = server("sqlite", &[("synchronous", "2"), ("journal_mode", "wal")]);
    s.cache_bytes = Some(2 << 20);
    s.os_cache_bytes = Some(4 << 30);
    let (fit, why) = audit::memory_fit(&s);
    assert_eq!(fit, audit::Fit::InMemory, "{why}");
    assert!(why.contains("OS page cache"), "{why}");
    // More data than memory: IO-bound.
    s.dataset_bytes = Some(16 << 30);
    assert_eq!(audit::memory_fit(&s).0, audit::Fit::IoBound);
    // A record from before the OS page cache was recorded: the engine's cache alone.
    s.os_cache_bytes = None;
    s.dataset_bytes = Some(100 << 20);
    assert_eq!(audit::memory_fit(&s).0, audit::Fit::IoBound);
}

#[test]
fn rule_qps_with_trx() {
    let mut a = record(1, mysql_durable(), steady());
    a.workload = "oltp_read_only".into();
    a.levels[0].trx_stmts = 16000;
    a.levels[0].qps_no_trx = 800.0;
    let fs = audit::rule_qps_trx(&a);
    assert_eq!(rules(&fs), vec!["qps-includes-trx"]);
    assert!(fs[0].message.contains("without them 800.0"), "{}", fs[0].message);
    a.workload = "oltp_read_write".into();
    assert!(audit::rule_qps_trx(&a).is_empty(), "writes: BEGIN/COMMIT are part of the work");
}

#[test]
fn rule_unfinished() {
    let mut a = record(1, mysql_durable(), steady());
    assert!(audit::rule_unfinished(&a).is_empty());
    a.status = "interrupted".into();
    assert_eq!(rules(&audit::rule_unfinished(&a)), vec!["unfinished"]);
}

// ---------------------------------------------------------------------------
// Real servers
// ---------------------------------------------------------------------------

/// Tests here that change or rely on MariaDB's global durability run one at a time.
static MARIADB_DURABILITY: Mutex<()> = Mutex::new(());

/// Puts innodb_flush_log_at_trx_commit back however the test ends.
struct FlushLogGuard(String);

impl Drop for FlushLogGuard {
    fn drop(&mut self) {
        mysql_admin(&format!("SET GLOBAL innodb_flush_log_at_trx_commit = {}", self.0));
    }
}

fn bench(store: &Path, url: &str, table: &str, extra: &[&str]) {
    let mut c = fairbench();
    c.args(["run", "oltp_write_only", "--target", url, "--table-name", table, "--table-size", "500", "--threads", "2", "--time", "1", "--results"]).arg(store).args(extra);
    run_ok(&mut c);
}

fn compare_json(store: &Path, runs: &[&str]) -> Value {
    let mut c = fairbench();
    c.arg("compare").args(runs).arg("--json").arg("--results").arg(store);
    let out = run_ok(&mut c);
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("compare --json: {e}\n{}", stdout(&out)))
}

fn finding_rules(v: &Value) -> Vec<String> {
    v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect()
}

#[test]
fn mariadb_flush_log_at_trx_commit_mismatch_is_found() {
    let _serial = MARIADB_DURABILITY.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("audit_my_flush");
    let store = dir.join("r.sqlite");
    let before = mysql_admin("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit").trim().to_string();
    let guard = FlushLogGuard(before);
    mysql_admin("SET GLOBAL innodb_flush_log_at_trx_commit = 1");
    bench(&store, &mysql_url(), "aud_dur_my_", &[]);
    mysql_admin("SET GLOBAL innodb_flush_log_at_trx_commit = 2");
    bench(&store, &mysql_url(), "aud_dur_my_", &[]);
    drop(guard);
    let v = compare_json(&store, &["1", "2"]);
    let rules = finding_rules(&v);
    assert!(rules.iter().any(|r| r == "durability-mismatch"), "{rules:?}");
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "durability-mismatch").unwrap();
    assert_eq!(f["severity"], "critical");
    let ev = f["evidence"].to_string();
    assert!(ev.contains("innodb_flush_log_at_trx_commit=1") && ev.contains("innodb_flush_log_at_trx_commit=2"), "{ev}");
    // The findings come first in the text, with what to do.
    let out = run_ok(fairbench().args(["compare", "1", "2", "--results"]).arg(&store));
    let text = stdout(&out);
    assert!(text.starts_with("Audit:"), "{text}");
    assert!(text.contains("[CRITICAL] durability-mismatch"), "{text}");
    assert!(text.contains("  durability:"), "the config diff groups durability: {text}");
    // audit --fail-on critical exits with the check code.
    let out = run_fail(fairbench().args(["audit", "1", "2", "--fail-on", "critical", "--results"]).arg(&store));
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    // The same run against itself is fair.
    let v = compare_json(&store, &["1", "1"]);
    assert!(!finding_rules(&v).iter().any(|r| r == "durability-mismatch"));
}

#[test]
fn postgres_synchronous_commit_mismatch_is_found() {
    let dir = scratch_dir("audit_pg_sync");
    let store = dir.join("r.sqlite");
    // Per session (--session-options), so other tests on the server are not
    // disturbed: the snapshot connection applies the same session options and
    // records what the benchmark's sessions actually ran with.
    bench(&store, &pg_url(), "aud_dur_pg_", &[]);
    bench(&store, &pg_url(), "aud_dur_pg_", &["--session-options", "SET synchronous_commit = off"]);
    let v = compare_json(&store, &["1", "2"]);
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "durability-mismatch").unwrap_or_else(|| panic!("no durability finding: {v}"));
    let ev = f["evidence"].to_string();
    assert!(ev.contains("synchronous_commit=on") && ev.contains("synchronous_commit=off"), "{ev}");
    assert!(ev.contains("flushed about once per second"), "{ev}");
}

#[test]
fn postgres_with_and_without_tls_is_a_tls_mismatch() {
    let dir = scratch_dir("audit_tls");
    let store = dir.join("r.sqlite");
    // The test server offers TLS: the same server, once plain and once encrypted.
    bench(&store, &format!("{}?sslmode=disable", pg_url()), "aud_tls_pg_", &[]);
    bench(&store, &format!("{}?sslmode=require", pg_url()), "aud_tls_pg_", &[]);
    let v = compare_json(&store, &["1", "2"]);
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "tls-mismatch").unwrap_or_else(|| panic!("no TLS finding: {v}"));
    let ev = f["evidence"].to_string();
    assert!(ev.contains("run 1 (postgres): plain (no TLS)") && ev.contains("run 2 (postgres): TLS ("), "{ev}");
    // What was negotiated is in the record, not only what was asked for.
    let show = stdout(&run_ok(fairbench().args(["results", "show", "2", "--results"]).arg(&store)));
    assert!(show.contains("connection: TLS ("), "{show}");
    let v = compare_json(&store, &["2", "2"]);
    assert!(!finding_rules(&v).iter().any(|r| r == "tls-mismatch"), "{v}");
}

#[test]
fn mariadb_vs_postgres_with_matched_durability_has_no_durability_finding() {
    let _serial = MARIADB_DURABILITY.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("audit_matched");
    let store = dir.join("r.sqlite");
    let before = mysql_admin("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit").trim().to_string();
    let _guard = FlushLogGuard(before);
    mysql_admin("SET GLOBAL innodb_flush_log_at_trx_commit = 1");
    bench(&store, &mysql_url(), "aud_match_my_", &[]);
    bench(&store, &pg_url(), "aud_match_pg_", &[]);
    let v = compare_json(&store, &["1", "2"]);
    let rules = finding_rules(&v);
    assert!(!rules.iter().any(|r| r == "durability-mismatch"), "{rules:?}");
    // Both sides were classified, so the absence means something.
    let out = run_ok(fairbench().args(["results", "show", "1", "--results"]).arg(&store));
    assert!(stdout(&out).contains("durability: every commit flushed and synced"), "{}", stdout(&out));
    let out = run_ok(fairbench().args(["results", "show", "2", "--results"]).arg(&store));
    assert!(stdout(&out).contains("durability: every commit flushed and synced"), "{}", stdout(&out));
    // Across engines the side-by-side still works per level.
    let lv = v["levels"].as_array().unwrap();
    assert_eq!(lv.len(), 1);
    assert_eq!(lv[0]["runs"].as_array().unwrap().len(), 2, "{v}");
    assert!(lv[0]["runs"][1]["tps_diff_pct"].is_number(), "{v}");
    assert!(rules.iter().any(|r| r == "server-version-mismatch"), "{rules:?}");
}
