//! A statement cancelled from another session when the run stops. An
//! analytic query runs for seconds or minutes: the run's end (its time, or
//! Ctrl-C) must not wait for it, nor leave it running on the server into
//! whatever is measured next. A thread beside the statement watches the
//! run's stop flag and, once it is set, sends the engine's cancel from a
//! connection of its own; the statement then fails on the server and its
//! connection stays usable, the protocol never cut in the middle.

use super::{Class, Conn, ConnConfig, DbError, DbResult, ErrKind, RowBuf, StatementSet};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the watcher looks at the stop flag: the run's end waits at most this for it.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// A flag never set: a connection outside a run has no Ctrl-C of its own to watch.
static NEVER: AtomicBool = AtomicBool::new(false);

/// The watcher of one statement: its state, which the statement's end and
/// the watcher each move once from `WATCHING` (whichever comes first wins).
struct Watch {
    state: Arc<AtomicU8>,
    thread: Option<std::thread::JoinHandle<()>>,
}

const WATCHING: u8 = 0;
/// The statement ended first: no cancel is sent.
const ENDED: u8 = 1;
/// The run stopped first: the watcher sends the cancel.
const CANCELLING: u8 = 2;

/// Where to send the cancel: the session's server and the statement that cancels.
struct Canceller {
    cfg: Arc<ConnConfig>,
    host: usize,
    client: usize,
    sql: String,
}

impl Watch {
    /// Watches until [`Watch::end`]; when the run stops first (`stop`, set
    /// by the client's worker; `interrupt`, by Ctrl-C; or its time,
    /// `deadline`, which the worker cannot tell while its only client
    /// blocks on the server), cancels with `c`.
    fn start(stop: Arc<AtomicBool>, interrupt: &'static AtomicBool, deadline: Option<Instant>, c: Canceller) -> Watch {
        let state = Arc::new(AtomicU8::new(WATCHING));
        let st = state.clone();
        let stopped = move || stop.load(Ordering::Relaxed) || interrupt.load(Ordering::Relaxed) || deadline.is_some_and(|t| Instant::now() >= t);
        let thread = std::thread::Builder::new()
            .name("fb-cancel".into())
            .spawn(move || {
                while !stopped() {
                    if st.load(Ordering::Acquire) == ENDED {
                        return;
                    }
                    std::thread::park_timeout(LOOK_EVERY);
                }
                if st.compare_exchange(WATCHING, CANCELLING, Ordering::AcqRel, Ordering::Acquire).is_err() {
                    return;
                }
                let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
                rt.block_on(async move {
                    // A session of its own, with nothing run on it.
                    if let Ok(mut side) = Conn::open_bare_on(c.cfg, Arc::new(StatementSet::default()), c.host, c.client).await {
                        let _ = side.query(&c.sql).await;
                        side.close().await;
                    }
                });
            })
            .ok();
        Watch { state, thread }
    }

    /// The statement has ended: whether the watcher cancelled it (then once
    /// its cancel has been sent, so that it cannot reach a later statement).
    fn end(mut self) -> bool {
        let Some(t) = self.thread.take() else { return false };
        if self.state.compare_exchange(WATCHING, ENDED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            t.thread().unpark();
            return false;
        }
        let _ = t.join();
        true
    }
}

impl Conn {
    /// [`Conn::query_into`], cancelled on the server once the run stops
    /// (its time is up, Ctrl-C): then an error of kind `Stopped`. Plain
    /// where no other session can cancel it (SQLite) or outside a run.
    pub async fn query_into_or_cancel(&mut self, sql: &str, out: &mut RowBuf) -> DbResult<Class> {
        let dialect = self.engine().dialect();
        let (Some(stop), Some(ask)) = (self.stop.clone(), dialect.session_id_query()) else {
            return self.query_into(sql, out).await;
        };
        let id = match self.session_id.clone() {
            Some(id) => id,
            None => {
                let rows = self.query_strings(ask).await?;
                let id = rows.into_iter().next().and_then(|r| r.into_iter().next().flatten()).unwrap_or_default();
                self.session_id = Some(id.clone());
                id
            }
        };
        let canceller = Canceller { cfg: self.cfg.clone(), host: self.host_index, client: self.client, sql: dialect.cancel_statement(&id) };
        let (deadline, interrupt) = self.ends.unwrap_or((None, &NEVER));
        let watch = Watch::start(stop, interrupt, deadline, canceller);
        let r = self.query_into(sql, out).await;
        // Always ended: a watcher left running would cancel a later statement.
        let cancelled = watch.end();
        match r {
            Err(e) if cancelled => Err(DbError { kind: ErrKind::Stopped, code: e.code, message: format!("cancelled as the run stopped: {}", e.message) }),
            r => r,
        }
    }
}
