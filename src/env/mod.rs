//! Environment capture: what the server and the client host looked like
//! when a run started and ended, and the IO/durability counters that move
//! while it runs.
//!
//! The snapshot connection is opened with the run's own connection settings,
//! including `--session-options`, so the variables it reads are the ones the
//! benchmark's sessions actually run with: a `SET synchronous_commit=off` in
//! the session options shows up as `off`, not as the server's global `on`.
//! On MySQL-family servers both `SHOW GLOBAL VARIABLES` and the session
//! values that differ from them are kept; audits read the session value
//! first.
//!
//! Samples are taken on a thread of their own with its own connection, so a
//! slow or blocked server never holds up the reporter that prints and
//! stores the intervals.

pub mod durability;

use crate::db::{Conn, ConnConfig, Engine, StatementSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Everything known about a run's environment at one moment.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Snapshot {
    pub taken_at: String,
    pub server: Server,
    pub host: Host,
    /// What could not be read (missing privilege, older server...).
    #[serde(default)]
    pub errors: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Server {
    pub engine: String,
    pub version: String,
    /// Server on this machine (loopback, unix socket, embedded).
    pub local: bool,
    /// Global variables (MySQL), pg_settings as seen by the session (PostgreSQL), pragmas (SQLite).
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
    /// MySQL-family: session values that differ from the global ones.
    #[serde(default)]
    pub session: BTreeMap<String, String>,
    /// PostgreSQL: unit of each setting that has one (8kB, kB, ms...).
    #[serde(default)]
    pub units: BTreeMap<String, String>,
    /// Cumulative IO and durability counters, and gauges.
    #[serde(default)]
    pub status: BTreeMap<String, f64>,
    /// Bytes on disk of the workload's tables (data and indexes).
    pub dataset_bytes: Option<u64>,
    /// Bytes the engine caches pages in (buffer pool, shared_buffers, page cache).
    pub cache_bytes: Option<u64>,
    /// An engine that reads its file through the OS page cache (SQLite):
    /// the memory available to that cache on this machine, which holds
    /// what the engine's own small cache does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_cache_bytes: Option<u64>,
    /// Whether the snapshot's connection, made like the benchmark's, negotiated
    /// TLS: the URL only says what was asked for (`prefer` may fall back to
    /// plain). None: not known, or not applicable (SQLite).
    #[serde(default)]
    pub tls: Option<bool>,
    /// The negotiated cipher, when TLS is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_cipher: Option<String>,
    /// A connection pooler answering for the server (pgbouncer), and how
    /// fairbench sends statements through it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pooler: Option<String>,
}

impl Server {
    /// The value the benchmark's sessions use: session first, then global.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.session.get(name).or_else(|| self.variables.get(name)).map(String::as_str)
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Host {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    /// CPUs online.
    pub cpus: usize,
    /// CPUs this process may run on (affinity, cgroup quota).
    pub cpus_available: usize,
    pub mem_total_bytes: u64,
    /// swappiness, dirty_*, governor, sched_autogroup, transparent hugepages, IO schedulers.
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
}

/// Counter movement over one sample period.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// Counter deltas since the previous sample.
    #[serde(default)]
    pub deltas: BTreeMap<String, f64>,
    /// Gauges at the sample (dirty pages, history length).
    #[serde(default)]
    pub gauges: BTreeMap<String, f64>,
    /// /proc/diskstats deltas per device: reads, sectors read, writes, sectors written.
    #[serde(default)]
    pub disk: BTreeMap<String, [u64; 4]>,
}

/// MySQL-family counters kept per interval (cumulative ones become deltas).
const MY_COUNTERS: &[&str] = &[
    "Innodb_data_reads",
    "Innodb_data_writes",
    "Innodb_data_read",
    "Innodb_data_written",
    "Innodb_data_fsyncs",
    "Innodb_log_writes",
    "Innodb_os_log_written",
    "Innodb_os_log_fsyncs",
    "Innodb_buffer_pool_reads",
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_pages_flushed",
    "Binlog_bytes_written",
    "Com_commit",
    "Questions",
];
const MY_GAUGES: &[&str] = &["Innodb_buffer_pool_pages_dirty", "Innodb_history_list_length", "Innodb_buffer_pool_pages_total"];
/// PostgreSQL gauges: on a standby whether it is in recovery, how far its
/// replay is behind (seconds, and bytes received but not replayed); on a
/// primary how many standbys stream from it and the largest replay lag they report.
const PG_GAUGES: &[&str] = &["in_recovery", "replication_lag_s", "replay_lag_bytes", "standbys", "standby_replay_lag_s"];

pub fn is_gauge(name: &str) -> bool {
    MY_GAUGES.contains(&name) || PG_GAUGES.contains(&name)
}

/// Physical page reads and logical reads of a sample set, across engines:
/// (physical, logical).
pub fn reads_of(deltas: &BTreeMap<String, f64>) -> Option<(f64, f64)> {
    if let Some(p) = deltas.get("Innodb_buffer_pool_reads") {
        return Some((*p, deltas.get("Innodb_buffer_pool_read_requests").copied().unwrap_or(0.0)));
    }
    if let Some(p) = deltas.get("blks_read") {
        return Some((*p, p + deltas.get("blks_hit").copied().unwrap_or(0.0)));
    }
    None
}

pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (sortable as text).
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, d.subsec_millis())
}

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

/// The client host, from /proc and /sys (Linux; empty fields elsewhere).
pub fn host() -> Host {
    let mut h =
        Host { hostname: read_trim("/proc/sys/kernel/hostname").unwrap_or_default(), kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(), cpus_available: cpus(), ..Host::default() };
    if let Some(ci) = read_trim("/proc/cpuinfo") {
        h.cpu_model = ci.lines().find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string())).unwrap_or_default();
        h.cpus = ci.lines().filter(|l| l.starts_with("processor")).count();
    }
    if h.cpus == 0 {
        h.cpus = h.cpus_available;
    }
    if let Some(mi) = read_trim("/proc/meminfo") {
        h.mem_total_bytes = mi.lines().find_map(|l| l.strip_prefix("MemTotal:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()).unwrap_or(0) * 1024;
    }
    let s = &mut h.settings;
    for (k, p) in [
        ("vm.swappiness", "/proc/sys/vm/swappiness"),
        ("vm.dirty_bytes", "/proc/sys/vm/dirty_bytes"),
        ("vm.dirty_background_bytes", "/proc/sys/vm/dirty_background_bytes"),
        ("vm.dirty_ratio", "/proc/sys/vm/dirty_ratio"),
        ("vm.dirty_background_ratio", "/proc/sys/vm/dirty_background_ratio"),
        ("kernel.sched_autogroup_enabled", "/proc/sys/kernel/sched_autogroup_enabled"),
        ("cpufreq.governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        ("transparent_hugepage.enabled", "/sys/kernel/mm/transparent_hugepage/enabled"),
        ("transparent_hugepage.defrag", "/sys/kernel/mm/transparent_hugepage/defrag"),
    ] {
        s.insert(k.to_string(), read_trim(p).unwrap_or_else(|| "unavailable".into()));
    }
    if let Ok(rd) = std::fs::read_dir("/sys/block") {
        let mut devs: Vec<String> = rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).filter(|d| !d.starts_with("loop") && !d.starts_with("ram")).collect();
        devs.sort();
        for d in devs {
            if let Some(v) = read_trim(&format!("/sys/block/{d}/queue/scheduler")) {
                s.insert(format!("io_scheduler.{d}"), v);
            }
        }
    }
    h
}

/// Whole-disk counters from /proc/diskstats: reads, sectors read, writes, sectors written.
pub fn diskstats() -> BTreeMap<String, [u64; 4]> {
    let mut m = BTreeMap::new();
    let Some(s) = read_trim("/proc/diskstats") else { return m };
    for l in s.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 10 {
            continue;
        }
        let name = f[2];
        // Whole devices only: partitions would count the same IO twice.
        if name.starts_with("loop") || name.starts_with("ram") || !std::path::Path::new(&format!("/sys/block/{name}")).exists() {
            continue;
        }
        let n = |i: usize| f[i].parse::<u64>().unwrap_or(0);
        m.insert(name.to_string(), [n(3), n(5), n(7), n(9)]);
    }
    m
}

/// Memory the OS can give its page cache now: MemAvailable (free memory
/// plus reclaimable cache, the file's own cached pages included), capped
/// by this process's cgroup limit when there is one.
pub fn mem_available() -> Option<u64> {
    let mi = read_trim("/proc/meminfo")?;
    let kib: u64 = mi.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    let limit = read_trim("/sys/fs/cgroup/memory.max").and_then(|v| v.parse::<u64>().ok());
    Some(limit.map_or(kib * 1024, |l| l.min(kib * 1024)))
}

/// CPUs this process may run on (its affinity and cgroup quota included).
pub fn cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// `threads` connections, or at most one per core when the server shares
/// this machine: more backends loading or building at once than there are
/// cores only slow each other (and the client) down.
pub fn per_core_if_local(cfg: &ConnConfig, threads: usize) -> usize {
    if is_local(cfg) {
        threads.min(cpus())
    } else {
        threads
    }
}

/// Whether the server runs on this machine (so host and disk figures describe it too).
pub fn is_local(cfg: &ConnConfig) -> bool {
    let t = &cfg.target;
    t.engine.embedded() || t.socket.is_some() || t.hosts.iter().all(|(h, _)| h == "localhost" || h.starts_with("127.") || h == "::1")
}

/// A connection for snapshots, with the run's session settings applied.
pub async fn connect(cfg: &Arc<ConnConfig>) -> Result<Conn, String> {
    Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| format!("cannot connect to {}: {}", cfg.target, e.message))
}

fn sql_str(s: &str) -> String {
    s.replace('\'', "''")
}

async fn rows(c: &mut Conn, sql: &str, errors: &mut Vec<String>) -> Vec<Vec<String>> {
    match c.query_strings(sql).await {
        Ok(r) => r.into_iter().map(|row| row.into_iter().map(|v| v.unwrap_or_default()).collect()).collect(),
        Err(e) => {
            errors.push(format!("{sql}: {}", e.message));
            vec![]
        }
    }
}

fn pairs(r: Vec<Vec<String>>) -> BTreeMap<String, String> {
    r.into_iter().filter(|r| r.len() >= 2).map(|r| (r[0].to_ascii_lowercase(), r[1].clone())).collect()
}

/// Size in bytes of a PostgreSQL setting with a unit ("8kB" pages, "kB").
pub fn pg_bytes(value: &str, unit: Option<&str>) -> Option<u64> {
    let v: f64 = value.trim().parse().ok()?;
    let mult = match unit.unwrap_or("") {
        "B" | "" => 1.0,
        "kB" => 1024.0,
        "8kB" => 8192.0,
        "MB" => 1048576.0,
        "16MB" => 16.0 * 1048576.0,
        "GB" => 1073741824.0,
        _ => return None,
    };
    Some((v * mult) as u64)
}

/// The tables that hold a workload's data: the snapshot's dataset size is theirs.
#[derive(Clone, Debug, PartialEq)]
pub enum DatasetTables {
    /// Every table (and index) whose name starts with this, as sysbench's
    /// `sbtest1..N` are found.
    Prefix(String),
    /// Exactly these tables, with their indexes.
    Names(Vec<String>),
}

impl DatasetTables {
    /// `name LIKE 'prefix%'` or `name IN (...)` over `column`. `escape` is
    /// SQLite's LIKE, which has no escape character unless told.
    fn condition(&self, column: &str, escape: bool, lower: bool) -> String {
        match self {
            DatasetTables::Prefix(p) => {
                let like = format!("{}%", sql_str(p).replace('_', "\\_"));
                format!("{column} LIKE '{like}'{}", if escape { " ESCAPE '\\'" } else { "" })
            }
            DatasetTables::Names(names) => {
                // PostgreSQL folds the unquoted names the tables were created with.
                let quoted: Vec<String> = names.iter().map(|n| format!("'{}'", sql_str(&if lower { n.to_lowercase() } else { n.clone() }))).collect();
                format!("{column} IN ({})", if quoted.is_empty() { "NULL".to_string() } else { quoted.join(", ") })
            }
        }
    }

    /// SQLite's `dbstat` names every b-tree, tables and indexes alike: a
    /// prefix matches both, a list of tables is widened to their indexes.
    fn sqlite_condition(&self) -> String {
        match self {
            DatasetTables::Prefix(_) => self.condition("name", true, false),
            DatasetTables::Names(_) => format!("name IN (SELECT name FROM sqlite_master WHERE {})", self.condition("tbl_name", false, false)),
        }
    }
}

/// The server part of a snapshot; `tables` are the workload's.
pub async fn server(c: &mut Conn, cfg: &ConnConfig, tables: &DatasetTables, errors: &mut Vec<String>) -> Server {
    let mut s = Server { engine: cfg.target.engine.name().to_string(), local: is_local(cfg), ..Server::default() };
    match cfg.target.engine {
        Engine::Mysql => {
            s.variables = pairs(rows(c, "SHOW GLOBAL VARIABLES", errors).await);
            let session = pairs(rows(c, "SHOW SESSION VARIABLES", errors).await);
            s.session = session.into_iter().filter(|(k, v)| s.variables.get(k).map(|g| g != v).unwrap_or(false)).collect();
            s.version = s.variables.get("version").cloned().unwrap_or_default();
            if let Some(comment) = s.variables.get("version_comment") {
                s.version = format!("{} ({comment})", s.version);
            }
            s.cache_bytes = s.variables.get("innodb_buffer_pool_size").and_then(|v| v.parse().ok());
            let size = rows(
                c,
                &format!("SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE() AND {}", tables.condition("table_name", false, false)),
                errors,
            )
            .await;
            s.dataset_bytes = size.first().and_then(|r| r.first()).and_then(|v| v.parse::<f64>().ok()).map(|v| v as u64);
            s.status = mysql_status(c, errors).await;
            let cipher = rows(c, "SHOW SESSION STATUS LIKE 'Ssl_cipher'", errors).await;
            (s.tls, s.tls_cipher) = tls_of(cipher.first().and_then(|r| r.get(1)).map(String::as_str));
        }
        Engine::Postgres => {
            let r = rows(c, "SELECT name, setting, COALESCE(unit, '') FROM pg_settings", errors).await;
            for row in r {
                if row.len() >= 3 {
                    if !row[2].is_empty() {
                        s.units.insert(row[0].clone(), row[2].clone());
                    }
                    s.variables.insert(row[0].clone(), row[1].clone());
                }
            }
            s.version = rows(c, "SELECT version()", errors).await.first().and_then(|r| r.first().cloned()).unwrap_or_default();
            s.cache_bytes = s.variables.get("shared_buffers").and_then(|v| pg_bytes(v, s.units.get("shared_buffers").map(String::as_str)));
            let size = rows(
                c,
                &format!("SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema() AND {}", tables.condition("c.relname", false, true)),
                errors,
            )
            .await;
            s.dataset_bytes = size.first().and_then(|r| r.first()).and_then(|v| v.parse::<f64>().ok()).map(|v| v as u64);
            s.status = pg_status(c, pg_version_num(&s), errors).await;
            // Always one row: no pg_stat_ssl row means no TLS; no row at all means the query failed.
            let ssl = rows(c, "SELECT COALESCE((SELECT CASE WHEN ssl THEN COALESCE(cipher, 'unknown cipher') ELSE '' END FROM pg_stat_ssl WHERE pid = pg_backend_pid()), '')", errors).await;
            (s.tls, s.tls_cipher) = tls_of(ssl.first().and_then(|r| r.first()).map(String::as_str));
            s.pooler = c.pooler().map(|p| pooler_text(p, cfg.prepared));
        }
        Engine::Sqlite => {
            for p in ["synchronous", "journal_mode", "cache_size", "page_size", "page_count", "mmap_size", "wal_autocheckpoint", "locking_mode", "temp_store", "foreign_keys", "cache_spill"] {
                if let Some(v) = rows(c, &format!("PRAGMA {p}"), errors).await.first().and_then(|r| r.first().cloned()) {
                    s.variables.insert(p.to_string(), v);
                }
            }
            s.version = rows(c, "SELECT sqlite_version()", errors).await.first().and_then(|r| r.first().cloned()).unwrap_or_default();
            let num = |k: &str| s.variables.get(k).and_then(|v| v.parse::<i64>().ok());
            let page = num("page_size").unwrap_or(4096);
            // cache_size: negative is KiB, positive is pages.
            let cache = num("cache_size").map(|c| if c < 0 { -c * 1024 } else { c * page }).unwrap_or(0);
            s.cache_bytes = Some((cache.max(num("mmap_size").unwrap_or(0))) as u64);
            s.os_cache_bytes = mem_available();
            let size = rows(c, &format!("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE {}", tables.sqlite_condition()), &mut Vec::new()).await;
            s.dataset_bytes =
                size.first().and_then(|r| r.first()).and_then(|v| v.parse::<f64>().ok()).filter(|v| *v > 0.0).map(|v| v as u64).or_else(|| Some((num("page_count").unwrap_or(0) * page) as u64));
        }
    }
    s
}

/// The pooler as recorded: the evidence, and the statement form used through it.
fn pooler_text(p: crate::db::fast::pg::Pooler, prepared: bool) -> String {
    let form = if prepared { "statements unnamed, parsed with each execution" } else { "statements as text (--db-ps-mode=disable)" };
    format!("pooler in front of the server (cancel key pid {} is not the server process {}); {form}", p.key_pid, p.backend_pid)
}

/// TLS state from the cipher the server reports for the session: empty is
/// plain, None is unknown (the query failed).
fn tls_of(cipher: Option<&str>) -> (Option<bool>, Option<String>) {
    match cipher.map(str::trim) {
        None => (None, None),
        Some("") => (Some(false), None),
        Some(c) => (Some(true), Some(c.to_string())),
    }
}

async fn mysql_status(c: &mut Conn, errors: &mut Vec<String>) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for r in rows(c, "SHOW GLOBAL STATUS", errors).await {
        if r.len() >= 2 && (MY_COUNTERS.iter().chain(MY_GAUGES).any(|n| n.eq_ignore_ascii_case(&r[0]))) {
            if let Ok(v) = r[1].parse::<f64>() {
                let name = MY_COUNTERS.iter().chain(MY_GAUGES).find(|n| n.eq_ignore_ascii_case(&r[0])).unwrap();
                m.insert(name.to_string(), v);
            }
        }
    }
    m
}

/// PostgreSQL's version as a number (170002 for 17.2), from the settings a
/// snapshot read; None when they could not be read.
pub fn pg_version_num(s: &Server) -> Option<u32> {
    s.variables.get("server_version_num")?.trim().parse().ok()
}

/// PostgreSQL's counters. `version` (server_version_num) picks the views
/// the server has, so no sample ever sends a query that fails: a failed
/// query writes an ERROR into the server's log of the benchmark it measures.
async fn pg_status(c: &mut Conn, version: Option<u32>, errors: &mut Vec<String>) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    let mut put = |names: &[&str], r: Vec<Vec<String>>| {
        if let Some(row) = r.first() {
            for (n, v) in names.iter().zip(row) {
                if let Ok(v) = v.parse::<f64>() {
                    m.insert(n.to_string(), v);
                }
            }
        }
    };
    let db = ["blks_read", "blks_hit", "xact_commit", "xact_rollback", "tup_inserted", "tup_updated", "tup_deleted"];
    put(&db, rows(c, &format!("SELECT {} FROM pg_stat_database WHERE datname = current_database()", db.join(", ")), errors).await);
    let recovery = rows(c, "SELECT pg_is_in_recovery()", errors).await.first().and_then(|r| r.first()).map(|v| v == "t");
    if let Some(r) = recovery {
        put(&["in_recovery"], vec![vec![if r { "1" } else { "0" }.to_string()]]);
    }
    if recovery == Some(true) {
        // A standby with nothing left to replay is caught up however old
        // its last replayed commit is (an idle primary sends none); with
        // WAL waiting, the lag is the age of the last commit it replayed.
        put(&["replication_lag_s", "replay_lag_bytes"], rows(c, STANDBY_LAG, errors).await);
    } else {
        // pg_current_wal_lsn() is an error during recovery: only on a primary.
        put(&["wal_bytes"], rows(c, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')", errors).await);
        put(&["standbys", "standby_replay_lag_s"], rows(c, "SELECT count(*), COALESCE(MAX(EXTRACT(EPOCH FROM replay_lag)), 0) FROM pg_stat_replication", errors).await);
    }
    // Checkpoint counters moved to pg_stat_checkpointer in PostgreSQL 17.
    match version {
        Some(v) if v >= 170000 => {
            put(&["checkpoints_timed", "checkpoints_req", "buffers_checkpoint"], rows(c, "SELECT num_timed, num_requested, buffers_written FROM pg_stat_checkpointer", errors).await);
            put(&["buffers_clean"], rows(c, "SELECT buffers_clean FROM pg_stat_bgwriter", errors).await);
        }
        Some(_) => put(
            &["checkpoints_timed", "checkpoints_req", "buffers_checkpoint", "buffers_clean", "buffers_backend"],
            rows(c, "SELECT checkpoints_timed, checkpoints_req, buffers_checkpoint, buffers_clean, buffers_backend FROM pg_stat_bgwriter", errors).await,
        ),
        None => errors.push("checkpoint counters: the server's version is unknown, so its view of them is too".into()),
    }
    m
}

/// On a standby: seconds behind and bytes received but not replayed.
const STANDBY_LAG: &str = "SELECT CASE WHEN pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn() \
     THEN COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) ELSE 0 END, \
     COALESCE(GREATEST(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0), 0)";

/// "standby, 2.5 s behind (...)" when the server is a standby; None otherwise.
pub fn standby_text(s: &Server) -> Option<String> {
    if s.status.get("in_recovery").copied() != Some(1.0) {
        return None;
    }
    let lag = s.status.get("replication_lag_s").copied().unwrap_or(0.0);
    let bytes = s.status.get("replay_lag_bytes").copied().unwrap_or(0.0);
    Some(format!("standby (in recovery): replay {lag:.1} s behind, {} received and not yet replayed", human_bytes(bytes)))
}

/// A full snapshot now: host, then the server through `c` (when connected).
pub async fn snapshot(c: Option<&mut Conn>, cfg: &ConnConfig, tables: &DatasetTables, connect_error: Option<String>) -> Snapshot {
    let mut errors = Vec::new();
    errors.extend(connect_error);
    let server = match c {
        Some(c) => server(c, cfg, tables, &mut errors).await,
        None => Server { engine: cfg.target.engine.name().into(), local: is_local(cfg), ..Server::default() },
    };
    Snapshot { taken_at: now_rfc3339(), server, host: host(), errors }
}

/// Difference of two counter sets (gauges keep the newer value).
pub fn delta(prev: &BTreeMap<String, f64>, cur: &BTreeMap<String, f64>) -> Sample {
    let mut s = Sample::default();
    for (k, v) in cur {
        if is_gauge(k) {
            s.gauges.insert(k.clone(), *v);
        } else if let Some(p) = prev.get(k) {
            s.deltas.insert(k.clone(), (v - p).max(0.0));
        }
    }
    s
}

fn disk_delta(prev: &BTreeMap<String, [u64; 4]>, cur: &BTreeMap<String, [u64; 4]>) -> BTreeMap<String, [u64; 4]> {
    cur.iter()
        .filter_map(|(k, v)| {
            let p = prev.get(k)?;
            let d = [v[0].saturating_sub(p[0]), v[1].saturating_sub(p[1]), v[2].saturating_sub(p[2]), v[3].saturating_sub(p[3])];
            Some((k.clone(), d))
        })
        .collect()
}

/// What the sampler thread is told by the run.
enum Cmd {
    LevelStart(usize),
    LevelEnd,
    Finish(mpsc::Sender<Snapshot>),
}

/// One stored sample, handed to the store's writer callback.
pub struct SampleRow {
    pub level_no: usize,
    pub seq: usize,
    /// Seconds since the level started.
    pub t: f64,
    /// Seconds covered by the deltas.
    pub dt: f64,
    pub sample: Sample,
}

/// Samples server counters (and disk counters when the server is local) at
/// level start, every `period` during a level, and at level end, on its own
/// thread and connection.
pub struct Sampler {
    tx: mpsc::Sender<Cmd>,
    join: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    /// Starts the thread, takes the start snapshot and returns it; `write`
    /// receives every sample (it runs on the sampler's thread).
    pub fn start(cfg: Arc<ConnConfig>, tables: DatasetTables, period: Duration, mut write: Box<dyn FnMut(SampleRow) + Send>) -> (Sampler, Snapshot) {
        let (tx, rx) = mpsc::channel::<Cmd>();
        let (stx, srx) = mpsc::channel::<Snapshot>();
        let cfg2 = cfg.clone();
        let join = std::thread::Builder::new()
            .name("fb-env-sampler".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
                rt.block_on(async move {
                    let (mut conn, cerr) = match tokio::time::timeout(Duration::from_secs(10), connect(&cfg)).await {
                        Ok(Ok(c)) => (Some(c), None),
                        Ok(Err(e)) => (None, Some(e)),
                        Err(_) => (None, Some("snapshot connection timed out".to_string())),
                    };
                    let first = snapshot(conn.as_mut(), &cfg, &tables, cerr).await;
                    let local = first.server.local;
                    // Once per sampler: which counter views this server has.
                    let pg_version = pg_version_num(&first.server);
                    let mut prev = first.server.status.clone();
                    let mut prev_disk = if local { diskstats() } else { BTreeMap::new() };
                    let _ = stx.send(first);
                    let mut level: Option<(usize, Instant, usize)> = None;
                    let mut last = Instant::now();
                    loop {
                        let cmd = match rx.recv_timeout(period) {
                            Ok(c) => Some(c),
                            Err(mpsc::RecvTimeoutError::Timeout) => None,
                            Err(mpsc::RecvTimeoutError::Disconnected) => break,
                        };
                        if let Some(Cmd::Finish(reply)) = cmd {
                            let mut errs = Vec::new();
                            let snap = snapshot(conn.as_mut(), &cfg, &tables, None).await;
                            errs.extend(snap.errors.iter().cloned());
                            let _ = reply.send(snap);
                            if let Some(c) = conn.take() {
                                c.close().await;
                            }
                            break;
                        }
                        if level.is_none() && !matches!(cmd, Some(Cmd::LevelStart(_))) {
                            continue;
                        }
                        // A sample: counters now, deltas since the previous one.
                        let mut errs = Vec::new();
                        let cur = match conn.as_mut() {
                            Some(c) => match cfg.target.engine {
                                Engine::Mysql => mysql_status(c, &mut errs).await,
                                Engine::Postgres => pg_status(c, pg_version, &mut errs).await,
                                Engine::Sqlite => BTreeMap::new(),
                            },
                            None => BTreeMap::new(),
                        };
                        let disk = if local { diskstats() } else { BTreeMap::new() };
                        let mut sample = delta(&prev, &cur);
                        sample.disk = disk_delta(&prev_disk, &disk);
                        let now = Instant::now();
                        let dt = now.duration_since(last).as_secs_f64();
                        last = now;
                        prev = cur;
                        prev_disk = disk;
                        match cmd {
                            Some(Cmd::LevelStart(n)) => {
                                // Baseline: what moved before the level (pause, prepare) is not the level's.
                                write(SampleRow { level_no: n, seq: 0, t: 0.0, dt, sample });
                                level = Some((n, now, 1));
                            }
                            Some(Cmd::LevelEnd) | None => {
                                if let Some((n, t0, seq)) = level {
                                    write(SampleRow { level_no: n, seq, t: now.duration_since(t0).as_secs_f64(), dt, sample });
                                    level = if matches!(cmd, Some(Cmd::LevelEnd)) { None } else { Some((n, t0, seq + 1)) };
                                }
                            }
                            Some(Cmd::Finish(_)) => {}
                        }
                    }
                });
            })
            .ok();
        let snap = srx.recv_timeout(Duration::from_secs(15)).unwrap_or_else(|_| {
            let mut s = Snapshot { taken_at: now_rfc3339(), host: host(), ..Snapshot::default() };
            s.server.engine = cfg2.target.engine.name().into();
            s.errors.push("the server snapshot did not complete in 15 s".into());
            s
        });
        (Sampler { tx, join }, snap)
    }

    pub fn level_start(&self, n: usize) {
        let _ = self.tx.send(Cmd::LevelStart(n));
    }

    pub fn level_end(&self) {
        let _ = self.tx.send(Cmd::LevelEnd);
    }

    /// The end snapshot; stops the thread.
    pub fn finish(mut self) -> Option<Snapshot> {
        let (tx, rx) = mpsc::channel();
        let _ = self.tx.send(Cmd::Finish(tx));
        let s = rx.recv_timeout(Duration::from_secs(5)).ok();
        if let Some(j) = self.join.take() {
            if s.is_some() {
                let _ = j.join();
            }
        }
        s
    }
}

/// "TLS (cipher)" or "plain (no TLS)"; None when not known.
pub fn tls_text(s: &Server) -> Option<String> {
    match (s.tls?, &s.tls_cipher) {
        (true, Some(c)) => Some(format!("TLS ({c})")),
        (true, None) => Some("TLS".into()),
        (false, _) => Some("plain (no TLS)".into()),
    }
}

pub fn human_bytes(b: f64) -> String {
    const U: &[&str] = &["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < U.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} {}", U[i])
    } else {
        format!("{v:.1} {}", U[i])
    }
}

/// This machine's name (as `hostname` prints it).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length; the name is NUL-terminated within it.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len() - 1) };
    if rc != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_format() {
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_millis(1_700_000_000_123)), "2023-11-14T22:13:20.123Z");
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn pg_units() {
        assert_eq!(pg_bytes("16384", Some("8kB")), Some(134217728));
        assert_eq!(pg_bytes("x", None), None);
    }

    #[test]
    fn deltas_and_gauges() {
        let a: BTreeMap<String, f64> = [("Innodb_buffer_pool_reads".to_string(), 10.0), ("Innodb_buffer_pool_pages_dirty".to_string(), 5.0)].into();
        let b: BTreeMap<String, f64> = [("Innodb_buffer_pool_reads".to_string(), 25.0), ("Innodb_buffer_pool_pages_dirty".to_string(), 3.0)].into();
        let s = delta(&a, &b);
        assert_eq!(s.deltas["Innodb_buffer_pool_reads"], 15.0);
        assert_eq!(s.gauges["Innodb_buffer_pool_pages_dirty"], 3.0);
    }
}
