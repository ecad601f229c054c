//! Long-running programs a sandbox of several processes starts itself (a
//! cluster manager, etcd, a proxy): each as the service account, in a
//! process group of its own, its output in a log and its pid in a file;
//! and the waiting and HTTP probing such a start needs.

use super::common::{io, log_file};
use super::{environ, Sandbox};
use crate::error::{Error, Result};
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Runs `step` every 200 ms until it says ready (Ok(true)), fails, Ctrl-C
/// arrives, or the deadline passes (Ok(false)).
pub fn wait(deadline: Instant, step: &mut dyn FnMut() -> Result<bool>) -> Result<bool> {
    loop {
        if step()? {
            return Ok(true);
        }
        if crate::model::interrupted() {
            return Err(Error::Interrupted);
        }
        if Instant::now() > deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The body of an HTTP GET of `path` on 127.0.0.1:`port` (etcd's and
/// Patroni's APIs answer HTTP/1.0 and close).
pub fn http_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(500)).ok()?;
    s.set_read_timeout(Some(Duration::from_millis(1000))).ok()?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").as_bytes()).ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    out.split_once("\r\n\r\n").map(|(_, body)| body.to_string())
}

/// uid and gid of an account.
fn ids(user: &str) -> Result<(u32, u32)> {
    let name = std::ffi::CString::new(user).map_err(|e| io(user, e))?;
    // SAFETY: getpwnam gets a NUL-terminated name; the record it returns is read
    // at once, before any other call that could reuse it.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    if pw.is_null() {
        return Err(Error::Io(format!("no account {user}: install the server package that makes it")));
    }
    // SAFETY: pw is not null (checked above) and points to a passwd record.
    Ok(unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

/// A long-running program of the cluster, as `user`, in a process group of
/// its own (a Ctrl-C in the terminal reaches only fairbench), its output in `log`.
pub fn spawn(prog: &Path, args: &[String], user: &Option<String>, home: &Path, log: &Path, pidfile: &Path) -> Result<Child> {
    let mut c = environ::command(prog);
    c.args(args).current_dir("/").stdin(Stdio::null()).stdout(log_file(log)?).stderr(log_file(log)?).process_group(0);
    if let Some(u) = user {
        let (uid, gid) = ids(u)?;
        c.uid(uid).gid(gid);
    }
    // Patroni reads PATRONI_* variables over its config file, and its
    // pg_basebackup the user's PGPASSWORD over the passfile Patroni writes:
    // environ::command leaves them out.
    c.env("HOME", home);
    let child = c.spawn().map_err(|e| io(prog.display(), e))?;
    fs::write(pidfile, child.id().to_string()).map_err(|e| io(pidfile.display(), e))?;
    Ok(child)
}

/// etcd, a cluster of one, on two of the sandbox's ports, its data in `etcd/`.
pub fn etcd(sb: &Sandbox, client_port: u16, peer_port: u16, etcd: &Path, user: &Option<String>) -> Result<Child> {
    let client = format!("http://127.0.0.1:{}", client_port);
    let peer = format!("http://127.0.0.1:{}", peer_port);
    let data = sb.dir.join("etcd").display().to_string();
    let args = [
        ("--name", "etcd"),
        ("--data-dir", &data),
        ("--listen-client-urls", &client),
        ("--advertise-client-urls", &client),
        ("--listen-peer-urls", &peer),
        ("--initial-advertise-peer-urls", &peer),
        ("--initial-cluster", &format!("etcd={peer}")),
        ("--initial-cluster-state", "new"),
        ("--initial-cluster-token", &sb.name),
    ];
    let args: Vec<String> = args.iter().flat_map(|(k, v)| [k.to_string(), v.to_string()]).collect();
    spawn(etcd, &args, user, &sb.dir, &sb.dir.join("etcd.log"), &sb.dir.join("etcd.pid"))
}

/// A pid from a file, if that process is alive and runs from `dir`.
pub fn pid_in(file: &Path, dir: &Path) -> Option<i32> {
    let pid = fs::read_to_string(file).ok()?.lines().next()?.trim().parse::<i32>().ok()?;
    super::common::pid_is_ours(pid, dir).then_some(pid)
}

/// Sends `sig` to each of `pids`.
pub fn signal(pids: &[i32], sig: i32) {
    for &pid in pids {
        // SAFETY: kill has no memory-safety preconditions; each pid was checked to run from the sandbox.
        unsafe { libc::kill(pid, sig) };
    }
}

/// Waits until none of `pids` runs from `dir` any more; false after `limit`.
pub fn gone(pids: &[i32], dir: &Path, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    loop {
        if pids.iter().all(|&p| !super::common::pid_is_ours(p, dir)) {
            return true;
        }
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
