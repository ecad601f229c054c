//! The C symbols scripts reach through LuaJIT's `ffi.C` (sysbench's names
//! and signatures): counters, the event loop's calls, and the `sb_rand_*`
//! generators `sysbench.rand` itself is built on. build.rs exports them
//! from the binary's dynamic symbol table, where `ffi.C` looks them up.
//!
//! They act on the client whose Lua code is running on this thread:
//! [`enter`] marks it while its coroutine runs, since the clients of one
//! worker thread take turns.

use super::api::Ctx;
use std::cell::Cell;
use std::os::raw::{c_char, c_int};
use std::rc::Rc;

thread_local! {
    static CURRENT: Cell<*const Ctx> = const { Cell::new(std::ptr::null()) };
}

/// Marks `ctx` as the running client until dropped.
pub struct Enter(*const Ctx);

pub fn enter(ctx: &Rc<Ctx>) -> Enter {
    Enter(CURRENT.with(|c| c.replace(Rc::as_ptr(ctx))))
}

impl Drop for Enter {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
    }
}

/// Runs `f` on the client whose Lua code runs on this thread, if any.
pub fn with_ctx<R>(f: impl FnOnce(&Ctx) -> R) -> Option<R> {
    let p = CURRENT.with(|c| c.get());
    // SAFETY: set only by `enter`, whose Rc outlives the guard; cleared on drop.
    (!p.is_null()).then(|| f(unsafe { &*p }))
}

/// Lua states of this process that an interrupt must reach (addresses).
static STATES: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());
static WATCHER: std::sync::Once = std::sync::Once::new();

/// A Lua state registered for interrupts; unregistered when dropped.
pub struct Watched(usize);

impl Drop for Watched {
    fn drop(&mut self) {
        let mut s = STATES.lock().unwrap_or_else(|e| e.into_inner());
        s.retain(|&l| l != self.0);
    }
}

/// Makes Ctrl-C / SIGTERM reach the Lua code of `co`'s state, even a loop that never
/// calls the API. An instruction hook set all along would send every
/// interpreted instruction through LuaJIT's hook dispatch (a C call each);
/// so the hook is set only once the signal came, from a watcher thread, as
/// LuaJIT allows for asynchronous interruption (its luajit.c does the same).
pub fn watch(co: &mlua::Thread) -> Watched {
    let l = co.state();
    WATCHER.call_once(|| {
        let _ = std::thread::Builder::new().name("fb-lua-stop".into()).spawn(|| {
            // Asleep until the signal: a thread polling the flag would be a
            // wake-up to place among the clients a hundred times a second.
            crate::signal::wait_for_interrupt();
            let s = STATES.lock().unwrap_or_else(|e| e.into_inner());
            for &l in s.iter() {
                // SAFETY: registered states are open (they unregister under this lock before closing).
                unsafe { stop_hook(l as *mut mlua::ffi::lua_State) };
            }
        });
    });
    let mut s = STATES.lock().unwrap_or_else(|e| e.into_inner());
    s.push(l as usize);
    if crate::model::interrupted() {
        // SAFETY: `l` is open: the caller just made it.
        unsafe { stop_hook(l) };
    }
    Watched(l as usize)
}

unsafe fn stop_hook(l: *mut mlua::ffi::lua_State) {
    mlua::ffi::lua_sethook(l, Some(raise_interrupted), mlua::ffi::LUA_MASKCOUNT, 1);
}

unsafe extern "C-unwind" fn raise_interrupted(l: *mut mlua::ffi::lua_State, _ar: *mut mlua::ffi::lua_Debug) {
    mlua::ffi::lua_pushstring(l, c"interrupted".as_ptr());
    mlua::ffi::lua_error(l);
}

// sysbench's counter numbers (sb_counter_type).
const SB_CNT_OTHER: c_int = 0;
const SB_CNT_READ: c_int = 1;
const SB_CNT_WRITE: c_int = 2;
const SB_CNT_TRX: c_int = 3;
const SB_CNT_ERROR: c_int = 4;
const SB_CNT_RECONNECT: c_int = 5;

#[no_mangle]
pub extern "C" fn sb_counter_inc(_thread_id: c_int, counter: c_int) {
    with_ctx(|c| match counter {
        SB_CNT_OTHER => c.count_kind(2),
        SB_CNT_READ => c.count_kind(0),
        SB_CNT_WRITE => c.count_kind(1),
        // Events are counted by the runner, one per event() call.
        SB_CNT_TRX => {}
        SB_CNT_ERROR => c.count_kind(4),
        SB_CNT_RECONNECT => c.count_kind(5),
        _ => {}
    });
}

/// The runner times each `event()` call itself; a script's own loop
/// (`thread_run`) is not used, so these mark nothing.
#[no_mangle]
pub extern "C" fn sb_event_start(_thread_id: c_int) {}

#[no_mangle]
pub extern "C" fn sb_event_stop(_thread_id: c_int) {}

/// Whether the run goes on: false once Ctrl-C / SIGTERM arrived. (The
/// runner ends the level at its time or event count between events, so a
/// script never needs to ask for that.)
#[no_mangle]
pub extern "C" fn sb_more_events(_thread_id: c_int) -> bool {
    !crate::model::interrupted()
}

fn draw(kind: Option<crate::rand::RandType>, a: u32, b: u32) -> u32 {
    let (lo, hi) = (a.min(b), a.max(b));
    with_ctx(|c| c.rand_in(kind, lo as u64, hi as u64) as u32).unwrap_or(lo)
}

#[no_mangle]
pub extern "C" fn sb_rand_default(a: u32, b: u32) -> u32 {
    draw(None, a, b)
}

#[no_mangle]
pub extern "C" fn sb_rand_uniform(a: u32, b: u32) -> u32 {
    draw(Some(crate::rand::RandType::Uniform), a, b)
}

#[no_mangle]
pub extern "C" fn sb_rand_gaussian(a: u32, b: u32) -> u32 {
    draw(Some(crate::rand::RandType::Gaussian), a, b)
}

#[no_mangle]
pub extern "C" fn sb_rand_special(a: u32, b: u32) -> u32 {
    draw(Some(crate::rand::RandType::Special), a, b)
}

#[no_mangle]
pub extern "C" fn sb_rand_pareto(a: u32, b: u32) -> u32 {
    draw(Some(crate::rand::RandType::Pareto), a, b)
}

#[no_mangle]
pub extern "C" fn sb_rand_zipfian(a: u32, b: u32) -> u32 {
    draw(Some(crate::rand::RandType::Zipfian), a, b)
}

#[no_mangle]
pub extern "C" fn sb_rand_unique() -> u32 {
    with_ctx(|c| c.unique()).unwrap_or(0)
}

#[no_mangle]
pub extern "C" fn sb_rand_uniform_uint64() -> u64 {
    with_ctx(|c| c.rng.borrow_mut().next_u64()).unwrap_or(0)
}

#[no_mangle]
pub extern "C" fn sb_rand_uniform_double() -> f64 {
    with_ctx(|c| c.rng.borrow_mut().uniform_double()).unwrap_or(0.0)
}

/// `fmt` (NUL-terminated) into `buf` (as many bytes, not terminated):
/// `#` a random digit, `@` a random letter, other bytes copied.
///
/// # Safety
/// `fmt` must be NUL-terminated and `buf` hold at least `strlen(fmt)` bytes,
/// as the script's `ffi.cdef` declaration promises.
#[no_mangle]
pub unsafe extern "C" fn sb_rand_str(fmt: *const c_char, buf: *mut c_char) {
    if fmt.is_null() || buf.is_null() {
        return;
    }
    let tmpl = std::ffi::CStr::from_ptr(fmt).to_bytes();
    let out = std::slice::from_raw_parts_mut(buf as *mut u8, tmpl.len());
    with_ctx(|c| c.fill(tmpl, out));
}

/// `buf` (at least `max` bytes) gets a random alphanumeric string of
/// `min..=max` bytes; returns its length.
///
/// # Safety
/// `buf` must hold at least `max` bytes.
#[no_mangle]
pub unsafe extern "C" fn sb_rand_varstr(buf: *mut c_char, min: u32, max: u32) -> u32 {
    if buf.is_null() || max == 0 {
        return 0;
    }
    let out = std::slice::from_raw_parts_mut(buf as *mut u8, max as usize);
    with_ctx(|c| c.varstr(min.min(max), max, out)).unwrap_or(0)
}

/// sql.lua's `Statement:execute`: value `k` (from 0) of statement `h`, a
/// Lua number.
#[no_mangle]
pub extern "C" fn fairbench_bind_num(h: c_int, k: c_int, v: f64) {
    with_ctx(|c| super::sql::bind_slot(c, h as usize, k as usize, |ty, slot| super::sql::num_value(v, ty, slot)));
}

/// sql.lua's `Statement:execute`: value `k` (from 0) of statement `h`, a
/// Lua string of `len` bytes.
///
/// # Safety
/// `s` must point to `len` readable bytes (a Lua string's, as LuaJIT passes
/// it for the call's duration).
#[no_mangle]
pub unsafe extern "C" fn fairbench_bind_str(h: c_int, k: c_int, s: *const c_char, len: usize) {
    let b = if s.is_null() { &[][..] } else { std::slice::from_raw_parts(s as *const u8, len) };
    with_ctx(|c| super::sql::bind_slot(c, h as usize, k as usize, |ty, slot| super::sql::str_value(b, ty, slot)));
}

/// sql.lua's `Statement:execute`: runs or queues statement `h` with its
/// `n` values bound (see [`super::sql::exec_bound`]).
#[no_mangle]
pub extern "C" fn fairbench_exec(h: c_int, n: c_int) -> c_int {
    with_ctx(|c| super::sql::exec_bound(c, h as usize, n.max(0) as usize)).unwrap_or(-1)
}

/// Rows (`which` 0) or columns (1) of the result `fairbench_exec` just
/// answered 2 for.
#[no_mangle]
pub extern "C" fn fairbench_result(which: c_int) -> f64 {
    with_ctx(|c| {
        let (rows, cols) = c.shape.get();
        (if which == 0 { rows } else { cols }) as f64
    })
    .unwrap_or(0.0)
}

/// Takes every symbol's address, so the linker keeps them all for the
/// dynamic table even though no Rust code calls them.
pub fn keep_symbols() {
    let all: [usize; 19] = [
        sb_counter_inc as *const () as usize,
        sb_event_start as *const () as usize,
        sb_event_stop as *const () as usize,
        sb_more_events as *const () as usize,
        sb_rand_default as *const () as usize,
        sb_rand_uniform as *const () as usize,
        sb_rand_gaussian as *const () as usize,
        sb_rand_special as *const () as usize,
        sb_rand_pareto as *const () as usize,
        sb_rand_zipfian as *const () as usize,
        sb_rand_unique as *const () as usize,
        sb_rand_uniform_uint64 as *const () as usize,
        sb_rand_uniform_double as *const () as usize,
        sb_rand_str as *const () as usize,
        sb_rand_varstr as *const () as usize,
        fairbench_bind_num as *const () as usize,
        fairbench_bind_str as *const () as usize,
        fairbench_exec as *const () as usize,
        fairbench_result as *const () as usize,
    ];
    std::hint::black_box(all);
}
