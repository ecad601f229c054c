//! `sysbench.sql`: drivers, connections, statements, bound parameters and
//! results over fairbench's connections. Calls that reach a server are
//! async functions: the script's coroutine waits while the worker thread
//! serves other clients.

use super::api::Ctx;
use super::driver;
use crate::db::{Class, Conn, DbError, Engine, ErrKind, Param};
use crate::workload::dialect::Dialect;
use mlua::{AnyUserData, Lua, Table, UserData, UserDataFields, UserDataMethods, UserDataRef, Value, Variadic};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

/// sysbench's driver for a multi-row INSERT buffer (BULK_PACKET_SIZE).
const BULK_BYTES: usize = 512 * 1024;

/// sysbench's bind types (`sysbench.sql.type`).
const TYPES: [(&str, i64); 13] =
    [("NONE", 0), ("TINYINT", 1), ("SMALLINT", 2), ("INT", 3), ("BIGINT", 4), ("FLOAT", 5), ("DOUBLE", 6), ("TIME", 7), ("DATE", 8), ("DATETIME", 9), ("TIMESTAMP", 10), ("CHAR", 11), ("VARCHAR", 12)];

pub fn install(lua: &Lua, sb: &Table, ctx: &Rc<Ctx>) -> mlua::Result<()> {
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
    let c = ctx.clone();
    sql.set(
        "driver",
        lua.create_function(move |_, name: Option<String>| {
            let engine = c.shared.cfg.target.engine;
            if let Some(n) = name {
                if !driver::accepts(&n, engine) {
                    return Err(mlua::Error::RuntimeError(format!("driver '{n}' does not match the target ({}): give --db-driver or --target for it", engine.name())));
                }
            }
            Ok(Driver { ctx: c.clone() })
        })?,
    )?;
    sb.set("sql", sql)?;
    Ok(())
}

pub struct Driver {
    ctx: Rc<Ctx>,
}

impl UserData for Driver {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("name", |_, this, ()| Ok(driver::name(this.ctx.shared.cfg.target.engine)));
        m.add_async_method("connect", |_, this: UserDataRef<Driver>, ()| async move {
            let ctx = this.ctx.clone();
            if ctx.runner_client && !ctx.primary_taken.get() {
                ctx.primary_taken.set(true);
                return Ok(Connection(Rc::new(ConnInner::new(ctx, true, None))));
            }
            let cfg = ctx.shared.cfg.clone();
            let c = Conn::connect(cfg.clone(), Arc::new(Default::default()), ctx.tid).await.map_err(|e| mlua::Error::RuntimeError(format!("connection to {} failed: {e}", cfg.target)))?;
            Ok(Connection(Rc::new(ConnInner::new(ctx, false, Some(Box::new(c))))))
        });
    }
}

#[derive(Default)]
struct Bulk {
    prefix: String,
    buf: String,
}

pub struct ConnInner {
    ctx: Rc<Ctx>,
    /// The runner's connection, lent for each callback.
    primary: bool,
    own: RefCell<Option<Box<Conn>>>,
    bulk: RefCell<Bulk>,
    /// The connection's one result set, as in sysbench, where a result
    /// stays readable until the connection's next statement: every query
    /// returns the same handle, so a statement costs the collector nothing.
    result: Rc<ResultSlot>,
    handle: RefCell<Option<AnyUserData>>,
}

impl ConnInner {
    fn new(ctx: Rc<Ctx>, primary: bool, own: Option<Box<Conn>>) -> ConnInner {
        ConnInner { ctx, primary, own: RefCell::new(own), bulk: RefCell::new(Bulk::default()), result: Rc::default(), handle: RefCell::new(None) }
    }

    /// Makes `rows` the connection's result and returns its handle.
    fn set_result(&self, lua: &Lua, rows: Rows) -> mlua::Result<AnyUserData> {
        self.result.rows.replace(rows);
        self.result.next.set(0);
        if let Some(h) = self.handle.borrow().as_ref() {
            return Ok(h.clone());
        }
        let h = lua.create_userdata(ResultSet { slot: self.result.clone() })?;
        self.handle.replace(Some(h.clone()));
        Ok(h)
    }

    /// The connection for one call. Scripts run one call at a time per
    /// state (each waits for its result), so no two calls hold it at once.
    fn conn(&self) -> mlua::Result<*mut Conn> {
        if self.primary {
            return self.ctx.primary().ok_or_else(|| mlua::Error::RuntimeError("this connection is usable in thread_init, event and thread_done only".into()));
        }
        match self.own.borrow_mut().as_mut() {
            Some(b) => Ok(&mut **b as *mut Conn),
            None => Err(mlua::Error::RuntimeError("the connection is closed".into())),
        }
    }

    fn engine(&self) -> Engine {
        self.ctx.shared.cfg.target.engine
    }

    fn count(&self, c: Class, trx: bool) {
        self.ctx.count(match c {
            Class::Read => 0,
            Class::Write => 1,
            Class::Other => 2,
        });
        if trx {
            self.ctx.count(3);
        }
    }

    /// An SQL error as the script sees it: RESTART_EVENT when the error is
    /// one to retry (the target's ignore list, a lost connection, or the
    /// script's `sql_error_ignorable` hook says so), else a fatal error.
    fn fail(&self, lua: &Lua, e: DbError, sql: &str) -> mlua::Error {
        let desc = match errdesc(lua, &e, sql) {
            Ok(d) => d,
            Err(x) => return x,
        };
        let mut kind = e.kind;
        if matches!(kind, ErrKind::Fatal) {
            let hook = lua.globals().get::<Table>("sysbench").and_then(|s| s.get::<Table>("hooks")).and_then(|h| h.get::<mlua::Function>("sql_error_ignorable"));
            if let Ok(f) = hook {
                if f.call::<bool>(desc.clone()).unwrap_or(false) {
                    kind = ErrKind::Retryable;
                }
            }
        }
        match kind {
            ErrKind::Retryable | ErrKind::ConnectionLost => {
                let msg = format!("ignored SQL error {}: {}", e.code, e.message);
                self.ctx.set_sql_error(DbError { kind, ..e }, desc);
                mlua::Error::RuntimeError(msg)
            }
            _ => mlua::Error::RuntimeError(format!("SQL error {}: {} (query: {})", e.code, e.message, crate::error::one_line(sql))),
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

pub struct Connection(Rc<ConnInner>);

/// Rows of a result, every value as text (NULL as nil).
type Rows = Vec<Vec<Option<String>>>;

async fn query(lua: &Lua, c: &ConnInner, sql: &str) -> mlua::Result<Option<Rows>> {
    crate::model::check_interrupt().map_err(|_| mlua::Error::RuntimeError("interrupted".into()))?;
    let p = c.conn()?;
    let sql = Dialect(c.engine()).adapt_generated_keys(sql);
    // SAFETY: see `ConnInner::conn`.
    let conn = unsafe { &mut *p };
    if returns_rows(&sql) {
        let rows = conn.query_strings(&sql).await.map_err(|e| c.fail(lua, e, &sql))?;
        c.count(Class::Read, false);
        Ok(Some(rows))
    } else {
        let class = conn.query(&sql).await.map_err(|e| c.fail(lua, e, &sql))?;
        c.count(class, is_trx(&sql));
        Ok(None)
    }
}

async fn flush_bulk(lua: &Lua, c: &ConnInner) -> mlua::Result<()> {
    let sql = std::mem::take(&mut c.bulk.borrow_mut().buf);
    if !sql.is_empty() {
        query(lua, c, &sql).await?;
    }
    Ok(())
}

impl UserData for Connection {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_async_method("query", |lua, this: UserDataRef<Connection>, sql: String| async move {
            match query(&lua, &this.0, &sql).await? {
                Some(rows) => this.0.set_result(&lua, rows).map(Some),
                None => Ok(None),
            }
        });
        m.add_async_method("query_row", |lua, this: UserDataRef<Connection>, sql: String| async move {
            let rows = query(&lua, &this.0, &sql).await?.unwrap_or_default();
            let mut out = Variadic::new();
            if let Some(r) = rows.into_iter().next() {
                for v in r {
                    out.push(match v {
                        Some(s) => Value::String(lua.create_string(&s)?),
                        None => Value::Nil,
                    });
                }
            }
            Ok(out)
        });
        m.add_method("prepare", |_, this, sql: String| {
            let c = &this.0;
            let p = c.conn()?;
            let sql = Dialect(c.engine()).adapt_generated_keys(&sql);
            // SAFETY: see `ConnInner::conn`; no await while it is held.
            let conn = unsafe { &mut *p };
            let rows = returns_rows(&sql);
            let trx = is_trx(&sql);
            let id = Arc::make_mut(&mut conn.set).add(sql.clone(), rows);
            Ok(Statement { conn: c.clone(), id, sql, rows, trx, params: RefCell::new(Vec::new()) })
        });
        m.add_method("bulk_insert_init", |_, this, prefix: String| {
            let mut b = this.0.bulk.borrow_mut();
            b.prefix = prefix;
            b.buf.clear();
            Ok(())
        });
        m.add_async_method("bulk_insert_next", |lua, this: UserDataRef<Connection>, values: String| async move {
            let full = {
                let b = this.0.bulk.borrow();
                !b.buf.is_empty() && b.buf.len() + values.len() + 1 > BULK_BYTES
            };
            if full {
                flush_bulk(&lua, &this.0).await?;
            }
            let mut b = this.0.bulk.borrow_mut();
            if b.buf.is_empty() {
                let p = b.prefix.clone();
                b.buf.push_str(&p);
                b.buf.push(' ');
            } else {
                b.buf.push(',');
            }
            b.buf.push_str(&values);
            Ok(())
        });
        m.add_async_method("bulk_insert_done", |lua, this: UserDataRef<Connection>, ()| async move { flush_bulk(&lua, &this.0).await });
        m.add_async_method("disconnect", |_, this: UserDataRef<Connection>, ()| async move {
            // The runner closes its own connection when the client ends.
            let own = this.0.own.borrow_mut().take();
            if let Some(c) = own {
                c.close().await;
            }
            Ok(())
        });
        m.add_async_method("reconnect", |_, this: UserDataRef<Connection>, ()| async move {
            let p = this.0.conn()?;
            // SAFETY: see `ConnInner::conn`.
            let conn = unsafe { &mut *p };
            conn.reconnect().await.map_err(|e| mlua::Error::RuntimeError(format!("reconnect failed: {e}")))?;
            this.0.ctx.count(5);
            Ok(())
        });
        // Multi-statement results are not produced: one result per query.
        m.add_method("more_results", |_, _, ()| Ok(false));
        m.add_method("next_result", |_, _, ()| Ok(Value::Nil));
    }
}

#[derive(Clone, Debug, PartialEq)]
enum PVal {
    Null,
    Int(i64),
    Text(String),
}

pub struct BindParam {
    ty: i64,
    val: Rc<RefCell<PVal>>,
    ctx: Rc<Ctx>,
}

fn int_type(ty: i64) -> bool {
    (1..=4).contains(&ty)
}

impl UserData for BindParam {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("set", |_, this, v: Value| {
            let pv = match v {
                Value::Nil => PVal::Null,
                Value::Boolean(b) => PVal::Int(i64::from(b)),
                Value::Integer(i) if int_type(this.ty) || this.ty == 0 => PVal::Int(i),
                Value::Integer(i) => PVal::Text(i.to_string()),
                Value::Number(n) if (int_type(this.ty) || this.ty == 0) && n.fract() == 0.0 && n.abs() < 9.2e18 => PVal::Int(n as i64),
                Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.2e18 => PVal::Text((n as i64).to_string()),
                Value::Number(n) => PVal::Text(n.to_string()),
                Value::String(s) => {
                    let s = s.to_str()?.to_string();
                    match s.trim().parse::<i64>() {
                        Ok(i) if int_type(this.ty) => PVal::Int(i),
                        _ => PVal::Text(s),
                    }
                }
                other => PVal::Text(other.to_string()?),
            };
            *this.val.borrow_mut() = pv;
            Ok(())
        });
        m.add_method("set_rand_str", |_, this, fmt: mlua::String| {
            let fmt = fmt.as_bytes();
            // The parameter's previous text is the buffer: oltp's writes set
            // one per statement.
            let mut val = this.val.borrow_mut();
            let mut out = match std::mem::replace(&mut *val, PVal::Null) {
                PVal::Text(t) => t.into_bytes(),
                _ => Vec::new(),
            };
            out.clear();
            out.resize(fmt.len(), 0);
            this.ctx.fill(&fmt, &mut out);
            *val = PVal::Text(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()));
            Ok(())
        });
    }
}

pub struct Statement {
    conn: Rc<ConnInner>,
    id: crate::db::StmtId,
    sql: String,
    rows: bool,
    trx: bool,
    params: RefCell<Vec<Rc<RefCell<PVal>>>>,
}

impl UserData for Statement {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("bind_create", |_, this, (ty, _max_len): (i64, Option<i64>)| Ok(BindParam { ty, val: Rc::new(RefCell::new(PVal::Null)), ctx: this.conn.ctx.clone() }));
        m.add_method("bind_param", |_, this, ps: Variadic<AnyUserData>| {
            let mut v = Vec::with_capacity(ps.len());
            for p in ps.iter() {
                v.push(p.borrow::<BindParam>()?.val.clone());
            }
            *this.params.borrow_mut() = v;
            Ok(())
        });
        m.add_async_method("execute", |lua, this: UserDataRef<Statement>, ()| async move { execute(&lua, &this).await });
        // The statement stays prepared on its connection until it closes.
        m.add_method("close", |_, _, ()| Ok(()));
        m.add_method("next_result", |_, _, ()| Ok(Value::Nil));
    }
}

// The script's coroutine is suspended for the whole call, so nothing else
// can borrow its parameters meanwhile.
#[allow(clippy::await_holding_refcell_ref)]
async fn execute(lua: &Lua, s: &Statement) -> mlua::Result<Option<AnyUserData>> {
    crate::model::check_interrupt().map_err(|_| mlua::Error::RuntimeError("interrupted".into()))?;
    let c = &s.conn;
    let p = c.conn()?;
    let params = s.params.borrow();
    let vals: Vec<std::cell::Ref<PVal>> = params.iter().map(|v| v.borrow()).collect();
    let mut ps = Vec::with_capacity(vals.len());
    for v in &vals {
        ps.push(match &**v {
            PVal::Int(i) => Param::Int(*i),
            PVal::Text(t) => Param::Text(t),
            PVal::Null => return Err(mlua::Error::RuntimeError("a bound parameter is NULL, which fairbench cannot bind: give it a value".into())),
        });
    }
    // SAFETY: see `ConnInner::conn`.
    let conn = unsafe { &mut *p };
    if s.rows {
        let rows = conn.exec_rows(s.id, &ps).await.map_err(|e| c.fail(lua, e, &s.sql))?;
        c.count(Class::Read, false);
        c.set_result(lua, rows).map(Some)
    } else {
        let class = conn.exec(s.id, &ps).await.map_err(|e| c.fail(lua, e, &s.sql))?;
        c.count(class, s.trx);
        Ok(None)
    }
}

/// A connection's last result and the next row `fetch_row` returns.
#[derive(Default)]
struct ResultSlot {
    rows: RefCell<Rows>,
    next: Cell<usize>,
}

pub struct ResultSet {
    slot: Rc<ResultSlot>,
}

impl UserData for ResultSet {
    fn add_fields<F: UserDataFields<Self>>(f: &mut F) {
        f.add_field_method_get("nrows", |_, this| Ok(this.slot.rows.borrow().len()));
        f.add_field_method_get("nfields", |_, this| Ok(this.slot.rows.borrow().first().map(Vec::len).unwrap_or(0)));
    }

    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("fetch_row", |lua, this, ()| {
            let slot = &this.slot;
            let i = slot.next.get();
            let rows = slot.rows.borrow();
            let Some(r) = rows.get(i) else { return Ok(Value::Nil) };
            slot.next.set(i + 1);
            let t = lua.create_table()?;
            for (k, v) in r.iter().enumerate() {
                if let Some(s) = v {
                    t.set(k + 1, s.as_str())?;
                }
            }
            Ok(Value::Table(t))
        });
        m.add_method("free", |_, this, ()| {
            this.slot.rows.borrow_mut().clear();
            Ok(())
        });
    }
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
