//! A run as a line to paste into a POSIX shell, and for a sandboxed run the
//! commands that make its sandbox again first.

use super::visible;
use crate::checks::evidence::RunFacts;

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
pub(super) fn stdin_note(run: &RunFacts) -> Option<&'static str> {
    (run.stdin == "open").then_some("stdin: an open pipe the kit never wrote to")
}

/// What a sandboxed run's shell line makes, when the run had a sandbox.
pub(super) fn sandbox_note(run: &RunFacts) -> Option<&'static str> {
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

/// Whether a path in a replayed sandbox is one the shell line made itself (the
/// sentinel's stand-in and its links), not the tool.
pub(crate) fn is_sandbox_setup(relative: &str) -> bool {
    let top = relative.split('/').next().unwrap_or_default();
    top == "sentinel" || top == LINKS_DIR || top == SHIMS_DIR
}

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
        .filter_map(|e| e.split_once('='))
        // The kit's sentinel log is a file the stand-in below never writes.
        .filter(|(name, _)| *name != crate::exec::SENTINEL_LOG_VAR)
        .map(|(_, value)| value)
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
        // A terminal run (no fresh HOME) has the sentinel answer to pagers by name
        // too (`plan::terminal_sandbox`).
        let terminal = !run.env.iter().any(|e| e.starts_with("HOME="));
        let pagers: &[&str] = if terminal {
            &crate::plan::PAGER_PROGRAMS
        } else {
            &[]
        };
        let openers: Vec<String> = crate::exec::OPENERS
            .iter()
            .chain(pagers)
            .map(|n| quote(n))
            .collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::show::tests::run;

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
}
