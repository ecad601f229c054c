//! Which of sysbench's database drivers a target is to a script. The names
//! are sysbench's Lua API (`sysbench.sql.driver(name)`, `drv:name()`,
//! `sysbench.opt.db_driver`), which scripts branch on to pick their SQL:
//! the mapping belongs to that API, not to the dialect, so this is the one
//! place in the family that names engines.

use crate::db::Protocol;

/// What `drv:name()` answers: sysbench knows mysql and pgsql. SQLite's SQL
/// is closer to PostgreSQL's (no AUTO_INCREMENT, no ENGINE clause, a key
/// generated when the INSERT leaves it out), so SQLite answers pgsql and
/// takes the scripts' PostgreSQL statements once adapted
/// (`Dialect::adapt_generated_keys`).
pub fn name(e: Protocol) -> &'static str {
    match e {
        Protocol::Mysql => "mysql",
        Protocol::Postgres | Protocol::Sqlite => "pgsql",
    }
}

/// Whether `sysbench.sql.driver(requested)` may open the target: the name
/// it answers to, or `sqlite` for SQLite.
pub fn accepts(requested: &str, e: Protocol) -> bool {
    requested == name(e) || (requested == "sqlite" && e == Protocol::Sqlite)
}

/// `sysbench.opt.db_driver`: the name `drv:name()` answers, so a script
/// that branches on either picks the same SQL; mysql, sysbench's default,
/// for a target that does not resolve. For SQLite that is pgsql: Debian's
/// scripts (oltp_common.lua's CREATE TABLE, oltp_insert.lua's key) branch
/// on `drv:name()` and run on SQLite only through their PostgreSQL
/// statements, and a script that reads `sysbench.opt.db_driver` instead
/// (or passes it to `sysbench.sql.driver`) must take the same branch.
pub fn option_value(e: Option<Protocol>) -> &'static str {
    e.map_or("mysql", name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names each engine answers to; `sysbench.opt.db_driver` agrees with `drv:name()`.
    #[test]
    fn driver_names_per_engine() {
        assert_eq!([Protocol::Mysql, Protocol::Postgres, Protocol::Sqlite].map(name), ["mysql", "pgsql", "pgsql"]);
        let ok = |n| [Protocol::Mysql, Protocol::Postgres, Protocol::Sqlite].map(|e| accepts(n, e));
        assert_eq!(ok("mysql"), [true, false, false]);
        assert_eq!(ok("pgsql"), [false, true, true]);
        assert_eq!(ok("sqlite"), [false, false, true]);
        assert_eq!(ok("postgres"), [false, false, false]);
        assert_eq!([Some(Protocol::Mysql), Some(Protocol::Postgres), Some(Protocol::Sqlite), None].map(option_value), ["mysql", "pgsql", "pgsql", "mysql"]);
    }
}
