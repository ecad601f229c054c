//! Where a MySQL-family server's time goes, from performance_schema's
//! cumulative timers (picoseconds) and InnoDB's row-lock time: file I/O by
//! file kind and direction, table and metadata locks, latches (when their
//! instruments are on) and sockets. Each becomes a wait counter of seconds
//! ([`crate::db::waits::key`]).

use crate::db::facts::{rows, Server};
use crate::db::waits::{key, Class, UNRECORDED};
use crate::db::Conn;
use std::collections::BTreeMap;

/// Picoseconds in a second: performance_schema's timer unit.
const PS: f64 = 1e12;

/// File I/O time by file kind, read and write (the sync calls with the writes).
const FILES: &str = "SELECT EVENT_NAME, SUM_TIMER_READ, SUM_TIMER_WRITE, SUM_TIMER_MISC FROM performance_schema.file_summary_by_event_name WHERE COUNT_STAR > 0";

/// Every other timed wait. The handler's row access (`wait/io/table/`) is
/// the engine doing the work, not waiting: left out, like `idle`.
const OTHERS: &str = "SELECT EVENT_NAME, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name \
     WHERE SUM_TIMER_WAIT > 0 AND EVENT_NAME NOT LIKE 'wait/io/file/%' AND EVENT_NAME NOT LIKE 'wait/io/table/%' AND EVENT_NAME <> 'idle'";

/// InnoDB's row-lock waits, ms, among the status counters.
pub const ROW_LOCK_TIME: &str = "Innodb_row_lock_time";

/// Whether the server keeps performance_schema's timers.
pub fn schema_on(s: &Server) -> bool {
    s.var("performance_schema").is_some_and(|v| matches!(v.to_ascii_uppercase().as_str(), "ON" | "1"))
}

/// What is missing when performance_schema is off, in one line.
pub fn schema_off() -> String {
    format!("{UNRECORDED}performance_schema is OFF on this server, so only InnoDB's row-lock time is recorded: start it with performance_schema=ON")
}

/// A file's I/O: the redo log's and the binary log's are the log's; a
/// data file's reads are reads and its writes and syncs writes.
fn file_waits(event: &str, read: f64, write: f64, misc: f64, out: &mut BTreeMap<String, f64>) {
    let is_log = event.ends_with("innodb_log_file") || event.contains("/binlog") || event.ends_with("/ib_logfile");
    if is_log {
        *out.entry(key(Class::Log, event)).or_insert(0.0) += (read + write + misc) / PS;
        return;
    }
    if read > 0.0 {
        *out.entry(key(Class::DiskRead, event)).or_insert(0.0) += read / PS;
    }
    if write + misc > 0.0 {
        *out.entry(key(Class::DiskWrite, event)).or_insert(0.0) += (write + misc) / PS;
    }
}

/// The class of a timed wait other than file I/O.
pub fn class_of(event: &str) -> Class {
    if event.starts_with("wait/lock/") {
        Class::TableLock
    } else if event.starts_with("wait/synch/") {
        Class::Latch
    } else if event.starts_with("wait/io/socket/") {
        Class::Client
    } else {
        Class::Other
    }
}

/// The wait counters now: performance_schema's when `start` says it is
/// on, and InnoDB's row-lock time from `status` (already read).
pub async fn read(c: &mut Conn, start: &Server, status: &BTreeMap<String, f64>, errors: &mut Vec<String>) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    if let Some(ms) = status.get(ROW_LOCK_TIME) {
        out.insert(key(Class::RowLock, "innodb row lock"), ms / 1000.0);
    }
    if !schema_on(start) {
        return out;
    }
    let num = |r: &[String], i: usize| r.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    for r in rows(c, FILES, errors).await {
        if let Some(event) = r.first() {
            file_waits(event, num(&r, 1), num(&r, 2), num(&r, 3), &mut out);
        }
    }
    for r in rows(c, OTHERS, errors).await {
        if let Some(event) = r.first() {
            *out.entry(key(class_of(event), event)).or_insert(0.0) += num(&r, 1) / PS;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_logs_files_are_the_logs_and_data_files_split_by_direction() {
        let mut m = BTreeMap::new();
        file_waits("wait/io/file/innodb/innodb_log_file", 0.0, 2e12, 3e12, &mut m);
        file_waits("wait/io/file/sql/binlog", 0.0, 1e12, 0.0, &mut m);
        file_waits("wait/io/file/innodb/innodb_data_file", 4e12, 1e12, 1e12, &mut m);
        assert_eq!(m.get("wait:log:wait/io/file/innodb/innodb_log_file"), Some(&5.0));
        assert_eq!(m.get("wait:log:wait/io/file/sql/binlog"), Some(&1.0));
        assert_eq!(m.get("wait:read:wait/io/file/innodb/innodb_data_file"), Some(&4.0));
        assert_eq!(m.get("wait:write:wait/io/file/innodb/innodb_data_file"), Some(&2.0));
    }

    #[test]
    fn other_waits_by_their_instrument() {
        assert_eq!(class_of("wait/lock/table/sql/handler"), Class::TableLock);
        assert_eq!(class_of("wait/lock/metadata/sql/mdl"), Class::TableLock);
        assert_eq!(class_of("wait/synch/mutex/innodb/buf_pool_mutex"), Class::Latch);
        assert_eq!(class_of("wait/io/socket/sql/client_connection"), Class::Client);
        assert_eq!(class_of("wait/something/new"), Class::Other);
    }

    #[test]
    fn performance_schema_is_on_when_the_server_says_so() {
        let s = |v: &str| Server { variables: [("performance_schema".to_string(), v.to_string())].into_iter().collect(), ..Server::default() };
        assert!(schema_on(&s("ON")) && schema_on(&s("1")));
        assert!(!schema_on(&s("OFF")) && !schema_on(&Server::default()));
    }
}
