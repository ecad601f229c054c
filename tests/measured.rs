//! Settings that change what a run measures, on real servers: one flipped
//! on one side of a comparison is a finding naming it, with each run's
//! value (the engines' lists, src/db/*/measured.rs; every entry is flipped
//! in src/audit/measured.rs's own test).

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// A short run of point selects on `target` into `store`.
fn bench(store: &Path, target: &str, table: &str, extra: &[&str]) {
    let size = ["--tables", "1", "--table-size", "500", "--table-name", table, "--threads", "2"];
    let _ = fairbench().args(["cleanup", "oltp_point_select", "--target", target]).args(size).output();
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", target]).args(size));
    run_ok(fairbench().args(["run", "oltp_point_select", "--target", target, "--time", "1", "--results"]).arg(store).args(size).args(extra));
    run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", target]).args(size));
}

/// The findings naming `setting` in `compare 1 2 --json`.
fn named(store: &Path, setting: &str) -> Vec<Value> {
    let out = run_ok(fairbench().args(["compare", "1", "2", "--json", "--results"]).arg(store));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "measured-setting-mismatch" && f["message"].as_str().unwrap().starts_with(&format!("{setting} differs"))).cloned().collect()
}

fn assert_named(store: &Path, setting: &str, values: [&str; 2]) {
    let fs = named(store, setting);
    assert_eq!(fs.len(), 1, "one finding names {setting}: {fs:?}");
    let ev = fs[0]["evidence"].to_string();
    assert!(ev.contains(&format!("{setting} = {}", values[0])) && ev.contains(&format!("{setting} = {}", values[1])), "{ev}");
}

#[test]
fn mariadb_sessions_at_another_isolation_level_are_named() {
    let store = scratch_dir("measured-my-iso").join("r.sqlite");
    bench(&store, &mysql_url(), "msiso", &[]);
    bench(&store, &mysql_url(), "msiso", &["--session-options", "SET SESSION tx_isolation = 'READ-COMMITTED'"]);
    assert_named(&store, "transaction_isolation", ["repeatable-read", "read-committed"]);
}

#[test]
fn postgres_with_jit_and_the_isolation_level_flipped_names_each() {
    let store = scratch_dir("measured-pg").join("r.sqlite");
    bench(&store, &pg_url(), "mspg", &[]);
    bench(&store, &pg_url(), "mspg", &["--session-options", "SET jit = off; SET default_transaction_isolation = 'repeatable read'"]);
    assert_named(&store, "jit", ["on", "off"]);
    assert_named(&store, "default_transaction_isolation", ["read committed", "repeatable read"]);
}

/// Logging and tracing that cost on every statement, set for the run's
/// sessions on one side only.
#[test]
fn mariadb_sessions_that_log_or_trace_every_statement_are_named() {
    let store = scratch_dir("measured-my-log").join("r.sqlite");
    bench(&store, &mysql_url(), "mslog", &[]);
    bench(&store, &mysql_url(), "mslog", &["--session-options", "SET SESSION long_query_time = 0; SET SESSION optimizer_trace = 'enabled=on'"]);
    assert_named(&store, "long_query_time", ["10.000000", "0.000000"]);
    assert_named(&store, "optimizer_trace", ["enabled=off", "enabled=on"]);
}

#[test]
fn postgres_sessions_that_log_every_statement_are_named() {
    let store = scratch_dir("measured-pg-log").join("r.sqlite");
    bench(&store, &pg_url(), "mspglog", &[]);
    bench(&store, &pg_url(), "mspglog", &["--session-options", "SET log_statement = 'all'; SET log_min_duration_statement = 0; SET log_duration = on; SET track_functions = 'all'"]);
    assert_named(&store, "log_statement", ["none", "all"]);
    assert_named(&store, "log_min_duration_statement", ["-1", "0"]);
    assert_named(&store, "log_duration", ["off", "on"]);
    assert_named(&store, "track_functions", ["none", "all"]);
}

/// fairbench's own sampling of the server (`--server-time`, on by default)
/// left off on one side is named, with each side's.
#[test]
fn postgres_sampled_on_one_side_only_is_named() {
    let store = scratch_dir("measured-pg-sampling").join("r.sqlite");
    bench(&store, &pg_url(), "mspgsam", &[]);
    bench(&store, &pg_url(), "mspgsam", &["--server-time", "off"]);
    let out = run_ok(fairbench().args(["compare", "1", "2", "--json", "--results"]).arg(&store));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "sampling-mismatch").unwrap_or_else(|| panic!("no sampling finding: {v}"));
    assert_eq!(f["evidence"], serde_json::json!(["run 1 (postgres): --server-time", "run 2 (postgres): no sampling of the server"]));
}

#[test]
fn sqlite_in_exclusive_locking_mode_is_named() {
    let dir = scratch_dir("measured-sqlite");
    let store = dir.join("r.sqlite");
    let target = format!("sqlite:{}", dir.join("db.sqlite").display());
    bench(&store, &target, "mslite", &[]);
    bench(&store, &target, "mslite", &["--session-options", "PRAGMA locking_mode = EXCLUSIVE"]);
    assert_named(&store, "locking_mode", ["normal", "exclusive"]);
}

#[test]
fn a_mariadb_server_with_its_query_cache_adaptive_hash_index_logs_and_instruments_on_is_named() {
    let out = run_ok(fairbench().args([
        "server",
        "start",
        "mariadb",
        "--ram",
        "1G",
        "--cores",
        "2",
        "--set",
        "query_cache_type=ON",
        "--set",
        "query_cache_size=16M",
        "--set",
        "innodb_adaptive_hash_index=ON",
        "--set",
        "general_log=ON",
        "--set",
        "slow_query_log=ON",
        "--set",
        "log_queries_not_using_indexes=ON",
        "--set",
        "performance_schema_consumer_events_waits_history_long=ON",
        "--set",
        "performance_schema_instrument=wait/synch/%=ON",
    ]));
    let err = stderr(&out);
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in {err}"));
    let url = stdout(&out).trim().to_string();
    let store = scratch_dir("measured-my-caches").join("r.sqlite");
    let result = std::panic::catch_unwind(|| {
        bench(&store, &mysql_url(), "mscache", &[]);
        bench(&store, &url, "mscache", &[]);
        assert_named(&store, "query_cache_type", ["off", "on"]);
        assert_named(&store, "innodb_adaptive_hash_index", ["off", "on"]);
        for log in ["general_log", "slow_query_log", "log_queries_not_using_indexes"] {
            assert_named(&store, log, ["off", "on"]);
        }
        assert_named(
            &store,
            "performance_schema.consumers",
            ["global_instrumentation,statements_digest,thread_instrumentation", "events_waits_history_long,global_instrumentation,statements_digest,thread_instrumentation"],
        );
        // The synchronisation instruments on: more enabled and timed than the test server's.
        let timed = |e: &str| e.split(" enabled, ").nth(1).and_then(|t| t.split(' ').next()).and_then(|n| n.parse::<u64>().ok()).unwrap_or_else(|| panic!("{e}"));
        let f = named(&store, "performance_schema.instruments");
        assert_eq!(f.len(), 1, "{f:?}");
        let ev: Vec<&str> = f[0]["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
        assert!(timed(ev[1]) > timed(ev[0]) + 100, "{ev:?}");
    });
    let _ = fairbench().args(["server", "stop", &name]).output();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}
