//! One blocking HTTP/1.1 GET, over TLS (the system's CAs, the host name checked) for `https://`:
//! what fetching an engine build from a package registry needs, and no more. Redirects are
//! followed (a few); the body comes whole, by its length or in chunks. A read waits at most a
//! second at a time, so Ctrl-C ends a download within about one.

use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a silent server is waited for.
const STALL: Duration = Duration::from_secs(60);

/// The body of `url`, when its status is 200. `what` names it in errors.
pub fn get(url: &str, what: &str) -> Result<Vec<u8>> {
    let mut url = url.to_string();
    for _ in 0..5 {
        match get_once(&url, what)? {
            Answer::Body(b) => return Ok(b),
            Answer::Moved(to) => url = to,
        }
    }
    Err(Error::Io(format!("cannot fetch {what}: more than 5 redirects from {url}")))
}

enum Answer {
    Body(Vec<u8>),
    Moved(String),
}

/// `scheme://host[:port]/path` in parts.
fn split(url: &str) -> Option<(bool, String, u16, String)> {
    let (tls, rest) = match url.split_once("://")? {
        ("https", r) => (true, r),
        ("http", r) => (false, r),
        _ => return None,
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].to_string()),
        None => (rest, "/".to_string()),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h.to_string(), p.parse().ok()?),
        None => (authority.to_string(), if tls { 443 } else { 80 }),
    };
    (!host.is_empty()).then_some((tls, host, port, path))
}

fn get_once(url: &str, what: &str) -> Result<Answer> {
    let fail = |why: String| Error::Io(format!("cannot fetch {what} from {url}: {why}"));
    let (tls, host, port, path) = split(url).ok_or_else(|| fail("not an http:// or https:// address".into()))?;
    let addr = (host.as_str(), port).to_socket_addrs().map_err(|e| fail(e.to_string()))?.next().ok_or_else(|| fail("the host has no address".into()))?;
    let tcp = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).map_err(|e| fail(e.to_string()))?;
    tcp.set_read_timeout(Some(Duration::from_secs(1))).map_err(|e| fail(e.to_string()))?;
    let mut stream: Box<dyn Stream> = if tls {
        let roots = crate::db::fast::tls::roots(None).map_err(|e| fail(e.message))?;
        let cfg = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| fail(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from(host.clone()).map_err(|e| fail(e.to_string()))?;
        let conn = rustls::ClientConnection::new(Arc::new(cfg), name).map_err(|e| fail(e.to_string()))?;
        Box::new(rustls::StreamOwned::new(conn, tcp))
    } else {
        Box::new(tcp)
    };
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: fairbench/{}\r\nAccept: */*\r\nConnection: close\r\n\r\n", crate::VERSION);
    stream.write_all(request.as_bytes()).map_err(|e| fail(e.to_string()))?;
    let raw = read_all(stream.as_mut()).map_err(|e| match e {
        Error::Interrupted => Error::Interrupted,
        e => fail(e.to_string()),
    })?;
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| fail("the answer has no header".into()))?;
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines.next().and_then(|l| l.split_whitespace().nth(1)).and_then(|s| s.parse().ok()).ok_or_else(|| fail("no status line".into()))?;
    let header = |name: &str| head.lines().skip(1).find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_string()));
    if matches!(status, 301 | 302 | 303 | 307 | 308) {
        let to = header("location").ok_or_else(|| fail(format!("status {status} without a Location")))?;
        let to = if to.starts_with('/') { format!("{}://{host}:{port}{to}", if tls { "https" } else { "http" }) } else { to };
        return Ok(Answer::Moved(to));
    }
    if status != 200 {
        return Err(fail(format!("status {status}")));
    }
    let body = &raw[end + 4..];
    let body =
        if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) { crate::scrape::dechunk(body).ok_or_else(|| fail("a chunk is cut short".into()))? } else { body.to_vec() };
    if let Some(n) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        if body.len() != n {
            return Err(fail(format!("{} of its {n} bytes came", body.len())));
        }
    }
    Ok(Answer::Body(body))
}

trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

/// Everything until the server closes, checking for Ctrl-C at each read's timeout.
fn read_all(s: &mut dyn Stream) -> Result<Vec<u8>> {
    let (mut out, mut buf, mut heard) = (Vec::new(), vec![0u8; 64 * 1024], Instant::now());
    loop {
        crate::model::check_interrupt()?;
        match s.read(&mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => {
                out.extend_from_slice(&buf[..n]);
                heard = Instant::now();
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => {
                if heard.elapsed() > STALL {
                    return Err(Error::Io(format!("nothing came for {} s", STALL.as_secs())));
                }
            }
            // A server that closes without TLS's close_notify: what came is judged by its length.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(out),
            Err(e) => return Err(Error::Io(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_split_into_scheme_host_port_and_path() {
        assert_eq!(split("https://registry.npmjs.org/@a/b"), Some((true, "registry.npmjs.org".into(), 443, "/@a/b".into())));
        assert_eq!(split("http://127.0.0.1:8080"), Some((false, "127.0.0.1".into(), 8080, "/".into())));
        assert_eq!(split("ftp://x/y"), None);
        assert_eq!(split("https://:1/"), None);
    }
}
