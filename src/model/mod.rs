//! The shared run types: what a load level is told (run control), what it
//! measures (intervals, the level's result, how it stopped), what describes
//! the run, and the sink interface every output implements. The runner,
//! the outputs and the workloads meet here instead of importing each other.

pub mod capacity;
pub mod efficiency;
pub mod oncpu;
pub mod options;
pub mod record;
pub mod statements;
pub mod waits;

use crate::stats::{ClientTotals, Window};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Set by SIGINT/SIGTERM.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C / SIGTERM arrived.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Err(Interrupted) once Ctrl-C / SIGTERM arrived: for loops that should
/// stop between steps.
pub fn check_interrupt() -> crate::error::Result<()> {
    if interrupted() {
        Err(crate::error::Error::Interrupted)
    } else {
        Ok(())
    }
}

/// How one load level runs.
#[derive(Clone, Debug)]
pub struct RunControl {
    pub threads: usize,
    /// Measured time (after warmup); zero with `events` > 0 means no limit.
    pub time: Duration,
    pub events: u64,
    pub warmup: Duration,
    /// Target events per second over all clients (0: closed loop).
    pub rate: f64,
    /// How the open loop spaces its arrivals.
    pub arrivals: Arrivals,
    pub report_interval: Duration,
    pub sync_file: Option<PathBuf>,
    /// How often the `sync_file` is looked for (BMK-kit's --sync-wait).
    pub sync_wait: Duration,
    /// OS threads running network clients (`--client-threads`); `None`:
    /// the workload's and the machine's default (see the runner).
    pub worker_threads: Option<usize>,
    /// Bound of the rate-mode queue (over all workers).
    pub queue_max: usize,
    /// `--reconnect N`: a new connection after every N events of each client, whatever the
    /// workload, unless the workload asks otherwise (`Workload::reconnect_every`).
    pub reconnect: u64,
    pub seed: u64,
    /// Start barrier over processes (`--group`): waited for once every
    /// client is connected, after `sync_file`.
    pub gate: Option<std::sync::Arc<dyn StartGate>>,
    /// Which level of a sweep this is (a group meets once per level).
    pub round: usize,
    pub tries: TryPolicy,
    /// `--log`: pgbench's transaction logs.
    pub log: Option<LogSpec>,
}

/// pgbench's transaction logs (`--log`, `--log-prefix`, `--aggregate-interval`,
/// `--sampling-rate`), and what decides their optional fields.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LogSpec {
    pub prefix: String,
    /// Seconds per aggregate line (0: a line per event).
    pub aggregate_s: u64,
    /// Share of the events logged (1.0: all).
    pub sampling: f64,
    pub failures_detailed: bool,
    pub max_tries: u32,
    pub latency_limit: bool,
}

/// How many tries an event gets after serialization failures and deadlocks, and what counts as
/// late (pgbench's `--max-tries`, `--latency-limit` and `--verbose-errors`).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct TryPolicy {
    /// Tries, the first included (0: no limit).
    pub max_tries: u32,
    pub latency_limit: Option<Duration>,
    /// Each error that restarts or fails an event goes to stderr.
    pub verbose: bool,
    /// Failed events counted by their last error's kind (pgbench's --failures-detailed).
    pub failures_detailed: bool,
}

/// How the open loop (`--rate`) spaces its arrivals (`--arrivals`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum Arrivals {
    /// Gaps drawn from an exponential distribution: sysbench's `--rate` and
    /// pgbench's `--rate`, a server's many independent users.
    #[default]
    Poisson,
    /// One every 1/rate seconds: YCSB's `-target`, a steady feed.
    Even,
}

impl Arrivals {
    /// As the command line writes it (and the store records it).
    pub fn name(self) -> String {
        match self {
            Arrivals::Poisson => "poisson",
            Arrivals::Even => "even",
        }
        .to_string()
    }
}

/// Holds the start of a level until something outside this process says go.
pub trait StartGate: Send + Sync + std::fmt::Debug {
    /// Returns at the start instant; Err ends the run before it began.
    fn wait(&self, round: usize) -> crate::error::Result<()>;
    /// Who this process was in the group at the start of its last level.
    fn member(&self) -> Option<GroupMember>;
}

/// One process's place in a group of generators (`--group`).
#[derive(Clone, Debug, Default)]
pub struct GroupMember {
    pub group: String,
    /// 1-based, in registration order.
    pub member: usize,
    /// The member's name: its `--group-member`, or else its position.
    pub name: String,
    /// Every member's name, as the group stood at the start.
    pub names: Vec<String>,
    pub size: usize,
    pub host: String,
    /// Database clock minus this host's clock, ms.
    pub clock_offset_ms: f64,
    /// The level's start on the database's clock, ms since the Unix epoch.
    pub start_ms: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    Completed,
    Interrupted,
    Failed(String),
}

/// One interval as merged over all workers.
#[derive(Clone, Debug)]
pub struct Interval {
    /// Seconds since the start, at the end of this interval.
    pub t: f64,
    pub secs: f64,
    pub threads: usize,
    pub warmup: bool,
    pub w: Window,
    /// Process CPU (user, system seconds) over this interval. For an
    /// embedded engine it is the client's and the engine's together.
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    /// The longest time no client completed an event, among the stalls that overlap this
    /// interval (seconds; 0: none over 20 ms known when it ended, see [`Sink::stall`]).
    pub stall_s: f64,
}

/// The result of one load level.
#[derive(Debug)]
pub struct LevelResult {
    pub threads: usize,
    pub total: Window,
    pub elapsed_s: f64,
    pub clients: Vec<ClientTotals>,
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    pub intervals: Vec<Interval>,
    pub stop: Stop,
    pub rate: f64,
    /// The longest gaps without a completed event (None: not measured,
    /// as in a merge of several processes' logs).
    pub outage: Option<crate::stats::gaps::Outage>,
    /// The level's name when it is a step of a sequence (the workload's
    /// `level_name`); None: the level is its client count.
    pub name: Option<String>,
    /// Figures the workload measured over the level, as (name, value).
    pub figures: Vec<(String, String)>,
    /// Seconds from the level's start until every client was connected and ready.
    pub connect_s: f64,
}

/// The counters of one stretch between sysbench checkpoints
/// (`--report-checkpoints`): from the previous checkpoint (or the start of
/// the measured run) to this one, or, for the part after the last one, to
/// the end of the run.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The checkpoint as listed (seconds from the start of the measured run).
    pub at_s: u32,
    /// Seconds from the start of the measured run at its end.
    pub t: f64,
    /// Seconds it covers.
    pub secs: f64,
    pub threads: usize,
    pub w: Window,
    /// Each client's events and busy time over it, for the fairness block.
    pub clients: Vec<ClientTotals>,
}

/// sysbench's general options as they bear on one load level.
#[derive(Clone, Debug, Default)]
pub struct LevelOptions {
    /// `--report-checkpoints`: seconds from the start of the measured run.
    pub checkpoints: Vec<u32>,
    /// `--forced-shutdown`: how long after the time limit a level still
    /// going is stopped without waiting for its clients.
    pub forced_shutdown: Option<Duration>,
    /// `--thread-init-timeout`: how long the clients may take to connect
    /// and get ready (None: no limit).
    pub init_timeout: Option<Duration>,
    /// `--verbosity=5`: debug lines (each client's connect time) on stderr.
    pub debug: bool,
}

/// Receives what the runner measures (console, JSON, store...).
pub trait Sink {
    /// A level's clients are connected and about to be released: what must
    /// be read before they run (the server's counters) is read now. Every
    /// level calls it, then `start`.
    fn before_start(&mut self) {}
    /// The level's clients were released.
    fn start(&mut self, _threads: usize) {}
    fn interval(&mut self, _iv: &Interval, _rate_mode: bool) {}
    /// A stall (no client completed an event for `secs`) that overlapped interval `seq`, known
    /// only after that interval went to the sinks.
    fn stall(&mut self, _seq: usize, _secs: f64) {}
    /// An interval ended without a report (`--report-interval 0`): what stores every interval
    /// takes it now, as the level keeps only its counters.
    fn unreported(&mut self, _iv: &Interval) {}
    /// A `--report-checkpoints` time passed: the counters since the previous one.
    fn checkpoint(&mut self, _cp: &Checkpoint) {}
    fn summary(&mut self, _r: &LevelResult, _info: &RunInfo) {}
}

/// Several sinks fed the same samples.
pub struct Sinks(pub Vec<Box<dyn Sink>>);

impl Sink for Sinks {
    fn before_start(&mut self) {
        self.0.iter_mut().for_each(|s| s.before_start());
    }
    fn start(&mut self, threads: usize) {
        self.0.iter_mut().for_each(|s| s.start(threads));
    }
    fn interval(&mut self, iv: &Interval, rate_mode: bool) {
        self.0.iter_mut().for_each(|s| s.interval(iv, rate_mode));
    }
    fn unreported(&mut self, iv: &Interval) {
        self.0.iter_mut().for_each(|s| s.unreported(iv));
    }
    fn stall(&mut self, seq: usize, secs: f64) {
        self.0.iter_mut().for_each(|s| s.stall(seq, secs));
    }
    fn checkpoint(&mut self, cp: &Checkpoint) {
        self.0.iter_mut().for_each(|s| s.checkpoint(cp));
    }
    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        self.0.iter_mut().for_each(|s| s.summary(r, info));
    }
}

/// What describes a run besides its measurements.
#[derive(Clone, Debug)]
pub struct RunInfo {
    pub label: String,
    pub workload: String,
    pub engine: String,
    pub target: String,
    pub transport: String,
    pub percentile: u32,
    pub options: options::RunOptions,
    /// Names of the workload's event kinds (empty: one kind).
    pub kinds: Vec<String>,
    /// Names of the statements timed one by one (empty: none).
    pub steps: Vec<String>,
}
