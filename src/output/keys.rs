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

impl From<CompareFormat> for FormatKey {
    fn from(f: CompareFormat) -> FormatKey {
        match f {
            CompareFormat::Text => FormatKey::Text,
            CompareFormat::Markdown => FormatKey::Markdown,
            CompareFormat::Json => FormatKey::Json,
        }
    }
}

/// Every rendering of stored runs by its key (`view::format` registers one
/// per key): the value a `--format` takes, and its file's name. A command
/// picks one by key; the registry says whether it serves what the command
/// prints, and refuses it in one line otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum FormatKey {
    #[default]
    Text,
    Json,
    Markdown,
    Junit,
    Csv,
    Html,
    Png,
}

impl FormatKey {
    /// Its name as an option writes it.
    pub fn name(self) -> String {
        name(&self)
    }
}

/// The value as the command line writes it, which is also the name the
/// renderings are registered under.
pub fn name<T: ValueEnum>(v: &T) -> String {
    v.to_possible_value().map(|p| p.get_name().to_string()).unwrap_or_default()
}
