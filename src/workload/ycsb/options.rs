//! Options of YCSB: its workload files and properties, as YCSB's client
//! takes them (`-P FILE`, `-p key=value`), and the phase. YCSB's own
//! command-line words (`load`, `-threads`, `-target`, `-s`) are rewritten to
//! fairbench's before these are parsed ([`super::family::command_line`]).
//! A fairbench option given on the command line (`--threads`, `--rate`,
//! `--time`, `--events`) wins over the property that means the same.

use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "YCSB")]
pub struct YcsbArgs {
    /// YCSB workload file (repeatable, a later one winning); the core workloads workloada .. workloadf ship with fairbench
    #[arg(short = 'P', long = "ycsb-workload", value_name = "FILE")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ycsb_workload: Vec<PathBuf>,
    /// A YCSB property, winning over every workload file (repeatable), e.g. -p recordcount=1000000
    #[arg(short = 'p', long = "ycsb-property", value_name = "KEY=VALUE")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ycsb_property: Vec<String>,
    /// load: YCSB's load phase, its operations insert the records (`fairbench load ycsb`); run: the workload's mix
    #[arg(long, default_value = "run", value_parser = ["load", "run"])]
    pub ycsb_phase: String,
}
