//! The few SQL forms that differ between engines. Workloads write their
//! SQL once and ask here only for these.

use crate::target::Engine;

#[derive(Clone, Copy, Debug)]
pub struct Dialect(pub Engine);

impl Dialect {
    /// Column type of an auto-increment integer key.
    pub fn auto_inc_int(self) -> &'static str {
        match self.0 {
            Engine::Mysql => "INTEGER NOT NULL AUTO_INCREMENT",
            Engine::Postgres => "SERIAL",
            Engine::Sqlite => "INTEGER NOT NULL",
        }
    }

    /// BEGIN for a transaction that will write. SQLite takes the write
    /// lock up front: a deferred transaction that later upgrades can only
    /// fail with SQLITE_BUSY instead of waiting.
    pub fn begin_rw(self) -> &'static str {
        match self.0 {
            Engine::Sqlite => "BEGIN IMMEDIATE",
            _ => "BEGIN",
        }
    }

    pub fn begin_ro(self) -> &'static str {
        "BEGIN"
    }

    /// Table options after the closing parenthesis of CREATE TABLE.
    pub fn engine_clause(self, storage_engine: &str) -> String {
        match self.0 {
            Engine::Mysql if !storage_engine.is_empty() => format!("/*! ENGINE = {storage_engine} */"),
            _ => String::new(),
        }
    }

    /// Names of the tables that start with `prefix` in the current
    /// database: one catalog query instead of one probe per table.
    pub fn tables_like(self, prefix: &str) -> String {
        let like = format!("{}%", prefix.replace('\'', "''"));
        match self.0 {
            Engine::Mysql => format!("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE '{like}'"),
            Engine::Postgres => format!("SELECT tablename FROM pg_tables WHERE schemaname = ANY (current_schemas(false)) AND tablename ILIKE '{like}'"),
            Engine::Sqlite => format!("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '{like}'"),
        }
    }

    pub fn drop_table(self, name: &str) -> String {
        format!("DROP TABLE IF EXISTS {name}")
    }

    /// A full scan that touches every row and the secondary index (prewarm).
    pub fn prewarm_queries(self, table: &str) -> Vec<String> {
        match self.0 {
            Engine::Mysql => vec![
                format!("ANALYZE TABLE {table}"),
                format!("SELECT AVG(id) FROM (SELECT * FROM {table} FORCE KEY (PRIMARY)) t"),
                format!("SELECT COUNT(*) FROM (SELECT * FROM {table} WHERE k LIKE '%0%') t"),
            ],
            Engine::Postgres => vec![
                format!("ANALYZE {table}"),
                format!("SELECT AVG(id) FROM {table}"),
                format!("SELECT COUNT(*) FROM {table} WHERE k::text LIKE '%0%'"),
            ],
            Engine::Sqlite => vec![
                format!("ANALYZE {table}"),
                format!("SELECT AVG(id) FROM {table}"),
                format!("SELECT COUNT(*) FROM {table} WHERE k LIKE '%0%'"),
            ],
        }
    }
}
