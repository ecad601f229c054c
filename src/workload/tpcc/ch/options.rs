//! Options of CH-benCHmark's analytic side; the transactional side is
//! TPC-C's, with TPC-C's options.

use crate::values::{self, parse_bool};
use clap::Args;
use serde::Serialize;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "CH-benCHmark")]
pub struct ChArgs {
    /// Analytic query streams run beside the TPC-C clients (each its own connection, queries back to back)
    #[arg(long, default_value_t = 1, value_parser = values::positive32)]
    pub analytic_streams: u32,
    /// The analytic queries each stream cycles through: all, or numbers from 1 to 22 (e.g. 1,6,14)
    #[arg(long, default_value = "all", value_parser = crate::workload::common::query_list)]
    pub analytic_queries: String,
    /// End the mixed phase once every stream has run its queries this many times (0: at --time)
    #[arg(long, default_value_t = 0)]
    pub analytic_rounds: u32,
    /// Run the analytic streams on another server holding the same data (a replica), as a URL like --target's
    #[arg(long)]
    pub analytic_target: Option<String>,
    /// Run TPC-C alone first for as long, to measure what the queries cost the transactions (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub alone_phase: bool,
}
