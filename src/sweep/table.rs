//! The table Small Datum publishes for a version series: per run (and
//! level), each version's throughput divided by the base version's, marked
//! where the ratio's 95% interval excludes 1, with the hardware spent per
//! operation beside it, also relative, and a sentence for each large change.

use super::SweepPlan;
use crate::error::Result;
use crate::model::efficiency::{self, Efficiency};
use crate::model::record::{LevelKey, RunRecord};
use crate::stats::significance::{median, ratio};
use serde::Serialize;
use std::path::Path;

/// A change this large (beyond the noise) gets a sentence.
pub const LARGE: f64 = 0.10;

#[derive(Clone, Debug, Serialize)]
pub struct Table {
    pub tag: String,
    pub engine: String,
    pub preset: Option<String>,
    pub versions: Vec<Column>,
    pub base: usize,
    pub rows: Vec<Row>,
    /// One per large change beyond the noise.
    pub sentences: Vec<String>,
    /// Runs of the plan with nothing stored (yet).
    pub missing: Vec<String>,
    pub notes: Vec<String>,
}

impl Table {
    /// A table of nothing (for the renderings' tests).
    pub fn empty() -> Table {
        Table {
            tag: String::new(),
            engine: String::new(),
            preset: None,
            versions: vec![Column { key: "a".into(), server_version: None, origin: None }],
            base: 0,
            rows: vec![],
            sentences: vec![],
            missing: vec![],
            notes: vec![],
        }
    }
}

/// A version: its key in the sweep, and what its runs' servers reported.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    pub key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl Column {
    /// The column's heading: the key, and the server's version when the key is not it.
    pub fn heading(&self) -> String {
        match self.server_version.as_deref().map(short_version) {
            Some(v) if !v.is_empty() && v != self.key => format!("{} ({v})", self.key),
            _ => self.key.clone(),
        }
    }
}

/// The version number in a server's version string: "16.14" of
/// "PostgreSQL 16.14 on x86_64 ...", "10.11.6" of "10.11.6-MariaDB-0+deb12u1".
pub fn short_version(s: &str) -> &str {
    let tok = s.split_whitespace().find(|t| t.starts_with(|c: char| c.is_ascii_digit())).unwrap_or("");
    tok.split(['-', '(', ',', '+']).next().unwrap_or(tok)
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub run: String,
    /// The level (a step, or a client count) when the run has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    pub cells: Vec<Option<Cell>>,
}

impl Row {
    pub fn name(&self) -> String {
        match &self.level {
            Some(l) => format!("{} {l}", self.run),
            None => self.run.clone(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// Repetitions measured.
    pub n: usize,
    /// Median operations (transactions) per second.
    pub tps: f64,
    /// Against the base version: the ratio of the geometric means (of the
    /// medians with one repetition on a side).
    pub relative: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci: Option<(f64, f64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// The 95% interval of `relative` excludes 1.
    pub beyond_noise: bool,
    pub hardware: Vec<Hw>,
}

/// One figure of hardware per operation: its value (median over the
/// repetitions) and its ratio to the base version's.
#[derive(Clone, Debug, Serialize)]
pub struct Hw {
    pub name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative: Option<f64>,
}

/// The figures, Small Datum's: CPU, context switches, KB read and written,
/// each per operation. The server's own where it was sampled, the host's otherwise.
pub type Figure = (&'static str, fn(&Efficiency) -> Option<f64>);

pub const FIGURES: &[Figure] = &[
    ("CPU µs/op", |e| e.server_cpu_us_per_trx.or(e.host_cpu_us_per_trx)),
    ("cs/op", |e| e.server_cs_per_trx().or(e.host_cs_per_trx)),
    ("KB read/op", |e| e.server_read_kb_per_trx.or(e.read_kb_per_trx)),
    ("KB written/op", |e| e.server_write_kb_per_trx.or(e.write_kb_per_trx)),
];

/// The stored runs of one version and run, as one series.
fn series(store: &Path, tag: &str) -> Option<RunRecord> {
    crate::store::load_series(store, &[format!("tag:{tag}")]).ok()?.into_iter().next()
}

/// The level keys of a run in the order they ran.
fn keys_of(r: &RunRecord) -> Vec<LevelKey> {
    let mut v: Vec<LevelKey> = Vec::new();
    for rep in r.repeated() {
        if !v.contains(&rep.key()) {
            v.push(rep.key());
        }
    }
    v
}

/// Each figure's median over the repetitions at `key`.
fn hardware_at(all: &[Efficiency], key: &LevelKey) -> Vec<Option<f64>> {
    FIGURES
        .iter()
        .map(|(_, f)| {
            let v: Vec<f64> = all.iter().filter(|e| e.key() == *key).filter_map(f).filter(|x| x.is_finite()).collect();
            (!v.is_empty()).then(|| median(&v))
        })
        .collect()
}

pub fn build(store: &Path, plan: &SweepPlan) -> Result<Table> {
    let mut versions: Vec<Column> = plan.versions.iter().map(|k| Column { key: k.clone(), server_version: None, origin: None }).collect();
    let mut rows = Vec::new();
    let mut sentences = Vec::new();
    let mut missing = Vec::new();
    for (ri, run) in plan.runs.iter().enumerate() {
        let recs: Vec<Option<RunRecord>> = (0..plan.versions.len()).map(|v| series(store, &plan.tag_of(v, ri))).collect();
        for (v, r) in recs.iter().enumerate() {
            match r {
                None => missing.push(plan.tag_of(v, ri)),
                Some(r) => {
                    if let Some(s) = r.env_start.as_ref().map(|e| &e.server) {
                        versions[v].server_version.get_or_insert_with(|| s.version.clone());
                        if versions[v].origin.is_none() {
                            versions[v].origin = s.origin.clone();
                        }
                    }
                }
            }
        }
        let Some(base) = &recs[plan.base] else { continue };
        let keys = keys_of(base);
        let effs: Vec<Option<Vec<Efficiency>>> = recs.iter().map(|r| r.as_ref().map(efficiency::of_run)).collect();
        let base_reps = base.repeated();
        for key in &keys {
            let Some(b) = base_reps.iter().find(|x| x.key() == *key) else { continue };
            let base_hw = hardware_at(effs[plan.base].as_deref().unwrap_or_default(), key);
            let mut cells = Vec::new();
            for (v, r) in recs.iter().enumerate() {
                let Some(r) = r else {
                    cells.push(None);
                    continue;
                };
                let reps = r.repeated();
                let Some(x) = reps.iter().find(|x| x.key() == *key) else {
                    cells.push(None);
                    continue;
                };
                let test = if v == plan.base { None } else { ratio(&b.tps, &x.tps) };
                let relative = match &test {
                    Some(t) => t.ratio,
                    None if v == plan.base => 1.0,
                    None => median(&x.tps) / median(&b.tps),
                };
                let hw_v = hardware_at(effs[v].as_deref().unwrap_or_default(), key);
                let hardware = FIGURES
                    .iter()
                    .zip(hw_v.iter().zip(&base_hw))
                    .map(|((name, _), (val, base))| Hw {
                        name,
                        value: *val,
                        relative: match (val, base) {
                            (Some(a), Some(b)) if *b > 0.0 => Some(a / b),
                            _ => None,
                        },
                    })
                    .collect();
                let cell = Cell {
                    n: x.tps.len(),
                    tps: median(&x.tps),
                    relative,
                    ci: test.as_ref().map(|t| t.ci),
                    p: test.as_ref().map(|t| t.p),
                    beyond_noise: test.as_ref().is_some_and(|t| t.significant()),
                    hardware,
                };
                if cell.beyond_noise && (cell.relative - 1.0).abs() >= LARGE {
                    sentences.push(sentence(&plan.versions, plan.base, v, run.name.as_str(), key, &cell, (base, r), (effs[plan.base].as_deref(), effs[v].as_deref())));
                }
                cells.push(Some(cell));
            }
            let level = (keys.len() > 1 || key.step.is_some()).then(|| key.cell());
            rows.push(Row { run: run.name.clone(), level, cells });
        }
    }
    Ok(Table { tag: plan.tag.clone(), engine: plan.engine.clone(), preset: plan.preset.clone(), versions, base: plan.base, rows, sentences, missing, notes: plan.notes.clone() })
}

fn pct(r: f64) -> String {
    format!("{:+.1}%", (r - 1.0) * 100.0)
}

/// "update-index on 17: throughput -23.4% (95% CI -27.0% to -19.6%) against 12;
/// CPU µs/op +31.0%; ..." and the server's time that changed most, when sampled.
#[allow(clippy::too_many_arguments)]
fn sentence(keys: &[String], base: usize, v: usize, run: &str, key: &LevelKey, c: &Cell, recs: (&RunRecord, &RunRecord), effs: (Option<&[Efficiency]>, Option<&[Efficiency]>)) -> String {
    let at = if key.step.is_some() { format!(" {}", key.at()) } else { String::new() };
    let mut s = format!("{run}{at} on {}: throughput {} against {}", keys[v], pct(c.relative), keys[base]);
    if let Some((lo, hi)) = c.ci {
        s.push_str(&format!(" (95% CI {} to {})", pct(lo), pct(hi)));
    }
    // The hardware figure that moved most.
    if let Some(h) = c.hardware.iter().filter(|h| h.relative.is_some_and(f64::is_finite)).max_by(|a, b| (a.relative.unwrap() - 1.0).abs().total_cmp(&(b.relative.unwrap() - 1.0).abs())) {
        s.push_str(&format!("; {} {}", h.name, pct(h.relative.unwrap_or(1.0))));
    }
    if let (Some(eb), Some(ev)) = effs {
        let rs = [recs.0, recs.1];
        let diffs = crate::compare::config_diff(&rs);
        if let Some(w) = crate::compare::waits::sentence(&rs, &[eb.to_vec(), ev.to_vec()], &diffs) {
            s.push_str(&format!(". {w}"));
            return s;
        }
    }
    s.push('.');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_shown_short() {
        assert_eq!(short_version("PostgreSQL 16.14 on x86_64-pc-linux-gnu, compiled by gcc"), "16.14");
        assert_eq!(short_version("PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64"), "15.18");
        assert_eq!(short_version("10.11.6-MariaDB-0+deb12u1"), "10.11.6");
        assert_eq!(short_version("3.54.1"), "3.54.1");
        let c = Column { key: "system".into(), server_version: Some("PostgreSQL 15.18 (Debian)".into()), origin: None };
        assert_eq!(c.heading(), "system (15.18)");
    }
}
