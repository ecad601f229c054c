//! CH-benCHmark at one warehouse on SQLite, MariaDB and PostgreSQL: TPC-C
//! alone, then TPC-C beside two analytic streams that each run the 22
//! queries once; tpmC in both phases, the change between them, the
//! analytic throughput and the queries' freshness recomputed from what the
//! run reports; TPC-C's check passing after. On a PostgreSQL standby that
//! replays two seconds late, the freshness shows the lag, and the audit
//! tells that run from one whose queries ran on the primary. Bad input.

mod common;

use common::pgpair::*;
use common::*;
use serde_json::Value;

const QUERIES: u64 = 22;
const ALL: [u64; 22] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22];

fn ch(cmd: &str, target: &str, extra: &[&str]) -> std::process::Command {
    let mut c = fairbench();
    c.args([cmd, "ch", "--warehouses", "1", "--target", target]).args(extra);
    c
}

/// Runs `streams` streams for one round each beside two TPC-C clients and
/// returns the stored (alone, mixed) levels, checking what holds wherever
/// the queries ran.
fn run_phases(target: &str, store: &std::path::Path, streams: u64, queries: &[u64], extra: &[&str]) -> (Value, Value) {
    let s = streams.to_string();
    let list = queries.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let out = run_ok(
        ch("run", target, &[&["--threads", "2", "--time", "2", "--analytic-streams", &s, "--analytic-rounds", "1", "--analytic-queries", &list, "--rand-seed", "3"][..], extra].concat())
            .arg("--results")
            .arg(store),
    );
    let levels = stored_levels(store, "last");
    assert_eq!(levels.len(), 2, "{}", show(&out));
    let (alone, mixed) = (levels[0].clone(), levels[1].clone());
    assert_eq!((alone["summary"]["step"].as_str(), mixed["summary"]["step"].as_str()), (Some("tpcc-alone"), Some("mixed")));
    assert_eq!((alone["threads"].as_u64(), mixed["threads"].as_u64()), (Some(2), Some(2 + streams)), "the streams come beside the TPC-C clients");
    for q in 1..=QUERIES {
        let k = format!("Q{q}");
        assert_eq!(level_kind_events(&alone, &k), 0, "{k} while TPC-C ran alone");
        assert_eq!(level_kind_events(&mixed, &k), if queries.contains(&q) { streams } else { 0 }, "{k}: once per stream");
    }
    // tpmC is New-Orders a minute over each phase, the change their ratio. Paced at --rate, a
    // mixed phase as short as two quick queries (0.45 s on SQLite) holds a few transactions,
    // and one New-Order or none: there only the figure's agreement with its count is asserted.
    let paced = extra.contains(&"--rate");
    let mut tpmc = Vec::new();
    for (i, l) in [&alone, &mixed].into_iter().enumerate() {
        let want = level_kind_events(l, "new_order") as f64 * 60.0 / l["elapsed_s"].as_f64().unwrap();
        let got = level_figure(l, "tpmC");
        assert!((want > 0.0 || (paced && i == 1)) && (got - want).abs() <= 0.1, "tpmC {got}, from its New-Orders {want}");
        tpmc.push(got);
    }
    assert_eq!(level_figure(&mixed, "tpmC alone"), tpmc[0]);
    let change = level_figure(&mixed, "tpmC change vs alone %");
    assert!((change - (tpmc[1] / tpmc[0] - 1.0) * 100.0).abs() <= 0.1, "change {change} from {tpmc:?}");
    // The analytic side: every query counted, per hour over the phase.
    let n = streams * queries.len() as u64;
    assert_eq!(level_figure(&mixed, "analytic queries"), n as f64);
    let per_hour = level_figure(&mixed, "analytic queries per hour");
    let want = n as f64 * 3600.0 / mixed["elapsed_s"].as_f64().unwrap();
    assert!((per_hour - want).abs() <= want * 0.001 + 0.1, "{per_hour} an hour, from the phase's length {want}");
    // A freshness sample per query that saw an order of this run.
    assert_eq!(level_figure(&mixed, "freshness samples"), n as f64, "{}", mixed["summary"]["figures"]);
    let (p50, p95, max) = (level_figure(&mixed, "freshness age p50 ms"), level_figure(&mixed, "freshness age p95 ms"), level_figure(&mixed, "freshness age max ms"));
    assert!(0.0 <= p50 && p50 <= p95 && p95 <= max, "{p50} {p95} {max}");
    (alone, mixed)
}

/// The report's timeline of the last run: tpmC per interval, each phase
/// after the other, equal to the stored intervals' New-Orders a minute,
/// and the analytic queries a minute likewise.
fn timeline_is_the_intervals(store: &std::path::Path) {
    let html = scratch_dir("ch_report").join("r.html");
    run_ok(fairbench().args(["report", "last", "--results"]).arg(store).arg("-o").arg(&html));
    let page = std::fs::read_to_string(&html).unwrap();
    let levels = stored_levels(store, "last");
    for (chart, kinds) in [(0, 0..1), (1, 5..27)] {
        // (seconds from the run's start, the kinds' events a minute) of every stored interval.
        let mut stored = Vec::new();
        let mut offset = 0.0;
        for l in &levels {
            let ivs = l["intervals"].as_array().unwrap();
            for iv in ivs {
                // A level's intervals count the kinds up to the last one that ran in it.
                let counts = iv["kinds"].as_array().unwrap();
                let n: u64 = kinds.clone().filter_map(|k| counts.get(k)).map(|k| k.as_u64().unwrap()).sum();
                stored.push((offset + iv["t"].as_f64().unwrap(), n as f64 * 60.0 / iv["secs"].as_f64().unwrap()));
            }
            offset += ivs.last().map_or(0.0, |iv| iv["t"].as_f64().unwrap());
        }
        let at = page.find(&format!("-timeline-{chart}\"")).unwrap_or_else(|| panic!("no timeline {chart} in the report"));
        let svg = &page[at..at + page[at..].find("</svg>").unwrap()];
        let number = |v: &str| v.strip_suffix('k').map_or_else(|| v.parse::<f64>().unwrap(), |k| k.parse::<f64>().unwrap() * 1000.0);
        let drawn: Vec<(f64, f64)> =
            svg.split("data-v=\"").skip(1).flat_map(|v| v[..v.find('"').unwrap()].split(';').map(|p| p.split_once('|').map(|(x, y)| (number(x), number(y))).unwrap()).collect::<Vec<_>>()).collect();
        assert!(drawn.iter().any(|(_, y)| *y > 0.0), "timeline {chart} draws nothing: {svg}");
        for (x, y) in drawn {
            let (_, want) = stored.iter().find(|(t, _)| (t - x).abs() < 1e-6).unwrap_or_else(|| panic!("timeline {chart}: no interval at {x} s: {stored:?}"));
            assert!((y - want).abs() <= 0.5_f64.max(want * 0.005), "timeline {chart} at {x} s: drawn {y}, stored {want}");
        }
    }
}

fn whole_run(server: common::server::Server, name: &str) {
    let url = server.url();
    let store = scratch_dir(&format!("ch_{name}")).join("r.sqlite");
    run_ok(&mut ch("cleanup", &url, &[]));
    run_ok(&mut ch("prepare", &url, &["--threads", "2"]));
    for (t, n) in [("supplier1", 10_000), ("nation1", 25), ("region1", 5)] {
        assert_eq!(server.count(&format!("SELECT COUNT(*) FROM {t}")), n, "{t}");
    }
    let (_, mixed) = run_phases(&url, &store, 2, &ALL, &[]);
    timeline_is_the_intervals(&store);
    // On one server a query's snapshot holds every order committed before it began.
    assert_eq!(level_figure(&mixed, "freshness missed max ms"), 0.0, "{}", mixed["summary"]["figures"]);
    let out = run_ok(&mut ch("check", &url, &[]));
    assert!(stdout(&out).contains("All conditions hold.") && stdout(&out).contains("supplier, nation and region hold"), "{}", show(&out));
    // The open loop paces the TPC-C clients only: the streams still run their round.
    let (_, mixed) = run_phases(&url, &store, 1, &[6, 14], &["--rate", "50"]);
    let trx: u64 = ["new_order", "payment", "order_status", "delivery", "stock_level"].iter().map(|k| level_kind_events(&mixed, k)).sum();
    let allowed = 50.0 * mixed["elapsed_s"].as_f64().unwrap() * 1.2 + 10.0;
    assert!(trx as f64 <= allowed, "{trx} transactions at 50/s over {} s", mixed["elapsed_s"]);
    run_ok(&mut ch("cleanup", &url, &[]));
}

#[test]
fn tpcc_beside_analytic_streams_on_sqlite() {
    let dir = scratch_dir("ch_sqlite_db");
    whole_run(common::server::Server::Sqlite(dir.join("ch.db")), "sqlite");
}

#[test]
fn tpcc_beside_analytic_streams_on_mariadb() {
    whole_run(common::server::Server::Mariadb, "mariadb");
}

#[test]
fn tpcc_beside_analytic_streams_on_postgres() {
    whole_run(common::server::Server::Postgres, "postgres");
}

/// The queries on a standby that applies every commit two seconds late:
/// the newest order each saw is at least that old, and it missed orders
/// committed before it began. The audit tells this run from one whose
/// queries ran on the primary.
#[test]
fn queries_on_a_late_standby_show_its_lag_and_the_audit_names_the_side() {
    let p = start_primary();
    let s = start_standby(&p);
    run_ok(&mut ch("prepare", &url(p.port), &[]));
    wait_caught_up(&p, &s);
    // Replay waits for the queries (none is cancelled for a conflict with it).
    let conf = "\nrecovery_min_apply_delay = '2s'\nmax_standby_streaming_delay = -1\n";
    std::fs::OpenOptions::new().append(true).open(s.data.join("postgresql.conf")).and_then(|mut f| std::io::Write::write_all(&mut f, conf.as_bytes())).unwrap();
    assert!(as_postgres(&pg_bin("pg_ctl")).arg("reload").arg("-D").arg(&s.data).output().unwrap().status.success());
    let store = scratch_dir("ch_standby").join("r.sqlite");
    run_phases(&url(p.port), &store, 1, &ALL, &[]);
    let (_, mixed) = run_phases(&url(p.port), &store, 1, &ALL, &["--analytic-target", &url(s.port)]);
    let f = &mixed["summary"]["figures"];
    assert!(level_figure(&mixed, "freshness age p50 ms") >= 1900.0, "the standby applies commits 2 s late: {f}");
    let missed = level_figure(&mixed, "freshness missed max ms");
    assert!(missed > 0.0 && missed <= level_figure(&mixed, "freshness age max ms"), "{f}");
    let out = run_ok(fairbench().args(["compare", "1", "2", "--results"]).arg(&store));
    let text = stdout(&out);
    assert!(text.contains("workload-options-mismatch") && text.contains("analytic-side"), "{text}");
    assert!(text.contains("elsewhere") && text.contains("target"), "{text}");
    // Each query's mean latency in the mixed phase, run by run, with its ratio.
    let runs: Vec<Vec<Value>> = ["1", "2"].iter().map(|r| stored_levels(&store, r)).collect();
    let avg = |l: &Value, k: &str| l["summary"]["kinds"].as_array().unwrap().iter().find(|x| x["name"] == k).unwrap()["latency_ms"]["avg"].as_f64().unwrap();
    let row = text.lines().find(|l| l.split_whitespace().take(2).eq(["mixed", "Q6"])).unwrap_or_else(|| panic!("no Q6 row: {text}"));
    let cells: Vec<f64> = row.split_whitespace().skip(2).map(|c| c.trim_matches(|c| c == '(' || c == ')').parse().unwrap()).collect();
    let (a, b) = (avg(&runs[0][1], "Q6"), avg(&runs[1][1], "Q6"));
    assert!((cells[0] - a).abs() < 0.01 && (cells[1] - b).abs() < 0.01 && (cells[2] - b / a).abs() < 0.01, "{row}: {a} {b}");
}

/// A stream whose analytic server drops its connection reconnects to that
/// server, not to the target, and runs the query it lost again (it once
/// reconnected to the target and then failed on the dropped connection
/// again and again, without end).
#[test]
fn a_stream_dropped_by_its_analytic_server_reconnects_there() {
    let p = start_primary();
    psql(p.port, "CREATE ROLE analyst LOGIN PASSWORD 'analyst'");
    psql(p.port, "ALTER SYSTEM SET log_connections = on");
    psql(p.port, "SELECT pg_reload_conf()");
    run_ok(&mut ch("prepare", &url(p.port), &[]));
    psql(p.port, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO analyst");
    let analytic = format!("postgres://analyst:analyst@127.0.0.1:{}/{DB}", p.port);
    let store = scratch_dir("ch_dropped").join("r.sqlite");
    let mut cmd = ch("run", &url(p.port), &["--threads", "1", "--time", "1", "--analytic-streams", "1", "--analytic-rounds", "4", "--alone-phase", "off", "--analytic-target", &analytic]);
    cmd.arg("--results").arg(&store);
    let run = std::thread::spawn(move || run_ok(&mut cmd));
    // Sessions the server let in as analyst so far.
    let log = p.dir.join("postgres.log");
    let analysts = || std::fs::read_to_string(&log).unwrap().lines().filter(|l| l.contains("connection authorized: user=analyst")).count();
    // The stream's session on the analytic side, busy with a query; then dropped.
    let busy = "SELECT pid FROM pg_stat_activity WHERE usename = 'analyst' AND state = 'active' AND backend_type = 'client backend'";
    let mut pid = String::new();
    assert!(
        eventually(std::time::Duration::from_secs(120), || {
            pid = psql(p.port, busy);
            !pid.is_empty()
        }),
        "the stream never ran a query as analyst"
    );
    let before = analysts();
    assert_eq!(psql(p.port, &format!("SELECT pg_terminate_backend({pid})")), "t");
    let out = run.join().unwrap();
    let mixed = &stored_levels(&store, "last")[0];
    assert_eq!(level_figure(mixed, "analytic queries"), 4.0 * QUERIES as f64, "the lost query ran again: {}", mixed["summary"]["figures"]);
    let reconnects: u64 = mixed["intervals"].as_array().unwrap().iter().map(|iv| iv["reconnects"].as_u64().unwrap()).sum();
    assert_eq!(reconnects, 1, "{}", show(&out));
    assert_eq!(analysts(), before + 1, "the stream's one reconnect went to the analytic side");
}

/// A query in flight when the phase's time is up is cancelled on the
/// server and named, and the run ends on time (it once waited for the
/// query however long it took, and the query then ran on into whatever
/// came next). Once the phase runs, another session locks nation, which
/// the stream's Q2 reads: its next Q2 waits until the end.
#[test]
fn a_query_in_flight_at_the_end_is_cancelled_on_the_server() {
    use common::server::Server;
    use std::time::Duration;
    let prefix = ["--tpcc-prefix", "cut"];
    for server in [Server::Mariadb, Server::Postgres] {
        let url = server.url();
        let _ = ch("cleanup", &url, &prefix).output();
        run_ok(&mut ch("prepare", &url, &prefix));
        let db = parse_url(&url).database;
        let waiting = match server {
            Server::Mariadb => "SELECT COUNT(*) FROM information_schema.processlist WHERE state LIKE 'Waiting for table%' AND info LIKE 'SELECT su.s_suppkey%'",
            _ => "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'SELECT su.s_suppkey%'",
        };
        let store = scratch_dir("ch_cut").join(format!("{}.sqlite", db.len()));
        let args = [&prefix[..], &["--threads", "1", "--time", "3", "--analytic-streams", "1", "--analytic-queries", "2", "--alone-phase", "off", "--results"]].concat();
        let mut run = watch::Watched::spawn(ch("run", &url, &args).arg(&store));
        run.wait_for(Duration::from_secs(60), |l| l.contains("Threads started!"));
        let held = match server {
            Server::Mariadb => mysql_holding(&db, "LOCK TABLES cutnation1 WRITE;"),
            _ => pg_holding(&db, "BEGIN; LOCK TABLE cutnation1;"),
        };
        assert!(eventually(Duration::from_secs(30), || server.count(waiting) == 1), "Q2 never waited on the lock");
        // The phase's figures are out once its clients have stopped: the
        // server let go of the query by then (the run's own reads of the
        // table after it wait on the lock, as any reader does).
        run.wait_for(Duration::from_secs(30), |l| l.contains("cut at the end"));
        let sessions = match server {
            Server::Mariadb => "SELECT GROUP_CONCAT(CONCAT(state, ': ', LEFT(info, 60)) SEPARATOR ' | ') FROM information_schema.processlist",
            _ => "SELECT string_agg(wait_event_type || ': ' || LEFT(query, 60), ' | ') FROM pg_stat_activity",
        };
        assert_eq!(server.count(waiting), 0, "the query still runs on the server: {}", server.sql(sessions));
        drop(held);
        let out = run.finish(Duration::from_secs(60));
        assert!(out.status.success(), "{}", show(&out));
        let mixed = &stored_levels(&store, "last")[0];
        let f = &mixed["summary"]["figures"];
        assert_eq!(f["cut at the end"].as_str(), Some("Q2 (stream 1)"), "{}", show(&out));
        assert_eq!(level_figure(mixed, "analytic queries"), level_kind_events(mixed, "Q2") as f64, "the query cut is not counted: {f}");
        assert!(mixed["elapsed_s"].as_f64().unwrap() < 4.0, "the phase outlived its time: {}", mixed["elapsed_s"]);
        run_ok(&mut ch("cleanup", &url, &prefix));
    }
}

#[test]
fn bad_options_get_one_line_each() {
    let dir = scratch_dir("ch_bad");
    let lite = format!("sqlite://{}", dir.join("b.db").display());
    for (args, says) in [
        (&["--analytic-queries", "23"][..], "'23' is no query"),
        (&["--analytic-streams", "0"][..], "--analytic-streams"),
        (&["--threads", "1,2"][..], "one count of TPC-C clients"),
        (&["--analytic-target", "postgres://u:p@127.0.0.1:1/x"][..], "the same engine"),
    ] {
        let out = run_fail(&mut ch("run", &lite, args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        let err = stderr(&out);
        assert!(err.contains(says) && err.trim().lines().count() == 1, "{args:?}: {err}");
        assert!(!err.contains("p@"), "a password in the message: {err}");
    }
}
