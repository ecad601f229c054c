//! JSON: `results export` (the runs in full, with their histograms, for
//! `compare --baseline FILE` and other tools) and `compare --format json`.

use super::{Comparison, Format};
use crate::error::{Error, Result};
use std::path::Path;

pub struct Json;

impl Format for Json {
    fn key(&self) -> crate::output::FormatKey {
        crate::output::FormatKey::Json
    }

    fn runs(&self, store: &Path, refs: &[String]) -> Option<Result<String>> {
        Some(crate::store::export_json(store, refs).and_then(|v| serde_json::to_string_pretty(&v).map(|s| s + "\n").map_err(|e| Error::Io(e.to_string()))))
    }

    fn comparison(&self, c: &Comparison) -> Option<String> {
        Some(format!("{}\n", crate::compare::json(c.runs, c.verdicts)))
    }

    fn sweep(&self, t: &crate::sweep::table::Table) -> Option<String> {
        serde_json::to_string_pretty(t).ok().map(|s| s + "\n")
    }

    fn list(&self, store: &Path) -> Option<Result<String>> {
        Some(crate::store::listed(store).and_then(|l| serde_json::to_string_pretty(&l).map(|s| s + "\n").map_err(|e| Error::Io(e.to_string()))))
    }

    fn findings(&self, runs: &[&crate::model::record::RunRecord], findings: &[crate::model::record::Finding]) -> Option<String> {
        Some(format!("{}\n", serde_json::json!({ "type": "audit", "runs": runs.iter().map(|r| r.id).collect::<Vec<_>>(), "findings": findings })))
    }

    fn snapshot(&self, snap: &crate::env::Snapshot) -> Option<Result<String>> {
        Some(pretty(snap))
    }

    fn changes(&self, found: &[crate::compare::series::Series], _q: &crate::compare::series::Query) -> Option<Result<String>> {
        Some(pretty(&found))
    }

    fn sandboxes(&self, list: &[crate::server::Sandbox]) -> Option<Result<String>> {
        Some(pretty(&list))
    }

    fn scenario(&self, rep: &crate::scenario::Report, stored: Option<(i64, &Path)>) -> Option<Result<String>> {
        Some(Json::scenario_line(rep, stored))
    }
}

impl Json {
    /// A scenario's report on one line, its type and where it was stored added.
    fn scenario_line(rep: &crate::scenario::Report, stored: Option<(i64, &Path)>) -> Result<String> {
        let mut v = serde_json::to_value(rep).map_err(|e| Error::Io(e.to_string()))?;
        v["type"] = "scenario".into();
        if let Some((id, _)) = stored {
            v["stored_as"] = id.into();
        }
        Ok(format!("{v}\n"))
    }
}

/// `v` as indented JSON and a newline.
fn pretty<T: serde::Serialize + ?Sized>(v: &T) -> Result<String> {
    serde_json::to_string_pretty(v).map(|s| s + "\n").map_err(|e| Error::Io(e.to_string()))
}
