//! Scenarios: a file of timed steps (generate a CSV, import it, SQL and DDL,
//! a query repeated K times, table sizes, a pause) run against one target,
//! each step timed and stored; and the built-in `engines` scenario that
//! runs the same steps on several storage engines side by side.
//!
//! Statements run on one connection per target, fairbench's own (`Conn`, as
//! the benchmarks use), opened before the first step: a step's time is its
//! statements' round trips, no process start or connection in it. Imports
//! alone go through the server's command-line client (`LOAD DATA LOCAL
//! INFILE`, `\copy`): the bulk paths of `db` load generated typed rows, not
//! a CSV file as the server parses it; the client's start is measured once
//! and reported beside them.

pub mod engines;
pub mod minio;

use crate::db::{Conn, ConnConfig, Engine, StatementSet, Target};
use crate::error::{Error, Result};
use crate::rand::Rng;
use crate::runner;
use crate::usage;
use serde::{Deserialize, Serialize};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

fn one() -> u32 {
    1
}

#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum Sqls {
    One(String),
    Many(Vec<String>),
}

impl Sqls {
    fn list(&self) -> Vec<String> {
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

    fn kind(&self) -> &'static str {
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

/// What one step measured.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct StepResult {
    pub step: String,
    pub kind: String,
    /// Wall time, seconds (a repeated query: one entry per run).
    pub seconds: Vec<f64>,
    /// Rows returned (query) or loaded (import, generate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// A checksum of a query's result, so that engines can be seen to agree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Sizes in bytes by what was measured (data, index, files, object store ...).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub sizes: Vec<(String, u64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One column of results: a target, or an engine of `engines`.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Column {
    pub name: String,
    /// The command-line client's start and connection, included in every
    /// import's time (the fastest of three `SELECT 1`); absent when no step
    /// imports (every other statement runs on the connection opened before
    /// the steps).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client_overhead_s: Option<f64>,
    pub steps: Vec<StepResult>,
    /// Why the column stopped (the failed step) or could not run at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Why the column could not run at all (an engine this machine lacks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// The whole outcome, as printed, exported and stored.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Report {
    pub scenario: String,
    pub target: String,
    pub started: String,
    pub columns: Vec<Column>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
}

/// Runs a scenario's statements on one target over fairbench's own
/// connection (the benchmarks' `Conn`), opened once; the server's
/// command-line client only for CSV imports.
pub struct Client {
    pub target: Target,
    rt: tokio::runtime::Runtime,
    /// None once dropped by Ctrl-C (a statement abandoned mid-flight).
    conn: Option<Conn>,
    /// The CLI, found on first use: a scenario without imports needs none.
    cli: Option<PathBuf>,
}

fn find_client(engine: Engine) -> Result<PathBuf> {
    let names: &[&str] = match engine {
        Engine::Mysql => &["mariadb", "mysql"],
        Engine::Postgres => &["psql"],
        Engine::Sqlite => return Err(usage!("scenarios run on MySQL-family servers and PostgreSQL, not SQLite")),
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    if engine == Engine::Postgres {
        dirs.extend(crate::server::pg_bindir());
    }
    for n in names {
        for d in &dirs {
            if d.join(n).is_file() {
                return Ok(d.join(n));
            }
        }
    }
    Err(crate::server::missing(names[0], if engine == Engine::Postgres { "postgresql-client" } else { "mariadb-client" }))
}

/// A statement's result, or the server's error as one line.
type Outcome<T = String> = std::result::Result<T, String>;

/// Resolves once Ctrl-C was pressed: raced against every database call so
/// that a statement in flight is abandoned within the polling period.
async fn interrupt() {
    while !crate::model::interrupted() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A row as the `mariadb` client's batch mode prints it: values as the
/// server sent them as text, tab-separated, NULL as `NULL`; the same on
/// both engines, so that checksums compare.
fn row_text(row: &[Option<String>]) -> String {
    row.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect::<Vec<_>>().join("\t")
}

impl Client {
    /// Opens the connection the steps share (the target's engine decides
    /// which; SQLite is refused).
    pub fn connect(cfg: ConnConfig) -> Result<Client> {
        if cfg.target.engine == Engine::Sqlite {
            return Err(usage!("scenarios run on MySQL-family servers and PostgreSQL, not SQLite"));
        }
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Io(format!("cannot start runtime: {e}")))?;
        let cfg = Arc::new(cfg);
        let opened = rt.block_on(async {
            tokio::select! {
                c = Conn::connect(cfg.clone(), Arc::new(StatementSet::default()), 0) => Some(c),
                () = interrupt() => None,
            }
        });
        let conn = match opened {
            None => return Err(Error::Interrupted),
            Some(Err(e)) => return Err(crate::db::connect_error(&cfg.target, &e)),
            Some(Ok(c)) => c,
        };
        Ok(Client { target: cfg.target.clone(), rt, conn: Some(conn), cli: None })
    }

    /// Runs `sql` on the connection, its rows as text lines. Ctrl-C drops
    /// the connection (the server rolls back what was not committed).
    pub fn rows(&mut self, sql: &str) -> Result<Outcome<Vec<String>>> {
        let Some(conn) = self.conn.as_mut() else { return Err(Error::Interrupted) };
        let done = self.rt.block_on(async {
            tokio::select! {
                r = conn.query_strings(sql) => Some(r),
                () = interrupt() => None,
            }
        });
        match done {
            Some(r) => Ok(r.map(|rows| rows.iter().map(|r| row_text(r)).collect()).map_err(|e| e.to_string())),
            None => {
                let _in_runtime = self.rt.enter();
                self.conn = None;
                Err(Error::Interrupted)
            }
        }
    }

    /// Runs `sql` on the connection, rows (if any) discarded.
    pub fn exec(&mut self, sql: &str) -> Result<Outcome<()>> {
        let Some(conn) = self.conn.as_mut() else { return Err(Error::Interrupted) };
        let done = self.rt.block_on(async {
            tokio::select! {
                r = conn.query(sql) => Some(r),
                () = interrupt() => None,
            }
        });
        match done {
            Some(r) => Ok(r.map(|_| ()).map_err(|e| e.to_string())),
            None => {
                let _in_runtime = self.rt.enter();
                self.conn = None;
                Err(Error::Interrupted)
            }
        }
    }

    fn command(&mut self) -> Result<Command> {
        let bin = match &self.cli {
            Some(b) => b.clone(),
            None => {
                let b = find_client(self.target.engine)?;
                self.cli = Some(b.clone());
                b
            }
        };
        let t = &self.target;
        let mut c = Command::new(&bin);
        let (host, port) = t.hosts.first().cloned().unwrap_or(("127.0.0.1".into(), 0));
        match t.engine {
            Engine::Mysql => {
                c.args(["--no-defaults", "-N", "-B", "--local-infile=1"]);
                match &t.socket {
                    Some(s) => c.arg("--protocol=SOCKET").arg(format!("--socket={s}")),
                    None => c.arg("--protocol=TCP").arg(format!("-h{host}")).arg(format!("-P{port}")),
                };
                c.arg(format!("-u{}", t.user)).arg(format!("-D{}", t.database));
                c.env("MYSQL_PWD", t.password.clone().unwrap_or_default());
            }
            _ => {
                c.args(["-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1"]);
                c.arg("-h").arg(t.socket.clone().unwrap_or(host)).arg("-p").arg(port.to_string()).arg("-U").arg(&t.user).arg("-d").arg(&t.database);
                c.env("PGPASSWORD", t.password.clone().unwrap_or_default());
            }
        }
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).current_dir("/");
        Ok(c)
    }

    /// Runs `script` through the server's command-line client (imports:
    /// fairbench's bulk paths load generated rows, not a CSV file).
    /// Ctrl-C ends the client.
    pub fn run_cli(&mut self, script: &str) -> Result<Outcome> {
        let mut cmd = self.command()?;
        let mut child = cmd.spawn().map_err(|e| Error::Io(format!("{:?}: {e}", cmd.get_program())))?;
        let mut stdin = child.stdin.take().expect("piped");
        let script = script.to_string();
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(script.as_bytes());
        });
        let out = std::thread::spawn({
            let mut o = child.stdout.take().expect("piped");
            move || {
                let mut v = Vec::new();
                let _ = std::io::Read::read_to_end(&mut o, &mut v);
                v
            }
        });
        let err = std::thread::spawn({
            let mut o = child.stderr.take().expect("piped");
            move || {
                let mut v = Vec::new();
                let _ = std::io::Read::read_to_end(&mut o, &mut v);
                v
            }
        });
        let status = loop {
            if let Some(st) = child.try_wait().map_err(|e| Error::Io(e.to_string()))? {
                break st;
            }
            if crate::model::interrupted() {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::Interrupted);
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let _ = feeder.join();
        let out = String::from_utf8_lossy(&out.join().unwrap_or_default()).to_string();
        let err = String::from_utf8_lossy(&err.join().unwrap_or_default()).to_string();
        if status.success() {
            Ok(Ok(out))
        } else {
            let line = err.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
            Ok(Err(if line.is_empty() { format!("client exited with {status}") } else { line }))
        }
    }

    fn is_pg(&self) -> bool {
        self.target.engine == Engine::Postgres
    }

    /// The fastest of three `SELECT 1` through the command-line client:
    /// what every import's time carries.
    pub fn cli_overhead(&mut self) -> Result<f64> {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            if let Err(e) = self.run_cli("SELECT 1;")? {
                return Err(Error::Connect(format!("{}: {e}", self.target)));
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        Ok(best)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let Some(c) = self.conn.take() else { return };
        if crate::model::interrupted() {
            // Ctrl-C: the connection is dropped, not closed politely, so the exit stays prompt.
            let _in_runtime = self.rt.enter();
            drop(c);
            return;
        }
        // A polite close, bounded: a server that went away must not hold the exit.
        self.rt.block_on(async {
            let _ = tokio::time::timeout(Duration::from_secs(1), c.close()).await;
        });
    }
}

/// Runs `steps` in order on `c`; paths of files are relative to `work`. The
/// first failed step ends the column: what was measured before it is kept.
pub fn run_steps(c: &mut Client, steps: &[Step], work: &Path, name: &str, quiet: bool) -> Result<Column> {
    let imports = steps.iter().any(|s| matches!(s, Step::Import { .. }));
    let mut col = Column { name: name.to_string(), client_overhead_s: if imports { Some(c.cli_overhead()?) } else { None }, ..Default::default() };
    for (i, s) in steps.iter().enumerate() {
        if crate::model::interrupted() {
            return Err(Error::Interrupted);
        }
        let r = run_step(c, s, work)?;
        if !quiet {
            eprintln!("  [{name}] step {} ({}): {}", i + 1, s.label(), describe(&r));
        }
        let failed = r.error.clone();
        col.steps.push(r);
        if let Some(e) = failed {
            col.failed = Some(format!("step {} ({}) failed: {e}", i + 1, s.label()));
            break;
        }
    }
    Ok(col)
}

fn describe(r: &StepResult) -> String {
    if let Some(e) = &r.error {
        return format!("failed: {e}");
    }
    let mut parts: Vec<String> = r.seconds.iter().map(|s| fmt_secs(*s)).collect();
    if let Some(n) = r.rows {
        parts.push(format!("{n} rows"));
    }
    for (k, b) in &r.sizes {
        parts.push(format!("{k} {}", crate::units::human_bytes(*b as f64)));
    }
    parts.join(", ")
}

fn resolve(work: &Path, f: &str) -> PathBuf {
    let p = Path::new(f);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        work.join(p)
    }
}

pub(crate) fn run_step(c: &mut Client, s: &Step, work: &Path) -> Result<StepResult> {
    let mut r = StepResult { step: s.label(), kind: s.kind().into(), ..Default::default() };
    let t0 = Instant::now();
    match s {
        Step::Generate { file, rows, columns, seed, .. } => match generate(&resolve(work, file), *rows, columns, seed.unwrap_or(1)) {
            Ok(()) => {
                r.rows = Some(*rows);
                r.seconds.push(t0.elapsed().as_secs_f64());
                if let Ok(m) = std::fs::metadata(resolve(work, file)) {
                    r.sizes.push(("csv".into(), m.len()));
                }
            }
            Err(Error::Interrupted) => return Err(Error::Interrupted),
            Err(e) => r.error = Some(e.to_string()),
        },
        Step::Import { table, file, .. } => {
            let path = resolve(work, file);
            if !path.is_file() {
                r.error = Some(format!("no file {} (a generate step makes it)", path.display()));
                return Ok(r);
            }
            let p = path.display().to_string();
            let script = if c.is_pg() {
                format!("\\copy {table} FROM '{}' WITH (FORMAT csv)\n", p.replace('\'', "''"))
            } else {
                format!(
                    "LOAD DATA LOCAL INFILE '{}' INTO TABLE {table} FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\n';\n",
                    p.replace('\\', "\\\\").replace('\'', "\\'")
                )
            };
            let t = Instant::now();
            match c.run_cli(&script)? {
                Ok(_) => r.seconds.push(t.elapsed().as_secs_f64()),
                Err(e) => r.error = Some(e),
            }
            r.note = Some(format!("through {}: includes its start and connection", if c.is_pg() { "psql" } else { "the mariadb client" }));
        }
        Step::Sql { sql, mysql, postgres, .. } => {
            let chosen = if c.is_pg() { postgres.as_ref().or(sql.as_ref()) } else { mysql.as_ref().or(sql.as_ref()) };
            let Some(list) = chosen else {
                r.note = Some("n/a".into());
                return Ok(r);
            };
            let t = Instant::now();
            for stmt in list.list() {
                if let Err(e) = c.exec(&stmt)? {
                    r.error = Some(e);
                    break;
                }
            }
            if r.error.is_none() {
                r.seconds.push(t.elapsed().as_secs_f64());
            }
        }
        Step::Query { sql, mysql, postgres, repeat, .. } => {
            let chosen = if c.is_pg() { postgres.as_ref().or(sql.as_ref()) } else { mysql.as_ref().or(sql.as_ref()) };
            let Some(q) = chosen else {
                r.note = Some("n/a".into());
                return Ok(r);
            };
            for _ in 0..(*repeat).max(1) {
                let t = Instant::now();
                match c.rows(q)? {
                    Ok(rows) => {
                        r.seconds.push(t.elapsed().as_secs_f64());
                        r.rows = Some(rows.len() as u64);
                        r.checksum = Some(checksum(rows));
                    }
                    Err(e) => {
                        r.error = Some(e);
                        break;
                    }
                }
            }
        }
        Step::Sizes { table, object_store_dir, .. } => match sizes(c, table, object_store_dir.as_deref().map(Path::new))? {
            Ok(v) => r.sizes = v,
            Err(e) => r.error = Some(e),
        },
        Step::Pause { seconds, .. } => {
            if !(seconds.is_finite() && *seconds >= 0.0) {
                r.error = Some(format!("pause of {seconds} s: give a number of seconds >= 0"));
            } else {
                runner::sleep_unless_interrupted(Duration::from_secs_f64(*seconds));
                if crate::model::interrupted() {
                    return Err(Error::Interrupted);
                }
                r.seconds.push(t0.elapsed().as_secs_f64());
            }
        }
    }
    Ok(r)
}

/// A result's checksum: rows sorted, so that engines returning the same rows
/// in another order agree.
fn checksum(mut rows: Vec<String>) -> String {
    use sha2::{Digest, Sha256};
    rows.sort_unstable();
    let mut h = Sha256::new();
    for l in rows {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Every column's generator is known and has what it needs.
fn check_columns(cols: &[ColumnGen]) -> Result<()> {
    if cols.is_empty() {
        return Err(usage!("generate: give at least one column"));
    }
    for c in cols {
        match c.r#gen.as_str() {
            "seq" | "string" => {}
            "cycle" | "int" if c.max.is_none() => return Err(usage!("column {}: gen = {:?} needs max", c.name, c.r#gen)),
            "cycle" | "int" => {}
            "const" if c.value.is_none() => return Err(usage!("column {}: gen = \"const\" needs value", c.name)),
            "const" => {}
            o => return Err(usage!("column {}: unknown gen {o:?} (seq, cycle, int, string, const)", c.name)),
        }
    }
    Ok(())
}

pub(crate) fn generate(path: &Path, rows: u64, cols: &[ColumnGen], seed: u64) -> Result<()> {
    check_columns(cols)?;
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| Error::Io(format!("{}: {e}", d.display())))?;
    }
    let f = std::fs::File::create(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let mut rng = Rng::from_seed(seed, 0);
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut line = Vec::with_capacity(256);
    for i in 0..rows {
        if i % 65536 == 0 && crate::model::interrupted() {
            return Err(Error::Interrupted);
        }
        line.clear();
        for (j, c) in cols.iter().enumerate() {
            if j > 0 {
                line.push(b',');
            }
            match c.r#gen.as_str() {
                "seq" => line.extend_from_slice((c.min.unwrap_or(1) + i as i64).to_string().as_bytes()),
                "cycle" => {
                    let (lo, hi) = (c.min.unwrap_or(1), c.max.unwrap_or(1));
                    let span = (hi - lo + 1).max(1) as u64;
                    line.extend_from_slice((lo + (i % span) as i64).to_string().as_bytes());
                }
                "int" => {
                    let (lo, hi) = (c.min.unwrap_or(0), c.max.unwrap_or(0).max(c.min.unwrap_or(0)));
                    let v = lo + rng.uniform(0, (hi - lo) as u64) as i64;
                    line.extend_from_slice(v.to_string().as_bytes());
                }
                "string" => {
                    for _ in 0..c.len.unwrap_or(16) {
                        line.push(ALNUM[rng.uniform(0, ALNUM.len() as u64 - 1) as usize]);
                    }
                }
                _ => {
                    let v = c.value.as_deref().unwrap_or("");
                    if v.contains([',', '"', '\n']) {
                        line.push(b'"');
                        line.extend_from_slice(v.replace('"', "\"\"").as_bytes());
                        line.push(b'"');
                    } else {
                        line.extend_from_slice(v.as_bytes());
                    }
                }
            }
        }
        line.push(b'\n');
        w.write_all(&line).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    }
    w.flush().map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}

/// Bytes on disk under `p` (a directory tree, or one file), as `du` counts
/// them: allocated blocks, so that page compression's punched holes show.
pub fn du(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p).into_iter().flatten().flatten().map(|e| du(&e.path())).sum(),
        Ok(m) => m.blocks() * 512,
        Err(_) => 0,
    }
}

fn sql_str(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

fn sizes(c: &mut Client, table: &str, object_store: Option<&Path>) -> Result<std::result::Result<Vec<(String, u64)>, String>> {
    let mut v = Vec::new();
    if c.is_pg() {
        let t = sql_str(table);
        let out = match c.rows(&format!("SELECT pg_table_size({t}), pg_indexes_size({t}), pg_total_relation_size({t})"))? {
            Ok(o) => o.concat(),
            Err(e) => return Ok(Err(e)),
        };
        let nums: Vec<u64> = out.trim().split('\t').filter_map(|x| x.trim().parse().ok()).collect();
        if let [d, i, t] = nums[..] {
            v.push(("data".into(), d));
            v.push(("index".into(), i));
            v.push(("total".into(), t));
        }
    } else {
        // information_schema's sizes are the statistics' (stale after a bulk load):
        // refreshed first; engines without ANALYZE (S3) keep theirs.
        let _ = c.rows(&format!("ANALYZE TABLE {table}"))?;
        // The files hold what was flushed: InnoDB's dirty pages of the table are written
        // first (engines without FOR EXPORT refuse it and keep their files as they are).
        if c.exec(&format!("FLUSH TABLES {table} FOR EXPORT"))?.is_ok() {
            let _ = c.exec("UNLOCK TABLES")?;
        }
        let q = format!(
            "SELECT IFNULL(data_length,0), IFNULL(index_length,0), IFNULL(engine,''), @@datadir, DATABASE() FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = {}",
            sql_str(table)
        );
        let out = match c.rows(&q)? {
            Ok(o) => o.concat(),
            Err(e) => return Ok(Err(e)),
        };
        let f: Vec<&str> = out.trim_end_matches('\n').split('\t').collect();
        if f.len() < 5 {
            return Ok(Err(format!("no table {table} in the current database")));
        }
        let (d, i) = (f[0].parse().unwrap_or(0), f[1].parse().unwrap_or(0));
        v.push(("data".into(), d));
        v.push(("index".into(), i));
        // The table's own files, when this process may read the data directory.
        let dir = Path::new(f[3]).join(f[4]);
        let files: u64 = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_str().and_then(|n| n.split_once('.')).is_some_and(|(stem, _)| stem == table || stem.starts_with(&format!("{table}#"))))
            .map(|e| du(&e.path()))
            .sum();
        let engine = f[2].to_ascii_lowercase();
        if engine == "rocksdb" {
            // MyRocks keeps every table in one LSM tree under #rocksdb.
            v.push(("files (#rocksdb)".into(), du(&Path::new(f[3]).join("#rocksdb"))));
        } else if files > 0 {
            v.push(("files".into(), files));
        }
    }
    if let Some(dir) = object_store {
        v.push(("object store".into(), du(dir)));
    }
    Ok(Ok(v))
}

/// `1.234 s`, `12 ms`.
pub fn fmt_secs(s: f64) -> String {
    if s >= 60.0 {
        format!("{}m{:04.1}s", (s / 60.0).floor(), s % 60.0)
    } else if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1000.0)
    }
}

/// The cells of one step: (row, value) in order.
fn step_cells(s: &StepResult) -> Vec<(String, String)> {
    let mut v = Vec::new();
    if let Some(e) = &s.error {
        v.push((s.step.clone(), format!("FAILED: {}", trunc(e, 40))));
        return v;
    }
    if s.seconds.len() > 1 {
        for (i, t) in s.seconds.iter().enumerate() {
            v.push((format!("{} #{}", s.step, i + 1), fmt_secs(*t)));
        }
    } else if let Some(t) = s.seconds.first() {
        v.push((s.step.clone(), fmt_secs(*t)));
    } else if let Some(n) = &s.note {
        v.push((s.step.clone(), n.clone()));
    }
    for (what, b) in &s.sizes {
        v.push((format!("{}: {what}", s.step), crate::units::human_bytes(*b as f64)));
    }
    v
}

/// The table of results: one row per step (per run of a repeated query, and
/// per size), one column per target or engine; rows in step order.
pub fn table_text(rep: &Report) -> String {
    const START: &str = "client start + connect (in import times)";
    let mut rows: Vec<String> = Vec::new();
    if rep.columns.iter().any(|c| c.client_overhead_s.is_some()) {
        rows.push(START.to_string());
    }
    let mut cells: Vec<std::collections::BTreeMap<String, String>> =
        rep.columns.iter().map(|c| c.client_overhead_s.map(|t| std::collections::BTreeMap::from([(START.to_string(), fmt_secs(t))])).unwrap_or_default()).collect();
    let longest = rep.columns.iter().map(|c| c.steps.len()).max().unwrap_or(0);
    for i in 0..longest {
        for (c, m) in rep.columns.iter().zip(cells.iter_mut()) {
            for (k, v) in c.steps.get(i).map(step_cells).unwrap_or_default() {
                if !rows.contains(&k) {
                    rows.push(k.clone());
                }
                m.insert(k, v);
            }
        }
    }
    let first = rows.iter().map(|r| r.chars().count()).max().unwrap_or(9).max(9);
    let widths: Vec<usize> = rep.columns.iter().zip(&cells).map(|(c, m)| m.values().map(|v| v.chars().count()).max().unwrap_or(0).max(c.name.chars().count()).max(8)).collect();
    let mut s = format!("{:<first$}", "operation");
    for (c, w) in rep.columns.iter().zip(&widths) {
        s.push_str(&format!("  {:>w$}", c.name));
    }
    s.push('\n');
    for r in &rows {
        s.push_str(&format!("{r:<first$}"));
        for (m, w) in cells.iter().zip(&widths) {
            s.push_str(&format!("  {:>w$}", m.get(r).map(String::as_str).unwrap_or("-")));
        }
        s.push('\n');
    }
    for c in &rep.columns {
        if let Some(f) = c.failed.as_ref().or(c.unavailable.as_ref()) {
            s.push_str(&format!("{}: {f}\n", c.name));
        }
    }
    for n in &rep.notes {
        s.push_str(&format!("Note: {n}\n"));
    }
    s
}

fn trunc(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>())
    }
}

/// Stores the report in the results store (tables of its own beside the runs).
pub fn store(path: &Path, rep: &Report) -> Result<i64> {
    let c = crate::store::open(path, true)?;
    let io = |e: rusqlite::Error| Error::Io(format!("results store {}: {e}", path.display()));
    c.execute_batch(
        "CREATE TABLE IF NOT EXISTS scenarios(id INTEGER PRIMARY KEY, name TEXT NOT NULL, target TEXT NOT NULL, started TEXT NOT NULL, failed TEXT, report TEXT NOT NULL);
         CREATE TABLE IF NOT EXISTS scenario_steps(scenario INTEGER NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE, col TEXT NOT NULL, seq INTEGER NOT NULL, step TEXT NOT NULL, kind TEXT NOT NULL, run INTEGER NOT NULL, seconds REAL, rows INTEGER, error TEXT);
         CREATE TABLE IF NOT EXISTS scenario_sizes(scenario INTEGER NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE, col TEXT NOT NULL, seq INTEGER NOT NULL, step TEXT NOT NULL, what TEXT NOT NULL, bytes INTEGER NOT NULL);",
    )
    .map_err(io)?;
    let failed: Vec<String> = rep.columns.iter().filter_map(|c| c.failed.as_ref().map(|f| format!("{}: {f}", c.name))).collect();
    let json = serde_json::to_string(rep).map_err(|e| Error::Io(e.to_string()))?;
    c.execute(
        "INSERT INTO scenarios(name, target, started, failed, report) VALUES(?1, ?2, ?3, ?4, ?5)",
        rusqlite::params![rep.scenario, rep.target, rep.started, if failed.is_empty() { None } else { Some(failed.join("; ")) }, json],
    )
    .map_err(io)?;
    let id = c.last_insert_rowid();
    for col in &rep.columns {
        for (seq, s) in col.steps.iter().enumerate() {
            let runs: Vec<Option<f64>> = if s.seconds.is_empty() { vec![None] } else { s.seconds.iter().map(|t| Some(*t)).collect() };
            for (run, t) in runs.iter().enumerate() {
                c.execute(
                    "INSERT INTO scenario_steps(scenario, col, seq, step, kind, run, seconds, rows, error) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    rusqlite::params![id, col.name, seq as i64 + 1, s.step, s.kind, run as i64 + 1, t, s.rows.map(|r| r as i64), s.error],
                )
                .map_err(io)?;
            }
            for (what, b) in &s.sizes {
                c.execute("INSERT INTO scenario_sizes(scenario, col, seq, step, what, bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6)", rusqlite::params![id, col.name, seq as i64 + 1, s.step, what, *b as i64])
                    .map_err(io)?;
            }
        }
    }
    Ok(id)
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
