//! A workload family is one folder under src/workload/ plus one line in the
//! registry (src/workload/mod.rs): no other source file may name it. This
//! reads the sources and fails on a family's name (its folder name, in
//! lower, Capitalized and UPPER case, anywhere in code and strings) or one
//! of its workload names (in string literals) outside those two places.
//! Comments are left out: they may say what a family is for.

use fairbench::workload::FAMILIES;
use std::path::{Path, PathBuf};

/// The one file besides a family's folder allowed to name it.
const REGISTRY: &str = "src/workload/mod.rs";

/// Places that still name a family, each with why. Future work shrinks
/// this list; an entry that no longer matches anything fails the test, so
/// it is removed when its reason goes away.
const ALLOWED: &[(&str, &str, &str)] = &[
    // (path or folder prefix, pattern, reason)
    ("src/workload/tpcc/ch/tables.rs", "tpch", "the tpchgen crate (dbgen's generator), where CH-benCHmark's SUPPLIER, NATION and REGION rows come from, not the TPC-H family"),
    ("src/cli/bench_args.rs", "lua", "sysbench's general option --luajit-cmd (a run-control option of sysbench itself, accepted with no effect), not the Lua family"),
];

/// Files inside a family's folder whose non-test code may match on
/// `Protocol::`, each with why. Engines differ in the dialect
/// (src/db/dialect.rs, answered in each engine's folder); a family writes
/// its SQL once. An entry that no longer matches anything fails the test.
const ENGINE_ALLOWED: &[(&str, &str)] = &[
    // (path, reason)
    ("src/workload/lua/driver.rs", "which sysbench driver (mysql, pgsql) a target is to a script is sysbench's Lua API, which scripts branch on, not SQL"),
];

/// Files outside src/db/ and the families' folders whose non-test code
/// may name a `Protocol::` variant, each with why. An engine is one folder
/// under src/db/ and one registry line: what differs between engines is
/// asked of the engine (its dialect, or a method on Protocol), not matched
/// on elsewhere. An entry that no longer matches anything fails the test.
const ENGINE_OUTSIDE_DB_ALLOWED: &[(&str, &str)] = &[
    // (path, reason)
    ("src/scenario/client.rs", "the timed-operation scenarios drive the command-line client of the target's wire protocol (mariadb/mysql with its flags, psql with its own) as a user would; an engine that speaks an existing protocol uses that client and needs no line here"),
    ("src/cli/target_args.rs", "sysbench's --db-driver values (mysql, pgsql) and its --mysql-*/--pgsql-* option sets each name a wire protocol, as sysbench's drivers do; an engine that speaks an existing protocol needs no line here"),
];

#[derive(Debug)]
struct Hit {
    file: String,
    line: usize,
    pattern: String,
}

/// Source text with comments blanked out (newlines kept, so line numbers
/// hold), and the string literals with the line each starts on.
fn strip(src: &str) -> (String, Vec<(usize, String)>) {
    let b = src.as_bytes();
    let mut code = String::with_capacity(src.len());
    let mut strings = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == b'\n' {
                        code.push('\n');
                        line += 1;
                    }
                    i += 1;
                }
            }
            continue;
        }
        // Raw strings: r"..", r#".."#, br#".."#.
        if c == b'r' && (i == 0 || !ident(b[i - 1]) || (b[i - 1] == b'b' && (i < 2 || !ident(b[i - 2])))) {
            let mut j = i + 1;
            while b.get(j) == Some(&b'#') {
                j += 1;
            }
            if b.get(j) == Some(&b'"') {
                let hashes = j - i - 1;
                let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let body_start = j + 1;
                let end = src[body_start..].find(&close).map(|k| body_start + k).unwrap_or(b.len());
                let body = &src[body_start..end];
                strings.push((line, body.to_string()));
                code.push_str(&src[i..body_start]);
                code.push_str(body);
                line += body.matches('\n').count();
                let stop = (end + close.len()).min(b.len());
                code.push_str(&src[end..stop]);
                i = stop;
                continue;
            }
        }
        if c == b'"' {
            let start_line = line;
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                if b[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            let end = j.min(b.len());
            let body = &src[i + 1..end];
            strings.push((start_line, body.to_string()));
            line += body.matches('\n').count();
            let stop = (end + 1).min(b.len());
            code.push_str(&src[i..stop]);
            i = stop;
            continue;
        }
        // A char literal may hold a quote ('"'); a lifetime is code.
        if c == b'\'' {
            let len = if b.get(i + 1) == Some(&b'\\') {
                src[i + 2..].find('\'').map(|k| k + 3)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(3)
            } else {
                None
            };
            if let Some(n) = len {
                code.push_str(&src[i..i + n]);
                i += n;
                continue;
            }
        }
        if c == b'\n' {
            line += 1;
        }
        let ch = src[i..].chars().next().unwrap();
        code.push(ch);
        i += ch.len_utf8();
    }
    (code, strings)
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// Whether `word` occurs in `s` as a whole word (not inside an identifier).
fn has_word(s: &str, word: &str) -> bool {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    s.match_indices(word).any(|(k, _)| !ident(s[..k].chars().next_back()) && !ident(s[k + word.len()..].chars().next()))
}

/// Whether `word` begins a word or a part of one in `s` (`LuaFamily`,
/// `is_tpcc`, `crate::oltp`), not only inside another word (`evaluated`
/// holds "lua").
fn starts_a_word(s: &str, word: &str) -> bool {
    s.match_indices(word).any(|(k, _)| !s[..k].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric()))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every place outside a family's folder and the registry that names it.
fn hits() -> Vec<Hit> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let (code, strings) = strip(&std::fs::read_to_string(&path).unwrap());
        for f in FAMILIES {
            let name = f.name();
            if rel == REGISTRY || rel.starts_with(&format!("src/workload/{name}/")) {
                continue;
            }
            for pattern in [name.to_string(), capitalized(name), name.to_ascii_uppercase()] {
                for (n, l) in code.lines().enumerate() {
                    if starts_a_word(l, &pattern) {
                        out.push(Hit { file: rel.clone(), line: n + 1, pattern: pattern.clone() });
                    }
                }
            }
            for w in f.workloads() {
                for (n, s) in &strings {
                    if has_word(s, w) {
                        out.push(Hit { file: rel.clone(), line: *n, pattern: w.to_string() });
                    }
                }
            }
        }
    }
    out
}

fn allowed(h: &Hit, (place, pattern, _): &(&str, &str, &str)) -> bool {
    let place_ok = if place.ends_with('/') { h.file.starts_with(place) } else { h.file == *place };
    place_ok && (*pattern == "*" || h.pattern.eq_ignore_ascii_case(pattern) || h.pattern.starts_with(pattern))
}

#[test]
fn families_are_named_only_in_their_folder_and_the_registry() {
    let hits = hits();
    let unexplained: Vec<String> = hits.iter().filter(|h| !ALLOWED.iter().any(|a| allowed(h, a))).map(|h| format!("{}:{}: names '{}'", h.file, h.line, h.pattern)).collect();
    assert!(unexplained.is_empty(), "a workload family is named outside its folder and {REGISTRY}: go through the registry (workload::family) instead\n{}", unexplained.join("\n"));
}

#[test]
fn every_allowed_exception_is_still_needed() {
    let hits = hits();
    let stale: Vec<String> = ALLOWED.iter().filter(|a| !hits.iter().any(|h| allowed(h, a))).map(|(p, pat, why)| format!("{p} '{pat}' ({why})")).collect();
    assert!(stale.is_empty(), "these exceptions match nothing any more: remove them from ALLOWED\n{}", stale.join("\n"));
}

#[test]
fn every_family_has_its_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in FAMILIES {
        assert!(root.join("src/workload").join(f.name()).is_dir(), "registered family '{}' has no folder src/workload/{}/", f.name(), f.name());
    }
}

/// The scanner itself: a name in a comment is fine, in code or a string it
/// is found, and a URL's "//" inside a string does not hide the rest.
#[test]
fn scanner_tells_comments_from_code() {
    let (code, strings) = strip("let a = 1; // tpcc here\n/* tpcc */ let u = \"mysql://x\"; let t = \"tpcc\";\nlet c = '\"'; let r = r#\"a \"q\" b\"#; x // oltp\n");
    assert!(!code.lines().next().unwrap().contains("tpcc"), "{code}");
    assert!(code.lines().nth(1).unwrap().contains("tpcc"), "{code}");
    assert!(!code.contains("oltp"), "{code}");
    assert_eq!(strings.iter().map(|(l, s)| (*l, s.as_str())).collect::<Vec<_>>(), vec![(2, "mysql://x"), (2, "tpcc"), (3, "a \"q\" b")]);
    assert!(has_word("run oltp_read_only now", "oltp_read_only"));
    assert!(!has_word("fn bulk_insert_rows", "bulk_insert"));
}

/// `code` (comments already blanked by `strip`) with each `#[cfg(test)]`
/// item blanked, lines kept. An item is its first line when that ends
/// with `;` or closes every brace it opens; otherwise it runs to the first
/// line that starts with a closing bracket at the attribute's indentation
/// (rustfmt's layout, which the project's code keeps).
fn without_tests(code: &str) -> String {
    let mut out = Vec::new();
    let mut closer: Option<&str> = None;
    let mut lines = code.lines();
    while let Some(l) = lines.next() {
        if let Some(indent) = closer {
            if l.strip_prefix(indent).is_some_and(|rest| rest.starts_with(['}', ')', ']'])) {
                closer = None;
            }
            out.push("");
            continue;
        }
        if l.trim() != "#[cfg(test)]" {
            out.push(l);
            continue;
        }
        let indent = &l[..l.len() - l.trim_start().len()];
        out.push("");
        // Further attributes, then the item's first line.
        for first in lines.by_ref() {
            out.push("");
            if first.trim_start().starts_with("#[") {
                continue;
            }
            let opens = first.matches('{').count();
            let one_line = first.trim_end().ends_with(';') || (opens > 0 && opens == first.matches('}').count());
            if !one_line {
                closer = Some(indent);
            }
            break;
        }
    }
    out.join("\n")
}

/// Every line of non-test code in a family's folder that names an
/// `Protocol::` variant.
fn engine_hits() -> Vec<Hit> {
    let in_a_family = |rel: &str| FAMILIES.iter().any(|f| rel.starts_with(&format!("src/workload/{}/", f.name())));
    sources().iter().filter(|(rel, _)| in_a_family(rel)).flat_map(|(rel, code)| engine_lines(rel, code)).collect()
}

/// The listed exceptions that no hit needs any more.
fn stale(allowed: &[(&str, &str)], hits: &[Hit]) -> Vec<String> {
    allowed.iter().filter(|(p, _)| !hits.iter().any(|h| h.file == *p)).map(|(p, why)| format!("{p} ({why})")).collect()
}

// Engines once differed by `match engine` inside the LinkBench, pgbench and
// Lua families' folders; the dialect says each difference now.
#[test]
fn families_ask_the_dialect_instead_of_matching_engines() {
    let unexplained: Vec<String> = engine_hits().iter().filter(|h| !ENGINE_ALLOWED.iter().any(|(p, _)| h.file == *p)).map(|h| format!("{}:{}: {}", h.file, h.line, h.pattern)).collect();
    assert!(
        unexplained.is_empty(),
        "a workload family matches on Protocol:: outside its tests: ask the dialect (engine.dialect(), src/db/dialect.rs) for what differs, or say why in ENGINE_ALLOWED\n{}",
        unexplained.join("\n")
    );
}

#[test]
fn every_engine_exception_is_still_needed() {
    let stale = stale(ENGINE_ALLOWED, &engine_hits());
    assert!(stale.is_empty(), "these exceptions match nothing any more: remove them from ENGINE_ALLOWED\n{}", stale.join("\n"));
}

/// Every line of non-test code outside src/db/ that names a `Protocol::`
/// variant.
fn engine_hits_outside_db() -> Vec<Hit> {
    sources().iter().filter(|(rel, _)| !rel.starts_with("src/db/")).flat_map(|(rel, code)| engine_lines(rel, code)).collect()
}

/// The lines of a file's non-test code (comments blanked) that name a `Protocol::` variant.
fn engine_lines(rel: &str, code: &str) -> Vec<Hit> {
    without_tests(code).lines().enumerate().filter(|(_, l)| starts_a_word(l, "Protocol::")).map(|(n, l)| Hit { file: rel.to_string(), line: n + 1, pattern: l.trim().to_string() }).collect()
}

// Engines once differed by `match engine` in about twelve files outside
// src/db/, the dialect's forty methods among them; the dialect is now a
// trait each engine answers in its own folder.
#[test]
fn engines_are_matched_only_in_src_db() {
    let listed = |h: &Hit| ENGINE_OUTSIDE_DB_ALLOWED.iter().chain(ENGINE_ALLOWED).any(|(p, _)| h.file == *p);
    let unexplained: Vec<String> = engine_hits_outside_db().iter().filter(|h| !listed(h)).map(|h| format!("{}:{}: {}", h.file, h.line, h.pattern)).collect();
    assert!(
        unexplained.is_empty(),
        "Protocol:: is matched outside src/db/: ask the engine (engine.dialect(), or a method on Protocol or Engine in src/db/) for what differs, or say why in ENGINE_OUTSIDE_DB_ALLOWED\n{}",
        unexplained.join("\n")
    );
}

#[test]
fn every_engine_outside_db_exception_is_still_needed() {
    let stale = stale(ENGINE_OUTSIDE_DB_ALLOWED, &engine_hits_outside_db());
    assert!(stale.is_empty(), "these exceptions match nothing any more: remove them from ENGINE_OUTSIDE_DB_ALLOWED\n{}", stale.join("\n"));
}

/// Every source file under src/, as (path from the crate root, code with
/// comments blanked), in path order.
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    files.iter().map(|path| (path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"), strip(&std::fs::read_to_string(path).unwrap()).0)).collect()
}

/// An engine is one folder under src/db/ (named as runs record it, with
/// its spec in spec.rs) and one line in the registry, src/db/engines.rs:
/// no other file reaches into an engine's spec.
#[test]
fn an_engine_is_one_folder_and_one_registry_line() {
    use fairbench::db::engines::ENGINES;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let registry = std::fs::read_to_string(root.join("src/db/engines.rs")).unwrap();
    let mut names = Vec::new();
    for e in ENGINES {
        let name = e.name();
        assert!(root.join("src/db").join(name).join("spec.rs").is_file(), "engine {name}: no src/db/{name}/spec.rs");
        assert_eq!(registry.matches(&format!("super::{name}::spec::")).count(), 1, "engine {name}: not one line in the registry");
        assert!(!names.contains(&name), "engine {name} registered twice");
        names.push(name);
    }
    let mut outside = Vec::new();
    for (rel, code) in sources() {
        for name in &names {
            if rel != "src/db/engines.rs" && !rel.starts_with(&format!("src/db/{name}/")) && code.contains(&format!("{name}::spec")) {
                outside.push(format!("{rel} reaches into {name}::spec"));
            }
        }
    }
    assert!(outside.is_empty(), "ask the registry (db::engines::named, engine.spec()) instead:\n{}", outside.join("\n"));
}

/// An engine that shares another's wire protocol (a server that speaks
/// MySQL's) has no client, no `Protocol` variant and no case anywhere else:
/// outside its folder, the engine registry and the sandbox registry (which
/// starts one), its name appears in no code and no string.
#[test]
fn an_engine_on_a_shared_protocol_is_named_only_in_its_folder() {
    use fairbench::db::engines::{recognized, ENGINES};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sharing: Vec<&str> = ENGINES.iter().filter(|e| recognized(e.protocol(), "").name() != e.name()).map(|e| e.name()).collect();
    assert!(!sharing.is_empty(), "no engine shares a protocol: this test checks nothing");
    let mut found = Vec::new();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    for path in files {
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let (code, strings) = strip(&std::fs::read_to_string(&path).unwrap());
        for name in &sharing {
            if rel == "src/db/engines.rs" || rel.starts_with(&format!("src/db/{name}/")) || rel.starts_with("src/server/") {
                continue;
            }
            let lower = name.to_ascii_lowercase();
            for (n, l) in code.lines().enumerate() {
                // Its folder is a module of src/db: the one line that says so.
                let declares = rel == "src/db/mod.rs" && l.trim() == format!("mod {name};");
                if l.to_ascii_lowercase().contains(&lower) && !declares {
                    found.push(format!("{rel}:{}: {}", n + 1, l.trim()));
                }
            }
            for (n, s) in &strings {
                if s.to_ascii_lowercase().contains(&lower) {
                    found.push(format!("{rel}:{n}: \"{s}\""));
                }
            }
        }
    }
    assert!(found.is_empty(), "an engine on a shared protocol is named outside its folder: ask db::engines instead\n{}", found.join("\n"));
}

/// A sandbox kind that is no engine of its own (a cluster manager whose
/// nodes are an existing engine's servers) lives in src/server/; only the
/// server command's options may name it besides (their help text).
const SANDBOX_ONLY: &[&str] = &["patroni"];

#[test]
fn a_cluster_sandbox_is_named_only_in_src_server_and_the_server_options() {
    let mut found = Vec::new();
    for (rel, code) in sources() {
        if rel.starts_with("src/server/") || rel == "src/cli/server_args.rs" {
            continue;
        }
        for (n, l) in code.lines().enumerate() {
            if SANDBOX_ONLY.iter().any(|w| l.to_ascii_lowercase().contains(w)) {
                found.push(format!("{rel}:{}: {}", n + 1, l.trim()));
            }
        }
    }
    assert!(found.is_empty(), "a cluster sandbox is named outside src/server/ (ask the Sandbox, e.g. its details(), instead):\n{}", found.join("\n"));
    for w in SANDBOX_ONLY {
        assert!(fairbench::server::Kind::parse(w).is_ok(), "{w} is no registered sandbox kind: remove it from SANDBOX_ONLY");
    }
}

/// The sandbox registry: the one file besides a kind's own that names it.
const SANDBOX_REGISTRY: &str = "src/server/kinds/mod.rs";

/// Places in src/server/ besides a kind's file and the registry that name
/// it, each with why. An entry that no longer matches anything fails the test.
const SANDBOX_ALLOWED: &[(&str, &str, &str)] = &[
    // (path or folder prefix, pattern, reason)
    ("src/server/kinds/patroni/", "postgres", "a cluster's nodes are PostgreSQL servers: Patroni's config names them so, and their binaries, service account, settings and profile section are the postgres kind's"),
    ("src/server/kinds/pgbouncer.rs", "postgres", "a pooler pools for a PostgreSQL server: it is given a postgres sandbox (or a postgres:// URL) and runs as PostgreSQL's service account, as pgbouncer refuses root"),
    ("src/server/kinds/vitess/", "mariadb", "a sharded cluster's shards are MariaDB servers: their config, data directory, accounts, binaries, service account, settings and profile section are the mariadb kind's"),
    ("src/server/client.rs", "mariadb", "the MySQL-protocol command-line client is the mariadb (or mysql) program, which every kind on that protocol uses to probe its server and make the accounts"),
    ("src/server/client.rs", "postgres", "psql, PostgreSQL's client, is found in the newest installed PostgreSQL (/usr/lib/postgresql), and is what every kind on that protocol uses"),
    ("src/server/environ.rs", "*", "the variables left out of every sandbox program's environment are named after the programs that read them (MARIADB_*, PATRONI_*, TIDB_*): one list, since a client's variables must reach none of them"),
];

/// Every place in src/server/ outside a kind's own file (or folder) and the
/// registry that names the kind: its name in lower, Capitalized or UPPER
/// case beginning a word, in code or a string.
fn sandbox_hits() -> Vec<Hit> {
    let kinds: Vec<&str> = fairbench::server::Kind::all().map(|k| k.name()).collect();
    let mut out = Vec::new();
    for (rel, code) in sources().into_iter().filter(|(rel, _)| rel.starts_with("src/server/")) {
        for name in &kinds {
            let own = rel == format!("src/server/kinds/{name}.rs") || rel.starts_with(&format!("src/server/kinds/{name}/"));
            if own || rel == SANDBOX_REGISTRY {
                continue;
            }
            for pattern in [name.to_string(), capitalized(name), name.to_ascii_uppercase()] {
                for (n, l) in code.lines().enumerate() {
                    if starts_a_word(l, &pattern) {
                        out.push(Hit { file: rel.clone(), line: n + 1, pattern: pattern.clone() });
                    }
                }
            }
        }
    }
    out
}

// The server module once held every kind's start, stop and settings in one
// file, with about fifty matches on the kind; a kind is now one file behind
// server::kinds::SandboxKind, and what differs is asked of it.
#[test]
fn sandbox_kinds_are_named_only_in_their_file_and_the_registry() {
    let unexplained: Vec<String> = sandbox_hits().iter().filter(|h| !SANDBOX_ALLOWED.iter().any(|a| allowed(h, a))).map(|h| format!("{}:{}: names '{}'", h.file, h.line, h.pattern)).collect();
    assert!(
        unexplained.is_empty(),
        "a sandbox kind is named in src/server/ outside its file and {SANDBOX_REGISTRY}: ask the kind (server::SandboxKind) for what differs, or say why in SANDBOX_ALLOWED\n{}",
        unexplained.join("\n")
    );
}

#[test]
fn every_sandbox_exception_is_still_needed() {
    let hits = sandbox_hits();
    let stale: Vec<String> = SANDBOX_ALLOWED.iter().filter(|a| !hits.iter().any(|h| allowed(h, a))).map(|(p, pat, why)| format!("{p} '{pat}' ({why})")).collect();
    assert!(stale.is_empty(), "these exceptions match nothing any more: remove them from SANDBOX_ALLOWED\n{}", stale.join("\n"));
}

/// A sandbox kind is one file (or folder) under src/server/kinds/ named as
/// the kind, declared and listed once in the registry, and reached by no
/// other file but through the registry.
#[test]
fn a_sandbox_kind_is_one_file_and_one_registry_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let registry = strip(&std::fs::read_to_string(root.join(SANDBOX_REGISTRY)).unwrap()).0;
    let list = registry.split("const KINDS").nth(1).and_then(|r| r.split("];").next()).expect("the registry's KINDS list");
    let mut names = Vec::new();
    for k in fairbench::server::Kind::all() {
        let name = k.name();
        let dir = root.join("src/server/kinds");
        assert!(dir.join(format!("{name}.rs")).is_file() || dir.join(name).join("mod.rs").is_file(), "sandbox kind {name}: no src/server/kinds/{name}.rs or {name}/mod.rs");
        assert_eq!(registry.lines().filter(|l| l.trim() == format!("mod {name};")).count(), 1, "sandbox kind {name}: not declared once in the registry");
        assert_eq!(list.matches(&format!("&{name}::")).count(), 1, "sandbox kind {name}: not one entry in KINDS");
        assert!(!names.contains(&name), "sandbox kind {name} registered twice");
        names.push(name);
    }
    let mut outside = Vec::new();
    for (rel, code) in sources() {
        for name in &names {
            let own = rel == format!("src/server/kinds/{name}.rs") || rel.starts_with(&format!("src/server/kinds/{name}/"));
            if !own && rel != SANDBOX_REGISTRY && code.contains(&format!("kinds::{name}")) {
                outside.push(format!("{rel} reaches into kinds::{name}"));
            }
        }
    }
    assert!(outside.is_empty(), "ask the registry (server::Kind::parse, Kind::all) instead:\n{}", outside.join("\n"));
}

// compare, the audit and durability once matched `s.engine.as_str()` on
// "mysql" and "postgres"; a recorded run's engine is asked by name now.
#[test]
fn recorded_engines_are_asked_not_matched_by_name() {
    let mut found = Vec::new();
    for (rel, code) in sources().into_iter().filter(|(rel, _)| !rel.starts_with("src/db/")) {
        for (n, l) in without_tests(&code).lines().enumerate() {
            if [".engine == \"", ".engine != \"", ".engine.as_str()"].iter().any(|p| l.contains(p)) {
                found.push(format!("{rel}:{}: {}", n + 1, l.trim()));
            }
        }
    }
    assert!(found.is_empty(), "a recorded engine is matched by name outside src/db/: ask db::engines::named(&s.engine)\n{}", found.join("\n"));
}

/// The test-code filter: a test module and a test-only function are left
/// out, code around them and a one-line test item's neighbours are kept.
#[test]
fn engine_scan_leaves_test_code_out() {
    let src = "fn a() { x == Protocol::Mysql }\n#[cfg(test)]\nuse crate::db::Protocol;\nfn b() { Protocol::Sqlite }\nimpl W {\n    #[cfg(test)]\n    #[allow(dead_code)]\n    fn t() {\n        Protocol::Postgres\n    }\n    fn c() { Protocol::Postgres }\n    #[cfg(test)]\n    fn u() -> Protocol { Protocol::Mysql }\n    fn v() { Protocol::Mysql }\n}\n#[cfg(test)]\nconst E: [Protocol; 1] = [\n    Protocol::Mysql,\n];\n#[cfg(test)]\nmod tests {\n    fn d() {\n        Protocol::Mysql;\n    }\n}\nfn e() { Protocol::Sqlite }\n";
    let kept: Vec<usize> = without_tests(&strip(src).0).lines().enumerate().filter(|(_, l)| starts_a_word(l, "Protocol::")).map(|(n, _)| n + 1).collect();
    assert_eq!(kept, vec![1, 4, 11, 14, 26]);
    assert!(!starts_a_word("let e = MyProtocol::X;", "Protocol::"));
}

/// The command line sits on top: only the commands that wire it read it.
/// Every other module (the run's, the label grammar and plan they read, the
/// renderings of stored runs) gets a typed value instead, so no import
/// circle runs through `cli`.
#[test]
fn run_modules_do_not_import_the_command_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let wiring = ["src/cli", "src/commands", "src/lib.rs", "src/main.rs"];
    files.retain(|f| !wiring.iter().any(|w| f.strip_prefix(root).unwrap().starts_with(w)));
    assert!(files.len() > 100, "the scan found {} files under src/", files.len());
    {
        for f in files.into_iter() {
            let (code, _) = strip(&std::fs::read_to_string(&f).unwrap());
            for (n, l) in code.lines().enumerate() {
                // `super::client` is not the command line.
                let names_cli = |p: &str| l.match_indices(p).any(|(i, _)| !l[i + p.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'));
                if names_cli("crate::cli") || names_cli("super::cli") {
                    found.push(format!("{}:{}", f.strip_prefix(root).unwrap().display(), n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "these import the command line (take what they need from workload/plan/, values.rs, or a value the command hands over):\n{}", found.join("\n"));
}

/// The top modules under src/ and the other top modules each one names
/// (`crate::x` in code, or `use crate::{x, ...}`), comments left out.
fn import_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut tops: Vec<(String, PathBuf)> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "rs"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .filter(|(n, _)| n != "lib" && n != "main")
        .collect();
    tops.sort();
    let names: std::collections::BTreeSet<String> = tops.iter().map(|(n, _)| n.clone()).collect();
    let mut graph = std::collections::BTreeMap::new();
    for (name, path) in &tops {
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(path, &mut files);
        } else {
            files.push(path.clone());
        }
        let mut uses = std::collections::BTreeSet::new();
        for f in files {
            let (code, _) = strip(&std::fs::read_to_string(&f).unwrap());
            let mut named = |word: &str| {
                if names.contains(word) && word != name {
                    uses.insert(word.to_string());
                }
            };
            for part in code.split("crate::").skip(1) {
                if let Some(rest) = part.strip_prefix('{') {
                    for w in rest.split('}').next().unwrap_or("").split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                        named(w);
                    }
                } else {
                    named(part.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or(""));
                }
            }
        }
        graph.insert(name.clone(), uses);
    }
    graph
}

// The run modules once formed import circles (runner, report and workload;
// store, audit and env); shared types live in model/ so that none is left.
#[test]
fn top_modules_import_no_circle() {
    let graph = import_graph();
    // Depth-first search from every module; a module met again on the
    // current path closes a circle.
    fn visit<'a>(
        m: &'a str,
        g: &'a std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut std::collections::BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| *p == m) {
            return Some(path[i..].iter().map(|s| s.to_string()).chain(std::iter::once(m.to_string())).collect());
        }
        if !done.insert(m) {
            return None;
        }
        path.push(m);
        for n in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(n, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    assert!(graph.len() > 10 && graph["runner"].contains("workload"), "the import graph was not read: {graph:?}");
    let mut done = std::collections::BTreeSet::new();
    for m in graph.keys() {
        if let Some(circle) = visit(m, &graph, &mut Vec::new(), &mut done) {
            panic!("import circle among the top modules: {}", circle.join(" -> "));
        }
    }
}

/// Top modules a workload may not import: the layers above it (the command
/// line, the commands and their driver, the renderers). Items of the
/// crate's root (lib.rs's `bench`, its former `drive`) are refused too.
const ABOVE_WORKLOADS: &[&str] = &["cli", "commands", "live", "view"];

/// The first-level names `crate::` reaches in `code`, each with its line:
/// `crate::x::..` gives x, `crate::{x, y::{..}}` gives x and y, also when
/// rustfmt spreads the group over several lines.
fn crate_names(code: &str) -> Vec<(usize, String)> {
    let word = |s: &str| s.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("").to_string();
    let line_of = |k: usize| code[..k].matches('\n').count() + 1;
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let part = &code[at + "crate::".len()..];
        let Some(group) = part.strip_prefix('{') else {
            out.push((line_of(at), word(part)));
            continue;
        };
        let base = code.len() - group.len();
        let (mut depth, mut at_start) = (0, true);
        for (k, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => at_start = true,
                c if c.is_whitespace() => {}
                _ if at_start && depth == 0 => {
                    out.push((line_of(base + k), word(&group[k..])));
                    at_start = false;
                }
                _ => {}
            }
        }
    }
    out
}

/// Every line of non-test code under src/workload/ that reaches a layer
/// above the workloads or an item of the crate's root.
fn upward_imports() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    // What `crate::` may name: the top modules, and the macros exported at
    // the crate's root from them (`usage!`).
    let mut all = Vec::new();
    rust_files(&src, &mut all);
    let mut below: Vec<String> = std::fs::read_dir(&src).unwrap().map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned()).filter(|n| n != "lib" && n != "main").collect();
    for f in &all {
        let (code, _) = strip(&std::fs::read_to_string(f).unwrap());
        below.extend(code.split("macro_rules!").skip(1).map(|m| m.trim_start().split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("").to_string()));
    }
    below.retain(|n| !ABOVE_WORKLOADS.contains(&n.as_str()));
    let mut files = Vec::new();
    rust_files(&src.join("workload"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let (code, _) = strip(&std::fs::read_to_string(&path).unwrap());
        for (n, name) in crate_names(&without_tests(&code)) {
            if !below.contains(&name) {
                out.push(format!("{rel}:{n}: crate::{name}"));
            }
        }
    }
    out
}

// Every family's `bench` once called lib.rs's driver, the loaders took the
// report's progress line and the families its console: a run went
// commands -> family -> lib -> runner, and workloads imported the report.
// A family now describes its run and the command layer drives it; progress
// and the standard console lines come through crate::output.
#[test]
fn workloads_do_not_import_the_layers_above_them() {
    let found = upward_imports();
    assert!(
        found.is_empty(),
        "these workload files reach above the workloads (return what the driver needs from Family::bench; show progress and console lines through crate::output):\n{}",
        found.join("\n")
    );
}

/// The import scan: both path forms are read, a group's nested paths are
/// not taken for first-level names, and `usage!` is not an item of lib.
#[test]
fn upward_import_scan_reads_paths_and_groups() {
    let names = |code: &str| crate_names(code).into_iter().map(|(n, w)| format!("{n}:{w}")).collect::<Vec<_>>();
    assert_eq!(names("use crate::live::Console; crate::drive(w)"), vec!["1:live", "1:drive"]);
    assert_eq!(names("use crate::{db::{Conn, Engine}, view, model::Sink};"), vec!["1:db", "1:view", "1:model"]);
    assert_eq!(names("use crate::{\n    db::{\n        Conn,\n    },\n    report::Console,\n};"), vec!["2:db", "5:report"]);
    assert_eq!(names("Err(crate::usage!(\"x\"))"), vec!["1:usage"]);
}

// The recorder once ran the audit when it closed a run, so the store
// depended on the rules and a merge's findings were added after the fact.
// The store keeps what it is given; the commands audit the record it gives.
#[test]
fn the_store_records_and_the_commands_audit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, _) = strip(&std::fs::read_to_string(root.join("src/store/mod.rs")).unwrap());
    let found: Vec<(usize, String)> = crate_names(&without_tests(&code)).into_iter().filter(|(_, n)| n == "audit").collect();
    assert!(found.is_empty(), "src/store/mod.rs runs the audit (lines {found:?}): return the record and let the command audit it");
}

// Outputs, the third axis. Formats were once picked by comparing strings
// in the commands (`c.output == "json"`, `(_, "markdown")`), and the run's
// sinks were built one by one inside the driver.

/// The registry of renderings of stored runs.
const FORMAT_REGISTRY: &str = "src/view/format/mod.rs";

/// Files outside the registries and the formats' own files that may hold a
/// format's name as a whole string literal in code, each with why. An
/// entry that no longer matches anything fails the test.
const FORMAT_NAME_ALLOWED: &[(&str, &str, &str)] = &[
    // (path, name, reason)
    ("src/scenario/run.rs", "csv", "a scenario's step names the size of the CSV file it generated, not an output format"),
];

/// Where an output's name is at home: its value enum, the two registries
/// and the formats' files.
fn output_home(rel: &str) -> bool {
    rel == "src/output/keys.rs" || rel == "src/live/sinks.rs" || rel.starts_with("src/view/format/")
}

/// Every value the output options accept and every registered format.
fn output_names() -> Vec<String> {
    use clap::ValueEnum;
    use fairbench::output::{CompareFormat, ConsoleFormat};
    use fairbench::values::RepeatOrder;
    let name = |p: Option<clap::builder::PossibleValue>| p.map(|p| p.get_name().to_string());
    let mut names: Vec<String> = ConsoleFormat::value_variants().iter().filter_map(|v| name(v.to_possible_value())).collect();
    names.extend(CompareFormat::value_variants().iter().filter_map(|v| name(v.to_possible_value())));
    names.extend(RepeatOrder::value_variants().iter().filter_map(|v| name(v.to_possible_value())));
    names.extend(fairbench::view::format::FORMATS.iter().map(|f| f.name().to_string()));
    names.sort();
    names.dedup();
    names
}

/// Lines of non-test code outside an output's home that hold an output's
/// name as a whole string literal. A default in an option's definition
/// (`default_value = "text"`) is the option's, and `conflicts_with` names
/// an option.
fn output_name_hits() -> Vec<Hit> {
    let names = output_names();
    let mut out = Vec::new();
    for (rel, code) in sources().into_iter().filter(|(rel, _)| !output_home(rel)) {
        for (n, l) in without_tests(&code).lines().enumerate() {
            for name in &names {
                let lit = format!("\"{name}\"");
                let attr = [format!("default_value = {lit}"), format!("conflicts_with = {lit}")];
                if l.matches(&lit).count() > attr.iter().map(|a| l.matches(a.as_str()).count()).sum::<usize>() {
                    out.push(Hit { file: rel.clone(), line: n + 1, pattern: name.clone() });
                }
            }
        }
    }
    out
}

#[test]
fn output_names_are_compared_nowhere() {
    assert!(output_names().len() >= 9, "the output names were not read: {:?}", output_names());
    let listed = |h: &Hit| FORMAT_NAME_ALLOWED.iter().any(|(p, n, _)| h.file == *p && h.pattern == *n);
    let found: Vec<String> = output_name_hits().iter().filter(|h| !listed(h)).map(|h| format!("{}:{}: \"{}\"", h.file, h.line, h.pattern)).collect();
    assert!(
        found.is_empty(),
        "an output is named by a string outside its file and the registries: take the option's typed value (output::keys) and ask the registry (view::format, live::sinks)\n{}",
        found.join("\n")
    );
}

#[test]
fn every_output_name_exception_is_still_needed() {
    let hits = output_name_hits();
    let stale: Vec<String> = FORMAT_NAME_ALLOWED.iter().filter(|(p, n, _)| !hits.iter().any(|h| h.file == *p && h.pattern == *n)).map(|(p, n, why)| format!("{p} '{n}' ({why})")).collect();
    assert!(stale.is_empty(), "these exceptions match nothing any more: remove them from FORMAT_NAME_ALLOWED\n{}", stale.join("\n"));
}

/// A format is one file (`src/view/format/NAME.rs`) that names its key, and
/// one line in the registry; every file in src/view/format/ is a registered
/// format.
#[test]
fn an_output_format_is_one_file_and_one_registry_line() {
    use fairbench::view::format::FORMATS;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (registry, _) = strip(&std::fs::read_to_string(root.join(FORMAT_REGISTRY)).unwrap());
    let list = &registry[registry.find("pub static FORMATS").expect("no FORMATS in the registry")..];
    let list = &list[..list.find("];").unwrap()];
    let mut names = Vec::new();
    for f in FORMATS {
        let name = f.name();
        assert!(!names.contains(&name), "format {name} registered twice");
        names.push(name.clone());
        let file = format!("src/view/format/{name}.rs");
        let text = std::fs::read_to_string(root.join(&file)).unwrap_or_else(|_| panic!("format {name}: no {file}"));
        assert!(strip(&text).0.contains(&format!("FormatKey::{}", capitalized(&name))), "format {name}: {file} does not name its key");
        let module = Path::new(&file).file_stem().unwrap().to_string_lossy().into_owned();
        assert_eq!(list.lines().filter(|l| l.contains(&format!("{module}::"))).count(), 1, "format {name}: not one line in {FORMAT_REGISTRY}");
    }
    for e in std::fs::read_dir(root.join("src/view/format")).unwrap() {
        let stem = e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned();
        assert!(stem == "mod" || names.contains(&stem), "src/view/format/{stem}.rs is no registered format");
    }
}

/// The sinks of a run are the registry's (src/live/sinks.rs): one line
/// each, and the commands name no sink type (they describe the options and
/// ask `live::sinks::open`).
#[test]
fn live_sinks_are_opened_through_their_registry() {
    use fairbench::live::sinks::SINKS;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let registry = std::fs::read_to_string(root.join("src/live/sinks.rs")).unwrap();
    let mut names = Vec::new();
    for s in SINKS {
        assert!(!names.contains(&s.name), "sink {} registered twice", s.name);
        names.push(s.name);
        assert_eq!(registry.matches(&format!("SinkSpec {{ name: \"{}\"", s.name)).count(), 1, "sink {}: not one line in src/live/sinks.rs", s.name);
    }
    let mut types = Vec::new();
    for (rel, code) in sources().into_iter().filter(|(rel, _)| rel.starts_with("src/live/")) {
        for part in code.split("impl Sink for ").skip(1) {
            types.push((rel.clone(), part.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("").to_string()));
        }
    }
    assert!(types.len() >= 4, "the report's sink types were not read: {types:?}");
    let mut found = Vec::new();
    for (rel, code) in sources().into_iter().filter(|(rel, _)| rel.starts_with("src/commands/")) {
        for (n, l) in without_tests(&code).lines().enumerate() {
            for (home, t) in &types {
                if has_word(l, t) {
                    found.push(format!("{rel}:{}: {t} ({home})", n + 1));
                }
            }
            if l.contains("live::") || l.contains("hdrlog::") {
                found.push(format!("{rel}:{}: {}", n + 1, l.trim()));
            }
        }
    }
    assert!(found.is_empty(), "a command builds a sink itself: add it to live::sinks::SINKS and describe its option in live::sinks::Setup\n{}", found.join("\n"));
}

/// The longest a source file under src/ may grow: past it a file holds
/// several jobs and is split by them.
const MAX_LINES: usize = 800;

/// Files under src/ allowed past [`MAX_LINES`], each with why. An entry
/// whose file is back under the limit fails the test.
const LONG_ALLOWED: &[(&str, &str)] = &[
    // (path, reason)
];

fn long_files() -> Vec<(String, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut out: Vec<(String, usize)> =
        files.iter().map(|f| (f.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"), std::fs::read_to_string(f).unwrap().lines().count())).filter(|(_, n)| *n > MAX_LINES).collect();
    out.sort();
    out
}

// Files of a thousand lines once held the runner's level loop with its
// clients, the connection with its errors and bulk loads, the recorder with
// the audit: each split by its jobs.
#[test]
fn no_source_file_is_longer_than_the_limit() {
    let found: Vec<String> = long_files().into_iter().filter(|(f, _)| !LONG_ALLOWED.iter().any(|(p, _)| p == f)).map(|(f, n)| format!("{f}: {n} lines")).collect();
    assert!(found.is_empty(), "over {MAX_LINES} lines (split the file by its jobs, or add it to LONG_ALLOWED with why):\n{}", found.join("\n"));
}

#[test]
fn every_long_file_exception_is_still_needed() {
    let long = long_files();
    let stale: Vec<&str> = LONG_ALLOWED.iter().filter(|(p, _)| !long.iter().any(|(f, _)| f == p)).map(|(p, _)| *p).collect();
    assert!(stale.is_empty(), "no longer over {MAX_LINES} lines: remove from LONG_ALLOWED: {stale:?}");
    assert!(rust_files_counted() > 100, "the source scan found too few files");
}

fn rust_files_counted() -> usize {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    files.len()
}
