//! The results store: every run and sweep as one record in an SQLite file.
//!
//! The run row is written when the run starts (status `running`), each
//! interval in its own committed transaction as soon as the reporter has it,
//! and the summary, end snapshot, audit findings and final status at the
//! end. So a run killed with SIGKILL keeps everything up to its last
//! interval, and still says `running`: `results show` tells such a run by its
//! missing end and its process being gone.
//!
//! WAL with `synchronous=NORMAL`: a committed interval survives the death of
//! the process (it is in the OS's cache); only a power loss can take the
//! latest ones. Syncing every interval would add disk writes to the machine
//! being measured.
//!
//! Passwords never reach the store: targets are written through `Target`'s
//! `Display`, which masks them, and options never include the URL.

mod results;
mod text;

pub use results::*;
pub use text::{list_text, listed, option_arg, show_text, writes_line, Listed};

use crate::env::{SampleRow, Snapshot};
use crate::error::{Error, Result};
use crate::model::record::Finding;
use crate::model::record::{IntervalRec, LevelRec, RunRecord, StoredSample};
use crate::model::{Interval, LevelResult, RunInfo, Sink, Stop};
use crate::units::now_rfc3339;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,              -- run (one level) or sweep (several)
    label TEXT NOT NULL,             -- canonical label
    tag TEXT NOT NULL DEFAULT '',    -- --tag
    workload TEXT NOT NULL,
    engine TEXT NOT NULL,
    target TEXT NOT NULL,            -- password masked
    transport TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    levels TEXT NOT NULL,            -- thread counts, comma-separated
    options TEXT NOT NULL,           -- JSON object of every effective option
    started_at TEXT NOT NULL,
    ended_at TEXT,
    status TEXT NOT NULL,            -- running, completed, interrupted, failed
    error TEXT,
    hostname TEXT NOT NULL,
    pid INTEGER NOT NULL,
    env_start TEXT,                  -- JSON snapshot
    env_end TEXT,
    findings TEXT,                   -- JSON array of audit findings
    capacity TEXT                    -- JSON: what --find-max found, with every step
);
CREATE TABLE IF NOT EXISTS levels(
    run_id INTEGER NOT NULL,
    level_no INTEGER NOT NULL,
    threads INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    status TEXT NOT NULL,
    events INTEGER, queries INTEGER, trx_stmts INTEGER, elapsed_s REAL,
    tps REAL, qps REAL, qps_without_trx REAL, p95_ms REAL, p99_ms REAL,
    cpu_user_s REAL, cpu_sys_s REAL,
    summary TEXT,                    -- the JSON summary printed by --output json
    histogram BLOB,                  -- HDR histogram, V2 + deflate (microseconds)
    histogram_uncorrected BLOB,      -- rate mode: from the actual start
    outage TEXT,                     -- JSON: the longest gaps without a completed event
    PRIMARY KEY(run_id, level_no)
);
CREATE TABLE IF NOT EXISTS intervals(
    run_id INTEGER NOT NULL,
    level_no INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    t REAL NOT NULL, secs REAL NOT NULL, threads INTEGER NOT NULL, warmup INTEGER NOT NULL,
    events INTEGER NOT NULL, reads INTEGER NOT NULL, writes INTEGER NOT NULL, other INTEGER NOT NULL,
    trx_stmts INTEGER NOT NULL, errors INTEGER NOT NULL, reconnects INTEGER NOT NULL, dropped INTEGER NOT NULL,
    p50_ms REAL, p95_ms REAL, p99_ms REAL, max_ms REAL,
    stall_ms REAL,                    -- the longest time no client completed an event, of the stalls over 20 ms that overlap it
    cpu_user_s REAL, cpu_sys_s REAL,  -- fairbench's CPU in this interval (with SQLite: client and engine)
    histogram BLOB,
    kinds TEXT,                       -- JSON: events of each of the workload's kinds, in its order
    PRIMARY KEY(run_id, level_no, seq)
);
CREATE TABLE IF NOT EXISTS write_checks(
    run_id INTEGER PRIMARY KEY,
    data TEXT NOT NULL               -- JSON: the --verify-writes verdict (the writes object)
);
CREATE TABLE IF NOT EXISTS env_samples(
    run_id INTEGER NOT NULL,
    level_no INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    t REAL NOT NULL,                 -- seconds since the level started (0: baseline)
    dt REAL NOT NULL,
    data TEXT NOT NULL,              -- JSON: counter deltas, gauges, diskstats deltas
    PRIMARY KEY(run_id, level_no, seq)
);
CREATE TABLE IF NOT EXISTS profiles(
    run_id INTEGER NOT NULL,
    level_no INTEGER NOT NULL,
    folded TEXT NOT NULL,            -- --profile-server: the server's stacks, folded
    error TEXT,                      -- why there are none
    PRIMARY KEY(run_id, level_no)
);
";

fn io(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("results store {}: {e}", path.display()))
}

pub fn open(path: &Path, create: bool) -> Result<Connection> {
    if !create && !path.exists() {
        return Err(Error::Io(format!("no results store at {} (runs write one unless --no-save; choose another with --results PATH)", path.display())));
    }
    let c = Connection::open(path).map_err(|e| io(path, e))?;
    c.busy_timeout(Duration::from_secs(15)).map_err(|e| io(path, e))?;
    c.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(())).map_err(|e| io(path, e))?;
    c.execute_batch("PRAGMA synchronous=NORMAL;").map_err(|e| io(path, e))?;
    c.execute_batch(SCHEMA).map_err(|e| io(path, format!("{e} (is it a fairbench results store?)")))?;
    add_columns(&c).map_err(|e| io(path, e))?;
    let v: Option<String> = c.query_row("SELECT value FROM meta WHERE key='schema_version'", [], |r| r.get(0)).optional().map_err(|e| io(path, e))?;
    match v {
        None => {
            c.execute("INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', ?1)", params![SCHEMA_VERSION.to_string()]).map_err(|e| io(path, e))?;
        }
        Some(v) if v.parse::<i64>().unwrap_or(0) > SCHEMA_VERSION => {
            return Err(io(path, format!("written by a newer fairbench (schema {v}, this one reads {SCHEMA_VERSION})")));
        }
        _ => {}
    }
    Ok(c)
}

/// Columns added after a store's tables were created: added to an older
/// store when it is opened. Each is nullable, so an older fairbench still
/// reads the store (it names its columns) and the schema version stays.
const ADDED_COLUMNS: &[(&str, &str, &str)] = &[("levels", "outage", "TEXT"), ("intervals", "kinds", "TEXT"), ("runs", "capacity", "TEXT"), ("intervals", "stall_ms", "REAL")];

fn add_columns(c: &Connection) -> rusqlite::Result<()> {
    for (table, column, decl) in ADDED_COLUMNS {
        let has: bool = c.query_row(&format!("SELECT count(*) > 0 FROM pragma_table_info('{table}') WHERE name = ?1"), params![column], |r| r.get(0))?;
        if !has {
            c.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {decl}"))?;
        }
    }
    Ok(())
}

/// HDR histogram in the V2 + deflate format other HDR tools read.
pub fn hist_bytes(h: &hdrhistogram::Histogram<u64>) -> Vec<u8> {
    use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
    let mut v = Vec::new();
    let _ = V2DeflateSerializer::new().serialize(h, &mut v);
    v
}

pub fn hist_from_bytes(b: &[u8]) -> Option<hdrhistogram::Histogram<u64>> {
    hdrhistogram::serialization::Deserializer::new().deserialize(&mut std::io::Cursor::new(b)).ok()
}

// ---------------------------------------------------------------------------
// Records as read back
// ---------------------------------------------------------------------------

fn b64(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// Loads one run with its levels, intervals and samples. `histograms`: include them (base64) for export.
pub fn load(c: &Connection, id: i64, histograms: bool) -> rusqlite::Result<Option<RunRecord>> {
    let r = c
        .query_row(
            "SELECT id, kind, label, tag, workload, engine, target, transport, tool_version, options, started_at, ended_at, status, error, hostname, pid, env_start, env_end, findings, capacity FROM runs WHERE id = ?1",
            params![id],
            |r| {
                let json = |i: usize| -> rusqlite::Result<Option<String>> { r.get(i) };
                Ok(RunRecord {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    label: r.get(2)?,
                    tag: r.get(3)?,
                    workload: r.get(4)?,
                    engine: r.get(5)?,
                    target: r.get(6)?,
                    transport: r.get(7)?,
                    tool_version: r.get(8)?,
                    options: serde_json::from_str(&r.get::<_, String>(9)?).unwrap_or_default(),
                    started_at: r.get(10)?,
                    ended_at: r.get(11)?,
                    status: r.get(12)?,
                    error: r.get(13)?,
                    hostname: r.get(14)?,
                    pid: r.get(15)?,
                    env_start: json(16)?.and_then(|s| serde_json::from_str(&s).ok()),
                    env_end: json(17)?.and_then(|s| serde_json::from_str(&s).ok()),
                    findings: json(18)?.and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default(),
                    capacity: json(19)?.and_then(|s| serde_json::from_str(&s).ok()),
                    levels: vec![],
                    writes: None,
                })
            },
        )
        .optional()?;
    let Some(mut rec) = r else { return Ok(None) };
    let writes: Option<String> = c.query_row("SELECT data FROM write_checks WHERE run_id = ?1", params![id], |r| r.get(0)).optional()?;
    rec.writes = writes.and_then(|s| serde_json::from_str(&s).ok());
    let mut st = c.prepare(
        "SELECT level_no, threads, status, started_at, ended_at, events, queries, trx_stmts, elapsed_s, tps, qps, qps_without_trx, p95_ms, p99_ms, cpu_user_s, cpu_sys_s, summary, histogram, outage FROM levels WHERE run_id = ?1 ORDER BY level_no",
    )?;
    let levels = st.query_map(params![id], |r| {
        let cpu = r.get::<_, Option<f64>>(14)?.unwrap_or(0.0) + r.get::<_, Option<f64>>(15)?.unwrap_or(0.0);
        let elapsed: Option<f64> = r.get(8)?;
        Ok(LevelRec {
            level_no: r.get::<_, i64>(0)? as usize,
            threads: r.get::<_, i64>(1)? as usize,
            status: r.get(2)?,
            started_at: r.get(3)?,
            ended_at: r.get(4)?,
            events: r.get::<_, Option<i64>>(5)?.unwrap_or(0) as u64,
            queries: r.get::<_, Option<i64>>(6)?.unwrap_or(0) as u64,
            trx_stmts: r.get::<_, Option<i64>>(7)?.unwrap_or(0) as u64,
            elapsed_s: elapsed.unwrap_or(0.0),
            tps: r.get::<_, Option<f64>>(9)?.unwrap_or(0.0),
            qps: r.get::<_, Option<f64>>(10)?.unwrap_or(0.0),
            qps_no_trx: r.get::<_, Option<f64>>(11)?.unwrap_or(0.0),
            p95_ms: r.get::<_, Option<f64>>(12)?.unwrap_or(0.0),
            p99_ms: r.get::<_, Option<f64>>(13)?.unwrap_or(0.0),
            cpu_cores: elapsed.filter(|e| *e > 0.0).map(|e| cpu / e).unwrap_or(0.0),
            summary: r.get::<_, Option<String>>(16)?.and_then(|s| serde_json::from_str(&s).ok()),
            histogram: if histograms { r.get::<_, Option<Vec<u8>>>(17)?.map(|b| b64(&b)) } else { None },
            intervals: vec![],
            samples: vec![],
            outage: r.get::<_, Option<String>>(18)?.and_then(|s| serde_json::from_str(&s).ok()),
            profile: None,
        })
    })?;
    for l in levels {
        rec.levels.push(l?);
    }
    for l in &mut rec.levels {
        let mut st = c.prepare_cached(
            "SELECT seq, t, secs, warmup, events, reads, writes, other, trx_stmts, errors, reconnects, p95_ms, p99_ms, cpu_user_s, cpu_sys_s, histogram, kinds, p50_ms, max_ms, stall_ms FROM intervals WHERE run_id = ?1 AND level_no = ?2 ORDER BY seq",
        )?;
        let ivs = st.query_map(params![id, l.level_no as i64], |r| {
            Ok(IntervalRec {
                seq: r.get::<_, i64>(0)? as usize,
                t: r.get(1)?,
                secs: r.get(2)?,
                warmup: r.get::<_, i64>(3)? != 0,
                events: r.get::<_, i64>(4)? as u64,
                reads: r.get::<_, i64>(5)? as u64,
                writes: r.get::<_, i64>(6)? as u64,
                other: r.get::<_, i64>(7)? as u64,
                trx_stmts: r.get::<_, i64>(8)? as u64,
                errors: r.get::<_, i64>(9)? as u64,
                reconnects: r.get::<_, i64>(10)? as u64,
                p95_ms: r.get::<_, Option<f64>>(11)?.unwrap_or(0.0),
                p99_ms: r.get::<_, Option<f64>>(12)?.unwrap_or(0.0),
                cpu_s: r.get::<_, Option<f64>>(13)?.unwrap_or(0.0) + r.get::<_, Option<f64>>(14)?.unwrap_or(0.0),
                histogram: if histograms { r.get::<_, Option<Vec<u8>>>(15)?.map(|b| b64(&b)) } else { None },
                kinds: r.get::<_, Option<String>>(16)?.and_then(|k| serde_json::from_str(&k).ok()).unwrap_or_default(),
                p50_ms: r.get::<_, Option<f64>>(17)?.unwrap_or(0.0),
                max_ms: r.get::<_, Option<f64>>(18)?.unwrap_or(0.0),
                stall_ms: r.get::<_, Option<f64>>(19)?.unwrap_or(0.0),
            })
        })?;
        for i in ivs {
            l.intervals.push(i?);
        }
        let mut st = c.prepare_cached("SELECT seq, t, dt, data FROM env_samples WHERE run_id = ?1 AND level_no = ?2 ORDER BY seq")?;
        let ss = st.query_map(params![id, l.level_no as i64], |r| {
            Ok(StoredSample { seq: r.get::<_, i64>(0)? as usize, t: r.get(1)?, dt: r.get(2)?, sample: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default() })
        })?;
        for s in ss {
            l.samples.push(s?);
        }
        let mut st = c.prepare_cached("SELECT folded, error FROM profiles WHERE run_id = ?1 AND level_no = ?2")?;
        l.profile = st.query_row(params![id, l.level_no as i64], |r| Ok(crate::model::record::Profile { folded: r.get(0)?, error: r.get(1)? })).optional()?;
        if l.ended_at.is_none() {
            // Never summarised (the process died): figures from the stored intervals.
            let m: Vec<&IntervalRec> = l.intervals.iter().filter(|i| !i.warmup).collect();
            let secs: f64 = m.iter().map(|i| i.secs).sum();
            l.events = m.iter().map(|i| i.events).sum();
            l.queries = m.iter().map(|i| i.reads + i.writes + i.other).sum();
            l.trx_stmts = m.iter().map(|i| i.trx_stmts).sum();
            l.elapsed_s = secs;
            if secs > 0.0 {
                l.tps = l.events as f64 / secs;
                l.qps = l.queries as f64 / secs;
                l.qps_no_trx = l.queries.saturating_sub(l.trx_stmts) as f64 / secs;
                l.cpu_cores = m.iter().map(|i| i.cpu_s).sum::<f64>() / secs;
            }
            l.p95_ms = m.iter().map(|i| i.p95_ms).fold(0.0, f64::max);
            l.p99_ms = m.iter().map(|i| i.p99_ms).fold(0.0, f64::max);
        }
    }
    Ok(Some(rec))
}

// ---------------------------------------------------------------------------
// Recording a run
// ---------------------------------------------------------------------------

struct Live {
    conn: Connection,
    path: PathBuf,
    run_id: i64,
    level_no: usize,
    in_level: bool,
    written: usize,
    finished: bool,
    last_error: Option<String>,
}

impl Live {
    fn warn(&mut self, e: impl std::fmt::Display) {
        // A store that stops working must not stop the benchmark; say it once.
        if self.last_error.is_none() {
            eprintln!("fairbench: results store {}: {e}; the run goes on without storing", self.path.display());
        }
        self.last_error = Some(e.to_string());
    }

    fn write_interval(&mut self, iv: &Interval, seq: usize) {
        let w = &iv.w;
        let kinds = (!w.kinds.is_empty()).then(|| serde_json::to_string(&w.kinds.iter().map(|k| k.events).collect::<Vec<u64>>()).unwrap_or_default());
        let h = hist_bytes(&w.lat);
        let max = if w.lat.is_empty() { 0.0 } else { w.lat.max() as f64 / 1000.0 };
        let r = self.conn.execute(
            "INSERT OR REPLACE INTO intervals(run_id, level_no, seq, t, secs, threads, warmup, events, reads, writes, other, trx_stmts, errors, reconnects, dropped, p50_ms, p95_ms, p99_ms, max_ms, cpu_user_s, cpu_sys_s, histogram, kinds, stall_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)",
            params![
                self.run_id,
                self.level_no as i64,
                seq as i64,
                iv.t,
                iv.secs,
                iv.threads as i64,
                iv.warmup as i64,
                w.events as i64,
                w.reads as i64,
                w.writes as i64,
                w.other as i64,
                w.trx_stmts as i64,
                w.errors as i64,
                w.reconnects as i64,
                w.dropped as i64,
                w.pct_ms(50.0),
                w.pct_ms(95.0),
                w.pct_ms(99.0),
                max,
                iv.cpu_user_s,
                iv.cpu_sys_s,
                h,
                kinds,
                (iv.stall_s > 0.0).then_some(iv.stall_s * 1e3)
            ],
        );
        if let Err(e) = r {
            self.warn(e);
        }
    }
}

/// A `--verify-writes` verdict reached later (`fairbench check writes`),
/// kept with the run that wrote the log: it replaces an earlier verdict.
/// Gives the run's record with it, for the audit's findings to follow it
/// ([`set_findings`]).
pub fn attach_writes(path: &Path, run_id: i64, workload: &str, verdict: &Value) -> Result<RunRecord> {
    let conn = open(path, false)?;
    let Some(rec) = load(&conn, run_id, false).map_err(|e| io(path, e))? else {
        return Err(Error::Io(format!("run {run_id} is not in the results store {} (give the store it is in with --results PATH)", path.display())));
    };
    if rec.workload != workload {
        return Err(Error::Io(format!("run {run_id} in {} ran {}, not the log's {workload}", path.display(), rec.workload)));
    }
    put_writes(&conn, run_id, verdict).map_err(|e| io(path, e))?;
    Ok(RunRecord { writes: Some(verdict.clone()), ..rec })
}

/// The latest `--find-max` result stored for `workload` on `target` (password masked, as
/// stored): its run id and what it found.
pub fn latest_capacity(path: &Path, workload: &str, target: &str) -> Result<Option<(i64, crate::model::capacity::Capacity)>> {
    if !path.exists() {
        return Ok(None);
    }
    let conn = open(path, false)?;
    let row: Option<(i64, String)> = conn
        .query_row("SELECT id, capacity FROM runs WHERE capacity IS NOT NULL AND workload = ?1 AND target = ?2 ORDER BY id DESC LIMIT 1", params![workload, target], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()
        .map_err(|e| io(path, e))?;
    Ok(row.and_then(|(id, c)| Some((id, serde_json::from_str(&c).ok()?))))
}

/// Replaces a stored run's audit findings.
pub fn set_findings(path: &Path, run_id: i64, findings: &[Finding]) -> Result<()> {
    let conn = open(path, false)?;
    put_findings(&conn, run_id, findings).map_err(|e| io(path, e))?;
    Ok(())
}

fn put_writes(conn: &Connection, run_id: i64, verdict: &Value) -> rusqlite::Result<usize> {
    conn.execute("INSERT OR REPLACE INTO write_checks(run_id, data) VALUES(?1, ?2)", params![run_id, verdict.to_string()])
}

fn put_findings(conn: &Connection, run_id: i64, findings: &[Finding]) -> rusqlite::Result<usize> {
    conn.execute("UPDATE runs SET findings = ?1 WHERE id = ?2", params![serde_json::to_string(findings).unwrap_or_default(), run_id])
}

/// The run's row, status running; returns its id.
fn insert_run(conn: &Connection, path: &Path, info: &RunInfo, levels_in: &[usize], tag: &str) -> Result<i64> {
    let levels: Vec<String> = levels_in.iter().map(|l| l.to_string()).collect();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_default();
    conn.execute(
        "INSERT INTO runs(kind, label, tag, workload, engine, target, transport, tool_version, levels, options, started_at, status, hostname, pid)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'running', ?12, ?13)",
        params![
            if levels_in.len() > 1 { "sweep" } else { "run" },
            info.label,
            tag,
            info.workload,
            info.engine,
            info.target,
            info.transport,
            crate::VERSION,
            levels.join(","),
            info.options.to_json().to_string(),
            now_rfc3339(),
            host,
            std::process::id() as i64
        ],
    )
    .map_err(|e| io(path, e))?;
    let run_id = conn.last_insert_rowid();
    Ok(run_id)
}

/// Records one run or sweep; `sink()` feeds it, `finish()` closes it. It
/// only stores: the environment's snapshots and samples are taken by the
/// run's driver and handed over ([`Recorder::env_start`],
/// [`Recorder::sample_writer`], [`Recorder::finish`]).
#[derive(Clone)]
pub struct Recorder {
    live: Arc<Mutex<Live>>,
}

/// Stores each environment sample (through a connection of its own to the store).
pub type SampleWriter = Box<dyn FnMut(&SampleRow) + Send>;

impl Recorder {
    /// Opens the record of a run in the store at `path` (created when missing, in a directory
    /// that exists).
    pub fn begin(path: &Path, info: &RunInfo, levels: &[usize], tag: &str) -> Result<Recorder> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.exists() {
                return Err(Error::Io(format!("results store {}: directory {} does not exist", path.display(), dir.display())));
            }
        }
        let conn = open(path, true)?;
        let run_id = insert_run(&conn, path, info, levels, tag)?;
        let live = Live { conn, path: path.to_path_buf(), run_id, level_no: 0, in_level: false, written: 0, finished: false, last_error: None };
        Ok(Recorder { live: Arc::new(Mutex::new(live)) })
    }

    /// Stores the snapshot of the environment taken before the first level.
    pub fn env_start(&self, snap: &Snapshot) {
        let Ok(mut l) = self.live.lock() else { return };
        let id = l.run_id;
        let r = l.conn.execute("UPDATE runs SET env_start = ?1 WHERE id = ?2", params![serde_json::to_string(snap).unwrap_or_default(), id]);
        if let Err(e) = r {
            l.warn(e);
        }
    }

    /// Something that stores samples of the environment into this run's
    /// record from another thread (the sampler's): SQLite's WAL lets both
    /// connections write.
    pub fn sample_writer(&self) -> SampleWriter {
        let (path, run_id) = self.live.lock().map(|l| (l.path.clone(), l.run_id)).unwrap_or_default();
        let mut conn = open(&path, true).ok();
        Box::new(move |s: &SampleRow| {
            let Some(c) = conn.as_mut() else { return };
            let data = serde_json::to_string(&s.sample).unwrap_or_default();
            let _ =
                c.execute("INSERT OR REPLACE INTO env_samples(run_id, level_no, seq, t, dt, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", params![run_id, s.level_no as i64, s.seq as i64, s.t, s.dt, data]);
            if let Some(p) = &s.profile {
                let (folded, error) = match p {
                    Ok(f) => (f.as_str(), None),
                    Err(e) => ("", Some(e.as_str())),
                };
                let _ = c.execute("INSERT OR REPLACE INTO profiles(run_id, level_no, folded, error) VALUES (?1, ?2, ?3, ?4)", params![run_id, s.level_no as i64, folded, error]);
            }
        })
    }

    /// Stores the `--verify-writes` verdict (before [`Recorder::finish`],
    /// so that the record it gives holds it).
    pub fn set_writes(&self, verdict: &Value) {
        let Ok(mut l) = self.live.lock() else { return };
        let id = l.run_id;
        let r = put_writes(&l.conn, id, verdict);
        if let Err(e) = r {
            l.warn(e);
        }
    }

    /// Replaces the run's audit findings (the command audits the record
    /// [`Recorder::finish`] gives).
    pub fn set_findings(&self, findings: &[Finding]) {
        let Ok(mut l) = self.live.lock() else { return };
        let id = l.run_id;
        let r = put_findings(&l.conn, id, findings);
        if let Err(e) = r {
            l.warn(e);
        }
    }

    /// Stores what a `--find-max` search found (again after each step: Ctrl-C keeps the last).
    pub fn set_capacity(&self, c: &crate::model::capacity::Capacity) {
        let Ok(mut l) = self.live.lock() else { return };
        let id = l.run_id;
        let r = l.conn.execute("UPDATE runs SET capacity = ?1 WHERE id = ?2", params![serde_json::to_string(c).unwrap_or_default(), id]);
        if let Err(e) = r {
            l.warn(e);
        }
    }

    pub fn run_id(&self) -> i64 {
        self.live.lock().map(|l| l.run_id).unwrap_or(0)
    }

    pub fn path(&self) -> PathBuf {
        self.live.lock().map(|l| l.path.clone()).unwrap_or_default()
    }

    pub fn sink(&self) -> Box<dyn Sink> {
        Box::new(StoreSink { rec: self.clone() })
    }

    /// Closes the record: its status and the environment's `end` snapshot;
    /// gives the record as stored (None when it could not be read, or was
    /// closed before).
    pub fn finish(&self, outcome: &Result<()>, end: Option<Snapshot>) -> Option<RunRecord> {
        let Ok(mut l) = self.live.lock() else { return None };
        if l.finished {
            return None;
        }
        l.finished = true;
        let (status, err) = match outcome {
            Ok(()) => ("completed", None),
            Err(Error::Interrupted) => ("interrupted", None),
            Err(e) => ("failed", Some(e.to_string())),
        };
        let id = l.run_id;
        let r = l.conn.execute(
            "UPDATE runs SET ended_at = ?1, status = ?2, error = ?3, env_end = ?4 WHERE id = ?5",
            params![now_rfc3339(), status, err, end.map(|s| serde_json::to_string(&s).unwrap_or_default()), id],
        );
        if let Err(e) = r {
            l.warn(e);
        }
        load(&l.conn, id, false).ok().flatten()
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        // Ended by an error that skipped finish(): say so rather than "running".
        if !self.finished {
            let _ = self.conn.execute(
                "UPDATE runs SET ended_at = ?1, status = 'failed', error = COALESCE(error, 'stopped before the end') WHERE id = ?2 AND status = 'running'",
                params![now_rfc3339(), self.run_id],
            );
        }
    }
}

struct StoreSink {
    rec: Recorder,
}

impl Sink for StoreSink {
    fn before_start(&mut self) {
        let Ok(mut l) = self.rec.live.lock() else { return };
        if l.in_level {
            l.level_no += 1;
        }
        l.in_level = true;
        l.written = 0;
    }

    fn start(&mut self, threads: usize) {
        let Ok(mut l) = self.rec.live.lock() else { return };
        let (id, n) = (l.run_id, l.level_no as i64);
        let r = l.conn.execute("INSERT OR REPLACE INTO levels(run_id, level_no, threads, started_at, status) VALUES (?1, ?2, ?3, ?4, 'running')", params![id, n, threads as i64, now_rfc3339()]);
        if let Err(e) = r {
            l.warn(e);
        }
    }

    fn interval(&mut self, iv: &Interval, _rate_mode: bool) {
        self.unreported(iv);
    }

    fn stall(&mut self, seq: usize, secs: f64) {
        let Ok(mut l) = self.rec.live.lock() else { return };
        let (id, n) = (l.run_id, l.level_no as i64);
        let r = l.conn.execute("UPDATE intervals SET stall_ms = max(coalesce(stall_ms, 0), ?1) WHERE run_id = ?2 AND level_no = ?3 AND seq = ?4", params![secs * 1e3, id, n, seq as i64]);
        if let Err(e) = r {
            l.warn(e);
        }
    }

    fn unreported(&mut self, iv: &Interval) {
        let Ok(mut l) = self.rec.live.lock() else { return };
        let seq = l.written;
        l.write_interval(iv, seq);
        l.written += 1;
    }

    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        let Ok(mut l) = self.rec.live.lock() else { return };
        // Intervals no sink was given as they ended (a merge of several processes' logs): store
        // them now. A level's own were stored one by one, and it keeps them folded.
        let from = l.written;
        for (i, iv) in r.intervals.iter().enumerate().skip(from) {
            l.write_interval(iv, i);
        }
        l.written = l.written.max(r.intervals.len());
        let t = &r.total;
        let secs = r.elapsed_s.max(1e-9);
        let status = match &r.stop {
            Stop::Completed => "completed",
            Stop::Interrupted => "interrupted",
            Stop::Failed(_) => "failed",
        };
        let summary = crate::live::summary_json(r, info).to_string();
        let outage = r.outage.as_ref().and_then(|o| serde_json::to_string(o).ok());
        let raw = if r.rate > 0.0 { Some(hist_bytes(&t.lat_raw)) } else { None };
        let (id, n) = (l.run_id, l.level_no as i64);
        let res = l.conn.execute(
            "UPDATE levels SET ended_at = ?1, status = ?2, events = ?3, queries = ?4, trx_stmts = ?5, elapsed_s = ?6, tps = ?7, qps = ?8, qps_without_trx = ?9, p95_ms = ?10, p99_ms = ?11,
             cpu_user_s = ?12, cpu_sys_s = ?13, summary = ?14, histogram = ?15, histogram_uncorrected = ?16, outage = ?19 WHERE run_id = ?17 AND level_no = ?18",
            params![
                now_rfc3339(),
                status,
                t.events as i64,
                t.queries() as i64,
                t.trx_stmts as i64,
                r.elapsed_s,
                t.events as f64 / secs,
                t.queries() as f64 / secs,
                t.queries().saturating_sub(t.trx_stmts) as f64 / secs,
                t.pct_ms(95.0),
                t.pct_ms(99.0),
                r.cpu_user_s,
                r.cpu_sys_s,
                summary,
                hist_bytes(&t.lat),
                raw,
                id,
                n,
                outage
            ],
        );
        if let Err(e) = res {
            l.warn(e);
        }
    }
}
