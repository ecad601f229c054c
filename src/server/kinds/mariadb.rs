//! A MariaDB (or MySQL) server from the installed packages, or from
//! `FAIRBENCH_MARIADB_BINDIR`.

use super::super::client::{mysql_client, mysql_sql};
use super::super::common::{bindir_override, chown, find_bin, in_dir, io, last_line, log_file, missing, same_dir, version_flag, wait_child, wait_ready, Bins};
use super::super::{environ, Sandbox, StartOpts};
use super::SandboxKind;
use crate::error::{Error, Result};
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

pub struct Mariadb;

impl SandboxKind for Mariadb {
    fn name(&self) -> &'static str {
        "mariadb"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["mysql"]
    }

    fn size_setting(&self, mib: u64) -> String {
        format!("{mib}M")
    }

    fn default_port(&self) -> u16 {
        13306
    }

    fn binaries_in(&self, d: &std::path::Path) -> Result<Bins> {
        Ok(Bins {
            server: in_dir(d, &["mariadbd", "mysqld"], "mariadb-server")?,
            init: Some(in_dir(d, &["mariadb-install-db", "mysql_install_db"], "mariadb-server")?),
            client: in_dir(d, &["mariadb", "mysql"], "mariadb-client")?,
            ctl: None,
            tools: vec![],
        })
    }

    fn binaries(&self) -> Result<Bins> {
        Ok(match bindir_override("FAIRBENCH_MARIADB_BINDIR") {
            Some(d) => self.binaries_in(&d)?,
            None => Bins {
                server: find_bin(&["mariadbd", "mysqld"], &[]).ok_or_else(|| missing("mariadbd", "mariadb-server"))?,
                init: Some(find_bin(&["mariadb-install-db", "mysql_install_db"], &[]).ok_or_else(|| missing("mariadb-install-db", "mariadb-server"))?),
                client: mysql_client()?,
                ctl: None,
                tools: vec![],
            },
        })
    }

    fn service_user(&self) -> Option<&'static str> {
        Some("mysql")
    }

    fn version(&self, b: &Bins) -> String {
        version_flag(&b.server)
    }

    fn known_settings(&self, b: &Bins, _user: &Option<String>) -> BTreeSet<String> {
        let mut set = BTreeSet::new();
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
        set
    }

    /// A plugin's settings loaded by the same config, and `loose-` ones
    /// (ignored when unknown); `log_bin` is the profiles' word for
    /// `log-bin=PATH`.
    fn left_to_server(&self, key: &str) -> bool {
        ["s3_", "rocksdb_", "loose_", "provider_", "plugin_"].iter().any(|p| key.starts_with(p)) || key == "log_bin"
    }

    fn lay_out(&self, o: &StartOpts, sb: &mut Sandbox, _b: &Bins) {
        sb.socket = sb.dir.join("mysqld.sock");
        sb.url = super::url("mysql", o, sb.port);
    }

    fn start(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
        start(o, sb, b, user)
    }

    fn pid_files(&self, dir: &Path) -> Vec<PathBuf> {
        vec![dir.join("mysqld.pid"), dir.join("launch.pid")]
    }

    fn files(&self) -> &'static [&'static str] {
        &["my.cnf", "init.sql", "install.log", "error.log", "stdout.log", "launch.pid", "mysqld.pid", "server-key.pem", "binlog.index"]
    }
}

fn start(o: &StartOpts, sb: &Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
    let node = Node { dir: &sb.dir, port: sb.port, socket: &sb.socket, profile: &sb.profile, settings: &sb.settings, server_id: 1, extra: &[], init: accounts(o), tls_dir: o.tls_dir.as_deref() };
    let mut child = init_and_spawn(&node, b, user, o.timeout)?;
    let mut probe = || answers(b, sb.port, o, &sb.dir);
    let mut alive = || matches!(child.try_wait(), Ok(None));
    wait_ready(sb, &mut probe, &mut alive, &sb.dir.join("error.log"), o.timeout)
}

/// Whether the server on `port` answers the sandbox's account and is the
/// one whose data directory is `dir/data` (not another on that port).
pub(super) fn answers(b: &Bins, port: u16, o: &StartOpts, dir: &Path) -> bool {
    mysql_sql(&b.client, port, &o.user, &o.password, "SELECT @@datadir").is_ok_and(|out| same_dir(out.trim(), &dir.join("data")))
}

/// One MariaDB server's place and settings: this kind's server, or a node
/// of a kind whose nodes are MariaDB servers.
pub(super) struct Node<'a> {
    /// Its my.cnf, data, logs and pid file go here.
    pub dir: &'a Path,
    pub port: u16,
    pub socket: &'a Path,
    pub profile: &'a str,
    /// The profile's and --set's settings.
    pub settings: &'a [(String, String)],
    /// Its binary log's server id.
    pub server_id: u32,
    /// Lines the kind needs in its config, after the profile's.
    pub extra: &'a [(&'a str, String)],
    /// The SQL its new data directory is made with (its accounts).
    pub init: String,
    /// A directory with ca.pem, server.pem and server.key: the server offers TLS.
    pub tls_dir: Option<&'a Path>,
}

/// The accounts of a sandbox: its user from anywhere and from localhost,
/// and the TLS-only one when asked for.
pub(super) fn accounts(o: &StartOpts) -> String {
    let q = |s: &str| s.replace('\\', "\\\\").replace('\'', "\\'");
    let (u, p, db) = (q(&o.user), q(&o.password), o.database.replace('`', "``"));
    let mut init = format!(
        "FLUSH PRIVILEGES;\nCREATE DATABASE IF NOT EXISTS `{db}`;\nCREATE USER '{u}'@'%' IDENTIFIED BY '{p}';\nCREATE USER '{u}'@'localhost' IDENTIFIED BY '{p}';\nGRANT ALL PRIVILEGES ON *.* TO '{u}'@'%' WITH GRANT OPTION;\nGRANT ALL PRIVILEGES ON *.* TO '{u}'@'localhost' WITH GRANT OPTION;\n"
    );
    if let Some(t) = &o.tls_only_user {
        let t = q(t);
        init.push_str(&format!("CREATE USER '{t}'@'%' IDENTIFIED BY '{p}' REQUIRE SSL;\nGRANT ALL PRIVILEGES ON `{db}`.* TO '{t}'@'%';\n"));
    }
    init
}

/// Writes the node's my.cnf, makes its data directory and starts its
/// server (in a process group of its own, so a Ctrl-C in the terminal
/// reaches only fairbench); the caller waits until it answers.
pub(super) fn init_and_spawn(n: &Node, b: &Bins, user: &Option<String>, timeout: std::time::Duration) -> Result<std::process::Child> {
    let d = n.dir;
    fs::create_dir_all(d.join("tmp")).map_err(|e| io(d.display(), e))?;
    let mut cnf = String::from("# fairbench sandbox: only this file is read (--defaults-file)\n[mysqld]\n");
    let mut line = |k: &str, v: &str| cnf.push_str(&format!("{k} = {v}\n"));
    if let Some(u) = user {
        line("user", u);
    }
    line("datadir", &d.join("data").display().to_string());
    line("socket", &n.socket.display().to_string());
    line("pid-file", &d.join("mysqld.pid").display().to_string());
    line("log-error", &d.join("error.log").display().to_string());
    line("tmpdir", &d.join("tmp").display().to_string());
    line("port", &n.port.to_string());
    line("bind-address", "127.0.0.1");
    cnf.push_str("skip-name-resolve\n");
    // Debian's server config differs from the compiled-in defaults only in these (and paths).
    let mut line = |k: &str, v: &str| cnf.push_str(&format!("{k} = {v}\n"));
    line("character-set-server", "utf8mb4");
    line("collation-server", "utf8mb4_general_ci");
    line("local-infile", "ON");
    // Where the server's time goes is read from performance_schema's timers
    // (off by default in MariaDB); a profile or --set may turn it off again.
    line("performance-schema", "ON");
    if let Some(t) = n.tls_dir {
        fs::copy(t.join("server.key"), d.join("server-key.pem")).map_err(|e| io(t.join("server.key").display(), e))?;
        let _ = fs::set_permissions(d.join("server-key.pem"), std::os::unix::fs::PermissionsExt::from_mode(0o600));
        line("ssl-ca", &t.join("ca.pem").display().to_string());
        line("ssl-cert", &t.join("server.pem").display().to_string());
        line("ssl-key", &d.join("server-key.pem").display().to_string());
    }
    cnf.push_str(&format!("# profile {}, then --set\n", n.profile));
    let mut binlog = false;
    for (k, v) in n.settings {
        if k == "log_bin" {
            binlog = matches!(v.to_ascii_lowercase().as_str(), "on" | "1" | "true");
            continue;
        }
        cnf.push_str(&format!("{k} = {v}\n"));
    }
    if binlog {
        cnf.push_str(&format!("log-bin = {}\nserver-id = {}\n", d.join("binlog").display(), n.server_id));
    } else {
        cnf.push_str("skip-log-bin\n");
    }
    for (k, v) in n.extra {
        cnf.push_str(&format!("{k} = {v}\n"));
    }
    fs::write(d.join("my.cnf"), cnf).map_err(|e| io(d.join("my.cnf").display(), e))?;
    fs::write(d.join("init.sql"), &n.init).map_err(|e| io(d.join("init.sql").display(), e))?;
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
    wait_child(child, "mariadb-install-db", &log, timeout).map_err(|e| match e {
        Error::Io(m) => Error::Io(format!("{m}; server log: {}", last_line(&d.join("error.log")))),
        e => e,
    })?;
    let mut c = environ::command(&b.server);
    c.arg(format!("--defaults-file={}", d.join("my.cnf").display()));
    if let Some(u) = user {
        c.arg(format!("--user={u}"));
    }
    c.process_group(0).current_dir("/").stdin(Stdio::null()).stdout(log_file(&d.join("stdout.log"))?).stderr(log_file(&d.join("stdout.log"))?);
    let child = c.spawn().map_err(|e| io(b.server.display(), e))?;
    fs::write(d.join("launch.pid"), child.id().to_string()).map_err(|e| io(d.display(), e))?;
    Ok(child)
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use crate::server::profile::{resolve, scale, Machine, PROFILES};

    const M: Machine = Machine { ram: 24 << 30, cores: 2, data: Some(1 << 30) };

    #[test]
    fn scaled_values_are_in_its_units() {
        let k = Kind::parse("mariadb").unwrap();
        assert_eq!(scale("ram*0.5", k, &M).unwrap(), "12288M");
        assert_eq!(scale("cores*1", k, &M).unwrap(), "2");
        assert_eq!(scale("cores*0.167", k, &M).unwrap(), "1");
        assert_eq!(scale("data*0.25", k, &M).unwrap(), "256M");
        assert_eq!(scale("O_DIRECT", k, &M).unwrap(), "O_DIRECT");
        let no_data = Machine { data: None, ..M };
        assert!(scale("data*2", k, &no_data).unwrap_err().contains("--data-size"));
        for (n, _) in PROFILES {
            resolve(n, k, &M).unwrap_or_else(|e| panic!("{n}: {e}"));
        }
    }
}
