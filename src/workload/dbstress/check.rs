//! `check dbstress`: what the events must keep true, per set. Each query
//! counts what violates its condition, so 0 means it holds.

use super::load::count;
use super::{Dbstress, Names, N_HISTORY, SECTIONS, STATS, ZONES};
use crate::db::Conn;
use crate::db::ConnConfig;
use crate::error::{Error, Result};
use crate::workload::TableState;
use crate::workload::{Checked, Dataset};
use std::sync::Arc;

impl Dbstress {
    /// (what, query, the count it must give) for one set.
    fn conditions(&self, n: &Names) -> Vec<(String, String, u64)> {
        let rows = |t: &str, want: u64| (format!("{t} holds {want} rows"), format!("SELECT COUNT(*) FROM {t}"), want);
        let h = &n.history;
        vec![
            rows(&n.zone, ZONES),
            rows(&n.stat, STATS),
            rows(&n.section, SECTIONS),
            rows(&n.object, self.args.obj_table_size),
            (
                format!("every object has {N_HISTORY} {h} rows, HORDER 0..{}", N_HISTORY - 1),
                format!(
                    "SELECT COUNT(*) FROM (SELECT REF_OBJECT FROM {h} GROUP BY REF_OBJECT \
                     HAVING COUNT(*) <> {N_HISTORY} OR COUNT(DISTINCT HORDER) <> {N_HISTORY} OR MIN(HORDER) <> 0 OR MAX(HORDER) <> {}) v",
                    N_HISTORY - 1
                ),
                0,
            ),
            (format!("every object has {h} rows"), format!("SELECT COUNT(*) FROM {} O WHERE NOT EXISTS (SELECT 1 FROM {h} H WHERE H.REF_OBJECT = O.REF)", n.object), 0),
            (format!("every {h} row belongs to an object"), format!("SELECT COUNT(*) FROM {h} H WHERE NOT EXISTS (SELECT 1 FROM {} O WHERE O.REF = H.REF_OBJECT)", n.object), 0),
        ]
    }
}

impl Checked for Dbstress {
    async fn check(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        match self.table_state(&cfg).await? {
            TableState::Ready | TableState::Larger(_) => {}
            TableState::Missing => return Err(crate::usage!("the dbSTRESS tables do not exist: run `fairbench prepare {}` with the same options first", super::RW)),
            TableState::Mismatch(why) => return Err(Error::Check(format!("dbSTRESS check failed: {why}"))),
        }
        let mut conn = Conn::admin(&cfg).await?;
        let mut failed = Vec::new();
        for (i, n) in self.names.iter().enumerate() {
            if !quiet {
                println!("dbSTRESS consistency check, set #{} ({} objects):", i + 1, self.args.obj_table_size);
            }
            for (what, sql, want) in self.conditions(n) {
                crate::model::check_interrupt()?;
                let got = count(&mut conn, &sql).await?;
                if !quiet {
                    println!("  {what:<56} {}", if got == want { "PASS".to_string() } else { format!("FAIL ({got})") });
                }
                if got != want {
                    failed.push(format!("set #{}: {what}", i + 1));
                }
            }
        }
        conn.close().await;
        crate::workload::check_verdict("dbSTRESS", &failed, "; ", quiet)
    }
}
