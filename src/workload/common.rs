//! Options several workload families share: the tables' storage engine,
//! options and compression, how prepare loads rows, and the retry,
//! reconnect and locking-read policies of a run. One struct, declared once
//! on the command line (before the families' own options), so the names
//! stay the ones sysbench and BMK-kit use and no family reads another
//! family's options; each family reads this struct back (`FamilyArgs::get`).

use crate::db::{Conn, ConnConfig, Engine};
use crate::error::Result;
use crate::usage;
use crate::values::{self, parse_bool};
use clap::Args;
use serde::Serialize;
use std::sync::Arc;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "Tables, loading and retries (every workload)")]
pub struct CommonArgs {
    /// Reconnect every N events (0: never)
    #[arg(long, default_value_t = 0, value_parser = values::uint64)]
    pub reconnect: u64,
    /// MySQL storage engine
    #[arg(long, default_value = "innodb")]
    pub mysql_storage_engine: String,
    /// Extra options appended to CREATE TABLE
    #[arg(long, default_value = "", alias = "mysql-table-options")]
    pub create_table_options: String,
    /// Table compression: MySQL COMPRESSION value, or "compressed" (ROW_FORMAT), or "page" (MariaDB)
    #[arg(long, default_value = "", alias = "mysql-table-compression")]
    pub table_compression: String,
    /// How prepare loads rows: auto, infile (LOAD DATA LOCAL), insert (multi-row INSERT), copy; BMK-kit's original
    /// (as auto), parallel and parallel_ordered (as auto, the OLTP tables' index on k built before the rows)
    #[arg(long, default_value = "auto", value_parser = values::load_mode)]
    pub load_mode: String,
    /// Rows per bulk INSERT / LOAD DATA chunk / SQLite transaction
    #[arg(long, default_value_t = 10000, value_parser = values::positive_usize)]
    pub load_bulk_size: usize,
    /// After a deadlock/rollback, replay the event with the same ids (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub trx_retry: bool,
    /// Locking reads (SELECT ... FOR UPDATE): 0 none, 1 where the workload's reference kit locks, 2 also its optional ones; a workload that only has on/off leaves them off unless given
    #[arg(long, default_value_t = 1, value_parser = values::for_update)]
    pub for_update: u8,
    /// A workload variable, KEY=VALUE, as -D in the tools these workloads come from (a properties key, a script variable); repeatable
    #[arg(long = "define", short = 'D', value_name = "KEY=VALUE")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub define: Vec<String>,
}

impl CommonArgs {
    /// A CREATE TABLE the server refused because of an option given here,
    /// said as what to do: MariaDB has no per-table COMPRESSION (1911,
    /// "Unknown option"); its page compression uses the algorithm the
    /// server sets for all tables.
    pub fn create_error(&self, e: &crate::db::DbError) -> Option<crate::error::Error> {
        let c = &self.table_compression;
        (!c.is_empty() && e.code == "1911" && e.message.contains("COMPRESSION")).then(|| {
            usage!(
                "--mysql-table-compression={c}: this server has no per-table COMPRESSION option (MariaDB); use --mysql-table-compression=page, which compresses with the server's innodb_compression_algorithm (set it to {} on the server)",
                c.to_ascii_lowercase()
            )
        })
    }

    /// What follows CREATE TABLE's closing parenthesis: the storage
    /// engine, the compression and the extra table options.
    pub fn table_tail(&self, engine: &'static dyn Engine) -> Result<String> {
        table_tail(engine, &self.mysql_storage_engine, &self.table_compression, &self.create_table_options)
    }
}

/// What follows CREATE TABLE's closing parenthesis: the storage engine
/// and the compression where the engine's tables have them, then the extra
/// table options as given. A compression on an engine without the clause
/// is a usage error.
pub fn table_tail(engine: &'static dyn Engine, storage_engine: &str, compression: &str, options: &str) -> Result<String> {
    let opts = engine.dialect().table_options();
    let mut tail = opts.map(|t| t.engine_clause(storage_engine)).unwrap_or_default();
    if !compression.is_empty() {
        let Some(t) = opts else {
            return Err(usage!("--table-compression is a MySQL-family option ({} has no table compression clause)", engine.name()));
        };
        tail.push_str(&t.compression_clause(compression));
    }
    if !options.is_empty() {
        tail.push(' ');
        tail.push_str(options);
    }
    Ok(tail)
}

/// Lines of a Java properties file (LinkBench's, YCSB's workload files) as (key, value, line number): `#`/`!`
/// comments, `key = value`, `key: value` or `key value`, a trailing
/// backslash continues the line.
pub fn java_properties(text: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut pending = String::new();
    let mut start = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if pending.is_empty() {
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            start = i + 1;
        }
        if let Some(cont) = line.strip_suffix('\\') {
            pending.push_str(cont);
            continue;
        }
        pending.push_str(line);
        let full = std::mem::take(&mut pending);
        let cut = full.find(['=', ':']).or_else(|| full.find(char::is_whitespace));
        let (k, v) = match cut {
            Some(p) => (&full[..p], &full[p + 1..]),
            None => (full.as_str(), ""),
        };
        out.push((k.trim().to_string(), v.trim().to_string(), start));
    }
    out
}

/// The first value of `sql`'s first row as a whole number (a COUNT, a
/// SUM); 0 when there is none. Its error names the statement.
pub async fn count(conn: &mut Conn, sql: &str) -> Result<u64> {
    let rows = conn.query_strings(sql).await.map_err(crate::db::sql_error(sql))?;
    Ok(first_number(&rows))
}

/// The first value of the first row as a whole number; 0 when there is none.
pub fn first_number(rows: &[Vec<Option<String>>]) -> u64 {
    rows.first().and_then(|r| r.first()?.as_deref()).and_then(|s| s.trim().parse::<f64>().ok()).unwrap_or(0.0) as u64
}

/// Runs one statement whose rows are not read (DDL, a load's last step, a
/// prewarm's scan); its error names the statement's first line.
pub async fn ddl(conn: &mut Conn, sql: &str) -> Result<()> {
    conn.query(sql).await.map(|_| ()).map_err(|e| crate::error::Error::Sql(format!("{e}\n  in: {}", sql.lines().next().unwrap_or(sql))))
}

/// Reads a workload's tables into the server's cache (`prewarm`): each
/// group's statements in turn on one connection, the group named first
/// ("Prewarming table 'sbtest1'...") unless `quiet`; Ctrl-C ends it
/// between two statements.
pub async fn prewarm_tables(cfg: &Arc<ConnConfig>, quiet: bool, groups: Vec<(String, Vec<String>)>) -> Result<()> {
    let mut conn = Conn::admin(cfg).await?;
    for (what, sqls) in groups {
        if !quiet {
            println!("Prewarming {what}...");
        }
        for sql in sqls {
            crate::model::check_interrupt()?;
            ddl(&mut conn, &sql).await?;
        }
    }
    conn.close().await;
    Ok(())
}

/// What becomes of an analytic query that failed (TPC-H's, CH-benCHmark's).
#[derive(Debug, PartialEq)]
pub enum QueryError {
    /// Cancelled at the time limit: named, counted, and the stream goes on.
    TimedOut,
    /// The engine cannot run it (a sharding router's planner, a limit it
    /// keeps hitting): its reason, in one line.
    Refused(String),
    /// The runner's to handle: a connection lost, a conflict to try again.
    Runner,
}

/// Times a query the engine says to try again is sent before it counts as refused.
pub const QUERY_ATTEMPTS: u32 = 3;

/// What becomes of query error `e` at its `attempts`-th sending.
pub fn query_error(e: &crate::db::DbError, attempts: u32) -> QueryError {
    use crate::db::ErrKind;
    // Cancelled as the run stopped (the server's error is that of a time limit).
    if e.kind == ErrKind::Stopped {
        return QueryError::Runner;
    }
    if e.timed_out() {
        return QueryError::TimedOut;
    }
    match e.kind {
        ErrKind::Fatal => {}
        ErrKind::Retryable if attempts >= QUERY_ATTEMPTS => {}
        _ => return QueryError::Runner,
    }
    QueryError::Refused(e.to_string().lines().next().unwrap_or_default().to_string())
}

/// Query numbers from 1 to 22 (TPC-H's and CH-benCHmark's), as a list
/// like `1,6,14` (`q6` too) or `all`, each once, in the order given.
pub fn query_numbers(s: &str) -> Result<Vec<u8>, String> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok((1..=22).collect());
    }
    let mut out = Vec::new();
    for part in s.split(',') {
        let p = part.trim().trim_start_matches(['q', 'Q']);
        match p.parse::<u8>() {
            Ok(n @ 1..=22) if !out.contains(&n) => out.push(n),
            Ok(n @ 1..=22) => return Err(format!("query {n} is named twice")),
            _ => return Err(format!("'{}' is no query: use numbers from 1 to 22, e.g. 1,6,14, or all", part.trim())),
        }
    }
    Ok(out)
}

/// `all`, or query numbers from 1 to 22 separated by commas, as given.
pub fn query_list(s: &str) -> Result<String, String> {
    query_numbers(s).map(|_| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::{query_error, QueryError};
    use crate::db::{DbError, ErrKind};

    /// A planner's refusal is said with the engine's reason; a conflict is
    /// retried a few times, then refused (vtgate calls its row limit
    /// retryable); a lost connection is the runner's.
    #[test]
    fn a_query_error_is_a_time_limit_a_refusal_or_the_runners() {
        let e = |kind, code: &str, message: &str| DbError { kind, code: code.into(), message: message.into() };
        let planner = e(ErrKind::Fatal, "1235", "VT12001: unsupported: correlated subquery is only supported for EXISTS");
        assert_eq!(query_error(&planner, 1), QueryError::Refused("VT12001: unsupported: correlated subquery is only supported for EXISTS (1235)".into()));
        let rows = e(ErrKind::Retryable, "1317", "target: ks.-80.primary: vttablet: Row count exceeded 10000\ntarget: ks.80-.primary: vttablet: Row count exceeded 10000");
        assert_eq!(query_error(&rows, 1), QueryError::Runner);
        assert_eq!(query_error(&rows, 3), QueryError::Refused("target: ks.-80.primary: vttablet: Row count exceeded 10000".into()));
        assert_eq!(query_error(&e(ErrKind::Fatal, "57014", "canceling statement due to statement timeout"), 1), QueryError::TimedOut);
        assert_eq!(query_error(&e(ErrKind::ConnectionLost, "2013", "Lost connection"), 5), QueryError::Runner);
        assert_eq!(query_error(&e(ErrKind::Stopped, "1317", "cancelled as the run stopped: Query execution was interrupted"), 1), QueryError::Runner);
    }

    use super::*;
    use clap::FromArgMatches;

    fn args(extra: &[&str]) -> CommonArgs {
        let cmd = CommonArgs::augment_args(clap::Command::new("t"));
        let m = cmd.try_get_matches_from(std::iter::once("t").chain(extra.iter().copied())).unwrap();
        CommonArgs::from_arg_matches(&m).unwrap()
    }

    /// The text each engine received before the three families shared this code.
    #[test]
    fn table_tail_is_the_text_each_family_built() {
        assert_eq!(args(&[]).table_tail(crate::db::engines::named("mysql").unwrap()).unwrap(), "/*! ENGINE = innodb */");
        let all = args(&["--mysql-storage-engine=RocksDB", "--table-compression=zlib", "--create-table-options=STATS_PERSISTENT=0"]);
        assert_eq!(all.table_tail(crate::db::engines::named("mysql").unwrap()).unwrap(), "/*! ENGINE = RocksDB */ COMPRESSION='zlib' STATS_PERSISTENT=0");
        assert_eq!(args(&["--table-compression=compressed"]).table_tail(crate::db::engines::named("mysql").unwrap()).unwrap(), "/*! ENGINE = innodb */ ROW_FORMAT=COMPRESSED");
        assert_eq!(args(&["--table-compression=PAGE"]).table_tail(crate::db::engines::named("mysql").unwrap()).unwrap(), "/*! ENGINE = innodb */ PAGE_COMPRESSED=1");
        for e in [crate::db::engines::named("postgres").unwrap(), crate::db::engines::named("sqlite").unwrap()] {
            assert_eq!(args(&[]).table_tail(e).unwrap(), "");
            assert_eq!(args(&["--create-table-options=WITH (fillfactor=90)"]).table_tail(e).unwrap(), " WITH (fillfactor=90)");
            assert!(args(&["--table-compression=zlib"]).table_tail(e).is_err());
        }
    }
}
