//! The charts of a run whose levels are the steps of a sequence (the
//! Insert Benchmark's): against threads they would mean nothing, so each
//! step gets its own chart, every run's throughput over the step on it.

use super::html::{downsample, ReportRun, MAX_POINTS};
use crate::live::chart::{Chart, Scale, Series};
use crate::model::record::LevelKey;

/// Whether any run's levels are steps.
pub fn any(runs: &[ReportRun]) -> bool {
    runs.iter().any(|r| r.rec.levels.iter().any(|l| l.step().is_some()))
}

/// One chart per step, in the order the steps ran: a line per run.
pub fn charts(runs: &[ReportRun], name: fn(&crate::model::record::RunRecord) -> String) -> Vec<Chart> {
    let keys = LevelKey::of(runs.iter().flat_map(|r| r.rec.levels.iter().map(|l| l.key())).filter(|k| k.step.is_some()));
    keys.iter()
        .filter_map(|k| {
            let series: Vec<Series> = runs
                .iter()
                .filter_map(|r| {
                    let l = r.rec.levels.iter().find(|l| l.key() == *k)?;
                    let points = downsample(&l.intervals, MAX_POINTS).iter().map(|p| (p.t, p.tps)).collect();
                    Some(Series { name: name(&r.rec), points, dashed: false, errors: Vec::new() })
                })
                .collect();
            let step = k.step.as_deref()?;
            (!series.is_empty()).then(|| Chart {
                id: format!("step-{}", step.replace('.', "_")),
                title: format!("Step {step}: operations per second"),
                x_label: "seconds into the step".into(),
                y_label: "operations/s".into(),
                x_scale: Scale::Linear,
                series,
                bands: vec![],
                markers: false,
                x_names: vec![],
            })
        })
        .collect()
}
