//! `fairbench results`: runs read back by reference (ids, `last`,
//! `last-N`, `tag:NAME`), exported and deleted.

use super::{hist_from_bytes, io, load, open, SCHEMA_VERSION};
use crate::error::{Error, Result};
use crate::model::record::RunRecord;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use std::path::Path;

/// Resolves run references: ids, `last`, `last-N`.
pub fn resolve_ids(c: &Connection, refs: &[String]) -> Result<Vec<i64>> {
    let mut out = Vec::new();
    for r in refs {
        let id = if r == "last" || r.starts_with("last-") {
            let back: i64 = if r == "last" { 0 } else { r[5..].parse().map_err(|_| Error::Usage(format!("bad run reference '{r}': use an id, last or last-N")))? };
            c.query_row("SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?1", params![back], |r| r.get(0)).optional().map_err(|e| Error::Io(e.to_string()))?
        } else {
            let id: i64 = r.parse().map_err(|_| Error::Usage(format!("bad run reference '{r}': use an id (see `fairbench results list`), last or last-N")))?;
            c.query_row("SELECT id FROM runs WHERE id = ?1", params![id], |r| r.get(0)).optional().map_err(|e| Error::Io(e.to_string()))?
        };
        match id {
            Some(id) => out.push(id),
            None => return Err(Error::Usage(format!("no run '{r}' in the results store (see `fairbench results list`)"))),
        }
    }
    Ok(out)
}

pub fn load_many(path: &Path, refs: &[String]) -> Result<Vec<RunRecord>> {
    let c = open(path, false)?;
    let ids = resolve_ids(&c, refs)?;
    let mut v = Vec::new();
    for id in ids {
        if let Some(r) = load(&c, id, false).map_err(|e| io(path, e))? {
            v.push(r);
        }
    }
    Ok(v)
}

/// Runs for `compare`: a reference `tag:NAME` is every run stored with
/// that `--tag`, merged into one series (runs of one configuration
/// alternated with another's, each its own process); any other reference is
/// one run as `load_many` reads it.
pub fn load_series(path: &Path, refs: &[String]) -> Result<Vec<RunRecord>> {
    Ok(load_refs(path, refs, false)?.into_iter().map(|(r, _)| r).collect())
}

/// The ids of the runs stored with `--tag TAG`, oldest first.
fn tagged_ids(c: &Connection, path: &Path, tag: &str) -> Result<Vec<i64>> {
    let mut st = c.prepare("SELECT id FROM runs WHERE tag = ?1 ORDER BY id").map_err(|e| io(path, e))?;
    let ids: Vec<i64> = st.query_map(params![tag], |r| r.get(0)).and_then(|m| m.collect()).map_err(|e| io(path, e))?;
    if ids.is_empty() {
        return Err(Error::Usage(format!("no run tagged '{tag}' in the results store (runs are tagged with --tag)")));
    }
    Ok(ids)
}

/// Runs by reference, `tag:NAME` merged into one series, each with its
/// levels' histograms when `histograms` is set (empty otherwise).
fn load_refs(path: &Path, refs: &[String], histograms: bool) -> Result<Vec<(RunRecord, LevelHistograms)>> {
    let c = open(path, false)?;
    let mut out = Vec::new();
    for r in refs {
        let ids = match r.strip_prefix("tag:") {
            Some(tag) => tagged_ids(&c, path, tag)?,
            None => resolve_ids(&c, std::slice::from_ref(r))?,
        };
        let (mut runs, mut hists) = (Vec::new(), Vec::new());
        for id in ids {
            runs.extend(load(&c, id, false).map_err(|e| io(path, e))?);
            if histograms {
                hists.extend(level_histograms(&c, id).map_err(|e| io(path, e))?);
            }
        }
        if let Some(run) = RunRecord::merged(runs) {
            out.push((run, hists));
        }
    }
    Ok(out)
}

/// Each level's latency histogram (all measured intervals merged), in level order.
pub type LevelHistograms = Vec<Option<hdrhistogram::Histogram<u64>>>;

pub fn level_histograms(c: &Connection, id: i64) -> rusqlite::Result<LevelHistograms> {
    let mut st = c.prepare("SELECT histogram FROM levels WHERE run_id = ?1 ORDER BY level_no")?;
    let rows = st.query_map(params![id], |r| r.get::<_, Option<Vec<u8>>>(0))?;
    rows.map(|b| b.map(|b| b.and_then(|b| hist_from_bytes(&b)))).collect()
}

/// Runs for a report: each record (without interval histograms) with its
/// levels' histograms.
pub fn load_for_report(path: &Path, refs: &[String]) -> Result<Vec<(RunRecord, LevelHistograms)>> {
    load_refs(path, refs, true)
}

/// Every stored run, oldest first.
pub fn load_all(path: &Path) -> Result<Vec<RunRecord>> {
    let c = open(path, false)?;
    let mut st = c.prepare("SELECT id FROM runs ORDER BY id").map_err(|e| io(path, e))?;
    let ids: Vec<i64> = st.query_map([], |r| r.get(0)).and_then(|m| m.collect()).map_err(|e| io(path, e))?;
    let mut v = Vec::new();
    for id in ids {
        if let Some(r) = load(&c, id, false).map_err(|e| io(path, e))? {
            v.push(r);
        }
    }
    Ok(v)
}

pub fn export_json(path: &Path, refs: &[String]) -> Result<Value> {
    let c = open(path, false)?;
    let ids = if refs.is_empty() {
        let mut st = c.prepare("SELECT id FROM runs ORDER BY id").map_err(|e| io(path, e))?;
        let v: Vec<i64> = st.query_map([], |r| r.get(0)).and_then(|m| m.collect()).map_err(|e| io(path, e))?;
        v
    } else {
        resolve_ids(&c, refs)?
    };
    let mut runs = Vec::new();
    for id in ids {
        if let Some(r) = load(&c, id, true).map_err(|e| io(path, e))? {
            let mut v = serde_json::to_value(&r).unwrap_or(Value::Null);
            v["status_text"] = Value::String(r.status_text());
            // The hardware figures per operation of each level, derived from its samples.
            for (lv, e) in v["levels"].as_array_mut().into_iter().flatten().zip(crate::model::efficiency::of_run(&r)) {
                lv["efficiency"] = serde_json::to_value(e).unwrap_or(Value::Null);
            }
            runs.push(v);
        }
    }
    Ok(serde_json::json!({ "tool": "fairbench", "version": crate::VERSION, "schema_version": SCHEMA_VERSION, "histogram_format": "HdrHistogram V2 + deflate, base64, microseconds", "runs": runs }))
}

pub fn delete(path: &Path, refs: &[String]) -> Result<Vec<i64>> {
    let mut c = open(path, false)?;
    let ids = resolve_ids(&c, refs)?;
    let tx = c.transaction().map_err(|e| io(path, e))?;
    for id in &ids {
        for t in ["intervals", "env_samples", "profiles", "levels", "write_checks"] {
            tx.execute(&format!("DELETE FROM {t} WHERE run_id = ?1"), params![id]).map_err(|e| io(path, e))?;
        }
        tx.execute("DELETE FROM runs WHERE id = ?1", params![id]).map_err(|e| io(path, e))?;
    }
    tx.commit().map_err(|e| io(path, e))?;
    Ok(ids)
}
