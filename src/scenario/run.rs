//! Running steps: each timed, its rows counted and checksummed, the
//! table's sizes read from the server and the disk.

use super::client::Client;
use super::csv::generate;
use super::file::Step;
use super::table::fmt_secs;
use super::{Column, StepResult};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

pub(crate) fn describe(r: &StepResult) -> String {
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

pub(crate) fn resolve(work: &Path, f: &str) -> PathBuf {
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
                crate::signal::sleep_unless_interrupted(Duration::from_secs_f64(*seconds));
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
pub(crate) fn checksum(mut rows: Vec<String>) -> String {
    use sha2::{Digest, Sha256};
    rows.sort_unstable();
    let mut h = Sha256::new();
    for l in rows {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
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

pub(crate) fn sql_str(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

pub(crate) fn sizes(c: &mut Client, table: &str, object_store: Option<&Path>) -> Result<std::result::Result<Vec<(String, u64)>, String>> {
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
