//! TiDB: a distributed SQL engine that speaks MySQL's protocol, so it is
//! reached with the MySQL client and writes MySQL's SQL; what differs is
//! how it describes itself, what it guarantees, which errors it asks to
//! retry and which statements it lacks (spec.rs, screen.rs).

mod digests;
mod measured;
mod screen;
pub mod spec;
