//! Findings: the result read by the spec's failure modes instead of by check.
//!
//! For each failure mode (§N) that a selected check maps to: the checks that judged
//! it, the spec's severity, a score from 0 to 3 and the commands that show it, each
//! with what it did in words. The rule is written in `docs/findings.md`; in short:
//!
//! - no score: no check that maps to the mode judged anything (all skipped), or
//!   none failed and one was set aside for the load, the budget or a signal;
//! - 3: every check that judged it passed;
//! - 0: a danger (a hang, a prompt, a flood of output, a browser, editor or pager
//!   opened, an installer run, an action without confirmation, a secret leaked, an
//!   injected command run) in a mode the spec rates critical;
//! - 1: a danger in a high or medium mode, or a convention broken on at least half
//!   of the tool's commands;
//! - 2: a convention broken on fewer than half of them.
//!
//! Findings are computed from a finished [`ProfileReport`]; they change no verdict.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::checks::evidence::RunFacts;
use crate::checks::judge::STARVED;
use crate::checks::{Evidence, Status};
use crate::exec::{EDITOR_VARS, INSTALLERS, OPENERS};
use crate::result::ProfileReport;
use crate::runner::NOT_RUN;

/// The spec's severity of a failure mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Critical,
    High,
    Medium,
}

impl Severity {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
        }
    }
}

/// The spec's catalog of failure modes: number, title, severity. From
/// `challenges/index.md` of cli-agent-spec/cli-agent-spec at 6e163a8 (§36, §39 and
/// §48 are retired there).
const MODES: &[(u16, &str, Severity)] = {
    use Severity::{Critical as C, High as H, Medium as M};
    &[
        (1, "Exit Codes & Status Signaling", C),
        (2, "Output Format & Parseability", C),
        (3, "Stderr vs Stdout Discipline", H),
        (4, "Verbosity & Token Cost", M),
        (5, "Pagination & Large Output", H),
        (6, "Command Composition & Piping", M),
        (7, "Output Non-Determinism", M),
        (8, "ANSI & Color Code Leakage", H),
        (9, "Binary & Encoding Safety", H),
        (10, "Interactivity & TTY Requirements", C),
        (11, "Timeouts & Hanging Processes", C),
        (12, "Idempotency & Safe Retries", C),
        (13, "Partial Failure & Atomicity", C),
        (14, "Argument Validation Before Side Effects", H),
        (15, "Race Conditions & Concurrency", H),
        (16, "Signal Handling & Graceful Cancellation", H),
        (17, "Child Process Leakage", M),
        (18, "Error Message Quality", H),
        (19, "Retry Hints in Error Responses", H),
        (20, "Environment & Dependency Discovery", M),
        (21, "Schema & Help Discoverability", M),
        (22, "Schema Versioning & Output Stability", H),
        (23, "Side Effects & Destructive Operations", C),
        (24, "Authentication & Secret Handling", C),
        (25, "Prompt Injection via Output", C),
        (26, "Stateful Commands & Session Management", H),
        (27, "Platform & Shell Portability", M),
        (28, "Config File Shadowing & Precedence", H),
        (29, "Working Directory Sensitivity", M),
        (30, "Undeclared Filesystem Side Effects", M),
        (31, "Network Proxy Unawareness", H),
        (32, "Self-Update & Auto-Upgrade Behavior", H),
        (33, "Observability & Audit Trail", M),
        (34, "Shell Injection via Agent-Constructed Commands", C),
        (35, "Agent Hallucination Input Patterns", H),
        (37, "REPL / Interactive Mode Accidental Triggering", C),
        (38, "Runtime Dependency Version Mismatch", H),
        (40, "parse() vs parseAsync() Silent Race Condition", H),
        (41, "Update Notifier Side-Channel Output Pollution", H),
        (42, "Debug / Trace Mode Secret Leakage", C),
        (43, "Tool Output Result Size Unboundedness", C),
        (44, "Agent Knowledge Packaging Absence", M),
        (
            45,
            "Headless Authentication / OAuth Browser Flow Blocking",
            C,
        ),
        (46, "API Schema to CLI Flag Translation Loss", H),
        (47, "MCP Wrapper Schema Staleness", H),
        (49, "Async Job / Polling Protocol Absence", H),
        (50, "Stdin Consumption Deadlock", C),
        (
            51,
            "Shell Word Splitting and Glob Expansion Interference",
            H,
        ),
        (52, "Recursive Command Tree Discovery Cost", M),
        (53, "Credential Expiry Mid-Session", C),
        (54, "Conditional / Dependent Argument Requirements", H),
        (55, "Silent Data Truncation", H),
        (56, "Exit Code Masking in Shell Pipelines", H),
        (57, "Locale-Dependent Error Messages", M),
        (58, "Multi-Agent Concurrent Invocation Conflict", H),
        (59, "High-Entropy String Token Poisoning", H),
        (60, "OS Output Buffer Deadlock", C),
        (61, "Bidirectional Pipe Payload Deadlock", C),
        (62, "$EDITOR and $VISUAL Trap", C),
        (63, "Terminal Column Width Output Corruption", M),
        (64, "Headless Display and GUI Launch Blocking", C),
        (65, "Global Configuration State Contamination", H),
        (66, "Symlink Loop and Recursive Traversal Exhaustion", H),
        (67, "Agent-Generated Input Syntax Rejection", H),
        (68, "Third-Party Library Stdout Pollution", H),
        (69, "Argument Order Ambiguity", H),
        (70, "Single-Argument Arity Forcing Agent Loop Overhead", H),
        (71, "Non-Interactive Installation Absence", C),
        (72, "Integration Artifact Version Drift", H),
        (73, "Documentation Accuracy Drift", H),
        (74, "Credential Scope Declaration Absence", C),
        (75, "Safe-Default Execution Mode Absent", C),
        (76, "Streaming-Default JSONL Incompatibility", H),
        (77, "No Batch Command Dispatch", H),
    ]
};

/// The title and severity of failure mode `n`, when the catalog has it.
pub(crate) fn mode(n: u16) -> Option<(&'static str, Severity)> {
    MODES
        .iter()
        .find(|(id, _, _)| *id == n)
        .map(|(_, title, severity)| (*title, *severity))
}

/// Output past this many bytes in one run is a flood: more than an agent's context
/// holds, whatever the tool meant by it.
const FLOOD_BYTES: u64 = 1024 * 1024;

/// Pagers a tool may run by name, not through `$PAGER`; the kit's sentinel
/// answers to them on a terminal run's PATH.
const PAGERS: &[&str] = &["less", "more", "most", "pg"];

/// What a failure is: a danger to an agent, or the spec's letter against a
/// convention many tools follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    Danger,
    Convention,
}

/// A check that maps to a mode, and its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Judged {
    pub id: &'static str,
    pub status: Status,
}

/// One command that shows a finding: which run, and what it did in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Shown {
    /// The command, its run's label without the variant (`login`, `--help`).
    pub command: String,
    /// The run's own label (`login (isolated)`).
    pub run: String,
    pub stdin: &'static str,
    /// What it did, for people: `prompt loop, 195 MB of output in 5 s`.
    pub did: String,
    pub kind: Kind,
    /// The failing checks that saw it.
    pub checks: Vec<&'static str>,
    /// The run's index in the report's runs (`conform replay` takes it), when found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_index: Option<usize>,
    /// The profile entry the run comes from, which the score counts commands by.
    #[serde(skip)]
    pub pointer: String,
}

/// One failure mode of one tool.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finding {
    /// `§10`.
    pub failure_mode: String,
    #[serde(skip)]
    pub mode: u16,
    pub title: &'static str,
    pub severity: Severity,
    /// 0 to 3; `None` when no check judged the mode.
    pub score: Option<u8>,
    /// Danger when any command shows one, convention when only conventions failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    pub checks: Vec<Judged>,
    pub commands: Vec<Shown>,
}

impl Finding {
    /// The command that shows it worst: a danger before a convention.
    pub(crate) fn worst(&self) -> Option<&Shown> {
        self.commands.iter().min_by_key(|s| s.kind)
    }
}

/// The command a run was made for: its label without a variant in parentheses.
pub(crate) fn command_of(label: &str) -> String {
    match label.find(" (") {
        Some(at) if label.ends_with(')') => label[..at].to_string(),
        _ => label.to_string(),
    }
}

/// `195 MB`, `3.2 MB`, `640 KB`, `12 bytes`.
fn size(bytes: u64) -> String {
    const MB: f64 = 1_000_000.0;
    let b = bytes as f64;
    if b >= 100.0 * MB {
        format!("{:.0} MB", b / MB)
    } else if b >= MB {
        format!("{:.1} MB", b / MB)
    } else if bytes >= 1000 {
        format!("{} KB", bytes / 1000)
    } else {
        format!("{bytes} bytes")
    }
}

/// `5 s`, `1.2 s`.
fn secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) || ms >= 2000 {
        format!("{} s", (ms + 500) / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// The line a tool asked on, when its output ends on a question: `Continue? [y/N]`.
fn prompt_line(excerpt: &str) -> Option<&str> {
    const MARKS: &[&str] = &[
        "[y/n]", "(y/n)", "[y/N]", "[Y/n]", "(Y/n)", "(y/N)", "[yes/no]", "(yes/no)",
    ];
    excerpt
        .lines()
        .rev()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .take(3)
        .find(|line| {
            let lower = line.to_lowercase();
            MARKS.iter().any(|m| lower.contains(&m.to_lowercase()))
                || line.ends_with('?')
                || lower.ends_with("password:")
                || lower.ends_with("code:")
        })
}

/// The same prompt printed over and over: a loop, not one question.
fn repeats(excerpt: &str, line: &str) -> bool {
    excerpt.matches(line).count() > 2
}

/// What a run that failed `check` did, in words, and whether that is a danger.
pub(crate) fn describe(check: &str, evidence: &Evidence) -> (String, Kind) {
    let run = &evidence.run;
    let mut dangers: Vec<String> = Vec::new();
    let output = run.stdout_bytes.saturating_add(run.stderr_bytes);
    let prompt = prompt_line(&run.stdout_excerpt).or_else(|| prompt_line(&run.stderr_excerpt));
    let looped = prompt.is_some_and(|line| {
        repeats(&run.stdout_excerpt, line) || repeats(&run.stderr_excerpt, line)
    });
    let ran_out = run.timed_out || run.killed_by_kit.as_ref().is_some_and(|k| k.at_limit);
    if let Some(line) = prompt.filter(|_| ran_out || looped) {
        let what = if looped { "prompt loop" } else { "prompt" };
        dangers.push(format!("{what} ({})", shorten(line, 40)));
    } else if ran_out {
        let on = run
            .waiting_on
            .as_ref()
            .map(|w| match w.kind.as_str() {
                "stdin" | "terminal" => ", waiting for input".to_string(),
                "black_hole" | "network" => ", waiting on the network".to_string(),
                _ => String::new(),
            })
            .unwrap_or_default();
        dangers.push(format!("no exit in {}{on}", secs(run.duration_ms)));
    }
    if output >= FLOOD_BYTES {
        dangers.push(format!(
            "{} of output in {}",
            size(output),
            secs(run.duration_ms)
        ));
    }
    for call in run.sandbox.iter().flat_map(|s| &s.sentinel_calls) {
        let name = call.name.as_str();
        let what = if name == "BROWSER" || OPENERS.contains(&name) {
            "opened a browser"
        } else if EDITOR_VARS.contains(&name) {
            "opened an editor"
        } else if INSTALLERS.contains(&name) {
            "ran an installer"
        } else if name.ends_with("PAGER") || PAGERS.contains(&name) {
            "opened a pager"
        } else {
            continue;
        };
        let words = format!(
            "{what} ({})",
            shorten(&crate::checks::evidence::sentinel_call(call), 60)
        );
        if !dangers.contains(&words) {
            dangers.push(words);
        }
    }
    // Dangers only the check's subject tells.
    match check {
        "pager_not_invoked" | "editor_not_invoked" | "browser_not_launched"
            if dangers.is_empty() =>
        {
            dangers.push(shorten(first_clause(&evidence.detail), 100));
        }
        "destructive_refuses_unconfirmed" if run.exit_code == Some(0) => {
            dangers.push("acted without confirmation (exit 0)".into());
        }
        "dry_run_stable" => dangers.push("its preview acted: two previews differ".into()),
        "debug_no_secret_leak" | "secret_not_echoed"
            if evidence.detail.contains("canary") || evidence.observed =>
        {
            dangers.push("leaked a secret".into());
        }
        "shell_metachar_inert" if evidence.observed => {
            dangers.push("ran an injected shell command".into());
        }
        _ => {}
    }
    if dangers.is_empty() {
        (
            shorten(first_clause(&evidence.detail), 100),
            Kind::Convention,
        )
    } else {
        (dangers.join(", "), Kind::Danger)
    }
}

/// A detail's first clause: what failed, before the why and the fix.
fn first_clause(detail: &str) -> &str {
    let end = detail.find("; ").unwrap_or(detail.len());
    detail[..end].trim()
}

/// `text` on one line, at most `max` characters, cut with an ellipsis.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if line.chars().count() <= max {
        line
    } else {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}

/// The index of `run` in `runs`: the same label, argv, stdin and environment.
fn index_of(runs: &[RunFacts], run: &RunFacts) -> Option<usize> {
    runs.iter().position(|r| {
        r.probe == run.probe && r.argv == run.argv && r.stdin == run.stdin && r.env == run.env
    })
}

/// The findings of one tool, worst first: by score (unscored last), severity, mode.
pub(crate) fn of(report: &ProfileReport) -> Vec<Finding> {
    let modes: BTreeSet<u16> = report
        .checks
        .iter()
        .flat_map(|c| c.check.failure_modes.iter())
        .filter_map(|m| m.trim_start_matches('§').parse().ok())
        .collect();
    // A command is a profile entry: a probe, or the tool itself for the kit's own
    // runs (help, version, bare), or argument_order.
    let commands: BTreeSet<&str> = report.runs.iter().map(|r| r.pointer.as_str()).collect();
    let mut findings: Vec<Finding> = modes
        .into_iter()
        .map(|n| finding(report, n, commands.len()))
        .collect();
    findings.sort_by_key(|f| (f.score.unwrap_or(4), f.severity, f.mode));
    findings
}

fn finding(report: &ProfileReport, n: u16, commands: usize) -> Finding {
    let label = format!("§{n}");
    let (title, severity) = mode(n).unwrap_or(("(not in the spec's catalog)", Severity::Medium));
    let mapped: Vec<_> = report
        .checks
        .iter()
        .map(|c| &c.check)
        .filter(|c| c.failure_modes.contains(&label))
        .collect();
    let checks: Vec<Judged> = mapped
        .iter()
        .map(|c| Judged {
            id: c.id,
            status: c.status,
        })
        .collect();
    let mut shown: Vec<Shown> = Vec::new();
    for check in mapped.iter().filter(|c| c.status == Status::Fail) {
        for failure in &check.failures {
            let (did, kind) = describe(check.id, failure);
            let command = command_of(&failure.run.probe);
            match shown
                .iter_mut()
                .find(|s| s.command == command && s.did == did)
            {
                Some(same) if !same.checks.contains(&check.id) => same.checks.push(check.id),
                Some(_) => {}
                None => shown.push(Shown {
                    command,
                    run: failure.run.probe.clone(),
                    stdin: failure.run.stdin,
                    did,
                    kind,
                    checks: vec![check.id],
                    run_index: index_of(&report.runs, &failure.run),
                    pointer: failure.run.pointer.clone(),
                }),
            }
        }
    }
    // Dangers first, then in the checks' order.
    shown.sort_by_key(|s| s.kind);
    let judged = mapped.iter().any(|c| c.status != Status::Skip);
    let failed = mapped.iter().any(|c| c.status == Status::Fail);
    let danger = shown.iter().any(|s| s.kind == Kind::Danger);
    let failing: BTreeSet<&str> = shown.iter().map(|s| s.pointer.as_str()).collect();
    // A check set aside because the machine starved its runs, or the budget or a
    // signal ended them, might have failed: the mode's other passes do not make
    // it a 3 (a prompt loop on a loaded runner must not read as clean).
    let inconclusive = mapped.iter().any(|c| {
        c.status == Status::Skip
            && c.skipped_reason
                .as_deref()
                .is_some_and(|why| why.starts_with(STARVED) || why.starts_with(NOT_RUN))
    });
    let score = if !judged || (!failed && inconclusive) {
        None
    } else if !failed {
        Some(3)
    } else if danger && severity == Severity::Critical {
        Some(0)
    } else if danger || failing.len() * 2 >= commands.max(1) {
        Some(1)
    } else {
        Some(2)
    };
    Finding {
        failure_mode: label,
        mode: n,
        title,
        severity,
        score,
        kind: failed.then_some(if danger {
            Kind::Danger
        } else {
            Kind::Convention
        }),
        checks,
        commands: shown,
    }
}

/// One tool's findings as one JSON value, for the JSON report.
pub(crate) fn to_json(report: &ProfileReport) -> serde_json::Value {
    serde_json::to_value(of(report)).unwrap_or(serde_json::Value::Null)
}

/// The findings for the envelope's `meta.findings`: without `run_index`, which
/// numbers the JSON report's runs (a merge of shards numbers them its own way).
pub(crate) fn to_meta(report: &ProfileReport) -> serde_json::Value {
    let mut value = to_json(report);
    for finding in value.as_array_mut().into_iter().flatten() {
        let commands = finding.get_mut("commands").and_then(|c| c.as_array_mut());
        for command in commands.into_iter().flatten() {
            if let Some(command) = command.as_object_mut() {
                command.remove("run_index");
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{CheckId, CATALOG};
    use crate::exec::{SandboxReport, SentinelCall};
    use crate::result::{verdicts, CheckReport};

    fn facts(probe: &str, stdin: &'static str) -> RunFacts {
        // The kit's own runs come from `command`, a probe's from its entry.
        let pointer = if probe.starts_with("--") {
            "/command".to_string()
        } else {
            format!("/probes/{}", command_of(probe))
        };
        RunFacts {
            probe: probe.into(),
            pointer,
            argv: vec!["./tool".into(), probe.into()],
            stdin,
            exit_code: Some(0),
            duration_ms: 12,
            ..Default::default()
        }
    }

    fn evidence(run: RunFacts, detail: &str) -> Evidence {
        Evidence {
            run,
            detail: detail.into(),
            observed: false,
            still_running: None,
        }
    }

    fn check(id: CheckId, failures: Vec<Evidence>, skipped: bool) -> CheckReport {
        let reason = skipped.then_some("nothing to judge");
        crate::render::tests::check(id, usize::from(!skipped), failures, reason)
    }

    fn report(checks: Vec<CheckReport>, runs: Vec<RunFacts>) -> ProfileReport {
        let (levels, summary) = verdicts(&checks, &CheckId::all());
        ProfileReport {
            profile: "p.json".into(),
            tool: "tool".into(),
            levels,
            summary,
            checks,
            runs,
            duration_ms: 1,
        }
    }

    fn commands(names: &[&str]) -> Vec<RunFacts> {
        names.iter().map(|n| facts(n, "closed")).collect()
    }

    fn score(findings: &[Finding], mode: &str) -> Option<u8> {
        findings
            .iter()
            .find(|f| f.failure_mode == mode)
            .unwrap_or_else(|| panic!("no finding {mode}"))
            .score
    }

    #[test]
    fn every_mode_a_check_names_is_in_the_catalog() {
        for spec in CATALOG {
            for n in spec.failure_modes {
                assert!(mode(*n).is_some(), "§{n} of {}", spec.name);
            }
        }
    }

    #[test]
    fn a_mode_whose_checks_all_pass_scores_3_and_one_nobody_judged_has_no_score() {
        let r = report(
            vec![
                check(CheckId::HelpOffStdout, vec![], false),
                check(CheckId::ArgumentOrder, vec![], true),
            ],
            commands(&["list", "--help"]),
        );
        let findings = of(&r);
        assert_eq!(score(&findings, "§3"), Some(3));
        assert_eq!(score(&findings, "§69"), None);
        // Unscored findings come last.
        assert_eq!(findings.last().map(|f| f.score), Some(None));
    }

    #[test]
    fn a_skipped_check_never_lifts_a_mode_to_3() {
        let r = report(
            vec![
                check(CheckId::NoHangStdinOpen, vec![], true),
                check(CheckId::BareNoRepl, vec![], true),
            ],
            commands(&["list"]),
        );
        assert_eq!(score(&of(&r), "§50"), None);
        assert_eq!(score(&of(&r), "§10"), None);
    }

    #[test]
    fn a_check_starved_of_cpu_leaves_its_mode_unscored_not_3() {
        let mut starved = check(CheckId::NoHangStdinClosed, vec![], true);
        starved.check.skipped_reason = Some(format!("{STARVED}: ..."));
        let r = report(
            vec![starved, check(CheckId::NoHangStdinOpen, vec![], false)],
            commands(&["login"]),
        );
        assert_eq!(score(&of(&r), "§10"), None);
    }

    #[test]
    fn a_flooding_prompt_loop_is_a_critical_danger_scored_0_with_its_command_in_words() {
        let mut login = facts("login (isolated)", "closed");
        login.timed_out = true;
        login.exit_code = None;
        login.duration_ms = 5000;
        login.stdout_bytes = 195_000_000;
        login.stdout_excerpt = "Open browser now? [y/n]\n".repeat(20);
        let r = report(
            vec![
                check(
                    CheckId::NoHangStdinClosed,
                    vec![evidence(login.clone(), "no exit within the 5s limit")],
                    false,
                ),
                check(CheckId::HelpOffStdout, vec![], false),
            ],
            vec![login, facts("list", "closed"), facts("--help", "closed")],
        );
        let findings = of(&r);
        let first = &findings[0];
        assert_eq!(first.score, Some(0));
        assert_eq!(first.severity, Severity::Critical);
        assert_eq!(first.kind, Some(Kind::Danger));
        let shown = first.worst().expect("a command");
        assert_eq!(shown.command, "login");
        assert_eq!(
            shown.did,
            "prompt loop (Open browser now? [y/n]), 195 MB of output in 5 s"
        );
        assert_eq!(shown.run_index, Some(0));
    }

    #[test]
    fn help_on_stdout_is_a_convention_of_a_high_mode_scored_2() {
        let help = facts("--help", "closed");
        let r = report(
            vec![check(
                CheckId::HelpOffStdout,
                vec![evidence(
                    help.clone(),
                    "--help wrote prose to stdout; put help on stderr",
                )],
                false,
            )],
            vec![help, facts("list", "closed"), facts("show", "closed")],
        );
        let f = &of(&r)[0];
        assert_eq!((f.failure_mode.as_str(), f.score), ("§3", Some(2)));
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.kind, Some(Kind::Convention));
        assert_eq!(f.commands[0].did, "--help wrote prose to stdout");
    }

    #[test]
    fn a_convention_broken_on_most_commands_scores_1_even_in_a_critical_mode() {
        let runs = commands(&["list", "show", "--help"]);
        let failures = ["list", "show"]
            .iter()
            .map(|n| evidence(facts(n, "closed"), "stdout is not a single JSON document"))
            .collect();
        let r = report(vec![check(CheckId::JsonEnvelope, failures, false)], runs);
        let f = of(&r);
        assert_eq!(score(&f, "§2"), Some(1));
        assert_eq!(f[0].severity, Severity::Critical);
    }

    #[test]
    fn a_browser_opened_is_a_danger_named_with_its_url() {
        let mut list = facts("list (isolated)", "closed");
        list.sandbox = Some(SandboxReport {
            sentinel_calls: vec![SentinelCall {
                name: "xdg-open".into(),
                argv: vec!["https://example.com".into()],
            }],
            ..Default::default()
        });
        let r = report(
            vec![check(
                CheckId::BrowserNotLaunched,
                vec![evidence(list.clone(), "launched a browser")],
                false,
            )],
            vec![list],
        );
        let f = of(&r);
        assert_eq!(score(&f, "§64"), Some(0));
        assert_eq!(
            f[0].commands[0].did,
            "opened a browser (xdg-open \"https://example.com\")"
        );
    }

    #[test]
    fn a_hang_in_a_high_mode_scores_1_not_0() {
        let mut help = facts("--help (isolated)", "closed");
        help.timed_out = true;
        help.duration_ms = 5000;
        let r = report(
            vec![check(
                CheckId::HelpVersionPure,
                vec![evidence(help.clone(), "no exit within the 5s limit")],
                false,
            )],
            vec![help],
        );
        let f = of(&r);
        assert_eq!(score(&f, "§3"), Some(1));
        assert_eq!(score(&f, "§21"), Some(1));
    }

    #[test]
    fn sizes_and_durations_read_as_people_write_them() {
        assert_eq!(size(195_312_000), "195 MB");
        assert_eq!(size(3_200_000), "3.2 MB");
        assert_eq!(size(640_000), "640 KB");
        assert_eq!(secs(5000), "5 s");
        assert_eq!(secs(1200), "1.2 s");
        assert_eq!(
            command_of("list deployments (COLUMNS=40)"),
            "list deployments"
        );
        assert_eq!(command_of("--help"), "--help");
    }
}
