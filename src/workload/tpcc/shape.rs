//! `--tpcc-shape`: the statements a transaction is sent as. TPC-C fixes what each transaction
//! reads and writes, not how many statements carry it, and the tools differ: sysbench-tpcc and
//! tpcc-mysql read and write each order line's item and stock with statements of their own
//! (`per-item`), go-tpc reads an order's items and stock with one IN list each, inserts its
//! lines in one multi-row INSERT and delivers ten districts with one statement per table
//! (`go-tpc`), and HammerDB calls a stored procedure per transaction (`procedures`). Their tpmC
//! are not comparable: the shape is named in the label, the summary and the store, and the audit
//! flags runs whose shapes differ.
//!
//! go-tpc's shape here is its statements (tpcc/new_order.go, tpcc/delivery.go) with TPC-C's
//! rules kept where go-tpc departs from them: each line's stock is read from its own supply
//! warehouse (go-tpc reads the home warehouse's), and a stock quantity is lowered as TPC-C 2.4.2.2
//! says. Payment, Order-Status and Stock-Level send the same statements in both shapes.

use super::schema::Names;
use crate::db::{Dialect, StatementSet, StmtId};
use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// sysbench-tpcc's and tpcc-mysql's: a statement per order line's item and stock.
    #[default]
    PerItem,
    /// go-tpc's: IN lists, multi-row inserts, ten districts delivered together.
    GoTpc,
    /// HammerDB's TPROC-C: a stored procedure per transaction.
    Procedures,
}

impl Shape {
    /// Its name as `--tpcc-shape` takes it.
    pub fn name(self) -> String {
        crate::output::keys::name(&self)
    }

    /// The tool whose statements these are, for the summary and `explain`.
    pub fn whose(self) -> &'static str {
        match self {
            Shape::PerItem => "sysbench-tpcc's and tpcc-mysql's: each order line's item and stock on statements of their own",
            Shape::GoTpc => "go-tpc's: an order's items and stock in one IN list each, its lines in one multi-row INSERT, ten districts delivered together",
            Shape::Procedures => "HammerDB's TPROC-C: one stored procedure call per transaction",
        }
    }
}

/// Order lines per New-Order: 5 to 15 (TPC-C 2.4.1.3).
pub const MIN_LINES: usize = 5;
pub const MAX_LINES: usize = 15;

/// go-tpc's statements of one dataset; those taking a list have one per list length.
#[derive(Clone, Debug)]
pub struct Batched {
    /// `[n - MIN_LINES]`: items of an order of n lines.
    pub items: Vec<StmtId>,
    /// `[n - MIN_LINES]`: their stock rows, locked.
    pub stock: Vec<StmtId>,
    /// `[n - MIN_LINES]`: the order's n lines in one INSERT.
    pub lines: Vec<StmtId>,
    /// Each district's oldest new order, locked.
    pub oldest: StmtId,
    /// The ten districts' orders at once, by (warehouse, district, order) lists of ten.
    pub delete_new: StmtId,
    pub carrier: StmtId,
    pub customers: StmtId,
    pub delivered: StmtId,
    pub amounts: StmtId,
}

/// `n` placeholders groups of `group`, comma-separated: "(?,?),(?,?)".
fn groups(n: usize, group: &str) -> String {
    vec![group; n].join(",")
}

impl Batched {
    pub fn new(set: &mut StatementSet, n: &Names, dialect: &'static dyn Dialect, fp: &str) -> Batched {
        let (no, o, ol, s, i) = (&n.new_orders, &n.orders, &n.order_line, &n.stock, &n.item);
        let lock = dialect.for_update();
        let lens = MIN_LINES..=MAX_LINES;
        let items = lens.clone().map(|k| set.add(format!("SELECT i_id, i_price, i_name, i_data FROM {i}{fp} WHERE i_id IN ({})", groups(k, "?")), true)).collect();
        let stock = lens
            .clone()
            .map(|k| {
                let dists = (1..=10).map(|d| format!("s_dist_{d:02}")).collect::<Vec<_>>().join(", ");
                set.add(format!("SELECT s_i_id, s_quantity, s_data, {dists} FROM {s} WHERE {}{lock}", dialect.rows_in(&["s_w_id", "s_i_id"], k)), true)
            })
            .collect();
        let lines = lens
            .map(|k| {
                let cols = "ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info";
                set.add(format!("INSERT INTO {ol} ({cols}) VALUES {}", groups(k, "(?, ?, ?, ?, ?, ?, ?, ? * 0.01, ?)")), false)
            })
            .collect();
        let ten = |w: &str, d: &str, o: &str| dialect.rows_in(&[w, d, o], 10);
        Batched {
            items,
            stock,
            lines,
            oldest: set.add(format!("SELECT no_o_id FROM {no} WHERE no_w_id=? AND no_d_id=? ORDER BY no_o_id ASC LIMIT 1{lock}"), true),
            delete_new: set.add(format!("DELETE FROM {no} WHERE {}", ten("no_w_id", "no_d_id", "no_o_id")), false),
            carrier: set.add(format!("UPDATE {o} SET o_carrier_id=? WHERE {}", ten("o_w_id", "o_d_id", "o_id")), false),
            customers: set.add(format!("SELECT o_d_id, o_c_id FROM {o} WHERE {}", ten("o_w_id", "o_d_id", "o_id")), true),
            delivered: set.add(format!("UPDATE {ol} SET ol_delivery_d=CURRENT_TIMESTAMP WHERE {}", ten("ol_w_id", "ol_d_id", "ol_o_id")), false),
            amounts: set.add(format!("SELECT ol_d_id, SUM(ol_amount) FROM {ol} WHERE {} GROUP BY ol_d_id", ten("ol_w_id", "ol_d_id", "ol_o_id")), true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_statements_have_one_placeholder_per_value() {
        assert_eq!(groups(3, "?"), "?,?,?");
        assert_eq!(groups(2, "(?, ?)"), "(?, ?),(?, ?)");
        let my = crate::db::Engine::dialect(crate::db::engines::named("mysql").unwrap());
        assert_eq!(my.rows_in(&["a", "b"], 2), "(a, b) IN ((?,?),(?,?))");
        let lite = crate::db::Engine::dialect(crate::db::engines::named("sqlite").unwrap());
        assert_eq!(lite.rows_in(&["a", "b"], 2), "((a=? AND b=?) OR (a=? AND b=?))");
    }
}
