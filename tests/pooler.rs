//! pgbouncer (Debian's 1.18) in transaction pooling in front of the
//! PostgreSQL test server: fairbench finds the pooler, records it, and runs
//! OLTP and TPC-C through it with statements in a form the pooler passes on.

mod common;

use common::*;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A pgbouncer of the test's own, stopped when dropped (also when the test fails).
struct Pgbouncer {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for Pgbouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap().local_addr().unwrap().port()
}

/// uid and gid of `user` (pgbouncer refuses to run as root).
fn ids_of(user: &str) -> (u32, u32) {
    let id = |flag: &str| {
        let out = Command::new("id").arg(flag).arg(user).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse::<u32>().unwrap_or_else(|_| panic!("no account {user} to run pgbouncer as"))
    };
    (id("-u"), id("-g"))
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

impl Pgbouncer {
    /// pgbouncer in `mode` pooling on a free loopback port, `pool_size`
    /// server connections for the test database, the test user in its auth_file.
    fn start(mode: &str, pool_size: u32) -> Pgbouncer {
        let u = parse_url(&pg_url());
        let dir = scratch_dir("pgbouncer");
        let port = free_port();
        let ini = format!(
            "[databases]\n{db} = host=127.0.0.1 port={pg} dbname={db}\n\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
             auth_type = plain\nauth_file = {dir}/users.txt\npool_mode = {mode}\ndefault_pool_size = {pool_size}\nmax_client_conn = 200\n\
             logfile = {dir}/pgbouncer.log\npidfile = {dir}/pgbouncer.pid\n",
            db = u.database,
            pg = pg_port(),
            dir = dir.display(),
        );
        std::fs::write(dir.join("pgbouncer.ini"), ini).unwrap();
        std::fs::write(dir.join("users.txt"), format!("\"{}\" \"{}\"\n", u.user, u.password)).unwrap();
        let mut cmd = Command::new(pgbouncer_bin());
        cmd.arg(dir.join("pgbouncer.ini")).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        if is_root() {
            let (uid, gid) = ids_of("postgres");
            chown_dir(&dir, uid, gid);
            cmd.uid(uid).gid(gid);
        }
        let child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start pgbouncer: {e}"));
        let mut p = Pgbouncer { child, port, dir };
        p.wait_listening();
        p
    }

    fn wait_listening(&mut self) {
        let end = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Ok(Some(st)) = self.child.try_wait() {
                panic!("pgbouncer exited ({st}): {}", std::fs::read_to_string(self.dir.join("pgbouncer.log")).unwrap_or_default());
            }
            assert!(Instant::now() < end, "pgbouncer did not listen on {} within 20s", self.port);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        let u = parse_url(&pg_url());
        format!("postgres://{}:{}@127.0.0.1:{}/{}", u.user, u.password, self.port, u.database)
    }
}

fn pgbouncer_bin() -> PathBuf {
    ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].iter().map(PathBuf::from).find(|p| p.is_file()).expect("pgbouncer is not installed: scripts/test.sh installs it")
}

fn chown_dir(dir: &Path, uid: u32, gid: u32) {
    let st = Command::new("chown").arg("-R").arg(format!("{uid}:{gid}")).arg(dir).status().unwrap();
    assert!(st.success());
}

#[test]
fn env_names_the_pooler_and_not_the_direct_server() {
    let pgb = Pgbouncer::start("transaction", 2);
    let through = stdout(&run_ok(fairbench().args(["env", "--target", &pgb.url()])));
    assert!(through.contains("pooler in front of the server"), "{through}");
    assert!(through.contains("statements unnamed"), "{through}");
    let direct = stdout(&run_ok(fairbench().args(["env", "--target", &pg_url()])));
    assert!(!direct.contains("pooler"), "{direct}");
}

#[test]
fn oltp_read_only_runs_through_transaction_pooling_and_stores_the_pooler() {
    let pgb = Pgbouncer::start("transaction", 2);
    let store = scratch_dir("pooler-store").join("r.sqlite");
    let t = ["--target", &pgb.url(), "--table-name", "pgb_ro_", "--tables", "2", "--table-size", "1000"];
    run_ok(fairbench().arg("prepare").arg("oltp_read_only").args(t).args(["--threads", "2"]));
    // 8 clients over 2 server connections: consecutive transactions of one
    // client land on different server sessions.
    let out = run_ok(fairbench().arg("run").arg("oltp_read_only").args(t).args(["--threads", "8", "--time", "3", "--results"]).arg(&store));
    let text = stdout(&out);
    assert!(text.contains("ignored errors:                      0 "), "{text}");
    // The fallback is said before the run, not only stored.
    assert!(text.contains("Note: ") && text.contains("statements unnamed, parsed with each execution"), "{text}");
    let events: f64 = text.lines().find_map(|l| l.trim().strip_prefix("total number of events:")).map(|v| v.trim().parse().unwrap()).unwrap();
    assert!(events > 50.0, "{text}");
    let show = stdout(&run_ok(fairbench().args(["results", "show", "last", "--results"]).arg(&store)));
    assert!(show.contains("pooler in front of the server"), "{show}");
    run_ok(fairbench().arg("cleanup").arg("oltp_read_only").args(t));
}

#[test]
fn tpcc_prepares_runs_and_checks_through_transaction_pooling() {
    let pgb = Pgbouncer::start("transaction", 3);
    let t = ["--target", &pgb.url(), "--tpcc-prefix", "pgb_", "--warehouses", "1"];
    run_ok(fairbench().arg("prepare").arg("tpcc").args(t).args(["--threads", "2"]));
    let out = run_ok(fairbench().arg("run").arg("tpcc").args(t).args(["--threads", "6", "--time", "4", "--no-save"]));
    let text = stdout(&out);
    assert!(text.contains("transactions:"), "{text}");
    let check = stdout(&run_ok(fairbench().arg("check").arg("tpcc").args(t)));
    assert!(check.contains("All conditions hold."), "{check}");
    run_ok(fairbench().arg("cleanup").arg("tpcc").args(t));
}

#[test]
fn named_statements_through_transaction_pooling_stop_with_what_to_do() {
    // The driver path prepares named statements; the pooler moves its
    // transactions between server sessions, which lose them.
    let pgb = Pgbouncer::start("transaction", 2);
    let t = ["--target", &pgb.url(), "--table-name", "pgb_named_", "--tables", "1", "--table-size", "500"];
    run_ok(fairbench().arg("prepare").arg("oltp_read_only").args(t));
    let out = run_fail(fairbench().arg("run").arg("oltp_read_only").args(t).args(["--threads", "8", "--time", "5", "--no-save"]).env("FAIRBENCH_WIRE", "driver"));
    assert_one_line_error(&out, &["pooler", "--db-ps-mode=disable"]);
    // What the line says to do works.
    let ok = run_ok(fairbench().arg("run").arg("oltp_read_only").args(t).args(["--threads", "8", "--time", "2", "--no-save", "--db-ps-mode", "disable"]).env("FAIRBENCH_WIRE", "driver"));
    assert!(stdout(&ok).contains("transactions:"));
    run_ok(fairbench().arg("cleanup").arg("oltp_read_only").args(t));
}

/// A sandbox root of the test's own: fairbench commands run with it, and every sandbox in it is
/// stopped when the test ends, also when an assertion fails on the way.
struct Sandboxes(PathBuf);

impl Sandboxes {
    fn new(name: &str) -> Sandboxes {
        Sandboxes(scratch_dir(name))
    }

    fn fairbench(&self) -> Command {
        let mut c = fairbench();
        c.env("FAIRBENCH_SANDBOX_ROOT", &self.0);
        c
    }
}

impl Drop for Sandboxes {
    fn drop(&mut self) {
        let _ = self.fairbench().args(["server", "stop", "--all"]).output();
    }
}

/// `server start pgbouncer --for`: Debian's pgbouncer as a sandbox in front of the test server,
/// its URL used like any target; the run through it records the pool it went through, and the
/// audit of a comparison with a run on the server itself says a pooler is on one side only;
/// 2,000 idle clients held through it beside the active ones.
#[test]
fn a_pgbouncer_sandbox_pools_for_a_server_and_the_audit_flags_a_pooler_on_one_side() {
    let sandboxes = Sandboxes::new("pgbouncer-sandbox");
    let (root, fb) = (&sandboxes.0, || sandboxes.fairbench());
    // A mode pgbouncer does not have, and no server to pool for: one line each, nothing started.
    let out = run_fail(fb().args(["server", "start", "pgbouncer", "--for", &pg_url(), "--pool-mode", "connection"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["--pool-mode connection", "session, transaction or statement"]);
    let out = run_fail(fb().args(["server", "start", "pgbouncer"]));
    assert_one_line_error(&out, &["--for"]);
    let out = run_ok(fb().args(["server", "start", "pgbouncer", "--for", &pg_url(), "--pool-mode", "transaction", "--pool-size", "2"]));
    let text = stdout(&out);
    let url = text.lines().find(|l| l.starts_with("postgres://")).unwrap_or_else(|| panic!("no URL in {text}")).to_string();
    assert!(stderr(&out).contains("pool_mode=transaction, default_pool_size=2"), "{}", stderr(&out));
    let store = root.join("r.sqlite");
    let t = ["--table-name", "pgb_sb_", "--tables", "1", "--table-size", "1000"];
    run_ok(fb().args(["prepare", "oltp_point_select", "--target", &pg_url()]).args(t));
    for target in [pg_url(), url.clone()] {
        run_ok(fb().args(["run", "oltp_point_select", "--target", &target, "--threads", "4", "--time", "2", "--results"]).arg(&store).args(t));
    }
    let show = stdout(&run_ok(fb().args(["results", "show", "2", "--results"]).arg(&store)));
    assert!(show.contains("pool_mode=transaction") && show.contains("pooler in front of the server"), "{show}");
    let out = run_ok(fb().args(["compare", "1", "2", "--json", "--results"]).arg(&store));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "pooler-mismatch").unwrap_or_else(|| panic!("no pooler finding: {v}"));
    assert_eq!(f["evidence"], serde_json::json!(["run 1 (postgres): no pooler: connected to the server itself", "run 2 (postgres): a pooler, pool_mode=transaction"]));
    // Thousands of idle connections beside the active ones fit through the pooler: each costs
    // the client a few KiB.
    let out = run_ok(fb().args(["run", "oltp_point_select", "--target", &url, "--threads", "2", "--time", "2", "--idle-clients", "2000", "--output", "json", "--results"]).arg(&store).args(t));
    let text = stdout(&out);
    let typed = |t: &str| -> serde_json::Value {
        let line = text.lines().find(|l| l.contains(&format!("\"type\":\"{t}\""))).unwrap_or_else(|| panic!("no {t} line: {text}"));
        serde_json::from_str(line).unwrap()
    };
    let idle = typed("idle_clients");
    assert_eq!(idle["connections"], 2000, "{idle}");
    let per = idle["kib_per_connection"].as_f64().unwrap_or_else(|| panic!("{idle}"));
    assert!(per > 0.0 && per < 64.0, "{per} KiB per idle connection: {idle}");
    assert!(typed("summary")["transactions"].as_u64().unwrap() > 100, "{text}");
    assert_eq!(stored_run(&store, "3")["options"]["idle-clients"], "2000");
    // The text line says the same.
    let out = run_ok(fb().args(["run", "oltp_point_select", "--target", &url, "--threads", "1", "--time", "1", "--idle-clients", "100", "--no-save"]).args(t));
    assert!(stdout(&out).contains("Idle clients: 100 connections open and idle beside the active ones"), "{}", stdout(&out));
    // A pooler that takes fewer clients (a --set of its own): the run ends before it starts, in
    // one line.
    let out = run_ok(fb().args(["server", "start", "pgbouncer", "--for", &pg_url(), "--pool-mode", "transaction", "--set", "max_client_conn=20"]));
    let small = stdout(&out).lines().find(|l| l.starts_with("postgres://")).unwrap_or_default().to_string();
    let out = run_fail(fb().args(["run", "oltp_point_select", "--target", &small, "--time", "2", "--idle-clients", "40", "--no-save"]).args(t));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_one_line_error(&out, &["idle client", "max_client_conn"]);
    run_ok(fb().args(["cleanup", "oltp_point_select", "--target", &pg_url()]).args(t));
    run_ok(fb().args(["server", "stop", "--all"]));
    assert!(std::net::TcpStream::connect(url.split('@').nth(1).and_then(|h| h.split('/').next()).unwrap()).is_err(), "pgbouncer still listens after stop");
}

/// pgbouncer's own counters from its admin console: one database's row of `SHOW STATS`, by
/// column name.
fn pgbouncer_stats(port: u16, db: &str) -> std::collections::BTreeMap<String, f64> {
    let u = parse_url(&pg_url());
    let o = Command::new("psql")
        .args(["-X", "-A", "-F", "|", "-P", "footer=off", "-h", "127.0.0.1", "-U", &u.user, "-d", "pgbouncer", "-p", &port.to_string(), "-c", "SHOW STATS"])
        .env("PGPASSWORD", &u.password)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "SHOW STATS: {}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let mut lines = text.lines();
    let names: Vec<&str> = lines.next().unwrap_or_default().split('|').collect();
    let row = lines.find(|l| l.split('|').next() == Some(db)).unwrap_or_else(|| panic!("no {db} row: {text}"));
    names.iter().zip(row.split('|')).filter_map(|(n, v)| Some((n.to_string(), v.parse().ok()?))).collect()
}

/// pgbouncer 1.21 and later keep protocol-level prepared statements across their server
/// connections in transaction pooling: fairbench finds that out and prepares each statement
/// once per client connection, where through Debian's 1.18 it parses each with every execution.
/// pgbouncer's own counters hold it: its server connections parse a handful of statements while
/// every execution binds one.
#[test]
fn prepared_statements_go_through_transaction_pooling_when_the_pooler_keeps_them() {
    let version = std::env::var("FAIRBENCH_TEST_PGBOUNCER_VERSION").expect("FAIRBENCH_TEST_PGBOUNCER_VERSION is not set: scripts/test.sh builds that pgbouncer and sets it");
    let sandboxes = Sandboxes::new("pgbouncer-prepared");
    let fb = || sandboxes.fairbench();
    // The build `--version` finds (scripts/test.sh built it where it looks).
    let out = run_ok(fb().args(["server", "start", "pgbouncer", "--version", &version, "--for", &pg_url(), "--pool-mode", "transaction", "--pool-size", "2"]));
    let url = stdout(&out).lines().find(|l| l.starts_with("postgres://")).unwrap_or_else(|| panic!("no URL: {}", stdout(&out))).to_string();
    assert!(stderr(&out).contains(&format!("pgbouncer {version} sandbox")), "{}", stderr(&out));
    let port: u16 = url.rsplit(':').next().and_then(|p| p.split('/').next()).and_then(|p| p.parse().ok()).unwrap();
    let env = stdout(&run_ok(fb().args(["env", "--target", &url])));
    assert!(env.contains("statements prepared once per connection, kept by the pooler"), "{env}");
    let t = ["--table-name", "pgb_kept_", "--tables", "1", "--table-size", "1000"];
    run_ok(fb().args(["prepare", "oltp_point_select", "--target", &pg_url()]).args(t));
    let before = pgbouncer_stats(port, &parse_url(&pg_url()).database);
    // 8 clients over 2 server connections: each client's transactions move between them.
    let out = run_ok(fb().args(["run", "oltp_point_select", "--target", &url, "--threads", "8", "--time", "2", "--output", "json", "--no-save"]).args(t));
    let summary: serde_json::Value =
        stdout(&out).lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()).find(|v| v["type"] == "summary").unwrap_or_else(|| panic!("{}", stdout(&out)));
    let events = summary["transactions"].as_f64().unwrap();
    assert!(events > 200.0, "{summary}");
    assert!(summary["error"].is_null() && summary["ignored_errors"] == 0, "{summary}");
    let after = pgbouncer_stats(port, &parse_url(&pg_url()).database);
    let delta = |k: &str| after.get(k).copied().unwrap_or_else(|| panic!("no {k} in {after:?}")) - before.get(k).copied().unwrap_or(0.0);
    // Every execution binds; each connection parses its statement and the probe once (the 8
    // clients and the run's own few), the 2 server connections each statement at most once.
    assert!(delta("total_bind_count") >= events, "binds {} < events {events}", delta("total_bind_count"));
    assert!(delta("total_client_parse_count") <= 40.0, "client parses {}", delta("total_client_parse_count"));
    assert!(delta("total_server_parse_count") <= 10.0, "server parses {}", delta("total_server_parse_count"));
    // pgbench's -M prepared through the same pooler, as pgbench users run it.
    let u = parse_url(&url);
    let out =
        run_ok(fb().args(["pgbench", "-S", "-M", "prepared", "-c", "4", "-t", "100", "-n", "-h", "127.0.0.1", "-p", &port.to_string(), "-U", &u.user, &u.database]).env("PGPASSWORD", &u.password));
    let text = stdout(&out);
    assert!(text.contains("number of transactions actually processed: 400/400"), "{text}");
    // A connection per transaction (-C), statements as text: the pooler is asked about once per
    // run, not at every connection (each asking costs one named Parse, which pgbouncer counts).
    let before = pgbouncer_stats(port, &parse_url(&pg_url()).database);
    let out =
        run_ok(fb().args(["pgbench", "-C", "-S", "-M", "simple", "-c", "2", "-t", "50", "-n", "-h", "127.0.0.1", "-p", &port.to_string(), "-U", &u.user, &u.database]).env("PGPASSWORD", &u.password));
    let text = stdout(&out);
    assert!(text.contains("number of transactions actually processed: 100/100"), "{text}");
    let after = pgbouncer_stats(port, &parse_url(&pg_url()).database);
    let probes = after["total_client_parse_count"] - before["total_client_parse_count"];
    assert!(probes <= 5.0, "{probes} named parses for 100 connections: the pooler was asked at each");
    run_ok(fb().args(["cleanup", "oltp_point_select", "--target", &pg_url()]).args(t));
}
