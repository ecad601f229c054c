//! Scenarios: a file of timed steps (generate a CSV, import it, SQL and DDL,
//! a query repeated K times, table sizes, a pause) run against one target,
//! each step timed and stored; and the built-in `engines` scenario that
//! runs the same steps on several storage engines side by side.
//!
//! Statements run on one connection per target, fairbench's own (`Conn`, as
//! the benchmarks use), opened before the first step: a step's time is its
//! statements' round trips, no process start or connection in it. Imports
//! alone go through the server's command-line client (`LOAD DATA LOCAL
//! INFILE`, `\copy`): the bulk paths of `db` load generated typed rows, not
//! a CSV file as the server parses it; the client's start is measured once
//! and reported beside them.

mod client;
mod csv;
mod file;
pub mod minio;
mod run;
pub mod storage_engines;
mod store;
mod table;

pub use client::*;
pub(crate) use csv::*;
pub use file::*;
pub use run::*;
pub use store::*;
pub use table::*;

use serde::{Deserialize, Serialize};

/// What one step measured.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct StepResult {
    pub step: String,
    pub kind: String,
    /// Wall time, seconds (a repeated query: one entry per run).
    pub seconds: Vec<f64>,
    /// Rows returned (query) or loaded (import, generate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// A checksum of a query's result, so that engines can be seen to agree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Sizes in bytes by what was measured (data, index, files, object store ...).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub sizes: Vec<(String, u64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One column of results: a target, or an engine of `engines`.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Column {
    pub name: String,
    /// The command-line client's start and connection, included in every
    /// import's time (the fastest of three `SELECT 1`); absent when no step
    /// imports (every other statement runs on the connection opened before
    /// the steps).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client_overhead_s: Option<f64>,
    pub steps: Vec<StepResult>,
    /// Why the column stopped (the failed step) or could not run at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Why the column could not run at all (an engine this machine lacks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// The whole outcome, as printed, exported and stored.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Report {
    pub scenario: String,
    pub target: String,
    pub started: String,
    pub columns: Vec<Column>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
}
