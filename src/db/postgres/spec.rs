//! PostgreSQL as it describes itself: pg_settings with their units, the
//! statistics views its version has, a standby's replay lag, and what
//! fsync and synchronous_commit guarantee.

use crate::db::engines::{on, Activity, Aspect, Common, Digests, DurClass, Durability, Engine, Evidence, LocalFuture};
use crate::db::facts::{first_number, rows, tls_of, value, DatasetTables, Server};
use crate::db::{Conn, ConnConfig, Dialect, Protocol};
use crate::units::human_bytes;
use std::collections::BTreeMap;

pub struct Postgres;
pub static POSTGRES: Postgres = Postgres;

/// Gauges: on a standby whether it is in recovery, how far its replay is
/// behind (seconds, and bytes received but not replayed); on a primary how
/// many standbys stream from it and the largest replay lag they report.
const GAUGES: &[&str] = &["in_recovery", "replication_lag_s", "replay_lag_bytes", "standbys", "standby_replay_lag_s"];

/// On a standby: seconds behind and bytes received but not replayed.
const STANDBY_LAG: &str = "SELECT CASE WHEN pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn() \
     THEN COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) ELSE 0 END, \
     COALESCE(GREATEST(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0), 0)";

/// Size in bytes of a setting with a unit ("8kB" pages, "kB").
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

/// A setting as a number of bytes, its unit applied.
fn var_bytes(s: &Server, name: &str) -> Option<u64> {
    pg_bytes(s.var(name)?, s.units.get(name).map(String::as_str))
}

/// The server's version as a number (170002 for 17.2), from the settings a
/// snapshot read; None when they could not be read.
pub fn version_num(s: &Server) -> Option<u32> {
    s.variables.get("server_version_num")?.trim().parse().ok()
}

/// The counters. `version` (server_version_num) picks the views the
/// server has, so no sample ever sends a query that fails: a failed query
/// writes an ERROR into the server's log of the benchmark it measures.
async fn status(c: &mut Conn, version: Option<u32>, errors: &mut Vec<String>) -> BTreeMap<String, f64> {
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
    let recovery = value(c, "SELECT pg_is_in_recovery()", errors).await.map(|v| v == "t");
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
    // WAL syncs are counted by pg_stat_wal from PostgreSQL 14 until 18 moved them to pg_stat_io.
    if version.is_some_and(|v| (140000..180000).contains(&v)) && recovery != Some(true) {
        put(&["wal_sync", "wal_write"], rows(c, "SELECT wal_sync, wal_write FROM pg_stat_wal", errors).await);
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

/// The pooler as recorded: the evidence, and the statement form used through it.
fn pooler_text(p: crate::db::fast::pg::Pooler, prepared: bool) -> String {
    let form = match (prepared, p.keeps_statements) {
        (true, true) => "statements prepared once per connection, kept by the pooler across its server connections",
        (true, false) => "statements unnamed, parsed with each execution (the pooler keeps no prepared statements: pgbouncer 1.21 or later with max_prepared_statements does)",
        (false, _) => "statements as text (--db-ps-mode=disable)",
    };
    format!("pooler in front of the server (cancel key pid {} is not the server process {}); {form}", p.key_pid, p.backend_pid)
}

impl Engine for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn protocol(&self) -> Protocol {
        Protocol::Postgres
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &super::dialect::PgDialect
    }

    fn capture<'a>(&'a self, c: &'a mut Conn, cfg: &'a ConnConfig, tables: &'a DatasetTables, s: &'a mut Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, ()> {
        Box::pin(async move {
            for row in rows(c, "SELECT name, setting, COALESCE(unit, '') FROM pg_settings", errors).await {
                if row.len() >= 3 {
                    if !row[2].is_empty() {
                        s.units.insert(row[0].clone(), row[2].clone());
                    }
                    s.variables.insert(row[0].clone(), row[1].clone());
                }
            }
            s.version = value(c, "SELECT version()", errors).await.unwrap_or_default();
            s.cache_bytes = var_bytes(s, "shared_buffers");
            let sql = format!(
                "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema() AND {}",
                tables.condition("c.relname", false, true)
            );
            s.dataset_bytes = first_number(&rows(c, &sql, errors).await);
            s.status = status(c, version_num(s), errors).await;
            // Always one row: no pg_stat_ssl row means no TLS; no row at all means the query failed.
            let ssl = value(c, "SELECT COALESCE((SELECT CASE WHEN ssl THEN COALESCE(cipher, 'unknown cipher') ELSE '' END FROM pg_stat_ssl WHERE pid = pg_backend_pid()), '')", errors).await;
            (s.tls, s.tls_cipher) = tls_of(ssl.as_deref());
            s.pooler = c.pooler().map(|p| match &cfg.pool {
                Some(pool) => format!("{pool}; {}", pooler_text(p, cfg.prepared)),
                None => pooler_text(p, cfg.prepared),
            });
            if c.config().server_time {
                match super::digests::view(c, s, errors).await {
                    Ok(v) => s.statements_view = Some(v),
                    Err(note) => errors.push(note),
                }
            }
        })
    }

    fn catalog<'a>(&'a self, c: &'a mut Conn, tables: &'a DatasetTables, errors: &'a mut Vec<String>) -> LocalFuture<'a, Vec<crate::db::catalog::TableShape>> {
        Box::pin(super::catalog::read(c, tables, errors))
    }

    fn counters<'a>(&'a self, c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, f64>> {
        Box::pin(status(c, version_num(start), errors))
    }

    fn gauges(&self) -> &'static [&'static str] {
        GAUGES
    }

    fn page_reads(&self, deltas: &BTreeMap<String, f64>) -> Option<(f64, f64)> {
        let p = deltas.get("blks_read")?;
        Some((*p, p + deltas.get("blks_hit").copied().unwrap_or(0.0)))
    }

    fn fsyncs(&self, deltas: &BTreeMap<String, f64>) -> Option<f64> {
        deltas.get("wal_sync").copied()
    }

    fn data_dir(&self, s: &Server) -> Option<String> {
        s.var("data_directory").map(String::from)
    }

    fn durability(&self, s: &Server) -> Durability {
        let mut ev = Evidence::new(s);
        let fsync = on(ev.show("fsync"));
        let sc = ev.show("synchronous_commit").map(str::to_ascii_lowercase);
        let fpw = on(ev.show("full_page_writes"));
        ev.show("wal_sync_method");
        let class = match (fsync, sc.as_deref()) {
            (None, _) | (_, None) => DurClass::Unknown,
            (Some(false), _) => DurClass::NotSynced,
            (Some(true), Some("off")) => DurClass::PerSecond,
            _ => DurClass::Synced,
        };
        Durability { class, evidence: ev.seen, torn_pages: fpw }
    }

    fn cache_setting(&self) -> &'static str {
        "shared_buffers"
    }

    fn measured(&self) -> &'static [crate::db::measured::Measured] {
        super::measured::MEASURED
    }

    fn common_settings(&self, s: &Server) -> Vec<(Aspect, Common)> {
        let mut out = Vec::new();
        if let Some(m) = s.var("wal_sync_method").map(str::to_ascii_lowercase) {
            let call = match m.as_str() {
                "fdatasync" => "fdatasync()",
                "open_datasync" => "O_DSYNC writes",
                "open_sync" => "O_SYNC writes",
                "fsync_writethrough" => "fsync() with write-through",
                _ => "fsync()",
            };
            out.push((Aspect::LogSync, Common::new(call, format!("wal_sync_method = {m}: {call}"))));
        }
        let d = s.var("debug_io_direct").unwrap_or("").to_ascii_lowercase();
        let why = if d.is_empty() { "PostgreSQL reads and writes through the OS".to_string() } else { format!("debug_io_direct = {d}") };
        out.push((Aspect::DataFileIo, Common::data_file_io(d.contains("data"), why)));
        if let (Some(pages), Some(delay)) = (s.var_num("bgwriter_lru_maxpages"), s.var_num("bgwriter_delay").filter(|d| *d > 0.0)) {
            let rate = pages * 1000.0 / delay;
            out.push((
                Aspect::BackgroundFlush,
                Common::new(format!("about {rate:.0} pages/s"), format!("bgwriter_lru_maxpages = {pages:.0} every bgwriter_delay = {delay:.0} ms: up to {rate:.0} pages/s")),
            ));
        }
        if let Some(e) = s.var_num("effective_io_concurrency") {
            let maint = s.var_num("maintenance_io_concurrency").map(|m| format!(", maintenance_io_concurrency = {m:.0}")).unwrap_or_default();
            out.push((Aspect::IoConcurrency, Common::same(format!("effective_io_concurrency = {e:.0}{maint}"))));
        }
        if let Some(b) = var_bytes(s, "max_wal_size") {
            out.push((Aspect::LogCapacity, Common::derived_size(&format!("max_wal_size = {}", human_bytes(b as f64)), b)));
        }
        // -1: sized from shared_buffers (1/32, between 64 kB and one 16 MB WAL segment).
        let wal_buffers = if s.var("wal_buffers").map(str::trim) == Some("-1") { s.cache_bytes.map(|c| (c / 32).clamp(64 << 10, 16 << 20)) } else { var_bytes(s, "wal_buffers") };
        if let Some(b) = wal_buffers {
            out.push((Aspect::LogBuffer, Common::setting_size("wal_buffers", b)));
        }
        let max = s.var("max_connections").map(|m| format!(", max_connections = {m}")).unwrap_or_default();
        out.push((Aspect::Connections, Common::new("one worker per connection", format!("one process per connection{max}"))));
        out
    }

    fn digests(&self) -> Option<&dyn Digests> {
        Some(self)
    }

    fn activity(&self) -> Option<&dyn Activity> {
        Some(self)
    }
}

impl Digests for Postgres {
    fn statements<'a>(&'a self, c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, crate::db::digests::Digest>> {
        Box::pin(super::digests::read(c, start, errors))
    }

    fn statement_texts<'a>(&'a self, c: &'a mut Conn, start: &'a Server, ids: &'a [String], errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, String>> {
        Box::pin(super::digests::texts(c, start, ids, errors))
    }
}

impl Activity for Postgres {
    /// The run's sessions carry its application name (fairbench's by default).
    fn activity_sql(&self, target: &crate::db::url::Target) -> Option<String> {
        Some(super::waits::activity_sql(target.session_name()))
    }

    fn activity_wait(&self, row: &[Option<String>]) -> Option<String> {
        super::waits::wait_of(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pg_units() {
        assert_eq!(pg_bytes("16384", Some("8kB")), Some(134217728));
        assert_eq!(pg_bytes("x", None), None);
    }
}
