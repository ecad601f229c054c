//! pgbench scripts as one family in the workload registry.

use super::{PgScripts, PgscriptArgs, SCRIPTS};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::workload::family::{BenchRun, CommandLine, Family, FamilyArgs, Labels};
use crate::workload::plan::Plan;
use clap::{Args, Command};

#[derive(Debug)]
pub struct PgscriptFamily;

/// The built-ins first (their names are workloads), then the name of a
/// run of script files.
const WORKLOADS: &[&str] = &["tpcb-like", "simple-update", "select-only", SCRIPTS];

impl Family for PgscriptFamily {
    fn name(&self) -> &'static str {
        "pgscript"
    }

    fn workloads(&self) -> &'static [&'static str] {
        WORKLOADS
    }

    fn help(&self) -> &'static str {
        "tpcb-like, simple-update, select-only (pgbench's built-ins), pgscript (--pgbench-script FILE)"
    }

    fn label_example(&self) -> &'static str {
        "tpcb-like --scale=10"
    }

    fn augment_args(&self, cmd: Command) -> Command {
        PgscriptArgs::augment_args(cmd)
    }

    fn read_only(&self, workload: &str) -> bool {
        workload == "select-only"
    }

    fn bench(&self, plan: &mut Plan, mut cfg: ConnConfig) -> Result<Option<BenchRun>> {
        let args: PgscriptArgs = plan.families.get()?;
        let scale = plan.families.given::<u32>("warehouses");
        let common = plan.families.get::<crate::workload::common::CommonArgs>()?;
        let mut w = PgScripts::new(&plan.workload, &args, &common.define, scale, cfg.prepared, plan.run.seed)?;
        w.reconnect = if args.connect { 1 } else { common.reconnect };
        let run = &plan.run;
        w.report = args.pgbench_output.then(|| super::report::ReportSpec {
            max_tries: run.tries.max_tries,
            latency_limit_ms: run.tries.latency_limit.map(|l| l.as_secs_f64() * 1e3),
            rate: run.rate,
            progress: run.report_interval > 0.0,
            progress_timestamp: args.progress_timestamp,
            duration_s: (run.time > 0.0).then_some(run.time.round() as u64),
            per_client: run.events / (*run.levels.first().unwrap_or(&1)).max(1) as u64,
            threads: run.client_threads.unwrap_or(1),
            failures_detailed: run.tries.failures_detailed,
            connect: args.connect,
        });
        if w.scripts.len() > 1 {
            // A mix is not the built-in the command line named.
            plan.workload = SCRIPTS.to_string();
            w.workload = SCRIPTS.to_string();
        }
        // Simple sends text; extended and prepared bind parameters.
        cfg.prepared = w.query_mode != super::QueryMode::Simple;
        Ok(Some(BenchRun::new(w, cfg)))
    }

    fn labels(&self) -> Option<&dyn Labels> {
        Some(self)
    }

    fn command_line(&self) -> Option<&dyn CommandLine> {
        Some(self)
    }
}

impl Labels for PgscriptFamily {
    fn canonical_label(&self, workload: &str, get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(label(workload, get))
    }
}

impl CommandLine for PgscriptFamily {
    fn tool_command_line(&self, argv: &[String]) -> Option<std::result::Result<Vec<String>, String>> {
        super::pgbench_line::command_line(argv)
    }

    fn implied_workload(&self, args: &FamilyArgs) -> Option<&'static str> {
        let a: PgscriptArgs = args.get().ok()?;
        if !a.pgbench_script.is_empty() || a.builtin.len() > 1 {
            Some(SCRIPTS)
        } else if let [one] = a.builtin.as_slice() {
            // A single built-in runs under its own name; a bad name or
            // weight is reported when the scripts are loaded.
            let name = super::script::split_weight(one).ok().and_then(|(n, _)| super::script::builtin(n).ok());
            Some(name.map(|b| b.0).unwrap_or(SCRIPTS))
        } else {
            None
        }
    }
}

/// A label naming the scripts, scale and protocol:
/// `pgbench_tpcb-like-scale10-prepared`, `pgbench_oltp_ro.sql-scale1-prepared`.
pub fn label(workload: &str, get: &dyn Fn(&str) -> Option<String>) -> String {
    let scripts = get("script").unwrap_or_else(|| workload.to_string());
    let names: Vec<String> = scripts
        .split(',')
        .map(|s| {
            let s = s.strip_prefix("builtin:").unwrap_or(s);
            s.rsplit('/').next().unwrap_or(s).to_string()
        })
        .collect();
    let mut l = format!("pgbench_{}", names.join("+"));
    if let Some(s) = get("scale") {
        l.push_str(&format!("-scale{s}"));
    }
    if let Some(p) = get("protocol") {
        l.push_str(&format!("-{p}"));
    }
    l
}
