//! The refresh functions (TPC-H clause 2.5). RF1 of pair N inserts update
//! set N: dbgen's orders of one thousandth of the table (SF × 1,500) with
//! their lines, given keys above every loaded one (in dbgen's sparse key
//! pattern), so they never meet a loaded order; RF2 of the same pair
//! deletes exactly those orders and lines by their key range. Each runs in
//! one transaction (the caller's BEGIN and COMMIT).

use super::load::{self, Part};
use super::schema;
use crate::db::{Conn, ConnConfig, Row, RowSource};
use crate::error::Result;
use std::sync::Arc;

/// Update sets: a thousandth of the orders each.
const SETS: i32 = 1000;

/// Rows per INSERT statement.
const PER_INSERT: usize = 500;

/// Orders loaded at scale factor `sf`.
fn loaded(sf: f64) -> i64 {
    load::rows(&schema::ORDERS, sf) as i64
}

/// The largest order key the load writes.
pub fn max_loaded_key(sf: f64) -> i64 {
    load::order_key(loaded(sf))
}

/// Order indexes each pair has: room for the largest update set (the
/// generator's last part takes the remainder).
fn room(sf: f64) -> i64 {
    let n = loaded(sf);
    n / SETS as i64 + n % SETS as i64
}

/// The order indexes of pair `pair`'s new orders start after this one.
fn first_index(sf: f64, pair: u32) -> i64 {
    loaded(sf) + (pair as i64 - 1) * room(sf)
}

/// The update set (1-based part of the orders) pair `pair` inserts.
fn set_of(pair: u32) -> i32 {
    (pair as i32 - 1) % SETS + 1
}

/// The key range of pair `pair`'s new orders.
fn key_range(sf: f64, pair: u32) -> (i64, i64) {
    let first = first_index(sf, pair);
    (load::order_key(first + 1), load::order_key(first + room(sf)))
}

/// A part's rows with the order keys moved to pair `pair`'s.
struct Moved {
    part: Part,
    /// The part's first order index, and the index before the first its rows move to.
    base: i64,
    first: i64,
}

impl Moved {
    fn new(table: &schema::Table, sf: f64, pair: u32) -> Moved {
        let set = set_of(pair);
        let n = loaded(sf);
        // The part's first order index (1-based), as the generator splits the table.
        let start = (n / SETS as i64) * (set as i64 - 1) + 1;
        Moved { part: Part::new(table, sf, set, SETS), base: start, first: first_index(sf, pair) }
    }
}

impl RowSource for Moved {
    fn next_row(&mut self, row: &mut Row) -> bool {
        let (base, first) = (self.base, self.first);
        // An order key back to its index (dbgen keeps 8 of every 32 keys), moved.
        let moved = |key: i64| load::order_key(first + ((key >> 5) << 3) + (key & 7) - base + 1);
        self.part.fill(row, &moved)
    }
}

/// RF1 of pair `pair`: its orders, then their lines.
pub fn rf1(sf: f64, pair: u32) -> Vec<String> {
    let mut out = Vec::new();
    for t in [&schema::ORDERS, &schema::LINEITEM] {
        out.extend(crate::db::insert_statements(t.name, &t.load_columns(), &mut Moved::new(t, sf, pair), PER_INSERT));
    }
    out
}

/// RF2 of pair `pair`: the lines of RF1's orders, then the orders.
pub fn rf2(sf: f64, pair: u32) -> Vec<String> {
    let (lo, hi) = key_range(sf, pair);
    vec![format!("DELETE FROM lineitem WHERE l_orderkey BETWEEN {lo} AND {hi}"), format!("DELETE FROM orders WHERE o_orderkey BETWEEN {lo} AND {hi}")]
}

/// Rows a refresh left above the loaded keys (a run stopped between RF1
/// and RF2) removed.
pub async fn remove_leftovers(cfg: &Arc<ConnConfig>, sf: f64) -> Result<()> {
    let mut conn = Conn::admin(cfg).await?;
    let max = max_loaded_key(sf);
    for sql in [format!("DELETE FROM lineitem WHERE l_orderkey > {max}"), format!("DELETE FROM orders WHERE o_orderkey > {max}")] {
        conn.query(&sql).await.map_err(crate::db::sql_error(&sql))?;
    }
    conn.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pair_inserts_a_thousandth_above_the_loaded_keys() {
        let sf = 0.01;
        let max = max_loaded_key(sf);
        let (lo1, hi1) = key_range(sf, 1);
        let (lo2, _) = key_range(sf, 2);
        assert!(max < lo1 && lo1 <= hi1 && hi1 < lo2, "{max} {lo1} {hi1} {lo2}");
        let sql = rf1(sf, 1);
        assert_eq!(sql.len(), 2, "15 orders and their lines, one statement each");
        assert_eq!(sql[0].matches("),(").count() + 1, 15, "{}", &sql[0][..200]);
        // Every key RF1 writes is in the range RF2 deletes.
        let keys: Vec<i64> = sql[0].split("),(").map(|r| r.trim_start_matches(|c: char| !c.is_ascii_digit()).split(',').next().unwrap().parse().unwrap()).collect();
        assert!(keys.iter().all(|k| (lo1..=hi1).contains(k)), "{keys:?} not in {lo1}..{hi1}");
        let lines: Vec<i64> = sql[1].split("),(").map(|r| r.trim_start_matches(|c: char| !c.is_ascii_digit()).split(',').next().unwrap().parse().unwrap()).collect();
        assert!(lines.iter().all(|k| keys.contains(k)) && lines.len() >= 15, "{lines:?}");
    }
}
