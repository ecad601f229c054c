//! Targets: one connection type over three wire protocols (MySQL's,
//! PostgreSQL's, embedded SQLite), whichever engine speaks them.
//!
//! Workloads write SQL once, with `?` placeholders, into a [`StatementSet`];
//! each protocol's client turns that into its own prepared statements (or
//! text queries when prepared statements are off). What differs between the
//! servers lives under src/db/: the clients, the SQL dialect, and each
//! engine's facts and screens (`engines`).
//!
//! Here: the connection ([`Conn`]) and how it is opened, reopened and
//! failed over. `statement.rs` the statements, `error.rs` the error classes,
//! `bulk.rs` the rows of a bulk load.

mod bulk;
mod cancel;
pub mod catalog;
mod chosen;
mod copies;
pub mod dialect;
pub mod digests;
mod encode;
pub mod engines;
pub mod environ;
mod error;
pub mod facts;
pub mod fast;
pub mod hosts;
pub mod measured;
mod mysql;
pub mod password;
mod postgres;
mod rows;
pub mod sharding;
mod sqlite;
mod statement;
mod tidb;
pub mod url;
mod vitess;
pub mod waits;

pub use bulk::{insert_statements, Cell, ColType, Column, LoadMode, Row, RowSource};
pub use dialect::{Dialect, FkPath, Procedural};
pub use encode::{date_text, decimal_text, dollar_params, interpolate, timestamp_text};
pub(crate) use encode::{push_date, push_decimal, push_int, push_scaled, push_timestamp};
pub use engines::Engine;
pub use error::{connect_error, sql_error, DbError, DbResult, ErrKind, IgnoreList, LOST_STATEMENT, MYSQL_IGNORE_DEFAULT, PGSQL_IGNORE_DEFAULT};
use error::{is_lost_statement, refused};
pub use facts::{DatasetTables, Server};
pub use rows::RowBuf;
use statement::classify_result;
pub use statement::{Class, Param, Statement, StatementSet, StmtId};

use engines::Identity;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

pub use url::{Protocol, SslMode, Target};

/// `--reconnect-timeout` by default: longer than a managed failover
/// (Patroni's default TTL is 30 s) takes to promote a standby.
pub const DEFAULT_RECONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Everything a client needs to open (and reopen) its connection.
#[derive(Clone, Debug)]
pub struct ConnConfig {
    pub target: Target,
    /// Server-side prepared statements (`--db-ps-mode=auto`) or text.
    pub prepared: bool,
    pub mysql_ignore: IgnoreList,
    pub pgsql_ignore: IgnoreList,
    /// SQL run on every new connection (BMK's session options).
    pub session_sql: Vec<String>,
    /// SQLite `PRAGMA busy_timeout` in ms.
    pub sqlite_busy_ms: u32,
    /// How long a client whose connection was lost keeps trying to open
    /// another before the run fails (`--reconnect-timeout`).
    pub reconnect_timeout: Duration,
    /// The engine the target's server is: set without a connection where
    /// one engine speaks the protocol, else by the first connection (the
    /// server's version), which [`identify`] opens before a workload is
    /// built, so that its SQL is the engine's.
    pub engine: OnceLock<&'static dyn Engine>,
    /// What the engine refuses as the sessions are set, read by the first
    /// connection that runs the workload's session settings.
    pub identity: OnceLock<Arc<Identity>>,
    /// The connections read whole tables (a consistency check): each runs
    /// the engine's `check_session` first.
    pub checking: bool,
    /// A connection that samples the server reads where its time goes
    /// (its waits) with its counters (`--server-time`).
    pub server_time: bool,
    /// Where the target server's build came from, when a sandbox started with a build of the
    /// user's choice serves it (`server start --version`, `--basedir`): recorded with the run.
    pub build: Option<String>,
    /// The pool a pooler sandbox on this machine serves the target with (`server start
    /// pgbouncer`): its program, mode and size, recorded with the run.
    pub pool: Option<String>,
    /// What the first connection to each address found in front of the server: a pooler or
    /// none, and whether it keeps prepared statements. Later connections of the run (each
    /// client's, and every reconnection under `-C` or `--reconnect`) take it from here instead
    /// of asking again: pgbench's `-C` costs the server no extra query either.
    pub poolers: Arc<std::sync::Mutex<Vec<PoolerSeen>>>,
}

/// A connection address (`host:port user database`) and the pooler found in front of it.
pub type PoolerSeen = (String, Option<fast::pg::Pooler>);

impl ConnConfig {
    pub fn new(target: Target) -> ConnConfig {
        let engine = OnceLock::new();
        if let Some(only) = engines::only(target.protocol) {
            let _ = engine.set(only);
        }
        ConnConfig {
            engine,
            target,
            prepared: true,
            mysql_ignore: IgnoreList::default_of(MYSQL_IGNORE_DEFAULT),
            pgsql_ignore: IgnoreList::default_of(PGSQL_IGNORE_DEFAULT),
            session_sql: vec![],
            sqlite_busy_ms: 5000,
            reconnect_timeout: DEFAULT_RECONNECT_TIMEOUT,
            identity: OnceLock::new(),
            checking: false,
            server_time: true,
            build: None,
            pool: None,
            poolers: Arc::default(),
        }
    }

    /// The same target, for connections that read whole tables.
    pub fn for_checks(&self) -> ConnConfig {
        ConnConfig { checking: true, ..self.clone() }
    }

    /// The engine of the target: the protocol's only one, or what its
    /// server said it is once a connection opened ([`identify`]). Asking
    /// before the server said, on a protocol several engines speak, is a
    /// bug (SQL built for the wrong engine): debug builds stop on it.
    pub fn engine(&self) -> &'static dyn Engine {
        debug_assert!(self.engine.get().is_some(), "the engine of {} was asked before its server said which it is: call db::identify first", self.target);
        self.presumed_engine()
    }

    /// The engine as far as it is known without a connection: what the
    /// server said, else the one a server of the protocol is taken for when
    /// it says nothing else. For what connects nowhere (`explain`) or
    /// could not connect (a snapshot that failed), never for SQL.
    pub fn presumed_engine(&self) -> &'static dyn Engine {
        self.engine.get().copied().unwrap_or_else(|| engines::recognized(self.target.protocol, ""))
    }

    /// The ignore list of the target's protocol.
    fn ignore(&self) -> Option<&IgnoreList> {
        match self.target.protocol {
            Protocol::Mysql => Some(&self.mysql_ignore),
            Protocol::Postgres => Some(&self.pgsql_ignore),
            Protocol::Sqlite => None,
        }
    }
}

/// Asks the target's server which engine it is, when several speak its
/// protocol, before anything builds SQL for it: the workloads take their
/// dialect from the engine this sets. One short connection; none where the
/// protocol has one engine.
pub async fn identify(cfg: &ConnConfig) -> crate::error::Result<&'static dyn Engine> {
    if let Some(e) = cfg.engine.get() {
        return Ok(*e);
    }
    let probe = Arc::new(ConnConfig { identity: OnceLock::new(), ..cfg.clone() });
    let mut c = Conn::open_bare(probe, Arc::new(StatementSet::default()), 0).await.map_err(|e| connect_error(&cfg.target, &e))?;
    let e = c.engine_of_server().await.map_err(|e| connect_error(&cfg.target, &e))?;
    c.close().await;
    let _ = cfg.engine.set(e);
    Ok(e)
}

enum Inner {
    My(mysql::MyConn),
    Pg(postgres::PgConn),
    MyFast(fast::my::MyFast),
    PgFast(fast::pg::PgFast),
    Lite(sqlite::LiteConn),
}

/// One client's connection. Owned by the client task: no pool, so prepared
/// statements survive between events.
pub struct Conn {
    inner: Inner,
    pub set: Arc<StatementSet>,
    cfg: Arc<ConnConfig>,
    /// Which host of a host list this connection uses: the client's
    /// number at first (round-robin), another host after a failover.
    host_index: usize,
    /// The client's number, which spreads failovers over the other hosts.
    client: usize,
    /// Set when the run ends: waits inside the client (a SQLite writer's
    /// turn) give up instead of holding the run open.
    stop: Option<Arc<AtomicBool>>,
    /// Set when the client has its worker thread to itself: the lean
    /// clients then block in recv(2) instead of suspending.
    block: Option<fast::Blocking>,
    /// Session settings this connection's user made beyond the target's
    /// (`keep`), and its statement time limit: a reconnect makes them again.
    kept: Vec<String>,
    timeout_ms: Option<u64>,
    /// This session's id on the server, once asked (see [`Conn::query_into_or_cancel`]).
    session_id: Option<String>,
    /// When the run's time is up, once it started, and the process's
    /// Ctrl-C flag (see [`Conn::query_into_or_cancel`]).
    ends: Option<(Option<std::time::Instant>, &'static AtomicBool)>,
}

impl Conn {
    /// A connection for a command's own statements (DDL, counts, loads,
    /// checks): no workload statements, client 0; a failure is the
    /// command's connect error.
    pub async fn admin(cfg: &Arc<ConnConfig>) -> crate::error::Result<Conn> {
        Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| connect_error(&cfg.target, &e))
    }

    pub async fn connect(cfg: Arc<ConnConfig>, set: Arc<StatementSet>, client: usize) -> DbResult<Conn> {
        let mut c = Self::open_bare(cfg, set, client).await?;
        c.identify().await?;
        let session: Vec<String> = c.cfg.session_sql.clone();
        for s in &session {
            c.query(s).await?;
        }
        if c.cfg.checking {
            for s in c.cfg.engine().deviations().map(|d| d.check_session()).unwrap_or_default() {
                c.query(s).await?;
            }
        }
        Ok(c)
    }

    /// A connection with nothing run on it yet: no engine asked, no session settings.
    async fn open_bare(cfg: Arc<ConnConfig>, set: Arc<StatementSet>, client: usize) -> DbResult<Conn> {
        Self::open_bare_on(cfg, set, client, client).await
    }

    /// [`Conn::open_bare`] starting at host `host` of the target's list.
    async fn open_bare_on(cfg: Arc<ConnConfig>, set: Arc<StatementSet>, host: usize, client: usize) -> DbResult<Conn> {
        let (inner, host_index) = Self::open_any(&cfg, host, client).await?;
        Ok(Conn { inner, set, cfg, host_index, client, stop: None, block: None, kept: Vec::new(), timeout_ms: None, session_id: None, ends: None })
    }

    /// Which engine the server is (once per target; a protocol that several
    /// engines speak asks the server's version).
    async fn engine_of_server(&mut self) -> DbResult<&'static dyn Engine> {
        if let Some(e) = self.cfg.engine.get() {
            return Ok(*e);
        }
        let version = self.query_strings("SELECT VERSION()").await?.into_iter().next().and_then(|r| r.into_iter().next().flatten()).unwrap_or_default();
        let e = engines::recognized(self.cfg.target.protocol, &version);
        // Clients connecting at once may each ask; they get the same answer.
        let _ = self.cfg.engine.set(e);
        Ok(e)
    }

    /// Learns which engine the server is, and refuses, before anything
    /// runs, a session setting or statement of the workload that the
    /// engine cannot run as the sessions are set.
    async fn identify(&mut self) -> DbResult<()> {
        let spec = self.engine_of_server().await?;
        let id = match self.cfg.identity.get() {
            Some(id) => id.clone(),
            None => {
                let session = self.cfg.session_sql.clone();
                let screen = match spec.deviations() {
                    Some(d) => d.screen(self, &session).await,
                    None => None,
                };
                let id = Arc::new(Identity { screen });
                let _ = self.cfg.identity.set(id.clone());
                id
            }
        };
        if let Some(screen) = &id.screen {
            let texts = self.cfg.session_sql.iter().chain(self.set.stmts.iter().map(|s| &s.sql));
            if let Some(why) = texts.filter_map(|t| screen(t)).next() {
                return Err(refused(why));
            }
        }
        Ok(())
    }

    /// Adds a statement to this connection's set after it opened (a
    /// script's `prepare`), screened as the set was at connect.
    pub fn add_statement(&mut self, sql: String, returns_rows: bool) -> DbResult<StmtId> {
        self.screened(&sql)?;
        Ok(Arc::make_mut(&mut self.set).add(sql, returns_rows))
    }

    /// A statement the engine refuses, said before it is sent.
    fn screened(&self, sql: &str) -> DbResult<()> {
        match self.cfg.identity.get().and_then(|i| i.screen.as_ref()).and_then(|s| s(sql)) {
            Some(why) => Err(refused(why)),
            None => Ok(()),
        }
    }

    /// Opens a connection to host `host_index`; when that host refuses it
    /// (down, not reachable) and the target lists several, the others in
    /// turn. The clients of one failed host start at different others
    /// (by client number), so they spread over the survivors instead of
    /// all landing on the next one. Returns the host that answered.
    async fn open_any(cfg: &ConnConfig, host_index: usize, client: usize) -> DbResult<(Inner, usize)> {
        if cfg.target.protocol == Protocol::Postgres {
            return Self::open_chosen(cfg).await;
        }
        let first = Self::open(cfg, host_index).await;
        let n = cfg.target.hosts.len();
        match first {
            Ok(c) => Ok((c, host_index)),
            Err(e) if e.kind == ErrKind::Connect && n > 1 && cfg.target.socket.is_none() => {
                let mut last = e;
                for h in failover_order(host_index % n, client, n) {
                    match Self::open(cfg, h).await {
                        Ok(c) => return Ok((c, h)),
                        Err(e) if e.kind == ErrKind::Connect => last = e,
                        Err(e) => return Err(e),
                    }
                }
                Err(last)
            }
            Err(e) => Err(e),
        }
    }

    async fn open(cfg: &ConnConfig, host_index: usize) -> DbResult<Inner> {
        Ok(match cfg.target.protocol {
            // The lean clients where they can serve this target exactly as
            // the drivers would; the drivers for everything else.
            Protocol::Mysql if fast::enabled() => match fast::my::MyFast::connect(cfg, host_index).await? {
                fast::Choice::Fast(c) => Inner::MyFast(c),
                fast::Choice::Fallback if fast::wire() == fast::Wire::Fast => return Err(fast::refused()),
                fast::Choice::Fallback => Inner::My(mysql::MyConn::connect(cfg, host_index).await?),
            },
            Protocol::Postgres if fast::enabled() => match fast::pg::PgFast::connect(cfg, host_index).await? {
                fast::Choice::Fast(c) => Inner::PgFast(c),
                fast::Choice::Fallback if fast::wire() == fast::Wire::Fast => return Err(fast::refused()),
                fast::Choice::Fallback => Inner::Pg(postgres::PgConn::connect(cfg, host_index).await?),
            },
            Protocol::Mysql => Inner::My(mysql::MyConn::connect(cfg, host_index).await?),
            Protocol::Postgres => Inner::Pg(postgres::PgConn::connect(cfg, host_index).await?),
            Protocol::Sqlite => Inner::Lite(sqlite::LiteConn::connect(cfg)?),
        })
    }

    pub fn protocol(&self) -> Protocol {
        self.cfg.target.protocol
    }

    /// The engine the server said it is (this connection asked, or one before it).
    pub fn engine(&self) -> &'static dyn Engine {
        self.cfg.engine()
    }

    /// A connection pooler answering for the server (PostgreSQL over the
    /// built-in client), found when the connection opened.
    pub fn pooler(&self) -> Option<fast::pg::Pooler> {
        match &self.inner {
            Inner::PgFast(c) => c.pooler(),
            _ => None,
        }
    }

    /// The position in the target's host list of the host this connection
    /// uses now (0 with a single host).
    pub fn host(&self) -> usize {
        self.host_index % self.cfg.target.hosts.len().max(1)
    }

    /// How many hosts the target lists.
    pub fn hosts(&self) -> usize {
        self.cfg.target.hosts.len()
    }

    /// How long a lost connection may take to come back (`--reconnect-timeout`).
    pub fn reconnect_timeout(&self) -> Duration {
        self.cfg.reconnect_timeout
    }

    /// A flag the runner sets when the run ends (deadline, Ctrl-C, a fatal
    /// error elsewhere): a client waiting for its turn to write stops waiting.
    pub fn stop_waits_on(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// When the run's time is up (None: no time limit) and the flag that
    /// Ctrl-C sets: a statement to be cancelled at the run's end
    /// ([`Conn::query_into_or_cancel`]) is cancelled at either.
    pub fn ends_at(&mut self, deadline: Option<std::time::Instant>, interrupt: &'static AtomicBool) {
        self.ends = Some((deadline, interrupt));
    }

    /// Asks the connection to wait on the server by blocking the thread,
    /// until `interrupt` (Ctrl-C) or one of `stops` is set, for a client
    /// alone on its worker thread. Only the lean clients can (the drivers'
    /// waits belong to the runtime): see [`Conn::blocks`].
    pub fn block_until(&mut self, stops: Vec<Arc<AtomicBool>>, interrupt: &'static AtomicBool) {
        self.block = Some(fast::Blocking { stops, interrupt });
        self.apply_blocking();
    }

    /// Whether calls complete without suspending (see [`Conn::block_until`]).
    pub fn blocks(&self) -> bool {
        self.block.is_some() && matches!(self.inner, Inner::MyFast(_) | Inner::PgFast(_))
    }

    /// Hands the connection's client the blocking wait, if it has one. A
    /// socket that refuses blocking mode keeps suspending (the socket
    /// undoes what it set), as the others do.
    fn apply_blocking(&mut self) {
        let r = match &mut self.inner {
            Inner::MyFast(c) => c.set_blocking(self.block.clone()),
            Inner::PgFast(c) => c.set_blocking(self.block.clone()),
            _ => Ok(()),
        };
        if r.is_err() {
            self.block = None;
        }
    }

    /// How long a SQLite writer waits for its turn before SQLITE_BUSY.
    fn turn_limit(&self) -> Duration {
        Duration::from_millis(self.cfg.sqlite_busy_ms as u64)
    }

    /// The connection must be renewed between statements: its TLS 1.2
    /// session nears the cipher's record limit (16.7 million records for
    /// AES-GCM), and TLS 1.2 has no key update. The general drivers renew
    /// nothing and say false.
    pub fn spent(&self) -> bool {
        match &self.inner {
            Inner::MyFast(c) => c.spent(),
            Inner::PgFast(c) => c.spent(),
            _ => false,
        }
    }

    /// Drop the connection and open a new one (statements are prepared again
    /// on first use).
    pub async fn reconnect(&mut self) -> DbResult<()> {
        let (inner, host) = Self::open_any(&self.cfg, self.host_index, self.client).await?;
        self.host_index = host;
        let old = std::mem::replace(&mut self.inner, inner);
        drop_inner(old).await;
        self.session_id = None;
        self.apply_blocking();
        let session: Vec<String> = self.cfg.session_sql.iter().chain(&self.kept).cloned().collect();
        for s in &session {
            self.query(s).await?;
        }
        if let Some(ms) = self.timeout_ms {
            self.set_statement_timeout(ms).await?;
        }
        Ok(())
    }

    /// Runs session setting `sql`, and again after every reconnect.
    pub async fn keep(&mut self, sql: &str) -> DbResult<()> {
        self.query(sql).await?;
        self.kept.push(sql.to_string());
        Ok(())
    }

    // The general drivers' futures are boxed in the per-statement calls:
    // they are many times the lean clients' size, and inline they would
    // size every caller's future, which is moved (copied) once per event.

    /// Run statement `id` of the set with `params`.
    pub async fn exec(&mut self, id: StmtId, params: &[Param<'_>]) -> DbResult<Class> {
        let st = self.set.get(id);
        let limit = self.turn_limit();
        let changed = match &mut self.inner {
            Inner::My(c) => Box::pin(c.exec(id, st, params, self.cfg.prepared)).await,
            Inner::Pg(c) => Box::pin(c.exec(id, st, params, self.cfg.prepared)).await,
            Inner::MyFast(c) => c.exec(id, st, params, self.cfg.prepared).await,
            Inner::PgFast(c) => c.exec(id, st, params, self.cfg.prepared).await,
            Inner::Lite(c) => {
                let turn = c.turn_for(id, st);
                c.take_turn(turn, self.stop.as_deref(), limit).await.and_then(|()| c.exec(id, st, params, self.cfg.prepared))
            }
        }
        .map_err(|e| self.classify(e))?;
        Ok(classify_result(st.returns_rows, changed))
    }

    /// The value an auto-increment column took in the last INSERT on this
    /// connection, where the protocol reports it with the statement's
    /// result (MySQL's OK packet, SQLite's rowid); None where it does not
    /// (PostgreSQL: the INSERT returns it, see [`Dialect::returning`]).
    pub fn last_insert_id(&self) -> Option<u64> {
        match &self.inner {
            Inner::MyFast(c) => Some(c.last_insert_id),
            Inner::My(c) => c.last_insert_id(),
            Inner::Lite(c) => Some(c.last_insert_id()),
            Inner::Pg(_) | Inner::PgFast(_) => None,
        }
    }

    /// The lean PostgreSQL client's session, which alone has pipeline mode; the one line for
    /// every other client.
    fn piped(&mut self) -> DbResult<&mut fast::pg::PgFast> {
        match &mut self.inner {
            Inner::PgFast(c) => Ok(c),
            _ => Err(DbError {
                kind: ErrKind::Fatal,
                code: String::new(),
                message: "pipeline mode needs PostgreSQL reached by fairbench's own client (not a MySQL or SQLite target, nor FAIRBENCH_WIRE=driver)".into(),
            }),
        }
    }

    /// Pipeline mode (pgbench's `\startpipeline`): the statements pushed until
    /// [`Conn::pipeline_end`] go out together, without waiting for each answer.
    pub fn pipeline_start(&mut self) -> DbResult<()> {
        self.piped()?.pipeline_start();
        Ok(())
    }

    pub async fn pipeline_push(&mut self, id: StmtId, params: &[Param<'_>]) -> DbResult<()> {
        let st = self.set.get(id);
        let r = match &mut self.inner {
            Inner::PgFast(c) => c.pipeline_push(id, st, params).await,
            _ => self.piped().map(drop),
        };
        r.map_err(|e| self.classify(e))
    }

    /// `\syncpipeline`.
    pub fn pipeline_sync(&mut self) -> DbResult<()> {
        self.piped()?.pipeline_sync();
        Ok(())
    }

    /// Sends what the pipeline holds and reads the answers: the class of each statement that
    /// completed, or the first error (classified as any statement's).
    pub async fn pipeline_end(&mut self) -> DbResult<Vec<Class>> {
        let r = self.piped()?.pipeline_end().await;
        let done = r.map_err(|e| self.classify(e))?;
        Ok(done.into_iter().map(|(rows, n)| classify_result(rows, n)).collect())
    }

    /// Run one text statement (BEGIN, COMMIT, session settings, DDL).
    pub async fn query(&mut self, sql: &str) -> DbResult<Class> {
        self.screened(sql)?;
        let limit = self.turn_limit();
        let r = match &mut self.inner {
            Inner::My(c) => Box::pin(c.query(sql)).await,
            Inner::Pg(c) => Box::pin(c.query(sql)).await,
            Inner::MyFast(c) => c.query(sql).await,
            Inner::PgFast(c) => c.query(sql).await,
            Inner::Lite(c) => {
                let turn = c.turn_for_sql(sql);
                c.take_turn(turn, self.stop.as_deref(), limit).await.and_then(|()| c.query(sql))
            }
        };
        let (rows, changed) = r.map_err(|e| self.classify(e))?;
        Ok(classify_result(rows, changed))
    }

    /// Run statement `id` and return its rows, every value as text (NULL as
    /// None): for workloads that act on what they read (TPC-C).
    pub async fn exec_rows(&mut self, id: StmtId, params: &[Param<'_>]) -> DbResult<Vec<Vec<Option<String>>>> {
        let st = self.set.get(id);
        let limit = self.turn_limit();
        let r = match &mut self.inner {
            Inner::My(c) => Box::pin(c.exec_rows(id, st, params, self.cfg.prepared)).await,
            Inner::Pg(c) => Box::pin(c.exec_rows(id, st, params, self.cfg.prepared)).await,
            Inner::MyFast(c) => c.exec_rows(id, st, params, self.cfg.prepared).await,
            Inner::PgFast(c) => c.exec_rows(id, st, params, self.cfg.prepared).await,
            Inner::Lite(c) => {
                let turn = c.turn_for(id, st);
                c.take_turn(turn, self.stop.as_deref(), limit).await.and_then(|()| c.exec_rows(st, params, self.cfg.prepared))
            }
        };
        r.map_err(|e| self.classify(e))
    }

    /// Run statement `id`, keeping its rows (if any) in `out` undecoded
    /// until they are read: for callers that may not read them (scripts).
    pub async fn exec_into(&mut self, id: StmtId, params: &[Param<'_>], out: &mut RowBuf) -> DbResult<Class> {
        let st = self.set.get(id);
        let limit = self.turn_limit();
        let prepared = self.cfg.prepared;
        let r = match &mut self.inner {
            Inner::MyFast(c) => c.exec_into(id, st, params, prepared, out).await,
            Inner::PgFast(c) => c.exec_into(id, st, params, prepared, out).await,
            Inner::My(c) => Box::pin(c.exec_rows(id, st, params, prepared)).await.map(|rows| decoded(out, rows)),
            Inner::Pg(c) => Box::pin(c.exec_rows(id, st, params, prepared)).await.map(|rows| decoded(out, rows)),
            Inner::Lite(c) => {
                let turn = c.turn_for(id, st);
                c.take_turn(turn, self.stop.as_deref(), limit).await.and_then(|()| c.exec_rows(st, params, prepared)).map(|rows| decoded(out, rows))
            }
        };
        let (rows, changed) = r.map_err(|e| self.classify(e))?;
        Ok(classify_result(rows || st.returns_rows, changed))
    }

    /// Run one text statement, keeping its rows (if any) in `out` undecoded.
    pub async fn query_into(&mut self, sql: &str, out: &mut RowBuf) -> DbResult<Class> {
        self.screened(sql)?;
        let limit = self.turn_limit();
        let r = match &mut self.inner {
            Inner::MyFast(c) => c.query_into(sql, out).await,
            Inner::PgFast(c) => c.query_into(sql, out).await,
            Inner::My(c) => Box::pin(c.query_rows(sql)).await.map(|rows| decoded(out, rows)),
            Inner::Pg(c) => Box::pin(c.query_rows(sql)).await.map(|rows| decoded(out, rows)),
            Inner::Lite(c) => {
                let turn = c.turn_for_sql(sql);
                c.take_turn(turn, self.stop.as_deref(), limit).await.and_then(|()| c.query_rows(sql)).map(|rows| decoded(out, rows))
            }
        };
        let (rows, changed) = r.map_err(|e| self.classify(e))?;
        Ok(classify_result(rows, changed))
    }

    /// What the connection was opened with.
    pub fn config(&self) -> &ConnConfig {
        &self.cfg
    }

    /// Caps this session's statements at `ms` milliseconds: the server
    /// cancels one that runs longer, and it fails with an error whose
    /// [`DbError::timed_out`] is true. An error when the server takes none
    /// of its engine's settings for it.
    pub async fn set_statement_timeout(&mut self, ms: u64) -> DbResult<()> {
        // Kept for a reconnect, which sets it again.
        self.timeout_ms = Some(ms);
        if let Inner::Lite(c) = &mut self.inner {
            return c.set_timeout(ms);
        }
        let mut last = None;
        for sql in self.engine().dialect().statement_timeout(ms) {
            match self.query(&sql).await {
                Ok(_) => return Ok(()),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| DbError { kind: ErrKind::Fatal, code: String::new(), message: format!("{} has no statement time limit", self.engine().name()) }))
    }

    /// Run a query and return the first column of every row as text.
    pub async fn query_strings(&mut self, sql: &str) -> DbResult<Vec<Vec<Option<String>>>> {
        let r = match &mut self.inner {
            Inner::My(c) => Box::pin(c.query_rows(sql)).await,
            Inner::Pg(c) => Box::pin(c.query_rows(sql)).await,
            Inner::MyFast(c) => c.query_rows(sql).await,
            Inner::PgFast(c) => c.query_rows(sql).await,
            Inner::Lite(c) => c.query_rows(sql),
        };
        r.map_err(|e| self.classify(e))
    }

    /// Fast bulk load of generated rows: binary COPY, LOAD DATA LOCAL or
    /// multi-row INSERT, batched SQLite transactions.
    /// A table the engine keeps a copy of on every shard gets the rows in
    /// each copy (copies.rs).
    pub async fn bulk_load(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize, mode: LoadMode) -> DbResult<u64> {
        if let Some(copies) = self.copies(table).await {
            return self.bulk_load_copies(&copies, table, cols, rows, bulk_rows, mode).await;
        }
        self.bulk_load_one(table, cols, rows, bulk_rows, mode).await
    }

    async fn bulk_load_one(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize, mode: LoadMode) -> DbResult<u64> {
        let mode = if mode == LoadMode::Auto && !self.cfg.engine().deviations().is_none_or(|d| d.loads_infile()) { LoadMode::Insert } else { mode };
        let r = match &mut self.inner {
            Inner::My(c) => c.bulk_load(table, cols, rows, bulk_rows, mode).await,
            Inner::Pg(c) if mode == LoadMode::Insert => c.bulk_insert(table, cols, rows, bulk_rows).await,
            Inner::Pg(c) => c.bulk_load(table, cols, rows).await,
            Inner::MyFast(c) => c.bulk_load(table, cols, rows, bulk_rows, mode).await,
            Inner::PgFast(c) if mode == LoadMode::Insert => c.bulk_insert(table, cols, rows, bulk_rows).await,
            Inner::PgFast(c) => c.bulk_load(table, cols, rows).await,
            Inner::Lite(c) => c.bulk_load(table, cols, rows, bulk_rows),
        };
        r.map_err(|e| self.classify(e))
    }

    pub async fn close(self) {
        drop_inner(self.inner).await;
    }

    fn classify(&self, mut e: DbError) -> DbError {
        if self.cfg.target.protocol == Protocol::Postgres && is_lost_statement(&e) {
            e.message = LOST_STATEMENT.into();
        }
        if e.kind == ErrKind::Fatal {
            let engine = self.cfg.engine();
            let again = |d: &dyn engines::Deviations| d.retryable().contains(&e.code.as_str()) || d.transient(&e.code, &e.message);
            let retry = self.cfg.ignore().is_some_and(|l| l.contains(&e.code) || (l.default && engine.deviations().is_some_and(again)));
            if retry {
                e.kind = ErrKind::Retryable;
            }
        }
        e
    }
}

/// The hosts other than `failed` of `n`, in the order client `client`
/// tries them: each client of a failed host starts at a different one.
fn failover_order(failed: usize, client: usize, n: usize) -> impl Iterator<Item = usize> {
    let others = n - 1;
    let start = (client / n) % others;
    (0..others).map(move |k| (failed + 1 + (start + k) % others) % n)
}

/// Rows a driver decoded, as the (rows, changed) of the lean clients.
fn decoded(out: &mut RowBuf, rows: Vec<Vec<Option<String>>>) -> (bool, u64) {
    let any = !rows.is_empty();
    out.set_decoded(rows);
    (any, 0)
}

async fn drop_inner(inner: Inner) {
    match inner {
        Inner::My(c) => c.close().await,
        Inner::Pg(c) => c.close(),
        Inner::MyFast(c) => c.close().await,
        Inner::PgFast(c) => c.close().await,
        Inner::Lite(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protocol_one_engine_speaks_needs_no_server_to_say_which() {
        let cfg = ConnConfig::new(Target::parse("sqlite:/tmp/x.db").unwrap());
        assert_eq!(cfg.engine.get().map(|e| e.name()), Some("sqlite"));
        let cfg = ConnConfig::new(Target::parse("postgres://u@h/db").unwrap());
        assert_eq!(cfg.engine().name(), "postgres");
        // MySQL's protocol is spoken by several engines: only the server can say.
        let cfg = ConnConfig::new(Target::parse("mysql://u@h/db").unwrap());
        assert!(cfg.engine.get().is_none());
        assert_eq!(cfg.presumed_engine().name(), "mysql");
    }

    /// The engine a workload builds its SQL for, asked before the server
    /// said which engine it is, would be the protocol's first (MySQL's
    /// dialect for TiDB and Vitess): every test that builds a workload for
    /// a MySQL-protocol server in a debug build stops on it.
    #[test]
    #[should_panic(expected = "before its server said which it is")]
    fn an_engine_asked_before_its_server_said_stops_a_debug_build() {
        let cfg = ConnConfig::new(Target::parse("mysql://u@h/db").unwrap());
        let _ = cfg.engine().dialect();
    }

    #[test]
    fn interpolation_quotes_text() {
        let mut s = String::new();
        interpolate("UPDATE t SET c=? WHERE id=?", &[Param::Text("a'b\\"), Param::Int(-5)], &mut s, true);
        assert_eq!(s, "UPDATE t SET c='a''b\\\\' WHERE id=-5");
        interpolate("x=?", &[Param::Text("a\\")], &mut s, false);
        assert_eq!(s, "x='a\\'");
    }

    #[test]
    fn dollar_rewrite() {
        assert_eq!(dollar_params("SELECT c FROM t WHERE id BETWEEN ? AND ?"), "SELECT c FROM t WHERE id BETWEEN $1 AND $2");
    }

    #[test]
    fn failover_spreads_a_failed_hosts_clients_over_the_others() {
        // Clients 2, 5, 8, 11 of 3 hosts use host 2; when it fails they go to 0, 1, 0, 1 first.
        let firsts: Vec<usize> = [2, 5, 8, 11].iter().map(|&c| failover_order(2, c, 3).next().unwrap()).collect();
        assert_eq!(firsts, vec![0, 1, 0, 1]);
        let all: Vec<usize> = failover_order(1, 4, 4).collect();
        assert_eq!(all, vec![3, 0, 2]);
        assert_eq!(failover_order(0, 0, 2).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn ignore_list() {
        let l = IgnoreList::parse("1213, 1205");
        assert!(l.contains("1213") && !l.contains("1062"));
        assert!(IgnoreList::parse("all").contains("anything"));
        assert!(!IgnoreList::parse("none").contains("1213"));
    }
}
