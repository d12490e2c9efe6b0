//! The stream format (REQ-O-004) read line by line: each line a JSON object, one
//! terminal line (a summary or an error envelope), `_seq` numbering. The stream
//! checks and the signal checks read streams through it.

use serde_json::Value;

use crate::checks::evidence::quoted;
use crate::checks::schemas;

/// At most this many line problems are reported per stream run.
pub(crate) const REPORTED_PROBLEMS: usize = 3;

/// What a JSON object line of a stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Item,
    Heartbeat,
    Terminal,
}

/// A stream's stdout, classified line by line in one pass: only the terminal line
/// and a few counters are kept, so judging costs time and memory linear in the
/// stream, whatever its length.
#[derive(Debug, Default)]
pub(crate) struct ParsedStream {
    pub lines: usize,
    /// The terminal line (a summary or an error envelope), if one was read.
    terminal: Option<Value>,
    /// The first [`REPORTED_PROBLEMS`] ways the stream breaks the line contract,
    /// numbering included.
    pub problems: Vec<String>,
    /// How many problems there are in all.
    pub problem_count: usize,
}

impl ParsedStream {
    pub(crate) fn terminal(&self) -> Option<&Value> {
        self.terminal.as_ref()
    }

    pub(crate) fn is_summary(&self) -> bool {
        self.terminal().is_some_and(is_summary)
    }

    /// Keeps the first few problems and counts the rest: a flood of bad lines must
    /// not cost a string each.
    fn problem(&mut self, problem: String) {
        if self.problems.len() < REPORTED_PROBLEMS {
            self.problems.push(problem);
        }
        self.problem_count += 1;
    }
}

fn is_summary(line: &Value) -> bool {
    line.get("_summary") == Some(&Value::Bool(true))
}

/// Split stdout into lines as a line reader would: a final line without a newline
/// still counts.
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    crate::lines::split(bytes)
}

pub(crate) fn parse_stream(bytes: &[u8]) -> ParsedStream {
    let mut parsed = ParsedStream::default();
    let mut numbering = Numbering::default();
    // Line number of the terminal line, once read.
    let mut terminal_at = None;
    for (index, raw) in lines(bytes).enumerate() {
        let number = index + 1;
        parsed.lines = number;
        if let Some(terminal) = terminal_at {
            // Reported once, for the first line after it; the rest are only counted.
            if number == terminal + 1 {
                parsed.problem(format!(
                    "line {number} follows the terminal line {terminal}; a stream ends with exactly one terminal line"
                ));
            }
            continue;
        }
        let Ok(text) = std::str::from_utf8(raw) else {
            parsed.problem(format!(
                "line {number} is not valid UTF-8, so it is not JSON"
            ));
            continue;
        };
        if text.trim().is_empty() {
            parsed.problem(format!(
                "line {number} is blank; every stream line is one JSON object"
            ));
            continue;
        }
        let document: Value = match serde_json::from_str(text) {
            Ok(document) => document,
            Err(e) => {
                let start: String = text.chars().take(40).collect();
                parsed.problem(format!(
                    "line {number} is not JSON ({e}): {}",
                    quoted(&start)
                ));
                continue;
            }
        };
        if !document.is_object() {
            parsed.problem(format!("line {number} is JSON but not an object"));
            continue;
        }
        let kind = if is_summary(&document) {
            LineKind::Terminal
        } else if document.get("ok").is_some_and(Value::is_boolean)
            && document.get("error").is_some()
        {
            let errors = schemas::envelope_errors(&document);
            if !errors.is_empty() {
                parsed.problem(format!(
                    "line {number} is an error envelope that does not validate: {}",
                    schemas::summarize(&errors)
                ));
            } else if document.get("ok") != Some(&Value::Bool(false)) {
                parsed.problem(format!(
                    "line {number} has ok: true beside error; a stream's error line is an envelope with ok: false"
                ));
            }
            LineKind::Terminal
        } else if document.get("heartbeat") == Some(&Value::Bool(true)) {
            LineKind::Heartbeat
        } else {
            LineKind::Item
        };
        numbering.line(number, kind, &document);
        if kind == LineKind::Terminal {
            terminal_at = Some(number);
            parsed.terminal = Some(document);
        }
    }
    if let Some(terminal) = &parsed.terminal {
        numbering.terminal(terminal);
    }
    // Line problems first, then numbering, as the lines are read by a person.
    let count = parsed.problem_count + numbering.problem_count;
    for problem in numbering.problems {
        parsed.problem(problem);
    }
    parsed.problem_count = count;
    parsed
}

/// The `_seq` numbering rules, followed line by line: if the first item has `_seq`,
/// every item has it, 1, 2, 3...; heartbeats and the terminal line have none; the
/// summary's `_count` equals the items and an error terminal's `meta.items_emitted`
/// the last `_seq`. Without `_seq` on the first item, no line carries it.
#[derive(Default)]
struct Numbering {
    /// Whether the first item carries `_seq`; `None` before the first item.
    numbered: Option<bool>,
    items: u64,
    /// `_seq` of the last item (0 if it has none).
    last_seq: u64,
    /// The first [`REPORTED_PROBLEMS`] problems, and how many in all.
    problems: Vec<String>,
    problem_count: usize,
}

impl Numbering {
    fn problem(&mut self, problem: String) {
        if self.problems.len() < REPORTED_PROBLEMS {
            self.problems.push(problem);
        }
        self.problem_count += 1;
    }

    fn line(&mut self, number: usize, kind: LineKind, line: &Value) {
        let seq = line.get("_seq");
        if kind == LineKind::Item {
            self.items += 1;
            self.last_seq = seq.and_then(Value::as_u64).unwrap_or(0);
        }
        let numbered = match kind {
            LineKind::Item => *self.numbered.get_or_insert(seq.is_some()),
            _ => false,
        };
        if !numbered {
            if seq.is_some() {
                let what = match kind {
                    LineKind::Terminal => "the terminal line",
                    LineKind::Heartbeat => "a heartbeat line",
                    LineKind::Item => "an item of a stream whose first item has no _seq",
                };
                self.problem(format!("line {number} carries _seq but is {what}"));
            }
            return;
        }
        let expected = self.items;
        match seq.and_then(Value::as_u64) {
            Some(s) if s == expected => {}
            Some(s) => self.problem(format!(
                "line {number} has _seq {s}, expected {expected}: _seq starts at 1 and rises by 1"
            )),
            None => self.problem(format!(
                "line {number} has no integer _seq although the first item is numbered"
            )),
        }
    }

    /// What the terminal line says about a numbered stream's items.
    fn terminal(&mut self, terminal: &Value) {
        if self.numbered != Some(true) {
            return;
        }
        let (count, last) = (self.items, self.last_seq);
        if is_summary(terminal) {
            match terminal.get("_count").and_then(Value::as_u64) {
                Some(c) if c == count => {}
                Some(c) => self.problem(format!("the summary's _count is {c} but the stream has {count} item lines")),
                None => self.problem(format!("the summary has no _count; a numbered stream's summary counts its {count} items")),
            }
        } else {
            match terminal.pointer("/meta/items_emitted").and_then(Value::as_u64) {
                Some(n) if n == last => {}
                Some(n) => self.problem(format!("the error line's meta.items_emitted is {n} but the last _seq is {last}")),
                None => self.problem(format!("the error line has no meta.items_emitted; a numbered stream's error line gives the last _seq ({last})")),
            }
        }
    }
}
