//! The Insert Benchmark (Small Datum's iibench.py and its driver scripts):
//! one run is a sequence of steps, each a level of its own named after the
//! step: `l.i0` loads the tables in key order without secondary indexes,
//! `l.x` adds the three indexes, `l.i1` and `l.i2` insert in batches of 50
//! and 5 rows while a deleter removes as many of the oldest rows (the
//! tables keep their size), and `qrN`/`qpN` run range or point queries
//! while a writer per client inserts and deletes N rows a second; whether
//! the writers kept that rate is part of the step's report.
//!
//! An event is one insert batch (load steps), the index build (l.x) or one
//! query (query steps), so a step's throughput and latencies are those of
//! its own operation, as Small Datum reports them.

pub mod family;
pub mod lane;
pub mod load;
pub mod options;
pub mod output;
pub mod settle;
pub mod sql;
pub mod step;

use crate::db::Engine;
use crate::db::{Conn, ConnConfig, DbResult, Dialect, Param, StatementSet, StmtId};
use crate::rand::Rng;
use lane::{Current, Writer};
pub use options::IbenchArgs;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use step::Step;

pub const NAME: &str = "insert-benchmark";

/// The part of the workload its writers share.
pub struct Shape {
    pub args: IbenchArgs,
    pub engine: &'static dyn Engine,
    pub tables: Vec<String>,
    pub clients: usize,
    pub seed: u64,
}

impl Shape {
    pub fn dialect(&self) -> &'static dyn Dialect {
        self.engine.dialect()
    }

    /// The table client `id` writes and reads.
    pub fn table_of(&self, id: usize) -> &str {
        &self.tables[id % self.tables.len()]
    }

    /// Whether client `id` owns its table (creates it, builds its indexes).
    pub fn owns(&self, id: usize) -> bool {
        id < self.tables.len()
    }

    pub fn deletes(&self) -> bool {
        self.args.delete_per_insert
    }

    pub fn rng(&self, stream: u64) -> Rng {
        Rng::from_seed_or_entropy(self.seed, stream)
    }

    /// Rows l.i1 and l.i2 insert together, over all clients.
    pub fn change_total(&self) -> u64 {
        self.args.change_rows.unwrap_or(self.args.rows.saturating_mul(2))
    }

    /// Rows l.i1 or l.i2 inserts over all clients.
    pub fn change_rows(&self, step: Step) -> u64 {
        let total = self.change_total();
        match step {
            Step::Change { batch: 5 } => total / 5,
            _ => total - total / 5,
        }
    }

    /// Batches each client (a query step's writer) writes in `step`:
    /// its share of the step's rows, every batch full, as iibench.py rounds.
    pub fn batches(&self, step: Step) -> u64 {
        let per_client = match step {
            Step::Load => self.args.rows / self.clients as u64,
            Step::Index => step::LOAD_BATCH as u64,
            Step::Change { .. } => self.change_rows(step) / self.clients as u64,
            Step::Query { rate, .. } => (self.args.query_secs * rate as f64).round() as u64,
        };
        per_client.div_ceil(step.batch() as u64).max(1)
    }
}

/// A table's query statements.
#[derive(Clone, Copy, Debug)]
struct TableStmts {
    ranges: [StmtId; 3],
    point: StmtId,
    max: StmtId,
}

pub struct Ibench {
    shape: Arc<Shape>,
    steps: Vec<Step>,
    set: Arc<StatementSet>,
    st: Vec<TableStmts>,
    /// What CREATE TABLE ends with (engine, options).
    pub table_tail: String,
    /// The step now running, and its writers.
    current: Mutex<Option<(Arc<Current>, Vec<Writer>)>>,
    /// The figures of the step that ended last.
    figures: Mutex<Vec<(String, String)>>,
}

pub struct IbClient {
    id: usize,
    rng: Rng,
    cur: Option<Arc<Current>>,
    sql: String,
    /// Batches written (load steps), or the l.x stage.
    done: u64,
    queries: u64,
    max_id: i64,
    /// A point query's ids, kept between events so that none allocates.
    params: Vec<Param<'static>>,
}

impl Ibench {
    pub fn new(args: IbenchArgs, steps: Vec<Step>, clients: usize, engine: &'static dyn Engine, seed: u64) -> Ibench {
        let tables: Vec<String> = (1..=if args.one_table { 1 } else { clients }).map(|n| format!("{}{n}", args.ibench_table)).collect();
        let mut set = StatementSet::default();
        let d = engine.dialect();
        let st = tables
            .iter()
            .map(|t| {
                let [a, b, c] = sql::range_queries(d, t, args.rows_per_query);
                TableStmts {
                    ranges: [set.add(a, true), set.add(b, true), set.add(c, true)],
                    point: set.add(sql::point_query(t, args.rows_per_query), true),
                    max: set.add(format!("SELECT MAX(transactionid) FROM {t}"), true),
                }
            })
            .collect();
        let shape = Arc::new(Shape { args, engine, tables, clients, seed });
        Ibench { shape, steps, set: Arc::new(set), st, table_tail: String::new(), current: Mutex::new(None), figures: Mutex::new(Vec::new()) }
    }

    /// Small Datum settles after l.i2, before the query steps.
    fn settles_after(&self, step: Step) -> bool {
        let mut later = self.steps.iter().skip_while(|s| **s != step).skip(1);
        self.shape.args.settle && step == (Step::Change { batch: 5 }) && later.any(|s| matches!(s, Step::Query { .. }))
    }

    fn lock_current(&self) -> std::sync::MutexGuard<'_, Option<(Arc<Current>, Vec<Writer>)>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn insert(&self, conn: &mut Conn, c: &mut IbClient, q: &mut crate::workload::Counters, rows: u32) -> DbResult<()> {
        sql::insert_batch(&mut c.sql, self.shape.table_of(c.id), rows, &self.shape.args, &mut c.rng, &sql::timestamp());
        q.add(conn.query(&c.sql).await?);
        Ok(())
    }

    async fn query(&self, conn: &mut Conn, c: &mut IbClient, q: &mut crate::workload::Counters, point: bool, cur: &Current) -> DbResult<()> {
        let a = &self.shape.args;
        let st = self.st[c.id % self.st.len()];
        if point {
            if c.queries.is_multiple_of(100) {
                let rows = conn.exec_rows(st.max, &[]).await?;
                c.max_id = rows.first().and_then(|r| r.first().cloned().flatten()).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
            }
            let min = cur.lanes[c.id].min_id.load(Ordering::Relaxed).max(1);
            let hi = (c.max_id - 1).max(min);
            c.params.clear();
            for _ in 0..a.rows_per_query {
                c.params.push(Param::Int(c.rng.uniform(min as u64, hi as u64) as i64));
            }
            q.add(conn.exec(st.point, &c.params).await?);
        } else {
            let which = c.rng.uniform(0, 2) as usize;
            let top = [a.products, a.cashregisters, a.max_price][which] as u64;
            let v = c.rng.uniform(0, top - 1) as i64;
            q.add(conn.exec(st.ranges[which], &[Param::Int(v)]).await?);
        }
        c.queries += 1;
        Ok(())
    }
}

impl crate::workload::Checked for Ibench {}

impl crate::workload::Workload for Ibench {
    type Client = IbClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.set.clone()
    }

    fn new_client(&self, id: usize, _clients: usize) -> IbClient {
        let cur = self.lock_current().as_ref().map(|(c, _)| c.clone());
        IbClient { id, rng: self.shape.rng(id as u64), cur, sql: String::new(), done: 0, queries: 0, max_id: 0, params: Vec::new() }
    }

    /// l.i0 (re)creates each client's table before the clients start, as
    /// iibench.py's `--setup` does.
    async fn client_init(&self, conn: &mut Conn, c: &mut IbClient) -> DbResult<()> {
        if c.cur.as_ref().is_some_and(|cur| cur.step == Step::Load) && self.shape.owns(c.id) {
            for s in sql::setup_table(self.shape.dialect(), self.shape.table_of(c.id), &self.table_tail) {
                conn.query(&s).await?;
            }
        }
        Ok(())
    }

    async fn event(&self, conn: &mut Conn, c: &mut IbClient, q: &mut crate::workload::Counters, _retry: bool) -> DbResult<()> {
        let Some(cur) = c.cur.clone() else {
            q.ended = true;
            return Ok(());
        };
        if cur.failed.load(Ordering::Relaxed) {
            q.ended = true;
            return Ok(());
        }
        match cur.step {
            Step::Load | Step::Change { .. } => {
                if c.done >= cur.batches {
                    q.ended = true;
                    return Ok(());
                }
                if matches!(cur.step, Step::Change { .. }) && self.shape.deletes() {
                    match lane::wait_for_deletes(&cur, c.id).await {
                        Some(us) => q.waited_us += us,
                        None => {
                            q.ended = true;
                            return Ok(());
                        }
                    }
                }
                self.insert(conn, c, q, cur.step.batch()).await?;
                c.done += 1;
                cur.lanes[c.id].add_insert();
            }
            // Its batch of rows, then (the table's owner) the indexes.
            Step::Index => match c.done {
                0 => {
                    self.insert(conn, c, q, step::LOAD_BATCH).await?;
                    c.done = 1;
                }
                1 if self.shape.owns(c.id) => {
                    for s in sql::create_indexes(self.shape.dialect(), self.shape.table_of(c.id)) {
                        q.add(conn.query(&s).await?);
                    }
                    c.done = 2;
                }
                _ => q.ended = true,
            },
            Step::Query { point, .. } => {
                if cur.lanes[c.id].done.load(Ordering::Acquire) || cur.stopping() {
                    q.ended = true;
                    return Ok(());
                }
                self.query(conn, c, q, point, &cur).await?;
            }
        }
        Ok(())
    }

    async fn after_error(&self, _conn: &mut Conn, _c: &mut IbClient) {}

    fn label(&self, _cfg: &ConnConfig) -> String {
        NAME.to_string()
    }

    fn options(&self, cfg: &ConnConfig) -> Vec<(String, String)> {
        let mut v = crate::workload::args_options(&self.shape.args);
        v.push(("clients".into(), self.shape.clients.to_string()));
        v.push(("db-ps-mode".into(), if cfg.prepared { "auto" } else { "disable" }.into()));
        v.push(("transport".into(), cfg.target.transport().to_string()));
        if self.shape.args.change_rows.is_none() {
            v.push(("change-rows".into(), self.shape.change_total().to_string()));
        }
        v
    }
}

impl crate::workload::Witnessed for Ibench {}

impl crate::workload::Levels for Ibench {
    fn level_name(&self, round: usize) -> Option<String> {
        self.steps.get(round).map(Step::name)
    }

    fn plan_note(&self) -> Option<String> {
        let a = &self.shape.args;
        let names: Vec<String> = self.steps.iter().map(Step::name).collect();
        let queries = self.steps.iter().filter(|s| matches!(s, Step::Query { .. })).count();
        let settle = self.steps.iter().any(|s| self.settles_after(*s)).then(|| a.settle_secs.unwrap_or_else(|| settle::default_secs(a.rows)));
        let mut what = vec![format!("{} step(s): {}", names.len(), names.join(", "))];
        if queries < names.len() {
            what.push("the load steps take as long as the engine needs".into());
        }
        if let Some(s) = settle {
            what.push(format!("a settle of {} before the query steps", crate::units::human_secs(s)));
        }
        if queries > 0 {
            what.push(format!("{queries} query step(s) of {} each", crate::units::human_secs(a.query_secs)));
        }
        let timed = queries as f64 * a.query_secs + settle.unwrap_or(0.0);
        what.push(format!("at least {} in all (--steps, --query-secs and --settle-secs shorten it)", crate::units::human_secs(timed)));
        Some(format!("Plan: {}", what.join("\n  ")))
    }

    /// The step's writers start with it (their clients connect meanwhile).
    async fn run_started(&self, cfg: &Arc<ConnConfig>, rc: &crate::model::RunControl) -> crate::error::Result<()> {
        let Some(&step) = self.steps.get(rc.round) else { return Ok(()) };
        let cur = Arc::new(Current::new(step, self.shape.clients, self.shape.batches(step)));
        let mut writers = Vec::new();
        let deletes = self.shape.deletes() && matches!(step, Step::Change { .. } | Step::Query { .. });
        for id in 0..self.shape.clients {
            if deletes {
                writers.push(lane::deleter(self.shape.clone(), cfg.clone(), cur.clone(), id)?);
            }
            if let Step::Query { rate, .. } = step {
                writers.push(lane::inserter(self.shape.clone(), cfg.clone(), cur.clone(), id, rate)?);
            }
        }
        *self.lock_current() = Some((cur, writers));
        Ok(())
    }

    /// The writers finish what matches the clients' inserts, then the
    /// step's figures: its rows a second and, in a query step, whether the
    /// writers kept their rate (iibench's check: 95% of it, over the step).
    ///
    /// After l.i2, when query steps follow, the settle (`settle.rs`): its
    /// time is not the step's, and its figures join the step's.
    async fn run_finished(&self, cfg: &Arc<ConnConfig>, r: &crate::model::LevelResult) -> crate::error::Result<()> {
        let Some((cur, writers)) = self.lock_current().take() else { return Ok(()) };
        cur.finish();
        // The hooks' runtime runs nothing else meanwhile; the writers have runtimes of their own.
        let tally = lane::join(writers);
        let secs = r.elapsed_s.max(1e-9);
        let mut f = Vec::new();
        let total = &r.total;
        match cur.step {
            Step::Load | Step::Change { .. } => {
                let rows = total.writes * cur.step.batch() as u64;
                f.push(("rows inserted".to_string(), rows.to_string()));
                f.push(("inserts/s".to_string(), format!("{:.1}", rows as f64 / secs)));
            }
            Step::Index => {
                let rows = self.shape.args.rows + step::LOAD_BATCH as u64 * self.shape.clients as u64;
                f.push(("indexed rows/s".to_string(), format!("{:.1}", rows as f64 / secs)));
            }
            Step::Query { .. } => {
                f.push(("queries/s".to_string(), format!("{:.1}", total.events as f64 / secs)));
            }
        }
        if let Ok(t) = &tally {
            if let Step::Query { rate, .. } = cur.step {
                let target = rate as f64 * self.shape.clients as f64;
                let got = t.rows_inserted as f64 / secs;
                f.push(("background inserts/s".to_string(), format!("{got:.1}")));
                f.push(("background insert target/s".to_string(), format!("{target:.0}")));
                let whole = t.rows_inserted >= cur.batches * cur.step.batch() as u64 * self.shape.clients as u64;
                f.push(("background rate met".to_string(), if whole && got >= 0.95 * target { "yes" } else { "no" }.to_string()));
            }
            if t.rows_deleted > 0 {
                f.push(("deletes/s".to_string(), format!("{:.1}", t.rows_deleted as f64 / secs)));
            }
        }
        let settled = if tally.is_ok() && r.stop == crate::model::Stop::Completed && self.settles_after(cur.step) {
            let a = &self.shape.args;
            settle::settle(&self.shape, cfg, a.settle_secs.unwrap_or_else(|| settle::default_secs(a.rows))).await.map(|more| f.extend(more))
        } else {
            Ok(())
        };
        *self.figures.lock().unwrap_or_else(|e| e.into_inner()) = f;
        tally.map(|_| ()).and(settled)
    }

    fn level_figures(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.figures.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Text: a short report per step and a table of them at the end (output.rs).
    fn sink(&self, json: bool, percentile: u32, standard: &'static dyn crate::output::StandardOutput) -> Option<Box<dyn crate::model::Sink>> {
        (!json).then(|| Box::new(output::IbenchSink::new(self.steps.len(), self.shape.engine.protocol().embedded(), percentile, standard)) as Box<dyn crate::model::Sink>)
    }
}
