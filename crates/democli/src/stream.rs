//! JSON-lines streams (REQ-O-004): numbered item lines flushed as produced, then
//! exactly one terminal line, either a `_summary` or a CANCELLED error envelope
//! (REQ-F-069).

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use serde_json::{json, Map, Value};

use crate::defect::{Defect, Faults};
use crate::error::{CliError, Status};
use crate::output::{self, elapsed_ms, envelope, Format, Meta, Ui};

/// Pause between items, so a consumer sees a real stream rather than one burst.
pub const ITEM_DELAY: Duration = Duration::from_millis(50);

pub struct Stream {
    format: Format,
    faults: Faults,
    command: &'static str,
    started: Instant,
    /// Item lines written; `_summary._count`.
    items: u64,
    /// `_seq` of the last item line; `meta.items_emitted` on a cancellation.
    last_seq: u64,
    /// Lines held back until the end: only under the stream-buffered defect.
    held: Option<String>,
}

impl Stream {
    /// A stream in `format`: JSON lines, or plain text lines for people.
    pub fn new(ui: &Ui, format: Format, command: &'static str, started: Instant) -> Self {
        Self {
            format,
            faults: ui.faults,
            command,
            started,
            items: 0,
            last_seq: 0,
            held: ui.faults.on(Defect::StreamBuffered).then(String::new),
        }
    }

    /// One item: `fields` gains a leading `_seq` in JSON; `plain` is its text line.
    pub fn item(&mut self, fields: &Value, plain: &str) -> std::io::Result<()> {
        let mut seq = self.last_seq + 1;
        if self.faults.on(Defect::StreamSeqGap) && seq == 3 {
            seq += 1;
        }
        self.last_seq = seq;
        self.items += 1;
        match self.format {
            Format::Json => {
                let mut line = Map::new();
                line.insert("_seq".into(), json!(seq));
                if let Value::Object(fields) = fields {
                    line.extend(fields.clone());
                }
                let mut line = Value::Object(line);
                if self.faults.on(Defect::StreamEnvelopeLines) {
                    let meta = Meta::new(self.command, self.started).finish(0);
                    line = envelope(0, line, None, meta);
                }
                self.line(&line.to_string())
            }
            Format::Plain => self.line(plain),
        }
    }

    /// Keep-alive line for an idle follow stream; carries no `_seq`.
    pub fn heartbeat(&mut self) -> std::io::Result<()> {
        match self.format {
            Format::Json => self.line(&json!({ "heartbeat": true }).to_string()),
            Format::Plain => Ok(()),
        }
    }

    /// End on the summary line; the stream succeeded. `extra` joins `_count`.
    pub fn finish(mut self, extra: Map<String, Value>) -> std::io::Result<u8> {
        if !self.faults.on(Defect::StreamNoSummary) {
            match self.format {
                Format::Json => {
                    let mut summary = Map::new();
                    summary.insert("_summary".into(), json!(true));
                    summary.insert("_count".into(), json!(self.items));
                    summary.extend(extra);
                    summary.insert("exit_code".into(), json!(0));
                    summary.insert("duration_ms".into(), json!(elapsed_ms(self.started)));
                    self.line(&Value::Object(summary).to_string())?;
                }
                Format::Plain => {
                    let text = format!("-- {} items", self.items);
                    self.line(&text)?;
                }
            }
        }
        self.release()?;
        Ok(0)
    }

    /// End on a CANCELLED error envelope after `signal`; returns the exit code.
    pub fn cancel(mut self, signal: Signal) -> std::io::Result<u8> {
        let status = Status::for_signal(signal);
        // Each defect breaks one signal's handling, so that its broken CLI fails
        // exactly one check.
        let sigint = signal == Signal::SIGINT;
        let sigterm = signal == Signal::SIGTERM;
        if sigint && self.faults.on(Defect::SigintNoCancelLine) {
            self.release()?;
            return Ok(status.code());
        }
        if sigterm && self.faults.on(Defect::SigtermExit1NoCancelLine) {
            self.release()?;
            return Ok(1);
        }
        let exit_code = if sigint && self.faults.on(Defect::SigintExit1) {
            1
        } else {
            status.code()
        };
        let error = cancelled(signal, self.items);
        self.terminate(&error, exit_code)
    }

    /// End on an error envelope for a failure that stopped the stream.
    pub fn fail(self, error: &CliError) -> std::io::Result<u8> {
        self.terminate(error, error.status.code())
    }

    fn terminate(mut self, error: &CliError, exit_code: u8) -> std::io::Result<u8> {
        match self.format {
            Format::Json => {
                let mut meta = Meta::new(self.command, self.started);
                meta.insert("items_emitted", json!(self.last_seq));
                let line = envelope(
                    exit_code,
                    error.payload().clone(),
                    Some(error.detail_for(self.faults)),
                    meta.finish(exit_code),
                );
                self.line(&line.to_string())?;
            }
            Format::Plain => output::write_stderr(&format!("democli: {}\n", error.message)),
        }
        self.release()?;
        Ok(exit_code)
    }

    fn line(&mut self, text: &str) -> std::io::Result<()> {
        match &mut self.held {
            Some(held) => {
                held.push_str(text);
                held.push('\n');
                Ok(())
            }
            None => output::write_stdout(&format!("{text}\n")),
        }
    }

    fn release(&mut self) -> std::io::Result<()> {
        match self.held.take() {
            Some(held) => output::write_stdout(&held),
            None => Ok(()),
        }
    }
}

/// The error a signal turns into (REQ-F-069 wire format).
pub fn cancelled(signal: Signal, items: u64) -> CliError {
    let name = signal.as_str();
    CliError::execution(
        Status::for_signal(signal),
        "CANCELLED",
        format!("cancelled by {name} after {items} items"),
    )
    .context(json!({ "signal": name }))
    .data(json!({ "partial": true }))
}
