//! What a bench command runs, resolved once from the command line (in any
//! of its forms: fairbench's own, sysbench's, a BMK-kit label, a tool's
//! properties a family read): run control, outputs and sampling, typed.
//! The driver, the runner's levels and the families read this, never the
//! command-line structs it came from; a family that runs a tool's own
//! command line (YCSB's `threadcount`, LinkBench's `requesters`) changes it
//! here before the run.

use crate::model::Arrivals;
use crate::output::ConsoleFormat;
use crate::values::{ForcedShutdown, RepeatOrder};
use serde::Serialize;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Clone, Debug, Serialize)]
pub struct RunSettings {
    /// The client count of each level, in the order given (`--threads`).
    pub levels: Vec<usize>,
    /// `--find-max`: the levels are chosen by a search for the highest rate (or client count)
    /// that meets an objective, from the first of `levels`.
    pub find_max: Option<crate::model::capacity::FindMax>,
    /// `--soak`: one long level at a fixed open-loop rate (`time` is the soak's), reported for
    /// degradation; the rate is `rate`, or else 70% of a capacity stored for the same target.
    pub soak: bool,
    /// Seconds each level runs after its warmup (0: until `events`).
    pub time: f64,
    /// Events in total before a level stops (0: no limit).
    pub events: u64,
    pub warmup_time: f64,
    /// Open loop: events per second over all clients (0: closed loop).
    pub rate: f64,
    pub arrivals: Arrivals,
    /// Seconds between interval reports (0: none).
    pub report_interval: f64,
    /// The latency percentile of the sysbench lines.
    pub percentile: u32,
    /// Start barrier: once the clients are connected, wait until this file is removed.
    pub sync_file: Option<PathBuf>,
    pub sync_wait_ms: u64,
    /// Start barrier over processes.
    pub group: Option<Group>,
    /// Seconds between levels.
    pub pause: f64,
    /// Runs of each level, and their order.
    pub repeat: usize,
    pub repeat_order: RepeatOrder,
    /// OS threads for the clients (None: as sysbench runs them).
    pub client_threads: Option<usize>,
    /// Open loop: events that may wait for a free client.
    pub queue_max: usize,
    /// Connections held idle beside the active clients for the whole run.
    pub idle_clients: usize,
    /// How many tries an event gets, and what counts as late.
    pub tries: crate::model::TryPolicy,
    /// `--log`: pgbench's transaction logs.
    pub log: Option<crate::model::LogSpec>,
    /// Refuse to run on missing tables instead of preparing them.
    pub no_prepare: bool,
    /// The random numbers' seed (0: from the clock).
    pub seed: u64,
    /// Record the acknowledged writes here and read them back after the run ("": the default file).
    pub verify_writes: Option<String>,
    pub sysbench: Sysbench,
    pub outputs: Outputs,
    pub sampling: SamplingSettings,
}

/// A group of generators that start together (`--group`).
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub name: String,
    pub member: Option<String>,
    pub size: usize,
    pub timeout: f64,
}

/// sysbench's general options.
#[derive(Clone, Debug, Serialize)]
pub struct Sysbench {
    /// sysbench's latency histogram before the report.
    pub histogram: bool,
    pub forced_shutdown: ForcedShutdown,
    /// Seconds the clients may take to connect (0: no limit).
    pub init_timeout: f64,
    /// Seconds from the start at which the full report is printed and the counters reset.
    pub checkpoints: Vec<u32>,
    /// The log level in force (`--debug` is 5).
    pub verbosity: u8,
    /// The workload's consistency conditions checked after the run.
    pub validate: bool,
    /// sysbench options given that change nothing here, for the one note line a run prints.
    pub no_effect: Vec<&'static str>,
}

/// Where the run's results go.
#[derive(Clone, Debug, Serialize)]
pub struct Outputs {
    pub console: ConsoleFormat,
    /// The results store (None: `--no-save`).
    pub store: Option<PathBuf>,
    pub tag: String,
    pub hdr_log: Option<PathBuf>,
    pub live: Option<SocketAddr>,
    pub metrics_addr: Option<SocketAddr>,
}

/// What the environment's sampler reads besides the server's counters.
#[derive(Clone, Debug, Serialize)]
pub struct SamplingSettings {
    /// The server host's node exporter.
    pub server_metrics: Option<String>,
    /// Where the server's time goes, with its counters.
    pub server_time: bool,
    /// The server's on-CPU stacks (perf).
    pub profile_server: bool,
}

impl RunSettings {
    /// The most clients of any level.
    pub fn max_threads(&self) -> usize {
        self.levels.iter().copied().max().unwrap_or(1)
    }
}
