//! The sysbench OLTP family (oltp_read_write and friends) with BMK-kit's
//! variants: same schema, statements, per-event query counts and
//! read/write/other classification as sysbench's Lua scripts.

pub mod family;
pub mod label;
pub mod options;
pub mod prepare;
pub mod preset;

use super::{Checked, Counters, Levels, Witnessed, Workload};
use crate::db::Engine;
use crate::db::{Class, Conn, ConnConfig, DbError, DbResult, ErrKind, Param, StatementSet, StmtId};
use crate::error::Result;
use crate::rand::{fill_template, fill_template_rnd_data, Dist, DistConfig, Rng, UniquePermutation, C_TEMPLATE, PAD_TEMPLATE};
use crate::usage;
use crate::workload::common::CommonArgs;
use crate::workload::witness::{self, CheckKind, Key, Recorder, Witnessing, WriteLog};
pub use options::OltpArgs;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The tests of the family, by sysbench script name.
pub const TESTS: &[&str] = &[
    "oltp_read_write",
    "oltp_read_only",
    "oltp_write_only",
    "oltp_point_select",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_insert",
    "oltp_delete",
    "select_random_points",
    "select_random_ranges",
    "bulk_insert",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Point selects, ranges, updates, delete+insert in the configured numbers.
    Standard,
    Insert,
    Delete,
    RandomPoints,
    RandomRanges,
    BulkInsert,
}

/// Resolved per-event query mix.
#[derive(Clone, Debug, PartialEq)]
pub struct Mix {
    pub kind: Kind,
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub trx: bool,
}

impl Mix {
    /// sysbench's per-script defaults, then explicit options on top.
    pub fn resolve(test: &str, a: &OltpArgs) -> Result<Mix> {
        let z =
            Mix { kind: Kind::Standard, point_selects: 0, simple_ranges: 0, sum_ranges: 0, order_ranges: 0, distinct_ranges: 0, index_updates: 0, non_index_updates: 0, delete_inserts: 0, trx: false };
        let reads = |m: Mix| Mix { point_selects: 10, simple_ranges: 1, sum_ranges: 1, order_ranges: 1, distinct_ranges: 1, ..m };
        let writes = |m: Mix| Mix { index_updates: 1, non_index_updates: 1, delete_inserts: 1, ..m };
        let mut m = match test {
            "oltp_read_write" => writes(reads(Mix { trx: true, ..z })),
            "oltp_read_only" => reads(Mix { trx: true, ..z }),
            "oltp_write_only" => writes(Mix { trx: true, ..z }),
            "oltp_point_select" => Mix { point_selects: 1, ..z },
            "oltp_update_index" => Mix { index_updates: 1, ..z },
            "oltp_update_non_index" => Mix { non_index_updates: 1, ..z },
            "oltp_insert" => Mix { kind: Kind::Insert, ..z },
            "oltp_delete" => Mix { kind: Kind::Delete, ..z },
            "select_random_points" => Mix { kind: Kind::RandomPoints, ..z },
            "select_random_ranges" => Mix { kind: Kind::RandomRanges, ..z },
            "bulk_insert" => Mix { kind: Kind::BulkInsert, ..z },
            other => return Err(usage!("unknown workload '{other}': use one of {}", TESTS.join(", "))),
        };
        if m.kind == Kind::Standard {
            let set = |v: &mut u32, o: Option<u32>| {
                if let Some(o) = o {
                    *v = o;
                }
            };
            set(&mut m.point_selects, a.point_selects);
            set(&mut m.simple_ranges, a.simple_ranges);
            set(&mut m.sum_ranges, a.sum_ranges);
            set(&mut m.order_ranges, a.order_ranges);
            set(&mut m.distinct_ranges, a.distinct_ranges);
            if m.index_updates + m.non_index_updates + m.delete_inserts > 0 || test == "oltp_read_write" || test == "oltp_write_only" {
                set(&mut m.index_updates, a.index_updates);
                set(&mut m.non_index_updates, a.non_index_updates);
                set(&mut m.delete_inserts, a.delete_inserts);
            }
            if a.range_selects == Some(false) {
                m.simple_ranges = 0;
                m.sum_ranges = 0;
                m.order_ranges = 0;
                m.distinct_ranges = 0;
            }
            if m.trx {
                m.trx = !a.skip_trx.unwrap_or(false);
            }
        }
        Ok(m)
    }

    pub fn writes(&self) -> bool {
        self.index_updates + self.non_index_updates + self.delete_inserts > 0 || matches!(self.kind, Kind::Insert | Kind::Delete | Kind::BulkInsert)
    }
}

/// Prepared-statement ids of one table.
#[derive(Clone, Debug)]
struct TableStmts {
    point: StmtId,
    simple: StmtId,
    sum: StmtId,
    order: StmtId,
    distinct: StmtId,
    idx_upd: StmtId,
    nonidx_upd: StmtId,
    delete: StmtId,
    insert: StmtId,
    insert_auto: StmtId,
    /// `insert_auto` returning the id, where the engine reports it no other way.
    insert_auto_ret: Option<StmtId>,
}

/// Every statement of the workload and the ids the events use.
struct Stmts {
    set: Arc<StatementSet>,
    tables: Vec<TableStmts>,
    begin: StmtId,
    commit: StmtId,
    random_points: StmtId,
    random_ranges: StmtId,
}

pub struct Oltp {
    pub test: String,
    pub args: OltpArgs,
    /// The options every family shares (engine, table options, loading, retries).
    pub common: CommonArgs,
    pub mix: Mix,
    pub dist: DistConfig,
    pub seed: u64,
    pub engine: &'static dyn Engine,
    /// Built on first use: a run over 100k tables has a million
    /// statements, and a command that stops before the run (tables
    /// missing, cleanup, prepare) should not pay for them.
    stmts: OnceLock<Stmts>,
    /// Pin clients to tables (BMK) instead of drawing a table per query group.
    pinned: bool,
    clients: usize,
    /// SELECT ... FOR UPDATE on the row-returning SELECTs (BMK-kit's
    /// `--for-update=on`; off unless given, as in its scripts).
    pub for_update: bool,
    /// `--verify-writes`: where the clients record their writes.
    writes: OnceLock<Arc<WriteLog>>,
}

pub struct OltpClient {
    id: usize,
    rng: Rng,
    /// RNG state at the start of the current event (replayed by --trx-retry).
    saved: Rng,
    ids: Dist,
    table: usize,
    c_buf: Vec<u8>,
    pad_buf: Vec<u8>,
    in_trx: bool,
    unique: UniquePermutation,
    unique_next: u64,
    bulk: Vec<(i64, i64)>,
    bulk_next: i64,
    slice: (u64, u64),
    /// `--rand-loop=1`: the ids of this client's chunk.
    chunk: Dist,
    /// `--rand-loop=3`: the last id of the stride and how many it gave.
    stride: (u64, u32),
    /// `--verify-writes`: this client's record of its writes.
    rec: Option<Recorder>,
}

impl Oltp {
    pub fn new(test: &str, args: OltpArgs, common: CommonArgs, dist: DistConfig, seed: u64, engine: &'static dyn Engine, clients: usize) -> Result<Oltp> {
        let mix = Mix::resolve(test, &args)?;
        if matches!(mix.kind, Kind::RandomPoints | Kind::RandomRanges) && args.tables != 1 {
            return Err(usage!("{test} works on one table only: use --tables=1"));
        }
        if args.tables == 0 || args.table_size == 0 {
            return Err(usage!("--tables and --table-size must be at least 1"));
        }
        if args.rand_data > 100 {
            return Err(usage!("--rand-data is a percentage: 0..100"));
        }
        let pinned = match args.table_pick.as_str() {
            "pinned" => true,
            "random" => false,
            "auto" => clients >= args.tables as usize,
            other => return Err(usage!("--table-pick={other}: use pinned, random or auto")),
        };
        Ok(Oltp { test: test.to_string(), args, common, mix, dist, seed, engine, stmts: OnceLock::new(), pinned, clients, for_update: false, writes: OnceLock::new() })
    }

    fn st(&self) -> &Stmts {
        self.stmts.get_or_init(|| Self::build_statements(&self.args, &self.mix, self.engine, self.for_update))
    }

    fn build_statements(args: &OltpArgs, mix: &Mix, engine: &'static dyn Engine, for_update: bool) -> Stmts {
        let d = engine.dialect();
        let mut set = StatementSet::default();
        let hint = hint_comment(&args.query_hint);
        let cols = &args.select_cols;
        let fu = if for_update { d.for_update() } else { "" };
        let upd_where = if args.update_range_size > 1 { "id BETWEEN ? AND ?" } else { "id=?" };
        let mut tables = Vec::new();
        for t in 1..=args.tables {
            let name = format!("{}{t}", args.table_name);
            tables.push(TableStmts {
                point: set.add(format!("SELECT {hint}{cols} FROM {name} WHERE id=?{fu}"), true),
                simple: set.add(format!("SELECT {hint}{cols} FROM {name} WHERE id BETWEEN ? AND ?{fu}"), true),
                sum: set.add(format!("SELECT {hint}SUM(k) FROM {name} WHERE id BETWEEN ? AND ?"), true),
                order: set.add(format!("SELECT {hint}{cols} FROM {name} WHERE id BETWEEN ? AND ? ORDER BY c{fu}"), true),
                // DISTINCT c whatever --select-cols says, as sysbench and BMK-kit send it.
                distinct: set.add(format!("SELECT {hint}DISTINCT c FROM {name} WHERE id BETWEEN ? AND ? ORDER BY c"), true),
                idx_upd: set.add(format!("UPDATE {hint}{name} SET k=k+1 WHERE {upd_where}"), false),
                nonidx_upd: set.add(format!("UPDATE {hint}{name} SET c=? WHERE {upd_where}"), false),
                delete: set.add(format!("DELETE {hint}FROM {name} WHERE id=?"), false),
                insert: set.add(format!("INSERT {hint}INTO {name} (id, k, c, pad) VALUES (?, ?, ?, ?)"), false),
                insert_auto: set.add(format!("INSERT {hint}INTO {name} (k, c, pad) VALUES (?, ?, ?)"), false),
                insert_auto_ret: d.returning("id").map(|r| set.add(format!("INSERT {hint}INTO {name} (k, c, pad) VALUES (?, ?, ?){r}"), true)),
            });
        }
        let begin = set.add(if mix.writes() { d.begin_rw() } else { d.begin_ro() }, false);
        let commit = set.add("COMMIT", false);
        let first = format!("{}1", args.table_name);
        let marks = vec!["?"; args.random_points.max(1) as usize].join(", ");
        let random_points = set.add(format!("SELECT id, k, c, pad FROM {first} WHERE k IN ({marks})"), true);
        let ors = vec!["k BETWEEN ? AND ?"; args.number_of_ranges.max(1) as usize].join(" OR ");
        let random_ranges = set.add(format!("SELECT count(k) FROM {first} WHERE {ors}"), true);
        Stmts { set: Arc::new(set), tables, begin, commit, random_points, random_ranges }
    }

    pub fn table_names(&self) -> Vec<String> {
        (1..=self.args.tables).map(|t| format!("{}{t}", self.args.table_name)).collect()
    }

    fn pick_table(&self, c: &mut OltpClient) -> usize {
        if self.pinned || self.args.tables as usize == 1 {
            c.table
        } else {
            c.rng.uniform(0, self.args.tables as usize as u64 - 1) as usize
        }
    }

    /// The id of a row to read or change: the distribution over the table,
    /// or one of BMK-kit's `--rand-loop` walks (its `get_id`).
    fn draw_id(&self, c: &mut OltpClient) -> i64 {
        let size = self.args.table_size;
        let id = match self.args.rand_loop {
            1 => c.chunk.sample(&mut c.rng),
            2 => {
                // Ids in the client's residue class of the table split in slots.
                let shift = (size / self.clients.max(1) as u64).max(1);
                let id = c.ids.sample(&mut c.rng);
                (id - id % shift + c.id as u64 + 1).min(size)
            }
            3 => {
                if c.stride.0 == 0 || c.stride.1 > 1_000_000 {
                    c.stride = (c.ids.sample(&mut c.rng), 0);
                }
                c.stride.0 += 77_777;
                c.stride.1 += 1;
                c.stride.0 % size + 1
            }
            _ => c.ids.sample(&mut c.rng),
        };
        id as i64
    }

    fn new_c(&self, c: &mut OltpClient) {
        c.c_buf.clear();
        fill_data(&mut c.rng, C_TEMPLATE.as_bytes(), self.args.rand_data, &mut c.c_buf);
    }

    async fn pause(&self) {
        if self.args.sleep_after_query > 0 {
            crate::timer::sleep(Duration::from_micros(self.args.sleep_after_query)).await;
        }
    }

    async fn x(&self, conn: &mut Conn, q: &mut Counters, id: StmtId, p: &[Param<'_>]) -> DbResult<Class> {
        let class = conn.exec(id, p).await.map_err(|e| named(e, &conn.set.get(id).sql))?;
        q.add(class);
        self.pause().await;
        Ok(class)
    }

    async fn standard(&self, conn: &mut Conn, c: &mut OltpClient, q: &mut Counters) -> DbResult<()> {
        let m = &self.mix;
        let size = self.args.table_size as i64;
        let range = self.args.range_size as i64;
        if m.trx {
            c.in_trx = true;
            conn.exec(self.st().begin, &[]).await.map(|cl| q.add(cl)).map_err(|e| named(e, &conn.set.get(self.st().begin).sql))?;
            q.trx += 1;
        }
        if m.point_selects > 0 {
            let t = &self.st().tables[self.pick_table(c)];
            for _ in 0..m.point_selects {
                let id = self.draw_id(c);
                self.x(conn, q, t.point, &[Param::Int(id)]).await?;
            }
        }
        for (n, pick) in [(m.simple_ranges, 0), (m.sum_ranges, 1), (m.order_ranges, 2), (m.distinct_ranges, 3)] {
            if n == 0 {
                continue;
            }
            let t = &self.st().tables[self.pick_table(c)];
            let stmt = [t.simple, t.sum, t.order, t.distinct][pick];
            for _ in 0..n {
                let lo = self.draw_id(c);
                self.x(conn, q, stmt, &[Param::Int(lo), Param::Int(lo + range - 1)]).await?;
            }
        }
        let urs = self.args.update_range_size as i64;
        if m.index_updates > 0 {
            let t = &self.st().tables[self.pick_table(c)];
            for _ in 0..m.index_updates {
                let id = self.draw_id(c);
                if urs > 1 {
                    self.x(conn, q, t.idx_upd, &[Param::Int(id), Param::Int(id + urs - 1)]).await?;
                } else {
                    self.x(conn, q, t.idx_upd, &[Param::Int(id)]).await?;
                }
            }
        }
        if m.non_index_updates > 0 {
            let ti = self.pick_table(c);
            for _ in 0..m.non_index_updates {
                self.new_c(c);
                let id = self.draw_id(c);
                witness_c(c, ti, id);
                let cval = std::str::from_utf8(&c.c_buf).unwrap_or("");
                let t = &self.st().tables[ti];
                let class = if urs > 1 {
                    self.x(conn, q, t.nonidx_upd, &[Param::Text(cval), Param::Int(id), Param::Int(id + urs - 1)]).await?
                } else {
                    self.x(conn, q, t.nonidx_upd, &[Param::Text(cval), Param::Int(id)]).await?
                };
                // No row changed: under PostgreSQL's read committed, an UPDATE
                // waiting on a row that another transaction deleted and
                // inserted again updates nothing.
                if class != Class::Write {
                    if let Some(r) = &mut c.rec {
                        r.unwrite();
                    }
                }
            }
        }
        if m.delete_inserts > 0 {
            let ti = self.pick_table(c);
            for _ in 0..m.delete_inserts {
                let id = self.draw_id(c);
                let k = c.ids.sample(&mut c.rng) as i64;
                self.new_c(c);
                witness_c(c, ti, id);
                c.pad_buf.clear();
                fill_data(&mut c.rng, PAD_TEMPLATE.as_bytes(), self.args.rand_data, &mut c.pad_buf);
                let t = &self.st().tables[ti];
                self.x(conn, q, t.delete, &[Param::Int(id)]).await?;
                let (cv, pv) = (std::str::from_utf8(&c.c_buf).unwrap_or(""), std::str::from_utf8(&c.pad_buf).unwrap_or(""));
                self.x(conn, q, t.insert, &[Param::Int(id), Param::Int(k), Param::Text(cv), Param::Text(pv)]).await?;
            }
        }
        let _ = size;
        if m.trx {
            if self.args.sleep_before_commit > 0 {
                crate::timer::sleep(Duration::from_micros(self.args.sleep_before_commit)).await;
            }
            if let Some(r) = &mut c.rec {
                r.commit_sent();
            }
            witness::committed(&mut c.rec, conn.exec(self.st().commit, &[]).await).map(|cl| q.add(cl)).map_err(|e| named(e, &conn.set.get(self.st().commit).sql))?;
            q.trx += 1;
            c.in_trx = false;
            if let Some(r) = &mut c.rec {
                r.acknowledged();
            }
        }
        Ok(())
    }

    async fn insert(&self, conn: &mut Conn, c: &mut OltpClient, q: &mut Counters) -> DbResult<()> {
        let ti = self.pick_table(c);
        let k = c.ids.sample(&mut c.rng) as i64;
        self.new_c(c);
        c.pad_buf.clear();
        fill_data(&mut c.rng, PAD_TEMPLATE.as_bytes(), self.args.rand_data, &mut c.pad_buf);
        let (cv, pv) = (std::str::from_utf8(&c.c_buf).unwrap_or(""), std::str::from_utf8(&c.pad_buf).unwrap_or(""));
        let t = &self.st().tables[ti];
        let table = ti as i64 + 1;
        if self.args.auto_inc {
            let Some(r) = &mut c.rec else {
                return self.x(conn, q, t.insert_auto, &[Param::Int(k), Param::Text(cv), Param::Text(pv)]).await.map(drop);
            };
            // The key is the id the server gives: learnt once it answered.
            r.write(None, 0);
            r.commit_sent();
            let p = [Param::Int(k), Param::Text(cv), Param::Text(pv)];
            let id = match t.insert_auto_ret {
                Some(ret) => {
                    let rows = r.committed(conn.exec_rows(ret, &p).await).map_err(|e| named(e, &conn.set.get(ret).sql))?;
                    q.add(Class::Write);
                    self.pause().await;
                    rows.first().and_then(|row| row.first().cloned().flatten()).and_then(|v| v.trim().parse::<i64>().ok())
                }
                None => {
                    r.committed(self.x(conn, q, t.insert_auto, &p).await)?;
                    conn.last_insert_id().map(|v| v as i64)
                }
            };
            if let Some(id) = id {
                r.learnt_key([table, id, 0, 0]);
            }
            r.acknowledged();
            Ok(())
        } else {
            // Disjoint index sets per client over one permutation: unique
            // ids without a shared counter (sysbench shares an atomic one).
            let idx = c.unique_next * self.clients as u64 + c.id as u64;
            c.unique_next += 1;
            let id = c.unique.at(idx as u32) as i64 - 2_147_483_648;
            if let Some(r) = &mut c.rec {
                r.write(Some([table, id, 0, 0]), 0);
                r.commit_sent();
            }
            let done = self.x(conn, q, t.insert, &[Param::Int(id), Param::Int(k), Param::Text(cv), Param::Text(pv)]).await;
            witness::committed(&mut c.rec, done)?;
            if let Some(r) = &mut c.rec {
                r.acknowledged();
            }
            Ok(())
        }
    }

    /// Reads back the rows of `keys` ((table, id)) in batches: the id, and
    /// the token at the start of c where the writes put one.
    async fn read_rows(&self, conn: &mut Conn, keys: &[Key]) -> DbResult<witness::Found> {
        let tokens = self.mix.kind == Kind::Standard;
        let mut by_table: std::collections::BTreeMap<i64, Vec<i64>> = std::collections::BTreeMap::new();
        for k in keys {
            by_table.entry(k[0]).or_default().push(k[1]);
        }
        let mut found = witness::Found::new();
        for (t, ids) in by_table {
            for chunk in ids.chunks(500) {
                let list = chunk.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
                let sql = format!("SELECT id, c FROM {}{t} WHERE id IN ({list})", self.args.table_name);
                for row in conn.query_strings(&sql).await? {
                    let Some(id) = row.first().cloned().flatten().and_then(|v| v.trim().parse::<i64>().ok()) else { continue };
                    let token = if tokens { row.get(1).cloned().flatten().map(|v| witness::parse_token(&v)).unwrap_or(0) } else { 0 };
                    found.insert([t, id, 0, 0], token);
                }
            }
        }
        Ok(found)
    }
}

/// `--verify-writes`: the c value about to be written to row `id` of
/// table `ti` starts with a token of its own, recorded as a write of the
/// transaction under way.
fn witness_c(c: &mut OltpClient, ti: usize, id: i64) {
    let Some(r) = &mut c.rec else { return };
    let token = r.token();
    witness::token_text(token, &mut c.c_buf);
    r.write(Some([ti as i64 + 1, id, 0, 0]), token);
}

/// A fatal error names the statement it came from, as the README promises
/// (the run stops with this one line); retryable ones stay as they are.
fn named(mut e: DbError, sql: &str) -> DbError {
    if e.kind == ErrKind::Fatal {
        let mut stmt = sql.split_whitespace().collect::<Vec<_>>().join(" ");
        if stmt.len() > 200 {
            let mut cut = 200;
            while !stmt.is_char_boundary(cut) {
                cut -= 1;
            }
            stmt.truncate(cut);
            stmt.push_str("...");
        }
        let code = std::mem::take(&mut e.code);
        e.message = if code.is_empty() { format!("{} in statement: {stmt}", e.message) } else { format!("{} ({code}) in statement: {stmt}", e.message) };
    }
    e
}

/// c/pad value: fully random like sysbench, or BMK's partly fixed pattern.
fn fill_data(rng: &mut Rng, template: &[u8], rand_pct: u8, out: &mut Vec<u8>) {
    if rand_pct >= 100 {
        fill_template(rng, template, out);
    } else {
        fill_template_rnd_data(rng, template, rand_pct, out);
    }
}

impl Workload for Oltp {
    type Client = OltpClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.st().set.clone()
    }

    fn new_client(&self, id: usize, clients: usize) -> OltpClient {
        let rng = Rng::from_seed_or_entropy(self.seed, id as u64);
        let size = self.args.table_size;
        let per = (size / clients.max(1) as u64).max(1);
        let lo = (id as u64 * per).min(size - 1) + 1;
        OltpClient {
            id,
            saved: rng.clone(),
            rng,
            ids: Dist::new(&self.dist, 1, size),
            table: id % self.args.tables as usize,
            c_buf: Vec::with_capacity(128),
            pad_buf: Vec::with_capacity(64),
            in_trx: false,
            unique: UniquePermutation::new(self.seed),
            unique_next: 0,
            bulk: Vec::new(),
            bulk_next: id as i64 * 1_000_000_000 + 1,
            slice: (lo, (lo + per - 1).min(size)),
            chunk: {
                let (lo, hi) = rand_loop_chunk(size, clients, self.args.tables as usize, id);
                Dist::new(&self.dist, lo, hi)
            },
            stride: (0, 0),
            rec: self.writes.get().map(|l| l.recorder()),
        }
    }

    async fn event(&self, conn: &mut Conn, c: &mut OltpClient, q: &mut Counters, retry: bool) -> DbResult<()> {
        if retry && self.common.trx_retry {
            c.rng = c.saved.clone();
        } else {
            c.saved = c.rng.clone();
        }
        if let Some(r) = &mut c.rec {
            r.settle();
        }
        if !self.args.extra_query_before.is_empty() {
            q.add(conn.query(&self.args.extra_query_before).await.map_err(|e| named(e, &self.args.extra_query_before))?);
        }
        match self.mix.kind {
            Kind::Standard => self.standard(conn, c, q).await?,
            Kind::Insert => self.insert(conn, c, q).await?,
            Kind::Delete => {
                let t = self.st().tables[self.pick_table(c)].delete;
                let id = c.ids.sample(&mut c.rng) as i64;
                self.x(conn, q, t, &[Param::Int(id)]).await?;
            }
            Kind::RandomPoints => {
                let (lo, hi) = c.slice;
                let d = Dist::new(&self.dist, lo, hi);
                let vals: Vec<i64> = (0..self.args.random_points.max(1)).map(|_| d.sample(&mut c.rng) as i64).collect();
                let p: Vec<Param> = vals.iter().map(|v| Param::Int(*v)).collect();
                self.x(conn, q, self.st().random_points, &p).await?;
            }
            Kind::RandomRanges => {
                let (lo, hi) = c.slice;
                let d = Dist::new(&self.dist, lo, hi);
                let mut vals = Vec::new();
                for _ in 0..self.args.number_of_ranges.max(1) {
                    let v = d.sample(&mut c.rng) as i64;
                    vals.push(v);
                    vals.push(v + self.args.delta as i64);
                }
                let p: Vec<Param> = vals.iter().map(|v| Param::Int(*v)).collect();
                self.x(conn, q, self.st().random_ranges, &p).await?;
            }
            Kind::BulkInsert => {
                // One row per event, flushed as one multi-row INSERT per
                // 1000 rows like sysbench's buffered bulk insert.
                let id = c.bulk_next;
                c.bulk_next += 1;
                let k = c.rng.uniform(1, self.args.table_size) as i64;
                c.bulk.push((id, k));
                if c.bulk.len() >= 1000 {
                    let mut sql = format!("INSERT INTO {}{} (id, k) VALUES ", self.args.table_name, c.id + 1);
                    for (i, (id, k)) in c.bulk.drain(..).enumerate() {
                        if i > 0 {
                            sql.push(',');
                        }
                        sql.push_str(&format!("({id},{k})"));
                    }
                    q.add(conn.query(&sql).await.map_err(|e| named(e, &sql))?);
                }
            }
        }
        if !self.args.extra_query_after.is_empty() {
            q.add(conn.query(&self.args.extra_query_after).await.map_err(|e| named(e, &self.args.extra_query_after))?);
        }
        Ok(())
    }

    async fn after_error(&self, conn: &mut Conn, c: &mut OltpClient) {
        if c.in_trx {
            let _ = conn.query("ROLLBACK").await;
            c.in_trx = false;
        }
    }

    fn label(&self, cfg: &ConnConfig) -> String {
        let get = |n: &str| self.label_value(cfg, n);
        label::canonical(&self.test, &get)
    }

    fn options(&self, cfg: &ConnConfig) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = LABEL_OPTIONS.iter().filter_map(|n| self.label_value(cfg, n).map(|v| (n.to_string(), v))).collect();
        let d = &self.dist;
        crate::workload::add_missing(
            &mut v,
            vec![
                ("rand-spec-iter".into(), d.spec_iter.to_string()),
                ("rand-spec-pct".into(), d.spec_pct.to_string()),
                ("rand-spec-res".into(), d.spec_res.to_string()),
                ("rand-pareto-h".into(), d.pareto_h.to_string()),
                ("rand-zipfian-exp".into(), d.zipfian_exp.to_string()),
            ],
        );
        crate::workload::add_missing(&mut v, crate::workload::args_options(&self.args));
        // --for-update is on/off here, whatever the shared option's TPC-C default says.
        v.push(("for-update".into(), crate::values::bool_str(self.for_update).into()));
        crate::workload::add_missing(&mut v, crate::workload::args_options(&self.common));
        // Only MySQL-family servers have storage engines.
        if cfg.engine().dialect().table_options().is_none() {
            v.retain(|(k, _)| k != "mysql-storage-engine");
        }
        v
    }
}

impl Witnessed for Oltp {
    fn witnessing(&self) -> Option<Witnessing> {
        let m = &self.mix;
        let key_names = &["table", "id"];
        match m.kind {
            Kind::Insert => Some(Witnessing { check: CheckKind::Inserted, key_names }),
            // Each write of c carries its token; an update of a range of
            // rows or writes outside a transaction are not recorded.
            Kind::Standard if m.trx && m.non_index_updates + m.delete_inserts > 0 && (m.non_index_updates == 0 || self.args.update_range_size <= 1) => {
                Some(Witnessing { check: CheckKind::LastWrite, key_names })
            }
            _ => None,
        }
    }

    fn record_writes(&self, log: Arc<WriteLog>) {
        let _ = self.writes.set(log);
    }

    async fn read_back(&self, conn: &mut Conn, keys: &[Key]) -> DbResult<witness::Found> {
        self.read_rows(conn, keys).await
    }
}

impl Levels for Oltp {}

const LABEL_OPTIONS: &[&str] = &[
    "table-size",
    "tables",
    "rand-type",
    "db-ps-mode",
    "skip-trx",
    "point-selects",
    "range-selects",
    "simple-ranges",
    "sum-ranges",
    "order-ranges",
    "distinct-ranges",
    "index-updates",
    "non-index-updates",
    "delete-inserts",
    "range-size",
    "reconnect",
    "transport",
    "mysql-storage-engine",
];

impl Oltp {
    /// Effective value of a label option, for the canonical label.
    fn label_value(&self, cfg: &ConnConfig, name: &str) -> Option<String> {
        let m = &self.mix;
        let b = |v: bool| crate::values::bool_str(v).to_string();
        Some(match name {
            "table-size" => self.args.table_size.to_string(),
            "tables" => self.args.tables.to_string(),
            "rand-type" => self.dist.kind.name().to_string(),
            "db-ps-mode" => if cfg.prepared { "auto" } else { "disable" }.to_string(),
            "skip-trx" => b(!m.trx),
            "point-selects" => m.point_selects.to_string(),
            "range-selects" => b(m.simple_ranges + m.sum_ranges + m.order_ranges + m.distinct_ranges > 0),
            "simple-ranges" => m.simple_ranges.to_string(),
            "sum-ranges" => m.sum_ranges.to_string(),
            "order-ranges" => m.order_ranges.to_string(),
            "distinct-ranges" => m.distinct_ranges.to_string(),
            "index-updates" => m.index_updates.to_string(),
            "non-index-updates" => m.non_index_updates.to_string(),
            "delete-inserts" => m.delete_inserts.to_string(),
            "range-size" => self.args.range_size.to_string(),
            "reconnect" => self.common.reconnect.to_string(),
            "transport" => cfg.target.transport().to_string(),
            "mysql-storage-engine" if cfg.engine().dialect().table_options().is_some() => self.common.mysql_storage_engine.clone(),
            _ => return None,
        })
    }
}

/// `--query-hint` as it goes into a statement: BMK-kit's optimizer hint
/// comment `/*+ HINT */`, or the text as given when it is a comment already.
fn hint_comment(hint: &str) -> String {
    let h = hint.trim();
    if h.is_empty() {
        String::new()
    } else if h.starts_with("/*") {
        format!("{h} ")
    } else {
        format!("/*+ {h} */ ")
    }
}

/// `--rand-loop=1`: the ids (first, last) client `id` of `clients` draws
/// from. Fewer clients than tables: one chunk of the table per client;
/// otherwise the clients of one table (client i uses table i mod tables)
/// split it between them.
fn rand_loop_chunk(size: u64, clients: usize, tables: usize, id: usize) -> (u64, u64) {
    let (clients, tables) = (clients.max(1) as u64, tables.max(1) as u64);
    let (range, no) = if clients < tables {
        (size / clients, id as u64)
    } else {
        let per_table = (clients / tables).max(1);
        (size / per_table, (id as u64 / tables).min(per_table - 1))
    };
    let range = range.max(1);
    let lo = (1 + range * no).min(size);
    (lo, (range * (no + 1)).min(size).max(lo))
}

impl Checked for Oltp {}
