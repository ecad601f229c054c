//! A script's commands: `run` through fairbench's runner; `prepare`,
//! `cleanup`, `help` and any command the script defines in
//! `sysbench.cmdline.commands` (sysbench-tpcc's `check`), run as sysbench
//! runs them: a parallel command in `--threads` threads, each with its own
//! state and `sysbench.tid`, any other once.
//!
//! `init()`, `done()` and the report hooks run in one main state on the
//! thread that reports, as sysbench runs them in its main thread.

use super::api::{self, error_line, Ctx};
use super::opts::{self, OptVal};
use super::sql::{Outcome, Ret};
use super::{ffi, LuaWorkload, Script, ScriptArgs, Shared};
use crate::db::ConnConfig;
use crate::error::{Error, Result};
use crate::model::{Interval, LevelResult, RunInfo, Sink};
use crate::output::StandardOutput;
use crate::workload::family::BenchRun;
use crate::workload::plan::{BenchCommand, Plan};
use mlua::{Function, Lua, Table, Value};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

fn shared(script: Script, args: ScriptArgs, opts: Vec<(String, OptVal)>, cfg: Arc<ConnConfig>) -> Arc<Shared> {
    Arc::new(Shared { script, args, opts, cfg, unique: crate::rand::UniquePermutation::new(1), unique_next: Default::default() })
}

/// Runs the script's command, or for `run` describes the run for the
/// driver.
pub fn dispatch(script: Script, mut args: ScriptArgs, plan: &mut Plan, cfg: ConnConfig) -> Result<Option<BenchRun>> {
    let cfg = Arc::new(cfg);
    let path = script.path.clone();
    // A first state reads the script's option declarations, which tell the
    // options' values from the command (sysbench reads the options before
    // `help` too).
    let first = shared(script.clone(), args.clone(), args.generic.clone(), cfg.clone());
    let (lua, _) = api::new_state_for(&first, 0, args.threads, false).map_err(Error::Usage)?;
    let decls = opts::declarations(&lua)?;
    let given = opts::resolve(&path, &decls, &args.given, &args.command)?;
    args.command = given.command;
    args.given = given.written;
    if args.command == "help" {
        print!("{}", opts::help_text(&path, &decls));
        if let Ok(f) = lua.globals().get::<Function>("help") {
            f.call::<()>(()).map_err(|e| Error::Usage(error_line(&e)))?;
        }
        return Ok(None);
    }
    // The command line guessed the subcommand when the command was among
    // the words after bare options.
    if args.command == "run" {
        plan.command = BenchCommand::Run;
    }
    let mut values = given.values;
    for (k, v) in &args.generic {
        if !values.iter().any(|(n, _)| n == k) {
            values.push((k.clone(), v.clone()));
        }
    }
    drop(lua);
    let sh = shared(script, args, values, cfg.clone());
    let (lua, ctx) = api::new_state_for(&sh, 0, sh.args.threads, false).map_err(Error::Usage)?;
    let command = sh.args.command.clone();
    let defined: Option<(Function, bool)> = script_command(&lua, &command);
    if let Some((f, parallel)) = defined {
        drop(f);
        drop((lua, ctx));
        return run_command(&sh, &command, parallel).map(|()| None);
    }
    match command.as_str() {
        "run" => {
            if lua.globals().get::<Function>("event").is_err() {
                return Err(Error::Usage(format!("{path} defines no event() function, so it cannot run")));
            }
            drop((lua, ctx));
            Ok(Some(BenchRun::new(LuaWorkload::new(sh), cfg)))
        }
        "prepare" | "cleanup" => match lua.globals().get::<Function>(command.as_str()) {
            Ok(f) => call_blocking(&lua, &ctx, f, 0).map(|()| None),
            Err(_) => Err(Error::Usage(format!("{path} has no {command} command"))),
        },
        other => {
            let mut known = vec!["run".to_string(), "help".to_string()];
            for g in ["prepare", "cleanup"] {
                if lua.globals().get::<Function>(g).is_ok() {
                    known.push(g.to_string());
                }
            }
            if let Ok(t) = lua.globals().get::<Table>("sysbench").and_then(|s| s.get::<Table>("cmdline")).and_then(|c| c.get::<Table>("commands")) {
                known.extend(t.pairs::<String, Value>().filter_map(|p| p.ok().map(|(k, _)| k)));
            }
            known.sort();
            known.dedup();
            Err(Error::Usage(format!("{path} has no '{other}' command: use one of {}", known.join(", "))))
        }
    }
}

/// `sysbench.cmdline.commands[name]`: its function and whether it is parallel.
fn script_command(lua: &Lua, name: &str) -> Option<(Function, bool)> {
    let t: Table = lua.globals().get::<Table>("sysbench").ok()?.get::<Table>("cmdline").ok()?.get::<Table>("commands").ok()?;
    let def: Table = t.get(name).ok()?;
    let f: Function = def.get(1).ok()?;
    let parallel = matches!(def.get::<Value>(2), Ok(Value::Boolean(true)));
    Some((f, parallel))
}

/// Calls `f(arg)` to its end on this thread (its SQL calls are async).
fn call_blocking(lua: &Lua, ctx: &Rc<Ctx>, f: Function, arg: i64) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
    let r = rt.block_on(super::sql::drive(lua, ctx, None, super::sql::Callback::Call(&f, Value::Integer(arg))));
    api::flush_c_stdout();
    match r {
        Outcome::Raised(_) if crate::model::interrupted() => Err(Error::Interrupted),
        Outcome::Raised(m) => Err(Error::Sql(m)),
        Outcome::Returned(Ret::False) => Err(Error::Sql("the script's command reported a failure".into())),
        Outcome::Returned(_) => Ok(()),
    }
}

/// A command the script defines, in `--threads` threads when parallel.
fn run_command(sh: &Arc<Shared>, name: &str, parallel: bool) -> Result<()> {
    let n = if parallel { sh.args.threads.max(1) } else { 1 };
    let results: Vec<Result<()>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..n)
            .map(|tid| {
                let sh = sh.clone();
                s.spawn(move || -> Result<()> {
                    let (lua, ctx) = api::new_state_for(&sh, tid, n, false).map_err(Error::Usage)?;
                    let (f, _) = script_command(&lua, name).ok_or_else(|| Error::Usage(format!("{}: command {name} vanished", sh.script.path)))?;
                    call_blocking(&lua, &ctx, f, tid as i64)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(Error::Io("a command thread panicked".into())))).collect()
    });
    results.into_iter().find(|r| r.is_err()).unwrap_or(Ok(()))
}

thread_local! {
    /// The main state of a run: `init`, `done` and the report hooks.
    static MAIN: RefCell<Option<(Lua, Rc<Ctx>)>> = const { RefCell::new(None) };
}

fn main_state(sh: &Arc<Shared>) -> Result<(Lua, Rc<Ctx>)> {
    MAIN.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_none() {
            *m = Some(api::new_state_for(sh, 0, sh.args.threads, false).map_err(Error::Usage)?);
        }
        Ok(m.as_ref().map(|(l, c)| (l.clone(), c.clone())).expect("set above"))
    })
}

/// Calls the main state's global `name()` when the script defines it.
pub fn main_call(sh: &Arc<Shared>, name: &str) -> Result<()> {
    let (lua, ctx) = main_state(sh)?;
    let Ok(f) = lua.globals().get::<Function>(name) else { return Ok(()) };
    let _in = ffi::enter(&ctx);
    let r = f.call::<()>(()).map_err(|e| Error::Sql(error_line(&e)));
    api::flush_c_stdout();
    r
}

fn hook(lua: &Lua, name: &str) -> Option<Function> {
    lua.globals().get::<Table>("sysbench").ok()?.get::<Table>("hooks").ok()?.get::<Function>(name).ok()
}

/// The report hooks, when the script sets one (text output only): they
/// replace the standard line or final report, as in sysbench.
pub fn hook_sink(sh: &Arc<Shared>, json: bool, percentile: u32, standard: &dyn StandardOutput) -> Option<Box<dyn Sink>> {
    if json {
        return None;
    }
    let (lua, ctx) = main_state(sh).ok()?;
    let (inter, cumul) = (hook(&lua, "report_intermediate"), hook(&lua, "report_cumulative"));
    if inter.is_none() && cumul.is_none() {
        return None;
    }
    Some(Box::new(HookSink { lua, ctx, inter, cumul, console: standard.console(false, percentile), percentile }))
}

struct HookSink {
    lua: Lua,
    ctx: Rc<Ctx>,
    inter: Option<Function>,
    cumul: Option<Function>,
    console: Box<dyn Sink>,
    percentile: u32,
}

impl HookSink {
    fn stat(&self, w: &crate::stats::Window, threads: usize, secs: f64, total: f64) -> mlua::Result<Table> {
        let t = self.lua.create_table()?;
        t.set("threads_running", threads)?;
        t.set("time_interval", secs)?;
        t.set("time_total", total)?;
        t.set("latency_pct", w.pct_ms(self.percentile as f64) / 1000.0)?;
        t.set("events", w.events)?;
        t.set("reads", w.reads)?;
        t.set("writes", w.writes)?;
        t.set("other", w.other)?;
        t.set("errors", w.errors)?;
        t.set("reconnects", w.reconnects)?;
        Ok(t)
    }

    fn call(&self, f: &Function, stat: mlua::Result<Table>) {
        let _in = ffi::enter(&self.ctx);
        if let Err(e) = stat.and_then(|s| f.call::<()>(s)) {
            eprintln!("fairbench: report hook: {}", error_line(&e));
        }
        api::flush_c_stdout();
    }
}

impl Sink for HookSink {
    fn start(&mut self, threads: usize) {
        self.console.start(threads);
    }

    fn interval(&mut self, iv: &Interval, rate_mode: bool) {
        match &self.inter {
            Some(f) if !iv.warmup => {
                let stat = self.stat(&iv.w, iv.threads, iv.secs, iv.t).and_then(|t| {
                    t.set("queue_length", iv.w.queue_len)?;
                    t.set("concurrency", iv.w.busy)?;
                    Ok(t)
                });
                self.call(f, stat);
            }
            Some(_) => {}
            None => self.console.interval(iv, rate_mode),
        }
    }

    fn summary(&mut self, r: &LevelResult, info: &RunInfo) {
        let Some(f) = &self.cumul else { return self.console.summary(r, info) };
        let w = &r.total;
        let stat = self.stat(w, r.threads, r.elapsed_s, r.elapsed_s).and_then(|t| {
            let n = w.lat.len().max(1) as f64;
            t.set("latency_min", w.lat.min() as f64 / 1e6)?;
            t.set("latency_max", w.lat.max() as f64 / 1e6)?;
            t.set("latency_avg", w.lat.mean() / 1e6)?;
            t.set("latency_sum", w.lat.mean() * n / 1e6)?;
            Ok(t)
        });
        self.call(f, stat);
    }
}
