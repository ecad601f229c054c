//! TPC-C as one family in the workload registry.

use super::ch::{self, options::ChArgs, Ch};
use super::{session_sql, Tpcc, TpccArgs, KINDS};
use crate::db::ConnConfig;
use crate::error::{Error, Result};
use crate::label::{Grammar, Scenario, Shape};
use crate::model::record::LevelRec;
use crate::workload::family::{BenchRun, Family, Labels, Peer, Timeline};
use crate::workload::plan::{BenchCommand, Plan};
use clap::{Args, Command};

#[derive(Debug)]
pub struct TpccFamily;

impl Family for TpccFamily {
    fn name(&self) -> &'static str {
        "tpcc"
    }

    fn workloads(&self) -> &'static [&'static str] {
        &["tpcc", ch::NAME]
    }

    fn help(&self) -> &'static str {
        "tpcc, ch"
    }

    fn label_example(&self) -> &'static str {
        "TPCC_100W"
    }

    /// Only its own options: those every family shares
    /// (`workload::common`) are added once and read back in `bench`.
    fn augment_args(&self, cmd: Command) -> Command {
        ChArgs::augment_args(TpccArgs::augment_args(cmd))
    }

    fn has_check(&self) -> bool {
        true
    }

    /// tpmC and committed New-Orders per minute from the stored per-kind
    /// counts (NOPM proper reads the district table, which a stored run
    /// cannot), and each transaction's share of the mix.
    fn report_figures(&self, level: &LevelRec) -> Vec<(String, String)> {
        let kinds = level.kinds();
        let count = |k: &serde_json::Value, f: &str| k.get(f).and_then(|v| v.as_u64()).unwrap_or(0);
        let secs = level.elapsed_s.max(1e-9);
        // The mix is the transactions' (CH-benCHmark's queries are not in it).
        let kinds: Vec<&serde_json::Value> = kinds.iter().filter(|k| k.get("name").and_then(|n| n.as_str()).is_some_and(|n| KINDS.contains(&n))).collect();
        let total: u64 = kinds.iter().map(|k| count(k, "events")).sum();
        let mut out = Vec::new();
        if let Some(no) = kinds.iter().find(|k| k.get("name").and_then(|n| n.as_str()) == Some(KINDS[0])) {
            out.push(("tpmC (New-Orders/min incl. rolled back)".to_string(), format!("{:.1}", count(no, "events") as f64 * 60.0 / secs)));
            out.push(("committed New-Orders/min".to_string(), format!("{:.1}", (count(no, "events") - count(no, "rollbacks")) as f64 * 60.0 / secs)));
        }
        for k in kinds {
            let name = k.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            if total > 0 {
                out.push((format!("{name} share of the mix"), format!("{:.1}%", count(k, "events") as f64 * 100.0 / total as f64)));
            }
        }
        out
    }

    /// tpmC over the whole run; for CH-benCHmark the analytic queries too, across both phases.
    fn timeline(&self, workload: &str) -> Vec<Timeline> {
        let mut v = vec![Timeline { title: "tpmC over the run", unit: "New-Orders/min", kinds: vec![KINDS[0]], per_second: 60.0 }];
        if workload == ch::NAME {
            v.push(Timeline { title: "Analytic queries over the run", unit: "queries/min", kinds: ch::KINDS[KINDS.len()..].to_vec(), per_second: 60.0 });
        }
        v
    }

    /// What a run's work is: two runs that differ in one ran different work. The statement
    /// shape halves the statements per transaction, and tpmC with them.
    fn defining_options(&self, workload: &str) -> &'static [&'static str] {
        if workload == ch::NAME {
            &["warehouses", "datasets", "mix", "terminals", "tpcc-shape", "analytic-streams", "analytic-queries", "analytic-rounds", "analytic-side", "alone-phase", "query-timeout"]
        } else {
            &["tpcc-shape"]
        }
    }

    /// Whose TPC-C sends what: a tpmC from one of them compares with a run of the same shape.
    fn peers(&self) -> &'static [Peer] {
        &[
            Peer { tool: "sysbench-tpcc", sends: "each order line's item and stock on statements of their own, about 29 statements per transaction", options: "--tpcc-shape per-item (the default)" },
            Peer {
                tool: "tpcc-mysql",
                sends: "each order line's item and stock on statements of their own, as sysbench-tpcc does",
                options: "--tpcc-shape per-item (the default), --format tpcc-mysql for its output",
            },
            Peer {
                tool: "go-tpc",
                sends: "an order's items and stock in one IN list each, its lines in one multi-row INSERT, ten districts delivered together: about 15 statements per transaction",
                options: "--tpcc-shape go-tpc (label token GoTPC)",
            },
            Peer {
                tool: "HammerDB",
                sends: "one stored procedure call per transaction (TPROC-C), created when the schema is built",
                options: "--tpcc-shape procedures (label token Procs; MySQL family and PostgreSQL)",
            },
        ]
    }

    fn bench(&self, plan: &mut Plan, mut cfg: ConnConfig) -> Result<Option<BenchRun>> {
        let args: TpccArgs = plan.families.get()?;
        let common = plan.families.get()?;
        let w = Tpcc::new(args.clone(), common, plan.run.seed, cfg.engine())?;
        cfg.session_sql.extend(session_sql(cfg.engine(), &args.isolation)?);
        if plan.workload == ch::NAME {
            return ch_bench(plan, w, cfg).map(Some);
        }
        if w.spec && plan.command == BenchCommand::Run {
            spec_threads(plan, w.spec_terminals())?;
        }
        Ok(Some(BenchRun::new(w, cfg)))
    }

    fn labels(&self) -> Option<&dyn Labels> {
        Some(self)
    }
}

impl Labels for TpccFamily {
    fn label_scenarios(&self) -> &'static [Scenario] {
        &[Scenario { token: "TPCC", workload: "tpcc", shape: Shape::Warehouses, meaning: "TPC-C (sysbench-tpcc as in BMK-kit)", point_selects: None }]
    }

    fn label_grammar(&self) -> Option<&'static dyn Grammar> {
        Some(&super::label::TpccGrammar)
    }

    fn canonical_label(&self, _workload: &str, get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(super::label::canonical(get))
    }
}

/// Spec mode: the terminals are the clients, 10 per warehouse, so the
/// thread count is theirs; a different one given explicitly is an error.
fn spec_threads(plan: &mut Plan, n: usize) -> Result<()> {
    let levels = &plan.run.levels;
    if levels.len() > 1 || (levels[0] != 1 && levels[0] != n) {
        return Err(Error::Usage(format!("--terminals=spec runs 10 terminals per warehouse ({n} here): leave --threads out or set it to {n}")));
    }
    plan.run.levels = vec![n];
    Ok(())
}

/// CH-benCHmark: the TPC-C clients (`--threads`, or 10 per warehouse in
/// spec mode) in every level, the analytic streams after them in the
/// mixed one.
fn ch_bench(plan: &mut Plan, w: Tpcc, cfg: ConnConfig) -> Result<BenchRun> {
    let args: ChArgs = plan.families.get()?;
    let c = &mut plan.run;
    if c.levels.len() > 1 {
        return Err(Error::Usage("--threads: CH-benCHmark runs one count of TPC-C clients beside its analytic streams; give one number".into()));
    }
    let terminals = if w.spec { w.spec_terminals() } else { c.levels[0] };
    let analytic = match &args.analytic_target {
        None => None,
        Some(url) => {
            let target = crate::db::url::Target::parse(url).map_err(|e| Error::Usage(format!("--analytic-target: {e}")))?;
            if target.protocol != cfg.target.protocol {
                return Err(Error::Usage(format!(
                    "--analytic-target: a {} server, but the target is {}: give a server holding the same data with the same engine (a replica)",
                    target.protocol.name(),
                    cfg.target.protocol.name()
                )));
            }
            Some(std::sync::Arc::new(ConnConfig { target, engine: std::sync::OnceLock::new(), identity: std::sync::OnceLock::new(), poolers: Default::default(), ..cfg.clone() }))
        }
    };
    let query_timeout = plan.families.value::<f64>("query_timeout").unwrap_or(0.0);
    let mut ch = Ch::new(w, args, terminals, analytic, query_timeout).map_err(|e| Error::Usage(format!("--analytic-queries: {e}")))?;
    ch.repeat(c.repeat, c.repeat_order == crate::values::RepeatOrder::Interleaved);
    c.levels = ch.levels();
    if ch.rounds() > 0 {
        // The mixed phase ends with the streams' rounds, the TPC-C-alone one by its own clock.
        ch.rounds_end_phases(c.warmup_time + c.time);
        c.time = 0.0;
    }
    // --events, when given, caps each phase's events over all its clients, as in every workload.
    if plan.families.given::<u64>("events").is_none() {
        c.events = 0;
    }
    Ok(BenchRun::new(ch, cfg))
}
