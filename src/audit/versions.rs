//! Rules on who made the runs: fairbench's own build (two builds may send
//! different SQL for the same workload) and the client host's kernel.

use super::*;
use crate::db::digests::{self, CALLS};
use std::collections::{BTreeMap, BTreeSet};

/// Statement shapes shown per run before "and N more".
const SHOWN: usize = 3;

/// The statement shapes the server recorded for the run (every level's
/// samples), the sampling's own left out. A server keeps its statements for
/// every session: where the run's tables were read from the catalog, only
/// the shapes that name one of them are the run's, not another client's.
fn statement_shapes(r: &RunRecord) -> BTreeSet<String> {
    let mut sums = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for s in r.levels.iter().flat_map(|l| &l.samples) {
        digests::add(&mut sums, &s.sample.statements);
        texts.extend(s.sample.statement_texts.clone());
    }
    let tables: Vec<String> = server_of(r).map(|s| s.tables.iter().map(|t| t.name.to_ascii_lowercase()).collect()).unwrap_or_default();
    let ours = |text: &str| tables.is_empty() || tables.iter().any(|t| names(&text.to_ascii_lowercase(), t));
    digests::named(sums, &texts).into_values().filter(|d| d.count(CALLS) > 0.0 && digests::keep(&d.text) && ours(&d.text)).map(|d| d.text).collect()
}

/// Whether `text` names `table` as a whole word (`sbtest1`, not inside `sbtest10`).
fn names(text: &str, table: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    text.match_indices(table).any(|(i, _)| !word(text[..i].chars().next_back()) && !word(text[i + table.len()..].chars().next()))
}

/// Runs made by different fairbench builds: information in itself, and a
/// warning for runs of one workload on one server version whose recorded
/// statements differ between the builds (a statement shape changed).
pub fn rule_fairbench_build_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let builds: Vec<&str> = rs.iter().map(|r| r.tool_version.as_str()).collect();
    if !builds.windows(2).any(|w| w[0] != w[1]) {
        return vec![];
    }
    let mut out = vec![finding(
        "fairbench-build-mismatch",
        Severity::Info,
        ids(rs),
        "the runs were made by different fairbench builds: a workload's statements or its measurement may have changed between them".into(),
        per_run(rs, |r| format!("fairbench {}", if r.tool_version.is_empty() { "?" } else { &r.tool_version })),
        "compare runs of one build where you can; statement shapes that changed are named when the server recorded them (--server-time)",
    )];
    let version = |r: &RunRecord| server_of(r).map(|s| s.version.clone()).unwrap_or_default();
    let shapes: Vec<BTreeSet<String>> = rs.iter().map(|r| statement_shapes(r)).collect();
    let base = rs.iter().zip(&shapes).find(|(_, s)| !s.is_empty());
    let Some((base, base_shapes)) = base else { return out };
    let alike: Vec<(&RunRecord, &BTreeSet<String>)> =
        rs.iter().zip(&shapes).filter(|(r, s)| !s.is_empty() && r.engine == base.engine && r.workload == base.workload && version(r) == version(base)).map(|(r, s)| (*r, s)).collect();
    let differ = alike.iter().any(|(r, s)| r.tool_version != base.tool_version && *s != base_shapes);
    if !differ {
        return out;
    }
    let runs: Vec<&RunRecord> = alike.iter().map(|(r, _)| *r).collect();
    out.push(finding(
        "statements-differ",
        Severity::Warning,
        ids(&runs),
        format!("the {} runs of {} sent different statements under different fairbench builds: they did not measure the same SQL", base.engine, base.workload),
        alike
            .iter()
            .map(|(r, s)| {
                // The shapes this run sent that another did not.
                let only: Vec<&String> = s.iter().filter(|t| alike.iter().any(|(_, o)| !o.contains(*t))).collect();
                let mut shown = only.iter().take(SHOWN).map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ");
                if only.len() > SHOWN {
                    shown.push_str(&format!(" and {} more", only.len() - SHOWN));
                }
                let tail = if only.is_empty() { String::new() } else { format!("; only here: {shown}") };
                format!("run {} (fairbench {}): {} statement shapes{tail}", r.id, r.tool_version, s.len())
            })
            .collect(),
        "compare runs of one fairbench build, or rerun the older side with the newer build",
    ));
    out
}

/// The client host's kernel differs: its scheduler, network stack and IO
/// paths change the figures (and a local server's with them).
pub fn rule_kernel_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let kernel = |r: &RunRecord| r.env_start.as_ref().map(|e| e.host.kernel.clone()).filter(|k| !k.is_empty());
    let known: Vec<String> = rs.iter().filter_map(|r| kernel(r)).collect();
    if !known.windows(2).any(|w| w[0] != w[1]) {
        return vec![];
    }
    vec![finding(
        "kernel-mismatch",
        Severity::Warning,
        ids(rs),
        "the runs' hosts ran different kernels: scheduling, networking and IO differ with them".into(),
        per_run(rs, |r| kernel(r).unwrap_or_else(|| "not recorded".into())),
        "run every side on the same kernel, or say that it differed",
    )]
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_is_named_as_a_whole_word() {
        assert!(super::names("select c from `sbtest1` where id = ?", "sbtest1"));
        assert!(!super::names("select c from `sbtest10` where id = ?", "sbtest1"));
        assert!(!super::names("select c from xsbtest1", "sbtest1"));
    }
}
