//! Workloads. A workload is a small set of operations (go-tpc style):
//! prepare, one event per call, cleanup, prewarm. The runner never names a
//! workload; adding one is a folder here plus one line in the registry
//! below. This file is the only one outside a family's folder that names it.

pub mod common;
pub mod family;
pub mod plan;
pub mod witness;

// The registry: one module and one entry per workload family.
mod dbstress;
mod ibench;
mod linkbench;
mod lua;
mod oltp;
mod pgscript;
mod tpcc;
mod tpch;
mod ycsb;
pub static FAMILIES: &[&dyn family::Family] = &[
    &oltp::family::OltpFamily,
    &tpcc::family::TpccFamily,
    &dbstress::family::DbstressFamily,
    &linkbench::family::LinkbenchFamily,
    &pgscript::family::PgscriptFamily,
    &lua::family::LuaFamily,
    &ycsb::family::YcsbFamily,
    &ibench::family::IbenchFamily,
    &tpch::family::TpchFamily,
];
/// The workload a command runs when it names none (sysbench's default).
pub const DEFAULT_WORKLOAD: &str = "oltp_read_write";

use crate::db::sharding::ShardPlan;
use crate::db::{Class, Conn, ConnConfig, DbResult, StatementSet};
use crate::env::DatasetTables;
use crate::error::Result;
use std::future::Future;
use std::sync::Arc;

/// The options of a clap `Args` struct as (long name, value), in the order
/// clap declares them, read from the struct itself so they are the values
/// the workload runs with. Names come from clap (so they are the names the
/// command line takes), values from serde; an unset `Option` is left out
/// (the workload records its effective value itself, or none applies).
pub fn args_options<A: clap::Args + serde::Serialize>(args: &A) -> Vec<(String, String)> {
    let serde_json::Value::Object(values) = serde_json::to_value(args).unwrap_or_default() else { return Vec::new() };
    let cmd = A::augment_args(clap::Command::new("options"));
    cmd.get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?;
            let v = match values.get(a.get_id().as_str())? {
                serde_json::Value::Null => return None,
                serde_json::Value::Bool(b) => crate::values::bool_str(*b).to_string(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some((long.to_string(), v))
        })
        .collect()
}

/// The end of a consistency check: "All conditions hold." and Ok, or
/// Err(Check) naming each failure (`what` names the workload's check).
pub fn check_verdict(what: &str, failed: &[String], separator: &str, quiet: bool) -> Result<()> {
    if failed.is_empty() {
        if !quiet {
            println!("All conditions hold.");
        }
        Ok(())
    } else {
        Err(crate::error::Error::Check(format!("{what} consistency check failed: {}", failed.join(separator))))
    }
}

/// Adds the pairs of `more` whose names `to` does not have yet.
pub fn add_missing(to: &mut Vec<(String, String)>, more: Vec<(String, String)>) {
    for (k, v) in more {
        if !to.iter().any(|(n, _)| *n == k) {
            to.push((k, v));
        }
    }
}

/// State of a workload's tables before a run.
#[derive(Debug, PartialEq)]
pub enum TableState {
    Ready,
    /// Ready, but the tables hold well more rows than the options touch:
    /// the run's working set is a part of the data.
    Larger(Part),
    Missing,
    /// Present but not what the options describe (the user decides;
    /// fairbench never drops tables on its own).
    Mismatch(String),
}

/// Tables bigger than a run's options say: it picks ids (or record
/// numbers) up to `touched` of the `rows` each table holds; `option` is how
/// the user sets that size (`--table-size`, `-p recordcount`).
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub rows: u64,
    pub touched: u64,
    pub option: &'static str,
}

impl Part {
    /// The part a run touches, when the tables hold more than a tenth
    /// beyond it: rows a run added (a few percent) are not worth a word.
    pub fn beyond(rows: u64, touched: u64, option: &'static str) -> Option<Part> {
        (rows as f64 > touched as f64 * 1.1).then_some(Part { rows, touched, option })
    }
}

/// Query counts of one event, classified like sysbench.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    /// BEGIN/COMMIT/ROLLBACK among `other`.
    pub trx: u64,
    /// Which kind of event ran (index into [`Workload::kinds`]).
    pub kind: usize,
    /// The event ended in a rollback the workload asked for (TPC-C's 1%
    /// New-Order rollbacks): it counts, but separately.
    pub rolled_back: bool,
    /// Errors the workload counted itself (a script's `sb_counter_inc`),
    /// reported with the ignored errors.
    pub errors: u64,
    /// Microseconds the event spent in deliberate waits (TPC-C keying and
    /// think times): left out of its latency.
    pub waited_us: u64,
    /// The event found the run over while waiting and did nothing: it is
    /// not recorded and the client stops.
    pub ended: bool,
    /// (index into [`Workload::steps`], microseconds) of each statement
    /// the workload timed; the runner hands the same buffer to every
    /// event, so recording does not allocate once it has grown.
    pub steps: Vec<(usize, u64)>,
    /// The step (index into [`Workload::steps`]) running when an error came, for a workload
    /// that counts errors by statement (pgbench's `-r`).
    pub at_step: Option<usize>,
}

impl Counters {
    /// One statement of kind `step` took `us` microseconds.
    #[inline]
    pub fn step(&mut self, step: usize, us: u64) {
        self.steps.push((step, us));
    }

    #[inline]
    pub fn add(&mut self, c: Class) {
        match c {
            Class::Read => self.reads += 1,
            Class::Write => self.writes += 1,
            Class::Other => self.other += 1,
        }
    }
}

/// The data a workload runs on: its tables, and how they are made, found,
/// warmed and removed (the prepare, run, prewarm and cleanup commands).
pub trait Dataset: Send + Sync {
    /// The tables that make this workload's dataset: environment snapshots
    /// record their size.
    fn dataset_tables(&self) -> DatasetTables;

    /// How its tables spread over the shards of an engine that shards
    /// them: the key of each, the small tables every shard may hold whole,
    /// and what in this configuration cannot run sharded. The default
    /// knows nothing (a script's tables are its own).
    fn sharding(&self) -> ShardPlan {
        ShardPlan::default()
    }

    /// Whether a run changes the tables' shape itself (adds or drops
    /// indexes, creates tables): the audit then leaves a change between
    /// the run's start and end to the workload. Most runs do not.
    fn reshapes_tables(&self) -> bool {
        false
    }

    /// Whether the tables are there, missing, or partly there.
    fn table_state(&self, cfg: &Arc<ConnConfig>) -> impl Future<Output = Result<TableState>>;
    fn prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> impl Future<Output = Result<()>>;
    fn cleanup(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> impl Future<Output = Result<()>>;
    fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> impl Future<Output = Result<()>>;
}

/// A workload's consistency conditions (the check command and
/// `--validate`); a workload without any says `impl Checked for W {}`.
pub trait Checked {
    /// Err(Check) when a condition fails.
    fn check(&self, _cfg: Arc<ConnConfig>, _quiet: bool) -> impl Future<Output = Result<()>> {
        async { Ok(()) }
    }
}

/// What the runner needs from a workload: its events, and the data they run on.
/// A serialization failure or deadlock as `--verbose-errors` reports it.
pub struct TryReport {
    pub client: usize,
    /// The try that met it, the first being 1.
    pub tried: u32,
    /// `--max-tries` (0: no limit).
    pub max_tries: u32,
    /// No other try follows.
    pub give_up: bool,
    /// With `--latency-limit`: the share of it the event has used, in percent.
    pub limit_used_pct: Option<f64>,
}

pub trait Workload: Dataset + Checked + Witnessed + Levels + Send + Sync + 'static {
    /// Per-client state: RNG, assigned table, buffers.
    type Client: 'static;

    fn statements(&self) -> Arc<StatementSet>;

    /// State for client `id` of `clients`, with its own RNG stream.
    fn new_client(&self, id: usize, clients: usize) -> Self::Client;

    /// Run one event. `retry` is true when the previous attempt failed with
    /// a retryable error (so the workload can replay the same keys).
    fn event(&self, conn: &mut Conn, c: &mut Self::Client, q: &mut Counters, retry: bool) -> impl Future<Output = DbResult<()>>;

    /// Sets up a client before the start barrier (a script's
    /// `thread_init`); an error stops the level before it starts.
    fn client_init(&self, _conn: &mut Conn, _c: &mut Self::Client) -> impl Future<Output = DbResult<()>> {
        async { Ok(()) }
    }

    /// Where client `id` connects when not to the run's target, with the
    /// statements it prepares there (CH-benCHmark's analytic streams on
    /// another server); its reconnects go there too.
    fn client_target(&self, _id: usize) -> Option<(Arc<ConnConfig>, Arc<StatementSet>)> {
        None
    }

    /// Called once a client has stopped, before its connection closes.
    fn client_done(&self, _conn: &mut Conn, _c: &mut Self::Client) -> impl Future<Output = ()> {
        async {}
    }

    /// Called after a retryable error inside an event (roll back if a
    /// transaction is open).
    fn after_error(&self, conn: &mut Conn, c: &mut Self::Client) -> impl Future<Output = ()>;

    /// The kind an arrival skipped under `--latency-limit` would have been (pgbench deals a
    /// script to each transaction before it skips it, so its counts and logs name one).
    fn skipped_kind(&self, _c: &mut Self::Client) -> usize {
        0
    }

    /// `--verbose-errors`: what to print of a serialization failure or deadlock the client met,
    /// in the words of the tool whose report the workload prints; None: the runner's own line.
    fn error_report(&self, _c: &Self::Client, _e: &crate::db::DbError, _t: &TryReport) -> Option<String> {
        None
    }

    /// Whether client `id` of `clients` takes its events' start times from
    /// the open loop (`--rate`); one that does not runs back to back beside
    /// the others (CH-benCHmark's analytic streams beside its terminals).
    fn paced(&self, _id: usize, _clients: usize) -> bool {
        true
    }

    /// Events between reconnects (0: as `--reconnect` says, which the runner applies to every
    /// workload), per client: a workload's own ask (pgbench's `-C`).
    fn reconnect_every(&self) -> u64 {
        0
    }

    /// Its events open and renew their own connections (a sysbench script's `con:reconnect()`,
    /// as its own `--reconnect` option asks): the runner's `--reconnect` leaves them alone.
    fn reconnects_itself(&self) -> bool {
        false
    }

    /// Names of the event kinds a workload reports separately (TPC-C's
    /// transactions); empty when every event is alike.
    fn kinds(&self) -> &'static [&'static str] {
        &[]
    }

    /// Names of the statements a workload times one by one (through
    /// [`Counters::step`]) for a per-statement latency report; empty when
    /// only whole events are timed.
    fn steps(&self) -> &'static [&'static str] {
        &[]
    }

    /// Canonical label of this configuration.
    fn label(&self, cfg: &ConnConfig) -> String;

    /// Every effective workload option as (long option name, value), for
    /// records and reports: `--name=value` reproduces the workload.
    fn options(&self, cfg: &ConnConfig) -> Vec<(String, String)>;
}

/// How a workload's writes are checked after a `--verify-writes` run; a
/// workload that cannot verify them says `impl Witnessed for W {}` (the
/// run is then refused).
pub trait Witnessed {
    /// `--verify-writes`: how this configuration's writes are checked;
    /// None when it cannot verify them (the run is refused).
    fn witnessing(&self) -> Option<witness::Witnessing> {
        None
    }

    /// Turns `--verify-writes` on before the run: every client records its
    /// writes into `log` (see [`witness::Recorder`]). Called only when
    /// [`Self::witnessing`] is Some.
    fn record_writes(&self, _log: Arc<witness::WriteLog>) {}

    /// The rows of `keys` the target holds, each with the token it carries
    /// (0 when the workload writes none); a key left out is missing.
    fn read_back(&self, _conn: &mut Conn, _keys: &[witness::Key]) -> impl Future<Output = DbResult<witness::Found>> {
        async { Ok(witness::Found::new()) }
    }
}

/// How a workload takes part in the run's levels beyond its events: work
/// before and after each, levels that are named steps, figures and an
/// output of its own; a workload with none says `impl Levels for W {}`.
pub trait Levels {
    /// Called before each load level starts (e.g. to read database
    /// counters the summary compares against).
    fn run_started(&self, _cfg: &Arc<ConnConfig>, _rc: &crate::model::RunControl) -> impl Future<Output = Result<()>> {
        async { Ok(()) }
    }

    /// The name of the level at `round` (its index in the run's levels),
    /// for a workload whose levels are steps of a sequence rather than the
    /// same load at other client counts; None: levels go by client count.
    fn level_name(&self, _round: usize) -> Option<String> {
        None
    }

    /// For a workload whose levels are named steps: what they are and how
    /// long they will take, said once before the first (the Insert
    /// Benchmark's defaults run for hours).
    fn plan_note(&self) -> Option<String> {
        None
    }

    /// Figures the workload measured over the level that just ended (after
    /// [`Self::run_finished`]), as (name, value): printed and stored with
    /// its summary.
    fn level_figures(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Called when a load level has ended, before its summary is printed.
    fn run_finished(&self, _cfg: &Arc<ConnConfig>, _r: &crate::model::LevelResult) -> impl Future<Output = Result<()>> {
        async { Ok(()) }
    }

    /// The workload's own output (extra figures, another tool's format),
    /// which may print the `standard` console output or build on its
    /// lines; None: the standard console output.
    fn sink(&self, _json: bool, _percentile: u32, _standard: &'static dyn crate::output::StandardOutput) -> Option<Box<dyn crate::model::Sink>> {
        None
    }
}

/// A family's options struct parsed from `extra` alone (unit tests).
#[cfg(test)]
pub fn parsed_args<A: clap::Args + clap::FromArgMatches>(extra: &[&str]) -> A {
    let cmd = A::augment_args(clap::Command::new("t"));
    A::from_arg_matches(&cmd.try_get_matches_from(std::iter::once("t").chain(extra.iter().copied())).unwrap()).unwrap()
}

/// Waits for a family's loader tasks; the first that fails stops the
/// others, and its error is the answer (`what` names them in a panic's
/// message).
pub async fn join_loaders(mut tasks: tokio::task::JoinSet<crate::error::Result<()>>, what: &str) -> crate::error::Result<()> {
    while let Some(r) = tasks.join_next().await {
        if let Err(e) = r.map_err(|e| crate::error::Error::Sql(format!("{what} failed: {e}")))? {
            tasks.abort_all();
            return Err(e);
        }
    }
    Ok(())
}
