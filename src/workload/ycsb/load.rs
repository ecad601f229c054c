//! YCSB's table (the JDBC binding's: `YCSB_KEY VARCHAR(255) PRIMARY KEY`
//! and `FIELD0..` as TEXT), how its records are found, and fairbench's
//! bulk prepare: the same records `ycsb load` inserts, sent through each
//! engine's fastest path by parallel loaders.

use super::{gen, Phase, Ycsb};
use crate::db::sharding::{Key, ShardPlan, Sharding};
use crate::db::{sql_error, ColType, Column, Conn, ConnConfig, Row, RowSource};
use crate::error::{Error, Result};
use crate::output::Progress;
use crate::rand::Rng;
use crate::workload::{Checked, Dataset, DatasetTables, TableState};
use std::sync::Arc;

/// Records per loader piece at most, so loaders share the work evenly.
const PIECE: u64 = 50_000;
/// Pieces a bulk load is cut into (fewer when it has few records): enough for the loaders to
/// share, and the same whatever their number, so a prepare resumes whatever its --threads.
const PIECES: u64 = 64;

/// The records of key numbers `from..end` of the piece starting at `next`, as `ycsb load` makes
/// them: those before `from` (a resumed load's, there already) are drawn and dropped, so each
/// record gets the values an uninterrupted load gives it.
struct Records<'a> {
    w: &'a Ycsb,
    rng: Rng,
    len: gen::Length,
    next: u64,
    from: u64,
    end: u64,
    key: String,
    values: Vec<String>,
    progress: &'a Progress,
    pending: u64,
}

impl RowSource for Records<'_> {
    fn next_row(&mut self, row: &mut Row) -> bool {
        if self.next >= self.end {
            self.progress.add(std::mem::take(&mut self.pending));
            return false;
        }
        let n = self.w.cfg.fieldcount;
        self.values.resize(n, String::new());
        while self.next < self.from {
            gen::fill_values(&mut self.rng, &mut self.len, &mut self.values);
            self.next += 1;
        }
        if self.next >= self.end {
            self.progress.add(std::mem::take(&mut self.pending));
            return false;
        }
        row.nulls = 0;
        row.ints.clear();
        row.texts.resize(n + 1, Vec::new());
        self.w.cfg.key_into(self.next, &mut self.key);
        row.texts[0].clear();
        row.texts[0].extend_from_slice(self.key.as_bytes());
        gen::fill_values(&mut self.rng, &mut self.len, &mut self.values);
        for (t, v) in row.texts[1..].iter_mut().zip(&self.values) {
            t.clear();
            t.extend_from_slice(v.as_bytes());
        }
        self.next += 1;
        self.pending += 1;
        if self.pending >= 10_000 {
            self.progress.add(std::mem::take(&mut self.pending));
        }
        true
    }
}

impl Ycsb {
    fn create_table(&self) -> String {
        let fields: Vec<String> = (0..self.cfg.fieldcount).map(|i| format!(", {} TEXT", Ycsb::field(i))).collect();
        format!("CREATE TABLE {} (YCSB_KEY VARCHAR(255) PRIMARY KEY{}){}", self.cfg.table, fields.concat(), self.table_tail)
    }

    /// Whether the record with key number `n` is there; None when the
    /// table is not.
    async fn has_record(&self, conn: &mut Conn, n: u64) -> Option<bool> {
        let mut key = String::new();
        self.cfg.key_into(n, &mut key);
        let sql = format!("SELECT COUNT(*) FROM {} WHERE YCSB_KEY = '{key}'", self.cfg.table);
        let rows = conn.query_strings(&sql).await.ok()?;
        Some(rows.first().and_then(|r| r.first().cloned().flatten()).is_some_and(|v| v.trim() != "0"))
    }

    /// How many records the table holds from record 0 on, the run's own
    /// included: records beyond the run's last are found by doubling then
    /// halving the step (a few dozen lookups by key, where a COUNT(*)
    /// would read millions of rows). A load leaves no gap in its numbers.
    async fn records_held(&self, conn: &mut Conn) -> u64 {
        let mut held = self.last_record() + 1;
        let mut step = held.max(1);
        while self.has_record(conn, held + step - 1).await == Some(true) {
            held += step;
            step *= 2;
        }
        self.first_missing(conn, held, held + step - 1).await
    }

    /// The first record missing in `lo..=hi`, where the records before `lo` are there and
    /// record `hi` is not (a load leaves no gap within what it wrote): found by halving, a
    /// lookup that fails counted as missing.
    async fn first_missing(&self, conn: &mut Conn, mut lo: u64, mut hi: u64) -> u64 {
        while lo < hi {
            let m = lo + (hi - lo) / 2;
            if self.has_record(conn, m).await == Some(true) {
                lo = m + 1;
            } else {
                hi = m;
            }
        }
        lo
    }

    /// The pieces of a bulk load, key numbers `lo..hi`: they depend on the records alone.
    fn pieces(&self) -> Vec<(u64, u64)> {
        let (start, end) = (self.cfg.insertstart, self.cfg.insertstart + self.cfg.insertcount);
        let per = self.cfg.insertcount.div_ceil(PIECES).clamp(1, PIECE);
        (start..end).step_by(per as usize).map(|lo| (lo, (lo + per).min(end))).collect()
    }

    /// How many of the piece `lo..hi`'s records are there. A loader writes a piece in order from
    /// its first record, committing as it goes, so what an interrupted load left of it is a
    /// prefix: found by halving, in a few lookups by key.
    async fn piece_held(&self, conn: &mut Conn, lo: u64, hi: u64) -> Option<u64> {
        if self.has_record(conn, hi - 1).await? {
            return Some(hi - lo);
        }
        if !self.has_record(conn, lo).await? {
            return Some(0);
        }
        Some(self.first_missing(conn, lo + 1, hi - 1).await - lo)
    }

    /// What an interrupted prepare left: each piece with the record it resumes from, and how
    /// many records are there. Refused when the table holds records no prepare of these
    /// options leaves (every piece a prefix): another recordcount's or insertstart's, or a
    /// load's whose clients each inserted a share of their own.
    async fn resume_plan(&self, conn: &mut Conn) -> Result<(Vec<(u64, u64, u64)>, u64)> {
        let t = &self.cfg.table;
        let (mut todo, mut held) = (Vec::new(), 0);
        for (lo, hi) in self.pieces() {
            let h = self.piece_held(conn, lo, hi).await.unwrap_or(0);
            held += h;
            if lo + h < hi {
                todo.push((lo, lo + h, hi));
            }
        }
        let count = self.count(conn).await?;
        if count != held {
            return Err(Error::Usage(format!(
                "{t} holds {count} records, not as an interrupted prepare of these records leaves them ({held} found so): records of another recordcount or insertstart, or of a load by several clients"
            )));
        }
        Ok((todo, held))
    }

    /// What an earlier load of these records left, for a load by `load_clients` clients. Each
    /// client inserts its share's keys in order (a batch in one statement), so an interrupted
    /// load left a prefix of each share: the load resumes where each stopped, and the run
    /// measures the rest. Refused when the records are all there, or are not what such a load
    /// leaves (another recordcount's, or a load by another number of clients).
    async fn load_state(&self, conn: &mut Conn) -> Result<TableState> {
        let t = &self.cfg.table;
        let clients = self.load_clients.max(1);
        let (mut from, mut held) = (Vec::with_capacity(clients), 0);
        for id in 0..clients {
            let (lo, hi) = self.load_share(id, clients);
            let h = if lo < hi {
                match self.piece_held(conn, lo, hi).await {
                    Some(h) => h,
                    None => return Ok(TableState::Missing),
                }
            } else {
                0
            };
            held += h;
            from.push(lo + h);
        }
        if held == 0 {
            // Records of other key numbers may be there (a load with another insertstart).
            return Ok(if self.has_record(conn, self.cfg.insertstart).await.is_none() { TableState::Missing } else { TableState::Ready });
        }
        let n = self.cfg.insertcount;
        if held == n {
            return Ok(TableState::Mismatch(format!(
                "{t} holds the {n} records this load inserts already, from an earlier load: run the workload on them, or load other records with -p insertstart=N -p insertcount=M"
            )));
        }
        let count = self.count(conn).await?;
        if count != held {
            return Ok(TableState::Mismatch(format!(
                "{t} holds {count} records, not as an interrupted load of these records by {clients} clients leaves them ({held} found so): records of another recordcount or insertstart, or of a load by another --threads"
            )));
        }
        *self.resume.lock().unwrap_or_else(|e| e.into_inner()) = Some(super::Resume { clients, from, held });
        Ok(TableState::Ready)
    }

    /// The table's records, all of them.
    async fn count(&self, conn: &mut Conn) -> Result<u64> {
        let sql = format!("SELECT COUNT(*) FROM {}", self.cfg.table);
        let rows = conn.query_strings(&sql).await.map_err(sql_error(&sql))?;
        Ok(rows.first().and_then(|r| r.first().cloned().flatten()).and_then(|v| v.trim().parse().ok()).unwrap_or(0))
    }

    /// The last key number of the records a run reads.
    fn last_record(&self) -> u64 {
        self.cfg.insertstart + self.cfg.insertcount.max(1) - 1
    }

    /// Loads each piece `(lo, from, hi)`'s records `from..hi`.
    async fn load_pieces(&self, cfg: &Arc<ConnConfig>, loaders: usize, progress: &Arc<Progress>, pieces: Vec<(u64, u64, u64)>) -> Result<()> {
        let loaders = loaders.min(pieces.len()).max(1);
        let queue = Arc::new(std::sync::Mutex::new(std::collections::VecDeque::from(pieces)));
        let cols: Vec<Column> = std::iter::once("YCSB_KEY".to_string()).chain((0..self.cfg.fieldcount).map(Ycsb::field)).map(|name| Column { name, ty: ColType::Text }).collect();
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..loaders {
            let (me, cfg, queue, progress, cols) = (Arc::new(self.clone()), cfg.clone(), queue.clone(), progress.clone(), cols.clone());
            tasks.spawn(async move {
                let mut conn = Conn::admin(&cfg).await?;
                loop {
                    crate::model::check_interrupt()?;
                    let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                    let Some((lo, from, hi)) = next else { break };
                    let mut rows = Records {
                        w: &me,
                        rng: Rng::from_seed_or_entropy(me.seed, lo),
                        len: me.cfg.field_length(),
                        next: lo,
                        from,
                        end: hi,
                        key: String::new(),
                        values: Vec::new(),
                        progress: &progress,
                        pending: 0,
                    };
                    let t = &me.cfg.table;
                    conn.bulk_load(t, &cols, &mut rows, me.load_bulk_size, me.load_mode).await.map_err(|e| Error::Sql(format!("loading {t}: {e}")))?;
                }
                conn.close().await;
                Ok::<(), Error>(())
            });
        }
        crate::workload::join_loaders(tasks, "loader").await
    }
}

impl Dataset for Ycsb {
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Names(vec![self.cfg.table.clone()])
    }

    /// Rows spread by their key, so a read, update or insert reaches one
    /// shard (a scan reaches them all).
    fn sharding(&self) -> ShardPlan {
        ShardPlan::new(vec![Sharding::sharded(self.cfg.table.clone(), Key::text("YCSB_KEY"))])
    }

    async fn table_state(&self, cfg: &Arc<ConnConfig>) -> Result<TableState> {
        let mut conn = Conn::admin(cfg).await?;
        let t = &self.cfg.table;
        let state = match self.phase {
            Phase::Load => match self.load_state(&mut conn).await {
                Ok(state) => state,
                Err(e) => {
                    conn.close().await;
                    return Err(e);
                }
            },
            Phase::Run => match self.has_record(&mut conn, self.last_record()).await {
                None => TableState::Missing,
                // Like sysbench's tables, well more records than the run reads is a smaller
                // working set than the data: said, and recorded for the audit.
                Some(true) => crate::workload::Part::beyond(self.records_held(&mut conn).await, self.last_record() + 1, "-p recordcount").map_or(TableState::Ready, TableState::Larger),
                Some(false) => TableState::Mismatch(format!(
                    "{t} lacks record {} (recordcount={}): it holds part of the records, from a smaller recordcount or a load that did not finish: a prepare with these options loads the rest, or that load goes on when run again with its --threads",
                    self.last_record(),
                    self.cfg.recordcount
                )),
            },
        };
        conn.close().await;
        Ok(state)
    }

    /// `ycsb load` creates the table only (its operations insert the
    /// records); `prepare` loads them too, in bulk.
    async fn prepare(&self, cfg: Arc<ConnConfig>, threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        let t = &self.cfg.table;
        let created = match self.has_record(&mut conn, self.last_record()).await {
            Some(true) if self.phase == Phase::Run => {
                if !quiet {
                    println!("{t} holds its {} records already.", self.cfg.insertcount);
                }
                conn.close().await;
                return Ok(());
            }
            Some(_) if self.phase == Phase::Load => {
                conn.close().await;
                return Ok(());
            }
            // Part of the records: a prepare that did not finish resumes where each piece stopped
            // (a smaller load's records are a prefix of the pieces too: the rest is loaded).
            Some(_) => false,
            None => {
                let create = self.create_table();
                conn.query(&create).await.map_err(sql_error(&create))?;
                if self.phase == Phase::Load {
                    conn.close().await;
                    return Ok(());
                }
                true
            }
        };
        let plan = if created { Ok((self.pieces().into_iter().map(|(lo, hi)| (lo, lo, hi)).collect(), 0)) } else { self.resume_plan(&mut conn).await };
        let (todo, held) = match plan {
            Ok(plan) => plan,
            Err(e) => {
                conn.close().await;
                return Err(e);
            }
        };
        if !quiet {
            if held > 0 {
                println!("{t} holds {held} of its {} records (a prepare that did not finish, or a smaller load): loading the rest.", self.cfg.insertcount);
            } else {
                println!("Loading {} YCSB records of {} fields into {t}...", self.cfg.insertcount, self.cfg.fieldcount);
            }
        }
        let progress = Arc::new(Progress::new("Loading", self.cfg.insertcount, quiet));
        progress.skip(held);
        let r = self.load_pieces(&cfg, threads.max(1), &progress, todo).await;
        progress.finish();
        r?;
        if let Some(sql) = self.engine.dialect().after_bulk_load() {
            let sql = sql.replace("{table}", t);
            let _ = conn.query(&sql).await;
        }
        conn.close().await;
        Ok(())
    }

    async fn cleanup(&self, cfg: Arc<ConnConfig>, _threads: usize, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        let sql = format!("DROP TABLE IF EXISTS {}", self.cfg.table);
        conn.query(&sql).await.map_err(sql_error(&sql))?;
        if !quiet {
            println!("Dropping table '{}'...", self.cfg.table);
        }
        conn.close().await;
        Ok(())
    }

    async fn prewarm(&self, cfg: Arc<ConnConfig>, quiet: bool) -> Result<()> {
        let mut conn = Conn::admin(&cfg).await?;
        let sql = format!("SELECT COUNT(*), SUM(LENGTH(FIELD0)) FROM {}", self.cfg.table);
        conn.query(&sql).await.map_err(sql_error(&sql))?;
        if !quiet {
            println!("Prewarming table '{}'...", self.cfg.table);
        }
        conn.close().await;
        Ok(())
    }
}

impl Checked for Ycsb {}
