//! Whether a difference is real, through the real binary: `--repeat` series
//! and their summary, configurations alternated run by run and compared as
//! series (`tag:NAME`), A/A and A/B comparisons, the regression gate with a
//! baseline file, its markdown and JUnit outputs, and Ctrl-C during a series.
//!
//! SQLite tests use their own directory; server tests use the servers of
//! `scripts/test.sh` with table names of their own.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Held by the tests whose figures are judged against a rate the machine must
/// deliver and by the heaviest test beside them: run together on 2 cores, B
/// fell short of the rate it was held to (32,209 of 32,790 events/s) and the
/// interval missed the ratio it was built to hold by 0.0004.
static MACHINE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// fairbench in `dir`, where its SQLite database and results store live.
fn fb(dir: &Path) -> Command {
    let mut c = fairbench();
    c.current_dir(dir);
    c
}

fn sqlite_dir(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    run_ok(fb(&dir).args(["prepare", "oltp_point_select", "--table-size", "1000"]));
    dir
}

fn export(dir: &Path, what: &str) -> Value {
    serde_json::from_str(&stdout(&run_ok(fb(dir).args(["results", "export", what])))).unwrap()
}

/// One short run of the point selects on SQLite with 2 clients, tagged.
fn point_selects(dir: &Path, tag: &str, extra: &[&str]) {
    run_ok(fb(dir).args(["run", "oltp_point_select", "--threads", "2", "--time", "0.5", "--table-size", "1000", "--no-prepare", "--tag", tag]).args(extra));
}

/// The throughput verdict of `compare A B --format json` (the first run against the second).
fn throughput_line(dir: &Path, a: &str, b: &str) -> Value {
    let v: Value = serde_json::from_str(&stdout(&run_ok(fb(dir).args(["compare", a, b, "--format", "json"])))).unwrap();
    v["significance"][0]["levels"].as_array().unwrap().iter().find(|l| l["metric"] == "throughput").cloned().unwrap_or_else(|| panic!("no throughput line: {v}"))
}

/// Ten rounds, each alternating a configuration A, the same configuration
/// again (A') and B, capped at a third of A's rate, six runs each, in the
/// six orders of the three (so A and A' each run first, second and third
/// twice, after each of the others: a run's place in the cycle, or a cycle
/// in step with other load on the machine, favours neither). A against A'
/// is flagged in at most two rounds of ten: at the test's 5% level a correct
/// test flags half a round in ten on average, and three or more in 1.2% of
/// tries, so a failure here means the false alarms are too many, not bad
/// luck. B against A is flagged in every round and the gate fails on it
/// and passes on A'. B's interval holds the rate B was held to over A's
/// median in all but at most two rounds: a 95% interval misses in one round
/// of twenty, and three misses or more in ten come by chance 1.2% of the
/// time. (When every run drew the same arrivals, B fell 1% short of its
/// rate run after run, and a steady round's narrow interval missed.)
#[test]
fn a_a_is_rarely_significant_and_a_b_always() {
    let _alone = MACHINE.lock().unwrap_or_else(|e| e.into_inner());
    let dir = sqlite_dir("aa-ab");
    point_selects(&dir, "calibrate", &[]);
    let a_tps = export(&dir, "last")["runs"][0]["levels"][0]["tps"].as_f64().unwrap();
    let rate = (a_tps / 3.0).round();
    let rate_arg = rate.to_string();
    let mut aa_flagged = Vec::new();
    let mut ab_missed = Vec::new();
    let mut gate_aa_failed = 0;
    for k in 0..10 {
        for order in SIX_ORDERS {
            for which in order {
                match which {
                    'a' => point_selects(&dir, &format!("a{k}"), &[]),
                    'A' => point_selects(&dir, &format!("a2{k}"), &[]),
                    _ => point_selects(&dir, &format!("b{k}"), &["--rate", &rate_arg]),
                }
            }
        }
        let (a, a2, b) = (format!("tag:a{k}"), format!("tag:a2{k}"), format!("tag:b{k}"));
        let aa = throughput_line(&dir, &a, &a2);
        assert_eq!(aa["repetitions"], serde_json::json!([6, 6]), "{aa}");
        if aa["significant"] == true {
            aa_flagged.push(aa.to_string());
        }
        let ab = throughput_line(&dir, &a, &b);
        // The figures, for whoever reads the test's output (--nocapture).
        let ci = |v: &Value| format!("{:.3} to {:.3}", v["ci95"][0].as_f64().unwrap_or(f64::NAN), v["ci95"][1].as_f64().unwrap_or(f64::NAN));
        let num = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        eprintln!("round {k}: A/A ratio {:.3} (95% CI {}, p {:.3}); A/B ratio {:.3} (95% CI {}), B held to {rate} events/s", num(&aa["ratio"]), ci(&aa), num(&aa["p"]), num(&ab["ratio"]), ci(&ab));
        assert_eq!(ab["significant"], true, "round {k}: B at a third of the rate not flagged: {ab}");
        let truth = rate / ab["baseline_median"].as_f64().unwrap();
        let (lo, hi) = (ab["ci95"][0].as_f64().unwrap(), ab["ci95"][1].as_f64().unwrap());
        if !(lo <= truth && truth <= hi) {
            ab_missed.push(format!("round {k}: the interval {lo:.3}..{hi:.3} misses the true ratio {truth:.3}: {ab}"));
        }
        let gate = |new: &str| fb(&dir).args(["compare", "--baseline", &a, new, "--max-regression", "5%", "--metric", "throughput"]).output().unwrap().status.code();
        assert_eq!(gate(&b), Some(1), "round {k}: the gate passed B at a third of the rate");
        if gate(&a2) != Some(0) {
            gate_aa_failed += 1;
        }
    }
    assert!(aa_flagged.len() <= 2, "A against itself flagged in {} rounds of 10:\n{}", aa_flagged.len(), aa_flagged.join("\n"));
    assert!(gate_aa_failed <= 2, "the gate failed A against itself in {gate_aa_failed} rounds of 10");
    assert!(ab_missed.len() <= 2, "the A/B interval missed the true ratio in {} rounds of 10:\n{}", ab_missed.len(), ab_missed.join("\n"));
}

/// The six orders of A ('a'), A' ('A') and B ('b'), one per repetition.
const SIX_ORDERS: [[char; 3]; 6] = [['a', 'A', 'b'], ['A', 'b', 'a'], ['b', 'a', 'A'], ['A', 'a', 'b'], ['a', 'b', 'A'], ['b', 'A', 'a']];

/// A series kept as a file (`results export`) is the baseline of the gate:
/// a slowed series fails it (exit 1) with a markdown table and a JUnit
/// report that parses as XML, one test case per level and metric.
#[test]
fn gate_against_an_exported_baseline_file() {
    let dir = sqlite_dir("gate-file");
    let series = |extra: &[&str]| {
        run_ok(fb(&dir).args(["run", "oltp_point_select", "--threads", "2", "--time", "0.5", "--table-size", "1000", "--no-prepare", "--repeat", "3"]).args(extra));
        export(&dir, "last")["runs"][0]["id"].as_i64().unwrap().to_string()
    };
    let base_id = series(&[]);
    let base_file = dir.join("baseline.json");
    std::fs::write(&base_file, stdout(&run_ok(fb(&dir).args(["results", "export", &base_id])))).unwrap();
    let a_tps = export(&dir, &base_id)["runs"][0]["levels"][0]["tps"].as_f64().unwrap();
    // A tenth of the baseline's rate: a third was not always sustained on a busy host (a
    // repetition fell short, its throughput spread the interval over zero: p = 0.15).
    let slow = series(&["--rate", &((a_tps / 10.0).round()).to_string()]);
    let junit = dir.join("junit.xml");
    let out = run_fail(fb(&dir).args(["compare", "--baseline", base_file.to_str().unwrap(), &slow, "--max-regression", "5%", "--format", "markdown", "--junit", junit.to_str().unwrap()]));
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let md = stdout(&out);
    assert!(md.contains("| clients | metric | baseline (median) | new (median) | change | 95% CI | p | repetitions | verdict |"), "{md}");
    assert!(md.lines().any(|l| l.starts_with("| 2 | throughput |") && l.ends_with("| 3 vs 3 | **regression** |")), "{md}");
    assert!(stderr(&out).contains("regression beyond 5.0% against baseline run"), "{}", show(&out));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("JUnit report is not XML: {e}\n{xml}"));
    let cases: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("testcase")).collect();
    let names: Vec<&str> = cases.iter().map(|c| c.attribute("name").unwrap()).collect();
    assert_eq!(names, ["2 clients throughput", "2 clients p99"], "{xml}");
    assert!(cases[0].children().any(|n| n.has_tag_name("failure")), "{xml}");
    // The baseline against its own record: nothing to fail.
    run_ok(fb(&dir).args(["compare", "--baseline", base_file.to_str().unwrap(), &base_id, "--max-regression", "5%"]));
}

/// A sweep's repetitions interleave unless told otherwise; the summary
/// gives each level's median, interval and spread, and `results show` says
/// which repetition each level was.
#[test]
fn repetitions_interleave_and_are_summarised() {
    let dir = sqlite_dir("series");
    let out = run_ok(fb(&dir).args(["run", "oltp_point_select", "--threads", "1,2", "--repeat", "2", "--time", "0.5", "--table-size", "1000", "--no-prepare"]));
    let text = stdout(&out);
    assert!(text.contains("Repetitions: up to 2 per level, interleaved"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("1    2 ")) && text.lines().any(|l| l.trim_start().starts_with("2    2 ")), "{text}");
    let threads = |v: &Value| v["runs"][0]["levels"].as_array().unwrap().iter().map(|l| l["threads"].as_u64().unwrap()).collect::<Vec<_>>();
    assert_eq!(threads(&export(&dir, "last")), [1, 2, 1, 2]);
    // The report's scaling curve: one point per level at the median, with its interval as an error bar.
    run_ok(fb(&dir).args(["report", "last", "-o", "series.html"]));
    let html = std::fs::read_to_string(dir.join("series.html")).unwrap();
    let tps_chart = &html[html.find("data-chart=\"scaling-tps\"").expect("no scaling chart")..];
    let tps_chart = &tps_chart[..tps_chart.find("</svg>").unwrap()];
    assert_eq!(tps_chart.matches("class=\"errorbar\"").count(), 2, "{tps_chart}");
    assert!(tps_chart.contains("data-n=\"2\""), "one point per level, not per repetition: {tps_chart}");
    let show = stdout(&run_ok(fb(&dir).args(["results", "show", "last"])));
    assert!(show.contains("Level 2 (1 threads, repetition 2 of 2, completed)"), "{show}");
    run_ok(fb(&dir).args(["run", "oltp_point_select", "--threads", "1,2", "--repeat", "2", "--repeat-order", "grouped", "--time", "0.5", "--table-size", "1000", "--no-prepare"]));
    assert_eq!(threads(&export(&dir, "last")), [1, 1, 2, 2]);
    // JSON lines end with the series object, then the stored run's hardware object.
    let out = run_ok(fb(&dir).args(["run", "oltp_point_select", "--threads", "2", "--repeat", "2", "--time", "0.5", "--table-size", "1000", "--no-prepare", "--output", "json"]));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.last().unwrap().contains("\"type\":\"efficiency\""), "{}", lines.last().unwrap());
    let last: Value = serde_json::from_str(lines[lines.len() - 2]).unwrap();
    assert_eq!((last["type"].as_str(), last["levels"][0]["tps"]["n"].as_u64()), (Some("series"), Some(2)), "{last}");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/run.schema.json")).unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for line in stdout(&out).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if let Err(e) = validator.validate(&v) {
            panic!("a line does not match schema/run.schema.json: {e}\n{line}");
        }
    }
}

/// Ctrl-C during the third repetition: the two completed are kept and the
/// summary says so, within 2 seconds.
#[test]
fn ctrl_c_during_a_repetition_keeps_the_completed_ones() {
    let dir = sqlite_dir("series-interrupt");
    let started = |l: &str| l == "Threads started!";
    let (code, took, out) =
        interrupt_after_lines(fb(&dir).args(["run", "oltp_point_select", "--threads", "2", "--repeat", "5", "--time", "1", "--table-size", "1000", "--no-prepare"]), &[&started, &started, &started]);
    assert_eq!(code, Some(130), "{out}");
    assert!(took < Duration::from_secs(2), "stopped {took:?} after Ctrl-C");
    let line = out.lines().find(|l| l.contains(" of 5 repetitions completed; every completed one is stored.")).unwrap_or_else(|| panic!("no count of completed repetitions:\n{out}"));
    let done: usize = line.split_whitespace().next().unwrap().parse().unwrap();
    assert!((1..5).contains(&done), "{line}");
    let levels = export(&dir, "last")["runs"][0]["levels"].as_array().unwrap().clone();
    assert_eq!(levels.iter().filter(|l| l["status"] == "completed").count(), done, "{levels:?}");
}

/// Series on both servers and SQLite, in every workload family:
/// `--repeat` is the runner's, not a workload's.
#[test]
fn series_run_on_every_engine_and_family() {
    let _alone = MACHINE.lock().unwrap_or_else(|e| e.into_inner());
    let series = |dir: &Path, args: &[&str]| {
        let out = run_ok(fb(dir).args(["run"]).args(args).args(["--threads", "2", "--repeat", "2", "--time", "1"]));
        assert!(stdout(&out).contains("Repetitions: up to 2 per level"), "{args:?}\n{}", show(&out));
        assert_eq!(export(dir, "last")["runs"][0]["levels"].as_array().unwrap().len(), 2, "{args:?}");
    };
    for url in [mysql_url(), pg_url()] {
        let dir = scratch_dir("series-server");
        let base = ["oltp_read_only", "--target", url.as_str(), "--tables", "1", "--table-size", "500", "--table-name", "sig_series_"];
        run_ok(fb(&dir).args(["prepare"]).args(base));
        series(&dir, &base);
        run_ok(fb(&dir).args(["cleanup"]).args(base));
    }
    let lua = "/usr/share/sysbench/oltp_point_select.lua";
    for (prepare, run) in [
        (vec!["tpcc", "--warehouses", "1"], vec!["tpcc", "--warehouses", "1"]),
        // 2,000 objects: the default 100,000 took 200 s to load on SQLite in a debug build.
        (vec!["dbstress", "--obj-table-size", "2000"], vec!["dbstress", "--obj-table-size", "2000"]),
        (with_few_links(&["linkbench", "--maxid1", "2001"]), vec!["linkbench", "--maxid1", "2001"]),
        (vec![lua, "--tables", "1", "--table-size", "200"], vec![lua, "--tables", "1", "--table-size", "200"]),
        (vec!["select-only", "--scale", "1"], vec!["select-only", "--scale", "1"]),
    ] {
        let dir = scratch_dir("series-family");
        run_ok(fb(&dir).args(["prepare"]).args(&prepare));
        series(&dir, &run);
    }
}

#[test]
fn bad_series_input_is_one_line() {
    let dir = scratch_dir("series-bad");
    for (args, mention) in [
        (vec!["run", "--repeat", "0"], "--repeat"),
        (vec!["run", "--repeat-order", "random"], "--repeat-order"),
        (vec!["compare", "1"], "two runs"),
        (vec!["compare", "1", "2", "--max-regression", "lots"], "--max-regression"),
        (vec!["compare", "1", "2", "--format", "html"], "--format"),
    ] {
        let out = run_fail(fb(&dir).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        assert_one_line_error(&out, &[mention]);
    }
}

/// `run --target A --target B --repeat 3`: the two configurations run in
/// turns (A, B, A, B, A, B), each run stored with its configuration's tag,
/// and the series compared at the end; Ctrl-C keeps the completed runs.
#[test]
fn two_targets_alternate_and_are_compared() {
    let dir = scratch_dir("alternate");
    let (a, b) = (format!("sqlite:{}", dir.join("a.sqlite").display()), format!("sqlite:{}", dir.join("b.sqlite").display()));
    for t in [&a, &b] {
        run_ok(fb(&dir).args(["prepare", "oltp_point_select", "--table-size", "1000", "--target", t]));
    }
    let args = ["run", "oltp_point_select", "--table-size", "1000", "--threads", "2", "--time", "0.5", "--no-prepare", "--target", &a, "--target", &b, "--repeat", "3", "--tag", "ab"];
    let out = run_ok(fb(&dir).args(args));
    let text = stdout(&out);
    let turns: Vec<&str> = text.lines().filter(|l| l.starts_with("==== ") && l.contains("configuration")).collect();
    assert_eq!(turns.len(), 6, "{text}");
    for (k, l) in turns.iter().enumerate() {
        let want = if k % 2 == 0 { "configuration A" } else { "configuration B" };
        assert!(l.contains(want) && l.contains(&format!("{} of 6", k + 1)), "turn {k}: {l}\n{text}");
    }
    assert!(text.contains("==== The series compared: fairbench compare tag:ab/A tag:ab/B ===="), "{text}");
    assert!(text.contains("Run ") && text.contains("2 clients, throughput: "), "{text}");
    let all: Value = serde_json::from_str(&stdout(&run_ok(fb(&dir).args(["results", "export"])))).unwrap();
    let tags: Vec<String> = all["runs"].as_array().unwrap().iter().map(|r| r["tag"].as_str().unwrap().to_string()).collect();
    assert_eq!(tags, ["ab/A", "ab/B", "ab/A", "ab/B", "ab/A", "ab/B"]);
    // Later, the same comparison from the store.
    let again = stdout(&run_ok(fb(&dir).args(["compare", "tag:ab/A", "tag:ab/B"])));
    assert!(again.contains("[3 vs 3 repetitions]"), "{again}");
    // And as a report: one point per level with its interval, and the verdicts.
    run_ok(fb(&dir).args(["report", "tag:ab/A", "tag:ab/B", "-o", "ab.html"]));
    let html = std::fs::read_to_string(dir.join("ab.html")).unwrap();
    assert!(html.contains("Is the difference real?") && html.contains("<td>3 vs 3</td>"), "no verdicts in the report");
    assert!(html.matches("class=\"errorbar\"").count() >= 2, "no error bars in the report");
    // Ctrl-C in the second run: the first is kept, and the line says so.
    let (code, took, out) = interrupt_after_lines(
        fb(&dir).args(["run", "oltp_point_select", "--table-size", "1000", "--threads", "2", "--time", "2", "--no-prepare", "--target", &a, "--target", &b, "--repeat", "2", "--tag", "cut"]),
        &[&|l: &str| l.starts_with("==== 2 of 4:"), &|l: &str| l == "Threads started!"],
    );
    assert_eq!(code, Some(130), "{out}");
    assert!(took < Duration::from_secs(3), "stopped {took:?} after Ctrl-C");
    assert!(out.contains("Interrupted: 1 of 4 runs completed and stored (tags cut/A ...)."), "{out}");
}

/// Alternation across engines: MariaDB and PostgreSQL in turns, each with
/// its own tables, compared at the end (the audit says they differ).
#[test]
fn mariadb_and_postgresql_alternate() {
    let dir = scratch_dir("alternate-servers");
    let (my, pg) = (mysql_url(), pg_url());
    let size = ["--tables", "1", "--table-size", "500", "--table-name", "sig_alt_"];
    for url in [&my, &pg] {
        run_ok(fb(&dir).args(["prepare", "oltp_read_only", "--target", url]).args(size));
    }
    let out = run_ok(fb(&dir).args(["run", "oltp_read_only", "--target", &my, "--target", &pg, "--threads", "2", "--time", "1", "--repeat", "2", "--tag", "engines"]).args(size));
    let text = stdout(&out);
    assert_eq!(text.lines().filter(|l| l.starts_with("==== ") && l.contains("configuration")).count(), 4, "{text}");
    assert!(text.contains("==== The series compared: fairbench compare tag:engines/A tag:engines/B ===="), "{text}");
    assert!(text.contains("2 clients, throughput: ") && text.contains("[2 vs 2 repetitions]"), "{text}");
    let engines: Vec<String> =
        serde_json::from_str::<Value>(&stdout(&run_ok(fb(&dir).args(["results", "export"])))).unwrap()["runs"].as_array().unwrap().iter().map(|r| r["engine"].as_str().unwrap().to_string()).collect();
    assert_eq!(engines, ["mysql", "postgres", "mysql", "postgres"]);
    for url in [&my, &pg] {
        run_ok(fb(&dir).args(["cleanup", "oltp_read_only", "--target", url]).args(size));
    }
}

/// `results changes` over a stored series: eleven runs held to one rate are an A/A series, with
/// no change point; five more at half the rate (the planted regression) make one, found at the
/// first of them, which the CI gate fails on (exit 1) while a larger limit passes.
#[test]
fn change_points_find_the_planted_regression_and_none_in_an_a_a_series() {
    let dir = sqlite_dir("changes");
    let at = |rate: &str| point_selects(&dir, "cp", &["--rate", rate, "--arrivals", "even"]);
    let changes = |extra: &[&str]| fb(&dir).args(["results", "changes", "--json"]).args(extra).output().unwrap();
    for _ in 0..11 {
        at("400");
    }
    let out = changes(&[]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["points"].as_array().unwrap().len(), 11, "{v}");
    assert_eq!(v[0]["changes"], serde_json::json!([]), "{v}");
    for _ in 0..5 {
        at("200");
    }
    let out = changes(&["--fail-on-regression", "20%"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = v[0]["changes"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{v}");
    assert_eq!(found[0]["at"], 11, "{v}");
    let rel = found[0]["relative"].as_f64().unwrap();
    assert!((rel + 0.5).abs() < 0.05 && found[0]["p"].as_f64().unwrap() < 0.01, "{v}");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("regressed beyond 20.0%"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(changes(&["--fail-on-regression", "60%"]).status.code(), Some(0));
    let text = stdout(&run_ok(fb(&dir).args(["results", "changes"])));
    assert!(text.contains("at point 12") && text.contains("worse"), "{text}");
}
