//! YCSB as its users type it: `load ycsb` and `run ycsb` with `-P`
//! workload files, `-p` properties, `-threads` and `-target`, on SQLite,
//! MariaDB, PostgreSQL, TiDB and the 2-shard Vitess sandbox; YCSB's block
//! of figures after fairbench's; the properties refused in one line.

mod common;

use common::watch::Watched;
use common::*;
use std::collections::BTreeMap;
use std::process::{Command, Output};

const RECORDS: &str = "recordcount=2000";

fn ycsb(words: &str, target: &str, table: &str) -> Command {
    let mut c = fairbench();
    c.args(words.split_whitespace()).args(["-p", RECORDS, "-p", &format!("table={table}"), "--target", target, "--no-save"]);
    c
}

/// YCSB's block as (section, metric) -> value.
fn block(out: &Output) -> BTreeMap<(String, String), String> {
    stdout(out)
        .lines()
        .filter(|l| l.starts_with('['))
        .filter_map(|l| {
            let mut p = l.splitn(3, ", ");
            Some(((p.next()?.trim_matches(['[', ']']).to_string(), p.next()?.to_string()), p.next()?.to_string()))
        })
        .collect()
}

fn ops(b: &BTreeMap<(String, String), String>, op: &str) -> u64 {
    b.get(&(op.to_string(), "Operations".to_string())).map(|v| v.parse().unwrap()).unwrap_or(0)
}

/// Load, then each core workload in turn, with YCSB's command lines.
fn load_and_run_all(target: &str, table: &str) {
    run_ok(&mut ycsb("cleanup ycsb", target, table));
    let out = run_ok(&mut ycsb("load ycsb -P workloads/workloada -threads 4 -p db.batchsize=50", target, table));
    let b = block(&out);
    assert_eq!(ops(&b, "INSERT"), 2000, "{}", show(&out));
    assert_eq!(b[&("INSERT".into(), "Return=OK".into())], "2000");
    assert!(b.contains_key(&("OVERALL".into(), "Throughput(ops/sec)".into())), "{}", show(&out));
    // Every core workload: the operations it mixes, and no others.
    let want: [(&str, &[&str]); 6] =
        [("a", &["READ", "UPDATE"]), ("b", &["READ", "UPDATE"]), ("c", &["READ"]), ("d", &["READ", "INSERT"]), ("e", &["SCAN", "INSERT"]), ("f", &["READ", "UPDATE", "READ-MODIFY-WRITE"])];
    for (w, kinds) in want {
        let out = run_ok(&mut ycsb(&format!("run ycsb -P workloads/workload{w} -p operationcount=600 -threads 2"), target, table));
        let b = block(&out);
        let total: u64 = ["READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"].iter().map(|k| ops(&b, k)).sum();
        assert!(total >= 600, "{w}: {}", show(&out));
        for k in ["READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"] {
            assert_eq!(ops(&b, k) > 0, kinds.contains(&k), "workload{w} {k}: {}", show(&out));
        }
        assert!(stdout(&out).contains(&format!("Label: YCSB_{}-2K-", w.to_uppercase())), "{}", show(&out));
    }
    run_ok(&mut ycsb("cleanup ycsb", target, table));
}

#[test]
fn sqlite() {
    let db = scratch_dir("ycsb-sqlite").join("y.db");
    let url = format!("sqlite://{}", db.display());
    load_and_run_all(&url, "usertable");
    // `-s`: YCSB's status line on stderr every status.interval seconds.
    run_ok(&mut ycsb("load ycsb -P workloadb", &url, "usertable"));
    let out = run_ok(&mut ycsb("run ycsb -P workloadb -p operationcount=0 -p maxexecutiontime=2.5 -p status.interval=1 -s", &url, "usertable"));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(" sec: ") && l.contains(" operations; ")).map(str::trim).collect();
    assert!(lines.len() >= 2, "{}", show(&out));
    assert!(lines[0].contains(" 1 sec: ") && lines[0].contains("current ops/sec; [READ: Count=") && lines[0].contains(", 99.99="), "{}", lines[0]);
    // A run's label stands for its words, and says what it is.
    let mut by_label = fairbench();
    by_label.args(["run", "YCSB_C-2K-uniform", "-p", "operationcount=100", "--target", &url, "--no-save"]);
    let out = run_ok(&mut by_label);
    assert!(stdout(&out).contains("Label: YCSB_C-2K-uniform") && ops(&block(&out), "READ") == 100, "{}", show(&out));
    let text = stdout(&run_ok(fairbench().args(["explain", "YCSB_C-2K-uniform"])));
    assert!(text.contains("canonical: YCSB_C-2K-uniform") && text.contains("--ycsb-workload=workloadc"), "{text}");
}

#[test]
fn mariadb() {
    load_and_run_all(&mysql_url(), "ycsb_my");
}

#[test]
fn postgresql() {
    load_and_run_all(&pg_url(), "ycsb_pg");
}

#[test]
fn tidb() {
    load_and_run_all(&tidb_url(), "ycsb_tidb");
}

/// On a sharded keyspace the table is sharded by YCSB_KEY before the load;
/// reads reach one shard, scans all of them.
#[test]
fn vitess() {
    let url = vitess_url();
    load_and_run_all(&url, "ycsb_vt");
    run_ok(&mut ycsb("load ycsb -P workloada", &url, "ycsb_vt"));
    let store = scratch_dir("ycsb-vitess").join("results.sqlite");
    let mut e = fairbench();
    e.args("run ycsb -P workloade -p operationcount=300 -p table=ycsb_vt".split_whitespace()).args(["-p", RECORDS, "--target", &url, "--results"]).arg(&store);
    let text = stdout(&run_ok(&mut e));
    // Scans go to every shard, inserts to one.
    let line = text.lines().find(|l| l.contains("queries/t by shards reached")).unwrap_or_else(|| panic!("no routing line:\n{text}"));
    // Workload E: 95% scans (to both shards), 5% inserts (to one): over 300 operations the
    // share of queries to every shard is 95% within 5 points (four standard deviations).
    let share: f64 = line.rsplit_once('(').and_then(|(_, r)| r.split_once("% to every shard")).map(|(n, _)| n.parse().unwrap()).unwrap_or_else(|| panic!("no share in {line}"));
    assert!((share - 95.0).abs() <= 5.0, "{share}% of workload E's queries went to every shard, about 95% expected: {line}");
    run_ok(&mut ycsb("cleanup ycsb", &url, "ycsb_vt"));
}

/// The mix of workload A over a few thousand operations is YCSB's 50/50,
/// and with -target the latencies from each operation's intended start
/// are given too (coordinated omission corrected).
#[test]
fn mix_holds_and_target_rate_gives_intended_latency() {
    let url = pg_url();
    run_ok(&mut ycsb("cleanup ycsb", &url, "ycsb_mix"));
    run_ok(&mut ycsb("load ycsb -P workloada -threads 2", &url, "ycsb_mix"));
    let out = run_ok(&mut ycsb("run ycsb -P workloada -p operationcount=6000 -threads 4", &url, "ycsb_mix"));
    let b = block(&out);
    let (r, u) = (ops(&b, "READ") as f64, ops(&b, "UPDATE") as f64);
    let share = r / (r + u);
    assert!((share - 0.5).abs() < 0.03, "read share {share}: {}", show(&out));
    // -target: 1200 operations at 400 a second take 3 s, whatever the machine could do more.
    let out = run_ok(&mut ycsb("run ycsb -P workloadc -p operationcount=1200 -target 400 -threads 2", &url, "ycsb_mix"));
    let b = block(&out);
    assert!(ops(&b, "Intended-READ") > 0 && ops(&b, "READ") == 1200, "{}", show(&out));
    let rate: f64 = b[&("OVERALL".into(), "Throughput(ops/sec)".into())].parse().unwrap();
    assert!((rate - 400.0).abs() <= 8.0, "-target 400 held {rate:.1} operations a second over the run (± 2%): {}", show(&out));
    // YCSB paces its threads evenly: every whole second is due 400 operations, where Poisson
    // arrivals (sysbench's --rate) would spread them by about 20 (the run once ended at 3.18 s).
    // A second's due operations are those done in it plus the growth of those queued or under
    // way at its end: a starved host finished 390 in the first second with 7 queued.
    let due = due_per_second(&stdout(&out));
    assert!(due.len() >= 2 && due[..2].iter().all(|t| (t - 400.0).abs() <= 6.0), "operations due each second of -target 400: {due:?}: {}", show(&out));
    assert!(b.contains_key(&("Intended-READ".into(), "99thPercentileLatency(us)".into())), "{}", show(&out));
    run_ok(&mut ycsb("cleanup ycsb", &url, "ycsb_mix"));
}

/// The operations due in each second of a paced run, from its report lines: those done (tps)
/// plus the change in those queued or under way ("queue length", "concurrency") at its end.
fn due_per_second(out: &str) -> Vec<f64> {
    let after = |l: &str, key: &str| -> Option<f64> { l.split(key).nth(1)?.split(|c: char| c == ',' || c.is_whitespace()).next()?.parse().ok() };
    let done = out.lines().filter(|l| l.starts_with("[ ") && l.contains(" tps: ")).filter_map(|l| after(l, " tps: "));
    let waiting = out.lines().filter(|l| l.starts_with("[ ") && l.contains("queue length: ")).filter_map(|l| Some(after(l, "queue length: ")? + after(l, "concurrency: ")?));
    let mut before = 0.0;
    done.zip(waiting)
        .map(|(d, w)| {
            let due = d + w - before;
            before = w;
            due
        })
        .collect()
}

/// `prepare` loads the same records in bulk, and a run reads them; a
/// second `load` over them is refused before a row changes, and a run on
/// fewer records than it reads says how to load them.
#[test]
fn bulk_prepare_and_the_table_state_are_checked() {
    let url = mysql_url();
    run_ok(&mut ycsb("cleanup ycsb", &url, "ycsb_bulk"));
    let out = run_ok(&mut ycsb("prepare ycsb -P workloadc", &url, "ycsb_bulk"));
    assert!(stdout(&out).contains("Loading 2000 YCSB records"), "{}", show(&out));
    let rows = mysql_admin("SELECT COUNT(*) FROM fbtest.ycsb_bulk");
    assert_eq!(rows.trim(), "2000");
    let out = run_fail(&mut ycsb("load ycsb -P workloadc", &url, "ycsb_bulk"));
    assert_one_line_error(&out, &["ycsb_bulk holds the 2000 records this load inserts already", "insertstart"]);
    assert_eq!(out.status.code(), Some(2));
    let mut more = ycsb("run ycsb -P workloadc -p operationcount=10", &url, "ycsb_bulk");
    more.args(["-p", "recordcount=5000"]);
    let out = run_fail(&mut more);
    assert_one_line_error(&out, &["lacks record 4999", "recordcount"]);
    // The records are YCSB's: hashed keys, ten fields of 100 characters.
    let k = mysql_admin("SELECT YCSB_KEY, LENGTH(FIELD0), LENGTH(FIELD9) FROM fbtest.ycsb_bulk ORDER BY YCSB_KEY LIMIT 1");
    let cols: Vec<&str> = k.split_whitespace().collect();
    assert!(cols[0].starts_with("user") && cols[1..] == ["100", "100"], "{k}");
    run_ok(&mut ycsb("cleanup ycsb", &url, "ycsb_bulk"));
}

#[test]
fn bad_properties_are_one_line_and_exit_2() {
    let db = scratch_dir("ycsb-bad").join("y.db");
    let url = format!("sqlite://{}", db.display());
    for (words, mentions) in [
        ("run ycsb -P workloada -p recordcont=5", &["unknown YCSB property 'recordcont'"][..]),
        ("run ycsb -P workloadz", &["workloadz", "workloada .. workloadf"]),
        ("run ycsb -p requestdistribution=pareto", &["requestdistribution=pareto", "zipfian"]),
        ("run ycsb -p fieldcount=0", &["fieldcount=0"]),
        ("run ycsb -threads", &["-threads needs a value"]),
    ] {
        let out = run_fail(&mut ycsb(words, &url, "usertable"));
        assert_one_line_error(&out, mentions);
        assert_eq!(out.status.code(), Some(2), "{words}: {}", show(&out));
    }
}

/// An interrupted `load` was refused when run again ("holds record 0 already"), and `run` and
/// `prepare` on its records too: the same load now goes on from where each client stopped,
/// measuring the rest, and one by another number of clients is refused before a row changes.
#[test]
fn an_interrupted_load_resumes_where_each_client_stopped() {
    const N: u64 = 400_000;
    let db = scratch_dir("ycsb-resume-load").join("y.db");
    let load = |threads: &str| {
        let mut c = fairbench();
        c.args(["load", "ycsb", "-P", "workloadc", "-p", &format!("recordcount={N}"), "-p", "fieldcount=1", "-p", "fieldlength=10", "-p", "db.batchsize=100"]);
        c.args(["--threads", threads, "--report-interval=1", "--target"]).arg(format!("sqlite://{}", db.display())).arg("--no-save");
        c
    };
    let held = || -> u64 { rusqlite::Connection::open(&db).unwrap().query_row("SELECT COUNT(*) FROM usertable", [], |r| r.get::<_, i64>(0)).unwrap() as u64 };
    let mut first = Watched::spawn(&mut load("2"));
    first.wait_for_interval(std::time::Duration::from_secs(60));
    let (code, _, out) = first.interrupt();
    assert_ne!(code, Some(0), "{out}");
    let h = held();
    assert!(h > 0 && h < N, "the interrupted load left {h} of {N} records:\n{out}");

    let out = run_fail(&mut load("3"));
    assert_one_line_error(&out, &[&format!("usertable holds {h} records"), "by 3 clients", "--threads"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(held(), h, "a refused load changed the table");

    let out = run_ok(&mut load("2"));
    assert!(stdout(&out).contains(&format!("usertable holds {h} of the {N} records this load inserts")), "{}", show(&out));
    let b = block(&out);
    assert_eq!(ops(&b, "INSERT"), N - h, "{}", show(&out));
    assert!(!b.contains_key(&("INSERT".to_string(), "Return=ERROR".to_string())), "{}", show(&out));
    // Every key number below N once: the primary key keeps them apart.
    assert_eq!(held(), N);
    let out = run_fail(&mut load("2"));
    assert_one_line_error(&out, &[&format!("usertable holds the {N} records this load inserts already"), "run"]);
}

/// `-s` during a load with `db.batchsize` counted INSERT statements as
/// operations: YCSB's status line counts the records.
#[test]
fn status_lines_of_a_batched_load_count_records() {
    let db = scratch_dir("ycsb-status-load").join("y.db");
    let mut c = fairbench();
    c.args(["load", "ycsb", "-P", "workloadc", "-p", "recordcount=400000", "-p", "fieldcount=1", "-p", "fieldlength=10"]);
    c.args(["-p", "db.batchsize=100", "-p", "status.interval=0.5", "-s", "--target"]).arg(format!("sqlite://{}", db.display())).arg("--no-save");
    let out = run_ok(&mut c);
    let err = stderr(&out);
    let counts: Vec<u64> = err.lines().filter_map(|l| l.split(" sec: ").nth(1)?.split(" operations;").next()?.trim().parse().ok()).collect();
    // 400000 records are 4000 statements: a count past that is records.
    assert!(counts.iter().any(|&n| n > 4000), "{counts:?}\n{}", show(&out));
    assert!(counts.iter().all(|&n| n <= 400_000), "{counts:?}");
}

/// A YCSB user's JDBC properties (a `-P` file of their own) name the
/// server when the command line gives no `--target`.
#[test]
fn jdbc_properties_name_the_target() {
    let dir = scratch_dir("ycsb-jdbc");
    let db = dir.join("db.properties");
    let p = parse_url(&mysql_url());
    std::fs::write(
        &db,
        format!("db.driver=com.mysql.jdbc.Driver\ndb.url=jdbc:mysql://127.0.0.1:{}/{}?rewriteBatchedStatements=true\ndb.user={}\ndb.passwd={}\n", mysql_port(), p.database, p.user, p.password),
    )
    .unwrap();
    let run = |words: &str| {
        let mut c = fairbench();
        c.args(words.split_whitespace()).arg("-P").arg(&db).args(["-p", RECORDS, "-p", "table=ycsb_jdbc", "--no-save"]);
        run_ok(&mut c)
    };
    run("cleanup ycsb");
    run("load ycsb -P workloadc -threads 2");
    let out = run("run ycsb -P workloadc -p operationcount=200");
    assert!(stdout(&out).contains("ycsb on mysql://") && ops(&block(&out), "READ") == 200, "{}", show(&out));
    assert_eq!(mysql_admin("SELECT COUNT(*) FROM fbtest.ycsb_jdbc").trim(), "2000");
    run("cleanup ycsb");
}
