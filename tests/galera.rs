//! A 3-node MariaDB Galera cluster on loopback (Debian's galera-4), each
//! node a `fairbench server start mariadb` sandbox of its own: a host list
//! spreads the clients over the nodes, events are counted per node,
//! certification conflicts are retried by their code (1213), and a node
//! killed mid-run loses its clients to the others while the run goes on.

mod common;

use common::*;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

const PROVIDER: &str = "/usr/lib/galera/libgalera_smm.so";

/// The nodes, stopped (all of them, also a killed one) when dropped.
struct Galera {
    nodes: Vec<Node>,
}

struct Node {
    dir: PathBuf,
    port: u16,
}

impl Drop for Galera {
    fn drop(&mut self) {
        for n in self.nodes.iter().rev() {
            let _ = fairbench().arg("server").arg("stop").arg(&n.dir).output();
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap().local_addr().unwrap().port()
}

impl Galera {
    /// Starts `n` nodes one after the other: the first bootstraps the
    /// cluster (an empty gcomm://), the others join it and take a state
    /// transfer (rsync) from it.
    fn start(n: usize) -> Galera {
        assert!(std::path::Path::new(PROVIDER).is_file(), "{PROVIDER} is missing: scripts/test.sh installs galera-4");
        let base = scratch_dir("galera");
        let name = format!("fb{}", std::process::id());
        let mut g = Galera { nodes: Vec::new() };
        let mut gcomm: Vec<String> = Vec::new();
        for i in 0..n {
            let (gport, ist, sst) = (free_port(), free_port(), free_port());
            let dir = base.join(format!("node{}", i + 1));
            let sets = [
                "wsrep_on=ON".to_string(),
                format!("wsrep_provider={PROVIDER}"),
                format!("wsrep_cluster_name={name}"),
                format!("wsrep_cluster_address=gcomm://{}", gcomm.join(",")),
                format!("wsrep_node_name=node{}", i + 1),
                format!("wsrep_node_address=127.0.0.1:{gport}"),
                format!("wsrep_provider_options=gmcast.listen_addr=tcp://127.0.0.1:{gport};ist.recv_addr=127.0.0.1:{ist}"),
                format!("wsrep_sst_receive_address=127.0.0.1:{sst}"),
                "wsrep_sst_method=rsync".to_string(),
                "binlog_format=ROW".to_string(),
                "innodb_autoinc_lock_mode=2".to_string(),
                "innodb_buffer_pool_size=64M".to_string(),
            ];
            let mut cmd = fairbench();
            cmd.args(["server", "start", "mariadb", "--user", "fb", "--password", "fbpass", "--database", "fbtest", "--timeout", "180", "--env", "--dir"]).arg(&dir);
            for s in &sets {
                cmd.arg("--set").arg(s);
            }
            // Pushed before starting: a node that fails half-way is stopped too.
            g.nodes.push(Node { dir: dir.clone(), port: 0 });
            let out = run_ok(&mut cmd);
            let port = stdout(&out).lines().find_map(|l| l.strip_prefix("export FAIRBENCH_SANDBOX_PORT=")).map(|p| p.trim().parse().unwrap()).expect("no port");
            g.nodes.last_mut().unwrap().port = port;
            gcomm.push(format!("127.0.0.1:{gport}"));
        }
        g
    }

    fn url(&self) -> String {
        let hosts: Vec<String> = self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
        format!("mysql://fb:fbpass@{}/fbtest", hosts.join(","))
    }

    fn status(&self, node: usize, name: &str) -> f64 {
        let out = std::process::Command::new("mariadb")
            .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-ufb", "-pfbpass", "-N", "-B", "-P"])
            .arg(self.nodes[node].port.to_string())
            .arg("-e")
            .arg(format!("SHOW GLOBAL STATUS LIKE '{name}'"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        text.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{name} on node {node}: {text} {}", String::from_utf8_lossy(&out.stderr)))
    }

    /// The server pid of node `i`, from its pid file.
    fn pid(&self, i: usize) -> i32 {
        std::fs::read_to_string(self.nodes[i].dir.join("mysqld.pid")).unwrap().trim().parse().unwrap()
    }
}

fn json_lines(out: &std::process::Output) -> Vec<Value> {
    stdout(out).lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn summary(lines: &[Value]) -> &Value {
    lines.iter().rev().find(|v| v["type"] == "summary").expect("no summary")
}

#[test]
fn galera_spreads_clients_counts_nodes_retries_conflicts_and_survives_a_killed_node() {
    let g = Galera::start(3);
    assert_eq!(g.status(2, "wsrep_cluster_size"), 3.0);
    let url = g.url();
    let t = ["--target", url.as_str(), "--table-name", "gal_", "--tables", "1"];
    run_ok(fairbench().arg("prepare").arg("oltp_read_write").args(t).args(["--table-size", "1000"]));

    // Every client writes the same 5 rows through three nodes: certification conflicts.
    let conflicts_before: f64 = (0..3).map(|i| g.status(i, "wsrep_local_cert_failures") + g.status(i, "wsrep_local_bf_aborts")).sum();
    let out = run_ok(fairbench().arg("run").arg("oltp_read_write").args(t).args(["--table-size", "5", "--threads", "6", "--time", "4", "--output", "json", "--no-save"]));
    let lines = json_lines(&out);
    let s = summary(&lines);
    assert_eq!(s["status"], "completed", "{s}");
    let nodes = s["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 3, "{s}");
    for n in nodes {
        assert!(n["events"].as_u64().unwrap() > 0, "a node ran nothing: {s}");
    }
    assert_eq!(nodes.iter().map(|n| n["events"].as_u64().unwrap()).sum::<u64>(), s["transactions"].as_u64().unwrap());
    assert_eq!(nodes[1]["node"], format!("127.0.0.1:{}", g.nodes[1].port));
    let conflicts: f64 = (0..3).map(|i| g.status(i, "wsrep_local_cert_failures") + g.status(i, "wsrep_local_bf_aborts")).sum::<f64>() - conflicts_before;
    assert!(conflicts > 0.0, "no certification conflicts happened: {s}");
    assert!(s["errors_by_code"]["1213"].as_u64().unwrap_or(0) > 0, "conflicts were not retried as 1213: {s}");

    // Node 3 killed mid-run: its clients (2 and 5 of 6) move to the other nodes.
    let mut run = fairbench();
    let log = scratch_dir("galera-writes").join("writes.log");
    run.arg("run").arg("oltp_read_write").args(t).args(["--table-size", "1000", "--threads", "6", "--time", "16", "--report-interval", "1", "--output", "json", "--no-save"]);
    run.arg(format!("--verify-writes={}", log.display()));
    // The kill on the run's own clock: once it has reported its fourth second.
    let mut child = watch::Watched::spawn(&mut run);
    let clock = child.wait_for_run_time(Duration::from_secs(120), 4.0);
    // SAFETY: kill has no memory-safety preconditions; the pid is our sandbox's server.
    assert_eq!(unsafe { libc::kill(g.pid(2), libc::SIGKILL) }, 0);
    let kill_s = clock.now();
    let out = child.finish(Duration::from_secs(120));
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let lines = json_lines(&out);
    let s = summary(&lines);
    assert_eq!(s["status"], "completed", "{s}");
    assert!(s["reconnects"].as_u64().unwrap() >= 2, "{s}");
    // A second in which no node completed an event has no per-node counts (null).
    let per_node = |v: &Value| -> Vec<u64> {
        let mut n: Vec<u64> = v["events_per_node"].as_array().map(|a| a.iter().map(|n| n.as_u64().unwrap()).collect()).unwrap_or_default();
        n.resize(3, 0);
        n
    };
    let per_second: Vec<Vec<u64>> = lines.iter().filter(|v| v["type"] == "interval").map(per_node).collect();
    assert!(per_second.len() >= 14, "{per_second:?}");
    // Before the kill all three nodes ran events; at the end only the two survivors did, and ran
    // all of them. Over the last three seconds: in one second a survivor's clients may all be
    // retrying certification conflicts on the same rows (seen: [322, 0, 0] after [270, 64, 0]).
    assert!(per_second[1].iter().all(|&n| n > 0), "{per_second:?}");
    let end: Vec<u64> = (0..3).map(|node| per_second[per_second.len() - 3..].iter().map(|s| s[node]).sum()).collect();
    assert!(end[0] > 0 && end[1] > 0 && end[2] == 0, "last three seconds per node {end:?}: {per_second:?}");
    // The kill shows as a second with fewer events than the seconds before it.
    let totals: Vec<u64> = per_second.iter().map(|v| v.iter().sum()).collect();
    eprintln!("events per second and node around the kill: {per_second:?}");
    let before = totals[1..3].iter().copied().max().unwrap();
    assert!(totals[3..].iter().any(|&t| t * 2 < before), "no gap visible per second: {totals:?}");

    // The outage: the cluster stops every write until it has evicted the
    // dead node; the gap begins at the kill (within a second) and ends.
    let gap = &s["outage"]["write"];
    eprintln!("longest gap without a completed write: {gap}");
    let (from, secs) = (gap["from_s"].as_f64().unwrap_or(-1.0), gap["secs"].as_f64().unwrap_or(0.0));
    assert!(gap["open"] == false && secs > 0.1 && secs < 30.0, "{gap}");
    assert!((from - kill_s).abs() <= 1.0, "the longest write gap begins at {from:.2} s, the kill was at {kill_s:.2} s: {gap}");
    // Lost writes: synchronous replication acknowledges a commit once every
    // node has it, so none is lost; commits cut off on the killed node are
    // ambiguous, counted apart: at most the two writes of c of the killed
    // node's two clients' last transactions (a COMMIT that a surviving node
    // answered with a certification failure did not commit: not ambiguous).
    let w = lines.iter().find(|v| v["type"] == "writes").unwrap_or_else(|| panic!("no writes object: {}", stdout(&out)));
    eprintln!("writes verified: {w}");
    assert_eq!(w["lost"], 0, "{w}");
    assert!(w["acknowledged"].as_u64().unwrap() > 0 && w["checked"] == w["acknowledged"], "{w}");
    assert!(w["ambiguous"].as_u64().unwrap() <= 4, "{w}");
}
