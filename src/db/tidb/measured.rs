//! TiDB's settings that change what a run measures (the audit's
//! `measured-setting-mismatch`); its transaction mode is a commit setting.

use crate::db::measured::Measured;

pub const MEASURED: &[Measured] = &[
    Measured {
        name: "transaction_isolation",
        vars: &["transaction_isolation", "tx_isolation"],
        why: "the isolation level the run's sessions ran at: what each read sees and which writes conflict",
        flip: ["REPEATABLE-READ", "READ-COMMITTED"],
    },
    Measured {
        name: "tidb_enable_prepared_plan_cache",
        vars: &["tidb_enable_prepared_plan_cache"],
        why: "the plan cache of prepared statements: planned once, or on every execution",
        flip: ["ON", "OFF"],
    },
    Measured { name: "tidb_enable_stmt_summary", vars: &["tidb_enable_stmt_summary"], why: "the statements summary records every statement the run makes", flip: ["ON", "OFF"] },
    Measured { name: "tidb_general_log", vars: &["tidb_general_log"], why: "the general log writes every statement the run makes", flip: ["OFF", "ON"] },
];
