//! `fairbench server start patroni`: a PostgreSQL cluster of real processes
//! (etcd, one Patroni and one PostgreSQL per node) from Debian's `patroni`
//! and `etcd-server` packages, which scripts/test.sh installs. Each test has
//! a sandbox registry and a block of ports of its own, so they run in
//! parallel without meeting.

mod common;

use common::{assert_one_line_error, fairbench, hostile_env, run_fail, run_ok, scratch_dir, show, stderr, stdout, url_saying_everything};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Ports a cluster sandbox takes from its --port.
const BLOCK: u16 = 20;

/// The first block of `BLOCK` free ports from `from` (each test its own `from`).
fn free_block(from: u16) -> u16 {
    (0..40).map(|i| from + i * BLOCK).find(|&p| (p..p + BLOCK).all(|q| std::net::TcpListener::bind(("127.0.0.1", q)).is_ok())).expect("no free block of ports")
}

/// Every process with a path inside `dir` on its command line.
fn processes_in(dir: &Path) -> Vec<String> {
    let inside = format!("{}/", dir.display());
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()) && n != me))
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok().map(|c| (e.file_name(), String::from_utf8_lossy(&c).replace('\0', " "))))
        .filter(|(_, c)| c.contains(&inside))
        .map(|(pid, c)| format!("{}: {c}", pid.to_string_lossy()))
        .collect()
}

/// Registry entries left in a sandbox root.
fn entries(root: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(root).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default()
}

fn psql() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql").expect("PostgreSQL is not installed").flatten().map(|e| e.path().join("bin/psql")).filter(|p| p.is_file()).collect();
    dirs.sort();
    dirs.pop().expect("no psql under /usr/lib/postgresql")
}

/// One value from a node, over its own single-host URL.
fn query(url: &str, sql: &str) -> Result<String, String> {
    let o = Command::new(psql()).args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql]).env("PGCONNECT_TIMEOUT", "3").stdin(Stdio::null()).output().unwrap();
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
    }
}

/// A started cluster, stopped when dropped (also when the test fails).
struct Cluster {
    root: PathBuf,
    name: String,
    dir: PathBuf,
    url: String,
    nodes: Vec<String>,
    ctl: String,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = fairbench().args(["server", "stop", &self.name]).env("FAIRBENCH_SANDBOX_ROOT", &self.root).output();
    }
}

impl Cluster {
    /// Started with wrong client variables in the environment (`HOSTILE_ENV`):
    /// the cluster's programs must not see them.
    fn start(root: &Path, port: u16, args: &[&str]) -> (Cluster, Output) {
        let out = run_ok(hostile_env(&mut fairbench()).args(["server", "start", "patroni", "--port", &port.to_string()]).args(args).env("FAIRBENCH_SANDBOX_ROOT", root));
        let err = stderr(&out);
        let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("no name in\n{}", show(&out)));
        let env = stdout(&run_ok(fairbench().args(["server", "env", &name]).env("FAIRBENCH_SANDBOX_ROOT", root)));
        let field = |k: &str| env.lines().find_map(|l| l.strip_prefix(&format!("export {k}="))).map(|v| v.trim_matches('\'').to_string()).unwrap_or_else(|| panic!("no {k} in\n{env}"));
        let c = Cluster {
            root: root.to_path_buf(),
            name,
            dir: PathBuf::from(field("FAIRBENCH_SANDBOX_DIR")),
            url: stdout(&out).trim().to_string(),
            nodes: field("FAIRBENCH_SANDBOX_NODE_URLS").split(' ').map(str::to_string).collect(),
            ctl: field("FAIRBENCH_SANDBOX_PATRONICTL"),
        };
        (c, out)
    }

    /// Each node's answer to `pg_is_in_recovery()` (None: no answer).
    fn roles(&self) -> Vec<Option<bool>> {
        self.nodes.iter().map(|u| query(u, "SELECT pg_is_in_recovery()").ok().map(|v| v == "t")).collect()
    }

    /// The one node that is not in recovery, if there is exactly one and every other answers.
    fn leader(&self) -> Option<usize> {
        let r = self.roles();
        let primaries: Vec<usize> = r.iter().enumerate().filter(|(_, v)| **v == Some(false)).map(|(i, _)| i).collect();
        (primaries.len() == 1 && r.iter().all(Option::is_some)).then(|| primaries[0])
    }

    /// The one primary among the nodes other than `dead` that answer.
    fn leader_among_living(&self, dead: usize) -> Option<usize> {
        let r = self.roles();
        let primaries: Vec<usize> = r.iter().enumerate().filter(|(i, v)| *i != dead && **v == Some(false)).map(|(i, _)| i).collect();
        (primaries.len() == 1).then(|| primaries[0])
    }

    /// Healthy: one leader, every replica streaming from it, a synchronous standby named.
    fn healthy(&self) -> Option<usize> {
        let l = self.leader()?;
        let streaming = query(&self.nodes[l], "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND application_name LIKE 'node%'").ok()?;
        let sync = query(&self.nodes[l], "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'").ok()?;
        (streaming == (self.nodes.len() - 1).to_string() && sync == "1").then_some(l)
    }

    fn patronictl(&self, args: &[&str]) -> Output {
        let mut words = self.ctl.split(' ');
        let out = Command::new(words.next().unwrap()).args(words).args(args).stdin(Stdio::null()).output().unwrap();
        assert!(out.status.success(), "patronictl {args:?}\n{}", show(&out));
        out
    }
}

/// Waits up to `limit` for `f` to give Some.
fn eventually<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let end = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() > end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn a_synchronous_cluster_has_one_leader_switches_over_and_stops_without_a_trace() {
    let root = scratch_dir("patroni-root");
    let port = free_block(26000);
    let t0 = Instant::now();
    let (c, out) = Cluster::start(&root, port, &["--nodes", "3", "--sync", "--profile", "relaxed", "--set", "work_mem=7MB"]);
    eprintln!("3-node cluster up in {:.1}s", t0.elapsed().as_secs_f64());
    // The multi-host URL names the nodes, in order, and asks for the leader.
    let ports: Vec<u16> = (port..port + 3).collect();
    let hosts: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    assert_eq!(c.url, format!("postgres://fairbench:fairbench@{}/fairbench?target_session_attrs=read-write", hosts.join(",")), "{}", show(&out));
    assert_eq!(c.nodes, ports.iter().map(|p| format!("postgres://fairbench:fairbench@127.0.0.1:{p}/fairbench")).collect::<Vec<_>>());
    let err = stderr(&out);
    assert!(err.contains("patronictl: ") && err.contains("patronictl.yml list"), "{err}");
    assert!(err.contains(&format!("REST API http://127.0.0.1:{}", port + 10)), "{err}");
    // Started = ready: exactly one leader at once, and a synchronous standby.
    let leader = c.healthy().unwrap_or_else(|| {
        let l = c.leader().map(|l| query(&c.nodes[l], "SELECT application_name, state, sync_state FROM pg_stat_replication"));
        panic!("not healthy right after start: {:?}, leader's replication: {l:?}", c.roles())
    });
    let names = query(&c.nodes[leader], "SHOW synchronous_standby_names").unwrap();
    assert!(!names.is_empty(), "synchronous_standby_names is empty");
    let list = stdout(&c.patronictl(&["list"]));
    assert!(list.contains("Sync Standby") && list.matches("Leader").count() == 1, "{list}");
    // The profile and --set reach every node, through the cluster's configuration.
    for u in &c.nodes {
        assert_eq!(query(u, "SHOW synchronous_commit").unwrap(), "off", "{u}");
        assert_eq!(query(u, "SHOW work_mem").unwrap(), "7MB", "{u}");
    }
    // The test account and database, on every node; writes on the leader reach the replicas.
    query(&c.nodes[leader], "CREATE TABLE t (id int); INSERT INTO t VALUES (1)").unwrap();
    for u in &c.nodes {
        assert_eq!(eventually(Duration::from_secs(10), || query(u, "SELECT count(*) FROM t").ok()).as_deref(), Some("1"), "{u}");
    }
    // The environment of one node is captured as any PostgreSQL server's, also by a run against it.
    let env = stdout(&run_ok(fairbench().args(["env", "--target", &c.nodes[leader]])));
    assert!(env.contains("PostgreSQL") && env.contains("durability:"), "{env}");
    let results = scratch_dir("patroni-results").join("r.sqlite");
    let run =
        run_ok(fairbench().args(["run", "oltp_read_write", "--tables", "1", "--table-size", "200", "--threads", "1", "--time", "1", "--target", &c.nodes[leader]]).arg("--results").arg(&results));
    assert!(stdout(&run).contains("transactions:"), "{}", show(&run));
    let listed = stdout(&run_ok(fairbench().args(["server", "list"]).env("FAIRBENCH_SANDBOX_ROOT", &root)));
    assert!(listed.contains(&c.name) && listed.contains("running") && listed.contains("patroni"), "{listed}");

    // A switchover moves the leader; the cluster is whole again after it.
    let t1 = Instant::now();
    c.patronictl(&["switchover", "--force"]);
    let new = eventually(Duration::from_secs(60), || c.healthy().filter(|&l| l != leader))
        .unwrap_or_else(|| panic!("no healthy cluster with a new leader: {:?}\n{}", c.roles(), stdout(&c.patronictl(&["list"]))));
    eprintln!("switchover to a healthy cluster in {:.1}s", t1.elapsed().as_secs_f64());
    assert_ne!(new, leader);
    assert_eq!(query(&c.nodes[new], "SHOW work_mem").unwrap(), "7MB");
    query(&c.nodes[new], "INSERT INTO t VALUES (2)").unwrap();

    // Stop: nothing runs from the directory, which is gone with its registry entry.
    let dir = c.dir.clone();
    let t2 = Instant::now();
    let out = run_ok(fairbench().args(["server", "stop", &c.name]).env("FAIRBENCH_SANDBOX_ROOT", &root));
    eprintln!("stopped in {:.1}s", t2.elapsed().as_secs_f64());
    assert!(stderr(&out).contains("stopped"), "{}", show(&out));
    assert!(t2.elapsed() < Duration::from_secs(30), "stop took {:?}", t2.elapsed());
    assert_eq!(processes_in(&dir), Vec::<String>::new());
    assert!(!dir.exists(), "{} left behind", dir.display());
    assert_eq!(entries(&root), Vec::<PathBuf>::new());
    for u in &c.nodes {
        assert!(query(u, "SELECT 1").is_err(), "{u} still answers");
    }
}

/// `PGPASSWORD=anything fairbench server start patroni --nodes 3 --sync` exited 6 after
/// 120 s ("node1 not answering ... Error when fetching backup: pg_basebackup exited with
/// code=1"): Patroni and the pg_basebackup it runs for a replica inherited the user's
/// environment, and libpq takes PGPASSWORD over the passfile Patroni writes. Every wrong
/// client variable is in the start's environment (Cluster::start) and in the run's, whose
/// URL says everything.
#[test]
fn pgpassword_in_the_environment_does_not_break_a_patroni_start() {
    let root = scratch_dir("patroni-env-root");
    let (c, out) = Cluster::start(&root, free_block(28400), &["--nodes", "2", "--sync"]);
    // The replica was made by pg_basebackup and streams, as the synchronous standby.
    assert!(eventually(Duration::from_secs(30), || c.healthy()).is_some(), "not healthy: {:?}\n{}", c.roles(), show(&out));
    let url = url_saying_everything(&c.url);
    let size = ["--tables", "1", "--table-size", "1000"];
    run_ok(hostile_env(&mut fairbench()).args(["prepare", "oltp_point_select", "--target", &url]).args(size));
    let run = run_ok(hostile_env(&mut fairbench()).args(["run", "oltp_point_select", "--time", "2", "--no-save", "--target", &url]).args(size));
    assert!(stdout(&run).contains("transactions:"), "{}", show(&run));
}

#[test]
fn bad_input_is_one_line_with_exit_code_2_and_leaves_nothing() {
    let root = scratch_dir("patroni-bad");
    let port = free_block(26400);
    let p = port.to_string();
    // A port of the block in use.
    let busy = std::net::TcpListener::bind(("127.0.0.1", port + 7)).unwrap();
    for args in [
        vec!["server", "start", "patroni", "--nodes", "0"],
        vec!["server", "start", "patroni", "--nodes", "1"],
        vec!["server", "start", "patroni", "--nodes", "10"],
        vec!["server", "start", "patroni", "--nodes", "4000000000"],
        vec!["server", "start", "postgres", "--nodes", "3"],
        vec!["server", "start", "mariadb", "--sync"],
        vec!["server", "start", "patroni", "--set", "port=1"],
        vec!["server", "start", "patroni", "--set", "no_such_setting=1"],
        vec!["server", "start", "patroni", "--profile", "nope"],
        vec!["server", "start", "patroni", "--port", "65530"],
        vec!["server", "start", "patroni", "--port", &p],
    ] {
        let out = run_fail(fairbench().args(&args).env("FAIRBENCH_SANDBOX_ROOT", &root));
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        assert_one_line_error(&out, &[]);
    }
    drop(busy);
    assert_eq!(entries(&root), Vec::<PathBuf>::new());
}

#[test]
fn missing_packages_are_named_in_one_line() {
    let root = scratch_dir("patroni-missing");
    let empty = scratch_dir("patroni-empty-bindir");
    let out = run_fail(fairbench().args(["server", "start", "patroni"]).env("FAIRBENCH_PATRONI_BINDIR", &empty).env("FAIRBENCH_SANDBOX_ROOT", &root));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["patroni", "apt-get install patroni etcd-server"]);
    assert_eq!(entries(&root), Vec::<PathBuf>::new());
    // The real thing is installed here: a test machine without it fails, never skips.
    for bin in ["patroni", "patronictl", "etcd"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).any(|d| d.join(bin).is_file());
        assert!(found, "{bin} is not installed: apt-get install patroni etcd-server (scripts/test.sh does)");
    }
}

#[test]
fn a_start_that_times_out_says_why_and_leaves_nothing() {
    let root = scratch_dir("patroni-timeout");
    let port = free_block(26800);
    let out = run_fail(fairbench().args(["server", "start", "patroni", "--nodes", "2", "--timeout", "2", "--port", &port.to_string()]).env("FAIRBENCH_SANDBOX_ROOT", &root));
    assert_eq!(out.status.code(), Some(6), "{}", show(&out));
    assert_one_line_error(&out, &["not ready within 2s", "(log: "]);
    assert_eq!(entries(&root), Vec::<PathBuf>::new());
    assert_eq!(processes_in(&root), Vec::<String>::new());
}

#[test]
fn ctrl_c_during_start_leaves_nothing_running() {
    let root = scratch_dir("patroni-ctrlc");
    let port = free_block(27200);
    let mut child = fairbench()
        .args(["server", "start", "patroni", "--nodes", "2", "--port", &port.to_string()])
        .env("FAIRBENCH_SANDBOX_ROOT", &root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Once the nodes' Patronis run (initdb, base backups under way).
    let dir = root.join(format!("patroni-{port}"));
    let started = eventually(Duration::from_secs(30), || dir.join("node2/patroni.pid").exists().then_some(()));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t0 = Instant::now();
    let st = child.wait().unwrap();
    let took = t0.elapsed();
    assert!(started.is_some(), "the nodes never started");
    assert_eq!(st.code(), Some(130));
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(processes_in(&root), Vec::<String>::new());
    assert_eq!(entries(&root), Vec::<PathBuf>::new());
}

// High availability under load: the outage of a switchover or a failover,
// and the acknowledged writes it lost, as a run with --verify-writes
// measures them.

/// A run in the background against the cluster's multi-host URL, watched: the tests act on
/// its own clock (its fifth second), not after a sleep.
fn start_run(c: &Cluster, workload: &str, table: &str, secs: u32, log: &Path) -> common::watch::Watched {
    let size = ["--table-name", table, "--tables", "2", "--table-size", "10000"];
    run_ok(fairbench().args(["prepare", workload, "--target", &c.url]).args(size));
    common::watch::Watched::spawn(
        fairbench()
            .args(["run", workload, "--target", &c.url, "--threads", "4", "--time", &secs.to_string(), "--report-interval", "1", "--output", "json", "--no-save"])
            .args(size)
            .arg(format!("--verify-writes={}", log.display())),
    )
}

fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    stdout(out).lines().filter(|l| l.starts_with('{')).filter_map(|l| serde_json::from_str(l).ok()).collect()
}

fn of_type<'a>(lines: &'a [serde_json::Value], ty: &str, out: &Output) -> &'a serde_json::Value {
    lines.iter().rev().find(|v| v["type"] == ty).unwrap_or_else(|| panic!("no {ty} object\n{}", show(out)))
}

/// Transactions per second of the intervals before `from_s` and after `to_s`
/// (medians), for the figures a test prints.
fn tps_around(lines: &[serde_json::Value], from_s: f64, to_s: f64) -> (f64, f64) {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let iv: Vec<(f64, f64)> = lines.iter().filter(|v| v["type"] == "interval").map(|v| (v["time_s"].as_f64().unwrap(), v["tps"].as_f64().unwrap())).collect();
    (median(iv.iter().filter(|(t, _)| *t < from_s).map(|x| x.1).collect()), median(iv.iter().filter(|(t, _)| *t > to_s + 1.0).map(|x| x.1).collect()))
}

#[test]
fn a_switchover_under_writes_loses_nothing_in_synchronous_mode_and_its_outage_is_measured() {
    let root = scratch_dir("patroni-switchover");
    let (c, _) = Cluster::start(&root, free_block(27600), &["--nodes", "3", "--sync"]);
    let leader = c.healthy().expect("a healthy cluster after start");
    let log = scratch_dir("patroni-switchover-writes").join("w.log");
    let mut child = start_run(&c, "oltp_write_only", "ha_sw_", 16, &log);
    let asked = child.wait_for_run_time(Duration::from_secs(120), 5.0).now();
    c.patronictl(&["switchover", "--force"]);
    let out = child.finish(Duration::from_secs(120));
    assert!(out.status.success(), "{}", show(&out));
    let lines = json_lines(&out);
    let s = of_type(&lines, "summary", &out);
    assert_eq!(s["status"], "completed", "{s}");
    assert!(s["reconnects"].as_u64().unwrap() >= 1, "no reconnect counted: {s}");
    assert_ne!(c.leader(), Some(leader), "the leader did not move");
    // The outage: measured, and within what the sandbox's Patroni settings
    // allow a switchover (ttl 10 s, loop_wait 2 s).
    let gap = &s["outage"]["write"];
    let (from, to, secs) = (gap["from_s"].as_f64().unwrap_or(0.0), gap["to_s"].as_f64().unwrap_or(0.0), gap["secs"].as_f64().unwrap_or(0.0));
    assert!(gap["open"] == false && secs > 0.05 && secs < 10.0, "{gap}");
    // It begins once the switchover is asked for, and within the demotion's time after.
    assert!(from >= asked - 0.5 && from < asked + 7.0, "the longest write gap (from {from:.2} s) is not the switchover's (asked at {asked:.2} s): {gap}");
    // Synchronous mode: no acknowledged write is lost.
    let w = of_type(&lines, "writes", &out);
    assert_eq!(w["lost"], 0, "{w}");
    assert!(w["acknowledged"].as_u64().unwrap() > 0 && w["checked"] == w["acknowledged"], "{w}");
    let (before, after) = tps_around(&lines, from, to);
    eprintln!(
        "switchover (synchronous): {before:.0} tps before, {after:.0} after; longest gap without a write {secs:.2} s from {from:.2} s; errors {}; reconnects {}; writes {w}",
        gap["errors"], s["reconnects"]
    );
}

/// The acknowledged keys a write log holds (`A` lines; oltp_insert's
/// (table, id)).
fn acked_keys(log: &Path) -> Vec<(i64, i64)> {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .skip(2)
        .filter(|l| l.starts_with("A "))
        .filter_map(|l| {
            let k: Vec<i64> = l.split(' ').skip(5).take(2).filter_map(|v| v.parse().ok()).collect();
            (k.len() == 2).then(|| (k[0], k[1]))
        })
        .collect()
}

/// Which of `keys` have no row on the node `url`, by the test's own queries.
fn missing_rows(url: &str, table: &str, keys: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut missing = Vec::new();
    for t in 1..=2 {
        let ids: Vec<i64> = keys.iter().filter(|k| k.0 == t).map(|k| k.1).collect();
        if ids.is_empty() {
            continue;
        }
        let list: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
        let sql = format!("SELECT x FROM unnest('{{{}}}'::bigint[]) AS x WHERE NOT EXISTS (SELECT 1 FROM {table}{t} WHERE id = x) ORDER BY x;\n", list.join(","));
        let mut child =
            Command::new(psql()).args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), sql.as_bytes()).unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", show(&o));
        missing.extend(String::from_utf8_lossy(&o.stdout).lines().filter_map(|l| l.trim().parse::<i64>().ok()).map(|id| (t, id)));
    }
    missing.sort();
    missing
}

#[test]
fn a_failover_after_the_leader_is_killed_reports_the_lost_writes_the_test_finds_missing() {
    let root = scratch_dir("patroni-failover");
    let (c, _) = Cluster::start(&root, free_block(28000), &["--nodes", "3"]);
    let leader = c.leader().expect("a leader after start");
    let log = scratch_dir("patroni-failover-writes").join("w.log");
    let mut child = start_run(&c, "oltp_insert", "ha_fo_", 30, &log);
    let clock = child.wait_for_run_time(Duration::from_secs(120), 5.0);
    // The leader's node dies at once: its Patroni (which would restart its
    // PostgreSQL and keep the leader key) and its PostgreSQL, by SIGKILL. In
    // asynchronous mode a replica is promoted once the key expires (ttl
    // 10 s), with what it had received: the last commits may be lost.
    let node = c.dir.join(format!("node{}", leader + 1));
    let victims = processes_in(&node);
    assert!(victims.len() >= 2, "the leader's Patroni and PostgreSQL were not found: {victims:?}");
    for v in &victims {
        let pid: i32 = v.split(':').next().unwrap().parse().unwrap();
        // SAFETY: kill has no memory-safety preconditions; the pids are the sandbox's.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let killed_at = clock.now();
    let out = child.finish(Duration::from_secs(120));
    // Exit 0, or 5 when acknowledged writes were lost (--verify-writes' check failed).
    assert!(matches!(out.status.code(), Some(0) | Some(5)), "{}", show(&out));
    let lines = json_lines(&out);
    let s = of_type(&lines, "summary", &out);
    assert_eq!(s["status"], "completed", "{s}");
    assert!(s["reconnects"].as_u64().unwrap() >= 1, "{s}");
    let new = eventually(Duration::from_secs(30), || c.leader_among_living(leader)).expect("no new leader");
    let w = of_type(&lines, "writes", &out);
    let mut reported: Vec<(i64, i64)> = w["lost_keys"].as_array().unwrap().iter().map(|k| (k[0].as_i64().unwrap(), k[1].as_i64().unwrap())).collect();
    reported.sort();
    let acked = acked_keys(&log);
    assert_eq!(acked.len() as u64, w["acknowledged"].as_u64().unwrap(), "{w}");
    let missing = missing_rows(&c.nodes[new], "ha_fo_", &acked);
    assert_eq!(reported, missing, "the lost writes reported are not the acknowledged rows missing on the new leader: {w}");
    assert_eq!(out.status.code(), Some(if missing.is_empty() { 0 } else { 5 }), "{}", show(&out));
    let gap = &s["outage"]["write"];
    let (from, to) = (gap["from_s"].as_f64().unwrap_or(0.0), gap["to_s"].as_f64().unwrap_or(0.0));
    assert!(gap["secs"].as_f64().unwrap_or(0.0) > 1.0, "{gap}");
    assert!((from - killed_at).abs() <= 1.0, "the longest write gap begins at {from:.2} s, the leader was killed at {killed_at:.2} s: {gap}");
    let (before, after) = tps_around(&lines, from, to);
    eprintln!("failover (asynchronous, leader killed): {before:.0} tps before, {after:.0} after; longest gap without a write {:.2} s from {from:.2} s; errors {}; reconnects {}; lost {} of {} acknowledged, ambiguous {} ({} committed)", gap["secs"].as_f64().unwrap_or(0.0), gap["errors"], s["reconnects"], w["lost"], w["acknowledged"], w["ambiguous"], w["ambiguous_committed"]);
}
