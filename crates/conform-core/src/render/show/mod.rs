//! Evidence as people read it, shared by the text, JUnit, SARIF and Markdown
//! reports: control bytes made visible, argv as a shell line (`shell.rs`), how a
//! run ended, failing runs grouped by their causes.

pub(crate) mod causes;
mod shell;

use super::style::Style;
use super::Sources;
use crate::checks::evidence::RunFacts;
use crate::checks::Evidence;
pub(crate) use shell::{is_sandbox_setup, shell_line};
use shell::{sandbox_note, stdin_note};

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

/// A check's failing runs that failed it for the same causes: the causes once, then
/// every run that showed them. Each run is in exactly one group, with all its
/// causes, so a run that failed a check in two ways is shown once.
#[derive(Debug)]
pub(crate) struct Group<'a> {
    /// The details of the first run, as the check wrote them, in the check's order.
    pub details: Vec<&'a str>,
    pub runs: Vec<&'a RunFacts>,
}

/// `failures` grouped by run, then runs grouped by their causes, in order of first
/// appearance. Two details are the same cause when they differ only inside double
/// quotes, where the checks quote the tool's own output (the start of stdout, a line
/// of the stream).
pub(crate) fn groups(failures: &[Evidence]) -> Vec<Group<'_>> {
    // Each run once, with its causes: (run, cause keys, details).
    let mut runs: Vec<(&RunFacts, Vec<String>, Vec<&str>)> = Vec::new();
    for failure in failures {
        let key = unquoted(&failure.detail);
        let index = match runs.iter().position(|(run, _, _)| **run == failure.run) {
            Some(index) => index,
            None => {
                runs.push((&failure.run, Vec::new(), Vec::new()));
                runs.len() - 1
            }
        };
        let (_, keys, details) = &mut runs[index];
        if !keys.contains(&key) {
            keys.push(key);
            details.push(&failure.detail);
        }
    }
    let mut groups: Vec<(Vec<String>, Group<'_>)> = Vec::new();
    for (run, keys, details) in runs {
        match groups.iter_mut().find(|(k, _)| *k == keys) {
            Some((_, group)) => group.runs.push(run),
            None => groups.push((
                keys,
                Group {
                    details,
                    runs: vec![run],
                },
            )),
        }
    }
    groups.into_iter().map(|(_, group)| group).collect()
}

/// Every cause of the groups once, in order of first appearance.
pub(crate) fn distinct_causes<'a>(groups: &[Group<'a>]) -> Vec<&'a str> {
    let mut keys: Vec<String> = Vec::new();
    let mut causes = Vec::new();
    for detail in groups.iter().flat_map(|g| g.details.iter().copied()) {
        let key = unquoted(detail);
        if !keys.contains(&key) {
            keys.push(key);
            causes.push(detail);
        }
    }
    causes
}

/// One group as lines to read: its causes, then its runs ([`run_lines`]).
pub(crate) fn group_lines(
    profile: &str,
    group: &Group<'_>,
    sources: &Sources,
    style: Style,
) -> Vec<String> {
    let mut lines: Vec<String> = group.details.iter().map(|d| detail(d)).collect();
    lines.extend(run_lines(profile, group, sources, style));
    lines
}

/// A group's runs: each with where it is written in `profile`, the shell line to
/// reproduce it and how it ended, and the output of the first run (the others showed
/// the same defects).
pub(crate) fn run_lines(
    profile: &str,
    group: &Group<'_>,
    sources: &Sources,
    style: Style,
) -> Vec<String> {
    let mut lines = Vec::new();
    if group.runs.len() > 1 {
        lines.push(style.dim(&format!("seen in {} runs:", group.runs.len())));
    }
    for (n, run) in group.runs.iter().enumerate() {
        lines.push(format!(
            "{} {}  {}",
            style.bold("▸"),
            style.bold(&visible(&run.probe)),
            style.dim(&sources.describe(profile, &run.pointer))
        ));
        lines.push(format!("    $ {}", shell_line(run)));
        if let Some(note) = sandbox_note(run) {
            lines.push(format!("    {}", style.dim(note)));
        }
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

    /// A run's facts for the text and shell-line tests.
    pub(super) fn run(argv: &[&str], env: &[&str], stdin: &'static str) -> RunFacts {
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
    fn failures_differing_only_in_quoted_output_share_a_cause() {
        let evidence = |detail: &str| Evidence {
            run: run(&["t"], &[], "closed"),
            detail: detail.into(),
            observed: false,
            still_running: None,
        };
        let failures = [
            evidence(r#"stdout is not JSON; it starts "{\"a\"": fix it"#),
            evidence("exit 3 is not in the table"),
            evidence(r#"stdout is not JSON; it starts "\u{1b}[1m": fix it"#),
        ];
        // One run: every failure is one of its causes, and the same cause once.
        let grouped = groups(&failures);
        assert_eq!(grouped.len(), 1);
        assert_eq!(grouped[0].runs.len(), 1);
        assert_eq!(
            grouped[0].details,
            [
                r#"stdout is not JSON; it starts "{\"a\"": fix it"#,
                "exit 3 is not in the table"
            ]
        );
    }

    #[test]
    fn each_run_is_shown_once_with_all_its_causes() {
        let list = run(&["./tool", "list"], &[], "closed");
        let mut show = run(&["./tool", "show"], &[], "closed");
        show.probe = "show".into();
        let mut open = run(&["./tool", "list"], &[], "open");
        open.duration_ms = 7;
        let failed = |run: &RunFacts, detail: &str| Evidence {
            run: run.clone(),
            detail: detail.into(),
            observed: false,
            still_running: None,
        };
        let failures = [
            failed(&list, "exited 1 after SIGTERM, expected 143"),
            failed(&show, "exited 1 after SIGTERM, expected 143"),
            failed(&list, "no terminal line after SIGTERM"),
            failed(&show, "no terminal line after SIGTERM"),
            failed(&open, "exited 1 after SIGTERM, expected 143"),
        ];
        let grouped = groups(&failures);
        assert_eq!(grouped.len(), 2, "{grouped:#?}");
        assert_eq!(grouped[0].runs, [&list, &show]);
        assert_eq!(grouped[0].details.len(), 2);
        assert_eq!(grouped[1].runs, [&open]);
        assert_eq!(grouped[1].details, ["exited 1 after SIGTERM, expected 143"]);

        let lines = group_lines(
            "p.json",
            &grouped[0],
            &Sources::default(),
            Style { color: false },
        );
        let text = lines.join("\n");
        assert_eq!(
            text.matches("$ ./tool list </dev/null").count(),
            1,
            "{text}"
        );
        assert_eq!(
            text.matches("$ ./tool show </dev/null").count(),
            1,
            "{text}"
        );
        assert_eq!(
            text.matches("no terminal line after SIGTERM").count(),
            1,
            "{text}"
        );
        assert!(text.contains("seen in 2 runs:"), "{text}");
    }

    #[test]
    fn excerpts_are_cut_by_lines_and_width() {
        assert_eq!(
            excerpt("abcdef\nx\ny\nz", 2, 3),
            ["abc…", "x", "… 2 more lines"]
        );
    }
}
