//! Driving a client's coroutine: a callback runs until it yields a
//! [`Request`], which is performed on the connection before it resumes.

use super::*;

/// What a callback returned, as the runner and commands read it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ret {
    Nil,
    False,
    /// Anything else (a true value ends a runner thread, as in sysbench).
    Other,
}

/// How a callback ended.
pub enum Outcome {
    Returned(Ret),
    /// It raised this error (one line).
    Raised(String),
}

/// Which callback to run: the script's global `event` (the hot path, begun
/// without touching mlua) or any other function.
pub enum Callback<'a> {
    Event(i64),
    Call(&'a Function, Value),
}

/// Where the coroutine stopped.
enum Stop {
    /// It yielded for the request in `Ctx::pending`.
    Request,
    Done(Outcome),
}

/// Runs a callback in the client's coroutine to its end, performing every
/// request it yields for: on `primary` (the runner's connection, lent for
/// this call) or on a connection the script opened.
///
/// The coroutine is resumed through the Lua C API directly: mlua's
/// `Thread::resume` converts and moves every value through the main
/// state, which costs more than the rest of a point select's Lua path.
pub async fn drive(lua: &Lua, ctx: &Rc<Ctx>, primary: Option<&mut Conn>, cb: Callback<'_>) -> Outcome {
    // Both this loop and `exec` (in place) use the connection through this
    // pointer, never at the same time: `exec` runs while the script does.
    let primary: *mut Conn = primary.map(|c| c as *mut Conn).unwrap_or(std::ptr::null_mut());
    // SAFETY: a valid pointer for this call, or null.
    let in_place = if unsafe { primary.as_ref() }.map(Conn::blocks).unwrap_or(false) { primary } else { std::ptr::null_mut() };
    let was_in_place = ctx.in_place.replace(in_place);
    let was = ctx.driving.replace(true);
    let co = ctx.co_state();
    let mut stop = {
        let _in = ffi::enter(ctx);
        // SAFETY: `co` is the client's coroutine, alive in `ctx`, suspended
        // between callbacks with an empty stack; this thread owns its state.
        unsafe {
            match cb {
                Callback::Event(tid) => {
                    lua::lua_pushnil(co);
                    lua::lua_pushinteger(co, tid as lua::lua_Integer);
                    resume(lua, co, 2)
                }
                Callback::Call(f, arg) => match lua.exec_raw::<()>((f.clone(), arg), |state| lua::lua_xmove(state, co, 2)) {
                    Ok(()) => resume(lua, co, 2),
                    Err(e) => Stop::Done(Outcome::Raised(error_line(&e))),
                },
            }
        }
    };
    let out = loop {
        match stop {
            Stop::Done(o) => break o,
            Stop::Request => {}
        }
        let Some(req) = ctx.pending.take() else {
            break Outcome::Raised("the script yielded from a callback; fairbench's callbacks cannot yield".into());
        };
        // SAFETY: as above; the script is suspended.
        let answer = perform(lua, ctx, req, unsafe { primary.as_mut() }).await;
        let _in = ffi::enter(ctx);
        // SAFETY: as above; the coroutine yielded and its stack was emptied.
        stop = unsafe {
            match answer {
                Ok((a, b)) => {
                    lua::lua_pushboolean(co, 1);
                    push_opt(co, a);
                    push_opt(co, b);
                    resume(lua, co, 3)
                }
                Err(msg) => {
                    lua::lua_pushboolean(co, 0);
                    lua::lua_pushlstring(co, msg.as_ptr() as *const _, msg.len());
                    resume(lua, co, 2)
                }
            }
        };
    };
    ctx.driving.set(was);
    ctx.in_place.set(was_in_place);
    if ctx.co_dead.get() {
        ctx.renew_co(lua);
    }
    out
}

pub(super) unsafe fn push_opt(co: *mut lua::lua_State, v: Option<i64>) {
    match v {
        Some(i) => lua::lua_pushinteger(co, i as lua::lua_Integer),
        None => lua::lua_pushnil(co),
    }
}

/// Resumes `co` with the `nargs` values on its stack; reads where it
/// stopped and empties its stack.
unsafe fn resume(lua: &Lua, co: *mut lua::lua_State, nargs: c_int) -> Stop {
    let mut nres = 0;
    let status = lua::lua_resume(co, std::ptr::null_mut(), nargs, &mut nres);
    let stop = if status == lua::LUA_YIELD {
        match lua::lua_tointeger(co, 1) {
            1 => Stop::Request,
            0 => Stop::Done(Outcome::Returned(match lua::lua_type(co, 2) {
                lua::LUA_TNIL | lua::LUA_TNONE => Ret::Nil,
                lua::LUA_TBOOLEAN if lua::lua_toboolean(co, 2) == 0 => Ret::False,
                _ => Ret::Other,
            })),
            _ => Stop::Done(Outcome::Raised(error_text(lua, co, 2))),
        }
    } else {
        // An error outside the callback's pcall (Ctrl-C between two
        // callbacks, out of memory): the coroutine is dead.
        let msg = if status == lua::LUA_OK { "the script's coroutine ended".to_string() } else { error_text(lua, co, -1) };
        super::ffi::with_ctx(|c| c.co_dead.set(true));
        Stop::Done(Outcome::Raised(msg))
    };
    lua::lua_settop(co, 0);
    stop
}

/// The error value at `idx` of `co` as one line.
unsafe fn error_text(lua: &Lua, co: *mut lua::lua_State, idx: c_int) -> String {
    if lua::lua_type(co, idx) == lua::LUA_TSTRING {
        let mut len = 0usize;
        let p = lua::lua_tolstring(co, idx, &mut len);
        let s = String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len));
        return s.lines().next().unwrap_or_default().trim().to_string();
    }
    // An error mlua raised (a callback's), or a table: mlua reads it.
    lua::lua_pushvalue(co, idx);
    match lua.exec_raw::<Value>((), |state| lua::lua_xmove(co, state, 1)) {
        Ok(v) => raised(&v),
        Err(e) => error_line(&e),
    }
}

/// The text of an error value a callback raised.
fn raised(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string_lossy().lines().next().unwrap_or_default().trim().to_string(),
        Value::Error(e) => error_line(e),
        Value::Nil => "error (nil)".into(),
        other => other.to_string().map(|s| s.lines().next().unwrap_or_default().to_string()).unwrap_or_else(|_| "error".into()),
    }
}

/// The answer to one request: two values for the script, or the error
/// message it raises.
async fn perform(lua: &Lua, ctx: &Ctx, req: Request, primary: Option<&mut Conn>) -> Result<(Option<i64>, Option<i64>), String> {
    crate::model::check_interrupt().map_err(|_| "interrupted".to_string())?;
    let nil = (None, None);
    match req {
        Request::Connect => {
            if ctx.runner_client && !ctx.primary_taken.get() {
                ctx.primary_taken.set(true);
                return Ok((Some(ctx.add_conn(ConnSlot { primary: true, ..Default::default() }) as i64), None));
            }
            let cfg = ctx.shared.cfg.clone();
            // Boxed, as the other rare requests: their futures (a TLS
            // handshake) would otherwise size every event's future, which
            // the runner moves once per event.
            let c = Box::pin(Conn::connect(cfg.clone(), Arc::new(Default::default()), ctx.tid)).await.map_err(|e| format!("connection to {} failed: {e}", cfg.target))?;
            Ok((Some(ctx.add_conn(ConnSlot { own: Some(Box::new(c)), ..Default::default() }) as i64), None))
        }
        Request::Prepare(h) => {
            let sql = ctx.text.borrow().clone();
            let mut lent = Lent::take(ctx, h)?;
            let (conn, _) = lent.parts(primary)?;
            let rows = returns_rows(&sql);
            let added = conn.add_statement(sql.clone(), rows);
            lent.give_back(ctx);
            let id = added.map_err(|e| ctx.fail(lua, e, &sql))?;
            let mut stmts = ctx.stmts.borrow_mut();
            stmts.push(StmtSlot { conn: h, id, trx: is_trx(&sql), sql, rows, types: Vec::new() });
            Ok((Some(stmts.len() as i64 - 1), None))
        }
        Request::Exec(n) => match exec_stmt(ctx, n, primary).await? {
            Ok(v) => Ok(v),
            Err(e) => {
                let sql = ctx.stmts.borrow()[n].sql.clone();
                Err(ctx.fail(lua, e, &sql))
            }
        },
        Request::Failed(n, e) => {
            let sql = ctx.stmts.borrow()[n].sql.clone();
            Err(ctx.fail(lua, e, &sql))
        }
        Request::Query(h) => {
            let sql = std::mem::take(&mut *ctx.text.borrow_mut());
            let rows = returns_rows(&sql);
            let mut lent = Lent::take(ctx, h)?;
            let r = match lent.parts(primary) {
                Ok((conn, buf)) if rows => Ok(conn.query_into(&sql, buf).await.map(|_| Class::Read)),
                Ok((conn, _)) => Ok(conn.query(&sql).await),
                Err(m) => Err(m),
            };
            let nrows = lent.give_back(ctx);
            let out = match r {
                Ok(Ok(class)) => {
                    ctx.count(class, !rows && is_trx(&sql));
                    Ok(result_values(rows, nrows))
                }
                Ok(Err(e)) => Err(ctx.fail(lua, e, &sql)),
                Err(m) => Err(m),
            };
            *ctx.text.borrow_mut() = sql;
            out
        }
        Request::Disconnect(h) => {
            let own = ctx.conns.borrow_mut().get_mut(h).and_then(|s| s.own.take());
            if let Some(c) = own {
                Box::pin(c.close()).await;
            }
            Ok(nil)
        }
        Request::Reconnect(h) => {
            let mut lent = Lent::take(ctx, h)?;
            let r = match lent.parts(primary) {
                Ok((conn, _)) => Box::pin(conn.reconnect()).await.map_err(|e| format!("reconnect failed: {e}")),
                Err(m) => Err(m),
            };
            lent.give_back(ctx);
            r?;
            ctx.count_kind(5);
            Ok(nil)
        }
    }
}

/// Runs statement `n` with the values in `Ctx::params`: its two result
/// values, the server's error (for the script's hooks), or a message the
/// script raises.
pub(super) async fn exec_stmt(ctx: &Ctx, n: usize, primary: Option<&mut Conn>) -> Result<Result<(Option<i64>, Option<i64>), DbError>, String> {
    crate::model::check_interrupt().map_err(|_| "interrupted".to_string())?;
    let (h, id, rows, trx) = {
        let stmts = ctx.stmts.borrow();
        let s = &stmts[n];
        (s.conn, s.id, s.rows, s.trx)
    };
    // Taken out for the call (and put back, buffers kept): the script
    // cannot run a hook on them meanwhile.
    let params = std::mem::take(&mut *ctx.params.borrow_mut());
    if params.contains(&PVal::Null) {
        *ctx.params.borrow_mut() = params;
        return Err("a bound parameter is NULL, which fairbench cannot bind: give it a value".into());
    }
    let mut lent = Lent::take(ctx, h)?;
    let r = {
        fn param(v: &PVal) -> Param<'_> {
            match v {
                PVal::Int(i) => Param::Int(*i),
                PVal::Text(t) => Param::Text(t),
                PVal::Null => Param::Int(0),
            }
        }
        // Up to 8 values (every OLTP statement) without an allocation.
        let few: [Param; 8];
        let many: Vec<Param>;
        let ps: &[Param] = if params.len() <= 8 {
            few = std::array::from_fn(|i| params.get(i).map(param).unwrap_or(Param::Int(0)));
            &few[..params.len()]
        } else {
            many = params.iter().map(param).collect();
            &many
        };
        match lent.parts(primary) {
            Ok((conn, buf)) if rows => Ok(conn.exec_into(id, ps, buf).await.map(|_| Class::Read)),
            Ok((conn, _)) => Ok(conn.exec(id, ps).await),
            Err(m) => Err(m),
        }
    };
    *ctx.params.borrow_mut() = params;
    let nrows = lent.give_back(ctx);
    Ok(r?.map(|class| {
        ctx.count(class, trx);
        result_values(rows, nrows)
    }))
}

/// (rows, columns) of a statement that returns rows, nothing otherwise.
fn result_values(rows: bool, shape: (usize, usize)) -> (Option<i64>, Option<i64>) {
    if rows {
        (Some(shape.0 as i64), Some(shape.1 as i64))
    } else {
        (None, None)
    }
}

/// A connection of the script taken out of the context for one request,
/// so that a hook running meanwhile (sql_error_ignorable) finds it busy
/// instead of borrowed twice.
struct Lent {
    h: usize,
    primary: bool,
    own: Option<Box<Conn>>,
    rows: Box<RowBuf>,
}

impl Lent {
    fn take(ctx: &Ctx, h: usize) -> Result<Lent, String> {
        let mut conns = ctx.conns.borrow_mut();
        let s = conns.get_mut(h).ok_or("the connection is closed")?;
        Ok(Lent { h, primary: s.primary, own: s.own.take(), rows: s.rows.take().unwrap_or_default() })
    }

    /// The connection and its result buffer; `primary` is the runner's
    /// connection when a callback runs.
    fn parts<'a>(&'a mut self, primary: Option<&'a mut Conn>) -> Result<(&'a mut Conn, &'a mut RowBuf), String> {
        let conn = if self.primary { primary.ok_or("this connection is usable in thread_init, event and thread_done only")? } else { self.own.as_deref_mut().ok_or("the connection is closed")? };
        Ok((conn, &mut self.rows))
    }

    /// Puts the connection back; returns its result's (rows, columns).
    fn give_back(self, ctx: &Ctx) -> (usize, usize) {
        let shape = (self.rows.len(), self.rows.ncols());
        if let Some(s) = ctx.conns.borrow_mut().get_mut(self.h) {
            if !self.primary {
                s.own = self.own;
            }
            s.rows = Some(self.rows);
            s.next_row = 0;
        }
        shape
    }
}
