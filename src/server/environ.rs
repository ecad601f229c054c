//! The environment of every program a sandbox runs. A client's connection
//! variables in the user's shell (`PGPASSWORD`, `PGHOST`, `MYSQL_PWD`,
//! `MYSQL_UNIX_PORT` ...) would reach the clients the servers run
//! themselves (Patroni's pg_basebackup, initdb, the setup's psql and
//! mariadb) and override what the sandbox gives them; etcd, Patroni and
//! MinIO read settings from `ETCD_*`, `PATRONI_*` and `MINIO_*` over their
//! command lines and files. Every such variable is left out: a program
//! gets only what its spawn site sets explicitly.

use std::ffi::{OsStr, OsString};
use std::process::Command;

/// Prefixes of the variables left out (names compared as written: the
/// programs read them in upper case).
const PREFIXES: &[&str] = &[
    // libpq and PostgreSQL's programs: PGPASSWORD, PGHOST, PGDATA, PGOPTIONS, ...
    "PG",
    // libmysqlclient, libmariadb and the servers: MYSQL_PWD, MYSQL_HOST, MYSQL_HOME, ...
    "MYSQL",
    "MARIADB",
    "LIBMYSQL_",
    "ETCD_",
    "ETCDCTL_",
    "MINIO_",
    "PATRONI_",
    "TIDB_",
];

/// Whether a sandbox's programs must not inherit `name`.
pub fn is_left_out(name: &OsStr) -> bool {
    let n = name.to_string_lossy();
    PREFIXES.iter().any(|p| n.starts_with(p))
}

/// A `Command` for `prog` whose environment is this process's without the
/// variables above; what the spawn site sets afterwards (`.env(..)`) is kept.
pub fn command(prog: impl AsRef<OsStr>) -> Command {
    let mut c = Command::new(prog);
    for k in left_out(std::env::vars_os().map(|(k, _)| k)) {
        c.env_remove(k);
    }
    c
}

fn left_out(names: impl Iterator<Item = OsString>) -> Vec<OsString> {
    names.filter(|k| is_left_out(k)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_and_cluster_variables_are_left_out() {
        let names = [
            "PGPASSWORD",
            "PGUSER",
            "PGHOST",
            "PGHOSTADDR",
            "PGPORT",
            "PGDATABASE",
            "PGSSLMODE",
            "PGPASSFILE",
            "PGSERVICE",
            "PGSERVICEFILE",
            "PGOPTIONS",
            "PGTARGETSESSIONATTRS",
            "PGDATA",
            "MYSQL_PWD",
            "MYSQL_HOST",
            "MYSQL_TCP_PORT",
            "MYSQL_UNIX_PORT",
            "MYSQL_HOME",
            "MARIADB_HOME",
            "LIBMYSQL_ENABLE_CLEARTEXT_PLUGIN",
            "ETCD_DATA_DIR",
            "ETCDCTL_ENDPOINTS",
            "MINIO_ROOT_PASSWORD",
            "PATRONI_SCOPE",
        ];
        for n in names {
            assert!(is_left_out(OsStr::new(n)), "{n}");
        }
        for n in ["PATH", "HOME", "LANG", "TMPDIR", "USER", "FAIRBENCH_PASSWORD", "pgpassword"] {
            assert!(!is_left_out(OsStr::new(n)), "{n}");
        }
    }

    #[test]
    fn what_the_spawn_site_sets_is_kept() {
        // Removals are recorded for the inherited names; a later `.env` wins.
        let mut c = Command::new("true");
        for k in left_out(["PGPASSWORD", "PATH"].map(OsString::from).into_iter()) {
            c.env_remove(k);
        }
        c.env("PGPASSWORD", "sandbox");
        let envs: Vec<_> = c.get_envs().collect();
        assert_eq!(envs, vec![(OsStr::new("PGPASSWORD"), Some(OsStr::new("sandbox")))]);
    }
}
