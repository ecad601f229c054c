//! The generate step: a CSV file of typed columns from seeded generators.

use super::file::ColumnGen;
use crate::error::{Error, Result};
use crate::rand::Rng;
use crate::usage;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Every column's generator is known and has what it needs.
pub(crate) fn check_columns(cols: &[ColumnGen]) -> Result<()> {
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
