//! A run's record in the results store: opened before the first level with
//! every option the run records, closed with the run's own audit, the
//! hardware per operation and where it was stored.

use super::sampling::SamplingSetup;
use crate::audit;
use crate::db::ConnConfig;
use crate::env::oncpu::ProfileServer;
use crate::env::DatasetTables;
use crate::error::{Error, Result};
use crate::model::record::{RunRecord, Severity};
use crate::model::RunInfo;
use crate::store::Recorder;
use crate::workload::plan::RunSettings;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Opens the record of a run before its first level, and says what the
/// environment's sampler is to read (`tables` are the workload's dataset
/// tables); the driver starts the sampler.
pub fn recorder(path: &Path, info: &RunInfo, cfg: &Arc<ConnConfig>, levels: &[usize], c: &RunSettings, tables: &DatasetTables) -> Result<(Recorder, SamplingSetup)> {
    // Server counters are sampled once per report interval, never more
    // often than every 0.5 s (SHOW GLOBAL STATUS is not free).
    let period = Duration::from_secs_f64(if c.report_interval > 0.0 { c.report_interval.max(0.5) } else { 1.0 });
    // Every effective option, each its own --name=value: the workload's
    // (in `info`), then run control and the connection's, each unless the
    // workload recorded an option of that name (kept as it wrote it).
    let mut info = info.clone();
    let o = &mut info.options;
    o.insert_missing("report-interval", &c.report_interval.to_string());
    o.insert_missing("pause", &c.pause.to_string());
    o.insert_missing("percentile", &c.percentile.to_string());
    o.insert_missing("client-threads", &c.client_threads.map(|n| n.to_string()).unwrap_or_else(|| "auto".into()));
    o.insert_missing("queue-max", &c.queue_max.to_string());
    if c.soak {
        o.insert_missing("soak", &c.time.to_string());
    }
    if c.tries.max_tries > 0 {
        o.insert_missing("max-tries", &c.tries.max_tries.to_string());
    }
    if let Some(l) = c.tries.latency_limit {
        o.insert_missing("latency-limit", &(l.as_secs_f64() * 1e3).to_string());
    }
    if c.idle_clients > 0 {
        o.insert_missing("idle-clients", &c.idle_clients.to_string());
    }
    o.insert_missing("session-options", &cfg.session_sql.join("; "));
    o.insert_missing("ssl-mode", cfg.target.ssl_mode.name());
    if let Some(u) = &c.sampling.server_metrics {
        o.insert_missing("server-metrics", u);
    }
    if !c.sampling.server_time {
        o.insert_missing("server-time", "off");
    }
    let profile_server = if c.sampling.profile_server {
        // A missing perf is said before anything runs, not after the first level.
        crate::env::oncpu::available().map_err(Error::Usage)?;
        o.insert_missing("profile-server", "on");
        // perf stops by itself well after the level would have ended.
        let most = if c.time > 0.0 { c.warmup_time + c.time * 2.0 + 60.0 } else { 86_400.0 };
        Some(ProfileServer { warmup: Duration::from_secs_f64(c.warmup_time), most: Duration::from_secs_f64(most), dir: std::env::temp_dir(), stopping: crate::model::interrupted })
    } else {
        None
    };
    let recorder = Recorder::begin(path, &info, levels, &c.outputs.tag)?;
    Ok((recorder, SamplingSetup { tables: tables.clone(), period, server_metrics: c.sampling.server_metrics.clone(), server_time: c.sampling.server_time, profile_server, reshaped_by_run: false }))
}

/// Closes the record and stores the run's own audit with `extra` findings
/// (a merge's); gives the record as stored, findings included.
pub fn close_audited(r: &Recorder, outcome: &Result<()>, env_end: Option<crate::env::Snapshot>, extra: Vec<crate::model::record::Finding>) -> Option<RunRecord> {
    let mut run = r.finish(outcome, env_end);
    let mut findings = run.as_ref().map(audit::single).unwrap_or_default();
    findings.extend(extra);
    r.set_findings(&findings);
    if let Some(run) = run.as_mut() {
        run.findings = findings;
    }
    run
}

/// Closes the record and audits it; prints where it went and, for sweeps,
/// the audit.
pub fn finish_recording(r: &Recorder, outcome: &Result<()>, env_end: Option<crate::env::Snapshot>, sweep: bool, json: bool) {
    let run = close_audited(r, outcome, env_end, Vec::new());
    // The hardware per transaction, from the samples the record now holds.
    let figures = run.as_ref().map(crate::model::efficiency::of_run).unwrap_or_default();
    let measured: Vec<_> = figures.iter().filter(|e| e.secs > 0.0).collect();
    if json {
        // JSON lines end with the hardware object (nothing else follows the summary).
        if !measured.is_empty() {
            let mut o = serde_json::json!({ "type": "efficiency", "levels": measured });
            if let Some(p) = run.as_ref().and_then(|r| r.env_start.as_ref()).and_then(|e| e.server.process.clone()) {
                o["server_process"] = p.into();
            }
            println!("{o}");
        }
        return;
    }
    println!();
    if let Some(run) = &run {
        print!("{}", crate::model::efficiency::text(run, &figures));
    }
    println!("Stored as run {} in {}", r.run_id(), r.path().display());
    let shown: Vec<_> = run.map(|r| r.findings).unwrap_or_default().into_iter().filter(|f| sweep || f.severity >= Severity::Warning).collect();
    if sweep || !shown.is_empty() {
        print!("{}", audit::findings_text(&shown));
    }
}
