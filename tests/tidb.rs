//! TiDB as a target, on the test command's TiDB sandbox (tidb-server with
//! its embedded unistore, in memory): every workload family prepares, runs
//! and checks; `env` names the store and the durability TiDB really has and
//! no InnoDB figure; optimistic write conflicts are retried and counted;
//! what TiDB lacks is refused in one line before anything changes; the
//! audit finds the durability and commit-protocol mismatches.

mod common;

use common::*;
use serde_json::Value;
use std::process::Command;

fn cmd(command: &str, workload: &str, extra: &[&str]) -> Command {
    let mut c = fairbench();
    c.arg(command).arg(workload).arg("--target").arg(tidb_url()).args(extra);
    c
}

fn run_json(workload: &str, extra: &[&str]) -> Value {
    let s = summary(&run_ok(&mut cmd("run", workload, &[extra, &["--no-save", "--output", "json"]].concat())));
    assert_eq!(s["status"], "completed", "{s}");
    assert!(s["transactions"].as_u64().unwrap() > 0, "{s}");
    s
}

/// Runs `sql` on the TiDB sandbox with the mariadb client (the test's own view of the data).
fn tidb_sql(sql: &str) -> String {
    mysql_at(&tidb_url(), sql)
}

#[test]
fn oltp_family_prepares_runs_and_checks_on_tidb() {
    let size = ["--tables", "2", "--table-size", "2000", "--table-name", "tio"];
    run_ok(&mut cmd("prepare", "oltp_read_write", &size));
    for w in ["oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_insert", "oltp_delete", "oltp_update_index"] {
        let s = run_json(w, &[&size[..], &["--threads", "4", "--time", "2"]].concat());
        // TiDB's own errors never stop the run: whatever was retried is counted by code.
        assert_eq!(s["status"], "completed", "{w}: {s}");
    }
    // The OLTP family has no consistency conditions: its check is the table count and sums.
    assert_eq!(tidb_sql("SELECT COUNT(*) > 1000 FROM tio2"), "1");
    run_ok(&mut cmd("cleanup", "oltp_read_write", &size));
    assert_eq!(tidb_sql("SHOW TABLES LIKE 'tio%'"), "");
}

#[test]
fn tpcc_prepares_runs_and_checks_on_tidb() {
    let size = ["--warehouses", "1", "--tpcc-prefix", "tt"];
    run_ok(&mut cmd("prepare", "tpcc", &[&size[..], &["--threads", "4"]].concat()));
    // Both statement shapes, each checked: go-tpc's lists are TiDB's own tool's.
    for shape in ["per-item", "go-tpc"] {
        let s = run_json("tpcc", &[&size[..], &["--threads", "4", "--time", "4", "--tpcc-shape", shape]].concat());
        let kinds = s["workload"]["transactions"].as_array().unwrap();
        assert!(kinds.iter().any(|k| k["name"] == "new_order" && k["count"].as_u64().unwrap() > 0), "{s}");
        assert_eq!(s["workload"]["shape"], shape, "{s}");
        let text = stdout(&run_ok(&mut cmd("check", "tpcc", &size)));
        assert!(text.contains("All conditions hold."), "{shape}: {text}");
    }
    // HammerDB's shape needs stored procedures, which TiDB has none of: one line, nothing run.
    let out = run_fail(&mut cmd("run", "tpcc", &[&size[..], &["--time", "2", "--tpcc-shape", "procedures"]].concat()));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["--tpcc-shape=procedures", "tidb has no stored procedures", "go-tpc"]);
    run_ok(&mut cmd("cleanup", "tpcc", &size));
}

#[test]
fn dbstress_prepares_runs_and_checks_on_tidb() {
    let size = ["--obj-table-size", "2000"];
    run_ok(&mut cmd("prepare", "dbstress", &size));
    run_json("dbstress", &[&size[..], &["--threads", "4", "--time", "2"]].concat());
    let text = stdout(&run_ok(&mut cmd("check", "dbstress", &size)));
    assert!(text.contains("All conditions hold."), "{text}");
    run_ok(&mut cmd("cleanup", "dbstress", &size));
}

#[test]
fn linkbench_prepares_runs_and_checks_on_tidb() {
    // unistore scans a long link list backwards slowly: few links per node
    // and a bounded number of requests keep the run short.
    let size = ["--maxid1", "501", "--dbprefix", "lbt"];
    run_ok(&mut cmd("prepare", "linkbench", &with_few_links(&[&size[..], &["--rand-seed", "3"]].concat())));
    run_json("linkbench", &[&size[..], &["--threads", "2", "--events", "300", "--time", "0", "--rand-seed", "4"]].concat());
    let text = stdout(&run_ok(&mut cmd("check", "linkbench", &size)));
    assert!(text.contains("All conditions hold."), "{text}");
    run_ok(&mut cmd("cleanup", "linkbench", &size));
}

#[test]
fn env_on_tidb_names_the_store_and_durability_and_no_innodb_figure() {
    let out = stdout(&run_ok(fairbench().args(["env", "--target", &tidb_url()])));
    let line = |start: &str| out.lines().find(|l| l.trim_start().starts_with(start)).unwrap_or_else(|| panic!("no '{start}' line in\n{out}")).to_string();
    assert!(out.starts_with("Snapshot taken at") && out.contains("Server: tidb "), "{out}");
    let durability = line("durability:");
    assert!(durability.contains("not durable (in memory only)") && durability.contains("unistore"), "{durability}");
    assert!(!durability.to_ascii_lowercase().contains("innodb"), "{durability}");
    assert!(line("commit:").contains("tidb_txn_mode=pessimistic"), "{out}");
    assert!(line("cluster member: tidb").contains("status 127.0.0.1:"), "{out}");
    assert!(line("counters from:").contains("/metrics"), "{out}");
    assert!(line("status counters:").contains("tidb_server_query_total="), "{out}");
    // Neither InnoDB's cache nor its variables mean anything on TiDB.
    assert!(!out.contains("page cache of the engine"), "{out}");
    assert!(!out.lines().any(|l| l.trim_start().starts_with("innodb_")), "{out}");
    assert!(!out.contains("tidb_config ="), "{out}");
    let json: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["env", "--json", "--target", &tidb_url()])))).unwrap();
    assert_eq!(json["server"]["engine"], "tidb");
    assert_eq!(json["server"]["variables"]["config.store"], "unistore");
}

#[test]
fn optimistic_write_conflicts_are_retried_and_counted_by_code() {
    let size = ["--tables", "1", "--table-size", "10", "--table-name", "topt"];
    run_ok(&mut cmd("prepare", "oltp_write_only", &size));
    let s = run_json("oltp_write_only", &[&size[..], &["--threads", "16", "--time", "3", "--session-options", "SET SESSION tidb_txn_mode='optimistic'"]].concat());
    let conflicts = s["errors_by_code"]["9007"].as_u64().unwrap_or(0);
    assert!(conflicts > 0, "no write conflict counted: {s}");
    // A list the user gives replaces the default, TiDB's codes included.
    let out = run_fail(&mut cmd(
        "run",
        "oltp_write_only",
        &[&size[..], &["--threads", "16", "--time", "3", "--no-save", "--mysql-ignore-errors", "1213", "--session-options", "SET SESSION tidb_txn_mode='optimistic'"]].concat(),
    ));
    assert!(stderr(&out).contains("9007"), "{}", show(&out));
    run_ok(&mut cmd("cleanup", "oltp_write_only", &size));
}

#[test]
fn what_tidb_lacks_is_refused_in_one_line_before_anything_changes() {
    let size = ["--tables", "1", "--table-size", "100", "--table-name", "tref"];
    run_ok(&mut cmd("prepare", "oltp_read_write", &size));
    let before = tidb_sql("SELECT SUM(k), COUNT(*) FROM tref1");
    let dir = scratch_dir("tidb-refusals");
    let script = |name: &str, body: &str| {
        let p = dir.join(format!("{name}.lua"));
        std::fs::write(&p, body).unwrap();
        p.to_string_lossy().to_string()
    };
    let share = script(
        "share",
        "function thread_init()\n  drv = sysbench.sql.driver()\n  con = drv:connect()\n  st = con:prepare('SELECT c FROM tref1 WHERE id = ? LOCK IN SHARE MODE')\nend\nfunction event()\n  con:query('UPDATE tref1 SET k = k + 1 WHERE id = 1')\nend\n",
    );
    let optimize = script("optimize", "function event()\n  local con = sysbench.sql.driver():connect()\n  con:query('OPTIMIZE TABLE tref1')\nend\n");
    let innodb = script("innodb", "function event()\n  local con = sysbench.sql.driver():connect()\n  con:query('SHOW ENGINE INNODB STATUS')\nend\n");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["run".into(), "tpcc".into(), "--tpcc-prefix".into(), "tref".into(), "--isolation".into(), "SER".into()], "SERIALIZABLE"),
        (vec!["run".into(), "oltp_read_write".into(), "--session-options".into(), "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED".into()], "READ UNCOMMITTED"),
        (vec!["run".into(), "oltp_write_only".into(), "--session-options".into(), "SET SESSION sql_log_bin=0".into()], "sql_log_bin"),
        (vec!["prepare".into(), "oltp_read_write".into(), "--table-name".into(), "tari".into(), "--mysql-storage-engine".into(), "Aria".into()], "Aria"),
        (vec!["prepare".into(), "oltp_read_write".into(), "--table-name".into(), "tpgc".into(), "--table-compression".into(), "PAGE".into()], "PAGE_COMPRESSED"),
        (vec!["run".into(), share], "LOCK IN SHARE MODE"),
        (vec!["run".into(), optimize], "OPTIMIZE TABLE"),
        (vec!["run".into(), innodb], "InnoDB"),
    ];
    for (args, names) in cases {
        let mut c = fairbench();
        c.args(&args).arg("--target").arg(tidb_url()).args(["--time", "2", "--no-save"]);
        if args[0] == "run" && args[1].starts_with("oltp") {
            c.args(size);
        }
        let out = run_fail(&mut c);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        assert_one_line_error(&out, &[names]);
        assert!(stderr(&out).contains("TiDB"), "{args:?}: {}", show(&out));
    }
    assert_eq!(tidb_sql("SELECT SUM(k), COUNT(*) FROM tref1"), before, "data changed");
    assert_eq!(tidb_sql("SHOW TABLES LIKE 'tari%'"), "");
    assert_eq!(tidb_sql("SHOW TABLES LIKE 'tpgc%'"), "");
    run_ok(&mut cmd("cleanup", "oltp_read_write", &size));
}

#[test]
fn audit_finds_in_memory_tidb_against_durable_mariadb_and_tidb_runs_that_commit_differently() {
    let dir = scratch_dir("tidb-audit");
    let store = dir.join("r.sqlite");
    let out = run_ok(fairbench().args(["server", "start", "mariadb", "--profile", "durable", "--ram", "1G", "--cores", "2"]).arg("--dir").arg(dir.join("md")));
    let md_url = stdout(&out).trim().to_string();
    struct Stop(std::path::PathBuf);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = fairbench().args(["server", "stop"]).arg(&self.0).output();
        }
    }
    let _stop = Stop(dir.join("md"));
    let size = ["--tables", "1", "--table-size", "500", "--table-name", "taud"];
    let run = |target: &str, extra: &[&str]| {
        run_ok(fairbench().args(["prepare", "oltp_read_write", "--target", target]).args(size));
        run_ok(fairbench().args(["run", "oltp_read_write", "--target", target, "--threads", "2", "--time", "1"]).args(size).args(extra).arg("--results").arg(&store));
    };
    run(&md_url, &[]);
    run(&tidb_url(), &[]);
    run(&tidb_url(), &["--session-options", "SET SESSION tidb_txn_mode='optimistic'"]);
    let audit = |ids: &[&str]| -> Value { serde_json::from_str(&stdout(&run_ok(fairbench().args(["audit", "--json"]).args(ids).arg("--results").arg(&store)))).unwrap() };
    let rules = |v: &Value| -> Vec<String> { v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect() };
    let md_vs_tidb = audit(&["1", "2"]);
    let f = md_vs_tidb["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "durability-mismatch").unwrap_or_else(|| panic!("no durability finding: {md_vs_tidb}"));
    assert_eq!(f["severity"], "critical");
    let evidence = f["evidence"].to_string();
    assert!(evidence.contains("every commit flushed and synced") && evidence.contains("not durable (in memory only)"), "{evidence}");
    let modes = audit(&["2", "3"]);
    assert!(rules(&modes).contains(&"commit-protocol-mismatch".to_string()), "{modes}");
    assert!(!rules(&modes).contains(&"durability-mismatch".to_string()), "{modes}");
    assert!(!rules(&audit(&["2", "2"])).contains(&"commit-protocol-mismatch".to_string()));
    run_ok(fairbench().args(["cleanup", "oltp_read_write", "--target", &md_url]).args(size));
    run_ok(fairbench().args(["cleanup", "oltp_read_write", "--target", &tidb_url()]).args(size));
}

#[test]
fn per_interval_counters_come_from_the_status_port_and_statements_from_its_summary() {
    let dir = scratch_dir("tidb-samples");
    let store = dir.join("r.sqlite");
    let size = ["--tables", "1", "--table-size", "500", "--table-name", "tsam"];
    run_ok(&mut cmd("prepare", "oltp_point_select", &size));
    run_ok(cmd("run", "oltp_point_select", &[&size[..], &["--threads", "2", "--time", "3", "--report-interval", "1"]].concat()).arg("--results").arg(&store));
    let v: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["results", "export", "last", "--results"]).arg(&store)))).unwrap();
    let run = if v["runs"].is_array() { v["runs"][0].clone() } else { v[0].clone() };
    let samples = run["levels"][0]["samples"].as_array().unwrap_or_else(|| panic!("no samples: {run}"));
    let queries: f64 = samples.iter().filter_map(|s| s["deltas"]["tidb_server_query_total"].as_f64()).sum();
    let events = run["levels"][0]["events"].as_f64().unwrap();
    // Every point select is a query the server counted (the sampler's own come on top).
    assert!(queries >= events * 0.9, "{queries} queries counted for {events} events");
    assert!(samples.iter().any(|s| s["gauges"]["tidb_server_connections"].as_f64().unwrap_or(0.0) >= 2.0), "{samples:?}");
    // Its statements summary: each point select counted under its digest, in the samples of the level.
    let selects: f64 = samples
        .iter()
        .filter(|s| s["seq"].as_u64() != Some(0))
        .flat_map(|s| s["statements"].as_object().into_iter().flatten())
        .filter(|(_, d)| d["text"].as_str().is_some_and(|t| t.to_ascii_lowercase().contains("from `tsam1`")))
        .filter_map(|(_, d)| d["counts"]["calls"].as_f64())
        .sum();
    assert!(selects >= events * 0.9 && selects <= events * 1.2, "{selects} point selects in the statements summary for {events} events: {samples:?}");
    run_ok(&mut cmd("cleanup", "oltp_point_select", &size));
}

#[test]
fn the_insert_benchmark_runs_its_steps_on_tidb() {
    let dir = scratch_dir("tidb_ibench");
    let store = dir.join("r.sqlite");
    let size = ["--ibench-table", "tib", "--rows", "2000", "--clients", "2", "--change-rows", "1000", "--query-secs", "1", "--settle-secs", "1"];
    run_ok(cmd("run", "insert-benchmark", &size).arg("--results").arg(&store));
    let levels = stored_levels(&store, "last");
    let steps: Vec<&str> = levels.iter().map(|l| l["summary"]["step"].as_str().unwrap_or("")).collect();
    assert_eq!(steps, ["l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"]);
    assert!(levels.iter().all(|l| l["status"] == "completed"), "{levels:?}");
    // l.x's 100 rows a client stay; every later insert was matched by a delete.
    assert_eq!(tidb_sql("SELECT (SELECT COUNT(*) FROM tib1) + (SELECT COUNT(*) FROM tib2)"), "2200");
    let indexes = tidb_sql("SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'tib1' AND index_name <> 'PRIMARY'");
    assert_eq!(indexes, "3");
    run_ok(&mut cmd("cleanup", "insert-benchmark", &["--ibench-table", "tib", "--clients", "2"]));
    assert_eq!(tidb_sql("SHOW TABLES LIKE 'tib%'"), "");
}

/// TPC-H at scale factor 0.01: dbgen's rows loaded, the power and
/// throughput tests with their metrics, the refresh functions leaving the
/// orders as loaded, and all 22 answers equal to SQLite's.
#[test]
fn tpch_runs_both_tests_and_answers_as_sqlite_on_tidb() {
    let dir = scratch_dir("tidb_tpch");
    let lite = format!("sqlite://{}", dir.join("h.db").display());
    let answers = dir.join("answers");
    run_ok(fairbench().args(["prepare", "tpch", "--scale-factor", "0.01", "--target", &lite]));
    run_ok(fairbench().args(["check", "tpch", "--scale-factor", "0.01", "--target", &lite, "--save-answers"]).arg(&answers));
    let sf = ["--scale-factor", "0.01"];
    run_ok(&mut cmd("cleanup", "tpch", &sf));
    run_ok(&mut cmd("prepare", "tpch", &[&sf[..], &["--threads", "2"]].concat()));
    assert_eq!(tidb_sql("SELECT COUNT(*) FROM lineitem"), "60175");
    let store = dir.join("r.sqlite");
    run_ok(cmd("run", "tpch", &sf).arg("--results").arg(&store));
    let levels = stored_levels(&store, "last");
    for (l, metric) in levels.iter().zip(["Power@Size", "QphH@Size"]) {
        let v: f64 = l["summary"]["figures"][metric].as_str().unwrap_or_else(|| panic!("no {metric}: {l}")).parse().unwrap();
        assert!(v > 0.0, "{metric} {v}");
    }
    assert_eq!(tidb_sql("SELECT COUNT(*) FROM orders"), "15000", "RF2 removed what RF1 added");
    let out = run_ok(cmd("check", "tpch", &sf).arg("--answers").arg(&answers));
    assert_eq!(stdout(&out).matches(", as expected").count(), 22, "{}", show(&out));
    run_ok(&mut cmd("cleanup", "tpch", &sf));
}

/// CH-benCHmark at one warehouse: TPC-C alone, then beside a stream that
/// runs the 22 queries once, each phase's tpmC, the analytic throughput
/// and freshness (no order missed on one server), TPC-C's check after.
#[test]
fn ch_runs_tpcc_beside_the_22_queries_on_tidb() {
    let size = ["--warehouses", "1", "--tpcc-prefix", "tc"];
    run_ok(&mut cmd("prepare", "ch", &[&size[..], &["--threads", "2"]].concat()));
    assert_eq!(tidb_sql("SELECT COUNT(*) FROM tcsupplier1"), "10000");
    let store = scratch_dir("tidb_ch").join("r.sqlite");
    run_ok(cmd("run", "ch", &[&size[..], &["--threads", "2", "--time", "2", "--analytic-rounds", "1"]].concat()).arg("--results").arg(&store));
    let levels = stored_levels(&store, "last");
    assert_eq!(levels.len(), 2);
    let mixed = &levels[1];
    for q in 1..=22 {
        assert_eq!(level_kind_events(mixed, &format!("Q{q}")), 1, "Q{q}");
    }
    for l in &levels {
        assert!(level_figure(l, "tpmC") > 0.0, "{}", l["summary"]["figures"]);
    }
    assert_eq!(level_figure(mixed, "analytic queries"), 22.0);
    assert_eq!(level_figure(mixed, "freshness missed max ms"), 0.0, "{}", mixed["summary"]["figures"]);
    let text = stdout(&run_ok(&mut cmd("check", "ch", &size)));
    assert!(text.contains("All conditions hold.") && text.contains("supplier, nation and region hold"), "{text}");
    run_ok(&mut cmd("cleanup", "ch", &size));
}
