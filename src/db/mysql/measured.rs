//! MySQL's and MariaDB's settings that change what a run measures
//! (the audit's `measured-setting-mismatch`).

use crate::db::measured::Measured;

pub const MEASURED: &[Measured] = &[
    Measured {
        name: "transaction_isolation",
        vars: &["transaction_isolation", "tx_isolation"],
        why: "the isolation level the run's sessions ran at: what each read locks (gap and next-key locks under REPEATABLE-READ) and how long its snapshot is kept",
        flip: ["REPEATABLE-READ", "READ-COMMITTED"],
    },
    Measured { name: "query_cache_type", vars: &["query_cache_type"], why: "the query cache answers a repeated SELECT without running it", flip: ["OFF", "ON"] },
    Measured { name: "query_cache_size", vars: &["query_cache_size"], why: "how many results the query cache keeps", flip: ["1048576", "67108864"] },
    Measured { name: "innodb_adaptive_hash_index", vars: &["innodb_adaptive_hash_index"], why: "InnoDB's hash index over hot pages: point lookups skip the B-tree descent", flip: ["OFF", "ON"] },
    Measured {
        name: "innodb_deadlock_detect",
        vars: &["innodb_deadlock_detect"],
        why: "deadlock detection on every lock wait: on hot rows it is CPU, off it is a wait until the timeout",
        flip: ["ON", "OFF"],
    },
    Measured { name: "performance_schema", vars: &["performance_schema"], why: "performance_schema's instruments time every statement and wait the run makes", flip: ["ON", "OFF"] },
    Measured { name: "collation_server", vars: &["collation_server"], why: "the collation strings are compared and sorted in", flip: ["utf8mb4_general_ci", "utf8mb4_bin"] },
    Measured {
        name: super::spec::CONSUMERS,
        vars: &[super::spec::CONSUMERS],
        why: "performance_schema's consumers enabled: each history or current table beyond the defaults stores every statement, stage or wait the run makes",
        flip: ["global_instrumentation,statements_digest,thread_instrumentation", "events_waits_current,events_waits_history_long,global_instrumentation,statements_digest,thread_instrumentation"],
    },
    Measured {
        name: super::spec::INSTRUMENTS,
        vars: &[super::spec::INSTRUMENTS],
        why: "performance_schema's instruments enabled and timed: each timed one reads a clock around every event it sees",
        flip: ["354 enabled, 284 timed, of 995", "995 enabled, 995 timed, of 995"],
    },
    // Logging and tracing that cost on every statement.
    Measured { name: "general_log", vars: &["general_log"], why: "the general log writes every statement the run makes to a file or table", flip: ["OFF", "ON"] },
    Measured { name: "slow_query_log", vars: &["slow_query_log", "log_slow_query"], why: "the slow log times every statement and writes those above long_query_time", flip: ["OFF", "ON"] },
    Measured {
        name: "long_query_time",
        vars: &["long_query_time", "log_slow_query_time"],
        why: "the slow log's threshold: at 0, with the slow log on, every statement is written",
        flip: ["10.000000", "0.000000"],
    },
    Measured {
        name: "log_queries_not_using_indexes",
        vars: &["log_queries_not_using_indexes"],
        why: "the slow log also writes every statement that reads without an index, whatever its time",
        flip: ["OFF", "ON"],
    },
    Measured { name: "optimizer_trace", vars: &["optimizer_trace"], why: "the optimizer traces the plan of every statement into the session's trace", flip: ["enabled=off", "enabled=on"] },
];
