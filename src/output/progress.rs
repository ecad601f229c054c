//! A progress line for long loads: rows/s and ETA, redrawn in place on a
//! terminal, printed every few seconds otherwise (CI logs, pods' logs).
//! A message printed while a line is drawn clears it first ([`say`]), or
//! the message would run on after "ETA 1s".

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A progress line is drawn on the terminal and not ended.
static OPEN: AtomicBool = AtomicBool::new(false);

/// Clears a progress line left open on the terminal (the next update draws
/// it again below): for any message printed while a load goes on.
fn clear_line() {
    if OPEN.swap(false, Ordering::Relaxed) {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        let _ = err.flush();
    }
}

/// Prints a message on its own line while a load may be drawing progress.
pub fn say(message: &str) {
    clear_line();
    println!("{message}");
}

pub struct Progress {
    what: &'static str,
    total: u64,
    done: AtomicU64,
    /// Rows found there already (a resumed load): counted done, not in the rate.
    skipped: AtomicU64,
    start: Instant,
    last: Mutex<Instant>,
    quiet: bool,
    tty: bool,
}

impl Progress {
    pub fn new(what: &'static str, total: u64, quiet: bool) -> Progress {
        let now = Instant::now();
        Progress { what, total, done: AtomicU64::new(0), skipped: AtomicU64::new(0), start: now, last: Mutex::new(now), quiet, tty: std::io::stderr().is_terminal() }
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

    /// Rows a resumed load found there already: done, but not loaded now.
    pub fn skip(&self, rows: u64) {
        self.skipped.fetch_add(rows, Ordering::Relaxed);
        self.add(rows);
    }

    /// The line after `secs` with `done` rows done.
    fn line(&self, done: u64, secs: f64) -> String {
        let rate = done.saturating_sub(self.skipped.load(Ordering::Relaxed)) as f64 / secs.max(1e-9);
        let pct = if self.total > 0 { done as f64 * 100.0 / self.total as f64 } else { 100.0 };
        let eta = if rate > 0.0 { (self.total.saturating_sub(done)) as f64 / rate } else { 0.0 };
        format!("{}: {done}/{} rows ({pct:.1}%) {rate:.0} rows/s, ETA {eta:.0}s", self.what, self.total)
    }

    fn draw(&self, done: u64) {
        let line = self.line(done, self.start.elapsed().as_secs_f64());
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
            OPEN.store(true, Ordering::Relaxed);
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    /// Ends the line drawn last, kept on the terminal; a load too quick to
    /// draw one leaves no empty line.
    pub fn finish(&self) {
        if OPEN.swap(false, Ordering::Relaxed) {
            let _ = writeln!(std::io::stderr());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed load's rate counted the rows found there as loaded now.
    #[test]
    fn rows_found_there_are_done_but_not_in_the_rate() {
        let p = Progress::new("Loading", 1000, true);
        p.skip(600);
        p.add(100);
        assert_eq!(p.line(700, 2.0), "Loading: 700/1000 rows (70.0%) 50 rows/s, ETA 6s");
    }
}
