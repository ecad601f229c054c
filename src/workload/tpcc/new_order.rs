//! New-Order (TPC-C 2.4): an order of 5..15 lines, 1% rolled back on an unused item.

use super::batched::Line;
use super::{cents, int, missing, Stmts, Tpcc, TpccClient};
use crate::db::{Conn, DbResult, Param};
use crate::rand::nurand;
use crate::workload::{witness, Counters};

impl Tpcc {
    pub(super) async fn new_order(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, ds: u32, w: u32) -> DbResult<()> {
        let st = &self.st[ds as usize - 1];
        let r = &mut c.rng;
        let d = r.uniform(1, 10) as i64;
        let cid = nurand(r, 1023, self.c_id, 1, 3000) as i64;
        let ol_cnt = r.uniform(5, 15) as usize;
        let rbk = r.uniform(1, 100) == 1;
        let mut lines: Vec<Line> = Vec::with_capacity(ol_cnt);
        let mut all_local = 1;
        for n in 0..ol_cnt {
            let mut item = if rbk && n == ol_cnt - 1 { 100_001 } else { nurand(r, 8191, self.c_ol, 1, 100_000) as i64 };
            // Lists name each item once: go-tpc draws an order's items distinct, and a
            // set-based routine updates a stock row once however often the list names it.
            while st.batched.is_some() | st.calls.is_some() && lines.iter().any(|l| l.0 == item) {
                item = nurand(r, 8191, self.c_ol, 1, 100_000) as i64;
            }
            let supply = if self.warehouses > 1 && r.uniform(1, 100) == 1 { self.other_warehouse(r, w) } else { w };
            if supply != w {
                all_local = 0;
            }
            lines.push((item, supply as i64, r.uniform(1, 10) as i64));
        }
        let w = w as i64;
        if let Some(p) = &st.calls {
            return self.new_order_call(conn, c, q, p, ds, w, d, cid, all_local, &lines).await;
        }
        self.begin(conn, c, q, true).await?;
        self.rows(conn, q, st.no_cust_wh, &[Param::Int(w), Param::Int(d), Param::Int(cid)]).await?;
        let dist = self.rows(conn, q, st.no_dist, &[Param::Int(w), Param::Int(d)]).await?;
        let o_id = dist.first().and_then(|r| int(&r[0])).ok_or_else(|| missing("district", w, d))?;
        if let Some(r) = &mut c.rec {
            r.write(Some([ds as i64, w, d, o_id]), 0);
        }
        self.x(conn, q, st.no_dist_upd, &[Param::Int(o_id + 1), Param::Int(w), Param::Int(d)]).await?;
        self.x(conn, q, st.no_ord_ins, &[Param::Int(o_id), Param::Int(d), Param::Int(w), Param::Int(cid), Param::Int(ol_cnt as i64), Param::Int(all_local)]).await?;
        self.x(conn, q, st.no_new_ins, &[Param::Int(o_id), Param::Int(d), Param::Int(w)]).await?;
        let written = match &st.batched {
            Some(b) => self.lines_batched(conn, q, b, st, d, w, o_id, &lines).await?,
            None => self.lines_per_item(conn, q, st, d, w, o_id, &lines).await?,
        };
        if !written {
            // The unused item number: TPC-C's 1% of New-Orders that roll back.
            self.end(conn, c, q, false).await?;
            q.rolled_back = true;
            // Rolled back on purpose: nothing to verify.
            if let Some(r) = &mut c.rec {
                r.settle();
            }
            return Ok(());
        }
        if let Some(r) = &mut c.rec {
            r.commit_sent();
        }
        let ended = self.end(conn, c, q, true).await;
        witness::committed(&mut c.rec, ended)?;
        if let Some(log) = self.commits.get() {
            log.committed(ds, w, d, o_id);
        }
        if let Some(r) = &mut c.rec {
            r.acknowledged();
        }
        Ok(())
    }

    /// The order's lines as sysbench-tpcc sends them: each item read, its stock read and
    /// updated, its line inserted, by statements of their own. False: an item is unused.
    #[allow(clippy::too_many_arguments)]
    async fn lines_per_item(&self, conn: &mut Conn, q: &mut Counters, st: &Stmts, d: i64, w: i64, o_id: i64, lines: &[Line]) -> DbResult<bool> {
        for (n, &(item, supply, qty)) in lines.iter().enumerate() {
            let it = self.rows(conn, q, st.no_item, &[Param::Int(item)]).await?;
            let Some(it) = it.first() else { return Ok(false) };
            let price = cents(&it[0]);
            let s = self.rows(conn, q, st.no_stock[d as usize - 1], &[Param::Int(item), Param::Int(supply)]).await?;
            let s = s.first().ok_or_else(|| missing("stock", supply, item))?;
            let s_qty = int(&s[0]).unwrap_or(0);
            let new_qty = if s_qty >= qty + 10 { s_qty - qty } else { s_qty - qty + 91 };
            let dist_info = s[2].clone().unwrap_or_default();
            self.x(conn, q, st.no_stock_upd, &[Param::Int(new_qty), Param::Int(qty), Param::Int(i64::from(supply != w)), Param::Int(item), Param::Int(supply)]).await?;
            self.x(
                conn,
                q,
                st.no_ol_ins,
                &[Param::Int(o_id), Param::Int(d), Param::Int(w), Param::Int(n as i64 + 1), Param::Int(item), Param::Int(supply), Param::Int(qty), Param::Int(qty * price), Param::Text(&dist_info)],
            )
            .await?;
        }
        Ok(true)
    }

    /// `--verify-writes`: which of the New-Orders `keys` ((dataset,
    /// warehouse, district, order id)) have their orders row, read per
    /// district in batches.
    pub(super) async fn orders_present(&self, conn: &mut Conn, keys: &[crate::workload::witness::Key]) -> DbResult<crate::workload::witness::Found> {
        let mut by_district: std::collections::BTreeMap<(i64, i64, i64), Vec<i64>> = std::collections::BTreeMap::new();
        for k in keys {
            by_district.entry((k[0], k[1], k[2])).or_default().push(k[3]);
        }
        let mut found = crate::workload::witness::Found::new();
        for ((ds, w, d), ids) in by_district {
            let Some(names) = self.names.get((ds - 1).max(0) as usize) else { continue };
            for chunk in ids.chunks(500) {
                let list = chunk.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
                let sql = format!("SELECT o_id FROM {} WHERE o_w_id = {w} AND o_d_id = {d} AND o_id IN ({list})", names.orders);
                for row in conn.query_strings(&sql).await? {
                    if let Some(o) = row.first().cloned().flatten().and_then(|v| v.trim().parse::<i64>().ok()) {
                        found.insert([ds, w, d, o], 0);
                    }
                }
            }
        }
        Ok(found)
    }
}
