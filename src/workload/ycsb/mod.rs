//! YCSB, the Yahoo! Cloud Serving Benchmark's core workload: one table of
//! `fieldcount` text fields keyed by `user<number>`, loaded by inserts
//! (`fairbench load ycsb`, YCSB's load phase, measured) or in bulk
//! (`fairbench prepare ycsb`), then read, update, insert, scan and
//! read-modify-write operations in the proportions of a workload file,
//! with keys chosen as YCSB chooses them ([`gen`]). The statements are
//! those of YCSB's JDBC binding, each in autocommit.
//!
//! Here: the statements and the event. `props.rs` reads YCSB's property
//! files, `config.rs` resolves them, `load.rs` has the table, `output.rs`
//! YCSB's block of figures.

pub mod config;
pub mod family;
pub mod gen;
pub mod label;
pub mod load;
pub mod options;
pub mod output;
pub mod props;

use super::{Counters, Levels, Witnessed, Workload};
use crate::db::Engine;
use crate::db::{Conn, ConnConfig, DbResult, Param, StatementSet, StmtId};
use crate::rand::Rng;
pub use config::{Config, INSERT, OPS, READ, RMW, SCAN, UPDATE};
use gen::{AckCounter, KeyChooser, Length};
pub use options::YcsbArgs;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The workload name.
pub const NAME: &str = "ycsb";

/// Which of YCSB's two phases a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `ycsb load`: every operation inserts the next records.
    Load,
    /// `ycsb run`: the workload's mix of operations.
    Run,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Load => "load",
            Phase::Run => "run",
        }
    }
}

#[derive(Clone)]
pub struct Ycsb {
    pub cfg: Config,
    pub phase: Phase,
    pub engine: &'static dyn Engine,
    seed: u64,
    set: Arc<StatementSet>,
    read: StmtId,
    /// UPDATE of field i alone, then of every field.
    update_one: Vec<StmtId>,
    update_all: StmtId,
    insert: StmtId,
    /// INSERT of `cfg.batch` rows (load phase).
    insert_batch: StmtId,
    scan: StmtId,
    /// The run's insert keys, shared by all clients (YCSB's
    /// transactioninsertkeysequence).
    inserts: Arc<AckCounter>,
    /// The key chooser each client starts from (a latest chooser's zeta is
    /// computed once, here).
    chooser: KeyChooser,
    /// Rows inserted in the load phase, over all clients.
    pub loaded: Arc<AtomicU64>,
    /// Inserts of the run that found their key taken.
    pub insert_errors: Arc<AtomicU64>,
    /// The load phase's clients (its largest level): whose shares an interrupted load resumes.
    pub load_clients: usize,
    /// Where each client resumes an interrupted load, found by `table_state`.
    pub resume: Arc<std::sync::Mutex<Option<Resume>>>,
    /// The options of the table and its load (storage engine, load mode).
    pub table_tail: String,
    pub load_mode: crate::db::LoadMode,
    pub load_bulk_size: usize,
}

/// An interrupted load of these records by `clients` clients: each share holds a prefix (its
/// client inserts its keys in order, a batch in one statement), so client i goes on from
/// `from[i]`; `held` records were there.
#[derive(Clone, Debug, PartialEq)]
pub struct Resume {
    pub clients: usize,
    pub from: Vec<u64>,
    pub held: u64,
}

pub struct YcsbClient {
    rng: Rng,
    chooser: KeyChooser,
    field_len: Length,
    scan_len: Length,
    key: String,
    values: Vec<String>,
    /// Load phase: the next key number of this client's share, and its end.
    load_next: u64,
    load_end: u64,
    keys: Vec<String>,
}

impl Ycsb {
    pub fn new(cfg: Config, phase: Phase, engine: &'static dyn Engine, seed: u64) -> Ycsb {
        let chooser = cfg.key_chooser();
        let mut w = Ycsb {
            inserts: Arc::new(AckCounter::new(cfg.recordcount)),
            chooser,
            cfg,
            phase,
            engine,
            seed,
            set: Arc::new(StatementSet::default()),
            read: StmtId(0),
            update_one: Vec::new(),
            update_all: StmtId(0),
            insert: StmtId(0),
            insert_batch: StmtId(0),
            scan: StmtId(0),
            loaded: Arc::new(AtomicU64::new(0)),
            insert_errors: Arc::new(AtomicU64::new(0)),
            load_clients: 1,
            resume: Arc::default(),
            table_tail: String::new(),
            load_mode: crate::db::LoadMode::Auto,
            load_bulk_size: 10_000,
        };
        w.build_statements();
        w
    }

    pub fn field(i: usize) -> String {
        format!("FIELD{i}")
    }

    /// The JDBC binding's statements (its DefaultDBFlavor).
    fn build_statements(&mut self) {
        let mut set = StatementSet::default();
        let t = &self.cfg.table;
        let n = self.cfg.fieldcount;
        let fields: Vec<String> = (0..n).map(Ycsb::field).collect();
        self.read = set.add(format!("SELECT * FROM {t} WHERE YCSB_KEY = ?"), true);
        self.update_one = fields.iter().map(|f| set.add(format!("UPDATE {t} SET {f}=? WHERE YCSB_KEY = ?"), false)).collect();
        let all = fields.iter().map(|f| format!("{f}=?")).collect::<Vec<_>>().join(", ");
        self.update_all = set.add(format!("UPDATE {t} SET {all} WHERE YCSB_KEY = ?"), false);
        let row = format!("(?{})", ",?".repeat(n));
        let cols = format!("INSERT INTO {t} (YCSB_KEY,{})", fields.join(","));
        self.insert = set.add(format!("{cols} VALUES{row}"), false);
        self.insert_batch = if self.cfg.batch > 1 { set.add(format!("{cols} VALUES{}", vec![row; self.cfg.batch].join(",")), false) } else { self.insert };
        self.scan = set.add(format!("SELECT * FROM {t} WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"), true);
        self.set = Arc::new(set);
    }

    /// The key numbers client `id` of `clients` inserts when loading: an
    /// even share of `insertstart .. insertstart + insertcount`.
    fn load_share(&self, id: usize, clients: usize) -> (u64, u64) {
        let (start, n) = (self.cfg.insertstart, self.cfg.insertcount);
        let k = clients.max(1) as u64;
        let lo = start + n * id as u64 / k;
        let hi = start + n * (id as u64 + 1) / k;
        (lo, hi)
    }

    /// Fills every field of the client's values (an insert, or an update
    /// of all fields).
    fn all_values(&self, c: &mut YcsbClient) {
        gen::fill_values(&mut c.rng, &mut c.field_len, &mut c.values[..self.cfg.fieldcount]);
    }

    async fn read(&self, conn: &mut Conn, c: &mut YcsbClient, q: &mut Counters) -> DbResult<()> {
        let t = Instant::now();
        q.add(conn.exec(self.read, &[Param::Text(&c.key)]).await?);
        q.step(READ, t.elapsed().as_micros() as u64);
        Ok(())
    }

    async fn update(&self, conn: &mut Conn, c: &mut YcsbClient, q: &mut Counters) -> DbResult<()> {
        let t;
        if self.cfg.writeallfields {
            self.all_values(c);
            let mut p: Vec<Param> = c.values.iter().map(|v| Param::Text(v)).collect();
            p.push(Param::Text(&c.key));
            t = Instant::now();
            q.add(conn.exec(self.update_all, &p).await?);
        } else {
            let f = c.rng.uniform(0, self.cfg.fieldcount as u64 - 1) as usize;
            let len = c.field_len.next(&mut c.rng) as usize;
            gen::random_value(&mut c.rng, len, &mut c.values[0]);
            t = Instant::now();
            q.add(conn.exec(self.update_one[f], &[Param::Text(&c.values[0]), Param::Text(&c.key)]).await?);
        }
        q.step(UPDATE, t.elapsed().as_micros() as u64);
        Ok(())
    }

    async fn insert(&self, conn: &mut Conn, c: &mut YcsbClient, q: &mut Counters) -> DbResult<()> {
        let n = self.inserts.next();
        self.cfg.key_into(n, &mut c.key);
        self.all_values(c);
        let mut p: Vec<Param> = Vec::with_capacity(self.cfg.fieldcount + 1);
        p.push(Param::Text(&c.key));
        p.extend(c.values.iter().map(|v| Param::Text(v)));
        let t = Instant::now();
        let r = conn.exec(self.insert, &p).await;
        // As YCSB: the key counts as inserted whatever the outcome, so
        // reads of the newest keys move on.
        self.inserts.acknowledge(n);
        match r {
            Ok(class) => q.add(class),
            // A key an earlier run inserted: YCSB's Return=ERROR, and on.
            Err(e) if duplicate_key(&e) => {
                self.insert_errors.fetch_add(1, Ordering::Relaxed);
                q.errors += 1;
            }
            Err(e) => return Err(e),
        }
        q.step(INSERT, t.elapsed().as_micros() as u64);
        Ok(())
    }

    async fn scan(&self, conn: &mut Conn, c: &mut YcsbClient, q: &mut Counters) -> DbResult<()> {
        let len = c.scan_len.next(&mut c.rng) as i64;
        let t = Instant::now();
        q.add(conn.exec(self.scan, &[Param::Text(&c.key), Param::Int(len)]).await?);
        q.step(SCAN, t.elapsed().as_micros() as u64);
        Ok(())
    }

    /// The load phase: the client's next batch of keys, in one INSERT.
    async fn load(&self, conn: &mut Conn, c: &mut YcsbClient, q: &mut Counters) -> DbResult<()> {
        q.kind = INSERT;
        if c.load_next >= c.load_end {
            q.ended = true;
            return Ok(());
        }
        let rows = (c.load_end - c.load_next).min(self.cfg.batch as u64) as usize;
        let stmt = if rows == self.cfg.batch { self.insert_batch } else { self.insert };
        let rows = if stmt == self.insert { 1 } else { rows };
        c.keys.resize(rows, String::new());
        let fields = self.cfg.fieldcount;
        c.values.resize(fields * rows, String::new());
        for (r, key) in c.keys.iter_mut().enumerate() {
            self.cfg.key_into(c.load_next + r as u64, key);
        }
        gen::fill_values(&mut c.rng, &mut c.field_len, &mut c.values[..fields * rows]);
        let mut p: Vec<Param> = Vec::with_capacity(rows * (fields + 1));
        for r in 0..rows {
            p.push(Param::Text(&c.keys[r]));
            p.extend(c.values[r * fields..(r + 1) * fields].iter().map(|v| Param::Text(v)));
        }
        let t = Instant::now();
        q.add(conn.exec(stmt, &p).await?);
        q.step(INSERT, t.elapsed().as_micros() as u64);
        // Only a batch that went in moves the client on: a retry sends it again.
        c.load_next += rows as u64;
        self.loaded.fetch_add(rows as u64, Ordering::Relaxed);
        Ok(())
    }
}

/// The error of an insert whose key is there already, on any engine.
fn duplicate_key(e: &crate::db::DbError) -> bool {
    matches!(e.code.as_str(), "1062" | "23505") || e.code.starts_with("SQLITE_CONSTRAINT")
}

impl Workload for Ycsb {
    type Client = YcsbClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.set.clone()
    }

    fn new_client(&self, id: usize, clients: usize) -> YcsbClient {
        let rng = Rng::from_seed_or_entropy(self.seed, id as u64);
        let (mut load_next, load_end) = self.load_share(id, clients);
        if let Some(r) = self.resume.lock().unwrap_or_else(|e| e.into_inner()).as_ref().filter(|r| r.clients == clients) {
            load_next = r.from[id].clamp(load_next, load_end);
        }
        YcsbClient {
            rng,
            chooser: self.chooser.clone(),
            field_len: self.cfg.field_length(),
            scan_len: self.cfg.scan_length(),
            key: String::with_capacity(32),
            values: vec![String::with_capacity(self.cfg.fieldlength as usize); self.cfg.fieldcount],
            load_next,
            load_end,
            keys: Vec::new(),
        }
    }

    async fn event(&self, conn: &mut Conn, c: &mut YcsbClient, q: &mut Counters, _retry: bool) -> DbResult<()> {
        if self.phase == Phase::Load {
            return self.load(conn, c, q).await;
        }
        let op = self.cfg.op_for(c.rng.uniform_double());
        q.kind = op;
        if op == INSERT {
            return self.insert(conn, c, q).await;
        }
        let n = c.chooser.next(&mut c.rng, self.inserts.last());
        self.cfg.key_into(n, &mut c.key);
        match op {
            READ => self.read(conn, c, q).await,
            UPDATE => self.update(conn, c, q).await,
            SCAN => self.scan(conn, c, q).await,
            _ => {
                // Read-modify-write: the read and the update count as a
                // READ and an UPDATE too, as in YCSB, and the pair as one.
                let t = Instant::now();
                self.read(conn, c, q).await?;
                self.update(conn, c, q).await?;
                q.step(RMW, t.elapsed().as_micros() as u64);
                Ok(())
            }
        }
    }

    async fn after_error(&self, _conn: &mut Conn, _c: &mut YcsbClient) {}

    fn kinds(&self) -> &'static [&'static str] {
        &OPS
    }

    fn steps(&self) -> &'static [&'static str] {
        &OPS
    }

    fn label(&self, _cfg: &ConnConfig) -> String {
        label::of(&self.cfg, self.phase)
    }

    fn options(&self, _cfg: &ConnConfig) -> Vec<(String, String)> {
        let c = &self.cfg;
        let mut v = vec![("ycsb-phase".to_string(), self.phase.name().to_string())];
        // One option per property, `--ycsb.KEY=VALUE` (the command line reads
        // it as `-p KEY=VALUE`), so records keep them apart.
        let mut prop = |k: &str, val: String| v.push((format!("ycsb.{k}"), val));
        prop("recordcount", c.recordcount.to_string());
        prop("operationcount", c.operationcount.to_string());
        prop("insertstart", c.insertstart.to_string());
        prop("insertcount", c.insertcount.to_string());
        prop("table", c.table.clone());
        prop("fieldcount", c.fieldcount.to_string());
        prop("fieldlength", c.fieldlength.to_string());
        prop("fieldlengthdistribution", c.fieldlengthdistribution.clone());
        prop("readallfields", c.readallfields.to_string());
        prop("writeallfields", c.writeallfields.to_string());
        for (k, m) in config::MIX_KEYS.iter().zip(c.mix) {
            prop(k, m.to_string());
        }
        prop("requestdistribution", c.requestdistribution.clone());
        prop("insertorder", if c.ordered { "ordered" } else { "hashed" }.to_string());
        prop("zeropadding", c.zeropadding.to_string());
        prop("maxscanlength", c.maxscanlength.to_string());
        prop("scanlengthdistribution", c.scanlengthdistribution.clone());
        prop("db.batchsize", c.batch.to_string());
        v
    }
}

impl Witnessed for Ycsb {}

impl Levels for Ycsb {
    fn sink(&self, json: bool, percentile: u32, standard: &'static dyn crate::output::StandardOutput) -> Option<Box<dyn crate::model::Sink>> {
        Some(Box::new(output::YcsbSink::new(self, json, percentile, standard)))
    }
}
