//! Exports the C symbols sysbench Lua scripts reach through LuaJIT's
//! `ffi.C` (src/workload/lua/ffi.rs) from the binary's dynamic symbol
//! table, where `ffi.C` looks them up.

const SYMBOLS: &[&str] = &[
    "sb_counter_inc",
    "sb_event_start",
    "sb_event_stop",
    "sb_more_events",
    "sb_rand_default",
    "sb_rand_uniform",
    "sb_rand_gaussian",
    "sb_rand_special",
    "sb_rand_pareto",
    "sb_rand_zipfian",
    "sb_rand_unique",
    "sb_rand_uniform_uint64",
    "sb_rand_uniform_double",
    "sb_rand_str",
    "sb_rand_varstr",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        for s in SYMBOLS {
            println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic-symbol={s}");
        }
    }
}
