//! libpq-style PostgreSQL host lists: `target_session_attrs` picks the host
//! (a primary and a `pg_basebackup -R` standby of their own, listed in
//! either order, with a closed port among them), with the built-in client
//! and with the driver; a lost connection reconnects through the same
//! choice (backends terminated, a failover to the promoted standby), and
//! gives up with one line after `--reconnect-timeout`; bad lists and
//! attributes are usage errors.

mod common;

use common::pgpair::*;
use common::*;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const TABLE: &str = "mh_";

/// `postgres://` listing 127.0.0.1 at each of `ports`, with the query `q`.
fn list(ports: &[u16], q: &str) -> String {
    let hosts: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    format!("postgres://{USER}:{PASSWORD}@{}/{DB}?{q}", hosts.join(","))
}

/// fairbench with the built-in client (`fast`: an error if it cannot serve) or the driver.
fn fb(wire: &str) -> Command {
    let mut c = fairbench();
    c.env("FAIRBENCH_WIRE", wire);
    c
}

fn run_args<'a>(workload: &'a str, target: &'a str, secs: &'a str) -> Vec<&'a str> {
    vec!["run", workload, "--target", target, "--table-name", TABLE, "--table-size", "1000", "--threads", "2", "--time", secs, "--report-interval", "1"]
}

/// A primary with the test table, and a standby that has replayed it.
fn prepared_pair() -> (Primary, Standby) {
    let p = start_primary();
    let s = start_standby(&p);
    run_ok(fairbench().args(["prepare", "oltp_read_write", "--target", &url(p.port), "--table-name", TABLE, "--table-size", "1000"]));
    wait_caught_up(&p, &s);
    (p, s)
}

/// The summary's `Events by node`: (host:port, events) in the target's order.
fn events_by_node(out: &Output) -> Vec<(String, u64)> {
    let text = stdout(out);
    let block = text.split("Events by node").nth(1).unwrap_or_else(|| panic!("no Events by node\n{}", show(out)));
    block
        .lines()
        .skip(1)
        .map_while(|l| {
            let mut w = l.split_whitespace();
            match (w.next(), w.next().and_then(|n| n.parse().ok()), w.next()) {
                (Some(node), Some(n), Some("events")) => Some((node.to_string(), n)),
                _ => None,
            }
        })
        .collect()
}

/// Asserts every event ran on the server at `port`.
fn all_on(out: &Output, port: u16, what: &str) {
    let nodes = events_by_node(out);
    let want = format!("127.0.0.1:{port}");
    assert!(nodes.iter().any(|(n, e)| *n == want && *e > 0), "{what}: no events on {want}: {nodes:?}\n{}", show(out));
    assert!(nodes.iter().all(|(n, e)| *n == want || *e == 0), "{what}: events elsewhere than {want}: {nodes:?}");
}

/// The server process whose hardware the run measured.
fn measured_pid(out: &Output) -> Option<u32> {
    stdout(out).split("server process: postgres, pid ").nth(1)?.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// The summary's reconnect count.
fn reconnects(out: &Output) -> u64 {
    let text = stdout(out);
    let line = text.lines().find(|l| l.trim_start().starts_with("reconnects:")).unwrap_or_else(|| panic!("no reconnects line\n{}", show(out)));
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap()
}

/// Runs `cmd` (which reports every second) to its end, running `action` once the run is
/// `intervals` report intervals into its own clock: a fault tied to the run's progress, not to
/// a sleep after the spawn, which on a loaded host landed at 4.9 s of a 6 s run. Returns the
/// output and the instant the action began.
fn during(cmd: &mut Command, intervals: usize, action: impl FnOnce()) -> (Output, Instant) {
    let mut run = watch::Watched::spawn(cmd);
    for _ in 0..intervals {
        run.wait_for_interval(Duration::from_secs(60));
    }
    let at = Instant::now();
    action();
    (run.finish(Duration::from_secs(120)), at)
}

/// Terminates fairbench's sessions on the server at `port`; returns how many.
fn terminate_fairbench(port: u16) -> usize {
    psql(port, "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'fairbench' AND pid <> pg_backend_pid()) t").parse().unwrap()
}

#[test]
fn session_attrs_choose_the_host_with_both_clients() {
    let (p, s) = prepared_pair();
    // Nothing listens there: the connection is refused.
    let closed = free_port();
    let cases: &[(&[u16], &str, &str, u16)] = &[
        (&[s.port, p.port], "target_session_attrs=read-write", "oltp_read_write", p.port),
        (&[s.port, p.port], "target_session_attrs=primary", "oltp_read_write", p.port),
        (&[p.port, s.port], "target_session_attrs=standby", "oltp_read_only", s.port),
        (&[p.port, s.port], "target_session_attrs=read-only", "oltp_read_only", s.port),
        (&[p.port, s.port], "target_session_attrs=prefer-standby", "oltp_read_only", s.port),
        // No standby: prefer-standby takes any host.
        (&[closed, p.port], "target_session_attrs=prefer-standby", "oltp_read_only", p.port),
        // any (the default, as in libpq): the first host that accepts, a standby too.
        (&[s.port, p.port], "target_session_attrs=any", "oltp_read_only", s.port),
        (&[closed, p.port, s.port], "load_balance_hosts=disable", "oltp_read_only", p.port),
        // An unreachable first host is passed over.
        (&[closed, s.port, p.port], "target_session_attrs=read-write", "oltp_read_write", p.port),
    ];
    for wire in ["fast", "driver"] {
        for (ports, q, workload, on) in cases {
            let target = list(ports, q);
            // Long enough for events on the host chosen; 18 runs of 1 s were half the test.
            let out = run_ok(fb(wire).args(run_args(workload, &target, "0.3")));
            all_on(&out, *on, &format!("{wire} {q} {ports:?}"));
            // The hardware measured is that of the server the run used, not the first listed.
            let pid = if *on == p.port { p.pid() } else { s.pid() };
            assert_eq!(measured_pid(&out), Some(pid), "{wire} {q} {ports:?}\n{}", show(&out));
        }
        // No host fits: one line naming each host and why it was passed over.
        let target = list(&[closed, s.port], "target_session_attrs=read-write");
        let out = run_fail(fb(wire).args(run_args("oltp_read_write", &target, "1")));
        assert_eq!(out.status.code(), Some(3), "{}", show(&out));
        let (c, st) = (format!("127.0.0.1:{closed}: "), format!("127.0.0.1:{}: is a standby", s.port));
        assert_one_line_error(&out, &["no host fits target_session_attrs=read-write", &c, &st]);
        assert!(!stderr(&out).contains(PASSWORD));
        let target = list(&[p.port, closed], "target_session_attrs=standby");
        let out = run_fail(fb(wire).args(run_args("oltp_read_only", &target, "1")));
        let pr = format!("127.0.0.1:{}: is a primary", p.port);
        assert_one_line_error(&out, &["no host fits target_session_attrs=standby", &pr]);
    }
}

#[test]
fn random_load_balancing_spreads_connections_over_the_hosts() {
    let (p, s) = prepared_pair();
    let target = list(&[p.port, s.port], "load_balance_hosts=random");
    let out = run_ok(fb("fast").args(["run", "oltp_read_only", "--target", &target, "--table-name", TABLE, "--table-size", "1000", "--threads", "16", "--time", "1"]));
    let nodes = events_by_node(&out);
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    // 16 clients each on a host drawn at random: all on one has odds of 1 in 32768.
    assert!(nodes.iter().all(|(_, e)| *e > 0), "{nodes:?}\n{}", show(&out));
}

#[test]
fn terminated_backends_reconnect_and_a_lost_primary_stops_the_run_after_the_timeout() {
    let (p, s) = prepared_pair();
    let target = list(&[s.port, p.port], "target_session_attrs=read-write");
    for wire in ["fast", "driver"] {
        let port = p.port;
        let (out, _) = during(fb(wire).args(run_args("oltp_read_write", &target, "6")), 1, || {
            let n = terminate_fairbench(port);
            assert!(n >= 2, "terminated {n} sessions");
        });
        assert!(out.status.success(), "{wire}: {}", show(&out));
        assert!(reconnects(&out) >= 2, "{wire}: {}", show(&out));
        all_on(&out, p.port, wire);
    }
    // The primary gone and no standby promoted: the clients give up after
    // --reconnect-timeout, with one line saying why.
    let (out, killed) = during(fb("fast").args(run_args("oltp_read_write", &target, "60")).args(["--reconnect-timeout", "2"]), 1, || p.kill());
    let gone = killed.elapsed();
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    let err = stderr(&out);
    assert!(err.contains("could not reconnect within 2 s (--reconnect-timeout)") && err.contains("no host fits target_session_attrs=read-write"), "{}", show(&out));
    assert!(err.contains(&format!("127.0.0.1:{}: is a standby", s.port)), "{err}");
    assert_eq!(err.lines().filter(|l| l.contains("--reconnect-timeout")).count(), 1, "{err}");
    // Gave up 2 s after the loss, not at the end of --time (60 s).
    assert!(gone < Duration::from_secs(10), "the run ended {gone:?} after the primary stopped");
    assert_no_panic(&out);
}

#[test]
fn ctrl_c_stops_a_run_whose_clients_are_reconnecting() {
    let (p, s) = prepared_pair();
    let target = list(&[s.port, p.port], "target_session_attrs=read-write");
    let mut run = common::watch::Watched::spawn(fb("fast").args(run_args("oltp_read_write", &target, "60")).args(["--reconnect-timeout", "60"]));
    let end = Instant::now() + Duration::from_secs(60);
    while psql(p.port, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'fairbench' AND state = 'active'").parse::<u32>().unwrap() < 2 {
        assert!(Instant::now() < end, "the run's clients never connected");
        std::thread::sleep(Duration::from_millis(50));
    }
    p.kill();
    // Signalled once an interval counted the lost connections: the clients are then trying
    // the standby and the stopped primary in turn.
    let errors = |l: &str| l.split("err/s: ").nth(1).and_then(|r| r.split_whitespace().next()).and_then(|v| v.parse::<f64>().ok()).is_some_and(|e| e > 0.0);
    run.wait_for(Duration::from_secs(30), errors);
    let (code, took, _) = run.interrupt();
    assert!(took < Duration::from_secs(2), "ended {took:?} after Ctrl-C");
    assert_eq!(code, Some(130));
}

/// The primary listed first stops; its standby is promoted: the clients
/// find it through the list and the run completes.
fn failover(wire: &str) {
    let (p, s) = prepared_pair();
    let target = list(&[p.port, s.port], "target_session_attrs=read-write");
    let (out, _) = during(fb(wire).args(run_args("oltp_read_write", &target, "10")).args(["--reconnect-timeout", "30"]), 2, || {
        p.kill();
        s.promote();
    });
    assert!(out.status.success(), "{wire}: {}", show(&out));
    assert!(reconnects(&out) >= 2, "{wire}: {}", show(&out));
    let nodes = events_by_node(&out);
    assert!(nodes.len() == 2 && nodes.iter().all(|(_, e)| *e > 0), "{wire}: events on both the old and the new primary: {nodes:?}\n{}", show(&out));
    // The per-second figures, to see the gap.
    let text = stdout(&out);
    let tps: Vec<&str> = text.lines().filter(|l| l.starts_with('[') && l.contains(" thds: ")).filter_map(|l| l.split(" tps: ").nth(1)?.split(' ').next()).collect();
    eprintln!("{wire}: failover: tps per second {tps:?}; reconnects {}; nodes {nodes:?}", reconnects(&out));
}

#[test]
fn failover_finds_the_promoted_standby_with_the_built_in_client() {
    failover("fast");
}

#[test]
fn failover_finds_the_promoted_standby_with_the_driver() {
    failover("driver");
}

#[test]
fn bad_host_lists_and_attributes_exit_2_with_one_line() {
    let pg = "postgres://fb:secretpw@127.0.0.1:1";
    let cases: &[(&[&str], &[&str])] = &[
        (&["--target", "postgres://fb:secretpw@h1,,h3/db"], &["empty host", "h1,,h3"]),
        (&["--target", &format!("{pg},127.0.0.1:2/db?target_session_attrs=master")], &["'master'", "any, read-write, read-only, primary, standby or prefer-standby"]),
        (&["--target", &format!("{pg}/db?load_balance_hosts=sometimes")], &["'sometimes'", "disable or random"]),
        (&["--target", "mysql://fb:secretpw@h1,h2/db?target_session_attrs=read-write"], &["target_session_attrs", "PostgreSQL"]),
        (&["--db-driver", "pgsql", "--pgsql-host", "h1,,h3"], &["empty host", "h1,,h3"]),
        (&["--target", &format!("{pg}/db"), "--reconnect-timeout", "0"], &["--reconnect-timeout"]),
    ];
    for (args, mentions) in cases {
        let out = run_fail(fairbench().args(["run", "oltp_point_select"]).args(*args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        assert_one_line_error(&out, mentions);
        assert!(!stderr(&out).contains("secretpw"), "{}", stderr(&out));
    }
}
