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
}

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
        spare,
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
        handles.push(tokio::task::spawn_local(async move {
            client(id, li, conn, st, w, local.clone(), shared, totals, quota, warm_end, rate_mode).await;
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
    let _ = tx.send(Msg::Done { wi, w: Box::new(w), clients, ended: Instant::now() });
}

pub(super) fn send_window(local: &Local, totals: &RefCell<Vec<ClientTotals>>, tx: &mpsc::Sender<Msg>, seq: usize, wi: usize) {
    let fresh = local.spare.try_recv().map(|w| *w).unwrap_or_default();
    let mut w = std::mem::replace(&mut *local.window.borrow_mut(), fresh);
    w.queue_len = local.queue.borrow().len() as u64;
    w.busy = local.busy.get();
    let _ = tx.send(Msg::Window { seq, wi, w: Box::new(w), clients: totals.borrow().clone() });
}
