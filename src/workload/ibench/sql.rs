//! The Insert Benchmark's table, indexes, rows and statements as iibench.py
//! writes them: `purchases_index` (here one table per client), its
//! key assigned by the engine, and the three secondary indexes.

use super::options::IbenchArgs;
use crate::db::Dialect;
use crate::rand::Rng;
use std::fmt::Write as _;

/// The secondary indexes: a name after the table's, and its columns.
pub const INDEXES: [(&str, &str); 3] = [("marketsegment", "productid, customerid, price"), ("registersegment", "cashregisterid, customerid, price"), ("pdc", "price, dateandtime, customerid")];

pub fn create_table(d: &dyn Dialect, table: &str, tail: &str) -> String {
    format!(
        "CREATE TABLE {table} (transactionid {} PRIMARY KEY, dateandtime {}, cashregisterid INT NOT NULL, customerid INT NOT NULL, \
         productid INT NOT NULL, price INT NOT NULL, data VARCHAR(4000)){tail}",
        d.column_type("bigserial"),
        d.column_type("datetime")
    )
}

/// The table's statements, as iibench.py's `--setup` sends them: dropped,
/// created, and on PostgreSQL its key's sequence cached 1000 at a time.
pub fn setup_table(d: &dyn Dialect, table: &str, tail: &str) -> Vec<String> {
    let mut v = vec![d.drop_table(table), create_table(d, table, tail)];
    v.extend(d.cache_generated_keys(table, "transactionid", 1000));
    v
}

/// The statements that add the three indexes (one ALTER TABLE where the
/// engine builds them in one pass, as iibench.py does on InnoDB).
pub fn create_indexes(d: &dyn Dialect, table: &str) -> Vec<String> {
    let named: Vec<(String, &str)> = INDEXES.iter().map(|(n, cols)| (format!("{table}_{n}"), *cols)).collect();
    d.add_indexes(table, &named.iter().map(|(n, c)| (n.as_str(), *c)).collect::<Vec<_>>())
}

/// Characters the random part of the data column draws from (iibench.py
/// takes it from base64 of random bytes).
const RANDOM_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The multi-row INSERT of `rows` new rows into `table`, written into
/// `sql` (reused): literal values, the price as iibench.py prints it
/// (`123.00`), one timestamp for the batch.
pub fn insert_batch(sql: &mut String, table: &str, rows: u32, a: &IbenchArgs, rng: &mut Rng, now: &str) {
    sql.clear();
    let _ = write!(sql, "INSERT INTO {table} (dateandtime,cashregisterid,customerid,productid,price,data) VALUES ");
    for i in 0..rows {
        if i > 0 {
            sql.push(',');
        }
        let cash = rng.uniform(0, a.cashregisters as u64 - 1);
        let cust = rng.uniform(0, a.customers as u64 - 1);
        let prod = rng.uniform(0, a.products as u64 - 1);
        let price = rng.uniform(0, a.max_price as u64 - 1);
        let _ = write!(sql, "('{now}',{cash},{cust},{prod},{price}.00,'");
        let (lo, hi) = (a.data_length_min.min(a.data_length_max) as u64, a.data_length_max.max(a.data_length_min) as u64);
        let len = rng.uniform(lo, hi);
        let random = (len as f64 * 0.75 * a.data_random_pct as f64 / 100.0) as u64;
        for _ in random..len {
            sql.push('a');
        }
        for _ in 0..random {
            sql.push(RANDOM_CHARS[rng.uniform(0, RANDOM_CHARS.len() as u64 - 1) as usize] as char);
        }
        sql.push_str("')");
    }
}

/// Deletes the `rows` oldest rows from id `from` on.
pub fn delete_oldest(d: &dyn Dialect, table: &str, from: i64, rows: u32) -> String {
    d.delete_first(table, "transactionid", &from.to_string(), rows)
}

/// The three range queries (one per index, the index forced where the
/// engine takes hints), each with one parameter, and the point query on
/// `ids` keys.
pub fn range_queries(d: &dyn Dialect, table: &str, limit: u32) -> [String; 3] {
    let hint = |n: &str| d.force_index(&format!("{table}_{n}"));
    [
        format!("SELECT productid, customerid, price FROM {table}{} WHERE (productid >= ?) ORDER BY productid, customerid, price LIMIT {limit}", hint("marketsegment")),
        format!("SELECT cashregisterid, customerid, price FROM {table}{} WHERE (cashregisterid > ?) ORDER BY cashregisterid, customerid, price LIMIT {limit}", hint("registersegment")),
        format!("SELECT price, dateandtime, customerid FROM {table}{} WHERE (price >= ?) ORDER BY price, dateandtime, customerid LIMIT {limit}", hint("pdc")),
    ]
}

pub fn point_query(table: &str, ids: u32) -> String {
    let marks = vec!["?"; ids as usize].join(", ");
    format!("SELECT transactionid, productid, data FROM {table} WHERE transactionid IN ({marks})")
}

/// `2026-11-28 01:02:03`: the batch's time to the second, as iibench.py
/// writes it (in UTC here, so that every client and server agree).
pub fn timestamp() -> String {
    let s = crate::units::rfc3339(std::time::SystemTime::now());
    s.get(..19).unwrap_or(&s).replace('T', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct P {
        #[command(flatten)]
        a: IbenchArgs,
    }

    #[test]
    fn a_batch_holds_its_rows_with_iibench_values() {
        let a = P::parse_from(["x"]).a;
        let mut rng = Rng::from_seed(1, 1);
        let mut sql = String::new();
        insert_batch(&mut sql, "pi1", 3, &a, &mut rng, "2026-01-02 03:04:05");
        assert!(sql.starts_with("INSERT INTO pi1 (dateandtime,cashregisterid,customerid,productid,price,data) VALUES ('2026-01-02 03:04:05',"));
        assert_eq!(sql.matches("('2026-01-02").count(), 3);
        assert_eq!(sql.matches(".00,'").count(), 3);
        // 10 to 20 characters, mostly 'a', a quarter to three eighths random.
        for data in sql.split(".00,'").skip(1).map(|r| &r[..r.find('\'').unwrap()]) {
            assert!((10..=20).contains(&data.len()), "{data}");
            assert!(data.starts_with("aaaaa"), "{data}");
        }
        assert_eq!(timestamp().len(), 19);
    }
}
