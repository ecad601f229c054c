//! A LinkBench run's configuration: its properties and options resolved
//! into sizes, mixes and distributions.

use super::datafile;
use super::dist::{self, Shuffler};
use super::options::LinkbenchArgs;
use super::props::{self, Props};
use crate::db::Engine;
use crate::error::Result;
use crate::usage;
use std::sync::Arc;

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
    fn resolve(asked: Option<&str>, engine: &'static dyn Engine) -> Result<Shape> {
        let java_sql = engine.dialect().duplicate_key_upsert();
        let default = if java_sql { Shape::Java } else { Shape::Locking };
        match asked.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("auto") => Ok(default),
            Some("java") if !java_sql => {
                Err(usage!("--linkbench-shape=java needs INSERT ... ON DUPLICATE KEY UPDATE and multi-statement queries, which {} has not: use --linkbench-shape=locking", engine.name()))
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
    pub fn new(p: &Props, a: &LinkbenchArgs, engine: &'static dyn Engine) -> Result<Config> {
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
        if !dbprefix.is_empty() && !engine.dialect().has_namespaces() {
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
            shape: Shape::resolve(a.linkbench_shape.as_deref(), engine)?,
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
    pub fn partitions_note(&self, engine: &'static dyn Engine) -> Option<String> {
        if self.partitions == 0 || engine.dialect().table_options().is_some() {
            return None;
        }
        Some(format!(
            "note: --linkbench-partitions={} has no effect on {}: fairbench partitions linktable only with MySQL's PARTITION BY KEY(id1), so the tables stay whole",
            self.partitions,
            engine.name()
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
