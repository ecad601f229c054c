//! The sharded sandbox's processes: found from their pid files in the
//! sandbox's directory, stopped in the order that loses nothing.

use super::super::super::daemon::{gone, pid_in, signal};
use super::super::super::Sandbox;
use super::shard_dirs;
use std::time::{Duration, Instant};

/// The processes in stop order: vtgate first (no new statements), the
/// tablets, the MariaDB servers (each writes its last commits), vtctld,
/// etcd last (the others read the topology from it).
fn tiers(sb: &Sandbox) -> Vec<Vec<i32>> {
    let d = &sb.dir;
    let shards = shard_dirs(sb);
    let one = |f: &str| pid_in(&d.join(f), d).into_iter().collect::<Vec<_>>();
    vec![
        one("vtgate.pid"),
        shards.iter().filter_map(|k| pid_in(&k.join("vttablet.pid"), d)).collect(),
        shards.iter().filter_map(|k| pid_in(&k.join("mysqld.pid"), d).or_else(|| pid_in(&k.join("launch.pid"), d))).collect(),
        one("vtctld.pid"),
        one("etcd.pid"),
    ]
}

/// The kind's processes, as the sandbox registry asks for them.
pub(super) struct Cluster;

impl super::super::Processes for Cluster {
    fn is_running(&self, sb: &Sandbox) -> bool {
        tiers(sb).iter().any(|t| !t.is_empty())
    }

    /// Ends everything at once (a failed start, Ctrl-C, a stop that took too long).
    fn kill(&self, sb: &Sandbox) {
        let all: Vec<i32> = tiers(sb).into_iter().flatten().collect();
        signal(&all, libc::SIGKILL);
        gone(&all, &sb.dir, Duration::from_secs(3));
    }

    /// A clean stop, tier by tier; whatever is left after `limit` is killed.
    fn stop(&self, sb: &Sandbox, limit: Duration) {
        let end = Instant::now() + limit;
        for tier in tiers(sb) {
            signal(&tier, libc::SIGTERM);
            gone(&tier, &sb.dir, end.saturating_duration_since(Instant::now()));
        }
        self.kill(sb);
    }
}
