//! The Insert Benchmark: its sequence of steps on SQLite, MariaDB and
//! PostgreSQL (TiDB's is in tests/tidb.rs) with the invariants each step
//! keeps (rows loaded, indexes after l.x, the size steady through l.i1,
//! l.i2 and the query steps), each step run alone, the writers' rate
//! reported met or missed, `compare` and the HTML report step by step,
//! Ctrl-C inside a step, and bad input.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const STEPS: [&str; 10] = ["l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"];

/// What the steps keep, read behind fairbench's back.
impl Server {
    fn rows(&self, tables: &[String]) -> u64 {
        tables.iter().map(|t| self.sql(&format!("SELECT COUNT(*) FROM {t}")).trim().parse::<u64>().unwrap()).sum()
    }

    /// The secondary indexes of `table` (iibench's three, named after it).
    fn indexes(&self, table: &str) -> u64 {
        let q = match self {
            Server::Sqlite(_) => format!("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = '{table}' AND name NOT LIKE 'sqlite_%'"),
            Server::Mariadb => format!("SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = '{table}' AND index_name <> 'PRIMARY'"),
            Server::Postgres => format!("SELECT COUNT(*) FROM pg_indexes WHERE tablename = '{table}' AND indexname <> '{table}_pkey'"),
        };
        self.sql(&q).trim().parse().unwrap()
    }
}

/// A run of the benchmark with `extra`, stored in `store`.
fn ib(server: &Server, prefix: &str, store: &Path, extra: &[&str]) -> Command {
    ib_for(server, prefix, store, "1", extra)
}

/// The same, with query steps of `query_secs`.
fn ib_for(server: &Server, prefix: &str, store: &Path, query_secs: &str, extra: &[&str]) -> Command {
    let mut c = fairbench();
    c.args(["run", "insert-benchmark", "--target", &server.url(), "--ibench-table", prefix, "--rows", "2000", "--clients", "2", "--change-rows", "1000", "--query-secs", query_secs])
        .args(["--rand-seed", "7", "--settle-secs", "1", "--results"])
        .arg(store)
        .args(extra);
    c
}

/// The stored levels of the store's last run.
fn last_levels(store: &Path) -> Vec<Value> {
    stored_levels(store, "last")
}

fn step_of(l: &Value) -> &str {
    l["summary"]["step"].as_str().unwrap_or("")
}

fn figure<'a>(l: &'a Value, name: &str) -> &'a str {
    l["summary"]["figures"][name].as_str().unwrap_or_else(|| panic!("no figure {name} in {}", l["summary"]["figures"]))
}

/// The whole sequence in one command, then every step alone, with what each keeps.
fn sequence_and_steps(server: Server, prefix: &str) {
    let dir = scratch_dir(&format!("ibench_{prefix}"));
    let store = dir.join("r.sqlite");
    let tables: Vec<String> = (1..=2).map(|n| format!("{prefix}{n}")).collect();
    // The whole sequence: ten levels named after the steps, in order.
    run_ok(&mut ib(&server, prefix, &store, &[]));
    let levels = last_levels(&store);
    assert_eq!(levels.iter().map(step_of).collect::<Vec<_>>(), STEPS, "{levels:?}");
    assert!(levels.iter().all(|l| l["status"] == "completed"), "{levels:?}");
    // l.x added 100 rows a client; the later steps deleted what they inserted.
    assert_eq!(server.rows(&tables), 2200);
    for t in &tables {
        assert_eq!(server.indexes(t), 3, "{t}");
    }
    for l in &levels[4..] {
        assert!(["yes", "no"].contains(&figure(l, "background rate met")), "{l}");
        assert!(figure(l, "background inserts/s").parse::<f64>().unwrap() > 0.0);
    }
    // The settle between l.i2 and qr100: the upkeep, a checkpoint where the
    // engine has one, and the rest (--settle-secs 1) before qr100 starts.
    let upkeep: f64 = figure(&levels[3], "settle: upkeep s").parse().unwrap();
    assert!((0.0..1.5).contains(&upkeep), "{}", levels[3]);
    if !matches!(server, Server::Mariadb) {
        figure(&levels[3], "settle: checkpoint s");
    }
    let settled: f64 = figure(&levels[3], "settle: total s").parse().unwrap();
    assert!(settled >= 1.0, "settled {settled} s with --settle-secs 1");
    if matches!(server, Server::Postgres) {
        for t in &tables {
            assert_eq!(server.sql(&format!("SELECT COUNT(*) FROM pg_stat_user_tables WHERE relname = '{t}' AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL")), "1", "{t} vacuumed");
        }
    }
    // Each step alone, with the invariant it keeps.
    run_ok(&mut ib(&server, prefix, &store, &["--steps", "l.i0"]));
    assert_eq!(server.rows(&tables), 2000, "l.i0 loads --rows");
    assert_eq!(tables.iter().map(|t| server.indexes(t)).sum::<u64>(), 0, "l.i0 makes no secondary index");
    assert_eq!(figure(&last_levels(&store)[0], "rows inserted"), "2000");
    run_ok(&mut ib(&server, prefix, &store, &["--steps", "l.x"]));
    assert_eq!(server.rows(&tables), 2200);
    assert!(tables.iter().all(|t| server.indexes(t) == 3), "l.x adds the three indexes");
    run_ok(&mut ib(&server, prefix, &store, &["--steps", "l.i1,l.i2"]));
    assert_eq!(server.rows(&tables), 2200, "l.i1 and l.i2 delete as many rows as they insert");
    let l = last_levels(&store);
    assert_eq!(figure(&l[0], "rows inserted"), "800", "4/5 of --change-rows in l.i1");
    assert_eq!(figure(&l[1], "rows inserted"), "200", "1/5 in l.i2");
    run_ok(&mut ib(&server, prefix, &store, &["--steps", "qp500"]));
    assert_eq!(server.rows(&tables), 2200, "the query steps' writers delete as many rows as they insert");
    run_ok(fairbench().args(["cleanup", "insert-benchmark", "--target", &server.url(), "--ibench-table", prefix, "--clients", "2"]));
}

#[test]
fn the_sequence_and_each_step_keep_their_invariants_on_sqlite() {
    sequence_and_steps(Server::Sqlite(scratch_dir("ibench_lite").join("ib.db")), "ibl");
}

/// Held by the tests that settle on MariaDB: a settle sets InnoDB's dirty
/// page targets for a while, and the other test reads them.
static INNODB_GLOBALS: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn the_sequence_and_each_step_keep_their_invariants_on_mariadb() {
    let _globals = INNODB_GLOBALS.lock().unwrap_or_else(|e| e.into_inner());
    sequence_and_steps(Server::Mariadb, "ibm");
}

#[test]
fn the_sequence_and_each_step_keep_their_invariants_on_postgresql() {
    sequence_and_steps(Server::Postgres, "ibp");
}

#[test]
fn a_writer_rate_out_of_reach_is_reported_missed() {
    let dir = scratch_dir("ibench_missed");
    let (store, server) = (dir.join("r.sqlite"), Server::Sqlite(dir.join("ib.db")));
    // A million rows a second per writer: no writer keeps that here (--time ends the step).
    run_ok(&mut ib(&server, "ibr", &store, &["--steps", "l.i0,l.x,qr1000000", "--time", "3"]));
    let l = &last_levels(&store)[2];
    assert_eq!(figure(l, "background rate met"), "no", "{l}");
    assert_eq!(figure(l, "background insert target/s"), "2000000");
    // What the writers did reach is printed, as a rate well short of the target.
    let got: f64 = figure(l, "background inserts/s").parse().unwrap();
    assert!(got > 0.0 && got < 0.95 * 2_000_000.0, "{l}");
    assert!(last_levels(&store)[2]["elapsed_s"].as_f64().unwrap() < 4.0, "--time ended the step");
}

// A newcomer's qr100 with --query-secs 2 lasted 1.0-1.5 s and printed 384 rows/s against a
// target of 200, "rate met: yes": the last second's batches went out at once and nothing
// waited for that second's end.
#[test]
fn a_writer_rate_within_reach_is_met_for_the_seconds_asked() {
    let dir = scratch_dir("ibench_met");
    let (store, server) = (dir.join("r.sqlite"), Server::Sqlite(dir.join("ib.db")));
    // 100 rows a second per writer (2 writers) for 3 s: SQLite holds that easily.
    run_ok(&mut ib_for(&server, "ibk", &store, "3", &["--steps", "l.i0,l.x,qr100"]));
    let l = &last_levels(&store)[2];
    assert_eq!(figure(l, "background rate met"), "yes", "{l}");
    assert_eq!(figure(l, "background insert target/s"), "200");
    let per_writer = figure(l, "background inserts/s").parse::<f64>().unwrap() / 2.0;
    assert!((per_writer - 100.0).abs() <= 5.0, "each writer at {per_writer:.1} rows/s, asked 100 (± 5%): {l}");
    let secs = l["elapsed_s"].as_f64().unwrap();
    assert!((2.9..3.45).contains(&secs), "the step lasted {secs} s, asked 3: {l}");
}

/// Each step's report is a few lines (sysbench's 45-line block after each of ten steps buried
/// what differs between them), the sequence ends with one table of its steps, and every
/// figure in both is the one stored.
#[test]
fn each_step_reports_in_a_few_lines_and_the_sequence_in_one_table() {
    let dir = scratch_dir("ibench_console");
    let (store, server) = (dir.join("r.sqlite"), Server::Sqlite(dir.join("ib.db")));
    let steps = ["l.i0", "l.x", "l.i1", "qr100"];
    let text = stdout(&run_ok(&mut ib(&server, "ibo", &store, &["--steps", &steps.join(",")])));
    assert!(!text.contains("SQL statistics:") && !text.contains("Threads fairness:"), "{text}");
    let levels = last_levels(&store);
    let lines: Vec<&str> = text.lines().collect();
    for (step, l) in steps.iter().zip(&levels) {
        let at = lines.iter().position(|x| x.starts_with(&format!("Step {step}: "))).unwrap_or_else(|| panic!("no report of {step}:\n{text}"));
        let block: Vec<&str> = lines[at..].iter().take_while(|x| !x.starts_with("Label: ")).copied().collect();
        assert!(block.len() <= 4, "{step}: {} lines\n{}", block.len(), block.join("\n"));
        let events = l["summary"]["transactions"].as_u64().unwrap_or_else(|| panic!("{l}"));
        assert!(block[0].contains(&format!(": {events} events in {:.2} s", l["elapsed_s"].as_f64().unwrap())), "{}", block[0]);
        for (k, v) in l["summary"]["figures"].as_object().unwrap() {
            assert!(block.join(" ").contains(&format!("{k}: {}", v.as_str().unwrap())), "{step}: {k} {v} not in\n{}", block.join("\n"));
        }
    }
    // The table: a row per step, its own rate and, for a query step, what the writers did.
    let head = lines.iter().position(|x| *x == "Insert Benchmark: 4 of 4 step(s)").unwrap_or_else(|| panic!("no table:\n{text}"));
    for (k, (step, l)) in steps.iter().zip(&levels).enumerate() {
        let row: Vec<&str> = lines[head + 2 + k].split_whitespace().collect();
        assert_eq!(row[0], *step, "{}", lines[head + 2 + k]);
        let (rate, unit) = match *step {
            "l.x" => ("indexed rows/s", "indexed rows/s"),
            "qr100" => ("queries/s", "queries/s"),
            _ => ("inserts/s", "inserts/s"),
        };
        assert_eq!(row[2], figure(l, rate), "{step}: {}", lines[head + 2 + k]);
        assert!(lines[head + 2 + k].contains(unit));
        if *step == "qr100" {
            let met = if figure(l, "background rate met") == "yes" { "met" } else { "missed" };
            let writers = format!("{}/{} {met}", figure(l, "background inserts/s"), figure(l, "background insert target/s"));
            assert!(lines[head + 2 + k].ends_with(&writers), "{}", lines[head + 2 + k]);
        }
    }
    // At a terminal's default width the steps' reports and the table fit 80 columns.
    let text = stdout(&run_ok(ib(&server, "ibo", &store, &["--steps", "l.i0,l.x,qr100"]).env_remove("COLUMNS")));
    let ours = text.split("Step l.i0: ").nth(1).unwrap_or_else(|| panic!("no report of l.i0:\n{text}"));
    let ours = ours.split("Stored as run").next().unwrap();
    let wide: Vec<&str> = ours.lines().filter(|l| l.chars().count() > 80 && !l.starts_with("[ ") && !l.starts_with("fairbench ")).collect();
    assert!(wide.is_empty(), "wider than 80 columns:\n{}", wide.join("\n"));
}

#[test]
fn compare_and_the_report_go_step_by_step() {
    let dir = scratch_dir("ibench_compare");
    let store = dir.join("r.sqlite");
    for n in ["a", "b"] {
        let server = Server::Sqlite(dir.join(format!("{n}.db")));
        run_ok(&mut ib(&server, "ibc", &store, &["--steps", "l.i0,l.x,l.i1,qr100"]));
    }
    let text = stdout(&run_ok(fairbench().args(["compare", "1", "2", "--results"]).arg(&store)));
    for step in ["l.i0", "l.x", "l.i1", "qr100"] {
        let row = text.lines().find(|l| l.trim_start().starts_with(step) && l.split_whitespace().nth(1) == Some("2")).unwrap_or_else(|| panic!("no {step} row for run 2:\n{text}"));
        assert!(row.contains('%'), "a ratio to run 1 at {step}: {row}");
    }
    // The steps' own figures, each with its difference to run 1.
    let figures = text.split("Workload figures").nth(1).unwrap_or_else(|| panic!("no workload figures:\n{text}"));
    let qr = figures.lines().find(|l| l.trim_start().starts_with("qr100") && l.split_whitespace().nth(1) == Some("2")).unwrap();
    assert!(qr.contains("queries/s") && qr.contains('%') && qr.contains("background rate met"), "{qr}");
    let j: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["compare", "1", "2", "--json", "--results"]).arg(&store)))).unwrap();
    let steps: Vec<&str> = j["levels"].as_array().unwrap().iter().map(|l| l["step"].as_str().unwrap()).collect();
    assert_eq!(steps, ["l.i0", "l.x", "l.i1", "qr100"], "{j}");
    // The report: a chart per step, a line per run on each, as the browser draws it.
    let page = dir.join("report.html");
    run_ok(fairbench().args(["report", "1", "2", "--results"]).arg(&store).arg("-o").arg(&page));
    let out = chromium(&["--dump-dom"], &page, &dir.join("profile"));
    assert!(out.status.success(), "{}", show(&out));
    let dom = stdout(&out);
    for id in ["step-l_i0", "step-l_x", "step-l_i1", "step-qr100"] {
        let svg = dom.split(&format!("data-chart=\"{id}\"")).nth(1).unwrap_or_else(|| panic!("no chart {id}"));
        let svg = &svg[..svg.find("</svg>").unwrap()];
        assert_eq!(svg.matches("<g class=\"series\"").count(), 2, "{id}: one line per run");
    }
    assert!(!dom.contains("data-chart=\"scaling-tps\""), "no chart against threads for steps");
}

/// A run with `extra` (not `ib`'s sizes: `--change-rows` and the settle are
/// the caller's) given Ctrl-C once it printed a line for which `when` holds:
/// it stops within 2 s, not successfully; its output.
fn interrupted(server: &Server, prefix: &str, store: &Path, extra: &[&str], when: &dyn Fn(&str) -> bool) -> String {
    let mut c = fairbench();
    c.args(["run", "insert-benchmark", "--target", &server.url(), "--ibench-table", prefix, "--rows", "2000", "--clients", "2", "--results"]).arg(store).args(extra);
    let (code, took, out) = interrupt_after_lines(&mut c, &[when]);
    assert!(took < Duration::from_secs(2), "stopped {took:?} after Ctrl-C");
    assert_ne!(code, Some(0), "{out}");
    out
}

#[test]
fn ctrl_c_inside_a_step_stops_it_and_its_writers_and_saves_it() {
    let dir = scratch_dir("ibench_ctrlc");
    let (store, server) = (dir.join("r.sqlite"), Server::Mariadb);
    run_ok(&mut ib(&server, "ibk", &store, &["--steps", "l.i0,l.x"]));
    // l.i1 with far more rows than it can write before Ctrl-C, after its first interval.
    let out = interrupted(&server, "ibk", &store, &["--change-rows", "10M", "--steps", "l.i1,qr100"], &|l: &str| l.starts_with("[ 1s ]"));
    let levels = last_levels(&store);
    assert_eq!(levels.iter().map(step_of).collect::<Vec<_>>(), ["l.i1"], "the sequence stops at the step it was in\n{out}");
    assert_eq!(levels[0]["status"], "interrupted");
    assert!(figure(&levels[0], "rows inserted").parse::<u64>().unwrap() > 0);
    // The deleters finished what matched the inserts: the tables kept their
    // size, but for an insert each client had in flight when it stopped.
    let tables = ["ibk1".to_string(), "ibk2".to_string()];
    let rows = server.rows(&tables);
    assert!((2200..=2300).contains(&rows), "{rows} rows after Ctrl-C");
    // Without --clients, cleanup finds every table of the prefix.
    run_ok(fairbench().args(["cleanup", "insert-benchmark", "--target", &mysql_url(), "--ibench-table", "ibk"]));
    assert_eq!(mysql_at(&mysql_url(), "SHOW TABLES LIKE 'ibk%'"), "");
}

/// Ctrl-C during the settle after l.i2 ends the run within 2 s, with l.i2
/// saved and InnoDB's dirty page targets back where they were.
#[test]
fn ctrl_c_inside_the_settle_puts_the_server_back() {
    let _globals = INNODB_GLOBALS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("ibench_settle");
    let (store, server) = (dir.join("r.sqlite"), Server::Mariadb);
    let targets = || mysql_at(&mysql_url(), "SELECT CONCAT(@@GLOBAL.innodb_max_dirty_pages_pct, ' ', @@GLOBAL.innodb_max_dirty_pages_pct_lwm)");
    let before = targets();
    run_ok(&mut ib(&server, "ibs", &store, &["--steps", "l.i0,l.x"]));
    let out = interrupted(&server, "ibs", &store, &["--change-rows", "1000", "--steps", "l.i2,qr100", "--settle-secs", "60"], &|l: &str| l.starts_with("Settling for "));
    let levels = last_levels(&store);
    assert_eq!(levels.iter().map(step_of).collect::<Vec<_>>(), ["l.i2"], "{out}");
    assert_eq!(levels[0]["status"], "completed", "l.i2 itself ended before the settle");
    assert_eq!(targets(), before, "InnoDB's dirty page targets put back");
    run_ok(fairbench().args(["cleanup", "insert-benchmark", "--target", &mysql_url(), "--ibench-table", "ibs"]));
}

#[test]
fn bad_steps_and_repetitions_are_refused_in_one_line() {
    let dir = scratch_dir("ibench_bad");
    let target = format!("sqlite://{}", dir.join("x.db").display());
    for (args, says) in [
        (vec!["--steps", "l.i0,l.i9"], vec!["l.i9", "not a step"]),
        (vec!["--steps", "qr0"], vec!["qr0"]),
        (vec!["--steps", "l.i1,l.i1"], vec!["twice"]),
        (vec!["--repeat", "2"], vec!["--repeat"]),
        (vec!["--rate", "100"], vec!["--rate"]),
        (vec!["--data-length-min", "30"], vec!["--data-length-min"]),
    ] {
        let out = run_fail(fairbench().args(["run", "insert-benchmark", "--target", &target, "--no-save"]).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        assert_one_line_error(&out, &says);
    }
    // Steps that need the tables, on a server without them: said before anything runs.
    let out = run_fail(fairbench().args(["run", "insert-benchmark", "--target", &target, "--no-save", "--no-prepare", "--steps", "qr100"]));
    assert_one_line_error(&out, &["prepare"]);
}
