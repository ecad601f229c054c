//! LinkBench on MariaDB, PostgreSQL and SQLite at maxid1 = 10001: load
//! then check, a request phase with several requesters that check still
//! passes, the achieved mix within 1 point of both published mixes, a
//! properties file with its workload file and -D overrides, bad keys and
//! values as one line with exit 2, the open-loop rate, labels, the CSV
//! files, dbprefix/dbcount sets, and Ctrl-C during the load. Each engine's steps run in one test
//! because they share the engine's three tables.

mod common;

use common::*;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SIZE: &[&str] = &["--maxid1", "10001"];

const FB2011: [(&str, f64); 10] = [
    ("ADD_LINK", 8.9886601),
    ("DELETE_LINK", 2.9907664),
    ("UPDATE_LINK", 8.0122125),
    ("COUNT_LINK", 4.8863567),
    ("MULTIGET_LINK", 0.5261142),
    ("GET_LINKS_LIST", 50.7119145),
    ("ADD_NODE", 2.5732789),
    ("UPDATE_NODE", 7.366437),
    ("DELETE_NODE", 1.0115914),
    ("GET_NODE", 12.9326683),
];
const MDC2017: [(&str, f64); 10] = [
    ("ADD_LINK", 5.35038),
    ("DELETE_LINK", 0.98401),
    ("UPDATE_LINK", 4.75589),
    ("COUNT_LINK", 4.27898),
    ("MULTIGET_LINK", 12.14725),
    ("GET_LINKS_LIST", 22.57039),
    ("ADD_NODE", 2.61198),
    ("UPDATE_NODE", 3.06256),
    ("DELETE_NODE", 0.25166),
    ("GET_NODE", 43.9869),
];

fn cmd(command: &str, target: &str, extra: &[&str]) -> Command {
    let mut c = fairbench();
    c.arg(command).arg("linkbench").arg("--target").arg(target).args(extra);
    if command == "run" {
        c.args(["--no-save", "--output", "json"]);
    }
    c
}

fn run(target: &str, extra: &[&str]) -> Value {
    let s = summary(&run_ok(&mut cmd("run", target, &[SIZE, extra].concat())));
    assert_eq!(s["status"], "completed", "{s}");
    assert!(s["transactions"].as_u64().unwrap() > 0, "{s}");
    s
}

fn kind_events(s: &Value, name: &str) -> u64 {
    s["kinds"].as_array().unwrap().iter().find(|k| k["name"] == name).map(|k| k["events"].as_u64().unwrap()).unwrap_or(0)
}

fn check_passes(target: &str) {
    let text = stdout(&run_ok(&mut cmd("check", target, SIZE)));
    assert!(text.contains("All conditions hold.") && !text.contains("FAIL"), "{text}");
    assert!(text.contains("every count equals the visible links of its (id1, link_type)"), "{text}");
}

fn prepare(target: &str) {
    run_ok(&mut cmd("cleanup", target, SIZE));
    let out = run_ok(&mut cmd("prepare", target, &[SIZE, &["--loaders", "4", "--loader-chunk-size", "1000", "--rand-seed", "5"]].concat()));
    let text = stdout(&out);
    let line = text.lines().find(|l| l.starts_with("LOAD PHASE COMPLETED.")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("Loaded 10000 nodes (Expected 10000). Loaded "), "{line}");
    assert!(line.contains(" links per node). Took ") && line.contains(" seconds. Links/second = "), "{line}");
}

/// Several requesters for 3 s; the counts still match the links.
fn requests_keep_counts(target: &str) {
    let s = run(target, &["--threads", "4", "--time", "3"]);
    assert_eq!(s["label"], "LinkBench_10K-FB2011-4req", "{s}");
    for (op, _) in FB2011 {
        assert!(kind_events(&s, op) > 0 || op == "MULTIGET_LINK", "no {op} in {s}");
    }
    check_passes(target);
}

/// Each operation's share of 20000 requests within 1 point of the mix.
fn mix_holds(target: &str, mix: &str, want: &[(&str, f64); 10]) {
    let s = run(target, &["--threads", "4", "--events", "20000", "--time", "0", "--rand-seed", "11", "--linkbench-mix", mix]);
    let n = s["transactions"].as_u64().unwrap() as f64;
    assert_eq!(n, 20000.0, "{s}");
    for (op, share) in want {
        let got = kind_events(&s, op) as f64 * 100.0 / n;
        assert!((got - share).abs() <= 1.0, "{mix} on {target}: {op} {got:.2}% of requests, configured {share}%");
    }
}

/// Plain and LinkBench's own spelling of a rate: 25 per requester.
fn open_loop_rate(target: &str) {
    let s = run(target, &["-D", "requesters=4", "-D", "requestrate=25", "-D", "requests=100000", "-D", "maxtime=4"]);
    assert_eq!(s["rate"].as_f64().unwrap(), 100.0, "{s}");
    let tps = s["tps"].as_f64().unwrap();
    assert!((85.0..=115.0).contains(&tps), "open loop at 100/s achieved {tps}/s: {s}");
    let (corr, raw) = (&s["latency_ms"], &s["latency_uncorrected_ms"]);
    assert!(raw.is_object(), "no uncorrected latency: {s}");
    assert!(corr["max"].as_f64().unwrap() >= raw["max"].as_f64().unwrap(), "corrected latency below uncorrected: {s}");
}

fn csv_files(target: &str) {
    let dir = scratch_dir("linkbench-csv");
    let (stats, stream) = (dir.join("stats.csv"), dir.join("stream.csv"));
    let out = run_ok(&mut cmd("run", target, &[SIZE, &["--threads", "2", "--time", "2", "--csvstats", stats.to_str().unwrap(), "--csvstream", stream.to_str().unwrap()]].concat()));
    assert_eq!(summary(&out)["status"], "completed");
    let st = std::fs::read_to_string(&stats).unwrap();
    assert!(st.starts_with("op,count,p25_low,p25_high,p50_low,p50_high,p75_low,p75_high,p95_low,p95_high,p99_low,p99_high,max,mean\n"), "{st}");
    assert!(st.lines().any(|l| l.starts_with("GET_LINKS_LIST,")), "{st}");
    let sm = std::fs::read_to_string(&stream).unwrap();
    assert!(sm.starts_with("threadID,timestamp,op,"), "{sm}");
    assert!(sm.lines().count() > 2, "{sm}");
    // totalops is LinkBench's running total per operation; ops the count of
    // the sample; their sums agree and never pass the run's requests.
    let mut last: std::collections::HashMap<String, (u64, u64)> = Default::default();
    for row in sm.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f.len(), 17, "{row}");
        let (total, ops): (u64, u64) = (f[3].parse().unwrap(), f[5].parse().unwrap());
        let prev = last.entry(f[2].to_string()).or_default();
        assert_eq!(total, prev.0 + ops, "totalops is not a running total: {row}\n{sm}");
        *prev = (total, ops);
    }
    let streamed: u64 = last.values().map(|v| v.0).sum();
    let events = summary(&out)["transactions"].as_u64().unwrap();
    assert!(streamed > 0 && streamed <= events, "{streamed} streamed of {events} requests\n{sm}");
}

/// The helper above ran for three engines at once in one directory: one
/// run's `--csvstream` truncated another's file to nothing.
#[test]
fn csv_files_of_engines_tested_together_do_not_share_a_directory() {
    assert_ne!(scratch_dir("linkbench-csv"), scratch_dir("linkbench-csv"));
}

/// The text output: sysbench lines, then LinkBench's own.
fn linkbench_lines(target: &str) {
    let mut c = fairbench();
    c.args(["run", "LinkBench_10K-MDC2017-2req", "--target", target, "--time", "2", "--no-save"]);
    let text = stdout(&run_ok(&mut c));
    assert!(text.contains("Label: LinkBench_10K-MDC2017-2req"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("[ 1s ] thds: 2 tps: ")), "{text}");
    let get = text.lines().find(|l| l.starts_with("GET_NODE count = ")).unwrap_or_else(|| panic!("{text}"));
    for f in ["  p25 = ", "ms  p50 = ", "ms  p75 = ", "ms  p95 = ", "ms  p99 = ", "ms  max = ", "ms  mean = "] {
        assert!(get.contains(f), "{get}");
    }
    assert!(text.lines().any(|l| l.starts_with("REQUEST PHASE COMPLETED. ") && l.contains(" requests done in ") && l.contains(" seconds. Requests/second = ")), "{text}");
}

fn all_steps(target: &str) {
    prepare(target);
    check_passes(target);
    requests_keep_counts(target);
    mix_holds(target, "fb2011", &FB2011);
    mix_holds(target, "mdc2017", &MDC2017);
    open_loop_rate(target);
    csv_files(target);
    linkbench_lines(target);
    check_passes(target);
}

/// Two databases (MySQL) or schemas (PostgreSQL) lbt0 and lbt1, loaded
/// alike, shared by the requesters, checked one by one.
fn dbprefix_sets(target: &str) {
    let sets = ["--maxid1", "2001", "--dbprefix", "lbt", "--dbcount", "2"];
    run_ok(&mut cmd("cleanup", target, &sets));
    let text = stdout(&run_ok(&mut cmd("prepare", target, &with_few_links(&sets))));
    assert!(text.contains("Loaded 4000 nodes (Expected 4000)"), "{text}");
    let s = summary(&run_ok(&mut cmd("run", target, &[&sets[..], &["--threads", "4", "--time", "2"]].concat())));
    assert_eq!(s["status"], "completed", "{s}");
    let text = stdout(&run_ok(&mut cmd("check", target, &sets)));
    assert!(text.contains("lbt0.linktable") && text.contains("lbt1.linktable") && text.contains("All conditions hold."), "{text}");
    run_ok(&mut cmd("cleanup", target, &sets));
}

#[test]
fn mariadb() {
    all_steps(&mysql_url());
    dbprefix_sets(&mysql_url());
    interrupted_load(&mysql_url());
}

#[test]
fn postgresql() {
    all_steps(&pg_url());
    dbprefix_sets(&pg_url());
    interrupted_load(&pg_url());
}

#[test]
fn sqlite() {
    let db = scratch_dir("linkbench-sqlite").join("lb.db");
    all_steps(&format!("sqlite://{}", db.display()));
}

/// The same load twice from one seed: the same links.
#[test]
fn load_is_reproducible_with_a_seed() {
    let dir = scratch_dir("linkbench-seed");
    let dump = |name: &str| {
        let db = dir.join(name);
        let target = format!("sqlite://{}", db.display());
        run_ok(&mut cmd("prepare", &target, &with_few_links(&["--maxid1", "3001", "--rand-seed", "9"])));
        let conn = rusqlite::Connection::open(&db).unwrap();
        let mut st = conn.prepare("SELECT id1, id2, link_type, data FROM linktable ORDER BY link_type, id1, id2").unwrap();
        st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?, r.get::<_, String>(3)?))).unwrap().map(|r| r.unwrap()).collect::<Vec<_>>()
    };
    let (a, b) = (dump("a.db"), dump("b.db"));
    assert!(a.len() > 3000, "{}", a.len());
    assert_eq!(a, b);
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// A LinkBench properties file, its workload file found relative to the
/// directory LinkBench runs from, and -D winning over both.
#[test]
fn properties_file_and_overrides_decode() {
    let dir = scratch_dir("linkbench-props");
    write(
        &dir,
        "config/OnlyNodes.properties",
        "# reads only\naddlink = 0\ndeletelink = 0\nupdatelink = 0\ncountlink = 0\ngetlink = 0\ngetlinklist = 0\naddnode = 0\nupdatenode = 0\ndeletenode = 0\ngetnode = 100\n",
    );
    let main = write(
        &dir,
        "config/LinkConfigTest.properties",
        "linkstore = com.facebook.LinkBench.LinkStoreMysql\nhost = yourhostname.here\nuser = u\npassword = p\ndbid = linkdb\nport = 3306\n\
         workload_file = config/OnlyNodes.properties\nmaxid1 = 2001\nrequesters = 3\nrequests = 50\nmaxtime : 30\nloaders 2\n",
    );
    let target = format!("sqlite://{}", dir.join("p.db").display());
    run_ok(cmd("prepare", &target, &with_few_links(&["-c", &main])).current_dir(&dir));
    let s = summary(&run_ok(cmd("run", &target, &["-c", &main, "-D", "requesters=2", "-Drequests=40"]).current_dir(&dir)));
    assert_eq!(s["threads"], 2, "{s}");
    assert_eq!(s["transactions"], 80, "{s}");
    assert_eq!(kind_events(&s, "GET_NODE"), 80, "{s}");
    assert_eq!(s["label"], "LinkBench_2K-CUSTOM-2req", "{s}");
    assert_eq!(s["options"]["maxid1"], "2001", "{s}");
    assert_eq!(s["options"]["linkbench-getnode"], "100", "{s}");
    // A fairbench option on the command line wins over the file.
    let s = summary(&run_ok(cmd("run", &target, &["-c", &main, "--threads", "1", "--events", "7"]).current_dir(&dir)));
    assert_eq!((s["threads"].as_u64(), s["transactions"].as_u64()), (Some(1), Some(7)), "{s}");
}

/// Unknown keys, bad values, a missing file: one line, exit 2.
#[test]
fn bad_properties_are_one_line_and_exit_2() {
    let dir = scratch_dir("linkbench-bad");
    let target = format!("sqlite://{}", dir.join("b.db").display());
    let bad_key = write(&dir, "bad.properties", "maxid1 = 1001\nmaxidd1 = 5\n");
    let bad_value = write(&dir, "value.properties", "maxid1 = lots\n");
    let bad_mix = write(&dir, "mix.properties", "getnode = 50\n");
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (vec!["-c".into(), bad_key.clone()], vec!["maxidd1", "bad.properties:2"]),
        (vec!["-D".into(), "maxidd1=5".into()], vec!["maxidd1"]),
        (vec!["-D".into(), "maxid1".into()], vec!["key=value"]),
        (vec!["-c".into(), bad_value], vec!["maxid1", "lots"]),
        (vec!["-c".into(), bad_mix], vec!["sums to"]),
        (vec!["-c".into(), dir.join("missing.properties").display().to_string()], vec!["missing.properties"]),
        (vec!["--maxid1".into(), "1".into()], vec!["maxid1"]),
    ];
    for (args, mentions) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_fail(&mut cmd("prepare", &target, &a));
        assert_eq!(out.status.code(), Some(2), "{a:?}: {}", show(&out));
        assert_one_line_error(&out, &mentions);
    }
}

#[test]
fn labels_explain() {
    let out = run_ok(fairbench().args(["explain", "LinkBench_1M-FB2011-64req"]));
    let text = stdout(&out);
    assert!(text.contains("--maxid1=1000001") && text.contains("--threads=64") && text.contains("canonical: LinkBench_1M-FB2011-64req"), "{text}");
    let out = run_fail(fairbench().args(["explain", "LinkBench_1M-FB2011-64x"]));
    assert_one_line_error(&out, &["64x"]);
}

/// Ctrl-C while the link loaders run: exit 130 within 2 s.
fn interrupted_load(target: &str) {
    run_ok(&mut cmd("cleanup", target, SIZE));
    let mut child = cmd("prepare", target, &["--maxid1", "2000001", "--loaders", "2"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 256];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            if String::from_utf8_lossy(&seen).contains("Loading LinkBench graph") {
                let _ = seen_tx.send(());
                break;
            }
        }
        let _ = std::io::copy(&mut out, &mut std::io::sink());
    });
    // Signalled once the load has begun (its banner comes as the first rows go out).
    seen_rx.recv_timeout(Duration::from_secs(60)).expect("prepare never said it was loading");
    assert!(child.try_wait().unwrap().is_none(), "prepare ended before it could be interrupted");
    // SAFETY: plain kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "still running after SIGINT");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(status.code(), Some(130), "exit status after SIGINT: {status}");
    assert!(t0.elapsed() <= Duration::from_secs(2), "took {:?} to stop", t0.elapsed());
    let _ = reader.join();
    // The unfinished load is not taken for a complete one.
    let text = stdout(&run_fail(&mut cmd("check", target, SIZE)));
    assert!(!text.contains("All conditions hold."), "{text}");
    run_ok(&mut cmd("cleanup", target, SIZE));
}

/// Links per node from a data file (`-D data_file=`): the load holds the
/// links LinkBench's step rule gives for its points, counted by hand.
#[test]
fn data_file_sets_links_per_node_by_the_step_rule() {
    let dir = scratch_dir("linkbench-datafile");
    let data = write(&dir, "Dist.dat", "nlinks\n0 50.05\n3 80.05\n20 100\nnode_nreads 0 90 4 100\n");
    let target = format!("sqlite://{}", dir.join("d.db").display());
    let out = run_ok(&mut cmd("prepare", &target, &["--maxid1", "1001", "-D", &format!("data_file={data}")]));
    assert!(stderr(&out).contains(&format!("data file {data} (3 points)")), "{}", show(&out));
    // 1000 ids at places j = 0..999 take the point at or above u = 1 - j/1000:
    // j < 200 (u > 0.8005) 20 links, j in 200..500 (u > 0.5005) 3, the rest 0.
    // LinkBench splits n links over 2 types as n/2 + 1 each when n > 2:
    // 20 -> 11 + 11, 3 -> 2 + 2.
    let want = 200 * 22 + 300 * 4;
    let text = stdout(&out);
    let line = text.lines().find(|l| l.starts_with("LOAD PHASE COMPLETED.")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&format!("Loaded {want} links")), "{line}");
    check_passes_at(&target, &["--maxid1", "1001"]);
}

fn check_passes_at(target: &str, size: &[&str]) {
    let text = stdout(&run_ok(&mut cmd("check", target, size)));
    assert!(text.contains("All conditions hold.") && !text.contains("FAIL"), "{text}");
}

/// A data file missing, malformed or not a CDF: one line, exit 2.
#[test]
fn bad_data_file_is_one_line_and_exit_2() {
    let dir = scratch_dir("linkbench-baddata");
    let target = format!("sqlite://{}", dir.join("b.db").display());
    let cases = [
        (dir.join("none.dat").display().to_string(), vec!["none.dat", "cannot read"]),
        (write(&dir, "word.dat", "nlinks 0 50 1 abc\n"), vec!["word.dat", "\"abc\""]),
        (write(&dir, "short.dat", "nlinks 0 50 1 90\n"), vec!["short.dat", "100%"]),
        (write(&dir, "name.dat", "links 0 50 1 100\n"), vec!["name.dat", "\"links\""]),
        (write(&dir, "other.dat", "node_nreads 0 50 1 100\n"), vec!["other.dat", "'nlinks'"]),
    ];
    for (file, mentions) in cases {
        let out = run_fail(&mut cmd("prepare", &target, &["--maxid1", "1001", "-D", &format!("data_file={file}")]));
        assert_eq!(out.status.code(), Some(2), "{file}: {}", show(&out));
        assert_one_line_error(&out, &mentions);
    }
    // The data file's request sections drive LinkBench's `real` access functions, which fairbench has not.
    let out = run_fail(&mut cmd("prepare", &target, &["--maxid1", "1001", "-D", "read_function=real"]));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["read_function", "real"]);
}

/// Every operation but ADD_LINK at 0%.
const ADD_LINK_ONLY: &[&str] = &[
    "-D",
    "addlink=100",
    "-D",
    "deletelink=0",
    "-D",
    "updatelink=0",
    "-D",
    "countlink=0",
    "-D",
    "getlink=0",
    "-D",
    "getlinklist=0",
    "-D",
    "addnode=0",
    "-D",
    "updatenode=0",
    "-D",
    "deletenode=0",
    "-D",
    "getnode=0",
];
/// A round-trip test's own database (one per test: they run at the same
/// time), so the other tests' tables stay as they were.
fn round_trip_set(prefix: &str) -> [&str; 4] {
    ["--maxid1", "2001", "--dbprefix", prefix]
}
const ADD_LINK_EVENTS: u64 = 1000;

/// Statements in a COM_QUERY's text: the `;` outside quoted literals,
/// plus a last statement without one.
fn statements_in(sql: &[u8]) -> u64 {
    let (mut n, mut quote, mut escaped, mut tail) = (0, None, false, false);
    for &b in sql {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if b == b'\\' => escaped = true,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => {
                quote = Some(b);
                tail = true;
            }
            None if b == b';' => {
                n += 1;
                tail = false;
            }
            None if !b.is_ascii_whitespace() => tail = true,
            None => {}
        }
    }
    n + u64::from(tail)
}

/// A TCP relay in front of the MariaDB server that counts what clients
/// send: a MySQL command is a packet with sequence number 0, and the
/// server answers each before the client sends the next, so commands are
/// round trips; statements are the commands that run one (a prepared
/// statement's execution) plus those a query's text holds. The server's
/// own counters (`Questions`) are global, and other clients share the
/// test server.
struct CommandCounter {
    port: u16,
    commands: std::sync::Arc<std::sync::atomic::AtomicU64>,
    statements: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl CommandCounter {
    fn start() -> CommandCounter {
        use std::net::{TcpListener, TcpStream};
        use std::sync::atomic::{AtomicU64, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (commands, statements) = (std::sync::Arc::new(AtomicU64::new(0)), std::sync::Arc::new(AtomicU64::new(0)));
        let (counted, stmts) = (commands.clone(), statements.clone());
        let server = format!("127.0.0.1:{}", mysql_port());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(upstream) = TcpStream::connect(&server) else { return };
                // Without it each small packet written behind another waited for the
                // peer's delayed ACK: 40 ms a round trip, 45 s for the test's requests.
                let _ = (client.set_nodelay(true), upstream.set_nodelay(true));
                let (mut c_in, mut s_out) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                let (mut s_in, mut c_out) = (upstream, client);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut s_in, &mut c_out);
                });
                let (counted, stmts) = (counted.clone(), stmts.clone());
                std::thread::spawn(move || {
                    use std::io::Write;
                    // Whole packets: 3 bytes of length, 1 of sequence number, the payload.
                    let (mut buf, mut pending) = (vec![0u8; 1 << 16], Vec::new());
                    loop {
                        let n = match c_in.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => n,
                        };
                        if s_out.write_all(&buf[..n]).is_err() {
                            return;
                        }
                        pending.extend_from_slice(&buf[..n]);
                        let mut at = 0;
                        while pending.len() - at >= 4 {
                            let len = pending[at] as usize | (pending[at + 1] as usize) << 8 | (pending[at + 2] as usize) << 16;
                            if pending.len() - at < 4 + len {
                                break;
                            }
                            let payload = &pending[at + 4..at + 4 + len];
                            if pending[at + 3] == 0 {
                                counted.fetch_add(1, Ordering::Relaxed);
                                match payload.first() {
                                    Some(0x03) => {
                                        stmts.fetch_add(statements_in(&payload[1..]), Ordering::Relaxed);
                                    }
                                    Some(0x17) => {
                                        stmts.fetch_add(1, Ordering::Relaxed);
                                    }
                                    _ => {}
                                }
                            }
                            at += 4 + len;
                        }
                        pending.drain(..at);
                    }
                });
            }
        });
        CommandCounter { port, commands, statements }
    }

    /// (statements, commands) so far.
    fn count(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.statements.load(Relaxed), self.commands.load(Relaxed))
    }

    /// The test server's URL through the relay, without TLS (the relay reads the packets).
    fn url(&self) -> String {
        let u = mysql_url();
        let (head, tail) = u.split_once('@').unwrap();
        let db = tail.split_once('/').map(|(_, d)| d).unwrap_or("");
        let db = db.split('?').next().unwrap();
        format!("{head}@127.0.0.1:{}/{db}?ssl-mode=DISABLED", self.port)
    }
}

#[test]
fn statements_in_counts_outside_quotes() {
    assert_eq!(statements_in(b"SELECT 1"), 1);
    assert_eq!(statements_in(b"UPDATE t SET d = 'a;b\\';c' WHERE x = 1; COMMIT"), 2);
    assert_eq!(statements_in(b"INSERT INTO t VALUES ('x'';'); COMMIT;  "), 2);
}

/// (statements, round trips) per ADD_LINK over one requester's
/// ADD_LINK_EVENTS requests, with the shape's options added.
fn add_link_cost(relay: &CommandCounter, set: &[&str], shape: &[&str]) -> (f64, f64) {
    let target = relay.url();
    let (q0, c0) = relay.count();
    let events = ADD_LINK_EVENTS.to_string();
    let s = summary(&run_ok(&mut cmd("run", &target, &[set, ADD_LINK_ONLY, shape, &["--threads", "1", "--events", &events, "--time", "0"]].concat())));
    assert_eq!(s["status"], "completed", "{s}");
    assert_eq!(kind_events(&s, "ADD_LINK"), ADD_LINK_EVENTS, "{s}");
    let (q, c) = relay.count();
    let (q, c) = (q - q0, c - c0);
    (q as f64 / ADD_LINK_EVENTS as f64, c as f64 / ADD_LINK_EVENTS as f64)
}

fn round_trip_set_checks(target: &str, set: &[&str]) {
    let text = stdout(&run_ok(&mut cmd("check", target, set)));
    assert!(text.contains("All conditions hold.") && !text.contains("FAIL"), "{text}");
}

/// Java LinkBench's addLink sends INSERT ... ON DUPLICATE KEY UPDATE, then
/// the count upsert (or the data update) with "; commit" in one query: 3
/// statements in 2 round trips for a new or visible link. fairbench's
/// default on MariaDB must take no more, counted by the server's
/// `Questions` and by a relay counting the commands on the wire; the
/// counts still hold after. The run's fixed costs (connecting, the
/// environment snapshot, autocommit off) spread over 1000 requests.
#[test]
fn add_link_on_mariadb_takes_no_more_round_trips_than_java() {
    let target = mysql_url();
    let set = &round_trip_set("lbrt");
    run_ok(&mut cmd("cleanup", &target, set));
    run_ok(&mut cmd("prepare", &target, &with_few_links(&[set, &["--rand-seed", "3"][..]].concat())));
    let relay = CommandCounter::start();
    let (statements, trips) = add_link_cost(&relay, set, &[]);
    assert!(trips <= 2.05, "ADD_LINK took {trips:.3} round trips per request (Java LinkBench: 2)");
    assert!(statements <= 3.05, "ADD_LINK took {statements:.3} statements per request (Java LinkBench: 3)");
    // The relay counts: it saw at least the requests' own commands.
    assert!(trips >= 2.0, "the relay counted {trips:.3} commands per ADD_LINK: it misses some");
    round_trip_set_checks(&target, set);
}

/// `--linkbench-shape=locking` still runs the old transaction on MariaDB
/// (BEGIN, SELECT ... FOR UPDATE, INSERT or UPDATE, the count, COMMIT:
/// 5 round trips), names itself in the run's options, and keeps the counts.
#[test]
fn locking_shape_is_still_selectable_on_mariadb() {
    let target = mysql_url();
    let set = &round_trip_set("lbrl");
    run_ok(&mut cmd("cleanup", &target, set));
    // LinkBench's own links per node: the 5 round trips hold for its graph
    // (one of 2.8 links per node took 4.87 a request).
    run_ok(&mut cmd("prepare", &target, &[set, &["--rand-seed", "3"][..]].concat()));
    let relay = CommandCounter::start();
    let (statements, trips) = add_link_cost(&relay, set, &["--linkbench-shape", "locking"]);
    assert!((4.9..=5.1).contains(&trips), "locking ADD_LINK took {trips:.3} round trips per request, not 5");
    assert!((4.9..=5.1).contains(&statements), "locking ADD_LINK took {statements:.3} statements per request, not 5");
    round_trip_set_checks(&target, set);
    // The shape is a stored option of the run.
    let out = run_ok(&mut cmd("run", &target, &[set, &["--linkbench-shape", "locking", "--threads", "1", "--time", "1"][..]].concat()));
    let s = summary(&out);
    assert!(s.to_string().contains("\"linkbench-shape\":\"locking\""), "{s}");
    // Java's shape is refused where the server has no ON DUPLICATE KEY UPDATE.
    let out = run_fail(&mut cmd("run", &pg_url(), &[SIZE, &["--linkbench-shape", "java", "--time", "1"]].concat()));
    assert_one_line_error(&out, &["--linkbench-shape=java", "locking"]);
    run_ok(&mut cmd("cleanup", &target, set));
}

/// `--linkbench-partitions` was ignored without a word on PostgreSQL and
/// SQLite: it now says, once, that it has no effect there; on MariaDB it
/// partitions and says nothing.
#[test]
fn partitions_where_there_are_none_are_noted_not_ignored() {
    let db = scratch_dir("linkbench-partitions").join("lb.db");
    let note = "note: --linkbench-partitions=4 has no effect on ";
    // A prefix of its own: the other PostgreSQL tests load and drop the
    // default schema's tables at the same time.
    let sqlite = (format!("sqlite://{}", db.display()), &[][..]);
    for (target, prefix) in [sqlite, (pg_url(), &["--dbprefix", "lbpart"][..])] {
        let sets = [&["--maxid1", "101", "--linkbench-partitions", "4"][..], prefix].concat();
        let out = run_ok(&mut cmd("prepare", &target, &with_few_links(&sets)));
        let err = stderr(&out);
        assert_eq!(err.matches(note).count(), 1, "{target}: {err}");
        run_ok(&mut cmd("cleanup", &target, &sets));
    }
    let sets = ["--maxid1", "101", "--dbprefix", "lbpart", "--linkbench-partitions", "4"];
    let out = run_ok(&mut cmd("prepare", &mysql_url(), &with_few_links(&sets)));
    assert!(!stderr(&out).contains(note), "{}", stderr(&out));
    let parts = mysql_admin("SELECT COUNT(*) FROM information_schema.partitions WHERE table_schema = 'lbpart0' AND table_name = 'linktable'");
    assert_eq!(parts.trim(), "4", "{parts}");
    run_ok(&mut cmd("cleanup", &mysql_url(), &sets));
}
