//! LinkBench, Facebook's social-graph benchmark: nodes, typed links between
//! them and a count per (node, link type), loaded with LinkBench's link
//! count and payload distributions, then the ten operations of its request
//! phase in the FB 2011 mix (or the 2017 mix of the maintained fork), one
//! operation per event, each kind with its own exact latency histogram.
//!
//! Configuration comes from LinkBench's properties files (`-c`, `-D`) as
//! well as fairbench options; see [`props`].

pub mod check;
pub mod datafile;
pub mod dist;
pub mod family;
pub mod label;
pub mod load;
pub mod options;
pub mod output;
pub mod props;

use super::{Counters, Workload};
use crate::db::Dialect;
use crate::db::{Class, Conn, ConnConfig, DbError, DbResult, ErrKind, Param, Protocol, StatementSet, StmtId};
use crate::error::{Error, Result};
use crate::rand::Rng;
use crate::usage;
use dist::{Shuffler, Zipf};
pub use options::LinkbenchArgs;
use props::Props;
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

/// The statements of the writes (`--linkbench-shape`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Java LinkBench's MySQL store (LinkStoreMysql): autocommit off,
    /// INSERT ... ON DUPLICATE KEY UPDATE, the last statement of a write
    /// and its COMMIT sent together.
    Java,
    /// BEGIN, SELECT ... FOR UPDATE, INSERT or UPDATE, the count, COMMIT:
    /// what every engine can run.
    Locking,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Java => "java",
            Shape::Locking => "locking",
        }
    }

    /// The shape asked for, or the engine's default: Java's where the
    /// server has ON DUPLICATE KEY UPDATE and multi-statement queries.
    fn resolve(asked: Option<&str>, protocol: Protocol) -> Result<Shape> {
        let java_sql = protocol.dialect().duplicate_key_upsert();
        let default = if java_sql { Shape::Java } else { Shape::Locking };
        match asked.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("auto") => Ok(default),
            Some("java") if !java_sql => {
                Err(usage!("--linkbench-shape=java needs INSERT ... ON DUPLICATE KEY UPDATE and multi-statement queries, which {} has not: use --linkbench-shape=locking", protocol.name()))
            }
            Some("java") => Ok(Shape::Java),
            Some("locking") => Ok(Shape::Locking),
            Some(other) => Err(usage!("--linkbench-shape={other}: write java (Java LinkBench's MySQL statements) or locking (BEGIN, SELECT ... FOR UPDATE, ..., COMMIT)")),
        }
    }
}

/// Which published mix `--linkbench-mix` names.
pub fn mix_by_name(name: &str) -> Option<&'static [f64; 10]> {
    match name.to_ascii_lowercase().as_str() {
        "fb2011" | "fb" | "2011" => Some(&props::MIX_FB2011),
        "mdc2017" | "mdc" | "2017" => Some(&props::MIX_MDC2017),
        _ => None,
    }
}

/// The resolved configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub startid1: u64,
    pub maxid1: u64,
    pub loaders: usize,
    pub chunk: u64,
    pub generate_nodes: bool,
    pub link_types: u64,
    /// Links per node: the data file's `nlinks`, else the built-in points.
    pub nlinks_cdf: Arc<datafile::Cdf>,
    /// Where `nlinks_cdf` comes from, said once per run.
    pub nlinks_source: String,
    pub mix: [f64; 10],
    /// "FB2011", "MDC2017", or "custom" when a file or -D changed a share.
    pub mix_name: String,
    pub history_pct: f64,
    pub link_datasize: f64,
    pub node_datasize: f64,
    pub multiget: (f64, u64, u64),
    pub read_shape: f64,
    pub read_blend: f64,
    pub write_shape: f64,
    pub node_read_shape: f64,
    pub node_update_shape: f64,
    pub id2gen: bool,
    pub bulk_batch: usize,
    pub dbprefix: String,
    pub dbcount: u32,
    pub load_seed: u64,
    pub request_seed: u64,
    pub max_failed: i64,
    pub progressfreq: f64,
    pub partitions: u32,
    pub shape: Shape,
    pub storage_engine: String,
    /// LinkBench's request-phase keys, for the run control.
    pub requesters: usize,
    pub requests: u64,
    pub requestrate: f64,
    pub maxtime: f64,
    pub warmup: f64,
}

impl Config {
    /// From the merged properties and the fairbench options given on the
    /// command line (which win: they are None unless given).
    pub fn new(p: &Props, a: &LinkbenchArgs, protocol: Protocol) -> Result<Config> {
        let mix = p.mix()?;
        let base = mix_by_name(&a.linkbench_mix).ok_or_else(|| usage!("--linkbench-mix={}: write fb2011 or mdc2017", a.linkbench_mix))?;
        let base_name = if std::ptr::eq(base, &props::MIX_FB2011) { "FB2011" } else { "MDC2017" };
        let mix_name = if mix.iter().zip(base).all(|(x, y)| (x - y).abs() < 1e-9) { base_name.to_string() } else { "custom".to_string() };
        let pick_u = |_name: &str, key: &str, v: Option<u64>| -> Result<u64> {
            match v {
                Some(v) => Ok(v),
                None => p.u64_min(key, 0),
            }
        };
        let startid1 = pick_u("startid1", "startid1", a.startid1)?;
        let maxid1 = pick_u("maxid1", "maxid1", a.maxid1)?;
        if maxid1 <= startid1 {
            return Err(usage!("maxid1 ({maxid1}) must be above startid1 ({startid1}): ids run from startid1 up to maxid1 - 1"));
        }
        let dbprefix = a.dbprefix.clone().unwrap_or_else(|| p.get("dbprefix").to_string());
        let dbcount = pick_u("dbcount", "dbcount", a.dbcount.map(u64::from))?.max(1) as u32;
        if dbcount > 1 && dbprefix.is_empty() {
            return Err(usage!("dbcount={dbcount} needs a dbprefix (e.g. --dbprefix=linkdb makes linkdb0 .. linkdb{})", dbcount - 1));
        }
        if !dbprefix.is_empty() && !protocol.dialect().has_namespaces() {
            return Err(usage!("dbprefix/dbcount name databases or schemas, which SQLite has not: drop them for SQLite"));
        }
        if !dbprefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(usage!("dbprefix '{dbprefix}': use letters, digits and '_'"));
        }
        if p.i64("randomid2max")? > 0 {
            return Err(usage!("randomid2max > 0 is not supported: fairbench loads id2 = id1 + n as LinkBench does by default; set it to 0"));
        }
        let link_types = p.u64_min("link_type_count", 1)?;
        let (nlinks_cdf, nlinks_source) = nlinks_distribution(p)?;
        Ok(Config {
            startid1,
            maxid1,
            loaders: pick_u("loaders", "loaders", a.loaders.map(|v| v as u64))?.max(1) as usize,
            chunk: pick_u("loader-chunk-size", "loader_chunk_size", a.loader_chunk_size)?.max(1),
            generate_nodes: p.bool("generate_nodes")?,
            link_types,
            nlinks_cdf,
            nlinks_source,
            mix,
            mix_name,
            history_pct: p.f64("getlinklist_history")?,
            link_datasize: p.f64("link_datasize")?,
            node_datasize: p.f64("node_datasize")?,
            multiget: (p.f64("link_multiget_dist_prob")?, p.u64_min("link_multiget_dist_min", 1)?, p.u64_min("link_multiget_dist_max", 2)?.min(1024)),
            read_shape: p.f64("read_shape")?,
            read_blend: p.f64("read_uncorr_blend")?,
            write_shape: p.f64("write_shape")?,
            node_read_shape: p.f64("node_read_shape")?,
            node_update_shape: p.f64("node_update_shape")?,
            id2gen: p.i64("id2gen_config")? == 1,
            bulk_batch: p.u64_min("mysql_bulk_insert_batch", 1)? as usize,
            dbprefix,
            dbcount,
            load_seed: p.u64_min("load_random_seed", 0)?,
            request_seed: p.u64_min("request_random_seed", 0)?,
            max_failed: match a.max_failed_requests {
                Some(v) => v,
                None => p.i64("max_failed_requests")?,
            },
            progressfreq: p.f64("progressfreq")?,
            partitions: a.linkbench_partitions,
            shape: Shape::resolve(a.linkbench_shape.as_deref(), protocol)?,
            storage_engine: String::new(),
            requesters: p.u64_min("requesters", 1)? as usize,
            requests: p.u64_min("requests", 0)?,
            requestrate: p.f64("requestrate")?,
            maxtime: p.f64("maxtime")?,
            warmup: p.f64("warmup_time")?,
        })
    }

    /// The note for `--linkbench-partitions` where it changes nothing:
    /// fairbench partitions linktable with MySQL's PARTITION BY KEY(id1),
    /// as LinkBench's DDL does, and nowhere else.
    pub fn partitions_note(&self, protocol: Protocol) -> Option<String> {
        if self.partitions == 0 || protocol.dialect().key_partitions("id1", self.partitions).is_some() {
            return None;
        }
        Some(format!(
            "note: --linkbench-partitions={} has no effect on {}: fairbench partitions linktable only with MySQL's PARTITION BY KEY(id1), so the tables stay whole",
            self.partitions,
            protocol.name()
        ))
    }

    pub fn nodes(&self) -> u64 {
        self.maxid1 - self.startid1
    }

    /// Database (or schema) `i`'s qualifier, empty without a prefix.
    pub fn db(&self, i: u32) -> String {
        if self.dbprefix.is_empty() {
            String::new()
        } else {
            format!("{}{i}", self.dbprefix)
        }
    }

    pub fn table(&self, db: u32, name: &str) -> String {
        if self.dbprefix.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.db(db))
        }
    }

    /// Links of `id1` in all: LinkBench's step rule at the id's place in
    /// the degree order (place 0 the busiest), which Java LinkBench's
    /// degree shuffler gives, so each id has the links it has in Java's graph.
    pub fn nlinks(&self, shuffle: &Shuffler, id1: u64) -> u64 {
        dist::step_value(&self.nlinks_cdf, shuffle.invert(id1 - self.startid1), self.nodes())
    }

    /// Links of `id1` of type index `t`: LinkBench's split, whose leftover
    /// does not subtract what the types already got (5 links over 2 types
    /// load as 3 + 3), kept so the graph has LinkBench's size.
    pub fn links_of_type(&self, total: u64, t: u64) -> u64 {
        let min = total / self.link_types;
        let left = total - min;
        min + u64::from(t < left)
    }
}

/// Links per node as LinkBench's `nlinks_func = real` reads them: the
/// `nlinks` section of `data_file` when one is given, else the built-in
/// points. Other `nlinks_func` values (LinkBench's arithmetic shapes) are
/// not drawn by fairbench.
fn nlinks_distribution(p: &Props) -> Result<(Arc<datafile::Cdf>, String)> {
    // LinkBench's `real` access functions draw ids from the data file's
    // nreads/nwrites sections; fairbench draws them from Zipf only, so it
    // says so rather than run another workload under the same keys.
    for key in ["read_function", "write_function", "node_read_function", "node_update_function"] {
        if p.get(key).trim().eq_ignore_ascii_case("real") {
            return Err(usage!("{key} = real is not supported: fairbench draws request ids from Zipf (read_shape, write_shape, ...); use LinkBench's ZipfDistribution"));
        }
    }
    let func = p.get("nlinks_func").trim();
    if !func.is_empty() && !func.eq_ignore_ascii_case("real") {
        return Err(usage!("nlinks_func = {func} is not supported: fairbench draws links per node from LinkBench's real distribution; set nlinks_func = real"));
    }
    Ok(match datafile::DataFile::from_props(p)? {
        Some(f) => {
            let cdf = f.cdf("nlinks")?.clone();
            let what = format!("the nlinks section of data file {} ({} points)", f.path.display(), cdf.len());
            (Arc::new(cdf), what)
        }
        None => (Arc::new(dist::BUILTIN_NLINKS.to_vec()), "fairbench's built-in distribution (no data_file given)".to_string()),
    })
}

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
    pub protocol: Protocol,
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
    pub fn new(cfg: Config, protocol: Protocol, seed: u64) -> LinkBench {
        let n = cfg.nodes();
        let mut w = LinkBench {
            degree: Shuffler::new(dist::NLINKS_SEED, dist::SHUFFLE_GROUPS, n),
            uncorr: Shuffler::new(dist::UNCORR_SEED, dist::SHUFFLE_GROUPS, n),
            nodes: Shuffler::new(dist::NODE_SEED, dist::SHUFFLE_GROUPS, n),
            cfg,
            protocol,
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
        self.protocol.dialect()
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

    async fn begin(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters) -> DbResult<()> {
        c.in_trx = true;
        q.add(conn.exec(self.begin, &[]).await?);
        q.trx += 1;
        Ok(())
    }

    async fn commit(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters) -> DbResult<()> {
        q.add(conn.exec(self.commit, &[]).await?);
        q.trx += 1;
        c.in_trx = false;
        Ok(())
    }

    /// ADD_LINK and UPDATE_LINK: one transaction that inserts the link or
    /// rewrites it, and counts it when it becomes visible.
    async fn add_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts, p: f64) -> DbResult<()> {
        let (id1, t, id2) = self.written_link(c, p);
        self.link_data(c);
        let now = now_ms();
        self.begin(conn, c, q).await?;
        let rows = conn.exec_rows(st.select_vis, &[Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?;
        q.add(Class::Read);
        let visible_before = match rows.first() {
            None => {
                q.add(conn.exec(st.insert_link, &[Param::Int(id1), Param::Int(id2), Param::Int(t), Param::Text(&c.text), Param::Int(now)]).await?);
                false
            }
            Some(r) => {
                q.add(conn.exec(st.update_link, &[Param::Text(&c.text), Param::Int(now), Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?);
                r.first().cloned().flatten().is_some_and(|v| v.trim() == "1")
            }
        };
        if !visible_before {
            q.add(conn.exec(st.count_add, &[Param::Int(id1), Param::Int(t), Param::Int(1), Param::Int(now), Param::Int(1), Param::Int(now)]).await?);
        }
        self.commit(conn, c, q).await
    }

    /// DELETE_LINK: hides a visible link (LinkBench's driver never
    /// expunges) and takes it off the count.
    async fn delete_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts) -> DbResult<()> {
        let (id1, t, id2) = self.written_link(c, P_DELETE_EXIST);
        let now = now_ms();
        self.begin(conn, c, q).await?;
        let rows = conn.exec_rows(st.select_vis, &[Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?;
        q.add(Class::Read);
        let visible = rows.first().and_then(|r| r.first().cloned().flatten()).is_some_and(|v| v.trim() == "1");
        if visible {
            q.add(conn.exec(st.hide_link, &[Param::Int(now), Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?);
            q.add(conn.exec(st.count_dec, &[Param::Int(now), Param::Int(id1), Param::Int(t)]).await?);
        }
        self.commit(conn, c, q).await
    }

    async fn count_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts) -> DbResult<()> {
        let id1 = self.link_id1(c, false) as i64;
        let t = self.link_type(c);
        q.add(conn.exec(st.count_get, &[Param::Int(id1), Param::Int(t)]).await?);
        Ok(())
    }

    async fn multiget_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts) -> DbResult<()> {
        let id1 = self.link_id1(c, false);
        let t = self.link_type(c);
        let (p, min, max) = self.cfg.multiget;
        let k = dist::geometric(&mut c.rng, p, min, max).min(self.cfg.multiget.2);
        c.params.clear();
        c.params.push(id1 as i64);
        c.params.push(t);
        for _ in 0..k {
            let id2 = self.id2(c, id1, t, P_GET_EXIST);
            c.params.push(id2);
        }
        let params: Vec<Param<'_>> = c.params.iter().map(|&v| Param::Int(v)).collect();
        q.add(conn.exec(StmtId(st.multiget0 + k as u32 - 1), &params).await?);
        Ok(())
    }

    /// GET_LINKS_LIST: the newest visible links of (id1, type), up to
    /// LinkBench's page of 10000; a share `getlinklist_history` of them
    /// pages on through a list whose first page came back full.
    async fn get_links_list(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts) -> DbResult<()> {
        let history = !c.history.is_empty() && c.rng.uniform_double() * 100.0 < self.cfg.history_pct;
        let (id1, t, max_time, stmt, slot) = if history {
            let i = c.rng.uniform(0, c.history.len() as u64 - 1) as usize;
            let (id1, t, last) = c.history[i];
            (id1, t, last, st.range_history, Some(i))
        } else {
            let id1 = self.link_id1(c, false) as i64;
            let t = self.link_type(c);
            (id1, t, i64::MAX, st.range, None)
        };
        let rows = conn.exec_rows(stmt, &[Param::Int(id1), Param::Int(t), Param::Int(max_time)]).await?;
        q.add(Class::Read);
        let full = rows.len() >= RANGE_LIMIT;
        let last = rows.last().and_then(|r| r.get(5).cloned().flatten()).and_then(|s| s.trim().parse::<i64>().ok());
        match (slot, full, last) {
            (Some(i), true, Some(l)) => c.history[i].2 = l,
            (Some(i), _, _) => {
                c.history.swap_remove(i);
            }
            (None, true, Some(l)) if c.history.len() < HISTORY_CACHE => c.history.push((id1, t, l)),
            (None, true, Some(l)) => {
                let i = c.rng.uniform(0, HISTORY_CACHE as u64 - 1) as usize;
                c.history[i] = (id1, t, l);
            }
            _ => {}
        }
        Ok(())
    }

    async fn node_op(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts, kind: usize) -> DbResult<()> {
        let now = now_s();
        match kind {
            ADD_NODE => {
                self.node_data(c);
                self.begin(conn, c, q).await?;
                q.add(conn.exec(st.add_node, &[Param::Int(now), Param::Text(&c.text)]).await?);
                self.commit(conn, c, q).await
            }
            UPDATE_NODE => {
                let id = self.node_id(c, kind) as i64;
                self.node_data(c);
                self.begin(conn, c, q).await?;
                q.add(conn.exec(st.update_node, &[Param::Int(now), Param::Text(&c.text), Param::Int(id), Param::Int(DEFAULT_NODE_TYPE)]).await?);
                self.commit(conn, c, q).await
            }
            DELETE_NODE => {
                let id = self.node_id(c, kind) as i64;
                self.begin(conn, c, q).await?;
                q.add(conn.exec(st.delete_node, &[Param::Int(id), Param::Int(DEFAULT_NODE_TYPE)]).await?);
                self.commit(conn, c, q).await
            }
            _ => {
                let id = self.node_id(c, kind) as i64;
                conn.exec_rows(st.get_node, &[Param::Int(id)]).await?;
                q.add(Class::Read);
                Ok(())
            }
        }
    }

    async fn op(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, kind: usize) -> DbResult<()> {
        let st = self.st[c.db];
        if self.cfg.shape == Shape::Java {
            let j = &self.java[c.db];
            return match kind {
                ADD_LINK => self.java_add_link(conn, c, q, j, P_ADD_EXIST).await,
                UPDATE_LINK => self.java_add_link(conn, c, q, j, P_UPDATE_EXIST).await,
                DELETE_LINK => self.java_delete_link(conn, c, q, &st, j).await,
                ADD_NODE | UPDATE_NODE | DELETE_NODE => self.java_node_write(conn, c, q, j, kind).await,
                COUNT_LINK => self.count_link(conn, c, q, &st).await,
                MULTIGET_LINK => self.multiget_link(conn, c, q, &st).await,
                GET_LINKS_LIST => self.get_links_list(conn, c, q, &st).await,
                _ => self.node_op(conn, c, q, &st, kind).await,
            };
        }
        match kind {
            ADD_LINK => self.add_link(conn, c, q, &st, P_ADD_EXIST).await,
            UPDATE_LINK => self.add_link(conn, c, q, &st, P_UPDATE_EXIST).await,
            DELETE_LINK => self.delete_link(conn, c, q, &st).await,
            COUNT_LINK => self.count_link(conn, c, q, &st).await,
            MULTIGET_LINK => self.multiget_link(conn, c, q, &st).await,
            GET_LINKS_LIST => self.get_links_list(conn, c, q, &st).await,
            _ => self.node_op(conn, c, q, &st, kind).await,
        }
    }

    /// Java's shape: the connection's autocommit goes off once, as Java
    /// LinkBench's write connection has it, so a write's first statement
    /// opens its transaction and no BEGIN is sent. Java reads on a second
    /// connection with autocommit on; here a read runs on the same
    /// connection, inside the transaction the next write's COMMIT ends.
    async fn java_session(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters) -> DbResult<()> {
        if !c.autocommit_off {
            q.add(conn.query("SET autocommit = 0").await?);
            c.autocommit_off = true;
        }
        c.in_trx = true;
        Ok(())
    }

    /// ADD_LINK and UPDATE_LINK as Java's addLink sends them: INSERT ...
    /// ON DUPLICATE KEY UPDATE visibility, then, in one query with the
    /// COMMIT, the count for a link that became visible or the new data
    /// for one that was visible already. A hidden link shown again takes
    /// the count query only: without the affected-row count (2 there, 1
    /// for a new link) it looks like a new link, so its old data stays
    /// where Java rewrites it in a third round trip.
    async fn java_add_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, j: &JavaStmts, p: f64) -> DbResult<()> {
        let (id1, t, id2) = self.written_link(c, p);
        self.link_data(c);
        let now = now_ms();
        self.java_session(conn, c, q).await?;
        let class = conn.exec(j.add_link, &[Param::Int(id1), Param::Int(id2), Param::Int(t), Param::Text(&c.text), Param::Int(now)]).await?;
        q.add(class);
        if class == Class::Write {
            java_commit(conn, &mut c.sql, &j.count_add, &[Param::Int(id1), Param::Int(t), Param::Int(now), Param::Int(now)]).await?;
        } else {
            java_commit(conn, &mut c.sql, &j.update_link, &[Param::Text(&c.text), Param::Int(now), Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?;
        }
        q.add(Class::Write);
        q.add(Class::Other);
        q.trx += 1;
        c.in_trx = false;
        Ok(())
    }

    /// DELETE_LINK as Java's deleteLink sends it: SELECT ... FOR UPDATE,
    /// and for a visible link the hiding UPDATE and the count, then COMMIT,
    /// each on its own.
    async fn java_delete_link(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, st: &DbStmts, j: &JavaStmts) -> DbResult<()> {
        let (id1, t, id2) = self.written_link(c, P_DELETE_EXIST);
        let now = now_ms();
        self.java_session(conn, c, q).await?;
        let rows = conn.exec_rows(st.select_vis, &[Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?;
        q.add(Class::Read);
        let visible = rows.first().and_then(|r| r.first().cloned().flatten()).is_some_and(|v| v.trim() != "0");
        if visible {
            q.add(conn.exec(j.hide_link, &[Param::Int(id1), Param::Int(id2), Param::Int(t)]).await?);
            q.add(conn.exec(j.count_dec, &[Param::Int(id1), Param::Int(t), Param::Int(now), Param::Int(now)]).await?);
        }
        self.commit(conn, c, q).await
    }

    /// ADD_NODE, UPDATE_NODE and DELETE_NODE as Java's node store sends
    /// them: the statement and its COMMIT in one query.
    async fn java_node_write(&self, conn: &mut Conn, c: &mut LinkBenchClient, q: &mut Counters, j: &JavaStmts, kind: usize) -> DbResult<()> {
        let now = now_s();
        let id = if kind == ADD_NODE { 0 } else { self.node_id(c, kind) as i64 };
        if kind != DELETE_NODE {
            self.node_data(c);
        }
        self.java_session(conn, c, q).await?;
        let ty = Param::Int(DEFAULT_NODE_TYPE);
        match kind {
            ADD_NODE => java_commit(conn, &mut c.sql, &j.add_node, &[Param::Int(now), Param::Text(&c.text)]).await?,
            UPDATE_NODE => java_commit(conn, &mut c.sql, &j.update_node, &[Param::Int(now), Param::Text(&c.text), Param::Int(id), ty]).await?,
            _ => java_commit(conn, &mut c.sql, &j.delete_node, &[Param::Int(id), ty]).await?,
        }
        q.add(Class::Write);
        q.add(Class::Other);
        q.trx += 1;
        c.in_trx = false;
        Ok(())
    }

    async fn rollback(&self, conn: &mut Conn, c: &mut LinkBenchClient) {
        // With autocommit off a read opens a transaction too.
        if c.in_trx || c.autocommit_off {
            let _ = conn.query("ROLLBACK").await;
            c.in_trx = false;
        }
    }
}

/// Java's shape: `template` with its values and the COMMIT after it, one
/// query and so one round trip, as Java appends "; commit;" to a write's
/// last statement.
async fn java_commit(conn: &mut Conn, sql: &mut String, template: &str, params: &[Param<'_>]) -> DbResult<()> {
    crate::db::interpolate(template, params, sql, true);
    conn.query(sql).await?;
    Ok(())
}

/// Conflicts LinkBench retries: deadlocks, lock wait timeouts,
/// serialization failures, and the duplicate key two adds of one absent
/// link race into.
fn conflict(e: &DbError) -> bool {
    e.kind == ErrKind::Retryable || ["1213", "1205", "1062", "40001", "40P01", "23505", "SQLITE_BUSY"].contains(&e.code.as_str())
}

fn fill_text(c: &mut LinkBenchClient, len: usize, unique: f64) {
    dist::fill_payload(&mut c.rng, &mut c.data, len, unique);
    c.text.clear();
    // fill_payload writes printable ASCII only.
    c.text.extend(c.data.iter().map(|&b| b as char));
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
        let rng = if seed == 0 { Rng::from_entropy(id as u64) } else { Rng::from_seed(seed, id as u64) };
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

    fn sink(&self, json: bool, percentile: u32, standard: &'static dyn crate::output::StandardOutput) -> Option<Box<dyn crate::model::Sink>> {
        Some(Box::new(output::LinkBenchSink::new(self, json, percentile, standard)))
    }
}

/// An error for a failed admin statement.
pub fn sql_error(sql: &str) -> impl FnOnce(DbError) -> Error + '_ {
    move |e| Error::Sql(format!("{e}\n  in: {sql}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_split_as_linkbench_does() {
        let a = LinkbenchArgs::default_for_tests();
        let p = Props::defaults(&props::MIX_FB2011);
        let cfg = Config::new(&p, &a, Protocol::Mysql).unwrap();
        assert_eq!(cfg.links_of_type(5, 0) + cfg.links_of_type(5, 1), 6);
        assert_eq!(cfg.links_of_type(1, 0) + cfg.links_of_type(1, 1), 1);
        assert_eq!(cfg.links_of_type(0, 0) + cfg.links_of_type(0, 1), 0);
    }

    #[test]
    fn partitions_are_noted_where_they_do_nothing() {
        let mut a = LinkbenchArgs::default_for_tests();
        a.linkbench_partitions = 4;
        let p = Props::defaults(&props::MIX_FB2011);
        for engine in [Protocol::Postgres, Protocol::Sqlite] {
            let note = Config::new(&p, &a, engine).unwrap().partitions_note(engine).unwrap();
            assert!(note.starts_with("note: --linkbench-partitions=4 has no effect on ") && !note.contains('\n'), "{note}");
        }
        assert_eq!(Config::new(&p, &a, Protocol::Mysql).unwrap().partitions_note(Protocol::Mysql), None);
        a.linkbench_partitions = 0;
        assert_eq!(Config::new(&p, &a, Protocol::Postgres).unwrap().partitions_note(Protocol::Postgres), None);
    }

    #[test]
    fn shape_defaults_to_java_on_mysql_only() {
        let p = Props::defaults(&props::MIX_FB2011);
        let mut a = LinkbenchArgs::default_for_tests();
        assert_eq!(Config::new(&p, &a, Protocol::Mysql).unwrap().shape, Shape::Java);
        assert_eq!(Config::new(&p, &a, Protocol::Postgres).unwrap().shape, Shape::Locking);
        assert_eq!(Config::new(&p, &a, Protocol::Sqlite).unwrap().shape, Shape::Locking);
        a.linkbench_shape = Some("locking".into());
        assert_eq!(Config::new(&p, &a, Protocol::Mysql).unwrap().shape, Shape::Locking);
        a.linkbench_shape = Some("java".into());
        assert!(Config::new(&p, &a, Protocol::Postgres).is_err() && Config::new(&p, &a, Protocol::Sqlite).is_err());
        a.linkbench_shape = Some("fast".into());
        assert!(Config::new(&p, &a, Protocol::Mysql).is_err());
    }
}
