//! prepare / cleanup / prewarm: create the tables, load spec data through
//! each engine's bulk path, table by table over all warehouses, and build
//! each table's secondary indexes as soon as it is loaded, while the next
//! tables load; foreign keys come last (validated side by side on
//! PostgreSQL).
//!
//! A warehouse's WAREHOUSE row is written after all its other rows, so a
//! WAREHOUSE row means "this warehouse is complete". A prepare that finds
//! tables already there loads only what is missing: it deletes the partial
//! rows of incomplete warehouses first, so an interrupted load can be
//! resumed without duplicate-key failures (cleanup + prepare restarts from
//! scratch).
//!
//! Here: the plan of a load, its loaders, the schema and the dataset's
//! state; `load/rows.rs` the spec's rows and the loaders of one part.

mod rows;

use super::schema::{Fk, Names};
use super::{last_name, Tpcc, C_LOAD_LAST};
use crate::db::sharding::{Key, ShardPlan, Sharding};
use crate::db::FkPath;
use crate::db::{ColType, Column, Conn, ConnConfig, LoadMode, Row, RowSource, StatementSet};
use crate::error::{Error, Result};
use crate::output::Progress;
use crate::rand::{nurand, Rng};
use crate::usage;
use crate::workload::common::{ddl, first_number};
use crate::workload::{Dataset, DatasetTables, TableState};
use std::sync::Arc;

const ITEMS: u32 = 100_000;
const ALNUM: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Rows per warehouse, roughly (for the progress bar).
const ROWS_PER_WAREHOUSE: u64 = 100_000 + 10 + 30_000 * 3 + 9_000 + 300_000 + 1;

/// One table's rows of one warehouse: the unit a loader takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    OrderLine,
    Stock,
    Customer,
    Orders,
    History,
    NewOrders,
    District,
}

impl Part {
    /// Load order: the tables whose index builds take longest first, so
    /// that those builds run while the later tables load.
    const ORDER: [Part; 7] = [Part::OrderLine, Part::Stock, Part::Customer, Part::Orders, Part::History, Part::NewOrders, Part::District];

    fn table(self, n: &Names) -> &str {
        match self {
            Part::OrderLine => &n.order_line,
            Part::Stock => &n.stock,
            Part::Customer => &n.customer,
            Part::Orders => &n.orders,
            Part::History => &n.history,
            Part::NewOrders => &n.new_orders,
            Part::District => &n.district,
        }
    }

    fn w_col(self) -> &'static str {
        match self {
            Part::OrderLine => "ol_w_id",
            Part::Stock => "s_w_id",
            Part::Customer => "c_w_id",
            Part::Orders => "o_w_id",
            Part::History => "h_w_id",
            Part::NewOrders => "no_w_id",
            Part::District => "d_w_id",
        }
    }
}

/// Rows per warehouse of a table: how long its index build takes, roughly.
fn weight(n: &Names, table: &str) -> u64 {
    if table == n.order_line {
        300
    } else if table == n.stock {
        100
    } else {
        30
    }
}

/// What one loader task does. `clear`: the table held rows when the
/// prepare started, so this warehouse's partial rows go first.
#[derive(Clone, Copy, Debug)]
enum Job {
    Items(u32),
    Part { d: u32, w: u32, part: Part, clear: bool },
}

impl Job {
    fn table(self, names: &[Names]) -> &str {
        match self {
            Job::Items(d) => &names[d as usize - 1].item,
            Job::Part { d, part, .. } => part.table(&names[d as usize - 1]),
        }
    }
}

enum Task {
    Load(Job),
    /// A loaded table's index builds and ANALYZE, in order.
    Finish(Vec<String>),
    /// Nothing to take yet: tables still loading will release work.
    Wait,
}

/// The loaders' shared schedule. Loading is table by table, and each
/// table's finishing statements are released the moment its last load job
/// ends, so that they overlap the loading of the tables after it: built
/// after the whole load instead, the order_line index alone kept one core
/// busy and the other idle for several seconds on MariaDB.
struct LoadOrder {
    /// Taken from the end.
    loads: Vec<Job>,
    /// Load jobs taken and not finished.
    running: usize,
    /// Per table: load jobs not finished yet.
    left: std::collections::HashMap<String, usize>,
    /// Per table: statements waiting for its loads.
    held: std::collections::HashMap<String, (u64, Vec<String>)>,
    /// Released statements; pop() takes the heaviest.
    ready: Vec<(u64, Vec<String>)>,
    /// A task failed: the others stop taking work (one waiting for the
    /// failed job's table would wait forever).
    failed: bool,
}

impl LoadOrder {
    fn new(mut loads: Vec<Job>, finish: Vec<(String, u64, Vec<String>)>, names: &[Names]) -> LoadOrder {
        let mut left = std::collections::HashMap::new();
        for j in &loads {
            *left.entry(j.table(names).to_string()).or_insert(0usize) += 1;
        }
        loads.reverse();
        let mut plan = LoadOrder { loads, running: 0, left, held: Default::default(), ready: Vec::new(), failed: false };
        for (table, weight, sqls) in finish {
            plan.held.insert(table.clone(), (weight, sqls));
            plan.release_if_loaded(&table);
        }
        plan
    }

    fn release_if_loaded(&mut self, table: &str) {
        if self.left.get(table).copied().unwrap_or(0) == 0 {
            if let Some(f) = self.held.remove(table) {
                self.ready.push(f);
                self.ready.sort_by_key(|f| f.0);
            }
        }
    }

    fn next(&mut self) -> Option<Task> {
        if self.failed {
            return None;
        }
        if let Some((_, sqls)) = self.ready.pop() {
            return Some(Task::Finish(sqls));
        }
        if let Some(job) = self.loads.pop() {
            self.running += 1;
            return Some(Task::Load(job));
        }
        (self.running > 0).then_some(Task::Wait)
    }

    fn loaded(&mut self, table: &str) {
        self.running -= 1;
        if let Some(n) = self.left.get_mut(table) {
            *n -= 1;
        }
        self.release_if_loaded(table);
    }
}

impl Tpcc {
    pub(crate) async fn admin(&self, cfg: &Arc<ConnConfig>) -> Result<Conn> {
        let mut c = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::db::connect_error(&cfg.target, &e))?;
        // Loads and repairs run in an order foreign keys would refuse.
        if let Some(off) = self.dialect().fk_checks_off() {
            ddl(&mut c, off).await?;
        }
        Ok(c)
    }

    /// Runs a plan on `loaders` connections of their own: each takes the
    /// next task (released finishing statements first) until none is left.
    async fn run_plan(self: &Arc<Self>, plan: LoadOrder, cfg: &Arc<ConnConfig>, loaders: usize, load_mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
        let plan = Arc::new(std::sync::Mutex::new(plan));
        let mut handles = Vec::new();
        for _ in 0..loaders {
            let (plan, cfg, progress, me) = (plan.clone(), cfg.clone(), progress.clone(), self.clone());
            handles.push(tokio::spawn(async move {
                let work = async {
                    let mut conn = me.admin(&cfg).await?;
                    loop {
                        let task = plan.lock().unwrap().next();
                        match task {
                            None => break,
                            Some(Task::Wait) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
                            Some(Task::Finish(sqls)) => {
                                for sql in sqls {
                                    // Found there already (a resumed prepare): an index on MariaDB, a foreign key on PostgreSQL.
                                    ddl_tolerant(&mut conn, &sql, &["1061", "42710"]).await?;
                                }
                            }
                            Some(Task::Load(job)) => {
                                match job {
                                    Job::Items(d) => me.load_items(&mut conn, d, load_mode, &progress).await?,
                                    Job::Part { d, w, part, clear } => me.load_part(&mut conn, d, w, part, clear, load_mode, &progress).await?,
                                }
                                plan.lock().unwrap().loaded(job.table(&me.names));
                            }
                        }
                    }
                    conn.close().await;
                    Ok::<(), Error>(())
                };
                let r = work.await;
                if r.is_err() {
                    plan.lock().unwrap().failed = true;
                }
                r
            }));
        }
        for h in handles {
            h.await.map_err(|e| Error::Sql(format!("loader failed: {e}")))??;
        }
        Ok(())
    }

    /// What each table needs once loaded: its secondary indexes (each
    /// build tolerates finding the index there, for a resumed prepare),
    /// then ANALYZE. The WAREHOUSE table, loaded last, gets its ANALYZE in
    /// [`Self::finish_schema`].
    fn finishing(&self) -> Vec<(String, u64, Vec<String>)> {
        let mut out = Vec::new();
        for n in &self.names {
            let indexes = self.schema.indexes(n);
            for t in n.all() {
                if t == n.warehouse {
                    continue;
                }
                let mut sqls: Vec<String> = indexes.iter().filter(|ix| ix.1 == t).map(|(name, table, cols)| self.dialect().create_index(name, table, cols)).collect();
                sqls.push(self.dialect().analyze(t));
                out.push((t.to_string(), weight(n, t), sqls));
            }
        }
        out
    }

    /// Foreign keys and the WAREHOUSE tables' statistics; each step
    /// tolerates being done already (a resumed prepare).
    async fn finish_schema(self: &Arc<Self>, conn: &mut Conn, cfg: &Arc<ConnConfig>, loaders: usize, quiet: bool) -> Result<()> {
        let t0 = std::time::Instant::now();
        let path = self.dialect().fk_path();
        let fks = self.schema.fk == Fk::Keys && path != FkPath::InCreateTable;
        if fks && path == FkPath::NotValidThenValidate {
            // Each key is added NOT VALID (no scan, a moment's lock on both
            // tables), then validated. A validation locks its own table
            // against another validation only, so the tables' validations
            // run side by side on the loaders' connections, heaviest table
            // first (order_line's two keys in turn); one after the other
            // they left a core idle for most of their 6-9 s at 10 warehouses.
            let mut tasks = Vec::new();
            for n in &self.names {
                let mut by_table: Vec<(String, Vec<String>)> = Vec::new();
                for (t, name, clause) in self.schema.foreign_keys(n) {
                    let sqls = [format!("ALTER TABLE {t} ADD {clause} NOT VALID"), format!("ALTER TABLE {t} VALIDATE CONSTRAINT {name}")];
                    match by_table.iter_mut().find(|(bt, _)| *bt == t) {
                        Some((_, v)) => v.extend(sqls),
                        None => by_table.push((t, sqls.to_vec())),
                    }
                }
                tasks.extend(by_table.into_iter().map(|(t, sqls)| {
                    let w = weight(n, &t);
                    (t, w, sqls)
                }));
            }
            let progress = Arc::new(Progress::new("Foreign keys", 0, true));
            self.run_plan(LoadOrder::new(Vec::new(), tasks, &self.names), cfg, loaders, LoadMode::Auto, &progress).await?;
        }
        for n in &self.names {
            if fks && path == FkPath::Alter {
                for (t, _, clause) in self.schema.foreign_keys(n) {
                    ddl_tolerant(conn, &format!("ALTER TABLE {t} ADD {clause}"), &["1826", "121", "1022"]).await?;
                }
            }
            ddl(conn, &self.dialect().analyze(&n.warehouse)).await?;
        }
        if let Some(sql) = self.dialect().after_bulk_load() {
            ddl(conn, sql).await?;
        }
        if !quiet && fks {
            println!("Foreign keys done in {:.2}s", t0.elapsed().as_secs_f64());
        }
        Ok(())
    }
}

async fn bulk(conn: &mut Conn, table: &str, cols: &[Column], src: &mut dyn RowSource, bulk_rows: usize, mode: LoadMode) -> Result<()> {
    conn.bulk_load(table, cols, src, bulk_rows, mode).await.map(|_| ()).map_err(|e| Error::Sql(format!("loading {table}: {e}")))
}

/// DDL that may find its object there already (a resumed prepare).
async fn ddl_tolerant(conn: &mut Conn, sql: &str, codes: &[&str]) -> Result<()> {
    match conn.query(sql).await {
        Ok(_) => Ok(()),
        Err(e) if codes.contains(&e.code.as_str()) || e.message.contains("already exists") || e.message.contains("Duplicate") => Ok(()),
        Err(e) => Err(Error::Sql(format!("{e}\n  in: {}", sql.lines().next().unwrap_or(sql)))),
    }
}

impl Dataset for Tpcc {
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Names(self.names.iter().flat_map(|n| n.all()).map(str::to_string).collect())
    }

    /// Every table with a warehouse id by it, so that a transaction on
    /// one warehouse stays on one shard; ITEM, read by i_id and the same
    /// for every warehouse, whole on every shard. The foreign keys tie
    /// rows of different warehouses, which no shard can check.
    fn sharding(&self) -> ShardPlan {
        let mut tables = Vec::new();
        for n in &self.names {
            let by_warehouse = [
                (&n.warehouse, "w_id"),
                (&n.district, "d_w_id"),
                (&n.customer, "c_w_id"),
                (&n.history, "h_w_id"),
                (&n.new_orders, "no_w_id"),
                (&n.orders, "o_w_id"),
                (&n.order_line, "ol_w_id"),
                (&n.stock, "s_w_id"),
            ];
            tables.extend(by_warehouse.into_iter().map(|(t, col)| Sharding::sharded(t.clone(), Key::ordinal(col))));
            tables.push(Sharding::reference(n.item.clone(), Key::int("i_id")));
        }
        let fk = (self.schema.fk == Fk::Keys).then(|| {
            "TPC-C's foreign keys tie rows of different warehouses (a remote order line's stock, a remote payment's customer), which a shard cannot check against another: run with --fk=nofk (or nofk2)".to_string()
        });
        ShardPlan::new(tables).refused_if(fk)
    }

    async fn table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        let mut conn = self.admin(cfg).await?;
        let (mut present, mut missing) = (0, 0);
        let mut problem = None;
        for n in &self.names {
            match conn.query_strings(&format!("SELECT COUNT(*), MAX(w_id) FROM {}", n.warehouse)).await {
                Ok(rows) => {
                    present += 1;
                    let get = |i: usize| rows.first().and_then(|r| r[i].as_deref()).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
                    let (count, max) = (get(0), get(1));
                    if (count != self.warehouses as u64 || max != self.warehouses as u64) && problem.is_none() {
                        problem = Some(format!("{} holds {count} complete warehouse(s) (max w_id {max}) but --warehouses is {}", n.warehouse, self.warehouses));
                    }
                }
                Err(_) => missing += 1,
            }
        }
        conn.close().await;
        Ok(match (present, missing, problem) {
            (0, _, _) => TableState::Missing,
            (_, 0, None) => TableState::Ready,
            (_, _, Some(p)) => TableState::Mismatch(p),
            (_, m, None) => TableState::Mismatch(format!("{m} of the {} TPC-C datasets are missing", self.datasets)),
        })
    }

    async fn prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let load_mode = LoadMode::parse(&self.common.load_mode).ok_or_else(|| usage!("--load-mode={}: use auto, infile or insert", self.common.load_mode))?;
        let mut conn = self.admin(&cfg).await?;
        let mut jobs = Vec::new();
        // Per dataset: the warehouses whose WAREHOUSE row is still missing.
        let mut incomplete: Vec<Vec<u32>> = Vec::new();
        for n in &self.names {
            if !quiet {
                println!("Creating TPC-C tables of dataset {} ({}, ...)...", n.n, n.warehouse);
            }
            for sql in self.schema.create(n) {
                ddl(&mut conn, &sql).await?;
            }
            if self.args.schema_only {
                incomplete.push(Vec::new());
                continue;
            }
            let done: Vec<u32> = conn
                .query_strings(&format!("SELECT w_id FROM {}", n.warehouse))
                .await
                .map_err(|e| Error::Sql(e.to_string()))?
                .iter()
                .filter_map(|r| r[0].as_deref().and_then(|s| s.parse().ok()))
                .collect();
            if let Some(w) = done.iter().find(|&&w| w > self.warehouses) {
                return Err(usage!("{} already holds warehouse {w} but --warehouses is {}: run `fairbench cleanup` first or give the size it was prepared with", n.warehouse, self.warehouses));
            }
            let todo: Vec<u32> = (1..=self.warehouses).filter(|w| !done.contains(w)).collect();
            // Table by table, so each table is complete (and its indexes
            // can be built) while the next ones load.
            for part in Part::ORDER {
                let table = part.table(n);
                let clear = !todo.is_empty() && !conn.query_strings(&format!("SELECT 1 FROM {table} LIMIT 1")).await.map_err(|e| Error::Sql(e.to_string()))?.is_empty();
                jobs.extend(todo.iter().map(|&w| Job::Part { d: n.n, w, part, clear }));
            }
            // ITEM whole in every copy, where an engine keeps one per shard.
            let sql = format!("SELECT COUNT(*) FROM {}", n.item);
            let counts = conn.query_each_copy(&n.item, &sql).await.map_err(crate::db::sql_error(&sql))?;
            if counts.iter().any(|rows| first_number(rows) != ITEMS as u64) {
                conn.empty_table(&n.item).await.map_err(crate::db::sql_error(&format!("DELETE FROM {}", n.item)))?;
                jobs.push(Job::Items(n.n));
            }
            incomplete.push(todo);
        }
        if self.dialect().fk_checks_off().is_none() && self.schema.fk == Fk::Keys && !jobs.is_empty() {
            // A resumed load writes children before parents: lift the
            // constraints and add them back (validated) at the end.
            for n in &self.names {
                for (t, name, _) in self.schema.foreign_keys(n) {
                    ddl(&mut conn, &format!("ALTER TABLE {t} DROP CONSTRAINT IF EXISTS {name}")).await?;
                }
            }
        }
        let whs: u64 = incomplete.iter().map(|ws| ws.len() as u64).sum();
        let nitems = jobs.iter().filter(|j| matches!(j, Job::Items(_))).count() as u64;
        let total = whs * ROWS_PER_WAREHOUSE + nitems * ITEMS as u64;
        let loaders = if self.dialect().one_writer() { 1 } else { threads.max(1) };
        if jobs.is_empty() && !quiet {
            println!("All {} warehouse(s) of {} dataset(s) are loaded already.", self.warehouses, self.datasets);
        } else if !quiet {
            println!("Loading {whs} warehouse(s) and {nitems} item table(s) with {loaders} loader(s), table by table; each table's indexes are built once it is loaded...");
        }
        let started = std::time::Instant::now();
        let progress = Arc::new(Progress::new("Loading", total, quiet));
        let me = Arc::new(self.clone());
        me.run_plan(LoadOrder::new(jobs, self.finishing(), &self.names), &cfg, loaders, load_mode, &progress).await?;
        // WAREHOUSE rows last, once every table holds their warehouses'
        // rows: a WAREHOUSE row means "this warehouse is complete".
        for (n, ws) in self.names.iter().zip(&incomplete) {
            self.load_warehouse_rows(&mut conn, n.n, ws, load_mode, &progress).await?;
        }
        progress.finish();
        let secs = started.elapsed().as_secs_f64();
        if !quiet && total > 0 {
            println!("Loaded about {total} rows in {secs:.2}s ({:.0} rows/s, index builds included)", total as f64 / secs.max(1e-9));
        }
        me.finish_schema(&mut conn, &cfg, loaders, quiet).await?;
        if self.args.tpcc_shape == super::shape::Shape::Procedures {
            self.install_routines(&mut conn, &cfg, false, &|line| {
                if !quiet {
                    println!("{line}")
                }
            })
            .await?;
        }
        conn.close().await;
        Ok(())
    }

    async fn cleanup(&self, cfg: Arc<ConnConfig>, _threads: usize, quiet: bool) -> Result<()> {
        let mut conn = self.admin(&cfg).await?;
        for n in &self.names {
            if !quiet {
                println!("Dropping TPC-C tables of dataset {}...", n.n);
            }
            for sql in self.dialect().drop_tables(&n.all()) {
                ddl(&mut conn, &sql).await?;
            }
        }
        self.drop_routines(&mut conn, &cfg, quiet).await?;
        conn.close().await;
        Ok(())
    }

    async fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let mut conn = self.admin(&cfg).await?;
        for n in &self.names {
            if !quiet {
                println!("Prewarming TPC-C tables of dataset {}...", n.n);
            }
            for t in n.all() {
                ddl(&mut conn, &format!("SELECT COUNT(*) FROM {t}")).await?;
            }
            ddl(&mut conn, &format!("SELECT COUNT(*) FROM {} WHERE c_last LIKE '%A%'", n.customer)).await?;
        }
        conn.close().await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::parsed_args as parsed;

    fn tpcc(extra: &[&str]) -> Tpcc {
        Tpcc::new(parsed(extra), parsed(&[]), 1, crate::db::engines::named("mysql").unwrap()).unwrap()
    }

    /// Every table with a warehouse id by it (a few consecutive ids:
    /// spread evenly), ITEM whole on every shard, per dataset, with the
    /// prefix; the foreign keys cannot hold across shards.
    #[test]
    fn tables_shard_by_warehouse() {
        let plan = tpcc(&["--fk=nofk", "--datasets=2", "--tpcc-prefix=x_"]);
        assert_eq!(plan.sharding().refused, None);
        let tables = plan.sharding().tables;
        assert_eq!(tables.len(), 18);
        let w = |t: &str, c: &str| Sharding::sharded(t, Key::ordinal(c));
        assert_eq!(
            tables[..9],
            [
                w("x_warehouse1", "w_id"),
                w("x_district1", "d_w_id"),
                w("x_customer1", "c_w_id"),
                w("x_history1", "h_w_id"),
                w("x_new_orders1", "no_w_id"),
                w("x_orders1", "o_w_id"),
                w("x_order_line1", "ol_w_id"),
                w("x_stock1", "s_w_id"),
                Sharding::reference("x_item1", Key::int("i_id")),
            ]
        );
        assert_eq!(tables[17], Sharding::reference("x_item2", Key::int("i_id")));
        // Every table of the dataset is declared once.
        let declared: std::collections::BTreeSet<&str> = tables.iter().map(|s| s.table()).collect();
        assert_eq!(declared.len(), 18);
        let fk = tpcc(&[]).sharding().refused.unwrap();
        assert!(fk.contains("--fk=nofk") && !fk.contains('\n'), "{fk}");
        assert_eq!(tpcc(&["--fk=nofk2"]).sharding().refused, None);
    }

    fn load(task: Option<Task>) -> Job {
        match task {
            Some(Task::Load(j)) => j,
            _ => panic!("expected a load job"),
        }
    }

    fn finish(task: Option<Task>) -> Vec<String> {
        match task {
            Some(Task::Finish(s)) => s,
            _ => panic!("expected finishing statements"),
        }
    }

    /// A table's statements wait for its last load job, the heaviest ready
    /// ones go first, and a failure stops everyone.
    #[test]
    fn plan_releases_a_table_once_loaded() {
        let names = [Names::new("", 1)];
        let part = |w, part| Job::Part { d: 1, w, part, clear: false };
        let jobs = vec![part(1, Part::OrderLine), part(2, Part::OrderLine), part(1, Part::Stock), Job::Items(1)];
        let fin = |t: &str, w, s: &str| (t.to_string(), w, vec![s.to_string()]);
        let mut plan = LoadOrder::new(jobs, vec![fin("order_line1", 300, "ol"), fin("stock1", 100, "s"), fin("district1", 30, "d"), fin("item1", 30, "i")], &names);
        assert_eq!(finish(plan.next()), ["d"], "a table with nothing to load is ready at once");
        let (a, b) = (load(plan.next()), load(plan.next()));
        assert_eq!((a.table(&names), b.table(&names)), ("order_line1", "order_line1"));
        plan.loaded("order_line1");
        assert_eq!(load(plan.next()).table(&names), "stock1", "order_line still has a job running");
        plan.loaded("order_line1");
        plan.loaded("stock1");
        assert_eq!(finish(plan.next()), ["ol"]);
        assert_eq!(finish(plan.next()), ["s"]);
        assert_eq!(load(plan.next()).table(&names), "item1");
        assert!(matches!(plan.next(), Some(Task::Wait)), "item1 still loading");
        plan.failed = true;
        assert!(plan.next().is_none());
    }
}
