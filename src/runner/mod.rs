//! The runner: N clients, each with its own connection, RNG and state.
//!
//! Clients are spread over worker threads, each a single-threaded tokio
//! runtime (one per client for SQLite, whose calls block). A worker's
//! clients record into the worker's window; a ticker task on the same
//! thread swaps that window at every report boundary and sends it to the
//! reporter (this thread), which merges all workers' windows. So the hot
//! path touches no lock, channel or shared atomic per query.
//!
//! Open loop (`--rate`): each worker draws Poisson arrivals for its share of
//! the rate into a bounded local queue; latency is measured from each
//! event's intended start (coordinated omission corrected) and also from
//! its actual start.
//!
//! Here: the level loop (start, barrier, report windows, the end).
//! `worker.rs` a worker thread and its ticker, `client.rs` one client and
//! its reconnects, `arrivals.rs` the open loop's arrivals (woken by `crate::timer`), `group.rs` many
//! generators run as one.

mod arrivals;
mod client;
pub mod drive;
mod folded;
pub mod group;
pub mod hint;
pub mod idle;
pub mod record;
pub mod sampling;
pub mod search;
pub mod shard;
mod txlog;
pub mod verify;
mod worker;

use worker::worker;

use crate::db::connect_error;
use crate::db::{ConnConfig, DbError, ErrKind, Protocol};
use crate::error::{Error, Result};
use crate::model::{Checkpoint, Interval, LevelOptions, LevelResult, RunControl, Sink, Stop, INTERRUPTED};
use crate::stats::gaps::GapMerger;
use crate::stats::{process_cpu, ClientTotals, Window};
use crate::workload::Workload;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The levels a sweep runs, in order, each of `threads` `repeat` times:
/// interleaved (1,2,4,1,2,4) so that the machine's drift over the series
/// falls on every level alike, or grouped (1,1,2,2,4,4).
pub fn repetition_order(threads: &[usize], repeat: usize, interleaved: bool) -> Vec<usize> {
    if interleaved {
        (0..repeat).flat_map(|_| threads.iter().copied()).collect()
    } else {
        threads.iter().flat_map(|&t| std::iter::repeat_n(t, repeat)).collect()
    }
}

enum Msg {
    Ready,
    ConnectFailed(DbError),
    /// A worker's window up to boundary `seq`, with its clients' totals then.
    Window {
        seq: usize,
        wi: usize,
        w: Box<Window>,
        clients: Vec<ClientTotals>,
    },
    Done {
        wi: usize,
        w: Box<Window>,
        clients: Vec<ClientTotals>,
        /// When its clients' last events ended: the level's measured time
        /// ends at the last of these, not when this thread got round to it.
        ended: Instant,
    },
}

/// One load level as the driver gets it back.
#[derive(Debug)]
pub struct Level {
    pub result: LevelResult,
    /// With `--report-checkpoints`, once one was reported: the counters
    /// since the last checkpoint, which sysbench's final report covers.
    pub tail: Option<Checkpoint>,
    /// Set when `--forced-shutdown` ended the level: the clients still
    /// inside an event then.
    pub forced: Option<usize>,
}

/// The checkpoints still to report and the counters since the last one.
struct Checkpoints {
    due: VecDeque<u32>,
    since: Window,
    /// Each client's totals at the last checkpoint.
    base: Vec<ClientTotals>,
    last: Option<(u32, f64)>,
}

impl Checkpoints {
    fn new(list: &[u32], threads: usize) -> Checkpoints {
        let mut due: Vec<u32> = list.to_vec();
        due.sort_unstable();
        due.dedup();
        Checkpoints { due: due.into(), since: Window::default(), base: vec![ClientTotals::default(); threads], last: None }
    }

    fn active(&self) -> bool {
        !self.due.is_empty() || self.last.is_some()
    }

    /// Counters since `base`, client by client.
    fn minus_base(&self, now: &[ClientTotals]) -> Vec<ClientTotals> {
        now.iter()
            .enumerate()
            .map(|(i, c)| {
                let b = self.base.get(i).copied().unwrap_or_default();
                ClientTotals { events: c.events.saturating_sub(b.events), busy_s: (c.busy_s - b.busy_s).max(0.0) }
            })
            .collect()
    }

    /// A measured boundary at `t` s from the measured start: the
    /// checkpoint(s) it reached, reported as one (as sysbench skips those
    /// whose time passed while it was busy).
    fn reached(&mut self, t: f64, threads: usize, clients: &[ClientTotals]) -> Option<Checkpoint> {
        let mut at = None;
        while let Some(&c) = self.due.front() {
            if f64::from(c) > t + 1e-6 {
                break;
            }
            at = Some(c);
            self.due.pop_front();
        }
        let at = at?;
        let from = self.last.map(|l| l.1).unwrap_or(0.0);
        let cp = Checkpoint { at_s: at, t, secs: t - from, threads, w: std::mem::take(&mut self.since), clients: self.minus_base(clients) };
        self.base = clients.to_vec();
        self.last = Some((at, t));
        Some(cp)
    }

    /// What came after the last checkpoint, if one was reported.
    fn tail(mut self, elapsed: f64, threads: usize, clients: &[ClientTotals]) -> Option<Checkpoint> {
        let (at, t) = self.last?;
        let clients = self.minus_base(clients);
        Some(Checkpoint { at_s: at, t: elapsed, secs: elapsed - t, threads, w: std::mem::take(&mut self.since), clients })
    }
}

struct Shared {
    stop: Arc<AtomicBool>,
    fatal: Mutex<Option<String>>,
    go: Mutex<Option<Instant>>,
    go_cv: Condvar,
    started: AtomicUsize,
}

impl Shared {
    fn fail(&self, msg: String) {
        let mut f = self.fatal.lock().unwrap();
        if f.is_none() {
            *f = Some(msg);
        }
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Report boundaries (seconds from start): every interval, plus the end of
/// warmup so warmup never leaks into measured figures.
fn boundary(seq: usize, rc: &RunControl) -> Duration {
    let iv = if rc.report_interval.is_zero() { Duration::from_secs(1) } else { rc.report_interval };
    let warm = rc.warmup;
    let before = (warm.as_nanos() / iv.as_nanos()) as usize;
    let aligned = warm.as_nanos().is_multiple_of(iv.as_nanos());
    if warm.is_zero() || aligned || seq < before {
        iv * (seq as u32 + 1)
    } else if seq == before {
        warm
    } else {
        iv * seq as u32
    }
}

/// Up to this many clients, each has a worker thread of its own (unless
/// `--client-threads` says otherwise) and waits for the server inside
/// recv(2), as sysbench's and pgbench's threads do; beyond, clients share
/// one thread per CPU, which keeps memory per client low (each thread
/// takes a runtime and a reporting window, about 1.2 MiB).
///
/// Sharing a thread costs little on an idle machine, but anything else
/// running (another build, a second server, a monitoring agent) makes it
/// dearer than sysbench at once: a thread with two clients waits for
/// whichever answers first, so the other answer sits until the thread
/// gets the CPU back, and the server's backends sleep and wake once more
/// per query. On 2 cores with two nice-19 loops beside the run, 4 clients
/// on PostgreSQL made 50k point selects a second shared against 102k with
/// a thread each and 99k for sysbench (medians, docs/performance.md).
pub const THREAD_PER_CLIENT_UP_TO: usize = 32;

/// Worker threads for `threads` clients: one per client on SQLite (whose
/// calls block), else `--client-threads`, else one per client up to
/// [`THREAD_PER_CLIENT_UP_TO`], else one per CPU.
fn worker_count(threads: usize, rc: &RunControl, protocol: Protocol) -> usize {
    if protocol.embedded() {
        return threads;
    }
    match rc.worker_threads {
        Some(n) => threads.min(n.max(1)),
        None if threads <= THREAD_PER_CLIENT_UP_TO => threads,
        None => threads.min(crate::env::cpus()),
    }
}

pub fn run_level<W: Workload>(w: Arc<W>, cfg: Arc<ConnConfig>, rc: &RunControl, sink: &mut dyn Sink) -> Result<LevelResult> {
    run_level_with(w, cfg, rc, &LevelOptions::default(), sink).map(|l| l.result)
}

/// The clients of each worker, in the order their totals are kept.
fn clients_of(nworkers: usize, threads: usize) -> Vec<usize> {
    (0..nworkers).map(|wi| (wi..threads).step_by(nworkers).count()).collect()
}

/// Each client's totals, worker by worker.
fn flat(per_worker: &[Vec<ClientTotals>]) -> Vec<ClientTotals> {
    per_worker.iter().flatten().copied().collect()
}

/// One load level with sysbench's general options (`opts`): checkpoints,
/// forced shutdown, the clients' set-up time limit.
pub fn run_level_with<W: Workload>(w: Arc<W>, cfg: Arc<ConnConfig>, rc: &RunControl, opts: &LevelOptions, sink: &mut dyn Sink) -> Result<Level> {
    let threads = rc.threads.max(1);
    let nworkers = worker_count(threads, rc, cfg.target.protocol);
    let shared = Arc::new(Shared { stop: Arc::new(AtomicBool::new(false)), fatal: Mutex::new(None), go: Mutex::new(None), go_cv: Condvar::new(), started: AtomicUsize::new(0) });
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut joins = Vec::new();
    // Each worker's merged windows go back to it, emptied (see `Window::reset`).
    let mut returns: Vec<mpsc::Sender<Box<Window>>> = Vec::new();
    // Clients a workload keeps out of the open loop run back to back; the
    // rate is shared by the others, worker by worker as they are dealt.
    let paced_total = (0..threads).filter(|&id| w.paced(id, threads)).count();
    let connecting = Instant::now();
    for wi in 0..nworkers {
        let ids: Vec<usize> = (wi..threads).step_by(nworkers).collect();
        let (w, cfg, rc, shared, tx) = (w.clone(), cfg.clone(), rc.clone(), shared.clone(), tx.clone());
        let rate_share = if paced_total == threads { rc.rate / nworkers as f64 } else { rc.rate * ids.iter().filter(|&&id| w.paced(id, threads)).count() as f64 / paced_total.max(1) as f64 };
        let qcap = (rc.queue_max / nworkers).max(1);
        let debug = opts.debug;
        let (back, spare) = mpsc::channel();
        returns.push(back);
        joins.push(
            std::thread::Builder::new()
                .name(format!("fb-worker-{wi}"))
                .spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
                    let local = tokio::task::LocalSet::new();
                    local.block_on(&rt, worker(wi, ids, threads, w, cfg, rc, rate_share, qcap, shared, tx, spare, debug));
                })
                .map_err(|e| Error::Io(format!("cannot start worker thread: {e}")))?,
        );
    }
    drop(tx);

    // Barrier: every client connected before anyone starts.
    let init_deadline = opts.init_timeout.map(|d| Instant::now() + d);
    let mut ready = 0;
    while ready < threads {
        if init_deadline.is_some_and(|d| Instant::now() >= d) {
            // Clients still connecting give up (see `worker`); one inside a
            // call that cannot be abandoned is left behind, not waited for.
            shared.stop.store(true, Ordering::SeqCst);
            release(&shared, Instant::now());
            let secs = opts.init_timeout.unwrap_or_default().as_secs_f64();
            return Err(Error::Connect(format!(
                "{ready} of {threads} clients were connected and ready {secs} s after the start: {} did not answer, or the clients' set-up took longer; raise --thread-init-timeout if it is only slow",
                cfg.target
            )));
        }
        match rx.recv_timeout(Duration::from_millis(50)) {
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Error::Io("worker threads ended before starting".into())),
            Ok(Msg::Ready) => ready += 1,
            Ok(Msg::ConnectFailed(e)) => {
                shared.stop.store(true, Ordering::SeqCst);
                release(&shared, Instant::now());
                for j in joins {
                    let _ = j.join();
                }
                return Err(match e.kind {
                    ErrKind::Connect => connect_error(&cfg.target, &e),
                    _ => Error::Sql(format!("client setup failed: {e}")),
                });
            }
            Ok(_) => {}
        }
        if INTERRUPTED.load(Ordering::SeqCst) {
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
    }
    let connect_s = connecting.elapsed().as_secs_f64();
    // The server's baseline, before a group's members wait for each other to start together.
    sink.before_start();
    if let Some(f) = &rc.sync_file {
        wait_sync_file(f, rc.sync_wait)?;
    }
    if let Some(gate) = &rc.gate {
        if let Err(e) = gate.wait(rc.round) {
            shared.stop.store(true, Ordering::SeqCst);
            release(&shared, Instant::now());
            for j in joins {
                let _ = j.join();
            }
            return Err(e);
        }
    }
    let cpu0 = process_cpu();
    let start = Instant::now();
    let mut cpu_marks = CpuMarks { at: std::collections::VecDeque::from([(start, cpu0)]), dropped: 0 };
    release(&shared, start);
    sink.start(threads);

    let rate_mode = rc.rate > 0.0;
    let per_worker = clients_of(nworkers, threads);
    // Per boundary: windows received, their merge, and each worker's client totals then.
    let mut pending: BTreeMap<usize, (usize, Window, Vec<Vec<ClientTotals>>)> = BTreeMap::new();
    let mut total = Window::default();
    let mut intervals = folded::Folded::new();
    let mut merged_pool: Vec<Window> = Vec::new();
    let mut stalls = folded::Stalls::default();
    // Each worker's client totals: the last it sent, then its final ones.
    let mut clients: Vec<Vec<ClientTotals>> = per_worker.iter().map(|&n| vec![ClientTotals::default(); n]).collect();
    let mut finished = vec![false; nworkers];
    let mut cps = Checkpoints::new(&opts.checkpoints, threads);
    let force_at = opts.forced_shutdown.filter(|_| !rc.time.is_zero()).map(|g| start + rc.warmup + rc.time + g);
    let mut forced = None;
    let mut done = 0;
    let mut next_seq = 0usize;
    let mut prev_t = 0.0;
    let limit = (!rc.time.is_zero()).then_some(rc.time.as_secs_f64());
    let mut gaps = GapMerger::new(threads, w.kinds().len(), start + rc.warmup, start, limit);
    // A worker's last gaps, held until its earlier windows are in (see `GapMerger`).
    let mut done_gaps = Vec::new();
    let mut last_end = None;
    while done < nworkers {
        if force_at.is_some_and(|at| Instant::now() >= at) {
            // The clients still inside an event are not waited for.
            forced = Some(finished.iter().zip(&per_worker).filter(|(f, _)| !**f).map(|(_, n)| n).sum::<usize>());
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        cpu_marks.catch_up(start, rc);
        // Workers send a window every interval and stop on their own at the
        // deadline or a signal; this wait only bounds how late a CPU mark
        // or the forced end is seen. Each wake-up of this thread is one more
        // task the scheduler places among the clients' and server's threads.
        let mut wait = cpu_marks.until_next(start, rc).min(Duration::from_millis(500));
        if let Some(at) = force_at {
            wait = wait.min(at.saturating_duration_since(Instant::now()));
        }
        let msg = match rx.recv_timeout(wait) {
            Ok(m) => m,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if INTERRUPTED.load(Ordering::SeqCst) {
                    shared.stop.store(true, Ordering::SeqCst);
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match msg {
            Msg::Window { seq, wi, mut w, clients: c } => {
                let e = pending.entry(seq).or_insert_with(|| (0, merged_pool.pop().unwrap_or_default(), clients.clone()));
                e.0 += 1;
                e.1.merge(&w);
                w.reset();
                if let Some(back) = returns.get(wi) {
                    let _ = back.send(w);
                }
                if let Some(slot) = e.2.get_mut(wi) {
                    slot.clone_from(&c);
                }
                if !finished[wi] {
                    clients[wi] = c;
                }
                while pending.get(&next_seq).map(|e| e.0 == nworkers).unwrap_or(false) {
                    let (_, mut win, at_boundary) = pending.remove(&next_seq).unwrap();
                    gaps.absorb(std::mem::take(&mut win.gaps));
                    stalls.place(gaps.take_stalls(), next_seq, rc, sink);
                    let t = boundary(next_seq, rc).as_secs_f64();
                    let warm = t <= rc.warmup.as_secs_f64() + 1e-9 && !rc.warmup.is_zero();
                    if !warm {
                        total.merge(&win);
                        if cps.active() {
                            cps.since.merge(&win);
                            if let Some(cp) = cps.reached(t - rc.warmup.as_secs_f64(), threads, &flat(&at_boundary)) {
                                sink.checkpoint(&cp);
                            }
                        }
                    }
                    cpu_marks.catch_up(start, rc);
                    let (cpu_user_s, cpu_sys_s) = cpu_marks.over(next_seq);
                    let stall_s = stalls.of(next_seq);
                    let mut iv = Interval { t, secs: t - prev_t, threads, warmup: warm, w: win, cpu_user_s, cpu_sys_s, stall_s };
                    prev_t = t;
                    if rc.report_interval.is_zero() {
                        sink.unreported(&iv);
                    } else {
                        sink.interval(&iv, rate_mode);
                    }
                    // The sinks have its latencies: keep the counters only, in a fixed size, and
                    // the emptied window for a later interval's merge.
                    let mut full = std::mem::replace(&mut iv.w, Window::counts_only());
                    iv.w = full.counters();
                    full.reset();
                    if merged_pool.len() < 4 {
                        merged_pool.push(full);
                    }
                    intervals.push(iv);
                    next_seq += 1;
                }
            }
            Msg::Done { wi, mut w, clients: c, ended } => {
                last_end = last_end.max(Some(ended));
                done += 1;
                done_gaps.push(std::mem::take(&mut w.gaps));
                total.merge(&w);
                if cps.active() {
                    cps.since.merge(&w);
                }
                clients[wi] = c;
                finished[wi] = true;
            }
            _ => {}
        }
    }
    // Windows of boundaries that not every worker reached (early stop).
    for (_, (_, mut win, _)) in pending {
        gaps.absorb(std::mem::take(&mut win.gaps));
        total.merge(&win);
        if cps.active() {
            cps.since.merge(&win);
        }
    }
    // After a forced shutdown some workers never said when they ended.
    let end = if forced.is_some() { Instant::now() } else { last_end.unwrap_or_else(Instant::now) };
    let ran = end.saturating_duration_since(start).as_secs_f64();
    let elapsed = ran - rc.warmup.as_secs_f64().min(ran);
    for log in done_gaps {
        gaps.absorb(log);
    }
    let kinds: Vec<(&str, bool)> = w.kinds().iter().enumerate().map(|(i, &k)| (k, total.kinds.get(i).is_some_and(|x| x.events > 0))).collect();
    let cpu1 = process_cpu();
    // After a forced shutdown, workers whose client is inside a call are
    // left behind: the process ends without them.
    if forced.is_none() {
        for j in joins {
            let _ = j.join();
        }
    }
    let fatal = shared.fatal.lock().unwrap().take();
    let stop = match (fatal, forced) {
        (Some(m), _) => Stop::Failed(m),
        (None, Some(n)) => Stop::Failed(format!(
            "forced shutdown: the run was still going {} s after --time (--forced-shutdown); {n} client(s) were inside an event and were not waited for",
            opts.forced_shutdown.unwrap_or_default().as_secs_f64()
        )),
        (None, None) if INTERRUPTED.load(Ordering::SeqCst) => Stop::Interrupted,
        (None, None) => Stop::Completed,
    };
    let outage = Some(gaps.finish(elapsed, stop != Stop::Completed, total.writes > 0, &kinds));
    let clients = flat(&clients);
    let tail = cps.tail(elapsed, threads, &clients);
    let result = LevelResult {
        threads,
        total,
        elapsed_s: elapsed,
        clients,
        cpu_user_s: cpu1.0 - cpu0.0,
        cpu_sys_s: cpu1.1 - cpu0.1,
        intervals: intervals.into_vec(),
        stop,
        rate: rc.rate,
        outage,
        name: None,
        figures: Vec::new(),
        connect_s,
    };
    Ok(Level { result, tail, forced })
}

/// Process CPU read by the reporter at every report boundary. A worker
/// thread blocked inside a SQLite call holds back its windows, so an
/// interval can be complete seconds after its end; CPU read only then would
/// pile several intervals' CPU into one (2.75 cores on a 2-core machine).
/// The reporter is never blocked by a client, so it reads the CPU close to
/// each boundary, and each interval gets what was used between its own.
struct CpuMarks {
    /// (boundary, (user s, sys s)): the start, then boundary 0, 1, ..., less the `dropped`
    /// first ones: the marks of intervals already merged go, so a long run keeps a few.
    at: std::collections::VecDeque<(Instant, (f64, f64))>,
    dropped: usize,
}

impl CpuMarks {
    /// Marks for every boundary passed since the last one. A read comes a
    /// little after its boundary (or several boundaries late, if this
    /// thread was starved): the CPU at each boundary is interpolated
    /// between the last mark and this read, so an interval never gets the
    /// CPU of time outside it, and none shows more cores than were busy.
    fn catch_up(&mut self, start: Instant, rc: &RunControl) {
        let now = Instant::now();
        if now < start + boundary(self.next(), rc) {
            return;
        }
        let cpu = process_cpu();
        let (t0, c0) = *self.at.back().expect("the start mark");
        let span = now.duration_since(t0).as_secs_f64();
        loop {
            let tb = start + boundary(self.next(), rc);
            if tb > now {
                break;
            }
            let f = if span > 0.0 { tb.duration_since(t0).as_secs_f64() / span } else { 1.0 };
            self.at.push_back((tb, (c0.0 + f * (cpu.0 - c0.0), c0.1 + f * (cpu.1 - c0.1))));
        }
    }

    /// The boundary the next mark is for.
    fn next(&self) -> usize {
        self.dropped + self.at.len() - 1
    }

    fn until_next(&self, start: Instant, rc: &RunControl) -> Duration {
        (start + boundary(self.next(), rc)).saturating_duration_since(Instant::now())
    }

    /// CPU (user s, sys s) between boundary `seq - 1` (or the start) and boundary `seq`;
    /// intervals are merged in order, so the marks before it go.
    fn over(&mut self, seq: usize) -> (f64, f64) {
        while self.dropped < seq && self.at.len() > 2 {
            self.at.pop_front();
            self.dropped += 1;
        }
        let at = |i: usize| i.checked_sub(self.dropped).and_then(|i| self.at.get(i));
        match (at(seq), at(seq + 1)) {
            (Some(a), Some(b)) => ((b.1).0 - (a.1).0, (b.1).1 - (a.1).1),
            _ => (0.0, 0.0),
        }
    }
}

fn release(shared: &Shared, at: Instant) {
    *shared.go.lock().unwrap() = Some(at);
    shared.go_cv.notify_all();
}

/// BMK-kit's start barrier: everyone is connected; start when the file is gone.
fn wait_sync_file(f: &std::path::Path, every: Duration) -> Result<()> {
    if !f.exists() {
        return Ok(());
    }
    eprintln!("All clients connected; waiting for {} to be removed...", f.display());
    while f.exists() {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Ok(());
        }
        // Capped so Ctrl-C is seen within the stop limit whatever --sync-wait says.
        std::thread::sleep(every.clamp(Duration::from_millis(1), Duration::from_millis(100)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn repetitions_interleave_unless_grouped() {
        assert_eq!(super::repetition_order(&[1, 2, 4], 2, true), vec![1, 2, 4, 1, 2, 4]);
        assert_eq!(super::repetition_order(&[1, 2, 4], 2, false), vec![1, 1, 2, 2, 4, 4]);
        assert_eq!(super::repetition_order(&[8], 1, true), vec![8]);
    }

    use super::*;

    fn rc(iv: u64, warm: u64) -> RunControl {
        RunControl {
            threads: 1,
            time: Duration::from_secs(10),
            events: 0,
            warmup: Duration::from_millis(warm),
            rate: 0.0,
            arrivals: Default::default(),
            report_interval: Duration::from_millis(iv),
            sync_file: None,
            sync_wait: Duration::from_millis(10),
            gate: None,
            round: 0,
            worker_threads: Some(1),
            queue_max: 1000,
            reconnect: 0,
            seed: 1,
            tries: Default::default(),
            log: None,
        }
    }

    #[test]
    fn boundaries_include_warmup_end() {
        let r = rc(1000, 2500);
        let b: Vec<u128> = (0..5).map(|i| boundary(i, &r).as_millis()).collect();
        assert_eq!(b, vec![1000, 2000, 2500, 3000, 4000]);
        let r = rc(1000, 2000);
        let b: Vec<u128> = (0..3).map(|i| boundary(i, &r).as_millis()).collect();
        assert_eq!(b, vec![1000, 2000, 3000]);
        let r = rc(1000, 0);
        assert_eq!(boundary(0, &r).as_millis(), 1000);
    }
}
