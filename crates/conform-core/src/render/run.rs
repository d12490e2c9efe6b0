//! Rendering the result of `conform run`: one envelope (piped) or a readable report.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Map, Value};

use super::reruns;
use super::show::{self, causes};
use super::style::Style;
use super::Sources;
use crate::checks::{Status, CATALOG};
use crate::envelope::{envelope_with_meta, ErrorDetail, ExitStatus};
use crate::findings::{self, Finding, Kind, Severity};
use crate::result::{LevelStatus, ProfileReport};

pub(crate) fn status(results: &[ProfileReport]) -> ExitStatus {
    if results.iter().any(ProfileReport::failed) {
        ExitStatus::ChecksFailed
    } else {
        ExitStatus::Success
    }
}

/// One profile: `data` is its ConformanceResult, exactly the reference kit's
/// document; several: `data.results` holds one per profile, in the order given.
/// conform's extras go in `meta`, which the spec leaves open: `profile` and `runs`
/// (or `profiles`, one entry each), `extension_checks` and `findings` (by failure
/// mode, `findings.rs`; one list per profile when there are several).
pub(crate) fn to_envelope(results: &[ProfileReport], duration_ms: u64) -> Value {
    let status = status(results);
    let mut meta = Map::new();
    let data = match results {
        [one] => {
            meta.insert("profile".into(), json!(one.profile));
            meta.insert("runs".into(), json!(one.runs.len()));
            meta.insert("findings".into(), findings::to_meta(one));
            serde_json::to_value(one.conformance_result())
        }
        many => {
            let profiles: Vec<Value> = many
                .iter()
                .map(|r| json!({ "profile": r.profile, "runs": r.runs.len() }))
                .collect();
            meta.insert("profiles".into(), json!(profiles));
            let findings: Vec<Value> = many
                .iter()
                .map(|r| json!({ "profile": r.profile, "tool": r.tool, "findings": findings::to_meta(r) }))
                .collect();
            meta.insert("findings".into(), json!(findings));
            let all: Vec<_> = many.iter().map(ProfileReport::conformance_result).collect();
            serde_json::to_value(all).map(|all| json!({ "results": all }))
        }
    }
    .unwrap_or(Value::Null);
    let extension: BTreeSet<&str> = results
        .iter()
        .flat_map(ProfileReport::extension_checks)
        .collect();
    let extension: Vec<&str> = CATALOG
        .iter()
        .map(|spec| spec.name)
        .filter(|name| extension.contains(name))
        .collect();
    meta.insert("extension_checks".into(), json!(extension));
    // Runs whose outcome time decided while the machine starved them, made again.
    meta.insert("reruns".into(), json!(reruns::count(results)));
    // Of those, the ones starved again: inconclusive, their checks skipped.
    meta.insert(
        "starved_again".into(),
        json!(reruns::starved_again(results)),
    );
    let error = checks_failed(results);
    envelope_with_meta(status, data, error, duration_ms, meta)
}

/// The error of a run with failed checks (CONFORMANCE_CHECKS_FAILED), naming them;
/// `None` when none failed.
pub(crate) fn checks_failed(results: &[ProfileReport]) -> Option<ErrorDetail> {
    if status(results) != ExitStatus::ChecksFailed {
        return None;
    }
    let failed: usize = results.iter().map(|r| r.summary.failed).sum();
    let total: usize = results.iter().map(|r| r.checks.len()).sum();
    let ids: Vec<String> = results
        .iter()
        .flat_map(|r| {
            r.checks
                .iter()
                .map(|c| &c.check)
                .filter(|c| c.status == Status::Fail)
                .map(|c| c.id.to_string())
        })
        .collect();
    Some(ErrorDetail {
        code: "CONFORMANCE_CHECKS_FAILED".into(),
        message: format!("{failed} of {total} checks failed: {}", ids.join(", ")),
        retryable: false,
        phase: None,
        fix_required: Some(
            "Fix each failing check listed in data.checks; failures carry the probe argv and evidence".into(),
        ),
        context: None,
    })
}

fn level_word(status: LevelStatus) -> &'static str {
    match status {
        LevelStatus::Pass => "pass",
        LevelStatus::Fail => "fail",
        LevelStatus::Incomplete => "incomplete",
    }
}

/// `text` padded to `width` columns, then colored like its level verdict (padding
/// first, so escape sequences never break the alignment).
fn level_cell(status: LevelStatus, width: usize, style: Style) -> String {
    let text = format!("{:width$}", level_word(status));
    match status {
        LevelStatus::Pass => style.green(&text),
        LevelStatus::Fail => style.red(&text),
        LevelStatus::Incomplete => style.yellow(&text),
    }
}

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// The readable report, in the spirit of cargo-nextest: per profile a line per check
/// (status, id, runs, requirement IDs), then each failing check's failing runs, each
/// once with all its causes, grouped with the runs that failed the same ways; at the end a table over every profile.
/// `sources` turns a run's JSON pointer into `file:line:column`.
pub(crate) fn to_text(results: &[ProfileReport], sources: &Sources, style: Style) -> String {
    to_text_with(results, sources, style, &TextOptions::verbose())
}

/// How much the text report shows.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TextOptions<'a> {
    /// Every failing run with its shell line, every check with its requirements
    /// and why it skipped; without it, the findings, the failing checks and one
    /// reproduction per finding.
    pub verbose: bool,
    /// The `--json-report` file, which `conform replay` reads.
    pub report: Option<&'a Path>,
    /// How the runs at the black hole were kept from the network, when there
    /// were any: it ends the summary line, never a silent fallback.
    pub network: Option<&'a str>,
}

impl TextOptions<'_> {
    pub(crate) fn verbose() -> Self {
        TextOptions {
            verbose: true,
            report: None,
            network: None,
        }
    }
}

/// The readable report: each profile's findings first (dangers, then conventions),
/// then, short, its failing checks and a reproduction per finding, or, verbose,
/// every check and every failing run; at the end a table over every profile.
pub(crate) fn to_text_with(
    results: &[ProfileReport],
    sources: &Sources,
    style: Style,
    options: &TextOptions<'_>,
) -> String {
    let mut out = String::new();
    // `conform replay` numbers the runs of every profile in one sequence.
    let mut offset = 0;
    for result in results {
        if options.verbose {
            profile_text(&mut out, result, sources, style);
        } else {
            short_profile_text(&mut out, result, offset, options.report, style);
        }
        offset += result.runs.len();
    }
    summary_text(&mut out, results, style, options.network);
    out
}

/// A line of findings that share one cause: the same command doing the same thing.
struct Line<'a> {
    findings: Vec<&'a Finding>,
    shown: Option<&'a findings::Shown>,
}

/// The findings of one profile grouped by cause, in the findings' order (worst
/// first), keeping those `keep` accepts.
fn lines<'a>(all: &'a [Finding], keep: impl Fn(&Finding) -> bool) -> Vec<Line<'a>> {
    let mut lines: Vec<Line<'a>> = Vec::new();
    for finding in all.iter().filter(|f| keep(f)) {
        let shown = finding.worst();
        let key = shown.map(|s| (&s.command, &s.did));
        match lines
            .iter_mut()
            .find(|l| l.shown.map(|s| (&s.command, &s.did)) == key)
        {
            Some(line) => line.findings.push(finding),
            None => lines.push(Line {
                findings: vec![finding],
                shown,
            }),
        }
    }
    lines
}

/// `0/3 critical §10 Interactivity & TTY Requirements (also §45 §64): `login`, stdin closed: prompt loop ...`
fn finding_line(line: &Line<'_>, style: Style) -> String {
    let Some(first) = line.findings.first() else {
        return String::new();
    };
    let score = first.score.map_or("-/3".to_string(), |s| format!("{s}/3"));
    let head = format!("{score} {:<8}", first.severity.as_str());
    let covers = first
        .coverage
        .map(findings::Coverage::words)
        .unwrap_or_default();
    let head = match (first.score, first.severity) {
        (Some(0), _) => style.red(&head),
        (_, Severity::Critical) => style.yellow(&head),
        _ => head,
    };
    let also: Vec<&str> = line.findings[1..]
        .iter()
        .map(|f| f.failure_mode.as_str())
        .collect();
    let also = if also.is_empty() {
        String::new()
    } else {
        format!(" (also {})", also.join(" "))
    };
    let shown = match line.shown {
        Some(s) => {
            let more = first
                .commands
                .iter()
                .map(|c| c.command.as_str())
                .collect::<BTreeSet<_>>()
                .len()
                .saturating_sub(1);
            let more = match more {
                0 => String::new(),
                n => format!(" (and {})", plural(n, "more command")),
            };
            format!(
                ": `{}`, stdin {}: {}{more}",
                show::visible(&s.command),
                s.stdin,
                show::visible(&s.did)
            )
        }
        None => String::new(),
    };
    format!(
        "  {head} {} {}{covers}{also}{shown}",
        style.bold(&first.failure_mode),
        first.title
    )
}

/// Lines of findings shown by default, at most: a tool failing everything still
/// fits a screen or two; `--verbose` and the JSON report have the rest.
const MAX_LINES: usize = 10;
/// Reproductions shown by default, at most: the worst findings'.
const MAX_REPRODUCTIONS: usize = 8;

fn short_profile_text(
    out: &mut String,
    result: &ProfileReport,
    offset: usize,
    report: Option<&Path>,
    style: Style,
) {
    header_text(out, result, style);
    let all = findings::of(result);
    findings_section(out, &all, style);
    let dangers = lines(&all, |f| f.kind == Some(Kind::Danger));
    let conventions = lines(&all, |f| f.kind == Some(Kind::Convention));
    // The checks: the failing ones by name, the others counted.
    let width = result
        .checks
        .iter()
        .filter(|c| c.check.status == Status::Fail)
        .map(|c| c.check.id.len())
        .max()
        .unwrap_or(0);
    out.push_str(&format!(
        "{} {} passed, {} failed, {} skipped (--verbose: every check, why it skipped, every failing run)\n",
        style.bold("Checks:"),
        result.summary.passed,
        result.summary.failed,
        result.summary.skipped,
    ));
    let failing: Vec<_> = result
        .checks
        .iter()
        .filter(|c| c.check.status == Status::Fail)
        .collect();
    for report in failing.iter().take(MAX_LINES) {
        let check = &report.check;
        let runs = check
            .failures
            .iter()
            .map(|f| findings::command_of(&f.run.probe))
            .collect::<BTreeSet<_>>()
            .len();
        out.push_str(&format!(
            "  {} {:width$}  {}  {}{}\n",
            style.red("FAIL"),
            check.id,
            check.failure_modes.join(" "),
            plural(runs, "command"),
            if report.extension {
                "  [extension]"
            } else {
                ""
            },
        ));
    }
    if failing.len() > MAX_LINES {
        out.push_str(&format!(
            "  … {} (--verbose)\n",
            plural(failing.len() - MAX_LINES, "more failing check")
        ));
    }
    let shown: Vec<&Line<'_>> = dangers
        .iter()
        .chain(&conventions)
        .filter(|l| l.shown.is_some_and(|s| s.run_index.is_some()))
        .take(MAX_REPRODUCTIONS)
        .collect();
    if !shown.is_empty() {
        let file = report.map_or("REPORT.json".to_string(), |p| {
            show::visible(&p.display().to_string())
        });
        out.push_str(&format!("\n{}", style.bold("Reproduce:")));
        if report.is_none() {
            out.push_str(" (write REPORT.json with --json-report REPORT.json)");
        }
        out.push('\n');
        let mut done = BTreeSet::new();
        for line in shown {
            let (Some(s), Some(first)) = (line.shown, line.findings.first()) else {
                continue;
            };
            let Some(index) = s.run_index else { continue };
            if !done.insert(index) {
                continue;
            }
            out.push_str(&format!(
                "  {} `{}`: conform replay {file} {}\n",
                first.failure_mode,
                show::visible(&s.command),
                offset + index
            ));
        }
    }
    let again = reruns::lines(result);
    if !again.is_empty() {
        out.push_str(&format!(
            "\n  {} {} (--verbose shows them)\n",
            style.bold("Made again alone:"),
            plural(again.len(), "run")
        ));
    }
    out.push('\n');
}

/// The findings, worst first: dangers, then conventions, a line per cause; then
/// the modes at 3/3 and those no check judged, one line each.
fn findings_section(out: &mut String, all: &[Finding], style: Style) {
    let dangers = lines(all, |f| f.kind == Some(Kind::Danger));
    let conventions = lines(all, |f| f.kind == Some(Kind::Convention));
    if !dangers.is_empty() {
        out.push_str(&format!(
            "{}\n",
            style.bold("Dangers: what an agent meets calling it")
        ));
        push_lines(out, &dangers, style);
    }
    if !conventions.is_empty() {
        out.push_str(&format!(
            "{}\n",
            style.bold("Conventions: the spec's letter, where common tools differ")
        ));
        push_lines(out, &conventions, style);
    }
    // Modes nothing failed in: at 3, or at 2 where the spec's top row asks for
    // what no run shows; the coverage is the tool's, the same for each.
    let clean = |score: u8| -> Vec<&Finding> {
        all.iter()
            .filter(|f| f.kind.is_none() && f.score == Some(score))
            .collect()
    };
    for (score, words) in [
        (3, "at 3/3"),
        (2, "at 2/3, nothing failed, the top row not shown"),
    ] {
        let modes = clean(score);
        let Some(first) = modes.first() else { continue };
        let names: Vec<&str> = modes.iter().map(|f| f.failure_mode.as_str()).collect();
        let covers = first
            .coverage
            .map(findings::Coverage::words)
            .unwrap_or_default();
        let head = format!("{} {words}{covers}:", plural(modes.len(), "failure mode"));
        let head = if score == 3 {
            style.green(&head)
        } else {
            style.yellow(&head)
        };
        out.push_str(&format!("{head} {}\n", names.join(" ")));
    }
    let unjudged: Vec<&str> = all
        .iter()
        .filter(|f| f.score.is_none())
        .map(|f| f.failure_mode.as_str())
        .collect();
    if !unjudged.is_empty() {
        out.push_str(&format!(
            "{} {}\n",
            style.yellow("Not scored (their checks skipped, or the table's row 2 not shown):"),
            unjudged.join(" ")
        ));
    }
    out.push('\n');
}

/// At most [`MAX_LINES`] lines, then how many more there are.
fn push_lines(out: &mut String, lines: &[Line<'_>], style: Style) {
    for line in lines.iter().take(MAX_LINES) {
        out.push_str(&finding_line(line, style));
        out.push('\n');
    }
    if lines.len() > MAX_LINES {
        out.push_str(&format!(
            "  … {} (--verbose, --json-report)\n",
            plural(lines.len() - MAX_LINES, "more line")
        ));
    }
}

/// The tool, its profile, the levels and what ran.
fn header_text(out: &mut String, result: &ProfileReport, style: Style) {
    out.push_str(&format!(
        "{}  {}\n",
        style.bold(&show::visible(&result.tool)),
        style.dim(&show::visible(&result.profile))
    ));
    let levels = &result.levels;
    // The levels count only the reference kit's checks: a failing extension check
    // leaves them passing, so the failures are named beside them.
    let failed = match result.summary.failed {
        0 => String::new(),
        n => format!("{}, ", style.red(&format!("{} failed", plural(n, "check")))),
    };
    out.push_str(&format!(
        "  level 1 {}  level 2 {}  level 3 {}  {failed}{} in {}\n\n",
        level_cell(levels.level_1, 0, style),
        level_cell(levels.level_2, 0, style),
        level_cell(levels.level_3, 0, style),
        plural(result.runs.len(), "run"),
        seconds(result.duration_ms),
    ));
}

fn profile_text(out: &mut String, result: &ProfileReport, sources: &Sources, style: Style) {
    header_text(out, result, style);
    findings_section(out, &findings::of(result), style);
    let width = result
        .checks
        .iter()
        .map(|c| c.check.id.len())
        .max()
        .unwrap_or(0);
    for report in &result.checks {
        let check = &report.check;
        let mark = match check.status {
            Status::Pass => style.green("PASS"),
            Status::Fail => style.red("FAIL"),
            Status::Skip => style.yellow("SKIP"),
        };
        // Runs are shared between checks, so there is no time per check to show.
        let runs = format!("{:>7}", plural(check.runs_checked, "run"));
        let extension = if report.extension {
            "  [extension]"
        } else {
            ""
        };
        out.push_str(&format!(
            "  {mark} {:width$}  {runs}  {}{extension}\n",
            check.id,
            style.dim(&check.requirements.join(" ")),
        ));
        if let Some(reason) = &check.skipped_reason {
            out.push_str(&format!("       {}\n", style.dim(&show::detail(reason))));
        }
    }
    // One run failing several checks is shown once, under its cause, with what
    // each check said of it; the checks' own sections then point there.
    let causes = causes::causes(&result.checks);
    for (n, cause) in causes.iter().enumerate() {
        out.push_str(&format!(
            "\n  {} one run fails {}: {}\n",
            style.red(&format!("CAUSE {}", n + 1)),
            plural(cause.checks.len(), "check"),
            cause.checks.join(", ")
        ));
        for report in result
            .checks
            .iter()
            .filter(|c| cause.checks.contains(&c.check.id))
        {
            for failure in &report.check.failures {
                if causes::cause_of(&causes, &failure.run).is_some_and(|c| c.id == cause.id) {
                    out.push_str(&format!(
                        "    {}: {}\n",
                        style.bold(report.check.id),
                        show::detail(&failure.detail)
                    ));
                }
            }
        }
        let group = show::Group {
            details: Vec::new(),
            runs: vec![cause.run],
        };
        for line in show::run_lines(&result.profile, &group, sources, style) {
            out.push_str(&format!("    {line}\n"));
        }
    }
    for report in result
        .checks
        .iter()
        .filter(|c| c.check.status == Status::Fail)
    {
        let check = &report.check;
        out.push_str(&format!(
            "\n  {} {}: {}\n",
            style.red("FAIL"),
            style.bold(check.id),
            check.title
        ));
        let (shared, own): (Vec<_>, Vec<_>) = check
            .failures
            .iter()
            .partition(|failure| causes::cause_of(&causes, &failure.run).is_some());
        let mut pointed = Vec::new();
        for failure in shared {
            if let Some(n) = causes
                .iter()
                .position(|cause| causes::cause_of(&causes, &failure.run) == Some(cause))
                .filter(|n| !pointed.contains(n))
            {
                pointed.push(n);
                let run = &failure.run;
                out.push_str(&format!(
                    "    {} {}: see cause {} above\n",
                    style.bold("▸"),
                    style.bold(&show::visible(&run.probe)),
                    n + 1
                ));
            }
        }
        let own: Vec<_> = own.into_iter().cloned().collect();
        for group in show::groups(&own) {
            for line in show::group_lines(&result.profile, &group, sources, style) {
                out.push_str(&format!("    {line}\n"));
            }
        }
    }
    let again = reruns::lines(result);
    if !again.is_empty() {
        out.push_str(&format!("\n  {}\n", style.bold("Made again alone:")));
        for line in again {
            out.push_str(&format!("    {line}\n"));
        }
    }
    out.push('\n');
}

fn summary_text(out: &mut String, results: &[ProfileReport], style: Style, network: Option<&str>) {
    // The first line says whether checks failed (conform then exits 4), whatever the
    // levels in the table below say.
    let failing = results.iter().filter(|r| r.failed()).count();
    let failed: usize = results.iter().map(|r| r.summary.failed).sum();
    let verdict = match failed {
        0 => style.green("no check failed"),
        n => style.red(&format!("{} failed", plural(n, "check"))),
    };
    let profiles = match (results.len(), failing) {
        (1, _) => String::new(),
        (n, 0) => format!(", in {n} profiles"),
        (n, failing) => format!(", in {failing} of {n} profiles"),
    };
    let network = network.map_or(String::new(), |network| format!(" ({network})"));
    out.push_str(&format!(
        "{} {verdict}{profiles}{network}\n",
        style.bold("Summary:")
    ));
    let tool_w = results
        .iter()
        .map(|r| r.tool.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let profile_w = results
        .iter()
        .map(|r| r.profile.chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    let level_w = "incomplete".len();
    out.push_str(&style.dim(&format!(
        "  {:tool_w$}  {:profile_w$}  {:level_w$}  {:level_w$}  {:level_w$}  {:>6}  {:>6}  {:>7}",
        "tool", "profile", "level 1", "level 2", "level 3", "passed", "failed", "skipped"
    )));
    out.push('\n');
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for r in results {
        let failed_cell = format!("{:>6}", r.summary.failed);
        out.push_str(&format!(
            "  {:tool_w$}  {:profile_w$}  {}  {}  {}  {:>6}  {}  {:>7}\n",
            show::visible(&r.tool),
            show::visible(&r.profile),
            level_cell(r.levels.level_1, level_w, style),
            level_cell(r.levels.level_2, level_w, style),
            level_cell(r.levels.level_3, level_w, style),
            r.summary.passed,
            if r.summary.failed > 0 {
                style.red(&failed_cell)
            } else {
                failed_cell
            },
            r.summary.skipped,
        ));
        passed += r.summary.passed;
        failed += r.summary.failed;
        skipped += r.summary.skipped;
    }
    if results.len() > 1 {
        out.push_str(&format!(
            "  {:tool_w$}  {:profile_w$}  {:level_w$}  {:level_w$}  {:level_w$}  {passed:>6}  {failed:>6}  {skipped:>7}\n",
            "total", "", "", "", ""
        ));
    }
    let starved = reruns::starved_again(results);
    if starved > 0 {
        out.push_str(&format!(
            "{} {}: the machine never gave them the CPU they needed, made again alone either; the checks that read them skipped (see \"Made again alone\")\n",
            style.bold("Starved twice:"),
            plural(starved, "run"),
        ));
    }
}
