//! fairbench and sysbench 1.0.20 on each other's tables, on MariaDB and on PostgreSQL:
//! fairbench runs on tables `sysbench prepare` made, and sysbench runs on tables
//! `fairbench prepare` made, both with sysbench's per-event query counts.
//!
//! sysbench only knows the table name base `sbtest`, so each test works in a database of
//! its own (`interop_my`, `interop_pg`), dropped and created afresh at its start.

mod common;

use common::*;
use serde_json::Value;
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    Mysql,
    Postgres,
}

const TABLES: u32 = 2;
const SIZE: u32 = 2000;

fn database(e: Protocol) -> &'static str {
    match e {
        Protocol::Mysql => "interop_my",
        Protocol::Postgres => "interop_pg",
    }
}

fn recreate_database(e: Protocol) {
    let db = database(e);
    match e {
        Protocol::Mysql => {
            mysql_admin(&format!("DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}"));
        }
        Protocol::Postgres => {
            pg_admin(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
            pg_admin(&format!("CREATE DATABASE {db}"));
        }
    }
}

fn drop_database(e: Protocol) {
    let db = database(e);
    match e {
        Protocol::Mysql => mysql_admin(&format!("DROP DATABASE IF EXISTS {db}")),
        Protocol::Postgres => pg_admin(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")),
    };
}

/// fairbench's `--target` for the interop database.
fn target_url(e: Protocol) -> String {
    let (u, port) = match e {
        Protocol::Mysql => (parse_url(&mysql_url()), mysql_port()),
        Protocol::Postgres => (parse_url(&pg_url()), pg_port()),
    };
    let scheme = if e == Protocol::Mysql { "mysql" } else { "postgres" };
    format!("{scheme}://{}:{}@{}:{port}/{}", u.user, u.password, u.host, database(e))
}

/// `sysbench TEST --db-driver=... connection options --tables --table-size [ARGS] COMMAND`
fn sysbench(e: Protocol, test: &str, args: &[&str], command: &str) -> Command {
    let mut c = Command::new("sysbench");
    c.arg(test);
    match e {
        Protocol::Mysql => {
            let u = parse_url(&mysql_url());
            c.arg("--db-driver=mysql")
                .arg(format!("--mysql-host={}", u.host))
                .arg(format!("--mysql-port={}", mysql_port()))
                .arg(format!("--mysql-user={}", u.user))
                .arg(format!("--mysql-password={}", u.password))
                .arg(format!("--mysql-db={}", database(e)));
        }
        Protocol::Postgres => {
            let u = parse_url(&pg_url());
            c.arg("--db-driver=pgsql")
                .arg(format!("--pgsql-host={}", u.host))
                .arg(format!("--pgsql-port={}", pg_port()))
                .arg(format!("--pgsql-user={}", u.user))
                .arg(format!("--pgsql-password={}", u.password))
                .arg(format!("--pgsql-db={}", database(e)));
        }
    }
    c.arg(format!("--tables={TABLES}")).arg(format!("--table-size={SIZE}")).args(args).arg(command);
    c
}

/// `fairbench COMMAND WORKLOAD --target URL --tables --table-size [ARGS]`
fn fairbench_cmd(e: Protocol, command: &str, workload: &str, args: &[&str]) -> Command {
    // Its own working directory, where the run's results store goes.
    let dir = tmp_dir().join("scratch").join(database(e));
    std::fs::create_dir_all(&dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
    let mut c = fairbench();
    c.current_dir(&dir).arg(command).arg(workload).arg("--target").arg(target_url(e)).arg("--tables").arg(TABLES.to_string()).arg("--table-size").arg(SIZE.to_string()).args(args);
    c
}

/// Runs SQL in the interop database; rows of columns.
fn rows(e: Protocol, sql: &str) -> Vec<Vec<String>> {
    let (out, sep) = match e {
        Protocol::Mysql => (mysql_admin_db(database(e), sql), '\t'),
        Protocol::Postgres => (pg_admin_db(database(e), sql), '|'),
    };
    out.lines().map(|l| l.split(sep).map(String::from).collect()).collect()
}

fn count(e: Protocol, table: &str) -> i64 {
    rows(e, &format!("SELECT COUNT(*) FROM {table}"))[0][0].trim().parse().unwrap()
}

/// Tables of the interop database.
fn tables(e: Protocol) -> Vec<String> {
    let sql = match e {
        Protocol::Mysql => "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1",
        Protocol::Postgres => "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
    };
    rows(e, sql).into_iter().map(|r| r[0].clone()).collect()
}

fn sbtest_tables() -> Vec<String> {
    (1..=TABLES).map(|i| format!("sbtest{i}")).collect()
}

/// The summary object of a `--output json` run.
fn summary(out: &str) -> Value {
    let s: Vec<Value> =
        out.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|err| panic!("bad JSON {l:?}: {err}"))).filter(|v| v["type"] == "summary").collect();
    assert_eq!(s.len(), 1, "one summary in:\n{out}");
    s.into_iter().next().unwrap()
}

fn n(v: &Value, a: &str, b: Option<&str>) -> u64 {
    let x = match b {
        Some(b) => &v[a][b],
        None => &v[a],
    };
    x.as_u64().unwrap_or_else(|| panic!("{a}.{b:?} in {v}"))
}

/// A number from sysbench's report: the first number after `label` on its line.
fn sysbench_figure(report: &str, label: &str) -> u64 {
    let line = report.lines().find(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| panic!("no {label:?} line in sysbench's report:\n{report}"));
    line.trim_start()[label.len()..].split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("cannot read {label:?} from {line:?}"))
}

/// fairbench runs on tables that sysbench prepared.
fn fairbench_on_sysbench_tables(e: Protocol) {
    run_ok(&mut sysbench(e, "oltp_read_write", &[], "prepare"));
    assert_eq!(tables(e), sbtest_tables(), "sysbench prepared");
    for t in sbtest_tables() {
        assert_eq!(count(e, &t), SIZE as i64);
    }

    let out = run_ok(&mut fairbench_cmd(e, "run", "oltp_read_write", &["--no-prepare", "--time", "2", "--threads", "1", "--report-interval", "0", "--output", "json"]));
    let s = summary(&stdout(&out));
    let ev = n(&s, "transactions", None);
    assert_eq!(s["status"], "completed", "{s}");
    assert!(ev > 0, "{s}");
    assert_eq!(n(&s, "ignored_errors", None), 0, "{s}");
    assert_eq!(
        (n(&s, "queries", Some("read")), n(&s, "queries", Some("write")), n(&s, "queries", Some("other"))),
        (14 * ev, 4 * ev, 2 * ev),
        "per-event counts of oltp_read_write on sysbench's tables: {s}"
    );

    // Without --no-prepare fairbench takes sysbench's tables as prepared and leaves them be.
    let marker = "interop-marker";
    for t in sbtest_tables() {
        rows(e, &format!("UPDATE {t} SET pad = '{marker}' WHERE id = 1"));
    }
    let out = run_ok(&mut fairbench_cmd(e, "run", "oltp_read_only", &["--events", "50", "--threads", "2", "--report-interval", "0", "--output", "json"]));
    let s = summary(&stdout(&out));
    assert_eq!(n(&s, "transactions", None), 50, "{s}");
    assert_eq!((n(&s, "queries", Some("read")), n(&s, "queries", Some("write")), n(&s, "queries", Some("other"))), (14 * 50, 0, 2 * 50), "{s}");
    for t in sbtest_tables() {
        let pad = &rows(e, &format!("SELECT TRIM(pad) FROM {t} WHERE id = 1"))[0][0];
        assert_eq!(pad, marker, "{t} was not prepared again");
    }

    run_ok(&mut sysbench(e, "oltp_read_write", &[], "cleanup"));
    assert_eq!(tables(e), Vec::<String>::new(), "sysbench cleanup dropped the tables");
}

/// sysbench runs on tables that fairbench prepared.
fn sysbench_on_fairbench_tables(e: Protocol) {
    run_ok(&mut fairbench_cmd(e, "prepare", "oltp_read_write", &["--threads", "2"]));
    assert_eq!(tables(e), sbtest_tables(), "fairbench prepared");
    for t in sbtest_tables() {
        assert_eq!(count(e, &t), SIZE as i64);
    }

    let out = run_ok(&mut sysbench(e, "oltp_read_write", &["--time=2", "--threads=1"], "run"));
    let report = stdout(&out);
    let trx = sysbench_figure(&report, "transactions:");
    assert!(trx > 0, "sysbench ran no transactions:\n{report}");
    assert_eq!(sysbench_figure(&report, "ignored errors:"), 0, "{report}");
    assert_eq!(sysbench_figure(&report, "reconnects:"), 0, "{report}");
    assert_eq!(
        (sysbench_figure(&report, "read:"), sysbench_figure(&report, "write:"), sysbench_figure(&report, "other:")),
        (14 * trx, 4 * trx, 2 * trx),
        "sysbench's per-event counts on fairbench's tables:\n{report}"
    );
    // sysbench's RW deletes and re-inserts rows: the tables keep their size.
    for t in sbtest_tables() {
        assert_eq!(count(e, &t), SIZE as i64, "{t} after sysbench's run");
    }

    run_ok(&mut fairbench_cmd(e, "cleanup", "oltp_read_write", &[]));
    assert_eq!(tables(e), Vec::<String>::new(), "fairbench cleanup dropped the tables");
}

fn interop(e: Protocol) {
    recreate_database(e);
    fairbench_on_sysbench_tables(e);
    sysbench_on_fairbench_tables(e);
    drop_database(e);
}

#[test]
fn interop_mysql() {
    interop(Protocol::Mysql);
}

#[test]
fn interop_pg() {
    interop(Protocol::Postgres);
}
