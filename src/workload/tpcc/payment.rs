//! Payment (TPC-C 2.5): the customer by id or, 60% of the time, by last name; 15% from a remote warehouse.

use super::{last_name, missing, procedures, Tpcc, TpccClient};
use crate::db::{Class, Conn, DbResult, Param};
use crate::rand::nurand;
use crate::workload::Counters;

impl Tpcc {
    pub(super) async fn payment(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, ds: u32, w: u32) -> DbResult<()> {
        let st = &self.st[ds as usize - 1];
        let r = &mut c.rng;
        let d = r.uniform(1, 10) as i64;
        let (cw, cd) = if self.warehouses > 1 && r.uniform(1, 100) > 85 { (self.other_warehouse(r, w) as i64, r.uniform(1, 10) as i64) } else { (w as i64, d) };
        let by_name = r.uniform(1, 100) <= 60;
        let last = last_name(nurand(r, 255, self.c_last, 0, 999));
        let cid = nurand(r, 1023, self.c_id, 1, 3000) as i64;
        let amount = r.uniform(100, 500_000) as i64;
        let w = w as i64;
        if let Some(p) = &st.calls {
            let [cid, named, last] = procedures::customer(cid, by_name.then_some(last.as_str()));
            let params = [Param::Int(w), Param::Int(d), Param::Int(cw), Param::Int(cd), cid, named, last, Param::Int(amount)];
            return self.call(conn, q, p.payment, &params, Class::Write).await.map(drop);
        }
        self.begin(conn, c, q, true).await?;
        self.x(conn, q, st.pay_wh_upd, &[Param::Int(amount), Param::Int(w)]).await?;
        let wr = self.rows(conn, q, st.pay_wh_sel, &[Param::Int(w)]).await?;
        self.x(conn, q, st.pay_dist_upd, &[Param::Int(amount), Param::Int(w), Param::Int(d)]).await?;
        let dr = self.rows(conn, q, st.pay_dist_sel, &[Param::Int(w), Param::Int(d)]).await?;
        let cid = if by_name { self.customer_by_name(conn, q, st, cw, cd, &last).await?.ok_or_else(|| missing("customer named", cw, cd))? } else { cid };
        let cr = self.rows(conn, q, st.pay_cust_sel, &[Param::Int(cw), Param::Int(cd), Param::Int(cid)]).await?;
        let credit = cr.first().and_then(|r| r[9].clone()).unwrap_or_default();
        if credit == "BC" {
            let old = self.rows(conn, q, st.pay_cust_data, &[Param::Int(cw), Param::Int(cd), Param::Int(cid)]).await?;
            let old = old.first().and_then(|r| r[0].clone()).unwrap_or_default();
            c.buf.clear();
            c.buf.push_str(&format!("{cid} {cd} {cw} {d} {w} {}.{:02}|", amount / 100, amount % 100));
            c.buf.push_str(&old);
            c.buf.truncate(500);
            self.x(conn, q, st.pay_cust_upd_bc, &[Param::Int(amount), Param::Int(amount), Param::Text(&c.buf), Param::Int(cw), Param::Int(cd), Param::Int(cid)]).await?;
        } else {
            self.x(conn, q, st.pay_cust_upd, &[Param::Int(amount), Param::Int(amount), Param::Int(cw), Param::Int(cd), Param::Int(cid)]).await?;
        }
        let wname = wr.first().and_then(|r| r[5].clone()).unwrap_or_default();
        let dname = dr.first().and_then(|r| r[5].clone()).unwrap_or_default();
        let h_data = format!("{wname}    {dname}");
        self.x(conn, q, st.pay_hist_ins, &[Param::Int(cd), Param::Int(cw), Param::Int(cid), Param::Int(d), Param::Int(w), Param::Int(amount), Param::Text(&h_data)]).await?;
        self.end(conn, c, q, true).await
    }
}
