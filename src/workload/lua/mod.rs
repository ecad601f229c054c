//! sysbench Lua scripts, unmodified, with fairbench's measurement.
//!
//! Each client has its own LuaJIT state (as each sysbench thread has), in
//! which the script is loaded with sysbench's API: `sysbench.opt`,
//! `sysbench.cmdline`, `sysbench.rand` (fairbench's sysbench-compatible
//! generators, through the `sb_rand_*` symbols the binary exports for
//! `ffi.C`), `sysbench.sql` over fairbench's connections, and the hooks.
//!
//! The runner drives async clients; a script's SQL calls look blocking to
//! the script but are async Rust functions: an event runs as a Lua
//! coroutine that yields while its statement is in flight, so many clients
//! share a worker thread and a script never blocks its thread on a server.
//! The runner times each call of the script's `event()`, counts its
//! queries as sysbench does, and reports and stores as for any workload.

pub mod api;
pub mod commands;
pub mod driver;
pub mod family;
pub mod ffi;
pub mod opts;
pub mod sql;

use crate::db::{Conn, ConnConfig, DbError, DbResult, ErrKind, StatementSet};
use crate::env::DatasetTables;
use crate::error::{Error, Result};
use crate::rand::DistConfig;
use crate::workload::plan::Plan;
use crate::workload::{Checked, Counters, Dataset, Levels, TableState, Witnessed, Workload};
use api::Ctx;
use mlua::{Function, Lua, Value};
use opts::OptVal;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

/// The script file, read once.
#[derive(Clone, Debug)]
pub struct Script {
    /// As the user gave it: error lines and records name it so.
    pub path: String,
    pub source: String,
    pub sha256: String,
    /// Its folder, searched first by `require` (oltp_common.lua sits next
    /// to the oltp scripts).
    pub dir: PathBuf,
}

impl Script {
    pub fn read(path: &str) -> Result<Script> {
        let bytes = std::fs::read(path).map_err(|e| Error::Usage(format!("cannot read the script {path}: {e}")))?;
        let source = String::from_utf8(bytes).map_err(|_| Error::Usage(format!("{path}: the script is not UTF-8 text")))?;
        let sha256 = sha256_hex(source.as_bytes());
        let dir = std::path::Path::new(path).parent().map(|p| if p.as_os_str().is_empty() { PathBuf::from(".") } else { p.to_path_buf() }).unwrap_or_else(|| PathBuf::from("."));
        Ok(Script { path: path.to_string(), source, sha256, dir })
    }

    /// The file name without `.lua`, for labels.
    pub fn stem(&self) -> &str {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        name.strip_suffix(".lua").unwrap_or(name)
    }
}

pub fn sha256_hex(b: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect()
}

/// What the command line says to the script.
#[derive(Clone, Debug)]
pub struct ScriptArgs {
    /// The command: run, prepare, cleanup, help or one the script defines.
    pub command: String,
    /// `--name[=value]` as written.
    pub given: Vec<String>,
    /// fairbench's own options, which scripts also read from `sysbench.opt`.
    pub generic: Vec<(String, OptVal)>,
    pub dist: DistConfig,
    pub seed: u64,
    pub threads: usize,
}

impl ScriptArgs {
    pub fn from_plan(plan: &Plan, cfg: &ConnConfig) -> ScriptArgs {
        let c = &plan.run;
        let r = &plan.dist;
        let threads = c.max_threads();
        let db_driver = driver::option_value(Some(cfg.target.protocol));
        let generic = vec![
            ("threads".into(), OptVal::Int(threads as i64)),
            ("time".into(), OptVal::Num(c.time)),
            ("events".into(), OptVal::Int(c.events as i64)),
            ("rate".into(), OptVal::Num(c.rate)),
            ("report_interval".into(), OptVal::Num(c.report_interval)),
            ("warmup_time".into(), OptVal::Num(c.warmup_time)),
            ("percentile".into(), OptVal::Int(c.percentile as i64)),
            ("histogram".into(), OptVal::Bool(false)),
            ("rand_type".into(), OptVal::Str(r.kind.name().into())),
            ("rand_seed".into(), OptVal::Int(c.seed as i64)),
            ("rand_spec_iter".into(), OptVal::Int(r.spec_iter as i64)),
            ("rand_spec_pct".into(), OptVal::Num(r.spec_pct)),
            ("rand_spec_res".into(), OptVal::Num(r.spec_res)),
            ("rand_pareto_h".into(), OptVal::Num(r.pareto_h)),
            ("rand_zipfian_exp".into(), OptVal::Num(r.zipfian_exp)),
            ("db_driver".into(), OptVal::Str(db_driver.into())),
            ("db_ps_mode".into(), OptVal::Str(if cfg.prepared { "auto" } else { "disable" }.into())),
        ];
        ScriptArgs {
            command: plan.script_command.clone().unwrap_or_else(|| plan.command.name().to_string()),
            given: plan.script_options.clone(),
            generic,
            dist: plan.dist.clone(),
            seed: c.seed,
            threads,
        }
    }
}

/// A script ready to run: every state of the run is built from it.
#[derive(Debug)]
pub struct Shared {
    pub script: Script,
    pub args: ScriptArgs,
    /// The script's options with their values, then fairbench's.
    pub opts: Vec<(String, OptVal)>,
    pub cfg: Arc<ConnConfig>,
    /// `sysbench.rand.unique()`: one sequence over all clients.
    pub unique: crate::rand::UniquePermutation,
    pub unique_next: std::sync::atomic::AtomicU32,
}

/// `run` of a script: the runner calls the script's callbacks.
pub struct LuaWorkload {
    pub shared: Arc<Shared>,
    set: Arc<StatementSet>,
}

/// One client: its Lua state and the script's `event`.
pub struct LuaClient {
    state: std::result::Result<ClientState, String>,
}

struct ClientState {
    lua: Lua,
    ctx: Rc<Ctx>,
}

impl LuaWorkload {
    pub fn new(shared: Arc<Shared>) -> LuaWorkload {
        LuaWorkload { shared, set: Arc::new(StatementSet::default()) }
    }

    fn fatal(msg: String) -> DbError {
        DbError { kind: ErrKind::Fatal, code: String::new(), message: msg }
    }
}

impl ClientState {
    /// Calls a callback in the client's coroutine, the runner's connection
    /// lent to the script for the length of the call.
    async fn call(&self, conn: &mut Conn, cb: sql::Callback<'_>) -> DbResult<sql::Ret> {
        let out = sql::drive(&self.lua, &self.ctx, Some(conn), cb).await;
        self.outcome(out)
    }

    /// A callback's end as the runner takes it.
    fn outcome(&self, out: sql::Outcome) -> DbResult<sql::Ret> {
        let msg = match out {
            sql::Outcome::Returned(v) => return Ok(v),
            sql::Outcome::Raised(m) => m,
        };
        Err(match self.ctx.take_sql_error() {
            Some(sql) => sql,
            // Ctrl-C raised an error in the script (the interpreter's hook or an API call).
            None if crate::model::interrupted() => DbError { kind: ErrKind::Stopped, code: String::new(), message: "interrupted".into() },
            None => LuaWorkload::fatal(msg),
        })
    }
}

impl Workload for LuaWorkload {
    type Client = LuaClient;

    fn statements(&self) -> Arc<StatementSet> {
        self.set.clone()
    }

    /// A script's connections are its own (`sysbench.sql.driver():connect()`).
    fn reconnects_itself(&self) -> bool {
        true
    }

    fn new_client(&self, id: usize, clients: usize) -> LuaClient {
        let state = api::new_state(&self.shared, id, clients).and_then(|(lua, ctx)| {
            // The coroutine calls the global `event` by name, as sysbench does.
            lua.globals().get::<Function>("event").map_err(|_| format!("{}: the script defines no event() function", self.shared.script.path))?;
            Ok(ClientState { lua, ctx })
        });
        LuaClient { state }
    }

    async fn client_init(&self, conn: &mut Conn, c: &mut LuaClient) -> DbResult<()> {
        let s = c.state.as_ref().map_err(|e| Self::fatal(e.clone()))?;
        if let Ok(f) = s.lua.globals().get::<Function>("thread_init") {
            s.call(conn, sql::Callback::Call(&f, Value::Integer(s.ctx.tid as i64))).await?;
        }
        // Set-up queries run before the start barrier: not the run's.
        s.ctx.drain_counts(&mut Counters::default());
        Ok(())
    }

    async fn client_done(&self, conn: &mut Conn, c: &mut LuaClient) {
        let Ok(s) = c.state.as_ref() else { return };
        if let Ok(f) = s.lua.globals().get::<Function>("thread_done") {
            if let Err(e) = s.call(conn, sql::Callback::Call(&f, Value::Integer(s.ctx.tid as i64))).await {
                eprintln!("fairbench: thread_done: {e}");
            }
        }
    }

    async fn event(&self, conn: &mut Conn, c: &mut LuaClient, q: &mut Counters, _retry: bool) -> DbResult<()> {
        let s = c.state.as_ref().map_err(|e| Self::fatal(e.clone()))?;
        // The coroutine's future is awaited here, not through `call`: a
        // future passed up through one more async fn is copied once more
        // per event (a few KiB).
        let out = sql::drive(&s.lua, &s.ctx, Some(conn), sql::Callback::Event(s.ctx.tid as i64)).await;
        let r = s.outcome(out);
        s.ctx.drain_counts(q);
        // sysbench: an event returning anything but nil or false ends the thread.
        if let Ok(sql::Ret::Other) = &r {
            q.ended = true;
        }
        r.map(|_| ())
    }

    async fn after_error(&self, conn: &mut Conn, c: &mut LuaClient) {
        let Ok(s) = c.state.as_ref() else { return };
        // sysbench restarts the event inside the failed transaction; there
        // PostgreSQL refuses every statement and SQLite every BEGIN until
        // it ends, so the transaction is rolled back first (MySQL-family
        // servers have rolled it back already after a deadlock).
        let _ = conn.query("ROLLBACK").await;
        let Some(errdesc) = s.ctx.last_errdesc.take() else { return };
        let hook = s.lua.globals().get::<mlua::Table>("sysbench").and_then(|t| t.get::<mlua::Table>("hooks")).and_then(|h| h.get::<Function>("before_restart_event"));
        if let Ok(f) = hook {
            if let Err(e) = s.call(conn, sql::Callback::Call(&f, Value::Table(errdesc))).await {
                eprintln!("fairbench: before_restart_event: {}", e.message);
            }
        }
    }

    fn label(&self, _cfg: &ConnConfig) -> String {
        let mut l = format!("LUA-{}", self.shared.script.stem());
        for g in &self.shared.args.given {
            l.push('-');
            l.push_str(g.trim_start_matches('-'));
        }
        l
    }

    fn options(&self, _cfg: &ConnConfig) -> Vec<(String, String)> {
        let mut o = vec![("script".to_string(), self.shared.script.path.clone()), ("script-sha256".to_string(), self.shared.script.sha256.clone())];
        // The distribution sysbench.rand.default draws from: two runs of one
        // script differ by it, so it is stored (the other generic options are
        // the run's own).
        if let Some((_, v)) = self.shared.args.generic.iter().find(|(k, _)| k == "rand_type") {
            o.push(("rand-type".to_string(), v.text()));
        }
        let generic: Vec<&str> = self.shared.args.generic.iter().map(|(k, _)| k.as_str()).collect();
        for (k, v) in &self.shared.opts {
            if !generic.contains(&k.as_str()) {
                o.push((k.replace('_', "-"), v.text()));
            }
        }
        o
    }
}

impl Witnessed for LuaWorkload {}

impl Levels for LuaWorkload {
    async fn run_started(&self, _cfg: &Arc<ConnConfig>, _rc: &crate::model::RunControl) -> Result<()> {
        commands::main_call(&self.shared, "init")
    }

    async fn run_finished(&self, _cfg: &Arc<ConnConfig>, _r: &crate::model::LevelResult) -> Result<()> {
        commands::main_call(&self.shared, "done")
    }

    fn sink(&self, json: bool, percentile: u32, standard: &'static dyn crate::output::StandardOutput) -> Option<Box<dyn crate::model::Sink>> {
        commands::hook_sink(&self.shared, json, percentile, standard)
    }
}

/// A script owns its tables: `prepare` and `cleanup` are its own commands.
impl Dataset for LuaWorkload {
    fn dataset_tables(&self) -> DatasetTables {
        DatasetTables::Prefix("sbtest".into())
    }

    async fn table_state(&self, _cfg: &Arc<ConnConfig>) -> Result<TableState> {
        // A script owns its tables: `prepare` is its own command.
        Ok(TableState::Ready)
    }

    async fn prepare(&self, _cfg: Arc<ConnConfig>, _threads: usize, _quiet: bool) -> Result<()> {
        Ok(())
    }

    async fn cleanup(&self, _cfg: Arc<ConnConfig>, _threads: usize, _quiet: bool) -> Result<()> {
        Ok(())
    }

    async fn prewarm(&self, _cfg: Arc<ConnConfig>, _quiet: bool) -> Result<()> {
        Ok(())
    }
}

impl Checked for LuaWorkload {}
