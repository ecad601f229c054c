//! prepare / cleanup / prewarm: create the tables, load spec data in
//! parallel by warehouse over all datasets through each engine's bulk path,
//! then build the secondary indexes and foreign keys.
//!
//! A warehouse's rows are written table by table and its WAREHOUSE row
//! last, so a WAREHOUSE row means "this warehouse is complete". A prepare
//! that finds tables already there loads only what is missing: it deletes
//! the partial rows of incomplete warehouses first, so an interrupted load
//! can be resumed without duplicate-key failures (cleanup + prepare
//! restarts from scratch).

use super::schema::Fk;
use super::{last_name, Tpcc, C_LOAD_LAST};
use crate::error::{Error, Result};
use crate::rand::{nurand, Rng};
use crate::report::progress::Progress;
use crate::target::{ColType, Column, Conn, ConnConfig, Engine, LoadMode, Row, RowSource, StatementSet};
use crate::usage;
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

/// What one loader task does.
#[derive(Clone, Copy, Debug)]
enum Job {
    Items(u32),
    Warehouse(u32, u32),
}

impl Tpcc {
    async fn admin(&self, cfg: &Arc<ConnConfig>) -> Result<Conn> {
        let mut c = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::runner::connect_error(&cfg.target, &e))?;
        // Loads and repairs run in an order foreign keys would refuse.
        match self.engine {
            Engine::Mysql => ddl(&mut c, "SET foreign_key_checks=0").await?,
            Engine::Sqlite => ddl(&mut c, "PRAGMA foreign_keys=OFF").await?,
            Engine::Postgres => {}
        }
        Ok(c)
    }

    pub async fn do_table_state(&self, cfg: &Arc<ConnConfig>) -> Result<crate::workload::TableState> {
        use crate::workload::TableState;
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

    pub async fn do_prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let load_mode = LoadMode::parse(&self.oltp.load_mode).ok_or_else(|| usage!("--load-mode={}: use auto, infile or insert", self.oltp.load_mode))?;
        let mut conn = self.admin(&cfg).await?;
        let mut jobs = Vec::new();
        for n in &self.names {
            if !quiet {
                println!("Creating TPC-C tables of dataset {} ({}, ...)...", n.n, n.warehouse);
            }
            for sql in self.schema.create(n) {
                ddl(&mut conn, &sql).await?;
            }
            if self.args.schema_only {
                continue;
            }
            let items = count(&mut conn, &format!("SELECT COUNT(*) FROM {}", n.item)).await?;
            if items != ITEMS as u64 {
                ddl(&mut conn, &format!("DELETE FROM {}", n.item)).await?;
                jobs.push(Job::Items(n.n));
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
            for w in 1..=self.warehouses {
                if !done.contains(&w) {
                    jobs.push(Job::Warehouse(n.n, w));
                }
            }
        }
        if self.engine == Engine::Postgres && self.schema.fk == Fk::Fk && !jobs.is_empty() {
            // A resumed load writes children before parents: lift the
            // constraints and add them back (validated) at the end.
            for n in &self.names {
                for (t, name, _) in self.schema.foreign_keys(n) {
                    ddl(&mut conn, &format!("ALTER TABLE {t} DROP CONSTRAINT IF EXISTS {name}")).await?;
                }
            }
        }
        let whs = jobs.iter().filter(|j| matches!(j, Job::Warehouse(..))).count() as u64;
        let nitems = jobs.len() as u64 - whs;
        let total = whs * ROWS_PER_WAREHOUSE + nitems * ITEMS as u64;
        if jobs.is_empty() && !quiet {
            println!("All {} warehouse(s) of {} dataset(s) are loaded already.", self.warehouses, self.datasets);
        } else if !quiet {
            println!("Loading {whs} warehouse(s) and {nitems} item table(s) with {} loader(s)...", if self.engine == Engine::Sqlite { 1 } else { threads.max(1) });
        }
        let started = std::time::Instant::now();
        let progress = Arc::new(Progress::new("Loading", total, quiet));
        let loaders = if self.engine == Engine::Sqlite { 1 } else { threads.max(1).min(jobs.len().max(1)) };
        jobs.reverse(); // pop() takes items first
        let queue = Arc::new(std::sync::Mutex::new(jobs));
        let me = Arc::new(self.clone());
        let mut handles = Vec::new();
        for _ in 0..loaders {
            let (queue, cfg, progress, me) = (queue.clone(), cfg.clone(), progress.clone(), me.clone());
            handles.push(tokio::spawn(async move {
                let mut conn = me.admin(&cfg).await?;
                loop {
                    let job = queue.lock().unwrap().pop();
                    let Some(job) = job else { break };
                    match job {
                        Job::Items(d) => me.load_items(&mut conn, d, load_mode, &progress).await?,
                        Job::Warehouse(d, w) => me.load_warehouse(&mut conn, d, w, load_mode, &progress).await?,
                    }
                }
                conn.close().await;
                Ok::<(), Error>(())
            }));
        }
        for h in handles {
            h.await.map_err(|e| Error::Sql(format!("loader failed: {e}")))??;
        }
        progress.finish();
        let secs = started.elapsed().as_secs_f64();
        if !quiet && total > 0 {
            println!("Loaded about {total} rows in {secs:.2}s ({:.0} rows/s)", total as f64 / secs.max(1e-9));
        }
        self.finish_schema(&cfg, threads, &mut conn, quiet).await?;
        conn.close().await;
        Ok(())
    }

    /// The secondary indexes, built side by side on several connections
    /// (they touch different tables), biggest table first so that the
    /// longest build never starts last: on MariaDB the order_line index
    /// alone takes 60% of the serial time. At most one build per core when
    /// the server shares this machine; one at a time on SQLite (one writer).
    async fn build_indexes(&self, cfg: &Arc<ConnConfig>, threads: usize) -> Result<()> {
        let mut jobs: Vec<(u64, String)> = Vec::new();
        for n in &self.names {
            for (name, table, cols) in self.schema.indexes(n) {
                let sql = match self.engine {
                    Engine::Mysql => format!("CREATE INDEX {name} ON {table} ({cols})"),
                    _ => format!("CREATE INDEX IF NOT EXISTS {name} ON {table} ({cols})"),
                };
                // Rows per warehouse, as the weight of the build.
                let weight = if table == n.order_line { 300 } else if table == n.stock { 100 } else { 30 };
                jobs.push((weight, sql));
            }
        }
        jobs.sort_by_key(|j| j.0); // pop() takes the heaviest first
        let builders = match self.engine {
            Engine::Sqlite => 1,
            _ => crate::env::per_core_if_local(cfg, threads),
        }
        .clamp(1, jobs.len().max(1));
        let queue = Arc::new(std::sync::Mutex::new(jobs));
        let mut handles = Vec::new();
        for _ in 0..builders {
            let (queue, cfg, me) = (queue.clone(), cfg.clone(), self.clone());
            handles.push(tokio::spawn(async move {
                let mut conn = me.admin(&cfg).await?;
                loop {
                    let job = queue.lock().unwrap().pop();
                    let Some((_, sql)) = job else { break };
                    ddl_tolerant(&mut conn, &sql, &["1061"]).await?;
                }
                conn.close().await;
                Ok::<(), Error>(())
            }));
        }
        for h in handles {
            h.await.map_err(|e| Error::Sql(format!("index build failed: {e}")))??;
        }
        Ok(())
    }

    /// Secondary indexes, foreign keys and statistics; each step tolerates
    /// being done already (a resumed prepare).
    async fn finish_schema(&self, cfg: &Arc<ConnConfig>, threads: usize, conn: &mut Conn, quiet: bool) -> Result<()> {
        let t0 = std::time::Instant::now();
        self.build_indexes(cfg, threads).await?;
        for n in &self.names {
            if self.schema.fk == Fk::Fk && self.engine != Engine::Sqlite {
                for (t, _, clause) in self.schema.foreign_keys(n) {
                    ddl_tolerant(conn, &format!("ALTER TABLE {t} ADD {clause}"), &["1826", "121", "42710", "1022"]).await?;
                }
            }
            for t in n.all() {
                let sql = match self.engine {
                    Engine::Mysql => format!("ANALYZE TABLE {t}"),
                    _ => format!("ANALYZE {t}"),
                };
                ddl(conn, &sql).await?;
            }
        }
        if self.engine == Engine::Sqlite {
            ddl(conn, "PRAGMA wal_checkpoint(TRUNCATE)").await?;
        }
        if !quiet {
            println!("Indexes{} and statistics done in {:.2}s", if self.schema.fk == Fk::Fk { ", foreign keys" } else { "" }, t0.elapsed().as_secs_f64());
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
        let mut src = Gen {
            f: |row: &mut Row| {
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
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.item, &cols, &mut src, self.oltp.load_bulk_size, mode).await
    }

    async fn load_warehouse(&self, conn: &mut Conn, d: u32, w: u32, mode: LoadMode, progress: &Arc<Progress>) -> Result<()> {
        let n = &self.names[d as usize - 1];
        let bulk_rows = self.oltp.load_bulk_size;
        // Remove what an interrupted load left behind.
        for (t, c) in [(&n.stock, "s_w_id"), (&n.customer, "c_w_id"), (&n.history, "h_w_id"), (&n.orders, "o_w_id"), (&n.new_orders, "no_w_id"), (&n.order_line, "ol_w_id"), (&n.district, "d_w_id")] {
            ddl(conn, &format!("DELETE FROM {t} WHERE {c} = {w}")).await?;
        }
        let now = self.load_time;
        let wi = w as i64;

        // STOCK
        let mut cols = vec![col("s_i_id", ColType::Int), col("s_w_id", ColType::SmallInt), col("s_quantity", ColType::SmallInt)];
        for k in 1..=10 {
            cols.push(col(&format!("s_dist_{k:02}"), ColType::Text));
        }
        cols.extend([col("s_ytd", ColType::Numeric(0)), col("s_order_cnt", ColType::SmallInt), col("s_remote_cnt", ColType::SmallInt), col("s_data", ColType::Text)]);
        let mut rng = self.rng_for(d, w, 1);
        let mut i = 0u32;
        let mut src = Gen {
            f: |row: &mut Row| {
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
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.stock, &cols, &mut src, bulk_rows, mode).await?;

        // CUSTOMER (3000 per district; last names sequential, then NURand(255))
        let cols = [
            col("c_id", ColType::Int), col("c_d_id", ColType::SmallInt), col("c_w_id", ColType::SmallInt), col("c_first", ColType::Text), col("c_middle", ColType::Text),
            col("c_last", ColType::Text), col("c_street_1", ColType::Text), col("c_street_2", ColType::Text), col("c_city", ColType::Text), col("c_state", ColType::Text),
            col("c_zip", ColType::Text), col("c_phone", ColType::Text), col("c_since", ColType::Timestamp), col("c_credit", ColType::Text), col("c_credit_lim", ColType::BigInt),
            col("c_discount", ColType::Numeric(4)), col("c_balance", ColType::Numeric(2)), col("c_ytd_payment", ColType::Numeric(2)), col("c_payment_cnt", ColType::SmallInt),
            col("c_delivery_cnt", ColType::SmallInt), col("c_data", ColType::Text),
        ];
        let mut rng = self.rng_for(d, w, 2);
        let (mut dist, mut c) = (1u32, 0u32);
        let mut src = Gen {
            f: |row: &mut Row| {
                c += 1;
                if c > 3000 {
                    c = 1;
                    dist += 1;
                }
                if dist > 10 {
                    return false;
                }
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
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.customer, &cols, &mut src, bulk_rows, mode).await?;

        // HISTORY (one per customer)
        let cols = [
            col("h_c_id", ColType::Int), col("h_c_d_id", ColType::SmallInt), col("h_c_w_id", ColType::SmallInt), col("h_d_id", ColType::SmallInt), col("h_w_id", ColType::SmallInt),
            col("h_date", ColType::Timestamp), col("h_amount", ColType::Numeric(2)), col("h_data", ColType::Text),
        ];
        let mut rng = self.rng_for(d, w, 3);
        let (mut dist, mut c) = (1u32, 0u32);
        let mut src = Gen {
            f: |row: &mut Row| {
                c += 1;
                if c > 3000 {
                    c = 1;
                    dist += 1;
                }
                if dist > 10 {
                    return false;
                }
                set_texts(row, 1);
                row.ints.extend([c as i64, dist as i64, wi, dist as i64, wi, now, 1000]);
                astr(&mut rng, 12, 24, &mut row.texts[0]);
                true
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.history, &cols, &mut src, bulk_rows, mode).await?;

        // ORDERS with a shuffled customer per district, and their line counts.
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
        let force_null = self.schema.force_null;
        let cols = [
            col("o_id", ColType::Int), col("o_d_id", ColType::SmallInt), col("o_w_id", ColType::SmallInt), col("o_c_id", ColType::Int), col("o_entry_d", ColType::Timestamp),
            col("o_carrier_id", ColType::SmallInt), col("o_ol_cnt", ColType::SmallInt), col("o_all_local", ColType::SmallInt),
        ];
        let (mut dist, mut o) = (1usize, 0usize);
        let mut src = Gen {
            f: |row: &mut Row| {
                o += 1;
                if o > 3000 {
                    o = 1;
                    dist += 1;
                }
                if dist > 10 {
                    return false;
                }
                set_texts(row, 0);
                let delivered = o <= 2100;
                let carrier = if delivered { rng.uniform(1, 10) as i64 } else { 0 };
                if !delivered && force_null {
                    row.nulls |= 1 << 5;
                }
                row.ints.extend([o as i64, dist as i64, wi, perms[dist - 1][o - 1] as i64, now, carrier, ol_cnt[(dist - 1) * 3000 + o - 1] as i64, 1]);
                true
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.orders, &cols, &mut src, bulk_rows, mode).await?;

        // NEW_ORDERS: the last 900 orders of each district.
        let cols = [col("no_o_id", ColType::Int), col("no_d_id", ColType::SmallInt), col("no_w_id", ColType::SmallInt)];
        let (mut dist, mut o) = (1i64, 2100i64);
        let mut src = Gen {
            f: |row: &mut Row| {
                o += 1;
                if o > 3000 {
                    o = 2101;
                    dist += 1;
                }
                if dist > 10 {
                    return false;
                }
                set_texts(row, 0);
                row.ints.extend([o, dist, wi]);
                true
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.new_orders, &cols, &mut src, bulk_rows, mode).await?;

        // ORDER_LINE
        let cols = [
            col("ol_o_id", ColType::Int), col("ol_d_id", ColType::SmallInt), col("ol_w_id", ColType::SmallInt), col("ol_number", ColType::SmallInt), col("ol_i_id", ColType::Int),
            col("ol_supply_w_id", ColType::SmallInt), col("ol_delivery_d", ColType::Timestamp), col("ol_quantity", ColType::SmallInt), col("ol_amount", ColType::Numeric(2)),
            col("ol_dist_info", ColType::Text),
        ];
        let mut rng = self.rng_for(d, w, 5);
        let (mut dist, mut o, mut l) = (1usize, 1usize, 0u8);
        let mut src = Gen {
            f: |row: &mut Row| {
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
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.order_line, &cols, &mut src, bulk_rows, mode).await?;

        // DISTRICT, then WAREHOUSE last: its row marks the warehouse complete.
        let cols = [
            col("d_id", ColType::SmallInt), col("d_w_id", ColType::SmallInt), col("d_name", ColType::Text), col("d_street_1", ColType::Text), col("d_street_2", ColType::Text),
            col("d_city", ColType::Text), col("d_state", ColType::Text), col("d_zip", ColType::Text), col("d_tax", ColType::Numeric(4)), col("d_ytd", ColType::Numeric(2)),
            col("d_next_o_id", ColType::Int),
        ];
        let mut rng = self.rng_for(d, w, 6);
        let mut dist = 0i64;
        let mut src = Gen {
            f: |row: &mut Row| {
                dist += 1;
                if dist > 10 {
                    return false;
                }
                set_texts(row, 6);
                address(&mut rng, &mut row.texts);
                row.ints.extend([dist, wi, rng.uniform(0, 2000) as i64, 3_000_000, 3001]);
                true
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.district, &cols, &mut src, bulk_rows, mode).await?;
        let cols = [
            col("w_id", ColType::SmallInt), col("w_name", ColType::Text), col("w_street_1", ColType::Text), col("w_street_2", ColType::Text), col("w_city", ColType::Text),
            col("w_state", ColType::Text), col("w_zip", ColType::Text), col("w_tax", ColType::Numeric(4)), col("w_ytd", ColType::Numeric(2)),
        ];
        let mut rng = self.rng_for(d, w, 7);
        let mut once = false;
        let mut src = Gen {
            f: |row: &mut Row| {
                if once {
                    return false;
                }
                once = true;
                set_texts(row, 6);
                address(&mut rng, &mut row.texts);
                row.ints.extend([wi, rng.uniform(0, 2000) as i64, 30_000_000]);
                true
            },
            progress: progress.clone(),
            pending: 0,
            done: false,
        };
        bulk(conn, &n.warehouse, &cols, &mut src, bulk_rows, mode).await
    }

    pub async fn do_cleanup(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let mut conn = self.admin(&cfg).await?;
        for n in &self.names {
            if !quiet {
                println!("Dropping TPC-C tables of dataset {}...", n.n);
            }
            if self.engine == Engine::Postgres {
                let list = n.all().join(", ");
                ddl(&mut conn, &format!("DROP TABLE IF EXISTS {list} CASCADE")).await?;
            } else {
                for t in n.all() {
                    ddl(&mut conn, &format!("DROP TABLE IF EXISTS {t}")).await?;
                }
            }
        }
        conn.close().await;
        Ok(())
    }

    pub async fn do_prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
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
