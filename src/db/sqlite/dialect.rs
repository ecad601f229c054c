//! SQLite's SQL where it differs from the forms most engines share
//! (see `db::dialect`).

use crate::db::dialect::{like_prefix, Dialect, FkPath, Loading, Schema};

pub struct LiteDialect;

impl Dialect for LiteDialect {
    fn auto_inc_int(&self) -> &'static str {
        "INTEGER NOT NULL"
    }

    fn begin_rw(&self) -> &'static str {
        "BEGIN IMMEDIATE"
    }

    fn isolation_sql(&self, _level: &str) -> Option<String> {
        None
    }

    fn for_update(&self) -> &'static str {
        ""
    }

    fn rows_in(&self, cols: &[&str], n: usize) -> String {
        let row = cols.iter().map(|c| format!("{c}=?")).collect::<Vec<_>>().join(" AND ");
        format!("(({}))", vec![row.as_str(); n].join(") OR ("))
    }

    fn column_type(&self, generic: &str) -> String {
        match generic {
            "tinyint" | "smallint" | "int" | "uint" | "uint32" | "ubigint" => "INTEGER".into(),
            "mediumtext" => "TEXT".into(),
            "datetime" | "date" => "TEXT".into(),
            "serial" | "bigserial" => "INTEGER".into(),
            other => other.to_uppercase(),
        }
    }

    fn text_up_to(&self, _len: u32) -> String {
        "TEXT".to_string()
    }

    fn double_type(&self) -> &'static str {
        "REAL"
    }

    fn decimal_type(&self, _precision: u32, _scale: u32) -> String {
        "REAL".into()
    }

    fn char_code(&self, expr: &str) -> String {
        format!("UNICODE({expr})")
    }

    /// Dates are `YYYY-MM-DD` text here.
    fn year_of(&self, expr: &str) -> String {
        format!("CAST(strftime('%Y', {expr}) AS INTEGER)")
    }

    fn clock_ms_query(&self) -> &'static str {
        "SELECT (julianday('now') - 2440587.5) * 86400000.0"
    }
}

impl Schema for LiteDialect {
    fn tables_like(&self, prefix: &str) -> String {
        let like = like_prefix(prefix);
        format!("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '{like}'")
    }

    fn index_exists_query(&self, _schema: &str, _table: &str, index: &str) -> String {
        format!("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = '{index}'")
    }

    fn has_namespaces(&self) -> bool {
        false
    }

    fn create_namespace(&self, _name: &str) -> Option<String> {
        None
    }

    fn fk_checks_off(&self) -> Option<&'static str> {
        Some("PRAGMA foreign_keys=OFF")
    }

    fn fk_path(&self) -> FkPath {
        FkPath::InCreateTable
    }

    fn add_primary_key(&self, table: &str, cols: &str) -> String {
        format!("CREATE UNIQUE INDEX {table}_pkey ON {table} ({cols})")
    }

    fn hash_partitions(&self, _table: &str, _col: &str, _n: u32) -> Option<(String, Vec<String>)> {
        None
    }
}

impl Loading for LiteDialect {
    /// SQLite generates the key of an INTEGER PRIMARY KEY that an INSERT
    /// leaves out, so PostgreSQL's SERIAL and BIGSERIAL become INTEGER and
    /// MySQL's AUTO_INCREMENT goes.
    fn adapt_generated_keys(&self, sql: &str) -> String {
        let upper = sql.to_ascii_uppercase();
        if !upper.contains("SERIAL") && !upper.contains("AUTO_INCREMENT") {
            return sql.to_string();
        }
        let mut out = String::with_capacity(sql.len());
        let bytes = sql.as_bytes();
        let mut i = 0;
        while i < sql.len() {
            let word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            let rest = &upper[i..];
            let ends = |n: usize| bytes.get(i + n).is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
            if word_start && rest.starts_with("BIGSERIAL") && ends(9) {
                out.push_str("INTEGER");
                i += 9;
            } else if word_start && rest.starts_with("SERIAL") && ends(6) {
                out.push_str("INTEGER");
                i += 6;
            } else if word_start && rest.starts_with("AUTO_INCREMENT") && ends(14) {
                i += 14;
            } else {
                let ch = sql[i..].chars().next().unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
        out
    }

    fn one_writer(&self) -> bool {
        true
    }

    fn after_bulk_load(&self) -> Option<&'static str> {
        self.checkpoint()
    }

    fn checkpoint(&self) -> Option<&'static str> {
        Some("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    fn prewarm_queries(&self, table: &str) -> Vec<String> {
        vec![format!("ANALYZE {table}"), format!("SELECT AVG(id) FROM {table}"), format!("SELECT COUNT(*) FROM {table} WHERE k LIKE '%0%'")]
    }
}
