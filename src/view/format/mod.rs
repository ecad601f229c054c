//! Renderings of stored runs, the third plug-in axis beside workloads and
//! engines: one file per format and one line in [`FORMATS`]. `results`,
//! `compare`, `report` and the store browser go through this registry, and
//! the functions below say which format an option picks, so a command
//! names no format and calls no renderer.
//!
//! A format answers the uses it serves and leaves the others `None`: the
//! runs themselves (`results show`, `results export`), a comparison
//! (`compare`), the report's files (`report`).

pub mod json;
pub mod junit;
pub mod markdown;
pub mod text;

use crate::compare::gate::Line;
use crate::error::Result;
use crate::model::record::RunRecord;
use crate::output::CompareFormat;
use std::path::Path;

/// A comparison as `compare` builds it: the baseline first, and each other
/// run's verdicts against it.
pub struct Comparison<'a> {
    pub runs: &'a [&'a RunRecord],
    pub verdicts: &'a [Vec<Line>],
    pub max_regression: Option<f64>,
}

/// One rendering of stored runs.
pub trait Format: Sync {
    /// The name an option gives it, and its file's name.
    fn name(&self) -> &'static str;
    /// The runs `refs` names in `store` (all of them when none is named).
    fn runs(&self, _store: &Path, _refs: &[String]) -> Option<Result<String>> {
        None
    }
    /// A comparison, as printed or written whole.
    fn comparison(&self, _c: &Comparison) -> Option<String> {
        None
    }
    /// A sweep's table, as printed or written whole.
    fn sweep(&self, _t: &crate::sweep::table::Table) -> Option<String> {
        None
    }
    /// The report's page written to `to` (a file, or a directory for a
    /// format of several files).
    fn report(&self, _page: &super::html::Report, _to: &Path) -> Option<Result<()>> {
        None
    }
}

/// Every rendering of stored runs; a format is registered here once.
pub static FORMATS: &[&dyn Format] = &[&text::Text, &json::Json, &markdown::Markdown, &junit::Junit, &super::csv::Csv, &super::html::Html, &super::png::Png];

/// The format registered under `name`.
pub fn named(name: &str) -> &'static dyn Format {
    FORMATS.iter().copied().find(|f| f.name() == name).unwrap_or_else(|| panic!("no output format {name} is registered"))
}

fn unsupported(f: &dyn Format, what: &str) -> ! {
    panic!("the {} format renders no {what}", f.name())
}

/// Writes a file a format renders, naming it when that fails.
pub fn write(p: &Path, b: &[u8]) -> Result<()> {
    std::fs::write(p, b).map_err(|e| crate::error::Error::Io(format!("cannot write {}: {e}", p.display())))
}

/// `results show RUN`.
pub fn show(store: &Path, run: &str) -> Result<String> {
    let f = named("text");
    f.runs(store, &[run.to_string()]).unwrap_or_else(|| unsupported(f, "runs"))
}

/// `results export [RUNS]`: JSON, or CSV with `--csv`.
pub fn export(store: &Path, refs: &[String], csv: bool) -> Result<String> {
    let f = named(if csv { "csv" } else { "json" });
    f.runs(store, refs).unwrap_or_else(|| unsupported(f, "runs"))
}

/// `compare`'s output: `--format`, or JSON with `--json`.
pub fn comparison(format: CompareFormat, json: bool, c: &Comparison) -> String {
    let f = named(&if json { "json".to_string() } else { crate::output::format::name(&format) });
    f.comparison(c).unwrap_or_else(|| unsupported(f, "comparison"))
}

/// `sweep`'s table: `--format`.
pub fn sweep(format: CompareFormat, t: &crate::sweep::table::Table) -> String {
    let f = named(&crate::output::format::name(&format));
    f.sweep(t).unwrap_or_else(|| unsupported(f, "sweep"))
}

/// `sweep --html FILE`: the sweep's page.
pub fn sweep_page(t: &crate::sweep::table::Table, to: &Path) -> Result<()> {
    let f = named("html");
    write(to, f.sweep(t).unwrap_or_else(|| unsupported(f, "sweep")).as_bytes())
}

/// `compare --junit FILE`.
pub fn junit(c: &Comparison) -> String {
    let f = named("junit");
    f.comparison(c).unwrap_or_else(|| unsupported(f, "comparison"))
}

/// `report`: the page to `page_to`, and with `--charts DIR` each chart as
/// SVG and PNG there; the page as built.
pub fn report(runs: &[super::html::ReportRun], page_to: &Path, charts_to: Option<&Path>) -> Result<super::html::Report> {
    let page = super::html::build(runs, &crate::units::now_rfc3339());
    let write = |name: &str, to: &Path| {
        let f = named(name);
        f.report(&page, to).unwrap_or_else(|| unsupported(f, "report"))
    };
    write("html", page_to)?;
    if let Some(dir) = charts_to {
        write("png", dir)?;
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = FORMATS.iter().map(|f| f.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), FORMATS.len());
    }

    /// Every value `compare --format` accepts is a registered format.
    #[test]
    fn every_compare_format_is_registered() {
        use clap::ValueEnum;
        for v in CompareFormat::value_variants() {
            let name = crate::output::format::name(v);
            assert!(FORMATS.iter().any(|f| f.name() == name), "compare --format {name}: no such format");
            assert!(named(&name).sweep(&crate::sweep::table::Table::empty()).is_some(), "sweep --format {name}: not rendered");
        }
    }
}
