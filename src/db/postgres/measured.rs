//! PostgreSQL's settings that change what a run measures (the audit's
//! `measured-setting-mismatch`).

use crate::db::measured::Measured;

pub const MEASURED: &[Measured] = &[
    Measured {
        name: "default_transaction_isolation",
        vars: &["default_transaction_isolation"],
        why: "the isolation level the run's sessions ran at: serialization failures and the snapshot each statement or transaction reads",
        flip: ["read committed", "repeatable read"],
    },
    Measured { name: "jit", vars: &["jit"], why: "JIT compilation of queries above jit_above_cost: compile time on each, faster execution of the long ones", flip: ["on", "off"] },
    Measured { name: "plan_cache_mode", vars: &["plan_cache_mode"], why: "whether prepared statements run a generic plan or are planned anew each time", flip: ["auto", "force_custom_plan"] },
    Measured { name: "track_io_timing", vars: &["track_io_timing"], why: "a clock read around every block read and write", flip: ["off", "on"] },
    Measured {
        name: "shared_preload_libraries",
        vars: &["shared_preload_libraries"],
        why: "the extensions loaded into every backend (pg_stat_statements times every statement)",
        flip: ["pg_stat_statements", ""],
    },
];
