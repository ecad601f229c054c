//! The cluster's processes: finding them from the sandbox's directory,
//! and ending them cleanly or at once.

use super::super::super::daemon::{gone, pid_in, signal};
use super::super::super::Sandbox;
use super::node_dirs;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// The cluster's processes by role: Patronis, PostgreSQL postmasters, etcd.
struct Procs {
    patronis: Vec<i32>,
    postmasters: Vec<i32>,
    etcd: Option<i32>,
}

fn procs(sb: &Sandbox) -> Procs {
    let dirs = node_dirs(sb);
    Procs {
        patronis: dirs.iter().filter_map(|d| pid_in(&d.join("patroni.pid"), d)).collect(),
        postmasters: dirs.iter().filter_map(|d| pid_in(&d.join("data/postmaster.pid"), d)).collect(),
        etcd: pid_in(&sb.dir.join("etcd.pid"), &sb.dir),
    }
}

/// Every process still running from the sandbox's directory: a program of
/// the cluster (Patroni, etcd, PostgreSQL and the initdb, pg_basebackup or
/// pg_rewind Patroni runs) with a path inside it on its command line.
fn leftovers(dir: &Path) -> Vec<i32> {
    const PROGRAMS: &[&str] = &["patroni", "etcd", "postgres", "initdb", "pg_basebackup", "pg_rewind", "pg_ctl"];
    let inside = format!("{}/", dir.display());
    let me = std::process::id() as i32;
    fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()))
        .filter(|&pid| pid != me)
        .filter(|pid| {
            let Ok(raw) = fs::read(format!("/proc/{pid}/cmdline")) else { return false };
            let args: Vec<String> = raw.split(|&c| c == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
            // The program, or the script an interpreter runs (python3 .../patroni).
            let ours = args.iter().take(2).any(|a| PROGRAMS.contains(&Path::new(a).file_name().and_then(|f| f.to_str()).unwrap_or("")));
            ours && args.iter().any(|a| a.contains(&inside))
        })
        .collect()
}

/// The kind's processes, as the sandbox registry asks for them.
pub(super) struct Cluster;

impl super::super::Processes for Cluster {
    /// Whether any of the cluster's programs runs.
    fn is_running(&self, sb: &Sandbox) -> bool {
        let p = procs(sb);
        !p.patronis.is_empty() || !p.postmasters.is_empty() || p.etcd.is_some()
    }

    /// Ends everything at once (a failed start, Ctrl-C, a stop that took too
    /// long): Patroni first, with what it runs in its process group, so that no
    /// node is started again; PostgreSQL's immediate shutdown; etcd; then
    /// anything else still running from the directory.
    fn kill(&self, sb: &Sandbox) {
        let p = procs(sb);
        for &pid in &p.patronis {
            // SAFETY: as in signal(); the group is the one Patroni was started in.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        signal(&p.postmasters, libc::SIGQUIT);
        signal(&p.etcd.into_iter().collect::<Vec<_>>(), libc::SIGKILL);
        let mut all: Vec<i32> = p.patronis.iter().chain(&p.postmasters).chain(&p.etcd).copied().collect();
        all.extend(leftovers(&sb.dir));
        // An immediate shutdown takes PostgreSQL a moment; a Ctrl-C must end within 2 s.
        if !gone(&all, &sb.dir, Duration::from_millis(800)) {
            let left = leftovers(&sb.dir);
            signal(&left, libc::SIGKILL);
            gone(&left, &sb.dir, Duration::from_secs(3));
        }
    }

    /// A clean stop: every Patroni stops its PostgreSQL (fast shutdown), then
    /// etcd stops; whatever is left after `limit` is killed. A synchronous
    /// standby's Patroni first waits up to two of its cycles (4 s) to be
    /// released from that role. Once every PostgreSQL is down, a Patroni still
    /// tidying up (its etcd watch, its REST API) gets a second: its data is
    /// about to be removed anyway.
    fn stop(&self, sb: &Sandbox, limit: Duration) {
        let p = procs(sb);
        signal(&p.patronis, libc::SIGTERM);
        let end = Instant::now() + limit;
        let postmasters_down = gone(&p.postmasters, &sb.dir, limit) && {
            // A postmaster Patroni started while it got the signal.
            let started = procs(sb).postmasters;
            gone(&started, &sb.dir, end.saturating_duration_since(Instant::now()))
        };
        if postmasters_down {
            gone(&p.patronis, &sb.dir, Duration::from_secs(1));
            // etcd last: no Patroni uses it any more.
            let etcd: Vec<i32> = p.etcd.into_iter().collect();
            signal(&etcd, libc::SIGTERM);
            gone(&etcd, &sb.dir, Duration::from_secs(2));
        }
        self.kill(sb);
    }
}
