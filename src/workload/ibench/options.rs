//! Options of the Insert Benchmark, with iibench.py's defaults and the
//! sizes of Small Datum's driver scripts (`--rows` is their l.i0 rows,
//! `--change-rows` what l.i1 and l.i2 insert and delete, 4/5 and 1/5).

use crate::values::{self, parse_bool};
use clap::Args;
use serde::Serialize;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "Insert Benchmark")]
pub struct IbenchArgs {
    /// The steps to run, in order: any of l.i0, l.x, l.i1, l.i2, qrN, qpN (N: the writers' rows a second)
    #[arg(long, default_value = super::step::SEQUENCE)]
    pub steps: String,
    /// Clients (one table each unless --one-table): l.i0's loaders, l.i1/l.i2's inserters, the query steps' query clients; default --threads
    #[arg(long, value_parser = values::positive_usize)]
    pub clients: Option<usize>,
    /// Rows l.i0 loads, over all clients (10K, 20M ...)
    #[arg(long, default_value = "1M", value_parser = values::table_size)]
    pub rows: u64,
    /// Rows l.i1 and l.i2 insert and delete, over all clients (4/5 in l.i1, 1/5 in l.i2); default twice --rows
    #[arg(long, value_parser = values::table_size)]
    pub change_rows: Option<u64>,
    /// Seconds a query step lasts when its writers keep their rate (they insert this many seconds' rows)
    #[arg(long, default_value_t = 1800.0, value_parser = values::positive_seconds)]
    pub query_secs: f64,
    /// Every client on one table (Small Datum's "1 table" runs) instead of one table each
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub one_table: bool,
    /// Each insert batch of l.i1, l.i2 and the query steps is matched by a delete of as many of the oldest rows
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub delete_per_insert: bool,
    /// After l.i2, before a query step: the tables' upkeep (VACUUM ANALYZE, ANALYZE TABLE), dirty pages written back, and a rest, as Small Datum's scripts do
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub settle: bool,
    /// Seconds the settle lasts, upkeep included; default 60 plus 1 per million --rows, at most 1200
    #[arg(long, value_parser = values::seconds)]
    pub settle_secs: Option<f64>,
    /// Table names: this, then the client's number (pi1, pi2 ...)
    #[arg(long, default_value = "pi", value_parser = values::table_base)]
    pub ibench_table: String,
    /// Rows a range query reads (its LIMIT), ids a point query asks for
    #[arg(long, default_value_t = 10, value_parser = values::positive32)]
    pub rows_per_query: u32,
    /// Shortest and longest value of the data column
    #[arg(long, default_value_t = 10, value_parser = values::uint32)]
    pub data_length_min: u32,
    #[arg(long, default_value_t = 20, value_parser = values::uint32)]
    pub data_length_max: u32,
    /// About how much of the data column is random (the rest compresses)
    #[arg(long, default_value_t = 50, value_parser = values::percent8)]
    pub data_random_pct: u8,
    /// Distinct cash registers, products, customers and prices the rows draw from
    #[arg(long, default_value_t = 1000, value_parser = values::positive32)]
    pub cashregisters: u32,
    #[arg(long, default_value_t = 10000, value_parser = values::positive32)]
    pub products: u32,
    #[arg(long, default_value_t = 100000, value_parser = values::positive32)]
    pub customers: u32,
    #[arg(long, default_value_t = 500, value_parser = values::positive32)]
    pub max_price: u32,
}
