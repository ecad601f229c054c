//! prepare / cleanup / prewarm and the tables' state: the eight tables
//! created with their primary keys, loaded part by part by parallel
//! loaders through the engine's bulk path, then their foreign-key indexes
//! built and statistics taken. A table already complete is kept; one
//! partly loaded is named, for `cleanup` and a new prepare.

use super::load::{self, Part, Source};
use super::schema::{self, Table};
use super::Tpch;
use crate::db::{Conn, ConnConfig, LoadMode};
use crate::env::DatasetTables;
use crate::error::{Error, Result};
use crate::output::Progress;
use crate::usage;
use crate::workload::common::{ddl, first_number, prewarm_tables};
use crate::workload::{Dataset, TableState};
use std::sync::{Arc, Mutex};

/// How complete a table is.
#[derive(Debug, PartialEq)]
enum Found {
    Missing,
    Empty,
    Complete,
    /// Holds other rows than the scale factor's: (rows, expected).
    Other(u64, u64),
}

impl Tpch {
    /// What `t` holds: lineitem is complete when every loaded order has
    /// its lines (its row count is not known before generating it), the
    /// others when they hold the scale factor's rows (orders counted up to
    /// the last loaded key, leaving a refresh's).
    async fn found(&self, conn: &mut Conn, t: &Table) -> Found {
        let max = super::refresh::max_loaded_key(self.sf);
        let (sql, want) = match t.name {
            "lineitem" => (format!("SELECT COUNT(DISTINCT l_orderkey) FROM lineitem WHERE l_orderkey <= {max}"), load::rows(&schema::ORDERS, self.sf)),
            "orders" => (format!("SELECT COUNT(*) FROM orders WHERE o_orderkey <= {max}"), load::rows(t, self.sf)),
            name => (format!("SELECT COUNT(*) FROM {name}"), load::rows(t, self.sf)),
        };
        match conn.query_strings(&sql).await {
            Err(_) => Found::Missing,
            Ok(rows) => match first_number(&rows) {
                0 => Found::Empty,
                n if n == want => Found::Complete,
                n => Found::Other(n, want),
            },
        }
    }

    fn load_mode(&self) -> Result<LoadMode> {
        LoadMode::parse(&self.common.load_mode).ok_or_else(|| usage!("--load-mode={}: use auto, infile or insert", self.common.load_mode))
    }
}

/// One piece of a prepare's work.
enum Job {
    /// Part `part` of `parts` of a table's rows.
    Load(&'static Table, i32, i32),
    /// A loaded table's index builds and statistics, in order.
    Finish(Vec<String>),
}

/// What the loaders share: the generator's scale factor and how rows are sent.
struct Loading {
    sf: f64,
    progress: Arc<Progress>,
    bulk: usize,
    mode: LoadMode,
}

/// `jobs` on `workers` connections of their own, each taking the next
/// job from the end until none is left; the first error stops the others.
async fn run_jobs(cfg: &Arc<ConnConfig>, workers: usize, mut jobs: Vec<Job>, how: &Arc<Loading>, what: &str) -> Result<()> {
    jobs.reverse();
    let jobs = Arc::new(Mutex::new(jobs));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..workers {
        let (cfg, jobs, how) = (cfg.clone(), jobs.clone(), how.clone());
        tasks.spawn(async move {
            let mut conn = Conn::admin(&cfg).await?;
            loop {
                let job = jobs.lock().unwrap_or_else(|e| e.into_inner()).pop();
                match job {
                    None => break,
                    Some(Job::Load(t, part, parts)) => {
                        let mut src = Source::new(Part::new(t, how.sf, part, parts), how.progress.clone());
                        conn.bulk_load(t.name, &t.load_columns(), &mut src, how.bulk, how.mode).await.map_err(|e| Error::Sql(format!("loading {} (part {part} of {parts}): {e}", t.name)))?;
                    }
                    Some(Job::Finish(sqls)) => {
                        for sql in sqls {
                            ddl(&mut conn, &sql).await?;
                        }
                    }
                }
            }
            conn.close().await;
            Ok(())
        });
    }
    crate::workload::join_loaders(tasks, what).await
}

impl Dataset for Tpch {
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Names(schema::TABLES.iter().map(|t| t.name.to_string()).collect())
    }

    /// An order with its lines on one shard, a part with its suppliers;
    /// customers by key; supplier, nation and region, small and joined by
    /// most queries, whole on every shard.
    fn sharding(&self) -> crate::db::sharding::ShardPlan {
        use crate::db::sharding::{Key, ShardPlan, Sharding};
        let sharded = [("lineitem", "l_orderkey"), ("orders", "o_orderkey"), ("partsupp", "ps_partkey"), ("part", "p_partkey"), ("customer", "c_custkey")];
        let reference = [("supplier", "s_suppkey"), ("nation", "n_nationkey"), ("region", "r_regionkey")];
        ShardPlan::new(sharded.iter().map(|(t, k)| Sharding::sharded(*t, Key::int(k))).chain(reference.iter().map(|(t, k)| Sharding::reference(*t, Key::int(k)))).collect())
    }

    async fn table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        let mut conn = Conn::admin(cfg).await?;
        let mut missing = Vec::new();
        let mut problem = None;
        for t in schema::TABLES {
            match self.found(&mut conn, t).await {
                Found::Complete => {}
                Found::Missing => missing.push(t.name),
                Found::Empty => problem = problem.or(Some(format!("{} is empty", t.name))),
                Found::Other(n, want) => problem = problem.or(Some(format!("{} holds {n} rows where scale factor {} has {want}", t.name, super::metrics::number(self.sf)))),
            }
        }
        conn.close().await;
        Ok(match (missing.len(), problem) {
            (8, _) => TableState::Missing,
            (0, None) => TableState::Ready,
            (_, Some(p)) => TableState::Mismatch(p),
            (_, None) => TableState::Mismatch(format!("{} missing", missing.join(", "))),
        })
    }

    async fn prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let mode = self.load_mode()?;
        let mut conn = Conn::admin(&cfg).await?;
        let mut jobs = Vec::new();
        let mut loading = Vec::new();
        let mut total = 0;
        for t in schema::TABLES {
            match self.found(&mut conn, t).await {
                Found::Complete => continue,
                Found::Other(n, want) => {
                    return Err(usage!(
                        "{} holds {n} rows where scale factor {} has {want}: run `fairbench cleanup tpch` first, or give the scale factor it was prepared with",
                        t.name,
                        super::metrics::number(self.sf)
                    ))
                }
                Found::Missing => {
                    let sql = t.create(self.dialect(), &self.table_tail);
                    conn.query(&sql).await.map_err(|e| self.common.create_error(&e).unwrap_or_else(|| Error::Sql(format!("{e}\n  in: CREATE TABLE {}", t.name))))?;
                }
                Found::Empty => {}
            }
            let parts = load::parts(t, self.sf);
            jobs.extend((1..=parts).map(|p| Job::Load(t, p, parts)));
            loading.push(t);
            total += load::rows(t, self.sf);
        }
        if loading.is_empty() {
            if !quiet {
                println!("All eight TPC-H tables hold scale factor {} already.", super::metrics::number(self.sf));
            }
            conn.close().await;
            return Ok(());
        }
        let loaders = if self.dialect().one_writer() { 1 } else { threads.max(1) };
        if !quiet {
            println!("Loading TPC-H scale factor {} ({}) with {loaders} loader(s)...", super::metrics::number(self.sf), loading.iter().map(|t| t.name).collect::<Vec<_>>().join(", "));
        }
        let started = std::time::Instant::now();
        let how = Arc::new(Loading { sf: self.sf, progress: Arc::new(Progress::new("Loading", total, quiet)), bulk: self.common.load_bulk_size, mode });
        // The largest tables first (their order in TABLES).
        run_jobs(&cfg, loaders, jobs, &how, "TPC-H loader").await?;
        how.progress.finish();
        let secs = started.elapsed().as_secs_f64();
        if !quiet {
            println!("Loaded about {total} rows in {secs:.2}s ({:.0} rows/s); building the foreign-key indexes...", total as f64 / secs.max(1e-9));
        }
        // Each table's indexes and statistics on a connection of its own,
        // the largest tables first: lineitem's take longest.
        let finishing = loading.iter().map(|t| Job::Finish(t.finish(self.dialect()))).collect();
        run_jobs(&cfg, loaders, finishing, &how, "TPC-H index build").await?;
        if !quiet {
            println!("Prepared in {:.2}s, index builds and statistics included.", started.elapsed().as_secs_f64());
        }
        conn.close().await;
        Ok(())
    }

    async fn cleanup(&self, cfg: Arc<ConnConfig>, _threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        if !quiet {
            println!("Dropping the TPC-H tables...");
        }
        let names: Vec<&str> = schema::TABLES.iter().map(|t| t.name).collect();
        for sql in self.dialect().drop_tables(&names) {
            ddl(&mut conn, &sql).await?;
        }
        conn.close().await;
        Ok(())
    }

    async fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let groups = schema::TABLES.iter().map(|t| (format!("table '{}'", t.name), vec![format!("SELECT COUNT(*) FROM {}", t.name)])).collect();
        prewarm_tables(&cfg, quiet, groups).await
    }
}
