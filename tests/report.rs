//! `fairbench report` and `results export --csv`: the page rendered by a
//! real browser (headless Chromium, offline), its charts counted in the DOM,
//! values from users and servers kept as text, a 24-hour run within the
//! size and time bounds, and the CSV columns as docs/results.md documents them.
//! The runs are made on embedded SQLite: a server adds nothing here.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const INJECTED: &str = "<script>alert(1)</script>";
const AFTER: &str = "after, warm cache";

/// Two sweeps of 1, 2 and 3 threads on the same SQLite file, stored as runs 1
/// and 2; the second's tag holds a comma (CSV quoting).
struct Fixture {
    dir: PathBuf,
    store: PathBuf,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = scratch_dir("report_runs");
        let store = dir.join("r.sqlite");
        let target = format!("sqlite:{}", dir.join("db.sqlite").display());
        for tag in ["before", AFTER] {
            run_ok(
                fairbench()
                    .args([
                        "run",
                        "oltp_read_write",
                        "--target",
                        &target,
                        "--tables",
                        "2",
                        "--table-size",
                        "1000",
                        "--threads",
                        "1,2,3",
                        "--time",
                        "2",
                        "--warmup-time",
                        "1",
                        "--tag",
                        tag,
                        "--results",
                    ])
                    .arg(&store),
            );
        }
        Fixture { dir, store }
    })
}

fn report(store: &Path, runs: &[&str], out: &Path, extra: &[&str]) -> String {
    let mut c = fairbench();
    c.arg("report").args(runs).arg("--results").arg(store).arg("-o").arg(out).args(extra);
    stdout(&run_ok(&mut c))
}

/// The page's DOM after its script ran.
fn dom(page: &Path, profile: &Path) -> String {
    let out = chromium(&["--dump-dom"], page, profile);
    assert!(out.status.success(), "{}", show(&out));
    stdout(&out)
}

/// `(data-chart, svg text)` of every chart in `html`.
fn charts(html: &str) -> Vec<(String, String)> {
    html.split("<svg ")
        .skip(1)
        .filter_map(|s| {
            let svg = &s[..s.find("</svg>")?];
            let id = svg.split("data-chart=\"").nth(1)?.split('"').next()?;
            Some((id.to_string(), svg.to_string()))
        })
        .collect()
}

fn chart<'a>(cs: &'a [(String, String)], id: &str) -> &'a str {
    &cs.iter().find(|(i, _)| i == id).unwrap_or_else(|| panic!("no chart {id} in {:?}", cs.iter().map(|c| &c.0).collect::<Vec<_>>())).1
}

/// `(series name, points)` of each line in a chart.
fn series(svg: &str) -> Vec<(String, usize)> {
    svg.split("<g class=\"series\" data-name=\"")
        .skip(1)
        .map(|s| {
            let name = s.split('"').next().unwrap().to_string();
            let n = s.split("data-n=\"").nth(1).and_then(|x| x.split('"').next()).and_then(|x| x.parse().ok()).expect("polyline with data-n");
            (name, n)
        })
        .collect()
}

/// Distinct colours and the share of pixels that are not the page's
/// background, in a PNG.
fn png_stats(path: &Path) -> (usize, f64) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let bytes = &buf[..info.buffer_size()];
    let mut colours = std::collections::HashSet::new();
    let mut inked = 0usize;
    for p in bytes.chunks(px) {
        colours.insert(p[..3.min(px)].to_vec());
        if p[..3.min(px)].iter().any(|&c| c < 200) {
            inked += 1;
        }
    }
    (colours.len(), inked as f64 / (bytes.len() / px) as f64)
}

#[test]
fn a_sweep_report_renders_offline_with_one_point_per_level() {
    let f = fixture();
    let dir = scratch_dir("report_sweep");
    let page = dir.join("sweep.html");
    let said = report(&f.store, &["1"], &page, &["--charts", dir.join("charts").to_str().unwrap()]);
    assert!(said.contains("Wrote"), "{said}");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing fetched (the SVG namespace is a name, not a fetch).
    let outside = html.replace("http://www.w3.org/2000/svg", "");
    assert!(!outside.contains("http://") && !outside.contains("https://") && !outside.contains(" src="), "the page refers to something outside itself");

    let dom = dom(&page, &dir.join("profile"));
    let cs = charts(&dom);
    let tps = series(chart(&cs, "scaling-tps"));
    assert_eq!(tps.len(), 1, "one run, one line: {tps:?}");
    assert_eq!(tps[0].1, 3, "a sweep of 3 levels: 3 points");
    let lat = series(chart(&cs, "scaling-latency"));
    assert_eq!(lat.iter().map(|s| s.1).collect::<Vec<_>>(), vec![3, 3], "p95 and p99: {lat:?}");
    for level in 0..3 {
        for what in ["tps", "qps", "latency", "errors", "cpu"] {
            let s = series(chart(&cs, &format!("run1-level{level}-{what}")));
            // 1 s of warmup and 2 s measured: at least 3 per-second points.
            assert!(s.iter().all(|(_, n)| *n >= 3), "run1-level{level}-{what}: {s:?}");
        }
        assert!(chart(&cs, &format!("run1-level{level}-tps")).contains("data-kind=\"warmup\""), "warmup is marked");
    }
    let hdr = series(chart(&cs, "hdr-run1"));
    assert_eq!(hdr.len(), 3, "a percentile line per level: {hdr:?}");
    assert!(hdr.iter().all(|(_, n)| *n > 10));
    assert!(dom.contains("id=\"findings\""), "findings section");
    assert!(dom.find("id=\"findings\"") < dom.find("id=\"scaling\""), "findings come first");
    assert!(dom.contains("fairbench run oltp_read_write --target=sqlite:"), "the command line that reproduces the run");
    assert!(dom.contains("--threads=1,2,3"), "the sweep's levels in the command line");
    // Hardware per transaction: a row per level, and the CPU per transaction by level
    // (SQLite: the engine is fairbench's process, so server and client are one figure).
    assert!(dom.contains("id=\"hardware\""), "hardware section");
    for threads in 1..=3 {
        assert!(dom.contains(&format!("data-run=\"1\" data-threads=\"{threads}\"")), "a hardware row for {threads} threads");
    }
    let cpu = series(chart(&cs, "hardware-cpu"));
    assert_eq!(cpu.iter().map(|s| s.1).collect::<Vec<_>>(), vec![3, 3], "server and client CPU per transaction at 3 levels: {cpu:?}");

    // A screenshot that is not blank.
    let shot = dir.join("shot.png");
    let out = chromium(&["--window-size=1200,1800", &format!("--screenshot={}", shot.display())], &page, &dir.join("profile"));
    assert!(out.status.success(), "{}", show(&out));
    let (colours, inked) = png_stats(&shot);
    assert!(colours > 50 && inked > 0.02, "screenshot looks blank: {colours} colours, {:.1}% inked", inked * 100.0);

    // Every chart also as SVG and PNG.
    let svgs = std::fs::read_dir(dir.join("charts")).unwrap().filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "svg")).count();
    assert_eq!(svgs, cs.len(), "an SVG file per chart of the page");
    let (colours, inked) = png_stats(&dir.join("charts/scaling-tps.png"));
    assert!(colours > 10 && inked > 0.01, "chart PNG looks blank: {colours} colours");
}

#[test]
fn two_compared_runs_draw_two_lines_and_their_differences() {
    let f = fixture();
    let dir = scratch_dir("report_compare");
    let page = dir.join("compare.html");
    report(&f.store, &["1", "2"], &page, &[]);
    let dom = dom(&page, &dir.join("profile"));
    let cs = charts(&dom);
    let tps = series(chart(&cs, "scaling-tps"));
    assert_eq!(tps.len(), 2, "two runs, two lines: {tps:?}");
    assert!(tps.iter().all(|(_, n)| *n == 3), "{tps:?}");
    for t in 1..=3 {
        assert_eq!(series(chart(&cs, &format!("hdr-threads{t}"))).len(), 2, "latency distributions overlaid at {t} threads");
    }
    assert!(dom.contains("id=\"environment\""));
    assert!(dom.contains("Configuration differences"));
    // The second run's time series are there too.
    chart(&cs, "run2-level2-latency");

    // The page for the README, made by this test when asked to.
    if std::env::var_os("FAIRBENCH_DOCS_SCREENSHOT").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        let shot = docs.join("report.png");
        let out = chromium(&["--window-size=1200,1500", &format!("--screenshot={}", shot.display())], &page, &dir.join("profile"));
        assert!(out.status.success(), "{}", show(&out));
    }
}

#[test]
fn markup_in_tags_and_server_settings_shows_as_text() {
    let f = fixture();
    let dir = scratch_dir("report_injection");
    let store = dir.join("r.sqlite");
    let target = format!("sqlite:{}", f.dir.join("db.sqlite").display());
    std::fs::copy(&f.store, &store).unwrap();
    run_ok(fairbench().args(["run", "oltp_read_write", "--target", &target, "--tables", "2", "--table-size", "1000", "--time", "1", "--tag", INJECTED, "--results"]).arg(&store));
    // A server variable set to markup, as a hostile or careless server could report it.
    let c = rusqlite::Connection::open(&store).unwrap();
    let env: String = c.query_row("SELECT env_start FROM runs WHERE id = 1", [], |r| r.get(0)).unwrap();
    let mut env: serde_json::Value = serde_json::from_str(&env).unwrap();
    env["server"]["variables"]["evil_setting"] = INJECTED.into();
    env["server"]["version"] = "3.0 <img src=x onerror=alert(2)>".into();
    c.execute("UPDATE runs SET env_start = ?1 WHERE id = 1", [env.to_string()]).unwrap();
    drop(c);

    let page = dir.join("injected.html");
    report(&store, &["1", "3"], &page, &[]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains(INJECTED) && !html.contains("<img"), "markup reached the page unescaped");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the tag shows as text");
    assert_eq!(html.matches("<script").count(), 1, "only the page's own script");
    let dom = dom(&page, &dir.join("profile"));
    assert_eq!(dom.matches("<script").count(), 1, "no script element was made from a value");
    assert!(!dom.contains("<img"), "no element was made from a value");
    assert!(dom.contains("evil_setting"));
}

/// Adds a synthetic one-level run of `n` one-second intervals, copied from
/// run 1's description, with a 5 s stall and a latency spike; returns its id.
fn synthetic_day(store: &Path, n: usize) -> i64 {
    let mut c = rusqlite::Connection::open(store).unwrap();
    let tx = c.transaction().unwrap();
    tx.execute(
        "INSERT INTO runs(kind, label, tag, workload, engine, target, transport, tool_version, levels, options, started_at, ended_at, status, error, hostname, pid, env_start, env_end, findings)
         SELECT 'run', label, '24 hours', workload, engine, target, transport, tool_version, '8', options, started_at, ended_at, status, error, hostname, pid, env_start, env_end, '[]' FROM runs WHERE id = 1",
        [],
    )
    .unwrap();
    let id = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO levels(run_id, level_no, threads, started_at, ended_at, status, events, queries, trx_stmts, elapsed_s, tps, qps, qps_without_trx, p95_ms, p99_ms, cpu_user_s, cpu_sys_s, summary, histogram)
         SELECT ?1, 0, 8, started_at, ended_at, status, events, queries, trx_stmts, ?2, tps, qps, qps_without_trx, p95_ms, p99_ms, cpu_user_s, cpu_sys_s, summary, histogram FROM levels WHERE run_id = 1 AND level_no = 2",
        rusqlite::params![id, n as f64],
    )
    .unwrap();
    {
        let mut st = tx
            .prepare(
                "INSERT INTO intervals(run_id, level_no, seq, t, secs, threads, warmup, events, reads, writes, other, trx_stmts, errors, reconnects, dropped, p50_ms, p95_ms, p99_ms, max_ms, cpu_user_s, cpu_sys_s)
                 VALUES (?1, 0, ?2, ?3, 1.0, 8, 0, ?4, ?5, ?6, ?7, ?8, 0, 0, 0, 1.0, ?9, ?10, 20.0, 0.5, 0.1)",
            )
            .unwrap();
        for s in 0..n {
            let stalled = (50_000..50_005).contains(&s);
            let events: i64 = if stalled { 0 } else { 1000 + (s % 17) as i64 };
            let p99 = if s == 70_000 { 950.0 } else { 9.0 + (s % 5) as f64 };
            st.execute(rusqlite::params![id, s as i64, (s + 1) as f64, events, events * 14, events * 4, events * 2, events * 2, p99 / 2.0, p99]).unwrap();
        }
    }
    tx.commit().unwrap();
    id
}

#[test]
fn a_24_hour_run_reports_in_seconds_and_under_3_mb() {
    let f = fixture();
    let dir = scratch_dir("report_day");
    let store = dir.join("r.sqlite");
    std::fs::copy(&f.store, &store).unwrap();
    let id = synthetic_day(&store, 86_400);
    let page = dir.join("day.html");
    let t0 = Instant::now();
    let said = report(&store, &[&id.to_string()], &page, &[]);
    let took = t0.elapsed();
    let size = std::fs::metadata(&page).unwrap().len();
    println!("24-hour report: {size} bytes in {:.2} s ({said})", took.as_secs_f64());
    assert!(size < 3 << 20, "{size} bytes");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    let cs = charts(&html);
    let tps = chart(&cs, &format!("run{id}-level0-tps"));
    let s = series(tps);
    assert!(s[0].1 <= 720 && s[0].1 >= 600, "downsampled to at most 720 points: {s:?}");
    // The 5 s stall survives the downsampling as a drop to zero, and is shaded.
    assert!(tps.contains("|0;") || tps.contains("|0\""), "the stall's zero throughput is drawn");
    assert!(tps.contains("data-kind=\"stall\""), "the stall is marked");
    assert!(html.contains("data-rule=\"stall\""), "the audit's stall finding is listed");
    let lat = chart(&cs, &format!("run{id}-level0-latency"));
    assert!(lat.contains("|950"), "the one-second latency spike is drawn");
}

/// Column names of docs/results.md's CSV table (its first column, in backticks).
fn documented_columns() -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results.md")).unwrap();
    let start = readme.find("<!-- csv-columns -->").expect("docs/results.md marks its CSV column table with <!-- csv-columns -->");
    readme[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('|').nth(1).map(str::trim).and_then(|c| c.strip_prefix('`')).and_then(|c| c.strip_suffix('`')).map(str::to_string))
        .collect()
}

/// Splits one CSV line, honouring quotes.
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

#[test]
fn csv_export_has_the_documented_columns_and_a_row_per_interval_and_level() {
    let f = fixture();
    let out = run_ok(fairbench().args(["results", "export", "--csv", "1", "2", "--results"]).arg(&f.store));
    let text = stdout(&out);
    let mut lines = text.lines();
    let header: Vec<String> = csv_fields(lines.next().unwrap());
    assert_eq!(header, documented_columns(), "CSV header against docs/results.md");
    let rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
    assert!(rows.iter().all(|r| r.len() == header.len()), "every row has every column");
    let c = rusqlite::Connection::open(&f.store).unwrap();
    let intervals: i64 = c.query_row("SELECT COUNT(*) FROM intervals WHERE run_id IN (1, 2)", [], |r| r.get(0)).unwrap();
    assert_eq!(rows.iter().filter(|r| r[0] == "interval").count() as i64, intervals);
    assert_eq!(rows.iter().filter(|r| r[0] == "summary").count(), 6, "3 levels in each of 2 runs");
    let tag = header.iter().position(|h| h == "tag").unwrap();
    assert!(rows.iter().any(|r| r[tag] == AFTER), "a value with a comma comes back whole");
    let _ = &f.dir;
}

#[test]
fn report_of_a_missing_run_is_one_line() {
    let f = fixture();
    let out = run_fail(fairbench().args(["report", "999", "--results"]).arg(&f.store).arg("-o").arg(f.dir.join("none.html")));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_one_line_error(&out, &["999"]);
}

/// GET over plain HTTP: (status, body).
fn get(addr: &str, path: &str, method: &str) -> (u16, String) {
    get_as(addr, path, method, "")
}

/// As a Prometheus server scrapes: asking for OpenMetrics.
const OPENMETRICS: &str = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";

fn get_as(addr: &str, path: &str, method: &str, accept: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let accept = if accept.is_empty() { String::new() } else { format!("Accept: {accept}\r\n") };
    write!(s, "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{accept}Connection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).expect("a status code");
    (status, body.to_string())
}

/// Reads the child's stdout until a line starting with each of `prefixes`
/// has been seen; gives the address (`host:port`) each line names.
fn addresses(out: &mut impl std::io::BufRead, prefixes: &[&str]) -> Vec<String> {
    let mut found = vec![String::new(); prefixes.len()];
    let mut line = String::new();
    while found.iter().any(String::is_empty) {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "output ended before {prefixes:?} were printed");
        for (i, p) in prefixes.iter().enumerate() {
            if let Some(url) = line.trim().strip_prefix(p).and_then(|rest| rest.split("http://").nth(1)) {
                found[i] = url.split('/').next().unwrap().to_string();
            }
        }
    }
    found
}

/// A strict reading of the OpenMetrics text format: every family declared
/// with HELP and TYPE before its samples, sample names of a declared family
/// (counters end in `_total`, infos in `_info`), quoted label values with
/// only the allowed escapes, numeric values, and `# EOF` last. Gives the
/// samples as (name with labels, value).
fn parse_openmetrics(text: &str) -> Vec<(String, f64)> {
    let ident = |s: &str| !s.is_empty() && s.chars().enumerate().all(|(i, c)| c.is_ascii_alphabetic() || c == '_' || c == ':' || (i > 0 && c.is_ascii_digit()));
    let mut types: std::collections::HashMap<String, String> = Default::default();
    let mut samples = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "ends with # EOF");
    for l in &lines[..lines.len() - 1] {
        if let Some(rest) = l.strip_prefix("# ") {
            let mut p = rest.splitn(3, ' ');
            let (kw, name, arg) = (p.next().unwrap(), p.next().unwrap_or(""), p.next().unwrap_or(""));
            assert!(ident(name), "bad family name in {l:?}");
            match kw {
                "HELP" | "UNIT" => {}
                "TYPE" => {
                    assert!(["counter", "gauge", "info", "histogram", "summary", "stateset", "unknown", "gaugehistogram"].contains(&arg), "bad type in {l:?}");
                    types.insert(name.to_string(), arg.to_string());
                }
                _ => panic!("unknown descriptor {l:?}"),
            }
            continue;
        }
        let (name, rest) = match l.find('{') {
            Some(i) => (&l[..i], &l[i..]),
            None => l.split_once(' ').unwrap_or_else(|| panic!("no value in {l:?}")),
        };
        assert!(ident(name), "bad sample name in {l:?}");
        let family = types.keys().find(|f| name == f.as_str() || name.strip_prefix(f.as_str()).is_some_and(|s| ["_total", "_info", "_created"].contains(&s)));
        let family = family.unwrap_or_else(|| panic!("sample {name} of no declared family"));
        match types[family].as_str() {
            "counter" => assert!(name.ends_with("_total") || name.ends_with("_created"), "{name}"),
            "info" => assert!(name.ends_with("_info"), "{name}"),
            _ => {}
        }
        let (labels, value) = if let Some(r) = rest.strip_prefix('{') {
            // Label pairs: name="value", with \\ \" \n the only escapes.
            let b = r.as_bytes();
            let mut i = 0;
            loop {
                let eq = r[i..].find('=').map(|e| e + i).unwrap_or_else(|| panic!("label without = in {l:?}"));
                assert!(ident(&r[i..eq]), "bad label name in {l:?}");
                assert_eq!(b[eq + 1], b'"', "unquoted label value in {l:?}");
                let mut j = eq + 2;
                while b[j] != b'"' {
                    if b[j] == b'\\' {
                        assert!(matches!(b[j + 1], b'\\' | b'"' | b'n'), "bad escape in {l:?}");
                        j += 1;
                    }
                    j += 1;
                }
                match b[j + 1] {
                    b',' => i = j + 2,
                    b'}' => break (r[..j + 1].to_string(), r[j + 2..].trim()),
                    _ => panic!("bad label list in {l:?}"),
                }
            }
        } else {
            (String::new(), rest.trim())
        };
        let value: f64 = value.split(' ').next().unwrap().parse().unwrap_or_else(|_| panic!("bad value in {l:?}"));
        samples.push((format!("{name}{{{labels}"), value));
    }
    samples
}

fn sample(samples: &[(String, f64)], name: &str) -> f64 {
    samples.iter().find(|(n, _)| n.starts_with(&format!("{name}{{"))).unwrap_or_else(|| panic!("no {name} in {samples:?}")).1
}

#[test]
fn a_run_is_watched_live_and_through_openmetrics() {
    let dir = scratch_dir("report_live");
    let target = format!("sqlite:{}", dir.join("db.sqlite").display());
    run_ok(fairbench().args(["prepare", "oltp_read_write", "--target", &target, "--tables", "2", "--table-size", "1000"]));
    let mut child = fairbench()
        .args(["run", "oltp_read_write", "--target", &target, "--tables", "2", "--table-size", "1000", "--threads", "2", "--time", "10"])
        .args(["--live", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--tag", INJECTED, "--results"])
        .arg(dir.join("r.sqlite"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let a = addresses(&mut out, &["Live view:", "OpenMetrics:"]);
    let (live, metrics) = (a[0].clone(), a[1].clone());
    assert!(live.starts_with("127.0.0.1:") && metrics.starts_with("127.0.0.1:"), "{a:?}");
    // Keep reading the run's output so it never blocks on a full pipe.
    let drain = std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));

    // OpenMetrics: parses, and its counters grow from one interval to the next.
    let t0 = Instant::now();
    let first = loop {
        let (status, body) = get_as(&metrics, "/metrics", "GET", OPENMETRICS);
        assert_eq!(status, 200);
        let s = parse_openmetrics(&body);
        if sample(&s, "fairbench_intervals_total") >= 1.0 {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "no interval published");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(first.iter().any(|(n, _)| n.starts_with("fairbench_latency_seconds{") && n.contains("percentile=\"99\"")), "{first:?}");
    assert!(first.iter().all(|(n, _)| n.contains("label=\"OLTP_RW")), "the run's label on every sample");
    for name in ["fairbench_tps", "fairbench_qps", "fairbench_client_cpu_cores", "fairbench_errors_total", "fairbench_reconnects_total", "fairbench_run_info"] {
        sample(&first, name);
    }
    std::thread::sleep(Duration::from_millis(2200));
    let (_, body) = get_as(&metrics, "/metrics", "GET", OPENMETRICS);
    let second = parse_openmetrics(&body);
    // A scraper that does not ask for OpenMetrics gets the classic text
    // format, which Prometheus' own checker accepts.
    let (_, classic) = get(&metrics, "/metrics", "GET");
    assert!(!classic.contains("# EOF") && classic.contains("# TYPE fairbench_run_info gauge"), "{classic}");
    let mut check = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool (Debian's prometheus)");
    std::io::Write::write_all(&mut check.stdin.take().unwrap(), classic.as_bytes()).unwrap();
    let checked = check.wait_with_output().unwrap();
    assert!(checked.status.success(), "promtool check metrics: {}{}\n{classic}", String::from_utf8_lossy(&checked.stdout), String::from_utf8_lossy(&checked.stderr));
    for name in ["fairbench_transactions_total", "fairbench_queries_total", "fairbench_intervals_total"] {
        assert!(sample(&second, name) > sample(&first, name), "{name} did not grow");
    }
    // The hardware per transaction of the last sample (SQLite: the engine is fairbench's process).
    for name in ["fairbench_client_cpu_seconds_per_transaction", "fairbench_server_cpu_seconds_per_transaction", "fairbench_host_cpu_seconds_per_transaction"] {
        assert!(sample(&second, name) > 0.0, "{name}");
    }
    assert_eq!(sample(&second, "fairbench_server_cpu_seconds_per_transaction"), sample(&second, "fairbench_client_cpu_seconds_per_transaction"));
    assert_eq!(get(&metrics, "/metrics", "POST").0, 405, "read-only");

    // The live page: points arrive over server-sent events while it is open
    // (Chromium's virtual time runs the page until the run's stream ends).
    let out = {
        let mut c = Command::new(chromium_bin());
        c.args(["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--virtual-time-budget=6000", "--dump-dom"])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg(format!("http://{live}/"));
        run_within(&mut c, Duration::from_secs(120))
    };
    assert!(out.status.success(), "{}", show(&out));
    let dom = stdout(&out);
    let initial: usize = dom.split("data-initial=\"").nth(1).and_then(|s| s.split('"').next()).and_then(|s| s.parse().ok()).expect("data-initial");
    let cs = charts(&dom);
    let drawn = series(chart(&cs, "live-tps"));
    assert!(initial >= 1, "the page starts with the points so far");
    assert!(drawn[0].1 > initial, "no point arrived while the page was open: {initial} at load, {} drawn", drawn[0].1);
    assert!(!dom.contains(INJECTED), "the tag is not in the live page unescaped");
    let status = child.wait().unwrap();
    assert!(status.success(), "the run ended with {status}");
    let _ = drain.join();
}

#[test]
fn results_serve_lists_reports_and_compares_read_only() {
    let f = fixture();
    let mut child = fairbench().args(["results", "serve", "--addr", "127.0.0.1:0", "--results"]).arg(&f.store).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let addr = addresses(&mut out, &["Serving"]).remove(0);
    let (status, list) = get(&addr, "/", "GET");
    assert_eq!(status, 200);
    assert!(list.contains("href=\"report?runs=1\"") && list.contains("href=\"report?runs=2\""), "{list}");
    let (status, page) = get(&addr, "/compare?runs=1%2C2", "GET");
    assert_eq!(status, 200);
    assert_eq!(series(chart(&charts(&page), "scaling-tps")).len(), 2);
    let (status, page) = get(&addr, "/report?runs=<b>", "GET");
    assert_eq!(status, 400);
    assert!(!page.contains("<b>"), "the bad reference is shown as text");
    assert_eq!(get(&addr, "/", "DELETE").0, 405, "read-only");
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn workload_figures_come_from_the_family_through_the_report_hook() {
    let dir = scratch_dir("report_tpcc");
    let target = format!("sqlite:{}", dir.join("t.sqlite").display());
    let store = dir.join("r.sqlite");
    run_ok(fairbench().args(["prepare", "tpcc", "--target", &target, "--warehouses", "1"]));
    let out = run_ok(fairbench().args(["run", "tpcc", "--target", &target, "--warehouses", "1", "--threads", "2", "--time", "3", "--results"]).arg(&store));
    let printed: f64 =
        stdout(&out).lines().find_map(|l| l.trim().strip_prefix("tpmC (New-Orders/min incl. 1% rolled back, client): ")).and_then(|v| v.trim().parse().ok()).expect("the run prints its tpmC");
    let page = dir.join("t.html");
    report(&store, &["last"], &page, &[]);
    let html = std::fs::read_to_string(&page).unwrap();
    let shown: f64 = html.split("<th>tpmC (New-Orders/min incl. rolled back)</th><td class=n>").nth(1).and_then(|s| s.split('<').next()).and_then(|v| v.parse().ok()).expect("the report shows tpmC");
    assert!((shown - printed).abs() <= 0.06 + printed * 1e-6, "report {shown} vs run {printed}");
    for kind in ["new_order", "payment", "order_status", "delivery", "stock_level"] {
        assert!(html.contains(&format!("<tr><td>{kind}</td>")), "per-transaction row for {kind}");
    }
}

/// The level's longest gap without a completed event is shaded on its
/// time-series charts, from the end of warmup on, and the audit names it.
#[test]
fn an_outage_is_shaded_on_the_time_series() {
    let dir = scratch_dir("report_outage");
    let store = dir.join("r.sqlite");
    let target = format!("sqlite:{}", dir.join("db.sqlite").display());
    run_ok(fairbench().args(["run", "oltp_write_only", "--target", &target, "--table-size", "500", "--threads", "1", "--time", "4", "--warmup-time", "1", "--results"]).arg(&store));
    // A 1.5 s gap 1.2 s into the measured run, as a failover would leave it.
    let gap =
        r#"{"threshold_ms":20.0,"all":{"from_s":1.2,"to_s":2.7,"secs":1.5,"open":false,"errors":{"2013":3}},"write":{"from_s":1.2,"to_s":2.7,"secs":1.5,"open":false,"errors":{"2013":3}},"kinds":[]}"#;
    let c = rusqlite::Connection::open(&store).unwrap();
    assert_eq!(c.execute("UPDATE levels SET outage = ?1, p99_ms = 5.0 WHERE run_id = 1", [gap]).unwrap(), 1);
    drop(c);
    let page = dir.join("outage.html");
    report(&store, &["1"], &page, &[]);
    let dom = dom(&page, &dir.join("profile"));
    let cs = charts(&dom);
    for what in ["tps", "latency", "errors"] {
        let svg = chart(&cs, &format!("run1-level0-{what}"));
        let band = svg.split("data-kind=\"gap\"").nth(1).unwrap_or_else(|| panic!("no gap band on run1-level0-{what}"));
        // Its tooltip gives the span on the chart's axis: warmup (1 s) included.
        let title = band.split("<title>").nth(1).and_then(|t| t.split("</title>").next()).unwrap();
        assert_eq!(title, "gap 2.2..3.7 s", "run1-level0-{what}");
    }
    assert!(dom.contains("data-rule=\"outage\""), "the audit's outage finding is listed");
    assert!(dom.contains("no event completed for 1.500 s, from 1.20 s (errors: 2013 x3)"), "the finding names the gap and its time");
}

#[test]
fn a_find_max_report_draws_the_curve_it_measured_with_a_point_per_step() {
    let dir = scratch_dir("report_find_max");
    let store = dir.join("r.sqlite");
    let target = format!("sqlite://{}", dir.join("fm.sqlite").display());
    run_ok(
        fairbench()
            .args([
                "run",
                "oltp_point_select",
                "--tables",
                "1",
                "--table-size",
                "1000",
                "--threads",
                "1",
                "--time",
                "1",
                "--report-interval",
                "0",
                "--find-max",
                "p99<=50ms",
                "--find-max-precision",
                "25",
                "--target",
                &target,
                "--results",
            ])
            .arg(&store),
    );
    let run = &stored_run(&store, "last");
    let steps = run["capacity"]["steps"].as_array().unwrap().iter().filter(|s| s["probe"] != true).count();
    let id = run["id"].to_string();
    let page = dir.join("fm.html");
    report(&store, &[&id], &page, &[]);
    let dom = dom(&page, &dir.join("profile"));
    let cs = charts(&dom);
    let lat = series(chart(&cs, "capacity-latency"));
    assert_eq!(lat, vec![(format!("run {id} p50"), steps), (format!("run {id} p99"), steps)], "a point per step");
    let done = series(chart(&cs, "capacity-throughput"));
    assert_eq!(done, vec![(format!("run {id} completed/s"), steps)]);
    // The steps are no scaling curve over one client count.
    assert!(!cs.iter().any(|c| c.0 == "scaling-tps"), "{:?}", cs.iter().map(|c| &c.0).collect::<Vec<_>>());
    let capacity = run["capacity"]["capacity"].as_f64().unwrap();
    assert!(dom.contains(&format!("{capacity:.2} events/s (1 client)")), "the capacity in the table");
}
