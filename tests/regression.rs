//! One test per bug fixed, named after what broke (ripgrep's manner): a comment on each
//! says what it was, and each fails on the code before its fix. Blocks are headed by a
//! one-line comment naming their area.

mod common;

use common::*;
use serde_json::Value;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

// Records that mislead, rate mode, and TPC-C interop wording.

/// A SQLite target in a temp dir of its own, with a results store beside it.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        Scratch { dir: tempfile::Builder::new().prefix(&format!("fb-reg-{name}-")).tempdir().expect("cannot create a temp dir") }
    }

    fn target(&self, file: &str) -> String {
        format!("sqlite:{}", self.dir.path().join(file).display())
    }

    fn store(&self) -> std::path::PathBuf {
        self.dir.path().join("results.sqlite")
    }

    /// `fairbench ARGS... --results STORE`, run inside the temp dir.
    fn run(&self, args: &[&str]) -> String {
        let mut c = fairbench();
        c.current_dir(self.dir.path()).args(args).arg("--results").arg(self.store());
        stdout(&run_ok(&mut c))
    }

    /// The stored runs, as `results export --json` gives them.
    fn export(&self) -> Vec<Value> {
        let v: Value = serde_json::from_str(&self.run(&["results", "export", "--json"])).expect("export is JSON");
        v["runs"].as_array().cloned().unwrap_or_default()
    }
}

/// `results show` printed `--workload-args=OltpArgs { tables: 1, table_size:
/// 10000, ... }`: the recorder stored the workload's Rust structure as one
/// option. Every effective option must be its own `--name=value`, in the
/// store, `results show` and the JSON export.
#[test]
fn results_show_prints_options_not_a_debug_structure() {
    let s = Scratch::new("options");
    let t = s.target("db.sqlite");
    s.run(&["run", "oltp_point_select", "--target", &t, "--table-size", "2000", "--time", "1", "--extra-cols-type", "VARCHAR(40)"]);
    // The options wrap at 80 columns (the default width) as shell lines joined by a backslash.
    let show = stdout(&run_ok(fairbench().env_remove("COLUMNS").current_dir(s.dir.path()).args(["results", "show", "last", "--results"]).arg(s.store())));
    let block: Vec<&str> = show.lines().skip_while(|l| !l.starts_with("Options: ")).take_while(|l| l.starts_with("Options: ") || l.starts_with("  --")).collect();
    assert!(block.len() > 1 && block.iter().all(|l| l.chars().count() <= 80), "{block:#?}");
    let options = block.join("\n").replace(" \\\n  ", " ");
    let options = options.as_str();
    assert!(!show.contains("OltpArgs") && !show.contains("workload-args") && !options.contains(" {"), "{options}");
    for want in ["--table-size=2000", "--tables=1", "--range-size=100", "--table-name=sbtest", "--load-mode=auto", "--extra-cols-type='VARCHAR(40)'"] {
        assert!(options.split(' ').any(|w| w == want), "{want} missing from: {options}");
    }
    let runs = s.export();
    let opts = runs[0]["options"].as_object().expect("options object");
    assert!(opts.keys().all(|k| !k.contains('_') && !k.contains(' ')), "{opts:?}");
    assert!(opts.values().all(|v| v.as_str().is_some_and(|v| !v.contains("{ "))), "{opts:?}");
    assert_eq!(opts["table-size"], "2000");
}

/// A 2 s `--rate` run printed `execution time (avg/stddev): 42043.7465/969.90`:
/// each event's time was counted from its intended start, so the time it
/// queued in the client was summed as execution. sysbench's figure is the
/// seconds each thread spent running events: never more than the run.
#[test]
fn rate_mode_execution_time_stays_within_the_run_length() {
    let s = Scratch::new("exectime");
    let t = s.target("db.sqlite");
    let out = s.run(&["run", "oltp_point_select", "--target", &t, "--time", "2", "--rate", "100000", "--queue-max", "200000"]);
    let num = |prefix: &str| -> f64 {
        let l = out.lines().find(|l| l.trim_start().starts_with(prefix)).unwrap_or_else(|| panic!("no '{prefix}' line:\n{out}"));
        l.split(':').nth(1).and_then(|v| v.trim().split('/').next()).and_then(|v| v.trim().trim_end_matches('s').parse().ok()).unwrap_or_else(|| panic!("cannot read {l}"))
    };
    let elapsed = num("time elapsed");
    let exec = num("execution time (avg/stddev)");
    assert!(exec > 0.0 && exec <= elapsed + 0.05, "execution time {exec} s in a {elapsed} s run:\n{out}");
}

/// A `--rate 200000` run that reached 77,000 events/s and dropped 113,512
/// arrivals got no finding, though its latency measured the client's queue.
/// An unsustainable rate with a small queue must be a warning with the
/// evidence; a modest rate the engine keeps up with must not.
#[test]
fn rate_not_sustained_is_a_warning() {
    let s = Scratch::new("rate");
    let t = s.target("db.sqlite");
    let out = s.run(&["run", "oltp_point_select", "--target", &t, "--time", "2", "--rate", "1000000", "--queue-max", "100"]);
    assert!(out.contains("[WARNING] rate-not-sustained") && out.contains("target rate not sustained: latency measures the client's queue"), "{out}");
    let runs = s.export();
    let f = runs[0]["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "rate-not-sustained").expect("stored finding").clone();
    assert_eq!(f["severity"], "warning");
    let ev = f["evidence"].to_string();
    assert!(ev.contains("target 1000000.00 events/s") && ev.contains("achieved ") && ev.contains("dropped "), "{ev}");
    assert!(!ev.contains("dropped 0 "), "arrivals must have been dropped: {ev}");

    s.run(&["run", "oltp_point_select", "--target", &t, "--time", "2", "--rate", "100"]);
    let runs = s.export();
    let findings = runs[1]["findings"].as_array().expect("findings");
    assert!(findings.iter().all(|f| f["rule"] != "rate-not-sustained"), "{findings:?}");
}

/// SQLite's default 10,000-row table was called "partly IO-bound" because
/// only SQLite's 2 MiB page cache was counted, while SQLite reads through
/// the OS page cache, which held the whole file.
#[test]
fn sqlite_default_table_is_not_called_io_bound() {
    let s = Scratch::new("fit");
    let t = s.target("db.sqlite");
    s.run(&["run", "oltp_read_only", "--target", &t, "--time", "1"]);
    let show = s.run(&["results", "show", "last"]);
    assert!(show.contains("memory fit: in-memory"), "{show}");
    assert!(!show.contains("IO-bound"), "{show}");
}

/// prepare printed "Loading with 1 connections: the server shares this
/// machine's 1 cores" on a 2-core machine: the loader count stood in for
/// the core count (and SQLite loads on one connection for another reason).
#[test]
fn loader_line_never_prints_the_loader_count_as_cores() {
    let s = Scratch::new("loaders");
    let t = s.target("db.sqlite");
    let out = s.run(&["prepare", "oltp_read_write", "--target", &t, "--tables", "2", "--table-size", "500", "--threads", "4"]);
    assert!(!out.contains("1 connections") && !out.contains("1 cores"), "{out}");
    assert!(out.contains("Loading with one connection: SQLite has one writer"), "{out}");
    // On a server that shares the machine the line names the machine's cores.
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let table = "reg_loaders_";
    run_ok(fairbench().args(["cleanup", "oltp_read_write", "--target", &pg_url(), "--table-name", table, "--tables", "2"]));
    let out =
        stdout(&run_ok(fairbench().args(["prepare", "oltp_read_write", "--target", &pg_url(), "--table-name", table, "--tables", "2", "--table-size", "500", "--threads", &(cores + 2).to_string()])));
    run_ok(fairbench().args(["cleanup", "oltp_read_write", "--target", &pg_url(), "--table-name", table, "--tables", "2"]));
    let line = out.lines().find(|l| l.starts_with("Loading with")).unwrap_or_else(|| panic!("no loader line:\n{out}"));
    let plural = if cores == 1 { "" } else { "s" };
    assert!(line.contains(&format!("this machine's {cores} core{plural},")), "{cores} cores: {line}");
}

/// On PostgreSQL 15 every sample first queried pg_stat_checkpointer (a
/// PostgreSQL 17 view) and wrote an ERROR into the server's log each time:
/// 121 lines in one short session. The server's version decides the view.
#[test]
fn postgres_samples_leave_no_pg_stat_checkpointer_errors_in_the_log() {
    let log = tmp_dir().join("pg").join("postgres.log");
    let dir = tempfile::Builder::new().prefix("fb-reg-pglog-").tempdir().unwrap();
    let table = "reg_pglog_";
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &pg_url(), "--table-name", table, "--table-size", "500"]));
    // The log lives as long as the servers: only what this run adds counts.
    let read = || std::fs::read(&log).unwrap_or_else(|e| panic!("cannot read the test server's log {}: {e}", log.display()));
    let before = read().len();
    let mut c = fairbench();
    c.args(["run", "oltp_point_select", "--target", &pg_url(), "--table-name", table, "--table-size", "500", "--time", "2", "--report-interval", "0.5", "--results"]).arg(dir.path().join("r.sqlite"));
    run_ok(&mut c);
    run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", &pg_url(), "--table-name", table]));
    let text = String::from_utf8_lossy(&read()[before..]).into_owned();
    let bad: Vec<&str> = text.lines().filter(|l| l.contains("pg_stat_checkpointer")).collect();
    assert!(bad.is_empty(), "{} lines in {} name pg_stat_checkpointer, e.g. {}", bad.len(), log.display(), bad[0]);
}

/// sysbench-tpcc's and go-tpc's checkers test undelivered orders with IS
/// NULL, BMK-kit's data holds DEFAULT values: `check tpcc` did not say which
/// the data uses, so users could not tell why another tool's check failed.
#[test]
fn check_tpcc_says_which_representation_undelivered_orders_use() {
    let s = Scratch::new("tpccnull");
    for (file, extra, want) in [
        ("defaults.sqlite", None, "Undelivered orders: o_carrier_id/ol_delivery_d hold BMK-kit's DEFAULT values"),
        ("null.sqlite", Some("--force-null"), "Undelivered orders: o_carrier_id/ol_delivery_d are NULL (other tools' checkers accept this data)"),
    ] {
        let t = s.target(file);
        let mut prepare = vec!["prepare", "tpcc", "--target", &t, "--warehouses", "1"];
        prepare.extend(extra);
        s.run(&prepare);
        // Without --force-null: the line (and the conditions) follow the data.
        let out = s.run(&["check", "tpcc", "--target", &t, "--warehouses", "1"]);
        assert!(out.contains(want) && out.contains("All conditions hold."), "{file}:\n{out}");
        if extra.is_none() {
            assert!(out.contains("prepare with --force-null for data sysbench-tpcc's and go-tpc's checkers accept"), "{out}");
        }
    }
}

// Workloads as plug-ins: what a run records comes from its own workload.

/// A TPC-C run recorded the size of the OLTP family's `sbtest` tables as its
/// dataset (the environment snapshot measured the `--table-name` prefix for
/// every workload), and stored `table-name=sbtest` and the OLTP arguments
/// with it. With both families in one SQLite file, the stored size must be
/// that of the TPC-C tables and their indexes.
#[test]
fn tpcc_run_records_the_size_of_tpcc_tables_not_sbtest() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("both.sqlite");
    let store = dir.path().join("results.sqlite");
    let target = format!("sqlite:{}", db.display());
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &target, "--table-size", "20000"]));
    run_ok(fairbench().args(["prepare", "tpcc", "--target", &target, "--warehouses", "1"]));
    run_ok(fairbench().args(["run", "tpcc", "--target", &target, "--warehouses", "1", "--time", "1", "--results"]).arg(&store));

    let c = rusqlite::Connection::open(&db).unwrap();
    let bytes = |filter: &str| -> i64 { c.query_row(&format!("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE {filter}"), [], |r| r.get(0)).unwrap() };
    // Every b-tree but the sbtest ones and SQLite's own catalog and statistics.
    let tpcc = bytes(r"name NOT LIKE 'sbtest%' AND name NOT LIKE 'sqlite\_s%' ESCAPE '\'");
    let sbtest = bytes("name LIKE 'sbtest%'");
    drop(c);
    assert!(sbtest > 0 && tpcc > 10 * sbtest, "tpcc {tpcc} bytes, sbtest {sbtest} bytes");

    let out = run_ok(fairbench().args(["results", "export", "--json", "--results"]).arg(&store));
    let export: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let run = &export["runs"][0];
    assert_eq!(run["env_end"]["server"]["dataset_bytes"].as_i64(), Some(tpcc), "{}", run["env_end"]["server"]);
    let start = run["env_start"]["server"]["dataset_bytes"].as_i64().unwrap();
    assert!(start > 10 * sbtest, "start snapshot: {start} bytes");
    let options = &run["options"];
    assert!(options.get("table-name").is_none(), "{options}");
    assert_eq!(options["tpcc-prefix"], "");
    assert!(options.get("workload-args").is_none() && options.get("tables").is_none(), "{options}");
    assert_eq!(options["warehouses"], "1", "{options}");
}

// Embedded SQLite (issue 14): writers take turns, and the process's CPU is client and engine.

/// A temporary directory for one embedded run: the SQLite file and the results store.
fn lite_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("fb-reg-{name}-")).tempdir().expect("cannot create a temp dir")
}

/// `fairbench run` with JSON output on a fresh SQLite file in `dir`: (intervals, summary).
fn lite_json_run(dir: &Path, args: &[&str]) -> (Vec<Value>, Value) {
    let target = format!("sqlite:{}", dir.join("bench.sqlite").display());
    let mut cmd = fairbench();
    cmd.current_dir(dir).args(["run", "--target", &target, "--output", "json"]).args(args);
    let out = run_within(&mut cmd, Duration::from_secs(300));
    assert!(out.status.success(), "status {}\n{}\n{}", out.status, stdout(&out), stderr(&out));
    let lines: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect();
    let (summary, rest): (Vec<Value>, Vec<Value>) = lines.into_iter().partition(|v| v["type"] == "summary");
    assert_eq!(summary.len(), 1, "one summary expected\n{}", stdout(&out));
    let intervals = rest.into_iter().filter(|v| v["type"] == "interval").collect();
    (intervals, summary.into_iter().next().unwrap())
}

/// The stored record of the last run in `dir`'s results store, as `results export` writes it.
fn last_stored_run(dir: &Path) -> Value {
    let mut cmd = fairbench();
    cmd.current_dir(dir).args(["results", "export", "last"]);
    let out = run_ok(&mut cmd);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("results export is not JSON ({e})\n{}", stdout(&out)));
    v["runs"][0].clone()
}

// Four SQLite writers queued in SQLite's busy handler, whose sleep-and-poll back-off is
// unfair: one writer waited 3 to 10 s while the others went again and again, so the run
// reported max latencies of seconds and a per-thread events stddev of 45 to 110% of the mean
// (the latency measured the back-off, not the work). Writers now take turns in arrival order.
#[test]
fn sqlite_writers_starved_in_the_busy_handler() {
    let dir = lite_dir("turns");
    let (_, s) = lite_json_run(dir.path(), &["oltp_read_write", "--threads", "4", "--time", "10", "--table-size", "10000"]);
    assert_eq!(s["status"], "completed", "{s:#}");
    let max = s["latency_ms"]["max"].as_f64().unwrap();
    let f = &s["fairness"];
    let (avg, sd) = (f["events_avg"].as_f64().unwrap(), f["events_stddev"].as_f64().unwrap());
    assert!(avg > 0.0, "no events\n{s:#}");
    // Before: 3,000 to 10,000 ms. After: tens of ms (one commit's fsync per writer ahead).
    assert!(max < 1000.0, "max latency {max} ms: a writer waited seconds for the write lock\n{s:#}");
    assert!(sd < 0.10 * avg, "events per thread {avg:.1} +- {sd:.1}: the writers did not take turns fairly\n{s:#}");
}

// The embedded default counted SQLite's own work as the client's: a CPU-bound SQLite run
// ended with "[WARNING] client-saturation", and the console said "Client CPU". The process's
// CPU is now reported as client and engine together, and draws no client-saturation finding.
#[test]
fn embedded_engine_cpu_reported_as_client_saturation() {
    let dir = lite_dir("engine-cpu");
    // Read-only: no fsync to wait for, so the four clients keep both cores busy.
    let (intervals, s) = lite_json_run(dir.path(), &["oltp_read_only", "--threads", "4", "--time", "5", "--table-size", "10000"]);
    assert_eq!(s["client_cpu"]["includes_engine"], true, "{s:#}");
    let cores = fairbench::env::cpus() as f64;
    for iv in &intervals {
        let c = iv["cpu_cores"].as_f64().unwrap_or_else(|| panic!("no cpu_cores in {iv}"));
        assert!(c <= cores * 1.1, "an interval reports {c:.2} cores on {cores} cores\n{iv}");
    }
    let run = last_stored_run(dir.path());
    let rules: Vec<&str> = run["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert!(!rules.contains(&"client-saturation"), "findings {rules:?}\n{:#}", run["findings"]);
    let mut cmd = fairbench();
    cmd.current_dir(dir.path()).args(["results", "show", "last"]);
    let shown = stdout(&run_ok(&mut cmd));
    assert!(shown.contains("client+engine CPU"), "{shown}");
}

// The same on a constructed record, whatever the machine's load: an embedded SQLite run whose
// process kept both cores busy drew "client-saturation", blaming the load generator for the
// engine's own work.
#[test]
fn embedded_engine_cpu_drew_a_client_saturation_finding() {
    use fairbench::env::{Host, Server, Snapshot};
    use fairbench::model::record::{IntervalRec, LevelRec, RunRecord};
    let intervals: Vec<IntervalRec> = (0..10).map(|i| IntervalRec { seq: i, t: (i + 1) as f64, secs: 1.0, events: 3000, cpu_s: 1.98, ..IntervalRec::default() }).collect();
    let level = LevelRec { threads: 4, status: "completed".into(), ended_at: Some("x".into()), events: 30_000, elapsed_s: 10.0, tps: 3000.0, cpu_cores: 1.95, intervals, ..LevelRec::default() };
    let server = Server { engine: "sqlite".into(), local: true, ..Server::default() };
    let host = Host { cpus: 2, cpus_available: 2, ..Host::default() };
    let mut r = RunRecord {
        id: 1,
        engine: "sqlite".into(),
        transport: "embedded".into(),
        status: "completed".into(),
        env_start: Some(Snapshot { server, host, ..Snapshot::default() }),
        levels: vec![level],
        ..RunRecord::default()
    };
    let rules = |r: &RunRecord| fairbench::audit::single(r).into_iter().map(|f| f.rule).collect::<Vec<_>>();
    assert!(!rules(&r).iter().any(|x| x == "client-saturation"), "{:?}", rules(&r));
    // A client on its own at that CPU is still called out.
    r.engine = "mysql".into();
    r.transport = "tcp".into();
    assert!(rules(&r).iter().any(|x| x == "client-saturation"), "{:?}", rules(&r));
}

// Interval CPU was read when the reporter finished an interval, which waits for every
// worker's window: a worker thread blocked inside a SQLite call held the intervals back, and
// the first one reported afterwards got the CPU of all of them (2.75 cores on a 2-core
// machine). CPU is now read at each interval's own boundaries.
#[test]
fn interval_cpu_piled_up_behind_a_blocked_client() {
    use fairbench::db::{ConnConfig, Target};
    use fairbench::model::{RunControl, Sink};
    use fairbench::runner::run_level;
    use fairbench::runner::sampling::{Sampling, SamplingSetup};
    use fairbench::store::Recorder;
    use std::sync::Arc;

    let dir = lite_dir("interval-cpu");
    let db = dir.path().join("bench.sqlite");
    let store: PathBuf = dir.path().join("results.sqlite");
    let cfg = Arc::new(ConnConfig::new(Target::sqlite(db.to_str().unwrap())));
    let rc = RunControl {
        threads: 4,
        time: Duration::from_secs(5),
        events: 0,
        warmup: Duration::ZERO,
        rate: 0.0,
        arrivals: Default::default(),
        report_interval: Duration::from_secs(1),
        sync_file: None,
        sync_wait: std::time::Duration::from_millis(10),
        worker_threads: Some(4),
        queue_max: 1000,
        reconnect: 0,
        seed: 1,
        gate: None,
        round: 0,
        tries: Default::default(),
        log: None,
    };
    let info = fairbench::model::RunInfo {
        label: "stall".into(),
        workload: "stall".into(),
        engine: "sqlite".into(),
        target: db.display().to_string(),
        transport: "embedded".into(),
        percentile: 95,
        options: Default::default(),
        kinds: vec![],
        steps: vec![],
    };
    let rec = Recorder::begin(&store, &info, &[4], "").expect("results store");
    let setup = SamplingSetup {
        tables: fairbench::env::DatasetTables::Prefix(String::new()),
        period: Duration::from_secs(1),
        server_metrics: None,
        server_time: true,
        profile_server: None,
        reshaped_by_run: false,
    };
    let (sampling, snap) = Sampling::start(&cfg, setup, rec.sample_writer());
    rec.env_start(&snap);
    let mut sink = fairbench::model::Sinks(vec![rec.sink(), sampling.sink()]);
    let r = run_level(Arc::new(stall::Stall), cfg.clone(), &rc, &mut sink).expect("run");
    sink.summary(&r, &info);
    rec.finish(&Ok(()), sampling.finish());
    let c = fairbench::store::open(&store, false).unwrap();
    let run = fairbench::store::load(&c, rec.run_id(), false).unwrap().unwrap();
    let ivs = &run.levels[0].intervals;
    assert!(ivs.len() >= 4, "{ivs:?}");
    let cores = fairbench::env::cpus() as f64;
    for i in ivs {
        let used = i.cpu_s / i.secs;
        assert!(used <= cores * 1.1, "interval at {:.0}s: {used:.2} cores on {cores} cores\n{ivs:#?}", i.t);
    }
    // The spinning clients used CPU in every interval, the stalled ones included (read late,
    // those got next to none: their CPU went to the first interval reported).
    assert!(ivs.iter().all(|i| i.cpu_s > 0.05 * i.secs), "{ivs:#?}");
}

/// A workload whose client 0 blocks its thread for 2.5 s once (as a SQLite call waiting in
/// the busy handler did) while the others burn CPU.
mod stall {
    use fairbench::db::{Conn, ConnConfig, DbResult, StatementSet};
    use fairbench::error::Result;
    use fairbench::workload::{Checked, Counters, Dataset, Levels, TableState, Witnessed, Workload};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    pub struct Stall;

    impl Workload for Stall {
        /// (client id, stalled already)
        type Client = (usize, bool);

        fn statements(&self) -> Arc<StatementSet> {
            Arc::new(StatementSet::default())
        }

        fn new_client(&self, id: usize, _clients: usize) -> (usize, bool) {
            (id, false)
        }

        async fn event(&self, _conn: &mut Conn, c: &mut (usize, bool), _q: &mut Counters, _retry: bool) -> DbResult<()> {
            if c.0 == 0 && !c.1 {
                c.1 = true;
                std::thread::sleep(Duration::from_millis(2500));
            } else {
                let t = Instant::now();
                while t.elapsed() < Duration::from_millis(2) {
                    std::hint::spin_loop();
                }
            }
            Ok(())
        }

        async fn after_error(&self, _conn: &mut Conn, _c: &mut (usize, bool)) {}

        fn label(&self, _cfg: &ConnConfig) -> String {
            "stall".into()
        }

        fn options(&self, _cfg: &ConnConfig) -> Vec<(String, String)> {
            vec![]
        }
    }

    impl Checked for Stall {}
    impl Witnessed for Stall {}
    impl Levels for Stall {}

    impl Dataset for Stall {
        fn dataset_tables(&self) -> fairbench::env::DatasetTables {
            fairbench::env::DatasetTables::Prefix(String::new())
        }

        async fn table_state(&self, _cfg: &Arc<ConnConfig>) -> Result<TableState> {
            Ok(TableState::Ready)
        }

        async fn prepare(&self, _cfg: Arc<ConnConfig>, _threads: usize, _quiet: bool) -> Result<()> {
            Ok(())
        }

        async fn cleanup(&self, _cfg: Arc<ConnConfig>, _threads: usize, _quiet: bool) -> Result<()> {
            Ok(())
        }

        async fn prewarm(&self, _cfg: Arc<ConnConfig>, _quiet: bool) -> Result<()> {
            Ok(())
        }
    }
}

// ---- Bad input on the command line: one line naming the option, exit 2, no panic (issue 14)

/// fairbench with `args`, run in an empty directory of its own so that nothing it might create
/// (a SQLite database, the results store) lands in the source tree; killed after 60 s so that
/// a hang fails the test.
fn bad_input(args: &[&OsStr]) -> Output {
    let dir = tempfile::Builder::new().prefix("fb-regr-input-").tempdir().expect("temp dir");
    let mut cmd: Command = fairbench();
    cmd.current_dir(dir.path()).args(args);
    let out = run_within(&mut cmd, Duration::from_secs(60));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "a refused command created {left:?}\n{}", show(&out));
    out
}

/// `bad_input` for plain text arguments, expecting the usage exit code and one line on stderr
/// that mentions each of `mentions`.
fn refused(args: &[&str], mentions: &[&str]) -> Output {
    let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let out = bad_input(&os);
    assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
    assert_one_line_error(&out, mentions);
    out
}

// A non-UTF-8 argument panicked in std::env::args() (exit 101 and a stack trace).
#[test]
fn non_utf8_argument_is_a_usage_error_not_a_panic() {
    let bad = OsStr::from_bytes(b"oltp_\xff\xfe");
    for args in [vec![OsStr::new("run"), bad], vec![OsStr::new("run"), OsStr::new("--table-name"), bad]] {
        let out = bad_input(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        assert_one_line_error(&out, &["UTF-8", "oltp_"]);
    }
    let out = bad_input(&[OsStr::new("run"), OsStr::new("--table-name"), bad]);
    assert_one_line_error(&out, &["--table-name"]);
}

// `--threads 1,,2` ran (the empty item was skipped).
#[test]
fn threads_list_with_an_empty_item_is_refused() {
    for v in ["1,,2", "1,2,", ",4", ""] {
        refused(&["run", "--threads", v], &["--threads", "1,2,4,8"]);
    }
}

// `--mysql-ignore-errors abc` was accepted; so was any word as a SQLSTATE.
#[test]
fn ignore_error_lists_take_error_codes_only() {
    refused(&["run", "--mysql-ignore-errors", "abc"], &["--mysql-ignore-errors", "abc", "all"]);
    refused(&["run", "--mysql-ignore-errors", "1213,,1205"], &["--mysql-ignore-errors"]);
    refused(&["run", "--pgsql-ignore-errors", "deadlock"], &["--pgsql-ignore-errors", "deadlock", "SQLSTATE"]);
}

// A negative number got clap's 7-line "unexpected argument '-1' found ... use '-- -1'",
// which is wrong advice: the option was given a value it does not accept.
#[test]
fn negative_numbers_name_the_option_and_what_it_accepts() {
    let cases = [
        ("--threads", "-1"),
        ("--time", "-5"),
        ("--rate", "-1"),
        ("--table-size", "-3"),
        ("--rand-zipfian-exp", "-1"),
        ("--events", "-1"),
        ("--percentile", "-95"),
        ("--tables", "-2"),
        ("--warehouses", "-1"),
        ("--time-scale", "-0.5"),
        ("--mysql-port", "-3306"),
    ];
    for (opt, v) in cases {
        let out = refused(&["run", opt, v], &[opt, v, "use"]);
        assert!(!stderr(&out).contains("-- "), "{opt} {v}: clap's tip is back\n{}", show(&out));
    }
}

// `--time NaN`, `--time inf`, `--warmup-time NaN` and `--report-interval NaN` panicked when
// the run built its durations (exit 101); `--rate inf` ran without end and ignored SIGTERM.
#[test]
fn nan_and_infinite_numbers_are_refused() {
    for (opt, v) in [("--time", "NaN"), ("--time", "inf"), ("--warmup-time", "NaN"), ("--report-interval", "NaN"), ("--rate", "inf"), ("--pause", "inf"), ("--rand-spec-pct", "NaN")] {
        refused(&["run", opt, v, "--table-size", "100"], &[opt, v]);
    }
}

// `--table-size inf` loaded u64::MAX rows' worth of nothing: f64 "inf" passed the count parser.
#[test]
fn table_size_is_a_finite_whole_count() {
    for v in ["inf", "NaN", "1e3", "1.5", "0"] {
        refused(&["prepare", "--table-size", v], &["--table-size", v]);
    }
}

// `--threads 1..18446744073709551615` overflowed while doubling the levels (a panic in debug
// builds; an endless loop of 0-thread levels in release builds).
#[test]
fn threads_range_with_a_huge_bound_is_refused() {
    refused(&["run", "--threads", "1..18446744073709551615"], &["--threads"]);
    refused(&["run", "--threads", "0..4"], &["--threads"]);
}

// Found by the URL property test: a '%' before a multi-byte character in a URL panicked
// (the percent decoder sliced the string inside the character).
#[test]
fn url_percent_before_a_multibyte_character_is_no_panic() {
    let out = bad_input(&[OsStr::new("run"), OsStr::new("--target"), OsStr::new("mysql://u:p@h%aé:x/db")]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["bad target URL"]);
}

// Found by the URL property test: a bad URL's error showed a `password=` parameter, and the
// tail of a password that holds '@'.
#[test]
fn bad_url_errors_mask_every_password() {
    let out = refused(&["run", "--target", "mysql://h/db?password=Secret1x&bogus=1"], &["bogus"]);
    assert!(!stderr(&out).contains("Secret1x"), "{}", show(&out));
    let out = refused(&["run", "--target", "mysql://u:Sec@ret9x@h:notaport/db"], &["notaport"]);
    assert!(!stderr(&out).contains("ret9x"), "{}", show(&out));
}

// Found by the URL property test in CI: with the query starting before the user part
// (`mysql://?:PASSWORD@h`), the "unknown parameter" reason quoted the password.
#[test]
fn url_error_reason_quoted_the_password() {
    let out = refused(&["run", "--target", "mysql://?:aaaaaa000000@h"], &["unknown parameter"]);
    assert!(!stderr(&out).contains("aaaaaa000000"), "{}", show(&out));
}

// Enumerated options were checked only when the workload started (--load-mode only by
// prepare, so a run over existing tables never noticed it).
#[test]
fn enumerated_options_are_checked_when_parsed() {
    for (opt, v) in [("--load-mode", "fast"), ("--output", "xml"), ("--table-pick", "any"), ("--db-ps-mode", "on"), ("--fk", "yes2"), ("--isolation", "dirty")] {
        refused(&["run", opt, v], &[opt, v, "use"]);
    }
}

// A label holding a newline printed its error over two lines (the label is quoted as typed);
// so did any other message quoting a value, such as a bad URL's.
#[test]
fn label_with_a_control_character_gives_one_line() {
    refused(&["explain", "OLTP_RW-x\ny"], &["OLTP_RW-x\\ny"]);
    refused(&["run", "OLTP_RW-10Kx1tab-x\ny"], &["invalid label"]);
    refused(&["run", "--rand-type", "uni\nform"], &["--rand-type", "uni\\nform"]);
    // Found by the URL property test: the same in a URL's error message.
    refused(&["run", "--target", "mysql://h/db?a\nb=1"], &["bad target URL"]);
}

// Values too large or too small for a duration panicked while the run built its timers
// (`--warmup-time 1e300`, `--pause 1e300`, `--rate 1e-300`: the gap between arrivals), or ran
// far past their end (`--rand-spec-iter 4294967295` spent minutes on each random number).
#[test]
fn numbers_beyond_what_a_run_can_use_are_refused() {
    for (opt, v) in
        [("--time", "1e300"), ("--warmup-time", "1e300"), ("--pause", "1e300"), ("--rate", "1e-300"), ("--rate", "1e300"), ("--rand-spec-iter", "4294967295"), ("--client-threads", "100000000")]
    {
        refused(&["run", opt, v, "--table-size", "100"], &[opt, v]);
    }
}

// `--rate` above what the arrival generator could produce never let the clients, the reporter
// or the stop flag run: `--time 1` went on until killed.
#[test]
fn rate_above_what_the_client_can_generate_still_stops_on_time() {
    let dir = tempfile::Builder::new().prefix("fb-regr-rate-").tempdir().expect("temp dir");
    let target = format!("sqlite:{}", dir.path().join("bench.sqlite").display());
    let mut cmd = fairbench();
    cmd.current_dir(dir.path()).args(["run", "--target", &target, "--table-size", "100", "--rate", "1e9", "--time", "1", "--no-save"]);
    let started = std::time::Instant::now();
    let out = run_within(&mut cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(started.elapsed() < Duration::from_secs(30), "a 1 s run took {:?}\n{}", started.elapsed(), show(&out));
    assert_no_panic(&out);
}

// `--range-size`, `--update-range-size` and `--delta` near i64::MAX overflowed `id + width - 1`
// in every client (a panic per worker in debug builds, and the command still exited 0).
#[test]
fn row_widths_beyond_any_table_are_refused() {
    for opt in ["--range-size", "--update-range-size", "--delta"] {
        refused(&["run", opt, "9223372036854775807", "--table-size", "100"], &[opt, "9007199254740992"]);
    }
}

// Every command stops when asked (Ctrl-C / SIGTERM), never hangs or spins.
mod interrupts {
    use super::*;
    use std::io::Read;
    use std::process::{Child, Command, ExitStatus, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// A fairbench process in the background, its output collected as it comes.
    struct Bg {
        child: Child,
        out: Arc<Mutex<String>>,
        err: Arc<Mutex<String>>,
        readers: Vec<std::thread::JoinHandle<()>>,
    }

    fn collect(mut r: impl Read + Send + 'static, into: Arc<Mutex<String>>) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = r.read(&mut buf) {
                into.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    }

    impl Bg {
        fn spawn(cmd: &mut Command) -> Bg {
            let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
            let (out, err) = (Arc::new(Mutex::new(String::new())), Arc::new(Mutex::new(String::new())));
            let readers = vec![collect(child.stdout.take().unwrap(), out.clone()), collect(child.stderr.take().unwrap(), err.clone())];
            Bg { child, out, err, readers }
        }

        fn show(&self) -> String {
            format!("--- stdout ---\n{}\n--- stderr ---\n{}", self.out.lock().unwrap(), self.err.lock().unwrap())
        }

        /// Waits until stdout contains `what`; panics after `limit` or if the process ends first.
        fn wait_for(&mut self, what: &str, limit: Duration) {
            self.wait_for_times(what, 1, limit);
        }

        /// Waits until stdout contains `what` `n` times; as `wait_for`.
        fn wait_for_times(&mut self, what: &str, n: usize, limit: Duration) {
            let t0 = Instant::now();
            while self.out.lock().unwrap().matches(what).count() < n {
                if self.child.try_wait().unwrap().is_some() || t0.elapsed() > limit {
                    let _ = self.child.kill();
                    panic!("no {what:?} within {limit:?} (or the process ended)\n{}", self.show());
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }

        /// Sends `sig`, then waits for the exit: (status, time it took, stdout, stderr).
        fn stop(mut self, sig: libc::c_int, limit: Duration) -> (ExitStatus, Duration, String, String) {
            // SAFETY: plain kill(2) on our own child's pid.
            assert_eq!(unsafe { libc::kill(self.child.id() as libc::pid_t, sig) }, 0, "kill failed");
            let t0 = Instant::now();
            let st = loop {
                if let Some(st) = self.child.try_wait().unwrap() {
                    break st;
                }
                if t0.elapsed() > limit * 10 {
                    let _ = self.child.kill();
                    panic!("still running {:?} after the signal\n{}", t0.elapsed(), self.show());
                }
                std::thread::sleep(Duration::from_millis(5));
            };
            let took = t0.elapsed();
            for r in self.readers.drain(..) {
                let _ = r.join();
            }
            let (o, e) = (self.out.lock().unwrap().clone(), self.err.lock().unwrap().clone());
            assert!(took <= limit, "took {took:?} to stop after the signal\n{}", self.show());
            (st, took, o, e)
        }
    }

    fn tmp(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("fb-reg-{name}-")).tempdir().expect("cannot create a temp dir")
    }

    fn in_dir(dir: &tempfile::TempDir) -> Command {
        let mut c = fairbench();
        c.current_dir(dir.path());
        c
    }

    /// The steps every engine's interrupted-prepare test takes. `query`
    /// runs SQL on the target and gives its first row's first value.
    fn interrupted_prepare_is_resumed(dir: &tempfile::TempDir, target: &str, prefix: &str, query: &dyn Fn(&str) -> String) {
        let opts = ["oltp_read_write", "--target", target, "--table-name", prefix, "--tables", "3", "--table-size", "100000", "--threads", "2"];
        let mut bg = Bg::spawn(in_dir(dir).arg("prepare").args(opts));
        // A second table's rows are in: one loader's first table is indexed or being indexed
        // (the tables the interrupted prepare reports complete are the ones checked below), the
        // others are loading or empty.
        bg.wait_for_times("Creating a secondary index on", 2, Duration::from_secs(120));
        let (st, _, _, err) = bg.stop(libc::SIGINT, Duration::from_secs(2));
        assert_eq!(st.code(), Some(130), "exit status after SIGINT: {st}\n{err}");
        let line = err.lines().find(|l| l.contains("complete tables")).unwrap_or_else(|| panic!("no complete-tables line:\n{err}"));
        let complete: Vec<String> = (1..=3).map(|i| format!("{prefix}{i}")).filter(|t| line.contains(&format!("{t},")) || line.contains(&format!("{t}."))).collect();
        let fingerprint = |t: &str| query(&format!("SELECT COUNT(*) || ':' || SUM(k) || ':' || SUM(LENGTH(c)) || ':' || MAX(id) FROM {t}"));
        let before: Vec<String> = complete.iter().map(|t| fingerprint(t)).collect();

        let out = run_ok(in_dir(dir).arg("prepare").args(opts));
        assert!(stdout(&out).contains("exist already"), "{}", stdout(&out));
        for i in 1..=3 {
            let t = format!("{prefix}{i}");
            assert_eq!(query(&format!("SELECT COUNT(DISTINCT id) || ':' || COUNT(*) || ':' || MIN(id) || ':' || MAX(id) FROM {t}")), "100000:100000:1:100000", "rows of {t}");
        }
        for (t, b) in complete.iter().zip(&before) {
            assert_eq!(&fingerprint(t), b, "{t} was complete, yet its rows changed");
        }
        run_ok(in_dir(dir).args(["run", "--no-prepare", "--no-save", "--time", "1"]).args(opts));
    }

    /// `prepare` went on loading to the end after Ctrl-C and exited 0; a
    /// prepare on tables already there failed instead of finishing them.
    #[test]
    fn prepare_ignored_sigint_and_could_not_resume_on_sqlite() {
        let dir = tmp("sigint-prepare");
        let file = dir.path().join("big.db");
        let target = format!("sqlite:{}", file.display());
        let query = |sql: &str| -> String {
            let c = rusqlite::Connection::open(&file).unwrap();
            c.query_row(sql, [], |r| {
                Ok(match r.get_ref(0)? {
                    rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    _ => String::new(),
                })
            })
            .unwrap()
        };
        interrupted_prepare_is_resumed(&dir, &target, "sbtest", &query);
        assert_eq!(query("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'sbtest%_k_%'"), "3");
    }

    #[test]
    fn prepare_ignored_sigint_and_could_not_resume_on_mariadb() {
        let dir = tmp("sigint-prepare-my");
        let db = parse_url(&mysql_url()).database;
        let prefix = "reg_sigint_";
        let drop = || mysql_admin_db(&db, &(1..=3).map(|i| format!("DROP TABLE IF EXISTS {prefix}{i};")).collect::<String>());
        drop();
        let query = |sql: &str| mysql_admin_db(&db, &to_concat(sql)).trim().to_string();
        interrupted_prepare_is_resumed(&dir, &mysql_url(), prefix, &query);
        let idx = mysql_admin_db(
            &db,
            &format!("SELECT COUNT(DISTINCT table_name) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name LIKE '{prefix}%' AND index_name LIKE 'k\\_%'"),
        );
        assert_eq!(idx.trim(), "3", "secondary indexes");
        drop();
    }

    /// `a || ':' || b` as MySQL's CONCAT_WS(':', a, b).
    fn to_concat(sql: &str) -> String {
        let (head, rest) = sql.split_once(" FROM ").unwrap();
        let cols = head.trim_start_matches("SELECT ").split(" || ':' || ").collect::<Vec<_>>().join(", ");
        format!("SELECT CONCAT_WS(':', {cols}) FROM {rest}")
    }

    #[test]
    fn prepare_ignored_sigint_and_could_not_resume_on_postgresql() {
        let dir = tmp("sigint-prepare-pg");
        let db = parse_url(&pg_url()).database;
        let prefix = "reg_sigint_";
        let drop = || pg_admin_db(&db, &(1..=3).map(|i| format!("DROP TABLE IF EXISTS {prefix}{i};")).collect::<String>());
        drop();
        let query = |sql: &str| pg_admin_db(&db, sql).trim().to_string();
        interrupted_prepare_is_resumed(&dir, &pg_url(), prefix, &query);
        let idx = pg_admin_db(&db, &format!("SELECT COUNT(*) FROM pg_indexes WHERE tablename LIKE '{prefix}%' AND indexname LIKE '%\\_k\\_%'"));
        assert_eq!(idx.trim(), "3", "secondary indexes");
        drop();
    }

    /// `--rate 1000000000 --time 1` never ended: the arrival generator
    /// never awaited when behind, so the worker's ticker never ran.
    #[test]
    fn absurd_rate_never_ended_and_ignored_sigterm() {
        let dir = tmp("absurd-rate");
        let target = format!("sqlite:{}", dir.path().join("p.db").display());
        let opts = ["oltp_point_select", "--target", &target, "--table-size", "1000", "--rate", "1000000000", "--no-save"];
        run_ok(in_dir(&dir).args(["prepare", "oltp_point_select", "--target", &target, "--table-size", "1000"]));
        let t0 = Instant::now();
        let out = run_within(in_dir(&dir).arg("run").args(opts).args(["--time", "1"]), Duration::from_secs(60));
        assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
        assert!(t0.elapsed() < Duration::from_secs(5), "a 1 s run took {:?}", t0.elapsed());
        assert!(stdout(&out).contains("arrivals dropped (queue full)"), "{}", stdout(&out));

        let mut bg = Bg::spawn(in_dir(&dir).arg("run").args(opts).args(["--time", "60", "--report-interval", "1"]));
        bg.wait_for("[ 1s ]", Duration::from_secs(30));
        let (st, _, out, _) = bg.stop(libc::SIGTERM, Duration::from_secs(2));
        assert_eq!(st.code(), Some(130), "exit status after SIGTERM: {st}\n{out}");
        assert!(out.contains("SQL statistics"), "no summary after SIGTERM:\n{out}");
    }

    /// Ctrl-C during a sweep's `--pause` waited the pause out, then exited 0.
    #[test]
    fn sweep_pause_ignored_sigint_and_exited_0() {
        let dir = tmp("sweep-pause");
        let target = format!("sqlite:{}", dir.path().join("p.db").display());
        run_ok(in_dir(&dir).args(["prepare", "oltp_point_select", "--target", &target, "--table-size", "1000"]));
        let mut bg = Bg::spawn(in_dir(&dir).args(["run", "oltp_point_select", "--target", &target, "--table-size", "1000", "--no-save", "--threads", "1,2", "--pause", "60", "--time", "1"]));
        // The first level's summary is out: the 60 s pause has begun.
        bg.wait_for("Threads fairness", Duration::from_secs(30));
        let (st, _, out, _) = bg.stop(libc::SIGINT, Duration::from_secs(2));
        assert_eq!(st.code(), Some(130), "exit status after SIGINT: {st}\n{out}");
        assert_eq!(out.matches("Threads fairness").count(), 1, "the second level ran:\n{out}");
    }

    /// A run over 99999 tables on an empty SQLite file spun for minutes
    /// before its first line (statements de-duplicated by a scan per add,
    /// tables probed one by one) and ignored SIGTERM meanwhile.
    #[test]
    fn many_tables_on_an_empty_file_spun_for_minutes() {
        let dir = tmp("many-tables");
        let target = format!("sqlite:{}", dir.path().join("empty.db").display());
        let t0 = Instant::now();
        let out = run_within(in_dir(&dir).args(["run", "OLTP_RW-1Kx99999tab", "--time", "1", "--no-prepare", "--no-save", "--target", &target]), Duration::from_secs(60));
        let took = t0.elapsed();
        assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
        assert!(took < Duration::from_secs(3), "the answer took {took:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "one line expected:\n{err}");
        assert!(err.contains("tables do not exist") && err.contains("fairbench prepare"), "{err}");

        // Without --no-prepare the run starts creating the 99999 tables: SIGTERM stops it.
        let mut bg = Bg::spawn(in_dir(&dir).args(["run", "OLTP_RW-1Kx99999tab", "--time", "1", "--no-save", "--target", &target]));
        bg.wait_for("Creating table 'sbtest100'", Duration::from_secs(30));
        let (st, _, out, _) = bg.stop(libc::SIGTERM, Duration::from_secs(2));
        assert_eq!(st.code(), Some(130), "exit status after SIGTERM: {st}\n{out}");
    }
}

// --- TLS on the built-in wire clients ---

/// A default Debian PostgreSQL offers TLS, so a plain `postgres://` URL (sslmode=prefer)
/// negotiated TLS and the run was handed to the general driver without a word: 1.2-1.3x the
/// client CPU per query. `ssl-mode=REQUIRED` on MariaDB did the same. FAIRBENCH_WIRE=fast
/// refuses that hand-over, so these runs now fail if it comes back.
#[test]
fn tls_run_silently_fell_back_to_the_general_driver() {
    let (my, pg) = (mysql_url(), pg_url());
    for url in [pg.clone(), format!("{pg}?sslmode=require"), format!("{my}?ssl-mode=PREFERRED"), format!("{my}?ssl-mode=REQUIRED")] {
        let mut cmd = fairbench();
        cmd.env("FAIRBENCH_WIRE", "fast").args(["run", "oltp_point_select", "--target", &url, "--table-name", "reg_tls_fallback_"]).args(["--table-size", "100", "--time", "1", "--no-save"]);
        let out = run_ok(&mut cmd);
        let so = stdout(&out);
        assert!(so.contains("queries:"), "{url}: no run summary\n{so}");
    }
}

// Output into a closed pipe: `fairbench check tpcc | head` panicked with "Broken pipe" (exit
// 101 and a stack trace), since printing to a pipe whose reader has gone fails.
#[test]
fn report_into_a_closed_pipe_panicked() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = fairbench().args(["explain", "OLTP_RW-10Mx8tab-uniform-ps-trx"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // Close the reading end before fairbench writes: every line it prints meets a closed pipe.
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked") && status.code() != Some(101), "{status:?}\n{err}");
}

// ---- issue 15, the shared label grammar (labels of one family decoded with another's tokens) ----

// `dbstress_ro-10K` decoded with the sysbench OLTP tokens (table-size=10000, which dbSTRESS
// has no option for) and printed `dbSTRESS_1M-RO-noPS-trx` as its canonical label: a
// workload name whose family has no tokens in the shared grammar, or no family at all
// (`foo_bar-10K`), took the OLTP family's tokens. Now it is refused, naming the scenario.
#[test]
fn label_took_another_familys_tokens_for_a_workload_name() {
    for label in ["dbstress_ro-10K", "foo_bar-10K"] {
        let out = fairbench().args(["explain", label]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{label}: {err}");
        let scenario = label.split('-').next().unwrap();
        assert!(err.contains(&format!("'{scenario}' is not a scenario")) && err.contains("dbSTRESS"), "{label}: {err}");
        // Every family's label words are offered, those of families that
        // decode their labels whole included.
        for w in fairbench::workload::FAMILIES.iter().filter_map(|f| f.labels()).flat_map(|l| l.label_words()) {
            assert!(err.contains(w), "{label}: '{w}' missing from: {err}");
        }
    }
}

// --- Long runs: memory per interval ---

/// The peak resident size of a running child, in kB (Linux).
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// Every interval kept its full latency histograms (about 190 KB each, more with per-kind
/// ones) until the run ended, so memory grew by MBs a minute and a 24-hour run at one
/// interval a second would have needed tens of GB. At ten intervals a second for 10 s the
/// old code grew by ~37 MB; now the intervals keep their counters only.
#[test]
fn intervals_kept_their_histograms_for_the_whole_run() {
    use std::process::Stdio;
    let s = Scratch::new("interval-memory");
    let target = s.target("mem.db");
    s.run(&["prepare", "oltp_point_select", "--target", &target, "--table-size", "100"]);
    let mut child = fairbench()
        .current_dir(s.dir.path())
        .args(["run", "oltp_point_select", "--target", &target, "--table-size", "100", "--time", "12", "--report-interval", "0.1", "--no-save"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    let (mut early, mut last) = (None, None);
    while child.try_wait().unwrap().is_none() {
        if let Some(kb) = peak_rss_kb(child.id()) {
            if early.is_none() && t0.elapsed() >= Duration::from_secs(2) {
                early = Some(kb);
            }
            last = Some(kb);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (early, last) = (early.expect("no early sample"), last.unwrap());
    assert!(last.saturating_sub(early) < 15_000, "peak RSS grew from {early} kB to {last} kB over ~10 s of a run");
}

/// `fairbench merge` kept every interval histogram of every member decoded until it ended
/// (about 190 KB each at 1 µs .. 1 h and 3 digits): 4 x 10-minute logs at 1 s took 575 MiB.
/// Each is now added into its slot as it is read, so memory follows the slots, not members
/// times intervals: 4 members x 300 intervals took about 300 MB before, about 80 MB now.
#[test]
fn merge_kept_every_members_interval_histograms() {
    let dir = tempfile::Builder::new().prefix("fb-reg-merge-memory-").tempdir().unwrap();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let names = ["1", "2", "3", "4"];
    let logs: Vec<PathBuf> = names
        .iter()
        .enumerate()
        .map(|(i, &name)| {
            let m = SyntheticMember { name, late_ms: i as i64 * 3, levels: vec![(1, (0..300).map(|_| part(&mut rng, 1.0)).collect(), None)] };
            let path = dir.path().join(format!("{name}.hlog"));
            write_synthetic_log(&path, &m, &names, 1_800_000_000_000);
            path
        })
        .collect();
    let mut child = fairbench().arg("merge").args(&logs).arg("--no-save").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
    // The merge's own peak (VmHWM of its address space), read while it runs: the
    // rusage a wait gives also counts what the process held before exec, a copy
    // of this test process, which other tests running beside it make larger.
    let mut peak = 0u64;
    while child.try_wait().unwrap().is_none() {
        let hwm = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
            .ok()
            .and_then(|s| s.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()));
        peak = peak.max(hwm.unwrap_or(0));
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(child.wait().unwrap().success(), "merge failed");
    assert!(peak > 0, "the merge's memory was never read");
    // 300 slots of 190 KB are 57 MB; every interval of every member would be 4 times that.
    assert!(peak < 150_000, "merge of 4 x 300 intervals peaked at {peak} kB");
}

// ---- fairbench merge: the merged intervals add up to the totals ----

/// A level run without intermediate reports (`--report-interval 0`) is logged as one
/// histogram and its summary, with no `#fairbench-interval` line: merge gave that interval
/// none of the summary's counts, so it read `reads: 0 ... client cpu: 0.00 s` beside events
/// and a total of 138,572 reads.
#[test]
fn merged_level_without_intermediate_reports_lost_its_queries_and_cpu() {
    let dir = tempfile::Builder::new().prefix("fb-reg-merge-no-reports-").tempdir().unwrap();
    let mut rng = 0x853c_49e6_748f_ea9bu64;
    let names = ["a", "b"];
    let members: Vec<SyntheticMember> = names.iter().map(|&name| SyntheticMember { name, late_ms: 0, levels: vec![(2, vec![], Some(part(&mut rng, 1.5)))] }).collect();
    let logs: Vec<PathBuf> = members
        .iter()
        .map(|m| {
            let path = dir.path().join(format!("{}.hlog", m.name));
            write_synthetic_log(&path, m, &names, 1_800_000_000_000);
            path
        })
        .collect();
    let out = stdout(&run_ok(fairbench().arg("merge").args(&logs).arg("--no-save")));
    let line = out.lines().find(|l| l.starts_with("[ ")).unwrap_or_else(|| panic!("{out}"));
    let sum = |i: usize| members.iter().map(|m| m.levels[0].2.as_ref().unwrap().counts[i]).sum::<u64>();
    let cpu: f64 = members.iter().map(|m| m.levels[0].2.as_ref().map(|p| p.cpu.0 + p.cpu.1).unwrap()).sum();
    let want = format!("reads: {} writes: {} other: {} errors: {} client cpu: {cpu:.2} s", sum(0), sum(1), sum(2), sum(3));
    assert!(line.starts_with("[ 2s ] members: 2 ") && line.ends_with(&want), "{line}\nwanted it to end with {want}");
}

// ---- labels of a family that decodes them whole ----

// The LinkBench label decoder sliced a label's first 8 or 10 bytes to compare
// them with `Prepare_` and `LinkBench_`, and panicked when the cut fell inside
// a multi-byte character (the property test found `AﯓA𝍠`). Now every label
// is one line and exit 2, never a panic.
#[test]
fn label_prefix_cut_inside_a_character() {
    for label in ["AﯓA𝍠", "Prepare_é", "LinkBenché_1M", "Prepare\u{1d360}x", "LinkBench_\u{1d360}"] {
        let out = fairbench().args(["explain", label]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{label}: {err}");
        assert!(!err.contains("panicked") && err.trim().lines().count() == 1, "{label}: {err}");
    }
}

// Output into a pipe whose reader went away.

/// `fairbench run ... | head -1` panicked ("failed printing to stdout:
/// Broken pipe") at the next per-second line, and the run it had measured
/// was never stored. It must go on to the end, exit 0 and store the run.
#[test]
fn run_piped_into_head_neither_panics_nor_loses_the_run() {
    let s = Scratch::new("pipe");
    let t = s.target("db.sqlite");
    s.run(&["prepare", "oltp_point_select", "--tables", "1", "--table-size", "100", "--target", &t]);
    let mut child = fairbench()
        .current_dir(s.dir.path())
        .args(["run", "oltp_point_select", "--tables", "1", "--table-size", "100", "--time", "3", "--report-interval", "1", "--target", &t, "--results"])
        .arg(s.store())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close the pipe as `head -1` does.
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    std::io::Read::read_exact(&mut out, &mut first).unwrap();
    drop(out);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(s.export().len(), 1, "the run was not stored: {err}");
}

// Options that go into SQL.

/// `--table-name` went into every statement unquoted and unchecked: a name
/// with a quote or a semicolon in it reached the server as SQL. It is one
/// line and exit 2 now, before anything connects.
#[test]
fn table_name_with_sql_in_it_is_refused_before_connecting() {
    let s = Scratch::new("tname");
    let t = s.target("db.sqlite");
    let out = run_fail(fairbench().args(["prepare", "oltp_read_only", "--table-name", "t; DROP TABLE x", "--target", &t]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("--table-name") && err.contains("not a plain table name"), "{err}");
    assert!(!s.dir.path().join("db.sqlite").exists(), "it connected: {err}");
}

// ---- The client's environment: libpq's and the mysql client's variables

/// `fairbench env` against `url` with only `vars` of the client variables: none of the test
/// process's PG*/MYSQL_* variables (those a sandbox leaves out), no FAIRBENCH_PASSWORD, and a
/// HOME without ~/.pgpass or ~/.my.cnf.
fn connect_with(url: &str, vars: &[(&str, &str)]) -> Output {
    let home = tempfile::Builder::new().prefix("fb-regr-home-").tempdir().expect("temp dir");
    let mut c = fairbench();
    c.args(["env", "--target", url]).env("HOME", home.path()).env_remove("FAIRBENCH_PASSWORD");
    for (k, _) in std::env::vars_os() {
        if fairbench::server::environ::is_left_out(&k) {
            c.env_remove(k);
        }
    }
    c.envs(vars.iter().copied());
    run_within(&mut c, Duration::from_secs(120))
}

/// The password given as an environment variable: it connects with the right one, a wrong
/// one is the authentication failure (exit 3, the password not shown), and a password in
/// the URL wins over a wrong one.
fn password_variable_is_read_when_the_url_has_none(url: &str, var: &str) {
    let u = parse_url(url);
    let scheme = url.split("://").next().unwrap();
    let (bare, given) = (format!("{scheme}://{}@{}:{}/{}", u.user, u.host, u.port.unwrap(), u.database), url.to_string());
    let (bare, given) = if scheme == "postgres" { (format!("{bare}?sslmode=disable"), format!("{given}?sslmode=disable")) } else { (bare, given) };
    let ok = connect_with(&bare, &[(var, &u.password)]);
    assert!(ok.status.success(), "{var} is the password of {bare}\n{}", show(&ok));
    let wrong = connect_with(&bare, &[(var, "wrong-password")]);
    assert_eq!(wrong.status.code(), Some(3), "a wrong {var}\n{}", show(&wrong));
    assert!(!show(&wrong).contains("wrong-password"), "{}", show(&wrong));
    let url_wins = connect_with(&given, &[(var, "wrong-password")]);
    assert!(url_wins.status.success(), "the URL's password over a wrong {var}\n{}", show(&url_wins));
}

// PGPASSWORD was not read: a URL without a password failed to authenticate where psql
// connected with the same variables set.
#[test]
fn pgpassword_is_the_password_when_the_url_has_none() {
    password_variable_is_read_when_the_url_has_none(&pg_url(), "PGPASSWORD");
}

// MYSQL_PWD was not read either.
#[test]
fn mysql_pwd_is_the_password_when_the_url_has_none() {
    password_variable_is_read_when_the_url_has_none(&mysql_url(), "MYSQL_PWD");
}

// The other libpq variables were not read: PGHOST, PGPORT, PGUSER and PGDATABASE name the
// test server for a URL that names nothing, as they do for psql.
#[test]
fn libpq_variables_name_the_server_when_the_url_does_not() {
    let u = parse_url(&pg_url());
    let port = pg_port().to_string();
    let vars = [("PGHOST", "127.0.0.1"), ("PGPORT", &port), ("PGUSER", &u.user), ("PGPASSWORD", &u.password), ("PGDATABASE", &u.database), ("PGSSLMODE", "disable")];
    let out = connect_with("postgres://", &vars);
    assert!(out.status.success(), "{}", show(&out));
    // A socket directory as PGHOST: the server's, and one where there is none.
    let elsewhere = connect_with("postgres://", &[("PGHOST", "/nonexistent"), ("PGPORT", &port), ("PGUSER", &u.user), ("PGPASSWORD", &u.password), ("PGDATABASE", &u.database)]);
    assert_eq!(elsewhere.status.code(), Some(3), "{}", show(&elsewhere));
    let dir = pg_socket_dir();
    let out = connect_with("postgres://", &[("PGHOST", &dir), ("PGPORT", &port), ("PGUSER", &u.user), ("PGPASSWORD", &u.password), ("PGDATABASE", &u.database)]);
    assert!(out.status.success(), "{}", show(&out));
}

// A variable that cannot be used is one line naming it, exit 2, as a bad URL is.
#[test]
fn an_unusable_client_variable_is_one_line_naming_it() {
    for (url, var, value) in [("postgres://", "PGPORT", "abc"), ("postgres://", "PGSSLMODE", "bogus"), ("postgres://", "PGCONNECT_TIMEOUT", "soon"), ("mysql://", "MYSQL_TCP_PORT", "x")] {
        let out = connect_with(url, &[(var, value)]);
        assert_eq!(out.status.code(), Some(2), "{var}={value}\n{}", show(&out));
        assert_one_line_error(&out, &[var, value]);
    }
}

// The client's threads.

/// The syscall each worker thread of process `pid` is waiting in, sampled
/// `rounds` times a few milliseconds apart: (thread name, syscall numbers seen).
fn worker_waits(pid: u32, rounds: usize) -> std::collections::BTreeMap<String, Vec<i64>> {
    let mut seen: std::collections::BTreeMap<String, Vec<i64>> = std::collections::BTreeMap::new();
    for _ in 0..rounds {
        for t in std::fs::read_dir(format!("/proc/{pid}/task")).map(|d| d.flatten().collect::<Vec<_>>()).unwrap_or_default() {
            let name = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default().trim().to_string();
            if !name.starts_with("fb-worker-") {
                continue;
            }
            let call = std::fs::read_to_string(t.path().join("syscall")).unwrap_or_default();
            let nr = call.split_whitespace().next().and_then(|n| n.parse::<i64>().ok());
            let e = seen.entry(name).or_default();
            e.extend(nr);
        }
        std::thread::sleep(Duration::from_millis(7));
    }
    seen
}

/// Up to 32 clients, the built-in workloads' clients shared one worker
/// thread per CPU and waited in epoll: anything else running on the
/// machine (a build, a second server) then made them dearer than sysbench
/// at once (on 2 cores beside two nice-19 loops, 4 PostgreSQL clients made
/// half sysbench's point selects a second at twice its client CPU per
/// query). Each now has a thread of its own and waits inside recv(2), as a
/// sysbench thread does; beyond 32 clients they share one thread per CPU.
#[test]
fn builtin_workload_clients_each_wait_in_recv_on_a_thread_of_their_own_up_to_32() {
    let cpus = std::thread::available_parallelism().unwrap().get();
    for url in [pg_url(), mysql_url()] {
        let prep = run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &url, "--tables=1", "--table-size=1000", "--table-name=fbthr", "--no-save"]));
        assert!(prep.status.success(), "{}", show(&prep));
        for (clients, workers) in [(4, 4), (32, 32), (40, cpus.min(40))] {
            let child = fairbench()
                .args(["run", "oltp_point_select", "--target", &url, "--tables=1", "--table-size=1000", "--table-name=fbthr", "--time=3", "--no-prepare", "--no-save"])
                .arg(format!("--threads={clients}"))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            std::thread::sleep(Duration::from_millis(1200));
            let seen = worker_waits(child.id(), 60);
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{url} {clients} clients: {}", show(&out));
            assert_eq!(seen.len(), workers, "{url} {clients} clients: worker threads {:?}", seen.keys());
            let epoll = [libc::SYS_epoll_wait, libc::SYS_epoll_pwait, libc::SYS_epoll_pwait2];
            let in_recv = seen.values().filter(|calls| calls.contains(&libc::SYS_recvfrom)).count();
            let in_epoll = seen.values().filter(|calls| calls.iter().any(|c| epoll.contains(c))).count();
            if workers == clients {
                assert_eq!(in_epoll, 0, "{url} {clients} clients: a client with a thread of its own waited in epoll: {seen:?}");
                assert!(in_recv > 0, "{url} {clients} clients: no thread was seen waiting in recv: {seen:?}");
            } else {
                assert_eq!(in_recv, 0, "{url} {clients} clients sharing {workers} threads: a thread blocked in recv: {seen:?}");
            }
        }
        run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", &url, "--tables=1", "--table-name=fbthr"]));
    }
}

/// Voluntary context switches of a `fairbench` run (its whole process) per
/// query it reports, from wait4's resource usage of the child.
#[allow(clippy::zombie_processes)] // reaped by wait4 below, which keeps its resource usage
fn context_switches_per_query(args: &[&str]) -> f64 {
    use std::io::Read;
    let mut child = fairbench().args(args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null()).spawn().unwrap();
    let mut text = String::new();
    child.stdout.take().unwrap().read_to_string(&mut text).unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is this process's child, not reaped yet (Child was never waited on).
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid, "wait4 failed");
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{args:?}: status {status}\n{text}");
    let queries: f64 =
        text.lines().find_map(|l| l.trim().strip_prefix("queries:")).and_then(|v| v.split_whitespace().next()).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no queries line:\n{text}"));
    usage.ru_nvcsw as f64 / queries
}

/// A client waiting in recv(2) on a Unix socket was woken each time the
/// server read its request (the socket's one wait queue serves both
/// directions) and went back to sleep: 1.6-1.9 voluntary context switches
/// per point select on MariaDB's socket, against 1.0 for sysbench, whose
/// client polls for input. It now polls too.
#[test]
fn a_client_blocking_on_a_unix_socket_sleeps_once_per_query() {
    let my = format!("{}?socket={}", mysql_url(), mysql_socket());
    let pg = format!("{}?host={}", pg_url(), pg_socket_dir());
    for url in [my, pg] {
        let prep = run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &url, "--tables=1", "--table-size=1000", "--table-name=fbsock", "--no-save"]));
        assert!(prep.status.success(), "{}", show(&prep));
        let per_query = context_switches_per_query(&[
            "run",
            "oltp_point_select",
            "--target",
            &url,
            "--tables=1",
            "--table-size=1000",
            "--table-name=fbsock",
            "--threads=4",
            "--events=20000",
            "--no-prepare",
            "--no-save",
        ]);
        run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", &url, "--tables=1", "--table-name=fbsock"]));
        assert!(per_query < 1.3, "{url}: {per_query:.2} voluntary context switches per query (one sleep per answer is 1.0)");
    }
}

// A client alone on its worker thread (every client of a run of up to 32) waits on its socket
// by blocking the thread. While its server answered every statement with an error (vtgate with
// a shard away) its retries never suspended: the thread's ticker never ran, no interval was
// reported until the server came back, and then all at once, the stall's errors counted in the
// interval it began in.
#[test]
fn intervals_stopped_while_the_only_client_retried_its_errors() {
    let db = parse_url(&mysql_url()).database;
    let base = ["--target", &mysql_url(), "--table-name", "stall_", "--table-size", "100"];
    mysql_admin(&format!("DROP TABLE IF EXISTS `{db}`.stall_away"));
    run_ok(fairbench().args(["cleanup", "oltp_point_select"]).args(base));
    run_ok(fairbench().args(["prepare", "oltp_point_select"]).args(base));
    let mut run = common::watch::Watched::spawn(
        fairbench().args(["run", "oltp_point_select", "--threads", "1", "--time", "60", "--report-interval", "1", "--output", "json", "--no-save", "--mysql-ignore-errors=all"]).args(base),
    );
    run.wait_for_run_time(Duration::from_secs(60), 1.0);
    let interval = |l: &str| serde_json::from_str::<Value>(l).ok().filter(|v| v["type"] == "interval");
    // Every statement fails at once: the table is away. Three intervals must come, each within
    // 5 s of the last, counting the errors.
    mysql_admin(&format!("RENAME TABLE `{db}`.stall_1 TO `{db}`.stall_away"));
    for _ in 0..3 {
        run.wait_for(Duration::from_secs(5), |l| interval(l).is_some_and(|v| v["errors_per_s"].as_f64().unwrap_or(0.0) > 0.0 && v["events"] == 0));
    }
    mysql_admin(&format!("RENAME TABLE `{db}`.stall_away TO `{db}`.stall_1"));
    run.wait_for(Duration::from_secs(5), |l| interval(l).is_some_and(|v| v["events"].as_u64().unwrap_or(0) > 0));
    run.kill();
    run_ok(fairbench().args(["cleanup", "oltp_point_select"]).args(base));
}

// ---- Recovery hints name the command that recovers (issue 53)

/// A hint's command (`...` in a refusal), run with the test's binary: its
/// words as a shell splits them (the hint quotes only where it must).
fn hinted(refusal: &str, dir: &Path) -> Command {
    let (_, rest) = refusal.split_once('`').unwrap_or_else(|| panic!("no command in: {refusal}"));
    let (line, _) = rest.split_once('`').unwrap_or_else(|| panic!("no command in: {refusal}"));
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words[0], "fairbench", "{refusal}");
    assert!(!line.contains('\''), "a word to unquote: {line}");
    let mut c = fairbench();
    c.current_dir(dir).args(&words[1..]);
    c
}

// A second YCSB load (an interrupted one now goes on: tests/ycsb.rs) said "run `fairbench cleanup` then
// `prepare`": plain `cleanup` dropped sysbench's sbtest1 and left usertable, and
// `cleanup ycsb --target URL` was refused ("recordcount is 0"). The refusal now names the
// cleanup of the workload and data it was about; following it drops usertable, and the load
// runs again.
#[test]
fn a_second_ycsb_load_names_the_cleanup_that_drops_its_table() {
    let s = Scratch::new("ycsb-again");
    let t = s.target("y.db");
    let load = ["load", "ycsb", "-P", "workloads/workloada", "-p", "recordcount=500", "--target", &t, "--no-save"];
    run_ok(fairbench().current_dir(s.dir.path()).args(load));
    let refused = stderr(&run_fail(fairbench().current_dir(s.dir.path()).args(load)));
    assert!(refused.contains("usertable holds the 500 records this load inserts already"), "{refused}");
    let cleanup = stdout(&run_ok(&mut hinted(&refused, s.dir.path())));
    assert!(cleanup.contains("Dropping table 'usertable'"), "{cleanup}");
    assert!(!cleanup.contains("sbtest"), "{cleanup}");
    run_ok(fairbench().current_dir(s.dir.path()).args(load));
    // Cleanup needs no workload file: it drops the table.
    let bare = stdout(&run_ok(fairbench().current_dir(s.dir.path()).args(["cleanup", "ycsb", "--target", &t])));
    assert!(bare.contains("Dropping table 'usertable'"), "{bare}");
}

// `run ycsb` over part of the records said "load it with the run's recordcount (fairbench
// load ycsb -p recordcount=N)", a load that was itself refused (record 0 was there), and
// `prepare ycsb` said "run fairbench cleanup ycsb first", refused without a workload file.
// Both now name the cleanup of this data, and after it the same command runs; a prepare over
// records it can complete completes them.
#[test]
fn a_ycsb_run_or_prepare_over_part_of_the_records_names_a_cleanup_that_works() {
    let s = Scratch::new("ycsb-partial");
    let t = s.target("y.db");
    run_ok(fairbench().current_dir(s.dir.path()).args(["load", "ycsb", "-P", "workloads/workloada", "-p", "recordcount=300", "--target", &t, "--no-save"]));
    let run = ["run", "ycsb", "-P", "workloads/workloada", "-p", "recordcount=600", "-p", "operationcount=100", "--target", &t, "--no-save"];
    let refused = stderr(&run_fail(fairbench().current_dir(s.dir.path()).args(run)));
    assert!(refused.contains("usertable lacks record"), "{refused}");
    run_ok(&mut hinted(&refused, s.dir.path()));
    let ran = stdout(&run_ok(fairbench().current_dir(s.dir.path()).args(run)));
    let ops: u64 = ran.lines().filter_map(|l| l.split_once("], Operations, ")).filter_map(|(_, n)| n.trim().parse::<u64>().ok()).sum();
    assert_eq!(ops, 100, "the run's operationcount over its kinds: {ran}");
    // prepare over a smaller load's records loads the rest; over records no prepare leaves (a
    // load from record 105 on) it is refused, and the cleanup it names works.
    run_ok(fairbench().current_dir(s.dir.path()).args(["cleanup", "ycsb", "--target", &t]));
    run_ok(fairbench().current_dir(s.dir.path()).args(["load", "ycsb", "-P", "workloads/workloada", "-p", "recordcount=300", "--target", &t, "--no-save"]));
    let prepare = ["prepare", "ycsb", "-p", "recordcount=600", "--target", &t];
    let extended = stdout(&run_ok(fairbench().current_dir(s.dir.path()).args(prepare)));
    assert!(extended.contains("usertable holds 300 of its 600 records"), "{extended}");
    run_ok(fairbench().current_dir(s.dir.path()).args(["cleanup", "ycsb", "--target", &t]));
    run_ok(fairbench().current_dir(s.dir.path()).args(["load", "ycsb", "-P", "workloads/workloada", "-p", "insertstart=105", "-p", "insertcount=200", "--target", &t, "--no-save"]));
    let refused = stderr(&run_fail(fairbench().current_dir(s.dir.path()).args(prepare)));
    assert!(refused.contains("not as an interrupted prepare of these records leaves them"), "{refused}");
    run_ok(&mut hinted(&refused, s.dir.path()));
    run_ok(fairbench().current_dir(s.dir.path()).args(prepare));
}

/// An interrupted YCSB prepare could not go on: a second prepare refused the table ("exists
/// without all its records") and `run` pointed at a load that was refused too. A prepare now
/// resumes where each piece of the load stopped (whatever its --threads), writing the values an
/// uninterrupted prepare writes; records no prepare of these options leaves are refused, with
/// nothing added.
#[test]
fn an_interrupted_ycsb_prepare_resumes_with_the_records_of_an_uninterrupted_one() {
    let s = Scratch::new("ycsb-resume");
    let (a, b) = (s.dir.path().join("a.db"), s.dir.path().join("b.db"));
    let (ta, tb) = (s.target("a.db"), s.target("b.db"));
    let props = ["-P", "workloads/workloada", "-p", "recordcount=200000", "-p", "fieldcount=2", "-p", "fieldlength=8", "--rand-seed", "3"];
    let count = |f: &Path| -> u64 { rusqlite::Connection::open(f).ok().and_then(|c| c.query_row("SELECT COUNT(*) FROM usertable", [], |r| r.get::<_, i64>(0)).ok()).unwrap_or(0) as u64 };
    let mut prepare = fairbench();
    prepare.current_dir(s.dir.path()).args(["prepare", "ycsb", "--target", &ta, "--threads", "2"]).args(props);
    let (code, _, out) = interrupt_when(&mut prepare, || count(&a) > 0);
    assert_eq!(code, Some(130), "{out}");
    let held = count(&a);
    assert!(held > 0 && held < 200_000, "{held} records after the interrupt");
    // `run` says which command finishes it.
    let out = run_fail(fairbench().current_dir(s.dir.path()).args(["run", "ycsb", "--target", &ta]).args(props));
    assert!(stderr(&out).contains("a prepare with these options loads the rest"), "{}", show(&out));
    // Resumed with another number of loaders: the pieces are the records', not the loaders'.
    let mut resumed = vec!["prepare", "ycsb", "--target", &ta, "--threads", "3"];
    resumed.extend(props);
    let text = s.run(&resumed);
    assert!(text.contains(&format!("usertable holds {held} of its 200000 records (a prepare that did not finish, or a smaller load): loading the rest.")), "{text}");
    assert_eq!(count(&a), 200_000);
    let mut whole = vec!["prepare", "ycsb", "--target", &tb];
    whole.extend(props);
    s.run(&whole);
    let rows = |f: &Path| -> Vec<(String, String, String)> {
        let c = rusqlite::Connection::open(f).unwrap();
        let mut st = c.prepare("SELECT YCSB_KEY, FIELD0, FIELD1 FROM usertable ORDER BY YCSB_KEY").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
    };
    let (ra, rb) = (rows(&a), rows(&b));
    assert_eq!(ra.len(), 200_000);
    assert!(ra == rb, "the resumed load's records differ from an uninterrupted one's");
    // Records of another insertstart are no prefix of these pieces: refused, nothing added.
    let mut other = vec!["prepare", "ycsb", "--target", &ta, "-p", "insertstart=1000", "-p", "insertcount=200000"];
    other.extend(props);
    let out = run_fail(fairbench().current_dir(s.dir.path()).args(&other).arg("--results").arg(s.store()));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["not as an interrupted prepare of these records leaves them", "fairbench cleanup"]);
    assert_eq!(count(&a), 200_000);
}

/// A YCSB run over the first of more records than it reads said nothing (sysbench's tables
/// say so): the note, the recorded sizes and the audit's warning give the records the table
/// holds, found by key lookups (2,345 is no power of two).
#[test]
fn a_ycsb_run_over_part_of_the_records_says_so_and_the_audit_warns() {
    let s = Scratch::new("ycsb-larger");
    let t = s.target("y.db");
    s.run(&["prepare", "ycsb", "-P", "workloads/workloada", "-p", "recordcount=2345", "--target", &t]);
    let out = s.run(&["run", "ycsb", "-P", "workloads/workloada", "-p", "recordcount=1000", "-p", "operationcount=200", "--target", &t]);
    assert!(out.contains("Note: the tables hold ids up to 2345 but -p recordcount is 1000"), "{out}");
    assert!(out.contains("[WARNING] partial-working-set: run ") && out.contains("touched ids 1..1000 of the 2345 in each table (43%)"), "{out}");
    let run = s.export().pop().unwrap();
    assert_eq!((run["options"]["data-table-size"].as_str(), run["options"]["touched-table-size"].as_str()), (Some("2345"), Some("1000")), "{run:#}");
    // All of it (or nearly: a tenth more is no word) is no part.
    for count in ["2345", "2200"] {
        let out = s.run(&["run", "ycsb", "-P", "workloads/workloada", "-p", &format!("recordcount={count}"), "-p", "operationcount=200", "--target", &t]);
        assert!(!out.contains("Note: the tables hold") && !out.contains("partial-working-set"), "recordcount={count}: {out}");
    }
}

/// A slip in a workload or command name got a 590-character list (the Insert Benchmark named
/// twice) or blamed the workload (`oltp_read_only --threads=2 rnu`: "unrecognized subcommand
/// 'oltp_read_only'"): each now names what was meant, and the command it names works.
#[test]
fn a_misspelled_workload_or_command_is_answered_with_what_was_meant() {
    let s = Scratch::new("slips");
    let t = s.target("b.db");
    let fb = || {
        let mut c = fairbench();
        c.current_dir(s.dir.path());
        c
    };
    let out = run_fail(fb().args(["run", "oltp_raed_write", "--target", &t]));
    assert_one_line_error(&out, &["'oltp_raed_write'", "did you mean 'oltp_read_write'?"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run_fail(fb().args(["oltp_read_only", "--threads=2", "rnu", "--target", &t]));
    assert_one_line_error(&out, &["'rnu' is not a command: did you mean 'run'?"]);
    assert!(!stderr(&out).contains("unrecognized subcommand"), "{}", show(&out));
    run_ok(fb().args(["oltp_read_only", "--threads=2", "run", "--target", &t, "--table-size", "100", "--time", "1", "--no-save"]));
    let out = run_fail(fb().args(["oltp_read_only", "--threads=2", "--target", &t]));
    assert_one_line_error(&out, &["'oltp_read_only' is a workload and the command line has no command"]);
    // Nothing near: the list, each name once.
    let out = run_fail(fb().args(["run", "no_such_workload", "--target", &t]));
    assert_eq!(stderr(&out).matches("insert-benchmark").count(), 1, "{}", show(&out));
    // YCSB's -target is a rate: a URL there is the slip for fairbench's --target.
    let out = run_fail(fb().args(["load", "ycsb", "-P", "workloads/workloada", "-target", &t]));
    assert_one_line_error(&out, &["YCSB's -target is a rate", "--target URL"]);
}

/// `load` was in no help and `load --help` failed; the top-level help did not say that SQLite
/// is the default nor how a first session goes. Each first step it lists runs as written.
#[test]
fn the_help_names_load_and_a_first_session_that_works() {
    let s = Scratch::new("first-steps");
    let help = stdout(&run_ok(fairbench().arg("--help")));
    assert!(help.lines().any(|l| l.trim_start().starts_with("load ")), "{help}");
    assert!(help.contains("embedded SQLite file"), "{help}");
    let load = stdout(&run_ok(fairbench().args(["load", "--help"])));
    assert!(load.contains("load phase") && load.contains("prepare"), "{load}");
    let out = run_fail(fairbench().args(["load", "oltp_read_write", "--tables", "2"]));
    assert_one_line_error(&out, &["fairbench prepare oltp_read_write --tables 2"]);
    // The first session, in an empty directory: two short runs, then every other step as listed.
    let steps: Vec<Vec<&str>> = help
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("fairbench "))
        .map(|l| l.split("  ").next().unwrap().split_whitespace().collect())
        .filter(|w: &Vec<&str>| !w.is_empty() && w[0] != "COMMAND")
        .collect();
    assert!(steps.len() >= 5, "{steps:?}");
    for _ in 0..2 {
        run_ok(fairbench().current_dir(s.dir.path()).args(["run", "--table-size", "1000", "--time", "1"]));
    }
    for step in steps.iter().filter(|w| w[0] != "run") {
        run_ok(fairbench().current_dir(s.dir.path()).args(step));
    }
    assert!(s.dir.path().join("report.html").exists(), "{steps:?}");
}

/// On a terminal, a message printed while the progress line was drawn ran on after it ("ETA
/// 1sCreating a secondary index"): the line is cleared first. `script` gives the load a terminal.
#[test]
fn a_message_during_a_load_starts_on_a_cleared_line() {
    let s = Scratch::new("progress-tty");
    let t = s.target("b.db");
    let cmd = format!("{} prepare --target {t} --tables 3 --table-size 300000", env!("CARGO_BIN_EXE_fairbench"));
    let out = run_ok(Command::new("script").current_dir(s.dir.path()).args(["-qfec", &cmd, "/dev/null"]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("rows/s, ETA"), "the load drew no progress line: {text:?}");
    let messages: Vec<usize> = text.match_indices("Creating a secondary index").map(|(i, _)| i).collect();
    assert_eq!(messages.len(), 3, "{text:?}");
    for i in messages {
        let before = &text[..i];
        assert!(before.ends_with('\n') || before.ends_with("\r\x1b[2K"), "a message runs on after: {:?}", &before[before.len().saturating_sub(80)..]);
    }
}

/// Help that disagreed with what the commands take and the docs say: `server`'s help named two
/// of its five kinds, `results export --csv` sent the reader to the README for columns that
/// docs/results.md lists.
#[test]
fn the_help_names_every_server_kind_and_where_the_csv_columns_are() {
    let out = run_fail(fairbench().args(["server", "start", "no_such_kind"]));
    let err = stderr(&out);
    let kinds: Vec<String> = err.split("use ").nth(1).unwrap_or_else(|| panic!("{err}")).trim().replace(" or ", ", ").split(", ").map(str::to_string).collect();
    assert!(kinds.len() >= 5, "{kinds:?}");
    let top = stdout(&run_ok(fairbench().args(["server", "--help"]))).to_lowercase();
    let start = stdout(&run_ok(fairbench().args(["server", "start", "--help"])));
    for k in &kinds {
        assert!(top.contains(k.as_str()) && start.contains(k.as_str()), "server's help lacks {k}:\n{top}\n{start}");
    }
    let export = stdout(&run_ok(fairbench().args(["results", "export", "--help"]))).split_whitespace().collect::<Vec<_>>().join(" ");
    let doc = export.split("columns in ").nth(1).and_then(|r| r.split(')').next()).unwrap_or_else(|| panic!("{export}"));
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).unwrap_or_else(|e| panic!("{doc}: {e}"));
    assert!(text.contains("CSV") && text.contains("interval"), "{doc} lists no CSV columns");
}

/// The Insert Benchmark printed its whole banner for each of its steps (592 lines for a short
/// run) and said nothing of how long its defaults take (hours): one banner, the plan with the
/// time it takes at least, then each step's name.
#[test]
fn the_insert_benchmark_prints_one_banner_and_its_plan_up_front() {
    let s = Scratch::new("ibench-plan");
    let t = s.target("ib.db");
    let started = std::time::Instant::now();
    let args = ["run", "insert-benchmark", "--target", &t, "--rows", "1000", "--change-rows", "500", "--steps", "l.i0,l.x,l.i1,l.i2,qr100,qp100"];
    let out = s.run(&[&args[..], &["--query-secs", "1", "--settle-secs", "1"]].concat());
    let took = started.elapsed().as_secs_f64();
    assert_eq!(out.matches(&format!("fairbench {} (", fairbench::VERSION)).count(), 1, "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("Step: ")).count(), 6, "{out}");
    let plan: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("Plan: ")).take_while(|l| !l.starts_with("Step: ")).collect();
    assert_eq!(plan.first().copied(), Some("Plan: 6 step(s): l.i0, l.x, l.i1, l.i2, qr100, qp100"), "{out}");
    for want in ["  a settle of 1 s before the query steps", "  2 query step(s) of 1 s each", "  at least 3 s in all (--steps, --query-secs and --settle-secs shorten it)"] {
        assert!(plan.contains(&want), "{want:?} not in {plan:?}");
    }
    assert!(took >= 3.0, "the plan's least time is the run's: {took:.1} s");
}

/// `--reconnect N` is an option of every workload, but YCSB, LinkBench and the Insert Benchmark
/// ignored it: their clients kept one connection. The runner now reconnects after every N
/// events of each client, whatever the workload (a sysbench script renews its own connections,
/// as its own option asks).
#[test]
fn reconnect_every_n_events_is_honoured_by_every_workload() {
    let s = Scratch::new("reconnect");
    let t = s.target("rc.db");
    let mut c = fairbench();
    c.current_dir(s.dir.path()).args(["run", "ycsb", "-p", "recordcount=500", "--target", &t, "--threads", "1", "--events", "200", "--reconnect", "20", "--no-save", "--output", "json"]);
    let text = stdout(&run_ok(&mut c));
    let summary: Value = text.lines().rev().find(|l| l.contains("\"type\":\"summary\"")).map(|l| serde_json::from_str(l).unwrap()).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(summary["transactions"], 200, "{summary}");
    assert_eq!(summary["reconnects"], 10, "a new connection after every 20 of 200 events: {summary}");
}
