//! PostgreSQL engine over tokio-postgres: extended protocol with statements
//! prepared once per connection (parameter types taken from the first
//! call), simple protocol for text mode, binary COPY for loading.

pub mod catalog;
pub mod dialect;
mod digests;
mod measured;
pub mod spec;
mod waits;

use super::hosts::HostState;
use super::{dollar_params, interpolate, Cell, ColType, Column, ConnConfig, DbError, DbResult, ErrKind, Param, Row, RowSource, SslMode, Statement, StmtId};
use futures_util::SinkExt;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, SimpleQueryMessage};

pub struct PgConn {
    client: Client,
    stmts: Vec<Option<tokio_postgres::Statement>>,
    text: String,
    /// The session's state as the server reported it at startup
    /// (PostgreSQL 14 and later), for `target_session_attrs`.
    reported: Option<HostState>,
}

pub fn to_db_error(e: tokio_postgres::Error) -> DbError {
    match e.code() {
        // Terminated by an administrator or a server shutdown: the
        // connection is gone, not the statement wrong.
        Some(c) if lost_sqlstate(c.code()) => DbError { kind: ErrKind::ConnectionLost, code: c.code().to_string(), message: db_message(&e) },
        Some(c) => DbError { kind: ErrKind::Fatal, code: c.code().to_string(), message: db_message(&e) },
        None => DbError { kind: ErrKind::ConnectionLost, code: String::new(), message: format!("connection lost: {e}") },
    }
}

/// SQLSTATEs that mean the connection is gone (terminated by an
/// administrator, a server shutdown, a broken link), not the statement wrong.
pub(crate) fn lost_sqlstate(code: &str) -> bool {
    ["57P01", "57P02", "57P03", "08006", "08003", "08000"].contains(&code)
}

/// A binary result value as text, by type OID, as `exec_rows` shows it.
pub(crate) fn value_text(oid: u32, raw: &[u8]) -> Result<String, Box<dyn std::error::Error + Sync + Send>> {
    let ty = Type::from_oid(oid).unwrap_or(Type::TEXT);
    <AnyText as tokio_postgres::types::FromSql>::from_sql(&ty, raw).map(|t| t.0)
}

fn db_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => d.message().to_string(),
        None => e.to_string(),
    }
}

impl PgConn {
    pub async fn connect(cfg: &ConnConfig, host_index: usize) -> DbResult<PgConn> {
        let t = &cfg.target;
        let mut c = tokio_postgres::Config::new();
        c.user(&t.user).dbname(&t.database).application_name(t.session_name());
        if let Some(p) = &t.password {
            c.password(p);
        }
        if let Some(o) = &t.options {
            c.options(o);
        }
        match &t.socket {
            Some(dir) => {
                c.host_path(dir);
                c.port(t.hosts.first().map(|h| h.1).unwrap_or(5432));
            }
            None => {
                let (h, p) = t.host_for(host_index);
                c.host(h).port(*p);
            }
        }
        c.ssl_mode(match t.ssl_mode {
            SslMode::Disabled => tokio_postgres::config::SslMode::Disable,
            SslMode::Preferred => tokio_postgres::config::SslMode::Prefer,
            _ => tokio_postgres::config::SslMode::Require,
        });
        let fail = |e: tokio_postgres::Error| {
            // "error performing TLS handshake" alone does not say why: add the cause.
            let cause = match e.as_db_error() {
                None => std::error::Error::source(&e).map(|c| c.to_string()),
                Some(_) => None,
            };
            let mut d = to_db_error(e);
            if d.message.starts_with("connection lost: ") {
                d.message = d.message["connection lost: ".len()..].to_string();
            }
            if let Some(c) = cause.filter(|c| !c.is_empty() && !d.message.contains(c.as_str())) {
                d.message = format!("{}: {c}", d.message);
            }
            d.kind = ErrKind::Connect;
            d
        };
        // Read before the connection task takes the connection away.
        let reported = |conn: &dyn Fn(&str) -> Option<String>| HostState::reported(conn("in_hot_standby").as_deref(), conn("default_transaction_read_only").as_deref());
        let (client, reported) = if t.ssl_mode == SslMode::Disabled || t.socket.is_some() {
            let (client, conn) = c.connect(tokio_postgres::NoTls).await.map_err(fail)?;
            let state = reported(&|k| conn.parameter(k).map(String::from));
            tokio::spawn(async move {
                let _ = conn.await;
            });
            (client, state)
        } else {
            let mut b = native_tls::TlsConnector::builder();
            if matches!(t.ssl_mode, SslMode::Preferred | SslMode::Required) {
                b.danger_accept_invalid_certs(true);
            }
            if t.ssl_mode == SslMode::VerifyCa {
                b.danger_accept_invalid_hostnames(true);
            }
            if let Some(ca) = &t.ssl_ca {
                let pem = std::fs::read(ca).map_err(|e| DbError { kind: ErrKind::Connect, code: String::new(), message: format!("cannot read ssl-ca {ca}: {e}") })?;
                let cert = native_tls::Certificate::from_pem(&pem).map_err(|e| DbError { kind: ErrKind::Connect, code: String::new(), message: format!("bad ssl-ca {ca}: {e}") })?;
                b.add_root_certificate(cert);
            }
            let tls = b.build().map_err(|e| DbError { kind: ErrKind::Connect, code: String::new(), message: format!("TLS setup: {e}") })?;
            let (client, conn) = c.connect(postgres_native_tls::MakeTlsConnector::new(tls)).await.map_err(fail)?;
            let state = reported(&|k| conn.parameter(k).map(String::from));
            tokio::spawn(async move {
                let _ = conn.await;
            });
            (client, state)
        };
        Ok(PgConn { client, stmts: Vec::new(), text: String::new(), reported })
    }

    /// The session's state as the server reported it at startup, if it did.
    pub fn reported(&self) -> Option<HostState> {
        self.reported
    }

    pub async fn exec(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<u64> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let sql = std::mem::take(&mut self.text);
            let r = self.query(&sql).await;
            self.text = sql;
            return r.map(|(_, n)| n);
        }
        let stmt = self.prepared(id, st, params).await?;
        let n = self.client.execute(&stmt, &bind(params)).await.map_err(to_db_error)?;
        Ok(if st.returns_rows { 0 } else { n })
    }

    /// The statement, prepared on first use.
    async fn prepared(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>]) -> DbResult<tokio_postgres::Statement> {
        let i = id.0 as usize;
        if self.stmts.len() <= i {
            self.stmts.resize(i + 1, None);
        }
        if let Some(s) = &self.stmts[i] {
            return Ok(s.clone());
        }
        // Integers are typed BIGINT so one statement serves INTEGER and
        // BIGINT schemas alike (int4 = int8 still uses the index).
        let types: Vec<Type> = params
            .iter()
            .map(|p| match p {
                Param::Int(_) => Type::INT8,
                Param::Text(_) => Type::TEXT,
            })
            .collect();
        let s = self.client.prepare_typed(&dollar_params(&st.sql), &types).await.map_err(to_db_error)?;
        self.stmts[i] = Some(s.clone());
        Ok(s)
    }

    pub async fn query(&mut self, sql: &str) -> DbResult<(bool, u64)> {
        let msgs = self.client.simple_query(sql).await.map_err(to_db_error)?;
        let mut rows = false;
        let mut n = 0;
        for m in msgs {
            match m {
                SimpleQueryMessage::Row(_) | SimpleQueryMessage::RowDescription(_) => rows = true,
                SimpleQueryMessage::CommandComplete(c) => n = c,
                _ => {}
            }
        }
        Ok((rows, if rows { 0 } else { n }))
    }

    pub async fn query_rows(&mut self, sql: &str) -> DbResult<Vec<Vec<Option<String>>>> {
        let msgs = self.client.simple_query(sql).await.map_err(to_db_error)?;
        Ok(msgs
            .into_iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(r) => Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect()),
                _ => None,
            })
            .collect())
    }

    /// A statement's rows with every value as text (NULL as None).
    pub async fn exec_rows(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<Vec<Vec<Option<String>>>> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let sql = std::mem::take(&mut self.text);
            let r = self.query_rows(&sql).await;
            self.text = sql;
            return r;
        }
        let stmt = self.prepared(id, st, params).await?;
        let rows = self.client.query(&stmt, &bind(params)).await.map_err(to_db_error)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let mut v = Vec::with_capacity(r.len());
            for c in 0..r.len() {
                let t: Option<AnyText> = r.try_get(c).map_err(|e| DbError { kind: ErrKind::Fatal, code: String::new(), message: format!("reading column {c}: {e}") })?;
                v.push(t.map(|t| t.0));
            }
            out.push(v);
        }
        Ok(out)
    }

    /// Binary COPY: the cheapest path for the server (no text parsing).
    pub async fn bulk_load(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource) -> DbResult<u64> {
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        let sql = format!("COPY {table} ({}) FROM STDIN (FORMAT binary)", names.join(","));
        let sink = self.client.copy_in::<_, bytes::Bytes>(sql.as_str()).await.map_err(to_db_error)?;
        futures_util::pin_mut!(sink);
        let mut buf = bytes::BytesMut::with_capacity(1 << 20);
        buf.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
        buf.extend_from_slice(&0i32.to_be_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes());
        let mut row = Row::default();
        let mut total = 0u64;
        while rows.next_row(&mut row) {
            encode_copy_row(cols, &row, &mut buf);
            total += 1;
            if buf.len() >= 1 << 20 {
                sink.send(buf.split().freeze()).await.map_err(to_db_error)?;
            }
        }
        buf.extend_from_slice(&(-1i16).to_be_bytes());
        sink.send(buf.split().freeze()).await.map_err(to_db_error)?;
        sink.as_mut().finish().await.map_err(to_db_error)?;
        Ok(total)
    }

    /// Multi-row INSERTs (`--load-mode=insert`), as sysbench loads.
    pub async fn bulk_insert(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize) -> DbResult<u64> {
        let (mut row, mut total) = (Row::default(), 0u64);
        while let Some((sql, n)) = crate::db::bulk::next_insert(table, cols, rows, &mut row, bulk_rows, false) {
            self.client.batch_execute(&sql).await.map_err(to_db_error)?;
            total += n;
        }
        Ok(total)
    }

    pub fn close(self) {
        drop(self.client);
    }
}

/// One row of binary COPY data (the tuple header and every field).
pub(crate) fn encode_copy_row(cols: &[Column], row: &Row, buf: &mut bytes::BytesMut) {
    buf.extend_from_slice(&(cols.len() as i16).to_be_bytes());
    for (_, ty, cell) in row.cells(cols) {
        match (ty, cell) {
            (_, Cell::Null) => buf.extend_from_slice(&(-1i32).to_be_bytes()),
            (ColType::SmallInt, Cell::Int(v)) => {
                buf.extend_from_slice(&2i32.to_be_bytes());
                buf.extend_from_slice(&(v as i16).to_be_bytes());
            }
            (ColType::Numeric(scale), Cell::Int(v)) => numeric_binary(v, scale, buf),
            (ColType::Timestamp, Cell::Int(v)) => {
                // Microseconds since 2000-01-01 00:00:00.
                buf.extend_from_slice(&8i32.to_be_bytes());
                buf.extend_from_slice(&((v - 946_684_800) * 1_000_000).to_be_bytes());
            }
            (ColType::Date, Cell::Int(v)) => {
                // Days since 2000-01-01.
                buf.extend_from_slice(&4i32.to_be_bytes());
                buf.extend_from_slice(&((v - 10_957) as i32).to_be_bytes());
            }
            (ColType::Int, Cell::Int(v)) => {
                buf.extend_from_slice(&4i32.to_be_bytes());
                buf.extend_from_slice(&(v as i32).to_be_bytes());
            }
            (_, Cell::Int(v)) => {
                buf.extend_from_slice(&8i32.to_be_bytes());
                buf.extend_from_slice(&v.to_be_bytes());
            }
            (_, Cell::Text(t)) => {
                buf.extend_from_slice(&(t.len() as i32).to_be_bytes());
                buf.extend_from_slice(t);
            }
        }
    }
}

/// Binary NUMERIC of `v / 10^scale`: base-10000 digits, weight, sign, dscale.
fn numeric_binary(v: i64, scale: u8, buf: &mut bytes::BytesMut) {
    // Align the fraction to whole base-10000 digits.
    let fgroups = (scale as u32).div_ceil(4);
    let mut a = v.unsigned_abs() as u128 * 10u128.pow(fgroups * 4 - scale as u32);
    let mut digits: Vec<i16> = Vec::new();
    while a > 0 {
        digits.push((a % 10000) as i16);
        a /= 10000;
    }
    // digits is least significant first; the last fgroups are the fraction.
    let mut weight = digits.len() as i32 - fgroups as i32 - 1;
    let mut lo = 0;
    while lo < digits.len() && digits[lo] == 0 {
        lo += 1;
    }
    let mut hi = digits.len();
    while hi > lo && digits[hi - 1] == 0 {
        hi -= 1;
        weight -= 1;
    }
    let used = &digits[lo..hi];
    if used.is_empty() {
        weight = 0;
    }
    let len = 8 + 2 * used.len();
    buf.extend_from_slice(&(len as i32).to_be_bytes());
    buf.extend_from_slice(&(used.len() as i16).to_be_bytes());
    buf.extend_from_slice(&(weight as i16).to_be_bytes());
    buf.extend_from_slice(&(if v < 0 { 0x4000u16 } else { 0 }).to_be_bytes());
    buf.extend_from_slice(&(scale as i16).to_be_bytes());
    for d in used.iter().rev() {
        buf.extend_from_slice(&d.to_be_bytes());
    }
}

/// Any column value as text, decoded from the binary result format.
struct AnyText(String);

impl<'a> tokio_postgres::types::FromSql<'a> for AnyText {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let be = |n: usize| -> Result<i64, Box<dyn std::error::Error + Sync + Send>> {
            if raw.len() < n {
                return Err("short value".into());
            }
            Ok(match n {
                2 => i16::from_be_bytes([raw[0], raw[1]]) as i64,
                4 => i32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]]) as i64,
                _ => i64::from_be_bytes(raw[..8].try_into()?),
            })
        };
        Ok(AnyText(match *ty {
            Type::INT2 => be(2)?.to_string(),
            Type::INT4 => be(4)?.to_string(),
            Type::INT8 => be(8)?.to_string(),
            Type::FLOAT4 => f32::from_be_bytes(raw[..4].try_into()?).to_string(),
            Type::FLOAT8 => f64::from_be_bytes(raw[..8].try_into()?).to_string(),
            Type::BOOL => (raw.first() == Some(&1)).to_string(),
            Type::TIMESTAMP | Type::TIMESTAMPTZ => super::timestamp_text(be(8)?.div_euclid(1_000_000) + 946_684_800),
            Type::NUMERIC => numeric_text(raw)?,
            _ => String::from_utf8_lossy(raw).into_owned(),
        }))
    }
    fn accepts(_: &Type) -> bool {
        true
    }
}

fn numeric_text(raw: &[u8]) -> Result<String, Box<dyn std::error::Error + Sync + Send>> {
    if raw.len() < 8 {
        return Err("short numeric".into());
    }
    let g = |i: usize| i16::from_be_bytes([raw[i], raw[i + 1]]);
    let (n, weight, sign, dscale) = (g(0) as usize, g(2) as i32, g(4) as u16, g(6) as usize);
    if sign == 0xC000 {
        return Ok("NaN".into());
    }
    let digits: Vec<i16> = (0..n).map(|i| g(8 + 2 * i)).collect();
    let mut int = String::new();
    for w in 0..=weight.max(-1) {
        let d = digits.get(w as usize).copied().unwrap_or(0);
        if int.is_empty() {
            if d != 0 {
                int = d.to_string();
            }
        } else {
            int.push_str(&format!("{d:04}"));
        }
    }
    if int.is_empty() {
        int.push('0');
    }
    let mut frac = String::new();
    let mut k = weight + 1;
    while frac.len() < dscale {
        let d = if k >= 0 { digits.get(k as usize).copied().unwrap_or(0) } else { 0 };
        frac.push_str(&format!("{d:04}"));
        k += 1;
    }
    frac.truncate(dscale);
    let sign = if sign == 0x4000 { "-" } else { "" };
    Ok(if dscale > 0 { format!("{sign}{int}.{frac}") } else { format!("{sign}{int}") })
}

/// The parameters as the driver binds them.
fn bind<'a>(params: &'a [Param<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    params
        .iter()
        .map(|p| match p {
            Param::Int(v) => v as &(dyn ToSql + Sync),
            Param::Text(s) => s as &(dyn ToSql + Sync),
        })
        .collect()
}
