//! `fairbench server start vitess`: a sharded cluster of Debian's MariaDB
//! behind Vitess (etcd, vtctld, a tablet per shard, vtgate), as one
//! sandbox. The tests need the programs `bash scripts/build-vitess.sh`
//! builds (scripts/test.sh runs it first) and etcd; without them they fail,
//! with the start's one-line error saying how to get them.

mod common;

use common::{assert_one_line_error, fairbench, hostile_env, run_fail, run_ok, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// One sandbox at a time: each test has a registry of its own, so two
/// starting at once would both find the same block of ports free.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A directory of one test (its own sandbox registry), removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("fairbench-vitess-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("root")).unwrap();
        let _ = std::fs::set_permissions(&d, std::os::unix::fs::PermissionsExt::from_mode(0o755));
        Scratch(d)
    }

    fn root(&self) -> PathBuf {
        self.0.join("root")
    }

    fn fairbench(&self) -> Command {
        let mut c = fairbench();
        c.env("FAIRBENCH_SANDBOX_ROOT", self.root());
        c
    }

    fn registered(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.root()).unwrap().flatten().map(|e| e.path()).collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = self.fairbench().args(["server", "stop", "--all"]).output();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn field(out: &Output, key: &str) -> String {
    stdout(out).lines().find_map(|l| l.strip_prefix(&format!("export {key}=")).map(|v| v.trim_matches('\'').to_string())).unwrap_or_else(|| panic!("no {key} in\n{}", stdout(out)))
}

/// SQL through the MariaDB client over TCP on `port`.
fn sql_at(port: u16, q: &str) -> Result<String, String> {
    let o = Command::new("mariadb")
        .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-N", "-B", "--connect-timeout=5", "-ufairbench", "fairbench"])
        .arg(format!("-P{port}"))
        .env("MYSQL_PWD", "fairbench")
        .arg("-e")
        .arg(q)
        .output()
        .expect("the mariadb client");
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
    }
}

fn sql(port: u16, q: &str) -> String {
    sql_at(port, q).unwrap_or_else(|e| panic!("{q}: {e}"))
}

/// Processes whose command line names `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let d = format!("{}/", dir.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok().map(|c| (e.file_name(), String::from_utf8_lossy(&c).replace('\0', " "))))
        .filter(|(_, c)| c.contains(&d))
        .map(|(pid, c)| format!("{}: {c}", pid.to_string_lossy()))
        .collect()
}

/// A shard's MariaDB port, from its URL.
fn port_of(url: &str) -> u16 {
    url.rsplit_once(':').unwrap().1.split('/').next().unwrap().parse().unwrap()
}

#[test]
fn a_three_shard_sandbox_routes_rows_by_key_runs_durable_and_stops_leaving_nothing() {
    let _one = serial();
    let s = Scratch::new("three");
    // The wrong client variables of a user's shell reach none of its programs.
    let out = run_ok(hostile_env(&mut s.fairbench()).args(["server", "start", "vitess", "--shards", "3", "--profile", "durable", "--transaction-mode", "single", "--env"]));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let dir = PathBuf::from(field(&out, "FAIRBENCH_SANDBOX_DIR"));
    let port: u16 = field(&out, "FAIRBENCH_SANDBOX_PORT").parse().unwrap();
    let status: u16 = field(&out, "FAIRBENCH_SANDBOX_STATUS_PORT").parse().unwrap();
    assert_eq!(field(&out, "FAIRBENCH_SANDBOX_URL"), format!("mysql://fairbench:fairbench@127.0.0.1:{port}/fairbench?status-port={status}&admin-port={}", port + 4));
    assert_eq!(field(&out, "FAIRBENCH_SANDBOX_SHARDS"), "-55 55-aa aa-");
    let shards: Vec<u16> = field(&out, "FAIRBENCH_SANDBOX_SHARD_URLS").split(' ').map(port_of).collect();
    assert_eq!(shards.len(), 3, "{err}");

    // vtgate says it is Vitess, serves the three primaries, in the mode asked for.
    assert!(sql(port, "SELECT VERSION()").contains("-Vitess"));
    let tablets = sql(port, "SHOW VITESS_TABLETS");
    assert_eq!(tablets.lines().filter(|l| l.contains("\tPRIMARY\tSERVING\t")).count(), 3, "{tablets}");
    assert_eq!(sql(port, "SELECT @@transaction_mode"), "SINGLE");
    // Its account needs its password.
    assert!(Command::new("mariadb").args(["--no-defaults", "-h127.0.0.1", "-ufairbench", "-pwrong", "-e", "SELECT 1"]).arg(format!("-P{port}")).output().unwrap().status.code() != Some(0));

    // Rows split by the hash of their key: some on each shard, all through vtgate.
    sql(port, "CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v INT); ALTER VSCHEMA ON t ADD VINDEX hash(id) USING hash");
    // SINGLE: a statement that writes to two shards is refused; one row at a time is not.
    let e = sql_at(port, "INSERT INTO t (id, v) VALUES (1, 1), (2, 2), (3, 3), (4, 4)").unwrap_err();
    assert!(e.contains("multi-db transaction attempted"), "{e}");
    let values: Vec<String> = (1..=40).map(|i| format!("INSERT INTO t (id, v) VALUES ({i}, {i})")).collect();
    sql(port, &values.join("; "));
    assert_eq!(sql(port, "SELECT COUNT(*) FROM t"), "40");
    let each: Vec<u64> = shards.iter().map(|p| sql(*p, "SELECT COUNT(*) FROM t").parse().unwrap()).collect();
    assert!(each.iter().all(|n| *n > 0) && each.iter().sum::<u64>() == 40, "rows per shard: {each:?}");
    // Every shard's MariaDB runs the profile asked for.
    for p in &shards {
        assert_eq!(sql(*p, "SELECT @@innodb_flush_log_at_trx_commit, @@sync_binlog, @@log_bin"), "1\t1\t1", "shard MariaDB on {p}");
    }
    // The status port is vtgate's.
    let vars = common::http_body(status, "/debug/vars");
    assert!(vars.contains("\"QueryExecutions\""), "{}", &vars[..vars.len().min(300)]);

    let list = stdout(&run_ok(s.fairbench().args(["server", "list", "--json"])));
    let json: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(json[0]["engine"], "vitess");
    assert_eq!(json[0]["shards"]["shards"].as_array().unwrap().len(), 3);
    assert!(json[0]["version"].as_str().unwrap().contains("MariaDB"), "{list}");
    assert!(!processes_in(&dir).is_empty());

    run_ok(s.fairbench().args(["server", "stop", &format!("vitess-{port}")]));
    assert!(!dir.exists(), "stop left {} behind", dir.display());
    assert_eq!(processes_in(&dir), Vec::<String>::new());
    assert_eq!(s.registered(), Vec::<PathBuf>::new());
}

#[test]
fn bad_shard_counts_modes_and_cluster_options_are_one_line_with_exit_code_2() {
    let s = Scratch::new("bad");
    for (args, says) in [
        (&["vitess", "--shards", "0"][..], &["--shards 0", "1 to 8"][..]),
        (&["vitess", "--shards", "9"], &["--shards 9", "1 to 8"]),
        (&["vitess", "--transaction-mode", "often"], &["--transaction-mode OFTEN", "SINGLE, MULTI or TWOPC"]),
        (&["vitess", "--nodes", "3"], &["--nodes", "patroni"]),
        (&["mariadb", "--shards", "2"], &["--shards", "server start vitess"]),
        (&["patroni", "--shards", "2"], &["--shards", "server start vitess"]),
        (&["tidb", "--transaction-mode", "multi"], &["--transaction-mode", "server start vitess"]),
    ] {
        let out = run_fail(s.fairbench().args(["server", "start"]).args(args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_one_line_error(&out, says);
    }
    let out = run_fail(s.fairbench().args(["server", "start", "vitess"]).env("FAIRBENCH_VITESS_BINDIR", "/nonexistent"));
    assert_eq!(out.status.code(), Some(2));
    assert_one_line_error(&out, &["/nonexistent", "bash scripts/build-vitess.sh"]);
    assert_eq!(s.registered(), Vec::<PathBuf>::new());
}

#[test]
fn ctrl_c_while_it_starts_ends_within_two_seconds_and_leaves_nothing() {
    let _one = serial();
    let s = Scratch::new("interrupt");
    let dir = s.0.join("sb");
    let mut child = s
        .fairbench()
        .args(["server", "start", "vitess", "--dir"])
        .arg(&dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Mid-start: the shards' servers run, vtgate does not yet.
    let started = std::time::Instant::now();
    let mid = loop {
        let procs = processes_in(&dir);
        if procs.iter().any(|p| p.contains("mariadbd")) && !procs.iter().any(|p| p.contains("vtgate")) {
            break true;
        }
        if child.try_wait().unwrap().is_some() || started.elapsed() > Duration::from_secs(60) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(mid, "never saw the start half-way (the shards' servers up, vtgate not yet)");
    let sent = std::time::Instant::now();
    // SAFETY: signals the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let code = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        assert!(sent.elapsed() < Duration::from_secs(10), "still running 10 s after Ctrl-C");
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    assert_eq!(code, Some(130));
    assert!(took < Duration::from_secs(2), "took {took:?} after Ctrl-C");
    // Processes it ended are gone once their parents reaped them.
    assert!(common::eventually(Duration::from_secs(5), || processes_in(&dir).is_empty()), "{:?}", processes_in(&dir));
    assert!(!dir.exists(), "{} left behind", dir.display());
    assert_eq!(s.registered(), Vec::<PathBuf>::new());
}

/// The shard-loss run's length: the kill at 3 s, the shard back 2 s later, room after that.
const RUN_SECS: u64 = 15;

/// The run's JSON lines of one type, the last one.
fn last_of(out: &Output, ty: &str) -> serde_json::Value {
    stdout(out)
        .lines()
        .rev()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == ty)
        .unwrap_or_else(|| panic!("no {ty} line\n{}", common::show(out)))
}

#[test]
fn a_shards_mariadb_killed_mid_run_gives_reconnects_an_outage_and_loses_no_acknowledged_write() {
    let _one = serial();
    let s = Scratch::new("kill");
    let dir = s.0.join("sb");
    let out = run_ok(s.fairbench().args(["server", "start", "vitess", "--profile", "durable", "--env", "--dir"]).arg(&dir));
    let url = field(&out, "FAIRBENCH_SANDBOX_URL");
    let size = ["--tables", "1", "--table-size", "2000"];
    run_ok(fairbench().args(["prepare", "oltp_write_only", "--target", &url]).args(size));
    let log = s.0.join("writes.log");
    // Each transaction writes 30 rows drawn at random, so every one has a row on the killed
    // shard (all 30 on the other: one in 2^30): the loss stops all writing, not a half. With
    // sysbench's 4, one transaction in 8 missed it and wrote on through the loss.
    let every_shard = ["--index-updates", "10", "--non-index-updates", "10", "--delete-inserts", "10"];
    let mut run = common::watch::Watched::spawn(
        fairbench()
            // One client: several clients' transactions, each spanning both shards, lock rows
            // in opposite orders on the two MariaDBs, a deadlock neither sees; it held every
            // client for 30 s (until vttablet's transaction killer, error 3024) in about one
            // run of two, with no kill at all, and hid the kill's own gap.
            .args(["run", "oltp_write_only", "--target", &url, "--threads", "1", "--time", &RUN_SECS.to_string(), "--report-interval", "1", "--output", "json", "--no-save"])
            .args(size)
            .args(every_shard)
            .arg(format!("--verify-writes={}", log.display())),
    );
    // The kill is timed on the run's own clock: at its third report interval, whenever the
    // machine lets that come (a sleep after the spawn landed anywhere in a loaded run).
    let clock = run.wait_for_run_time(Duration::from_secs(120), 3.0);
    // The first shard's MariaDB dies at once, and comes back as it was once the run has
    // reported two more intervals without it.
    let shard = dir.join("shard1");
    let pid: i32 = std::fs::read_to_string(shard.join("mysqld.pid")).unwrap().trim().parse().unwrap();
    // SAFETY: the pid is the sandbox's MariaDB, read from its own pid file.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let killed_at = clock.now();
    run.wait_for_run_time(Duration::from_secs(60), killed_at + 2.0);
    let mut again = Command::new("mariadbd");
    again.arg(format!("--defaults-file={}", shard.join("my.cnf").display())).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        again.arg("--user=mysql");
    }
    std::os::unix::process::CommandExt::process_group(&mut again, 0);
    let mut restarted = again.spawn().unwrap();
    let back = common::eventually(Duration::from_secs(20), || std::os::unix::net::UnixStream::connect(shard.join("mysqld.sock")).is_ok());
    let log = std::fs::read_to_string(shard.join("error.log")).unwrap_or_default();
    assert!(back, "the shard's MariaDB did not come back: {:?}; its log ends:\n{}", restarted.try_wait(), log.lines().rev().take(15).collect::<Vec<_>>().join("\n"));
    let out = run.finish(Duration::from_secs(120));
    assert!(out.status.success(), "{}", common::show(&out));
    let sum = last_of(&out, "summary");
    assert_eq!(sum["status"], "completed", "{sum}");
    assert!(sum["reconnects"].as_u64().unwrap_or(0) + sum["errors"].as_u64().unwrap_or(0) >= 1, "nothing failed while a shard was down: {sum}");
    let gap = &sum["outage"]["write"];
    let (from, secs) = (gap["from_s"].as_f64().unwrap_or(-1.0), gap["secs"].as_f64().unwrap_or(0.0));
    // The run's longest write gap is the kill's: it begins within a second of the kill (the
    // last write before it), lasts the second or more the shard was away, and closes before
    // the run's end.
    assert!((from - killed_at).abs() <= 1.0 && secs >= 1.0, "the longest write gap does not begin within 1 s of the kill at {killed_at:.2} s: {gap}");
    assert!(gap["open"] == false && from + secs < RUN_SECS as f64, "the longest write gap ({from:.2} s + {secs:.2} s) never closed in the {RUN_SECS} s run: {gap}");
    // Every shard syncs each commit: nothing acknowledged is lost.
    let w = last_of(&out, "writes");
    assert_eq!(w["lost"], 0, "{w}");
    assert!(w["acknowledged"].as_u64().unwrap() > 0 && w["checked"] == w["acknowledged"], "{w}");
    eprintln!(
        "a shard's MariaDB killed at {killed_at:.2} s of the run ({RUN_SECS} s): longest write gap {secs:.2} s from {from:.2} s; reconnects {}; errors {}; writes {w}",
        sum["reconnects"], sum["errors"]
    );
    run_ok(s.fairbench().args(["server", "stop"]).arg(&dir));
    let _ = restarted.wait();
}
