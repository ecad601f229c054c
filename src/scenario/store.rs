//! Storing a scenario's report in the results store beside the runs.

use super::Report;
use crate::error::{Error, Result};
use std::path::Path;

/// Stores the report in the results store (tables of its own beside the runs).
pub fn store(path: &Path, rep: &Report) -> Result<i64> {
    let c = crate::store::open(path, true)?;
    let io = |e: rusqlite::Error| Error::Io(format!("results store {}: {e}", path.display()));
    c.execute_batch(
        "CREATE TABLE IF NOT EXISTS scenarios(id INTEGER PRIMARY KEY, name TEXT NOT NULL, target TEXT NOT NULL, started TEXT NOT NULL, failed TEXT, report TEXT NOT NULL);
         CREATE TABLE IF NOT EXISTS scenario_steps(scenario INTEGER NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE, col TEXT NOT NULL, seq INTEGER NOT NULL, step TEXT NOT NULL, kind TEXT NOT NULL, run INTEGER NOT NULL, seconds REAL, rows INTEGER, error TEXT);
         CREATE TABLE IF NOT EXISTS scenario_sizes(scenario INTEGER NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE, col TEXT NOT NULL, seq INTEGER NOT NULL, step TEXT NOT NULL, what TEXT NOT NULL, bytes INTEGER NOT NULL);",
    )
    .map_err(io)?;
    let failed: Vec<String> = rep.columns.iter().filter_map(|c| c.failed.as_ref().map(|f| format!("{}: {f}", c.name))).collect();
    let json = serde_json::to_string(rep).map_err(|e| Error::Io(e.to_string()))?;
    c.execute(
        "INSERT INTO scenarios(name, target, started, failed, report) VALUES(?1, ?2, ?3, ?4, ?5)",
        rusqlite::params![rep.scenario, rep.target, rep.started, if failed.is_empty() { None } else { Some(failed.join("; ")) }, json],
    )
    .map_err(io)?;
    let id = c.last_insert_rowid();
    for col in &rep.columns {
        for (seq, s) in col.steps.iter().enumerate() {
            let runs: Vec<Option<f64>> = if s.seconds.is_empty() { vec![None] } else { s.seconds.iter().map(|t| Some(*t)).collect() };
            for (run, t) in runs.iter().enumerate() {
                c.execute(
                    "INSERT INTO scenario_steps(scenario, col, seq, step, kind, run, seconds, rows, error) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    rusqlite::params![id, col.name, seq as i64 + 1, s.step, s.kind, run as i64 + 1, t, s.rows.map(|r| r as i64), s.error],
                )
                .map_err(io)?;
            }
            for (what, b) in &s.sizes {
                c.execute("INSERT INTO scenario_sizes(scenario, col, seq, step, what, bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6)", rusqlite::params![id, col.name, seq as i64 + 1, s.step, what, *b as i64])
                    .map_err(io)?;
            }
        }
    }
    Ok(id)
}
