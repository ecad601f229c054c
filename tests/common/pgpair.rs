//! A PostgreSQL primary (a `fairbench server start postgres` sandbox) and
//! streaming standbys made from it with `pg_basebackup -R`, each on a port
//! and directory of its own and stopped when dropped.

use super::*;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const USER: &str = "fb";
pub const PASSWORD: &str = "fbpass";
pub const DB: &str = "fbtest";

/// A primary started with `fairbench server start postgres`, stopped when dropped.
pub struct Primary {
    pub dir: PathBuf,
    pub port: u16,
}

impl Primary {
    /// Stops the server now, as a crash would (no shutdown checkpoint).
    pub fn kill(&self) {
        let data = self.data_dir();
        let o = as_postgres(&pg_bin("pg_ctl")).arg("stop").arg("-D").arg(&data).args(["-m", "immediate", "-w"]).output().unwrap();
        assert!(o.status.success(), "stopping the primary: {}", String::from_utf8_lossy(&o.stderr));
    }

    /// The server's data directory inside the sandbox.
    fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// The postmaster's process id.
    pub fn pid(&self) -> u32 {
        postmaster_pid(&self.data_dir())
    }
}

impl Drop for Primary {
    fn drop(&mut self) {
        let _ = fairbench().arg("server").arg("stop").arg(&self.dir).output();
    }
}

/// A standby of a primary on a port and directory of its own, stopped when dropped.
pub struct Standby {
    pub data: PathBuf,
    pub port: u16,
}

impl Standby {
    /// The postmaster's process id.
    pub fn pid(&self) -> u32 {
        postmaster_pid(&self.data)
    }

    /// Promotes the standby to a primary and waits until it accepts writes.
    pub fn promote(&self) {
        let o = as_postgres(&pg_bin("pg_ctl")).arg("promote").arg("-D").arg(&self.data).args(["-w", "-t", "60"]).output().unwrap();
        assert!(o.status.success(), "promote: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    }
}

impl Drop for Standby {
    fn drop(&mut self) {
        let _ = as_postgres(&pg_bin("pg_ctl")).arg("stop").arg("-D").arg(&self.data).args(["-m", "immediate", "-w"]).output();
    }
}

fn postmaster_pid(data: &Path) -> u32 {
    let f = std::fs::read_to_string(data.join("postmaster.pid")).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    f.lines().next().and_then(|l| l.trim().parse().ok()).expect("no pid in postmaster.pid")
}

pub fn pg_bin(name: &str) -> PathBuf {
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
pub fn as_postgres(prog: &Path) -> Command {
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

pub fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap().local_addr().unwrap().port()
}

pub fn url(port: u16) -> String {
    format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{port}/{DB}")
}

pub fn start_primary() -> Primary {
    let dir = scratch_dir("primary").join("pg");
    let out = run_ok(fairbench().args(["server", "start", "postgres", "--user", USER, "--password", PASSWORD, "--database", DB, "--env", "--dir"]).arg(&dir));
    let port = stdout(&out).lines().find_map(|l| l.strip_prefix("export FAIRBENCH_SANDBOX_PORT=")).map(|p| p.trim().parse().unwrap()).expect("no port");
    Primary { dir, port }
}

/// A standby streaming from `p`.
pub fn start_standby(p: &Primary) -> Standby {
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

pub fn psql(port: u16, sql: &str) -> String {
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
pub fn wait_caught_up(p: &Primary, s: &Standby) {
    let target = psql(p.port, "SELECT pg_current_wal_lsn()");
    let end = Instant::now() + Duration::from_secs(60);
    while psql(s.port, &format!("SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn")) != "t" {
        assert!(Instant::now() < end, "the standby did not catch up within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
}
