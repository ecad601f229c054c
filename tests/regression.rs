//! One test per bug fixed, named after what broke, with a comment saying what it was.
//! Each test fails on the code before its fix.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

// Embedded SQLite (issue 14): writers take turns, and the process's CPU is client and engine.

/// A temporary directory for one embedded run: the SQLite file and the results store.
fn lite_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("fb-reg-{name}-")).tempdir().expect("cannot create a temp dir")
}

/// `fairbench run` with JSON output on a fresh SQLite file in `dir`: (intervals, summary).
fn lite_json_run(dir: &Path, args: &[&str]) -> (Vec<Value>, Value) {
    let target = format!("sqlite:{}", dir.join("bench.sqlite").display());
    let mut cmd = fairbench();
    cmd.current_dir(dir).args(["run", "--target", &target, "--output", "json"]).args(args);
    let out = run_within(&mut cmd, Duration::from_secs(300));
    assert!(out.status.success(), "status {}\n{}\n{}", out.status, stdout(&out), stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let (summary, intervals): (Vec<Value>, Vec<Value>) = lines.into_iter().partition(|v| v["type"] == "summary");
    assert_eq!(summary.len(), 1, "one summary expected\n{}", stdout(&out));
    (intervals, summary.into_iter().next().unwrap())
}

// Four SQLite writers queued in SQLite's busy handler, whose sleep-and-poll back-off is
// unfair: one writer waited 3 to 10 s while the others went again and again, so the run
// reported max latencies of seconds and a per-thread events stddev of 45 to 110% of the mean
// (the latency measured the back-off, not the work). Writers now take turns in arrival order.
#[test]
fn sqlite_writers_starved_in_the_busy_handler() {
    let dir = lite_dir("turns");
    let (_, s) = lite_json_run(dir.path(), &["oltp_read_write", "--threads", "4", "--time", "10", "--table-size", "10000"]);
    assert_eq!(s["status"], "completed", "{s:#}");
    let max = s["latency_ms"]["max"].as_f64().unwrap();
    let f = &s["fairness"];
    let (avg, sd) = (f["events_avg"].as_f64().unwrap(), f["events_stddev"].as_f64().unwrap());
    assert!(avg > 0.0, "no events\n{s:#}");
    // Before: 3,000 to 10,000 ms. After: tens of ms (one commit's fsync per writer ahead).
    assert!(max < 1000.0, "max latency {max} ms: a writer waited seconds for the write lock\n{s:#}");
    assert!(sd < 0.10 * avg, "events per thread {avg:.1} +- {sd:.1}: the writers did not take turns fairly\n{s:#}");
}
