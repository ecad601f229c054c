//! Where a server's time goes, in classes every engine maps its own wait
//! events to: the time its sessions spent on CPU, reading data, writing
//! and syncing the log, waiting on row or table locks, on latches and
//! buffers, on the client, on replicas. An engine reports each wait as a
//! cumulative counter of seconds named [`key`]`(class, its own event
//! name)`, among its other counters, so that every sample carries the
//! movement of each, and a level's time per transaction by class and by
//! event is read from the same window as its throughput.

/// What a session was doing, as the classes compared across engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Cpu,
    DiskRead,
    DiskWrite,
    Log,
    RowLock,
    TableLock,
    Latch,
    Client,
    Replication,
    Other,
}

pub const CLASSES: &[Class] = &[Class::Cpu, Class::DiskRead, Class::DiskWrite, Class::Log, Class::RowLock, Class::TableLock, Class::Latch, Class::Client, Class::Replication, Class::Other];

/// How an engine's note on what it cannot record of its waits begins,
/// among a snapshot's errors: a run's summary repeats such notes.
pub const UNRECORDED: &str = "where the server's time goes: ";

/// Counters named `wait:CLASS:EVENT` are seconds spent in EVENT.
const PREFIX: &str = "wait:";

impl Class {
    /// As a sentence says it ("spends 310 µs more in log write and sync").
    pub fn name(self) -> &'static str {
        match self {
            Class::Cpu => "CPU",
            Class::DiskRead => "disk reads",
            Class::DiskWrite => "data writes",
            Class::Log => "log write and sync",
            Class::RowLock => "row locks",
            Class::TableLock => "table and metadata locks",
            Class::Latch => "latches and buffers",
            Class::Client => "the client and network",
            Class::Replication => "replication",
            Class::Other => "other waits",
        }
    }

    /// As a counter's name holds it (and a CSV column's).
    pub fn tag(self) -> &'static str {
        match self {
            Class::Cpu => "cpu",
            Class::DiskRead => "read",
            Class::DiskWrite => "write",
            Class::Log => "log",
            Class::RowLock => "row_lock",
            Class::TableLock => "table_lock",
            Class::Latch => "latch",
            Class::Client => "client",
            Class::Replication => "replication",
            Class::Other => "other",
        }
    }
}

/// The counter of seconds spent in `event`, of `class`.
pub fn key(class: Class, event: &str) -> String {
    format!("{PREFIX}{}:{event}", class.tag())
}

/// A counter's class and event, when it is a wait's.
pub fn parse(key: &str) -> Option<(Class, &str)> {
    let (tag, event) = key.strip_prefix(PREFIX)?.split_once(':')?;
    CLASSES.iter().find(|c| c.tag() == tag).map(|c| (*c, event))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_key_names_its_class_and_event() {
        for c in CLASSES {
            assert_eq!(parse(&key(*c, "wait/io/file/innodb/innodb_log_file")), Some((*c, "wait/io/file/innodb/innodb_log_file")));
        }
        assert_eq!(parse("wait:log:WALSync"), Some((Class::Log, "WALSync")));
        assert_eq!(parse("Innodb_row_lock_time"), None);
        assert_eq!(parse("wait:nonsense:x"), None);
    }

    /// The run's JSON schema lists the classes as they are named.
    #[test]
    fn the_schema_names_every_class() {
        let schema = include_str!("../../schema/run.schema.json");
        for c in CLASSES {
            assert!(schema.contains(&format!("\"{}\"", c.name())), "{} is not in schema/run.schema.json", c.name());
        }
    }
}
