//! A PostgreSQL primary (a sandbox of its own) and a streaming standby made
//! from it with pg_basebackup -R: read-only workloads run on the standby,
//! the environment samples its replication lag, and the audit calls out a
//! standby that lagged (recovery_min_apply_delay) but not one caught up.

mod common;

use common::pgpair::*;
use common::*;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// Makes the standby hold back replay of every commit for an hour.
fn delay_apply(s: &Standby) {
    let conf = "\nrecovery_min_apply_delay = '1h'\n";
    std::fs::OpenOptions::new().append(true).open(s.data.join("postgresql.conf")).and_then(|mut f| std::io::Write::write_all(&mut f, conf.as_bytes())).unwrap();
    assert!(as_postgres(&pg_bin("pg_ctl")).arg("reload").arg("-D").arg(&s.data).output().unwrap().status.success());
}

fn read_only(target: &str, store: &Path) -> Output {
    run_ok(
        fairbench()
            .args(["run", "oltp_read_only", "--target", target, "--table-name", "sbt_", "--table-size", "1000", "--threads", "2", "--time", "3", "--report-interval", "1", "--results"])
            .arg(store),
    )
}

fn audit_text(store: &Path) -> String {
    stdout(&run_ok(fairbench().args(["audit", "last", "--results"]).arg(store)))
}

/// A primary with the test table, and a standby that has replayed it.
fn prepared_pair() -> (Primary, Standby) {
    let p = start_primary();
    let s = start_standby(&p);
    run_ok(fairbench().args(["prepare", "oltp_read_only", "--target", &url(p.port), "--table-name", "sbt_", "--table-size", "1000"]));
    wait_caught_up(&p, &s);
    (p, s)
}

#[test]
fn read_only_on_a_caught_up_standby_records_it_without_a_lag_finding() {
    let (p, s) = prepared_pair();
    let env = stdout(&run_ok(fairbench().args(["env", "--target", &url(s.port)])));
    assert!(env.contains("standby (in recovery): replay 0.0 s behind"), "{env}");
    // pg_current_wal_lsn() is an error during recovery: the capture must not send it there.
    assert!(!env.contains("Not captured"), "{env}");
    let primary_env = stdout(&run_ok(fairbench().args(["env", "--target", &url(p.port)])));
    assert!(!primary_env.contains("standby (in recovery)") && primary_env.contains("standbys=1"), "{primary_env}");
    let store = scratch_dir("standby-store").join("r.sqlite");
    let out = read_only(&url(s.port), &store);
    assert!(stdout(&out).contains("transactions:"), "{}", stdout(&out));
    let show = stdout(&run_ok(fairbench().args(["results", "show", "last", "--results"]).arg(&store)));
    assert!(show.contains("standby (in recovery)"), "{show}");
    let audit = audit_text(&store);
    assert!(!audit.contains("standby-lag"), "{audit}");
}

#[test]
fn read_only_on_a_lagging_standby_is_called_out_by_the_audit() {
    let (p, s) = prepared_pair();
    delay_apply(&s);
    // Commits the standby receives and holds back: its replay falls behind.
    for i in 0..5 {
        psql(p.port, &format!("UPDATE sbt_1 SET k = k + 1 WHERE id = {}", i + 1));
    }
    // fairbench's own view of the lag, read until it passes a second (it grows by the clock).
    let mut env = String::new();
    let lagging = eventually(Duration::from_secs(30), || {
        env = stdout(&run_ok(fairbench().args(["env", "--target", &url(s.port)])));
        let lag: f64 = env.split("replay ").nth(1).and_then(|t| t.split(' ').next()).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no lag in:\n{env}"));
        lag > 1.0
    });
    assert!(lagging, "the standby's replay lag never passed 1 s: {env}");
    let store = scratch_dir("standby-store").join("r.sqlite");
    read_only(&url(s.port), &store);
    let audit = audit_text(&store);
    assert!(audit.contains("standby-lag") && audit.contains("behind its primary"), "{audit}");
}
