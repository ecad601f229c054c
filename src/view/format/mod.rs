//! Renderings of stored runs, the third plug-in axis beside workloads and
//! engines: one file per format and one line in [`FORMATS`]. `results`,
//! `compare`, `report` and the store browser go through this registry, and
//! the functions below say which format an option picks, so a command
//! names no format and calls no renderer.
//!
//! A format answers the uses it serves and leaves the others `None`: the
//! runs themselves (`results show`, `results export`), a comparison
//! (`compare`), the report's files (`report`).

pub mod csv;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod png;
pub mod text;

use crate::compare::gate::Line;
use crate::error::Result;
use crate::model::record::RunRecord;
use crate::output::{CompareFormat, FormatKey};
use std::path::Path;

/// A comparison as `compare` builds it: the baseline first, and each other
/// run's verdicts against it.
pub struct Comparison<'a> {
    pub runs: &'a [&'a RunRecord],
    pub verdicts: &'a [Vec<Line>],
    pub max_regression: Option<f64>,
}

/// What a rendering is asked to render, for the one-line refusal of a
/// `--format` that does not render it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// The runs in full (`results show`, `results export`).
    Runs,
    /// The store's runs, one line each (`results list`).
    List,
    /// Audit findings (`audit`).
    Findings,
    /// An environment snapshot (`env`).
    Snapshot,
    /// Change points of stored series (`results changes`).
    Changes,
    /// The sandboxes running (`server list`).
    Sandboxes,
    /// A timed-operations scenario's table (`scenario`).
    Scenario,
}

impl Use {
    /// The command that prints it, for messages.
    fn command(self) -> &'static str {
        match self {
            Use::Runs => "results export",
            Use::List => "results list",
            Use::Findings => "audit",
            Use::Snapshot => "env",
            Use::Changes => "results changes",
            Use::Sandboxes => "server list",
            Use::Scenario => "scenario",
        }
    }
}

/// One rendering of stored runs.
pub trait Format: Sync {
    /// Its key: the value an option gives it, and its file's name.
    fn key(&self) -> FormatKey;
    /// The name an option gives it.
    fn name(&self) -> String {
        self.key().name()
    }
    /// The runs `refs` names in `store` (all of them when none is named).
    fn runs(&self, _store: &Path, _refs: &[String]) -> Option<Result<String>> {
        None
    }
    /// The store's runs, one line or entry each.
    fn list(&self, _store: &Path) -> Option<Result<String>> {
        None
    }
    /// The audit's findings over `runs`.
    fn findings(&self, _runs: &[&RunRecord], _findings: &[crate::model::record::Finding]) -> Option<String> {
        None
    }
    /// An environment snapshot, as `env` takes it now.
    fn snapshot(&self, _snap: &crate::env::Snapshot) -> Option<Result<String>> {
        None
    }
    /// Change points found in the store's series, as asked by `q`.
    fn changes(&self, _found: &[crate::compare::series::Series], _q: &crate::compare::series::Query) -> Option<Result<String>> {
        None
    }
    /// The sandboxes running on this machine.
    fn sandboxes(&self, _list: &[crate::server::Sandbox]) -> Option<Result<String>> {
        None
    }
    /// A scenario's table, and where it was stored (its id in the store).
    fn scenario(&self, _rep: &crate::scenario::Report, _stored: Option<(i64, &Path)>) -> Option<Result<String>> {
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
pub static FORMATS: &[&dyn Format] = &[&text::Text, &json::Json, &markdown::Markdown, &junit::Junit, &csv::Csv, &html::Html, &png::Png];

/// The format registered under `key` (every key is: a test holds it).
pub fn named(key: FormatKey) -> &'static dyn Format {
    FORMATS.iter().copied().find(|f| f.key() == key).unwrap_or(FORMATS[0])
}

/// The format `key` for `u`, or the one-line refusal naming those that render it.
fn for_use<T>(key: FormatKey, u: Use, render: impl Fn(&dyn Format) -> Option<T>) -> Result<T> {
    if let Some(out) = render(named(key)) {
        return Ok(out);
    }
    // Which formats render `u` is found by asking each on an empty input: cheap, and it cannot disagree with the renderers.
    let serving: Vec<String> = FORMATS.iter().filter(|f| serves(**f, u)).map(|f| f.name()).collect();
    Err(crate::error::Error::Usage(format!("--format={}: {} writes {}", key.name(), u.command(), serving.join(" or "))))
}

/// Whether `f` renders `u` (asked on empty input).
fn serves(f: &dyn Format, u: Use) -> bool {
    match u {
        Use::Runs => f.runs(Path::new(""), &[]).is_some(),
        Use::List => f.list(Path::new("")).is_some(),
        Use::Findings => f.findings(&[], &[]).is_some(),
        Use::Snapshot => f.snapshot(&crate::env::Snapshot::default()).is_some(),
        Use::Changes => f.changes(&[], &crate::compare::series::Query::default()).is_some(),
        Use::Sandboxes => f.sandboxes(&[]).is_some(),
        Use::Scenario => f.scenario(&crate::scenario::Report::default(), None).is_some(),
    }
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
    let f = named(FormatKey::Text);
    f.runs(store, &[run.to_string()]).unwrap_or_else(|| unsupported(f, "runs"))
}

/// `results export [RUNS]`: `--format` (JSON by default; `--csv` is CSV).
pub fn export(store: &Path, refs: &[String], key: FormatKey) -> Result<String> {
    for_use(key, Use::Runs, |f| f.runs(store, refs))?
}

/// `results list`: `--format`.
pub fn list(store: &Path, key: FormatKey) -> Result<String> {
    for_use(key, Use::List, |f| f.list(store))?
}

/// `audit`: `--format`.
pub fn findings(runs: &[&RunRecord], findings: &[crate::model::record::Finding], key: FormatKey) -> Result<String> {
    for_use(key, Use::Findings, |f| f.findings(runs, findings))
}

/// `env`: `--format`.
pub fn snapshot(snap: &crate::env::Snapshot, key: FormatKey) -> Result<String> {
    for_use(key, Use::Snapshot, |f| f.snapshot(snap))?
}

/// `results changes`: `--format`.
pub fn changes(found: &[crate::compare::series::Series], q: &crate::compare::series::Query, key: FormatKey) -> Result<String> {
    for_use(key, Use::Changes, |f| f.changes(found, q))?
}

/// `server list`: `--format`.
pub fn sandboxes(list: &[crate::server::Sandbox], key: FormatKey) -> Result<String> {
    for_use(key, Use::Sandboxes, |f| f.sandboxes(list))?
}

/// `scenario`: `--format`.
pub fn scenario(rep: &crate::scenario::Report, stored: Option<(i64, &Path)>, key: FormatKey) -> Result<String> {
    for_use(key, Use::Scenario, |f| f.scenario(rep, stored))?
}

/// `compare`'s output: `--format`, or JSON with `--json`.
pub fn comparison(format: CompareFormat, json: bool, c: &Comparison) -> String {
    let f = named(if json { FormatKey::Json } else { format.into() });
    f.comparison(c).unwrap_or_else(|| unsupported(f, "comparison"))
}

/// `sweep`'s table: `--format`.
pub fn sweep(format: CompareFormat, t: &crate::sweep::table::Table) -> String {
    let f = named(format.into());
    f.sweep(t).unwrap_or_else(|| unsupported(f, "sweep"))
}

/// `sweep --html FILE`: the sweep's page.
pub fn sweep_page(t: &crate::sweep::table::Table, to: &Path) -> Result<()> {
    let f = named(FormatKey::Html);
    write(to, f.sweep(t).unwrap_or_else(|| unsupported(f, "sweep")).as_bytes())
}

/// `compare --junit FILE`.
pub fn junit(c: &Comparison) -> String {
    let f = named(FormatKey::Junit);
    f.comparison(c).unwrap_or_else(|| unsupported(f, "comparison"))
}

/// `report`: the page to `page_to`, and with `--charts DIR` each chart as
/// SVG and PNG there; the page as built.
pub fn report(runs: &[super::html::ReportRun], page_to: &Path, charts_to: Option<&Path>) -> Result<super::html::Report> {
    let page = super::html::build(runs, &crate::units::now_rfc3339());
    let write = |key: FormatKey, to: &Path| {
        let f = named(key);
        f.report(&page, to).unwrap_or_else(|| unsupported(f, "report"))
    };
    write(FormatKey::Html, page_to)?;
    if let Some(dir) = charts_to {
        write(FormatKey::Png, dir)?;
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key has its one format: `named` cannot fall back.
    #[test]
    fn every_key_is_registered_once() {
        use clap::ValueEnum;
        let mut keys: Vec<FormatKey> = FORMATS.iter().map(|f| f.key()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), FORMATS.len(), "a key registered twice");
        assert_eq!(keys, FormatKey::value_variants(), "a key without its format");
    }

    /// A format that does not render what a command prints is refused in one line naming those that do.
    #[test]
    fn a_format_that_renders_nothing_for_the_command_is_refused_naming_those_that_do() {
        let e = findings(&[], &[], FormatKey::Png).unwrap_err().to_string();
        assert_eq!(e, "--format=png: audit writes text or json");
        let e = list(Path::new("x"), FormatKey::Markdown).unwrap_err().to_string();
        assert_eq!(e, "--format=markdown: results list writes text or json");
        assert!(findings(&[], &[], FormatKey::Json).unwrap().contains("\"findings\":[]"));
        let e = sandboxes(&[], FormatKey::Markdown).unwrap_err().to_string();
        assert_eq!(e, "--format=markdown: server list writes text or json");
        let e = changes(&[], &crate::compare::series::Query::default(), FormatKey::Csv).unwrap_err().to_string();
        assert_eq!(e, "--format=csv: results changes writes text or json");
        // As `--json` printed them before the registry rendered them.
        assert_eq!(sandboxes(&[], FormatKey::Json).unwrap(), "[]\n");
        assert_eq!(changes(&[], &crate::compare::series::Query::default(), FormatKey::Json).unwrap(), "[]\n");
    }

    /// Every value `compare --format` accepts is a registered format.
    #[test]
    fn every_compare_format_is_registered() {
        use clap::ValueEnum;
        for v in CompareFormat::value_variants() {
            let name = crate::output::keys::name(v);
            assert!(FORMATS.iter().any(|f| f.name() == name), "compare --format {name}: no such format");
            assert!(named((*v).into()).sweep(&crate::sweep::table::Table::empty()).is_some(), "sweep --format {name}: not rendered");
        }
    }
}
