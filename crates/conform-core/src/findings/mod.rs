//! Findings: the result read by the spec's failure modes instead of by check.
//!
//! For each failure mode (§N) that a selected check maps to: the checks that judged
//! it, the spec's severity, a score from 0 to 3 by the mode's own Evaluation table
//! (`rubric.rs`, scored in `score.rs`), what the score covers, and the commands
//! that show it, each with what it did in words. The rule is written in
//! `docs/findings.md`.
//!
//! Findings are computed from a finished [`ProfileReport`]; they change no verdict.

mod rubric;
mod score;

pub(crate) use rubric::{Did, SOURCE_COMMIT};

use std::collections::BTreeSet;

use serde::Serialize;

use crate::checks::evidence::RunFacts;
use crate::checks::headless::auth_flow;
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
    /// The profile entry the run comes from.
    #[serde(skip)]
    pub pointer: String,
    /// What it did, by name, for the mode's table.
    #[serde(skip)]
    pub seen: Vec<Did>,
}

/// What a score covers: the commands the mode's checks judged, of those found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Coverage {
    pub judged: usize,
    pub found: usize,
}

impl Coverage {
    /// Fewer judged than found.
    pub(crate) fn partial(self) -> bool {
        self.judged < self.found
    }

    /// ` on 2 of 86 commands` when partial, else nothing.
    pub(crate) fn words(self) -> String {
        if self.partial() {
            format!(" on {} of {} commands", self.judged, self.found)
        } else {
            String::new()
        }
    }
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
    /// 0 to 3, by the mode's Evaluation table; `None` when nothing the table
    /// reads was judged.
    pub score: Option<u8>,
    /// The table's row the score is, and the fact that placed it there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    /// The condition of the next row up the runs did not or cannot show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_shown: Option<String>,
    /// The challenge page the table is read from, at [`SOURCE_COMMIT`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rubric: Option<String>,
    /// The commands judged of those found, when the score has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// Danger when any command shows one, convention when only conventions failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    pub checks: Vec<Judged>,
    pub commands: Vec<Shown>,
}

impl Finding {
    /// `3/3`, `3/3 on 2 of 86 commands`, or `-/3` when not scored.
    pub(crate) fn score_words(&self) -> String {
        match self.score {
            Some(score) => format!(
                "{score}/3{}",
                self.coverage.map(Coverage::words).unwrap_or_default()
            ),
            None => "-/3".to_string(),
        }
    }

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
    let (words, kind, _) = seen(check, evidence);
    (words, kind)
}

/// Last words of a command that exists to open a page.
const OPENING_COMMANDS: &[&str] = &[
    "docs",
    "doc",
    "open",
    "browse",
    "dashboard",
    "web",
    "console",
];

/// The checks whose subject a sentinel is: a browser, an editor, a pager or an
/// installer is named only in their findings, so another check's failure on the
/// same run says what failed for it.
fn sentinel_subject(check: &str, name: &str) -> Option<(&'static str, Did)> {
    let (what, did, checks): (&str, Did, &[&str]) = if name == "BROWSER" || OPENERS.contains(&name)
    {
        (
            "opened a browser",
            Did::Browser,
            &["browser_not_launched", "headless_auth"],
        )
    } else if EDITOR_VARS.contains(&name) {
        ("opened an editor", Did::Editor, &["editor_not_invoked"])
    } else if INSTALLERS.contains(&name) {
        ("ran an installer", Did::Installer, &["no_self_update"])
    } else if name.ends_with("PAGER") || PAGERS.contains(&name) {
        ("opened a pager", Did::Pager, &["pager_not_invoked"])
    } else {
        return None;
    };
    checks.contains(&check).then_some((what, did))
}

/// What a run that failed `check` did, in words, whether that is a danger, and
/// the dangers by name, which the rubrics read.
pub(crate) fn seen(check: &str, evidence: &Evidence) -> (String, Kind, Vec<Did>) {
    let run = &evidence.run;
    let command = command_of(&run.probe);
    let mut dangers: Vec<String> = Vec::new();
    let mut did: Vec<Did> = Vec::new();
    let output = run.stdout_bytes.saturating_add(run.stderr_bytes);
    let prompt = prompt_line(&run.stdout_excerpt).or_else(|| prompt_line(&run.stderr_excerpt));
    let looped = prompt.is_some_and(|line| {
        repeats(&run.stdout_excerpt, line) || repeats(&run.stderr_excerpt, line)
    });
    let ran_out = run.timed_out || run.killed_by_kit.as_ref().is_some_and(|k| k.at_limit);
    if let Some(line) = prompt.filter(|_| ran_out || looped) {
        let what = if looped { "prompt loop" } else { "prompt" };
        dangers.push(format!("{what} ({})", shorten(line, 40)));
        did.push(Did::Prompt);
        if ran_out {
            did.push(Did::Hang);
        }
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
        did.push(Did::Hang);
    }
    if output >= FLOOD_BYTES {
        dangers.push(format!(
            "{} of output in {}",
            size(output),
            secs(run.duration_ms)
        ));
        did.push(Did::Flood);
    }
    for call in run.sandbox.iter().flat_map(|s| &s.sentinel_calls) {
        let Some((what, mut kind)) = sentinel_subject(check, call.name.as_str()) else {
            continue;
        };
        let shown = shorten(&crate::checks::evidence::sentinel_call(call), 60);
        let mut what = what.to_string();
        if kind == Did::Browser {
            if auth_flow(&command, &call.argv.join(" "), ran_out) {
                kind = Did::AuthBrowser;
            } else if let Some(last) = command
                .split_whitespace()
                .last()
                .filter(|w| OPENING_COMMANDS.contains(&w.to_ascii_lowercase().as_str()))
            {
                what = format!("opened a browser, as `{last}` asks");
            }
        }
        let words = format!("{what} ({shown})");
        if !dangers.contains(&words) {
            dangers.push(words);
        }
        if !did.contains(&kind) {
            did.push(kind);
        }
    }
    // Dangers only the check's subject tells.
    match check {
        "pager_not_invoked" | "editor_not_invoked" | "browser_not_launched"
            if dangers.is_empty() =>
        {
            dangers.push(shorten(first_clause(&evidence.detail), 100));
            did.push(match check {
                "pager_not_invoked" => Did::Pager,
                "editor_not_invoked" => Did::Editor,
                _ if auth_flow(&command, &evidence.detail, ran_out) => Did::AuthBrowser,
                _ => Did::Browser,
            });
        }
        "destructive_refuses_unconfirmed" if run.exit_code == Some(0) => {
            dangers.push("acted without confirmation (exit 0)".into());
            did.push(Did::Acted);
        }
        "dry_run_stable" => {
            dangers.push("its preview acted: two previews differ".into());
            did.push(Did::PreviewActed);
        }
        "debug_no_secret_leak" | "secret_not_echoed"
            if evidence.detail.contains("canary") || evidence.observed =>
        {
            dangers.push("leaked a secret".into());
            did.push(Did::Leaked);
        }
        "shell_metachar_inert" if evidence.observed => {
            dangers.push("ran an injected shell command".into());
            did.push(Did::Injected);
        }
        "hallucinated_input_rejected" if matches!(run.exit_code, Some(0 | 5)) => {
            dangers.push(format!(
                "used a made-up id as given: {}",
                shorten(first_clause(&evidence.detail), 80)
            ));
            did.push(Did::UsedAsGiven);
        }
        _ => {}
    }
    if dangers.is_empty() {
        (
            shorten(first_clause(&evidence.detail), 100),
            Kind::Convention,
            did,
        )
    } else {
        (dangers.join(", "), Kind::Danger, did)
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
    let coverage = coverage(report);
    let mut findings: Vec<Finding> = modes
        .into_iter()
        .map(|n| finding(report, n, coverage))
        .collect();
    findings.sort_by_key(|f| (f.score.unwrap_or(4), f.severity, f.mode));
    findings
}

/// The commands judged of those found: the tool's commands that any run was made
/// for. `None` when the report does not know its commands (an old report file).
fn coverage(report: &ProfileReport) -> Option<Coverage> {
    let commands = &report.commands;
    let found = commands.found.max(commands.pointers.len());
    if found == 0 {
        return None;
    }
    let ran: BTreeSet<&str> = report.runs.iter().map(|r| r.pointer.as_str()).collect();
    let judged = commands
        .pointers
        .iter()
        .filter(|p| ran.contains(p.as_str()))
        .count();
    Some(Coverage { judged, found })
}

fn finding(report: &ProfileReport, n: u16, coverage: Option<Coverage>) -> Finding {
    let label = format!("§{n}");
    let (title, severity) = mode(n).unwrap_or(("(not in the spec's catalog)", Severity::Medium));
    let table = rubric::of(n);
    let mapped: Vec<&crate::result::CheckReport> = report
        .checks
        .iter()
        .filter(|c| c.check.failure_modes.contains(&label))
        .collect();
    let checks: Vec<Judged> = mapped
        .iter()
        .map(|c| Judged {
            id: c.check.id,
            status: c.check.status,
        })
        .collect();
    let not_here = table.map_or(&[][..], |t| t.not_here);
    let mut shown: Vec<Shown> = Vec::new();
    for check in mapped
        .iter()
        .map(|c| &c.check)
        .filter(|c| c.status == Status::Fail)
    {
        for failure in &check.failures {
            let (did, kind, seen) = seen(check.id, failure);
            // What another mode's table judges is not this mode's finding: a
            // browser a `docs` command opened is §64's, not §10's.
            if !seen.is_empty() && seen.iter().all(|d| not_here.contains(d)) {
                continue;
            }
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
                    seen,
                }),
            }
        }
    }
    // Dangers first, then in the checks' order.
    shown.sort_by_key(|s| s.kind);
    let judged = mapped.iter().any(|c| c.check.status != Status::Skip);
    let danger = shown.iter().any(|s| s.kind == Kind::Danger);
    // A check set aside because the machine starved its runs, or the budget or a
    // signal ended them, might have failed: the mode's other passes do not make
    // it a score (a prompt loop on a loaded runner must not read as clean).
    let inconclusive = mapped.iter().any(|c| {
        c.check.status == Status::Skip
            && c.check
                .skipped_reason
                .as_deref()
                .is_some_and(|why| why.starts_with(STARVED) || why.starts_with(NOT_RUN))
    });
    let scored = match table {
        Some(table) if judged => score::score(
            table,
            &score::Sight {
                checks: &mapped,
                shown: &shown,
            },
            inconclusive,
        ),
        _ => score::Scored::default(),
    };
    // A score says what it covers; none has nothing to cover. Where no command
    // found was run, the kit's own runs (help, a made-up id) show a failure they
    // hold, but no score of a mode whose commands were never looked at: where
    // conform did not look, it scores nothing.
    let looked = coverage.is_none_or(|c| c.judged > 0) || !shown.is_empty();
    let score = scored.score.filter(|_| looked);
    let coverage = coverage.filter(|_| score.is_some());
    Finding {
        failure_mode: label,
        mode: n,
        title,
        severity,
        score,
        row: scored.row,
        not_shown: scored.not_shown,
        rubric: table.map(|t| {
            format!(
                "cli-agent-spec/cli-agent-spec@{}:challenges/{}",
                &SOURCE_COMMIT[..7],
                t.page
            )
        }),
        coverage,
        kind: (!shown.is_empty()).then_some(if danger {
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
        let pointers: BTreeSet<String> = runs
            .iter()
            .map(|r| r.pointer.clone())
            .filter(|p| p.starts_with("/probes/"))
            .collect();
        let commands = crate::result::Commands {
            found: pointers.len(),
            pointers: pointers.into_iter().collect(),
        };
        ProfileReport {
            commands,
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

    fn finding<'a>(findings: &'a [Finding], mode: &str) -> &'a Finding {
        findings
            .iter()
            .find(|f| f.failure_mode == mode)
            .unwrap_or_else(|| panic!("no finding {mode}"))
    }

    /// A run at its limit, its last output `tail`.
    fn hung(probe: &str, stdin: &'static str, tail: &str) -> RunFacts {
        let mut run = facts(probe, stdin);
        run.timed_out = true;
        run.exit_code = None;
        run.duration_ms = 5000;
        run.stderr_excerpt = tail.into();
        run
    }

    /// A run whose sandbox saw `name` called with `argv`.
    fn called(probe: &str, name: &str, argv: &str) -> RunFacts {
        let mut run = facts(probe, "closed");
        run.sandbox = Some(SandboxReport {
            sentinel_calls: vec![SentinelCall {
                name: name.into(),
                argv: vec![argv.into()],
            }],
            ..Default::default()
        });
        run
    }

    fn pass(id: CheckId) -> CheckReport {
        check(id, vec![], false)
    }

    fn fail(id: CheckId, run: &RunFacts, detail: &str) -> CheckReport {
        check(id, vec![evidence(run.clone(), detail)], false)
    }

    #[test]
    fn every_mode_a_check_names_is_in_the_catalog_and_has_its_table() {
        for spec in CATALOG {
            for n in spec.failure_modes {
                assert!(mode(*n).is_some(), "§{n} of {}", spec.name);
                let table = rubric::of(*n).unwrap_or_else(|| panic!("no table for §{n}"));
                // Every check a table reads maps to its mode, so the finding
                // lists it.
                for fact in table
                    .zero
                    .iter()
                    .chain(table.one)
                    .chain(table.needs_two)
                    .chain(table.needs_three)
                {
                    if let rubric::Fact::Passed(id) | rubric::Fact::Failed(id) = fact {
                        let read = CATALOG
                            .iter()
                            .find(|c| c.name == *id)
                            .unwrap_or_else(|| panic!("§{n} reads {id}, no such check"));
                        assert!(read.failure_modes.contains(n), "§{n} reads {id}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_docs_state_every_table_and_its_source_commit() {
        let docs = include_str!("../../../../docs/findings.md");
        assert!(docs.contains(SOURCE_COMMIT));
        for table in rubric::RUBRICS {
            let row = format!("| [§{}](", table.mode);
            assert!(docs.contains(&row), "docs/findings.md has no row {row}");
            assert!(docs.contains(table.page), "{}", table.page);
        }
    }

    #[test]
    fn a_mode_shown_at_its_top_row_scores_3_one_capped_by_what_no_run_shows_2() {
        let r = report(
            vec![
                pass(CheckId::WidthInvariant),
                pass(CheckId::HelpOffStdout),
                check(CheckId::ArgumentOrder, vec![], true),
            ],
            commands(&["list", "--help"]),
        );
        let findings = of(&r);
        assert_eq!(score(&findings, "§63"), Some(3));
        let help = finding(&findings, "§3");
        assert_eq!(help.score, Some(2));
        assert!(
            help.not_shown
                .as_deref()
                .is_some_and(|w| w.starts_with("row 3 not observable: `--quiet`")),
            "{help:?}"
        );
        assert_eq!(score(&findings, "§69"), None);
        assert_eq!(findings.last().map(|f| f.score), Some(None));
        assert!(help
            .rubric
            .as_deref()
            .is_some_and(|r| r.ends_with("03-high-stderr-stdout.md")));
    }

    #[test]
    fn a_skipped_check_never_lifts_a_mode_to_a_score() {
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
            vec![starved, pass(CheckId::NoHangStdinOpen)],
            commands(&["login"]),
        );
        assert_eq!(score(&of(&r), "§10"), None);
    }

    #[test]
    fn a_flooding_prompt_loop_is_row_0_of_interactivity_with_its_command_in_words() {
        let mut login = hung("login (isolated)", "closed", "");
        login.stdout_bytes = 195_000_000;
        login.stdout_excerpt = "Open browser now? [y/n]\n".repeat(20);
        let r = report(
            vec![
                fail(
                    CheckId::NoHangStdinClosed,
                    &login,
                    "no exit within the 5s limit",
                ),
                pass(CheckId::HelpOffStdout),
            ],
            vec![login, facts("list", "closed"), facts("--help", "closed")],
        );
        let findings = of(&r);
        let first = &findings[0];
        assert_eq!(first.failure_mode, "§10");
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
        assert!(first.row.as_deref().is_some_and(|r| r.starts_with("0: ")));
        // The same hang is §11's row 0.
        assert_eq!(score(&findings, "§11"), Some(0));
    }

    #[test]
    fn help_on_stdout_is_row_1_of_stderr_discipline() {
        let help = facts("--help", "closed");
        let r = report(
            vec![fail(
                CheckId::HelpOffStdout,
                &help,
                "--help wrote prose to stdout; put help on stderr",
            )],
            vec![help, facts("list", "closed"), facts("show", "closed")],
        );
        let f = &of(&r)[0];
        assert_eq!((f.failure_mode.as_str(), f.score), ("§3", Some(1)));
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.kind, Some(Kind::Convention));
        assert_eq!(f.commands[0].did, "--help wrote prose to stdout");
    }

    #[test]
    fn json_missing_on_commands_is_row_1_of_output_format() {
        // Row 0 (no structured output mode at all) needs more than failed runs:
        // a flag may give JSON. Failures on every command read as row 1.
        let runs = commands(&["list", "show", "--help"]);
        let failures = ["list", "show"]
            .iter()
            .map(|n| evidence(facts(n, "closed"), "stdout is not a single JSON document"))
            .collect();
        let r = report(vec![check(CheckId::JsonEnvelope, failures, false)], runs);
        let f = of(&r);
        assert_eq!(score(&f, "§2"), Some(1));
        assert_eq!(
            finding(&f, "§2").commands[0].did,
            "stdout is not a single JSON document"
        );
    }

    #[test]
    fn a_browser_is_row_0_of_headless_display_and_interactivity_only_in_an_auth_flow() {
        // `docs` opening a page: §64's, named as the command asks; not §10's.
        let docs = called("docs (isolated)", "xdg-open", "https://example.com/docs");
        let r = report(
            vec![
                fail(CheckId::BrowserNotLaunched, &docs, "launched a browser"),
                pass(CheckId::NoHangStdinClosed),
                pass(CheckId::PagerNotInvoked),
                pass(CheckId::EditorNotInvoked),
            ],
            vec![docs],
        );
        let f = of(&r);
        assert_eq!(score(&f, "§64"), Some(0));
        assert_eq!(
            finding(&f, "§64").commands[0].did,
            "opened a browser, as `docs` asks (xdg-open \"https://example.com/docs\")"
        );
        let interactivity = finding(&f, "§10");
        assert!(interactivity.commands.is_empty(), "{interactivity:?}");
        assert_eq!(interactivity.score, Some(3));
        // `login` opening a device page: an auth flow, §10's and §45's row 0 too.
        let login = called("login (isolated)", "xdg-open", "https://example.com/device");
        let r = report(
            vec![
                fail(CheckId::BrowserNotLaunched, &login, "launched a browser"),
                fail(CheckId::HeadlessAuth, &login, "opened a browser to log in"),
            ],
            vec![login],
        );
        let f = of(&r);
        for mode in ["§10", "§45", "§64"] {
            assert_eq!(score(&f, mode), Some(0), "{mode}");
        }
        // Not opening one shows row 2 of §64; its row 3 is in no run.
        let list = facts("list", "closed");
        let f = of(&report(vec![pass(CheckId::BrowserNotLaunched)], vec![list]));
        assert_eq!(score(&f, "§64"), Some(2));
    }

    #[test]
    fn an_output_finding_names_the_output_not_the_browser_the_run_opened() {
        let mut list = called("list (isolated)", "xdg-open", "https://example.com");
        list.stdout_excerpt = "Listing...".into();
        let r = report(
            vec![fail(
                CheckId::JsonEnvelope,
                &list,
                "stdout is not a single JSON document: `Listing...`",
            )],
            vec![list, facts("show", "closed")],
        );
        let f = of(&r);
        assert_eq!(
            finding(&f, "§2").commands[0].did,
            "stdout is not a single JSON document: `Listing...`"
        );
        assert_eq!(finding(&f, "§2").kind, Some(Kind::Convention));
    }

    #[test]
    fn timeouts_score_by_their_table_hang_0_prose_1_structured_2() {
        let list = hung("list (black hole)", "closed", "");
        let f = of(&report(
            vec![fail(
                CheckId::NetworkTimeout,
                &list,
                "still waiting at 120 s",
            )],
            vec![list],
        ));
        assert_eq!(score(&f, "§11"), Some(0));
        let mut prose = facts("list (black hole)", "closed");
        prose.exit_code = Some(1);
        let f = of(&report(
            vec![fail(
                CheckId::NetworkTimeout,
                &prose,
                "exited 1 with no error envelope",
            )],
            vec![prose.clone()],
        ));
        assert_eq!(score(&f, "§11"), Some(1));
        // Given up in words, exit 1: network_timeout passes and notes it; the
        // table reads it as row 1 all the same.
        let mut worded = pass(CheckId::NetworkTimeout);
        worded.notes.push(evidence(
            prose.clone(),
            "with every proxy at a listener that never answers, it asked for api.example:443 and exited 1 after 2.0s with no error envelope: no TIMEOUT code an agent can read",
        ));
        let f = of(&report(vec![worded], vec![prose.clone()]));
        assert_eq!(score(&f, "§11"), Some(1));
        let f = of(&report(
            vec![
                pass(CheckId::NetworkTimeout),
                pass(CheckId::NoHangStdinClosed),
            ],
            vec![prose.clone()],
        ));
        let timeouts = finding(&f, "§11");
        assert_eq!(timeouts.score, Some(2));
        assert!(timeouts
            .not_shown
            .as_deref()
            .is_some_and(|w| w.contains("completed_steps")));
        // A tool that never reached the network shows no row of §11's but a
        // hang: no score, not 3.
        let f = of(&report(
            vec![
                check(CheckId::NetworkTimeout, vec![], true),
                pass(CheckId::NoHangStdinClosed),
            ],
            vec![prose],
        ));
        assert_eq!(score(&f, "§11"), None);
    }

    #[test]
    fn secrets_score_by_the_letter_flag_alone_0_beside_a_variable_1_neither_2() {
        let help = facts("--help", "closed");
        let list = facts("list", "closed");
        let f = of(&report(
            vec![
                fail(
                    CheckId::SecretFlagsHaveAlternative,
                    &help,
                    "`--api-key` in `tool --help` takes a secret on the command line",
                ),
                pass(CheckId::SecretNotEchoed),
            ],
            vec![help.clone(), list.clone()],
        ));
        assert_eq!(score(&f, "§24"), Some(0));
        let mut beside = pass(CheckId::SecretFlagsHaveAlternative);
        beside.notes.push(evidence(
            help.clone(),
            "`--api-key` in `tool --help` takes a secret on the command line beside an environment variable or file named for it",
        ));
        let f = of(&report(
            vec![beside, pass(CheckId::SecretNotEchoed)],
            vec![help.clone(), list.clone()],
        ));
        let secrets = finding(&f, "§24");
        assert_eq!(secrets.score, Some(1));
        assert!(secrets
            .row
            .as_deref()
            .is_some_and(|r| r.contains("--api-key")));
        let f = of(&report(
            vec![
                pass(CheckId::SecretFlagsHaveAlternative),
                pass(CheckId::SecretNotEchoed),
            ],
            vec![help, list.clone()],
        ));
        assert_eq!(score(&f, "§24"), Some(2));
        let mut leak = list.clone();
        leak.stderr_excerpt = "invalid token <canary API_KEY>".into();
        let f = of(&report(
            vec![fail(
                CheckId::SecretNotEchoed,
                &leak,
                "the canary of API_KEY was seen in stderr",
            )],
            vec![leak],
        ));
        assert_eq!(score(&f, "§24"), Some(0));
    }

    #[test]
    fn stdin_deadlock_scores_0_on_a_wait_and_2_when_every_run_ends() {
        let read = hung("read (stdin open)", "open", "");
        let f = of(&report(
            vec![fail(
                CheckId::NoHangStdinOpen,
                &read,
                "no exit within the limit",
            )],
            vec![read],
        ));
        assert_eq!(score(&f, "§50"), Some(0));
        let f = of(&report(
            vec![pass(CheckId::NoHangStdinOpen)],
            vec![facts("read", "open")],
        ));
        assert_eq!(score(&f, "§50"), Some(2));
    }

    #[test]
    fn an_id_used_as_given_is_row_0_of_injection_and_a_refused_one_row_2() {
        let mut get = facts("get (hallucinated ../P)", "closed");
        get.exit_code = Some(0);
        let f = of(&report(
            vec![fail(
                CheckId::HallucinatedInputRejected,
                &get,
                "the made-up positional `../P` exited 0; refuse it with exit 2",
            )],
            vec![get],
        ));
        assert_eq!(score(&f, "§34"), Some(0));
        assert_eq!(score(&f, "§35"), Some(0));
        assert!(finding(&f, "§34").commands[0]
            .did
            .starts_with("used a made-up id as given"));
        let f = of(&report(
            vec![
                pass(CheckId::HallucinatedInputRejected),
                pass(CheckId::ShellMetacharInert),
            ],
            vec![facts("get", "closed")],
        ));
        assert_eq!(score(&f, "§34"), Some(2));
        // Without a run of a made-up id, §34's row 2 is not shown: no score.
        let f = of(&report(
            vec![pass(CheckId::ShellMetacharInert)],
            vec![facts("get", "closed")],
        ));
        assert_eq!(score(&f, "§34"), None);
    }

    #[test]
    fn a_score_says_how_many_of_the_commands_found_it_covers() {
        let mut r = report(
            vec![pass(CheckId::WidthInvariant)],
            commands(&["list", "show"]),
        );
        r.commands.found = 86;
        r.commands.pointers.push("/probes/deploy".into());
        let f = of(&r);
        let width = finding(&f, "§63");
        assert_eq!(
            width.coverage,
            Some(Coverage {
                judged: 2,
                found: 86
            })
        );
        assert_eq!(width.score_words(), "3/3 on 2 of 86 commands");
        // Judged from the kit's own runs only, with commands found and none run
        // (discovery fell short, or the budget): no score, where nothing failed.
        let mut r = report(vec![pass(CheckId::WidthInvariant)], commands(&["--help"]));
        r.commands.found = 5;
        r.commands.pointers.push("/probes/list".into());
        assert_eq!(finding(&of(&r), "§63").score, None);
        // Nothing judged: no score, and no coverage.
        let r = report(
            vec![check(CheckId::WidthInvariant, vec![], true)],
            commands(&["list"]),
        );
        let width = of(&r);
        assert_eq!(finding(&width, "§63").score, None);
        assert_eq!(finding(&width, "§63").coverage, None);
    }

    #[test]
    fn a_hang_in_a_high_mode_scores_by_its_table() {
        let help = hung("--help (isolated)", "closed", "");
        let r = report(
            vec![fail(
                CheckId::HelpVersionPure,
                &help,
                "no exit within the 5s limit",
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
