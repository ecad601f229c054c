//! Vitess as a target, on the test command's 2-shard Vitess sandbox: the
//! OLTP family runs on sharded tables and keeps their rows (TPC-C,
//! LinkBench and dbSTRESS run and check in tests/sharding.rs); a run's
//! figures say how its queries were routed and what each part of the
//! cluster spent; the audit names a sharded run against one server and two
//! runs whose transaction modes differ.

mod common;

use common::vtgate::*;
use common::*;
use serde_json::Value;
use std::process::Command;

/// One test at a time on the shared cluster: a cross-shard deadlock between
/// two tests' transactions would wait for the tablets' timeouts.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

fn cmd(command: &str, workload: &str, extra: &[&str]) -> Command {
    let mut c = fairbench();
    c.arg(command).arg(workload).arg("--target").arg(vitess_url()).args(extra);
    c
}

fn run_json(workload: &str, extra: &[&str]) -> Value {
    let s = summary(&run_ok(&mut cmd("run", workload, &[extra, &["--no-save", "--output", "json"]].concat())));
    assert_eq!(s["status"], "completed", "{workload}: {s}");
    assert!(s["transactions"].as_u64().unwrap() > 0, "{workload}: {s}");
    s
}

#[test]
fn the_oltp_family_runs_on_sharded_tables_and_keeps_their_rows() {
    let _one = serial();
    let size = ["--tables", "2", "--table-size", "2000", "--table-name", "vfam"];
    let _ = cmd("cleanup", "oltp_read_write", &size).output();
    run_ok(&mut cmd("prepare", "oltp_read_write", &size));
    for w in ["oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_update_index", "oltp_update_non_index"] {
        run_json(w, &[&size[..], &["--threads", "4", "--time", "2"]].concat());
    }
    for w in ["select_random_points", "select_random_ranges"] {
        run_json(w, &["--tables", "1", "--table-size", "2000", "--table-name", "vfam", "--threads", "4", "--time", "2"]);
    }
    // The rows stay as they were: the read-write mix puts back what it deletes.
    for t in ["vfam1", "vfam2"] {
        assert_eq!(vt_sql(&format!("SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM {t}")), "2000\t2000\t1\t2000", "{t}");
    }
    // oltp_delete only deletes, on both shards.
    run_json("oltp_delete", &[&size[..], &["--threads", "4", "--time", "2"]].concat());
    assert!(vt_sql("SELECT COUNT(*) FROM vfam1").parse::<u64>().unwrap() < 2000);
    // Inserts that give their ids route every row to its shard.
    run_json("oltp_insert", &[&size[..], &["--auto-inc=off", "--threads", "2", "--time", "2"]].concat());
    assert!(vt_sql("SELECT COUNT(*) FROM vfam1").parse::<u64>().unwrap() >= 2000);
    run_ok(&mut cmd("cleanup", "oltp_read_write", &size));
}

#[test]
fn a_run_says_how_its_queries_were_routed_and_what_each_part_spent_and_the_audit_names_the_layout_and_the_mode() {
    let _one = serial();
    let dir = scratch_dir("vitess-audit");
    let store = dir.join("r.sqlite");
    let md = std::env::var("FAIRBENCH_TEST_MYSQL_URL").expect("FAIRBENCH_TEST_MYSQL_URL: run through scripts/test.sh");
    let size = ["--tables", "1", "--table-size", "2000", "--table-name", "vaud"];
    for target in [md.as_str(), &vitess_url()] {
        run_ok(fairbench().args(["prepare", "oltp_read_only", "--target", target]).args(size));
    }
    let run = |target: &str, extra: &[&str]| -> String {
        stdout(&run_ok(fairbench().args(["run", "oltp_read_only", "--target", target, "--threads", "2", "--time", "3"]).args(size).args(extra).arg("--results").arg(&store)))
    };
    run(&md, &[]);
    let before = sandbox_cpu();
    let text = run(&vitess_url(), &[]);
    let after = sandbox_cpu();
    // Ten point selects go to one shard, the four range selects to both (the ordered and
    // distinct ones, which vtgate completes itself, counted by the shards their routes reached;
    // they were once left out, and the share was 2 of 12): 4 of 14 routed queries scatter.
    let line = text.lines().find(|l| l.contains("queries/t by shards reached")).unwrap_or_else(|| panic!("no routing line:\n{text}"));
    // Per transaction, from counters sampled at the level's edges: a transaction in flight at
    // an edge moves a figure by a few hundredths (one 9.80, all 3.96 seen).
    let per = |class: &str| -> f64 { line.split(&format!("{class} ")).nth(1).and_then(|r| r.split([',', ' ']).next()).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no {class} in {line}")) };
    assert!((per("one") - 10.0).abs() <= 0.3 && per("several") == 0.0 && (per("all") - 4.0).abs() <= 0.15, "{line}");
    assert!((scatter_percent(line) - 29.0).abs() <= 1.0, "{line}");
    // What each part of the cluster spent: as much as the test reads from /proc for the
    // sandbox's own processes over the command (which adds its start and end to the measured
    // run: 25%), and the parts and the client never more than the host's busy CPU (5% for the
    // sampling's edges; what else the host ran, a build or the other servers, is less).
    let parts = text.lines().find(|l| l.contains("server CPU/t by part")).unwrap_or_else(|| panic!("no parts line:\n{text}"));
    let each = part_cpu(parts);
    let names: Vec<&str> = each.iter().map(|(n, _)| n.as_str()).collect();
    assert!(["mysqld", "vtgate", "vttablet"].iter().all(|n| names.contains(n)), "{parts}");
    let level = &stored_levels(&store, "last")[0];
    let trx = level["events"].as_f64().unwrap();
    for (name, us) in &each {
        let seen = (after[name.as_str()] - before[name.as_str()]) * 1e6 / trx;
        assert!(*us > 0.0 && *us <= seen * 1.05 && *us >= seen * 0.75, "{name}: {us:.1} µs/t printed, {seen:.1} µs/t read from /proc over the command: {parts}");
    }
    let e = &level["efficiency"];
    let (host, client) = (e["host_cpu_us_per_trx"].as_f64().unwrap(), e["client_cpu_us_per_trx"].as_f64().unwrap());
    let sum = each.iter().map(|(_, us)| us).sum::<f64>() + client;
    assert!(sum <= host * 1.05, "parts {each:?} and client {client:.1} µs/t = {sum:.1} against the host's busy {host:.1} µs/t");
    // Point selects carry the sharding key: none reaches every shard.
    let points = run_point_selects(&dir.join("points.sqlite"));
    let line = points.lines().find(|l| l.contains("queries/t by shards reached")).unwrap_or_else(|| panic!("no routing line:\n{points}"));
    assert_eq!(scatter_percent(line), 0.0, "{line}");
    run(&vitess_url(), &["--session-options", "SET transaction_mode = 'single'"]);
    let audit = |ids: &[&str]| -> Value { serde_json::from_str(&stdout(&run_ok(fairbench().args(["audit", "--json"]).args(ids).arg("--results").arg(&store)))).unwrap() };
    let rules = |v: &Value| -> Vec<String> { v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect() };
    let one_vs_sharded = audit(&["1", "2"]);
    let f = one_vs_sharded["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "shard-layout-mismatch").unwrap_or_else(|| panic!("no layout finding: {one_vs_sharded}"));
    let evidence = f["evidence"].to_string();
    assert!(
        evidence.contains("one server holds all the data") && evidence.contains("2 shards behind a router") && evidence.contains("transaction_mode=MULTI") && evidence.contains("went to every shard"),
        "{evidence}"
    );
    let modes = audit(&["2", "3"]);
    assert!(rules(&modes).contains(&"commit-protocol-mismatch".to_string()), "{modes}");
    assert!(!rules(&modes).contains(&"shard-layout-mismatch".to_string()), "{modes}");
    for target in [md.as_str(), &vitess_url()] {
        run_ok(fairbench().args(["cleanup", "oltp_read_only", "--target", target]).args(size));
    }
}

/// CPU seconds (user and system) the test cluster's processes have used, by part, read from
/// /proc through the sandbox's pid files.
fn sandbox_cpu() -> std::collections::BTreeMap<&'static str, f64> {
    let root = std::path::PathBuf::from(std::env::var("FAIRBENCH_TEST_TMP").expect("FAIRBENCH_TEST_TMP: run through scripts/test.sh")).join("vitess");
    let mut files = vec![("vtgate", root.join("vtgate.pid"))];
    for shard in std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).filter(|p| p.join("vttablet.pid").exists()) {
        files.push(("vttablet", shard.join("vttablet.pid")));
        files.push(("mysqld", shard.join("mysqld.pid")));
    }
    // SAFETY: sysconf has no preconditions.
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let mut cpu = std::collections::BTreeMap::new();
    for (part, file) in files {
        let pid = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap();
        // After the command's name in parentheses: state is field 3, utime 14, stime 15.
        let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        *cpu.entry(part).or_insert(0.0) += ticks / tick;
    }
    cpu
}

/// The share printed after a routing line: `... (29% to every shard)`.
fn scatter_percent(line: &str) -> f64 {
    let inside = line.rsplit_once('(').and_then(|(_, r)| r.split_once("% to every shard")).unwrap_or_else(|| panic!("no share in {line}")).0;
    inside.parse().unwrap_or_else(|_| panic!("not a number: {inside} in {line}"))
}

/// `server CPU/t by part at 2 threads, µs: mariadb 800.0, tablet 400.0, vtgate 800.0`.
fn part_cpu(line: &str) -> Vec<(String, f64)> {
    let list = line.split_once("µs: ").unwrap_or_else(|| panic!("no figures in {line}")).1;
    list.split(", ")
        .map(|p| {
            let (name, us) = p.rsplit_once(' ').unwrap_or_else(|| panic!("{p} in {line}"));
            (name.to_string(), us.parse().unwrap_or_else(|_| panic!("not a number: {us} in {line}")))
        })
        .collect()
}

/// Point selects through vtgate on the audit test's table, stored: the summary's text.
fn run_point_selects(store: &std::path::Path) -> String {
    let size = ["--tables", "1", "--table-size", "2000", "--table-name", "vaud"];
    stdout(&run_ok(fairbench().args(["run", "oltp_point_select", "--target", &vitess_url(), "--threads", "2", "--time", "3"]).args(size).arg("--results").arg(store)))
}

/// CH-benCHmark on sharded TPC-C tables (supplier, nation and region whole
/// on every shard): the queries vtgate plans run in its OLAP mode beside
/// the TPC-C client, and those it cannot run are listed once each with
/// vtgate's reason (a planner error, the tablets' row limit on what vtgate
/// evaluates itself), not retried forever nor stopping the run.
#[test]
fn ch_runs_the_queries_vtgate_plans_and_lists_those_it_refuses() {
    let _one = serial();
    let size = ["--warehouses", "1", "--fk", "nofk", "--tpcc-prefix", "vch"];
    let _ = cmd("cleanup", "ch", &size).output();
    run_ok(&mut cmd("prepare", "ch", &[&size[..], &["--threads", "2"]].concat()));
    // Reference tables: a whole copy on every shard.
    assert!(rows_per_shard("vchsupplier1").iter().all(|&n| n == 10_000), "{:?}", rows_per_shard("vchsupplier1"));
    let store = scratch_dir("vitess_ch").join("r.sqlite");
    let args = ["--threads", "1", "--time", "2", "--analytic-queries", "1,6,11,17,20", "--analytic-rounds", "1", "--query-timeout", "60"];
    let out = run_ok(cmd("run", "ch", &[&size[..], &args].concat()).arg("--results").arg(&store));
    let levels = stored_levels(&store, "last");
    let mixed = &levels[1];
    // Q11 joins stock with supplier and nation, reference tables: each shard joins its own rows.
    assert_eq!(["Q1", "Q6", "Q11"].map(|q| level_kind_events(mixed, q)), [1, 1, 1], "{}", show(&out));
    assert_eq!(level_figure(mixed, "analytic queries"), 3.0, "{}", mixed["summary"]["figures"]);
    let refused = mixed["summary"]["figures"]["refused"].as_str().unwrap_or_else(|| panic!("nothing refused: {}", show(&out)));
    assert!(refused.contains("Q17: VT13001") && refused.contains("Q20: ") && refused.contains("Row count exceeded"), "{refused}");
    assert!(!refused.contains("Q1:") && !refused.contains("Q6:") && !refused.contains("Q11:"), "{refused}");
    assert!(level_figure(mixed, "tpmC") > 0.0);
    let text = stdout(&run_ok(&mut cmd("check", "ch", &size)));
    assert!(text.contains("All conditions hold."), "{text}");
    run_ok(&mut cmd("cleanup", "ch", &size));
}

/// TPC-H at scale factor 0.01 on sharded tables (an order with its lines
/// on one shard, supplier, nation and region whole on every shard): the
/// refresh functions and the queries vtgate plans run, and those it cannot
/// plan (correlated subqueries) are named with vtgate's reason while the
/// stream goes on, without a metric.
#[test]
fn tpch_runs_the_queries_vtgate_plans_and_lists_those_it_refuses() {
    let _one = serial();
    let sf = ["--scale-factor", "0.01"];
    let _ = cmd("cleanup", "tpch", &sf).output();
    run_ok(&mut cmd("prepare", "tpch", &[&sf[..], &["--threads", "2"]].concat()));
    assert_eq!(vt_sql("SELECT COUNT(*) FROM lineitem"), "60175");
    let store = scratch_dir("vitess_tpch").join("r.sqlite");
    let out = run_ok(cmd("run", "tpch", &[&sf[..], &["--tests", "power", "--queries", "1,6,17,22", "--query-timeout", "60"]].concat()).arg("--results").arg(&store));
    let power = &stored_levels(&store, "last")[0];
    let f = &power["summary"]["figures"];
    let refused = f["refused"].as_str().unwrap_or_else(|| panic!("nothing refused: {}", show(&out)));
    assert!(refused.contains("Q17: VT12001") && refused.contains("Q22: VT12001") && refused.contains("correlated subquery"), "{refused}");
    assert!(!refused.contains("Q1:") && !refused.contains("Q6:"), "{refused}");
    for k in ["Q1", "Q6", "RF1", "RF2"] {
        assert!(level_figure(power, &format!("{k} seconds")) > 0.0, "{f}");
    }
    assert!(f.get("Power@Size (a subset: not the spec's)").is_none(), "no metric with queries refused: {f}");
    assert_eq!(vt_sql("SELECT COUNT(*) FROM orders"), "15000", "RF2 removed what RF1 added");
    run_ok(&mut cmd("cleanup", "tpch", &sf));
}
