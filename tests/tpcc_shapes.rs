//! TPC-C's statement shapes (`--tpcc-shape`): go-tpc's lists and HammerDB's stored procedures
//! beside sysbench-tpcc's statement per order line, on MariaDB, PostgreSQL and SQLite (which has
//! no procedures, and says so), each passing `check`; the shape in the
//! summary, the label and the store; a comparison of runs whose shapes differ flagged; `explain`
//! naming the shape another tool sends.

mod common;

use common::*;
use serde_json::Value;

/// The tables' prefix of the tests that share a server at once.
const PREFIX: &str = "shp";

fn tpcc(cmd: &str, target: &str, extra: &[&str]) -> std::process::Command {
    tpcc_in(PREFIX, cmd, target, extra)
}

fn tpcc_in(prefix: &str, cmd: &str, target: &str, extra: &[&str]) -> std::process::Command {
    let mut c = fairbench();
    c.args([cmd, "tpcc", "--target", target, "--warehouses", "1", "--tpcc-prefix", prefix]).args(extra);
    c
}

/// A run's JSON summary (its last line).
fn summary(target: &str, shape: &str, extra: &[&str]) -> Value {
    summary_in(PREFIX, target, shape, extra)
}

fn summary_in(prefix: &str, target: &str, shape: &str, extra: &[&str]) -> Value {
    let out = run_ok(&mut tpcc_in(prefix, "run", target, &[&["--tpcc-shape", shape, "--threads", "2", "--time", "3", "--output", "json"][..], extra].concat()));
    let text = stdout(&out);
    serde_json::from_str(text.lines().last().unwrap()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn check_passes(target: &str) {
    check_passes_in(PREFIX, target)
}

fn check_passes_in(prefix: &str, target: &str) {
    let text = stdout(&run_ok(&mut tpcc_in(prefix, "check", target, &[])));
    assert!(text.contains("All conditions hold.") && !text.contains("FAIL"), "{text}");
}

/// go-tpc's shape sends about 15 statements per transaction where sysbench-tpcc's sends about
/// 29 (14.6 and 28.6 measured on SQLite), HammerDB's procedures one, and the data stays
/// consistent under each. The data is prepared without procedures, so the run creates them.
#[test]
fn each_shape_sends_its_statements_and_passes_check_on_mariadb_postgres_and_sqlite() {
    let dir = scratch_dir("tpcc-shapes");
    let lite = format!("sqlite:{}", dir.join("t.sqlite").display());
    for target in [mysql_url(), pg_url(), lite] {
        let _ = tpcc("cleanup", &target, &[]).output();
        run_ok(&mut tpcc("prepare", &target, &["--threads", "2"]));
        let routines = !target.starts_with("sqlite");
        let mut per_trx = Vec::new();
        for (shape, range) in [("go-tpc", 13.0..16.5), ("per-item", 26.0..31.0), ("procedures", 0.99..1.01)] {
            if shape == "procedures" && !routines {
                continue;
            }
            let s = summary(&target, shape, &["--no-save"]);
            let w = &s["workload"];
            assert_eq!(w["shape"], shape, "{target}: {w}");
            let n = w["statements_per_transaction"].as_f64().unwrap_or_else(|| panic!("{target}: {w}"));
            assert!(range.contains(&n), "{target}: {shape} sent {n:.1} statements per transaction, outside {range:?}");
            let new_orders = &w["transactions"][0];
            let (count, rollbacks) = (new_orders["count"].as_u64().unwrap(), new_orders["rollbacks"].as_u64().unwrap());
            assert!(count > 200, "{target}: {shape}: {w}");
            // Two New-Orders that lock the same stock rows in opposite orders may deadlock, as
            // in sysbench-tpcc: such an error is allowed only when it was retried.
            let retried: u64 = w["transactions"].as_array().unwrap().iter().map(|t| t["retries"].as_u64().unwrap()).sum();
            assert!(w["errors"].as_u64() == Some(retried), "{target}: {shape}: errors not retried: {w}");
            // TPC-C's 1% of New-Orders on an unused item, rolled back by the routine itself.
            assert!(rollbacks > 0 && (rollbacks as f64) < 0.04 * count as f64, "{target}: {shape}: {rollbacks} of {count} New-Orders rolled back");
            per_trx.push(n);
            check_passes(&target);
        }
        assert!(per_trx[0] < 0.6 * per_trx[1], "{target}: go-tpc {:.1} against per-item {:.1}", per_trx[0], per_trx[1]);
        run_ok(&mut tpcc("cleanup", &target, &[]));
    }
}

/// `prepare --tpcc-shape procedures` creates the routines with the tables; `cleanup` drops them
/// with the tables, so a run after a new prepare finds and creates them again.
#[test]
fn procedures_are_created_at_prepare_and_dropped_at_cleanup() {
    let p = "shr";
    for target in [mysql_url(), pg_url()] {
        let _ = tpcc_in(p, "cleanup", &target, &[]).output();
        let out = stdout(&run_ok(&mut tpcc_in(p, "prepare", &target, &["--tpcc-shape", "procedures"])));
        assert!(out.contains("Creating the TPC-C stored routines of dataset 1 (shrneword1, ...)"), "{target}: {out}");
        let s = summary_in(p, &target, "procedures", &["--no-save"]);
        assert!(s["workload"]["transactions"][0]["count"].as_u64().unwrap() > 200, "{target}: {}", s["workload"]);
        check_passes_in(p, &target);
        let out = stdout(&run_ok(&mut tpcc_in(p, "cleanup", &target, &[])));
        assert!(out.contains("Dropping TPC-C stored routines"), "{target}: {out}");
        // Dropped: the run's start finds them missing and creates them.
        run_ok(&mut tpcc_in(p, "prepare", &target, &[]));
        let out = stderr(&run_ok(&mut tpcc_in(p, "run", &target, &["--tpcc-shape", "procedures", "--threads", "1", "--time", "1", "--no-save"])));
        assert!(out.contains("Creating the TPC-C stored routines of dataset 1"), "{target}: the run did not create them again: {out}");
        run_ok(&mut tpcc_in(p, "cleanup", &target, &[]));
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
fn explain_names_the_shape_another_tool_sends_and_sqlite_refuses_procedures() {
    let text = stdout(&run_ok(fairbench().args(["explain", "go-tpc"])));
    assert!(text.contains("--tpcc-shape go-tpc") && text.contains("IN list"), "{text}");
    let text = stdout(&run_ok(fairbench().args(["explain", "sysbench-tpcc"])));
    assert!(text.contains("--tpcc-shape per-item"), "{text}");
    let text = stdout(&run_ok(fairbench().args(["explain", "HammerDB"])));
    assert!(text.contains("--tpcc-shape procedures") && text.contains("stored procedure"), "{text}");
    let text = stdout(&run_ok(fairbench().args(["explain", "TPCC-10W-GoTPC"])));
    assert!(text.contains("tpcc-shape=go-tpc") && text.contains("canonical: TPCC-10W-GoTPC"), "{text}");
    let text = stdout(&run_ok(fairbench().args(["explain", "TPCC-10W-Procs"])));
    assert!(text.contains("tpcc-shape=procedures") && text.contains("canonical: TPCC-10W-Procs"), "{text}");
    let dir = scratch_dir("tpcc-shape-refused");
    let target = format!("sqlite:{}", dir.join("t.sqlite").display());
    let out = run_fail(&mut tpcc("run", &target, &["--tpcc-shape", "procedures"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["--tpcc-shape=procedures", "sqlite has no stored procedures", "per-item", "go-tpc"]);
    let out = run_fail(&mut tpcc("run", &target, &["--tpcc-shape", "batched"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["--tpcc-shape", "go-tpc"]);
}
