//! Where output goes and what it looks like: format selection (REQ-F-003), color
//! rules (REQ-F-007/008), the ResponseEnvelope (REQ-F-004) and raw writes.

use std::io::{self, IsTerminal, Write};
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::defect::{Defect, Faults};
use crate::error::CliError;

pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Version of democli's own output contract (`meta.schema_version`, REQ-F-022).
pub const OUTPUT_SCHEMA_VERSION: &str = "1.0";
/// The version the `stale-tool-version` defect reports in `meta.tool_version`: an
/// older build's, which `--version` does not print.
const STALE_TOOL_VERSION: &str = "0.0.9";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Plain,
}

impl Format {
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "json" => Some(Format::Json),
            "plain" => Some(Format::Plain),
            _ => None,
        }
    }
}

/// What the process was started with that decides the look of its output.
#[derive(Debug, Clone, Copy)]
pub struct Environment {
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    /// `CI` set to a non-empty value, or `NO_COLOR` set: JSON by default (REQ-F-003).
    pub machine_context: bool,
    /// No `NO_COLOR`, `CI`, `GITHUB_ACTIONS`, `JENKINS_URL` or `TERM=dumb` (REQ-F-008).
    pub color_allowed: bool,
}

impl Environment {
    pub fn capture() -> Self {
        let set = |name: &str| std::env::var_os(name).is_some();
        let ci = std::env::var_os("CI").is_some_and(|value| !value.is_empty());
        // NO_COLOR counts with any value, the empty string included (no-color.org).
        let no_color = set("NO_COLOR");
        let dumb = std::env::var_os("TERM").is_some_and(|term| term == "dumb");
        Self {
            stdout_tty: io::stdout().is_terminal(),
            stderr_tty: io::stderr().is_terminal(),
            machine_context: ci || no_color,
            color_allowed: !(no_color
                || set("CI")
                || set("GITHUB_ACTIONS")
                || set("JENKINS_URL")
                || dumb),
        }
    }
}

/// Output decisions for this run.
#[derive(Debug, Clone, Copy)]
pub struct Ui {
    pub format: Format,
    /// The `--format` the caller passed, if any.
    pub explicit: Option<Format>,
    pub env: Environment,
    pub faults: Faults,
}

impl Ui {
    pub fn new(explicit: Option<Format>, env: Environment, faults: Faults) -> Self {
        // The table-on-terminal-in-ci defect looks at the terminal alone.
        let machine_context = env.machine_context && !faults.on(Defect::TableOnTerminalInCi);
        let default =
            if faults.on(Defect::JsonNeedsFormatFlag) || (env.stdout_tty && !machine_context) {
                Format::Plain
            } else {
                Format::Json
            };
        Self {
            format: explicit.unwrap_or(default),
            explicit,
            env,
            faults,
        }
    }

    /// Color on stdout: only on a terminal, and only where the environment allows it.
    pub fn stdout_paint(&self) -> Paint {
        Paint(self.env.stdout_tty && self.color_allowed())
    }

    pub fn stderr_paint(&self) -> Paint {
        Paint(
            (self.env.stderr_tty && self.color_allowed())
                || self.faults.on(Defect::StderrColorIgnoresNoColor),
        )
    }

    /// Syntax-highlight JSON envelopes: `--format json` typed at a terminal.
    fn highlight_json(&self) -> bool {
        (self.env.stdout_tty || self.faults.on(Defect::AnsiWhenPiped)) && self.color_allowed()
    }

    /// Whether the environment allows color; the defect ignores it on a terminal.
    fn color_allowed(&self) -> bool {
        self.env.color_allowed
            || (self.env.stdout_tty && self.faults.on(Defect::ColorOnTerminalDespiteNoColor))
    }

    /// Write one ResponseEnvelope as a single line on stdout.
    pub fn write_envelope(&self, mut envelope: Value) -> io::Result<()> {
        if self.faults.on(Defect::EnvelopeMissingWarnings) {
            if let Value::Object(map) = &mut envelope {
                map.remove("warnings");
            }
        }
        if self.faults.on(Defect::StaleToolVersion) {
            if let Some(meta) = envelope.get_mut("meta").and_then(Value::as_object_mut) {
                meta.insert("tool_version".into(), json!(STALE_TOOL_VERSION));
            }
        }
        let mut line = if self.highlight_json() {
            let mut text = String::new();
            highlight(&envelope, &mut text);
            text
        } else {
            envelope.to_string()
        };
        line.push('\n');
        write_stdout(&line)
    }

    /// Report a failure: a line on stderr for people, and the envelope on stdout in
    /// JSON mode. Returns the process exit code.
    pub fn write_error(&self, error: &CliError, command: &str, started: Instant) -> io::Result<u8> {
        let mut exit_code = error.status.code();
        let mut declared = exit_code;
        let input_error = exit_code == 2;
        if self.faults.on(Defect::UsageErrorExit64)
            && input_error
            && error.code != "CONFIRMATION_REQUIRED"
        {
            (exit_code, declared) = (64, 64);
        }
        if self.faults.on(Defect::UnknownFlagExit1) && error.code == "UNKNOWN_FLAG" {
            (exit_code, declared) = (1, 1);
        }
        if self.faults.on(Defect::UnknownCommandExit1) && error.code == "UNKNOWN_COMMAND" {
            (exit_code, declared) = (1, 1);
        }
        if self.faults.on(Defect::EnvelopeExitCodeMismatch) && input_error {
            declared = 1;
        }

        let paint = self.stderr_paint();
        let mut text = format!("{} {}\n", paint.red("democli: error:"), error.message);
        if let Some(fix) = error.fix_required() {
            text.push_str(&format!("  fix: {fix}\n"));
        }
        if let Some(suggestion) = error.suggestion() {
            text.push_str(&format!("  try: {suggestion}\n"));
        }
        write_stderr(&text);

        if self.format == Format::Json {
            let meta = Meta::new(command, started);
            self.write_envelope(envelope(
                declared,
                error.payload().clone(),
                Some(error.detail_for(self.faults)),
                meta.finish(declared),
            ))?;
        }
        Ok(exit_code)
    }
}

/// `meta` of an envelope under construction: standard fields first, then extras.
pub struct Meta {
    command: String,
    started: Instant,
    extra: Map<String, Value>,
}

impl Meta {
    pub fn new(command: &str, started: Instant) -> Self {
        Self {
            command: command.to_owned(),
            started,
            extra: Map::new(),
        }
    }

    pub fn insert(&mut self, key: &str, value: Value) {
        self.extra.insert(key.to_owned(), value);
    }

    pub fn extend(&mut self, extra: Map<String, Value>) {
        self.extra.extend(extra);
    }

    /// Final `meta` for a response that exits with `exit_code`.
    pub fn finish(self, exit_code: u8) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert("exit_code".into(), json!(exit_code));
        meta.insert("duration_ms".into(), json!(elapsed_ms(self.started)));
        if !self.command.is_empty() {
            meta.insert("command".into(), json!(self.command));
        }
        meta.insert("schema_version".into(), json!(OUTPUT_SCHEMA_VERSION));
        meta.insert("tool_version".into(), json!(TOOL_VERSION));
        meta.extend(self.extra);
        meta
    }
}

pub fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The five-key envelope. `ok` is derived from the exit code, never set by a command.
pub fn envelope(
    exit_code: u8,
    data: Value,
    error: Option<Value>,
    meta: Map<String, Value>,
) -> Value {
    json!({
        "ok": exit_code == 0,
        "data": data,
        "error": error,
        "warnings": [],
        "meta": meta,
    })
}

/// Write to stdout and flush, so each line reaches a pipe as soon as it is produced.
pub fn write_stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Best effort: a closed stderr must not turn a result into a failure.
pub fn write_stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// ANSI styling that is either on or off for one stream.
#[derive(Debug, Clone, Copy)]
pub struct Paint(pub bool);

impl Paint {
    fn sgr(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub fn bold(self, text: &str) -> String {
        self.sgr("1", text)
    }
    pub fn dim(self, text: &str) -> String {
        self.sgr("2", text)
    }
    pub fn red(self, text: &str) -> String {
        self.sgr("31", text)
    }
    pub fn green(self, text: &str) -> String {
        self.sgr("32", text)
    }
    pub fn yellow(self, text: &str) -> String {
        self.sgr("33", text)
    }
    pub fn magenta(self, text: &str) -> String {
        self.sgr("35", text)
    }

    /// A deployment or event status, colored by meaning.
    pub fn status(self, status: &str) -> String {
        match status {
            "succeeded" | "deployment.succeeded" => self.green(status),
            "failed" | "deployment.failed" | "deployment.deleted" => self.red(status),
            "running" | "deployment.started" => self.yellow(status),
            "rolled_back" | "deployment.rolled_back" => self.magenta(status),
            _ => status.to_owned(),
        }
    }
}

/// Compact JSON with ANSI colors, for people reading `--format json` at a terminal.
fn highlight(value: &Value, out: &mut String) {
    let paint = Paint(true);
    match value {
        Value::Null | Value::Bool(_) => out.push_str(&paint.magenta(&value.to_string())),
        Value::Number(_) => out.push_str(&paint.sgr("36", &value.to_string())),
        Value::String(_) => out.push_str(&paint.green(&value.to_string())),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                highlight(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&paint.sgr("34", &Value::String(key.clone()).to_string()));
                out.push(':');
                highlight(item, out);
            }
            out.push('}');
        }
    }
}

/// Left-aligned columns, padded on the raw text so colors do not skew widths.
pub fn table(header: &[&str], rows: &[Vec<String>], paint: Paint, status_column: usize) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let render = |cells: Vec<String>, raw: Vec<usize>| {
        let last = cells.len().saturating_sub(1);
        let mut line = String::new();
        for (index, (cell, len)) in cells.into_iter().zip(raw).enumerate() {
            line.push_str(&cell);
            if index < last {
                line.push_str(&" ".repeat(widths[index] - len + 2));
            }
        }
        line.push('\n');
        line
    };
    let mut out = render(
        header.iter().map(|h| paint.bold(h)).collect(),
        header.iter().map(|h| h.len()).collect(),
    );
    for row in rows {
        let raw = row.iter().map(|cell| cell.chars().count()).collect();
        let cells = row
            .iter()
            .enumerate()
            .map(|(index, cell)| {
                if index == status_column {
                    paint.status(cell)
                } else {
                    cell.clone()
                }
            })
            .collect();
        out.push_str(&render(cells, raw));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_five_keys_and_derives_ok() {
        let value = envelope(0, json!([]), None, Map::new());
        let keys: Vec<&str> = value
            .as_object()
            .map(|map| map.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(keys, ["ok", "data", "error", "warnings", "meta"]);
        assert_eq!(value["ok"], json!(true));
        assert_eq!(
            envelope(2, Value::Null, None, Map::new())["ok"],
            json!(false)
        );
    }

    #[test]
    fn highlighted_json_is_json_once_colors_are_stripped() {
        let value = json!({"a": [1, "x\"y", null, true], "b": {"c": 2.5}});
        let mut text = String::new();
        highlight(&value, &mut text);
        assert!(text.contains('\x1b'));
        let mut plain = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                plain.push(c);
            }
        }
        assert_eq!(serde_json::from_str::<Value>(&plain).ok(), Some(value));
    }

    #[test]
    fn table_pads_on_visible_width() {
        let rows = vec![vec!["dep-001".to_owned(), "failed".to_owned()]];
        let colored = table(&["ID", "STATUS"], &rows, Paint(true), 1);
        let plain = table(&["ID", "STATUS"], &rows, Paint(false), 1);
        assert_eq!(plain, "ID       STATUS\ndep-001  failed\n");
        assert!(colored.contains("\x1b[31mfailed\x1b[0m"));
    }
}
