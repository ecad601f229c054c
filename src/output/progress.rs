//! A progress line for long loads: rows/s and ETA, redrawn in place on a
//! terminal, printed every few seconds otherwise.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct Progress {
    what: &'static str,
    total: u64,
    done: AtomicU64,
    start: Instant,
    last: Mutex<Instant>,
    quiet: bool,
    tty: bool,
}

impl Progress {
    pub fn new(what: &'static str, total: u64, quiet: bool) -> Progress {
        let now = Instant::now();
        Progress { what, total, done: AtomicU64::new(0), start: now, last: Mutex::new(now), quiet, tty: std::io::stderr().is_terminal() }
    }

    /// Called by loaders every few thousand rows (never per row).
    pub fn add(&self, rows: u64) {
        let done = self.done.fetch_add(rows, Ordering::Relaxed) + rows;
        if self.quiet {
            return;
        }
        let every = if self.tty { Duration::from_millis(250) } else { Duration::from_secs(5) };
        let mut last = self.last.lock().unwrap();
        if last.elapsed() < every {
            return;
        }
        *last = Instant::now();
        drop(last);
        self.draw(done);
    }

    fn draw(&self, done: u64) {
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let rate = done as f64 / secs;
        let pct = if self.total > 0 { done as f64 * 100.0 / self.total as f64 } else { 100.0 };
        let eta = if rate > 0.0 { (self.total.saturating_sub(done)) as f64 / rate } else { 0.0 };
        let line = format!("{}: {done}/{} rows ({pct:.1}%) {rate:.0} rows/s, ETA {eta:.0}s", self.what, self.total);
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    pub fn finish(&self) {
        if !self.quiet && self.tty {
            let _ = writeln!(std::io::stderr());
        }
    }
}
