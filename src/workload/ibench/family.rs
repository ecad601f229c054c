//! The Insert Benchmark as one family in the workload registry: its steps
//! become the run's levels, one each, every level with the clients.

use super::{step, Ibench, IbenchArgs, NAME};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::usage;
use crate::workload::common::CommonArgs;
use crate::workload::family::{BenchRun, Family, Preset, PresetRun};
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

    /// Small Datum's steps as one run, on a cached table: his 20M rows of
    /// l.i0, or fewer so that they and their indexes take at most a quarter
    /// of the server's memory.
    fn presets(&self, ram: u64) -> Vec<Preset> {
        const ROWS: u64 = 20_000_000;
        // A row with its three secondary indexes, about.
        const ROW_BYTES: u64 = 200;
        let fit = (ram / 4 / ROW_BYTES).max(10_000);
        let rows = ROWS.min(fit / 10_000 * 10_000);
        let mut notes = Vec::new();
        if rows < ROWS {
            notes.push(format!("l.i0 loads {rows} rows (Small Datum's {ROWS} scaled to a quarter of the server's {} of memory; give --rows to choose)", crate::units::human_bytes(ram as f64)));
        }
        vec![Preset {
            name: NAME.into(),
            about: "Small Datum's Insert Benchmark steps: l.i0, l.x, l.i1, l.i2, then range and point queries while writers insert at 100, 500 and 1000 rows a second".into(),
            prepare: Vec::new(),
            runs: vec![PresetRun::new(NAME, &format!("{NAME} --rows {rows}"))],
            notes,
        }]
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
        let args: IbenchArgs = plan.families.get()?;
        let common: CommonArgs = plan.families.get()?;
        let steps = step::parse_list(&args.steps).map_err(|e| usage!("--steps: {e}"))?;
        let fam = &plan.families;
        let c = &mut plan.run;
        let clients = args.clients.unwrap_or_else(|| c.levels.first().copied().unwrap_or(1));
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
        c.levels = vec![clients; steps.len()];
        if fam.given::<f64>("time").is_none() {
            c.time = 0.0;
        }
        if fam.given::<u64>("events").is_none() {
            c.events = 0;
        }
        let mut w = Ibench::new(args, steps, clients, cfg.engine(), plan.run.seed);
        w.table_tail = common.table_tail(cfg.engine())?;
        Ok(Some(BenchRun::new(w, cfg)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preset_is_his_sequence_on_a_table_that_stays_cached() {
        let p = &IbenchFamily.presets(4 << 30)[0];
        assert_eq!(p.runs.len(), 1);
        // A quarter of 4 GiB at 200 bytes a row.
        assert_eq!(p.runs[0].args.join(" "), "insert-benchmark --rows 5360000");
        assert!(p.prepare.is_empty() && p.notes.len() == 1, "{p:?}");
        let big = &IbenchFamily.presets(1 << 40)[0];
        assert_eq!(big.runs[0].args.join(" "), "insert-benchmark --rows 20000000");
        assert!(big.notes.is_empty());
    }
}
