//! Command line: raw clap options, then a validated plan. Accepts sysbench's
//! spellings (`--table_size` as well as `--table-size`, and the
//! `sysbench TEST [options] COMMAND` order) and BMK-kit labels in place of a
//! workload name.

mod bench_args;
pub mod server_args;
mod target_args;

use crate::values;
use crate::workload::plan::BenchCommand;
pub use bench_args::{plan, BenchArgs};
use clap::parser::ValueSource;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
pub use server_args::{ScenarioArgs, ServerAction, ServerArgs, ServerStartArgs, SweepArgs};
use std::path::PathBuf;
pub use target_args::TargetArgs;

#[derive(Parser, Debug)]
#[command(name = "fairbench", version = crate::VERSION, about = "Fair, exact database benchmarks on MySQL-family servers, PostgreSQL and SQLite", long_about = None, after_help = FIRST_STEPS)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// The top-level help's last words: where a run goes without --target, and a first session.
const FIRST_STEPS: &str = "\
Without --target, workloads run on an embedded SQLite file, ./fairbench.sqlite, and every run is
stored in ./fairbench-results.sqlite. A first session:
  fairbench run                       the default workload, 1 thread, 10 s
  fairbench run --threads 4 --time 30
  fairbench results list              the stored runs
  fairbench compare last-1 last       the last two side by side, with the fairness audit
  fairbench report last-1 last        both as one HTML page (report.html)
  fairbench run --target mysql://USER:PASSWORD@HOST:3306/DB   the same on a server
Other tools' command lines work as typed: sysbench's, and pgbench's as fairbench pgbench -c 4 -T 30 -S DB.
fairbench COMMAND --help says more; docs/usage.md lists the workloads and options.";

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Run a workload (prepares the tables first when they are missing)
    Run(BenchArgs),
    /// Create and load the tables
    Prepare(BenchArgs),
    /// Drop the tables
    Cleanup(BenchArgs),
    /// Read the tables into the server's cache
    Prewarm(BenchArgs),
    /// Check the data's consistency (TPC-C conditions); exit 5 when one fails
    Check(BenchArgs),
    /// A workload's load phase, as its own tool runs it, where it has one; others load with prepare
    #[command(long_about = "A workload's load phase, as its own tool runs it, for a workload that has \
        one: the records go in through the workload's insert operations, timed as a run, with the \
        tool's own options (fairbench load WORKLOAD -P FILE -threads 4 --target URL; `fairbench run \
        --help` lists the workloads). `prepare` loads the same records in bulk instead. A workload \
        without a load phase loads its tables with prepare.")]
    Load {
        /// The workload (or a label of it) and its tool's options
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "WORKLOAD AND OPTIONS")]
        args: Vec<String>,
    },
    /// Decode a BMK-kit label, or say what `run` does with a workload and options
    Explain {
        /// e.g. OLTP_RW-10Mx8tab-uniform-ps-trx, sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh, or a workload name (ycsb)
        label: String,
        /// `run`'s options to explain with it (fairbench explain oltp_read_write --db-ps-mode=disable)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "RUN OPTIONS")]
        options: Vec<String>,
    },
    /// List, show, export or delete stored runs
    Results(ResultsArgs),
    /// Print the environment snapshot of a target now (server settings, client host)
    Env(EnvArgs),
    /// Audit stored runs for unfair settings and suspicious measurements
    Audit(AuditArgs),
    /// Compare stored runs or sweeps side by side (also across engines)
    Compare(CompareArgs),
    /// Throwaway servers with configuration profiles: MariaDB, PostgreSQL, TiDB, Patroni, Vitess, and pgbouncer in front of PostgreSQL
    Server(ServerArgs),
    /// Run a file of timed steps (generate, import, SQL, queries, sizes), or the built-in `engines`
    Scenario(ScenarioArgs),
    /// Write stored runs or sweeps as one self-contained HTML page with charts
    Report(ReportArgs),
    /// The same runs on several versions of an engine, alternated, as a table relative to the base version
    Sweep(SweepArgs),
    /// Add the --hdr-log files of a group's members into one result (stored like a run)
    Merge(MergeArgs),
    /// `check writes FILE`: read back the writes a --verify-writes run recorded in FILE
    #[command(name = "check-writes", hide = true)]
    CheckWrites(CheckWritesArgs),
    /// Print the shell's completion script (bash: fairbench completions bash > /etc/bash_completion.d/fairbench)
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// Write a man page for fairbench and each of its commands into a directory
    Man {
        /// Where fairbench.1, fairbench-run.1 ... go (created if missing)
        dir: PathBuf,
    },
}

#[derive(Args, Debug, Clone)]
pub struct CheckWritesArgs {
    /// The write log a run with --verify-writes wrote
    pub file: PathBuf,
    #[command(flatten)]
    pub target: TargetArgs,
    /// text or json (one JSON object)
    #[arg(long, default_value = "text", value_parser = values::output)]
    pub output: crate::output::ConsoleFormat,
    /// Results store to keep the verdict in, with the run that wrote the
    /// log (default: the store that run was recorded in)
    #[arg(long)]
    pub results: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// The members' --hdr-log files
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Do not record the merged result in the results store
    #[arg(long)]
    pub no_save: bool,
    /// Free text stored with the merged result
    #[arg(long, default_value = "")]
    pub tag: String,
}

#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// Results store (SQLite file)
    #[arg(long, global = true, default_value = crate::model::record::DEFAULT_STORE_PATH)]
    pub results: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct ResultsArgs {
    #[command(subcommand)]
    pub action: ResultsAction,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Subcommand, Debug, Clone)]
pub enum ResultsAction {
    /// One line per stored run
    List {
        /// text or json
        #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = values::format_key)]
        format: crate::output::FormatKey,
    },
    /// A run in full: options, environment, levels, intervals, findings
    Show {
        /// Run id, last or last-N
        run: String,
    },
    /// Runs as JSON, or as CSV with --csv (all runs when none is named)
    Export {
        runs: Vec<String>,
        /// JSON (the default)
        #[arg(long, default_value_t = true)]
        json: bool,
        /// CSV: one row per interval and one per level summary (columns in docs/results.md)
        #[arg(long, conflicts_with = "json")]
        csv: bool,
        /// json or csv (--json and --csv say the same)
        #[arg(long, value_name = "FORMAT", value_parser = values::format_key, conflicts_with = "csv")]
        format: Option<crate::output::FormatKey>,
    },
    /// Browse the store in a web browser: list, reports, comparisons (read-only)
    Serve {
        /// HOST:PORT, or a port (loopback)
        #[arg(long, default_value = "127.0.0.1:8088", value_parser = values::listen_addr)]
        addr: std::net::SocketAddr,
    },
    /// Delete runs
    Delete {
        #[arg(required = true)]
        runs: Vec<String>,
    },
    /// Where stored series changed: change points (E-Divisive with means) in each label's
    /// throughput or p99, in the order of the runs or of the server's version
    Changes {
        /// tps or p99
        #[arg(long, default_value = "tps", value_parser = ["tps", "p99"])]
        metric: String,
        /// Only this label's runs (default: every label with 4 runs or more)
        #[arg(long)]
        label: Option<String>,
        /// Order the runs by time (as they ran) or by the server's version
        #[arg(long, default_value = "time", value_parser = ["time", "version"])]
        by: String,
        /// Changes smaller than this are not reported (5%, 2.5)
        #[arg(long, value_name = "PERCENT", default_value = "2%", value_parser = values::threshold)]
        min_change: f64,
        /// The p-value a change must be under (a permutation test of 999 shuffles)
        #[arg(long, default_value_t = 0.01, value_parser = values::alpha)]
        alpha: f64,
        /// Exit 1 when the newest run is in a segment worse than the one before by more than
        /// this (a CI gate over the series)
        #[arg(long, value_name = "PERCENT", value_parser = values::threshold)]
        fail_on_regression: Option<f64>,
        /// Print JSON (the same as --format json)
        #[arg(long)]
        json: bool,
        /// text or json
        #[arg(long, value_name = "FORMAT", value_parser = values::format_key, conflicts_with = "json")]
        format: Option<crate::output::FormatKey>,
    },
}

#[derive(Args, Debug, Clone)]
pub struct EnvArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Table name prefix whose size counts as the dataset
    #[arg(long, default_value = "sbtest", value_parser = crate::values::table_base)]
    pub table_name: String,
    /// Print JSON (--format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// text or json
    #[arg(long, value_name = "FORMAT", value_parser = values::format_key)]
    pub format: Option<crate::output::FormatKey>,
}

#[derive(Args, Debug, Clone)]
pub struct AuditArgs {
    /// Run ids (or last, last-N); several are also checked against each other
    #[arg(required = true)]
    pub runs: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Print JSON (--format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// text or json
    #[arg(long, value_name = "FORMAT", value_parser = values::format_key)]
    pub format: Option<crate::output::FormatKey>,
    /// Exit with code 5 when a finding of this severity or worse is found: critical, warning, never
    #[arg(long, default_value = "never", value_parser = values::fail_on)]
    pub fail_on: String,
}

#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Run ids (or last, last-N, tag:NAME for every run with that --tag as one series); the first is the baseline unless --baseline names one
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// The baseline: a stored run (id, last, last-N, tag:NAME) or a file `results export` wrote
    #[arg(long, value_name = "RUN|FILE")]
    pub baseline: Option<String>,
    /// Exit 1 when a run is significantly worse than the baseline by more than this (5%, 2.5)
    #[arg(long, value_name = "PERCENT", value_parser = values::threshold)]
    pub max_regression: Option<f64>,
    /// What --max-regression judges: throughput, p99, or both
    #[arg(long, value_name = "METRIC", default_value = "both", value_parser = values::gate_metric)]
    pub metric: String,
    /// text, markdown (a table for CI job summaries) or json
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = values::compare_format)]
    pub format: crate::output::CompareFormat,
    /// Also write a JUnit XML report: one test case per level and metric
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Run ids (or last, last-N, tag:NAME for every run with that --tag as one series); several are compared, the first is the baseline
    #[arg(required = true)]
    pub runs: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// The HTML file to write
    #[arg(short = 'o', long, default_value = "report.html")]
    pub output: PathBuf,
    /// Also write every chart as its own SVG and PNG into this directory
    #[arg(long)]
    pub charts: Option<PathBuf>,
}

/// The values of every `--target` on the command line.
pub fn targets(argv: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        if a == "--target" {
            out.extend(it.next().cloned());
        } else if let Some(v) = a.strip_prefix("--target=") {
            out.push(v.to_string());
        }
    }
    out
}

/// `argv` without the options named (each as `--name V` or `--name=V`).
pub fn without(argv: &[String], names: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in argv {
        if skip {
            skip = false;
            continue;
        }
        if names.contains(&a.as_str()) {
            skip = true;
        } else if !names.iter().any(|n| a.starts_with(&format!("{n}="))) {
            out.push(a.clone());
        }
    }
    out
}

/// The command line of each configuration a `run` alternates: one per
/// `--target` when there are several (`run --target A --target B`), else
/// the command line as it is.
pub fn configurations(argv: &[String]) -> Vec<Vec<String>> {
    let targets = targets(argv);
    if targets.len() < 2 {
        return vec![argv.to_vec()];
    }
    let rest = without(argv, &["--target"]);
    targets
        .into_iter()
        .map(|t| {
            let mut v = rest.clone();
            v.extend(["--target".to_string(), t]);
            v
        })
        .collect()
}

/// sysbench writes options with '_' and puts the command last; accept both.
pub fn normalize_argv(argv: Vec<String>) -> Vec<String> {
    let mut v: Vec<String> = argv
        .into_iter()
        .map(|a| {
            if let Some(rest) = a.strip_prefix("--") {
                let (name, val) = match rest.split_once('=') {
                    Some((n, v)) => (n.replace('_', "-"), Some(v.to_string())),
                    None => (rest.replace('_', "-"), None),
                };
                match val {
                    Some(v) => format!("--{name}={v}"),
                    None => format!("--{name}"),
                }
            } else {
                a
            }
        })
        .collect();
    const CMDS: &[&str] = &["run", "prepare", "cleanup", "prewarm", "check", "check-writes", "explain", "help", "results", "env", "audit", "compare", "server", "scenario", "report", "merge"];
    if v.len() > 2 && !CMDS.contains(&v[1].as_str()) && !v[1].starts_with('-') {
        if let Some(pos) = v.iter().skip(2).position(|a| CMDS.contains(&a.as_str())) {
            let cmd = v.remove(pos + 2);
            v.insert(1, cmd);
        }
    }
    v
}

/// The command line's definition. Every option that takes a value also takes
/// a negative number as that value, so `--threads -1` reaches the option's own
/// check (one line saying what it accepts) instead of clap's advice to write
/// `-- -1`, which would not help.
pub fn command() -> clap::Command {
    let cmd = negatives_as_values(Cli::command());
    // COLUMNS=0 is fairbench's "no limit" for its tables; clap would wrap the help at zero
    // columns, so the help keeps clap's own widest.
    if crate::columns::width() == usize::MAX {
        cmd.term_width(100)
    } else {
        cmd
    }
}

fn negatives_as_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| if a.get_action().takes_values() { a.allow_negative_numbers(true) } else { a }).mut_subcommands(negatives_as_values)
}

/// The one line a command-line error prints (after "fairbench: "): the
/// option, the value it got and what it accepts, e.g.
/// `--threads=-1: use a thread count from 1 to 100000, ...`. clap's own
/// rendering adds a usage block and tips over several lines.
pub fn error_line(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg).map(|a| a.split([' ', '=']).next().unwrap_or_default().to_string());
    let value = text(ContextKind::InvalidValue).map(|v| crate::error::one_line(&v).into_owned());
    match (e.kind(), arg, value) {
        (ErrorKind::ValueValidation, Some(arg), Some(value)) => {
            let why = std::error::Error::source(e).map(|s| s.to_string()).unwrap_or_else(|| "invalid value".into());
            format!("{arg}={value}: {}", why.replace('\n', " "))
        }
        (ErrorKind::InvalidValue, Some(arg), Some(value)) => match e.get(ContextKind::ValidValue) {
            Some(ContextValue::Strings(valid)) if !value.is_empty() => format!("{arg}={value}: use {}", valid.join(", ")),
            _ => format!("{arg} needs a value"),
        },
        (ErrorKind::MissingRequiredArgument, _, _) => match e.get(ContextKind::InvalidArg) {
            Some(ContextValue::Strings(missing)) => format!("missing {}: see fairbench help", missing.join(", ")),
            _ => "a required argument is missing: see fairbench help".into(),
        },
        _ => {
            let rendered = e.render().to_string();
            let first = rendered.lines().find(|l| !l.trim().is_empty()).unwrap_or("bad command line");
            let mut line = first.strip_prefix("error: ").unwrap_or(first).to_string();
            if let Some(s) = text(ContextKind::SuggestedArg) {
                line.push_str(&format!(": did you mean '{s}'?"));
            } else if let Some(ContextValue::Strings(s)) = e.get(ContextKind::SuggestedSubcommand) {
                line.push_str(&format!(": did you mean '{}'?", s.join("' or '")));
            } else if matches!(e.kind(), ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand | ErrorKind::MissingSubcommand) {
                line.push_str(": see fairbench help");
            }
            line
        }
    }
}

/// Command-line arguments as text. One that is not valid UTF-8 is an error
/// naming it (escaped), not a panic: options, labels and URLs are all text.
pub fn args_utf8(args: impl IntoIterator<Item = std::ffi::OsString>) -> std::result::Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for a in args {
        match a.into_string() {
            Ok(s) => out.push(s),
            Err(raw) => {
                let after = match out.last() {
                    Some(prev) if out.len() > 1 && prev.starts_with("--") && !prev.contains('=') => format!(" (after {prev})"),
                    _ => String::new(),
                };
                return Err(format!("argument {}{after} is not valid UTF-8: give options, labels, URLs and paths as UTF-8 text", raw.as_encoded_bytes().escape_ascii()));
            }
        }
    }
    Ok(out)
}

/// Parse argv into a command. Labels are decoded here: their settings are
/// added as options unless the user gave the same option explicitly with a
/// different value, which is an error naming both.
pub fn parse(argv: Vec<String>) -> std::result::Result<Cli, clap::Error> {
    let argv = crate::workload::family::tool_command_line(argv).map_err(|e| label_error(clap::error::ErrorKind::InvalidValue, e))?;
    let argv = check_writes_form(argv);
    let (argv, warnings) = sysbench_forms(argv)?;
    for w in warnings {
        eprintln!("WARNING: {w}");
    }
    let argv = own_command_line(argv)?;
    let given = workload_given(&argv);
    let mut cli = parse_args(argv.clone()).map_err(|e| workload_without_command(&argv, e))?;
    if let Cmd::Run(a) | Cmd::Prepare(a) | Cmd::Cleanup(a) | Cmd::Prewarm(a) | Cmd::Check(a) = &mut cli.cmd {
        a.workload_given = given;
    }
    Ok(cli)
}

/// `check writes FILE ...` reads a write log, not a workload's tables: it
/// is its own command (`check-writes`), written as two words.
fn check_writes_form(mut argv: Vec<String>) -> Vec<String> {
    if argv.len() > 2 && argv[1] == "check" && argv[2] == "writes" {
        argv.remove(2);
        argv[1] = "check-writes".into();
    }
    argv
}

/// sysbench's deprecated options and what replaces each. sysbench warns and
/// copies the value when it is above 0, and ignores the option otherwise.
const DEPRECATED: &[(&str, &str)] = &[("max-time", "time"), ("max-requests", "events"), ("tx-rate", "rate"), ("num-threads", "threads")];

/// The option's name (`_` read as `-`) and its value, when written
/// `--name=value` or `--name value`; `next` is the argument after it.
fn option_at<'a>(a: &'a str, next: Option<&'a String>) -> Option<(String, Option<&'a str>, bool)> {
    let rest = a.strip_prefix("--")?;
    Some(match rest.split_once('=') {
        Some((n, v)) => (n.replace('_', "-"), Some(v), false),
        None => (rest.replace('_', "-"), next.map(String::as_str).filter(|v| !v.starts_with("--")), true),
    })
}

/// Rewrites sysbench's command-line forms that are not fairbench options
/// into the ones that are, with the warnings to print:
/// - `--config-file=FILE`: its `name=value` lines (sysbench's format: `#`
///   starts a comment, values may be quoted) become options in its place;
///   an option also given on the command line keeps the command line's value;
/// - the deprecated `--max-time`, `--max-requests`, `--tx-rate` and
///   `--num-threads`: sysbench's warning, then the option they stand for;
/// - the deprecated `--test=NAME`: the workload named in place.
pub fn sysbench_forms(argv: Vec<String>) -> std::result::Result<(Vec<String>, Vec<String>), clap::Error> {
    let mut out = Vec::with_capacity(argv.len());
    let mut warnings = Vec::new();
    let mut replaced: Vec<(&str, String)> = Vec::new();
    let given: Vec<String> = argv.iter().filter_map(|a| option_at(a, None).map(|o| o.0)).collect();
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        let Some((name, value, spaced)) = option_at(a, argv.get(i)) else {
            out.push(a.clone());
            continue;
        };
        let take = |i: &mut usize| {
            if spaced && value.is_some() {
                *i += 1;
            }
        };
        if name == "config-file" {
            let Some(file) = value else { return Err(label_error(clap::error::ErrorKind::InvalidValue, "--config-file needs a file name")) };
            take(&mut i);
            let text = std::fs::read_to_string(file).map_err(|e| label_error(clap::error::ErrorKind::Io, format!("--config-file={file}: {e}")))?;
            for (n, v) in config_lines(&text).map_err(|e| label_error(clap::error::ErrorKind::InvalidValue, format!("--config-file={file}: {e}")))? {
                if !given.contains(&n.replace('_', "-")) {
                    out.push(format!("--{n}={v}"));
                }
            }
        } else if name == "test" {
            let Some(test) = value else { return Err(label_error(clap::error::ErrorKind::InvalidValue, "--test needs a workload name")) };
            take(&mut i);
            warnings.push("the --test option is deprecated. You can pass a script name or path on the command line without any options.".to_string());
            out.insert(1.min(out.len()), test.to_string());
        } else if let Some((_, new)) = DEPRECATED.iter().find(|(old, _)| *old == name) {
            take(&mut i);
            let v = value.unwrap_or_default();
            if v.trim().parse::<f64>().is_ok_and(|n| n > 0.0) {
                warnings.push(format!("--{name} is deprecated, use --{new} instead"));
                replaced.push((new, v.to_string()));
            }
        } else {
            out.push(a.clone());
        }
    }
    // As in sysbench, the deprecated option's value wins over its replacement's.
    for (new, v) in replaced {
        let mut kept = Vec::with_capacity(out.len());
        let mut j = 0;
        while j < out.len() {
            match option_at(&out[j], out.get(j + 1)) {
                Some((n, value, spaced)) if n == *new => j += if spaced && value.is_some() { 2 } else { 1 },
                _ => {
                    kept.push(out[j].clone());
                    j += 1;
                }
            }
        }
        out = kept;
        out.push(format!("--{new}={v}"));
    }
    Ok((out, warnings))
}

/// The `name=value` lines of a sysbench config file.
fn config_lines(text: &str) -> std::result::Result<Vec<(String, String)>, String> {
    let mut v = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some((name, rest)) = line.split_once('=') else { continue };
        let name = name.trim().trim_start_matches("--");
        if name.is_empty() || name.starts_with('#') {
            continue;
        }
        let rest = rest.trim_start();
        let value = match rest.chars().next() {
            Some(q @ ('\'' | '"')) => match rest[1..].find(q) {
                Some(end) => rest[1..1 + end].to_string(),
                None => return Err(format!("line {}: the quote is not closed", n + 1)),
            },
            _ => rest.split('#').next().unwrap_or_default().trim().to_string(),
        };
        v.push((name.to_string(), value));
    }
    Ok(v)
}

/// Whether a run / prepare / ... command line names its workload (the
/// parsed struct cannot tell a given default from a default).
fn workload_given(argv: &[String]) -> bool {
    let Ok(m) = command().try_get_matches_from(normalize_argv(argv.to_vec())) else { return false };
    m.subcommand().is_some_and(|(_, sm)| sm.try_get_raw("workload").is_ok() && sm.value_source("workload") == Some(ValueSource::CommandLine))
}

fn parse_args(argv: Vec<String>) -> std::result::Result<Cli, clap::Error> {
    let argv = normalize_argv(argv);
    let matches = command().try_get_matches_from(&argv)?;
    let (sub, sm) = match matches.subcommand() {
        Some((s, m)) => (s.to_string(), m.clone()),
        None => return Cli::from_arg_matches(&matches),
    };
    if !BenchCommand::ALL.iter().any(|c| c.name() == sub) {
        return Cli::from_arg_matches(&matches);
    }
    let wl: String = sm.get_one::<String>("workload").cloned().unwrap_or_default();
    let scripted = crate::workload::family::own_command_line(&wl);
    if scripted || !crate::workload::family::looks_like_label(&wl) {
        return Cli::from_arg_matches(&matches);
    }
    let decoded = crate::workload::family::parse_label(&wl).map_err(|e| label_error(clap::error::ErrorKind::ValueValidation, e.to_string()))?;
    let mut extra = Vec::new();
    for (name, value) in &decoded.options {
        let id = name.replace('-', "_");
        let explicit = sm.try_get_raw(&id).ok().flatten().is_some() && sm.value_source(&id) == Some(ValueSource::CommandLine);
        if explicit {
            let given: Vec<String> = sm.get_raw(&id).map(|v| v.map(|s| s.to_string_lossy().into_owned()).collect()).unwrap_or_default();
            let given = given.join(",");
            if !same_value(&given, value) {
                return Err(label_error(clap::error::ErrorKind::ArgumentConflict, format!("label '{wl}' sets --{name}={value} but the command line says --{name}={given}: drop one of them")));
            }
        } else if command().find_subcommand(&sub).map(|c| c.get_arguments().any(|a| a.get_id() == id.as_str())).unwrap_or(false) {
            extra.push(format!("--{name}={value}"));
        } else {
            return Err(label_error(clap::error::ErrorKind::ValueValidation, format!("label '{wl}' needs --{name}, which the {} workload does not support yet", decoded.workload)));
        }
    }
    // Replace the label by the workload name it stands for.
    let mut v = argv.clone();
    if let Some(p) = v.iter().position(|a| *a == wl) {
        v[p] = decoded.workload.clone();
    }
    if decoded.command != "run" && sub == "run" {
        v[1] = decoded.command.clone();
    }
    v.extend(extra);
    let mut cli = Cli::from_arg_matches(&command().try_get_matches_from(&v)?)?;
    if let Cmd::Run(a) | Cmd::Prepare(a) | Cmd::Cleanup(a) | Cmd::Prewarm(a) | Cmd::Check(a) = &mut cli.cmd {
        a.target.label = Some(wl);
    }
    Ok(cli)
}

/// The commands clap knows for a workload; any other command a workload
/// defines itself runs under `run` with `--script-command`.
const BENCH_COMMANDS: &[&str] = &["run", "prepare", "cleanup", "prewarm", "check"];

/// Rewrites the command line of a workload that declares its own options
/// and commands (a script): `fairbench SCRIPT [options] COMMAND` and
/// `fairbench COMMAND SCRIPT [options]` both become
/// `fairbench SUB SCRIPT [fairbench options] --script-command=COMMAND
/// --script-option=...`. fairbench's own run-control, target and
/// random-number options stay fairbench's (the script sees them in its
/// options too); every other option, including one a native family declares
/// under the same name (`--tables`), is the script's, checked by the
/// script's own declarations.
///
/// A script option takes `--name=value`, a bare `--name` (on, for a
/// boolean) or `--name value`. Only the script's declarations tell whether
/// the word after a bare `--name` is its value (`--tables 2`) or the
/// command (`--skip_trx run`), so such a word is handed on among the
/// script's options, right after its option, and the script decides. When
/// every word that could be the command follows a bare option, the command
/// is left empty for the script to find (the subcommand is then a guess
/// the script corrects). Any word not starting with `--` counts as a word,
/// so a negative number (`--offset -5`) is a value, as in sysbench, where
/// only `--` starts an option.
fn own_command_line(argv: Vec<String>) -> std::result::Result<Vec<String>, clap::Error> {
    let is_script = |a: &String| !a.starts_with('-') && crate::workload::family::own_command_line(a);
    let Some(si) = argv.iter().skip(1).position(is_script).map(|i| i + 1) else { return Ok(argv) };
    let run = command().find_subcommand("run").cloned().unwrap_or_else(|| clap::Command::new("run"));
    let family_ids: Vec<String> = crate::workload::family::FamilyArgs::augment_args(clap::Command::new("f")).get_arguments().map(|a| a.get_id().to_string()).collect();
    let generic = |name: &str| run.get_arguments().find(|a| a.get_long() == Some(name) && !family_ids.iter().any(|f| f == a.get_id().as_str()));
    let mut own = Vec::new();
    let mut script_opts = Vec::new();
    // Words that can only be the command, and words after a bare script
    // option that may be its value or the command.
    let mut commands = Vec::new();
    let mut maybe = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if i - 1 == si {
            continue;
        }
        let Some(rest) = a.strip_prefix("--") else {
            commands.push(a.clone());
            continue;
        };
        let (name, has_value) = match rest.split_once('=') {
            Some((n, _)) => (n.replace('_', "-"), true),
            None => (rest.replace('_', "-"), false),
        };
        if name == "help" {
            commands.push("help".into());
        } else if let Some(arg) = generic(&name) {
            own.push(a.clone());
            if !has_value && arg.get_action().takes_values() && i < argv.len() {
                own.push(argv[i].clone());
                i += 1;
            }
        } else {
            script_opts.push(format!("--script-option={a}"));
            if !has_value && i < argv.len() && i != si && !argv[i].starts_with("--") {
                script_opts.push(format!("--script-option={}", argv[i]));
                maybe.push(argv[i].clone());
                i += 1;
            }
        }
    }
    let script = &argv[si];
    let (command, sub) = match (commands.len(), maybe.is_empty()) {
        (1, _) => {
            let c = commands.remove(0);
            let sub = if BENCH_COMMANDS.contains(&c.as_str()) { c.clone() } else { "run".to_string() };
            (c, sub)
        }
        (0, false) => (String::new(), maybe.iter().rev().find(|w| BENCH_COMMANDS.contains(&w.as_str())).cloned().unwrap_or_else(|| "run".into())),
        (0, true) => return Err(label_error(clap::error::ErrorKind::MissingSubcommand, format!("{script}: give a command (run, prepare, cleanup, help or one the script defines)"))),
        _ => return Err(label_error(clap::error::ErrorKind::UnknownArgument, format!("{script}: one command at a time, got {}", commands.join(" ")))),
    };
    let mut out = vec![argv[0].clone(), sub, script.clone()];
    out.extend(own);
    out.push(format!("--script-command={command}"));
    out.extend(script_opts);
    Ok(out)
}

/// A command line that names a workload first, sysbench's way, but no
/// command it knows (`oltp_read_only --threads=2 rnu`): clap blamed the
/// workload for not being a command; the error names the slip instead.
fn workload_without_command(argv: &[String], e: clap::Error) -> clap::Error {
    let bench: Vec<&str> = BenchCommand::ALL.iter().map(|c| c.name()).collect();
    let Some(first) = argv.get(1).filter(|_| e.kind() == clap::error::ErrorKind::InvalidSubcommand) else { return e };
    if crate::workload::family::find(first).is_none() && !crate::workload::family::looks_like_label(first) {
        return e;
    }
    let slip = argv[2..].iter().filter(|a| !a.starts_with('-')).find_map(|a| Some((a, crate::error::did_you_mean(a, bench.iter().copied())?)));
    let msg = match slip {
        Some((a, c)) => format!("'{a}' is not a command: did you mean '{c}'? ('{first}' is a workload: fairbench {c} {first} ..., or sysbench's order, {first} ... {c})"),
        None => format!("'{first}' is a workload and the command line has no command: give one of {} (fairbench run {first} ...)", bench.join(", ")),
    };
    label_error(clap::error::ErrorKind::ValueValidation, crate::error::one_line(&msg))
}

/// A label error, printed as one line like the other usage errors
/// (`Command::error` would append the usage and a help hint).
fn label_error(kind: clap::error::ErrorKind, msg: impl std::fmt::Display) -> clap::Error {
    clap::Error::raw(kind, format!("{msg}\n"))
}

fn same_value(a: &str, b: &str) -> bool {
    if a.eq_ignore_ascii_case(b) {
        return true;
    }
    if let (Ok(x), Ok(y)) = (values::parse_bool(a), values::parse_bool(b)) {
        return x == y;
    }
    if let (Ok(x), Ok(y)) = (values::parse_count(a), values::parse_count(b)) {
        return x == y;
    }
    false
}

/// `fairbench run` with the options a run was made with. Options the run
/// command does not take (recorded facts such as the session options) are
/// left out; the target is shown as stored, its password masked.
pub fn reproduce(r: &crate::model::record::RunRecord) -> String {
    // The run command's flags, read from its definition once: a report and the store browser ask for every run.
    static FLAGS: std::sync::OnceLock<std::collections::BTreeSet<String>> = std::sync::OnceLock::new();
    let flags = FLAGS.get_or_init(|| command().find_subcommand("run").map(|s| s.get_arguments().filter_map(|a| a.get_long().map(str::to_string)).collect()).unwrap_or_default());
    let mut parts = vec!["fairbench".to_string(), "run".to_string(), r.workload.clone(), crate::store::option_arg("target", &r.target)];
    for (k, v) in r.options.pairs() {
        // "auto" is how the recorder writes a client thread count left to its default.
        if !flags.contains(&k) || v.is_empty() || (k == "client-threads" && v == "auto") {
            continue;
        }
        parts.push(crate::store::option_arg(&k, &v));
    }
    if !r.tag.is_empty() {
        parts.push(crate::store::option_arg("tag", &r.tag));
    }
    parts.join(" ")
}
