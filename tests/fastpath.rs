//! The built-in wire clients (FAIRBENCH_WIRE=fast) against the drivers
//! (FAIRBENCH_WIRE=driver): same per-event query counts, same data changes,
//! same error codes and classes, on both engines, TCP, TCP with TLS and
//! socket, prepared statements and text.

mod common;

use common::*;
use serde_json::Value;
use std::process::Command;

struct T {
    tag: &'static str,
    url: String,
}

fn targets() -> Vec<T> {
    let my = parse_url(&mysql_url());
    let pg = parse_url(&pg_url());
    vec![
        T { tag: "my", url: mysql_url() },
        T { tag: "mysock", url: format!("mysql://{}:{}@localhost/{}?socket={}", my.user, my.password, my.database, mysql_socket()) },
        T { tag: "mytls", url: format!("{}?ssl-mode=REQUIRED", mysql_url()) },
        // Plain TCP (the default, prefer, takes the server's TLS).
        T { tag: "pg", url: format!("{}?sslmode=disable", pg_url()) },
        T { tag: "pgtls", url: format!("{}?sslmode=require", pg_url()) },
        T { tag: "pgsock", url: format!("postgres://{}:{}@localhost:{}/{}?host={}", pg.user, pg.password, pg_port(), pg.database, pg_socket_dir()) },
    ]
}

fn fb(wire: &str, t: &T, args: &[&str]) -> Command {
    let mut c = fairbench();
    c.env("FAIRBENCH_WIRE", wire).args(args).arg("--target").arg(&t.url);
    c
}

fn summary(out: &str) -> Value {
    out.lines().filter(|l| l.trim_start().starts_with('{')).map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|v| v["type"] == "summary").unwrap_or_else(|| panic!("no summary in {out}"))
}

fn n(v: &Value, path: &[&str]) -> u64 {
    let mut x = v;
    for p in path {
        x = &x[*p];
    }
    x.as_u64().unwrap_or_else(|| panic!("{} not a count in {v}", path.join(".")))
}

/// (read, write, other) queries of 60 events on tables `common` names, prepared already. Not
/// stored: the counts are in the summary, and 72 runs' environment captures took a fifth of
/// the test's time.
fn counts(wire: &str, t: &T, common: &[&str], workload: &str, ps: &str) -> (u64, u64, u64) {
    let out = run_ok(fb(wire, t, &["run", workload]).args(common).args([
        "--no-save",
        "--no-prepare",
        "--events",
        "60",
        "--time",
        "120",
        "--threads",
        "1",
        "--report-interval",
        "0",
        "--output",
        "json",
        "--db-ps-mode",
        ps,
    ]));
    let s = summary(&stdout(&out));
    assert_eq!(s["status"], "completed", "{s}");
    assert_eq!(n(&s, &["transactions"]), 60, "{s}");
    assert_eq!(n(&s, &["reconnects"]), 0, "{s}");
    (n(&s, &["queries", "read"]), n(&s, &["queries", "write"]), n(&s, &["queries", "other"]))
}

#[test]
fn same_counts_as_the_drivers() {
    for t in targets() {
        for (workload, expect) in [("oltp_read_write", (14, 4, 2)), ("oltp_point_select", (1, 0, 0)), ("oltp_update_index", (0, 1, 0))] {
            // One load for the four runs: a query's count does not depend on the rows.
            let table = format!("fp_{}_{}_", t.tag, &workload[5..]);
            let common = ["--table-name", table.as_str(), "--tables", "2", "--table-size", "500"];
            run_ok(fb("driver", &t, &["cleanup", workload]).args(common));
            run_ok(fb("driver", &t, &["prepare", workload]).args(common));
            for ps in ["auto", "disable"] {
                let mut seen = Vec::new();
                for wire in ["fast", "driver"] {
                    let c = counts(wire, &t, &common, workload, ps);
                    assert_eq!(c, (60 * expect.0, 60 * expect.1, 60 * expect.2), "{workload} {ps} {wire} on {}", t.tag);
                    seen.push(c);
                }
                assert_eq!(seen[0], seen[1], "{workload} {ps} on {}", t.tag);
            }
            run_ok(fb("driver", &t, &["cleanup", workload]).args(common));
        }
    }
}

/// A failing statement stops the run with exit 4 and the server's code,
/// word for word as with the driver.
#[test]
fn same_fatal_errors_as_the_drivers() {
    for t in targets() {
        let table = format!("fp_err_{}_", t.tag);
        let common = ["--table-name", table.as_str(), "--tables", "1", "--table-size", "100"];
        run_ok(fb("driver", &t, &["prepare", "oltp_point_select"]).args(common));
        let mut msgs = Vec::new();
        for wire in ["fast", "driver"] {
            for ps in ["auto", "disable"] {
                let out = run_fail(fb(wire, &t, &["run", "oltp_point_select"]).args(common).args([
                    "--no-prepare",
                    "--events",
                    "5",
                    "--threads",
                    "1",
                    "--db-ps-mode",
                    ps,
                    "--extra-query-before",
                    "SELECT nosuchcolumn FROM fp_no_such_table",
                ]));
                assert_eq!(out.status.code(), Some(4), "{wire} {ps} {}: {}", t.tag, stderr(&out));
                let e = stderr(&out);
                let code = if t.tag.starts_with("my") { "1146" } else { "42P01" };
                assert!(e.contains(code), "{wire} {ps} {}: {e}", t.tag);
                msgs.push(e.lines().find(|l| l.contains(code)).unwrap().to_string());
            }
        }
        assert_eq!(msgs[0], msgs[2], "{}", t.tag);
        run_ok(fb("driver", &t, &["cleanup", "oltp_point_select"]).args(common));
    }
}

/// A connection the server ends is ConnectionLost: counted, reconnected,
/// the run goes on; a retryable error restarts the event.
#[test]
fn lost_connections_and_retries_are_classified_alike() {
    for t in targets() {
        let table = format!("fp_lost_{}_", t.tag);
        let common = ["--table-name", table.as_str(), "--tables", "1", "--table-size", "100"];
        run_ok(fb("driver", &t, &["prepare", "oltp_point_select"]).args(common));
        let (kill, retry) = if t.tag.starts_with("my") {
            ("KILL CONNECTION CONNECTION_ID()", "DO 1")
        } else {
            ("SELECT pg_terminate_backend(pg_backend_pid())", "DO $$ BEGIN IF random() < 0.5 THEN RAISE EXCEPTION 'x' USING ERRCODE = '40001'; END IF; END $$")
        };
        let mut errs = Vec::new();
        for wire in ["fast", "driver"] {
            let out = run_ok(fb(wire, &t, &["run", "oltp_point_select"]).args(common).args([
                "--no-prepare",
                // Time for a reconnect after the first kill, TLS included, on a loaded machine
                // (0.3 s held none over TLS there: one error, no reconnect).
                "--time",
                "1",
                "--threads",
                "1",
                "--report-interval",
                "0",
                "--output",
                "json",
                "--extra-query-before",
                kill,
            ]));
            let s = summary(&stdout(&out));
            assert!(n(&s, &["reconnects"]) > 0, "{wire} {}: {s}", t.tag);
            errs.push(s["errors"].as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()).unwrap_or_default());
            if !t.tag.starts_with("my") {
                let out = run_ok(fb(wire, &t, &["run", "oltp_point_select"]).args(common).args([
                    "--no-prepare",
                    "--events",
                    "20",
                    "--threads",
                    "1",
                    "--report-interval",
                    "0",
                    "--output",
                    "json",
                    "--extra-query-before",
                    retry,
                ]));
                let s = summary(&stdout(&out));
                assert_eq!(n(&s, &["transactions"]), 20, "{wire} {}: {s}", t.tag);
                assert!(n(&s, &["ignored_errors"]) > 0, "{wire} {}: {s}", t.tag);
            }
        }
        assert_eq!(errs[0], errs[1], "{}", t.tag);
        run_ok(fb("driver", &t, &["cleanup", "oltp_point_select"]).args(common));
    }
}

/// One value from the engine's own command-line client.
fn scalar(t: &T, sql: &str) -> String {
    let out = if t.tag.starts_with("my") {
        let u = parse_url(&mysql_url());
        run_ok(Command::new("mariadb").args([&format!("--socket={}", mysql_socket()), &format!("-u{}", u.user), &format!("-p{}", u.password), "-N", "-B", &u.database, "-e", sql]))
    } else {
        let u = parse_url(&pg_url());
        run_ok(Command::new("psql").env("PGPASSWORD", &u.password).args(["-h", "127.0.0.1", "-p", &pg_port().to_string(), "-U", &u.user, "-d", &u.database, "-Atc", sql]))
    };
    stdout(&out).trim().to_string()
}

/// Loading through the fast clients (COPY / LOAD DATA or INSERT) gives the
/// same rows as through the drivers.
#[test]
fn loads_the_same_rows() {
    for t in targets() {
        for mode in ["auto", "insert"] {
            let mut sums = Vec::new();
            for wire in ["fast", "driver"] {
                let table = format!("fp_load_{}_{}_{}_", t.tag, mode, wire);
                let common = ["--table-name", table.as_str(), "--tables", "1", "--table-size", "3000", "--rand-seed", "7"];
                run_ok(fb(wire, &t, &["cleanup", "oltp_read_write"]).args(common));
                run_ok(fb(wire, &t, &["prepare", "oltp_read_write", "--load-mode", mode]).args(common));
                sums.push(scalar(&t, &format!("SELECT COUNT(*), SUM(k), SUM(LENGTH(c)), SUM(LENGTH(pad)), MIN(c), MAX(pad) FROM {table}1")));
                run_ok(fb(wire, &t, &["cleanup", "oltp_read_write"]).args(common));
            }
            assert!(sums[0].starts_with("3000"), "{mode} on {}: {}", t.tag, sums[0]);
            assert_eq!(sums[0], sums[1], "{mode} on {}", t.tag);
        }
    }
}

/// A TCP proxy to `upstream` that hands the server's bytes to the client in
/// small pieces, a pause between them, so the client's reads end inside
/// packet headers and payloads instead of at answer boundaries.
fn trickle_proxy(upstream: (String, u16)) -> u16 {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::thread;
    use std::time::Duration;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let Ok(server) = TcpStream::connect((upstream.0.as_str(), upstream.1)) else { return };
            for s in [&client, &server] {
                s.set_nodelay(true).unwrap();
            }
            let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            thread::spawn(move || {
                let _ = std::io::copy(&mut c_in, &mut s_out);
                let _ = s_out.shutdown(std::net::Shutdown::Write);
            });
            let (mut s_in, mut c_out) = (server, client);
            thread::spawn(move || {
                let sizes = [1usize, 3, 2, 7, 64, 5, 300, 1500];
                let mut buf = [0u8; 8192];
                let mut k = 0;
                while let Ok(n) = s_in.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut at = 0;
                    while at < n {
                        let end = n.min(at + sizes[k % sizes.len()]);
                        k += 1;
                        if c_out.write_all(&buf[at..end]).is_err() {
                            return;
                        }
                        at = end;
                        thread::sleep(Duration::from_micros(100));
                    }
                }
                let _ = c_out.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    port
}

/// The built-in clients parse the packets (MySQL) and messages (PostgreSQL)
/// already in their buffer without waiting, and read on only for one that
/// is not whole: answers that come in small pieces (headers and rows split
/// anywhere) give the same counts and rows as answers that come whole.
#[test]
fn answers_split_into_small_reads_parse_alike() {
    let (my, pg) = (parse_url(&mysql_url()), parse_url(&pg_url()));
    let my_port = trickle_proxy((my.host.clone(), mysql_port()));
    let pg_port_split = trickle_proxy((pg.host.clone(), pg_port()));
    let pairs = [
        (
            T { tag: "mysplit", url: format!("mysql://{}:{}@127.0.0.1:{my_port}/{}?ssl-mode=DISABLED", my.user, my.password, my.database) },
            T { tag: "mywhole", url: format!("{}?ssl-mode=DISABLED", mysql_url()) },
        ),
        (
            T { tag: "pgsplit", url: format!("postgres://{}:{}@127.0.0.1:{pg_port_split}/{}?sslmode=disable", pg.user, pg.password, pg.database) },
            T { tag: "pgwhole", url: format!("{}?sslmode=disable", pg_url()) },
        ),
    ];
    for (split, whole) in &pairs {
        split_reads_parse_alike(split, whole);
    }
}

fn split_reads_parse_alike(split: &T, whole: &T) {
    let tables: Vec<String> = [split, whole].iter().map(|t| format!("fp_split_{}_", t.tag)).collect();
    let common = |table: &str| ["--table-name", table, "--tables", "2", "--table-size", "500"].map(str::to_string);
    // Loaded straight, not through the proxy.
    for table in &tables {
        run_ok(fb("driver", whole, &["cleanup", "oltp_read_write"]).args(common(table)));
        run_ok(fb("driver", whole, &["prepare", "oltp_read_write"]).args(common(table)));
    }
    for ps in ["auto", "disable"] {
        let mut seen = Vec::new();
        for (t, table) in [split, whole].into_iter().zip(&tables) {
            let c = counts("fast", t, &common(table).each_ref().map(String::as_str), "oltp_read_write", ps);
            assert_eq!(c, (60 * 14, 60 * 4, 60 * 2), "{ps} on {}", t.tag);
            seen.push(c);
        }
        assert_eq!(seen[0], seen[1], "{ps} on {}", split.tag);
    }
    for table in &tables {
        run_ok(fb("driver", whole, &["cleanup", "oltp_read_write"]).args(common(table)));
    }
    // Rows read back through the proxy, as text (a query) and binary (a
    // prepared statement), are the rows the server has.
    let table = format!("fp_split_rows_{}_", whole.tag);
    let common = ["--table-name", table.as_str(), "--tables", "1", "--table-size", "300", "--rand-seed", "3"];
    run_ok(fb("fast", whole, &["prepare", "oltp_read_write"]).args(common));
    let script = scratch_dir("fastpath-split").join("rows.lua");
    std::fs::write(
        &script,
        format!(
            r#"
local function dump(rs)
  local out = {{}}
  for i = 1, rs.nrows do out[i] = table.concat(rs:fetch_row(), "|") end
  return #out .. " rows: " .. table.concat(out, ";")
end
function rows()
  local con = sysbench.sql.driver():connect()
  print("text " .. dump(con:query("SELECT id, k, c, pad FROM {table}1 ORDER BY id")))
  local st = con:prepare("SELECT id, k, c, pad FROM {table}1 WHERE id > ? ORDER BY id")
  local p = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(p)
  p:set(0)
  print("binary " .. dump(st:execute()))
end
sysbench.cmdline.commands = {{ rows = {{ rows }} }}
"#
        ),
    )
    .unwrap();
    let mut got = Vec::new();
    for t in [split, whole] {
        got.push(stdout(&run_ok(&mut fb("fast", t, &[script.to_str().unwrap(), "rows"]))));
    }
    assert!(got[0].contains("text 300 rows: 1|") && got[0].contains("binary 300 rows: 1|"), "{}", &got[0][..got[0].len().min(500)]);
    assert!(got[0] == got[1], "the rows differ through the proxy on {}", split.tag);
    run_ok(fb("fast", whole, &["cleanup", "oltp_read_write"]).args(common));
}

/// MariaDB skips a prepared statement's column definitions while they stay as they were
/// (MARIADB_CLIENT_CACHE_METADATA, which libmariadb and so sysbench ask for): the built-in
/// client asks too, reads such rows with the types it kept, and takes the new ones when a
/// table change sends them again. It sends the parameter types only when they change.
#[test]
fn skipped_column_definitions_read_rows_with_the_kept_types() {
    let all = targets();
    let sock = all.iter().find(|t| t.tag == "mysock").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("meta.lua");
    std::fs::write(
        &script,
        r#"
local function row(rs) return table.concat(rs:fetch_row(), "|") end
local function sent(con) return tonumber(con:query("SHOW SESSION STATUS LIKE 'Bytes_sent'"):fetch_row()[2]) end
local function received(con) return tonumber(con:query("SHOW SESSION STATUS LIKE 'Bytes_received'"):fetch_row()[2]) end
function meta()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS fb_meta")
  con:query("CREATE TABLE fb_meta (id INT PRIMARY KEY, a INT, b VARCHAR(10))")
  con:query("INSERT INTO fb_meta VALUES (1, -7, 'x'), (2, 40000, 'y')")
  local st = con:prepare("SELECT a, b FROM fb_meta WHERE id = ?")
  local p = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(p)
  local out = {}
  p:set(1) out[#out + 1] = row(st:execute())
  -- Bytes a point select's answer takes once the server knows the columns.
  local s0, r0 = sent(con), received(con)
  for i = 1, 10 do p:set(2) out[#out + 1] = row(st:execute()) end
  local s1, r1 = sent(con), received(con)
  for i = 1, 20 do p:set(2) st:execute() end
  local s2, r2 = sent(con), received(con)
  print("bytes per answer " .. ((s2 - s1) - (s1 - s0)) / 10)
  print("bytes per execute " .. ((r2 - r1) - (r1 - r0)) / 10)
  con:query("ALTER TABLE fb_meta MODIFY a VARCHAR(20)")
  con:query("UPDATE fb_meta SET a = 'changed' WHERE id = 1")
  p:set(1) out[#out + 1] = row(st:execute())
  p:set(2) out[#out + 1] = row(st:execute())
  print("rows " .. table.concat(out, ";"))
  con:query("DROP TABLE fb_meta")
end
sysbench.cmdline.commands = { meta = { meta } }
"#,
    )
    .unwrap();
    let mut got = Vec::new();
    for wire in ["fast", "driver"] {
        let out = stdout(&run_ok(&mut fb(wire, sock, &[script.to_str().unwrap(), "meta"])));
        let bytes: f64 = out.lines().find_map(|l| l.strip_prefix("bytes per answer ")).unwrap_or_else(|| panic!("{out}")).trim().parse().unwrap();
        let rows = out.lines().find(|l| l.starts_with("rows ")).unwrap_or_else(|| panic!("{out}")).to_string();
        let execute: f64 = out.lines().find_map(|l| l.strip_prefix("bytes per execute ")).unwrap_or_else(|| panic!("{out}")).trim().parse().unwrap();
        got.push((bytes, rows, execute));
    }
    let want = format!("rows -7|x;{};changed|x;40000|y", ["40000|y"; 10].join(";"));
    assert_eq!(got[0].1, want, "built-in client");
    assert_eq!(got[1].1, want, "driver");
    // Two column definitions of this table are some 80 bytes; the rest of the answer
    // (column count, one row, the closing OK) is under 40.
    assert!(got[0].0 < 45.0, "the built-in client's answers carry the column definitions: {} bytes each", got[0].0);
    // An execution whose parameter types are those of the last one leaves them out (the
    // server keeps them), as libmariadb does: 24 bytes for one integer, 26 with its type.
    assert_eq!(got[0].2, 24.0, "the built-in client sends the parameter types with every execution");
}
