//! TPC-H at scale factor 0.01 on SQLite, MariaDB and PostgreSQL: dbgen's
//! row counts loaded, the power and throughput tests as two levels with
//! their metrics recomputed from what the run reports, the refresh
//! functions leaving the tables as loaded, every query's answer with the
//! validation parameters equal on the three engines, a query past its time
//! limit cancelled on the server while the run goes on, and bad input.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const SF: &str = "0.01";
const ORDERS: u64 = 15_000;

fn tpch(cmd: &str, server: &Server, extra: &[&str]) -> std::process::Command {
    let mut c = fairbench();
    c.args([cmd, "tpch", "--scale-factor", SF, "--target", &server.url()]).args(extra);
    c
}

/// The answers SQLite gives with the validation parameters, saved once
/// for every test of this file.
fn reference_answers() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch_dir("tpch_reference");
        let lite = Server::Sqlite(dir.join("h.db"));
        run_ok(&mut tpch("prepare", &lite, &[]));
        let answers = dir.join("answers");
        run_ok(tpch("check", &lite, &["--save-answers"]).arg(&answers));
        answers
    })
}

const KINDS: [&str; 24] = ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q12", "Q13", "Q14", "Q15", "Q16", "Q17", "Q18", "Q19", "Q20", "Q21", "Q22", "RF1", "RF2"];

/// Load, both tests, the answers against SQLite's, the tables as loaded
/// after the refresh functions, and a time limit that cancels queries.
fn whole_benchmark(server: Server, name: &str) {
    let answers = reference_answers();
    let dir = scratch_dir(&format!("tpch_{name}"));
    let store = dir.join("r.sqlite");
    run_ok(&mut tpch("cleanup", &server, &[]));
    run_ok(&mut tpch("prepare", &server, &["--threads", "2"]));
    // dbgen's row counts at SF 0.01.
    for (t, n) in [("region", 5), ("nation", 25), ("supplier", 100), ("part", 2000), ("partsupp", 8000), ("customer", 1500), ("orders", ORDERS)] {
        assert_eq!(server.count(&format!("SELECT COUNT(*) FROM {t}")), n, "{t}");
    }
    let lines = server.count("SELECT COUNT(*) FROM lineitem");
    assert_eq!(lines, 60_175, "dbgen's order lines at SF 0.01");
    // The power test and the throughput test of two streams beside the refresh stream.
    run_ok(tpch("run", &server, &["--rand-seed", "7", "--results"]).arg(&store));
    let levels = stored_levels(&store, "last");
    assert_eq!(levels.len(), 2);
    assert_eq!(levels.iter().map(|l| l["summary"]["step"].as_str().unwrap()).collect::<Vec<_>>(), ["power", "throughput"]);
    let (power, through) = (&levels[0], &levels[1]);
    assert_eq!((power["threads"].as_u64(), through["threads"].as_u64()), (Some(1), Some(3)), "one stream, then two query streams and the refresh stream");
    for k in KINDS {
        assert_eq!(level_kind_events(power, k), 1, "{k} in the power test");
        assert_eq!(level_kind_events(through, k), 2, "{k} in the throughput test");
    }
    // Power@Size from the 24 times it reports (each to a tenth of a millisecond),
    // the shortest raised to a thousandth of the longest.
    let secs: Vec<f64> = KINDS.iter().map(|k| level_figure(power, &format!("{k} seconds")).max(0.00005)).collect();
    let floor = secs.iter().cloned().fold(0.0, f64::max) / 1000.0;
    let geo = (secs.iter().map(|s| s.max(floor).ln()).sum::<f64>() / 24.0).exp();
    let p = level_figure(power, "Power@Size");
    let want = 3600.0 * 0.01 / geo;
    assert!((p - want).abs() <= want * 0.03, "Power@Size {p}, from its times {want}\n{power}");
    // Throughput@Size: 2 streams x 22 queries an hour over the test's length, x SF.
    let t = level_figure(through, "Throughput@Size");
    let want = 2.0 * 22.0 * 3600.0 / through["elapsed_s"].as_f64().unwrap() * 0.01;
    assert!((t - want).abs() <= want * 0.02, "Throughput@Size {t}, from the test's length {want}\n{through}");
    let q = level_figure(through, "QphH@Size");
    assert!((q - (p * t).sqrt()).abs() <= 0.1, "QphH@Size {q} is the root of {p} x {t}");
    // RF2 removed what RF1 added.
    assert_eq!(server.count("SELECT COUNT(*) FROM orders"), ORDERS);
    assert_eq!(server.count("SELECT COUNT(*) FROM lineitem"), lines);
    // Every answer equals SQLite's.
    let out = run_ok(tpch("check", &server, &["--answers"]).arg(answers));
    let text = stdout(&out);
    assert_eq!(text.matches(", as expected").count(), 22, "{text}");
    // A time limit of a millisecond: queries cancelled on the server, named, the run completed without a metric.
    let out = run_ok(tpch("run", &server, &["--tests", "power", "--query-timeout", "0.001", "--results"]).arg(&store));
    let l = &stored_levels(&store, "last")[0];
    assert_eq!(l["status"], "completed", "{}", show(&out));
    let timed_out = l["summary"]["figures"]["timed out"].as_str().unwrap_or_else(|| panic!("nothing timed out: {}", show(&out)));
    assert!(timed_out.contains("Q1 (stream 0)") && timed_out.contains("Q9 (stream 0)"), "{timed_out}");
    assert!(l["summary"]["figures"].get("Power@Size").is_none(), "no metric with a query cancelled");
    assert!(l["summary"]["ignored_errors"].as_u64().unwrap() >= 2, "{}", l["summary"]);
    // A refresh left half done by the limit is gone after the next run.
    run_ok(&mut tpch("run", &server, &["--tests", "power", "--queries", "6", "--no-save"]));
    assert_eq!(server.count("SELECT COUNT(*) FROM orders"), ORDERS);
    assert_eq!(server.count("SELECT COUNT(*) FROM lineitem"), lines);
    run_ok(&mut tpch("cleanup", &server, &[]));
}

#[test]
fn the_whole_benchmark_on_sqlite() {
    let dir = scratch_dir("tpch_sqlite_db");
    whole_benchmark(Server::Sqlite(dir.join("h.db")), "sqlite");
}

#[test]
fn the_whole_benchmark_on_mariadb_answers_as_sqlite() {
    whole_benchmark(Server::Mariadb, "mariadb");
}

#[test]
fn the_whole_benchmark_on_postgresql_answers_as_sqlite() {
    whole_benchmark(Server::Postgres, "postgres");
}

/// An answer that differs fails `check`, naming the query, row and column.
#[test]
fn a_wrong_answer_fails_the_check() {
    let answers = reference_answers();
    let dir = scratch_dir("tpch_wrong");
    let wrong = dir.join("answers");
    std::fs::create_dir_all(&wrong).unwrap();
    for e in std::fs::read_dir(answers).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), wrong.join(e.file_name())).unwrap();
    }
    // Q4's first count one higher.
    let q4 = std::fs::read_to_string(wrong.join("q4.out")).unwrap();
    let mut lines: Vec<String> = q4.lines().map(str::to_string).collect();
    let cells: Vec<&str> = lines[1].split('|').collect();
    let bumped = cells[1].parse::<u64>().unwrap() + 1;
    lines[1] = format!("{}|{bumped}", cells[0]);
    std::fs::write(wrong.join("q4.out"), lines.join("\n")).unwrap();
    let lite = Server::Sqlite(answers.parent().unwrap().join("h.db"));
    let out = run_fail(tpch("check", &lite, &["--answers"]).arg(&wrong));
    assert_eq!(out.status.code(), Some(5), "check failed: {}", show(&out));
    assert!(stderr(&out).contains(&format!("Q4's answer differs: row 1, column 2: {} where {bumped} was expected", bumped - 1)), "{}", show(&out));
}

/// Ctrl-C while a query waits on a table another session holds locked:
/// the query is cancelled on the server, and the run ends within two
/// seconds, saving the queries that completed (it once waited for the
/// query in flight, however long it took). The lock comes once the run
/// has started: the power test's first query, Q14, reads no nation, and
/// the first after it that does waits.
#[test]
fn ctrl_c_cancels_the_query_in_flight_on_the_server_and_saves_what_ran() {
    use std::time::Duration;
    mysql_admin("DROP DATABASE IF EXISTS tpch_cut; CREATE DATABASE tpch_cut");
    let u = parse_url(&mysql_url());
    let url = format!("mysql://{}:{}@{}:{}/tpch_cut", u.user, u.password, u.host, u.port.unwrap());
    let tpch = |cmd: &str| {
        let mut c = fairbench();
        c.args([cmd, "tpch", "--scale-factor", SF, "--target", &url]);
        c
    };
    run_ok(&mut tpch("prepare"));
    let count = |q: &str| mysql_admin(q).trim().parse::<u64>().unwrap();
    let waiting = "SELECT COUNT(*) FROM information_schema.processlist WHERE db = 'tpch_cut' AND state LIKE 'Waiting for table%'";
    let store = scratch_dir("tpch_cut").join("r.sqlite");
    let mut run = watch::Watched::spawn(tpch("run").args(["--tests", "power", "--refresh", "off", "--results"]).arg(&store));
    run.wait_for(Duration::from_secs(60), |l| l.contains("Threads started!"));
    let held = mysql_holding("tpch_cut", "LOCK TABLES nation WRITE;");
    assert!(eventually(Duration::from_secs(30), || count(waiting) == 1), "no query waited on the lock");
    let (code, took, out) = run.interrupt();
    assert!(took < Duration::from_secs(2), "stopped {took:?} after Ctrl-C: {out}");
    assert_eq!(code, Some(130), "{out}");
    // The server ends a killed query when its thread next looks: soon, where without the cancel
    // it would wait on the lock for as long as the lock is held.
    assert!(eventually(Duration::from_secs(5), || count(waiting) == 0), "the query still runs on the server");
    drop(held);
    // The power test's first query (Q14) completed; the one cancelled is not a time limit.
    let power = &stored_levels(&store, "last")[0];
    let f = &power["summary"]["figures"];
    assert!(level_figure(power, "Q14 seconds") > 0.0, "{f}");
    assert!(f.get("timed out").is_none(), "{f}");
    mysql_admin("DROP DATABASE tpch_cut");
}

#[test]
fn bad_tpch_options_are_refused_in_one_line() {
    let dir = scratch_dir("tpch_bad");
    let target = format!("sqlite://{}", dir.join("x.db").display());
    for (args, says) in [
        (vec!["--scale-factor", "0.001"], vec!["--scale-factor", "0.01 to 1000"]),
        (vec!["--queries", "1,23"], vec!["'23' is no query"]),
        (vec!["--tests", "speed"], vec!["--tests", "power"]),
        (vec!["--query-timeout", "-1"], vec!["--query-timeout"]),
        (vec!["--rate", "10"], vec!["--rate", "--streams"]),
    ] {
        let out = run_fail(fairbench().args(["run", "tpch", "--target", &target, "--no-save"]).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        assert_one_line_error(&out, &says);
    }
}

/// The audit names each option that made two runs do different work (the
/// query set, the parameters' seed), and says nothing of the kind for two
/// runs of one command.
#[test]
fn the_audit_flags_runs_of_different_queries_or_parameters() {
    let lite = Server::Sqlite(reference_answers().parent().unwrap().join("h.db"));
    let store = scratch_dir("tpch_audit").join("r.sqlite");
    // Read only (no refresh), so the reference's tables stay as they are.
    for extra in [&["--queries", "6"][..], &["--queries", "6"], &["--queries", "6,14", "--param-seed", "9"]] {
        run_ok(tpch("run", &lite, &["--tests", "power", "--refresh", "off", "--results"]).arg(&store).args(extra));
    }
    let rules = |a: &str, b: &str| -> Vec<(String, String)> {
        let v: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["audit", "--json", a, b, "--results"]).arg(&store)))).unwrap();
        let fs = v.as_array().cloned().or_else(|| v["findings"].as_array().cloned()).unwrap_or_else(|| panic!("{v}"));
        fs.iter().filter(|f| f["rule"] == "workload-options-mismatch").map(|f| (f["message"].as_str().unwrap().to_string(), f["severity"].as_str().unwrap().to_string())).collect()
    };
    assert_eq!(rules("1", "2"), vec![], "two runs of one command");
    let found = rules("1", "3");
    let messages: Vec<&str> = found.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(messages, ["--queries differs between the runs: they did different work", "--param-seed differs between the runs: they did different work"], "{found:?}");
    assert!(found.iter().all(|(_, s)| s == "warning"), "{found:?}");
    // The report draws each query's mean latency as a bar per run, as the browser shows it.
    let dir = store.parent().unwrap();
    let page = dir.join("report.html");
    run_ok(fairbench().args(["report", "1", "3", "--results"]).arg(&store).arg("-o").arg(&page));
    let out = chromium(&["--dump-dom"], &page, &dir.join("profile"));
    assert!(out.status.success(), "{}", show(&out));
    let dom = stdout(&out);
    let svg = dom.split("data-chart=\"kinds-0\"").nth(1).unwrap_or_else(|| panic!("no per-query bars"));
    let svg = &svg[..svg.find("</svg>").unwrap()];
    let row = |q: &str| svg.split(&format!("data-name=\"{q}\"")).nth(1).map(|r| r[..r.find("</g>").unwrap()].matches("class=\"bar\"").count());
    assert_eq!((row("Q6"), row("Q14")), (Some(2), Some(1)), "Q6 in both runs, Q14 in run 3 only");
}
