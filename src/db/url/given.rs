//! A target as the user gave it: a URL or its parts as options, completed
//! from the environment (libpq's and MySQL's variables, password files)
//! into a [`Target`], or refused with why.

use super::*;

/// Reads one environment variable (`std::env::var` for a run; a map in tests).
pub type Env<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// An environment of just `vars`, for tests of what the variables do.
#[cfg(test)]
pub(crate) fn test_env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string())
}

/// The process's environment, for [`Target::parse_with`] and [`Given::finish`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// What a target URL and the sysbench-style options said, each setting
/// None where they said nothing. [`Given::finish`] fills the rest from a
/// service file and the environment, then fairbench's defaults.
#[derive(Clone)]
pub struct Given {
    pub protocol: Protocol,
    /// SQLite's database file (the only setting an embedded target has).
    pub path: Option<String>,
    pub hosts: Option<Vec<String>>,
    /// libpq's `port` list: one port for every host or one per host; None
    /// in a list is a host written without a port (the built-in default).
    pub ports: Option<Vec<Option<u16>>>,
    /// Where `ports` came from, for an error about their count (None: the URL).
    pub ports_from: Option<String>,
    pub socket: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub database: Option<String>,
    pub ssl_mode: Option<SslMode>,
    pub ssl_ca: Option<String>,
    pub session_attrs: Option<SessionAttrs>,
    pub load_balance: Option<bool>,
    pub connect_timeout: Option<Option<Duration>>,
    pub application_name: Option<String>,
    pub options: Option<String>,
    /// libpq's `hostaddr`: the host when none is named.
    pub hostaddr: Option<String>,
    /// libpq's `service`: a section of the service file.
    pub service: Option<String>,
    /// MySQL: the HTTP port of the server's status API (`status-port=`).
    pub status_port: Option<u16>,
    /// MySQL: the port of the cluster's control service (`admin-port=`).
    pub admin_port: Option<u16>,
}

/// Why a parameter's value was refused: a reason to show with where it came
/// from (the URL, a variable), or a usage error already worded in full.
pub enum Refused {
    Reason(String),
    Usage(Error),
}

impl From<String> for Refused {
    fn from(s: String) -> Refused {
        Refused::Reason(s)
    }
}

impl From<Error> for Refused {
    fn from(e: Error) -> Refused {
        Refused::Usage(e)
    }
}

impl Given {
    pub fn new(protocol: Protocol) -> Given {
        Given {
            protocol,
            path: None,
            hosts: None,
            ports: None,
            ports_from: None,
            socket: None,
            user: None,
            password: None,
            database: None,
            ssl_mode: None,
            ssl_ca: None,
            session_attrs: None,
            load_balance: None,
            connect_timeout: None,
            application_name: None,
            options: None,
            hostaddr: None,
            service: None,
            status_port: None,
            admin_port: None,
        }
    }

    pub fn parse(s: &str) -> Result<Given> {
        let masked = mask_url(s);
        match Self::parse_as_given(s) {
            Err(_) if masked != s => {
                // A reason may quote any part of the URL, the password too,
                // however the URL is mangled: give the reason the URL with its
                // passwords masked gets, which cannot hold one.
                Err(Self::parse_as_given(&masked).err().unwrap_or_else(|| {
                    let msg = format!("bad target URL '{masked}': the password is not valid URL text; percent-encode it (e.g. %40 for @)");
                    Error::Usage(crate::error::one_line(&msg).into_owned())
                }))
            }
            r => r,
        }
    }

    fn parse_as_given(s: &str) -> Result<Given> {
        let bad = |why: &str| {
            let msg = format!("bad target URL '{}': {why}; expected mysql://user:pass@host:port/db, postgres://user:pass@host:port/db or sqlite:PATH", mask_url(s));
            Error::Usage(crate::error::one_line(&msg).into_owned())
        };
        let (scheme, rest) = s.split_once(':').ok_or_else(|| bad("no scheme"))?;
        let engine = match scheme.to_ascii_lowercase().as_str() {
            "mysql" | "mariadb" => Protocol::Mysql,
            "postgres" | "postgresql" | "pgsql" => Protocol::Postgres,
            "sqlite" | "sqlite3" => Protocol::Sqlite,
            _ => return Err(bad(&format!("unknown scheme '{scheme}'"))),
        };
        let mut g = Given::new(engine);
        if engine == Protocol::Sqlite {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            let path = path.split('?').next().unwrap_or("");
            if path.is_empty() {
                return Err(bad("no file path"));
            }
            g.path = Some(pct_decode(path));
            return Ok(g);
        }
        let rest = rest.strip_prefix("//").ok_or_else(|| bad("missing '//' after the scheme"))?;
        let (main, query) = match rest.split_once('?') {
            Some((m, q)) => (m, Some(q)),
            None => (rest, None),
        };
        let (authority, db) = match main.split_once('/') {
            Some((a, d)) => (a, d),
            None => (main, ""),
        };
        let hostpart = match authority.rsplit_once('@') {
            Some((userinfo, h)) => {
                let (u, p) = match userinfo.split_once(':') {
                    Some((u, p)) => (u, Some(p)),
                    None => (userinfo, None),
                };
                g.user = Some(pct_decode(u)).filter(|u| !u.is_empty());
                g.password = p.map(pct_decode);
                h
            }
            None => authority,
        };
        if !db.is_empty() {
            g.database = Some(pct_decode(db));
        }
        if hostpart.contains(',') {
            check_host_list(hostpart).map_err(|e| bad(&e))?;
        }
        // libpq's host and port lists: a port list as soon as a port is
        // written or there are two hosts (an entry without a port is the
        // built-in default, not the environment's).
        let (mut hosts, mut ports) = (Vec::new(), Vec::new());
        for h in hostpart.split(',').filter(|h| !h.is_empty()) {
            let h = pct_decode(h);
            if engine == Protocol::Postgres && h.starts_with('/') {
                // libpq's `%2Fdir:5433`: the socket directory, then the server's port.
                match h.rsplit_once(':') {
                    Some((dir, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                        let port = p.parse().map_err(|_| bad(&format!("bad port '{p}'")))?;
                        g.socket = Some(dir.to_string());
                        hosts.push("localhost".to_string());
                        ports.push(Some(port));
                    }
                    _ => g.socket = Some(h),
                }
                continue;
            }
            let (host, port) = split_host_port(&h).map_err(|e| bad(&e))?;
            hosts.push(host);
            ports.push(port);
        }
        if !hosts.is_empty() {
            if hosts.len() > 1 || ports.iter().any(Option::is_some) {
                g.ports = Some(ports);
            }
            g.hosts = Some(hosts);
        }
        for kv in query.unwrap_or("").split('&').filter(|kv| !kv.is_empty()) {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            match g.param(k, pct_decode(v)) {
                Ok(()) => {}
                Err(Refused::Reason(why)) => return Err(bad(&why)),
                Err(Refused::Usage(e)) => return Err(e),
            }
        }
        if let (Some(h), Some(p)) = (&g.hosts, &g.ports) {
            ports_fit(p.len(), h.len()).map_err(|why| bad(&why))?;
        }
        Ok(g)
    }

    /// Sets one connection parameter by its URL (libpq keyword) name:
    /// `_` and `-` alike, case aside.
    pub fn param(&mut self, key: &str, v: String) -> std::result::Result<(), Refused> {
        let pg = self.protocol == Protocol::Postgres;
        match key.to_ascii_lowercase().replace('_', "-").as_str() {
            "socket" | "host" if v.starts_with('/') => self.socket = Some(v),
            // libpq's `?host=h1,h2`: the host list, ports from `port=`.
            "host" if pg => {
                check_host_list(&v)?;
                self.hosts = Some(v.split(',').map(|h| h.trim_start_matches('[').trim_end_matches(']').to_string()).collect());
            }
            "host" => {
                check_host_list(&v)?;
                self.hosts = Some(v.split(',').map(str::to_string).collect());
            }
            "hostaddr" if pg => self.hostaddr = Some(v),
            "ssl-mode" | "sslmode" => self.ssl_mode = Some(SslMode::parse(&v)?),
            "ssl-ca" | "sslrootcert" => self.ssl_ca = Some(v),
            "password" => self.password = Some(v),
            "user" => self.user = Some(v),
            "dbname" => self.database = Some(v),
            "port" => {
                self.ports = Some(parse_ports(&v)?.into_iter().map(Some).collect());
                self.ports_from = None;
            }
            "target-session-attrs" if pg => self.session_attrs = Some(SessionAttrs::parse(&v)?),
            "load-balance-hosts" if pg => self.load_balance = Some(hosts::parse_load_balance(&v)?),
            "connect-timeout" if pg => self.connect_timeout = Some(connect_timeout(&v)?),
            "application-name" if pg => self.application_name = Some(v),
            "options" if pg => self.options = Some(v),
            "service" if pg => self.service = Some(v),
            p @ ("target-session-attrs" | "load-balance-hosts") => {
                return Err(Refused::Reason(format!("'{}' is a PostgreSQL parameter; a {} host list spreads the clients over the hosts round-robin", p.replace('-', "_"), self.protocol.name())));
            }
            other if pg => {
                return Err(Refused::Reason(format!(
                    "unknown parameter '{other}' (known: host, hostaddr, port, dbname, user, password, sslmode, sslrootcert, target_session_attrs, load_balance_hosts, connect_timeout, application_name, options, service)"
                )))
            }
            "status-port" => self.status_port = Some(port_param("status-port", &v)?),
            "admin-port" => self.admin_port = Some(port_param("admin-port", &v)?),
            other => return Err(Refused::Reason(format!("unknown parameter '{other}' (known: socket, ssl-mode, ssl-ca, status-port, admin-port)"))),
        }
        Ok(())
    }

    /// The target: what was given, then a service file's and the
    /// environment's settings where nothing was (`db::environ`), then
    /// fairbench's defaults.
    pub fn finish(mut self, env: &Env) -> Result<Target> {
        if self.protocol == Protocol::Sqlite {
            return Ok(Target::sqlite(self.path.as_deref().unwrap_or(DEFAULT_SQLITE_PATH)));
        }
        crate::db::environ::fill(&mut self, env)?;
        let mut t = Target::empty(self.protocol);
        let default_port = t.hosts[0].1;
        let names: Vec<String> = match (self.hosts, self.hostaddr) {
            (Some(h), _) => h,
            (None, Some(a)) if self.socket.is_none() => vec![a],
            _ => vec!["localhost".to_string()],
        };
        t.hosts = match self.ports {
            None => names.into_iter().map(|h| (h, default_port)).collect(),
            Some(ps) => {
                if let Err(why) = ports_fit(ps.len(), names.len()) {
                    return Err(match self.ports_from {
                        Some(from) => crate::usage!("{from}: {why}"),
                        None => Error::Usage(format!("bad target URL: {why}")),
                    });
                }
                if ps.len() == 1 {
                    names.into_iter().map(|h| (h, ps[0].unwrap_or(default_port))).collect()
                } else {
                    names.into_iter().zip(ps).map(|(h, p)| (h, p.unwrap_or(default_port))).collect()
                }
            }
        };
        t.socket = self.socket;
        t.user = self.user.unwrap_or(t.user);
        t.password = self.password;
        t.database = self.database.unwrap_or(t.database);
        t.ssl_mode = self.ssl_mode.unwrap_or(t.ssl_mode);
        t.ssl_ca = self.ssl_ca.filter(|c| !c.is_empty());
        t.session_attrs = self.session_attrs.unwrap_or(t.session_attrs);
        t.load_balance = self.load_balance.unwrap_or(t.load_balance);
        t.connect_timeout = self.connect_timeout.unwrap_or(t.connect_timeout);
        t.application_name = self.application_name;
        t.options = self.options.filter(|o| !o.trim().is_empty());
        t.status_port = self.status_port;
        t.admin_port = self.admin_port;
        Ok(t)
    }
}
