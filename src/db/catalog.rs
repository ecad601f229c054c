//! A workload's tables as the server's catalog describes them (columns,
//! indexes, storage engine or access method, row format, compression,
//! partitioning, fillfactor, rows and bytes), read before and after every
//! run by each engine (its `catalog.rs`), and how two readings differ: an
//! index dropped between two runs, or added while one ran, changes what is
//! measured as much as any setting.

use serde::{Deserialize, Serialize};

/// One table as the catalog says it is.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct TableShape {
    pub name: String,
    pub columns: Vec<ColumnShape>,
    pub indexes: Vec<IndexShape>,
    /// Storage engine (MySQL family) or access method (PostgreSQL); None
    /// where the engine has one kind (SQLite).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// How rows are stored beyond the engine: row format, compression,
    /// fillfactor, partitioning, `WITHOUT ROWID`, as `key=value` words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// Rows, as the catalog estimates them (statistics, not a count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Bytes of data and indexes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct ColumnShape {
    pub name: String,
    /// The type as the engine spells it (`int`, `character(120)`).
    #[serde(rename = "type")]
    pub ty: String,
    pub not_null: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct IndexShape {
    pub name: String,
    /// Key columns (or expressions) in order.
    pub columns: Vec<String>,
    pub unique: bool,
    pub primary: bool,
    /// The index's method when not the engine's usual b-tree (hash, brin, fulltext).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

impl IndexShape {
    /// What makes two indexes the same on any engine: kind and key columns
    /// (names differ: `PRIMARY` against `sbtest1_pkey`).
    fn key(&self) -> (bool, bool, Vec<String>) {
        (self.primary, self.unique || self.primary, self.columns.iter().map(|c| c.to_ascii_lowercase()).collect())
    }

    /// `PRIMARY KEY (id)`, `UNIQUE u (a, b)`, `INDEX k_1 (k) USING hash`.
    pub fn text(&self) -> String {
        let cols = self.columns.join(", ");
        let using = self.method.as_ref().map(|m| format!(" using {m}")).unwrap_or_default();
        if self.primary {
            format!("primary key ({cols}){using}")
        } else if self.unique {
            format!("unique index {} ({cols}){using}", self.name)
        } else {
            format!("index {} ({cols}){using}", self.name)
        }
    }
}

impl TableShape {
    /// "4 columns; primary key (id), index k_1 (k); InnoDB; row_format=dynamic; ~10000 rows; 2.3 MiB".
    pub fn summary(&self) -> String {
        let indexes = if self.indexes.is_empty() { "no index".to_string() } else { self.indexes.iter().map(IndexShape::text).collect::<Vec<_>>().join(", ") };
        let mut parts = vec![format!("{} columns", self.columns.len()), indexes];
        parts.extend(self.engine.clone());
        parts.extend(self.options.iter().cloned());
        if let Some(r) = self.rows {
            parts.push(format!("~{r} rows"));
        }
        if let Some(b) = self.bytes {
            parts.push(crate::units::human_bytes(b as f64));
        }
        parts.join("; ")
    }
}

/// Tables listed in a snapshot's text before "and N more".
const LISTED: usize = 8;

/// A line per table (`table sbtest1: ...`), the first few of many.
pub fn lines(tables: &[TableShape]) -> Vec<String> {
    let mut out: Vec<String> = tables.iter().take(LISTED).map(|t| format!("table {}: {}", t.name, t.summary())).collect();
    if tables.len() > LISTED {
        out.push(format!("and {} more tables", tables.len() - LISTED));
    }
    out
}

/// How table `b` differs from `a`, one phrase each, `a`'s side first.
/// `same_engine`: types, storage engines, options and index methods are
/// compared only between servers of one engine (an `int` on MariaDB is
/// an `integer` on PostgreSQL); columns by name and indexes by their keys
/// always are.
pub fn differences(a: &TableShape, b: &TableShape, same_engine: bool) -> Vec<String> {
    let mut out = Vec::new();
    for i in &a.indexes {
        if !b.indexes.iter().any(|j| j.key() == i.key()) {
            out.push(format!("{} missing", i.text()));
        }
    }
    for j in &b.indexes {
        if !a.indexes.iter().any(|i| i.key() == j.key()) {
            out.push(format!("{} extra", j.text()));
        }
    }
    for c in &a.columns {
        match b.columns.iter().find(|d| d.name.eq_ignore_ascii_case(&c.name)) {
            None => out.push(format!("column {} missing", c.name)),
            Some(d) if same_engine && (d.ty != c.ty || d.not_null != c.not_null) => out.push(format!("column {}: {} -> {}", c.name, column_type(c), column_type(d))),
            Some(_) => {}
        }
    }
    for d in &b.columns {
        if !a.columns.iter().any(|c| c.name.eq_ignore_ascii_case(&d.name)) {
            out.push(format!("column {} extra", d.name));
        }
    }
    if same_engine {
        if a.engine != b.engine {
            out.push(format!("engine {} -> {}", a.engine.as_deref().unwrap_or("?"), b.engine.as_deref().unwrap_or("?")));
        }
        if a.options != b.options {
            let show = |o: &[String]| if o.is_empty() { "none".to_string() } else { o.join(" ") };
            out.push(format!("options {} -> {}", show(&a.options), show(&b.options)));
        }
        for i in &a.indexes {
            if let Some(j) = b.indexes.iter().find(|j| j.key() == i.key() && j.method != i.method) {
                out.push(format!("{}: method {} -> {}", i.text(), i.method.as_deref().unwrap_or("btree"), j.method.as_deref().unwrap_or("btree")));
            }
        }
    }
    out
}

fn column_type(c: &ColumnShape) -> String {
    format!("{}{}", c.ty, if c.not_null { " not null" } else { "" })
}

/// How the tables of `b` differ from those of `a`, each difference with
/// its table's name; a table on one side only is named so when `whole`
/// (a run's start and end), and left alone otherwise (two runs of
/// different table counts, which their options already tell apart).
pub fn set_differences(a: &[TableShape], b: &[TableShape], same_engine: bool, whole: bool) -> Vec<String> {
    let find = |set: &[TableShape], name: &str| set.iter().position(|t| t.name.eq_ignore_ascii_case(name));
    let mut out = Vec::new();
    for t in a {
        match find(b, &t.name) {
            Some(i) => out.extend(differences(t, &b[i], same_engine).into_iter().map(|d| format!("{}: {d}", t.name))),
            None if whole => out.push(format!("{}: table dropped", t.name)),
            None => {}
        }
    }
    if whole {
        out.extend(b.iter().filter(|t| find(a, &t.name).is_none()).map(|t| format!("{}: table created", t.name)));
    }
    out
}

/// The table of that name among those read so far: each of an engine's
/// catalog queries gives rows of (table, ...) to fold into it.
pub fn by_table<'a>(tables: &'a mut [TableShape], name: &str) -> Option<&'a mut TableShape> {
    tables.iter_mut().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(engine: &str, indexes: &[(&str, &[&str], bool)]) -> TableShape {
        TableShape {
            name: "sbtest1".into(),
            columns: vec![ColumnShape { name: "id".into(), ty: "int".into(), not_null: true }, ColumnShape { name: "k".into(), ty: "int".into(), not_null: true }],
            indexes: indexes.iter().map(|(n, c, p)| IndexShape { name: n.to_string(), columns: c.iter().map(|s| s.to_string()).collect(), primary: *p, ..IndexShape::default() }).collect(),
            engine: Some(engine.into()),
            ..TableShape::default()
        }
    }

    #[test]
    fn an_index_dropped_or_another_engine_is_named() {
        let full = table("InnoDB", &[("PRIMARY", &["id"], true), ("k_1", &["k"], false)]);
        let dropped = table("InnoDB", &[("PRIMARY", &["id"], true)]);
        assert_eq!(differences(&full, &dropped, true), ["index k_1 (k) missing"]);
        assert_eq!(differences(&dropped, &full, true), ["index k_1 (k) extra"]);
        let myisam = table("MyISAM", &[("PRIMARY", &["id"], true), ("k_1", &["k"], false)]);
        assert_eq!(differences(&full, &myisam, true), ["engine InnoDB -> MyISAM"]);
        assert!(differences(&full, &full.clone(), true).is_empty());
    }

    /// Across engines, index names and types differ by nature: the keys are compared, not the names.
    #[test]
    fn across_engines_indexes_are_compared_by_their_keys() {
        let maria = table("InnoDB", &[("PRIMARY", &["id"], true), ("k_1", &["k"], false)]);
        let mut pg = table("heap", &[("sbtest1_pkey", &["id"], true), ("k_1", &["k"], false)]);
        pg.columns[0].ty = "integer".into();
        assert!(differences(&maria, &pg, false).is_empty());
        assert_eq!(differences(&maria, &pg, true), ["column id: int not null -> integer not null", "engine InnoDB -> heap"]);
    }

    #[test]
    fn tables_on_one_side_only_count_within_a_run() {
        let a = vec![table("InnoDB", &[])];
        let mut other = table("InnoDB", &[]);
        other.name = "sbtest2".into();
        let b = vec![a[0].clone(), other];
        assert!(set_differences(&a, &b, true, false).is_empty());
        assert_eq!(set_differences(&a, &b, true, true), ["sbtest2: table created"]);
    }
}
