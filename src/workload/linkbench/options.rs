//! Options of LinkBench. Its properties keys are fairbench options too
//! where fairbench has no option for the concept already: requesters is
//! `--threads`, requests `--events` (over all requesters), requestrate
//! `--rate` (over all requesters), maxtime `--time`, warmup_time
//! `--warmup-time`. An option given on the command line wins over `-c`
//! and `-D`, which win over LinkBench's defaults.

use crate::values;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "LinkBench")]
pub struct LinkbenchArgs {
    /// LinkBench properties file (e.g. LinkConfigMysql.properties); its workload_file is read too
    #[arg(short = 'c', long = "linkbench-config", value_name = "FILE")]
    pub linkbench_config: Option<PathBuf>,
    /// The request mix: fb2011 (LinkBench's FBWorkload) or mdc2017 (the maintained fork's)
    #[arg(long, default_value = "fb2011")]
    pub linkbench_mix: String,
    /// First node id (inclusive) [LinkBench default: 1]
    #[arg(long, value_parser = values::uint64)]
    pub startid1: Option<u64>,
    /// Node id to stop at (exclusive); 1000001 makes a 1M-node graph (~1 GB) [LinkBench default: 10000001]
    #[arg(long, value_parser = values::uint64)]
    pub maxid1: Option<u64>,
    /// prepare: parallel link loaders (plus one node loader) [LinkBench default: 10]
    #[arg(long, value_parser = values::positive32)]
    pub loaders: Option<u32>,
    /// prepare: node ids per loader chunk [LinkBench default: 2048]
    #[arg(long, value_parser = values::uint64)]
    pub loader_chunk_size: Option<u64>,
    /// Failed requests a requester tolerates before the run stops (negative: no limit) [LinkBench default: 100]
    #[arg(long, allow_hyphen_values = true)]
    pub max_failed_requests: Option<i64>,
    /// Databases (MySQL) or schemas (PostgreSQL) named PREFIX0.. hold the tables; empty: the target's own
    #[arg(long)]
    pub dbprefix: Option<String>,
    /// How many PREFIXn databases; requester i uses number i mod dbcount
    #[arg(long, value_parser = values::positive32)]
    pub dbcount: Option<u32>,
    /// prepare, MySQL-family: PARTITION BY KEY(id1) with this many partitions, as LinkBench's DDL (0: none)
    #[arg(long, default_value_t = 0, value_parser = values::uint32)]
    pub linkbench_partitions: u32,
    /// run: how writes talk to the server. java: as Java LinkBench's MySQL store (autocommit off; INSERT ... ON DUPLICATE KEY UPDATE; a write's last statement and its COMMIT in one round trip: ADD_LINK 2, node writes 1). locking: BEGIN, SELECT ... FOR UPDATE, INSERT or UPDATE, the count, COMMIT, each a round trip. [default: java on MySQL-family servers; locking on PostgreSQL and SQLite, which have no ON DUPLICATE KEY UPDATE]
    #[arg(long, value_name = "java|locking")]
    pub linkbench_shape: Option<String>,
    /// run: write LinkBench's per-operation statistics as CSV to this file
    #[arg(long)]
    pub csvstats: Option<PathBuf>,
    /// run: write per-interval, per-operation statistics as CSV to this file
    #[arg(long)]
    pub csvstream: Option<PathBuf>,
}

impl LinkbenchArgs {
    #[cfg(test)]
    pub fn default_for_tests() -> LinkbenchArgs {
        LinkbenchArgs {
            linkbench_config: None,
            linkbench_mix: "fb2011".into(),
            startid1: None,
            maxid1: None,
            loaders: None,
            loader_chunk_size: None,
            max_failed_requests: None,
            dbprefix: None,
            dbcount: None,
            linkbench_partitions: 0,
            linkbench_shape: None,
            csvstats: None,
            csvstream: None,
        }
    }
}
