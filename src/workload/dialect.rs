//! The few SQL forms that differ between engines. Workloads write their
//! SQL once and ask here only for these.

use crate::db::{ColType, Engine};

#[derive(Clone, Copy, Debug)]
pub struct Dialect(pub Engine);

/// How an engine adds foreign keys to a schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FkPath {
    /// Only in CREATE TABLE (SQLite has no ADD CONSTRAINT).
    InCreateTable,
    /// ALTER TABLE ... ADD after the load, with the session's checks off while loading.
    Alter,
    /// ALTER TABLE ... ADD ... NOT VALID, then VALIDATE CONSTRAINT, which
    /// can run side by side per table (PostgreSQL).
    NotValidThenValidate,
}

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

    /// A table's default character set, after CREATE TABLE's parenthesis;
    /// None where the character set is the database's (PostgreSQL) or the
    /// file's (SQLite), not a table's.
    pub fn default_charset(self, charset: &str) -> Option<String> {
        match self.0 {
            Engine::Mysql => Some(format!("DEFAULT CHARSET={charset}")),
            _ => None,
        }
    }

    /// ` DEFAULT value` after a column, where the engine's version of the
    /// schemas the workloads copy declares column defaults (MySQL's:
    /// LinkBench's DDL has them); empty elsewhere, whose versions leave
    /// them out. The workloads name every column they insert, so this
    /// changes the DDL's text, never a row: a default that rows rely on is
    /// written into the DDL for every engine instead.
    pub fn schema_default(self, value: &str) -> String {
        match self.0 {
            Engine::Mysql => format!(" DEFAULT {value}"),
            _ => String::new(),
        }
    }

    /// MySQL's PARTITION BY KEY into `n` partitions (the server hashes the
    /// key columns itself), after the table options; None where the engine
    /// has no such clause (PostgreSQL's hash partitions are tables of
    /// their own: see hash_partitions).
    pub fn key_partitions(self, cols: &str, n: u32) -> Option<String> {
        match self.0 {
            Engine::Mysql => Some(format!(" PARTITION BY KEY({cols}) PARTITIONS {n}")),
            _ => None,
        }
    }

    /// Whether the server takes INSERT ... ON DUPLICATE KEY UPDATE and
    /// several statements in one query, as Java LinkBench's MySQL store
    /// sends them: MySQL-family servers only.
    pub fn duplicate_key_upsert(self) -> bool {
        self.0 == Engine::Mysql
    }

    /// Whether tables have a storage engine (`--mysql-storage-engine`
    /// and the table options apply): MySQL-family servers only.
    pub fn has_storage_engines(self) -> bool {
        self.0 == Engine::Mysql
    }

    /// The statement that sets a session's isolation level (`level` as
    /// SQL spells it, e.g. READ COMMITTED); None where there is no choice
    /// (SQLite transactions are always serializable: one writer).
    pub fn isolation_sql(self, level: &str) -> Option<String> {
        match self.0 {
            Engine::Mysql => Some(format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}")),
            Engine::Postgres => Some(format!("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level}")),
            Engine::Sqlite => None,
        }
    }

    /// The locking-read suffix of a SELECT; empty on SQLite, which locks
    /// the whole database instead and has no FOR UPDATE.
    pub fn for_update(self) -> &'static str {
        match self.0 {
            Engine::Sqlite => "",
            _ => " FOR UPDATE",
        }
    }

    /// The hint that makes a primary-key lookup use the primary key, after
    /// the table name; empty where the engine takes no index hints.
    pub fn force_primary(self) -> &'static str {
        match self.0 {
            Engine::Mysql => " FORCE INDEX (PRIMARY)",
            _ => "",
        }
    }

    /// The hint that makes a query read through index `name`, after the
    /// table name; empty where the engine takes no index hints.
    pub fn force_index(self, name: &str) -> String {
        match self.0 {
            Engine::Mysql => format!(" FORCE INDEX({name})"),
            _ => String::new(),
        }
    }

    /// What follows an INSERT's VALUES so that the row already holding the
    /// key is updated instead, up to the first assignment: MySQL's ON
    /// DUPLICATE KEY UPDATE (whichever unique key clashes), elsewhere ON
    /// CONFLICT on `key`, the clashing key's columns. The assignments read
    /// the row already there through existing_column.
    pub fn on_key_conflict_update(self, key: &str) -> String {
        match self.0 {
            Engine::Mysql => " ON DUPLICATE KEY UPDATE".to_string(),
            _ => format!(" ON CONFLICT ({key}) DO UPDATE SET"),
        }
    }

    /// Column `col` of the row already there, in on_key_conflict_update's
    /// assignments: bare on MySQL; elsewhere qualified by the table's name
    /// without its schema, since PostgreSQL finds a bare name ambiguous
    /// between that row and the one proposed (EXCLUDED).
    pub fn existing_column(self, table: &str, col: &str) -> String {
        match self.0 {
            Engine::Mysql => col.to_string(),
            _ => format!("{table}.{col}"),
        }
    }

    /// A parameter compared with a CHAR(len) column. PostgreSQL compares a
    /// CHAR column with a text parameter as text, which no index on the
    /// column serves, so the parameter is cast to the column's type.
    pub fn char_param(self, len: u32) -> String {
        match self.0 {
            Engine::Postgres => format!("?::CHAR({len})"),
            _ => "?".to_string(),
        }
    }

    /// The table compression clause for a `--table-compression` value
    /// (a MySQL COMPRESSION value, `compressed` for ROW_FORMAT, `page` for
    /// MariaDB's page compression); None where the engine has none.
    pub fn compression_clause(self, c: &str) -> Option<String> {
        match self.0 {
            Engine::Mysql => Some(match c.to_ascii_lowercase().as_str() {
                "compressed" => " ROW_FORMAT=COMPRESSED".to_string(),
                "page" => " PAGE_COMPRESSED=1".to_string(),
                _ => format!(" COMPRESSION='{c}'"),
            }),
            _ => None,
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

    /// How many indexes named `index` table `table` has in `schema` (the
    /// current database or search path when empty): 1 once it exists.
    /// MySQL lists an index once per column, so only its first counts;
    /// SQLite's index names are unique in the file, so the name says it.
    pub fn index_exists_query(self, schema: &str, table: &str, index: &str) -> String {
        match self.0 {
            Engine::Mysql => {
                let s = if schema.is_empty() { "DATABASE()".to_string() } else { format!("'{schema}'") };
                format!("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = {s} AND table_name = '{table}' AND index_name = '{index}' AND seq_in_index = 1")
            }
            Engine::Postgres => {
                let s = if schema.is_empty() { "ANY (current_schemas(false))".to_string() } else { format!("'{schema}'") };
                format!("SELECT COUNT(*) FROM pg_indexes WHERE schemaname = {s} AND tablename = '{table}' AND indexname = '{index}'")
            }
            Engine::Sqlite => format!("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = '{index}'"),
        }
    }

    /// Whether tables can be put in a namespace of their own that a
    /// statement creates (`name.table`): a MySQL database, a PostgreSQL
    /// schema. A SQLite database is a file: the target names it.
    pub fn has_namespaces(self) -> bool {
        self.0 != Engine::Sqlite
    }

    /// What creates namespace `name` unless it exists (see has_namespaces);
    /// None where there are none.
    pub fn create_namespace(self, name: &str) -> Option<String> {
        match self.0 {
            Engine::Mysql => Some(format!("CREATE DATABASE IF NOT EXISTS {name}")),
            Engine::Postgres => Some(format!("CREATE SCHEMA IF NOT EXISTS {name}")),
            Engine::Sqlite => None,
        }
    }

    pub fn drop_table(self, name: &str) -> String {
        format!("DROP TABLE IF EXISTS {name}")
    }

    /// Column type for a generic one as the workloads write it:
    /// - `tinyint`, `smallint`, `int`, `datetime`;
    /// - `uint` and `ubigint`, unsigned where the engine has unsigned
    ///   integers (MySQL), else the signed type of the same width, so
    ///   values stay below 2^31 (2^63);
    /// - `uint32`, every unsigned 32-bit value: PostgreSQL has no unsigned
    ///   INT, so it takes a BIGINT;
    /// - `mediumtext`, text up to 16 MB (MySQL's TEXT stops at 64 KB; the
    ///   others' TEXT has no such limit);
    /// - `serial` and `bigserial`, a 32- and a 64-bit auto-increment key
    ///   (SQLite generates the key of an INTEGER PRIMARY KEY itself).
    ///
    /// SQLite stores every integer type alike; the integer words above are
    /// INTEGER there. Anything else, e.g. `varchar(16)`, is the same
    /// everywhere.
    pub fn column_type(self, generic: &str) -> String {
        match (generic, self.0) {
            ("tinyint", Engine::Mysql) => "TINYINT".into(),
            ("tinyint" | "smallint", Engine::Postgres) => "SMALLINT".into(),
            ("smallint", Engine::Mysql) => "SMALLINT".into(),
            ("tinyint" | "smallint" | "int" | "uint" | "uint32" | "ubigint", Engine::Sqlite) => "INTEGER".into(),
            ("int", _) | ("uint", Engine::Postgres) => "INT".into(),
            ("uint" | "uint32", Engine::Mysql) => "INT UNSIGNED".into(),
            ("uint32" | "ubigint", Engine::Postgres) => "BIGINT".into(),
            ("ubigint", Engine::Mysql) => "BIGINT UNSIGNED".into(),
            ("mediumtext", Engine::Mysql) => "MEDIUMTEXT".into(),
            ("mediumtext", _) => "TEXT".into(),
            ("datetime", Engine::Mysql) => "DATETIME".into(),
            ("datetime", Engine::Postgres) => "TIMESTAMP".into(),
            ("datetime", Engine::Sqlite) => "TEXT".into(),
            ("serial", Engine::Mysql) => "INT NOT NULL AUTO_INCREMENT".into(),
            ("serial", Engine::Postgres) => "SERIAL".into(),
            ("bigserial", Engine::Mysql) => "BIGINT UNSIGNED NOT NULL AUTO_INCREMENT".into(),
            ("bigserial", Engine::Postgres) => "BIGSERIAL".into(),
            ("serial" | "bigserial", Engine::Sqlite) => "INTEGER".into(),
            (other, _) => other.to_uppercase(),
        }
    }

    /// How a bulk load sends the values of a column declared
    /// `column_type(generic)`. PostgreSQL's binary COPY must send the
    /// exact width of the type column_type gives it there; MySQL's and
    /// SQLite's loaders send every integer width alike, so one answer
    /// serves every engine. Anything not an integer or `datetime` is text.
    pub fn load_type(self, generic: &str) -> ColType {
        match generic {
            "tinyint" | "smallint" => ColType::SmallInt,
            "int" | "uint" | "serial" => ColType::Int,
            "uint32" | "ubigint" | "bigint" | "bigserial" => ColType::BigInt,
            "datetime" => ColType::Timestamp,
            _ => ColType::Text,
        }
    }

    /// The session statement that stops foreign-key checks (loads write
    /// children before parents); None where a session cannot turn them
    /// off (PostgreSQL: the constraints are lifted instead).
    pub fn fk_checks_off(self) -> Option<&'static str> {
        match self.0 {
            Engine::Mysql => Some("SET foreign_key_checks=0"),
            Engine::Sqlite => Some("PRAGMA foreign_keys=OFF"),
            Engine::Postgres => None,
        }
    }

    /// How foreign keys get onto tables that are already loaded.
    pub fn fk_path(self) -> FkPath {
        match self.0 {
            Engine::Mysql => FkPath::Alter,
            Engine::Postgres => FkPath::NotValidThenValidate,
            Engine::Sqlite => FkPath::InCreateTable,
        }
    }

    /// A secondary index; tolerates finding it there (a resumed prepare)
    /// where the engine can say so (MySQL cannot: its caller tolerates the error).
    pub fn create_index(self, name: &str, table: &str, cols: &str) -> String {
        match self.0 {
            Engine::Mysql => format!("CREATE INDEX {name} ON {table} ({cols})"),
            _ => format!("CREATE INDEX IF NOT EXISTS {name} ON {table} ({cols})"),
        }
    }

    /// The primary key of a table already loaded. SQLite cannot add one to
    /// an existing table: a unique index named `{table}_pkey` (PostgreSQL's
    /// name for the key) serves the same lookups.
    pub fn add_primary_key(self, table: &str, cols: &str) -> String {
        match self.0 {
            Engine::Sqlite => format!("CREATE UNIQUE INDEX {table}_pkey ON {table} ({cols})"),
            _ => format!("ALTER TABLE {table} ADD PRIMARY KEY ({cols})"),
        }
    }

    /// A statement written for another engine, with its spelling of a
    /// generated integer key made this engine's. SQLite generates the key
    /// of an INTEGER PRIMARY KEY that an INSERT leaves out, so PostgreSQL's
    /// SERIAL and BIGSERIAL become INTEGER and MySQL's AUTO_INCREMENT goes;
    /// the other engines take the text as it is.
    pub fn adapt_generated_keys(self, sql: &str) -> String {
        if self.0 != Engine::Sqlite {
            return sql.to_string();
        }
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

    /// Fresh optimizer statistics of one table.
    pub fn analyze(self, table: &str) -> String {
        match self.0 {
            Engine::Mysql => format!("ANALYZE TABLE {table}"),
            _ => format!("ANALYZE {table}"),
        }
    }

    /// DROP of a set of tables that may reference each other, children
    /// first: one statement with CASCADE on PostgreSQL, one per table elsewhere.
    pub fn drop_tables(self, tables: &[&str]) -> Vec<String> {
        match self.0 {
            Engine::Postgres => vec![format!("DROP TABLE IF EXISTS {} CASCADE", tables.join(", "))],
            _ => tables.iter().map(|t| self.drop_table(t)).collect(),
        }
    }

    /// Secondary indexes can be declared inside CREATE TABLE (`KEY name (cols)`).
    pub fn inline_index(self) -> bool {
        self.0 == Engine::Mysql
    }

    /// CREATE INDEX takes IF NOT EXISTS (MySQL's does not; MariaDB's would).
    /// Where it does, index names are per schema, so callers put the table in them.
    pub fn index_if_not_exists(self) -> bool {
        self.0 != Engine::Mysql
    }

    /// Hash partitioning of a table on `col` into `n` partitions: the
    /// clause after CREATE TABLE's parenthesis, and the statements that
    /// create the partitions; None where tables have no partitions.
    pub fn hash_partitions(self, table: &str, col: &str, n: u32) -> Option<(String, Vec<String>)> {
        match self.0 {
            Engine::Mysql => Some((format!(" PARTITION BY HASH({col}) PARTITIONS {n}"), Vec::new())),
            Engine::Postgres => {
                let parts = (0..n).map(|p| format!("CREATE TABLE {table}_p{p} PARTITION OF {table} FOR VALUES WITH (MODULUS {n}, REMAINDER {p})")).collect();
                Some((format!(" PARTITION BY HASH ({col})"), parts))
            }
            Engine::Sqlite => None,
        }
    }

    /// What moves an auto-increment column's counter past rows loaded with
    /// explicit values, where the engine does not do it itself (a
    /// PostgreSQL SERIAL's sequence). An empty table leaves it at 1:
    /// GREATEST skips the NULL that MAX gives.
    pub fn sync_auto_inc(self, table: &str, col: &str) -> Option<String> {
        match self.0 {
            Engine::Postgres => Some(format!("SELECT setval(pg_get_serial_sequence('{table}', '{col}'), GREATEST((SELECT MAX({col}) FROM {table}), 1))")),
            _ => None,
        }
    }

    /// Bulk loads on a server sharing this machine run at most one loader
    /// per core: PostgreSQL backends loading more tables at once than there
    /// are cores slow each other down (2 loaders on 2 cores load 4 x 1M
    /// rows 10-25% faster than 4); MariaDB gains nothing from the cap.
    pub fn loaders_per_core(self) -> bool {
        self.0 == Engine::Postgres
    }

    /// One writer at a time: parallel loaders would only queue on its lock
    /// (SQLite), so bulk loads use one.
    pub fn one_writer(self) -> bool {
        self.0 == Engine::Sqlite
    }

    /// What to run once a bulk load is over (SQLite: empty the WAL the
    /// load wrote into the database file).
    pub fn after_bulk_load(self) -> Option<&'static str> {
        match self.0 {
            Engine::Sqlite => Some("PRAGMA wal_checkpoint(TRUNCATE)"),
            _ => None,
        }
    }

    /// A full scan that touches every row and the secondary index (prewarm).
    pub fn prewarm_queries(self, table: &str) -> Vec<String> {
        match self.0 {
            Engine::Mysql => vec![
                format!("ANALYZE TABLE {table}"),
                format!("SELECT AVG(id) FROM (SELECT * FROM {table} FORCE KEY (PRIMARY)) t"),
                format!("SELECT COUNT(*) FROM (SELECT * FROM {table} WHERE k LIKE '%0%') t"),
            ],
            Engine::Postgres => vec![format!("ANALYZE {table}"), format!("SELECT AVG(id) FROM {table}"), format!("SELECT COUNT(*) FROM {table} WHERE k::text LIKE '%0%'")],
            Engine::Sqlite => vec![format!("ANALYZE {table}"), format!("SELECT AVG(id) FROM {table}"), format!("SELECT COUNT(*) FROM {table} WHERE k LIKE '%0%'")],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TPC-C's history key: the generic `serial` becomes each engine's auto-increment integer.
    #[test]
    fn serial_column_per_engine() {
        assert_eq!(Dialect(Engine::Mysql).column_type("serial"), "INT NOT NULL AUTO_INCREMENT");
        assert_eq!(Dialect(Engine::Postgres).column_type("serial"), "SERIAL");
        assert_eq!(Dialect(Engine::Sqlite).column_type("serial"), "INTEGER");
        assert_eq!(Dialect(Engine::Sqlite).column_type("varchar(16)"), "VARCHAR(16)");
    }

    /// The generic types LinkBench's tables are written in, and the width
    /// PostgreSQL's COPY sends for each: the one of the type it declares.
    #[test]
    fn unsigned_and_wide_columns_per_engine() {
        let (my, pg, lite) = (Dialect(Engine::Mysql), Dialect(Engine::Postgres), Dialect(Engine::Sqlite));
        let words = ["tinyint", "uint", "uint32", "ubigint", "mediumtext", "bigserial", "varchar(255)"];
        let of = |d: Dialect| words.map(|w| d.column_type(w));
        assert_eq!(of(my), ["TINYINT", "INT UNSIGNED", "INT UNSIGNED", "BIGINT UNSIGNED", "MEDIUMTEXT", "BIGINT UNSIGNED NOT NULL AUTO_INCREMENT", "VARCHAR(255)"]);
        assert_eq!(of(pg), ["SMALLINT", "INT", "BIGINT", "BIGINT", "TEXT", "BIGSERIAL", "VARCHAR(255)"]);
        assert_eq!(of(lite), ["INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT", "INTEGER", "VARCHAR(255)"]);
        for w in words.iter().chain(&["smallint", "int", "serial", "datetime"]) {
            let width = match pg.column_type(w).as_str() {
                "SMALLINT" => ColType::SmallInt,
                "INT" | "SERIAL" => ColType::Int,
                "BIGINT" | "BIGSERIAL" => ColType::BigInt,
                "TIMESTAMP" => ColType::Timestamp,
                _ => ColType::Text,
            };
            assert_eq!(pg.load_type(w), width, "{w}");
        }
    }

    /// pgbench's keys after the load: the text the pgbench family wrote
    /// per engine before asking the dialect.
    #[test]
    fn primary_key_after_load_per_engine() {
        assert_eq!(Dialect(Engine::Postgres).add_primary_key("pgbench_accounts", "aid"), "ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)");
        assert_eq!(Dialect(Engine::Mysql).add_primary_key("pgbench_accounts", "aid"), "ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)");
        assert_eq!(Dialect(Engine::Sqlite).add_primary_key("pgbench_accounts", "aid"), "CREATE UNIQUE INDEX pgbench_accounts_pkey ON pgbench_accounts (aid)");
    }

    /// sysbench scripts' generated keys on SQLite: the text the Lua family
    /// adapted before asking the dialect.
    #[test]
    fn sqlite_takes_generated_keys_as_integer_primary_keys() {
        let lite = Dialect(Engine::Sqlite);
        assert_eq!(lite.adapt_generated_keys("CREATE TABLE t(id SERIAL, k INT, PRIMARY KEY (id))"), "CREATE TABLE t(id INTEGER, k INT, PRIMARY KEY (id))");
        assert_eq!(lite.adapt_generated_keys("id INTEGER NOT NULL auto_increment,"), "id INTEGER NOT NULL ,");
        assert_eq!(lite.adapt_generated_keys("id bigserial"), "id INTEGER");
        assert_eq!(lite.adapt_generated_keys("SELECT serial_no FROM t"), "SELECT serial_no FROM t");
        assert_eq!(Dialect(Engine::Postgres).adapt_generated_keys("id SERIAL"), "id SERIAL");
        assert_eq!(Dialect(Engine::Mysql).adapt_generated_keys("id INT AUTO_INCREMENT"), "id INT AUTO_INCREMENT");
    }

    /// PostgreSQL drops a set of related tables in one statement, the others table by table.
    #[test]
    fn drop_tables_per_engine() {
        assert_eq!(Dialect(Engine::Postgres).drop_tables(&["a", "b"]), vec!["DROP TABLE IF EXISTS a, b CASCADE"]);
        assert_eq!(Dialect(Engine::Mysql).drop_tables(&["a", "b"]), vec!["DROP TABLE IF EXISTS a", "DROP TABLE IF EXISTS b"]);
    }

    /// The text the workloads wrote inline per engine before asking the
    /// dialect (TPC-C's session isolation, locking reads and FORCE INDEX,
    /// dbSTRESS's CHAR parameter): each engine receives the same SQL.
    #[test]
    fn statement_parts_per_engine() {
        let (my, pg, lite) = (Dialect(Engine::Mysql), Dialect(Engine::Postgres), Dialect(Engine::Sqlite));
        assert_eq!(my.isolation_sql("READ COMMITTED").as_deref(), Some("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"));
        assert_eq!(pg.isolation_sql("SERIALIZABLE").as_deref(), Some("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE"));
        assert_eq!(lite.isolation_sql("REPEATABLE READ"), None);
        assert_eq!([my.for_update(), pg.for_update(), lite.for_update()], [" FOR UPDATE", " FOR UPDATE", ""]);
        assert_eq!([my.force_primary(), pg.force_primary(), lite.force_primary()], [" FORCE INDEX (PRIMARY)", "", ""]);
        assert_eq!([my.char_param(10), pg.char_param(10), lite.char_param(10)], ["?", "?::CHAR(10)", "?"]);
        assert_eq!([my.has_storage_engines(), pg.has_storage_engines(), lite.has_storage_engines()], [true, false, false]);
        assert_eq!(my.compression_clause("zlib").as_deref(), Some(" COMPRESSION='zlib'"));
        assert_eq!(pg.compression_clause("zlib"), None);
    }
}
