//! Whether a pooler answers instead of the server, and whether it keeps named statements across
//! its server connections: asked once per address of a run, then known.

use super::{begin, cstr, finish, PgFast, RowsOut};
use crate::db::{ConnConfig, DbError, DbResult, ErrKind};

/// A pooler between client and server: the process id of the cancel key
/// the connection received, the server process that answered, and whether
/// the pooler keeps named statements across its server connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pooler {
    pub key_pid: i32,
    pub backend_pid: i32,
    pub keeps_statements: bool,
}

impl PgFast {
    /// The pooler in front of the server at this connection's address: asked by the run's first
    /// connection there, then taken from what it found (`ConnConfig::poolers`), so that the
    /// clients' connections and every reconnection under `-C` cost the server no extra query.
    pub(super) async fn pooler_of(&mut self, cfg: &ConnConfig, host_index: usize, key_pid: Option<i32>) -> DbResult<Option<Pooler>> {
        let t = &cfg.target;
        let at = match &t.socket {
            Some(dir) => format!("{dir}/.s.PGSQL.{} {} {}", t.hosts.first().map(|h| h.1).unwrap_or(5432), t.user, t.database),
            None => {
                let (h, p) = t.host_for(host_index);
                format!("{h}:{p} {} {}", t.user, t.database)
            }
        };
        let known = cfg.poolers.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|(k, _)| *k == at).map(|(_, v)| *v);
        if let Some(v) = known {
            return Ok(v);
        }
        let v = self.find_pooler(key_pid).await?;
        cfg.poolers.lock().unwrap_or_else(|e| e.into_inner()).push((at, v));
        Ok(v)
    }

    /// A server's cancel key carries the process id of the session's
    /// backend, which is what `pg_backend_pid()` returns; a pooler hands
    /// out keys of its own (pgbouncer: random), so the two differ. Other
    /// signs are weaker: the server port differs behind any port mapping,
    /// and pgbouncer passes `SHOW` and `application_name` through.
    async fn find_pooler(&mut self, key_pid: Option<i32>) -> DbResult<Option<Pooler>> {
        let Some(key_pid) = key_pid else { return Ok(None) };
        let rows = self.query_rows("SELECT pg_backend_pid()").await.map_err(|e| DbError { kind: ErrKind::Connect, ..e })?;
        let backend_pid = rows.first().and_then(|r| r.first()).and_then(|v| v.as_deref()).and_then(|v| v.parse::<i32>().ok());
        Ok(match backend_pid {
            Some(backend_pid) if backend_pid != key_pid => Some(Pooler { key_pid, backend_pid, keeps_statements: self.keeps_statements().await? }),
            _ => None,
        })
    }

    /// Whether the pooler keeps protocol-level named statements across its
    /// server connections (pgbouncer 1.21 and later, max_prepared_statements):
    /// such a pooler prepares a client's statement on the server under a name
    /// of its own, where one that passes statements through leaves the
    /// client's name, which the next transaction's server connection may
    /// lack. One round trip in a single Sync, so on one server connection in
    /// every pool mode, and the probe is closed in it: nothing is left behind.
    async fn keeps_statements(&mut self) -> DbResult<bool> {
        const NAME: &[u8] = b"fairbench_pooler_probe";
        let w = &mut self.w;
        w.clear();
        for (name, sql) in [(NAME, "SELECT 'fairbench pooler probe'"), (b"".as_slice(), "SELECT name FROM pg_prepared_statements WHERE statement = 'SELECT ''fairbench pooler probe'''")] {
            let at = begin(w, b'P');
            cstr(w, name);
            cstr(w, sql.as_bytes());
            w.extend_from_slice(&0i16.to_be_bytes());
            finish(w, at);
        }
        // Bind of the unnamed statement: unnamed portal, no parameters, text results.
        let at = begin(w, b'B');
        w.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
        finish(w, at);
        w.extend_from_slice(&[b'E', 0, 0, 0, 9, 0, 0, 0, 0, 0]);
        let at = begin(w, b'C');
        w.push(b'S');
        cstr(w, NAME);
        finish(w, at);
        w.extend_from_slice(&[b'S', 0, 0, 0, 4]);
        self.request().await?;
        let mut rows = Vec::new();
        match self.finish_request(Some(RowsOut::Text(&mut rows, None))).await {
            Ok(_) => {}
            Err(e) if e.kind == ErrKind::ConnectionLost => return Err(e),
            // A pooler that refuses the probe keeps nothing for us either.
            Err(_) => return Ok(false),
        }
        Ok(rows.first().and_then(|r| r.first()).and_then(|v| v.as_deref()).is_some_and(|n| n.as_bytes() != NAME))
    }

    /// Statements go named (prepared once per connection): to the server
    /// itself, or through a pooler that keeps them.
    pub(super) fn named(&self) -> bool {
        self.pooler.is_none_or(|p| p.keeps_statements)
    }

    /// The pooler in front of the server, if one answered this connection.
    pub fn pooler(&self) -> Option<Pooler> {
        self.pooler
    }
}
