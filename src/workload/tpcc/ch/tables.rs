//! CH-benCHmark's three tables beside TPC-C's: SUPPLIER (10,000 rows),
//! NATION (25) and REGION (5), dbgen's rows at scale factor 1 as go-tpc
//! loads them. Named like TPC-C's tables, with the prefix and the dataset
//! number.

use crate::db::{Conn, Dialect};
use crate::error::Result;
use crate::workload::common::{count, ddl};
use crate::workload::tpcc::schema::Names;
use tpchgen::generators as g;

/// A dataset's tables: TPC-C's and CH-benCHmark's.
#[derive(Clone, Debug)]
pub struct ChNames {
    pub tpcc: Names,
    pub supplier: String,
    pub nation: String,
    pub region: String,
}

impl ChNames {
    pub fn new(tpcc: &Names) -> ChNames {
        let t = |b: &str| format!("{}{b}{}", tpcc.prefix, tpcc.n);
        ChNames { supplier: t("supplier"), nation: t("nation"), region: t("region"), tpcc: tpcc.clone() }
    }

    pub fn tables(&self) -> [&str; 3] {
        [&self.supplier, &self.nation, &self.region]
    }
}

/// Rows each table holds once loaded.
pub const ROWS: [u64; 3] = [10_000, 25, 5];

/// Each table's columns, in the order of its rows' values (a sharding
/// router places a row only by named columns).
const COLUMNS: [&str; 3] = ["s_suppkey, s_name, s_address, s_nationkey, s_phone, s_acctbal, s_comment", "n_nationkey, n_name, n_regionkey, n_comment", "r_regionkey, r_name, r_comment"];

/// Rows per INSERT statement.
const BATCH: usize = 500;

fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn money(cents: i64) -> String {
    format!("{}{}.{:02}", if cents < 0 { "-" } else { "" }, cents.abs() / 100, cents.abs() % 100)
}

/// The CREATE TABLE statements of the three tables.
fn creates(n: &ChNames, d: &dyn Dialect, tail: &str) -> [String; 3] {
    let money_type = d.decimal_type(15, 2);
    [
        format!(
            "CREATE TABLE IF NOT EXISTS {} (s_suppkey BIGINT NOT NULL, s_name CHAR(25) NOT NULL, s_address VARCHAR(40) NOT NULL, s_nationkey BIGINT NOT NULL, \
             s_phone CHAR(15) NOT NULL, s_acctbal {money_type} NOT NULL, s_comment VARCHAR(101) NOT NULL, PRIMARY KEY (s_suppkey)){tail}",
            n.supplier
        ),
        format!(
            "CREATE TABLE IF NOT EXISTS {} (n_nationkey BIGINT NOT NULL, n_name CHAR(25) NOT NULL, n_regionkey BIGINT NOT NULL, n_comment VARCHAR(152), PRIMARY KEY (n_nationkey)){tail}",
            n.nation
        ),
        format!("CREATE TABLE IF NOT EXISTS {} (r_regionkey BIGINT NOT NULL, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152), PRIMARY KEY (r_regionkey)){tail}", n.region),
    ]
}

/// The rows of each table as SQL value lists.
fn values() -> [Vec<String>; 3] {
    let suppliers = g::SupplierGenerator::new(1.0, 1, 1)
        .iter()
        .map(|s| {
            format!(
                "({}, {}, {}, {}, {}, {}, {})",
                s.s_suppkey,
                quoted(&s.s_name.to_string()),
                quoted(&s.s_address.to_string()),
                s.s_nationkey,
                quoted(&s.s_phone.to_string()),
                money(s.s_acctbal.0),
                quoted(&s.s_comment)
            )
        })
        .collect();
    let nations = g::NationGenerator::new(1.0, 1, 1).iter().map(|n| format!("({}, {}, {}, {})", n.n_nationkey, quoted(n.n_name), n.n_regionkey, quoted(n.n_comment))).collect();
    let regions = g::RegionGenerator::new(1.0, 1, 1).iter().map(|r| format!("({}, {}, {})", r.r_regionkey, quoted(r.r_name), quoted(r.r_comment))).collect();
    [suppliers, nations, regions]
}

/// Creates and fills the tables a dataset lacks (a table holding its rows
/// already is kept).
pub async fn prepare(conn: &mut Conn, n: &ChNames, d: &dyn Dialect, tail: &str, quiet: bool) -> Result<()> {
    if !quiet {
        println!("Creating CH-benCHmark tables of dataset {} ({}, {}, {})...", n.tpcc.n, n.supplier, n.nation, n.region);
    }
    let rows = values();
    for (((create, table), (vals, want)), cols) in creates(n, d, tail).iter().zip(n.tables()).zip(rows.iter().zip(ROWS)).zip(COLUMNS) {
        ddl(conn, create).await?;
        let have = count(conn, &format!("SELECT COUNT(*) FROM {table}")).await?;
        if have == want {
            continue;
        }
        // The statement is long: an error names the table, not the rows.
        let failed = |e: crate::db::DbError| crate::error::Error::Sql(format!("loading {table}: {e}"));
        if have > 0 {
            conn.empty_table(table).await.map_err(failed)?;
        }
        for chunk in vals.chunks(BATCH) {
            let sql = format!("INSERT INTO {table} ({cols}) VALUES {}", chunk.join(", "));
            // Into each copy where the engine keeps one on every shard (a
            // reference table on Vitess), as every load does.
            conn.query_each_copy(table, &sql).await.map_err(failed)?;
        }
    }
    Ok(())
}

/// Drops the tables.
pub async fn drop(conn: &mut Conn, n: &ChNames, d: &dyn Dialect) -> Result<()> {
    for sql in d.drop_tables(&n.tables()) {
        ddl(conn, &sql).await?;
    }
    Ok(())
}

/// What is wrong with a dataset's tables (missing, or not the rows they
/// should hold), or None.
pub async fn problem(conn: &mut Conn, n: &ChNames) -> Option<String> {
    for (table, want) in n.tables().into_iter().zip(ROWS) {
        match count(conn, &format!("SELECT COUNT(*) FROM {table}")).await {
            Ok(have) if have == want => {}
            Ok(have) => return Some(format!("{table} holds {have} rows, not {want}")),
            Err(_) => return Some(format!("{table} is missing: run `fairbench prepare ch` with the same options")),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// dbgen's rows at scale factor 1: as many as the check expects, with
    /// money written as decimals.
    #[test]
    fn the_rows_are_dbgens_at_scale_factor_1() {
        let [s, n, r] = values();
        assert_eq!([s.len() as u64, n.len() as u64, r.len() as u64], ROWS);
        assert!(r.iter().any(|v| v.contains("'EUROPE'")), "{r:?}");
        assert!(n.iter().any(|v| v.starts_with("(18, 'CHINA'")), "{n:?}");
        assert_eq!(money(-99_999), "-999.99");
        assert_eq!(money(5), "0.05");
    }
}
