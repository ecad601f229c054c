//! Capacity under an objective (`--find-max`) and degradation inside a run, on real servers: the
//! search's capacity and curve on SQLite, MariaDB and PostgreSQL; on a MariaDB whose CPU is
//! capped by its cgroup, the search against an independent closed-loop run at saturation; a
//! slowdown planted at a known moment of a run (the cap tightened) reported at that moment, and
//! the same run without it silent.

mod common;
use common::watch::Watched;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::Duration;

/// The tests that compare throughputs over time (a capped server against itself) run alone;
/// the others may run beside each other, never beside those.
static MEASURING: RwLock<()> = RwLock::new(());

fn alone() -> std::sync::RwLockWriteGuard<'static, ()> {
    MEASURING.write().unwrap_or_else(|e| e.into_inner())
}

fn beside_others() -> std::sync::RwLockReadGuard<'static, ()> {
    MEASURING.read().unwrap_or_else(|e| e.into_inner())
}

/// The last stored run of `store`.
fn last_run(store: &Path) -> Value {
    stored_run(store, "last")
}

const SMALL: [&str; 4] = ["--tables", "1", "--table-size", "1000"];

#[test]
fn find_max_gives_the_capacity_and_its_curve_on_sqlite_mariadb_and_postgres() {
    let _one = beside_others();
    let dir = scratch_dir("capacity-engines");
    for (name, url) in [("sqlite", format!("sqlite://{}", dir.join("fm.sqlite").display())), ("mariadb", mysql_url()), ("postgres", pg_url())] {
        let store = dir.join(format!("{name}.sqlite"));
        let out = run_ok(
            fairbench()
                .args(["run", "oltp_point_select", "--target", &url])
                .args(SMALL)
                .args(["--threads", "2", "--time", "1", "--report-interval", "0", "--find-max", "p99<=20ms", "--find-max-precision", "20", "--results"])
                .arg(&store),
        );
        let text = stdout(&out);
        let run = last_run(&store);
        let c = &run["capacity"];
        assert_eq!(c["objective"], "p99<=20ms", "{name}: {c}");
        assert_eq!(c["converged"], true, "{name}: {c}\n{text}");
        let capacity = c["capacity"].as_f64().unwrap_or_else(|| panic!("{name}: no capacity in {c}"));
        let met = c["met"].as_f64().unwrap();
        assert!(capacity > 0.0 && met > 0.0, "{name}: {c}");
        if let Some(missed) = c["missed"].as_f64() {
            assert!(missed > met && missed - met <= 0.2 * met + 1e-6, "{name}: the bracket is wider than 20%: {c}");
        }
        // The curve: the probe, then open-loop steps, each a stored level at its rate.
        let steps = c["steps"].as_array().unwrap();
        assert!(steps.len() >= 3, "{name}: {c}");
        assert_eq!(steps[0]["probe"], true);
        let levels = run["levels"].as_array().unwrap();
        let rates: Vec<f64> = levels.iter().map(|l| l["summary"]["rate"].as_f64().unwrap()).collect();
        assert_eq!(rates[0], 0.0, "{name}: the probe is closed loop");
        for s in &steps[1..] {
            let r = s["rate"].as_f64().unwrap();
            assert!(rates.contains(&r), "{name}: step at {r}/s is no stored level ({rates:?})");
            let p99 = s["p99_ms"].as_f64().unwrap();
            match s["verdict"].as_str().unwrap() {
                "met" => assert!(r <= met + 1e-6, "{name}: {s}"),
                "missed" => assert!(r > met || p99 > 20.0, "{name}: {s}"),
                v => panic!("{name}: a step left {v}: {s}"),
            }
        }
        // The capacity as printed is the one stored.
        let line = text.lines().find(|l| l.trim_start().starts_with("capacity:")).unwrap_or_else(|| panic!("{name}: no capacity line:\n{text}"));
        let printed: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!((printed - capacity).abs() < 0.01, "{name}: printed {printed}, stored {capacity}");
        // A search's steps above the capacity are no unsustained --rate to warn of.
        assert!(!run["findings"].to_string().contains("rate-not-sustained"), "{name}: {}", run["findings"]);
        if name == "sqlite" {
            // A soak runs at 70% of the capacity stored for this workload and target.
            let out = run_ok(fairbench().args(["run", "oltp_point_select", "--target", &url]).args(SMALL).args(["--threads", "2", "--soak", "3s", "--results"]).arg(&store));
            let soak = last_run(&store);
            let rate = soak["levels"][0]["summary"]["rate"].as_f64().unwrap();
            assert!((rate - 0.7 * capacity).abs() < 1e-6 * capacity, "soak at {rate}/s, capacity {capacity}/s");
            assert!((soak["levels"][0]["elapsed_s"].as_f64().unwrap() - 3.0).abs() < 0.5, "{}", soak["levels"][0]);
            assert!(stdout(&out).contains(&format!("Soak: 3 s at {rate:.2}/s, 70% of the capacity {capacity:.2}/s that run {}", run["id"])), "{}", stdout(&out));
        }
    }
}

#[test]
fn find_max_refuses_what_it_cannot_search_in_one_line() {
    for (args, says) in [
        (vec!["--find-max", "p99<=20ms", "--rate", "100"], "--rate"),
        (vec!["--find-max", "p99<=20ms", "--threads", "1,2"], "list of --threads"),
        (vec!["--find-max-threads"], "--find-max"),
        (vec!["--find-max", "p99"], "no bound"),
        (vec!["--find-max", "p99<=20ms", "--find-max-precision", "0"], "percent"),
        (vec!["--soak", "4x"], "no duration"),
        (vec!["--soak", "1h", "--find-max", "p99<=20ms"], "--soak"),
    ] {
        let out = run_fail(fairbench().args(["run", "--no-save", "--target", "sqlite:///nonexistent/x.sqlite"]).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        assert_one_line_error(&out, &[says]);
    }
}

/// A MariaDB sandbox of its own, in a CPU cgroup the test caps; stopped and removed when dropped.
struct Capped {
    dir: PathBuf,
    cgroup: CpuCgroup,
    url: String,
}

impl Capped {
    fn start(name: &str, port: u16) -> Capped {
        let dir = scratch_dir(name).join("mariadb");
        let out =
            run_ok(fairbench().args(["server", "start", "mariadb", "--user", "fb", "--password", "fbpass", "--database", "fbcap", "--port", &port.to_string(), "--ram", "1G", "--dir"]).arg(&dir));
        let url = stdout(&out).lines().map(str::trim).find(|l| l.starts_with("mysql://")).map(str::to_string).unwrap_or_else(|| format!("mysql://fb:fbpass@127.0.0.1:{port}/fbcap"));
        let pid = listener_pid(port).unwrap_or_else(|| panic!("nothing listens on {port} after `server start`"));
        let cgroup = CpuCgroup::new(name, pid);
        Capped { dir, cgroup, url }
    }
}

impl Drop for Capped {
    fn drop(&mut self) {
        let _ = fairbench().args(["server", "stop"]).arg(&self.dir).output();
        self.cgroup.remove();
    }
}

/// The pid of the process listening on TCP `port`, from `ss`.
fn listener_pid(port: u16) -> Option<u32> {
    let out = std::process::Command::new("ss").args(["-ltnpH", &format!("sport = :{port}")]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find("pid=")? + 4;
    text[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// A CPU cgroup holding one process (every thread of it): cgroup v2's cpu.max, or v1's CFS
/// quota where the cpu controller is mounted on its own (older hosts and containers).
struct CpuCgroup {
    path: PathBuf,
    v2: bool,
}

impl CpuCgroup {
    fn new(name: &str, pid: u32) -> CpuCgroup {
        let v2 = Path::new("/sys/fs/cgroup/cgroup.controllers").exists();
        let root = if v2 { PathBuf::from("/sys/fs/cgroup") } else { PathBuf::from("/sys/fs/cgroup/cpu") };
        assert!(root.exists(), "no CPU cgroup controller mounted (neither /sys/fs/cgroup/cgroup.controllers nor /sys/fs/cgroup/cpu): the capped-server tests need one, as root");
        if v2 {
            // The cpu controller handed down to the children of the root.
            let _ = std::fs::write(root.join("cgroup.subtree_control"), "+cpu");
        }
        let path = root.join(format!("fairbench-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("cannot create the cgroup {}: {e} (the test needs root)", path.display()));
        std::fs::write(path.join("cgroup.procs"), pid.to_string()).unwrap_or_else(|e| panic!("cannot move pid {pid} into {}: {e}", path.display()));
        CpuCgroup { path, v2 }
    }

    /// At most `cores` CPUs, in the kernel's default 100 ms periods (in 10 ms ones a capped
    /// server's open-loop throughput fell well below its closed-loop one).
    fn cap(&self, cores: f64) {
        let period = 100_000u64;
        let quota = (cores * period as f64) as u64;
        if self.v2 {
            std::fs::write(self.path.join("cpu.max"), format!("{quota} {period}")).unwrap();
        } else {
            std::fs::write(self.path.join("cpu.cfs_period_us"), period.to_string()).unwrap();
            std::fs::write(self.path.join("cpu.cfs_quota_us"), quota.to_string()).unwrap();
        }
    }

    fn remove(&self) {
        // Its processes go back to the root first; a cgroup with none can be removed.
        let root = self.path.parent().unwrap().join("cgroup.procs");
        if let Ok(procs) = std::fs::read_to_string(self.path.join("cgroup.procs")) {
            for p in procs.lines() {
                let _ = std::fs::write(&root, p);
            }
        }
        let _ = std::fs::remove_dir(&self.path);
    }
}

#[test]
fn find_max_on_a_cpu_capped_server_finds_what_the_cap_allows() {
    let _one = alone();
    let s = Capped::start("capacity-capped", 13461);
    s.cgroup.cap(0.3);
    let dir = scratch_dir("capacity-capped-runs");
    let store = dir.join("r.sqlite");
    let load = |extra: &[&str]| {
        run_ok(fairbench().args(["run", "oltp_point_select", "--target", &s.url]).args(SMALL).args(["--threads", "8", "--report-interval", "0", "--results"]).arg(&store).args(extra));
    };
    load(&["--time", "2"]);
    // What the cap allows, measured apart: closed loop at saturation, twice before the search and
    // twice after. Identical closed-loop runs of a capped server on a 2-core VM were seen 12%
    // apart within a minute (7,437 to 9,348/s), so the search is held to the range they span,
    // not to one of them. Open loop sustains less than closed loop here, and that is the
    // server's doing: under arrivals at 6,000/s it spent 52 µs of CPU per event against 33-45 µs
    // closed loop, and sysbench's own --rate=6000 fell behind on it too. Capacities came to
    // 0.85-1.02 of the slowest closed-loop run; held to 75% of it.
    let closed = |n: usize| -> Vec<f64> {
        (0..n)
            .map(|_| {
                load(&["--time", "5"]);
                last_run(&store)["levels"][0]["tps"].as_f64().unwrap()
            })
            .collect()
    };
    let mut saturated = closed(2);
    load(&["--time", "3", "--find-max", "p99<=2s", "--find-max-precision", "4"]);
    let run = last_run(&store);
    let c = &run["capacity"];
    saturated.extend(closed(2));
    let (low, high) = (saturated.iter().copied().fold(f64::INFINITY, f64::min), saturated.iter().copied().fold(0.0, f64::max));
    let capacity = c["capacity"].as_f64().unwrap_or_else(|| panic!("no capacity: {c}"));
    assert!(
        capacity >= 0.75 * low && capacity <= 1.1 * high,
        "find-max found {capacity:.1}/s; closed loop at saturation did {saturated:.1?}/s: below 75% of the slowest or above 110% of the fastest\n{c}"
    );
    // The search went past the probe's first guess: it bracketed what open loop sustains.
    assert!(c["steps"].as_array().unwrap().len() >= 4, "{c}");
}

/// The change's time in a finding's message ("run 3 at 4 threads: throughput fell 82% at 12 s
/// (...)"): the number after the ` at ` that follows the colon.
fn change_time(message: &str) -> f64 {
    let what = message.split_once(": ").map_or(message, |(_, w)| w);
    let at = what.find(" at ").unwrap_or_else(|| panic!("no time in {message}")) + 4;
    let rest = &what[at..];
    let num: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    assert!(rest[num.len()..].starts_with(" s"), "{message}");
    num.parse().unwrap()
}

/// A stored run's events per second in each measured interval (warmup left out) of its first level.
fn per_interval_tps(run: &Value) -> Vec<f64> {
    let measured = run["levels"][0]["intervals"].as_array().unwrap().iter().filter(|i| i["warmup"] != true);
    measured.map(|i| i["events"].as_f64().unwrap() / i["secs"].as_f64().unwrap()).collect()
}

fn moving_means(xs: &[f64], n: usize) -> Vec<f64> {
    xs.windows(n).map(|w| w.iter().sum::<f64>() / n as f64).collect()
}

#[test]
fn a_slowdown_planted_mid_run_is_reported_where_it_began_and_a_steady_run_is_silent() {
    let _one = alone();
    let s = Capped::start("capacity-slowdown", 13462);
    let dir = scratch_dir("capacity-slowdown-runs");
    let store = dir.join("r.sqlite");
    let args = |time: &str| {
        let mut c = fairbench();
        c.args(["run", "oltp_point_select", "--target", &s.url]).args(SMALL).args(["--threads", "4", "--time", time, "--report-interval", "1", "--output", "json", "--results"]).arg(&store);
        c
    };
    // Steady: half a core all along (the server's CPU, not the host's drift, sets the pace),
    // from a run before the measured ones: a server just capped ran its first 3 s a third
    // faster than afterwards.
    // A run is steady when no 3-interval mean of its measured throughput is 25% under another,
    // as the test measures it: the host drifts, so a run that was not steady is made again,
    // twice at most, and only a steady one is held to silence. Each run of the capped server
    // began fast (its first 4 s 30% above the rest: "throughput fell 32% at 4 s", and all three
    // runs of one suite spanned 30%), so the steady runs warm up 4 s first; the audit leaves
    // warmup intervals out.
    s.cgroup.cap(0.5);
    run_ok(&mut args("4"));
    let mut seen = Vec::new();
    let steady = loop {
        let out = run_ok(args("16").args(["--warmup-time", "4"]));
        let run = last_run(&store);
        let means = moving_means(&per_interval_tps(&run), 3);
        let (low, high) = (means.iter().copied().fold(f64::INFINITY, f64::min), means.iter().copied().fold(0.0, f64::max));
        if low >= 0.75 * high {
            break (run, out);
        }
        seen.push(format!("{low:.0}-{high:.0}/s"));
        assert!(seen.len() < 3, "no steady run in 3: 3-interval means spanned {seen:?}");
    };
    let found: Vec<&Value> = steady.0["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "degraded").collect();
    assert!(found.is_empty(), "a steady run reported a change: {found:?}\n{}", stdout(&steady.1));
    // Planted: the cap tightened to a tenth of a core once the run is 8 s in.
    let mut run = Watched::spawn(&mut args("16"));
    let clock = run.wait_for_run_time(Duration::from_secs(60), 8.0);
    s.cgroup.cap(0.1);
    let planted = clock.now();
    let out = run.finish(Duration::from_secs(60));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let slowed = last_run(&store);
    let found: Vec<&Value> = slowed["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "degraded").collect();
    assert!(!found.is_empty(), "the slowdown planted at {planted:.1} s was not reported: {}", slowed["findings"]);
    let tps: Vec<String> = per_interval_tps(&slowed).iter().map(|t| format!("{t:.0}")).collect();
    // The change planted is the largest; drift before it may be reported too.
    let first = found
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .find(|m| (change_time(m) - planted).abs() <= 2.0)
        .unwrap_or_else(|| panic!("no change within 2 s of {planted:.1} s: {found:?}\nper interval: {}", tps.join(" ")));
    assert!(first.contains("throughput fell"), "{first}");
    let at = change_time(first);
    assert!((at - planted).abs() <= 2.0, "reported at {at} s, planted at {planted:.1} s: {first}");
    let fell: f64 = first.split("fell ").nth(1).unwrap().split('%').next().unwrap().parse().unwrap();
    assert!(fell >= 50.0, "a cap from 0.5 to 0.1 cores took only {fell}% off: {first}");
}

/// A process's resident memory in bytes (VmRSS).
fn rss_bytes(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap().trim().trim_end_matches("kB").trim().parse().unwrap();
    kb * 1024.0
}

/// The least resident memory of `pid` read at each interval line the run prints from `from` s to
/// `to` s of its clock: allocations come and go between intervals, what stays is the floor.
fn rss_floor(run: &mut Watched, from: f64, to: f64) -> f64 {
    let pid = run.pid();
    run.wait_for_run_time(Duration::from_secs(60), from);
    let mut floor = f64::INFINITY;
    run.wait_for(Duration::from_secs(60), |l| {
        floor = floor.min(rss_bytes(pid));
        common::watch::interval_time(l) >= to
    });
    floor
}

/// 5 ms intervals for 58 s: 11,600 intervals, more than a 3-hour run of one-second ones, each
/// kept after it is printed. Not stored (--no-save): the store's page cache is not the client's.
/// The first 20 s settle the allocator's own pools (a megabyte or so). Memory that grows with
/// the intervals grows in each half of the rest: kept whole, the 6,000 intervals from 22 s to
/// 52 s took 3.4 MB, 1.7 MB a half. A loaded machine can raise the floor once, in one half, and
/// keep it (a reporter behind its workers: 2.8 MB, glibc keeping the pages): that is no growth.
/// Beside the other tests the debug build's reporter fell behind its workers and their windows
/// queued (12 MB in 30 s, nothing leaked): each worker now has at most a few.
#[test]
fn the_clients_memory_stays_flat_over_thousands_of_intervals() {
    let _one = alone();
    let mut cmd = fairbench();
    cmd.args(["run", "oltp_point_select", "--no-save", "--target", &mysql_url()]).args(SMALL).args(["--threads", "2", "--time", "58", "--report-interval", "0.005", "--output", "json"]);
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &mysql_url()]).args(SMALL));
    let mut run = Watched::spawn(&mut cmd);
    let floors = [rss_floor(&mut run, 20.0, 24.0), rss_floor(&mut run, 36.0, 40.0), rss_floor(&mut run, 52.0, 56.0)];
    let out = run.finish(Duration::from_secs(60));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let intervals = String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.contains("\"type\":\"interval\"")).count();
    assert!(intervals >= 8000, "only {intervals} intervals: the test did not make the run long");
    let mb: Vec<String> = floors.iter().map(|f| format!("{:.2}", f / 1e6)).collect();
    let halves = [floors[1] - floors[0], floors[2] - floors[1]];
    assert!(halves.iter().any(|&g| g < 0.9e6), "the client's memory grew in both halves from 22 s to 54 s: {mb:?} MB");
    assert!(floors[2] - floors[0] < 4e6, "the client's memory grew {:.2} MB from 22 s to 54 s: {mb:?} MB", (floors[2] - floors[0]) / 1e6);
}

#[test]
fn each_interval_keeps_its_slowest_event_and_its_longest_stall() {
    // Its lock would stall the others' clients on the same table.
    let _one = alone();
    let dir = scratch_dir("capacity-stall");
    let store = dir.join("r.sqlite");
    let mut cmd = fairbench();
    cmd.args(["run", "oltp_point_select", "--target", &mysql_url()]).args(SMALL).args(["--threads", "2", "--time", "8", "--report-interval", "1", "--output", "json", "--results"]).arg(&store);
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &mysql_url()]).args(SMALL));
    let mut run = Watched::spawn(&mut cmd);
    // Every client blocks on the table from 3 s of the run's clock until the server has kept
    // both waiting 2 s (its processlist's own clock: no interval is reported meanwhile, as the
    // clients' threads wait inside their calls).
    run.wait_for_run_time(Duration::from_secs(60), 3.0);
    let from = std::time::Instant::now();
    let lock = mysql_holding(&parse_url(&mysql_url()).database, "LOCK TABLES sbtest1 WRITE;");
    let waiting = || mysql_admin("SELECT count(*) FROM information_schema.processlist WHERE state = 'Waiting for table metadata lock' AND time >= 2").trim() == "2";
    assert!(eventually(Duration::from_secs(30), waiting), "the clients never waited on the lock");
    drop(lock);
    let held = from.elapsed().as_secs_f64() * 1e3;
    let out = run.finish(Duration::from_secs(60));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let level = &last_run(&store)["levels"][0];
    let ivs = level["intervals"].as_array().unwrap();
    let f = |i: &Value, k: &str| i[k].as_f64().unwrap_or(0.0);
    let stalled: Vec<&Value> = ivs.iter().filter(|i| f(i, "stall_ms") > 0.0).collect();
    // The stall: as long as the lock (within the moments it took to take and to see), on every
    // interval it overlapped and on no other.
    let longest = stalled.iter().map(|i| f(i, "stall_ms")).fold(0.0, f64::max);
    assert!(longest >= held - 600.0 && longest <= held + 600.0, "longest stall {longest} ms, the table was locked {held:.0} ms: {ivs:?}");
    let over: Vec<f64> = stalled.iter().filter(|i| f(i, "stall_ms") == longest).map(|i| f(i, "t")).collect();
    assert!(over.len() >= 2 && over.len() <= 4, "a {longest} ms stall over intervals ending at {over:?}");
    assert!(over.iter().all(|t| *t >= 3.0 && *t <= 3.0 + held / 1e3 + 3.0), "{over:?}: not where the lock was ({held:.0} ms from 3 s on)");
    assert!(ivs.iter().filter(|i| f(i, "t") <= 2.0).all(|i| f(i, "stall_ms") < 100.0), "{ivs:?}");
    // The events the lock held back end in the interval it was released in: its slowest is the stall.
    let slowest = ivs.iter().map(|i| f(i, "max_ms")).fold(0.0, f64::max);
    assert!((slowest - longest).abs() <= 300.0, "slowest event {slowest} ms, stall {longest} ms");
}

/// Blocks allocated under `path` (a file, or a directory's whole tree), as `du` counts them.
fn allocated(path: &Path) -> f64 {
    use std::os::unix::fs::MetadataExt;
    // A file the server removes meanwhile (a temporary one) takes nothing.
    let Ok(m) = std::fs::symlink_metadata(path) else { return 0.0 };
    let own = (m.blocks() * 512) as f64;
    if !m.is_dir() {
        return own;
    }
    own + std::fs::read_dir(path).into_iter().flatten().filter_map(|e| e.ok()).map(|e| allocated(&e.path())).sum::<f64>()
}

/// The proportional set size of `pid` and every process below it, bytes.
fn pss_tree(pid: u32) -> f64 {
    let own: f64 = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|r| r.lines().find_map(|l| l.strip_prefix("Pss:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok()))
        .unwrap_or(0.0)
        * 1024.0;
    let kids: f64 = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("children")).ok())
        .flat_map(|c| c.split_whitespace().filter_map(|p| p.parse::<u32>().ok()).collect::<Vec<_>>())
        .map(pss_tree)
        .sum();
    own + kids
}

#[test]
fn each_level_says_the_database_size_and_the_memory_it_ended_with() {
    let _one = beside_others();
    let dir = scratch_dir("capacity-sizes");
    let db = dir.join("sizes.sqlite");
    let target = format!("sqlite://{}", db.display());
    let efficiency = |out: &std::process::Output| {
        let text = stdout(out);
        let line = text.lines().find(|l| l.contains("\"type\":\"efficiency\"")).unwrap_or_else(|| panic!("no efficiency object:\n{text}"));
        serde_json::from_str::<Value>(line).unwrap()["levels"][0].clone()
    };
    let f = |e: &Value, k: &str| e[k].as_f64().unwrap_or_else(|| panic!("no {k} in {e}"));
    // SQLite's file grows with the inserts: the size and growth are its own.
    let before = {
        run_ok(fairbench().args(["prepare", "oltp_insert", "--target", &target]).args(SMALL));
        allocated(&db)
    };
    let out = run_ok(fairbench().args(["run", "oltp_insert", "--target", &target]).args(SMALL).args(["--threads", "1", "--time", "3", "--output", "json", "--results"]).arg(dir.join("r.sqlite")));
    let e = efficiency(&out);
    let wal = |s: &str| allocated(Path::new(&format!("{}{s}", db.display())));
    let side = |s: &str| if Path::new(&format!("{}{s}", db.display())).exists() { wal(s) } else { 0.0 };
    let after = allocated(&db) + side("-wal") + side("-shm");
    let (size, grew) = (f(&e, "db_bytes"), f(&e, "db_growth_bytes"));
    assert!(grew > 0.0 && size > before, "{e}");
    // Read at the level's last sample, its write-ahead log included: closing folds the log
    // into the file (at most SQLite's 1,000-page autocheckpoint, 4 MiB), and the file stays.
    assert!(size >= after && size <= after + 4.5 * 1048576.0, "stored {size} bytes, the file takes {after} after the run");
    // The growth is from the file as prepared.
    assert!(((size - grew) - before).abs() <= 0.1 * before + 65536.0, "stored {size} - {grew}, prepared {before}");
    let mem = f(&e, "client_memory_bytes");
    assert!((5e6..2e9).contains(&mem), "fairbench's memory {mem}");
    // A MariaDB on this host: its data directory and its processes' memory.
    let out =
        run_ok(fairbench().args(["run", "oltp_point_select", "--target", &mysql_url()]).args(SMALL).args(["--threads", "1", "--time", "2", "--output", "json", "--results"]).arg(dir.join("r.sqlite")));
    let e = efficiency(&out);
    let datadir = PathBuf::from(mysql_admin("SELECT @@datadir").trim());
    let on_disk = allocated(&datadir);
    assert!((f(&e, "db_bytes") - on_disk).abs() <= 0.05 * on_disk, "stored {}, {} takes {on_disk}", f(&e, "db_bytes"), datadir.display());
    let pid = listener_pid(mysql_port()).expect("the MariaDB test server's pid");
    let pss = pss_tree(pid);
    assert!((f(&e, "server_memory_bytes") - pss).abs() <= 0.2 * pss, "stored {}, mariadbd holds {pss}", f(&e, "server_memory_bytes"));
}

#[test]
fn a_soak_without_a_rate_or_a_stored_capacity_says_what_to_give() {
    let dir = scratch_dir("capacity-soak-none");
    let target = format!("sqlite://{}", dir.join("s.sqlite").display());
    let out = run_fail(fairbench().args(["run", "oltp_point_select", "--target", &target]).args(SMALL).args(["--soak", "2s", "--results"]).arg(dir.join("r.sqlite")));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["--soak needs a rate", "--rate N", "--find-max"]);
}

#[test]
fn find_max_by_clients_doubles_while_met_then_bisects() {
    let _one = beside_others();
    let dir = scratch_dir("capacity-threads");
    let store = dir.join("r.sqlite");
    // Little's law: the mean latency is the clients over the throughput, so past the server's
    // saturation each doubling doubles it; a 1 ms mean is met by few clients and missed by many.
    run_ok(
        fairbench()
            .args(["run", "oltp_point_select", "--target", &mysql_url()])
            .args(SMALL)
            .args(["--threads", "1", "--time", "1", "--report-interval", "0", "--find-max", "mean<=1ms", "--find-max-threads", "--find-max-precision", "25", "--results"])
            .arg(&store),
    );
    let run = last_run(&store);
    let c = &run["capacity"];
    assert_eq!(c["by"], "threads", "{c}");
    let steps = c["steps"].as_array().unwrap();
    let counts: Vec<u64> = steps.iter().map(|s| s["threads"].as_u64().unwrap()).collect();
    assert!(steps.iter().all(|s| s["rate"] == 0.0 && s["probe"] == false), "closed loop, no probe: {c}");
    // Doubling from 1 while met, then between the last met and the first missed.
    let first_missed = steps.iter().position(|s| s["verdict"] == "missed").unwrap_or_else(|| panic!("nothing missed: {c}"));
    for (i, n) in counts[..=first_missed].iter().enumerate() {
        assert_eq!(*n, 1 << i, "{counts:?}");
    }
    let (met, missed) = (c["met"].as_f64().unwrap(), c["missed"].as_f64().unwrap());
    assert!(met < missed && missed - met <= (0.25 * met).max(1.0), "{c}");
    for s in steps {
        let mean = s["mean_ms"].as_f64().unwrap();
        let n = s["threads"].as_f64().unwrap();
        match s["verdict"].as_str().unwrap() {
            "met" => assert!(n <= met, "{s}"),
            "missed" => assert!(n >= missed && mean > 0.8, "{s}"),
            v => panic!("{v}: {s}"),
        }
    }
    // The capacity is what the best client count completed, stored as that level.
    let best = steps.iter().find(|s| s["threads"].as_f64() == Some(met) && s["verdict"] == "met").unwrap();
    assert_eq!(c["capacity"], best["achieved"]);
    assert_eq!(c["threads"].as_f64(), Some(met));
    let levels: Vec<u64> = run["levels"].as_array().unwrap().iter().map(|l| l["threads"].as_u64().unwrap()).collect();
    // Every run of every step is a stored level (a step whose interval held the bound ran again).
    let runs: Vec<u64> = steps.iter().flat_map(|s| std::iter::repeat_n(s["threads"].as_u64().unwrap(), s["tries"].as_u64().unwrap() as usize)).collect();
    assert_eq!(levels, runs, "every run of a step is a stored level");
}

#[test]
fn ctrl_c_in_a_search_keeps_its_steps_and_names_the_bracket_reached() {
    let _one = beside_others();
    let dir = scratch_dir("capacity-interrupt");
    let store = dir.join("r.sqlite");
    let target = format!("sqlite://{}", dir.join("i.sqlite").display());
    run_ok(fairbench().args(["prepare", "oltp_point_select", "--target", &target]).args(SMALL));
    let mut cmd = fairbench();
    cmd.args(["run", "oltp_point_select", "--target", &target]).args(SMALL).args(["--threads", "1", "--time", "5", "--report-interval", "1", "--find-max", "p99<=50ms", "--results"]).arg(&store);
    let (code, took, out) = interrupt_after_lines(&mut cmd, &[&|l: &str| l.starts_with("find-max step 3:"), &|l: &str| l.starts_with("[ 1s ]")]);
    assert_eq!(code, Some(130), "{out}");
    assert!(took < Duration::from_secs(2), "stopped {took:?} after Ctrl-C");
    assert!(out.contains("search:                            stopped by Ctrl-C: the bracket reached is kept"), "{out}");
    let run = last_run(&store);
    assert_eq!(run["status"], "interrupted");
    let c = &run["capacity"];
    let steps = c["steps"].as_array().unwrap();
    // The probe and the first step completed; the third was cut.
    assert_eq!(steps.len(), 2, "{c}");
    assert!(c["ended"].as_str().unwrap().starts_with("stopped by Ctrl-C"), "{c}");
    let bracket = out.lines().find(|l| l.trim_start().starts_with("bracket:")).unwrap();
    match steps[1]["verdict"].as_str().unwrap() {
        "met" => assert!(bracket.contains("at least") && c["met"] == steps[1]["rate"], "{bracket} {c}"),
        _ => assert!(bracket.contains("below") && c["missed"] == steps[1]["rate"], "{bracket} {c}"),
    }
}

#[test]
fn compare_gives_the_ratio_of_two_capacities() {
    let _one = beside_others();
    let dir = scratch_dir("capacity-compare");
    let store = dir.join("r.sqlite");
    let target = format!("sqlite://{}", dir.join("c.sqlite").display());
    let mut ids = Vec::new();
    let mut caps = Vec::new();
    for threads in ["1", "2"] {
        run_ok(
            fairbench()
                .args(["run", "oltp_point_select", "--target", &target])
                .args(SMALL)
                .args(["--threads", threads, "--time", "1", "--report-interval", "0", "--find-max", "p99<=50ms", "--find-max-precision", "25", "--results"])
                .arg(&store),
        );
        let run = last_run(&store);
        ids.push(run["id"].to_string());
        caps.push(run["capacity"]["capacity"].as_f64().unwrap());
    }
    let text = stdout(&run_ok(fairbench().args(["compare", &ids[0], &ids[1], "--results"]).arg(&store)));
    let ratio = caps[1] / caps[0];
    let line = text.lines().find(|l| l.trim_start().starts_with(&format!("{}:", ids[1])) && l.contains("under p99<=50ms")).unwrap_or_else(|| panic!("no capacity line for run {}:\n{text}", ids[1]));
    let shown: f64 = line.rsplit('x').next().unwrap().trim().parse().unwrap_or_else(|_| panic!("no ratio in {line}"));
    assert!((shown - ratio).abs() < 0.0005, "{line}: the capacities {caps:?} make {ratio:.4}");
    let json: Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["compare", &ids[0], &ids[1], "--json", "--results"]).arg(&store)))).unwrap();
    let stored = json["capacity"][1]["ratio"].as_f64().unwrap();
    assert!((stored - ratio).abs() < 1e-9, "{}", json["capacity"]);
}
