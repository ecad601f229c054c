//! TPC-H as one family in the workload registry: the spec's two tests as
//! the run's levels, each with its own clients (its streams).

use super::{options::TpchArgs, Tpch, NAME};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::usage;
use crate::workload::common::CommonArgs;
use crate::workload::family::{BenchRun, Family};
use crate::workload::plan::Plan;
use clap::{Args, Command};

#[derive(Debug)]
pub struct TpchFamily;

impl Family for TpchFamily {
    fn name(&self) -> &'static str {
        NAME
    }

    fn workloads(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn help(&self) -> &'static str {
        NAME
    }

    fn label_example(&self) -> &'static str {
        "tpch --scale-factor 1"
    }

    fn augment_args(&self, cmd: Command) -> Command {
        TpchArgs::augment_args(cmd)
    }

    fn has_check(&self) -> bool {
        true
    }

    /// What a run's queries and data are: two runs that differ in one ran different work.
    fn defining_options(&self, _workload: &str) -> &'static [&'static str] {
        &["scale-factor", "queries", "refresh", "param-seed", "validation-params", "tests", "streams", "query-timeout"]
    }

    fn bench(&self, plan: &mut Plan, cfg: ConnConfig) -> Result<Option<BenchRun>> {
        let args: TpchArgs = plan.families.get()?;
        let common: CommonArgs = plan.families.get()?;
        let fam = &plan.families;
        // TPC-C's and pgbench's --scale, a whole number, names the scale factor too.
        let sf = match (args.scale_factor, fam.given::<u32>("warehouses")) {
            (Some(sf), _) => sf,
            (None, Some(w)) => w as f64,
            (None, None) => 1.0,
        };
        let c = &mut plan.run;
        if c.rate > 0.0 {
            return Err(usage!("--rate: TPC-H's streams run their queries one after the other as fast as they can; give --streams for more at once"));
        }
        let mut w = Tpch::new(args, common.clone(), sf, c.seed, cfg.engine()).map_err(|e| usage!("--queries: {e}"))?;
        w.table_tail = common.table_tail(cfg.engine())?;
        w.repeat(c.repeat, c.repeat_order == crate::values::RepeatOrder::Interleaved);
        // A level per test, each ending when its streams are done (--time, when given, caps each).
        c.levels = w.levels();
        if fam.given::<f64>("time").is_none() {
            c.time = 0.0;
        }
        if fam.given::<u64>("events").is_none() {
            c.events = 0;
        }
        Ok(Some(BenchRun::new(w, cfg)))
    }
}
