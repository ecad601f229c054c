//! Errors that end a command, each with its documented exit code.
//!
//! Failures inside a run that the run survives (retryable SQL errors, lost
//! connections) are counted, not raised; only what stops the command lands
//! here. The codes are part of the interface: scripts branch on them.

use std::fmt;

/// Exit codes, documented in the README and docs/usage.md.
pub mod exit {
    pub const OK: i32 = 0;
    /// `compare --max-regression`: the new runs are significantly worse
    /// than the baseline by more than the threshold (a CI gate's failure).
    pub const REGRESSION: i32 = 1;
    /// Bad option, bad label, bad URL: nothing was run.
    pub const USAGE: i32 = 2;
    /// Server unreachable, or authentication refused.
    pub const CONNECT: i32 = 3;
    /// A non-retryable SQL error stopped the run (results so far were reported).
    pub const SQL: i32 = 4;
    /// A consistency check failed.
    pub const CHECK: i32 = 5;
    /// Local I/O failed (output file, sync file, results store).
    pub const IO: i32 = 6;
    /// A `--group` did not gather all its members within `--group-timeout`.
    pub const GROUP: i32 = 7;
    /// `--forced-shutdown` ended a run still going after `--time` (the
    /// report of what was measured was printed). sysbench exits 2 here, a
    /// code fairbench keeps for usage errors.
    pub const FORCED: i32 = 8;
    /// Stopped by Ctrl-C / SIGTERM (the summary of what ran was printed).
    pub const INTERRUPTED: i32 = 130;
}

#[derive(Debug)]
pub enum Error {
    Usage(String),
    Connect(String),
    Sql(String),
    Check(String),
    Io(String),
    Group(String),
    Forced(String),
    Regression(String),
    Interrupted,
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => exit::USAGE,
            Error::Connect(_) => exit::CONNECT,
            Error::Sql(_) => exit::SQL,
            Error::Check(_) => exit::CHECK,
            Error::Io(_) => exit::IO,
            Error::Group(_) => exit::GROUP,
            Error::Forced(_) => exit::FORCED,
            Error::Regression(_) => exit::REGRESSION,
            Error::Interrupted => exit::INTERRUPTED,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Connect(m) | Error::Sql(m) | Error::Check(m) | Error::Io(m) | Error::Group(m) | Error::Forced(m) | Error::Regression(m) => f.write_str(m),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `s` with its control characters escaped (`\n` as `\\n` ...), so that a
/// message quoting what the user typed stays on one line whatever they typed.
pub fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_control) {
        s.chars().map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() }).collect::<String>().into()
    } else {
        s.into()
    }
}

/// The choice `word` was most likely a slip for, if one is close enough:
/// a few letters typed wrong, left out, added or swapped, one more for
/// every six letters of the choice (`raed_write` is `read_write`, `rnu` is
/// `run`).
pub fn did_you_mean<'a>(word: &str, choices: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    choices.into_iter().map(|c| (strsim::osa_distance(word, c), c)).filter(|(d, c)| *d <= 1 + c.chars().count() / 6).min_by_key(|(d, _)| *d).map(|(_, c)| c)
}

/// Shorthand for a usage error with a formatted message.
#[macro_export]
macro_rules! usage {
    ($($t:tt)*) => { $crate::error::Error::Usage(format!($($t)*)) };
}

#[cfg(test)]
mod tests {
    #[test]
    fn slips_find_their_word_and_strangers_find_none() {
        let names = ["read_write_mix", "read_only_mix", "abcd", "wxyz", "long-hyphenated-name"];
        assert_eq!(super::did_you_mean("read_wirte_mix", names), Some("read_write_mix"));
        assert_eq!(super::did_you_mean("read_only_mxi", names), Some("read_only_mix"));
        assert_eq!(super::did_you_mean("ab-cd", names), Some("abcd"));
        assert_eq!(super::did_you_mean("long_hyphenated_name", names), Some("long-hyphenated-name"));
        assert_eq!(super::did_you_mean("rnu", ["run", "prepare", "cleanup"]), Some("run"));
        assert_eq!(super::did_you_mean("nothing_like_them", names), None);
    }
}
