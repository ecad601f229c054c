//! A command watched line by line while it runs, so a test acts on the run's own progress
//! (its first report interval, a step's banner) instead of a sleep after the spawn: on a
//! loaded machine a process can take seconds to reach its first transaction, and a fault
//! injected by the wall clock then lands anywhere in the run, or after it.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A spawned command whose stdout and stderr lines arrive, timed, as it prints them.
pub struct Watched {
    child: Child,
    lines: Receiver<(Instant, String)>,
    readers: Vec<JoinHandle<Vec<u8>>>,
    what: String,
}

/// Reads `pipe` to its end, sending each line with the instant it arrived; returns all of it.
fn reader(pipe: impl Read + Send + 'static, tx: std::sync::mpsc::Sender<(Instant, String)>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut r = BufReader::new(pipe);
        let mut line = Vec::new();
        // A progress line ends with \r on a terminal; \n here (stdout is a pipe).
        while r.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
            let _ = tx.send((Instant::now(), String::from_utf8_lossy(&line).trim_end().to_string()));
            all.append(&mut line);
        }
        all
    })
}

impl Watched {
    pub fn spawn(cmd: &mut Command) -> Watched {
        let what = format!("{cmd:?}");
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
        let (tx, lines) = channel();
        let readers = vec![reader(child.stdout.take().unwrap(), tx.clone()), reader(child.stderr.take().unwrap(), tx)];
        Watched { child, lines, readers, what }
    }

    /// The command's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the first line (on stdout or stderr) for which `want` holds; returns it with
    /// the instant it was printed. Fails the test, with every line seen, when none came within
    /// `limit` or the command ended first.
    pub fn wait_for(&mut self, limit: Duration, mut want: impl FnMut(&str) -> bool) -> (Instant, String) {
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok((at, line)) if want(&line) => return (at, line),
                Ok((_, line)) => seen.push(line),
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("{}: no awaited line within {limit:?}; it printed:\n{}", self.what, seen.join("\n"));
                }
                Err(RecvTimeoutError::Disconnected) => panic!("{}: ended before the awaited line; it printed:\n{}", self.what, seen.join("\n")),
            }
        }
    }

    /// Waits for the next report interval line (sysbench's `[ 1s ] thds: ...`): the run is
    /// then at least one interval into its own clock.
    pub fn wait_for_interval(&mut self, limit: Duration) -> Instant {
        self.wait_for(limit, |l| l.starts_with('[') && l.contains("s ] thds:")).0
    }

    /// Waits for the JSON interval line (`--output json`) that ends `secs` or more into the
    /// run's own clock; returns that clock, to read the run's time of what the test does next.
    pub fn wait_for_run_time(&mut self, limit: Duration, secs: f64) -> RunClock {
        let (at, line) = self.wait_for(limit, |l| interval_time(l) >= secs);
        RunClock { at, t: interval_time(&line) }
    }

    /// Sends Ctrl-C (SIGINT) and waits for the command to end: (exit code, time from the
    /// signal to the end, stdout). Fails the test if it still runs 10 s after the signal.
    pub fn interrupt(self) -> (Option<i32>, Duration, String) {
        let sent = Instant::now();
        // SAFETY: signals a child process this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let out = self.finish(Duration::from_secs(10));
        (out.status.code(), sent.elapsed(), String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Ends the command (a watcher that never ends by itself).
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the command to end (killing it and failing the test past `limit` from now),
    /// with all it printed.
    pub fn finish(mut self, limit: Duration) -> Output {
        let deadline = Instant::now() + limit;
        let status: ExitStatus = loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                break st;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("{} still running {limit:?} after it was awaited: killed", self.what);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut readers = self.readers.drain(..);
        let stdout = readers.next().unwrap().join().unwrap();
        let stderr = readers.next().unwrap().join().unwrap();
        Output { status, stdout, stderr }
    }
}

/// The run time (seconds) of a JSON interval line, or -1 for any other line.
pub fn interval_time(line: &str) -> f64 {
    serde_json::from_str::<serde_json::Value>(line).ok().filter(|v| v["type"] == "interval").and_then(|v| v["time_s"].as_f64()).unwrap_or(-1.0)
}

/// A run's clock as its interval lines tell it: an interval's end, and when its line came.
#[derive(Clone, Copy, Debug)]
pub struct RunClock {
    at: Instant,
    t: f64,
}

impl RunClock {
    /// The run's time now, in seconds: at least this, as the line came after its interval ended.
    pub fn now(&self) -> f64 {
        self.t + self.at.elapsed().as_secs_f64()
    }
}
