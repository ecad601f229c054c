//! The sysbench OLTP scripts as one family in the workload registry.

use super::{Oltp, OltpArgs, TESTS};
use crate::cli::Plan;
use crate::error::Result;
use crate::target::ConnConfig;
use crate::workload::family::Family;
use clap::{Args, Command};
use std::sync::Arc;

/// The scripts that only read: their QPS should not count BEGIN/COMMIT.
const READ_ONLY: &[&str] = &["oltp_read_only", "oltp_point_select", "select_random_points", "select_random_ranges"];

#[derive(Debug)]
pub struct OltpFamily;

impl Family for OltpFamily {
    fn name(&self) -> &'static str {
        "oltp"
    }

    fn workloads(&self) -> &'static [&'static str] {
        TESTS
    }

    fn help(&self) -> &'static str {
        "oltp_read_write, oltp_point_select, ..."
    }

    fn label_example(&self) -> &'static str {
        "OLTP_RW-10Mx8tab-uniform-ps-trx"
    }

    fn augment_args(&self, cmd: Command) -> Command {
        OltpArgs::augment_args(cmd)
    }

    fn read_only(&self, workload: &str) -> bool {
        READ_ONLY.contains(&workload)
    }

    fn bench(&self, plan: &mut Plan, cfg: ConnConfig) -> Result<()> {
        let max_threads = *plan.args.control.threads.0.iter().max().unwrap_or(&1);
        let args: OltpArgs = plan.args.families.get()?;
        let w = Oltp::new(&plan.workload, args, plan.dist.clone(), plan.args.rand.rand_seed, cfg.target.engine, max_threads)?;
        crate::drive(Arc::new(w), plan, Arc::new(cfg))
    }
}
