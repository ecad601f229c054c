//! Durability, normalised across engines: what a commit guarantees, read
//! from a server's settings. The audit compares it between runs; the
//! environment text and `compare` show it.

use super::Server;

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
    Unknown,
}

impl DurClass {
    pub fn name(self) -> &'static str {
        match self {
            DurClass::Synced => "every commit flushed and synced",
            DurClass::PerSecond => "flushed about once per second",
            DurClass::NotSynced => "not synced",
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

fn on(v: Option<&str>) -> Option<bool> {
    v.map(|v| matches!(v.to_ascii_lowercase().as_str(), "on" | "1" | "true" | "yes"))
}

pub fn durability(s: &Server) -> Durability {
    let mut ev = Vec::new();
    let mut show = |n: &str| {
        if let Some(v) = s.var(n) {
            ev.push(format!("{n}={v}"));
        }
        s.var(n)
    };
    match s.engine.as_str() {
        "mysql" => {
            let trx = show("innodb_flush_log_at_trx_commit");
            let log_bin = on(show("log_bin"));
            let sql_log_bin = on(show("sql_log_bin"));
            let sync_binlog = show("sync_binlog").and_then(|v| v.parse::<u64>().ok());
            let method = show("innodb_flush_method").map(str::to_ascii_lowercase);
            let dw = show("innodb_doublewrite").map(|v| !matches!(v.to_ascii_lowercase().as_str(), "off" | "0"));
            let class = match trx {
                None => DurClass::Unknown,
                Some(_) if method.as_deref().map(|m| m.contains("nosync")).unwrap_or(false) => DurClass::NotSynced,
                Some("1") | Some("3") => {
                    // The binary log is part of the commit when it is on for the session.
                    if log_bin == Some(true) && sql_log_bin != Some(false) && sync_binlog != Some(1) {
                        DurClass::PerSecond
                    } else {
                        DurClass::Synced
                    }
                }
                Some(_) => DurClass::PerSecond,
            };
            Durability { class, evidence: ev, torn_pages: dw }
        }
        "postgres" => {
            let fsync = on(show("fsync"));
            let sc = show("synchronous_commit").map(str::to_ascii_lowercase);
            let fpw = on(show("full_page_writes"));
            show("wal_sync_method");
            let class = match (fsync, sc.as_deref()) {
                (None, _) | (_, None) => DurClass::Unknown,
                (Some(false), _) => DurClass::NotSynced,
                (Some(true), Some("off")) => DurClass::PerSecond,
                _ => DurClass::Synced,
            };
            Durability { class, evidence: ev, torn_pages: fpw }
        }
        "sqlite" => {
            let sync = show("synchronous").map(str::to_ascii_lowercase);
            let jm = show("journal_mode").map(str::to_ascii_lowercase);
            let class = match (sync.as_deref(), jm.as_deref()) {
                (None, _) | (_, None) => DurClass::Unknown,
                (_, Some("off")) | (_, Some("memory")) => DurClass::NotSynced,
                (Some("0") | Some("off"), _) => DurClass::NotSynced,
                // WAL + NORMAL syncs at checkpoints only: recent commits can roll back after power loss.
                (Some("1") | Some("normal"), Some("wal")) => DurClass::PerSecond,
                _ => DurClass::Synced,
            };
            Durability { class, evidence: ev, torn_pages: None }
        }
        _ => Durability { class: DurClass::Unknown, evidence: ev, torn_pages: None },
    }
}
