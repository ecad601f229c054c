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
//! what the drivers do (see [`Choice`]), TLS included (see [`tls`]);
//! authentication methods they do not speak and `FAIRBENCH_WIRE=driver`
//! fall back to the drivers.

pub mod my;
pub mod pg;
mod scram;
pub mod tls;

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
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
pub fn refused() -> crate::db::DbError {
    crate::db::DbError {
        kind: crate::db::ErrKind::Connect,
        code: String::new(),
        message: "FAIRBENCH_WIRE=fast: the built-in wire client cannot serve this target (an authentication method it does not speak)".into(),
    }
}

/// A statement's I/O failed: the connection is lost (`code` is the
/// client's error code for it), unless a blocking wait gave up because
/// the run stopped.
fn lost(e: io::Error, code: &str) -> crate::db::DbError {
    use crate::db::{DbError, ErrKind};
    if e.kind() == io::ErrorKind::Interrupted {
        return DbError { kind: ErrKind::Stopped, code: String::new(), message: e.to_string() };
    }
    DbError { kind: ErrKind::ConnectionLost, code: code.into(), message: format!("connection lost: {e}") }
}

/// Result of trying the fast path: use it, or let the driver connect.
pub enum Choice<T> {
    Fast(T),
    /// The server wants something the fast path does not speak (an
    /// authentication method): the driver connects instead.
    Fallback,
}

/// A connection's socket, watched by the runtime for readability only.
///
/// Registering for both directions (what tokio's streams do) costs a
/// wake-up per statement on Unix sockets: every time the server reads a
/// request, the kernel signals the client that write space came back, the
/// worker thread leaves `epoll_wait` for an event nobody waits for and goes
/// back to sleep — about 0.4 extra context switches per point select,
/// measured. Statements almost never fill the send buffer, so writes go
/// straight to the socket and only a write that would block waits, on a
/// duplicate descriptor registered for writability just for that wait.
pub struct Sock {
    fd: AsyncFd<Stream>,
    /// The record layer once TLS is on: `send` seals, `read_into` opens.
    tls: Option<Box<tls::Tls>>,
    /// Set when this connection's client has a thread of its own: waits
    /// block the thread in recv(2)/send(2) instead of suspending (see
    /// [`Blocking`]).
    block: Option<Blocking>,
}

/// Waiting on the socket by blocking the thread, as sysbench does.
///
/// A client alone on its worker thread gains nothing from suspending: no
/// other client shares the thread. Suspending costs a park in the runtime
/// (epoll, timer wheel, waker, task poll) on every statement, and makes a
/// Lua script's call yield its coroutine; blocking costs nothing beyond
/// the recv(2) itself. The socket's timeouts cut the wait into slices so
/// that the run's stop flag is seen within one slice.
#[derive(Clone)]
pub struct Blocking {
    /// The run's stop flags: a wait that finds one set gives up.
    pub stops: Vec<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The process's Ctrl-C/SIGTERM flag.
    pub interrupt: &'static std::sync::atomic::AtomicBool,
}

/// How long one blocking recv or send waits before it looks at the stop
/// flag (the socket's SO_RCVTIMEO and SO_SNDTIMEO).
const BLOCK_SLICE_MS: i32 = 100;

impl Blocking {
    /// An `Interrupted` error once the run stopped.
    fn check(&self) -> io::Result<()> {
        if self.interrupt.load(std::sync::atomic::Ordering::Relaxed) || self.stops.iter().any(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "the run stopped while waiting for the server"));
        }
        Ok(())
    }
}

enum Stream {
    Tcp(std::net::TcpStream),
    Unix(std::os::unix::net::UnixStream),
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
        }
    }
}

impl Sock {
    /// A TLS 1.2 session near its record limit (see [`tls::Tls::spent`]).
    pub fn spent(&self) -> bool {
        self.tls.as_ref().is_some_and(|t| t.spent())
    }

    pub async fn tcp(host: &str, port: u16) -> io::Result<Sock> {
        let s = TcpStream::connect((host, port)).await?;
        // Every statement is one small write answered by the server: Nagle
        // would hold it for the previous ACK.
        s.set_nodelay(true)?;
        Sock::watch(Stream::Tcp(s.into_std()?))
    }

    pub async fn unix(path: &str) -> io::Result<Sock> {
        Sock::watch(Stream::Unix(UnixStream::connect(path).await?.into_std()?))
    }

    /// The connected stream (non-blocking, as `into_std` leaves it), handed
    /// to the runtime's poller for reads.
    fn watch(s: Stream) -> io::Result<Sock> {
        // SAFETY: the stream owns its descriptor and keeps it open, and the
        // same, for as long as the AsyncFd owns the stream.
        Ok(Sock { fd: unsafe { AsyncFd::register_with_interest(s, Interest::READABLE) }.map_err(io::Error::from)?, tls: None, block: None })
    }

    /// From now on, wait for the server by blocking the thread (`Some`) or
    /// by suspending in the runtime (`None`).
    ///
    /// A blocking client's socket is put in blocking mode with a receive
    /// timeout of one slice: a read then waits inside recv(2), one system
    /// call, where a non-blocking socket needs a recv that finds nothing,
    /// a poll and a second recv. The runtime never waits on it meanwhile.
    ///
    /// If the socket refuses, it is left non-blocking and suspending, and
    /// the error says why.
    pub fn set_blocking(&mut self, b: Option<Blocking>) -> io::Result<()> {
        let fd = self.fd.get_ref().as_raw_fd();
        self.block = None;
        if let Err(e) = socket_blocks(fd, b.is_some()) {
            let _ = socket_blocks(fd, false);
            return Err(e);
        }
        self.block = b;
        Ok(())
    }

    /// The server's address (TCP only).
    fn peer_ip(&self) -> Option<std::net::IpAddr> {
        match self.fd.get_ref() {
            Stream::Tcp(s) => s.peer_addr().ok().map(|a| a.ip()),
            Stream::Unix(_) => None,
        }
    }

    /// Write all of `buf` (sealed into TLS records when TLS is on).
    pub async fn send(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.tls {
            None => write_all(&self.fd, buf, self.block.as_ref()).await,
            Some(t) => write_all(&self.fd, t.seal(buf)?, self.block.as_ref()).await,
        }
    }

    /// Writes what the socket takes of `buf` without a future (all of a
    /// statement, as a rule; a blocking socket may wait one slice for
    /// room) and says how much that was; the rest goes
    /// through [`Self::send`]. With TLS on it writes nothing: the record
    /// layer seals through [`Self::send`].
    pub fn send_now(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.tls.is_some() {
            return Ok(0);
        }
        let fd = self.fd.get_ref().as_raw_fd();
        try_write(|b| send_raw(fd, b), buf)
    }

    /// Write `buf` as it is, bypassing TLS (the TLS handshake's own records).
    async fn send_plain(&mut self, buf: &[u8]) -> io::Result<()> {
        write_all(&self.fd, buf, self.block.as_ref()).await
    }

    /// Read what the socket has into the spare capacity of `buf`, opened
    /// when TLS is on; 0 is end of stream.
    async fn read_into(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        let Some(t) = &mut self.tls else { return recv_into(&self.fd, buf, self.block.as_ref()).await };
        loop {
            let n = t.open(buf)?;
            if n > 0 || t.closed() {
                return Ok(n);
            }
            if recv_into(&self.fd, t.cipher_room(), self.block.as_ref()).await? == 0 {
                return Ok(0);
            }
        }
    }

    /// Read ciphertext as it is (the TLS handshake).
    async fn recv_plain(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        recv_into(&self.fd, buf, self.block.as_ref()).await
    }
}

/// Puts `fd` in blocking mode with one slice's timeouts, or back in
/// non-blocking mode without timeouts.
fn socket_blocks(fd: RawFd, blocking: bool) -> io::Result<()> {
    let slice = libc::timeval { tv_sec: 0, tv_usec: if blocking { BLOCK_SLICE_MS as libc::suseconds_t * 1000 } else { 0 } };
    // SAFETY: plain fcntl/setsockopt calls on a descriptor the caller owns,
    // with a valid timeval for the call's duration.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        let flags = if blocking { flags & !libc::O_NONBLOCK } else { flags | libc::O_NONBLOCK };
        if libc::fcntl(fd, libc::F_SETFL, flags) < 0 {
            return Err(io::Error::last_os_error());
        }
        for opt in [libc::SO_RCVTIMEO, libc::SO_SNDTIMEO] {
            if libc::setsockopt(fd, libc::SOL_SOCKET, opt, &slice as *const libc::timeval as *const libc::c_void, std::mem::size_of::<libc::timeval>() as libc::socklen_t) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Write all of `buf`: straight to the socket when the kernel takes it
/// (always, for statements), through the poller only when it is full.
async fn write_all(afd: &AsyncFd<Stream>, buf: &[u8], block: Option<&Blocking>) -> io::Result<()> {
    let fd = afd.get_ref().as_raw_fd();
    let mut n = try_write(|b| send_raw(fd, b), buf)?;
    if n == buf.len() {
        return Ok(());
    }
    if let Some(b) = block {
        // A blocking socket waits inside send(2), one slice at a time.
        while n < buf.len() {
            b.check()?;
            n += try_write(|b| send_raw(fd, b), &buf[n..])?;
        }
        return Ok(());
    }
    // The send buffer is full (bulk loads): wait for room on a
    // duplicate registered for writability, dropped once all is out.
    // SAFETY: the OwnedFd keeps the duplicate open until `dup` drops.
    let dup = unsafe { AsyncFd::register_with_interest(afd.get_ref().as_fd_dup()?, Interest::WRITABLE) }.map_err(io::Error::from)?;
    while n < buf.len() {
        let mut ready = dup.writable().await?;
        if let Ok(r) = ready.try_io(|_| send_raw(fd, &buf[n..])) {
            n += r?;
        }
    }
    Ok(())
}

/// Read what the socket has into the spare capacity of `buf`; 0 is end of
/// stream.
async fn recv_into(afd: &AsyncFd<Stream>, buf: &mut Vec<u8>, block: Option<&Blocking>) -> io::Result<usize> {
    if let Some(b) = block {
        return recv_blocking(afd.get_ref().as_raw_fd(), buf, b, matches!(afd.get_ref(), Stream::Unix(_)));
    }
    loop {
        let mut ready = afd.readable().await?;
        let len = buf.capacity() - buf.len();
        let got = ready.try_io(|s| recv_spare(s.get_ref().as_raw_fd(), buf));
        if let Ok(r) = got {
            let k = r?;
            if k < len {
                // The socket is drained. The runtime would otherwise
                // keep it marked readable until a recv fails, and the
                // next statement would pay one recv that finds nothing
                // (EAGAIN) before waiting. Clearing is safe: data that
                // came in after this recv is a newer event that the
                // clear does not erase.
                ready.clear_ready();
            }
            return Ok(k);
        }
    }
}

/// [`recv_into`] for a client that blocks: recv(2) waits on the blocking
/// socket, one slice at a time (its receive timeout), until data comes or
/// the run stops.
///
/// On a Unix socket the wait is a poll(2) for input first: a reader asleep
/// in recv(2) there is woken whenever the server reads the client's last
/// request and frees its send buffer (the socket has one wait queue for
/// both directions), then sleeps again: 1.6-1.9 voluntary context switches
/// per point select on MariaDB's socket, against 1.0 for sysbench's
/// client, which polls for input. poll(2) wakes only for input. A recv(2)
/// that does not wait before the poll, as libmariadb's, finds the answer
/// almost never there (MariaDB's socket, 16 clients: 2.0 recv and 1.0 poll
/// per point select, against 1.0 and 1.0 here): one system call more.
fn recv_blocking(fd: RawFd, buf: &mut Vec<u8>, b: &Blocking, unix: bool) -> io::Result<usize> {
    loop {
        if unix && !readable_within(fd, BLOCK_SLICE_MS)? {
            b.check()?;
            continue;
        }
        match recv_spare(fd, buf) {
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => b.check()?,
            r => return r,
        }
    }
}

/// Waits up to `ms` for `fd` to have input (or to be closed or failed,
/// which the next recv reports); false when the time ran out or a signal
/// came first.
fn readable_within(fd: RawFd, ms: i32) -> io::Result<bool> {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd for the call's duration.
    match unsafe { libc::poll(&mut p, 1, ms) } {
        n if n > 0 => Ok(true),
        0 => Ok(false),
        _ => match io::Error::last_os_error() {
            e if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            e => Err(e),
        },
    }
}

/// One `recv(2)` into the spare capacity of `buf`, whose length grows by
/// what came: it never waits on a non-blocking socket, and waits at most
/// one slice on a blocking one.
fn recv_spare(fd: RawFd, buf: &mut Vec<u8>) -> io::Result<usize> {
    let spare = buf.spare_capacity_mut();
    // SAFETY: the vector's allocated, unused capacity; recv writes at most
    // its length there.
    let r = unsafe { libc::recv(fd, spare.as_mut_ptr() as *mut libc::c_void, spare.len(), 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: recv initialised the first `r` spare bytes.
    unsafe { buf.set_len(buf.len() + r as usize) };
    Ok(r as usize)
}

impl Stream {
    fn as_fd_dup(&self) -> io::Result<OwnedFd> {
        let fd = match self {
            Stream::Tcp(s) => s.as_fd(),
            Stream::Unix(s) => s.as_fd(),
        };
        fd.try_clone_to_owned()
    }
}

/// One `send(2)`; MSG_NOSIGNAL turns a closed peer into EPIPE, not SIGPIPE.
fn send_raw(fd: RawFd, b: &[u8]) -> io::Result<usize> {
    // SAFETY: `b` is a valid slice for the length given.
    let r = unsafe { libc::send(fd, b.as_ptr() as *const libc::c_void, b.len(), libc::MSG_NOSIGNAL) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// Writes as much of `buf` as the socket takes without waiting (a
/// blocking socket: until its timeout or a signal); returns how much that
/// was. The caller decides whether to go on: a signal may be the stop.
fn try_write(mut write: impl FnMut(&[u8]) -> io::Result<usize>, buf: &[u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match write(&buf[n..]) {
            Ok(k) => n += k,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => break,
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

    /// How many bytes are buffered and not consumed yet.
    pub fn unread(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Make sure `n` unread bytes are buffered.
    pub async fn fill(&mut self, sock: &mut Sock, n: usize) -> io::Result<()> {
        while self.unread() < n {
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
