//! sysbench Lua scripts as one family in the workload registry: it serves
//! any `*.lua` path, and the script declares its own options and commands.

use super::{commands, Script, ScriptArgs};
use crate::db::ConnConfig;
use crate::error::Result;
use crate::workload::family::{BenchRun, CommandLine, Family};
use crate::workload::plan::Plan;
use clap::Command;

#[derive(Debug)]
pub struct LuaFamily;

impl Family for LuaFamily {
    fn name(&self) -> &'static str {
        "lua"
    }

    fn workloads(&self) -> &'static [&'static str] {
        &[]
    }

    fn serves(&self, workload: &str) -> bool {
        workload.ends_with(".lua")
    }

    fn help(&self) -> &'static str {
        "a sysbench Lua script (path ending in .lua)"
    }

    fn label_example(&self) -> &'static str {
        "a sysbench script such as bench.lua"
    }

    fn augment_args(&self, cmd: Command) -> Command {
        cmd
    }

    fn has_check(&self) -> bool {
        true
    }

    fn bench(&self, plan: &mut Plan, cfg: ConnConfig) -> Result<Option<BenchRun>> {
        let script = Script::read(&plan.workload)?;
        let args = ScriptArgs::from_plan(plan, &cfg);
        commands::dispatch(script, args, plan, cfg)
    }

    fn command_line(&self) -> Option<&dyn CommandLine> {
        Some(self)
    }
}

impl CommandLine for LuaFamily {
    fn own_command_line(&self, workload: &str) -> bool {
        self.serves(workload)
    }
}
