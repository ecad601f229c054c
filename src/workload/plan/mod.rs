//! The plan of one bench command (prepare, run, cleanup, prewarm, check):
//! the typed description the registered family and the driver read. The
//! command line (`cli::bench_args`) resolves into it once, whichever form it
//! was written in, so nothing from here down imports the command line.

mod settings;

use crate::rand::DistConfig;
use crate::workload::family::FamilyArgs;
pub use settings::{Group, Outputs, RunSettings, SamplingSettings, Sysbench};

/// The bench commands a workload runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchCommand {
    Prepare,
    Run,
    Cleanup,
    Prewarm,
    Check,
}

impl BenchCommand {
    /// Every one, in the order help lists them.
    pub const ALL: [BenchCommand; 5] = [BenchCommand::Run, BenchCommand::Prepare, BenchCommand::Cleanup, BenchCommand::Prewarm, BenchCommand::Check];

    /// The command's name as the command line and sysbench scripts write it.
    pub fn name(self) -> &'static str {
        match self {
            BenchCommand::Prepare => "prepare",
            BenchCommand::Run => "run",
            BenchCommand::Cleanup => "cleanup",
            BenchCommand::Prewarm => "prewarm",
            BenchCommand::Check => "check",
        }
    }
}

/// The validated plan of one command, resolved from the command line: the
/// families and the driver read it, never the command-line structs.
#[derive(Debug)]
pub struct Plan {
    pub command: BenchCommand,
    pub workload: String,
    /// The registered family serving `workload`.
    pub family: &'static dyn crate::workload::family::Family,
    /// Every family's own options (each family reads its own).
    pub families: FamilyArgs,
    /// Run control, outputs and sampling.
    pub run: RunSettings,
    pub dist: DistConfig,
    /// The target's connection settings.
    pub cfg: crate::db::ConnConfig,
    /// The label the command line gave, when it gave one.
    pub label_used: Option<String>,
    /// The command as written, for a workload that defines its own
    /// ([`crate::workload::family::CommandLine::own_command_line`]); None: `command`'s name.
    pub script_command: Option<String>,
    /// The workload's own options as written, for a workload that declares its own.
    pub script_options: Vec<String>,
}
