//! Evidence as people read it, shared by the text, JUnit, SARIF and Markdown
//! reports: control bytes made visible, argv as a shell line, how a run ended,
//! failing runs grouped by their causes.

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
/// was closed. A run with an open stdin has no redirect; [`stdin_note`] says so. A
/// run in a sandbox (its variables point into `<sandbox>`) gets a line that makes
/// the sandbox again first: see [`sandbox_setup`].
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
            Some((name, value)) if value.contains(SANDBOX) => {
                words.push(format!("{name}={}", in_sandbox(value)));
            }
            Some((name, value)) => words.push(format!("{name}={}", quote(value))),
            None => words.push(quote(change)),
        }
    }
    words.extend(run.argv.iter().map(|a| quote(a)));
    if run.stdin == "closed" {
        words.push("</dev/null".into());
    }
    let command = words.join(" ");
    match sandbox_setup(run) {
        Some(setup) => format!("({} && {command})", setup.join(" && ")),
        None => command,
    }
}

/// How stdin was given, when the shell line cannot show it.
pub(crate) fn stdin_note(run: &RunFacts) -> Option<&'static str> {
    (run.stdin == "open").then_some("stdin: an open pipe the kit never wrote to")
}

/// What a sandboxed run's shell line makes, when the run had a sandbox.
pub(crate) fn sandbox_note(run: &RunFacts) -> Option<&'static str> {
    sandboxed(run).then_some(
        "sandbox: the line makes fresh directories with mktemp -d (left for you to look \
         in) and a stand-in for conform's sentinel that prints how it was called on \
         stderr and exits 1",
    )
}

/// How the evidence writes a path in a run's sandbox (the kit's paths differ per
/// run, so reports name none).
const SANDBOX: &str = "<sandbox>";
/// The sandbox's directory of links to the sentinel, one per variable.
const LINKS_DIR: &str = "vars";
/// The sandbox's directory put first on `PATH`, holding the sentinel as each opener.
const SHIMS_DIR: &str = "bin";

fn sandboxed(run: &RunFacts) -> bool {
    run.env
        .iter()
        .any(|e| !e.starts_with('-') && e.contains(SANDBOX))
}

/// Shell commands that make a sandbox like the run's: a fresh directory `$s` from
/// `mktemp -d`, the directories the run's variables name in it, and a stand-in for
/// the kit's sentinel (it prints how it was called on stderr and exits 1) linked
/// under each variable's name and, in the `PATH` directory, under each opener's
/// name. `None` for a run without a sandbox.
fn sandbox_setup(run: &RunFacts) -> Option<Vec<String>> {
    if !sandboxed(run) {
        return None;
    }
    // Every `<sandbox>/...` path the variables hold, in order, once.
    let mut paths: Vec<&str> = Vec::new();
    for value in run
        .env
        .iter()
        .filter_map(|e| e.split_once('=').map(|(_, v)| v))
    {
        for (at, _) in value.match_indices(SANDBOX) {
            let rest = value[at + SANDBOX.len()..].trim_start_matches('/');
            let path = rest.split(':').next().unwrap_or_default();
            if !path.is_empty() && !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    let links: Vec<String> = paths
        .iter()
        .filter_map(|path| link_name(path))
        .map(quote)
        .collect();
    let shims = paths.contains(&SHIMS_DIR);
    let mut dirs: Vec<&str> = paths
        .iter()
        .filter(|p| link_name(p).is_none() && **p != SHIMS_DIR)
        .copied()
        .collect();
    if !links.is_empty() {
        dirs.push(LINKS_DIR);
    }
    if shims {
        dirs.push(SHIMS_DIR);
    }
    let mut setup = vec![r#"s=$(mktemp -d "${TMPDIR:-/tmp}/conform-sandbox.XXXXXX")"#.to_string()];
    if !dirs.is_empty() {
        let dirs: Vec<String> = dirs
            .iter()
            .map(|dir| in_sandbox(&format!("{SANDBOX}/{dir}")))
            .collect();
        setup.push(format!("mkdir -p {}", dirs.join(" ")));
    }
    if links.is_empty() && !shims {
        return Some(setup);
    }
    setup.push(
        r#"printf '%s\n' '#!/bin/sh' 'echo "conform sentinel: ${0##*/} $*" >&2' 'exit 1' >"$s/sentinel""#
            .to_string(),
    );
    setup.push(r#"chmod +x "$s/sentinel""#.to_string());
    let link_all = |dir: &str, names: &[String]| {
        format!(
            r#"for n in {}; do ln -s ../sentinel "$s/{dir}/$n"; done"#,
            names.join(" ")
        )
    };
    if !links.is_empty() {
        setup.push(link_all(LINKS_DIR, &links));
    }
    if shims {
        let openers: Vec<String> = crate::exec::OPENERS.iter().map(|n| quote(n)).collect();
        setup.push(link_all(SHIMS_DIR, &openers));
    }
    Some(setup)
}

/// The variable a sandbox path is the sentinel's link for (`vars/PAGER`: `PAGER`).
fn link_name(path: &str) -> Option<&str> {
    path.strip_prefix(LINKS_DIR)?.strip_prefix('/')
}

/// A variable's value as the evidence describes it (`<sandbox>/bin:$PATH`), for the
/// shell line: double-quoted, the sandbox as `$s`, `$PATH` left to expand, and
/// nothing else the shell would read.
fn in_sandbox(value: &str) -> String {
    let escape = |text: &str| {
        let mut out = String::with_capacity(text.len());
        for c in visible(text).chars() {
            if matches!(c, '"' | '\\' | '`' | '$') {
                out.push('\\');
            }
            out.push(c);
        }
        out.replace(r"\$PATH", "$PATH")
    };
    let parts: Vec<String> = value.split(SANDBOX).map(escape).collect();
    format!("\"{}\"", parts.join("$s"))
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

    /// The isolated run's variables as the executor describes them.
    const ISOLATED_ENV: &[&str] = &[
        "-DISPLAY",
        "TERM=xterm-256color",
        "PAGER=<sandbox>/vars/PAGER",
        "BROWSER=<sandbox>/vars/BROWSER",
        "PATH=<sandbox>/bin:$PATH",
        "HOME=<sandbox>/home",
        "XDG_CONFIG_HOME=<sandbox>/config",
        "TMPDIR=<sandbox>/tmp",
    ];

    /// The line is pasted into a shell: it makes fresh, empty directories, sentinels
    /// that say they ran and fail, and openers first on PATH, then runs the command
    /// with the sandbox's variables.
    #[test]
    fn a_sandboxed_runs_shell_line_recreates_the_sandbox_when_pasted() {
        let script = r#"ls -A "$HOME" | wc -l; test -d "$XDG_CONFIG_HOME" && test -d "$TMPDIR" && echo dirs; "$PAGER" a b; echo pager=$?; xdg-open https://example.com; echo opener=$?; "$BROWSER" x; echo "home=$HOME""#;
        let isolated = run(&["sh", "-c", script], ISOLATED_ENV, "closed");
        let line = shell_line(&isolated);
        assert!(!line.contains("<sandbox>"), "{line}");
        assert!(sandbox_note(&isolated).is_some());
        let tmp = tempfile::tempdir().expect("temp dir");
        let output = std::process::Command::new("sh")
            .args(["-c", &line])
            .env("TMPDIR", tmp.path())
            .env("DISPLAY", ":0")
            .output()
            .expect("sh runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{line}\n{stdout}\n{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines[0].trim(), "0", "HOME is fresh and empty: {stdout}");
        assert_eq!(lines[1..4], ["dirs", "pager=1", "opener=1"], "{stdout}");
        let home = lines[4].strip_prefix("home=").expect("HOME printed");
        let sandbox = tmp.path().join("conform-sandbox.");
        assert!(home.starts_with(&*sandbox.to_string_lossy()), "{home}");
        assert!(home.ends_with("/home"), "{home}");
        for call in [
            "conform sentinel: PAGER a b",
            "conform sentinel: xdg-open https://example.com",
            "conform sentinel: BROWSER x",
        ] {
            assert!(stderr.contains(call), "{call}: {stderr}");
        }
    }

    #[test]
    fn a_terminal_runs_pager_sandbox_makes_only_the_sentinels() {
        let terminal = run(
            &["./tool", "list"],
            &[
                "NO_COLOR=1",
                "PAGER=<sandbox>/vars/PAGER",
                "MANPAGER=<sandbox>/vars/MANPAGER",
            ],
            "closed",
        );
        let line = shell_line(&terminal);
        assert!(line.contains(r#"mkdir -p "$s/vars" &&"#), "{line}");
        assert!(line.contains("for n in PAGER MANPAGER; do"), "{line}");
        assert!(!line.contains("xdg-open"), "{line}");
        assert!(
            line.ends_with(r#"NO_COLOR=1 PAGER="$s/vars/PAGER" MANPAGER="$s/vars/MANPAGER" ./tool list </dev/null)"#),
            "{line}"
        );
        // Without a sandbox the line is the command alone.
        assert_eq!(
            shell_line(&run(&["./tool"], &["NO_COLOR=1"], "closed")),
            "NO_COLOR=1 ./tool </dev/null"
        );
        assert_eq!(
            in_sandbox("<sandbox>/a b\"$`c:$PATH"),
            r#""$s/a b\"\$\`c:$PATH""#
        );
    }

    #[test]
    fn excerpts_are_cut_by_lines_and_width() {
        assert_eq!(
            excerpt("abcdef\nx\ny\nz", 2, 3),
            ["abc…", "x", "… 2 more lines"]
        );
    }
}
