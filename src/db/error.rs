//! What can go wrong with a database call, and what the runner does
//! about it: the error classes, the lists of codes that restart an event.

use super::{engines, Target};

/// What went wrong with one database call, and what the runner should do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrKind {
    /// In the ignore list (deadlock, lock wait timeout, serialization
    /// failure, SQLITE_BUSY): restart the event, count it.
    Retryable,
    /// The connection is gone: reconnect, count it, restart the event.
    ConnectionLost,
    /// Could not connect or authenticate.
    Connect,
    /// Anything else: stop the run.
    Fatal,
    /// The run ended while the call waited (for a SQLite turn to write):
    /// nothing ran, nothing went wrong.
    Stopped,
}

#[derive(Clone, Debug)]
pub struct DbError {
    pub kind: ErrKind,
    /// Engine code: MySQL error number, SQLSTATE, SQLite result code name.
    pub code: String,
    pub message: String,
}

impl DbError {
    /// A deadlock (PostgreSQL's 40P01, MySQL's 1213), as opposed to a serialization failure or a
    /// lock wait given up: what pgbench's `--failures-detailed` counts apart.
    pub fn deadlock(&self) -> bool {
        matches!(self.code.as_str(), "40P01" | "1213")
    }

    /// The server cancelled the statement at the session's time limit
    /// (MariaDB's max_statement_time, MySQL's and TiDB's
    /// max_execution_time, PostgreSQL's statement_timeout, SQLite's
    /// interrupt).
    pub fn timed_out(&self) -> bool {
        match self.code.as_str() {
            "1969" | "3024" | "57014" | "SQLITE_INTERRUPT" => true,
            // "Query execution was interrupted"; vtgate answers every aborted
            // call with it, a deadline ("context deadline exceeded") among them.
            "1317" => {
                let m = self.message.to_ascii_lowercase();
                m.contains("interrupted") || m.contains("deadline exceeded")
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.code.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{} ({})", self.message, self.code)
        }
    }
}

pub type DbResult<T> = std::result::Result<T, DbError>;

/// Error codes that restart an event instead of stopping the run.
#[derive(Clone, Debug, Default)]
pub struct IgnoreList {
    pub all: bool,
    pub codes: Vec<String>,
    /// The default list, not one the user gave: the engine's own retryable
    /// errors ([`Engine::retryable`]) count as listed too.
    pub default: bool,
}

impl IgnoreList {
    pub fn parse(s: &str) -> IgnoreList {
        let mut l = IgnoreList::default();
        for c in s.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            if c.eq_ignore_ascii_case("all") {
                l.all = true;
            } else if !c.eq_ignore_ascii_case("none") {
                l.codes.push(c.to_ascii_uppercase());
            }
        }
        l
    }
    /// The list an option was left at: `parse(default)` with the engine's errors added.
    pub fn default_of(default: &str) -> IgnoreList {
        IgnoreList { default: true, ..IgnoreList::parse(default) }
    }
    pub fn contains(&self, code: &str) -> bool {
        self.all || self.codes.iter().any(|c| c.eq_ignore_ascii_case(code))
    }
}

/// sysbench's default `--mysql-ignore-errors`.
pub const MYSQL_IGNORE_DEFAULT: &str = "1213,1020,1205";
/// `--pgsql-ignore-errors` by default: 23505 as sysbench's driver does (a
/// concurrent delete+insert of the same id).
pub const PGSQL_IGNORE_DEFAULT: &str = "40001,40P01,23505";

/// The error of a command's own statement `sql` (DDL, a count) that failed,
/// naming the statement.
pub fn sql_error(sql: &str) -> impl FnOnce(DbError) -> crate::error::Error + '_ {
    move |e| crate::error::Error::Sql(format!("{e}\n  in: {sql}"))
}

/// The error a failed connection ends a command with.
pub fn connect_error(t: &Target, e: &DbError) -> crate::error::Error {
    crate::error::Error::Connect(format!("cannot connect to {t}: {}", e.message))
}

/// What a statement prepared in one transaction and missing in the next
/// means, and what to do about it.
pub const LOST_STATEMENT: &str =
    "a prepared statement vanished between transactions: a pooler in transaction mode (pgbouncer) is in front of the server; run with --db-ps-mode=disable, or use session pooling";

/// PostgreSQL's 'prepared statement "s3" does not exist' (26000) for one of
/// fairbench's own statements: the session it was prepared in is not the
/// one that ran it.
pub(super) fn is_lost_statement(e: &DbError) -> bool {
    e.code == "26000" && e.message.starts_with("prepared statement \"s")
}

/// The error of a statement an engine refused (see [`engines::refusal`]).
pub(super) fn refused(why: String) -> DbError {
    DbError { kind: ErrKind::Fatal, code: "refused".into(), message: engines::refuse(why) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(code: &str, message: &str) -> DbError {
        DbError { kind: ErrKind::Fatal, code: code.into(), message: message.into() }
    }

    /// vtgate answers every aborted call with 1317: its row limit is no
    /// time limit (an analytic query cut at 10000 rows was named "timed
    /// out"), its deadline is.
    #[test]
    fn vtgates_row_limit_is_not_a_timeout() {
        assert!(!e("1317", "target: ks.-80.primary: vttablet: rpc error: code = Aborted desc = Row count exceeded 10000").timed_out());
        assert!(e("1317", "target: ks.-80.primary: vttablet: rpc error: code = DeadlineExceeded desc = context deadline exceeded").timed_out());
        assert!(e("1317", "Query execution was interrupted").timed_out());
        assert!(e("1969", "Query execution was interrupted (max_statement_time exceeded)").timed_out());
        assert!(e("57014", "canceling statement due to statement timeout").timed_out());
        assert!(!e("1064", "You have an error in your SQL syntax").timed_out());
    }
}
