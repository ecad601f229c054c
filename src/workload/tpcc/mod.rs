//! TPC-C: the nine tables with sysbench-tpcc's columns and BMK-kit's
//! variants, a spec-data loader, the five transactions as the TPC-C rules
//! say, the consistency conditions, and tpmC / NOPM reporting.
//!
//! Two terminal models. `stress` (default) is the closed loop of
//! tpcc-mysql, sysbench-tpcc and go-tpc: every client runs transactions
//! back to back, picking a warehouse per transaction (or among its own dealt
//! warehouses with `--use-all-warehouses`, as HammerDB does). `spec` runs 10
//! terminals per warehouse, each bound to its warehouse and district, with
//! keying and think times, so the 12.86 tpmC-per-warehouse ceiling applies
//! and efficiency means something. A terminal is a runner client: a cheap
//! task, but with its own connection (the server must accept
//! 10 x warehouses connections).

mod batched;
pub mod ch;
pub mod check;
mod delivery;
pub mod family;
pub mod label;
pub mod load;
mod new_order;
pub mod options;
mod order_status;
pub mod output;
mod payment;
mod procedures;
pub mod schema;
pub mod shape;
mod stock_level;
pub mod values;

use super::{Counters, Levels, Witnessed, Workload};
use crate::db::Dialect;
use crate::db::Engine;
use crate::db::{Conn, ConnConfig, DbResult, Param, StatementSet, StmtId};
use crate::error::Result;
use crate::rand::Rng;
use crate::usage;
use crate::workload::common::CommonArgs;
pub use options::TpccArgs;
use schema::{Fk, Names, SchemaOpts};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The transactions, in the order of `--mix` and of the per-kind report.
pub const KINDS: [&str; 5] = ["new_order", "payment", "order_status", "delivery", "stock_level"];
const NEW_ORDER: usize = 0;
const PAYMENT: usize = 1;
const ORDER_STATUS: usize = 2;
const DELIVERY: usize = 3;
const STOCK_LEVEL: usize = 4;

/// The C constant of NURand(255) used for C_LAST at load time. Fixed, so
/// that every later run can pick a run-time constant satisfying the spec's
/// delta rule (2.1.6.1) without reading anything back from the database.
pub const C_LOAD_LAST: u64 = 157;

/// Keying time (s) and mean think time (s) per transaction (TPC-C 5.2.5).
const KEYING: [f64; 5] = [18.0, 3.0, 2.0, 2.0, 2.0];
const THINK: [f64; 5] = [12.0, 12.0, 10.0, 5.0, 5.0];

/// tpmC per warehouse at 100% efficiency (10 terminals, the times above).
pub const CEILING_PER_WAREHOUSE: f64 = 12.86;

const SYLLABLES: [&str; 10] = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"];

/// C_LAST for a number 0..999: three syllables by its digits.
pub fn last_name(n: u64) -> String {
    let mut s = String::with_capacity(15);
    s.push_str(SYLLABLES[(n / 100 % 10) as usize]);
    s.push_str(SYLLABLES[(n / 10 % 10) as usize]);
    s.push_str(SYLLABLES[(n % 10) as usize]);
    s
}

/// A run-time C for C_LAST: 65 <= |C_run - C_load| <= 119, not 96 or 112.
pub fn c_last_run(rng: &mut Rng, c_load: u64) -> u64 {
    loop {
        let c = rng.uniform(0, 255);
        let d = c.abs_diff(c_load);
        if (65..=119).contains(&d) && d != 96 && d != 112 {
            return c;
        }
    }
}

/// Statements of one dataset.
#[derive(Clone, Debug)]
struct Stmts {
    no_cust_wh: StmtId,
    no_dist: StmtId,
    no_dist_upd: StmtId,
    no_ord_ins: StmtId,
    no_new_ins: StmtId,
    no_item: StmtId,
    no_stock: Vec<StmtId>,
    no_stock_upd: StmtId,
    no_ol_ins: StmtId,
    pay_wh_upd: StmtId,
    pay_wh_sel: StmtId,
    pay_dist_upd: StmtId,
    pay_dist_sel: StmtId,
    cust_by_name: StmtId,
    pay_cust_sel: StmtId,
    pay_cust_data: StmtId,
    pay_cust_upd: StmtId,
    pay_cust_upd_bc: StmtId,
    pay_hist_ins: StmtId,
    os_cust: StmtId,
    os_last_order: StmtId,
    os_lines: StmtId,
    dl_no_sel: StmtId,
    dl_no_del: StmtId,
    dl_o_sel: StmtId,
    dl_o_upd: StmtId,
    dl_ol_upd: StmtId,
    dl_ol_sum: StmtId,
    dl_c_upd: StmtId,
    sl_dist: StmtId,
    sl_count: StmtId,
    /// `--tpcc-shape go-tpc`: its list statements.
    batched: Option<shape::Batched>,
    /// `--tpcc-shape procedures`: the calls of its routines.
    calls: Option<procedures::Calls>,
}

/// State shared by all clients of a run and the output.
#[derive(Debug, Default)]
pub struct RunShared {
    started: AtomicBool,
    /// When the first event of the current level began (all clients start
    /// together after the connect barrier).
    pub start: Mutex<Option<Instant>>,
    /// Run length (warmup + time) for spec-mode sleeps to stop at.
    pub run_len: Mutex<Option<Duration>>,
    pub nopm: Mutex<NopmState>,
}

/// sum(d_next_o_id) at the start of the measured window and at the end.
#[derive(Debug, Default)]
pub struct NopmState {
    pub before: Option<i64>,
    pub after: Option<i64>,
    pub warm_thread: Option<std::thread::JoinHandle<Option<i64>>>,
}

#[derive(Clone)]
pub struct Tpcc {
    pub args: TpccArgs,
    /// The options every family shares (engine, table options, loading, retries, locking reads).
    pub common: CommonArgs,
    pub engine: &'static dyn Engine,
    pub warehouses: u32,
    pub datasets: u32,
    pub names: Vec<Names>,
    pub schema: SchemaOpts,
    mix_cum: [u32; 5],
    debug_kind: Option<usize>,
    pub spec: bool,
    seed: u64,
    load_seed: u64,
    load_time: i64,
    c_last: u64,
    c_id: u64,
    c_ol: u64,
    set: Arc<StatementSet>,
    st: Vec<Stmts>,
    begin_rw: StmtId,
    begin_ro: StmtId,
    commit: StmtId,
    rollback: StmtId,
    pub shared: Arc<RunShared>,
    /// `--verify-writes`: where the clients record their New-Orders.
    writes: std::sync::OnceLock<Arc<crate::workload::witness::WriteLog>>,
    /// CH-benCHmark: where the clients note when each New-Order committed.
    pub(crate) commits: std::sync::OnceLock<Arc<ch::freshness::CommitLog>>,
}

pub struct TpccClient {
    /// A shuffled deck of 100 cards in the proportions of --mix (TPC-C
    /// 5.2.4.2): every 100 transactions of a client follow the mix exactly.
    deck: Vec<u8>,
    next_card: usize,
    rng: Rng,
    saved: Rng,
    kind: usize,
    in_trx: bool,
    /// Spec mode: home (dataset, warehouse) and district.
    home: Option<(u32, u32, u32)>,
    /// --use-all-warehouses: the (dataset, warehouse) pairs dealt to this client.
    own: Vec<(u32, u32)>,
    buf: String,
    /// `--verify-writes`: this client's record of its New-Orders.
    pub(crate) rec: Option<crate::workload::witness::Recorder>,
}

/// Parse "45,43,4,4,4" into cumulative cut points over 1..100.
fn parse_mix(s: &str) -> Result<[u32; 5]> {
    let v: Vec<u32> = s.split(',').map(|x| x.trim().parse::<u32>()).collect::<std::result::Result<_, _>>().map_err(|_| usage!("--mix={s}: give five whole percentages, e.g. 45,43,4,4,4"))?;
    if v.len() != 5 || v.iter().sum::<u32>() != 100 {
        return Err(usage!("--mix={s}: give five percentages (New-Order,Payment,Order-Status,Delivery,Stock-Level) that sum to 100"));
    }
    let mut cum = [0; 5];
    let mut acc = 0;
    for i in 0..5 {
        acc += v[i];
        cum[i] = acc;
    }
    Ok(cum)
}

/// Session SQL for `--isolation` on every connection.
/// The language of `engine`'s stored routines, or the one line that says it has none.
fn procedural(engine: &'static dyn Engine) -> Result<crate::db::Procedural> {
    engine.procedural().ok_or_else(|| usage!("--tpcc-shape=procedures: {} has no stored procedures here; use per-item (sysbench-tpcc's statements) or go-tpc", engine.name()))
}

pub fn session_sql(engine: &'static dyn Engine, isolation: &str) -> Result<Vec<String>> {
    let level = match isolation.to_ascii_uppercase().as_str() {
        "" => return Ok(vec![]),
        "RR" | "REPEATABLE-READ" | "REPEATABLE READ" => "REPEATABLE READ",
        "RC" | "READ-COMMITTED" | "READ COMMITTED" => "READ COMMITTED",
        "SER" | "SERIALIZABLE" => "SERIALIZABLE",
        other => return Err(usage!("--isolation={other}: use RR, RC or SER")),
    };
    Ok(engine.dialect().isolation_sql(level).into_iter().collect())
}

impl Tpcc {
    pub fn new(args: TpccArgs, common: CommonArgs, seed: u64, engine: &'static dyn Engine) -> Result<Tpcc> {
        if args.warehouses == 0 || args.datasets == 0 {
            return Err(usage!("--warehouses and --datasets must be at least 1"));
        }
        if args.warehouses > 32_767 {
            return Err(usage!("--warehouses={}: at most 32767 per dataset (w_id is a SMALLINT)", args.warehouses));
        }
        if common.for_update > 2 {
            return Err(usage!("--for-update={}: use 0, 1 or 2", common.for_update));
        }
        if !args.tpcc_prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(usage!("--tpcc-prefix={}: letters, digits and _ only", args.tpcc_prefix));
        }
        let mix_cum = parse_mix(&args.mix)?;
        let debug_kind = match args.trx_debug.as_str() {
            "" => None,
            k => Some(KINDS.iter().position(|x| *x == k.replace('-', "_")).ok_or_else(|| usage!("--trx-debug={k}: use one of {}", KINDS.join(", ")))?),
        };
        let spec = match args.terminals.as_str() {
            "stress" => false,
            "spec" => true,
            o => return Err(usage!("--terminals={o}: use stress or spec")),
        };
        if !(args.time_scale > 0.0 && args.time_scale <= 100.0) {
            return Err(usage!("--time-scale must be above 0 (and at most 100)"));
        }
        session_sql(engine, &args.isolation)?;
        if args.tpcc_shape == shape::Shape::Procedures {
            procedural(engine)?;
        }
        let fk = Fk::parse(&args.fk)?;
        let tail = common.table_tail(engine)?;
        let schema = SchemaOpts { engine, force_null: args.force_null, force_pk: args.force_pk, fk, tail: tail.trim().to_string() };
        let names: Vec<Names> = (1..=args.datasets).map(|n| Names::new(&args.tpcc_prefix, n)).collect();
        let run_seed = crate::rand::seed_or_entropy(seed);
        let mut crng = Rng::from_seed(run_seed, 0xC0_FFEE);
        let c_last = c_last_run(&mut crng, C_LOAD_LAST);
        let c_id = crng.uniform(0, 1023);
        let c_ol = crng.uniform(0, 8191);
        let load_time = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
        let mut t = Tpcc {
            warehouses: args.warehouses,
            datasets: args.datasets,
            args,
            common,
            engine,
            names,
            schema,
            mix_cum,
            debug_kind,
            spec,
            seed,
            load_seed: run_seed,
            load_time,
            c_last,
            c_id,
            c_ol,
            set: Arc::new(StatementSet::default()),
            st: vec![],
            begin_rw: StmtId(0),
            begin_ro: StmtId(0),
            commit: StmtId(0),
            rollback: StmtId(0),
            shared: Arc::new(RunShared::default()),
            writes: std::sync::OnceLock::new(),
            commits: std::sync::OnceLock::new(),
        };
        t.build_statements();
        Ok(t)
    }

    /// The SQL forms of this run's engine.
    fn dialect(&self) -> &'static dyn Dialect {
        self.engine.dialect()
    }

    /// Terminals of spec mode: 10 per warehouse over all datasets.
    pub fn spec_terminals(&self) -> usize {
        10 * self.warehouses as usize * self.datasets as usize
    }

    fn build_statements(&mut self) {
        let mut set = StatementSet::default();
        let dialect = self.engine.dialect();
        let fu1 = if self.common.for_update >= 1 { dialect.for_update() } else { "" };
        let fu2 = if self.common.for_update >= 2 { dialect.for_update() } else { "" };
        let fp = if self.args.force_primary { dialect.force_primary() } else { "" };
        let now = "CURRENT_TIMESTAMP";
        for n in &self.names {
            let (w, d, c, h, o, no, ol, s, i) = (&n.warehouse, &n.district, &n.customer, &n.history, &n.orders, &n.new_orders, &n.order_line, &n.stock, &n.item);
            let mut add = |sql: String, rows: bool| set.add(sql, rows);
            let mut st = Stmts {
                no_cust_wh: add(format!("SELECT c_discount, c_last, c_credit, w_tax FROM {c}{fp}, {w} WHERE w_id=? AND c_w_id=w_id AND c_d_id=? AND c_id=?"), true),
                no_dist: add(format!("SELECT d_next_o_id, d_tax FROM {d}{fp} WHERE d_w_id=? AND d_id=?{fu1}"), true),
                no_dist_upd: add(format!("UPDATE {d} SET d_next_o_id=? WHERE d_w_id=? AND d_id=?"), false),
                no_ord_ins: add(format!("INSERT INTO {o} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, {now}, ?, ?)"), false),
                no_new_ins: add(format!("INSERT INTO {no} (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"), false),
                no_item: add(format!("SELECT i_price, i_name, i_data FROM {i}{fp} WHERE i_id=?"), true),
                no_stock: (1..=10).map(|k| add(format!("SELECT s_quantity, s_data, s_dist_{k:02} FROM {s}{fp} WHERE s_i_id=? AND s_w_id=?{fu1}"), true)).collect(),
                no_stock_upd: add(format!("UPDATE {s} SET s_quantity=?, s_ytd=s_ytd+?, s_order_cnt=s_order_cnt+1, s_remote_cnt=s_remote_cnt+? WHERE s_i_id=? AND s_w_id=?"), false),
                no_ol_ins: add(format!("INSERT INTO {ol} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ? * 0.01, ?)"), false),
                pay_wh_upd: add(format!("UPDATE {w} SET w_ytd=w_ytd + ? * 0.01 WHERE w_id=?"), false),
                pay_wh_sel: add(format!("SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM {w}{fp} WHERE w_id=?{fu2}"), true),
                pay_dist_upd: add(format!("UPDATE {d} SET d_ytd=d_ytd + ? * 0.01 WHERE d_w_id=? AND d_id=?"), false),
                pay_dist_sel: add(format!("SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM {d}{fp} WHERE d_w_id=? AND d_id=?{fu2}"), true),
                cust_by_name: add(format!("SELECT c_id FROM {c} WHERE c_w_id=? AND c_d_id=? AND c_last=? ORDER BY c_first"), true),
                pay_cust_sel: add(format!("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM {c}{fp} WHERE c_w_id=? AND c_d_id=? AND c_id=?{fu1}"), true),
                pay_cust_data: add(format!("SELECT c_data FROM {c}{fp} WHERE c_w_id=? AND c_d_id=? AND c_id=?"), true),
                pay_cust_upd: add(format!("UPDATE {c} SET c_balance=c_balance - ? * 0.01, c_ytd_payment=c_ytd_payment + ? * 0.01, c_payment_cnt=c_payment_cnt+1 WHERE c_w_id=? AND c_d_id=? AND c_id=?"), false),
                pay_cust_upd_bc: add(format!("UPDATE {c} SET c_balance=c_balance - ? * 0.01, c_ytd_payment=c_ytd_payment + ? * 0.01, c_payment_cnt=c_payment_cnt+1, c_data=? WHERE c_w_id=? AND c_d_id=? AND c_id=?"), false),
                pay_hist_ins: add(format!("INSERT INTO {h} (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, {now}, ? * 0.01, ?)"), false),
                os_cust: add(format!("SELECT c_balance, c_first, c_middle, c_last FROM {c}{fp} WHERE c_w_id=? AND c_d_id=? AND c_id=?"), true),
                os_last_order: add(format!("SELECT o_id, o_carrier_id, o_entry_d FROM {o} WHERE o_w_id=? AND o_d_id=? AND o_c_id=? ORDER BY o_id DESC LIMIT 1"), true),
                os_lines: add(format!("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM {ol} WHERE ol_w_id=? AND ol_d_id=? AND ol_o_id=?"), true),
                dl_no_sel: add(format!("SELECT no_o_id FROM {no} WHERE no_w_id=? AND no_d_id=? ORDER BY no_o_id ASC LIMIT 1{fu1}"), true),
                dl_no_del: add(format!("DELETE FROM {no} WHERE no_w_id=? AND no_d_id=? AND no_o_id=?"), false),
                dl_o_sel: add(format!("SELECT o_c_id FROM {o}{fp} WHERE o_w_id=? AND o_d_id=? AND o_id=?"), true),
                dl_o_upd: add(format!("UPDATE {o} SET o_carrier_id=? WHERE o_w_id=? AND o_d_id=? AND o_id=?"), false),
                dl_ol_upd: add(format!("UPDATE {ol} SET ol_delivery_d={now} WHERE ol_w_id=? AND ol_d_id=? AND ol_o_id=?"), false),
                dl_ol_sum: add(format!("SELECT SUM(ol_amount) FROM {ol} WHERE ol_w_id=? AND ol_d_id=? AND ol_o_id=?"), true),
                dl_c_upd: add(format!("UPDATE {c} SET c_balance=c_balance + ? * 0.01, c_delivery_cnt=c_delivery_cnt+1 WHERE c_w_id=? AND c_d_id=? AND c_id=?"), false),
                sl_dist: add(format!("SELECT d_next_o_id FROM {d}{fp} WHERE d_w_id=? AND d_id=?"), true),
                sl_count: add(format!("SELECT COUNT(DISTINCT s_i_id) FROM {ol}, {s} WHERE ol_w_id=? AND ol_d_id=? AND ol_o_id<? AND ol_o_id>=? AND s_w_id=? AND s_i_id=ol_i_id AND s_quantity<?"), true),
                batched: None,
                calls: None,
            };
            match (self.args.tpcc_shape, self.engine.procedural()) {
                (shape::Shape::GoTpc, _) => st.batched = Some(shape::Batched::new(&mut set, n, dialect, fp)),
                (shape::Shape::Procedures, Some(lang)) => st.calls = Some(procedures::Calls::new(&mut set, n, lang)),
                _ => {}
            }
            self.st.push(st);
        }
        self.begin_rw = set.add(dialect.begin_rw(), false);
        self.begin_ro = set.add(dialect.begin_ro(), false);
        self.commit = set.add("COMMIT", false);
        self.rollback = set.add("ROLLBACK", false);
        self.set = Arc::new(set);
    }

    fn pick_kind(&self, c: &mut TpccClient) -> usize {
        if let Some(k) = self.debug_kind {
            return k;
        }
        if c.next_card >= c.deck.len() {
            c.deck.clear();
            let mut lo = 0;
            for (k, &hi) in self.mix_cum.iter().enumerate() {
                c.deck.extend(std::iter::repeat_n(k as u8, (hi - lo) as usize));
                lo = hi;
            }
            for i in (1..c.deck.len()).rev() {
                let j = c.rng.uniform(0, i as u64) as usize;
                c.deck.swap(i, j);
            }
            c.next_card = 0;
        }
        c.next_card += 1;
        c.deck[c.next_card - 1] as usize
    }

    /// (dataset, warehouse) of this transaction.
    fn pick_home(&self, c: &mut TpccClient) -> (u32, u32) {
        if let Some((d, w, _)) = c.home {
            return (d, w);
        }
        if !c.own.is_empty() {
            let i = c.rng.uniform(0, c.own.len() as u64 - 1) as usize;
            return c.own[i];
        }
        let d = if self.datasets > 1 { c.rng.uniform(1, self.datasets as u64) as u32 } else { 1 };
        (d, c.rng.uniform(1, self.warehouses as u64) as u32)
    }

    /// A warehouse other than `w` in the same dataset (w itself with one warehouse).
    fn other_warehouse(&self, rng: &mut Rng, w: u32) -> u32 {
        if self.warehouses == 1 {
            return w;
        }
        let o = rng.uniform(1, self.warehouses as u64 - 1) as u32;
        if o >= w {
            o + 1
        } else {
            o
        }
    }

    /// Sleep toward `until`, but not past the end of the run. Returns false
    /// when the run ended first.
    async fn wait(&self, secs: f64, q: &mut Counters) -> bool {
        let t0 = Instant::now();
        let until = t0 + Duration::from_secs_f64(secs);
        let end = {
            let s = *self.shared.start.lock().unwrap();
            let l = *self.shared.run_len.lock().unwrap();
            match (s, l) {
                (Some(s), Some(l)) if !l.is_zero() => Some(s + l),
                _ => None,
            }
        };
        let mut ok = true;
        loop {
            let now = Instant::now();
            if crate::model::INTERRUPTED.load(Ordering::Relaxed) || end.map(|e| now >= e).unwrap_or(false) {
                ok = false;
                break;
            }
            if now >= until {
                break;
            }
            // Wake at least every second so Ctrl-C and the end are noticed.
            let mut next = until.min(now + Duration::from_secs(1));
            if let Some(e) = end {
                next = next.min(e);
            }
            tokio::time::sleep_until(tokio::time::Instant::from_std(next)).await;
        }
        q.waited_us += t0.elapsed().as_micros() as u64;
        ok
    }

    async fn x(&self, conn: &mut Conn, q: &mut Counters, id: StmtId, p: &[Param<'_>]) -> DbResult<crate::db::Class> {
        let class = conn.exec(id, p).await?;
        q.add(class);
        Ok(class)
    }

    async fn rows(&self, conn: &mut Conn, q: &mut Counters, id: StmtId, p: &[Param<'_>]) -> DbResult<Vec<Vec<Option<String>>>> {
        let r = conn.exec_rows(id, p).await?;
        q.add(crate::db::Class::Read);
        Ok(r)
    }

    async fn begin(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, rw: bool) -> DbResult<()> {
        c.in_trx = true;
        self.x(conn, q, if rw { self.begin_rw } else { self.begin_ro }, &[]).await?;
        q.trx += 1;
        Ok(())
    }

    async fn end(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, commit: bool) -> DbResult<()> {
        self.x(conn, q, if commit { self.commit } else { self.rollback }, &[]).await?;
        q.trx += 1;
        c.in_trx = false;
        Ok(())
    }

    /// Customer id by last name: the one at position ceil(n/2) ordered by c_first.
    async fn customer_by_name(&self, conn: &mut Conn, q: &mut Counters, st: &Stmts, w: i64, d: i64, last: &str) -> DbResult<Option<i64>> {
        let r = self.rows(conn, q, st.cust_by_name, &[Param::Int(w), Param::Int(d), Param::Text(last)]).await?;
        if r.is_empty() {
            return Ok(None);
        }
        Ok(int(&r[(r.len() - 1) / 2][0]))
    }

    fn mark_started(&self) {
        if !self.shared.started.load(Ordering::Relaxed) {
            let mut s = self.shared.start.lock().unwrap();
            if s.is_none() {
                *s = Some(Instant::now());
            }
            self.shared.started.store(true, Ordering::Relaxed);
        }
    }
}

fn int(v: &Option<String>) -> Option<i64> {
    v.as_deref().and_then(|s| s.trim().parse::<i64>().ok().or_else(|| s.trim().parse::<f64>().ok().map(|f| f as i64)))
}

/// A decimal as hundredths ("12.34" -> 1234), rounding what lies beyond.
fn cents(v: &Option<String>) -> i64 {
    v.as_deref().and_then(|s| s.trim().parse::<f64>().ok()).map(|f| (f * 100.0).round() as i64).unwrap_or(0)
}

fn missing(what: &str, a: i64, b: i64) -> crate::db::DbError {
    crate::db::DbError { kind: crate::db::ErrKind::Fatal, code: "tpcc".into(), message: format!("{what} ({a}, {b}) not found: the data is not a complete TPC-C dataset (run `fairbench check`)") }
}

impl Workload for Tpcc {
    type Client = TpccClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.set.clone()
    }

    fn new_client(&self, id: usize, clients: usize) -> TpccClient {
        let rng = Rng::from_seed_or_entropy(self.seed, id as u64);
        let pairs = self.warehouses as usize * self.datasets as usize;
        let pair = |p: usize| ((p / self.warehouses as usize) as u32 + 1, (p % self.warehouses as usize) as u32 + 1);
        let home = if self.spec {
            let (d, w) = pair((id / 10) % pairs);
            Some((d, w, (id % 10) as u32 + 1))
        } else {
            None
        };
        let own = if !self.spec && self.args.use_all_warehouses {
            if clients >= pairs {
                vec![pair(id % pairs)]
            } else {
                (id..pairs).step_by(clients.max(1)).map(pair).collect()
            }
        } else {
            vec![]
        };
        TpccClient {
            deck: Vec::with_capacity(100),
            next_card: 0,
            saved: rng.clone(),
            rng,
            kind: 0,
            in_trx: false,
            home,
            own,
            buf: String::with_capacity(512),
            rec: self.writes.get().map(|l| l.recorder()),
        }
    }

    async fn event(&self, conn: &mut Conn, c: &mut TpccClient, q: &mut Counters, retry: bool) -> DbResult<()> {
        self.mark_started();
        if let Some(r) = &mut c.rec {
            r.settle();
        }
        if retry {
            if self.common.trx_retry {
                c.rng = c.saved.clone();
            }
        } else {
            c.kind = self.pick_kind(c);
            c.saved = c.rng.clone();
            if self.spec && !self.wait(KEYING[c.kind] * self.args.time_scale, q).await {
                q.ended = true;
                return Ok(());
            }
        }
        q.kind = c.kind;
        let (ds, w) = self.pick_home(c);
        match c.kind {
            NEW_ORDER => self.new_order(conn, c, q, ds, w).await?,
            PAYMENT => self.payment(conn, c, q, ds, w).await?,
            ORDER_STATUS => self.order_status(conn, c, q, ds, w).await?,
            DELIVERY => self.delivery(conn, c, q, ds, w).await?,
            STOCK_LEVEL => self.stock_level(conn, c, q, ds, w).await?,
            _ => unreachable!("pick_kind returns 0..5"),
        }
        if self.spec {
            // Think time: negative exponential, capped at 10x the mean.
            let u = c.rng.uniform_double();
            let think = (-(1.0 - u).ln()).min(10.0) * THINK[c.kind] * self.args.time_scale;
            self.wait(think, q).await;
        }
        Ok(())
    }

    async fn after_error(&self, conn: &mut Conn, c: &mut TpccClient) {
        if c.in_trx {
            let _ = conn.query("ROLLBACK").await;
            c.in_trx = false;
        }
    }

    fn kinds(&self) -> &'static [&'static str] {
        &KINDS
    }

    fn label(&self, cfg: &ConnConfig) -> String {
        let get = |n: &str| self.label_value(cfg, n);
        label::canonical(&get)
    }

    fn options(&self, cfg: &ConnConfig) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> =
            ["warehouses", "datasets", "force-null", "fk", "db-ps-mode", "transport", "mysql-storage-engine"].iter().filter_map(|n| self.label_value(cfg, n).map(|v| (n.to_string(), v))).collect();
        let b = |x: bool| crate::values::bool_str(x).to_string();
        v.extend([
            ("force-pk".to_string(), b(self.args.force_pk)),
            ("mix".into(), self.args.mix.clone()),
            ("for-update".into(), self.common.for_update.to_string()),
            ("force-primary".into(), b(self.args.force_primary)),
            ("isolation".into(), if self.args.isolation.is_empty() { "default".into() } else { self.args.isolation.to_uppercase() }),
            ("trx-retry".into(), b(self.common.trx_retry)),
            ("terminals".into(), self.args.terminals.clone()),
            ("use-all-warehouses".into(), b(self.args.use_all_warehouses)),
            ("trx-debug".into(), if self.args.trx_debug.is_empty() { "off".into() } else { self.args.trx_debug.clone() }),
            ("c-last-load".into(), C_LOAD_LAST.to_string()),
            ("c-last-run".into(), self.c_last.to_string()),
            ("c-id".into(), self.c_id.to_string()),
            ("c-ol-i-id".into(), self.c_ol.to_string()),
        ]);
        if self.spec {
            v.push(("time-scale".into(), self.args.time_scale.to_string()));
        }
        crate::workload::add_missing(&mut v, crate::workload::args_options(&self.args));
        crate::workload::add_missing(&mut v, crate::workload::args_options(&self.common));
        // Only MySQL-family servers have storage engines.
        if cfg.engine().dialect().table_options().is_none() {
            v.retain(|(k, _)| k != "mysql-storage-engine");
        }
        v
    }
}

impl Witnessed for Tpcc {
    fn witnessing(&self) -> Option<crate::workload::witness::Witnessing> {
        // Each New-Order's (dataset, warehouse, district, order id): orders
        // are never deleted (Delivery removes only the new_orders row).
        Some(crate::workload::witness::Witnessing { check: crate::workload::witness::CheckKind::Inserted, key_names: &["dataset", "w_id", "d_id", "o_id"] })
    }

    fn record_writes(&self, log: Arc<crate::workload::witness::WriteLog>) {
        let _ = self.writes.set(log);
    }

    async fn read_back(&self, conn: &mut Conn, keys: &[crate::workload::witness::Key]) -> DbResult<crate::workload::witness::Found> {
        self.orders_present(conn, keys).await
    }
}

impl Levels for Tpcc {
    async fn run_started(&self, cfg: &Arc<ConnConfig>, rc: &crate::model::RunControl) -> Result<()> {
        *self.shared.run_len.lock().unwrap() = Some(rc.warmup + rc.time);
        if self.args.tpcc_shape == shape::Shape::Procedures {
            let mut conn = self.admin(cfg).await?;
            // On stderr: a run's stdout may be its JSON.
            self.install_routines(&mut conn, cfg, true, &|line| eprintln!("{line}")).await?;
            conn.close().await;
        }
        self.nopm_start(cfg, rc.warmup).await
    }

    async fn run_finished(&self, cfg: &Arc<ConnConfig>, _r: &crate::model::LevelResult) -> Result<()> {
        self.nopm_finish(cfg).await
    }

    fn sink(&self, json: bool, percentile: u32, standard: &'static dyn crate::output::StandardOutput) -> Option<Box<dyn crate::model::Sink>> {
        Some(Box::new(output::TpccSink::new(self, json, percentile, standard)))
    }
}

impl Tpcc {
    fn label_value(&self, cfg: &ConnConfig, name: &str) -> Option<String> {
        Some(match name {
            "warehouses" => self.warehouses.to_string(),
            "datasets" => self.datasets.to_string(),
            "force-null" => crate::values::bool_str(self.schema.force_null).to_string(),
            "fk" => self.schema.fk.name().to_string(),
            "db-ps-mode" => if cfg.prepared { "auto" } else { "disable" }.to_string(),
            "transport" => cfg.target.transport().to_string(),
            "tpcc-shape" => self.args.tpcc_shape.name(),
            "mysql-storage-engine" if cfg.engine().dialect().table_options().is_some() => self.common.mysql_storage_engine.clone(),
            _ => return None,
        })
    }

    /// sum(d_next_o_id) over all datasets: committed New-Orders so far, by
    /// the database's own count (HammerDB's NOPM).
    pub async fn next_o_id_sum(&self, conn: &mut Conn) -> Result<i64> {
        let mut total = 0i64;
        for n in &self.names {
            total += crate::workload::common::count(conn, &format!("SELECT SUM(d_next_o_id) FROM {}", n.district)).await? as i64;
        }
        Ok(total)
    }

    async fn nopm_start(&self, cfg: &Arc<ConnConfig>, warmup: Duration) -> Result<()> {
        *self.shared.start.lock().unwrap() = None;
        self.shared.started.store(false, Ordering::Relaxed);
        let mut conn = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::db::connect_error(&cfg.target, &e))?;
        if warmup.is_zero() {
            let v = self.next_o_id_sum(&mut conn).await?;
            conn.close().await;
            *self.shared.nopm.lock().unwrap() = NopmState { before: Some(v), after: None, warm_thread: None };
            return Ok(());
        }
        conn.close().await;
        // Read the counter when warmup ends (measured from the first event),
        // on a connection of the thread's own runtime: a socket registered
        // with this runtime would never wake while this thread is busy.
        let me = self.clone();
        let cfg = cfg.clone();
        let h = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            rt.block_on(async move {
                let mut conn = Conn::connect(cfg, Arc::new(StatementSet::default()), 0).await.ok()?;
                loop {
                    let s = *me.shared.start.lock().unwrap();
                    if let Some(s) = s {
                        let at = s + warmup;
                        tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
                        break;
                    }
                    if crate::model::INTERRUPTED.load(Ordering::Relaxed) {
                        return None;
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                let v = me.next_o_id_sum(&mut conn).await.ok();
                conn.close().await;
                v
            })
        });
        *self.shared.nopm.lock().unwrap() = NopmState { before: None, after: None, warm_thread: Some(h) };
        Ok(())
    }

    async fn nopm_finish(&self, cfg: &Arc<ConnConfig>) -> Result<()> {
        let h = self.shared.nopm.lock().unwrap().warm_thread.take();
        if let Some(h) = h {
            // A run that ended before warmup did leaves the thread waiting: unblock it.
            if self.shared.start.lock().unwrap().is_none() {
                *self.shared.start.lock().unwrap() = Some(Instant::now());
            }
            let v = h.join().ok().flatten();
            self.shared.nopm.lock().unwrap().before = v;
        }
        let mut conn = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| crate::db::connect_error(&cfg.target, &e))?;
        let v = self.next_o_id_sum(&mut conn).await?;
        conn.close().await;
        self.shared.nopm.lock().unwrap().after = Some(v);
        Ok(())
    }
}
