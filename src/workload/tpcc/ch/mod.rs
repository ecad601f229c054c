//! CH-benCHmark: TPC-C's transactions and 22 analytic queries over the
//! same tables at once, the queries in streams of their own beside the
//! TPC-C clients. A run has two levels: TPC-C alone (`--alone-phase`,
//! default on), then the mixed phase with the analytic streams; what the
//! queries cost the transactions is the difference between the two.
//!
//! The TPC-C clients are the first `--threads` clients (10 per warehouse
//! with `--terminals spec`), each running TPC-C exactly as the tpcc
//! workload does, open loop with `--rate`; the analytic streams are the
//! clients after them, each running its queries back to back (stream k
//! starts at the k-th query, as go-tpc's streams do), in a read-only
//! transaction that first reads every district's next order id: the
//! query's freshness (freshness.rs).

mod figures;
pub mod freshness;
pub mod options;
pub mod queries;
pub mod tables;

use super::{Tpcc, TpccClient, KINDS as TPCC_KINDS};
use crate::db::{Class, Conn, ConnConfig, DbResult, ErrKind, RowBuf, StatementSet};
use crate::error::Result;
use crate::workload::common::{query_error, QueryError};
use crate::workload::{Checked, Counters, Dataset, TableState};
use crate::workload::{Levels, Workload};
use freshness::{CommitLog, Sample};
use options::ChArgs;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tables::ChNames;

pub const NAME: &str = "ch";

/// TPC-C's five transactions, then the 22 queries.
pub const KINDS: [&str; 27] = [
    "new_order",
    "payment",
    "order_status",
    "delivery",
    "stock_level",
    "Q1",
    "Q2",
    "Q3",
    "Q4",
    "Q5",
    "Q6",
    "Q7",
    "Q8",
    "Q9",
    "Q10",
    "Q11",
    "Q12",
    "Q13",
    "Q14",
    "Q15",
    "Q16",
    "Q17",
    "Q18",
    "Q19",
    "Q20",
    "Q21",
    "Q22",
];

/// The two phases, each a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Alone,
    Mixed,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Alone => "tpcc-alone",
            Phase::Mixed => "mixed",
        }
    }
}

/// What the TPC-C-alone phase measured, for the mixed phase's comparison.
#[derive(Clone, Copy, Debug)]
struct Alone {
    tpmc: f64,
    new_order_p95_ms: f64,
}

#[derive(Default)]
struct Current {
    phase: Option<Phase>,
    /// Analytic queries that completed.
    done: u64,
    /// Those cancelled at the time limit, named with their stream.
    timed_out: Vec<String>,
    /// Those cancelled on the server as the phase ended, likewise.
    cut: Vec<String>,
    samples: Vec<Sample>,
    alone: Option<Alone>,
    figures: Vec<(String, String)>,
}

pub struct Ch {
    pub tpcc: Tpcc,
    args: ChArgs,
    queries: Vec<u8>,
    names: Vec<ChNames>,
    /// Clients running TPC-C; the analytic streams come after them.
    pub terminals: usize,
    /// Where the analytic streams run when not on the target.
    analytic: Option<Arc<ConnConfig>>,
    /// The phases, once each.
    phases: Vec<Phase>,
    /// Each level's phase, in the order the run takes them (with
    /// `--repeat`, each phase again, interleaved or grouped).
    order: Vec<Phase>,
    /// Seconds a phase lasts when the workload ends it itself (with
    /// `--analytic-rounds`, the run has no time limit of its own).
    phase_secs: Option<f64>,
    query_timeout: f64,
    log: Arc<CommitLog>,
    streams_done: AtomicUsize,
    /// Queries the engine refused, with its reason (kept for the whole run).
    refused: Mutex<std::collections::BTreeMap<u8, String>>,
    current: Mutex<Current>,
}

pub struct StreamClient {
    stream: usize,
    /// The query of the event under way, run again when the event is retried.
    pending: Option<u8>,
    /// Times it was sent.
    attempts: u32,
    /// Index into the dataset names.
    ds: usize,
    next: usize,
    rounds: u32,
    rows: RowBuf,
    in_trx: bool,
}

impl StreamClient {
    /// Query `query` of this stream as the figures name it.
    fn named(&self, query: u8) -> String {
        format!("Q{query} (stream {})", self.stream + 1)
    }
}

pub enum ChClient {
    Terminal(Box<TpccClient>),
    Stream(Box<StreamClient>),
}

impl Ch {
    pub fn new(tpcc: Tpcc, args: ChArgs, terminals: usize, analytic: Option<Arc<ConnConfig>>, query_timeout: f64) -> std::result::Result<Ch, String> {
        let queries = crate::workload::common::query_numbers(&args.analytic_queries)?;
        let names = tpcc.names.iter().map(ChNames::new).collect();
        let log = Arc::new(CommitLog::new(tpcc.datasets, tpcc.warehouses));
        let _ = tpcc.commits.set(log.clone());
        let phases = if args.alone_phase { vec![Phase::Alone, Phase::Mixed] } else { vec![Phase::Mixed] };
        Ok(Ch {
            tpcc,
            args,
            queries,
            names,
            terminals,
            analytic,
            order: phases.clone(),
            phases,
            phase_secs: None,
            query_timeout,
            log,
            streams_done: AtomicUsize::new(0),
            refused: Mutex::default(),
            current: Mutex::default(),
        })
    }

    pub fn streams(&self) -> usize {
        self.args.analytic_streams as usize
    }

    /// Clients of each phase.
    pub fn levels(&self) -> Vec<usize> {
        self.phases.iter().map(|p| self.terminals + if *p == Phase::Mixed { self.streams() } else { 0 }).collect()
    }

    /// The levels' phases when the run repeats each `repeat` times.
    pub fn repeat(&mut self, repeat: usize, interleaved: bool) {
        let r = repeat.max(1);
        self.order = if interleaved { (0..r).flat_map(|_| self.phases.iter().copied()).collect() } else { self.phases.iter().flat_map(|&p| std::iter::repeat_n(p, r)).collect() };
    }

    /// With `--analytic-rounds` the phases end on their own: the run's
    /// time is then each TPC-C-alone phase's length.
    pub fn rounds_end_phases(&mut self, secs: f64) {
        self.phase_secs = Some(secs);
    }

    pub fn rounds(&self) -> u32 {
        self.args.analytic_rounds
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn phase(&self) -> Phase {
        self.lock().phase.unwrap_or(Phase::Mixed)
    }

    /// Whether the TPC-C clients are done: every stream has run its
    /// rounds, or the phase has run its time (both only with
    /// `--analytic-rounds`; otherwise the run's time ends the phase).
    fn terminals_done(&self) -> bool {
        let Some(secs) = self.phase_secs else { return false };
        match self.phase() {
            Phase::Mixed => self.streams_done.load(Ordering::Relaxed) >= self.streams(),
            Phase::Alone => {
                let start = *self.tpcc.shared.start.lock().unwrap_or_else(|e| e.into_inner());
                start.is_some_and(|s| s.elapsed().as_secs_f64() >= secs)
            }
        }
    }

    /// The stream's next query, skipping those the engine refused; None
    /// when the stream has run its rounds (or every query was refused).
    fn next_query(&self, s: &mut StreamClient) -> Option<u8> {
        let refused = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        for _ in 0..self.queries.len() {
            if self.args.analytic_rounds > 0 && s.rounds >= self.args.analytic_rounds {
                return None;
            }
            let query = self.queries[(s.stream + s.next) % self.queries.len()];
            s.next += 1;
            if s.next.is_multiple_of(self.queries.len()) {
                s.rounds += 1;
                if self.args.analytic_rounds > 0 && s.rounds == self.args.analytic_rounds {
                    self.streams_done.fetch_add(1, Ordering::Relaxed);
                }
            }
            if !refused.contains_key(&query) {
                return Some(query);
            }
        }
        None
    }

    async fn analytic_event(&self, conn: &mut Conn, s: &mut StreamClient, q: &mut Counters, retry: bool) -> DbResult<()> {
        // A retried event runs the query that failed again.
        let pending = if retry { s.pending } else { None };
        if pending.is_none() {
            s.attempts = 0;
        }
        let Some(query) = pending.or_else(|| self.next_query(s)) else {
            q.ended = true;
            return Ok(());
        };
        s.pending = Some(query);
        s.attempts += 1;
        q.kind = TPCC_KINDS.len() + query as usize - 1;
        let names = &self.names[s.ds];
        let dialect = self.tpcc.engine.dialect();
        let sql = queries::sql(query, names, dialect);
        let began = Instant::now();
        if self.in_transaction() {
            s.in_trx = true;
            q.add(conn.query(dialect.begin_snapshot()).await?);
            q.trx += 2;
        }
        let next_ids: Vec<(i64, i64, i64)> = conn
            .query_strings(&format!("SELECT d_w_id, d_id, d_next_o_id FROM {}", names.tpcc.district))
            .await?
            .iter()
            .filter_map(|r| {
                let n = |i: usize| r.get(i).cloned().flatten().and_then(|v| v.trim().parse::<i64>().ok());
                Some((n(0)?, n(1)?, n(2)?))
            })
            .collect();
        q.add(Class::Read);
        // The phase's end cancels a query in flight on the server: a run's
        // time holds, and no query outlives it into the next phase or run.
        match conn.query_into_or_cancel(&sql, &mut s.rows).await {
            Ok(c) => {
                q.add(c);
                if std::mem::take(&mut s.in_trx) {
                    q.add(conn.query("COMMIT").await?);
                }
                s.pending = None;
                let mut cur = self.lock();
                cur.done += 1;
                if let Some(sample) = self.log.sample(names.tpcc.n, began, &next_ids) {
                    cur.samples.push(sample);
                }
                return Ok(());
            }
            Err(e) if e.kind == ErrKind::Stopped => {
                self.lock().cut.push(s.named(query));
                return Err(e);
            }
            Err(e) => match query_error(&e, s.attempts) {
                QueryError::Runner => return Err(e),
                QueryError::TimedOut => self.lock().timed_out.push(s.named(query)),
                // Said once, and skipped from then on by every stream.
                QueryError::Refused(reason) => {
                    self.refused.lock().unwrap_or_else(|e| e.into_inner()).entry(query).or_insert(reason);
                }
            },
        }
        q.errors += 1;
        s.pending = None;
        if std::mem::take(&mut s.in_trx) {
            let _ = conn.query("ROLLBACK").await;
        }
        Ok(())
    }

    /// Whether a query and the read of the districts' next order ids share
    /// a read-only transaction (one snapshot): not where the engine
    /// streams long reads only outside one (then each reads its own).
    fn in_transaction(&self) -> bool {
        self.tpcc.engine.deviations().is_none_or(|d| d.whole_reads_in_transactions())
    }

    /// What an analytic session runs first: the engine's settings for reads of whole tables.
    fn analytic_session(&self) -> &'static [&'static str] {
        self.tpcc.engine.deviations().map_or(&[], |d| d.check_session())
    }

    /// Where the analytic side ran, as recorded: the same server, or
    /// elsewhere (the audit tells such runs apart).
    fn analytic_side(&self) -> &'static str {
        if self.analytic.is_some() {
            "elsewhere"
        } else {
            "target"
        }
    }
}

impl Workload for Ch {
    type Client = ChClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.tpcc.statements()
    }

    fn new_client(&self, id: usize, _clients: usize) -> ChClient {
        if id < self.terminals {
            return ChClient::Terminal(Box::new(self.tpcc.new_client(id, self.terminals)));
        }
        let stream = id - self.terminals;
        ChClient::Stream(Box::new(StreamClient { stream, pending: None, attempts: 0, ds: stream % self.names.len(), next: 0, rounds: 0, rows: RowBuf::default(), in_trx: false }))
    }

    async fn client_init(&self, conn: &mut Conn, c: &mut ChClient) -> DbResult<()> {
        if !matches!(c, ChClient::Stream(_)) {
            return Ok(());
        }
        for sql in self.analytic_session() {
            conn.keep(sql).await?;
        }
        if self.query_timeout > 0.0 {
            conn.set_statement_timeout((self.query_timeout * 1000.0).round().max(1.0) as u64).await?;
        }
        Ok(())
    }

    /// The analytic streams connect to the analytic target when given
    /// (with none of TPC-C's statements: a standby prepares no writes).
    fn client_target(&self, id: usize) -> Option<(Arc<ConnConfig>, Arc<StatementSet>)> {
        let to = self.analytic.as_ref().filter(|_| id >= self.terminals)?;
        Some((to.clone(), Arc::new(StatementSet::default())))
    }

    /// The analytic streams run back to back whatever the TPC-C clients' rate.
    fn paced(&self, id: usize, _clients: usize) -> bool {
        id < self.terminals
    }

    async fn event(&self, conn: &mut Conn, c: &mut ChClient, q: &mut Counters, retry: bool) -> DbResult<()> {
        match c {
            ChClient::Terminal(t) => {
                if self.terminals_done() {
                    q.ended = true;
                    return Ok(());
                }
                self.tpcc.event(conn, t, q, retry).await
            }
            ChClient::Stream(s) => self.analytic_event(conn, s, q, retry).await,
        }
    }

    async fn after_error(&self, conn: &mut Conn, c: &mut ChClient) {
        match c {
            ChClient::Terminal(t) => self.tpcc.after_error(conn, t).await,
            ChClient::Stream(s) => {
                if std::mem::take(&mut s.in_trx) {
                    let _ = conn.query("ROLLBACK").await;
                }
            }
        }
    }

    fn kinds(&self) -> &'static [&'static str] {
        &KINDS
    }

    fn label(&self, cfg: &ConnConfig) -> String {
        format!("{}-{}AS", self.tpcc.label(cfg).replacen("TPCC", "CH", 1), self.streams())
    }

    fn options(&self, cfg: &ConnConfig) -> Vec<(String, String)> {
        let mut v = self.tpcc.options(cfg);
        let mut own = crate::workload::args_options(&self.args);
        // The analytic target's URL may hold a password: where it ran is what compares.
        own.retain(|(k, _)| k != "analytic-target");
        own.push(("analytic-side".into(), self.analytic_side().into()));
        own.push(("query-timeout".into(), self.query_timeout.to_string()));
        crate::workload::add_missing(&mut v, own);
        v
    }
}

impl crate::workload::Witnessed for Ch {}

impl Dataset for Ch {
    fn dataset_tables(&self) -> crate::env::DatasetTables {
        match self.tpcc.dataset_tables() {
            crate::env::DatasetTables::Names(mut v) => {
                v.extend(self.names.iter().flat_map(|n| n.tables().map(str::to_string)));
                crate::env::DatasetTables::Names(v)
            }
            other => other,
        }
    }

    /// TPC-C's tables as TPC-C shards them; supplier, nation and region,
    /// small and read by every query, whole on every shard.
    fn sharding(&self) -> crate::db::sharding::ShardPlan {
        use crate::db::sharding::{Key, Sharding};
        let mut plan = self.tpcc.sharding();
        for n in &self.names {
            plan.tables.extend([
                Sharding::reference(n.supplier.clone(), Key::int("s_suppkey")),
                Sharding::reference(n.nation.clone(), Key::int("n_nationkey")),
                Sharding::reference(n.region.clone(), Key::int("r_regionkey")),
            ]);
        }
        plan
    }

    async fn table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        let state = self.tpcc.table_state(cfg).await?;
        if state != TableState::Ready && !matches!(state, TableState::Larger(_)) {
            return Ok(state);
        }
        let mut conn = self.tpcc.admin(cfg).await?;
        let mut problem = None;
        for n in &self.names {
            if problem.is_none() {
                problem = tables::problem(&mut conn, n).await;
            }
        }
        conn.close().await;
        Ok(problem.map_or(state, TableState::Mismatch))
    }

    /// The three small tables first, right after the tables' layout is set
    /// on a sharded target (a minute of TPC-C's load later, another client
    /// of the cluster may have rewritten it), then TPC-C's.
    async fn prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let mut conn = self.tpcc.admin(&cfg).await?;
        for n in &self.names {
            tables::prepare(&mut conn, n, self.tpcc.engine.dialect(), &table_tail(&self.tpcc.schema.tail), quiet).await?;
        }
        conn.close().await;
        self.tpcc.prepare(cfg, threads, quiet).await
    }

    async fn cleanup(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let mut conn = self.tpcc.admin(&cfg).await?;
        for n in &self.names {
            tables::drop(&mut conn, n, self.tpcc.engine.dialect()).await?;
        }
        conn.close().await;
        self.tpcc.cleanup(cfg, threads, quiet).await
    }

    async fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        self.tpcc.prewarm(cfg, quiet).await
    }
}

impl Checked for Ch {
    /// TPC-C's conditions, then CH-benCHmark's tables.
    async fn check(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        self.tpcc.check(cfg.clone(), quiet).await?;
        let mut conn = self.tpcc.admin(&cfg).await?;
        let mut failed = Vec::new();
        for n in &self.names {
            if let Some(p) = tables::problem(&mut conn, n).await {
                failed.push(p);
            }
        }
        conn.close().await;
        if !quiet && failed.is_empty() {
            println!("CH-benCHmark tables: supplier, nation and region hold dbgen's {}, {} and {} rows", tables::ROWS[0], tables::ROWS[1], tables::ROWS[2]);
        }
        crate::workload::check_verdict("CH-benCHmark", &failed, "; ", true)
    }
}

impl Levels for Ch {
    fn level_name(&self, round: usize) -> Option<String> {
        self.order.get(round).map(|p| p.name().to_string())
    }

    fn plan_note(&self) -> Option<String> {
        let side = match &self.args.analytic_target {
            Some(url) => format!(" on {}", crate::db::url::mask_url(url)),
            None => String::new(),
        };
        let end = if self.args.analytic_rounds > 0 { format!("until each stream has run its queries {} time(s)", self.args.analytic_rounds) } else { "for the run's time".to_string() };
        let alone = if self.args.alone_phase { "TPC-C alone, then " } else { "" };
        Some(format!("Plan: CH-benCHmark: {alone}TPC-C with {} analytic stream(s){side} of {} queries, {end}", self.streams(), self.queries.len()))
    }

    async fn run_started(&self, cfg: &Arc<ConnConfig>, rc: &crate::model::RunControl) -> Result<()> {
        self.tpcc.run_started(cfg, rc).await?;
        let phase = self.order.get(rc.round).copied().unwrap_or(Phase::Mixed);
        if let Some(secs) = self.phase_secs {
            // Spec-mode waits end with the phase, which the run's clock does not end.
            let len = if phase == Phase::Alone { Duration::from_secs_f64(secs) } else { Duration::ZERO };
            *self.tpcc.shared.run_len.lock().unwrap_or_else(|e| e.into_inner()) = Some(len);
        }
        self.streams_done.store(0, Ordering::Relaxed);
        let mut cur = self.lock();
        cur.phase = Some(phase);
        cur.samples.clear();
        cur.timed_out.clear();
        cur.cut.clear();
        cur.done = 0;
        Ok(())
    }

    async fn run_finished(&self, cfg: &Arc<ConnConfig>, r: &crate::model::LevelResult) -> Result<()> {
        self.tpcc.run_finished(cfg, r).await?;
        let mut cur = self.lock();
        let phase = cur.phase.take().unwrap_or(Phase::Mixed);
        let analytic = figures::Analytic {
            streams: self.streams(),
            done: cur.done,
            samples: std::mem::take(&mut cur.samples),
            timed_out: std::mem::take(&mut cur.timed_out),
            cut: std::mem::take(&mut cur.cut),
            refused: self.refused.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(q, why)| format!("Q{q}: {why}")).collect(),
        };
        let alone = cur.alone;
        let (figures, measured) = figures::level(phase, r, &analytic, alone.as_ref());
        if phase == Phase::Alone {
            cur.alone = Some(measured);
        }
        cur.figures = figures;
        Ok(())
    }

    fn level_figures(&self) -> Vec<(String, String)> {
        std::mem::take(&mut self.lock().figures)
    }
}

/// Table options as they follow CREATE TABLE (...).
fn table_tail(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!(" {tail}")
    }
}
