//! Where the compared runs' servers spent their time, side by side: time
//! per transaction by wait class at each load level, with ratios to the
//! first run, and the one difference that explains the most, in a sentence
//! naming the setting behind it when the runs' configurations differ in
//! the group that governs it.

use super::Diff;
use crate::db::waits::{Class, CLASSES};
use crate::model::efficiency::{with_ratio, Efficiency};
use crate::model::record::LevelKey;
use crate::model::record::RunRecord;

/// The configuration group (`super::group_of`) whose settings decide the
/// time spent in a class.
fn group_of_class(c: Class) -> Option<&'static str> {
    match c {
        Class::Log => Some("durability"),
        Class::DiskRead => Some("memory"),
        Class::DiskWrite => Some("IO"),
        Class::RowLock | Class::TableLock | Class::Latch => Some("concurrency"),
        _ => None,
    }
}

/// The run's figures at level `key`.
fn at<'a>(figures: &'a [Efficiency], key: &LevelKey) -> Option<&'a Efficiency> {
    figures.iter().find(|e| e.key() == *key && e.server_time.is_some())
}

/// The levels every run has server time at, in order.
fn levels(all: &[Vec<Efficiency>]) -> Vec<LevelKey> {
    let mut ts: Vec<LevelKey> = all[0].iter().filter(|e| e.server_time.is_some()).map(|e| e.key()).collect();
    ts.retain(|t| all.iter().all(|f| at(f, t).is_some()));
    ts.dedup();
    ts
}

/// The classes a sentence may name: the server's own. The time a session
/// waits for the client's next statement is the client's and the
/// network's, shown in the table but not called the server's.
fn servers_own(c: &Class) -> bool {
    *c != Class::Client
}

/// The largest difference in time per transaction between a run and the
/// first, in one sentence; None when fewer than two runs have server time.
pub fn sentence(rs: &[&RunRecord], all: &[Vec<Efficiency>], diffs: &[Diff]) -> Option<String> {
    let mut best: Option<(f64, LevelKey, usize, Class)> = None;
    for t in levels(all) {
        let base = at(&all[0], &t)?.server_time.as_ref()?;
        for (i, figures) in all.iter().enumerate().skip(1) {
            let st = at(figures, &t)?.server_time.as_ref()?;
            for c in CLASSES.iter().filter(|c| servers_own(c)) {
                let d = st.of_class(*c) - base.of_class(*c);
                if best.as_ref().is_none_or(|b| d.abs() > b.0.abs()) {
                    best = Some((d, t.clone(), i, *c));
                }
            }
        }
    }
    let (d, t, i, class) = best.filter(|b| b.0 != 0.0)?;
    let (more, less) = if d > 0.0 { (i, 0) } else { (0, i) };
    let st = at(&all[more], &t)?.server_time.as_ref()?;
    let event = st.top_of(class).filter(|e| e.event != class.name()).map(|e| format!(" ({})", e.event)).unwrap_or_default();
    let mut s = format!(
        "At {}, run {} spends {:.1} µs per transaction more in {}{event} than run {} ({:.1} against {:.1})",
        t.at(),
        rs[more].id,
        d.abs(),
        class.name(),
        rs[less].id,
        st.of_class(class),
        at(&all[less], &t)?.server_time.as_ref()?.of_class(class)
    );
    // A setting by its name first (`server synchronous_commit`), else what the comparison derived.
    let of_group = |g: &str| diffs.iter().filter(|df| df.group == g).min_by_key(|df| !df.name.starts_with("server "));
    if let Some(diff) = group_of_class(class).and_then(of_group) {
        let vals: Vec<String> = rs.iter().zip(&diff.values).map(|(r, v)| format!("{v} in run {}", r.id)).collect();
        s.push_str(&format!("; its {} is {}", diff.name.trim_start_matches("server "), vals.join(", ")));
    }
    s.push('.');
    Some(s)
}

/// The table: a row per class any run spent time in, a column per run.
pub fn text(rs: &[&RunRecord], all: &[Vec<Efficiency>]) -> String {
    let mut o = String::new();
    for t in levels(all) {
        let times: Vec<_> = all.iter().filter_map(|f| at(f, &t)?.server_time.as_ref()).collect();
        let t = t.cell();
        if o.is_empty() {
            o.push_str(&format!("\nServer time per transaction, µs (in brackets the ratio to run {}):\n", rs[0].id));
            o.push_str(&format!("  {:>7}  {:<26}", super::level_column(rs), "spent in"));
            for r in rs {
                o.push_str(&format!("  {:>18}", format!("run {}", r.id)));
            }
            o.push('\n');
        }
        for c in CLASSES.iter().filter(|c| times.iter().any(|st| st.of_class(**c) > 0.0)) {
            o.push_str(&format!("  {t:>7}  {:<26}", c.name()));
            for (i, st) in times.iter().enumerate() {
                o.push_str(&format!("  {:>18}", with_ratio(Some(st.of_class(*c)), Some(times[0].of_class(*c)), i == 0)));
            }
            o.push('\n');
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::waits::key;
    use crate::model::waits;
    use std::collections::BTreeMap;

    fn figures(threads: usize, waits: &[(Class, &str, f64)]) -> Vec<Efficiency> {
        let d: BTreeMap<String, f64> = waits.iter().map(|(c, e, s)| (key(*c, e), *s)).collect();
        vec![Efficiency { threads, secs: 10.0, server_time: waits::of(&d, 1000.0), ..Efficiency::default() }]
    }

    fn run(id: i64) -> RunRecord {
        RunRecord { id, ..RunRecord::default() }
    }

    #[test]
    fn the_largest_difference_is_named_with_the_setting_behind_it() {
        let (a, b) = (run(6), run(7));
        let all = vec![
            figures(16, &[(Class::Cpu, "CPU", 0.2), (Class::Log, "WALSync", 0.4), (Class::Client, "ClientRead", 0.1)]),
            figures(16, &[(Class::Cpu, "CPU", 0.25), (Class::Log, "WALWrite", 0.01), (Class::Client, "ClientRead", 0.9)]),
        ];
        let diffs = vec![
            Diff { group: "durability", name: "durability class".into(), values: vec!["synced".into(), "per second".into()] },
            Diff { group: "durability", name: "server synchronous_commit".into(), values: vec!["on".into(), "off".into()] },
        ];
        let s = sentence(&[&a, &b], &all, &diffs).unwrap();
        assert_eq!(
            s,
            "At 16 threads, run 6 spends 390.0 µs per transaction more in log write and sync (WALSync) than run 7 (400.0 against 10.0); its synchronous_commit is on in run 6, off in run 7."
        );
        // Without a differing setting of that group, the figures alone.
        let s = sentence(&[&a, &b], &all, &[]).unwrap();
        assert!(s.ends_with("(400.0 against 10.0)."), "{s}");
        let table = text(&[&a, &b], &all);
        assert!(table.contains("log write and sync") && table.contains("10.00 (0.03)"), "{table}");
        // One run, or runs without server time: nothing to say.
        assert_eq!(sentence(&[&a], &all[..1], &diffs), None);
        assert_eq!(sentence(&[&a, &b], &[vec![Efficiency::default()], vec![Efficiency::default()]], &diffs), None);
    }
}
