//! One test per bug fixed, named after what broke; each says what it was.

mod common;

use common::*;
use serde_json::Value;

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
    let show = s.run(&["results", "show", "last"]);
    let options = show.lines().find(|l| l.starts_with("Options: ")).unwrap_or_else(|| panic!("no Options line:\n{show}"));
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
    let out = stdout(&run_ok(fairbench().args(["prepare", "oltp_read_write", "--target", &pg_url(), "--table-name", table, "--tables", "2", "--table-size", "500", "--threads", &(cores + 2).to_string()])));
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
