//! A PostgreSQL primary (a sandbox of its own) and a streaming standby made
//! from it with pg_basebackup -R: read-only workloads run on the standby,
//! the environment samples its replication lag, and the audit calls out a
//! standby that lagged (recovery_min_apply_delay) but not one caught up.

mod common;

use common::*;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A primary started with `fairbench server start postgres`, stopped when dropped.
struct Primary {
    dir: PathBuf,
    port: u16,
}

impl Drop for Primary {
    fn drop(&mut self) {
        let _ = fairbench().arg("server").arg("stop").arg(&self.dir).output();
    }
}

/// A standby of a primary on a port and directory of its own, stopped when dropped.
struct Standby {
    data: PathBuf,
    port: u16,
}

impl Drop for Standby {
    fn drop(&mut self) {
        let _ = as_postgres(&pg_bin("pg_ctl")).arg("stop").arg("-D").arg(&self.data).args(["-m", "immediate", "-w"]).output();
    }
}

fn pg_bin(name: &str) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql").expect("PostgreSQL is not installed").flatten().map(|e| e.path().join("bin")).filter(|d| d.join(name).is_file()).collect();
    dirs.sort_by_key(|d| d.parent().and_then(|v| v.file_name()).and_then(|v| v.to_str()).and_then(|v| v.parse::<u32>().ok()).unwrap_or(0));
    dirs.pop().unwrap_or_else(|| panic!("no {name} under /usr/lib/postgresql")).join(name)
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

fn postgres_ids() -> (u32, u32) {
    let id = |flag: &str| String::from_utf8_lossy(&Command::new("id").arg(flag).arg("postgres").output().unwrap().stdout).trim().parse::<u32>().expect("no postgres account");
    (id("-u"), id("-g"))
}

/// A command run as the postgres account when we are root (the server refuses root).
fn as_postgres(prog: &Path) -> Command {
    let mut c = Command::new(prog);
    c.stdin(Stdio::null()).current_dir("/");
    if is_root() {
        let (u, g) = postgres_ids();
        c.uid(u).gid(g);
    }
    c
}

fn chown_postgres(dir: &Path) {
    if is_root() {
        let (u, g) = postgres_ids();
        assert!(Command::new("chown").arg("-R").arg(format!("{u}:{g}")).arg(dir).status().unwrap().success());
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap().local_addr().unwrap().port()
}

const USER: &str = "fb";
const PASSWORD: &str = "fbpass";
const DB: &str = "fbtest";

fn url(port: u16) -> String {
    format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{port}/{DB}")
}

fn start_primary() -> Primary {
    let dir = scratch_dir("primary").join("pg");
    let out = run_ok(fairbench().args(["server", "start", "postgres", "--user", USER, "--password", PASSWORD, "--database", DB, "--env", "--dir"]).arg(&dir));
    let port = stdout(&out).lines().find_map(|l| l.strip_prefix("export FAIRBENCH_SANDBOX_PORT=")).map(|p| p.trim().parse().unwrap()).expect("no port");
    Primary { dir, port }
}

/// A standby streaming from `p`; `apply_delay` is its recovery_min_apply_delay.
fn start_standby(p: &Primary) -> Standby {
    let dir = scratch_dir("standby");
    chown_postgres(&dir);
    let data = dir.join("data");
    let bb = as_postgres(&pg_bin("pg_basebackup"))
        .args(["-h", "127.0.0.1", "-U", USER, "-R", "-X", "stream", "-c", "fast", "-p"])
        .arg(p.port.to_string())
        .arg("-D")
        .arg(&data)
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(bb.status.success(), "pg_basebackup: {}", String::from_utf8_lossy(&bb.stderr));
    let port = free_port();
    let conf = format!("\n# standby\nport = {port}\nunix_socket_directories = '{}'\nhot_standby = on\n", dir.display());
    std::fs::OpenOptions::new().append(true).open(data.join("postgresql.conf")).and_then(|mut f| std::io::Write::write_all(&mut f, conf.as_bytes())).unwrap();
    let sb = Standby { data, port };
    let st = as_postgres(&pg_bin("pg_ctl")).arg("start").arg("-D").arg(&sb.data).arg("-l").arg(dir.join("standby.log")).args(["-w", "-t", "60"]).output().unwrap();
    assert!(st.status.success(), "standby start: {}{}", String::from_utf8_lossy(&st.stdout), std::fs::read_to_string(dir.join("standby.log")).unwrap_or_default());
    sb
}

/// Makes the standby hold back replay of every commit for an hour.
fn delay_apply(s: &Standby) {
    let conf = "\nrecovery_min_apply_delay = '1h'\n";
    std::fs::OpenOptions::new().append(true).open(s.data.join("postgresql.conf")).and_then(|mut f| std::io::Write::write_all(&mut f, conf.as_bytes())).unwrap();
    assert!(as_postgres(&pg_bin("pg_ctl")).arg("reload").arg("-D").arg(&s.data).output().unwrap().status.success());
}

fn psql(port: u16, sql: &str) -> String {
    let o = Command::new(pg_bin("psql"))
        .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-U", USER, "-d", DB, "-p"])
        .arg(port.to_string())
        .arg("-c")
        .arg(sql)
        .env("PGPASSWORD", PASSWORD)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Waits until the standby has replayed everything the primary wrote so far.
fn wait_caught_up(p: &Primary, s: &Standby) {
    let target = psql(p.port, "SELECT pg_current_wal_lsn()");
    let end = Instant::now() + Duration::from_secs(60);
    while psql(s.port, &format!("SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn")) != "t" {
        assert!(Instant::now() < end, "the standby did not catch up within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
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
    std::thread::sleep(Duration::from_millis(2500));
    let env = stdout(&run_ok(fairbench().args(["env", "--target", &url(s.port)])));
    let lag: f64 = env.split("replay ").nth(1).and_then(|t| t.split(' ').next()).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no lag in:\n{env}"));
    assert!(lag > 1.0, "{env}");
    let store = scratch_dir("standby-store").join("r.sqlite");
    read_only(&url(s.port), &store);
    let audit = audit_text(&store);
    assert!(audit.contains("standby-lag") && audit.contains("behind its primary"), "{audit}");
}
