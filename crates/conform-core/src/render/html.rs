//! `--html PATH`: one self-contained page (inline CSS, no script, nothing fetched)
//! with a grid of profiles (or tools) by the spec's failure modes, each cell the
//! finding's score coloured by it and the worst finding on hover
//! (`findings.rs`); then a grid of profiles by checks, each row with its levels, and
//! below it the evidence every cell links to: a failure's causes and the shell line
//! that reproduces each failing run, a skip's reason, a pass's run count.
//!
//! Everything a tool or a profile wrote is escaped for HTML, after its control
//! bytes are made visible as the text report shows them.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::show::{self, Group};
use super::{Finished, Sources};
use crate::checks::{Status, CATALOG};
use crate::findings::{self, Finding, Severity};
use crate::profile::INFERRED_PATH_PREFIX;
use crate::result::{CheckReport, LevelStatus, ProfileReport};

const STYLE: &str = r#"
:root { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px; color: #1f2328; }
body { margin: 0 1rem 2rem; }
h1 { font-size: 1.3rem; margin: 0.8rem 0 0.2rem; }
p.sum { margin: 0 0 0.6rem; color: #57606a; }
.legend span { margin-right: 0.9rem; white-space: nowrap; }
.legend i { display: inline-block; width: 0.9rem; height: 0.9rem; vertical-align: -0.15rem; margin-right: 0.25rem; border-radius: 2px; }
.grid { display: inline-block; max-width: 100%; overflow: auto; max-height: 88vh; border: 1px solid #d0d7de; margin-top: 0.5rem; }
table.cards { border-collapse: separate; border-spacing: 0; }
.cards th, .cards td { padding: 0; border-bottom: 1px solid #eaeef2; }
.cards thead th { position: sticky; top: 0; z-index: 2; background: #fff; vertical-align: bottom; border-bottom: 1px solid #d0d7de; }
.cards thead th.check { height: 11.5rem; width: 1.45rem; }
.cards thead th.check div { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: 500; font-size: 12px; white-space: nowrap; padding: 0.3rem 0; margin: 0 auto; }
.cards thead th.check.ext div { color: #57606a; font-style: italic; }
.cards .name { position: sticky; left: 0; z-index: 1; background: #fff; text-align: left; padding: 0 0.6rem 0 0.2rem; max-width: 18rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; border-right: 1px solid #d0d7de; }
.cards thead th.name { z-index: 3; }
.cards .name small { color: #57606a; margin-left: 0.4rem; }
.cards td.lv { padding: 0 0.15rem; font-size: 11px; text-align: center; }
.cards td.lv b { display: inline-block; min-width: 1.7rem; padding: 0.05rem 0.2rem; border-radius: 3px; font-weight: 600; }
.cards td.cell a { display: block; width: 1.3rem; height: 1.3rem; margin: 0.08rem auto; border-radius: 2px; text-decoration: none; text-align: center; line-height: 1.3rem; font-size: 11px; font-weight: 700; color: #fff; }
.pass { background: #2da44e; } .fail { background: #cf222e; } .skip { background: #d4a72c; }
.unsel { background: #eaeef2; color: #8c959f !important; }
b.pass, b.fail { color: #fff; } b.incomplete { background: #fff8c5; color: #7d4e00; }
.cards tbody tr:hover td, .cards tbody tr:hover th { background-color: #f6f8fa; }
.cards tbody tr:hover td.cell a { outline: 1px solid #1f2328; }
section.row { margin-top: 1.6rem; border-top: 2px solid #d0d7de; }
section.row h2 { font-size: 1.1rem; margin: 0.6rem 0 0.2rem; }
section.row h2 small { color: #57606a; font-weight: 400; margin-left: 0.5rem; }
article { margin: 0.5rem 0 0.8rem 0.6rem; padding-left: 0.6rem; border-left: 4px solid #d0d7de; }
article.fail { border-color: #cf222e; background: none; } article.skip { border-color: #d4a72c; background: none; }
article h3 { font-size: 0.95rem; margin: 0.2rem 0; }
article h3 .req { color: #57606a; font-weight: 400; margin-left: 0.4rem; }
.detail { margin: 0.2rem 0; white-space: pre-wrap; }
.run { margin: 0.3rem 0 0.5rem; }
.run .where { color: #57606a; margin-left: 0.4rem; }
pre { background: #f6f8fa; padding: 0.35rem 0.5rem; margin: 0.2rem 0; white-space: pre-wrap; word-break: break-all; font-size: 12px; }
.ended { color: #57606a; font-size: 12px; }
ul.passed { columns: 3 18rem; margin: 0.3rem 0; padding-left: 1.2rem; color: #57606a; }
:target { outline: 2px solid #0969da; outline-offset: 2px; }
.cards thead th.mode { height: 4.2rem; width: 1.9rem; }
.cards thead th.mode div { writing-mode: vertical-rl; transform: rotate(180deg); font-size: 12px; font-weight: 600; margin: 0 auto; }
.cards thead th.mode.critical div { color: #cf222e; } .cards thead th.mode.high div { color: #bc4c00; }
.cards td.score span { display: block; width: 1.6rem; height: 1.4rem; margin: 0.08rem auto; border-radius: 2px; text-align: center; line-height: 1.4rem; font-size: 12px; font-weight: 700; color: #fff; cursor: default; }
.s0 { background: #cf222e; } .s1 { background: #fb8f44; } .s2 { background: #d4a72c; } .s3 { background: #2da44e; }
.sn { background: #eaeef2; color: #8c959f !important; }
.partial { background-image: repeating-linear-gradient(45deg, transparent 0 4px, rgba(255,255,255,.5) 4px 8px); }
h2.grid-title { font-size: 1.05rem; margin: 1rem 0 0; }
"#;

/// The page of a finished run.
pub(crate) fn to_html(finished: &Finished<'_>) -> String {
    let results = finished.results;
    let mut page = String::with_capacity(64 * 1024);
    let failing = results.iter().filter(|r| r.failed()).count();
    let noun = if results
        .iter()
        .any(|r| r.profile.starts_with(INFERRED_PATH_PREFIX))
    {
        "tools"
    } else {
        "profiles"
    };
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>conform scorecard</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>conform scorecard</h1>\n<p class=\"sum\">{} {noun} by {} checks: {failing} with failing checks. \
         conform {}.</p>\n",
        results.len(),
        CATALOG.len(),
        env!("CARGO_PKG_VERSION"),
    );
    findings_grid(&mut page, results);
    page.push_str("<h2 class=\"grid-title\">Checks</h2>\n");
    page.push_str(
        "<p class=\"legend\"><span><i class=\"pass\"></i>pass</span>\
         <span><i class=\"fail\"></i>fail</span><span><i class=\"skip\"></i>skip</span>\
         <span><i class=\"unsel\"></i>not selected</span>\
         <span>L1 L2 L3: the reference levels (extension checks, in italics, count in failures, not in levels)</span></p>\n",
    );
    grid(&mut page, results);
    for (row, result) in results.iter().enumerate() {
        evidence(&mut page, row, result, finished.sources);
    }
    page.push_str("</body>\n</html>\n");
    page
}

/// Profiles by failure modes: each cell the score (0 to 3), coloured by it, the
/// worst finding in its title; the modes critical first, as the findings sort.
fn findings_grid(page: &mut String, results: &[ProfileReport]) {
    let all: Vec<Vec<Finding>> = results.iter().map(findings::of).collect();
    let modes: BTreeSet<(Severity, u16)> =
        all.iter().flatten().map(|f| (f.severity, f.mode)).collect();
    page.push_str(
        "<h2 class=\"grid-title\">Findings by failure mode</h2>\n\
         <p class=\"legend\"><span>scores by each mode's Evaluation table in the spec</span>\
         <span><i class=\"s0\"></i>0</span>\
         <span><i class=\"s1\"></i>1</span><span><i class=\"s2\"></i>2</span>\
         <span><i class=\"s3\"></i>3</span>\
         <span><i class=\"sn\"></i>not judged</span><span>3* partial: judged on some of the commands found</span>\
         <span>hover a cell for the row and the worst finding</span></p>\n\
         <div class=\"grid\"><table class=\"cards\">\n<thead><tr><th class=\"name\">tool</th>",
    );
    for (severity, mode) in &modes {
        let title = findings::mode(*mode).map_or("", |(title, _)| title);
        let _ = write!(
            page,
            "<th class=\"mode {}\" title=\"§{mode} {} ({})\"><div>§{mode}</div></th>",
            severity.as_str(),
            escape(title),
            severity.as_str()
        );
    }
    page.push_str("</tr></thead>\n<tbody>\n");
    for (row, (result, found)) in results.iter().zip(&all).enumerate() {
        let _ = write!(
            page,
            "<tr class=\"modes\"><th class=\"name\" title=\"{}\"><a href=\"#r{row}\">{}</a><small>{}</small></th>",
            text(&result.profile),
            text(&result.tool),
            text(&short_profile(&result.profile)),
        );
        for (_, mode) in &modes {
            let Some(finding) = found.iter().find(|f| f.mode == *mode) else {
                page.push_str("<td class=\"score\"><span class=\"sn\" title=\"no check selected\">·</span></td>");
                continue;
            };
            let partial = finding.coverage.filter(|c| c.partial());
            let (class, mark) = match (finding.score, partial) {
                (Some(score), None) => (format!("s{score}"), score.to_string()),
                (Some(score), Some(_)) => (format!("s{score} partial"), format!("{score}*")),
                (None, _) => ("sn".to_string(), "–".to_string()),
            };
            let worst = match (finding.worst(), finding.score) {
                (Some(shown), _) => format!(
                    ": `{}`, stdin {}: {}",
                    shown.command, shown.stdin, shown.did
                ),
                (None, None) if finding.not_shown.is_some() => ": not scored".to_string(),
                (None, None) => ": not judged, every check of its skipped".to_string(),
                (None, _) => String::new(),
            };
            // On one line: a title's newline would show as a control picture.
            let row = finding.row.as_deref().map(|row| format!(". Score {row}"));
            let not_shown = finding.not_shown.as_deref().map(|why| format!("; {why}"));
            let why = format!(
                "{}{}",
                row.unwrap_or_default(),
                not_shown.unwrap_or_default()
            );
            let _ = write!(
                page,
                "<td class=\"score\"><span class=\"{class}\" title=\"{} {} ({}){}{}{}\">{mark}</span></td>",
                finding.failure_mode,
                escape(finding.title),
                finding.severity.as_str(),
                partial.map(|c| c.words()).unwrap_or_default(),
                text(&worst),
                text(&why),
            );
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table></div>\n");
}

fn grid(page: &mut String, results: &[ProfileReport]) {
    page.push_str(
        "<div class=\"grid\"><table class=\"cards\">\n<thead><tr><th class=\"name\">tool</th>\
         <th>L1</th><th>L2</th><th>L3</th>",
    );
    for spec in CATALOG {
        let class = if spec.extension { "check ext" } else { "check" };
        let _ = write!(
            page,
            "<th class=\"{class}\" title=\"{}: {}\"><div>{}</div></th>",
            spec.name,
            escape(spec.title),
            spec.name
        );
    }
    page.push_str("</tr></thead>\n<tbody>\n");
    for (row, result) in results.iter().enumerate() {
        let _ = write!(
            page,
            "<tr><th class=\"name\" title=\"{}\"><a href=\"#r{row}\">{}</a><small>{}</small></th>",
            text(&result.profile),
            text(&result.tool),
            text(&short_profile(&result.profile)),
        );
        let levels = &result.levels;
        for level in [levels.level_1, levels.level_2, levels.level_3] {
            let (class, word) = level_word(level);
            let _ = write!(
                page,
                "<td class=\"lv\"><b class=\"{class}\">{word}</b></td>"
            );
        }
        for spec in CATALOG {
            let anchor = format!("r{row}-{}", spec.name);
            let (class, mark, title) = match result.checks.iter().find(|c| c.check.id == spec.name)
            {
                Some(report) => match report.check.status {
                    Status::Pass => ("pass", "✓", "pass"),
                    Status::Fail => ("fail", "✗", "fail"),
                    Status::Skip => ("skip", "–", "skip"),
                },
                None => ("unsel", "·", "not selected"),
            };
            let _ = write!(
                page,
                "<td class=\"cell\"><a class=\"{class}\" href=\"#{anchor}\" title=\"{}: {title}\">{mark}</a></td>",
                spec.name
            );
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table></div>\n");
}

/// A row's evidence: each failing and skipped check in full, then the passing and
/// unselected ones as a list, every one an anchor a cell links to.
fn evidence(page: &mut String, row: usize, result: &ProfileReport, sources: &Sources) {
    let s = &result.summary;
    let _ = writeln!(
        page,
        "<section class=\"row\" id=\"r{row}\"><h2>{}<small>{} · {} passed, {} failed, {} skipped · {} runs</small></h2>",
        text(&result.tool),
        text(&result.profile),
        s.passed,
        s.failed,
        s.skipped,
        result.runs.len()
    );
    let judged = |status: Status| {
        result
            .checks
            .iter()
            .filter(move |c| c.check.status == status)
    };
    for report in judged(Status::Fail).chain(judged(Status::Skip)) {
        check_article(page, row, result, report, sources);
    }
    page.push_str("<ul class=\"passed\">\n");
    for spec in CATALOG {
        let line = match result.checks.iter().find(|c| c.check.id == spec.name) {
            Some(report) if report.check.status == Status::Pass => format!(
                "pass, {} run{} checked",
                report.check.runs_checked,
                if report.check.runs_checked == 1 {
                    ""
                } else {
                    "s"
                }
            ),
            Some(_) => continue,
            None => "not selected in this run".to_string(),
        };
        let _ = writeln!(
            page,
            "<li id=\"r{row}-{name}\"><b>{name}</b> {line}</li>",
            name = spec.name
        );
    }
    page.push_str("</ul>\n</section>\n");
}

fn check_article(
    page: &mut String,
    row: usize,
    result: &ProfileReport,
    report: &CheckReport,
    sources: &Sources,
) {
    let check = &report.check;
    let class = if check.status == Status::Fail {
        "fail"
    } else {
        "skip"
    };
    let _ = writeln!(
        page,
        "<article class=\"{class}\" id=\"r{row}-{}\"><h3>{} {}: {}<span class=\"req\">level {} · {}</span></h3>",
        check.id,
        class.to_uppercase(),
        check.id,
        escape(check.title),
        check.level,
        check.requirements.join(" "),
    );
    if let Some(reason) = &check.skipped_reason {
        let _ = writeln!(
            page,
            "<p class=\"detail\">{}</p>",
            escape(&show::detail(reason))
        );
    }
    for group in show::groups(&check.failures) {
        failure_group(page, &result.profile, &group, sources);
    }
    page.push_str("</article>\n");
}

/// A group of runs that failed for the same causes: the causes, then each run with
/// where it is in the profile, its shell line and how it ended.
fn failure_group(page: &mut String, profile: &str, group: &Group<'_>, sources: &Sources) {
    for detail in &group.details {
        let _ = writeln!(
            page,
            "<p class=\"detail\">{}</p>",
            escape(&show::detail(detail))
        );
    }
    for (n, run) in group.runs.iter().enumerate() {
        let _ = write!(
            page,
            "<div class=\"run\"><b>{}</b><span class=\"where\">{}</span>\n<pre>$ {}</pre>\n<span class=\"ended\">{} · stdout {} bytes, stderr {} bytes{}</span>\n",
            text(&run.probe),
            escape(&sources.describe(profile, &run.pointer)),
            escape(&show::shell_line(run)),
            escape(&show::ended(run)),
            run.stdout_bytes,
            run.stderr_bytes,
            if run.stdin == "open" { " · stdin an open pipe" } else { "" },
        );
        // The first run's output; the others showed the same causes.
        if n == 0 {
            for (name, bytes, excerpt) in [
                ("stdout", run.stdout_bytes, &run.stdout_excerpt),
                ("stderr", run.stderr_bytes, &run.stderr_excerpt),
            ] {
                if bytes > 0 {
                    let lines = show::excerpt(excerpt, 6, 160).join("\n");
                    let _ = writeln!(
                        page,
                        "<pre title=\"{name}\">{name} │ {}</pre>",
                        escape(&lines)
                    );
                }
            }
        }
        page.push_str("</div>\n");
    }
}

fn level_word(level: LevelStatus) -> (&'static str, &'static str) {
    match level {
        LevelStatus::Pass => ("pass", "pass"),
        LevelStatus::Fail => ("fail", "fail"),
        LevelStatus::Incomplete => ("incomplete", "inc."),
    }
}

/// A profile path as a row label: its file name, or the tool line of an inferred one.
fn short_profile(profile: &str) -> String {
    if profile.starts_with(INFERRED_PATH_PREFIX) {
        return String::new();
    }
    std::path::Path::new(profile)
        .file_name()
        .map_or_else(|| profile.to_string(), |n| n.to_string_lossy().into_owned())
}

/// What a tool or a profile wrote, for the page: control bytes visible, then escaped.
fn text(raw: &str) -> String {
    escape(&show::visible(raw))
}

/// `raw` escaped for HTML text and quoted attribute values.
pub(crate) fn escape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}
