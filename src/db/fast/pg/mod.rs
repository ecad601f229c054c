//! PostgreSQL frontend/backend protocol v3, the subset fairbench uses.
//!
//! Same session as the tokio-postgres path: the same startup parameters,
//! statements parsed once per connection with the parameter types of the
//! first call (int8/text), executed with binary parameters and binary
//! results, the simple protocol for text mode, binary COPY for loading.
//! Per execution it writes Bind/Execute/Sync in one buffer and reads up to
//! ReadyForQuery; nothing else crosses the socket.

mod pipeline;
mod pooler;

use super::scram::Scram;
use super::{be16, be32, tls, Choice, ReadBuf, Sock};
use crate::db::hosts::HostState;
use crate::db::postgres::{encode_copy_row, lost_sqlstate, value_text};
use crate::db::{dollar_params, interpolate, Column, ConnConfig, DbError, DbResult, ErrKind, Param, Row, RowSource, SslMode, Statement, StmtId};
use pipeline::Pipe;
pub use pooler::Pooler;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256};

/// SCRAM state: the cached implementation, or the general one for
/// passwords that need SASLprep.
enum Sasl {
    Cached(Scram),
    General(ScramSha256),
}

const INT8: u32 = 20;
const TEXT: u32 = 25;

struct Prepared {
    /// Result column type OIDs (for exec_rows).
    cols: Vec<u32>,
    /// Behind a pooler: the Parse message of the unnamed statement, sent
    /// again with every execution (empty when the statement is named).
    parse: Vec<u8>,
}

pub struct PgFast {
    sock: Sock,
    r: ReadBuf,
    w: Vec<u8>,
    stmts: Vec<Option<Prepared>>,
    text: String,
    /// A request is on the wire whose answer was not read to the end (the
    /// future was dropped, or the stream broke): the session is unusable.
    broken: bool,
    /// Set when a pooler answers instead of the server. In transaction
    /// pooling consecutive transactions may run on different server
    /// sessions, so a named statement prepared in one is missing in the
    /// next: unless the pooler keeps them ([`Pooler::keeps_statements`]),
    /// statements are then sent unnamed, parsed with every execution in
    /// the same Sync as their Bind/Execute (the form poolers pass on).
    pooler: Option<Pooler>,
    /// The session's state as the server reported it at startup
    /// (PostgreSQL 14 and later), for `target_session_attrs`.
    reported: Option<HostState>,
    /// Pipeline mode: what is queued to go out together.
    pipe: Pipe,
}

/// One backend message: type and body range in the read buffer.
#[derive(Clone, Copy)]
struct Msg {
    ty: u8,
    start: usize,
    end: usize,
}

fn lost(e: std::io::Error) -> DbError {
    super::lost(e, "")
}

fn connect_err(message: String) -> DbError {
    DbError { kind: ErrKind::Connect, code: String::new(), message }
}

/// ErrorResponse fields: SQLSTATE and message.
fn error_fields(body: &[u8]) -> (String, String) {
    let (mut code, mut msg) = (String::new(), String::new());
    let mut i = 0;
    while i < body.len() && body[i] != 0 {
        let f = body[i];
        let end = body[i + 1..].iter().position(|&b| b == 0).map(|p| i + 1 + p).unwrap_or(body.len());
        let v = String::from_utf8_lossy(&body[i + 1..end]);
        match f {
            b'C' => code = v.into_owned(),
            b'M' => msg = v.into_owned(),
            _ => {}
        }
        i = end + 1;
    }
    (code, msg)
}

fn server_error(body: &[u8]) -> DbError {
    let (code, message) = error_fields(body);
    let kind = if lost_sqlstate(&code) { ErrKind::ConnectionLost } else { ErrKind::Fatal };
    DbError { kind, code, message }
}

/// Rows affected from a CommandComplete tag ("UPDATE 3", "INSERT 0 1"), as
/// tokio-postgres reads it: the last word, 0 if not a number.
fn tag_rows(body: &[u8]) -> u64 {
    let tag = &body[..body.iter().position(|&b| b == 0).unwrap_or(body.len())];
    let last = tag.rsplit(|&b| b == b' ').next().unwrap_or(b"");
    std::str::from_utf8(last).ok().and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// Start a message of type `ty`; returns where its length goes.
fn begin(w: &mut Vec<u8>, ty: u8) -> usize {
    w.push(ty);
    let at = w.len();
    w.extend_from_slice(&[0; 4]);
    at
}

/// Where a request's DataRows go: the rows as text, and the OIDs of the
/// columns when the caller wants binary values converted.
enum RowsOut<'a> {
    Text(&'a mut Vec<Vec<Option<String>>>, Option<&'a [u32]>),
    /// DataRows kept undecoded.
    Raw(&'a mut crate::db::RowBuf),
}

fn finish(w: &mut [u8], at: usize) {
    let len = (w.len() - at) as i32;
    w[at..at + 4].copy_from_slice(&len.to_be_bytes());
}

fn cstr(w: &mut Vec<u8>, s: &[u8]) {
    w.extend_from_slice(s);
    w.push(0);
}

/// "s<id>" without formatting machinery; the unnamed statement ("") behind a pooler.
fn stmt_name(w: &mut Vec<u8>, id: StmtId, named: bool) {
    if named {
        w.push(b's');
        crate::db::push_decimal(w, u64::from(id.0));
    }
    w.push(0);
}

impl PgFast {
    /// The connection's TLS 1.2 session must be renewed before the next statement.
    pub fn spent(&self) -> bool {
        self.sock.spent()
    }

    /// Connect and authenticate, or ask for the driver when the server or
    /// the settings need something this client does not do.
    pub async fn connect(cfg: &ConnConfig, host_index: usize) -> DbResult<Choice<PgFast>> {
        let t = &cfg.target;
        // No TLS on a unix socket, as libpq and the driver do.
        let tls_cfg = match t.socket {
            None if tls::wanted(t.ssl_mode) => Some(tls::config(t)?),
            _ => None,
        };
        let mut sock = match &t.socket {
            Some(dir) => {
                let port = t.hosts.first().map(|h| h.1).unwrap_or(5432);
                Sock::unix(&format!("{dir}/.s.PGSQL.{port}")).await
            }
            None => {
                let (h, p) = t.host_for(host_index);
                Sock::tcp(h, *p).await
            }
        }
        .map_err(|e| connect_err(format!("error connecting to server: {e}")))?;
        let mut r = ReadBuf::new();
        if let Some(tc) = tls_cfg {
            let io = |e: std::io::Error| connect_err(format!("error communicating with the server: {e}"));
            sock.send(&[0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]).await.map_err(io)?;
            r.fill(&mut sock, 1).await.map_err(io)?;
            let answer = r.data[r.pos];
            r.pos += 1;
            match answer {
                // Bytes after the 'S' did not come through TLS: refuse them
                // rather than read them as the server's (CVE-2021-23222).
                b'S' if r.pos < r.data.len() => return Err(connect_err("the server sent unencrypted data after accepting TLS".into())),
                b'S' => tls::start(&mut sock, tc, &t.host_for(host_index).0, t.ssl_mode).await?,
                // prefer/allow: plain when the server has no TLS.
                b'N' if t.ssl_mode == SslMode::Preferred => {}
                b'N' => return Err(connect_err(format!("sslmode={} but the server does not support TLS (turn ssl on in the server, or use sslmode=prefer or disable)", t.ssl_mode.libpq_name()))),
                _ => return Err(connect_err("the server answered the TLS request with neither S nor N".into())),
            }
            r.data.clear();
            r.pos = 0;
        }
        let mut c = PgFast { sock, r, w: Vec::with_capacity(4096), stmts: Vec::new(), text: String::new(), broken: false, pooler: None, reported: None, pipe: Pipe::default() };
        // Startup: the parameters tokio-postgres sends, in its order.
        c.w.clear();
        c.w.extend_from_slice(&[0; 4]);
        c.w.extend_from_slice(&196_608i32.to_be_bytes());
        let options = t.options.as_deref().map(|o| ("options", o));
        for (k, v) in [("client_encoding", "UTF8"), ("user", t.user.as_str()), ("database", t.database.as_str()), ("application_name", t.session_name())].into_iter().chain(options) {
            cstr(&mut c.w, k.as_bytes());
            cstr(&mut c.w, v.as_bytes());
        }
        c.w.push(0);
        let len = c.w.len() as i32;
        c.w[..4].copy_from_slice(&len.to_be_bytes());
        let io = |e: std::io::Error| connect_err(format!("error communicating with the server: {e}"));
        c.send().await.map_err(io)?;
        let mut scram: Option<Sasl> = None;
        let mut key_pid = None;
        let (mut hot_standby, mut default_ro) = (None, None);
        loop {
            let m = c.next().await.map_err(io)?;
            let body = &c.r.data[m.start..m.end];
            match m.ty {
                b'R' => {
                    let code = be32(body);
                    let pw = || t.password.as_deref().map(str::as_bytes);
                    c.w.clear();
                    match code {
                        0 => {}
                        3 => {
                            let Some(p) = pw() else { return Err(connect_err("password missing".into())) };
                            let at = begin(&mut c.w, b'p');
                            cstr(&mut c.w, p);
                            finish(&mut c.w, at);
                        }
                        5 => {
                            let Some(p) = pw() else { return Err(connect_err("password missing".into())) };
                            let salt = [body[4], body[5], body[6], body[7]];
                            let h = postgres_protocol::authentication::md5_hash(t.user.as_bytes(), p, salt);
                            let at = begin(&mut c.w, b'p');
                            cstr(&mut c.w, h.as_bytes());
                            finish(&mut c.w, at);
                        }
                        10 => {
                            let mechs = &body[4..];
                            if !mechs.split(|&b| b == 0).any(|m| m == b"SCRAM-SHA-256") {
                                return Ok(Choice::Fallback);
                            }
                            let Some(p) = pw() else { return Err(connect_err("password missing".into())) };
                            // SCRAM-SHA-256 without channel binding, also
                            // over TLS: the first message says "n" (client
                            // does not support binding), which servers that
                            // offer SCRAM-SHA-256-PLUS accept.
                            let s = match Scram::new(p) {
                                Some(s) => Sasl::Cached(s),
                                None => Sasl::General(ScramSha256::new(p, ChannelBinding::unsupported())),
                            };
                            let first = match &s {
                                Sasl::Cached(s) => s.first(),
                                Sasl::General(s) => s.message(),
                            };
                            let at = begin(&mut c.w, b'p');
                            cstr(&mut c.w, b"SCRAM-SHA-256");
                            c.w.extend_from_slice(&(first.len() as i32).to_be_bytes());
                            c.w.extend_from_slice(first);
                            finish(&mut c.w, at);
                            scram = Some(s);
                        }
                        11 => {
                            let Some(s) = scram.as_mut() else { return Err(connect_err("unexpected SASL message".into())) };
                            let fail = |e: std::io::Error| connect_err(format!("authentication error: {e}"));
                            let at = begin(&mut c.w, b'p');
                            match s {
                                Sasl::Cached(s) => {
                                    let m = s.update(&body[4..]).map_err(fail)?;
                                    c.w.extend_from_slice(&m);
                                }
                                Sasl::General(s) => {
                                    s.update(&body[4..]).map_err(fail)?;
                                    c.w.extend_from_slice(s.message());
                                }
                            }
                            finish(&mut c.w, at);
                        }
                        12 => {
                            let Some(s) = scram.as_mut() else { return Err(connect_err("unexpected SASL message".into())) };
                            match s {
                                Sasl::Cached(s) => s.finish(&body[4..]),
                                Sasl::General(s) => s.finish(&body[4..]),
                            }
                            .map_err(|e| connect_err(format!("authentication error: {e}")))?;
                        }
                        _ => return Ok(Choice::Fallback),
                    }
                    if !c.w.is_empty() {
                        c.send().await.map_err(io)?;
                    }
                }
                b'E' => {
                    let (code, message) = error_fields(body);
                    return Err(DbError { kind: ErrKind::Connect, code, message });
                }
                b'K' if body.len() >= 4 => key_pid = Some(be32(body)),
                b'S' => {
                    let mut kv = body.split(|&b| b == 0);
                    let (k, v) = (kv.next().unwrap_or(b""), String::from_utf8_lossy(kv.next().unwrap_or(b"")).into_owned());
                    match k {
                        b"in_hot_standby" => hot_standby = Some(v),
                        b"default_transaction_read_only" => default_ro = Some(v),
                        _ => {}
                    }
                }
                b'Z' => break,
                _ => {} // notices
            }
        }
        c.reported = HostState::reported(hot_standby.as_deref(), default_ro.as_deref());
        c.pooler = c.pooler_of(cfg, host_index, key_pid).await?;
        Ok(Choice::Fast(c))
    }

    /// The session's state as the server reported it at startup, if it did.
    pub fn reported(&self) -> Option<HostState> {
        self.reported
    }

    async fn send(&mut self) -> std::io::Result<()> {
        self.sock.send(&self.w).await
    }

    /// Next complete backend message (the previous one is consumed).
    async fn next(&mut self) -> std::io::Result<Msg> {
        self.r.fill(&mut self.sock, 5).await?;
        let len = be32(&self.r.data[self.r.pos + 1..]) as usize;
        self.r.fill(&mut self.sock, 1 + len).await?;
        let p = self.r.pos;
        let m = Msg { ty: self.r.data[p], start: p + 5, end: p + 1 + len };
        self.r.pos = m.end;
        Ok(m)
    }

    fn check(&self) -> DbResult<()> {
        if self.broken {
            return Err(DbError { kind: ErrKind::ConnectionLost, code: String::new(), message: "connection lost: an earlier request was abandoned".into() });
        }
        Ok(())
    }

    /// The next message when it is already whole in the read buffer (the
    /// usual case: a small answer comes in one read), consumed; parsed
    /// without a trip through the read futures of [`Self::next`].
    #[inline]
    fn buffered(&mut self) -> Option<Msg> {
        let d = &self.r.data[self.r.pos..];
        if d.len() < 5 {
            return None;
        }
        let len = be32(&d[1..]) as usize;
        if d.len() < 1 + len {
            return None;
        }
        let p = self.r.pos;
        let m = Msg { ty: d[0], start: p + 5, end: p + 1 + len };
        self.r.pos = m.end;
        Some(m)
    }

    /// Send the write buffer and mark the session busy until ReadyForQuery.
    async fn request(&mut self) -> DbResult<()> {
        self.check()?;
        self.broken = true;
        // Written here when the socket takes it all, without a trip
        // through the socket's write future.
        let n = self.sock.send_now(&self.w).map_err(lost)?;
        if n < self.w.len() {
            self.sock.send(&self.w[n..]).await.map_err(lost)?;
        }
        Ok(())
    }

    /// Read to ReadyForQuery. Returns (saw rows, rows affected of the last
    /// command) or the first error; `rows_out` collects DataRows when given.
    async fn finish_request(&mut self, mut rows_out: Option<RowsOut<'_>>) -> DbResult<(bool, u64)> {
        let mut err: Option<DbError> = None;
        let (mut rows, mut n) = (false, 0u64);
        loop {
            let m = match self.buffered() {
                Some(m) => m,
                None => self.next().await.map_err(lost)?,
            };
            match m.ty {
                b'Z' => break,
                b'D' => {
                    rows = true;
                    match rows_out.as_mut() {
                        Some(RowsOut::Text(out, types)) if err.is_none() => match decode_row(&self.r.data[m.start..m.end], *types) {
                            Ok(r) => out.push(r),
                            Err(e) => err = Some(e),
                        },
                        Some(RowsOut::Raw(out)) => out.push(&self.r.data[m.start..m.end]),
                        _ => {}
                    }
                }
                b'T' => rows = true,
                b'C' => n = tag_rows(&self.r.data[m.start..m.end]),
                b'E' => {
                    let e = server_error(&self.r.data[m.start..m.end]);
                    if e.kind == ErrKind::ConnectionLost {
                        // FATAL: the server closes the connection now.
                        return Err(e);
                    }
                    err.get_or_insert(e);
                }
                b'G' => {
                    // COPY FROM STDIN sent as a plain statement: refuse it.
                    self.w.clear();
                    let at = begin(&mut self.w, b'f');
                    cstr(&mut self.w, b"COPY FROM STDIN is not supported here");
                    finish(&mut self.w, at);
                    self.sock.send(&self.w).await.map_err(lost)?;
                }
                _ => {} // ParseComplete, BindComplete, NoData, notices, CopyOut data
            }
        }
        self.broken = false;
        match err {
            Some(e) => Err(e),
            None => Ok((rows, n)),
        }
    }

    async fn prepare(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>]) -> DbResult<()> {
        let named = self.named();
        self.w.clear();
        let at = begin(&mut self.w, b'P');
        stmt_name(&mut self.w, id, named);
        cstr(&mut self.w, dollar_params(&st.sql).as_bytes());
        // Integers are typed BIGINT so one statement serves INTEGER and
        // BIGINT schemas alike (as the driver path does).
        self.w.extend_from_slice(&(params.len() as i16).to_be_bytes());
        for p in params {
            let oid = match p {
                Param::Int(_) => INT8,
                Param::Text(_) => TEXT,
            };
            self.w.extend_from_slice(&oid.to_be_bytes());
        }
        finish(&mut self.w, at);
        let parse = if named { Vec::new() } else { self.w.clone() };
        let at = begin(&mut self.w, b'D');
        self.w.push(b'S');
        stmt_name(&mut self.w, id, named);
        finish(&mut self.w, at);
        let at = begin(&mut self.w, b'S');
        finish(&mut self.w, at);
        self.request().await?;
        let mut err = None;
        let mut cols = Vec::new();
        loop {
            let m = self.next().await.map_err(lost)?;
            let body = &self.r.data[m.start..m.end];
            match m.ty {
                b'Z' => break,
                b'T' => {
                    let n = be16(body) as usize;
                    let mut i = 2;
                    for _ in 0..n {
                        i += body[i..].iter().position(|&b| b == 0).unwrap_or(0) + 1;
                        cols.push(be32(&body[i + 6..]) as u32);
                        i += 18;
                    }
                }
                b'E' => {
                    let e = server_error(body);
                    if e.kind == ErrKind::ConnectionLost {
                        return Err(e);
                    }
                    err.get_or_insert(e);
                }
                _ => {}
            }
        }
        self.broken = false;
        if let Some(e) = err {
            return Err(e);
        }
        let i = id.0 as usize;
        if self.stmts.len() <= i {
            self.stmts.resize_with(i + 1, || None);
        }
        self.stmts[i] = Some(Prepared { cols, parse });
        Ok(())
    }

    fn bind_execute(&mut self, id: StmtId, params: &[Param<'_>]) {
        self.w.clear();
        let mut w = std::mem::take(&mut self.w);
        self.append_bind_execute(&mut w, id, params);
        w.extend_from_slice(&[b'S', 0, 0, 0, 4]);
        self.w = w;
    }

    /// Bind and Execute of statement `id` appended to `w`, without the Sync.
    fn append_bind_execute(&self, w: &mut Vec<u8>, id: StmtId, params: &[Param<'_>]) {
        let named = self.named();
        if !named {
            if let Some(Some(p)) = self.stmts.get(id.0 as usize) {
                w.extend_from_slice(&p.parse);
            }
        }
        let at = begin(w, b'B');
        w.push(0); // unnamed portal
        stmt_name(w, id, named);
        // One format code for all parameters: binary (int8 big-endian; text
        // as its UTF-8 bytes, which is text's binary form).
        if params.is_empty() {
            w.extend_from_slice(&0i16.to_be_bytes());
        } else {
            w.extend_from_slice(&[0, 1, 0, 1]);
        }
        w.extend_from_slice(&(params.len() as i16).to_be_bytes());
        for p in params {
            match p {
                Param::Int(v) => {
                    w.extend_from_slice(&8i32.to_be_bytes());
                    w.extend_from_slice(&v.to_be_bytes());
                }
                Param::Text(s) => {
                    w.extend_from_slice(&(s.len() as i32).to_be_bytes());
                    w.extend_from_slice(s.as_bytes());
                }
            }
        }
        // All result columns binary, as the driver asks.
        w.extend_from_slice(&[0, 1, 0, 1]);
        finish(w, at);
        w.extend_from_slice(&[b'E', 0, 0, 0, 9, 0, 0, 0, 0, 0]);
    }

    /// Statement `id` parsed on this connection, now if it was not yet.
    async fn parsed(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>]) -> DbResult<()> {
        if self.stmts.get(id.0 as usize).map(Option::is_none).unwrap_or(true) {
            self.prepare(id, st, params).await?;
        }
        Ok(())
    }

    /// Sends statement `id` with `params`, parsed first when this
    /// connection has not parsed it yet.
    async fn send_prepared(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>]) -> DbResult<()> {
        self.parsed(id, st, params).await?;
        self.bind_execute(id, params);
        self.request().await
    }

    pub async fn exec(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<u64> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let sql = std::mem::take(&mut self.text);
            let r = self.query(&sql).await;
            self.text = sql;
            return r.map(|(_, n)| n);
        }
        self.send_prepared(id, st, params).await?;
        let (_, n) = self.finish_request(None).await?;
        Ok(if st.returns_rows { 0 } else { n })
    }

    fn simple(&mut self, sql: &str) {
        self.w.clear();
        let at = begin(&mut self.w, b'Q');
        cstr(&mut self.w, sql.as_bytes());
        finish(&mut self.w, at);
    }

    pub async fn query(&mut self, sql: &str) -> DbResult<(bool, u64)> {
        self.simple(sql);
        self.request().await?;
        let (rows, n) = self.finish_request(None).await?;
        Ok((rows, if rows { 0 } else { n }))
    }

    pub async fn query_rows(&mut self, sql: &str) -> DbResult<Vec<Vec<Option<String>>>> {
        self.simple(sql);
        self.request().await?;
        let mut out = Vec::new();
        self.finish_request(Some(RowsOut::Text(&mut out, None))).await?;
        Ok(out)
    }

    pub async fn exec_rows(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<Vec<Vec<Option<String>>>> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let sql = std::mem::take(&mut self.text);
            let r = self.query_rows(&sql).await;
            self.text = sql;
            return r;
        }
        self.send_prepared(id, st, params).await?;
        let cols = std::mem::take(&mut self.stmts[id.0 as usize].as_mut().unwrap().cols);
        let mut out = Vec::new();
        let r = self.finish_request(Some(RowsOut::Text(&mut out, Some(&cols)))).await;
        self.stmts[id.0 as usize].as_mut().unwrap().cols = cols;
        r.map(|_| out)
    }

    /// Like [`Self::query_rows`], the rows kept undecoded in `out`.
    pub async fn query_into(&mut self, sql: &str, out: &mut crate::db::RowBuf) -> DbResult<(bool, u64)> {
        self.simple(sql);
        self.request().await?;
        out.start_pg(None);
        self.finish_request(Some(RowsOut::Raw(out))).await
    }

    /// Like [`Self::exec_rows`], the rows kept undecoded in `out`.
    pub async fn exec_into(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool, out: &mut crate::db::RowBuf) -> DbResult<(bool, u64)> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let sql = std::mem::take(&mut self.text);
            let r = self.query_into(&sql, out).await;
            self.text = sql;
            return r;
        }
        self.send_prepared(id, st, params).await?;
        out.start_pg(Some(&self.stmts[id.0 as usize].as_ref().unwrap().cols));
        self.finish_request(Some(RowsOut::Raw(out))).await
    }

    /// Binary COPY, rows encoded as the driver path encodes them.
    pub async fn bulk_load(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource) -> DbResult<u64> {
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        self.simple(&format!("COPY {table} ({}) FROM STDIN (FORMAT binary)", names.join(",")));
        self.request().await?;
        let mut err = None;
        loop {
            let m = self.next().await.map_err(lost)?;
            match m.ty {
                b'G' => break,
                b'E' => {
                    err.get_or_insert(server_error(&self.r.data[m.start..m.end]));
                }
                b'Z' => {
                    self.broken = false;
                    return Err(err.unwrap_or_else(|| DbError { kind: ErrKind::Fatal, code: String::new(), message: "COPY did not start".into() }));
                }
                _ => {}
            }
        }
        let mut buf = bytes::BytesMut::with_capacity((1 << 20) + 4096);
        buf.extend_from_slice(&[b'd', 0, 0, 0, 0]);
        buf.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
        buf.extend_from_slice(&0i32.to_be_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes());
        let mut row = Row::default();
        let mut total = 0u64;
        loop {
            let more = rows.next_row(&mut row);
            if more {
                encode_copy_row(cols, &row, &mut buf);
                total += 1;
            } else {
                buf.extend_from_slice(&(-1i16).to_be_bytes());
            }
            if buf.len() >= 1 << 20 || !more {
                let len = (buf.len() - 1) as i32;
                buf[1..5].copy_from_slice(&len.to_be_bytes());
                if !more {
                    buf.extend_from_slice(&[b'c', 0, 0, 0, 4]);
                }
                self.sock.send(&buf).await.map_err(lost)?;
                buf.clear();
                buf.extend_from_slice(&[b'd', 0, 0, 0, 0]);
            }
            if !more {
                break;
            }
        }
        self.finish_request(None).await?;
        Ok(total)
    }

    /// Multi-row INSERTs (`--load-mode=insert`), as sysbench loads.
    pub async fn bulk_insert(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize) -> DbResult<u64> {
        let (mut row, mut total) = (Row::default(), 0u64);
        while let Some((sql, n)) = crate::db::bulk::next_insert(table, cols, rows, &mut row, bulk_rows, false) {
            self.query(&sql).await?;
            total += n;
        }
        Ok(total)
    }

    /// Waits on the server by blocking the thread (see [`super::Blocking`]).
    pub fn set_blocking(&mut self, b: Option<super::Blocking>) -> std::io::Result<()> {
        self.sock.set_blocking(b)
    }

    pub async fn close(mut self) {
        if !self.broken {
            self.w.clear();
            self.w.extend_from_slice(&[b'X', 0, 0, 0, 4]);
            let _ = self.sock.send(&self.w).await;
        }
    }
}

/// A DataRow as text: simple-protocol rows are text already; extended
/// protocol rows are binary and decoded by column type.
pub(crate) fn decode_row(body: &[u8], types: Option<&[u32]>) -> DbResult<Vec<Option<String>>> {
    let n = be16(body) as usize;
    let mut out = Vec::with_capacity(n);
    let mut i = 2;
    for c in 0..n {
        let len = be32(&body[i..]);
        i += 4;
        if len < 0 {
            out.push(None);
            continue;
        }
        let raw = &body[i..i + len as usize];
        i += len as usize;
        out.push(Some(match types {
            None => String::from_utf8_lossy(raw).into_owned(),
            Some(t) => value_text(t.get(c).copied().unwrap_or(TEXT), raw).map_err(|e| DbError {
                kind: ErrKind::Fatal,
                code: String::new(),
                message: format!("reading column {c}: error deserializing column {c}: {e}"),
            })?,
        }));
    }
    Ok(out)
}
