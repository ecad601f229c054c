//! Options of pgbench scripts, named as pgbench names them where no
//! fairbench option already holds the name. `--scale` is the one TPC-C
//! declared (sysbench-tpcc's name for its size); pgbench scripts read it back.

use clap::Args;
use serde::Serialize;

#[derive(Args, Clone, Debug, Serialize)]
#[command(next_help_heading = "pgbench scripts")]
pub struct PgscriptArgs {
    /// pgbench script to run, with an optional weight (FILE@W); repeat for a weighted mix (pgbench's -f)
    #[arg(long = "pgbench-script", short = 'f', value_name = "FILE[@W]")]
    pub pgbench_script: Vec<String>,
    /// pgbench built-in script (tpcb-like, simple-update, select-only), with an optional weight; repeatable (pgbench's -b)
    #[arg(long = "builtin", short = 'b', value_name = "NAME[@W]")]
    pub builtin: Vec<String>,
    /// How scripts send SQL: simple (text with values), extended (bound parameters), prepared (parsed once per connection); default: prepared, or simple with --db-ps-mode=disable (pgbench's -M)
    #[arg(long = "protocol", short = 'M', value_parser = ["simple", "extended", "prepared"])]
    pub protocol: Option<String>,
    /// A new connection after every transaction, counted in the reconnects (pgbench's -C; --reconnect N: after every N)
    #[arg(long = "connect", short = 'C')]
    pub connect: bool,
    /// prepare, PostgreSQL: pgbench_accounts in this many partitions, pgbench_accounts_1 to _N (pgbench -i --partitions; 0: none)
    #[arg(long = "partitions", value_name = "N", default_value_t = 0)]
    pub partitions: u32,
    /// prepare: how --partitions splits pgbench_accounts by aid: range (pgbench's default) or hash
    #[arg(long = "partition-method", value_name = "METHOD", default_value = "range", value_parser = ["range", "hash"])]
    pub partition_method: String,
    /// pgbench's own output besides fairbench's: progress lines in pgbench's format on stderr, and pgbench's report after the summary (set by `fairbench pgbench`)
    #[arg(long)]
    pub pgbench_output: bool,
    /// With --pgbench-output: progress lines stamped with the Unix time (pgbench's --progress-timestamp)
    #[arg(long)]
    pub progress_timestamp: bool,
    /// Before the run, as pgbench does unless -n: tables (VACUUM pgbench_branches and pgbench_tellers, TRUNCATE pgbench_history), all (pgbench_accounts too, -v) or none
    #[arg(long, value_name = "WHAT", default_value = "none", value_parser = ["none", "tables", "all"])]
    pub vacuum: String,
    /// Time each command of the scripts and count the errors at each: fairbench's summary lists them, and pgbench's report its statement latencies (pgbench's -r)
    #[arg(long)]
    pub report_per_command: bool,
}
