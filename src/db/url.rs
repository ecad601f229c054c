//! Target URLs: `mysql://`, `postgres://`, `sqlite:`.
//!
//! Parsed by hand because the forms users type are not all valid URLs
//! (comma-separated host lists, `sqlite:relative/path`), and because the
//! password must never reach a `Display` impl.

mod given;

#[cfg(test)]
pub(crate) use given::test_env;
pub use given::{process_env, Env, Given, Refused};

use super::hosts::{self, SessionAttrs};
use crate::error::{Error, Result};
use std::fmt;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Mysql,
    Postgres,
    Sqlite,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Mysql => "mysql",
            Protocol::Postgres => "postgres",
            Protocol::Sqlite => "sqlite",
        }
    }

    /// Whether the engine runs inside this process (SQLite): a database is
    /// a file the target names, the server is on this machine, and every
    /// call blocks its thread until done instead of suspending.
    pub fn embedded(self) -> bool {
        self == Protocol::Sqlite
    }

    /// Where Debian's server packages listen on a unix socket (MySQL: the
    /// socket; PostgreSQL: its directory); None when there is no socket.
    pub fn default_socket(self) -> Option<&'static str> {
        match self {
            Protocol::Mysql => Some("/run/mysqld/mysqld.sock"),
            Protocol::Postgres => Some("/var/run/postgresql"),
            Protocol::Sqlite => None,
        }
    }
}

/// TLS wish, normalised across engines (MySQL `ssl-mode`, PostgreSQL `sslmode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disabled,
    Preferred,
    Required,
    VerifyCa,
    VerifyIdentity,
}

impl SslMode {
    pub fn parse(s: &str) -> Result<SslMode> {
        Ok(match s.to_ascii_lowercase().replace('-', "_").as_str() {
            "disabled" | "disable" | "off" | "0" => SslMode::Disabled,
            "preferred" | "prefer" | "allow" => SslMode::Preferred,
            "required" | "require" | "on" | "1" => SslMode::Required,
            "verify_ca" => SslMode::VerifyCa,
            "verify_identity" | "verify_full" => SslMode::VerifyIdentity,
            _ => {
                let msg = format!("unknown ssl mode '{s}': use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY");
                return Err(Error::Usage(crate::error::one_line(&msg).into_owned()));
            }
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disabled => "DISABLED",
            SslMode::Preferred => "PREFERRED",
            SslMode::Required => "REQUIRED",
            SslMode::VerifyCa => "VERIFY_CA",
            SslMode::VerifyIdentity => "VERIFY_IDENTITY",
        }
    }

    /// libpq's spelling (`sslmode=`, `PGSSLMODE`).
    pub fn libpq_name(self) -> &'static str {
        match self {
            SslMode::Disabled => "disable",
            SslMode::Preferred => "prefer",
            SslMode::Required => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyIdentity => "verify-full",
        }
    }
}

/// Where and how to connect. `Display` masks the password.
#[derive(Clone, PartialEq)]
pub struct Target {
    pub protocol: Protocol,
    /// One or more `host:port`. MySQL: clients are spread over them
    /// round-robin. PostgreSQL: every connection takes the first host (in
    /// this order, or shuffled with `load_balance`) that accepts it and
    /// fits `session_attrs`, as libpq does.
    pub hosts: Vec<(String, u16)>,
    /// MySQL: unix socket path. PostgreSQL: socket directory.
    pub socket: Option<String>,
    pub user: String,
    pub password: Option<String>,
    pub database: String,
    pub ssl_mode: SslMode,
    pub ssl_ca: Option<String>,
    /// SQLite database file.
    pub path: Option<String>,
    /// PostgreSQL: libpq's `target_session_attrs`.
    pub session_attrs: SessionAttrs,
    /// PostgreSQL: libpq's `load_balance_hosts=random` (hosts tried in a
    /// random order, drawn again for every connection).
    pub load_balance: bool,
    /// PostgreSQL: libpq's `connect_timeout`, for each host tried.
    pub connect_timeout: Option<Duration>,
    /// PostgreSQL: the session's `application_name` (fairbench's own by default).
    pub application_name: Option<String>,
    /// PostgreSQL: libpq's `options` (PGOPTIONS), command-line options the
    /// server applies to the session, such as `-c work_mem=64MB`.
    pub options: Option<String>,
    /// MySQL: the HTTP port of the server's status API on the target's
    /// host (`status-port=`), where an engine that publishes its counters
    /// over HTTP is read from.
    pub status_port: Option<u16>,
    /// MySQL: the port of the cluster's control service on the target's
    /// host (`admin-port=`), through which an engine that shards changes
    /// what SQL cannot (Vitess: vtctld's gRPC port, for vtctldclient).
    pub admin_port: Option<u16>,
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Target({self})")
    }
}

pub const DEFAULT_SQLITE_PATH: &str = "fairbench.sqlite";

impl Target {
    /// Where a server of this target listens, as seen on its own host: the
    /// TCP port of host `host` (the one a connection ended on: a PostgreSQL
    /// list's first host may be a standby passed over), or the unix socket
    /// file (PostgreSQL names its socket by port inside the directory the
    /// target gives).
    pub fn listen_address(&self, host: usize) -> (Option<u16>, Option<std::path::PathBuf>) {
        let port = self.hosts.get(host).or(self.hosts.first()).map(|h| h.1);
        let socket = self.socket.as_ref().map(|s| match self.protocol {
            Protocol::Postgres => std::path::Path::new(s).join(format!(".s.PGSQL.{}", port.unwrap_or(5432))),
            _ => std::path::PathBuf::from(s),
        });
        (if socket.is_some() { None } else { port }, socket)
    }

    pub fn default_sqlite() -> Target {
        Target::sqlite(DEFAULT_SQLITE_PATH)
    }

    pub fn sqlite(path: &str) -> Target {
        Target {
            protocol: Protocol::Sqlite,
            hosts: vec![],
            socket: None,
            user: String::new(),
            password: None,
            database: String::new(),
            ssl_mode: SslMode::Disabled,
            ssl_ca: None,
            path: Some(path.to_string()),
            session_attrs: SessionAttrs::Any,
            load_balance: false,
            connect_timeout: None,
            application_name: None,
            options: None,
            status_port: None,
            admin_port: None,
        }
    }

    pub fn empty(protocol: Protocol) -> Target {
        let (host, port, user, db) = match protocol {
            Protocol::Mysql => ("localhost", 3306, "sbtest", "sbtest"),
            Protocol::Postgres => ("localhost", 5432, "sbtest", "sbtest"),
            Protocol::Sqlite => return Target::default_sqlite(),
        };
        Target {
            protocol,
            hosts: vec![(host.to_string(), port)],
            socket: None,
            user: user.to_string(),
            password: None,
            database: db.to_string(),
            ssl_mode: match protocol {
                Protocol::Postgres => SslMode::Preferred,
                _ => SslMode::Disabled,
            },
            ssl_ca: None,
            path: None,
            session_attrs: SessionAttrs::Any,
            load_balance: false,
            connect_timeout: None,
            application_name: None,
            options: None,
            status_port: None,
            admin_port: None,
        }
    }

    /// "socket" or "tcp" (or "embedded"): recorded with every run, since the
    /// two differ by 30% and more on the same server.
    pub fn transport(&self) -> &'static str {
        match (self.protocol, &self.socket) {
            (Protocol::Sqlite, _) => "embedded",
            (_, Some(_)) => "socket",
            _ => "tcp",
        }
    }

    /// A URL as it is written: what it leaves out is fairbench's default,
    /// whatever the environment holds (a stored run's target, a sandbox's
    /// own URL). A user's target is read with [`Target::parse_with`].
    pub fn parse(s: &str) -> Result<Target> {
        Self::parse_with(s, &|_| None)
    }

    /// A URL with what it leaves out taken from the client variables `env`
    /// holds (libpq's PG* and the mysql client's MYSQL_*), as
    /// `super::environ` reads them, then from fairbench's defaults.
    pub fn parse_with(s: &str, env: &Env) -> Result<Target> {
        Given::parse(s)?.finish(env)
    }

    /// The sessions' name on the server (PostgreSQL's `application_name`):
    /// the target's, else fairbench's. How the server's views tell the run's
    /// sessions apart.
    pub fn session_name(&self) -> &str {
        self.application_name.as_deref().unwrap_or("fairbench")
    }

    /// The same target for the sessions that watch the run (its snapshots
    /// and samplers), named apart from the run's: `fairbench monitor`.
    pub fn monitoring(&self) -> Target {
        Target { application_name: Some(format!("{} monitor", self.session_name())), ..self.clone() }
    }

    /// Where a server's HTTP status API on `port` is reached: the target's
    /// first host (loopback for a socket or `localhost`), as `host:port`.
    pub fn status_address(&self, port: impl fmt::Display) -> String {
        let host = if self.socket.is_some() { "127.0.0.1" } else { self.hosts.first().map_or("127.0.0.1", |(h, _)| h.as_str()) };
        hosts::address(if host == "localhost" { "127.0.0.1" } else { host }, port)
    }

    /// The host clients number `i` connects to (round-robin like sysbench).
    pub fn host_for(&self, i: usize) -> &(String, u16) {
        &self.hosts[i % self.hosts.len()]
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.protocol {
            Protocol::Sqlite => write!(f, "sqlite:{}", self.path.as_deref().unwrap_or("")),
            _ => {
                write!(f, "{}://{}", self.protocol.name(), self.user)?;
                if self.password.is_some() {
                    f.write_str(":****")?;
                }
                f.write_str("@")?;
                if self.protocol == Protocol::Postgres && self.socket.is_some() && self.hosts.is_empty() {
                    write!(f, "{}", self.socket.as_deref().unwrap_or(""))?;
                } else {
                    let hs: Vec<String> = self.hosts.iter().map(hosts::host_port).collect();
                    f.write_str(&hs.join(","))?;
                }
                write!(f, "/{}", self.database)?;
                let mut params = Vec::new();
                if let Some(s) = &self.socket {
                    params.push(format!("socket={s}"));
                }
                if self.session_attrs != SessionAttrs::Any {
                    params.push(format!("target_session_attrs={}", self.session_attrs.name()));
                }
                if self.load_balance {
                    params.push("load_balance_hosts=random".into());
                }
                if let Some(d) = self.connect_timeout {
                    params.push(format!("connect_timeout={}", d.as_secs()));
                }
                if let Some(o) = &self.options {
                    // They change the server's settings for the run: shown and stored with it.
                    params.push(format!("options={}", pct_encode(o)));
                }
                if let Some(p) = self.status_port {
                    params.push(format!("status-port={p}"));
                }
                if let Some(p) = self.admin_port {
                    params.push(format!("admin-port={p}"));
                }
                if !params.is_empty() {
                    write!(f, "?{}", params.join("&"))?;
                }
                Ok(())
            }
        }
    }
}

/// A comma-separated host list with no empty entry (`h1,,h3` is a typo,
/// not "the default host").
fn check_host_list(list: &str) -> std::result::Result<(), String> {
    if list.split(',').any(str::is_empty) {
        return Err(format!("empty host in the host list '{list}': list hosts as h1:5432,h2:5432 with no empty entry"));
    }
    Ok(())
}

/// libpq's rule for a port list: one port for every host, or one per host.
fn ports_fit(ports: usize, hosts: usize) -> std::result::Result<(), String> {
    if ports == 1 || ports == hosts {
        return Ok(());
    }
    Err(format!("{ports} ports for {hosts} hosts: give one port for all hosts, or one per host"))
}

/// `port=`: one port, or a comma-separated list of one per host.
fn parse_ports(v: &str) -> std::result::Result<Vec<u16>, String> {
    v.split(',').map(|p| p.parse::<u16>().map_err(|_| format!("port '{p}' is not a number from 0 to 65535"))).collect()
}

/// A URL parameter `name` naming an HTTP or gRPC port on the target's host.
fn port_param(name: &str, v: &str) -> std::result::Result<u16, String> {
    v.parse().ok().filter(|p| *p > 0).ok_or_else(|| format!("{name} '{v}' is not a port number from 1 to 65535"))
}

/// libpq's `connect_timeout`: whole seconds per host; zero or negative
/// waits without limit, and 1 means 2 (libpq's minimum).
fn connect_timeout(v: &str) -> std::result::Result<Option<Duration>, String> {
    let s: i64 = v.trim().parse().map_err(|_| format!("connect_timeout '{v}' is not a whole number of seconds"))?;
    Ok((s > 0).then(|| Duration::from_secs(s.max(2) as u64)))
}

/// `host:port`, `[v6]:port`; None: no port written (`host:` too, as libpq reads it).
fn split_host_port(h: &str) -> std::result::Result<(String, Option<u16>), String> {
    let port = |p: &str| if p.is_empty() { Ok(None) } else { p.parse().map(Some).map_err(|_| format!("bad port '{p}'")) };
    if let Some(rest) = h.strip_prefix('[') {
        // [::1]:3306
        let (host, tail) = rest.split_once(']').ok_or("unclosed '[' in host")?;
        let port = match tail.strip_prefix(':') {
            Some(p) => port(p)?,
            None if tail.is_empty() => None,
            None => return Err(format!("unexpected '{tail}' after ']' in host")),
        };
        return Ok((host.to_string(), port));
    }
    match h.rsplit_once(':') {
        Some((host, p)) => Ok((host.to_string(), port(p)?)),
        None => Ok((h.to_string(), None)),
    }
}

fn pct_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        // On bytes, not on str slices: a '%' before a multi-byte character must not split it.
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes what would end a parameter or read as an escape.
fn pct_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'%' | b'&' | b'#' | b'+' | b'=' | b'?' | b'/' | b' ' | 0..=0x1f | 0x7f.. => out.push_str(&format!("%{b:02X}")),
            _ => out.push(b as char),
        }
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// A URL with its password replaced, for error messages: the one after
/// `user:` (up to the last '@', as `Target::parse` reads it, so a password
/// holding '@' or '/' is masked whole) and any `password=` parameter.
pub fn mask_url(s: &str) -> String {
    let mut out = s.to_string();
    if let Some((scheme, rest)) = s.split_once("://") {
        if let Some((userinfo, tail)) = rest.rsplit_once('@') {
            if let Some((u, _)) = userinfo.split_once(':') {
                out = format!("{scheme}://{u}:****@{tail}");
            }
        }
    }
    if let Some((head, query)) = out.split_once('?') {
        let params: Vec<String> = query
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=****"),
                _ => kv.to_string(),
            })
            .collect();
        out = format!("{head}?{}", params.join("&"));
    }
    out
}

/// Keep `Error` in scope for callers that build targets from options.
pub fn connect_error(t: &Target, msg: impl fmt::Display) -> Error {
    Error::Connect(format!("cannot connect to {t}: {msg}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mysql_url_with_socket_and_ssl() {
        let t = Target::parse("mysql://u:p%40ss@db1:3307,db2/bench?socket=/tmp/m.sock&ssl-mode=REQUIRED").unwrap();
        assert_eq!(t.protocol, Protocol::Mysql);
        assert_eq!(t.hosts, vec![("db1".to_string(), 3307), ("db2".to_string(), 3306)]);
        assert_eq!(t.password.as_deref(), Some("p@ss"));
        assert_eq!(t.database, "bench");
        assert_eq!(t.socket.as_deref(), Some("/tmp/m.sock"));
        assert_eq!(t.ssl_mode, SslMode::Required);
        assert_eq!(t.transport(), "socket");
        assert!(!t.to_string().contains("p@ss"));
    }

    #[test]
    fn a_status_api_is_on_the_targets_host_or_loopback() {
        assert_eq!(Target::parse("mysql://u@db1:4000/x").unwrap().status_address(10080), "db1:10080");
        assert_eq!(Target::parse("mysql://u@localhost:4000/x").unwrap().status_address("10080"), "127.0.0.1:10080");
        assert_eq!(Target::parse("mysql://u@[::1]:4000/x").unwrap().status_address(10080), "[::1]:10080");
        assert_eq!(Target::parse("mysql://u@localhost/x?socket=/tmp/t.sock").unwrap().status_address(15307), "127.0.0.1:15307");
    }

    #[test]
    fn a_status_port_is_kept_and_shown_and_only_mysql_takes_it() {
        let t = Target::parse("mysql://u:p@127.0.0.1:15306/ks?status-port=15307").unwrap();
        assert_eq!(t.status_port, Some(15307));
        assert_eq!(t.to_string(), "mysql://u:****@127.0.0.1:15306/ks?status-port=15307");
        assert_eq!(Target::parse(&t.to_string()).unwrap().status_port, Some(15307));
        assert_eq!(Target::parse("mysql://u@h/db?status_port=8080").unwrap().status_port, Some(8080));
        assert_eq!(Target::parse("mysql://u@h/db").unwrap().status_port, None);
        for bad in ["mysql://u@h/db?status-port=x", "mysql://u@h/db?status-port=0", "mysql://u@h/db?status-port=70000"] {
            let e = Target::parse(bad).unwrap_err().to_string();
            assert!(e.contains("status-port") && e.contains("1 to 65535"), "{e}");
        }
        assert!(Target::parse("postgres://u@h/db?status-port=1").unwrap_err().to_string().contains("unknown parameter 'status-port'"));
        assert!(Target::parse("mysql://u@h/db?bogus=1").unwrap_err().to_string().contains("status-port"));
        let t = Target::parse("mysql://u@127.0.0.1:15306/ks?status-port=15307&admin-port=15310").unwrap();
        assert_eq!((t.status_port, t.admin_port), (Some(15307), Some(15310)));
        assert_eq!(Target::parse(&t.to_string()).unwrap().admin_port, Some(15310));
        assert!(Target::parse("mysql://u@h/db?admin-port=0").unwrap_err().to_string().contains("admin-port '0'"));
    }

    #[test]
    fn tcp_stays_tcp() {
        let t = Target::parse("mysql://u@127.0.0.1:3306/db").unwrap();
        assert_eq!(t.transport(), "tcp");
        assert_eq!(t.socket, None);
    }

    #[test]
    fn postgres_socket_dir_as_host() {
        let t = Target::parse("postgres://u:secret@%2Fvar%2Frun%2Fpostgresql/db?sslmode=disable").unwrap();
        assert_eq!(t.socket.as_deref(), Some("/var/run/postgresql"));
        assert_eq!(t.ssl_mode, SslMode::Disabled);
        assert!(!format!("{t}").contains("secret"));
        assert!(!format!("{t:?}").contains("secret"));
    }

    #[test]
    fn sqlite_forms() {
        assert_eq!(Target::parse("sqlite:a/b.db").unwrap().path.as_deref(), Some("a/b.db"));
        assert_eq!(Target::parse("sqlite:///tmp/x.db").unwrap().path.as_deref(), Some("/tmp/x.db"));
    }

    fn hosts(t: &Target) -> Vec<(&str, u16)> {
        t.hosts.iter().map(|(h, p)| (h.as_str(), *p)).collect()
    }

    #[test]
    fn libpq_documented_uris() {
        // The URI examples of libpq's "Connection Strings" section.
        let t = Target::parse("postgresql://").unwrap();
        assert_eq!(hosts(&t), vec![("localhost", 5432)]);
        assert_eq!(hosts(&Target::parse("postgresql://localhost:5433").unwrap()), vec![("localhost", 5433)]);
        assert_eq!(Target::parse("postgresql://localhost/mydb").unwrap().database, "mydb");
        assert_eq!(Target::parse("postgresql://user@localhost").unwrap().user, "user");
        let t = Target::parse("postgresql://user:secret@localhost").unwrap();
        assert_eq!((t.user.as_str(), t.password.as_deref()), ("user", Some("secret")));
        let t = Target::parse("postgresql://other@localhost/otherdb?connect_timeout=10&application_name=myapp").unwrap();
        assert_eq!((t.user.as_str(), t.database.as_str()), ("other", "otherdb"));
        assert_eq!(t.connect_timeout, Some(Duration::from_secs(10)));
        assert_eq!(t.application_name.as_deref(), Some("myapp"));
        let t = Target::parse("postgresql://host1:123,host2:456/somedb?target_session_attrs=any&application_name=myapp").unwrap();
        assert_eq!(hosts(&t), vec![("host1", 123), ("host2", 456)]);
        assert_eq!((t.session_attrs, t.load_balance, t.database.as_str()), (SessionAttrs::Any, false, "somedb"));
        let t = Target::parse("postgresql://localhost/mydb?user=other&password=secret").unwrap();
        assert_eq!((t.user.as_str(), t.password.as_deref()), ("other", Some("secret")));
        assert_eq!(hosts(&Target::parse("postgresql:///mydb?host=localhost&port=5433").unwrap()), vec![("localhost", 5433)]);
        assert_eq!(hosts(&Target::parse("postgresql://[2001:db8::1234]/database").unwrap()), vec![("2001:db8::1234", 5432)]);
        assert_eq!(Target::parse("postgresql:///dbname?host=/var/lib/postgresql").unwrap().socket.as_deref(), Some("/var/lib/postgresql"));
        assert_eq!(Target::parse("postgresql://%2Fvar%2Flib%2Fpostgresql/dbname").unwrap().socket.as_deref(), Some("/var/lib/postgresql"));
    }

    #[test]
    fn postgres_host_lists_and_session_attributes() {
        let t = Target::parse("postgres://u:p@h1:5432,h2,[::1]:5434/db?target_session_attrs=read-write&load_balance_hosts=random").unwrap();
        assert_eq!(hosts(&t), vec![("h1", 5432), ("h2", 5432), ("::1", 5434)]);
        assert_eq!((t.session_attrs, t.load_balance), (SessionAttrs::ReadWrite, true));
        for (v, a) in [
            ("any", SessionAttrs::Any),
            ("read-write", SessionAttrs::ReadWrite),
            ("read-only", SessionAttrs::ReadOnly),
            ("primary", SessionAttrs::Primary),
            ("standby", SessionAttrs::Standby),
            ("prefer-standby", SessionAttrs::PreferStandby),
        ] {
            assert_eq!(Target::parse(&format!("postgres://h1,h2/db?target_session_attrs={v}")).unwrap().session_attrs, a);
        }
        assert!(!Target::parse("postgres://h1,h2/db?load_balance_hosts=disable").unwrap().load_balance);
        // A port list of one per host, or one for all; `host:` is the default port.
        let t = Target::parse("postgres:///db?host=a,b,c&port=1,2,3").unwrap();
        assert_eq!(hosts(&t), vec![("a", 1), ("b", 2), ("c", 3)]);
        assert_eq!(hosts(&Target::parse("postgres:///db?host=a,b&port=7").unwrap()), vec![("a", 7), ("b", 7)]);
        assert_eq!(hosts(&Target::parse("postgres://a:,b:6/db").unwrap()), vec![("a", 5432), ("b", 6)]);
        // libpq's connect_timeout: 1 means 2, 0 and below wait without limit.
        assert_eq!(Target::parse("postgres://h/db?connect_timeout=1").unwrap().connect_timeout, Some(Duration::from_secs(2)));
        assert_eq!(Target::parse("postgres://h/db?connect_timeout=0").unwrap().connect_timeout, None);
        // What a run stores reads back the same (the report names nodes from it).
        let shown = t.to_string();
        assert_eq!(Target::parse(&shown).unwrap().hosts, t.hosts);
        let v6 = Target::parse("postgres://u:p@[::1]:5433,h2/db?target_session_attrs=standby&load_balance_hosts=random").unwrap();
        assert_eq!(v6.to_string(), "postgres://u:****@[::1]:5433,h2:5432/db?target_session_attrs=standby&load_balance_hosts=random");
        let back = Target::parse(&v6.to_string()).unwrap();
        assert_eq!((back.hosts, back.session_attrs, back.load_balance), (v6.hosts.clone(), v6.session_attrs, true));
        // MySQL keeps its round-robin list.
        let m = Target::parse("mysql://u@a:3306,b:3307/db").unwrap();
        assert_eq!(hosts(&m), vec![("a", 3306), ("b", 3307)]);
        assert_eq!(m.session_attrs, SessionAttrs::Any);
    }

    #[test]
    fn bad_host_lists_and_attributes_say_what_is_valid() {
        let msg = |u: &str| {
            let e = Target::parse(u).unwrap_err();
            assert!(matches!(e, Error::Usage(_)), "{u}");
            let m = e.to_string();
            assert!(!m.contains('\n') && !m.contains("pw"), "{m}");
            m
        };
        let m = msg("postgres://u:pw@h1,,h3/db");
        assert!(m.contains("empty host") && m.contains("h1,,h3"), "{m}");
        assert!(msg("postgres://u:pw@h1,h2,/db").contains("empty host"));
        assert!(msg("postgres://u:pw@/db?host=h1,,h3").contains("empty host"));
        assert!(msg("mysql://u:pw@h1,,h3/db").contains("empty host"));
        let m = msg("postgres://u:pw@h1,h2/db?target_session_attrs=master");
        assert!(m.contains("'master'") && m.contains("any, read-write, read-only, primary, standby or prefer-standby"), "{m}");
        assert!(msg("postgres://h1/db?load_balance_hosts=yes").contains("disable or random"));
        assert!(msg("postgres:///db?host=a,b,c&port=1,2").contains("2 ports for 3 hosts"));
        assert!(msg("postgres://h/db?connect_timeout=soon").contains("connect_timeout"));
        assert!(msg("mysql://u:pw@h1,h2/db?target_session_attrs=read-write").contains("PostgreSQL parameter"));
        assert!(msg("postgres://h/db?target_session_attrs=read-write&bogus=1").contains("target_session_attrs"));
    }

    #[test]
    fn bad_urls_are_usage_errors_without_password() {
        for u in ["redis://x", "mysql:/x", "nourl", "mysql://u:hunter2@h:notaport/db", "sqlite:"] {
            let e = Target::parse(u).unwrap_err();
            assert!(matches!(e, Error::Usage(_)), "{u}");
            assert!(!e.to_string().contains("hunter2"));
        }
    }
}
