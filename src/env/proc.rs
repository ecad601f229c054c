//! What the hardware did, read from Linux's /proc: the host's CPU time by
//! mode, context switches and swapping, and a server's processes (found by
//! the socket or port it listens on) with their CPU time and context
//! switches. Each reader returns cumulative counters as `prefix:name`
//! entries, which the sampler turns into per-interval deltas like the
//! server's own counters. Elsewhere than Linux every reader gives nothing,
//! and the figures built on them are absent, never zero.

use std::collections::BTreeMap;
use std::path::Path;

/// Counter names: the host's (where the server runs), the server's
/// processes', and fairbench's own.
pub const HOST: &str = "host:";
pub const SERVER: &str = "server:";
pub const CLIENT: &str = "client:";
/// The server host's, from its node exporter (env/node.rs).
pub const NODE: &str = "node:";
/// One part of a server made of several processes (`part:NAME:cpu_user_s`):
/// a router and the shard servers behind it; `server:` is then their sum.
pub const PART: &str = "part:";

/// The figures of a server made of several parts, each a (name, root pid)
/// found where it listens: every part's own under `part:NAME:` (parts of
/// one name summed), and their total under `server:`. A process that is two
/// parts at once counts once.
pub fn parts(parts: &[(String, i32)]) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    let mut seen = Vec::new();
    for (name, pid) in parts {
        if seen.contains(pid) {
            continue;
        }
        seen.push(*pid);
        for (k, v) in server(*pid) {
            let figure = k.strip_prefix(SERVER).unwrap_or(&k);
            *m.entry(format!("{PART}{name}:{figure}")).or_insert(0.0) += v;
            *m.entry(k).or_insert(0.0) += v;
        }
    }
    m
}

/// Clock ticks per second of /proc's CPU times.
fn ticks() -> f64 {
    // SAFETY: sysconf reads a constant of the running system.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// /proc/stat's CPU modes, in order after the "cpu" label.
const MODES: &[&str] = &["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"];

/// The host: CPU seconds by mode (all CPUs), context switches, pages swapped in and out.
pub fn host() -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    let Ok(stat) = std::fs::read_to_string("/proc/stat") else { return m };
    let hz = ticks();
    for l in stat.lines() {
        let mut f = l.split_ascii_whitespace();
        match f.next() {
            Some("cpu") => {
                for (mode, v) in MODES.iter().zip(f) {
                    if let Ok(v) = v.parse::<f64>() {
                        m.insert(format!("{HOST}{mode}_s"), v / hz);
                    }
                }
            }
            Some("ctxt") => {
                if let Some(v) = f.next().and_then(|v| v.parse().ok()) {
                    m.insert(format!("{HOST}ctxt"), v);
                }
            }
            _ => {}
        }
    }
    if let Ok(vm) = std::fs::read_to_string("/proc/vmstat") {
        for l in vm.lines() {
            if let Some((k, v)) = l.split_once(' ') {
                if k == "pswpin" || k == "pswpout" {
                    if let Ok(v) = v.trim().parse::<f64>() {
                        m.insert(format!("{HOST}{}", if k == "pswpin" { "swap_in" } else { "swap_out" }), v);
                    }
                }
            }
        }
    }
    m
}

/// fairbench's own CPU seconds (user, system).
pub fn client() -> BTreeMap<String, f64> {
    let (user, sys) = crate::stats::process_cpu();
    let mut m = BTreeMap::from([(format!("{CLIENT}cpu_user_s"), user), (format!("{CLIENT}cpu_sys_s"), sys)]);
    // An embedded engine's storage IO is this process's.
    let (read, written) = io_of(std::process::id() as i32);
    m.insert(format!("{CLIENT}read_bytes"), read);
    m.insert(format!("{CLIENT}write_bytes"), written);
    m.extend(own_memory().map(|b| (format!("{CLIENT}rss_bytes"), b)));
    m
}

/// Whether a figure here is a level, not a counter (memory, size: each sample keeps the value it
/// read), whoever's it is (`client:`, `server:`, a `part:NAME:`).
pub fn is_gauge(key: &str) -> bool {
    key.ends_with(":rss_bytes") || key.ends_with(":db_bytes")
}

/// fairbench's own memory, as the samples read it (see [`memory_of`]), in bytes.
pub fn own_memory() -> Option<f64> {
    memory_of(std::process::id() as i32)
}

/// The memory a process holds: its proportional set size (shared pages split between the
/// processes that map them, so PostgreSQL's shared buffers count once over its backends), or
/// its resident set where the kernel gives no PSS.
fn memory_of(pid: i32) -> Option<f64> {
    if let Ok(r) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) {
        if let Some(kb) = r.lines().find_map(|l| l.strip_prefix("Pss:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok()) {
            return Some(kb * 1024.0);
        }
    }
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: f64 = statm.split_ascii_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the running system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * page.max(4096) as f64)
}

/// The space a database takes on disk (blocks allocated, as `du` counts them): a data
/// directory's whole tree, or a file with its `-wal` and `-shm` beside it (SQLite).
pub fn disk_bytes(path: &Path) -> Option<f64> {
    use std::os::unix::fs::MetadataExt;
    fn walk(p: &Path, depth: usize) -> u64 {
        let Ok(m) = std::fs::symlink_metadata(p) else { return 0 };
        let own = m.blocks() * 512;
        if !m.is_dir() || depth > 8 {
            return own;
        }
        own + std::fs::read_dir(p).into_iter().flatten().filter_map(|e| e.ok()).map(|e| walk(&e.path(), depth + 1)).sum::<u64>()
    }
    let m = std::fs::metadata(path).ok()?;
    if m.is_dir() {
        return Some(walk(path, 0) as f64);
    }
    let mut total = m.blocks() * 512;
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        total += std::fs::metadata(Path::new(&side)).map(|m| m.blocks() * 512).unwrap_or(0);
    }
    Some(total as f64)
}

/// One process's figures from /proc/PID/stat: (parent, user s, system s,
/// children's user s, children's system s). The command name may hold
/// spaces and parentheses: the fields start after its last ')'.
fn stat_of(pid: i32, hz: f64) -> Option<(i32, f64, f64, f64, f64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_ascii_whitespace().collect();
    // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok());
    Some((n(1)? as i32, n(11)? / hz, n(12)? / hz, n(13)? / hz, n(14)? / hz))
}

/// Voluntary and involuntary context switches of every thread of `pid`.
fn switches_of(pid: i32) -> (f64, f64) {
    let mut total = (0.0, 0.0);
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().filter_map(|e| e.ok());
    for t in tasks {
        let Ok(status) = std::fs::read_to_string(t.path().join("status")) else { continue };
        for l in status.lines() {
            let num = |p: &str| l.strip_prefix(p).and_then(|v| v.trim().parse::<f64>().ok());
            if let Some(v) = num("voluntary_ctxt_switches:") {
                total.0 += v;
            } else if let Some(v) = num("nonvoluntary_ctxt_switches:") {
                total.1 += v;
            }
        }
    }
    total
}

/// Bytes a process made the storage read and write (/proc/PID/io; what the
/// page cache served is not in them).
fn io_of(pid: i32) -> (f64, f64) {
    let Ok(io) = std::fs::read_to_string(format!("/proc/{pid}/io")) else { return (0.0, 0.0) };
    let num = |k: &str| io.lines().find_map(|l| l.strip_prefix(k)).and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(0.0);
    (num("read_bytes:"), num("write_bytes:"))
}

fn pids() -> Vec<i32> {
    std::fs::read_dir("/proc").into_iter().flatten().filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect()
}

/// The processes below `root` with their (user s, system s).
///
/// A process and every process below it, the root first.
pub fn tree(root: i32) -> Vec<i32> {
    std::iter::once(root).chain(descendants(root, ticks()).into_iter().map(|(p, _, _)| p)).collect()
}

/// The kernel lists each thread's children (/proc/PID/task/TID/children):
/// a server's tree is read from those lists, a few files, instead of every
/// process's stat on the machine each second. The sampler's work is
/// work the measured run does not do under another tool: on a 2-core
/// machine, MariaDB's socket, 16 clients, point selects without the
/// sampler matched sysbench's rate while with it they fell behind (its
/// burst once a second moves client and server threads between the cores,
/// measured as more rescheduling interrupts per query), so it reads as
/// little as it can. Without those lists (a kernel built without them),
/// every process is read and the tree is made from parents.
fn descendants(root: i32, hz: f64) -> Vec<(i32, f64, f64)> {
    // A thread or process gone between two reads has no children left to list.
    let children = |pid: i32| -> Vec<i32> {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten();
        let lists = tasks.filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok());
        lists.flat_map(|l| l.split_ascii_whitespace().filter_map(|p| p.parse::<i32>().ok()).collect::<Vec<_>>()).collect()
    };
    if std::path::Path::new(&format!("/proc/{root}/task/{root}/children")).exists() {
        let mut out = Vec::new();
        let mut todo = children(root);
        // A bound, in case a pid is reused into a loop between two reads.
        while let Some(pid) = todo.pop().filter(|_| out.len() < 100_000) {
            if let Some((_, u, s, _, _)) = stat_of(pid, hz) {
                out.push((pid, u, s));
                todo.extend(children(pid));
            }
        }
        return out;
    }
    let mut parent: BTreeMap<i32, i32> = BTreeMap::new();
    let mut cpu: BTreeMap<i32, (f64, f64)> = BTreeMap::new();
    for pid in pids() {
        if let Some((pp, u, s, _, _)) = stat_of(pid, hz) {
            parent.insert(pid, pp);
            cpu.insert(pid, (u, s));
        }
    }
    let below = |mut p: i32| {
        for _ in 0..64 {
            if p == root {
                return true;
            }
            match parent.get(&p) {
                Some(&pp) if pp > 0 && pp != p => p = pp,
                _ => return false,
            }
        }
        false
    };
    cpu.into_iter().filter(|&(p, _)| p != root && below(p)).map(|(p, (u, s))| (p, u, s)).collect()
}

/// A server's processes: `root` and every process below it (PostgreSQL's
/// backends). CPU is the live processes' plus what the root's exited
/// children used (backends that came and went between samples); the
/// context switches are the live threads' (an exited child's are lost: the
/// kernel keeps no children's total of them).
pub fn server(root: i32) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    let hz = ticks();
    let Some((_, ru, rs, cu, cs)) = stat_of(root, hz) else { return m };
    let below = descendants(root, hz);
    let (mut user, mut sys, mut vol, mut invol, mut n) = (ru + cu, rs + cs, 0.0, 0.0, 0.0);
    let (v, i) = switches_of(root);
    (vol, invol) = (vol + v, invol + i);
    // The root's IO counts its reaped children's too, as its CPU does.
    let (mut read, mut written) = io_of(root);
    for (pid, u, s) in below {
        user += u;
        sys += s;
        let (v, i) = switches_of(pid);
        vol += v;
        invol += i;
        let (r, w) = io_of(pid);
        read += r;
        written += w;
        n += 1.0;
    }
    m.insert(format!("{SERVER}read_bytes"), read);
    m.insert(format!("{SERVER}write_bytes"), written);
    m.insert(format!("{SERVER}cpu_user_s"), user);
    m.insert(format!("{SERVER}cpu_sys_s"), sys);
    m.insert(format!("{SERVER}vol_cs"), vol);
    m.insert(format!("{SERVER}invol_cs"), invol);
    m.insert(format!("{SERVER}processes"), n + 1.0);
    let rss: f64 = tree(root).into_iter().filter_map(memory_of).sum();
    if rss > 0.0 {
        m.insert(format!("{SERVER}rss_bytes"), rss);
    }
    m
}

/// The process listening on TCP `port` (any local address), or on the unix
/// socket `path`: found by the socket's inode among every process's open files.
pub fn listener(port: Option<u16>, path: Option<&Path>) -> Option<i32> {
    let mut inodes = Vec::new();
    if let Some(port) = port {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let Ok(t) = std::fs::read_to_string(table) else { continue };
            for l in t.lines().skip(1) {
                let f: Vec<&str> = l.split_ascii_whitespace().collect();
                // local_address(1) = HEXADDR:HEXPORT, st(3) = 0A for LISTEN, inode(9).
                let listening = f.get(3) == Some(&"0A");
                let on_port = f.get(1).and_then(|a| a.rsplit_once(':')).and_then(|(_, p)| u16::from_str_radix(p, 16).ok()) == Some(port);
                if listening && on_port {
                    inodes.extend(f.get(9).and_then(|i| i.parse::<u64>().ok()));
                }
            }
        }
    }
    if let Some(path) = path {
        let want = path.to_string_lossy();
        if let Ok(t) = std::fs::read_to_string("/proc/net/unix") {
            for l in t.lines().skip(1) {
                let f: Vec<&str> = l.split_ascii_whitespace().collect();
                // Inode(6), path(7); a listening socket has state 01 and flags 00010000.
                if f.get(7).is_some_and(|p| *p == want) && f.get(3) == Some(&"00010000") {
                    inodes.extend(f.get(6).and_then(|i| i.parse::<u64>().ok()));
                }
            }
        }
    }
    if inodes.is_empty() {
        return None;
    }
    let wanted: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    let mut found: Vec<i32> = Vec::new();
    for pid in pids() {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for fd in fds.filter_map(|e| e.ok()) {
            if std::fs::read_link(fd.path()).is_ok_and(|t| wanted.iter().any(|w| t.as_os_str() == w.as_str())) {
                found.push(pid);
                break;
            }
        }
    }
    // Several processes share a listening socket after a fork (PostgreSQL's
    // children): the server is the one whose parent does not hold it.
    let parent = |p: i32| stat_of(p, 1.0).map(|s| s.0);
    found.iter().copied().find(|p| parent(*p).is_none_or(|pp| !found.contains(&pp)))
}

/// The whole disk (as /proc/diskstats names it) that holds `path`; None
/// for a file system on no block device (tmpfs, overlay) or elsewhere than Linux.
pub fn disk_of(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    if major == 0 {
        return None;
    }
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    // A partition's directory sits inside its disk's.
    let disk = if sys.join("partition").exists() { sys.parent()? } else { &sys };
    disk.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// The name of a process (its command), for saying which server was measured.
/// The executable a process runs (None when it is not ours to read).
pub fn executable(pid: i32) -> Option<String> {
    std::fs::read_link(format!("/proc/{pid}/exe")).ok().map(|p| p.display().to_string())
}

pub fn command(pid: i32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).ok().map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_found_by_the_port_it_listens_on_and_measured() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert_eq!(listener(Some(port), None), Some(std::process::id() as i32));
        // Burn a little CPU so the figures move.
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed().as_millis() < 50 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        assert!(x != 1);
        let m = server(std::process::id() as i32);
        assert!(m[&format!("{SERVER}cpu_user_s")] > 0.0, "{m:?}");
        assert!(m[&format!("{SERVER}vol_cs")] + m[&format!("{SERVER}invol_cs")] > 0.0, "{m:?}");
        let h = host();
        assert!(h[&format!("{HOST}idle_s")] > 0.0 && h[&format!("{HOST}ctxt")] > 0.0, "{h:?}");
    }

    #[test]
    fn a_unix_socket_listener_is_found_by_its_path() {
        let dir = std::env::temp_dir().join(format!("fb-proc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.sock");
        let _l = std::os::unix::net::UnixListener::bind(&path).unwrap();
        assert_eq!(listener(None, Some(&path)), Some(std::process::id() as i32));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_process_that_is_two_parts_counts_once_and_the_server_is_their_sum() {
        let me = std::process::id() as i32;
        let m = parts(&[("front".into(), me), ("back".into(), me)]);
        assert!(m.contains_key("part:front:cpu_user_s"), "{m:?}");
        assert!(!m.keys().any(|k| k.starts_with("part:back:")), "{m:?}");
        assert_eq!(m["server:cpu_user_s"], m["part:front:cpu_user_s"]);
    }
}
