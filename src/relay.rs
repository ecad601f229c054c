//! Standard output through a relay thread when it is a pipe.
//!
//! `fairbench run ... | head` closes the pipe while the run goes on: the
//! next `println!` would panic and the run, already measured, would be lost
//! unsaved. Commands that measure keep writing into a pipe of their own; a
//! thread copies it to the real output and, once the reader is gone, drains
//! and drops the rest, so the command ends normally and stores its record.

use std::sync::mpsc;
use std::time::Duration;

/// The relay of one process; `finish` before exiting.
pub struct Relay {
    done: mpsc::Receiver<()>,
}

fn is_pipe(fd: i32) -> bool {
    // SAFETY: fstat writes into the zeroed struct we own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstat(fd, &mut st) } == 0) && matches!(st.st_mode & libc::S_IFMT, libc::S_IFIFO | libc::S_IFSOCK)
}

/// Puts the relay between fd 1 and the pipe it was, if it was a pipe.
pub fn install() -> Option<Relay> {
    if !is_pipe(1) {
        return None;
    }
    let mut fds = [0i32; 2];
    // SAFETY: plain descriptor calls on descriptors this function owns; fd 1
    // is replaced before any other thread of ours writes to it.
    let out = unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return None;
        }
        let out = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if out < 0 || libc::dup2(fds[1], 1) < 0 {
            libc::close(fds[0]);
            libc::close(fds[1]);
            if out >= 0 {
                libc::close(out);
            }
            return None;
        }
        libc::close(fds[1]);
        out
    };
    let (tx, done) = mpsc::channel();
    let read = fds[0];
    std::thread::spawn(move || {
        copy(read, out);
        // SAFETY: both descriptors belong to this thread alone now.
        unsafe {
            libc::close(read);
            libc::close(out);
        }
        let _ = tx.send(());
    });
    Some(Relay { done })
}

/// Copies `from` to `to` until end of file; after the first failed write
/// (the reader went away) the rest is read and dropped.
fn copy(from: i32, to: i32) {
    let mut buf = vec![0u8; 64 << 10];
    let mut open = true;
    loop {
        // SAFETY: reads into our own buffer, within its length.
        let n = unsafe { libc::read(from, buf.as_mut_ptr().cast(), buf.len()) };
        if n == 0 {
            return;
        }
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        let mut at = 0usize;
        while open && at < n as usize {
            // SAFETY: writes from our own buffer, within what was read.
            let w = unsafe { libc::write(to, buf[at..].as_ptr().cast(), n as usize - at) };
            if w < 0 {
                if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                    open = false;
                }
                continue;
            }
            at += w as usize;
        }
    }
}

impl Relay {
    /// Flushes what was printed and waits (at most a second: a child that
    /// inherited fd 1 may hold the pipe open) until the relay has passed it on.
    pub fn finish(self) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        // SAFETY: closes our end of the relay pipe by pointing fd 1 at /dev/null.
        unsafe {
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if null >= 0 {
                libc::dup2(null, 1);
                libc::close(null);
            } else {
                libc::close(1);
            }
        }
        let _ = self.done.recv_timeout(Duration::from_secs(1));
    }
}
