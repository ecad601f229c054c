//! The eight tables (TPC-H clause 1.4): columns with the spec's types, the
//! primary keys created with the tables (the load comes in key order), and
//! the indexes on foreign keys the spec allows (clause 1.4.2.3), built
//! after the load.

use crate::db::{ColType, Column, Dialect};

#[derive(Clone, Copy, Debug)]
pub enum Ty {
    Int,
    BigInt,
    /// DECIMAL(15,2)
    Money,
    Date,
    Char(u32),
    Varchar(u32),
}

impl Ty {
    fn sql(self, d: &dyn Dialect) -> String {
        match self {
            Ty::Int => d.column_type("int"),
            Ty::BigInt => d.column_type("bigint"),
            Ty::Money => d.decimal_type(15, 2),
            Ty::Date => d.column_type("date"),
            Ty::Char(n) => format!("CHAR({n})"),
            Ty::Varchar(n) => d.text_up_to(n),
        }
    }

    fn load(self) -> ColType {
        match self {
            Ty::Int => ColType::Int,
            Ty::BigInt => ColType::BigInt,
            Ty::Money => ColType::Numeric(2),
            Ty::Date => ColType::Date,
            Ty::Char(_) | Ty::Varchar(_) => ColType::Text,
        }
    }
}

pub struct Table {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Ty)],
    pub key: &'static str,
    /// (index name, columns)
    pub indexes: &'static [(&'static str, &'static str)],
}

use Ty::*;

pub const REGION: Table = Table { name: "region", columns: &[("r_regionkey", Int), ("r_name", Char(25)), ("r_comment", Varchar(152))], key: "r_regionkey", indexes: &[] };
pub const NATION: Table =
    Table { name: "nation", columns: &[("n_nationkey", Int), ("n_name", Char(25)), ("n_regionkey", Int), ("n_comment", Varchar(152))], key: "n_nationkey", indexes: &[("nation_fk1", "n_regionkey")] };
pub const PART: Table = Table {
    name: "part",
    columns: &[
        ("p_partkey", Int),
        ("p_name", Varchar(55)),
        ("p_mfgr", Char(25)),
        ("p_brand", Char(10)),
        ("p_type", Varchar(25)),
        ("p_size", Int),
        ("p_container", Char(10)),
        ("p_retailprice", Money),
        ("p_comment", Varchar(23)),
    ],
    key: "p_partkey",
    indexes: &[],
};
pub const SUPPLIER: Table = Table {
    name: "supplier",
    columns: &[("s_suppkey", Int), ("s_name", Char(25)), ("s_address", Varchar(40)), ("s_nationkey", Int), ("s_phone", Char(15)), ("s_acctbal", Money), ("s_comment", Varchar(101))],
    key: "s_suppkey",
    indexes: &[("supplier_fk1", "s_nationkey")],
};
pub const PARTSUPP: Table = Table {
    name: "partsupp",
    columns: &[("ps_partkey", Int), ("ps_suppkey", Int), ("ps_availqty", Int), ("ps_supplycost", Money), ("ps_comment", Varchar(199))],
    key: "ps_partkey, ps_suppkey",
    indexes: &[("partsupp_fk1", "ps_suppkey")],
};
pub const CUSTOMER: Table = Table {
    name: "customer",
    columns: &[
        ("c_custkey", Int),
        ("c_name", Varchar(25)),
        ("c_address", Varchar(40)),
        ("c_nationkey", Int),
        ("c_phone", Char(15)),
        ("c_acctbal", Money),
        ("c_mktsegment", Char(10)),
        ("c_comment", Varchar(117)),
    ],
    key: "c_custkey",
    indexes: &[("customer_fk1", "c_nationkey")],
};
pub const ORDERS: Table = Table {
    name: "orders",
    columns: &[
        ("o_orderkey", BigInt),
        ("o_custkey", Int),
        ("o_orderstatus", Char(1)),
        ("o_totalprice", Money),
        ("o_orderdate", Date),
        ("o_orderpriority", Char(15)),
        ("o_clerk", Char(15)),
        ("o_shippriority", Int),
        ("o_comment", Varchar(79)),
    ],
    key: "o_orderkey",
    indexes: &[("orders_fk1", "o_custkey")],
};
pub const LINEITEM: Table = Table {
    name: "lineitem",
    columns: &[
        ("l_orderkey", BigInt),
        ("l_partkey", Int),
        ("l_suppkey", Int),
        ("l_linenumber", Int),
        ("l_quantity", Money),
        ("l_extendedprice", Money),
        ("l_discount", Money),
        ("l_tax", Money),
        ("l_returnflag", Char(1)),
        ("l_linestatus", Char(1)),
        ("l_shipdate", Date),
        ("l_commitdate", Date),
        ("l_receiptdate", Date),
        ("l_shipinstruct", Char(25)),
        ("l_shipmode", Char(10)),
        ("l_comment", Varchar(44)),
    ],
    key: "l_orderkey, l_linenumber",
    indexes: &[("lineitem_fk1", "l_partkey, l_suppkey"), ("lineitem_fk2", "l_suppkey")],
};

/// Every table, the largest first (the load's order).
pub const TABLES: [&Table; 8] = [&LINEITEM, &ORDERS, &PARTSUPP, &PART, &CUSTOMER, &SUPPLIER, &NATION, &REGION];

impl Table {
    pub fn create(&self, d: &dyn Dialect, tail: &str) -> String {
        let cols: Vec<String> = self.columns.iter().map(|(n, t)| format!("{n} {} NOT NULL", t.sql(d))).collect();
        format!("CREATE TABLE {} ({}, PRIMARY KEY ({})){tail}", self.name, cols.join(", "), self.key)
    }

    pub fn load_columns(&self) -> Vec<Column> {
        self.columns.iter().map(|(n, t)| Column { name: n.to_string(), ty: t.load() }).collect()
    }

    /// Its indexes (in one pass over the table where the engine builds
    /// several at once), then its statistics.
    pub fn finish(&self, d: &dyn Dialect) -> Vec<String> {
        let mut out = if self.indexes.is_empty() { Vec::new() } else { d.add_indexes(self.name, self.indexes) };
        out.push(d.analyze(self.name));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_exact_where_the_engine_has_decimals_and_dates_are_text_on_sqlite() {
        let my = crate::db::engines::named("mysql").unwrap().dialect();
        let lite = crate::db::engines::named("sqlite").unwrap().dialect();
        let pg = crate::db::engines::named("postgres").unwrap().dialect();
        assert!(LINEITEM.create(my, "").contains("l_quantity DECIMAL(15,2) NOT NULL"));
        assert!(LINEITEM.create(pg, "").contains("l_shipdate DATE NOT NULL"));
        let l = LINEITEM.create(lite, "");
        assert!(l.contains("l_quantity REAL NOT NULL") && l.contains("l_shipdate TEXT NOT NULL"), "{l}");
        assert!(l.ends_with("PRIMARY KEY (l_orderkey, l_linenumber))"), "{l}");
    }
}
