//! `no_self_update`: a tool an agent runs in CI never updates or installs itself,
//! never asks a registry for newer versions, and prints no update notice; what it
//! sends on its own (telemetry) never holds up its exit (REQ-F-029, REQ-F-050,
//! REQ-F-077). Each read probe has a run of its own for this: isolated, `CI=true`,
//! every proxy at a recording black hole; the installer sentinels (`npm`, `pip`,
//! `cargo`, ...) are first on `PATH` in every isolated run, and a call in any of
//! them fails the check.

use serde_json::Value;

use super::evidence::{quoted, sentinel_call};
use super::support::proxy::{asks_for_versions, hosts};
use super::support::tool_version::printed_version;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::exec::{Network, INSTALLERS};
use crate::plan::{RunKind, RunRole};

pub(super) const NO_SELF_UPDATE: CheckSpec = CheckSpec {
    id: CheckId::NoSelfUpdate,
    name: "no_self_update",
    title: "With CI set, no self-update, no update check and no update notice; telemetry never delays the exit",
    level: 2,
    failure_modes: &[32, 41],
    requirements: &["REQ-F-029", "REQ-F-050", "REQ-F-077"],
    extension: true,
    reads: &[
        RunKind::SelfUpdate,
        // Every isolated run has the installer sentinels on PATH.
        RunKind::Isolated,
        RunKind::KitIsolated,
        RunKind::BareOpen,
        RunKind::Headless,
        RunKind::Hallucinated,
        RunKind::Canary,
        RunKind::DebugCanary,
        RunKind::Metachar,
        // A hang at the black hole that network_timeout reports is not judged again:
        // its black-hole run, or under `conform check` its stdin-closed run, which
        // is made there.
        RunKind::BlackHole,
        RunKind::Closed,
    ],
    judge: Judge::Alone(judge),
};

/// Characters of a notice line shown in a detail.
const LINE_SHOWN: usize = 160;

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::NoSelfUpdate);
    let own = printed_version(ctx).map(|(version, _)| version);
    for run in ctx.declared_runs() {
        match run.planned.role.kind {
            RunKind::BlackHole => {}
            RunKind::SelfUpdate => judge_ci_run(ctx, &mut outcome, &run, own.as_deref()),
            _ => {
                // Another check's isolated run: only its installer calls count here,
                // and its own check reports how it ended.
                if run.record.sandbox.is_some() {
                    outcome.runs_checked += 1;
                    installers(&mut outcome, &run);
                }
            }
        }
    }
    if outcome.runs_checked == 0 && outcome.failures.is_empty() {
        outcome.skip(
            "no isolated run left a sandbox report and no read probe's CI run was made, so \
             there was no sentinel log, request or output to read",
        );
    }
    outcome
}

/// A read probe's own run: isolated, `CI=true`, proxies at the black hole.
fn judge_ci_run(ctx: &Context<'_>, outcome: &mut Outcome, run: &Judged<'_>, own: Option<&str>) {
    if run.record.error.is_some() {
        outcome.completed(run); // fails it with the reason
        return;
    }
    outcome.runs_checked += 1;
    installers(outcome, run);
    let lookups: Vec<_> = run
        .record
        .proxy_requests
        .iter()
        .filter(|request| asks_for_versions(request))
        .cloned()
        .collect();
    if !lookups.is_empty() {
        outcome.fail_observed(
            run,
            format!(
                "with CI=true it asked {} for the versions there are: a tool run in CI \
                 never checks for updates (REQ-F-029, REQ-F-050)",
                hosts(&lookups)
            ),
        );
    }
    if run.record.timed_out {
        if let Some(detail) = held_up(ctx, run) {
            outcome.fail(run, detail);
        }
        return;
    }
    for (stream, bytes) in [
        ("stdout", &run.record.stdout.bytes),
        ("stderr", &run.record.stderr.bytes),
    ] {
        let text = String::from_utf8_lossy(bytes);
        for (number, line) in text.lines().enumerate() {
            // A JSON document's update field (meta.update_available) is
            // json_envelope's to judge.
            if stream == "stdout" && serde_json::from_str::<Value>(line).is_ok() {
                continue;
            }
            if let Some(version) = notice_version(line, own) {
                let theirs = own.map_or_else(
                    || "its --version gave none to compare with".to_string(),
                    |own| format!("not its own {own}"),
                );
                outcome.fail_observed(
                    run,
                    format!(
                        "with CI=true, {stream} line {} is an update notice naming version \
                         {version} ({theirs}): {}; a tool run in CI prints no update notice \
                         (REQ-F-050)",
                        number + 1,
                        quoted(&shown_line(line))
                    ),
                );
                return; // one notice says it
            }
        }
    }
}

/// Why a CI run that hit the limit fails here, if it does: not when it waited on
/// the black hole and the same probe's black-hole run hung too, which is the
/// network wait `network_timeout` reports.
fn held_up(ctx: &Context<'_>, run: &Judged<'_>) -> Option<String> {
    let limit = run.record.limit.as_secs_f64();
    let requests = &run.record.proxy_requests;
    if requests.is_empty() {
        return Some(format!(
            "with CI=true it did not exit within the {limit}s limit; the kit killed its \
             process group"
        ));
    }
    let network_hang = run
        .planned
        .role
        .probe_index()
        .and_then(|probe| {
            ctx.run(RunRole::probe(RunKind::BlackHole, probe))
                .or_else(|| {
                    ctx.run(RunRole::probe(RunKind::Closed, probe))
                        .filter(|closed| closed.planned.spec.network == Network::BlackHole)
                })
        })
        .is_some_and(|black_hole| {
            black_hole.record.timed_out || black_hole.record.held_at_hole.is_some()
        });
    (!network_hang).then(|| {
        format!(
            "with CI=true it waited on {} until conform's limit of {limit}s: an update \
             check or telemetry may go out, but never delays the exit (REQ-F-077)",
            hosts(requests)
        )
    })
}

/// Fails the run for every installer sentinel it started.
fn installers(outcome: &mut Outcome, run: &Judged<'_>) {
    let Some(report) = &run.record.sandbox else {
        return;
    };
    let calls: Vec<String> = report
        .sentinel_calls
        .iter()
        .filter(|call| INSTALLERS.contains(&call.name.as_str()))
        .map(sentinel_call)
        .collect();
    if !calls.is_empty() {
        outcome.fail_observed(
            run,
            format!(
                "started a package manager: the kit's sentinel was called as {}; a tool \
                 an agent runs never installs or updates anything on its own (REQ-F-029)",
                calls.join(", then ")
            ),
        );
    }
}

/// The version an update notice names, when `line` is one: the word update or
/// upgrade (in any form) with a version number other than the tool's own.
fn notice_version(line: &str, own: Option<&str>) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    if !(lower.contains("update") || lower.contains("upgrad")) {
        return None;
    }
    versions_in(line).find(|version| Some(version.as_str()) != own)
}

/// The version numbers in a line: digits and dots with at least one dot (`1.4`,
/// `v2.0.1`, `3.0.0-rc.1`), a leading `v` dropped.
fn versions_in(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')))
        .filter_map(|token| {
            let token = token.strip_prefix(['v', 'V']).unwrap_or(token);
            let token = token.trim_end_matches('.');
            let core = token.split(['-', '+']).next().unwrap_or_default();
            let numbered = core.contains('.')
                && core
                    .split('.')
                    .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
            numbered.then(|| token.to_string())
        })
}

fn shown_line(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= LINE_SHOWN {
        return line.to_string();
    }
    let cut: String = line.chars().take(LINE_SHOWN).collect();
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::checks::skips::{assert_passed, judged_with, write};
    use crate::checks::Status;
    use crate::exec::{ProxyRequest, RunRecord, SandboxReport, SentinelCall};
    use crate::plan::{KitRun, PlannedRun, Subject};

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "probes": [
            { "name": "list", "argv": ["list"], "kind": "read" },
            { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" }
        ]
    }"#;

    /// Every isolated run with an empty sandbox report, `--version` printing
    /// `t 1.4.0`, and the CI run of `list` as `ci` makes it.
    fn judged(ci: impl Fn(&mut RunRecord)) -> Outcome {
        judged_with(PROFILE, CheckId::NoSelfUpdate, |run, record| {
            if run.spec.sandbox.is_some() {
                record.sandbox = Some(SandboxReport::default());
            }
            if is_version(run) {
                write(record, "t 1.4.0\n");
            }
            if run.role.kind == RunKind::SelfUpdate {
                ci(record);
            }
        })
    }

    fn is_version(run: &PlannedRun) -> bool {
        run.role.subject == Subject::Kit(KitRun::Version)
    }

    fn stderr(record: &mut RunRecord, text: &str) {
        record.stderr.bytes = text.as_bytes().to_vec();
    }

    fn request(host: &str, path: Option<&str>) -> ProxyRequest {
        ProxyRequest {
            host: Some(host.into()),
            port: Some(443),
            path: path.map(String::from),
            unsent: false,
            at: Duration::from_millis(5),
        }
    }

    /// The runs judged: the CI run, the invalid probe's and read probe's isolated
    /// runs, the three kit runs, the bare open run, the headless run, and the
    /// canary, debug-canary and metacharacter runs (14), all isolated.
    const RUNS: usize = 22;

    #[test]
    fn the_guards_pass_an_update_check_off_in_ci_a_notice_in_json_and_quick_telemetry() {
        let outcome = judged(|record| {
            stderr(
                record,
                "update checks are off because CI is set\nt 1.4.0 is up to date; updated 3 \
                 records on 2024-05-01\n",
            );
            write(
                record,
                r#"{"ok":true,"data":[],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":1,"update_available":"9.9.9"}}"#,
            );
            // Telemetry went out and the tool did not wait for it.
            record.proxy_requests = vec![request("telemetry.t.invalid", None)];
            record.duration = Duration::from_millis(40);
        });
        assert_passed(&outcome, RUNS);
    }

    #[test]
    fn an_update_notice_naming_another_version_fails_with_its_line() {
        let outcome = judged(|record| {
            stderr(
                record,
                "listing...\na new version 9.9.9 is available, run `npm install -g t@latest` to upgrade\n",
            );
        });
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        let detail = &outcome.failures[0].detail;
        for words in [
            "stderr line 2 is an update notice naming version 9.9.9 (not its own 1.4.0)",
            "a new version 9.9.9 is available",
        ] {
            assert!(detail.contains(words), "{words:?} not in {detail}");
        }
    }

    #[test]
    fn an_installer_in_any_isolated_run_and_a_registry_lookup_fail() {
        let outcome = judged_with(PROFILE, CheckId::NoSelfUpdate, |run, record| {
            if run.spec.sandbox.is_some() {
                let mut report = SandboxReport::default();
                if run.role.kind == RunKind::Isolated && run.label.starts_with("bad") {
                    report.sentinel_calls = vec![SentinelCall {
                        name: "npm".into(),
                        argv: vec!["install".into(), "-g".into(), "t@latest".into()],
                    }];
                }
                record.sandbox = Some(report);
            }
            if run.role.kind == RunKind::SelfUpdate {
                record.proxy_requests = vec![
                    request("telemetry.t.invalid", None),
                    request("registry.npmjs.org", None),
                    request("api.github.com", Some("/repos/acme/t/releases/latest")),
                ];
            }
        });
        let details: Vec<&str> = outcome.failures.iter().map(|f| f.detail.as_str()).collect();
        assert_eq!(details.len(), 2, "{details:#?}");
        let said = |words: &str| details.iter().any(|detail| detail.contains(words));
        assert!(
            said(r#"the kit's sentinel was called as npm "install" "-g" "t@latest""#),
            "{details:#?}"
        );
        assert!(
            said(
                "asked registry.npmjs.org:443, api.github.com:443/repos/acme/t/releases/latest \
                 for the versions there are"
            ),
            "{details:#?}"
        );
    }

    #[test]
    fn a_wait_on_the_black_hole_fails_here_only_when_the_black_hole_run_did_not_hang_too() {
        let hung = |black_hole_hung: bool| {
            judged_with(PROFILE, CheckId::NoSelfUpdate, move |run, record| {
                if run.spec.sandbox.is_some() {
                    record.sandbox = Some(SandboxReport::default());
                }
                let waits = match run.role.kind {
                    RunKind::SelfUpdate => true,
                    RunKind::BlackHole => black_hole_hung,
                    _ => false,
                };
                if waits {
                    record.proxy_requests = vec![request("telemetry.t.invalid", None)];
                    record.timed_out = true;
                }
            })
        };
        let outcome = hung(false);
        assert_eq!(outcome.failures.len(), 1, "{outcome:#?}");
        assert!(
            outcome.failures[0].detail.contains(
                "waited on telemetry.t.invalid:443 until conform's limit of 5s: an update \
                 check or telemetry may go out, but never delays the exit"
            ),
            "{outcome:#?}"
        );
        // The same wait without CI: network_timeout's to report, not judged twice.
        assert_passed(&hung(true), RUNS);
    }

    #[test]
    fn versions_are_digits_and_dots() {
        let found: Vec<String> =
            versions_in("upgrade v2.0.1 to 3.0.0-rc.1, not 3 or 2024-05-01 or x.y.").collect();
        assert_eq!(found, ["2.0.1", "3.0.0-rc.1"]);
        assert_eq!(notice_version("Updated to 1.4.0", Some("1.4.0")), None);
        assert_eq!(
            notice_version("Update available: 1.4.0 -> 1.5.0", Some("1.4.0")),
            Some("1.5.0".into())
        );
        assert_eq!(notice_version("version 9.9.9 is out", None), None);
    }
}
