//! `fairbench pgbench ARGS`: pgbench's command lines as typed, run by fairbench and by Debian's
//! pgbench 15 on the same database, one after the other. The report pgbench prints and the one
//! fairbench prints after its summary must agree line for line once their figures are blanked,
//! and their figures must agree with fairbench's own summary and with the transaction logs,
//! which one script (bench/pgbench_logs.py) reads for both tools. Serialization failures are
//! retried and counted as pgbench counts them.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// A database for each test: pgbench's table names are fixed, and other tests use them.
const REPORTS: &str = "fbpgbench_reports";
const TRIES: &str = "fbpgbench_tries";

/// Two clients updating one row at REPEATABLE READ: serialization failures for certain.
const CONFLICT: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT abalance FROM pgbench_accounts WHERE aid = 1;\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;\nEND;\n";

fn with_env(mut c: Command) -> Command {
    let u = parse_url(&pg_url());
    c.env("PGHOST", "127.0.0.1").env("PGPORT", pg_port().to_string()).env("PGUSER", &u.user).env("PGPASSWORD", &u.password).env_remove("PGDATABASE");
    c
}

fn ours(db: &str, args: &[&str]) -> Output {
    let mut c = with_env(fairbench());
    run_ok(c.arg("pgbench").args(args).arg(db).arg("--no-save"))
}

fn theirs(db: &str, args: &[&str]) -> Output {
    let mut c = with_env(Command::new("pgbench"));
    run_ok(c.args(args).arg(db))
}

/// pgbench's report: from "transaction type:" to the end of stdout.
fn report(out: &Output) -> String {
    let s = stdout(out);
    let at = s.find("transaction type:").unwrap_or_else(|| panic!("no pgbench report in:\n{s}"));
    s[at..].to_string()
}

/// The text with every number blanked, so that two reports compare by their lines alone.
fn blanked(s: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in s.chars() {
        if c.is_ascii_digit() || (in_number && c == '.') {
            if !in_number {
                out.push('#');
                in_number = true;
            }
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

/// The number after `label` in a report (`tps = `, `number of failed transactions: `).
fn figure(report: &str, label: &str) -> f64 {
    let line = report.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no '{label}' in:\n{report}"));
    let rest = &line[label.len()..];
    let n: String = rest.chars().skip_while(|c| !c.is_ascii_digit()).take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    n.parse().unwrap_or_else(|_| panic!("no number in '{line}'"))
}

fn setup(db: &str) {
    pg_admin(&format!("DROP DATABASE IF EXISTS {db}"));
    pg_admin(&format!("CREATE DATABASE {db}"));
}

fn logs(prefix: &Path) -> Value {
    let out = run_ok(Command::new("python3").arg(concat!(env!("CARGO_MANIFEST_DIR"), "/bench/pgbench_logs.py")).arg(prefix));
    serde_json::from_str(stdout(&out).trim()).unwrap()
}

/// The same command lines through both tools give the same report lines; fairbench's figures
/// are its own summary's; `-i` makes tables pgbench runs on; `-t` runs exactly its count.
#[test]
fn pgbench_command_lines_give_pgbenchs_report_line_for_line() {
    let db = REPORTS;
    setup(db);
    let dir = scratch_dir("pgbench-cli");
    let conflict = dir.join("conflict.sql");
    std::fs::write(&conflict, CONFLICT).unwrap();
    let conflict = conflict.to_str().unwrap();
    // pgbench's -r lists a multi-line statement by its first line, a \; compound as one, and
    // \if, \else and \endif each as a command.
    let multi = dir.join("multi.sql");
    std::fs::write(
        &multi,
        "\\set aid random(1, 100000)\nSELECT abalance\n  FROM pgbench_accounts\n  WHERE aid = :aid;\nSELECT 1 \\; SELECT 2;\n\\if :aid % 2 = 0\nSELECT 3;\n\\else\nSELECT 4;\n\\endif\n\\sleep 1 us\n",
    )
    .unwrap();
    let multi = multi.to_str().unwrap();
    ours(db, &["-i", "-s", "2", "--partitions", "2"]);
    let count = |sql: &str| pg_admin_db(db, sql).trim().to_string();
    assert_eq!(count("SELECT count(*) FROM pgbench_accounts"), "200000");
    let lines: [&[&str]; 11] = [
        &["-c", "2", "-j", "2", "-t", "50", "-M", "prepared"],
        &["-c", "1", "-T", "2", "-S", "-P", "1", "--progress-timestamp"],
        &["-c", "2", "-T", "2", "-S", "-P", "1", "-L", "50", "-R", "200"],
        &["-c", "2", "-t", "30", "-b", "select-only@2", "-b", "simple-update@1"],
        &["-c", "2", "-t", "30", "-b", "select-only", "-b", "tpcb-like", "--max-tries", "3", "--failures-detailed"],
        &["-n", "-c", "2", "-T", "2", "-f", conflict, "--failures-detailed"],
        &["-n", "-c", "2", "-T", "2", "-f", conflict, "--max-tries", "10", "-P", "1"],
        &["-C", "-c", "2", "-t", "20"],
        &["-c", "2", "-t", "20", "-r"],
        // A file before a built-in: pgbench numbers the scripts in the order given.
        &["-n", "-c", "1", "-t", "20", "-r", "-f", multi, "-b", "select-only", "--max-tries", "3"],
        // Arrivals skipped past the latency limit are dealt a script first, and counted in it.
        &["-c", "2", "-T", "2", "-b", "select-only", "-b", "simple-update", "-R", "4000", "-L", "0.3"],
    ];
    for (i, args) in lines.iter().enumerate() {
        let (a, b) = (ours(db, args), theirs(db, args));
        let (ra, rb) = (report(&a), report(&b));
        assert_eq!(blanked(&ra), blanked(&rb), "{args:?}: fairbench's report:\n{ra}\npgbench's:\n{rb}");
        // Progress lines, when asked for, have pgbench's fields.
        let progress = |o: &Output| stderr(o).lines().find(|l| l.starts_with("progress: ")).map(blanked);
        assert_eq!(progress(&a), progress(&b), "{args:?}: {}", stderr(&a));
        // The report's figures are the summary's: tps, and the transactions themselves.
        let summary = stdout(&a);
        let per_sec = summary.lines().find(|l| l.trim_start().starts_with("transactions:")).unwrap();
        let tps: f64 = per_sec.split('(').nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap();
        assert!((figure(&ra, "tps = ") - tps).abs() < 0.01, "{args:?}: {ra} against {per_sec}");
        let processed = figure(&ra, "number of transactions actually processed: ");
        let n: f64 = per_sec.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(processed, n, "{args:?}");
        if i == 0 {
            // 50 per client, each a TPC-B transaction with its history row; the vacuum step
            // emptied the history first.
            assert_eq!(processed, 100.0);
            assert_eq!(count("SELECT count(*) FROM pgbench_history"), "100");
        }
        if args.contains(&"-L") && args.contains(&"simple-update") {
            let per_script: f64 = ra.lines().filter_map(|l| l.strip_prefix(" - number of transactions skipped: ")).map(|v| v.split_whitespace().next().unwrap().parse::<f64>().unwrap()).sum();
            let skipped = figure(&ra, "number of transactions skipped: ");
            assert!(skipped > 0.0 && per_script == skipped, "{args:?}: {per_script} skipped by script, {skipped} in all:\n{ra}");
        }
        if args.contains(&"--progress-timestamp") {
            // Unix time, as pgbench stamps it: within a minute of now.
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
            let line = stderr(&a).lines().find(|l| l.starts_with("progress: ")).unwrap().to_string();
            let t: f64 = line["progress: ".len()..].split_whitespace().next().unwrap().parse().unwrap();
            assert!((now - t).abs() < 60.0, "{line}");
        }
        if args.contains(&"-R") {
            assert!(figure(&ra, "rate limit schedule lag: avg ") < 50.0, "{ra}");
        }
    }
    // The partitions the tables were made with are in the report, as pgbench reads them.
    let r = report(&ours(db, &["-c", "1", "-t", "5", "-S"]));
    assert!(r.contains("partition method: range\npartitions: 2\n"), "{r}");
}

/// A serialization failure is a failed transaction at pgbench's one try, counted and not
/// retried, and the client goes on; with more tries it is retried, and fewer fail. The logs of
/// both tools, read by one script, hold the transactions each tool's report counts.
#[test]
fn serialization_failures_are_retried_counted_and_logged_as_pgbench_does() {
    let db = TRIES;
    setup(db);
    ours(db, &["-i", "-s", "1"]);
    let dir = scratch_dir("pgbench-logs");
    let conflict = dir.join("conflict.sql");
    std::fs::write(&conflict, CONFLICT).unwrap();
    let conflict = conflict.to_str().unwrap();
    let mut failed_share = Vec::new();
    for tries in ["1", "20"] {
        for (tool, run) in [("fairbench", ours as fn(&str, &[&str]) -> Output), ("pgbench", theirs as fn(&str, &[&str]) -> Output)] {
            let prefix = dir.join(format!("{tool}-{tries}"));
            let prefix_arg = format!("--log-prefix={}", prefix.display());
            let out = run(db, &["-n", "-c", "2", "-j", "2", "-T", "2", "-f", conflict, "--max-tries", tries, "--failures-detailed", "-l", &prefix_arg]);
            let r = report(&out);
            let (ok, failed) = (figure(&r, "number of transactions actually processed: "), figure(&r, "number of failed transactions: "));
            let ser = figure(&r, "number of serialization failures: ");
            assert_eq!(failed, ser, "{tool}: every failure is a serialization failure:\n{r}");
            let l = logs(&prefix);
            assert_eq!((l["transactions"].as_f64().unwrap(), l["failed"].as_f64().unwrap()), (ok, failed), "{tool} at {tries} tries: the log against the report:\n{r}\n{l}");
            assert_eq!(l["files"], 2, "{tool}: a file per thread: {l}");
            if tries == "1" {
                assert!(failed > 0.0, "{tool}: two clients on one row at REPEATABLE READ never failed:\n{r}");
            } else {
                let retried = figure(&r, "number of transactions retried: ");
                assert!(retried > 0.0 && figure(&r, "total number of retries: ") >= retried, "{tool}:\n{r}");
            }
            if tool == "fairbench" {
                failed_share.push(failed / (ok + failed));
                // fairbench's own summary counts the same failures.
                let own = stdout(&out).lines().find(|l| l.starts_with("Tries: ")).unwrap_or_else(|| panic!("no Tries line:\n{}", stdout(&out))).to_string();
                let before = |w: &str| -> f64 { own.split(w).next().unwrap().split_whitespace().last().unwrap().parse().unwrap() };
                assert_eq!(before(" failed ("), failed, "{own}");
                if tries != "1" {
                    assert_eq!(before(" events retried"), figure(&r, "number of transactions retried: "), "{own}");
                }
                // The aggregate log counts the same way.
                let agg = dir.join(format!("agg-{tries}"));
                let out =
                    ours(db, &["-n", "-c", "2", "-T", "2", "-f", conflict, "--max-tries", tries, "--failures-detailed", "-l", "--aggregate-interval=1", &format!("--log-prefix={}", agg.display())]);
                let r = report(&out);
                let l = logs(&agg);
                assert_eq!(l["format"], "aggregate");
                assert_eq!(
                    (l["transactions"].as_f64().unwrap(), l["failed"].as_f64().unwrap()),
                    (figure(&r, "number of transactions actually processed: "), figure(&r, "number of failed transactions: ")),
                    "{r}\n{l}"
                );
            }
        }
    }
    assert!(failed_share[1] < failed_share[0], "retries did not lower the failures: {failed_share:?}");
    // -r: the failures counted at the statement that met them, the UPDATE.
    let r = report(&ours(db, &["-n", "-c", "2", "-T", "1", "-f", conflict, "-r"]));
    let update = r.lines().find(|l| l.ends_with("UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;")).unwrap_or_else(|| panic!("{r}"));
    let at_update: f64 = update.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(at_update, figure(&r, "number of failed transactions: "), "{r}");
    assert!(at_update > 0.0, "{r}");
    // --verbose-errors: pgbench's two lines for each error (where the client met it, then
    // whether it tries again), in the same forms through both tools, and each tool's lines
    // adding up to its own report's retries and failures.
    // pgbench says a transaction is repeated when the run's end then cuts it short, and counts
    // it nowhere: up to one such line per client beyond its report. fairbench counts that one as
    // failed, and says so.
    let mut forms = Vec::new();
    for (run, cut_short) in [(ours as fn(&str, &[&str]) -> Output, 0.0), (theirs, 2.0)] {
        let out = run(db, &["-n", "-c", "2", "-T", "2", "-f", conflict, "--max-tries", "2", "--verbose-errors"]);
        let (r, err) = (report(&out), stderr(&out));
        let count = |s: &str| err.lines().filter(|l| l.starts_with("pgbench: client ") && l.contains(s)).count() as f64;
        let (failed, retries) = (figure(&r, "number of failed transactions: "), figure(&r, "total number of retries: "));
        assert!(failed > 0.0 && retries > 0.0, "{r}");
        let within = |said: f64, counted: f64| (counted..=counted + cut_short).contains(&said);
        assert!(within(count(" got an error in command 2 (SQL) of script 0; ERROR:  could not serialize access due to concurrent update"), failed + retries), "{r}\n{err}");
        assert_eq!(count(" ends the failed transaction (try "), failed, "{err}");
        assert!(within(count(" repeats the transaction after the error (try 1/2)"), retries), "{r}\n{err}");
        forms.push(err.lines().filter(|l| l.starts_with("pgbench: client ")).map(blanked).collect::<std::collections::BTreeSet<_>>());
    }
    assert_eq!(forms[0], forms[1], "fairbench's --verbose-errors lines, then pgbench's");
    // --sampling-rate: about that share of the transactions in the log.
    let sampled = dir.join("sampled");
    let out = ours(db, &["-n", "-c", "2", "-T", "2", "-S", "-l", "--sampling-rate=0.1", &format!("--log-prefix={}", sampled.display())]);
    let all = figure(&report(&out), "number of transactions actually processed: ");
    let share = logs(&sampled)["transactions"].as_f64().unwrap() / all;
    assert!(all > 1000.0 && (0.07..0.13).contains(&share), "{share} of {all} logged at --sampling-rate=0.1");
}

/// What cannot be honoured is refused in one line naming the option, before anything runs.
#[test]
fn pgbench_options_fairbench_cannot_honour_are_refused_in_one_line() {
    for (args, says) in [(&["-i", "-I", "dtg"][..], "--init-steps"), (&["-i", "--foreign-keys"][..], "--foreign-keys"), (&["-i", "-c", "2"][..], "initialization (-i) mode")] {
        let mut c = with_env(fairbench());
        let out = run_fail(c.arg("pgbench").args(args).arg(REPORTS));
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_one_line_error(&out, &[says]);
    }
}

/// The logs and the tries are the runner's, not pgbench scripts' alone: a sysbench workload on
/// SQLite logs each of its events in pgbench's format, a file per client thread.
#[test]
fn transaction_logs_serve_every_workload() {
    let dir = scratch_dir("txlog-oltp");
    let target = format!("sqlite:{}", dir.join("t.sqlite").display());
    let prefix = dir.join("oltp");
    let out = run_ok(
        fairbench().args(["run", "oltp_read_only", "--table-size", "1000", "--threads", "2", "--client-threads", "2", "--events", "300", "--time", "0", "--max-tries", "3", "--no-save"]).args([
            "--target",
            &target,
            "--log",
            &format!("--log-prefix={}", prefix.display()),
        ]),
    );
    let l = logs(&prefix);
    assert_eq!((l["transactions"].as_u64(), l["failed"].as_u64(), l["files"].as_u64()), (Some(300), Some(0), Some(2)), "{l}\n{}", stdout(&out));
    // Each line: client, its event number from 1, latency in µs, kind 0, Unix time, and the
    // retries column that a try limit other than 1 adds.
    let first = std::fs::read_to_string(format!("{}.{}", prefix.display(), l_pid(&prefix))).unwrap();
    let f: Vec<&str> = first.lines().next().unwrap().split(' ').collect();
    assert_eq!((f.len(), f[1], f[3], f[6]), (7, "1", "0", "0"), "{first:.200}");
    assert!(f[2].parse::<u64>().unwrap() > 0 && f[4].parse::<u64>().unwrap() > 1_700_000_000, "{f:?}");
}

/// The process id in the first log file's name (`PREFIX.PID`).
fn l_pid(prefix: &Path) -> String {
    let name = prefix.file_name().unwrap().to_str().unwrap().to_string();
    std::fs::read_dir(prefix.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_prefix(&format!("{name}.")).map(String::from))
        .find(|rest| !rest.contains('.'))
        .unwrap()
}
