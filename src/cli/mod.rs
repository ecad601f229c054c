//! Command line: raw clap options, then a validated plan. Accepts sysbench's
//! spellings (`--table_size` as well as `--table-size`, and the
//! `sysbench TEST [options] COMMAND` order) and BMK-kit labels in place of a
//! workload name.

pub mod server_args;

use crate::values;
use crate::workload::plan::{BenchArgs, TargetArgs};
use clap::parser::ValueSource;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
pub use server_args::{ScenarioArgs, ServerAction, ServerArgs, ServerStartArgs};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "fairbench", version, about = "Fair, exact database benchmarks on MySQL-family servers, PostgreSQL and SQLite", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

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
    /// Decode a BMK-kit label into options
    Explain {
        /// e.g. OLTP_RW-10Mx8tab-uniform-ps-trx or sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh
        label: String,
    },
    /// List, show, export or delete stored runs
    Results(ResultsArgs),
    /// Print the environment snapshot of a target now (server settings, client host)
    Env(EnvArgs),
    /// Audit stored runs for unfair settings and suspicious measurements
    Audit(AuditArgs),
    /// Compare stored runs or sweeps side by side (also across engines)
    Compare(CompareArgs),
    /// Throwaway MariaDB / PostgreSQL servers with configuration profiles
    Server(ServerArgs),
    /// Run a file of timed steps (generate, import, SQL, queries, sizes), or the built-in `engines`
    Scenario(ScenarioArgs),
    /// Write stored runs or sweeps as one self-contained HTML page with charts
    Report(ReportArgs),
    /// Add the --hdr-log files of a group's members into one result (stored like a run)
    Merge(MergeArgs),
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
    List,
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
        /// CSV: one row per interval and one per level summary (columns in the README)
        #[arg(long, conflicts_with = "json")]
        csv: bool,
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
}

#[derive(Args, Debug, Clone)]
pub struct EnvArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Table name prefix whose size counts as the dataset
    #[arg(long, default_value = "sbtest", value_parser = crate::values::table_base)]
    pub table_name: String,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct AuditArgs {
    /// Run ids (or last, last-N); several are also checked against each other
    #[arg(required = true)]
    pub runs: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// Exit with code 5 when a finding of this severity or worse is found: critical, warning, never
    #[arg(long, default_value = "never", value_parser = values::fail_on)]
    pub fail_on: String,
}

#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Run ids (or last, last-N); the first is the baseline
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Run ids (or last, last-N); several are compared, the first is the baseline
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
    const CMDS: &[&str] = &["run", "prepare", "cleanup", "prewarm", "check", "explain", "help", "results", "env", "audit", "compare", "server", "scenario", "report", "merge"];
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
    negatives_as_values(Cli::command())
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
    let argv = own_command_line(argv)?;
    let given = workload_given(&argv);
    let mut cli = parse_args(argv)?;
    if let Cmd::Run(a) | Cmd::Prepare(a) | Cmd::Cleanup(a) | Cmd::Prewarm(a) | Cmd::Check(a) = &mut cli.cmd {
        a.workload_given = given;
    }
    Ok(cli)
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
    if !matches!(sub.as_str(), "run" | "prepare" | "cleanup" | "prewarm" | "check") {
        return Cli::from_arg_matches(&matches);
    }
    let wl: String = sm.get_one::<String>("workload").cloned().unwrap_or_default();
    let scripted = crate::workload::family::find(&wl).is_some_and(|f| f.own_command_line(&wl));
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
/// script's own declarations. Script options take `--name=value` or a bare
/// `--name` (on), as sysbench's do.
fn own_command_line(argv: Vec<String>) -> std::result::Result<Vec<String>, clap::Error> {
    let is_script = |a: &String| !a.starts_with('-') && crate::workload::family::find(a).is_some_and(|f| f.own_command_line(a));
    let Some(si) = argv.iter().skip(1).position(is_script).map(|i| i + 1) else { return Ok(argv) };
    let run = command().find_subcommand("run").cloned().unwrap_or_else(|| clap::Command::new("run"));
    let family_ids: Vec<String> = crate::workload::family::FamilyArgs::augment_args(clap::Command::new("f")).get_arguments().map(|a| a.get_id().to_string()).collect();
    let generic = |name: &str| run.get_arguments().find(|a| a.get_long() == Some(name) && !family_ids.iter().any(|f| f == a.get_id().as_str()));
    let mut own = Vec::new();
    let mut script_opts = Vec::new();
    let mut positionals = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if i - 1 == si {
            continue;
        }
        let Some(rest) = a.strip_prefix("--") else {
            positionals.push(a.clone());
            continue;
        };
        let (name, has_value) = match rest.split_once('=') {
            Some((n, _)) => (n.replace('_', "-"), true),
            None => (rest.replace('_', "-"), false),
        };
        if name == "help" {
            positionals.push("help".into());
        } else if let Some(arg) = generic(&name) {
            own.push(a.clone());
            if !has_value && arg.get_action().takes_values() && i < argv.len() {
                own.push(argv[i].clone());
                i += 1;
            }
        } else {
            script_opts.push(format!("--script-option={a}"));
        }
    }
    let command = match positionals.len() {
        1 => positionals.remove(0),
        0 => return Err(label_error(clap::error::ErrorKind::MissingSubcommand, format!("{}: give a command (run, prepare, cleanup, help or one the script defines)", argv[si]))),
        _ => return Err(label_error(clap::error::ErrorKind::UnknownArgument, format!("{}: one command at a time, got {}", argv[si], positionals.join(" ")))),
    };
    let sub = if BENCH_COMMANDS.contains(&command.as_str()) { command.clone() } else { "run".to_string() };
    let mut out = vec![argv[0].clone(), sub, argv[si].clone()];
    out.extend(own);
    out.push(format!("--script-command={command}"));
    out.extend(script_opts);
    Ok(out)
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
