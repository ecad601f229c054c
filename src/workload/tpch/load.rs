//! The tables' rows, from dbgen's generator (the `tpchgen` crate
//! reproduces dbgen's output byte for byte), split into parts that loaders
//! take in parallel, each part sent through the engine's bulk path.

use super::schema::Table;
use crate::db::{Row, RowSource};
use crate::output::Progress;
use std::io::Write;
use std::sync::Arc;
use tpchgen::generators as g;

/// Rows per part a loader takes at a time, about.
const PART_ROWS: f64 = 200_000.0;

/// Rows of `table` at scale factor `sf` (lineitem's is an estimate: 1 to 7
/// per order, 4 on average).
pub fn rows(table: &Table, sf: f64) -> u64 {
    let base = match table.name {
        "lineitem" => 6_000_000.0,
        "orders" => 1_500_000.0,
        "partsupp" => 800_000.0,
        "part" => 200_000.0,
        "customer" => 150_000.0,
        "supplier" => 10_000.0,
        "nation" => return 25,
        _ => return 5,
    };
    (base * sf) as u64
}

/// How many parts `table` is generated in (lineitem's parts are those of
/// its orders: a part holds its orders' lines).
pub fn parts(table: &Table, sf: f64) -> i32 {
    ((rows(table, sf) as f64 / PART_ROWS).ceil() as i32).max(1)
}

/// The order keys dbgen gives the first `n` orders: after every 8 keys,
/// 24 are left for the refresh functions' new orders.
pub fn order_key(index: i64) -> i64 {
    g::OrderGenerator::make_order_key(index)
}

/// One part's rows of one table.
pub enum Part {
    Region(g::RegionGeneratorIterator<'static>),
    Nation(g::NationGeneratorIterator<'static>),
    Parts(g::PartGeneratorIterator<'static>),
    Supplier(g::SupplierGeneratorIterator<'static>),
    Supplies(g::PartSuppGeneratorIterator<'static>),
    Customer(g::CustomerGeneratorIterator<'static>),
    Orders(g::OrderGeneratorIterator<'static>),
    LineItem(g::LineItemGeneratorIterator<'static>),
}

impl Part {
    /// Part `part` (1-based) of `parts` of `table`.
    pub fn new(table: &Table, sf: f64, part: i32, parts: i32) -> Part {
        match table.name {
            "region" => Part::Region(g::RegionGenerator::new(sf, part, parts).iter()),
            "nation" => Part::Nation(g::NationGenerator::new(sf, part, parts).iter()),
            "part" => Part::Parts(g::PartGenerator::new(sf, part, parts).iter()),
            "supplier" => Part::Supplier(g::SupplierGenerator::new(sf, part, parts).iter()),
            "partsupp" => Part::Supplies(g::PartSuppGenerator::new(sf, part, parts).iter()),
            "customer" => Part::Customer(g::CustomerGenerator::new(sf, part, parts).iter()),
            "orders" => Part::Orders(g::OrderGenerator::new(sf, part, parts).iter()),
            _ => Part::LineItem(g::LineItemGenerator::new(sf, part, parts).iter()),
        }
    }
}

/// Text columns are written in place; `k` is the next text slot.
fn text(row: &mut Row, k: &mut usize, v: impl std::fmt::Display) {
    if row.texts.len() <= *k {
        row.texts.resize(*k + 1, Vec::new());
    }
    let t = &mut row.texts[*k];
    t.clear();
    let _ = write!(t, "{v}");
    *k += 1;
}

/// A date as days since 1970-01-01.
fn day(d: tpchgen::dates::TPCHDate) -> i64 {
    d.to_unix_epoch() as i64
}

impl Part {
    /// The next row in the table's column order; false when the part is done.
    /// `key` maps an order key (the refresh functions give new orders keys
    /// of their own).
    pub fn fill(&mut self, row: &mut Row, key: &dyn Fn(i64) -> i64) -> bool {
        row.ints.clear();
        row.nulls = 0;
        let mut k = 0;
        match self {
            Part::Region(it) => {
                let Some(r) = it.next() else { return false };
                row.ints.push(r.r_regionkey);
                text(row, &mut k, r.r_name);
                text(row, &mut k, r.r_comment);
            }
            Part::Nation(it) => {
                let Some(n) = it.next() else { return false };
                row.ints.push(n.n_nationkey);
                text(row, &mut k, n.n_name);
                row.ints.push(n.n_regionkey);
                text(row, &mut k, n.n_comment);
            }
            Part::Parts(it) => {
                let Some(p) = it.next() else { return false };
                row.ints.push(p.p_partkey);
                text(row, &mut k, &p.p_name);
                text(row, &mut k, p.p_mfgr);
                text(row, &mut k, p.p_brand);
                text(row, &mut k, p.p_type);
                row.ints.push(p.p_size as i64);
                text(row, &mut k, p.p_container);
                row.ints.push(p.p_retailprice.0);
                text(row, &mut k, p.p_comment);
            }
            Part::Supplier(it) => {
                let Some(s) = it.next() else { return false };
                row.ints.push(s.s_suppkey);
                text(row, &mut k, s.s_name);
                text(row, &mut k, &s.s_address);
                row.ints.push(s.s_nationkey);
                text(row, &mut k, &s.s_phone);
                row.ints.push(s.s_acctbal.0);
                text(row, &mut k, &s.s_comment);
            }
            Part::Supplies(it) => {
                let Some(p) = it.next() else { return false };
                row.ints.extend([p.ps_partkey, p.ps_suppkey, p.ps_availqty as i64, p.ps_supplycost.0]);
                text(row, &mut k, p.ps_comment);
            }
            Part::Customer(it) => {
                let Some(c) = it.next() else { return false };
                row.ints.push(c.c_custkey);
                text(row, &mut k, c.c_name);
                text(row, &mut k, &c.c_address);
                row.ints.push(c.c_nationkey);
                text(row, &mut k, &c.c_phone);
                row.ints.push(c.c_acctbal.0);
                text(row, &mut k, c.c_mktsegment);
                text(row, &mut k, c.c_comment);
            }
            Part::Orders(it) => {
                let Some(o) = it.next() else { return false };
                row.ints.extend([key(o.o_orderkey), o.o_custkey]);
                text(row, &mut k, o.o_orderstatus);
                row.ints.extend([o.o_totalprice.0, day(o.o_orderdate)]);
                text(row, &mut k, o.o_orderpriority);
                text(row, &mut k, o.o_clerk);
                row.ints.push(o.o_shippriority as i64);
                text(row, &mut k, o.o_comment);
            }
            Part::LineItem(it) => {
                let Some(l) = it.next() else { return false };
                // l_quantity is a DECIMAL(15,2) of whole units.
                row.ints.extend([key(l.l_orderkey), l.l_partkey, l.l_suppkey, l.l_linenumber as i64, l.l_quantity * 100, l.l_extendedprice.0, l.l_discount.0, l.l_tax.0]);
                text(row, &mut k, l.l_returnflag);
                text(row, &mut k, l.l_linestatus);
                row.ints.extend([day(l.l_shipdate), day(l.l_commitdate), day(l.l_receiptdate)]);
                text(row, &mut k, l.l_shipinstruct);
                text(row, &mut k, l.l_shipmode);
                text(row, &mut k, l.l_comment);
            }
        }
        true
    }
}

/// A part as a bulk load's rows, with the load's progress.
pub struct Source {
    pub part: Part,
    pub progress: Arc<Progress>,
    pending: u64,
    done: bool,
}

impl Source {
    pub fn new(part: Part, progress: Arc<Progress>) -> Source {
        Source { part, progress, pending: 0, done: false }
    }
}

impl RowSource for Source {
    fn next_row(&mut self, row: &mut Row) -> bool {
        if self.done || !self.part.fill(row, &|k| k) {
            self.done = true;
            self.progress.add(std::mem::take(&mut self.pending));
            return false;
        }
        self.pending += 1;
        if self.pending >= 4096 {
            self.progress.add(std::mem::take(&mut self.pending));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema;
    use super::*;

    /// dbgen's first rows at SF 1, as its .tbl files hold them.
    #[test]
    fn the_first_rows_are_dbgens() {
        let mut row = Row::default();
        let mut p = Part::new(&schema::ORDERS, 1.0, 1, 1);
        assert!(p.fill(&mut row, &|k| k));
        // 1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|...
        assert_eq!(row.ints, vec![1, 36901, 17366547, super::super::params::days(1996, 1, 2), 0]);
        assert_eq!(String::from_utf8_lossy(&row.texts[0]), "O");
        assert_eq!(String::from_utf8_lossy(&row.texts[2]), "Clerk#000000951");
        let mut l = Part::new(&schema::LINEITEM, 1.0, 1, 1);
        assert!(l.fill(&mut row, &|k| k));
        // 1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|...
        assert_eq!(row.ints[..8], [1, 155190, 7706, 1, 1700, 2116823, 4, 2]);
        assert_eq!(order_key(9), 33);
        assert_eq!((parts(&schema::LINEITEM, 1.0), parts(&schema::ORDERS, 0.01), parts(&schema::REGION, 100.0)), (30, 1, 1));
    }
}
