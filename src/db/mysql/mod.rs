//! MySQL-family engine (MySQL, MariaDB, Percona Server, GreatSQL) over
//! mysql_async: binary protocol with server-side prepared statements, or the
//! text protocol when prepared statements are off.

pub mod catalog;
pub mod dialect;
mod digests;
mod measured;
pub mod spec;
mod waits;

use super::{
    interpolate, push_date, push_int, push_scaled, push_timestamp, Cell, ColType, Column, ConnConfig, DbError, DbResult, ErrKind, LoadMode, Param, Row, RowSource, SslMode, Statement, StmtId,
};
use mysql_async::prelude::*;
use mysql_async::{Opts, OptsBuilder, Params, SslOpts, Value};

pub struct MyConn {
    conn: mysql_async::Conn,
    stmts: Vec<Option<mysql_async::Statement>>,
    text: String,
}

/// Client error numbers that mean the connection is gone.
pub(crate) const LOST: &[u16] = &[2006, 2013, 2011, 2055, 1047, 1053, 1927];

pub fn to_db_error(e: mysql_async::Error) -> DbError {
    use mysql_async::Error as E;
    match e {
        E::Server(s) => {
            let kind = if LOST.contains(&s.code) { ErrKind::ConnectionLost } else { ErrKind::Fatal };
            DbError { kind, code: s.code.to_string(), message: s.message }
        }
        E::Io(io) => DbError { kind: ErrKind::ConnectionLost, code: "2013".into(), message: format!("connection lost: {io}") },
        E::Driver(d) => {
            let s = d.to_string();
            let kind = if s.contains("onnection") { ErrKind::ConnectionLost } else { ErrKind::Fatal };
            DbError { kind, code: String::new(), message: s }
        }
        other => DbError { kind: ErrKind::Fatal, code: String::new(), message: other.to_string() },
    }
}

fn connect_error(e: mysql_async::Error) -> DbError {
    let mut d = to_db_error(e);
    // Nothing was connected yet (e.g. a failed TLS handshake): not a lost connection.
    if let Some(m) = d.message.strip_prefix("connection lost: ") {
        d.message = m.to_string();
    }
    d.kind = ErrKind::Connect;
    d
}

impl MyConn {
    /// The last INSERT's auto-increment value, from its OK packet.
    pub fn last_insert_id(&self) -> Option<u64> {
        self.conn.last_insert_id()
    }

    pub async fn connect(cfg: &ConnConfig, host_index: usize) -> DbResult<MyConn> {
        let t = &cfg.target;
        let (host, port) = t.host_for(host_index).clone();
        let mut b = OptsBuilder::default()
            .ip_or_hostname(host)
            .tcp_port(port)
            .user(Some(t.user.clone()))
            .pass(t.password.clone())
            .db_name(Some(t.database.clone()).filter(|d| !d.is_empty()))
            // TCP must stay TCP: the driver otherwise switches to the socket
            // it learns from @@socket, silently changing what is measured.
            .prefer_socket(false)
            // We own our statements (one set per connection, never evicted).
            .stmt_cache_size(0)
            .tcp_nodelay(true);
        if let Some(s) = &t.socket {
            b = b.socket(Some(s.clone()));
        }
        let ssl = match t.ssl_mode {
            SslMode::Disabled => None,
            SslMode::Preferred | SslMode::Required => Some(SslOpts::default().with_danger_accept_invalid_certs(true).with_danger_skip_domain_validation(true)),
            SslMode::VerifyCa => Some(ssl_with_ca(t.ssl_ca.as_deref()).with_danger_skip_domain_validation(true)),
            SslMode::VerifyIdentity => Some(ssl_with_ca(t.ssl_ca.as_deref())),
        };
        let plain = b.clone();
        if let Some(s) = ssl {
            b = b.ssl_opts(Some(s));
        }
        let conn = match mysql_async::Conn::new(Opts::from(b)).await {
            Ok(c) => c,
            // PREFERRED: fall back to a plain connection when TLS fails.
            Err(_) if t.ssl_mode == SslMode::Preferred => mysql_async::Conn::new(Opts::from(plain)).await.map_err(connect_error)?,
            Err(e) => return Err(connect_error(e)),
        };
        Ok(MyConn { conn, stmts: Vec::new(), text: String::new() })
    }

    pub async fn exec(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<u64> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, true);
            self.conn.query_drop(self.text.as_str()).await.map_err(to_db_error)?;
            return Ok(self.conn.affected_rows());
        }
        let (stmt, params) = self.prepared(id, st, params).await?;
        self.conn.exec_drop(stmt, params).await.map_err(to_db_error)?;
        Ok(self.conn.affected_rows())
    }

    /// The statement prepared on first use, and the parameters as the
    /// driver binds them.
    async fn prepared(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>]) -> DbResult<(mysql_async::Statement, Params)> {
        let i = id.0 as usize;
        if self.stmts.len() <= i {
            self.stmts.resize(i + 1, None);
        }
        if self.stmts[i].is_none() {
            let s = self.conn.prep(st.sql.as_str()).await.map_err(to_db_error)?;
            self.stmts[i] = Some(s);
        }
        let stmt = self.stmts[i].clone().unwrap();
        let values: Vec<Value> = params
            .iter()
            .map(|p| match p {
                Param::Int(v) => Value::Int(*v),
                Param::Text(s) => Value::Bytes(s.as_bytes().to_vec()),
            })
            .collect();
        let params = if values.is_empty() { Params::Empty } else { Params::Positional(values) };
        Ok((stmt, params))
    }

    pub async fn query(&mut self, sql: &str) -> DbResult<(bool, u64)> {
        let r = self.conn.query_iter(sql).await.map_err(to_db_error)?;
        let has_rows = r.columns().map(|c| !c.is_empty()).unwrap_or(false);
        r.drop_result().await.map_err(to_db_error)?;
        Ok((has_rows, self.conn.affected_rows()))
    }

    pub async fn query_rows(&mut self, sql: &str) -> DbResult<Vec<Vec<Option<String>>>> {
        let rows: Vec<mysql_async::Row> = self.conn.query(sql).await.map_err(to_db_error)?;
        Ok(rows_as_text(rows))
    }

    /// A prepared (or interpolated) statement's rows as text.
    pub async fn exec_rows(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<Vec<Vec<Option<String>>>> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, true);
            let sql = std::mem::take(&mut self.text);
            let r = self.query_rows(&sql).await;
            self.text = sql;
            return r;
        }
        let (stmt, params) = self.prepared(id, st, params).await?;
        let rows: Vec<mysql_async::Row> = self.conn.exec(stmt, params).await.map_err(to_db_error)?;
        Ok(rows_as_text(rows))
    }

    /// LOAD DATA LOCAL INFILE fed from memory when the server allows it
    /// (local_infile=ON), multi-row INSERTs of `bulk_rows` rows otherwise.
    pub async fn bulk_load(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize, mode: LoadMode) -> DbResult<u64> {
        bulk_load(self, table, cols, rows, bulk_rows, mode).await
    }

    pub async fn close(self) {
        let _ = self.conn.disconnect().await;
    }
}

/// What a bulk load needs from a MySQL connection: the crate driver and the
/// lean client both provide it, so the chunking and the choice of path are
/// written once, in [`bulk_load`].
pub(crate) trait BulkConn {
    /// Whether the server accepts LOAD DATA LOCAL (local_infile=ON).
    async fn infile_allowed(&mut self) -> bool;
    /// Runs a LOAD DATA LOCAL statement whose file is `data`.
    async fn load_infile(&mut self, sql: &str, data: &[u8]) -> DbResult<()>;
    async fn run(&mut self, sql: &str) -> DbResult<()>;
}

impl BulkConn for MyConn {
    async fn infile_allowed(&mut self) -> bool {
        matches!(self.conn.query_first::<String, _>("SELECT @@GLOBAL.local_infile").await, Ok(Some(v)) if v == "1" || v.eq_ignore_ascii_case("ON"))
    }

    async fn load_infile(&mut self, sql: &str, data: &[u8]) -> DbResult<()> {
        let data = bytes::Bytes::copy_from_slice(data);
        self.conn.set_infile_handler(async move {
            let s = futures_util::stream::iter(vec![Ok::<_, std::io::Error>(data)]);
            Ok(Box::pin(s) as mysql_async::InfileData)
        });
        self.conn.query_drop(sql).await.map_err(to_db_error)
    }

    async fn run(&mut self, sql: &str) -> DbResult<()> {
        self.conn.query_drop(sql).await.map_err(to_db_error)
    }
}

/// Loads `rows` in chunks of `bulk_rows`: LOAD DATA LOCAL INFILE fed from
/// memory when `mode` and the server allow it, multi-row INSERTs otherwise.
pub(crate) async fn bulk_load<C: BulkConn>(c: &mut C, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize, mode: LoadMode) -> DbResult<u64> {
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    let names = names.join(",");
    let use_infile = match mode {
        LoadMode::Insert => false,
        LoadMode::Auto => c.infile_allowed().await,
        LoadMode::Infile => {
            if !c.infile_allowed().await {
                return Err(DbError {
                    kind: ErrKind::Fatal,
                    code: "local_infile".into(),
                    message: "--load-mode=infile but the server has local_infile=OFF (SET GLOBAL local_infile=ON, or use --load-mode=insert)".into(),
                });
            }
            true
        }
    };
    let load = format!("LOAD DATA LOCAL INFILE 'fairbench' INTO TABLE {table} CHARACTER SET binary FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' ({names})");
    let insert = format!("INSERT INTO {table} ({names}) VALUES ");
    let mut row = Row::default();
    let mut total = 0u64;
    let chunk = bulk_rows.max(1);
    let mut buf: Vec<u8> = Vec::new();
    let mut sql = String::new();
    loop {
        buf.clear();
        sql.clear();
        sql.push_str(&insert);
        let mut n = 0usize;
        while n < chunk && rows.next_row(&mut row) {
            if use_infile {
                encode_tsv(cols, &row, &mut buf);
            } else {
                crate::db::bulk::encode_values(cols, &row, &mut sql, n == 0, true);
            }
            n += 1;
        }
        if n == 0 {
            break;
        }
        if use_infile {
            c.load_infile(&load, &buf).await?;
        } else {
            c.run(&sql).await?;
        }
        total += n as u64;
    }
    Ok(total)
}

fn rows_as_text(rows: Vec<mysql_async::Row>) -> Vec<Vec<Option<String>>> {
    rows.into_iter()
        .map(|r| {
            r.unwrap()
                .into_iter()
                .map(|v| match v {
                    Value::NULL => None,
                    Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                    Value::Int(i) => Some(i.to_string()),
                    Value::UInt(u) => Some(u.to_string()),
                    Value::Date(y, mo, d, h, mi, s, _) => Some(format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")),
                    other => Some(other.as_sql(true).trim_matches('\'').to_string()),
                })
                .collect()
        })
        .collect()
}

fn ssl_with_ca(ca: Option<&str>) -> SslOpts {
    let mut s = SslOpts::default();
    if let Some(ca) = ca {
        s = s.with_root_certs(vec![std::path::PathBuf::from(ca).into()]);
    }
    s
}

pub(crate) fn encode_tsv(cols: &[Column], row: &Row, buf: &mut Vec<u8>) {
    for (k, ty, cell) in row.cells(cols) {
        if k > 0 {
            buf.push(b'\t');
        }
        match (ty, cell) {
            (_, Cell::Null) => buf.extend_from_slice(b"\\N"),
            (ColType::Numeric(scale), Cell::Int(v)) => push_scaled(buf, v, scale),
            (ColType::Timestamp, Cell::Int(v)) => push_timestamp(buf, v),
            (ColType::Date, Cell::Int(v)) => push_date(buf, v),
            (_, Cell::Int(v)) => push_int(buf, v),
            (_, Cell::Text(t)) => push_tsv_text(buf, t),
        }
    }
    buf.push(b'\n');
}

/// `text` with the three bytes LOAD DATA treats specially escaped; runs
/// without them (all of sysbench's values) are copied whole.
fn push_tsv_text(buf: &mut Vec<u8>, mut text: &[u8]) {
    while let Some(i) = memchr::memchr3(b'\t', b'\n', b'\\', text) {
        buf.extend_from_slice(&text[..i]);
        buf.extend_from_slice(match text[i] {
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            _ => b"\\\\",
        });
        text = &text[i + 1..];
    }
    buf.extend_from_slice(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_row_escapes_and_writes_integers() {
        let cols = [("id", ColType::BigInt), ("c", ColType::Text), ("k", ColType::Int), ("d", ColType::Text)].map(|(n, ty)| Column { name: n.into(), ty });
        let row = Row { ints: vec![i64::MIN, -7], texts: vec![b"a\tb\nc\\d".to_vec(), b"plain-123".to_vec()], nulls: 0 };
        let mut buf = Vec::new();
        encode_tsv(&cols, &row, &mut buf);
        assert_eq!(String::from_utf8(buf).unwrap(), "-9223372036854775808\ta\\tb\\nc\\\\d\t-7\tplain-123\n");
        for v in [0, 9, 10, 1_000_000, i64::MAX] {
            let mut b = Vec::new();
            push_int(&mut b, v);
            assert_eq!(b, v.to_string().as_bytes());
        }
    }
}
