//! Whether differences are real: a series too noisy to tell a few percent
//! apart, single runs compared with no spread known, and a difference
//! between series that is inside the noise.

use super::finding;
use crate::live::series::NOISY_CV;
use crate::model::record::{Finding, Repeated, RunRecord, Severity};
use crate::stats::significance::{cv, ratio};

/// A series whose throughput varies more than [`NOISY_CV`] between the
/// repetitions of a level.
pub fn rule_noisy_series(r: &RunRecord) -> Option<Finding> {
    let noisy: Vec<String> =
        r.repeated().iter().filter(|l| l.tps.len() >= 2 && cv(&l.tps) > NOISY_CV).map(|l| format!("{} clients: CV {:.1}% over {} repetitions", l.threads, cv(&l.tps) * 100.0, l.tps.len())).collect();
    if noisy.is_empty() {
        return None;
    }
    Some(finding(
        "noisy-series",
        Severity::Warning,
        vec![r.id],
        format!("run {}: throughput varies by more than {:.0}% between repetitions, so a difference of a few percent cannot be told from it", r.id, NOISY_CV * 100.0),
        noisy,
        "find what moves between repetitions (other load, CPU frequency, a checkpoint or vacuum in one of them), lengthen --time or --warmup-time, or repeat more",
    ))
}

/// Runs compared while one of them has a single measurement per level:
/// their run-to-run spread is unknown.
pub fn rule_single_runs(rs: &[&RunRecord]) -> Option<Finding> {
    let single: Vec<i64> = rs.iter().filter(|r| r.repeated().iter().all(|l| l.tps.len() < 2)).map(|r| r.id).collect();
    if single.is_empty() {
        return None;
    }
    let which = single.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    Some(finding(
        "single-runs",
        Severity::Info,
        single,
        format!("run-to-run spread unknown: run(s) {which} measured each level once"),
        vec!["on a shared or virtual machine the same command moves by several percent, often more, within minutes".into()],
        "repeat with --repeat 5 (and alternate the configurations) to know which differences are real",
    ))
}

/// Levels where a run's series differs from the baseline's by 2% or more
/// in median throughput without the difference being significant.
pub fn rule_insignificant_difference(rs: &[&RunRecord]) -> Vec<Finding> {
    let Some((base, rest)) = rs.split_first() else { return Vec::new() };
    let base_levels = base.repeated();
    let mut out = Vec::new();
    for r in rest {
        let mut ev = Vec::new();
        for l in r.repeated() {
            let Some(b) = base_levels.iter().find(|b: &&Repeated| b.key() == l.key()) else { continue };
            let Some(x) = ratio(&b.tps, &l.tps) else { continue };
            if !x.significant() && (x.ratio - 1.0).abs() >= 0.02 {
                ev.push(format!(
                    "{} clients: {:+.1}% (95% CI {:+.1}% to {:+.1}%, p = {:.2}, {} and {} repetitions)",
                    l.threads,
                    (x.ratio - 1.0) * 100.0,
                    (x.ci.0 - 1.0) * 100.0,
                    (x.ci.1 - 1.0) * 100.0,
                    x.p,
                    b.tps.len(),
                    l.tps.len()
                ));
            }
        }
        if !ev.is_empty() {
            out.push(finding(
                "insignificant-difference",
                Severity::Warning,
                vec![base.id, r.id],
                format!("run {} differs from run {} in throughput, but not significantly: the difference is inside the noise", r.id, base.id),
                ev,
                "do not report this difference as a result; repeat more (the interval shrinks with the square root of the repetitions) or remove the noise",
            ));
        }
    }
    out
}
