//! Options of the TPC-C workload. Names follow sysbench-tpcc and BMK-kit's
//! tpcc.lua where they exist, and match the option names BMK labels decode
//! to (`warehouses`, `datasets`, `force-null`, `fk`), so labels work.
//! Engine and table options (`--mysql-storage-engine`,
//! `--create-table-options`, `--table-compression`), `--trx-retry`,
//! `--for-update`, `--reconnect`, `--load-mode` and `--load-bulk-size` are
//! the options every family shares (`workload::common`).

use super::values as own;
use crate::values::{self, parse_bool};
use clap::Args;
use serde::Serialize;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "TPC-C")]
pub struct TpccArgs {
    /// Warehouses per dataset (sysbench-tpcc's --scale)
    #[arg(long, default_value_t = 1, alias = "scale", value_parser = own::warehouses)]
    pub warehouses: u32,
    /// Independent datasets (table sets suffixed 1..N) used in parallel: --datasets 10 --warehouses 100 is BMK's 10x100W
    #[arg(long, default_value_t = 1, value_parser = values::positive32)]
    pub datasets: u32,
    /// NULL instead of DEFAULT values for undelivered o_carrier_id / ol_delivery_d (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub force_null: bool,
    /// fk: foreign keys; nofk: none, FK-backing indexes kept; nofk2: neither (BMK-kit's --use-fk: 1, 0, 2)
    #[arg(long, default_value = "fk", alias = "use-fk", value_parser = own::fk)]
    pub fk: String,
    /// Give history an auto-increment primary key (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub force_pk: bool,
    /// Transaction mix in percent: New-Order,Payment,Order-Status,Delivery,Stock-Level (sum 100)
    #[arg(long, default_value = "45,43,4,4,4", value_parser = own::tpcc_mix)]
    pub mix: String,
    /// MySQL-family: FORCE INDEX (PRIMARY) on primary-key lookups (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub force_primary: bool,
    /// Isolation level: RR, RC or SER (default: the server's)
    #[arg(long, default_value = "", value_parser = own::isolation)]
    pub isolation: String,
    /// Run only one transaction type: new_order, payment, order_status, delivery, stock_level (BMK-kit: 1 to 5; 0 the mix)
    #[arg(long, default_value = "", value_parser = own::trx_debug)]
    pub trx_debug: String,
    /// Stress mode: deal warehouses round-robin to clients, each picking among its own (HammerDB's all-warehouse mode)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub use_all_warehouses: bool,
    /// stress: closed loop, any warehouse per transaction; spec: 10 terminals per warehouse with keying and think times
    #[arg(long, default_value = "stress", value_parser = own::terminals)]
    pub terminals: String,
    /// Spec mode: factor applied to keying and think times (0.01 makes a short test run; the ceiling scales with it)
    #[arg(long, default_value_t = 1.0, value_parser = own::time_scale)]
    pub time_scale: f64,
    /// Output format: fairbench (sysbench lines plus TPC-C figures) or tpcc-mysql
    #[arg(long, default_value = "fairbench", value_parser = own::tpcc_format)]
    pub format: Console,
    /// Prefix of the TPC-C table names (tables are PREFIXwarehouseN, ...)
    #[arg(long, default_value = "", value_parser = values::identifier_prefix)]
    pub tpcc_prefix: String,
    /// Statements each transaction is sent as: per-item (sysbench-tpcc's and tpcc-mysql's), go-tpc (IN lists, multi-row inserts) or procedures (HammerDB's)
    #[arg(long, default_value = "per-item", value_parser = own::tpcc_shape)]
    pub tpcc_shape: super::shape::Shape,
    /// prepare: create the tables, indexes and foreign keys of the variant without loading data
    #[arg(long)]
    pub schema_only: bool,
}

/// TPC-C's console (`--format`): fairbench's (sysbench's lines with TPC-C's
/// figures after them) or tpcc-mysql's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Console {
    #[default]
    Fairbench,
    TpccMysql,
}
