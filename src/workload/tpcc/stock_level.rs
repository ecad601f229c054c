//! Stock-Level (TPC-C 2.8): items of the district's last 20 orders below a stock threshold, read only.

use super::{int, missing, Tpcc, TpccClient};
use crate::db::{Class, Conn, DbResult, Param};
use crate::workload::Counters;

impl Tpcc {
    pub(super) async fn stock_level(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, ds: u32, w: u32) -> DbResult<()> {
        let st = &self.st[ds as usize - 1];
        let d = match c.home {
            Some((_, _, d)) => d as i64,
            None => c.rng.uniform(1, 10) as i64,
        };
        let threshold = c.rng.uniform(10, 20) as i64;
        let w = w as i64;
        if let Some(p) = &st.calls {
            return self.call(conn, q, p.slev, &[Param::Int(w), Param::Int(d), Param::Int(threshold)], Class::Read).await.map(drop);
        }
        self.begin(conn, c, q, false).await?;
        let r = self.rows(conn, q, st.sl_dist, &[Param::Int(w), Param::Int(d)]).await?;
        let next = r.first().and_then(|r| int(&r[0])).ok_or_else(|| missing("district", w, d))?;
        self.rows(conn, q, st.sl_count, &[Param::Int(w), Param::Int(d), Param::Int(next), Param::Int(next - 20), Param::Int(w), Param::Int(threshold)]).await?;
        self.end(conn, c, q, true).await
    }
}
