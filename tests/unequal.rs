//! What else makes two runs unequal, on real servers: the workload's tables
//! not as `prepare` made them (an index dropped between two runs, another
//! row format or fillfactor, an index added while a run ran), and two runs
//! made alike that must stay silent.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const SIZE: [&str; 8] = ["--tables", "1", "--table-size", "500", "--threads", "2", "--table-name", ""];

fn size(table: &str) -> Vec<&str> {
    let mut s = SIZE.to_vec();
    s[7] = table;
    s
}

fn prepare(target: &str, table: &str, extra: &[&str]) {
    let _ = fairbench().args(["cleanup", "oltp_point_select", "--target", target]).args(size(table)).output();
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", target]).args(size(table)).args(extra));
}

fn run(store: &Path, target: &str, table: &str) {
    run_ok(fairbench().args(["run", "oltp_point_select", "--target", target, "--time", "1", "--results"]).arg(store).args(size(table)));
}

/// The findings of `compare ids --json`.
fn compared(store: &Path, ids: &[&str]) -> Vec<Value> {
    let out = run_ok(fairbench().arg("compare").args(ids).args(["--json", "--results"]).arg(store));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    v["findings"].as_array().unwrap().clone()
}

fn rule<'a>(fs: &'a [Value], rule: &str) -> Vec<&'a Value> {
    fs.iter().filter(|f| f["rule"] == rule).collect()
}

#[test]
fn mariadb_tables_with_an_index_dropped_and_another_row_format_between_runs_are_named() {
    let store = scratch_dir("unequal-my-tables").join("r.sqlite");
    let db = parse_url(&mysql_url()).database;
    prepare(&mysql_url(), "uqmy", &[]);
    run(&store, &mysql_url(), "uqmy");
    mysql_admin_db(&db, "ALTER TABLE uqmy1 DROP INDEX k_1, ROW_FORMAT=COMPACT");
    run(&store, &mysql_url(), "uqmy");
    let fs = compared(&store, &["1", "2"]);
    let found = rule(&fs, "tables-differ");
    assert_eq!(found.len(), 1, "{fs:#?}");
    assert_eq!(found[0]["severity"], "critical");
    assert_eq!(
        found[0]["evidence"],
        serde_json::json!(["run 1 (mysql): 1 tables as recorded", "run 2 (mysql): against run 1: uqmy1: index k_1 (k) missing; uqmy1: options row_format=dynamic -> row_format=compact"])
    );
}

#[test]
fn postgres_tables_with_an_index_dropped_and_another_fillfactor_between_runs_are_named() {
    let store = scratch_dir("unequal-pg-tables").join("r.sqlite");
    let db = parse_url(&pg_url()).database;
    prepare(&pg_url(), "uqpg", &[]);
    run(&store, &pg_url(), "uqpg");
    pg_admin_db(&db, "DROP INDEX uqpg1_k_1; ALTER TABLE uqpg1 SET (fillfactor = 70)");
    run(&store, &pg_url(), "uqpg");
    let fs = compared(&store, &["1", "2"]);
    let found = rule(&fs, "tables-differ");
    assert_eq!(found.len(), 1, "{fs:#?}");
    assert_eq!(found[0]["evidence"][1], "run 2 (postgres): against run 1: uqpg1: index uqpg1_k_1 (k) missing; uqpg1: options none -> fillfactor=70");
}

/// Tables prepared without the secondary index on one side
/// (`--create-secondary=off`), on two SQLite files.
#[test]
fn sqlite_tables_prepared_without_the_secondary_index_on_one_side_are_named() {
    let dir = scratch_dir("unequal-lite-tables");
    let store = dir.join("r.sqlite");
    let (a, b) = (format!("sqlite:{}", dir.join("a.db").display()), format!("sqlite:{}", dir.join("b.db").display()));
    prepare(&a, "uqlite", &[]);
    prepare(&b, "uqlite", &["--create-secondary=off"]);
    run(&store, &a, "uqlite");
    run(&store, &b, "uqlite");
    let fs = compared(&store, &["1", "2"]);
    let found = rule(&fs, "tables-differ");
    assert_eq!(found.len(), 1, "{fs:#?}");
    assert_eq!(found[0]["evidence"][1], "run 2 (sqlite): against run 1: uqlite1: index uqlite1_k_1 (k) missing");
}

/// An index built from another session while the run ran: the run's own
/// audit names it from its start and end snapshots. The DDL goes in once
/// the first report interval is out, and the run is then interrupted, so
/// nothing depends on how long either takes.
#[test]
fn an_index_added_while_a_mariadb_run_ran_is_named() {
    let store = scratch_dir("unequal-my-ddl").join("r.sqlite");
    let db = parse_url(&mysql_url()).database;
    prepare(&mysql_url(), "uqddl", &[]);
    let mut cmd = fairbench();
    cmd.args(["run", "oltp_point_select", "--target", &mysql_url(), "--time", "120", "--report-interval", "1", "--results"]).arg(&store).args(size("uqddl"));
    let mut watched = watch::Watched::spawn(&mut cmd);
    watched.wait_for_interval(Duration::from_secs(60));
    mysql_admin_db(&db, "ALTER TABLE uqddl1 ADD INDEX by_c (c(10))");
    let (code, _, _) = watched.interrupt();
    assert!(code.is_some(), "the run ended by itself after the interrupt");
    let out = run_ok(fairbench().args(["audit", "1", "--json", "--results"]).arg(&store));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let fs = v["findings"].as_array().unwrap_or_else(|| panic!("{v}"));
    let found = rule(fs, "tables-changed-during-run");
    assert_eq!(found.len(), 1, "{fs:#?}");
    assert_eq!(found[0]["evidence"], serde_json::json!(["start -> end: uqddl1: index by_c (c(10)) extra"]));
}

/// What one run's host did while it ran (busy with other work, or with the
/// client beside the server): true of that run on a loaded machine, and no
/// difference between two runs made alike.
const HOST_LOAD: [&str; 3] = ["client-took-server-cpu", "host-busy-with-others", "hypervisor-steal"];

/// Two runs made alike on each engine: `compare` gives no warning, beyond
/// what the host's load said of one run alone (on a 2-core machine busy
/// with other tests, a run at 2 threads found the host 98% busy).
#[test]
fn two_identical_runs_draw_no_warning_on_mariadb_postgres_and_sqlite() {
    let dir = scratch_dir("unequal-identical");
    let store = dir.join("r.sqlite");
    let lite = format!("sqlite:{}", dir.join("db.sqlite").display());
    for (i, target) in [mysql_url(), pg_url(), lite].iter().enumerate() {
        prepare(target, "uqsame", &[]);
        run(&store, target, "uqsame");
        run(&store, target, "uqsame");
        let (a, b) = ((2 * i + 1).to_string(), (2 * i + 2).to_string());
        let fs = compared(&store, &[&a, &b]);
        let of_one_host = |f: &Value| f["runs"].as_array().is_some_and(|r| r.len() == 1) && HOST_LOAD.iter().any(|r| f["rule"] == *r);
        let loud: Vec<&Value> = fs.iter().filter(|f| f["severity"] != "info" && !of_one_host(f)).collect();
        assert!(loud.is_empty(), "runs {a} and {b} on {target}: {loud:#?}");
        assert!(!fs.is_empty(), "the comparison says at least that each ran once");
    }
}

/// Runs of one workload made by two fairbench builds, whose statements
/// differ (the range selects left out on the second side stand for a
/// statement shape a newer build changed): the builds are named as
/// information, the statements that only one side sent as a warning. The
/// first run is stored as the other build stored it (its build name
/// rewritten in the store); two runs of one build draw neither. Text
/// statements: MariaDB keeps no digests of prepared ones.
#[test]
fn mariadb_runs_of_two_fairbench_builds_whose_statements_differ_are_named() {
    let store = scratch_dir("unequal-my-builds").join("r.sqlite");
    let target = mysql_url();
    let sized = |t: &str| ["--tables", "1", "--table-size", "500", "--threads", "2", "--db-ps-mode", "disable", "--table-name", t].map(String::from);
    let _ = fairbench().args(["cleanup", "oltp_read_only", "--target", &target]).args(sized("uqbld")).output();
    run_ok(fairbench().args(["prepare", "oltp_read_only", "--target", &target]).args(sized("uqbld")));
    for extra in [&[][..], &["--range-selects=off"][..]] {
        run_ok(fairbench().args(["run", "oltp_read_only", "--target", &target, "--time", "1", "--results"]).arg(&store).args(sized("uqbld")).args(extra));
    }
    assert!(rule(&compared(&store, &["1", "2"]), "fairbench-build-mismatch").is_empty(), "one build made both");
    rusqlite::Connection::open(&store).unwrap().execute("UPDATE runs SET tool_version = '0.0.9+0123456789ab' WHERE id = 1", []).unwrap();
    let fs = compared(&store, &["1", "2"]);
    let builds = rule(&fs, "fairbench-build-mismatch");
    assert_eq!(builds.len(), 1, "{fs:#?}");
    assert_eq!(builds[0]["severity"], "info");
    assert_eq!(builds[0]["evidence"], serde_json::json!(["run 1 (mysql): fairbench 0.0.9+0123456789ab", format!("run 2 (mysql): fairbench {}", fairbench::VERSION)]));
    let stmts = rule(&fs, "statements-differ");
    assert_eq!(stmts.len(), 1, "{fs:#?}");
    assert_eq!(stmts[0]["severity"], "warning");
    let ev: Vec<&str> = stmts[0]["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    // The first side's range selects (BETWEEN), four shapes; the second sent none of its own.
    // Other tests' statements on the same server, meanwhile, name other tables: not counted.
    let shapes = |e: &str| e.split(": ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse::<usize>().ok()).unwrap_or_else(|| panic!("{e}"));
    assert_eq!(shapes(ev[0]) - shapes(ev[1]), 4, "{ev:?}");
    assert!(ev[0].contains("only here: `SELECT") && ev[0].to_ascii_uppercase().contains("BETWEEN"), "{ev:?}");
    assert!(!ev[1].contains("only here"), "{ev:?}");
}
