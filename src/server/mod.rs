//! Throwaway server sandboxes: a server started from the locally installed
//! (or locally built) binaries of one of the registered kinds (kinds/), in
//! a directory and ports of its own, configured by a profile. System
//! services, their data and their config files are never touched (the
//! servers read only the files written here).

pub mod builds;
pub mod client;
mod common;
pub mod daemon;
pub mod environ;
mod http;
pub mod kinds;
pub mod profile;

use crate::error::{Error, Result};
use crate::usage;
pub use client::pg_bindir;
use common::{claim, io, is_known, load, norm, reachable, remove, service_user, write_state, MARKER, PORT_TAKEN};
pub use common::{missing, Bins};
pub use kinds::{Kind, KindArgs, SandboxKind};
pub use profile::Machine;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where sandboxes are registered (one entry per running sandbox, named
/// `ENGINE-PORT`): the entry is created before the server starts, so two
/// sandboxes started at once never take the same port.
pub fn root() -> PathBuf {
    match std::env::var_os("FAIRBENCH_SANDBOX_ROOT") {
        Some(r) if !r.is_empty() => PathBuf::from(r),
        _ => PathBuf::from("/tmp/fairbench-sandboxes"),
    }
}

pub use crate::cache::bin_dir as cache_bin_dir;

/// How to start one sandbox.
#[derive(Clone, Debug)]
pub struct StartOpts {
    pub kind: Kind,
    pub profile: String,
    pub sets: Vec<(String, String)>,
    pub port: Option<u16>,
    pub dir: Option<PathBuf>,
    pub user: String,
    pub password: String,
    pub database: String,
    pub machine: Machine,
    /// A directory with ca.pem, server.pem and server.key: the server offers TLS.
    pub tls_dir: Option<PathBuf>,
    /// An account (same password) that may connect only over TLS.
    pub tls_only_user: Option<String>,
    pub timeout: Duration,
    /// The options only some kinds take (a cluster's nodes, a sharded
    /// server's shards), each kind's declared and read in its own file.
    pub kind_args: kinds::KindArgs,
    /// A build of the user's choice (`--basedir`, `--version`); None: the installed one.
    pub build: Option<builds::Build>,
}

/// A running sandbox, as stored in its directory.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Sandbox {
    pub name: String,
    /// Its kind's name (`mariadb`, `patroni`...); the state file calls it `engine`.
    #[serde(rename = "engine")]
    pub kind: String,
    pub version: String,
    pub dir: PathBuf,
    pub port: u16,
    /// MariaDB: the socket file; PostgreSQL: the socket's directory.
    pub socket: PathBuf,
    pub url: String,
    pub profile: String,
    pub settings: Vec<(String, String)>,
    pub notes: Vec<String>,
    /// Whether `stop` removes `dir` (it was made by `start`).
    pub owns_dir: bool,
    /// TiDB: the port of its HTTP status API (/status, /metrics), on 127.0.0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_port: Option<u16>,
    /// A cluster's nodes, etcd and patronictl config; `url` is then the
    /// multi-host URL of every node, `port` the first node's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<kinds::Cluster>,
    /// A sharded cluster's shards, tablets and routers; `url` is then its router's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<kinds::Shards>,
    /// Where its server's build came from, when not the installed one (`--basedir`, `--version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl Sandbox {
    pub fn kind(&self) -> Kind {
        Kind::of(&self.kind)
    }

    /// `export` lines for a shell.
    pub fn env_lines(&self) -> String {
        let q = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
        let mut s = format!(
            "export FAIRBENCH_SANDBOX_DIR={}\nexport FAIRBENCH_SANDBOX_URL={}\nexport FAIRBENCH_SANDBOX_SOCKET={}\nexport FAIRBENCH_SANDBOX_PORT={}\n",
            q(&self.dir.display().to_string()),
            q(&self.url),
            q(&self.socket.display().to_string()),
            self.port
        );
        if let Some(p) = self.status_port {
            s.push_str(&format!("export FAIRBENCH_SANDBOX_STATUS_PORT={p}\n"));
        }
        s.push_str(&self.kind().env_lines(self, &q));
        s
    }

    /// Lines to say once it is up besides its URL (a cluster's nodes).
    pub fn details(&self) -> Vec<String> {
        self.kind().details(self)
    }
}

/// Starts a sandbox and waits until it accepts connections. On any failure
/// (or Ctrl-C) nothing is left running and the directory is removed.
pub fn start(o: &StartOpts) -> Result<Sandbox> {
    let kind = o.kind;
    o.kind_args.refuse_others(kind)?;
    kind.check(o)?;
    let b = match &o.build {
        Some(build) => kind.binaries_in(&build.bindir)?,
        None => kind.binaries()?,
    };
    let user = service_user(kind);
    if let Some(u) = &user {
        reachable(o.dir.as_deref().unwrap_or(&root()), u)?;
        if let Some(build) = &o.build {
            reachable(&build.bindir, u)?;
        }
    }
    let resolved = profile::resolve(&o.profile, kind, &o.machine)?;
    let known = kind.known_settings(&b, &user);
    let ver = kind.version(&b);
    let mut notes = resolved.notes.clone();
    let mut settings: Vec<(String, String)> = Vec::new();
    for (k, v) in &resolved.settings {
        let n = norm(k);
        if !is_known(&known, kind, &n) {
            notes.push(format!("{k} = {v} dropped: {} {ver} has no such setting", kind.name()));
            continue;
        }
        settings.push((n, v.clone()));
    }
    for (k, v) in &o.sets {
        let n = norm(k);
        if !is_known(&known, kind, &n) {
            return Err(usage!("--set {k}: {} {ver} has no setting of that name", kind.name()));
        }
        settings.retain(|(s, _)| *s != n);
        settings.push((n, v.clone()));
    }
    kind.check_settings(&mut settings, &mut notes, &o.sets)?;
    // Another program (or a sandbox of another registry) can bind the port
    // between the claim and the server's start: the server then exits on
    // "Address already in use" and the next free port is tried.
    let mut attempts = if o.port.is_some() { 1 } else { 5 };
    loop {
        attempts -= 1;
        match start_once(o, &b, &user, &ver, &resolved.name, &settings, &notes) {
            Err(e) if attempts > 0 && matches!(&e, Error::Io(m) if m.contains(PORT_TAKEN)) => continue,
            r => return r,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn start_once(o: &StartOpts, b: &Bins, user: &Option<String>, ver: &str, profile: &str, settings: &[(String, String)], notes: &[String]) -> Result<Sandbox> {
    let kind = o.kind;
    let (port, entry) = claim(kind, o.port)?;
    let status_port = match kind.status_port(port) {
        Ok(p) => p,
        Err(e) => {
            let _ = fs::remove_dir_all(&entry);
            return Err(e);
        }
    };
    let (dir, owns_dir) = match &o.dir {
        Some(d) => (d.clone(), !d.exists()),
        None => (entry.clone(), true),
    };
    let mut sb = Sandbox {
        name: format!("{}-{port}", kind.name()),
        kind: kind.name().into(),
        version: ver.to_string(),
        dir: dir.clone(),
        port,
        socket: PathBuf::new(),
        url: String::new(),
        profile: profile.to_string(),
        settings: settings.to_vec(),
        notes: notes.to_vec(),
        owns_dir,
        status_port,
        cluster: None,
        shards: None,
        origin: o.build.as_ref().map(|b| b.origin.clone()),
    };
    kind.lay_out(o, &mut sb, b);
    let r = (|| {
        if sb.dir != entry {
            fs::create_dir_all(&dir).map_err(|e| io(dir.display(), e))?;
            fs::write(entry.join("dir"), dir.display().to_string()).map_err(|e| io(entry.display(), e))?;
        }
        let _ = fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755));
        write_state(&sb)?;
        kind.start(o, &mut sb, b, user)
    })();
    match r {
        Ok(()) => Ok(sb),
        Err(e) => {
            kind.kill(&sb);
            remove(&sb, &entry);
            Err(e)
        }
    }
}

/// Whether the sandbox's server process is running.
pub fn is_running(sb: &Sandbox) -> bool {
    sb.kind().is_running(sb)
}

/// Stops the server (a clean shutdown, SIGKILL after `limit`), then removes
/// its directory when `start` made it, and its registry entry.
pub fn stop(sb: &Sandbox, limit: Duration) -> Result<()> {
    sb.kind().stop(sb, limit);
    remove(sb, &root().join(&sb.name));
    Ok(())
}

/// Every registered sandbox (those whose directory is gone are forgotten).
/// Where the build of the sandbox on 127.0.0.1:`port` came from, when it is not the installed
/// one (`--basedir`, `--version`): read only, so a run's snapshot never tidies the registry.
pub fn origin_on_port(port: u16) -> Option<String> {
    fs::read_dir(root()).into_iter().flatten().flatten().find_map(|e| {
        let entry = e.path();
        let dir = fs::read_to_string(entry.join("dir")).map(PathBuf::from).unwrap_or(entry);
        load(&dir).filter(|sb| sb.port == port).and_then(|sb| sb.origin)
    })
}

/// The pool of the pooler sandbox on 127.0.0.1:`port` (see [`kinds::SandboxKind::pool`]), read
/// only as [`origin_on_port`] is.
pub fn pool_on_port(port: u16) -> Option<String> {
    fs::read_dir(root()).into_iter().flatten().flatten().find_map(|e| {
        let entry = e.path();
        let dir = fs::read_to_string(entry.join("dir")).map(PathBuf::from).unwrap_or(entry);
        load(&dir).filter(|sb| sb.port == port).and_then(|sb| sb.kind().pool(&sb))
    })
}

pub fn list() -> Vec<Sandbox> {
    let mut v = Vec::new();
    for e in fs::read_dir(root()).into_iter().flatten().flatten() {
        let entry = e.path();
        let dir = fs::read_to_string(entry.join("dir")).map(PathBuf::from).unwrap_or_else(|_| entry.clone());
        match load(&dir) {
            Some(sb) => v.push(sb),
            // Half-made entries of a start in progress are left alone for a minute.
            None => {
                let old = e.metadata().and_then(|m| m.modified()).map(|t| t.elapsed().unwrap_or_default() > Duration::from_secs(60)).unwrap_or(true);
                if old && !dir.join(MARKER).exists() {
                    let _ = fs::remove_dir_all(&entry);
                }
            }
        }
    }
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// A sandbox by name (`mariadb-13306`), port or directory.
pub fn find(what: &str) -> Result<Sandbox> {
    let p = Path::new(what);
    if p.join(MARKER).exists() {
        return load(p).ok_or_else(|| usage!("{what}: unreadable sandbox state"));
    }
    list().into_iter().find(|s| s.name == what || s.port.to_string() == what || s.dir == p).ok_or_else(|| usage!("no sandbox {what:?}: `fairbench server list` shows the running ones"))
}

/// `server list` as text.
pub fn list_text(v: &[Sandbox]) -> String {
    if v.is_empty() {
        return "No sandboxes running.\n".into();
    }
    let mut s = format!("{:<16} {:<8} {:<34} {:<18} {:<7} {}\n", "NAME", "STATE", "VERSION", "PROFILE", "PORT", "DIR");
    for b in v {
        s.push_str(&format!("{:<16} {:<8} {:<34} {:<18} {:<7} {}\n", b.name, if is_running(b) { "running" } else { "stopped" }, b.version, b.profile, b.port, b.dir.display()));
    }
    s
}
