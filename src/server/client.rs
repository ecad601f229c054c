//! The command-line clients of the two wire protocols a sandbox speaks:
//! they probe a starting server and make its accounts, for every kind on
//! that protocol.

use super::common::{find_bin, missing};
use super::environ;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The MySQL-protocol client on PATH (or in /usr/sbin).
pub fn mysql_client() -> crate::error::Result<PathBuf> {
    find_bin(&["mariadb", "mysql"], &[]).ok_or_else(|| missing("the mariadb client", "mariadb-client"))
}

/// Runs SQL through the MySQL-protocol client over TCP on 127.0.0.1:`port`; Ok(stdout).
pub fn mysql_sql(client: &Path, port: u16, user: &str, password: &str, sql: &str) -> std::result::Result<String, String> {
    answer(
        environ::command(client)
            .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "--connect-timeout=2", "-N", "-B"])
            .arg(format!("-P{port}"))
            .arg(format!("-u{user}"))
            .env("MYSQL_PWD", password)
            .arg("-e")
            .arg(sql),
    )
}

/// The server's message in the MySQL-protocol client's error output (which
/// repeats the statement in batch mode): `Unknown system variable 'x'`.
pub fn mysql_error(e: &str) -> String {
    match e.lines().find(|l| l.starts_with("ERROR")) {
        Some(l) => l.split_once(": ").map_or(l, |(_, m)| m).trim().to_string(),
        None => crate::error::one_line(e).into_owned(),
    }
}

/// The newest PostgreSQL installed the Debian way, else what is on PATH.
pub fn pg_bindir() -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|v| v.parse::<u32>().ok()).map(|v| (v, e.path().join("bin"))))
        .filter(|(_, p)| p.join("initdb").is_file())
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, p)| p).or_else(|| find_bin(&["initdb"], &[]).and_then(|p| p.parent().map(Path::to_path_buf)))
}

/// Runs SQL with psql over TCP on 127.0.0.1:`port`; Ok(stdout).
pub fn psql_at(psql: &Path, port: u16, user: &str, password: &str, db: &str, sql: &str) -> std::result::Result<String, String> {
    answer(
        environ::command(psql)
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1"])
            .arg("-p")
            .arg(port.to_string())
            .arg("-U")
            .arg(user)
            .arg("-d")
            .arg(db)
            .arg("-c")
            .arg(sql)
            .env("PGPASSWORD", password)
            .env("PGCONNECT_TIMEOUT", "2"),
    )
}

/// A client's stdout when it succeeds, else its error output.
fn answer(c: &mut std::process::Command) -> std::result::Result<String, String> {
    let o = c.stdin(Stdio::null()).output().map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).to_string())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clients_error_is_the_servers_message() {
        let e = "--------------\nSET GLOBAL x = 1\n--------------\n\nERROR 1193 (HY000) at line 1: Unknown system variable 'x'";
        assert_eq!(mysql_error(e), "Unknown system variable 'x'");
        assert_eq!(mysql_error("no route\nto host"), crate::error::one_line("no route\nto host"));
    }
}
