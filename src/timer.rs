//! Wake-ups at precise instants: the open loop's arrivals, the end of
//! `--time`, and the workloads' pauses of microseconds (sysbench's
//! `--sleep-after-query`, pgbench's `\sleep 100 us`).
//!
//! tokio's timer counts whole milliseconds and rounds every sleep up to the
//! next one: arrivals released by it were pushed up to 1 ms after their
//! intended time, and that delay was measured as latency (a SQLite point
//! select of 11 µs showed a median of 1.06 ms at `--rate 200`); the run's
//! end came as late, inside its elapsed time; a pause of 100 µs took a
//! whole millisecond. A timerfd armed for the
//! instant fires on the kernel's high-resolution timer and wakes the
//! runtime through its own epoll, so the thread never blocks and nothing
//! spins.

use std::cell::RefCell;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// One timerfd, or tokio's timer where none can be had.
pub struct PreciseTimer {
    fd: Option<AsyncFd<OwnedFd>>,
}

impl Default for PreciseTimer {
    fn default() -> PreciseTimer {
        PreciseTimer::new()
    }
}

impl PreciseTimer {
    /// A timer on CLOCK_MONOTONIC, the clock `Instant` reads on Linux.
    /// Must be made inside the runtime that will await it.
    pub fn new() -> PreciseTimer {
        PreciseTimer { fd: timerfd().ok() }
    }

    /// Returns at `at` (at once if it has passed). A timer whose runtime
    /// refused it goes on with tokio's.
    pub async fn sleep_until(&mut self, at: Instant) {
        if let Some(fd) = &self.fd {
            if wait(fd, at).await.is_ok() {
                return;
            }
            self.fd = None;
        }
        tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
    }
}

thread_local! {
    /// Timers of this thread's finished pauses, for the next ones: a
    /// timerfd per pause would be five more system calls each.
    static SPARE: RefCell<Vec<PreciseTimer>> = const { RefCell::new(Vec::new()) };
}

/// Sleeps `d` precisely, inside a runtime (several tasks of a thread may
/// sleep at once: each takes a timer of its own).
pub async fn sleep(d: Duration) {
    let at = Instant::now() + d;
    let mut timer = SPARE.with(|s| s.borrow_mut().pop()).unwrap_or_default();
    timer.sleep_until(at).await;
    if timer.fd.is_some() {
        SPARE.with(|s| s.borrow_mut().push(timer));
    }
}

fn timerfd() -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: timerfd_create takes no pointers; a non-negative result is a
    // new descriptor that only this function owns.
    let raw = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a valid descriptor owned by nothing else, and the
    // OwnedFd keeps it open for as long as the AsyncFd holds it.
    Ok(unsafe { AsyncFd::register_with_interest(OwnedFd::from_raw_fd(raw), Interest::READABLE)? })
}

async fn wait(fd: &AsyncFd<OwnedFd>, at: Instant) -> io::Result<()> {
    let now = Instant::now();
    if at <= now {
        return Ok(());
    }
    // An Instant's absolute value is private: arm the timer relative to
    // now, which is what `at` is measured from anyway.
    let d = at - now;
    let spec =
        libc::itimerspec { it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 }, it_value: libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos().max(1) as libc::c_long } };
    // SAFETY: the descriptor is open; `spec` outlives the call and a null
    // old value is allowed.
    if unsafe { libc::timerfd_settime(fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } < 0 {
        return Err(io::Error::last_os_error());
    }
    loop {
        let mut ready = fd.readable().await?;
        let mut expirations = [0u8; 8];
        // SAFETY: reads at most 8 bytes into a buffer of 8.
        let n = unsafe { libc::read(fd.as_raw_fd(), expirations.as_mut_ptr().cast(), 8) };
        if n == 8 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::WouldBlock {
            return Err(e);
        }
        ready.clear_ready();
    }
}
