//! `lf_line_endings`: no CR byte on stdout or stderr of any run on pipes, so that
//! `grep`, `cut` and string comparisons see `value`, not `value\r` (REQ-F-072).
//! Terminal runs are not judged: a terminal's line discipline writes CRLF itself.

use super::evidence::quoted;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::RunKind;

pub(super) const LF_LINE_ENDINGS: CheckSpec = CheckSpec {
    id: CheckId::LfLineEndings,
    name: "lf_line_endings",
    title: "No CR byte on stdout or stderr of any run on pipes",
    level: 2,
    failure_modes: &[5],
    requirements: &["REQ-F-072"],
    extension: true,
    reads: &RunKind::ON_PIPES,
    judge: Judge::Alone(judge),
};

/// Bytes of the offending line shown before its CR.
const SHOWN: usize = 80;

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::LfLineEndings);
    for run in ctx.declared_runs() {
        if run.record.error.is_some() {
            continue; // never started: nothing was written
        }
        // Bytes written before a kill at the limit count as much as any others.
        outcome.runs_checked += 1;
        for (stream, bytes) in [
            ("stdout", &run.record.stdout.bytes),
            ("stderr", &run.record.stderr.bytes),
        ] {
            if let Some(found) = first_cr(bytes) {
                outcome.fail(
                    &run,
                    format!(
                        "{stream} of {} has a CR byte (0x0D) at offset {}, in line {}: {}; \
                         end lines with LF alone, never CRLF (REQ-F-072)",
                        run.planned.label, found.offset, found.line, found.text
                    ),
                );
            }
        }
    }
    outcome
}

/// Where a CR byte is: its offset, the 1-based number of its line and that line up
/// to the byte after the CR (quoted, the CR escaped as `\r`).
#[derive(Debug, PartialEq)]
struct Found {
    offset: usize,
    line: usize,
    text: String,
}

fn first_cr(bytes: &[u8]) -> Option<Found> {
    let offset = bytes.iter().position(|&b| b == b'\r')?;
    let start = bytes[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let end = bytes[offset..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |at| offset + at + 1);
    let line = bytes[..start].iter().filter(|&&b| b == b'\n').count() + 1;
    // The line up to the CR and the byte after it, its start cut when long, so
    // that the CR is always shown.
    let from = start.max(offset.saturating_sub(SHOWN));
    let to = end.min(offset + 2);
    let text = String::from_utf8_lossy(&bytes[from..to]).into_owned();
    Some(Found {
        offset,
        line,
        text: quoted(&text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{judged, write};
    use crate::checks::Status;
    use crate::plan::RunRole;

    #[test]
    fn finds_the_first_cr_with_its_line() {
        assert_eq!(first_cr(b"a\nb\n"), None);
        assert_eq!(
            first_cr(b"Usage: t\r\nmore\r\n"),
            Some(Found {
                offset: 8,
                line: 1,
                text: r#""Usage: t\r\n""#.to_string()
            })
        );
        let found = first_cr(b"one\ntwo\rthree").expect("a CR");
        assert_eq!((found.offset, found.line), (7, 2));
        assert_eq!(found.text, r#""two\rt""#);
        let long = format!("{}\r\n", "x".repeat(200));
        let found = first_cr(long.as_bytes()).expect("a CR");
        assert!(found.text.ends_with(r#"x\r\n""#), "{}", found.text);
    }

    #[test]
    fn a_json_escaped_cr_is_not_a_cr_byte() {
        let outcome = judged(CheckId::LfLineEndings, |_, record| {
            write(
                record,
                r#"{"ok":true,"data":{"note":"line one\r\nline two"},"error":null}"#,
            );
            record.stderr.bytes = b"done\n".to_vec();
        });
        assert_eq!(outcome.status(), Status::Pass, "{outcome:#?}");
        assert!(outcome.runs_checked > 1);
    }

    #[test]
    fn crlf_on_stderr_fails_naming_the_run_stream_offset_and_line() {
        let outcome = judged(CheckId::LfLineEndings, |run, record| {
            if run.role == RunRole::probe(RunKind::Closed, 0) {
                record.stderr.bytes = b"Usage: t\r\n".to_vec();
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(outcome.failures.len(), 1, "{outcome:#?}");
        assert_eq!(
            outcome.failures[0].detail,
            "stderr of list has a CR byte (0x0D) at offset 8, in line 1: \"Usage: t\\r\\n\"; \
             end lines with LF alone, never CRLF (REQ-F-072)"
        );
    }
}
