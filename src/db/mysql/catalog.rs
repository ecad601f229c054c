//! The workload's tables as information_schema describes them on the MySQL
//! family (TiDB's too): columns, indexes, storage engine, row format and
//! create options (compression, KEY_BLOCK_SIZE, PAGE_COMPRESSED),
//! partitioning, estimated rows and bytes.

use crate::db::catalog::{by_table, ColumnShape, IndexShape, TableShape};
use crate::db::facts::{rows, DatasetTables};
use crate::db::Conn;

pub async fn read(c: &mut Conn, tables: &DatasetTables, errors: &mut Vec<String>) -> Vec<TableShape> {
    let here = format!("table_schema = DATABASE() AND {}", tables.condition("table_name", false, false));
    let mut out: Vec<TableShape> = Vec::new();
    let sql = format!("SELECT table_name, engine, row_format, create_options, table_rows, data_length + index_length FROM information_schema.tables WHERE {here} ORDER BY table_name");
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 6) {
        let mut options: Vec<String> = Vec::new();
        if !r[2].is_empty() {
            options.push(format!("row_format={}", r[2].to_ascii_lowercase()));
        }
        // Partitioning is read from its own table below, with its method.
        // The row format is its column's (MariaDB repeats a chosen one among the create options).
        for o in r[3].split_whitespace().map(|o| o.replace('`', "").to_ascii_lowercase()) {
            if o != "partitioned" && !o.starts_with("row_format=") {
                options.push(o);
            }
        }
        out.push(TableShape { name: r[0].clone(), engine: (!r[1].is_empty()).then(|| r[1].clone()), options, rows: r[4].parse().ok(), bytes: r[5].parse().ok(), ..TableShape::default() });
    }
    let sql = format!("SELECT table_name, column_name, column_type, is_nullable FROM information_schema.columns WHERE {here} ORDER BY table_name, ordinal_position");
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 4) {
        if let Some(t) = by_table(&mut out, &r[0]) {
            t.columns.push(ColumnShape { name: r[1].clone(), ty: column_type(&r[2]), not_null: r[3].eq_ignore_ascii_case("NO") });
        }
    }
    let sql = format!(
        "SELECT table_name, index_name, non_unique, column_name, index_type, COALESCE(sub_part, '') FROM information_schema.statistics WHERE {here} ORDER BY table_name, index_name, seq_in_index"
    );
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 6) {
        let Some(t) = by_table(&mut out, &r[0]) else { continue };
        // A prefix of the column is another index than the whole column: `c(10)`.
        let column = if r[5].is_empty() { r[3].clone() } else { format!("{}({})", r[3], r[5]) };
        match t.indexes.iter_mut().find(|i| i.name == r[1]) {
            Some(i) => i.columns.push(column),
            None => t.indexes.push(IndexShape {
                name: r[1].clone(),
                columns: vec![column],
                unique: r[2] == "0",
                primary: r[1].eq_ignore_ascii_case("PRIMARY"),
                method: (!r[4].eq_ignore_ascii_case("BTREE") && !r[4].is_empty()).then(|| r[4].to_ascii_lowercase()),
            }),
        }
    }
    let sql = format!(
        "SELECT table_name, partition_method, COUNT(*) FROM information_schema.partitions WHERE {here} AND partition_name IS NOT NULL GROUP BY table_name, partition_method ORDER BY table_name"
    );
    for r in rows(c, &sql, errors).await.into_iter().filter(|r| r.len() >= 3) {
        if let Some(t) = by_table(&mut out, &r[0]) {
            t.options.push(format!("partitions={} x{}", r[1].to_ascii_lowercase(), r[2]));
        }
    }
    out
}

/// A column's type without an integer's display width, which MariaDB shows
/// (`int(11)`) and MySQL 8 does not (`int`): it changes nothing stored.
fn column_type(ty: &str) -> String {
    let ty = ty.to_ascii_lowercase();
    let Some((base, rest)) = ty.split_once('(') else { return ty };
    let Some((width, after)) = rest.split_once(')') else { return ty };
    if base.ends_with("int") && width.chars().all(|c| c.is_ascii_digit()) {
        format!("{base}{after}")
    } else {
        ty
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_integers_display_width_is_not_its_type() {
        assert_eq!(super::column_type("int(11)"), "int");
        assert_eq!(super::column_type("bigint(20) unsigned"), "bigint unsigned");
        assert_eq!(super::column_type("char(120)"), "char(120)");
        assert_eq!(super::column_type("decimal(12,2)"), "decimal(12,2)");
    }
}
