//! TPC-C as one family in the workload registry.

use super::{session_sql, Tpcc, TpccArgs, KINDS};
use crate::db::ConnConfig;
use crate::error::{Error, Result};
use crate::label::{Grammar, Scenario, Shape};
use crate::model::record::LevelRec;
use crate::workload::family::{BenchRun, Family, Labels};
use crate::workload::plan::{BenchCommand, Plan};
use clap::{Args, Command};

#[derive(Debug)]
pub struct TpccFamily;

impl Family for TpccFamily {
    fn name(&self) -> &'static str {
        "tpcc"
    }

    fn workloads(&self) -> &'static [&'static str] {
        &["tpcc"]
    }

    fn help(&self) -> &'static str {
        "tpcc"
    }

    fn label_example(&self) -> &'static str {
        "TPCC_100W"
    }

    /// Only its own options: those every family shares
    /// (`workload::common`) are added once and read back in `bench`.
    fn augment_args(&self, cmd: Command) -> Command {
        TpccArgs::augment_args(cmd)
    }

    fn has_check(&self) -> bool {
        true
    }

    /// tpmC and committed New-Orders per minute from the stored per-kind
    /// counts (NOPM proper reads the district table, which a stored run
    /// cannot), and each transaction's share of the mix.
    fn report_figures(&self, level: &LevelRec) -> Vec<(String, String)> {
        let kinds = level.kinds();
        let count = |k: &serde_json::Value, f: &str| k.get(f).and_then(|v| v.as_u64()).unwrap_or(0);
        let secs = level.elapsed_s.max(1e-9);
        let total: u64 = kinds.iter().map(|k| count(k, "events")).sum();
        let mut out = Vec::new();
        if let Some(no) = kinds.iter().find(|k| k.get("name").and_then(|n| n.as_str()) == Some(KINDS[0])) {
            out.push(("tpmC (New-Orders/min incl. rolled back)".to_string(), format!("{:.1}", count(no, "events") as f64 * 60.0 / secs)));
            out.push(("committed New-Orders/min".to_string(), format!("{:.1}", (count(no, "events") - count(no, "rollbacks")) as f64 * 60.0 / secs)));
        }
        for k in kinds {
            let name = k.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            if total > 0 {
                out.push((format!("{name} share of the mix"), format!("{:.1}%", count(k, "events") as f64 * 100.0 / total as f64)));
            }
        }
        out
    }

    fn bench(&self, plan: &mut Plan, mut cfg: ConnConfig) -> Result<Option<BenchRun>> {
        let args: TpccArgs = plan.families.get()?;
        let common = plan.families.get()?;
        let w = Tpcc::new(args.clone(), common, plan.run.seed, cfg.engine())?;
        cfg.session_sql.extend(session_sql(cfg.engine(), &args.isolation)?);
        if w.spec && plan.command == BenchCommand::Run {
            spec_threads(plan, w.spec_terminals())?;
        }
        Ok(Some(BenchRun::new(w, cfg)))
    }

    fn labels(&self) -> Option<&dyn Labels> {
        Some(self)
    }
}

impl Labels for TpccFamily {
    fn label_scenarios(&self) -> &'static [Scenario] {
        &[Scenario { token: "TPCC", workload: "tpcc", shape: Shape::Warehouses, meaning: "TPC-C (sysbench-tpcc as in BMK-kit)", point_selects: None }]
    }

    fn label_grammar(&self) -> Option<&'static dyn Grammar> {
        Some(&super::label::TpccGrammar)
    }

    fn canonical_label(&self, _workload: &str, get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(super::label::canonical(get))
    }
}

/// Spec mode: the terminals are the clients, 10 per warehouse, so the
/// thread count is theirs; a different one given explicitly is an error.
fn spec_threads(plan: &mut Plan, n: usize) -> Result<()> {
    let levels = &plan.run.levels;
    if levels.len() > 1 || (levels[0] != 1 && levels[0] != n) {
        return Err(Error::Usage(format!("--terminals=spec runs 10 terminals per warehouse ({n} here): leave --threads out or set it to {n}")));
    }
    plan.run.levels = vec![n];
    Ok(())
}
