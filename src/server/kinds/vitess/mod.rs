//! A sharded MySQL sandbox: Vitess in front of N MariaDB servers, all on
//! 127.0.0.1, in one sandbox directory. etcd holds the topology, vtctld
//! manages it, each shard is one MariaDB primary behind its vttablet, and
//! vtgate is the MySQL server clients connect to: it routes each
//! statement to the shards its sharding key names (or to all of them).
//!
//! Vitess's programs are built once from its Go module by
//! scripts/build-vitess.sh; the MariaDB servers are Debian's, started
//! here from config files written into the sandbox (the mariadb kind's
//! profile section sizes them). Vitess refuses to run as root: every
//! process runs as the `mysql` account.
//!
//! Ports: the sandbox claims a block of [`PORTS`] from its base port P:
//! vtgate's MySQL port P, its HTTP status P+1 and gRPC P+2; vtctld's HTTP
//! P+3 and gRPC P+4; etcd's client P+5 and peer P+6; shard k (from 0):
//! MariaDB P+10+3k, its tablet's HTTP P+11+3k and gRPC P+12+3k.

mod procs;
mod start;

use super::super::client::mysql_client;
use super::super::common::{version_flag, Bins};
use super::super::{Sandbox, StartOpts};
use super::mariadb::Mariadb;
use super::SandboxKind;
use crate::error::{Error, Result};
use crate::usage;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub struct Vitess;

/// Ports a sharded sandbox claims from its base port (see the module's comment).
const PORTS: u16 = 34;
/// Vitess's own default MySQL port for vtgate.
const BASE_PORT: u16 = 15306;
/// Shards when --shards is not given.
const DEFAULT_SHARDS: u32 = 2;
/// One shard is a keyspace's whole key range; eight fit the port block.
const SHARDS: std::ops::RangeInclusive<u32> = 1..=8;
/// vtgate's transaction modes; MULTI is its default.
const MODES: &[&str] = &["SINGLE", "MULTI", "TWOPC"];
/// Its programs, from scripts/build-vitess.sh.
const PROGRAMS: &[&str] = &["vtgate", "vttablet", "vtctld", "vtctldclient"];
use crate::db::engines::VITESS_BINDIR_VAR as BINDIR_VAR;
/// What to do without them: no distribution packages Vitess.
const BUILD: &str = "build them with `bash scripts/build-vitess.sh` (once; about 6 minutes)";
/// The topology cell every process of the sandbox is in.
const CELL: &str = "zone1";

/// The MariaDB kind's servers, for what is about the shards' servers.
const MARIADB: Mariadb = Mariadb;

/// The sharded keyspace's layout, as stored in the state file.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Shards {
    /// The keyspace: the sandbox's database name.
    pub keyspace: String,
    pub shards: Vec<Shard>,
    /// vtgate's HTTP status port (`/debug/vars`, `/metrics`).
    pub vtgate_status_port: u16,
    pub vtgate_grpc_port: u16,
    pub vtctld_port: u16,
    pub vtctld_grpc_port: u16,
    pub etcd_port: u16,
    pub etcd_peer_port: u16,
    /// vtgate's transaction mode.
    pub transaction_mode: String,
    /// `vtctldclient --server 127.0.0.1:PORT`: the ready-to-use command line.
    pub vtctldclient: String,
}

/// One shard: its key range, its MariaDB and the tablet in front of it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// The key range as Vitess names it: `-80`, `80-`.
    pub name: String,
    /// Its tablet's alias: `zone1-0000000100`.
    pub tablet: String,
    pub mysql_port: u16,
    pub tablet_port: u16,
    pub tablet_grpc_port: u16,
    /// Its MariaDB's config, data, socket and logs, and its tablet's log.
    pub dir: PathBuf,
    /// The MariaDB's own URL (bypassing Vitess).
    pub url: String,
}

/// `server start vitess`'s own options.
#[derive(clap::Args, Debug, Default)]
#[command(next_help_heading = "vitess (MariaDB shards behind vtgate)")]
struct VitessArgs {
    /// The number of shards, each a MariaDB primary behind its tablet (1 to 8; default 2)
    #[arg(long)]
    shards: Option<u32>,
    /// vtgate's transaction mode: SINGLE, MULTI (its default) or TWOPC
    #[arg(long, value_name = "MODE")]
    transaction_mode: Option<String>,
}

impl SandboxKind for Vitess {
    fn name(&self) -> &'static str {
        "vitess"
    }

    /// The shards' servers are MariaDB servers: a profile sizes them as it
    /// sizes a mariadb sandbox.
    fn profile_section(&self) -> &'static str {
        MARIADB.profile_section()
    }

    fn size_setting(&self, mib: u64) -> String {
        MARIADB.size_setting(mib)
    }

    fn default_port(&self) -> u16 {
        BASE_PORT
    }

    fn ports(&self) -> u16 {
        PORTS
    }

    fn augment_args(&self, cmd: clap::Command) -> clap::Command {
        <VitessArgs as clap::Args>::augment_args(cmd)
    }

    fn check(&self, o: &StartOpts) -> Result<()> {
        shard_count(o)?;
        mode(o)?;
        if o.tls_dir.is_some() {
            return Err(usage!("--tls-dir: the Vitess sandbox offers no TLS; use a mariadb sandbox for TLS"));
        }
        if o.port.is_some_and(|p| p.checked_add(PORTS).is_none()) {
            return Err(usage!("--port {}: the sandbox needs {PORTS} ports from it: choose a port below {}", o.port.unwrap_or(0), u16::MAX - PORTS + 1));
        }
        Ok(())
    }

    /// Vitess's programs first: without them, that is what to build.
    fn binaries(&self) -> Result<Bins> {
        let mut tools = programs()?;
        tools.push(("etcd", super::super::common::find_bin(&["etcd"], &[]).ok_or_else(|| super::super::common::missing("etcd", "etcd-server"))?));
        let mut b = MARIADB.binaries()?;
        b.client = mysql_client()?;
        b.tools = tools;
        Ok(b)
    }

    fn service_user(&self) -> Option<&'static str> {
        MARIADB.service_user()
    }

    /// Vitess's release and the MariaDB behind it: `24.0.4 (MariaDB 10.11.19-MariaDB-0+deb12u1)`.
    fn version(&self, b: &Bins) -> String {
        format!("{} (MariaDB {})", vitess_version(b.tool("vtgate")), version_flag(&b.server))
    }

    fn known_settings(&self, b: &Bins, user: &Option<String>) -> BTreeSet<String> {
        MARIADB.known_settings(b, user)
    }

    fn left_to_server(&self, key: &str) -> bool {
        MARIADB.left_to_server(key)
    }

    fn lay_out(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins) {
        let s = layout(o, &sb.dir, sb.port, b);
        sb.socket = PathBuf::new();
        sb.status_port = Some(s.vtgate_status_port);
        sb.url = format!("{}?status-port={}&admin-port={}", super::url("mysql", o, sb.port), s.vtgate_status_port, s.vtctld_grpc_port);
        sb.shards = Some(s);
    }

    fn start(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
        start::start(o, sb, b, user)
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
        let mut v: Vec<PathBuf> = shard_dirs(sb);
        v.push(sb.dir.join("bin"));
        v
    }

    fn env_lines(&self, sb: &Sandbox, quote: &dyn Fn(&str) -> String) -> String {
        sb.shards.as_ref().map(|s| env_lines(s, quote)).unwrap_or_default()
    }

    fn details(&self, sb: &Sandbox) -> Vec<String> {
        sb.shards.as_ref().map(details).unwrap_or_default()
    }
}

/// What a sandbox in a directory it did not make leaves there: removed at stop.
const FILES: &[&str] = &["etcd", "etcd.log", "etcd.pid", "vtctld.log", "vtctld.pid", "vtgate.log", "vtgate.pid", "users.json", "credentials.json", "vtctldclient.log"];

/// The shards' directories.
fn shard_dirs(sb: &Sandbox) -> Vec<PathBuf> {
    sb.shards.iter().flat_map(|s| s.shards.iter().map(|k| k.dir.clone())).collect()
}

/// The number of shards asked for, checked.
fn shard_count(o: &StartOpts) -> Result<u32> {
    let n = o.kind_args.get::<VitessArgs>()?.shards.unwrap_or(DEFAULT_SHARDS);
    if !SHARDS.contains(&n) {
        return Err(usage!("--shards {n}: a Vitess sandbox has {} to {} shards", SHARDS.start(), SHARDS.end()));
    }
    Ok(n)
}

/// vtgate's transaction mode asked for, checked (upper case).
fn mode(o: &StartOpts) -> Result<String> {
    let m = o.kind_args.get::<VitessArgs>()?.transaction_mode.as_deref().unwrap_or("MULTI").to_ascii_uppercase();
    if !MODES.contains(&m.as_str()) {
        return Err(usage!("--transaction-mode {m}: use SINGLE, MULTI or TWOPC"));
    }
    Ok(m)
}

/// The key ranges of `n` equal shards, as Vitess names them: the first
/// byte of the keyspace id split evenly (`-80`, `80-`; one shard: `-`).
pub(super) fn key_ranges(n: u32) -> Vec<String> {
    let bounds: Vec<String> = (1..n).map(|k| format!("{:02x}", k * 256 / n)).collect();
    (0..n as usize).map(|i| format!("{}-{}", if i == 0 { "" } else { &bounds[i - 1] }, bounds.get(i).map(String::as_str).unwrap_or(""))).collect()
}

/// The layout of a sandbox whose block starts at `base`, in `dir` (the
/// options were checked by `check`).
fn layout(o: &StartOpts, dir: &Path, base: u16, b: &Bins) -> Shards {
    let n = shard_count(o).unwrap_or(DEFAULT_SHARDS);
    let shards = key_ranges(n)
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let p = base + 10 + 3 * i as u16;
            Shard {
                name,
                tablet: format!("{CELL}-{:010}", 100 + i),
                mysql_port: p,
                tablet_port: p + 1,
                tablet_grpc_port: p + 2,
                dir: dir.join(format!("shard{}", i + 1)),
                url: format!("mysql://{}:{}@127.0.0.1:{p}/{}", o.user, o.password, o.database),
            }
        })
        .collect();
    Shards {
        keyspace: o.database.clone(),
        shards,
        vtgate_status_port: base + 1,
        vtgate_grpc_port: base + 2,
        vtctld_port: base + 3,
        vtctld_grpc_port: base + 4,
        etcd_port: base + 5,
        etcd_peer_port: base + 6,
        transaction_mode: mode(o).unwrap_or_else(|_| "MULTI".into()),
        vtctldclient: format!("{} --server 127.0.0.1:{}", b.tool("vtctldclient").display(), base + 4),
    }
}

/// Vitess's programs: from `FAIRBENCH_VITESS_BINDIR`, else PATH, else where
/// scripts/build-vitess.sh puts them.
fn programs() -> Result<Vec<(&'static str, PathBuf)>> {
    PROGRAMS
        .iter()
        .map(|n| {
            crate::cache::built(n, BINDIR_VAR).map(|p| (*n, p)).ok_or_else(|| match super::super::common::bindir_override(BINDIR_VAR) {
                Some(d) => usage!("{n} not found in {BINDIR_VAR}={}: {BUILD}", d.display()),
                None => usage!("{n} not found ({BINDIR_VAR}, PATH, {}): {BUILD}", super::super::cache_bin_dir().display()),
            })
        })
        .collect()
}

/// `vtgate --version`: `vtgate version Version: 24.0.4 (Git revision ...)` -> `24.0.4`.
fn vitess_version(vtgate: &Path) -> String {
    let out = crate::server::environ::command(vtgate).arg("--version").stdin(std::process::Stdio::null()).output().map(|o| String::from_utf8_lossy(&o.stdout).to_string()).unwrap_or_default();
    out.split("Version:").nth(1).and_then(|r| r.split_whitespace().next()).unwrap_or("").to_string()
}

/// Lines said once it is up: vtgate's status page, each shard, vtctldclient.
fn details(s: &Shards) -> Vec<String> {
    let mut v = vec![format!("vtgate: http://127.0.0.1:{}/debug/status (transaction mode {})", s.vtgate_status_port, s.transaction_mode)];
    for k in &s.shards {
        v.push(format!("shard {}/{}: tablet {} (http://127.0.0.1:{}), MariaDB {}", s.keyspace, k.name, k.tablet, k.tablet_port, k.url));
    }
    v.push(format!("vtctldclient: {} GetTablets", s.vtctldclient));
    v
}

/// `export` lines of a sharded sandbox, after the sandbox's own.
fn env_lines(s: &Shards, q: &dyn Fn(&str) -> String) -> String {
    let urls: Vec<&str> = s.shards.iter().map(|k| k.url.as_str()).collect();
    let names: Vec<&str> = s.shards.iter().map(|k| k.name.as_str()).collect();
    format!("export FAIRBENCH_SANDBOX_SHARD_URLS={}\nexport FAIRBENCH_SANDBOX_SHARDS={}\nexport FAIRBENCH_SANDBOX_VTCTLDCLIENT={}\n", q(&urls.join(" ")), q(&names.join(" ")), q(&s.vtctldclient))
}

/// Why a start failed, with the log that says it.
fn failed(what: &str, log: &Path) -> Error {
    Error::Io(format!("{what}: {} (log: {})", super::super::common::last_line(log), log.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ranges_split_the_first_byte_evenly() {
        assert_eq!(key_ranges(1), vec!["-"]);
        assert_eq!(key_ranges(2), vec!["-80", "80-"]);
        assert_eq!(key_ranges(4), vec!["-40", "40-80", "80-c0", "c0-"]);
        assert_eq!(key_ranges(3), vec!["-55", "55-aa", "aa-"]);
        assert_eq!(key_ranges(8).len(), 8);
    }
}
