//! `fairbench server ...` and `fairbench scenario ...` options.

use super::{StoreArgs, TargetArgs};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct ServerArgs {
    #[command(subcommand)]
    pub action: ServerAction,
}

#[derive(Subcommand, Debug, Clone)]
pub enum ServerAction {
    /// Start a throwaway server from the installed binaries or a build of the version asked;
    /// prints its --target URL
    Start(Box<ServerStartArgs>),
    /// Stop sandboxes (by name, port or directory) and remove what they made
    Stop {
        /// e.g. mariadb-13306, 13306, or the sandbox's directory
        names: Vec<String>,
        /// Stop every registered sandbox
        #[arg(long)]
        all: bool,
    },
    /// The running sandboxes
    List {
        /// Print JSON (the same as --format json)
        #[arg(long)]
        json: bool,
        /// text or json
        #[arg(long, value_name = "FORMAT", value_parser = crate::values::format_key, conflicts_with = "json")]
        format: Option<crate::output::FormatKey>,
    },
    /// Shell `export` lines of a sandbox (FAIRBENCH_SANDBOX_URL, _SOCKET, _PORT, _DIR; TiDB's _STATUS_PORT;
    /// a patroni cluster's _NODE_URLS, _API_PORTS, _ETCD_PORT, _PATRONICTL)
    Env {
        /// Name, port or directory
        name: String,
    },
    /// The configuration profiles; with a name, its file and its settings on this machine
    Profiles {
        name: Option<String>,
        /// Dataset size for the memory-fit profiles (e.g. 2G)
        #[arg(long)]
        data_size: Option<String>,
    },
}

#[derive(Args, Debug, Clone)]
pub struct ServerStartArgs {
    #[arg(value_name = "KIND", help = crate::server::Kind::names())]
    pub kind: String,
    /// Configuration profile (`fairbench server profiles` lists them)
    #[arg(long, default_value = "packaged")]
    pub profile: String,
    /// A server setting on top of the profile (repeatable): --set innodb_buffer_pool_size=1G;
    /// TiDB: a system variable, set with SET GLOBAL once it is up
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// TCP port on 127.0.0.1 (default: the first free from 13306 / 15432 / 14000; TiDB's
    /// status API on the port + 6080, or the next free one; patroni: 20 ports from it, the
    /// first free block from 16432)
    #[arg(long)]
    pub port: Option<u16>,
    /// Directory for data, socket and logs (default: under /tmp/fairbench-sandboxes)
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Account created for you
    #[arg(long, default_value = "fairbench")]
    pub user: String,
    /// Its password (a throwaway server's: it appears in the printed URL)
    #[arg(long, default_value = "fairbench")]
    pub password: String,
    /// Database created for you
    #[arg(long, default_value = "fairbench")]
    pub database: String,
    /// Dataset size the memory-fit profiles size the cache from (e.g. 2G)
    #[arg(long)]
    pub data_size: Option<String>,
    /// RAM to scale the profiles to (default: this machine's)
    #[arg(long)]
    pub ram: Option<String>,
    /// Cores to scale the profiles to (default: this machine's)
    #[arg(long)]
    pub cores: Option<usize>,
    /// Offer TLS with DIR/ca.pem, DIR/server.pem and DIR/server.key
    #[arg(long)]
    pub tls_dir: Option<PathBuf>,
    /// Also create this account (same password), allowed to connect only over TLS
    #[arg(long, requires = "tls_dir")]
    pub tls_only_user: Option<String>,
    /// Seconds the server may take to come up
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// Print `export` lines instead of the URL
    #[arg(long)]
    pub env: bool,
    /// postgres: this version's build, fetched once from the npm registry (a major such as 17,
    /// or a release such as 17.10) into the engine cache, its SHA-512 checked; pgbouncer: a
    /// release a suite of Debian's archive holds (1.24.1), built once from Debian's source of it
    #[arg(long = "version", value_name = "VERSION")]
    pub engine_version: Option<String>,
    /// mariadb, postgres, pgbouncer: the build in DIR (its bin/ folder) in place of the installed
    /// one
    #[arg(long, value_name = "DIR")]
    pub basedir: Option<PathBuf>,
    /// The options of one kind of sandbox, each kind's declared in its own
    /// file (last: their help headings are their own).
    #[command(flatten)]
    pub kind_args: crate::server::KindArgs,
}

#[derive(Args, Debug, Clone)]
pub struct ScenarioArgs {
    /// A scenario file (TOML), or `engines` for the built-in engine comparison (on
    /// sandboxes it starts itself: it uses no --target)
    pub file: String,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Rows of the built-in `engines` scenario's table
    #[arg(long, default_value_t = 1_000_000)]
    pub rows: u64,
    /// Engines of `engines`, comma-separated (default: every one this machine has):
    /// innodb, aria, myrocks, innodb-lz4, s3, postgres
    #[arg(long)]
    pub engines: Option<String>,
    /// Where generated CSV files go (default: a temp dir, removed afterwards)
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Print JSON (the same as --format json)
    #[arg(long)]
    pub json: bool,
    /// text or json
    #[arg(long, value_name = "FORMAT", value_parser = crate::values::format_key, conflicts_with = "json")]
    pub format: Option<crate::output::FormatKey>,
    /// Do not store the results
    #[arg(long)]
    pub no_save: bool,
}

/// `fairbench sweep`: the same runs on several versions of one engine.
#[derive(Args, Debug, Clone)]
pub struct SweepArgs {
    /// The engine whose versions are swept (postgres, mariadb, tidb), or a sweep file (TOML) holding these options
    pub engine: Option<String>,
    /// Versions, comma-separated, the base first: a version to fetch (17, 16.4), system (the
    /// installed build), a build's directory, or a running server's URL; a version given twice
    /// runs twice (17,17: an A/A sweep)
    #[arg(long, value_delimiter = ',')]
    pub versions: Vec<String>,
    /// The version the others are divided by (default: the first)
    #[arg(long)]
    pub base: Option<String>,
    /// A ready list of runs, as a published series runs them (Small Datum's sysbench microbenchmarks, his Insert Benchmark; a wrong name lists them)
    #[arg(long)]
    pub preset: Option<String>,
    /// The preset's runs to keep, by name, comma-separated
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// A run of its own: a workload and its options as after `fairbench run` (repeatable)
    #[arg(long = "workload", value_name = "WORKLOAD AND OPTIONS")]
    pub workloads: Vec<String>,
    /// `prepare`'s workload and options for --workload runs, run on each server first
    #[arg(long, value_name = "WORKLOAD AND OPTIONS")]
    pub prepare: Option<String>,
    /// Repetitions of each run on each version, alternated across the versions
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// The configuration profile of every server (`fairbench server profiles`)
    #[arg(long, default_value = "packaged")]
    pub profile: String,
    /// A server setting over the profile's, on every version (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Memory each server is sized for (default: this machine's, shared by the servers, which run side by side)
    #[arg(long)]
    pub ram: Option<String>,
    /// The sweep's name: its runs are stored with the tags NAME/VERSION/RUN (default: sweep-ENGINE-TIME)
    #[arg(long)]
    pub tag: Option<String>,
    /// Go on with the stored sweep of that name: its finished runs are kept, the others run
    #[arg(long, value_name = "NAME")]
    pub resume: Option<String>,
    /// Print the stored sweep's table; run nothing
    #[arg(long, value_name = "NAME")]
    pub show: Option<String>,
    /// The table as text, markdown or json
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = crate::values::compare_format)]
    pub format: crate::output::CompareFormat,
    /// Also write the table with one chart per run as an HTML page
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Seconds each server may take to start
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Options every prepare and run gets, after `--` (-- --time 60 --threads 4 --table-size 100000)
    #[arg(last = true, allow_hyphen_values = true, value_name = "RUN OPTIONS")]
    pub options: Vec<String>,
}
