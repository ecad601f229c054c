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

use super::schema::{Fk, Names};
use super::{last_name, Tpcc, C_LOAD_LAST};
use crate::db::FkPath;
use crate::db::{ColType, Column, Conn, ConnConfig, LoadMode, Row, RowSource, StatementSet};
use crate::error::{Error, Result};
use crate::output::Progress;
use crate::rand::{nurand, Rng};
use crate::usage;
use crate::workload::{Dataset, DatasetTables, TableState};
use std::sync::Arc;

const ITEMS: u32 = 100_000;
const ALNUM: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Rows per warehouse, roughly (for the progress bar).
const ROWS_PER_WAREHOUSE: u64 = 100_000 + 10 + 30_000 * 3 + 9_000 + 300_000 + 1;

/// Random alphanumeric string of length [lo, hi] (TPC-C's a-string).
pub fn astr(rng: &mut Rng, lo: u64, hi: u64, out: &mut Vec<u8>) {
    out.clear();
    let n = rng.uniform(lo, hi) as usize;
    let mut bits = 0u64;
    let mut left = 0;
    for _ in 0..n {
        if left == 0 {
            bits = rng.next_u64();
            left = 10;
        }
        out.push(ALNUM[((bits & 63) % 62) as usize]);
        bits >>= 6;
        left -= 1;
    }
}

/// Random digit string of length n (TPC-C's n-string).
fn nstr(rng: &mut Rng, n: usize, out: &mut Vec<u8>) {
    out.clear();
    for _ in 0..n {
        out.push(b'0' + rng.uniform(0, 9) as u8);
    }
}

/// 10% of i_data / s_data carry "ORIGINAL" at a random position.
fn data_original(rng: &mut Rng, out: &mut Vec<u8>) {
    astr(rng, 26, 50, out);
    if rng.uniform(1, 10) == 1 {
        let pos = rng.uniform(0, out.len() as u64 - 8) as usize;
        out[pos..pos + 8].copy_from_slice(b"ORIGINAL");
    }
}

fn col(name: &str, ty: ColType) -> Column {
    Column { name: name.into(), ty }
}

/// Rows produced by a closure, with progress reported every few thousand rows.
struct Gen<F: FnMut(&mut Row) -> bool + Send> {
    f: F,
    progress: Arc<Progress>,
    pending: u64,
    /// Once exhausted, stay exhausted (bulk paths may ask again).
    done: bool,
}

impl<F: FnMut(&mut Row) -> bool + Send> Gen<F> {
    fn new(progress: &Arc<Progress>, f: F) -> Self {
        Gen { f, progress: progress.clone(), pending: 0, done: false }
    }
}

/// Walks (district, number) over a warehouse's ten districts, numbers
/// `first..=last` in each: customers and their history rows, orders, new
/// orders.
struct Districts {
    dist: usize,
    n: usize,
    first: usize,
    last: usize,
}

impl Districts {
    fn new(first: usize, last: usize) -> Self {
        Districts { dist: 1, n: first - 1, first, last }
    }

    fn next(&mut self) -> Option<(usize, usize)> {
        self.n += 1;
        if self.n > self.last {
            self.n = self.first;
            self.dist += 1;
        }
        (self.dist <= 10).then_some((self.dist, self.n))
    }
}

impl<F: FnMut(&mut Row) -> bool + Send> RowSource for Gen<F> {
    fn next_row(&mut self, row: &mut Row) -> bool {
        row.nulls = 0;
        if self.done || !(self.f)(row) {
            self.done = true;
            self.progress.add(self.pending);
            self.pending = 0;
            return false;
        }
        self.pending += 1;
        if self.pending >= 4096 {
            self.progress.add(self.pending);
            self.pending = 0;
        }
        true
    }
}

fn set_texts(row: &mut Row, n: usize) {
    row.ints.clear();
    row.texts.resize(n, Vec::new());
}

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
struct Plan {
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

impl Plan {
    fn new(mut loads: Vec<Job>, finish: Vec<(String, u64, Vec<String>)>, names: &[Names]) -> Plan {
        let mut left = std::collections::HashMap::new();
        for j in &loads {
            *left.entry(j.table(names).to_string()).or_insert(0usize) += 1;
        }
        loads.reverse();
        let mut plan = Plan { loads, running: 0, left, held: Default::default(), ready: Vec::new(), failed: false };
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
    async fn admin(&self, cfg: &Arc<ConnConfig>) -> Result<Conn> {
        let mut c = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::db::connect_error(&cfg.target, &e))?;
        // Loads and repairs run in an order foreign keys would refuse.
        if let Some(off) = self.dialect().fk_checks_off() {
            ddl(&mut c, off).await?;
        }
        Ok(c)
    }

    /// Runs a plan on `loaders` connections of their own: each takes the
    /// next task (released finishing statements first) until none is left.
    async fn run_plan(self: &Arc<Self>, plan: Plan, cfg: &Arc<ConnConfig>, loaders: usize, load_mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
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
        let fks = self.schema.fk == Fk::Fk && path != FkPath::InCreateTable;
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
            self.run_plan(Plan::new(Vec::new(), tasks, &self.names), cfg, loaders, LoadMode::Auto, &progress).await?;
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

    fn rng_for(&self, d: u32, w: u32, table: u64) -> Rng {
        Rng::from_seed(self.load_seed, ((d as u64) << 40) ^ ((w as u64) << 8) ^ table)
    }

    async fn load_items(&self, conn: &mut Conn, d: u32, mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
        let n = &self.names[d as usize - 1];
        let cols = [col("i_id", ColType::Int), col("i_im_id", ColType::Int), col("i_name", ColType::Text), col("i_price", ColType::Numeric(2)), col("i_data", ColType::Text)];
        let mut rng = self.rng_for(d, 0, 9);
        let mut i = 0u32;
        let mut src = Gen::new(progress, |row: &mut Row| {
            if i >= ITEMS {
                return false;
            }
            i += 1;
            set_texts(row, 2);
            row.ints.extend([i as i64, rng.uniform(1, 10_000) as i64]);
            astr(&mut rng, 14, 24, &mut row.texts[0]);
            row.ints.push(rng.uniform(100, 10_000) as i64);
            data_original(&mut rng, &mut row.texts[1]);
            true
        });
        bulk(conn, &n.item, &cols, &mut src, self.common.load_bulk_size, mode).await
    }

    /// One table's rows of warehouse `w`, after removing what an
    /// interrupted load left of them when `clear`.
    #[allow(clippy::too_many_arguments)]
    async fn load_part(&self, conn: &mut Conn, d: u32, w: u32, part: Part, clear: bool, mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
        let n = &self.names[d as usize - 1];
        let bulk_rows = self.common.load_bulk_size;
        if clear {
            ddl(conn, &format!("DELETE FROM {} WHERE {} = {w}", part.table(n), part.w_col())).await?;
        }
        let now = self.load_time;
        let wi = w as i64;
        let force_null = self.schema.force_null;
        match part {
            Part::Stock => {
                let mut cols = vec![col("s_i_id", ColType::Int), col("s_w_id", ColType::SmallInt), col("s_quantity", ColType::SmallInt)];
                for k in 1..=10 {
                    cols.push(col(&format!("s_dist_{k:02}"), ColType::Text));
                }
                cols.extend([col("s_ytd", ColType::Numeric(0)), col("s_order_cnt", ColType::SmallInt), col("s_remote_cnt", ColType::SmallInt), col("s_data", ColType::Text)]);
                let mut rng = self.rng_for(d, w, 1);
                let mut i = 0u32;
                let mut src = Gen::new(progress, |row: &mut Row| {
                    if i >= ITEMS {
                        return false;
                    }
                    i += 1;
                    set_texts(row, 11);
                    row.ints.extend([i as i64, wi, rng.uniform(10, 100) as i64, 0, 0, 0]);
                    for k in 0..10 {
                        astr(&mut rng, 24, 24, &mut row.texts[k]);
                    }
                    data_original(&mut rng, &mut row.texts[10]);
                    true
                });
                bulk(conn, &n.stock, &cols, &mut src, bulk_rows, mode).await
            }
            Part::Customer => {
                // CUSTOMER (3000 per district; last names sequential, then NURand(255))
                let cols = [
                    col("c_id", ColType::Int),
                    col("c_d_id", ColType::SmallInt),
                    col("c_w_id", ColType::SmallInt),
                    col("c_first", ColType::Text),
                    col("c_middle", ColType::Text),
                    col("c_last", ColType::Text),
                    col("c_street_1", ColType::Text),
                    col("c_street_2", ColType::Text),
                    col("c_city", ColType::Text),
                    col("c_state", ColType::Text),
                    col("c_zip", ColType::Text),
                    col("c_phone", ColType::Text),
                    col("c_since", ColType::Timestamp),
                    col("c_credit", ColType::Text),
                    col("c_credit_lim", ColType::BigInt),
                    col("c_discount", ColType::Numeric(4)),
                    col("c_balance", ColType::Numeric(2)),
                    col("c_ytd_payment", ColType::Numeric(2)),
                    col("c_payment_cnt", ColType::SmallInt),
                    col("c_delivery_cnt", ColType::SmallInt),
                    col("c_data", ColType::Text),
                ];
                let mut rng = self.rng_for(d, w, 2);
                let mut walk = Districts::new(1, 3000);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    let Some((dist, c)) = walk.next() else { return false };
                    set_texts(row, 11);
                    let t = &mut row.texts;
                    astr(&mut rng, 8, 16, &mut t[0]);
                    t[1].clear();
                    t[1].extend_from_slice(b"OE");
                    let ln = if c <= 1000 { c as u64 - 1 } else { nurand(&mut rng, 255, C_LOAD_LAST, 0, 999) };
                    t[2].clear();
                    t[2].extend_from_slice(last_name(ln).as_bytes());
                    astr(&mut rng, 10, 20, &mut t[3]);
                    astr(&mut rng, 10, 20, &mut t[4]);
                    astr(&mut rng, 10, 20, &mut t[5]);
                    astr(&mut rng, 2, 2, &mut t[6]);
                    nstr(&mut rng, 4, &mut t[7]);
                    t[7].extend_from_slice(b"11111");
                    nstr(&mut rng, 16, &mut t[8]);
                    t[9].clear();
                    t[9].extend_from_slice(if rng.uniform(1, 100) <= 10 { b"BC" } else { b"GC" });
                    astr(&mut rng, 300, 500, &mut t[10]);
                    row.ints.extend([c as i64, dist as i64, wi, now, 50_000, rng.uniform(0, 5000) as i64, -1000, 1000, 1, 0]);
                    true
                });
                bulk(conn, &n.customer, &cols, &mut src, bulk_rows, mode).await
            }
            Part::History => {
                // HISTORY (one per customer)
                let cols = [
                    col("h_c_id", ColType::Int),
                    col("h_c_d_id", ColType::SmallInt),
                    col("h_c_w_id", ColType::SmallInt),
                    col("h_d_id", ColType::SmallInt),
                    col("h_w_id", ColType::SmallInt),
                    col("h_date", ColType::Timestamp),
                    col("h_amount", ColType::Numeric(2)),
                    col("h_data", ColType::Text),
                ];
                let mut rng = self.rng_for(d, w, 3);
                let mut walk = Districts::new(1, 3000);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    let Some((dist, c)) = walk.next() else { return false };
                    set_texts(row, 1);
                    row.ints.extend([c as i64, dist as i64, wi, dist as i64, wi, now, 1000]);
                    astr(&mut rng, 12, 24, &mut row.texts[0]);
                    true
                });
                bulk(conn, &n.history, &cols, &mut src, bulk_rows, mode).await
            }
            Part::Orders => {
                // ORDERS with a shuffled customer per district, and their line counts.
                let (mut rng, perms, ol_cnt) = self.order_shapes(d, w);
                let cols = [
                    col("o_id", ColType::Int),
                    col("o_d_id", ColType::SmallInt),
                    col("o_w_id", ColType::SmallInt),
                    col("o_c_id", ColType::Int),
                    col("o_entry_d", ColType::Timestamp),
                    col("o_carrier_id", ColType::SmallInt),
                    col("o_ol_cnt", ColType::SmallInt),
                    col("o_all_local", ColType::SmallInt),
                ];
                let mut walk = Districts::new(1, 3000);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    let Some((dist, o)) = walk.next() else { return false };
                    set_texts(row, 0);
                    let delivered = o <= 2100;
                    let carrier = if delivered { rng.uniform(1, 10) as i64 } else { 0 };
                    if !delivered && force_null {
                        row.nulls |= 1 << 5;
                    }
                    row.ints.extend([o as i64, dist as i64, wi, perms[dist - 1][o - 1] as i64, now, carrier, ol_cnt[(dist - 1) * 3000 + o - 1] as i64, 1]);
                    true
                });
                bulk(conn, &n.orders, &cols, &mut src, bulk_rows, mode).await
            }
            Part::NewOrders => {
                // NEW_ORDERS: the last 900 orders of each district.
                let cols = [col("no_o_id", ColType::Int), col("no_d_id", ColType::SmallInt), col("no_w_id", ColType::SmallInt)];
                let mut walk = Districts::new(2101, 3000);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    let Some((dist, o)) = walk.next() else { return false };
                    set_texts(row, 0);
                    row.ints.extend([o as i64, dist as i64, wi]);
                    true
                });
                bulk(conn, &n.new_orders, &cols, &mut src, bulk_rows, mode).await
            }
            Part::OrderLine => {
                // ORDER_LINE, with the line counts ORDERS drew
                let (_, _, ol_cnt) = self.order_shapes(d, w);
                let cols = [
                    col("ol_o_id", ColType::Int),
                    col("ol_d_id", ColType::SmallInt),
                    col("ol_w_id", ColType::SmallInt),
                    col("ol_number", ColType::SmallInt),
                    col("ol_i_id", ColType::Int),
                    col("ol_supply_w_id", ColType::SmallInt),
                    col("ol_delivery_d", ColType::Timestamp),
                    col("ol_quantity", ColType::SmallInt),
                    col("ol_amount", ColType::Numeric(2)),
                    col("ol_dist_info", ColType::Text),
                ];
                let mut rng = self.rng_for(d, w, 5);
                let (mut dist, mut o, mut l) = (1usize, 1usize, 0u8);
                let mut src = Gen::new(progress, |row: &mut Row| {
                    l += 1;
                    if l > ol_cnt[(dist - 1) * 3000 + o - 1] {
                        l = 1;
                        o += 1;
                        if o > 3000 {
                            o = 1;
                            dist += 1;
                        }
                    }
                    if dist > 10 {
                        return false;
                    }
                    set_texts(row, 1);
                    let delivered = o <= 2100;
                    if !delivered && force_null {
                        row.nulls |= 1 << 6;
                    }
                    let amount = if delivered { 0 } else { rng.uniform(1, 999_999) as i64 };
                    row.ints.extend([o as i64, dist as i64, wi, l as i64, rng.uniform(1, ITEMS as u64) as i64, wi, if delivered { now } else { 0 }, 5, amount]);
                    astr(&mut rng, 24, 24, &mut row.texts[0]);
                    true
                });
                bulk(conn, &n.order_line, &cols, &mut src, bulk_rows, mode).await
            }
            Part::District => {
                let cols = [
                    col("d_id", ColType::SmallInt),
                    col("d_w_id", ColType::SmallInt),
                    col("d_name", ColType::Text),
                    col("d_street_1", ColType::Text),
                    col("d_street_2", ColType::Text),
                    col("d_city", ColType::Text),
                    col("d_state", ColType::Text),
                    col("d_zip", ColType::Text),
                    col("d_tax", ColType::Numeric(4)),
                    col("d_ytd", ColType::Numeric(2)),
                    col("d_next_o_id", ColType::Int),
                ];
                let mut rng = self.rng_for(d, w, 6);
                let mut dist = 0i64;
                let mut src = Gen::new(progress, |row: &mut Row| {
                    dist += 1;
                    if dist > 10 {
                        return false;
                    }
                    set_texts(row, 6);
                    address(&mut rng, &mut row.texts);
                    row.ints.extend([dist, wi, rng.uniform(0, 2000) as i64, 3_000_000, 3001]);
                    true
                });
                bulk(conn, &n.district, &cols, &mut src, bulk_rows, mode).await
            }
        }
    }

    /// Each district's shuffled customers and each order's line count,
    /// drawn from the ORDERS stream, which goes on to draw the carriers;
    /// ORDER_LINE draws them again to agree with ORDERS.
    fn order_shapes(&self, d: u32, w: u32) -> (Rng, Vec<Vec<u32>>, Vec<u8>) {
        let mut rng = self.rng_for(d, w, 4);
        let mut perms: Vec<Vec<u32>> = Vec::with_capacity(10);
        let mut ol_cnt: Vec<u8> = Vec::with_capacity(30_000);
        for _ in 0..10 {
            let mut p: Vec<u32> = (1..=3000).collect();
            for i in (1..p.len()).rev() {
                let j = rng.uniform(0, i as u64) as usize;
                p.swap(i, j);
            }
            perms.push(p);
            for _ in 0..3000 {
                ol_cnt.push(rng.uniform(5, 15) as u8);
            }
        }
        (rng, perms, ol_cnt)
    }

    /// The WAREHOUSE rows of warehouses `ws`, written once all their other
    /// rows are: a WAREHOUSE row marks its warehouse complete.
    async fn load_warehouse_rows(&self, conn: &mut Conn, d: u32, ws: &[u32], mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
        let n = &self.names[d as usize - 1];
        let cols = [
            col("w_id", ColType::SmallInt),
            col("w_name", ColType::Text),
            col("w_street_1", ColType::Text),
            col("w_street_2", ColType::Text),
            col("w_city", ColType::Text),
            col("w_state", ColType::Text),
            col("w_zip", ColType::Text),
            col("w_tax", ColType::Numeric(4)),
            col("w_ytd", ColType::Numeric(2)),
        ];
        let mut next = ws.iter();
        let mut src = Gen::new(progress, |row: &mut Row| {
            let Some(&w) = next.next() else { return false };
            let mut rng = self.rng_for(d, w, 7);
            let wi = w as i64;
            set_texts(row, 6);
            address(&mut rng, &mut row.texts);
            row.ints.extend([wi, rng.uniform(0, 2000) as i64, 30_000_000]);
            true
        });
        bulk(conn, &n.warehouse, &cols, &mut src, self.common.load_bulk_size, mode).await
    }
}

/// name, street 1/2, city, state, zip into texts[0..6].
fn address(rng: &mut Rng, t: &mut [Vec<u8>]) {
    astr(rng, 6, 10, &mut t[0]);
    astr(rng, 10, 20, &mut t[1]);
    astr(rng, 10, 20, &mut t[2]);
    astr(rng, 10, 20, &mut t[3]);
    astr(rng, 2, 2, &mut t[4]);
    nstr(rng, 4, &mut t[5]);
    t[5].extend_from_slice(b"11111");
}

async fn bulk(conn: &mut Conn, table: &str, cols: &[Column], src: &mut dyn RowSource, bulk_rows: usize, mode: LoadMode) -> Result<()> {
    conn.bulk_load(table, cols, src, bulk_rows, mode).await.map(|_| ()).map_err(|e| Error::Sql(format!("loading {table}: {e}")))
}

pub async fn ddl(conn: &mut Conn, sql: &str) -> Result<()> {
    conn.query(sql).await.map(|_| ()).map_err(|e| Error::Sql(format!("{e}\n  in: {}", sql.lines().next().unwrap_or(sql))))
}

/// DDL that may find its object there already (a resumed prepare).
async fn ddl_tolerant(conn: &mut Conn, sql: &str, codes: &[&str]) -> Result<()> {
    match conn.query(sql).await {
        Ok(_) => Ok(()),
        Err(e) if codes.contains(&e.code.as_str()) || e.message.contains("already exists") || e.message.contains("Duplicate") => Ok(()),
        Err(e) => Err(Error::Sql(format!("{e}\n  in: {}", sql.lines().next().unwrap_or(sql)))),
    }
}

pub async fn count(conn: &mut Conn, sql: &str) -> Result<u64> {
    let rows = conn.query_strings(sql).await.map_err(|e| Error::Sql(format!("{e}\n  in: {sql}")))?;
    Ok(rows.first().and_then(|r| r[0].as_deref()).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0) as u64)
}

impl Dataset for Tpcc {
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Names(self.names.iter().flat_map(|n| n.all()).map(str::to_string).collect())
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
            let items = count(&mut conn, &format!("SELECT COUNT(*) FROM {}", n.item)).await?;
            if items != ITEMS as u64 {
                ddl(&mut conn, &format!("DELETE FROM {}", n.item)).await?;
                jobs.push(Job::Items(n.n));
            }
            incomplete.push(todo);
        }
        if self.dialect().fk_checks_off().is_none() && self.schema.fk == Fk::Fk && !jobs.is_empty() {
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
        me.run_plan(Plan::new(jobs, self.finishing(), &self.names), &cfg, loaders, load_mode, &progress).await?;
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
        let mut plan = Plan::new(jobs, vec![fin("order_line1", 300, "ol"), fin("stock1", 100, "s"), fin("district1", 30, "d"), fin("item1", 30, "i")], &names);
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
