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

pub mod group;

use crate::db::connect_error;
use crate::db::{Conn, ConnConfig, DbError, ErrKind, Protocol};
use crate::error::{Error, Result};
use crate::model::{Checkpoint, Interval, LevelOptions, LevelResult, RunControl, Sink, Stop, INTERRUPTED};
use crate::rand::Rng;
use crate::stats::gaps::{GapMerger, GapTracker};
use crate::stats::{process_cpu, ClientTotals, Window};
use crate::workload::{Counters, Workload};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
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

/// Waits until `flag` is set (polled: the flag is set from other threads).
async fn until_set(flag: &AtomicBool) {
    while !flag.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
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
    for wi in 0..nworkers {
        let ids: Vec<usize> = (wi..threads).step_by(nworkers).collect();
        let (w, cfg, rc, shared, tx) = (w.clone(), cfg.clone(), rc.clone(), shared.clone(), tx.clone());
        let rate_share = rc.rate / nworkers as f64;
        let qcap = (rc.queue_max / nworkers).max(1);
        let debug = opts.debug;
        joins.push(
            std::thread::Builder::new()
                .name(format!("fb-worker-{wi}"))
                .spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
                    let local = tokio::task::LocalSet::new();
                    local.block_on(&rt, worker(wi, ids, threads, w, cfg, rc, rate_share, qcap, shared, tx, debug));
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
    let mut cpu_marks = CpuMarks { at: vec![(start, cpu0)] };
    release(&shared, start);
    sink.start(threads);

    let rate_mode = rc.rate > 0.0;
    let per_worker = clients_of(nworkers, threads);
    // Per boundary: windows received, their merge, and each worker's client totals then.
    let mut pending: BTreeMap<usize, (usize, Window, Vec<Vec<ClientTotals>>)> = BTreeMap::new();
    let mut total = Window::default();
    let mut intervals = Vec::new();
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
            Msg::Window { seq, wi, w, clients: c } => {
                let e = pending.entry(seq).or_insert_with(|| (0, Window::default(), clients.clone()));
                e.0 += 1;
                e.1.merge(&w);
                if let Some(slot) = e.2.get_mut(wi) {
                    slot.clone_from(&c);
                }
                if !finished[wi] {
                    clients[wi] = c;
                }
                while pending.get(&next_seq).map(|e| e.0 == nworkers).unwrap_or(false) {
                    let (_, mut win, at_boundary) = pending.remove(&next_seq).unwrap();
                    gaps.absorb(std::mem::take(&mut win.gaps));
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
                    let mut iv = Interval { t, secs: t - prev_t, threads, warmup: warm, w: win, cpu_user_s, cpu_sys_s };
                    prev_t = t;
                    if !rc.report_interval.is_zero() {
                        sink.interval(&iv, rate_mode);
                        // The sinks have its latencies: keep the counters only.
                        iv.w.compact();
                    }
                    intervals.push(iv);
                    next_seq += 1;
                }
            }
            Msg::Done { wi, mut w, clients: c } => {
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
    let elapsed = start.elapsed().as_secs_f64() - rc.warmup.as_secs_f64().min(start.elapsed().as_secs_f64());
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
    let result = LevelResult { threads, total, elapsed_s: elapsed, clients, cpu_user_s: cpu1.0 - cpu0.0, cpu_sys_s: cpu1.1 - cpu0.1, intervals, stop, rate: rc.rate, outage };
    Ok(Level { result, tail, forced })
}

/// Process CPU read by the reporter at every report boundary. A worker
/// thread blocked inside a SQLite call holds back its windows, so an
/// interval can be complete seconds after its end; CPU read only then would
/// pile several intervals' CPU into one (2.75 cores on a 2-core machine).
/// The reporter is never blocked by a client, so it reads the CPU close to
/// each boundary, and each interval gets what was used between its own.
struct CpuMarks {
    /// (boundary, (user s, sys s)): the start, then boundary 0, 1, ...
    at: Vec<(Instant, (f64, f64))>,
}

impl CpuMarks {
    /// Marks for every boundary passed since the last one. A read comes a
    /// little after its boundary (or several boundaries late, if this
    /// thread was starved): the CPU at each boundary is interpolated
    /// between the last mark and this read, so an interval never gets the
    /// CPU of time outside it, and none shows more cores than were busy.
    fn catch_up(&mut self, start: Instant, rc: &RunControl) {
        let now = Instant::now();
        if now < start + boundary(self.at.len() - 1, rc) {
            return;
        }
        let cpu = process_cpu();
        let (t0, c0) = *self.at.last().expect("the start mark");
        let span = now.duration_since(t0).as_secs_f64();
        loop {
            let tb = start + boundary(self.at.len() - 1, rc);
            if tb > now {
                break;
            }
            let f = if span > 0.0 { tb.duration_since(t0).as_secs_f64() / span } else { 1.0 };
            self.at.push((tb, (c0.0 + f * (cpu.0 - c0.0), c0.1 + f * (cpu.1 - c0.1))));
        }
    }

    fn until_next(&self, start: Instant, rc: &RunControl) -> Duration {
        (start + boundary(self.at.len() - 1, rc)).saturating_duration_since(Instant::now())
    }

    /// CPU (user s, sys s) between boundary `seq - 1` (or the start) and boundary `seq`.
    fn over(&self, seq: usize) -> (f64, f64) {
        match (self.at.get(seq), self.at.get(seq + 1)) {
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

/// Local state of one worker thread, shared by its clients (same thread).
struct Local {
    window: RefCell<Window>,
    stop: Cell<bool>,
    finished: Cell<usize>,
    queue: RefCell<VecDeque<Instant>>,
    notify: tokio::sync::Notify,
    busy: Cell<u64>,
    /// `stop` for the clients' connections, which may wait on other
    /// threads' clients (a SQLite writer's turn).
    halt: Arc<AtomicBool>,
    /// When the ticker wants its next turn: a client whose calls never
    /// suspend (blocking connections) yields to it then.
    tick_at: Cell<Instant>,
}

impl Local {
    fn end(&self) {
        self.stop.set(true);
        self.halt.store(true, Ordering::Relaxed);
    }
}

#[allow(clippy::too_many_arguments)]
async fn worker<W: Workload>(
    wi: usize,
    ids: Vec<usize>,
    threads: usize,
    w: Arc<W>,
    cfg: Arc<ConnConfig>,
    rc: RunControl,
    rate: f64,
    qcap: usize,
    shared: Arc<Shared>,
    tx: mpsc::Sender<Msg>,
    debug: bool,
) {
    let set = w.statements();
    let halt = Arc::new(AtomicBool::new(false));
    let mut conns = Vec::new();
    for &id in &ids {
        let began = Instant::now();
        // A run that gave up waiting (--thread-init-timeout, a failed
        // client, Ctrl-C) stops the clients still connecting.
        let connected = tokio::select! {
            c = Conn::connect(cfg.clone(), set.clone(), id) => c,
            () = until_set(&shared.stop) => return,
        };
        match connected {
            Ok(mut c) => {
                c.stop_waits_on(halt.clone());
                // Alone on this thread: block on the socket, which is
                // cheaper than suspending when nobody else could run. A
                // wait gives up on Ctrl-C or a fatal error elsewhere; at
                // the normal end the client's last calls (a script's
                // thread_done) still run.
                if ids.len() == 1 {
                    c.block_until(vec![shared.stop.clone()], &INTERRUPTED);
                }
                // Client state is built and set up before the start
                // barrier, so its setup is never measured.
                let mut st = w.new_client(id, threads);
                let init = tokio::select! {
                    r = w.client_init(&mut c, &mut st) => r,
                    () = until_set(&shared.stop) => return,
                };
                if let Err(e) = init {
                    let _ = tx.send(Msg::ConnectFailed(e));
                    return;
                }
                if debug {
                    eprintln!("DEBUG: client {id} connected and ready in {:.1} ms", began.elapsed().as_secs_f64() * 1e3);
                }
                conns.push((c, st));
                let _ = tx.send(Msg::Ready);
            }
            Err(e) => {
                let _ = tx.send(Msg::ConnectFailed(e));
                return;
            }
        }
    }
    let start = {
        let mut g = shared.go.lock().unwrap();
        while g.is_none() {
            g = shared.go_cv.wait(g).unwrap();
        }
        g.unwrap()
    };
    shared.started.fetch_add(1, Ordering::SeqCst);
    let local = Rc::new(Local {
        window: RefCell::new(Window::default()),
        stop: Cell::new(shared.stop.load(Ordering::SeqCst)),
        finished: Cell::new(0),
        queue: RefCell::new(VecDeque::new()),
        notify: tokio::sync::Notify::new(),
        busy: Cell::new(0),
        halt,
        tick_at: Cell::new(start),
    });
    let warm_end = start + rc.warmup;
    let totals = Rc::new(RefCell::new(vec![ClientTotals::default(); ids.len()]));
    let n_local = ids.len();
    let mut handles = Vec::new();
    for (li, (id, (conn, st))) in ids.iter().copied().zip(conns).enumerate() {
        let quota = if rc.events > 0 { rc.events / threads as u64 + u64::from((id as u64) < rc.events % threads as u64) } else { u64::MAX };
        let (w, local, shared, totals) = (w.clone(), local.clone(), shared.clone(), totals.clone());
        let rate_mode = rate > 0.0;
        handles.push(tokio::task::spawn_local(async move {
            client(id, li, conn, st, w, local.clone(), shared, totals, quota, warm_end, rate_mode).await;
            local.finished.set(local.finished.get() + 1);
        }));
    }
    if rate > 0.0 {
        let local = local.clone();
        let seed = rc.seed ^ 0x5eed_0000 ^ wi as u64;
        tokio::task::spawn_local(async move { arrivals(local, start, rate, qcap, seed).await });
    }
    // Ticker: window swaps at boundaries, stop on deadline/signal/fatal/done.
    let deadline = if rc.time.is_zero() { None } else { Some(start + rc.warmup + rc.time) };
    let mut seq = 0;
    loop {
        let next = start + boundary(seq, &rc);
        let now = Instant::now();
        let wake = next.min(now + Duration::from_millis(20));
        local.tick_at.set(wake);
        tokio::time::sleep_until(tokio::time::Instant::from_std(wake)).await;
        let now = Instant::now();
        let time_up = deadline.map(|d| now >= d).unwrap_or(false);
        if shared.stop.load(Ordering::Relaxed) || INTERRUPTED.load(Ordering::Relaxed) || time_up || local.finished.get() == n_local {
            shared.stop.store(shared.stop.load(Ordering::Relaxed) || INTERRUPTED.load(Ordering::Relaxed), Ordering::Relaxed);
            local.end();
            local.notify.notify_waiters();
            // The last full boundary may coincide with the deadline. A
            // client blocked inside a call (SQLite waiting for a lock) can
            // keep this ticker past several boundaries: send each of them,
            // or the reporter never completes those intervals.
            let mut next = next;
            while now >= next && deadline.map(|d| next <= d).unwrap_or(true) {
                send_window(&local, &totals, &tx, seq, wi);
                seq += 1;
                next = start + boundary(seq, &rc);
            }
            break;
        }
        if now >= next {
            send_window(&local, &totals, &tx, seq, wi);
            seq += 1;
        }
    }
    for h in handles {
        let _ = h.await;
    }
    let w = std::mem::take(&mut *local.window.borrow_mut());
    let clients = totals.borrow().clone();
    let _ = tx.send(Msg::Done { wi, w: Box::new(w), clients });
}

fn send_window(local: &Local, totals: &RefCell<Vec<ClientTotals>>, tx: &mpsc::Sender<Msg>, seq: usize, wi: usize) {
    let mut w = std::mem::take(&mut *local.window.borrow_mut());
    w.queue_len = local.queue.borrow().len() as u64;
    w.busy = local.busy.get();
    let _ = tx.send(Msg::Window { seq, wi, w: Box::new(w), clients: totals.borrow().clone() });
}

/// Poisson arrivals for this worker's share of `--rate`, at their intended
/// times (computed from the schedule, not from when the timer fired).
///
/// When the schedule is behind and the queue is full, every arrival up to
/// now is dropped: they are counted from the time behind and the rate
/// instead of drawn one loop turn each (a rate of 1e9/s would otherwise
/// keep this task busy forever and starve the ticker on its thread).
async fn arrivals(local: Rc<Local>, start: Instant, rate: f64, cap: usize, seed: u64) {
    let mut rng = Rng::from_seed(seed, u32::MAX as u64 - 7);
    let mut next = start;
    // Turns since this task last suspended: the ticker and the clients
    // share this thread, so a schedule that is behind must still yield.
    let mut turns = 0u32;
    loop {
        let u = rng.uniform_double();
        let gap = -(1.0 - u).ln() / rate;
        next += Duration::from_secs_f64(gap);
        let now = Instant::now();
        if next > now {
            tokio::time::sleep_until(tokio::time::Instant::from_std(next)).await;
            turns = 0;
        } else {
            turns += 1;
            if turns >= 64 {
                tokio::task::yield_now().await;
                turns = 0;
            }
        }
        if local.stop.get() {
            break;
        }
        if local.queue.borrow().len() >= cap {
            let now = Instant::now();
            let behind = now.saturating_duration_since(next).as_secs_f64();
            local.window.borrow_mut().dropped += 1 + (behind * rate) as u64;
            next = next.max(now);
            continue;
        }
        local.queue.borrow_mut().push_back(next);
        local.notify.notify_one();
    }
}

#[allow(clippy::too_many_arguments)]
async fn client<W: Workload>(
    id: usize,
    li: usize,
    mut conn: Conn,
    mut st: W::Client,
    w: Arc<W>,
    local: Rc<Local>,
    shared: Arc<Shared>,
    totals: Rc<RefCell<Vec<ClientTotals>>>,
    quota: u64,
    warm_end: Instant,
    rate_mode: bool,
) {
    let reconnect_every = w.reconnect_every();
    let kinds = !w.kinds().is_empty();
    let mut steps_buf: Vec<(usize, u64)> = Vec::new();
    // SQLite calls complete without ever suspending: give the worker's
    // ticker (and arrival generator) a turn after every event.
    let must_yield = conn.protocol().embedded();
    // A cluster's nodes in the target: events are counted per node.
    let hosts = conn.hosts();
    let mut gaps = GapTracker::new(id, w.kinds().len(), Instant::now());
    let mut done = 0u64;
    while done < quota && !local.stop.get() {
        let intended = if rate_mode {
            loop {
                if local.stop.get() {
                    break None;
                }
                let t = local.queue.borrow_mut().pop_front();
                if let Some(t) = t {
                    break Some(t);
                }
                local.notify.notified().await;
            }
        } else {
            None
        };
        if rate_mode && intended.is_none() {
            break;
        }
        local.busy.set(local.busy.get() + 1);
        let began = Instant::now();
        let mut q = Counters { steps: std::mem::take(&mut steps_buf), ..Counters::default() };
        let mut retry = false;
        let ok = loop {
            match gaps.seen(w.event(&mut conn, &mut st, &mut q, retry).await, |e| if e.kind == ErrKind::Stopped { None } else { Some(&e.code) }) {
                Ok(()) => break true,
                Err(e) => match e.kind {
                    ErrKind::Retryable => {
                        {
                            let mut win = local.window.borrow_mut();
                            win.count_error(&e.code);
                            if kinds {
                                win.count_kind_retry(q.kind);
                            }
                        }
                        w.after_error(&mut conn, &mut st).await;
                        retry = true;
                        // A SQLite retry never suspends: let the ticker see
                        // the deadline, or a client stuck on BUSY never stops.
                        if must_yield {
                            tokio::task::yield_now().await;
                        }
                        if local.stop.get() {
                            break false;
                        }
                    }
                    ErrKind::ConnectionLost => {
                        local.window.borrow_mut().count_error(if e.code.is_empty() { "connection-lost" } else { &e.code });
                        if !reconnect(&mut conn, &local, &shared, id).await {
                            break false;
                        }
                        retry = true;
                    }
                    ErrKind::Stopped => break false,
                    ErrKind::Fatal | ErrKind::Connect => {
                        shared.fail(format!("fatal error in client {id}: {e}"));
                        local.end();
                        break false;
                    }
                },
            }
        };
        local.busy.set(local.busy.get() - 1);
        let end = Instant::now();
        // The window is borrowed in a scope that ends before the next await.
        {
            let mut win = local.window.borrow_mut();
            win.reads += q.reads;
            win.writes += q.writes;
            win.other += q.other;
            win.trx_stmts += q.trx;
            for _ in 0..q.errors {
                win.count_error("script");
            }
            if !ok || q.ended {
                break;
            }
            for &(step, us) in &q.steps {
                win.record_step(step, us);
            }
            let raw = (end.duration_since(began).as_micros() as u64).saturating_sub(q.waited_us);
            let corrected = intended.map(|t| end.duration_since(t).as_micros() as u64).unwrap_or(raw);
            win.record(corrected, raw, rate_mode);
            gaps.success(&mut win.gaps, intended, end, q.writes > 0, kinds.then_some(q.kind));
            if hosts > 1 {
                win.count_host(conn.host(), hosts);
            }
            if kinds {
                win.record_kind(q.kind, corrected, q.rolled_back);
            }
        }
        steps_buf = std::mem::take(&mut q.steps);
        steps_buf.clear();
        done += 1;
        if end >= warm_end {
            let mut t = totals.borrow_mut();
            t[li].events += 1;
            // sysbench's execution time: the event's own run, never the
            // time its arrival waited in the rate-mode queue.
            t[li].busy_s += end.duration_since(began).as_secs_f64() - q.waited_us as f64 / 1e6;
        }
        // An event that never suspended (a call that blocks, a script's
        // event with no statement in it) keeps the ticker (and the rate
        // mode's arrivals) from running: give them their turn when due, or
        // clients sharing a thread never see the time limit.
        if must_yield || end >= local.tick_at.get() {
            tokio::task::yield_now().await;
        }
        let every = reconnect_every > 0 && done.is_multiple_of(reconnect_every);
        let spent = conn.spent();
        if (every || spent) && !renew(&mut conn, &local, &shared, id, spent && !every).await {
            break;
        }
    }
    gaps.end(&mut local.window.borrow_mut().gaps);
    w.client_done(&mut conn, &mut st).await;
    conn.close().await;
}

/// A reconnect between events, the workload's (`--reconnect`) or, when
/// `tls`, a TLS 1.2 session's near its record limit (counted apart from
/// the reconnects that follow a lost connection); a first attempt that
/// fails goes on as after a lost connection.
async fn renew(conn: &mut Conn, local: &Local, shared: &Shared, id: usize, tls: bool) -> bool {
    if conn.reconnect().await.is_ok() {
        let mut win = local.window.borrow_mut();
        win.reconnects += 1;
        win.planned_reconnects += u64::from(tls);
        return true;
    }
    reconnect(conn, local, shared, id).await
}

/// Reconnect until it works, the run stops, or `--reconnect-timeout`
/// passes (then the run fails); counts the reconnect. Each attempt goes
/// through the target's whole host choice, so after a failover it finds
/// the new primary. The pause between attempts grows from 10 ms to 100 ms:
/// the gap stays short, and a host down is not asked hundreds of times a
/// second by every client.
async fn reconnect(conn: &mut Conn, local: &Local, shared: &Shared, id: usize) -> bool {
    let limit = conn.reconnect_timeout();
    let give_up = Instant::now() + limit;
    let mut pause = Duration::from_millis(10);
    // Why the last attempt that ended failed (the limit may cut the next one short).
    let mut why = String::from("no host answered");
    loop {
        if local.stop.get() {
            return false;
        }
        let left = give_up.saturating_duration_since(Instant::now());
        // An attempt can wait on a host that does not answer: the run's end
        // and the limit cut it short.
        let tried = tokio::select! {
            r = tokio::time::timeout(left, conn.reconnect()) => r,
            () = until_set(&local.halt) => return false,
        };
        match tried {
            Ok(Ok(())) => {
                local.window.borrow_mut().reconnects += 1;
                return true;
            }
            Ok(Err(e)) => why = e.message,
            Err(_) => {}
        }
        if Instant::now() >= give_up {
            shared.fail(format!("client {id} lost its connection and could not reconnect within {} s (--reconnect-timeout): {why}", limit.as_secs_f64()));
            local.end();
            return false;
        }
        tokio::time::sleep(pause.min(give_up.saturating_duration_since(Instant::now()))).await;
        pause = (pause * 2).min(Duration::from_millis(100));
    }
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
            report_interval: Duration::from_millis(iv),
            sync_file: None,
            sync_wait: Duration::from_millis(10),
            gate: None,
            round: 0,
            worker_threads: Some(1),
            queue_max: 1000,
            seed: 1,
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
