//! The statements a server ran, by shape: each engine's summary by digest
//! (performance_schema's, pg_stat_statements, TiDB's statements summary)
//! read as cumulative counters per statement shape, so that a level's
//! samples carry how each moved and its top statements per transaction
//! come from the same window as its throughput.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Executions.
pub const CALLS: &str = "calls";
/// Seconds spent running them.
pub const SECS: &str = "seconds";
/// Rows the server read to answer (MySQL family).
pub const ROWS_EXAMINED: &str = "rows examined";
/// Rows sent back or changed.
pub const ROWS_SENT: &str = "rows sent";
pub const TMP_TABLES: &str = "temporary tables";
pub const TMP_DISK_TABLES: &str = "temporary tables on disk";
pub const SORT_MERGES: &str = "sort merge passes";
/// Executions that used no index.
pub const NO_INDEX: &str = "no index used";
/// Pages read from outside the engine's cache, and found in it (PostgreSQL).
pub const BLOCKS_READ: &str = "blocks read";
pub const BLOCKS_HIT: &str = "blocks hit";
/// Pages written to temporary files (sorts and hashes that spilled).
pub const TEMP_BLOCKS: &str = "temp blocks written";

/// How much of a statement's text is kept: enough to tell the shapes of a
/// benchmark apart, not a bulk load's thousand placeholders.
const TEXT_CHARS: usize = 160;

/// One statement shape's counters: cumulative as the server keeps them,
/// or their movement over a window.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Digest {
    pub text: String,
    pub counts: BTreeMap<String, f64>,
}

impl Digest {
    /// A shape with its text cut to [`TEXT_CHARS`] characters.
    pub fn new(text: &str) -> Digest {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = match text.char_indices().nth(TEXT_CHARS) {
            Some((i, _)) => format!("{}...", &text[..i]),
            None => text,
        };
        Digest { text, counts: BTreeMap::new() }
    }

    pub fn count(&self, name: &str) -> f64 {
        self.counts.get(name).copied().unwrap_or(0.0)
    }

    /// Sets a counter from a column's text; an empty or unparsable one is left out.
    pub fn set(&mut self, name: &str, v: Option<&str>) {
        if let Some(v) = v.and_then(|v| v.trim().parse::<f64>().ok()) {
            self.counts.insert(name.to_string(), v);
        }
    }
}

/// Whether a statement's text may be kept: not the sampling's own, and not
/// one that names a password (a server keeps a utility statement's
/// literals, `CREATE ROLE ... PASSWORD '...'`, as they were typed).
pub fn keep(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    !text.trim().is_empty() && !is_monitors(text) && !t.contains("password") && !t.contains("identified")
}

/// Whether a statement is the sampling's own: it reads the server's
/// statistics and catalogs, which no workload does, or asks for status.
pub fn is_monitors(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.starts_with("show ")
        || ["performance_schema", "information_schema", "pg_stat", "pg_catalog", "pg_settings", "pg_database_size", "pg_current_wal", "pg_is_in_recovery", "pg_last_", "pg_class", "sqlite_master"]
            .iter()
            .any(|w| t.contains(w))
}

/// A row of a statements view read as (its id, its text, then the
/// counters `names` in order); None for a statement not to keep. An empty
/// text is one read later, for the statements that moved ([`texts_for`]).
pub fn of_row(r: &[String], names: &[&str]) -> Option<(String, Digest)> {
    let (id, text) = (r.first()?, r.get(1)?);
    if !text.is_empty() && !keep(text) {
        return None;
    }
    let mut d = Digest::new(text);
    for (i, name) in names.iter().enumerate() {
        d.set(name, r.get(i + 2).map(String::as_str));
    }
    Some((id.clone(), d))
}

/// What moved from `prev` to `cur`, shapes that did not move left out. A
/// shape first seen started from nothing; one whose counters went back
/// (the server's summary was reset or rotated) counts from its reset.
pub fn delta(prev: &BTreeMap<String, Digest>, cur: &BTreeMap<String, Digest>) -> BTreeMap<String, Digest> {
    let mut out = BTreeMap::new();
    for (id, d) in cur {
        let before = prev.get(id);
        let reset = before.is_some_and(|p| d.count(CALLS) < p.count(CALLS));
        let mut m = Digest { text: d.text.clone(), counts: BTreeMap::new() };
        for (k, v) in &d.counts {
            let from = if reset { 0.0 } else { before.map_or(0.0, |p| p.count(k)) };
            m.counts.insert(k.clone(), (v - from).max(0.0));
        }
        if m.count(CALLS) > 0.0 {
            out.insert(id.clone(), m);
        }
    }
    out
}

/// The ids of the statements that moved whose text is not known yet.
pub fn texts_for(moved: &BTreeMap<String, Digest>, known: &BTreeMap<String, String>) -> Vec<String> {
    moved.iter().filter(|(id, d)| d.text.is_empty() && !known.contains_key(*id)).map(|(id, _)| id.clone()).collect()
}

/// The moved statements with their texts from `known` (as [`Digest::new`]
/// cut them) where known (an
/// unknown one keeps an empty text, filled at the level's end); those
/// whose text is not to be kept are left out.
pub fn with_texts(moved: BTreeMap<String, Digest>, known: &BTreeMap<String, String>) -> BTreeMap<String, Digest> {
    moved
        .into_iter()
        .filter_map(|(id, mut d)| {
            if d.text.is_empty() {
                if let Some(t) = known.get(&id) {
                    d.text = t.clone();
                }
            }
            (d.text.is_empty() || keep(&d.text)).then_some((id, d))
        })
        .collect()
}

/// A level's sums with the texts read at its end; a statement whose text
/// is unknown or not to be kept is left out.
pub fn named(sums: BTreeMap<String, Digest>, texts: &BTreeMap<String, String>) -> BTreeMap<String, Digest> {
    with_texts(sums, texts).into_iter().filter(|(_, d)| !d.text.is_empty()).collect()
}

/// An SQL list of quoted ids (digests are hex or numbers; anything else is left out).
pub fn id_list(ids: &[String]) -> String {
    ids.iter().filter(|i| !i.is_empty() && i.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')).map(|i| format!("'{i}'")).collect::<Vec<_>>().join(", ")
}

/// Adds a window's movement into `sums`.
pub fn add(sums: &mut BTreeMap<String, Digest>, moved: &BTreeMap<String, Digest>) {
    for (id, d) in moved {
        let s = sums.entry(id.clone()).or_insert_with(|| Digest { text: d.text.clone(), counts: BTreeMap::new() });
        for (k, v) in &d.counts {
            *s.counts.entry(k.clone()).or_insert(0.0) += v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str, calls: f64, secs: f64) -> Digest {
        Digest { text: text.into(), counts: [(CALLS.to_string(), calls), (SECS.to_string(), secs)].into_iter().collect() }
    }

    #[test]
    fn only_what_moved_is_kept_and_a_reset_counts_from_zero() {
        let prev: BTreeMap<String, Digest> = [("a".to_string(), d("SELECT 1", 10.0, 1.0)), ("b".to_string(), d("UPDATE t", 5.0, 2.0)), ("c".to_string(), d("DELETE", 9.0, 9.0))].into_iter().collect();
        let cur: BTreeMap<String, Digest> =
            [("a".to_string(), d("SELECT 1", 15.0, 1.5)), ("b".to_string(), d("UPDATE t", 5.0, 2.0)), ("c".to_string(), d("DELETE", 2.0, 0.5)), ("n".to_string(), d("INSERT", 3.0, 0.3))]
                .into_iter()
                .collect();
        let m = delta(&prev, &cur);
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "c", "n"]);
        assert_eq!(m["a"].count(CALLS), 5.0);
        assert!((m["a"].count(SECS) - 0.5).abs() < 1e-12);
        assert_eq!(m["c"].count(CALLS), 2.0);
        assert_eq!(m["n"].count(SECS), 0.3);
        let mut sums = BTreeMap::new();
        add(&mut sums, &m);
        add(&mut sums, &m);
        assert_eq!(sums["a"].count(CALLS), 10.0);
    }

    #[test]
    fn long_texts_are_cut_and_the_monitors_own_statements_told_apart() {
        let long = format!("INSERT INTO t VALUES {}", "(?, ?), ".repeat(100));
        let t = Digest::new(&long).text;
        assert!(t.chars().count() <= TEXT_CHARS + 3 && t.ends_with("..."));
        assert_eq!(Digest::new("SELECT  c\n FROM sbtest1").text, "SELECT c FROM sbtest1");
        assert!(is_monitors("SELECT state FROM pg_stat_activity"));
        assert!(is_monitors("SHOW GLOBAL STATUS"));
        assert!(!is_monitors("SELECT c FROM sbtest1 WHERE id = ?"));
    }

    // A PostgreSQL test server's pg_stat_statements held `CREATE ROLE fbssl
    // LOGIN PASSWORD 'fbpass'` as typed, and the first sample of a level
    // stored it: the password reached the store and `results export`.
    #[test]
    fn a_statement_naming_a_password_is_never_kept() {
        assert!(!keep("CREATE ROLE fbssl LOGIN PASSWORD 'fbpass'"));
        assert!(!keep("CREATE USER 'u'@'%' IDENTIFIED BY 'secret'"));
        let moved: BTreeMap<String, Digest> = [("1".to_string(), d("", 1.0, 0.1)), ("2".to_string(), d("", 1.0, 0.1)), ("3".to_string(), d("", 1.0, 0.1))].into_iter().collect();
        let known: BTreeMap<String, String> = [("1".to_string(), "ALTER ROLE x PASSWORD 'p'".to_string()), ("2".to_string(), "SELECT c FROM t".to_string())].into_iter().collect();
        assert_eq!(texts_for(&moved, &known), ["3"]);
        let kept = with_texts(moved, &known);
        assert_eq!(kept.keys().collect::<Vec<_>>(), ["2", "3"]);
        assert_eq!(named(kept, &known).keys().collect::<Vec<_>>(), ["2"]);
        assert_eq!(id_list(&["ab12".into(), "x'; DROP".into(), "-42".into()]), "'ab12', '-42'");
    }
}
