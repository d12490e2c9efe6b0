//! `conform run --markdown PATH`: a summary for `$GITHUB_STEP_SUMMARY` and pull-request
//! comments (GitHub-flavored Markdown): the findings by failure mode first (worst
//! first, what an agent risks), a table of levels and counts per profile, then
//! each failing check in a collapsible `<details>` section with its evidence.

use super::junit::profile_name;
use super::show;
use super::style::Style;
use super::Sources;
use crate::checks::Status;
use crate::findings;
use crate::result::{LevelStatus, ProfileReport};

pub(crate) fn to_markdown(results: &[ProfileReport], sources: &Sources) -> String {
    let failing = results.iter().filter(|r| r.failed()).count();
    let failed: usize = results.iter().map(|r| r.summary.failed).sum();
    // The first line says whether the run failed: the level columns below can all
    // pass while an extension check fails.
    let mut out = match failed {
        0 => "## ✅ conform: no check failed\n\n".to_string(),
        n => format!("## ❌ conform: {} failed\n\n", plural(n, "check")),
    };
    out.push_str(&match failing {
        0 => format!(
            "CLI Agent Spec conformance, {} checked.\n\n",
            plural(results.len(), "profile")
        ),
        n => format!(
            "CLI Agent Spec conformance, {} checked: **{n} with failing checks**.\n\n",
            plural(results.len(), "profile")
        ),
    });
    for r in results {
        findings_table(&mut out, r, results.len() > 1);
    }
    if failed_extension(results) {
        out.push_str(
            "Levels count only the reference kit's 14 checks, as the reference kit does: \
             a failing extension check fails the run without lowering a level.\n\n",
        );
    }
    out.push_str("| profile | tool | level 1 | level 2 | level 3 | passed | failed | skipped |\n");
    out.push_str("|---|---|---|---|---|---:|---:|---:|\n");
    for r in results {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            text(&r.profile),
            text(&r.tool),
            level(r.levels.level_1),
            level(r.levels.level_2),
            level(r.levels.level_3),
            r.summary.passed,
            r.summary.failed,
            r.summary.skipped
        ));
    }
    let plain = Style { color: false };
    for r in results.iter().filter(|r| r.failed()) {
        out.push_str(&format!(
            "\n### {} ({})\n\n",
            text(&profile_name(&r.profile)),
            text(&r.profile)
        ));
        for report in r.checks.iter().filter(|c| c.check.status == Status::Fail) {
            let check = &report.check;
            let groups = show::groups(&check.failures);
            let runs: usize = groups.iter().map(|g| g.runs.len()).sum();
            out.push_str(&format!(
                "<details><summary>❌ <code>{}</code>: {} ({}; {})</summary>\n\n",
                html(check.id),
                html(check.title),
                plural(runs, "failing run"),
                html(&check.requirements.join(", "))
            ));
            for group in groups {
                for detail in &group.details {
                    out.push_str(&format!("{}\n\n", text(&show::detail(detail))));
                }
                let lines = show::run_lines(&r.profile, &group, sources, plain);
                out.push_str(&code_block(&lines.join("\n")));
            }
            out.push_str("</details>\n");
        }
    }
    out
}

/// The findings of one profile: a row per failure mode a selected check maps to,
/// worst first; the command that shows it and what it did.
fn findings_table(out: &mut String, r: &ProfileReport, named: bool) {
    let findings = findings::of(r);
    if findings.is_empty() {
        return;
    }
    if named {
        out.push_str(&format!(
            "**Findings of {}** ({})\n\n",
            text(&r.tool),
            text(&r.profile)
        ));
    }
    out.push_str("| failure mode | severity | score | shown by |\n");
    out.push_str("|---|---|---:|---|\n");
    for f in &findings {
        let score = f.score.map_or("–".to_string(), |_| f.score_words());
        let shown = match (f.worst(), f.score) {
            (Some(s), _) => format!(
                "<code>{}</code>, stdin {}: {}",
                html(&s.command),
                s.stdin,
                text(&s.did)
            ),
            (None, None) => f
                .not_shown
                .as_deref()
                .map_or("not judged".to_string(), text),
            (None, _) => f.not_shown.as_deref().map(text).unwrap_or_default(),
        };
        out.push_str(&format!(
            "| {} {} | {} | {score} | {shown} |\n",
            f.failure_mode,
            text(f.title),
            f.severity.as_str(),
        ));
    }
    out.push('\n');
}

/// Whether a failing check is one of conform's extensions, which the levels leave out.
fn failed_extension(results: &[ProfileReport]) -> bool {
    results
        .iter()
        .flat_map(|r| &r.checks)
        .any(|c| c.extension && c.check.status == Status::Fail)
}

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

fn level(status: LevelStatus) -> &'static str {
    match status {
        LevelStatus::Pass => "✅ pass",
        LevelStatus::Fail => "❌ fail",
        LevelStatus::Incomplete => "⚠️ incomplete",
    }
}

/// Text for Markdown prose and table cells: control bytes visible, and the
/// characters GitHub-flavored Markdown or HTML would read as inline syntax
/// backslash-escaped (`\|` keeps a table cell whole, `\<` keeps a tool's output from
/// opening an HTML tag, `` \` `` from opening a code span), plus a `#` that would
/// start a heading.
pub(crate) fn text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for (i, c) in show::visible(raw).chars().enumerate() {
        if "\\`*_[]<>|~&".contains(c) || (i == 0 && c == '#') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text inside an HTML element (`<summary>`), where Markdown is not read.
fn html(raw: &str) -> String {
    show::visible(raw)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A fenced code block whose fence is longer than any run of backticks inside, so
/// nothing in the evidence can close it early.
fn code_block(body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{body}\n{fence}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_syntax_in_evidence_is_escaped() {
        assert_eq!(text("a|b <x> `c`"), r"a\|b \<x\> \`c\`");
        assert_eq!(text("\u{1b}[1m"), r"␛\[1m");
        assert_eq!(text("# not a heading (x)"), r"\# not a heading (x)");
        assert_eq!(html("<a & b>"), "&lt;a &amp; b&gt;");
    }

    #[test]
    fn a_code_block_fence_outlasts_backticks_inside() {
        assert_eq!(code_block("x"), "```text\nx\n```\n\n");
        assert_eq!(code_block("a ```` b"), "`````text\na ```` b\n`````\n\n");
    }
}
