//! `--idle-clients N`: connections opened before the first level and held idle beside the
//! active clients until the run ends, as an application's pool keeps most of its connections
//! waiting. They live on a thread of their own, whose runtime keeps their sockets; what they
//! cost the client is measured as its resident memory before and after they opened.

use crate::db::{Conn, ConnConfig, StatementSet};
use crate::error::{Error, Result};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Connections opened at once: enough to open thousands in seconds, few enough that a server
/// or pooler with a small listen backlog is not flooded.
const AT_ONCE: usize = 32;

/// How long a batch of connections may wait for the server.
const BATCH_WAIT: Duration = Duration::from_secs(20);

/// The idle connections, closed when dropped.
pub struct IdleClients {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    pub opened: usize,
    pub took: Duration,
    /// The client's resident memory they added, in KiB (None where /proc does not say).
    pub added_kib: Option<u64>,
}

impl IdleClients {
    /// The line the run prints once they are open.
    pub fn line(&self) -> String {
        let memory = match self.added_kib {
            Some(kib) => format!("; client memory +{:.1} MiB, {:.1} KiB per connection", kib as f64 / 1024.0, kib as f64 / self.opened.max(1) as f64),
            None => String::new(),
        };
        format!("Idle clients: {} connections open and idle beside the active ones (opened in {:.2} s{memory})", self.opened, self.took.as_secs_f64())
    }

    /// The same as one JSON line (`"type": "idle_clients"`), for `--output json`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "idle_clients",
            "connections": self.opened,
            "open_s": self.took.as_secs_f64(),
            "client_memory_kib": self.added_kib,
            "kib_per_connection": self.added_kib.map(|k| k as f64 / self.opened.max(1) as f64),
        })
    }
}

impl Drop for IdleClients {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The client's memory in KiB, as the run's samples read it.
fn memory_kib() -> Option<u64> {
    crate::env::proc::own_memory().map(|b| b as u64 / 1024)
}

/// Opens `n` connections to `cfg`'s target and holds them. The first that fails ends the run
/// before it starts, with what the server said; Ctrl-C stops the opening.
pub fn open(cfg: &Arc<ConnConfig>, n: usize) -> Result<IdleClients> {
    let before = memory_kib();
    let began = Instant::now();
    let (done_tx, done_rx) = mpsc::channel::<Result<usize>>();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let cfg = cfg.clone();
    let thread = std::thread::Builder::new()
        .name("fb-idle-clients".into())
        .spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
                let _ = done_tx.send(Err(Error::Io("cannot start a runtime for the idle clients".into())));
                return;
            };
            rt.block_on(async move {
                let set = Arc::new(StatementSet::default());
                let mut held: Vec<Conn> = Vec::with_capacity(n);
                while held.len() < n {
                    if crate::model::interrupted() {
                        let _ = done_tx.send(Err(Error::Interrupted));
                        return;
                    }
                    let batch = (n - held.len()).min(AT_ONCE);
                    let first = held.len();
                    let connecting = futures_util::future::join_all((0..batch).map(|k| Conn::connect(cfg.clone(), set.clone(), first + k)));
                    tokio::pin!(connecting);
                    let deadline = Instant::now() + BATCH_WAIT;
                    // A server that stops accepting (its connection or file limit) would keep
                    // these waiting for ever: the batch has a deadline, and Ctrl-C ends it.
                    let answered = loop {
                        tokio::select! {
                            r = &mut connecting => break r,
                            _ = tokio::time::sleep(Duration::from_millis(100)) => {
                                if crate::model::interrupted() {
                                    let _ = done_tx.send(Err(Error::Interrupted));
                                    return;
                                }
                                if Instant::now() >= deadline {
                                    let _ = done_tx.send(Err(Error::Connect(format!(
                                        "idle clients: {first} connected, then {batch} more got no answer within {} s: the server (or pooler) takes no more connections (its max_connections / max_client_conn, or its open files limit)",
                                        BATCH_WAIT.as_secs()
                                    ))));
                                    return;
                                }
                            }
                        }
                    };
                    for (k, r) in answered.into_iter().enumerate() {
                        match r {
                            Ok(c) => held.push(c),
                            Err(e) => {
                                let _ = done_tx.send(Err(Error::Connect(format!("idle client {}: {e}", first + k + 1))));
                                return;
                            }
                        }
                    }
                }
                let _ = done_tx.send(Ok(held.len()));
                let _ = stop_rx.await;
                for c in held {
                    c.close().await;
                }
            });
        })
        .map_err(|e| Error::Io(format!("cannot start the idle clients' thread: {e}")))?;
    let mut idle = IdleClients { stop: Some(stop_tx), thread: Some(thread), opened: 0, took: Duration::ZERO, added_kib: None };
    match done_rx.recv() {
        Ok(Ok(k)) => {
            idle.opened = k;
            idle.took = began.elapsed();
            idle.added_kib = memory_kib().zip(before).map(|(a, b)| a.saturating_sub(b));
            Ok(idle)
        }
        Ok(Err(e)) => Err(e),
        Err(_) => Err(Error::Io("the idle clients' thread ended before it said how many it opened".into())),
    }
}
