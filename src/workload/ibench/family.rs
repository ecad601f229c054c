//! The Insert Benchmark as one family in the workload registry: its steps
//! become the run's levels, one each, every level with the clients.

use super::{step, Ibench, IbenchArgs, NAME};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::usage;
use crate::values::Levels;
use crate::workload::common::CommonArgs;
use crate::workload::family::{BenchRun, Family};
use crate::workload::plan::Plan;
use clap::{Args, Command};

#[derive(Debug)]
pub struct IbenchFamily;

impl Family for IbenchFamily {
    fn name(&self) -> &'static str {
        "ibench"
    }

    fn workloads(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn help(&self) -> &'static str {
        NAME
    }

    fn label_example(&self) -> &'static str {
        NAME
    }

    fn augment_args(&self, cmd: Command) -> Command {
        IbenchArgs::augment_args(cmd)
    }

    fn default_rand_type(&self) -> &'static str {
        "uniform"
    }

    fn bench(&self, plan: &mut Plan, cfg: ConnConfig) -> Result<Option<BenchRun>> {
        let args: IbenchArgs = plan.args.families.get()?;
        let common: CommonArgs = plan.args.families.get()?;
        let steps = step::parse_list(&args.steps).map_err(|e| usage!("--steps: {e}"))?;
        let fam = &plan.args.families;
        let c = &mut plan.args.control;
        let clients = args.clients.unwrap_or_else(|| c.threads.0.first().copied().unwrap_or(1));
        if c.repeat > 1 {
            return Err(usage!("--repeat={}: the Insert Benchmark's steps change the tables, so a step cannot run again on the same data; run the whole sequence again instead", c.repeat));
        }
        if c.rate > 0.0 {
            return Err(usage!("--rate: the Insert Benchmark's query steps set their writers' rate by name (qr100 is 100 rows a second per writer); its clients run as fast as they can"));
        }
        if args.data_length_min > args.data_length_max {
            return Err(usage!("--data-length-min={} is above --data-length-max={}: give a range", args.data_length_min, args.data_length_max));
        }
        if args.rows < clients as u64 {
            return Err(usage!("--rows={}: fewer rows than the {clients} clients that load them; give at least one row each", args.rows));
        }
        // One level per step, each with every client; a step ends when its
        // rows are written (--time, when given, caps every step).
        c.threads = Levels(vec![clients; steps.len()]);
        if fam.given::<f64>("time").is_none() {
            c.time = 0.0;
        }
        if fam.given::<u64>("events").is_none() {
            c.events = 0;
        }
        let mut w = Ibench::new(args, steps, clients, cfg.target.protocol, plan.args.rand.rand_seed);
        w.table_tail = common.table_tail(cfg.target.protocol)?;
        Ok(Some(BenchRun::new(w, cfg)))
    }
}
