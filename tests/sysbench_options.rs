//! sysbench's general options with their sysbench meaning: --histogram,
//! --report-checkpoints, --forced-shutdown, --thread-init-timeout,
//! --verbosity, --validate, and the note naming those without effect. On
//! embedded SQLite, and on MariaDB / PostgreSQL where a server matters;
//! the histogram's format is compared with real sysbench's.

mod common;

use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A directory of its own holding a SQLite target and the results store.
struct Lite {
    dir: PathBuf,
}

impl Lite {
    fn new(name: &str) -> Lite {
        Lite { dir: scratch_dir(name) }
    }

    fn target(&self) -> String {
        format!("sqlite:{}", self.dir.join("bench.sqlite").display())
    }

    /// `fairbench run oltp_point_select` on the SQLite target, in its directory.
    fn run(&self, extra: &[&str]) -> Command {
        let mut c = fairbench();
        c.current_dir(&self.dir).args(["run", "oltp_point_select", "--target", &self.target(), "--tables", "1", "--table-size", "1000"]).args(extra);
        c
    }
}

fn own_script(name: &str) -> String {
    format!("{}/tests/lua/{name}.lua", env!("CARGO_MANIFEST_DIR"))
}

/// The number after `key` on the first line holding it, from `from` on.
fn figure(text: &str, key: &str) -> u64 {
    let line = text.lines().find(|l| l.trim_start().starts_with(key)).unwrap_or_else(|| panic!("no {key:?} in:\n{text}"));
    line[line.find(key).unwrap() + key.len()..].split_whitespace().next().unwrap().parse().unwrap_or_else(|_| panic!("{line}"))
}

/// The histogram block of a report: (rows as (value, bar, count), the
/// lines from its title on).
fn histogram(text: &str) -> (Vec<(f64, String, u64)>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| *l == "Latency histogram (values are in milliseconds)").unwrap_or_else(|| panic!("no histogram in:\n{text}"));
    assert_eq!(lines[at + 1], "       value  ------------- distribution ------------- count", "{text}");
    let mut rows = Vec::new();
    let mut i = at + 2;
    while lines[i] != " " {
        let l = lines[i];
        // %12.3f |%-40.*s %lu
        assert!(l.len() > 55 && &l[12..14] == " |" && &l[54..55] == " ", "row {l:?}");
        let value: f64 = l[..12].trim().parse().unwrap_or_else(|_| panic!("row {l:?}"));
        assert_eq!(l[..12].trim().split('.').nth(1).map(str::len), Some(3), "row {l:?}");
        let bar = l[14..54].trim_end().to_string();
        assert!(bar.chars().all(|c| c == '*'), "row {l:?}");
        let count: u64 = l[55..].parse().unwrap_or_else(|_| panic!("row {l:?}"));
        rows.push((value, bar, count));
        i += 1;
    }
    (rows, lines[at..=i].iter().map(|s| s.to_string()).collect())
}

/// Rows in sysbench's order and shape: values rising on its log scale,
/// the fullest bucket's bar 40 stars, the others in proportion.
fn assert_sysbench_rows(rows: &[(f64, String, u64)], text: &str) {
    assert!(!rows.is_empty(), "{text}");
    let max = rows.iter().map(|r| r.2).max().unwrap();
    for w in rows.windows(2) {
        assert!(w[1].0 >= w[0].0, "values must rise: {w:?}");
    }
    for (v, bar, n) in rows {
        assert_eq!(bar.len(), (*n as f64 * 40.0 / max as f64 + 0.5).floor() as usize, "bar of {v}: {n} of max {max}");
        // On sysbench's grid: exp(i / mult + ln 0.001), 1024 buckets up to 1e5 ms.
        let mult = 1023.0 / (1e5f64.ln() - 1e-3f64.ln());
        let i = ((v.ln() - 1e-3f64.ln()) * mult).round();
        let back = (i / mult + 1e-3f64.ln()).exp();
        assert!((back - v).abs() <= 0.0005 + back * 1e-9, "{v} is not on sysbench's bucket grid");
    }
}

#[test]
fn histogram_block_counts_every_event() {
    let db = Lite::new("sb-histogram");
    let out = run_ok(&mut db.run(&["--threads", "2", "--time", "2", "--histogram", "--report-interval=0", "--no-save"]));
    let text = stdout(&out);
    let (rows, block) = histogram(&text);
    assert_sysbench_rows(&rows, &text);
    let sum: u64 = rows.iter().map(|r| r.2).sum();
    assert_eq!(sum, figure(&text, "total number of events:"), "{text}");
    // The report follows its closing line at once, as in sysbench.
    let after = text.split(&block.join("\n")).nth(1).unwrap();
    assert!(after.starts_with("\nSQL statistics:\n"), "{text}");
    // fairbench's HDR percentiles still follow the report.
    assert!(text.contains("Latency percentiles (ms, HDR histogram"), "{text}");
    // Off by default.
    let text = stdout(&run_ok(&mut db.run(&["--time", "1", "--no-save"])));
    assert!(!text.contains("Latency histogram"), "{text}");
}

/// The same script through real sysbench and fairbench on MariaDB: the
/// block's title, header, rows and closing line have one shape.
#[test]
fn histogram_format_matches_sysbench() {
    let url = mysql_url();
    let u = parse_url(&url);
    let dir = scratch_dir("sb-histogram-sysbench");
    let script = dir.join("select1.lua");
    std::fs::write(&script, "function thread_init()\n  drv = sysbench.sql.driver()\n  con = drv:connect()\nend\nfunction event()\n  con:query(\"SELECT 1\")\nend\n").unwrap();
    let mut sb = Command::new("sysbench");
    sb.current_dir(&dir).arg(&script).args([
        format!("--mysql-host={}", u.host),
        format!("--mysql-port={}", u.port.unwrap_or(3306)),
        format!("--mysql-user={}", u.user),
        format!("--mysql-password={}", u.password),
        format!("--mysql-db={}", u.database),
    ]);
    sb.args(["--time=1", "--histogram", "run"]);
    let theirs = stdout(&run_ok(&mut sb));
    let ours = stdout(&run_ok(fairbench().current_dir(&dir).arg(&script).args([&format!("--target={url}"), "--time=1", "--histogram", "--no-save", "run"])));
    let (their_rows, their_block) = histogram(&theirs);
    let (our_rows, our_block) = histogram(&ours);
    assert_sysbench_rows(&their_rows, &theirs);
    assert_sysbench_rows(&our_rows, &ours);
    assert_eq!(their_block[..2], our_block[..2]);
    assert_eq!(their_block.last(), our_block.last());
    // What follows the block: sysbench's report, at once.
    for (text, block) in [(&theirs, &their_block), (&ours, &our_block)] {
        assert!(text.split(&block.join("\n")).nth(1).unwrap().starts_with("\nSQL statistics:\n"), "{text}");
    }
}

/// The blocks of `[ Ns ] Checkpoint report:`: (N, transactions).
fn checkpoints(text: &str) -> Vec<(u64, u64)> {
    text.split("] Checkpoint report:\n")
        .skip(1)
        .zip(text.match_indices("] Checkpoint report:").map(|(i, _)| &text[..i]))
        .map(|(block, before)| {
            let n: u64 = before.rsplit("[ ").next().unwrap().trim().trim_end_matches('s').parse().unwrap();
            (n, figure(block, "transactions:"))
        })
        .collect()
}

#[test]
fn checkpoints_report_and_reset_the_counters() {
    let db = Lite::new("sb-checkpoints");
    // Without interval lines (--report-interval=0), as sysbench's default.
    let out = run_ok(&mut db.run(&["--threads", "2", "--time", "4", "--report-checkpoints=1,3", "--report-interval=0", "--output", "text"]));
    let text = stdout(&out);
    assert!(text.contains("Report checkpoint(s) at 1, 3 seconds"), "{text}");
    assert!(!text.contains("thds:"), "interval lines with --report-interval=0:\n{text}");
    let cps = checkpoints(&text);
    assert_eq!(cps.iter().map(|c| c.0).collect::<Vec<_>>(), vec![1, 3], "{text}");
    assert!(cps.iter().all(|c| c.1 > 0), "{cps:?}");
    // The final report covers what came after the last checkpoint.
    let tail_text = text.rsplit("] Checkpoint report:").next().unwrap();
    let last = tail_text.split("Threads fairness:").nth(1).unwrap();
    let final_trx = figure(last, "transactions:");
    let note = text.lines().find(|l| l.starts_with("Note: the report above covers")).unwrap_or_else(|| panic!("{text}"));
    let whole: u64 = note.rsplit(" (").next().unwrap().split(' ').next().unwrap().parse().unwrap();
    assert_eq!(cps.iter().map(|c| c.1).sum::<u64>() + final_trx, whole, "{text}");
    // The stored run covers the whole run.
    let list = stdout(&run_ok(fairbench().current_dir(&db.dir).args(["results", "export"])));
    assert!(list.contains(&format!("\"transactions\": {whole}")), "stored run vs {whole}:\n{list}");
}

/// A client sitting in a 30 s statement: the run ends 1 s after --time
/// with sysbench's line, the report and exit code 8, and is stored as failed.
#[test]
fn forced_shutdown_ends_a_run_stuck_in_a_statement() {
    for target in [mysql_url(), pg_url()] {
        let dir = scratch_dir("sb-forced");
        let began = Instant::now();
        let out = run_within(
            fairbench().current_dir(&dir).args([&own_script("long_statement"), &format!("--target={target}"), "--threads=2", "--time=1", "--forced-shutdown=1", "run"]),
            Duration::from_secs(20),
        );
        let took = began.elapsed();
        assert!(took < Duration::from_secs(1 + 1 + 2), "{target}: took {took:?}\n{}", show(&out));
        assert_eq!(out.status.code(), Some(8), "{target}: {}", show(&out));
        let text = stdout(&out);
        assert!(text.contains("FATAL: The --max-time limit has expired, forcing shutdown...\n"), "{text}");
        assert!(text.contains("Number of unfinished transactions on forced shutdown: 2"), "{text}");
        assert!(text.contains("SQL statistics:") && text.contains("Threads fairness:"), "{text}");
        let list = stdout(&run_ok(fairbench().current_dir(&dir).args(["results", "list"])));
        assert!(list.contains("failed"), "{list}");
    }
    // A percentage of --time: 50% of 2 s.
    let dir = scratch_dir("sb-forced-pct");
    let began = Instant::now();
    let out = run_within(
        fairbench().current_dir(&dir).args([&own_script("long_statement"), &format!("--target={}", mysql_url()), "--time=2", "--forced-shutdown=50%", "--no-save", "run"]),
        Duration::from_secs(20),
    );
    assert_eq!(out.status.code(), Some(8), "{}", show(&out));
    assert!(began.elapsed() < Duration::from_secs(2 + 1 + 2), "{:?}", began.elapsed());
}

/// A target that accepts TCP connections and never answers: the run gives
/// up after --thread-init-timeout with one line, exit code 3.
#[test]
fn thread_init_timeout_gives_up_on_a_silent_target() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accepts and holds every connection, never writing.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming() {
            held.push(s);
        }
    });
    for target in [format!("mysql://fb:pw@127.0.0.1:{port}/db"), format!("postgres://fb:pw@127.0.0.1:{port}/db")] {
        let dir = scratch_dir("sb-init-timeout");
        let began = Instant::now();
        let out = run_within(fairbench().current_dir(&dir).args(["run", "--target", &target, "--threads", "3", "--time", "1", "--thread-init-timeout=2"]), Duration::from_secs(20));
        assert!(began.elapsed() < Duration::from_secs(2 + 2), "{target}: {:?}", began.elapsed());
        assert_eq!(out.status.code(), Some(3), "{}", show(&out));
        assert_one_line_error(&out, &["0 of 3 clients", "--thread-init-timeout"]);
    }
}

/// Clients whose set-up (a script's thread_init) never ends: the same limit
/// holds once the tables are found.
#[test]
fn thread_init_timeout_stops_a_slow_client_setup() {
    for target in [mysql_url(), pg_url()] {
        let dir = scratch_dir("sb-init-slow");
        let began = Instant::now();
        let out = run_within(
            fairbench().current_dir(&dir).args([&own_script("slow_thread_init"), &format!("--target={target}"), "--threads=2", "--time=1", "--thread-init-timeout=2", "--no-save", "run"]),
            Duration::from_secs(20),
        );
        assert!(began.elapsed() < Duration::from_secs(2 + 2), "{target}: {:?}", began.elapsed());
        assert_eq!(out.status.code(), Some(3), "{}", show(&out));
        assert_one_line_error(&out, &["0 of 2 clients", "--thread-init-timeout"]);
    }
}

#[test]
fn verbosity_below_3_prints_no_report() {
    let db = Lite::new("sb-verbosity");
    for v in ["--verbosity=0", "--verbosity=2"] {
        let out = run_ok(&mut db.run(&["--time", "2", v, "--histogram", "--report-checkpoints=1"]));
        let text = stdout(&out);
        for absent in ["Running the test", "Threads started!", "thds:", "SQL statistics:", "Latency histogram", "Checkpoint report", "Stored as run"] {
            assert!(!text.contains(absent), "{v}: {absent:?} printed:\n{text}");
        }
    }
    // The runs were stored all the same.
    let list = stdout(&run_ok(fairbench().current_dir(&db.dir).args(["results", "list"])));
    assert_eq!(list.matches("completed").count(), 2, "{list}");
    // --debug (verbosity 5): each client's connect time on stderr, the report as usual.
    let out = run_ok(&mut db.run(&["--time", "1", "--threads", "2", "--debug", "--no-save"]));
    assert_eq!(stderr(&out).matches("DEBUG: client ").count(), 2, "{}", show(&out));
    assert!(stdout(&out).contains("SQL statistics:"));
}

fn tpcc(dir: &std::path::Path, cmd: &str, target: &str, extra: &[&str]) -> Output {
    let mut c = fairbench();
    c.current_dir(dir).args([cmd, "tpcc", "--target", target, "--warehouses", "1"]).args(extra);
    run_within(&mut c, Duration::from_secs(300))
}

#[test]
fn validate_runs_the_workloads_check() {
    let dir = scratch_dir("sb-validate");
    let db = dir.join("t.sqlite");
    let target = format!("sqlite:{}", db.display());
    let out = tpcc(&dir, "prepare", &target, &[]);
    assert!(out.status.success(), "{}", show(&out));
    let out = tpcc(&dir, "run", &target, &["--time", "1", "--no-save", "--validate"]);
    assert!(out.status.success(), "{}", show(&out));
    let text = stdout(&out);
    assert!(text.contains("condition  1 ") && text.contains("All conditions hold."), "{text}");
    // Without --validate, no check.
    let text = stdout(&tpcc(&dir, "run", &target, &["--time", "1", "--no-save"]));
    assert!(!text.contains("All conditions hold."), "{text}");
    // A broken condition fails the run with check's exit code.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("UPDATE warehouse1 SET w_ytd = w_ytd + 1 WHERE w_id = 1", []).unwrap();
    drop(c);
    let out = tpcc(&dir, "run", &target, &["--time", "1", "--no-save", "--validate"]);
    assert_eq!(out.status.code(), Some(5), "{}", show(&out));
    assert!(stdout(&out).contains("FAIL"), "{}", show(&out));

    // OLTP has no conditions: one note, success.
    let lite = Lite::new("sb-validate-oltp");
    let out = run_ok(&mut lite.run(&["--time", "1", "--no-save", "--validate"]));
    let notes: Vec<String> = stdout(&out).lines().filter(|l| l.contains("nothing to validate")).map(String::from).collect();
    assert_eq!(notes.len(), 1, "{}", show(&out));
}

#[test]
fn options_without_effect_are_named_once() {
    let db = Lite::new("sb-no-effect");
    let out = run_ok(&mut db.run(&["--time", "1", "--no-save", "--thread-stack-size=64K", "--db-debug=on"]));
    let text = stdout(&out);
    let line = "Note: --thread-stack-size, --db-debug are sysbench options that have no effect in fairbench.";
    assert_eq!(text.matches(line).count(), 1, "{text}");
    assert!(text.find(line).unwrap() < text.find("Threads started!").unwrap(), "{text}");
    // One option: singular; JSON output: on stderr, stdout stays JSON lines.
    let out = run_ok(&mut db.run(&["--time", "1", "--no-save", "--luajit-cmd=off", "--output", "json"]));
    assert_eq!(stderr(&out).trim(), "Note: --luajit-cmd is a sysbench option that has no effect in fairbench.", "{}", show(&out));
    assert!(stdout(&out).lines().all(|l| l.starts_with('{')), "{}", show(&out));
    // None given: no note.
    assert!(!stdout(&run_ok(&mut db.run(&["--time", "1", "--no-save"]))).contains("no effect"));
}
