//! The options a run was made with, as it records them: typed where the
//! shared code reads them (the audit, `compare`, the report, a series), and
//! the workload's own options by name beside them.
//!
//! Stored and exported as one JSON object of `name: "value"` strings, the
//! form every version of fairbench has written: a record written before the
//! typed fields existed reads into them (the migration is the reading), and
//! a record reads back to the very object it was stored as. A value is
//! typed only when its typed form writes back to the same text; any other
//! (`"010"`, a spelling an older version wrote) stays among the named
//! options as it was, so no stored byte changes meaning or spelling.

use serde::de::Deserializer;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// How the run was paced: its levels, their length, the open loop.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Control {
    /// The client counts of the levels, in the order given (before repetitions).
    pub threads: Option<Vec<usize>>,
    /// Runs of each level (`--repeat`; recorded when above 1).
    pub repeat: Option<usize>,
    pub repeat_order: Option<String>,
    pub time: Option<f64>,
    pub events: Option<u64>,
    /// Open loop: events per second over all clients (0: closed loop).
    pub rate: Option<f64>,
    pub arrivals: Option<String>,
    pub warmup_time: Option<f64>,
    pub rand_seed: Option<u64>,
    pub report_interval: Option<f64>,
    pub pause: Option<f64>,
    pub percentile: Option<u32>,
    /// The client's worker threads: a number, or `auto`.
    pub client_threads: Option<String>,
    pub queue_max: Option<u64>,
}

/// How the clients reached the server.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Connection {
    /// Server-side prepared statements (`--db-ps-mode=auto`) or text.
    pub prepared: Option<bool>,
    pub ssl_mode: Option<String>,
    /// The SQL every session ran first (`--session-options`), `; `-separated.
    pub session_options: Option<String>,
}

/// What the environment's sampler read besides the server's counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sampling {
    pub server_metrics: Option<String>,
    pub server_time: Option<bool>,
    pub profile_server: Option<bool>,
}

/// What the workload's data and keys were, where the workload records them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Data {
    pub tables: Option<u64>,
    /// Rows per table the options name (`--table-size`).
    pub table_size: Option<u64>,
    /// Rows per table the tables held, when well more than the run touched.
    pub data_table_size: Option<u64>,
    /// Ids per table the run drew from, when the tables held well more.
    pub touched_table_size: Option<u64>,
    /// The key distribution (`--rand-type`).
    pub rand_type: Option<String>,
    /// Every statement autocommits (`--skip-trx`).
    pub skip_trx: Option<bool>,
}

/// The file a scripted workload ran, and its contents' SHA-256.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    pub path: Option<String>,
    pub sha256: Option<String>,
}

/// Every option a run records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOptions {
    pub control: Control,
    pub connection: Connection,
    pub sampling: Sampling,
    pub data: Data,
    pub script: Script,
    /// Every other option by name: the workload's own, and those a value of
    /// which did not read as its typed form.
    pub other: BTreeMap<String, String>,
}

/// A typed option's stored text: `read` gives a value only when `write`
/// gives the same text back.
trait Stored: Sized {
    fn write(&self) -> String;
    fn parse(s: &str) -> Option<Self>;
    fn read(s: &str) -> Option<Self> {
        Self::parse(s).filter(|v| v.write() == s)
    }
}

macro_rules! stored_by_display {
    ($($t:ty),*) => {$(
        impl Stored for $t {
            fn write(&self) -> String {
                self.to_string()
            }
            fn parse(s: &str) -> Option<Self> {
                s.parse().ok()
            }
        }
    )*};
}
stored_by_display!(String, u64, usize, u32, f64);

/// `on` / `off`.
impl Stored for bool {
    fn write(&self) -> String {
        if *self { "on" } else { "off" }.to_string()
    }
    fn parse(s: &str) -> Option<Self> {
        match s {
            "on" => Some(true),
            "off" => Some(false),
            _ => None,
        }
    }
}

/// A comma-separated list of client counts.
impl Stored for Vec<usize> {
    fn write(&self) -> String {
        self.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",")
    }
    fn parse(s: &str) -> Option<Self> {
        s.split(',').map(|n| n.parse().ok()).collect()
    }
}

/// `--db-ps-mode`: `auto` prepares statements, `disable` sends text.
fn read_ps_mode(s: &str) -> Option<bool> {
    match s {
        "auto" => Some(true),
        "disable" => Some(false),
        _ => None,
    }
}

fn write_ps_mode(prepared: bool) -> String {
    if prepared { "auto" } else { "disable" }.to_string()
}

/// The typed options: the stored name of each, in one list for reading and writing.
macro_rules! typed_options {
    ($($group:ident . $field:ident : $key:literal),* $(,)?) => {
        impl RunOptions {
            /// Reads `value` into the typed option stored as `key` (unset when
            /// it does not read as its type); false when it did not, or
            /// there is no typed option of that name.
            fn set_typed(&mut self, key: &str, value: &str) -> bool {
                match key {
                    "db-ps-mode" => {
                        self.connection.prepared = read_ps_mode(value);
                        self.connection.prepared.is_some()
                    }
                    $($key => {
                        self.$group.$field = Stored::read(value);
                        self.$group.$field.is_some()
                    })*
                    _ => false,
                }
            }

            /// The typed options that are set, each as stored.
            fn typed_pairs(&self) -> Vec<(&'static str, String)> {
                let mut out = Vec::new();
                if let Some(p) = self.connection.prepared {
                    out.push(("db-ps-mode", write_ps_mode(p)));
                }
                $(if let Some(v) = &self.$group.$field {
                    out.push(($key, Stored::write(v)));
                })*
                out
            }

            /// Whether the typed option stored as `key` is set.
            fn typed_is_set(&self, key: &str) -> bool {
                match key {
                    "db-ps-mode" => self.connection.prepared.is_some(),
                    $($key => self.$group.$field.is_some(),)*
                    _ => false,
                }
            }
        }
    };
}

typed_options! {
    control.threads: "threads",
    control.repeat: "repeat",
    control.repeat_order: "repeat-order",
    control.time: "time",
    control.events: "events",
    control.rate: "rate",
    control.arrivals: "arrivals",
    control.warmup_time: "warmup-time",
    control.rand_seed: "rand-seed",
    control.report_interval: "report-interval",
    control.pause: "pause",
    control.percentile: "percentile",
    control.client_threads: "client-threads",
    control.queue_max: "queue-max",
    connection.ssl_mode: "ssl-mode",
    connection.session_options: "session-options",
    sampling.server_metrics: "server-metrics",
    sampling.server_time: "server-time",
    sampling.profile_server: "profile-server",
    data.tables: "tables",
    data.table_size: "table-size",
    data.data_table_size: "data-table-size",
    data.touched_table_size: "touched-table-size",
    data.rand_type: "rand-type",
    data.skip_trx: "skip-trx",
    script.path: "script",
    script.sha256: "script-sha256",
}

impl RunOptions {
    /// Options given by name (a workload's, or a stored record's), each
    /// typed where it reads as its type; a later value of a name replaces
    /// an earlier one.
    pub fn from_pairs<K: AsRef<str>, V: AsRef<str>>(pairs: impl IntoIterator<Item = (K, V)>) -> RunOptions {
        let mut o = RunOptions::default();
        for (k, v) in pairs {
            o.insert(k.as_ref(), v.as_ref());
        }
        o
    }

    /// Sets the option `key` to `value`, typed where it reads as its type.
    pub fn insert(&mut self, key: &str, value: &str) {
        self.other.remove(key);
        if !self.set_typed(key, value) {
            self.other.insert(key.to_string(), value.to_string());
        }
    }

    /// Sets the option `key` to `value` unless the run records it already.
    pub fn insert_missing(&mut self, key: &str, value: &str) {
        if !self.contains(key) {
            self.insert(key, value);
        }
    }

    pub fn contains(&self, key: &str) -> bool {
        self.typed_is_set(key) || self.other.contains_key(key)
    }

    /// Every option as stored, by name in alphabetical order: the typed
    /// ones written back, the others as they were given.
    pub fn pairs(&self) -> Vec<(String, String)> {
        let mut all: BTreeMap<String, String> = self.other.clone();
        for (k, v) in self.typed_pairs() {
            all.insert(k.to_string(), v);
        }
        all.into_iter().collect()
    }

    /// The stored form, a JSON object of strings.
    pub fn to_json(&self) -> Value {
        Value::Object(self.pairs().into_iter().map(|(k, v)| (k, Value::String(v))).collect())
    }
}

impl Serialize for RunOptions {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pairs = self.pairs();
        let mut m = s.serialize_map(Some(pairs.len()))?;
        for (k, v) in &pairs {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for RunOptions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = BTreeMap::<String, Value>::deserialize(d)?;
        Ok(RunOptions::from_pairs(m.into_iter().map(|(k, v)| {
            let text = match v {
                Value::String(s) => s,
                other => other.to_string(),
            };
            (k, text)
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_object_reads_into_typed_fields_and_writes_back_byte_for_byte() {
        let stored =
            r#"{"db-ps-mode":"disable","mix":"45,43,4,4,4","rand-type":"uniform","rate":"0","skip-trx":"on","table-size":"010","tables":"2","threads":"1,2,4","time":"0.5","warmup-time":"10"}"#;
        let o: RunOptions = serde_json::from_str(stored).unwrap();
        assert_eq!(o.connection.prepared, Some(false));
        assert_eq!(o.control.threads, Some(vec![1, 2, 4]));
        assert_eq!(o.control.time, Some(0.5));
        assert_eq!(o.control.warmup_time, Some(10.0));
        assert_eq!(o.data.tables, Some(2));
        assert_eq!(o.data.skip_trx, Some(true));
        assert_eq!(o.data.rand_type.as_deref(), Some("uniform"));
        // Not its typed form's text: kept as it was, not typed.
        assert_eq!(o.data.table_size, None);
        assert_eq!(o.other.get("table-size").map(String::as_str), Some("010"));
        assert_eq!(o.other.get("mix").map(String::as_str), Some("45,43,4,4,4"));
        assert_eq!(serde_json::to_string(&o).unwrap(), stored);
    }

    #[test]
    fn a_later_value_replaces_an_earlier_and_a_missing_one_is_filled_only_when_missing() {
        let mut o = RunOptions::from_pairs([("threads", "1"), ("threads", "8")]);
        assert_eq!(o.control.threads, Some(vec![8]));
        o.insert("threads", "x");
        assert_eq!((o.control.threads.clone(), o.other.get("threads").map(String::as_str)), (None, Some("x")));
        o.insert_missing("threads", "4");
        assert_eq!(o.other.get("threads").map(String::as_str), Some("x"));
        o.insert_missing("pause", "0");
        assert_eq!(o.control.pause, Some(0.0));
        assert_eq!(o.pairs(), vec![("pause".to_string(), "0".to_string()), ("threads".to_string(), "x".to_string())]);
    }
}
