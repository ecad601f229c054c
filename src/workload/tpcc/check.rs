//! TPC-C consistency conditions (clause 3.3.2) as SQL, per dataset: each
//! query counts what violates its condition, so 0 means it holds.

use super::load::count;
use super::Tpcc;
use crate::error::{Error, Result};
use crate::target::{Conn, ConnConfig, StatementSet};
use std::sync::Arc;

impl Tpcc {
    /// (number, description, query counting violations) of one dataset.
    fn conditions(&self, d: usize) -> Vec<(u32, &'static str, String)> {
        let n = &self.names[d];
        let (w, di, o, no, ol, h) = (&n.warehouse, &n.district, &n.orders, &n.new_orders, &n.order_line, &n.history);
        let s = &self.schema;
        let o_unset = s.carrier_unset("o.o_carrier_id");
        let ol_unset = s.delivery_unset("l.ol_delivery_d");
        // Money compares with a tolerance: SQLite keeps DECIMAL as floating point.
        vec![
            (1, "W_YTD = sum(D_YTD)", format!("SELECT COUNT(*) FROM {w} JOIN (SELECT d_w_id, SUM(d_ytd) s FROM {di} GROUP BY d_w_id) x ON x.d_w_id = w_id WHERE ABS(w_ytd - x.s) > 0.005")),
            (2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", format!(
                "SELECT COUNT(*) FROM {di} LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) m FROM {o} GROUP BY o_w_id, o_d_id) a ON a.o_w_id = d_w_id AND a.o_d_id = d_id \
                 LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) m FROM {no} GROUP BY no_w_id, no_d_id) b ON b.no_w_id = d_w_id AND b.no_d_id = d_id \
                 WHERE a.m IS NULL OR d_next_o_id - 1 <> a.m OR (b.m IS NOT NULL AND b.m <> d_next_o_id - 1)")),
            (3, "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER", format!("SELECT COUNT(*) FROM (SELECT no_w_id FROM {no} GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)) x")),
            (4, "sum(O_OL_CNT) = rows in ORDER-LINE", format!(
                "SELECT COUNT(*) FROM (SELECT o_w_id w, o_d_id d, SUM(o_ol_cnt) s FROM {o} GROUP BY o_w_id, o_d_id) a \
                 LEFT JOIN (SELECT ol_w_id w, ol_d_id d, COUNT(*) c FROM {ol} GROUP BY ol_w_id, ol_d_id) b ON a.w = b.w AND a.d = b.d WHERE b.c IS NULL OR a.s <> b.c")),
            (5, "O_CARRIER_ID unset iff a NEW-ORDER row exists", format!(
                "SELECT COUNT(*) FROM {o} o LEFT JOIN {no} n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id \
                 WHERE (n.no_o_id IS NULL AND {o_unset}) OR (n.no_o_id IS NOT NULL AND NOT ({o_unset}))")),
            (6, "O_OL_CNT = the order's ORDER-LINE rows", format!(
                "SELECT COUNT(*) FROM {o} o LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) c FROM {ol} GROUP BY ol_w_id, ol_d_id, ol_o_id) x \
                 ON x.ol_w_id = o.o_w_id AND x.ol_d_id = o.o_d_id AND x.ol_o_id = o.o_id WHERE x.c IS NULL OR x.c <> o.o_ol_cnt")),
            (7, "OL_DELIVERY_D unset iff O_CARRIER_ID unset", format!(
                "SELECT COUNT(*) FROM {o} o JOIN {ol} l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id \
                 WHERE ({o_unset} AND NOT ({ol_unset})) OR (NOT ({o_unset}) AND {ol_unset})")),
            (8, "W_YTD = sum(H_AMOUNT)", format!("SELECT COUNT(*) FROM {w} LEFT JOIN (SELECT h_w_id, SUM(h_amount) s FROM {h} GROUP BY h_w_id) x ON x.h_w_id = w_id WHERE x.s IS NULL OR ABS(w_ytd - x.s) > 0.005")),
            (9, "D_YTD = sum(H_AMOUNT)", format!(
                "SELECT COUNT(*) FROM {di} LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) s FROM {h} GROUP BY h_w_id, h_d_id) x ON x.h_w_id = d_w_id AND x.h_d_id = d_id \
                 WHERE x.s IS NULL OR ABS(d_ytd - x.s) > 0.005")),
        ]
    }

    pub async fn do_check(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        match self.do_table_state(&cfg).await? {
            crate::workload::TableState::Ready => {}
            crate::workload::TableState::Missing => return Err(crate::usage!("the TPC-C tables do not exist: run `fairbench prepare tpcc` with the same options first")),
            crate::workload::TableState::Mismatch(why) => return Err(Error::Check(format!("TPC-C check failed: {why}"))),
        }
        let mut conn = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::runner::connect_error(&cfg.target, &e))?;
        let mut failed = Vec::new();
        for d in 0..self.names.len() {
            let n = &self.names[d];
            if !quiet {
                println!("TPC-C consistency check, dataset {} ({} warehouse(s)):", n.n, self.warehouses);
            }
            for (num, what, sql) in self.conditions(d) {
                let bad = count(&mut conn, &sql).await?;
                if !quiet {
                    println!("  condition {num:>2} {what:<48} {}", if bad == 0 { "PASS".to_string() } else { format!("FAIL ({bad} violation(s))") });
                }
                if bad > 0 {
                    failed.push(format!("dataset {} condition {num}", n.n));
                }
            }
        }
        conn.close().await;
        if failed.is_empty() {
            if !quiet {
                println!("All conditions hold.");
            }
            Ok(())
        } else {
            Err(Error::Check(format!("TPC-C consistency check failed: {}", failed.join(", "))))
        }
    }
}
