//! Where the server's time went per transaction over a level's measured
//! window: its wait counters ([`crate::db::waits`]) summed by class and by
//! event, in µs per transaction. On an engine sampled by session activity
//! (PostgreSQL) the classes add up to the sessions' whole time, so they
//! sum to about the mean transaction latency; on one timed by its own
//! instruments (MySQL's performance_schema) they hold what the
//! instruments time, and CPU is the hardware table's.

use crate::db::waits::{parse, Class};
use serde::Serialize;
use std::collections::BTreeMap;

/// How many waits by event a level keeps.
pub const TOP: usize = 8;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ClassTime {
    pub class: &'static str,
    pub us_per_trx: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EventTime {
    pub event: String,
    pub class: &'static str,
    pub us_per_trx: f64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ServerTime {
    /// Every class with time in it, the largest first.
    pub classes: Vec<ClassTime>,
    /// The largest waits by event, the largest first.
    pub top: Vec<EventTime>,
}

impl ServerTime {
    /// µs per transaction in `class` (0 when none was seen).
    pub fn of_class(&self, class: Class) -> f64 {
        self.class(class).unwrap_or(0.0)
    }

    /// µs per transaction in `class`; None when none was seen.
    pub fn class(&self, class: Class) -> Option<f64> {
        self.classes.iter().find(|c| c.class == class.name()).map(|c| c.us_per_trx)
    }

    /// The largest wait of `class`, by event.
    pub fn top_of(&self, class: Class) -> Option<&EventTime> {
        self.top.iter().find(|e| e.class == class.name())
    }
}

/// The server's time per transaction from a window's counter deltas;
/// None when they hold no wait counter.
pub fn of(deltas: &BTreeMap<String, f64>, transactions: f64) -> Option<ServerTime> {
    if transactions <= 0.0 {
        return None;
    }
    let mut classes: BTreeMap<Class, f64> = BTreeMap::new();
    let mut events: Vec<EventTime> = Vec::new();
    for (k, secs) in deltas {
        let Some((class, event)) = parse(k) else { continue };
        let us = secs * 1e6 / transactions;
        *classes.entry(class).or_insert(0.0) += us;
        events.push(EventTime { event: event.to_string(), class: class.name(), us_per_trx: us });
    }
    if classes.is_empty() {
        return None;
    }
    let mut classes: Vec<ClassTime> = classes.into_iter().filter(|(_, us)| *us > 0.0).map(|(c, us)| ClassTime { class: c.name(), us_per_trx: us }).collect();
    classes.sort_by(|a, b| b.us_per_trx.total_cmp(&a.us_per_trx));
    events.retain(|e| e.us_per_trx > 0.0);
    events.sort_by(|a, b| b.us_per_trx.total_cmp(&a.us_per_trx));
    events.truncate(TOP);
    Some(ServerTime { classes, top: events })
}

/// One line: the classes, the largest wait of each large one named.
pub fn line(t: &ServerTime) -> String {
    // What rounds to nothing is left out of the line (the JSON keeps it).
    let each: Vec<String> = t
        .classes
        .iter()
        .filter(|c| c.us_per_trx >= 0.05)
        .map(|c| {
            let top = t.top.iter().find(|e| e.class == c.class && e.event != c.class).map(|e| format!(" ({} {:.1})", e.event, e.us_per_trx)).unwrap_or_default();
            format!("{} {:.1}{top}", c.class, c.us_per_trx)
        })
        .collect();
    each.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::waits::key;

    #[test]
    fn waits_are_summed_by_class_and_kept_by_event() {
        let d: BTreeMap<String, f64> = [
            (key(Class::Log, "WALSync"), 0.3),
            (key(Class::Log, "WALWrite"), 0.1),
            (key(Class::Cpu, "CPU"), 0.2),
            (key(Class::RowLock, "transactionid"), 0.0),
            ("Innodb_data_reads".to_string(), 99.0),
        ]
        .into_iter()
        .collect();
        let t = of(&d, 1000.0).unwrap();
        assert_eq!(t.classes.iter().map(|c| c.class).collect::<Vec<_>>(), ["log write and sync", "CPU"]);
        assert!((t.of_class(Class::Log) - 400.0).abs() < 1e-9);
        assert_eq!(t.of_class(Class::RowLock), 0.0);
        assert_eq!(t.top_of(Class::Log).unwrap().event, "WALSync");
        assert_eq!(line(&t), "log write and sync 400.0 (WALSync 300.0), CPU 200.0");
        assert_eq!(of(&BTreeMap::new(), 10.0), None);
        assert_eq!(of(&d, 0.0), None);
    }
}
