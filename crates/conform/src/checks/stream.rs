//! `stream_contract` and `stream_sigint` (REQ-O-004, REQ-F-069): a stream is JSON
//! object lines ending on exactly one terminal line (a summary or an error envelope)
//! that agrees with the exit code; SIGINT mid-stream ends it on a CANCELLED envelope
//! with `data.partial` true and exit 130.

use serde_json::Value;

use super::{schemas, CheckId, Context, Judged, Outcome};
use crate::plan::RunRole;

pub struct StreamOutcomes {
    pub contract: Outcome,
    pub sigint: Outcome,
}

/// At most this many line problems are reported per stream run.
const REPORTED_PROBLEMS: usize = 3;

/// What a JSON object line of a stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Item,
    Heartbeat,
    Terminal,
}

/// A stream's stdout, classified line by line.
#[derive(Debug, Default)]
pub struct ParsedStream {
    pub lines: usize,
    /// The JSON object lines up to and including the terminal line: line number,
    /// kind, value.
    objects: Vec<(usize, LineKind, Value)>,
    /// Every way the stream breaks the line contract, numbering included.
    pub problems: Vec<String>,
}

impl ParsedStream {
    fn items(&self) -> impl Iterator<Item = &Value> {
        self.objects
            .iter()
            .filter(|(_, kind, _)| *kind == LineKind::Item)
            .map(|(_, _, v)| v)
    }

    fn terminal(&self) -> Option<&Value> {
        self.objects
            .iter()
            .find(|(_, kind, _)| *kind == LineKind::Terminal)
            .map(|(_, _, v)| v)
    }

    fn is_summary(&self) -> bool {
        self.terminal()
            .is_some_and(|t| t.get("_summary") == Some(&Value::Bool(true)))
    }
}

/// Split stdout into lines as a line reader would: a final line without a newline
/// still counts.
pub fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

pub fn parse_stream(bytes: &[u8]) -> ParsedStream {
    let mut parsed = ParsedStream::default();
    let all = lines(bytes);
    parsed.lines = all.len();
    for (index, raw) in all.iter().enumerate() {
        let number = index + 1;
        if let Some(&(terminal, _, _)) = parsed
            .objects
            .iter()
            .find(|(_, k, _)| *k == LineKind::Terminal)
        {
            parsed.problems.push(format!(
                "line {number} follows the terminal line {terminal}; a stream ends with exactly one terminal line"
            ));
            break;
        }
        let Ok(text) = std::str::from_utf8(raw) else {
            parsed.problems.push(format!(
                "line {number} is not valid UTF-8, so it is not JSON"
            ));
            continue;
        };
        if text.trim().is_empty() {
            parsed.problems.push(format!(
                "line {number} is blank; every stream line is one JSON object"
            ));
            continue;
        }
        let document: Value = match serde_json::from_str(text) {
            Ok(document) => document,
            Err(e) => {
                let start: String = text.chars().take(40).collect();
                parsed
                    .problems
                    .push(format!("line {number} is not JSON ({e}): {start:?}"));
                continue;
            }
        };
        if !document.is_object() {
            parsed
                .problems
                .push(format!("line {number} is JSON but not an object"));
            continue;
        }
        let kind = if document.get("_summary") == Some(&Value::Bool(true)) {
            LineKind::Terminal
        } else if document.get("ok").is_some_and(Value::is_boolean)
            && document.get("error").is_some()
        {
            let errors = schemas::envelope_errors(&document);
            if !errors.is_empty() {
                parsed.problems.push(format!(
                    "line {number} is an error envelope that does not validate: {}",
                    schemas::summarize(&errors)
                ));
            } else if document.get("ok") != Some(&Value::Bool(false)) {
                parsed.problems.push(format!(
                    "line {number} has ok: true beside error; a stream's error line is an envelope with ok: false"
                ));
            }
            LineKind::Terminal
        } else if document.get("heartbeat") == Some(&Value::Bool(true)) {
            LineKind::Heartbeat
        } else {
            LineKind::Item
        };
        parsed.objects.push((number, kind, document));
    }
    let numbering = numbering_problems(&parsed);
    parsed.problems.extend(numbering);
    parsed
}

/// The `_seq` numbering rules: if the first item has `_seq`, every item has it,
/// 1, 2, 3...; heartbeats and the terminal line have none; the summary's `_count`
/// equals the items and an error terminal's `meta.items_emitted` the last `_seq`.
/// Without `_seq` on the first item, no line carries it.
fn numbering_problems(parsed: &ParsedStream) -> Vec<String> {
    let mut problems = Vec::new();
    let numbered = parsed
        .items()
        .next()
        .is_some_and(|i| i.get("_seq").is_some());
    let mut item_index = 0u64;
    for (number, kind, line) in &parsed.objects {
        let seq = line.get("_seq");
        if !numbered || *kind != LineKind::Item {
            if seq.is_some() {
                let what = match kind {
                    LineKind::Terminal => "the terminal line",
                    LineKind::Heartbeat => "a heartbeat line",
                    LineKind::Item => "an item of a stream whose first item has no _seq",
                };
                problems.push(format!("line {number} carries _seq but is {what}"));
            }
            continue;
        }
        item_index += 1;
        match seq.and_then(Value::as_u64) {
            Some(s) if s == item_index => {}
            Some(s) => problems.push(format!("line {number} has _seq {s}, expected {item_index}: _seq starts at 1 and rises by 1")),
            None => problems.push(format!("line {number} has no integer _seq although the first item is numbered")),
        }
    }
    if numbered {
        let count = parsed.items().count() as u64;
        if let Some(terminal) = parsed.terminal() {
            if parsed.is_summary() {
                match terminal.get("_count").and_then(Value::as_u64) {
                    Some(c) if c == count => {}
                    Some(c) => problems.push(format!("the summary's _count is {c} but the stream has {count} item lines")),
                    None => problems.push(format!("the summary has no _count; a numbered stream's summary counts its {count} items")),
                }
            } else {
                let last = parsed
                    .items()
                    .last()
                    .and_then(|i| i.get("_seq"))
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                match terminal.pointer("/meta/items_emitted").and_then(Value::as_u64) {
                    Some(n) if n == last => {}
                    Some(n) => problems.push(format!("the error line's meta.items_emitted is {n} but the last _seq is {last}")),
                    None => problems.push(format!("the error line has no meta.items_emitted; a numbered stream's error line gives the last _seq ({last})")),
                }
            }
        }
    }
    problems
}

pub fn judge(ctx: &Context<'_>) -> StreamOutcomes {
    let mut out = StreamOutcomes {
        contract: Outcome::new(CheckId::StreamContract),
        sigint: Outcome::new(CheckId::StreamSigint),
    };
    let probes = &ctx.profile.profile.probes;
    let streams: Vec<_> = probes
        .iter()
        .filter(|p| p.kind == crate::profile::ProbeKind::Stream)
        .collect();
    if streams.is_empty() {
        out.contract.skip("profile declares no stream probe");
    }
    if !streams.iter().any(|p| p.after_lines.is_some()) {
        out.sigint
            .skip("profile declares no stream probe with signal");
    }
    for run in ctx.runs(|r| matches!(r, RunRole::Stream { .. })) {
        let RunRole::Stream { probe } = run.planned.role else {
            continue;
        };
        let deadline = run.planned.spec.limit.as_secs_f64();
        let parsed = parse_stream(&run.record.stdout.bytes);
        contract(&mut out.contract, &run, &parsed, deadline);
        if let Some(after_lines) = probes[probe].after_lines {
            sigint(&mut out.sigint, &run, &parsed, after_lines, deadline);
        }
    }
    out
}

fn contract(outcome: &mut Outcome, run: &Judged<'_>, parsed: &ParsedStream, deadline: f64) {
    outcome.runs_checked += 1;
    if let Some(error) = &run.record.error {
        outcome.fail(run, super::error_detail(error));
        return;
    }
    let stdout = &run.record.stdout;
    if stdout.truncated {
        outcome.fail(
            run,
            format!(
                "the stream wrote {} bytes, past the {} capture cap; the kit judged only what it kept",
                stdout.total_bytes,
                super::envelope::human_bytes(run.planned.spec.capture_limit as u64)
            ),
        );
    }
    let problems = &parsed.problems;
    for problem in problems.iter().take(REPORTED_PROBLEMS) {
        outcome.fail(run, problem.clone());
    }
    if problems.len() > REPORTED_PROBLEMS {
        outcome.fail(
            run,
            format!(
                "{} more stream lines break the contract",
                problems.len() - REPORTED_PROBLEMS
            ),
        );
    }
    let code = run.record.exit_code();
    if run.record.timed_out {
        let seen = if parsed.terminal().is_some() {
            "its terminal line".to_string()
        } else {
            format!("{} lines and no terminal line", parsed.lines)
        };
        outcome.fail(run, format!("still running at the {deadline}s deadline after {seen}; the kit killed its process group"));
    } else if parsed.terminal().is_none() {
        outcome.fail(
            run,
            format!(
                "stdout ended after {} lines without a terminal line (a \"_summary\": true line or an error envelope); an agent cannot tell a complete stream from a cut one",
                parsed.lines
            ),
        );
    } else if parsed.is_summary() {
        if code != Some(0) {
            outcome.fail(
                run,
                format!(
                    "the stream ended on its summary line but {}, expected 0",
                    run.describe_exit()
                ),
            );
        }
    } else if let Some(declared) = parsed.terminal().and_then(|t| t.pointer("/meta/exit_code")) {
        if code.map(i64::from) != declared.as_i64() {
            outcome.fail(
                run,
                format!("the terminal error envelope declares meta.exit_code {declared} but the process {}", run.describe_exit()),
            );
        }
    }
}

fn sigint(
    outcome: &mut Outcome,
    run: &Judged<'_>,
    parsed: &ParsedStream,
    after_lines: u64,
    deadline: f64,
) {
    outcome.runs_checked += 1;
    if let Some(error) = &run.record.error {
        outcome.fail(run, super::error_detail(error));
        return;
    }
    if !run.record.signal_sent {
        let detail = if run.record.timed_out {
            format!(
                "only {} of {after_lines} lines before the {deadline}s deadline; SIGINT never sent",
                parsed.lines
            )
        } else if parsed.lines as u64 >= after_lines {
            format!(
                "the tool had already exited when line {after_lines} was read ({} lines in all), so SIGINT never reached it: it wrote its stream at once at the end instead of line by line as produced (REQ-O-004), or the stream is too short for after_lines {after_lines}",
                parsed.lines
            )
        } else {
            format!(
                "the stream ended after {} lines, before after_lines {after_lines}; SIGINT never sent: lower after_lines",
                parsed.lines
            )
        };
        outcome.fail(run, detail);
        return;
    }
    if run.record.timed_out {
        outcome.fail(run, format!("no exit within the {deadline}s deadline after SIGINT; the kit killed its process group"));
        return;
    }
    let code = run.record.exit_code();
    if code != Some(130) {
        outcome.fail(
            run,
            format!(
                "{} after SIGINT, expected 130 (128 + SIGINT, REQ-F-069)",
                run.describe_exit()
            ),
        );
    }
    match parsed.terminal() {
        None => outcome.fail(run, "no terminal line after SIGINT; expected an error envelope with error.code CANCELLED"),
        Some(_) if parsed.is_summary() => outcome.fail(
            run,
            "the stream ended on its summary line after SIGINT, as if complete; expected an error envelope with error.code CANCELLED",
        ),
        Some(terminal) => {
            let code = terminal.pointer("/error/code");
            if code.and_then(Value::as_str) != Some("CANCELLED") {
                outcome.fail(
                    run,
                    format!(
                        "the terminal error envelope after SIGINT has error.code {}, expected \"CANCELLED\"",
                        code.map_or_else(|| "missing".to_string(), Value::to_string)
                    ),
                );
            }
            if terminal.pointer("/data/partial") != Some(&Value::Bool(true)) {
                outcome.fail(
                    run,
                    format!(
                        "the terminal error envelope after SIGINT has data {}, expected data.partial true",
                        terminal.get("data").map_or_else(|| "missing".to_string(), Value::to_string)
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<String> {
        parse_stream(text.as_bytes()).problems
    }

    #[test]
    fn numbered_stream_with_summary_passes() {
        let text =
            "{\"_seq\":1}\n{\"heartbeat\":true}\n{\"_seq\":2}\n{\"_summary\":true,\"_count\":2}\n";
        assert!(problems(text).is_empty(), "{:?}", problems(text));
    }

    #[test]
    fn gaps_and_counts_are_caught() {
        let p = problems("{\"_seq\":1}\n{\"_seq\":3}\n{\"_summary\":true,\"_count\":3}\n");
        assert!(p.iter().any(|m| m.contains("_seq 3, expected 2")), "{p:?}");
        assert!(p.iter().any(|m| m.contains("_count is 3")), "{p:?}");
    }

    #[test]
    fn unnumbered_stream_must_not_carry_seq() {
        let p = problems("{\"a\":1}\n{\"a\":2,\"_seq\":2}\n{\"_summary\":true}\n");
        assert!(p.iter().any(|m| m.contains("line 2 carries _seq")), "{p:?}");
    }

    #[test]
    fn prose_blank_and_trailing_lines_fail() {
        let p = problems("starting\n\n{\"_summary\":true}\n{\"x\":1}\n");
        assert_eq!(p.len(), 3, "{p:?}");
    }

    #[test]
    fn last_line_without_newline_counts() {
        assert_eq!(lines(b"a\nb").len(), 2);
        assert_eq!(lines(b"a\nb\n").len(), 2);
        assert_eq!(lines(b"").len(), 0);
    }
}
