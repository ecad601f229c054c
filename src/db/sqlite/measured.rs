//! SQLite's settings that change what a run measures (the audit's
//! `measured-setting-mismatch`); synchronous and the journal are durability.

use crate::db::measured::Measured;

pub const MEASURED: &[Measured] = &[
    Measured { name: "locking_mode", vars: &["locking_mode"], why: "EXCLUSIVE keeps the file's lock between transactions: no lock taken and released on each", flip: ["normal", "exclusive"] },
    Measured { name: "temp_store", vars: &["temp_store"], why: "where sorts and temporary tables go: a file or memory", flip: ["0", "2"] },
    Measured { name: "mmap_size", vars: &["mmap_size"], why: "reads through a memory map instead of read calls", flip: ["0", "268435456"] },
];
