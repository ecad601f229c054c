//! Engines as plug-ins. An engine is a folder under src/db/ (its client,
//! its dialect, and a static implementing [`Engine`]) plus one line in
//! [`ENGINES`]. What differs between servers beyond the wire protocol is
//! asked of the engine here, never matched on elsewhere: how it records
//! its environment and counters, what a commit guarantees, and what its
//! settings mean in common terms.
//!
//! [`Engine`] is the core every engine answers (seven methods have no
//! default); what only some engines have is an optional capability it
//! returns itself as ([`Engine::sharded`], [`Engine::digests`],
//! [`Engine::activity`], [`Engine::deviations`]), so an engine that has
//! none writes none of it, and a caller asks whether the engine has one.
//!
//! [`Protocol`] names the wire protocol (and so the client) a target is
//! reached with; several engines may share one (a server that speaks
//! MySQL's protocol is found by what it says it is).

use super::facts::{DatasetTables, Server};
use super::sharding::{Copies, ShardPlan};
use super::{Conn, ConnConfig, Dialect, Protocol};
use crate::units::human_bytes;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

/// Where the Vitess engine's admin client (vtctldclient) and its sandbox's programs are found
/// when not in the build cache: the one fact of an engine a sandbox kind shares with it.
pub use super::vitess::BINDIR_VAR as VITESS_BINDIR_VAR;

/// The engines, one line each; a protocol's first engine is the one a
/// target of that protocol is taken for until its server says otherwise.
pub static ENGINES: &[&dyn Engine] = &[&super::mysql::spec::MYSQL, &super::postgres::spec::POSTGRES, &super::sqlite::spec::SQLITE, &super::tidb::spec::TIDB, &super::vitess::spec::VITESS];

pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;
/// A future that may move between the runtime's threads (clients connect on any).
pub type SendFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an engine says about itself beyond its SQL.
pub trait Engine: Sync {
    /// The name runs record (`mysql`, `postgres`, `sqlite`).
    fn name(&self) -> &'static str;

    /// The wire protocol (and client) it is reached with.
    fn protocol(&self) -> Protocol;

    /// Its SQL forms.
    fn dialect(&self) -> &'static dyn Dialect;

    /// Whether a server of this engine's protocol that reports `version`
    /// (`SELECT VERSION()`) is this engine rather than the protocol's first.
    fn recognizes(&self, _version: &str) -> bool {
        false
    }

    /// Settings that change what a commit does beyond durability (a
    /// transaction model, a commit protocol): two runs of this engine that
    /// differ in one are not comparable. (name, value) pairs.
    fn commit_settings(&self, _s: &Server) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Reads the server's settings, version, cache and dataset sizes,
    /// counters and TLS state into `s`; what cannot be read goes to `errors`.
    fn capture<'a>(&'a self, c: &'a mut Conn, cfg: &'a ConnConfig, tables: &'a DatasetTables, s: &'a mut Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, ()>;

    /// The workload's tables as the server's catalog describes them (each
    /// engine's catalog.rs), read with every snapshot; none where the engine
    /// does not read them.
    fn catalog<'a>(&'a self, _c: &'a mut Conn, _tables: &'a DatasetTables, _errors: &'a mut Vec<String>) -> LocalFuture<'a, Vec<crate::db::catalog::TableShape>> {
        Box::pin(async { Vec::new() })
    }

    /// The counters and gauges sampled every interval; `start` is the
    /// snapshot taken before (it says which views the server has, so no
    /// sample sends a query that fails into the log of what it measures).
    fn counters<'a>(&'a self, c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, f64>>;

    /// Which of its counters are gauges (kept as they are, not as deltas).
    fn gauges(&self) -> &'static [&'static str] {
        &[]
    }

    /// (physical page reads, logical page reads) from counter deltas.
    fn page_reads(&self, _deltas: &BTreeMap<String, f64>) -> Option<(f64, f64)> {
        None
    }

    /// The server's fsyncs in a set of counter deltas (InnoDB's, the WAL's).
    fn fsyncs(&self, _deltas: &BTreeMap<String, f64>) -> Option<f64> {
        None
    }

    /// The processes a server is made of beside the one the target reaches
    /// (a router's shard servers), by where each listens on the server's
    /// host, from the facts `capture` recorded; the sampler measures each
    /// part's CPU apart. Empty: the server is the one process.
    fn parts(&self, _s: &Server) -> Vec<Part> {
        Vec::new()
    }

    /// Where the server keeps its data on its host, from its settings.
    fn data_dir(&self, _s: &Server) -> Option<String> {
        None
    }

    /// What a commit guarantees, from the settings the sessions ran with.
    fn durability(&self, s: &Server) -> Durability;

    /// The setting that sizes its page cache, as users know it.
    fn cache_setting(&self) -> &'static str;

    /// Whether the OS page cache may hold data beyond the engine's own cache.
    fn os_cache_holds_data(&self) -> bool {
        true
    }

    /// The settings that change what a run measures on this engine, each
    /// compared across its runs by the audit (its list in its folder).
    fn measured(&self) -> &'static [super::measured::Measured] {
        &[]
    }

    /// Settings that mean the same on every engine though named
    /// differently, each in common terms and in the engine's words.
    fn common_settings(&self, _s: &Server) -> Vec<(Aspect, Common)> {
        Vec::new()
    }

    // Optional capabilities: an engine that has one returns itself.
    /// Where its clients must treat it apart from its protocol's first engine.
    fn deviations(&self) -> Option<&dyn Deviations> {
        None
    }

    /// How it spreads tables over shards, when it does.
    fn sharded(&self) -> Option<&dyn Sharded> {
        None
    }

    /// The language of the stored routines it runs, when it runs them.
    fn procedural(&self) -> Option<crate::db::dialect::Procedural> {
        self.dialect().procedural().filter(|_| self.deviations().is_none_or(|d| d.stored_routines()))
    }

    /// Its statements by shape, when it keeps them.
    fn digests(&self) -> Option<&dyn Digests> {
        None
    }

    /// Its sessions' waits read from what each is doing, when its counters do not say.
    fn activity(&self) -> Option<&dyn Activity> {
        None
    }
}

/// Where a server that speaks another engine's protocol differs from it for
/// its clients (TiDB, Vitess): errors that mean try again, statements it
/// refuses, a load it does not take. Asked through [`Engine::deviations`].
pub trait Deviations: Sync {
    /// Error codes that restart an event on this engine, beside the
    /// protocol's default ignore list (not when the user gave a list).
    fn retryable(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether it runs the stored routines of its protocol's first engine: false where it
    /// has none (TiDB) or a proxy does not pass their creation on (Vitess).
    fn stored_routines(&self) -> bool {
        true
    }

    /// Whether a bulk load may send LOAD DATA LOCAL (when the server
    /// allows it): false where a proxy in front of the tables refuses it
    /// (a sharded keyspace), so `--load-mode auto` loads with multi-row
    /// INSERTs instead.
    fn loads_infile(&self) -> bool {
        true
    }

    /// What a session that reads whole tables (a consistency check, an
    /// analytic query) runs first: a proxy's limit on the rows one
    /// statement may return lifted.
    fn check_session(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether such a session may read inside a transaction: false where
    /// the proxy streams those reads only outside one.
    fn whole_reads_in_transactions(&self) -> bool {
        true
    }

    /// An error the engine itself says to try again, whatever its code (a
    /// proxy that answers every failure behind it with one generic code):
    /// restarts the event like the retryable codes, with the default list.
    fn transient(&self, _code: &str, _message: &str) -> bool {
        false
    }

    /// Reads what decides which statements the engine refuses as the
    /// sessions will be set (`session` is the SQL each runs first), and
    /// returns a screen that says, in one line, why a statement cannot run
    /// and what the engine offers instead. None: it refuses nothing known.
    fn screen<'a>(&'a self, _c: &'a mut Conn, _session: &'a [String]) -> SendFuture<'a, Option<Screen>> {
        Box::pin(async { None })
    }
}

/// An engine that spreads tables over shards (Vitess): how the workload's
/// tables are laid out before prepare, read back for the environment, and
/// how its routing is counted. Asked through [`Engine::sharded`].
pub trait Sharded: Sync {
    /// Why the workload's tables cannot spread over the target's shards as
    /// `plan` declares (one line saying what to change), asked before
    /// prepare creates anything and before a run; None: nothing stands in
    /// the way, or this target does not shard.
    fn refuse_sharded<'a>(&'a self, c: &'a mut Conn, plan: &'a ShardPlan) -> SendFuture<'a, Option<String>>;

    /// Makes the target spread the workload's tables over its shards as
    /// `plan` declares, before the workload's prepare creates and loads
    /// them (and again on a prepare that resumes, which finds them done):
    /// the schema text it applied, None when this target does not shard. Lines the user should read go to `notes`.
    fn shard_tables<'a>(&'a self, c: &'a mut Conn, plan: &'a ShardPlan, notes: &'a mut Vec<String>) -> SendFuture<'a, crate::error::Result<Option<String>>>;

    /// Forgets how the workload's tables were spread, once its cleanup
    /// dropped them; what could not be forgotten goes to `notes`.
    fn unshard_tables<'a>(&'a self, c: &'a mut Conn, plan: &'a ShardPlan, notes: &'a mut Vec<String>) -> SendFuture<'a, ()>;

    /// Where the copies of `table` are when the engine keeps one on every
    /// shard and takes writes to each apart (a reference table vtgate will
    /// not write to): how to point a connection at each and back. None: one
    /// table, written as any other.
    fn copies<'a>(&'a self, c: &'a mut Conn, table: &'a str) -> SendFuture<'a, Option<Copies>>;

    /// How the dataset's tables are sharded now, as schema text a run's
    /// environment records; None when the engine does not shard. What
    /// cannot be read goes to `errors`.
    fn sharding<'a>(&'a self, c: &'a mut Conn, tables: &'a DatasetTables, errors: &'a mut Vec<String>) -> LocalFuture<'a, Option<String>>;

    /// A sharded server: its number of shards, from its facts (None: one
    /// server holds all the data).
    fn shards(&self, s: &Server) -> Option<u32>;

    /// Queries by the shards they reached (one, several, every one), from
    /// a window's counter deltas; None: they were not counted.
    fn routing(&self, deltas: &BTreeMap<String, f64>) -> Option<Routing>;
}

/// An engine that keeps statistics of the statements it ran by shape
/// (performance_schema's digests, pg_stat_statements). Asked through
/// [`Engine::digests`].
pub trait Digests: Sync {
    /// The statements the server ran, by shape, with their cumulative
    /// counters ([`crate::db::digests`]), keyed by the server's digest;
    /// asked at every sample when `start` says the server keeps them
    /// ([`Server::statements_view`]). The sampling's own are left out.
    fn statements<'a>(&'a self, c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, crate::db::digests::Digest>>;

    /// The texts of the statements `ids` (from [`Self::statements`], which
    /// may leave them empty to keep each sample's read cheap), read once
    /// for the statements that moved.
    fn statement_texts<'a>(&'a self, _c: &'a mut Conn, _start: &'a Server, _ids: &'a [String], _errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, String>> {
        Box::pin(async { BTreeMap::new() })
    }
}

/// An engine whose waits are read from what each session is doing, not
/// from cumulative counters (PostgreSQL's pg_stat_activity). Asked
/// through [`Engine::activity`].
pub trait Activity: Sync {
    /// The statement that says what each of the run's sessions is doing at
    /// this instant, one row each (active-session-history style), for a
    /// server whose cumulative wait counters do not say (PostgreSQL's):
    /// asked ten times a second on a connection of its own, which the
    /// statement leaves out. None: this target says nothing of its sessions.
    fn activity_sql(&self, target: &crate::db::url::Target) -> Option<String>;

    /// A row of [`Self::activity_sql`] as the wait counter
    /// ([`crate::db::waits::key`]) its session's time goes to; None: not
    /// counted.
    fn activity_wait(&self, row: &[Option<String>]) -> Option<String>;
}

/// Queries a sharded server routed, by the shards each reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Routing {
    /// To one shard.
    pub single: f64,
    /// To more than one shard but not all of them.
    pub multi: f64,
    /// To every shard (a scatter).
    pub scatter: f64,
}

impl Routing {
    /// The share of the routed queries that went to every shard.
    pub fn scatter_share(&self) -> Option<f64> {
        let all = self.single + self.multi + self.scatter;
        (all > 0.0).then(|| self.scatter / all)
    }
}

/// One process of a server made of several: its part's name (`vtgate`,
/// `tablet`, `mariadb`) and where it listens.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub name: String,
    pub at: Listen,
}

/// Where a part listens on the server's host.
#[derive(Clone, Debug, PartialEq)]
pub enum Listen {
    /// Where the target points: the process the clients reach.
    Target,
    Port(u16),
    Socket(std::path::PathBuf),
}

/// The engine runs recorded under `name`.
pub fn named(name: &str) -> Option<&'static dyn Engine> {
    ENGINES.iter().copied().find(|e| e.name() == name)
}

/// The engine of `protocol` when it is the only one that speaks it (no
/// server needs asking).
pub fn only(protocol: Protocol) -> Option<&'static dyn Engine> {
    let mut speakers = ENGINES.iter().copied().filter(|e| e.protocol() == protocol);
    match (speakers.next(), speakers.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// The engine of a `protocol` server that reports `version`: the one that
/// recognizes it, else the protocol's first engine (a server that says
/// nothing of its own is the protocol's own: MySQL, MariaDB, Percona).
pub fn recognized(protocol: Protocol, version: &str) -> &'static dyn Engine {
    let mut speakers = ENGINES.iter().copied().filter(|e| e.protocol() == protocol);
    let first = speakers.next().expect("every protocol has an engine");
    speakers.find(|e| e.recognizes(version)).unwrap_or(first)
}

/// An engine is shown by its name (in a connection's settings, say).
impl std::fmt::Debug for dyn Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Says why a statement cannot run on an engine, or None when it can.
pub type Screen = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// What a target's engine refuses as its sessions are set.
pub struct Identity {
    pub screen: Option<Screen>,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity").field("screens", &self.screen.is_some()).finish()
    }
}

/// The first statement an engine refused before it was sent: whatever
/// command it stopped, and however the error was worded on the way up,
/// the command ends with this line as a usage error (nothing ran).
static REFUSED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Records a refusal (the first one is kept) and returns its line.
pub fn refuse(line: String) -> String {
    let _ = REFUSED.set(line.clone());
    line
}

/// The refusal that stopped this process, if one did.
pub fn refusal() -> Option<&'static str> {
    REFUSED.get().map(String::as_str)
}

/// Whether counter `name` is a gauge on any engine.
pub fn is_gauge(name: &str) -> bool {
    ENGINES.iter().any(|e| e.gauges().contains(&name))
}

/// (physical, logical) page reads of a sample set, whichever engine's counters it holds.
pub fn page_reads(deltas: &BTreeMap<String, f64>) -> Option<(f64, f64)> {
    ENGINES.iter().find_map(|e| e.page_reads(deltas))
}

/// What a commit guarantees, in the same terms on every engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DurClass {
    /// Every commit is flushed and synced before it returns.
    Synced,
    /// Commits are written or synced about once per second (or per group):
    /// a crash loses the last moments.
    PerSecond,
    /// Nothing forces data to stable storage.
    NotSynced,
    /// The data lives in memory only: a restart loses all of it.
    InMemory,
    Unknown,
}

impl DurClass {
    pub fn name(self) -> &'static str {
        match self {
            DurClass::Synced => "every commit flushed and synced",
            DurClass::PerSecond => "flushed about once per second",
            DurClass::NotSynced => "not synced",
            DurClass::InMemory => "not durable (in memory only)",
            DurClass::Unknown => "unknown",
        }
    }
}

pub struct Durability {
    pub class: DurClass,
    /// The settings that decided it.
    pub evidence: Vec<String>,
    /// Protection against torn pages (doublewrite, full_page_writes); None when not applicable.
    pub torn_pages: Option<bool>,
}

/// Reads settings for a durability decision, keeping each one read as evidence.
pub struct Evidence<'a> {
    s: &'a Server,
    pub seen: Vec<String>,
}

impl<'a> Evidence<'a> {
    pub fn new(s: &'a Server) -> Evidence<'a> {
        Evidence { s, seen: Vec::new() }
    }

    pub fn show(&mut self, name: &str) -> Option<&'a str> {
        let v = self.s.var(name);
        if let Some(v) = v {
            self.seen.push(format!("{name}={v}"));
        }
        v
    }
}

/// Whether a setting's value means on.
pub fn on(v: Option<&str>) -> Option<bool> {
    v.map(|v| matches!(v.to_ascii_lowercase().as_str(), "on" | "1" | "true" | "yes"))
}

/// A server aspect compared across engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aspect {
    /// How the redo log / WAL reaches the disk at commit.
    LogSync,
    /// Whether data files go through the OS page cache.
    DataFileIo,
    /// Background page flushing.
    BackgroundFlush,
    /// Concurrent IO the engine issues.
    IoConcurrency,
    /// Log the engine may fill before it must checkpoint.
    LogCapacity,
    /// Memory the log is written into before the file.
    LogBuffer,
    /// How client connections map onto the server's workers.
    Connections,
}

/// A setting in common terms: `key` compares equal across engines when
/// they behave alike; `shown` says it in the engine's own words.
pub struct Common {
    pub key: String,
    pub shown: String,
}

impl Common {
    pub fn new(key: impl Into<String>, shown: impl Into<String>) -> Common {
        Common { key: key.into(), shown: shown.into() }
    }

    /// A setting whose own words are the common terms.
    pub fn same(v: String) -> Common {
        Common { key: v.clone(), shown: v }
    }

    /// A setting's size in common terms: "wal_buffers = 4.0 MiB".
    pub fn setting_size(name: &str, bytes: u64) -> Common {
        let size = human_bytes(bytes as f64);
        Common { shown: format!("{name} = {size}"), key: size }
    }

    /// A size the engine's settings add up to, with how: "innodb_log_file_size
    /// = 48.0 MiB x 2 file(s): 96.0 MiB".
    pub fn derived_size(how: &str, bytes: u64) -> Common {
        let size = human_bytes(bytes as f64);
        Common { shown: format!("{how}: {size}"), key: size }
    }

    /// Direct or buffered data file access in common terms.
    pub fn data_file_io(direct: bool, why: String) -> Common {
        let key = if direct { "direct (bypasses the OS page cache)" } else { "buffered (the OS page cache holds data too)" };
        Common::new(key, format!("{key}: {why}"))
    }
}

#[cfg(test)]
mod tests {
    use super::Routing;
    use crate::db::Protocol;

    #[test]
    fn an_engine_is_recognized_by_the_version_its_server_reports() {
        assert_eq!(super::recognized(Protocol::Mysql, "8.0.11-TiDB-v8.4.0").name(), "tidb");
        assert_eq!(super::recognized(Protocol::Mysql, "8.4.6-Vitess").name(), "vitess");
        assert_eq!(super::recognized(Protocol::Mysql, "11.4.5-MariaDB-log").name(), "mysql");
        assert!(super::only(Protocol::Mysql).is_none());
        assert_eq!(super::only(Protocol::Sqlite).map(|e| e.name()), Some("sqlite"));
    }

    #[test]
    fn scatter_share_is_the_share_of_routed_queries_that_reached_every_shard() {
        // Nothing routed: no share to give (not 0%, which would claim point queries).
        assert_eq!(Routing::default().scatter_share(), None);
        // Every query carries the sharding key: none scatters.
        assert_eq!(Routing { single: 10.0, multi: 0.0, scatter: 0.0 }.scatter_share(), Some(0.0));
        // Ten queries to one shard, four to both of two.
        let ro = Routing { single: 10.0, multi: 0.0, scatter: 4.0 }.scatter_share().unwrap();
        assert!((ro - 4.0 / 14.0).abs() < 1e-12, "{ro}");
        // Queries to several shards but not all count among the routed, not the scattered.
        assert_eq!(Routing { single: 1.0, multi: 2.0, scatter: 1.0 }.scatter_share(), Some(0.25));
        assert_eq!(Routing { single: 0.0, multi: 0.0, scatter: 3.0 }.scatter_share(), Some(1.0));
    }
}
