//! The results store: records written as runs go, killed runs, `results`
//! list/show/export/delete, stalls found in stored intervals, passwords kept out.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn results(store: &Path, args: &[&str]) -> String {
    let mut c = fairbench();
    c.arg("results").args(args).arg("--results").arg(store);
    stdout(&run_ok(&mut c))
}

fn export(store: &Path) -> Value {
    serde_json::from_str(&results(store, &["export", "--json"])).expect("export is JSON")
}

/// Rows of `sql` in the store, read with rusqlite (not through fairbench).
fn count(store: &Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open(store).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_run_killed_with_sigkill_keeps_its_intervals() {
    let dir = scratch_dir("store_kill");
    let store = dir.join("r.sqlite");
    run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", &pg_url(), "--table-name", "sto_kill_"]));
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &pg_url(), "--table-name", "sto_kill_", "--table-size", "1000"]));
    let mut child = fairbench()
        .args(["run", "oltp_point_select", "--target", &pg_url(), "--table-name", "sto_kill_", "--table-size", "1000", "--threads", "2", "--time", "30", "--results"])
        .arg(&store)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill once three intervals are stored (read from the outside, as a user would).
    let t0 = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(200));
        if store.exists() && count(&store, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'intervals'") == 1 && count(&store, "SELECT COUNT(*) FROM intervals") >= 3 {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(25), "no intervals stored after 25 s");
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(status.code().is_none(), "killed by a signal");
    let n = count(&store, "SELECT COUNT(*) FROM intervals WHERE run_id = 1");
    assert!(n >= 3, "{n} intervals");
    assert!(count(&store, "SELECT SUM(events) FROM intervals WHERE run_id = 1") > 0, "the stored intervals carry their events");
    let show = results(&store, &["show", "1"]);
    assert!(show.contains("Status: did not finish"), "{show}");
    assert!(show.contains("not finished"), "{show}");
    assert!(show.lines().filter(|l| l.trim_start().starts_with("[ ")).count() as i64 >= n, "{show}");
    let list = results(&store, &["list"]);
    assert!(list.lines().any(|l| l.trim_start().starts_with("1 ") && l.contains("unfinished")), "{list}");
    // The audit says it too.
    let out = stdout(&run_ok(fairbench().args(["audit", "1", "--results"]).arg(&store)));
    assert!(out.contains("unfinished") && out.contains("did not finish"), "{out}");
}

#[test]
fn results_list_show_export_delete() {
    let dir = scratch_dir("store_cmds");
    let store = dir.join("r.sqlite");
    let db = format!("sqlite:{}", dir.join("bench.sqlite").display());
    let out = run_ok(fairbench().args(["run", "oltp_read_only", "--target", &db, "--table-size", "500", "--threads", "1,2", "--time", "1", "--tag", "baseline", "--results"]).arg(&store));
    let text = stdout(&out);
    assert!(text.contains("Stored as run 1 in"), "{text}");
    assert!(text.contains("Audit:"), "a sweep ends with its audit: {text}");
    run_ok(fairbench().args(["run", "oltp_point_select", "--target", &db, "--table-size", "500", "--time", "1", "--report-interval", "0", "--results"]).arg(&store));
    // --no-save writes nothing.
    run_ok(fairbench().args(["run", "oltp_point_select", "--target", &db, "--table-size", "500", "--time", "1", "--no-save", "--results"]).arg(&store));
    let list = results(&store, &["list"]);
    assert_eq!(list.lines().count(), 3, "header + 2 runs: {list}");
    assert!(list.contains("completed") && list.contains("[baseline]"), "{list}");
    let v = export(&store);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let r1 = &runs[0];
    assert_eq!(r1["kind"], "sweep");
    assert_eq!(r1["status"], "completed");
    assert_eq!(r1["levels"].as_array().unwrap().len(), 2);
    assert_eq!(r1["tool_version"], fairbench::VERSION);
    assert_eq!(r1["options"]["threads"], "1,2");
    assert!(r1["started_at"].as_str().unwrap() <= r1["ended_at"].as_str().unwrap());
    for l in r1["levels"].as_array().unwrap() {
        assert!(!l["intervals"].as_array().unwrap().is_empty());
        assert!(l["histogram"].as_str().map(|h| h.len() > 10).unwrap_or(false), "serialised histogram: {l}");
        assert!(l["summary"]["tps"].as_f64().unwrap() > 0.0);
    }
    // The histogram decodes back to the level's events.
    use base64::Engine as _;
    let b = base64::engine::general_purpose::STANDARD.decode(r1["levels"][0]["histogram"].as_str().unwrap()).unwrap();
    let h: hdrhistogram::Histogram<u64> = hdrhistogram::serialization::Deserializer::new().deserialize(&mut std::io::Cursor::new(b)).unwrap();
    assert_eq!(h.len(), r1["levels"][0]["events"].as_u64().unwrap());
    let env = &r1["env_start"];
    assert_eq!(env["server"]["engine"], "sqlite");
    assert!(env["server"]["variables"]["synchronous"].is_string(), "{env}");
    assert!(env["host"]["cpus_available"].as_u64().unwrap() >= 1);
    assert!(r1["env_end"]["taken_at"].is_string());
    // Without --report-interval the intervals are still stored.
    assert!(!runs[1]["levels"][0]["intervals"].as_array().unwrap().is_empty(), "{}", runs[1]);
    // Interval rows carry the client's CPU.
    assert!(count(&store, "SELECT COUNT(*) FROM intervals WHERE run_id = 1 AND cpu_user_s + cpu_sys_s > 0") > 0);
    let show = results(&store, &["show", "last"]);
    assert!(show.starts_with("Run 2 (run)"), "{show}");
    assert!(results(&store, &["delete", "1"]).contains("Deleted run 1"));
    assert_eq!(count(&store, "SELECT COUNT(*) FROM intervals WHERE run_id = 1"), 0);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM levels WHERE run_id = 1"), 0);
    assert_eq!(export(&store)["runs"].as_array().unwrap().len(), 1);
    // Bad input: one line and the documented code.
    let out = run_fail(fairbench().args(["results", "show", "99", "--results"]).arg(&store));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
    let out = run_fail(fairbench().args(["results", "show", "x1", "--results"]).arg(&store));
    assert_eq!(out.status.code(), Some(2));
    let out = run_fail(fairbench().args(["results", "list", "--results"]).arg(dir.join("missing.sqlite")));
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(!dir.join("missing.sqlite").exists(), "reading never creates a store");
    let out = run_fail(fairbench().args(["compare", "2", "42", "--results"]).arg(&store));
    assert_eq!(out.status.code(), Some(2));
    let out = run_fail(fairbench().args(["run", "oltp_point_select", "--target", &db, "--table-size", "500", "--time", "1", "--results", "/nonexistent/dir/r.sqlite"]));
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
}

/// A run refused for tables that do not match its options was stored as a failed run with an
/// "unfinished" warning, though exit 2 means nothing was run or changed: the refusal says why
/// on one line and the store is left as it was.
#[test]
fn a_run_refused_for_mismatched_tables_stores_nothing() {
    let dir = scratch_dir("store_mismatch");
    let store = dir.join("r.sqlite");
    let db = format!("sqlite:{}", dir.join("bench.sqlite").display());
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &db, "--table-size", "300"]));
    run_ok(fairbench().args(["run", "oltp_point_select", "--target", &db, "--table-size", "300", "--time", "1", "--results"]).arg(&store));
    let out = run_fail(fairbench().args(["run", "oltp_point_select", "--target", &db, "--table-size", "900", "--time", "1", "--results"]).arg(&store));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["table sbtest1 holds ids up to 300 but --table-size is 900"]);
    let list = results(&store, &["list"]);
    assert_eq!(list.lines().filter(|l| l.contains("oltp_point_select") || l.contains("OLTP_PS")).count(), 1, "only the run that ran is stored:\n{list}");
    assert!(!list.contains("failed"), "{list}");
}

#[test]
fn a_run_whose_clients_cannot_connect_stores_why() {
    let dir = scratch_dir("store_connect_fail");
    let store = dir.join("r.sqlite");
    run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", &pg_url(), "--table-name", "sto_connfail_"]));
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &pg_url(), "--table-name", "sto_connfail_", "--table-size", "300"]));
    // Two connections for this role: table check and snapshot succeed, then the
    // snapshot connection holds one of them and four clients cannot all connect.
    pg_admin("DROP ROLE IF EXISTS fb_limited; CREATE ROLE fb_limited LOGIN PASSWORD 'fbpass' CONNECTION LIMIT 2 IN ROLE fb;");
    let u = parse_url(&pg_url());
    let url = format!("postgres://fb_limited:fbpass@{}:{}/{}", u.host, u.port.unwrap(), u.database);
    let out =
        run_fail(fairbench().args(["run", "oltp_point_select", "--target", &url, "--table-name", "sto_connfail_", "--table-size", "300", "--threads", "4", "--time", "1", "--results"]).arg(&store));
    pg_admin("DROP ROLE IF EXISTS fb_limited;");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let show = results(&store, &["show", "1"]);
    let status = show.lines().find(|l| l.starts_with("Status:")).unwrap_or_default();
    assert!(status.starts_with("Status: failed: ") && status.contains("connection"), "the client's error, not a placeholder: {show}");
    assert!(!status.contains("stopped before the end"), "{show}");
}

#[test]
fn env_on_a_missing_sqlite_file_says_so_and_creates_nothing() {
    let dir = scratch_dir("store_env_missing");
    let file = dir.join("typo.sqlite");
    let out = run_fail(fairbench().args(["env", "--target", &format!("sqlite:{}", file.display())]));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(!file.exists(), "env created {}", file.display());
    // An existing file is described as before.
    let db = format!("sqlite:{}", dir.join("bench.sqlite").display());
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &db, "--table-size", "100"]));
    assert!(stdout(&run_ok(fairbench().args(["env", "--target", &db]))).contains("Server: sqlite"));
}

#[test]
fn a_stall_from_a_table_lock_is_reported_with_its_time() {
    let dir = scratch_dir("store_stall");
    let store = dir.join("r.sqlite");
    run_ok(fairbench().args(["cleanup", "oltp_point_select", "--target", &pg_url(), "--table-name", "sto_stall_"]));
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &pg_url(), "--table-name", "sto_stall_", "--table-size", "1000"]));
    let child = fairbench()
        .args(["run", "oltp_point_select", "--target", &pg_url(), "--table-name", "sto_stall_", "--table-size", "1000", "--threads", "2", "--time", "8", "--results"])
        .arg(&store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the first interval is stored (startup can be slow on a busy machine),
    // hold an exclusive lock on the table for 3.5 s.
    let t0 = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        if store.exists() && count(&store, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'intervals'") == 1 && count(&store, "SELECT COUNT(*) FROM intervals") >= 1 {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "no interval stored after 30 s");
    }
    pg_admin_db("fbtest", "BEGIN; LOCK TABLE sto_stall_1 IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3.5); COMMIT;");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("[WARNING] stall:"), "the run's own audit reports it: {text}");
    let v: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["audit", "1", "--json", "--results"]).arg(&store)))).unwrap();
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "stall").unwrap_or_else(|| panic!("no stall: {v}"));
    let ev = f["evidence"][0].as_str().unwrap();
    // "2 threads: stall from Xs to Ys (...)": the lock started after the first interval.
    let from: f64 = ev.split("stall from ").nth(1).unwrap().split('s').next().unwrap().parse().unwrap();
    let to: f64 = ev.split(" to ").nth(1).unwrap().split('s').next().unwrap().parse().unwrap();
    assert!((1.0..=5.0).contains(&from), "{ev}");
    assert!(to - from >= 2.0 && to <= 8.5, "{ev}");
}

#[test]
fn the_password_is_nowhere_in_the_store_or_output() {
    let dir = scratch_dir("store_password");
    let store = dir.join("r.sqlite");
    let mut outputs = String::new();
    let mut keep = |o: std::process::Output| {
        outputs.push_str(&stdout(&o));
        outputs.push_str(&stderr(&o));
    };
    for (url, table) in [(mysql_url(), "sto_pw_my_"), (pg_url(), "sto_pw_pg_")] {
        keep(run_ok(fairbench().args(["run", "oltp_read_write", "--target", &url, "--table-name", table, "--table-size", "300", "--threads", "1", "--time", "1", "--results"]).arg(&store)));
        keep(run_ok(fairbench().args(["env", "--target", &url])));
        keep(run_ok(fairbench().args(["env", "--json", "--target", &url])));
    }
    // Given as an option instead of in the URL.
    let u = parse_url(&pg_url());
    keep(run_ok(
        fairbench()
            .args([
                "run",
                "oltp_point_select",
                "--db-driver",
                "pgsql",
                "--pgsql-host",
                &u.host,
                "--pgsql-port",
                &u.port.unwrap().to_string(),
                "--pgsql-user",
                &u.user,
                "--pgsql-password",
                &u.password,
                "--pgsql-db",
                &u.database,
                "--table-name",
                "sto_pw_pg_",
                "--table-size",
                "300",
                "--time",
                "1",
                "--results",
            ])
            .arg(&store),
    ));
    for args in
        [vec!["results", "list"], vec!["results", "show", "1"], vec!["results", "export", "--json"], vec!["compare", "1", "2", "3"], vec!["compare", "1", "2", "--json"], vec!["audit", "1", "2", "3"]]
    {
        let mut c = fairbench();
        c.args(&args).arg("--results").arg(&store);
        keep(run_ok(&mut c));
    }
    let password = parse_url(&mysql_url()).password;
    assert_eq!(password, u.password, "both servers use the same password");
    assert!(password.len() >= 4);
    assert!(outputs.contains("****"), "targets are shown masked");
    assert!(!outputs.contains(&password), "password in the output");
    // Every file of the store, WAL included, byte for byte.
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        assert!(!bytes.windows(password.len()).any(|w| w == password.as_bytes()), "password in {}", p.display());
    }
    assert_eq!(count(&store, "SELECT COUNT(*) FROM runs"), 3);
}

/// The store's last run, as `results export` gives it.
fn last_run(store: &Path) -> Value {
    let e = export(store);
    e.as_array().and_then(|a| a.last()).or_else(|| e["runs"].as_array().and_then(|a| a.last())).expect("a run").clone()
}

/// The (t, dt, tick) of the stored samples of a run's first level, baseline left out; each
/// sample's read time is checked to be there and positive.
fn sample_times(store: &Path) -> Vec<(f64, f64, Option<f64>)> {
    let run = last_run(store);
    let samples = run["levels"][0]["samples"].as_array().cloned().unwrap_or_default();
    assert!(samples.iter().all(|s| s["read_s"].as_f64().is_some_and(|r| r > 0.0)), "a sample without its read time: {samples:?}");
    samples.iter().filter(|s| s["seq"].as_u64() != Some(0)).map(|s| (s["t"].as_f64().unwrap(), s["dt"].as_f64().unwrap(), s["tick"].as_f64())).collect()
}

/// One sampler-timing test at a time: the slow-baseline test ages pg_stat_statements, and
/// every sample's read of it in the other test was slowed until ticks queued up.
static SAMPLER_TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Asserts samples `s` were taken for the report intervals' ends every `period` s, in order,
/// none passed over: each sample names the tick it was taken for (`tick`), but the first (the
/// timer stands in when the first tick comes late) and the level's last (its end); no sample
/// starts before its tick. A sampler on a clock of its own, or a baseline that moved every
/// sample half a period, took samples for no tick, or passed ticks over. Timed, this held only
/// on a quiet machine: on a busy one the ticks themselves came tenths of a second late.
fn assert_on_ticks(s: &[(f64, f64, Option<f64>)], period: f64) {
    let inner = &s[1..s.len().saturating_sub(1)];
    let ticks: Vec<f64> = inner.iter().map(|&(_, _, tick)| tick.unwrap_or_else(|| panic!("a sample for no tick: (t, dt, tick) {s:?}"))).collect();
    assert!(s[0].2.is_none_or(|k| (k - period).abs() < 1e-6), "the first sample for another tick than the first: {s:?}");
    for (k, t) in ticks.iter().enumerate() {
        let want = period * (k as f64 + 2.0);
        assert!((t - want).abs() < 1e-6, "tick {want} passed over: (t, dt, tick) {s:?}");
    }
    assert!(s.iter().all(|&(t, _, tick)| tick.is_none_or(|k| t >= k - 0.01)), "a sample before its tick: {s:?}");
}

/// A level that ran on past its last tick by more than a quarter period gets a short sample of
/// its own at its end (it came 0.15 s late under load): takes it off `s` after checking it.
fn take_level_end_sample(s: &mut Vec<(f64, f64, Option<f64>)>, time: f64, period: f64) {
    if s.last().is_some_and(|(t, dt, _)| *t > time && *dt < period * 0.75) {
        s.pop();
    }
}

// The sampler once kept a clock of its own, restarted after each sample: its
// samples slid later through a long run by the time each took, away from the
// report's intervals. Samples now fall on the intervals' ends, and the
// level's end takes the last one again rather than adding a sample of a few
// milliseconds.
#[test]
fn server_samples_fall_on_the_report_intervals() {
    let _one = SAMPLER_TIMING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("store_ticks");
    let store = dir.join("r.sqlite");
    let base = ["--target", &pg_url(), "--table-name", "sto_tick_", "--table-size", "1000"];
    run_ok(fairbench().args(["cleanup", "oltp_point_select"]).args(base));
    run_ok(fairbench().args(["prepare", "oltp_point_select"]).args(base));
    run_ok(fairbench().args(["run", "oltp_point_select", "--threads", "2", "--time", "4", "--report-interval", "1", "--results"]).arg(&store).args(base));
    let s = sample_times(&store);
    assert_eq!(s.len(), 4, "one sample per interval, none after the last: {s:?}");
    assert_on_ticks(&s, 1.0);
    // Intervals shorter than the sampling period (0.5 s at least): every few ticks, evenly.
    run_ok(fairbench().args(["run", "oltp_point_select", "--threads", "2", "--time", "3", "--report-interval", "0.2", "--results"]).arg(&store).args(base));
    let mut s = sample_times(&store);
    take_level_end_sample(&mut s, 3.0, 0.6);
    assert!(s.len() >= 4 && s.len() <= 6, "{s:?}");
    assert!(s.iter().all(|(_, dt, _)| *dt >= 0.4 && *dt <= 0.8), "samples spaced as the period and the ticks allow: {s:?}");
    run_ok(fairbench().args(["cleanup", "oltp_point_select"]).args(base));
}

// A level's baseline was read on the sampler's thread while the clients
// already ran: a server slow to read (TiDB's metrics page under load took
// 0.4 s) lost a thousand statements from the level's samples. The baseline
// is read before the clients are released: the samples count every one.
#[test]
fn statements_run_before_the_baseline_was_read_are_in_the_samples() {
    let _one = SAMPLER_TIMING.lock().unwrap_or_else(|e| e.into_inner());
    let store = scratch_dir("store_baseline_first").join("r.sqlite");
    let base = ["--target", &pg_url(), "--table-name", "sto_first_", "--table-size", "1000"];
    run_ok(fairbench().args(["cleanup", "oltp_point_select"]).args(base));
    run_ok(fairbench().args(["prepare", "oltp_point_select"]).args(base));
    run_ok(fairbench().args(["run", "oltp_point_select", "--threads", "2", "--time", "2", "--report-interval", "1", "--results"]).arg(&store).args(base));
    let run = last_run(&store);
    let level = &run["levels"][0];
    let events = level["events"].as_f64().unwrap();
    let samples = level["samples"].as_array().unwrap_or_else(|| panic!("no samples: {run}"));
    // The level's texts come with its last sample.
    let texts = samples.iter().flat_map(|s| s["statement_texts"].as_object().into_iter().flatten());
    let select = texts.filter(|(_, t)| t.as_str().is_some_and(|t| t.starts_with("SELECT c FROM sto_first_1 "))).map(|(id, _)| id.clone()).next();
    let select = select.unwrap_or_else(|| panic!("no text of the point select: {samples:?}"));
    let calls: f64 = samples.iter().filter(|s| s["seq"].as_u64() != Some(0)).filter_map(|s| s["statements"][&select]["counts"]["calls"].as_f64()).sum();
    assert!(events > 100.0, "{events} events");
    assert_eq!(calls, events, "point selects in the level's samples against its events");
    run_ok(fairbench().args(["cleanup", "oltp_point_select"]).args(base));
}

// A server whose statements summary was full (a long-lived one) took tens of
// milliseconds to read at the level's baseline; the sampler timed the
// baseline at its end, so the first interval's tick came less than a period
// after it and was passed over, and every later sample slid half a period.
#[test]
fn a_baseline_slow_to_read_does_not_move_the_samples_off_the_ticks() {
    let _one = SAMPLER_TIMING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("store_slow_baseline");
    let store = dir.join("r.sqlite");
    // pg_stat_statements filled with shapes of one call each, as after many other runs.
    let db = parse_url(&pg_url()).database;
    let cols: Vec<String> = (1..=80).map(|i| format!("c{i} int")).collect();
    pg_admin_db(&db, &format!("DROP TABLE IF EXISTS sto_age; CREATE TABLE sto_age ({})", cols.join(", ")));
    let mut shapes = String::from("SET pg_stat_statements.track = 'all'; DO $$ BEGIN FOR i IN 1..80 LOOP FOR j IN 1..80 LOOP ");
    shapes.push_str("EXECUTE format('SELECT c%s, c%s FROM sto_age', i, j); END LOOP; END LOOP; END $$");
    pg_admin_db(&db, &shapes);
    let base = ["--target", &pg_url(), "--table-name", "sto_slow_", "--table-size", "1000"];
    run_ok(fairbench().args(["cleanup", "oltp_point_select"]).args(base));
    run_ok(fairbench().args(["prepare", "oltp_point_select"]).args(base));
    // Half-second intervals: a baseline read in more than 25 ms was enough.
    run_ok(fairbench().args(["run", "oltp_point_select", "--threads", "2", "--time", "3", "--report-interval", "0.5", "--results"]).arg(&store).args(base));
    let mut s = sample_times(&store);
    take_level_end_sample(&mut s, 3.0, 0.5);
    // One sample per interval, but for a tick whose sample a slow read took the place of.
    assert!((5..=6).contains(&s.len()), "one sample per interval: {s:?}");
    assert_on_ticks(&s, 0.5);
    run_ok(fairbench().args(["cleanup", "oltp_point_select"]).args(base));
    pg_admin_db(&db, "DROP TABLE sto_age");
    // The aged summary would slow every later sample of every test on this server.
    pg_admin_db(&db, "SELECT pg_stat_statements_reset()");
}

/// Runs stored by fairbench 0.1.0 before the options had types (`tests/fixtures/store-0.1.0.sql`,
/// the store's own dump: runs of OLTP on SQLite, MariaDB and PostgreSQL, a rate run, a Lua
/// script, TPC-C, a run over part of its tables) read into the typed options the audit and
/// `compare` now take: each rule that reads one finds what it found then, and every run's
/// options export as the very object stored.
#[test]
fn runs_stored_before_options_had_types_read_into_them() {
    let dir = scratch_dir("store_typed_options");
    let store = dir.join("old.sqlite");
    let dump = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-0.1.0.sql")).unwrap();
    rusqlite::Connection::open(&store).unwrap().execute_batch(&dump).unwrap();
    let json = |args: &[&str]| -> Value {
        let mut c = fairbench();
        c.args(args).arg("--results").arg(&store);
        serde_json::from_str(&stdout(&run_ok(&mut c))).expect("JSON")
    };
    let evidence = |v: &Value, rule: &str| -> Vec<String> {
        let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == rule).unwrap_or_else(|| panic!("no {rule} in {v}"));
        f["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap().to_string()).collect()
    };
    // db-ps-mode, rand-type, tables x table-size, skip-trx and ssl-mode, each typed now.
    let c = json(&["compare", "1", "3", "4", "--format", "json"]);
    assert_eq!(evidence(&c, "prepared-mismatch"), ["run 1 (sqlite): auto", "run 3 (mysql): auto", "run 4 (postgres): disable"]);
    assert_eq!(evidence(&c, "distribution-mismatch"), ["run 1 (sqlite): special", "run 3 (mysql): uniform", "run 4 (postgres): special"]);
    assert_eq!(evidence(&c, "table-count-mismatch"), ["run 1 (sqlite): 2 x 1000", "run 3 (mysql): 1 x 1000", "run 4 (postgres): 1 x 1000"]);
    assert_eq!(evidence(&c, "transactions-mismatch"), ["run 1 (sqlite): BEGIN/COMMIT", "run 3 (mysql): autocommit (--skip-trx)", "run 4 (postgres): BEGIN/COMMIT"]);
    // --repeat 2: run 1's levels are two repetitions each.
    let noisy = evidence(&json(&["audit", "1", "--json"]), "noisy-series");
    assert!(noisy.iter().all(|e| e.ends_with("over 2 repetitions")), "{noisy:?}");
    // data-table-size 1000, touched-table-size 100.
    let part = json(&["audit", "7", "--json"]);
    assert_eq!(evidence(&part, "partial-working-set")[0], "the run touched ids up to 100; the tables hold ids up to 1000");
    // Every run's options, read and written back: the object stored, byte for byte.
    let c = rusqlite::Connection::open(&store).unwrap();
    let mut q = c.prepare("SELECT options FROM runs ORDER BY id").unwrap();
    let stored: Vec<Value> = q.query_map([], |r| r.get::<_, String>(0)).unwrap().map(|s| serde_json::from_str(&s.unwrap()).unwrap()).collect();
    let exported: Vec<Value> = export(&store)["runs"].as_array().unwrap().iter().map(|r| r["options"].clone()).collect();
    assert_eq!(stored.len(), 7);
    assert_eq!(exported, stored);
}

/// `--format` picks a rendering from the registry on `results list`, `results export`, `audit`
/// and `env`; the older `--json` and `--csv` say the same, and a format that does not render
/// what the command prints is refused in one line, exit 2.
#[test]
fn format_picks_the_rendering_and_the_old_flags_say_the_same() {
    let dir = scratch_dir("store_format_option");
    let store = dir.join("old.sqlite");
    let dump = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-0.1.0.sql")).unwrap();
    rusqlite::Connection::open(&store).unwrap().execute_batch(&dump).unwrap();
    let out = |args: &[&str]| -> String {
        let mut c = fairbench();
        c.args(args).arg("--results").arg(&store);
        stdout(&run_ok(&mut c))
    };
    // results list: one entry per run, its figures as numbers.
    let list: Value = serde_json::from_str(&out(&["results", "list", "--format", "json"])).unwrap();
    let runs = list.as_array().unwrap();
    assert_eq!(runs.len(), 7);
    assert_eq!(runs[0]["threads"], serde_json::json!([1, 2, 1, 2]));
    let tps: Vec<f64> = runs[0]["tps"].as_array().unwrap().iter().map(|t| t.as_f64().unwrap()).collect();
    let text = out(&["results", "list"]);
    let first = text.lines().nth(1).unwrap();
    assert!(first.contains(&tps.iter().map(|t| format!("{t:.1}")).collect::<Vec<_>>().join(",")), "{first} vs {tps:?}");
    assert_eq!(runs[6]["tag"], "partial");
    // The old flags and the new option give the same bytes.
    assert_eq!(out(&["audit", "3", "4", "--json"]), out(&["audit", "3", "4", "--format", "json"]));
    assert_eq!(out(&["audit", "3", "4"]), out(&["audit", "3", "4", "--format", "text"]));
    assert_eq!(out(&["results", "export", "1", "--csv"]), out(&["results", "export", "1", "--format", "csv"]));
    assert_eq!(out(&["results", "export", "1"]), out(&["results", "export", "1", "--format", "json"]));
    // env: the snapshot as JSON, its engine and page size read from the file.
    let db = dir.join("env.db");
    rusqlite::Connection::open(&db).unwrap().execute_batch("CREATE TABLE sbtest1(id INTEGER PRIMARY KEY)").unwrap();
    let env: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["env", "--format", "json", "--target"]).arg(format!("sqlite:{}", db.display()))))).unwrap();
    assert_eq!(env["server"]["engine"], "sqlite");
    assert_eq!(env["server"]["variables"]["page_size"], "4096");
    for args in [["audit", "3", "--format", "png"], ["results", "list", "--format", "markdown"]] {
        let mut c = fairbench();
        c.args(args).arg("--results").arg(&store);
        let o = run_fail(&mut c);
        assert_eq!(o.status.code(), Some(2), "{}", show(&o));
        assert_one_line_error(&o, &[&format!("--format={}", args[args.len() - 1]), "writes text or json"]);
    }
}
