//! The driver of a bench command (prepare, run, cleanup, prewarm, check):
//! it owns the run a family described, from the first connection to the
//! record: the levels through the runner, the sinks, the environment's
//! sampler and the store's recorder. It reads the plan's typed settings,
//! never the command line.

use crate::db::ConnConfig;
use crate::error::{Error, Result};
use crate::live;
use crate::model::options::RunOptions;
use crate::model::{self, LevelOptions, LevelResult, RunControl, RunInfo, Sinks, Stop};
use crate::runner;
use crate::values::RepeatOrder;
use crate::workload::family::Drivable;
use crate::workload::plan::RunSettings;
use crate::workload::plan::{BenchCommand, Plan};
use crate::workload::{Part, TableState, Workload};
use std::sync::Arc;
use std::time::Duration;

/// `cfg` with its engine known: asked of the server, when several engines
/// speak its protocol, before a family builds its workload, whose SQL is the
/// engine's. The server answers within --thread-init-timeout or the command
/// gives up, as it would waiting for its clients; Ctrl-C ends the wait.
pub fn identified(cfg: ConnConfig, run: &RunSettings) -> Result<ConnConfig> {
    if cfg.engine.get().is_some() {
        return Ok(cfg);
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    let limit = Some(Duration::from_secs_f64(run.sysbench.init_timeout)).filter(|d| !d.is_zero());
    until_interrupted(rt, async {
        match limit {
            Some(d) => tokio::time::timeout(d, crate::db::identify(&cfg)).await.map_err(|_| not_ready(d, run.max_threads(), &cfg))?,
            None => crate::db::identify(&cfg).await,
        }
    })?;
    Ok(cfg)
}

/// The clients (none yet) were not ready within the --thread-init-timeout `d`.
fn not_ready(d: Duration, clients: usize, cfg: &ConnConfig) -> Error {
    Error::Connect(format!(
        "0 of {clients} clients were connected and ready {} s after the start: {} did not answer in time; raise --thread-init-timeout if it is only slow",
        d.as_secs_f64(),
        cfg.target
    ))
}

/// Every workload a family builds is driven here.
impl<W: Workload> Drivable for Arc<W> {
    fn drive(self: Box<Self>, plan: &Plan, cfg: Arc<ConnConfig>) -> Result<()> {
        drive(*self, plan, cfg)
    }

    fn check_writes(self: Box<Self>, log: &std::path::Path, cfg: Arc<ConnConfig>) -> Result<serde_json::Value> {
        super::verify::check_file(self.as_ref().as_ref(), log, cfg)
    }

    fn settings(&self, cfg: &ConnConfig) -> (String, Vec<(String, String)>) {
        (self.label(cfg), recorded_options(self.as_ref(), cfg))
    }
}

/// The options a run records for its workload: the workload's own, and
/// whether statements were prepared for every workload (the audit compares
/// it across runs; LinkBench and YCSB did not say).
fn recorded_options<W: Workload>(w: &W, cfg: &ConnConfig) -> Vec<(String, String)> {
    let mut v = w.options(cfg);
    crate::workload::add_missing(&mut v, vec![("db-ps-mode".into(), if cfg.prepared { "auto" } else { "disable" }.into())]);
    v
}

/// prepare / cleanup / prewarm / check / run for any workload.
fn drive<W: Workload>(w: Arc<W>, plan: &Plan, cfg: Arc<ConnConfig>) -> Result<()> {
    // A soak without --rate runs at a share of the capacity a search stored.
    let soaked;
    let c = match runner::search::soak_rate(plan, &cfg)? {
        Some(rate) => {
            soaked = RunSettings { rate, ..plan.run.clone() };
            &soaked
        }
        None => &plan.run,
    };
    // A series runs each level --repeat times; the levels are stored in the order they ran.
    let levels = runner::repetition_order(&c.levels, c.repeat, c.repeat_order == RepeatOrder::Interleaved);
    let max_threads = *levels.iter().max().unwrap_or(&1);
    let json = c.outputs.console.json();
    let sb = &c.sysbench;
    let level = sb.verbosity;
    // sysbench prints its header and reports at its notice level (3):
    // below it the text console shows only errors and warnings.
    let loud = !json && level >= 3;
    let quiet = !loud;
    if !sb.no_effect.is_empty() && (json || level >= 2) {
        let line = match sb.no_effect.as_slice() {
            [one] => format!("Note: {one} is a sysbench option that has no effect in fairbench."),
            many => format!("Note: {} are sysbench options that have no effect in fairbench.", many.join(", ")),
        };
        if json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    let init_timeout = Some(Duration::from_secs_f64(sb.init_timeout)).filter(|d| !d.is_zero());
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    match plan.command {
        BenchCommand::Prepare => {
            return until_interrupted(rt, async {
                super::shard::before_prepare(w.as_ref(), &cfg, quiet).await?;
                let prepared = w.prepare(cfg.clone(), max_threads, quiet).await;
                // Refused for data already there that does not match: how to start over.
                if let Err(Error::Usage(why)) = &prepared {
                    if matches!(w.table_state(&cfg).await, Ok(TableState::Mismatch(_))) {
                        return Err(Error::Usage(format!("{why}: {}", super::hint::start_over(&super::hint::typed()))));
                    }
                }
                prepared
            });
        }
        BenchCommand::Cleanup => {
            let drop_group = runner::group::drop_table(cfg.clone());
            return until_interrupted(rt, async move {
                w.cleanup(cfg.clone(), max_threads, quiet).await?;
                super::shard::after_cleanup(w.as_ref(), &cfg, quiet).await?;
                drop_group.await
            });
        }
        BenchCommand::Prewarm => return until_interrupted(rt, w.prewarm(cfg.clone(), quiet)),
        BenchCommand::Check => return until_interrupted(rt, w.check(Arc::new(cfg.for_checks()), quiet)),
        BenchCommand::Run => super::verify::refuse_unsupported(w.as_ref(), plan)?,
    }
    let ready = until_interrupted(rt, tables_ready(w.as_ref(), &cfg, max_threads, c.no_prepare, quiet, init_timeout));
    let part = ready.as_ref().ok().cloned().flatten();
    let ready = ready.map(|_| ());
    // Unreachable server, Ctrl-C while preparing, or tables that do not match the options (exit
    // 2: nothing was run or changed, the store included): no run began, nothing to record.
    if matches!(ready, Err(Error::Connect(_) | Error::Interrupted | Error::Usage(_))) {
        return ready;
    }
    let label = w.label(&cfg);
    // The workload's options, then run control's (which replace a workload's of the same name).
    let mut options = RunOptions::from_pairs(recorded_options(w.as_ref(), &cfg));
    let o = &mut options.control;
    o.threads = Some(c.levels.clone());
    if c.repeat > 1 {
        o.repeat = Some(c.repeat);
        o.repeat_order = Some(c.repeat_order.name());
    }
    o.time = Some(c.time);
    o.events = Some(c.events);
    o.rate = Some(c.rate);
    if c.rate > 0.0 {
        o.arrivals = Some(c.arrivals.name());
    }
    o.warmup_time = Some(c.warmup_time);
    o.rand_seed = Some(c.seed);
    // A run over part of bigger tables has a smaller working set than the
    // data: recorded, so the audit can say so next to the memory fit.
    if let Some(part) = part {
        options.data.data_table_size = Some(part.rows);
        options.data.touched_table_size = Some(part.touched);
        if !quiet {
            println!("Note: the tables hold ids up to {} but {} is {}: this run touches only that part of each table, a smaller working set than the data.", part.rows, part.option, part.touched);
        }
    }
    let info = RunInfo {
        label: label.clone(),
        workload: plan.workload.clone(),
        engine: cfg.engine().name().to_string(),
        target: cfg.target.to_string(),
        transport: cfg.target.transport().to_string(),
        percentile: c.percentile,
        options,
        kinds: w.kinds().iter().map(|k| k.to_string()).collect(),
        steps: w.steps().iter().map(|k| k.to_string()).collect(),
    };
    let group = c.group.as_ref().map(|g| Arc::new(runner::group::Group::new(&g.name, g.member.as_deref(), g.size, Duration::from_secs_f64(g.timeout), cfg.clone())));
    // A workload may bring its own output (TPC-C's figures and formats).
    let own_console = w.sink(json, c.percentile, &live::Standard);
    let standard_console = own_console.is_none();
    let outputs = live::sinks::open(live::sinks::Setup {
        info: &info,
        format: c.outputs.console,
        loud,
        percentile: c.percentile,
        checkpoints: !sb.checkpoints.is_empty(),
        live: c.outputs.live,
        metrics: c.outputs.metrics_addr,
        hdr_log: c.outputs.hdr_log.as_deref(),
        gate: group.clone().map(|g| g as Arc<dyn model::StartGate>),
        own_console,
    })?;
    let hooks = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    // Every run is recorded (store::Recorder) unless --no-save, with the
    // environment sampled beside it: the start snapshot is taken here.
    let recording = match &c.outputs.store {
        None => None,
        Some(store) => {
            let (recorder, mut setup) = super::record::recorder(store, &info, &cfg, &levels, c, &w.dataset_tables())?;
            setup.reshaped_by_run = w.reshapes_tables();
            let mut store = recorder.sample_writer();
            // The live metrics publish the hardware figures of each sample too.
            let live = outputs.live().cloned();
            let server: Arc<std::sync::OnceLock<crate::env::Server>> = Arc::default();
            let seen = server.clone();
            let write = Box::new(move |row: &crate::env::SampleRow| {
                store(row);
                if let (Some(l), Some(s)) = (&live, seen.get()) {
                    l.observe_sample(s, row);
                }
            });
            let (sampling, snap) = runner::sampling::Sampling::start(&cfg, setup, write);
            recorder.env_start(&snap);
            // Through a pooler, prepared statements go unnamed: said before the run, not only stored.
            if let Some(p) = snap.server.pooler.as_ref().filter(|_| loud) {
                println!("Note: {p}.");
            }
            let _ = server.set(snap.server);
            Some((recorder, sampling))
        }
    };
    // A run that failed before its first level (an SQL error while it prepared
    // the missing tables) is stored as failed with the reason, so `results show` can say why.
    if ready.is_err() {
        if let Some((r, sampling)) = &recording {
            super::record::finish_recording(r, &ready, sampling.finish(), false, quiet);
        }
        return ready;
    }
    let recorder = recording.as_ref().map(|(r, _)| r);
    let writes = super::verify::start(w.as_ref(), plan, &cfg, recorder.map(|r| (r.run_id(), r.path())))?;
    let console_at = outputs.console_at();
    // The sampler hears of each level right after the store.
    let mut sink = Sinks(outputs.sinks(recording.iter().flat_map(|(r, s)| [r.sink(), s.sink()])));
    let mut outcome = Ok(());
    // Held until the run ends (dropped with this scope): the idle connections beside every level.
    let _idle = match c.idle_clients {
        0 => None,
        n => match runner::idle::open(&cfg, n) {
            Ok(idle) => {
                if json {
                    println!("{}", idle.json());
                } else if !quiet {
                    println!("{}", idle.line());
                }
                Some(idle)
            }
            Err(e) => {
                outcome = Err(e);
                None
            }
        },
    };
    // (threads, tps, p95, p99) of each completed level, for the series summary.
    let mut measured: Vec<(usize, f64, f64, f64)> = Vec::new();
    // A --find-max search chooses each level from those before it; otherwise they are `levels`.
    let mut search = c.find_max.clone().map(|f| runner::search::Search::new(f, c.levels.first().copied().unwrap_or(1)));
    // `--reconnect N`, which every workload takes.
    let reconnect = plan.families.get::<crate::workload::common::CommonArgs>().map(|a| a.reconnect).unwrap_or(0);
    let mut i = 0;
    // The idle clients could not all connect: nothing runs.
    while outcome.is_ok() {
        let step = match search.as_mut() {
            Some(s) => s.next_level(),
            None => levels.get(i).map(|&threads| runner::search::Next { threads, rate: c.rate, probe: false }),
        };
        let Some(step) = step else { break };
        let threads = step.threads;
        if i > 0 && c.pause > 0.0 {
            crate::signal::sleep_unless_interrupted(Duration::from_secs_f64(c.pause));
        }
        // Stopped between levels (during --pause): the sweep is cut short.
        if crate::model::interrupted() {
            outcome = Err(Error::Interrupted);
            break;
        }
        if loud {
            match w.level_name(i) {
                // A sequence of named steps: the banner and the plan once, then each step's name
                // (the Insert Benchmark printed its whole banner ten times).
                Some(name) if i > 0 => println!("\nStep: {name}"),
                Some(name) => {
                    print_header(&info, threads, c, search.is_some());
                    if let Some(plan) = w.plan_note() {
                        println!("{plan}");
                    }
                    println!("Step: {name}");
                }
                None if search.is_some() => {
                    if i == 0 {
                        print_header(&info, threads, c, true);
                    }
                    println!("{}", runner::search::banner(i, step));
                }
                None => print_header(&info, threads, c, false),
            }
        }
        let rc = RunControl {
            threads,
            time: Duration::from_secs_f64(c.time),
            events: c.events,
            warmup: Duration::from_secs_f64(c.warmup_time),
            rate: step.rate,
            arrivals: c.arrivals,
            report_interval: Duration::from_secs_f64(c.report_interval),
            sync_file: c.sync_file.clone(),
            sync_wait: Duration::from_millis(c.sync_wait_ms),
            worker_threads: c.client_threads,
            queue_max: c.queue_max,
            reconnect,
            seed: c.seed,
            gate: group.clone().map(|g| g as Arc<dyn model::StartGate>),
            round: i,
            tries: c.tries,
            log: c.log.clone(),
        };
        let opts = LevelOptions { checkpoints: sb.checkpoints.clone(), forced_shutdown: sb.forced_shutdown.grace(c.time).map(Duration::from_secs_f64), init_timeout, debug: level >= 5 };
        // Errors end the loop through `outcome`, so the record stores them.
        let mut lvl = match hooks.block_on(w.run_started(&cfg, &rc)).and_then(|()| runner::run_level_with(w.clone(), cfg.clone(), &rc, &opts, &mut sink)) {
            Ok(r) => r,
            Err(e) => {
                outcome = Err(e);
                break;
            }
        };
        if let Some(g) = &group {
            g.leave(i);
        }
        // The level was measured: its summary is printed and stored even
        // when the workload's closing step (TPC-C's NOPM read) fails.
        let finished = hooks.block_on(w.run_finished(&cfg, &lvl.result));
        lvl.result.name = w.level_name(i).or_else(|| search.as_ref().map(|_| runner::search::level_name(step)));
        lvl.result.figures = w.level_figures();
        let r = &lvl.result;
        if let Some(n) = lvl.forced {
            // sysbench's line, whatever the verbosity (it is fatal).
            let mut line = "FATAL: The --max-time limit has expired, forcing shutdown...".to_string();
            if n > 0 && loud {
                line.push_str(&format!("\n\nNumber of unfinished transactions on forced shutdown: {n}"));
            }
            if json {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        }
        summaries(&mut sink, console_at, &lvl, &info, SummaryStyle { loud, standard_console, histogram: sb.histogram && lvl.forced.is_none() });
        if let Err(e) = finished {
            outcome = Err(e);
            break;
        }
        if let (Some(_), Stop::Failed(m)) = (lvl.forced, &r.stop) {
            outcome = Err(Error::Forced(m.clone()));
            break;
        }
        match r.stop.clone() {
            Stop::Completed => {
                let t = &r.total;
                measured.push((threads, t.events as f64 / r.elapsed_s.max(1e-9), t.pct_ms(95.0), t.pct_ms(99.0)));
                if let Some(s) = search.as_mut() {
                    let judged = s.measured(step, r);
                    if loud {
                        println!("{}", runner::search::verdict_line(&judged));
                    }
                    if let Some(rec) = recorder {
                        rec.set_capacity(&s.outcome(None));
                    }
                }
            }
            Stop::Interrupted => {
                outcome = Err(Error::Interrupted);
                break;
            }
            Stop::Failed(m) => {
                outcome = Err(Error::Sql(m));
                break;
            }
        }
        i += 1;
    }
    if let Some(s) = &search {
        let stopped = match &outcome {
            Ok(()) => None,
            Err(Error::Interrupted) => Some("stopped by Ctrl-C".to_string()),
            Err(e) => Some(format!("stopped by an error ({e})")),
        };
        let found = s.outcome(stopped);
        if let Some(rec) = recorder {
            rec.set_capacity(&found);
        }
        if json {
            println!("{}", serde_json::json!({ "type": "find_max", "capacity": found }));
        } else if !quiet || outcome.is_err() {
            print!("{}", found.text());
        }
    }
    if c.repeat > 1 {
        series_summary(&measured, levels.len(), c, json, loud);
    }
    if let Some(log) = writes {
        outcome = super::verify::after_run(w.as_ref(), log, cfg.clone(), recorder, outcome, json);
    }
    if let Some((r, sampling)) = &recording {
        super::record::finish_recording(r, &outcome, sampling.finish(), levels.len() > 1 || search.is_some(), quiet);
    }
    if outcome.is_ok() && sb.validate {
        outcome = validate(w.as_ref(), plan, cfg, json, quiet);
    }
    outcome
}

/// The series' table after its last repetition (or what completed before
/// an interrupt, saying how much that is).
fn series_summary(measured: &[(usize, f64, f64, f64)], planned: usize, c: &RunSettings, json: bool, loud: bool) {
    let levels = crate::model::record::Repeated::group(measured.iter().copied());
    if json {
        println!("{}", live::series::json(&levels, &c.repeat_order.name()));
        return;
    }
    if measured.len() < planned {
        println!("\n{} of {} repetitions completed; every completed one is stored.", measured.len(), planned);
    }
    if loud && !levels.is_empty() {
        println!();
        print!("{}", live::series::text(&levels, &c.repeat_order.name()));
    }
}

/// How the console shows a level's summary.
struct SummaryStyle {
    /// The text console prints reports (not JSON, verbosity 3 or more).
    loud: bool,
    /// The console is fairbench's own, not a workload's.
    standard_console: bool,
    /// `--histogram`: sysbench's latency histogram before the report.
    histogram: bool,
}

/// Feeds a level's summary to the sinks. With `--report-checkpoints`, the
/// text console's sysbench report covers what came after the last
/// checkpoint, as sysbench's does; every other sink gets the whole run.
fn summaries(sink: &mut Sinks, console_at: Option<usize>, lvl: &runner::Level, info: &RunInfo, style: SummaryStyle) {
    let r = &lvl.result;
    let tail = lvl.tail.as_ref().filter(|_| style.loud);
    if style.loud && style.histogram {
        println!();
        print!("{}", live::sysbench::histogram_text(&tail.map(|t| &t.w).unwrap_or(&r.total).lat));
    }
    for (i, s) in sink.0.iter_mut().enumerate() {
        if Some(i) != console_at || !style.loud || (tail.is_none() && !style.histogram) {
            s.summary(r, info);
        } else if style.standard_console {
            // After the histogram's closing line the report follows at
            // once, as in sysbench.
            use std::io::Write;
            let mut o = std::io::stdout().lock();
            let _ = write!(o, "{}{}", if style.histogram { "" } else { "\n" }, live::summary_text_after(r, tail, info));
            let _ = o.flush();
        } else if let Some(cp) = tail {
            let part = LevelResult {
                threads: r.threads,
                total: cp.w.clone(),
                elapsed_s: cp.secs,
                clients: cp.clients.clone(),
                cpu_user_s: r.cpu_user_s,
                cpu_sys_s: r.cpu_sys_s,
                intervals: Vec::new(),
                stop: r.stop.clone(),
                rate: r.rate,
                outage: r.outage.clone(),
                name: r.name.clone(),
                figures: r.figures.clone(),
                connect_s: r.connect_s,
            };
            s.summary(&part, info);
            println!("Note: the report above covers the {:.4}s after the last checkpoint ({}s); the stored run covers the whole run.", cp.secs, cp.at_s);
        } else {
            s.summary(r, info);
        }
    }
}

/// `--validate`: after a completed run, the workload's consistency
/// conditions, checked as `fairbench check` checks them.
fn validate<W: Workload>(w: &W, plan: &Plan, cfg: Arc<ConnConfig>, json: bool, quiet: bool) -> Result<()> {
    if !plan.family.has_check() {
        let line = format!("Note: --validate: the {} workload has no consistency conditions to verify; nothing to validate.", plan.workload);
        if json {
            eprintln!("{line}");
        } else if !quiet {
            println!("{line}");
        }
        return Ok(());
    }
    if !quiet {
        println!();
        println!("Validating (--validate): the workload's consistency conditions, as `fairbench check` verifies them.");
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    until_interrupted(rt, w.check(Arc::new(cfg.for_checks()), quiet))
}

/// How long a command that was asked to stop may take to stop on its own
/// (a prepare saying which tables are complete) before its work is dropped.
const STOP_GRACE: Duration = Duration::from_millis(1200);

/// Runs `work` to its end, or until Ctrl-C / SIGTERM plus [`STOP_GRACE`]:
/// then it is dropped, and the runtime is shut down without waiting for
/// tasks still inside a call. Their connections close, so the servers roll
/// back what was not committed (and SQLite never saw a commit).
fn until_interrupted<T>(rt: tokio::runtime::Runtime, work: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    let r = rt.block_on(async {
        tokio::select! {
            biased;
            r = work => r,
            () = async {
                crate::signal::interrupt_signal().await;
                tokio::time::sleep(STOP_GRACE).await;
            } => Err(Error::Interrupted),
        }
    });
    rt.shutdown_background();
    r
}

/// Makes sure the workload's tables are there and match the options,
/// preparing them when missing unless `--no-prepare`. Gives the part the
/// run touches when the tables hold well more than the options say.
/// The first connection answers within `init_timeout` (--thread-init-timeout)
/// or the run gives up, as it would waiting for its clients.
async fn tables_ready<W: Workload>(w: &W, cfg: &Arc<ConnConfig>, max_threads: usize, no_prepare: bool, quiet: bool, init_timeout: Option<Duration>) -> Result<Option<Part>> {
    let state = match init_timeout {
        Some(d) => tokio::time::timeout(d, w.table_state(cfg)).await.map_err(|_| not_ready(d, max_threads, cfg))?,
        None => w.table_state(cfg).await,
    };
    let state = state?;
    // What the target cannot shard is refused before anything changes.
    if !matches!(state, TableState::Missing) || no_prepare {
        super::shard::refuse(w, cfg).await?;
    }
    match state {
        TableState::Ready => Ok(None),
        TableState::Larger(part) => Ok(Some(part)),
        TableState::Missing if !no_prepare => {
            if !quiet {
                println!("Tables are missing: preparing them first.");
            }
            super::shard::before_prepare(w, cfg, quiet).await?;
            w.prepare(cfg.clone(), max_threads.max(2), quiet).await.map(|()| None)
        }
        TableState::Missing => {
            let prepare = super::hint::with_verb(&super::hint::typed(), "prepare").unwrap_or_else(|| "fairbench prepare".into());
            Err(Error::Usage(format!("the workload's tables do not exist: run `{prepare}` first, or leave out --no-prepare")))
        }
        TableState::Mismatch(why) => Err(Error::Usage(format!("{why}: give the options the data was prepared with, or {}", super::hint::start_over(&super::hint::typed())))),
    }
}

fn print_header(info: &RunInfo, threads: usize, c: &RunSettings, searching: bool) {
    println!("fairbench {} ({} on {}, {})", crate::VERSION, info.workload, info.target, info.transport);
    println!("Label: {}", info.label);
    println!();
    println!("Running the test with following options:");
    println!("Number of threads: {threads}");
    if let Some(f) = c.find_max.as_ref().filter(|_| searching) {
        println!(
            "Searching the highest {} that meets {} (steps of {}s, precision {}%)",
            if f.by == crate::model::capacity::Dimension::Threads { "client count" } else { "rate" },
            f.objective,
            c.time,
            f.precision * 100.0
        );
    }
    if c.rate > 0.0 {
        println!("Target transaction rate: {}/sec", c.rate);
    }
    if c.report_interval > 0.0 {
        println!("Report intermediate results every {} second(s)", c.report_interval);
    }
    if !c.sysbench.checkpoints.is_empty() {
        let list: Vec<String> = c.sysbench.checkpoints.iter().map(|s| s.to_string()).collect();
        println!("Report checkpoint(s) at {} seconds", list.join(", "));
    }
    if c.warmup_time > 0.0 {
        println!("Warmup time: {}s", c.warmup_time);
    }
    println!();
    println!("Initializing worker threads...");
    println!();
}
