//! The few SQL forms that differ between engines. Workloads write their
//! SQL once and ask the run's engine for its dialect (`engine.dialect()`,
//! the engine the target's server said it is) only for
//! these. A method with a body here gives the form most engines share; an
//! engine whose SQL differs says so in its own folder (`mysql/dialect.rs`,
//! `postgres/dialect.rs`, `sqlite/dialect.rs`). The forms come in three
//! parts every dialect writes ([`Dialect`] itself: statements and column
//! types; [`Schema`]; [`Loading`]), eleven of them without a default, and one
//! capability only the MySQL family has ([`TableOptions`]). A caller holding
//! a `&dyn Dialect` reaches every part's forms without naming the part.

use super::ColType;

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

/// `prefix` as the pattern of a LIKE in single quotes that matches the
/// names starting with it.
pub(crate) fn like_prefix(prefix: &str) -> String {
    format!("{}%", prefix.replace('\'', "''"))
}

/// A language of stored routines, as a workload that installs its own writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Procedural {
    /// SQL/PSM as the MySQL family has it: `CREATE PROCEDURE`, called with `CALL`.
    SqlPsm,
    /// PL/pgSQL functions, called with `SELECT * FROM f(...)`.
    PlPgSql,
}

/// An engine's SQL forms: the statement forms and column types its events
/// are written with here, its schema's ([`Schema`]) and its loads' and
/// upkeep's ([`Loading`]) as parts every dialect has, and the table options
/// of a storage engine as a capability only the MySQL family has
/// ([`Dialect::table_options`]).
pub trait Dialect: Schema + Loading + Sync {
    /// Column type of an auto-increment integer key.
    fn auto_inc_int(&self) -> &'static str;

    /// BEGIN for a transaction that will write. SQLite takes the write
    /// lock up front: a deferred transaction that later upgrades can only
    /// fail with SQLITE_BUSY instead of waiting.
    fn begin_rw(&self) -> &'static str {
        "BEGIN"
    }

    fn begin_ro(&self) -> &'static str {
        "BEGIN"
    }

    /// Whether the server takes INSERT ... ON DUPLICATE KEY UPDATE and
    /// several statements in one query, as Java LinkBench's MySQL store
    /// sends them: MySQL-family servers only.
    fn duplicate_key_upsert(&self) -> bool {
        false
    }

    /// The statement that sets a session's isolation level (`level` as
    /// SQL spells it, e.g. READ COMMITTED); None where there is no choice
    /// (SQLite transactions are always serializable: one writer).
    fn isolation_sql(&self, level: &str) -> Option<String>;

    /// A match of the columns `cols` against `n` rows of placeholders, as a WHERE condition:
    /// `(a, b) IN ((?,?),(?,?))`. SQLite scans the whole table for a row-value IN list, so
    /// there it is an OR of equalities, each of which searches the index.
    fn rows_in(&self, cols: &[&str], n: usize) -> String {
        let row = format!("({})", vec!["?"; cols.len()].join(","));
        format!("({}) IN ({})", cols.join(", "), vec![row.as_str(); n].join(","))
    }

    /// The language its stored routines are written in; None where it has none (SQLite).
    fn procedural(&self) -> Option<Procedural> {
        None
    }

    /// The locking-read suffix of a SELECT; empty on SQLite, which locks
    /// the whole database instead and has no FOR UPDATE.
    fn for_update(&self) -> &'static str {
        " FOR UPDATE"
    }

    /// The clause that makes an INSERT return the value `col` took, for
    /// an engine whose protocol does not report the last insert id with
    /// the result (see [`super::Conn::last_insert_id`]); None where it does.
    fn returning(&self, _col: &str) -> Option<String> {
        None
    }

    /// The hint that makes a primary-key lookup use the primary key, after
    /// the table name; empty where the engine takes no index hints.
    fn force_primary(&self) -> &'static str {
        ""
    }

    /// The hint that makes a query read through index `name`, after the
    /// table name; empty where the engine takes no index hints.
    fn force_index(&self, _name: &str) -> String {
        String::new()
    }

    /// What follows an INSERT's VALUES so that the row already holding the
    /// key is updated instead, up to the first assignment: MySQL's ON
    /// DUPLICATE KEY UPDATE (whichever unique key clashes), elsewhere ON
    /// CONFLICT on `key`, the clashing key's columns. The assignments read
    /// the row already there through existing_column.
    fn on_key_conflict_update(&self, key: &str) -> String {
        format!(" ON CONFLICT ({key}) DO UPDATE SET")
    }

    /// Column `col` of the row already there, in on_key_conflict_update's
    /// assignments: bare on MySQL; elsewhere qualified by the table's name
    /// without its schema, since PostgreSQL finds a bare name ambiguous
    /// between that row and the one proposed (EXCLUDED).
    fn existing_column(&self, table: &str, col: &str) -> String {
        format!("{table}.{col}")
    }

    /// A parameter compared with a CHAR(len) column. PostgreSQL compares a
    /// CHAR column with a text parameter as text, which no index on the
    /// column serves, so the parameter is cast to the column's type.
    fn char_param(&self, _len: u32) -> String {
        "?".to_string()
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
    /// everywhere (upper-cased).
    fn column_type(&self, generic: &str) -> String;

    /// Column type of text up to `len` characters (SQLite's TEXT, which
    /// has no length).
    fn text_up_to(&self, len: u32) -> String {
        format!("VARCHAR({len})")
    }

    /// Column type of a double-precision float.
    fn double_type(&self) -> &'static str {
        "DOUBLE PRECISION"
    }

    /// Column type of an exact decimal of `precision` digits, `scale` after
    /// the point (money). SQLite has no exact decimal: REAL there, as its
    /// NUMERIC affinity would store a whole amount as an integer, and a
    /// ratio of two integer sums would then be an integer division.
    fn decimal_type(&self, precision: u32, scale: u32) -> String {
        format!("DECIMAL({precision},{scale})")
    }

    /// Starts a read-only transaction whose statements all read one
    /// snapshot (an analytic query and what it is measured against).
    fn begin_snapshot(&self) -> &'static str {
        self.begin_ro()
    }

    /// The character code of a one-character text expression.
    fn char_code(&self, expr: &str) -> String {
        format!("ASCII({expr})")
    }

    /// The year of a DATE expression, as an integer.
    fn year_of(&self, expr: &str) -> String {
        format!("EXTRACT(YEAR FROM {expr})")
    }

    /// Statements that cap a session's statements at `ms` milliseconds,
    /// cancelled on the server past it; the first the server accepts is
    /// the one (servers of one protocol name the setting differently).
    /// Empty where the cap is not a setting (SQLite's is the connection's:
    /// `Conn::set_statement_timeout`).
    fn statement_timeout(&self, _ms: u64) -> Vec<String> {
        Vec::new()
    }

    /// The query of this session's id, as another session names it to
    /// cancel its statement; None where no other session can (SQLite's
    /// statements run inside the client).
    fn session_id_query(&self) -> Option<&'static str> {
        None
    }

    /// The statement another session sends to cancel the statement that
    /// session `id` runs (the session stays, idle).
    fn cancel_statement(&self, _id: &str) -> String {
        String::new()
    }

    /// A query of the server's clock as ms since the Unix epoch.
    fn clock_ms_query(&self) -> &'static str;

    /// Its tables' storage-engine options, where its tables have a storage
    /// engine (the MySQL family); None elsewhere.
    fn table_options(&self) -> Option<&dyn TableOptions> {
        None
    }
}

/// The SQL of a dataset's schema: tables, indexes, keys, partitions and
/// namespaces, and the catalog queries that find them. Part of every
/// [`Dialect`].
pub trait Schema: Sync {
    /// ` DEFAULT value` after a column, where the engine's version of the
    /// schemas the workloads copy declares column defaults (MySQL's:
    /// LinkBench's DDL has them); empty elsewhere, whose versions leave
    /// them out. The workloads name every column they insert, so this
    /// changes the DDL's text, never a row: a default that rows rely on is
    /// written into the DDL for every engine instead.
    fn schema_default(&self, _value: &str) -> String {
        String::new()
    }

    /// Names of the tables that start with `prefix` in the current
    /// database: one catalog query instead of one probe per table.
    fn tables_like(&self, prefix: &str) -> String;

    /// How many indexes named `index` table `table` has in `schema` (the
    /// current database or search path when empty): 1 once it exists.
    /// MySQL lists an index once per column, so only its first counts;
    /// SQLite's index names are unique in the file, so the name says it.
    fn index_exists_query(&self, schema: &str, table: &str, index: &str) -> String;

    /// Whether tables can be put in a namespace of their own that a
    /// statement creates (`name.table`): a MySQL database, a PostgreSQL
    /// schema. A SQLite database is a file: the target names it.
    fn has_namespaces(&self) -> bool {
        true
    }

    /// What creates namespace `name` unless it exists (see has_namespaces);
    /// None where there are none.
    fn create_namespace(&self, name: &str) -> Option<String>;

    fn drop_table(&self, name: &str) -> String {
        format!("DROP TABLE IF EXISTS {name}")
    }

    /// The session statement that stops foreign-key checks (loads write
    /// children before parents); None where a session cannot turn them
    /// off (PostgreSQL: the constraints are lifted instead).
    fn fk_checks_off(&self) -> Option<&'static str>;

    /// How foreign keys get onto tables that are already loaded.
    fn fk_path(&self) -> FkPath;

    /// A secondary index; tolerates finding it there (a resumed prepare)
    /// where the engine can say so (MySQL cannot: its caller tolerates the error).
    fn create_index(&self, name: &str, table: &str, cols: &str) -> String {
        format!("CREATE INDEX IF NOT EXISTS {name} ON {table} ({cols})")
    }

    /// The secondary indexes `(name, columns)` of a table already loaded:
    /// one CREATE INDEX each, or one statement that builds them together
    /// where the engine takes it.
    fn add_indexes(&self, table: &str, indexes: &[(&str, &str)]) -> Vec<String> {
        indexes.iter().map(|(n, cols)| self.create_index(n, table, cols)).collect()
    }

    /// The primary key of a table already loaded. SQLite cannot add one to
    /// an existing table: a unique index named `{table}_pkey` (PostgreSQL's
    /// name for the key) serves the same lookups.
    fn add_primary_key(&self, table: &str, cols: &str) -> String {
        format!("ALTER TABLE {table} ADD PRIMARY KEY ({cols})")
    }

    /// DROP of a set of tables that may reference each other, children
    /// first: one statement with CASCADE on PostgreSQL, one per table elsewhere.
    fn drop_tables(&self, tables: &[&str]) -> Vec<String> {
        tables.iter().map(|t| self.drop_table(t)).collect()
    }

    /// Secondary indexes can be declared inside CREATE TABLE (`KEY name (cols)`).
    fn inline_index(&self) -> bool {
        false
    }

    /// CREATE INDEX takes IF NOT EXISTS (MySQL's does not; MariaDB's would).
    /// Where it does, index names are per schema, so callers put the table in them.
    fn index_if_not_exists(&self) -> bool {
        true
    }

    /// Hash partitioning of a table on `col` into `n` partitions: the
    /// clause after CREATE TABLE's parenthesis, and the statements that
    /// create the partitions; None where tables have no partitions.
    fn hash_partitions(&self, table: &str, col: &str, n: u32) -> Option<(String, Vec<String>)>;

    /// A partition `child` of `parent` made as a table of its own, `bounds` in PostgreSQL's
    /// words (`FROM (1) TO (100)`, `WITH (MODULUS 2, REMAINDER 0)`): None where partitions are
    /// not tables of their own (pgbench's partitioned accounts are PostgreSQL's).
    fn partition_of(&self, _parent: &str, _child: &str, _bounds: &str) -> Option<String> {
        None
    }
}

/// The SQL around a bulk load and the upkeep after it: how values are sent,
/// how many loaders, generated keys, statistics, checkpoints and the
/// write-back settings of an idle server, prewarm scans. Part of every
/// [`Dialect`].
pub trait Loading: Sync {
    /// How a bulk load sends the values of a column declared
    /// `column_type(generic)`. PostgreSQL's binary COPY must send the
    /// exact width of the type column_type gives it there; MySQL's and
    /// SQLite's loaders send every integer width alike, so one answer
    /// serves every engine. Anything not an integer or `datetime` is text.
    fn load_type(&self, generic: &str) -> ColType {
        match generic {
            "tinyint" | "smallint" => ColType::SmallInt,
            "int" | "uint" | "serial" => ColType::Int,
            "uint32" | "ubigint" | "bigint" | "bigserial" => ColType::BigInt,
            "datetime" => ColType::Timestamp,
            "date" => ColType::Date,
            _ => ColType::Text,
        }
    }

    /// DELETE of the `rows` rows of `table` with the lowest `key` from
    /// `from` (a literal) on: through a subquery on the key where DELETE
    /// takes no ORDER BY ... LIMIT.
    fn delete_first(&self, table: &str, key: &str, from: &str, rows: u32) -> String {
        format!("DELETE FROM {table} WHERE {key} IN (SELECT {key} FROM {table} WHERE {key} >= {from} ORDER BY {key} ASC LIMIT {rows})")
    }

    /// A statement written for another engine, with its spelling of a
    /// generated integer key made this engine's; the engines that take
    /// SERIAL or AUTO_INCREMENT take the text as it is.
    fn adapt_generated_keys(&self, sql: &str) -> String {
        sql.to_string()
    }

    /// Fresh optimizer statistics of one table.
    fn analyze(&self, table: &str) -> String {
        format!("ANALYZE {table}")
    }

    /// A table's upkeep once heavy writes are over: fresh statistics and,
    /// where deleted rows wait for it (PostgreSQL), their space and index
    /// entries reclaimed.
    fn upkeep(&self, table: &str) -> String {
        self.analyze(table)
    }

    /// The statement that writes every dirty page back at once, where
    /// there is one (PostgreSQL's CHECKPOINT, SQLite's WAL checkpoint).
    fn checkpoint(&self) -> Option<&'static str> {
        None
    }

    /// Global settings, with the values to hold them at, that make an idle
    /// server write its dirty pages back where no statement does (InnoDB's
    /// dirty page targets); whoever sets them puts the old values back.
    fn write_back_settings(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// What moves an auto-increment column's counter past rows loaded with
    /// explicit values, where the engine does not do it itself (a
    /// PostgreSQL SERIAL's sequence). An empty table leaves it at 1:
    /// GREATEST skips the NULL that MAX gives.
    fn sync_auto_inc(&self, _table: &str, _col: &str) -> Option<String> {
        None
    }

    /// What makes each session take the generated keys of `table`.`col`
    /// `n` at a time (a PostgreSQL sequence's CACHE), where the engine
    /// hands them out one by one from a shared object; None elsewhere.
    fn cache_generated_keys(&self, _table: &str, _col: &str, _n: u32) -> Option<String> {
        None
    }

    /// Bulk loads on a server sharing this machine run at most one loader
    /// per core: PostgreSQL backends loading more tables at once than there
    /// are cores slow each other down (2 loaders on 2 cores load 4 x 1M
    /// rows 10-25% faster than 4); MariaDB gains nothing from the cap.
    fn loaders_per_core(&self) -> bool {
        false
    }

    /// One writer at a time: parallel loaders would only queue on its lock
    /// (SQLite), so bulk loads use one.
    fn one_writer(&self) -> bool {
        false
    }

    /// What to run once a bulk load is over (SQLite: empty the WAL the
    /// load wrote into the database file).
    fn after_bulk_load(&self) -> Option<&'static str> {
        None
    }

    /// A full scan that touches every row and the secondary index (prewarm).
    fn prewarm_queries(&self, table: &str) -> Vec<String>;
}

/// Table options of engines whose tables have a storage engine (the MySQL
/// family): the ENGINE, character set, compression and KEY partitions after
/// CREATE TABLE's parenthesis. Asked through [`Dialect::table_options`]:
/// `--mysql-storage-engine` and `--table-compression` apply where it is.
pub trait TableOptions: Sync {
    /// Table options after the closing parenthesis of CREATE TABLE (empty
    /// when no storage engine is named).
    fn engine_clause(&self, storage_engine: &str) -> String;

    /// A table's default character set, after CREATE TABLE's parenthesis.
    fn default_charset(&self, charset: &str) -> String;

    /// PARTITION BY KEY into `n` partitions (the server hashes the key
    /// columns itself), after the table options (other engines' hash
    /// partitions are tables of their own: see [`Schema::hash_partitions`]).
    fn key_partitions(&self, cols: &str, n: u32) -> String;

    /// The table compression clause for a `--table-compression` value
    /// (a MySQL COMPRESSION value, `compressed` for ROW_FORMAT, `page` for
    /// MariaDB's page compression).
    fn compression_clause(&self, c: &str) -> String;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TPC-C's history key: the generic `serial` becomes each engine's auto-increment integer.
    #[test]
    fn serial_column_per_engine() {
        assert_eq!(crate::db::engines::named("mysql").unwrap().dialect().column_type("serial"), "INT NOT NULL AUTO_INCREMENT");
        assert_eq!(crate::db::engines::named("postgres").unwrap().dialect().column_type("serial"), "SERIAL");
        assert_eq!(crate::db::engines::named("sqlite").unwrap().dialect().column_type("serial"), "INTEGER");
        assert_eq!(crate::db::engines::named("sqlite").unwrap().dialect().column_type("varchar(16)"), "VARCHAR(16)");
    }

    /// The generic types LinkBench's tables are written in, and the width
    /// PostgreSQL's COPY sends for each: the one of the type it declares.
    #[test]
    fn unsigned_and_wide_columns_per_engine() {
        let (my, pg, lite) = (crate::db::engines::named("mysql").unwrap().dialect(), crate::db::engines::named("postgres").unwrap().dialect(), crate::db::engines::named("sqlite").unwrap().dialect());
        let words = ["tinyint", "uint", "uint32", "ubigint", "mediumtext", "bigserial", "varchar(255)"];
        let of = |d: &dyn Dialect| words.map(|w| d.column_type(w));
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
        assert_eq!(crate::db::engines::named("postgres").unwrap().dialect().add_primary_key("pgbench_accounts", "aid"), "ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)");
        assert_eq!(crate::db::engines::named("mysql").unwrap().dialect().add_primary_key("pgbench_accounts", "aid"), "ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)");
        assert_eq!(crate::db::engines::named("sqlite").unwrap().dialect().add_primary_key("pgbench_accounts", "aid"), "CREATE UNIQUE INDEX pgbench_accounts_pkey ON pgbench_accounts (aid)");
    }

    /// sysbench scripts' generated keys on SQLite: the text the Lua family
    /// adapted before asking the dialect.
    #[test]
    fn sqlite_takes_generated_keys_as_integer_primary_keys() {
        let lite = crate::db::engines::named("sqlite").unwrap().dialect();
        assert_eq!(lite.adapt_generated_keys("CREATE TABLE t(id SERIAL, k INT, PRIMARY KEY (id))"), "CREATE TABLE t(id INTEGER, k INT, PRIMARY KEY (id))");
        assert_eq!(lite.adapt_generated_keys("id INTEGER NOT NULL auto_increment,"), "id INTEGER NOT NULL ,");
        assert_eq!(lite.adapt_generated_keys("id bigserial"), "id INTEGER");
        assert_eq!(lite.adapt_generated_keys("SELECT serial_no FROM t"), "SELECT serial_no FROM t");
        assert_eq!(crate::db::engines::named("postgres").unwrap().dialect().adapt_generated_keys("id SERIAL"), "id SERIAL");
        assert_eq!(crate::db::engines::named("mysql").unwrap().dialect().adapt_generated_keys("id INT AUTO_INCREMENT"), "id INT AUTO_INCREMENT");
    }

    /// The start barrier's table and clock query: the text the runner wrote
    /// per engine before asking the dialect.
    #[test]
    fn barrier_table_and_clock_per_engine() {
        let (my, pg, lite) = (crate::db::engines::named("mysql").unwrap().dialect(), crate::db::engines::named("postgres").unwrap().dialect(), crate::db::engines::named("sqlite").unwrap().dialect());
        assert_eq!([my.text_up_to(200), pg.text_up_to(200), lite.text_up_to(200)], ["VARCHAR(200)", "VARCHAR(200)", "TEXT"]);
        assert_eq!([my.double_type(), pg.double_type(), lite.double_type()], ["DOUBLE", "DOUBLE PRECISION", "REAL"]);
        assert_eq!(my.clock_ms_query(), "SELECT UNIX_TIMESTAMP(NOW(6)) * 1000");
        assert_eq!(pg.clock_ms_query(), "SELECT extract(epoch from clock_timestamp()) * 1000");
        assert_eq!(lite.clock_ms_query(), "SELECT (julianday('now') - 2440587.5) * 86400000.0");
    }

    /// PostgreSQL drops a set of related tables in one statement, the others table by table.
    #[test]
    fn drop_tables_per_engine() {
        assert_eq!(crate::db::engines::named("postgres").unwrap().dialect().drop_tables(&["a", "b"]), vec!["DROP TABLE IF EXISTS a, b CASCADE"]);
        assert_eq!(crate::db::engines::named("mysql").unwrap().dialect().drop_tables(&["a", "b"]), vec!["DROP TABLE IF EXISTS a", "DROP TABLE IF EXISTS b"]);
    }

    /// The text the workloads wrote inline per engine before asking the
    /// dialect (TPC-C's session isolation, locking reads and FORCE INDEX,
    /// dbSTRESS's CHAR parameter): each engine receives the same SQL.
    #[test]
    fn statement_parts_per_engine() {
        let (my, pg, lite) = (crate::db::engines::named("mysql").unwrap().dialect(), crate::db::engines::named("postgres").unwrap().dialect(), crate::db::engines::named("sqlite").unwrap().dialect());
        assert_eq!(my.isolation_sql("READ COMMITTED").as_deref(), Some("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"));
        assert_eq!(pg.isolation_sql("SERIALIZABLE").as_deref(), Some("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE"));
        assert_eq!(lite.isolation_sql("REPEATABLE READ"), None);
        assert_eq!([my.for_update(), pg.for_update(), lite.for_update()], [" FOR UPDATE", " FOR UPDATE", ""]);
        assert_eq!([my.force_primary(), pg.force_primary(), lite.force_primary()], [" FORCE INDEX (PRIMARY)", "", ""]);
        assert_eq!([my.char_param(10), pg.char_param(10), lite.char_param(10)], ["?", "?::CHAR(10)", "?"]);
        assert_eq!([my.table_options().is_some(), pg.table_options().is_some(), lite.table_options().is_some()], [true, false, false]);
        let t = my.table_options().unwrap();
        assert_eq!(t.compression_clause("zlib"), " COMPRESSION='zlib'");
        assert_eq!(t.engine_clause("InnoDB"), "/*! ENGINE = InnoDB */");
        assert_eq!(t.key_partitions("id1", 4), " PARTITION BY KEY(id1) PARTITIONS 4");
    }

    #[test]
    fn indexes_added_and_oldest_rows_deleted_per_engine() {
        let (my, pg, lite) = (crate::db::engines::named("mysql").unwrap().dialect(), crate::db::engines::named("postgres").unwrap().dialect(), crate::db::engines::named("sqlite").unwrap().dialect());
        let ix = [("t_a", "x, y"), ("t_b", "z")];
        assert_eq!(my.add_indexes("t", &ix), ["ALTER TABLE t ADD INDEX t_a (x, y), ADD INDEX t_b (z)"]);
        assert_eq!(pg.add_indexes("t", &ix), ["CREATE INDEX IF NOT EXISTS t_a ON t (x, y)", "CREATE INDEX IF NOT EXISTS t_b ON t (z)"]);
        assert_eq!(my.delete_first("t", "id", "7", 5), "DELETE FROM t WHERE id >= 7 ORDER BY id ASC LIMIT 5");
        assert_eq!(lite.delete_first("t", "id", "7", 5), "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE id >= 7 ORDER BY id ASC LIMIT 5)");
        assert_eq!(pg.cache_generated_keys("t", "id", 1000).as_deref(), Some("ALTER SEQUENCE t_id_seq CACHE 1000"));
        assert_eq!(my.cache_generated_keys("t", "id", 1000), None);
    }

    #[test]
    fn upkeep_and_write_back_per_engine() {
        let (my, pg, lite) = (crate::db::engines::named("mysql").unwrap().dialect(), crate::db::engines::named("postgres").unwrap().dialect(), crate::db::engines::named("sqlite").unwrap().dialect());
        assert_eq!(my.upkeep("t"), "ANALYZE TABLE t");
        assert_eq!(pg.upkeep("t"), "VACUUM (ANALYZE, INDEX_CLEANUP ON) t");
        assert_eq!(lite.upkeep("t"), "ANALYZE t");
        assert_eq!((my.checkpoint(), pg.checkpoint(), lite.checkpoint()), (None, Some("CHECKPOINT"), Some("PRAGMA wal_checkpoint(TRUNCATE)")));
        assert_eq!(my.write_back_settings().iter().map(|s| s.0).collect::<Vec<_>>(), ["innodb_max_dirty_pages_pct_lwm", "innodb_max_dirty_pages_pct", "innodb_idle_flush_pct"]);
        assert!(pg.write_back_settings().is_empty() && lite.write_back_settings().is_empty());
    }
}
