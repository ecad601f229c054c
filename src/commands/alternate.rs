//! `run` with two or more `--target`s: the configurations run in turns
//! (A, B, A, B, ... `--repeat` times each), so the machine's drift falls on
//! all of them alike, and a comparison of the series ends it.
//!
//! Each run is a process of its own (this binary, with one `--target`), as
//! a user alternating by hand would start it: nothing one configuration
//! leaves in the client (caches, allocator, threads) carries over to the
//! next. Each is stored with the tag `TAG/A`, `TAG/B`, ..., so the series
//! can be compared again later with `compare tag:TAG/A tag:TAG/B`.

use crate::cli::{self, Cmd, CompareArgs, StoreArgs};
use crate::error::{exit, Error};
use std::process::Command;
use std::time::Duration;

/// Configuration `i`'s name: A, B, ... Z, then 27, 28, ...
fn name(i: usize) -> String {
    if i < 26 {
        ((b'A' + i as u8) as char).to_string()
    } else {
        (i + 1).to_string()
    }
}

/// Runs an alternation when the command line is a `run` with two or more
/// `--target`s; None leaves the command line to the usual path (which
/// refuses a repeated `--target` on other commands).
pub fn maybe(argv: &[String]) -> Option<i32> {
    let targets = cli::targets(argv);
    if targets.len() < 2 {
        return None;
    }
    let rest = cli::without(argv, &["--target"]);
    // Every configuration must be a run that parses on its own.
    let mut first = None;
    for config in cli::configurations(argv) {
        match cli::parse(config) {
            Ok(c) => match c.cmd {
                Cmd::Run(a) => {
                    first.get_or_insert(a);
                }
                _ => return None,
            },
            Err(e) if !e.use_stderr() => return None,
            Err(e) => {
                eprintln!("fairbench: {}", crate::error::one_line(&cli::error_line(&e)));
                return Some(exit::USAGE);
            }
        }
    }
    let first = first?;
    let c = &first.control;
    let repeat = c.repeat;
    let json = c.output.json();
    let base = if c.tag.is_empty() { format!("alternation-{}", crate::units::now_rfc3339()) } else { c.tag.clone() };
    let child_args = cli::without(&rest, &["--repeat", "--tag"]);
    crate::signal::install(false);
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fairbench: cannot find this program to run each configuration: {e}");
            return Some(exit::IO);
        }
    };
    let total = repeat * targets.len();
    let mut done = 0;
    // Progress goes where it does not mix with JSON lines.
    let say = |line: String| if json { eprintln!("{line}") } else { println!("{line}") };
    'series: for rep in 0..repeat {
        for (i, t) in targets.iter().enumerate() {
            if crate::model::interrupted() {
                break 'series;
            }
            if done > 0 && c.pause > 0.0 {
                crate::signal::sleep_unless_interrupted(Duration::from_secs_f64(c.pause));
            }
            let shown = crate::db::Target::parse(t).map(|t| t.to_string()).unwrap_or_else(|_| t.clone());
            say(format!("==== {} of {total}: configuration {} ({shown}), repetition {} of {repeat} ====", done + 1, name(i), rep + 1));
            let mut cmd = Command::new(&exe);
            cmd.args(&child_args[1..]).args(["--target", t, "--tag", &format!("{base}/{}", name(i))]);
            match run_child(&mut cmd) {
                Ok(0) => done += 1,
                // Its summary is printed and its run stored: say how far the series got.
                Ok(exit::INTERRUPTED) => break 'series,
                Ok(code) => {
                    say(format!("Configuration {} stopped with exit code {code}: {done} of {total} runs completed and stored (tags {base}/A ...).", name(i)));
                    return Some(code);
                }
                Err(e) => {
                    eprintln!("fairbench: {e}");
                    return Some(exit::IO);
                }
            }
        }
    }
    if done < total {
        say(format!("Interrupted: {done} of {total} runs completed and stored (tags {base}/A ...)."));
        return Some(exit::INTERRUPTED);
    }
    say(String::new());
    let runs: Vec<String> = (0..targets.len()).map(|i| format!("tag:{base}/{}", name(i))).collect();
    say(format!("==== The series compared: fairbench compare {} ====", runs.join(" ")));
    let args = CompareArgs {
        runs,
        store: StoreArgs { results: c.results.clone() },
        json,
        baseline: None,
        max_regression: None,
        metric: "both".into(),
        // `json` decides the comparison's format when it is set.
        format: Default::default(),
        junit: None,
    };
    Some(match super::compare(args) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("fairbench: {e}");
            e.exit_code()
        }
    })
}

/// Runs one configuration (or a sweep's run); a Ctrl-C that reached only
/// this process is passed on, and the child's own stop (within 2 s) is
/// waited for.
pub(crate) fn run_child(cmd: &mut Command) -> Result<i32, Error> {
    // A group of its own: a terminal's Ctrl-C reaches this process only,
    // which passes it on once.
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    let mut child = cmd.spawn().map_err(|e| Error::Io(format!("cannot start a run: {e}")))?;
    let mut passed_on = false;
    loop {
        if let Some(st) = child.try_wait().map_err(|e| Error::Io(e.to_string()))? {
            return Ok(st.code().unwrap_or(exit::INTERRUPTED));
        }
        if crate::model::interrupted() && !passed_on {
            // SAFETY: signals the child this process started and has not reaped.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
            passed_on = true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn targets_and_the_rest() {
        let argv = v(&["fairbench", "run", "--target", "sqlite:a", "--repeat=3", "--target=sqlite:b", "--repeat-order", "grouped", "--tag", "t"]);
        assert_eq!(cli::targets(&argv), ["sqlite:a", "sqlite:b"]);
        assert_eq!(cli::without(&argv, &["--target", "--repeat", "--tag"]), v(&["fairbench", "run", "--repeat-order", "grouped"]));
        assert_eq!(cli::configurations(&argv)[1], v(&["fairbench", "run", "--repeat=3", "--repeat-order", "grouped", "--tag", "t", "--target", "sqlite:b"]));
        assert_eq!((name(0), name(1), name(26)), ("A".to_string(), "B".to_string(), "27".to_string()));
    }
}
