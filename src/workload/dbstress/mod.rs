//! dbSTRESS, Dimitri Kravtchuk's benchmark as BMK-kit ports it to sysbench:
//! five tables per set (ZONE, STAT, SECTION, OBJECT and 20 HISTORY rows per
//! object), events that read an object with its placement (SEL1) and its
//! history with statuses (SEL2), and write one HISTORY row by UPDATE and by
//! DELETE + INSERT on every `--rw-ratio`th event.
//!
//! Two workloads: `dbstress` (BMK's read-write script) and `dbstress_ro`
//! (its read-only one, which never writes). Events are counted as READ or
//! WRITE transactions, and each statement is timed on its own.

pub mod check;
pub mod family;
pub mod label;
pub mod load;
pub mod options;

use super::{Counters, Levels, Witnessed, Workload};
use crate::db::Dialect;
use crate::db::Engine;
use crate::db::{Class, Conn, ConnConfig, DbResult, Param, StatementSet, StmtId};
use crate::error::Result;
use crate::rand::{Dist, DistConfig, Rng};
use crate::usage;
pub use options::{DbstressArgs, Shared};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

/// The read-write workload, and the one `check` and Prepare labels name.
pub const RW: &str = "dbstress";
/// The read-only workload.
pub const RO: &str = "dbstress_ro";

/// HISTORY rows per object.
pub const N_HISTORY: i64 = 20;
/// Rows of the fixed tables of a set.
pub const ZONES: u64 = 10;
pub const STATS: u64 = 1000;
pub const SECTIONS: u64 = 100;

const RO_KINDS: &[&str] = &["READ"];
const RW_KINDS: &[&str] = &["READ", "WRITE"];
const READ: usize = 0;
const WRITE: usize = 1;

const RO_STEPS: &[&str] = &["SEL1", "SEL2"];
const RW_STEPS: &[&str] = &["SEL1", "SEL2", "UPDATE", "DELETE", "INSERT"];
const SEL1: usize = 0;
const SEL2: usize = 1;
const UPDATE: usize = 2;
const DELETE: usize = 3;
const INSERT: usize = 4;

/// Table names of one set.
#[derive(Clone, Debug)]
pub struct Names {
    pub zone: String,
    pub stat: String,
    pub section: String,
    pub object: String,
    pub history: String,
}

impl Names {
    pub fn new(n: u32) -> Names {
        Names { zone: format!("ZONE{n}"), stat: format!("STAT{n}"), section: format!("SECTION{n}"), object: format!("OBJECT{n}"), history: format!("HISTORY{n}") }
    }

    /// Children first, the order in which they are dropped.
    pub fn all(&self) -> [&str; 5] {
        [&self.history, &self.object, &self.section, &self.stat, &self.zone]
    }
}

/// Statements of one set.
#[derive(Clone, Copy, Debug)]
struct SetStmts {
    sel1: StmtId,
    sel2: StmtId,
    update: StmtId,
    delete: StmtId,
    insert: StmtId,
}

/// Statements per event, as the options resolve for a workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mix {
    pub sel1: u32,
    pub sel2: u32,
    pub updates: u32,
    pub delete_inserts: u32,
    pub rw_ratio: u32,
}

impl Mix {
    fn writes(&self) -> bool {
        self.updates + self.delete_inserts > 0
    }
}

#[derive(Clone)]
pub struct Dbstress {
    pub workload: String,
    pub args: DbstressArgs,
    pub shared: Shared,
    pub mix: Mix,
    pub engine: &'static dyn Engine,
    pub names: Vec<Names>,
    /// Table options after CREATE TABLE's closing parenthesis.
    table_tail: String,
    dist: DistConfig,
    seed: u64,
    set: Arc<StatementSet>,
    st: Vec<SetStmts>,
    begin_rw: StmtId,
    begin_ro: StmtId,
    commit: StmtId,
}

pub struct DbstressClient {
    rng: Rng,
    saved: Rng,
    /// Events begun (retries not counted): every `rw_ratio`th writes.
    ops: u64,
    refs: Dist,
    in_trx: bool,
    reference: String,
    state: String,
    date: String,
    note: String,
}

/// `n` as the 10-digit REF the tables hold.
pub fn write_ref(buf: &mut String, n: u64) {
    buf.clear();
    let _ = write!(buf, "{n:010}");
}

impl Dbstress {
    pub fn new(workload: &str, args: DbstressArgs, shared: Shared, dist: DistConfig, seed: u64, engine: &'static dyn Engine) -> Result<Dbstress> {
        let read_only = workload == RO;
        if args.obj_table_size > 9_999_999_999 {
            return Err(usage!("--obj-table-size={}: a REF has 10 digits, so at most 9999999999 objects", args.obj_table_size));
        }
        // What follows CREATE TABLE's parenthesis; a compression the engine has no clause for is refused here.
        let table_tail = crate::workload::common::table_tail(engine, &shared.storage_engine, &shared.table_compression, &shared.table_options)?.trim().to_string();
        let mix = Mix {
            sel1: args.sel1,
            sel2: args.sel2,
            updates: if read_only { 0 } else { args.updates },
            delete_inserts: if read_only { 0 } else { shared.delete_inserts },
            rw_ratio: args.rw_ratio.max(1),
        };
        if mix.sel1 + mix.sel2 + mix.updates + mix.delete_inserts == 0 {
            return Err(usage!("--SEL1, --SEL2, --updates and --delete-inserts are all 0: an event would run nothing; give one of them a count"));
        }
        let names = (1..=args.obj_tables).map(Names::new).collect();
        let mut w = Dbstress {
            workload: workload.to_string(),
            args,
            shared,
            mix,
            engine,
            names,
            table_tail,
            dist,
            seed,
            set: Arc::new(StatementSet::default()),
            st: Vec::new(),
            begin_rw: StmtId(0),
            begin_ro: StmtId(0),
            commit: StmtId(0),
        };
        w.build_statements();
        Ok(w)
    }

    fn dialect(&self) -> &'static dyn Dialect {
        self.engine.dialect()
    }

    fn read_only(&self) -> bool {
        self.workload == RO
    }

    fn build_statements(&mut self) {
        let mut set = StatementSet::default();
        let fu = if self.shared.for_update { self.dialect().for_update() } else { "" };
        // The REF column is CHAR(10).
        let r = self.dialect().char_param(10);
        for n in &self.names {
            let (z, st, s, o, h) = (&n.zone, &n.stat, &n.section, &n.object, &n.history);
            self.st.push(SetStmts {
                sel1: set.add(
                    format!("SELECT S.REF, S.NAME, Z.REF, Z.NAME, O.NAME, O.CREATE_DATE, O.NOTE FROM {o} O, {s} S, {z} Z WHERE S.REF = O.REF_SECTION AND Z.REF = S.REF_ZONE AND O.REF = {r}{fu}"),
                    true,
                ),
                sel2: set
                    .add(format!("SELECT S.REF, S.NAME, H.HORDER, H.BEGIN_DATE, H.END_DATE, H.NOTE FROM {h} H, {st} S WHERE S.REF = H.REF_STAT AND H.REF_OBJECT = {r} ORDER BY H.HORDER{fu}"), true),
                update: set.add(format!("UPDATE {h} SET REF_STAT = ?, BEGIN_DATE = ?, END_DATE = ?, NOTE = ? WHERE REF_OBJECT = {r} AND HORDER = ?"), false),
                delete: set.add(format!("DELETE FROM {h} WHERE REF_OBJECT = {r} AND HORDER = ?"), false),
                insert: set.add(format!("INSERT INTO {h} (REF_OBJECT, HORDER, REF_STAT, BEGIN_DATE, END_DATE, NOTE) VALUES (?, ?, ?, ?, ?, ?)"), false),
            });
        }
        self.begin_rw = set.add(self.dialect().begin_rw(), false);
        self.begin_ro = set.add(self.dialect().begin_ro(), false);
        self.commit = set.add("COMMIT", false);
        self.set = Arc::new(set);
    }

    /// The REFs client `id` of `clients` draws from. With `--anti-dead`
    /// each client keeps to its own slice (BMK-kit leaves 5 objects at
    /// each end of a slice); with fewer objects than clients the slices
    /// would be empty, so every client draws from all objects.
    fn ref_range(&self, id: usize, clients: usize) -> (u64, u64) {
        let size = self.args.obj_table_size;
        let per = size / clients.max(1) as u64;
        if !self.args.anti_dead || per == 0 {
            return (0, size - 1);
        }
        let lo = id as u64 * per;
        if per > 10 {
            (lo + 5, lo + per - 5)
        } else {
            (lo, lo + per - 1)
        }
    }

    /// A set (index into the statements) and a REF into `c.reference`.
    fn draw(&self, c: &mut DbstressClient) -> usize {
        let set = if self.st.len() > 1 { c.rng.uniform(0, self.st.len() as u64 - 1) as usize } else { 0 };
        let r = c.refs.sample(&mut c.rng);
        write_ref(&mut c.reference, r);
        set
    }

    /// The values of a written HISTORY row: status, date and note.
    fn row_values(&self, c: &mut DbstressClient, horder: i64) {
        c.state.clear();
        let _ = write!(c.state, "{:03}", c.rng.uniform(0, STATS - 1));
        let d = c.rng.uniform(0, 99);
        c.date.clear();
        let _ = write!(c.date, "{:02}/{:02}/19{:02}", d % 28 + 1, d % 12 + 1, d % 100);
        c.note.clear();
        let _ = write!(c.note, "{} NOTE State {} FOR REF#{}-{horder} ", c.date, c.state, c.reference);
        while c.note.len() < 100 {
            c.note.push('X');
        }
        c.note.truncate(100);
    }

    async fn timed(&self, conn: &mut Conn, q: &mut Counters, step: usize, id: StmtId, p: &[Param<'_>]) -> DbResult<Class> {
        let t0 = Instant::now();
        let class = conn.exec(id, p).await?;
        q.step(step, t0.elapsed().as_micros() as u64);
        q.add(class);
        Ok(class)
    }

    /// `n` statements of one kind; with `--same-ref` the first uses the
    /// event's set and REF, later ones draw a new REF in the same set
    /// (BMK-kit's loops); without, the group draws its own set first.
    async fn selects(&self, conn: &mut Conn, c: &mut DbstressClient, q: &mut Counters, step: usize, n: u32, set: &mut usize) -> DbResult<()> {
        if !self.args.same_ref && n > 0 {
            *set = self.draw(c);
        }
        for i in 0..n {
            if i > 0 {
                let r = c.refs.sample(&mut c.rng);
                write_ref(&mut c.reference, r);
            }
            let st = &self.st[*set];
            let id = if step == SEL1 { st.sel1 } else { st.sel2 };
            self.timed(conn, q, step, id, &[Param::Text(&c.reference)]).await?;
        }
        Ok(())
    }

    async fn updates(&self, conn: &mut Conn, c: &mut DbstressClient, q: &mut Counters, set: &mut usize) -> DbResult<()> {
        if !self.args.same_ref && self.mix.updates > 0 {
            *set = self.draw(c);
        }
        for i in 0..self.mix.updates {
            let horder = self.next_history_row(c, i);
            let st = self.st[*set];
            let p = [Param::Text(&c.state), Param::Text(&c.date), Param::Text(&c.date), Param::Text(&c.note), Param::Text(&c.reference), Param::Int(horder)];
            self.timed(conn, q, UPDATE, st.update, &p).await?;
        }
        Ok(())
    }

    /// DELETE then INSERT of one HISTORY row. The INSERT follows only a
    /// DELETE that removed the row: when a concurrent event replaced it
    /// first (no `--anti-dead`), inserting too would leave 21 rows.
    async fn delete_inserts(&self, conn: &mut Conn, c: &mut DbstressClient, q: &mut Counters, set: &mut usize) -> DbResult<()> {
        if !self.args.same_ref && self.mix.delete_inserts > 0 {
            *set = self.draw(c);
        }
        for i in 0..self.mix.delete_inserts {
            let horder = self.next_history_row(c, i);
            let st = self.st[*set];
            let deleted = self.timed(conn, q, DELETE, st.delete, &[Param::Text(&c.reference), Param::Int(horder)]).await?;
            if deleted != Class::Write {
                continue;
            }
            let p = [Param::Text(&c.reference), Param::Int(horder), Param::Text(&c.state), Param::Text(&c.date), Param::Text(&c.date), Param::Text(&c.note)];
            self.timed(conn, q, INSERT, st.insert, &p).await?;
        }
        Ok(())
    }

    /// The HISTORY row the `i`th write of a kind changes: the event's REF
    /// first, a new one after; its HORDER drawn and its new values filled.
    fn next_history_row(&self, c: &mut DbstressClient, i: u32) -> i64 {
        if i > 0 {
            let r = c.refs.sample(&mut c.rng);
            write_ref(&mut c.reference, r);
        }
        let horder = c.rng.uniform(0, N_HISTORY as u64 - 1) as i64;
        self.row_values(c, horder);
        horder
    }

    fn trx(&self) -> bool {
        !self.shared.skip_trx
    }
}

impl Workload for Dbstress {
    type Client = DbstressClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.set.clone()
    }

    fn new_client(&self, id: usize, clients: usize) -> DbstressClient {
        let rng = Rng::from_seed_or_entropy(self.seed, id as u64);
        let (lo, hi) = self.ref_range(id, clients);
        DbstressClient {
            saved: rng.clone(),
            rng,
            ops: 0,
            refs: Dist::new(&self.dist, lo, hi),
            in_trx: false,
            reference: String::with_capacity(10),
            state: String::with_capacity(3),
            date: String::with_capacity(12),
            note: String::with_capacity(128),
        }
    }

    async fn event(&self, conn: &mut Conn, c: &mut DbstressClient, q: &mut Counters, retry: bool) -> DbResult<()> {
        if !retry {
            c.ops += 1;
            c.saved = c.rng.clone();
        } else if self.shared.trx_retry {
            c.rng = c.saved.clone();
        }
        let writes = self.mix.writes() && c.ops.is_multiple_of(self.mix.rw_ratio as u64);
        q.kind = if writes { WRITE } else { READ };
        let mut set = self.draw(c);
        if self.trx() {
            c.in_trx = true;
            q.add(conn.exec(if writes { self.begin_rw } else { self.begin_ro }, &[]).await?);
            q.trx += 1;
        }
        self.selects(conn, c, q, SEL1, self.mix.sel1, &mut set).await?;
        self.selects(conn, c, q, SEL2, self.mix.sel2, &mut set).await?;
        if writes {
            self.updates(conn, c, q, &mut set).await?;
            self.delete_inserts(conn, c, q, &mut set).await?;
        }
        if self.trx() {
            q.add(conn.exec(self.commit, &[]).await?);
            q.trx += 1;
            c.in_trx = false;
        }
        Ok(())
    }

    async fn after_error(&self, conn: &mut Conn, c: &mut DbstressClient) {
        if c.in_trx {
            let _ = conn.query("ROLLBACK").await;
            c.in_trx = false;
        }
    }

    fn kinds(&self) -> &'static [&'static str] {
        if self.read_only() {
            RO_KINDS
        } else {
            RW_KINDS
        }
    }

    fn steps(&self) -> &'static [&'static str] {
        if self.read_only() {
            RO_STEPS
        } else {
            RW_STEPS
        }
    }

    fn label(&self, cfg: &ConnConfig) -> String {
        let get = |n: &str| self.label_value(cfg, n);
        crate::workload::family::canonical_label(&self.workload, &get)
    }

    fn options(&self, cfg: &ConnConfig) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = label::OPTIONS.iter().filter_map(|n| self.label_value(cfg, n).map(|v| (n.to_string(), v))).collect();
        let b = |x: bool| crate::values::bool_str(x).to_string();
        crate::workload::add_missing(
            &mut v,
            vec![
                ("for-update".into(), b(self.shared.for_update)),
                ("trx-retry".into(), b(self.shared.trx_retry)),
                ("reconnect".into(), self.shared.reconnect.to_string()),
                ("load-mode".into(), self.shared.load_mode.clone()),
                ("load-bulk-size".into(), self.shared.load_bulk_size.to_string()),
            ],
        );
        crate::workload::add_missing(&mut v, crate::workload::args_options(&self.args));
        if self.read_only() {
            // It never writes: the write options do not describe it.
            v.retain(|(k, _)| !["updates", "delete-inserts", "rw-ratio"].contains(&k.as_str()));
        }
        if cfg.engine().dialect().table_options().is_some() {
            v.push(("create-table-options".into(), self.shared.table_options.clone()));
            v.push(("table-compression".into(), self.shared.table_compression.clone()));
        }
        v
    }
}

impl Witnessed for Dbstress {}

impl Levels for Dbstress {}

impl Dbstress {
    /// Effective value of an option a label can carry.
    fn label_value(&self, cfg: &ConnConfig, name: &str) -> Option<String> {
        let b = |x: bool| crate::values::bool_str(x).to_string();
        Some(match name {
            "obj-table-size" => self.args.obj_table_size.to_string(),
            "obj-tables" => self.args.obj_tables.to_string(),
            "SEL1" => self.mix.sel1.to_string(),
            "SEL2" => self.mix.sel2.to_string(),
            "updates" if !self.read_only() => self.mix.updates.to_string(),
            "delete-inserts" if !self.read_only() => self.mix.delete_inserts.to_string(),
            "rw-ratio" if !self.read_only() => self.mix.rw_ratio.to_string(),
            "anti-dead" => b(self.args.anti_dead),
            "same-ref" => b(self.args.same_ref),
            "skip-trx" => b(self.shared.skip_trx),
            "hpk" => b(self.args.hpk),
            "rand-type" => self.dist.kind.name().to_string(),
            "db-ps-mode" => if cfg.prepared { "auto" } else { "disable" }.to_string(),
            "transport" => cfg.target.transport().to_string(),
            "mysql-storage-engine" if cfg.engine().dialect().table_options().is_some() => self.shared.storage_engine.clone(),
            _ => return None,
        })
    }
}
