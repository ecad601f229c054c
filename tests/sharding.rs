//! Sharded schemas on a sharded Vitess keyspace behind vtgate
//! (`FAIRBENCH_TEST_VITESS_URL`, whose database is the keyspace): prepare
//! gives every table of the workload its primary vindex before the rows go
//! in, the rows land on every shard, the runs pass and record the VSchema;
//! what Vitess cannot route is refused in one line, exit 2, before
//! anything is created.

mod common;

use common::vtgate::*;
use common::*;
use serde_json::Value;
use std::process::Command;
use std::sync::Mutex;

/// One test at a time: every test changes the keyspace's one VSchema.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn cmd(command: &str, workload: &str, extra: &[&str]) -> Command {
    let mut c = fairbench();
    c.arg(command).arg(workload).arg("--target").arg(vitess_url()).args(extra);
    c
}

/// The primary vindex of `table`: (columns, type); None when the VSchema
/// does not route it.
fn primary_vindex(table: &str) -> Option<(String, String)> {
    let listed = vt_sql("SHOW VSCHEMA TABLES");
    if !listed.lines().any(|t| t.trim() == table) {
        return None;
    }
    let u = parse_url(&vitess_url());
    let out = Command::new("mariadb")
        .args(["-h", &u.host, "-P", &u.port.unwrap().to_string(), "-u", &u.user, "-N", "-B", &u.database, "-e", &format!("SHOW VSCHEMA VINDEXES ON `{table}`")])
        .env("MYSQL_PWD", &u.password)
        .output()
        .expect("mariadb client");
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next()?;
    let f: Vec<&str> = first.split('\t').collect();
    Some((f[0].to_string(), f[2].to_string()))
}

fn tables_like(pattern: &str) -> String {
    vt_sql(&format!("SHOW TABLES LIKE '{pattern}'"))
}

/// The stored run's recorded sharding, from `results export`.
fn recorded_sharding(store: &std::path::Path) -> Value {
    let out = run_ok(fairbench().args(["results", "export", "last", "--results"]).arg(store));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let text = v["runs"][0]["env_start"]["server"]["sharding"].as_str().unwrap_or_else(|| panic!("no sharding recorded: {v}")).to_string();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn sysbench_tables_are_sharded_by_id_before_the_rows_go_in() {
    let _one = serial();
    let size = ["--tables", "2", "--table-size", "1000", "--table-name", "shsb"];
    let _ = cmd("cleanup", "oltp_read_write", &size).output();
    let out = run_ok(&mut cmd("prepare", "oltp_read_write", &size));
    assert!(stdout(&out).contains("Sharding applied:"), "{}", show(&out));
    for t in ["shsb1", "shsb2"] {
        assert_eq!(primary_vindex(t), Some(("id".into(), "hash".into())), "{t}");
        let per = rows_per_shard(t);
        assert_eq!(per.iter().sum::<u64>(), 1000, "{t}: {per:?}");
        assert!(per.iter().all(|&n| n > 0), "{t}: every shard holds rows: {per:?}");
    }
    // Runs pass, the range SELECTs included (they go to every shard), and
    // the run records the VSchema of its tables.
    let dir = scratch_dir("sharding-oltp");
    let store = dir.join("r.sqlite");
    for w in ["oltp_read_write", "oltp_read_only", "oltp_point_select"] {
        run_ok(cmd("run", w, &size).args(["--threads", "2", "--time", "2", "--results"]).arg(&store));
    }
    let vs = recorded_sharding(&store);
    assert_eq!(vs["sharded"], true, "{vs}");
    assert_eq!(vs["tables"]["shsb1"]["column_vindexes"][0]["column"], "id", "{vs}");
    assert_eq!(vs["vindexes"]["hash"]["type"], "hash", "{vs}");
    let text = stdout(&run_ok(fairbench().args(["results", "show", "last", "--results"]).arg(&store)));
    assert!(text.lines().any(|l| l.trim_start().starts_with("sharding:") && l.contains("shsb2")), "{text}");
    // oltp_insert giving its ids routes every row.
    run_ok(&mut cmd("run", "oltp_insert", &[&size[..], &["--auto-inc=off", "--threads", "2", "--time", "2", "--no-save"]].concat()));
    run_ok(&mut cmd("cleanup", "oltp_read_write", &size));
    assert_eq!(tables_like("shsb%"), "");
    // Nor does the VSchema route them any more (vtgate learns of a change
    // from the topology and the tablets a moment later).
    let gone = || !vt_sql("SHOW VSCHEMA TABLES").lines().any(|t| t.starts_with("shsb"));
    assert!(eventually(std::time::Duration::from_secs(20), gone), "{}", vt_sql("SHOW VSCHEMA TABLES"));
}

#[test]
fn tpcc_tables_are_sharded_by_warehouse_and_item_is_whole_on_every_shard() {
    let _one = serial();
    let size = ["--warehouses", "2", "--fk", "nofk", "--tpcc-prefix", "sht"];
    let _ = cmd("cleanup", "tpcc", &size).output();
    let out = run_ok(&mut cmd("prepare", "tpcc", &[&size[..], &["--threads", "4"]].concat()));
    assert!(!stdout(&out).contains("small enough for every shard"), "declared through vtctld, not spread: {}", show(&out));
    for (t, col) in [
        ("shtwarehouse1", "w_id"),
        ("shtdistrict1", "d_w_id"),
        ("shtcustomer1", "c_w_id"),
        ("shthistory1", "h_w_id"),
        ("shtnew_orders1", "no_w_id"),
        ("shtorders1", "o_w_id"),
        ("shtorder_line1", "ol_w_id"),
        ("shtstock1", "s_w_id"),
    ] {
        assert_eq!(primary_vindex(t), Some((col.into(), "reverse_bits".into())), "{t}");
    }
    // ITEM is a reference table: no vindex, every row on every shard.
    assert_eq!(primary_vindex("shtitem1"), None);
    assert!(rows_per_shard("shtitem1").iter().all(|&n| n == 100_000), "{:?}", rows_per_shard("shtitem1"));
    // Two warehouses, two shards: one warehouse on each.
    assert_eq!(rows_per_shard("shtwarehouse1").iter().filter(|&&n| n == 1).count(), 2);
    let dir = scratch_dir("sharding-tpcc");
    let store = dir.join("r.sqlite");
    run_ok(cmd("run", "tpcc", &size).args(["--threads", "4", "--time", "4", "--results"]).arg(&store));
    let vs = recorded_sharding(&store);
    assert_eq!(vs["tables"]["shtstock1"]["column_vindexes"][0]["name"], "reverse_bits", "{vs}");
    assert_eq!(vs["tables"]["shtitem1"], serde_json::json!({ "type": "reference" }), "{vs}");
    // go-tpc's lists too: an order's stock rows and Delivery's ten districts in one statement
    // each, routed by vtgate to the warehouse's shard.
    let out = run_ok(cmd("run", "tpcc", &size).args(["--threads", "4", "--time", "4", "--tpcc-shape", "go-tpc", "--no-save", "--output", "json"]));
    let s: serde_json::Value = serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert!(s["workload"]["shape"] == "go-tpc" && s["workload"]["transactions"][0]["count"].as_u64().unwrap() > 0, "{s}");
    // vtgate does not pass CREATE PROCEDURE on: HammerDB's shape is refused in one line.
    let out = run_fail(cmd("run", "tpcc", &size).args(["--time", "2", "--tpcc-shape", "procedures", "--no-save"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["--tpcc-shape=procedures", "vitess has no stored procedures", "go-tpc"]);
    // One warehouse on each shard: the conditions hold across them (a
    // remote payment's history row is on the other shard than its customer).
    let text = stdout(&run_ok(&mut cmd("check", "tpcc", &size)));
    assert!(text.contains("condition 10") && text.contains("All conditions hold."), "{text}");
    // A prepare that resumes finds a copy of ITEM short of rows (one shard's load interrupted:
    // more rows than vtgate lets one DELETE touch) and loads every copy again. On this test's
    // data: a load of its own through vtgate took a minute of both cores.
    let first = shards()[0].clone();
    vt_sql(&format!("USE `{}:{first}`; DELETE FROM shtitem1 WHERE i_id > 95000", keyspace()));
    assert_eq!(rows_per_shard("shtitem1")[0], 95_000);
    let out = run_ok(&mut cmd("prepare", "tpcc", &size));
    assert!(stdout(&out).contains("1 item table(s)"), "{}", show(&out));
    assert!(rows_per_shard("shtitem1").iter().all(|&n| n == 100_000), "{:?}", rows_per_shard("shtitem1"));
    run_ok(&mut cmd("cleanup", "tpcc", &size));
}

#[test]
fn linkbench_and_dbstress_prepare_and_run_sharded() {
    let _one = serial();
    // LinkBench without ADD_NODE (its share given to GET_NODE).
    let lb = ["-D", "maxid1=2001", "-D", "addnode=0", "-D", "getnode=15.5059472"];
    let _ = cmd("cleanup", "linkbench", &lb).output();
    run_ok(&mut cmd("prepare", "linkbench", &with_few_links(&lb)));
    assert_eq!(primary_vindex("linktable"), Some(("id1".into(), "hash".into())));
    assert_eq!(primary_vindex("counttable"), Some(("id".into(), "hash".into())));
    assert_eq!(primary_vindex("nodetable"), Some(("id".into(), "hash".into())));
    assert!(rows_per_shard("nodetable").iter().all(|&n| n > 0));
    let out = run_ok(&mut cmd("run", "linkbench", &[&lb[..], &["--threads", "4", "--time", "3", "--no-save"]].concat()));
    assert!(!stdout(&out).contains("Failed requests:"), "{}", show(&out));
    let text = stdout(&run_ok(&mut cmd("check", "linkbench", &lb)));
    assert!(text.contains("All conditions hold."), "{text}");
    run_ok(&mut cmd("cleanup", "linkbench", &lb));
    let ds = ["--obj-table-size", "2000"];
    let _ = cmd("cleanup", "dbstress", &ds).output();
    // Without vtctld's address, the fixed tables are spread by REF, and
    // prepare says what to add (the cleanup took their VSchema entries out).
    let url = vitess_url();
    assert!(url.contains("&admin-port="), "the test cluster's URL names vtctld: {url}");
    let without = url.split('&').filter(|p| !p.starts_with("admin-port=")).collect::<Vec<_>>().join("&");
    let out = run_ok(fairbench().args(["prepare", "dbstress", "--target", &without]).args(ds));
    assert!(stdout(&out).contains("SECTION1, STAT1, ZONE1 are small enough for every shard to hold whole") && stdout(&out).contains("admin-port"), "{}", show(&out));
    assert_eq!(primary_vindex("ZONE1"), Some(("REF".into(), "unicode_loose_xxhash".into())));
    assert_eq!(rows_per_shard("ZONE1").iter().sum::<u64>(), 10);
    run_ok(&mut cmd("cleanup", "dbstress", &ds));
    // With it: ZONE, STAT and SECTION whole on every shard.
    let out = run_ok(&mut cmd("prepare", "dbstress", &ds));
    assert!(!stdout(&out).contains("small enough"), "{}", show(&out));
    for (t, n) in [("ZONE1", 10), ("STAT1", 1000), ("SECTION1", 100)] {
        assert_eq!(primary_vindex(t), None, "{t}");
        assert!(rows_per_shard(t).iter().all(|&k| k == n), "{t}: {:?}", rows_per_shard(t));
    }
    assert_eq!(primary_vindex("OBJECT1"), Some(("REF".into(), "unicode_loose_xxhash".into())));
    assert_eq!(primary_vindex("HISTORY1"), Some(("REF_OBJECT".into(), "unicode_loose_xxhash".into())));
    assert!(rows_per_shard("HISTORY1").iter().all(|&n| n > 0));
    for w in ["dbstress", "dbstress_ro"] {
        run_ok(&mut cmd("run", w, &[&ds[..], &["--threads", "4", "--time", "2", "--no-save"]].concat()));
    }
    assert!(stdout(&run_ok(&mut cmd("check", "dbstress", &ds))).contains("All conditions hold."));
    run_ok(&mut cmd("cleanup", "dbstress", &ds));
}

/// What Vitess cannot route is refused in one line, exit 2, before any
/// table or VSchema entry is created.
#[test]
fn what_vitess_cannot_route_is_refused_before_anything_is_created() {
    let _one = serial();
    let cases: Vec<(&str, Vec<&str>, &str, &str)> = vec![
        // Auto-increment ids come from each shard's server, after vtgate needed them.
        ("oltp_insert", vec!["--tables", "1", "--table-size", "100", "--table-name", "shai"], "--auto-inc=off", "shai"),
        // TPC-C's foreign keys tie rows of different warehouses.
        ("tpcc", vec!["--warehouses", "2", "--tpcc-prefix", "shfk"], "--fk=nofk", "shfk"),
        // LinkBench's ADD_NODE inserts nodes whose id the server assigns.
        ("linkbench", vec!["-D", "maxid1=2001"], "addnode=0", "shlb_none"),
    ];
    for (workload, args, says, prefix) in cases {
        for command in ["prepare", "run"] {
            let out = run_fail(cmd(command, workload, &args).args(["--time", "2", "--no-save"]));
            assert_eq!(out.status.code(), Some(2), "{command} {workload}: {}", show(&out));
            // One error line (LinkBench says where its graph's shape comes from first).
            let err = stderr(&out);
            let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("fairbench:")).collect();
            assert!(errors.len() == 1 && errors[0].contains(says) && err.lines().last() == Some(errors[0]), "{command} {workload}: {}", show(&out));
            assert_no_panic(&out);
            assert_eq!(tables_like(&format!("{prefix}%")), "", "{command} {workload} created tables");
            assert!(!vt_sql("SHOW VSCHEMA TABLES").lines().any(|t| t.starts_with(prefix)), "{command} {workload} changed the VSchema");
        }
    }
}
