//! `--profile-server` on a real server with Linux perf: the server's
//! on-CPU stacks over each level's measured time are stored folded with
//! the run, summed up in the summary, drawn as a flame graph in the HTML
//! report (a differential one against the first run), and the graphs load
//! in a real browser. Without perf the run is refused in one line before
//! it starts; a Ctrl-C'ed profiled run still stops within 2 seconds.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The stored run's first level, from `results export`.
fn level(store: &Path, run: &str) -> Value {
    stored_levels(store, run).swap_remove(0)
}

/// The documents of the report's flame graph frames, unescaped.
fn flames(html: &str) -> Vec<String> {
    html.split("<iframe class=\"flame\"")
        .skip(1)
        .filter_map(|f| f.split_once("srcdoc=\"").map(|(_, rest)| rest.split('"').next().unwrap_or_default().to_string()))
        .map(|s| s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&"))
        .collect()
}

/// One profiled run at a time: the Ctrl-C test waits for a perf recording and then for none
/// left, and another test's perf would answer both for it.
static PERF: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn a_profiled_run_stores_its_stacks_and_the_report_draws_them_and_the_difference() {
    let _one = PERF.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("profile-server");
    let store = dir.join("r.sqlite");
    let size = ["--tables", "1", "--table-size", "2000", "--table-name", "prof", "--threads", "2"];
    let _ = fairbench().args(["cleanup", "oltp_read_only", "--target", &mysql_url()]).args(size).output();
    run_ok(fairbench().args(["prepare", "oltp_read_only", "--target", &mysql_url()]).args(size));
    for w in ["oltp_point_select", "oltp_read_only"] {
        let out = run_ok(fairbench().args(["run", w, "--target", &mysql_url(), "--time", "3", "--warmup-time", "1", "--profile-server", "--results"]).arg(&store).args(size));
        let text = stdout(&out);
        assert!(text.lines().any(|l| l.trim_start().starts_with("server on CPU at 2 threads (perf): ") && l.contains('%')), "{text}");
    }
    let l = level(&store, "1");
    let folded = l["profile"]["folded"].as_str().unwrap_or_else(|| panic!("no profile stored: {l}"));
    let samples: f64 = folded.lines().filter_map(|s| s.rsplit_once(' ')?.1.parse::<f64>().ok()).sum();
    // 99 Hz on at most 2 CPUs over about 3 s of measured time, and most of it the server's.
    assert!(samples > 50.0 && samples < 99.0 * 2.0 * 5.0, "{samples} samples");
    assert!(folded.lines().any(|s| s.starts_with("mariadbd;")), "the server's own stacks: {folded}");

    let html = dir.join("report.html");
    run_ok(fairbench().args(["report", "1", "2", "--results"]).arg(&store).arg("-o").arg(&html));
    let page = std::fs::read_to_string(&html).unwrap();
    let graphs = flames(&page);
    assert_eq!(graphs.len(), 3, "each run's graph and run 2's against run 1's");
    assert!(graphs[2].contains("run 2 against run 1 at 2 threads"), "{}", &graphs[2][..400.min(graphs[2].len())]);
    // The differential graph loads in a browser: its frames, its script.
    let svg = dir.join("diff.svg");
    std::fs::write(&svg, &graphs[2]).unwrap();
    let dom = stdout(&chromium(&["--dump-dom"], &svg, &dir.join("chromium")));
    assert!(dom.contains("<svg") && dom.contains("mariadbd") && dom.contains("<title>"), "{}", &dom[..500.min(dom.len())]);
    run_ok(fairbench().args(["cleanup", "oltp_read_only", "--target", &mysql_url()]).args(size));
}

#[test]
fn without_perf_a_profiled_run_is_refused_in_one_line_before_it_starts() {
    let dir = scratch_dir("profile-no-perf");
    let target = format!("sqlite:{}", dir.join("db.sqlite").display());
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &target, "--table-size", "100"]));
    // The size it was prepared with: a table that does not match is refused first, for its own reason.
    let out = run_fail(
        fairbench()
            .args(["run", "oltp_point_select", "--target", &target, "--table-size", "100", "--time", "1", "--profile-server", "--results"])
            .arg(dir.join("r.sqlite"))
            .env("PATH", dir.join("empty")),
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["--profile-server", "perf", "apt-get install linux-perf"]);
}

#[test]
fn a_profiled_run_stops_within_two_seconds_of_ctrl_c_and_says_its_profile_was_not_folded() {
    let _one = PERF.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("profile-ctrl-c");
    let store = dir.join("r.sqlite");
    let size = ["--tables", "1", "--table-size", "1000", "--table-name", "profc", "--threads", "2"];
    let _ = fairbench().args(["cleanup", "oltp_point_select", "--target", &pg_url()]).args(size).output();
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &pg_url()]).args(size));
    let mut c = fairbench();
    c.args(["run", "oltp_point_select", "--target", &pg_url(), "--time", "60", "--profile-server", "--results"]).arg(&store).args(size);
    // Once perf records the server. (perf runs by its full path: a check for lines starting
    // with "perf record" matched none, and "no perf is left" below held whatever happened.)
    let perfs = || String::from_utf8_lossy(&Command::new("ps").args(["-eo", "args"]).output().unwrap().stdout).lines().filter(|l| l.contains("perf record") && l.contains("fairbench-perf")).count();
    let (_, took, _) = interrupt_when(&mut c, || perfs() > 0);
    assert!(took < Duration::from_secs(2), "stopped {took:?} after Ctrl-C");
    let l = level(&store, "1");
    assert!(l["profile"]["error"].as_str().is_some_and(|e| e.contains("the run was stopped")), "{}", l["profile"]);
    // No perf is left recording the server.
    assert!(eventually(Duration::from_secs(3), || perfs() == 0), "a perf still runs");
    run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", &pg_url()]).args(size));
}
