//! JSON: `results export` (the runs in full, with their histograms, for
//! `compare --baseline FILE` and other tools) and `compare --format json`.

use super::{Comparison, Format};
use crate::error::{Error, Result};
use std::path::Path;

pub struct Json;

impl Format for Json {
    fn name(&self) -> &'static str {
        "json"
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
}
