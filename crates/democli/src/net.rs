//! Reaching the release registry through an HTTP proxy (REQ-C-012).
//!
//! democli has no TLS client, so it never talks to the registry itself: it asks the
//! proxy for a tunnel with `CONNECT` and reports what the proxy said. The registry host
//! is in `.invalid` (RFC 6761) and never resolves, so without a proxy democli does not
//! try the network at all. The exchange runs on a worker thread while the caller waits
//! at most the timeout, so a DNS lookup, a connect or a read that never ends cannot
//! hold democli past it.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use serde_json::json;

use crate::codec;
use crate::error::{CliError, Status};
use crate::output::TOOL_VERSION;
use crate::signals;

pub const REGISTRY_HOST: &str = "registry.democli.invalid";
const REGISTRY_PORT: u16 = 443;
pub const REGISTRY_URL: &str = "https://registry.democli.invalid/v1/releases";

/// Proxy variables for an https URL, in the order they are consulted; the first one
/// set to a non-empty value wins. Lower case first, as curl reads them.
pub const PROXY_VARS: [&str; 6] = [
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "http_proxy",
    "HTTP_PROXY",
];
pub const NO_PROXY_VARS: [&str; 2] = ["no_proxy", "NO_PROXY"];

/// The longest status line read from a proxy; more is not an HTTP answer.
const MAX_STATUS_LINE: usize = 8 * 1024;
/// How often the wait looks for a signal.
const SLICE: Duration = Duration::from_millis(20);

/// The proxy to reach the registry through, as a proxy variable names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proxy {
    /// The variable it came from.
    pub variable: &'static str,
    /// The variable's value, without any password, for messages.
    pub shown: String,
    host: String,
    port: u16,
    /// `Proxy-Authorization` value when the URL carries `user:password@`.
    authorization: Option<String>,
}

/// How the wait for the proxy ended.
#[derive(Debug)]
pub enum Waited {
    /// The proxy answered with this HTTP status line.
    Answered(String),
    /// The proxy could not be reached or closed the connection; why.
    Unreachable(String),
    TimedOut,
    Interrupted(Signal),
}

/// The proxy for the registry, if the environment names one and `NO_PROXY` does not
/// exempt the registry; an unusable proxy URL is a precondition failure.
pub fn registry_proxy() -> Result<Option<Proxy>, CliError> {
    if NO_PROXY_VARS
        .iter()
        .filter_map(|name| non_empty(name))
        .any(|list| no_proxy_covers(&list, REGISTRY_HOST))
    {
        return Ok(None);
    }
    let Some((variable, value)) = PROXY_VARS
        .iter()
        .find_map(|name| non_empty(name).map(|value| (*name, value)))
    else {
        return Ok(None);
    };
    parse_proxy(variable, &value).map(Some).ok_or_else(|| {
        CliError::execution(
            Status::Precondition,
            "INVALID_PROXY",
            format!("{variable} is not an http:// proxy URL democli can use"),
        )
        .fix(format!(
            "Set {variable} to http://HOST:PORT, or unset it to answer from the local data file"
        ))
        .context(json!({ "variable": variable }))
    })
}

fn non_empty(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// Whether a `NO_PROXY` list exempts `host`: `*`, the host itself, or a domain it is in
/// (`democli.invalid` and `.democli.invalid` both cover its subdomains).
fn no_proxy_covers(list: &str, host: &str) -> bool {
    list.split([',', ' '])
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .any(|entry| {
            let entry = entry.trim_start_matches("*.").trim_start_matches('.');
            let entry = entry.split(':').next().unwrap_or(entry);
            entry == "*"
                || host.eq_ignore_ascii_case(entry)
                || host
                    .to_ascii_lowercase()
                    .ends_with(&format!(".{}", entry.to_ascii_lowercase()))
        })
}

/// `http://[user:password@]host[:port][/]`, or the same without the scheme. Any other
/// scheme (https, socks) is a proxy democli cannot speak to.
fn parse_proxy(variable: &'static str, value: &str) -> Option<Proxy> {
    let value = value.trim();
    let rest = match value.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some(_) => return None,
        None => value,
    };
    let authority = rest.split('/').next().unwrap_or(rest);
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((userinfo, hostport)) => (Some(userinfo), hostport),
        None => (None, authority),
    };
    let (host, port) = if let Some(bracketed) = hostport.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']')?;
        (host, after.strip_prefix(':'))
    } else {
        match hostport.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (hostport, None),
        }
    };
    let port = match port {
        None | Some("") => 80,
        Some(digits) => digits.parse::<u16>().ok().filter(|port| *port != 0)?,
    };
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '_'));
    if !host_ok {
        return None;
    }
    let shown = match userinfo {
        Some(userinfo) => value.replacen(userinfo, "***", 1),
        None => value.to_owned(),
    };
    Some(Proxy {
        variable,
        shown,
        host: host.to_owned(),
        port,
        authorization: userinfo
            .map(|userinfo| format!("Basic {}", codec::base64_encode(userinfo.as_bytes()))),
    })
}

/// Ask `proxy` for a tunnel to the registry and wait for its status line, at most
/// `timeout` (`None`: no limit) and only until a signal arrives.
pub fn ask(proxy: &Proxy, timeout: Option<Duration>) -> Waited {
    let deadline = timeout.map(|timeout| Instant::now() + timeout);
    let (sender, receiver) = mpsc::channel();
    let target = proxy.clone();
    // The worker is never joined: when the wait gives up, the process ends with it.
    thread::spawn(move || {
        let _ = sender.send(exchange(&target));
    });
    loop {
        if let Some(signal) = signals::received() {
            return Waited::Interrupted(signal);
        }
        let slice = match deadline {
            Some(deadline) => {
                let now = Instant::now();
                if now >= deadline {
                    return Waited::TimedOut;
                }
                SLICE.min(deadline - now)
            }
            None => SLICE,
        };
        match receiver.recv_timeout(slice) {
            Ok(waited) => return waited,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Waited::Unreachable("the connection attempt ended unexpectedly".into())
            }
        }
    }
}

/// The blocking exchange: resolve, connect, send `CONNECT`, read the status line.
fn exchange(proxy: &Proxy) -> Waited {
    let addresses: Vec<_> = match (proxy.host.as_str(), proxy.port).to_socket_addrs() {
        Ok(addresses) => addresses.collect(),
        Err(error) => {
            return Waited::Unreachable(format!("cannot resolve the proxy host: {error}"))
        }
    };
    let mut stream = match TcpStream::connect(&addresses[..]) {
        Ok(stream) => stream,
        Err(error) => return Waited::Unreachable(format!("cannot connect to the proxy: {error}")),
    };
    let mut request = format!(
        "CONNECT {REGISTRY_HOST}:{REGISTRY_PORT} HTTP/1.1\r\nHost: {REGISTRY_HOST}:{REGISTRY_PORT}\r\nUser-Agent: democli/{TOOL_VERSION}\r\n"
    );
    if let Some(authorization) = &proxy.authorization {
        request.push_str(&format!("Proxy-Authorization: {authorization}\r\n"));
    }
    request.push_str("\r\n");
    if let Err(error) = stream.write_all(request.as_bytes()) {
        return Waited::Unreachable(format!("cannot send to the proxy: {error}"));
    }
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < MAX_STATUS_LINE {
        match stream.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => {
                return Waited::Unreachable(format!("cannot read the proxy's answer: {error}"))
            }
        }
    }
    let line = String::from_utf8_lossy(&line).trim_end().to_owned();
    if line.starts_with("HTTP/") {
        Waited::Answered(line)
    } else if line.is_empty() {
        Waited::Unreachable("the proxy closed the connection without answering".into())
    } else {
        Waited::Unreachable("the proxy's answer is not HTTP".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(value: &str) -> Option<(String, u16, bool)> {
        parse_proxy("HTTPS_PROXY", value)
            .map(|proxy| (proxy.host, proxy.port, proxy.authorization.is_some()))
    }

    #[test]
    fn proxy_urls() {
        assert_eq!(
            parsed("http://127.0.0.1:8080"),
            Some(("127.0.0.1".into(), 8080, false))
        );
        assert_eq!(
            parsed("http://proxy.corp/"),
            Some(("proxy.corp".into(), 80, false))
        );
        assert_eq!(
            parsed("proxy.corp:3128"),
            Some(("proxy.corp".into(), 3128, false))
        );
        assert_eq!(parsed("http://[::1]:9"), Some(("::1".into(), 9, false)));
        assert_eq!(parsed("http://u:p@h:1"), Some(("h".into(), 1, true)));
        for bad in [
            "https://h:1",
            "socks5://h:1",
            "http://:1",
            "http://h:0",
            "http://h:x",
            "h h",
        ] {
            assert_eq!(parsed(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_password_is_never_shown() {
        let proxy = parse_proxy("HTTPS_PROXY", "http://me:secret@h:1");
        assert_eq!(proxy.map(|p| p.shown), Some("http://***@h:1".to_owned()));
    }

    #[test]
    fn no_proxy_lists() {
        for list in [
            "*",
            "registry.democli.invalid",
            ".democli.invalid",
            "democli.invalid",
            "a, invalid:443",
        ] {
            assert!(no_proxy_covers(list, REGISTRY_HOST), "{list}");
        }
        for list in ["", "example.com", "registry.democli", "other.invalid"] {
            assert!(!no_proxy_covers(list, REGISTRY_HOST), "{list}");
        }
    }
}
