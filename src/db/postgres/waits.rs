//! What PostgreSQL's sessions wait on, from `pg_stat_activity` sampled ten
//! times a second: its cumulative statistics count no time per wait event,
//! so the time of each is the share of samples that caught a session in it
//! (a session active with no wait event is on CPU).

use crate::db::waits::{key, Class};

/// The run's sessions: those with its application name, but the sampling
/// session itself; the role and state columns as [`wait_of`] reads them.
pub fn activity_sql(application_name: &str) -> String {
    format!(
        "SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE application_name = '{}' AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
        application_name.replace('\'', "''")
    )
}

/// The class of a wait event (`wait_event_type`, `wait_event`).
pub fn class_of(kind: &str, event: &str) -> Class {
    match kind {
        "IO" if event.starts_with("WAL") => Class::Log,
        "IO" if event.contains("Read") || event.contains("Prefetch") => Class::DiskRead,
        "IO" => Class::DiskWrite,
        // WALWrite, WALInsert, WALBufMapping: the log's own locks.
        "LWLock" if event.starts_with("WAL") => Class::Log,
        "LWLock" | "BufferPin" => Class::Latch,
        // A row's transaction or the tuple lock queued in front of it.
        "Lock" if matches!(event, "transactionid" | "tuple") => Class::RowLock,
        "Lock" => Class::TableLock,
        "Client" => Class::Client,
        "IPC" if event.starts_with("SyncRep") => Class::Replication,
        _ => Class::Other,
    }
}

/// A row of [`activity_sql`] as its wait counter: CPU when active and not
/// waiting, the client while idle (waiting for the next statement); None
/// when the server does not track activity.
pub fn wait_of(row: &[Option<String>]) -> Option<String> {
    let get = |i: usize| row.get(i).and_then(|v| v.as_deref()).filter(|v| !v.is_empty());
    let state = get(0)?;
    match (get(1), get(2)) {
        (Some(kind), Some(event)) => Some(key(class_of(kind, event), event)),
        _ if state == "active" => Some(key(Class::Cpu, "CPU")),
        _ if state.starts_with("idle") => Some(key(Class::Client, "ClientRead")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(state: &str, kind: Option<&str>, event: Option<&str>) -> Vec<Option<String>> {
        vec![Some(state.into()), kind.map(String::from), event.map(String::from)]
    }

    #[test]
    fn each_wait_event_lands_in_its_class() {
        assert_eq!(wait_of(&row("active", Some("IO"), Some("WALSync"))), Some("wait:log:WALSync".into()));
        assert_eq!(wait_of(&row("active", Some("LWLock"), Some("WALWrite"))), Some("wait:log:WALWrite".into()));
        assert_eq!(wait_of(&row("active", Some("IO"), Some("DataFileRead"))), Some("wait:read:DataFileRead".into()));
        assert_eq!(wait_of(&row("active", Some("IO"), Some("DataFileExtend"))), Some("wait:write:DataFileExtend".into()));
        assert_eq!(wait_of(&row("active", Some("Lock"), Some("transactionid"))), Some("wait:row_lock:transactionid".into()));
        assert_eq!(wait_of(&row("active", Some("Lock"), Some("tuple"))), Some("wait:row_lock:tuple".into()));
        assert_eq!(wait_of(&row("active", Some("Lock"), Some("relation"))), Some("wait:table_lock:relation".into()));
        assert_eq!(wait_of(&row("active", Some("LWLock"), Some("BufferContent"))), Some("wait:latch:BufferContent".into()));
        assert_eq!(wait_of(&row("active", Some("IPC"), Some("SyncRep"))), Some("wait:replication:SyncRep".into()));
        assert_eq!(wait_of(&row("active", None, None)), Some("wait:cpu:CPU".into()));
        assert_eq!(wait_of(&row("idle", Some("Client"), Some("ClientRead"))), Some("wait:client:ClientRead".into()));
        assert_eq!(wait_of(&row("idle in transaction", None, None)), Some("wait:client:ClientRead".into()));
        assert_eq!(wait_of(&[None, None, None]), None);
    }

    #[test]
    fn the_application_name_is_quoted() {
        assert!(activity_sql("it's").contains("application_name = 'it''s'"));
    }
}
