//! TPC-H: the eight tables at a scale factor (dbgen's data), the 22
//! queries with qgen-style substitution parameters, and the refresh
//! functions RF1 and RF2, run as the spec's two tests, each a level of the
//! run: the power test (one stream: RF1, the 22 queries in stream 0's
//! order, RF2) and the throughput test (S query streams in their own
//! orders beside a refresh stream running S RF1/RF2 pairs). An event is
//! one query or refresh function; its kind is its name, so each has its
//! own latencies. Power@Size, Throughput@Size and QphH@Size are the
//! levels' figures (metrics.rs).
//!
//! RF1 inserts the orders (and their lines) of update set N with keys
//! above every loaded key, and RF2 of the same pair deletes exactly them:
//! dbgen's delete sets remove loaded orders instead, which would leave a
//! second run on other data. A run that stopped between the two finds
//! their rows and removes them before its first level.

pub mod check;
pub mod dataset;
pub mod family;
pub mod load;
pub mod metrics;
pub mod options;
pub mod params;
pub mod queries;
pub mod refresh;
pub mod schema;

use crate::db::{Conn, ConnConfig, DbResult, Engine, RowBuf, StatementSet};
use crate::rand::Rng;
use crate::workload::common::{query_error, CommonArgs, QueryError};
use options::{Tests, TpchArgs};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub const NAME: &str = "tpch";

/// The kinds of events: the 22 queries, then RF1 and RF2.
pub const KINDS: [&str; 24] = ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q12", "Q13", "Q14", "Q15", "Q16", "Q17", "Q18", "Q19", "Q20", "Q21", "Q22", "RF1", "RF2"];

/// The spec's two tests, each a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    Power,
    Throughput,
}

impl Test {
    fn name(self) -> &'static str {
        match self {
            Test::Power => "power",
            Test::Throughput => "throughput",
        }
    }
}

/// One event of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Query(u8),
    /// RF1 of update pair N (1 is the power test's).
    Rf1(u32),
    Rf2(u32),
}

impl Op {
    pub fn kind(self) -> usize {
        match self {
            Op::Query(q) => q as usize - 1,
            Op::Rf1(_) => 22,
            Op::Rf2(_) => 23,
        }
    }
}

/// What one event took.
#[derive(Clone, Debug)]
pub struct Timing {
    pub stream: usize,
    pub op: Op,
    pub secs: f64,
    pub timed_out: bool,
    /// The engine's reason when it refused the query.
    pub refused: Option<String>,
}

/// The level running now and what its events took.
#[derive(Default)]
struct Current {
    test: Option<Test>,
    timings: Vec<Timing>,
}

pub struct Tpch {
    args: TpchArgs,
    common: CommonArgs,
    pub sf: f64,
    pub streams: usize,
    queries: Vec<u8>,
    pub param_seed: u64,
    engine: &'static dyn Engine,
    pub table_tail: String,
    tests: Vec<Test>,
    /// The test of each level in the order the run takes them (with
    /// `--repeat`, each test again, interleaved or grouped).
    order: Vec<Test>,
    current: Mutex<Current>,
    /// The power test's Power@Size, for QphH@Size after the throughput test.
    power: Mutex<Option<f64>>,
    figures: Mutex<Vec<(String, String)>>,
}

pub struct TpchClient {
    stream: usize,
    ops: Vec<(Op, Vec<String>)>,
    next: usize,
    rows: RowBuf,
    /// A refresh function's transaction is open.
    in_trx: bool,
}

/// The spec's minimum of query streams for a scale factor (clause 5.3.4).
pub fn min_streams(sf: f64) -> u32 {
    match sf {
        s if s >= 100_000.0 => 11,
        s if s >= 30_000.0 => 10,
        s if s >= 10_000.0 => 9,
        s if s >= 3_000.0 => 8,
        s if s >= 1_000.0 => 7,
        s if s >= 300.0 => 6,
        s if s >= 100.0 => 5,
        s if s >= 30.0 => 4,
        s if s >= 10.0 => 3,
        _ => 2,
    }
}

impl Tpch {
    pub fn new(args: TpchArgs, common: CommonArgs, sf: f64, seed: u64, engine: &'static dyn Engine) -> Result<Tpch, String> {
        let queries = crate::workload::common::query_numbers(&args.queries)?;
        let streams = args.streams.unwrap_or_else(|| min_streams(sf)) as usize;
        let tests = match args.tests {
            Tests::Power => vec![Test::Power],
            Tests::Throughput => vec![Test::Throughput],
            Tests::Both => vec![Test::Power, Test::Throughput],
        };
        // A fixed default: runs compared side by side ask the same queries.
        let param_seed = args.param_seed.unwrap_or(if seed != 0 { seed } else { 1 });
        let order = tests.clone();
        Ok(Tpch { args, common, sf, streams, queries, param_seed, engine, table_tail: String::new(), tests, order, current: Mutex::default(), power: Mutex::new(None), figures: Mutex::default() })
    }

    /// The levels' tests when the run repeats each `repeat` times,
    /// `interleaved` (power, throughput, power ...) or grouped.
    pub fn repeat(&mut self, repeat: usize, interleaved: bool) {
        let r = repeat.max(1);
        self.order = if interleaved { (0..r).flat_map(|_| self.tests.iter().copied()).collect() } else { self.tests.iter().flat_map(|&t| std::iter::repeat_n(t, r)).collect() };
    }

    /// Clients of each level: one stream in the power test; the query
    /// streams and the refresh stream in the throughput test.
    pub fn levels(&self) -> Vec<usize> {
        self.tests
            .iter()
            .map(|t| match t {
                Test::Power => 1,
                Test::Throughput => self.streams + usize::from(self.args.refresh),
            })
            .collect()
    }

    fn dialect(&self) -> &'static dyn crate::db::Dialect {
        self.engine.dialect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Query `q`'s values for `stream`: the validation values, or drawn
    /// from the stream's own generator, the same for the same seed.
    fn values(&self, q: u8, stream: usize) -> params::Values {
        if self.args.validation_params {
            return params::validation(q, self.sf);
        }
        // One generator per stream and query, so a subset of the queries
        // draws the values the whole set would.
        let mut rng = Rng::from_seed(self.param_seed, (stream as u64) * 32 + q as u64);
        params::random(q, &mut rng, self.sf)
    }

    fn query_ops(&self, stream: usize) -> Vec<(Op, Vec<String>)> {
        queries::ORDERS[stream % queries::ORDERS.len()]
            .iter()
            .filter(|q| self.queries.contains(q))
            .map(|&q| (Op::Query(q), queries::statements(q, &self.values(q, stream), stream, self.dialect())))
            .collect()
    }

    fn pair_ops(&self, pair: u32) -> [(Op, Vec<String>); 2] {
        [(Op::Rf1(pair), refresh::rf1(self.sf, pair)), (Op::Rf2(pair), refresh::rf2(self.sf, pair))]
    }

    /// Whether the run is the spec's: all 22 queries and both refresh functions.
    fn complete(&self) -> bool {
        self.queries.len() == 22 && self.args.refresh
    }

    async fn run_op(&self, conn: &mut Conn, c: &mut TpchClient, op: Op, sqls: &[String], q: &mut crate::workload::Counters) -> DbResult<()> {
        let refresh = !matches!(op, Op::Query(_));
        if refresh {
            q.add(conn.query(self.dialect().begin_rw()).await?);
            c.in_trx = true;
        }
        for sql in sqls {
            // Ctrl-C cancels a query in flight on the server, and the run saves what it measured.
            q.add(if refresh { conn.query_into(sql, &mut c.rows).await? } else { conn.query_into_or_cancel(sql, &mut c.rows).await? });
        }
        if refresh {
            q.add(conn.query("COMMIT").await?);
            c.in_trx = false;
        }
        Ok(())
    }
}

impl crate::workload::Workload for Tpch {
    type Client = TpchClient;

    fn statements(&self) -> Arc<StatementSet> {
        Arc::new(StatementSet::default())
    }

    fn new_client(&self, id: usize, _clients: usize) -> TpchClient {
        let test = self.lock().test.unwrap_or(Test::Power);
        let (stream, ops) = match test {
            Test::Power => {
                let mut ops = self.query_ops(0);
                if self.args.refresh {
                    let [rf1, rf2] = self.pair_ops(1);
                    ops.insert(0, rf1);
                    ops.push(rf2);
                }
                (0, ops)
            }
            Test::Throughput if id < self.streams => (id + 1, self.query_ops(id + 1)),
            // The refresh stream: a pair per query stream, numbered after the power test's.
            Test::Throughput => (0, (2..2 + self.streams as u32).flat_map(|p| self.pair_ops(p)).collect()),
        };
        TpchClient { stream, ops, next: 0, rows: RowBuf::default(), in_trx: false }
    }

    /// The session's time limit, when a query has one.
    async fn client_init(&self, conn: &mut Conn, _c: &mut TpchClient) -> DbResult<()> {
        if self.args.query_timeout > 0.0 {
            conn.set_statement_timeout((self.args.query_timeout * 1000.0).round().max(1.0) as u64).await?;
        }
        Ok(())
    }

    async fn event(&self, conn: &mut Conn, c: &mut TpchClient, q: &mut crate::workload::Counters, _retry: bool) -> DbResult<()> {
        // Each op runs once: its statements are taken, not copied (RF1's are large).
        let Some((op, sqls)) = c.ops.get_mut(c.next).map(|(op, sqls)| (*op, std::mem::take(sqls))) else {
            q.ended = true;
            return Ok(());
        };
        c.next += 1;
        q.kind = op.kind();
        let started = Instant::now();
        let r = self.run_op(conn, c, op, &sqls, q).await;
        let secs = started.elapsed().as_secs_f64();
        // A query past the time limit, or one the engine cannot run (a
        // sharding router's planner): named, and the stream goes on.
        let (timed_out, refused) = match r.as_ref().map_err(|e| query_error(e, 0)) {
            Ok(()) => (false, None),
            Err(QueryError::TimedOut) => (true, None),
            Err(QueryError::Refused(why)) if matches!(op, Op::Query(_)) => (false, Some(why)),
            Err(_) => return r,
        };
        if timed_out || refused.is_some() {
            // Counted with the run's errors; the stream goes on.
            q.errors += 1;
            self.after_error(conn, c).await;
            if op == Op::Query(15) {
                let _ = conn.query(&format!("DROP VIEW IF EXISTS revenue{}", c.stream)).await;
            }
        }
        self.lock().timings.push(Timing { stream: c.stream, op, secs, timed_out, refused });
        Ok(())
    }

    async fn after_error(&self, conn: &mut Conn, c: &mut TpchClient) {
        if std::mem::take(&mut c.in_trx) {
            let _ = conn.query("ROLLBACK").await;
        }
    }

    fn kinds(&self) -> &'static [&'static str] {
        &KINDS
    }

    fn label(&self, _cfg: &ConnConfig) -> String {
        format!("TPCH_SF{}", metrics::number(self.sf))
    }

    fn options(&self, cfg: &ConnConfig) -> Vec<(String, String)> {
        let mut v = crate::workload::args_options(&self.args);
        v.retain(|(k, _)| k != "save-answers" && k != "answers");
        for (k, val) in [("scale-factor", metrics::number(self.sf)), ("streams", self.streams.to_string()), ("param-seed", self.param_seed.to_string())] {
            match v.iter_mut().find(|(n, _)| *n == k) {
                Some(e) => e.1 = val,
                None => v.push((k.to_string(), val)),
            }
        }
        v.push(("transport".into(), cfg.target.transport().to_string()));
        v
    }
}

impl crate::workload::Witnessed for Tpch {}

impl crate::workload::Levels for Tpch {
    fn level_name(&self, round: usize) -> Option<String> {
        self.order.get(round).map(|t| t.name().to_string())
    }

    fn plan_note(&self) -> Option<String> {
        let n = self.queries.len();
        let rf = if self.args.refresh { " with RF1 and RF2" } else { " without the refresh functions" };
        let parts: Vec<String> = self
            .tests
            .iter()
            .map(|t| match t {
                Test::Power => format!("the power test: one stream of {n} queries{rf}"),
                Test::Throughput => format!(
                    "the throughput test: {} query streams of {n} queries{}",
                    self.streams,
                    if self.args.refresh { format!(" beside a refresh stream of {} RF1/RF2 pairs", self.streams) } else { String::new() }
                ),
            })
            .collect();
        let params = if self.args.validation_params { "the spec's validation parameters".to_string() } else { format!("parameters from seed {}", self.param_seed) };
        Some(format!("Plan: TPC-H at scale factor {}, {params}\n  {}", metrics::number(self.sf), parts.join("\n  ")))
    }

    /// A level starts with its events' timings empty; the first removes
    /// what an interrupted refresh left.
    async fn run_started(&self, cfg: &Arc<ConnConfig>, rc: &crate::model::RunControl) -> crate::error::Result<()> {
        if rc.round == 0 && self.args.refresh {
            refresh::remove_leftovers(cfg, self.sf).await?;
        }
        let mut cur = self.lock();
        cur.test = self.order.get(rc.round).copied();
        cur.timings.clear();
        Ok(())
    }

    async fn run_finished(&self, _cfg: &Arc<ConnConfig>, r: &crate::model::LevelResult) -> crate::error::Result<()> {
        let (test, timings) = {
            let mut cur = self.lock();
            (cur.test.take(), std::mem::take(&mut cur.timings))
        };
        let Some(test) = test else { return Ok(()) };
        let mut power = self.power.lock().unwrap_or_else(|e| e.into_inner());
        let f = metrics::figures(test, &timings, self.sf, self.streams, r.elapsed_s, self.complete(), &mut power);
        *self.figures.lock().unwrap_or_else(|e| e.into_inner()) = f;
        Ok(())
    }

    fn level_figures(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.figures.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::parsed_args as parsed;

    fn tpch(extra: &[&str]) -> Tpch {
        Tpch::new(parsed(extra), parsed(&[]), 1.0, 0, crate::db::engines::named("sqlite").unwrap()).unwrap()
    }

    /// With --repeat, each level is named after the test it runs, in the
    /// order the runner repeats the levels.
    #[test]
    fn repeated_levels_run_their_tests_in_the_runners_order() {
        let mut t = tpch(&[]);
        assert_eq!(t.levels(), vec![1, 3], "one stream, then two query streams and the refresh stream");
        t.repeat(2, true);
        let names: Vec<String> = (0..4).filter_map(|r| crate::workload::Levels::level_name(&t, r)).collect();
        assert_eq!(names, ["power", "throughput", "power", "throughput"]);
        t.repeat(2, false);
        let names: Vec<String> = (0..4).filter_map(|r| crate::workload::Levels::level_name(&t, r)).collect();
        assert_eq!(names, ["power", "power", "throughput", "throughput"]);
        assert_eq!(tpch(&["--tests", "throughput", "--refresh", "off", "--streams", "5"]).levels(), vec![5]);
        assert_eq!(tpch(&[]).param_seed, 1, "two runs of one command ask the same queries");
    }
}
