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
    // Logging and tracing that cost on every statement.
    Measured { name: "log_statement", vars: &["log_statement"], why: "the server log gets every statement of the kinds named (all: every one the run makes)", flip: ["none", "all"] },
    Measured {
        name: "log_min_duration_statement",
        vars: &["log_min_duration_statement"],
        why: "every statement slower than this many ms is written to the server log (0: every statement; -1: none)",
        flip: ["-1", "0"],
    },
    Measured { name: "log_duration", vars: &["log_duration"], why: "the duration of every completed statement is written to the server log", flip: ["off", "on"] },
    Measured {
        name: "auto_explain.log_min_duration",
        vars: &["auto_explain.log_min_duration"],
        why: "auto_explain writes the plan of every statement slower than this many ms (0: every statement)",
        flip: ["-1", "0"],
    },
    Measured { name: "auto_explain.log_analyze", vars: &["auto_explain.log_analyze"], why: "auto_explain times every plan node of the statements it explains (EXPLAIN ANALYZE)", flip: ["off", "on"] },
    Measured { name: "track_functions", vars: &["track_functions"], why: "counts and times every call of the functions tracked", flip: ["none", "all"] },
    Measured { name: "pg_stat_statements.track", vars: &["pg_stat_statements.track"], why: "which statements pg_stat_statements times (all: nested ones too)", flip: ["top", "all"] },
];
