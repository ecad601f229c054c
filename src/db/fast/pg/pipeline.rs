//! Pipeline mode of the lean PostgreSQL client: statements queued and sent together, answered
//! in order.

use super::{lost, server_error, tag_rows, PgFast};
use crate::db::{DbError, DbResult, ErrKind, Param, Statement, StmtId};

/// Statements of a pipeline (pgbench's `\startpipeline` to `\endpipeline`): their Bind and
/// Execute messages queued without a Sync each, the Syncs `\syncpipeline` asks for between
/// them, all sent at its end and answered in order.
#[derive(Default)]
pub(super) struct Pipe {
    buf: Vec<u8>,
    /// Whether each queued statement returns rows, in order.
    rows: Vec<bool>,
    syncs: usize,
}

impl PgFast {
    /// Starts a pipeline: what an abandoned one queued is dropped.
    pub fn pipeline_start(&mut self) {
        self.pipe = Pipe::default();
    }

    /// Queues statement `id` in the pipeline. A statement this connection has not parsed yet
    /// is parsed first, on its own, as pgbench prepares a pipeline's statements before it
    /// enters pipeline mode.
    pub async fn pipeline_push(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>]) -> DbResult<()> {
        self.parsed(id, st, params).await?;
        let mut buf = std::mem::take(&mut self.pipe.buf);
        self.append_bind_execute(&mut buf, id, params);
        self.pipe.buf = buf;
        self.pipe.rows.push(st.returns_rows);
        Ok(())
    }

    /// `\syncpipeline`: the statements queued so far end their implicit transaction here.
    pub fn pipeline_sync(&mut self) {
        self.pipe.buf.extend_from_slice(&[b'S', 0, 0, 0, 4]);
        self.pipe.syncs += 1;
    }

    /// Sends the pipeline with a last Sync and reads every answer: (returns rows, rows
    /// affected) of each statement that completed, in order, or the first error. After an
    /// error the server skips the statements up to the next Sync, as in libpq's pipeline mode.
    pub async fn pipeline_end(&mut self) -> DbResult<Vec<(bool, u64)>> {
        self.pipeline_sync();
        let pipe = std::mem::take(&mut self.pipe);
        self.w.clear();
        self.w.extend_from_slice(&pipe.buf);
        self.request().await?;
        let mut done = Vec::with_capacity(pipe.rows.len());
        let mut err: Option<DbError> = None;
        let mut left = pipe.syncs;
        while left > 0 {
            let m = match self.buffered() {
                Some(m) => m,
                None => self.next().await.map_err(lost)?,
            };
            match m.ty {
                b'Z' => left -= 1,
                b'C' => {
                    let rows = pipe.rows.get(done.len()).copied().unwrap_or(false);
                    done.push((rows, tag_rows(&self.r.data[m.start..m.end])));
                }
                b'E' => {
                    let e = server_error(&self.r.data[m.start..m.end]);
                    if e.kind == ErrKind::ConnectionLost {
                        return Err(e);
                    }
                    err.get_or_insert(e);
                }
                _ => {}
            }
        }
        self.broken = false;
        match err {
            Some(e) => Err(e),
            None => Ok(done),
        }
    }
}
