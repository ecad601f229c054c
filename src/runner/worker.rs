//! One worker thread: a single-threaded runtime with its clients, the
//! ticker that swaps their window at each report boundary, and the
//! arrivals of its share of the rate.

use super::arrivals::arrivals;
use super::client::{client, until_set};
use super::{boundary, Msg, Shared};
use crate::db::{Conn, ConnConfig};
use crate::model::{RunControl, INTERRUPTED};
use crate::rand::Rng;
use crate::stats::{ClientTotals, Window};
use crate::timer::PreciseTimer;
use crate::workload::Workload;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Local state of one worker thread, shared by its clients (same thread).
pub(super) struct Local {
    pub(super) window: RefCell<Window>,
    /// `--log`: this thread's transaction log.
    pub(super) log: RefCell<Option<super::txlog::TxLog>>,
    pub(super) stop: Cell<bool>,
    pub(super) finished: Cell<usize>,
    pub(super) queue: RefCell<VecDeque<Instant>>,
    pub(super) notify: tokio::sync::Notify,
    pub(super) busy: Cell<u64>,
    /// `stop` for the clients' connections, which may wait on other
    /// threads' clients (a SQLite writer's turn).
    pub(super) halt: Arc<AtomicBool>,
    /// When the ticker wants its next turn: a client whose calls never
    /// suspend (blocking connections) yields to it then.
    pub(super) tick_at: Cell<Instant>,
    /// Windows the reporter merged and handed back, emptied, to be filled again.
    pub(super) spare: mpsc::Receiver<Box<Window>>,
    /// Windows this worker has made so far (at most `WINDOWS` while the run goes on).
    pub(super) made: Cell<usize>,
}

/// Windows a worker has at most while its run goes on: the one its clients fill and those on
/// their way to the reporter and back. A reporter that falls behind (a debug build at 5 ms
/// intervals on a loaded machine) then delays the worker's next swap, instead of windows of
/// 380 KB queueing without bound (12 MB in 30 s): the clients go on counting into the current
/// window meanwhile, so no event is lost, and that interval ends late.
const WINDOWS: usize = 4;

impl Local {
    pub(super) fn end(&self) {
        self.stop.set(true);
        self.halt.store(true, Ordering::Relaxed);
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) async fn worker<W: Workload>(
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
    spare: mpsc::Receiver<Box<Window>>,
    debug: bool,
) {
    let set = w.statements();
    let halt = Arc::new(AtomicBool::new(false));
    let log = match &rc.log {
        Some(spec) => match super::txlog::TxLog::create(spec, wi, rate > 0.0, rc.seed) {
            Ok(l) => Some(l),
            Err(e) => {
                let message = format!("--log: cannot write {}: {e}", super::txlog::file_name(&spec.prefix, wi));
                let _ = tx.send(Msg::ConnectFailed(crate::db::DbError { kind: crate::db::ErrKind::Fatal, code: String::new(), message }));
                return;
            }
        },
        None => None,
    };
    let mut conns = Vec::new();
    for &id in &ids {
        let began = Instant::now();
        // A run that gave up waiting (--thread-init-timeout, a failed
        // client, Ctrl-C) stops the clients still connecting.
        let connected = tokio::select! {
            c = match w.client_target(id) {
                Some((to, statements)) => Conn::connect(to, statements, id),
                None => Conn::connect(cfg.clone(), set.clone(), id),
            } => c,
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
        log: RefCell::new(log),
        spare,
        made: Cell::new(1),
    });
    let warm_end = start + rc.warmup;
    let totals = Rc::new(RefCell::new(vec![ClientTotals::default(); ids.len()]));
    let n_local = ids.len();
    let mut handles = Vec::new();
    let deadline = if rc.time.is_zero() { None } else { Some(start + rc.warmup + rc.time) };
    for (li, (id, (mut conn, st))) in ids.iter().copied().zip(conns).enumerate() {
        conn.ends_at(deadline, &INTERRUPTED);
        let quota = if rc.events > 0 { rc.events / threads as u64 + u64::from((id as u64) < rc.events % threads as u64) } else { u64::MAX };
        let (w, local, shared, totals) = (w.clone(), local.clone(), shared.clone(), totals.clone());
        let rate_mode = rate > 0.0 && w.paced(id, threads);
        let reconnect = match (w.reconnects_itself(), w.reconnect_every()) {
            (true, _) => 0,
            (false, 0) => rc.reconnect,
            (false, n) => n,
        };
        handles.push(tokio::task::spawn_local(async move {
            client(id, li, conn, st, w, local.clone(), shared, totals, quota, warm_end, rate_mode, reconnect, rc.tries).await;
            local.finished.set(local.finished.get() + 1);
        }));
    }
    if rate > 0.0 {
        let local = local.clone();
        // Without --rand-seed every run draws arrivals of its own, as the
        // workloads draw their keys: one fixed draw repeated run after run
        // would bias a series by that draw's luck (1% fewer events at 0.5 s).
        let stream = u32::MAX as u64 - 7;
        let rng = if rc.seed == 0 { Rng::from_entropy(stream + wi as u64) } else { Rng::from_seed(rc.seed ^ 0x5eed_0000 ^ wi as u64, stream) };
        tokio::task::spawn_local(async move { arrivals(local, start, deadline, rate, rc.arrivals, qcap, rng).await });
    }
    // Ticker: window swaps at boundaries, stop on deadline/signal/fatal/done.
    let mut timer = PreciseTimer::new();
    let mut seq = 0;
    loop {
        let next = start + boundary(seq, &rc);
        let now = Instant::now();
        // The deadline is rarely a report boundary (none are drawn without
        // --report-interval): woken only at boundaries, the run went on up
        // to 20 ms past --time, counted in its elapsed time.
        let wake = next.min(now + Duration::from_millis(20));
        let wake = deadline.map_or(wake, |d| wake.min(d));
        local.tick_at.set(wake);
        timer.sleep_until(wake).await;
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
                send_window(&local, &totals, &tx, seq, wi, &shared.stop, deadline).await;
                seq += 1;
                next = start + boundary(seq, &rc);
            }
            break;
        }
        if now >= next {
            send_window(&local, &totals, &tx, seq, wi, &shared.stop, deadline).await;
            seq += 1;
        }
    }
    for h in handles {
        let _ = h.await;
    }
    let w = std::mem::take(&mut *local.window.borrow_mut());
    let clients = totals.borrow().clone();
    let _ = tx.send(Msg::Done { wi, w: Box::new(w), clients, ended: Instant::now() });
}

#[allow(clippy::too_many_arguments)]
pub(super) async fn send_window(local: &Local, totals: &RefCell<Vec<ClientTotals>>, tx: &mpsc::Sender<Msg>, seq: usize, wi: usize, stop: &AtomicBool, deadline: Option<Instant>) {
    let fresh = fresh_window(local, stop, deadline).await;
    let mut w = std::mem::replace(&mut *local.window.borrow_mut(), fresh);
    w.queue_len = local.queue.borrow().len() as u64;
    w.busy = local.busy.get();
    let _ = tx.send(Msg::Window { seq, wi, w: Box::new(w), clients: totals.borrow().clone() });
}

/// An emptied window back from the reporter, or a new one while the worker has fewer than
/// `WINDOWS`, or once the run is ending (its last windows are never held back: the reporter may
/// be waiting on them, and a stop must not wait on it). Otherwise the ticker waits for one, a
/// millisecond at a time; the clients run meanwhile.
async fn fresh_window(local: &Local, stop: &AtomicBool, deadline: Option<Instant>) -> Window {
    loop {
        if let Ok(w) = local.spare.try_recv() {
            return *w;
        }
        let ending = local.stop.get() || stop.load(Ordering::Relaxed) || INTERRUPTED.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d);
        if local.made.get() < WINDOWS || ending {
            local.made.set(local.made.get() + 1);
            return Window::default();
        }
        crate::timer::sleep(Duration::from_millis(1)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(made: usize) -> (Local, mpsc::Sender<Box<Window>>) {
        let (back, spare) = mpsc::channel();
        let l = Local {
            window: RefCell::new(Window::default()),
            stop: Cell::new(false),
            finished: Cell::new(0),
            queue: RefCell::new(VecDeque::new()),
            notify: tokio::sync::Notify::new(),
            busy: Cell::new(0),
            halt: Arc::new(AtomicBool::new(false)),
            tick_at: Cell::new(Instant::now()),
            log: RefCell::new(None),
            spare,
            made: Cell::new(made),
        };
        (l, back)
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
    }

    /// Windows queued without bound while a debug build's reporter fell behind its workers at
    /// 5 ms intervals (12 MB in 30 s).
    #[test]
    fn a_worker_behind_its_reporter_waits_for_a_window_back_instead_of_making_more() {
        let (l, back) = local(WINDOWS);
        let stop = AtomicBool::new(false);
        block_on(async {
            let held = tokio::time::timeout(Duration::from_millis(30), fresh_window(&l, &stop, None)).await;
            assert!(held.is_err(), "a fifth window was made while four were out");
            back.send(Box::new(Window { events: 7, ..Window::default() })).unwrap();
            assert_eq!(fresh_window(&l, &stop, None).await.events, 7, "the window handed back is the one filled next");
            assert_eq!(l.made.get(), WINDOWS);
        });
    }

    #[test]
    fn a_run_that_ends_never_waits_on_its_reporter_for_a_window() {
        let stop = AtomicBool::new(false);
        let (l, _back) = local(WINDOWS);
        block_on(fresh_window(&l, &stop, Some(Instant::now())));
        let (l2, _back2) = local(WINDOWS);
        l2.stop.set(true);
        block_on(fresh_window(&l2, &stop, None));
        let (l3, _back3) = local(WINDOWS);
        block_on(fresh_window(&l3, &AtomicBool::new(true), None));
        assert_eq!((l.made.get(), l2.made.get(), l3.made.get()), (WINDOWS + 1, WINDOWS + 1, WINDOWS + 1));
    }
}
