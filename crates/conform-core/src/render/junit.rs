//! `conform run --junit PATH`: JUnit XML, the format GitLab, Jenkins and GitHub test
//! reporters read. One `<testsuite>` per profile, one `<testcase>` per check, named
//! `profile :: check` where `profile` is the profile file's stem (`democli` for
//! `conformance/profiles/democli.json`): tool names repeat across profiles (every
//! broken CLI here is `democli`), file names rarely do, and the stem is what a reader
//! finds in the repository.

use std::path::Path;
use std::time::Duration;

use quick_junit::{
    NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite,
};

use super::show;
use super::style::Style;
use super::Sources;
use crate::checks::Status;
use crate::findings;
use crate::result::{CheckReport, LevelStatus, ProfileReport};

/// The name of a profile in reports: its file stem.
pub(crate) fn profile_name(profile: &str) -> String {
    Path::new(profile)
        .file_stem()
        .map_or_else(|| profile.to_string(), |s| s.to_string_lossy().into_owned())
}

/// The JUnit document. Timings: each suite has its profile's wall time; checks share
/// runs, so a check has no time of its own and its testcase carries none.
pub(crate) fn to_xml(results: &[ProfileReport], sources: &Sources) -> Result<String, String> {
    let mut report = Report::new("conform");
    let total: u64 = results.iter().map(|r| r.duration_ms).sum();
    report.set_time(Duration::from_millis(total));
    for result in results {
        let name = profile_name(&result.profile);
        let mut suite = TestSuite::new(name.as_str());
        suite.set_time(Duration::from_millis(result.duration_ms));
        suite.add_properties([
            Property::new("profile", result.profile.as_str()),
            Property::new("tool", result.tool.as_str()),
            Property::new("level_1", level(result.levels.level_1)),
            Property::new("level_2", level(result.levels.level_2)),
            Property::new("level_3", level(result.levels.level_3)),
        ]);
        // One property per failure mode, worst first: `finding §10` =
        // `0/3 critical: login (stdin closed): prompt loop, ...`.
        suite.add_properties(findings::of(result).iter().map(|f| {
            let score = f.score.map_or("-".to_string(), |_| f.score_words());
            let shown = f.worst().map_or(String::new(), |s| {
                format!(": {} (stdin {}): {}", s.command, s.stdin, s.did)
            });
            Property::new(
                format!("finding {}", f.failure_mode),
                format!("{score} {}{shown}", f.severity.as_str()),
            )
        }));
        for check in &result.checks {
            suite.add_test_case(test_case(&name, result, check, sources));
        }
        report.add_test_suite(suite);
    }
    report
        .to_string()
        .map_err(|e| format!("cannot serialize the JUnit report: {e}"))
}

fn level(status: LevelStatus) -> &'static str {
    match status {
        LevelStatus::Pass => "pass",
        LevelStatus::Fail => "fail",
        LevelStatus::Incomplete => "incomplete",
    }
}

fn test_case(
    name: &str,
    result: &ProfileReport,
    report: &CheckReport,
    sources: &Sources,
) -> TestCase {
    let check = &report.check;
    let status = match check.status {
        Status::Pass => TestCaseStatus::success(),
        Status::Skip => {
            let mut status = TestCaseStatus::skipped();
            if let Some(reason) = &check.skipped_reason {
                status.set_message(show::detail(reason));
            }
            status
        }
        Status::Fail => {
            let groups = show::groups(&check.failures);
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let causes = show::distinct_causes(&groups);
            let first = causes.first().map(|d| show::detail(d));
            let message = match (first, causes.len()) {
                (Some(first), 1) => first,
                (Some(first), n) => format!("{first} (and {} more causes)", n - 1),
                (None, _) => check.title.to_string(),
            };
            status.set_message(message);
            status.set_type(check.id);
            let plain = Style { color: false };
            let mut text = vec![format!(
                "{}: {} ({})",
                check.id,
                check.title,
                check.requirements.join(", ")
            )];
            for group in &groups {
                text.push(String::new());
                text.extend(show::group_lines(&result.profile, group, sources, plain));
            }
            status.set_description(text.join("\n"));
            status
        }
    };
    let mut status = status;
    if let Some(first) = report.first_attempt.as_deref() {
        // As Surefire and nextest write a retried test: a pass after a failed
        // attempt is flaky (`flakyFailure`), a failure after one has a
        // `rerunFailure`.
        if first.status == Status::Fail {
            let mut rerun = TestRerun::new(NonSuccessKind::Failure);
            let groups = show::groups(&first.failures);
            let first_detail = groups.first().and_then(|g| g.details.first().copied());
            rerun.set_message(first_detail.map_or_else(
                || first.title.to_string(),
                |detail| {
                    format!(
                        "first attempt, made while the machine kept the tool from the CPU: {}",
                        show::detail(detail)
                    )
                },
            ));
            rerun.set_type(check.id);
            status.add_rerun(rerun);
        }
    }
    let mut case = TestCase::new(format!("{name} :: {}", check.id), status);
    case.set_classname(name);
    case.add_property(Property::new("requirements", check.requirements.join(" ")));
    case
}
