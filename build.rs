//! Names the build: `FAIRBENCH_BUILD` is the crate's version with the
//! commit it was built from (`0.1.0+5f3c2a1b9d0e`, `.modified` when the
//! sources differ from it), so that runs made by different builds are told
//! apart; outside a git checkout it is the version alone.
//!
//! Exports the C symbols sysbench Lua scripts reach through LuaJIT's
//! `ffi.C` from the binary's dynamic symbol table, where `ffi.C` looks them
//! up. The names are read from the functions themselves (every
//! `#[no_mangle]` function in src/workload/lua/ffi.rs), so the list cannot
//! drift from the code.

const FFI: &str = "src/workload/lua/ffi.rs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={FFI}");
    build_name();
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let src = std::fs::read_to_string(FFI).unwrap_or_else(|e| panic!("{FFI}: {e}"));
    let mut lines = src.lines();
    while let Some(l) = lines.next() {
        if l.trim() != "#[no_mangle]" {
            continue;
        }
        let f = lines.next().unwrap_or_default();
        let name = f.split("fn ").nth(1).and_then(|r| r.split('(').next()).unwrap_or_else(|| panic!("{FFI}: no function after #[no_mangle]: {f}"));
        println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic-symbol={}", name.trim());
    }
}

fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn build_name() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        println!("cargo:rustc-env=FAIRBENCH_BUILD={version}");
        return;
    };
    // Built again when the commit moves or a source changes (to say whether it is modified).
    for path in ["HEAD", "packed-refs"].into_iter().map(String::from).chain(git(&["symbolic-ref", "-q", "HEAD"])) {
        // A path that does not exist would have the script run on every build.
        if let Some(p) = git(&["rev-parse", "--git-path", &path]).filter(|p| std::path::Path::new(p).exists()) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    for p in ["src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={p}");
    }
    let modified = git(&["status", "--porcelain", "--untracked-files=no", "--", "src", "Cargo.toml", "Cargo.lock", "build.rs"]).is_some_and(|s| !s.is_empty());
    println!("cargo:rustc-env=FAIRBENCH_BUILD={version}+{commit}{}", if modified { ".modified" } else { "" });
}
