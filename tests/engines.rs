//! The workloads end to end on every engine: embedded SQLite, MariaDB over TCP and over its
//! unix socket, PostgreSQL over TCP and over its socket directory.
//!
//! - per-event query counts and their read/write/other classification (sysbench's)
//! - the shape of the data `prepare` loads, and the secondary index
//! - key distributions as seen by the server (which rows the updates hit)
//! - reconnects after the server kills the connections, and `--reconnect N`
//! - open-loop runs (`--rate`): latency corrected for coordinated omission
//! - retryable errors restart the event; any other error stops the run (exit 4)
//!
//! Tests run two at a time against the same servers, so every test uses table names of its
//! own (`--table-name`), and tests that act on *all* of fairbench's connections use a
//! database of their own.

mod common;

use common::*;
use serde_json::Value;
use std::borrow::BorrowMut;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    Sqlite,
    Mysql,
    Postgres,
}

/// One way to reach one engine.
#[derive(Clone, Debug)]
struct Target {
    /// Short name, also used in table names: lite, my, mysock, pg, pgsock.
    tag: &'static str,
    protocol: Protocol,
    /// The `--target` URL.
    url: String,
    /// What the run reports as its transport.
    transport: &'static str,
    /// The SQLite database file.
    file: Option<PathBuf>,
    /// Database (MariaDB/PostgreSQL) the URL points to.
    database: String,
    /// The test's own directory, fairbench's working directory (its results store goes there).
    dir: PathBuf,
}

const TAGS: [&str; 5] = ["lite", "my", "mysock", "pg", "pgsock"];

/// Every target. `test` names the SQLite file's directory, so that tests running in
/// parallel never share a file.
fn targets(test: &str) -> Vec<Target> {
    targets_in(test, None)
}

/// Every target, with the server ones pointing at `database` instead of the test database.
fn targets_in(test: &str, database: Option<&str>) -> Vec<Target> {
    let my = parse_url(&mysql_url());
    let pg = parse_url(&pg_url());
    let my_db = database.unwrap_or(&my.database).to_string();
    let pg_db = database.unwrap_or(&pg.database).to_string();
    let dir = scratch_dir(&format!("engines-{test}"));
    let file = dir.join("bench.sqlite");
    vec![
        Target { tag: "lite", protocol: Protocol::Sqlite, url: format!("sqlite:{}", file.display()), transport: "embedded", file: Some(file), database: String::new(), dir: dir.clone() },
        Target {
            tag: "my",
            protocol: Protocol::Mysql,
            url: format!("mysql://{}:{}@{}:{}/{my_db}", my.user, my.password, my.host, mysql_port()),
            transport: "tcp",
            file: None,
            database: my_db.clone(),
            dir: dir.clone(),
        },
        Target {
            tag: "mysock",
            protocol: Protocol::Mysql,
            url: format!("mysql://{}:{}@localhost/{my_db}?socket={}", my.user, my.password, mysql_socket()),
            transport: "socket",
            file: None,
            database: my_db,
            dir: dir.clone(),
        },
        Target {
            tag: "pg",
            protocol: Protocol::Postgres,
            url: format!("postgres://{}:{}@{}:{}/{pg_db}", pg.user, pg.password, pg.host, pg_port()),
            transport: "tcp",
            file: None,
            database: pg_db.clone(),
            dir: dir.clone(),
        },
        Target {
            tag: "pgsock",
            protocol: Protocol::Postgres,
            url: format!("postgres://{}:{}@localhost:{}/{pg_db}?host={}", pg.user, pg.password, pg_port(), pg_socket_dir()),
            transport: "socket",
            file: None,
            database: pg_db,
            dir: dir.clone(),
        },
    ]
}

/// The target named `tag` (one of [`TAGS`]).
fn target(test: &str, tag: &str) -> Target {
    targets(test).into_iter().find(|t| t.tag == tag).unwrap_or_else(|| panic!("no target {tag}"))
}

/// One target per engine (SQLite, MariaDB TCP, PostgreSQL TCP).
fn one_per_engine(test: &str) -> Vec<Target> {
    targets(test).into_iter().filter(|t| ["lite", "my", "pg"].contains(&t.tag)).collect()
}

// ---------------------------------------------------------------------------------------
// Running fairbench
// ---------------------------------------------------------------------------------------

/// `fairbench COMMAND WORKLOAD --target URL --table-name TABLE ARGS...`
fn fb(t: &Target, command: &str, workload: &str, table: &str, args: &[&str]) -> Command {
    let mut c = fairbench();
    c.current_dir(&t.dir).arg(command).arg(workload).arg("--target").arg(&t.url).arg("--table-name").arg(table).args(args);
    c
}

/// The lines of stdout that are JSON objects of `type` ("interval" or "summary").
fn json_objects(out: &str, kind: &str) -> Vec<Value> {
    out.lines().filter(|l| l.trim_start().starts_with('{')).map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}"))).filter(|v| v["type"] == kind).collect()
}

/// The one summary object of a `--output json` run.
fn summary_of(out: &str) -> Value {
    let mut s = json_objects(out, "summary");
    assert_eq!(s.len(), 1, "expected exactly one summary object in:\n{out}");
    s.pop().unwrap()
}

/// Runs a `--output json` command that must succeed and returns its summary.
fn run_json(mut cmd: impl BorrowMut<Command>) -> Value {
    let out = run_ok(cmd.borrow_mut());
    let s = summary_of(&stdout(&out));
    assert_eq!(s["status"], "completed", "{s}");
    s
}

fn u(v: &Value, path: &[&str]) -> u64 {
    let mut x = v;
    for p in path {
        x = &x[*p];
    }
    x.as_u64().unwrap_or_else(|| panic!("{} is not a count in {v}", path.join(".")))
}

fn f(v: &Value, path: &[&str]) -> f64 {
    let mut x = v;
    for p in path {
        x = &x[*p];
    }
    x.as_f64().unwrap_or_else(|| panic!("{} is not a number in {v}", path.join(".")))
}

/// (read, write, other) of a summary.
fn rwo(s: &Value) -> (u64, u64, u64) {
    (u(s, &["queries", "read"]), u(s, &["queries", "write"]), u(s, &["queries", "other"]))
}

/// Drops the tables `TABLE1..TABLEn` (leftovers of an earlier run against the same servers).
fn cleanup(t: &Target, table: &str, tables: u32) {
    run_ok(&mut fb(t, "cleanup", "oltp_read_write", table, &["--tables", &tables.to_string()]));
}

/// Drops the tables, then prepares them afresh.
fn prepare(t: &Target, table: &str, args: &[&str]) {
    let tables = args.iter().position(|a| *a == "--tables").map(|i| args[i + 1].parse().unwrap()).unwrap_or(1);
    cleanup(t, table, tables);
    run_ok(&mut fb(t, "prepare", "oltp_read_write", table, args));
}

/// Rows of a query run with the engine's own client (SQLite: directly on the file).
fn rows(t: &Target, sql: &str) -> Vec<Vec<String>> {
    let split = |out: String, sep: char| -> Vec<Vec<String>> { out.lines().map(|l| l.split(sep).map(String::from).collect()).collect() };
    match t.protocol {
        Protocol::Mysql => split(mysql_admin_db(&t.database, sql), '\t'),
        Protocol::Postgres => split(pg_admin_db(&t.database, sql), '|'),
        Protocol::Sqlite => {
            let file = t.file.as_ref().unwrap();
            let conn = rusqlite::Connection::open(file).unwrap_or_else(|e| panic!("open {}: {e}", file.display()));
            let mut st = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
            let n = st.column_count();
            let mut q = st.raw_query();
            let mut out = Vec::new();
            while let Some(r) = q.next().unwrap_or_else(|e| panic!("{sql}: {e}")) {
                let mut row = Vec::with_capacity(n);
                for i in 0..n {
                    use rusqlite::types::ValueRef;
                    row.push(match r.get_ref(i).unwrap() {
                        ValueRef::Null => String::new(),
                        ValueRef::Integer(v) => v.to_string(),
                        ValueRef::Real(v) => v.to_string(),
                        ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
                    });
                }
                out.push(row);
            }
            out
        }
    }
}

fn int(s: &str) -> i64 {
    s.trim().parse().unwrap_or_else(|_| panic!("not an integer: {s:?}"))
}

// ---------------------------------------------------------------------------------------
// 1. Per-event query counts
// ---------------------------------------------------------------------------------------

const EVENTS: u64 = 200;

#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Exactly (reads, writes, others) per event.
    Exact(u64, u64, u64),
    /// oltp_delete: a DELETE of a row still there is a write, of one already deleted an other.
    Delete,
    /// oltp_read_write with several clients: an UPDATE or DELETE may find its row deleted
    /// by a concurrent delete/insert and then counts as "other" instead of "write".
    ReadWriteRacing,
}

struct Case {
    name: &'static str,
    workload: &'static str,
    args: &'static [&'static str],
    tables: u32,
    threads: u32,
    table_size: u32,
    expect: Expect,
}

use Expect::{Delete, Exact, ReadWriteRacing};

#[rustfmt::skip]
const CASES: &[Case] = &[
    Case { name: "ps", workload: "oltp_point_select", args: &[], tables: 1, threads: 2, table_size: 1000, expect: Exact(1, 0, 0) },
    Case { name: "ro", workload: "oltp_read_only", args: &[], tables: 1, threads: 2, table_size: 1000, expect: Exact(14, 0, 2) },
    Case { name: "rw", workload: "oltp_read_write", args: &[], tables: 1, threads: 1, table_size: 1000, expect: Exact(14, 4, 2) },
    Case { name: "wo", workload: "oltp_write_only", args: &[], tables: 1, threads: 1, table_size: 1000, expect: Exact(0, 4, 2) },
    Case { name: "ui", workload: "oltp_update_index", args: &[], tables: 1, threads: 2, table_size: 1000, expect: Exact(0, 1, 0) },
    Case { name: "uni", workload: "oltp_update_non_index", args: &[], tables: 1, threads: 2, table_size: 1000, expect: Exact(0, 1, 0) },
    // Uniform ids, so that most of the 200 deletes find a row (sysbench's special default repeats ids).
    Case { name: "del", workload: "oltp_delete", args: &["--rand-type=uniform"], tables: 1, threads: 2, table_size: 1000, expect: Delete },
    Case { name: "ins", workload: "oltp_insert", args: &[], tables: 1, threads: 2, table_size: 1000, expect: Exact(0, 1, 0) },
    Case { name: "insnoai", workload: "oltp_insert", args: &["--auto-inc=off"], tables: 1, threads: 2, table_size: 1000, expect: Exact(0, 1, 0) },
    Case { name: "rpts", workload: "select_random_points", args: &[], tables: 1, threads: 2, table_size: 1000, expect: Exact(1, 0, 0) },
    Case { name: "rrng", workload: "select_random_ranges", args: &[], tables: 1, threads: 2, table_size: 1000, expect: Exact(1, 0, 0) },
    Case { name: "skiptrx", workload: "oltp_read_write", args: &["--skip-trx"], tables: 1, threads: 1, table_size: 1000, expect: Exact(14, 4, 0) },
    Case { name: "norange", workload: "oltp_read_write", args: &["--range-selects=off"], tables: 1, threads: 1, table_size: 1000, expect: Exact(10, 4, 2) },
    Case { name: "psel3", workload: "oltp_read_write", args: &["--point-selects", "3"], tables: 1, threads: 1, table_size: 1000, expect: Exact(7, 4, 2) },
    Case { name: "ropsel3", workload: "oltp_read_only", args: &["--point-selects=3", "--range-selects=off"], tables: 1, threads: 2, table_size: 1000, expect: Exact(3, 0, 2) },
    Case { name: "twotab", workload: "oltp_read_write", args: &["--table-pick", "random"], tables: 2, threads: 1, table_size: 1000, expect: Exact(14, 4, 2) },
    Case { name: "psdis", workload: "oltp_read_write", args: &["--db-ps-mode", "disable"], tables: 1, threads: 1, table_size: 1000, expect: Exact(14, 4, 2) },
    Case { name: "psdisps", workload: "oltp_point_select", args: &["--db-ps-mode=disable"], tables: 1, threads: 2, table_size: 1000, expect: Exact(1, 0, 0) },
    Case { name: "psdiswo", workload: "oltp_write_only", args: &["--db-ps-mode=disable", "--skip-trx"], tables: 1, threads: 1, table_size: 1000, expect: Exact(0, 4, 0) },
    Case { name: "rw3", workload: "oltp_read_write", args: &[], tables: 1, threads: 3, table_size: 10000, expect: ReadWriteRacing },
];

/// (row count, SUM(k)) over the tables `base1..baseN`.
fn count_and_sum_k(t: &Target, base: &str, tables: u32) -> (i64, i64) {
    let mut total = (0, 0);
    for i in 1..=tables {
        let r = &rows(t, &format!("SELECT COUNT(*), COALESCE(SUM(k), 0) FROM {base}{i}"))[0];
        total.0 += int(&r[0]);
        total.1 += int(&r[1]);
    }
    total
}

fn query_counts(t: &Target) {
    for case in CASES {
        let table = format!("qc_{}_{}_", t.tag, case.name);
        let what = format!("{} {} {:?} on {}", case.name, case.workload, case.args, t.tag);
        let size = case.table_size.to_string();
        let tables = case.tables.to_string();
        let mut common = vec!["--table-size", &size, "--tables", &tables];
        common.extend(case.args);
        cleanup(t, &table, case.tables);
        run_ok(&mut fb(t, "prepare", case.workload, &table, &common));
        let before = count_and_sum_k(t, &table, case.tables);
        let loaded = if case.workload == "oltp_insert" && case.args.contains(&"--auto-inc=off") { 0 } else { case.table_size as i64 * case.tables as i64 };
        assert_eq!(before.0, loaded, "{what}: rows after prepare");

        let n = EVENTS;
        let (events, threads) = (n.to_string(), case.threads.to_string());
        let s =
            run_json(fb(t, "run", case.workload, &table, &common).args(["--no-prepare", "--events", &events, "--time", "120", "--threads", &threads, "--report-interval", "0", "--output", "json"]));
        assert_eq!(u(&s, &["transactions"]), n, "{what}: events\n{s}");
        assert_eq!(s["transport"], t.transport, "{what}");
        assert_eq!(u(&s, &["reconnects"]), 0, "{what}: reconnects\n{s}");
        let (r, w, o) = rwo(&s);
        assert_eq!(u(&s, &["queries", "total"]), r + w + o, "{what}");
        let after = count_and_sum_k(t, &table, case.tables);
        match case.expect {
            Exact(er, ew, eo) => {
                assert_eq!(u(&s, &["ignored_errors"]), 0, "{what}: ignored errors\n{s}");
                assert_eq!((r, w, o), (n * er, n * ew, n * eo), "{what}: read/write/other over {n} events\n{s}");
            }
            Delete => {
                assert_eq!(u(&s, &["ignored_errors"]), 0, "{what}: ignored errors\n{s}");
                assert_eq!(r, 0, "{what}: reads\n{s}");
                assert_eq!(w + o, n, "{what}: one DELETE per event\n{s}");
                // 200 draws from 1000 ids: most are first deletes of a row that exists.
                assert!(w >= n * 3 / 4, "{what}: deletes of existing rows count as writes\n{s}");
                assert_eq!(after.0, before.0 - w as i64, "{what}: rows left after {w} effective deletes");
            }
            ReadWriteRacing => {
                if u(&s, &["ignored_errors"]) == 0 {
                    assert_eq!(r, 14 * n, "{what}: reads\n{s}");
                    assert_eq!(w + o, 6 * n, "{what}: 4 writes + BEGIN/COMMIT per event\n{s}");
                    assert!(w >= 4 * n - n / 10 && w <= 4 * n, "{what}: writes\n{s}");
                } else {
                    // Restarted events run their queries again, and those count too.
                    assert!(r >= 14 * n && w + o >= 6 * n, "{what}\n{s}");
                }
            }
        }
        match case.workload {
            "oltp_insert" => assert_eq!(after.0, before.0 + n as i64, "{what}: rows after {n} inserts"),
            "oltp_update_index" => {
                assert_eq!(after, (before.0, before.1 + n as i64), "{what}: k=k+1 once per event")
            }
            "oltp_delete" => {}
            // Reads change nothing; delete+insert puts the row back.
            _ => assert_eq!(after.0, before.0, "{what}: row count"),
        }
        if case.workload.contains("read_only") || case.workload.starts_with("select") || case.workload == "oltp_point_select" {
            assert_eq!(after, before, "{what}: a read-only workload changed data");
        }
        cleanup(t, &table, case.tables);
    }
}

#[test]
fn query_counts_sqlite() {
    query_counts(&target("qc-lite", "lite"));
}

#[test]
fn query_counts_mysql_tcp() {
    query_counts(&target("qc-my", "my"));
}

#[test]
fn query_counts_mysql_socket() {
    query_counts(&target("qc-mysock", "mysock"));
}

#[test]
fn query_counts_pg_tcp() {
    query_counts(&target("qc-pg", "pg"));
}

#[test]
fn query_counts_pg_socket() {
    query_counts(&target("qc-pgsock", "pgsock"));
}

/// A query that fails (stopping the run) unless the connection uses the expected transport.
fn transport_guard(protocol: Protocol, socket: bool) -> String {
    match protocol {
        // A scalar subquery of two rows is an error (1242); MariaDB shows socket clients
        // as host 'localhost' and TCP clients as 'address:port'.
        Protocol::Mysql => format!(
            "SELECT (SELECT 1 UNION SELECT 2 FROM DUAL WHERE \
             (SELECT host FROM information_schema.processlist WHERE id = CONNECTION_ID()) {} 'localhost')",
            if socket { "<>" } else { "=" }
        ),
        // inet_client_addr() is NULL on a unix socket.
        Protocol::Postgres => format!("SELECT 1 / (CASE WHEN inet_client_addr() IS {} NULL THEN 1 ELSE 0 END)", if socket { "" } else { "NOT" }),
        Protocol::Sqlite => "SELECT 1".into(),
    }
}

#[test]
fn targets_use_the_transport_they_name() {
    let ts = targets("transport");
    assert_eq!(ts.iter().map(|t| t.tag).collect::<Vec<_>>(), TAGS);
    for t in &ts {
        let table = format!("tr_{}_", t.tag);
        cleanup(t, &table, 1);
        let guard = transport_guard(t.protocol, t.transport == "socket");
        let s = run_json(fb(t, "run", "oltp_point_select", &table, &["--table-size", "100", "--events", "20", "--threads", "2", "--output", "json", "--extra-query-before", &guard]));
        assert_eq!(s["transport"], t.transport, "{}: {s}", t.tag);
        // The guard is a read of its own.
        assert_eq!(rwo(&s), (40, 0, 0), "{}: {s}", t.tag);
        if t.protocol != Protocol::Sqlite {
            // The guard does fail on the other transport.
            let wrong = transport_guard(t.protocol, t.transport != "socket");
            let out = run_fail(&mut fb(t, "run", "oltp_point_select", &table, &["--table-size", "100", "--events", "20", "--output", "json", "--extra-query-before", &wrong]));
            assert_eq!(out.status.code(), Some(4), "{}: {}", t.tag, stderr(&out));
        }
        cleanup(t, &table, 1);
    }
}

/// A path with every byte but [A-Za-z0-9._-] percent-encoded.
fn pct_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn pg_socket_directory_url_forms() {
    // The server listens on a port of its own, so the socket URL must carry that port.
    let base = target("pg-socket-forms", "pgsock");
    let pg = parse_url(&pg_url());
    let (dir, port) = (pct_encode(&pg_socket_dir()), pg_port());
    let forms = [
        format!("postgres://{}:{}@{dir}:{port}/{}", pg.user, pg.password, pg.database),
        format!("postgres://{}:{}@{dir}/{}?port={port}", pg.user, pg.password, pg.database),
        format!("postgres://{}:{}@localhost:{port}/{}?host={}", pg.user, pg.password, pg.database, pg_socket_dir()),
    ];
    let guard = transport_guard(Protocol::Postgres, true);
    for (i, url) in forms.iter().enumerate() {
        let t = Target { url: url.clone(), ..base.clone() };
        let table = format!("sockform{i}_");
        cleanup(&t, &table, 1);
        let s = run_json(fb(&t, "run", "oltp_point_select", &table, &["--table-size", "100", "--events", "10", "--output", "json", "--extra-query-before", &guard]));
        assert_eq!(s["transport"], "socket", "{url}: {s}");
        assert_eq!(rwo(&s), (20, 0, 0), "{url}: {s}");
        cleanup(&t, &table, 1);
    }
}

// ---------------------------------------------------------------------------------------
// 2. Data shape after prepare
// ---------------------------------------------------------------------------------------

/// `groups` groups of 11 digits joined by '-'.
fn is_digit_groups(s: &str, groups: usize) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == groups && parts.iter().all(|p| p.len() == 11 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// BMK-kit's fixed pattern (`--rand-data 0`): "1234567890X" in place of every group.
fn fixed_pattern(groups: usize) -> String {
    vec!["1234567890X"; groups].join("-")
}

/// Secondary (non-primary) indexes of `table`: (index name, column).
fn secondary_indexes(t: &Target, table: &str) -> Vec<(String, String)> {
    let sql = match t.protocol {
        Protocol::Mysql => format!(
            "SELECT index_name, column_name FROM information_schema.statistics \
             WHERE table_schema = DATABASE() AND table_name = '{table}' AND index_name <> 'PRIMARY' \
             ORDER BY index_name, seq_in_index"
        ),
        Protocol::Postgres => format!(
            "SELECT i.relname, a.attname FROM pg_index x \
             JOIN pg_class i ON i.oid = x.indexrelid \
             JOIN pg_class c ON c.oid = x.indrelid \
             JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(x.indkey) \
             WHERE c.relname = '{table}' AND c.relnamespace = 'public'::regnamespace AND NOT x.indisprimary \
             ORDER BY 1, 2"
        ),
        Protocol::Sqlite => format!(
            "SELECT il.name, ii.name FROM pragma_index_list('{table}') il, pragma_index_info(il.name) ii \
             WHERE il.origin = 'c' ORDER BY 1, 2"
        ),
    };
    rows(t, &sql).into_iter().map(|r| (r[0].clone(), r[1].clone())).collect()
}

/// Columns of the primary key of `table`.
fn primary_key(t: &Target, table: &str) -> Vec<String> {
    let sql = match t.protocol {
        Protocol::Mysql => format!(
            "SELECT column_name FROM information_schema.statistics \
             WHERE table_schema = DATABASE() AND table_name = '{table}' AND index_name = 'PRIMARY'"
        ),
        Protocol::Postgres => format!(
            "SELECT a.attname FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid \
             JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(x.indkey) \
             WHERE c.relname = '{table}' AND c.relnamespace = 'public'::regnamespace AND x.indisprimary"
        ),
        Protocol::Sqlite => format!("SELECT name FROM pragma_table_info('{table}') WHERE pk > 0"),
    };
    rows(t, &sql).into_iter().map(|r| r[0].clone()).collect()
}

#[test]
fn prepared_data_has_sysbench_shape() {
    const SIZE: i64 = 1500;
    for t in targets("shape") {
        let base = format!("shape_{}_", t.tag);
        // k drawn uniformly (sysbench's prepare draws it with the default distribution, special unless told).
        prepare(&t, &base, &["--tables", "2", "--table-size", &SIZE.to_string(), "--threads", "2", "--rand-type", "uniform"]);
        for n in 1..=2 {
            let table = format!("{base}{n}");
            let what = format!("{table} on {}", t.tag);
            let agg = &rows(&t, &format!("SELECT COUNT(*), MIN(id), MAX(id), COUNT(DISTINCT id), MIN(k), MAX(k) FROM {table}"))[0];
            let agg: Vec<i64> = agg.iter().map(|v| int(v)).collect();
            assert_eq!(agg[0], SIZE, "{what}: row count");
            assert_eq!((agg[1], agg[2], agg[3]), (1, SIZE, SIZE), "{what}: ids are 1..{SIZE}");
            assert!(agg[4] >= 1 && agg[5] <= SIZE, "{what}: k within [1, {SIZE}]: {agg:?}");
            // Uniform k over 1..SIZE: both ends of the range are reached.
            assert!(agg[4] <= SIZE / 10 && agg[5] >= SIZE - SIZE / 10, "{what}: k spread: {agg:?}");
            let data = rows(&t, &format!("SELECT id, TRIM(c), TRIM(pad) FROM {table} ORDER BY id"));
            assert_eq!(data.len() as i64, SIZE);
            for r in &data {
                assert!(is_digit_groups(&r[1], 10) && r[1].len() == 119, "{what}: c of id {}: {:?}", r[0], r[1]);
                assert!(is_digit_groups(&r[2], 5) && r[2].len() == 59, "{what}: pad of id {}: {:?}", r[0], r[2]);
            }
            let distinct_c = data.iter().map(|r| r[1].as_str()).collect::<std::collections::HashSet<_>>().len();
            assert_eq!(distinct_c as i64, SIZE, "{what}: c values are random");
            assert_eq!(primary_key(&t, &table), vec!["id".to_string()], "{what}: primary key");
            let idx = secondary_indexes(&t, &table);
            assert_eq!(idx.len(), 1, "{what}: one secondary index: {idx:?}");
            assert_eq!(idx[0].1, "k", "{what}: secondary index on k: {idx:?}");
            assert!(idx[0].0.ends_with(&format!("k_{n}")), "{what}: secondary index named k_{n}: {idx:?}");
            if t.protocol == Protocol::Mysql {
                assert_eq!(idx[0].0, format!("k_{n}"), "{what}: sysbench's index name");
            }
        }
        cleanup(&t, &base, 2);

        // --create-secondary=off: no index on k.
        let base = format!("shapenok_{}_", t.tag);
        prepare(&t, &base, &["--table-size", "300", "--create-secondary=off"]);
        let table = format!("{base}1");
        assert_eq!(secondary_indexes(&t, &table), vec![], "{table} on {}: no secondary index", t.tag);
        assert_eq!(primary_key(&t, &table), vec!["id".to_string()]);
        assert_eq!(int(&rows(&t, &format!("SELECT COUNT(*) FROM {table}"))[0][0]), 300);
        cleanup(&t, &base, 1);

        // --rand-data 0: c and pad are BMK-kit's fixed pattern.
        let base = format!("shapefix_{}_", t.tag);
        prepare(&t, &base, &["--table-size", "300", "--rand-data", "0"]);
        let table = format!("{base}1");
        let vals = rows(&t, &format!("SELECT DISTINCT TRIM(c), TRIM(pad) FROM {table}"));
        let fixed_c = fixed_pattern(10);
        assert_eq!(vals, vec![vec![fixed_c.clone(), fixed_c[..59].to_string()]], "{table} on {}", t.tag);
        assert_eq!(fixed_c.len(), 119);
        assert_eq!(int(&rows(&t, &format!("SELECT COUNT(*) FROM {table}"))[0][0]), 300);
        cleanup(&t, &base, 1);
    }
}

// ---------------------------------------------------------------------------------------
// 3. Key distributions through the workload
// ---------------------------------------------------------------------------------------

const DIST_SIZE: usize = 1000;
const DIST_EVENTS: u64 = 3000;

/// Runs oltp_update_index (k=k+1 by id) with the given distribution options and returns how
/// many updates hit each id (index id-1), as read back from k.
fn update_hits(t: &Target, table: &str, dist: &[&str]) -> Vec<u64> {
    let size = DIST_SIZE.to_string();
    prepare(t, table, &["--table-size", &size]);
    let k = |t: &Target| -> Vec<i64> {
        let r = rows(t, &format!("SELECT id, k FROM {table}1 ORDER BY id"));
        assert_eq!(r.len(), DIST_SIZE);
        r.iter()
            .enumerate()
            .map(|(i, r)| {
                assert_eq!(int(&r[0]), i as i64 + 1);
                int(&r[1])
            })
            .collect()
    };
    let before = k(t);
    let mut args = vec!["--no-prepare", "--table-size", &size, "--events", "3000", "--time", "120", "--threads", "4", "--rand-seed", "20240611", "--report-interval", "0", "--output", "json"];
    if t.protocol == Protocol::Postgres {
        args.extend(["--session-options", "SET synchronous_commit = off"]);
    }
    args.extend(dist);
    let s = run_json(&mut fb(t, "run", "oltp_update_index", table, &args));
    assert_eq!(u(&s, &["transactions"]), DIST_EVENTS, "{s}");
    assert_eq!(rwo(&s), (0, DIST_EVENTS, 0), "{s}");
    let after = k(t);
    cleanup(t, table, 1);
    let hits: Vec<u64> = before
        .iter()
        .zip(&after)
        .map(|(b, a)| {
            assert!(a >= b, "k only grows");
            (a - b) as u64
        })
        .collect();
    assert_eq!(hits.iter().sum::<u64>(), DIST_EVENTS, "every update hit one row");
    hits
}

fn share(hits: &[u64], ids: std::ops::RangeInclusive<usize>) -> f64 {
    let total: u64 = hits.iter().sum();
    hits[ids.start() - 1..*ids.end()].iter().sum::<u64>() as f64 / total as f64
}

#[test]
fn key_distributions_pareto_and_uniform() {
    for t in one_per_engine("dist") {
        let hits = update_hits(&t, &format!("dpar_{}_", t.tag), &["--rand-type", "pareto", "--rand-pareto-h", "0.2"]);
        let low = share(&hits, 1..=DIST_SIZE / 5);
        assert!((0.77..=0.83).contains(&low), "pareto h=0.2 on {}: {low:.3} of updates hit the lowest 20% of ids", t.tag);
        // The hottest id is id 1.
        assert_eq!(hits.iter().max(), Some(&hits[0]), "pareto on {}: {:?}", t.tag, &hits[..10]);

        let hits = update_hits(&t, &format!("duni_{}_", t.tag), &["--rand-type", "uniform"]);
        let low = share(&hits, 1..=DIST_SIZE / 5);
        assert!((0.17..=0.23).contains(&low), "uniform on {}: {low:.3} of updates hit the lowest 20% of ids", t.tag);
        let mid = share(&hits, 401..=600);
        assert!((0.17..=0.23).contains(&mid), "uniform on {}: {mid:.3} in ids 401..600", t.tag);
        // 3 hits per id on average: no id is hot.
        assert!(*hits.iter().max().unwrap() <= 15, "uniform on {}: max hits {}", t.tag, hits.iter().max().unwrap());
    }
}

#[test]
fn key_distributions_zipfian_and_special() {
    let t = target("dist2", "lite");
    let hits = update_hits(&t, "dzipf_lite_", &["--rand-type", "zipfian", "--rand-zipfian-exp", "0.8"]);
    // P(k) = k^-0.8 / H(n, 0.8).
    let h: f64 = (1..=DIST_SIZE).map(|k| (k as f64).powf(-0.8)).sum();
    let p1 = hits[0] as f64 / DIST_EVENTS as f64;
    assert_eq!(hits.iter().max(), Some(&hits[0]), "zipfian: id 1 is the hottest: {:?}", &hits[..10]);
    assert!((p1 - 1.0 / h).abs() <= 0.25 / h, "zipfian: id 1 got {p1:.4} of the updates, expected {:.4}", 1.0 / h);
    let top10: f64 = (1..=10).map(|k| (k as f64).powf(-0.8)).sum::<f64>() / h;
    let got10 = share(&hits, 1..=10);
    assert!((got10 - top10).abs() <= 0.03, "zipfian: ids 1..10 got {got10:.3}, expected {top10:.3}");

    // sysbench 1.0's special: 75% of draws in the central 1% of the range (the rest are
    // gaussian around the centre as well).
    let hits = update_hits(&t, "dspec_lite_", &["--rand-type", "special"]);
    let centre = share(&hits, 490..=511);
    assert!(centre >= 0.75, "special: {centre:.3} of updates hit the central ids 490..511");
    assert!(share(&hits, 1..=100) < 0.01, "special: edges are cold");
}

// ---------------------------------------------------------------------------------------
// 4. Reconnects
// ---------------------------------------------------------------------------------------

/// A fairbench run in the background whose stdout is read line by line as it comes.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    stdout: Vec<String>,
    stderr: std::thread::JoinHandle<String>,
    what: String,
}

impl Running {
    fn start(mut cmd: impl BorrowMut<Command>, what: &str) -> Running {
        let cmd = cmd.borrow_mut();
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
        let (tx, lines) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        Running { child, lines, stdout: Vec::new(), stderr, what: what.to_string() }
    }

    /// Kills the run and fails the test.
    fn fail(mut self, why: &str) -> ! {
        let _ = self.child.kill();
        let _ = self.child.wait();
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(1)) {
            self.stdout.push(l);
        }
        let err = self.stderr.join().unwrap_or_default();
        panic!("{}: {why}\n--- stdout ---\n{}\n--- stderr ---\n{err}", self.what, self.stdout.join("\n"));
    }

    /// Blocks until the run has reported `n` intervals (so it is `n` report intervals in).
    fn wait_intervals(mut self, n: usize, limit: Duration) -> Running {
        let deadline = Instant::now() + limit;
        loop {
            let seen = self.stdout.iter().filter(|l| l.contains("\"type\":\"interval\"")).count();
            if seen >= n {
                return self;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => self.stdout.push(l),
                Err(_) => self.fail(&format!("no {n} intervals reported within {limit:?}")),
            }
        }
    }

    /// Waits for the end of the run: (exit status, stdout, stderr).
    fn finish(mut self, limit: Duration) -> (std::process::ExitStatus, String, String) {
        let deadline = Instant::now() + limit;
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(l) => self.stdout.push(l),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => self.fail(&format!("still running after {limit:?}")),
            }
        }
        let status = self.child.wait().expect("wait");
        let err = self.stderr.join().unwrap_or_default();
        (status, self.stdout.join("\n"), err)
    }
}

/// Kills every connection fairbench has to `database`; returns how many were killed.
fn kill_connections(protocol: Protocol, database: &str) -> usize {
    match protocol {
        Protocol::Mysql => {
            let kills = mysql_admin(&format!(
                "SELECT CONCAT('KILL ', id, ';') FROM information_schema.processlist \
                 WHERE user = 'fb' AND db = '{database}' AND id <> CONNECTION_ID()"
            ));
            let n = kills.lines().filter(|l| l.starts_with("KILL")).count();
            if n > 0 {
                mysql_admin(&kills);
            }
            n
        }
        Protocol::Postgres => pg_admin(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE application_name = 'fairbench' AND datname = '{database}'"
        ))
        .lines()
        .filter(|l| l.trim() == "t")
        .count(),
        Protocol::Sqlite => unreachable!(),
    }
}

fn killed_connections_reconnect(protocol: Protocol) {
    let (db, tag) = match protocol {
        Protocol::Mysql => ("recon_my", "my"),
        _ => ("recon_pg", "pg"),
    };
    match protocol {
        Protocol::Mysql => {
            mysql_admin(&format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"));
        }
        _ => {
            pg_admin(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
            pg_admin(&format!("CREATE DATABASE {db}"));
        }
    }
    let t = targets_in(&format!("recon-{tag}"), Some(db)).into_iter().find(|t| t.tag == tag).unwrap();
    prepare(&t, "recon_", &["--table-size", "1000"]);
    let run = Running::start(
        fb(
            &t,
            "run",
            "oltp_read_only",
            "recon_",
            &[
                "--no-prepare",
                "--table-size",
                "1000",
                "--threads",
                "4",
                // Long enough after the kill for 4 new connections even on a busy machine
                // (a debug build's SCRAM authentication alone costs the client ~0.1 s).
                "--time",
                "8",
                "--report-interval",
                "1",
                "--output",
                "json",
            ],
        ),
        "run with killed connections",
    );
    // Two seconds into the run.
    let run = run.wait_intervals(2, Duration::from_secs(60));
    let killed = kill_connections(protocol, db);
    let (status, text, err) = run.finish(Duration::from_secs(60));
    assert!(status.success(), "exit status {status}\n{text}\n{err}");
    // The 4 clients' connections (and any other connection fairbench holds) were killed.
    assert!(killed >= 4, "killed {killed} connections");
    let s = summary_of(&text);
    assert_eq!(s["status"], "completed", "{s}");
    let reconnects = u(&s, &["reconnects"]);
    // Each client reconnected once to go on.
    assert!(reconnects >= 4 && reconnects <= killed as u64, "reconnects after killing {killed} connections: {s}");
    // Events went on after the kill (at ~2 s): in the intervals from 3 s on.
    let after: u64 = json_objects(&text, "interval").iter().filter(|iv| f(iv, &["time_s"]) >= 3.99).map(|iv| u(iv, &["events"])).sum();
    assert!(after > 0, "events after the kill\n{text}");
    let total = u(&s, &["transactions"]);
    assert!(total > after, "{s}");
    let (r, _, o) = rwo(&s);
    assert!(r >= 14 * total && o >= 2 * total, "{s}");
    match protocol {
        Protocol::Mysql => mysql_admin(&format!("DROP DATABASE IF EXISTS {db}")),
        _ => pg_admin(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")),
    };
}

#[test]
fn killed_connections_reconnect_mysql() {
    killed_connections_reconnect(Protocol::Mysql);
}

#[test]
fn killed_connections_reconnect_pg() {
    killed_connections_reconnect(Protocol::Postgres);
}

#[test]
fn reconnect_option_reconnects_every_n_events() {
    for t in one_per_engine("reconnect-n") {
        let table = format!("recn_{}_", t.tag);
        cleanup(&t, &table, 1);
        // A PostgreSQL (scram-sha-256) connection costs the client far more CPU than the
        // others: fewer events there.
        let events: u64 = if t.protocol == Protocol::Postgres { 10 } else { 100 };
        for (every, threads) in [(1u64, 1u32), (5, 2)] {
            let s = run_json(fb(
                &t,
                "run",
                "oltp_point_select",
                &table,
                &[
                    "--table-size",
                    "500",
                    "--events",
                    &events.to_string(),
                    "--time",
                    "300",
                    "--threads",
                    &threads.to_string(),
                    "--reconnect",
                    &every.to_string(),
                    "--report-interval",
                    "0",
                    "--output",
                    "json",
                ],
            ));
            let what = format!("--reconnect {every} on {}", t.tag);
            assert_eq!(u(&s, &["transactions"]), events, "{what}: {s}");
            // Every client reconnects after each `every` of its own events.
            assert_eq!(u(&s, &["reconnects"]), events / every, "{what}: {s}");
            assert_eq!(rwo(&s), (events, 0, 0), "{what}: statements are prepared again after reconnecting: {s}");
            assert_eq!(u(&s, &["ignored_errors"]), 0, "{what}: {s}");
        }
        cleanup(&t, &table, 1);
    }
}

// ---------------------------------------------------------------------------------------
// 5. Open loop (--rate): coordinated omission
// ---------------------------------------------------------------------------------------

#[test]
fn rate_mode_corrects_for_coordinated_omission() {
    let t = target("rate", "my");
    let table = "rate_my_";
    prepare(&t, table, &["--table-size", "1000"]);
    let args = ["--no-prepare", "--table-size", "1000", "--rate", "200", "--threads", "1", "--time", "3", "--report-interval", "1", "--output", "json"];

    // Not slowed: about rate x time events (Poisson arrivals), none dropped. (How far the
    // corrected latency exceeds the uncorrected one here depends on how busy the machine
    // is, so only its direction is checked.)
    let s = run_json(&mut fb(&t, "run", "oltp_point_select", table, &args));
    let events = u(&s, &["transactions"]);
    assert!((510..=690).contains(&events), "200/s for 3 s: {events} events\n{s}");
    assert_eq!(u(&s, &["dropped"]), 0, "{s}");
    assert!(f(&s, &["rate"]) == 200.0, "{s}");
    assert!(s["latency_uncorrected_ms"].is_object(), "{s}");
    for p in ["p50", "p99", "max"] {
        assert!(f(&s, &["latency_ms", p]) >= f(&s, &["latency_uncorrected_ms", p]), "{p}: measured from the intended start, latency can only be longer\n{s}");
    }

    // The table is locked for 1 s in the middle: arrivals queue up behind the blocked event.
    let run = Running::start(fb(&t, "run", "oltp_point_select", table, &args), "rate run");
    // One second into the run, for one second.
    let run = run.wait_intervals(1, Duration::from_secs(60));
    mysql_admin_db(&t.database, "LOCK TABLES rate_my_1 WRITE; DO SLEEP(1); UNLOCK TABLES;");
    let (status, text, err) = run.finish(Duration::from_secs(60));
    assert!(status.success(), "{text}\n{err}");
    let s = summary_of(&text);
    let corrected = f(&s, &["latency_ms", "p99"]);
    let raw = f(&s, &["latency_uncorrected_ms", "p99"]);
    assert!(corrected >= 5.0 * raw, "corrected p99 {corrected} ms vs uncorrected p99 {raw} ms\n{s}");
    assert!(corrected >= 500.0, "events that arrived during the 1 s stall waited for it: p99 {corrected} ms\n{s}");
    assert!(f(&s, &["latency_ms", "max"]) >= 800.0, "{s}");
    // The one event caught by the lock waited for it from its actual start as well.
    assert!(f(&s, &["latency_uncorrected_ms", "max"]) >= 800.0, "{s}");
    // Events went on after the stall (a busy machine may leave part of the queue unserved).
    let events = u(&s, &["transactions"]);
    assert!(events > 200, "{events} events\n{s}");
    cleanup(&t, table, 1);
}

// ---------------------------------------------------------------------------------------
// 6. Errors
// ---------------------------------------------------------------------------------------

#[test]
fn serialization_failures_restart_the_event() {
    let t = target("errors-ser", "pg");
    let table = "ser_pg_";
    prepare(&t, table, &["--table-size", "100"]);
    let s = run_json(fb(
        &t,
        "run",
        "oltp_read_write",
        table,
        &[
            "--no-prepare",
            "--session-options",
            "SET default_transaction_isolation = 'serializable'",
            "--table-size",
            "100",
            "--threads",
            "8",
            "--time",
            "2",
            "--report-interval",
            "0",
            "--output",
            "json",
        ],
    ));
    let errors = u(&s, &["ignored_errors"]);
    assert!(errors > 0, "8 serializable clients on 100 rows conflict: {s}");
    assert!(u(&s, &["errors_by_code", "40001"]) > 0, "{s}");
    let by_code: u64 = s["errors_by_code"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(by_code, errors, "{s}");
    assert!(u(&s, &["transactions"]) > 0, "{s}");
    cleanup(&t, table, 1);
}

#[test]
fn concurrent_delete_insert_of_one_id_is_retried() {
    // Two clients deleting and re-inserting the same id: in PostgreSQL the second one's
    // INSERT hits the first one's new row (unique violation, 23505), which sysbench treats as
    // a retryable error. Neither engine may stop the run for it.
    for t in one_per_engine("errors-dup") {
        let table = format!("dup_{}_", t.tag);
        prepare(&t, &table, &["--table-size", "100"]);
        let s = run_json(fb(&t, "run", "oltp_write_only", &table, &["--no-prepare", "--table-size", "100", "--threads", "8", "--time", "2", "--report-interval", "0", "--output", "json"]));
        assert!(u(&s, &["transactions"]) > 0, "{}: {s}", t.tag);
        let count = int(&rows(&t, &format!("SELECT COUNT(*) FROM {table}1"))[0][0]);
        assert_eq!(count, 100, "{}: delete+insert keeps the row count", t.tag);
        cleanup(&t, &table, 1);
    }
}

#[test]
fn fatal_error_stops_the_run_with_exit_4() {
    for t in one_per_engine("errors-fatal") {
        let table = format!("fatal_{}_", t.tag);
        prepare(&t, &table, &["--table-size", "100"]);
        let mut cmd = fb(
            &t,
            "run",
            "oltp_point_select",
            &table,
            &["--no-prepare", "--table-size", "100", "--threads", "2", "--time", "60", "--output", "json", "--extra-query-after", "SELECT * FROM no_such_table"],
        );
        let t0 = Instant::now();
        let out = run_fail(&mut cmd);
        let what = format!("fatal error on {}", t.tag);
        assert_eq!(out.status.code(), Some(4), "{what}\n{}\n{}", stdout(&out), stderr(&out));
        assert!(t0.elapsed() < Duration::from_secs(30), "{what}: the run stopped at once, not after --time");
        let err = stderr(&out);
        let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{what}: one line on stderr:\n{err}");
        assert!(lines[0].contains("no_such_table"), "{what}: the server's message: {err}");
        assert!(lines[0].contains("SELECT * FROM no_such_table"), "{what}: the statement: {err}");
        let s = summary_of(&stdout(&out));
        assert_eq!(s["status"], "failed", "{s}");
        assert!(s["error"].as_str().unwrap_or("").contains("no_such_table"), "{s}");
        cleanup(&t, &table, 1);
    }
}
