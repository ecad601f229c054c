//! A server a test runs a workload on: a SQLite file, or the suite's
//! MariaDB or PostgreSQL, and how the test reads it behind fairbench's back.

use super::{mysql_at, mysql_url, parse_url, pg_admin_db, pg_url};
use std::path::PathBuf;

pub enum Server {
    Sqlite(PathBuf),
    Mariadb,
    Postgres,
}

impl Server {
    pub fn url(&self) -> String {
        match self {
            Server::Sqlite(p) => format!("sqlite://{}", p.display()),
            Server::Mariadb => mysql_url(),
            Server::Postgres => pg_url(),
        }
    }

    /// The first value of `q`'s first row, as text.
    pub fn sql(&self, q: &str) -> String {
        match self {
            Server::Sqlite(p) => {
                let c = rusqlite::Connection::open(p).unwrap();
                c.query_row(q, [], |r| r.get::<_, i64>(0)).unwrap().to_string()
            }
            Server::Mariadb => mysql_at(&mysql_url(), q),
            Server::Postgres => pg_admin_db(&parse_url(&pg_url()).database, q).trim().to_string(),
        }
    }

    /// `q`'s first value as a number (a COUNT).
    pub fn count(&self, q: &str) -> u64 {
        let text = self.sql(q);
        text.trim().parse().unwrap_or_else(|_| panic!("{q}: {text}"))
    }
}
