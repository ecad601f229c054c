//! Prometheus' text exposition format, as servers and exporters publish it
//! on `/metrics`: fetched with one plain HTTP/1.1 GET (no proxy, no TLS:
//! these endpoints are on the server's own network) and parsed into
//! samples. Anything a line does not say clearly is skipped, never guessed.
//! A status API's JSON (Go's expvar `/debug/vars`) is fetched the same way.

use std::collections::BTreeMap;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One sample line: `name{label="v",...} value [timestamp]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

impl Sample {
    pub fn label(&self, k: &str) -> Option<&str> {
        self.labels.get(k).map(String::as_str)
    }
}

/// The samples of an exposition text; comments, blank lines and lines that
/// do not parse are left out.
pub fn parse(text: &str) -> Vec<Sample> {
    text.lines().filter_map(|l| sample(l.trim())).collect()
}

fn sample(line: &str) -> Option<Sample> {
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let name_end = line.find(|c: char| c == '{' || c.is_ascii_whitespace())?;
    let name = &line[..name_end];
    let mut labels = BTreeMap::new();
    let mut rest = &line[name_end..];
    if let Some(inner) = rest.strip_prefix('{') {
        let (parsed, after) = label_set(inner)?;
        labels = parsed;
        rest = after;
    }
    let value = rest.split_ascii_whitespace().next()?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().ok()?,
    };
    Some(Sample { name: name.to_string(), labels, value })
}

/// `k="v",k2="v2"}` up to and including the closing brace; values may hold
/// escaped quotes, backslashes and newlines.
fn label_set(mut s: &str) -> Option<(BTreeMap<String, String>, &str)> {
    let mut out = BTreeMap::new();
    loop {
        s = s.trim_start_matches([' ', ',']);
        if let Some(after) = s.strip_prefix('}') {
            return Some((out, after));
        }
        let eq = s.find('=')?;
        let key = s[..eq].trim().to_string();
        let quoted = s[eq + 1..].trim_start();
        let start = s.len() - quoted.len();
        let mut chars = quoted.char_indices();
        if chars.next()?.1 != '"' {
            return None;
        }
        let mut value = String::new();
        let mut escaped = false;
        let mut end = None;
        for (i, c) in chars {
            if escaped {
                value.push(if c == 'n' { '\n' } else { c });
                escaped = false;
                continue;
            }
            match c {
                '\\' => escaped = true,
                '"' => {
                    end = Some(i);
                    break;
                }
                c => value.push(c),
            }
        }
        out.insert(key, value);
        s = &s[start + end? + 1..];
    }
}

/// The sum of every sample named `name` whose labels include all of `with`.
pub fn sum(samples: &[Sample], name: &str, with: &[(&str, &str)]) -> Option<f64> {
    let mut found = None;
    for s in samples.iter().filter(|s| s.name == name && with.iter().all(|(k, v)| s.label(k) == Some(*v))) {
        *found.get_or_insert(0.0) += s.value;
    }
    found
}

/// `http://host:port/path` as (host:port, /path); the path is /metrics when the URL has none.
fn split_url(url: &str) -> (&str, String) {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    match rest.split_once('/') {
        Some((addr, path)) => (addr, format!("/{path}")),
        None => (rest, "/metrics".to_string()),
    }
}

/// GETs `url` (`http://host:port[/path]`) and returns the body; `limit`
/// bounds the whole exchange.
pub async fn fetch(url: &str, limit: Duration) -> Result<String, String> {
    let (addr, path) = split_url(url);
    let get = async {
        let mut s = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("cannot connect to {addr}: {e}"))?;
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/plain;version=0.0.4\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.map_err(|e| format!("{addr}: {e}"))?;
        let mut body = Vec::new();
        s.read_to_end(&mut body).await.map_err(|e| format!("{addr}: {e}"))?;
        response_body(&body).map_err(|e| format!("http://{addr}{path}: {e}"))
    };
    match tokio::time::timeout(limit, get).await {
        Ok(r) => r,
        Err(_) => Err(format!("http://{addr}{path} did not answer within {:.1} s", limit.as_secs_f64())),
    }
}

/// GETs `url` and reads its body as JSON (a status API's `/debug/vars`).
pub async fn fetch_json(url: &str, limit: Duration) -> Result<serde_json::Value, String> {
    let body = fetch(url, limit).await?;
    serde_json::from_str(&body).map_err(|e| format!("{url} did not answer JSON: {e}"))
}

/// The body of an HTTP/1.x response (plain or chunked) with status 200.
fn response_body(raw: &[u8]) -> Result<String, String> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or("no complete HTTP response")?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let status = head.lines().next().unwrap_or("");
    if status.split_ascii_whitespace().nth(1) != Some("200") {
        return Err(format!("answered {status:?}"));
    }
    let body = &raw[split + 4..];
    let chunked = head.lines().any(|l| l.to_ascii_lowercase().starts_with("transfer-encoding:") && l.to_ascii_lowercase().contains("chunked"));
    let bytes = if chunked { dechunk(body).ok_or("a malformed chunked body")? } else { body.to_vec() };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A chunked body's data; None when a chunk is cut short or its size is not hex.
pub(crate) fn dechunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&b[..eol]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        b = &b[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(b.get(..size)?);
        b = b.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_bodies_are_joined_and_a_short_one_refused() {
        assert_eq!(dechunk(b"4\r\nWiki\r\n5;x=1\r\npedia\r\n0\r\n\r\n").as_deref(), Some(&b"Wikipedia"[..]));
        assert_eq!(dechunk(b"9\r\nWiki"), None);
    }

    #[test]
    fn samples_with_labels_escapes_and_special_values() {
        let text = "# HELP x y\n# TYPE server_query_total counter\n\
            server_query_total{result=\"OK\",type=\"Query\"} 12\n\
            server_query_total{result=\"Error\",type=\"Query\"} 3 1700000000000\n\
            odd{path=\"a\\\"b\\\\c\\n\"} 1.5e3\n\
            go_goroutines 42\n\
            h_bucket{le=\"+Inf\"} +Inf\n\
            broken{x=\"1\" 5\n";
        let s = parse(text);
        assert_eq!(s.len(), 5);
        assert_eq!(sum(&s, "server_query_total", &[]), Some(15.0));
        assert_eq!(sum(&s, "server_query_total", &[("result", "OK")]), Some(12.0));
        assert_eq!(s[2].label("path"), Some("a\"b\\c\n"));
        assert_eq!(s[2].value, 1500.0);
        assert_eq!(sum(&s, "go_goroutines", &[]), Some(42.0));
        assert_eq!(s[4].value, f64::INFINITY);
        assert_eq!(sum(&s, "missing", &[]), None);
    }

    #[test]
    fn urls_split_into_address_and_path() {
        assert_eq!(split_url("http://db:9100/metrics"), ("db:9100", "/metrics".to_string()));
        assert_eq!(split_url("http://127.0.0.1:10080"), ("127.0.0.1:10080", "/metrics".to_string()));
        assert_eq!(split_url("http://h:1/a/b"), ("h:1", "/a/b".to_string()));
    }

    #[test]
    fn chunked_and_plain_bodies() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\na 1\n";
        assert_eq!(response_body(plain).unwrap(), "a 1\n");
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\na 1\n\r\n4\r\nb 2\n\r\n0\r\n\r\n";
        assert_eq!(response_body(chunked).unwrap(), "a 1\nb 2\n");
        assert!(response_body(b"HTTP/1.1 404 Not Found\r\n\r\n").unwrap_err().contains("404"));
    }
}
