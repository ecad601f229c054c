//! LinkBench as one family in the workload registry.

use super::props::Props;
use super::{label, mix_by_name, Config, LinkBench, LinkbenchArgs, NAME};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::label::{Decoded, LabelError};
use crate::usage;
use crate::values::Levels;
use crate::workload::family::{BenchRun, Family, Labels};
use crate::workload::plan::{BenchCommand, Plan};
use clap::{Args, Command};

#[derive(Debug)]
pub struct LinkbenchFamily;

impl Family for LinkbenchFamily {
    fn name(&self) -> &'static str {
        "linkbench"
    }

    fn workloads(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn help(&self) -> &'static str {
        "linkbench"
    }

    fn label_example(&self) -> &'static str {
        "LinkBench_1M-FB2011-64req"
    }

    fn augment_args(&self, cmd: Command) -> Command {
        LinkbenchArgs::augment_args(cmd)
    }

    fn has_check(&self) -> bool {
        true
    }

    fn bench(&self, plan: &mut Plan, conn: ConnConfig) -> Result<Option<BenchRun>> {
        let args: LinkbenchArgs = plan.families.get()?;
        let defines = plan.families.get::<crate::workload::common::CommonArgs>()?.define;
        let mix = mix_by_name(&args.linkbench_mix).ok_or_else(|| usage!("--linkbench-mix={}: write fb2011 or mdc2017", args.linkbench_mix))?;
        let mut props = Props::defaults(mix);
        if let Some(f) = &args.linkbench_config {
            props.read_file(f)?;
        }
        for kv in &defines {
            props.set_override(kv)?;
        }
        let mut cfg = Config::new(&props, &args, conn.engine())?;
        // The graph's shape hangs on it: said by the commands that draw links.
        if matches!(plan.command, BenchCommand::Prepare | BenchCommand::Run) {
            eprintln!("LinkBench links per node: {}", cfg.nlinks_source);
        }
        if let Some(note) = cfg.partitions_note(conn.engine()) {
            eprintln!("{note}");
        }
        let fam = &plan.families;
        cfg.storage_engine = fam.value::<String>("mysql_storage_engine").unwrap_or_else(|| "innodb".into());
        // With a properties file or -D, LinkBench's request-phase keys set
        // the run, except where the command line gives fairbench's option.
        let linkbench_mode = args.linkbench_config.is_some() || !defines.is_empty();
        let c = &mut plan.run;
        if linkbench_mode {
            if fam.given::<Levels>("threads").is_none() {
                c.levels = vec![cfg.requesters];
            }
            let threads = c.levels.iter().copied().max().unwrap_or(1);
            if fam.given::<u64>("events").is_none() {
                c.events = cfg.requests.saturating_mul(threads as u64);
            }
            if fam.given::<f64>("time").is_none() {
                c.time = cfg.maxtime;
            }
            if fam.given::<f64>("warmup_time").is_none() {
                c.warmup_time = cfg.warmup;
            }
            if fam.given::<f64>("rate").is_none() && cfg.requestrate > 0.0 {
                c.rate = cfg.requestrate * threads as f64;
            }
        }
        cfg.requesters = c.levels.iter().copied().max().unwrap_or(1);
        let mut w = LinkBench::new(cfg, conn.engine(), c.seed);
        w.csvstats = args.csvstats.clone();
        w.csvstream = args.csvstream.clone();
        w.requests_total = c.events;
        w.maxtime = c.time;
        Ok(Some(BenchRun::new(w, conn)))
    }

    fn labels(&self) -> Option<&dyn Labels> {
        Some(self)
    }
}

impl Labels for LinkbenchFamily {
    fn label_words(&self) -> Vec<&'static str> {
        vec!["LinkBench"]
    }

    fn decode_label(&self, l: &str) -> Option<std::result::Result<Decoded, LabelError>> {
        label::decode(l)
    }

    fn canonical_label(&self, _workload: &str, get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(label::canonical(get))
    }
}
