//! `fairbench check writes FILE`: the write log of a `--verify-writes` run,
//! read back later from the target given here (`runner::verify` checks it).

use crate::cli::CheckWritesArgs;
use crate::error::{Error, Result};
use crate::runner::verify;
use crate::usage;
use crate::workload::plan::BenchCommand;
use crate::workload::witness;

/// `fairbench check writes FILE [target options] [--output json]`: the
/// workload is rebuilt from the options the log records, on the target
/// given here.
pub fn check_writes(a: CheckWritesArgs) -> Result<()> {
    let header = witness::read_header(&a.file)?;
    let mut args = vec!["fairbench".to_string(), "run".to_string(), header.workload.clone()];
    args.extend(header.options.iter().map(|(k, v)| format!("--{k}={v}")));
    let cli = crate::cli::parse(args).map_err(|e| Error::Usage(format!("check writes: the options in {}: {}", a.file.display(), crate::cli::error_line(&e))))?;
    let crate::cli::Cmd::Run(mut b) = cli.cmd else { return Err(usage!("check writes: {} does not describe a run", a.file.display())) };
    b.target = a.target;
    let json = a.output.json();
    let mut plan = crate::cli::plan(BenchCommand::Run, b)?;
    let cfg = crate::runner::drive::identified(plan.cfg.clone(), &plan.run)?;
    let Some(run) = plan.family.bench(&mut plan, cfg)? else {
        return Err(usage!("check writes: the {} workload records no writes it could verify", header.workload));
    };
    let v = run.workload.check_writes(&a.file, run.cfg)?;
    verify::print(&v, json);
    verify::store_with_run(&header, a.results.as_deref(), &v);
    verify::lost_is_failure(&v)
}
