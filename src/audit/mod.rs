//! The fairness audit: rules over stored runs that say what makes a result
//! or a comparison misleading, with the evidence and what to do about it.
//!
//! Rules on one run look at its own intervals, levels and environment;
//! rules on several runs look for differences between them that change the
//! outcome more than the thing being compared (durability, memory fit,
//! transport, prepared statements...). Engines name their settings
//! differently, so settings are first normalised into classes.
//!
//! Here: what the rules share (memory fit, reads per level, the finding's
//! shape) and the findings' text. `one_run.rs` the rules on one run,
//! `across_runs.rs` the rules across runs, `measured.rs` the engines' lists
//! of settings that change what is measured; `hardware.rs` and
//! `repetitions.rs` rules of both kinds on the hardware samples and the
//! repetitions, `tables.rs` on the workload's tables as the catalog showed
//! them, `versions.rs` on the builds and kernels that made the runs.

mod across_runs;
mod degradation;
mod hardware;
mod measured;
mod one_run;
mod pooler;
mod repetitions;
mod tables;
mod versions;
mod waits;

pub use across_runs::*;
pub use one_run::*;
pub use pooler::rule_pooler_mismatch;

use crate::db::engines::page_reads;
use crate::env::durability::{durability, DurClass};
use crate::env::Server;
use crate::model::record::{Finding, Severity};
use crate::model::record::{LevelRec, RunRecord};
use crate::stats::gaps::GapSpan;

fn finding(rule: &str, severity: Severity, runs: Vec<i64>, message: String, evidence: Vec<String>, advice: &str) -> Finding {
    Finding { rule: rule.into(), severity, runs, message, evidence, advice: advice.into() }
}

// ---------------------------------------------------------------------------
// Memory fit
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    InMemory,
    PartlyIoBound,
    IoBound,
    Unknown,
}

impl Fit {
    pub fn name(self) -> &'static str {
        match self {
            Fit::InMemory => "in-memory",
            Fit::PartlyIoBound => "partly IO-bound",
            Fit::IoBound => "IO-bound",
            Fit::Unknown => "unknown",
        }
    }
}

/// Data against the engine's cache: fits with room to spare (≤ 90%),
/// up to twice the cache, or more.
fn fit_of(data: f64, cache: f64) -> Fit {
    let r = data / cache;
    if r <= 0.9 {
        Fit::InMemory
    } else if r <= 2.0 {
        Fit::PartlyIoBound
    } else {
        Fit::IoBound
    }
}

/// The memory a dataset is cached in: the engine's own cache, or for an
/// engine that reads through the OS page cache (SQLite) whichever is larger
/// of that and the memory the OS page cache can use. A file smaller than
/// the available memory stays in the OS page cache after its first read.
pub fn fit_cache(s: &Server) -> Option<u64> {
    let c = s.cache_bytes?.max(s.os_cache_bytes.unwrap_or(0));
    (c > 0).then_some(c)
}

/// The whole dataset against the engine's cache.
pub fn memory_fit(s: &Server) -> (Fit, String) {
    let h = |b: u64| crate::units::human_bytes(b as f64);
    match (s.dataset_bytes, s.cache_bytes) {
        (Some(d), Some(c)) if s.os_cache_bytes.is_some_and(|os| os > c) => {
            let os = s.os_cache_bytes.unwrap_or(0);
            let fit = fit_of(d as f64, os as f64);
            (fit, format!("dataset {} vs {} of memory available to the OS page cache it reads through ({:.0}%); its own cache is {}", h(d), h(os), d as f64 * 100.0 / os as f64, h(c)))
        }
        (Some(d), Some(c)) if c > 0 => {
            let r = d as f64 / c as f64;
            let fit = fit_of(d as f64, c as f64);
            // An engine that reads through the OS page cache: a "read" there may not touch the disk.
            let os_caches = crate::db::engines::named(&s.engine).is_none_or(|e| e.os_cache_holds_data());
            let os = if os_caches { "; the OS page cache may hold more" } else { "" };
            (fit, format!("dataset {} vs cache {} ({:.0}%){os}", crate::units::human_bytes(d as f64), crate::units::human_bytes(c as f64), r * 100.0))
        }
        // A store that keeps everything in memory reads nothing from disk, whatever the sizes.
        _ if durability(s).class == DurClass::InMemory => (Fit::InMemory, "the engine keeps all its data in memory (not durable)".into()),
        _ => (Fit::Unknown, "dataset or cache size unknown".into()),
    }
}

/// Physical reads per transaction and share of page requests that missed the cache, over a level.
pub fn level_reads(l: &LevelRec) -> Option<(f64, f64)> {
    let mut sum = std::collections::BTreeMap::new();
    for s in l.samples.iter().filter(|s| s.t > 0.0) {
        for (k, v) in &s.sample.deltas {
            *sum.entry(k.clone()).or_insert(0.0) += v;
        }
    }
    let (phys, logical) = page_reads(&sum)?;
    let per_trx = if l.events > 0 { phys / l.events as f64 } else { 0.0 };
    let miss = if logical > 0.0 { phys / logical } else { 0.0 };
    Some((per_trx, miss))
}

fn server_of(r: &RunRecord) -> Option<&Server> {
    r.env_start.as_ref().map(|e| &e.server)
}

fn says_io_bound(r: &RunRecord) -> bool {
    let t = format!("{} {}", r.label, r.tag).to_ascii_lowercase().replace(['_', ' '], "-");
    t.contains("io-bound") || t.contains("iobound")
}

// ---------------------------------------------------------------------------
// Rules on one run
// ---------------------------------------------------------------------------

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ids(rs: &[&RunRecord]) -> Vec<i64> {
    rs.iter().map(|r| r.id).collect()
}

fn per_run(rs: &[&RunRecord], f: impl Fn(&RunRecord) -> String) -> Vec<String> {
    rs.iter().map(|r| format!("run {} ({}): {}", r.id, r.engine, f(r))).collect()
}

/// The lowest and highest of the compared runs' figures (`per`, one a run,
/// None where it was not had), when two runs or more have one and the
/// highest is at least `floor` and `factor` times the lowest: the runs
/// differ in practice.
fn apart(per: &[Option<f64>], floor: f64, factor: f64) -> Option<(f64, f64)> {
    let known: Vec<f64> = per.iter().flatten().copied().collect();
    let (lo, hi) = (known.iter().copied().fold(f64::INFINITY, f64::min), known.iter().copied().fold(0.0, f64::max));
    (known.len() >= 2 && hi >= floor && hi >= lo.max(1e-9) * factor).then_some((lo, hi))
}

/// Each run's figure of `per` (in the order of `rs`) as evidence: `shown`
/// of it, or `missing` where it was not had.
fn per_run_figure(rs: &[&RunRecord], per: &[Option<f64>], shown: impl Fn(f64) -> String, missing: &str) -> Vec<String> {
    per_run(rs, |r| {
        let i = rs.iter().position(|x| x.id == r.id).unwrap_or(0);
        per[i].map_or_else(|| missing.to_string(), &shown)
    })
}

pub fn findings_text(fs: &[Finding]) -> String {
    let mut o = String::new();
    if fs.is_empty() {
        o.push_str("Audit: no findings.\n");
        return o;
    }
    let count = |s: Severity| fs.iter().filter(|f| f.severity == s).count();
    o.push_str(&format!("Audit: {} critical, {} warning, {} info\n", count(Severity::Critical), count(Severity::Warning), count(Severity::Info)));
    for f in fs {
        o.push_str(&format!("[{}] {}: {}\n", f.severity.name().to_uppercase(), f.rule, f.message));
        for e in &f.evidence {
            o.push_str(&format!("    evidence: {e}\n"));
        }
        o.push_str(&format!("    what to do: {}\n", f.advice));
    }
    crate::columns::wrap(&o)
}
