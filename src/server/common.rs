//! What every sandbox kind shares: finding programs, the service account
//! and its reach, log files, waiting for programs and servers, the port
//! claim and the registry entry, the state file, and ending processes.

use super::kinds::Kind;
use super::{environ, root, Sandbox};
use crate::error::{Error, Result};
use crate::usage;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Marks a directory as a sandbox, so that `stop` never removes anything else.
pub(super) const MARKER: &str = "sandbox.json";

/// What a server's log says when its port was bound by another process.
pub(super) const PORT_TAKEN: &str = "Address already in use";

/// The programs a sandbox runs, found before anything starts.
pub struct Bins {
    pub server: PathBuf,
    /// The program that makes a data directory; a server that bootstraps its store itself has none.
    pub init: Option<PathBuf>,
    pub client: PathBuf,
    pub ctl: Option<PathBuf>,
    /// Programs a kind needs besides its server's (a cluster manager's), by name.
    pub tools: Vec<(&'static str, PathBuf)>,
}

impl Bins {
    /// A program of `tools`; the kind that needs it put it there.
    pub fn tool(&self, name: &str) -> &Path {
        self.tools.iter().find(|(n, _)| *n == name).map(|(_, p)| p.as_path()).unwrap_or_else(|| panic!("{name} was not looked up"))
    }
}

pub fn io(what: impl std::fmt::Display, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{what}: {e}"))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

pub use crate::cache::find_bin;

/// Exit code for a server binary that is not installed.
pub fn missing(what: &str, package: &str) -> Error {
    Error::Usage(format!("{what} not found: install {package} (Debian: apt-get install {package})"))
}

/// The first of `names` in `d`, else what to install.
pub fn in_dir(d: &Path, names: &[&str], package: &str) -> Result<PathBuf> {
    names.iter().map(|n| d.join(n)).find(|p| p.is_file()).ok_or_else(|| missing(&format!("{} in {}", names[0], d.display()), package))
}

/// A directory given by `var` to take a server's binaries from (a build or
/// tarball of another version) instead of the installed packages.
pub fn bindir_override(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The account the server runs as: itself when not root, else the kind's
/// packaged service user (the servers refuse root, or should not run as it).
pub(super) fn service_user(kind: Kind) -> Option<String> {
    if !is_root() {
        return None;
    }
    kind.service_user().map(str::to_string)
}

/// The service account must reach the sandbox's directory: a server run as
/// `postgres` or `mysql` under a directory only root may enter (`/root/x`)
/// would fail later with a permission error in its own log (initdb's
/// password file, etcd's data directory), after processes were started.
/// The first ancestor it cannot enter is named, before anything starts.
pub(super) fn reachable(dir: &Path, user: &str) -> Result<()> {
    let can_enter = |d: &Path| as_user(&Some(user.to_string()), Path::new("test")).arg("-x").arg(d).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    let Some(deepest) = dir.ancestors().find(|a| a.exists()) else { return Ok(()) };
    if can_enter(deepest) {
        return Ok(());
    }
    let mut chain: Vec<&Path> = deepest.ancestors().collect();
    chain.reverse();
    let blocked = chain.into_iter().find(|a| !can_enter(a)).unwrap_or(deepest);
    Err(usage!(
        "{}: the {user} account the server runs as cannot enter {} (no search permission); use a directory it can reach, such as one under /tmp, or give {} o+x",
        dir.display(),
        blocked.display(),
        blocked.display()
    ))
}

pub fn chown(path: &Path, user: &Option<String>) -> Result<()> {
    let Some(u) = user else { return Ok(()) };
    let st = environ::command("chown").arg("-R").arg(format!("{u}:")).arg(path).stdin(Stdio::null()).output().map_err(|e| io("chown", e))?;
    if !st.status.success() {
        return Err(io(format!("chown {u} {}", path.display()), String::from_utf8_lossy(&st.stderr).trim()));
    }
    Ok(())
}

/// A command run as `user` (through runuser when we are root), from `/`.
pub fn as_user(user: &Option<String>, prog: &Path) -> Command {
    let mut c = match user {
        Some(u) => {
            let mut c = environ::command("runuser");
            c.arg("-u").arg(u).arg("--").arg(prog);
            c
        }
        None => environ::command(prog),
    };
    c.current_dir("/").stdin(Stdio::null());
    c
}

pub fn log_file(p: &Path) -> Result<Stdio> {
    Ok(Stdio::from(fs::OpenOptions::new().create(true).append(true).open(p).map_err(|e| io(p.display(), e))?))
}

/// The last non-empty line of a log, for a one-line error.
/// What [`last_line`] says of a log with nothing in it.
pub const EMPTY_LOG: &str = "(empty log)";

pub fn last_line(p: &Path) -> String {
    let t = fs::read_to_string(p).unwrap_or_default();
    let l = t.lines().rev().find(|l| l.contains("ERROR") || l.contains("FATAL") || l.contains("rror")).or_else(|| t.lines().rev().find(|l| !l.trim().is_empty()));
    // Go servers' fatal lines end in stack traces.
    l.map_or(EMPTY_LOG, |l| l.split(" [stack=").next().unwrap_or(l)).trim().to_string()
}

/// The version word of `server --version`'s output (`10.11.19-MariaDB`).
pub fn version_flag(server: &Path) -> String {
    environ::command(server)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()
        .map(|o| {
            let t = String::from_utf8_lossy(&o.stdout).to_string();
            t.split_whitespace().find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit())).unwrap_or(t.trim()).to_string()
        })
        .unwrap_or_default()
}

/// Waits for `child`, watching for Ctrl-C (then it is killed).
pub fn wait_child(mut child: Child, what: &str, log: &Path, limit: Duration) -> Result<()> {
    let end = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().map_err(|e| io(what, e))? {
            return if st.success() { Ok(()) } else { Err(Error::Io(format!("{what} failed: {} (log: {})", last_line(log), log.display()))) };
        }
        if crate::model::interrupted() || Instant::now() > end {
            // The whole group: a data directory's initialiser may leave a bootstrapping
            // server behind that would go on writing into the directory being removed.
            // SAFETY: kill has no memory-safety preconditions; the group is our child's own.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            return Err(if crate::model::interrupted() { Error::Interrupted } else { Error::Io(format!("{what} did not finish within {}s (log: {})", limit.as_secs(), log.display())) });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn port_free(p: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", p)).is_ok()
}

/// Claims a port and the registry entry `ENGINE-PORT` in one step; a kind
/// that needs several ports claims a block of them from it.
pub(super) fn claim(kind: Kind, want: Option<u16>) -> Result<(u16, PathBuf)> {
    let reg = root();
    fs::create_dir_all(&reg).map_err(|e| io(reg.display(), e))?;
    let _ = fs::set_permissions(&reg, std::os::unix::fs::PermissionsExt::from_mode(0o755));
    let base = want.unwrap_or(kind.default_port());
    let width = kind.ports();
    let tries: u16 = if want.is_some() { 1 } else { 200 };
    // Blocks of one engine's sandboxes start a block apart, so that claiming
    // a registry entry claims the whole block among them.
    for p in (0..tries).filter_map(|i| base.checked_add(i.checked_mul(width)?)) {
        if !(0..width).all(|i| p.checked_add(i).is_some_and(port_free)) {
            continue;
        }
        let entry = reg.join(format!("{}-{p}", kind.name()));
        if fs::create_dir(&entry).is_ok() {
            return Ok((p, entry));
        }
    }
    Err(match want {
        Some(p) if width > 1 => usage!("a port of {p}..{} on 127.0.0.1 is in use or taken by another sandbox: choose another --port", p.saturating_add(width - 1)),
        Some(p) => usage!("port {p} on 127.0.0.1 is in use or taken by another sandbox: choose another --port"),
        None => Error::Io(format!("no free port in {base}..{} on 127.0.0.1", base.saturating_add(tries))),
    })
}

/// Known to the installed server, or left for it to judge (also when its
/// list could not be read).
pub(super) fn is_known(known: &BTreeSet<String>, kind: Kind, key: &str) -> bool {
    known.is_empty() || known.contains(key) || kind.left_to_server(key)
}

pub fn norm(k: &str) -> String {
    k.trim().replace('-', "_").to_ascii_lowercase()
}

pub fn write_state(sb: &Sandbox) -> Result<()> {
    let p = sb.dir.join(MARKER);
    let j = serde_json::to_string_pretty(sb).map_err(|e| io(p.display(), e))?;
    fs::write(&p, j).map_err(|e| io(p.display(), e))
}

pub(super) fn load(dir: &Path) -> Option<Sandbox> {
    serde_json::from_str(&fs::read_to_string(dir.join(MARKER)).ok()?).ok()
}

/// A server that exited during its start, with why from its log: its port
/// taken (which `server start` answers by trying the next), or the log's
/// last error.
pub fn exited(sb: &Sandbox, log: &Path) -> Error {
    // Go's servers write it in lower case.
    let text = fs::read_to_string(log).unwrap_or_default().to_ascii_lowercase();
    let why = if text.contains(&PORT_TAKEN.to_ascii_lowercase()) { format!("port {} on 127.0.0.1: {PORT_TAKEN}", sb.port) } else { last_line(log) };
    Error::Io(format!("{} exited during start-up: {why} (log: {})", sb.kind, log.display()))
}

/// Waits until `probe` reaches the server, failing as soon as `alive` says
/// it exited (the log then says why).
pub fn wait_ready(sb: &Sandbox, probe: &mut dyn FnMut() -> bool, alive: &mut dyn FnMut() -> bool, log: &Path, timeout: Duration) -> Result<()> {
    let end = Instant::now() + timeout;
    loop {
        // Alive first: a probe that reaches another server on the port must
        // not pass for ours (the probes also compare the data directory).
        if !alive() {
            return Err(exited(sb, log));
        }
        if probe() {
            return Ok(());
        }
        if crate::model::interrupted() {
            return Err(Error::Interrupted);
        }
        if Instant::now() > end {
            return Err(Error::Io(format!("{} did not accept connections on 127.0.0.1:{} within {}s (log: {})", sb.kind, sb.port, timeout.as_secs(), log.display())));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Is the data directory a server reports this sandbox's? (trailing `/`
/// and symlinks aside)
pub fn same_dir(reported: &str, ours: &Path) -> bool {
    let canon = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(Path::new(reported.trim_end_matches('/'))) == canon(ours)
}

/// Is `pid` alive with `dir` on its command line? (guards against a recycled pid)
pub fn pid_is_ours(pid: i32, dir: &Path) -> bool {
    fs::read(format!("/proc/{pid}/cmdline")).map(|c| String::from_utf8_lossy(&c).contains(&dir.display().to_string())).unwrap_or(false)
}

/// The server's pid, from the first of its kind's pid files that names a
/// process running from the sandbox's directory.
pub(super) fn server_pid(sb: &Sandbox) -> Option<i32> {
    sb.kind().pid_files(&sb.dir).iter().filter_map(|f| fs::read_to_string(f).ok()).filter_map(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok())).find(|&p| pid_is_ours(p, &sb.dir))
}

/// Sends `sig` to the server and waits up to `limit` for it to end; true
/// when it is gone (or was not running).
pub fn signal_and_wait(sb: &Sandbox, sig: i32, limit: Duration) -> bool {
    let Some(pid) = server_pid(sb) else { return true };
    // SAFETY: kill has no memory-safety preconditions; the pid was checked to be ours.
    unsafe { libc::kill(pid, sig) };
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if !pid_is_ours(pid, &sb.dir) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Removes the sandbox's directory when `start` made it (else only what a
/// sandbox of any kind puts there), and its registry entry.
pub(super) fn remove(sb: &Sandbox, entry: &Path) {
    if sb.owns_dir && sb.dir.join(MARKER).exists() {
        // A process that was just killed may still close files: a second pass then.
        if fs::remove_dir_all(&sb.dir).is_err() {
            std::thread::sleep(Duration::from_millis(100));
            let _ = fs::remove_dir_all(&sb.dir);
        }
    } else if !sb.owns_dir {
        // A directory the user gave: only what the sandbox put there goes.
        // Every kind's names, not only this one's: the directory may have
        // served sandboxes of other kinds before.
        let kinds = Kind::all();
        let files = ["data", "tmp", MARKER].into_iter().chain(kinds.clone().flat_map(|k| k.files().iter().copied()));
        for p in files.map(|f| sb.dir.join(f)).chain(kinds.flat_map(|k| k.dirs(sb))) {
            let _ = if p.is_dir() { fs::remove_dir_all(&p) } else { fs::remove_file(&p) };
        }
    }
    let _ = fs::remove_dir_all(entry);
}
