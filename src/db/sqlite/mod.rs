//! Embedded SQLite engine (WAL). Each client owns a connection on its own
//! OS thread, since every call blocks: the "server" runs inside the client.
//!
//! SQLite lets one writer in at a time, and writers that find it busy wait
//! in its busy handler, which sleeps and polls: whoever polls at the right
//! moment wins, so one writer can wait seconds while others go again and
//! again, and the latency measured is the back-off, not the work. Writers
//! of one file therefore take turns here instead: each waits, in arrival
//! order, for the file's turn before it starts writing (BEGIN IMMEDIATE, or
//! a write outside a transaction) and gives it back when its transaction
//! ends. Readers need no turn: in WAL mode they run beside the writer.

pub mod catalog;
pub mod dialect;
mod measured;
pub mod spec;

use super::{interpolate, Cell, Column, ConnConfig, DbError, DbResult, ErrKind, Param, Row, RowSource, Statement, StmtId};
use rusqlite::{types::ValueRef, Connection};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};
use tokio::sync::OwnedMutexGuard;

/// The right to write one SQLite file; tokio's mutex queues its waiters in
/// arrival order and wakes them across threads.
pub type Turn = tokio::sync::Mutex<()>;

/// How often a writer waiting for its turn looks at the stop flag.
const TURN_SLICE: Duration = Duration::from_millis(20);

pub struct LiteConn {
    conn: Connection,
    text: String,
    /// Shared by every connection of this process to the same file (None:
    /// a private temporary or in-memory database).
    turn: Option<Arc<Turn>>,
    /// This connection's turn, from its first write to the end of its transaction.
    held: Option<OwnedMutexGuard<()>>,
    /// Per statement of the set: whether it writes (None: not yet known).
    writes: Vec<Option<bool>>,
    /// With a time limit: when the statement running now started (every
    /// entry point that runs one sets it). None without: no clock read.
    started: Option<Arc<std::sync::Mutex<std::time::Instant>>>,
}

/// The turn of the file `conn` opened, shared by all its connections.
fn turn_of(conn: &Connection) -> Option<Arc<Turn>> {
    let path = conn.path().filter(|p| !p.is_empty())?;
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
    static TURNS: OnceLock<Mutex<HashMap<PathBuf, Weak<Turn>>>> = OnceLock::new();
    let mut turns = TURNS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = turns.get(&key).and_then(Weak::upgrade) {
        return Some(t);
    }
    turns.retain(|_, t| t.strong_count() > 0);
    let t = Arc::new(Turn::new(()));
    turns.insert(key, Arc::downgrade(&t));
    Some(t)
}

/// Whether `sql` writes: takes the write lock up front (BEGIN IMMEDIATE or
/// EXCLUSIVE) or changes the database. Unknown (does not compile) counts as
/// not writing: running it reports the error.
fn sql_writes(conn: &Connection, sql: &str) -> bool {
    let mut words = sql.split_whitespace();
    if words.next().is_some_and(|w| w.eq_ignore_ascii_case("BEGIN")) {
        return words.next().is_some_and(|w| w.eq_ignore_ascii_case("IMMEDIATE") || w.eq_ignore_ascii_case("EXCLUSIVE"));
    }
    conn.prepare_cached(sql).map(|s| !s.readonly()).unwrap_or(false)
}

/// Waits for `turn` in arrival order, at most `limit` (then SQLITE_BUSY,
/// as SQLite's own busy timeout would), and no longer once `stop` is set.
async fn wait_turn(turn: Arc<Turn>, stop: Option<&AtomicBool>, limit: Duration) -> DbResult<OwnedMutexGuard<()>> {
    if let Ok(g) = turn.clone().try_lock_owned() {
        return Ok(g);
    }
    let deadline = Instant::now() + limit;
    let mut wait = std::pin::pin!(turn.lock_owned());
    loop {
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Err(DbError { kind: ErrKind::Stopped, code: String::new(), message: "the run ended while waiting for a turn to write".into() });
        }
        let slice = deadline.saturating_duration_since(Instant::now()).min(TURN_SLICE);
        if slice.is_zero() {
            return Err(DbError { kind: ErrKind::Retryable, code: "SQLITE_BUSY".into(), message: format!("waited {} ms for a turn to write", limit.as_millis()) });
        }
        if let Ok(g) = tokio::time::timeout(slice, &mut wait).await {
            return Ok(g);
        }
    }
}

pub fn to_db_error(e: rusqlite::Error) -> DbError {
    match &e {
        rusqlite::Error::SqliteFailure(f, msg) => {
            let (kind, code) = match f.code {
                rusqlite::ErrorCode::DatabaseBusy => (ErrKind::Retryable, "SQLITE_BUSY"),
                rusqlite::ErrorCode::DatabaseLocked => (ErrKind::Retryable, "SQLITE_LOCKED"),
                rusqlite::ErrorCode::CannotOpen => (ErrKind::Connect, "SQLITE_CANTOPEN"),
                rusqlite::ErrorCode::ConstraintViolation => (ErrKind::Fatal, "SQLITE_CONSTRAINT"),
                rusqlite::ErrorCode::OperationInterrupted => (ErrKind::Fatal, "SQLITE_INTERRUPT"),
                _ => (ErrKind::Fatal, "SQLITE_ERROR"),
            };
            DbError { kind, code: code.into(), message: msg.clone().unwrap_or_else(|| f.to_string()) }
        }
        _ => DbError { kind: ErrKind::Fatal, code: String::new(), message: e.to_string() },
    }
}

impl LiteConn {
    /// The rowid of the last row inserted on this connection.
    pub fn last_insert_id(&self) -> u64 {
        self.conn.last_insert_rowid() as u64
    }

    pub fn connect(cfg: &ConnConfig) -> DbResult<LiteConn> {
        let path = cfg.target.path.clone().unwrap_or_default();
        let conn = Connection::open(&path).map_err(|e| {
            let mut d = to_db_error(e);
            d.kind = ErrKind::Connect;
            d.message = format!("{path}: {}", d.message);
            d
        })?;
        conn.set_prepared_statement_cache_capacity(512);
        conn.busy_timeout(std::time::Duration::from_millis(cfg.sqlite_busy_ms as u64)).map_err(to_db_error)?;
        // WAL lets readers run beside the writer, as on the server engines.
        // Switching a new file to WAL needs its write lock, and SQLite
        // answers BUSY at once, without the busy handler, to a connection
        // that must upgrade a read lock another holds: clients connecting
        // together to a new file retry, within the same busy time.
        let waited = std::time::Instant::now();
        loop {
            match conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(())) {
                Ok(()) => break,
                Err(rusqlite::Error::SqliteFailure(f, _)) if f.code == rusqlite::ErrorCode::DatabaseBusy && waited.elapsed().as_millis() < cfg.sqlite_busy_ms as u128 => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(e) => return Err(to_db_error(e)),
            }
        }
        let turn = turn_of(&conn);
        Ok(LiteConn { conn, text: String::new(), turn, held: None, writes: Vec::new(), started: None })
    }

    /// The turn statement `id` must wait for before it runs (None: it
    /// reads, or this connection holds the turn already).
    pub fn turn_for(&mut self, id: StmtId, st: &Statement) -> Option<Arc<Turn>> {
        if self.held.is_some() {
            return None;
        }
        let i = id.0 as usize;
        if self.writes.len() <= i {
            self.writes.resize(i + 1, None);
        }
        let writes = *self.writes[i].get_or_insert_with(|| sql_writes(&self.conn, &st.sql));
        if writes {
            self.turn.clone()
        } else {
            None
        }
    }

    /// The same for a text statement.
    pub fn turn_for_sql(&mut self, sql: &str) -> Option<Arc<Turn>> {
        if self.held.is_some() || !sql_writes(&self.conn, sql) {
            return None;
        }
        self.turn.clone()
    }

    /// Waits for `turn` (from `turn_for`) and holds it until the
    /// transaction ends; no turn, no wait.
    pub async fn take_turn(&mut self, turn: Option<Arc<Turn>>, stop: Option<&AtomicBool>, limit: Duration) -> DbResult<()> {
        if let Some(t) = turn {
            self.held = Some(wait_turn(t, stop, limit).await?);
        }
        Ok(())
    }

    /// The turn ends with the transaction (COMMIT, ROLLBACK, an autocommit
    /// write, or an error that rolled it back).
    fn end_turn_if_done(&mut self) {
        if self.held.is_some() && self.conn.is_autocommit() {
            self.held = None;
        }
    }

    pub fn exec(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<u64> {
        self.mark_start();
        let r = self.exec_stmt(id, st, params, prepared);
        self.end_turn_if_done();
        r
    }

    fn exec_stmt(&mut self, _id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<u64> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let mut s = self.conn.prepare(&self.text).map_err(to_db_error)?;
            return run(&self.conn, &mut s, &[], st.returns_rows);
        }
        let mut s = self.conn.prepare_cached(&st.sql).map_err(to_db_error)?;
        run(&self.conn, &mut s, params, st.returns_rows)
    }

    /// Statements interrupted once they have run `ms` milliseconds: SQLite
    /// asks every few thousand steps of its program whether to go on.
    pub fn set_timeout(&mut self, ms: u64) -> DbResult<()> {
        let started = self.started.get_or_insert_with(|| Arc::new(std::sync::Mutex::new(std::time::Instant::now()))).clone();
        let limit = std::time::Duration::from_millis(ms);
        self.conn.progress_handler(10_000, Some(move || started.lock().map(|s| s.elapsed() > limit).unwrap_or(false))).map_err(to_db_error)
    }

    fn mark_start(&self) {
        if let Some(Ok(mut s)) = self.started.as_ref().map(|s| s.lock()) {
            *s = std::time::Instant::now();
        }
    }

    pub fn query(&mut self, sql: &str) -> DbResult<(bool, u64)> {
        self.mark_start();
        let r = self.conn.prepare(sql).map_err(to_db_error).and_then(|mut s| {
            let rows = s.column_count() > 0;
            Ok((rows, run(&self.conn, &mut s, &[], rows)?))
        });
        self.end_turn_if_done();
        r
    }

    pub fn query_rows(&mut self, sql: &str) -> DbResult<Vec<Vec<Option<String>>>> {
        self.mark_start();
        let r = self.conn.prepare(sql).map_err(to_db_error).and_then(|mut s| rows_as_text(&mut s));
        self.end_turn_if_done();
        r
    }

    /// A statement's rows with every value as text (NULL as None).
    pub fn exec_rows(&mut self, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<Vec<Vec<Option<String>>>> {
        self.mark_start();
        let r = self.exec_rows_stmt(st, params, prepared);
        self.end_turn_if_done();
        r
    }

    fn exec_rows_stmt(&mut self, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<Vec<Vec<Option<String>>>> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let sql = std::mem::take(&mut self.text);
            let r = self.query_rows(&sql);
            self.text = sql;
            return r;
        }
        let mut s = self.conn.prepare_cached(&st.sql).map_err(to_db_error)?;
        for (i, p) in params.iter().enumerate() {
            match p {
                Param::Int(v) => s.raw_bind_parameter(i + 1, *v),
                Param::Text(t) => s.raw_bind_parameter(i + 1, *t),
            }
            .map_err(to_db_error)?;
        }
        rows_as_text(&mut s)
    }

    /// Batched transactions of `bulk_rows` rows through one prepared INSERT.
    pub fn bulk_load(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize) -> DbResult<u64> {
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        let marks = vec!["?"; cols.len()].join(",");
        let sql = format!("INSERT INTO {table} ({}) VALUES ({marks})", names.join(","));
        let mut row = Row::default();
        let mut total = 0u64;
        let batch = bulk_rows.max(1000) as u64;
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(to_db_error)?;
        {
            let mut s = self.conn.prepare_cached(&sql).map_err(to_db_error)?;
            while rows.next_row(&mut row) {
                for (k, ty, cell) in row.cells(cols) {
                    match (ty, cell) {
                        (_, Cell::Null) => s.raw_bind_parameter(k + 1, rusqlite::types::Null),
                        (super::ColType::Numeric(scale), Cell::Int(v)) => s.raw_bind_parameter(k + 1, v as f64 / 10f64.powi(scale as i32)),
                        (super::ColType::Timestamp, Cell::Int(v)) => s.raw_bind_parameter(k + 1, super::timestamp_text(v)),
                        (super::ColType::Date, Cell::Int(v)) => s.raw_bind_parameter(k + 1, super::date_text(v)),
                        (_, Cell::Int(v)) => s.raw_bind_parameter(k + 1, v),
                        (_, Cell::Text(t)) => s.raw_bind_parameter(k + 1, std::str::from_utf8(t).unwrap_or("")),
                    }
                    .map_err(to_db_error)?;
                }
                s.raw_execute().map_err(to_db_error)?;
                total += 1;
                if total.is_multiple_of(batch) {
                    self.conn.execute_batch("COMMIT; BEGIN IMMEDIATE").map_err(to_db_error)?;
                }
            }
        }
        self.conn.execute_batch("COMMIT").map_err(to_db_error)?;
        Ok(total)
    }
}

fn run(conn: &Connection, s: &mut rusqlite::Statement<'_>, params: &[Param<'_>], returns_rows: bool) -> DbResult<u64> {
    for (i, p) in params.iter().enumerate() {
        match p {
            Param::Int(v) => s.raw_bind_parameter(i + 1, *v),
            Param::Text(t) => s.raw_bind_parameter(i + 1, *t),
        }
        .map_err(to_db_error)?;
    }
    if returns_rows {
        let mut rows = s.raw_query();
        while rows.next().map_err(to_db_error)?.is_some() {}
        Ok(0)
    } else {
        // sqlite3_changes() still reports the last INSERT/UPDATE/DELETE
        // after a statement that changes nothing (BEGIN IMMEDIATE, COMMIT),
        // so count the rows this statement itself changed.
        let before = conn.total_changes();
        s.raw_execute().map_err(to_db_error)?;
        Ok(conn.total_changes() - before)
    }
}

/// Every row of a bound statement, each value as text (NULL as None).
fn rows_as_text(s: &mut rusqlite::Statement<'_>) -> DbResult<Vec<Vec<Option<String>>>> {
    let n = s.column_count();
    let mut rows = s.raw_query();
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(to_db_error)? {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(match r.get_ref(i).map_err(to_db_error)? {
                ValueRef::Null => None,
                ValueRef::Integer(i) => Some(i.to_string()),
                ValueRef::Real(f) => Some(f.to_string()),
                ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
            });
        }
        out.push(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Clients connecting together to a new file raced to switch it to WAL:
    // one got SQLITE_BUSY at once ("client setup failed: database is
    // locked"), seen with 2 clients of a script that needs no tables.
    #[test]
    fn clients_connecting_together_to_a_new_file_all_get_in() {
        let dir = std::env::temp_dir().join(format!("fb-wal-race-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for round in 0..30 {
            let path = dir.join(format!("r{round}.sqlite"));
            let cfg = ConnConfig::new(crate::db::Target::parse(&format!("sqlite:{}", path.display())).unwrap());
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    let (cfg, barrier) = (cfg.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        LiteConn::connect(&cfg).map(|_| ()).map_err(|e| e.message)
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap().unwrap_or_else(|e| panic!("round {round}: {e}"));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
