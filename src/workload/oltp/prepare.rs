//! prepare / cleanup / prewarm for the OLTP family: create tables, load in
//! parallel (across tables and by row range within a table) through each
//! engine's fastest path; each table's secondary index is built as soon as
//! its rows are in, while the other tables are still loading.

use super::{Kind, Oltp};
use crate::error::{Error, Result};
use crate::rand::{BulkTemplate, Dist, Rng, C_TEMPLATE, PAD_TEMPLATE};
use crate::report::progress::Progress;
use crate::target::{ColType, Column, Conn, ConnConfig, Engine, LoadMode, Row, RowSource, StatementSet};
use crate::workload::dialect::Dialect;
use crate::workload::TableState;
use crate::usage;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Rows of one table in [first, last], generated as sysbench does: k from
/// the configured distribution, c, pad and any extra columns from their
/// templates.
struct SbRows {
    next: u64,
    last: u64,
    rng: Rng,
    k: Dist,
    texts: Arc<Vec<BulkTemplate>>,
    progress: Arc<Progress>,
    pending: u64,
}

impl RowSource for SbRows {
    fn next_row(&mut self, row: &mut Row) -> bool {
        if self.next > self.last {
            self.progress.add(self.pending);
            self.pending = 0;
            return false;
        }
        row.ints.clear();
        row.ints.push(self.next as i64);
        row.ints.push(self.k.sample(&mut self.rng) as i64);
        row.texts.resize(self.texts.len(), Vec::new());
        for (out, tpl) in row.texts.iter_mut().zip(self.texts.iter()) {
            out.clear();
            tpl.fill(&mut self.rng, out);
        }
        self.next += 1;
        self.pending += 1;
        if self.pending >= 4096 {
            self.progress.add(self.pending);
            self.pending = 0;
        }
        true
    }
}

impl Oltp {
    fn create_sql(&self, table: &str) -> Result<Vec<String>> {
        let a = &self.args;
        let d = Dialect(self.engine);
        let id = if a.auto_inc { d.auto_inc_int() } else { "INTEGER NOT NULL" };
        let mut cols = vec![
            format!("id {id}"),
            "k INTEGER DEFAULT '0' NOT NULL".to_string(),
            "c CHAR(120) DEFAULT '' NOT NULL".to_string(),
            "pad CHAR(60) DEFAULT '' NOT NULL".to_string(),
        ];
        for i in 1..=a.extra_cols {
            let def = if a.extra_cols_default.is_empty() || a.extra_cols_default.contains(['#', '@']) {
                String::new()
            } else {
                format!(" DEFAULT '{}'", a.extra_cols_default.replace('\'', "''"))
            };
            cols.push(format!("e{i} {}{def} {}", a.extra_cols_type, a.extra_cols_options).trim_end().to_string());
        }
        let mut post = Vec::new();
        if a.secondary {
            match self.engine {
                Engine::Mysql => cols.push("KEY xid (id)".into()),
                _ => post.push(format!("CREATE INDEX xid_{table} ON {table}(id)")),
            }
        } else {
            cols.push("PRIMARY KEY (id)".into());
        }
        let mut tail = d.engine_clause(&a.mysql_storage_engine);
        if !a.table_compression.is_empty() {
            if self.engine != Engine::Mysql {
                return Err(usage!("--table-compression is a MySQL-family option ({} has no table compression clause)", self.engine.name()));
            }
            let c = &a.table_compression;
            tail.push_str(&match c.to_ascii_lowercase().as_str() {
                "compressed" => " ROW_FORMAT=COMPRESSED".to_string(),
                "page" => " PAGE_COMPRESSED=1".to_string(),
                _ => format!(" COMPRESSION='{c}'"),
            });
        }
        if !a.create_table_options.is_empty() {
            tail.push(' ');
            tail.push_str(&a.create_table_options);
        }
        if a.table_partitions > 0 {
            match self.engine {
                Engine::Mysql => tail.push_str(&format!(" PARTITION BY HASH(id) PARTITIONS {}", a.table_partitions)),
                Engine::Postgres => {
                    tail.push_str(" PARTITION BY HASH (id)");
                    for p in 0..a.table_partitions {
                        post.insert(p as usize, format!("CREATE TABLE {table}_p{p} PARTITION OF {table} FOR VALUES WITH (MODULUS {}, REMAINDER {p})", a.table_partitions));
                    }
                }
                Engine::Sqlite => return Err(usage!("--table-partitions: SQLite has no partitioned tables")),
            }
        }
        let mut v = vec![format!("CREATE TABLE {table} (\n  {}\n) {}", cols.join(",\n  "), tail.trim())];
        v.extend(post);
        Ok(v)
    }

    fn load_columns(&self) -> Vec<Column> {
        let mut cols = vec![
            Column { name: "id".into(), ty: ColType::Int },
            Column { name: "k".into(), ty: ColType::Int },
            Column { name: "c".into(), ty: ColType::Text },
            Column { name: "pad".into(), ty: ColType::Text },
        ];
        if self.args.extra_cols_default.contains(['#', '@']) {
            for i in 1..=self.args.extra_cols {
                cols.push(Column { name: format!("e{i}"), ty: ColType::Text });
            }
        }
        cols
    }

    /// Whether the tables are there: all present and big enough, all
    /// missing, or present but different from what the options describe
    /// (then the user decides; fairbench never drops tables on its own).
    pub async fn do_table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        let mut conn = connect(cfg).await?;
        let (mut present, mut missing) = (0, 0);
        let (mut short, mut largest) = (None, 0u64);
        let needs_rows = self.mix.kind != Kind::Insert || self.args.auto_inc;
        let existing = existing_tables(&mut conn, self.engine, &self.args.table_name).await?;
        for t in self.table_names() {
            if !existing.contains(&t.to_ascii_lowercase()) {
                missing += 1;
                continue;
            }
            // Thousands of tables on a server take a while: stay stoppable.
            crate::runner::check_interrupt()?;
            let max = max_id(&mut conn, &t, None).await?;
            present += 1;
            if needs_rows && max < self.args.table_size && short.is_none() {
                short = Some((t.clone(), max));
            }
            largest = largest.max(max);
        }
        conn.close().await;
        // Inserting workloads only add rows; the others pick ids up to
        // --table-size, so on bigger tables they touch a part of the data.
        // Rows an insert run added (a few percent) are not worth a word.
        let picks_ids = !matches!(self.mix.kind, Kind::Insert | Kind::BulkInsert);
        let larger = picks_ids && largest as f64 > self.args.table_size as f64 * 1.1;
        Ok(match (present, missing, short) {
            (0, _, _) => TableState::Missing,
            (_, 0, None) if larger => TableState::Larger(largest),
            (_, 0, None) => TableState::Ready,
            (_, _, Some((t, max))) => TableState::Mismatch(format!("table {t} holds ids up to {max} but --table-size is {}", self.args.table_size)),
            (_, m, None) => TableState::Mismatch(format!("{m} of the {} tables are missing", self.args.tables)),
        })
    }

    pub async fn do_prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        if self.mix.kind == Kind::BulkInsert {
            let mut conn = connect(&cfg).await?;
            for i in 1..=threads {
                let t = format!("{}{i}", self.args.table_name);
                ddl(&mut conn, &format!("CREATE TABLE {t} (id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id))")).await?;
            }
            conn.close().await;
            return Ok(());
        }
        let names = Arc::new(self.table_names());
        let mut conn = connect(&cfg).await?;
        for t in names.iter() {
            if !quiet {
                println!("Creating table '{t}'...");
            }
            for sql in self.create_sql(t)? {
                ddl(&mut conn, &sql).await?;
            }
        }
        // oltp_insert without auto-inc starts from empty tables, as in sysbench.
        let rows = if self.mix.kind == Kind::Insert && !self.args.auto_inc { 0 } else { self.args.table_size };
        let total = rows * names.len() as u64;
        let started = std::time::Instant::now();
        let progress = Arc::new(Progress::new("Loading", total, quiet));
        let loaders = match self.engine {
            // SQLite has one writer: parallel loaders would only queue on its lock.
            Engine::Sqlite => 1,
            // PostgreSQL backends loading more tables at once than the
            // machine has cores slow each other down when the server shares
            // this machine: 2 loaders on 2 cores load 4 x 1M rows 10-25%
            // faster than 4 (and so does the server alone, reading its own
            // files). MariaDB gains nothing from the cap, so it keeps --threads.
            Engine::Postgres => crate::env::per_core_if_local(&cfg, threads),
            Engine::Mysql => threads,
        }
        .max(1);
        if loaders < threads && !quiet {
            println!("Loading with {loaders} connections: the server shares this machine's {loaders} cores, and more concurrent loads only contend");
        }
        // (table index, first id, last id)
        let mut work: Vec<(usize, u64, u64)> = Vec::new();
        // Chunks still to load per table: the loader that finishes a table's
        // last chunk builds its index at once, while the others keep loading.
        let mut left = Vec::new();
        let per_table_chunks = loaders.div_ceil(names.len()).max(1) as u64;
        let chunk = (rows / per_table_chunks).max(1);
        for ti in 0..names.len() {
            let (mut first, mut chunks) = (1, 0);
            while first <= rows {
                let last = (first + chunk - 1).min(rows);
                let last = if rows - last < chunk / 2 { rows } else { last };
                work.push((ti, first, last));
                chunks += 1;
                first = last + 1;
            }
            left.push(AtomicUsize::new(chunks));
        }
        let left = Arc::new(left);
        let load_mode = LoadMode::parse(&self.args.load_mode).ok_or_else(|| usage!("--load-mode={}: use auto, infile or insert", self.args.load_mode))?;
        let queue = Arc::new(std::sync::Mutex::new(work.into_iter().enumerate().collect::<Vec<_>>()));
        let finish = Arc::new(TableFinish { engine: self.engine, auto_inc: self.args.auto_inc, secondary: self.args.create_secondary, prefix: self.args.table_name.clone(), quiet });
        let mut texts = vec![BulkTemplate::new(C_TEMPLATE.as_bytes(), self.args.rand_data), BulkTemplate::new(PAD_TEMPLATE.as_bytes(), self.args.rand_data)];
        if self.args.extra_cols_default.contains(['#', '@']) {
            texts.extend((0..self.args.extra_cols).map(|_| BulkTemplate::new(self.args.extra_cols_default.as_bytes(), 100)));
        }
        let texts = Arc::new(texts);
        let mut handles = Vec::new();
        for _ in 0..loaders {
            let queue = queue.clone();
            let cfg = cfg.clone();
            let cols = self.load_columns();
            let dist = self.dist.clone();
            let seed = self.seed;
            let texts = texts.clone();
            let bulk = self.args.load_bulk_size;
            let mode = load_mode;
            let size = self.args.table_size;
            let progress = progress.clone();
            let (names, left, finish) = (names.clone(), left.clone(), finish.clone());
            handles.push(tokio::spawn(async move {
                let mut conn = connect(&cfg).await?;
                loop {
                    let item = queue.lock().unwrap().pop();
                    let Some((n, (ti, first, last))) = item else { break };
                    let table = &names[ti];
                    let rng = if seed == 0 { Rng::from_entropy(1000 + n as u64) } else { Rng::from_seed(seed, 1_000_000 + n as u64) };
                    let mut src = SbRows { next: first, last, rng, k: Dist::new(&dist, 1, size), texts: texts.clone(), progress: progress.clone(), pending: 0 };
                    conn.bulk_load(table, &cols, &mut src, bulk, mode).await.map_err(|e| Error::Sql(format!("loading {table}: {e}")))?;
                    if left[ti].fetch_sub(1, Ordering::SeqCst) == 1 {
                        finish.table(&mut conn, table).await?;
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
        if rows == 0 {
            // No chunks, so no loader finished these tables.
            for t in names.iter() {
                finish.table(&mut conn, t).await?;
            }
        }
        if self.engine == Engine::Sqlite {
            ddl(&mut conn, "PRAGMA wal_checkpoint(TRUNCATE)").await?;
        }
        conn.close().await;
        if !quiet {
            let rate = if secs > 0.0 { total as f64 / secs } else { 0.0 };
            println!("Loaded {total} rows into {} table(s) in {secs:.2}s ({rate:.0} rows/s, index builds included)", names.len());
        }
        Ok(())
    }

    pub async fn do_cleanup(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let mut conn = connect(&cfg).await?;
        let n = if self.mix.kind == Kind::BulkInsert { threads as u32 } else { self.args.tables };
        let d = Dialect(self.engine);
        for i in 1..=n {
            let t = format!("{}{i}", self.args.table_name);
            if !quiet {
                println!("Dropping table '{t}'...");
            }
            ddl(&mut conn, &d.drop_table(&t)).await?;
        }
        conn.close().await;
        Ok(())
    }

    pub async fn do_prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let mut conn = connect(&cfg).await?;
        let d = Dialect(self.engine);
        for t in self.table_names() {
            if !quiet {
                println!("Prewarming table '{t}'...");
            }
            for sql in d.prewarm_queries(&t) {
                ddl(&mut conn, &sql).await?;
            }
        }
        conn.close().await;
        Ok(())
    }
}

/// What is left to do on a table once its rows are in.
struct TableFinish {
    engine: Engine,
    auto_inc: bool,
    secondary: bool,
    prefix: String,
    quiet: bool,
}

impl TableFinish {
    async fn table(&self, conn: &mut Conn, t: &str) -> Result<()> {
        if self.engine == Engine::Postgres && self.auto_inc {
            // Rows were loaded with explicit ids: move the sequence past them.
            ddl(conn, &format!("SELECT setval(pg_get_serial_sequence('{t}', 'id'), GREATEST((SELECT MAX(id) FROM {t}), 1))")).await?;
        }
        if self.secondary {
            if !self.quiet {
                println!("Creating a secondary index on '{t}'...");
            }
            let idx = format!("k_{}", t.trim_start_matches(&self.prefix));
            let idx = if self.engine == Engine::Mysql { idx } else { format!("{t}_{idx}") };
            ddl(conn, &format!("CREATE INDEX {idx} ON {t}(k)")).await?;
        }
        Ok(())
    }
}

/// The tables named `prefix...` that exist, lower-cased (PostgreSQL folds
/// unquoted names, MySQL may too).
async fn existing_tables(conn: &mut Conn, engine: Engine, prefix: &str) -> Result<std::collections::HashSet<String>> {
    let sql = Dialect(engine).tables_like(prefix);
    let rows = conn.query_strings(&sql).await.map_err(|e| Error::Sql(format!("listing tables: {e}")))?;
    Ok(rows.into_iter().filter_map(|r| r.into_iter().next().flatten()).map(|n| n.to_ascii_lowercase()).collect())
}

/// The highest id of `table` (within `range` when given), 0 when none.
async fn max_id(conn: &mut Conn, table: &str, range: Option<(u64, u64)>) -> Result<u64> {
    let sql = match range {
        Some((a, b)) => format!("SELECT MAX(id) FROM {table} WHERE id BETWEEN {a} AND {b}"),
        None => format!("SELECT MAX(id) FROM {table}"),
    };
    let rows = conn.query_strings(&sql).await.map_err(|e| Error::Sql(format!("{e}\n  in: {sql}")))?;
    Ok(rows.first().and_then(|r| r.first().cloned().flatten()).and_then(|s| s.parse().ok()).unwrap_or(0))
}

/// One connection for admin work; failures map to exit codes.
pub async fn connect(cfg: &Arc<ConnConfig>) -> Result<Conn> {
    Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::runner::connect_error(&cfg.target, &e))
}

pub async fn ddl(conn: &mut Conn, sql: &str) -> Result<()> {
    conn.query(sql).await.map(|_| ()).map_err(|e| Error::Sql(format!("{e}\n  in: {}", sql.lines().next().unwrap_or(sql))))
}
