//! The ten operations of the request phase, each as LinkBench's MySQL
//! store runs it (or in Java's statement shape), and the transaction
//! around them.

use super::*;
use crate::db::{Class, Conn, DbError, DbResult, ErrKind, Param, StmtId};

impl LinkBench {
    async fn begin(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters) -> DbResult<()> {
        c.in_trx = true;
        q.add(conn.exec(self.begin, &[]).await?);
        q.trx += 1;
        Ok(())
    }

    async fn commit(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters) -> DbResult<()> {
        q.add(conn.exec(self.commit, &[]).await?);
        q.trx += 1;
        c.in_trx = false;
        Ok(())
    }

    /// ADD_LINK and UPDATE_LINK: one transaction that inserts the link or
    /// rewrites it, and counts it when it becomes visible.
    async fn add_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts, p: f64) -> DbResult<()> {
        let (id1, t, id2) = self.written_link(c, p);
        self.link_data(c);
        let now = now_ms();
        self.begin(conn, c, q).await?;
        let rows = conn.exec_rows(st.select_vis, &[Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?;
        q.add(Class::Read);
        let visible_before = match rows.first() {
            None => {
                q.add(conn.exec(st.insert_link, &[Param::Int(id1), Param::Int(id2), Param::Int(t), Param::Text(&c.text), Param::Int(now)]).await?);
                false
            }
            Some(r) => {
                q.add(conn.exec(st.update_link, &[Param::Text(&c.text), Param::Int(now), Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?);
                r.first().cloned().flatten().is_some_and(|v| v.trim() == "1")
            }
        };
        if !visible_before {
            q.add(conn.exec(st.count_add, &[Param::Int(id1), Param::Int(t), Param::Int(1), Param::Int(now), Param::Int(1), Param::Int(now)]).await?);
        }
        self.commit(conn, c, q).await
    }

    /// DELETE_LINK: hides a visible link (LinkBench's driver never
    /// expunges) and takes it off the count.
    async fn delete_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts) -> DbResult<()> {
        let (id1, t, id2) = self.written_link(c, P_DELETE_EXIST);
        let now = now_ms();
        self.begin(conn, c, q).await?;
        let rows = conn.exec_rows(st.select_vis, &[Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?;
        q.add(Class::Read);
        let visible = rows.first().and_then(|r| r.first().cloned().flatten()).is_some_and(|v| v.trim() == "1");
        if visible {
            q.add(conn.exec(st.hide_link, &[Param::Int(now), Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?);
            q.add(conn.exec(st.count_dec, &[Param::Int(now), Param::Int(id1), Param::Int(t)]).await?);
        }
        self.commit(conn, c, q).await
    }

    async fn count_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts) -> DbResult<()> {
        let id1 = self.link_id1(c, false) as i64;
        let t = self.link_type(c);
        q.add(conn.exec(st.count_get, &[Param::Int(id1), Param::Int(t)]).await?);
        Ok(())
    }

    async fn multiget_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts) -> DbResult<()> {
        let id1 = self.link_id1(c, false);
        let t = self.link_type(c);
        let (p, min, max) = self.cfg.multiget;
        let k = dist::geometric(&mut c.rng, p, min, max).min(self.cfg.multiget.2);
        c.params.clear();
        c.params.push(id1 as i64);
        c.params.push(t);
        for _ in 0..k {
            let id2 = self.id2(c, id1, t, P_GET_EXIST);
            c.params.push(id2);
        }
        let params: Vec<Param<'_>> = c.params.iter().map(|&v| Param::Int(v)).collect();
        q.add(conn.exec(StmtId(st.multiget0 + k as u32 - 1), &params).await?);
        Ok(())
    }

    /// GET_LINKS_LIST: the newest visible links of (id1, type), up to
    /// LinkBench's page of 10000; a share `getlinklist_history` of them
    /// pages on through a list whose first page came back full.
    async fn get_links_list(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts) -> DbResult<()> {
        let history = !c.history.is_empty() && c.rng.uniform_double() * 100.0 < self.cfg.history_pct;
        let (id1, t, max_time, stmt, slot) = if history {
            let i = c.rng.uniform(0, c.history.len() as u64 - 1) as usize;
            let (id1, t, last) = c.history[i];
            (id1, t, last, st.range_history, Some(i))
        } else {
            let id1 = self.link_id1(c, false) as i64;
            let t = self.link_type(c);
            (id1, t, i64::MAX, st.range, None)
        };
        let rows = conn.exec_rows(stmt, &[Param::Int(id1), Param::Int(t), Param::Int(max_time)]).await?;
        q.add(Class::Read);
        let full = rows.len() >= RANGE_LIMIT;
        let last = rows.last().and_then(|r| r.get(5).cloned().flatten()).and_then(|s| s.trim().parse::<i64>().ok());
        match (slot, full, last) {
            (Some(i), true, Some(l)) => c.history[i].2 = l,
            (Some(i), _, _) => {
                c.history.swap_remove(i);
            }
            (None, true, Some(l)) if c.history.len() < HISTORY_CACHE => c.history.push((id1, t, l)),
            (None, true, Some(l)) => {
                let i = c.rng.uniform(0, HISTORY_CACHE as u64 - 1) as usize;
                c.history[i] = (id1, t, l);
            }
            _ => {}
        }
        Ok(())
    }

    async fn node_op(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts, kind: usize) -> DbResult<()> {
        let now = now_s();
        match kind {
            ADD_NODE => {
                self.node_data(c);
                self.begin(conn, c, q).await?;
                q.add(conn.exec(st.add_node, &[Param::Int(now), Param::Text(&c.text)]).await?);
                self.commit(conn, c, q).await
            }
            UPDATE_NODE => {
                let id = self.node_id(c, kind) as i64;
                self.node_data(c);
                self.begin(conn, c, q).await?;
                q.add(conn.exec(st.update_node, &[Param::Int(now), Param::Text(&c.text), Param::Int(id), Param::Int(DEFAULT_NODE_TYPE)]).await?);
                self.commit(conn, c, q).await
            }
            DELETE_NODE => {
                let id = self.node_id(c, kind) as i64;
                self.begin(conn, c, q).await?;
                q.add(conn.exec(st.delete_node, &[Param::Int(id), Param::Int(DEFAULT_NODE_TYPE)]).await?);
                self.commit(conn, c, q).await
            }
            _ => {
                let id = self.node_id(c, kind) as i64;
                conn.exec_rows(st.get_node, &[Param::Int(id)]).await?;
                q.add(Class::Read);
                Ok(())
            }
        }
    }

    pub(super) async fn op(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, kind: usize) -> DbResult<()> {
        let st = self.st[c.db];
        if self.cfg.shape == Shape::Java {
            let j = &self.java[c.db];
            return match kind {
                ADD_LINK => self.java_add_link(conn, c, q, j, P_ADD_EXIST).await,
                UPDATE_LINK => self.java_add_link(conn, c, q, j, P_UPDATE_EXIST).await,
                DELETE_LINK => self.java_delete_link(conn, c, q, &st, j).await,
                ADD_NODE | UPDATE_NODE | DELETE_NODE => self.java_node_write(conn, c, q, j, kind).await,
                COUNT_LINK => self.count_link(conn, c, q, &st).await,
                MULTIGET_LINK => self.multiget_link(conn, c, q, &st).await,
                GET_LINKS_LIST => self.get_links_list(conn, c, q, &st).await,
                _ => self.node_op(conn, c, q, &st, kind).await,
            };
        }
        match kind {
            ADD_LINK => self.add_link(conn, c, q, &st, P_ADD_EXIST).await,
            UPDATE_LINK => self.add_link(conn, c, q, &st, P_UPDATE_EXIST).await,
            DELETE_LINK => self.delete_link(conn, c, q, &st).await,
            COUNT_LINK => self.count_link(conn, c, q, &st).await,
            MULTIGET_LINK => self.multiget_link(conn, c, q, &st).await,
            GET_LINKS_LIST => self.get_links_list(conn, c, q, &st).await,
            _ => self.node_op(conn, c, q, &st, kind).await,
        }
    }

    /// Java's shape: the connection's autocommit goes off once, as Java
    /// LinkBench's write connection has it, so a write's first statement
    /// opens its transaction and no BEGIN is sent. Java reads on a second
    /// connection with autocommit on; here a read runs on the same
    /// connection, inside the transaction the next write's COMMIT ends.
    pub(super) async fn java_session(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters) -> DbResult<()> {
        if !c.autocommit_off {
            q.add(conn.query("SET autocommit = 0").await?);
            c.autocommit_off = true;
        }
        c.in_trx = true;
        Ok(())
    }

    /// ADD_LINK and UPDATE_LINK as Java's addLink sends them: INSERT ...
    /// ON DUPLICATE KEY UPDATE visibility, then, in one query with the
    /// COMMIT, the count for a link that became visible or the new data
    /// for one that was visible already. A hidden link shown again takes
    /// the count query only: without the affected-row count (2 there, 1
    /// for a new link) it looks like a new link, so its old data stays
    /// where Java rewrites it in a third round trip.
    async fn java_add_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, j: &JavaStmts, p: f64) -> DbResult<()> {
        let (id1, t, id2) = self.written_link(c, p);
        self.link_data(c);
        let now = now_ms();
        self.java_session(conn, c, q).await?;
        let class = conn.exec(j.add_link, &[Param::Int(id1), Param::Int(id2), Param::Int(t), Param::Text(&c.text), Param::Int(now)]).await?;
        q.add(class);
        if class == Class::Write {
            java_commit(conn, &mut c.sql, &j.count_add, &[Param::Int(id1), Param::Int(t), Param::Int(now), Param::Int(now)]).await?;
        } else {
            java_commit(conn, &mut c.sql, &j.update_link, &[Param::Text(&c.text), Param::Int(now), Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?;
        }
        q.add(Class::Write);
        q.add(Class::Other);
        q.trx += 1;
        c.in_trx = false;
        Ok(())
    }

    /// DELETE_LINK as Java's deleteLink sends it: SELECT ... FOR UPDATE,
    /// and for a visible link the hiding UPDATE and the count, then COMMIT,
    /// each on its own.
    async fn java_delete_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts, j: &JavaStmts) -> DbResult<()> {
        let (id1, t, id2) = self.written_link(c, P_DELETE_EXIST);
        let now = now_ms();
        self.java_session(conn, c, q).await?;
        let rows = conn.exec_rows(st.select_vis, &[Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?;
        q.add(Class::Read);
        let visible = rows.first().and_then(|r| r.first().cloned().flatten()).is_some_and(|v| v.trim() != "0");
        if visible {
            q.add(conn.exec(j.hide_link, &[Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?);
            q.add(conn.exec(j.count_dec, &[Param::Int(id1), Param::Int(t), Param::Int(now), Param::Int(now)]).await?);
        }
        self.commit(conn, c, q).await
    }

    /// ADD_NODE, UPDATE_NODE and DELETE_NODE as Java's node store sends
    /// them: the statement and its COMMIT in one query.
    async fn java_node_write(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, j: &JavaStmts, kind: usize) -> DbResult<()> {
        let now = now_s();
        let id = if kind == ADD_NODE { 0 } else { self.node_id(c, kind) as i64 };
        if kind != DELETE_NODE {
            self.node_data(c);
        }
        self.java_session(conn, c, q).await?;
        let ty = Param::Int(DEFAULT_NODE_TYPE);
        match kind {
            ADD_NODE => java_commit(conn, &mut c.sql, &j.add_node, &[Param::Int(now), Param::Text(&c.text)]).await?,
            UPDATE_NODE => java_commit(conn, &mut c.sql, &j.update_node, &[Param::Int(now), Param::Text(&c.text), Param::Int(id), ty]).await?,
            _ => java_commit(conn, &mut c.sql, &j.delete_node, &[Param::Int(id), ty]).await?,
        }
        q.add(Class::Write);
        q.add(Class::Other);
        q.trx += 1;
        c.in_trx = false;
        Ok(())
    }

    pub(super) async fn rollback(&self, conn: &mut Conn, c: &mut LinkBenchClient) {
        // With autocommit off a read opens a transaction too.
        if c.in_trx || c.autocommit_off {
            let _ = conn.query("ROLLBACK").await;
            c.in_trx = false;
        }
    }
}

/// Java's shape: `template` with its values and the COMMIT after it, one
/// query and so one round trip, as Java appends "; commit;" to a write's
/// last statement.
pub(super) async fn java_commit(conn: &mut Conn, sql: &mut String, template: &str, params: &[Param<'_>]) -> DbResult<()> {
    crate::db::interpolate(template, params, sql, true);
    conn.query(sql).await?;
    Ok(())
}

/// Conflicts LinkBench retries: deadlocks, lock wait timeouts,
/// serialization failures, and the duplicate key two adds of one absent
/// link race into.
pub(super) fn conflict(e: &DbError) -> bool {
    e.kind == ErrKind::Retryable || ["1213", "1205", "1062", "40001", "40P01", "23505", "SQLITE_BUSY"].contains(&e.code.as_str())
}

pub(super) fn fill_text(c: &mut LinkBenchClient, len: usize, unique: f64) {
    dist::fill_payload(&mut c.rng, &mut c.data, len, unique);
    c.text.clear();
    // fill_payload writes printable ASCII only.
    c.text.extend(c.data.iter().map(|&b| b as char));
}
