//! Ctrl-C and SIGTERM: the first asks the command to stop and save what it
//! measured, the second (or the first, for commands with nothing to save)
//! ends the process, and a watchdog ends it [`STOP_LIMIT`] after the first
//! if the command has not ended by then.
//!
//! Nothing here wakes on a timer. The handler writes a byte to a pipe; one
//! thread sleeps in read(2) on it and, when the byte comes, wakes whatever
//! waits for the signal ([`interrupt_signal`], [`sleep_unless_interrupted`])
//! and starts the watchdog's count. A thread that polled a flag every few
//! milliseconds was a wake-up the scheduler had to place among the clients
//! and the server's threads; on a 2-core machine such stray wake-ups split
//! client/server pairs across the cores (measured: more rescheduling
//! interrupts per query and a slower run than sysbench's).

use crate::model::{interrupted, INTERRUPTED};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, Once};
use std::time::{Duration, Instant};

/// Set for commands with nothing to save: the first signal ends them.
static EXIT_AT_ONCE: AtomicBool = AtomicBool::new(false);

/// When the first signal came, in nanoseconds of the monotonic clock: the
/// watchdog counts from it, not from when its thread woke.
static SIGNALLED_AT_NS: AtomicU64 = AtomicU64::new(0);

/// The pipe's write end the handler writes to; -1 before [`install`].
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);

/// Async waiters for the signal.
static WAKE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Threads sleeping until the signal (with the lock the condvar needs).
static SLEEPERS: (Mutex<()>, Condvar) = (Mutex::new(()), Condvar::new());

/// The longest a command may take to stop after Ctrl-C / SIGTERM before the
/// process ends without it: within the 2 s promised, with room for the
/// process's own exit on a busy machine (at 1.9 s a loaded 2-core machine
/// saw a prepare end 2.009 s after the signal).
pub const STOP_LIMIT: Duration = Duration::from_millis(1800);

/// The monotonic clock in nanoseconds (clock_gettime is async-signal-safe).
fn monotonic_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

extern "C" fn on_signal(_: libc::c_int) {
    // Before the flag, so that the watchdog finds the time once it sees the flag.
    let _ = SIGNALLED_AT_NS.compare_exchange(0, monotonic_ns(), Ordering::SeqCst, Ordering::SeqCst);
    if INTERRUPTED.swap(true, Ordering::SeqCst) || EXIT_AT_ONCE.load(Ordering::SeqCst) {
        // Second signal: the user means it.
        // SAFETY: _exit is async-signal-safe and ends the process at once.
        unsafe { libc::_exit(crate::error::exit::INTERRUPTED) };
    }
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; a full pipe (a signal
        // already waiting to be read) loses nothing.
        let _ = unsafe { libc::write(fd, [1u8].as_ptr() as *const libc::c_void, 1) };
    }
}

/// Installs the handlers and starts the thread that wakes the waiters and
/// keeps the watchdog. `at_once`: the first signal ends the process
/// (commands with nothing in flight worth saving); otherwise the first asks
/// to stop, the second ends it. Called again, it only changes `at_once`.
pub fn install(at_once: bool) {
    EXIT_AT_ONCE.store(at_once, Ordering::SeqCst);
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 fills the two descriptors this process now owns.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0 {
            // The handler must never block: the write end does not wait.
            // SAFETY: fcntl on a descriptor just made.
            unsafe { libc::fcntl(fds[1], libc::F_SETFL, libc::O_NONBLOCK) };
            WAKE_FD.store(fds[1], Ordering::SeqCst);
            let read = fds[0];
            // Without the thread the flag still stops the commands; only
            // the waits below would go on to their ends.
            let _ = std::thread::Builder::new().name("fb-signal".into()).spawn(move || watch(read));
        }
        // SAFETY: the handler touches atomics and write(2) only (async-signal-safe).
        unsafe {
            libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
            libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        }
    });
}

/// The signal thread: asleep in read(2) until the first signal, then wakes
/// every waiter, and ends the process [`STOP_LIMIT`] after the signal if
/// the command is still going: a call that cannot be abandoned from inside
/// (an in-process SQLite statement, a server that does not answer) must
/// not keep the user waiting. Committed work stays; the rest is rolled
/// back by the engines, as after a lost connection.
fn watch(read: i32) {
    let mut b = [0u8; 1];
    // SAFETY: reads into a byte we own; EINTR just reads again.
    while unsafe { libc::read(read, b.as_mut_ptr() as *mut libc::c_void, 1) } != 1 {
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
    wake_waiters();
    // From the signal itself, not from when this thread woke.
    let mut at = SIGNALLED_AT_NS.load(Ordering::SeqCst);
    if at == 0 {
        at = monotonic_ns();
    }
    let left = (at + STOP_LIMIT.as_nanos() as u64).saturating_sub(monotonic_ns());
    std::thread::sleep(Duration::from_nanos(left));
    eprintln!("fairbench: interrupted; stopped without waiting for the statements in flight (what they did not commit is rolled back)");
    // SAFETY: _exit ends the process at once, which is the intent.
    unsafe { libc::_exit(crate::error::exit::INTERRUPTED) };
}

fn wake_waiters() {
    WAKE.notify_waiters();
    let _g = SLEEPERS.0.lock().unwrap_or_else(|e| e.into_inner());
    SLEEPERS.1.notify_all();
}

/// Resolves once Ctrl-C / SIGTERM arrived: raced against work that may
/// block on a server, so the command ends without waiting for it.
pub async fn interrupt_signal() {
    loop {
        let woken = WAKE.notified();
        tokio::pin!(woken);
        // Registered before the flag is read: a signal in between still wakes it.
        woken.as_mut().enable();
        if interrupted() {
            return;
        }
        woken.await;
    }
}

/// `f`, or `Error::Interrupted` as soon as Ctrl-C / SIGTERM arrives (what
/// `f` asked a server to do may go on there without it).
pub async fn unless_interrupted<T>(f: impl std::future::Future<Output = crate::error::Result<T>>) -> crate::error::Result<T> {
    tokio::select! {
        r = f => r,
        () = interrupt_signal() => Err(crate::error::Error::Interrupted),
    }
}

/// Blocks the calling thread until Ctrl-C / SIGTERM arrives (for a thread
/// whose only work is to pass the signal on).
pub fn wait_for_interrupt() {
    let mut g = SLEEPERS.0.lock().unwrap_or_else(|e| e.into_inner());
    while !interrupted() {
        g = SLEEPERS.1.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

/// Sleeps for `d`, or less when Ctrl-C / SIGTERM arrives.
pub fn sleep_unless_interrupted(d: Duration) {
    let end = Instant::now() + d;
    let mut g = SLEEPERS.0.lock().unwrap_or_else(|e| e.into_inner());
    while !interrupted() {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        g = SLEEPERS.1.wait_timeout(g, left).unwrap_or_else(|e| e.into_inner()).0;
    }
}
