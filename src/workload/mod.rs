//! Workloads. A workload is a small set of operations (go-tpc style):
//! prepare, one event per call, cleanup, prewarm. The runner never names a
//! workload; adding one is a module here plus one line in [`family`].

pub mod dialect;
pub mod oltp;

use crate::target::{Class, Conn, DbResult, StatementSet};
use std::future::Future;
use std::sync::Arc;

/// Query counts of one event, classified like sysbench.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    /// BEGIN/COMMIT/ROLLBACK among `other`.
    pub trx: u64,
}

impl Counters {
    #[inline]
    pub fn add(&mut self, c: Class) {
        match c {
            Class::Read => self.reads += 1,
            Class::Write => self.writes += 1,
            Class::Other => self.other += 1,
        }
    }
}

/// What the runner needs from a workload.
pub trait Workload: Send + Sync + 'static {
    /// Per-client state: RNG, assigned table, buffers.
    type Client: 'static;

    fn statements(&self) -> Arc<StatementSet>;

    /// State for client `id` of `clients`, with its own RNG stream.
    fn new_client(&self, id: usize, clients: usize) -> Self::Client;

    /// Run one event. `retry` is true when the previous attempt failed with
    /// a retryable error (so the workload can replay the same keys).
    fn event(&self, conn: &mut Conn, c: &mut Self::Client, q: &mut Counters, retry: bool) -> impl Future<Output = DbResult<()>>;

    /// Called after a retryable error inside an event (roll back if a
    /// transaction is open).
    fn after_error(&self, conn: &mut Conn, c: &mut Self::Client) -> impl Future<Output = ()>;

    /// Events between reconnects (0: never), per client.
    fn reconnect_every(&self) -> u64 {
        0
    }
}
