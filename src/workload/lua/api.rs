//! A Lua state with sysbench's API, and the per-client context behind it.

use super::sql::{ConnSlot, PVal, Request, StmtSlot};
use super::{ffi, sql, Shared};
use crate::db::DbError;
use crate::rand::{Dist, DistConfig, RandType, Rng};
use crate::workload::Counters;
use mlua::{Lua, LuaOptions, StdLib, Table, Thread, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What one Lua state's API calls act on.
pub struct Ctx {
    pub tid: usize,
    pub shared: Arc<Shared>,
    pub rng: RefCell<Rng>,
    dist: DistConfig,
    /// Distributions by (kind, a, b): building one precomputes constants.
    dists: RefCell<Vec<(RandType, u64, u64, Dist)>>,
    /// The script's connections, by the handle its Lua objects hold.
    pub conns: RefCell<Vec<ConnSlot>>,
    /// The script's prepared statements, by handle.
    pub stmts: RefCell<Vec<StmtSlot>>,
    /// The values of the statement being executed, buffers reused.
    pub params: RefCell<Vec<PVal>>,
    /// The text of the query being made.
    pub text: RefCell<String>,
    /// The request the script's coroutine yielded for.
    pub pending: RefCell<Option<Request>>,
    /// Whether a callback runs in the client's coroutine (requests possible).
    pub driving: Cell<bool>,
    /// The runner's connection while a callback runs, when its calls
    /// never suspend ([`Conn::blocks`]): `execute` then runs the statement
    /// in place instead of yielding for it. Null otherwise.
    pub in_place: Cell<*mut crate::db::Conn>,
    /// The coroutine every callback of this state runs in, and its body.
    pub co: RefCell<Option<Thread>>,
    worker: RefCell<Option<mlua::Function>>,
    /// Set when an error ended the coroutine outside a callback.
    pub co_dead: Cell<bool>,
    /// Whether the script's first `connect()` took the runner's connection.
    pub primary_taken: Cell<bool>,
    /// Whether this state belongs to a runner client (which lends a connection).
    pub runner_client: bool,
    /// reads, writes, other, BEGIN/COMMIT among other, errors, reconnects.
    counts: [Cell<u64>; 6],
    /// The error that made an SQL call raise RESTART_EVENT, for the runner.
    sql_error: RefCell<Option<DbError>>,
    /// Its description (`errdesc`), for `before_restart_event`.
    pub last_errdesc: RefCell<Option<Table>>,
    /// (rows, columns) of the last statement `fairbench_exec` ran.
    pub shape: Cell<(i64, i64)>,
}

impl Ctx {
    fn new(shared: Arc<Shared>, tid: usize, runner_client: bool) -> Ctx {
        Ctx {
            tid,
            rng: RefCell::new(Rng::from_seed_or_entropy(shared.args.seed, tid as u64)),
            dist: shared.args.dist.clone(),
            shared,
            dists: RefCell::new(Vec::new()),
            conns: RefCell::new(Vec::new()),
            stmts: RefCell::new(Vec::new()),
            params: RefCell::new(Vec::new()),
            text: RefCell::new(String::new()),
            pending: RefCell::new(None),
            driving: Cell::new(false),
            in_place: Cell::new(std::ptr::null_mut()),
            co: RefCell::new(None),
            worker: RefCell::new(None),
            co_dead: Cell::new(false),
            primary_taken: Cell::new(false),
            runner_client,
            counts: Default::default(),
            sql_error: RefCell::new(None),
            last_errdesc: RefCell::new(None),
            shape: Cell::new((0, 0)),
        }
    }

    /// The coroutine's raw state.
    pub fn co_state(&self) -> *mut mlua::ffi::lua_State {
        self.co.borrow().as_ref().map(Thread::state).unwrap_or(std::ptr::null_mut())
    }

    /// Starts a new coroutine after an error ended the last one.
    pub fn renew_co(&self, lua: &Lua) {
        let w = self.worker.borrow().clone();
        if let Some(t) = w.and_then(|w| lua.create_thread(w).ok()) {
            self.co.replace(Some(t));
            self.co_dead.set(false);
        }
    }

    /// A new connection slot; its handle.
    pub fn add_conn(&self, slot: ConnSlot) -> usize {
        let mut c = self.conns.borrow_mut();
        c.push(slot);
        c.len() - 1
    }

    pub fn count_kind(&self, i: usize) {
        self.counts[i].set(self.counts[i].get() + 1);
    }

    /// Moves the counts of the event that just ran into the runner's counters.
    pub fn drain_counts(&self, q: &mut Counters) {
        q.reads += self.counts[0].take();
        q.writes += self.counts[1].take();
        q.other += self.counts[2].take();
        q.trx += self.counts[3].take();
        q.errors += self.counts[4].take();
        self.counts[5].take();
    }

    pub fn set_sql_error(&self, e: DbError, errdesc: Table) {
        self.sql_error.replace(Some(e));
        self.last_errdesc.replace(Some(errdesc));
    }

    pub fn take_sql_error(&self) -> Option<DbError> {
        self.sql_error.take()
    }

    /// A draw from [a, b]; `kind` None: `--rand-type`.
    pub fn rand_in(&self, kind: Option<RandType>, a: u64, b: u64) -> u64 {
        let kind = kind.unwrap_or(self.dist.kind);
        let mut dists = self.dists.borrow_mut();
        let i = match dists.iter().position(|(k, x, y, _)| *k == kind && *x == a && *y == b) {
            Some(i) => i,
            None => {
                if dists.len() >= 16 {
                    dists.remove(0);
                }
                let cfg = DistConfig { kind, ..self.dist.clone() };
                dists.push((kind, a, b, Dist::new(&cfg, a, b)));
                dists.len() - 1
            }
        };
        dists[i].3.sample(&mut self.rng.borrow_mut())
    }

    pub fn unique(&self) -> u32 {
        let n = self.shared.unique_next.fetch_add(1, Ordering::Relaxed);
        self.shared.unique.at(n)
    }

    pub fn fill(&self, tmpl: &[u8], out: &mut [u8]) {
        let mut r = self.rng.borrow_mut();
        for (o, &t) in out.iter_mut().zip(tmpl) {
            *o = match t {
                b'#' => r.uniform(u64::from(b'0'), u64::from(b'9')) as u8,
                b'@' => r.uniform(u64::from(b'a'), u64::from(b'z')) as u8,
                c => c,
            };
        }
    }

    pub fn varstr(&self, min: u32, max: u32, out: &mut [u8]) -> u32 {
        const CHARS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut r = self.rng.borrow_mut();
        let n = r.uniform(u64::from(min), u64::from(max)) as usize;
        for o in out.iter_mut().take(n) {
            *o = CHARS[r.uniform(0, CHARS.len() as u64 - 1) as usize];
        }
        n as u32
    }
}

/// sysbench's API in Lua over the exported symbols, and its aliases.
const PRELUDE: &str = r#"
ffi = require("ffi")
ffi.cdef[[
uint64_t sb_rand_uniform_uint64(void);
uint32_t sb_rand_default(uint32_t, uint32_t);
uint32_t sb_rand_uniform(uint32_t, uint32_t);
uint32_t sb_rand_gaussian(uint32_t, uint32_t);
uint32_t sb_rand_special(uint32_t, uint32_t);
uint32_t sb_rand_pareto(uint32_t, uint32_t);
uint32_t sb_rand_zipfian(uint32_t, uint32_t);
uint32_t sb_rand_unique(void);
void sb_rand_str(const char *, char *);
uint32_t sb_rand_varstr(char *, uint32_t, uint32_t);
double sb_rand_uniform_double(void);
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
bool sb_more_events(int thread_id);
typedef enum
{
  SB_CNT_OTHER, SB_CNT_READ, SB_CNT_WRITE, SB_CNT_TRX, SB_CNT_ERROR,
  SB_CNT_RECONNECT, SB_CNT_BYTES_READ, SB_CNT_BYTES_WRITTEN, SB_CNT_MAX
} sb_counter_type;
]]
local C = ffi.C
local r = {}
sysbench.rand = r
r.default = function(a, b) return C.sb_rand_default(a, b) end
r.uniform = function(a, b) return C.sb_rand_uniform(a, b) end
r.gaussian = function(a, b) return C.sb_rand_gaussian(a, b) end
r.special = function(a, b) return C.sb_rand_special(a, b) end
r.pareto = function(a, b) return C.sb_rand_pareto(a, b) end
r.zipfian = function(a, b) return C.sb_rand_zipfian(a, b) end
r.unique = function() return C.sb_rand_unique() end
r.uniform_uint64 = function() return C.sb_rand_uniform_uint64() end
r.uniform_double = function() return C.sb_rand_uniform_double() end
r.string = function(fmt)
  local n = #fmt
  local out = ffi.new("char[?]", n)
  C.sb_rand_str(fmt, out)
  return ffi.string(out, n)
end
r.varstring = function(lo, hi)
  local out = ffi.new("char[?]", hi)
  return ffi.string(out, C.sb_rand_varstr(out, lo, hi))
end

local cl = sysbench.cmdline
cl.command_defined = function(name)
  local c = cl.commands
  return type(c) == "table" and c[name] ~= nil and c[name][1] ~= nil
end
cl.command_parallel = function(name)
  return cl.command_defined(name) and cl.commands[name][2] == cl.PARALLEL_COMMAND
end
cl.call_command = function(name)
  if not cl.command_defined(name) then return false end
  local rc = cl.commands[name][1]()
  if rc == nil then return true end
  return rc and true or false
end

local function rates(stat)
  local s = stat.time_interval
  return stat.events / s, (stat.reads + stat.writes + stat.other) / s,
         stat.reads / s, stat.writes / s, stat.other / s,
         stat.errors / s, stat.reconnects / s
end
sysbench.report_default = function(stat)
  local tps, qps, rd, wr, ot, er, rc = rates(stat)
  print(string.format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%u%%): %4.2f err/s %4.2f reconn/s: %4.2f",
    stat.time_total, stat.threads_running, tps, qps, rd, wr, ot, sysbench.opt.percentile, stat.latency_pct * 1000, er, rc))
end
sysbench.report_csv = function(stat)
  local tps, qps, rd, wr, ot, er, rc = rates(stat)
  print(string.format("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f",
    stat.time_total, stat.threads_running, tps, qps, rd, wr, ot, stat.latency_pct * 1000, er, rc))
end
sysbench.report_json = function(stat)
  local tps, qps, rd, wr, ot, er, rc = rates(stat)
  print(string.format('{"time": %.0f, "threads": %u, "tps": %4.2f, "qps": {"total": %4.2f, "reads": %4.2f, "writes": %4.2f, "other": %4.2f}, "latency": %4.2f, "errors": %4.2f, "reconnects": %4.2f}',
    stat.time_total, stat.threads_running, tps, qps, rd, wr, ot, stat.latency_pct * 1000, er, rc))
end

thread_id = sysbench.tid
sb_rand = r.default
sb_rand_str = r.string
sb_rand_uniform = r.uniform
sb_rand_gaussian = r.gaussian
sb_rand_special = r.special
sb_rnd = function() return tonumber(r.uniform_uint64() % 4294967296) end
sb_rand_uniq = function(a, b)
  a = a or 0
  b = b or 4294967295
  local v
  repeat v = r.unique() until v >= a and v <= b
  return v
end
"#;

/// A state for client or command thread `tid` of `threads`, with the
/// script loaded. `runner_client`: its first connection is the runner's.
pub fn new_state_for(shared: &Arc<Shared>, tid: usize, threads: usize, runner_client: bool) -> Result<(Lua, Rc<Ctx>), String> {
    ffi::keep_symbols();
    // SAFETY: scripts use LuaJIT's ffi library, as sysbench lets them.
    let lua = unsafe { Lua::unsafe_new_with(StdLib::ALL, LuaOptions::default()) };
    let ctx = Rc::new(Ctx::new(shared.clone(), tid, runner_client));
    let _in = ffi::enter(&ctx);
    let path = &shared.script.path;
    let setup = || -> mlua::Result<()> {
        let g = lua.globals();
        let package: Table = g.get("package")?;
        let search = format!("{}/?.lua;/usr/share/sysbench/?.lua;{}", shared.script.dir.display(), package.get::<String>("path")?);
        package.set("path", search)?;
        let sb = lua.create_table()?;
        sb.set("tid", tid)?;
        sb.set("version", "1.0.20")?;
        sb.set("version_string", format!("sysbench 1.0.20 API (fairbench {})", env!("CARGO_PKG_VERSION")))?;
        let opt = lua.create_table()?;
        for (k, v) in &shared.opts {
            opt.set(k.as_str(), v.to_lua(&lua)?)?;
        }
        opt.set("threads", threads)?;
        sb.set("opt", opt)?;
        let err = lua.create_table()?;
        err.set("NONE", 0)?;
        err.set("RESTART_EVENT", 1)?;
        sb.set("error", err)?;
        let cl = lua.create_table()?;
        cl.set("argv", lua.create_sequence_from(std::iter::once(path.clone()).chain(shared.args.given.iter().cloned()))?)?;
        cl.set("command", shared.args.command.as_str())?;
        cl.set("script_path", path.as_str())?;
        cl.set("options", lua.create_table()?)?;
        for (name, v) in [("ARG_NULL", 0), ("ARG_BOOL", 1), ("ARG_INT", 2), ("ARG_SIZE", 3), ("ARG_DOUBLE", 4), ("ARG_STRING", 5), ("ARG_LIST", 6), ("ARG_FILE", 7), ("ARG_MAX", 8)] {
            cl.set(name, v)?;
        }
        cl.set("PARALLEL_COMMAND", true)?;
        sb.set("cmdline", cl)?;
        sb.set("hooks", lua.create_table()?)?;
        let test = lua.create_table()?;
        test.set("path", path.as_str())?;
        sb.set("test", test)?;
        g.set("sysbench", sb.clone())?;
        let worker = sql::install(&lua, &sb, &ctx)?;
        ctx.co.replace(Some(lua.create_thread(worker.clone())?));
        ctx.worker.replace(Some(worker));
        // print goes through fairbench's stdout, so script lines keep their
        // place among fairbench's own.
        g.set(
            "print",
            lua.create_function(|_, args: mlua::Variadic<Value>| {
                use std::io::Write;
                let mut line = String::new();
                for (i, v) in args.iter().enumerate() {
                    if i > 0 {
                        line.push('\t');
                    }
                    line.push_str(&v.to_string()?);
                }
                line.push('\n');
                flush_c_stdout();
                let _ = std::io::stdout().lock().write_all(line.as_bytes());
                Ok(())
            })?,
        )?;
        lua.load(PRELUDE).set_name("=sysbench").exec()?;
        // Ctrl-C reaches a script that never calls the API (an endless
        // loop). Held by a userdata, whose finalizer runs inside lua_close
        // while the state still exists, so the registration never outlives it.
        let co = ctx.co.borrow().clone().expect("set above");
        let watched = lua.create_any_userdata(ffi::watch(&co))?;
        lua.set_named_registry_value("fairbench.watched", watched)?;
        // The registered state stays alive even if an error ends it.
        lua.set_named_registry_value("fairbench.first_co", co)?;
        Ok(())
    };
    setup().map_err(|e| format!("cannot set up the Lua state: {e}"))?;
    lua.load(shared.script.source.as_str()).set_name(format!("@{path}")).exec().map_err(|e| error_line(&e))?;
    export_legacy_globals(&lua).map_err(|e| format!("cannot set up the Lua state: {e}"))?;
    Ok((lua, ctx))
}

/// A script that declares no options sees every option as a global too,
/// as sysbench 1.0 keeps for scripts written before `sysbench.opt`
/// (`oltp_table_size`), unless the global is a function of the script's.
fn export_legacy_globals(lua: &Lua) -> mlua::Result<()> {
    let sb: Table = lua.globals().get("sysbench")?;
    let declared = sb.get::<Table>("cmdline")?.get::<Option<Table>>("options")?.is_some_and(|t| t.pairs::<Value, Value>().next().is_some());
    if declared {
        return Ok(());
    }
    let g = lua.globals();
    for pair in sb.get::<Table>("opt")?.pairs::<String, Value>() {
        let (name, value) = pair?;
        if !is_function(&g.get::<Value>(name.as_str())?) {
            g.set(name, value)?;
        }
    }
    Ok(())
}

/// Writes out what a script wrote with `io.write` (C's buffered stdout).
pub fn flush_c_stdout() {
    // SAFETY: fflush(NULL) flushes every C output stream; no arguments to get wrong.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}

/// A runner client's state.
pub fn new_state(shared: &Arc<Shared>, tid: usize, threads: usize) -> Result<(Lua, Rc<Ctx>), String> {
    new_state_for(shared, tid, threads, true)
}

/// A Lua error as one line: `FILE:LINE: message`.
pub fn error_line(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { traceback, cause } => {
            let msg = error_line(cause);
            if has_location(&msg) {
                return msg;
            }
            match traceback.lines().map(str::trim).find_map(location) {
                Some(loc) => format!("{loc}: {msg}"),
                None => msg,
            }
        }
        mlua::Error::WithContext { cause, .. } => error_line(cause),
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => first_line(m),
        mlua::Error::ExternalError(x) => first_line(&x.to_string()),
        other => first_line(&other.to_string()),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().trim().to_string()
}

/// `path.lua:12` at the start of a traceback line.
fn location(line: &str) -> Option<String> {
    let (file, rest) = line.split_once(".lua:")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty() && !file.contains(' ')).then(|| format!("{file}.lua:{digits}"))
}

fn has_location(msg: &str) -> bool {
    msg.split(": ").next().is_some_and(|head| location(head).is_some())
}

/// Whether a Lua value is a function.
pub fn is_function(v: &Value) -> bool {
    matches!(v, Value::Function(_))
}
