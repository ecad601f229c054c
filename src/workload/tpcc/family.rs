//! TPC-C as one family in the workload registry.

use super::{session_sql, Tpcc, TpccArgs};
use crate::db::ConnConfig;
use crate::error::{Error, Result};
use crate::label::{Grammar, Scenario, Shape};
use crate::workload::family::Family;
use crate::workload::plan::Plan;
use clap::{Args, Command};
use std::sync::Arc;

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

    fn label_scenarios(&self) -> &'static [Scenario] {
        &[Scenario { token: "TPCC", workload: "tpcc", shape: Shape::Warehouses, meaning: "TPC-C (sysbench-tpcc as in BMK-kit)", point_selects: None }]
    }

    fn label_grammar(&self) -> Option<&'static dyn Grammar> {
        Some(&super::label::TpccGrammar)
    }

    fn canonical_label(&self, _workload: &str, get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(super::label::canonical(get))
    }

    fn has_check(&self) -> bool {
        true
    }

    fn bench(&self, plan: &mut Plan, mut cfg: ConnConfig) -> Result<()> {
        let args: TpccArgs = plan.args.families.get()?;
        let common = plan.args.families.get()?;
        let w = Tpcc::new(args.clone(), common, plan.args.rand.rand_seed, cfg.target.engine)?;
        cfg.session_sql.extend(session_sql(cfg.target.engine, &args.isolation)?);
        if w.spec && plan.command == "run" {
            spec_threads(plan, w.spec_terminals())?;
        }
        crate::drive(Arc::new(w), plan, Arc::new(cfg))
    }
}

/// Spec mode: the terminals are the clients, 10 per warehouse, so the
/// thread count is theirs; a different one given explicitly is an error.
fn spec_threads(plan: &mut Plan, n: usize) -> Result<()> {
    let levels = &plan.args.control.threads.0;
    if levels.len() > 1 || (levels[0] != 1 && levels[0] != n) {
        return Err(Error::Usage(format!("--terminals=spec runs 10 terminals per warehouse ({n} here): leave --threads out or set it to {n}")));
    }
    plan.args.control.threads.0 = vec![n];
    Ok(())
}
