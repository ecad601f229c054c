//! `fairbench scenario FILE` and the built-in `fairbench scenario engines`.

use crate::cli::ScenarioArgs;
use crate::error::{Error, Result};
use crate::output::FormatKey;
use crate::scenario::{self, storage_engines, Client, Report};
use std::path::PathBuf;

/// A temp directory removed when dropped (unless the user chose it).
struct WorkDir {
    path: PathBuf,
    remove: bool,
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

fn work_dir(given: &Option<PathBuf>) -> Result<WorkDir> {
    let (path, remove) = match given {
        Some(p) => (p.clone(), false),
        None => (std::env::temp_dir().join(format!("fairbench-scenario-{}", std::process::id())), true),
    };
    std::fs::create_dir_all(&path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    Ok(WorkDir { path, remove })
}

pub fn scenario(a: ScenarioArgs) -> Result<()> {
    let key = a.format.unwrap_or(if a.json { FormatKey::Json } else { FormatKey::Text });
    // Standard output holds the report alone when it is JSON.
    let quiet = key == FormatKey::Json;
    let work = work_dir(&a.work_dir)?;
    let mut rep = if a.file == "engines" {
        if a.rows == 0 {
            return Err(crate::usage!("--rows=0: give at least 1 row"));
        }
        // Said, not refused: a FAIRBENCH_TARGET set for the other commands must not stop it.
        if a.target.target.is_some() {
            eprintln!("note: scenario engines runs on sandboxes it starts itself: the target (--target / FAIRBENCH_TARGET) is not used");
        }
        let o = storage_engines::Options { rows: a.rows, engines: storage_engines::parse_engines(a.engines.as_deref())?, work: work.path.clone(), quiet };
        let mut target = String::new();
        let mut rep = storage_engines::run(&o, &mut target)?;
        rep.target = format!("sandboxes: {}", target.trim());
        rep.scenario = format!("engines ({} rows)", a.rows);
        rep
    } else {
        let path = PathBuf::from(&a.file);
        let f = scenario::load(&path)?;
        if a.target.target.is_none() {
            return Err(crate::usage!("scenario {}: give the server with --target URL (`fairbench server start` makes one)", a.file));
        }
        let cfg = a.target.resolve()?;
        let target = cfg.target.clone();
        let mut client = Client::connect(cfg)?;
        let name = target.protocol.name().to_string();
        // Relative CSV paths are taken from the scenario file's directory.
        let base = path.parent().filter(|p| !p.as_os_str().is_empty()).map(PathBuf::from).unwrap_or_else(|| work.path.clone());
        let col = scenario::run_steps(&mut client, &f.steps, if a.work_dir.is_some() { &work.path } else { &base }, &name, quiet)?;
        Report { scenario: f.name.unwrap_or_else(|| a.file.clone()), target: target.to_string(), started: crate::units::now_rfc3339(), columns: vec![col], notes: f.description.into_iter().collect() }
    };
    rep.notes.retain(|n| !n.is_empty());
    let stored = if a.no_save { None } else { Some(scenario::store(&a.store.results, &rep)?) };
    print!("{}", crate::view::format::scenario(&rep, stored.map(|id| (id, a.store.results.as_path())), key)?);
    match rep.columns.iter().find_map(|c| c.failed.as_ref().map(|f| format!("{}: {f}", c.name))) {
        Some(f) => Err(Error::Sql(format!("scenario stopped: {f}"))),
        None => Ok(()),
    }
}
