//! MySQL client/server protocol (protocol 41), the subset fairbench uses.
//!
//! Same session as the mysql_async path: the same capability flags
//! (notably no CLIENT_FOUND_ROWS, so affected rows mean changed rows),
//! utf8mb4_general_ci, no statement cache of its own beyond one statement
//! per workload statement, COM_STMT_EXECUTE with the parameter types sent
//! on every execution, COM_QUERY for text mode, LOAD DATA LOCAL INFILE fed
//! from memory for loading.

mod connect;
mod load;

use super::{tls, Choice, ReadBuf, Sock};
use crate::db::mysql::{bulk_load, BulkConn, LOST};
use crate::db::{interpolate, Column, ConnConfig, DbError, DbResult, ErrKind, LoadMode, Param, RowSource, SslMode, Statement, StmtId};

const CLIENT_LONG_PASSWORD: u32 = 1;
const CLIENT_CONNECT_WITH_DB: u32 = 8;
const CLIENT_LOCAL_FILES: u32 = 128;
const CLIENT_PROTOCOL_41: u32 = 512;
const CLIENT_SSL: u32 = 2048;
const CLIENT_TRANSACTIONS: u32 = 8192;
const CLIENT_SECURE_CONNECTION: u32 = 32768;
const CLIENT_MULTI_STATEMENTS: u32 = 1 << 16;
const CLIENT_MULTI_RESULTS: u32 = 1 << 17;
const CLIENT_PS_MULTI_RESULTS: u32 = 1 << 18;
const CLIENT_PLUGIN_AUTH: u32 = 1 << 19;
const CLIENT_DEPRECATE_EOF: u32 = 1 << 24;

/// MariaDB's extended capabilities (the upper 32 bits, sent in the
/// greeting's and the response's reserved bytes when CLIENT_MYSQL is
/// clear): a statement's result column definitions are sent only when
/// they changed since the last execution, as libmariadb asks.
const MARIADB_CLIENT_CACHE_METADATA: u32 = 1 << 4;
const SERVER_MORE_RESULTS_EXISTS: u16 = 8;
const MAX_PAYLOAD: usize = 0xFF_FFFF;
const UTF8MB4_GENERAL_CI: u8 = 45;

struct Prepared {
    id: u32,
    params: u16,
    /// The result's column types as last sent: an execution whose answer
    /// says "metadata unchanged" reads its rows with these.
    cols: Vec<(u8, u16)>,
    /// The parameter types the server was last told (true: text): an
    /// execution with the same types leaves them out, as libmariadb does,
    /// and the server keeps the ones it has.
    bound: Option<Vec<bool>>,
}

pub struct MyFast {
    sock: Sock,
    r: ReadBuf,
    w: Vec<u8>,
    /// A payload split over several packets (>= 16 MB), reassembled.
    big: Vec<u8>,
    deprecate_eof: bool,
    /// MARIADB_CLIENT_CACHE_METADATA is on: a column count is followed by
    /// a byte saying whether the column definitions follow.
    cache_meta: bool,
    /// The prepared statement whose execution is on the wire.
    executing: Option<usize>,
    seq: u8,
    stmts: Vec<Option<Prepared>>,
    text: String,
    /// The column types of the result being read (binary rows), reused.
    types: Vec<(u8, u16)>,
    /// A command is on the wire whose answer was not read to the end.
    broken: bool,
    /// The last OK packet's last insert id (an auto-increment column's new value).
    pub last_insert_id: u64,
}

#[derive(Clone, Copy)]
struct Pkt {
    start: usize,
    end: usize,
    big: bool,
}

impl Pkt {
    /// The payload: in the read buffer, or in the reassembly buffer when
    /// it was split over packets.
    fn of<'a>(self, data: &'a [u8], big: &'a [u8]) -> &'a [u8] {
        if self.big {
            &big[self.start..self.end]
        } else {
            &data[self.start..self.end]
        }
    }
}

/// Where a command's answer is: what the next packet must be.
#[derive(Clone, Copy)]
enum Phase {
    /// An OK, an error, a LOCAL INFILE request or a result set's column
    /// count.
    Head,
    /// This many column definitions to go.
    Columns(usize),
    /// The EOF packet after the column definitions (old servers).
    ColumnsEof,
    Rows,
}

/// What [`MyFast::results`] learned so far of a command's answer.
struct Answer {
    /// Reading the first result (the one whose rows are collected).
    first: bool,
    has_rows: bool,
    affected: u64,
    phase: Phase,
    ncols: usize,
    /// The rows of this result are collected.
    want: bool,
    /// The column types read are kept as the executed statement's.
    keep: bool,
}

/// What follows a packet of an answer.
enum Step {
    More,
    Done,
    /// The server asked for a LOCAL INFILE upload.
    Infile,
}

/// What a result-set read collects.
enum Collect<'a> {
    Nothing,
    Text(&'a mut Vec<Vec<Option<String>>>),
    Binary(&'a mut Vec<Vec<Option<String>>>),
    /// Row packets kept undecoded (binary protocol when `true`).
    Raw(&'a mut crate::db::RowBuf, bool),
}

fn lost(e: std::io::Error) -> DbError {
    super::lost(e, "2013")
}

fn connect_io(e: std::io::Error) -> DbError {
    DbError { kind: ErrKind::Connect, code: "2013".into(), message: format!("connection lost: {e}") }
}

fn server_error(p: &[u8]) -> DbError {
    let code = u16::from_le_bytes([p[1], p[2]]);
    let msg = if p.len() > 3 && p[3] == b'#' { &p[9.min(p.len())..] } else { &p[3..] };
    let kind = if LOST.contains(&code) { ErrKind::ConnectionLost } else { ErrKind::Fatal };
    DbError { kind, code: code.to_string(), message: String::from_utf8_lossy(msg).into_owned() }
}

fn bad_packet() -> DbError {
    DbError { kind: ErrKind::ConnectionLost, code: "2027".into(), message: "malformed packet".into() }
}

/// Length-encoded integer at `*i`.
fn lenenc(p: &[u8], i: &mut usize) -> Option<u64> {
    let b = *p.get(*i)?;
    *i += 1;
    let n = match b {
        0xfc => 2,
        0xfd => 3,
        0xfe => 8,
        0xfb => return Some(u64::MAX), // NULL in a text row
        _ => return Some(b as u64),
    };
    let s = p.get(*i..*i + n)?;
    *i += n;
    let mut v = 0u64;
    for (k, &x) in s.iter().enumerate() {
        v |= (x as u64) << (8 * k);
    }
    Some(v)
}

fn put_lenenc(w: &mut Vec<u8>, v: u64) {
    if v < 251 {
        w.push(v as u8);
    } else if v < 1 << 16 {
        w.push(0xfc);
        w.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        w.push(0xfd);
        w.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        w.push(0xfe);
        w.extend_from_slice(&v.to_le_bytes());
    }
}

/// OK packet: (affected rows, status flags).
fn ok_packet(p: &[u8]) -> (u64, u16) {
    let (affected, _, status) = ok_packet_ids(p);
    (affected, status)
}

/// OK packet: (affected rows, last insert id, status flags).
fn ok_packet_ids(p: &[u8]) -> (u64, u64, u16) {
    let mut i = 1;
    let affected = lenenc(p, &mut i).unwrap_or(0);
    let id = lenenc(p, &mut i).unwrap_or(0);
    let status = p.get(i..i + 2).map(|s| u16::from_le_bytes([s[0], s[1]])).unwrap_or(0);
    (affected, id, status)
}

impl MyFast {
    /// The connection's TLS 1.2 session must be renewed before the next statement.
    pub fn spent(&self) -> bool {
        self.sock.spent()
    }

    /// Fill in packet headers for the payload after `w[..4]`, splitting it
    /// into 16 MB packets if needed; `seq` is the first sequence number.
    fn frame(&mut self, seq: u8) {
        let len = self.w.len() - 4;
        if len < MAX_PAYLOAD {
            self.w[..3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
            self.w[3] = seq;
            self.seq = seq.wrapping_add(1);
            return;
        }
        let payload = self.w.split_off(4);
        self.w.clear();
        let mut s = seq;
        let mut chunks = payload.chunks(MAX_PAYLOAD).peekable();
        let exact = payload.len().is_multiple_of(MAX_PAYLOAD);
        while let Some(ch) = chunks.next() {
            self.w.extend_from_slice(&(ch.len() as u32).to_le_bytes()[..3]);
            self.w.push(s);
            s = s.wrapping_add(1);
            self.w.extend_from_slice(ch);
            if chunks.peek().is_none() && exact {
                self.w.extend_from_slice(&[0, 0, 0, s]);
                s = s.wrapping_add(1);
            }
        }
        self.seq = s;
    }

    /// Next packet (payload reassembled when split).
    async fn next(&mut self) -> std::io::Result<Pkt> {
        let (start, len) = self.physical().await?;
        if len < MAX_PAYLOAD {
            return Ok(Pkt { start, end: start + len, big: false });
        }
        self.big.clear();
        self.big.extend_from_slice(&self.r.data[start..start + len]);
        loop {
            let (start, len) = self.physical().await?;
            self.big.extend_from_slice(&self.r.data[start..start + len]);
            if len < MAX_PAYLOAD {
                return Ok(Pkt { start: 0, end: self.big.len(), big: true });
            }
        }
    }

    /// One packet as sent (a part of a split payload, maybe): where its
    /// payload starts in the read buffer, and its length. Consumed already.
    async fn physical(&mut self) -> std::io::Result<(usize, usize)> {
        self.r.fill(&mut self.sock, 4).await?;
        let p = self.r.pos;
        let len = u32::from_le_bytes([self.r.data[p], self.r.data[p + 1], self.r.data[p + 2], 0]) as usize;
        self.seq = self.r.data[p + 3].wrapping_add(1);
        self.r.fill(&mut self.sock, 4 + len).await?;
        let p = self.r.pos;
        self.r.pos = p + 4 + len;
        Ok((p + 4, len))
    }

    fn payload(&self, p: Pkt) -> &[u8] {
        p.of(&self.r.data, &self.big)
    }

    fn check(&self) -> DbResult<()> {
        if self.broken {
            return Err(DbError { kind: ErrKind::ConnectionLost, code: "2013".into(), message: "connection lost: an earlier request was abandoned".into() });
        }
        Ok(())
    }

    /// Send the command in `w` (payload from w[4..]).
    async fn command(&mut self) -> DbResult<()> {
        self.check()?;
        self.frame(0);
        self.broken = true;
        // Written here when the socket takes it all, without a trip
        // through the socket's write future.
        let n = self.sock.send_now(&self.w).map_err(lost)?;
        if n < self.w.len() {
            self.sock.send(&self.w[n..]).await.map_err(lost)?;
        }
        Ok(())
    }

    fn start(&mut self, cmd: u8) {
        self.executing = None;
        self.w.clear();
        self.w.extend_from_slice(&[0, 0, 0, 0, cmd]);
    }

    /// The next packet when it is already whole in the read buffer (the
    /// usual case: a small answer comes in one read), consumed. Parsing it
    /// here, without a wait, spares every packet a trip through the nested
    /// read futures of [`Self::next`].
    #[inline]
    fn buffered(&mut self) -> Option<Pkt> {
        let d = &self.r.data[self.r.pos..];
        if d.len() < 4 {
            return None;
        }
        let len = u32::from_le_bytes([d[0], d[1], d[2], 0]) as usize;
        if len >= MAX_PAYLOAD || d.len() < 4 + len {
            return None;
        }
        self.seq = d[3].wrapping_add(1);
        let start = self.r.pos + 4;
        self.r.pos = start + len;
        Some(Pkt { start, end: start + len, big: false })
    }

    /// Read one command's results to the end: (first result had columns,
    /// affected rows of the last OK).
    async fn results(&mut self, mut collect: Collect<'_>) -> DbResult<(bool, u64)> {
        let mut a = Answer { first: true, has_rows: false, affected: 0, phase: Phase::Head, ncols: 0, want: false, keep: false };
        loop {
            let p = loop {
                if let Some(p) = self.buffered() {
                    break p;
                }
                if self.r.unread() >= 4 && self.r.data[self.r.pos..self.r.pos + 3] == [0xff; 3] {
                    // A payload split over packets: reassembled by next().
                    break self.next().await.map_err(lost)?;
                }
                let more = self.r.unread() + 1;
                self.r.fill(&mut self.sock, more).await.map_err(lost)?;
            };
            match self.on_packet(p, &mut a, &mut collect)? {
                Step::More => {}
                Step::Done => {
                    self.broken = false;
                    return Ok((a.has_rows, a.affected));
                }
                Step::Infile => {
                    // A LOCAL INFILE request we did not ask for: send no data.
                    let seq = self.seq;
                    self.w.clear();
                    self.w.extend_from_slice(&[0, 0, 0, seq]);
                    self.sock.send(&self.w).await.map_err(lost)?;
                }
            }
        }
    }

    /// One packet of a command's answer, read in the light of the ones
    /// before it (`a`). A server error ends the answer.
    fn on_packet(&mut self, p: Pkt, a: &mut Answer, collect: &mut Collect<'_>) -> DbResult<Step> {
        // Borrowed field by field: `self.types` is written below.
        let pl = p.of(&self.r.data, &self.big);
        if pl.first() == Some(&0xff) && !matches!(a.phase, Phase::Columns(_)) {
            let e = server_error(pl);
            self.broken = false;
            return Err(e);
        }
        match a.phase {
            Phase::Head => match pl.first() {
                Some(0x00) => {
                    let (affected, id, status) = ok_packet_ids(pl);
                    a.affected = affected;
                    self.last_insert_id = id;
                    if status & SERVER_MORE_RESULTS_EXISTS == 0 {
                        return Ok(Step::Done);
                    }
                    a.first = false;
                }
                Some(0xfb) => {
                    a.first = false;
                    return Ok(Step::Infile);
                }
                Some(_) => {
                    let mut i = 0;
                    a.ncols = lenenc(pl, &mut i).ok_or_else(bad_packet)? as usize;
                    let metadata_follows = !self.cache_meta || pl.get(i) != Some(&0);
                    if a.first {
                        a.has_rows = a.ncols > 0;
                    }
                    a.want = a.first && !matches!(collect, Collect::Nothing);
                    let statement = if a.first { self.executing } else { None };
                    a.keep = self.cache_meta && statement.is_some();
                    self.types.clear();
                    if metadata_follows {
                        a.phase = Phase::Columns(a.ncols);
                        if a.ncols == 0 {
                            self.columns_read(a, collect);
                        }
                    } else {
                        // The columns are the ones this statement's last
                        // answer (or its prepare) described.
                        if a.want {
                            let cols = statement.and_then(|k| self.stmts.get(k)?.as_ref()).map(|s| &s.cols[..]).unwrap_or(&[]);
                            if cols.len() != a.ncols {
                                return Err(bad_packet());
                            }
                            self.types.extend_from_slice(cols);
                        }
                        self.rows_start(a, collect);
                    }
                }
                None => return Err(bad_packet()),
            },
            Phase::Columns(left) => {
                if a.want || a.keep {
                    self.types.push(column_type(pl).ok_or_else(bad_packet)?);
                }
                a.phase = Phase::Columns(left - 1);
                if left == 1 {
                    if a.keep {
                        if let Some(Some(s)) = self.executing.and_then(|k| self.stmts.get_mut(k)) {
                            s.cols.clone_from(&self.types);
                        }
                    }
                    self.columns_read(a, collect);
                }
            }
            Phase::ColumnsEof => self.rows_start(a, collect),
            Phase::Rows => {
                if pl.first() == Some(&0xfe) && pl.len() < MAX_PAYLOAD {
                    let status = if self.deprecate_eof {
                        let (affected, s) = ok_packet(pl);
                        a.affected = affected;
                        s
                    } else {
                        pl.get(3..5).map(|s| u16::from_le_bytes([s[0], s[1]])).unwrap_or(0)
                    };
                    if status & SERVER_MORE_RESULTS_EXISTS == 0 {
                        return Ok(Step::Done);
                    }
                    a.first = false;
                    a.phase = Phase::Head;
                } else if a.want {
                    match collect {
                        Collect::Text(out) => out.push(text_row(pl, a.ncols).ok_or_else(bad_packet)?),
                        Collect::Binary(out) => out.push(binary_row(pl, &self.types).ok_or_else(bad_packet)?),
                        Collect::Raw(out, _) => out.push(pl),
                        Collect::Nothing => {}
                    }
                }
            }
        }
        Ok(Step::More)
    }

    /// The column definitions are read: an EOF packet follows them unless
    /// the server deprecated it.
    fn columns_read(&mut self, a: &mut Answer, collect: &mut Collect<'_>) {
        if self.deprecate_eof {
            self.rows_start(a, collect);
        } else {
            a.phase = Phase::ColumnsEof;
        }
    }

    fn rows_start(&mut self, a: &mut Answer, collect: &mut Collect<'_>) {
        if a.want {
            if let Collect::Raw(out, binary) = collect {
                out.start_my(binary.then_some(&self.types[..]), a.ncols);
            }
        }
        a.phase = Phase::Rows;
    }

    async fn prepare(&mut self, id: StmtId, st: &Statement) -> DbResult<()> {
        self.start(0x16);
        self.w.extend_from_slice(st.sql.as_bytes());
        self.command().await?;
        let p = self.next().await.map_err(lost)?;
        let pl = self.payload(p);
        if pl.first() == Some(&0xff) {
            let e = server_error(pl);
            self.broken = false;
            return Err(e);
        }
        if pl.len() < 12 {
            return Err(bad_packet());
        }
        let sid = u32::from_le_bytes([pl[1], pl[2], pl[3], pl[4]]);
        let ncols = u16::from_le_bytes([pl[5], pl[6]]);
        let nparams = u16::from_le_bytes([pl[7], pl[8]]);
        for _ in 0..nparams {
            self.next().await.map_err(lost)?;
        }
        if nparams > 0 && !self.deprecate_eof {
            self.next().await.map_err(lost)?;
        }
        let mut cols = Vec::with_capacity(ncols as usize);
        for _ in 0..ncols {
            let p = self.next().await.map_err(lost)?;
            cols.push(column_type(self.payload(p)).ok_or_else(bad_packet)?);
        }
        if ncols > 0 && !self.deprecate_eof {
            self.next().await.map_err(lost)?;
        }
        self.broken = false;
        let i = id.0 as usize;
        if self.stmts.len() <= i {
            self.stmts.resize_with(i + 1, || None);
        }
        self.stmts[i] = Some(Prepared { id: sid, params: nparams, cols, bound: None });
        Ok(())
    }

    /// COM_STMT_EXECUTE, with the parameter types when they differ from
    /// the last execution's (the first time, as a rule).
    async fn execute(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>]) -> DbResult<()> {
        if self.stmts.get(id.0 as usize).map(Option::is_none).unwrap_or(true) {
            self.prepare(id, st).await?;
        }
        let s = self.stmts[id.0 as usize].as_mut().unwrap();
        if s.params as usize != params.len() {
            return Err(DbError { kind: ErrKind::Fatal, code: String::new(), message: format!("Statement takes {} parameters but {} was supplied", s.params, params.len()) });
        }
        let sid = s.id;
        let is_text = |p: &Param<'_>| matches!(p, Param::Text(_));
        let same = s.bound.as_ref().is_some_and(|b| b.iter().copied().eq(params.iter().map(is_text)));
        if !same {
            s.bound = Some(params.iter().map(is_text).collect());
        }
        self.start(0x17);
        self.executing = Some(id.0 as usize);
        let w = &mut self.w;
        w.extend_from_slice(&sid.to_le_bytes());
        w.push(0); // no cursor
        w.extend_from_slice(&1u32.to_le_bytes());
        if !params.is_empty() {
            w.extend(std::iter::repeat_n(0u8, params.len().div_ceil(8))); // no NULLs
            w.push(u8::from(!same)); // types follow
            for p in params.iter().filter(|_| !same) {
                match p {
                    Param::Int(_) => w.extend_from_slice(&[0x08, 0x00]),  // LONGLONG, signed
                    Param::Text(_) => w.extend_from_slice(&[0xfd, 0x00]), // VAR_STRING
                }
            }
            for p in params {
                match p {
                    Param::Int(v) => w.extend_from_slice(&v.to_le_bytes()),
                    Param::Text(t) => {
                        put_lenenc(w, t.len() as u64);
                        w.extend_from_slice(t.as_bytes());
                    }
                }
            }
        }
        self.command().await
    }

    pub async fn exec(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<u64> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, true);
            let sql = std::mem::take(&mut self.text);
            let r = self.query(&sql).await;
            self.text = sql;
            return r.map(|(_, n)| n);
        }
        self.execute(id, st, params).await?;
        self.results(Collect::Nothing).await.map(|(_, n)| n)
    }

    pub async fn query(&mut self, sql: &str) -> DbResult<(bool, u64)> {
        self.start(0x03);
        self.w.extend_from_slice(sql.as_bytes());
        self.command().await?;
        self.results(Collect::Nothing).await
    }

    pub async fn query_rows(&mut self, sql: &str) -> DbResult<Vec<Vec<Option<String>>>> {
        self.start(0x03);
        self.w.extend_from_slice(sql.as_bytes());
        self.command().await?;
        let mut out = Vec::new();
        self.results(Collect::Text(&mut out)).await?;
        Ok(out)
    }

    pub async fn exec_rows(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<Vec<Vec<Option<String>>>> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, true);
            let sql = std::mem::take(&mut self.text);
            let r = self.query_rows(&sql).await;
            self.text = sql;
            return r;
        }
        self.execute(id, st, params).await?;
        let mut out = Vec::new();
        self.results(Collect::Binary(&mut out)).await?;
        Ok(out)
    }

    /// Like [`Self::query_rows`], the rows kept undecoded in `out`.
    pub async fn query_into(&mut self, sql: &str, out: &mut crate::db::RowBuf) -> DbResult<(bool, u64)> {
        self.start(0x03);
        self.w.extend_from_slice(sql.as_bytes());
        self.command().await?;
        out.clear();
        self.results(Collect::Raw(out, false)).await
    }

    /// Like [`Self::exec_rows`], the rows kept undecoded in `out`.
    pub async fn exec_into(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool, out: &mut crate::db::RowBuf) -> DbResult<(bool, u64)> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, true);
            let sql = std::mem::take(&mut self.text);
            let r = self.query_into(&sql, out).await;
            self.text = sql;
            return r;
        }
        self.execute(id, st, params).await?;
        out.clear();
        self.results(Collect::Raw(out, true)).await
    }

    /// LOAD DATA LOCAL INFILE fed from memory when the server allows it,
    /// multi-row INSERTs otherwise (the driver path's rules).
    pub async fn bulk_load(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize, mode: LoadMode) -> DbResult<u64> {
        bulk_load(self, table, cols, rows, bulk_rows, mode).await
    }

    /// Waits on the server by blocking the thread (see [`super::Blocking`]).
    pub fn set_blocking(&mut self, b: Option<super::Blocking>) -> std::io::Result<()> {
        self.sock.set_blocking(b)
    }

    pub async fn close(mut self) {
        if !self.broken {
            self.w.clear();
            self.w.extend_from_slice(&[1, 0, 0, 0, 0x01]); // COM_QUIT
            let _ = self.sock.send(&self.w).await;
        }
    }
}

/// (type, flags) of a column definition packet.
fn column_type(p: &[u8]) -> Option<(u8, u16)> {
    let mut i = 0;
    for _ in 0..6 {
        let n = lenenc(p, &mut i)? as usize;
        i += n;
    }
    let _ = lenenc(p, &mut i)?; // length of the fixed fields
    let ty = *p.get(i + 6)?;
    let flags = u16::from_le_bytes([*p.get(i + 7)?, *p.get(i + 8)?]);
    Some((ty, flags))
}

pub(crate) fn text_row(p: &[u8], n: usize) -> Option<Vec<Option<String>>> {
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    for _ in 0..n {
        if p.get(i) == Some(&0xfb) {
            i += 1;
            out.push(None);
            continue;
        }
        let len = lenenc(p, &mut i)? as usize;
        out.push(Some(String::from_utf8_lossy(p.get(i..i + len)?).into_owned()));
        i += len;
    }
    Some(out)
}

/// A binary-protocol row as text, formatted as the driver path formats
/// mysql_async's values.
pub(crate) fn binary_row(p: &[u8], types: &[(u8, u16)]) -> Option<Vec<Option<String>>> {
    let n = types.len();
    let bitmap = p.get(1..1 + (n + 9) / 8)?;
    let mut i = 1 + (n + 9) / 8;
    let mut out = Vec::with_capacity(n);
    for (c, &(ty, flags)) in types.iter().enumerate() {
        let bit = c + 2;
        if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
            out.push(None);
            continue;
        }
        let unsigned = flags & 32 != 0;
        let fixed = |i: &mut usize, w: usize| -> Option<u64> {
            let s = p.get(*i..*i + w)?;
            *i += w;
            let mut v = 0u64;
            for (k, &x) in s.iter().enumerate() {
                v |= (x as u64) << (8 * k);
            }
            Some(v)
        };
        let int = |v: u64, w: u32| -> String {
            if unsigned {
                v.to_string()
            } else {
                let sh = 64 - 8 * w;
                (((v << sh) as i64) >> sh).to_string()
            }
        };
        let s = match ty {
            1 => int(fixed(&mut i, 1)?, 1),
            2 | 13 => int(fixed(&mut i, 2)?, 2),
            3 | 9 => int(fixed(&mut i, 4)?, 4),
            8 => int(fixed(&mut i, 8)?, 8),
            4 => format!("{}", f32::from_bits(fixed(&mut i, 4)? as u32)),
            5 => format!("{}", f64::from_bits(fixed(&mut i, 8)?)),
            7 | 10 | 12 => {
                let len = *p.get(i)? as usize;
                let d = p.get(i + 1..i + 1 + len)?;
                i += 1 + len;
                let g = |k: usize| d.get(k).copied().unwrap_or(0) as u32;
                let y = if len >= 2 { u16::from_le_bytes([d[0], d[1]]) } else { 0 };
                format!("{y:04}-{:02}-{:02} {:02}:{:02}:{:02}", g(2), g(3), g(4), g(5), g(6))
            }
            11 => {
                let len = *p.get(i)? as usize;
                let d = p.get(i + 1..i + 1 + len)?;
                i += 1 + len;
                let g = |k: usize| d.get(k).copied().unwrap_or(0) as u32;
                let neg = g(0) == 1;
                let days = if len >= 5 { u32::from_le_bytes([d[1], d[2], d[3], d[4]]) } else { 0 };
                let micros = if len >= 12 { u32::from_le_bytes([d[8], d[9], d[10], d[11]]) } else { 0 };
                let sign = if neg { "-" } else { "" };
                if micros == 0 {
                    format!("{sign}{:03}:{:02}:{:02}", days * 24 + g(5), g(6), g(7))
                } else {
                    format!("{sign}{:03}:{:02}:{:02}.{micros:06}", days * 24 + g(5), g(6), g(7))
                }
            }
            _ => {
                let len = lenenc(p, &mut i)? as usize;
                let s = String::from_utf8_lossy(p.get(i..i + len)?).into_owned();
                i += len;
                s
            }
        };
        out.push(Some(s));
    }
    Some(out)
}
