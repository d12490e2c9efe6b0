//! Reading a run's output: ANSI sequences, the stdout envelope, byte sizes.

use serde_json::Value;

use crate::checks::evidence::quoted;
use crate::checks::{schemas, Judged};

/// Position of the first ANSI CSI sequence (`ESC [ params letter`), as the reference
/// kit matches them.
pub(crate) fn find_ansi(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0x1b && bytes[i + 1] == b'[' {
            let mut j = i + 2;
            while j < bytes.len()
                && (bytes[j].is_ascii_digit() || bytes[j] == b';' || bytes[j] == b'?')
            {
                j += 1;
            }
            if j < bytes.len() && bytes[j].is_ascii_alphabetic() {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// Why a tool had to write JSON where it wrote nothing or something else: the end of
/// the failure detail, by where stdout was.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonRule {
    /// After "stdout is empty".
    pub(crate) when_empty: &'static str,
    /// After "stdout is not a single JSON document (...); it starts ...".
    pub(crate) when_not_json: &'static str,
}

/// stdout is a pipe: JSON without any flag.
pub(crate) const PIPED: JsonRule = JsonRule {
    when_empty: "a non-TTY stdout must carry a JSON envelope without any flag (REQ-F-003)",
    when_not_json: "JSON must be on by default when stdout is not a terminal (REQ-F-003)",
};

/// stdout as exactly one JSON object that validates as a ResponseEnvelope. Checks
/// read it through [`Context::envelope`](crate::checks::Context::envelope), which parses once.
pub(crate) fn parse(run: &Judged<'_>) -> Result<Value, String> {
    parse_as(run, &run.record.stdout.bytes, &PIPED)
}

/// `stdout` (the run's, or what is left of it once something the check does not
/// judge is removed) as exactly one valid ResponseEnvelope, `rule` saying why it
/// had to be.
pub(crate) fn parse_as(run: &Judged<'_>, stdout: &[u8], rule: &JsonRule) -> Result<Value, String> {
    let out = &run.record.stdout;
    if out.truncated {
        return Err(format!(
            "stdout exceeded the {} capture cap ({} bytes written); an envelope that large is not one an agent can read (raise --capture-limit if it is intended)",
            human_bytes(run.planned.spec.capture_limit as u64),
            out.total_bytes
        ));
    }
    let text = match std::str::from_utf8(stdout) {
        Ok(text) => text,
        Err(e) => {
            return Err(format!(
                "stdout is not valid UTF-8 (invalid byte at offset {}), so it is not JSON",
                e.valid_up_to()
            ))
        }
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        let hint = if run.record.stderr.total_bytes > 0 {
            " (the tool wrote only to stderr)"
        } else {
            ""
        };
        return Err(format!("stdout is empty{hint}; {}", rule.when_empty));
    }
    let document: Value = serde_json::from_str(trimmed).map_err(|e| {
        let start: String = trimmed.chars().take(60).collect();
        format!(
            "stdout is not a single JSON document ({e}); it starts {}: {}",
            quoted(&start),
            rule.when_not_json
        )
    })?;
    if !document.is_object() {
        return Err(format!(
            "stdout is JSON but not an object ({}); a ResponseEnvelope is an object",
            kind(&document)
        ));
    }
    let errors = schemas::envelope_errors(&document);
    if !errors.is_empty() {
        return Err(format!(
            "stdout is not a valid ResponseEnvelope: {}",
            schemas::summarize(&errors)
        ));
    }
    Ok(document)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn human_bytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    const KIB: u64 = 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n}-byte")
    }
}

/// What a sandboxed run left in its fresh directories, for a detail (`config/tool/,
/// cache/tool/x and 3 more`); `None` when nothing.
pub(crate) fn files_created(run: &Judged<'_>) -> Option<String> {
    let report = run.record.sandbox.as_ref()?;
    if report.created.is_empty() {
        return None;
    }
    let mut shown = report.created.join(", ");
    if report.created_more > 0 {
        shown.push_str(&format!(" and {} more", report.created_more));
    }
    Some(shown)
}

/// Bytes of each stream [`streams_start`] quotes: enough to show a prompt.
pub(crate) const SHOWN: usize = 120;

/// `stdout starts "democli> ", stderr is empty`: what a run wrote, briefly, so
/// that a failure shows a prompt or a traceback where there was one.
pub(crate) fn streams_start(run: &Judged<'_>) -> String {
    let show = |name: &str, bytes: &[u8]| {
        if bytes.is_empty() {
            format!("{name} is empty")
        } else {
            let start = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
            format!("{name} starts {}", quoted(&start))
        }
    };
    format!(
        "{}, {}",
        show("stdout", &run.record.stdout.bytes),
        show("stderr", &run.record.stderr.bytes)
    )
}

/// Everything the run printed, as text: stdout, then stderr (a help may be on
/// either).
pub(crate) fn printed(run: &Judged<'_>) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&run.record.stdout.bytes),
        String::from_utf8_lossy(&run.record.stderr.bytes)
    )
}
