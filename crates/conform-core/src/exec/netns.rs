//! A network namespace for one run: loopback only, and every address local.
//!
//! The proxy variables reach only the tools that honour them; Node's `fetch`
//! (undici) and many others do not. In a namespace of its own a run's tool has no
//! way out: the loopback is its only interface, a local route for `0.0.0.0/0` and
//! `::/0` makes every address one of its own, and what conform listens on there
//! (the black hole's ports, a DNS responder on 53) is what any connection meets.
//! A server the tool starts listens inside too, out of the host's reach.
//!
//! How: `unshare(CLONE_NEWNET)` moves only the calling thread (a network namespace
//! is per thread), so the reactor's thread steps into a fresh namespace, sets it
//! up, binds the black hole's sockets (a socket belongs to the namespace it was
//! made in, wherever it is used later), spawns the tool (a child is made in its
//! parent thread's namespaces) and steps back with `setns` on a handle to where it
//! came from. No helper process and no fd passing: the sockets are the parent's
//! from the start, and its event loop polls them like any other.
//!
//! This needs CAP_SYS_ADMIN, or a user namespace that owns the new one: an
//! unprivileged conform enters one at start-up (`userns.rs`), and then, since its
//! threads cannot step back into the host's network namespace, makes and enters a
//! namespace on a thread of its own that ends there. Where neither is allowed,
//! conform falls back to the proxy variables alone and says why and how to allow
//! it ([`isolation`]).

use std::io;
use std::os::fd::OwnedFd;
use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use super::userns::{self, Refusal, UserNamespace};

/// Set (to anything but empty) to act as if the kernel refused namespaces: the
/// fallback is then testable on a machine that allows them.
pub(crate) const NO_NETNS_VAR: &str = "CONFORM_TEST_NO_NETNS";

/// How the runs at the black hole are kept from the network, the same for every
/// run of the process: probed once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Isolation {
    /// A network namespace per run.
    Namespace,
    /// The proxy variables only; why no namespace could be made, and how to allow
    /// one (empty when read back from a report's word).
    ProxyOnly { reason: String, remedy: String },
}

impl Isolation {
    /// The words of the report: `namespace`, `proxy variables only`.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Isolation::Namespace => "namespace",
            Isolation::ProxyOnly { .. } => "proxy variables only",
        }
    }

    /// The isolation a report's word names (a fallback's reason is not recorded).
    pub(crate) fn from_label(label: &str) -> Isolation {
        match label {
            "namespace" => Isolation::Namespace,
            _ => Isolation::ProxyOnly {
                reason: String::new(),
                remedy: String::new(),
            },
        }
    }

    /// The report's sentence on it: what the reader must know of a fallback, with
    /// its cause and fix when known.
    pub(crate) fn summary(&self) -> String {
        match self {
            Isolation::Namespace => "network: namespace".to_string(),
            Isolation::ProxyOnly { reason, remedy } => {
                let mut line = "network: proxy variables only: tools that ignore them were not held at the black hole".to_string();
                if !reason.is_empty() {
                    line.push_str(&format!(" (why: {reason}; fix: {remedy})"));
                }
                line
            }
        }
    }

    /// Into a JSON report's `meta`: `network`, its word, and for a fallback
    /// `network_fallback`, its cause and fix.
    pub(crate) fn insert_meta(&self, meta: &mut Map<String, Value>) {
        meta.insert("network".into(), json!(self.label()));
        if let Isolation::ProxyOnly { reason, remedy } = self {
            if !reason.is_empty() {
                meta.insert(
                    "network_fallback".into(),
                    json!({ "cause": reason, "remedy": remedy }),
                );
            }
        }
    }
}

impl From<&Refusal> for Isolation {
    fn from(refusal: &Refusal) -> Isolation {
        Isolation::ProxyOnly {
            reason: refusal.cause.clone(),
            remedy: refusal.remedy.clone(),
        }
    }
}

/// Whether this process can give runs a namespace, tried once by making one.
pub(crate) fn isolation() -> &'static Isolation {
    static ISOLATION: OnceLock<Isolation> = OnceLock::new();
    ISOLATION.get_or_init(|| {
        if std::env::var_os(NO_NETNS_VAR).is_some_and(|v| !v.is_empty()) {
            return Isolation::ProxyOnly {
                reason: format!("{NO_NETNS_VAR} is set"),
                remedy: format!("unset {NO_NETNS_VAR}"),
            };
        }
        let entered = match userns::state() {
            UserNamespace::Refused(refusal) => return refusal.into(),
            UserNamespace::Entered => true,
            UserNamespace::NotNeeded => false,
        };
        match Namespace::new() {
            Ok(_) => Isolation::Namespace,
            // In a user namespace of its own, only the sysctls can say no now.
            Err(err) if entered => (&userns::diagnose(&err)).into(),
            Err(err) => Isolation::ProxyOnly {
                reason: format!("the kernel refused a network namespace: {err}"),
                remedy: "run conform as root with CAP_SYS_ADMIN, or as a user where unprivileged user namespaces are allowed".into(),
            },
        }
    })
}

/// A handle on a set-up network namespace; it lives as long as this handle, the
/// sockets made in it, or a process in it.
#[derive(Debug)]
pub(crate) struct Namespace {
    handle: OwnedFd,
}

impl Namespace {
    /// A fresh namespace with its loopback up and every address routed to it. The
    /// calling thread is back in its own namespace on return, whatever failed.
    pub(crate) fn new() -> io::Result<Namespace> {
        Ok(Namespace {
            handle: sys::create()?,
        })
    }

    /// Runs `work` inside the namespace: sockets it makes and processes it spawns
    /// are the namespace's. On this thread, which steps back after; in a user
    /// namespace of conform's own, on a thread that ends with it.
    pub(crate) fn within<T: Send>(
        &self,
        work: impl FnOnce() -> io::Result<T> + Send,
    ) -> io::Result<T> {
        sys::within(&self.handle, work)
    }
}

/// In a fresh network namespace: the loopback up and every address local (the
/// user namespace's trial at start-up makes one the same way).
#[cfg(target_os = "linux")]
pub(crate) fn set_up() -> io::Result<()> {
    sys::set_up()
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use std::io;
    use std::os::fd::OwnedFd;

    /// Network namespaces are Linux's.
    pub(super) fn create() -> io::Result<OwnedFd> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "network namespaces are Linux's",
        ))
    }

    pub(super) fn within<T: Send>(
        _: &OwnedFd,
        _: impl FnOnce() -> io::Result<T> + Send,
    ) -> io::Result<T> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "network namespaces are Linux's",
        ))
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

    use nix::libc;
    use nix::sched::{setns, unshare, CloneFlags};

    pub(super) fn create() -> io::Result<OwnedFd> {
        if in_user_namespace() {
            return on_own_thread(|| {
                unshare(CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
                set_up()?;
                own_namespace()
            });
        }
        let home = own_namespace()?;
        unshare(CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
        let made = own_namespace().and_then(|handle| {
            set_up()?;
            Ok(handle)
        });
        go_back(&home)?;
        made
    }

    pub(super) fn within<T: Send>(
        handle: &OwnedFd,
        work: impl FnOnce() -> io::Result<T> + Send,
    ) -> io::Result<T> {
        if in_user_namespace() {
            return on_own_thread(|| {
                setns(handle.as_fd(), CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
                work()
            });
        }
        let home = own_namespace()?;
        setns(handle.as_fd(), CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
        let done = work();
        go_back(&home)?;
        done
    }

    /// Whether conform is in a user namespace of its own: its threads can enter a
    /// run's network namespace but never come back from it.
    fn in_user_namespace() -> bool {
        *super::userns::state() == super::UserNamespace::Entered
    }

    /// `work` on a thread that ends with it, so the namespace it enters goes with
    /// it. A thread costs tens of microseconds; a run's spawn, milliseconds.
    fn on_own_thread<T: Send>(work: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("conform-netns".into())
                .spawn_scoped(scope, work)?
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// A handle on the calling thread's network namespace (not the process's: a
    /// thread may be elsewhere).
    fn own_namespace() -> io::Result<OwnedFd> {
        Ok(OwnedFd::from(File::open("/proc/thread-self/ns/net")?))
    }

    /// Back to `home`. Failing here would leave the thread's later sockets and
    /// children in a run's namespace; the error says so, and the caller's run fails.
    fn go_back(home: &OwnedFd) -> io::Result<()> {
        setns(home.as_fd(), CloneFlags::CLONE_NEWNET).map_err(|err| {
            io::Error::other(format!(
                "could not return to conform's own network namespace: {err}"
            ))
        })
    }

    /// In a fresh namespace: the loopback up, and a local route for every IPv4 and
    /// IPv6 address (`ip route add local 0.0.0.0/0 dev lo table local`), so that a
    /// connection to any address meets what listens here. IPv6 may be off in the
    /// kernel; IPv4 alone then.
    pub(super) fn set_up() -> io::Result<()> {
        loopback_up()?;
        let netlink = Netlink::open()?;
        netlink.add_local_default(libc::AF_INET as u8)?;
        // Without IPv6 in the kernel there is no IPv6 address to reach either.
        let _ = netlink.add_local_default(libc::AF_INET6 as u8);
        Ok(())
    }

    /// `ip link set lo up`, through the interface ioctls.
    fn loopback_up() -> io::Result<()> {
        let socket = raw_socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0)?;
        // SAFETY: ifreq is plain old data; all-zero is a valid value.
        let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
        for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
            *slot = *byte as libc::c_char;
        }
        // SAFETY: the request names an interface and has room for its flags; the fd
        // is a socket owned above.
        unsafe {
            if libc::ioctl(socket.as_raw_fd(), libc::SIOCGIFFLAGS, &mut request) < 0 {
                return Err(io::Error::last_os_error());
            }
            request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            if libc::ioctl(socket.as_raw_fd(), libc::SIOCSIFFLAGS, &request) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    fn raw_socket(
        domain: libc::c_int,
        kind: libc::c_int,
        protocol: libc::c_int,
    ) -> io::Result<OwnedFd> {
        // SAFETY: socket(2) takes no pointers; a non-negative result is a fresh fd
        // owned by nothing else.
        let fd = unsafe { libc::socket(domain, kind, protocol) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: as above.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// A route netlink socket, enough to add a route and read its acknowledgement.
    struct Netlink {
        socket: OwnedFd,
    }

    /// `struct nlmsghdr`, `struct rtmsg` and one `struct rtattr` with a u32, as the
    /// kernel lays them out (native endian, 4-byte aligned).
    const NLMSG_HEADER: usize = 16;
    const RTMSG: usize = 12;
    const RTA_U32: usize = 8;

    impl Netlink {
        fn open() -> io::Result<Netlink> {
            let socket = raw_socket(
                libc::AF_NETLINK,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                libc::NETLINK_ROUTE,
            )?;
            Ok(Netlink { socket })
        }

        /// A local route for every address of `family` on the loopback, in the local
        /// table.
        fn add_local_default(&self, family: u8) -> io::Result<()> {
            let loopback = loopback_index()?;
            let mut message = Vec::with_capacity(NLMSG_HEADER + RTMSG + RTA_U32);
            let length = (NLMSG_HEADER + RTMSG + RTA_U32) as u32;
            let flags =
                (libc::NLM_F_REQUEST | libc::NLM_F_ACK | libc::NLM_F_CREATE | libc::NLM_F_EXCL)
                    as u16;
            message.extend_from_slice(&length.to_ne_bytes());
            message.extend_from_slice(&libc::RTM_NEWROUTE.to_ne_bytes());
            message.extend_from_slice(&flags.to_ne_bytes());
            message.extend_from_slice(&1u32.to_ne_bytes()); // sequence
            message.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel's
            message.extend_from_slice(&[
                family,
                0, // dst_len: /0
                0, // src_len
                0, // tos
                libc::RT_TABLE_LOCAL,
                libc::RTPROT_BOOT,
                libc::RT_SCOPE_HOST,
                libc::RTN_LOCAL,
            ]);
            message.extend_from_slice(&0u32.to_ne_bytes()); // rtm_flags
            message.extend_from_slice(&(RTA_U32 as u16).to_ne_bytes());
            message.extend_from_slice(&libc::RTA_OIF.to_ne_bytes());
            message.extend_from_slice(&loopback.to_ne_bytes());
            // SAFETY: the buffer is valid for its length; a netlink socket sends to
            // the kernel without an address.
            let sent = unsafe {
                libc::send(
                    self.socket.as_raw_fd(),
                    message.as_ptr().cast(),
                    message.len(),
                    0,
                )
            };
            if sent < 0 {
                return Err(io::Error::last_os_error());
            }
            self.acknowledgement()
        }

        /// The kernel's answer to the request: an error message whose code is 0 on
        /// success, else the negated errno.
        fn acknowledgement(&self) -> io::Result<()> {
            let mut answer = [0u8; 1024];
            // SAFETY: the buffer is valid for its length.
            let got = unsafe {
                libc::recv(
                    self.socket.as_raw_fd(),
                    answer.as_mut_ptr().cast(),
                    answer.len(),
                    0,
                )
            };
            let got = usize::try_from(got).map_err(|_| io::Error::last_os_error())?;
            let word = |at: usize| -> Option<[u8; 4]> { answer.get(at..at + 4)?.try_into().ok() };
            let kind = answer
                .get(4..6)
                .and_then(|b| <[u8; 2]>::try_from(b).ok())
                .map(u16::from_ne_bytes);
            match (kind, word(NLMSG_HEADER)) {
                (Some(kind), Some(code))
                    if got >= NLMSG_HEADER + 4 && kind == libc::NLMSG_ERROR as u16 =>
                {
                    match i32::from_ne_bytes(code) {
                        0 => Ok(()),
                        negated => Err(io::Error::from_raw_os_error(-negated)),
                    }
                }
                _ => Err(io::Error::other(
                    "the kernel's answer to a route was not understood",
                )),
            }
        }
    }

    /// The loopback's interface index (1 in a fresh namespace, asked all the same).
    fn loopback_index() -> io::Result<u32> {
        // SAFETY: a NUL-terminated literal.
        let index = unsafe { libc::if_nametoindex(c"lo".as_ptr()) };
        if index == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn in_a_namespace_every_address_is_local_and_the_host_sees_nothing() {
        if *isolation() != Isolation::Namespace {
            eprintln!("skipped: {:?}", isolation());
            return;
        }
        let namespace = Namespace::new().expect("namespace");
        let listener = namespace
            .within(|| TcpListener::bind(("0.0.0.0", 0)))
            .expect("bind inside");
        let port = listener.local_addr().expect("addr").port();
        let reached = namespace
            .within(|| TcpStream::connect(("203.0.113.7", port)))
            .expect("any address is local inside");
        assert_eq!(reached.peer_addr().expect("peer").port(), port);
        assert!(
            TcpStream::connect(("127.0.0.1", port)).is_err(),
            "the host cannot reach what listens inside"
        );
    }
}
