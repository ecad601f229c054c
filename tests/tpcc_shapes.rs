//! TPC-C's statement shapes (`--tpcc-shape`): go-tpc's lists beside sysbench-tpcc's statement
//! per order line, on MariaDB, PostgreSQL and SQLite, each passing `check`; the shape in the
//! summary, the label and the store; a comparison of runs whose shapes differ flagged; `explain`
//! naming the shape another tool sends.

mod common;

use common::*;
use serde_json::Value;

const SIZE: [&str; 4] = ["--warehouses", "1", "--tpcc-prefix", "shp"];

fn tpcc(cmd: &str, target: &str, extra: &[&str]) -> std::process::Command {
    let mut c = fairbench();
    c.args([cmd, "tpcc", "--target", target]).args(SIZE).args(extra);
    c
}

/// A run's JSON summary (its last line).
fn summary(target: &str, shape: &str, extra: &[&str]) -> Value {
    let out = run_ok(&mut tpcc("run", target, &[&["--tpcc-shape", shape, "--threads", "2", "--time", "3", "--output", "json"][..], extra].concat()));
    let text = stdout(&out);
    serde_json::from_str(text.lines().last().unwrap()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn check_passes(target: &str) {
    let text = stdout(&run_ok(&mut tpcc("check", target, &[])));
    assert!(text.contains("All conditions hold.") && !text.contains("FAIL"), "{text}");
}

/// go-tpc's shape sends about 15 statements per transaction where sysbench-tpcc's sends about
/// 29 (14.6 and 28.6 measured on SQLite), and the data stays consistent under both.
#[test]
fn the_go_tpc_shape_sends_half_the_statements_and_passes_check_on_mariadb_postgres_and_sqlite() {
    let dir = scratch_dir("tpcc-shapes");
    let lite = format!("sqlite:{}", dir.join("t.sqlite").display());
    for target in [mysql_url(), pg_url(), lite] {
        let _ = tpcc("cleanup", &target, &[]).output();
        run_ok(&mut tpcc("prepare", &target, &["--threads", "2"]));
        let mut per_trx = Vec::new();
        for (shape, range) in [("go-tpc", 13.0..16.5), ("per-item", 26.0..31.0)] {
            let s = summary(&target, shape, &["--no-save"]);
            let w = &s["workload"];
            assert_eq!(w["shape"], shape, "{target}: {w}");
            let n = w["statements_per_transaction"].as_f64().unwrap_or_else(|| panic!("{target}: {w}"));
            assert!(range.contains(&n), "{target}: {shape} sent {n:.1} statements per transaction, outside {range:?}");
            let new_orders = w["transactions"][0]["count"].as_u64().unwrap();
            assert!(new_orders > 0 && w["errors"] == 0, "{target}: {shape}: {w}");
            per_trx.push(n);
            check_passes(&target);
        }
        assert!(per_trx[0] < 0.6 * per_trx[1], "{target}: go-tpc {:.1} against per-item {:.1}", per_trx[0], per_trx[1]);
        run_ok(&mut tpcc("cleanup", &target, &[]));
    }
}

/// The shape goes into the text summary, the label and the store, and `compare` flags two runs
/// whose shapes differ: they sent different statements for the same work.
#[test]
fn the_shape_is_named_stored_and_a_comparison_of_two_shapes_is_flagged() {
    let dir = scratch_dir("tpcc-shape-store");
    let target = format!("sqlite:{}", dir.join("t.sqlite").display());
    let store = dir.join("r.sqlite");
    run_ok(&mut tpcc("prepare", &target, &[]));
    let mut texts = Vec::new();
    for shape in ["per-item", "go-tpc"] {
        let out = run_ok(tpcc("run", &target, &["--tpcc-shape", shape, "--threads", "1", "--time", "1", "--results"]).arg(&store));
        texts.push(stdout(&out));
    }
    let line = texts[1].lines().find(|l| l.contains("statement shape:")).unwrap_or_else(|| panic!("{}", texts[1]));
    let n: f64 = line.split(", ").nth(1).and_then(|p| p.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{line}"));
    assert!(line.contains("statement shape: go-tpc,") && (13.0..16.5).contains(&n), "{line}");
    for (id, shape, label_has) in [("1", "per-item", false), ("2", "go-tpc", true)] {
        let run = stored_run(&store, id);
        assert_eq!(run["options"]["tpcc-shape"], shape, "{}", run["options"]);
        assert_eq!(run["label"].as_str().unwrap().contains("GoTPC"), label_has, "{}", run["label"]);
    }
    let out = run_ok(fairbench().args(["compare", "1", "2", "--json", "--results"]).arg(&store));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let flagged: Vec<&Value> = v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "workload-options-mismatch").collect();
    assert_eq!(flagged.len(), 1, "{:#?}", v["findings"]);
    assert_eq!(flagged[0]["evidence"], serde_json::json!(["run 1 (sqlite): --tpcc-shape=per-item", "run 2 (sqlite): --tpcc-shape=go-tpc"]));
    assert_eq!(flagged[0]["severity"], "warning");
}

#[test]
fn explain_names_the_shape_another_tool_sends_and_unbuilt_procedures_are_refused() {
    let text = stdout(&run_ok(fairbench().args(["explain", "go-tpc"])));
    assert!(text.contains("--tpcc-shape go-tpc") && text.contains("IN list"), "{text}");
    let text = stdout(&run_ok(fairbench().args(["explain", "sysbench-tpcc"])));
    assert!(text.contains("--tpcc-shape per-item"), "{text}");
    let text = stdout(&run_ok(fairbench().args(["explain", "TPCC-10W-GoTPC"])));
    assert!(text.contains("tpcc-shape=go-tpc") && text.contains("canonical: TPCC-10W-GoTPC"), "{text}");
    let dir = scratch_dir("tpcc-shape-refused");
    let target = format!("sqlite:{}", dir.join("t.sqlite").display());
    let out = run_fail(&mut tpcc("run", &target, &["--tpcc-shape", "procedures"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["--tpcc-shape=procedures", "per-item", "go-tpc"]);
    let out = run_fail(&mut tpcc("run", &target, &["--tpcc-shape", "batched"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["--tpcc-shape", "go-tpc"]);
}
