//! fairbench: prepare, run, check and compare OLTP benchmarks on
//! MySQL-family servers, PostgreSQL and embedded SQLite, with one client.

pub mod audit;
pub mod cli;
mod commands;
pub mod compare;
pub mod db;
pub mod env;
pub mod error;
pub mod label;
pub mod model;
pub mod rand;
mod relay;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod server;
pub mod stats;
pub mod store;
pub mod values;
pub mod view;
pub mod workload;

use cli::Cmd;
use error::{exit, Error, Result};
use model::{RunControl, RunInfo, Sink, Sinks, Stop};
use report::{Console, Format};
use std::sync::Arc;
use std::time::Duration;
use workload::plan::{self, BenchArgs, Plan};
use workload::{TableState, Workload};

/// Parse the command line, run, and turn the outcome into an exit code.
pub fn main_entry() -> i32 {
    let argv = match cli::args_utf8(std::env::args_os()) {
        Ok(a) => a,
        Err(why) => {
            eprintln!("fairbench: {why}");
            return exit::USAGE;
        }
    };
    let cli = match cli::parse(argv) {
        Ok(c) => c,
        // --help and --version: clap prints them as they are.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return exit::OK;
        }
        // A bare `fairbench`: the help is the answer, but nothing was run.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return exit::USAGE;
        }
        Err(e) => {
            eprintln!("fairbench: {}", error::one_line(&cli::error_line(&e)));
            return exit::USAGE;
        }
    };
    // The store commands only read, or change the store in one SQLite
    // transaction: nothing is lost by stopping them at once.
    let at_once = matches!(cli.cmd, Cmd::Results(_) | Cmd::Audit(_) | Cmd::Compare(_) | Cmd::Report(_) | Cmd::Merge(_) | Cmd::Env(_) | Cmd::Explain { .. });
    runner::install_signal_handlers(at_once);
    let relay = if at_once || matches!(cli.cmd, Cmd::Check(_)) {
        // Commands that only report end quietly when their reader goes away
        // (`| head`), as Unix tools do: printing to a closed pipe would
        // otherwise panic.
        // SAFETY: restores the default action of one signal before any thread starts.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
        None
    } else {
        // The others have something to save: they go on to the end.
        relay::install()
    };
    runner::start_stop_watchdog();
    let code = match run(cli) {
        Ok(()) => exit::OK,
        Err(e) => {
            if !matches!(e, Error::Interrupted) {
                eprintln!("fairbench: {}", error::one_line(&e.to_string()));
            }
            e.exit_code()
        }
    };
    if let Some(r) = relay {
        r.finish();
    }
    code
}

pub fn run(cli: cli::Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Explain { label } => explain(&label),
        Cmd::Run(a) => bench("run", a),
        Cmd::Prepare(a) => bench("prepare", a),
        Cmd::Cleanup(a) => bench("cleanup", a),
        Cmd::Prewarm(a) => bench("prewarm", a),
        Cmd::Check(a) => bench("check", a),
        Cmd::Results(a) => commands::results(a),
        Cmd::Env(a) => commands::env(a),
        Cmd::Audit(a) => commands::audit(a),
        Cmd::Compare(a) => commands::compare(a),
        Cmd::Server(a) => commands::server::server(a),
        Cmd::Scenario(a) => commands::scenario::scenario(a),
        Cmd::Report(a) => commands::report(a),
        Cmd::Merge(a) => commands::merge::merge(a),
    }
}

fn explain(label: &str) -> Result<()> {
    let d = workload::family::parse_label(label).map_err(|e| Error::Usage(e.to_string()))?;
    println!("{label}");
    for (tok, what) in &d.explanation {
        println!("  {tok:<20} {what}");
    }
    println!("command: {}", d.command);
    println!("workload: {}", d.workload);
    let opts: Vec<String> = d.options.iter().map(|(k, v)| format!("--{k}={v}")).collect();
    println!("options: {}", opts.join(" "));
    let get = |n: &str| if n == "command" { Some(d.command.clone()) } else { d.options.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()) };
    println!("canonical: {}", workload::family::canonical_label(&d.workload, &get));
    Ok(())
}

fn bench(command: &str, args: BenchArgs) -> Result<()> {
    let mut plan = Plan::new(command, args)?;
    let cfg = plan.args.target.resolve()?;
    plan.family.bench(&mut plan, cfg)
}

/// prepare / cleanup / prewarm / check / run for any workload: a family's
/// [`Family::bench`](workload::family::Family::bench) calls it with the
/// workload it built.
pub fn drive<W: Workload>(w: Arc<W>, plan: &Plan, cfg: Arc<db::ConnConfig>) -> Result<()> {
    let c = &plan.args.control;
    let levels = c.threads.0.clone();
    let max_threads = *levels.iter().max().unwrap_or(&1);
    let json = c.output == "json";
    let quiet = json;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    match plan.command.as_str() {
        "prepare" => return until_interrupted(rt, w.prepare(cfg.clone(), max_threads, quiet)),
        "cleanup" => {
            let drop_group = runner::group::drop_table(cfg.clone());
            return until_interrupted(rt, async move {
                w.cleanup(cfg.clone(), max_threads, quiet).await?;
                drop_group.await
            });
        }
        "prewarm" => return until_interrupted(rt, w.prewarm(cfg.clone(), quiet)),
        "check" => return until_interrupted(rt, w.check(cfg.clone(), quiet)),
        _ => {}
    }
    let ready = until_interrupted(rt, tables_ready(w.as_ref(), &cfg, max_threads, c.no_prepare, quiet));
    let data_rows = ready.as_ref().ok().copied().flatten();
    let ready = ready.map(|_| ());
    // Unreachable server or Ctrl-C while preparing: no run began, nothing to record.
    if matches!(ready, Err(Error::Connect(_) | Error::Interrupted)) {
        return ready;
    }
    let label = w.label(&cfg);
    let mut options = w.options(&cfg);
    options.push(("threads".into(), levels.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(",")));
    options.push(("time".into(), c.time.to_string()));
    options.push(("events".into(), c.events.to_string()));
    options.push(("rate".into(), c.rate.to_string()));
    options.push(("warmup-time".into(), c.warmup_time.to_string()));
    options.push(("rand-seed".into(), plan.args.rand.rand_seed.to_string()));
    // A run over part of bigger tables has a smaller working set than the
    // data: recorded, so the audit can say so next to the memory fit.
    if let Some(rows) = data_rows {
        options.push(("data-table-size".into(), rows.to_string()));
        if !quiet {
            let size = options.iter().find(|(k, _)| k == "table-size").map(|(_, v)| v.as_str()).unwrap_or("?");
            println!("Note: the tables hold ids up to {rows} but --table-size is {size}: this run touches only that part of each table, a smaller working set than the data.");
        }
    }
    let info = RunInfo {
        label: label.clone(),
        workload: plan.workload.clone(),
        engine: cfg.target.engine.name().to_string(),
        target: cfg.target.to_string(),
        transport: cfg.target.transport().to_string(),
        percentile: c.percentile,
        options,
        kinds: w.kinds().iter().map(|k| k.to_string()).collect(),
        steps: w.steps().iter().map(|k| k.to_string()).collect(),
    };
    // A workload may bring its own output (TPC-C's figures and formats).
    let console: Box<dyn Sink> = match w.sink(json, c.percentile) {
        Some(s) => s,
        None => Box::new(Console { format: if json { Format::Json } else { Format::Text }, percentile: c.percentile, level_threads: 0 }),
    };
    let live = report::live::watch(&info, c.live, c.metrics_addr, json)?;
    let group = c.group.as_ref().map(|name| Arc::new(runner::group::Group::new(name, c.group_member.as_deref(), c.group_size.unwrap_or(1), Duration::from_secs_f64(c.group_timeout), cfg.clone())));
    let hdr_log: Option<Box<dyn Sink>> = match &c.hdr_log {
        Some(path) => Some(Box::new(report::hdrlog::HdrLog::create(path, &info, group.clone().map(|g| g as Arc<dyn model::StartGate>))?)),
        None => None,
    };
    let hooks = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    // Every run is recorded (store::Recorder) unless --no-save.
    let recorder = if c.no_save { None } else { Some(commands::recorder(&c.results, &info, &cfg, &levels, c, &w.dataset_tables())?) };
    // A run refused before its first level (tables that do not match) is
    // stored as failed with the reason, so `results show` can say why.
    if ready.is_err() {
        if let Some(r) = &recorder {
            commands::finish_recording(r, &ready, false, json);
        }
        return ready;
    }
    let mut sinks: Vec<Box<dyn Sink>> = vec![console];
    sinks.extend(recorder.as_ref().map(|r| r.sink()));
    sinks.extend(live.map(|l| l.sink()));
    sinks.extend(hdr_log);
    let mut sink = Sinks(sinks);
    let mut outcome = Ok(());
    for (i, &threads) in levels.iter().enumerate() {
        if i > 0 && c.pause > 0.0 {
            runner::sleep_unless_interrupted(Duration::from_secs_f64(c.pause));
        }
        // Stopped between levels (during --pause): the sweep is cut short.
        if crate::model::interrupted() {
            outcome = Err(Error::Interrupted);
            break;
        }
        if !json {
            print_header(&info, threads, c);
        }
        let rc = RunControl {
            threads,
            time: Duration::from_secs_f64(c.time),
            events: c.events,
            warmup: Duration::from_secs_f64(c.warmup_time),
            rate: c.rate,
            report_interval: Duration::from_secs_f64(c.report_interval),
            sync_file: c.sync_file.clone(),
            sync_wait: Duration::from_millis(c.sync_wait),
            worker_threads: c.client_threads,
            queue_max: c.queue_max,
            seed: plan.args.rand.rand_seed,
            gate: group.clone().map(|g| g as Arc<dyn model::StartGate>),
            round: i,
        };
        // Errors end the loop through `outcome`, so the record stores them.
        let r = match hooks.block_on(w.run_started(&cfg, &rc)).and_then(|()| runner::run_level(w.clone(), cfg.clone(), &rc, &mut sink)) {
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
        let finished = hooks.block_on(w.run_finished(&cfg, &r));
        sink.summary(&r, &info);
        if let Err(e) = finished {
            outcome = Err(e);
            break;
        }
        match r.stop {
            Stop::Completed => {}
            Stop::Interrupted => {
                outcome = Err(Error::Interrupted);
                break;
            }
            Stop::Failed(m) => {
                outcome = Err(Error::Sql(m));
                break;
            }
        }
    }
    if let Some(r) = recorder {
        commands::finish_recording(&r, &outcome, levels.len() > 1, json);
    }
    outcome
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
                model::interrupt_signal().await;
                tokio::time::sleep(STOP_GRACE).await;
            } => Err(Error::Interrupted),
        }
    });
    rt.shutdown_background();
    r
}

/// Makes sure the workload's tables are there and match the options,
/// preparing them when missing unless `--no-prepare`. Gives the rows per
/// table when the tables hold well more than the options touch.
async fn tables_ready<W: Workload>(w: &W, cfg: &Arc<db::ConnConfig>, max_threads: usize, no_prepare: bool, quiet: bool) -> Result<Option<u64>> {
    match w.table_state(cfg).await? {
        TableState::Ready => Ok(None),
        TableState::Larger(rows) => Ok(Some(rows)),
        TableState::Missing if !no_prepare => {
            if !quiet {
                println!("Tables are missing: preparing them first.");
            }
            w.prepare(cfg.clone(), max_threads.max(2), quiet).await.map(|()| None)
        }
        TableState::Missing => Err(Error::Usage("the workload's tables do not exist: run `fairbench prepare` with the same options first".into())),
        TableState::Mismatch(why) => Err(Error::Usage(format!("{why}: run `fairbench cleanup` then `prepare`, or give the options the data was prepared with"))),
    }
}

fn print_header(info: &RunInfo, threads: usize, c: &plan::ControlArgs) {
    println!("fairbench {} ({} on {}, {})", env!("CARGO_PKG_VERSION"), info.workload, info.target, info.transport);
    println!("Label: {}", info.label);
    println!();
    println!("Running the test with following options:");
    println!("Number of threads: {threads}");
    if c.rate > 0.0 {
        println!("Target transaction rate: {}/sec", c.rate);
    }
    if c.report_interval > 0.0 {
        println!("Report intermediate results every {} second(s)", c.report_interval);
    }
    if c.warmup_time > 0.0 {
        println!("Warmup time: {}s", c.warmup_time);
    }
    println!();
    println!("Initializing worker threads...");
    println!();
}
