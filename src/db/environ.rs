//! The client variables a target reads where its URL and options say
//! nothing, as libpq and the mysql client read them:
//!
//! - PostgreSQL: a service file's section (`service=` or `PGSERVICE`; the
//!   file is `PGSERVICEFILE` or `~/.pg_service.conf`, then
//!   `PGSYSCONFDIR/pg_service.conf`), then `PGHOST` (a host list, or a
//!   socket directory), `PGHOSTADDR` (the host when none is named),
//!   `PGPORT`, `PGDATABASE`, `PGUSER`, `PGSSLMODE`, `PGSSLROOTCERT`,
//!   `PGAPPNAME`, `PGCONNECT_TIMEOUT`, `PGTARGETSESSIONATTRS`,
//!   `PGLOADBALANCEHOSTS` and `PGOPTIONS`;
//! - MySQL: `MYSQL_HOST`, `MYSQL_TCP_PORT`, and `MYSQL_UNIX_PORT` (the
//!   socket of a server on localhost when no port was given).
//!
//! Passwords are `super::password`'s. An empty variable is an unset one; a
//! value that cannot be used is one line naming the variable.

use super::url::{Env, Given, Refused};
use super::Protocol;
use crate::error::{Error, Result};
use crate::usage;
use std::path::{Path, PathBuf};

/// libpq's variables and the parameter each one stands for, in the order
/// they are read (`PGHOST` before `PGHOSTADDR`).
const PG_VARS: &[(&str, &str)] = &[
    ("PGHOST", "host"),
    ("PGHOSTADDR", "hostaddr"),
    ("PGPORT", "port"),
    ("PGDATABASE", "dbname"),
    ("PGUSER", "user"),
    ("PGSSLMODE", "sslmode"),
    ("PGSSLROOTCERT", "sslrootcert"),
    ("PGAPPNAME", "application_name"),
    ("PGCONNECT_TIMEOUT", "connect_timeout"),
    ("PGTARGETSESSIONATTRS", "target_session_attrs"),
    ("PGLOADBALANCEHOSTS", "load_balance_hosts"),
    ("PGOPTIONS", "options"),
];

/// Where libpq's Debian build looks for the system-wide service file.
const SYSCONFDIR: &str = "/etc/postgresql-common";

/// Fills what `g` leaves unset from a service file and the environment.
pub fn fill(g: &mut Given, env: &Env) -> Result<()> {
    let var = |n: &str| env(n).filter(|v| !v.is_empty());
    match g.protocol {
        Protocol::Postgres => {
            // libpq: the service file's settings, then the variables, each
            // where nothing was given before.
            // `service=` (empty) in the URL: no service file, whatever PGSERVICE says.
            let name = match &g.service {
                Some(s) if s.is_empty() => None,
                Some(s) => Some(s.clone()),
                None => var("PGSERVICE"),
            };
            if let Some(name) = name {
                let (from, settings) = service(&name, &var)?;
                for (k, v) in settings {
                    if k.eq_ignore_ascii_case("service") {
                        return Err(usage!("{from}: a service cannot name another service"));
                    }
                    if !is_set(g, &k) {
                        set(g, &k, v, &from)?;
                    }
                }
            }
            for (name, key) in PG_VARS {
                if !is_set(g, key) {
                    if let Some(v) = var(name) {
                        set(g, key, v, name)?;
                    }
                }
            }
        }
        Protocol::Mysql => {
            let port_given = g.ports.is_some();
            if !is_set(g, "host") {
                if let Some(v) = var("MYSQL_HOST") {
                    set(g, "host", v, "MYSQL_HOST")?;
                }
            }
            if !is_set(g, "port") {
                if let Some(v) = var("MYSQL_TCP_PORT") {
                    set(g, "port", v, "MYSQL_TCP_PORT")?;
                }
            }
            // The mysql client connects to localhost through its socket
            // unless a port is asked for; fairbench keeps TCP unless the
            // variable names the socket.
            let local = g.hosts.as_ref().is_none_or(|h| h.iter().all(|h| h == "localhost"));
            if g.socket.is_none() && !port_given && local {
                g.socket = var("MYSQL_UNIX_PORT");
            }
        }
        Protocol::Sqlite => {}
    }
    Ok(())
}

/// Whether the setting `key` stands for was given already.
fn is_set(g: &Given, key: &str) -> bool {
    match key.to_ascii_lowercase().replace('_', "-").as_str() {
        "host" | "hostaddr" => g.hosts.is_some() || g.socket.is_some() || g.hostaddr.is_some(),
        "port" => g.ports.is_some(),
        "dbname" => g.database.is_some(),
        "user" => g.user.is_some(),
        "password" => g.password.is_some(),
        "sslmode" => g.ssl_mode.is_some(),
        "sslrootcert" => g.ssl_ca.is_some(),
        "application-name" => g.application_name.is_some(),
        "connect-timeout" => g.connect_timeout.is_some(),
        "target-session-attrs" => g.session_attrs.is_some(),
        "load-balance-hosts" => g.load_balance.is_some(),
        "options" => g.options.is_some(),
        // Unknown: set() says so.
        _ => false,
    }
}

fn set(g: &mut Given, key: &str, v: String, from: &str) -> Result<()> {
    let r = g.param(key, v);
    if key == "port" {
        g.ports_from = Some(from.to_string());
    }
    r.map_err(|e| match e {
        Refused::Reason(why) => usage!("{from}: {why}"),
        Refused::Usage(Error::Usage(m)) => usage!("{from}: {m}"),
        Refused::Usage(e) => e,
    })
}

/// The settings of service `name`, and where they were found: the user's
/// file first, then the system's, as libpq looks.
fn service(name: &str, var: &dyn Fn(&str) -> Option<String>) -> Result<(String, Vec<(String, String)>)> {
    let user = var("PGSERVICEFILE").map(PathBuf::from).or_else(|| var("HOME").map(|h| Path::new(&h).join(".pg_service.conf")));
    let system = Path::new(&var("PGSYSCONFDIR").unwrap_or_else(|| SYSCONFDIR.to_string())).join("pg_service.conf");
    let files: Vec<PathBuf> = user.into_iter().chain([system]).collect();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let from = format!("service file {} [{name}]", f.display());
        match section(&text, name) {
            Ok(Some(settings)) => return Ok((from, settings)),
            Ok(None) => {}
            Err(line) => return Err(usage!("{from}: line {line} is not key=value")),
        }
    }
    let shown: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    Err(usage!("service '{name}' (service= or PGSERVICE): no [{name}] section in {}", shown.join(" or ")))
}

/// The `key=value` lines of section `[name]`; None: no such section;
/// Err: the number of a line in it without `=`.
fn section(text: &str, name: &str) -> std::result::Result<Option<Vec<(String, String)>>, usize> {
    let mut found: Option<Vec<(String, String)>> = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(head) = line.strip_prefix('[') {
            if found.is_some() {
                break;
            }
            if head.strip_suffix(']') == Some(name) {
                found = Some(Vec::new());
            }
            continue;
        }
        if let Some(settings) = found.as_mut() {
            let (k, v) = line.split_once('=').ok_or(i + 1)?;
            settings.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::hosts::SessionAttrs;
    use crate::db::{SslMode, Target};
    use std::collections::HashMap;
    use std::time::Duration;

    use crate::db::url::test_env as with;

    fn target(url: &str, vars: &[(&str, &str)]) -> Target {
        Target::parse_with(url, &with(vars)).unwrap_or_else(|e| panic!("{url}: {e}"))
    }

    fn refused(url: &str, vars: &[(&str, &str)]) -> String {
        let e = Target::parse_with(url, &with(vars)).err().unwrap_or_else(|| panic!("{url} {vars:?}: accepted"));
        assert!(matches!(e, Error::Usage(_)), "{e}");
        let m = e.to_string();
        assert!(!m.contains('\n'), "{m}");
        m
    }

    fn hosts(t: &Target) -> Vec<(&str, u16)> {
        t.hosts.iter().map(|(h, p)| (h.as_str(), *p)).collect()
    }

    const PG_ALL: &[(&str, &str)] = &[
        ("PGHOST", "envhost1,envhost2"),
        ("PGHOSTADDR", "10.9.9.9"),
        ("PGPORT", "6001"),
        ("PGDATABASE", "envdb"),
        ("PGUSER", "envuser"),
        ("PGPASSWORD", "envpw"),
        ("PGSSLMODE", "verify-full"),
        ("PGSSLROOTCERT", "/env/ca.pem"),
        ("PGAPPNAME", "envapp"),
        ("PGCONNECT_TIMEOUT", "7"),
        ("PGTARGETSESSIONATTRS", "standby"),
        ("PGLOADBALANCEHOSTS", "random"),
        ("PGOPTIONS", "-c work_mem=1MB"),
    ];

    #[test]
    fn libpq_variables_fill_what_the_url_leaves_out() {
        let t = target("postgres://", PG_ALL);
        assert_eq!(hosts(&t), vec![("envhost1", 6001), ("envhost2", 6001)]);
        assert_eq!((t.user.as_str(), t.database.as_str()), ("envuser", "envdb"));
        assert_eq!(t.password, None, "PGPASSWORD is the password lookup's, after FAIRBENCH_PASSWORD");
        assert_eq!((t.ssl_mode, t.ssl_ca.as_deref()), (SslMode::VerifyIdentity, Some("/env/ca.pem")));
        assert_eq!((t.application_name.as_deref(), t.connect_timeout), (Some("envapp"), Some(Duration::from_secs(7))));
        assert_eq!((t.session_attrs, t.load_balance, t.options.as_deref()), (SessionAttrs::Standby, true, Some("-c work_mem=1MB")));
    }

    #[test]
    fn the_url_wins_over_libpq_variables() {
        let url = "postgres://u:p@h1:5433/db?sslmode=disable&sslrootcert=&application_name=a&connect_timeout=0&target_session_attrs=any&load_balance_hosts=disable&options=";
        let t = target(url, PG_ALL);
        assert_eq!(hosts(&t), vec![("h1", 5433)]);
        assert_eq!((t.user.as_str(), t.password.as_deref(), t.database.as_str()), ("u", Some("p"), "db"));
        assert_eq!((t.ssl_mode, t.ssl_ca.as_deref(), t.application_name.as_deref()), (SslMode::Disabled, None, Some("a")));
        assert_eq!((t.connect_timeout, t.session_attrs, t.load_balance, t.options.as_deref()), (None, SessionAttrs::Any, false, None));
        // A value the URL overrides is never read, so never refused.
        let bad = [("PGPORT", "abc"), ("PGSSLMODE", "bogus"), ("PGCONNECT_TIMEOUT", "soon"), ("PGTARGETSESSIONATTRS", "master"), ("PGLOADBALANCEHOSTS", "yes")];
        target("postgres://u@h:5432/db?sslmode=disable&connect_timeout=2&target_session_attrs=any&load_balance_hosts=disable", &bad);
    }

    #[test]
    fn fairbench_defaults_come_last() {
        let t = target("postgres://", &[]);
        assert_eq!(hosts(&t), vec![("localhost", 5432)]);
        assert_eq!((t.user.as_str(), t.database.as_str(), t.ssl_mode), ("sbtest", "sbtest", SslMode::Preferred));
        let t = target("mysql://", &[]);
        assert_eq!((hosts(&t), t.socket.as_deref()), (vec![("localhost", 3306)], None));
    }

    #[test]
    fn ports_follow_libpq() {
        // One host without a port: PGPORT. A host list: each host's own
        // port or the built-in one, as libpq's port list is then given.
        assert_eq!(hosts(&target("postgres://h/db", &[("PGPORT", "6001")])), vec![("h", 6001)]);
        assert_eq!(hosts(&target("postgres://h:/db", &[("PGPORT", "6001")])), vec![("h", 6001)]);
        assert_eq!(hosts(&target("postgres://a,b:6/db", &[("PGPORT", "6001")])), vec![("a", 5432), ("b", 6)]);
        assert_eq!(hosts(&target("postgres:///db", &[("PGHOST", "a,b"), ("PGPORT", "1,2")])), vec![("a", 1), ("b", 2)]);
        assert_eq!(hosts(&target("postgres:///db?host=a,b", &[("PGPORT", "7")])), vec![("a", 7), ("b", 7)]);
        let m = refused("postgres:///db", &[("PGHOST", "a,b,c"), ("PGPORT", "1,2")]);
        assert!(m.contains("PGPORT") && m.contains("2 ports for 3 hosts"), "{m}");
    }

    #[test]
    fn pghost_may_be_a_socket_directory_and_pghostaddr_a_host() {
        let t = target("postgres:///db", &[("PGHOST", "/run/pg"), ("PGPORT", "5433"), ("PGHOSTADDR", "10.0.0.1")]);
        assert_eq!((t.socket.as_deref(), hosts(&t)), (Some("/run/pg"), vec![("localhost", 5433)]));
        assert_eq!(hosts(&target("postgres:///db", &[("PGHOSTADDR", "10.0.0.1")])), vec![("10.0.0.1", 5432)]);
        assert_eq!(hosts(&target("postgres://h/db", &[("PGHOSTADDR", "10.0.0.1")])), vec![("h", 5432)]);
        // An empty variable is an unset one.
        assert_eq!(hosts(&target("postgres:///db", &[("PGHOST", ""), ("PGPORT", "")])), vec![("localhost", 5432)]);
    }

    #[test]
    fn invalid_variables_are_one_line_naming_them() {
        for (var, val, says) in [
            ("PGPORT", "abc", "'abc'"),
            ("PGSSLMODE", "bogus", "unknown ssl mode 'bogus'"),
            ("PGCONNECT_TIMEOUT", "soon", "connect_timeout"),
            ("PGTARGETSESSIONATTRS", "master", "'master'"),
            ("PGLOADBALANCEHOSTS", "yes", "disable or random"),
            ("PGHOST", "a,,b", "empty host"),
        ] {
            let m = refused("postgres://", &[(var, val)]);
            assert!(m.starts_with(&format!("{var}: ")) && m.contains(says), "{m}");
        }
        let m = refused("mysql://", &[("MYSQL_TCP_PORT", "x")]);
        assert!(m.starts_with("MYSQL_TCP_PORT: ") && m.contains("'x'"), "{m}");
        // The password is never parsed, so never shown.
        target("postgres://", &[("PGPASSWORD", "a:b@c%zz")]);
    }

    #[test]
    fn mysql_variables_fill_what_the_url_leaves_out() {
        let t = target("mysql:///db", &[("MYSQL_HOST", "envhost"), ("MYSQL_TCP_PORT", "3310"), ("MYSQL_UNIX_PORT", "/env/m.sock")]);
        assert_eq!((hosts(&t), t.socket.as_deref()), (vec![("envhost", 3310)], None));
        let t = target("mysql://u:p@h:3307/db", &[("MYSQL_HOST", "envhost"), ("MYSQL_TCP_PORT", "x"), ("MYSQL_UNIX_PORT", "/env/m.sock")]);
        assert_eq!((hosts(&t), t.socket.as_deref()), (vec![("h", 3307)], None));
        // localhost without a port asked for: the socket the variable names.
        for url in ["mysql:///db", "mysql://u@localhost/db"] {
            let t = target(url, &[("MYSQL_UNIX_PORT", "/env/m.sock")]);
            assert_eq!((t.socket.as_deref(), t.transport()), (Some("/env/m.sock"), "socket"), "{url}");
        }
        let t = target("mysql:///db", &[("MYSQL_HOST", "localhost"), ("MYSQL_TCP_PORT", "3310"), ("MYSQL_UNIX_PORT", "/env/m.sock")]);
        assert_eq!(t.socket.as_deref(), Some("/env/m.sock"));
        for url in ["mysql://u@localhost:3306/db", "mysql://u@127.0.0.1/db", "mysql://u@localhost/db?socket=/other.sock"] {
            let t = target(url, &[("MYSQL_UNIX_PORT", "/env/m.sock")]);
            assert_ne!(t.socket.as_deref(), Some("/env/m.sock"), "{url}");
        }
        // PostgreSQL's variables are not MySQL's, nor the other way round.
        let t = target("mysql:///db", PG_ALL);
        assert_eq!((hosts(&t), t.user.as_str(), t.ssl_mode), (vec![("localhost", 3306)], "sbtest", SslMode::Disabled));
        let t = target("postgres:///db", &[("MYSQL_HOST", "m"), ("MYSQL_TCP_PORT", "1")]);
        assert_eq!(hosts(&t), vec![("localhost", 5432)]);
    }

    #[test]
    fn a_service_file_comes_before_the_variables() {
        let dir = std::env::temp_dir().join(format!("fairbench-service-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let user = dir.join("user.conf");
        let sys = dir.join("pg_service.conf");
        std::fs::write(&user, "# mine\n[other]\nhost=nothere\n\n[bench]\nhost=svchost\nport=6100\n dbname = svcdb \npassword=svcpw\nsslmode=disable\n[next]\nuser=no\n").unwrap();
        std::fs::write(&sys, "[sysonly]\nhost=syshost\nuser=sysuser\n[bad]\nhost\n").unwrap();
        let (uf, sd) = (user.display().to_string(), dir.display().to_string());
        let env = |extra: &[(&'static str, &'static str)]| {
            let mut v: Vec<(&str, String)> = vec![("PGSERVICEFILE", uf.clone()), ("PGSYSCONFDIR", sd.clone())];
            v.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
            v
        };
        let parse = |url: &str, vars: Vec<(&str, String)>| {
            let m: HashMap<&str, String> = vars.into_iter().collect();
            Target::parse_with(url, &move |n: &str| m.get(n).cloned())
        };
        let t = parse("postgres:///?service=bench", env(&[("PGHOST", "envhost"), ("PGUSER", "envuser"), ("PGSSLMODE", "bogus")])).unwrap();
        assert_eq!(hosts(&t), vec![("svchost", 6100)]);
        assert_eq!((t.database.as_str(), t.user.as_str(), t.password.as_deref(), t.ssl_mode), ("svcdb", "envuser", Some("svcpw"), SslMode::Disabled));
        // The URL still wins over the service; PGSERVICE names it too.
        let t = parse("postgres://u:p@h/db", env(&[("PGSERVICE", "bench")])).unwrap();
        assert_eq!((hosts(&t), t.password.as_deref(), t.database.as_str()), (vec![("h", 6100)], Some("p"), "db"));
        // Not in the user's file: the system's.
        let t = parse("postgres://", env(&[("PGSERVICE", "sysonly")])).unwrap();
        assert_eq!((hosts(&t), t.user.as_str()), (vec![("syshost", 5432)], "sysuser"));
        let t = parse("postgres://h/db?service=", env(&[("PGSERVICE", "missing")])).unwrap();
        assert_eq!(hosts(&t), vec![("h", 5432)]);
        let m = parse("postgres://", env(&[("PGSERVICE", "missing")])).unwrap_err().to_string();
        assert!(m.contains("no [missing] section") && m.contains(&uf), "{m}");
        let m = parse("postgres://", env(&[("PGSERVICE", "bad")])).unwrap_err().to_string();
        assert!(m.contains("line 5"), "{m}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
