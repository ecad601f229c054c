//! Passwords not given in the URL or the options, in this order:
//! `FAIRBENCH_PASSWORD`; then for PostgreSQL `PGPASSWORD` and the password
//! file (`PGPASSFILE`, else `~/.pgpass`), as libpq reads them; for MySQL
//! `~/.my.cnf` ([client] password=) and then `MYSQL_PWD`, as the mysql
//! client reads them (the option file's password is passed to the library,
//! which reads the variable only when none was). (A service file's
//! password is the target's already: `super::environ`.)

use super::url::Env;
use super::{Protocol, Target};

pub fn lookup(t: &Target, env: &Env) -> Option<String> {
    if let Some(p) = env("FAIRBENCH_PASSWORD") {
        return Some(p);
    }
    // libpq reads an empty PGPASSWORD as none, and goes on to the file.
    let var = |n: &str| env(n).filter(|v| !v.is_empty());
    match t.protocol {
        Protocol::Mysql => var("HOME").and_then(|home| my_cnf(&std::fs::read_to_string(format!("{home}/.my.cnf")).ok()?)).or_else(|| var("MYSQL_PWD")),
        Protocol::Postgres => var("PGPASSWORD").or_else(|| {
            let path = var("PGPASSFILE").or_else(|| Some(format!("{}/.pgpass", var("HOME")?)))?;
            pgpass(&std::fs::read_to_string(path).ok()?, t)
        }),
        Protocol::Sqlite => None,
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
        let Some((f, password)) = pgpass_fields(line.trim_end_matches('\r')) else { continue };
        // A field that is `*` as written matches anything; an escaped `\*` is a star.
        let m = |(raw, value): &(String, String), v: &str| raw == "*" || value == v;
        if m(&f[0], &host) && m(&f[1], &port) && m(&f[2], &t.database) && m(&f[3], &t.user) {
            return Some(password);
        }
    }
    None
}

/// A `.pgpass` line as libpq reads it: four fields (each as written and
/// with its escapes undone) and the password. A backslash takes the next
/// character as it is, so `\:` is a colon inside a field (an IPv6 host, a
/// password) and `\\` a backslash; the password is the rest of the line.
/// None: fewer than five fields.
fn pgpass_fields(line: &str) -> Option<([(String, String); 4], String)> {
    let mut fields: Vec<(String, String)> = Vec::with_capacity(4);
    let (mut raw, mut value) = (String::new(), String::new());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                raw.push(c);
                if let Some(n) = chars.next() {
                    raw.push(n);
                    value.push(n);
                }
            }
            ':' if fields.len() < 4 => fields.push((std::mem::take(&mut raw), std::mem::take(&mut value))),
            _ => {
                raw.push(c);
                value.push(c);
            }
        }
    }
    let f: [(String, String); 4] = fields.try_into().ok()?;
    Some((f, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::url::test_env as env;

    /// URL or options, then FAIRBENCH_PASSWORD, then PGPASSWORD, then the
    /// password file (libpq's order); ~/.my.cnf before MYSQL_PWD (the mysql
    /// client's).
    #[test]
    fn passwords_are_looked_up_in_order() {
        let dir = std::env::temp_dir().join(format!("fairbench-password-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".pgpass"), "*:*:*:*:from-home\n").unwrap();
        std::fs::write(dir.join("other.pgpass"), "*:*:*:*:from-pgpassfile\n").unwrap();
        std::fs::write(dir.join(".my.cnf"), "[client]\npassword=from-my-cnf\n").unwrap();
        let (home, passfile) = (dir.display().to_string(), dir.join("other.pgpass").display().to_string());
        let pg = Target::parse("postgres://u@h/db").unwrap();
        let my = Target::parse("mysql://u@h/db").unwrap();
        let all = [("HOME", home.as_str()), ("PGPASSFILE", passfile.as_str()), ("FAIRBENCH_PASSWORD", "fb"), ("PGPASSWORD", "pgpw"), ("MYSQL_PWD", "mypw")];
        assert_eq!(lookup(&pg, &env(&all)).as_deref(), Some("fb"));
        assert_eq!(lookup(&my, &env(&all)).as_deref(), Some("fb"));
        let [home, passfile, _, pgpw, mypw] = all;
        assert_eq!(lookup(&pg, &env(&[home, passfile, pgpw])).as_deref(), Some("pgpw"));
        assert_eq!(lookup(&my, &env(&[home, mypw])).as_deref(), Some("from-my-cnf"));
        assert_eq!(lookup(&my, &env(&[mypw])).as_deref(), Some("mypw"));
        assert_eq!(lookup(&pg, &env(&[home, passfile])).as_deref(), Some("from-pgpassfile"));
        assert_eq!(lookup(&pg, &env(&[home, ("PGPASSWORD", "")])).as_deref(), Some("from-home"));
        assert_eq!(lookup(&my, &env(&[home])).as_deref(), Some("from-my-cnf"));
        // PostgreSQL's variable is not MySQL's, nor the other way round.
        assert_eq!(lookup(&my, &env(&[("PGPASSWORD", "pgpw")])), None);
        assert_eq!(lookup(&pg, &env(&[("MYSQL_PWD", "mypw")])), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reads_my_cnf_client_section() {
        assert_eq!(my_cnf("[mysqld]\npassword=no\n[client]\nuser=a\npassword = \"s3\"\n"), Some("s3".into()));
    }

    #[test]
    fn reads_pgpass_with_wildcards() {
        let t = Target::parse("postgres://bob@db:5433/app").unwrap();
        assert_eq!(pgpass("other:*:*:*:x\n*:5433:app:bob:pw\n", &t), Some("pw".into()));
    }

    /// libpq undoes backslash escapes: a password with a colon or a
    /// backslash in it was read with the backslashes left in, and a host
    /// written with escaped colons never matched.
    #[test]
    fn pgpass_escapes_are_undone_as_libpq_does() {
        let t = Target::parse("postgres://bob@db:5433/app").unwrap();
        assert_eq!(pgpass("db:5433:app:bob:a\\:b\\\\c:d\r\n", &t), Some("a:b\\c:d".into()));
        assert_eq!(pgpass("db:5433:app:bob:\n", &t), Some(String::new()));
        // An escaped star is a star, not a wildcard.
        assert_eq!(pgpass("\\*:5433:app:bob:no\n*:5433:app:bob:yes\n", &t), Some("yes".into()));
        // Too few fields: skipped.
        assert_eq!(pgpass("db:5433:app\ndb:5433:app:bob:pw\n", &t), Some("pw".into()));
        let v6 = Target::parse("postgres://bob@[::1]:5433/app").unwrap();
        assert_eq!(pgpass("\\:\\:1:5433:app:bob:six\n", &v6), Some("six".into()));
    }
}
