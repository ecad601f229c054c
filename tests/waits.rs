//! Where the server's time goes per transaction, on real servers: every
//! stored run on MariaDB and PostgreSQL carries its waits by class, the
//! run's summary shows them, and `compare` names the largest difference in
//! one sentence: the log sync when PostgreSQL's synchronous_commit differs,
//! row locks when MariaDB's clients update the same few rows, reads when
//! the buffer pool is far smaller than the data. Its statements by digest
//! come with it. A server with performance_schema off, or PostgreSQL
//! without pg_stat_statements, still runs and says what is missing.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// One short run into `store`; its stdout.
fn run(workload: &str, target: &str, extra: &[&str], store: &Path) -> String {
    stdout(&run_ok(fairbench().args(["run", workload, "--target", target, "--time", "4"]).args(extra).arg("--results").arg(store)))
}

/// `compare 1 2` as text and as JSON.
fn compare(store: &Path) -> (String, Value) {
    let text = stdout(&run_ok(fairbench().args(["compare", "1", "2", "--results"]).arg(store)));
    let json = serde_json::from_str(&stdout(&run_ok(fairbench().args(["compare", "1", "2", "--json", "--results"]).arg(store)))).unwrap();
    (text, json)
}

/// The one sentence compare says, from its text.
fn sentence(text: &str) -> &str {
    text.lines().find_map(|l| l.strip_prefix("Where the server's time differs most: ")).unwrap_or_else(|| panic!("no sentence in\n{text}"))
}

/// The stored run's server time at its first level, from `results export`.
fn server_time(store: &Path, run: &str) -> Value {
    let out = run_ok(fairbench().args(["compare", run, run, "--json", "--results"]).arg(store));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    v["levels"][0]["efficiency"][0]["figures"]["server_time"].clone()
}

/// The stored run's top statements at its first level.
fn statements(store: &Path, run: &str) -> Vec<Value> {
    let out = run_ok(fairbench().args(["compare", run, run, "--json", "--results"]).arg(store));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    v["levels"][0]["efficiency"][0]["figures"]["statements"].as_array().cloned().unwrap_or_default()
}

/// The statement whose text holds `part`.
fn statement<'a>(all: &'a [Value], part: &str) -> &'a Value {
    all.iter().find(|s| s["text"].as_str().is_some_and(|t| t.contains(part))).unwrap_or_else(|| panic!("no statement with {part} in {all:?}"))
}

fn with_param(url: &str, param: &str) -> String {
    format!("{url}{}{param}", if url.contains('?') { '&' } else { '?' })
}

#[test]
fn postgres_with_synchronous_commit_off_on_one_side_names_the_wal_sync() {
    let dir = scratch_dir("waits-pg-sync");
    let store = dir.join("r.sqlite");
    let size = ["--tables", "1", "--table-size", "10000", "--table-name", "wtsync", "--threads", "4"];
    let _ = fairbench().args(["cleanup", "oltp_update_index", "--target", &pg_url()]).args(size).output();
    run_ok(fairbench().args(["prepare", "oltp_update_index", "--target", &pg_url()]).args(size));
    let on = run("oltp_update_index", &with_param(&pg_url(), "options=-c%20synchronous_commit%3Don"), &size, &store);
    run("oltp_update_index", &with_param(&pg_url(), "options=-c%20synchronous_commit%3Doff"), &size, &store);
    // Every stored run carries its server time, and its summary shows it.
    assert!(on.lines().any(|l| l.trim_start().starts_with("server time/t at 4 threads, µs:") && l.contains("log write and sync")), "{on}");
    let t = server_time(&store, "1");
    let classes: Vec<&str> = t["classes"].as_array().unwrap().iter().filter_map(|c| c["class"].as_str()).collect();
    assert!(classes.contains(&"CPU") && classes.contains(&"log write and sync"), "{t}");
    let (text, json) = compare(&store);
    let s = sentence(&text);
    assert!(s.contains("run 1 spends") && s.contains("more in log write and sync (WAL") && s.contains("synchronous_commit is on in run 1, off in run 2"), "{s}");
    assert_eq!(json["server_time_difference"].as_str(), Some(s));
    assert!(text.contains("Server time per transaction, µs"), "{text}");
    // pg_stat_statements: the one update per transaction, its mean time and rows.
    assert!(on.contains("top statements/t at 4 threads, µs:"), "{on}");
    let all = statements(&store, "1");
    let update = statement(&all, "UPDATE wtsync1 SET k=k+");
    let calls = update["calls_per_trx"].as_f64().unwrap();
    assert!((0.95..=1.05).contains(&calls), "one update per transaction: {update}");
    assert!(update["mean_us"].as_f64().unwrap() > 0.0 && update["per_call"]["rows sent"].as_f64() == Some(1.0), "{update}");
    assert!(all.iter().all(|s| !s["text"].as_str().unwrap().contains("pg_stat")), "the sampling's own statements are left out: {all:?}");
    run_ok(fairbench().args(["cleanup", "oltp_update_index", "--target", &pg_url()]).args(size));
}

#[test]
fn mariadb_statements_by_digest_per_transaction_and_its_prepared_ones_together() {
    let dir = scratch_dir("waits-my-stmts");
    let store = dir.join("r.sqlite");
    let size = ["--tables", "1", "--table-size", "1000", "--table-name", "wtstmt", "--threads", "2"];
    let _ = fairbench().args(["cleanup", "oltp_read_only", "--target", &mysql_url()]).args(size).output();
    run_ok(fairbench().args(["prepare", "oltp_read_only", "--target", &mysql_url()]).args(size));
    let out = run("oltp_read_only", &mysql_url(), &[&size[..], &["--db-ps-mode=disable"]].concat(), &store);
    assert!(out.contains("top statements/t at 2 threads, µs:"), "{out}");
    let all = statements(&store, "1");
    let point = statement(&all, "FROM `wtstmt1` WHERE ID = ?");
    let calls = point["calls_per_trx"].as_f64().unwrap();
    assert!((9.5..=10.5).contains(&calls), "ten point selects per transaction: {point}");
    // performance_schema adds to a digest's sums without a lock: a read may catch one statement half counted.
    assert!(point["per_call"]["rows examined"].as_f64().is_some_and(|r| (0.99..=1.01).contains(&r)), "one row examined per point select: {point}");
    assert!(all.iter().all(|s| !s["text"].as_str().unwrap().contains("performance_schema")), "{all:?}");
    // MariaDB counts binary-protocol executions only all together: said so, with what shows each.
    run("oltp_read_only", &mysql_url(), &size, &store);
    let all = statements(&store, "2");
    let prepared = statement(&all, "(all prepared statements; each apart: --db-ps-mode=disable)");
    assert!(prepared["calls_per_trx"].as_f64().unwrap() >= 14.0, "{prepared}");
    run_ok(fairbench().args(["cleanup", "oltp_read_only", "--target", &mysql_url()]).args(size));
}

#[test]
fn postgres_without_pg_stat_statements_runs_and_says_what_to_load() {
    let out = run_ok(fairbench().args(["server", "start", "postgres", "--ram", "1G", "--cores", "2", "--set", "shared_preload_libraries="]));
    let err = stderr(&out);
    let _sb = Sandbox(err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in {err}")));
    let url = stdout(&out).trim().to_string();
    let dir = scratch_dir("waits-pg-nostmts");
    let size = ["--tables", "1", "--table-size", "1000", "--threads", "2"];
    run_ok(fairbench().args(["prepare", "oltp_read_only", "--target", &url]).args(size));
    let out = run("oltp_read_only", &url, &size, &dir.join("r.sqlite"));
    let missing: Vec<&str> = out.lines().filter(|l| l.contains("pg_stat_statements")).collect();
    assert_eq!(missing.len(), 1, "one line says what to load: {out}");
    assert!(missing[0].contains("shared_preload_libraries") && missing[0].contains("CREATE EXTENSION"), "{}", missing[0]);
    assert!(out.contains("server time/t at 2 threads") && !out.contains("top statements/t"), "{out}");
}

#[test]
fn mariadb_clients_updating_ten_rows_wait_on_row_locks() {
    let dir = scratch_dir("waits-my-hot");
    let store = dir.join("r.sqlite");
    let spread = ["--tables", "1", "--table-size", "20000", "--table-name", "wtspread", "--threads", "16"];
    let hot = ["--tables", "1", "--table-size", "10", "--table-name", "wthot", "--threads", "16"];
    for size in [&spread, &hot] {
        let _ = fairbench().args(["cleanup", "oltp_update_index", "--target", &mysql_url()]).args(size).output();
        run_ok(fairbench().args(["prepare", "oltp_update_index", "--target", &mysql_url()]).args(size));
    }
    run("oltp_update_index", &mysql_url(), &spread, &store);
    let out = run("oltp_update_index", &mysql_url(), &hot, &store);
    assert!(out.lines().any(|l| l.trim_start().starts_with("server time/t at 16 threads, µs: row locks")), "{out}");
    let (text, _) = compare(&store);
    let s = sentence(&text);
    assert!(s.contains("run 2 spends") && s.contains("more in row locks"), "{s}");
    for size in [&spread, &hot] {
        run_ok(fairbench().args(["cleanup", "oltp_update_index", "--target", &mysql_url()]).args(size));
    }
}

/// A started sandbox, stopped when dropped (also when the test fails).
struct Sandbox(String);

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = fairbench().args(["server", "stop", &self.0]).output();
    }
}

/// A MariaDB sandbox with `settings`: (its guard, its URL).
fn mariadb(settings: &[&str]) -> (Sandbox, String) {
    let mut c = fairbench();
    c.args(["server", "start", "mariadb", "--ram", "1G", "--cores", "2"]);
    for s in settings {
        c.args(["--set", s]);
    }
    let out = run_ok(&mut c);
    let err = stderr(&out);
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in {err}"));
    (Sandbox(name), stdout(&out).trim().to_string())
}

#[test]
fn a_buffer_pool_far_smaller_than_the_data_names_the_reads() {
    let (_sb, url) = mariadb(&["performance_schema=ON", "innodb_buffer_pool_size=8M"]);
    let dir = scratch_dir("waits-my-reads");
    let store = dir.join("r.sqlite");
    let small = ["--tables", "1", "--table-size", "1000", "--table-name", "wtsmall", "--threads", "4"];
    let big = ["--tables", "1", "--table-size", "300000", "--table-name", "wtbig", "--threads", "4"];
    for size in [&small, &big] {
        run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &url]).args(size));
    }
    run("oltp_point_select", &url, &small, &store);
    run("oltp_point_select", &url, &big, &store);
    let (text, _) = compare(&store);
    let s = sentence(&text);
    assert!(s.contains("run 2 spends") && s.contains("more in disk reads (wait/io/file/innodb/innodb_data_file)"), "{s}");
}

#[test]
fn a_server_without_performance_schema_runs_and_says_what_is_missing() {
    let (_sb, url) = mariadb(&["performance_schema=OFF"]);
    let dir = scratch_dir("waits-my-off");
    let store = dir.join("r.sqlite");
    let size = ["--tables", "1", "--table-size", "1000", "--threads", "2"];
    run_ok(fairbench().args(["prepare", "oltp_read_write", "--target", &url]).args(size));
    let out = run("oltp_read_write", &url, &size, &store);
    let missing: Vec<&str> = out.lines().filter(|l| l.contains("performance_schema is OFF")).collect();
    assert_eq!(missing.len(), 1, "one line says what is missing and what to turn on: {out}");
    assert!(missing[0].contains("performance_schema=ON"), "{}", missing[0]);
    assert!(out.contains("transactions:"), "{out}");
}
