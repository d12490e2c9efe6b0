//! Evidence as people read it, shared by the text, JUnit, SARIF and Markdown
//! reports: control bytes made visible, argv as a shell line, how a run ended,
//! failures grouped by cause.

use super::style::Style;
use super::Sources;
use crate::checks::evidence::RunFacts;
use crate::checks::Evidence;

/// `text` with every control character shown as a visible glyph: C0 controls as
/// their Unicode control pictures (`␛` for ESC, `␊` for a newline), DEL as `␡`, C1
/// controls as `<U+009B>`. A report never prints a tool's raw escape sequences (they
/// would recolor or move the reader's terminal) nor Rust escapes such as `\u{1b}`.
pub(crate) fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match u32::from(c) {
            code @ 0..=0x1f => out.push(char::from_u32(0x2400 + code).unwrap_or('?')),
            0x7f => out.push('\u{2421}'),
            code @ 0x80..=0x9f => out.push_str(&format!("<U+{code:04X}>")),
            _ => out.push(c),
        }
    }
    out
}

/// A check's failure detail, readable: the checks quote tool output as JSON string
/// literals (`"{\"ok\"\u001b[34m"`); the escapes are decoded back and control bytes
/// then made visible, so the reader sees `"{"ok"␛[34m"`. Rust's `\u{1b}` form (in
/// reports written by older versions) decodes too; unknown escapes stay as written.
pub(crate) fn detail(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some(e @ ('"' | '\'' | '\\')) => {
                chars.next();
                out.push(e);
            }
            Some('n') => {
                chars.next();
                out.push('\n');
            }
            Some('r') => {
                chars.next();
                out.push('\r');
            }
            Some('t') => {
                chars.next();
                out.push('\t');
            }
            Some('0') => {
                chars.next();
                out.push('\0');
            }
            Some(e @ ('b' | 'f' | '/')) => {
                chars.next();
                out.push(match e {
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    _ => '/',
                });
            }
            Some('u') => {
                // JSON's `\u001b` or Rust's `\u{1b}`: decode only a complete, valid
                // escape, then skip what it spans.
                let rest: String = chars.clone().take(9).collect();
                let rust = rest
                    .strip_prefix("u{")
                    .and_then(|r| r.split_once('}'))
                    .map(|(hex, _)| (hex, hex.len() + 3));
                let json = rest
                    .get(1..5)
                    .filter(|hex| hex.chars().all(|c| c.is_ascii_hexdigit()))
                    .map(|hex| (hex, 5));
                let decoded = rust.or(json).and_then(|(hex, spans)| {
                    let code = u32::from_str_radix(hex, 16).ok()?;
                    char::from_u32(code).map(|ch| (spans, ch))
                });
                match decoded {
                    Some((spans, ch)) => {
                        for _ in 0..spans {
                            chars.next();
                        }
                        out.push(ch);
                    }
                    None => out.push('\\'),
                }
            }
            _ => out.push('\\'),
        }
    }
    visible(&out)
}

/// The run as a line to paste into a POSIX shell: the environment changes (`env -u`
/// for removed variables), the argv quoted where needed, and `</dev/null` when stdin
/// was closed. A run with an open stdin has no redirect; [`stdin_note`] says so.
pub(crate) fn shell_line(run: &RunFacts) -> String {
    let mut words: Vec<String> = Vec::new();
    let removed: Vec<&str> = run.env.iter().filter_map(|e| e.strip_prefix('-')).collect();
    if !removed.is_empty() {
        words.push("env".into());
        for name in removed {
            words.push("-u".into());
            words.push(quote(name));
        }
    }
    for change in run.env.iter().filter(|e| !e.starts_with('-')) {
        match change.split_once('=') {
            Some((name, value)) => words.push(format!("{name}={}", quote(value))),
            None => words.push(quote(change)),
        }
    }
    words.extend(run.argv.iter().map(|a| quote(a)));
    if run.stdin == "closed" {
        words.push("</dev/null".into());
    }
    words.join(" ")
}

/// How stdin was given, when the shell line cannot show it.
pub(crate) fn stdin_note(run: &RunFacts) -> Option<&'static str> {
    (run.stdin == "open").then_some("stdin: an open pipe the kit never wrote to")
}

/// One word as a POSIX shell needs it typed; control characters are shown visibly
/// (the line is for reading first, and must not drive the terminal).
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", visible(&word.replace('\'', r"'\''")))
    }
}

/// How the run ended: `exit 2`, `killed by SIGSEGV`, `no exit within the limit`.
pub(crate) fn ended(run: &RunFacts) -> String {
    if let Some(error) = &run.error {
        return format!("not run: {}", visible(error));
    }
    if run.timed_out {
        return "no exit within the limit (process group killed)".into();
    }
    match (&run.exit_code, &run.signal) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by {signal}"),
        _ => "no exit status".into(),
    }
}

/// At most `lines` lines of an excerpt, each cut to `width` characters, with control
/// bytes visible; a cut is marked with `…`.
pub(crate) fn excerpt(text: &str, lines: usize, width: usize) -> Vec<String> {
    let all: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = all
        .iter()
        .take(lines)
        .map(|line| {
            let shown = visible(line);
            if shown.chars().count() > width {
                let cut: String = shown.chars().take(width).collect();
                format!("{cut}…")
            } else {
                shown
            }
        })
        .collect();
    if all.len() > lines {
        out.push(format!("… {} more lines", all.len() - lines));
    }
    out
}

/// Failures with the same cause: one detail, every run that showed it.
#[derive(Debug)]
pub(crate) struct Cause<'a> {
    /// The detail of the first run, as the check wrote it.
    pub detail: &'a str,
    pub runs: Vec<&'a Evidence>,
}

/// `failures` grouped by cause, in order of first appearance. Two details are the
/// same cause when they differ only inside double quotes, where the checks quote the
/// tool's own output (the start of stdout, a line of the stream).
pub(crate) fn causes(failures: &[Evidence]) -> Vec<Cause<'_>> {
    let mut groups: Vec<(String, Cause<'_>)> = Vec::new();
    for failure in failures {
        let key = unquoted(&failure.detail);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, cause)) => cause.runs.push(failure),
            None => groups.push((
                key,
                Cause {
                    detail: &failure.detail,
                    runs: vec![failure],
                },
            )),
        }
    }
    groups.into_iter().map(|(_, cause)| cause).collect()
}

/// One cause as lines to read: the detail once, then every run that showed it with
/// where it is written in `profile`, the shell line to reproduce it and how it ended,
/// and the output of the first run (the others showed the same defect).
pub(crate) fn cause_lines(
    profile: &str,
    cause: &Cause<'_>,
    sources: &Sources,
    style: Style,
) -> Vec<String> {
    let mut lines = vec![detail(cause.detail)];
    if cause.runs.len() > 1 {
        lines.push(style.dim(&format!("seen in {} runs:", cause.runs.len())));
    }
    for (n, failure) in cause.runs.iter().enumerate() {
        let run = &failure.run;
        lines.push(format!(
            "{} {}  {}",
            style.bold("▸"),
            style.bold(&visible(&run.probe)),
            style.dim(&sources.describe(profile, &run.pointer))
        ));
        lines.push(format!("    $ {}", shell_line(run)));
        let mut how = ended(run);
        if let Some(note) = stdin_note(run) {
            how.push_str(&format!(" · {note}"));
        }
        how.push_str(&format!(
            " · stdout {} bytes, stderr {} bytes · {} ms",
            run.stdout_bytes, run.stderr_bytes, run.duration_ms
        ));
        lines.push(format!("    {}", style.dim(&how)));
        if run.pipe_held_open {
            lines
                .push("    a process the tool started held its output open after it exited".into());
        }
        if n > 0 {
            continue;
        }
        for (name, bytes, text) in [
            ("stdout", run.stdout_bytes, &run.stdout_excerpt),
            ("stderr", run.stderr_bytes, &run.stderr_excerpt),
        ] {
            if bytes == 0 {
                continue;
            }
            for (i, line) in excerpt(text, 3, 100).into_iter().enumerate() {
                let label = if i == 0 { name } else { "" };
                lines.push(format!(
                    "    {} {line}",
                    style.dim(&format!("{label:>6} │"))
                ));
            }
        }
    }
    lines
}

/// `detail` with the inside of every double-quoted span left out.
fn unquoted(detail: &str) -> String {
    let mut out = String::with_capacity(detail.len());
    let mut quoted = false;
    let mut escaped = false;
    for c in detail.chars() {
        if quoted {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    quoted = false;
                    out.push('"');
                }
                _ => {}
            }
        } else {
            if c == '"' {
                quoted = true;
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(argv: &[&str], env: &[&str], stdin: &'static str) -> RunFacts {
        RunFacts {
            probe: "list".into(),
            pointer: "/probes/0".into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            stdin,
            exit_code: Some(0),
            duration_ms: 1,
            env: env.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn control_bytes_become_control_pictures() {
        assert_eq!(visible("\u{1b}[34mok\u{1b}[0m\n"), "␛[34mok␛[0m␊");
        assert_eq!(visible("a\tb\u{7f}\u{9b}"), "a␉b␡<U+009B>");
        assert_eq!(visible("é ✓"), "é ✓");
    }

    #[test]
    fn rust_escapes_in_details_are_decoded_then_shown() {
        assert_eq!(
            detail(r#"it starts "{\u{1b}[34m\"ok\"\\": bad"#),
            r#"it starts "{␛[34m"ok"\": bad"#
        );
        assert_eq!(detail(r"a \d \u{zz} \u{110000}"), r"a \d \u{zz} \u{110000}");
        assert_eq!(detail(r#"line "x\ny""#), r#"line "x␊y""#);
    }

    #[test]
    fn json_quoted_details_are_decoded_then_shown() {
        let output = "{\u{1b}[34m\"ok\"\\\u{7}/";
        let quoted = crate::checks::evidence::quoted(output);
        assert_eq!(quoted, r#""{\u001b[34m\"ok\"\\\u0007/""#);
        assert_eq!(
            detail(&format!("it starts {quoted}: bad")),
            r#"it starts "{␛[34m"ok"\␇/": bad"#
        );
        assert_eq!(detail(r"\b\f\/ \u00zz \ud800"), "␈␌/ \\u00zz \\ud800");
    }

    #[test]
    fn a_run_becomes_a_shell_line_with_its_environment_and_stdin() {
        let closed = run(
            &["./tool", "list", "it's", "a b", ""],
            &["-CI", "-NO_COLOR", "TERM=xterm-256color", "NO_COLOR=1"],
            "closed",
        );
        assert_eq!(
            shell_line(&closed),
            r"env -u CI -u NO_COLOR TERM=xterm-256color NO_COLOR=1 ./tool list 'it'\''s' 'a b' '' </dev/null"
        );
        assert_eq!(stdin_note(&closed), None);
        let open = run(&["./tool"], &["TERM=dumb"], "open");
        assert_eq!(shell_line(&open), "TERM=dumb ./tool");
        assert!(stdin_note(&open).is_some());
    }

    #[test]
    fn failures_differing_only_in_quoted_output_share_a_cause() {
        let evidence = |detail: &str| Evidence {
            run: run(&["t"], &[], "closed"),
            detail: detail.into(),
        };
        let failures = [
            evidence(r#"stdout is not JSON; it starts "{\"a\"": fix it"#),
            evidence("exit 3 is not in the table"),
            evidence(r#"stdout is not JSON; it starts "\u{1b}[1m": fix it"#),
        ];
        let grouped = causes(&failures);
        assert_eq!(grouped.len(), 2);
        assert_eq!(grouped[0].runs.len(), 2);
        assert_eq!(grouped[1].detail, "exit 3 is not in the table");
    }

    #[test]
    fn excerpts_are_cut_by_lines_and_width() {
        assert_eq!(
            excerpt("abcdef\nx\ny\nz", 2, 3),
            ["abc…", "x", "… 2 more lines"]
        );
    }
}
