//! `--verify-writes` around a run (and the check `fairbench check writes
//! FILE` makes later): the write log is opened before the first level and handed to the workload,
//! whose clients record into it (see `crate::workload::witness`); after the
//! last level (or later, from the file) the keys are read back from the
//! target and the verdict is printed, stored and audited.

use crate::db::{connect_error, Conn, ConnConfig, ErrKind, StatementSet};
use crate::error::{Error, Result};
use crate::store::Recorder;
use crate::usage;
use crate::workload::plan::Plan;
use crate::workload::witness::{self, Found, Key, LogHeader, Verdict, WriteLog};
use crate::workload::Workload;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Lost keys the text output lists; the JSON object and the store hold all.
const SHOWN: usize = 20;

/// Keys read back per call into the workload.
const READ_BATCH: usize = 10_000;

/// A workload that cannot verify its writes refuses `--verify-writes`
/// before anything runs.
pub fn refuse_unsupported<W: Workload>(w: &W, plan: &Plan) -> Result<()> {
    if plan.run.verify_writes.is_some() && w.witnessing().is_none() {
        return Err(usage!("--verify-writes: the {} workload, with these options, records no writes it could verify; see docs/verify-writes.md for those that do", plan.workload));
    }
    Ok(())
}

/// Opens the write log and turns the recording on (None without
/// `--verify-writes`). The log is named after the run when it is stored
/// (`stored`: the run's id and its results store).
pub fn start<W: Workload>(w: &W, plan: &Plan, cfg: &ConnConfig, stored: Option<(i64, PathBuf)>) -> Result<Option<Arc<WriteLog>>> {
    let run_id = stored.as_ref().map(|s| s.0);
    let (Some(path), Some(how)) = (&plan.run.verify_writes, w.witnessing()) else { return Ok(None) };
    let path = if path.is_empty() { default_path(run_id) } else { PathBuf::from(path) };
    let header = LogHeader {
        workload: plan.workload.clone(),
        options: plan.families.given_options(),
        check: how.check,
        key_names: how.key_names.iter().map(|s| s.to_string()).collect(),
        target: cfg.target.to_string(),
        started_at: crate::units::now_rfc3339(),
        run_id,
        results: stored.map(|(_, p)| std::path::absolute(&p).unwrap_or(p)),
    };
    let log = WriteLog::create(&path, &header)?;
    w.record_writes(log.clone());
    Ok(Some(log))
}

/// `fairbench-writes-<run id>.log` in the working directory; a run that is
/// not stored has no id, and takes the time and the process id instead.
fn default_path(run_id: Option<i64>) -> PathBuf {
    match run_id {
        Some(id) => PathBuf::from(format!("fairbench-writes-{id}.log")),
        None => {
            let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
            PathBuf::from(format!("fairbench-writes-{secs}-{}.log", std::process::id()))
        }
    }
}

/// After the last level: the verdict, printed and stored; lost writes turn
/// a run that succeeded into a failed check (exit 5). A run stopped by
/// Ctrl-C is not checked (it must stop at once): the log stays for
/// `fairbench check writes`.
pub fn after_run<W: Workload>(w: &W, log: Arc<WriteLog>, cfg: Arc<ConnConfig>, recorder: Option<&Recorder>, outcome: Result<()>, json: bool) -> Result<()> {
    let flushed = log.flush();
    let path = log.path().to_path_buf();
    drop(log);
    if matches!(outcome, Err(Error::Interrupted)) {
        let line = format!("--verify-writes: not checked (interrupted); the write log is {}: check it with `fairbench check writes {} --target URL`", path.display(), path.display());
        eprintln!("{line}");
        return outcome;
    }
    let verdict = flushed.and_then(|()| verdict_of_file(w, &path, cfg));
    let v = match verdict {
        Ok(v) => v,
        Err(e) => {
            eprintln!("fairbench: --verify-writes: the writes could not be checked: {}", crate::error::one_line(&e.to_string()));
            return outcome.and(Err(e));
        }
    };
    print(&v, json);
    if let Some(r) = recorder {
        r.set_writes(&v);
    }
    outcome.and_then(|()| lost_is_failure(&v))
}

/// The verdict of a later check joins the run's record (its `Writes
/// verified` line and the audit's `lost-writes` finding), as if the run had
/// checked at its end: in `--results FILE`, else in the store the run was
/// recorded in. A run that was not stored, or a store without it, is said
/// in one line; the verdict printed above is the check's result either way.
pub fn store_with_run(header: &LogHeader, given: Option<&Path>, v: &Value) {
    let Some(id) = header.run_id else { return };
    let Some(path) = given.map(Path::to_path_buf).or_else(|| header.results.clone()) else { return };
    let stored = crate::store::attach_writes(&path, id, &header.workload, v).and_then(|run| crate::store::set_findings(&path, id, &crate::audit::with_writes_rechecked(&run)));
    match stored {
        Ok(()) => eprintln!("Stored with run {id} in {}", path.display()),
        Err(e) => eprintln!("fairbench: check writes: the verdict is not stored: {}", crate::error::one_line(&e.to_string())),
    }
}

/// The check of a log against the target for the workload that wrote it
/// (`fairbench check writes`): the verdict, as the JSON "writes" object.
pub fn check_file<W: Workload>(w: &W, path: &Path, cfg: Arc<ConnConfig>) -> Result<Value> {
    if w.witnessing().is_none() {
        return Err(usage!("check writes: this workload, with the options in {}, records no writes it could verify", path.display()));
    }
    verdict_of_file(w, path, cfg)
}

pub fn lost_is_failure(v: &Value) -> Result<()> {
    match v["lost"].as_u64().unwrap_or(0) {
        0 => Ok(()),
        n => Err(Error::Check(format!("--verify-writes: {n} write(s) whose COMMIT was acknowledged are missing from the target (all their keys are in the JSON object and the store)"))),
    }
}

/// Reads a log, reads its keys back from the target and judges them: the
/// verdict as the JSON "writes" object.
fn verdict_of_file<W: Workload>(w: &W, path: &Path, cfg: Arc<ConnConfig>) -> Result<Value> {
    let log = witness::read(path)?;
    let keys = witness::keys(&log.recs);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    let found = rt.block_on(crate::signal::unless_interrupted(read_all(w, cfg, &keys)))?;
    let v = witness::judge(log.header.check, &log.recs, &found);
    Ok(to_json(&v, &log.header, path))
}

async fn read_all<W: Workload>(w: &W, cfg: Arc<ConnConfig>, keys: &[Key]) -> Result<Found> {
    let mut conn = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0).await.map_err(|e| match e.kind {
        ErrKind::Connect => connect_error(&cfg.target, &e),
        _ => Error::Sql(format!("--verify-writes: {e}")),
    })?;
    let mut found = Found::new();
    for chunk in keys.chunks(READ_BATCH) {
        let part = w.read_back(&mut conn, chunk).await.map_err(|e| Error::Sql(format!("--verify-writes: reading the writes back failed: {e}")))?;
        found.extend(part);
    }
    conn.close().await;
    Ok(found)
}

/// The verdict as `--output json` prints it and the store keeps it; keys
/// have as many places as the workload names.
fn to_json(v: &Verdict, h: &LogHeader, path: &Path) -> Value {
    let n = h.key_names.len().clamp(1, 4);
    let keys: Vec<&[i64]> = v.lost_keys.iter().map(|k| &k[..n]).collect();
    json!({
        "type": "writes",
        "file": path.display().to_string(),
        "workload": h.workload,
        "check": h.check,
        "key_names": h.key_names,
        "acknowledged": v.acknowledged,
        "checked": v.checked,
        "lost": v.lost,
        "lost_keys": keys,
        "ambiguous": v.ambiguous,
        "ambiguous_committed": v.ambiguous_committed,
        "ambiguous_unknown_key": v.ambiguous_unknown_key,
    })
}

pub fn print(v: &Value, json: bool) {
    if json {
        println!("{v}");
    } else {
        print!("{}", text(v));
    }
}

/// The text block after a run's summary.
pub fn text(v: &Value) -> String {
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    let mut o = format!("\n{}\n", crate::store::writes_line(v));
    o.push_str(&format!("    checked:    {} acknowledged writes read back from the target\n", n("checked")));
    if n("ambiguous_unknown_key") > 0 {
        o.push_str(&format!("    ambiguous:  {} of them with a key never learnt (an auto-increment INSERT that failed): not checked\n", n("ambiguous_unknown_key")));
    }
    o.push_str(&format!("    write log:  {}\n", v["file"].as_str().unwrap_or("")));
    if n("lost") > 0 {
        let names: Vec<&str> = v["key_names"].as_array().into_iter().flatten().filter_map(|s| s.as_str()).collect();
        let keys = v["lost_keys"].as_array().cloned().unwrap_or_default();
        let shown: Vec<String> = keys
            .iter()
            .take(SHOWN)
            .map(|k| {
                let places = k.as_array().cloned().unwrap_or_default();
                names.iter().zip(places).map(|(name, p)| format!("{name}={p}")).collect::<Vec<_>>().join(" ")
            })
            .collect();
        let more = if keys.len() > SHOWN { format!(" (first {SHOWN} of {})", keys.len()) } else { String::new() };
        o.push_str(&format!("    lost{more}: {}\n", shown.join("; ")));
    }
    o
}
