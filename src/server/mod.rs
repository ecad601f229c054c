//! Throwaway server sandboxes: a MariaDB or PostgreSQL server started from
//! the locally installed binaries, a tidb-server (built once by
//! scripts/build-tidb.sh), or a PostgreSQL cluster run by Patroni
//! (patroni.rs), in a directory and ports of its own, configured by a
//! profile. System services, their data and their config files are never
//! touched (the servers read only the files written here).

pub mod environ;
pub mod patroni;
pub mod profile;

use crate::error::{Error, Result};
use crate::usage;
pub use profile::{Kind, Machine};
use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Marks a directory as a sandbox, so that `stop` never removes anything else.
const MARKER: &str = "sandbox.json";

/// Where sandboxes are registered (one entry per running sandbox, named
/// `ENGINE-PORT`): the entry is created before the server starts, so two
/// sandboxes started at once never take the same port.
pub fn root() -> PathBuf {
    match std::env::var_os("FAIRBENCH_SANDBOX_ROOT") {
        Some(r) if !r.is_empty() => PathBuf::from(r),
        _ => PathBuf::from("/tmp/fairbench-sandboxes"),
    }
}

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
    /// A cluster's number of PostgreSQL nodes (None: its default).
    pub nodes: Option<u32>,
    /// A cluster's synchronous replication.
    pub sync: bool,
}

/// A running sandbox, as stored in its directory.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Sandbox {
    pub name: String,
    pub engine: String,
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
    pub cluster: Option<patroni::Cluster>,
}

impl Sandbox {
    pub fn kind(&self) -> Kind {
        Kind::parse(&self.engine).unwrap_or(Kind::Mariadb)
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
        if let Some(c) = &self.cluster {
            s.push_str(&patroni::env_lines(c, &q));
        }
        s
    }

    /// Lines to say once it is up besides its URL (a cluster's nodes).
    pub fn details(&self) -> Vec<String> {
        self.cluster.as_ref().map(patroni::details).unwrap_or_default()
    }
}

fn io(what: impl std::fmt::Display, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{what}: {e}"))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A binary by name on PATH, in /usr/sbin, or in `extra` directories.
fn find_bin(names: &[&str], extra: &[PathBuf]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = extra.to_vec();
    dirs.extend(std::env::split_paths(&path));
    dirs.push("/usr/sbin".into());
    dirs.push("/usr/local/sbin".into());
    for n in names {
        for d in &dirs {
            let p = d.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// The newest PostgreSQL installed the Debian way, else what is on PATH.
pub fn pg_bindir() -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|v| v.parse::<u32>().ok()).map(|v| (v, e.path().join("bin"))))
        .filter(|(_, p)| p.join("initdb").is_file())
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, p)| p).or_else(|| find_bin(&["initdb"], &[]).and_then(|p| p.parent().map(Path::to_path_buf)))
}

/// Exit code for a server binary that is not installed.
pub fn missing(what: &str, package: &str) -> Error {
    Error::Usage(format!("{what} not found: install {package} (Debian: apt-get install {package})"))
}

struct Bins {
    server: PathBuf,
    /// mariadb-install-db / initdb; tidb-server bootstraps its store itself.
    init: Option<PathBuf>,
    client: PathBuf,
    ctl: Option<PathBuf>,
    /// A cluster's own programs (Patroni, etcd).
    cluster: Option<patroni::Tools>,
}

/// `FAIRBENCH_MARIADB_BINDIR` / `FAIRBENCH_PG_BINDIR`: the one directory to take a
/// server's binaries from (a build or tarball of another version), instead of the
/// installed packages.
fn bindir_override(kind: Kind) -> Option<PathBuf> {
    let var = match kind {
        Kind::Mariadb => "FAIRBENCH_MARIADB_BINDIR",
        // A cluster's nodes are PostgreSQL servers.
        Kind::Postgres | Kind::Patroni => "FAIRBENCH_PG_BINDIR",
        Kind::Tidb => return None,
    };
    std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// What to do when there is no tidb-server: no distribution packages it.
const BUILD_TIDB: &str = "build it with `bash scripts/build-tidb.sh` (once; about 6 minutes)";

/// tidb-server: `FAIRBENCH_TIDB` (a path), else on PATH, else where
/// scripts/build-tidb.sh puts it (~/.cache/fairbench/bin, XDG_CACHE_HOME respected).
fn tidb_server() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("FAIRBENCH_TIDB").filter(|v| !v.is_empty()).map(PathBuf::from) {
        return if p.is_file() { Ok(p) } else { Err(usage!("FAIRBENCH_TIDB={}: no such file: {BUILD_TIDB}, or point it at a tidb-server", p.display())) };
    }
    let cache = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("tidb-server"))
        .chain(cache.map(|c| c.join("fairbench/bin/tidb-server")))
        .find(|p| p.is_file())
        .ok_or_else(|| usage!("tidb-server not found (FAIRBENCH_TIDB, PATH, ~/.cache/fairbench/bin): {BUILD_TIDB}"))
}

fn in_dir(d: &Path, names: &[&str], package: &str) -> Result<PathBuf> {
    names.iter().map(|n| d.join(n)).find(|p| p.is_file()).ok_or_else(|| missing(&format!("{} in {}", names[0], d.display()), package))
}

fn bins(kind: Kind) -> Result<Bins> {
    // A cluster's own programs first: without them, that is what to install.
    let cluster = if kind == Kind::Patroni { Some(patroni::tools()?) } else { None };
    let mut b = match (kind, bindir_override(kind)) {
        (Kind::Mariadb, Some(d)) => Bins {
            server: in_dir(&d, &["mariadbd", "mysqld"], "mariadb-server")?,
            init: Some(in_dir(&d, &["mariadb-install-db", "mysql_install_db"], "mariadb-server")?),
            client: in_dir(&d, &["mariadb", "mysql"], "mariadb-client")?,
            ctl: None,
            cluster: None,
        },
        (Kind::Postgres | Kind::Patroni, Some(d)) => Bins {
            server: in_dir(&d, &["postgres"], "postgresql")?,
            init: Some(in_dir(&d, &["initdb"], "postgresql")?),
            client: in_dir(&d, &["psql"], "postgresql")?,
            ctl: Some(in_dir(&d, &["pg_ctl"], "postgresql")?),
            cluster: None,
        },
        (Kind::Mariadb, None) => Bins {
            server: find_bin(&["mariadbd", "mysqld"], &[]).ok_or_else(|| missing("mariadbd", "mariadb-server"))?,
            init: Some(find_bin(&["mariadb-install-db", "mysql_install_db"], &[]).ok_or_else(|| missing("mariadb-install-db", "mariadb-server"))?),
            client: find_bin(&["mariadb", "mysql"], &[]).ok_or_else(|| missing("the mariadb client", "mariadb-client"))?,
            ctl: None,
            cluster: None,
        },
        (Kind::Postgres | Kind::Patroni, None) => {
            let d = pg_bindir().ok_or_else(|| missing("PostgreSQL (initdb)", "postgresql"))?;
            let need = |n: &str| if d.join(n).is_file() { Ok(d.join(n)) } else { Err(missing(&format!("{}/{n}", d.display()), "postgresql")) };
            Bins { server: need("postgres")?, init: Some(need("initdb")?), client: need("psql")?, ctl: Some(need("pg_ctl")?), cluster: None }
        }
        (Kind::Tidb, _) => Bins {
            server: tidb_server()?,
            init: None,
            // TiDB speaks MySQL's protocol: the MariaDB client probes it and makes the accounts.
            client: find_bin(&["mariadb", "mysql"], &[]).ok_or_else(|| missing("the mariadb client", "mariadb-client"))?,
            ctl: None,
            cluster: None,
        },
    };
    b.cluster = cluster;
    Ok(b)
}

/// The account the server runs as: itself when not root, else the packaged
/// service user (the servers refuse root, or should not run as it). A
/// tidb-server that was built here has no service user: it runs as us.
fn service_user(kind: Kind) -> Option<String> {
    if !is_root() {
        return None;
    }
    let u = match kind {
        Kind::Mariadb => "mysql",
        Kind::Postgres | Kind::Patroni => "postgres",
        Kind::Tidb => return None,
    };
    Some(u.to_string())
}

/// The service account must reach the sandbox's directory: a server run as
/// `postgres` or `mysql` under a directory only root may enter (`/root/x`)
/// would fail later with a permission error in its own log (initdb's
/// password file, etcd's data directory), after processes were started.
/// The first ancestor it cannot enter is named, before anything starts.
fn reachable(dir: &Path, user: &str) -> Result<()> {
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

fn chown(path: &Path, user: &Option<String>) -> Result<()> {
    let Some(u) = user else { return Ok(()) };
    let st = environ::command("chown").arg("-R").arg(format!("{u}:")).arg(path).stdin(Stdio::null()).output().map_err(|e| io("chown", e))?;
    if !st.status.success() {
        return Err(io(format!("chown {u} {}", path.display()), String::from_utf8_lossy(&st.stderr).trim()));
    }
    Ok(())
}

/// A command run as `user` (through runuser when we are root), from `/`.
fn as_user(user: &Option<String>, prog: &Path) -> Command {
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

fn log_file(p: &Path) -> Result<Stdio> {
    Ok(Stdio::from(fs::OpenOptions::new().create(true).append(true).open(p).map_err(|e| io(p.display(), e))?))
}

/// The last non-empty line of a log, for a one-line error.
fn last_line(p: &Path) -> String {
    let t = fs::read_to_string(p).unwrap_or_default();
    let l = t.lines().rev().find(|l| l.contains("ERROR") || l.contains("FATAL") || l.contains("rror")).or_else(|| t.lines().rev().find(|l| !l.trim().is_empty()));
    // TiDB's fatal lines end in Go stack traces.
    l.map_or("(empty log)", |l| l.split(" [stack=").next().unwrap_or(l)).trim().to_string()
}

/// Waits for `child`, watching for Ctrl-C (then it is killed).
fn wait_child(mut child: Child, what: &str, log: &Path, limit: Duration) -> Result<()> {
    let end = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().map_err(|e| io(what, e))? {
            return if st.success() { Ok(()) } else { Err(Error::Io(format!("{what} failed: {} (log: {})", last_line(log), log.display()))) };
        }
        if crate::model::interrupted() || Instant::now() > end {
            // The whole group: mariadb-install-db and initdb leave a bootstrapping
            // server behind that would go on writing into the directory being removed.
            // SAFETY: kill has no memory-safety preconditions; the group is our child's own.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            return Err(if crate::model::interrupted() { Error::Interrupted } else { Error::Io(format!("{what} did not finish within {}s (log: {})", limit.as_secs(), log.display())) });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn port_free(p: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", p)).is_ok()
}

/// Claims a port and the registry entry `ENGINE-PORT` in one step; a
/// cluster claims a block of ports from it (see [`block`]).
fn claim(kind: Kind, want: Option<u16>) -> Result<(u16, PathBuf)> {
    let reg = root();
    fs::create_dir_all(&reg).map_err(|e| io(reg.display(), e))?;
    let _ = fs::set_permissions(&reg, std::os::unix::fs::PermissionsExt::from_mode(0o755));
    let base = want.unwrap_or(match kind {
        Kind::Mariadb => 13306,
        Kind::Postgres => 15432,
        Kind::Tidb => 14000,
        Kind::Patroni => patroni::BASE_PORT,
    });
    let width = block(kind);
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

/// The ports a sandbox takes from its port on.
fn block(kind: Kind) -> u16 {
    if kind == Kind::Patroni {
        patroni::PORTS
    } else {
        1
    }
}

/// TiDB's status port: its own default's distance from the SQL port (4000 and
/// 10080), or the next free one above.
fn claim_status_port(port: u16) -> Result<u16> {
    let base = port.checked_add(6080).unwrap_or(10080);
    (base..base.saturating_add(200)).find(|&p| p != port && port_free(p)).ok_or_else(|| Error::Io(format!("no free port for TiDB's status API in {base}..{}", base.saturating_add(200))))
}

/// Settings the installed server knows, by name with `-` as `_`.
fn known_settings(kind: Kind, b: &Bins, user: &Option<String>) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    match kind {
        Kind::Mariadb => {
            if let Ok(o) = environ::command(&b.server).args(["--no-defaults", "--verbose", "--help"]).stdin(Stdio::null()).stderr(Stdio::null()).output() {
                let text = String::from_utf8_lossy(&o.stdout);
                let mut in_vars = false;
                for l in text.lines() {
                    if l.starts_with("Variables (--variable-name=value)") {
                        in_vars = true;
                        continue;
                    }
                    let t = l.trim_start();
                    if let Some(rest) = t.strip_prefix("--") {
                        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
                        set.insert(name.replace('-', "_"));
                    } else if in_vars && !l.starts_with(' ') {
                        if let Some(n) = l.split_whitespace().next() {
                            set.insert(n.replace('-', "_"));
                        }
                    }
                }
            }
        }
        // TiDB's system variables are known only to a running server: each is
        // tried with SET GLOBAL once it is up.
        Kind::Tidb => {}
        Kind::Postgres | Kind::Patroni => {
            if let Ok(o) = as_user(user, &b.server).arg("--describe-config").stderr(Stdio::null()).output() {
                for l in String::from_utf8_lossy(&o.stdout).lines() {
                    if let Some(n) = l.split('\t').next() {
                        set.insert(n.to_string());
                    }
                }
            }
        }
    }
    set
}

/// Settings that belong to a plugin loaded by the same config, or that are
/// given `loose-` (ignored when unknown): the server judges them itself.
fn judged_by_server(kind: Kind, key: &str) -> bool {
    match kind {
        Kind::Mariadb => ["s3_", "rocksdb_", "loose_", "provider_", "plugin_"].iter().any(|p| key.starts_with(p)),
        Kind::Postgres | Kind::Patroni => key.contains('.'),
        Kind::Tidb => true,
    }
}

/// Known to the installed server, or left for it to judge (also when its list
/// could not be read). `log_bin` is the profiles' word for `log-bin=PATH`.
fn is_known(known: &BTreeSet<String>, kind: Kind, key: &str) -> bool {
    known.is_empty() || known.contains(key) || judged_by_server(kind, key) || (kind == Kind::Mariadb && key == "log_bin")
}

fn norm(k: &str) -> String {
    k.trim().replace('-', "_").to_ascii_lowercase()
}

/// The version the server binary reports, e.g. `10.11.19-MariaDB`.
fn version(kind: Kind, b: &Bins) -> String {
    if kind == Kind::Tidb {
        return tidb_version(&b.server);
    }
    let own = environ::command(&b.server)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()
        .map(|o| {
            let t = String::from_utf8_lossy(&o.stdout).to_string();
            t.split_whitespace().find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit())).unwrap_or(t.trim()).to_string()
        })
        .unwrap_or_default();
    match &b.cluster {
        Some(t) => format!("{} (PostgreSQL {own})", patroni::version(t)),
        None => own,
    }
}

/// Starts a sandbox and waits until it accepts connections. On any failure
/// (or Ctrl-C) nothing is left running and the directory is removed.
pub fn start(o: &StartOpts) -> Result<Sandbox> {
    if o.kind == Kind::Patroni {
        patroni::check(o)?;
    } else if o.nodes.is_some() || o.sync {
        return Err(usage!("--nodes and --sync make a cluster: `fairbench server start patroni`"));
    }
    let b = bins(o.kind)?;
    let user = service_user(o.kind);
    if let Some(u) = &user {
        reachable(o.dir.as_deref().unwrap_or(&root()), u)?;
    }
    let resolved = profile::resolve(&o.profile, o.kind, &o.machine)?;
    let known = known_settings(o.kind, &b, &user);
    let ver = version(o.kind, &b);
    let mut notes = resolved.notes.clone();
    let mut settings: Vec<(String, String)> = Vec::new();
    for (k, v) in &resolved.settings {
        let n = norm(k);
        if !is_known(&known, o.kind, &n) {
            notes.push(format!("{k} = {v} dropped: {} {ver} has no such setting", o.kind.name()));
            continue;
        }
        settings.push((n, v.clone()));
    }
    for (k, v) in &o.sets {
        let n = norm(k);
        if !is_known(&known, o.kind, &n) {
            return Err(usage!("--set {k}: {} {ver} has no setting of that name", o.kind.name()));
        }
        settings.retain(|(s, _)| *s != n);
        settings.push((n, v.clone()));
    }
    if o.kind == Kind::Tidb {
        tidb_on_disk(&settings)?;
    }
    if o.kind == Kind::Patroni {
        patroni::filter(&mut settings, &mut notes, &o.sets)?;
    }
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

/// What a server's log says when its port was bound by another process.
const PORT_TAKEN: &str = "Address already in use";

#[allow(clippy::too_many_arguments)]
fn start_once(o: &StartOpts, b: &Bins, user: &Option<String>, ver: &str, profile: &str, settings: &[(String, String)], notes: &[String]) -> Result<Sandbox> {
    let (port, entry) = claim(o.kind, o.port)?;
    let status_port = match o.kind {
        Kind::Tidb => match claim_status_port(port) {
            Ok(p) => Some(p),
            Err(e) => {
                let _ = fs::remove_dir_all(&entry);
                return Err(e);
            }
        },
        _ => None,
    };
    let (dir, owns_dir) = match &o.dir {
        Some(d) => (d.clone(), !d.exists()),
        None => (entry.clone(), true),
    };
    let cluster = b.cluster.as_ref().map(|t| patroni::layout(o, &dir, port, t));
    let mut sb = Sandbox {
        name: format!("{}-{port}", o.kind.name()),
        engine: o.kind.name().into(),
        version: ver.to_string(),
        dir: dir.clone(),
        port,
        socket: match o.kind {
            Kind::Mariadb => dir.join("mysqld.sock"),
            Kind::Postgres => dir.clone(),
            Kind::Tidb => dir.join("tidb.sock"),
            Kind::Patroni => dir.join("node1"),
        },
        url: match &cluster {
            Some(c) => patroni::url(o, c),
            // TiDB speaks MySQL's protocol.
            None => format!("{}://{}:{}@127.0.0.1:{port}/{}", if o.kind == Kind::Postgres { "postgres" } else { "mysql" }, o.user, o.password, o.database),
        },
        profile: profile.to_string(),
        settings: settings.to_vec(),
        notes: notes.to_vec(),
        owns_dir,
        status_port,
        cluster,
    };
    let r = (|| {
        if sb.dir != entry {
            fs::create_dir_all(&dir).map_err(|e| io(dir.display(), e))?;
            fs::write(entry.join("dir"), dir.display().to_string()).map_err(|e| io(entry.display(), e))?;
        }
        let _ = fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755));
        write_state(&sb)?;
        match o.kind {
            Kind::Mariadb => start_mariadb(o, &sb, b, user),
            Kind::Postgres => start_postgres(o, &sb, b, user),
            Kind::Patroni => patroni::start(o, &sb, b, user),
            Kind::Tidb => {
                let notes = start_tidb(o, &sb, b)?;
                sb.notes.extend(notes);
                write_state(&sb)
            }
        }
    })();
    match r {
        Ok(()) => Ok(sb),
        Err(e) => {
            kill_now(&sb);
            remove(&sb, &entry);
            Err(e)
        }
    }
}

fn write_state(sb: &Sandbox) -> Result<()> {
    let p = sb.dir.join(MARKER);
    let j = serde_json::to_string_pretty(sb).map_err(|e| io(p.display(), e))?;
    fs::write(&p, j).map_err(|e| io(p.display(), e))
}

fn wait_ready(sb: &Sandbox, probe: &mut dyn FnMut() -> bool, alive: &mut dyn FnMut() -> bool, log: &Path, timeout: Duration) -> Result<()> {
    let end = Instant::now() + timeout;
    loop {
        // Alive first: a probe that reaches another server on the port must
        // not pass for ours (the probes also compare the data directory).
        if !alive() {
            // Go's servers (TiDB) write it in lower case.
            let text = fs::read_to_string(log).unwrap_or_default().to_ascii_lowercase();
            let why = if text.contains(&PORT_TAKEN.to_ascii_lowercase()) { format!("port {} on 127.0.0.1: {PORT_TAKEN}", sb.port) } else { last_line(log) };
            return Err(Error::Io(format!("{} exited during start-up: {why} (log: {})", sb.engine, log.display())));
        }
        if probe() {
            return Ok(());
        }
        if crate::model::interrupted() {
            return Err(Error::Interrupted);
        }
        if Instant::now() > end {
            return Err(Error::Io(format!("{} did not accept connections on 127.0.0.1:{} within {}s (log: {})", sb.engine, sb.port, timeout.as_secs(), log.display())));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn start_mariadb(o: &StartOpts, sb: &Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
    let d = &sb.dir;
    fs::create_dir_all(d.join("tmp")).map_err(|e| io(d.display(), e))?;
    let mut cnf = String::from("# fairbench sandbox: only this file is read (--defaults-file)\n[mysqld]\n");
    let mut line = |k: &str, v: &str| cnf.push_str(&format!("{k} = {v}\n"));
    if let Some(u) = user {
        line("user", u);
    }
    line("datadir", &d.join("data").display().to_string());
    line("socket", &sb.socket.display().to_string());
    line("pid-file", &d.join("mysqld.pid").display().to_string());
    line("log-error", &d.join("error.log").display().to_string());
    line("tmpdir", &d.join("tmp").display().to_string());
    line("port", &sb.port.to_string());
    line("bind-address", "127.0.0.1");
    cnf.push_str("skip-name-resolve\n");
    // Debian's server config differs from the compiled-in defaults only in these (and paths).
    let mut line = |k: &str, v: &str| cnf.push_str(&format!("{k} = {v}\n"));
    line("character-set-server", "utf8mb4");
    line("collation-server", "utf8mb4_general_ci");
    line("local-infile", "ON");
    if let Some(t) = &o.tls_dir {
        fs::copy(t.join("server.key"), d.join("server-key.pem")).map_err(|e| io(t.join("server.key").display(), e))?;
        let _ = fs::set_permissions(d.join("server-key.pem"), std::os::unix::fs::PermissionsExt::from_mode(0o600));
        line("ssl-ca", &t.join("ca.pem").display().to_string());
        line("ssl-cert", &t.join("server.pem").display().to_string());
        line("ssl-key", &d.join("server-key.pem").display().to_string());
    }
    cnf.push_str(&format!("# profile {}, then --set\n", sb.profile));
    let mut binlog = false;
    for (k, v) in &sb.settings {
        if k == "log_bin" {
            binlog = matches!(v.to_ascii_lowercase().as_str(), "on" | "1" | "true");
            continue;
        }
        cnf.push_str(&format!("{k} = {v}\n"));
    }
    if binlog {
        cnf.push_str(&format!("log-bin = {}\nserver-id = 1\n", d.join("binlog").display()));
    } else {
        cnf.push_str("skip-log-bin\n");
    }
    fs::write(d.join("my.cnf"), cnf).map_err(|e| io(d.join("my.cnf").display(), e))?;
    let q = |s: &str| s.replace('\\', "\\\\").replace('\'', "\\'");
    let (u, p, db) = (q(&o.user), q(&o.password), o.database.replace('`', "``"));
    let mut init = format!(
        "FLUSH PRIVILEGES;\nCREATE DATABASE IF NOT EXISTS `{db}`;\nCREATE USER '{u}'@'%' IDENTIFIED BY '{p}';\nCREATE USER '{u}'@'localhost' IDENTIFIED BY '{p}';\nGRANT ALL PRIVILEGES ON *.* TO '{u}'@'%' WITH GRANT OPTION;\nGRANT ALL PRIVILEGES ON *.* TO '{u}'@'localhost' WITH GRANT OPTION;\n"
    );
    if let Some(t) = &o.tls_only_user {
        let t = q(t);
        init.push_str(&format!("CREATE USER '{t}'@'%' IDENTIFIED BY '{p}' REQUIRE SSL;\nGRANT ALL PRIVILEGES ON `{db}`.* TO '{t}'@'%';\n"));
    }
    fs::write(d.join("init.sql"), init).map_err(|e| io(d.join("init.sql").display(), e))?;
    chown(d, user)?;
    let log = d.join("install.log");
    let init = b.init.as_ref().expect("mariadb-install-db");
    let mut c = environ::command(init);
    c.arg(format!("--defaults-file={}", d.join("my.cnf").display()));
    if let Some(u) = user {
        c.arg(format!("--user={u}"));
    }
    c.args(["--skip-test-db", "--skip-name-resolve"]).arg(format!("--extra-file={}", d.join("init.sql").display()));
    c.process_group(0).current_dir("/").stdin(Stdio::null()).stdout(log_file(&log)?).stderr(log_file(&log)?);
    let child = c.spawn().map_err(|e| io(init.display(), e))?;
    wait_child(child, "mariadb-install-db", &log, o.timeout).map_err(|e| match e {
        Error::Io(m) => Error::Io(format!("{m}; server log: {}", last_line(&d.join("error.log")))),
        e => e,
    })?;
    let mut c = environ::command(&b.server);
    c.arg(format!("--defaults-file={}", d.join("my.cnf").display()));
    if let Some(u) = user {
        c.arg(format!("--user={u}"));
    }
    // Its own process group: a Ctrl-C in the terminal reaches only fairbench.
    c.process_group(0).current_dir("/").stdin(Stdio::null()).stdout(log_file(&d.join("stdout.log"))?).stderr(log_file(&d.join("stdout.log"))?);
    let mut child = c.spawn().map_err(|e| io(b.server.display(), e))?;
    fs::write(d.join("launch.pid"), child.id().to_string()).map_err(|e| io(d.display(), e))?;
    let datadir = d.join("data");
    let mut probe = || mariadb_sql(b, sb, &o.user, &o.password, "SELECT @@datadir").is_ok_and(|out| same_dir(out.trim(), &datadir));
    let mut alive = || matches!(child.try_wait(), Ok(None));
    wait_ready(sb, &mut probe, &mut alive, &d.join("error.log"), o.timeout)
}

/// Runs SQL through the installed client over TCP; Ok(stdout).
fn mariadb_sql(b: &Bins, sb: &Sandbox, user: &str, password: &str, sql: &str) -> std::result::Result<String, String> {
    let o = environ::command(&b.client)
        .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "--connect-timeout=2", "-N", "-B"])
        .arg(format!("-P{}", sb.port))
        .arg(format!("-u{user}"))
        .env("MYSQL_PWD", password)
        .arg("-e")
        .arg(sql)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).to_string())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
    }
}

/// Is the data directory a server reports this sandbox's? (trailing `/`
/// and symlinks aside)
fn same_dir(reported: &str, ours: &Path) -> bool {
    let canon = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(Path::new(reported.trim_end_matches('/'))) == canon(ours)
}

fn pg_quote(v: &str) -> String {
    format!("'{}'", v.replace('\'', "''"))
}

fn start_postgres(o: &StartOpts, sb: &Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
    let d = &sb.dir;
    let data = d.join("data");
    let pw = d.join("pwfile");
    fs::write(&pw, format!("{}\n", o.password)).map_err(|e| io(pw.display(), e))?;
    chown(d, user)?;
    let log = d.join("initdb.log");
    let init = b.init.as_ref().expect("initdb");
    let mut c = as_user(user, init);
    c.arg("-D").arg(&data).arg("-U").arg(&o.user).arg(format!("--pwfile={}", pw.display()));
    c.args(["--auth-local=scram-sha-256", "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8"]);
    c.process_group(0).stdout(log_file(&log)?).stderr(log_file(&log)?);
    let child = c.spawn().map_err(|e| io(init.display(), e))?;
    wait_child(child, "initdb", &log, o.timeout)?;
    let _ = fs::remove_file(&pw);
    let mut conf = String::from("\n# --- fairbench sandbox ---\n");
    conf.push_str(&format!("listen_addresses = '127.0.0.1'\nport = {}\nunix_socket_directories = {}\n", sb.port, pg_quote(&d.display().to_string())));
    if let Some(t) = &o.tls_dir {
        fs::copy(t.join("server.key"), d.join("server.key")).map_err(|e| io(t.join("server.key").display(), e))?;
        let _ = fs::set_permissions(d.join("server.key"), std::os::unix::fs::PermissionsExt::from_mode(0o600));
        conf.push_str(&format!("ssl = on\nssl_cert_file = {}\nssl_key_file = {}\n", pg_quote(&t.join("server.pem").display().to_string()), pg_quote(&d.join("server.key").display().to_string())));
    }
    conf.push_str(&format!("# profile {}, then --set\n", sb.profile));
    for (k, v) in &sb.settings {
        conf.push_str(&format!("{k} = {}\n", pg_quote(v)));
    }
    let pc = data.join("postgresql.conf");
    fs::OpenOptions::new().append(true).open(&pc).and_then(|mut f| f.write_all(conf.as_bytes())).map_err(|e| io(pc.display(), e))?;
    if let Some(t) = &o.tls_only_user {
        // First match wins: that account connects over TCP with TLS only.
        let hba = data.join("pg_hba.conf");
        let old = fs::read_to_string(&hba).map_err(|e| io(hba.display(), e))?;
        let new = format!(
            "# --- fairbench sandbox ---\nlocal all {t} reject\nhostnossl all {t} 0.0.0.0/0 reject\nhostnossl all {t} ::/0 reject\nhostssl all {t} 127.0.0.1/32 scram-sha-256\nhostssl all {t} ::1/128 scram-sha-256\n\n{old}"
        );
        fs::write(&hba, new).map_err(|e| io(hba.display(), e))?;
    }
    chown(d, user)?;
    let log = d.join("postgres.log");
    let ctl_log = d.join("pg_ctl.log");
    let ctl = b.ctl.as_ref().expect("pg_ctl");
    let mut c = as_user(user, ctl);
    c.arg("start").arg("-D").arg(&data).arg("-l").arg(&log).args(["-W", "-s"]);
    c.process_group(0).stdout(log_file(&ctl_log)?).stderr(log_file(&ctl_log)?);
    let child = c.spawn().map_err(|e| io(ctl.display(), e))?;
    wait_child(child, "pg_ctl start", &ctl_log, o.timeout)?;
    let mut probe = || pg_sql(b, sb, &o.user, &o.password, "postgres", "SHOW data_directory").is_ok_and(|out| same_dir(out.trim(), &data));
    let pidfile = data.join("postmaster.pid");
    let mut alive = || pidfile.exists();
    // postmaster.pid appears a moment after pg_ctl returns.
    std::thread::sleep(Duration::from_millis(200));
    wait_ready(sb, &mut probe, &mut alive, &log, o.timeout)?;
    let db = format!("\"{}\"", o.database.replace('"', "\"\""));
    pg_sql(b, sb, &o.user, &o.password, "postgres", &format!("CREATE DATABASE {db}")).map_err(|e| Error::Io(format!("could not create database {}: {e}", o.database)))?;
    if let Some(t) = &o.tls_only_user {
        let tq = format!("\"{}\"", t.replace('"', "\"\""));
        for s in [format!("CREATE ROLE {tq} LOGIN PASSWORD {}", pg_quote(&o.password)), format!("GRANT ALL ON DATABASE {db} TO {tq}")] {
            pg_sql(b, sb, &o.user, &o.password, &o.database, &s).map_err(|e| Error::Io(format!("could not create role {t}: {e}")))?;
        }
        pg_sql(b, sb, &o.user, &o.password, &o.database, &format!("GRANT ALL ON SCHEMA public TO {tq}")).map_err(|e| Error::Io(format!("could not grant to {t}: {e}")))?;
    }
    Ok(())
}

/// Whether a TiDB sandbox keeps its store on disk, in its `data/` (the
/// profile's or --set's `path = "data"`), or in memory (no path). Also
/// refuses names that could not be a system variable in `SET GLOBAL`.
fn tidb_on_disk(settings: &[(String, String)]) -> Result<bool> {
    if let Some((k, _)) = settings.iter().find(|(k, _)| k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')) {
        return Err(usage!("--set {k}: not a TiDB system variable name (letters, digits and _)"));
    }
    match settings.iter().find(|(k, _)| k == profile::TIDB_PATH).map(|(_, v)| v.as_str()) {
        None | Some("") => Ok(false),
        Some("data") => Ok(true),
        Some(v) => Err(usage!("{0}={v}: TiDB's store is in memory (no {0}) or in the sandbox's data/ ({0}=data)", profile::TIDB_PATH)),
    }
}

/// The release `tidb-server -V` reports; a build of a commit reports a
/// placeholder there, so then the commit its Go module version names.
fn tidb_version(server: &Path) -> String {
    let out = environ::command(server).arg("-V").stdin(Stdio::null()).stderr(Stdio::null()).output().map(|o| String::from_utf8_lossy(&o.stdout).to_string()).unwrap_or_default();
    let release = out.lines().find_map(|l| l.trim().strip_prefix("Release Version:")).map(|v| v.trim().to_string()).filter(|v| !v.is_empty() && v != "None");
    match release {
        Some(v) if !v.contains("placeholder") => v,
        r => go_module_version(server, "github.com/pingcap/tidb").as_deref().and_then(pseudo_version_commit).or(r).unwrap_or_default(),
    }
}

/// `commit e4e814fdc0af (2025-11-26)` from a Go pseudo-version
/// (`v1.1.0-beta.0.20251126154744-e4e814fdc0af`).
fn pseudo_version_commit(v: &str) -> Option<String> {
    let (rest, hash) = v.rsplit_once('-')?;
    let stamp = rest.rsplit(['.', '-']).next()?;
    if hash.len() != 12 || stamp.len() != 14 || !stamp.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(format!("commit {hash} ({}-{}-{})", &stamp[..4], &stamp[4..6], &stamp[6..8]))
}

/// The version of module `module` a Go binary was built with, from the build
/// information Go embeds in its ELF section `.go.buildinfo`
/// (`dep<TAB>module<TAB>version` lines).
fn go_module_version(bin: &Path, module: &str) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = fs::File::open(bin).ok()?;
    let mut at = |off: u64, len: usize| -> Option<Vec<u8>> {
        let mut b = vec![0u8; len];
        f.seek(SeekFrom::Start(off)).ok()?;
        f.read_exact(&mut b).ok()?;
        Some(b)
    };
    let h = at(0, 64)?;
    // 64-bit little-endian ELF only: what Go builds for the hosts fairbench runs on.
    if &h[..4] != b"\x7fELF" || h[4] != 2 || h[5] != 1 {
        return None;
    }
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as u64;
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(&h, 0x28), u16_at(&h, 0x3a), u16_at(&h, 0x3c), u16_at(&h, 0x3e));
    if !(64..=256).contains(&shentsize) || shnum == 0 || shnum > 1 << 12 {
        return None;
    }
    let table = at(shoff, (shentsize * shnum) as usize)?;
    let section = |i: u64| {
        let e = &table[(i * shentsize) as usize..];
        (u64_at(e, 0) & 0xffff_ffff, u64_at(e, 0x18), u64_at(e, 0x20))
    };
    let (_, str_off, str_size) = section(shstrndx);
    let names = at(str_off, str_size.min(1 << 20) as usize)?;
    let (_, off, size) = (0..shnum).map(section).find(|(name, _, _)| names.get(*name as usize..).and_then(|n| n.split(|&c| c == 0).next()) == Some(b".go.buildinfo"))?;
    let info = at(off, size.min(1 << 20) as usize)?;
    let key = format!("\t{module}\t");
    let i = info.windows(key.len()).position(|w| w == key.as_bytes())? + key.len();
    let v = info[i..].split(|&c| c == b'\n' || c == b'\t').next()?;
    String::from_utf8(v.to_vec()).ok()
}

/// The server's message in the client's error output (which repeats the
/// statement in batch mode): `Unknown system variable 'x'`.
fn client_error(e: &str) -> String {
    match e.lines().find(|l| l.starts_with("ERROR")) {
        Some(l) => l.split_once(": ").map_or(l, |(_, m)| m).trim().to_string(),
        None => crate::error::one_line(e).into_owned(),
    }
}

/// A value in `SET GLOBAL k = v`: numbers as they are, anything else quoted.
fn sql_value(v: &str) -> String {
    if v.parse::<f64>().is_ok_and(f64::is_finite) {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

fn start_tidb(o: &StartOpts, sb: &Sandbox, b: &Bins) -> Result<Vec<String>> {
    let d = &sb.dir;
    let tmp = d.join("tmp");
    fs::create_dir_all(&tmp).map_err(|e| io(tmp.display(), e))?;
    let status = sb.status_port.expect("claimed with the port");
    let store = if tidb_on_disk(&sb.settings)? { d.join("data") } else { PathBuf::new() };
    let log = d.join("tidb.log");
    let mut c = environ::command(&b.server);
    // An empty path: unistore in a temp dir of its own, in volatile mode (nothing synced).
    c.args(["-store", "unistore"]).arg(format!("-path={}", store.display()));
    c.args(["-host", "127.0.0.1", "-status-host", "127.0.0.1"]).arg(format!("-P={}", sb.port)).arg(format!("-status={status}"));
    c.arg(format!("-socket={}", sb.socket.display())).arg(format!("-log-file={}", log.display()));
    // Its defaults are relative to the working directory and /tmp/tidb.
    c.arg(format!("-log-slow-query={}", d.join("tidb-slow.log").display())).arg(format!("-temp-dir={}", tmp.display()));
    if let Some(t) = &o.tls_dir {
        let q = |p: PathBuf| format!("\"{}\"", p.display().to_string().replace('\\', "\\\\").replace('"', "\\\""));
        let conf = format!(
            "# fairbench sandbox: what the command line cannot say\n[security]\nssl-ca = {}\nssl-cert = {}\nssl-key = {}\n",
            q(t.join("ca.pem")),
            q(t.join("server.pem")),
            q(t.join("server.key"))
        );
        fs::write(d.join("tidb.toml"), conf).map_err(|e| io(d.join("tidb.toml").display(), e))?;
        c.arg(format!("-config={}", d.join("tidb.toml").display()));
    }
    // unistore's in-memory store and the spill files of large queries are made
    // under the temp dir: in the sandbox's, they go with it at stop.
    c.env("TMPDIR", &tmp);
    // Its own process group: a Ctrl-C in the terminal reaches only fairbench.
    c.process_group(0).current_dir("/").stdin(Stdio::null()).stdout(log_file(&d.join("stdout.log"))?).stderr(log_file(&d.join("stdout.log"))?);
    let mut child = c.spawn().map_err(|e| io(b.server.display(), e))?;
    fs::write(d.join("launch.pid"), child.id().to_string()).map_err(|e| io(d.display(), e))?;
    // A fresh store's root has no password until the accounts below are made.
    let root = |sql: &str| mariadb_sql(b, sb, "root", "", sql);
    let socket = sb.socket.display().to_string();
    let mut probe = || root("SELECT @@socket").is_ok_and(|out| out.trim() == socket);
    let mut alive = || matches!(child.try_wait(), Ok(None));
    wait_ready(sb, &mut probe, &mut alive, &log, o.timeout)?;
    // What a commit promises here differs from the other engines' profiles: said at each start.
    let mut notes = vec![if store.as_os_str().is_empty() {
        "tidb: the store (unistore) is in memory: nothing is synced, nothing outlives the server".to_string()
    } else {
        format!("tidb: the store (unistore) is on disk in {}: each commit written, none synced (unistore has no setting for it)", store.display())
    }];
    for (k, v) in sb.settings.iter().filter(|(k, _)| k != profile::TIDB_PATH) {
        if let Err(e) = root(&format!("SET GLOBAL {k} = {}", sql_value(v))) {
            let why = client_error(&e);
            if o.sets.iter().any(|(s, _)| norm(s) == *k) {
                return Err(usage!("--set {k}={v}: TiDB refused it: {why}"));
            }
            notes.push(format!("{k} = {v} dropped: TiDB refused it: {why}"));
        }
    }
    let q = |s: &str| s.replace('\\', "\\\\").replace('\'', "\\'");
    let (u, p, db) = (q(&o.user), q(&o.password), o.database.replace('`', "``"));
    let mut sql = format!(
        "CREATE DATABASE IF NOT EXISTS `{db}`; CREATE USER IF NOT EXISTS '{u}'@'%' IDENTIFIED BY '{p}'; ALTER USER '{u}'@'%' IDENTIFIED BY '{p}'; GRANT ALL PRIVILEGES ON *.* TO '{u}'@'%' WITH GRANT OPTION;"
    );
    if let Some(t) = &o.tls_only_user {
        let t = q(t);
        sql.push_str(&format!(" CREATE USER '{t}'@'%' IDENTIFIED BY '{p}' REQUIRE SSL; GRANT ALL PRIVILEGES ON `{db}`.* TO '{t}'@'%';"));
    }
    // Last: root without a password would let anyone on this host in.
    sql.push_str(&format!(" ALTER USER 'root'@'%' IDENTIFIED BY '{p}';"));
    root(&sql).map_err(|e| Error::Io(format!("could not create the account {} and database {}: {}", o.user, o.database, client_error(&e))))?;
    Ok(notes)
}

fn pg_sql(b: &Bins, sb: &Sandbox, user: &str, password: &str, db: &str, sql: &str) -> std::result::Result<String, String> {
    psql_at(b, sb.port, user, password, db, sql)
}

/// Runs SQL with psql over TCP on 127.0.0.1:`port`; Ok(stdout).
fn psql_at(b: &Bins, port: u16, user: &str, password: &str, db: &str, sql: &str) -> std::result::Result<String, String> {
    let o = environ::command(&b.client)
        .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1"])
        .arg("-p")
        .arg(port.to_string())
        .arg("-U")
        .arg(user)
        .arg("-d")
        .arg(db)
        .arg("-c")
        .arg(sql)
        .env("PGPASSWORD", password)
        .env("PGCONNECT_TIMEOUT", "2")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).to_string())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
    }
}

/// Is `pid` alive with `dir` on its command line? (guards against a recycled pid)
fn pid_is_ours(pid: i32, dir: &Path) -> bool {
    fs::read(format!("/proc/{pid}/cmdline")).map(|c| String::from_utf8_lossy(&c).contains(&dir.display().to_string())).unwrap_or(false)
}

fn server_pid(sb: &Sandbox) -> Option<i32> {
    let files = match sb.kind() {
        Kind::Mariadb => vec![sb.dir.join("mysqld.pid"), sb.dir.join("launch.pid")],
        Kind::Postgres => vec![sb.dir.join("data/postmaster.pid")],
        Kind::Tidb => vec![sb.dir.join("launch.pid")],
        // Many processes: patroni.rs knows them.
        Kind::Patroni => vec![],
    };
    files.iter().filter_map(|f| fs::read_to_string(f).ok()).filter_map(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok())).find(|&p| pid_is_ours(p, &sb.dir))
}

/// Whether the sandbox's server process is running.
pub fn is_running(sb: &Sandbox) -> bool {
    if sb.kind() == Kind::Patroni {
        return patroni::is_running(sb);
    }
    server_pid(sb).is_some()
}

fn signal_and_wait(sb: &Sandbox, sig: i32, limit: Duration) -> bool {
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

/// Ends a server that never became ready (failed start, Ctrl-C).
fn kill_now(sb: &Sandbox) {
    if sb.kind() == Kind::Patroni {
        return patroni::kill(sb);
    }
    signal_and_wait(sb, libc::SIGKILL, Duration::from_secs(5));
}

/// Stops the server (a clean shutdown, SIGKILL after `limit`), then removes
/// its directory when `start` made it, and its registry entry.
pub fn stop(sb: &Sandbox, limit: Duration) -> Result<()> {
    // SIGTERM = a clean shutdown on each (PostgreSQL: "smart", so fast = SIGINT;
    // TiDB waits up to 15 s for open transactions).
    let sig = if sb.kind() == Kind::Postgres { libc::SIGINT } else { libc::SIGTERM };
    if sb.kind() == Kind::Patroni {
        patroni::stop(sb, limit);
    } else if !signal_and_wait(sb, sig, limit) {
        kill_now(sb);
    }
    remove(sb, &root().join(&sb.name));
    Ok(())
}

fn remove(sb: &Sandbox, entry: &Path) {
    if sb.owns_dir && sb.dir.join(MARKER).exists() {
        // A process that was just killed may still close files: a second pass then.
        if fs::remove_dir_all(&sb.dir).is_err() {
            std::thread::sleep(Duration::from_millis(100));
            let _ = fs::remove_dir_all(&sb.dir);
        }
    } else if !sb.owns_dir {
        // A directory the user gave: only what the sandbox put there goes.
        for p in [
            "data",
            "tmp",
            MARKER,
            "my.cnf",
            "init.sql",
            "install.log",
            "error.log",
            "stdout.log",
            "launch.pid",
            "mysqld.pid",
            "server-key.pem",
            "server.key",
            "initdb.log",
            "postgres.log",
            "pg_ctl.log",
            "binlog.index",
            "tidb.toml",
            "tidb.log",
            "tidb-slow.log",
            "tidb.sock",
            // What TiDB writes next to its log: memory records of queries near
            // their quota, plan replayer files.
            "oom_record",
            "replayer",
        ]
        .iter()
        .chain(patroni::FILES)
        .map(|f| sb.dir.join(f))
        .chain(patroni::node_dirs(sb))
        {
            let _ = if p.is_dir() { fs::remove_dir_all(&p) } else { fs::remove_file(&p) };
        }
    }
    let _ = fs::remove_dir_all(entry);
}

/// Every registered sandbox (those whose directory is gone are forgotten).
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

fn load(dir: &Path) -> Option<Sandbox> {
    serde_json::from_str(&fs::read_to_string(dir.join(MARKER)).ok()?).ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_go_pseudo_version_names_its_commit_and_day() {
        assert_eq!(pseudo_version_commit("v1.1.0-beta.0.20251126154744-e4e814fdc0af").as_deref(), Some("commit e4e814fdc0af (2025-11-26)"));
        assert_eq!(pseudo_version_commit("v0.0.0-20251126154744-e4e814fdc0af").as_deref(), Some("commit e4e814fdc0af (2025-11-26)"));
        assert_eq!(pseudo_version_commit("v8.5.0"), None);
    }

    #[test]
    fn set_global_values_are_numbers_or_quoted_strings() {
        assert_eq!(sql_value("536870912"), "536870912");
        assert_eq!(sql_value("0.5"), "0.5");
        assert_eq!(sql_value("ON"), "'ON'");
        assert_eq!(sql_value("it's"), "'it\\'s'");
        assert_eq!(sql_value("inf"), "'inf'");
    }

    #[test]
    fn the_clients_error_is_the_servers_message() {
        let e = "--------------\nSET GLOBAL x = 1\n--------------\n\nERROR 1193 (HY000) at line 1: Unknown system variable 'x'";
        assert_eq!(client_error(e), "Unknown system variable 'x'");
        assert_eq!(client_error("no route\nto host"), crate::error::one_line("no route\nto host"));
    }

    #[test]
    fn tidbs_store_is_in_memory_unless_path_is_data() {
        let s = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        assert!(!tidb_on_disk(&[]).unwrap());
        assert!(!tidb_on_disk(&s("path", "")).unwrap());
        assert!(tidb_on_disk(&s("path", "data")).unwrap());
        assert!(tidb_on_disk(&s("path", "/elsewhere")).is_err());
        assert!(tidb_on_disk(&s("x; DROP", "1")).is_err());
    }
}
