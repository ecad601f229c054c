//! `--verify-writes` and `fairbench check writes FILE` against the real
//! MariaDB and PostgreSQL test servers, each test on tables of its own: an
//! ordinary run loses nothing and checks every acknowledged write; rows
//! deleted behind the run's back are reported lost, exactly those; the
//! verdict is stored, shown and audited; what cannot be verified is refused.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Db {
    Maria,
    Pg,
}

impl Db {
    fn url(self) -> String {
        match self {
            Db::Maria => mysql_url(),
            Db::Pg => pg_url(),
        }
    }

    /// Rows of a query, each a list of its fields as text.
    fn rows(self, sql: &str) -> Vec<Vec<String>> {
        let (out, sep) = match self {
            Db::Maria => (mysql_admin_db(&parse_url(&mysql_url()).database, sql), '\t'),
            Db::Pg => (pg_admin_db(&parse_url(&pg_url()).database, sql), '|'),
        };
        out.lines().filter(|l| !l.is_empty()).map(|l| l.split(sep).map(str::to_string).collect()).collect()
    }

    fn count(self, sql: &str) -> i64 {
        self.rows(sql)[0][0].trim().parse().unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    fn exec(self, sql: &str) {
        self.rows(sql);
    }

    fn name(self) -> &'static str {
        match self {
            Db::Maria => "mariadb",
            Db::Pg => "postgres",
        }
    }
}

/// The JSON lines of a `--output json` command, and the one of `kind`.
fn object(out: &std::process::Output, kind: &str) -> Value {
    let text = stdout(out);
    text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|v| v["type"] == kind).unwrap_or_else(|| panic!("no {kind:?} object in the output\n{}", show(out)))
}

fn n(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k} is not a count in {v}"))
}

/// The "writes" object is described by schema/run.schema.json.
fn assert_schema(v: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/run.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "the writes object does not follow the schema: {errors:?}\n{v}");
}

/// A run of `workload` on `db` with `--verify-writes=LOG`, JSON output.
fn run(db: Db, workload: &str, opts: &[&str], log: &Path, extra: &[&str]) -> std::process::Output {
    let mut c = fairbench();
    c.arg("run").arg(workload).arg("--target").arg(db.url()).args(opts);
    if !extra.iter().any(|a| a.starts_with("--time")) {
        c.arg("--time=2");
    }
    if !extra.iter().any(|a| a.starts_with("--threads")) {
        c.arg("--threads=4");
    }
    c.args(["--report-interval=0", "--output=json"]).arg(format!("--verify-writes={}", log.display())).args(extra);
    run_within(&mut c, std::time::Duration::from_secs(600))
}

/// `fairbench check writes LOG` on `db`, JSON output.
fn check(db: Db, log: &Path) -> std::process::Output {
    run_within(fairbench().args(["check", "writes"]).arg(log).arg("--target").arg(db.url()).arg("--output=json"), std::time::Duration::from_secs(120))
}

/// The keys of the acknowledged writes a log holds (its `A` lines).
fn acked_keys(log: &Path, places: usize) -> Vec<Vec<i64>> {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines().skip(2).filter(|l| l.starts_with("A ")).map(|l| l.split(' ').skip(5).take(places).map(|k| k.parse().unwrap()).collect()).collect()
}

fn lost_keys(v: &Value) -> Vec<Vec<i64>> {
    let mut k: Vec<Vec<i64>> = v["lost_keys"].as_array().unwrap().iter().map(|k| k.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()).collect();
    k.sort();
    k
}

/// Drops a test's tables and prepares them anew: nothing an earlier test
/// run left is taken for this run's writes.
fn fresh(db: Db, workload: &str, opts: &[&str]) {
    run_ok(fairbench().arg("cleanup").arg(workload).arg("--target").arg(db.url()).args(opts));
    run_ok(fairbench().arg("prepare").arg(workload).arg("--target").arg(db.url()).args(opts));
}

fn oltp(table: &str) -> Vec<String> {
    vec![format!("--table-name={table}"), "--tables=2".into(), "--table-size=1000".into()]
}

/// oltp_insert: every acknowledged insert is a new row; the rows added
/// during the run are the acknowledged ones (and ambiguous ones that
/// committed), and each is checked.
fn insert_loses_nothing(db: Db, dir: &Path) {
    let table = format!("vw_ins_{}_", db.name());
    let opts = oltp(&table);
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(db, "oltp_insert", &opts);
    let before = db.count(&format!("SELECT (SELECT COUNT(*) FROM {table}1) + (SELECT COUNT(*) FROM {table}2)"));
    let log = dir.join(format!("insert-{}.log", db.name()));
    let out = run(db, "oltp_insert", &opts, &log, &["--no-save"]);
    assert!(out.status.success(), "{}", show(&out));
    let w = object(&out, "writes");
    assert_schema(&w);
    let after = db.count(&format!("SELECT (SELECT COUNT(*) FROM {table}1) + (SELECT COUNT(*) FROM {table}2)"));
    let events = n(&object(&out, "summary"), "transactions");
    assert_eq!(n(&w, "lost"), 0, "{w}");
    assert!(events > 0, "{}", show(&out));
    assert_eq!(n(&w, "acknowledged"), events, "one acknowledged insert per event: {w}");
    assert_eq!(n(&w, "checked"), events, "{w}");
    assert_eq!((after - before) as u64, n(&w, "acknowledged") + n(&w, "ambiguous_committed"), "rows added vs writes: {w}");
    assert_eq!(w["check"], "inserted");
    // The file reads back the same later.
    let again = check(db, &log);
    assert!(again.status.success(), "{}", show(&again));
    assert_eq!(object(&again, "writes")["checked"], w["checked"]);
}

/// oltp_write_only: two writes of c per transaction (a non-index update
/// and a delete+insert), each checked through its row's final token.
fn write_only_loses_nothing(db: Db, dir: &Path) {
    let table = format!("vw_wo_{}_", db.name());
    let opts = oltp(&table);
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    let log = dir.join(format!("write-only-{}.log", db.name()));
    let out = run(db, "oltp_write_only", &opts, &log, &["--no-save"]);
    assert!(out.status.success(), "{}", show(&out));
    let w = object(&out, "writes");
    assert_schema(&w);
    let events = n(&object(&out, "summary"), "transactions");
    assert!(events > 0, "{}", show(&out));
    assert_eq!(w["check"], "last-write");
    assert_eq!(n(&w, "lost"), 0, "{w}");
    // Two writes of c per transaction, less the non-index updates that
    // changed no row (see the regression test below).
    let acked = n(&w, "acknowledged");
    assert!(events <= acked && acked <= 2 * events, "two writes of c per transaction at most: {w}");
    assert_eq!(n(&w, "checked"), acked, "{w}");
}

#[test]
fn an_update_that_changed_no_row_is_no_lost_write_on_postgres() {
    // A hundred rows drawn uniformly, eight clients: a non-index UPDATE
    // often waits on a row that another transaction deletes and inserts
    // again. PostgreSQL's read committed then updates nothing, and the
    // acknowledged transaction wrote no c that could be lost: it was once
    // reported as a lost write. (Fewer rows, or sysbench's default hot set,
    // turn the run into deadlocks resolved once a second.)
    let dir = scratch_dir("verify-writes-pg-hot");
    let table = "vw_hot_";
    let opts = [format!("--table-name={table}"), "--tables=1".into(), "--table-size=100".into(), "--rand-type=uniform".into()];
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(Db::Pg, "oltp_write_only", &opts);
    let log = dir.join("hot.log");
    let out = run(Db::Pg, "oltp_write_only", &opts, &log, &["--no-save", "--time=3", "--threads=8"]);
    assert!(out.status.success(), "{}", show(&out));
    let w = object(&out, "writes");
    assert_eq!(n(&w, "lost"), 0, "{w}");
    let events = n(&object(&out, "summary"), "transactions");
    assert!(n(&w, "acknowledged") < 2 * events, "no update met a row deleted and inserted again: the test proved nothing: {w}");
}

/// TPC-C New-Order only: each acknowledged one has its orders row.
fn new_order_loses_nothing(db: Db, dir: &Path) {
    let prefix = format!("vwt_{}_", db.name());
    let opts = [format!("--tpcc-prefix={prefix}"), "--warehouses=1".into(), "--mix=100,0,0,0,0".into()];
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(db, "tpcc", &opts);
    let before = db.count(&format!("SELECT COUNT(*) FROM {prefix}orders1"));
    let log = dir.join(format!("new-order-{}.log", db.name()));
    let out = run(db, "tpcc", &opts, &log, &["--no-save"]);
    assert!(out.status.success(), "{}", show(&out));
    let w = object(&out, "writes");
    assert_schema(&w);
    let after = db.count(&format!("SELECT COUNT(*) FROM {prefix}orders1"));
    assert_eq!(n(&w, "lost"), 0, "{w}");
    assert!(n(&w, "acknowledged") > 0, "{w}");
    assert_eq!(n(&w, "checked"), n(&w, "acknowledged"), "{w}");
    assert_eq!((after - before) as u64, n(&w, "acknowledged") + n(&w, "ambiguous_committed"), "orders added vs acknowledged New-Orders: {w}");
    assert_eq!(w["key_names"], serde_json::json!(["dataset", "w_id", "d_id", "o_id"]));
}

#[test]
fn ordinary_runs_lose_nothing_mariadb() {
    let dir = scratch_dir("verify-writes-maria");
    insert_loses_nothing(Db::Maria, &dir);
    write_only_loses_nothing(Db::Maria, &dir);
    new_order_loses_nothing(Db::Maria, &dir);
}

#[test]
fn ordinary_runs_lose_nothing_postgres() {
    let dir = scratch_dir("verify-writes-pg");
    insert_loses_nothing(Db::Pg, &dir);
    write_only_loses_nothing(Db::Pg, &dir);
    new_order_loses_nothing(Db::Pg, &dir);
}

/// Deletes `keys` (acknowledged writes) behind the run's back and asks
/// `check writes`: exactly those are lost, as the test's own query of the
/// log's keys finds them missing.
fn deleted_rows_are_lost(db: Db, dir: &Path) {
    let table = format!("vw_del_{}_", db.name());
    let opts = oltp(&table);
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(db, "oltp_insert", &opts);
    let log = dir.join(format!("deleted-{}.log", db.name()));
    let out = run(db, "oltp_insert", &opts, &log, &["--no-save"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(n(&object(&out, "writes"), "lost"), 0);
    let acked = acked_keys(&log, 2);
    assert!(acked.len() > 20, "too few writes to pick from: {}", acked.len());
    let picked: Vec<&Vec<i64>> = acked.iter().step_by(acked.len() / 7).take(7).collect();
    for k in &picked {
        db.exec(&format!("DELETE FROM {table}{} WHERE id = {}", k[0], k[1]));
    }
    // What the test itself finds missing among the log's acknowledged keys.
    let mut missing = Vec::new();
    for t in [1, 2] {
        let ids: Vec<String> = acked.iter().filter(|k| k[0] == t).map(|k| k[1].to_string()).collect();
        if ids.is_empty() {
            continue;
        }
        let present: std::collections::HashSet<i64> = db.rows(&format!("SELECT id FROM {table}{t} WHERE id IN ({})", ids.join(","))).iter().map(|r| r[0].trim().parse().unwrap()).collect();
        missing.extend(acked.iter().filter(|k| k[0] == t && !present.contains(&k[1])).cloned());
    }
    missing.sort();
    let mut expected: Vec<Vec<i64>> = picked.into_iter().cloned().collect();
    expected.sort();
    assert_eq!(missing, expected, "the test's own query");
    let out = check(db, &log);
    assert_eq!(out.status.code(), Some(5), "lost writes are a failed check\n{}", show(&out));
    let w = object(&out, "writes");
    assert_schema(&w);
    assert_eq!(lost_keys(&w), expected, "{w}");
    assert_eq!(n(&w, "lost"), expected.len() as u64);
    assert_eq!(n(&w, "checked"), acked.len() as u64);
    // The text form lists them.
    let text = run_within(fairbench().args(["check", "writes"]).arg(&log).arg("--target").arg(db.url()), std::time::Duration::from_secs(120));
    assert_eq!(text.status.code(), Some(5));
    let k = &expected[0];
    assert!(stdout(&text).contains(&format!("{} lost", expected.len())), "{}", show(&text));
    assert!(stdout(&text).contains(&format!("table={} id={}", k[0], k[1])), "{}", show(&text));
}

#[test]
fn deleted_rows_are_lost_mariadb() {
    deleted_rows_are_lost(Db::Maria, &scratch_dir("verify-writes-del-maria"));
}

#[test]
fn deleted_rows_are_lost_postgres() {
    deleted_rows_are_lost(Db::Pg, &scratch_dir("verify-writes-del-pg"));
}

/// New-Orders deleted after the run: their (dataset, w, d, o) are lost.
#[test]
fn deleted_orders_are_lost_mariadb() {
    let db = Db::Maria;
    let dir = scratch_dir("verify-writes-del-orders");
    let prefix = "vwt_del_";
    let opts = [format!("--tpcc-prefix={prefix}"), "--warehouses=1".into(), "--mix=100,0,0,0,0".into()];
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(db, "tpcc", &opts);
    let log = dir.join("orders.log");
    let out = run(db, "tpcc", &opts, &log, &["--no-save"]);
    assert!(out.status.success(), "{}", show(&out));
    let acked = acked_keys(&log, 4);
    assert!(acked.len() >= 3, "{}", show(&out));
    let mut expected: Vec<Vec<i64>> = acked.iter().take(3).cloned().collect();
    for k in &expected {
        // Its lines and new_orders row first (foreign keys).
        let (w, d, o) = (k[1], k[2], k[3]);
        db.exec(&format!(
            "DELETE FROM {prefix}order_line1 WHERE ol_w_id = {w} AND ol_d_id = {d} AND ol_o_id = {o}; DELETE FROM {prefix}new_orders1 WHERE no_w_id = {w} AND no_d_id = {d} AND no_o_id = {o}; DELETE FROM {prefix}orders1 WHERE o_w_id = {w} AND o_d_id = {d} AND o_id = {o}"
        ));
    }
    expected.sort();
    let out = check(db, &log);
    assert_eq!(out.status.code(), Some(5), "{}", show(&out));
    assert_eq!(lost_keys(&object(&out, "writes")), expected);
}

/// Rows deleted while the run goes: the run itself finds them lost, exits
/// 5, stores the verdict (`results show`) and the audit calls it critical.
#[test]
fn a_run_that_loses_writes_fails_and_is_audited() {
    let db = Db::Maria;
    let dir = scratch_dir("verify-writes-during");
    let store = dir.join("results.db");
    let table = "vw_during_";
    let opts = oltp(table);
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(db, "oltp_insert", &opts);
    let log = dir.join("during.log");
    let deleter = std::thread::spawn(move || {
        // Rows other sessions see are committed, so acknowledged by the end.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut ids: Vec<i64> = Vec::new();
        while ids.len() < 4 && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(200));
            ids = db.rows(&format!("SELECT id FROM {table}1 WHERE id > 1000 ORDER BY id LIMIT 4")).iter().map(|r| r[0].trim().parse().unwrap()).collect();
        }
        for id in &ids {
            db.exec(&format!("DELETE FROM {table}1 WHERE id = {id}"));
        }
        ids
    });
    let out = run(db, "oltp_insert", &opts, &log, &["--results", store.to_str().unwrap(), "--time=3"]);
    let ids = deleter.join().unwrap();
    assert_eq!(ids.len(), 4, "rows to delete were inserted during the run");
    assert_eq!(out.status.code(), Some(5), "{}", show(&out));
    let w = object(&out, "writes");
    let expected: Vec<Vec<i64>> = ids.iter().map(|id| vec![1, *id]).collect();
    assert_eq!(lost_keys(&w), expected, "{w}");
    let shown = run_ok(fairbench().args(["results", "show", "last", "--results"]).arg(&store));
    assert!(stdout(&shown).contains(&format!("Writes verified: {} acknowledged, 4 lost", n(&w, "acknowledged"))), "{}", show(&shown));
    let audit = run_within(fairbench().args(["audit", "last", "--results"]).arg(&store), std::time::Duration::from_secs(60));
    assert!(stdout(&audit).contains("lost-writes"), "{}", show(&audit));
}

/// A stored run names its log after its id, in the working directory.
#[test]
fn the_default_log_is_named_after_the_run() {
    let db = Db::Maria;
    let dir = scratch_dir("verify-writes-default");
    let store = dir.join("results.db");
    let opts = oltp("vw_default_");
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(db, "oltp_insert", &opts);
    let mut c = fairbench();
    c.current_dir(&dir).arg("run").arg("oltp_insert").arg("--target").arg(db.url()).args(&opts);
    c.args(["--threads=2", "--time=1", "--report-interval=0", "--verify-writes", "--results"]).arg(&store);
    let out = run_ok(&mut c);
    assert!(stdout(&out).contains("Writes verified: "), "{}", show(&out));
    let logs: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().contains("fairbench-writes-")).collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(logs[0].file_name().unwrap().to_string_lossy().starts_with("fairbench-writes-1"), "run 1 of a new store: {logs:?}");
}

#[test]
fn a_workload_that_cannot_verify_refuses() {
    let out = run_fail(fairbench().args(["run", "oltp_read_only", "--table-name=vw_never_", "--time=1", "--verify-writes", "--no-save", "--target"]).arg(mysql_url()));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["--verify-writes", "oltp_read_only"]);
    // Refused before anything ran: its tables were never prepared.
    assert_eq!(Db::Maria.count("SELECT COUNT(*) FROM information_schema.tables WHERE table_name LIKE 'vw\\_never\\_%'"), 0);
}

#[test]
fn check_writes_refuses_a_missing_or_corrupt_file() {
    let dir = scratch_dir("verify-writes-bad");
    let missing = dir.join("missing.log");
    let out = run_fail(fairbench().args(["check", "writes"]).arg(&missing).arg("--target").arg(mysql_url()));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["missing.log"]);
    let corrupt = dir.join("corrupt.log");
    std::fs::write(&corrupt, "not a log\n").unwrap();
    let out = run_fail(fairbench().args(["check", "writes"]).arg(&corrupt).arg("--target").arg(mysql_url()));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["corrupt.log", "not a write log"]);
    // A good header, then a broken line.
    let header = "# fairbench write log 1\n{\"workload\":\"oltp_insert\",\"options\":[],\"check\":\"inserted\",\"key_names\":[\"table\",\"id\"],\"target\":\"x\",\"started_at\":\"now\"}\n";
    std::fs::write(&corrupt, format!("{header}A 0 1 2 3 1 5 0 0\nA 0 zz\n")).unwrap();
    let out = run_fail(fairbench().args(["check", "writes"]).arg(&corrupt).arg("--target").arg(mysql_url()));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["line 4"]);
    let out = run_fail(fairbench().args(["check", "writes"]));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["FILE"]);
}

/// Connections killed under the clients: the INSERTs in flight have an
/// unknown outcome. They are counted apart, never as lost, and the rows the
/// run added are exactly its acknowledged inserts plus the ambiguous ones
/// the check found committed (drawn ids, so every key is known).
fn ambiguous_outcomes_are_counted_apart(db: Db) {
    let dir = scratch_dir("verify-writes-ambiguous");
    let table: &'static str = match db {
        Db::Maria => "vw_amb_maria_",
        Db::Pg => "vw_amb_pg_",
    };
    let mut opts = oltp(table);
    opts.push("--auto-inc=off".into());
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(db, "oltp_insert", &opts);
    let before = db.count(&format!("SELECT (SELECT COUNT(*) FROM {table}1) + (SELECT COUNT(*) FROM {table}2)"));
    let log = dir.join("ambiguous.log");
    let killer = std::thread::spawn(move || {
        let mut killed = 0;
        let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
        std::thread::sleep(std::time::Duration::from_millis(800));
        // Only this test's connections: those inserting into its tables.
        let like = format!("INSERT%{}%", table.replace('_', "\\_"));
        while std::time::Instant::now() < until {
            match db {
                Db::Maria => {
                    for id in db.rows(&format!("SELECT id FROM information_schema.processlist WHERE info LIKE '{like}' AND id <> CONNECTION_ID()")) {
                        // Gone already (it finished its statement and was killed by an earlier turn): fine.
                        if std::panic::catch_unwind(|| db.exec(&format!("KILL CONNECTION {}", id[0].trim()))).is_ok() {
                            killed += 1;
                        }
                    }
                }
                Db::Pg => {
                    let r = db.rows(&format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '{like}' AND state = 'active' AND pid <> pg_backend_pid()"));
                    killed += r.iter().filter(|r| r[0].trim() == "t").count();
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        killed
    });
    let out = run(db, "oltp_insert", &opts, &log, &["--no-save", "--time=4"]);
    let killed = killer.join().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    assert!(killed > 0, "no connection was caught inserting");
    let w = object(&out, "writes");
    let after = db.count(&format!("SELECT (SELECT COUNT(*) FROM {table}1) + (SELECT COUNT(*) FROM {table}2)"));
    eprintln!("killed {killed}: {w}");
    assert_eq!(n(&w, "lost"), 0, "{w}");
    assert!(n(&w, "ambiguous") > 0, "killed {killed} connections inserting, yet no outcome was unknown: {w}");
    assert_eq!(n(&w, "ambiguous_unknown_key"), 0, "{w}");
    assert!(n(&w, "ambiguous_committed") <= n(&w, "ambiguous"), "{w}");
    assert_eq!((after - before) as u64, n(&w, "acknowledged") + n(&w, "ambiguous_committed"), "rows added vs writes: {w}");
}

#[test]
fn ambiguous_outcomes_are_counted_apart_mariadb() {
    ambiguous_outcomes_are_counted_apart(Db::Maria);
}

#[test]
fn ambiguous_outcomes_are_counted_apart_postgres() {
    ambiguous_outcomes_are_counted_apart(Db::Pg);
}

/// Ctrl-C stops a verifying run within 2 s without checking; its log
/// holds what the clients recorded, and `check writes` reads it later and
/// keeps the verdict with the stored run (its `Writes verified` line and
/// the audit's finding, replaced by a later check that finds a write gone).
#[test]
fn an_interrupted_run_keeps_its_log_for_later() {
    let db = Db::Maria;
    let dir = scratch_dir("verify-writes-ctrlc");
    let store = dir.join("results.db");
    let table = "vw_ctrlc_";
    let opts = oltp(table);
    let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
    fresh(db, "oltp_insert", &opts);
    let log = dir.join("ctrlc.log");
    let mut c = fairbench();
    // From another directory: the log names the store by its absolute path.
    c.current_dir(&dir).arg("run").arg("oltp_insert").arg("--target").arg(db.url()).args(&opts);
    c.args(["--threads=2", "--time=60", "--report-interval=0", "--results=results.db"]).arg(format!("--verify-writes={}", log.display()));
    // Once the log holds acknowledged writes.
    let (code, took, out) = interrupt_when(&mut c, || std::fs::read_to_string(&log).is_ok_and(|t| t.lines().any(|l| l.starts_with("A "))));
    assert_eq!(code, Some(130), "{out}");
    assert!(took < std::time::Duration::from_secs(2), "stopped {took:?} after Ctrl-C");
    assert!(!out.contains("Writes verified"), "an interrupted run is not checked: {out}");
    let acked = acked_keys(&log, 2);
    assert!(!acked.is_empty(), "the log holds the writes recorded before Ctrl-C");
    let shown = |store: &Path| stdout(&run_ok(fairbench().args(["results", "show", "1", "--results"]).arg(store)));
    assert!(!shown(&store).contains("Writes verified"), "not checked yet");
    let later = check(db, &log);
    assert!(later.status.success(), "{}", show(&later));
    assert!(stderr(&later).contains(&format!("Stored with run 1 in {}", store.display())), "{}", show(&later));
    let w = object(&later, "writes");
    assert_eq!(n(&w, "lost"), 0, "{w}");
    assert_eq!(n(&w, "checked"), acked.len() as u64, "{w}");
    let acknowledged = n(&w, "acknowledged");
    assert!(shown(&store).contains(&format!("Writes verified: {acknowledged} acknowledged, 0 lost")), "{}", shown(&store));
    // One acknowledged row gone: the next check says so, and so does the stored run.
    let gone = &acked[acked.len() / 2];
    db.exec(&format!("DELETE FROM {table}{} WHERE id = {}", gone[0], gone[1]));
    let again = check(db, &log);
    assert_eq!(again.status.code(), Some(5), "{}", show(&again));
    assert_eq!(lost_keys(&object(&again, "writes")), vec![gone.clone()]);
    assert!(shown(&store).contains(&format!("Writes verified: {acknowledged} acknowledged, 1 lost")), "{}", shown(&store));
    let audit = run_within(fairbench().args(["audit", "1", "--results"]).arg(&store), std::time::Duration::from_secs(60));
    assert!(stdout(&audit).contains("lost-writes"), "{}", show(&audit));
    // Another store without that run: the verdict is printed, and not stored, in one line.
    let other = dir.join("other.db");
    run_ok(fairbench().args(["run", "oltp_point_select", "--time=0.2", "--table-size=100", "--results"]).arg(&other).current_dir(&dir));
    let elsewhere = run_fail(fairbench().args(["check", "writes"]).arg(&log).arg("--target").arg(db.url()).arg("--results").arg(&other));
    assert_eq!(elsewhere.status.code(), Some(5), "{}", show(&elsewhere));
    assert!(
        stderr(&elsewhere).lines().any(|l| l.starts_with("fairbench: check writes: the verdict is not stored: ") && l.contains("ran oltp_point_select, not the log's oltp_insert")),
        "{}",
        show(&elsewhere)
    );
}
