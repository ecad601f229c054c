//! The outage of a level: a stall made on purpose (a table lock held 3 s by
//! another session during a write run) must be reported within 100 ms of
//! what the test itself measured, on MariaDB and PostgreSQL; an ordinary
//! run reports a gap of the order of its slowest event.

mod common;

use common::*;
use fairbench::model::record::{LevelRec, RunRecord, Severity};
use fairbench::stats::gaps::{GapSpan, Outage};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const HOLD: Duration = Duration::from_secs(3);

/// A SQL session of the engine's command-line client, fed statement by
/// statement; each `SELECT 'mark'` answer is read back when it arrives.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Session {
    fn start(mut cmd: Command) -> Session {
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in out.lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Session { child, stdin, lines }
    }

    /// Sends `sql` followed by a marker query and waits for the marker:
    /// returns when the statements before it were done.
    fn run(&mut self, sql: &str, mark: &str) -> Instant {
        writeln!(self.stdin, "{sql}\nSELECT '{mark}';").unwrap();
        self.stdin.flush().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.trim() == mark => return Instant::now(),
                Ok(_) => {}
                Err(e) => panic!("no answer to {sql:?} from the SQL session: {e}"),
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn mysql_session() -> Session {
    let u = parse_url(&mysql_url());
    let mut c = Command::new("mariadb");
    c.args(["--no-defaults", "--protocol=TCP", "--batch", "--skip-column-names", "--unbuffered"])
        .arg(format!("--host={}", u.host))
        .arg(format!("--port={}", u.port.unwrap_or(3306)))
        .arg(format!("--user={}", u.user))
        .arg(format!("--database={}", u.database))
        .env("MYSQL_PWD", &u.password);
    Session::start(c)
}

fn pg_session() -> Session {
    let u = parse_url(&pg_url());
    let mut c = Command::new("psql");
    c.args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", &u.host, "-p", &u.port.unwrap_or(5432).to_string(), "-U", &u.user, "-d", &u.database]).env("PGPASSWORD", &u.password);
    Session::start(c)
}

/// What the test saw of its lock: when it asked for it, when it had it,
/// when it asked to release it and when it was released.
struct Held {
    asked: Instant,
    got: Instant,
    release: Instant,
    released: Instant,
}

/// A write run of 8 s on the test's own table while `lock` holds it for
/// [`HOLD`] from about 2 s in; returns the level's summary and the lock's times.
/// 10,000 rows: the clients seldom wait for each other's rows, so the lock
/// seldom waits behind a deadlock check (PostgreSQL's deadlock_timeout is 1 s).
fn stalled_run(url: &str, table: &str, lock: &impl Fn() -> Held) -> (Value, Held) {
    run_ok(fairbench().args(["prepare", "oltp_write_only", "--target", url, "--table-name", table, "--tables", "1", "--table-size", "10000"]));
    let mut child = fairbench()
        .args(["run", "oltp_write_only", "--target", url, "--table-name", table, "--tables", "1", "--table-size", "10000", "--no-prepare"])
        .args(["--threads", "4", "--time", "8", "--report-interval", "1", "--output", "json", "--no-save"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for l in out.lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    // Two intervals in: the clients are running.
    let mut lines = Vec::new();
    while lines.iter().filter(|l: &&String| l.contains("\"interval\"")).count() < 2 {
        lines.push(rx.recv_timeout(Duration::from_secs(60)).expect("the run printed no interval"));
    }
    let held = lock();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    let mut err = String::new();
    use std::io::Read;
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    assert!(status.success(), "run failed: {status}\n{}\n{err}", lines.join("\n"));
    let line = lines.iter().rev().find(|l| l.contains("\"summary\"")).unwrap_or_else(|| panic!("no summary:\n{}", lines.join("\n")));
    (serde_json::from_str(line).unwrap(), held)
}

/// The reported gap against the lock's times: no write could complete
/// between the moment the test had the lock and the moment it asked to
/// release it, nor (beyond one event) outside the time from asking for it
/// to having released it. Returns false, checking nothing, when those
/// times are too far apart to judge 100 ms (the lock waited long for the
/// transactions in flight on a busy machine).
fn check_gap(s: &Value, held: &Held) -> bool {
    assert_schema(s);
    let o = &s["outage"];
    let gap = &o["write"];
    assert!(gap.is_object(), "no write gap reported: {s}");
    let secs = gap["secs"].as_f64().unwrap();
    let lower = held.release.duration_since(held.got).as_secs_f64();
    let upper = held.released.duration_since(held.asked).as_secs_f64();
    if upper - lower >= 0.1 {
        eprintln!(
            "the lock's own times are too loose to judge: {lower:.3}..{upper:.3} s (taking it: {:.3} s, releasing it: {:.3} s); reported {secs:.3} s",
            held.got.duration_since(held.asked).as_secs_f64(),
            held.released.duration_since(held.release).as_secs_f64()
        );
        return false;
    }
    eprintln!("write gap reported {secs:.3} s; the lock held writes for {lower:.3}..{upper:.3} s");
    assert!(secs >= lower - 0.1 && secs <= upper + 0.1, "write gap {secs:.3} s, the lock held writes for {lower:.3}..{upper:.3} s: {o}");
    assert_eq!(gap["open"], false, "{o}");
    // Everything the run did was a write: the overall gap is the same.
    assert!((o["all"]["secs"].as_f64().unwrap() - secs).abs() < 1e-9, "{o}");
    // About 2 s into the measured run (two intervals were printed first).
    let from = gap["from_s"].as_f64().unwrap();
    assert!((1.5..4.0).contains(&from), "the gap began at {from} s: {o}");
    true
}

/// The summary, with its gap object, is what `schema/run.schema.json` says.
fn assert_schema(s: &Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/run.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(s).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "the summary does not match the schema: {errors:?}\n{s}");
}

/// Up to three stalled runs, until one's lock times are tight enough to judge.
fn judged(url: &str, lock: impl Fn() -> Held) {
    for _ in 0..3 {
        let (s, held) = stalled_run(url, "outage_lock", &lock);
        if check_gap(&s, &held) {
            return;
        }
    }
    panic!("three runs whose lock took too long to judge the gap (see above)");
}

#[test]
fn table_lock_stall_on_mariadb() {
    judged(&mysql_url(), || {
        let mut sql = mysql_session();
        sql.run("", "connected");
        let asked = Instant::now();
        let got = sql.run("LOCK TABLES outage_lock1 WRITE;", "locked");
        std::thread::sleep(HOLD);
        let release = Instant::now();
        let released = sql.run("UNLOCK TABLES;", "unlocked");
        Held { asked, got, release, released }
    });
}

#[test]
fn table_lock_stall_on_postgres() {
    judged(&pg_url(), || {
        let mut sql = pg_session();
        sql.run("", "connected");
        let asked = Instant::now();
        let got = sql.run("BEGIN; LOCK TABLE outage_lock1 IN ACCESS EXCLUSIVE MODE;", "locked");
        std::thread::sleep(HOLD);
        let release = Instant::now();
        let released = sql.run("COMMIT;", "unlocked");
        Held { asked, got, release, released }
    });
}

/// An ordinary run: one client whose events each sleep 25..60 ms on the
/// server. Its longest gap is its slowest event plus the little between
/// two events, so of the order of the max latency, never far above; a
/// read-only run has no write gap.
#[test]
fn ordinary_run_gap_is_its_slowest_event() {
    let dir = scratch_dir("outage-ordinary");
    let f = dir.join("sleep.sql");
    std::fs::write(&f, "\\set d random(25, 60)\nSELECT pg_sleep(:d / 1000.0);\n").unwrap();
    let out = run_ok(fairbench().args(["run", "-f", f.to_str().unwrap(), "--threads", "1", "--time", "3", "--no-save", "--output", "json", "--target", &pg_url()]));
    let text = stdout(&out);
    let s: Value = serde_json::from_str(text.lines().rev().find(|l| l.contains("\"summary\"")).unwrap()).unwrap();
    let max_s = s["latency_ms"]["max"].as_f64().unwrap() / 1e3;
    let o = &s["outage"];
    let gap = o["all"]["secs"].as_f64().unwrap_or_else(|| panic!("no gap reported: {o}"));
    eprintln!("longest gap {gap:.4} s, slowest event {max_s:.4} s");
    // Above: the client's own time between two events, a few ms unless the
    // busy machine parks it; a gap of two events would be 50 ms more.
    assert!(gap >= max_s - 0.002 && gap <= max_s + 0.025, "longest gap {gap:.4} s, slowest event {max_s:.4} s: {o}");
    assert!(o["write"].is_null(), "a read-only run has no write gap: {o}");
    assert!(o["kinds"].as_array().unwrap().is_empty(), "{o}");
}

/// The text summary says it after the sysbench block, and the store keeps
/// it for `results show`.
#[test]
fn printed_and_stored() {
    let dir = scratch_dir("outage-store");
    let store = dir.join("r.sqlite");
    let lite = format!("sqlite:{}", dir.join("o.sqlite").display());
    let out = run_ok(fairbench().args(["run", "oltp_write_only", "--table-size", "200", "--threads", "2", "--time", "1", "--target", &lite, "--results"]).arg(&store));
    let text = stdout(&out);
    let after = text.split("Threads fairness:").nth(1).unwrap_or_else(|| panic!("no sysbench block:\n{text}"));
    assert!(after.contains("Longest gap without a completed event: "), "{text}");
    assert!(after.contains("Longest gap without a completed write: "), "{text}");
    let show = stdout(&run_ok(fairbench().args(["results", "show", "last", "--results"]).arg(&store)));
    assert!(show.contains("  Longest gap without a completed event: "), "{show}");
    assert!(show.contains("  Longest gap without a completed write: "), "{show}");
    // compare: side by side with the other figures, in text and JSON.
    run_ok(fairbench().args(["run", "oltp_write_only", "--table-size", "200", "--threads", "2", "--time", "1", "--target", &lite, "--results"]).arg(&store));
    let text = stdout(&run_ok(fairbench().args(["compare", "1", "2", "--results"]).arg(&store)));
    let header = text.lines().find(|l| l.contains("p99 ms")).unwrap_or_else(|| panic!("{text}"));
    assert!(header.split_whitespace().collect::<Vec<_>>().ends_with(&["gap", "s", "write", "gap", "s"]), "{text}");
    let rows: Vec<&str> = text.lines().skip_while(|l| !l.contains("p99 ms")).skip(1).take(2).collect();
    for row in &rows {
        let cells: Vec<&str> = row.split_whitespace().collect();
        let n = cells.len();
        for c in &cells[n - 2..] {
            // A gap just over the 20 ms threshold prints as 0.020.
            assert!(c.starts_with("<0.02") || c.parse::<f64>().is_ok_and(|v| v >= 0.02), "gap cell {c:?} in {row:?}\n{text}");
        }
    }
    let v: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["compare", "1", "2", "--json", "--results"]).arg(&store)))).unwrap();
    for r in v["levels"][0]["runs"].as_array().unwrap() {
        assert_eq!(r["outage"]["threshold_ms"], 20.0, "{r}");
        assert!(r["outage"]["all"].is_null() || r["outage"]["all"]["secs"].as_f64().unwrap() > 0.02, "{r}");
    }
}

fn gap(from_s: f64, secs: f64) -> GapSpan {
    GapSpan { from_s, to_s: from_s + secs, secs, open: false, errors: [("2013".to_string(), 12), ("1053".to_string(), 3)].into() }
}

fn run_with(outage: Option<Outage>, p99_ms: f64) -> RunRecord {
    let level = LevelRec { threads: 8, status: "completed".into(), p99_ms, outage, ..LevelRec::default() };
    RunRecord { id: 7, levels: vec![level], ..RunRecord::default() }
}

/// The audit's `outage` finding: info, naming the gap and when it began,
/// for a gap of 1 s and ten times the p99; quiet for an ordinary one.
#[test]
fn audit_names_a_remarkable_gap() {
    let o = Outage { threshold_ms: 20.0, all: Some(gap(32.1, 4.21)), write: Some(gap(32.1, 4.21)), kinds: vec![] };
    let fs: Vec<_> = fairbench::audit::single(&run_with(Some(o), 12.0)).into_iter().filter(|f| f.rule == "outage").collect();
    assert_eq!(fs.len(), 1, "{fs:?}");
    assert_eq!(fs[0].severity, Severity::Info);
    assert!(fs[0].message.contains("4.210 s, from 32.10 s (errors: 1053 x3, 2013 x12)"), "{}", fs[0].message);
    assert_eq!(fs[0].evidence.len(), 2, "overall and writes: {:?}", fs[0].evidence);
    // 0.5 s is under the 1 s bar; 2 s is under ten times a p99 of 300 ms.
    for (o, p99) in [(Outage { threshold_ms: 20.0, all: Some(gap(1.0, 0.5)), ..Outage::default() }, 12.0), (Outage { threshold_ms: 20.0, all: Some(gap(1.0, 2.0)), ..Outage::default() }, 300.0)] {
        let fs = fairbench::audit::single(&run_with(Some(o), p99));
        assert!(fs.iter().all(|f| f.rule != "outage"), "{fs:?}");
    }
    assert!(fairbench::audit::single(&run_with(None, 1.0)).iter().all(|f| f.rule != "outage"));
}

/// A store written before the outage was measured (no `levels.outage`
/// column) gets the column when opened: its runs show no gap, new ones do.
#[test]
fn an_older_store_gets_the_column() {
    let dir = scratch_dir("outage-old-store");
    let store = dir.join("r.sqlite");
    let lite = format!("sqlite:{}", dir.join("o.sqlite").display());
    let run = || run_ok(fairbench().args(["run", "oltp_point_select", "--table-size", "200", "--threads", "1", "--time", "1", "--target", &lite, "--results"]).arg(&store));
    run();
    let c = rusqlite::Connection::open(&store).unwrap();
    c.execute_batch("ALTER TABLE levels DROP COLUMN outage").unwrap();
    drop(c);
    let old = stdout(&run_ok(fairbench().args(["results", "show", "1", "--results"]).arg(&store)));
    assert!(!old.contains("Longest gap"), "{old}");
    run();
    let new = stdout(&run_ok(fairbench().args(["results", "show", "2", "--results"]).arg(&store)));
    assert!(new.contains("  Longest gap without a completed event: "), "{new}");
    assert!(!new.contains("without a completed write"), "a read-only run has no write line: {new}");
    let c = rusqlite::Connection::open(&store).unwrap();
    let stored: Vec<Option<String>> = c.prepare("SELECT outage FROM levels ORDER BY run_id").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert!(stored[0].is_none() && stored[1].as_deref().is_some_and(|s| s.contains("\"threshold_ms\":20.0")), "{stored:?}");
}

/// A workload with kinds (TPC-C) has a gap per kind, named as its kinds,
/// each within the level; a kind's gap is at least the overall one.
#[test]
fn tpcc_has_a_gap_per_kind() {
    let dir = scratch_dir("outage-tpcc");
    let lite = format!("sqlite:{}", dir.join("t.sqlite").display());
    let out = run_ok(fairbench().args(["run", "tpcc", "--warehouses", "1", "--threads", "2", "--time", "2", "--no-save", "--output", "json", "--target", &lite]));
    let text = stdout(&out);
    let s: Value = serde_json::from_str(text.lines().rev().find(|l| l.contains("\"summary\"")).unwrap()).unwrap();
    assert_schema(&s);
    let o = &s["outage"];
    let names: Vec<&str> = o["kinds"].as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["new_order", "payment", "order_status", "delivery", "stock_level"], "{o}");
    let all = o["all"]["secs"].as_f64().unwrap_or(0.0);
    for k in o["kinds"].as_array().unwrap() {
        let g = &k["gap"];
        if g.is_null() {
            // Each of a frequent kind's gaps was under 20 ms.
            assert_ne!(k["name"], "delivery", "a kind of 4% of the events waits more than 20 ms between two: {o}");
            continue;
        }
        let secs = g["secs"].as_f64().unwrap();
        assert!(secs >= all - 1e-9 && g["to_s"].as_f64().unwrap() <= 2.0 + 1e-9, "{o}");
    }
}

/// Rate mode: a client waiting for its next arrival is idle, not failing;
/// at 20 events/s the gaps between arrivals (50 ms on average) are no outage.
#[test]
fn rate_mode_idle_time_is_no_gap() {
    let dir = scratch_dir("outage-rate");
    let lite = format!("sqlite:{}", dir.join("r.sqlite").display());
    let out = run_ok(fairbench().args(["run", "oltp_point_select", "--table-size", "200", "--threads", "2", "--rate", "20", "--time", "3", "--no-save", "--output", "json", "--target", &lite]));
    let text = stdout(&out);
    let s: Value = serde_json::from_str(text.lines().rev().find(|l| l.contains("\"summary\"")).unwrap()).unwrap();
    assert!(s["transactions"].as_u64().unwrap() > 20, "{s}");
    assert!(s["outage"]["all"].is_null(), "{}", s["outage"]);
}
