//! Where the programs fairbench runs are found: installed ones on PATH,
//! and those it builds from source once (TiDB, Vitess, MinIO) in its
//! cache, where the sandboxes start them and an engine that needs a
//! cluster's own client (Vitess's vtctldclient) finds it.

use std::path::PathBuf;

/// A binary by name on PATH, in /usr/sbin, or in `extra` directories.
pub fn find_bin(names: &[&str], extra: &[PathBuf]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = extra.to_vec();
    dirs.extend(std::env::split_paths(&path));
    dirs.push("/usr/sbin".into());
    dirs.push("/usr/local/sbin".into());
    for n in names {
        for d in &dirs {
            let p = d.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A program fairbench may have built: only in the directory the
/// environment variable `var` names when it is set, else on PATH, else in
/// [`bin_dir`].
pub fn built(name: &str, var: &str) -> Option<PathBuf> {
    match std::env::var_os(var).filter(|v| !v.is_empty()) {
        Some(d) => Some(PathBuf::from(d).join(name)).filter(|p| p.is_file()),
        None => find_bin(&[name], &[]).or_else(|| Some(bin_dir().join(name)).filter(|p| p.is_file())),
    }
}

/// Where engine builds fetched by version are unpacked (`server start postgres --version 17`):
/// FAIRBENCH_ENGINE_CACHE when set; as root /var/cache/fairbench/engines, since the server runs
/// as its service account, which may not enter root's home; else ~/.cache/fairbench/engines.
pub fn engines_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("FAIRBENCH_ENGINE_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(d);
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return PathBuf::from("/var/cache/fairbench/engines");
    }
    bin_dir().with_file_name("engines")
}

/// `~/.cache/fairbench/bin` (or $XDG_CACHE_HOME/fairbench/bin).
pub fn bin_dir() -> PathBuf {
    let base =
        std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into())).join(".cache"));
    base.join("fairbench").join("bin")
}
