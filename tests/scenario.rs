//! `fairbench scenario`: files of timed steps, and the built-in `engines`.
//! The servers are sandboxes started by the tests themselves.

mod common;

use common::{eventually, fairbench, mysql_admin, mysql_url, pg_admin, pg_url, run_fail, run_ok, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Sandbox {
    name: String,
    url: String,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = fairbench().args(["server", "stop", &self.name]).output();
    }
}

fn start(engine: &str) -> Sandbox {
    let out = run_ok(fairbench().args(["server", "start", engine, "--ram", "1G"]));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let name = err.lines().find_map(|l| l.split_once(" started: ").map(|(n, _)| n.to_string())).unwrap_or_else(|| panic!("{err}"));
    Sandbox { name, url: stdout(&out).trim().to_string() }
}

/// A fresh directory in the test run's temp dir, which the test command removes.
fn scratch(name: &str) -> PathBuf {
    common::scratch_dir(&format!("scenario-{name}"))
}

fn json_of(out: &std::process::Output) -> Value {
    let s = stdout(out);
    let line = s.lines().find(|l| l.starts_with('{')).unwrap_or_else(|| panic!("no JSON in {s}"));
    serde_json::from_str(line).unwrap()
}

fn step<'a>(col: &'a Value, name: &str) -> &'a Value {
    col["steps"].as_array().unwrap().iter().find(|s| s["step"] == name).unwrap_or_else(|| panic!("no step {name} in {col}"))
}

fn size(step: &Value, what: &str) -> u64 {
    step["sizes"].as_array().unwrap().iter().find(|p| p[0] == what).and_then(|p| p[1].as_u64()).unwrap_or_else(|| panic!("no size {what} in {step}"))
}

fn plugin(name: &str) -> bool {
    Path::new("/usr/lib/mysql/plugin").join(format!("{name}.so")).exists()
}

/// A part the test command was told to leave out (`scripts/test.sh --without=s3,myrocks,lz4`):
/// only then may its column say it is not available. Otherwise every part is required.
fn left_out(part: &str) -> bool {
    std::env::var("FAIRBENCH_TEST_WITHOUT").unwrap_or_default().split(',').any(|p| p.trim() == part)
}

fn stored_steps(store: &Path) -> i64 {
    let c = rusqlite::Connection::open(store).unwrap();
    c.query_row("SELECT COUNT(*) FROM scenario_steps WHERE seconds > 0", [], |r| r.get(0)).unwrap()
}

#[test]
fn engines_at_100k_rows_runs_every_engine_this_machine_has() {
    let dir = scratch("engines");
    let store = dir.join("r.sqlite");
    let out = run_ok(fairbench().args(["scenario", "engines", "--rows", "100000", "--json", "--results"]).arg(&store));
    let rep = json_of(&out);
    let cols = rep["columns"].as_array().unwrap();
    let names: Vec<&str> = cols.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert!(left_out("lz4") || plugin("provider_lz4"), "MariaDB's lz4 provider is required unless left out (--without=lz4)");
    assert_eq!(names, ["innodb", "aria", "myrocks", if plugin("provider_lz4") { "innodb-lz4" } else { "innodb-zlib" }, "s3", "postgres"], "{rep}");
    let expected = |name: &str| match name {
        "myrocks" => !left_out("myrocks"),
        "s3" => !left_out("s3"),
        _ => true,
    };
    let mut checksums = Vec::new();
    for c in cols {
        let name = c["name"].as_str().unwrap();
        if !expected(name) {
            assert!(c["unavailable"].as_str().unwrap_or("").starts_with("not available"), "{c}");
            continue;
        }
        assert!(c.get("failed").is_none() && c.get("unavailable").is_none(), "{name}: {c}");
        let sz = step(c, "size");
        // 100k rows of an INT and 40 characters: a few MB on every engine.
        let data = size(sz, "data");
        assert!((1 << 20..64 << 20).contains(&data), "{name}: data {data}");
        assert!(size(step(c, "size with index"), "index") > 100 << 10, "{name}");
        if name == "s3" {
            let obj = size(sz, "object store");
            assert!((1 << 20..64 << 20).contains(&obj), "object store {obj}");
        }
        for q in ["scan id=8 (no index)", "query id=8 (index)"] {
            let s = step(c, q);
            assert_eq!(s["seconds"].as_array().unwrap().len(), 2, "{name} {q}");
            // ids cycle over 100000/512 = 195 values: id 8 has 513 rows.
            assert_eq!(s["rows"], 513, "{name} {q}");
            checksums.push(s["checksum"].as_str().unwrap().to_string());
        }
        assert!(step(c, "import CSV")["seconds"][0].as_f64().unwrap() > 0.0);
    }
    // Page compression shows on disk once the pages are flushed: fewer blocks than plain InnoDB.
    let files = |n: &str| cols.iter().find(|c| c["name"] == n).map(|c| size(step(c, "size"), "files")).unwrap();
    let plain = files("innodb");
    assert!(plain > 2 << 20, "innodb files {plain}");
    if plugin("provider_lz4") {
        assert!(files("innodb-lz4") < plain * 3 / 4, "lz4 {} vs plain {plain}", files("innodb-lz4"));
    }
    checksums.dedup();
    assert_eq!(checksums.len(), 1, "the engines returned different rows: {checksums:?}");
    assert!(stored_steps(&store) > 20);
    let text = stdout(&run_ok(fairbench().args(["scenario", "engines", "--rows", "2000", "--engines", "aria,postgres", "--no-save"])));
    assert!(text.contains("ALTER TABLE to the engine") && text.contains("aria") && text.contains("postgres"), "{text}");
}

const USER_SCENARIO: &str = r#"
name = "every step kind"
description = "a file as users write it"

[[step]]
kind = "generate"
file = "t.csv"
rows = 3000
columns = [
  { name = "id", gen = "seq" },
  { name = "grp", gen = "cycle", max = 10 },
  { name = "n", gen = "int", min = 5, max = 9 },
  { name = "s", gen = "string", len = 12 },
  { name = "c", gen = "const", value = "x,y" },
]

[[step]]
kind = "sql"
name = "create"
sql = ["DROP TABLE IF EXISTS t", "CREATE TABLE t(id INT PRIMARY KEY, grp INT, n INT, s VARCHAR(20), c VARCHAR(10))"]

[[step]]
kind = "import"
table = "t"
file = "t.csv"

[[step]]
kind = "query"
name = "count"
sql = "SELECT COUNT(*), MIN(n), MAX(n), COUNT(DISTINCT grp) FROM t WHERE c = 'x,y'"
repeat = 3

[[step]]
kind = "sql"
name = "engine-specific"
mysql = "ANALYZE TABLE t"
postgres = "ANALYZE t"

[[step]]
kind = "sizes"
table = "t"

[[step]]
kind = "pause"
seconds = 0.3
"#;

#[test]
fn a_user_scenario_runs_each_step_kind_on_both_engines() {
    let dir = scratch("user");
    let file = dir.join("s.toml");
    std::fs::write(&file, USER_SCENARIO).unwrap();
    let store = dir.join("r.sqlite");
    for engine in ["mariadb", "postgres"] {
        let sb = start(engine);
        let out = run_ok(fairbench().args(["scenario"]).arg(&file).args(["--target", &sb.url, "--json", "--results"]).arg(&store));
        let rep = json_of(&out);
        let col = &rep["columns"][0];
        assert!(col.get("failed").is_none(), "{col}");
        let steps = col["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 7, "{col}");
        assert_eq!(steps[0]["rows"], 3000);
        assert!(size(&steps[0], "csv") > 3000 * 20);
        let q = step(col, "count");
        assert_eq!(q["seconds"].as_array().unwrap().len(), 3);
        let pause = steps[6]["seconds"][0].as_f64().unwrap();
        assert!((0.3..2.0).contains(&pause), "{pause}");
        assert!(size(&steps[5], "data") > 0);
        // Text output: one row per run of the query.
        let text = stdout(&run_ok(fairbench().args(["scenario"]).arg(&file).args(["--target", &sb.url, "--no-save"])));
        assert!(text.contains("count #3") && text.contains("pause 0.3s"), "{text}");
        // The result itself: 3000 rows, n in 5..=9, 10 groups.
        let out = stdout(&run_ok(fairbench().args(["scenario"]).arg(write_query(&dir, "SELECT COUNT(*), MIN(n) >= 5, MAX(n) <= 9, COUNT(DISTINCT grp) FROM t")).args([
            "--target",
            &sb.url,
            "--json",
            "--no-save",
        ])));
        assert!(out.contains("\"rows\":1"), "{out}");
    }
    assert!(stored_steps(&store) >= 2 * 7);
}

/// `engines` starts its own servers: a --target given to it is said to go
/// unused (one line), and the scenario runs as without it.
#[test]
fn engines_says_in_one_line_that_it_does_not_use_the_target() {
    let dir = scratch("engines-target");
    // A target nothing answers on: were it used, the run would fail.
    let target = "mysql://nobody:secret@127.0.0.1:1/none";
    let out = run_ok(fairbench().args(["scenario", "engines", "--engines", "postgres", "--rows", "1000", "--json", "--no-save", "--target", target]).arg("--work-dir").arg(&dir));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("target")).collect();
    assert_eq!(notes, ["note: scenario engines runs on sandboxes it starts itself: the target (--target / FAIRBENCH_TARGET) is not used"], "{err}");
    assert!(!err.contains("secret"), "the target's password is shown: {err}");
    let rep = json_of(&out);
    assert!(rep["target"].as_str().unwrap().starts_with("sandboxes: PostgreSQL"), "{rep}");
    assert_eq!(rep["columns"][0]["name"], "postgres");
    assert!(rep["columns"][0].get("failed").is_none(), "{rep}");
}

fn write_query(dir: &Path, q: &str) -> PathBuf {
    let f = dir.join("q.toml");
    std::fs::write(&f, format!("[[step]]\nkind = \"query\"\nsql = \"{q}\"\n")).unwrap();
    f
}

#[test]
fn a_failing_step_stops_the_scenario_keeps_what_was_measured_and_names_the_step() {
    let dir = scratch("fail");
    let file = dir.join("f.toml");
    std::fs::write(
        &file,
        "[[step]]\nkind = \"sql\"\nsql = \"CREATE TABLE IF NOT EXISTS ok1(a INT)\"\n\n[[step]]\nkind = \"query\"\nsql = \"SELECT * FROM no_such_table\"\n\n[[step]]\nkind = \"pause\"\nseconds = 5\n",
    )
    .unwrap();
    let store = dir.join("r.sqlite");
    let sb = start("mariadb");
    let out = run_fail(fairbench().args(["scenario"]).arg(&file).args(["--target", &sb.url, "--json", "--results"]).arg(&store));
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("step 2") && err.contains("no_such_table"), "{err}");
    let rep = json_of(&out);
    let col = &rep["columns"][0];
    assert_eq!(col["steps"].as_array().unwrap().len(), 2, "the pause after the failure ran: {col}");
    assert!(col["steps"][0]["seconds"][0].as_f64().unwrap() > 0.0);
    let c = rusqlite::Connection::open(&store).unwrap();
    let failed: String = c.query_row("SELECT failed FROM scenarios", [], |r| r.get(0)).unwrap();
    assert!(failed.contains("step 2"), "{failed}");
    // A missing CSV is a failed step too.
    std::fs::write(&file, "[[step]]\nkind = \"import\"\ntable = \"ok1\"\nfile = \"missing.csv\"\n").unwrap();
    let out = run_fail(fairbench().args(["scenario"]).arg(&file).args(["--target", &sb.url, "--no-save"]));
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("step 1 (import into ok1) failed: no file"));
}

#[test]
fn bad_scenario_files_are_one_line_with_exit_code_2() {
    let dir = scratch("bad");
    let cases = [
        ("[[step]]\nkind = \"teleport\"\n", "line 2"),
        ("[[step]]\nkind = \"pause\"\nsecs = 1\n", "secs"),
        ("name = \"x\"\n", "no [[step]]"),
        ("[[step]]\nkind = \"generate\"\nfile = \"a.csv\"\nrows = 1\ncolumns = [{ name = \"a\", gen = \"zipf\" }]\n", "zipf"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let f = dir.join(format!("b{i}.toml"));
        std::fs::write(&f, text).unwrap();
        let out = run_fail(fairbench().args(["scenario"]).arg(&f).args(["--target", "mysql://u:p@127.0.0.1:1/db", "--no-save"]));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains(want), "{text}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{text}: {err}");
    }
    let out = run_fail(fairbench().args(["scenario", "/no/such/file.toml", "--target", "mysql://u:p@127.0.0.1:1/db"]));
    assert_eq!(out.status.code(), Some(2));
    let out = run_fail(fairbench().args(["scenario", "engines", "--engines", "oracle"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown engine"));
}

#[test]
fn ctrl_c_stops_a_scenario_within_two_seconds() {
    let dir = scratch("ctrlc");
    let root = scratch("ctrlc-root");
    let mut run = common::watch::Watched::spawn(
        fairbench().env("FAIRBENCH_SANDBOX_ROOT", &root).args(["scenario", "engines", "--rows", "1000000", "--engines", "innodb,postgres", "--no-save", "--work-dir"]).arg(&dir),
    );
    // Inside a step: the first engine's steps have begun in a sandbox that is up.
    run.wait_for(std::time::Duration::from_secs(120), |l| l.starts_with("Engine "));
    let (code, took, _) = run.interrupt();
    assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
    assert_eq!(code, Some(130));
    // The sandboxes it started are gone with it (their registry entries last).
    let left = || std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).collect::<Vec<_>>();
    assert!(eventually(std::time::Duration::from_secs(5), || left().is_empty()), "left behind: {:?}", left());
}

/// Statements run on a connection opened before the steps: a trivial one
/// costs a round trip, not a client's start (10-140 ms each when every step
/// started `mariadb` or `psql`, so 50 of them took 0.5 s at the least).
#[test]
fn a_trivial_statement_step_costs_a_round_trip_not_a_client_start() {
    let dir = scratch("roundtrip");
    let file = dir.join("one.toml");
    std::fs::write(&file, "[[step]]\nkind = \"query\"\nname = \"one\"\nsql = \"SELECT 1\"\nrepeat = 50\n\n[[step]]\nkind = \"sql\"\nname = \"fifty\"\nsql = [\"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\"]\n").unwrap();
    for url in [mysql_url(), pg_url()] {
        let rep = json_of(&run_ok(fairbench().args(["scenario"]).arg(&file).args(["--target", &url, "--json", "--no-save"])));
        let col = &rep["columns"][0];
        let runs: Vec<f64> = step(col, "one")["seconds"].as_array().unwrap().iter().map(|t| t.as_f64().unwrap()).collect();
        assert_eq!(runs.len(), 50, "{col}");
        let total: f64 = runs.iter().sum();
        assert!(total < 0.25, "{url}: 50 x SELECT 1 took {:.1} ms", total * 1000.0);
        assert_eq!(step(col, "one")["rows"], 1);
        let ten = step(col, "fifty")["seconds"][0].as_f64().unwrap();
        assert!(ten < 0.05, "{url}: 10 statements in one step took {:.1} ms", ten * 1000.0);
        // No step started a client: no client start to report.
        assert!(col.get("client_overhead_s").is_none(), "{col}");
        let text = stdout(&run_ok(fairbench().args(["scenario"]).arg(&file).args(["--target", &url, "--no-save"])));
        assert!(!text.contains("client start"), "{text}");
    }
}

/// Ctrl-C abandons a statement in flight on the scenario's connection.
#[test]
fn ctrl_c_abandons_a_long_statement_within_two_seconds() {
    let dir = scratch("ctrlc-stmt");
    let running_on_mysql = || mysql_admin("SELECT COUNT(*) FROM information_schema.processlist WHERE info = 'SELECT SLEEP(20)'").trim() == "1";
    let running_on_pg = || pg_admin("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(20)' AND state = 'active'").trim() == "1";
    let cases: [(String, &str, &dyn Fn() -> bool); 2] = [(mysql_url(), "SELECT SLEEP(20)", &running_on_mysql), (pg_url(), "SELECT pg_sleep(20)", &running_on_pg)];
    for (url, sleep, running) in cases {
        let file = dir.join("sleep.toml");
        std::fs::write(&file, format!("[[step]]\nkind = \"query\"\nsql = \"{sleep}\"\n")).unwrap();
        let run = common::watch::Watched::spawn(fairbench().args(["scenario"]).arg(&file).args(["--target", &url, "--no-save"]));
        // The statement is in flight on the server.
        assert!(eventually(std::time::Duration::from_secs(30), running), "{url}: {sleep} never ran");
        let (code, took, _) = run.interrupt();
        assert!(took < std::time::Duration::from_secs(2), "{url}: took {took:?}");
        assert_eq!(code, Some(130), "{url}");
    }
}

/// The same rows give the same checksum on both engines, NULLs included;
/// one `sql` entry may hold several statements, as a client script did.
#[test]
fn a_query_checksum_is_the_same_on_both_engines() {
    let dir = scratch("checksum");
    let file = dir.join("q.toml");
    std::fs::write(
        &file,
        "[[step]]\nkind = \"sql\"\nsql = \"DROP TABLE IF EXISTS ck; CREATE TABLE ck(a INT, b VARCHAR(5)); INSERT INTO ck VALUES (1, 'a b'), (2, NULL)\"\n\n\
         [[step]]\nkind = \"query\"\nname = \"q\"\nsql = \"SELECT a, b, NULL FROM ck\"\n",
    )
    .unwrap();
    let sums: Vec<String> = [mysql_url(), pg_url()]
        .iter()
        .map(|url| {
            let rep = json_of(&run_ok(fairbench().args(["scenario"]).arg(&file).args(["--target", url, "--json", "--no-save"])));
            let q = step(&rep["columns"][0], "q");
            assert_eq!(q["rows"], 2, "{q}");
            q["checksum"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(sums[0], sums[1]);
}
