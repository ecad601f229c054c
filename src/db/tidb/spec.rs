//! TiDB as it describes itself. It speaks MySQL's protocol and accepts
//! MySQL's variables, but most `innodb_*` ones are no-ops there, its
//! `information_schema` sizes are statistics estimates, and what a commit
//! guarantees depends on its storage (TiKV, or the embedded unistore, in
//! memory or on disk), not on any InnoDB setting. So its facts come from
//! `tidb_version()`, its own variables, `SHOW CONFIG`,
//! `information_schema.cluster_info` and its status port's metrics.

use super::screen::Allowed;
use crate::db::engines::{on, Aspect, Common, Deviations, Digests, DurClass, Durability, Engine, Evidence, LocalFuture, Screen, SendFuture};
use crate::db::facts::{first_number, pairs, rows, tls_of, value, DatasetTables, Server};
use crate::db::{Conn, ConnConfig, Dialect, Protocol};
use crate::scrape;
use std::collections::BTreeMap;
use std::time::Duration;

pub struct Tidb;
pub static TIDB: Tidb = Tidb;

/// Write conflict in optimistic mode, and the schema changed under a
/// transaction (8022 at commit, 8028 on a table's schema version): TiDB's
/// answer to each is "retry the transaction".
const RETRYABLE: &[&str] = &["9007", "8022", "8028"];

/// `SHOW CONFIG` items of the TiDB servers that bear on a benchmark.
const CONFIG: &[&str] = &[
    "store",
    "path",
    "token-limit",
    "mem-quota-query",
    "enable-telemetry",
    "prepared-plan-cache.enabled",
    "performance.txn-total-size-limit",
    "performance.max-procs",
    "performance.tcp-keep-alive",
    "pessimistic-txn.max-retry-count",
    "tikv-client.async-commit.safe-window",
    "tikv-client.max-batch-size",
    "tikv-client.grpc-connection-count",
    "txn-local-latches.enabled",
    "status.status-port",
    "status.report-status",
    "log.level",
    "log.slow-threshold",
];

/// (key recorded, metric name, labels a series must have).
type Metric = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

/// Counters sampled from the status port every interval (cumulative ones
/// become deltas), named as TiDB publishes them; `name{label=value}` keeps
/// one labelled series apart.
const METRICS: &[Metric] = &[
    ("tidb_server_query_total", "tidb_server_query_total", &[]),
    ("tidb_server_query_total{result=Error}", "tidb_server_query_total", &[("result", "Error")]),
    ("tidb_session_transaction_total{type=commit}", "tidb_session_transaction_duration_seconds_count", &[("type", "commit")]),
    ("tidb_session_transaction_total{type=abort}", "tidb_session_transaction_duration_seconds_count", &[("type", "abort")]),
    ("tidb_server_execute_error_total", "tidb_server_execute_error_total", &[]),
    ("tidb_session_retry_num_total", "tidb_session_retry_num_count", &[]),
    ("tidb_tikvclient_txn_cmd_total{type=commit}", "tidb_tikvclient_txn_cmd_duration_seconds_count", &[("type", "commit")]),
    ("tidb_tikvclient_backoff_seconds_count", "tidb_tikvclient_backoff_seconds_count", &[]),
    ("tidb_server_plan_cache_total", "tidb_server_plan_cache_total", &[]),
    ("process_cpu_seconds_total", "process_cpu_seconds_total", &[]),
    ("go_gc_duration_seconds_count", "go_gc_duration_seconds_count", &[]),
    ("tidb_server_connections", "tidb_server_connections", &[]),
    ("process_resident_memory_bytes", "process_resident_memory_bytes", &[]),
    ("go_goroutines", "go_goroutines", &[]),
];
const GAUGES: &[&str] = &["tidb_server_connections", "process_resident_memory_bytes", "go_goroutines"];

/// How long one read of the status port may take: it runs between samples.
const SCRAPE_LIMIT: Duration = Duration::from_secs(2);

async fn metrics(url: &str, errors: &mut Vec<String>) -> BTreeMap<String, f64> {
    let text = match scrape::fetch(url, SCRAPE_LIMIT).await {
        Ok(t) => t,
        Err(e) => {
            errors.push(format!("TiDB's metrics: {e}"));
            return BTreeMap::new();
        }
    };
    let samples = scrape::parse(&text);
    METRICS.iter().filter_map(|(key, name, with)| Some((key.to_string(), scrape::sum(&samples, name, with)?))).collect()
}

/// The store a server runs on, from `tidb_version()`'s "Store:" line or its config.
fn store(s: &Server) -> Option<&str> {
    s.var("config.store")
}

/// Whether unistore keeps its data in a temp dir it drops (no `-path`).
fn volatile(path: &str) -> bool {
    path.is_empty() || path.contains("tidb-unistore-temp")
}

impl Engine for Tidb {
    fn name(&self) -> &'static str {
        "tidb"
    }

    fn protocol(&self) -> Protocol {
        Protocol::Mysql
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &crate::db::mysql::dialect::MysqlDialect
    }

    /// TiDB reports a MySQL version with its own after it: `8.0.11-TiDB-v8.4.0`.
    fn recognizes(&self, version: &str) -> bool {
        version.contains("-TiDB-")
    }

    fn capture<'a>(&'a self, c: &'a mut Conn, cfg: &'a ConnConfig, tables: &'a DatasetTables, s: &'a mut Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, ()> {
        Box::pin(async move {
            // InnoDB's variables are accepted and mean nothing here; the
            // configuration blob is recorded item by item below.
            let meaningful = |k: &String| !k.starts_with("innodb_") && k != "tidb_config";
            s.variables = pairs(rows(c, "SHOW GLOBAL VARIABLES", errors).await).into_iter().filter(|(k, _)| meaningful(k)).collect();
            let session = pairs(rows(c, "SHOW SESSION VARIABLES", errors).await);
            s.session = session.into_iter().filter(|(k, v)| meaningful(k) && s.variables.get(k).map(|g| g != v).unwrap_or(false)).collect();
            let release = value(c, "SELECT tidb_version()", errors).await.unwrap_or_default();
            let line = |key: &str| release.lines().find_map(|l| l.strip_prefix(key)).map(|v| v.trim().to_string());
            s.version = s.variables.get("version").cloned().unwrap_or_default();
            if let Some(edition) = line("Edition:") {
                s.version = format!("{} ({edition})", s.version);
            }
            let names: Vec<String> = CONFIG.iter().map(|n| format!("'{n}'")).collect();
            let config = rows(c, &format!("SHOW CONFIG WHERE type = 'tidb' AND name IN ({})", names.join(", ")), errors).await;
            for r in config.iter().filter(|r| r.len() >= 4) {
                s.variables.entry(format!("config.{}", r[2])).or_insert_with(|| r[3].clone());
            }
            if let Some(st) = line("Store:") {
                s.variables.entry("config.store".into()).or_insert(st);
            }
            for r in rows(c, "SELECT type, instance, status_address, version, start_time FROM information_schema.cluster_info ORDER BY type, instance", errors).await {
                if r.len() >= 5 {
                    let said: Vec<String> = [("status ", &r[2]), ("", &r[3]), ("up since ", &r[4])].iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| format!("{k}{v}")).collect();
                    s.members.push(format!("{} {} ({})", r[0], r[1], said.join(", ")));
                }
            }
            s.metrics_url = status_address(cfg, s).map(|a| format!("http://{a}/metrics"));
            // Table sizes in information_schema are estimates from statistics.
            let sql =
                format!("SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE() AND {}", tables.condition("table_name", false, false));
            s.dataset_bytes = first_number(&rows(c, &sql, errors).await);
            s.dataset_estimated = s.dataset_bytes.is_some();
            if let Some(url) = s.metrics_url.clone() {
                s.status = metrics(&url, errors).await;
            }
            let cipher = rows(c, "SHOW SESSION STATUS LIKE 'Ssl_cipher'", errors).await;
            (s.tls, s.tls_cipher) = tls_of(cipher.first().and_then(|r| r.get(1)).map(String::as_str));
            if c.config().server_time {
                match super::digests::view(s) {
                    Ok(v) => s.statements_view = Some(v),
                    Err(note) => errors.push(note),
                }
            }
        })
    }

    fn catalog<'a>(&'a self, c: &'a mut Conn, tables: &'a DatasetTables, errors: &'a mut Vec<String>) -> LocalFuture<'a, Vec<crate::db::catalog::TableShape>> {
        Box::pin(crate::db::mysql::catalog::read(c, tables, errors))
    }

    fn counters<'a>(&'a self, _c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, f64>> {
        Box::pin(async move {
            match &start.metrics_url {
                Some(url) => metrics(url, errors).await,
                None => BTreeMap::new(),
            }
        })
    }

    fn gauges(&self) -> &'static [&'static str] {
        GAUGES
    }

    fn durability(&self, s: &Server) -> Durability {
        let mut ev = Evidence::new(s);
        let store = ev.show("config.store").map(str::to_ascii_lowercase);
        let class = match store.as_deref() {
            Some("unistore") => match ev.show("config.path") {
                Some(p) if volatile(p) => {
                    ev.seen.push("unistore without a path keeps its data in a temp dir it drops".into());
                    DurClass::InMemory
                }
                Some(_) => {
                    ev.seen.push("unistore writes its files without syncing them".into());
                    DurClass::NotSynced
                }
                None => DurClass::Unknown,
            },
            Some("tikv") => {
                ev.seen.push("TiKV syncs its raft log on a majority of replicas before a commit returns".into());
                DurClass::Synced
            }
            _ => DurClass::Unknown,
        };
        Durability { class, evidence: ev.seen, torn_pages: None }
    }

    fn cache_setting(&self) -> &'static str {
        "TiKV's storage.block-cache.capacity"
    }

    fn commit_settings(&self, s: &Server) -> Vec<(&'static str, String)> {
        ["tidb_txn_mode", "tidb_enable_async_commit", "tidb_enable_1pc"]
            .into_iter()
            .map(|n| {
                let v = s.var(n).unwrap_or("").to_string();
                // An empty transaction mode is the default: pessimistic since TiDB 3.0.8.
                (n, if n == "tidb_txn_mode" && v.is_empty() { "pessimistic".to_string() } else { v.to_ascii_lowercase() })
            })
            .collect()
    }

    fn measured(&self) -> &'static [crate::db::measured::Measured] {
        super::measured::MEASURED
    }

    fn common_settings(&self, s: &Server) -> Vec<(Aspect, Common)> {
        let mut out = Vec::new();
        let d = self.durability(s);
        let call = match d.class {
            DurClass::Synced => "fsync() on a majority of replicas",
            DurClass::InMemory | DurClass::NotSynced => "none",
            _ => "unknown",
        };
        out.push((Aspect::LogSync, Common::new(call, format!("store = {}: {call}", store(s).unwrap_or("?")))));
        let tokens = s.var("config.token-limit").map(|t| format!(", token-limit = {t}")).unwrap_or_default();
        let max = s.var("max_connections").map(|m| format!("max_connections = {m}")).unwrap_or_default();
        out.push((Aspect::Connections, Common::new("one worker per connection", format!("a goroutine per connection: {max}{tokens}"))));
        out
    }

    fn deviations(&self) -> Option<&dyn Deviations> {
        Some(self)
    }

    fn digests(&self) -> Option<&dyn Digests> {
        Some(self)
    }
}

impl Deviations for Tidb {
    fn retryable(&self) -> &'static [&'static str] {
        RETRYABLE
    }

    fn stored_routines(&self) -> bool {
        false
    }

    fn screen<'a>(&'a self, c: &'a mut Conn, session: &'a [String]) -> SendFuture<'a, Option<Screen>> {
        Box::pin(async move {
            let mut errors = Vec::new();
            let r = rows(c, "SELECT @@global.tidb_enable_noop_functions, @@global.tidb_skip_isolation_level_check", &mut errors).await;
            let v = |i: usize| on(r.first().and_then(|r| r.get(i)).map(String::as_str)).unwrap_or(false);
            Some(Allowed::from(v(0), v(1), session).screen())
        })
    }
}

impl Digests for Tidb {
    fn statements<'a>(&'a self, c: &'a mut Conn, start: &'a Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, crate::db::digests::Digest>> {
        Box::pin(super::digests::read(c, start, errors))
    }
}

/// Where this server publishes its metrics: the host the target reaches
/// it on, and the status port its configuration names.
fn status_address(cfg: &ConnConfig, s: &Server) -> Option<String> {
    let port = s.var("config.status.status-port")?;
    if s.var("config.status.report-status").is_some_and(|v| v.eq_ignore_ascii_case("false")) {
        return None;
    }
    Some(cfg.target.status_address(port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(vars: &[(&str, &str)]) -> Server {
        Server { engine: "tidb".into(), variables: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(), ..Server::default() }
    }

    #[test]
    fn durability_follows_the_store_not_innodb() {
        let mem = server(&[("config.store", "unistore"), ("config.path", ""), ("innodb_flush_log_at_trx_commit", "1")]);
        let d = TIDB.durability(&mem);
        assert_eq!(d.class, DurClass::InMemory);
        assert!(!d.evidence.join(" ").contains("innodb"));
        assert_eq!(TIDB.durability(&server(&[("config.store", "unistore"), ("config.path", "/tmp/tidb-unistore-temp123")])).class, DurClass::InMemory);
        assert_eq!(TIDB.durability(&server(&[("config.store", "unistore"), ("config.path", "/data/tidb")])).class, DurClass::NotSynced);
        assert_eq!(TIDB.durability(&server(&[("config.store", "tikv"), ("config.path", "pd1:2379")])).class, DurClass::Synced);
        assert_eq!(TIDB.durability(&server(&[])).class, DurClass::Unknown);
    }

    #[test]
    fn commit_settings_name_the_default_mode() {
        let s = server(&[("tidb_txn_mode", ""), ("tidb_enable_async_commit", "ON"), ("tidb_enable_1pc", "OFF")]);
        assert_eq!(TIDB.commit_settings(&s), vec![("tidb_txn_mode", "pessimistic".to_string()), ("tidb_enable_async_commit", "on".to_string()), ("tidb_enable_1pc", "off".to_string())]);
    }

    #[test]
    fn a_tidb_version_is_recognized_and_a_mysql_one_is_not() {
        assert!(TIDB.recognizes("8.0.11-TiDB-v8.4.0-alpha-9-ge4e814f"));
        assert!(!TIDB.recognizes("10.11.6-MariaDB-0+deb12u1"));
        assert!(!TIDB.recognizes("8.0.36"));
    }
}
