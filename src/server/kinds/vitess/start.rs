//! Starting a sharded sandbox: etcd, vtctld, the keyspace, each shard's
//! MariaDB and tablet (made its shard's primary), then vtgate; ready when
//! vtgate serves every shard's primary.

use super::super::super::client::mysql_sql;
use super::super::super::common::{as_user, chown, io, Bins, PORT_TAKEN};
use super::super::super::daemon::{self, http_get, wait};
use super::super::super::{Sandbox, StartOpts};
use super::super::mariadb::{accounts, answers, init_and_spawn, Node};
use super::{failed, Shards, CELL};
use crate::error::{Error, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Instant;

/// The topology flags every Vitess program takes.
fn topo(s: &Shards) -> Vec<String> {
    ["--topo-implementation", "etcd2", "--topo-global-server-address", &format!("127.0.0.1:{}", s.etcd_port), "--topo-global-root", "/vitess/global"].map(String::from).to_vec()
}

/// Vitess's programs where the service account can run them: hard links in
/// the sandbox's `bin/` (a copy across file systems), since the cache they
/// were built into may be under a home only root enters.
fn place_programs(dir: &Path, b: &Bins) -> Result<Vec<(&'static str, PathBuf)>> {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).map_err(|e| io(bin.display(), e))?;
    let mut out = Vec::new();
    for (name, from) in b.tools.iter().filter(|(n, _)| super::PROGRAMS.contains(n)) {
        let to = bin.join(name);
        if !to.exists() && fs::hard_link(from, &to).is_err() {
            fs::copy(from, &to).map_err(|e| io(format!("copying {} to {}", from.display(), to.display()), e))?;
        }
        out.push((*name, to));
    }
    Ok(out)
}

/// One vtctldclient command against the sandbox's vtctld; Ok(stdout).
fn vtctl(progs: &[(&str, PathBuf)], s: &Shards, user: &Option<String>, args: &[&str]) -> std::result::Result<String, String> {
    let prog = &progs.iter().find(|(n, _)| *n == "vtctldclient").expect("placed").1;
    let o = as_user(user, prog).arg("--server").arg(format!("127.0.0.1:{}", s.vtctld_grpc_port)).args(args).output().map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).to_string())
    } else {
        let err = String::from_utf8_lossy(&o.stderr);
        // Its errors are JSON log lines: the message is what to say.
        let line = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_string();
        let msg = serde_json::from_str::<serde_json::Value>(&line).ok().and_then(|v| v["msg"].as_str().map(str::to_string)).unwrap_or(line);
        Err(msg)
    }
}

/// A JSON file only the service account reads (passwords).
fn write_secret(path: &Path, v: &serde_json::Value, user: &Option<String>) -> Result<()> {
    fs::write(path, v.to_string()).map_err(|e| io(path.display(), e))?;
    let _ = fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600));
    chown(path, user)
}

/// The processes started so far, watched while waiting: one that exits
/// ends the start with its log's last line.
struct Started(Vec<(String, Child, PathBuf)>);

impl Started {
    /// A process that exited ends the start; one whose port was taken says
    /// so in the words `server::start` tries the next free ports on.
    fn check(&mut self) -> Result<()> {
        for (what, child, log) in self.0.iter_mut() {
            if let Ok(Some(_)) = child.try_wait() {
                let text = fs::read_to_string(&*log).unwrap_or_default().to_ascii_lowercase();
                if text.contains(&PORT_TAKEN.to_ascii_lowercase()) {
                    return Err(Error::Io(format!("{what} exited during start-up: a port of the sandbox's block on 127.0.0.1: {PORT_TAKEN} (log: {})", log.display())));
                }
                return Err(failed(&format!("{what} exited during start-up"), log));
            }
        }
        Ok(())
    }
}

pub(super) fn start(o: &StartOpts, sb: &Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
    let s = sb.shards.as_ref().ok_or_else(|| Error::Io("sharded sandbox without its layout".into()))?;
    let deadline = Instant::now() + o.timeout;
    let too_long = |why: String| Error::Io(format!("{} was not ready within {}s: {why}", sb.name, o.timeout.as_secs()));
    let progs = place_programs(&sb.dir, b)?;
    let prog = |n: &str| progs.iter().find(|(p, _)| *p == n).expect("placed").1.clone();
    // vtgate's accounts, and the account each tablet reaches its MariaDB with.
    write_secret(&sb.dir.join("users.json"), &serde_json::json!({ &o.user: [{"Password": o.password, "UserData": o.user}] }), &None)?;
    write_secret(&sb.dir.join("credentials.json"), &serde_json::json!({ &o.user: [o.password] }), &None)?;
    chown(&sb.dir, user)?;
    let mut started = Started(Vec::new());

    let etcd_log = sb.dir.join("etcd.log");
    let etcd = daemon::etcd(sb, s.etcd_port, s.etcd_peer_port, b.tool("etcd"), user)?;
    started.0.push(("etcd".into(), etcd, etcd_log.clone()));
    if !wait(deadline, &mut || {
        started.check()?;
        Ok(http_get(s.etcd_port, "/version").is_some_and(|b| b.contains("etcdserver")))
    })? {
        return Err(too_long(format!("etcd does not answer on 127.0.0.1:{}", s.etcd_port)));
    }

    let log = sb.dir.join("vtctld.log");
    let mut args = topo(s);
    args.extend(["--service-map", "grpc-vtctl,grpc-vtctld", "--port", &s.vtctld_port.to_string(), "--grpc-port", &s.vtctld_grpc_port.to_string()].map(String::from));
    let vtctld = daemon::spawn(&prog("vtctld"), &args, user, &sb.dir, &log, &sb.dir.join("vtctld.pid"))?;
    started.0.push(("vtctld".into(), vtctld, log));
    // The cell and the keyspace, once vtctld answers.
    let addr = format!("127.0.0.1:{}", s.etcd_port);
    let mut last = String::new();
    let cell = ["AddCellInfo", "--root", &format!("/vitess/{CELL}"), "--server-address", &addr, CELL];
    if !wait(deadline, &mut || {
        started.check()?;
        match vtctl(&progs, s, user, &cell) {
            Ok(_) => Ok(true),
            Err(e) if e.contains("already exists") => Ok(true),
            Err(e) => {
                last = e;
                Ok(false)
            }
        }
    })? {
        return Err(too_long(format!("vtctld did not take the topology cell: {last}")));
    }
    vtctl(&progs, s, user, &["CreateKeyspace", "--durability-policy=none", &s.keyspace]).map_err(|e| Error::Io(format!("creating keyspace {}: {e}", s.keyspace)))?;
    vtctl(&progs, s, user, &["ApplyVSchema", "--vschema", r#"{"sharded": true}"#, &s.keyspace]).map_err(|e| Error::Io(format!("making keyspace {} sharded: {e}", s.keyspace)))?;

    // Each shard's MariaDB, then its tablet.
    for (i, k) in s.shards.iter().enumerate() {
        fs::create_dir_all(&k.dir).map_err(|e| io(k.dir.display(), e))?;
        let socket = k.dir.join("mysqld.sock");
        let node = Node { dir: &k.dir, port: k.mysql_port, socket: &socket, profile: &sb.profile, settings: &sb.settings, server_id: 100 + i as u32, extra: &[], init: accounts(o), tls_dir: None };
        let child = init_and_spawn(&node, b, user, o.timeout)?;
        started.0.push((format!("MariaDB of shard {}", k.name), child, k.dir.join("error.log")));
    }
    for k in &s.shards {
        if !wait(deadline, &mut || {
            started.check()?;
            Ok(answers(b, k.mysql_port, o, &k.dir))
        })? {
            return Err(too_long(format!("the MariaDB of shard {} does not answer on 127.0.0.1:{}", k.name, k.mysql_port)));
        }
    }
    let creds = sb.dir.join("credentials.json").display().to_string();
    for k in &s.shards {
        let mut args = topo(s);
        let socket = k.dir.join("mysqld.sock").display().to_string();
        args.extend(
            [
                "--tablet-path",
                &k.tablet,
                "--tablet-hostname",
                "127.0.0.1",
                "--init-keyspace",
                &s.keyspace,
                "--init-shard",
                &k.name,
                "--init-tablet-type",
                "replica",
                // The tablet serves the sandbox's database, not vt_KEYSPACE.
                "--init-db-name-override",
                &s.keyspace,
                "--port",
                &k.tablet_port.to_string(),
                "--grpc-port",
                &k.tablet_grpc_port.to_string(),
                "--service-map",
                "grpc-queryservice,grpc-tabletmanager,grpc-updatestream",
                "--db-socket",
                &socket,
                // A MariaDB started here, not by Vitess's mysqlctl: the
                // tablet is told it is its shard's primary below.
                "--unmanaged",
                "--db-credentials-file",
                &creds,
                "--health-check-interval",
                "2s",
            ]
            .map(String::from),
        );
        for role in ["app", "dba", "allprivs", "filtered", "repl", "appdebug"] {
            args.push(format!("--db-{role}-user={}", o.user));
            args.push(format!("--db-{role}-use-ssl=false"));
        }
        let log = k.dir.join("vttablet.log");
        let child = daemon::spawn(&prog("vttablet"), &args, user, &k.dir, &log, &k.dir.join("vttablet.pid"))?;
        started.0.push((format!("the tablet of shard {}", k.name), child, log));
    }
    // Each tablet, once registered, is told it is its shard's primary.
    for k in &s.shards {
        let mut last = String::new();
        if !wait(deadline, &mut || {
            started.check()?;
            match vtctl(&progs, s, user, &["TabletExternallyReparented", &k.tablet]) {
                Ok(_) => Ok(true),
                Err(e) => {
                    last = e;
                    Ok(false)
                }
            }
        })? {
            return Err(too_long(format!("the tablet of shard {} did not become its primary: {last}", k.name)));
        }
    }

    let log = sb.dir.join("vtgate.log");
    let mut args = topo(s);
    args.extend(
        [
            "--cell",
            CELL,
            "--cells-to-watch",
            CELL,
            "--tablet-types-to-wait",
            "PRIMARY",
            "--port",
            &s.vtgate_status_port.to_string(),
            "--grpc-port",
            &s.vtgate_grpc_port.to_string(),
            "--mysql-server-port",
            &sb.port.to_string(),
            "--mysql-server-bind-address",
            "127.0.0.1",
            "--mysql-auth-server-impl",
            "static",
            "--mysql-auth-server-static-file",
            &sb.dir.join("users.json").display().to_string(),
            // The workloads' sharding is applied through vtgate (ALTER VSCHEMA).
            "--vschema-ddl-authorized-users",
            &o.user,
            "--transaction-mode",
            &s.transaction_mode,
            "--service-map",
            "grpc-vtgateservice",
        ]
        .map(String::from),
    );
    let vtgate = daemon::spawn(&prog("vtgate"), &args, user, &sb.dir, &log, &sb.dir.join("vtgate.pid"))?;
    started.0.push(("vtgate".into(), vtgate, log));
    let want = s.shards.len();
    let mut seen = String::new();
    if !wait(deadline, &mut || {
        started.check()?;
        let Ok(out) = mysql_sql(&b.client, sb.port, &o.user, &o.password, "SHOW VITESS_TABLETS") else { return Ok(false) };
        let serving = out.lines().filter(|l| l.contains("\tPRIMARY\tSERVING\t")).count();
        seen = format!("{serving} of {want} shard primaries serving");
        Ok(serving == want && mysql_sql(&b.client, sb.port, &o.user, &o.password, &format!("USE `{}`", s.keyspace.replace('`', "``"))).is_ok())
    })? {
        return Err(too_long(format!("vtgate on 127.0.0.1:{}: {}", sb.port, if seen.is_empty() { "not answering".into() } else { seen })));
    }
    Ok(())
}
