//! One test per bug fixed, named after what broke; each says what it was.

mod common;

use common::*;
use serde_json::Value;

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
    let args = options["workload-args"].as_str().unwrap();
    assert!(args.starts_with("TpccArgs") && !args.contains("sbtest"), "{args}");
}
