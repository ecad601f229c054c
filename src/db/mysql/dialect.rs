//! MySQL-family SQL where it differs from the forms most engines share
//! (see `db::dialect`).

use crate::db::dialect::{like_prefix, Dialect, FkPath, Loading, Procedural, Schema, TableOptions};

pub struct MysqlDialect;

impl Dialect for MysqlDialect {
    fn auto_inc_int(&self) -> &'static str {
        "INTEGER NOT NULL AUTO_INCREMENT"
    }

    fn duplicate_key_upsert(&self) -> bool {
        true
    }

    fn isolation_sql(&self, level: &str) -> Option<String> {
        Some(format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}"))
    }

    fn procedural(&self) -> Option<Procedural> {
        Some(Procedural::SqlPsm)
    }

    fn force_primary(&self) -> &'static str {
        " FORCE INDEX (PRIMARY)"
    }

    fn force_index(&self, name: &str) -> String {
        format!(" FORCE INDEX({name})")
    }

    fn on_key_conflict_update(&self, _key: &str) -> String {
        " ON DUPLICATE KEY UPDATE".to_string()
    }

    fn existing_column(&self, _table: &str, col: &str) -> String {
        col.to_string()
    }

    fn column_type(&self, generic: &str) -> String {
        match generic {
            "tinyint" => "TINYINT".into(),
            "smallint" => "SMALLINT".into(),
            "int" => "INT".into(),
            "uint" | "uint32" => "INT UNSIGNED".into(),
            "ubigint" => "BIGINT UNSIGNED".into(),
            "mediumtext" => "MEDIUMTEXT".into(),
            "datetime" => "DATETIME".into(),
            "serial" => "INT NOT NULL AUTO_INCREMENT".into(),
            "bigserial" => "BIGINT UNSIGNED NOT NULL AUTO_INCREMENT".into(),
            other => other.to_uppercase(),
        }
    }

    fn double_type(&self) -> &'static str {
        "DOUBLE"
    }

    /// MariaDB's cap (seconds, every statement), else vtgate's deadline
    /// (milliseconds, streamed reads too, which its tablets would not cut
    /// at max_execution_time), else MySQL's and TiDB's (milliseconds,
    /// SELECT only).
    fn statement_timeout(&self, ms: u64) -> Vec<String> {
        vec![format!("SET SESSION max_statement_time = {}", ms as f64 / 1000.0), format!("SET SESSION query_timeout = {ms}"), format!("SET SESSION max_execution_time = {ms}")]
    }

    fn session_id_query(&self) -> Option<&'static str> {
        Some("SELECT CONNECTION_ID()")
    }

    fn cancel_statement(&self, id: &str) -> String {
        format!("KILL QUERY {id}")
    }

    fn clock_ms_query(&self) -> &'static str {
        "SELECT UNIX_TIMESTAMP(NOW(6)) * 1000"
    }

    fn table_options(&self) -> Option<&dyn TableOptions> {
        Some(self)
    }
}

impl Schema for MysqlDialect {
    fn schema_default(&self, value: &str) -> String {
        format!(" DEFAULT {value}")
    }

    fn tables_like(&self, prefix: &str) -> String {
        let like = like_prefix(prefix);
        format!("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE '{like}'")
    }

    fn index_exists_query(&self, schema: &str, table: &str, index: &str) -> String {
        let s = if schema.is_empty() { "DATABASE()".to_string() } else { format!("'{schema}'") };
        format!("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = {s} AND table_name = '{table}' AND index_name = '{index}' AND seq_in_index = 1")
    }

    fn create_namespace(&self, name: &str) -> Option<String> {
        Some(format!("CREATE DATABASE IF NOT EXISTS {name}"))
    }

    fn fk_checks_off(&self) -> Option<&'static str> {
        Some("SET foreign_key_checks=0")
    }

    fn fk_path(&self) -> FkPath {
        FkPath::Alter
    }

    fn create_index(&self, name: &str, table: &str, cols: &str) -> String {
        format!("CREATE INDEX {name} ON {table} ({cols})")
    }

    /// One ALTER TABLE: InnoDB reads the table once for all of them.
    fn add_indexes(&self, table: &str, indexes: &[(&str, &str)]) -> Vec<String> {
        let adds: Vec<String> = indexes.iter().map(|(n, cols)| format!("ADD INDEX {n} ({cols})")).collect();
        vec![format!("ALTER TABLE {table} {}", adds.join(", "))]
    }

    fn inline_index(&self) -> bool {
        true
    }

    fn index_if_not_exists(&self) -> bool {
        false
    }

    fn hash_partitions(&self, _table: &str, col: &str, n: u32) -> Option<(String, Vec<String>)> {
        Some((format!(" PARTITION BY HASH({col}) PARTITIONS {n}"), Vec::new()))
    }
}

impl Loading for MysqlDialect {
    fn analyze(&self, table: &str) -> String {
        format!("ANALYZE TABLE {table}")
    }

    /// InnoDB writes back down to 1% dirty pages, and flushes at full
    /// speed while idle (MySQL 8.0.18's innodb_idle_flush_pct).
    fn write_back_settings(&self) -> &'static [(&'static str, &'static str)] {
        &[("innodb_max_dirty_pages_pct_lwm", "1"), ("innodb_max_dirty_pages_pct", "1"), ("innodb_idle_flush_pct", "100")]
    }

    /// MySQL takes no LIMIT in an IN subquery; its DELETE takes ORDER BY ... LIMIT.
    fn delete_first(&self, table: &str, key: &str, from: &str, rows: u32) -> String {
        format!("DELETE FROM {table} WHERE {key} >= {from} ORDER BY {key} ASC LIMIT {rows}")
    }

    fn prewarm_queries(&self, table: &str) -> Vec<String> {
        vec![
            format!("ANALYZE TABLE {table}"),
            format!("SELECT AVG(id) FROM (SELECT * FROM {table} FORCE KEY (PRIMARY)) t"),
            format!("SELECT COUNT(*) FROM (SELECT * FROM {table} WHERE k LIKE '%0%') t"),
        ]
    }
}

impl TableOptions for MysqlDialect {
    fn engine_clause(&self, storage_engine: &str) -> String {
        if storage_engine.is_empty() {
            String::new()
        } else {
            format!("/*! ENGINE = {storage_engine} */")
        }
    }

    fn default_charset(&self, charset: &str) -> String {
        format!("DEFAULT CHARSET={charset}")
    }

    fn key_partitions(&self, cols: &str, n: u32) -> String {
        format!(" PARTITION BY KEY({cols}) PARTITIONS {n}")
    }

    fn compression_clause(&self, c: &str) -> String {
        match c.to_ascii_lowercase().as_str() {
            "compressed" => " ROW_FORMAT=COMPRESSED".to_string(),
            "page" => " PAGE_COMPRESSED=1".to_string(),
            _ => format!(" COMPRESSION='{c}'"),
        }
    }
}
