//! What a server says about itself: its settings, version, caches, the
//! size of a workload's dataset and its counters, as each engine reads
//! them (in its folder, behind [`super::engines::Engine`]) and every
//! engine records them.

use super::Conn;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Server {
    pub engine: String,
    pub version: String,
    /// Server on this machine (loopback, unix socket, embedded).
    pub local: bool,
    /// Global variables (MySQL), pg_settings as seen by the session (PostgreSQL), pragmas (SQLite).
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
    /// MySQL-family: session values that differ from the global ones.
    #[serde(default)]
    pub session: BTreeMap<String, String>,
    /// PostgreSQL: unit of each setting that has one (8kB, kB, ms...).
    #[serde(default)]
    pub units: BTreeMap<String, String>,
    /// Cumulative IO and durability counters, and gauges.
    #[serde(default)]
    pub status: BTreeMap<String, f64>,
    /// Bytes on disk of the workload's tables (data and indexes).
    pub dataset_bytes: Option<u64>,
    /// Where a sandbox's server build came from, when not the installed one (`server start
    /// --version`, `--basedir`): `npm PACKAGE@VERSION sha512-...` or `basedir DIR`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Whether `dataset_bytes` is an estimate (from table statistics) rather than a count.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dataset_estimated: bool,
    /// Bytes the engine caches pages in (buffer pool, shared_buffers, page cache).
    pub cache_bytes: Option<u64>,
    /// An engine that reads its file through the OS page cache (SQLite):
    /// the memory available to that cache on this machine, which holds
    /// what the engine's own small cache does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_cache_bytes: Option<u64>,
    /// Whether the snapshot's connection, made like the benchmark's, negotiated
    /// TLS: the URL only says what was asked for (`prefer` may fall back to
    /// plain). None: not known, or not applicable (SQLite).
    #[serde(default)]
    pub tls: Option<bool>,
    /// The negotiated cipher, when TLS is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_cipher: Option<String>,
    /// A connection pooler answering for the server (pgbouncer), and how
    /// fairbench sends statements through it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pooler: Option<String>,
    /// The members of a distributed engine's cluster, one line each (role,
    /// address, version), as the server lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// How the dataset's tables are spread over the shards of an engine
    /// that shards them (its own schema text: a VSchema's JSON), as the
    /// engine reads it; None when the engine does not shard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding: Option<String>,
    /// Where the server keeps its statements by digest, as the sampler
    /// reads it (performance_schema's summary, pg_stat_statements in its
    /// schema); None when it keeps none or the run does not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statements_view: Option<String>,
    /// Where the server publishes Prometheus metrics (its status port),
    /// when its counters are read from there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_url: Option<String>,
    /// The server's process on this host whose CPU and context switches
    /// were sampled ("mariadbd, pid 1234"), found by the socket or port it
    /// listens on; None when the server is elsewhere or was not found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    /// The executable of that process: which build of the server ran, where
    /// two are installed side by side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// A server made of several processes on this host: each part found
    /// (`tablet: vttablet, pid 123`); its CPU is measured part by part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
    /// The workload's tables as the catalog describes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<super::catalog::TableShape>,
    /// The workload's run changes its own tables (the Insert Benchmark's
    /// `l.x` step adds its indexes): set on the end snapshot, a change
    /// since the start is the workload's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reshaped_by_run: bool,
    /// The disk that holds the server's data directory on this host, as
    /// /proc/diskstats names it: the disk figures per operation count it alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_device: Option<String>,
}

impl Server {
    /// The value the benchmark's sessions use: session first, then global.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.session.get(name).or_else(|| self.variables.get(name)).map(String::as_str)
    }

    /// A setting as a number.
    pub fn var_num(&self, name: &str) -> Option<f64> {
        self.var(name).and_then(|v| v.trim().parse().ok())
    }
}

/// The tables that hold a workload's data: the snapshot's dataset size is theirs.
#[derive(Clone, Debug, PartialEq)]
pub enum DatasetTables {
    /// Every table (and index) whose name starts with this, as sysbench's
    /// `sbtest1..N` are found.
    Prefix(String),
    /// Exactly these tables, with their indexes.
    Names(Vec<String>),
}

impl DatasetTables {
    /// `name LIKE 'prefix%'` or `name IN (...)` over `column`. `escape` is
    /// SQLite's LIKE, which has no escape character unless told; `lower`
    /// folds names as PostgreSQL folds the unquoted names tables were
    /// created with.
    pub fn condition(&self, column: &str, escape: bool, lower: bool) -> String {
        match self {
            DatasetTables::Prefix(p) => {
                let like = format!("{}%", sql_str(p).replace('_', "\\_"));
                format!("{column} LIKE '{like}'{}", if escape { " ESCAPE '\\'" } else { "" })
            }
            DatasetTables::Names(names) => {
                let quoted: Vec<String> = names.iter().map(|n| format!("'{}'", sql_str(&if lower { n.to_lowercase() } else { n.clone() }))).collect();
                format!("{column} IN ({})", if quoted.is_empty() { "NULL".to_string() } else { quoted.join(", ") })
            }
        }
    }
}

fn sql_str(s: &str) -> String {
    s.replace('\'', "''")
}

/// The rows of a query as text (NULL as empty); a failed query adds its
/// error to `errors` and gives no rows, so a snapshot keeps what it could read.
pub async fn rows(c: &mut Conn, sql: &str, errors: &mut Vec<String>) -> Vec<Vec<String>> {
    match c.query_strings(sql).await {
        Ok(r) => r.into_iter().map(|row| row.into_iter().map(|v| v.unwrap_or_default()).collect()).collect(),
        Err(e) => {
            errors.push(format!("{sql}: {}", e.message));
            vec![]
        }
    }
}

/// The first column of the first row.
pub async fn value(c: &mut Conn, sql: &str, errors: &mut Vec<String>) -> Option<String> {
    rows(c, sql, errors).await.into_iter().next().and_then(|r| r.into_iter().next())
}

/// A number from the first column of the first row.
pub fn first_number(r: &[Vec<String>]) -> Option<u64> {
    r.first().and_then(|r| r.first()).and_then(|v| v.parse::<f64>().ok()).map(|v| v as u64)
}

/// Name/value rows as a map with lower-case names.
pub fn pairs(r: Vec<Vec<String>>) -> BTreeMap<String, String> {
    r.into_iter().filter(|r| r.len() >= 2).map(|r| (r[0].to_ascii_lowercase(), r[1].clone())).collect()
}

/// TLS state from the cipher the server reports for the session: empty is
/// plain, None is unknown (the query failed).
pub fn tls_of(cipher: Option<&str>) -> (Option<bool>, Option<String>) {
    match cipher.map(str::trim) {
        None => (None, None),
        Some("") => (Some(false), None),
        Some(c) => (Some(true), Some(c.to_string())),
    }
}
