//! Connection options: `--target URL`, or sysbench's `--db-driver`,
//! `--mysql-*` and `--pgsql-*` options so existing command lines carry over.

use crate::db::url::{Env, Given};
use crate::db::{ConnConfig, IgnoreList, Protocol, SslMode};
use crate::error::Result;
use crate::usage;
use crate::values;
use clap::Args;

#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Target")]
pub struct TargetArgs {
    /// mysql://user:pass@host:port/db[?socket=PATH&ssl-mode=..], postgres://user:pass@host:port/db
    /// (a libpq host list: postgres://u:p@h1:5432,h2:5432/db?target_session_attrs=read-write), sqlite:PATH
    /// (default: sqlite:fairbench.sqlite in the working directory)
    #[arg(long, env = "FAIRBENCH_TARGET", hide_env_values = true)]
    pub target: Option<String>,
    /// mysql, pgsql or sqlite (sysbench's --db-driver)
    #[arg(long, value_parser = values::db_driver)]
    pub db_driver: Option<String>,
    /// Comma-separated host list (clients spread round-robin)
    #[arg(long)]
    pub mysql_host: Option<String>,
    #[arg(long, value_parser = values::port)]
    pub mysql_port: Option<u16>,
    #[arg(long)]
    pub mysql_socket: Option<String>,
    #[arg(long)]
    pub mysql_user: Option<String>,
    #[arg(long)]
    pub mysql_password: Option<String>,
    #[arg(long)]
    pub mysql_db: Option<String>,
    /// DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY
    #[arg(long, value_parser = values::ssl_mode)]
    pub mysql_ssl: Option<String>,
    #[arg(long)]
    pub mysql_ssl_ca: Option<String>,
    /// Comma-separated host list, read as libpq reads one: the first host that accepts
    #[arg(long)]
    pub pgsql_host: Option<String>,
    #[arg(long, value_parser = values::port)]
    pub pgsql_port: Option<u16>,
    #[arg(long)]
    pub pgsql_user: Option<String>,
    #[arg(long)]
    pub pgsql_password: Option<String>,
    #[arg(long)]
    pub pgsql_db: Option<String>,
    #[arg(long, value_parser = values::ssl_mode)]
    pub pgsql_sslmode: Option<String>,
    /// socket or tcp (BMK labels' "socket"); socket needs a socket path in the target or the default one
    #[arg(long, value_parser = values::transport)]
    pub transport: Option<String>,
    /// auto: server-side prepared statements; disable: text queries
    #[arg(long, default_value = "auto", value_parser = values::db_ps_mode)]
    pub db_ps_mode: String,
    /// MySQL errors that restart an event (comma list, or all) [default: 1213,1020,1205, and
    /// the engine's own retryable errors on an engine that has them (docs/engines.md)]
    #[arg(long, value_parser = values::mysql_error_codes)]
    pub mysql_ignore_errors: Option<String>,
    /// PostgreSQL SQLSTATEs that restart an event (comma list, or all) [default:
    /// 40001,40P01,23505; 23505 as sysbench's driver does: a concurrent delete+insert of the same id]
    #[arg(long, value_parser = values::sqlstates)]
    pub pgsql_ignore_errors: Option<String>,
    /// Seconds a client whose connection was lost keeps trying to reconnect (through the whole
    /// host list) before the run stops with an error [default: 30]
    #[arg(long, value_parser = values::positive_seconds)]
    pub reconnect_timeout: Option<f64>,
    /// SQL run on every new connection (';'-separated), e.g. "SET SESSION sql_log_bin=0"
    #[arg(long, default_value = "", alias = "mysql-session-options")]
    pub session_options: String,
    /// sysbench's client certificate options: refused with a clear line (fairbench's clients present none)
    #[arg(long, hide = true)]
    pub mysql_ssl_key: Option<String>,
    #[arg(long, hide = true)]
    pub mysql_ssl_cert: Option<String>,
    /// sysbench's cipher choice: accepted, no effect (the TLS library negotiates its own suites)
    #[arg(long, hide = true)]
    pub mysql_ssl_cipher: Option<String>,
    /// sysbench's protocol compression (on|off): on is refused (fairbench's MySQL client does not compress)
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "on", value_parser = values::parse_bool)]
    pub mysql_compression: Option<bool>,
    #[arg(long, hide = true)]
    pub mysql_compression_algorithms: Option<String>,
    /// sysbench's client-library tracing and dry run (on|off): accepted; dry run on is refused
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "on", value_parser = values::parse_bool)]
    pub mysql_debug: Option<bool>,
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "on", value_parser = values::parse_bool)]
    pub mysql_dry_run: Option<bool>,
    /// sysbench's database debug output (on|off): accepted, no effect
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "on", value_parser = values::parse_bool)]
    pub db_debug: Option<bool>,
    /// The label this command was given (set by the parser, not an option).
    #[arg(skip)]
    pub label: Option<String>,
}

impl TargetArgs {
    /// sysbench's connection options given that change nothing here, for
    /// the one note line a run prints.
    pub fn without_effect(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (given, name) in [
            (self.mysql_ssl_cipher.is_some(), "--mysql-ssl-cipher"),
            (self.mysql_compression_algorithms.is_some(), "--mysql-compression-algorithms"),
            (self.mysql_debug.is_some(), "--mysql-debug"),
            (self.db_debug.is_some(), "--db-debug"),
        ] {
            if given {
                v.push(name);
            }
        }
        v
    }

    /// sysbench options whose meaning fairbench cannot give: one line each.
    fn refuse_unsupported(&self) -> Result<()> {
        if self.mysql_ssl_key.is_some() || self.mysql_ssl_cert.is_some() {
            return Err(usage!("--mysql-ssl-key/--mysql-ssl-cert: fairbench's clients do not present client certificates; authenticate with a password over TLS (--mysql-ssl=REQUIRED)"));
        }
        if self.mysql_compression == Some(true) {
            return Err(usage!("--mysql-compression=on: fairbench's MySQL client does not compress the protocol; leave it off"));
        }
        if self.mysql_dry_run == Some(true) {
            return Err(usage!("--mysql-dry-run=on: fairbench has no dry-run client; to see the client's own cost, read the Client CPU line of a real run"));
        }
        Ok(())
    }

    /// The connection: the URL and the options, then the environment's
    /// client variables where they say nothing (`crate::db::environ`),
    /// then fairbench's defaults.
    pub fn resolve(&self) -> Result<ConnConfig> {
        self.resolve_with(&crate::db::url::process_env)
    }

    pub fn resolve_with(&self, env: &Env) -> Result<ConnConfig> {
        self.refuse_unsupported()?;
        let driver = self.db_driver.as_deref().map(str::to_ascii_lowercase);
        let mut g = match (&self.target, driver.as_deref()) {
            (Some(u), _) => Given::parse(u)?,
            (None, Some("mysql") | Some("mariadb")) => Given::new(Protocol::Mysql),
            (None, Some("pgsql") | Some("postgres") | Some("postgresql")) => Given::new(Protocol::Postgres),
            (None, Some("sqlite") | Some("sqlite3")) | (None, None) => {
                if self.mysql_host.is_some() || self.mysql_socket.is_some() {
                    Given::new(Protocol::Mysql)
                } else if self.pgsql_host.is_some() {
                    Given::new(Protocol::Postgres)
                } else {
                    Given::new(Protocol::Sqlite)
                }
            }
            (None, Some(d)) => return Err(usage!("unknown --db-driver '{d}': use mysql, pgsql or sqlite")),
        };
        let port = |p: Option<u16>| p.map(|p| vec![Some(p)]);
        match g.protocol {
            Protocol::Mysql => {
                if let Some(h) = &self.mysql_host {
                    g.hosts = Some(h.split(',').filter(|s| !s.is_empty()).map(String::from).collect());
                    g.ports = port(self.mysql_port);
                } else if self.mysql_port.is_some() {
                    g.ports = port(self.mysql_port);
                }
                set(&mut g.socket, &self.mysql_socket);
                set(&mut g.user, &self.mysql_user);
                set(&mut g.password, &self.mysql_password);
                set(&mut g.database, &self.mysql_db);
                if let Some(m) = &self.mysql_ssl {
                    g.ssl_mode = Some(SslMode::parse(m)?);
                }
                set(&mut g.ssl_ca, &self.mysql_ssl_ca);
            }
            Protocol::Postgres => {
                if let Some(h) = &self.pgsql_host {
                    if h.starts_with('/') {
                        g.socket = Some(h.clone());
                        if self.pgsql_port.is_some() {
                            g.ports = port(self.pgsql_port);
                        }
                    } else if h.split(',').any(str::is_empty) {
                        return Err(usage!("--pgsql-host={h}: empty host in the host list; list hosts as h1,h2 with no empty entry"));
                    } else {
                        g.hosts = Some(h.split(',').map(String::from).collect());
                        g.ports = port(self.pgsql_port);
                    }
                } else if self.pgsql_port.is_some() {
                    g.ports = port(self.pgsql_port);
                }
                set(&mut g.user, &self.pgsql_user);
                set(&mut g.password, &self.pgsql_password);
                set(&mut g.database, &self.pgsql_db);
                if let Some(m) = &self.pgsql_sslmode {
                    g.ssl_mode = Some(SslMode::parse(m)?);
                }
            }
            Protocol::Sqlite => {}
        }
        let mut t = g.finish(env)?;
        match self.transport.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None => {}
            Some("tcp") => t.socket = None,
            Some("socket") if t.socket.is_none() => {
                t.socket = t.protocol.default_socket().map(String::from);
            }
            Some("socket") => {}
            Some(o) => return Err(usage!("--transport={o}: use socket or tcp")),
        }
        if t.password.is_none() && t.protocol != Protocol::Sqlite {
            t.password = crate::db::password::lookup(&t, env);
        }
        let mut cfg = ConnConfig::new(t);
        cfg.prepared = match self.db_ps_mode.to_ascii_lowercase().as_str() {
            "auto" => true,
            "disable" => false,
            o => return Err(usage!("--db-ps-mode={o}: use auto or disable")),
        };
        if let Some(l) = &self.mysql_ignore_errors {
            cfg.mysql_ignore = IgnoreList::parse(l);
        }
        if let Some(l) = &self.pgsql_ignore_errors {
            cfg.pgsql_ignore = IgnoreList::parse(l);
        }
        if let Some(s) = self.reconnect_timeout {
            cfg.reconnect_timeout = std::time::Duration::from_secs_f64(s);
        }
        cfg.session_sql = self.session_options.split(';').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        Ok(cfg)
    }
}

fn set(dst: &mut Option<String>, v: &Option<String>) {
    if v.is_some() {
        dst.clone_from(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::url::test_env as env;

    fn args() -> TargetArgs {
        TargetArgs { db_ps_mode: "auto".into(), ..Default::default() }
    }

    /// sysbench's options win over the environment, as the URL does, and
    /// the environment over fairbench's defaults; a variable an option
    /// overrides is not read.
    #[test]
    fn options_win_over_the_environment_and_it_over_the_defaults() {
        let a = TargetArgs { db_driver: Some("pgsql".into()), pgsql_user: Some("opt".into()), pgsql_port: Some(6000), ..args() };
        let vars = [("PGUSER", "envuser"), ("PGPORT", "abc"), ("PGDATABASE", "envdb"), ("PGPASSWORD", "pgpw"), ("FAIRBENCH_PASSWORD", "fb")];
        let t = a.resolve_with(&env(&vars)).unwrap().target;
        assert_eq!((t.hosts, t.user.as_str(), t.database.as_str(), t.password.as_deref()), (vec![("localhost".into(), 6000)], "opt", "envdb", Some("fb")));
        let a = TargetArgs { target: Some("postgres://u@h:5432/db".into()), pgsql_password: Some("opt".into()), ..args() };
        assert_eq!(a.resolve_with(&env(&vars)).unwrap().target.password.as_deref(), Some("opt"));
        let a = TargetArgs { target: Some("postgres://u@h:5432/db".into()), ..args() };
        assert_eq!(a.resolve_with(&env(&vars[..4])).unwrap().target.password.as_deref(), Some("pgpw"));
        // A port the URL leaves out is PGPORT's, so an unusable one is refused.
        let a = TargetArgs { target: Some("postgres://u@h/db".into()), ..args() };
        assert!(a.resolve_with(&env(&vars)).unwrap_err().to_string().starts_with("PGPORT: "));
        let m = TargetArgs { db_driver: Some("mysql".into()), ..args() };
        let vars = [("MYSQL_HOST", "envhost"), ("MYSQL_TCP_PORT", "3310"), ("MYSQL_PWD", "mypw")];
        let t = m.resolve_with(&env(&vars)).unwrap().target;
        assert_eq!((t.hosts, t.password.as_deref()), (vec![("envhost".into(), 3310)], Some("mypw")));
        let m = TargetArgs { mysql_host: Some("opthost".into()), ..args() };
        assert_eq!(m.resolve_with(&env(&vars)).unwrap().target.hosts, vec![("opthost".into(), 3310)]);
        // MYSQL_UNIX_PORT serves localhost; --transport=tcp keeps TCP.
        let local = [("MYSQL_UNIX_PORT", "/env/m.sock")];
        let m = TargetArgs { db_driver: Some("mysql".into()), ..args() };
        assert_eq!(m.resolve_with(&env(&local)).unwrap().target.socket.as_deref(), Some("/env/m.sock"));
        let m = TargetArgs { db_driver: Some("mysql".into()), transport: Some("tcp".into()), ..args() };
        assert_eq!(m.resolve_with(&env(&local)).unwrap().target.socket, None);
        let m = TargetArgs { db_driver: Some("mysql".into()), mysql_port: Some(3306), ..args() };
        assert_eq!(m.resolve_with(&env(&local)).unwrap().target.socket, None);
    }
}
