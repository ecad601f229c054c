//! A PostgreSQL high-availability sandbox: one etcd and N PostgreSQL nodes,
//! each run by its own Patroni, all on 127.0.0.1, in one sandbox directory.
//! Debian's `patroni` and `etcd-server` packages provide the programs; their
//! system services are never used: every process is started here, from
//! config files written into the sandbox, and stopped by `server stop`.
//!
//! Ports: the sandbox claims a block of [`PORTS`] from its base port P:
//! node k's PostgreSQL on P+k-1, etcd's client port on P+9, node k's REST API
//! on P+10+k-1, etcd's peer port on P+19.

mod health;
mod procs;

use super::super::client::psql_at;
use super::super::common::{chown, find_bin, io, last_line, norm, version_flag, Bins, PORT_TAKEN};
use super::super::daemon::{self, http_get, wait};
use super::super::{environ, Sandbox, StartOpts};
use super::postgres::{self, Postgres};
use super::SandboxKind;
use crate::error::{Error, Result};
use crate::usage;
use health::{health, Health};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

pub struct Patroni;

/// `server start patroni`'s own options.
#[derive(clap::Args, Debug, Default)]
#[command(next_help_heading = "patroni (a replicated PostgreSQL cluster)")]
struct PatroniArgs {
    /// The number of PostgreSQL nodes, a leader and its replicas (2 to 9; default 3)
    #[arg(long)]
    nodes: Option<u32>,
    /// Synchronous replication (Patroni's synchronous_mode: one replica is a sync standby)
    #[arg(long)]
    sync: bool,
}

/// A cluster's nodes are PostgreSQL servers: what is about their server is
/// the postgres kind's.
impl SandboxKind for Patroni {
    fn name(&self) -> &'static str {
        "patroni"
    }

    fn profile_section(&self) -> &'static str {
        Postgres.profile_section()
    }

    fn size_setting(&self, mib: u64) -> String {
        postgres::size_setting(mib)
    }

    fn default_port(&self) -> u16 {
        BASE_PORT
    }

    fn ports(&self) -> u16 {
        PORTS
    }

    fn augment_args(&self, cmd: clap::Command) -> clap::Command {
        <PatroniArgs as clap::Args>::augment_args(cmd)
    }

    fn check(&self, o: &StartOpts) -> Result<()> {
        check(o)
    }

    /// Its own programs first: without them, that is what to install.
    fn binaries(&self) -> Result<Bins> {
        let tools = tools()?;
        let mut b = postgres::binaries()?;
        b.tools = tools;
        Ok(b)
    }

    fn service_user(&self) -> Option<&'static str> {
        Some(postgres::SERVICE_USER)
    }

    fn version(&self, b: &Bins) -> String {
        let own = version_flag(&b.server);
        format!("{} (PostgreSQL {own})", version(b.tool("patroni")))
    }

    fn known_settings(&self, b: &Bins, user: &Option<String>) -> BTreeSet<String> {
        postgres::known_settings(b, user)
    }

    fn left_to_server(&self, key: &str) -> bool {
        postgres::left_to_server(key)
    }

    fn check_settings(&self, settings: &mut Vec<(String, String)>, notes: &mut Vec<String>, sets: &[(String, String)]) -> Result<()> {
        filter(settings, notes, sets)
    }

    fn lay_out(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins) {
        let c = layout(o, &sb.dir, sb.port, b.tool("patronictl"));
        sb.socket = sb.dir.join("node1");
        sb.url = url(o, &c);
        sb.cluster = Some(c);
    }

    fn start(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
        start(o, sb, b, user)
    }

    /// Many processes: procs.rs finds them.
    fn pid_files(&self, _dir: &Path) -> Vec<PathBuf> {
        vec![]
    }

    fn processes(&self) -> Option<&'static dyn super::Processes> {
        Some(&procs::Cluster)
    }

    fn files(&self) -> &'static [&'static str] {
        FILES
    }

    fn dirs(&self, sb: &Sandbox) -> Vec<PathBuf> {
        node_dirs(sb)
    }

    fn env_lines(&self, sb: &Sandbox, quote: &dyn Fn(&str) -> String) -> String {
        sb.cluster.as_ref().map(|c| env_lines(c, quote)).unwrap_or_default()
    }

    fn details(&self, sb: &Sandbox) -> Vec<String> {
        sb.cluster.as_ref().map(details).unwrap_or_default()
    }
}

/// Ports a cluster sandbox claims from its base port (see the module's comment).
const PORTS: u16 = 20;
/// Where the first cluster's block starts when no --port is given.
const BASE_PORT: u16 = 16432;
/// Nodes when --nodes is not given.
const DEFAULT_NODES: u32 = 3;
/// A leader and a replica at least; nine fit the port block.
const NODES: std::ops::RangeInclusive<u32> = 2..=9;
/// The Debian packages that provide the programs.
const PACKAGES: &str = "patroni etcd-server";
/// The one directory to take patroni, patronictl and etcd from instead of PATH.
const BINDIR_VAR: &str = "FAIRBENCH_PATRONI_BINDIR";
/// The replication account Patroni creates (unless the test account is named so).
const REPLICATOR: &str = "replicator";

/// The programs a cluster needs besides PostgreSQL's, from
/// `FAIRBENCH_PATRONI_BINDIR` or PATH (and /usr/sbin).
fn tools() -> Result<Vec<(&'static str, PathBuf)>> {
    let missing = |n: &str| Error::Usage(format!("{n} not found: install {PACKAGES} (Debian: apt-get install {PACKAGES})"));
    let find = |n: &str| -> Result<PathBuf> {
        match std::env::var_os(BINDIR_VAR).filter(|v| !v.is_empty()).map(PathBuf::from) {
            Some(d) => Some(d.join(n)).filter(|p| p.is_file()).ok_or_else(|| missing(&format!("{n} in {BINDIR_VAR}={}", d.display()))),
            None => find_bin(&[n], &[]).ok_or_else(|| missing(n)),
        }
    };
    Ok(vec![("patroni", find("patroni")?), ("patronictl", find("patronictl")?), ("etcd", find("etcd")?)])
}

/// One PostgreSQL node of a cluster sandbox.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Node {
    pub name: String,
    pub port: u16,
    /// Its Patroni's REST API on 127.0.0.1.
    pub api_port: u16,
    /// The node's own URL (whatever its role).
    pub url: String,
    /// Its config, log, socket and data directory.
    pub dir: PathBuf,
}

/// What a cluster sandbox is made of, as stored in its state file.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Cluster {
    pub nodes: Vec<Node>,
    pub etcd_port: u16,
    pub etcd_peer_port: u16,
    /// patronictl's config: `patronictl -c THIS list|switchover|failover`.
    pub ctl_config: PathBuf,
    pub patronictl: PathBuf,
    /// Patroni's synchronous_mode.
    pub sync: bool,
}

impl Cluster {
    /// The ready-to-use patronictl command line.
    pub fn ctl(&self) -> String {
        format!("{} -c {}", self.patronictl.display(), self.ctl_config.display())
    }
}

/// The number of nodes asked for, checked.
fn nodes(o: &StartOpts) -> Result<u32> {
    let n = o.kind_args.get::<PatroniArgs>()?.nodes.unwrap_or(DEFAULT_NODES);
    if !NODES.contains(&n) {
        return Err(usage!("--nodes {n}: a cluster has {} to {} nodes (a leader and at least one replica)", NODES.start(), NODES.end()));
    }
    Ok(n)
}

/// Options a cluster sandbox does not take.
fn check(o: &StartOpts) -> Result<()> {
    nodes(o)?;
    if o.tls_dir.is_some() {
        return Err(usage!("--tls-dir: the cluster sandbox offers no TLS; use a postgres sandbox for TLS"));
    }
    if o.port.is_some_and(|p| p.checked_add(PORTS).is_none()) {
        return Err(usage!("--port {}: the cluster needs {PORTS} ports from it: choose a port below {}", o.port.unwrap_or(0), u16::MAX - PORTS + 1));
    }
    Ok(())
}

/// Settings each Patroni sets itself per node, or that replication needs as
/// it is: a profile's are dropped with a note, a --set's refused.
const MANAGED: &[&str] = &[
    "listen_addresses",
    "port",
    "cluster_name",
    "data_directory",
    "config_file",
    "hba_file",
    "ident_file",
    "unix_socket_directories",
    "synchronous_standby_names",
    "primary_conninfo",
    "primary_slot_name",
    "hot_standby",
    "wal_level",
];

/// Removes what Patroni manages from the settings.
fn filter(settings: &mut Vec<(String, String)>, notes: &mut Vec<String>, sets: &[(String, String)]) -> Result<()> {
    if let Some((k, _)) = sets.iter().find(|(k, _)| MANAGED.contains(&norm(k).as_str())) {
        return Err(usage!("--set {k}: Patroni sets it on each node (synchronous replication: --sync)"));
    }
    settings.retain(|(k, v)| {
        let managed = MANAGED.contains(&k.as_str());
        if managed {
            notes.push(format!("{k} = {v} dropped: Patroni sets it on each node"));
        }
        !managed
    });
    Ok(())
}

/// The layout of a cluster whose block starts at `base`, in `dir` (the
/// options were checked by [`check`]).
fn layout(o: &StartOpts, dir: &Path, base: u16, patronictl: &Path) -> Cluster {
    let n = nodes(o).unwrap_or(DEFAULT_NODES) as u16;
    let nodes = (0..n)
        .map(|i| {
            let port = base + i;
            Node {
                name: format!("node{}", i + 1),
                port,
                api_port: base + 10 + i,
                url: format!("postgres://{}:{}@127.0.0.1:{port}/{}", o.user, o.password, o.database),
                dir: dir.join(format!("node{}", i + 1)),
            }
        })
        .collect();
    Cluster {
        nodes,
        etcd_port: base + 9,
        etcd_peer_port: base + PORTS - 1,
        ctl_config: dir.join("patronictl.yml"),
        patronictl: patronictl.to_path_buf(),
        sync: o.kind_args.get::<PatroniArgs>().is_ok_and(|a| a.sync),
    }
}

/// The libpq multi-host URL: a client that asks for a read-write session
/// lands on the leader, wherever it is.
fn url(o: &StartOpts, c: &Cluster) -> String {
    let hosts: Vec<String> = c.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
    format!("postgres://{}:{}@{}/{}?target_session_attrs=read-write", o.user, o.password, hosts.join(","), o.database)
}

/// `patroni --version`: `3.0.2`. Python takes a second or two to load
/// Patroni on a busy machine: a Ctrl-C meanwhile ends it at once.
fn version(patroni: &Path) -> String {
    let Ok(mut child) = environ::command(patroni).arg("--version").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn() else { return String::new() };
    loop {
        match child.try_wait() {
            Ok(None) if !crate::model::interrupted() => std::thread::sleep(Duration::from_millis(20)),
            Ok(Some(_)) => break,
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return String::new();
            }
        }
    }
    let mut out = String::new();
    let _ = std::io::Read::read_to_string(&mut child.stdout.take().expect("piped"), &mut out);
    out.split_whitespace().nth(1).unwrap_or_default().to_string()
}

/// Lines said once the cluster is up: each node, etcd, patronictl.
fn details(c: &Cluster) -> Vec<String> {
    let mut v: Vec<String> = c.nodes.iter().map(|n| format!("{}: {} (Patroni REST API http://127.0.0.1:{})", n.name, n.url, n.api_port)).collect();
    v.push(format!("etcd: http://127.0.0.1:{}", c.etcd_port));
    v.push(format!("patronictl: {} list", c.ctl()));
    v
}

/// `export` lines of a cluster, after the sandbox's own.
fn env_lines(c: &Cluster, q: &dyn Fn(&str) -> String) -> String {
    let urls: Vec<&str> = c.nodes.iter().map(|n| n.url.as_str()).collect();
    let apis: Vec<String> = c.nodes.iter().map(|n| n.api_port.to_string()).collect();
    format!(
        "export FAIRBENCH_SANDBOX_NODE_URLS={}\nexport FAIRBENCH_SANDBOX_API_PORTS={}\nexport FAIRBENCH_SANDBOX_ETCD_PORT={}\nexport FAIRBENCH_SANDBOX_PATRONICTL={}\n",
        q(&urls.join(" ")),
        q(&apis.join(" ")),
        c.etcd_port,
        q(&c.ctl())
    )
}

/// What a sandbox in a directory it did not make leaves there: removed at stop.
const FILES: &[&str] = &["etcd", "etcd.log", "etcd.pid", "patronictl.yml"];

/// A node's files in a directory the sandbox did not make.
pub(super) fn node_dirs(sb: &Sandbox) -> Vec<PathBuf> {
    sb.cluster.iter().flat_map(|c| c.nodes.iter().map(|n| n.dir.clone())).collect()
}

/// A path as a JSON string (JSON is YAML: Patroni reads the config files written here).
fn p(path: &Path) -> serde_json::Value {
    serde_json::Value::String(path.display().to_string())
}

/// Node `n`'s Patroni config. The profile's and --set's settings go into the
/// cluster-wide configuration Patroni keeps in etcd (bootstrap.dcs), so that
/// every node, a new leader included, runs with them.
fn node_config(o: &StartOpts, sb: &Sandbox, c: &Cluster, n: &Node, b: &Bins) -> serde_json::Value {
    use serde_json::json;
    let params: serde_json::Map<String, serde_json::Value> = sb.settings.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    let replicator = if o.user == REPLICATOR { o.user.as_str() } else { REPLICATOR };
    let bindir = b.server.parent().unwrap_or(Path::new("/"));
    json!({
        "scope": sb.name,
        "namespace": "/fairbench/",
        "name": n.name,
        "log": {"level": "INFO"},
        "restapi": {"listen": format!("127.0.0.1:{}", n.api_port), "connect_address": format!("127.0.0.1:{}", n.api_port)},
        "etcd3": {"hosts": [format!("127.0.0.1:{}", c.etcd_port)]},
        // Never /dev/watchdog: a sandbox must not reboot the machine.
        "watchdog": {"mode": "off"},
        "bootstrap": {
            "dcs": {
                // Short cycles: a sandbox's leader is elected, and a switchover
                // done, in seconds (loop_wait + 2 * retry_timeout <= ttl).
                "ttl": 10,
                "loop_wait": 2,
                "retry_timeout": 3,
                "maximum_lag_on_failover": 1048576,
                "synchronous_mode": c.sync,
                "postgresql": {"use_pg_rewind": true, "use_slots": true, "parameters": params},
            },
            // As the postgres sandbox's initdb.
            "initdb": [{"encoding": "UTF8"}, {"locale": "C.UTF-8"}, {"auth-local": "scram-sha-256"}, {"auth-host": "scram-sha-256"}],
        },
        "postgresql": {
            "listen": format!("127.0.0.1:{}", n.port),
            "connect_address": format!("127.0.0.1:{}", n.port),
            "data_dir": p(&n.dir.join("data")),
            "bin_dir": p(bindir),
            "pgpass": p(&n.dir.join("pgpass")),
            "authentication": {
                // The test account is the superuser, as in the postgres sandbox.
                "superuser": {"username": o.user, "password": o.password},
                "replication": {"username": replicator, "password": o.password},
                "rewind": {"username": o.user, "password": o.password},
            },
            "parameters": {"unix_socket_directories": p(&n.dir)},
            "pg_hba": [
                "local all all scram-sha-256",
                "host all all 127.0.0.1/32 scram-sha-256",
                "host replication all 127.0.0.1/32 scram-sha-256",
            ],
        },
    })
}

/// patronictl's config: where the cluster's state lives, no node of its own.
fn ctl_config(sb: &Sandbox, c: &Cluster) -> serde_json::Value {
    serde_json::json!({"scope": sb.name, "namespace": "/fairbench/", "etcd3": {"hosts": [format!("127.0.0.1:{}", c.etcd_port)]}})
}

fn write_json(path: &Path, v: &serde_json::Value) -> Result<()> {
    let text = format!("# fairbench sandbox (JSON, which YAML reads as it is)\n{}\n", serde_json::to_string_pretty(v).map_err(|e| io(path.display(), e))?);
    fs::write(path, text).map_err(|e| io(path.display(), e))
}

/// Starts etcd and the nodes, waits until a leader is elected and every
/// replica streams from it (with --sync: a synchronous standby is named),
/// then creates the test database. The caller kills what is left on error.
fn start(o: &StartOpts, sb: &Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
    let c = sb.cluster.as_ref().ok_or_else(|| Error::Io("cluster sandbox without its layout".into()))?;
    for n in &c.nodes {
        fs::create_dir_all(&n.dir).map_err(|e| io(n.dir.display(), e))?;
        write_json(&n.dir.join("patroni.yml"), &node_config(o, sb, c, n, b))?;
    }
    write_json(&c.ctl_config, &ctl_config(sb, c))?;
    chown(&sb.dir, user)?;
    let deadline = Instant::now() + o.timeout;
    let too_long = |why: String| Error::Io(format!("{} was not ready within {}s: {why}", sb.name, o.timeout.as_secs()));
    let etcd_log = sb.dir.join("etcd.log");
    let mut etcd = daemon::etcd(sb, c.etcd_port, c.etcd_peer_port, b.tool("etcd"), user)?;
    // Patroni gives up on a DCS it cannot reach at its start: etcd answers first.
    let ready = wait(deadline, &mut || {
        if let Ok(Some(_)) = etcd.try_wait() {
            return Err(exited("etcd", sb, &etcd_log));
        }
        Ok(http_get(c.etcd_port, "/version").is_some_and(|b| b.contains("etcdserver")))
    })?;
    if !ready {
        return Err(too_long(format!("etcd does not answer on 127.0.0.1:{}; etcd: {} (log: {})", c.etcd_port, last_line(&etcd_log), etcd_log.display())));
    }
    let mut patronis = Vec::new();
    for n in &c.nodes {
        let log = n.dir.join("patroni.log");
        let child = daemon::spawn(b.tool("patroni"), &[n.dir.join("patroni.yml").display().to_string()], user, &n.dir, &log, &n.dir.join("patroni.pid"))?;
        patronis.push((child, log));
    }
    let mut last = Health::default();
    let ready = wait(deadline, &mut || {
        if let Ok(Some(_)) = etcd.try_wait() {
            return Err(exited("etcd", sb, &etcd_log));
        }
        for (child, log) in patronis.iter_mut() {
            // PostgreSQL keeps failing on a taken port while its Patroni lives on.
            if matches!(child.try_wait(), Ok(Some(_))) || fs::read_to_string(&*log).is_ok_and(|t| t.contains(PORT_TAKEN)) {
                return Err(exited("patroni", sb, log));
            }
        }
        last = health(o, c, b);
        Ok(last.ready(c.sync))
    })?;
    if !ready {
        // The first node that is not ready says why.
        let node = last.waiting_for(c).unwrap_or(&c.nodes[0]);
        let log = node.dir.join("patroni.log");
        return Err(too_long(format!("{}; {}: {} (log: {})", last.summary(c), node.name, last_line(&log), log.display())));
    }
    let leader = c.nodes.iter().zip(&last.nodes).find(|(_, h)| h.as_ref().is_some_and(|h| !h.in_recovery)).map(|(n, _)| n).ok_or_else(|| Error::Io("no leader".into()))?;
    let db = format!("\"{}\"", o.database.replace('"', "\"\""));
    psql_at(&b.client, leader.port, &o.user, &o.password, "postgres", &format!("CREATE DATABASE {db}")).map_err(|e| Error::Io(format!("could not create database {}: {e}", o.database)))?;
    // Commits need not wait for the replicas (synchronous_commit=off, or no
    // --sync): started means the database is there on every node.
    if !wait(deadline, &mut || Ok(c.nodes.iter().all(|n| psql_at(&b.client, n.port, &o.user, &o.password, &o.database, "SELECT 1").is_ok())))? {
        return Err(too_long(format!("database {} did not reach every replica", o.database)));
    }
    Ok(())
}

fn exited(what: &str, sb: &Sandbox, log: &Path) -> Error {
    let text = fs::read_to_string(log).unwrap_or_default().to_ascii_lowercase();
    let why = if text.contains(&PORT_TAKEN.to_ascii_lowercase()) { format!("a port of {}..{} on 127.0.0.1: {PORT_TAKEN}", sb.port, sb.port + PORTS - 1) } else { last_line(log) };
    Error::Io(format!("{what} exited during start-up: {why} (log: {})", log.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(nodes: Option<u32>) -> StartOpts {
        StartOpts {
            kind: super::super::Kind::parse("patroni").unwrap(),
            profile: "packaged".into(),
            sets: vec![],
            port: None,
            dir: None,
            user: "u".into(),
            password: "p".into(),
            database: "d".into(),
            machine: super::super::super::profile::Machine { ram: 1 << 30, cores: 2, data: None },
            tls_dir: None,
            tls_only_user: None,
            timeout: Duration::from_secs(1),
            kind_args: {
                // As `server start patroni --nodes N` parses them.
                let cmd = <super::super::KindArgs as clap::Args>::augment_args(clap::Command::new("start"));
                let n = nodes.map(|n| n.to_string());
                let argv = ["start"].into_iter().chain(n.as_deref().map(|n| ["--nodes", n]).into_iter().flatten());
                <super::super::KindArgs as clap::FromArgMatches>::from_arg_matches(&cmd.try_get_matches_from(argv).unwrap()).unwrap()
            },
            build: None,
        }
    }

    #[test]
    fn the_url_names_every_node_and_asks_for_the_leader() {
        let o = opts(Some(3));
        let c = layout(&o, Path::new("/s"), 16432, Path::new("/usr/bin/patronictl"));
        assert_eq!(url(&o, &c), "postgres://u:p@127.0.0.1:16432,127.0.0.1:16433,127.0.0.1:16434/d?target_session_attrs=read-write");
        assert_eq!(c.nodes[2].url, "postgres://u:p@127.0.0.1:16434/d");
        assert_eq!(c.nodes.iter().map(|n| n.api_port).collect::<Vec<_>>(), vec![16442, 16443, 16444]);
        assert_eq!((c.etcd_port, c.etcd_peer_port), (16441, 16451));
        assert_eq!(c.ctl(), "/usr/bin/patronictl -c /s/patronictl.yml");
    }

    #[test]
    fn a_cluster_has_two_to_nine_nodes() {
        assert_eq!(nodes(&opts(None)).unwrap(), 3);
        assert_eq!(nodes(&opts(Some(9))).unwrap(), 9);
        for n in [0, 1, 10, 1000] {
            assert!(nodes(&opts(Some(n))).is_err(), "{n}");
        }
    }

    #[test]
    fn what_patroni_sets_is_dropped_from_a_profile_and_refused_from_set() {
        let mut s = vec![("port".to_string(), "1".to_string()), ("shared_buffers".to_string(), "64MB".to_string())];
        let mut notes = vec![];
        filter(&mut s, &mut notes, &[]).unwrap();
        assert_eq!(s, vec![("shared_buffers".to_string(), "64MB".to_string())]);
        assert!(notes[0].contains("port = 1 dropped"));
        assert!(filter(&mut s, &mut notes, &[("wal-level".into(), "minimal".into())]).is_err());
    }
}
