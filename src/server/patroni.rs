//! A PostgreSQL high-availability sandbox: one etcd and N PostgreSQL nodes,
//! each run by its own Patroni, all on 127.0.0.1, in one sandbox directory.
//! Debian's `patroni` and `etcd-server` packages provide the programs; their
//! system services are never used: every process is started here, from
//! config files written into the sandbox, and stopped by `server stop`.
//!
//! Ports: the sandbox claims a block of [`PORTS`] from its base port P:
//! node k's PostgreSQL on P+k-1, etcd's client port on P+9, node k's REST API
//! on P+10+k-1, etcd's peer port on P+19.

use super::{environ, io, last_line, log_file, norm, pid_is_ours, psql_at, Bins, Sandbox, StartOpts, PORT_TAKEN};
use crate::error::{Error, Result};
use crate::usage;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Ports a cluster sandbox claims from its base port (see the module's comment).
pub(super) const PORTS: u16 = 20;
/// Where the first cluster's block starts when no --port is given.
pub(super) const BASE_PORT: u16 = 16432;
/// Nodes when --nodes is not given.
pub(super) const DEFAULT_NODES: u32 = 3;
/// A leader and a replica at least; nine fit the port block.
const NODES: std::ops::RangeInclusive<u32> = 2..=9;
/// The Debian packages that provide the programs.
const PACKAGES: &str = "patroni etcd-server";
/// The one directory to take patroni, patronictl and etcd from instead of PATH.
const BINDIR_VAR: &str = "FAIRBENCH_PATRONI_BINDIR";
/// The replication account Patroni creates (unless the test account is named so).
const REPLICATOR: &str = "replicator";

/// The programs a cluster needs besides PostgreSQL's.
#[derive(Clone, Debug)]
pub(super) struct Tools {
    patroni: PathBuf,
    patronictl: PathBuf,
    etcd: PathBuf,
}

/// The programs, from `FAIRBENCH_PATRONI_BINDIR` or PATH (and /usr/sbin).
pub(super) fn tools() -> Result<Tools> {
    let missing = |n: &str| Error::Usage(format!("{n} not found: install {PACKAGES} (Debian: apt-get install {PACKAGES})"));
    let find = |n: &str| -> Result<PathBuf> {
        match std::env::var_os(BINDIR_VAR).filter(|v| !v.is_empty()).map(PathBuf::from) {
            Some(d) => Some(d.join(n)).filter(|p| p.is_file()).ok_or_else(|| missing(&format!("{n} in {BINDIR_VAR}={}", d.display()))),
            None => super::find_bin(&[n], &[]).ok_or_else(|| missing(n)),
        }
    };
    Ok(Tools { patroni: find("patroni")?, patronictl: find("patronictl")?, etcd: find("etcd")? })
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
pub(super) fn nodes(o: &StartOpts) -> Result<u32> {
    let n = o.nodes.unwrap_or(DEFAULT_NODES);
    if !NODES.contains(&n) {
        return Err(usage!("--nodes {n}: a cluster has {} to {} nodes (a leader and at least one replica)", NODES.start(), NODES.end()));
    }
    Ok(n)
}

/// Options a cluster sandbox does not take.
pub(super) fn check(o: &StartOpts) -> Result<()> {
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
pub(super) fn filter(settings: &mut Vec<(String, String)>, notes: &mut Vec<String>, sets: &[(String, String)]) -> Result<()> {
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
pub(super) fn layout(o: &StartOpts, dir: &Path, base: u16, t: &Tools) -> Cluster {
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
    Cluster { nodes, etcd_port: base + 9, etcd_peer_port: base + PORTS - 1, ctl_config: dir.join("patronictl.yml"), patronictl: t.patronictl.clone(), sync: o.sync }
}

/// The libpq multi-host URL: a client that asks for a read-write session
/// lands on the leader, wherever it is.
pub(super) fn url(o: &StartOpts, c: &Cluster) -> String {
    let hosts: Vec<String> = c.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
    format!("postgres://{}:{}@{}/{}?target_session_attrs=read-write", o.user, o.password, hosts.join(","), o.database)
}

/// `patroni --version`: `3.0.2`. Python takes a second or two to load
/// Patroni on a busy machine: a Ctrl-C meanwhile ends it at once.
pub(super) fn version(t: &Tools) -> String {
    let Ok(mut child) = environ::command(&t.patroni).arg("--version").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn() else { return String::new() };
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
pub(super) fn details(c: &Cluster) -> Vec<String> {
    let mut v: Vec<String> = c.nodes.iter().map(|n| format!("{}: {} (Patroni REST API http://127.0.0.1:{})", n.name, n.url, n.api_port)).collect();
    v.push(format!("etcd: http://127.0.0.1:{}", c.etcd_port));
    v.push(format!("patronictl: {} list", c.ctl()));
    v
}

/// `export` lines of a cluster, after the sandbox's own.
pub(super) fn env_lines(c: &Cluster, q: &dyn Fn(&str) -> String) -> String {
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
pub(super) const FILES: &[&str] = &["etcd", "etcd.log", "etcd.pid", "patronictl.yml"];

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

/// uid and gid of an account.
fn ids(user: &str) -> Result<(u32, u32)> {
    let name = std::ffi::CString::new(user).map_err(|e| io(user, e))?;
    // SAFETY: getpwnam gets a NUL-terminated name; the record it returns is read
    // at once, before any other call that could reuse it.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    if pw.is_null() {
        return Err(Error::Io(format!("no account {user}: install postgresql, which makes it")));
    }
    // SAFETY: pw is not null (checked above) and points to a passwd record.
    Ok(unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

/// A long-running program of the cluster, as `user`, in a process group of
/// its own (a Ctrl-C in the terminal reaches only fairbench), its output in `log`.
fn spawn(prog: &Path, args: &[String], user: &Option<String>, home: &Path, log: &Path, pidfile: &Path) -> Result<Child> {
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

/// Starts etcd and the nodes, waits until a leader is elected and every
/// replica streams from it (with --sync: a synchronous standby is named),
/// then creates the test database. The caller kills what is left on error.
pub(super) fn start(o: &StartOpts, sb: &Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
    let c = sb.cluster.as_ref().ok_or_else(|| Error::Io("cluster sandbox without its layout".into()))?;
    let tools = b.cluster.as_ref().ok_or_else(|| Error::Io("patroni's programs were not looked up".into()))?;
    for n in &c.nodes {
        fs::create_dir_all(&n.dir).map_err(|e| io(n.dir.display(), e))?;
        write_json(&n.dir.join("patroni.yml"), &node_config(o, sb, c, n, b))?;
    }
    write_json(&c.ctl_config, &ctl_config(sb, c))?;
    super::chown(&sb.dir, user)?;
    let deadline = Instant::now() + o.timeout;
    let too_long = |why: String| Error::Io(format!("{} was not ready within {}s: {why}", sb.name, o.timeout.as_secs()));
    let etcd_log = sb.dir.join("etcd.log");
    let mut etcd = start_etcd(sb, c, tools, user)?;
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
        let child = spawn(&tools.patroni, &[n.dir.join("patroni.yml").display().to_string()], user, &n.dir, &log, &n.dir.join("patroni.pid"))?;
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
    psql_at(b, leader.port, &o.user, &o.password, "postgres", &format!("CREATE DATABASE {db}")).map_err(|e| Error::Io(format!("could not create database {}: {e}", o.database)))?;
    // Commits need not wait for the replicas (synchronous_commit=off, or no
    // --sync): started means the database is there on every node.
    if !wait(deadline, &mut || Ok(c.nodes.iter().all(|n| psql_at(b, n.port, &o.user, &o.password, &o.database, "SELECT 1").is_ok())))? {
        return Err(too_long(format!("database {} did not reach every replica", o.database)));
    }
    Ok(())
}

/// etcd, a cluster of one, on the sandbox's two etcd ports.
fn start_etcd(sb: &Sandbox, c: &Cluster, tools: &Tools, user: &Option<String>) -> Result<Child> {
    let client = format!("http://127.0.0.1:{}", c.etcd_port);
    let peer = format!("http://127.0.0.1:{}", c.etcd_peer_port);
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
    spawn(&tools.etcd, &args, user, &sb.dir, &sb.dir.join("etcd.log"), &sb.dir.join("etcd.pid"))
}

fn exited(what: &str, sb: &Sandbox, log: &Path) -> Error {
    let text = fs::read_to_string(log).unwrap_or_default().to_ascii_lowercase();
    let why = if text.contains(&PORT_TAKEN.to_ascii_lowercase()) { format!("a port of {}..{} on 127.0.0.1: {PORT_TAKEN}", sb.port, sb.port + PORTS - 1) } else { last_line(log) };
    Error::Io(format!("{what} exited during start-up: {why} (log: {})", log.display()))
}

/// Runs `step` every 200 ms until it says ready (Ok(true)), fails, Ctrl-C
/// arrives, or the deadline passes (Ok(false)).
fn wait(deadline: Instant, step: &mut dyn FnMut() -> Result<bool>) -> Result<bool> {
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
fn http_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(500)).ok()?;
    s.set_read_timeout(Some(Duration::from_millis(1000))).ok()?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").as_bytes()).ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    out.split_once("\r\n\r\n").map(|(_, body)| body.to_string())
}

/// The running members as Patroni sees them: (name, role: `leader`,
/// `sync_standby` or `replica`), from the first REST API that answers.
fn members(c: &Cluster) -> Vec<(String, String)> {
    let Some(body) = c.nodes.iter().find_map(|n| http_get(n.api_port, "/cluster")) else { return vec![] };
    let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    v["members"].as_array().into_iter().flatten().filter(|m| m["state"] == "running").filter_map(|m| Some((m["name"].as_str()?.to_string(), m["role"].as_str()?.to_string()))).collect()
}

/// One node as its PostgreSQL sees itself.
#[derive(Clone, Debug)]
struct NodeHealth {
    in_recovery: bool,
    /// A replica's WAL receiver: `streaming` once it follows the leader.
    receiver: String,
    /// A leader's replicas that stream from it (base backups' WAL streams aside).
    streaming: u32,
    /// A leader's synchronous standbys.
    sync_standbys: u32,
}

#[derive(Clone, Debug, Default)]
struct Health {
    /// Per node; None when it does not answer (yet), or another server does.
    nodes: Vec<Option<NodeHealth>>,
    /// Patroni's view: the running members' roles.
    roles: Vec<String>,
}

impl Health {
    /// One leader, every other node a streaming replica, each running for
    /// Patroni; with sync, a synchronous standby on the leader and in
    /// Patroni's view (which `patronictl list` shows).
    fn ready(&self, sync: bool) -> bool {
        let Some(all) = self.nodes.iter().cloned().collect::<Option<Vec<_>>>() else { return false };
        let leaders: Vec<&NodeHealth> = all.iter().filter(|h| !h.in_recovery).collect();
        let role = |r: &str| self.roles.iter().filter(|x| *x == r).count();
        leaders.len() == 1
            && all.iter().filter(|h| h.in_recovery).all(|h| h.receiver == "streaming")
            && leaders[0].streaming as usize == all.len() - 1
            && self.roles.len() == all.len()
            && role("leader") == 1
            && (!sync || (leaders[0].sync_standbys > 0 && role("sync_standby") > 0))
    }

    /// The first node that does not answer or does not stream.
    fn waiting_for<'a>(&self, c: &'a Cluster) -> Option<&'a Node> {
        c.nodes.iter().zip(&self.nodes).find(|(_, h)| h.as_ref().is_none_or(|h| h.in_recovery && h.receiver != "streaming")).map(|(n, _)| n)
    }

    fn summary(&self, c: &Cluster) -> String {
        let each: Vec<String> = c
            .nodes
            .iter()
            .zip(self.nodes.iter().chain(std::iter::repeat(&None)))
            .map(|(n, h)| match h {
                None => format!("{} not answering", n.name),
                Some(h) if !h.in_recovery => format!("{} leader ({} replicas streaming, {} sync standbys)", n.name, h.streaming, h.sync_standbys),
                Some(h) => format!("{} replica ({})", n.name, if h.receiver.is_empty() { "not streaming" } else { &h.receiver }),
            })
            .collect();
        format!("{}; Patroni: {}", each.join(", "), if self.roles.is_empty() { "no member running".to_string() } else { self.roles.join(", ") })
    }
}

/// Each node asked over TCP; an answer counts only from the node's own data directory.
fn health(o: &StartOpts, c: &Cluster, b: &Bins) -> Health {
    // Patroni names each replica's connection after its node.
    let names: Vec<String> = c.nodes.iter().map(|n| format!("'{}'", n.name)).collect();
    let q = format!(
        "SELECT pg_is_in_recovery(), current_setting('data_directory'), coalesce((SELECT status FROM pg_stat_wal_receiver), ''), \
         (SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND application_name IN ({})), \
         (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum'))",
        names.join(", ")
    );
    let nodes = c
        .nodes
        .iter()
        .map(|n| {
            // Each probe may take a moment on a busy machine: a Ctrl-C ends the round.
            if crate::model::interrupted() {
                return None;
            }
            let out = psql_at(b, n.port, &o.user, &o.password, "postgres", &q).ok()?;
            let f: Vec<&str> = out.trim().split('|').collect();
            if f.len() != 5 || !super::same_dir(f[1], &n.dir.join("data")) {
                return None;
            }
            Some(NodeHealth { in_recovery: f[0] == "t", receiver: f[2].to_string(), streaming: f[3].parse().unwrap_or(0), sync_standbys: f[4].parse().unwrap_or(0) })
        })
        .collect();
    Health { nodes, roles: members(c).into_iter().map(|(_, r)| r).collect() }
}

/// A pid from a file, if that process is alive and runs from `dir`.
fn pid_in(file: &Path, dir: &Path) -> Option<i32> {
    let pid = fs::read_to_string(file).ok()?.lines().next()?.trim().parse::<i32>().ok()?;
    pid_is_ours(pid, dir).then_some(pid)
}

/// The cluster's processes by role: Patronis, PostgreSQL postmasters, etcd.
struct Procs {
    patronis: Vec<i32>,
    postmasters: Vec<i32>,
    etcd: Option<i32>,
}

fn procs(sb: &Sandbox) -> Procs {
    let dirs = node_dirs(sb);
    Procs {
        patronis: dirs.iter().filter_map(|d| pid_in(&d.join("patroni.pid"), d)).collect(),
        postmasters: dirs.iter().filter_map(|d| pid_in(&d.join("data/postmaster.pid"), d)).collect(),
        etcd: pid_in(&sb.dir.join("etcd.pid"), &sb.dir),
    }
}

/// Every process still running from the sandbox's directory: a program of
/// the cluster (Patroni, etcd, PostgreSQL and the initdb, pg_basebackup or
/// pg_rewind Patroni runs) with a path inside it on its command line.
fn leftovers(dir: &Path) -> Vec<i32> {
    const PROGRAMS: &[&str] = &["patroni", "etcd", "postgres", "initdb", "pg_basebackup", "pg_rewind", "pg_ctl"];
    let inside = format!("{}/", dir.display());
    let me = std::process::id() as i32;
    fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()))
        .filter(|&pid| pid != me)
        .filter(|pid| {
            let Ok(raw) = fs::read(format!("/proc/{pid}/cmdline")) else { return false };
            let args: Vec<String> = raw.split(|&c| c == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
            // The program, or the script an interpreter runs (python3 .../patroni).
            let ours = args.iter().take(2).any(|a| PROGRAMS.contains(&Path::new(a).file_name().and_then(|f| f.to_str()).unwrap_or("")));
            ours && args.iter().any(|a| a.contains(&inside))
        })
        .collect()
}

fn signal(pids: &[i32], sig: i32) {
    for &pid in pids {
        // SAFETY: kill has no memory-safety preconditions; each pid was checked to run from the sandbox.
        unsafe { libc::kill(pid, sig) };
    }
}

/// Waits until none of `pids` runs from `dir` any more.
fn gone(pids: &[i32], dir: &Path, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    loop {
        if pids.iter().all(|&p| !pid_is_ours(p, dir)) {
            return true;
        }
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether any of the cluster's programs runs.
pub(super) fn is_running(sb: &Sandbox) -> bool {
    let p = procs(sb);
    !p.patronis.is_empty() || !p.postmasters.is_empty() || p.etcd.is_some()
}

/// Ends everything at once (a failed start, Ctrl-C, a stop that took too
/// long): Patroni first, with what it runs in its process group, so that no
/// node is started again; PostgreSQL's immediate shutdown; etcd; then
/// anything else still running from the directory.
pub(super) fn kill(sb: &Sandbox) {
    let p = procs(sb);
    for &pid in &p.patronis {
        // SAFETY: as in signal(); the group is the one Patroni was started in.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    signal(&p.postmasters, libc::SIGQUIT);
    signal(&p.etcd.into_iter().collect::<Vec<_>>(), libc::SIGKILL);
    let mut all: Vec<i32> = p.patronis.iter().chain(&p.postmasters).chain(&p.etcd).copied().collect();
    all.extend(leftovers(&sb.dir));
    // An immediate shutdown takes PostgreSQL a moment; a Ctrl-C must end within 2 s.
    if !gone(&all, &sb.dir, Duration::from_millis(800)) {
        let left = leftovers(&sb.dir);
        signal(&left, libc::SIGKILL);
        gone(&left, &sb.dir, Duration::from_secs(3));
    }
}

/// A clean stop: every Patroni stops its PostgreSQL (fast shutdown), then
/// etcd stops; whatever is left after `limit` is killed. A synchronous
/// standby's Patroni first waits up to two of its cycles (4 s) to be
/// released from that role. Once every PostgreSQL is down, a Patroni still
/// tidying up (its etcd watch, its REST API) gets a second: its data is
/// about to be removed anyway.
pub(super) fn stop(sb: &Sandbox, limit: Duration) {
    let p = procs(sb);
    signal(&p.patronis, libc::SIGTERM);
    let end = Instant::now() + limit;
    let postmasters_down = gone(&p.postmasters, &sb.dir, limit) && {
        // A postmaster Patroni started while it got the signal.
        let started = procs(sb).postmasters;
        gone(&started, &sb.dir, end.saturating_duration_since(Instant::now()))
    };
    if postmasters_down {
        gone(&p.patronis, &sb.dir, Duration::from_secs(1));
        // etcd last: no Patroni uses it any more.
        let etcd: Vec<i32> = p.etcd.into_iter().collect();
        signal(&etcd, libc::SIGTERM);
        gone(&etcd, &sb.dir, Duration::from_secs(2));
    }
    kill(sb);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(nodes: Option<u32>) -> StartOpts {
        StartOpts {
            kind: super::super::Kind::Patroni,
            profile: "packaged".into(),
            sets: vec![],
            port: None,
            dir: None,
            user: "u".into(),
            password: "p".into(),
            database: "d".into(),
            machine: super::super::profile::Machine { ram: 1 << 30, cores: 2, data: None },
            tls_dir: None,
            tls_only_user: None,
            timeout: Duration::from_secs(1),
            nodes,
            sync: false,
        }
    }

    #[test]
    fn the_url_names_every_node_and_asks_for_the_leader() {
        let o = opts(Some(3));
        let t = Tools { patroni: "/usr/bin/patroni".into(), patronictl: "/usr/bin/patronictl".into(), etcd: "/usr/bin/etcd".into() };
        let c = layout(&o, Path::new("/s"), 16432, &t);
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

    #[test]
    fn readiness_needs_one_leader_and_streaming_replicas() {
        let h = |r: bool, s: &str, streaming: u32, sync: u32| Some(NodeHealth { in_recovery: r, receiver: s.into(), streaming, sync_standbys: sync });
        let ready = |nodes: Vec<Option<NodeHealth>>, roles: &[&str], sync: bool| Health { nodes, roles: roles.iter().map(|s| s.to_string()).collect() }.ready(sync);
        let both = ["leader", "sync_standby"];
        assert!(ready(vec![h(false, "", 1, 0), h(true, "streaming", 0, 0)], &["leader", "replica"], false));
        assert!(!ready(vec![h(false, "", 1, 0), h(true, "streaming", 0, 0)], &both, true));
        assert!(ready(vec![h(false, "", 1, 1), h(true, "streaming", 0, 0)], &both, true));
        // Patroni has not named the sync standby yet, or sees a member not running.
        assert!(!ready(vec![h(false, "", 1, 1), h(true, "streaming", 0, 0)], &["leader", "replica"], true));
        assert!(!ready(vec![h(false, "", 1, 0), h(true, "streaming", 0, 0)], &["leader"], false));
        // The replica streams, the leader does not see it yet (catching up).
        assert!(!ready(vec![h(false, "", 0, 0), h(true, "streaming", 0, 0)], &both, false));
        assert!(!ready(vec![h(false, "", 1, 0), h(true, "starting", 0, 0)], &both, false));
        assert!(!ready(vec![h(false, "", 1, 0), None], &both, false));
        assert!(!ready(vec![h(false, "", 1, 0), h(false, "", 1, 0)], &both, false));
    }
}
