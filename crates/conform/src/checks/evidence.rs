//! Evidence: what a failing run did, bounded so that a report stays readable and
//! small whatever the tool printed.

use serde::Serialize;

use super::Judged;
use crate::exec::Exit;

/// Bytes of stdout/stderr quoted in evidence.
pub const EXCERPT_BYTES: usize = 2048;

/// One run's evidence, as a failure entry of a check. The first seven fields are the
/// reference kit's, in its order; the rest are conform's additions.
#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    pub probe: String,
    pub argv: Vec<String>,
    pub stdin: &'static str,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub detail: String,
    /// Signal that ended the process, when it did not exit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Environment changes relative to the kit's: `NAME=value` set, `-NAME` removed.
    pub env: Vec<String>,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub stdout_excerpt: String,
    pub stderr_excerpt: String,
    /// After the tool exited, something it started held its output open; the kit
    /// stopped waiting.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pipe_held_open: bool,
}

impl Evidence {
    pub fn of(run: &Judged<'_>, detail: String) -> Evidence {
        let r = run.record;
        Evidence {
            probe: run.planned.label.clone(),
            argv: r.argv.clone(),
            stdin: r.stdin.as_str(),
            exit_code: r.exit_code(),
            timed_out: r.timed_out,
            duration_ms: u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
            detail,
            signal: match r.exit {
                Exit::Signal(n) => Some(signal_name(n)),
                _ => None,
            },
            env: r.env_changes.clone(),
            stdout_bytes: r.stdout.total_bytes,
            stderr_bytes: r.stderr.total_bytes,
            stdout_excerpt: excerpt(&r.stdout.bytes),
            stderr_excerpt: excerpt(&r.stderr.bytes),
            pipe_held_open: r.pipe_held_open,
        }
    }
}

/// The start of `bytes`, decoded lossily, with a marker when cut.
pub fn excerpt(bytes: &[u8]) -> String {
    if bytes.len() <= EXCERPT_BYTES {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut text = String::from_utf8_lossy(&bytes[..EXCERPT_BYTES]).into_owned();
    text.push_str(&format!("... [{} more bytes]", bytes.len() - EXCERPT_BYTES));
    text
}

/// `SIGSEGV` for 11, and so on.
pub fn signal_name(n: i32) -> String {
    nix::sys::signal::Signal::try_from(n)
        .map_or_else(|_| format!("signal {n}"), |s| s.as_str().to_string())
}
