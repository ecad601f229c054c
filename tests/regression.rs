//! One test per bug that was fixed, named after what broke (ripgrep's manner).
//! Each block is headed by a one-line comment naming its area.

mod common;

use common::*;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Output};
use std::time::Duration;

// ---- Bad input on the command line: one line naming the option, exit 2, no panic (issue 14)

/// fairbench with `args`, run in an empty directory of its own so that nothing it might create
/// (a SQLite database, the results store) lands in the source tree; killed after 60 s so that
/// a hang fails the test.
fn bad_input(args: &[&OsStr]) -> Output {
    let dir = tempfile::Builder::new().prefix("fb-regr-input-").tempdir().expect("temp dir");
    let mut cmd: Command = fairbench();
    cmd.current_dir(dir.path()).args(args);
    let out = run_within(&mut cmd, Duration::from_secs(60));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "a refused command created {left:?}\n{}", show(&out));
    out
}

/// `bad_input` for plain text arguments, expecting the usage exit code and one line on stderr
/// that mentions each of `mentions`.
fn refused(args: &[&str], mentions: &[&str]) -> Output {
    let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let out = bad_input(&os);
    assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
    assert_one_line_error(&out, mentions);
    out
}

// A non-UTF-8 argument panicked in std::env::args() (exit 101 and a stack trace).
#[test]
fn non_utf8_argument_is_a_usage_error_not_a_panic() {
    let bad = OsStr::from_bytes(b"oltp_\xff\xfe");
    for args in [vec![OsStr::new("run"), bad], vec![OsStr::new("run"), OsStr::new("--table-name"), bad]] {
        let out = bad_input(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        assert_one_line_error(&out, &["UTF-8", "oltp_"]);
    }
    let out = bad_input(&[OsStr::new("run"), OsStr::new("--table-name"), bad]);
    assert_one_line_error(&out, &["--table-name"]);
}

// `--threads 1,,2` ran (the empty item was skipped).
#[test]
fn threads_list_with_an_empty_item_is_refused() {
    for v in ["1,,2", "1,2,", ",4", ""] {
        refused(&["run", "--threads", v], &["--threads", "1,2,4,8"]);
    }
}

// `--mysql-ignore-errors abc` was accepted; so was any word as a SQLSTATE.
#[test]
fn ignore_error_lists_take_error_codes_only() {
    refused(&["run", "--mysql-ignore-errors", "abc"], &["--mysql-ignore-errors", "abc", "all"]);
    refused(&["run", "--mysql-ignore-errors", "1213,,1205"], &["--mysql-ignore-errors"]);
    refused(&["run", "--pgsql-ignore-errors", "deadlock"], &["--pgsql-ignore-errors", "deadlock", "SQLSTATE"]);
}

// A negative number got clap's 7-line "unexpected argument '-1' found ... use '-- -1'",
// which is wrong advice: the option was given a value it does not accept.
#[test]
fn negative_numbers_name_the_option_and_what_it_accepts() {
    let cases = [
        ("--threads", "-1"),
        ("--time", "-5"),
        ("--rate", "-1"),
        ("--table-size", "-3"),
        ("--rand-zipfian-exp", "-1"),
        ("--events", "-1"),
        ("--percentile", "-95"),
        ("--tables", "-2"),
        ("--warehouses", "-1"),
        ("--time-scale", "-0.5"),
        ("--mysql-port", "-3306"),
    ];
    for (opt, v) in cases {
        let out = refused(&["run", opt, v], &[opt, v, "use"]);
        assert!(!stderr(&out).contains("-- "), "{opt} {v}: clap's tip is back\n{}", show(&out));
    }
}

// `--time NaN`, `--time inf`, `--warmup-time NaN` and `--report-interval NaN` panicked when
// the run built its durations (exit 101); `--rate inf` ran without end and ignored SIGTERM.
#[test]
fn nan_and_infinite_numbers_are_refused() {
    for (opt, v) in [("--time", "NaN"), ("--time", "inf"), ("--warmup-time", "NaN"), ("--report-interval", "NaN"), ("--rate", "inf"), ("--pause", "inf"), ("--rand-spec-pct", "NaN")] {
        refused(&["run", opt, v, "--table-size", "100"], &[opt, v]);
    }
}

// `--table-size inf` loaded u64::MAX rows' worth of nothing: f64 "inf" passed the count parser.
#[test]
fn table_size_is_a_finite_whole_count() {
    for v in ["inf", "NaN", "1e3", "1.5", "0"] {
        refused(&["prepare", "--table-size", v], &["--table-size", v]);
    }
}

// `--threads 1..18446744073709551615` overflowed while doubling the levels (a panic in debug
// builds; an endless loop of 0-thread levels in release builds).
#[test]
fn threads_range_with_a_huge_bound_is_refused() {
    refused(&["run", "--threads", "1..18446744073709551615"], &["--threads"]);
    refused(&["run", "--threads", "0..4"], &["--threads"]);
}

// Found by the URL property test: a '%' before a multi-byte character in a URL panicked
// (the percent decoder sliced the string inside the character).
#[test]
fn url_percent_before_a_multibyte_character_is_no_panic() {
    let out = bad_input(&[OsStr::new("run"), OsStr::new("--target"), OsStr::new("mysql://u:p@h%aé:x/db")]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["bad target URL"]);
}

// Found by the URL property test: a bad URL's error showed a `password=` parameter, and the
// tail of a password that holds '@'.
#[test]
fn bad_url_errors_mask_every_password() {
    let out = refused(&["run", "--target", "mysql://h/db?password=Secret1x&bogus=1"], &["bogus"]);
    assert!(!stderr(&out).contains("Secret1x"), "{}", show(&out));
    let out = refused(&["run", "--target", "mysql://u:Sec@ret9x@h:notaport/db"], &["notaport"]);
    assert!(!stderr(&out).contains("ret9x"), "{}", show(&out));
}

// Enumerated options were checked only when the workload started (--load-mode only by
// prepare, so a run over existing tables never noticed it).
#[test]
fn enumerated_options_are_checked_when_parsed() {
    for (opt, v) in [("--load-mode", "fast"), ("--output", "xml"), ("--table-pick", "any"), ("--db-ps-mode", "on"), ("--fk", "yes2"), ("--isolation", "dirty")] {
        refused(&["run", opt, v], &[opt, v, "use"]);
    }
}

// A label holding a newline printed its error over two lines (the label is quoted as typed);
// so did any other message quoting a value, such as a bad URL's.
#[test]
fn label_with_a_control_character_gives_one_line() {
    refused(&["explain", "OLTP_RW-x\ny"], &["OLTP_RW-x\\ny"]);
    refused(&["run", "OLTP_RW-10Kx1tab-x\ny"], &["invalid label"]);
    refused(&["run", "--rand-type", "uni\nform"], &["--rand-type", "uni\\nform"]);
    // Found by the URL property test: the same in a URL's error message.
    refused(&["run", "--target", "mysql://h/db?a\nb=1"], &["bad target URL"]);
}

// Values too large or too small for a duration panicked while the run built its timers
// (`--warmup-time 1e300`, `--pause 1e300`, `--rate 1e-300`: the gap between arrivals), or ran
// far past their end (`--rand-spec-iter 4294967295` spent minutes on each random number).
#[test]
fn numbers_beyond_what_a_run_can_use_are_refused() {
    for (opt, v) in [("--time", "1e300"), ("--warmup-time", "1e300"), ("--pause", "1e300"), ("--rate", "1e-300"), ("--rate", "1e300"), ("--rand-spec-iter", "4294967295"), ("--client-threads", "100000000")] {
        refused(&["run", opt, v, "--table-size", "100"], &[opt, v]);
    }
}

// `--rate` above what the arrival generator could produce never let the clients, the reporter
// or the stop flag run: `--time 1` went on until killed.
#[test]
fn rate_above_what_the_client_can_generate_still_stops_on_time() {
    let dir = tempfile::Builder::new().prefix("fb-regr-rate-").tempdir().expect("temp dir");
    let target = format!("sqlite:{}", dir.path().join("bench.sqlite").display());
    let mut cmd = fairbench();
    cmd.current_dir(dir.path()).args(["run", "--target", &target, "--table-size", "100", "--rate", "1e9", "--time", "1", "--no-save"]);
    let started = std::time::Instant::now();
    let out = run_within(&mut cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(started.elapsed() < Duration::from_secs(30), "a 1 s run took {:?}\n{}", started.elapsed(), show(&out));
    assert_no_panic(&out);
}

// `--range-size`, `--update-range-size` and `--delta` near i64::MAX overflowed `id + width - 1`
// in every client (a panic per worker in debug builds, and the command still exited 0).
#[test]
fn row_widths_beyond_any_table_are_refused() {
    for opt in ["--range-size", "--update-range-size", "--delta"] {
        refused(&["run", opt, "9223372036854775807", "--table-size", "100"], &[opt, "9007199254740992"]);
    }
}
