//! Text: `results show` (a run in full) and `compare`'s default output.

use super::{Comparison, Format};
use crate::error::Result;
use std::path::Path;

pub struct Text;

impl Format for Text {
    fn name(&self) -> &'static str {
        "text"
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
}
