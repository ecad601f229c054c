//! `fairbench explain LABEL`: what each token of a BMK label means, the
//! command and options it stands for, and its canonical spelling.
//! `fairbench explain WORKLOAD [OPTIONS]` (or a label with options): the
//! settings `run` takes from that command line, defaults included, as the
//! run records them. A workload name is not a label: `oltp_read_write`
//! runs with sysbench's defaults (prepared statements), where a BMK label
//! without `ps` runs without. `fairbench explain go-tpc`: what another tool
//! that runs a workload sends, and the options of a run here that sends the same.

use crate::error::{Error, Result};
use crate::workload::family;
use crate::workload::plan::BenchCommand;

pub fn explain(label: &str, options: &[String]) -> Result<()> {
    if let Some((workload, p)) = family::peer(label).filter(|_| options.is_empty()) {
        println!("{}: another tool's {workload}", p.tool);
        println!("  sends: {}", p.sends);
        println!("  a fairbench run that sends the same: fairbench run {workload} {}", p.options);
        println!("  its figures compare with a fairbench run of those options only: sent otherwise, the same work costs the server another amount");
        return Ok(());
    }
    let is_label = family::looks_like_label(label) || family::find(label).is_none();
    if is_label {
        explain_label(label)?;
        if options.is_empty() {
            return Ok(());
        }
    }
    match explain_run(label, options, is_label) {
        // A bare workload name whose defaults cannot run (YCSB's record count is its
        // workload file's): what it needs, and a label that stands for a full run of it.
        Err(Error::Usage(why)) if !is_label && options.is_empty() => {
            let example = family::find(label).map(|f| f.label_example()).unwrap_or_default();
            println!("{label}");
            println!("  a workload name, not a label: `fairbench run {label}` needs more than its defaults: {why}");
            println!("  a label that stands for a full run of it: {example} (fairbench explain {example})");
            Ok(())
        }
        r => r,
    }
}

fn explain_label(label: &str) -> Result<()> {
    let d = family::parse_label(label).map_err(|e| Error::Usage(e.to_string()))?;
    println!("{label}");
    for (tok, what) in &d.explanation {
        println!("  {tok:<20} {what}");
    }
    println!("command: {}", d.command);
    println!("workload: {}", d.workload);
    let opts: Vec<String> = d.options.iter().map(|(k, v)| format!("--{k}={v}")).collect();
    println!("options: {}", opts.join(" "));
    let get = |n: &str| if n == "command" { Some(d.command.clone()) } else { d.options.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()) };
    println!("canonical: {}", family::canonical_label(&d.workload, &get));
    Ok(())
}

/// What `fairbench run WORKLOAD OPTIONS` would run, from the same parse and
/// the same workload `run` builds; nothing is connected to or written.
fn explain_run(workload: &str, options: &[String], after_label: bool) -> Result<()> {
    let argv: Vec<String> = ["fairbench", "run", workload].iter().map(|s| s.to_string()).chain(options.iter().cloned()).collect();
    let cli = crate::cli::parse(argv).map_err(|e| Error::Usage(crate::error::one_line(&crate::cli::error_line(&e)).into_owned()))?;
    let crate::cli::Cmd::Run(args) = cli.cmd else { return Err(Error::Usage(format!("`{workload}` is not a workload or a label: see `fairbench run --help`"))) };
    let mut plan = crate::cli::plan(BenchCommand::Run, args)?;
    // Nothing is connected to: a server of a protocol several engines speak is taken for the protocol's own.
    let cfg = plan.cfg.clone();
    let _ = cfg.engine.set(cfg.presumed_engine());
    let name = plan.workload.clone();
    let Some(run) = plan.family.bench(&mut plan, cfg)? else {
        return Err(Error::Usage(format!("the {name} workload runs its own command line: see its help (fairbench run {name} --help)")));
    };
    let (label, settings) = run.workload.settings(&run.cfg);
    if after_label {
        println!();
        println!("with {}:", options.join(" "));
    } else {
        println!("{workload}");
        println!("  a workload name, not a label: `fairbench run {workload}` takes the defaults of the tool it comes from");
    }
    println!("command: run");
    println!("workload: {name}");
    println!("options (as the run records them):");
    for (k, v) in &settings {
        println!("  --{k}={v}");
    }
    println!("canonical: {label}");
    Ok(())
}
