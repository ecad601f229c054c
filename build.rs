//! Exports the C symbols sysbench Lua scripts reach through LuaJIT's
//! `ffi.C` from the binary's dynamic symbol table, where `ffi.C` looks them
//! up. The names are read from the functions themselves (every
//! `#[no_mangle]` function in src/workload/lua/ffi.rs), so the list cannot
//! drift from the code.

const FFI: &str = "src/workload/lua/ffi.rs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={FFI}");
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
