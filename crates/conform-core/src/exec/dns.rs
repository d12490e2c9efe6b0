//! The DNS responder of a run's namespace: every name is there, at an address
//! that (like every address inside) is the namespace's own, so a tool's lookup
//! succeeds and its connection meets the black hole instead of failing at once.
//!
//! Queries come to port 53 of whatever server `/etc/resolv.conf` names: inside the
//! namespace that address is local too. Over UDP, and over TCP for a resolver that
//! asks that way (`options use-vc`, or a retry after a truncated answer): each
//! TCP query is a 2-byte length and the message, answered the same way. Nothing
//! here blocks: the sockets and the TCP connections still sending their query sit
//! in one epoll set, whose single fd the run's reactor polls with the black hole's
//! listeners ([`Responder::fd`]), and [`Responder::answer`] serves what is ready.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Mutex;

/// Where DNS queries arrive inside a namespace.
const DNS_PORT: u16 = 53;

/// A TCP query's most bytes: its 2-byte length says at most this much.
const TCP_QUERY_LIMIT: usize = 2 + u16::MAX as usize;

/// What an `A` question is answered with.
pub(crate) const ANSWER_V4: Ipv4Addr = Ipv4Addr::LOCALHOST;
/// What an `AAAA` question is answered with.
pub(crate) const ANSWER_V6: Ipv6Addr = Ipv6Addr::LOCALHOST;

const TYPE_A: u16 = 1;
const TYPE_AAAA: u16 = 28;
const HEADER: usize = 12;

/// The answer to one query: the question echoed, and for `A` or `AAAA` one record
/// (other types: no record, no error). `None` for what is not a single standard
/// query: it is left unanswered.
pub(crate) fn answer(query: &[u8]) -> Option<Vec<u8>> {
    let header = query.get(..HEADER)?;
    let flags = u16::from_be_bytes([*header.get(2)?, *header.get(3)?]);
    let is_query = flags & 0x8000 == 0;
    let opcode = (flags >> 11) & 0xf;
    let questions = u16::from_be_bytes([*header.get(4)?, *header.get(5)?]);
    if !is_query || opcode != 0 || questions != 1 {
        return None;
    }
    // The question: labels up to the root, then type and class. No compression
    // pointers are allowed in a query's only question.
    let mut at = HEADER;
    loop {
        let length = usize::from(*query.get(at)?);
        if length == 0 {
            at += 1;
            break;
        }
        if length & 0xc0 != 0 {
            return None;
        }
        at += 1 + length;
    }
    let question = query.get(HEADER..at + 4)?;
    let kind = u16::from_be_bytes([*query.get(at)?, *query.get(at + 1)?]);
    let data: &[u8] = match kind {
        TYPE_A => &ANSWER_V4.octets(),
        TYPE_AAAA => &ANSWER_V6.octets(),
        _ => &[],
    };
    let mut reply = Vec::with_capacity(question.len() + 40);
    reply.extend_from_slice(header.get(..2)?); // the query's id
                                               // A response, authoritative, recursion as asked and available, no error.
    let recursion = flags & 0x0100;
    reply.extend_from_slice(&(0x8480 | recursion).to_be_bytes());
    reply.extend_from_slice(&1u16.to_be_bytes());
    reply.extend_from_slice(&u16::from(!data.is_empty()).to_be_bytes());
    reply.extend_from_slice(&[0, 0, 0, 0]); // no authority, no additional
    reply.extend_from_slice(question);
    if !data.is_empty() {
        reply.extend_from_slice(&[0xc0, HEADER as u8]); // the question's name
        reply.extend_from_slice(&kind.to_be_bytes());
        reply.extend_from_slice(&1u16.to_be_bytes()); // class IN
        reply.extend_from_slice(&1u32.to_be_bytes()); // TTL: a second
        reply.extend_from_slice(&(data.len() as u16).to_be_bytes());
        reply.extend_from_slice(data);
    }
    Some(reply)
}

/// Port 53 over UDP and TCP at every address of a namespace, polled through one
/// fd. Made inside the namespace, as the black hole's listeners are.
#[derive(Debug)]
pub(crate) struct Responder {
    udp: UdpSocket,
    tcp: TcpListener,
    /// TCP connections whose query has not all arrived: what came so far.
    pending: Mutex<Vec<(TcpStream, Vec<u8>)>>,
    /// The epoll set of all of the above: readable when any of them is.
    ready: OwnedFd,
}

impl Responder {
    /// Binds port 53 over UDP and TCP, at every address.
    pub(crate) fn bind() -> io::Result<Responder> {
        let (udp, tcp) = bind_everywhere()?;
        udp.set_nonblocking(true)?;
        tcp.set_nonblocking(true)?;
        let ready = epoll::create()?;
        let responder = Responder {
            udp,
            tcp,
            pending: Mutex::new(Vec::new()),
            ready,
        };
        responder.watch(responder.udp.as_fd())?;
        responder.watch(responder.tcp.as_fd())?;
        Ok(responder)
    }

    /// The one fd to poll: readable while a query or a connection waits.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.ready.as_fd()
    }

    /// Answers every query waiting, over UDP and over TCP, without blocking.
    pub(crate) fn answer(&self) {
        self.answer_udp();
        let mut pending = self
            .pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        loop {
            match self.tcp.accept() {
                Ok((stream, _)) => {
                    if stream.set_nonblocking(true).is_ok() && self.watch(stream.as_fd()).is_ok() {
                        pending.push((stream, Vec::new()));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        // A connection leaves the list (and, closed, the epoll set) once answered,
        // closed by its client, or past what a query can be.
        pending.retain_mut(|(stream, query)| !serve_tcp(stream, query));
    }

    fn answer_udp(&self) {
        let mut query = [0u8; 512];
        loop {
            match self.udp.recv_from(&mut query) {
                Ok((n, from)) => {
                    if let Some(reply) = query.get(..n).and_then(answer) {
                        // A full socket buffer loses the answer; the client asks again.
                        let _ = self.udp.send_to(&reply, from);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
    }

    /// Adds `fd` to the epoll set, level-triggered for input.
    fn watch(&self, fd: BorrowedFd<'_>) -> io::Result<()> {
        epoll::add(self.ready.as_fd(), fd)
    }
}

/// The epoll set, Linux's: namespaces, and so this responder, exist only there.
#[cfg(target_os = "linux")]
mod epoll {
    use std::io;
    use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

    use nix::libc;

    pub(super) fn create() -> io::Result<OwnedFd> {
        // SAFETY: epoll_create1 takes no pointers; a non-negative result is a fresh
        // fd owned by nothing else.
        unsafe {
            let fd = libc::epoll_create1(libc::EPOLL_CLOEXEC);
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(OwnedFd::from_raw_fd(fd))
        }
    }

    pub(super) fn add(set: BorrowedFd<'_>, fd: BorrowedFd<'_>) -> io::Result<()> {
        let mut event = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: 0,
        };
        // SAFETY: both fds are open for the call; the event is a valid struct.
        let done = unsafe {
            libc::epoll_ctl(
                set.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                fd.as_raw_fd(),
                &mut event,
            )
        };
        if done < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

#[cfg(not(target_os = "linux"))]
mod epoll {
    use std::io;
    use std::os::fd::{BorrowedFd, OwnedFd};

    fn unsupported() -> io::Error {
        io::Error::new(io::ErrorKind::Unsupported, "network namespaces are Linux's")
    }

    pub(super) fn create() -> io::Result<OwnedFd> {
        Err(unsupported())
    }

    pub(super) fn add(_: BorrowedFd<'_>, _: BorrowedFd<'_>) -> io::Result<()> {
        Err(unsupported())
    }
}

/// Reads what a TCP client sent and answers every whole query in it (a resolver
/// may send its `A` and `AAAA` questions on one connection). True when the
/// connection is done with: closed by its client, broken, or past what a query
/// can be.
fn serve_tcp(stream: &mut TcpStream, received: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 1024];
    let mut done = false;
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => {
                done = true;
                break;
            }
            Ok(n) => received.extend_from_slice(chunk.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(_) => return true,
        }
        if received.len() > TCP_QUERY_LIMIT {
            return true;
        }
    }
    while let Some(length) = received
        .get(..2)
        .map(|bytes| usize::from(u16::from_be_bytes([bytes[0], bytes[1]])))
    {
        let Some(message) = received.get(2..2 + length) else {
            break;
        };
        if let Some(reply) = answer(message) {
            let mut framed = Vec::with_capacity(2 + reply.len());
            framed.extend_from_slice(&(reply.len() as u16).to_be_bytes());
            framed.extend_from_slice(&reply);
            // A reply of a few dozen bytes fits the socket's buffer at once; one
            // that does not is lost, and the client asks again.
            let _ = stream.write_all(&framed);
        }
        received.drain(..2 + length);
    }
    done
}

/// Port 53 over UDP and TCP at every address: IPv6 and IPv4 at once (a fresh
/// namespace has `bindv6only` off), or IPv4 alone where the kernel has no IPv6.
fn bind_everywhere() -> io::Result<(UdpSocket, TcpListener)> {
    let both = |address: SocketAddr| -> io::Result<(UdpSocket, TcpListener)> {
        Ok((UdpSocket::bind(address)?, TcpListener::bind(address)?))
    };
    both(SocketAddr::from((Ipv6Addr::UNSPECIFIED, DNS_PORT)))
        .or_else(|_| both(SocketAddr::from((Ipv4Addr::UNSPECIFIED, DNS_PORT))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(id: u16, name: &str, kind: u16) -> Vec<u8> {
        let mut bytes = id.to_be_bytes().to_vec();
        bytes.extend_from_slice(&[0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
        for label in name.split('.') {
            bytes.push(label.len() as u8);
            bytes.extend_from_slice(label.as_bytes());
        }
        bytes.push(0);
        bytes.extend_from_slice(&kind.to_be_bytes());
        bytes.extend_from_slice(&1u16.to_be_bytes());
        bytes
    }

    #[test]
    fn an_a_question_is_answered_with_a_local_address_and_its_id() {
        let asked = query(0xbeef, "api.nodefetch.example", TYPE_A);
        let reply = answer(&asked).expect("answered");
        assert_eq!(&reply[..2], &[0xbe, 0xef]);
        assert_eq!(reply[2] & 0x80, 0x80, "a response");
        assert_eq!(reply[3] & 0x0f, 0, "no error");
        assert_eq!(&reply[4..8], &[0, 1, 0, 1], "one question, one answer");
        assert_eq!(&reply[12..asked.len()], &asked[12..], "the question echoed");
        assert_eq!(&reply[reply.len() - 4..], &[127, 0, 0, 1]);
        assert_eq!(&reply[reply.len() - 6..reply.len() - 4], &[0, 4]);
    }

    #[test]
    fn aaaa_gets_the_loopback_and_other_types_no_record() {
        let reply = answer(&query(1, "example.com", TYPE_AAAA)).expect("answered");
        assert_eq!(&reply[reply.len() - 16..], &ANSWER_V6.octets());
        let mx = answer(&query(2, "example.com", 15)).expect("answered");
        assert_eq!(&mx[6..8], &[0, 0], "no answer record");
    }

    #[test]
    fn what_is_not_one_plain_query_is_left_unanswered() {
        let asked = query(3, "example.com", TYPE_A);
        for cut in 0..asked.len() {
            assert_eq!(answer(&asked[..cut]), None, "{cut}");
        }
        let mut response = asked.clone();
        response[2] |= 0x80;
        assert_eq!(answer(&response), None);
        let mut pointer = asked;
        pointer[12] = 0xc0;
        assert_eq!(answer(&pointer), None);
    }
}
