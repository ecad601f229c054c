//! The workload's tables as SQLite's schema describes them: columns and
//! declared types, the primary key and indexes (pragma table-valued
//! functions), and the table's options after its definition (`WITHOUT
//! ROWID`, `STRICT`). Rows and bytes are left out: SQLite keeps no
//! estimate, and counting them would read every page twice a run.

use crate::db::catalog::{by_table, ColumnShape, IndexShape, TableShape};
use crate::db::facts::{rows, DatasetTables};
use crate::db::Conn;

pub async fn read(c: &mut Conn, tables: &DatasetTables, errors: &mut Vec<String>) -> Vec<TableShape> {
    let here = format!("m.type = 'table' AND {}", tables.condition("m.name", true, false));
    let mut out: Vec<TableShape> = Vec::new();
    for r in rows(c, &format!("SELECT m.name, m.sql FROM sqlite_master m WHERE {here} ORDER BY m.name"), errors).await.into_iter().filter(|r| r.len() >= 2) {
        out.push(TableShape { name: r[0].clone(), options: options_after(&r[1]), ..TableShape::default() });
    }
    let mut keys: Vec<(String, usize, String)> = Vec::new();
    let sql = format!("SELECT m.name, p.name, p.type, p.\"notnull\", p.pk FROM sqlite_master m, pragma_table_info(m.name) p WHERE {here} ORDER BY m.name, p.cid");
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 5) {
        if let Some(t) = by_table(&mut out, &r[0]) {
            t.columns.push(ColumnShape { name: r[1].clone(), ty: r[2].to_ascii_lowercase(), not_null: r[3] == "1" });
        }
        if let Ok(n) = r[4].parse::<usize>() {
            if n > 0 {
                keys.push((r[0].clone(), n, r[1].clone()));
            }
        }
    }
    // The primary key from the columns' order in it: an INTEGER PRIMARY KEY is the rowid and
    // has no index of its own to list.
    keys.sort();
    for (table, _, column) in keys {
        if let Some(t) = by_table(&mut out, &table) {
            match t.indexes.iter_mut().find(|i| i.primary) {
                Some(pk) => pk.columns.push(column),
                None => t.indexes.push(IndexShape { name: "primary".into(), columns: vec![column], unique: true, primary: true, method: None }),
            }
        }
    }
    let sql = format!(
        "SELECT m.name, il.name, il.\"unique\", COALESCE(ii.name, '') FROM sqlite_master m, pragma_index_list(m.name) il, pragma_index_info(il.name) ii \
         WHERE {here} AND il.origin <> 'pk' ORDER BY m.name, il.name, ii.seqno"
    );
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 4) {
        let Some(t) = by_table(&mut out, &r[0]) else { continue };
        match t.indexes.iter_mut().find(|i| i.name == r[1]) {
            Some(i) => i.columns.push(r[3].clone()),
            None => t.indexes.push(IndexShape { name: r[1].clone(), columns: vec![r[3].clone()], unique: r[2] == "1", primary: false, method: None }),
        }
    }
    out
}

/// `WITHOUT ROWID`, `STRICT`: what follows a table definition's last parenthesis.
fn options_after(sql: &str) -> Vec<String> {
    let tail = sql.rsplit_once(')').map_or("", |(_, t)| t);
    tail.split(',').map(|o| o.split_whitespace().collect::<Vec<_>>().join("_").to_ascii_lowercase()).filter(|o| !o.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tables_options_are_what_follows_its_columns() {
        assert_eq!(super::options_after("CREATE TABLE t (a INT, b TEXT, PRIMARY KEY (a)) WITHOUT ROWID, STRICT"), ["without_rowid", "strict"]);
        assert!(super::options_after("CREATE TABLE t (a INTEGER PRIMARY KEY)").is_empty());
    }
}
