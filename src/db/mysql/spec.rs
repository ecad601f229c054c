//! The MySQL family (MySQL, MariaDB, Percona Server, GreatSQL) as it
//! describes itself: global and session variables, InnoDB's counters, and
//! what InnoDB's and the binary log's settings guarantee.

use crate::db::engines::{on, Aspect, Common, Digests, DurClass, Durability, Engine, Evidence, LocalFuture};
use crate::db::facts::{first_number, pairs, rows, tls_of, DatasetTables, Server};
use crate::db::{Conn, ConnConfig, Dialect, Protocol};
use crate::units::human_bytes;
use std::collections::BTreeMap;

pub struct Mysql;
pub static MYSQL: Mysql = Mysql;

/// Counters kept per interval (cumulative ones become deltas).
const COUNTERS: &[&str] = &[
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
    super::waits::ROW_LOCK_TIME,
];
const GAUGES: &[&str] = &["Innodb_buffer_pool_pages_dirty", "Innodb_history_list_length", "Innodb_buffer_pool_pages_total"];

/// The counters and gauges, read once a second during a run. Asking for
/// these by name costs the server a quarter of the whole list's CPU
/// (MariaDB 10.11: about 0.25 ms against 0.9 ms; the whole list is 600
/// rows), and the sampler's own share of the cores is what it takes from
/// the clients and the server it measures.
async fn status(c: &mut Conn, errors: &mut Vec<String>) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    let names: Vec<String> = COUNTERS.iter().chain(GAUGES).map(|n| format!("'{n}'")).collect();
    let sql = format!("SHOW GLOBAL STATUS WHERE Variable_name IN ({})", names.join(", "));
    for r in rows(c, &sql, errors).await {
        if r.len() < 2 {
            continue;
        }
        if let Some(name) = COUNTERS.iter().chain(GAUGES).find(|n| n.eq_ignore_ascii_case(&r[0])) {
            if let Ok(v) = r[1].parse::<f64>() {
                m.insert(name.to_string(), v);
            }
        }
    }
    m
}

/// What performance_schema keeps beyond its switch, as two variables the
/// audit compares: the consumers enabled (each history or current table
/// stores every event it is fed) and how many instruments are enabled and
/// timed (each timed one reads a clock around every event it sees).
async fn instrumentation(c: &mut Conn, s: &mut Server, errors: &mut Vec<String>) {
    let consumers = rows(c, "SELECT NAME FROM performance_schema.setup_consumers WHERE ENABLED = 'YES' ORDER BY NAME", errors).await;
    s.variables.insert(CONSUMERS.into(), consumers.into_iter().filter_map(|r| r.into_iter().next()).collect::<Vec<_>>().join(","));
    let counts = rows(c, "SELECT SUM(ENABLED = 'YES'), SUM(ENABLED = 'YES' AND TIMED = 'YES'), COUNT(*) FROM performance_schema.setup_instruments", errors).await;
    if let Some([enabled, timed, all]) = counts.first().and_then(|r| <[String; 3]>::try_from(r.clone()).ok()) {
        s.variables.insert(INSTRUMENTS.into(), format!("{enabled} enabled, {timed} timed, of {all}"));
    }
}

/// The recorded names of performance_schema's consumers and instruments.
pub const CONSUMERS: &str = "performance_schema.consumers";
pub const INSTRUMENTS: &str = "performance_schema.instruments";

/// A variable as a number of bytes.
fn var_bytes(s: &Server, name: &str) -> Option<u64> {
    s.var_num(name).map(|v| v as u64)
}

/// InnoDB's flush method by name; MariaDB may report it as a number.
fn innodb_flush_method(s: &Server) -> Option<String> {
    let v = s.var("innodb_flush_method")?.to_ascii_uppercase();
    const BY_NUMBER: &[&str] = &["FSYNC", "O_DSYNC", "LITTLESYNC", "NOSYNC", "O_DIRECT", "O_DIRECT_NO_FSYNC"];
    Some(v.parse::<usize>().ok().and_then(|i| BY_NUMBER.get(i)).map(|n| n.to_string()).unwrap_or(v))
}

impl Engine for Mysql {
    fn name(&self) -> &'static str {
        "mysql"
    }

    fn protocol(&self) -> Protocol {
        Protocol::Mysql
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &super::dialect::MysqlDialect
    }

    fn capture<'a>(&'a self, c: &'a mut Conn, _cfg: &'a ConnConfig, tables: &'a DatasetTables, s: &'a mut Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, ()> {
        Box::pin(async move {
            s.variables = pairs(rows(c, "SHOW GLOBAL VARIABLES", errors).await);
            let session = pairs(rows(c, "SHOW SESSION VARIABLES", errors).await);
            s.session = session.into_iter().filter(|(k, v)| s.variables.get(k).map(|g| g != v).unwrap_or(false)).collect();
            s.version = s.variables.get("version").cloned().unwrap_or_default();
            if let Some(comment) = s.variables.get("version_comment") {
                s.version = format!("{} ({comment})", s.version);
            }
            s.cache_bytes = s.variables.get("innodb_buffer_pool_size").and_then(|v| v.parse().ok());
            let sql =
                format!("SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE() AND {}", tables.condition("table_name", false, false));
            s.dataset_bytes = first_number(&rows(c, &sql, errors).await);
            s.status = status(c, errors).await;
            if !super::waits::schema_on(s) {
                errors.push(super::waits::schema_off());
            } else {
                instrumentation(c, s, errors).await;
                if c.config().server_time {
                    match super::digests::view(c, errors).await {
                        Ok(v) => s.statements_view = Some(v),
                        Err(note) => errors.push(note),
                    }
                }
            }
            let cipher = rows(c, "SHOW SESSION STATUS LIKE 'Ssl_cipher'", errors).await;
            (s.tls, s.tls_cipher) = tls_of(cipher.first().and_then(|r| r.get(1)).map(String::as_str));
        })
    }

    fn catalog<'a>(&'a self, c: &'a mut Conn, tables: &'a DatasetTables, errors: &'a mut Vec<String>) -> LocalFuture<'a, Vec<crate::db::catalog::TableShape>> {
        Box::pin(super::catalog::read(c, tables, errors))
    }

    /// InnoDB's counters and where the server's time went (waits.rs).
    fn counters<'a>(&'a self, c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, f64>> {
        Box::pin(async move {
            let mut m = status(c, errors).await;
            if c.config().server_time {
                let waits = super::waits::read(c, start, &m, errors).await;
                m.extend(waits);
            }
            m
        })
    }

    fn gauges(&self) -> &'static [&'static str] {
        GAUGES
    }

    fn page_reads(&self, deltas: &BTreeMap<String, f64>) -> Option<(f64, f64)> {
        let p = deltas.get("Innodb_buffer_pool_reads")?;
        Some((*p, deltas.get("Innodb_buffer_pool_read_requests").copied().unwrap_or(0.0)))
    }

    /// Every fsync InnoDB issued, its redo log's included (MariaDB counts
    /// them all in Innodb_data_fsyncs; MySQL 8 keeps the log's apart).
    fn fsyncs(&self, deltas: &BTreeMap<String, f64>) -> Option<f64> {
        let data = deltas.get("Innodb_data_fsyncs").copied()?;
        let log = deltas.get("Innodb_os_log_fsyncs").copied().unwrap_or(0.0);
        Some(data.max(log))
    }

    fn data_dir(&self, s: &Server) -> Option<String> {
        s.var("datadir").map(String::from)
    }

    fn durability(&self, s: &Server) -> Durability {
        let mut ev = Evidence::new(s);
        let trx = ev.show("innodb_flush_log_at_trx_commit");
        let log_bin = on(ev.show("log_bin"));
        let sql_log_bin = on(ev.show("sql_log_bin"));
        let sync_binlog = ev.show("sync_binlog").and_then(|v| v.parse::<u64>().ok());
        let method = ev.show("innodb_flush_method").map(str::to_ascii_lowercase);
        let dw = ev.show("innodb_doublewrite").map(|v| !matches!(v.to_ascii_lowercase().as_str(), "off" | "0"));
        let class = match trx {
            None => DurClass::Unknown,
            Some(_) if method.as_deref().map(|m| m.contains("nosync")).unwrap_or(false) => DurClass::NotSynced,
            Some("1") | Some("3") => {
                // The binary log is part of the commit when it is on for the session.
                if log_bin == Some(true) && sql_log_bin != Some(false) && sync_binlog != Some(1) {
                    DurClass::PerSecond
                } else {
                    DurClass::Synced
                }
            }
            Some(_) => DurClass::PerSecond,
        };
        Durability { class, evidence: ev.seen, torn_pages: dw }
    }

    fn cache_setting(&self) -> &'static str {
        "innodb_buffer_pool_size"
    }

    /// InnoDB sizes its buffer pool to hold the data; what the OS caches
    /// besides is not counted.
    fn os_cache_holds_data(&self) -> bool {
        false
    }

    fn measured(&self) -> &'static [crate::db::measured::Measured] {
        super::measured::MEASURED
    }

    fn common_settings(&self, s: &Server) -> Vec<(Aspect, Common)> {
        let mut out = Vec::new();
        if let Some(m) = innodb_flush_method(s) {
            let call = match m.as_str() {
                "O_DSYNC" => "O_DSYNC writes",
                "LITTLESYNC" | "NOSYNC" => "none",
                _ => "fsync()",
            };
            out.push((Aspect::LogSync, Common::new(call, format!("innodb_flush_method = {m}: {call}"))));
            out.push((Aspect::DataFileIo, Common::data_file_io(m.starts_with("O_DIRECT"), format!("innodb_flush_method = {m}"))));
        }
        if let Some(cap) = s.var_num("innodb_io_capacity") {
            let max = s.var_num("innodb_io_capacity_max").map(|m| format!(" (max {m:.0})")).unwrap_or_default();
            out.push((Aspect::BackgroundFlush, Common::new(format!("about {cap:.0} pages/s"), format!("innodb_io_capacity = {cap:.0}{max}: about {cap:.0} pages/s"))));
        }
        if let (Some(r), Some(w)) = (s.var_num("innodb_read_io_threads"), s.var_num("innodb_write_io_threads")) {
            out.push((Aspect::IoConcurrency, Common::same(format!("innodb_read_io_threads = {r:.0}, innodb_write_io_threads = {w:.0}"))));
        }
        // MySQL 8.0.30+ sizes the redo log with one variable; older servers and MariaDB by file.
        let capacity = match var_bytes(s, "innodb_redo_log_capacity") {
            Some(b) => Some((b, format!("innodb_redo_log_capacity = {}", human_bytes(b as f64)))),
            None => var_bytes(s, "innodb_log_file_size").map(|f| {
                let n = s.var_num("innodb_log_files_in_group").unwrap_or(1.0).max(1.0) as u64;
                (f * n, format!("innodb_log_file_size = {} x {n} file(s)", human_bytes(f as f64)))
            }),
        };
        if let Some((bytes, shown)) = capacity {
            out.push((Aspect::LogCapacity, Common::derived_size(&shown, bytes)));
        }
        if let Some(b) = var_bytes(s, "innodb_log_buffer_size") {
            out.push((Aspect::LogBuffer, Common::setting_size("innodb_log_buffer_size", b)));
        }
        let max = s.var("max_connections").map(|m| format!(", max_connections = {m}")).unwrap_or_default();
        let h = s.var("thread_handling").unwrap_or("one-thread-per-connection").to_ascii_lowercase();
        let pool = h.contains("pool");
        let key = if pool { "thread pool" } else { "one worker per connection" };
        let size = if pool { s.var("thread_pool_size").map(|n| format!(" of {n}")).unwrap_or_default() } else { String::new() };
        out.push((Aspect::Connections, Common::new(key, format!("thread_handling = {h}{size}{max}"))));
        out
    }

    fn digests(&self) -> Option<&dyn Digests> {
        Some(self)
    }
}

impl Digests for Mysql {
    fn statements<'a>(&'a self, c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, crate::db::digests::Digest>> {
        Box::pin(super::digests::read(c, start, errors))
    }

    fn statement_texts<'a>(&'a self, c: &'a mut Conn, start: &'a Server, ids: &'a [String], errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, String>> {
        Box::pin(super::digests::texts(c, start, ids, errors))
    }
}
