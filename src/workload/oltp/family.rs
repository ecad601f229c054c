//! The sysbench OLTP scripts as one family in the workload registry.

use super::{Oltp, OltpArgs, TESTS};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::label::{Grammar, Scenario, Shape};
use crate::workload::family::{BenchRun, Family, Labels, Preset};
use crate::workload::plan::Plan;
use clap::{Args, Command};

/// The scripts that only read: their QPS should not count BEGIN/COMMIT.
const READ_ONLY: &[&str] = &["oltp_read_only", "oltp_point_select", "select_random_points", "select_random_ranges"];

/// BMK's names of the sysbench OLTP scripts.
pub(super) const SCENARIOS: &[Scenario] = &[
    Scenario { token: "OLTP_RO", workload: "oltp_read_only", shape: Shape::ReadOnly, meaning: "sysbench OLTP read-only: 10 point selects + 4 range selects per event", point_selects: None },
    Scenario {
        token: "OLTP_RW",
        workload: "oltp_read_write",
        shape: Shape::ReadWrite,
        meaning: "sysbench OLTP read-write: the OLTP_RO selects + 2 UPDATEs + DELETE/INSERT per event",
        point_selects: None,
    },
    Scenario {
        token: "OLTP_RW+",
        workload: "oltp_read_write",
        shape: Shape::ReadWrite,
        meaning: "OLTP_RW made more write-intensive: range selects dropped, 10 point selects kept (= OLTP_RW-p_sel10)",
        point_selects: Some(10),
    },
    Scenario { token: "OLTP_RW++", workload: "oltp_read_write", shape: Shape::ReadWrite, meaning: "OLTP_RW+ with a single point select (= OLTP_RW-p_sel1)", point_selects: Some(1) },
    Scenario {
        token: "OLTP_WO",
        workload: "oltp_write_only",
        shape: Shape::WriteOnly,
        meaning: "sysbench OLTP write-only: index UPDATE + non-index UPDATE + DELETE/INSERT per event",
        point_selects: None,
    },
];

#[derive(Debug)]
pub struct OltpFamily;

impl Family for OltpFamily {
    fn name(&self) -> &'static str {
        "oltp"
    }

    fn workloads(&self) -> &'static [&'static str] {
        TESTS
    }

    fn presets(&self, ram: u64) -> Vec<Preset> {
        vec![super::preset::microbenchmarks(ram)]
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

    fn bench(&self, plan: &mut Plan, cfg: ConnConfig) -> Result<Option<BenchRun>> {
        let max_threads = *plan.run.levels.iter().max().unwrap_or(&1);
        let args: OltpArgs = plan.families.get()?;
        let common = plan.families.get()?;
        let mut w = Oltp::new(&plan.workload, args, common, plan.dist.clone(), plan.run.seed, cfg.engine(), max_threads)?;
        // BMK-kit's OLTP scripts lock only when asked: the shared default (1, TPC-C's) does not apply.
        w.for_update = plan.families.given::<u8>("for_update").is_some_and(|n| n > 0);
        Ok(Some(BenchRun::new(w, cfg)))
    }

    fn labels(&self) -> Option<&dyn Labels> {
        Some(self)
    }
}

impl Labels for OltpFamily {
    fn label_scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn label_grammar(&self) -> Option<&'static dyn Grammar> {
        Some(&super::label::OltpGrammar)
    }

    fn canonical_label(&self, workload: &str, get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(super::label::canonical(workload, get))
    }
}
