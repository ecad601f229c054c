//! The nine TPC-C tables with sysbench-tpcc's column set, primary keys and
//! secondary indexes, in the variants BMK-kit names: FK / NoFK / NoFK2,
//! NULL / DEFAULT for the "not delivered yet" columns, history with or
//! without a primary key.

use crate::db::Engine;
use crate::db::FkPath;
use crate::usage;

/// Table names of one dataset (sysbench-tpcc appends the dataset number).
#[derive(Clone, Debug)]
pub struct Names {
    pub warehouse: String,
    pub district: String,
    pub customer: String,
    pub history: String,
    pub orders: String,
    pub new_orders: String,
    pub order_line: String,
    pub stock: String,
    pub item: String,
    /// Prefix + suffix for index and constraint names (schema-wide on PostgreSQL).
    pub prefix: String,
    pub n: u32,
}

impl Names {
    pub fn new(prefix: &str, n: u32) -> Names {
        let t = |b: &str| format!("{prefix}{b}{n}");
        Names {
            warehouse: t("warehouse"),
            district: t("district"),
            customer: t("customer"),
            history: t("history"),
            orders: t("orders"),
            new_orders: t("new_orders"),
            order_line: t("order_line"),
            stock: t("stock"),
            item: t("item"),
            prefix: prefix.to_string(),
            n,
        }
    }

    /// Child tables first, so DROP works with foreign keys in place.
    pub fn all(&self) -> [&str; 9] {
        [&self.order_line, &self.new_orders, &self.history, &self.orders, &self.customer, &self.stock, &self.district, &self.item, &self.warehouse]
    }
}

/// Foreign-key variant (BMK's label tokens).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fk {
    /// Foreign keys and the indexes backing them (`fk`).
    Keys,
    /// No foreign keys; the indexes that would back them stay (`nofk`).
    NoKeys,
    /// Neither foreign keys nor their indexes (`nofk2`).
    NoKeysNoIndexes,
}

impl Fk {
    pub fn parse(s: &str) -> crate::error::Result<Fk> {
        match s.to_ascii_lowercase().as_str() {
            "fk" | "on" | "1" => Ok(Fk::Keys),
            "nofk" | "off" | "0" => Ok(Fk::NoKeys),
            // BMK-kit's --use-fk=2: neither keys nor their indexes.
            "nofk2" | "2" => Ok(Fk::NoKeysNoIndexes),
            _ => Err(usage!("--fk={s}: use fk, nofk or nofk2 (BMK-kit's --use-fk: 1, 0 or 2)")),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Fk::Keys => "fk",
            Fk::NoKeys => "nofk",
            Fk::NoKeysNoIndexes => "nofk2",
        }
    }
}

/// How "not delivered yet" is stored before Delivery fills it in.
pub const UNDELIVERED_TS: &str = "1970-01-01 00:00:00";

#[derive(Clone, Debug)]
pub struct SchemaOpts {
    pub engine: &'static dyn Engine,
    pub force_null: bool,
    pub force_pk: bool,
    pub fk: Fk,
    /// Table options after CREATE TABLE (...): engine, compression, user options.
    pub tail: String,
}

impl SchemaOpts {
    /// SQL condition: the order (o_carrier_id) is not delivered yet.
    pub fn carrier_unset(&self, col: &str) -> String {
        if self.force_null {
            format!("{col} IS NULL")
        } else {
            format!("{col} = 0")
        }
    }

    /// SQL condition: the order line (ol_delivery_d) is not delivered yet.
    pub fn delivery_unset(&self, col: &str) -> String {
        if self.force_null {
            format!("{col} IS NULL")
        } else {
            format!("{col} = '{UNDELIVERED_TS}'")
        }
    }

    fn table(&self, name: &str, cols: &[(&str, &str)], extra: &[String]) -> String {
        let mut v: Vec<String> = cols
            .iter()
            .map(|(c, t)| {
                let (base, rest) = t.split_once(' ').unwrap_or((t, ""));
                format!("{c} {} {rest}", self.engine.dialect().column_type(base)).trim_end().to_string()
            })
            .collect();
        v.extend(extra.iter().cloned());
        format!("CREATE TABLE IF NOT EXISTS {name} (\n  {}\n) {}", v.join(",\n  "), self.tail).trim_end().to_string()
    }

    /// CREATE TABLE statements (with primary keys) of one dataset. An
    /// engine that cannot add foreign keys later gets them in CREATE TABLE.
    pub fn create(&self, n: &Names) -> Vec<String> {
        let in_create = self.engine.dialect().fk_path() == FkPath::InCreateTable && self.fk == Fk::Keys;
        let fks = if in_create { self.foreign_keys(n) } else { vec![] };
        let fk_of = |table: &str| -> Vec<String> { fks.iter().filter(|(t, _, _)| t == table).map(|(_, _, body)| body.clone()).collect() };
        let carrier = if self.force_null { "tinyint" } else { "tinyint NOT NULL DEFAULT 0" };
        let delivery = if self.force_null { "datetime".to_string() } else { format!("datetime NOT NULL DEFAULT '{UNDELIVERED_TS}'") };
        let with = |mut a: Vec<String>, b: Vec<String>| {
            a.extend(b);
            a
        };
        let mut v = vec![
            self.table(
                &n.warehouse,
                &[
                    ("w_id", "smallint NOT NULL"),
                    ("w_name", "varchar(10)"),
                    ("w_street_1", "varchar(20)"),
                    ("w_street_2", "varchar(20)"),
                    ("w_city", "varchar(20)"),
                    ("w_state", "char(2)"),
                    ("w_zip", "char(9)"),
                    ("w_tax", "decimal(4,4)"),
                    ("w_ytd", "decimal(12,2)"),
                ],
                &["PRIMARY KEY (w_id)".into()],
            ),
            self.table(
                &n.district,
                &[
                    ("d_id", "tinyint NOT NULL"),
                    ("d_w_id", "smallint NOT NULL"),
                    ("d_name", "varchar(10)"),
                    ("d_street_1", "varchar(20)"),
                    ("d_street_2", "varchar(20)"),
                    ("d_city", "varchar(20)"),
                    ("d_state", "char(2)"),
                    ("d_zip", "char(9)"),
                    ("d_tax", "decimal(4,4)"),
                    ("d_ytd", "decimal(12,2)"),
                    ("d_next_o_id", "int"),
                ],
                &with(vec!["PRIMARY KEY (d_w_id, d_id)".into()], fk_of(&n.district)),
            ),
            self.table(
                &n.customer,
                &[
                    ("c_id", "int NOT NULL"),
                    ("c_d_id", "tinyint NOT NULL"),
                    ("c_w_id", "smallint NOT NULL"),
                    ("c_first", "varchar(16)"),
                    ("c_middle", "char(2)"),
                    ("c_last", "varchar(16)"),
                    ("c_street_1", "varchar(20)"),
                    ("c_street_2", "varchar(20)"),
                    ("c_city", "varchar(20)"),
                    ("c_state", "char(2)"),
                    ("c_zip", "char(9)"),
                    ("c_phone", "char(16)"),
                    ("c_since", "datetime"),
                    ("c_credit", "char(2)"),
                    ("c_credit_lim", "bigint"),
                    ("c_discount", "decimal(4,4)"),
                    ("c_balance", "decimal(12,2)"),
                    ("c_ytd_payment", "decimal(12,2)"),
                    ("c_payment_cnt", "smallint"),
                    ("c_delivery_cnt", "smallint"),
                    ("c_data", "varchar(500)"),
                ],
                &with(vec!["PRIMARY KEY (c_w_id, c_d_id, c_id)".into()], fk_of(&n.customer)),
            ),
        ];
        let mut hcols: Vec<(&str, &str)> = vec![];
        if self.force_pk {
            hcols.push(("id", "serial"));
        }
        hcols.extend_from_slice(&[
            ("h_c_id", "int"),
            ("h_c_d_id", "tinyint"),
            ("h_c_w_id", "smallint"),
            ("h_d_id", "tinyint"),
            ("h_w_id", "smallint"),
            ("h_date", "datetime"),
            ("h_amount", "decimal(6,2)"),
            ("h_data", "varchar(24)"),
        ]);
        let hpk: Vec<String> = if self.force_pk { vec!["PRIMARY KEY (id)".into()] } else { vec![] };
        v.push(self.table(&n.history, &hcols, &with(hpk, fk_of(&n.history))));
        v.push(self.table(
            &n.orders,
            &[
                ("o_id", "int NOT NULL"),
                ("o_d_id", "tinyint NOT NULL"),
                ("o_w_id", "smallint NOT NULL"),
                ("o_c_id", "int"),
                ("o_entry_d", "datetime"),
                ("o_carrier_id", carrier),
                ("o_ol_cnt", "tinyint"),
                ("o_all_local", "tinyint"),
            ],
            &with(vec!["PRIMARY KEY (o_w_id, o_d_id, o_id)".into()], fk_of(&n.orders)),
        ));
        v.push(self.table(
            &n.new_orders,
            &[("no_o_id", "int NOT NULL"), ("no_d_id", "tinyint NOT NULL"), ("no_w_id", "smallint NOT NULL")],
            &with(vec!["PRIMARY KEY (no_w_id, no_d_id, no_o_id)".into()], fk_of(&n.new_orders)),
        ));
        v.push(self.table(
            &n.order_line,
            &[
                ("ol_o_id", "int NOT NULL"),
                ("ol_d_id", "tinyint NOT NULL"),
                ("ol_w_id", "smallint NOT NULL"),
                ("ol_number", "tinyint NOT NULL"),
                ("ol_i_id", "int"),
                ("ol_supply_w_id", "smallint"),
                ("ol_delivery_d", &delivery),
                ("ol_quantity", "tinyint"),
                ("ol_amount", "decimal(6,2)"),
                ("ol_dist_info", "char(24)"),
            ],
            &with(vec!["PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)".into()], fk_of(&n.order_line)),
        ));
        let mut scols: Vec<(String, String)> = vec![("s_i_id".into(), "int NOT NULL".into()), ("s_w_id".into(), "smallint NOT NULL".into()), ("s_quantity".into(), "smallint".into())];
        for d in 1..=10 {
            scols.push((format!("s_dist_{d:02}"), "char(24)".into()));
        }
        scols.extend([("s_ytd".into(), "decimal(8,0)".into()), ("s_order_cnt".into(), "smallint".into()), ("s_remote_cnt".into(), "smallint".into()), ("s_data".into(), "varchar(50)".into())]);
        let sref: Vec<(&str, &str)> = scols.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        v.push(self.table(&n.stock, &sref, &with(vec!["PRIMARY KEY (s_w_id, s_i_id)".into()], fk_of(&n.stock))));
        v.push(self.table(&n.item, &[("i_id", "int NOT NULL"), ("i_im_id", "int"), ("i_name", "varchar(24)"), ("i_price", "decimal(5,2)"), ("i_data", "varchar(50)")], &["PRIMARY KEY (i_id)".into()]));
        v
    }

    /// Secondary indexes, created after the load: (name, table, columns).
    pub fn indexes(&self, n: &Names) -> Vec<(String, String, String)> {
        let (p, s) = (&n.prefix, n.n);
        let mut v = vec![
            (format!("{p}idx_customer{s}"), n.customer.clone(), "c_w_id, c_d_id, c_last, c_first".to_string()),
            (format!("{p}idx_orders{s}"), n.orders.clone(), "o_w_id, o_d_id, o_c_id, o_id".to_string()),
        ];
        if self.fk != Fk::NoKeysNoIndexes {
            v.push((format!("{p}fkey_stock_2{s}"), n.stock.clone(), "s_i_id".into()));
            v.push((format!("{p}fkey_order_line_2{s}"), n.order_line.clone(), "ol_supply_w_id, ol_i_id".into()));
            v.push((format!("{p}fkey_history_1{s}"), n.history.clone(), "h_c_w_id, h_c_d_id, h_c_id".into()));
            v.push((format!("{p}fkey_history_2{s}"), n.history.clone(), "h_w_id, h_d_id".into()));
        }
        v
    }

    /// sysbench-tpcc's ten foreign keys: (table, constraint name, clause).
    pub fn foreign_keys(&self, n: &Names) -> Vec<(String, String, String)> {
        let (p, s) = (&n.prefix, n.n);
        let defs = [
            (&n.new_orders, "no_o", "no_w_id, no_d_id, no_o_id", &n.orders, "o_w_id, o_d_id, o_id"),
            (&n.orders, "o_c", "o_w_id, o_d_id, o_c_id", &n.customer, "c_w_id, c_d_id, c_id"),
            (&n.customer, "c_d", "c_w_id, c_d_id", &n.district, "d_w_id, d_id"),
            (&n.history, "h_c", "h_c_w_id, h_c_d_id, h_c_id", &n.customer, "c_w_id, c_d_id, c_id"),
            (&n.history, "h_d", "h_w_id, h_d_id", &n.district, "d_w_id, d_id"),
            (&n.district, "d_w", "d_w_id", &n.warehouse, "w_id"),
            (&n.order_line, "ol_o", "ol_w_id, ol_d_id, ol_o_id", &n.orders, "o_w_id, o_d_id, o_id"),
            (&n.order_line, "ol_s", "ol_supply_w_id, ol_i_id", &n.stock, "s_w_id, s_i_id"),
            (&n.stock, "s_w", "s_w_id", &n.warehouse, "w_id"),
            (&n.stock, "s_i", "s_i_id", &n.item, "i_id"),
        ];
        defs.iter()
            .map(|(t, name, cols, rt, rcols)| {
                let cname = format!("{p}fk_{name}{s}");
                (t.to_string(), cname.clone(), format!("CONSTRAINT {cname} FOREIGN KEY ({cols}) REFERENCES {rt} ({rcols})"))
            })
            .collect()
    }
}
