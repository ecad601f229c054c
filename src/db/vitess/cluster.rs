//! A Vitess cluster as a snapshot records it: vtgate's version and
//! settings, the keyspaces, shards and tablets it routes to, the status
//! APIs of vtgate and of the tablets, and, shard by shard, the settings of
//! the MySQL server behind the primary tablet, read through vtgate by
//! targeting the shard (`USE `keyspace:shard``) and always returning to
//! the run's keyspace afterwards. Also the counters sampled every interval.

use super::vars;
use crate::db::facts::{first_number, pairs, rows, DatasetTables, Server};
use crate::db::hosts::{address, host_port};
use crate::db::sharding::ident;
use crate::db::{Conn, ConnConfig};
use crate::scrape;
use std::collections::BTreeMap;
use std::time::Duration;

/// How long one read of a status API may take: it runs between samples.
const SCRAPE_LIMIT: Duration = Duration::from_secs(2);
/// How long the guess of vtgate's status port may take to answer.
const PROBE_LIMIT: Duration = Duration::from_millis(800);

/// Settings of each shard's MySQL server, recorded as `shard.SHARD.NAME`:
/// what a commit guarantees, the cache and the log, connections, replication.
const SHARD_SETTINGS: &[&str] = &[
    "version",
    "version_comment",
    "datadir",
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "log_bin",
    "sql_log_bin",
    "binlog_format",
    "innodb_doublewrite",
    "innodb_flush_method",
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_log_files_in_group",
    "innodb_redo_log_capacity",
    "innodb_log_buffer_size",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_read_io_threads",
    "innodb_write_io_threads",
    "max_connections",
    "thread_handling",
    "thread_pool_size",
    "transaction_isolation",
    "tx_isolation",
    "gtid_mode",
    "rpl_semi_sync_master_enabled",
    "rpl_semi_sync_master_wait_point",
    "rpl_semi_sync_source_enabled",
    "rpl_semi_sync_source_wait_point",
];

/// vtgate's flags recorded as `vtgate.NAME` when its command line sets them
/// (absent: Vitess's default).
const VTGATE_FLAGS: &[&str] = &[
    "transaction-mode",
    "planner-version",
    "mysql-default-workload",
    "mysql-server-version",
    "no-scatter",
    "enable-buffer",
    "enable-system-settings",
    "normalize-queries",
    "max-memory-rows",
    "max-payload-size",
    "query-timeout",
    "mysql-server-query-timeout",
    "retry-count",
    "default-tablet-type",
    "tablet-types-to-wait",
    "cells-to-watch",
    "warn-sharded-only",
    "gate-query-cache-memory",
];

/// A primary tablet's flags recorded as `shard.SHARD.vttablet.NAME`: the
/// MySQL server it fronts, its pools and timeouts. (Its command line also
/// holds passwords: only these are read.)
const TABLET_FLAGS: &[&str] = &[
    "db-socket",
    "db-host",
    "db-port",
    "init-db-name-override",
    "unmanaged",
    "queryserver-config-pool-size",
    "queryserver-config-stream-pool-size",
    "queryserver-config-transaction-cap",
    "queryserver-config-transaction-timeout",
    "queryserver-config-txpool-timeout",
    "queryserver-config-query-timeout",
    "queryserver-config-max-result-size",
    "enable-consolidator",
];

/// The run's keyspace: the target's database without a shard or tablet
/// type (`ks:-80`, `ks@replica`).
pub fn keyspace_of(database: &str) -> &str {
    database.split([':', '@']).next().unwrap_or(database)
}

/// The shards of `keyspace` as vtgate lists them (`-80`, `80-`).
pub async fn keyspace_shards(c: &mut Conn, keyspace: &str, errors: &mut Vec<String>) -> Vec<String> {
    let listed = rows(c, "SHOW VITESS_SHARDS", errors).await;
    listed.into_iter().filter_map(|r| r.into_iter().next()).filter_map(|ks| ks.split_once('/').filter(|(k, _)| *k == keyspace).map(|(_, sh)| sh.to_string())).collect()
}

/// The shards of the run's keyspace, as the snapshot lists them.
pub fn shards(s: &Server) -> Vec<String> {
    s.var("shards").unwrap_or("").split(',').filter(|x| !x.is_empty()).map(String::from).collect()
}

/// A row of `SHOW VITESS_TABLETS`.
struct Tablet {
    keyspace: String,
    shard: String,
    kind: String,
    state: String,
    alias: String,
    host: String,
}

async fn tablets(c: &mut Conn, errors: &mut Vec<String>) -> Vec<Tablet> {
    // Cell, Keyspace, Shard, TabletType, State, Alias, Hostname, PrimaryTermStartTime
    let r = rows(c, "SHOW VITESS_TABLETS", errors).await;
    r.into_iter().filter(|r| r.len() >= 7).map(|r| Tablet { keyspace: r[1].clone(), shard: r[2].clone(), kind: r[3].clone(), state: r[4].clone(), alias: r[5].clone(), host: r[6].clone() }).collect()
}

/// vtgate's status API (`host:port`) and its `/debug/vars` when they
/// answered: at the target's `status-port`, or at the port after its MySQL
/// port (vtgate's usual layout) when what answers there is vtgate.
async fn vtgate_status(cfg: &ConnConfig, errors: &mut Vec<String>) -> Option<(String, Option<serde_json::Value>)> {
    if let Some(p) = cfg.target.status_port {
        let addr = cfg.target.status_address(p);
        return match scrape::fetch_json(&format!("http://{addr}/debug/vars"), SCRAPE_LIMIT).await {
            Ok(v) => Some((addr, Some(v))),
            Err(e) => {
                errors.push(format!("vtgate's status API (status-port={p}): {e}"));
                Some((addr, None))
            }
        };
    }
    let guess = if cfg.target.socket.is_some() { None } else { cfg.target.hosts.first().and_then(|h| h.1.checked_add(1)) };
    if let Some(p) = guess {
        let addr = cfg.target.status_address(p);
        if let Ok(v) = scrape::fetch_json(&format!("http://{addr}/debug/vars"), PROBE_LIMIT).await {
            if vars::is_vtgate(&v) {
                return Some((addr, Some(v)));
            }
        }
    }
    let tried = guess.map(|p| format!(" and port {p} does not answer as vtgate's")).unwrap_or_default();
    errors.push(format!("vtgate's status API: the target names no status port{tried}; add ?status-port=N (vtgate's --port) to the target URL to record its counters"));
    None
}

/// Reads the cluster into `s` (see the module's description).
pub async fn capture(c: &mut Conn, cfg: &ConnConfig, tables: &DatasetTables, s: &mut Server, errors: &mut Vec<String>) {
    let database = cfg.target.database.clone();
    let keyspace = keyspace_of(&database).to_string();
    let own: [(&[&str], &str); 2] = [(&["version", "version_comment"], "SELECT @@version, @@version_comment"), (&["transaction_mode", "workload"], "SELECT @@transaction_mode, @@workload")];
    for (names, sql) in own {
        if let Some(r) = rows(c, sql, errors).await.into_iter().next() {
            for (n, v) in names.iter().zip(r) {
                s.variables.insert(n.to_string(), v);
            }
        }
    }
    let first = |r: Vec<Vec<String>>| -> Vec<String> { r.into_iter().filter_map(|r| r.into_iter().next()).collect() };
    let keyspaces = first(rows(c, "SHOW VITESS_KEYSPACES", errors).await);
    let shards = keyspace_shards(c, &keyspace, errors).await;
    s.variables.insert("keyspace".into(), keyspace.clone());
    s.variables.insert("keyspaces".into(), keyspaces.join(","));
    s.variables.insert("shards".into(), shards.join(","));
    let tablets = tablets(c, errors).await;

    let status = vtgate_status(cfg, errors).await;
    let mut release = None;
    let mut seen = Vec::new();
    // A status port given that does not answer is said once, not per read.
    let answered = status.as_ref().is_some_and(|(_, v)| v.is_some());
    if let Some((addr, v)) = &status {
        s.metrics_url = Some(format!("http://{addr}/debug/vars"));
        if let Some(v) = v {
            release = v["BuildVersion"].as_str().filter(|r| !r.is_empty()).map(String::from);
            let f = vars::flags(&v["cmdline"]);
            for n in VTGATE_FLAGS {
                if let Some(x) = f.get(*n) {
                    s.variables.insert(format!("vtgate.{n}"), x.clone());
                }
            }
        }
        if answered {
            match scrape::fetch_json(&format!("http://{addr}/api/health-check/"), SCRAPE_LIMIT).await {
                Ok(h) => seen = vars::health_check(&h),
                Err(e) => errors.push(format!("vtgate's tablets: {e}")),
            }
        }
    }
    let version = s.variables.get("version").cloned().unwrap_or_default();
    release = release.or_else(|| s.variables.get("version_comment").and_then(|c| vars::release(c)));
    s.version = match &release {
        Some(r) => format!("{version} (Vitess {r})"),
        None => version,
    };
    if let Some(r) = &release {
        s.variables.insert("vitess.release".into(), r.clone());
    }
    for t in &tablets {
        s.variables.insert(format!("tablet.{}.shard", t.alias), vars::shard_label(&t.keyspace, &t.shard, &keyspace));
        s.variables.insert(format!("tablet.{}.type", t.alias), t.kind.clone());
        if let Some(st) = seen.iter().find(|x| x.alias == t.alias).and_then(|x| x.status.clone()) {
            s.variables.insert(format!("tablet.{}.status", t.alias), st);
        }
    }
    for shard in &shards {
        let Some(p) = tablets.iter().find(|t| t.keyspace == keyspace && t.shard == *shard && t.kind.eq_ignore_ascii_case("primary")) else {
            errors.push(format!("shard {shard}: vtgate lists no primary tablet"));
            continue;
        };
        s.variables.insert(format!("shard.{shard}.primary"), p.alias.clone());
        let here = seen.iter().find(|x| x.alias == p.alias);
        let mut db = here.and_then(|x| x.mysql.clone());
        if let Some(st) = here.and_then(|x| x.status.as_ref()) {
            match scrape::fetch_json(&format!("http://{st}/debug/vars"), SCRAPE_LIMIT).await {
                Ok(tv) => {
                    let f = vars::flags(&tv["cmdline"]);
                    for n in TABLET_FLAGS {
                        if let Some(x) = f.get(*n) {
                            s.variables.insert(format!("shard.{shard}.vttablet.{n}"), x.clone());
                        }
                    }
                    let tcp = f.get("db-host").map(|h| address(h, f.get("db-port").and_then(|p| p.parse::<u16>().ok()).unwrap_or(3306)));
                    db = f.get("db-socket").cloned().or(tcp).or(db);
                }
                Err(e) => errors.push(format!("tablet {}'s status API: {e}", p.alias)),
            }
        }
        if let Some(d) = db {
            s.variables.insert(format!("shard.{shard}.db_address"), d);
        }
    }
    shard_settings(c, &keyspace, &database, &shards, tables, s, errors).await;

    let gate = cfg.target.hosts.first().map(host_port).unwrap_or_default();
    let gate = cfg.target.socket.clone().unwrap_or(gate);
    let said: Vec<String> = [release.map(|r| format!("Vitess {r}")), status.map(|(a, _)| format!("status {a}"))].into_iter().flatten().collect();
    let said = if said.is_empty() { String::new() } else { format!(" ({})", said.join(", ")) };
    s.members.push(format!("vtgate {gate}{said}"));
    for t in &tablets {
        let mut said = Vec::new();
        if let Some(st) = s.variables.get(&format!("tablet.{}.status", t.alias)) {
            said.push(format!("status {st}"));
        }
        let ours = t.keyspace == keyspace && s.variables.get(&format!("shard.{}.primary", t.shard)) == Some(&t.alias);
        if ours {
            let v = |n: &str| s.var(&format!("shard.{}.{n}", t.shard)).map(String::from);
            let at = v("db_address").map(|a| format!(" at {a}")).unwrap_or_default();
            if let Some(version) = v("version") {
                said.push(format!("MySQL server {version}{at}"));
            }
        }
        let said = if said.is_empty() { String::new() } else { format!(" ({})", said.join(", ")) };
        s.members.push(format!("vttablet {}: {}/{} {} {} on {}{said}", t.alias, t.keyspace, t.shard, t.kind, t.state, t.host));
    }
    if answered {
        s.status = sample(s, errors).await;
    }
}

/// Each shard's settings, dataset and cache, through vtgate by targeting
/// the shard; the connection goes back to the run's database afterwards,
/// whatever failed on the way.
async fn shard_settings(c: &mut Conn, keyspace: &str, database: &str, shards: &[String], tables: &DatasetTables, s: &mut Server, errors: &mut Vec<String>) {
    let names: Vec<String> = SHARD_SETTINGS.iter().map(|n| format!("'{n}'")).collect();
    let names = names.join(", ");
    let dataset = format!("SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE() AND {}", tables.condition("table_name", false, false));
    let (mut bytes, mut cache) = (None::<u64>, None::<u64>);
    for shard in shards {
        if let Err(e) = c.query(&format!("USE {}", ident(&format!("{keyspace}:{shard}")))).await {
            errors.push(format!("shard {shard}: cannot target it: {}", e.message));
            continue;
        }
        let global = pairs(rows(c, &format!("SHOW GLOBAL VARIABLES WHERE Variable_name IN ({names})"), errors).await);
        let session = pairs(rows(c, &format!("SHOW SESSION VARIABLES WHERE Variable_name IN ({names})"), errors).await);
        for (k, v) in &global {
            s.variables.insert(format!("shard.{shard}.{k}"), v.clone());
        }
        for (k, v) in session {
            match global.get(&k) {
                Some(g) if *g != v => {
                    s.session.insert(format!("shard.{shard}.{k}"), v);
                }
                None => {
                    s.variables.insert(format!("shard.{shard}.{k}"), v);
                }
                _ => {}
            }
        }
        if let Some(b) = first_number(&rows(c, &dataset, errors).await) {
            *bytes.get_or_insert(0) += b;
        }
        if let Some(b) = global.get("innodb_buffer_pool_size").and_then(|v| v.parse::<u64>().ok()) {
            *cache.get_or_insert(0) += b;
        }
    }
    if let Err(e) = c.query(&format!("USE {}", ident(database))).await {
        errors.push(format!("back to {database} after reading the shards: {}", e.message));
    }
    s.dataset_bytes = bytes;
    s.cache_bytes = cache;
}

/// The counters now: vtgate's `/debug/vars`, and the CPU seconds of vtgate
/// and of the run's keyspace's tablets from their `/metrics`, read at once.
pub async fn sample(start: &Server, errors: &mut Vec<String>) -> BTreeMap<String, f64> {
    let Some(url) = &start.metrics_url else { return BTreeMap::new() };
    let keyspace = start.var("keyspace").unwrap_or("");
    let base = url.trim_end_matches("/debug/vars");
    let mut cpus = vec![("vtgate.process_cpu_seconds_total".to_string(), format!("{base}/metrics"))];
    for (k, addr) in &start.variables {
        let Some(alias) = k.strip_prefix("tablet.").and_then(|a| a.strip_suffix(".status")) else { continue };
        let shard = start.var(&format!("tablet.{alias}.shard")).unwrap_or("");
        // Tablets of other keyspaces carry `keyspace/` in their label.
        if !shard.contains('/') {
            cpus.push((format!("vttablet.process_cpu_seconds_total{{shard={shard},tablet={alias}}}"), format!("http://{addr}/metrics")));
        }
    }
    let reads = cpus.iter().map(|(_, u)| async move { scrape::fetch(u, SCRAPE_LIMIT).await });
    let (vars, texts) = tokio::join!(scrape::fetch_json(url, SCRAPE_LIMIT), futures_util::future::join_all(reads));
    let mut m = match vars {
        Ok(v) => vars::counters(&v, keyspace, &shards(start)),
        Err(e) => {
            errors.push(format!("vtgate's counters: {e}"));
            BTreeMap::new()
        }
    };
    for ((key, _), text) in cpus.into_iter().zip(texts) {
        match text {
            Ok(t) => {
                if let Some(v) = scrape::sum(&scrape::parse(&t), "process_cpu_seconds_total", &[]) {
                    m.insert(key, v);
                }
            }
            Err(e) => errors.push(format!("{key}: {e}")),
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keyspace_is_the_database_without_a_shard_or_tablet_type() {
        assert_eq!(keyspace_of("sbtest"), "sbtest");
        assert_eq!(keyspace_of("sbtest:-80"), "sbtest");
        assert_eq!(keyspace_of("sbtest@replica"), "sbtest");
        assert_eq!(ident("sbtest:-80"), "`sbtest:-80`");
        assert_eq!(ident("a`b"), "`a``b`");
    }
}
