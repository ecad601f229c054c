//! pgbench's tables as `pgbench -i` makes them: branches, tellers (10 per
//! branch), accounts (100,000 per branch) and an empty history, scaled by
//! `--scale`; primary keys added after the load.

use super::{PgScripts, TABLES};
use crate::db::{ColType, Column, Conn, ConnConfig, Dialect, LoadMode, Row, RowSource};
use crate::error::{Error, Result};
use crate::output::Progress;
use crate::usage;
use crate::workload::common::ddl;
use crate::workload::TableState;
use crate::workload::{Dataset, DatasetTables};
use std::sync::atomic::Ordering;
use std::sync::Arc;

const TELLERS: i64 = 10;
const ACCOUNTS: i64 = 100_000;

/// Rows of pgbench_branches, None when the table is not there.
async fn branches(conn: &mut Conn) -> Option<i64> {
    let rows = conn.query_strings("SELECT COUNT(*) FROM pgbench_branches").await.ok()?;
    rows.first().and_then(|r| r.first().cloned().flatten()).and_then(|s| s.trim().parse().ok())
}

/// Rows of one table: `n` of them, each from its number (1-based).
struct Gen<'a> {
    next: i64,
    last: i64,
    table: usize,
    progress: &'a Progress,
}

impl RowSource for Gen<'_> {
    fn next_row(&mut self, row: &mut Row) -> bool {
        if self.next > self.last {
            return false;
        }
        let i = self.next;
        self.next += 1;
        row.ints.clear();
        row.texts.resize(1, Vec::new());
        row.texts[0].clear();
        match self.table {
            // branches: bid, bbalance, filler NULL
            0 => {
                row.ints.extend([i, 0]);
                row.nulls = 1 << 2;
            }
            // tellers: tid, bid, tbalance, filler NULL
            1 => {
                row.ints.extend([i, (i - 1) / TELLERS + 1, 0]);
                row.nulls = 1 << 3;
            }
            // accounts: aid, bid, abalance, filler '' (blank-padded)
            _ => {
                row.ints.extend([i, (i - 1) / ACCOUNTS + 1, 0]);
                row.nulls = 0;
            }
        }
        if i % 4096 == 0 {
            self.progress.add(4096);
        }
        true
    }
}

/// pgbench -i's partitions of pgbench_accounts: the clause that makes the table partitioned,
/// and the partitions `pgbench_accounts_1` to `_N`. Range partitions are `accounts / n`
/// (rounded up) aids each, the first from MINVALUE and the last to MAXVALUE, as pgbench makes
/// them; hash partitions split by aid's hash. Nothing for `n` = 0; None where the engine makes
/// no partitions of that kind.
fn accounts_partitions(dialect: &dyn Dialect, n: u32, method: &str, accounts: i64) -> Option<(Vec<String>, String)> {
    if n == 0 {
        return Some((Vec::new(), String::new()));
    }
    let n = i64::from(n);
    let size = (accounts + n - 1) / n;
    let parts = (1..=n)
        .map(|p| {
            let bounds = if method == "hash" {
                format!("WITH (MODULUS {n}, REMAINDER {})", p - 1)
            } else {
                let from = if p == 1 { "MINVALUE".to_string() } else { ((p - 1) * size + 1).to_string() };
                let to = if p == n { "MAXVALUE".to_string() } else { (p * size + 1).to_string() };
                format!("FROM ({from}) TO ({to})")
            };
            dialect.partition_of("pgbench_accounts", &format!("pgbench_accounts_{p}"), &bounds)
        })
        .collect::<Option<Vec<String>>>()?;
    Some((parts, format!(" PARTITION BY {} (aid)", method.to_ascii_uppercase())))
}

fn col(name: &str, ty: ColType) -> Column {
    Column { name: name.into(), ty }
}

impl PgScripts {
    /// The scale the tables were made with, when `--scale` was not given.
    pub async fn detect_scale(&self, cfg: &Arc<ConnConfig>) -> Result<()> {
        if self.scale_given.is_some() {
            return Ok(());
        }
        if !self.builtins_only {
            // pgbench gives custom scripts :scale = 1 unless told.
            return Ok(());
        }
        let mut conn = Conn::admin(cfg).await?;
        let n = branches(&mut conn).await;
        conn.close().await;
        if let Some(n) = n.filter(|n| *n > 0) {
            self.scale.store(n, Ordering::Relaxed);
        }
        Ok(())
    }
}

impl PgScripts {
    /// What pgbench does between connecting and starting its clients: its banner, the vacuum
    /// unless -n, and (for its report) the accounts' partitioning. A vacuum's error is said
    /// and passed over, as pgbench passes it over.
    pub async fn before_run(&self, cfg: &Arc<ConnConfig>) -> Result<()> {
        let pgbench_output = self.report.is_some();
        if !pgbench_output && self.vacuum == "none" {
            return Ok(());
        }
        let mut conn = Conn::admin(cfg).await?;
        if pgbench_output {
            println!("pgbench (fairbench {})", env!("CARGO_PKG_VERSION"));
            // pgbench looks at the tables only when a built-in script runs.
            let found = if self.scripts.iter().any(|s| s.path.starts_with("builtin:")) { partitions(&mut conn).await } else { None };
            if let Ok(mut f) = self.found.lock() {
                (f.scale, f.partitions) = (self.scale(), found);
            }
        }
        if self.vacuum != "none" {
            if pgbench_output {
                print!("starting vacuum...");
            }
            let mut sql = vec!["VACUUM pgbench_branches", "VACUUM pgbench_tellers", "TRUNCATE pgbench_history"];
            if self.vacuum == "all" {
                sql.push("VACUUM pgbench_accounts");
            }
            for q in sql {
                if let Err(e) = conn.query(q).await {
                    eprintln!("{q}: {} (ignoring this error and continuing anyway)", e.message);
                }
            }
            if pgbench_output {
                println!("end.");
            }
        }
        conn.close().await;
        Ok(())
    }
}

/// pgbench_accounts' partitioning method and count, read from PostgreSQL's catalog (None
/// elsewhere, or unpartitioned).
async fn partitions(conn: &mut Conn) -> Option<(String, u32)> {
    let sql = "SELECT CASE p.partstrat WHEN 'r' THEN 'range' WHEN 'h' THEN 'hash' ELSE 'list' END, count(i.inhrelid) \
               FROM pg_catalog.pg_partitioned_table p LEFT JOIN pg_catalog.pg_inherits i ON i.inhparent = p.partrelid \
               WHERE p.partrelid = 'pgbench_accounts'::regclass GROUP BY p.partstrat";
    let rows = conn.query_strings(sql).await.ok()?;
    let row = rows.first()?;
    let method = row.first().cloned().flatten()?;
    let n = row.get(1).cloned().flatten()?.parse().ok()?;
    Some((method, n))
}

impl Dataset for PgScripts {
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Names(TABLES.iter().map(|t| t.to_string()).collect())
    }

    async fn table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        if !self.builtins_only {
            // A script's tables are its own business: nothing to check.
            return Ok(TableState::Ready);
        }
        let mut conn = Conn::admin(cfg).await?;
        let n = branches(&mut conn).await;
        conn.close().await;
        if let (Some(n), None) = (n.filter(|n| *n > 0), self.scale_given) {
            // The run's :scale, and its label, are the tables'.
            self.scale.store(n, Ordering::Relaxed);
        }
        Ok(match (n, self.scale_given) {
            (None, _) | (Some(0), _) => TableState::Missing,
            (Some(n), Some(s)) if n != s => TableState::Mismatch(format!("pgbench_branches has {n} rows (scale {n}) but --scale is {s}")),
            _ => TableState::Ready,
        })
    }

    async fn prepare(&self, cfg: Arc<ConnConfig>, _threads: usize, quiet: bool) -> Result<()> {
        let engine = cfg.engine();
        let scale = self.scale_given.unwrap_or(1);
        let mut conn = Conn::admin(&cfg).await?;
        for sql in engine.dialect().drop_tables(&TABLES) {
            ddl(&mut conn, &sql).await?;
        }
        // Ids above 2^31 from scale 20000 on, as pgbench -i switches to bigint.
        let id = if scale >= 20_000 { "bigint" } else { "int" };
        let (parts, how) = accounts_partitions(engine.dialect(), self.partitions.0, &self.partitions.1, scale * ACCOUNTS)
            .ok_or_else(|| usage!("--partitions: pgbench partitions pgbench_accounts with PostgreSQL's PARTITION BY, which {} has not", engine.name()))?;
        let mut schema = vec![
            "CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))".to_string(),
            "CREATE TABLE pgbench_tellers (tid int not null, bid int, tbalance int, filler char(84))".to_string(),
            format!("CREATE TABLE pgbench_accounts (aid {id} not null, bid int, abalance int, filler char(84)){how}"),
            "CREATE TABLE pgbench_branches (bid int not null, bbalance int, filler char(88))".to_string(),
        ];
        schema.extend(parts);
        for sql in &schema {
            ddl(&mut conn, sql).await?;
        }
        let total = scale + scale * TELLERS + scale * ACCOUNTS;
        let progress = Progress::new("Loading", total as u64, quiet);
        let int = ColType::Int;
        let acc_id = if scale >= 20_000 { ColType::BigInt } else { int };
        let loads: [(&str, Vec<Column>, i64); 3] = [
            ("pgbench_branches", vec![col("bid", int), col("bbalance", int), col("filler", ColType::Text)], scale),
            ("pgbench_tellers", vec![col("tid", int), col("bid", int), col("tbalance", int), col("filler", ColType::Text)], scale * TELLERS),
            ("pgbench_accounts", vec![col("aid", acc_id), col("bid", int), col("abalance", int), col("filler", ColType::Text)], scale * ACCOUNTS),
        ];
        for (k, (table, cols, n)) in loads.iter().enumerate() {
            let mut rows = Gen { next: 1, last: *n, table: k, progress: &progress };
            conn.bulk_load(table, cols, &mut rows, 10_000, LoadMode::Auto).await.map_err(|e| Error::Sql(format!("loading {table}: {e}")))?;
        }
        progress.finish();
        let keys = [("pgbench_branches", "bid"), ("pgbench_tellers", "tid"), ("pgbench_accounts", "aid")];
        for (t, c) in keys {
            ddl(&mut conn, &engine.dialect().add_primary_key(t, c)).await?;
        }
        for t in TABLES {
            ddl(&mut conn, &engine.dialect().analyze(t)).await?;
        }
        conn.close().await;
        if !quiet {
            let parted = match self.partitions.0 {
                0 => String::new(),
                n => format!(", in {n} {} partitions", self.partitions.1),
            };
            println!("pgbench tables ready: scale {scale} ({} accounts{parted}).", scale * ACCOUNTS);
        }
        Ok(())
    }

    async fn cleanup(&self, cfg: Arc<ConnConfig>, _threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        for sql in cfg.engine().dialect().drop_tables(&TABLES) {
            ddl(&mut conn, &sql).await?;
        }
        conn.close().await;
        if !quiet {
            println!("Dropped the pgbench tables.");
        }
        Ok(())
    }

    async fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        for t in TABLES {
            for sql in cfg.engine().dialect().prewarm_queries(t) {
                ddl(&mut conn, &sql).await?;
            }
        }
        conn.close().await;
        if !quiet {
            println!("Read the pgbench tables.");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_partitions_are_pgbenchs() {
        let pg = crate::db::Engine::dialect(crate::db::engines::named("postgres").unwrap());
        let (parts, how) = accounts_partitions(pg, 3, "range", 200_000).unwrap();
        assert_eq!(how, " PARTITION BY RANGE (aid)");
        assert_eq!(
            parts,
            [
                "CREATE TABLE pgbench_accounts_1 PARTITION OF pgbench_accounts FOR VALUES FROM (MINVALUE) TO (66668)",
                "CREATE TABLE pgbench_accounts_2 PARTITION OF pgbench_accounts FOR VALUES FROM (66668) TO (133335)",
                "CREATE TABLE pgbench_accounts_3 PARTITION OF pgbench_accounts FOR VALUES FROM (133335) TO (MAXVALUE)",
            ]
        );
        let (parts, how) = accounts_partitions(pg, 2, "hash", 100_000).unwrap();
        assert_eq!(how, " PARTITION BY HASH (aid)");
        assert_eq!(parts[1], "CREATE TABLE pgbench_accounts_2 PARTITION OF pgbench_accounts FOR VALUES WITH (MODULUS 2, REMAINDER 1)");
        assert_eq!(accounts_partitions(pg, 0, "range", 100_000), Some((vec![], String::new())));
        let lite = crate::db::Engine::dialect(crate::db::engines::named("sqlite").unwrap());
        assert_eq!(accounts_partitions(lite, 2, "range", 100_000), None);
    }
}
