//! The output options' values as types: what `--output` and `compare
//! --format` accept is the enum's variants (their names are the values, so
//! the help, the parser and the code cannot disagree), and a command asks
//! the value what it means instead of comparing strings.

use clap::ValueEnum;

/// `--output` of `run` (and the other bench commands) and `check writes`:
/// the console in sysbench's text format, or JSON lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, serde::Serialize)]
pub enum ConsoleFormat {
    #[default]
    Text,
    Json,
}

impl ConsoleFormat {
    /// The console writes JSON lines: standard output holds nothing else,
    /// so notes go to standard error.
    pub fn json(self) -> bool {
        self == ConsoleFormat::Json
    }
}

/// `compare --format`: each names a rendering of the stored runs
/// (`view::format`), the one `compare` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    #[default]
    Text,
    Markdown,
    Json,
}

/// The value as the command line writes it, which is also the name the
/// renderings are registered under.
pub fn name<T: ValueEnum>(v: &T) -> String {
    v.to_possible_value().map(|p| p.get_name().to_string()).unwrap_or_default()
}
