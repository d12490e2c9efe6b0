//! What a run was waiting on when it hit its limit: read from `/proc` right before
//! the kit's SIGTERM, for every live process of the tool's group, so that the
//! evidence says "blocked reading stdin after printing `Name:`" or "listening on
//! port 8001" instead of only "no exit".
//!
//! For each thread, `/proc/PID/task/TID/syscall` gives the system call it is
//! blocked in and its arguments. A read, `recv`, `connect` or `accept` names its fd,
//! `/proc/PID/fd/FD` says what that is (the run's stdin pipe, a terminal, a socket),
//! and `/proc/PID/net/tcp{,6}` what a socket is connected to or listening on. A
//! `poll` or `select` names its fds in the process's memory (`/proc/PID/mem`), an
//! `epoll_wait` in its epoll fd's `fdinfo`; when those cannot be read, the fds the
//! process holds stand in. A `wait4` or `waitid` is a wait on a child, named by its
//! command. What cannot be named (a sleep, a futex) is said to be nothing.
//!
//! Best effort, never an error: a process that exits meanwhile, a `/proc` entry
//! that is missing or unreadable (other systems, a kernel without it) give less to
//! name, and at worst [`WaitingOn::Unknown`].

use std::collections::HashMap;
use std::fs::File;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::unix::fs::FileExt;

use super::blackhole::{ProxyRequest, DIRECT_PORTS};

/// What a run's processes were blocked on at its limit, most telling first: the
/// first a process of the group shows is what the run waited on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WaitingOn {
    /// A read of the run's stdin pipe, or (`terminal`) of a terminal. `after` is the
    /// last line the tool printed before it, cut to [`LINE_CHARS`] characters.
    Stdin {
        terminal: bool,
        after: Option<String>,
    },
    /// A connection to the run's own black-hole proxy.
    BlackHole,
    /// A TCP connection to another address; `connecting` while the handshake has
    /// not completed.
    Network {
        remote: SocketAddr,
        connecting: bool,
    },
    /// A socket that is no TCP connection `/proc` lists (a Unix socket, UDP).
    Socket,
    /// A listening TCP socket: a server.
    Listening { port: u16 },
    /// A child process, by its command name when it could be read.
    Child { name: Option<String> },
    /// Running on a CPU, not blocked at all.
    Busy,
    /// Blocked with none of the above to name: a sleep, a futex, a poll of nothing
    /// named.
    Nothing,
    /// `/proc` showed nothing of the group.
    Unknown,
}

/// The most characters of the tool's last line quoted.
pub(crate) const LINE_CHARS: usize = 80;

impl WaitingOn {
    /// Lower is more telling.
    fn rank(&self) -> u8 {
        match self {
            WaitingOn::Stdin { .. } => 0,
            WaitingOn::BlackHole => 1,
            WaitingOn::Network { .. } => 2,
            WaitingOn::Socket => 3,
            WaitingOn::Listening { .. } => 4,
            WaitingOn::Child { .. } => 5,
            WaitingOn::Busy => 6,
            WaitingOn::Nothing => 7,
            WaitingOn::Unknown => 8,
        }
    }

    /// The more telling of two readings (`self` on a tie).
    fn or(self, other: WaitingOn) -> WaitingOn {
        if other.rank() < self.rank() {
            other
        } else {
            self
        }
    }

    /// A short name, for machines: `stdin`, `terminal`, `black_hole`, `network`,
    /// `socket`, `listening`, `child`, `busy`, `nothing`, `unknown`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            WaitingOn::Stdin {
                terminal: false, ..
            } => "stdin",
            WaitingOn::Stdin { terminal: true, .. } => "terminal",
            WaitingOn::BlackHole => "black_hole",
            WaitingOn::Network { .. } => "network",
            WaitingOn::Socket => "socket",
            WaitingOn::Listening { .. } => "listening",
            WaitingOn::Child { .. } => "child",
            WaitingOn::Busy => "busy",
            WaitingOn::Nothing => "nothing",
            WaitingOn::Unknown => "unknown",
        }
    }

    /// In words, for a failure's detail; `requests` are what the run's black hole
    /// recorded, whose last host names a wait on it.
    pub(crate) fn describe(&self, requests: &[ProxyRequest]) -> String {
        match self {
            WaitingOn::Stdin { terminal, after } => {
                let what = if *terminal { "the terminal" } else { "stdin" };
                match after {
                    Some(line) => format!("blocked reading {what} after printing `{line}`"),
                    None => format!("blocked reading {what} before printing anything"),
                }
            }
            WaitingOn::BlackHole => {
                let asked = requests.iter().rev().find_map(|request| {
                    let host = request.host.as_deref()?;
                    Some(match request.port {
                        Some(port) => format!("{host}:{port}"),
                        None => host.to_string(),
                    })
                });
                match asked {
                    Some(target) => {
                        format!("waiting on a connection to {target} at the black hole")
                    }
                    None => "waiting on a connection to the black hole".to_string(),
                }
            }
            WaitingOn::Network {
                remote,
                connecting: true,
            } => format!("waiting to connect to {remote}"),
            WaitingOn::Network { remote, .. } => {
                format!("waiting on a connection to {remote}")
            }
            WaitingOn::Socket => "waiting on a socket (not a TCP connection)".to_string(),
            WaitingOn::Listening { port } => format!("listening on port {port} (a server)"),
            WaitingOn::Child { name: Some(name) } => {
                format!("waiting on a child process (`{name}`)")
            }
            WaitingOn::Child { name: None } => "waiting on a child process".to_string(),
            WaitingOn::Busy => "running on the CPU, not blocked".to_string(),
            WaitingOn::Nothing => {
                "sleeping or polling with no stdin, network or child to name".to_string()
            }
            WaitingOn::Unknown => "what it waited on could not be read".to_string(),
        }
    }
}

/// What the reader needs to know of the run.
#[derive(Debug, Clone, Copy)]
pub(super) struct Run {
    /// The tool's process group (its main pid).
    pub group: i32,
    /// The inode of the run's stdin pipe, when stdin is one.
    pub stdin_pipe: Option<u64>,
    /// The port of the run's black-hole listener, when it has one.
    pub black_hole: Option<u16>,
    /// The run is in a namespace of its own, where the black hole also listens on
    /// the direct ports at every address.
    pub isolated: bool,
}

/// What the live processes of `run`'s group are blocked on, most telling first.
/// `Stdin`'s `after` is left for the caller, which holds the output.
pub(super) fn read(run: Run) -> WaitingOn {
    let table = processes();
    let reader = Reader {
        run,
        table: &table,
        sockets: tcp_sockets(run.group),
    };
    table
        .iter()
        .filter(|process| process.group == run.group && process.state != 'Z')
        .map(|process| reader.process(process))
        .reduce(WaitingOn::or)
        .unwrap_or(WaitingOn::Unknown)
}

/// The last line in `bytes` (the unfinished one, when the output does not end on a
/// newline), trimmed, without control characters, its last [`LINE_CHARS`]
/// characters when longer; `None` when nothing but blanks was printed.
pub(crate) fn last_line(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let line = text
        .split(['\n', '\r'])
        .map(str::trim)
        .rfind(|line| !line.is_empty())?;
    let clean: Vec<char> = strip_escapes(line)
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    if clean.is_empty() {
        return None;
    }
    let start = clean.len().saturating_sub(LINE_CHARS - 1);
    let mut shown: String = clean.get(start..).unwrap_or_default().iter().collect();
    if start > 0 {
        shown.insert(0, '…');
    }
    Some(shown.trim().to_string())
}

/// `line` without ANSI CSI sequences (`ESC [ ... final`), which a prompt in colour
/// carries.
fn strip_escapes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte in @..~.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One process, as `/proc/PID/stat` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Process {
    pid: i32,
    parent: i32,
    group: i32,
    state: char,
    name: String,
}

/// Every process `/proc` lists, by pid.
fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut table: Vec<Process> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
            parse_stat(pid, &String::from_utf8_lossy(&stat))
        })
        .collect();
    table.sort_by_key(|process| process.pid);
    table
}

/// `/proc/PID/stat`: the command name is in parentheses and may hold both, so the
/// fields are counted after its last `)`: state, parent, group.
fn parse_stat(pid: i32, stat: &str) -> Option<Process> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    let mut fields = stat.get(close + 1..)?.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some(Process {
        pid,
        parent,
        group,
        state,
        name,
    })
}

/// What one thread is doing, from `/proc/PID/task/TID/syscall`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Syscall {
    /// On a CPU.
    Running,
    /// Blocked outside any system call (a page fault).
    Outside,
    /// Blocked in this call with these arguments.
    In { number: i64, args: [u64; 6] },
}

/// `running`, `-1 SP PC`, or the call's number then its six arguments in hex.
fn parse_syscall(text: &str) -> Option<Syscall> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    if first == "running" {
        return Some(Syscall::Running);
    }
    let number: i64 = first.parse().ok()?;
    if number < 0 {
        return Some(Syscall::Outside);
    }
    let mut args = [0u64; 6];
    for arg in &mut args {
        let word = words.next()?;
        *arg = u64::from_str_radix(word.trim_start_matches("0x"), 16).ok()?;
    }
    Some(Syscall::In { number, args })
}

/// What a blocking system call waits on, by what its arguments name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    /// Its first argument is the fd it waits on.
    Fd,
    /// `poll`/`ppoll`: an array of `pollfd` and its length.
    Poll,
    /// `select`/`pselect6`: a count and fd sets.
    Select,
    /// `epoll_wait` and its variants: the epoll fd.
    Epoll,
    /// `wait4`: the pid waited for.
    Wait4,
    /// `waitid`: an id type and the id.
    WaitId,
}

/// The calls this reader names, on the architectures whose numbers it knows.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn call(number: i64) -> Option<Call> {
    use nix::libc;
    Some(match number {
        libc::SYS_read
        | libc::SYS_readv
        | libc::SYS_pread64
        | libc::SYS_preadv
        | libc::SYS_preadv2
        | libc::SYS_recvfrom
        | libc::SYS_recvmsg
        | libc::SYS_recvmmsg
        | libc::SYS_connect
        | libc::SYS_accept
        | libc::SYS_accept4 => Call::Fd,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_poll => Call::Poll,
        libc::SYS_ppoll => Call::Poll,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_select => Call::Select,
        libc::SYS_pselect6 => Call::Select,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_epoll_wait => Call::Epoll,
        libc::SYS_epoll_pwait | libc::SYS_epoll_pwait2 => Call::Epoll,
        libc::SYS_wait4 => Call::Wait4,
        libc::SYS_waitid => Call::WaitId,
        _ => return None,
    })
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn call(_: i64) -> Option<Call> {
    None
}

/// The most fds of a `poll` or `select` looked at.
const MOST_FDS: u64 = 4096;

/// A TCP socket as `/proc/PID/net/tcp{,6}` lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TcpSocket {
    local: SocketAddr,
    remote: SocketAddr,
    state: u8,
}

/// The kernel's TCP states read here.
const TCP_SYN_SENT: u8 = 0x02;
const TCP_LISTEN: u8 = 0x0A;

/// Every TCP socket of `pid`'s network namespace, by inode.
fn tcp_sockets(pid: i32) -> HashMap<u64, TcpSocket> {
    ["tcp", "tcp6"]
        .iter()
        .filter_map(|table| std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).ok())
        .flat_map(|text| {
            text.lines()
                .skip(1)
                .filter_map(parse_tcp_line)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// One line of `/proc/net/tcp`: `sl local remote st queues timer retransmits uid
/// timeout inode ...`, addresses as hex `ADDR:PORT` in the kernel's byte order.
fn parse_tcp_line(line: &str) -> Option<(u64, TcpSocket)> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let local = parse_address(fields.get(1)?)?;
    let remote = parse_address(fields.get(2)?)?;
    let state = u8::from_str_radix(fields.get(3)?, 16).ok()?;
    let inode = fields.get(9)?.parse().ok()?;
    Some((
        inode,
        TcpSocket {
            local,
            remote,
            state,
        },
    ))
}

/// `0100007F:1F90` (127.0.0.1:8080 on a little-endian machine) or its 32-digit IPv6
/// form: each 32-bit word is printed as the number it is in memory.
fn parse_address(text: &str) -> Option<SocketAddr> {
    let (address, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let word = |at: usize| -> Option<[u8; 4]> {
        let digits = address.get(at * 8..at * 8 + 8)?;
        u32::from_str_radix(digits, 16).ok().map(u32::to_ne_bytes)
    };
    let ip = match address.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(0)?)),
        32 => {
            let mut bytes = [0u8; 16];
            for (at, chunk) in bytes.chunks_exact_mut(4).enumerate() {
                chunk.copy_from_slice(&word(at)?);
            }
            IpAddr::V6(Ipv6Addr::from(bytes))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// One reading of a group: the process table and the TCP sockets, read once.
struct Reader<'a> {
    run: Run,
    table: &'a [Process],
    sockets: HashMap<u64, TcpSocket>,
}

/// How many times a thread found running is read before it is called busy.
const RUNNING_READS: usize = 4;

impl Reader<'_> {
    /// The most telling of what the threads of `process` wait on.
    fn process(&self, process: &Process) -> WaitingOn {
        let pid = process.pid;
        let threads: Vec<i32> = std::fs::read_dir(format!("/proc/{pid}/task"))
            .map(|tasks| {
                tasks
                    .flatten()
                    .filter_map(|task| task.file_name().to_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        threads
            .into_iter()
            .map(|tid| self.thread(process, tid))
            .reduce(WaitingOn::or)
            .unwrap_or_else(|| self.held(pid).unwrap_or(WaitingOn::Unknown))
    }

    fn thread(&self, process: &Process, tid: i32) -> WaitingOn {
        let pid = process.pid;
        let read = || {
            std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/syscall"))
                .ok()
                .and_then(|text| parse_syscall(&text))
        };
        // A thread caught between two sleeps reads as running: it is busy only
        // when it is running at every one of a few reads (the evidence must not
        // depend on the instant it was read at).
        let mut syscall = read();
        for _ in 1..RUNNING_READS {
            if !matches!(syscall, Some(Syscall::Running)) {
                break;
            }
            std::thread::yield_now();
            syscall = read();
        }
        let (number, args) = match syscall {
            Some(Syscall::Running) => return WaitingOn::Busy,
            Some(Syscall::Outside) => return WaitingOn::Nothing,
            Some(Syscall::In { number, args }) => (number, args),
            // Unreadable (another user's, a kernel without it): what it holds.
            None => return self.held(pid).unwrap_or(WaitingOn::Unknown),
        };
        let polled = match call(number) {
            None => return WaitingOn::Nothing,
            Some(Call::Fd) => {
                return fd_arg(args[0])
                    .and_then(|fd| self.fd(pid, fd))
                    .unwrap_or(WaitingOn::Nothing)
            }
            Some(Call::Wait4) => return self.child(process, pid_arg(args[0])),
            Some(Call::WaitId) => {
                // P_PID is 1: the id is a pid; other id types wait for any child.
                let child = if args[0] == 1 { pid_arg(args[1]) } else { None };
                return self.child(process, child);
            }
            Some(Call::Poll) => poll_fds(pid, args[0], args[1]),
            Some(Call::Select) => select_fds(pid, args[0], args[1], args[2]),
            Some(Call::Epoll) => fd_arg(args[0]).and_then(|epoll| epoll_fds(pid, epoll)),
        };
        match polled {
            Some(fds) => fds
                .into_iter()
                .filter_map(|fd| self.fd(pid, fd))
                .reduce(WaitingOn::or)
                .unwrap_or(WaitingOn::Nothing),
            // The set could not be read: what the process holds stands in.
            None => self.held(pid).unwrap_or(WaitingOn::Nothing),
        }
    }

    /// What `fd` of `pid` is, when it is something to name.
    fn fd(&self, pid: i32, fd: i32) -> Option<WaitingOn> {
        let link = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()?;
        let link = link.to_str()?;
        if let Some(inode) = inode_of(link, "pipe:[") {
            return (Some(inode) == self.run.stdin_pipe).then_some(WaitingOn::Stdin {
                terminal: false,
                after: None,
            });
        }
        if let Some(inode) = inode_of(link, "socket:[") {
            return Some(self.socket(inode));
        }
        let terminal =
            link.starts_with("/dev/pts/") || link.starts_with("/dev/tty") || link == "/dev/console";
        terminal.then_some(WaitingOn::Stdin {
            terminal: true,
            after: None,
        })
    }

    fn socket(&self, inode: u64) -> WaitingOn {
        let Some(socket) = self.sockets.get(&inode) else {
            return WaitingOn::Socket;
        };
        if socket.state == TCP_LISTEN {
            return WaitingOn::Listening {
                port: socket.local.port(),
            };
        }
        let remote = socket.remote;
        if Some(remote.port()) == self.run.black_hole && remote.ip().to_canonical().is_loopback() {
            return WaitingOn::BlackHole;
        }
        // Inside, every address is local: a connection that stays open on a
        // direct port is one the black hole took.
        if self.run.isolated && DIRECT_PORTS.contains(&remote.port()) {
            return WaitingOn::BlackHole;
        }
        WaitingOn::Network {
            remote,
            connecting: socket.state == TCP_SYN_SENT,
        }
    }

    /// What the fds `pid` holds suggest, when its wait cannot be read: a socket
    /// (listening, or connected to the black hole or elsewhere), else the run's
    /// stdin or a terminal; every process holds fd 0, so it counts only alone.
    fn held(&self, pid: i32) -> Option<WaitingOn> {
        let fds: Vec<i32> = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .ok()?
            .flatten()
            .filter_map(|fd| fd.file_name().to_str()?.parse().ok())
            .collect();
        let named: Vec<WaitingOn> = fds.iter().filter_map(|&fd| self.fd(pid, fd)).collect();
        let sockets = named
            .iter()
            .filter(|what| {
                matches!(
                    what,
                    WaitingOn::BlackHole | WaitingOn::Network { .. } | WaitingOn::Listening { .. }
                )
            })
            .cloned()
            .reduce(WaitingOn::or);
        sockets.or_else(|| named.into_iter().reduce(WaitingOn::or))
    }

    /// A wait on `child` (any child when `None`), named by its command.
    fn child(&self, process: &Process, child: Option<i32>) -> WaitingOn {
        let name = self
            .table
            .iter()
            .find(|other| match child {
                Some(pid) => other.pid == pid,
                None => other.parent == process.pid && other.state != 'Z',
            })
            .map(|other| other.name.clone());
        WaitingOn::Child { name }
    }
}

/// The inode of a `pipe:[N]` or `socket:[N]` link.
fn inode_of(link: &str, prefix: &str) -> Option<u64> {
    link.strip_prefix(prefix)?.strip_suffix(']')?.parse().ok()
}

/// An fd argument: the low 32 bits, as the kernel reads an `int`.
fn fd_arg(arg: u64) -> Option<i32> {
    i32::try_from(arg & 0xffff_ffff).ok()
}

/// A pid argument, when it names one process (not -1 or a group).
fn pid_arg(arg: u64) -> Option<i32> {
    let pid = (arg & 0xffff_ffff) as u32 as i32;
    (pid > 0).then_some(pid)
}

/// Reads `len` bytes of `pid`'s memory at `address`.
fn memory(pid: i32, address: u64, len: usize) -> Option<Vec<u8>> {
    if address == 0 {
        return None;
    }
    let file = File::open(format!("/proc/{pid}/mem")).ok()?;
    let mut bytes = vec![0u8; len];
    file.read_exact_at(&mut bytes, address).ok()?;
    Some(bytes)
}

/// The fds of a `poll`: `count` `struct pollfd { int fd; short events, revents; }`
/// at `array`.
fn poll_fds(pid: i32, array: u64, count: u64) -> Option<Vec<i32>> {
    let count = usize::try_from(count.min(MOST_FDS)).ok()?;
    let bytes = memory(pid, array, count * 8)?;
    Some(
        bytes
            .chunks_exact(8)
            .filter_map(|pollfd| {
                let fd = i32::from_ne_bytes(pollfd.get(..4)?.try_into().ok()?);
                (fd >= 0).then_some(fd)
            })
            .collect(),
    )
}

/// The fds of a `select`: the bits set below `count` in the read and write sets.
fn select_fds(pid: i32, count: u64, read: u64, write: u64) -> Option<Vec<i32>> {
    let count = usize::try_from(count.min(MOST_FDS)).ok()?;
    // fd_set is an array of longs: its size rounds up to 8 bytes.
    let len = count.div_ceil(64) * 8;
    let sets: Vec<Vec<u8>> = [read, write]
        .into_iter()
        .filter(|&at| at != 0)
        .map(|at| memory(pid, at, len))
        .collect::<Option<_>>()?;
    let mut fds: Vec<i32> = (0..count)
        .filter(|&fd| {
            sets.iter().any(|set| {
                set.get(fd / 8)
                    .is_some_and(|byte| byte & (1 << (fd % 8)) != 0)
            })
        })
        .filter_map(|fd| i32::try_from(fd).ok())
        .collect();
    fds.dedup();
    Some(fds)
}

/// The fds an epoll instance watches: the `tfd:` lines of its fdinfo.
fn epoll_fds(pid: i32, epoll: i32) -> Option<Vec<i32>> {
    let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{epoll}")).ok()?;
    Some(parse_epoll_info(&info))
}

fn parse_epoll_info(info: &str) -> Vec<i32> {
    info.lines()
        .filter_map(|line| line.strip_prefix("tfd:"))
        .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn syscall_lines_give_the_call_and_its_arguments() {
        assert_eq!(parse_syscall("running\n"), Some(Syscall::Running));
        assert_eq!(parse_syscall("-1 0x7ffd0 0x7f00\n"), Some(Syscall::Outside));
        assert_eq!(
            parse_syscall("0 0x0 0x7ff04584f000 0x20000 0x7ff0 0xffffffff 0x0 0x7ffe 0x7ff0\n"),
            Some(Syscall::In {
                number: 0,
                args: [0, 0x7ff0_4584_f000, 0x20000, 0x7ff0, 0xffff_ffff, 0],
            })
        );
        assert_eq!(parse_syscall("0 0x0"), None);
        assert_eq!(parse_syscall(""), None);
    }

    #[test]
    fn tcp_lines_give_addresses_state_and_inode() {
        let line = "   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 \
                    00000000  1000        0 424242 1 0000000000000000 20 4 30 10 -1";
        let (inode, socket) = parse_tcp_line(line).expect("a socket");
        assert_eq!(inode, 424_242);
        assert_eq!(socket.state, 0x01);
        if cfg!(target_endian = "little") {
            assert_eq!(socket.local, "127.0.0.1:8080".parse().expect("address"));
            assert_eq!(socket.remote, "127.0.0.1:50000".parse().expect("address"));
        }
        let six = "   0: 00000000000000000000000001000000:1F41 \
                   00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 \
                   00000000  1000        0 77 1 0000000000000000 100 0 0 10 0";
        let (inode, socket) = parse_tcp_line(six).expect("a socket");
        assert_eq!((inode, socket.state, socket.local.port()), (77, 0x0A, 8001));
        if cfg!(target_endian = "little") {
            assert_eq!(socket.local.ip(), IpAddr::V6(Ipv6Addr::LOCALHOST));
        }
        assert_eq!(parse_tcp_line("  sl  local_address rem_address   st"), None);
    }

    #[test]
    fn an_epoll_fdinfo_lists_the_watched_fds() {
        let info = "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\n\
                    tfd:        5 events:       19 data:                5  pos:0 ino:1a3e sdev:8\n\
                    tfd:       12 events:       19 data:                c  pos:0 ino:1a40 sdev:8\n";
        assert_eq!(parse_epoll_info(info), [5, 12]);
    }

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let process = parse_stat(42, "42 (a (b) c) S 7 40 40 0 -1 4194560").expect("parsed");
        assert_eq!(
            process,
            Process {
                pid: 42,
                parent: 7,
                group: 40,
                state: 'S',
                name: "a (b) c".into()
            }
        );
    }

    #[test]
    fn the_last_line_is_the_prompt_left_unfinished_cut_to_its_end() {
        assert_eq!(
            last_line(b"Welcome\nDisplay name []: ").as_deref(),
            Some("Display name []:")
        );
        assert_eq!(last_line(b"one\ntwo\n\n").as_deref(), Some("two"));
        assert_eq!(
            last_line(b"\x1b[1mPassword:\x1b[0m ").as_deref(),
            Some("Password:")
        );
        assert_eq!(last_line(b"\n \n"), None);
        let long = format!("{}END", "x".repeat(200));
        let shown = last_line(long.as_bytes()).expect("a line");
        assert_eq!(shown.chars().count(), LINE_CHARS);
        assert!(shown.starts_with('…') && shown.ends_with("END"), "{shown}");
    }

    #[test]
    fn the_most_telling_wait_wins() {
        let stdin = WaitingOn::Stdin {
            terminal: false,
            after: None,
        };
        let child = WaitingOn::Child { name: None };
        assert_eq!(child.clone().or(stdin.clone()), stdin);
        assert_eq!(stdin.clone().or(child.clone()), stdin);
        assert_eq!(
            WaitingOn::Nothing.or(WaitingOn::Listening { port: 1 }),
            WaitingOn::Listening { port: 1 }
        );
        assert_eq!(
            WaitingOn::BlackHole.or(WaitingOn::Busy),
            WaitingOn::BlackHole
        );
    }

    #[test]
    fn a_wait_at_the_black_hole_names_the_host_last_asked_for() {
        let request = |host: Option<&str>| ProxyRequest {
            host: host.map(String::from),
            port: host.map(|_| 443),
            path: None,
            unsent: false,
            at: Duration::ZERO,
        };
        assert_eq!(
            WaitingOn::BlackHole.describe(&[
                request(Some("telemetry.example")),
                request(Some("api.example.com")),
                request(None)
            ]),
            "waiting on a connection to api.example.com:443 at the black hole"
        );
        assert_eq!(
            WaitingOn::BlackHole.describe(&[]),
            "waiting on a connection to the black hole"
        );
        assert_eq!(
            WaitingOn::Listening { port: 8001 }.describe(&[]),
            "listening on port 8001 (a server)"
        );
        assert_eq!(
            WaitingOn::Child {
                name: Some("less".into())
            }
            .describe(&[]),
            "waiting on a child process (`less`)"
        );
        assert_eq!(
            WaitingOn::Stdin {
                terminal: false,
                after: Some("Display name []:".into())
            }
            .describe(&[]),
            "blocked reading stdin after printing `Display name []:`"
        );
    }
}
