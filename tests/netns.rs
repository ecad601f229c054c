//! Generators on separate network stacks, as on separate hosts: each
//! `fairbench run` in its own network namespace (`ip netns`), joined to the
//! host by a veth pair on a /30 of its own, against one PostgreSQL server
//! this test starts listening on the veths' host ends. The group barrier,
//! a late member, a killed member and the exact merge, across namespaces.
//! Needs root (as scripts/test.sh runs here); namespaces, links and the
//! server go away even when an assertion fails.

mod common;

use common::*;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const MEMBERS: usize = 3;

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().unwrap_or_else(|e| panic!("ip {args:?}: {e} (install iproute2)"));
    assert!(out.status.success(), "ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
}

/// Network namespaces with a veth pair each; removed on drop.
struct Namespaces {
    /// (namespace, host-end link, host address, namespace address)
    nets: Vec<(String, String, String, String)>,
}

impl Namespaces {
    fn new(n: usize) -> Namespaces {
        assert!(unsafe { libc::geteuid() } == 0, "network namespaces need root: run the tests as root (scripts/test.sh does on its Debian machines)");
        let pid = std::process::id();
        // A block of /30s per test process, so two test runs at once do not share addresses.
        let block = (pid % 60) as usize * 4;
        let mut me = Namespaces { nets: Vec::new() };
        for i in 1..=n {
            let ns = format!("fbnet-{pid}-{i}");
            let (host_if, ns_if) = (format!("fb{}h{i}", pid % 100_000), format!("fb{}n{i}", pid % 100_000));
            let octet = block + i;
            let (host_ip, ns_ip) = (format!("10.201.{octet}.1"), format!("10.201.{octet}.2"));
            // Registered before it exists: a half-made one is removed too.
            me.nets.push((ns.clone(), host_if.clone(), host_ip.clone(), ns_ip.clone()));
            ip(&["netns", "add", &ns]);
            ip(&["link", "add", &host_if, "type", "veth", "peer", "name", &ns_if]);
            ip(&["link", "set", &ns_if, "netns", &ns]);
            ip(&["addr", "add", &format!("{host_ip}/30"), "dev", &host_if]);
            ip(&["link", "set", &host_if, "up"]);
            ip(&["-n", &ns, "addr", "add", &format!("{ns_ip}/30"), "dev", &ns_if]);
            ip(&["-n", &ns, "link", "set", &ns_if, "up"]);
            ip(&["-n", &ns, "link", "set", "lo", "up"]);
        }
        me
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for (ns, host_if, _, _) in &self.nets {
            // Deleting the namespace deletes its veth end and so the pair.
            let _ = Command::new("ip").args(["netns", "del", ns]).output();
            let _ = Command::new("ip").args(["link", "del", host_if]).output();
        }
    }
}

/// A PostgreSQL sandbox of this test's own, listening on loopback and on
/// the veths' host ends; stopped on drop.
struct Server {
    dir: std::path::PathBuf,
    port: String,
}

impl Server {
    fn start(nets: &Namespaces) -> Server {
        let dir = scratch_dir("netns_pg");
        let listen: Vec<&str> = std::iter::once("127.0.0.1").chain(nets.nets.iter().map(|n| n.2.as_str())).collect();
        let mut c = fairbench();
        let out = run_ok(
            c.args(["server", "start", "postgres", "--user", "fb", "--password", "fbpass", "--database", "fbnet", "--env"])
                .arg("--dir")
                .arg(dir.join("pg"))
                .arg(format!("--set=listen_addresses={}", listen.join(","))),
        );
        let env = stdout(&out);
        let port = env.lines().find_map(|l| l.strip_prefix("export FAIRBENCH_SANDBOX_PORT=")).unwrap_or_else(|| panic!("no port in\n{}", show(&out))).trim().to_string();
        let server = Server { dir, port };
        // The sandbox admits TCP from loopback only; the namespaces' /30s too.
        let hba = server.dir.join("pg/data/pg_hba.conf");
        let rules = nets.nets.iter().map(|n| format!("host all fb {}/32 scram-sha-256\n", n.3)).collect::<String>();
        std::fs::write(&hba, format!("{rules}{}", std::fs::read_to_string(&hba).unwrap())).unwrap();
        let reload = Command::new("psql").arg(server.url("127.0.0.1")).args(["-XAtqc", "SELECT pg_reload_conf()"]).output().unwrap();
        assert!(reload.status.success(), "{}", String::from_utf8_lossy(&reload.stderr));
        server
    }

    fn url(&self, host: &str) -> String {
        format!("postgres://fb:fbpass@{host}:{}/fbnet", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = fairbench().args(["server", "stop"]).arg(self.dir.join("pg")).output();
    }
}

/// `fairbench run` inside namespace `n`, reaching the server at its host end.
fn member(nets: &Namespaces, server: &Server, n: usize, group: &str, size: usize, log: &std::path::Path, time: &str) -> Child {
    let (ns, _, host_ip, _) = &nets.nets[n];
    let mut c = Command::new("ip");
    c.args(["netns", "exec", ns, env!("CARGO_BIN_EXE_fairbench"), "run", "oltp_read_only", "--table-size=1000", "--threads=2", "--report-interval=1", "--no-prepare", "--no-save"])
        .arg(format!("--time={time}"))
        .arg(format!("--target={}", server.url(host_ip)))
        .args(["--group", group, "--group-size", &size.to_string(), "--group-timeout=30"])
        .arg(format!("--group-member=ns{}", n + 1))
        .arg("--hdr-log")
        .arg(log)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c.spawn().expect("ip netns exec fairbench starts")
}

/// The instant (database clock, ms) a member says it started at.
fn started_at(out: &Output) -> f64 {
    let err = stderr(out);
    let line = err.lines().find(|l| l.contains(" started at ")).unwrap_or_else(|| panic!("no start line\n{}", show(out)));
    line.split(" started at ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn generators_in_network_namespaces_start_together_and_merge_exactly() {
    let nets = Namespaces::new(MEMBERS);
    let server = Server::start(&nets);
    run_ok(fairbench().args(["prepare", "oltp_read_only", "--table-size=1000", "--no-save"]).arg(format!("--target={}", server.url("127.0.0.1"))));
    let dir = scratch_dir("netns_logs");

    // The namespaces have their own loopback: the server is only reached through the veth.
    let mut c = Command::new("ip");
    let out = run_fail(
        c.args(["netns", "exec", &nets.nets[0].0, env!("CARGO_BIN_EXE_fairbench"), "run", "oltp_read_only", "--time=1", "--no-save", "--no-prepare"])
            .arg(format!("--target={}", server.url("127.0.0.1"))),
    );
    assert_eq!(out.status.code(), Some(3), "loopback inside a namespace is not the host's: {}", show(&out));

    // The barrier with a late member: the last one comes 2 s after the others, who wait for it.
    let logs: Vec<_> = (0..MEMBERS).map(|i| dir.join(format!("ns{}.hlog", i + 1))).collect();
    let t0 = Instant::now();
    let mut kids = Vec::new();
    for (i, log) in logs.iter().enumerate() {
        if i == MEMBERS - 1 {
            std::thread::sleep(Duration::from_secs(2));
        }
        kids.push(member(&nets, &server, i, "nets", MEMBERS, log, "3"));
    }
    let outs: Vec<Output> = kids.into_iter().map(|k| k.wait_with_output().unwrap()).collect();
    for o in &outs {
        assert!(o.status.success(), "{}", show(o));
    }
    assert!(t0.elapsed() >= Duration::from_secs(5), "the early members waited for the late one");
    let starts: Vec<f64> = outs.iter().map(started_at).collect();
    let spread = starts.iter().cloned().fold(f64::MIN, f64::max) - starts.iter().cloned().fold(f64::MAX, f64::min);
    assert!(spread < 50.0, "members started {spread:.1} ms apart: {starts:?}");

    // The exact merge: counts add up, percentiles are one histogram's fed every value.
    let mut all = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    let mut summed = 0;
    for l in &logs {
        let (hists, events) = read_hdr_log(l);
        assert_eq!(hists.iter().map(|h| h.len()).sum::<u64>(), events, "{}", l.display());
        hists.iter().for_each(|h| all.add(h).unwrap());
        summed += events;
    }
    assert!(summed > 0);
    let merged = stdout(&run_ok(fairbench().arg("merge").args(&logs).arg("--results").arg(dir.join("store.sqlite"))));
    let total = merged.lines().find(|l| l.starts_with("Total at 6 threads: ")).unwrap_or_else(|| panic!("{merged}"));
    assert!(total.contains(&format!("events: {summed} ")), "{total} vs {summed}");
    for p in [50.0, 95.0, 99.0] {
        assert!(total.contains(&format!("p{} {:.2}", p as u32, fairbench::stats::pct_ms(&all, p))), "{total}");
    }
    for i in 1..=MEMBERS {
        assert!(merged.contains(&format!("Member ns{i} on ")), "{merged}");
    }
    assert!(!merged.contains("missing"), "{merged}");

    // A member killed mid-run: the others finish, and the merge names it.
    let logs: Vec<_> = (0..MEMBERS).map(|i| dir.join(format!("killed-ns{}.hlog", i + 1))).collect();
    let mut kids: Vec<Child> = logs.iter().enumerate().map(|(i, log)| member(&nets, &server, i, "nets-kill", MEMBERS, log, "4")).collect();
    // Killed on the run's own clock: once member 2 has logged its first interval.
    let running = eventually(Duration::from_secs(60), || std::fs::read_to_string(&logs[1]).is_ok_and(|t| t.lines().any(|l| l.contains(",HIST"))));
    assert!(running, "member 2 logged no interval");
    // `ip netns exec` execs fairbench: the child's pid is fairbench's.
    kids[1].kill().unwrap();
    let outs: Vec<Output> = kids.into_iter().map(|k| k.wait_with_output().unwrap()).collect();
    assert!(!outs[1].status.success());
    assert!(outs[0].status.success() && outs[2].status.success(), "{}\n{}", show(&outs[0]), show(&outs[2]));
    let merged = stdout(&run_ok(fairbench().arg("merge").arg(&logs[0]).arg(&logs[2]).arg("--no-save")));
    assert!(merged.contains("member(s) ns2 missing"), "{merged}");
    let survivors: u64 = [&logs[0], &logs[2]].iter().map(|l| read_hdr_log(l).1).sum();
    assert!(merged.contains(&format!("events: {survivors} ")), "{merged}");
}
