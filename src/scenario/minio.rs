//! A local S3 endpoint for MariaDB's S3 engine: a MinIO server started the
//! sandbox way (its own directory and loopback port, its own process group,
//! removed afterwards) from a binary the user built from the Go module proxy.
//!
//! It is no sandbox kind (`server::SandboxKind`): it lives exactly as long
//! as the scenario's [`Endpoint`] (stopped when dropped), in the scenario's
//! work directory, with no registry entry, state file, profile, settings
//! or `server stop`, and the scenario needs its bucket and keys, which a
//! sandbox's URL cannot carry.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant, SystemTime};

pub const ACCESS_KEY: &str = "fairbench";
pub const SECRET_KEY: &str = "fairbench-secret";
pub const BUCKET: &str = "fairbench";
pub const REGION: &str = "us-east-1";

/// Where the binary is looked for: $FAIRBENCH_MINIO, PATH, then the cache
/// the test command builds it into.
pub fn find() -> std::result::Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("FAIRBENCH_MINIO").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() { Ok(p) } else { Err(format!("FAIRBENCH_MINIO={} is not a file", p.display())) };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.push(cache_dir());
    dirs.iter().map(|d| d.join("minio")).find(|p| p.is_file()).ok_or_else(|| {
        format!("no S3 endpoint: the minio binary is not installed (build it with `GOBIN={} go install github.com/minio/minio@<version>`, or set FAIRBENCH_MINIO)", cache_dir().display())
    })
}

/// Where fairbench's built programs live (`~/.cache/fairbench/bin`).
pub fn cache_dir() -> PathBuf {
    crate::server::cache_bin_dir()
}

/// A running endpoint; stopped and its directory removed when dropped.
pub struct Endpoint {
    child: Child,
    pub port: u16,
    pub dir: PathBuf,
}

impl Endpoint {
    /// The directory holding a table's objects: BUCKET/DATABASE/TABLE.
    pub fn table_dir(&self, database: &str, table: &str) -> PathBuf {
        self.dir.join("data").join(BUCKET).join(database).join(table)
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let end = Instant::now() + if crate::model::interrupted() { Duration::from_millis(300) } else { Duration::from_secs(5) };
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn free_port(from: u16) -> Option<u16> {
    (from..from.saturating_add(200)).find(|p| std::net::TcpListener::bind(("127.0.0.1", *p)).is_ok())
}

/// Starts MinIO on loopback in `dir` and makes the bucket.
pub fn start(bin: &Path, dir: &Path) -> std::result::Result<Endpoint, String> {
    std::fs::create_dir_all(dir.join("data")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let port = free_port(19000).ok_or("no free port for the S3 endpoint")?;
    let console = free_port(port + 1).ok_or("no free port for the S3 endpoint's console")?;
    let log = std::fs::File::create(dir.join("minio.log")).map_err(|e| e.to_string())?;
    let log2 = log.try_clone().map_err(|e| e.to_string())?;
    // MinIO reads its settings from MINIO_* variables: only the ones set here count.
    let child = crate::server::environ::command(bin)
        .arg("server")
        .arg(dir.join("data"))
        .arg("--address")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--console-address")
        .arg(format!("127.0.0.1:{console}"))
        .arg("--quiet")
        .env("MINIO_ROOT_USER", ACCESS_KEY)
        .env("MINIO_ROOT_PASSWORD", SECRET_KEY)
        // Nothing but loopback: no update checks, no console, no call home.
        .env("MINIO_UPDATE", "off")
        .env("MINIO_BROWSER", "off")
        .env("MINIO_CALLHOME_ENABLE", "off")
        .env("HOME", dir)
        .process_group(0)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log2))
        .spawn()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let mut ep = Endpoint { child, port, dir: dir.to_path_buf() };
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok((200, _)) = http(port, "GET", "/minio/health/live", false) {
            break;
        }
        if crate::model::interrupted() {
            return Err("interrupted".into());
        }
        if let Ok(Some(st)) = ep.child.try_wait() {
            let log = std::fs::read_to_string(dir.join("minio.log")).unwrap_or_default();
            return Err(format!("minio exited ({st}): {}", log.lines().last().unwrap_or("").trim()));
        }
        if Instant::now() > end {
            return Err("minio did not answer within 60 s".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // "Live" comes before "initialized": 503 means not yet.
    loop {
        match http(port, "PUT", &format!("/{BUCKET}"), true) {
            Ok((200, _)) => return Ok(ep),
            Ok((503, _)) if Instant::now() < end && !crate::model::interrupted() => std::thread::sleep(Duration::from_millis(200)),
            Ok((code, body)) => return Err(format!("creating the bucket: HTTP {code} {}", body.chars().take(200).collect::<String>())),
            Err(e) => return Err(format!("creating the bucket: {e}")),
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut m = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key size");
    m.update(data.as_bytes());
    m.finalize().into_bytes().to_vec()
}

/// `20261123T063000Z` for now.
fn amz_date() -> String {
    let r = crate::units::rfc3339(SystemTime::now());
    // 2026-11-23T06:30:00.123Z
    format!("{}{}{}T{}{}{}Z", &r[0..4], &r[5..7], &r[8..10], &r[11..13], &r[14..16], &r[17..19])
}

/// An AWS Signature V4 `Authorization` header for a request without a body.
fn authorization(method: &str, path: &str, host: &str, date: &str, payload_hash: &str) -> String {
    let day = &date[..8];
    let canonical = format!("{method}\n{path}\n\nhost:{host}\nx-amz-content-sha256:{payload_hash}\nx-amz-date:{date}\n\nhost;x-amz-content-sha256;x-amz-date\n{payload_hash}");
    let scope = format!("{day}/{REGION}/s3/aws4_request");
    let to_sign = format!("AWS4-HMAC-SHA256\n{date}\n{scope}\n{}", hex(&Sha256::digest(canonical.as_bytes())));
    let k = hmac(format!("AWS4{SECRET_KEY}").as_bytes(), day);
    let k = hmac(&k, REGION);
    let k = hmac(&k, "s3");
    let k = hmac(&k, "aws4_request");
    format!("AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/{scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={}", hex(&hmac(&k, &to_sign)))
}

/// One HTTP/1.1 request to 127.0.0.1:port; (status, body).
fn http(port: u16, method: &str, path: &str, signed: bool) -> std::result::Result<(u16, String), String> {
    let mut s = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_secs(2)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(10))).map_err(|e| e.to_string())?;
    let host = format!("127.0.0.1:{port}");
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n");
    if signed {
        let date = amz_date();
        let empty = hex(&Sha256::digest(b""));
        req.push_str(&format!("x-amz-date: {date}\r\nx-amz-content-sha256: {empty}\r\nAuthorization: {}\r\n", authorization(method, path, &host, &date, &empty)));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    let mut resp = String::new();
    let _ = s.read_to_string(&mut resp);
    let code = resp.split_whitespace().nth(1).and_then(|c| c.parse().ok()).ok_or_else(|| format!("no HTTP answer: {:?}", resp.chars().take(80).collect::<String>()))?;
    let body = resp.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    Ok((code, body))
}
