//! Embedded SQLite engine (WAL). Each client owns a connection on its own
//! OS thread, since every call blocks: the "server" runs inside the client.

use super::{interpolate, Column, ConnConfig, DbError, DbResult, ErrKind, Param, Row, RowSource, Statement, StmtId};
use rusqlite::{types::ValueRef, Connection};

pub struct LiteConn {
    conn: Connection,
    text: String,
}

pub fn to_db_error(e: rusqlite::Error) -> DbError {
    match &e {
        rusqlite::Error::SqliteFailure(f, msg) => {
            let (kind, code) = match f.code {
                rusqlite::ErrorCode::DatabaseBusy => (ErrKind::Retryable, "SQLITE_BUSY"),
                rusqlite::ErrorCode::DatabaseLocked => (ErrKind::Retryable, "SQLITE_LOCKED"),
                rusqlite::ErrorCode::CannotOpen => (ErrKind::Connect, "SQLITE_CANTOPEN"),
                rusqlite::ErrorCode::ConstraintViolation => (ErrKind::Fatal, "SQLITE_CONSTRAINT"),
                _ => (ErrKind::Fatal, "SQLITE_ERROR"),
            };
            DbError { kind, code: code.into(), message: msg.clone().unwrap_or_else(|| f.to_string()) }
        }
        _ => DbError { kind: ErrKind::Fatal, code: String::new(), message: e.to_string() },
    }
}

impl LiteConn {
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
        conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(())).map_err(to_db_error)?;
        Ok(LiteConn { conn, text: String::new() })
    }

    pub fn exec(&mut self, _id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<u64> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let mut s = self.conn.prepare(&self.text).map_err(to_db_error)?;
            return run(&self.conn, &mut s, &[], st.returns_rows);
        }
        let mut s = self.conn.prepare_cached(&st.sql).map_err(to_db_error)?;
        run(&self.conn, &mut s, params, st.returns_rows)
    }

    pub fn query(&mut self, sql: &str) -> DbResult<(bool, u64)> {
        let mut s = self.conn.prepare(sql).map_err(to_db_error)?;
        let rows = s.column_count() > 0;
        Ok((rows, run(&self.conn, &mut s, &[], rows)?))
    }

    pub fn query_rows(&mut self, sql: &str) -> DbResult<Vec<Vec<Option<String>>>> {
        let mut s = self.conn.prepare(sql).map_err(to_db_error)?;
        rows_as_text(&mut s)
    }

    /// A statement's rows with every value as text (NULL as None).
    pub fn exec_rows(&mut self, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<Vec<Vec<Option<String>>>> {
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
                let (mut ii, mut ti) = (0, 0);
                for (k, c) in cols.iter().enumerate() {
                    if row.nulls & (1 << k) != 0 {
                        s.raw_bind_parameter(k + 1, rusqlite::types::Null).map_err(to_db_error)?;
                        if c.ty.is_int() { ii += 1 } else { ti += 1 }
                        continue;
                    }
                    match c.ty {
                        super::ColType::Numeric(scale) => {
                            s.raw_bind_parameter(k + 1, row.ints[ii] as f64 / 10f64.powi(scale as i32)).map_err(to_db_error)?;
                            ii += 1;
                        }
                        super::ColType::Timestamp => {
                            s.raw_bind_parameter(k + 1, super::timestamp_text(row.ints[ii])).map_err(to_db_error)?;
                            ii += 1;
                        }
                        super::ColType::Text => {
                            s.raw_bind_parameter(k + 1, std::str::from_utf8(&row.texts[ti]).unwrap_or("")).map_err(to_db_error)?;
                            ti += 1;
                        }
                        _ => {
                            s.raw_bind_parameter(k + 1, row.ints[ii]).map_err(to_db_error)?;
                            ii += 1;
                        }
                    }
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
