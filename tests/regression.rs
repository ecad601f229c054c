//! One test per bug fixed, named after what broke, with a comment saying what it was.
//! Each test fails on the code before its fix.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let (summary, intervals): (Vec<Value>, Vec<Value>) = lines.into_iter().partition(|v| v["type"] == "summary");
    assert_eq!(summary.len(), 1, "one summary expected\n{}", stdout(&out));
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
    use fairbench::store::{IntervalRec, LevelRec, RunRecord};
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
    use fairbench::runner::{run_level, RunControl};
    use fairbench::store::{Begin, Recorder};
    use fairbench::target::{ConnConfig, Target};
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
        report_interval: Duration::from_secs(1),
        sync_file: None,
        worker_threads: 4,
        queue_max: 1000,
        seed: 1,
    };
    let info = fairbench::report::RunInfo {
        label: "stall".into(),
        workload: "stall".into(),
        engine: "sqlite".into(),
        target: db.display().to_string(),
        transport: "embedded".into(),
        percentile: 95,
        options: vec![],
        kinds: vec![],
    };
    let rec = Recorder::begin(Begin { path: &store, info: &info, cfg: &cfg, levels: &[4], tag: "", table_prefix: "", sample_period: Duration::from_secs(1) }).expect("results store");
    let mut sink = rec.sink();
    let r = run_level(Arc::new(stall::Stall), cfg.clone(), &rc, &mut *sink).expect("run");
    sink.summary(&r, &info);
    rec.finish(&Ok(()));
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
    use fairbench::error::Result;
    use fairbench::target::{Conn, ConnConfig, DbResult, StatementSet};
    use fairbench::workload::{Counters, TableState, Workload};
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
