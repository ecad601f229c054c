//! Delivery (TPC-C 2.7): the oldest undelivered order of each of the ten districts.

use super::{cents, int, missing, Tpcc, TpccClient};
use crate::db::{Class, Conn, DbResult, Param};
use crate::workload::Counters;

impl Tpcc {
    pub(super) async fn delivery(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, ds: u32, w: u32) -> DbResult<()> {
        let st = &self.st[ds as usize - 1];
        let carrier = c.rng.uniform(1, 10) as i64;
        let w = w as i64;
        if let Some(p) = &st.calls {
            return self.call(conn, q, p.delivery, &[Param::Int(w), Param::Int(carrier)], Class::Write).await.map(drop);
        }
        self.begin(conn, c, q, true).await?;
        if let Some(b) = &st.batched {
            self.delivery_batched(conn, q, b, st, w, carrier).await?;
            return self.end(conn, c, q, true).await;
        }
        for d in 1..=10i64 {
            let no = self.rows(conn, q, st.dl_no_sel, &[Param::Int(w), Param::Int(d)]).await?;
            let Some(o_id) = no.first().and_then(|r| int(&r[0])) else { continue };
            // Another Delivery may have taken this order first (no locking read).
            if self.x(conn, q, st.dl_no_del, &[Param::Int(w), Param::Int(d), Param::Int(o_id)]).await? != crate::db::Class::Write {
                continue;
            }
            let o = self.rows(conn, q, st.dl_o_sel, &[Param::Int(w), Param::Int(d), Param::Int(o_id)]).await?;
            let c_id = o.first().and_then(|r| int(&r[0])).ok_or_else(|| missing("order", w, o_id))?;
            self.x(conn, q, st.dl_o_upd, &[Param::Int(carrier), Param::Int(w), Param::Int(d), Param::Int(o_id)]).await?;
            self.x(conn, q, st.dl_ol_upd, &[Param::Int(w), Param::Int(d), Param::Int(o_id)]).await?;
            let s = self.rows(conn, q, st.dl_ol_sum, &[Param::Int(w), Param::Int(d), Param::Int(o_id)]).await?;
            let total = s.first().map(|r| cents(&r[0])).unwrap_or(0);
            self.x(conn, q, st.dl_c_upd, &[Param::Int(total), Param::Int(w), Param::Int(d), Param::Int(c_id)]).await?;
        }
        self.end(conn, c, q, true).await
    }
}
