//! Environment capture: what the server and the client host looked like
//! when a run started and ended, and the IO/durability counters that move
//! while it runs.
//!
//! The snapshot connection is opened with the run's own connection settings,
//! including `--session-options`, so the variables it reads are the ones the
//! benchmark's sessions actually run with: a `SET synchronous_commit=off` in
//! the session options shows up as `off`, not as the server's global `on`.
//! On MySQL-family servers both `SHOW GLOBAL VARIABLES` and the session
//! values that differ from them are kept; audits read the session value
//! first.
//!
//! Samples are taken on a thread of their own with its own connection, so a
//! slow or blocked server never holds up the reporter that prints and
//! stores the intervals.

mod activity;
pub mod durability;
pub mod node;
pub mod oncpu;
pub mod proc;

use crate::db::engines::Listen;
use crate::db::{Conn, ConnConfig, StatementSet};
pub use crate::db::{DatasetTables, Server};
use crate::units::{human_bytes, now_rfc3339};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Everything known about a run's environment at one moment.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Snapshot {
    pub taken_at: String,
    pub server: Server,
    pub host: Host,
    /// What could not be read (missing privilege, older server...).
    #[serde(default)]
    pub errors: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Host {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    /// CPUs online.
    pub cpus: usize,
    /// CPUs this process may run on (affinity, cgroup quota).
    pub cpus_available: usize,
    pub mem_total_bytes: u64,
    /// swappiness, dirty_*, governor, sched_autogroup, transparent hugepages, IO schedulers.
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
}

/// Counter movement over one sample period.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// Counter deltas since the previous sample.
    #[serde(default)]
    pub deltas: BTreeMap<String, f64>,
    /// Gauges at the sample (dirty pages, history length).
    #[serde(default)]
    pub gauges: BTreeMap<String, f64>,
    /// /proc/diskstats deltas per device: reads, sectors read, writes, sectors written.
    #[serde(default)]
    pub disk: BTreeMap<String, [u64; 4]>,
    /// The statements that ran since the previous sample, by digest: what
    /// each one's counters moved ([`crate::db::digests`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub statements: BTreeMap<String, crate::db::digests::Digest>,
    /// At a level's end: the texts of its statements read without one
    /// (reading every text at every sample is dear on PostgreSQL).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub statement_texts: BTreeMap<String, String>,
    /// Seconds the sample took to read: what the sampling itself cost the
    /// server (an aged statements summary took 0.3 s under load), and how
    /// late the sample after it may start.
    #[serde(default)]
    pub read_s: f64,
    /// The report interval's end (seconds into the level) this sample was
    /// taken for; none for the level's end or a tick that did not come.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick: Option<f64>,
}

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

/// The client host, from /proc and /sys (Linux; empty fields elsewhere).
pub fn host() -> Host {
    let mut h =
        Host { hostname: read_trim("/proc/sys/kernel/hostname").unwrap_or_default(), kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(), cpus_available: cpus(), ..Host::default() };
    if let Some(ci) = read_trim("/proc/cpuinfo") {
        h.cpu_model = ci.lines().find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string())).unwrap_or_default();
        h.cpus = ci.lines().filter(|l| l.starts_with("processor")).count();
    }
    if h.cpus == 0 {
        h.cpus = h.cpus_available;
    }
    if let Some(mi) = read_trim("/proc/meminfo") {
        h.mem_total_bytes = mi.lines().find_map(|l| l.strip_prefix("MemTotal:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()).unwrap_or(0) * 1024;
    }
    let s = &mut h.settings;
    for (k, p) in [
        ("vm.swappiness", "/proc/sys/vm/swappiness"),
        ("vm.dirty_bytes", "/proc/sys/vm/dirty_bytes"),
        ("vm.dirty_background_bytes", "/proc/sys/vm/dirty_background_bytes"),
        ("vm.dirty_ratio", "/proc/sys/vm/dirty_ratio"),
        ("vm.dirty_background_ratio", "/proc/sys/vm/dirty_background_ratio"),
        ("kernel.sched_autogroup_enabled", "/proc/sys/kernel/sched_autogroup_enabled"),
        ("cpufreq.governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        ("transparent_hugepage.enabled", "/sys/kernel/mm/transparent_hugepage/enabled"),
        ("transparent_hugepage.defrag", "/sys/kernel/mm/transparent_hugepage/defrag"),
    ] {
        s.insert(k.to_string(), read_trim(p).unwrap_or_else(|| "unavailable".into()));
    }
    if let Ok(rd) = std::fs::read_dir("/sys/block") {
        let mut devs: Vec<String> = rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).filter(|d| !d.starts_with("loop") && !d.starts_with("ram")).collect();
        devs.sort();
        for d in devs {
            if let Some(v) = read_trim(&format!("/sys/block/{d}/queue/scheduler")) {
                s.insert(format!("io_scheduler.{d}"), v);
            }
        }
    }
    h
}

/// Whole-disk counters from /proc/diskstats: reads, sectors read, writes, sectors written.
pub fn diskstats() -> BTreeMap<String, [u64; 4]> {
    let mut m = BTreeMap::new();
    let Some(s) = read_trim("/proc/diskstats") else { return m };
    for l in s.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 10 {
            continue;
        }
        let name = f[2];
        // Whole devices only: partitions would count the same IO twice.
        if name.starts_with("loop") || name.starts_with("ram") || !std::path::Path::new(&format!("/sys/block/{name}")).exists() {
            continue;
        }
        let n = |i: usize| f[i].parse::<u64>().unwrap_or(0);
        m.insert(name.to_string(), [n(3), n(5), n(7), n(9)]);
    }
    m
}

/// Memory the OS can give its page cache now: MemAvailable (free memory
/// plus reclaimable cache, the file's own cached pages included), capped
/// by this process's cgroup limit when there is one.
pub fn mem_available() -> Option<u64> {
    let mi = read_trim("/proc/meminfo")?;
    let kib: u64 = mi.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    let limit = read_trim("/sys/fs/cgroup/memory.max").and_then(|v| v.parse::<u64>().ok());
    Some(limit.map_or(kib * 1024, |l| l.min(kib * 1024)))
}

/// CPUs this process may run on (its affinity and cgroup quota included).
pub fn cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// `threads` connections, or at most one per core when the server shares
/// this machine: more backends loading or building at once than there are
/// cores only slow each other (and the client) down.
pub fn per_core_if_local(cfg: &ConnConfig, threads: usize) -> usize {
    if is_local(cfg) {
        threads.min(cpus())
    } else {
        threads
    }
}

/// Whether the server runs on this machine (so host and disk figures describe it too).
pub fn is_local(cfg: &ConnConfig) -> bool {
    let t = &cfg.target;
    t.protocol.embedded() || t.socket.is_some() || t.hosts.iter().all(|(h, _)| h == "localhost" || h.starts_with("127.") || h == "::1")
}

/// A connection for snapshots, with the run's session settings applied,
/// its session named apart from the run's (`Target::monitoring`) so that
/// the server's view of the run's sessions leaves it out; the engine it
/// finds is the run's.
pub async fn connect(cfg: &Arc<ConnConfig>) -> Result<Conn, String> {
    watching(cfg, true).await
}

/// [`connect`], reading the server's waits with its counters or not.
async fn watching(cfg: &Arc<ConnConfig>, server_time: bool) -> Result<Conn, String> {
    let monitor = Arc::new(ConnConfig { target: cfg.target.monitoring(), server_time, ..(**cfg).clone() });
    let c = Conn::connect(monitor.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| format!("cannot connect to {}: {}", cfg.target, e.message))?;
    if let Some(e) = monitor.engine.get() {
        let _ = cfg.engine.set(*e);
    }
    if let Some(i) = monitor.identity.get() {
        let _ = cfg.identity.set(i.clone());
    }
    Ok(c)
}

/// The server part of a snapshot, as its engine reads it; `tables` are the workload's.
pub async fn server(c: &mut Conn, cfg: &ConnConfig, tables: &DatasetTables, errors: &mut Vec<String>) -> Server {
    let spec = cfg.engine();
    let mut s = Server { engine: spec.name().to_string(), local: is_local(cfg), ..Server::default() };
    spec.capture(c, cfg, tables, &mut s, errors).await;
    s.tables = spec.catalog(c, tables, errors).await;
    if let Some(sharded) = spec.sharded() {
        s.sharding = sharded.sharding(c, tables, errors).await;
    }
    if cfg.target.protocol.embedded() {
        s.os_cache_bytes = mem_available();
    }
    s
}

/// "standby, 2.5 s behind (...)" when the server is a standby; None otherwise.
pub fn standby_text(s: &Server) -> Option<String> {
    if s.status.get("in_recovery").copied() != Some(1.0) {
        return None;
    }
    let lag = s.status.get("replication_lag_s").copied().unwrap_or(0.0);
    let bytes = s.status.get("replay_lag_bytes").copied().unwrap_or(0.0);
    Some(format!("standby (in recovery): replay {lag:.1} s behind, {} received and not yet replayed", human_bytes(bytes)))
}

/// A full snapshot now: host, then the server through `c` (when connected).
pub async fn snapshot(c: Option<&mut Conn>, cfg: &ConnConfig, tables: &DatasetTables, connect_error: Option<String>) -> Snapshot {
    let mut errors = Vec::new();
    errors.extend(connect_error);
    let mut server = match c {
        Some(c) => server(c, cfg, tables, &mut errors).await,
        None => Server { engine: cfg.presumed_engine().name().into(), local: is_local(cfg), ..Server::default() },
    };
    server.origin = cfg.build.clone();
    Snapshot { taken_at: now_rfc3339(), server, host: host(), errors }
}

/// Difference of two counter sets (gauges keep the newer value).
pub fn delta(prev: &BTreeMap<String, f64>, cur: &BTreeMap<String, f64>) -> Sample {
    let mut s = Sample::default();
    for (k, v) in cur {
        if crate::db::engines::is_gauge(k) || proc::is_gauge(k) {
            s.gauges.insert(k.clone(), *v);
        } else if let Some(p) = prev.get(k) {
            s.deltas.insert(k.clone(), (v - p).max(0.0));
        } else if crate::db::waits::parse(k).is_some() {
            // A wait first seen: its counter started from nothing.
            s.deltas.insert(k.clone(), *v);
        }
    }
    s
}

fn disk_delta(prev: &BTreeMap<String, [u64; 4]>, cur: &BTreeMap<String, [u64; 4]>) -> BTreeMap<String, [u64; 4]> {
    cur.iter()
        .filter_map(|(k, v)| {
            let p = prev.get(k)?;
            let d = [v[0].saturating_sub(p[0]), v[1].saturating_sub(p[1]), v[2].saturating_sub(p[2]), v[3].saturating_sub(p[3])];
            Some((k.clone(), d))
        })
        .collect()
}

/// What the sampler thread is told by the run.
enum Cmd {
    /// Take the level's baseline, then say so: the clients wait for it.
    LevelStart(usize, mpsc::Sender<()>),
    /// The level's clients were released at this instant: its samples are
    /// timed from it, on the same clock as its report intervals.
    Go(Instant),
    LevelEnd,
    /// A report interval ended, at this many seconds of the level's clock:
    /// sample now, so that a sample covers the interval the report shows and
    /// the sampler wakes when the run's other threads do, not at a moment of
    /// its own.
    Tick(f64),
    Finish(mpsc::Sender<Snapshot>),
}

/// One stored sample, handed to the store's writer callback.
pub struct SampleRow {
    pub level_no: usize,
    pub seq: usize,
    /// Seconds since the level started.
    pub t: f64,
    /// Seconds covered by the deltas.
    pub dt: f64,
    pub sample: Sample,
    /// At a level's end with `--profile-server`: its folded stacks, or why there are none.
    pub profile: Option<std::result::Result<String, String>>,
}

/// Whether a report interval's end at `t` s of the level calls for a sample, the latest having
/// been at `sampled_at` s: once a period has passed on the intervals' clock (less a twentieth,
/// for a tick a little early), so that intervals shorter than the period are sampled every few
/// ticks, evenly.
fn tick_due(t: f64, sampled_at: f64, period: Duration) -> bool {
    t - sampled_at + period.as_secs_f64() / 20.0 >= period.as_secs_f64()
}

/// Where a sample the timer took at `at` s, standing in for a tick that had not come, stands
/// on the intervals' clock: a quarter period early, so that the next tick on time is due. Timed
/// at `at`, a first tick late on a loaded host (the timer's sample at 0.53 s) put the tick at
/// 1.0 s less than a period after it: passed over, and the samples left the ticks for seconds.
fn stood_in_at(at: f64, period: Duration) -> f64 {
    at - period.as_secs_f64() / 4.0
}

/// Samples server counters (and disk counters when the server is local) at
/// level start, every `period` during a level, and at level end, on its own
/// thread and connection.
pub struct Sampler {
    tx: mpsc::Sender<Cmd>,
    join: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    /// Starts the thread, takes the start snapshot and returns it; `write`
    /// receives every sample (it runs on the sampler's thread).
    pub fn start(
        cfg: Arc<ConnConfig>,
        tables: DatasetTables,
        period: Duration,
        server_metrics: Option<String>,
        server_time: bool,
        profile: Option<oncpu::ProfileServer>,
        mut write: Box<dyn FnMut(SampleRow) + Send>,
    ) -> (Sampler, Snapshot) {
        let (tx, rx) = mpsc::channel::<Cmd>();
        let (stx, srx) = mpsc::channel::<Snapshot>();
        let cfg2 = cfg.clone();
        let join = std::thread::Builder::new()
            .name("fb-env-sampler".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
                rt.block_on(async move {
                    let (mut conn, cerr) = match tokio::time::timeout(Duration::from_secs(10), watching(&cfg, server_time)).await {
                        Ok(Ok(c)) => (Some(c), None),
                        Ok(Err(e)) => (None, Some(e)),
                        Err(_) => (None, Some("snapshot connection timed out".to_string())),
                    };
                    let mut first = snapshot(conn.as_mut(), &cfg, &tables, cerr).await;
                    let local = first.server.local;
                    // The server's own processes, when they run here (an embedded engine is this process).
                    // Behind a pooler the process listening is the pooler's, not the server's.
                    let pooled = first.server.pooler.is_some();
                    let server_pid = if local && !cfg.target.protocol.embedded() && !pooled {
                        let (port, socket) = cfg.target.listen_address(conn.as_ref().map_or(0, |c| c.host()));
                        proc::listener(port, socket.as_deref())
                    } else {
                        None
                    };
                    first.server.process = server_pid.map(|p| format!("{}, pid {p}", proc::command(p).unwrap_or_else(|| "?".into())));
                    first.server.binary = server_pid.and_then(proc::executable);
                    // A server of several processes: each part by where it listens.
                    let parts: Vec<(String, i32)> = if server_pid.is_some() {
                        cfg.engine()
                            .parts(&first.server)
                            .into_iter()
                            .filter_map(|p| {
                                let pid = match p.at {
                                    Listen::Target => server_pid,
                                    Listen::Port(port) => proc::listener(Some(port), None),
                                    Listen::Socket(path) => proc::listener(None, Some(&path)),
                                }?;
                                Some((p.name, pid))
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    first.server.parts = parts.iter().map(|(n, p)| format!("{n}: {}, pid {p}", proc::command(*p).unwrap_or_else(|| "?".into()))).collect();
                    // The data directory (an embedded engine's: its file), when it is on this host.
                    let data = if !local {
                        None
                    } else if cfg.target.protocol.embedded() {
                        cfg.target.path.clone()
                    } else {
                        cfg.engine().data_dir(&first.server)
                    };
                    first.server.data_device = data.as_ref().and_then(|d| proc::disk_of(std::path::Path::new(d)));
                    if pooled {
                        first.errors.push("the server's process: the target is a pooler, so the server's processes behind it are not measured".into());
                    } else if local && !cfg.target.protocol.embedded() && server_pid.is_none() {
                        first.errors.push("the server's process: nothing on this host listens where the target points (its CPU per operation is not measured)".into());
                    }
                    // What perf profiles: each part's processes, or the server's, with
                    // those below them as they are when it starts (a backend per client).
                    // An embedded engine is fairbench's own process.
                    let roots: Vec<i32> = if cfg.target.protocol.embedded() {
                        vec![std::process::id() as i32]
                    } else if !parts.is_empty() {
                        parts.iter().map(|(_, p)| *p).collect()
                    } else {
                        server_pid.into_iter().collect()
                    };
                    let profiled = move || roots.iter().flat_map(|r| proc::tree(*r)).collect::<Vec<i32>>();
                    let mut profiling = oncpu::Profiling::new(profile);
                    let hardware = move || {
                        let mut m = proc::client();
                        if local {
                            m.extend(proc::host());
                        }
                        if !parts.is_empty() {
                            m.extend(proc::parts(&parts));
                        } else if let Some(p) = server_pid {
                            m.extend(proc::server(p));
                        }
                        // The database's size on disk, as Small Datum's dbgb reads it.
                        if let Some(b) = data.as_deref().and_then(|d| proc::disk_bytes(std::path::Path::new(d))) {
                            m.insert(format!("{}db_bytes", proc::SERVER), b);
                        }
                        m
                    };
                    // The start snapshot tells the engine which counter views this server has.
                    let start = first.server.clone();
                    let activity = if server_time { activity::Activity::start(&cfg) } else { None };
                    let mut prev = first.server.status.clone();
                    prev.extend(hardware());
                    let mut prev_node = BTreeMap::new();
                    if let Some(url) = &server_metrics {
                        match node::read(url).await {
                            Ok((m, disk)) => {
                                prev.extend(m);
                                prev_node = disk;
                            }
                            Err(e) => first.errors.push(format!("--server-metrics: {e}")),
                        }
                    }
                    let mut prev_disk = if local { diskstats() } else { BTreeMap::new() };
                    let mut prev_stmts = BTreeMap::new();
                    // Statement texts, read once for each statement that moved.
                    let mut texts: BTreeMap<String, String> = BTreeMap::new();
                    let mut untexted: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
                    let _ = stx.send(first);
                    let mut level: Option<(usize, Instant, usize)> = None;
                    let mut released = false;
                    let mut last = Instant::now();
                    // Once intervals tick, the timer only stands in for a tick that does not come.
                    let mut ticked = false;
                    // Where the level's latest sample stands on the intervals' clock (seconds).
                    let mut sampled_at = 0.0;
                    // The counters before the latest sample of the level, to take it again.
                    let mut redo = None;
                    loop {
                        let wait = if ticked { period * 3 / 2 } else { period };
                        // Between levels nothing is sampled: wait for the next command only.
                        // Nor between a level's baseline and its clients' release (a group's members
                        // wait there for each other).
                        let got = if level.is_some() && released { rx.recv_timeout(wait.saturating_sub(last.elapsed())) } else { rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected) };
                        let cmd = match got {
                            Ok(c) => Some(c),
                            Err(mpsc::RecvTimeoutError::Timeout) => None,
                            Err(mpsc::RecvTimeoutError::Disconnected) => break,
                        };
                        if let Some(Cmd::Tick(t)) = cmd {
                            ticked = true;
                            // Intervals shorter than the period: the first tick a period after the
                            // last sample, counted on the intervals' clock: a sample taken late (a
                            // busy machine) must not make the next tick, on time, look too soon.
                            if !tick_due(t, sampled_at, period) {
                                continue;
                            }
                            sampled_at = t;
                        }
                        if let Some(Cmd::Finish(reply)) = cmd {
                            let mut errs = Vec::new();
                            let snap = snapshot(conn.as_mut(), &cfg, &tables, None).await;
                            errs.extend(snap.errors.iter().cloned());
                            let _ = reply.send(snap);
                            if let Some(c) = conn.take() {
                                c.close().await;
                            }
                            break;
                        }
                        if let Some(Cmd::Go(at)) = cmd {
                            if let Some((_, t0, _)) = level.as_mut() {
                                *t0 = at;
                                // The period counts from the release: the first tick is a period away.
                                last = at.max(last);
                                released = true;
                            }
                            continue;
                        }
                        if level.is_none() && !matches!(cmd, Some(Cmd::LevelStart(..))) {
                            continue;
                        }
                        // A level that ends just after the sample of its last interval: that
                        // sample is taken again up to the end, instead of a sample of a few
                        // milliseconds whose rates would mean nothing.
                        if matches!(cmd, Some(Cmd::LevelEnd)) && last.elapsed() < period / 4 {
                            if let (Some(b), Some((_, _, seq))) = (redo.take(), level.as_mut()) {
                                (prev, prev_disk, prev_node, prev_stmts, last) = b;
                                *seq -= 1;
                            }
                        }
                        let before = (prev.clone(), prev_disk.clone(), prev_node.clone(), prev_stmts.clone(), last);
                        // A sample is timed when its reading starts: an aged server's statements
                        // can take tens of milliseconds to read, and a baseline timed at its end
                        // would put the level's first tick less than a period after it.
                        let now = Instant::now();
                        // A sample: counters now, deltas since the previous one.
                        let mut errs = Vec::new();
                        let mut cur = match conn.as_mut() {
                            Some(c) => cfg.engine().counters(c, &start, &mut errs).await,
                            None => BTreeMap::new(),
                        };
                        if let Some(a) = &activity {
                            cur.extend(a.totals());
                        }
                        let stmts = match conn.as_mut() {
                            Some(c) if start.statements_view.is_some() => match cfg.engine().digests() {
                                Some(d) => d.statements(c, &start, &mut errs).await,
                                None => BTreeMap::new(),
                            },
                            _ => BTreeMap::new(),
                        };
                        cur.extend(hardware());
                        let mut node_disk = None;
                        if let Some(url) = &server_metrics {
                            if let Ok((m, disk)) = node::read(url).await {
                                cur.extend(m);
                                node_disk = Some(disk);
                            }
                        }
                        let disk = if local { diskstats() } else { BTreeMap::new() };
                        let mut sample = delta(&prev, &cur);
                        sample.disk = disk_delta(&prev_disk, &disk);
                        sample.read_s = now.elapsed().as_secs_f64();
                        if let Some(Cmd::Tick(t)) = cmd {
                            sample.tick = Some(t);
                        }
                        // The baseline keeps none: what moved before the level is not the level's.
                        if level.is_some() && !matches!(cmd, Some(Cmd::LevelStart(..))) {
                            let moved = crate::db::digests::delta(&prev_stmts, &stmts);
                            untexted.extend(crate::db::digests::texts_for(&moved, &texts));
                            sample.statements = crate::db::digests::with_texts(moved, &texts);
                        }
                        // A remote server's disks, as its host's exporter counts them.
                        if let Some(nd) = node_disk {
                            if !local {
                                sample.disk = disk_delta(&prev_node, &nd);
                            }
                            prev_node = nd;
                        }
                        let dt = now.duration_since(last).as_secs_f64();
                        redo = (level.is_some() && matches!(cmd, None | Some(Cmd::Tick(_)))).then_some(before);
                        last = now;
                        prev = cur;
                        prev_disk = disk;
                        prev_stmts = stmts;
                        match cmd {
                            Some(Cmd::LevelStart(n, ready)) => {
                                // Baseline: what moved before the level (pause, prepare) is not the level's.
                                write(SampleRow { level_no: n, seq: 0, t: 0.0, dt, sample, profile: None });
                                let _ = ready.send(());
                                level = Some((n, now, 1));
                                released = false;
                                sampled_at = 0.0;
                                profiling.level_start(now);
                                profiling.tick(now, &profiled);
                            }
                            Some(Cmd::LevelEnd | Cmd::Tick(_)) | None => {
                                if let Some((n, t0, seq)) = level {
                                    if cmd.is_none() {
                                        sampled_at = stood_in_at(now.duration_since(t0).as_secs_f64(), period);
                                    }
                                    profiling.tick(now, &profiled);
                                    let profile = if matches!(cmd, Some(Cmd::LevelEnd)) { profiling.level_end() } else { None };
                                    let mut sample = sample;
                                    if matches!(cmd, Some(Cmd::LevelEnd)) && !untexted.is_empty() {
                                        // The level's texts, read once after its last sample was timed. `texts`
                                        // grows only here, so none of these ids is in it yet.
                                        let level_ids: Vec<String> = std::mem::take(&mut untexted).into_iter().collect();
                                        if let (Some(c), Some(d)) = (conn.as_mut(), cfg.engine().digests()) {
                                            // Cut once, as every digest's text is.
                                            let read = d.statement_texts(c, &start, &level_ids, &mut errs).await;
                                            texts.extend(read.into_iter().map(|(id, t)| (id, crate::db::digests::Digest::new(&t).text)));
                                        }
                                        sample.statement_texts = level_ids.iter().filter_map(|id| Some((id.clone(), texts.get(id).filter(|t| crate::db::digests::keep(t))?.clone()))).collect();
                                    }
                                    write(SampleRow { level_no: n, seq, t: now.duration_since(t0).as_secs_f64(), dt, sample, profile });
                                    level = if matches!(cmd, Some(Cmd::LevelEnd)) { None } else { Some((n, t0, seq + 1)) };
                                }
                            }
                            Some(Cmd::Finish(_) | Cmd::Go(_)) => {}
                        }
                    }
                });
            })
            .ok();
        let snap = srx.recv_timeout(Duration::from_secs(15)).unwrap_or_else(|_| {
            let mut s = Snapshot { taken_at: now_rfc3339(), host: host(), ..Snapshot::default() };
            s.server.engine = cfg2.presumed_engine().name().into();
            s.errors.push("the server snapshot did not complete in 15 s".into());
            s
        });
        (Sampler { tx, join }, snap)
    }

    /// Takes level `n`'s baseline before its clients start: read while they
    /// ran, an engine whose counters take long to read (TiDB's metrics page
    /// under load: 0.4 s) missed a thousand statements. Waits until it is
    /// taken, 5 s at most, less once `stop` says so (Ctrl-C).
    pub fn level_start(&self, n: usize, stop: fn() -> bool) {
        let (tx, rx) = mpsc::channel();
        if self.tx.send(Cmd::LevelStart(n, tx)).is_err() {
            return;
        }
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until && !stop() {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return,
            }
        }
    }

    /// The level's clients were released at `at`.
    pub fn level_go(&self, at: Instant) {
        let _ = self.tx.send(Cmd::Go(at));
    }

    pub fn level_end(&self) {
        let _ = self.tx.send(Cmd::LevelEnd);
    }

    /// A report interval ended, `t` seconds into the level.
    pub fn tick(&self, t: f64) {
        let _ = self.tx.send(Cmd::Tick(t));
    }

    /// The end snapshot; stops the thread.
    pub fn finish(mut self) -> Option<Snapshot> {
        let (tx, rx) = mpsc::channel();
        let _ = self.tx.send(Cmd::Finish(tx));
        let s = rx.recv_timeout(Duration::from_secs(5)).ok();
        if let Some(j) = self.join.take() {
            if s.is_some() {
                let _ = j.join();
            }
        }
        s
    }
}

/// "TLS (cipher)" or "plain (no TLS)"; None when not known.
pub fn tls_text(s: &Server) -> Option<String> {
    match (s.tls?, &s.tls_cipher) {
        (true, Some(c)) => Some(format!("TLS ({c})")),
        (true, None) => Some("TLS".into()),
        (false, _) => Some("plain (no TLS)".into()),
    }
}

/// This machine's name (as `hostname` prints it).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length; the name is NUL-terminated within it.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len() - 1) };
    if rc != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_and_gauges() {
        let a: BTreeMap<String, f64> = [("Innodb_buffer_pool_reads".to_string(), 10.0), ("Innodb_buffer_pool_pages_dirty".to_string(), 5.0)].into();
        let b: BTreeMap<String, f64> = [("Innodb_buffer_pool_reads".to_string(), 25.0), ("Innodb_buffer_pool_pages_dirty".to_string(), 3.0)].into();
        let s = delta(&a, &b);
        assert_eq!(s.deltas["Innodb_buffer_pool_reads"], 15.0);
        assert_eq!(s.gauges["Innodb_buffer_pool_pages_dirty"], 3.0);
    }

    // A sample read 100 ms late (a loaded host) put the next tick, on time, less than a
    // period after it by the wall clock: that tick was passed over and a level of six
    // half-second intervals got five samples.
    #[test]
    fn a_late_sample_does_not_skip_the_next_tick() {
        let half = Duration::from_millis(500);
        // Ticks every 0.5 s with a 0.5 s period: each is due, however late the last was read.
        let mut at = 0.0;
        for i in 1..=6 {
            let t = i as f64 * 0.5;
            assert!(tick_due(t, at, half), "tick at {t} after a sample at {at}");
            at = t;
        }
        // Intervals of 0.2 s: every third tick (0.6, 1.2 ...), evenly.
        let mut at = 0.0;
        let due: Vec<f64> = (1..=10)
            .map(|i| i as f64 * 0.2)
            .filter(|&t| {
                let d = tick_due(t, at, half);
                if d {
                    at = t;
                }
                d
            })
            .collect();
        assert_eq!(due.len(), 3, "{due:?}");
        assert!((due[0] - 0.6).abs() < 1e-9 && (due[1] - 1.2).abs() < 1e-9, "{due:?}");
    }

    #[test]
    fn a_first_tick_late_does_not_push_the_samples_off_the_ticks() {
        let half = Duration::from_millis(500);
        // The timer sampled at 0.53 s in the first tick's place; the tick came after it.
        let at = stood_in_at(0.53, half);
        assert!(!tick_due(0.5, at, half), "the tick the timer stood in for is sampled twice");
        assert!(tick_due(1.0, at, half), "the next tick, on time, is passed over");
    }
}
