//! `prepare`, `run`, `cleanup`, `prewarm` and `check`: the command line
//! resolves into a plan, the family describes the run, and the runner's
//! driver (`runner::drive`) runs it.

use crate::error::Result;
use crate::workload::plan::Plan;

/// prepare / cleanup / prewarm / check / run: the family describes the run
/// ([`Family::bench`](crate::workload::family::Family::bench)), and the
/// driver runs it, unless the family carried out the command itself (a
/// script's own commands).
pub fn bench(mut plan: Plan) -> Result<()> {
    let cfg = crate::runner::drive::identified(super::with_build(plan.cfg.clone()), &plan.run)?;
    match plan.family.bench(&mut plan, cfg)? {
        Some(run) => run.workload.drive(&plan, run.cfg),
        None => Ok(()),
    }
}
