//! Options of the TPC-H workload. The scale factor is TPC-H's own
//! `--scale-factor` (dbgen's `-s`); a whole number given as TPC-C's and
//! pgbench's `--scale` is taken as the scale factor too.

use crate::values::{self, parse_bool};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "TPC-H")]
pub struct TpchArgs {
    /// Scale factor, from 0.01 to 1000: 1 is dbgen's 1 GB (6 million order lines); default 1 (a whole --scale is taken too)
    #[arg(long = "scale-factor", alias = "sf", value_parser = scale_factor)]
    pub scale_factor: Option<f64>,
    /// Query streams of the throughput test (default: the spec's minimum for the scale factor, 2 at SF 1)
    #[arg(long, value_parser = values::positive32)]
    pub streams: Option<u32>,
    /// Which of the spec's tests run: power, throughput or both (power first, as the spec runs them)
    #[arg(long = "tests", default_value = "both", value_parser = tests)]
    pub tests: Tests,
    /// The queries to run, e.g. 1,6,14 (all: the 22; a subset gives no spec metric)
    #[arg(long, default_value = "all", value_parser = crate::workload::common::query_list)]
    pub queries: String,
    /// The refresh functions RF1 (new orders) and RF2 (their removal) beside the queries (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub refresh: bool,
    /// The spec's validation parameters in every query instead of qgen-style random ones (on|off)
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub validation_params: bool,
    /// Seed of the queries' substitution parameters (default: --rand-seed when given, else 1, so that two runs ask the same queries)
    #[arg(long, value_parser = values::uint64)]
    pub param_seed: Option<u64>,
    /// Cancel a query on the server once it has run this many seconds; the run goes on (0: no limit)
    #[arg(long, default_value_t = 0.0, value_parser = timeout)]
    pub query_timeout: f64,
    /// check: write each query's answer (validation parameters) to DIR/qN.out
    #[arg(long, value_name = "DIR")]
    pub save_answers: Option<PathBuf>,
    /// check: compare each query's answer with DIR/qN.out (saved with --save-answers from another server)
    #[arg(long, value_name = "DIR")]
    pub answers: Option<PathBuf>,
}

/// The spec's two tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tests {
    Power,
    Throughput,
    #[default]
    Both,
}

fn tests(s: &str) -> Result<Tests, String> {
    values::variant(s, true)
}

fn scale_factor(s: &str) -> Result<f64, String> {
    values::finite(s).filter(|v| (0.01..=1000.0).contains(v)).ok_or_else(|| "use a scale factor from 0.01 to 1000 (1 is dbgen's 1 GB)".to_string())
}

fn timeout(s: &str) -> Result<f64, String> {
    values::finite(s).filter(|v| (0.0..=values::MAX_SECONDS).contains(v)).ok_or_else(|| "use seconds, 0 or more (0: no limit)".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::common::query_numbers;

    #[test]
    fn queries_are_numbers_from_1_to_22_once_each() {
        assert_eq!(query_numbers("all").unwrap().len(), 22);
        assert_eq!(query_numbers("1, q6,Q14").unwrap(), vec![1, 6, 14]);
        assert!(query_numbers("0").unwrap_err().contains("'0' is no query"));
        assert!(query_numbers("23").is_err());
        assert!(query_numbers("3,3").unwrap_err().contains("twice"));
    }

    #[test]
    fn the_scale_factor_is_bounded() {
        assert_eq!(scale_factor("0.01"), Ok(0.01));
        assert!(scale_factor("0.001").is_err() && scale_factor("nan").is_err());
    }
}
