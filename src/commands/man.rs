//! `fairbench man DIR`: man pages from the command line's definition, one
//! for fairbench and one per command (`fairbench-run.1` ...), so they cannot
//! drift from `--help`.

use crate::error::{Error, Result};
use std::path::Path;

pub fn write(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
    // clap_mangen names each page after the command's display name.
    let cmd = crate::cli::command().display_name("fairbench");
    clap_mangen::generate_to(cmd, dir).map_err(|e| Error::Io(format!("cannot write the man pages into {}: {e}", dir.display())))?;
    let pages = std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok()).filter(|e| e.path().extension().is_some_and(|x| x == "1")).count()).unwrap_or(0);
    println!("{pages} man pages written into {}", dir.display());
    Ok(())
}
