//! Options of dbSTRESS, named as BMK-kit's dbSTRESS scripts name them.
//! The table, loading and retry options every family shares
//! (`--mysql-storage-engine`, `--create-table-options`,
//! `--table-compression`, `--load-mode`, `--load-bulk-size`,
//! `--trx-retry`, `--reconnect` and `--for-update`, which turns dbSTRESS's
//! locking reads on at any value above 0 and is off unless given) come
//! from `workload::common`. `--delete-inserts` and `--skip-trx` keep the
//! one name the command line already has for the concept, whichever family
//! declares it. [`Shared`] reads them back.

use crate::error::Result;
use crate::values::{self, parse_bool};
use crate::workload::common::CommonArgs;
use crate::workload::family::FamilyArgs;
use clap::Args;
use serde::Serialize;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "dbSTRESS")]
pub struct DbstressArgs {
    /// Rows of each OBJECT table (20 HISTORY rows each)
    #[arg(long, default_value = "1000000", value_parser = values::table_size)]
    pub obj_table_size: u64,
    /// Sets of the five tables (OBJECTn, HISTORYn, ...), spreading the locks
    #[arg(long, default_value_t = 1, value_parser = values::positive32)]
    pub obj_tables: u32,
    /// prepare: one loader per set, writing its objects in REF order
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub ordered_load: bool,
    /// prepare: make the HISTORY index (REF_OBJECT, HORDER) unique, as a primary key would be
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub hpk: bool,
    /// SEL1 queries (OBJECT, SECTION, ZONE) per event
    #[serde(rename = "SEL1")]
    #[arg(long = "SEL1", id = "SEL1", alias = "sel1", default_value_t = 1, value_parser = values::uint32)]
    pub sel1: u32,
    /// SEL2 queries (HISTORY with STAT, ordered) per event
    #[serde(rename = "SEL2")]
    #[arg(long = "SEL2", id = "SEL2", alias = "sel2", default_value_t = 1, value_parser = values::uint32)]
    pub sel2: u32,
    /// UPDATEs of one HISTORY row per writing event
    #[arg(long, default_value_t = 1, value_parser = values::uint32)]
    pub updates: u32,
    /// Writes on every Nth event only (1: every event writes)
    #[arg(long, default_value_t = 1, value_parser = values::positive32)]
    pub rw_ratio: u32,
    /// Each client draws its REFs from its own slice of the objects, so clients never lock the same rows
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub anti_dead: bool,
    /// One set and REF for every statement of an event (off: each statement draws its own)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub same_ref: bool,
}

/// The options dbSTRESS reads under the names other workloads declared.
#[derive(Clone, Debug)]
pub struct Shared {
    /// `--delete-inserts`, BMK's default 1 when not given.
    pub delete_inserts: u32,
    pub skip_trx: bool,
    pub for_update: bool,
    pub storage_engine: String,
    pub table_options: String,
    pub table_compression: String,
    pub load_mode: String,
    pub load_bulk_size: usize,
    pub trx_retry: bool,
    pub reconnect: u64,
}

impl Shared {
    pub fn read(a: &FamilyArgs) -> Result<Shared> {
        let c: CommonArgs = a.get()?;
        Ok(Shared {
            delete_inserts: a.given::<u32>("delete_inserts").unwrap_or(1),
            skip_trx: a.given::<bool>("skip_trx").unwrap_or(false),
            // BMK-kit's dbSTRESS locks only when asked: the shared default (1) does not apply.
            for_update: a.given::<u8>("for_update").is_some_and(|n| n > 0),
            storage_engine: c.mysql_storage_engine,
            table_options: c.create_table_options,
            table_compression: c.table_compression,
            load_mode: c.load_mode,
            load_bulk_size: c.load_bulk_size,
            trx_retry: c.trx_retry,
            reconnect: c.reconnect,
        })
    }
}
