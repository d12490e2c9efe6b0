//! The agent's environment: no pager, editor or browser opened, no color on a
//! terminal under `NO_COLOR`, `--help`/`--version`/bare runs that exit 0 and write
//! nothing, and invalid input without side effects (files; its exit code is
//! `invalid_input_exit_2`'s). Judged on the isolated runs (a fresh sandbox with
//! sentinels) and the terminal runs.

use super::evidence::sentinel_call;
use super::support::output;
use super::support::terminal::{self, SetAside};
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::exec::{SandboxReport, EDITOR_VARS, OPENERS};
use crate::plan::{KitRun, RunKind, Subject};
use crate::profile::ProbeKind;

pub(super) const PAGER_NOT_INVOKED: CheckSpec = CheckSpec {
    id: CheckId::PagerNotInvoked,
    name: "pager_not_invoked",
    title: "Never pipes output through a pager",
    level: 1,
    failure_modes: &[10],
    requirements: &["REQ-F-010", "REQ-F-046"],
    extension: true,
    reads: &[
        RunKind::Isolated,
        RunKind::Terminal,
        RunKind::CiTerminal,
        RunKind::NarrowTerminal,
    ],
    judge: Judge::Alone(judge_pager),
};

pub(super) const EDITOR_NOT_INVOKED: CheckSpec = CheckSpec {
    id: CheckId::EditorNotInvoked,
    name: "editor_not_invoked",
    title: "Never opens an editor",
    level: 1,
    failure_modes: &[10, 62],
    requirements: &["REQ-F-055"],
    extension: true,
    // Under `conform check` every run has the sentinels: a command whose plain run
    // hangs after opening one never gets an isolated run of its own.
    reads: &[RunKind::Isolated, RunKind::Closed, RunKind::Open],
    judge: Judge::Alone(judge_editor),
};

pub(super) const BROWSER_NOT_LAUNCHED: CheckSpec = CheckSpec {
    id: CheckId::BrowserNotLaunched,
    name: "browser_not_launched",
    title: "Never launches a browser or opener",
    level: 1,
    failure_modes: &[10, 64],
    requirements: &["REQ-F-057"],
    extension: true,
    // As editor_not_invoked: wrangler's `docs` opens the browser, then hangs on
    // its telemetry, so only its plain run shows the opener.
    reads: &[RunKind::Isolated, RunKind::Closed, RunKind::Open],
    judge: Judge::Alone(judge_browser),
};

pub(super) const TTY_NO_COLOR: CheckSpec = CheckSpec {
    id: CheckId::TtyNoColor,
    name: "tty_no_color",
    title: "NO_COLOR=1 removes color on a terminal too",
    level: 1,
    failure_modes: &[8],
    requirements: &["REQ-F-008"],
    extension: true,
    reads: &[RunKind::Terminal],
    judge: Judge::Alone(judge_tty_no_color),
};

pub(super) const HELP_VERSION_PURE: CheckSpec = CheckSpec {
    id: CheckId::HelpVersionPure,
    name: "help_version_pure",
    title: "--version, --help and the bare command exit 0 and write no files",
    level: 1,
    failure_modes: &[3, 21, 30],
    requirements: &["REQ-F-068"],
    extension: true,
    reads: &[RunKind::KitIsolated],
    judge: Judge::Alone(judge_help_version_pure),
};

pub(super) const INVALID_INPUT_NO_SIDE_EFFECTS: CheckSpec = CheckSpec {
    id: CheckId::InvalidInputNoSideEffects,
    name: "invalid_input_no_side_effects",
    title: "Invalid input leaves no files behind",
    level: 1,
    failure_modes: &[14, 30],
    requirements: &["REQ-F-015"],
    extension: true,
    reads: &[RunKind::Isolated],
    judge: Judge::Alone(judge_invalid_no_side_effects),
};

/// Bytes shown after the first SGR sequence, as visible text.
const SGR_CONTEXT: usize = 40;

/// A pager is recognised by what it does, not only by `$PAGER`: the sentinel
/// called by a pager variable or a pager's name, a pager's process in the tool's
/// group, or its start-up sequence on the terminal (`support::terminal`).
fn judge_pager(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::PagerNotInvoked);
    let mut unlogged = 0;
    for run in ctx.declared_runs() {
        if run.record.error.is_some() {
            outcome.completed(&run); // fails it with the reason
            continue;
        }
        // A run counts with its sentinel log; without one, its processes and its
        // terminal's bytes can still show a pager. A run that hit the limit may be
        // the pager waiting for keys: it is judged too.
        if run.record.sandbox.is_some() {
            outcome.runs_checked += 1;
        } else {
            unlogged += 1;
        }
        if let Some(how) = terminal::pager_seen(&run) {
            outcome.fail_observed(
                &run,
                format!(
                    "ran a pager: {how}; an agent reads all of the output at once: write \
                     it directly and never page unless asked to (REQ-F-010, REQ-F-046)"
                ),
            );
        }
    }
    if unlogged > 0 && outcome.runs_checked == 0 && outcome.failures.is_empty() {
        outcome.skip("no run left a sandbox report, so no sentinel log could be read");
    }
    outcome
}

fn judge_editor(ctx: &Context<'_>) -> Outcome {
    let runs = ctx.declared_runs();
    sentinels(
        CheckId::EditorNotInvoked,
        &runs,
        &|name| EDITOR_VARS.contains(&name),
        "opened an editor",
        "no one is there to edit: take input from flags or files (REQ-F-055)",
    )
}

fn judge_browser(ctx: &Context<'_>) -> Outcome {
    let runs = ctx.declared_runs();
    let mut outcome = sentinels(
        CheckId::BrowserNotLaunched,
        &runs,
        &|name| name == "BROWSER" || OPENERS.contains(&name),
        "launched a browser",
        "print the URL instead of opening it (REQ-F-057)",
    );
    // Help, version, bare and rejected runs stop before any work: a pass on them
    // alone would say nothing of the commands that might open a browser.
    let working = runs.iter().any(|run| {
        run.planned
            .role
            .probe_index()
            .and_then(|p| ctx.profile.profile.probes.get(p))
            .is_some_and(|probe| probe.kind != ProbeKind::Invalid)
    });
    if !working && outcome.runs_checked > 0 && outcome.failures.is_empty() {
        outcome.skip(
            "no isolated run of a read, destructive or stream probe: only help, version, bare and invalid-input runs were made, which stop before any work, so none could have shown a browser opening",
        );
    }
    outcome
}

/// Fails every run in which the sentinel was called by a name `matches` accepts.
/// Whether the run exited 0, or at all, does not matter here.
fn sentinels(
    id: CheckId,
    runs: &[Judged<'_>],
    matches: &dyn Fn(&str) -> bool,
    what: &str,
    why: &str,
) -> Outcome {
    let mut outcome = Outcome::new(id);
    let mut unlogged = 0;
    for run in runs {
        let Some(report) = judgeable(&mut outcome, run) else {
            unlogged += usize::from(run.record.error.is_none());
            continue;
        };
        let calls: Vec<String> = report
            .sentinel_calls
            .iter()
            .filter(|call| matches(&call.name))
            .map(sentinel_call)
            .collect();
        if !calls.is_empty() {
            outcome.fail_observed(
                run,
                format!(
                    "{what}: the kit's sentinel was called as {}; {why}",
                    calls.join(", then ")
                ),
            );
        }
    }
    if unlogged > 0 && outcome.runs_checked == 0 {
        outcome.skip("no run left a sandbox report, so no sentinel log could be read");
    }
    outcome
}

/// Hands out a run's sandbox report, counting the run; a run that could not be made
/// (the tool did not start, the sandbox could not be made) fails instead, and a run
/// without a report (nothing to read the sentinel's log from) is not counted.
fn judgeable<'r>(outcome: &mut Outcome, run: &'r Judged<'_>) -> Option<&'r SandboxReport> {
    if run.record.error.is_some() {
        // Reports the error as the failure.
        outcome.completed(run);
        return None;
    }
    let report = run.record.sandbox.as_ref()?;
    outcome.runs_checked += 1;
    Some(report)
}

fn judge_tty_no_color(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::TtyNoColor);
    let mut silent = 0;
    let mut set_aside = SetAside::default();
    for run in ctx.declared_runs() {
        if set_aside.set_aside(
            &run,
            " (its stdin was a terminal nobody typed on: it may have waited for keyboard \
             input; never prompt unless told to, REQ-F-009)",
        ) {
            continue;
        }
        if run.finished() && run.record.stdout.bytes.is_empty() {
            // Nothing was written, so nothing shows whether NO_COLOR was honored.
            silent += 1;
            continue;
        }
        if !outcome.completed(&run) {
            continue;
        }
        let written = &run.record.stdout.bytes;
        if let Some((start, end)) = find_sgr(written) {
            outcome.fail(
                &run,
                format!(
                    "wrote color to the terminal with NO_COLOR=1 set, at byte {start}: {}; \
                     NO_COLOR disables color on a terminal too (REQ-F-008)",
                    visible(&written[start..written.len().min(end + SGR_CONTEXT)])
                ),
            );
        }
    }
    if outcome.runs_checked == 0 {
        if let Some(reason) = set_aside.reason() {
            outcome.skip(reason);
        } else if silent > 0 {
            outcome.skip(
                "no terminal run wrote anything to the terminal, so none showed whether NO_COLOR removes color",
            );
        }
    }
    outcome
}

/// The first SGR sequence (`ESC [ params m`): its start and end.
fn find_sgr(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0x1b && bytes[i + 1] == b'[' {
            let mut j = i + 2;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || matches!(bytes[j], b';' | b':'))
            {
                j += 1;
            }
            if bytes.get(j) == Some(&b'm') {
                return Some((i, j + 1));
            }
        }
        i += 1;
    }
    None
}

/// Bytes as text a person can read in a report: ESC as `ESC`, other control
/// characters escaped.
fn visible(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut shown = String::new();
    for c in text.chars() {
        match c {
            '\u{1b}' => shown.push_str("ESC"),
            c if c.is_control() => shown.extend(c.escape_default()),
            c => shown.push(c),
        }
    }
    shown
}

fn judge_help_version_pure(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::HelpVersionPure);
    for run in ctx.declared_runs() {
        if !outcome.completed(&run) {
            continue;
        }
        let label = &run.planned.label;
        if run.record.exit_code() != Some(0) {
            outcome.fail(
                &run,
                format!(
                    "{label} {}, expected exit 0: asking what a tool is must always work (REQ-F-068); {}",
                    run.describe_exit(),
                    output::streams_start(&run)
                ),
            );
        }
        if run.planned.role.subject == Subject::Kit(KitRun::Version)
            && !has_version(&run.record.stdout.bytes)
        {
            outcome.fail(
                &run,
                format!("{label} put no version (digits and dots, such as 1.2.0) on stdout"),
            );
        }
        if let Some(created) = output::files_created(&run) {
            outcome.fail(
                &run,
                format!(
                    "{label} created {created} in its fresh HOME/XDG/TMPDIR; \
                     help and version must not write anything (REQ-F-068)"
                ),
            );
        }
    }
    outcome
}

/// Whether `bytes` hold a version: digits, a dot, digits.
fn has_version(bytes: &[u8]) -> bool {
    bytes
        .windows(3)
        .any(|w| w[0].is_ascii_digit() && w[1] == b'.' && w[2].is_ascii_digit())
}

fn judge_invalid_no_side_effects(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::InvalidInputNoSideEffects);
    for run in ctx.probe_runs(RunKind::Isolated, ProbeKind::Invalid) {
        if !outcome.completed(&run) {
            continue;
        }
        // Only the side effect is judged here: the exit code is invalid_input_exit_2's.
        if let Some(created) = output::files_created(&run) {
            outcome.fail(
                &run,
                format!(
                    "invalid input left files behind: created {created} in its fresh \
                     HOME/XDG/TMPDIR; validate everything before touching anything (REQ-F-015)"
                ),
            );
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, assert_skipped, judged, judged_with, write};
    use crate::checks::Status;
    use crate::exec::{Exit, SentinelCall};

    /// `pager_not_invoked` over runs that each left a sandbox report, the terminal
    /// run made as `terminal` says.
    fn pager(terminal: impl Fn(&mut crate::exec::RunRecord)) -> Outcome {
        judged(CheckId::PagerNotInvoked, |run, record| {
            record.sandbox = Some(SandboxReport::default());
            if run.role.kind == RunKind::Terminal {
                terminal(record);
            }
        })
    }

    #[test]
    fn a_pager_is_recognised_by_its_name_its_process_or_its_start_up_bytes() {
        // Isolated runs of the read and the invalid probe, the terminal run, the
        // CI-terminal run: nothing paged.
        assert_passed(&pager(|_| {}), 4);

        let outcome = pager(|record| {
            if let Some(report) = &mut record.sandbox {
                report.sentinel_calls.push(SentinelCall {
                    name: "less".into(),
                    argv: vec!["-R".into()],
                });
            }
            record.processes_seen = vec!["sh".into(), "less".into()];
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.starts_with(
                r#"ran a pager: the kit's sentinel was called as less "-R"; an agent"#
            ),
            "the sentinel's own process is not named again: {detail}"
        );

        let outcome = pager(|record| record.processes_seen = vec!["tool".into(), "most".into()]);
        assert!(
            outcome.failures[0]
                .detail
                .starts_with("ran a pager: a process named most ran in its process group"),
            "{outcome:#?}"
        );

        let outcome = pager(|record| write(record, "\u{1b}[?1h\u{1b}=\r\nID ENV\r\n"));
        assert!(
            outcome.failures[0].detail.starts_with(
                "ran a pager: stdout on the terminal holds a pager's start-up sequence at byte 0 \
                 (keypad mode)"
            ),
            "{outcome:#?}"
        );
    }

    #[test]
    fn browser_not_launched_skips_when_only_runs_that_stop_before_any_work_were_made() {
        const INVALID_ONLY: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [ { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" } ]
        }"#;
        let outcome = judged_with(INVALID_ONLY, CheckId::BrowserNotLaunched, |_, record| {
            record.sandbox = Some(SandboxReport::default());
        });
        assert_eq!(outcome.status(), Status::Skip);
        assert!(
            outcome.skipped_reason.as_deref().is_some_and(
                |r| r.starts_with("no isolated run of a read, destructive or stream probe")
            ),
            "{outcome:#?}"
        );
        // A read probe's isolated run could have opened one: a pass that counts it.
        let outcome = judged(CheckId::BrowserNotLaunched, |_, record| {
            record.sandbox = Some(SandboxReport::default());
        });
        assert_eq!(outcome.status(), Status::Pass, "{outcome:#?}");
    }

    #[test]
    fn a_tool_named_as_a_pager_is_not_its_own_pager() {
        let outcome = pager(|record| {
            record.argv[0] = "/usr/bin/more".into();
            record.processes_seen = vec!["more".into()];
        });
        assert_passed(&outcome, 4);
    }

    #[test]
    fn tty_no_color_sets_a_hung_or_paged_terminal_run_aside_and_names_it() {
        let outcome = judged(CheckId::TtyNoColor, |_, record| {
            write(record, "\u{1b}[31mred\u{1b}[0m");
            record.timed_out = true;
            record.exit = Exit::Unknown;
        });
        assert_skipped(
            &outcome,
            "not judged: \"list (terminal)\" hit the 5s limit on the terminal, though the \
             same call ended in time on pipes (its stdin was a terminal nobody typed on",
        );

        let outcome = judged(CheckId::TtyNoColor, |_, record| {
            write(record, "\u{1b}[?1049h\u{1b}[7mlines 1-2\u{1b}[0m");
        });
        assert_skipped(
            &outcome,
            "not judged: \"list (terminal)\" paged its output (stdout",
        );
    }

    #[test]
    fn finds_sgr_only() {
        assert_eq!(find_sgr(b"plain \x1b[1;32mgreen\x1b[0m"), Some((6, 13)));
        assert_eq!(find_sgr(b"\x1b[2J cleared"), None);
        assert_eq!(find_sgr(b"\x1b[38:5:1m"), Some((0, 9)));
        assert_eq!(visible(b"\x1b[32mok\r\n"), "ESC[32mok\\r\\n");
    }

    #[test]
    fn versions_are_digits_and_dots() {
        assert!(has_version(b"tool 1.2.0\n"));
        assert!(has_version(br#"{"data":{"version":"0.1"}}"#));
        assert!(!has_version(b"tool version one\n"));
    }
}
