//! Hardware per operation, against references read by the tests
//! themselves: the server's CPU against sysstat's `pidstat` over the same
//! window, the host's context switches against /proc/stat, the node
//! exporter path against the /proc path of the same run, KB read per point
//! select in memory, fsyncs per commit on durable and relaxed sandboxes,
//! and the audit's findings on pairs made to trigger them.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The figures of a stored run's levels (`results export` JSON).
fn levels(store: &Path, run: &str) -> Vec<Value> {
    stored_levels(store, run)
}

fn figure(level: &Value, name: &str) -> f64 {
    level["efficiency"][name].as_f64().unwrap_or_else(|| panic!("no {name} in {}", level["efficiency"]))
}

/// Sums a counter's deltas over the samples of the measured window (after the baseline).
fn sampled(level: &Value, key: &str) -> f64 {
    level["samples"].as_array().unwrap().iter().filter(|s| s["seq"].as_u64().unwrap() > 0).filter_map(|s| s["deltas"][key].as_f64()).sum()
}

fn prepare(target: &str, name: &str) -> Vec<String> {
    let size: Vec<String> = ["--tables", "1", "--table-size", "10000", "--table-name", name].iter().map(|s| s.to_string()).collect();
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", target]).args(&size));
    run_ok(fairbench().args(["prewarm", "oltp_point_select", "--target", target]).args(&size));
    size
}

/// A run in the background, stored in `store`.
fn start_run(target: &str, size: &[String], store: &Path, secs: u32, extra: &[&str]) -> Child {
    fairbench()
        .args(["run", "oltp_point_select", "--target", target, "--threads", "2", "--time", &secs.to_string(), "--report-interval", "1"])
        .args(size)
        .args(extra)
        .arg("--results")
        .arg(store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A run whose clients connect, then wait for the test: the level starts
/// when `open` is called, so the test's own reading covers the same window.
struct Gated {
    child: Child,
    gate: std::path::PathBuf,
}

impl Gated {
    fn start(target: &str, size: &[String], store: &Path, secs: u32) -> Gated {
        let gate = store.with_extension("gate");
        std::fs::write(&gate, "").unwrap();
        let mut child = start_run(target, size, store, secs, &["--sync-file", gate.to_str().unwrap(), "--sync-wait", "1"]);
        // Read stderr until the run says its clients are connected and waiting.
        let err = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for l in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                if l.contains("waiting for") {
                    let _ = tx.send(());
                }
            }
        });
        rx.recv_timeout(Duration::from_secs(30)).expect("the run's clients did not connect within 30 s");
        Gated { child, gate }
    }

    /// Starts the level.
    fn open(&self) {
        std::fs::remove_file(&self.gate).unwrap();
    }
}

fn wait_ok(child: Child) {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
}

/// A process and every process below it.
fn tree(root: i32) -> Vec<i32> {
    let parent = |p: i32| -> Option<i32> {
        let s = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        s[s.rfind(')')? + 2..].split_ascii_whitespace().nth(1)?.parse().ok()
    };
    let all: Vec<i32> = std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect();
    let mut out = vec![root];
    loop {
        let more: Vec<i32> = all.iter().copied().filter(|p| !out.contains(p) && parent(*p).is_some_and(|pp| out.contains(&pp))).collect();
        if more.is_empty() {
            return out;
        }
        out.extend(more);
    }
}

/// The server's process as the run recorded it ("mariadbd, pid 123").
fn recorded_pid(store: &Path) -> i32 {
    let v: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["results", "export", "last", "--results"]).arg(store)))).unwrap();
    let p = v["runs"][0]["env_start"]["server"]["process"].as_str().unwrap_or_else(|| panic!("no server process recorded: {}", v["runs"][0]["env_start"]["server"]));
    p.rsplit_once("pid ").unwrap().1.parse().unwrap()
}

/// The server's CPU in cores over `secs` seconds, as pidstat reports it for `pids`.
fn pidstat_cores(pids: &[i32], secs: u32) -> f64 {
    let list: Vec<String> = pids.iter().map(|p| p.to_string()).collect();
    let out = Command::new("pidstat").args(["-h", "-u", "-p", &list.join(","), "1", &secs.to_string()]).env("LC_ALL", "C").output().expect("pidstat (Debian's sysstat)");
    let text = String::from_utf8_lossy(&out.stdout);
    // -h: one line per process and second; %CPU is the column before CPU.
    let header = text.lines().find(|l| l.starts_with('#') && l.contains("%CPU")).unwrap_or_else(|| panic!("no header in pidstat's output:\n{text}"));
    let col = header.trim_start_matches('#').split_ascii_whitespace().position(|c| c == "%CPU").unwrap();
    let mut total = 0.0;
    for l in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty() && !l.starts_with("Linux")) {
        if let Some(v) = l.split_ascii_whitespace().nth(col).and_then(|v| v.parse::<f64>().ok()) {
            total += v / 100.0;
        }
    }
    total / secs as f64
}

/// The server's figures count every session and process of the server:
/// these tests use servers of their own, so that no other test's sessions
/// add to them, and without autovacuum, whose workers come and go between
/// the processes the reference was told to watch.
fn own_servers(name: &str) -> Vec<(&'static str, Sandbox, String)> {
    let dir = scratch_dir(name);
    [("mariadb", vec![]), ("postgres", vec!["autovacuum=off"])]
        .into_iter()
        .map(|(engine, sets)| {
            let (sb, url) = Sandbox::start_with(engine, "packaged", &dir.join(engine), &sets);
            (engine, sb, url)
        })
        .collect()
}

#[test]
fn server_cpu_per_operation_agrees_with_pidstat() {
    for (engine, _sandbox, target) in own_servers("hw-pidstat-servers") {
        let dir = scratch_dir(&format!("hw-pidstat-{engine}"));
        let store = dir.join("r.sqlite");
        let size = prepare(&target, "hwp");
        // pidstat watches the level's first 4 seconds (of 6: PostgreSQL's
        // backends exit when it ends, and pidstat drops an interval a process
        // did not live through), against fairbench's samples of those seconds.
        let run = Gated::start(&target, &size, &store, 6);
        let root = recorded_pid(&store);
        let pids = tree(root);
        run.open();
        let reference = pidstat_cores(&pids, 4);
        wait_ok(run.child);
        let l = &levels(&store, "last")[0];
        let first: Vec<&Value> = l["samples"].as_array().unwrap().iter().filter(|s| s["seq"].as_u64().unwrap() > 0 && s["t"].as_f64().unwrap() < 4.5).collect();
        let secs: f64 = first.iter().map(|s| s["dt"].as_f64().unwrap()).sum();
        let cpu: f64 = first.iter().map(|s| s["deltas"]["server:cpu_user_s"].as_f64().unwrap() + s["deltas"]["server:cpu_sys_s"].as_f64().unwrap()).sum();
        let ours = cpu / secs;
        // The level's figure per transaction is the same measurement divided by its transactions.
        let whole = figure(l, "server_cpu_us_per_trx") * l["events"].as_f64().unwrap() / 1e6;
        assert!((whole - sampled(l, "server:cpu_user_s") - sampled(l, "server:cpu_sys_s")).abs() < 0.01, "{engine}: {whole} s");
        let diff = (ours - reference).abs() / reference;
        assert!(diff < 0.15, "{engine}: server CPU {ours:.3} cores by fairbench, {reference:.3} by pidstat ({:.0}% apart)", diff * 100.0);
    }
}

#[test]
fn host_context_switches_agree_with_proc_stat() {
    let target = mysql_url();
    let dir = scratch_dir("hw-ctxt");
    let store = dir.join("r.sqlite");
    let size = prepare(&target, "hwc");
    let ctxt = || -> f64 { std::fs::read_to_string("/proc/stat").unwrap().lines().find_map(|l| l.strip_prefix("ctxt ")).unwrap().trim().parse().unwrap() };
    let run = Gated::start(&target, &size, &store, 5);
    let (c0, t0) = (ctxt(), Instant::now());
    run.open();
    std::thread::sleep(Duration::from_millis(5000));
    let reference = (ctxt() - c0) / t0.elapsed().as_secs_f64();
    let child = run.child;
    wait_ok(child);
    let l = &levels(&store, "last")[0];
    let ours = figure(l, "host_cs_per_trx") * l["events"].as_f64().unwrap() / figure(l, "secs");
    let diff = (ours - reference).abs() / reference;
    assert!(diff < 0.15, "host context switches {ours:.0}/s by fairbench, {reference:.0}/s from /proc/stat ({:.0}% apart)", diff * 100.0);
}

#[test]
fn point_selects_in_memory_read_less_than_a_tenth_of_a_kb_per_operation() {
    for (engine, _sandbox, target) in own_servers("hw-reads-servers") {
        let dir = scratch_dir(&format!("hw-reads-{engine}"));
        let store = dir.join("r.sqlite");
        let size = prepare(&target, "hwr");
        wait_ok(start_run(&target, &size, &store, 4, &[]));
        let l = &levels(&store, "last")[0];
        // The server's own storage reads (its processes' read_bytes): the disk's
        // counters also hold what other processes on the host read meanwhile.
        let kb = figure(l, "server_read_kb_per_trx");
        assert!(kb < 0.1, "{engine}: {kb} KB read per point select by the server, with the table in memory");
    }
}

/// A throwaway server of `profile`, stopped when dropped.
struct Sandbox(String);

impl Sandbox {
    fn start(engine: &str, profile: &str, dir: &Path) -> (Sandbox, String) {
        Sandbox::start_with(engine, profile, dir, &[])
    }

    fn start_with(engine: &str, profile: &str, dir: &Path, sets: &[&str]) -> (Sandbox, String) {
        let mut cmd = fairbench();
        cmd.args(["server", "start", engine, "--profile", profile, "--ram", "1G", "--cores", "2"]).arg("--dir").arg(dir);
        for s in sets {
            cmd.args(["--set", s]);
        }
        let out = run_ok(&mut cmd);
        (Sandbox(dir.display().to_string()), stdout(&out).trim().to_string())
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = fairbench().args(["server", "stop", &self.0]).output();
    }
}

#[test]
fn fsyncs_per_commit_follow_the_durability_and_the_audit_compares_them() {
    for engine in ["mariadb", "postgres"] {
        let dir = scratch_dir(&format!("hw-fsync-{engine}"));
        let store = dir.join("r.sqlite");
        let (_d, durable) = Sandbox::start(engine, "durable", &dir.join("durable"));
        let (_r, relaxed) = Sandbox::start(engine, "relaxed", &dir.join("relaxed"));
        let size = ["--tables", "1", "--table-size", "1000"];
        for target in [&durable, &relaxed, &durable] {
            run_ok(fairbench().args(["prepare", "oltp_write_only", "--target", target]).args(size));
            run_ok(fairbench().args(["run", "oltp_write_only", "--target", target, "--threads", "1", "--time", "3", "--report-interval", "1"]).args(size).arg("--results").arg(&store));
        }
        let per_commit = |run: &str| figure(&levels(&store, run)[0], "fsyncs_per_commit");
        let (d, r) = (per_commit("1"), per_commit("2"));
        assert!(d >= 0.9, "{engine} durable: {d} fsyncs per commit");
        assert!(r < d / 3.0, "{engine} relaxed: {r} fsyncs per commit against {d} durable");
        let audit = |a: &str, b: &str| stdout(&run_ok(fairbench().args(["audit", "--json", a, b, "--results"]).arg(&store)));
        assert!(audit("1", "2").contains("\"fsync-mismatch\""), "{engine}: {}", audit("1", "2"));
        assert!(!audit("1", "3").contains("\"fsync-mismatch\""), "{engine}: {}", audit("1", "3"));
    }
}

/// A node exporter on a free loopback port, stopped when dropped.
struct Exporter(Child, u16);

impl Exporter {
    fn start() -> Exporter {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("prometheus-node-exporter")
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus-node-exporter (Debian's package)");
        let t0 = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(t0.elapsed() < Duration::from_secs(10), "the node exporter did not listen on {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        Exporter(child, port)
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_node_exporter_path_agrees_with_the_proc_path_of_the_same_run() {
    let exporter = Exporter::start();
    let target = mysql_url();
    let dir = scratch_dir("hw-node");
    let store = dir.join("r.sqlite");
    let size = prepare(&target, "hwn");
    let url = format!("http://127.0.0.1:{}/metrics", exporter.1);
    wait_ok(start_run(&target, &size, &store, 5, &["--server-metrics", &url]));
    let l = &levels(&store, "last")[0];
    let busy = |p: &str| ["user", "nice", "system", "irq", "softirq", "steal"].iter().map(|m| sampled(l, &format!("{p}:{m}_s"))).sum::<f64>();
    let (node, local) = (busy("node"), busy("host"));
    assert!(node > 0.0 && (node - local).abs() / local < 0.15, "busy CPU seconds: {node:.2} by the node exporter, {local:.2} from /proc");
    let (node_cs, local_cs) = (sampled(l, "node:ctxt"), sampled(l, "host:ctxt"));
    assert!((node_cs - local_cs).abs() / local_cs < 0.15, "context switches: {node_cs} by the node exporter, {local_cs} from /proc");
    // The figures per operation come from the exporter, and say so.
    assert!(l["efficiency"]["notes"].to_string().contains("node exporter"), "{}", l["efficiency"]);
    let events = l["events"].as_f64().unwrap();
    assert!((figure(l, "host_cpu_us_per_trx") - node * 1e6 / events).abs() < 1.0);
    // An exporter that is not there: the run goes on and says why.
    let out = run_ok(
        fairbench().args(["run", "oltp_point_select", "--target", &target, "--threads", "1", "--time", "1", "--server-metrics", "http://127.0.0.1:1/metrics"]).args(&size).arg("--results").arg(&store),
    );
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["results", "export", "last", "--results"]).arg(&store)))).unwrap();
    assert!(v["runs"][0]["env_start"]["errors"].to_string().contains("--server-metrics"), "{}", v["runs"][0]["env_start"]["errors"]);
}

#[test]
fn a_bad_server_metrics_url_is_one_line_and_exit_2() {
    for url in ["https://db:9100/metrics", "db:9100", "http://db/metrics"] {
        let out = run_fail(fairbench().args(["run", "--time", "1", "--server-metrics", url]));
        assert_eq!(out.status.code(), Some(2), "{url}: {}", show(&out));
        assert_one_line_error(&out, &["--server-metrics"]);
    }
}

#[test]
fn the_audit_names_a_client_that_took_a_saturated_hosts_cpu_and_not_a_light_run() {
    let target = mysql_url();
    let dir = scratch_dir("hw-client");
    let store = dir.join("r.sqlite");
    let size = prepare(&target, "hwa");
    // Far more clients than the 2 cores, beside the server: the host saturates.
    run_ok(fairbench().args(["run", "oltp_point_select", "--target", &target, "--threads", "16", "--time", "3"]).args(&size).arg("--results").arg(&store));
    // A light open-loop load leaves the host mostly idle.
    run_ok(fairbench().args(["run", "oltp_point_select", "--target", &target, "--threads", "1", "--rate", "100", "--time", "3"]).args(&size).arg("--results").arg(&store));
    let audit = |run: &str| stdout(&run_ok(fairbench().args(["audit", "--json", run, "--results"]).arg(&store)));
    assert!(audit("1").contains("\"client-took-server-cpu\""), "{}", audit("1"));
    assert!(!audit("2").contains("\"client-took-server-cpu\""), "{}", audit("2"));
}

/// Drops a directory's files from the OS page cache (`dd iflag=nocache
/// count=0` asks the kernel to forget the whole file's cached pages), so the
/// server's next reads of them go to the disk.
fn evict_from_page_cache(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            evict_from_page_cache(&p);
        } else if p.is_file() {
            let out = Command::new("dd").arg(format!("if={}", p.display())).args(["iflag=nocache", "count=0", "status=none"]).output().unwrap();
            assert!(out.status.success(), "dd could not drop {} from the page cache: {}", p.display(), show(&out));
        }
    }
}

#[test]
fn the_audit_calls_out_an_in_memory_run_that_read_from_disk_and_not_a_prewarmed_one() {
    // A cache far smaller than the table, and the table's files dropped from
    // the OS page cache: the server reads most point selects from the disk.
    let dir = scratch_dir("hw-in-memory");
    let (_sandbox, target) = Sandbox::start_with("postgres", "packaged", &dir.join("pg"), &["autovacuum=off", "shared_buffers=16MB"]);
    let store = dir.join("r.sqlite");
    let size: Vec<String> = ["--tables", "1", "--table-size", "1000000", "--table-name", "hwm"].iter().map(|s| s.to_string()).collect();
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &target]).args(&size));
    // Written out first: the kernel drops only clean pages.
    let out = Command::new("psql").arg(&target).args(["-Atc", "CHECKPOINT"]).env("PGSSLMODE", "disable").output().expect("psql");
    assert!(out.status.success(), "{}", show(&out));
    run_ok(&mut Command::new("sync"));
    evict_from_page_cache(&dir.join("pg"));
    let claimed = || {
        show(&run_ok(
            fairbench()
                .args(["run", "oltp_point_select", "--target", &target, "--threads", "2", "--time", "3", "--rand-type", "uniform", "--tag", "in-memory"])
                .args(&size)
                .arg("--results")
                .arg(&store),
        ))
    };
    let cold = claimed();
    assert!(cold.contains("in-memory-run-read-disk"), "a run tagged in-memory that read from disk, not called out:\n{cold}");
    // Prewarmed: the same claim, now true, is not called out.
    run_ok(fairbench().args(["prewarm", "oltp_point_select", "--target", &target]).args(&size));
    let warm = claimed();
    assert!(!warm.contains("in-memory-run-read-disk"), "a prewarmed run called out as reading from disk:\n{warm}");
    let l = &levels(&store, "last")[0];
    assert!(figure(l, "server_read_kb_per_trx") < 1.0, "{}", l["efficiency"]);
}

/// Four busy loops beside a one-thread SQLite run take most of the host (two would leave
/// fairbench half of it, at the rule's edge): the run's own audit
/// says other processes took most of the busy CPU (a first run on a busy machine gave an
/// eighth of the quiet machine's rate, and only compare, between two runs, caught it).
#[test]
fn one_runs_audit_warns_when_other_processes_took_most_of_the_busy_cpu() {
    let dir = scratch_dir("hw-others");
    let store = dir.join("r.sqlite");
    let target = format!("sqlite:{}", dir.join("b.sqlite").display());
    run_ok(fairbench().args(["prepare", "--target", &target, "--table-size", "1000"]));
    let mut hogs: Vec<Child> = (0..4).map(|_| Command::new("sh").args(["-c", "while :; do :; done"]).spawn().expect("sh")).collect();
    let out = run_ok(fairbench().args(["run", "oltp_point_select", "--target", &target, "--table-size", "1000", "--threads", "1", "--time", "3", "--results"]).arg(&store));
    for h in &mut hogs {
        let _ = h.kill();
        let _ = h.wait();
    }
    let text = stdout(&out);
    let took = |key: &str| -> f64 {
        let at = text.find(key).unwrap_or_else(|| panic!("no {key:?} in:\n{text}"));
        text[at + key.len()..].split('%').next().unwrap().trim().parse().unwrap()
    };
    assert!(took("[WARNING] host-busy-with-others: run 1 at 1 threads: other processes took ") > 50.0, "{text}");
    // The efficiency table says the same share.
    let listed = took(", other processes ");
    assert!(listed > 50.0, "{text}");
    let l = &levels(&store, "last")[0];
    assert!((figure(l, "others_share_of_busy") * 100.0 - listed).abs() <= 0.5, "{}", l["efficiency"]);
}
