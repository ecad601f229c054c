//! What TiDB refuses that a MySQL user types, said before it is sent: one
//! line that names what TiDB offers instead. Some refusals depend on how
//! the sessions are set (noop functions, the isolation level check), so
//! the screen is made from the server's values and the session's SQL.

use crate::db::engines::Screen;

/// The session values that decide two of the refusals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Allowed {
    /// `tidb_enable_noop_functions`: LOCK IN SHARE MODE / FOR SHARE accepted (as no-ops).
    pub noop_functions: bool,
    /// `tidb_skip_isolation_level_check`: SERIALIZABLE and READ UNCOMMITTED accepted by name.
    pub any_isolation_name: bool,
}

impl Allowed {
    /// The server's values, then what the session SQL sets.
    pub fn from(global_noop: bool, global_skip: bool, session: &[String]) -> Allowed {
        let mut a = Allowed { noop_functions: global_noop, any_isolation_name: global_skip };
        for s in session {
            let t = normal(s);
            if let Some(v) = assigned(&t, "tidb_enable_noop_functions") {
                a.noop_functions = v;
            }
            if let Some(v) = assigned(&t, "tidb_skip_isolation_level_check") {
                a.any_isolation_name = v;
            }
        }
        a
    }

    pub fn screen(self) -> Screen {
        Box::new(move |sql| refusal(&spaced(sql), self))
    }
}

/// Every run of whitespace one space, MySQL's executable comments
/// (`/*! ... */`) opened, so a clause is found however written.
fn spaced(sql: &str) -> String {
    let opened = sql.replace("/*!", " ").replace("*/", " ");
    opened.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

fn normal(sql: &str) -> String {
    spaced(sql).to_ascii_lowercase()
}

/// The value a `SET [SESSION|GLOBAL] name = v` in `t` gives `name`, as on/off.
fn assigned(t: &str, name: &str) -> Option<bool> {
    let at = t.find(name)?;
    let v = t[at + name.len()..].trim_start().strip_prefix('=')?.trim_start().trim_start_matches(['\'', '"']);
    Some(v.starts_with('1') || v.starts_with("on") || v.starts_with("true"))
}

/// `sql` as [`spaced`] gives it; the clauses are found in its lower case,
/// names are quoted as written.
fn refusal(sql: &str, a: Allowed) -> Option<String> {
    let t = &sql.to_ascii_lowercase();
    if !a.noop_functions && (t.contains("lock in share mode") || t.contains("for share")) {
        return Some(
            "TiDB runs LOCK IN SHARE MODE / FOR SHARE only as a no-op that takes no lock, and only with tidb_enable_noop_functions=ON: use FOR UPDATE for a locking read, or drop the clause".into(),
        );
    }
    if !a.any_isolation_name && t.starts_with("set ") && t.contains("isolation") {
        for (level, name) in [("serializable", "SERIALIZABLE"), ("read uncommitted", "READ UNCOMMITTED"), ("read-uncommitted", "READ UNCOMMITTED")] {
            if t.contains(level) {
                return Some(format!(
                    "TiDB does not offer {name}: use REPEATABLE READ (its snapshot isolation, --isolation RR) or READ COMMITTED (--isolation RC); tidb_skip_isolation_level_check=1 accepts the name without its guarantee"
                ));
            }
        }
    }
    if t.contains("optimize table") || t.contains("optimize no_write_to_binlog table") || t.contains("optimize local table") {
        return Some("TiDB has no OPTIMIZE TABLE (its storage compacts on its own): use ANALYZE TABLE for fresh statistics".into());
    }
    if t.contains("show engine innodb status") || t.contains("show engine innodb mutex") {
        return Some("TiDB has no InnoDB to show: its state is in information_schema (cluster_info, tidb_trx, data_lock_waits) and in its status port's /metrics".into());
    }
    if t.contains("sql_log_bin") {
        return Some("TiDB has no binary log to switch off (sql_log_bin): changes leave it through TiCDC; drop the setting".into());
    }
    if t.contains("page_compressed") {
        return Some("TiDB has no PAGE_COMPRESSED table option (its storage compresses its own files): drop --table-compression".into());
    }
    if let Some(engine) = storage_engine(t, sql) {
        return Some(format!("TiDB keeps every table in its own storage and has no storage engine {engine}: drop --mysql-storage-engine (InnoDB is accepted as a name and changes nothing)"));
    }
    None
}

/// The storage engine a CREATE/ALTER TABLE names, when it is not InnoDB
/// (which TiDB accepts and ignores).
fn storage_engine(t: &str, sql: &str) -> Option<String> {
    if !(t.starts_with("create table") || t.starts_with("alter table") || t.starts_with("create temporary table")) {
        return None;
    }
    let b = t.as_bytes();
    let word = |i: usize| b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
    let mut from = 0;
    while let Some(found) = t[from..].find("engine") {
        let at = from + found;
        let end = at + "engine".len();
        from = end;
        // `ENGINE = name` as a table option: a whole word followed by '='
        // (a column named engine is followed by its type instead).
        if (at > 0 && word(at - 1)) || word(end) {
            continue;
        }
        let Some(value) = t[end..].trim_start().strip_prefix('=') else { continue };
        let value = value.trim_start();
        let len = value.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
        let at = t.len() - value.len();
        if len > 0 && &value[..len] != "innodb" {
            return Some(sql[at..at + len].to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(sql: &str, a: Allowed) -> Option<String> {
        (a.screen())(sql)
    }

    #[test]
    fn what_tidb_lacks_is_refused_with_what_it_offers() {
        let a = Allowed::default();
        for (sql, says) in [
            ("SELECT c FROM sbtest1 WHERE id=? LOCK IN SHARE MODE", "FOR UPDATE"),
            ("select c from t where id=1 FOR  SHARE", "FOR UPDATE"),
            ("SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE", "REPEATABLE READ"),
            ("SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", "READ COMMITTED"),
            ("SET SESSION transaction_isolation = 'SERIALIZABLE'", "REPEATABLE READ"),
            ("OPTIMIZE TABLE sbtest1", "ANALYZE TABLE"),
            ("SHOW ENGINE INNODB STATUS", "information_schema"),
            ("SET SESSION sql_log_bin=0", "TiCDC"),
            ("CREATE TABLE sbtest1 (id INT) /*! ENGINE = Aria */", "Aria"),
            ("CREATE TABLE t (id INT) ENGINE=rocksdb", "rocksdb"),
            ("CREATE TABLE t (id INT) /*! ENGINE = innodb */ PAGE_COMPRESSED=1", "--table-compression"),
        ] {
            let why = refused(sql, a).unwrap_or_else(|| panic!("{sql} passed"));
            assert!(why.contains(says), "{sql}: {why}");
            assert!(!why.contains('\n'));
        }
    }

    #[test]
    fn what_tidb_runs_passes() {
        let a = Allowed::default();
        for sql in [
            "SELECT c FROM sbtest1 WHERE id=?",
            "SELECT c FROM sbtest1 WHERE id=? FOR UPDATE",
            "SELECT * FROM t FOR UPDATE NOWAIT",
            "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
            "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "CREATE TABLE sbtest1 (id INT, k INT, c CHAR(120), pad CHAR(60), PRIMARY KEY (id)) /*! ENGINE = innodb */",
            "ANALYZE TABLE sbtest1",
            "SELECT engine FROM information_schema.tables",
            "INSERT INTO t (c) VALUES ('engine=aria')",
            "CREATE TABLE t (engine VARCHAR(10), engine_x INT)",
            "BEGIN",
        ] {
            assert_eq!(refused(sql, a), None, "{sql}");
        }
    }

    #[test]
    fn session_settings_lift_what_they_allow() {
        let a = Allowed::from(false, false, &["SET SESSION tidb_enable_noop_functions = ON".into(), "set tidb_skip_isolation_level_check=1".into()]);
        assert_eq!(a, Allowed { noop_functions: true, any_isolation_name: true });
        assert_eq!(refused("SELECT 1 FROM t LOCK IN SHARE MODE", a), None);
        assert_eq!(refused("SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE", a), None);
        let off = Allowed::from(true, true, &["SET tidb_enable_noop_functions='OFF'".into()]);
        assert!(!off.noop_functions && off.any_isolation_name);
    }
}
