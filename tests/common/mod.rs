//! Helpers shared by the integration tests (`mod common;` in each test file).
//!
//! The MariaDB and PostgreSQL test servers are started by `bash scripts/test.sh` (as
//! `fairbench server start` sandboxes; for a development loop also
//! `eval "$(bash scripts/servers.sh start)"`), which exports the `FAIRBENCH_TEST_*`
//! variables read here. A test that needs a server panics when they are missing: it fails,
//! it never silently skips.
#![allow(dead_code)]

pub mod pgpair;
pub mod probe;
pub mod server;
pub mod vtgate;
pub mod watch;

#[allow(unused_imports)]
pub use server::Server;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn required_env(name: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v,
        _ => panic!("{name} is not set: run the tests through `bash scripts/test.sh`, which starts the servers"),
    }
}

/// `mysql://fb:fbpass@127.0.0.1:PORT/fbtest`
/// The TiDB sandbox the test command starts.
pub fn tidb_url() -> String {
    required_env("FAIRBENCH_TEST_TIDB_URL")
}

/// The test command's 2-shard Vitess sandbox: vtgate, whose database is
/// the sharded keyspace.
pub fn vitess_url() -> String {
    required_env("FAIRBENCH_TEST_VITESS_URL")
}

pub fn mysql_url() -> String {
    required_env("FAIRBENCH_TEST_MYSQL_URL")
}

/// Path of the MariaDB server's unix socket.
pub fn mysql_socket() -> String {
    required_env("FAIRBENCH_TEST_MYSQL_SOCKET")
}

/// `postgres://fb:fbpass@127.0.0.1:PORT/fbtest`
pub fn pg_url() -> String {
    required_env("FAIRBENCH_TEST_PG_URL")
}

/// Directory holding PostgreSQL's unix socket (`.s.PGSQL.<port>`).
pub fn pg_socket_dir() -> String {
    required_env("FAIRBENCH_TEST_PG_SOCKET_DIR")
}

/// The account that may only connect over TLS, on both servers: MariaDB `REQUIRE SSL` (all
/// privileges on the test database), PostgreSQL `hostssl` only.
pub const SSL_USER: &str = "fbssl";
/// [`SSL_USER`]'s password.
pub const SSL_PASSWORD: &str = "fbpass";

/// The PEM file of the CA that signed both servers' certificates (for 127.0.0.1, localhost).
pub fn test_ca() -> String {
    required_env("FAIRBENCH_TEST_CA")
}

/// The PEM file of another CA, which signed neither server's certificate.
pub fn test_wrong_ca() -> String {
    required_env("FAIRBENCH_TEST_WRONG_CA")
}

pub fn mysql_port() -> u16 {
    parse_port("FAIRBENCH_TEST_MYSQL_PORT")
}

pub fn pg_port() -> u16 {
    parse_port("FAIRBENCH_TEST_PG_PORT")
}

fn parse_port(name: &str) -> u16 {
    let v = required_env(name);
    v.parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a port number"))
}

/// The test run's temp dir (removed when the run ends). Prefer a subdirectory of your own
/// (e.g. via `scratch_dir`) so that parallel tests do not collide.
pub fn tmp_dir() -> PathBuf {
    PathBuf::from(required_env("FAIRBENCH_TEST_TMP"))
}

/// A fresh directory for one call: the name is only a hint, a counter makes
/// it unique, so the same helper run for several engines at once (tests of
/// one binary run in parallel) never shares, or truncates, another's files.
pub fn scratch_dir(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = tmp_dir().join("scratch").join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// LinkBench's `-D data_file=` of a few links per node (2.8 on average), for a test whose
/// point is not the load: LinkBench's own distribution gives a graph of any size about a
/// million links (its tail), 15 s of loading into SQLite, minutes into TiDB or Vitess.
pub fn few_links() -> [&'static str; 2] {
    static ARG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let arg = ARG.get_or_init(|| {
        let path = scratch_dir("linkbench-few-links").join("FewLinks.dat");
        std::fs::write(&path, "nlinks\n0 50\n3 90\n10 100\n").unwrap();
        format!("data_file={}", path.display())
    });
    ["-D", arg]
}

/// `args` with `few_links()` after them.
pub fn with_few_links<'a>(args: &[&'a str]) -> Vec<&'a str> {
    [args, &few_links()[..]].concat()
}

/// A `Command` for the fairbench binary built by this `cargo test`.
pub fn fairbench() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fairbench"));
    // Full width: the tests read figures from whole lines. The 80-column default (tables in
    // blocks, prose wrapped) has tests of its own, which remove this.
    c.env("COLUMNS", "0");
    c
}

fn describe(cmd: &Command, out: &Output) -> String {
    format!("command: {cmd:?}\nstatus: {}\n--- stdout ---\n{}\n--- stderr ---\n{}", out.status, String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Longest a single fairbench command may take in a test: a hang fails the
/// test instead of stalling the whole suite.
const COMMAND_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

fn run(cmd: &mut Command) -> Output {
    run_within(cmd, COMMAND_LIMIT)
}

/// Runs `cmd` to completion, killing it and failing the test when it takes
/// longer than `limit`.
pub fn run_within(cmd: &mut Command, limit: std::time::Duration) -> Output {
    use std::io::Read;
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let so = String::from_utf8_lossy(&out.join().unwrap()).into_owned();
            panic!("{cmd:?} still running after {}s: killed\n--- stdout ---\n{so}", limit.as_secs());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

/// Runs `cmd` to completion; panics (showing its stdout and stderr) unless it exits 0.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = run(cmd);
    if !out.status.success() {
        panic!("expected success\n{}", describe(cmd, &out));
    }
    out
}

/// Runs `cmd` to completion; panics (showing its stdout and stderr) unless it exits non-zero.
/// Being killed by a signal counts as unexpected too.
pub fn run_fail(cmd: &mut Command) -> Output {
    let out = run(cmd);
    if out.status.success() || out.status.code().is_none() {
        panic!("expected a non-zero exit status\n{}", describe(cmd, &out));
    }
    out
}

/// stdout of an `Output` as a `String`.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr of an `Output` as a `String`.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The parts of a `scheme://user:password@host:port/database` URL.
#[derive(Debug, Clone)]
pub struct UrlParts {
    pub user: String,
    pub password: String,
    pub host: String,
    pub port: Option<u16>,
    pub database: String,
}

/// Minimal URL parser for the test URLs (percent-decodes user, password and database).
pub fn parse_url(url: &str) -> UrlParts {
    fn bad(url: &str) -> ! {
        panic!("cannot parse database URL {url:?}")
    }
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or_else(|| bad(url));
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, database) = rest.split_once('/').unwrap_or((rest, ""));
    let (userinfo, hostport) = authority.rsplit_once('@').unwrap_or(("", authority));
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        // [::1]:5432
        let (h, after) = v6.split_once(']').unwrap_or_else(|| bad(url));
        (h, after.strip_prefix(':'))
    } else {
        match hostport.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    let port = port.map(|p| p.parse::<u16>().unwrap_or_else(|_| bad(url)));
    UrlParts { user: percent_decode(user), password: percent_decode(password), host: host.to_string(), port, database: percent_decode(database) }
}

fn percent_decode(s: &str) -> String {
    fn hex(c: u8) -> Option<u8> {
        (c as char).to_digit(16).map(|d| d as u8)
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn run_sql(mut cmd: Command, sql: &str) -> String {
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    {
        let mut stdin = child.stdin.take().expect("stdin was piped");
        stdin.write_all(sql.as_bytes()).unwrap_or_else(|e| panic!("cannot write SQL to {cmd:?}: {e}"));
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("waiting for {cmd:?}: {e}"));
    if !out.status.success() {
        panic!("SQL failed: {sql}\n{}", describe(&cmd, &out));
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mysql_client(database: Option<&str>) -> Command {
    let u = parse_url(&mysql_url());
    let mut cmd = Command::new("mariadb");
    // --no-defaults: no option files (e.g. /etc/mysql's socket path) can interfere.
    cmd.arg("--no-defaults")
        .arg("--protocol=TCP")
        .arg(format!("--host={}", u.host))
        .arg(format!("--port={}", u.port.unwrap_or(3306)))
        .arg(format!("--user={}", u.user))
        .arg("--batch")
        .arg("--skip-column-names")
        .arg("--connect-timeout=10")
        .env("MYSQL_PWD", &u.password);
    if let Some(db) = database {
        cmd.arg(format!("--database={db}"));
    }
    cmd
}

/// A session of the test server's own client that ran `sql` and then
/// idles, its input left open (what it locked stays locked), until dropped:
/// its client then ends, and the server, which waits on that session's
/// next statement, sees it gone at once and releases what it held.
pub struct Held(std::process::Child, Option<std::process::ChildStdin>);

impl Drop for Held {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn hold(mut cmd: Command, sql: &str) -> Held {
    cmd.stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let mut input = child.stdin.take().expect("stdin was piped");
    input.write_all(format!("{sql}\n").as_bytes()).unwrap();
    input.flush().unwrap();
    Held(child, Some(input))
}

/// `sql` run on the MariaDB test server's `database` by a session kept open (see [`Held`]).
pub fn mysql_holding(database: &str, sql: &str) -> Held {
    hold(mysql_client(Some(database)), sql)
}

/// `sql` run on the PostgreSQL test server's `database` by a session kept open (see [`Held`]).
pub fn pg_holding(database: &str, sql: &str) -> Held {
    hold(pg_client(database), sql)
}

/// Runs SQL (one or more `;`-separated statements) on the MariaDB test server with the
/// `mariadb` client as the test superuser, connected without a default database (qualify
/// names or `USE`), and returns its stdout: tab-separated rows, no column names.
/// Panics with the client's stderr if any statement fails.
pub fn mysql_admin(sql: &str) -> String {
    run_sql(mysql_client(None), sql)
}

/// Like `mysql_admin`, with `database` as the default database.
pub fn mysql_admin_db(database: &str, sql: &str) -> String {
    run_sql(mysql_client(Some(database)), sql)
}

fn pg_client(database: &str) -> Command {
    let u = parse_url(&pg_url());
    let mut cmd = Command::new("psql");
    // -X: no ~/.psqlrc; -At: bare rows, `|`-separated; statements run one by one from stdin,
    // so DROP/CREATE DATABASE work (they cannot run inside a multi-statement string).
    cmd.arg("-X")
        .arg("-q")
        .arg("-A")
        .arg("-t")
        .arg("-v")
        .arg("ON_ERROR_STOP=1")
        .arg("-h")
        .arg(&u.host)
        .arg("-p")
        .arg(u.port.unwrap_or(5432).to_string())
        .arg("-U")
        .arg(&u.user)
        .arg("-d")
        .arg(database)
        .env("PGPASSWORD", &u.password)
        .env("PGCONNECT_TIMEOUT", "10");
    cmd
}

/// Runs SQL on the PostgreSQL test server with `psql` as the test superuser, connected to the
/// `postgres` maintenance database (so that the test database itself can be dropped and
/// re-created), and returns its stdout: `|`-separated rows, no headers.
/// Panics with psql's stderr if any statement fails.
pub fn pg_admin(sql: &str) -> String {
    run_sql(pg_client("postgres"), sql)
}

/// Like `pg_admin`, connected to `database` instead.
pub fn pg_admin_db(database: &str, sql: &str) -> String {
    run_sql(pg_client(database), sql)
}

/// Status, stdout and stderr of a finished command, for assertion messages.
pub fn show(out: &Output) -> String {
    format!("status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}", out.status, stdout(out), stderr(out))
}

/// The documented error contract: exactly one line on stderr, starting like an error message,
/// containing every string of `mentions`, and no panic or backtrace text anywhere.
pub fn assert_one_line_error(out: &Output, mentions: &[&str]) {
    let err = stderr(out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "expected exactly one line on stderr\n{}", show(out));
    assert!(!lines[0].trim().is_empty(), "empty error line\n{}", show(out));
    for m in mentions {
        assert!(lines[0].contains(m), "the error line should mention {m:?}\n{}", show(out));
    }
    assert_no_panic(out);
}

pub fn assert_no_panic(out: &Output) {
    let all = format!("{}{}", stdout(out), stderr(out));
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!all.contains(bad), "output contains {bad:?}\n{}", show(out));
    }
}

/// Every interval histogram of a `--hdr-log` file, and the events its summaries report.
pub fn read_hdr_log(path: impl AsRef<Path>) -> (Vec<hdrhistogram::Histogram<u64>>, u64) {
    use base64::Engine as _;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    let text = String::from_utf8(std::fs::read(path.as_ref()).unwrap()).unwrap();
    // A capture (`kubectl logs`) holds the report and stderr lines too: only the log's own
    // lines (comments, the legend, intervals) go to the reader.
    let bytes = text
        .lines()
        .filter(|l| l.starts_with('#') || l.starts_with('"') || l.starts_with("Tag=") || l.starts_with(|c: char| c.is_ascii_digit()))
        .flat_map(|l| [l, "\n"])
        .collect::<String>()
        .into_bytes();
    let mut de = hdrhistogram::serialization::Deserializer::new();
    let hists = IntervalLogIterator::new(&bytes)
        .filter_map(|e| match e.expect("a valid interval log") {
            LogEntry::Interval(iv) => Some(de.deserialize(&mut std::io::Cursor::new(base64::engine::general_purpose::STANDARD.decode(iv.encoded_histogram()).unwrap())).unwrap()),
            _ => None,
        })
        .collect();
    let events = text.lines().filter(|l| l.starts_with("#fairbench-summary ")).map(|l| l.split(" events=").nth(1).unwrap().split(' ').next().unwrap().parse::<u64>().unwrap()).sum();
    (hists, events)
}

/// merge's totals equal the sum of the members' summaries, and its
/// percentiles those of one histogram fed all members' values.
pub fn assert_merge_is_exact(logs: &[String], dir: &std::path::Path) {
    let mut all = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    let mut summed = 0;
    for l in logs {
        let (hists, events) = read_hdr_log(l);
        let logged: u64 = hists.iter().map(|h| h.len()).sum();
        assert_eq!(logged, events, "{l}: the intervals add up to the summary");
        hists.iter().for_each(|h| all.add(h).unwrap());
        summed += events;
    }
    assert!(summed > 0);
    let store = dir.join("store.sqlite");
    let mut m = fairbench();
    let out = run_ok(m.arg("merge").args(logs).arg("--results").arg(&store));
    let text = stdout(&out);
    let total = text.lines().find(|l| l.starts_with("Total at ")).unwrap_or_else(|| panic!("no total\n{text}"));
    assert!(total.contains(&format!("events: {summed} ")), "{total} vs {summed}");
    for p in [50.0, 95.0, 99.0] {
        let want = format!("p{} {:.2}", p as u32, fairbench::stats::pct_ms(&all, p));
        assert!(total.contains(&want), "{total} lacks {want}");
    }
    assert!(total.contains(&format!("max {:.2}", all.max() as f64 / 1000.0)), "{total}");
    assert_eq!(text.lines().filter(|l| l.starts_with("Member ")).count(), logs.len(), "{text}");
    assert!(!text.contains("missing"), "{text}");
    // Merging only some members says who is missing.
    let mut part = fairbench();
    let out = run_ok(part.args(["merge", &logs[0], "--no-save"]));
    assert!(stdout(&out).contains("missing"), "{}", show(&out));
}

// Synthetic `--hdr-log` files of a group's members, for `fairbench merge`.

/// One interval of a synthetic member's `--hdr-log`: its latencies (µs)
/// and what else it counted (reads, writes, other, errors, reconnects; CPU).
pub struct Part {
    pub secs: f64,
    pub values: Vec<u64>,
    pub counts: [u64; 5],
    pub cpu: (f64, f64),
}

/// A member of the synthetic group: per level its 1-second intervals and
/// the tail its summary held beyond them.
pub struct SyntheticMember {
    pub name: &'static str,
    /// How many ms after the group's instant its levels started.
    pub late_ms: i64,
    pub levels: Vec<(usize, Vec<Part>, Option<Part>)>,
}

/// The group as a member saw it at its levels' starts.
#[derive(Debug)]
struct FixedGate(std::sync::Mutex<fairbench::model::GroupMember>);

impl fairbench::model::StartGate for FixedGate {
    fn wait(&self, _round: usize) -> fairbench::error::Result<()> {
        Ok(())
    }
    fn member(&self) -> Option<fairbench::model::GroupMember> {
        Some(self.0.lock().unwrap().clone())
    }
}

/// An interval of `secs` with values and counts drawn from `rng` (xorshift).
pub fn part(rng: &mut u64, secs: f64) -> Part {
    let mut next = move || {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng
    };
    let n = 20 + next() % 200;
    let values = (0..n)
        .map(|_| {
            let v = 1 + next() % 5000;
            // Some slow events, up to seconds, so the merged maxima and tails differ.
            if next() % 25 == 0 {
                v * (1 + next() % 1000)
            } else {
                v
            }
        })
        .collect();
    let counts = [next() % 900, next() % 300, next() % 200, next() % 4, next() % 2];
    // Hundredths plus 1 ms: no sum lands on a rounding boundary of the 2-decimal output.
    let cpu = ((next() % 90) as f64 / 100.0 + 0.001, (next() % 40) as f64 / 100.0 + 0.001);
    Part { secs, values, counts, cpu }
}

/// `p` as a runner's window.
pub fn window(p: &Part) -> fairbench::stats::Window {
    let mut w = fairbench::stats::Window::default();
    p.values.iter().for_each(|&v| w.record(v, v, false));
    [w.reads, w.writes, w.other, w.errors, w.reconnects] = p.counts;
    w.errors_by_code.insert("1213".into(), p.counts[3]);
    w
}

/// Writes `m`'s log as `run --hdr-log` does, through the same sink.
pub fn write_synthetic_log(path: &std::path::Path, m: &SyntheticMember, names: &[&str], start_ms: i64) {
    use fairbench::model::{GroupMember, Interval, LevelResult, RunInfo, Sink, Stop};
    let info = RunInfo {
        label: "oltp_read_only".into(),
        workload: "oltp_read_only".into(),
        engine: "postgres".into(),
        target: String::new(),
        transport: String::new(),
        percentile: 95,
        options: Default::default(),
        kinds: vec![],
        steps: vec![],
    };
    let gate = std::sync::Arc::new(FixedGate(std::sync::Mutex::new(GroupMember {
        group: "synthetic".into(),
        member: names.iter().position(|n| *n == m.name).unwrap() + 1,
        name: m.name.into(),
        names: names.iter().map(|n| n.to_string()).collect(),
        size: names.len(),
        host: format!("host-{}", m.name),
        clock_offset_ms: 0.25,
        start_ms: 0,
    })));
    let mut log = fairbench::live::hdrlog::HdrLog::create(path, &info, Some(gate.clone())).unwrap();
    for (li, (threads, parts, tail)) in m.levels.iter().enumerate() {
        gate.0.lock().unwrap().start_ms = start_ms + li as i64 * 20_000 + m.late_ms;
        log.start(*threads);
        let mut total = fairbench::stats::Window::default();
        let (mut cpu_user_s, mut cpu_sys_s) = (0.0, 0.0);
        let mut intervals = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            let iv = Interval { t: (i + 1) as f64 * p.secs, secs: p.secs, threads: *threads, warmup: false, w: window(p), cpu_user_s: p.cpu.0, cpu_sys_s: p.cpu.1, stall_s: 0.0 };
            log.interval(&iv, false);
            total.merge(&iv.w);
            intervals.push(iv);
        }
        let mut elapsed_s = parts.len() as f64;
        for p in parts.iter().chain(tail) {
            cpu_user_s += p.cpu.0;
            cpu_sys_s += p.cpu.1;
        }
        if let Some(p) = tail {
            total.merge(&window(p));
            elapsed_s += p.secs;
        }
        let r = LevelResult {
            connect_s: 0.0,
            threads: *threads,
            total,
            elapsed_s,
            clients: vec![],
            cpu_user_s,
            cpu_sys_s,
            intervals,
            stop: Stop::Completed,
            rate: 0.0,
            outage: None,
            name: None,
            figures: Vec::new(),
        };
        log.summary(&r, &info);
    }
}

/// Starts `cmd`, sends it Ctrl-C (SIGINT) once it has printed a line for each of `lines` in
/// turn (on stdout or stderr; within 60 s each, or the test fails), and waits for it to end:
/// (exit code, time from the signal to the end, stdout). Fails if it still runs 10 s after the
/// signal. The signal lands in the state the test is about (the third repetition, a step's
/// first interval), not wherever a sleep after the spawn left a loaded machine.
pub fn interrupt_after_lines(cmd: &mut Command, lines: &[&dyn Fn(&str) -> bool]) -> (Option<i32>, std::time::Duration, String) {
    let mut run = watch::Watched::spawn(cmd);
    for want in lines {
        run.wait_for(std::time::Duration::from_secs(60), want);
    }
    run.interrupt()
}

/// Starts `cmd` (stdout piped), sends it Ctrl-C once `ready` holds (looked at as `eventually` does,
/// failing the test if it does not within 60 s): the signal lands in the state the test is
/// about, not wherever a sleep after the spawn left a loaded machine. As
/// `interrupt_after_lines`.
pub fn interrupt_when(cmd: &mut Command, ready: impl FnMut() -> bool) -> (Option<i32>, std::time::Duration, String) {
    let run = watch::Watched::spawn(cmd);
    assert!(eventually(std::time::Duration::from_secs(60), ready), "the state to interrupt never came");
    run.interrupt()
}

/// Stored run `run` (an id, `last` ...) in `store`, as `results export` gives it.
pub fn stored_run(store: &Path, run: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["results", "export", run, "--results"]).arg(store)))).expect("export is JSON");
    if v["runs"].is_array() {
        v["runs"][0].clone()
    } else {
        v[0].clone()
    }
}

/// The levels of stored run `run` (an id, `last` ...) in `store`, as `results export` gives them.
pub fn stored_levels(store: &Path, run: &str) -> Vec<serde_json::Value> {
    let r = stored_run(store, run);
    r["levels"].as_array().cloned().unwrap_or_else(|| panic!("no levels in {r}"))
}

/// A stored level's figure `name` (a workload's own, printed and stored with its summary), as a number.
pub fn level_figure(l: &serde_json::Value, name: &str) -> f64 {
    let f = &l["summary"]["figures"];
    f[name].as_str().unwrap_or_else(|| panic!("no figure {name} in {f}")).parse().unwrap_or_else(|_| panic!("figure {name} is no number: {f}"))
}

/// Events of kind `name` in a stored level (0 when it has none).
pub fn level_kind_events(l: &serde_json::Value, name: &str) -> u64 {
    l["summary"]["kinds"].as_array().map_or(0, |ks| ks.iter().find(|k| k["name"] == name).map_or(0, |k| k["events"].as_u64().unwrap_or(0)))
}

/// Client variables set to wrong values, as a user's shell may hold them
/// (a `PGPASSWORD` for another server, a `PGHOST` elsewhere ...), and the
/// variables etcd, Patroni and MinIO read their settings from. A sandbox
/// starts with them in fairbench's environment (they reach none of its
/// programs), and a run whose URL says everything (`url_saying_everything`)
/// reads none of them.
pub const HOSTILE_ENV: &[(&str, &str)] = &[
    ("PGPASSWORD", "wrong-password"),
    ("PGUSER", "nobody"),
    ("PGHOST", "/nonexistent"),
    ("PGHOSTADDR", "192.0.2.1"),
    ("PGPORT", "1"),
    ("PGDATABASE", "nodb"),
    ("PGSSLMODE", "verify-full"),
    ("PGSSLROOTCERT", "/nonexistent/root.crt"),
    ("PGPASSFILE", "/nonexistent/pgpass"),
    ("PGSERVICE", "nosuchservice"),
    ("PGSERVICEFILE", "/nonexistent/pg_service.conf"),
    ("PGSYSCONFDIR", "/nonexistent"),
    ("PGOPTIONS", "-c no_such_setting=1"),
    ("PGTARGETSESSIONATTRS", "standby"),
    ("PGAPPNAME", "wrong"),
    ("PGCONNECT_TIMEOUT", "soon"),
    ("PGLOADBALANCEHOSTS", "bogus"),
    ("PGDATA", "/nonexistent"),
    ("MYSQL_PWD", "wrong-password"),
    ("MYSQL_HOST", "192.0.2.1"),
    ("MYSQL_TCP_PORT", "1"),
    ("MYSQL_UNIX_PORT", "/nonexistent/mysqld.sock"),
    ("MYSQL_HOME", "/nonexistent"),
    ("MARIADB_HOME", "/nonexistent"),
    ("ETCD_DATA_DIR", "/nonexistent"),
    ("ETCD_LISTEN_CLIENT_URLS", "http://192.0.2.1:1"),
    ("ETCDCTL_ENDPOINTS", "http://192.0.2.1:1"),
    ("MINIO_ROOT_PASSWORD", "wrong"),
    ("PATRONI_SCOPE", "wrong"),
];

/// `cmd` with [`HOSTILE_ENV`] in its environment.
pub fn hostile_env(cmd: &mut Command) -> &mut Command {
    for (k, v) in HOSTILE_ENV {
        cmd.env(k, v);
    }
    cmd
}

/// A sandbox's URL with every PostgreSQL parameter the environment would
/// otherwise supply (a MySQL URL names host, port, user, password and
/// database already, and `MYSQL_UNIX_PORT` serves localhost only).
pub fn url_saying_everything(url: &str) -> String {
    if !url.starts_with("postgres") {
        return url.to_string();
    }
    let mut url = url.to_string();
    for p in ["service=", "sslmode=prefer", "sslrootcert=", "application_name=fairbench", "connect_timeout=0", "target_session_attrs=any", "load_balance_hosts=disable", "options="] {
        let key = p.split('=').next().unwrap();
        if !url.contains(&format!("{key}=")) {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(p);
        }
    }
    url
}

/// The body of an HTTP GET of `path` on 127.0.0.1:`port` (a server's status API).
pub fn http_body(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("port {port}: {e}"));
    s.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut r = String::new();
    let _ = s.read_to_string(&mut r);
    r.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or(r)
}

/// Runs `sql` with the mariadb client on the MySQL-protocol server a URL
/// names (the test's own view of the data, not fairbench's): its output,
/// tab-separated, trimmed; fails the test on an error.
pub fn mysql_at(url: &str, sql: &str) -> String {
    let u = parse_url(url);
    let mut c = Command::new("mariadb");
    c.args(["--no-defaults", "-h", &u.host, "-P", &u.port.expect("a port in the URL").to_string(), "-u", &u.user, "-N", "-B", &u.database, "-e", sql]);
    if !u.password.is_empty() {
        c.env("MYSQL_PWD", &u.password);
    }
    let out = c.output().expect("mariadb client");
    assert!(out.status.success(), "{sql}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The summary object of a `--output json` run: its last `"summary"` line.
pub fn summary(out: &Output) -> serde_json::Value {
    let text = stdout(out);
    let line = text.lines().rev().find(|l| l.contains("\"summary\"")).unwrap_or_else(|| panic!("no summary line in:\n{text}"));
    serde_json::from_str(line).unwrap()
}

/// Whether `f` holds within `limit`, asked every 200 ms: for what a server
/// learns a moment after the command that changed it returned.
pub fn eventually(limit: std::time::Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if f() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// Chromium from Debian's package (scripts/servers.sh installs it): its program name.
pub fn chromium_bin() -> &'static str {
    let bin = ["chromium", "chromium-browser", "google-chrome"].into_iter().find(|b| Command::new(b).arg("--version").output().is_ok_and(|o| o.status.success()));
    bin.expect("no chromium found: install Debian's chromium package (scripts/servers.sh does)")
}

/// Headless Chromium on the file `page`, offline, with `profile` as its user data.
pub fn chromium(args: &[&str], page: &Path, profile: &Path) -> Output {
    let mut c = Command::new(chromium_bin());
    c.args(["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run", "--disable-extensions"])
        // Offline: any host name fails to resolve.
        .arg("--host-resolver-rules=MAP * ~NOTFOUND")
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()));
    run_within(&mut c, std::time::Duration::from_secs(120))
}
