//! dbSTRESS tables: schema, bulk load, cleanup, prewarm, and the state a
//! run finds them in.
//!
//! A set is complete once its ZONE rows are in: ZONE is loaded last, after
//! OBJECT and HISTORY (in parallel pieces), their indexes, STAT and
//! SECTION. A set whose prepare was interrupted has no ZONE rows, so the
//! next prepare loads that set again from scratch and skips the complete
//! ones.

use super::{write_ref, Dbstress, Names, N_HISTORY, SECTIONS, STATS, ZONES};
use crate::db::sharding::{Key, ShardPlan, Sharding};
use crate::db::{ColType, Column, Conn, ConnConfig, LoadMode, Row, RowSource};
use crate::error::{Error, Result};
use crate::output::Progress;
use crate::workload::common::ddl;
use crate::workload::TableState;
use crate::workload::{Dataset, DatasetTables};
use std::collections::VecDeque;
use std::io::Write as _;
use std::sync::{Arc, Mutex};

/// Objects per piece at most, so loaders share out a big set evenly.
const PIECE_MAX: u64 = 100_000;

/// The first column of the first row as a number.
pub async fn count(conn: &mut Conn, sql: &str) -> Result<u64> {
    let rows = conn.query_strings(sql).await.map_err(|e| Error::Sql(format!("{e}\n  in: {sql}")))?;
    Ok(rows.first().and_then(|r| r.first().cloned().flatten()).and_then(|s| s.trim().parse::<f64>().ok()).map(|f| f as u64).unwrap_or(0))
}

/// Rows of a table, None when it cannot be read (it is not there).
async fn rows_of(conn: &mut Conn, table: &str) -> Option<u64> {
    let rows = conn.query_strings(&format!("SELECT COUNT(*) FROM {table}")).await.ok()?;
    rows.first().and_then(|r| r.first().cloned().flatten()).and_then(|s| s.trim().parse().ok())
}

/// The error of a failed load into `table`.
fn loading(table: &str) -> impl FnOnce(crate::db::DbError) -> Error + '_ {
    move |e| Error::Sql(format!("loading {table}: {e}"))
}

fn col(name: &str, ty: ColType) -> Column {
    Column { name: name.into(), ty }
}

/// `text` followed by X up to `width` bytes, into `out`.
fn padded(out: &mut Vec<u8>, width: usize) {
    while out.len() < width {
        out.push(b'X');
    }
    out.truncate(width);
}

/// BMK's dd/mm/19yy dates, from a number.
fn date(out: &mut Vec<u8>, n: u64) {
    let _ = write!(out, "{:02}/{:02}/19{:02}", n % 28 + 1, n % 12 + 1, n % 100);
}

/// Where a set stands before prepare.
#[derive(Debug, PartialEq)]
enum SetState {
    Complete(u64),
    /// Tables there, but no ZONE rows: an unfinished prepare.
    Unfinished,
    Missing,
}

/// A range of objects of one set, loaded with their HISTORY rows.
#[derive(Clone, Copy, Debug)]
struct Piece {
    set: usize,
    first: u64,
    last: u64,
}

/// OBJECT rows of a piece.
struct Objects<'a> {
    next: u64,
    last: u64,
    progress: &'a Progress,
    pending: u64,
}

impl RowSource for Objects<'_> {
    fn next_row(&mut self, row: &mut Row) -> bool {
        row.nulls = 0;
        if self.next > self.last {
            self.progress.add(std::mem::take(&mut self.pending));
            return false;
        }
        let i = self.next;
        self.next += 1;
        row.ints.clear();
        row.texts.resize(5, Vec::new());
        for t in row.texts.iter_mut() {
            t.clear();
        }
        let _ = write!(row.texts[0], "{i:010}");
        let _ = write!(row.texts[1], "{:02}", i % SECTIONS);
        let _ = write!(row.texts[2], "{i:010} NAME ");
        padded(&mut row.texts[2], 28);
        date(&mut row.texts[3], i);
        let _ = write!(row.texts[4], "{i:010} NOTES ");
        padded(&mut row.texts[4], 100);
        self.pending += 1;
        if self.pending >= 4096 {
            self.progress.add(std::mem::take(&mut self.pending));
        }
        true
    }
}

/// HISTORY rows of a piece: 20 per object, HORDER 0..19.
struct History<'a> {
    object: u64,
    horder: i64,
    last: u64,
    progress: &'a Progress,
    pending: u64,
}

impl RowSource for History<'_> {
    fn next_row(&mut self, row: &mut Row) -> bool {
        row.nulls = 0;
        if self.horder == N_HISTORY {
            self.horder = 0;
            self.object += 1;
        }
        if self.object > self.last {
            self.progress.add(std::mem::take(&mut self.pending));
            return false;
        }
        let (i, j) = (self.object, self.horder);
        self.horder += 1;
        row.ints.clear();
        row.ints.push(j);
        row.texts.resize(5, Vec::new());
        for t in row.texts.iter_mut() {
            t.clear();
        }
        let _ = write!(row.texts[0], "{i:010}");
        let _ = write!(row.texts[1], "{:03}", (i + 10 * j as u64) % STATS);
        date(&mut row.texts[2], i + j as u64);
        date(&mut row.texts[3], i + j as u64);
        let _ = write!(row.texts[4], "{i:010}_{j:02} HISTORY NOTES ");
        padded(&mut row.texts[4], 100);
        self.pending += 1;
        if self.pending >= 4096 {
            self.progress.add(std::mem::take(&mut self.pending));
        }
        true
    }
}

/// The rows of a small fixed table, made by `f` for 0..n.
struct Fixed<F: FnMut(u64, &mut Row) + Send> {
    next: u64,
    n: u64,
    f: F,
}

impl<F: FnMut(u64, &mut Row) + Send> RowSource for Fixed<F> {
    fn next_row(&mut self, row: &mut Row) -> bool {
        row.nulls = 0;
        if self.next >= self.n {
            return false;
        }
        row.ints.clear();
        for t in row.texts.iter_mut() {
            t.clear();
        }
        (self.f)(self.next, row);
        self.next += 1;
        true
    }
}

fn texts(row: &mut Row, n: usize) {
    row.texts.resize(n, Vec::new());
}

impl Dbstress {
    fn load_mode(&self) -> LoadMode {
        LoadMode::parse(&self.shared.load_mode).unwrap_or(LoadMode::Auto)
    }

    fn create_tables(&self, n: &Names) -> Vec<String> {
        let tail = &self.table_tail;
        let int = self.dialect().column_type("int");
        vec![
            format!("CREATE TABLE {} (REF CHAR(2) NOT NULL, NAME CHAR(40) NOT NULL) {tail}", n.zone),
            format!("CREATE TABLE {} (REF CHAR(3) NOT NULL, NAME CHAR(40) NOT NULL, NUMB {int} NOT NULL) {tail}", n.stat),
            format!("CREATE TABLE {} (REF CHAR(2) NOT NULL, REF_ZONE CHAR(2) NOT NULL, NAME CHAR(40) NOT NULL) {tail}", n.section),
            format!("CREATE TABLE {} (REF CHAR(10) NOT NULL, REF_SECTION CHAR(2) NOT NULL, NAME CHAR(30) NOT NULL, CREATE_DATE CHAR(12) NOT NULL, NOTE CHAR(100)) {tail}", n.object),
            format!(
                "CREATE TABLE {} (REF_OBJECT CHAR(10) NOT NULL, HORDER {int} NOT NULL, REF_STAT CHAR(3) NOT NULL, BEGIN_DATE CHAR(12) NOT NULL, END_DATE CHAR(12), NOTE CHAR(100)) {tail}",
                n.history
            ),
        ]
    }

    /// BMK-kit's indexes: unique REF on the four reference tables, and
    /// (REF_OBJECT, HORDER) on HISTORY, unique with `--hpk`. Index names
    /// carry the table's, as PostgreSQL and SQLite want them unique per schema.
    fn indexes(&self, n: &Names) -> Vec<String> {
        let ix = |unique: bool, t: &str, cols: &str| format!("CREATE {}INDEX {t}_REF_IDX ON {t} ({cols})", if unique { "UNIQUE " } else { "" });
        vec![ix(true, &n.object, "REF"), ix(self.args.hpk, &n.history, "REF_OBJECT, HORDER"), ix(true, &n.stat, "REF"), ix(true, &n.section, "REF"), ix(true, &n.zone, "REF")]
    }

    async fn set_state(&self, conn: &mut Conn, n: &Names) -> SetState {
        match rows_of(conn, &n.zone).await {
            None => SetState::Missing,
            Some(z) if z == ZONES => SetState::Complete(rows_of(conn, &n.object).await.unwrap_or(0)),
            Some(_) => SetState::Unfinished,
        }
    }

    /// The pieces of the sets to load. `--ordered-load`: one piece per
    /// set, so each set's objects go in REF order on one connection;
    /// otherwise each set is cut so every loader has work.
    fn pieces(&self, sets: &[usize], loaders: usize) -> VecDeque<Piece> {
        let size = self.args.obj_table_size;
        let per = if self.args.ordered_load { size } else { size.div_ceil(loaders as u64).clamp(1, PIECE_MAX) };
        let mut out = VecDeque::new();
        let mut first = 0;
        while first < size {
            let last = (first + per - 1).min(size - 1);
            for &set in sets {
                out.push_back(Piece { set, first, last });
            }
            first = last + 1;
        }
        out
    }

    async fn load_pieces(&self, cfg: &Arc<ConnConfig>, pieces: VecDeque<Piece>, loaders: usize, progress: &Arc<Progress>) -> Result<()> {
        let queue = Arc::new(Mutex::new(pieces));
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..loaders {
            let (me, cfg, queue, progress) = (Arc::new(self.clone()), cfg.clone(), queue.clone(), progress.clone());
            tasks.spawn(async move {
                let mut conn = Conn::admin(&cfg).await?;
                loop {
                    crate::model::check_interrupt()?;
                    let next = queue.lock().unwrap().pop_front();
                    let Some(p) = next else { break };
                    me.load_piece(&mut conn, p, &progress).await?;
                }
                conn.close().await;
                Ok::<(), Error>(())
            });
        }
        crate::workload::join_loaders(tasks, "loader").await
    }

    async fn load_piece(&self, conn: &mut Conn, p: Piece, progress: &Progress) -> Result<()> {
        let n = &self.names[p.set];
        let (mode, bulk) = (self.load_mode(), self.shared.load_bulk_size);
        let ocols = [col("REF", ColType::Text), col("REF_SECTION", ColType::Text), col("NAME", ColType::Text), col("CREATE_DATE", ColType::Text), col("NOTE", ColType::Text)];
        let mut objects = Objects { next: p.first, last: p.last, progress, pending: 0 };
        conn.bulk_load(&n.object, &ocols, &mut objects, bulk, mode).await.map_err(loading(&n.object))?;
        let hcols = [
            col("REF_OBJECT", ColType::Text),
            col("HORDER", ColType::Int),
            col("REF_STAT", ColType::Text),
            col("BEGIN_DATE", ColType::Text),
            col("END_DATE", ColType::Text),
            col("NOTE", ColType::Text),
        ];
        let mut history = History { object: p.first, horder: 0, last: p.last, progress, pending: 0 };
        conn.bulk_load(&n.history, &hcols, &mut history, bulk, mode).await.map_err(loading(&n.history))?;
        Ok(())
    }

    /// Indexes, the fixed tables (ZONE last: it marks the set complete)
    /// and fresh statistics.
    async fn finish_set(&self, conn: &mut Conn, n: &Names, quiet: bool) -> Result<()> {
        if !quiet {
            crate::output::say(&format!("Building the indexes of {} and {}, loading {}, {} and {}...", n.object, n.history, n.stat, n.section, n.zone));
        }
        for sql in self.indexes(n) {
            crate::model::check_interrupt()?;
            ddl(conn, &sql).await?;
        }
        let (mode, bulk) = (self.load_mode(), self.shared.load_bulk_size);
        let mut stat = Fixed {
            next: 0,
            n: STATS,
            f: |i: u64, row: &mut Row| {
                texts(row, 2);
                let _ = write!(row.texts[0], "{i:03}");
                let _ = write!(row.texts[1], "Status {i:03} ");
                padded(&mut row.texts[1], 40);
                row.ints.push(0);
            },
        };
        conn.bulk_load(&n.stat, &[col("REF", ColType::Text), col("NAME", ColType::Text), col("NUMB", ColType::Int)], &mut stat, bulk, mode).await.map_err(loading(&n.stat))?;
        let mut section = Fixed {
            next: 0,
            n: SECTIONS,
            f: |i: u64, row: &mut Row| {
                texts(row, 3);
                let _ = write!(row.texts[0], "{i:02}");
                let _ = write!(row.texts[1], "{:02}", i % ZONES);
                let _ = write!(row.texts[2], "Section {i:02} ");
                padded(&mut row.texts[2], 40);
            },
        };
        conn.bulk_load(&n.section, &[col("REF", ColType::Text), col("REF_ZONE", ColType::Text), col("NAME", ColType::Text)], &mut section, bulk, mode).await.map_err(loading(&n.section))?;
        let mut zone = Fixed {
            next: 0,
            n: ZONES,
            f: |i: u64, row: &mut Row| {
                texts(row, 2);
                let _ = write!(row.texts[0], "{i:02}");
                let _ = write!(row.texts[1], "Zone {i:02} ");
                padded(&mut row.texts[1], 40);
            },
        };
        conn.bulk_load(&n.zone, &[col("REF", ColType::Text), col("NAME", ColType::Text)], &mut zone, bulk, mode).await.map_err(loading(&n.zone))?;
        for t in n.all() {
            crate::model::check_interrupt()?;
            ddl(conn, &self.dialect().analyze(t)).await?;
        }
        Ok(())
    }
}

impl Dataset for Dbstress {
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Names(self.names.iter().flat_map(|n| n.all()).map(str::to_string).collect())
    }

    /// OBJECT by REF and HISTORY by REF_OBJECT: every statement of an event
    /// names one object's REF, so its rows and its history share a shard.
    /// ZONE, STAT and SECTION, a few rows joined to them, whole on every shard.
    fn sharding(&self) -> ShardPlan {
        let tables = self.names.iter().flat_map(|n| {
            [
                Sharding::sharded(n.object.clone(), Key::text("REF")),
                Sharding::sharded(n.history.clone(), Key::text("REF_OBJECT")),
                Sharding::reference(n.section.clone(), Key::text("REF")),
                Sharding::reference(n.stat.clone(), Key::text("REF")),
                Sharding::reference(n.zone.clone(), Key::text("REF")),
            ]
        });
        ShardPlan::new(tables.collect())
    }

    async fn table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        let mut conn = Conn::admin(cfg).await?;
        let (mut complete, mut missing) = (0, 0);
        let mut wrong = None;
        for n in &self.names {
            crate::model::check_interrupt()?;
            match self.set_state(&mut conn, n).await {
                SetState::Missing => missing += 1,
                SetState::Unfinished => wrong = wrong.or(Some(format!("set {} ({}) was not fully prepared: run prepare again to finish it", n.object, n.history))),
                SetState::Complete(objects) if objects != self.args.obj_table_size => {
                    wrong = wrong.or(Some(format!("table {} holds {objects} objects but --obj-table-size is {}", n.object, self.args.obj_table_size)));
                }
                SetState::Complete(_) => complete += 1,
            }
        }
        conn.close().await;
        Ok(match (complete, missing, wrong) {
            (_, _, Some(m)) => TableState::Mismatch(m),
            (0, _, None) => TableState::Missing,
            (_, 0, None) => TableState::Ready,
            (_, m, None) => TableState::Mismatch(format!("{m} of the {} sets are missing: run prepare", self.names.len())),
        })
    }

    async fn prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        let mut todo = Vec::new();
        for (i, n) in self.names.iter().enumerate() {
            crate::model::check_interrupt()?;
            match self.set_state(&mut conn, n).await {
                SetState::Complete(objects) if objects == self.args.obj_table_size => {
                    if !quiet {
                        println!("Set #{} is loaded already ({objects} objects).", i + 1);
                    }
                }
                SetState::Complete(objects) => {
                    return Err(Error::Usage(format!(
                        "table {} holds {objects} objects but --obj-table-size is {}: run cleanup first, or prepare with --obj-table-size={objects}",
                        n.object, self.args.obj_table_size
                    )));
                }
                state => {
                    if state == SetState::Unfinished && !quiet {
                        println!("Set #{} was not fully prepared: loading it again.", i + 1);
                    }
                    for sql in self.dialect().drop_tables(&n.all()) {
                        ddl(&mut conn, &sql).await?;
                    }
                    if !quiet {
                        println!("Creating set #{} [hpk: {}]...", i + 1, crate::values::bool_str(self.args.hpk));
                    }
                    for sql in self.create_tables(n) {
                        ddl(&mut conn, &sql).await?;
                    }
                    todo.push(i);
                }
            }
        }
        if todo.is_empty() {
            conn.close().await;
            return Ok(());
        }
        let size = self.args.obj_table_size;
        let loaders = if self.dialect().one_writer() { 1 } else { threads.max(1) };
        let pieces = self.pieces(&todo, loaders);
        let total = todo.len() as u64 * size * (1 + N_HISTORY as u64);
        if !quiet {
            println!("Loading {} set(s) of {size} objects ({total} OBJECT and HISTORY rows) with {} loader(s)...", todo.len(), loaders.min(pieces.len()));
        }
        let started = std::time::Instant::now();
        let progress = Arc::new(Progress::new("Loading", total, quiet));
        self.load_pieces(&cfg, pieces, loaders, &progress).await?;
        progress.finish();
        for &i in &todo {
            self.finish_set(&mut conn, &self.names[i], quiet).await?;
        }
        if let Some(sql) = self.dialect().after_bulk_load() {
            ddl(&mut conn, sql).await?;
        }
        conn.close().await;
        if !quiet {
            let secs = started.elapsed().as_secs_f64();
            println!("Loaded {total} rows in {secs:.2}s ({:.0} rows/s, index builds included)", total as f64 / secs.max(1e-9));
        }
        Ok(())
    }

    async fn cleanup(&self, cfg: Arc<ConnConfig>, _threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        for (i, n) in self.names.iter().enumerate() {
            crate::model::check_interrupt()?;
            if !quiet {
                println!("Dropping set #{} ({})...", i + 1, n.all().join(", "));
            }
            for sql in self.dialect().drop_tables(&n.all()) {
                ddl(&mut conn, &sql).await?;
            }
        }
        conn.close().await;
        Ok(())
    }

    /// Reads every OBJECT and HISTORY row and the HISTORY index, after
    /// fresh statistics.
    async fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let mut first = String::new();
        write_ref(&mut first, 0);
        let groups = self
            .names
            .iter()
            .map(|n| {
                let scans = vec![
                    self.dialect().analyze(&n.object),
                    self.dialect().analyze(&n.history),
                    format!("SELECT COUNT(*) FROM {} WHERE NOTE LIKE '%0%'", n.object),
                    format!("SELECT COUNT(*) FROM {} WHERE NOTE LIKE '%0%'", n.history),
                    format!("SELECT COUNT(*) FROM {} WHERE REF_OBJECT >= '{first}'", n.history),
                ];
                (format!("{} and {}", n.object, n.history), scans)
            })
            .collect();
        crate::workload::common::prewarm_tables(&cfg, quiet, groups).await
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DbstressArgs, Shared};
    use super::*;
    use clap::{Args, FromArgMatches};

    /// OBJECT and HISTORY by the object's REF, the three small tables
    /// whole on every shard, per set.
    #[test]
    fn sets_shard_by_object() {
        let cmd = DbstressArgs::augment_args(clap::Command::new("t"));
        let args = DbstressArgs::from_arg_matches(&cmd.try_get_matches_from(["t", "--obj-tables=2"]).unwrap()).unwrap();
        let shared = Shared {
            delete_inserts: 1,
            skip_trx: false,
            for_update: false,
            storage_engine: String::new(),
            table_options: String::new(),
            table_compression: String::new(),
            load_mode: "auto".into(),
            load_bulk_size: 1000,
            trx_retry: false,
            reconnect: 0,
        };
        let w = Dbstress::new("dbstress", args, shared, crate::rand::DistConfig::default(), 1, crate::db::engines::named("mysql").unwrap()).unwrap();
        let plan = w.sharding();
        assert_eq!(plan.refused, None);
        assert_eq!(
            plan.tables[..5],
            [
                Sharding::sharded("OBJECT1", Key::text("REF")),
                Sharding::sharded("HISTORY1", Key::text("REF_OBJECT")),
                Sharding::reference("SECTION1", Key::text("REF")),
                Sharding::reference("STAT1", Key::text("REF")),
                Sharding::reference("ZONE1", Key::text("REF")),
            ]
        );
        assert_eq!(plan.tables.len(), 10);
        assert_eq!(plan.tables[5].table(), "OBJECT2");
    }

    fn history(first: u64, last: u64) -> Vec<(String, i64, String)> {
        let p = Progress::new("t", 0, true);
        let mut h = History { object: first, horder: 0, last, progress: &p, pending: 0 };
        let mut row = Row::default();
        let mut out = Vec::new();
        while h.next_row(&mut row) {
            let s = |k: usize| String::from_utf8(row.texts[k].clone()).unwrap();
            assert_eq!(row.texts[4].len(), 100);
            out.push((s(0), row.ints[0], s(1)));
        }
        out
    }

    /// Every object gets HORDER 0..19 in order, with BMK's status spread.
    #[test]
    fn history_rows_are_twenty_per_object() {
        let rows = history(7, 8);
        assert_eq!(rows.len(), 40);
        assert_eq!(rows[0], ("0000000007".to_string(), 0, "007".to_string()));
        assert_eq!(rows[19], ("0000000007".to_string(), 19, "197".to_string()));
        assert_eq!(rows[20].0, "0000000008");
        assert_eq!(rows[39].1, 19);
    }
}
