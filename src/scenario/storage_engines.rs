//! The built-in `engines` scenario: the timed operations of MariaDB's S3
//! engine write-up (import a CSV, ALTER TABLE ... ENGINE=, full scans twice,
//! ADD INDEX, indexed queries twice, DROP INDEX, ALTER back to InnoDB, the
//! sizes on disk and in the object store) for one table of N rows on each
//! storage engine this machine has, and on PostgreSQL where an equivalent
//! exists. Every server is a sandbox started here and stopped afterwards.

use super::{minio, run_steps, Client, Column, ColumnGen, Report, Sqls, Step};
use crate::db::{ConnConfig, Target};
use crate::error::{Error, Result};
use crate::server::{self, Kind, StartOpts};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every engine the scenario knows, in the order of the table.
pub const ALL: &[&str] = &["innodb", "aria", "myrocks", "innodb-lz4", "s3", "postgres"];

const TABLE: &str = "s3test";
const DB: &str = "fairbench";

/// The query of the write-up: without an index a full scan, with one a lookup.
/// The ids cycle over rows/512 values, so each id has 512 rows, as there.
const QUERY: &str = "SELECT * FROM s3test WHERE id = 8";

pub struct Options {
    pub rows: u64,
    pub engines: Vec<String>,
    pub work: PathBuf,
    pub quiet: bool,
}

/// Parses `--engines`; every known engine when none are given.
pub fn parse_engines(s: Option<&str>) -> Result<Vec<String>> {
    let Some(s) = s else { return Ok(ALL.iter().map(|e| e.to_string()).collect()) };
    let mut v = Vec::new();
    for e in s.split(',').map(|e| e.trim().to_ascii_lowercase()).filter(|e| !e.is_empty()) {
        if !ALL.contains(&e.as_str()) {
            return Err(crate::usage!("--engines: unknown engine {e:?} (known: {})", ALL.join(", ")));
        }
        if !v.contains(&e) {
            v.push(e);
        }
    }
    if v.is_empty() {
        return Err(crate::usage!("--engines: name at least one of {}", ALL.join(", ")));
    }
    Ok(v)
}

/// The engine's name in ALTER TABLE ... ENGINE= and its table options.
fn alter_to(engine: &str) -> Option<&'static str> {
    match engine {
        "aria" => Some("ENGINE=Aria"),
        "myrocks" => Some("ENGINE=RocksDB"),
        "innodb-lz4" => Some("ENGINE=InnoDB PAGE_COMPRESSED=1"),
        "s3" => Some("ENGINE=S3"),
        _ => None,
    }
}

fn sql(name: &str, mysql: Option<String>, postgres: Option<String>) -> Step {
    Step::Sql { name: Some(name.into()), sql: None, mysql: mysql.map(Sqls::One), postgres: postgres.map(Sqls::One) }
}

fn query(name: &str) -> Step {
    Step::Query { name: Some(name.into()), sql: Some(QUERY.into()), mysql: None, postgres: None, repeat: 2 }
}

/// The steps of one column. `objects`: the object store directory of the table (S3).
pub fn steps(engine: &str, csv: &Path, objects: Option<&Path>) -> Vec<Step> {
    let both = |s: &str| (Some(s.to_string()), Some(s.to_string()));
    let my_only = |s: String| (Some(s), None);
    let mut v = Vec::new();
    let (m, p) = both(&format!("DROP TABLE IF EXISTS {TABLE}"));
    v.push(sql("drop old table", m, p));
    let (m, p) = (Some(format!("CREATE TABLE {TABLE}(id INT, description VARCHAR(40)) ENGINE=InnoDB")), Some(format!("CREATE TABLE {TABLE}(id INT, description VARCHAR(40))")));
    v.push(sql("create table", m, p));
    // LOAD DATA into InnoDB (then ALTER), COPY on PostgreSQL: one row of the table.
    v.push(Step::Import { name: Some("import CSV".into()), table: TABLE.into(), file: csv.display().to_string() });
    let alter = alter_to(engine).map(|a| format!("ALTER TABLE {TABLE} {a}"));
    let (m, p) = match &alter {
        Some(a) => my_only(a.clone()),
        None => (None, None),
    };
    v.push(sql("ALTER TABLE to the engine", m, p));
    let obj = objects.map(|p| p.display().to_string());
    v.push(Step::Sizes { name: Some("size".into()), table: TABLE.into(), object_store_dir: obj.clone() });
    v.push(query("scan id=8 (no index)"));
    let (m, p) = (Some(format!("ALTER TABLE {TABLE} ADD INDEX idx_id(id)")), Some(format!("CREATE INDEX idx_id ON {TABLE}(id)")));
    v.push(sql("ADD INDEX", m, p));
    v.push(Step::Sizes { name: Some("size with index".into()), table: TABLE.into(), object_store_dir: obj });
    v.push(query("query id=8 (index)"));
    let (m, p) = (Some(format!("ALTER TABLE {TABLE} DROP INDEX idx_id")), Some("DROP INDEX idx_id".to_string()));
    v.push(sql("DROP INDEX", m, p));
    let back = alter.as_ref().map(|_| format!("ALTER TABLE {TABLE} ENGINE=InnoDB{}", if engine == "innodb-lz4" { " PAGE_COMPRESSED=0" } else { "" }));
    let (m, p) = match back {
        Some(b) => my_only(b),
        None => (None, None),
    };
    v.push(sql("ALTER TABLE back to InnoDB", m, p));
    let (m, p) = both(&format!("DROP TABLE {TABLE}"));
    v.push(sql("DROP TABLE", m, p));
    v
}

/// The generated table of the write-up: an id repeating every rows/512 rows
/// and a random 40-character description.
pub fn csv_step(rows: u64, file: &Path) -> Step {
    let ids = (rows / 512).max(1) as i64;
    Step::Generate {
        name: Some("generate CSV".into()),
        file: file.display().to_string(),
        rows,
        columns: vec![
            ColumnGen { name: "id".into(), r#gen: "cycle".into(), min: Some(1), max: Some(ids), len: None, value: None },
            ColumnGen { name: "description".into(), r#gen: "string".into(), min: None, max: None, len: Some(40), value: None },
        ],
        seed: Some(3),
    }
}

/// A sandbox stopped when dropped.
struct Running(server::Sandbox);

impl Drop for Running {
    fn drop(&mut self) {
        // After Ctrl-C the whole command must end within two seconds: no clean shutdown wait.
        let limit = if crate::model::interrupted() { Duration::from_millis(400) } else { Duration::from_secs(30) };
        let _ = server::stop(&self.0, limit);
    }
}

fn opts(kind: Kind, sets: Vec<(String, String)>) -> StartOpts {
    StartOpts {
        kind,
        profile: "packaged".into(),
        sets,
        port: None,
        dir: None,
        user: "fairbench".into(),
        password: "fairbench".into(),
        database: DB.into(),
        machine: server::profile::this_machine(),
        tls_dir: None,
        tls_only_user: None,
        kind_args: Default::default(),
        build: None,
        timeout: Duration::from_secs(120),
    }
}

/// Plugins of the MariaDB packages that provide the engines (Debian's
/// mariadb-plugin-rocksdb, mariadb-plugin-s3, mariadb-plugin-provider-lz4).
fn plugin_dir() -> Option<PathBuf> {
    ["/usr/lib/mysql/plugin", "/usr/lib64/mysql/plugin", "/usr/lib/mariadb/plugin", "/usr/local/mysql/lib/plugin"].iter().map(PathBuf::from).find(|d| d.is_dir())
}

fn has_plugin(name: &str) -> bool {
    plugin_dir().is_some_and(|d| d.join(format!("{name}.so")).is_file())
}

/// Runs the scenario; columns that cannot run say why.
pub fn run(o: &Options, target_note: &mut String) -> Result<Report> {
    let mut rep = Report { scenario: "engines".into(), started: crate::units::now_rfc3339(), ..Default::default() };
    let csv = o.work.join(format!("{TABLE}.csv"));
    let want = |e: &str| o.engines.iter().any(|x| x == e);
    let mariadb_engines: Vec<&String> = o.engines.iter().filter(|e| *e != "postgres").collect();

    // The CSV first: every column imports the same file.
    if !o.quiet {
        eprintln!("Generating {} rows to {}", o.rows, csv.display());
    }
    let t0 = std::time::Instant::now();
    let Step::Generate { columns: gen_cols, seed, .. } = csv_step(o.rows, &csv) else { unreachable!("csv_step makes a generate step") };
    super::generate(&csv, o.rows, &gen_cols, seed.unwrap_or(1))?;
    rep.notes.push(format!(
        "CSV of {} rows ({}) generated in {}",
        o.rows,
        crate::units::human_bytes(std::fs::metadata(&csv).map(|m| m.len()).unwrap_or(0) as f64),
        super::fmt_secs(t0.elapsed().as_secs_f64())
    ));

    // S3 needs an endpoint before the server starts (its settings are read at start).
    let mut endpoint = None;
    let mut s3_unavailable = None;
    if want("s3") {
        if !has_plugin("ha_s3") {
            s3_unavailable = Some("not available: the ha_s3 plugin is not installed (Debian: mariadb-plugin-s3)".to_string());
        } else {
            match minio::find().and_then(|bin| minio::start(&bin, &o.work.join("minio"))) {
                Ok(ep) => endpoint = Some(ep),
                Err(why) => s3_unavailable = Some(format!("not available: {why}")),
            }
        }
    }
    let mut columns: Vec<Column> = Vec::new();
    let mut notes = Vec::new();
    if !mariadb_engines.is_empty() {
        let mut plugins = Vec::new();
        for (e, p) in [("myrocks", "ha_rocksdb"), ("s3", "ha_s3"), ("innodb-lz4", "provider_lz4")] {
            if want(e) && has_plugin(p) && (e != "s3" || endpoint.is_some()) {
                plugins.push(p);
            }
        }
        let mut sets: Vec<(String, String)> = Vec::new();
        if !plugins.is_empty() {
            sets.push(("plugin_load_add".into(), plugins.join(";")));
        }
        if let Some(ep) = &endpoint {
            for (k, v) in [
                ("s3_host_name", "127.0.0.1".to_string()),
                ("s3_port", ep.port.to_string()),
                ("s3_use_http", "ON".into()),
                ("s3_protocol_version", "Path".into()),
                ("s3_bucket", minio::BUCKET.into()),
                ("s3_access_key", minio::ACCESS_KEY.into()),
                ("s3_secret_key", minio::SECRET_KEY.into()),
                ("s3_region", minio::REGION.into()),
            ] {
                sets.push((k.into(), v));
            }
        }
        if !o.quiet {
            eprintln!("Starting MariaDB (plugins: {})", if plugins.is_empty() { "none".into() } else { plugins.join(", ") });
        }
        let sb = Running(server::start(&opts(Kind::parse("mariadb")?, sets))?);
        let mut client = Client::connect(ConnConfig::new(Target::parse(&sb.0.url)?))?;
        target_note.push_str(&format!("MariaDB {} ", sb.0.version));
        let have = match client.rows("SELECT LOWER(engine) FROM information_schema.engines WHERE support IN ('YES','DEFAULT')")? {
            Ok(rows) => rows,
            Err(e) => return Err(Error::Sql(format!("listing the engines: {e}"))),
        };
        for e in &mariadb_engines {
            let e = e.as_str();
            let mut why = match e {
                "aria" if !have.iter().any(|h| h == "aria") => Some("not available: this server has no Aria".to_string()),
                "myrocks" if !have.iter().any(|h| h == "rocksdb") => Some(if has_plugin("ha_rocksdb") {
                    "not available: the RocksDB plugin did not load (see the server's error log)".into()
                } else {
                    "not available: the ha_rocksdb plugin is not installed (Debian: mariadb-plugin-rocksdb)".into()
                }),
                "s3" if s3_unavailable.is_some() => s3_unavailable.clone(),
                "s3" if !have.iter().any(|h| h == "s3") => Some("not available: the S3 plugin did not load (see the server's error log)".into()),
                _ => None,
            };
            let mut name = e.to_string();
            if e == "innodb-lz4" && why.is_none() {
                // lz4 where available, zlib otherwise (always compiled in).
                if client.exec("SET GLOBAL innodb_compression_algorithm = lz4")?.is_err() {
                    notes.push("innodb-lz4: lz4 is not available (Debian: mariadb-plugin-provider-lz4): page compression used zlib".to_string());
                    name = "innodb-zlib".into();
                    if let Err(err) = client.exec("SET GLOBAL innodb_compression_algorithm = zlib")? {
                        why = Some(format!("not available: {err}"));
                    }
                }
            }
            if let Some(w) = why {
                columns.push(Column { name, unavailable: Some(w), ..Default::default() });
                continue;
            }
            if !o.quiet {
                eprintln!("Engine {name}:");
            }
            let objects = if e == "s3" { endpoint.as_ref().map(|ep| ep.table_dir(DB, TABLE)) } else { None };
            let mut col = run_steps(&mut client, &steps(e, &csv, objects.as_deref()), &o.work, &name, o.quiet)?;
            col.name = name;
            columns.push(col);
        }
        drop(client);
        drop(sb);
    }
    if want("postgres") {
        match server::start(&opts(Kind::parse("postgres")?, vec![])) {
            Ok(sb) => {
                let sb = Running(sb);
                let mut client = Client::connect(ConnConfig::new(Target::parse(&sb.0.url)?))?;
                target_note.push_str(&format!("PostgreSQL {}", sb.0.version));
                if !o.quiet {
                    eprintln!("Engine postgres:");
                }
                columns.push(run_steps(&mut client, &steps("postgres", &csv, None), &o.work, "postgres", o.quiet)?);
            }
            Err(Error::Interrupted) => return Err(Error::Interrupted),
            Err(e) => columns.push(Column { name: "postgres".into(), unavailable: Some(format!("not available: {e}")), ..Default::default() }),
        }
    }
    drop(endpoint);
    rep.columns = columns;
    rep.notes.extend(notes);
    rep.notes.push("PostgreSQL has no storage engines to ALTER to: its column is the heap table with the same steps.".into());
    Ok(rep)
}
