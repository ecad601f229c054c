//! Options of the sysbench OLTP family, with sysbench's names and defaults,
//! plus BMK-kit's extensions. The options other families share (engine,
//! table options, loading, retries) are in `workload::common`.

use crate::values::{self, parse_bool};
use clap::Args;
use serde::Serialize;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "OLTP workload (sysbench names and defaults)")]
pub struct OltpArgs {
    /// Number of tables
    #[arg(long, default_value_t = 1, value_parser = values::positive32)]
    pub tables: u32,
    /// Rows per table (10K, 1M, 10M accepted)
    #[arg(long, default_value = "10000", value_parser = values::table_size)]
    pub table_size: u64,
    /// Rows per range query
    #[arg(long, default_value_t = 100, value_parser = values::rows)]
    pub range_size: u64,
    /// Point SELECTs per event
    #[arg(long, value_parser = values::uint32)]
    pub point_selects: Option<u32>,
    #[arg(long, value_parser = values::uint32)]
    pub simple_ranges: Option<u32>,
    #[arg(long, value_parser = values::uint32)]
    pub sum_ranges: Option<u32>,
    #[arg(long, value_parser = values::uint32)]
    pub order_ranges: Option<u32>,
    #[arg(long, value_parser = values::uint32)]
    pub distinct_ranges: Option<u32>,
    #[arg(long, value_parser = values::uint32)]
    pub index_updates: Option<u32>,
    #[arg(long, value_parser = values::uint32)]
    pub non_index_updates: Option<u32>,
    #[arg(long, value_parser = values::uint32)]
    pub delete_inserts: Option<u32>,
    /// Run the range SELECTs (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool)]
    pub range_selects: Option<bool>,
    /// No BEGIN/COMMIT around events (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool)]
    pub skip_trx: Option<bool>,
    /// Auto-increment id column (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub auto_inc: bool,
    /// Secondary (non-primary) index on id instead of a primary key
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub secondary: bool,
    /// Create the secondary index on k after loading
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub create_secondary: bool,

    // --- BMK-kit extensions ---
    /// Table name base (tables are NAME1..NAMEn)
    #[arg(long, default_value = "sbtest", value_parser = values::table_base)]
    pub table_name: String,
    /// Partitions per table (hash on id); MySQL and PostgreSQL
    #[arg(long, default_value_t = 0, alias = "mysql-table-partitions", value_parser = values::uint32)]
    pub table_partitions: u32,
    /// Percent of random characters in c/pad (the rest is a fixed pattern, so data compresses)
    #[arg(long, default_value_t = 100, alias = "rnd-data", value_parser = values::percent8)]
    pub rand_data: u8,
    /// How ids are drawn (BMK-kit's rand_loop): 0 the distribution over the table, 1 each client in its own chunk, 2 shifted to the client's slot, 3 a +77777 stride from a drawn start
    #[arg(long, default_value_t = 0, alias = "rnd-loop", value_parser = values::rand_loop)]
    pub rand_loop: u8,
    /// Extra columns per table
    #[arg(long, default_value_t = 0, value_parser = values::uint32)]
    pub extra_cols: u32,
    #[arg(long, default_value = "VARCHAR(32)")]
    pub extra_cols_type: String,
    /// Default value of extra columns; '#' becomes a random digit and '@' a random letter per row
    #[arg(long, default_value = "")]
    pub extra_cols_default: String,
    /// Column options of extra columns (e.g. NOT NULL)
    #[arg(long, default_value = "")]
    pub extra_cols_options: String,
    /// Columns returned by point, simple and ordered range SELECTs: a list (id,k), *, JSON_OBJECT(id,k,c,pad), ...
    #[arg(long, default_value = "c", alias = "select-star")]
    pub select_cols: String,
    /// Rows changed per UPDATE (0/1: one row by id, N: id BETWEEN ? AND ?+N-1)
    #[arg(long, default_value_t = 0, value_parser = values::rows)]
    pub update_range_size: u64,
    /// Optimizer hint in every statement, e.g. MAX_EXECUTION_TIME(100): sent as /*+ HINT */ after SELECT, UPDATE, DELETE and INSERT (a hint already in /*...*/ goes as written)
    #[arg(long, default_value = "", alias = "mysql-query-hint")]
    pub query_hint: String,
    /// Microseconds to sleep before COMMIT
    #[arg(long, default_value_t = 0, value_parser = values::uint64)]
    pub sleep_before_commit: u64,
    /// Microseconds to sleep after each query
    #[arg(long, default_value_t = 0, value_parser = values::uint64)]
    pub sleep_after_query: u64,
    /// SQL run before each event
    #[arg(long, default_value = "")]
    pub extra_query_before: String,
    /// SQL run after each event
    #[arg(long, default_value = "")]
    pub extra_query_after: String,
    /// How clients choose tables: pinned (BMK: client i uses table i mod N) or random (sysbench)
    #[arg(long, default_value = "auto", value_parser = values::table_pick)]
    pub table_pick: String,
    /// select_random_points: ids per query
    #[arg(long, default_value_t = 10, value_parser = values::positive32)]
    pub random_points: u32,
    /// select_random_ranges: ranges per query
    #[arg(long, default_value_t = 10, value_parser = values::positive32)]
    pub number_of_ranges: u32,
    /// select_random_ranges: width of each range
    #[arg(long, default_value_t = 5, value_parser = values::rows)]
    pub delta: u64,
}
