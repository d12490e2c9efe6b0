//! A black-hole proxy: a local TCP listener that accepts connections and never
//! answers, with the proxy variables that send a tool's HTTP traffic to it.
//!
//! A tool that honours `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY` connects here instead
//! of the network; its request then waits forever (until the run's limit). Whether
//! anything connected tells that the tool went for the network. Nothing is ever
//! forwarded: the listener reads nothing and writes nothing.
//!
//! No thread: the listener is non-blocking, and the kernel completes each handshake
//! and queues the connection whether or not it is accepted yet, so the client's
//! `connect` succeeds at once. [`BlackHole::take_connections`] accepts what is
//! queued and holds it open, until the black hole is dropped.

use std::io;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::Mutex;

/// Proxy variables set to the black hole, in both spellings tools read.
pub(crate) const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

/// Variables that would let a tool bypass the proxy; removed.
pub(crate) const NO_PROXY_VARS: &[&str] = &["NO_PROXY", "no_proxy"];

/// The listener and the connections it has taken.
#[derive(Debug)]
pub(crate) struct BlackHole {
    listener: TcpListener,
    port: u16,
    /// Accepted connections, held open and never read or written.
    held: Mutex<Vec<TcpStream>>,
}

impl BlackHole {
    /// A listener on 127.0.0.1 at a port the system picks.
    pub(crate) fn bind() -> io::Result<BlackHole> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(BlackHole {
            listener,
            port,
            held: Mutex::new(Vec::new()),
        })
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The listening socket, readable while a connection waits to be taken: poll it
    /// to learn at once that a tool went for the network.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.listener.as_fd()
    }

    /// `http://127.0.0.1:PORT`, the value of every proxy variable.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port())
    }

    /// The variables a run sets to send its traffic here.
    pub(crate) fn env_set(&self) -> Vec<(String, String)> {
        let url = self.url();
        PROXY_VARS
            .iter()
            .map(|name| (name.to_string(), url.clone()))
            .collect()
    }

    /// The variables a run removes so that no host bypasses the proxy.
    pub(crate) fn env_remove() -> Vec<String> {
        NO_PROXY_VARS.iter().map(|name| name.to_string()).collect()
    }

    /// Accepts every connection queued since the last call, holds it open, and
    /// returns how many there were. Call it after a run: its count is that run's.
    pub(crate) fn take_connections(&self) -> usize {
        let mut taken = 0;
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    taken += 1;
                    held.push(stream);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // WouldBlock: nothing more queued. Any other error (out of file
                // descriptors) ends the count too; what was counted stands.
                Err(_) => break,
            }
        }
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::time::Duration;

    #[test]
    fn connections_are_counted_held_and_never_answered() {
        let hole = BlackHole::bind().expect("bind");
        assert_eq!(hole.take_connections(), 0);
        let mut client = TcpStream::connect(("127.0.0.1", hole.port())).expect("connect");
        client
            .write_all(b"CONNECT example.com:443 HTTP/1.1\r\n\r\n")
            .expect("write");
        assert_eq!(hole.take_connections(), 1);
        assert_eq!(hole.take_connections(), 0, "counted once");
        client
            .set_read_timeout(Some(Duration::from_millis(100)))
            .expect("timeout");
        let mut byte = [0u8; 1];
        let read = client.read(&mut byte);
        assert!(
            matches!(&read, Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)),
            "the black hole answered: {read:?}"
        );
    }

    #[test]
    fn every_proxy_variable_points_at_it() {
        let hole = BlackHole::bind().expect("bind");
        let env = hole.env_set();
        assert_eq!(env.len(), 6);
        for (name, value) in env {
            assert!(PROXY_VARS.contains(&name.as_str()));
            assert_eq!(value, format!("http://127.0.0.1:{}", hole.port()));
        }
        assert_eq!(BlackHole::env_remove(), ["NO_PROXY", "no_proxy"]);
    }
}
