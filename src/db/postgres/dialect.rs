//! PostgreSQL's SQL where it differs from the forms most engines share
//! (see `db::dialect`).

use crate::db::dialect::{like_prefix, Dialect, FkPath, Loading, Procedural, Schema};

pub struct PgDialect;

impl Dialect for PgDialect {
    fn procedural(&self) -> Option<Procedural> {
        Some(Procedural::PlPgSql)
    }

    fn returning(&self, col: &str) -> Option<String> {
        Some(format!(" RETURNING {col}"))
    }

    /// READ COMMITTED, the default, takes a snapshot per statement.
    fn begin_snapshot(&self) -> &'static str {
        "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    }

    fn auto_inc_int(&self) -> &'static str {
        "SERIAL"
    }

    fn isolation_sql(&self, level: &str) -> Option<String> {
        Some(format!("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level}"))
    }

    fn char_param(&self, len: u32) -> String {
        format!("?::CHAR({len})")
    }

    fn column_type(&self, generic: &str) -> String {
        match generic {
            "tinyint" | "smallint" => "SMALLINT".into(),
            "int" | "uint" => "INT".into(),
            "uint32" | "ubigint" => "BIGINT".into(),
            "mediumtext" => "TEXT".into(),
            "datetime" => "TIMESTAMP".into(),
            "serial" => "SERIAL".into(),
            "bigserial" => "BIGSERIAL".into(),
            other => other.to_uppercase(),
        }
    }

    fn session_id_query(&self) -> Option<&'static str> {
        Some("SELECT pg_backend_pid()")
    }

    fn cancel_statement(&self, id: &str) -> String {
        format!("SELECT pg_cancel_backend({id})")
    }

    fn clock_ms_query(&self) -> &'static str {
        "SELECT extract(epoch from clock_timestamp()) * 1000"
    }

    fn statement_timeout(&self, ms: u64) -> Vec<String> {
        vec![format!("SET statement_timeout = {ms}")]
    }
}

impl Schema for PgDialect {
    fn tables_like(&self, prefix: &str) -> String {
        let like = like_prefix(prefix);
        format!("SELECT tablename FROM pg_tables WHERE schemaname = ANY (current_schemas(false)) AND tablename ILIKE '{like}'")
    }

    fn index_exists_query(&self, schema: &str, table: &str, index: &str) -> String {
        let s = if schema.is_empty() { "ANY (current_schemas(false))".to_string() } else { format!("'{schema}'") };
        format!("SELECT COUNT(*) FROM pg_indexes WHERE schemaname = {s} AND tablename = '{table}' AND indexname = '{index}'")
    }

    fn create_namespace(&self, name: &str) -> Option<String> {
        Some(format!("CREATE SCHEMA IF NOT EXISTS {name}"))
    }

    fn fk_checks_off(&self) -> Option<&'static str> {
        None
    }

    fn fk_path(&self) -> FkPath {
        FkPath::NotValidThenValidate
    }

    fn drop_tables(&self, tables: &[&str]) -> Vec<String> {
        vec![format!("DROP TABLE IF EXISTS {} CASCADE", tables.join(", "))]
    }

    fn partition_of(&self, parent: &str, child: &str, bounds: &str) -> Option<String> {
        Some(format!("CREATE TABLE {child} PARTITION OF {parent} FOR VALUES {bounds}"))
    }

    fn hash_partitions(&self, table: &str, col: &str, n: u32) -> Option<(String, Vec<String>)> {
        let parts = (0..n).map(|p| format!("CREATE TABLE {table}_p{p} PARTITION OF {table} FOR VALUES WITH (MODULUS {n}, REMAINDER {p})")).collect();
        Some((format!(" PARTITION BY HASH ({col})"), parts))
    }
}

impl Loading for PgDialect {
    fn sync_auto_inc(&self, table: &str, col: &str) -> Option<String> {
        Some(format!("SELECT setval(pg_get_serial_sequence('{table}', '{col}'), GREATEST((SELECT MAX({col}) FROM {table}), 1))"))
    }

    /// A BIGSERIAL's sequence, by the name PostgreSQL gives it.
    fn cache_generated_keys(&self, table: &str, col: &str, n: u32) -> Option<String> {
        Some(format!("ALTER SEQUENCE {table}_{col}_seq CACHE {n}"))
    }

    /// INDEX_CLEANUP ON (PostgreSQL 12+): the index entries of deleted
    /// rows go too, even where VACUUM would judge them too few to bother.
    fn upkeep(&self, table: &str) -> String {
        format!("VACUUM (ANALYZE, INDEX_CLEANUP ON) {table}")
    }

    fn checkpoint(&self) -> Option<&'static str> {
        Some("CHECKPOINT")
    }

    fn loaders_per_core(&self) -> bool {
        true
    }

    fn prewarm_queries(&self, table: &str) -> Vec<String> {
        vec![format!("ANALYZE {table}"), format!("SELECT AVG(id) FROM {table}"), format!("SELECT COUNT(*) FROM {table} WHERE k::text LIKE '%0%'")]
    }
}
