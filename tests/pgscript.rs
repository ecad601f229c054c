//! pgbench scripts: the built-ins on PostgreSQL (tables from `prepare`,
//! per-event statement counts), a script with every meta-command in the
//! three protocols, a portable script on MariaDB and SQLite, weights
//! within one point, error lines and exit codes, the script's path and
//! SHA-256 in the store with the audit finding when they differ, open
//! loop and sweeps through the runner, and pipelines and `\;` compounds.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// pgbench's table names are fixed: tests that prepare them on a server
/// take turns.
static PG: Mutex<()> = Mutex::new(());
static MY: Mutex<()> = Mutex::new(());

/// Every meta-command, with checks that end the run with an error when a
/// value is not what pgbench gives. Per event: 3 reads, 1 write, 2 other.
const ALL_META: &str = r#"-- every meta-command pgbench scripts use
\set aid random(1, 100000 * :scale)
\set half :aid / 2 + 0.5
\set kind CASE WHEN :aid % 2 = 0 THEN 2 ELSE 1 END
\set seven \
   1 + 2 * 3
\sleep 1 ms
\sleep :kind us
SELECT abalance AS bal, aid FROM pgbench_accounts WHERE aid = :aid \gset acc_
\if :acc_aid = :aid AND :seven = 7
  SELECT :acc_bal::int + 1 AS next_bal \gset
\elif :aid < 0
  SELECT 1/0;
\else
  SELECT 'unreachable' FROM nowhere_at_all;
\endif
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + 1
  WHERE aid = :aid;
END;
SELECT aid FROM pgbench_accounts WHERE aid <= 3 ORDER BY aid \aset
\set check :next_bal - :acc_bal + :aid
\if :check <> 4
  SELECT no_such_column FROM pgbench_accounts;
\endif
"#;

/// SQL every engine takes: no casts, COMMIT instead of END.
const PORTABLE: &str = r#"\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance, aid AS got FROM pgbench_accounts WHERE aid = :aid \gset
\if :got <> :aid OR :abalance IS NULL
  SELECT 1 FROM no_such_table;
\endif
COMMIT;
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn run_json(target: &str, args: &[&str]) -> Value {
    let mut c = fairbench();
    c.arg("run").args(args).args(["--target", target, "--no-save", "--output", "json"]);
    let s = summary(&run_ok(&mut c));
    assert_eq!(s["status"], "completed", "{s}");
    assert!(s["transactions"].as_u64().unwrap() > 0, "{s}");
    s
}

fn queries(s: &Value) -> (u64, u64, u64) {
    let q = &s["queries"];
    (q["read"].as_u64().unwrap(), q["write"].as_u64().unwrap(), q["other"].as_u64().unwrap())
}

/// One value from the PostgreSQL test server, through psql.
fn pg_value(sql: &str) -> String {
    let u = parse_url(&pg_url());
    let out = run_ok(Command::new("psql").env("PGPASSWORD", &u.password).args(["-h", "127.0.0.1", "-p", &pg_port().to_string(), "-U", &u.user, "-d", &u.database, "-Atc", sql]));
    stdout(&out).trim().to_string()
}

fn prepare(target: &str, scale: &str) {
    run_ok(fairbench().args(["prepare", "select-only", "--scale", scale, "--target", target]));
}

#[test]
fn builtins_on_postgres() {
    let _g = PG.lock().unwrap_or_else(|e| e.into_inner());
    let pg = pg_url();
    prepare(&pg, "2");
    // Per event: tpcb-like 1 read, 4 writes, BEGIN and END; simple-update
    // 1 read, 2 writes; select-only one read.
    for (w, r, wr, o) in [("tpcb-like", 1, 4, 2), ("simple-update", 1, 2, 2), ("select-only", 1, 0, 0)] {
        let s = run_json(&pg, &[w, "--time", "2", "--threads", "2"]);
        let n = s["transactions"].as_u64().unwrap();
        assert_eq!(queries(&s), (r * n, wr * n, o * n), "{w}: {s}");
        assert_eq!(s["workload"], w);
        // The scale is read from the tables when not given.
        assert_eq!(s["options"]["scale"], "2", "{s}");
        assert!(s["label"].as_str().unwrap().contains(w), "{s}");
        if w == "tpcb-like" {
            // Every transaction moved the same delta through accounts,
            // tellers and branches and logged it once in history.
            assert_eq!(pg_value("SELECT count(*) FROM pgbench_history"), n.to_string());
            let sums = "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(delta) FROM pgbench_history) \
                AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT sum(delta) FROM pgbench_history) \
                AND (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(delta) FROM pgbench_history)";
            assert_eq!(pg_value(sums), "t");
            assert_eq!(pg_value("SELECT count(*) FROM pgbench_accounts"), "200000");
        }
    }
    // -b as pgbench takes it, prefixes included, and -M simple.
    let s = run_json(&pg, &["-b", "select", "-M", "simple", "--events", "200"]);
    assert_eq!(s["workload"], "select-only");
    assert_eq!(s["options"]["protocol"], "simple");
    // A --scale other than the tables' is refused before running.
    let out = run_fail(fairbench().args(["run", "select-only", "--scale", "3", "--no-prepare", "--no-save", "--target", &pg]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("pgbench_branches has 2 rows"), "{}", stderr(&out));
    run_ok(fairbench().args(["cleanup", "select-only", "--target", &pg]));
    let out = run_fail(fairbench().args(["run", "select-only", "--no-prepare", "--no-save", "--target", &pg]));
    assert!(stderr(&out).contains("do not exist"), "{}", stderr(&out));
}

#[test]
fn every_meta_command_on_postgres_in_each_protocol() {
    let _g = PG.lock().unwrap_or_else(|e| e.into_inner());
    let pg = pg_url();
    prepare(&pg, "1");
    let dir = scratch_dir("pgscript_meta");
    let f = write(&dir, "all.sql", ALL_META);
    for m in ["simple", "extended", "prepared"] {
        let s = run_json(&pg, &["--pgbench-script", f.to_str().unwrap(), "-M", m, "--time", "2", "--threads", "2"]);
        let n = s["transactions"].as_u64().unwrap();
        assert_eq!(queries(&s), (3 * n, n, 2 * n), "{m}: {s}");
        assert_eq!(s["workload"], "pgscript", "{s}");
        assert_eq!(s["options"]["protocol"], m);
    }
}

#[test]
fn portable_script_on_mariadb_and_sqlite() {
    let _g = MY.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("pgscript_portable");
    let f = write(&dir, "portable.sql", PORTABLE);
    let lite = format!("sqlite:{}", dir.join("p.sqlite").display());
    for target in [mysql_url(), lite] {
        prepare(&target, "1");
        for m in ["simple", "prepared"] {
            let s = run_json(&target, &["-f", f.to_str().unwrap(), "-M", m, "--time", "2", "--threads", "2"]);
            let n = s["transactions"].as_u64().unwrap();
            let (r, w, o) = queries(&s);
            // A client stopped by the end of the run may have sent its
            // event's BEGIN (counted as it runs, as sysbench counts) but not
            // the rest: at most one such event per client.
            assert!(r >= n && r <= n + 2 && o >= 2 * n && o <= 2 * n + 4, "{target} {m}: {s}");
            // An UPDATE that changes nothing (delta 0) counts as other, not a write.
            assert!(w <= n && w + 20 >= n * 99 / 100, "{target} {m}: {s}");
        }
        run_ok(fairbench().args(["cleanup", "select-only", "--target", &target]));
    }
}

#[test]
fn weights_are_honoured_within_a_point() {
    let dir = scratch_dir("pgscript_weights");
    let a = write(&dir, "a.sql", "SELECT 1;\n");
    let b = write(&dir, "b.sql", "\\set x random(1, 10)\nSELECT :x;\n");
    let lite = format!("sqlite:{}", dir.join("w.sqlite").display());
    let s = run_json(&lite, &["-f", &format!("{}@1", a.display()), "-f", &format!("{}@3", b.display()), "--events", "40000", "--threads", "2", "--rand-seed", "7"]);
    let kinds = s["kinds"].as_array().unwrap();
    let ev = |i: usize| kinds[i]["events"].as_u64().unwrap() as f64;
    let share = ev(1) / (ev(0) + ev(1));
    assert!((share - 0.75).abs() < 0.01, "b.sql ran {:.2}% of events, 75% expected: {s}", share * 100.0);
    assert_eq!(s["options"]["script-weights"], "1,3");
}

#[test]
fn script_errors_are_one_line_with_file_and_line() {
    let dir = scratch_dir("pgscript_errors");
    let lite = format!("sqlite:{}", dir.join("e.sqlite").display());
    // (script, exit code, the line it must print)
    let cases: &[(&str, &str, i32, &str)] = &[
        ("meta.sql", "SELECT 1;\n\\frobnicate 3\n", 2, "meta.sql:2: invalid command \\frobnicate"),
        ("expr.sql", "\\set a 1 +* 2\n", 2, "expr.sql:1: \\set: syntax error"),
        ("endif.sql", "\\if 1\nSELECT 1;\n", 2, "endif.sql:1: \\if without a matching \\endif"),
        ("shell.sql", "\\setshell x echo 1\n", 2, "shell.sql:1: \\setshell is not supported"),
        ("var.sql", "\\set a 1\nSELECT :a,\n  :nope;\n", 4, "var.sql:2: undefined variable \"nope\""),
        ("div.sql", "\\set a 0\n\\set b 10 / :a\n", 4, "div.sql:2: \\set: division by zero"),
        ("sql.sql", "\n\nSELECT * FROM no_such_table;\n", 4, "sql.sql:3: no such table: no_such_table"),
        ("gset.sql", "SELECT 1 AS a UNION ALL SELECT 2 \\gset\n", 4, "gset.sql:1: \\gset expects one row, got 2"),
        ("nested.sql", "\\startpipeline\nSELECT 1;\n\\startpipeline\n", 2, "nested.sql:3: \\startpipeline: already in pipeline mode (since line 1)"),
        ("unopened.sql", "SELECT 1;\n\\endpipeline\n", 2, "unopened.sql:2: \\endpipeline: not in pipeline mode"),
        ("open.sql", "\\startpipeline\nSELECT 1;\n", 2, "open.sql:1: \\startpipeline without a matching \\endpipeline"),
        ("pgset.sql", "\\startpipeline\nSELECT 1 AS a \\gset\n\\endpipeline\n", 2, "pgset.sql:2: \\gset inside a pipeline is not supported here"),
    ];
    for (name, text, code, want) in cases {
        let f = write(&dir, name, text);
        let out = run_fail(fairbench().args(["run", "--pgbench-script", f.to_str().unwrap(), "--no-save", "--time", "2", "--target", &lite]));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(*code), "{name}: {err}");
        let line = err.lines().find(|l| l.starts_with("fairbench:")).unwrap_or_else(|| panic!("{name}: no error line in {err}"));
        assert!(line.contains(&format!("{}{want}", dir.display().to_string() + "/")), "{name}: {line}");
    }
    // Another family's workload with a script would ignore the script.
    let f = write(&dir, "ok.sql", "SELECT 1;\n");
    let out = run_fail(fairbench().args(["run", "oltp_read_write", "-f", f.to_str().unwrap(), "--no-save", "--target", &lite]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("drop 'oltp_read_write' or those options"), "{}", stderr(&out));
    // A missing file and a bad weight are usage errors too.
    let out = run_fail(fairbench().args(["run", "-f", "/nonexistent.sql", "--no-save", "--target", &lite]));
    assert_eq!(out.status.code(), Some(2));
    let out = run_fail(fairbench().args(["run", "-b", "tpcb-like@x", "--no-save", "--target", &lite]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("invalid weight"), "{}", stderr(&out));
}

fn store_run(store: &Path, target: &str, script: &Path, extra: &[&str]) {
    let mut c: Command = fairbench();
    c.args(["run", "-f", script.to_str().unwrap(), "--events", "100", "--target", target, "--results"]).arg(store).args(extra);
    run_ok(&mut c);
}

#[test]
fn store_records_script_and_audit_finds_changed_contents() {
    let dir = scratch_dir("pgscript_store");
    let lite = format!("sqlite:{}", dir.join("s.sqlite").display());
    let store = dir.join("results.sqlite");
    let f = write(&dir, "q.sql", "SELECT 1;\n");
    store_run(&store, &lite, &f, &[]);
    store_run(&store, &lite, &f, &[]);
    let audit = |ids: &[&str]| {
        let mut c = fairbench();
        c.arg("audit").args(ids).arg("--results").arg(&store).arg("--json");
        stdout(&run_ok(&mut c))
    };
    assert!(!audit(&["last-1", "last"]).contains("script-mismatch"));
    // Same path, other contents: a finding.
    write(&dir, "q.sql", "SELECT 2;\n");
    store_run(&store, &lite, &f, &[]);
    let found = audit(&["last-1", "last"]);
    assert!(found.contains("script-mismatch"), "{found}");
    let mut c = fairbench();
    c.args(["results", "show", "last", "--results"]).arg(&store);
    let shown = stdout(&run_ok(&mut c));
    let sha = "a41109d24069b4822ddc5f367b25d484dc7e839bff338ce7a3e5da641caacda0";
    assert!(shown.contains(sha) && shown.contains("q.sql"), "{shown}");
}

#[test]
fn open_loop_and_sweeps_run_scripts() {
    let dir = scratch_dir("pgscript_runner");
    let lite = format!("sqlite:{}", dir.join("r.sqlite").display());
    let f = write(&dir, "q.sql", "\\set x random(1, :lim)\nSELECT :x;\n");
    let mut c = fairbench();
    c.args(["run", "-f", f.to_str().unwrap(), "-D", "lim=100", "--threads", "1,2", "--time", "1", "--rate", "200", "--no-save", "--output", "json", "--target", &lite]);
    let text = stdout(&run_ok(&mut c));
    let sums: Vec<Value> = text.lines().filter(|l| l.contains("\"summary\"")).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(sums.len(), 2, "{text}");
    for (s, threads) in sums.iter().zip([1, 2]) {
        assert_eq!(s["threads"], threads);
        let tps = s["tps"].as_f64().unwrap();
        assert!((150.0..=250.0).contains(&tps), "rate 200/s, got {tps}: {s}");
        assert!(s["latency_uncorrected_ms"].is_object(), "{s}");
        assert_eq!(s["options"]["define"], "lim=100", "{s}");
    }
}

/// A pgbench script's client has a thread of its own and waits for the
/// server inside recv(2): Ctrl-C still stops a client blocked in a long
/// statement within 2 s, with the summary.
#[test]
fn ctrl_c_stops_a_script_blocked_in_a_long_statement() {
    use std::time::Duration;
    let dir = scratch_dir("pgscript-long");
    let script = dir.join("long.sql");
    std::fs::write(&script, "SELECT pg_sleep(30);\n").unwrap();
    // Once both clients are inside the statement, as the server sees them.
    let sleeping = || pg_admin("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'").trim() == "2";
    let (code, took, out) = interrupt_when(fairbench().args(["run", "--pgbench-script", script.to_str().unwrap(), "--target", &pg_url(), "--threads", "2", "--time", "60", "--no-save"]), sleeping);
    assert_eq!(code, Some(130), "{out}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(out.contains("SQL statistics") || out.contains("transactions"), "{out}");
}

/// pgbench's tpcb-like transaction in one pipeline: its seven statements go out together and
/// are answered in order (the script bench/pgscript.py runs beside pgbench).
const PIPELINED: &str = include_str!("../bench/tpcb_pipelined.sql");

/// Pipeline mode in both extended protocols, with every statement counted and every
/// transaction's rows in place; an error inside a pipeline rolls back its part up to the next
/// `\syncpipeline` and skips the rest of that part, while the part after the Sync commits, as
/// libpq's pipeline mode does; `\;` joins statements into one request in the simple protocol;
/// what a protocol cannot send is refused in one line.
#[test]
fn pipelines_and_compound_statements_on_postgres() {
    let _g = PG.lock().unwrap_or_else(|e| e.into_inner());
    let pg = pg_url();
    prepare(&pg, "1");
    let dir = scratch_dir("pgscript_pipeline");
    let piped = write(&dir, "piped.sql", PIPELINED);
    for mode in ["prepared", "extended"] {
        let before: u64 = pg_value("SELECT count(*) FROM pgbench_history").parse().unwrap();
        let s = run_json(&pg, &["--pgbench-script", piped.to_str().unwrap(), "-M", mode, "--events", "300", "--threads", "2"]);
        let n = s["transactions"].as_u64().unwrap();
        assert_eq!(n, 300, "{mode}: {s}");
        assert_eq!(queries(&s), (n, 4 * n, 2 * n), "{mode}: {s}");
        let after: u64 = pg_value("SELECT count(*) FROM pgbench_history").parse().unwrap();
        assert_eq!(after - before, n, "{mode}: each transaction's history row");
    }
    let sums = "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(delta) FROM pgbench_history) \
        AND (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(delta) FROM pgbench_history)";
    assert_eq!(pg_value(sums), "t");

    // Errors in order: the first part's INSERT is rolled back with the failed statement, the
    // one after it never runs, the part after the Sync commits.
    let failing = write(
        &dir,
        "failing.sql",
        "\\startpipeline\nINSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (1, 1, 1, 70101);\nSELECT 1/0;\n\
         INSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (1, 1, 1, 70102);\n\\syncpipeline\n\
         INSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (1, 1, 1, 70103);\n\\endpipeline\n",
    );
    let out = run_fail(fairbench().args(["run", "--pgbench-script", failing.to_str().unwrap(), "-M", "prepared", "--events", "1", "--no-save", "--target", &pg]));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let line = stderr(&out).lines().find(|l| l.starts_with("fairbench:")).map(str::to_string).unwrap_or_default();
    assert!(line.contains("failing.sql:7") && line.contains("division by zero"), "{}", stderr(&out));
    let kept = pg_value("SELECT string_agg(delta::text, ',' ORDER BY delta) FROM pgbench_history WHERE delta BETWEEN 70101 AND 70103");
    assert_eq!(kept, "70103");

    // `\;`: both statements of each event ran, sent as one.
    let compound = write(&dir, "compound.sql", "UPDATE pgbench_branches SET filler = 'c' WHERE bid = 1 \\; UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = 1;\n");
    let t0: i64 = pg_value("SELECT tbalance FROM pgbench_tellers WHERE tid = 1").parse().unwrap();
    let s = run_json(&pg, &["--pgbench-script", compound.to_str().unwrap(), "-M", "simple", "--events", "40"]);
    assert_eq!(s["transactions"], 40, "{s}");
    let t1: i64 = pg_value("SELECT tbalance FROM pgbench_tellers WHERE tid = 1").parse().unwrap();
    assert_eq!(t1 - t0, 40);
    assert_eq!(pg_value("SELECT filler FROM pgbench_branches WHERE bid = 1").trim(), "c");

    // What a protocol cannot send, before anything runs.
    for (script, mode, want) in
        [(&piped, "simple", "piped.sql:7: \\startpipeline: cannot use pipeline mode with the simple query protocol"), (&compound, "prepared", "compound.sql:1: \\;: statements joined by \\; go")]
    {
        let out = run_fail(fairbench().args(["run", "--pgbench-script", script.to_str().unwrap(), "-M", mode, "--time", "1", "--no-save", "--target", &pg]));
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_one_line_error(&out, &[want]);
    }
    run_ok(fairbench().args(["cleanup", "select-only", "--target", &pg]));
}

/// pgbench's -C: a new connection after every transaction; --reconnect N after every N; the
/// run records it, so a comparison with a run on held connections shows the difference.
#[test]
fn connection_churn_reconnects_after_every_transaction_or_every_n() {
    let _g = PG.lock().unwrap_or_else(|e| e.into_inner());
    let pg = pg_url();
    prepare(&pg, "1");
    for (flag, events, want) in [(&["-C"][..], 200, 200), (&["--reconnect", "50"][..], 200, 4)] {
        let s = run_json(&pg, &[&["-b", "select-only", "--threads", "1", "--events", &events.to_string()][..], flag].concat());
        assert_eq!(s["transactions"], events, "{s}");
        assert_eq!(s["reconnects"], want, "{flag:?}: {s}");
        assert_eq!(s["options"]["reconnect"], if flag[0] == "-C" { "1" } else { "50" }, "{s}");
    }
    run_ok(fairbench().args(["cleanup", "select-only", "--target", &pg]));
}

/// The partitions of each tool's pgbench_accounts (name and bounds), read from the catalog.
fn account_partitions() -> String {
    pg_value("SELECT string_agg(c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid), '; ' ORDER BY c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'pgbench_accounts'::regclass")
}

/// `prepare --partitions N --partition-method range|hash` makes the partitions Debian's
/// `pgbench -i` makes, bound for bound, and the built-ins run on them; `pgbench -i`'s own
/// tables run through fairbench with the same counts.
#[test]
fn partitioned_accounts_are_pgbench_i_s_and_either_tools_tables_run() {
    let _g = PG.lock().unwrap_or_else(|e| e.into_inner());
    let pg = pg_url();
    let u = parse_url(&pg);
    let pgbench_i = |extra: &[&str]| {
        run_ok(Command::new("pgbench").env("PGPASSWORD", &u.password).args(["-i", "-q", "-s", "2", "-h", "127.0.0.1", "-p", &pg_port().to_string(), "-U", &u.user]).args(extra).arg(&u.database))
    };
    for method in ["range", "hash"] {
        run_ok(fairbench().args(["prepare", "tpcb-like", "--scale", "2", "--partitions", "3", "--partition-method", method, "--target", &pg]));
        let ours = account_partitions();
        assert_eq!(ours.matches("pgbench_accounts_").count(), 3, "{ours}");
        assert_eq!(pg_value("SELECT count(*) FROM pgbench_accounts"), "200000");
        let s = run_json(&pg, &["tpcb-like", "--events", "200", "--threads", "2"]);
        assert_eq!(queries(&s), (200, 800, 400), "{s}");
        pgbench_i(&["--partitions", "3", "--partition-method", method]);
        assert_eq!(account_partitions(), ours, "{method}: pgbench -i's partitions");
    }
    // pgbench -i's own tables (scale 2, unpartitioned): the scale read from them, the counts kept.
    pgbench_i(&[]);
    let s = run_json(&pg, &["select-only", "--events", "300", "--no-prepare"]);
    assert_eq!(s["options"]["scale"], "2", "{s}");
    assert_eq!(queries(&s), (300, 0, 0), "{s}");
    let s = run_json(&pg, &["tpcb-like", "--events", "100", "--no-prepare"]);
    assert_eq!(queries(&s), (100, 400, 200), "{s}");
    assert_eq!(pg_value("SELECT count(*) FROM pgbench_history"), "100");
    run_ok(fairbench().args(["cleanup", "select-only", "--target", &pg]));
    // Partitions are PostgreSQL's: one line elsewhere.
    let dir = scratch_dir("pgscript_parts");
    let lite = format!("sqlite:{}", dir.join("p.sqlite").display());
    let out = run_fail(fairbench().args(["prepare", "tpcb-like", "--partitions", "2", "--target", &lite]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_one_line_error(&out, &["--partitions", "PARTITION BY"]);
}
