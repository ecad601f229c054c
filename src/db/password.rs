//! Passwords not given in the URL: `FAIRBENCH_PASSWORD`, then
//! `~/.my.cnf` ([client] password=) for MySQL or `~/.pgpass` for PostgreSQL.

use super::{Engine, Target};

pub fn lookup(t: &Target) -> Option<String> {
    if let Ok(p) = std::env::var("FAIRBENCH_PASSWORD") {
        return Some(p);
    }
    let home = std::env::var("HOME").ok()?;
    match t.engine {
        Engine::Mysql => my_cnf(&std::fs::read_to_string(format!("{home}/.my.cnf")).ok()?),
        Engine::Postgres => {
            let path = std::env::var("PGPASSFILE").unwrap_or(format!("{home}/.pgpass"));
            pgpass(&std::fs::read_to_string(path).ok()?, t)
        }
        Engine::Sqlite => None,
    }
}

fn my_cnf(text: &str) -> Option<String> {
    let mut in_client = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_client = line == "[client]" || line == "[mysql]" || line == "[client-mariadb]";
        } else if in_client {
            if let Some((k, v)) = line.split_once('=') {
                if k.trim() == "password" {
                    return Some(v.trim().trim_matches(['"', '\'']).to_string());
                }
            }
        }
    }
    None
}

fn pgpass(text: &str, t: &Target) -> Option<String> {
    let (host, port) = t.hosts.first().cloned().unwrap_or(("localhost".into(), 5432));
    let host = if t.socket.is_some() { "localhost".to_string() } else { host };
    let port = port.to_string();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.splitn(5, ':').collect();
        if f.len() == 5 {
            let m = |p: &str, v: &str| p == "*" || p == v;
            if m(f[0], &host) && m(f[1], &port) && m(f[2], &t.database) && m(f[3], &t.user) {
                return Some(f[4].to_string());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_my_cnf_client_section() {
        assert_eq!(my_cnf("[mysqld]\npassword=no\n[client]\nuser=a\npassword = \"s3\"\n"), Some("s3".into()));
    }

    #[test]
    fn reads_pgpass_with_wildcards() {
        let t = Target::parse("postgres://bob@db:5433/app").unwrap();
        assert_eq!(pgpass("other:*:*:*:x\n*:5433:app:bob:pw\n", &t), Some("pw".into()));
    }
}
