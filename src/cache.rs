//! Where the programs fairbench builds from source once (TiDB, Vitess,
//! MinIO) are kept: the sandboxes start them from there, and an engine
//! that needs a cluster's own client (Vitess's vtctldclient) finds it there.

use std::path::PathBuf;

/// `~/.cache/fairbench/bin` (or $XDG_CACHE_HOME/fairbench/bin).
pub fn bin_dir() -> PathBuf {
    let base =
        std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into())).join(".cache"));
    base.join("fairbench").join("bin")
}
