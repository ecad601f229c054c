//! Order-Status (TPC-C 2.6): a customer's last order and its lines, read only.

use super::{int, last_name, missing, procedures, Tpcc, TpccClient};
use crate::db::{Class, Conn, DbResult, Param};
use crate::rand::nurand;
use crate::workload::Counters;

impl Tpcc {
    pub(super) async fn order_status(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, ds: u32, w: u32) -> DbResult<()> {
        let st = &self.st[ds as usize - 1];
        let r = &mut c.rng;
        let d = r.uniform(1, 10) as i64;
        let by_name = r.uniform(1, 100) <= 60;
        let last = last_name(nurand(r, 255, self.c_last, 0, 999));
        let cid = nurand(r, 1023, self.c_id, 1, 3000) as i64;
        let w = w as i64;
        if let Some(p) = &st.calls {
            let [cid, named, last] = procedures::customer(cid, by_name.then_some(last.as_str()));
            return self.call(conn, q, p.ostat, &[Param::Int(w), Param::Int(d), cid, named, last], Class::Read).await.map(drop);
        }
        self.begin(conn, c, q, false).await?;
        let cid = if by_name { self.customer_by_name(conn, q, st, w, d, &last).await?.ok_or_else(|| missing("customer named", w, d))? } else { cid };
        self.rows(conn, q, st.os_cust, &[Param::Int(w), Param::Int(d), Param::Int(cid)]).await?;
        let o = self.rows(conn, q, st.os_last_order, &[Param::Int(w), Param::Int(d), Param::Int(cid)]).await?;
        if let Some(o_id) = o.first().and_then(|r| int(&r[0])) {
            self.rows(conn, q, st.os_lines, &[Param::Int(w), Param::Int(d), Param::Int(o_id)]).await?;
        }
        self.end(conn, c, q, true).await
    }
}
