//! fairbench: prepare, run, check and compare OLTP benchmarks on
//! MySQL-family servers, PostgreSQL and embedded SQLite, with one client.

/// This build's name: the crate's version and the commit it was built
/// from (build.rs), recorded with every run.
pub const VERSION: &str = env!("FAIRBENCH_BUILD");

pub mod audit;
pub mod cache;
pub mod cli;
pub mod columns;
mod commands;
pub mod compare;
pub mod db;
pub mod env;
pub mod error;
pub mod label;
pub mod live;
pub mod model;
pub mod output;
pub mod rand;
mod relay;
pub mod runner;
pub mod scenario;
pub mod scrape;
pub mod server;
pub mod signal;
pub mod stats;
pub mod store;
pub mod sweep;
pub mod timer;
pub mod units;
pub mod values;
pub mod view;
pub mod workload;

use cli::Cmd;
use error::{exit, Error, Result};
use workload::plan::BenchCommand;

/// Parse the command line, run, and turn the outcome into an exit code.
pub fn main_entry() -> i32 {
    let argv = match cli::args_utf8(std::env::args_os()) {
        Ok(a) => a,
        Err(why) => {
            eprintln!("fairbench: {why}");
            return exit::USAGE;
        }
    };
    // `run` with several --target: the configurations alternate, one process per run.
    if let Some(code) = commands::alternate::maybe(&argv) {
        return code;
    }
    let cli = match cli::parse(argv) {
        Ok(c) => c,
        // --help and --version: clap prints them as they are.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return exit::OK;
        }
        // A bare `fairbench`: the help is the answer, but nothing was run.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return exit::USAGE;
        }
        Err(e) => {
            eprintln!("fairbench: {}", error::one_line(&cli::error_line(&e)));
            return exit::USAGE;
        }
    };
    // The store commands only read, or change the store in one SQLite
    // transaction: nothing is lost by stopping them at once.
    let at_once = matches!(cli.cmd, Cmd::Results(_) | Cmd::Audit(_) | Cmd::Compare(_) | Cmd::Report(_) | Cmd::Merge(_) | Cmd::Env(_) | Cmd::Explain { .. } | Cmd::Completions { .. } | Cmd::Man { .. });
    signal::install(at_once);
    let relay = if at_once || matches!(cli.cmd, Cmd::Check(_)) {
        // Commands that only report end quietly when their reader goes away
        // (`| head`), as Unix tools do: printing to a closed pipe would
        // otherwise panic.
        // SAFETY: restores the default action of one signal before any thread starts.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
        None
    } else {
        // The others have something to save: they go on to the end.
        relay::install()
    };
    let code = match run(cli) {
        Ok(()) => exit::OK,
        Err(e) => match db::engines::refusal() {
            // A statement the engine refuses stops whatever command sent it, in
            // one line that says what to use instead: a usage error, nothing ran.
            Some(line) => {
                eprintln!("fairbench: {line}");
                exit::USAGE
            }
            None => {
                if !matches!(e, Error::Interrupted) {
                    eprintln!("fairbench: {}", error::one_line(&e.to_string()));
                }
                e.exit_code()
            }
        },
    };
    if let Some(r) = relay {
        r.finish();
    }
    code
}

pub fn run(cli: cli::Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Explain { label, options } => commands::explain::explain(&label, &options),
        Cmd::Completions { shell } => {
            clap_complete::generate(shell, &mut cli::command(), "fairbench", &mut std::io::stdout());
            Ok(())
        }
        Cmd::Man { dir } => commands::man::write(&dir),
        // A workload with a load phase took `load ...` before here (its family reads its tool's
        // command line): what is left names none.
        Cmd::Load { args } => Err(Error::Usage(format!(
            "`load` runs the load phase of a workload that has one (see fairbench load --help); other workloads load their tables with prepare: fairbench prepare {}",
            error::one_line(&args.join(" "))
        ))),
        Cmd::Run(a) => commands::bench::bench(cli::plan(BenchCommand::Run, a)?),
        Cmd::Prepare(a) => commands::bench::bench(cli::plan(BenchCommand::Prepare, a)?),
        Cmd::Cleanup(a) => commands::bench::bench(cli::plan(BenchCommand::Cleanup, a)?),
        Cmd::Prewarm(a) => commands::bench::bench(cli::plan(BenchCommand::Prewarm, a)?),
        Cmd::Check(a) => commands::bench::bench(cli::plan(BenchCommand::Check, a)?),
        Cmd::Results(a) => commands::results(a),
        Cmd::Env(a) => commands::env(a),
        Cmd::Audit(a) => commands::audit(a),
        Cmd::Compare(a) => commands::compare(a),
        Cmd::Server(a) => commands::server::server(a),
        Cmd::Scenario(a) => commands::scenario::scenario(a),
        Cmd::Report(a) => commands::report(a),
        Cmd::Sweep(a) => commands::sweep::sweep(a),
        Cmd::Merge(a) => commands::merge::merge(a),
        Cmd::CheckWrites(a) => commands::verify::check_writes(a),
    }
}
