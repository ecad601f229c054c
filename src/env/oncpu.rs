//! The on-CPU stacks of a server taken with Linux perf while a run goes on,
//! folded into stacks ("frame;frame;frame count" lines) for a flame graph
//! (live/flame.rs draws them).
//!
//! `perf record -p` follows every thread of the given processes and the
//! processes they fork after the recording starts, but not children that
//! already exist: a server with a process per connection (PostgreSQL) must
//! be given its backends' pids as well as the postmaster's.
//!
//! perf runs in fairbench's process group, so a Ctrl-C at the terminal
//! stops it together with fairbench (perf writes its file and ends), and
//! dropping a [`Profiler`] kills a perf still running: a run that ends early
//! never leaves perf behind.

use inferno::collapse::perf::Folder;
use inferno::collapse::Collapse;
use std::fs::{self, File};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Errors start with the flag that asked for the profile, so a user knows
/// which part of the command line to drop to get the run anyway.
const FLAG: &str = "--profile-server";
const MISSING: &str = "--profile-server: Linux perf is not installed (Debian: apt-get install linux-perf)";

/// 99 Hz, not 100: samples that march in step with the kernel's 100 Hz
/// timer or with work done every 10 ms would over- or under-count it.
const FREQUENCY: &str = "99";

/// perf refuses at once when the kernel does not allow it (perf_event_paranoid,
/// no permission) or the pid is gone; a perf still running after this has
/// attached.
const REFUSED_WITHIN: Duration = Duration::from_millis(300);

/// How long perf may take to write its file after SIGINT. Build ids are not
/// collected (`--no-buildid`): perf would read every sample again at the end
/// to find the binaries hit, seconds for a long profile of a busy server,
/// and copy those binaries into ~/.debug. perf script runs on this host
/// right after, so the binaries' paths are enough.
const STOP_WITHIN: Duration = Duration::from_millis(1500);

/// perf script resolves symbols (and may call addr2line), which on a large
/// server binary can take long; it is stopped after this, or after as long
/// as the recording took if that is longer.
const SCRIPT_WITHIN: Duration = Duration::from_secs(20);

const POLL: Duration = Duration::from_millis(20);

/// A running `perf record` of some processes. [`Profiler::finish`] stops it
/// and returns the folded stacks; dropping it unfinished kills perf.
pub struct Profiler {
    perf: PathBuf,
    child: Option<Child>,
    /// The profiled pids as given to perf, for its messages.
    pids: String,
    started: Instant,
    /// perf's data file and the logs of its stderr, all removed on drop.
    data: PathBuf,
    record_log: PathBuf,
    script_log: PathBuf,
}

/// Whether perf is installed and runs, so a command can refuse up front
/// rather than after preparing a data set. `perf --version` is run, not just
/// found: Ubuntu's /usr/bin/perf is a wrapper that fails when the tools for
/// the running kernel are missing.
pub fn available() -> Result<(), String> {
    available_at(Path::new("perf"))
}

fn available_at(program: &Path) -> Result<(), String> {
    let perf = locate(program).ok_or(MISSING)?;
    let out = Command::new(&perf).arg("--version").stdin(Stdio::null()).output().map_err(|e| format!("{FLAG}: cannot run {}: {e}", perf.display()))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let why = first_meaningful(&stderr).unwrap_or("no message");
    Err(format!("{FLAG}: {} --version failed ({}): {why}", perf.display(), out.status))
}

impl Profiler {
    /// Starts `perf record` on the given processes (all their threads),
    /// writing its file into `out_dir`. Fails with one line when perf is
    /// missing or the kernel refuses it.
    /// perf stops by itself after `most`, so that no perf outlives a
    /// process that ended without stopping it.
    pub fn start(pids: &[i32], out_dir: &Path, most: Duration) -> Result<Profiler, String> {
        start_alive(Path::new("perf"), pids, out_dir, most)
    }

    /// Stops perf, folds what it recorded and returns the folded stacks
    /// (empty when the processes used no CPU). perf's files are removed.
    pub fn finish(mut self) -> Result<String, String> {
        let recorded = self.started.elapsed();
        let Some(mut child) = self.child.take() else {
            return Err(format!("{FLAG}: perf is not running"));
        };
        // perf ends by itself when every profiled process has exited; its
        // file is complete then, as after SIGINT. Ended with an error, it was
        // refused later than start could tell (a slow start on a busy host).
        if let Ok(Some(status)) = child.try_wait() {
            if !status.success() {
                return Err(refusal(&self.pids, status, &fs::read_to_string(&self.record_log).unwrap_or_default()));
            }
        }
        let killed = if matches!(child.try_wait(), Ok(None)) {
            // SAFETY: kill(2) on the pid of our own child that has not been
            // reaped yet, so the pid cannot belong to another process.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
            if wait_within(&mut child, STOP_WITHIN).is_none() {
                let _ = child.kill();
                let _ = child.wait();
                true
            } else {
                false
            }
        } else {
            false
        };
        self.script(recorded.max(SCRIPT_WITHIN)).map_err(|e| {
            if killed {
                format!("{e} (perf did not stop within {:.1} s of SIGINT and was killed, so its file may be incomplete)", STOP_WITHIN.as_secs_f64())
            } else {
                e
            }
        })
    }

    /// Runs `perf script` on the recording and folds its output as it comes,
    /// so neither the text nor a copy of it is ever held whole.
    fn script(&self, limit: Duration) -> Result<String, String> {
        let log = File::create(&self.script_log).map_err(|e| format!("{FLAG}: cannot create {}: {e}", self.script_log.display()))?;
        let mut child = Command::new(&self.perf)
            .arg("script")
            // The default fields less the period: inferno adds up the
            // periods when they are there, which makes a stack's count the
            // event's units (nanoseconds for cpu-clock, cycles for cycles)
            // rather than samples, and two hosts' profiles incomparable.
            .args(["-F", "comm,pid,tid,time,event,ip,sym,dso"])
            .arg("-i")
            .arg(&self.data)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("{FLAG}: cannot run {} script: {e}", self.perf.display()))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{FLAG}: perf script's output could not be read"));
        };
        // Folding on a thread of its own lets this one keep the time limit;
        // killing perf script closes the pipe and so ends the folding too.
        let folder = std::thread::spawn(move || {
            let mut folded = Vec::new();
            Folder::default().collapse(BufReader::new(stdout), &mut folded).map(|()| folded)
        });
        let status = wait_within(&mut child, limit);
        if status.is_none() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let folded = folder.join();
        let Some(status) = status else {
            return Err(format!("{FLAG}: perf script ran over {} s and was stopped (symbol resolution on a large binary can be slow)", limit.as_secs()));
        };
        if !status.success() {
            let stderr = fs::read_to_string(&self.script_log).unwrap_or_default();
            let why = first_meaningful(&stderr).unwrap_or("no message");
            return Err(format!("{FLAG}: perf script failed ({status}): {why}"));
        }
        let folded = match folded {
            Ok(Ok(folded)) => folded,
            Ok(Err(e)) => return Err(format!("{FLAG}: cannot fold perf script's output: {e}")),
            Err(_) => return Err(format!("{FLAG}: folding perf script's output failed")),
        };
        Ok(String::from_utf8(folded).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // Nobody will read an unfinished profile: no need for SIGINT
            // and the wait for perf to write its file.
            let _ = child.kill();
            let _ = child.wait();
        }
        for file in [&self.data, &self.record_log, &self.script_log] {
            let _ = fs::remove_file(file);
        }
    }
}

/// [`start_with`] on those of `pids` still there: a server's processes come
/// and go (a PostgreSQL backend whose session ended between the listing and
/// perf's start), and perf refuses the whole list for one gone: with "No such
/// process", or with no message at all when the process ended while perf
/// opened its threads' events (exit 255, seen in the suite).
fn start_alive(program: &Path, pids: &[i32], out_dir: &Path, most: Duration) -> Result<Profiler, String> {
    let mut pids = pids.to_vec();
    loop {
        match start_with(program, &pids, out_dir, most) {
            Err(e) if e.starts_with(&format!("{FLAG}: perf could not profile")) => {
                let alive: Vec<i32> = pids.iter().copied().filter(|p| Path::new(&format!("/proc/{p}")).exists()).collect();
                // Each try has fewer: this ends.
                if alive.is_empty() || alive.len() == pids.len() {
                    return Err(e);
                }
                pids = alive;
            }
            r => return r,
        }
    }
}

/// [`Profiler::start`] with the perf program named, so a test can name one
/// that does not exist.
fn start_with(program: &Path, pids: &[i32], out_dir: &Path, most: Duration) -> Result<Profiler, String> {
    let perf = locate(program).ok_or(MISSING)?;
    let mut pids = pids.to_vec();
    pids.sort_unstable();
    pids.dedup();
    if pids.is_empty() {
        return Err(format!("{FLAG}: no server process to profile"));
    }
    if let Some(bad) = pids.iter().find(|&&p| p <= 0) {
        return Err(format!("{FLAG}: {bad} is not a process id"));
    }
    let list = pids.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(",");
    fs::create_dir_all(out_dir).map_err(|e| format!("{FLAG}: cannot create {}: {e}", out_dir.display()))?;
    let stem = format!("fairbench-perf-{}", pids[0]);
    let data = out_dir.join(format!("{stem}.data"));
    let record_log = out_dir.join(format!("{stem}.record.log"));
    let script_log = out_dir.join(format!("{stem}.script.log"));
    // perf renames an existing file to .old rather than overwrite it: one
    // left by an earlier run that was killed would linger twice.
    let _ = fs::remove_file(&data);
    let log = File::create(&record_log).map_err(|e| format!("{FLAG}: cannot create {}: {e}", record_log.display()))?;
    let child = Command::new(&perf)
        .args(["record", "-F", FREQUENCY, "-g", "--no-buildid", "-o"])
        .arg(&data)
        .args(["-p", &list])
        // With -p, perf records those processes while its command runs.
        .args(["--", "sleep", &most.as_secs().max(1).to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("{FLAG}: cannot run {}: {e}", perf.display()))?;
    // From here the files and perf are the profiler's to clean up, also on
    // the error path below.
    let mut profiler = Profiler { perf, child: Some(child), pids: list, started: Instant::now(), data, record_log, script_log };
    let child = profiler.child.as_mut().ok_or_else(|| format!("{FLAG}: perf is not running"))?;
    if let Some(status) = wait_within(child, REFUSED_WITHIN) {
        profiler.child = None;
        let stderr = fs::read_to_string(&profiler.record_log).unwrap_or_default();
        return Err(refusal(&profiler.pids, status, &stderr));
    }
    Ok(profiler)
}

/// The one line for a perf that ended at once: its own reason, and what to
/// do about it.
fn refusal(pids: &str, status: ExitStatus, stderr: &str) -> String {
    let why = first_meaningful(stderr).unwrap_or("no message");
    // Profiling another user's process takes root (CAP_PERFMON and
    // CAP_SYS_PTRACE) whatever perf_event_paranoid says; the server's own
    // user needs the setting at 2 or below (Debian's default is 3), and at 1
    // to see the kernel's frames.
    let advice = if why.contains("No such process") { "is the server still running?" } else { "run fairbench as root, or as the server's user with `sysctl kernel.perf_event_paranoid=1`" };
    format!("{FLAG}: perf could not profile pid {pids} ({status}): {why} ({advice})")
}

/// The first line of perf's stderr that says something: not blank, not its
/// "Error:" heading or progress lines, and a warning only when nothing else
/// was said (perf warns about restricted kernel symbols before the error
/// that matters).
fn first_meaningful(stderr: &str) -> Option<&str> {
    let mut warning = None;
    for line in stderr.lines() {
        let line = line.trim();
        let line = line.strip_prefix("Error:").unwrap_or(line).trim();
        if line.is_empty() || line.starts_with("[ perf record:") {
            continue;
        }
        if line.to_ascii_lowercase().starts_with("warning") {
            warning.get_or_insert(line);
            continue;
        }
        return Some(line);
    }
    warning
}

/// The program's path: as given when it names a directory, else the first
/// executable of that name on PATH.
fn locate(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 {
        return executable(program).then(|| program.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| executable(p))
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The child's exit status if it ends within `limit`; None if it is still
/// running (or cannot be asked).
fn wait_within(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
            _ => return None,
        }
    }
}

/// `--profile-server`: the server's on-CPU stacks sampled by perf over
/// each level's measured time.
#[derive(Clone)]
pub struct ProfileServer {
    /// From the level's start to its measured time.
    pub warmup: Duration,
    /// The longest perf may record (it stops by itself after).
    pub most: Duration,
    /// Where perf writes its file.
    pub dir: PathBuf,
    /// Whether the run is being stopped (Ctrl-C): a level's profile is not
    /// folded then, which could outlast the promised stop.
    pub stopping: fn() -> bool,
}

/// A sampler's profiling over its levels: perf started once a level's
/// warmup is over, stopped and folded at its end.
pub struct Profiling {
    opts: Option<ProfileServer>,
    due: Option<Instant>,
    running: Option<Profiler>,
    said: Option<String>,
}

impl Profiling {
    pub fn new(opts: Option<ProfileServer>) -> Profiling {
        Profiling { opts, due: None, running: None, said: None }
    }

    pub fn level_start(&mut self, now: Instant) {
        if let Some(o) = &self.opts {
            self.due = Some(now + o.warmup);
            self.said = None;
        }
    }

    /// Starts perf on `pids()` once the warmup is over (at a sample: the
    /// measured time starts within a sampling period of it).
    pub fn tick(&mut self, now: Instant, pids: impl Fn() -> Vec<i32>) {
        let (Some(o), Some(due)) = (&self.opts, self.due) else { return };
        if now + Duration::from_millis(50) < due {
            return;
        }
        self.due = None;
        let pids = pids();
        if pids.is_empty() {
            self.said = Some(format!("{FLAG}: the server's process is not on this host (or was not found), so it was not profiled"));
            return;
        }
        match Profiler::start(&pids, &o.dir, o.most) {
            Ok(p) => self.running = Some(p),
            Err(e) => self.said = Some(e),
        }
    }

    /// The level's folded stacks, or why there are none; None without
    /// `--profile-server`.
    pub fn level_end(&mut self) -> Option<Result<String, String>> {
        let o = self.opts.as_ref()?;
        self.due = None;
        Some(match self.running.take() {
            Some(p) if (o.stopping)() => {
                drop(p);
                Err(format!("{FLAG}: the run was stopped, so the level's profile was not folded"))
            }
            Some(p) => p.finish(),
            None => Err(self.said.take().unwrap_or_else(|| format!("{FLAG}: the level ended before its warmup did, so nothing was profiled"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process that spins on the CPU, killed when the test ends however
    /// it ends, so a failed assertion leaves no busy loop behind.
    struct Busy(Child);

    impl Busy {
        fn spawn() -> Busy {
            Busy(Command::new("sh").args(["-c", "while :; do :; done"]).spawn().expect("sh runs"))
        }
        fn pid(&self) -> i32 {
            self.0.id() as i32
        }
    }

    impl Drop for Busy {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// User and system seconds of process `pid` so far.
    fn cpu_secs(pid: i32) -> f64 {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let f: Vec<f64> = rest.split_whitespace().map(|v| v.parse().unwrap_or(0.0)).collect();
        // SAFETY: sysconf only reads a constant of the system.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / ticks.max(1.0)
    }

    fn alive(pid: i32) -> bool {
        // SAFETY: signal 0 only asks whether the pid exists.
        unsafe { libc::kill(pid, 0) == 0 }
    }

    #[test]
    fn profiles_a_busy_process() {
        available().expect("perf is installed");
        let busy = Busy::spawn();
        let dir = tempfile::tempdir().expect("temporary directory");
        let began = Instant::now();
        let profiler = Profiler::start(&[busy.pid()], dir.path(), Duration::from_secs(30)).expect("perf starts");
        // The process's CPU is counted from when perf records: once it has opened its data
        // file. Counted from the spawn, a loaded machine's slow perf start-up (half a
        // second) was CPU time no sample could cover.
        let data = dir.path().join(format!("fairbench-perf-{}.data", busy.pid()));
        let t = Instant::now();
        while !data.exists() {
            assert!(t.elapsed() < Duration::from_secs(20), "perf never opened {}", data.display());
            std::thread::sleep(Duration::from_millis(5));
        }
        let cpu0 = cpu_secs(busy.pid());
        std::thread::sleep(Duration::from_millis(1500));
        // Read before perf is stopped: the process runs on while a loaded machine takes its
        // time to stop perf, CPU no sample covers (48 samples against 1.15 s counted after).
        let on_cpu = cpu_secs(busy.pid()) - cpu0;
        let folded = profiler.finish().expect("perf finishes");
        let seconds = began.elapsed().as_secs_f64();
        drop(busy);

        assert!(!folded.is_empty(), "no samples folded");
        assert!(folded.lines().any(|l| l.contains("sh") || l.contains("dash")), "no sh frames in:\n{folded}");
        // Every line is "stack count".
        let samples: u64 = folded.lines().map(|l| l.rsplit_once(' ').and_then(|(_, n)| n.parse::<u64>().ok()).expect("folded line ends in a count")).sum();
        // perf samples the time the process ran, which a busy machine cuts short.
        assert!(samples as f64 >= on_cpu * 99.0 * 0.5 - 2.0 && samples > 0, "only {samples} samples of {on_cpu:.2} s on CPU at 99 Hz");
        // Counts are samples, not perf's periods (10101010 ns a sample for
        // cpu-clock): one busy thread gives at most 99 a second.
        assert!(samples as f64 <= 99.0 * (seconds + 0.5), "{samples} samples in {seconds:.1} s of one thread at 99 Hz");
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 0, "perf's files are left behind");
    }

    #[test]
    fn dropping_an_unfinished_profiler_stops_perf() {
        let busy = Busy::spawn();
        let dir = tempfile::tempdir().expect("temporary directory");
        let profiler = Profiler::start(&[busy.pid()], dir.path(), Duration::from_secs(30)).expect("perf starts");
        let perf = profiler.child.as_ref().map(|c| c.id() as i32).expect("perf runs");
        assert!(alive(perf));
        drop(profiler);
        assert!(!alive(perf), "perf still runs after the profiler was dropped");
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 0, "perf's files are left behind");
    }

    /// perf refused the whole list when one PostgreSQL backend had ended between the listing
    /// of the server's processes and perf's start: a profiled run then had no profile.
    #[test]
    fn a_process_gone_before_perf_started_leaves_the_others_profiled() {
        available().expect("perf is installed");
        let busy = Busy::spawn();
        let dir = tempfile::tempdir().expect("temporary directory");
        let profiler = Profiler::start(&[busy.pid(), 999_999_999], dir.path(), Duration::from_secs(30)).expect("perf starts on the process still there");
        assert_eq!(profiler.pids, busy.pid().to_string());
        drop(profiler);
    }

    /// perf ended at once with exit 255 and no message when a PostgreSQL backend it was to
    /// record ended meanwhile, and the run had no profile: a stand-in for perf that does the
    /// same for any process gone shows the others are profiled.
    #[test]
    fn a_silent_refusal_while_a_process_is_gone_leaves_the_others_profiled() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let fake = dir.path().join("perf");
        let script = "#!/bin/sh\nwhile [ \"$1\" != -p ]; do shift; done\nfor p in $(echo \"$2\" | tr , ' '); do [ -d /proc/$p ] || exit 255; done\nexec sleep 30\n";
        fs::write(&fake, script).unwrap();
        fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let busy = Busy::spawn();
        let profiler = start_alive(&fake, &[busy.pid(), 999_999_999], dir.path(), Duration::from_secs(30)).expect("started on the process still there");
        assert_eq!(profiler.pids, busy.pid().to_string());
    }

    #[test]
    fn a_gone_process_is_refused_in_one_line() {
        let dir = tempfile::tempdir().expect("temporary directory");
        // Above the largest pid_max Linux allows (2^22).
        let err = Profiler::start(&[999_999_999], dir.path(), Duration::from_secs(30)).err().expect("refused");
        assert!(err.starts_with("--profile-server: perf could not profile pid 999999999"), "{err}");
        assert!(err.contains("No such process") && err.contains("still running"), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }

    #[test]
    fn a_missing_perf_is_named() {
        let missing = Path::new("/nonexistent/bin/perf");
        let dir = tempfile::tempdir().expect("temporary directory");
        assert_eq!(start_with(missing, &[1], dir.path(), Duration::from_secs(30)).err().as_deref(), Some(MISSING));
        assert_eq!(available_at(missing), Err(MISSING.to_string()));
        assert_eq!(available_at(Path::new("no-such-perf-program")), Err(MISSING.to_string()));
    }

    #[test]
    fn bad_pids_are_refused() {
        let dir = tempfile::tempdir().expect("temporary directory");
        assert!(Profiler::start(&[], dir.path(), Duration::from_secs(30)).err().expect("refused").contains("no server process"));
        assert!(Profiler::start(&[-3], dir.path(), Duration::from_secs(30)).err().expect("refused").contains("-3 is not a process id"));
    }

    #[test]
    fn the_meaningful_line_of_perfs_stderr() {
        let paranoid = "Error:\nAccess to performance monitoring and observability operations is limited.\nConsider adjusting /proc/sys/kernel/perf_event_paranoid setting\n";
        assert_eq!(first_meaningful(paranoid), Some("Access to performance monitoring and observability operations is limited."));
        let warned = "WARNING: Kernel address maps (/proc/{kallsyms,modules}) are restricted,\n\nError: Couldn't create thread/CPU maps: No such process\n";
        assert_eq!(first_meaningful(warned), Some("Couldn't create thread/CPU maps: No such process"));
        assert_eq!(first_meaningful("[ perf record: Woken up 1 times to write data ]\nWARNING: only this\n"), Some("WARNING: only this"));
        assert_eq!(first_meaningful("\n  \n"), None);
        let line = refusal("12,13", std::os::unix::process::ExitStatusExt::from_raw(244 << 8), paranoid);
        assert!(line.contains("pid 12,13") && line.contains("perf_event_paranoid=1") && !line.contains('\n'), "{line}");
    }
}
