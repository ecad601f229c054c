//! `sysbench.sql`: drivers, connections, statements, bound parameters and
//! results over fairbench's connections.
//!
//! The objects a script holds are Lua tables (sql.lua); this side keeps
//! what they stand for in the client's [`Ctx`]. A call that needs the
//! server queues a [`Request`] and the Lua side yields the client's one
//! coroutine; [`drive`] performs the request on the connection and resumes
//! it. So a statement costs no future, no userdata and no Lua allocation:
//! `execute` reads its bound values straight off the Lua stack.
//!
//! Here: the `sysbench.sql` functions a script calls and the client's
//! context; `drive.rs` the loop that performs what they queue.

mod drive;

pub use drive::{drive, Callback, Outcome, Ret};
use drive::{exec_stmt, push_opt};

use super::api::{error_line, Ctx};
use super::{driver, ffi};
use crate::db::{Class, Conn, DbError, ErrKind, Param, Protocol, RowBuf, StmtId};
use mlua::ffi as lua;
use mlua::{Function, Lua, Table, Value};
use std::os::raw::c_int;
use std::rc::Rc;
use std::sync::Arc;

/// sysbench's driver for a multi-row INSERT buffer (BULK_PACKET_SIZE).
const BULK_BYTES: usize = 512 * 1024;

/// sysbench's bind types (`sysbench.sql.type`).
const TYPES: [(&str, i64); 13] =
    [("NONE", 0), ("TINYINT", 1), ("SMALLINT", 2), ("INT", 3), ("BIGINT", 4), ("FLOAT", 5), ("DOUBLE", 6), ("TIME", 7), ("DATE", 8), ("DATETIME", 9), ("TIMESTAMP", 10), ("CHAR", 11), ("VARCHAR", 12)];

/// What a yielded call asks of the server.
#[derive(Debug)]
pub enum Request {
    Connect,
    /// Statement `n` of the client, with the values in `Ctx::params`.
    Exec(usize),
    /// `Ctx::text` on connection `n`.
    Query(usize),
    /// `Ctx::text` prepared on connection `n`.
    Prepare(usize),
    Disconnect(usize),
    Reconnect(usize),
    /// Statement `n` ran in place and the server refused it: the error
    /// goes through the script's hooks as any other.
    Failed(usize, DbError),
}

/// A connection of the script: the runner's (lent for each callback) or
/// one the script opened itself.
#[derive(Default)]
pub struct ConnSlot {
    primary: bool,
    own: Option<Box<Conn>>,
    /// The last result's rows; boxed, so lending them moves a pointer.
    /// Absent while lent, and until the first result.
    rows: Option<Box<RowBuf>>,
    next_row: usize,
    bulk_prefix: String,
    bulk: String,
}

/// A prepared statement of the script.
pub struct StmtSlot {
    conn: usize,
    id: StmtId,
    sql: String,
    rows: bool,
    trx: bool,
    /// sysbench bind types, in `bind_param` order.
    types: Vec<i64>,
}

impl StmtSlot {
    /// Whether the statement belongs to the runner's connection.
    fn conn_primary(&self, ctx: &Ctx) -> bool {
        ctx.conns.borrow().get(self.conn).map(|c| c.primary).unwrap_or(false)
    }
}

/// A bound value as read from the script.
#[derive(Clone, Debug, PartialEq)]
pub enum PVal {
    Null,
    Int(i64),
    Text(String),
}

fn int_type(ty: i64) -> bool {
    (1..=4).contains(&ty)
}

pub fn install(lua: &Lua, sb: &Table, ctx: &Rc<Ctx>) -> mlua::Result<Function> {
    let sql = lua.create_table()?;
    let ty = lua.create_table()?;
    for (n, v) in TYPES {
        ty.set(n, v)?;
    }
    sql.set("type", ty)?;
    let err = lua.create_table()?;
    err.set("NONE", 0)?;
    err.set("IGNORABLE", 1)?;
    err.set("FATAL", 2)?;
    sql.set("error", err)?;
    sb.set("sql", sql)?;

    let fb = lua.create_table()?;
    // SAFETY: `exec` follows the Lua C API's rules (below).
    fb.set("exec", unsafe { lua.create_c_function(exec)? })?;
    let c = ctx.clone();
    fb.set(
        "exec_error",
        lua.create_function(move |_, ()| {
            // Empty when `fairbench_exec` found no running client: a call
            // made outside the callbacks.
            let m = std::mem::take(&mut *c.text.borrow_mut());
            Ok(if m.is_empty() { c.not_driven().unwrap_or_else(|| "the statement could not run".into()) } else { m })
        })?,
    )?;
    let c = ctx.clone();
    fb.set("query", lua.create_function(move |_, (h, q): (usize, mlua::String)| Ok(c.request_sql(Request::Query(h), &q.to_str()?)))?)?;
    let c = ctx.clone();
    fb.set("driver_name", lua.create_function(move |_, ()| Ok(driver::name(c.protocol())))?)?;
    let c = ctx.clone();
    fb.set(
        "driver_check",
        lua.create_function(move |_, name: Option<String>| {
            let protocol = c.protocol();
            Ok(name.filter(|n| !driver::accepts(n, protocol)).map(|n| format!("driver '{n}' does not match the target ({}): give --db-driver or --target for it", protocol.name())))
        })?,
    )?;
    let c = ctx.clone();
    fb.set("connect", lua.create_function(move |_, ()| Ok(c.request(Request::Connect)))?)?;
    let c = ctx.clone();
    fb.set("prepare", lua.create_function(move |_, (h, q): (usize, mlua::String)| Ok(c.request_sql(Request::Prepare(h), &q.to_str()?)))?)?;
    let c = ctx.clone();
    fb.set(
        "bind_types",
        lua.create_function(move |_, (h, types): (usize, mlua::Variadic<i64>)| {
            if let Some(s) = c.stmts.borrow_mut().get_mut(h) {
                s.types.clear();
                s.types.extend(types.iter().copied());
            }
            Ok(())
        })?,
    )?;
    let c = ctx.clone();
    fb.set("fetch_row", lua.create_function(move |lua, h: usize| c.fetch_row(lua, h))?)?;
    let c = ctx.clone();
    fb.set(
        "free",
        lua.create_function(move |_, h: usize| {
            if let Some(s) = c.conns.borrow_mut().get_mut(h) {
                if let Some(r) = &mut s.rows {
                    r.clear();
                }
                s.next_row = 0;
            }
            Ok(())
        })?,
    )?;
    let c = ctx.clone();
    fb.set(
        "bulk_init",
        lua.create_function(move |_, (h, prefix): (usize, String)| {
            if let Some(s) = c.conns.borrow_mut().get_mut(h) {
                s.bulk_prefix = prefix;
                s.bulk.clear();
            }
            Ok(())
        })?,
    )?;
    let c = ctx.clone();
    fb.set("bulk_next", lua.create_function(move |_, (h, values): (usize, mlua::String)| Ok(c.bulk_next(h, &values.to_str()?)))?)?;
    let c = ctx.clone();
    fb.set(
        "bulk_done",
        lua.create_function(move |_, h: usize| {
            let sql = c.conns.borrow_mut().get_mut(h).map(|s| std::mem::take(&mut s.bulk)).unwrap_or_default();
            if sql.is_empty() {
                return Ok(false);
            }
            c.queue_sql(Request::Query(h), &sql);
            Ok(true)
        })?,
    )?;
    let c = ctx.clone();
    fb.set(
        "disconnect",
        lua.create_function(move |_, h: usize| {
            // The runner closes its own connection when the client ends.
            let queued = c.driving.get() && c.conns.borrow().get(h).is_some_and(|s| s.own.is_some());
            if queued {
                c.queue(Request::Disconnect(h));
            }
            Ok(queued)
        })?,
    )?;
    let c = ctx.clone();
    fb.set("reconnect", lua.create_function(move |_, h: usize| Ok(c.request(Request::Reconnect(h))))?)?;
    let worker: Function = lua.load(include_str!("sql.lua")).set_name("=sysbench.sql").call(fb)?;
    Ok(worker)
}

/// `fb.exec(statement, values...)`: reads the bound values off the stack
/// into the client's parameter slots, then runs the statement in place
/// (a blocking connection; returns true and the result's shape) or queues
/// it (returns nothing). Or returns an error message: the Lua side raises
/// it, as raising here would unwind through Rust frames. The general path:
/// numbers and strings take `fairbench_exec` (see [`exec_bound`]).
unsafe extern "C-unwind" fn exec(l: *mut lua::lua_State) -> c_int {
    let n = lua::lua_gettop(l);
    let h = lua::lua_tointeger(l, 1) as usize;
    let msg = ffi::with_ctx(|ctx| {
        {
            let stmts = ctx.stmts.borrow();
            let types = stmts.get(h).map(|s| &s.types[..]).unwrap_or_default();
            let mut params = ctx.params.borrow_mut();
            params.truncate(n.max(1) as usize - 1);
            for i in 2..=n {
                let k = (i - 2) as usize;
                read_value(l, i, types.get(k).copied().unwrap_or(0), slot_at(&mut params, k));
            }
        }
        run_or_queue(ctx, h)
    });
    match msg {
        Some(Some(Answer::Raise(m))) => {
            lua::lua_pushlstring(l, m.as_ptr() as *const _, m.len());
            1
        }
        Some(Some(Answer::Done((a, b)))) => {
            lua::lua_pushboolean(l, 1);
            push_opt(l, a);
            push_opt(l, b);
            3
        }
        _ => 0,
    }
}

/// Statement `h` with the values in `Ctx::params`: run in place when the
/// client's connection never suspends, else queued for [`drive`] (`None`).
fn run_or_queue(ctx: &Ctx, h: usize) -> Option<Answer> {
    if let Some(e) = ctx.not_driven() {
        return Some(Answer::Raise(e));
    }
    let Some(primary) = ctx.stmts.borrow().get(h).map(|st| st.conn_primary(ctx)) else { return Some(Answer::Raise("no such statement".to_string())) };
    let conn = ctx.in_place.get();
    if conn.is_null() || !primary {
        ctx.queue(Request::Exec(h));
        return None;
    }
    // SAFETY: `drive` set the pointer from the connection it holds for
    // this callback and does not touch it while the script runs.
    match run_in_place(exec_stmt(ctx, h, unsafe { conn.as_mut() })) {
        Some(Ok(Ok(v))) => Some(Answer::Done(v)),
        Some(Ok(Err(e))) => {
            ctx.queue(Request::Failed(h, e));
            None
        }
        Some(Err(m)) => Some(Answer::Raise(m)),
        None => Some(Answer::Raise("internal error: a blocking connection suspended".into())),
    }
}

/// Value `k` of statement `h`, bound through `fairbench_bind_*` (sql.lua's
/// `execute` for numbers and strings): its slot, given the bind type.
pub fn bind_slot(ctx: &Ctx, h: usize, k: usize, f: impl FnOnce(i64, &mut PVal)) {
    let ty = ctx.stmts.borrow().get(h).and_then(|s| s.types.get(k).copied()).unwrap_or(0);
    f(ty, slot_at(&mut ctx.params.borrow_mut(), k));
}

/// Parameter slot `k`, the list grown with NULLs to reach it.
fn slot_at(params: &mut Vec<PVal>, k: usize) -> &mut PVal {
    if params.len() <= k {
        params.resize(k + 1, PVal::Null);
    }
    &mut params[k]
}

/// `fairbench_exec(h, n)`: statement `h` with the `n` values bound before
/// it. 2: it ran and returned rows (`fairbench_result` has their shape);
/// 1: it ran; 0: it is queued (the script yields for it); -1: an error the
/// script raises (`fb.exec_error`).
///
/// An FFI call, unlike a Lua C function, keeps LuaJIT's trace going
/// through the statement: the whole event can run as compiled code.
pub fn exec_bound(ctx: &Ctx, h: usize, n: usize) -> c_int {
    ctx.params.borrow_mut().truncate(n);
    match run_or_queue(ctx, h) {
        None => 0,
        Some(Answer::Done((Some(rows), Some(cols)))) => {
            ctx.shape.set((rows, cols));
            2
        }
        Some(Answer::Done(_)) => 1,
        Some(Answer::Raise(m)) => {
            *ctx.text.borrow_mut() = m;
            -1
        }
    }
}

/// What `exec` answers the script when it did not queue a request.
enum Answer {
    /// The statement ran in place: its two result values.
    Done((Option<i64>, Option<i64>)),
    /// An error the script raises.
    Raise(String),
}

/// Polls a call on a blocking connection to its end: it never suspends
/// (see [`Conn::blocks`]), so one poll does. `None` if it did suspend,
/// which would be a bug.
fn run_in_place<F: std::future::Future>(f: F) -> Option<F::Output> {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => Some(v),
        std::task::Poll::Pending => None,
    }
}

/// Value `i` of the stack as a parameter of sysbench type `ty`, reusing the
/// slot's text buffer.
unsafe fn read_value(l: *mut lua::lua_State, i: c_int, ty: i64, slot: &mut PVal) {
    let int_ok = int_type(ty) || ty == 0;
    match lua::lua_type(l, i) {
        lua::LUA_TNIL => *slot = PVal::Null,
        lua::LUA_TBOOLEAN => *slot = PVal::Int(i64::from(lua::lua_toboolean(l, i) != 0)),
        lua::LUA_TNUMBER => num_value(lua::lua_tonumber(l, i), ty, slot),
        lua::LUA_TSTRING => {
            let mut len = 0usize;
            let p = lua::lua_tolstring(l, i, &mut len);
            str_value(std::slice::from_raw_parts(p as *const u8, len), ty, slot)
        }
        _ => {
            // Anything else (a cdata number, a table) as tostring() shows it.
            lua::lua_getglobal(l, c"tostring".as_ptr());
            lua::lua_pushvalue(l, i);
            lua::lua_call(l, 1, 1);
            let mut len = 0usize;
            let p = lua::lua_tolstring(l, -1, &mut len);
            let s = if p.is_null() { String::new() } else { String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned() };
            lua::lua_settop(l, -2);
            let s = s.strip_suffix("ULL").or_else(|| s.strip_suffix("LL")).unwrap_or(&s).to_string();
            match s.parse::<i64>() {
                Ok(v) if int_ok => *slot = PVal::Int(v),
                _ => set_text(slot, &mut |t| t.push_str(&s)),
            }
        }
    }
}

/// `slot` as text, its buffer reused.
fn set_text(slot: &mut PVal, f: &mut dyn FnMut(&mut String)) {
    if !matches!(slot, PVal::Text(_)) {
        *slot = PVal::Text(String::new());
    }
    if let PVal::Text(t) = slot {
        t.clear();
        f(t);
    }
}

/// A Lua number as a parameter of sysbench type `ty`: an integer for the
/// integer types (and no type), else its text.
pub fn num_value(v: f64, ty: i64, slot: &mut PVal) {
    use std::fmt::Write;
    if v.fract() == 0.0 && v.abs() < 9.2e18 {
        if int_type(ty) || ty == 0 {
            *slot = PVal::Int(v as i64);
        } else {
            set_text(slot, &mut |t| {
                let _ = write!(t, "{}", v as i64);
            });
        }
    } else {
        set_text(slot, &mut |t| {
            let _ = write!(t, "{v}");
        });
    }
}

/// A Lua string as a parameter of sysbench type `ty`: an integer for the
/// integer types when it reads as one, else the text.
pub fn str_value(b: &[u8], ty: i64, slot: &mut PVal) {
    let s = String::from_utf8_lossy(b);
    match s.trim().parse::<i64>() {
        Ok(v) if int_type(ty) => *slot = PVal::Int(v),
        _ => set_text(slot, &mut |t| t.push_str(&s)),
    }
}

/// Whether a statement returns a result set (a read, in sysbench's counts).
fn returns_rows(sql: &str) -> bool {
    let s = sql.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
    let word: String = s.chars().take_while(|c| c.is_ascii_alphabetic()).collect::<String>().to_ascii_uppercase();
    matches!(word.as_str(), "SELECT" | "SHOW" | "WITH" | "VALUES" | "EXPLAIN" | "DESCRIBE" | "DESC" | "TABLE" | "PRAGMA" | "CHECKSUM")
}

fn is_trx(sql: &str) -> bool {
    let w: String = sql.trim_start().chars().take_while(|c| c.is_ascii_alphabetic()).collect::<String>().to_ascii_uppercase();
    matches!(w.as_str(), "BEGIN" | "COMMIT" | "ROLLBACK" | "START")
}

impl Ctx {
    fn protocol(&self) -> Protocol {
        self.shared.cfg.target.protocol
    }

    /// A request can only be made from a callback that [`drive`] runs.
    fn not_driven(&self) -> Option<String> {
        (!self.driving.get()).then(|| "SQL calls are made from thread_init, event, thread_done, the hooks and commands, not here".to_string())
    }

    fn queue(&self, r: Request) {
        self.pending.replace(Some(r));
    }

    /// Queues `r` when a callback runs; otherwise the error the script
    /// raises.
    fn request(&self, r: Request) -> Option<String> {
        let e = self.not_driven();
        if e.is_none() {
            self.queue(r);
        }
        e
    }

    /// [`Ctx::request`] for the script's SQL text (a query or a statement
    /// to prepare), adapted to the target's dialect.
    fn request_sql(&self, r: Request, sql: &str) -> Option<String> {
        let e = self.not_driven();
        if e.is_none() {
            self.queue_sql(r, &self.shared.cfg.engine().dialect().adapt_generated_keys(sql));
        }
        e
    }

    /// Queues `r` with `sql` as its text (a query or a statement to prepare).
    fn queue_sql(&self, r: Request, sql: &str) {
        let mut t = self.text.borrow_mut();
        t.clear();
        t.push_str(sql);
        drop(t);
        self.queue(r);
    }

    fn bulk_next(&self, h: usize, values: &str) -> bool {
        let mut conns = self.conns.borrow_mut();
        let Some(s) = conns.get_mut(h) else { return false };
        let flush = (!s.bulk.is_empty() && s.bulk.len() + values.len() + 1 > BULK_BYTES).then(|| std::mem::take(&mut s.bulk));
        if s.bulk.is_empty() {
            s.bulk.push_str(&s.bulk_prefix);
            s.bulk.push(' ');
        } else {
            s.bulk.push(',');
        }
        s.bulk.push_str(values);
        drop(conns);
        match flush {
            Some(sql) => {
                self.queue_sql(Request::Query(h), &sql);
                true
            }
            None => false,
        }
    }

    fn fetch_row(&self, lua: &Lua, h: usize) -> mlua::Result<Value> {
        let mut conns = self.conns.borrow_mut();
        let Some(s) = conns.get_mut(h) else { return Ok(Value::Nil) };
        let i = s.next_row;
        let Some(row) = s.rows.as_ref().and_then(|r| r.row(i)) else { return Ok(Value::Nil) };
        s.next_row = i + 1;
        let row = row.map_err(|e| mlua::Error::RuntimeError(e.message))?;
        let t = lua.create_table_with_capacity(row.len(), 0)?;
        for (k, v) in row.iter().enumerate() {
            if let Some(v) = v {
                t.raw_set(k + 1, v.as_str())?;
            }
        }
        Ok(Value::Table(t))
    }

    fn count(&self, c: Class, trx: bool) {
        self.count_kind(match c {
            Class::Read => 0,
            Class::Write => 1,
            Class::Other => 2,
        });
        if trx {
            self.count_kind(3);
        }
    }

    /// An SQL error as the script sees it: RESTART_EVENT when the error is
    /// one to retry (the target's ignore list, a lost connection, or the
    /// script's `sql_error_ignorable` hook says so), else a fatal error.
    fn fail(&self, lua: &Lua, e: DbError, sql: &str) -> String {
        let desc = match errdesc(lua, &e, sql) {
            Ok(d) => d,
            Err(x) => return error_line(&x),
        };
        let mut kind = e.kind;
        if matches!(kind, ErrKind::Fatal) {
            let hook = lua.globals().get::<Table>("sysbench").and_then(|s| s.get::<Table>("hooks")).and_then(|h| h.get::<Function>("sql_error_ignorable"));
            if let Ok(f) = hook {
                if f.call::<bool>(desc.clone()).unwrap_or(false) {
                    kind = ErrKind::Retryable;
                }
            }
        }
        match kind {
            ErrKind::Retryable | ErrKind::ConnectionLost => {
                let msg = format!("ignored SQL error {}: {}", e.code, e.message);
                self.set_sql_error(DbError { kind, ..e }, desc);
                msg
            }
            _ => format!("SQL error {}: {} (query: {})", e.code, e.message, crate::error::one_line(sql)),
        }
    }
}

fn errdesc(lua: &Lua, e: &DbError, sql: &str) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("errcode", 1)?;
    t.set("sql_errno", e.code.parse::<i64>().unwrap_or(0))?;
    t.set("sql_state", e.code.as_str())?;
    t.set("sql_errmsg", e.message.as_str())?;
    t.set("query", sql)?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_statements_that_return_rows() {
        assert!(returns_rows("  SELECT c FROM t"));
        assert!(returns_rows("(select 1)"));
        assert!(!returns_rows("UPDATE t SET k=k+1"));
        assert!(is_trx("begin") && is_trx("COMMIT") && !is_trx("SELECT 1"));
    }
}
