//! TLS to MariaDB and PostgreSQL: `ssl-mode` / `sslmode` and `ssl-ca` in target URLs.
//!
//! The test servers offer TLS with a certificate for 127.0.0.1 and localhost, signed by a
//! throwaway CA (`FAIRBENCH_TEST_CA`); `FAIRBENCH_TEST_WRONG_CA` is an unrelated CA. The
//! account `fbssl` may only connect over TLS: MariaDB `REQUIRE SSL`, PostgreSQL `hostssl`
//! (a `hostnossl` line rejects it). So a run as `fbssl` that succeeds was encrypted.
//!
//! - REQUIRED / require and PREFERRED / prefer connect with TLS
//! - VERIFY_CA / verify-ca accept the right CA and refuse the wrong one (exit 3)
//! - VERIFY_IDENTITY / verify-full also check the host name against the certificate
//! - DISABLED / disable is refused by these servers for `fbssl` (exit 3)
//! - PostgreSQL reports fairbench's sessions as encrypted (pg_stat_ssl) when TLS was asked
//!   for, and as plain when it was not
//! - all of the above with the built-in wire client alone (`FAIRBENCH_WIRE=fast`, which
//!   refuses to hand a connection to the general driver); PREFERRED / prefer sessions are
//!   encrypted (the server's own view: `Ssl_cipher`, `pg_stat_ssl`)
//! - the built-in client's record layer against a rustls server, every cipher suite of
//!   TLS 1.3 and 1.2, records of every size, and a key update the server asks for
//!
//! Tests run two at a time, so each uses table names of its own.

mod common;

use common::*;
use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Db {
    Mysql,
    Postgres,
}

/// How long one short run may take at most (the machine may be busy).
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// The URL of `db` as `user`/`password`, on `host`, with the given query string.
fn url_as(db: Db, user: &str, password: &str, host: &str, query: &str) -> String {
    match db {
        Db::Mysql => {
            let database = parse_url(&mysql_url()).database;
            format!("mysql://{user}:{password}@{host}:{}/{database}?{query}", mysql_port())
        }
        Db::Postgres => {
            let database = parse_url(&pg_url()).database;
            format!("postgres://{user}:{password}@{host}:{}/{database}?{query}", pg_port())
        }
    }
}

/// The URL of `db` as the TLS-only account.
fn ssl_url(db: Db, host: &str, query: &str) -> String {
    url_as(db, SSL_USER, SSL_PASSWORD, host, query)
}

/// `ssl-mode=MODE` (MariaDB) or `sslmode=mode` (PostgreSQL), from the MySQL spelling.
fn mode(db: Db, m: &str) -> String {
    match db {
        Db::Mysql => format!("ssl-mode={m}"),
        Db::Postgres => {
            let pg = match m {
                "DISABLED" => "disable",
                "PREFERRED" => "prefer",
                "REQUIRED" => "require",
                "VERIFY_CA" => "verify-ca",
                "VERIFY_IDENTITY" => "verify-full",
                other => panic!("no such ssl mode {other}"),
            };
            format!("sslmode={pg}")
        }
    }
}

/// `fairbench run oltp_point_select` for one second against `url`.
fn run_cmd(url: &str, table: &str, seconds: u32) -> Command {
    let mut c = fairbench();
    c.args(["run", "oltp_point_select", "--target", url, "--table-name", table]).args(["--table-size", "500", "--time", &seconds.to_string(), "--output", "json"]);
    c
}

/// [`run_cmd`] with the built-in wire client only: a connection it cannot serve is an error,
/// not a silent hand-over to the general driver.
fn fast_run_cmd(url: &str, table: &str) -> Command {
    let mut c = run_cmd(url, table, 1);
    c.env("FAIRBENCH_WIRE", "fast");
    c
}

fn describe(cmd: &Command, out: &Output) -> String {
    format!("command: {cmd:?}\nstatus: {}\n--- stdout ---\n{}\n--- stderr ---\n{}", out.status, stdout(out), stderr(out))
}

/// Runs `cmd` to completion within [`RUN_LIMIT`] (killing it and failing otherwise).
fn run_limited(cmd: &mut Command) -> Output {
    run_within(cmd, RUN_LIMIT)
}

/// The raw JSON value of `key` in a one-line JSON object (enough for numbers and strings).
fn json_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\":");
    let start = line.find(&pat)? + pat.len();
    let rest = &line[start..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// Runs fairbench against `url`; it must succeed with a completed run that did some work.
fn run_succeeds(url: &str, table: &str) {
    succeeds(run_cmd(url, table, 1));
}

/// Runs `cmd`, a `run` command; it must succeed with a completed run that did some work.
fn succeeds(mut cmd: Command) {
    let out = run_limited(&mut cmd);
    assert!(out.status.success(), "expected success\n{}", describe(&cmd, &out));
    let so = stdout(&out);
    let summary = so.lines().find(|l| l.contains("\"type\":\"summary\"")).unwrap_or_else(|| panic!("no summary line\n{}", describe(&cmd, &out)));
    assert_eq!(json_field(summary, "status"), Some("\"completed\""), "{}", describe(&cmd, &out));
    let events: u64 = json_field(summary, "transactions").and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no transaction count in the summary\n{}", describe(&cmd, &out)));
    assert!(events > 0, "the run did nothing\n{}", describe(&cmd, &out));
    let se = stderr(&out);
    assert!(!se.contains(SSL_PASSWORD), "stderr shows the password\n{}", describe(&cmd, &out));
}

/// Runs fairbench against `url`; it must fail to connect: exit 3, one line on stderr that
/// names the target (password masked) and says why (contains one of `why`), no panic.
fn run_refused(url: &str, table: &str, why: &[&str]) -> String {
    refused(run_cmd(url, table, 1), why)
}

/// Runs `cmd`, a `run` command; it must fail to connect as [`run_refused`] says.
fn refused(mut cmd: Command, why: &[&str]) -> String {
    let out = run_limited(&mut cmd);
    let d = describe(&cmd, &out);
    assert_eq!(out.status.code(), Some(3), "expected exit 3 (cannot connect)\n{d}");
    let se = stderr(&out);
    assert!(!se.contains("panicked") && !se.contains("RUST_BACKTRACE"), "a panic\n{d}");
    assert!(!se.contains(SSL_PASSWORD), "stderr shows the password\n{d}");
    let lines: Vec<&str> = se.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected exactly one line on stderr\n{d}");
    let line = lines[0];
    assert!(line.starts_with("fairbench: "), "{d}");
    assert!(line.contains("cannot connect to") && line.contains(":****@"), "{d}");
    let lower = line.to_lowercase();
    assert!(why.iter().any(|w| lower.contains(&w.to_lowercase())), "stderr does not say why (expected one of {why:?})\n{d}");
    line.to_string()
}

/// What a failed certificate verification is reported as (OpenSSL's words).
const BAD_CERT: &[&str] = &["certificate verify failed", "self-signed certificate", "unable to get local issuer"];

// ---------------------------------------------------------------------------------------
// Connecting with TLS
// ---------------------------------------------------------------------------------------

fn required_and_preferred(db: Db, tag: &str) {
    run_succeeds(&ssl_url(db, "127.0.0.1", &mode(db, "REQUIRED")), &format!("tls_{tag}_req_"));
    // PREFERRED against a server that offers TLS: the TLS-only account gets in.
    run_succeeds(&ssl_url(db, "127.0.0.1", &mode(db, "PREFERRED")), &format!("tls_{tag}_pref_"));
}

#[test]
fn mysql_required_and_preferred_use_tls() {
    required_and_preferred(Db::Mysql, "my");
}

#[test]
fn pg_required_and_preferred_use_tls() {
    required_and_preferred(Db::Postgres, "pg");
}

fn verify_ca_with_the_right_ca(db: Db, tag: &str) {
    let ca = test_ca();
    let table = format!("tls_{tag}_vca_");
    run_succeeds(&ssl_url(db, "127.0.0.1", &format!("{}&ssl-ca={ca}", mode(db, "VERIFY_CA"))), &table);
    // The certificate names both 127.0.0.1 and localhost.
    for host in ["127.0.0.1", "localhost"] {
        run_succeeds(&ssl_url(db, host, &format!("{}&ssl-ca={ca}", mode(db, "VERIFY_IDENTITY"))), &table);
    }
    if db == Db::Postgres {
        // libpq's name for the CA file works too.
        run_succeeds(&ssl_url(db, "127.0.0.1", &format!("sslmode=verify-full&sslrootcert={ca}")), &table);
    }
}

#[test]
fn mysql_verify_ca_with_the_right_ca_connects() {
    verify_ca_with_the_right_ca(Db::Mysql, "my");
}

#[test]
fn pg_verify_ca_with_the_right_ca_connects() {
    verify_ca_with_the_right_ca(Db::Postgres, "pg");
}

// ---------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------

#[test]
fn mysql_disabled_is_refused_for_a_tls_only_account() {
    run_refused(&ssl_url(Db::Mysql, "127.0.0.1", "ssl-mode=DISABLED"), "tls_my_dis_", &["access denied"]);
}

#[test]
fn pg_disabled_is_refused_for_a_tls_only_account() {
    let line = run_refused(&ssl_url(Db::Postgres, "127.0.0.1", "sslmode=disable"), "tls_pg_dis_", &["pg_hba.conf"]);
    assert!(line.contains("no encryption"), "{line}");
}

fn wrong_ca_is_refused(db: Db, tag: &str) {
    let wrong = test_wrong_ca();
    let table = format!("tls_{tag}_wca_");
    for m in ["VERIFY_CA", "VERIFY_IDENTITY"] {
        run_refused(&ssl_url(db, "127.0.0.1", &format!("{}&ssl-ca={wrong}", mode(db, m))), &table, BAD_CERT);
    }
    // Without ssl-ca the system's CAs are used, which did not sign the test certificate.
    run_refused(&ssl_url(db, "127.0.0.1", &mode(db, "VERIFY_CA")), &table, BAD_CERT);
}

#[test]
fn mysql_verify_ca_with_the_wrong_ca_is_refused() {
    wrong_ca_is_refused(Db::Mysql, "my");
}

#[test]
fn pg_verify_ca_with_the_wrong_ca_is_refused() {
    wrong_ca_is_refused(Db::Postgres, "pg");
}

/// `127.1` reaches 127.0.0.1 but is not a name the certificate was made for: VERIFY_CA
/// (chain only) connects, VERIFY_IDENTITY refuses.
fn host_name_is_checked(db: Db, tag: &str) {
    let ca = test_ca();
    let table = format!("tls_{tag}_vid_");
    run_succeeds(&ssl_url(db, "127.1", &format!("{}&ssl-ca={ca}", mode(db, "VERIFY_CA"))), &table);
    run_refused(&ssl_url(db, "127.1", &format!("{}&ssl-ca={ca}", mode(db, "VERIFY_IDENTITY"))), &table, &["mismatch", "certificate verify failed"]);
}

#[test]
fn mysql_verify_identity_checks_the_host_name() {
    host_name_is_checked(Db::Mysql, "my");
}

#[test]
fn pg_verify_full_checks_the_host_name() {
    host_name_is_checked(Db::Postgres, "pg");
}

// ---------------------------------------------------------------------------------------
// What the server sees
// ---------------------------------------------------------------------------------------

/// `(sessions, encrypted sessions, TLS versions)` of fairbench's sessions of `user`, as
/// PostgreSQL reports them.
/// The local TCP ports of process `pid`'s sockets: its inodes from
/// /proc/PID/fd, their ports from /proc/net/tcp (and tcp6).
fn tcp_ports_of(pid: u32) -> Vec<u16> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok()).filter_map(|l| l.to_str()?.strip_prefix("socket:[")?.strip_suffix(']').map(String::from)).collect())
        .unwrap_or_default();
    let mut ports = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        for line in std::fs::read_to_string(table).unwrap_or_default().lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() > 9 && inodes.iter().any(|i| i == f[9]) {
                if let Some(port) = f[1].rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok()) {
                    ports.push(port);
                }
            }
        }
    }
    ports
}

/// What pg_stat_ssl says about the sessions of `user` that process `pid`
/// opened (found by their client ports: other tests connect as the same
/// user at the same time, some with TLS and some without).
fn pg_fairbench_sessions(user: &str, pid: u32) -> (u64, u64, String) {
    let ports = tcp_ports_of(pid);
    if ports.is_empty() {
        return (0, 0, String::new());
    }
    let ports: Vec<String> = ports.iter().map(|p| p.to_string()).collect();
    let out = pg_admin(&format!(
        "SELECT count(*), count(*) FILTER (WHERE s.ssl), coalesce(string_agg(DISTINCT s.version, ','), '') \
         FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid \
         WHERE a.application_name = 'fairbench' AND a.usename = '{user}' AND a.backend_type = 'client backend' AND a.client_port IN ({})",
        ports.join(",")
    ));
    let f: Vec<&str> = out.trim().split('|').collect();
    assert_eq!(f.len(), 3, "unexpected psql output {out:?}");
    (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].to_string())
}

/// Runs fairbench for a few seconds as `user` and returns what pg_stat_ssl said about its
/// sessions while they were open: `(sessions, encrypted sessions, TLS versions)`.
fn pg_sessions_during_run(user: &str, password: &str, query: &str, table: &str) -> (u64, u64, String) {
    let url = url_as(Db::Postgres, user, password, "127.0.0.1", query);
    let mut cmd = run_cmd(&url, table, 4);
    cmd.args(["--threads", "2"]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let deadline = Instant::now() + RUN_LIMIT;
    let mut seen = (0, 0, String::new());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {RUN_LIMIT:?}");
        }
        let now = pg_fairbench_sessions(user, child.id());
        if now.0 > seen.0 {
            seen = now;
        }
        thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    assert!(status.success(), "{cmd:?} failed: {status}\n{err}");
    assert!(seen.0 > 0, "never saw fairbench's sessions of {user} in pg_stat_activity during the run");
    seen
}

#[test]
fn pg_sessions_are_encrypted_when_tls_is_asked_for() {
    // The ordinary account may connect either way: what the server sees is what was asked.
    let pg = parse_url(&pg_url());
    let (n, enc, versions) = pg_sessions_during_run(&pg.user, &pg.password, "sslmode=require", "tls_pg_seen_");
    assert_eq!(n, enc, "sslmode=require, yet {} of {n} sessions are not encrypted", n - enc);
    assert!(versions.starts_with("TLS"), "TLS versions reported: {versions:?}");
    let (n, enc, _) = pg_sessions_during_run(&pg.user, &pg.password, "sslmode=disable", "tls_pg_seen_");
    assert_eq!(enc, 0, "sslmode=disable, yet {enc} of {n} sessions are encrypted");
    // And the TLS-only account's sessions.
    let (n, enc, _) = pg_sessions_during_run(SSL_USER, SSL_PASSWORD, "sslmode=require", "tls_pg_seen_ssl_");
    assert_eq!(n, enc, "{} of {n} sessions of {SSL_USER} are not encrypted", n - enc);
}

// ---------------------------------------------------------------------------------------
// The built-in wire client (FAIRBENCH_WIRE=fast) over TLS
// ---------------------------------------------------------------------------------------

/// Every mode that encrypts, as the TLS-only account, with the built-in client alone.
fn lean_client_in_every_mode(db: Db, tag: &str) {
    let ca = test_ca();
    let table = format!("tls_{tag}_fast_");
    for (host, query) in [
        ("127.0.0.1", mode(db, "REQUIRED")),
        ("127.0.0.1", mode(db, "PREFERRED")),
        ("127.0.0.1", format!("{}&ssl-ca={ca}", mode(db, "VERIFY_CA"))),
        ("localhost", format!("{}&ssl-ca={ca}", mode(db, "VERIFY_IDENTITY"))),
    ] {
        succeeds(fast_run_cmd(&ssl_url(db, host, &query), &table));
    }
}

#[test]
fn mysql_tls_runs_use_the_built_in_client() {
    lean_client_in_every_mode(Db::Mysql, "my");
}

#[test]
fn pg_tls_runs_use_the_built_in_client() {
    lean_client_in_every_mode(Db::Postgres, "pg");
}

/// A wrong CA and a wrong host name fail in the built-in client's own handshake (exit 3, one
/// line saying why), not in a refusal to fall back.
fn lean_client_verifies(db: Db, tag: &str) {
    let (ca, wrong) = (test_ca(), test_wrong_ca());
    let table = format!("tls_{tag}_fastv_");
    for m in ["VERIFY_CA", "VERIFY_IDENTITY"] {
        let line = refused(fast_run_cmd(&ssl_url(db, "127.0.0.1", &format!("{}&ssl-ca={wrong}", mode(db, m))), &table), BAD_CERT);
        assert!(!line.contains("FAIRBENCH_WIRE"), "{line}");
    }
    succeeds(fast_run_cmd(&ssl_url(db, "127.1", &format!("{}&ssl-ca={ca}", mode(db, "VERIFY_CA"))), &table));
    let line = refused(fast_run_cmd(&ssl_url(db, "127.1", &format!("{}&ssl-ca={ca}", mode(db, "VERIFY_IDENTITY"))), &table), &["mismatch"]);
    assert!(!line.contains("FAIRBENCH_WIRE"), "{line}");
}

#[test]
fn mysql_built_in_client_checks_ca_and_host() {
    lean_client_verifies(Db::Mysql, "my");
}

#[test]
fn pg_built_in_client_checks_ca_and_host() {
    lean_client_verifies(Db::Postgres, "pg");
}

/// What `fairbench env` (the built-in client) reports about its own session, as the server
/// sees it: MariaDB's `Ssl_cipher`, PostgreSQL's `pg_stat_ssl`.
fn session_connection(url: &str) -> String {
    let mut cmd = fairbench();
    cmd.env("FAIRBENCH_WIRE", "fast").args(["env", "--target", url]);
    let out = run_limited(&mut cmd);
    assert!(out.status.success(), "{}", describe(&cmd, &out));
    let so = stdout(&out);
    let line = so.lines().find(|l| l.trim_start().starts_with("connection:"));
    line.unwrap_or_else(|| panic!("no connection line\n{}", describe(&cmd, &out))).trim().to_string()
}

/// The ordinary account may connect either way: PREFERRED / prefer (also PostgreSQL's
/// default) must encrypt against these servers, which offer TLS; DISABLED must not.
#[test]
fn preferred_sessions_of_the_built_in_client_are_encrypted() {
    let (my, pg) = (mysql_url(), pg_url());
    for url in [format!("{my}?ssl-mode=PREFERRED"), format!("{my}?ssl-mode=REQUIRED"), format!("{pg}?sslmode=prefer"), format!("{pg}?sslmode=allow"), pg.clone()] {
        let c = session_connection(&url);
        assert!(c.starts_with("connection: TLS (") && !c.contains("unknown"), "{url}: {c}");
    }
    for url in [format!("{my}?ssl-mode=DISABLED"), my.clone(), format!("{pg}?sslmode=disable")] {
        let c = session_connection(&url);
        assert_eq!(c, "connection: plain (no TLS)", "{url}");
    }
}

// ---------------------------------------------------------------------------------------
// The built-in client's record layer, against rustls
// ---------------------------------------------------------------------------------------

mod record_layer {
    use super::*;
    use fairbench::db::fast::{tls, ReadBuf, Sock};
    use fairbench::db::url::{SslMode, Target};
    use rustls::crypto::ring::cipher_suite as cs;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use rustls::SupportedCipherSuite;
    use std::io::Write;
    use std::net::TcpListener;
    use std::path::Path;
    use std::sync::Arc;

    /// A TLS server that sends every length-prefixed message back; after the first one it
    /// asks for a key update (TLS 1.3). Returns its port and how many messages it echoed.
    fn echo_server(suite: SupportedCipherSuite) -> (u16, thread::JoinHandle<usize>) {
        let ca = test_ca();
        let dir = Path::new(&ca).parent().unwrap();
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("server.pem")).unwrap().map(Result::unwrap).collect();
        let key = PrivateKeyDer::from_pem_file(dir.join("server.key")).unwrap();
        let provider = rustls::crypto::CryptoProvider { cipher_suites: vec![suite], ..rustls::crypto::ring::default_provider() };
        let cfg = rustls::ServerConfig::builder_with_provider(Arc::new(provider)).with_protocol_versions(&[suite.version()]).unwrap().with_no_client_auth().with_single_cert(certs, key).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let h = thread::spawn(move || {
            let (tcp, _) = listener.accept().unwrap();
            tcp.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
            let mut s = rustls::StreamOwned::new(rustls::ServerConnection::new(Arc::new(cfg)).unwrap(), tcp);
            let mut n = 0;
            loop {
                let mut len = [0u8; 4];
                if s.read_exact(&mut len).is_err() {
                    return n;
                }
                let mut msg = vec![0u8; u32::from_be_bytes(len) as usize];
                s.read_exact(&mut msg).unwrap();
                if n == 0 && s.conn.protocol_version() == Some(rustls::ProtocolVersion::TLSv1_3) {
                    s.conn.refresh_traffic_keys().unwrap();
                }
                s.write_all(&len).unwrap();
                s.write_all(&msg).unwrap();
                s.flush().unwrap();
                n += 1;
            }
        });
        (port, h)
    }

    /// Messages of every size around the record limit, sent and read back through the
    /// built-in client's TLS, verifying the server's certificate and name.
    fn round_trips(suite: SupportedCipherSuite) {
        let (port, server) = echo_server(suite);
        let sizes = [0usize, 1, 200, 16_380, 16_384, 16_385, 40_000, 100_000, 7, 3, 65_536];
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let t = Target::parse(&format!("mysql://u@127.0.0.1:{port}/d?ssl-mode=VERIFY_IDENTITY&ssl-ca={}", test_ca())).unwrap();
            assert_eq!(t.ssl_mode, SslMode::VerifyIdentity);
            let cfg = tls::config(&t).unwrap_or_else(|e| panic!("{}", e.message));
            let mut sock = Sock::tcp("127.0.0.1", port).await.unwrap();
            tls::start(&mut sock, cfg, "127.0.0.1", t.ssl_mode).await.unwrap_or_else(|e| panic!("{:?}: {}", suite.suite(), e.message));
            let mut r = ReadBuf::new();
            for (i, &size) in sizes.iter().enumerate() {
                let mut msg = (size as u32).to_be_bytes().to_vec();
                msg.extend((0..size).map(|k| (k * 31 + i) as u8));
                sock.send(&msg).await.unwrap();
                r.fill(&mut sock, msg.len()).await.unwrap_or_else(|e| panic!("{:?}, message {i} ({size} bytes): {e}", suite.suite()));
                assert!(r.data[r.pos..r.pos + msg.len()] == msg[..], "{:?}: message {i} ({size} bytes) came back changed", suite.suite());
                r.pos += msg.len();
            }
        });
        drop(rt);
        assert_eq!(server.join().unwrap(), sizes.len(), "{:?}", suite.suite());
    }

    #[test]
    fn every_cipher_suite_round_trips() {
        for suite in [
            cs::TLS13_AES_128_GCM_SHA256,
            cs::TLS13_AES_256_GCM_SHA384,
            cs::TLS13_CHACHA20_POLY1305_SHA256,
            cs::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
            cs::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
            cs::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        ] {
            round_trips(suite);
        }
    }
}

// Long runs over TLS 1.2

/// A server of `engine` that offers TLS 1.2 and nothing newer (as MySQL 5.7
/// does), with the test servers' certificate; stopped when dropped.
struct Tls12Server(std::path::PathBuf);

impl Tls12Server {
    fn start(engine: &str) -> (Tls12Server, String) {
        let dir = scratch_dir(&format!("tls12-{engine}"));
        let only12 = if engine == "postgres" { "ssl_max_protocol_version=TLSv1.2" } else { "tls_version=TLSv1.2" };
        let tls = std::path::Path::new(&test_ca()).parent().unwrap().to_path_buf();
        let out = run_ok(fairbench().args(["server", "start", engine, "--set", only12]).arg("--tls-dir").arg(&tls).arg("--dir").arg(dir.join(engine)));
        let url = stdout(&out).trim().to_string();
        let query = if engine == "postgres" { "sslmode=require" } else { "ssl-mode=REQUIRED" };
        (Tls12Server(dir.join(engine)), format!("{url}?{query}"))
    }
}

impl Drop for Tls12Server {
    fn drop(&mut self) {
        let _ = fairbench().arg("server").arg("stop").arg(&self.0).output();
    }
}

/// The `(reconnects, planned_reconnects, ignored_errors)` of a 3-second
/// point-select run over TLS with the record limit lowered to 1,000 records
/// (instead of AES-GCM's 16.7 million), so each connection passes it several times.
fn past_the_record_limit(url: &str, table: &str) -> (u64, u64, u64) {
    let mut cmd = run_cmd(url, table, 3);
    cmd.args(["--threads", "2"]).env("FAIRBENCH_TLS_RECORD_LIMIT", "1000").env("FAIRBENCH_WIRE", "fast");
    let out = run_limited(&mut cmd);
    assert!(out.status.success(), "{}", describe(&cmd, &out));
    let so = stdout(&out);
    let summary = so.lines().find(|l| l.contains("\"type\":\"summary\"")).unwrap_or_else(|| panic!("no summary\n{}", describe(&cmd, &out)));
    assert_eq!(json_field(summary, "status"), Some("\"completed\""), "{}", describe(&cmd, &out));
    let n = |k: &str| json_field(summary, k).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no {k}\n{}", describe(&cmd, &out)));
    assert!(n("transactions") > 4_000, "too few statements to pass the limit several times\n{}", describe(&cmd, &out));
    (n("reconnects"), n("planned_reconnects"), n("ignored_errors"))
}

#[test]
fn a_tls12_connection_renews_its_session_before_the_record_limit_without_an_error() {
    for engine in ["postgres", "mariadb"] {
        let (_server, url) = Tls12Server::start(engine);
        let (reconnects, planned, errors) = past_the_record_limit(&url, "tls12_limit_");
        assert_eq!(errors, 0, "{engine}: errors past the record limit");
        assert!(planned >= 4, "{engine}: {planned} planned reconnects for 2 connections of 2,000 records and more each");
        assert_eq!(reconnects, planned, "{engine}: every reconnect was a planned one");
    }
}

#[test]
fn a_tls13_connection_updates_its_keys_past_the_record_limit_and_stays_connected() {
    for db in [Db::Postgres, Db::Mysql] {
        let (reconnects, planned, errors) = past_the_record_limit(&ssl_url(db, "127.0.0.1", &mode(db, "REQUIRED")), "tls13_limit_");
        assert_eq!((reconnects, planned, errors), (0, 0, 0), "{db:?}: TLS 1.3 updates its keys on the same connection");
    }
}
