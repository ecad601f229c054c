//! `check linkbench`: every count equals the visible links of its
//! (id1, link_type), every (id1, link_type) with visible links has a
//! count, and the nodes are sane. Each query counts what violates its
//! condition, so 0 means it holds.

use super::load::number;
use super::{LinkBench, DEFAULT_NODE_TYPE, NAME};
use crate::db::Conn;
use crate::db::ConnConfig;
use crate::error::{Error, Result};
use crate::workload::TableState;
use crate::workload::{Checked, Dataset};
use std::sync::Arc;

impl LinkBench {
    fn conditions(&self, db: u32) -> Vec<(String, String)> {
        let (l, c, n) = (self.cfg.table(db, "linktable"), self.cfg.table(db, "counttable"), self.cfg.table(db, "nodetable"));
        vec![
            (
                "every count equals the visible links of its (id1, link_type)".into(),
                format!("SELECT COUNT(*) FROM {c} c WHERE c.count <> (SELECT COUNT(*) FROM {l} l WHERE l.id1 = c.id AND l.link_type = c.link_type AND l.visibility = 1)"),
            ),
            (
                "every (id1, link_type) with visible links has a count".into(),
                format!(
                    "SELECT COUNT(*) FROM (SELECT id1, link_type FROM {l} WHERE visibility = 1 GROUP BY id1, link_type) v \
                     WHERE NOT EXISTS (SELECT 1 FROM {c} c WHERE c.id = v.id1 AND c.link_type = v.link_type)"
                ),
            ),
            ("links are visible (1) or hidden (0)".into(), format!("SELECT COUNT(*) FROM {l} WHERE visibility NOT IN (0, 1)")),
            (
                format!("nodes have ids from {}, type {DEFAULT_NODE_TYPE}, version >= 1", self.cfg.startid1),
                format!("SELECT COUNT(*) FROM {n} WHERE id < {} OR type <> {DEFAULT_NODE_TYPE} OR version < 1", self.cfg.startid1),
            ),
        ]
    }
}

impl Checked for LinkBench {
    async fn check(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        match self.table_state(&cfg).await? {
            TableState::Ready | TableState::Larger(_) => {}
            TableState::Missing => return Err(crate::usage!("the LinkBench tables do not exist: run `fairbench prepare {NAME}` with the same options first")),
            TableState::Mismatch(why) => return Err(Error::Check(format!("LinkBench check failed: {why}"))),
        }
        let mut conn = Conn::admin(&cfg).await?;
        let mut failed = Vec::new();
        for db in 0..self.cfg.dbcount {
            if !quiet {
                println!("LinkBench consistency check of {}:", self.cfg.table(db, "linktable"));
            }
            for (what, sql) in self.conditions(db) {
                crate::model::check_interrupt()?;
                let got = number(&mut conn, &sql).await?;
                if !quiet {
                    println!("  {what:<64} {}", if got == 0 { "PASS".to_string() } else { format!("FAIL ({got})") });
                }
                if got != 0 {
                    failed.push(format!("{}: {what} ({got} violations)", self.cfg.table(db, "linktable")));
                }
            }
        }
        conn.close().await;
        crate::workload::check_verdict("LinkBench", &failed, "; ", quiet)
    }
}
