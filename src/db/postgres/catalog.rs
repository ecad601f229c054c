//! The workload's tables as PostgreSQL's catalog describes them: columns
//! and types, indexes with their access methods, the table's access method,
//! reloptions (fillfactor, autovacuum, toast), partitioning with its
//! partitions, estimated rows (reltuples) and bytes with indexes and TOAST.
//! Partitions are folded into their parent.

use crate::db::catalog::{by_table, ColumnShape, IndexShape, TableShape};
use crate::db::facts::{rows, DatasetTables};
use crate::db::Conn;

/// Separates an index's key columns, which may be expressions with commas.
const UNIT: char = '\u{1f}';

pub async fn read(c: &mut Conn, tables: &DatasetTables, errors: &mut Vec<String>) -> Vec<TableShape> {
    let here = format!(
        "t.relkind IN ('r', 'p') AND NOT t.relispartition AND t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND {}",
        tables.condition("t.relname", false, true)
    );
    let mut out: Vec<TableShape> = Vec::new();
    let sql = format!(
        "SELECT t.relname, COALESCE(am.amname, 'heap'), COALESCE(array_to_string(t.reloptions, ' '), ''), COALESCE(pt.partstrat::text, ''), \
         (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = t.oid), \
         (GREATEST(t.reltuples, 0) + COALESCE((SELECT SUM(GREATEST(k.reltuples, 0)) FROM pg_inherits i JOIN pg_class k ON k.oid = i.inhrelid WHERE i.inhparent = t.oid), 0))::bigint, \
         pg_total_relation_size(t.oid) + COALESCE((SELECT SUM(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = t.oid), 0) \
         FROM pg_class t LEFT JOIN pg_am am ON am.oid = t.relam LEFT JOIN pg_partitioned_table pt ON pt.partrelid = t.oid WHERE {here} ORDER BY t.relname"
    );
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 7) {
        let mut options: Vec<String> = r[2].split_whitespace().map(str::to_string).collect();
        let method = match r[3].as_str() {
            "r" => Some("range"),
            "l" => Some("list"),
            "h" => Some("hash"),
            _ => None,
        };
        if let Some(m) = method {
            options.push(format!("partitions={m} x{}", r[4]));
        }
        out.push(TableShape { name: r[0].clone(), engine: Some(r[1].clone()), options, rows: r[5].parse().ok(), bytes: r[6].parse().ok(), ..TableShape::default() });
    }
    let sql = format!(
        "SELECT t.relname, a.attname, format_type(a.atttypid, a.atttypmod), CASE WHEN a.attnotnull THEN 1 ELSE 0 END \
         FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid WHERE a.attnum > 0 AND NOT a.attisdropped AND {here} ORDER BY t.relname, a.attnum"
    );
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 4) {
        if let Some(t) = by_table(&mut out, &r[0]) {
            t.columns.push(ColumnShape { name: r[1].clone(), ty: r[2].clone(), not_null: r[3] == "1" });
        }
    }
    let sql = format!(
        "SELECT t.relname, i.relname, CASE WHEN x.indisunique THEN 1 ELSE 0 END, CASE WHEN x.indisprimary THEN 1 ELSE 0 END, am.amname, \
         (SELECT string_agg(pg_get_indexdef(x.indexrelid, k, true), chr(31) ORDER BY k) FROM generate_series(1, x.indnatts) k) \
         FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am am ON am.oid = i.relam \
         WHERE {here} ORDER BY t.relname, i.relname"
    );
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 6) {
        if let Some(t) = by_table(&mut out, &r[0]) {
            t.indexes.push(IndexShape {
                name: r[1].clone(),
                columns: r[5].split(UNIT).map(str::to_string).collect(),
                unique: r[2] == "1",
                primary: r[3] == "1",
                method: (r[4] != "btree").then(|| r[4].clone()),
            });
        }
    }
    out
}
