//! The kit's end of one output pipe: nonblocking reads into a capped capture.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};

use super::Captured;

impl Captured {
    /// Counts every byte of `chunk` and keeps those that fit under `cap`. The buffer
    /// grows at most to `cap`, so a tool printing gigabytes costs `cap` bytes.
    fn keep(&mut self, chunk: &[u8], cap: usize) {
        self.total_bytes += chunk.len() as u64;
        let len = self.bytes.len();
        let room = cap.saturating_sub(len);
        let kept = &chunk[..chunk.len().min(room)];
        if self.bytes.capacity() - len < kept.len() {
            // Double as Vec would, but never past the cap.
            let target = (len * 2).min(cap).max(len + kept.len());
            self.bytes.reserve_exact(target - len);
        }
        self.bytes.extend_from_slice(kept);
        self.truncated = self.total_bytes > self.bytes.len() as u64;
    }
}

/// One of the tool's output pipes as the kit reads it.
pub(super) struct Pipe {
    /// `None` once EOF was read, or the pipe was abandoned.
    fd: Option<OwnedFd>,
    cap: usize,
    pub(super) captured: Captured,
}

impl Pipe {
    pub(super) fn new(fd: Option<OwnedFd>, cap: usize) -> Pipe {
        if let Some(fd) = &fd {
            // A read after poll reported the pipe readable does not block anyway (the
            // kit is its only reader); nonblocking makes that hold even after a
            // spurious wakeup. If it cannot be set, the poll guard still holds.
            if let Ok(flags) = fcntl(fd, FcntlArg::F_GETFL) {
                let flags = OFlag::from_bits_truncate(flags) | OFlag::O_NONBLOCK;
                let _ = fcntl(fd, FcntlArg::F_SETFL(flags));
            }
        }
        Pipe {
            fd,
            cap,
            captured: Captured::default(),
        }
    }

    pub(super) fn is_open(&self) -> bool {
        self.fd.is_some()
    }

    pub(super) fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.fd.as_ref().map(AsFd::as_fd)
    }

    /// One read into `buf`; returns how many bytes arrived (already counted and
    /// captured). EOF, or any error other than "try again", closes the pipe, so a
    /// broken fd can never make the loop spin.
    pub(super) fn read_into(&mut self, buf: &mut [u8]) -> usize {
        let Some(fd) = &self.fd else {
            return 0;
        };
        match nix::unistd::read(fd, buf) {
            Ok(0) => {
                self.fd = None;
                0
            }
            Ok(n) => {
                let chunk = &buf[..n];
                self.captured.keep(chunk, self.cap);
                n
            }
            Err(Errno::EAGAIN | Errno::EINTR) => 0,
            Err(_) => {
                self.fd = None;
                0
            }
        }
    }

    /// The pipe's inode, while the kit still has its end open.
    pub(super) fn inode(&self) -> Option<u64> {
        self.fd().and_then(super::holders::pipe_inode)
    }

    /// Reads what is already there, up to EOF or until a read would block: a kit
    /// slowed by load may reach a grace's end before it has read an EOF that was
    /// already waiting. Returns whether the pipe is now closed.
    pub(super) fn drain(&mut self) -> bool {
        let mut buf = vec![0u8; 64 * 1024];
        while self.is_open() && self.read_into(&mut buf) > 0 {}
        !self.is_open()
    }

    /// Stops reading: closing our end leaves whoever still holds the write end
    /// writing into a pipe nobody reads (they get SIGPIPE/EPIPE), not the kit waiting.
    pub(super) fn abandon(&mut self) {
        self.fd = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_up_to_the_cap_and_counts_the_rest() {
        let mut captured = Captured::default();
        captured.keep(b"hello ", 8);
        assert!(!captured.truncated);
        captured.keep(b"world", 8);
        assert_eq!(captured.bytes, b"hello wo");
        assert_eq!(captured.total_bytes, 11);
        assert!(captured.truncated);
        captured.keep(&[0u8; 1000], 8);
        assert_eq!(captured.bytes.len(), 8);
        assert!(captured.bytes.capacity() <= 8);
        assert_eq!(captured.total_bytes, 1011);
    }

    #[test]
    fn a_zero_cap_keeps_nothing() {
        let mut captured = Captured::default();
        captured.keep(b"x", 0);
        assert!(captured.bytes.is_empty());
        assert_eq!(captured.total_bytes, 1);
        assert!(captured.truncated);
    }
}
