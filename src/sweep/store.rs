//! A sweep's plan in the results store, beside its runs (a table of its
//! own), and how many of its runs the store holds.

use super::SweepPlan;
use crate::error::{Error, Result};
use rusqlite::{params, OptionalExtension};
use std::path::Path;

const TABLE: &str = "CREATE TABLE IF NOT EXISTS sweeps(tag TEXT PRIMARY KEY, created TEXT NOT NULL, plan TEXT NOT NULL)";

fn io(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("results store {}: {e}", path.display()))
}

/// Stores `plan` under its tag; a sweep of that tag already stored is
/// refused unless it is the same plan (a resumed sweep).
pub fn save(path: &Path, plan: &SweepPlan) -> Result<()> {
    let c = crate::store::open(path, true)?;
    c.execute_batch(TABLE).map_err(|e| io(path, e))?;
    let json = serde_json::to_string(plan).map_err(|e| Error::Io(e.to_string()))?;
    c.execute("INSERT OR IGNORE INTO sweeps(tag, created, plan) VALUES(?1, ?2, ?3)", params![plan.tag, crate::units::now_rfc3339(), json]).map_err(|e| io(path, e))?;
    Ok(())
}

/// The plan stored under `tag`.
pub fn load(path: &Path, tag: &str) -> Result<SweepPlan> {
    let c = crate::store::open(path, false)?;
    c.execute_batch(TABLE).map_err(|e| io(path, e))?;
    let json: Option<String> = c.query_row("SELECT plan FROM sweeps WHERE tag = ?1", params![tag], |r| r.get(0)).optional().map_err(|e| io(path, e))?;
    let json = json.ok_or_else(|| Error::Usage(format!("no sweep '{tag}' in {} (a sweep prints its tag as it starts)", path.display())))?;
    serde_json::from_str(&json).map_err(|e| io(path, format!("sweep '{tag}': {e}")))
}

/// Whether a sweep of that tag is stored.
pub fn exists(path: &Path, tag: &str) -> Result<bool> {
    if !path.exists() {
        return Ok(false);
    }
    let c = crate::store::open(path, false)?;
    c.execute_batch(TABLE).map_err(|e| io(path, e))?;
    c.query_row("SELECT count(*) > 0 FROM sweeps WHERE tag = ?1", params![tag], |r| r.get(0)).map_err(|e| io(path, e))
}

/// Completed runs of the sweep `tag` (tagged `TAG/...`), by tag: one query,
/// however many versions and runs the sweep has.
pub fn completed(path: &Path, tag: &str) -> Result<std::collections::HashMap<String, usize>> {
    if !path.exists() {
        return Ok(Default::default());
    }
    let c = crate::store::open(path, false)?;
    let mut st = c.prepare("SELECT tag, count(*) FROM runs WHERE substr(tag, 1, ?2) = ?1 AND status = 'completed' GROUP BY tag").map_err(|e| io(path, e))?;
    let prefix = format!("{tag}/");
    let rows = st.query_map(params![prefix, prefix.chars().count() as i64], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as usize)));
    rows.and_then(|m| m.collect()).map_err(|e| io(path, e))
}

/// The throughput of the newest run stored with `tag`: its levels' median.
pub fn last_tps(path: &Path, tag: &str) -> Result<Option<f64>> {
    let c = crate::store::open(path, false)?;
    let id: Option<i64> = c.query_row("SELECT id FROM runs WHERE tag = ?1 ORDER BY id DESC LIMIT 1", params![tag], |r| r.get(0)).optional().map_err(|e| io(path, e))?;
    let Some(id) = id else { return Ok(None) };
    let mut st = c.prepare("SELECT tps FROM levels WHERE run_id = ?1 AND tps IS NOT NULL").map_err(|e| io(path, e))?;
    let v: Vec<f64> = st.query_map(params![id], |r| r.get(0)).and_then(|m| m.collect()).map_err(|e| io(path, e))?;
    Ok((!v.is_empty()).then(|| crate::stats::significance::median(&v)))
}
