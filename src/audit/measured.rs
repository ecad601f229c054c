//! Settings that change what a run measures, compared across runs of one
//! engine: each engine lists them ([`crate::db::engines::Engine::measured`]),
//! and each one that differs is a finding naming it, with every run's value.

use super::{finding, ids, per_run, server_of};
use crate::db::engines::Engine;
use crate::model::record::{Finding, RunRecord, Severity};

pub fn rule_measured_setting_mismatch(rs: &[&RunRecord]) -> Vec<Finding> {
    let specs: Vec<Option<&'static dyn Engine>> = rs.iter().map(|r| server_of(r).and_then(|s| crate::db::engines::named(&s.engine))).collect();
    let mut engines: Vec<&'static dyn Engine> = specs.iter().flatten().copied().collect();
    engines.sort_by_key(|e| e.name());
    engines.dedup_by_key(|e| e.name());
    let mut out = Vec::new();
    for spec in engines {
        let engine = spec.name();
        let runs: Vec<&RunRecord> = rs.iter().zip(&specs).filter(|(_, e)| e.is_some_and(|e| e.name() == engine)).map(|(r, _)| *r).collect();
        for m in spec.measured() {
            // A run whose server does not have the setting does not differ in it.
            let values: Vec<String> = runs.iter().filter_map(|r| m.value(server_of(r)?)).collect();
            if !values.windows(2).any(|w| w[0] != w[1]) {
                continue;
            }
            let shown = |r: &RunRecord| server_of(r).and_then(|s| m.value(s)).map_or_else(|| format!("{} not set", m.name), |v| format!("{} = {v}", m.name));
            out.push(finding(
                "measured-setting-mismatch",
                Severity::Warning,
                ids(&runs),
                format!("{} differs between the {engine} runs: {}", m.name, m.why),
                per_run(&runs, shown),
                &format!("set {} the same on every side, or state the difference with the result", m.name),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::engines::ENGINES;
    use crate::env::{Server, Snapshot};

    fn run(id: i64, s: Server) -> RunRecord {
        RunRecord { id, engine: s.engine.clone(), env_start: Some(Snapshot { server: s, ..Snapshot::default() }), ..RunRecord::default() }
    }

    /// Every entry of every engine's list, flipped on one side, is the finding naming it.
    #[test]
    fn each_listed_setting_flipped_on_one_side_is_named() {
        let mut seen = 0;
        for spec in ENGINES {
            for m in spec.measured() {
                let side = |v: &str| {
                    let mut s = Server { engine: spec.name().to_string(), ..Server::default() };
                    s.variables.insert(m.vars[0].to_string(), v.to_string());
                    s
                };
                let (a, b) = (run(1, side(m.flip[0])), run(2, side(m.flip[1])));
                let fs = rule_measured_setting_mismatch(&[&a, &b]);
                assert_eq!(fs.len(), 1, "{}: {fs:?}", m.name);
                assert!(fs[0].message.starts_with(&format!("{} differs", m.name)) && fs[0].evidence.iter().any(|e| e.contains(&m.flip[1].to_ascii_lowercase())), "{:?}", fs[0]);
                assert!(rule_measured_setting_mismatch(&[&a, &run(3, side(m.flip[0]))]).is_empty(), "{}: the same value on both sides", m.name);
                seen += 1;
            }
        }
        assert!(seen >= 15, "{seen} settings listed");
    }
}
