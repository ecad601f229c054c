//! dbSTRESS as one family in the workload registry.

use super::{label, Dbstress, DbstressArgs, Shared, RO, RW};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::label::{Decoded, LabelError};
use crate::workload::family::{BenchRun, Family, Labels};
use crate::workload::plan::Plan;
use clap::{Args, Command};

#[derive(Debug)]
pub struct DbstressFamily;

impl Family for DbstressFamily {
    fn name(&self) -> &'static str {
        "dbstress"
    }

    fn workloads(&self) -> &'static [&'static str] {
        &[RW, RO]
    }

    fn help(&self) -> &'static str {
        "dbstress, dbstress_ro"
    }

    fn label_example(&self) -> &'static str {
        "dbSTRESS_10M-RW10-trx"
    }

    fn augment_args(&self, cmd: Command) -> Command {
        DbstressArgs::augment_args(cmd)
    }

    fn read_only(&self, workload: &str) -> bool {
        workload == RO
    }

    fn has_check(&self) -> bool {
        true
    }

    /// dbSTRESS draws its objects uniformly (its labels name any other
    /// distribution, and leave uniform out).
    fn default_rand_type(&self) -> &'static str {
        "uniform"
    }

    fn bench(&self, plan: &mut Plan, cfg: ConnConfig) -> Result<Option<BenchRun>> {
        let args: DbstressArgs = plan.families.get()?;
        let shared = Shared::read(&plan.families)?;
        let w = Dbstress::new(&plan.workload, args, shared, plan.dist.clone(), plan.run.seed, cfg.engine())?;
        Ok(Some(BenchRun::new(w, cfg)))
    }

    fn labels(&self) -> Option<&dyn Labels> {
        Some(self)
    }
}

impl Labels for DbstressFamily {
    fn label_words(&self) -> Vec<&'static str> {
        vec!["dbSTRESS"]
    }

    fn decode_label(&self, l: &str) -> Option<std::result::Result<Decoded, LabelError>> {
        label::decode(l)
    }

    fn canonical_label(&self, workload: &str, get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(label::canonical(workload, get))
    }
}
