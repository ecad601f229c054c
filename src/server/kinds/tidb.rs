//! A tidb-server with its embedded store (unistore), built once by
//! scripts/build-tidb.sh: no distribution packages it. It speaks MySQL's
//! protocol, so the MySQL-protocol client probes it and makes the accounts.

use super::super::client::{mysql_client, mysql_error, mysql_sql};
use super::super::common::{io, log_file, norm, port_free, wait_ready, write_state, Bins};
use super::super::{environ, Sandbox, StartOpts};
use super::SandboxKind;
use crate::error::{Error, Result};
use crate::usage;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

pub struct Tidb;

/// The profiles' `[tidb]` key that is no system variable but where
/// unistore keeps its data: `"data"` is the sandbox's `data/` on disk;
/// without it the store is in memory (a temp dir in volatile mode, nothing
/// synced).
const PATH: &str = "path";

impl SandboxKind for Tidb {
    fn name(&self) -> &'static str {
        "tidb"
    }

    /// The memory-fit and seed profiles size caches and log files its
    /// embedded store does not have.
    fn without_profile_section(&self, profile: &str) -> Option<String> {
        Some(format!("profile {profile} has no [tidb] section: TiDB's defaults (store in memory)"))
    }

    /// SET GLOBAL takes a plain number of bytes.
    fn size_setting(&self, mib: u64) -> String {
        (mib << 20).to_string()
    }

    fn default_port(&self) -> u16 {
        14000
    }

    fn binaries(&self) -> Result<Bins> {
        Ok(Bins { server: tidb_server()?, init: None, client: mysql_client()?, ctl: None, tools: vec![] })
    }

    /// The tidb-server in `dir` (`--basedir`, or a version built by scripts/build-tidb.sh).
    fn binaries_in(&self, dir: &Path) -> Result<Bins> {
        let server = dir.join("tidb-server");
        if !server.is_file() {
            return Err(usage!("no tidb-server in {}: {BUILD_TIDB}, or give the directory of one", dir.display()));
        }
        Ok(Bins { server, init: None, client: mysql_client()?, ctl: None, tools: vec![] })
    }

    /// TiDB publishes no release tags to the Go module proxy: a version is
    /// a commit's pseudo-version, built once by `scripts/build-tidb.sh
    /// --version` into the cache, where this finds it.
    fn fetch(&self, version: &str) -> Result<crate::server::builds::Build> {
        let dir = crate::cache::bin_dir().join(format!("tidb-{version}"));
        if !dir.join("tidb-server").is_file() {
            return Err(usage!(
                "--version {version}: TiDB {version} is not built here: `bash scripts/build-tidb.sh --version {version}` builds that commit (TIMESTAMP-COMMIT of its pseudo-version; once, about 8 minutes) into {}, or give --basedir DIR of a tidb-server",
                dir.display()
            ));
        }
        Ok(crate::server::builds::Build { origin: format!("scripts/build-tidb.sh --version {version}"), bindir: dir })
    }

    /// A tidb-server that was built here has no service user: it runs as us.
    fn service_user(&self) -> Option<&'static str> {
        None
    }

    fn version(&self, b: &Bins) -> String {
        tidb_version(&b.server)
    }

    /// Its system variables are known only to a running server: each is
    /// tried with SET GLOBAL once it is up.
    fn known_settings(&self, _b: &Bins, _user: &Option<String>) -> BTreeSet<String> {
        BTreeSet::new()
    }

    fn left_to_server(&self, _key: &str) -> bool {
        true
    }

    fn check_settings(&self, settings: &mut Vec<(String, String)>, _notes: &mut Vec<String>, _sets: &[(String, String)]) -> Result<()> {
        on_disk(settings).map(|_| ())
    }

    /// Its own default's distance from the SQL port (4000 and 10080), or the
    /// next free one above: its HTTP status API (/status, /metrics).
    fn status_port(&self, port: u16) -> Result<Option<u16>> {
        let base = port.checked_add(6080).unwrap_or(10080);
        (base..base.saturating_add(200)).find(|&p| p != port && port_free(p)).map(Some).ok_or_else(|| Error::Io(format!("no free port for TiDB's status API in {base}..{}", base.saturating_add(200))))
    }

    fn lay_out(&self, o: &StartOpts, sb: &mut Sandbox, _b: &Bins) {
        sb.socket = sb.dir.join("tidb.sock");
        sb.url = super::url("mysql", o, sb.port);
    }

    /// What a commit promises here differs from the other kinds' profiles:
    /// said in a note at each start.
    fn start(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins, _user: &Option<String>) -> Result<()> {
        let notes = start(o, sb, b)?;
        sb.notes.extend(notes);
        write_state(sb)
    }

    fn pid_files(&self, dir: &Path) -> Vec<PathBuf> {
        vec![dir.join("launch.pid")]
    }

    fn files(&self) -> &'static [&'static str] {
        &[
            "stdout.log",
            "launch.pid",
            "tidb.toml",
            "tidb.log",
            "tidb-slow.log",
            "tidb.sock",
            // What TiDB writes next to its log: memory records of queries near
            // their quota, plan replayer files.
            "oom_record",
            "replayer",
        ]
    }
}

/// What to do when there is no tidb-server: no distribution packages it.
const BUILD_TIDB: &str = "build it with `bash scripts/build-tidb.sh` (once; about 6 minutes)";

/// tidb-server: `FAIRBENCH_TIDB` (a path), else on PATH, else where
/// scripts/build-tidb.sh puts it (~/.cache/fairbench/bin, XDG_CACHE_HOME respected).
fn tidb_server() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("FAIRBENCH_TIDB").filter(|v| !v.is_empty()).map(PathBuf::from) {
        return if p.is_file() { Ok(p) } else { Err(usage!("FAIRBENCH_TIDB={}: no such file: {BUILD_TIDB}, or point it at a tidb-server", p.display())) };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("tidb-server"))
        .chain([crate::cache::bin_dir().join("tidb-server")])
        .find(|p| p.is_file())
        .ok_or_else(|| usage!("tidb-server not found (FAIRBENCH_TIDB, PATH, ~/.cache/fairbench/bin): {BUILD_TIDB}"))
}

/// A value in `SET GLOBAL k = v`: numbers as they are, anything else quoted.
fn sql_value(v: &str) -> String {
    if v.parse::<f64>().is_ok_and(f64::is_finite) {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

fn start(o: &StartOpts, sb: &Sandbox, b: &Bins) -> Result<Vec<String>> {
    let d = &sb.dir;
    let tmp = d.join("tmp");
    fs::create_dir_all(&tmp).map_err(|e| io(tmp.display(), e))?;
    let status = sb.status_port.expect("claimed with the port");
    let store = if on_disk(&sb.settings)? { d.join("data") } else { PathBuf::new() };
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
    let root = |sql: &str| mysql_sql(&b.client, sb.port, "root", "", sql);
    let socket = sb.socket.display().to_string();
    let mut probe = || root("SELECT @@socket").is_ok_and(|out| out.trim() == socket);
    let mut alive = || matches!(child.try_wait(), Ok(None));
    wait_ready(sb, &mut probe, &mut alive, &log, o.timeout)?;
    let mut notes = vec![if store.as_os_str().is_empty() {
        "tidb: the store (unistore) is in memory: nothing is synced, nothing outlives the server".to_string()
    } else {
        format!("tidb: the store (unistore) is on disk in {}: each commit written, none synced (unistore has no setting for it)", store.display())
    }];
    for (k, v) in sb.settings.iter().filter(|(k, _)| k != PATH) {
        if let Err(e) = root(&format!("SET GLOBAL {k} = {}", sql_value(v))) {
            let why = mysql_error(&e);
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
    root(&sql).map_err(|e| Error::Io(format!("could not create the account {} and database {}: {}", o.user, o.database, mysql_error(&e))))?;
    Ok(notes)
}

/// Whether a TiDB sandbox keeps its store on disk, in its `data/` (the
/// profile's or --set's `path = "data"`), or in memory (no path). Also
/// refuses names that could not be a system variable in `SET GLOBAL`.
fn on_disk(settings: &[(String, String)]) -> Result<bool> {
    if let Some((k, _)) = settings.iter().find(|(k, _)| k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')) {
        return Err(usage!("--set {k}: not a TiDB system variable name (letters, digits and _)"));
    }
    match settings.iter().find(|(k, _)| k == PATH).map(|(_, v)| v.as_str()) {
        None | Some("") => Ok(false),
        Some("data") => Ok(true),
        Some(v) => Err(usage!("{0}={v}: TiDB's store is in memory (no {0}) or in the sandbox's data/ ({0}=data)", PATH)),
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

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use super::*;
    use crate::server::profile::{resolve, scale, Machine, PROFILES};

    const M: Machine = Machine { ram: 24 << 30, cores: 2, data: Some(1 << 30) };

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
    fn tidbs_store_is_in_memory_unless_path_is_data() {
        let s = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        assert!(!on_disk(&[]).unwrap());
        assert!(!on_disk(&s("path", "")).unwrap());
        assert!(on_disk(&s("path", "data")).unwrap());
        assert!(on_disk(&s("path", "/elsewhere")).is_err());
        assert!(on_disk(&s("x; DROP", "1")).is_err());
    }

    #[test]
    fn tidb_is_on_disk_only_where_a_profile_says_so() {
        let k = Kind::parse("tidb").unwrap();
        let path = |p: &str| resolve(p, k, &M).unwrap().settings.iter().find(|(k, _)| k == PATH).map(|(_, v)| v.clone());
        assert_eq!(path("durable").as_deref(), Some("data"));
        assert_eq!(path("packaged"), None);
        assert_eq!(path("relaxed"), None);
        assert!(resolve("packaged", k, &M).unwrap().notes.is_empty());
        assert!(resolve("seed-000", k, &M).unwrap().notes[0].contains("no [tidb] section"));
    }

    #[test]
    fn scaled_values_are_in_its_units() {
        let k = Kind::parse("tidb").unwrap();
        assert_eq!(scale("data*0.25", k, &M).unwrap(), "268435456");
        for (n, _) in PROFILES {
            resolve(n, k, &M).unwrap_or_else(|e| panic!("{n}: {e}"));
        }
    }
}
