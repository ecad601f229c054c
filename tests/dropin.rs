//! Drop-in command lines: every option line of sysbench 1.0.20's `--help`
//! and every option BMK-kit's guide shows (seed 004) is accepted on a real
//! server, and the ones whose effect can be seen from outside have it: the
//! statements the server receives (its general log), the run's own output,
//! the tables prepare creates.

mod common;

use common::*;
use std::process::Output;

/// One small table set the option lines run against (shared by the tests of this file).
const TABLE: &str = "dropin";

fn prepared() {
    run_ok(fairbench().args(["prepare", "--target", &mysql_url(), "--table-name", TABLE, "--table-size", "1000", "--tables", "1"]));
}

/// A short oltp_point_select run on MariaDB with `extra` options, which
/// replace the run's own settings of the same name.
fn mysql_run(extra: &[&str]) -> Output {
    let mut c = fairbench();
    c.args(["run", "oltp_point_select", "--target", &mysql_url(), "--table-name", TABLE, "--table-size", "1000", "--no-save"]);
    for (name, value) in [("--events", "20"), ("--time", "0"), ("--report-interval", "0")] {
        if !extra.iter().any(|e| e.starts_with(name)) {
            c.args([name, value]);
        }
    }
    c.args(extra);
    run_ok(&mut c)
}

/// Every line of sysbench 1.0.20's `--help` (general, random numbers, log,
/// database and mysql options; pgsql ones in the next test), as a user
/// pastes it, with what the run must show for it (stdout or stderr).
#[test]
fn every_sysbench_help_option_line_is_accepted() {
    prepared();
    let cfg = scratch_dir("dropin_cfg").join("sysbench.cfg");
    std::fs::write(&cfg, "# a sysbench config file\nthreads=2\npercentile = 99 # trailing comment\n").unwrap();
    let cfg_opt = format!("--config-file={}", cfg.display());
    let host = parse_url(&mysql_url()).host;
    let port = mysql_port().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--threads=2"], "Number of threads: 2"),
        (vec!["--events=20"], "total number of events:              20"),
        (vec!["--time=1", "--events=0"], "time elapsed:                        1.0"),
        (vec!["--forced-shutdown=off"], "SQL statistics:"),
        (vec!["--forced-shutdown=5"], "SQL statistics:"),
        (vec!["--forced-shutdown=10%"], "SQL statistics:"),
        (vec!["--thread-stack-size=64K"], "--thread-stack-size"),
        (vec!["--rate=200"], "Open loop at 200.00 events/s"),
        (vec!["--report-interval=1"], "SQL statistics:"),
        (vec!["--report-checkpoints=10,20"], "SQL statistics:"),
        (vec!["--debug=off"], "SQL statistics:"),
        (vec!["--debug"], "SQL statistics:"),
        (vec!["--validate=on"], "SQL statistics:"),
        (vec![&cfg_opt], "Number of threads: 2"),
        (vec!["--tx-rate=200"], "WARNING: --tx-rate is deprecated, use --rate instead"),
        (vec!["--max-requests=15"], "WARNING: --max-requests is deprecated, use --events instead"),
        (vec!["--max-time=1", "--events=0"], "WARNING: --max-time is deprecated, use --time instead"),
        (vec!["--num-threads=2"], "WARNING: --num-threads is deprecated, use --threads instead"),
        (vec!["--rand-type=uniform"], "SQL statistics:"),
        (vec!["--rand-type=gaussian"], "SQL statistics:"),
        (vec!["--rand-type=special"], "SQL statistics:"),
        (vec!["--rand-type=pareto"], "SQL statistics:"),
        (vec!["--rand-spec-iter=10"], "SQL statistics:"),
        (vec!["--rand-spec-pct=2"], "SQL statistics:"),
        (vec!["--rand-spec-res=80"], "SQL statistics:"),
        (vec!["--rand-seed=7"], "SQL statistics:"),
        (vec!["--rand-pareto-h=0.3"], "SQL statistics:"),
        (vec!["--verbosity=4"], "SQL statistics:"),
        (vec!["--percentile=99"], "99th percentile:"),
        (vec!["--histogram=off"], "SQL statistics:"),
        (vec!["--histogram"], "Latency histogram (values are in milliseconds)"),
        (vec!["--histogram=on"], "       value  ------------- distribution ------------- count"),
        (vec!["--db-driver=mysql"], "SQL statistics:"),
        (vec!["--db-ps-mode=disable"], "SQL statistics:"),
        (vec!["--db-debug=on"], "--db-debug"),
        (vec!["--mysql-host", &host, "--mysql-port", &port], "SQL statistics:"),
        (vec!["--mysql-ssl=off"], "SQL statistics:"),
        (vec!["--mysql-ssl-cipher=AES256-SHA"], "--mysql-ssl-cipher"),
        (vec!["--mysql-compression=off"], "SQL statistics:"),
        (vec!["--mysql-debug=off"], "--mysql-debug"),
        (vec!["--mysql-ignore-errors=all"], "SQL statistics:"),
        (vec!["--mysql-ignore-errors=1213,1020,1205"], "SQL statistics:"),
        (vec!["--mysql-dry-run=off"], "SQL statistics:"),
        // sysbench 1.1's additions.
        (vec!["--warmup-time=0"], "SQL statistics:"),
        (vec!["--luajit-cmd=off"], "--luajit-cmd"),
        (vec!["--rand-type=zipfian", "--rand-zipfian-exp=0.9"], "SQL statistics:"),
    ];
    let mut failed = Vec::new();
    for (opts, shows) in &cases {
        let out = mysql_run(opts);
        let text = format!("{}{}", stdout(&out), stderr(&out));
        if !text.contains(shows) {
            failed.push(format!("{opts:?}: expected {shows:?} in\n{text}"));
        }
    }
    assert!(failed.is_empty(), "{} of {} option lines did not show their effect:\n{}", failed.len(), cases.len(), failed.join("\n\n"));
    // The deprecated forms act as their replacements.
    let out = mysql_run(&["--max-requests=15"]);
    assert!(stdout(&out).contains("total number of events:              15"), "{}", show(&out));
    // sysbench's old --test=NAME names the workload.
    let out = run_ok(fairbench().args(["--test=oltp_point_select", "--target", &mysql_url(), "--table-name", TABLE, "--table-size", "1000", "--events", "5", "--time", "0", "--no-save", "run"]));
    assert!(stderr(&out).contains("WARNING: the --test option is deprecated"), "{}", show(&out));
    assert!(stdout(&out).contains("Label: oltp_point_select-1Kx1tab-special-ps"), "{}", show(&out));
}

/// sysbench's pgsql option lines, on PostgreSQL.
#[test]
fn sysbench_pgsql_option_lines_are_accepted() {
    let u = parse_url(&pg_url());
    let port = pg_port().to_string();
    let base = ["--db-driver=pgsql", "--pgsql-host", &u.host, "--pgsql-port", &port, "--pgsql-user", &u.user, "--pgsql-password", &u.password, "--pgsql-db", &u.database];
    run_ok(fairbench().args(["prepare", "--table-name", TABLE, "--table-size", "1000"]).args(base));
    for extra in [&[][..], &["--pgsql-sslmode=prefer"][..], &["--db-ps-mode=disable"][..]] {
        let out = run_ok(fairbench().args(["run", "oltp_point_select", "--table-name", TABLE, "--table-size", "1000", "--events", "20", "--time", "0", "--no-save"]).args(base).args(extra));
        assert!(stdout(&out).contains("total number of events:              20"), "{extra:?}: {}", show(&out));
        assert!(stdout(&out).contains("Label: oltp_point_select-1Kx1tab-special"), "{extra:?}: {}", show(&out));
    }
}

/// sysbench options whose meaning fairbench cannot give are refused with
/// one line that says what to do, never silently ignored.
#[test]
fn sysbench_options_fairbench_cannot_honour_are_refused_in_one_line() {
    for (opt, mentions) in [
        ("--mysql-compression=on", "--mysql-compression"),
        ("--mysql-dry-run=on", "--mysql-dry-run"),
        ("--mysql-ssl-cert=/tmp/cert.pem", "--mysql-ssl-cert"),
        ("--forced-shutdown=soon", "--forced-shutdown"),
        ("--verbosity=6", "--verbosity"),
        ("--rnd-loop=4", "--rand-loop"),
        ("--for-update=maybe", "--for-update"),
    ] {
        let out = run_fail(fairbench().args(["run", "--target", &mysql_url(), "--table-name", TABLE, "--events", "5", "--time", "0", "--no-save", opt]));
        assert_eq!(out.status.code(), Some(2), "{opt}: {}", show(&out));
        assert_one_line_error(&out, &[mentions]);
    }
}

/// The statements MariaDB receives with BMK-kit's query options: the hint
/// as an optimizer hint comment, FOR UPDATE, the select list, and the ids
/// each client draws with --rnd-loop=1 (a chunk of the table each).
#[test]
fn bmk_query_options_reach_the_server_as_bmk_sends_them() {
    let table = "dropinlog";
    run_ok(fairbench().args(["prepare", "--target", &mysql_url(), "--table-name", table, "--table-size", "1000"]));
    mysql_admin("SET GLOBAL log_output='TABLE'; TRUNCATE mysql.general_log; SET GLOBAL general_log=1");
    let logged = |opts: &[&str]| -> Vec<(String, String)> {
        mysql_admin("TRUNCATE mysql.general_log");
        let mut c = fairbench();
        c.args(["run", "oltp_read_write", "--target", &mysql_url(), "--table-name", table, "--table-size", "1000", "--time", "0", "--no-save"]).args(opts);
        if !opts.iter().any(|o| o.starts_with("--events")) {
            c.args(["--events", "20"]);
        }
        run_ok(&mut c);
        let rows = mysql_admin(&format!(
            "SELECT thread_id, REPLACE(CONVERT(argument USING utf8mb4), '\\n', ' ') FROM mysql.general_log WHERE argument LIKE '%{table}1%' AND command_type IN ('Query', 'Execute')"
        ));
        rows.lines().filter_map(|l| l.split_once('\t')).map(|(a, b)| (a.to_string(), b.to_string())).collect()
    };
    let result = std::panic::catch_unwind(|| {
        let hint = logged(&["--mysql-query-hint=MAX_EXECUTION_TIME(100)", "--db-ps-mode=disable"]);
        assert!(hint.iter().any(|(_, q)| q.starts_with("SELECT /*+ MAX_EXECUTION_TIME(100) */ c FROM dropinlog1 WHERE id=")), "{hint:#?}");
        assert!(hint.iter().any(|(_, q)| q.starts_with("UPDATE /*+ MAX_EXECUTION_TIME(100) */ dropinlog1 SET k=k+1")), "{hint:#?}");

        let fu = logged(&["--for-update=on", "--select-star=JSON_OBJECT(id,k,c,pad)"]);
        assert!(fu.iter().any(|(_, q)| q.starts_with("SELECT JSON_OBJECT(id,k,c,pad) FROM dropinlog1 WHERE id=") && q.ends_with(" FOR UPDATE")), "{fu:#?}");
        let plain = logged(&[]);
        assert!(plain.iter().all(|(_, q)| !q.contains("FOR UPDATE")), "FOR UPDATE without --for-update: {plain:#?}");
        assert!(plain.iter().any(|(_, q)| q.starts_with("SELECT c FROM dropinlog1 WHERE id=")), "{plain:#?}");

        // --rnd-loop=1 with 2 clients on one 1000-row table: each client's
        // point selects stay in its own half.
        let chunks = logged(&["--rnd-loop=1", "--threads=2", "--rand-type=uniform", "--events=40"]);
        let mut by_client: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
        for (t, q) in &chunks {
            if let Some(id) = q.strip_prefix("SELECT c FROM dropinlog1 WHERE id=") {
                by_client.entry(t.clone()).or_default().push(id.trim().parse().unwrap());
            }
        }
        assert_eq!(by_client.len(), 2, "{chunks:#?}");
        let halves: Vec<bool> = by_client.values().map(|ids| ids.iter().all(|&i| i <= 500)).collect();
        for ids in by_client.values() {
            let low = ids.iter().all(|&i| i <= 500);
            let high = ids.iter().all(|&i| i > 500);
            assert!(low || high, "a client's ids span both halves: {ids:?}");
        }
        assert_ne!(halves[0], halves[1], "both clients in the same half: {by_client:?}");

        // BMK-kit's load modes: parallel builds the secondary index before
        // the rows go in, original (sysbench's) after them.
        for (mode, index_first) in [("parallel", true), ("parallel_ordered", true), ("original", false), ("auto", false)] {
            let t = format!("dl{}", mode.replace('_', ""));
            mysql_admin("TRUNCATE mysql.general_log");
            run_ok(fairbench().args(["prepare", "--target", &mysql_url(), "--table-name", &t, "--table-size", "1000", &format!("--load-mode={mode}")]));
            let log = mysql_admin(&format!("SELECT REPLACE(CONVERT(argument USING utf8mb4), '\\n', ' ') FROM mysql.general_log WHERE argument LIKE '%{t}1%' ORDER BY event_time"));
            run_ok(fairbench().args(["cleanup", "--target", &mysql_url(), "--table-name", &t]));
            let at = |what: &str| log.lines().position(|l| l.to_ascii_uppercase().starts_with(what)).unwrap_or_else(|| panic!("{mode}: no {what} in {log}"));
            let rows = log.lines().position(|l| l.starts_with("INSERT") || l.starts_with("LOAD DATA")).unwrap_or_else(|| panic!("{mode}: no rows loaded in {log}"));
            assert_eq!(at("CREATE INDEX") < rows, index_first, "--load-mode={mode}:\n{log}");
        }
    });
    mysql_admin("SET GLOBAL general_log=0; TRUNCATE mysql.general_log");
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

/// BMK-kit's TPC-C --use-fk levels: 1 foreign keys, 0 none, 2 none and not their indexes.
#[test]
fn bmk_use_fk_levels_shape_the_tpcc_schema() {
    let count = |sql: &str| mysql_admin(sql).trim().parse::<u64>().unwrap();
    let db = parse_url(&mysql_url()).database;
    let mut indexes = Vec::new();
    for level in ["1", "0", "2"] {
        let prefix = format!("dfk{level}_");
        run_ok(fairbench().args(["cleanup", "tpcc", "--target", &mysql_url(), "--tpcc-prefix", &prefix]));
        run_ok(fairbench().args(["prepare", "tpcc", "--target", &mysql_url(), "--tpcc-prefix", &prefix, "--schema-only", &format!("--use-fk={level}")]));
        let fks = count(&format!("SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA='{db}' AND TABLE_NAME LIKE '{prefix}%'"));
        assert_eq!(fks > 0, level == "1", "--use-fk={level}: {fks} foreign keys");
        indexes.push(count(&format!("SELECT COUNT(DISTINCT TABLE_NAME, INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME LIKE '{prefix}%'")));
        run_ok(fairbench().args(["cleanup", "tpcc", "--target", &mysql_url(), "--tpcc-prefix", &prefix]));
    }
    assert!(indexes[1] >= indexes[0] - 1 && indexes[2] < indexes[1], "indexes at --use-fk 1, 0, 2: {indexes:?}");
}

/// A script's label does not name the distribution its keys come from, so
/// its summary does, and its stored options keep it (two runs of one script
/// with other distributions are told apart).
#[test]
fn a_script_run_names_its_key_distribution() {
    let dir = scratch_dir("dropin_script_dist");
    let target = format!("sqlite:{}", dir.join("fb.sqlite").display());
    let script = "/usr/share/sysbench/oltp_point_select.lua";
    run_ok(fairbench().args([script, "--target", &target, "--table-size=500", "prepare"]));
    for (given, shown) in [(None, "special"), (Some("--rand-type=pareto"), "pareto")] {
        let mut c = fairbench();
        c.args([script, "--target", &target, "--table-size=500", "--events=20", "--time=0", "--no-save"]).args(given).arg("run");
        let out = run_ok(&mut c);
        assert!(stdout(&out).contains(&format!("Keys drawn with the {shown} distribution (--rand-type)")), "{given:?}: {}", show(&out));
        let mut c = fairbench();
        c.args([script, "--target", &target, "--table-size=500", "--events=20", "--time=0", "--no-save", "--output=json"]).args(given).arg("run");
        let json = stdout(&run_ok(&mut c));
        let summary: serde_json::Value = serde_json::from_str(json.lines().rev().find(|l| l.contains("\"summary\"")).unwrap()).unwrap();
        assert_eq!(summary["options"]["rand-type"], shown, "{given:?}: {summary}");
    }
}

/// The guide's `--mysql-table-compression=lz4` on MariaDB, which has no
/// per-table COMPRESSION: one line saying what to use instead, exit 2,
/// rather than the server's refusal; its page compression works.
#[test]
fn mysql_table_compression_on_mariadb_says_what_to_use() {
    let base = ["--target", &mysql_url(), "--table-name", "dropinz", "--table-size", "100"];
    run_ok(fairbench().arg("cleanup").args(base));
    let out = run_fail(fairbench().arg("prepare").args(base).args(["--rnd-data=50", "--mysql_table_compression=lz4"]));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["--mysql-table-compression=lz4", "--mysql-table-compression=page", "innodb_compression_algorithm"]);
    run_ok(fairbench().arg("cleanup").args(base));
    run_ok(fairbench().arg("prepare").args(base).args(["--rnd-data=50", "--mysql-table-compression=page"]));
    let opts = mysql_admin(&format!("SELECT CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_SCHEMA='{}' AND TABLE_NAME='dropinz1'", parse_url(&mysql_url()).database));
    assert!(opts.to_ascii_lowercase().contains("page_compressed`='1'"), "{opts}");
    run_ok(fairbench().arg("cleanup").args(base));
}
