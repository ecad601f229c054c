//! Lean wire-protocol clients for the hot loop.
//!
//! The general-purpose drivers cost 15-20 µs of client CPU per query (a
//! channel hop to a connection task, per-query allocations, row decoding
//! nobody reads); on a small machine that is CPU the server does not get,
//! so the load generator caps the throughput it measures. These clients
//! speak just enough of each protocol for fairbench's `Conn` API: one
//! reused write buffer and one reused read buffer per connection, one write
//! and one read per statement, no tasks, no channels, no per-query heap.
//!
//! They are chosen at connect time only where they are known to do exactly
//! what the drivers do (see [`Choice`]); TLS, authentication methods they do
//! not speak, and `FAIRBENCH_WIRE=driver` fall back to the drivers.

pub mod my;
pub mod pg;
mod scram;

use std::io;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};

/// Which client a connection uses (`FAIRBENCH_WIRE`): `auto` (the default:
/// the lean client where it can serve the target, else the driver),
/// `driver` (always the driver, for comparison) or `fast` (the lean client
/// or an error, so tests can tell which one ran).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Auto,
    Driver,
    Fast,
}

pub fn wire() -> Wire {
    match std::env::var("FAIRBENCH_WIRE").as_deref() {
        Ok("driver") | Ok("crate") => Wire::Driver,
        Ok("fast") => Wire::Fast,
        _ => Wire::Auto,
    }
}

pub fn enabled() -> bool {
    wire() != Wire::Driver
}

/// The error for FAIRBENCH_WIRE=fast when the driver would have to step in.
pub fn refused() -> crate::target::DbError {
    crate::target::DbError {
        kind: crate::target::ErrKind::Connect,
        code: String::new(),
        message: "FAIRBENCH_WIRE=fast: the built-in wire client cannot serve this target (TLS or an authentication method it does not speak)".into(),
    }
}

/// Result of trying the fast path: use it, or let the driver connect.
pub enum Choice<T> {
    Fast(T),
    /// The server wants something the fast path does not speak (TLS, an
    /// authentication method): the driver connects instead.
    Fallback,
}

pub enum Sock {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Sock {
    pub async fn tcp(host: &str, port: u16) -> io::Result<Sock> {
        let s = TcpStream::connect((host, port)).await?;
        // Every statement is one small write answered by the server: Nagle
        // would hold it for the previous ACK.
        s.set_nodelay(true)?;
        Ok(Sock::Tcp(s))
    }

    pub async fn unix(path: &str) -> io::Result<Sock> {
        Ok(Sock::Unix(UnixStream::connect(path).await?))
    }

    /// Write all of `buf`: straight to the socket when the kernel takes it
    /// (always, for statements), through the poller only when it is full.
    ///
    /// (Dropping the read readiness here would save the EAGAIN `recvfrom`
    /// before each answer, but it would also drop a pending hang-up, and on
    /// a multi-threaded runtime another thread's poll can deliver the
    /// answer's edge in between: a hang either way.)
    pub async fn send(&mut self, buf: &[u8]) -> io::Result<()> {
        let n = match self {
            Sock::Tcp(s) => try_write(|b| s.try_write(b), buf),
            Sock::Unix(s) => try_write(|b| s.try_write(b), buf),
        }?;
        if n == buf.len() {
            return Ok(());
        }
        match self {
            Sock::Tcp(s) => s.write_all(&buf[n..]).await,
            Sock::Unix(s) => s.write_all(&buf[n..]).await,
        }
    }

    async fn read_into(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        match self {
            Sock::Tcp(s) => s.read_buf(buf).await,
            Sock::Unix(s) => s.read_buf(buf).await,
        }
    }
}

/// Writes as much of `buf` as the socket takes without waiting; returns how
/// much that was.
fn try_write(mut write: impl FnMut(&[u8]) -> io::Result<usize>, buf: &[u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match write(&buf[n..]) {
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Incoming bytes; messages are parsed in place and consumed by advancing
/// `pos`, so a steady state allocates nothing.
pub struct ReadBuf {
    pub data: Vec<u8>,
    pub pos: usize,
}

impl ReadBuf {
    pub fn new() -> ReadBuf {
        ReadBuf { data: Vec::with_capacity(16 * 1024), pos: 0 }
    }

    /// Make sure `n` unread bytes are buffered.
    pub async fn fill(&mut self, sock: &mut Sock, n: usize) -> io::Result<()> {
        while self.data.len() - self.pos < n {
            if self.pos > 0 {
                // Keep unread bytes at the front so the buffer never grows
                // past the largest message.
                self.data.drain(..self.pos);
                self.pos = 0;
            }
            let want = n.max(16 * 1024);
            if self.data.capacity() - self.data.len() < want {
                self.data.reserve(want);
            }
            if sock.read_into(&mut self.data).await? == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "server closed the connection"));
            }
        }
        Ok(())
    }
}

impl Default for ReadBuf {
    fn default() -> Self {
        Self::new()
    }
}

pub fn be16(b: &[u8]) -> i16 {
    i16::from_be_bytes([b[0], b[1]])
}

pub fn be32(b: &[u8]) -> i32 {
    i32::from_be_bytes([b[0], b[1], b[2], b[3]])
}
