//! One client: its connection, its events in a closed or open loop, the
//! reconnects after a lost connection, its share of the report windows.

use super::txlog::Ended;
use super::worker::Local;
use super::Shared;
use crate::db::{Conn, DbError, ErrKind};
use crate::model::TryPolicy;
use crate::stats::gaps::GapTracker;
use crate::stats::ClientTotals;
use crate::workload::{Counters, TryReport, Workload};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[allow(clippy::too_many_arguments)]
pub(super) async fn client<W: Workload>(
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
    reconnect_every: u64,
    tries: TryPolicy,
) {
    let kinds = !w.kinds().is_empty();
    let mut steps_buf: Vec<(usize, u64)> = Vec::new();
    // SQLite calls complete without ever suspending: give the worker's
    // ticker (and arrival generator) a turn after every event.
    let must_yield = conn.protocol().embedded();
    // A cluster's nodes in the target: events are counted per node.
    let hosts = conn.hosts();
    let mut gaps = GapTracker::new(id, w.kinds().len(), Instant::now());
    let mut done = 0u64;
    // Events written to the `--log` (pgbench's transaction_no, from 1).
    let mut logged = 0u64;
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
            // Stopped while waiting for an arrival: idle until the end,
            // or until the oldest arrival left unserved. Since arrivals
            // stop at --time, the last of them may come well before it.
            let unserved = local.queue.borrow().front().copied();
            gaps.idle_until(unserved.unwrap_or_else(Instant::now));
            break;
        }
        // pgbench's -L with --rate: an arrival already later than the limit is not sent.
        if let (Some(t), Some(limit)) = (intended, tries.latency_limit) {
            if t.elapsed() > limit {
                let kind = w.skipped_kind(&mut st);
                {
                    let mut win = local.window.borrow_mut();
                    win.tries.skipped += 1;
                    if kinds {
                        win.count_kind_skipped(kind);
                    }
                }
                done += 1;
                logged += 1;
                if let Some(log) = local.log.borrow_mut().as_mut() {
                    log.event(id, logged, Ended::Skipped, kind, 0, 0, 1);
                }
                continue;
            }
        }
        local.busy.set(local.busy.get() + 1);
        let began = Instant::now();
        let mut q = Counters { steps: std::mem::take(&mut steps_buf), ..Counters::default() };
        let mut retry = false;
        let mut tried = 1u32;
        let mut failed = false;
        let mut deadlock = false;
        let ok = loop {
            match gaps.seen(w.event(&mut conn, &mut st, &mut q, retry).await, |e| if e.kind == ErrKind::Stopped { None } else { Some(&e.code) }) {
                Ok(()) => break true,
                Err(e) => match e.kind {
                    ErrKind::Retryable => {
                        let give_up = out_of_tries(&tries, tried, intended.unwrap_or(began)) || local.stop.get();
                        if tries.verbose {
                            let due = intended.unwrap_or(began);
                            let t = TryReport {
                                client: id,
                                tried,
                                max_tries: tries.max_tries,
                                give_up,
                                limit_used_pct: tries.latency_limit.map(|l| 100.0 * due.elapsed().as_secs_f64() / l.as_secs_f64()),
                            };
                            eprintln!("{}", w.error_report(&st, &e, &t).unwrap_or_else(|| error_line(id, &e, tried, give_up, kinds.then(|| w.kinds()[q.kind]))));
                        }
                        {
                            let mut win = local.window.borrow_mut();
                            win.count_error(&e.code);
                            if let Some(step) = q.at_step {
                                win.count_step_error(step, give_up);
                            }
                            if give_up {
                                win.tries.failed += 1;
                                win.tries.failed_deadlock += u64::from(e.deadlock());
                                if kinds {
                                    win.count_kind_failed(q.kind, e.deadlock());
                                }
                            } else {
                                win.tries.retries += 1;
                                win.tries.retried += u64::from(tried == 1);
                                if kinds {
                                    win.count_kind_retry(q.kind, tried == 1);
                                }
                            }
                        }
                        w.after_error(&mut conn, &mut st).await;
                        if give_up {
                            // Failed, not lost: the client goes on with its next event.
                            failed = true;
                            deadlock = e.deadlock();
                            break true;
                        }
                        tried += 1;
                        retry = true;
                        // A retry may never suspend (a SQLite BUSY, or a
                        // client blocking on its socket while the server
                        // answers every statement with an error, as vtgate
                        // while a shard is away): let the ticker run, or a
                        // client stuck retrying never stops and the report's
                        // intervals wait for the errors to end.
                        tokio::task::yield_now().await;
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
            // Each statement that ran counts, in a failed event too, as pgbench's -r counts them.
            for &(step, us) in &q.steps {
                win.record_step(step, us);
            }
            // A failed event is not in the latencies: pgbench's failed transactions have none.
            if failed {
                if let Some(log) = local.log.borrow_mut().as_mut() {
                    logged += 1;
                    log.event(id, logged, Ended::Failed { deadlock }, q.kind, 0, 0, tried);
                }
            } else {
                let raw = (end.duration_since(began).as_micros() as u64).saturating_sub(q.waited_us);
                let corrected = intended.map(|t| end.duration_since(t).as_micros() as u64).unwrap_or(raw);
                win.record(corrected, raw, rate_mode);
                // Rate mode: how long the arrival waited for this client (pgbench's lag).
                let lag_us = intended.map_or(0, |t| began.saturating_duration_since(t).as_micros() as u64);
                win.lag_max_us = win.lag_max_us.max(lag_us);
                if tries.latency_limit.is_some_and(|l| corrected > l.as_micros() as u64) {
                    win.tries.late += 1;
                }
                gaps.success(&mut win.gaps, intended, end, q.writes > 0, kinds.then_some(q.kind));
                if let Some(log) = local.log.borrow_mut().as_mut() {
                    logged += 1;
                    log.event(id, logged, Ended::Done, q.kind, corrected, lag_us, tried);
                }
                if hosts > 1 {
                    win.count_host(conn.host(), hosts);
                }
                if kinds {
                    win.record_kind(q.kind, corrected, q.rolled_back);
                }
            }
        }
        steps_buf = std::mem::take(&mut q.steps);
        steps_buf.clear();
        done += 1;
        if end >= warm_end && !failed {
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
pub(super) async fn renew(conn: &mut Conn, local: &Local, shared: &Shared, id: usize, tls: bool) -> bool {
    let began = Instant::now();
    if conn.reconnect().await.is_ok() {
        let mut win = local.window.borrow_mut();
        win.reconnects += 1;
        win.reconnect_us += began.elapsed().as_micros() as u64;
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
pub(super) async fn reconnect(conn: &mut Conn, local: &Local, shared: &Shared, id: usize) -> bool {
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

/// Waits until `flag` is set (polled: the flag is set from other threads).
pub(super) async fn until_set(flag: &AtomicBool) {
    while !flag.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether an event that just met a serialization failure or deadlock on try `tried` gets no
/// other: `--max-tries` reached, or (pgbench's rule) `--latency-limit` passed since it was due.
fn out_of_tries(p: &TryPolicy, tried: u32, due: Instant) -> bool {
    (p.max_tries > 0 && tried >= p.max_tries) || p.latency_limit.is_some_and(|l| due.elapsed() >= l)
}

/// `--verbose-errors`: the error, the client, the script and what happens next, as one line.
fn error_line(id: usize, e: &DbError, tried: u32, give_up: bool, kind: Option<&str>) -> String {
    let of = kind.map(|k| format!(" of {k}")).unwrap_or_default();
    let next = if give_up { "failed".to_string() } else { format!("try {} follows", tried + 1) };
    format!("client {id} got an error{of} on try {tried}: {e}; {next}")
}
