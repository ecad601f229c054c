//! The Insert Benchmark's tables: found, prepared (l.i0 and l.x done
//! unmeasured, for a sequence that starts later), warmed and dropped.

use super::step::{Step, LOAD_BATCH};
use super::{sql, Ibench, Shape};
use crate::db::{sql_error, Conn, ConnConfig};
use crate::error::Result;
use crate::output::Progress;
use crate::workload::{Dataset, DatasetTables, TableState};
use std::sync::Arc;

impl Ibench {
    async fn has_index(&self, conn: &mut Conn, table: &str) -> Result<bool> {
        let (name, _) = sql::INDEXES[0];
        let q = self.shape.dialect().index_exists_query("", table, &format!("{table}_{name}"));
        let rows = conn.query_strings(&q).await.map_err(sql_error(&q))?;
        Ok(rows.first().and_then(|r| r.first().cloned().flatten()).is_some_and(|v| v.trim() != "0"))
    }

    /// The tables there named the prefix and a number, whatever `--clients` made them.
    async fn found(&self, conn: &mut Conn) -> Result<Vec<String>> {
        let prefix = &self.shape.args.ibench_table;
        let q = self.shape.dialect().tables_like(prefix);
        let rows = conn.query_strings(&q).await.map_err(sql_error(&q))?;
        let numbered =
            |n: &String| n.get(..prefix.len()).is_some_and(|h| h.eq_ignore_ascii_case(prefix)) && n.get(prefix.len()..).is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()));
        let mut names: Vec<String> = rows.into_iter().filter_map(|r| r.into_iter().next().flatten()).filter(numbered).collect();
        names.sort();
        Ok(names)
    }

    /// Which of this configuration's tables exist.
    async fn existing(&self, conn: &mut Conn) -> Result<Vec<String>> {
        let names: Vec<String> = self.found(conn).await?.into_iter().map(|n| n.to_lowercase()).collect();
        Ok(self.shape.tables.iter().filter(|t| names.contains(&t.to_lowercase())).cloned().collect())
    }

    /// Whether the sequence makes its tables (it starts with l.i0) or finds them.
    fn makes_tables(&self) -> bool {
        self.steps.first() == Some(&Step::Load)
    }

    /// Whether a step before the first query (or write) step adds the indexes.
    fn makes_indexes(&self) -> bool {
        self.steps.iter().take_while(|s| matches!(s, Step::Load | Step::Index)).any(|s| *s == Step::Index)
    }
}

/// Table `id` created, loaded with its clients' rows and indexed (a loader task of `prepare`).
async fn load_table(shape: Arc<Shape>, tail: String, cfg: Arc<ConnConfig>, id: usize, progress: Arc<Progress>) -> Result<()> {
    let mut conn = Conn::admin(&cfg).await?;
    let t = shape.table_of(id).to_string();
    let d = shape.dialect();
    for s in sql::setup_table(d, &t, &tail) {
        conn.query(&s).await.map_err(sql_error(&s))?;
    }
    let per_table = shape.batches(Step::Load) * shape.clients.div_ceil(shape.tables.len()) as u64;
    let mut rng = shape.rng(id as u64);
    let mut text = String::new();
    for _ in 0..per_table {
        crate::model::check_interrupt()?;
        sql::insert_batch(&mut text, &t, LOAD_BATCH, &shape.args, &mut rng, &sql::timestamp());
        conn.query(&text).await.map_err(sql_error("the INSERT of a batch"))?;
        progress.add(LOAD_BATCH as u64);
    }
    for s in sql::create_indexes(d, &t) {
        conn.query(&s).await.map_err(sql_error(&s))?;
    }
    conn.close().await;
    Ok(())
}

impl Dataset for Ibench {
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Names(self.shape.tables.clone())
    }

    /// `l.i0` makes the tables and `l.x` adds their indexes inside the run.
    fn reshapes_tables(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Step::Load | Step::Index))
    }

    async fn table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        if self.makes_tables() {
            return Ok(TableState::Ready);
        }
        let mut conn = Conn::admin(cfg).await?;
        let have = self.existing(&mut conn).await?;
        let state = if have.is_empty() {
            TableState::Missing
        } else if have.len() < self.shape.tables.len() {
            let missing: Vec<&String> = self.shape.tables.iter().filter(|t| !have.contains(t)).collect();
            TableState::Mismatch(format!("{} exist but not {}", have.join(", "), missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")))
        } else if !self.makes_indexes() && !self.has_index(&mut conn, &self.shape.tables[0]).await? {
            TableState::Mismatch(format!("{} has no secondary indexes yet: start the steps with l.x (--steps l.x,...)", self.shape.tables[0]))
        } else {
            TableState::Ready
        };
        conn.close().await;
        Ok(state)
    }

    /// What l.i0 and l.x leave, unmeasured: each table loaded with its
    /// clients' rows, then indexed.
    async fn prepare(&self, cfg: Arc<ConnConfig>, _threads: usize, quiet: bool) -> Result<()> {
        if !quiet {
            println!("Creating and loading {} with {} rows, then their indexes...", self.shape.tables.join(", "), self.shape.args.rows);
        }
        let progress = Arc::new(Progress::new("Loading", self.shape.batches(Step::Load) * LOAD_BATCH as u64 * self.shape.clients as u64, quiet));
        let mut tasks = tokio::task::JoinSet::new();
        for id in 0..self.shape.tables.len() {
            tasks.spawn(load_table(self.shape.clone(), self.table_tail.clone(), cfg.clone(), id, progress.clone()));
        }
        let r = crate::workload::join_loaders(tasks, "loader").await;
        progress.finish();
        r
    }

    /// Every table of the prefix and a number, whatever `--clients` made them.
    async fn cleanup(&self, cfg: Arc<ConnConfig>, _threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        for t in &self.found(&mut conn).await? {
            if !quiet {
                println!("Dropping table '{t}'...");
            }
            let s = self.shape.dialect().drop_table(t);
            conn.query(&s).await.map_err(sql_error(&s))?;
        }
        conn.close().await;
        Ok(())
    }

    async fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let d = self.shape.dialect();
        crate::workload::common::prewarm_tables(&cfg, quiet, self.shape.tables.iter().map(|t| (format!("table '{t}'"), d.prewarm_queries(t))).collect()).await
    }
}
