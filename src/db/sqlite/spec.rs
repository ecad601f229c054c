//! SQLite as it describes itself: its PRAGMAs, the pages of a workload's
//! tables (dbstat), and what synchronous and journal_mode guarantee.

use crate::db::engines::{DurClass, Durability, Engine, Evidence, LocalFuture};
use crate::db::facts::{rows, value, DatasetTables, Server};
use crate::db::{Conn, ConnConfig, Dialect, Protocol};
use std::collections::BTreeMap;

pub struct Sqlite;
pub static SQLITE: Sqlite = Sqlite;

const PRAGMAS: &[&str] = &["synchronous", "journal_mode", "cache_size", "page_size", "page_count", "mmap_size", "wal_autocheckpoint", "locking_mode", "temp_store", "foreign_keys", "cache_spill"];

/// `dbstat` names every b-tree, tables and indexes alike: a prefix matches
/// both, a list of tables is widened to their indexes.
fn btrees(tables: &DatasetTables) -> String {
    match tables {
        DatasetTables::Prefix(_) => tables.condition("name", true, false),
        DatasetTables::Names(_) => format!("name IN (SELECT name FROM sqlite_master WHERE {})", tables.condition("tbl_name", false, false)),
    }
}

impl Engine for Sqlite {
    fn name(&self) -> &'static str {
        "sqlite"
    }

    fn protocol(&self) -> Protocol {
        Protocol::Sqlite
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &super::dialect::LiteDialect
    }

    fn capture<'a>(&'a self, c: &'a mut Conn, _cfg: &'a ConnConfig, tables: &'a DatasetTables, s: &'a mut Server, errors: &'a mut Vec<String>) -> LocalFuture<'a, ()> {
        Box::pin(async move {
            for p in PRAGMAS {
                if let Some(v) = value(c, &format!("PRAGMA {p}"), errors).await {
                    s.variables.insert(p.to_string(), v);
                }
            }
            s.version = value(c, "SELECT sqlite_version()", errors).await.unwrap_or_default();
            if c.config().server_time {
                // Nothing to sample: the engine is fairbench's own process, timed by the hardware table.
                errors.push(format!("{}SQLite keeps no wait events nor statement statistics: its time per transaction is fairbench's CPU in the table above", crate::db::waits::UNRECORDED));
            }
            let num = |k: &str| s.variables.get(k).and_then(|v| v.parse::<i64>().ok());
            let page = num("page_size").unwrap_or(4096);
            // cache_size: negative is KiB, positive is pages.
            let cache = num("cache_size").map(|c| if c < 0 { -c * 1024 } else { c * page }).unwrap_or(0);
            s.cache_bytes = Some((cache.max(num("mmap_size").unwrap_or(0))) as u64);
            // dbstat is missing from some builds: the page count answers then, unrecorded as an error.
            let size = rows(c, &format!("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE {}", btrees(tables)), &mut Vec::new()).await;
            s.dataset_bytes =
                size.first().and_then(|r| r.first()).and_then(|v| v.parse::<f64>().ok()).filter(|v| *v > 0.0).map(|v| v as u64).or_else(|| Some((num("page_count").unwrap_or(0) * page) as u64));
        })
    }

    fn catalog<'a>(&'a self, c: &'a mut Conn, tables: &'a DatasetTables, errors: &'a mut Vec<String>) -> LocalFuture<'a, Vec<crate::db::catalog::TableShape>> {
        Box::pin(super::catalog::read(c, tables, errors))
    }

    fn counters<'a>(&'a self, _c: &'a mut Conn, _start: &'a Server, _errors: &'a mut Vec<String>) -> LocalFuture<'a, BTreeMap<String, f64>> {
        Box::pin(async { BTreeMap::new() })
    }

    fn measured(&self) -> &'static [crate::db::measured::Measured] {
        super::measured::MEASURED
    }

    fn durability(&self, s: &Server) -> Durability {
        let mut ev = Evidence::new(s);
        let sync = ev.show("synchronous").map(str::to_ascii_lowercase);
        let jm = ev.show("journal_mode").map(str::to_ascii_lowercase);
        let class = match (sync.as_deref(), jm.as_deref()) {
            (None, _) | (_, None) => DurClass::Unknown,
            (_, Some("off")) | (_, Some("memory")) => DurClass::NotSynced,
            (Some("0") | Some("off"), _) => DurClass::NotSynced,
            // WAL + NORMAL syncs at checkpoints only: recent commits can roll back after power loss.
            (Some("1") | Some("normal"), Some("wal")) => DurClass::PerSecond,
            _ => DurClass::Synced,
        };
        Durability { class, evidence: ev.seen, torn_pages: None }
    }

    fn cache_setting(&self) -> &'static str {
        "cache_size/mmap_size"
    }
}
