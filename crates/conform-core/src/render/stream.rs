//! `conform run --stream`: conform's own results as JSON lines, one check per line
//! as each is judged, under the stream contract conform checks in other tools
//! (REQ-O-004): items numbered by `_seq` from 1, each line flushed as written, and
//! exactly one terminal line. A `_summary` ends a stream only with exit 0; failed
//! checks, a report not written or an interruption end it on an error envelope
//! whose `meta.items_emitted` is the last `_seq`.

use std::io::{self, Write};

use serde_json::{json, Value};

use crate::events::{Event, Reporter};
use crate::result::ProfileReport;

/// Writes an item line per judged check.
pub(crate) struct StreamReporter<W: Write> {
    /// `None` once a write failed (the reader went away): the run goes on, the
    /// stream does not.
    out: Option<W>,
    /// Each profile's (file, tool), by the index events give.
    profiles: Vec<(String, String)>,
    emitted: u64,
}

impl<W: Write> StreamReporter<W> {
    /// A stream to `out` for profiles given as (file, tool), in the run's order.
    pub(crate) fn new(out: W, profiles: Vec<(String, String)>) -> Self {
        StreamReporter {
            out: Some(out),
            profiles,
            emitted: 0,
        }
    }

    /// Item lines written: the last `_seq`, and the summary's `_count`.
    pub(crate) fn items_emitted(&self) -> u64 {
        self.emitted
    }

    /// One line, flushed at once so that a reader sees it as it is judged.
    fn write_line(&mut self, line: &Value) -> io::Result<()> {
        let Some(out) = self.out.as_mut() else {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "an earlier line could not be written",
            ));
        };
        let written = serde_json::to_writer(&mut *out, line)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if written.is_err() {
            self.out = None;
        }
        written
    }

    /// The terminal line: a [`summary`] or an error envelope ([`error_line`]).
    pub(crate) fn finish(mut self, terminal: &Value) -> io::Result<()> {
        self.write_line(terminal)
    }
}

impl<W: Write> Reporter for StreamReporter<W> {
    fn wants_run_events(&self) -> bool {
        false
    }

    fn event(&mut self, event: &Event<'_>) {
        let Event::CheckJudged { profile, check } = event else {
            return;
        };
        let (file, tool) = self
            .profiles
            .get(*profile)
            .map_or(("", ""), |(f, t)| (f.as_str(), t.as_str()));
        let line = json!({
            "_seq": self.emitted + 1,
            "profile": file,
            "tool": tool,
            "check": check.reference(),
        });
        if self.write_line(&line).is_ok() {
            self.emitted += 1;
        }
    }
}

/// Each profile's levels and counts: what the terminal line says of the run.
pub(crate) fn profile_summaries(results: &[ProfileReport]) -> Value {
    results
        .iter()
        .map(|r| {
            json!({
                "profile": r.profile,
                "tool": r.tool,
                "levels": r.levels,
                "summary": r.summary,
            })
        })
        .collect()
}

/// The terminal line of a stream whose checks all passed (or were skipped).
pub(crate) fn summary(results: &[ProfileReport], count: u64, duration_ms: u64) -> Value {
    json!({
        "_summary": true,
        "_count": count,
        "results": profile_summaries(results),
        "duration_ms": duration_ms,
    })
}

/// An error envelope as a stream's terminal line: it also says how many items came
/// before it.
pub(crate) fn error_line(mut envelope: Value, items_emitted: u64) -> Value {
    if let Some(meta) = envelope.get_mut("meta").and_then(Value::as_object_mut) {
        meta.insert("items_emitted".into(), items_emitted.into());
    }
    envelope
}
