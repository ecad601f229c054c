//! A small read-only HTTP/1.1 server for the live view, the metrics endpoint
//! and `results serve`: GET only, one OS thread per connection (a handful
//! of viewers), nothing shared with the benchmark's clients. The reporter
//! publishes into [`super::page::Live`] at interval boundaries; this side
//! only reads it.

use crate::error::{Error, Result};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// What a handler answers.
pub enum Reply {
    Page {
        status: u16,
        content_type: &'static str,
        body: Vec<u8>,
    },
    /// Server-sent events: the handler writes to the stream until it ends.
    Stream(Box<dyn FnOnce(&mut TcpStream) + Send>),
}

impl Reply {
    pub fn html(body: String) -> Reply {
        Reply::Page { status: 200, content_type: "text/html; charset=utf-8", body: body.into_bytes() }
    }
    pub fn not_found() -> Reply {
        Reply::Page { status: 404, content_type: "text/plain; charset=utf-8", body: b"not found\n".to_vec() }
    }
}

/// A request's path and its query parameters.
pub struct Request {
    pub path: String,
    pub query: Vec<(String, String)>,
    /// The Accept header (empty when none): a scraper asks for OpenMetrics there.
    pub accept: String,
}

impl Request {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Binds `addr` now (so a taken port is an error before anything runs) and
/// serves in the background for the rest of the process.
pub fn serve(opt: &str, addr: SocketAddr, handler: Arc<dyn Fn(&Request) -> Reply + Send + Sync>) -> Result<SocketAddr> {
    let l = TcpListener::bind(addr).map_err(|e| Error::Usage(format!("--{opt}={addr}: cannot listen there ({e}): choose another port")))?;
    let bound = l.local_addr().map_err(|e| Error::Io(e.to_string()))?;
    std::thread::Builder::new()
        .name("http".into())
        .spawn(move || {
            for s in l.incoming().flatten() {
                let h = handler.clone();
                let _ = std::thread::Builder::new().name("http-conn".into()).spawn(move || connection(s, h.as_ref()));
            }
        })
        .map_err(|e| Error::Io(format!("cannot start the HTTP thread: {e}")))?;
    Ok(bound)
}

fn connection(mut s: TcpStream, handler: &(dyn Fn(&Request) -> Reply + Send + Sync)) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(clone) = s.try_clone() else { return };
    let mut r = BufReader::new(clone);
    let mut line = String::new();
    if r.read_line(&mut line).is_err() {
        return;
    }
    // Of the headers only Accept matters (the metrics' format).
    let mut accept = String::new();
    loop {
        let mut h = String::new();
        match r.read_line(&mut h) {
            Ok(0) | Err(_) => break,
            Ok(_) if h == "\r\n" || h == "\n" => break,
            Ok(_) => {
                if let Some((k, v)) = h.split_once(':') {
                    if k.trim().eq_ignore_ascii_case("accept") {
                        accept = v.trim().to_string();
                    }
                }
            }
        }
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" && method != "HEAD" {
        let _ = write_page(&mut s, 405, "text/plain; charset=utf-8", b"read-only: GET only\n", method == "HEAD");
        return;
    }
    let (path, q) = target.split_once('?').unwrap_or((target, ""));
    let query = q.split('&').filter(|p| !p.is_empty()).map(|p| p.split_once('=').unwrap_or((p, ""))).map(|(k, v)| (decode(k), decode(v))).collect();
    let req = Request { path: decode(path), query, accept };
    match handler(&req) {
        Reply::Page { status, content_type, body } => {
            let _ = write_page(&mut s, status, content_type, &body, method == "HEAD");
        }
        Reply::Stream(f) => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
            if s.write_all(head.as_bytes()).is_ok() {
                f(&mut s);
            }
        }
    }
}

fn write_page(s: &mut TcpStream, status: u16, content_type: &str, body: &[u8], head_only: bool) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())?;
    if !head_only {
        s.write_all(body)?;
    }
    s.flush()
}

/// Percent-decoding of a path or query part (`+` as space).
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parts_are_decoded() {
        assert_eq!(decode("1%2C2"), "1,2");
        assert_eq!(decode("a+b"), "a b");
        assert_eq!(decode("50%"), "50%");
        assert_eq!(decode("%zz"), "%zz");
    }
}
