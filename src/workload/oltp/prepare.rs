//! prepare / cleanup / prewarm for the OLTP family: create tables, load in
//! parallel (across tables and by row range within a table) through each
//! engine's fastest path; each table's secondary index is built as soon as
//! its rows are in, while the other tables are still loading.

use super::{Kind, Oltp};
use crate::db::sharding::{Key, ShardPlan, Sharding};
use crate::db::Engine;
use crate::db::{ColType, Column, Conn, ConnConfig, LoadMode, Row, RowSource};
use crate::error::{Error, Result};
use crate::output::Progress;
use crate::rand::{BulkTemplate, Dist, Rng, C_TEMPLATE, PAD_TEMPLATE};
use crate::usage;
use crate::workload::common::ddl;
use crate::workload::TableState;
use crate::workload::{Dataset, DatasetTables};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

impl SbRows {
    /// Draws and drops the rows before id `to`, so a resumed piece gets the
    /// rows an uninterrupted load would have written.
    fn skip_to(&mut self, to: u64) {
        let mut row = Row::default();
        while self.next < to {
            self.fill(&mut row);
        }
    }

    fn fill(&mut self, row: &mut Row) {
        row.ints.clear();
        row.ints.push(self.next as i64);
        row.ints.push(self.k.sample(&mut self.rng) as i64);
        row.texts.resize(self.texts.len(), Vec::new());
        for (out, tpl) in row.texts.iter_mut().zip(self.texts.iter()) {
            out.clear();
            tpl.fill(&mut self.rng, out);
        }
        self.next += 1;
    }
}

impl RowSource for SbRows {
    fn next_row(&mut self, row: &mut Row) -> bool {
        // Ctrl-C ends the rows early: the bulk path commits what it has,
        // a prefix of the piece, and the loader leaves the piece unfinished.
        let stop = self.pending.is_multiple_of(256) && crate::model::interrupted();
        if self.next > self.last || stop {
            self.progress.add(self.pending);
            self.pending = 0;
            return false;
        }
        self.fill(row);
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
        let d = self.engine.dialect();
        let id = if a.auto_inc { d.auto_inc_int() } else { "INTEGER NOT NULL" };
        let mut cols = vec![format!("id {id}"), "k INTEGER DEFAULT '0' NOT NULL".to_string(), "c CHAR(120) DEFAULT '' NOT NULL".to_string(), "pad CHAR(60) DEFAULT '' NOT NULL".to_string()];
        for i in 1..=a.extra_cols {
            let def = if a.extra_cols_default.is_empty() || a.extra_cols_default.contains(['#', '@']) { String::new() } else { format!(" DEFAULT '{}'", a.extra_cols_default.replace('\'', "''")) };
            cols.push(format!("e{i} {}{def} {}", a.extra_cols_type, a.extra_cols_options).trim_end().to_string());
        }
        let mut post = Vec::new();
        if a.secondary {
            if d.inline_index() {
                cols.push("KEY xid (id)".into());
            } else {
                post.push(format!("CREATE INDEX xid_{table} ON {table}(id)"));
            }
        } else {
            cols.push("PRIMARY KEY (id)".into());
        }
        let mut tail = self.common.table_tail(self.engine)?;
        if a.table_partitions > 0 {
            let Some((clause, parts)) = d.hash_partitions(table, "id", a.table_partitions) else {
                // SQLite, the one engine without partitions.
                return Err(usage!("--table-partitions: SQLite has no partitioned tables"));
            };
            tail.push_str(&clause);
            // The partitions exist before any index on the table is built.
            post.splice(0..0, parts);
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
}

/// What is left to do on a table once its rows are in.
struct TableFinish {
    engine: &'static dyn Engine,
    auto_inc: bool,
    /// Build the secondary index on k once the rows are in.
    secondary: bool,
    prefix: String,
    quiet: bool,
}

/// Whether the secondary index on k is built before the rows go in, as
/// BMK-kit's `parallel` and `parallel_ordered` load modes do (the index
/// then grows row by row, as in a long-lived table), rather than after
/// them (sysbench's `original` and fairbench's `auto`: one sorted build).
fn index_before_rows(load_mode: &str) -> bool {
    matches!(load_mode.to_ascii_lowercase().as_str(), "parallel" | "parallel_ordered")
}

impl TableFinish {
    /// Builds what `t` misses once its rows are in; `say`: the table was
    /// created or loaded by this prepare (a table found complete gets its
    /// index built silently, and only when it lacks it).
    async fn table(&self, conn: &mut Conn, t: &str, say: bool) -> Result<()> {
        let d = self.engine.dialect();
        // Rows were loaded with explicit ids: move the counter past them.
        if let Some(sql) = d.sync_auto_inc(t, "id").filter(|_| self.auto_inc) {
            ddl(conn, &sql).await?;
        }
        if self.secondary {
            secondary_index(conn, self.engine, &self.prefix, t, say && !self.quiet).await?;
        }
        Ok(())
    }
}

/// The secondary index on k of table `t`, unless the table has it already.
async fn secondary_index(conn: &mut Conn, engine: &'static dyn Engine, prefix: &str, t: &str, say: bool) -> Result<()> {
    if say {
        crate::output::say(&format!("Creating a secondary index on '{t}'..."));
    }
    let idx = format!("k_{}", t.trim_start_matches(prefix));
    // An interrupted prepare may have left it built: MariaDB has IF
    // NOT EXISTS but MySQL does not, so its "duplicate key name"
    // (1061) is what says so there.
    if engine.dialect().index_if_not_exists() {
        ddl(conn, &format!("CREATE INDEX IF NOT EXISTS {t}_{idx} ON {t}(k)")).await?;
    } else if let Err(e) = conn.query(&format!("CREATE INDEX {idx} ON {t}(k)")).await {
        if e.code != "1061" {
            return Err(Error::Sql(format!("{e}\n  in: CREATE INDEX {idx} ON {t}(k)")));
        }
    }
    Ok(())
}

/// Rows of a table by fixed id ranges, whatever the number of loaders, so
/// that a resumed prepare finds the same pieces. Loaders spread over the
/// tables: each takes a piece of the table the fewest loaders work on.
struct Pieces {
    tables: Vec<TablePieces>,
    /// Global number of a table's first piece (each piece's RNG stream).
    per_table: u64,
    /// (loaders at work, table) of every table with pieces to hand out:
    /// the first is the next to serve, found without a scan of all tables.
    open: std::collections::BTreeSet<(usize, usize)>,
}

struct TablePieces {
    /// (first id, last id) of the pieces no loader took yet, in id order.
    todo: std::collections::VecDeque<(u64, u64)>,
    /// Pieces not finished yet (taken or not).
    left: usize,
    active: usize,
    /// The table was there before this prepare: its pieces may hold rows.
    resumed: bool,
    /// Index of the next piece handed out.
    next: u64,
}

/// One piece for a loader.
#[derive(Clone, Copy, Debug)]
struct Piece {
    table: usize,
    /// Global piece number: its rows come from their own RNG stream.
    seq: u64,
    first: u64,
    last: u64,
    resumed: bool,
}

impl Pieces {
    /// Pieces of about 1/16 of a table, at least 10k and at most 100k rows:
    /// small enough to share a few tables among loaders and to lose little
    /// to an interrupt, big enough to cost nothing per piece.
    fn piece_rows(rows: u64) -> u64 {
        (rows / 16).clamp(10_000, 100_000)
    }

    fn new(tables: usize, rows: u64, resumed: &[bool]) -> Pieces {
        let size = Self::piece_rows(rows);
        let ranges: Vec<(u64, u64)> = (0..rows.div_ceil(size)).map(|i| (i * size + 1, ((i + 1) * size).min(rows))).collect();
        let tables = (0..tables).map(|ti| TablePieces { todo: ranges.iter().copied().collect(), left: ranges.len(), active: 0, resumed: resumed[ti], next: 0 }).collect();
        let open = if ranges.is_empty() { Default::default() } else { (0..resumed.len()).map(|ti| (0, ti)).collect() };
        Pieces { tables, per_table: ranges.len() as u64, open }
    }

    fn take(&mut self) -> Option<Piece> {
        let (_, ti) = self.open.pop_first()?;
        let t = &mut self.tables[ti];
        let (first, last) = t.todo.pop_front()?;
        t.active += 1;
        if !t.todo.is_empty() {
            self.open.insert((t.active, ti));
        }
        let seq = ti as u64 * self.per_table + t.next;
        t.next += 1;
        Some(Piece { table: ti, seq, first, last, resumed: t.resumed })
    }

    /// A piece is in; true when it was its table's last.
    fn done(&mut self, ti: usize) -> bool {
        let t = &mut self.tables[ti];
        if self.open.remove(&(t.active, ti)) {
            self.open.insert((t.active - 1, ti));
        }
        t.active -= 1;
        t.left -= 1;
        t.left == 0
    }
}

/// One loader connection's share of a prepare.
struct Loader {
    cfg: Arc<ConnConfig>,
    cols: Vec<Column>,
    dist: crate::rand::DistConfig,
    seed: u64,
    texts: Arc<Vec<BulkTemplate>>,
    bulk: usize,
    mode: LoadMode,
    size: u64,
    progress: Arc<Progress>,
    names: Arc<Vec<String>>,
    pieces: Arc<std::sync::Mutex<Pieces>>,
    finish: Arc<TableFinish>,
    complete: Arc<Vec<AtomicBool>>,
    loaded: Arc<AtomicU64>,
}

impl Loader {
    async fn run(self) -> Result<()> {
        let mut conn = Conn::admin(&self.cfg).await?;
        loop {
            crate::model::check_interrupt()?;
            let Some(p) = self.pieces.lock().unwrap().take() else { break };
            let table = &self.names[p.table];
            // A table found there may hold part of this piece: a prefix
            // of its ids, as pieces load in id order.
            let from = if p.resumed { max_id(&mut conn, table, Some((p.first, p.last))).await?.max(p.first - 1) + 1 } else { p.first };
            let said = from <= p.last;
            if said {
                let rng = Rng::from_seed_or_entropy(self.seed, 1_000_000 + p.seq);
                let mut src = SbRows { next: p.first, last: p.last, rng, k: Dist::new(&self.dist, 1, self.size), texts: self.texts.clone(), progress: self.progress.clone(), pending: 0 };
                // The same rows as an uninterrupted prepare with this seed.
                src.skip_to(from);
                self.progress.skip(from - p.first);
                let n = conn.bulk_load(table, &self.cols, &mut src, self.bulk, self.mode).await.map_err(|e| Error::Sql(format!("loading {table}: {e}")))?;
                self.loaded.fetch_add(n, Ordering::SeqCst);
                // The rows stop early when asked to: what went in is a
                // committed prefix, and the piece is not done.
                crate::model::check_interrupt()?;
            } else {
                self.progress.skip(p.last - p.first + 1);
            }
            let last = self.pieces.lock().unwrap().done(p.table);
            if last {
                self.finish.table(&mut conn, table, said || !p.resumed).await?;
                self.complete[p.table].store(true, Ordering::SeqCst);
            }
        }
        conn.close().await;
        Ok(())
    }
}

/// Waits for every loader; on the first error the others are dropped (and
/// with them their connections). On Ctrl-C / SIGTERM the loaders stop
/// between rows; one stuck in a long statement (an index build) is given
/// a moment, then dropped: the server rolls back what it did not commit.
async fn wait_loaders(set: &mut tokio::task::JoinSet<Result<()>>) -> Result<()> {
    let joined = |r: std::result::Result<Result<()>, tokio::task::JoinError>| r.map_err(|e| Error::Sql(format!("loader failed: {e}"))).and_then(|r| r);
    loop {
        tokio::select! {
            r = set.join_next() => match r {
                None => return Ok(()),
                Some(r) => joined(r)?,
            },
            () = crate::signal::interrupt_signal() => break,
        }
    }
    let _ = tokio::time::timeout(std::time::Duration::from_millis(500), async { while set.join_next().await.is_some() {} }).await;
    set.abort_all();
    Err(Error::Interrupted)
}

/// The line an interrupted prepare ends with: which tables are complete.
fn report_complete(names: &[String], complete: &[AtomicBool]) {
    let done: Vec<&str> = names.iter().zip(complete).filter(|(_, c)| c.load(Ordering::SeqCst)).map(|(n, _)| n.as_str()).collect();
    let shown = if done.is_empty() {
        "none".to_string()
    } else if done.len() > 10 {
        format!("{} ... {} (and {} more)", done[..5].join(", "), done[done.len() - 1], done.len() - 6)
    } else {
        done.join(", ")
    };
    eprintln!("Interrupted: complete tables ({} of {}): {shown}. Run the same prepare again to load only what is missing.", done.len(), names.len());
}

/// The tables named `prefix...` that exist, lower-cased (PostgreSQL folds
/// unquoted names, MySQL may too).
async fn existing_tables(conn: &mut Conn, engine: &'static dyn Engine, prefix: &str) -> Result<std::collections::HashSet<String>> {
    let sql = engine.dialect().tables_like(prefix);
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

/// Why prepare loads on fewer connections than --threads, or None when it does not.
fn fewer_loaders_note(engine: &'static dyn Engine, loaders: usize, threads: usize) -> Option<String> {
    if loaders >= threads {
        return None;
    }
    let conns = if loaders == 1 { "one connection".to_string() } else { format!("{loaders} connections") };
    if engine.dialect().one_writer() {
        return Some(format!("Loading with {conns}: SQLite has one writer, so parallel loaders would only queue on its lock"));
    }
    let cores = crate::env::cpus();
    Some(format!("Loading with {conns}: the server shares this machine's {cores} core{}, and more concurrent loads only contend", if cores == 1 { "" } else { "s" }))
}

impl Dataset for Oltp {
    /// Every `sbtestN` table, also those beyond --tables, as sysbench names them.
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Prefix(self.args.table_name.clone())
    }

    /// Every table by id: each statement names one id or a range of them.
    /// oltp_insert with auto-increment ids inserts rows without one.
    fn sharding(&self) -> ShardPlan {
        let key = if self.mix.kind == Kind::Insert && self.args.auto_inc { Key::assigned("id", format!("run {} with --auto-inc=off, which gives the ids", self.test)) } else { Key::int("id") };
        let names = if self.mix.kind == Kind::BulkInsert { (1..=self.clients.max(1)).map(|i| format!("{}{i}", self.args.table_name)).collect() } else { self.table_names() };
        ShardPlan::new(names.into_iter().map(|t| Sharding::sharded(t, key.clone())).collect())
    }

    /// Whether the tables are there: all present and big enough, all
    /// missing, or present but different from what the options describe
    /// (then the user decides; fairbench never drops tables on its own).
    async fn table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        let mut conn = Conn::admin(cfg).await?;
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
            crate::model::check_interrupt()?;
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
        let picks_ids = !matches!(self.mix.kind, Kind::Insert | Kind::BulkInsert);
        let part = crate::workload::Part::beyond(largest, self.args.table_size, "--table-size").filter(|_| picks_ids);
        Ok(match (present, missing, short) {
            (0, _, _) => TableState::Missing,
            (_, 0, None) => part.map_or(TableState::Ready, TableState::Larger),
            (_, _, Some((t, max))) => TableState::Mismatch(format!("table {t} holds ids up to {max} but --table-size is {}", self.args.table_size)),
            (_, m, None) => TableState::Mismatch(format!("{m} of the {} tables are missing", self.args.tables)),
        })
    }

    /// Creates the tables that are missing and loads the rows each table
    /// misses, so an interrupted prepare is finished by the next one and
    /// nothing is ever dropped. Rows go in by pieces of fixed id ranges,
    /// each loaded in id order and committed as it goes, so the rows of a
    /// piece are always a prefix of its range: the next prepare asks each
    /// piece for its highest id and loads the rest.
    async fn prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        let existing = existing_tables(&mut conn, self.engine, &self.args.table_name).await?;
        let found = |t: &str| existing.contains(&t.to_ascii_lowercase());
        if self.mix.kind == Kind::BulkInsert {
            for i in 1..=threads {
                let t = format!("{}{i}", self.args.table_name);
                crate::model::check_interrupt()?;
                if !found(&t) {
                    ddl(&mut conn, &format!("CREATE TABLE {t} (id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id))")).await?;
                }
            }
            conn.close().await;
            return Ok(());
        }
        let names = Arc::new(self.table_names());
        let index_first = self.args.create_secondary && index_before_rows(&self.common.load_mode);
        let mut resumed = Vec::with_capacity(names.len());
        for t in names.iter() {
            crate::model::check_interrupt()?;
            if found(t) {
                resumed.push(true);
                continue;
            }
            if !quiet {
                println!("Creating table '{t}'...");
            }
            for sql in self.create_sql(t)? {
                if let Err(e) = conn.query(&sql).await {
                    return Err(self.common.create_error(&e).unwrap_or_else(|| Error::Sql(format!("{e}\n  in: {}", sql.lines().next().unwrap_or(&sql)))));
                }
            }
            if index_first {
                secondary_index(&mut conn, self.engine, &self.args.table_name, t, !quiet).await?;
            }
            resumed.push(false);
        }
        let there = resumed.iter().filter(|&&r| r).count();
        if there > 0 && !quiet {
            println!("{there} of the {} tables exist already: loading only the rows and indexes they miss", names.len());
        }
        // oltp_insert without auto-inc starts from empty tables, as in sysbench.
        let rows = if self.mix.kind == Kind::Insert && !self.args.auto_inc { 0 } else { self.args.table_size };
        let total = rows * names.len() as u64;
        let started = std::time::Instant::now();
        let progress = Arc::new(Progress::new("Loading", total, quiet));
        let d = self.engine.dialect();
        let loaders = if d.one_writer() {
            1
        } else if d.loaders_per_core() {
            crate::env::per_core_if_local(&cfg, threads)
        } else {
            threads
        }
        .max(1);
        if let Some(why) = fewer_loaders_note(self.engine, loaders, threads).filter(|_| !quiet) {
            println!("{why}");
        }
        let pieces = Arc::new(std::sync::Mutex::new(Pieces::new(names.len(), rows, &resumed)));
        let complete: Arc<Vec<AtomicBool>> = Arc::new((0..names.len()).map(|_| AtomicBool::new(false)).collect());
        let loaded = Arc::new(AtomicU64::new(0));
        let load_mode = LoadMode::parse(&self.common.load_mode).ok_or_else(|| usage!("--load-mode={}: use auto, infile or insert", self.common.load_mode))?;
        let finish = Arc::new(TableFinish { engine: self.engine, auto_inc: self.args.auto_inc, secondary: self.args.create_secondary && !index_first, prefix: self.args.table_name.clone(), quiet });
        let mut texts = vec![BulkTemplate::new(C_TEMPLATE.as_bytes(), self.args.rand_data), BulkTemplate::new(PAD_TEMPLATE.as_bytes(), self.args.rand_data)];
        if self.args.extra_cols_default.contains(['#', '@']) {
            texts.extend((0..self.args.extra_cols).map(|_| BulkTemplate::new(self.args.extra_cols_default.as_bytes(), 100)));
        }
        let texts = Arc::new(texts);
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..loaders {
            let l = Loader {
                cfg: cfg.clone(),
                cols: self.load_columns(),
                dist: self.dist.clone(),
                seed: self.seed,
                texts: texts.clone(),
                bulk: self.common.load_bulk_size,
                mode: load_mode,
                size: self.args.table_size,
                progress: progress.clone(),
                names: names.clone(),
                pieces: pieces.clone(),
                finish: finish.clone(),
                complete: complete.clone(),
                loaded: loaded.clone(),
            };
            set.spawn(l.run());
        }
        let outcome = wait_loaders(&mut set).await;
        progress.finish();
        if let Err(e) = outcome {
            if matches!(e, Error::Interrupted) {
                report_complete(&names, &complete);
            }
            return Err(e);
        }
        let secs = started.elapsed().as_secs_f64();
        if rows == 0 {
            // No pieces, so no loader finished these tables.
            for (t, done) in names.iter().zip(complete.iter()) {
                crate::model::check_interrupt().inspect_err(|_| report_complete(&names, &complete))?;
                finish.table(&mut conn, t, true).await?;
                done.store(true, Ordering::SeqCst);
            }
        }
        if let Some(sql) = self.engine.dialect().after_bulk_load() {
            ddl(&mut conn, sql).await?;
        }
        conn.close().await;
        if !quiet {
            let n = loaded.load(Ordering::SeqCst);
            let rate = if secs > 0.0 { n as f64 / secs } else { 0.0 };
            let before = if n < total { format!("; {} were there already", total - n) } else { String::new() };
            println!("Loaded {n} rows into {} table(s) in {secs:.2}s ({rate:.0} rows/s, index builds included{before})", names.len());
        }
        Ok(())
    }

    async fn cleanup(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        let n = if self.mix.kind == Kind::BulkInsert { threads as u32 } else { self.args.tables };
        let d = self.engine.dialect();
        for i in 1..=n {
            let t = format!("{}{i}", self.args.table_name);
            crate::model::check_interrupt()?;
            if !quiet {
                println!("Dropping table '{t}'...");
            }
            ddl(&mut conn, &d.drop_table(&t)).await?;
        }
        conn.close().await;
        Ok(())
    }

    async fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let d = self.engine.dialect();
        crate::workload::common::prewarm_tables(&cfg, quiet, self.table_names().into_iter().map(|t| (format!("table '{t}'"), d.prewarm_queries(&t))).collect()).await
    }
}

#[cfg(test)]
mod tests {
    use crate::workload::parsed_args as parsed;

    fn create(engine: &'static dyn crate::db::Engine, extra: &[&str]) -> Result<Vec<String>> {
        let w = Oltp::new("oltp_read_write", parsed(extra), parsed(&[]), crate::rand::DistConfig::default(), 1, engine, 1)?;
        w.create_sql("sbtest1")
    }

    /// The DDL each engine receives, partitions and a secondary id index
    /// included: unchanged by the move of its engine differences into the dialect.
    #[test]
    fn create_sql_per_engine() {
        let cols = "id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL";
        assert_eq!(
            create(crate::db::engines::named("mysql").unwrap(), &["--secondary", "--table-partitions=2"]).unwrap(),
            vec![format!("CREATE TABLE sbtest1 (\n  {cols},\n  KEY xid (id)\n) /*! ENGINE = innodb */ PARTITION BY HASH(id) PARTITIONS 2")]
        );
        let pg_cols = "id SERIAL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL";
        assert_eq!(
            create(crate::db::engines::named("postgres").unwrap(), &["--secondary", "--table-partitions=2"]).unwrap(),
            vec![
                format!("CREATE TABLE sbtest1 (\n  {pg_cols}\n) PARTITION BY HASH (id)"),
                "CREATE TABLE sbtest1_p0 PARTITION OF sbtest1 FOR VALUES WITH (MODULUS 2, REMAINDER 0)".to_string(),
                "CREATE TABLE sbtest1_p1 PARTITION OF sbtest1 FOR VALUES WITH (MODULUS 2, REMAINDER 1)".to_string(),
                "CREATE INDEX xid_sbtest1 ON sbtest1(id)".to_string(),
            ]
        );
        let lite_cols = "id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL";
        assert_eq!(create(crate::db::engines::named("sqlite").unwrap(), &[]).unwrap(), vec![format!("CREATE TABLE sbtest1 (\n  {lite_cols},\n  PRIMARY KEY (id)\n) ")]);
        assert!(create(crate::db::engines::named("sqlite").unwrap(), &["--table-partitions=2"]).is_err());
    }

    use super::{Oltp, Pieces, Result};
    use crate::db::sharding::{Key, Sharding};
    use crate::workload::Dataset;

    fn sharding(test: &str, extra: &[&str], clients: usize) -> Vec<Sharding> {
        let w = Oltp::new(test, parsed(extra), parsed(&[]), crate::rand::DistConfig::default(), 1, crate::db::engines::named("mysql").unwrap(), clients).unwrap();
        let plan = w.sharding();
        assert_eq!(plan.refused, None);
        plan.tables
    }

    /// Every table by id; oltp_insert with auto-increment ids inserts
    /// rows whose id the server assigns, and says how to give them.
    #[test]
    fn tables_shard_by_id() {
        let by_id = |t: &str| Sharding::sharded(t, Key::int("id"));
        assert_eq!(sharding("oltp_read_write", &["--tables=2"], 1), vec![by_id("sbtest1"), by_id("sbtest2")]);
        assert_eq!(sharding("oltp_insert", &["--auto-inc=off", "--table-name=t"], 8), vec![by_id("t1")]);
        let auto = sharding("oltp_insert", &[], 1);
        assert_eq!(auto.len(), 1);
        assert_eq!(auto[0].key(), &Key::assigned("id", "run oltp_insert with --auto-inc=off, which gives the ids"));
        // bulk_insert writes one table per client.
        assert_eq!(sharding("bulk_insert", &[], 3), vec![by_id("sbtest1"), by_id("sbtest2"), by_id("sbtest3")]);
    }

    #[test]
    fn pieces_spread_loaders_over_tables_and_keep_their_ranges() {
        let mut p = Pieces::new(3, 250_000, &[false, true, false]);
        // 1/16 of 250k is under the 100k cap and over the 10k floor.
        assert_eq!(Pieces::piece_rows(250_000), 15_625);
        let a: Vec<_> = (0..3).map(|_| p.take().unwrap()).collect();
        // Three loaders start on three tables, at each table's first piece.
        assert_eq!(a.iter().map(|x| (x.table, x.first)).collect::<Vec<_>>(), vec![(0, 1), (1, 1), (2, 1)]);
        assert!(a[1].resumed && !a[0].resumed);
        // A loader done with its piece stays on its table.
        assert!(!p.done(1));
        let b = p.take().unwrap();
        assert_eq!((b.table, b.first, b.last, b.seq), (1, 15_626, 31_250, 17));
        // Every piece of every table is handed out once, the last one ending at the table size.
        let mut n = 4;
        let mut last = 0;
        while let Some(x) = p.take() {
            n += 1;
            last = last.max(x.last);
        }
        assert_eq!((n, last), (48, 250_000));
        assert_eq!(Pieces::new(2, 0, &[false, false]).take().map(|x| x.table), None);
    }
}
