//! Rules on the workload's tables as the catalog showed them (read with the
//! start and end snapshots): tables that differ between the compared runs
//! (an index dropped on one side, another storage engine, compression), and
//! tables that changed while a run ran (DDL by someone else).

use super::*;
use crate::db::catalog::{set_differences, TableShape};

/// Differences shown in a finding before "and N more".
const SHOWN: usize = 6;

fn tables_of(s: Option<&crate::env::Snapshot>) -> Option<&[TableShape]> {
    s.map(|s| s.server.tables.as_slice()).filter(|t| !t.is_empty())
}

fn listed(diffs: &[String]) -> String {
    let mut s = diffs.iter().take(SHOWN).cloned().collect::<Vec<_>>().join("; ");
    if diffs.len() > SHOWN {
        s.push_str(&format!("; and {} more", diffs.len() - SHOWN));
    }
    s
}

/// An index or the storage engine is a different plan or different pages;
/// a type or an option is a smaller difference.
fn severity_of(diffs: &[String]) -> Severity {
    let heavy = |d: &String| d.contains("index ") || d.contains("primary key") || d.contains(": engine ") || d.contains("table dropped") || d.contains("table created");
    if diffs.iter().any(heavy) {
        Severity::Critical
    } else {
        Severity::Warning
    }
}

/// The compared runs' tables against the first's that recorded them: the
/// same tables by name, their indexes by key on any engine, their types,
/// engines and options between servers of one engine.
pub fn rule_tables_differ(rs: &[&RunRecord]) -> Vec<Finding> {
    let with: Vec<(&RunRecord, &[TableShape])> = rs.iter().filter_map(|r| Some((*r, tables_of(r.env_start.as_ref())?))).collect();
    let Some(&(base, base_tables)) = with.first() else { return vec![] };
    let diffs: Vec<Vec<String>> = with.iter().map(|(r, t)| set_differences(base_tables, t, r.engine == base.engine, false)).collect();
    if diffs.iter().all(Vec::is_empty) {
        return vec![];
    }
    let all: Vec<String> = diffs.concat();
    let runs: Vec<&RunRecord> = with.iter().map(|(r, _)| *r).collect();
    vec![finding(
        "tables-differ",
        severity_of(&all),
        ids(&runs),
        format!("the workload's tables are not the same on every side ({}): the runs did not measure the same data layout", listed(&all[..1])),
        with.iter()
            .zip(&diffs)
            .map(|((r, t), d)| {
                let what = if r.id == base.id {
                    format!("{} tables as recorded", t.len())
                } else if d.is_empty() {
                    format!("as run {}'s", base.id)
                } else {
                    format!("against run {}: {}", base.id, listed(d))
                };
                format!("run {} ({}): {what}", r.id, r.engine)
            })
            .collect(),
        "run every side on tables prepared alike (the same indexes, storage engine, row format and compression): prepare them again with the same options, or say what differs",
    )]
}

/// The run's tables at its end against its start, unless its workload
/// changes them itself (the Insert Benchmark adds its indexes).
pub fn rule_tables_changed(r: &RunRecord) -> Vec<Finding> {
    let (Some(start), Some(end)) = (tables_of(r.env_start.as_ref()), tables_of(r.env_end.as_ref())) else { return vec![] };
    if r.env_end.as_ref().is_some_and(|e| e.server.reshaped_by_run) {
        return vec![];
    }
    let diffs = set_differences(start, end, true, true);
    if diffs.is_empty() {
        return vec![];
    }
    vec![finding(
        "tables-changed-during-run",
        severity_of(&diffs),
        vec![r.id],
        "the workload's tables changed while the run ran (DDL from elsewhere): its figures mix two layouts".into(),
        vec![format!("start -> end: {}", listed(&diffs))],
        "run again with nothing else changing the tables (no migrations, no index builds, no ALTER TABLE from another session)",
    )]
}
