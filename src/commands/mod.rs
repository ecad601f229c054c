//! The commands around the results store: recording runs, `results`,
//! `env`, `audit` and `compare`; the bench commands (`run`, `prepare`...),
//! `server` and `scenario` in their own files.

pub mod alternate;
pub mod bench;
pub mod explain;
pub mod man;
pub mod merge;
pub mod scenario;
pub mod server;
pub mod sweep;
pub mod verify;

use crate::audit;
use crate::cli::{AuditArgs, CompareArgs, EnvArgs, ReportArgs, ResultsAction, ResultsArgs};
use crate::db::ConnConfig;
use crate::env::DatasetTables;
use crate::error::{Error, Result};
use crate::model::record::{RunRecord, Severity};
use crate::output::FormatKey;
use crate::store;
use crate::view::format;
use std::path::Path;
use std::sync::Arc;

pub fn results(a: ResultsArgs) -> Result<()> {
    let path = &a.store.results;
    match a.action {
        ResultsAction::List { format: key } => print!("{}", format::list(path, key)?),
        ResultsAction::Show { run } => print!("{}", format::show(path, &run)?),
        ResultsAction::Export { runs, csv, format: key, .. } => print!("{}", format::export(path, &runs, key.unwrap_or(if csv { FormatKey::Csv } else { FormatKey::Json }))?),
        ResultsAction::Serve { addr } => crate::view::browse::serve(path.clone(), addr, crate::cli::reproduce)?,
        ResultsAction::Changes { metric, label, by, min_change, alpha, fail_on_regression, json, format: key } => {
            let q = crate::compare::series::Query { metric: &metric, label: label.as_deref(), by_version: by == "version", min_change, alpha };
            let found = crate::compare::series::changes(&store::load_all(path)?, &q);
            print!("{}", format::changes(&found, &q, key.unwrap_or(if json { FormatKey::Json } else { FormatKey::Text }))?);
            if let Some(limit) = fail_on_regression {
                if let Some(why) = crate::compare::series::newest_regressed(&found, limit) {
                    return Err(Error::Regression(why));
                }
            }
        }
        ResultsAction::Delete { runs } => {
            let ids = store::delete(path, &runs)?;
            println!("Deleted run{} {}", if ids.len() > 1 { "s" } else { "" }, ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
        }
    }
    Ok(())
}

/// `cfg` with the origin of its server's build, when a sandbox on this machine serves the
/// target with a build of the user's choice, and with the pool of a pooler sandbox serving it.
fn with_build(mut cfg: ConnConfig) -> ConnConfig {
    if let ([(_, port)], None, true) = (&cfg.target.hosts[..], &cfg.target.socket, crate::env::is_local(&cfg)) {
        cfg.build = crate::server::origin_on_port(*port);
        cfg.pool = crate::server::pool_on_port(*port);
    }
    cfg
}

pub fn env(a: EnvArgs) -> Result<()> {
    let cfg = Arc::new(with_build(a.target.resolve()?));
    sqlite_file_exists(&cfg)?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    let snap = rt.block_on(async {
        let mut conn = match crate::env::connect(&cfg).await {
            Ok(c) => c,
            Err(e) => return Err(Error::Connect(e)),
        };
        let s = crate::env::snapshot(Some(&mut conn), &cfg, &DatasetTables::Prefix(a.table_name.clone()), None).await;
        conn.close().await;
        Ok(s)
    })?;
    print!("{}", format::snapshot(&snap, a.format.unwrap_or(if a.json { FormatKey::Json } else { FormatKey::Text }))?);
    Ok(())
}

/// `env` only looks: opening a missing SQLite file would create an empty
/// database and report on it, so a mistyped path must fail instead.
fn sqlite_file_exists(cfg: &ConnConfig) -> Result<()> {
    let t = &cfg.target;
    let path = t.path.as_deref().unwrap_or("");
    let in_memory = path.is_empty() || path == ":memory:" || path.starts_with("file:");
    if t.protocol.embedded() && !in_memory && !Path::new(path).exists() {
        return Err(Error::Connect(format!("the database file {path} does not exist (`fairbench prepare` creates it)")));
    }
    Ok(())
}

pub fn audit(a: AuditArgs) -> Result<()> {
    let limit = match a.fail_on.to_ascii_lowercase().as_str() {
        "critical" => Some(Severity::Critical),
        "warning" => Some(Severity::Warning),
        "never" => None,
        o => return Err(Error::Usage(format!("--fail-on={o}: use critical, warning or never"))),
    };
    let rs = store::load_many(&a.store.results, &a.runs)?;
    let refs: Vec<&RunRecord> = rs.iter().collect();
    let fs = audit::audit(&refs);
    print!("{}", format::findings(&refs, &fs, a.format.unwrap_or(if a.json { FormatKey::Json } else { FormatKey::Text }))?);
    if let Some(l) = limit {
        if let Some(f) = fs.iter().find(|f| f.severity >= l) {
            return Err(Error::Check(format!("audit: {} finding: {}", f.severity.name(), f.rule)));
        }
    }
    Ok(())
}

pub fn compare(a: CompareArgs) -> Result<()> {
    use crate::compare::gate::{self, Metric};
    if a.baseline.is_none() && a.runs.len() < 2 {
        return Err(crate::usage!("compare needs two runs or more: a baseline and what to compare with it (give two run ids, or --baseline RUN|FILE and a run id)"));
    }
    let mut rs = Vec::new();
    if let Some(b) = &a.baseline {
        rs.push(baseline(b, &a.store.results)?);
    }
    rs.extend(store::load_series(&a.store.results, &a.runs)?);
    let refs: Vec<&RunRecord> = rs.iter().collect();
    let metrics = match a.metric.as_str() {
        "throughput" => vec![Metric::Throughput],
        "p99" => vec![Metric::P99],
        _ => vec![Metric::Throughput, Metric::P99],
    };
    let base = refs[0];
    // Each run against the baseline, once, for every output.
    let verdicts: Vec<Vec<gate::Line>> = refs[1..].iter().map(|r| gate::lines(base, r, &metrics, a.max_regression)).collect();
    let c = format::Comparison { runs: &refs, verdicts: &verdicts, max_regression: a.max_regression };
    print!("{}", format::comparison(a.format, a.json, &c));
    if let Some(path) = &a.junit {
        format::write(path, format::junit(&c).as_bytes())?;
    }
    let failed: Vec<String> =
        refs[1..].iter().zip(&verdicts).flat_map(|(r, ls)| ls.iter().filter(|l| l.regression).map(move |l| format!("run {} at {} clients ({})", r.id, l.threads, l.metric.name()))).collect();
    match a.max_regression {
        Some(max) if !failed.is_empty() => Err(Error::Regression(format!("regression beyond {:.1}% against baseline run {}: {}", max * 100.0, base.id, failed.join(", ")))),
        _ => Ok(()),
    }
}

/// A baseline: a file `results export` wrote (one run in it), else a stored run.
fn baseline(what: &str, store_path: &Path) -> Result<RunRecord> {
    let path = Path::new(what);
    if !path.is_file() {
        return store::load_series(store_path, &[what.to_string()])?.into_iter().next().ok_or_else(|| crate::usage!("baseline {what}: no such run"));
    }
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read baseline {what}: {e}")))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| crate::usage!("baseline {what} is not JSON from `fairbench results export`: {e}"))?;
    let runs = v.get("runs").and_then(|r| r.as_array()).ok_or_else(|| crate::usage!("baseline {what} has no \"runs\": write it with `fairbench results export RUN > {what}`"))?;
    match runs.as_slice() {
        [one] => serde_json::from_value(one.clone()).map_err(|e| crate::usage!("baseline {what}: its run cannot be read: {e}")),
        _ => Err(crate::usage!("baseline {what} holds {} runs: export the one to compare against (`fairbench results export RUN > {what}`)", runs.len())),
    }
}

pub fn report(a: ReportArgs) -> Result<()> {
    use crate::view::html;
    let t0 = std::time::Instant::now();
    let runs: Vec<html::ReportRun> = store::load_for_report(&a.store.results, &a.runs)?.into_iter().map(|(rec, hists)| html::ReportRun { command: crate::cli::reproduce(&rec), rec, hists }).collect();
    let page = format::report(&runs, &a.output, a.charts.as_deref())?;
    println!(
        "Wrote {} ({} KiB, {} charts) in {:.2} s{}",
        a.output.display(),
        page.html.len().div_ceil(1024),
        page.charts.len(),
        t0.elapsed().as_secs_f64(),
        a.charts.as_ref().map(|d| format!("; charts as SVG and PNG in {}", d.display())).unwrap_or_default()
    );
    Ok(())
}
