//! What a client and the writers behind it share during one step, and the
//! step's writers: the deleter that follows each client's inserts (l.i1,
//! l.i2 and the query steps) and the query steps' rate-limited inserter.
//! Each writer runs on a thread of its own with its own connection, as
//! iibench.py's inserter and deleter are processes of their own, so a
//! blocking engine (SQLite) never holds up the client it follows.

use super::sql;
use super::step::Step;
use super::Shape;
use crate::db::{Conn, ConnConfig};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How many batches an inserter and its deleter may get ahead of each
/// other (iibench.py's statement queues hold 8).
pub const QUEUE: u64 = 8;

/// How often a writer or client waiting on its lane looks whether the
/// step is over (the lane's moves wake it at once).
const STOP_LOOK: Duration = Duration::from_millis(20);

/// One client's lane: its inserts and deletes so far, in batches.
#[derive(Default)]
pub struct Lane {
    inserted: AtomicU64,
    deleted: AtomicU64,
    /// Woken at each insert and delete, for whoever waits on the other.
    moved: tokio::sync::Notify,
    /// The query step's writer has inserted all its rows: the client stops.
    pub done: AtomicBool,
    /// The lowest id left (the deleter's next), where point queries start.
    pub min_id: AtomicI64,
}

impl Lane {
    fn inserted(&self) -> u64 {
        self.inserted.load(Ordering::Acquire)
    }

    fn deleted(&self) -> u64 {
        self.deleted.load(Ordering::Acquire)
    }

    pub fn add_insert(&self) {
        self.inserted.fetch_add(1, Ordering::Release);
        self.moved.notify_waiters();
    }

    fn add_delete(&self) {
        self.deleted.fetch_add(1, Ordering::Release);
        self.moved.notify_waiters();
    }

    /// Inserts more than [`QUEUE`] batches ahead of the deletes.
    fn ahead(&self) -> bool {
        self.inserted() >= self.deleted() + QUEUE
    }

    /// Waits while `waiting` holds, woken by the lane's moves (a poll's
    /// sleep would add its own length to each wait, and the client's
    /// waits count in the step's time); false once `over` instead.
    async fn wait_while(&self, cur: &Current, over: fn(&Current) -> bool, waiting: impl Fn(&Lane) -> bool) -> bool {
        loop {
            let moved = self.moved.notified();
            tokio::pin!(moved);
            // Registered before the counts are read: a move in between still wakes it.
            moved.as_mut().enable();
            if !waiting(self) {
                return true;
            }
            if over(cur) {
                return false;
            }
            let _ = tokio::time::timeout(STOP_LOOK, moved).await;
        }
    }
}

/// One step as it runs.
pub struct Current {
    pub step: Step,
    pub lanes: Vec<Lane>,
    /// Batches each client (or a query step's writer) writes.
    pub batches: u64,
    /// Set once the clients are done: writers finish what matches them, then stop.
    pub stop: AtomicBool,
    /// A writer failed: the clients stop too (the step fails with its error).
    pub failed: AtomicBool,
}

impl Current {
    pub fn new(step: Step, clients: usize, batches: u64) -> Current {
        Current { step, lanes: (0..clients).map(|_| Lane::default()).collect(), batches, stop: AtomicBool::new(false), failed: AtomicBool::new(false) }
    }

    /// The clients are done: the writers finish what matches their
    /// inserts, then stop (those waiting on a lane are woken to see it).
    pub fn finish(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.wake_lanes();
    }

    fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
        self.wake_lanes();
    }

    /// Whoever waits on a lane looks again whether the step is over.
    fn wake_lanes(&self) {
        self.lanes.iter().for_each(|l| l.moved.notify_waiters());
    }

    pub fn stopping(&self) -> bool {
        self.over() || crate::model::interrupted()
    }

    /// The clients are done (or a writer failed). A deleter goes by this,
    /// not by Ctrl-C: the clients may still finish an insert after the
    /// signal, and each insert is matched before the step ends.
    fn over(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.failed.load(Ordering::Relaxed)
    }
}

/// What a writer did.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub rows_inserted: u64,
    pub rows_deleted: u64,
    /// The slowest statement, microseconds.
    pub max_us: u64,
}

pub type Writer = std::thread::JoinHandle<Result<Tally>>;

/// Starts a writer on its own thread and runtime; one that fails stops the step.
fn spawn<F>(name: String, cur: Arc<Current>, f: impl FnOnce() -> F + Send + 'static) -> Result<Writer>
where
    F: std::future::Future<Output = Result<Tally>>,
{
    std::thread::Builder::new()
        .name(name)
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
            let r = rt.block_on(f());
            if r.is_err() {
                cur.fail();
            }
            r
        })
        .map_err(|e| Error::Io(format!("cannot start a writer thread: {e}")))
}

async fn min_id(conn: &mut Conn, table: &str) -> Result<i64> {
    let sql = format!("SELECT MIN(transactionid) FROM {table}");
    let rows = conn.query_strings(&sql).await.map_err(crate::db::sql_error(&sql))?;
    Ok(rows.first().and_then(|r| r.first().cloned().flatten()).and_then(|v| v.trim().parse().ok()).unwrap_or(0))
}

/// The deleter of client `lane`: a delete of as many of the oldest rows
/// for each batch its inserter has written, never ahead of it (so a step
/// cut short leaves the tables their size) and never more than [`QUEUE`]
/// batches behind (the inserter waits); the lowest id read again every
/// 1000 deletes, as iibench.py does.
pub fn deleter(shape: Arc<Shape>, cfg: Arc<ConnConfig>, cur: Arc<Current>, lane: usize) -> Result<Writer> {
    spawn(format!("ibench-delete-{lane}"), cur.clone(), move || async move {
        let table = shape.table_of(lane).to_string();
        let batch = cur.step.batch();
        let mut conn = Conn::admin(&cfg).await?;
        let l = &cur.lanes[lane];
        let mut min = min_id(&mut conn, &table).await?;
        let mut t = Tally::default();
        let mut done = 0u64;
        while done < cur.batches {
            // Level with the inserts: wait for the next, unless they have ended.
            if !l.wait_while(&cur, Current::over, |l| done >= l.inserted()).await {
                conn.close().await;
                return Ok(t);
            }
            if done > 0 && done.is_multiple_of(1000) {
                min = min_id(&mut conn, &table).await?;
            }
            let sql = sql::delete_oldest(shape.dialect(), &table, min, batch);
            let t0 = Instant::now();
            conn.query(&sql).await.map_err(crate::db::sql_error(&sql))?;
            t.max_us = t.max_us.max(t0.elapsed().as_micros() as u64);
            min += batch as i64;
            l.min_id.store(min, Ordering::Relaxed);
            l.add_delete();
            t.rows_deleted += batch as u64;
            done += 1;
        }
        conn.close().await;
        Ok(t)
    })
}

/// iibench.py's pacing of a query step's writer: each second's batches at once, then a
/// wait to the second's end; a second that ran late is not caught up on (the next starts
/// when it ends). The last second is waited out too, so a step of N seconds at R rows a
/// second lasts N seconds, not N - 1 and a burst: its rate is what was asked.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    per_second: u64,
    second: Instant,
}

impl Pace {
    /// `rate` rows a second in batches of `batch`, the first second starting `now`.
    pub fn new(rate: u32, batch: u32, now: Instant) -> Pace {
        Pace { per_second: (rate as u64).div_ceil(batch as u64).max(1), second: now }
    }

    /// Before batch `n` (from 0), at `now`: the instant to wait for, if any.
    pub fn before(&mut self, n: u64, now: Instant) -> Option<Instant> {
        if n == 0 || !n.is_multiple_of(self.per_second) {
            return None;
        }
        let until = self.second + Duration::from_secs(1);
        // On time, the next second starts where this one ends, so waits do not add up
        // their wake-up delays; late, it starts now.
        self.second = until.max(now);
        (now < until).then_some(until)
    }

    /// After the last batch, at `now`: the end of its second, if still to come.
    pub fn end(&self, now: Instant) -> Option<Instant> {
        let until = self.second + Duration::from_secs(1);
        (now < until).then_some(until)
    }
}

/// Sleeps until `until` in slices, so that Ctrl-C (or the step's end) is seen within one.
async fn sleep_until(cur: &Current, until: Instant) {
    while Instant::now() < until && !cur.stopping() {
        tokio::time::sleep((until - Instant::now()).min(Duration::from_millis(50))).await;
    }
}

/// A query step's writer for client `lane`: batches of 50 rows at `rate`
/// rows a second, paced as iibench.py paces them ([`Pace`]).
pub fn inserter(shape: Arc<Shape>, cfg: Arc<ConnConfig>, cur: Arc<Current>, lane: usize, rate: u32) -> Result<Writer> {
    spawn(format!("ibench-insert-{lane}"), cur.clone(), move || async move {
        let table = shape.table_of(lane).to_string();
        let batch = cur.step.batch();
        let mut conn = Conn::admin(&cfg).await?;
        let l = &cur.lanes[lane];
        let mut rng = shape.rng(1_000 + lane as u64);
        let (mut sql_text, mut t) = (String::new(), Tally::default());
        let mut pace = Pace::new(rate, batch, Instant::now());
        let mut n = 0u64;
        while n < cur.batches && !cur.stopping() {
            if let Some(until) = pace.before(n, Instant::now()) {
                sleep_until(&cur, until).await;
            }
            if shape.deletes() {
                l.wait_while(&cur, Current::stopping, Lane::ahead).await;
            }
            // Stopped while waiting: a batch now would have no delete to match it.
            if cur.stopping() {
                break;
            }
            sql::insert_batch(&mut sql_text, &table, batch, &shape.args, &mut rng, &sql::timestamp());
            let t0 = Instant::now();
            conn.query(&sql_text).await.map_err(crate::db::sql_error("the writer's INSERT"))?;
            t.max_us = t.max_us.max(t0.elapsed().as_micros() as u64);
            l.add_insert();
            t.rows_inserted += batch as u64;
            n += 1;
        }
        if let Some(until) = pace.end(Instant::now()).filter(|_| n == cur.batches) {
            sleep_until(&cur, until).await;
        }
        l.done.store(true, Ordering::Release);
        conn.close().await;
        Ok(t)
    })
}

/// Waits for a client's inserts to be no more than [`QUEUE`] batches ahead
/// of its deletes; the microseconds waited, or None when the step is over.
pub async fn wait_for_deletes(cur: &Current, lane: usize) -> Option<u64> {
    let l = &cur.lanes[lane];
    let t0 = Instant::now();
    l.wait_while(cur, Current::stopping, Lane::ahead).await.then(|| t0.elapsed().as_micros() as u64)
}

/// Joins the writers; the first error, or what they did together.
pub fn join(writers: Vec<Writer>) -> Result<Tally> {
    let mut sum = Tally::default();
    let mut first_err = None;
    for w in writers {
        match w.join() {
            Ok(Ok(t)) => {
                sum.rows_inserted += t.rows_inserted;
                sum.rows_deleted += t.rows_deleted;
                sum.max_us = sum.max_us.max(t.max_us);
            }
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(_) => {
                first_err.get_or_insert(Error::Sql("a writer thread panicked".into()));
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(sum),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::sync::atomic::AtomicUsize;
    use std::task::{Context, Poll, Wake, Waker};

    /// Counts its wake-ups.
    struct Woken(AtomicUsize);

    impl Wake for Woken {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A client held back by its deleter was polled every millisecond, so
    /// each wait lasted at least the timer's tick, and counted in the step's
    /// time. Now the delete itself wakes it.
    #[test]
    fn a_client_waiting_on_its_deleter_is_woken_by_the_delete_not_by_a_timer() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let cur = Current::new(Step::Change { batch: 50 }, 1, 100);
            let lane = &cur.lanes[0];
            (0..QUEUE).for_each(|_| lane.add_insert());
            let woken = Arc::new(Woken(AtomicUsize::new(0)));
            let waker = Waker::from(woken.clone());
            let mut cx = Context::from_waker(&waker);
            let mut wait = std::pin::pin!(wait_for_deletes(&cur, 0));
            assert!(wait.as_mut().poll(&mut cx).is_pending(), "the inserts are a full queue ahead: the client waits");
            lane.add_delete();
            assert_eq!(woken.0.load(Ordering::SeqCst), 1, "the delete wakes the waiting client at once");
            assert!(matches!(wait.as_mut().poll(&mut cx), Poll::Ready(Some(_))), "one delete makes room: the client goes on");
        });
    }

    #[test]
    fn a_deleter_waiting_for_inserts_is_woken_when_the_step_finishes() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let cur = Current::new(Step::Change { batch: 50 }, 1, 100);
            let woken = Arc::new(Woken(AtomicUsize::new(0)));
            let waker = Waker::from(woken.clone());
            let mut cx = Context::from_waker(&waker);
            let lane = &cur.lanes[0];
            let mut wait = std::pin::pin!(lane.wait_while(&cur, Current::over, |l| l.inserted() == 0));
            assert!(wait.as_mut().poll(&mut cx).is_pending());
            cur.finish();
            assert_eq!(woken.0.load(Ordering::SeqCst), 1, "the step's end wakes the deleter at once");
            assert_eq!(wait.as_mut().poll(&mut cx), Poll::Ready(false), "nothing more to delete: it stops");
        });
    }

    /// A writer's whole step against a fake clock: `took(n)` is how long batch `n` takes;
    /// returns the step's length and the batch start times, in seconds.
    fn paced(rate: u32, batches: u64, took: impl Fn(u64) -> f64) -> (f64, Vec<f64>) {
        let t0 = Instant::now();
        let mut now = t0;
        let mut pace = Pace::new(rate, 50, now);
        let mut starts = Vec::new();
        for n in 0..batches {
            if let Some(until) = pace.before(n, now) {
                now = until;
            }
            starts.push((now - t0).as_secs_f64());
            now += Duration::from_secs_f64(took(n));
        }
        if let Some(until) = pace.end(now) {
            now = until;
        }
        ((now - t0).as_secs_f64(), starts)
    }

    // A step of 2 s at 100 rows a second ended after 1 s and a burst: its last
    // second's batches went out at once and nothing waited for that second's
    // end, so a newcomer saw 384 rows/s against a target of 200, "rate met".
    #[test]
    fn a_query_steps_writer_lasts_the_seconds_asked_at_the_rate_asked() {
        // 100 rows a second, 2 s: 4 batches of 50, two a second.
        let (secs, starts) = paced(100, 4, |_| 0.01);
        assert!((secs - 2.0).abs() < 1e-9, "{secs}");
        assert_eq!(starts.iter().map(|s| (s * 100.0).round() / 100.0).collect::<Vec<_>>(), [0.0, 0.01, 1.0, 1.01]);
        assert!((4.0 * 50.0 / secs - 100.0).abs() < 1e-6);
        // 1000 rows a second for 3 s: 20 batches a second, the rate exact.
        let (secs, _) = paced(1000, 60, |_| 0.002);
        assert!((secs - 3.0).abs() < 1e-9 && (60.0 * 50.0 / secs - 1000.0).abs() < 1e-6, "{secs}");
    }

    #[test]
    fn a_second_that_ran_late_is_not_caught_up_on() {
        // The first second's two batches take 0.7 s each: the second ends at 1.4 s, and the
        // next begins then, without a wait and without a burst to make up for it.
        let (secs, starts) = paced(100, 4, |n| if n < 2 { 0.7 } else { 0.01 });
        assert!((starts[2] - 1.4).abs() < 1e-9, "{starts:?}");
        assert!((secs - 2.4).abs() < 1e-9, "{secs}");
        // So the rate falls short of the target, as it should be reported.
        assert!(200.0 / secs < 0.95 * 100.0);
    }

    #[test]
    fn waits_on_time_do_not_add_up() {
        // Each wait overslept by 30 ms (a busy machine): the seconds still start on the
        // whole seconds, not 30 ms later each time.
        let t0 = Instant::now();
        let mut pace = Pace::new(50, 50, t0);
        let mut now = t0;
        for n in 1..=5u64 {
            let until = pace.before(n, now + Duration::from_millis(5)).expect("a wait");
            assert_eq!(until - t0, Duration::from_secs(n), "second {n}");
            now = until + Duration::from_millis(30);
        }
    }
}
