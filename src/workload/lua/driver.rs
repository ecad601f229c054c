//! Which of sysbench's database drivers a target is to a script. The names
//! are sysbench's Lua API (`sysbench.sql.driver(name)`, `drv:name()`,
//! `sysbench.opt.db_driver`), which scripts branch on to pick their SQL:
//! the mapping belongs to that API, not to the dialect, so this is the one
//! place in the family that names engines.

use crate::db::Engine;

/// What `drv:name()` answers: sysbench knows mysql and pgsql. SQLite's SQL
/// is closer to PostgreSQL's (no AUTO_INCREMENT, no ENGINE clause, a key
/// generated when the INSERT leaves it out), so SQLite answers pgsql and
/// takes the scripts' PostgreSQL statements once adapted
/// (`Dialect::adapt_generated_keys`).
pub fn name(e: Engine) -> &'static str {
    match e {
        Engine::Mysql => "mysql",
        Engine::Postgres | Engine::Sqlite => "pgsql",
    }
}

/// Whether `sysbench.sql.driver(requested)` may open the target: the name
/// it answers to, or `sqlite` for SQLite.
pub fn accepts(requested: &str, e: Engine) -> bool {
    requested == name(e) || (requested == "sqlite" && e == Engine::Sqlite)
}

/// `sysbench.opt.db_driver`: pgsql for PostgreSQL; mysql, sysbench's
/// default, for any other target or one that does not resolve. SQLite
/// gets mysql here although `drv:name()` answers pgsql for it.
pub fn option_value(e: Option<Engine>) -> &'static str {
    match e {
        Some(Engine::Postgres) => "pgsql",
        _ => "mysql",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answers the family gave before they were gathered here.
    #[test]
    fn driver_names_per_engine() {
        assert_eq!([Engine::Mysql, Engine::Postgres, Engine::Sqlite].map(name), ["mysql", "pgsql", "pgsql"]);
        let ok = |n| [Engine::Mysql, Engine::Postgres, Engine::Sqlite].map(|e| accepts(n, e));
        assert_eq!(ok("mysql"), [true, false, false]);
        assert_eq!(ok("pgsql"), [false, true, true]);
        assert_eq!(ok("sqlite"), [false, false, true]);
        assert_eq!(ok("postgres"), [false, false, false]);
        assert_eq!([Some(Engine::Mysql), Some(Engine::Postgres), Some(Engine::Sqlite), None].map(option_value), ["mysql", "pgsql", "mysql", "mysql"]);
    }
}
