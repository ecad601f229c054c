//! LinkBench, Facebook's social-graph benchmark: nodes, typed links between
//! them and a count per (node, link type), loaded with LinkBench's link
//! count and payload distributions, then the ten operations of its request
//! phase in the FB 2011 mix (or the 2017 mix of the maintained fork), one
//! operation per event, each kind with its own exact latency histogram.
//!
//! Configuration comes from LinkBench's properties files (`-c`, `-D`) as
//! well as fairbench options; see [`props`].
//!
//! Here: the workload's statements, key choosers and event. `config.rs`
//! its resolved configuration, `ops.rs` the ten operations.

pub mod check;
mod config;
pub mod datafile;
pub mod dist;
pub mod family;
pub mod label;
pub mod load;
mod ops;
use crate::db::Engine;
use ops::{conflict, fill_text};
pub mod options;
pub mod output;
pub mod props;

use super::{Counters, Levels, Witnessed, Workload};
use crate::db::Dialect;
use crate::db::{Conn, ConnConfig, DbResult, ErrKind, StatementSet, StmtId};
use crate::rand::Rng;
pub use config::{mix_by_name, Config, Shape};
use dist::{Shuffler, Zipf};
pub use options::LinkbenchArgs;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The workload name.
pub const NAME: &str = "linkbench";

/// LinkBench's constants (LinkStore, NodeStore).
pub const DEFAULT_LINK_TYPE: i64 = 123_456_789;
pub const DEFAULT_NODE_TYPE: i64 = 2048;
pub const RANGE_LIMIT: usize = 10_000;
pub const MAX_LINK_DATA: usize = 255;
pub const MAX_NODE_DATA: usize = 1 << 20;
/// Chances that the link an operation names exists (ID2Chooser).
const P_ADD_EXIST: f64 = 0.05;
const P_UPDATE_EXIST: f64 = 0.9;
const P_DELETE_EXIST: f64 = 0.9;
const P_GET_EXIST: f64 = 0.5;
/// Range scans that returned a full page, kept for history queries.
const HISTORY_CACHE: usize = 2048;
/// Deadlocks and duplicate-key races are retried up to this many times
/// per operation (LinkBench retries them without limit).
const MAX_RETRIES: u32 = 1000;

const ADD_LINK: usize = 0;
const DELETE_LINK: usize = 1;
const UPDATE_LINK: usize = 2;
const COUNT_LINK: usize = 3;
const MULTIGET_LINK: usize = 4;
const GET_LINKS_LIST: usize = 5;
const ADD_NODE: usize = 6;
const UPDATE_NODE: usize = 7;
const DELETE_NODE: usize = 8;
const GET_NODE: usize = 9;

/// The statements of one database.
#[derive(Clone, Copy, Debug)]
struct DbStmts {
    select_vis: StmtId,
    insert_link: StmtId,
    update_link: StmtId,
    hide_link: StmtId,
    count_add: StmtId,
    count_dec: StmtId,
    count_get: StmtId,
    /// Multiget with 1..=multiget max ids: first of a run of ids.
    multiget0: u32,
    range: StmtId,
    range_history: StmtId,
    add_node: StmtId,
    get_node: StmtId,
    update_node: StmtId,
    delete_node: StmtId,
}

/// The statements of one database in Java's shape: those sent alone,
/// prepared as the others, and a write's last statement with its COMMIT,
/// one query with `?` for the values (a prepared statement holds one
/// statement only).
#[derive(Clone, Debug)]
struct JavaStmts {
    add_link: StmtId,
    hide_link: StmtId,
    count_dec: StmtId,
    count_add: String,
    update_link: String,
    add_node: String,
    update_node: String,
    delete_node: String,
}

#[derive(Clone)]
pub struct LinkBench {
    pub cfg: Config,
    pub engine: &'static dyn Engine,
    seed: u64,
    set: Arc<StatementSet>,
    st: Vec<DbStmts>,
    java: Vec<JavaStmts>,
    begin: StmtId,
    commit: StmtId,
    /// Java LinkBench's shufflers: rank (0 the busiest) to id offset for
    /// the out-degree and the accesses correlated with it, for the other
    /// link accesses, for the node accesses.
    degree: Shuffler,
    uncorr: Shuffler,
    nodes: Shuffler,
    /// Failed operations over all clients (LinkBench's limit is per
    /// requester; the client keeps its own count, this one is reported).
    pub failed: Arc<AtomicU64>,
    /// Options of the output (`--csvstats`, `--csvstream`).
    pub csvstats: Option<std::path::PathBuf>,
    pub csvstream: Option<std::path::PathBuf>,
    /// The run's limits, for LinkBench's progress line (0: none).
    pub requests_total: u64,
    pub maxtime: f64,
}

pub struct LinkBenchClient {
    rng: Rng,
    id: usize,
    clients: usize,
    db: usize,
    read_uncorr: Zipf,
    read_corr: Zipf,
    write_corr: Zipf,
    node_read: Zipf,
    node_update: Zipf,
    in_trx: bool,
    /// Java's shape: this connection runs with autocommit off.
    autocommit_off: bool,
    /// Java's shape: the text of the query being sent.
    sql: String,
    failed: i64,
    data: Vec<u8>,
    text: String,
    params: Vec<i64>,
    history: Vec<(i64, i64, i64)>,
}

impl LinkBench {
    pub fn new(cfg: Config, engine: &'static dyn Engine, seed: u64) -> LinkBench {
        let n = cfg.nodes();
        let mut w = LinkBench {
            degree: Shuffler::new(dist::NLINKS_SEED, dist::SHUFFLE_GROUPS, n),
            uncorr: Shuffler::new(dist::UNCORR_SEED, dist::SHUFFLE_GROUPS, n),
            nodes: Shuffler::new(dist::NODE_SEED, dist::SHUFFLE_GROUPS, n),
            cfg,
            engine,
            seed,
            set: Arc::new(StatementSet::default()),
            st: Vec::new(),
            java: Vec::new(),
            begin: StmtId(0),
            commit: StmtId(0),
            failed: Arc::new(AtomicU64::new(0)),
            csvstats: None,
            csvstream: None,
            requests_total: 0,
            maxtime: 0.0,
        };
        w.build_statements();
        w
    }

    fn dialect(&self) -> &'static dyn Dialect {
        self.engine.dialect()
    }

    fn build_statements(&mut self) {
        let mut set = StatementSet::default();
        let d = self.dialect();
        let (fu, force) = (d.for_update(), d.force_index("id1_type"));
        let cols = "id1, id2, link_type, visibility, data, time, version";
        let upsert = d.on_key_conflict_update("id, link_type");
        let old = |col| d.existing_column("counttable", col);
        for db in 0..self.cfg.dbcount {
            let (l, c, n) = (self.cfg.table(db, "linktable"), self.cfg.table(db, "counttable"), self.cfg.table(db, "nodetable"));
            let count_add = format!("INSERT INTO {c} (id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0){upsert} count = {} + ?, version = {} + 1, time = ?", old("count"), old("version"));
            let multiget0 = set.len() as u32;
            for k in 1..=self.cfg.multiget.2 {
                let ids = vec!["?"; k as usize].join(", ");
                set.add(format!("SELECT {cols} FROM {l} WHERE id1 = ? AND link_type = ? AND id2 IN ({ids})"), true);
            }
            let range = format!("SELECT {cols} FROM {l}{force} WHERE id1 = ? AND link_type = ? AND time >= 0 AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT {RANGE_LIMIT}");
            self.st.push(DbStmts {
                select_vis: set.add(format!("SELECT visibility FROM {l} WHERE id1 = ? AND id2 = ? AND link_type = ?{fu}"), true),
                insert_link: set.add(format!("INSERT INTO {l} ({cols}) VALUES (?, ?, ?, 1, ?, ?, 0)"), false),
                update_link: set.add(format!("UPDATE {l} SET visibility = 1, data = ?, time = ?, version = version + 1 WHERE id1 = ? AND id2 = ? AND link_type = ?"), false),
                hide_link: set.add(format!("UPDATE {l} SET visibility = 0, time = ?, version = version + 1 WHERE id1 = ? AND id2 = ? AND link_type = ?"), false),
                count_add: set.add(count_add, false),
                count_dec: set.add(format!("UPDATE {c} SET count = count - 1, version = version + 1, time = ? WHERE id = ? AND link_type = ? AND count > 0"), false),
                count_get: set.add(format!("SELECT count FROM {c} WHERE id = ? AND link_type = ?"), true),
                multiget0,
                range: set.add(range.clone(), true),
                range_history: set.add(format!("{range} OFFSET 1"), true),
                add_node: set.add(format!("INSERT INTO {n} (type, version, time, data) VALUES ({DEFAULT_NODE_TYPE}, 1, ?, ?)"), false),
                get_node: set.add(format!("SELECT id, type, version, time, data FROM {n} WHERE id = ?"), true),
                update_node: set.add(format!("UPDATE {n} SET version = version + 1, time = ?, data = ? WHERE id = ? AND type = ?"), false),
                delete_node: set.add(format!("DELETE FROM {n} WHERE id = ? AND type = ?"), false),
            });
            if self.cfg.shape != Shape::Java {
                continue;
            }
            // Java LinkStoreMysql's statements, their values bound.
            self.java.push(JavaStmts {
                add_link: set.add(format!("INSERT INTO {l} ({cols}) VALUES (?, ?, ?, 1, ?, ?, 0) ON DUPLICATE KEY UPDATE visibility = VALUES(visibility)"), false),
                hide_link: set.add(format!("UPDATE {l} SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"), false),
                count_dec: set.add(
                    format!(
                        "INSERT INTO {c} (id, link_type, count, time, version) VALUES (?, ?, 0, ?, 0) ON DUPLICATE KEY UPDATE count = IF(count = 0, 0, count - 1), time = ?, version = version + 1"
                    ),
                    false,
                ),
                count_add: format!("INSERT INTO {c} (id, link_type, count, time, version) VALUES (?, ?, 1, ?, 0) ON DUPLICATE KEY UPDATE count = count + 1, version = version + 1, time = ?; COMMIT"),
                update_link: format!("UPDATE {l} SET visibility = 1, data = ?, time = ?, version = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?; COMMIT"),
                add_node: format!("INSERT INTO {n} (type, version, time, data) VALUES ({DEFAULT_NODE_TYPE}, 1, ?, ?); COMMIT"),
                update_node: format!("UPDATE {n} SET version = 2, time = ?, data = ? WHERE id = ? AND type = ?; COMMIT"),
                delete_node: format!("DELETE FROM {n} WHERE id = ? AND type = ?; COMMIT"),
            });
        }
        self.begin = set.add(self.dialect().begin_rw(), false);
        self.commit = set.add("COMMIT", false);
        self.set = Arc::new(set);
    }

    /// A link id1 for a read (`write` false) or a write: LinkBench blends
    /// an uncorrelated Zipf stream with one following the out-degree. As in
    /// LinkBench, writes read the read keys for their blend and their
    /// uncorrelated shape (its Config.java names the write prefix
    /// "read_uncorr_"), so both streams are Zipf(read_shape) 99.5% of the time.
    fn link_id1(&self, c: &mut LinkBenchClient, write: bool) -> u64 {
        let uncorr = c.rng.uniform_double() * 100.0 < self.cfg.read_blend;
        let idx = if uncorr {
            self.uncorr.permute(c.read_uncorr.sample(&mut c.rng))
        } else {
            let r = if write { c.write_corr.sample(&mut c.rng) } else { c.read_corr.sample(&mut c.rng) };
            // The node with the r-th most links.
            self.degree.permute(r)
        };
        self.cfg.startid1 + idx
    }

    fn node_id(&self, c: &mut LinkBenchClient, kind: usize) -> u64 {
        let n = self.cfg.nodes();
        let idx = match kind {
            GET_NODE => self.nodes.permute(c.node_read.sample(&mut c.rng)),
            UPDATE_NODE => self.nodes.permute(c.node_update.sample(&mut c.rng)),
            _ => c.rng.uniform(0, n - 1),
        };
        self.cfg.startid1 + idx
    }

    /// The (id1, link_type, id2) a link write touches; `p` is the chance
    /// that id2 names a link that exists already.
    fn written_link(&self, c: &mut LinkBenchClient, p: f64) -> (i64, i64, i64) {
        let id1 = self.link_id1(c, true);
        let t = self.link_type(c);
        let id2 = self.id2(c, id1, t, p);
        (id1 as i64, t, id2)
    }

    fn link_type(&self, c: &mut LinkBenchClient) -> i64 {
        DEFAULT_LINK_TYPE + c.rng.uniform(0, self.cfg.link_types - 1) as i64
    }

    /// id2 for an operation on (id1, type) that should find a link with
    /// chance `p`: id1 + U[0, ceil(links / p)).
    fn id2(&self, c: &mut LinkBenchClient, id1: u64, t: i64, p: f64) -> i64 {
        let total = self.cfg.nlinks(&self.degree, id1);
        let links = self.cfg.links_of_type(total, (t - DEFAULT_LINK_TYPE) as u64);
        let span = ((links as f64 / p).ceil() as u64).max(1);
        let mut id2 = id1 + c.rng.uniform(0, span - 1);
        if self.cfg.id2gen && c.clients > 1 {
            let k = c.clients as u64;
            id2 = id2 - id2 % k + c.id as u64;
        }
        id2 as i64
    }

    fn choose_op(&self, c: &mut LinkBenchClient) -> usize {
        let r = c.rng.uniform_double() * 100.0;
        let mut acc = 0.0;
        for (i, p) in self.cfg.mix.iter().enumerate() {
            acc += p;
            if r < acc {
                return i;
            }
        }
        // Rounding left r past the last band: the last op with a share.
        self.cfg.mix.iter().rposition(|p| *p > 0.0).unwrap_or(GET_LINKS_LIST)
    }

    fn link_data(&self, c: &mut LinkBenchClient) {
        let len = dist::lognormal_size(&mut c.rng, self.cfg.link_datasize, MAX_LINK_DATA);
        fill_text(c, len, 0.225);
    }

    fn node_data(&self, c: &mut LinkBenchClient) {
        let len = dist::lognormal_size(&mut c.rng, self.cfg.node_datasize, MAX_NODE_DATA);
        fill_text(c, len, 0.63);
    }
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

pub fn now_s() -> i64 {
    now_ms() / 1000
}

impl Workload for LinkBench {
    type Client = LinkBenchClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.set.clone()
    }

    fn new_client(&self, id: usize, clients: usize) -> LinkBenchClient {
        let seed = if self.cfg.request_seed != 0 { self.cfg.request_seed } else { self.seed };
        let rng = Rng::from_seed_or_entropy(seed, id as u64);
        let n = self.cfg.nodes();
        LinkBenchClient {
            rng,
            id,
            clients,
            db: id % self.st.len().max(1),
            read_uncorr: Zipf::new(n, self.cfg.read_shape),
            read_corr: Zipf::new(n, self.cfg.read_shape),
            write_corr: Zipf::new(n, self.cfg.write_shape),
            node_read: Zipf::new(n, self.cfg.node_read_shape),
            node_update: Zipf::new(n, self.cfg.node_update_shape),
            in_trx: false,
            autocommit_off: false,
            sql: String::with_capacity(512),
            failed: 0,
            data: Vec::with_capacity(256),
            text: String::with_capacity(256),
            params: Vec::with_capacity(130),
            history: Vec::new(),
        }
    }

    async fn event(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, _retry: bool) -> DbResult<()> {
        let kind = self.choose_op(c);
        q.kind = kind;
        let mut tries = 0;
        loop {
            match self.op(conn, c, q, kind).await {
                Ok(()) => return Ok(()),
                Err(e) if conflict(&e) && tries < MAX_RETRIES && !crate::model::interrupted() => {
                    self.rollback(conn, c).await;
                    tries += 1;
                }
                // A failed request counts and the requester goes on, up to
                // max_failed_requests of them (negative: no limit).
                Err(e) if e.kind == ErrKind::Fatal && (self.cfg.max_failed < 0 || c.failed < self.cfg.max_failed) => {
                    self.rollback(conn, c).await;
                    c.failed += 1;
                    self.failed.fetch_add(1, Ordering::Relaxed);
                    return Ok(());
                }
                Err(e) => {
                    // The runner may open a new connection, whose autocommit is on.
                    c.autocommit_off = false;
                    c.in_trx = false;
                    return Err(e);
                }
            }
        }
    }

    async fn after_error(&self, conn: &mut Conn, c: &mut LinkBenchClient) {
        self.rollback(conn, c).await;
    }

    fn kinds(&self) -> &'static [&'static str] {
        &props::OPS
    }

    fn label(&self, _cfg: &ConnConfig) -> String {
        label::canonical_of(&self.cfg, self.cfg.requesters)
    }

    fn options(&self, _cfg: &ConnConfig) -> Vec<(String, String)> {
        let c = &self.cfg;
        let mut v = vec![
            ("startid1".to_string(), c.startid1.to_string()),
            ("maxid1".to_string(), c.maxid1.to_string()),
            ("linkbench-mix".to_string(), c.mix_name.clone()),
            ("loaders".to_string(), c.loaders.to_string()),
            ("loader-chunk-size".to_string(), c.chunk.to_string()),
            ("max-failed-requests".to_string(), c.max_failed.to_string()),
            ("dbprefix".to_string(), c.dbprefix.clone()),
            ("dbcount".to_string(), c.dbcount.to_string()),
            ("linkbench-partitions".to_string(), c.partitions.to_string()),
            ("linkbench-shape".to_string(), c.shape.name().to_string()),
        ];
        for (k, p) in props::MIX_KEYS.iter().zip(c.mix) {
            v.push((format!("linkbench-{k}"), p.to_string()));
        }
        v
    }
}

impl Witnessed for LinkBench {}

impl Levels for LinkBench {
    fn sink(&self, json: bool, percentile: u32, standard: &'static dyn crate::output::StandardOutput) -> Option<Box<dyn crate::model::Sink>> {
        Some(Box::new(output::LinkBenchSink::new(self, json, percentile, standard)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use props::Props;

    #[test]
    fn links_split_as_linkbench_does() {
        let a = LinkbenchArgs::default_for_tests();
        let p = Props::defaults(&props::MIX_FB2011);
        let cfg = Config::new(&p, &a, crate::db::engines::named("mysql").unwrap()).unwrap();
        assert_eq!(cfg.links_of_type(5, 0) + cfg.links_of_type(5, 1), 6);
        assert_eq!(cfg.links_of_type(1, 0) + cfg.links_of_type(1, 1), 1);
        assert_eq!(cfg.links_of_type(0, 0) + cfg.links_of_type(0, 1), 0);
    }

    #[test]
    fn partitions_are_noted_where_they_do_nothing() {
        let mut a = LinkbenchArgs::default_for_tests();
        a.linkbench_partitions = 4;
        let p = Props::defaults(&props::MIX_FB2011);
        for engine in [crate::db::engines::named("postgres").unwrap(), crate::db::engines::named("sqlite").unwrap()] {
            let note = Config::new(&p, &a, engine).unwrap().partitions_note(engine).unwrap();
            assert!(note.starts_with("note: --linkbench-partitions=4 has no effect on ") && !note.contains('\n'), "{note}");
        }
        assert_eq!(Config::new(&p, &a, crate::db::engines::named("mysql").unwrap()).unwrap().partitions_note(crate::db::engines::named("mysql").unwrap()), None);
        a.linkbench_partitions = 0;
        assert_eq!(Config::new(&p, &a, crate::db::engines::named("postgres").unwrap()).unwrap().partitions_note(crate::db::engines::named("postgres").unwrap()), None);
    }

    #[test]
    fn shape_defaults_to_java_on_mysql_only() {
        let p = Props::defaults(&props::MIX_FB2011);
        let mut a = LinkbenchArgs::default_for_tests();
        assert_eq!(Config::new(&p, &a, crate::db::engines::named("mysql").unwrap()).unwrap().shape, Shape::Java);
        assert_eq!(Config::new(&p, &a, crate::db::engines::named("postgres").unwrap()).unwrap().shape, Shape::Locking);
        assert_eq!(Config::new(&p, &a, crate::db::engines::named("sqlite").unwrap()).unwrap().shape, Shape::Locking);
        a.linkbench_shape = Some("locking".into());
        assert_eq!(Config::new(&p, &a, crate::db::engines::named("mysql").unwrap()).unwrap().shape, Shape::Locking);
        a.linkbench_shape = Some("java".into());
        assert!(Config::new(&p, &a, crate::db::engines::named("postgres").unwrap()).is_err() && Config::new(&p, &a, crate::db::engines::named("sqlite").unwrap()).is_err());
        a.linkbench_shape = Some("fast".into());
        assert!(Config::new(&p, &a, crate::db::engines::named("mysql").unwrap()).is_err());
    }
}
