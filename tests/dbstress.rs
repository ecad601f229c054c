//! dbSTRESS on MariaDB, PostgreSQL and SQLite with 2000 objects: prepare
//! and check, each BMK scenario for 2 s with its per-statement counts,
//! write runs with several clients (anti-deadlock slices off too) that
//! `check` still passes, an unfinished set loaded again, Ctrl-C during
//! prepare, and labels through `explain`.

mod common;

use common::*;
use serde_json::Value;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SIZE: &[&str] = &["--obj-table-size", "2000"];

fn cmd(command: &str, workload: &str, target: &str, extra: &[&str]) -> Command {
    let mut c = fairbench();
    c.arg(command).arg(workload).arg("--target").arg(target).args(extra);
    if command == "run" {
        c.args(["--no-save", "--output", "json"]);
    }
    c
}

fn named(s: &Value, list: &str, name: &str, field: &str) -> u64 {
    s[list].as_array().unwrap().iter().find(|k| k["name"] == name).map(|k| k[field].as_u64().unwrap()).unwrap_or(0)
}

/// Statements of one kind that ran in completed events.
fn statements(s: &Value, name: &str) -> u64 {
    named(s, "statements", name, "count")
}

/// Statement counts against what the mix says for the events that
/// completed: equal, or above when retried attempts ran statements too.
fn assert_statements(s: &Value, want: &[(&str, u64)]) {
    let retried = s["ignored_errors"].as_u64().unwrap() > 0;
    for &(name, n) in want {
        let got = statements(s, name);
        assert!(got == n || (retried && n > 0 && got > n), "{name}: {got} statements, {n} expected: {s}");
    }
}

/// READ or WRITE transactions.
fn events(s: &Value, kind: &str) -> u64 {
    named(s, "kinds", kind, "events")
}

fn run(workload: &str, target: &str, extra: &[&str]) -> Value {
    let s = summary(&run_ok(&mut cmd("run", workload, target, extra)));
    assert_eq!(s["status"], "completed", "{s}");
    assert!(s["transactions"].as_u64().unwrap() > 0, "{s}");
    s
}

fn check_passes(target: &str) {
    let out = run_ok(&mut cmd("check", "dbstress", target, SIZE));
    let text = stdout(&out);
    assert!(text.contains("All conditions hold.") && !text.contains("FAIL"), "{text}");
    assert!(text.contains("every object has 20 HISTORY1 rows, HORDER 0..19"), "{text}");
}

/// Read-only scenarios: the statements each names, no writes at all.
fn read_only_scenarios(target: &str) {
    let s = run("dbSTRESS_2K-RO-notrx", target, &["--threads", "2", "--time", "2"]);
    let n = s["transactions"].as_u64().unwrap();
    assert_eq!(s["label"], "dbSTRESS_2K-RO-notrx");
    assert_eq!(events(&s, "READ"), n, "{s}");
    assert_statements(&s, &[("SEL1", n), ("SEL2", n)]);
    assert_eq!((s["queries"]["write"].as_u64().unwrap(), s["queries"]["other"].as_u64().unwrap()), (0, 0), "{s}");
    for (label, sel1, sel2) in [("dbSTRESS_2K-RO-SEL1-notrx", 1, 0), ("dbSTRESS_2K-RO-SEL2-notrx", 0, 1)] {
        let s = run(label, target, &["--threads", "2", "--time", "2"]);
        let n = s["transactions"].as_u64().unwrap();
        assert_statements(&s, &[("SEL1", sel1 * n), ("SEL2", sel2 * n)]);
    }
}

/// Read-write scenarios with anti-deadlock slices: every DELETE finds its
/// row, so each writing event runs one UPDATE, one DELETE and one INSERT.
fn read_write_scenarios(target: &str) {
    let s = run("dbSTRESS_2K-RW10-trx", target, &["--threads", "4", "--time", "2"]);
    let (n, w) = (s["transactions"].as_u64().unwrap(), events(&s, "WRITE"));
    assert_eq!(s["label"], "dbSTRESS_2K-RW10-trx");
    // Every client writes on its 10th, 20th, ... event.
    assert!(w * 10 <= n && n < (w + 4) * 10, "{w} writing events of {n}: {s}");
    assert_eq!(events(&s, "READ") + w, n);
    assert_statements(&s, &[("SEL1", n), ("SEL2", n), ("UPDATE", w), ("DELETE", w), ("INSERT", w)]);
    let lat = s["statements"].as_array().unwrap().iter().find(|k| k["name"] == "INSERT").unwrap()["latency_ms"]["p95"].as_f64().unwrap();
    assert!(lat > 0.0, "{s}");

    let s = run("dbSTRESS_2K-RW1-UPD-trx", target, &["--threads", "4", "--time", "2"]);
    let n = s["transactions"].as_u64().unwrap();
    assert_eq!(events(&s, "WRITE"), n, "{s}");
    assert_statements(&s, &[("UPDATE", n), ("DELETE", 0), ("INSERT", 0)]);
    check_passes(target);

    let s = run("dbSTRESS_2K-RW1-trx", target, &["--threads", "4", "--time", "2"]);
    let n = s["transactions"].as_u64().unwrap();
    assert_statements(&s, &[("SEL1", n), ("SEL2", n), ("UPDATE", n), ("DELETE", n), ("INSERT", n)]);
    // BEGIN and COMMIT of every event, and of events cut short by the run's end.
    assert!(s["queries"]["other"].as_u64().unwrap() >= 2 * n, "{s}");
    check_passes(target);
}

/// Without anti-deadlock slices, 8 clients drawing objects from a pareto
/// distribution (most draws on a few hot objects) collide: the
/// engines' lock waits and deadlocks are retried, and the 20 rows per
/// object survive.
fn colliding_writers(target: &str) {
    let s = run("dbSTRESS_2K-RW1-xDEAD-xREF-trx", target, &["--threads", "8", "--time", "3", "--rand-type", "pareto"]);
    assert_eq!(s["label"], "dbSTRESS_2K-RW1-pareto-xDEAD-xREF-trx");
    check_passes(target);
}

/// A set whose ZONE rows are missing is what an interrupted prepare
/// leaves: the next prepare loads that set again.
fn unfinished_set_is_loaded_again(target: &str, delete_zone: &dyn Fn()) {
    delete_zone();
    let text = stdout(&run_fail(&mut cmd("check", "dbstress", target, SIZE)));
    assert!(!text.contains("All conditions hold."), "{text}");
    let out = run_ok(&mut cmd("prepare", "dbstress", target, &[SIZE, &["--threads", "2"]].concat()));
    assert!(stdout(&out).contains("Set #1 was not fully prepared: loading it again."), "{}", stdout(&out));
    check_passes(target);
}

/// Ctrl-C while prepare loads: exit 130 within 2 s.
fn interrupted_prepare(target: &str) {
    let mut child = cmd("prepare", "dbstress", target, &["--obj-table-size", "200000", "--obj-tables", "2", "--threads", "2"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 256];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            if String::from_utf8_lossy(&seen).contains("Loading 2 set(s)") {
                let _ = seen_tx.send(());
                break;
            }
        }
        // Keep draining so the child never blocks on a full pipe.
        let _ = std::io::copy(&mut out, &mut std::io::sink());
    });
    // Signalled once the load has begun (its banner comes as the first rows go out).
    seen_rx.recv_timeout(Duration::from_secs(60)).expect("prepare never said it was loading");
    assert!(child.try_wait().unwrap().is_none(), "prepare ended before it could be interrupted");
    // SAFETY: plain kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "still running after SIGINT");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(status.code(), Some(130), "exit status after SIGINT: {status}");
    assert!(t0.elapsed() <= Duration::from_secs(2), "took {:?} to stop", t0.elapsed());
    let _ = reader.join();
    run_ok(&mut cmd("cleanup", "dbstress", target, &["--obj-tables", "2"]));
}

/// The same steps on every engine.
fn flow(target: &str, delete_zone: &dyn Fn()) {
    run_ok(&mut cmd("cleanup", "dbstress", target, &["--obj-tables", "2"]));
    let out = run_ok(&mut cmd("prepare", "dbstress", target, &[SIZE, &["--threads", "2"]].concat()));
    assert!(stdout(&out).contains("Loading 1 set(s) of 2000 objects"), "{}", stdout(&out));
    check_passes(target);
    let again = run_ok(&mut cmd("prepare", "dbstress", target, &[SIZE, &["--threads", "2"]].concat()));
    assert!(stdout(&again).contains("Set #1 is loaded already (2000 objects)."), "{}", stdout(&again));
    read_only_scenarios(target);
    read_write_scenarios(target);
    colliding_writers(target);
    unfinished_set_is_loaded_again(target, delete_zone);
    run_ok(&mut cmd("cleanup", "dbstress", target, SIZE));
    interrupted_prepare(target);
}

#[test]
fn dbstress_mariadb() {
    let db = parse_url(&mysql_url()).database;
    flow(&mysql_url(), &|| {
        mysql_admin_db(&db, "DELETE FROM ZONE1");
    });
}

#[test]
fn dbstress_postgres() {
    let db = parse_url(&pg_url()).database;
    flow(&pg_url(), &|| {
        pg_admin_db(&db, "DELETE FROM zone1");
    });
}

#[test]
fn dbstress_sqlite() {
    let dir = scratch_dir("dbstress_sqlite");
    let db = dir.join("d.sqlite");
    let target = format!("sqlite:{}", db.display());
    flow(&target, &|| {
        rusqlite::Connection::open(&db).unwrap().execute("DELETE FROM ZONE1", []).unwrap();
    });
}

/// BMK's script names and the canonical labels decode, explain each
/// token and print back; a Prepare label with a run token is refused.
#[test]
fn dbstress_labels_round_trip_through_explain() {
    for (label, canonical, workload) in [
        ("sb11-dbSTRESS_10M-RO-notrx.sh", "dbSTRESS_10M-RO-notrx", "dbstress_ro"),
        ("sb11-dbSTRESS_10M-RO-SEL1-notrx.sh", "dbSTRESS_10M-RO-SEL1-notrx", "dbstress_ro"),
        ("sb11-dbSTRESS_10M-RO-SEL2-notrx.sh", "dbSTRESS_10M-RO-SEL2-notrx", "dbstress_ro"),
        ("sb11-dbSTRESS_10M-RW1-trx.sh", "dbSTRESS_10M-RW1-trx", "dbstress"),
        ("sb11-dbSTRESS_10M-RW10-trx.sh", "dbSTRESS_10M-RW10-trx", "dbstress"),
        ("sb11-dbSTRESS_10M-RW1-UPD-trx.sh", "dbSTRESS_10M-RW1-UPD-trx", "dbstress"),
        ("sb11-dbSTRESS_10M-RW10-UPD-trx.sh", "dbSTRESS_10M-RW10-UPD-trx", "dbstress"),
        ("dbSTRESS_10x1M-RW1-xDEAD-xREF-trx", "dbSTRESS_10x1M-RW1-xDEAD-xREF-trx", "dbstress"),
        ("sb11-Prepare_dbSTRESS_10M-InnoDB-HPK.sh", "Prepare_dbSTRESS_10M-InnoDB-HPK", "dbstress"),
        ("sb11-Prepare_dbSTRESS_10x1M-InnoDB.sh", "Prepare_dbSTRESS_10x1M-InnoDB", "dbstress"),
    ] {
        for l in [label, canonical] {
            let text = stdout(&run_ok(fairbench().args(["explain", l])));
            assert!(text.contains(&format!("canonical: {canonical}\n")), "{l}:\n{text}");
            assert!(text.contains(&format!("workload: {workload}\n")), "{l}:\n{text}");
        }
    }
    let text = stdout(&run_ok(fairbench().args(["explain", "sb11-dbSTRESS_10M-RW10-trx.sh"])));
    assert!(text.contains("--rw-ratio=10") && text.contains("--anti-dead=on") && text.contains("--obj-table-size=10000000"), "{text}");
    let out = run_fail(fairbench().args(["explain", "Prepare_dbSTRESS_10M-RW1"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("'RW1' describes a run"), "{}", stderr(&out));
}
