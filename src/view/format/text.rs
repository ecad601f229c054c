//! Text: `results show` (a run in full) and `compare`'s default output.

use super::{Comparison, Format};
use crate::error::Result;
use std::path::Path;

pub struct Text;

impl Format for Text {
    fn key(&self) -> crate::output::FormatKey {
        crate::output::FormatKey::Text
    }

    fn runs(&self, store: &Path, refs: &[String]) -> Option<Result<String>> {
        Some(crate::store::load_many(store, refs).map(|rs| rs.iter().map(crate::store::show_text).collect()))
    }

    fn comparison(&self, c: &Comparison) -> Option<String> {
        Some(crate::compare::text(c.runs, c.verdicts, c.max_regression))
    }

    fn sweep(&self, t: &crate::sweep::table::Table) -> Option<String> {
        Some(crate::view::sweep::text(t))
    }

    fn list(&self, store: &Path) -> Option<Result<String>> {
        Some(crate::store::list_text(store))
    }

    fn findings(&self, _runs: &[&crate::model::record::RunRecord], findings: &[crate::model::record::Finding]) -> Option<String> {
        Some(crate::audit::findings_text(findings))
    }

    fn snapshot(&self, snap: &crate::env::Snapshot) -> Option<Result<String>> {
        Some(Ok(crate::live::snapshot::snapshot_text(snap)))
    }

    fn changes(&self, found: &[crate::compare::series::Series], q: &crate::compare::series::Query) -> Option<Result<String>> {
        Some(Ok(crate::compare::series::text(found, q)))
    }

    fn sandboxes(&self, list: &[crate::server::Sandbox]) -> Option<Result<String>> {
        Some(Ok(crate::server::list_text(list)))
    }

    fn scenario(&self, rep: &crate::scenario::Report, stored: Option<(i64, &Path)>) -> Option<Result<String>> {
        let mut o = format!("Scenario {} on {}\n\n{}", rep.scenario, rep.target, crate::scenario::table_text(rep));
        if let Some((id, store)) = stored {
            o.push_str(&format!("Stored as scenario {id} in {}\n", store.display()));
        }
        Some(Ok(o))
    }
}
