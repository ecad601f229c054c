//! Small Datum's sysbench microbenchmarks as a preset of `sweep`: the
//! point, range and write tests his version series publish, each one
//! sysbench workload with the options his driver script gives it, in his
//! order (reads first, so the writes do not change what the reads find).
//! His tests that need his own Lua scripts (hot-points, points-covered-*,
//! range-covered-*, scan, update-inlist, update-zipf) are left out.

use crate::workload::family::{Preset, PresetRun};

/// Tables and rows per table on his larger servers.
const TABLES: u64 = 8;
const ROWS: u64 = 10_000_000;
/// Bytes a sysbench row takes with its index, about, on either engine.
const ROW_BYTES: u64 = 250;

/// Rows per table: his, or fewer, so that the tables take at most a quarter
/// of `ram` (his runs are cached), with two significant digits.
pub fn rows_per_table(ram: u64) -> u64 {
    let fit = ram / 4 / ROW_BYTES / TABLES;
    let rows = ROWS.min(fit).max(1000);
    let digits = rows.ilog10().saturating_sub(1);
    let unit = 10u64.pow(digits);
    rows / unit * unit
}

pub fn microbenchmarks(ram: u64) -> Preset {
    let rows = rows_per_table(ram);
    let size = format!("--tables {TABLES} --table-size {rows}");
    // sysbench's select_random_* read the first table only.
    let first = format!("--tables 1 --table-size {rows}");
    let reads_only = "--point-selects 0 --simple-ranges 0 --sum-ranges 0 --order-ranges 0 --distinct-ranges 0";
    let one_range = |which: &str| reads_only.replace(&format!("--{which}-ranges 0"), &format!("--{which}-ranges 1"));
    let list: Vec<(&str, String)> = vec![
        ("point-query", "oltp_point_select".into()),
        ("random-points_range=10", "select_random_points --random-points 10".into()),
        ("random-points_range=100", "select_random_points --random-points 100".into()),
        ("random-points_range=1000", "select_random_points --random-points 1000".into()),
        ("random-ranges", "select_random_ranges".into()),
        ("read-only_range=10", "oltp_read_only --range-size 10".into()),
        ("read-only_range=100", "oltp_read_only --range-size 100".into()),
        ("read-only_range=10000", "oltp_read_only --range-size 10000".into()),
        ("read-only-simple_range=1000", format!("oltp_read_only --range-size 1000 {}", one_range("simple"))),
        ("read-only-sum_range=1000", format!("oltp_read_only --range-size 1000 {}", one_range("sum"))),
        ("read-only-order_range=1000", format!("oltp_read_only --range-size 1000 {}", one_range("order"))),
        ("read-only-distinct_range=1000", format!("oltp_read_only --range-size 1000 {}", one_range("distinct"))),
        ("update-index", "oltp_update_index".into()),
        ("update-nonindex", "oltp_update_non_index".into()),
        ("read-write_range=10", "oltp_read_write --range-size 10".into()),
        ("read-write_range=100", "oltp_read_write --range-size 100".into()),
        ("write-only", "oltp_write_only".into()),
        ("delete", "oltp_delete".into()),
        ("insert", "oltp_insert".into()),
    ];
    let mut notes = Vec::new();
    if rows < ROWS {
        notes.push(format!(
            "{TABLES} tables of {rows} rows (Small Datum's {TABLES} x {ROWS} scaled to a quarter of the server's {} of memory, so they stay cached as in his runs; give --table-size to choose)",
            crate::units::human_bytes(ram as f64)
        ));
    }
    Preset {
        name: "microbench".into(),
        about: "Small Datum's sysbench microbenchmarks: point queries, range queries of several sizes, updates with and without an index, read-only and read-write transactions, deletes, inserts"
            .into(),
        prepare: format!("oltp_read_write {size}").split_whitespace().map(String::from).collect(),
        runs: list.into_iter().map(|(name, args)| PresetRun::new(name, &format!("{args} {}", if args.starts_with("select_random") { &first } else { &size }))).collect(),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_his_when_they_fit_and_scaled_when_not() {
        assert_eq!(rows_per_table(1 << 40), ROWS);
        // 4 GiB: a quarter is 1 GiB, 250 bytes a row over 8 tables.
        assert_eq!(rows_per_table(4 << 30), 530_000);
        assert_eq!(rows_per_table(1 << 20), 1000);
    }

    #[test]
    fn every_run_reads_the_prepared_tables() {
        let p = microbenchmarks(4 << 30);
        assert_eq!(p.runs.len(), 19);
        for r in &p.runs {
            let s = r.args.join(" ");
            let tables = if r.name.starts_with("random-") { 1 } else { 8 };
            assert!(s.ends_with(&format!("--tables {tables} --table-size 530000")), "{}: {s}", r.name);
        }
        let sum = p.runs.iter().find(|r| r.name == "read-only-sum_range=1000").unwrap().args.join(" ");
        assert!(sum.contains("--sum-ranges 1") && sum.contains("--simple-ranges 0") && sum.contains("--point-selects 0"), "{sum}");
    }
}
