//! pgbouncer (Debian's, or a build of another version: `--basedir`, `--version`) in front of a
//! PostgreSQL sandbox: `server start pgbouncer --for postgres-15432 --pool-mode transaction`. Its URL is used like any target; the run finds the
//! pooler on its own (its cancel keys are not the server's), and the run records the pool mode
//! this sandbox was started with ([`SandboxKind::pool`]), so the audit can compare it.

use super::super::client::{pg_bindir, psql_at};
use super::super::common::{chown, in_dir, io, log_file, missing, version_flag, wait_ready, Bins};
use super::super::{environ, find, Sandbox, StartOpts};
use super::SandboxKind;
use crate::error::Result;
use crate::usage;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

pub struct Pgbouncer;

/// What `--version` runs: scripts/build-pgbouncer.sh, carried in the binary.
const BUILD_SCRIPT: &str = include_str!("../../../scripts/build-pgbouncer.sh");

/// pgbouncer `server` with the system's psql, which probes it.
fn with_psql(server: PathBuf) -> Result<Bins> {
    let client = pg_bindir().map(|d| d.join("psql")).filter(|p| p.is_file()).ok_or_else(|| missing("psql", "postgresql-client"))?;
    Ok(Bins { server, init: None, client, ctl: None, tools: vec![] })
}

/// pgbouncer's own pooling modes.
const MODES: [&str; 3] = ["session", "transaction", "statement"];

/// `server start pgbouncer`'s own options.
#[derive(clap::Args, Debug, Default)]
#[command(next_help_heading = "pgbouncer (a connection pooler in front of a postgres sandbox)")]
struct PgbouncerArgs {
    /// The PostgreSQL it pools connections to: a postgres sandbox's name (postgres-15432), port or
    /// directory, or a postgres://USER:PASSWORD@HOST:PORT/DATABASE URL
    #[arg(long = "for", value_name = "SANDBOX")]
    pooled: Option<String>,
    /// session (a server connection per client connection, pgbouncer's default), transaction
    /// (one per transaction) or statement (one per statement)
    #[arg(long, value_name = "MODE")]
    pool_mode: Option<String>,
    /// Server connections per user and database (pgbouncer's default_pool_size; default 20)
    #[arg(long, value_name = "N")]
    pool_size: Option<u32>,
}

/// The PostgreSQL server a pgbouncer sandbox pools for, and the account it passes on.
struct Pooled {
    /// The sandbox's name, or host:port of a server given by URL.
    name: String,
    host: String,
    port: u16,
    user: String,
    password: String,
    database: String,
}

impl Pooled {
    /// A postgres sandbox (name, port or directory), or a `postgres://` URL of any server.
    fn find(what: &str) -> Result<Pooled> {
        if what.starts_with("postgres://") || what.starts_with("postgresql://") {
            return from_url(what, None).ok_or_else(|| usage!("--for {what}: give postgres://USER:PASSWORD@HOST:PORT/DATABASE"));
        }
        let sb = find(what)?;
        if sb.kind != "postgres" {
            return Err(usage!("--for {what}: a {} sandbox; pgbouncer pools for a postgres sandbox or a postgres:// URL", sb.kind));
        }
        from_url(&sb.url, Some(&sb.name)).ok_or_else(|| usage!("--for {what}: its URL names no account"))
    }
}

/// The server and account of `postgres://USER:PASSWORD@HOST:PORT/DATABASE`.
fn from_url(url: &str, name: Option<&str>) -> Option<Pooled> {
    let rest = url.split_once("://")?.1;
    let (cred, at) = rest.rsplit_once('@')?;
    let (user, password) = cred.split_once(':')?;
    let (hostport, db) = at.split_once('/')?;
    let (host, port) = match hostport.rsplit_once(':') {
        Some((h, p)) => (h.to_string(), p.parse().ok()?),
        None => (hostport.to_string(), 5432),
    };
    let database = db.split('?').next()?.to_string();
    let name = name.map_or_else(|| format!("{host}:{port}"), str::to_string);
    Some(Pooled { name, host, port, user: user.to_string(), password: password.to_string(), database })
}

/// The options as given, checked: (the pooled server, mode, pool size).
fn args(o: &StartOpts) -> Result<(Pooled, String, u32)> {
    let a: PgbouncerArgs = o.kind_args.get()?;
    let what = a.pooled.ok_or_else(|| usage!("pgbouncer needs --for SANDBOX: the postgres sandbox it pools for (`fairbench server list` shows them), or a postgres:// URL"))?;
    let pooled = Pooled::find(&what)?;
    let mode = a.pool_mode.unwrap_or_else(|| "session".into()).to_ascii_lowercase();
    if !MODES.contains(&mode.as_str()) {
        return Err(usage!("--pool-mode {mode}: use session, transaction or statement"));
    }
    let size = a.pool_size.unwrap_or(20);
    if size == 0 {
        return Err(usage!("--pool-size 0: give at least one server connection"));
    }
    Ok((pooled, mode, size))
}

impl SandboxKind for Pgbouncer {
    fn name(&self) -> &'static str {
        "pgbouncer"
    }

    /// A pooler keeps no data: profiles say nothing of it.
    fn without_profile_section(&self, _profile: &str) -> Option<String> {
        Some("a pooler: profiles set nothing; --pool-mode, --pool-size and --set configure it".into())
    }

    /// No cache to size: a size is a number of bytes.
    fn size_setting(&self, mib: u64) -> String {
        (mib << 20).to_string()
    }

    fn default_port(&self) -> u16 {
        16432
    }

    fn augment_args(&self, cmd: clap::Command) -> clap::Command {
        <PgbouncerArgs as clap::Args>::augment_args(cmd)
    }

    fn check(&self, o: &StartOpts) -> Result<()> {
        if o.tls_dir.is_some() || o.tls_only_user.is_some() {
            return Err(usage!("--tls-dir: the pgbouncer sandbox offers no TLS; give the postgres sandbox TLS and connect to it directly"));
        }
        args(o).map(drop)
    }

    fn binaries(&self) -> Result<Bins> {
        let server = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].iter().map(PathBuf::from).find(|p| p.is_file()).ok_or_else(|| missing("pgbouncer", "pgbouncer"))?;
        with_psql(server)
    }

    /// A build of the user's (`--basedir DIR`: DIR/bin/pgbouncer or DIR/pgbouncer), or one built
    /// by `--version`.
    fn binaries_in(&self, dir: &Path) -> Result<Bins> {
        with_psql(in_dir(dir, &["pgbouncer"], "pgbouncer")?)
    }

    /// pgbouncer VERSION built once from Debian's source package of it (trixie's, forky's or
    /// sid's), into the engine cache: Debian 12 packages 1.18, which keeps no prepared statements
    /// in transaction pooling, and no registry serves a build.
    fn fetch(&self, version: &str) -> Result<crate::server::builds::Build> {
        let dir = crate::cache::engines_dir();
        let bindir = dir.join(format!("pgbouncer-{version}")).join("bin");
        let origin = format!("pgbouncer {version} built from Debian's source package");
        if !bindir.join("pgbouncer").is_file() {
            let out = environ::command("bash")
                .arg("-c")
                .arg(BUILD_SCRIPT)
                .arg("build-pgbouncer")
                .arg(version)
                .arg(&dir)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::inherit())
                .status()
                .map_err(|e| io("bash", e))?;
            if !out.success() || !bindir.join("pgbouncer").is_file() {
                return Err(crate::error::Error::Io(format!(
                    "pgbouncer {version} could not be built (above): give --basedir DIR of a build of yours, or leave out --version for the installed pgbouncer"
                )));
            }
        }
        Ok(crate::server::builds::Build { bindir, origin })
    }

    /// pgbouncer will not run as root.
    fn service_user(&self) -> Option<&'static str> {
        Some(super::postgres::SERVICE_USER)
    }

    /// `1.18.0`, from `pgbouncer --version` ("PgBouncer 1.18.0").
    fn version(&self, b: &Bins) -> String {
        version_flag(&b.server)
    }

    /// Unknown until it reads them: every `--set` goes into its [pgbouncer] section.
    fn known_settings(&self, _b: &Bins, _user: &Option<String>) -> BTreeSet<String> {
        BTreeSet::new()
    }

    fn left_to_server(&self, _key: &str) -> bool {
        true
    }

    /// The pooled server's account and database, at the pooler's port.
    fn lay_out(&self, o: &StartOpts, sb: &mut Sandbox, _b: &Bins) {
        sb.socket = PathBuf::new();
        let (user, password, db) = args(o).map(|(p, _, _)| (p.user, p.password, p.database)).unwrap_or_else(|_| (o.user.clone(), o.password.clone(), o.database.clone()));
        sb.url = format!("postgres://{user}:{password}@127.0.0.1:{}/{db}", sb.port);
    }

    fn start(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
        let (pooled, mode, size) = args(o)?;
        let Pooled { host, port, user: account, password, database: db, .. } = &pooled;
        let d = &sb.dir;
        let dir = d.display();
        // Its own lines, each replaced by a --set of the same name.
        let mut lines: Vec<(String, String)> = [
            ("listen_addr", "127.0.0.1".to_string()),
            ("listen_port", sb.port.to_string()),
            ("unix_socket_dir", String::new()),
            ("auth_type", "plain".into()),
            ("auth_file", format!("{dir}/users.txt")),
            ("pool_mode", mode.clone()),
            ("default_pool_size", size.to_string()),
            ("max_client_conn", "10000".into()),
            ("admin_users", account.clone()),
            ("stats_users", account.clone()),
            ("logfile", format!("{dir}/pgbouncer.log")),
            ("pidfile", format!("{dir}/pgbouncer.pid")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for (k, v) in &sb.settings {
            lines.retain(|(n, _)| n != k);
            lines.push((k.clone(), v.clone()));
        }
        let mut ini = format!("[databases]\n{db} = host={host} port={port} dbname={db}\n\n[pgbouncer]\n");
        for (k, v) in &lines {
            ini.push_str(&format!("{k} = {v}\n"));
        }
        fs::write(d.join("pgbouncer.ini"), ini).map_err(|e| io(d.join("pgbouncer.ini").display(), e))?;
        fs::write(d.join("users.txt"), format!("\"{account}\" \"{password}\"\n")).map_err(|e| io(d.join("users.txt").display(), e))?;
        // What the run records: the pool it goes through.
        sb.settings.extend([("pool_mode".to_string(), mode), ("default_pool_size".to_string(), size.to_string()), ("pooled".to_string(), pooled.name.clone())]);
        super::super::common::write_state(sb)?;
        chown(d, user)?;
        let log = d.join("pgbouncer.log");
        // In the foreground of a process group of its own: its pid file finds it, and the start
        // sees it exit (a bad --set, the port taken) instead of guessing from a file.
        // As root it switches to the service account itself (-u), after it started with this
        // process's limits: through runuser, PAM would give it the default 1024 open files, and
        // thousands of clients need more.
        let mut c = environ::command(&b.server);
        c.current_dir("/").stdin(std::process::Stdio::null());
        if let Some(u) = user {
            c.arg("-u").arg(u);
        }
        c.arg(d.join("pgbouncer.ini")).process_group(0).stdout(log_file(&d.join("start.log"))?).stderr(log_file(&d.join("start.log"))?);
        let mut child = c.spawn().map_err(|e| io(b.server.display(), e))?;
        let mut probe = || psql_at(&b.client, sb.port, account, password, db, "SELECT 1").is_ok_and(|out| out.trim() == "1");
        let mut alive = || matches!(child.try_wait(), Ok(None));
        wait_ready(sb, &mut probe, &mut alive, &log, o.timeout)
    }

    fn pid_files(&self, dir: &Path) -> Vec<PathBuf> {
        vec![dir.join("pgbouncer.pid")]
    }

    /// SIGINT: pgbouncer's safe shutdown, after the clients' transactions.
    fn stop_signal(&self) -> i32 {
        libc::SIGINT
    }

    fn files(&self) -> &'static [&'static str] {
        &["pgbouncer.ini", "users.txt", "pgbouncer.log", "pgbouncer.pid", "start.log"]
    }

    fn pool(&self, sb: &Sandbox) -> Option<String> {
        let get = |k: &str| sb.settings.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_else(|| "?".into());
        Some(format!("pgbouncer {} sandbox {} for {}, pool_mode={}, default_pool_size={}", sb.version, sb.name, get("pooled"), get("pool_mode"), get("default_pool_size")))
    }

    fn details(&self, sb: &Sandbox) -> Vec<String> {
        self.pool(sb).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pooled_server_and_account_are_read_from_its_url() {
        let p = from_url("postgres://fb:pw@127.0.0.1:15432/db1", Some("postgres-15432")).unwrap();
        assert_eq!((p.name.as_str(), p.host.as_str(), p.port, p.user.as_str(), p.password.as_str(), p.database.as_str()), ("postgres-15432", "127.0.0.1", 15432, "fb", "pw", "db1"));
        let p = from_url("postgres://fb:p@w@db.example:6543/db?sslmode=disable", None).unwrap();
        assert_eq!((p.name.as_str(), p.password.as_str(), p.database.as_str()), ("db.example:6543", "p@w", "db"));
        assert!(from_url("postgres://127.0.0.1/db", None).is_none());
    }
}
