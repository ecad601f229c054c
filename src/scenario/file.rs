//! The scenario file: its steps as TOML, read and checked before anything runs.

use super::csv::check_columns;
use crate::error::Result;
use crate::usage;
use serde::Deserialize;
use std::path::Path;

/// A scenario file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct File {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(rename = "step", default)]
    pub steps: Vec<Step>,
}

/// One step; `name` labels its row in the output (default: what it does).
#[derive(Deserialize, Debug, Clone)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Step {
    /// Writes `rows` rows of generated `columns` to the CSV `file`.
    Generate {
        #[serde(default)]
        name: Option<String>,
        file: String,
        rows: u64,
        columns: Vec<ColumnGen>,
        #[serde(default)]
        seed: Option<u64>,
    },
    /// LOAD DATA LOCAL INFILE (MySQL family) or \copy (PostgreSQL) of a CSV file,
    /// through the server's command-line client.
    Import {
        #[serde(default)]
        name: Option<String>,
        table: String,
        file: String,
    },
    /// One or more statements (one per entry) on the scenario's connection, timed together; per-engine variants override `sql`.
    Sql {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        sql: Option<Sqls>,
        #[serde(default)]
        mysql: Option<Sqls>,
        #[serde(default)]
        postgres: Option<Sqls>,
    },
    /// A query run `repeat` times, each run timed on its own.
    Query {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        sql: Option<String>,
        #[serde(default)]
        mysql: Option<String>,
        #[serde(default)]
        postgres: Option<String>,
        #[serde(default = "one")]
        repeat: u32,
    },
    /// The table's size: data and indexes as the server reports them, its
    /// files on disk when readable, and an object store directory's share.
    Sizes {
        #[serde(default)]
        name: Option<String>,
        table: String,
        /// A local directory holding the table's objects (an S3 endpoint's data dir).
        #[serde(default)]
        object_store_dir: Option<String>,
    },
    Pause {
        #[serde(default)]
        name: Option<String>,
        seconds: f64,
    },
}

pub(crate) fn one() -> u32 {
    1
}

#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum Sqls {
    One(String),
    Many(Vec<String>),
}

impl Sqls {
    pub(crate) fn list(&self) -> Vec<String> {
        match self {
            Sqls::One(s) => vec![s.clone()],
            Sqls::Many(v) => v.clone(),
        }
    }
}

/// A CSV column: `seq` (1, 2, ...), `cycle` (1..=max, then again), `int`
/// (uniform min..=max), `string` (`len` random letters and digits), `const`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ColumnGen {
    pub name: String,
    pub r#gen: String,
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub max: Option<i64>,
    #[serde(default)]
    pub len: Option<usize>,
    #[serde(default)]
    pub value: Option<String>,
}

impl Step {
    pub fn label(&self) -> String {
        let (name, default) = match self {
            Step::Generate { name, rows, file, .. } => (name, format!("generate {rows} rows to {file}")),
            Step::Import { name, table, .. } => (name, format!("import into {table}")),
            Step::Sql { name, sql, mysql, postgres } => (name, sql.as_ref().or(mysql.as_ref()).or(postgres.as_ref()).and_then(|s| s.list().into_iter().next()).unwrap_or_default()),
            Step::Query { name, sql, mysql, postgres, .. } => (name, sql.clone().or(mysql.clone()).or(postgres.clone()).unwrap_or_default()),
            Step::Sizes { name, table, .. } => (name, format!("sizes of {table}")),
            Step::Pause { name, seconds } => (name, format!("pause {seconds}s")),
        };
        name.clone().unwrap_or(default)
    }

    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Step::Generate { .. } => "generate",
            Step::Import { .. } => "import",
            Step::Sql { .. } => "sql",
            Step::Query { .. } => "query",
            Step::Sizes { .. } => "sizes",
            Step::Pause { .. } => "pause",
        }
    }
}

/// Reads and checks a scenario file.
pub fn load(path: &Path) -> Result<File> {
    let text = std::fs::read_to_string(path).map_err(|e| usage!("scenario file {}: {e}", path.display()))?;
    let f: File = toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1)).unwrap_or(0);
        usage!("scenario file {} line {line}: {}", path.display(), e.message().trim())
    })?;
    if f.steps.is_empty() {
        return Err(usage!("scenario file {} has no [[step]]", path.display()));
    }
    for (i, s) in f.steps.iter().enumerate() {
        if let Step::Generate { columns, .. } = s {
            check_columns(columns).map_err(|e| usage!("scenario file {} step {}: {e}", path.display(), i + 1))?;
        }
    }
    Ok(f)
}
