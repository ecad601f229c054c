//! A bench command's options (prepare, run, cleanup, prewarm, check) as
//! clap parses them, and their resolution into the typed plan
//! ([`Plan`]) that the family and the driver read: nothing below the
//! command line sees these structs.

use super::target_args::TargetArgs;
use crate::error::{Error, Result};
use crate::rand::{DistConfig, RandType};
use crate::usage;
use crate::values;
use crate::workload::family::FamilyArgs;
use crate::workload::plan::{BenchCommand, Group, Outputs, Plan, RunSettings, SamplingSettings, Sysbench};
use clap::Args;
use std::path::PathBuf;
use values::parse_levels;

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    #[arg(default_value = crate::workload::DEFAULT_WORKLOAD, help = crate::workload::family::workload_help())]
    pub workload: String,
    #[command(flatten)]
    pub target: TargetArgs,
    // Every registered family's options, each under its own help heading.
    #[command(flatten)]
    pub families: FamilyArgs,
    #[command(flatten)]
    pub rand: RandArgs,
    #[command(flatten)]
    pub control: ControlArgs,
    /// Whether the command line (or a label) named the workload, rather
    /// than leaving it to the default or to a family's options.
    #[arg(skip)]
    pub workload_given: bool,
    /// The command as written (empty: the workload finds it among the
    /// words after bare options), for a workload that defines its own (see
    /// [`crate::workload::family::CommandLine::own_command_line`]).
    #[arg(long, hide = true)]
    pub script_command: Option<String>,
    /// The workload's own options as written (`--tables=2`), one each; a
    /// word after a bare `--name` follows it as its own entry, for the
    /// workload's declarations to read as the value or as the command.
    #[arg(long = "script-option", hide = true, allow_hyphen_values = true)]
    pub script_options: Vec<String>,
}

#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Random numbers (sysbench names and defaults)")]
pub struct RandArgs {
    /// uniform, gaussian, special, pareto, zipfian [default: special, sysbench's; a family may
    /// name its own, as dbSTRESS does uniform]
    #[arg(long, value_parser = values::rand_type)]
    pub rand_type: Option<String>,
    /// Seed (0: from the clock, so runs differ)
    #[arg(long, default_value_t = 0, value_parser = values::uint64)]
    pub rand_seed: u64,
    #[arg(long, default_value_t = 12, value_parser = values::spec_iter)]
    pub rand_spec_iter: u32,
    #[arg(long, default_value_t = 1.0, value_parser = values::percent)]
    pub rand_spec_pct: f64,
    #[arg(long, default_value_t = 75.0, value_parser = values::percent)]
    pub rand_spec_res: f64,
    #[arg(long, default_value_t = 0.2, value_parser = values::pareto_h)]
    pub rand_pareto_h: f64,
    #[arg(long, default_value_t = 0.8, value_parser = values::zipfian_exp)]
    pub rand_zipfian_exp: f64,
}

#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Run control")]
pub struct ControlArgs {
    /// Clients; a list (1,2,4,8 or 1..64) runs a sweep, one level after another
    #[arg(long, default_value = "1", value_parser = parse_levels)]
    pub threads: values::Levels,
    /// Seconds to run each level (after warmup); 0 with --events: no limit
    #[arg(long, default_value_t = 10.0, value_parser = values::seconds)]
    pub time: f64,
    /// Stop after this many events in total (0: no limit)
    #[arg(long, default_value_t = 0, value_parser = values::uint64)]
    pub events: u64,
    /// Seconds run before measuring
    #[arg(long, default_value_t = 0.0, value_parser = values::seconds)]
    pub warmup_time: f64,
    /// Open loop: events per second over all clients (0: closed loop)
    #[arg(long, default_value_t = 0.0, value_parser = values::rate)]
    pub rate: f64,
    /// Search the highest open-loop rate that meets this objective ('p99<=20ms', 'mean<=5ms', 'errors<=1%', several joined by commas): a closed-loop probe, then open-loop steps of --time each, bisected
    #[arg(long, value_name = "OBJECTIVE", value_parser = values::objective)]
    pub find_max: Option<crate::model::capacity::Objective>,
    /// With --find-max: search the client count (closed loop, from --threads up) instead of the rate
    #[arg(long)]
    pub find_max_threads: bool,
    /// With --find-max: the search ends when the bracket is within this percent of its lower end
    #[arg(long, value_name = "PCT", default_value_t = 5.0, value_parser = values::precision_pct)]
    pub find_max_precision: f64,
    /// With --find-max: runs of one step at most while its 95% interval holds the bound (then its estimate decides)
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = values::repetitions)]
    pub find_max_tries: usize,
    /// A long run at a fixed open-loop rate (4h, 30m, 90s), reported for degradation: --rate, or by default 70% of the last --find-max capacity stored for this workload and target
    #[arg(long, value_name = "DURATION", value_parser = values::span)]
    pub soak: Option<f64>,
    /// Open loop: spacing of the arrivals: poisson (sysbench's and pgbench's --rate) or even (one every 1/rate s, YCSB's -target)
    #[arg(long, value_name = "SPACING", default_value = "poisson", value_parser = values::arrivals)]
    pub arrivals: crate::model::Arrivals,
    /// Seconds between intermediate reports (0: none)
    #[arg(long, default_value_t = 1.0, value_parser = values::seconds)]
    pub report_interval: f64,
    /// Latency percentile of the sysbench lines
    #[arg(long, default_value_t = 95, value_parser = values::percentile)]
    pub percentile: u32,
    /// Start barrier: once all clients are connected, wait until this file is removed
    #[arg(long)]
    pub sync_file: Option<PathBuf>,
    /// Milliseconds between looks for the --sync-file (BMK-kit's; at most 100 are waited at a time)
    #[arg(long, default_value_t = 10, value_name = "MS", value_parser = values::uint64)]
    pub sync_wait: u64,
    /// Start barrier over processes: all members of the group NAME (on any hosts) start together
    #[arg(long, value_name = "NAME", env = "FAIRBENCH_GROUP", value_parser = values::group_name)]
    pub group: Option<String>,
    /// Members the --group waits for (registered in the target database)
    #[arg(long, value_name = "N", env = "FAIRBENCH_GROUP_SIZE", value_parser = values::group_size)]
    pub group_size: Option<usize>,
    /// This member's name in the --group (e.g. a Kubernetes Job's pod index; default: its arrival order)
    #[arg(long, value_name = "NAME", env = "FAIRBENCH_GROUP_MEMBER", value_parser = values::group_name)]
    pub group_member: Option<String>,
    /// Seconds a --group waits for its missing members before it gives up (exit 7)
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = values::seconds)]
    pub group_timeout: f64,
    /// Write per-interval latency histograms as an HdrHistogram interval log (for fairbench merge); - for stdout
    #[arg(long, value_name = "FILE", env = "FAIRBENCH_HDR_LOG")]
    pub hdr_log: Option<PathBuf>,
    /// Seconds to pause between the levels of a sweep (and between repetitions)
    #[arg(long, default_value_t = 0.0, value_parser = values::seconds)]
    pub pause: f64,
    /// Run each level N times, stored together as one series with a median, 95% interval and spread per level
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = values::repetitions)]
    pub repeat: usize,
    /// Order of a sweep's repetitions: interleaved (1,2,4,1,2,4: drift falls on every level alike) or grouped (1,1,2,2,4,4)
    #[arg(long, value_name = "ORDER", default_value = "interleaved", value_parser = values::repeat_order)]
    pub repeat_order: values::RepeatOrder,
    /// text (sysbench format) or json (JSON lines)
    #[arg(long, default_value = "text", value_parser = values::output)]
    pub output: crate::output::ConsoleFormat,
    /// OS threads for network clients (default: one per client up to 32 clients, as sysbench runs them; beyond, one per CPU)
    #[arg(long, value_parser = values::client_threads)]
    pub client_threads: Option<usize>,
    /// Rate mode: events that may wait for a free client before arrivals are dropped
    #[arg(long, default_value_t = 131072, value_parser = values::positive_usize)]
    pub queue_max: usize,
    /// Connections opened before the run and held idle beside the active clients until it ends (an application's idle pool)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub idle_clients: usize,
    /// Tries of an event a serialization failure or deadlock restarts, the first included; after the last, the event counts as failed and the client goes on (pgbench's --max-tries; 0: no limit)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = values::uint32)]
    pub max_tries: u32,
    /// Events slower than this many milliseconds count as late; no retry starts past it, and with --rate an arrival already this late is skipped (pgbench's -L)
    #[arg(long, value_name = "MS", value_parser = values::latency_limit)]
    pub latency_limit: Option<f64>,
    /// Print each error that restarts or fails an event on stderr, with the client and the try (pgbench's --verbose-errors)
    #[arg(long)]
    pub verbose_errors: bool,
    /// Failed events counted as serialization failures or deadlocks, in the logs and pgbench's report (pgbench's --failures-detailed)
    #[arg(long)]
    pub failures_detailed: bool,
    /// Write every event to a transaction log in pgbench's format, a file per client thread: pgbench_log.PID, pgbench_log.PID.1, ... (pgbench's -l)
    #[arg(long)]
    pub log: bool,
    /// With --log: the files' prefix instead of pgbench_log
    #[arg(long, value_name = "PREFIX", default_value = "pgbench_log")]
    pub log_prefix: String,
    /// With --log: a line per this many seconds instead of a line per event (pgbench's aggregate format)
    #[arg(long, value_name = "SECONDS", default_value_t = 0, value_parser = values::uint64)]
    pub aggregate_interval: u64,
    /// With --log: the share of events logged, from 0 to 1 (a random sample)
    #[arg(long, value_name = "RATE", value_parser = values::sampling_rate)]
    pub sampling_rate: Option<f64>,
    /// Do not prepare missing tables before run
    #[arg(long)]
    pub no_prepare: bool,
    /// Results store every run is recorded in (SQLite file)
    #[arg(long, default_value = crate::model::record::DEFAULT_STORE_PATH)]
    pub results: PathBuf,
    /// Do not record the run in the results store
    #[arg(long)]
    pub no_save: bool,
    /// Record the keys of the writes whose COMMIT was acknowledged, and of those whose outcome is unknown, in FILE
    /// (default: fairbench-writes-<run id>.log here), and read them back after the run: acknowledged writes
    /// missing fail the run (exit 5); see docs/verify-writes.md
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub verify_writes: Option<String>,
    /// Free text stored with the run (e.g. "io-bound baseline"), shown by results and compare
    #[arg(long, default_value = "")]
    pub tag: String,
    /// The server host's Prometheus node exporter (http://dbhost:9100/metrics): its CPU by mode,
    /// context switches, disks and swapping are sampled with the run, for a server on another host
    #[arg(long, value_name = "URL", value_parser = crate::values::metrics_url)]
    pub server_metrics: Option<String>,
    /// Sample where the server's time goes (its waits by class, per transaction) with its
    /// counters: PostgreSQL's sessions ten times a second, MySQL's performance_schema (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = values::parse_bool, default_value = "on")]
    pub server_time: bool,
    /// Sample the server's on-CPU stacks with Linux perf over each level's measured time (99 Hz),
    /// stored with the run and drawn as a flame graph by `report` (needs perf: apt-get install linux-perf)
    #[arg(long)]
    pub profile_server: bool,
    /// Serve a page drawing the run's time series as it goes: HOST:PORT, or a port (loopback)
    #[arg(long, value_name = "ADDR", value_parser = values::listen_addr)]
    pub live: Option<std::net::SocketAddr>,
    /// Serve OpenMetrics (Prometheus) figures of the run: HOST:PORT, or a port (loopback)
    #[arg(long, value_name = "ADDR", value_parser = values::listen_addr)]
    pub metrics_addr: Option<std::net::SocketAddr>,
    #[command(flatten)]
    pub sysbench: SysbenchControl,
}

/// sysbench's general options that fairbench's own names do not cover,
/// with sysbench's names, values and defaults.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "sysbench's general options")]
pub struct SysbenchControl {
    /// Print sysbench's latency histogram before the final report (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = values::parse_bool, default_value = "off")]
    pub histogram: bool,
    /// Seconds after the --time limit before a run still going is stopped and reported: N, N% of --time, or off
    #[arg(long, default_value = "off", value_parser = values::forced_shutdown)]
    pub forced_shutdown: values::ForcedShutdown,
    /// Seconds the clients may take to connect and get ready before the run gives up
    #[arg(long, default_value_t = 30.0, value_parser = values::seconds)]
    pub thread_init_timeout: f64,
    /// Print the full report and reset the counters at these seconds from the start (comma list)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = values::uint32)]
    pub report_checkpoints: Vec<u32>,
    /// sysbench's log level, 0 (critical messages only) to 5 (debug); below 3 the text console prints no header, interval lines or reports (the run is still stored); 5 adds each client's connect time on stderr
    #[arg(long, default_value_t = 3, value_parser = values::verbosity)]
    pub verbosity: u8,
    /// Print more debugging information (sets --verbosity=5, as in sysbench) (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = values::parse_bool, default_value = "off")]
    pub debug: bool,
    /// After the run, verify the workload's consistency conditions where it has them, as `check` does (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = values::parse_bool, default_value = "off")]
    pub validate: bool,
    /// sysbench's stack size per thread: accepted, no effect (fairbench's clients are not OS threads of a fixed stack)
    #[arg(long, value_name = "SIZE")]
    pub thread_stack_size: Option<String>,
    /// sysbench's LuaJIT control command (luajit -j): accepted, no effect
    #[arg(long, value_name = "CMD")]
    pub luajit_cmd: Option<String>,
}

impl SysbenchControl {
    /// The options given that change nothing here, for the one note line a run prints.
    pub fn without_effect(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.thread_stack_size.is_some() {
            v.push("--thread-stack-size");
        }
        if self.luajit_cmd.is_some() {
            v.push("--luajit-cmd");
        }
        v
    }

    /// The verbosity in force: --debug raises it to 5, as sysbench's does.
    pub fn level(&self) -> u8 {
        if self.debug {
            5
        } else {
            self.verbosity
        }
    }
}

/// Resolves a bench command's command line into the plan the family and
/// the driver read: the combinations of values checked, the workload and
/// its family found, the distribution and the target resolved.
pub fn plan(command: BenchCommand, mut args: BenchArgs) -> Result<Plan> {
    // Each value was checked alone when parsed (crate::values); what is left are combinations.
    let c = &args.control;
    // Checked here rather than with clap's `requires`, whose message
    // names only the missing option, not the one that needs it.
    if c.group.is_some() != c.group_size.is_some() {
        return Err(usage!("--group and --group-size go together: give both (--group NAME --group-size N)"));
    }
    if c.group_member.is_some() && c.group.is_none() {
        return Err(usage!("--group-member names a member of a --group: give --group NAME --group-size N too"));
    }
    if c.find_max.is_none() && c.find_max_threads {
        return Err(usage!("--find-max-threads searches for the objective given by --find-max: give --find-max 'p99<=20ms' too"));
    }
    if c.soak.is_some() && (c.find_max.is_some() || c.threads.0.len() > 1 || c.repeat > 1) {
        return Err(usage!("--soak runs one level at one rate for its duration: leave out --find-max, a list of --threads and --repeat"));
    }
    if c.find_max.is_some() {
        let clash = [
            (c.rate > 0.0, "--rate (the search sets the rate of each step)"),
            (c.threads.0.len() > 1, "a list of --threads (the search runs one client count, or searches it with --find-max-threads)"),
            (c.repeat > 1, "--repeat (the search repeats a step itself when its interval is undecided)"),
            (c.time == 0.0, "--time=0 (each step runs --time seconds)"),
        ];
        if let Some((_, what)) = clash.iter().find(|(on, _)| *on) {
            return Err(usage!("--find-max cannot go with {what}: leave it out"));
        }
    }
    if c.time == 0.0 && c.events == 0 && command == BenchCommand::Run {
        return Err(usage!("--time=0 and --events=0 would run forever: set one of them"));
    }
    let workload = crate::workload::family::chosen_workload(&args.workload, args.workload_given, &args.families)?;
    let Some(family) = crate::workload::family::find(&workload) else {
        let names = crate::workload::family::workload_names();
        if let Some(near) = crate::error::did_you_mean(&workload, names.iter().copied()) {
            return Err(usage!("unknown workload or label '{workload}': did you mean '{near}'? (`fairbench run --help` lists the workloads)"));
        }
        // The label examples that are not a workload name already listed.
        let labels: Vec<&str> = crate::workload::family::label_examples().into_iter().filter(|l| !names.contains(l)).collect();
        return Err(usage!("unknown workload or label '{workload}': use one of {} or a label such as {} (see `fairbench explain`)", names.join(", "), labels.join(" or ")));
    };
    if command == BenchCommand::Check && !family.has_check() {
        let checked = crate::workload::family::checked_workloads();
        return Err(usage!(
            "`check` verifies the consistency conditions of {}: use `fairbench check {}` (the {workload} workload has none)",
            checked.join(", "),
            checked.first().copied().unwrap_or_default()
        ));
    }
    // The distribution left to the default is the family's (sysbench's
    // special unless the family says otherwise); written back so every
    // reader of the options (a script's sysbench.opt, stored options)
    // sees the one in force.
    let r = &mut args.rand;
    let rand_type = r.rand_type.get_or_insert_with(|| family.default_rand_type().to_string());
    let kind: RandType = rand_type.parse().map_err(|e: String| Error::Usage(format!("--rand-type: {e}")))?;
    let dist = DistConfig { kind, spec_iter: r.rand_spec_iter, spec_pct: r.rand_spec_pct, spec_res: r.rand_spec_res, pareto_h: r.rand_pareto_h, zipfian_exp: r.rand_zipfian_exp };
    dist.validate().map_err(|e| Error::Usage(format!("random distribution: {e}")))?;
    let label_used = args.target.label.clone();
    let run = run_settings(&args.control, &args.rand, &args.target);
    let cfg = args.target.resolve()?;
    let BenchArgs { families, script_command, script_options, .. } = args;
    Ok(Plan { command, workload, family, families, run, dist, cfg, label_used, script_command, script_options })
}

/// The settings `c`, `r` and `t` describe (their combinations already checked).
fn run_settings(c: &ControlArgs, r: &RandArgs, t: &TargetArgs) -> RunSettings {
    let sb = &c.sysbench;
    let mut no_effect = sb.without_effect();
    no_effect.extend(t.without_effect());
    RunSettings {
        levels: c.threads.0.clone(),
        find_max: c.find_max.clone().map(|objective| crate::model::capacity::FindMax {
            objective,
            by: if c.find_max_threads { crate::model::capacity::Dimension::Threads } else { crate::model::capacity::Dimension::Rate },
            precision: c.find_max_precision / 100.0,
            tries: c.find_max_tries,
        }),
        time: c.soak.unwrap_or(c.time),
        soak: c.soak.is_some(),
        events: c.events,
        warmup_time: c.warmup_time,
        rate: c.rate,
        arrivals: c.arrivals,
        report_interval: c.report_interval,
        percentile: c.percentile,
        sync_file: c.sync_file.clone(),
        sync_wait_ms: c.sync_wait,
        group: c.group.clone().map(|name| Group { name, member: c.group_member.clone(), size: c.group_size.unwrap_or(1), timeout: c.group_timeout }),
        pause: c.pause,
        repeat: c.repeat,
        repeat_order: c.repeat_order,
        client_threads: c.client_threads,
        queue_max: c.queue_max,
        idle_clients: c.idle_clients,
        tries: crate::model::TryPolicy {
            max_tries: c.max_tries,
            latency_limit: c.latency_limit.map(|ms| std::time::Duration::from_secs_f64(ms / 1e3)),
            verbose: c.verbose_errors,
            failures_detailed: c.failures_detailed,
        },
        log: c.log.then(|| crate::model::LogSpec {
            prefix: c.log_prefix.clone(),
            aggregate_s: c.aggregate_interval,
            sampling: c.sampling_rate.unwrap_or(1.0),
            failures_detailed: c.failures_detailed,
            max_tries: c.max_tries,
            latency_limit: c.latency_limit.is_some(),
        }),
        no_prepare: c.no_prepare,
        seed: r.rand_seed,
        verify_writes: c.verify_writes.clone(),
        sysbench: Sysbench {
            histogram: sb.histogram,
            forced_shutdown: sb.forced_shutdown,
            init_timeout: sb.thread_init_timeout,
            checkpoints: sb.report_checkpoints.clone(),
            verbosity: sb.level(),
            validate: sb.validate,
            no_effect,
        },
        outputs: Outputs { console: c.output, store: (!c.no_save).then(|| c.results.clone()), tag: c.tag.clone(), hdr_log: c.hdr_log.clone(), live: c.live, metrics_addr: c.metrics_addr },
        sampling: SamplingSettings { server_metrics: c.server_metrics.clone(), server_time: c.server_time, profile_server: c.profile_server },
    }
}
