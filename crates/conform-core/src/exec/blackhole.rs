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
//!
//! A run's black hole also records what each client asked for ([`Recorder`]): the
//! reactor polls the listener and every connection whose request head has not
//! arrived yet, reads what is there (never more than [`HEAD_LIMIT`] bytes, never
//! waiting), and keeps the `CONNECT host:port` target, or the request line's URL
//! and `Host` header. Still nothing is answered.
//!
//! Where the kernel allows, the black hole is made in the run's own network
//! namespace (`netns.rs`), and then also listens on the ports tools connect to
//! directly ([`DIRECT_PORTS`], at every address, since every address is local
//! there) and answers DNS over UDP and TCP (`dns.rs`): a tool that ignores the proxy variables
//! meets it too. A direct connection names its host by its TLS server name
//! (`tls.rs`) or its `Host` header.

use std::io::{self, Read};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::netns::{self, Isolation, Namespace};
use super::{dns, tls};

/// The ports a tool's direct connections go to, listened on inside a namespace:
/// HTTP, HTTPS, their common alternates, and a proxy's.
pub(crate) const DIRECT_PORTS: &[u16] = &[80, 443, 8080, 8443, 3128];

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
    /// The run's namespace and what listens in it besides the proxy port; `None`
    /// for the proxy variables alone.
    isolated: Option<Isolated>,
}

/// The rest of a black hole made in a namespace.
#[derive(Debug)]
struct Isolated {
    namespace: Arc<Namespace>,
    /// One listener per [`DIRECT_PORTS`] entry, at every address.
    direct: Vec<TcpListener>,
    /// The DNS responder, over UDP and TCP.
    dns: dns::Responder,
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
            isolated: None,
        })
    }

    /// A black hole in a network namespace of its own: the proxy listener on its
    /// 127.0.0.1, the direct ports at every address, and the DNS responder.
    pub(crate) fn bind_isolated() -> io::Result<BlackHole> {
        let namespace = Namespace::new()?;
        let (mut hole, direct, dns) = namespace.within(|| {
            let hole = BlackHole::bind()?;
            let direct = DIRECT_PORTS
                .iter()
                .map(|&port| listen_everywhere(port))
                .collect::<io::Result<Vec<_>>>()?;
            let dns = dns::Responder::bind()?;
            Ok((hole, direct, dns))
        })?;
        hole.isolated = Some(Isolated {
            namespace: Arc::new(namespace),
            direct,
            dns,
        });
        Ok(hole)
    }

    /// A black hole in a namespace where this process can make one, else behind
    /// the proxy variables alone (`netns.rs` says why, once).
    pub(crate) fn bind_best() -> io::Result<BlackHole> {
        match netns::isolation() {
            Isolation::Namespace => BlackHole::bind_isolated(),
            Isolation::ProxyOnly { .. } => BlackHole::bind(),
        }
    }

    /// The namespace the run's tool must be spawned in, when it has one.
    pub(crate) fn namespace(&self) -> Option<&Namespace> {
        self.isolated.as_ref().map(|isolated| &*isolated.namespace)
    }

    /// The namespace, for runs that share this black hole (exploration's).
    pub(crate) fn shared_namespace(&self) -> Option<Arc<Namespace>> {
        self.isolated
            .as_ref()
            .map(|isolated| Arc::clone(&isolated.namespace))
    }

    /// Every listener's fd, to poll for a connection.
    pub(crate) fn listener_fds(&self) -> Vec<BorrowedFd<'_>> {
        self.listeners()
            .map(|(listener, _)| listener.as_fd())
            .collect()
    }

    /// The DNS responder's fd, in a namespace: readable while a query waits for
    /// [`BlackHole::answer_dns`].
    pub(crate) fn dns_fd(&self) -> Option<BorrowedFd<'_>> {
        self.isolated.as_ref().map(|isolated| isolated.dns.fd())
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// Whether it is in a namespace of its own, where any address is its own.
    pub(crate) fn isolated(&self) -> bool {
        self.isolated.is_some()
    }

    /// Every listener: the proxy port's first, then the direct ports' (with their
    /// port), in a namespace.
    fn listeners(&self) -> impl Iterator<Item = (&TcpListener, Option<u16>)> {
        let direct = self.isolated.iter().flat_map(|isolated| {
            isolated
                .direct
                .iter()
                .zip(DIRECT_PORTS)
                .map(|(listener, &port)| (listener, Some(port)))
        });
        std::iter::once((&self.listener, None)).chain(direct)
    }

    /// Answers every DNS query waiting, without blocking.
    pub(crate) fn answer_dns(&self) {
        if let Some(isolated) = &self.isolated {
            isolated.dns.answer();
        }
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

    /// Every proxy variable at port 0 of 127.0.0.1, where a connection is refused
    /// at once: for a run that must not wait on the network at all.
    pub(crate) fn refused_env() -> Vec<(String, String)> {
        PROXY_VARS
            .iter()
            .map(|name| (name.to_string(), "http://127.0.0.1:0".to_string()))
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
        self.answer_dns();
        for (listener, _) in self.listeners() {
            loop {
                match listener.accept() {
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
        }
        taken
    }
}

/// A non-blocking listener on `port` at every address: IPv6 and IPv4 at once,
/// or IPv4 alone where the kernel has no IPv6.
fn listen_everywhere(port: u16) -> io::Result<TcpListener> {
    let listener = bind_everywhere(port, TcpListener::bind)?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

fn bind_everywhere<S>(port: u16, bind: impl Fn(SocketAddr) -> io::Result<S>) -> io::Result<S> {
    // A fresh namespace has `bindv6only` off: `[::]` takes IPv4 too.
    bind(SocketAddr::from((Ipv6Addr::UNSPECIFIED, port)))
        .or_else(|_| bind(SocketAddr::from((Ipv4Addr::UNSPECIFIED, port))))
}

/// The most of a request head read from one connection: a request line and its
/// headers fit; what a client sends past it is left unread.
pub(crate) const HEAD_LIMIT: usize = 8 * 1024;

/// What one connection to the black hole asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ProxyRequest {
    /// The host it asked for (the `CONNECT` target, the URL's or the `Host`
    /// header's); `None` when nothing readable as HTTP arrived.
    pub host: Option<String>,
    pub port: Option<u16>,
    /// The path of a plain request (with its query); a `CONNECT` shows none.
    pub path: Option<String>,
    /// The client closed the connection before it sent a byte: it gave up on it
    /// (netlify opens one as it exits) and waited for no answer.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsent: bool,
    /// When the connection was taken, from the start of the run.
    #[serde(rename = "at_ms", serialize_with = "millis")]
    pub at: Duration,
}

fn millis<S: serde::Serializer>(at: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(at.as_millis()).unwrap_or(u64::MAX))
}

/// One connection: held open, its head read until complete.
#[derive(Debug)]
struct Peer {
    stream: TcpStream,
    /// The port it connected to when that is a direct one (not the proxy's).
    direct: Option<u16>,
    head: Vec<u8>,
    at: Duration,
    /// Still waiting for the end of the head (and so polled).
    reading: bool,
    /// The client closed its end.
    closed: bool,
}

impl Peer {
    /// Reads what has arrived, without waiting, up to [`HEAD_LIMIT`].
    fn read(&mut self) {
        let mut chunk = [0u8; 1024];
        while self.reading {
            let room = HEAD_LIMIT.saturating_sub(self.head.len()).min(chunk.len());
            let Some(buf) = chunk.get_mut(..room).filter(|buf| !buf.is_empty()) else {
                self.reading = false;
                break;
            };
            match self.stream.read(buf) {
                Ok(0) => {
                    self.reading = false;
                    self.closed = true;
                }
                Ok(n) => {
                    self.head
                        .extend_from_slice(buf.get(..n).unwrap_or_default());
                    if head_complete(&self.head) {
                        self.reading = false;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => self.reading = false,
            }
        }
    }

    fn request(&self) -> ProxyRequest {
        let (host, port, path) = parse_head(&self.head, self.direct);
        ProxyRequest {
            host,
            port,
            path,
            unsent: self.closed && self.head.is_empty(),
            at: self.at,
        }
    }
}

/// A run's black hole with what its clients asked for, driven by the reactor.
#[derive(Debug)]
pub(crate) struct Recorder {
    hole: BlackHole,
    started: Instant,
    peers: Vec<Peer>,
    /// False once accepting failed for another reason than an empty queue (out of
    /// file descriptors): the listener would stay readable, and polling it spin.
    listening: bool,
}

impl Recorder {
    /// Records for a run that started at `started`.
    pub(crate) fn new(hole: BlackHole, started: Instant) -> Recorder {
        Recorder {
            hole,
            started,
            peers: Vec::new(),
            listening: true,
        }
    }

    /// The port the black hole listens on.
    pub(crate) fn port(&self) -> u16 {
        self.hole.port()
    }

    /// Whether its black hole is in a namespace of its own.
    pub(crate) fn isolated(&self) -> bool {
        self.hole.isolated()
    }

    /// The fds to poll: the listeners and the DNS responder (`None`), and each
    /// connection still sending its head (`Some(index)`).
    pub(crate) fn sources(&self) -> impl Iterator<Item = (Option<usize>, BorrowedFd<'_>)> {
        let listening = self.listening.then_some(&self.hole).into_iter();
        let listeners = listening.flat_map(|hole| {
            let dns = hole.isolated.iter().map(|isolated| isolated.dns.fd());
            hole.listeners()
                .map(|(listener, _)| listener.as_fd())
                .chain(dns)
                .map(|fd| (None, fd))
        });
        listeners.chain(
            self.peers
                .iter()
                .enumerate()
                .filter(|(_, peer)| peer.reading)
                .map(|(index, peer)| (Some(index), peer.stream.as_fd())),
        )
    }

    /// A listener or the DNS responder is readable: answers every query, takes
    /// every queued connection and reads what each has sent so far.
    pub(crate) fn accept(&mut self) {
        self.hole.answer_dns();
        let listeners: Vec<(&TcpListener, Option<u16>)> = self.hole.listeners().collect();
        for (listener, direct) in listeners {
            if !accept_from(listener, direct, self.started, &mut self.peers) {
                self.listening = false;
            }
        }
    }

    /// Connection `index` is readable.
    pub(crate) fn read(&mut self, index: usize) {
        if let Some(peer) = self.peers.get_mut(index) {
            peer.read();
        }
    }

    /// After the run: what every connection asked for, in the order they came.
    /// The connections close when the recorder is dropped.
    pub(crate) fn finish(mut self) -> Vec<ProxyRequest> {
        self.accept();
        for peer in &mut self.peers {
            peer.read();
        }
        self.peers.iter().map(Peer::request).collect()
    }
}

/// Takes every connection queued on `listener` into `peers`; false when
/// accepting failed for another reason than an empty queue.
fn accept_from(
    listener: &TcpListener,
    direct: Option<u16>,
    started: Instant,
    peers: &mut Vec<Peer>,
) -> bool {
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                let at = started.elapsed();
                // A blocking connection would stall the reactor on a slow
                // client; one that cannot be made non-blocking is held unread.
                let reading = stream.set_nonblocking(true).is_ok();
                let mut peer = Peer {
                    stream,
                    direct,
                    head: Vec::new(),
                    at,
                    reading,
                    closed: false,
                };
                peer.read();
                peers.push(peer);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(_) => return false,
        }
    }
}

/// The head ends at its first blank line; a TLS ClientHello with its record.
fn head_complete(head: &[u8]) -> bool {
    if head.first() == Some(&tls::HANDSHAKE) {
        return tls::record_complete(head, HEAD_LIMIT);
    }
    head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n")
}

/// Host, port and path from a request head: `CONNECT host:port`, an absolute URL
/// (what a client sends a proxy), or a path with a `Host` header; on a direct
/// port (`direct`), also a TLS ClientHello's server name.
fn parse_head(head: &[u8], direct: Option<u16>) -> (Option<String>, Option<u16>, Option<String>) {
    if head.first() == Some(&tls::HANDSHAKE) {
        let host = tls::server_name(head);
        let port = host.is_some().then_some(direct.unwrap_or(443));
        return (host, port, None);
    }
    let text = String::from_utf8_lossy(head);
    let mut lines = text.lines().map(|line| line.trim_end_matches('\r'));
    let request_line = lines.next().unwrap_or_default();
    let mut words = request_line.split_ascii_whitespace();
    let (Some(method), Some(target), Some(version)) = (words.next(), words.next(), words.next())
    else {
        return (None, None, None);
    };
    if !version.starts_with("HTTP/") {
        return (None, None, None);
    }
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_authority(target, None);
        return (host, port, None);
    }
    for (scheme, default_port) in [("http://", 80), ("https://", 443)] {
        let Some(rest) = strip_prefix_ignore_case(target, scheme) else {
            continue;
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(at) => rest.split_at(at),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        let (host, port) = split_authority(authority, Some(default_port));
        return (host, port, Some(path));
    }
    let host_header = lines.take_while(|line| !line.is_empty()).find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("host")
            .then(|| value.trim())
    });
    let (host, port) = match host_header {
        Some(authority) => split_authority(authority, Some(direct.unwrap_or(80))),
        None => (None, None),
    };
    (host, port, Some(target.to_string()))
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| text.get(prefix.len()..))
        .flatten()
}

/// `host[:port]` or `[v6]:port`, any `user@` dropped; the host lowercased.
fn split_authority(authority: &str, default_port: Option<u16>) -> (Option<String>, Option<u16>) {
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, rest)| rest);
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        match bracketed.split_once(']') {
            Some((host, after)) => (host, after.strip_prefix(':')),
            None => (bracketed, None),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let host = Some(host.to_ascii_lowercase()).filter(|host| !host.is_empty());
    let port = match port {
        Some(digits) => digits.parse().ok(),
        None => default_port,
    };
    (host, port)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
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

#[cfg(test)]
mod recording {
    use super::*;
    use std::io::Write;

    fn parsed(head: &str) -> (Option<String>, Option<u16>, Option<String>) {
        parse_head(head.as_bytes(), None)
    }

    fn some(
        host: &str,
        port: u16,
        path: Option<&str>,
    ) -> (Option<String>, Option<u16>, Option<String>) {
        (Some(host.into()), Some(port), path.map(String::from))
    }

    #[test]
    fn request_heads_give_host_port_and_the_path_where_it_is_visible() {
        assert_eq!(
            parsed(
                "CONNECT Registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\n\r\n"
            ),
            some("registry.npmjs.org", 443, None)
        );
        assert_eq!(
            parsed("GET http://pypi.org/pypi/democli/json HTTP/1.1\r\nHost: pypi.org\r\n\r\n"),
            some("pypi.org", 80, Some("/pypi/democli/json"))
        );
        assert_eq!(
            parsed("GET https://api.github.com:8443?x=1 HTTP/1.1\r\n\r\n"),
            some("api.github.com", 8443, Some("/?x=1"))
        );
        assert_eq!(
            parsed("POST /v1/events HTTP/1.1\nhost: [::1]:9000\n\n"),
            some("::1", 9000, Some("/v1/events"))
        );
        assert_eq!(
            parsed("GET /only-a-path HTTP/1.0\r\n\r\n"),
            (None, None, Some("/only-a-path".into()))
        );
        for unreadable in ["", "\u{16}\u{3}\u{1}", "CONNECT\r\n", "GET / SPDY\r\n"] {
            assert_eq!(parsed(unreadable), (None, None, None), "{unreadable:?}");
        }
    }

    #[test]
    fn the_recorder_reads_each_head_without_answering_and_times_it_from_the_start() {
        let started = Instant::now();
        let mut recorder = Recorder::new(BlackHole::bind().expect("bind"), started);
        let port = recorder.hole.port();
        let mut first = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        first
            .write_all(b"CONNECT telemetry.example:443 HTTP/1.1\r\n")
            .expect("write");
        // A client that connects and sends nothing yet: taken, not waited for.
        let mut slow = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        // The listener's queue is read when it is readable; wait for that as the
        // reactor would.
        let mut fds = [nix::poll::PollFd::new(
            recorder.hole.listener.as_fd(),
            nix::poll::PollFlags::POLLIN,
        )];
        nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(10_000u16)).expect("poll");
        recorder.accept();
        let polled: Vec<Option<usize>> = recorder.sources().map(|(source, _)| source).collect();
        assert_eq!(polled.first(), Some(&None), "the listener is always polled");
        slow.write_all(b"GET http://registry.npmjs.org/democli HTTP/1.1\r\n\r\n")
            .expect("write");
        first.write_all(b"\r\n").expect("write");
        let requests = recorder.finish();
        let hosts: Vec<Option<&str>> = requests.iter().map(|r| r.host.as_deref()).collect();
        assert_eq!(
            hosts,
            [Some("telemetry.example"), Some("registry.npmjs.org")],
            "{requests:?}"
        );
        assert!(requests.iter().all(|r| r.at <= started.elapsed()));
        assert!(requests.iter().all(|r| !r.unsent), "{requests:?}");
    }

    #[test]
    fn a_connection_closed_before_any_request_is_recorded_as_unsent() {
        let started = Instant::now();
        let recorder = Recorder::new(BlackHole::bind().expect("bind"), started);
        let port = recorder.hole.port();
        // Open and still silent at the end: a client that may yet send (a detached
        // worker), not one that gave up.
        let _silent = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        drop(TcpStream::connect(("127.0.0.1", port)).expect("connect"));
        let mut sent = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        sent.write_all(b"CONNECT api.example:443 HTTP/1.1\r\n")
            .expect("write");
        drop(sent);
        let requests = recorder.finish();
        let unsent: Vec<bool> = requests.iter().map(|r| r.unsent).collect();
        assert_eq!(unsent, [false, true, false], "{requests:?}");
        assert_eq!(requests[2].host.as_deref(), Some("api.example"));
    }
}
