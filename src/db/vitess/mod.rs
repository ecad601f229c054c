//! Vitess: vtgate in front of a sharded keyspace of MySQL servers, each
//! behind a vttablet. vtgate speaks MySQL's protocol, so it is reached
//! with the MySQL client and writes MySQL's SQL; what differs is how the
//! cluster describes itself (cluster.rs, from SQL and the status APIs),
//! what its counters are (vars.rs, from vtgate's `/debug/vars`), what a
//! commit guarantees across shards and which errors it asks to retry
//! (spec.rs), and what only its control service changes (admin.rs).

/// Where Vitess's programs are taken from instead of PATH and the cache
/// (the sandbox's and vtctldclient for reference tables).
pub const BINDIR_VAR: &str = "FAIRBENCH_VITESS_BINDIR";

mod admin;
mod cluster;
pub mod spec;
mod vars;
