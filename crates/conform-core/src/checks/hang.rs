//! `no_hang_stdin_closed` and `no_hang_stdin_open`: the probes' own runs exit within
//! the limit, with stdin at EOF and with a pipe that never delivers a byte.
//!
//! A run at its limit fails them whatever it waited on, as in the reference kit,
//! and the failure says what that was. Where conform put the run's network at its
//! black hole (`conform check`), a run waiting on a connection there is
//! `network_timeout`'s, one listening on a port is a server, and one reading an
//! open stdin that its help says it reads was asked for it: none is judged here.

use super::support::output::streams_start;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::RunKind;

pub(super) const NO_HANG_STDIN_CLOSED: CheckSpec = CheckSpec {
    id: CheckId::NoHangStdinClosed,
    name: "no_hang_stdin_closed",
    title: "Completes with stdin closed",
    level: 1,
    failure_modes: &[10, 11],
    requirements: &["REQ-F-009", "REQ-F-010"],
    extension: false,
    reads: &[RunKind::Closed],
    judge: Judge::Alone(judge_closed),
};

pub(super) const NO_HANG_STDIN_OPEN: CheckSpec = CheckSpec {
    id: CheckId::NoHangStdinOpen,
    name: "no_hang_stdin_open",
    title: "Completes with an open, silent stdin pipe",
    level: 1,
    failure_modes: &[50, 10],
    requirements: &["REQ-F-009"],
    extension: false,
    reads: &[RunKind::Open],
    judge: Judge::Alone(judge_open),
};

pub(super) fn judge_closed(ctx: &Context<'_>) -> Outcome {
    judge(ctx, CheckId::NoHangStdinClosed)
}

pub(super) fn judge_open(ctx: &Context<'_>) -> Outcome {
    judge(ctx, CheckId::NoHangStdinOpen)
}

fn judge(ctx: &Context<'_>, id: CheckId) -> Outcome {
    let mut outcome = Outcome::new(id);
    for run in ctx.declared_runs() {
        // A wait that is another check's (`support::waits`) is neither counted nor
        // failed here; a check left with only such runs skips, naming them.
        let failed_before = outcome.failures.len();
        if !outcome.completed(&run)
            && id == CheckId::NoHangStdinOpen
            && run.record.timed_out
            && outcome.failures.len() > failed_before
        {
            if let Some(last) = outcome.failures.last_mut() {
                last.detail.push_str(
                    " (stdin was an open pipe that never delivered a byte: the tool waited on it; \
                     never read stdin or prompt unless told to, REQ-F-009); ",
                );
                last.detail.push_str(&streams_start(&run));
            }
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::checks::skips::{assert_passed, judged_at_black_hole, judged_with};
    use crate::checks::Status;
    use crate::exec::{Exit, ProxyRequest, RunRecord, StdinMode};
    use crate::exec::{Network, WaitingOn};
    use crate::plan::PlannedRun;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "probes": [
            { "name": "list", "argv": ["list"], "kind": "read" },
            { "name": "serve", "argv": ["serve"], "kind": "read" },
            { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" }
        ]
    }"#;

    fn hung(record: &mut RunRecord, waiting: WaitingOn) {
        record.timed_out = true;
        record.exit = Exit::Unknown;
        record.waiting_on = Some(waiting);
    }

    fn at_hole(record: &mut RunRecord) {
        hung(record, WaitingOn::BlackHole);
        record.proxy_requests = vec![ProxyRequest {
            host: Some("api.example.com".into()),
            port: Some(443),
            path: None,
            unsent: false,
            at: Duration::from_millis(5),
        }];
    }

    /// `list` waits at the black hole and `serve` listens on 8001, in their
    /// stdin-closed runs (`label` then is the probe's name).
    fn network_and_server(run: &PlannedRun, record: &mut RunRecord) {
        match run.label.as_str() {
            "list" => at_hole(record),
            "serve" => hung(record, WaitingOn::Listening { port: 8001 }),
            _ => {}
        }
    }

    #[test]
    fn under_a_profiles_own_network_every_run_at_its_limit_is_a_hang_and_says_what_it_waited_on() {
        let outcome = judged_with(PROFILE, CheckId::NoHangStdinClosed, network_and_server);
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        assert_eq!(outcome.runs_checked, 3);
        let details: Vec<&str> = outcome.failures.iter().map(|f| f.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "no exit within the 5s limit; the kit killed its process group; still running: \
                 waiting on a connection to api.example.com:443 at the black hole",
                "no exit within the 5s limit; the kit killed its process group; still running: \
                 listening on port 8001 (a server)",
            ]
        );
    }

    #[test]
    fn at_conforms_black_hole_a_network_wait_or_a_server_is_no_hang_and_all_such_skip() {
        let outcome = judged_at_black_hole(PROFILE, CheckId::NoHangStdinClosed, |run, record| {
            network_and_server(run, record);
            if run.label == "bad" {
                hung(record, WaitingOn::Listening { port: 9000 });
            }
        });
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert_eq!(outcome.runs_checked, 0);
        let reason = outcome.skipped_reason.unwrap_or_default();
        for words in [
            "\"list\" (stdin closed) was waiting on a connection to api.example.com:443 at \
             the black hole: network_timeout's finding, not a hang",
            "\"serve\" (stdin closed) was listening on port 8001 (a server): a server waits \
             for clients",
        ] {
            assert!(reason.contains(words), "{words:?} not in {reason}");
        }

        // Beside a run that exits, the others are not counted: a pass on one run.
        let outcome = judged_at_black_hole(PROFILE, CheckId::NoHangStdinClosed, network_and_server);
        assert_passed(&outcome, 1);
    }

    #[test]
    fn at_the_black_hole_a_wait_on_stdin_a_child_or_nothing_is_still_a_hang() {
        for waiting in [
            WaitingOn::Stdin {
                terminal: false,
                after: Some("Name:".into()),
            },
            WaitingOn::Child {
                name: Some("less".into()),
            },
            WaitingOn::Nothing,
            // Connected, but the listener never saw it: nothing for network_timeout.
            WaitingOn::BlackHole,
        ] {
            let outcome = judged_at_black_hole(PROFILE, CheckId::NoHangStdinOpen, |run, record| {
                if run.label.starts_with("list") {
                    hung(record, waiting.clone());
                }
            });
            assert_eq!(outcome.status(), Status::Fail, "{waiting:?}");
            assert_eq!(outcome.failures.len(), 1);
            let detail = &outcome.failures[0].detail;
            assert!(
                detail.starts_with("no exit within the 5s limit; the kit killed its process group"),
                "{detail}"
            );
            assert!(detail.contains("(stdin was an open pipe"), "{detail}");
            assert!(
                detail.ends_with(&format!("; still running: {}", waiting.describe(&[]))),
                "{detail}"
            );
        }
    }

    #[test]
    fn a_run_held_at_the_black_hole_that_the_hang_checks_leave_fails_network_timeout() {
        // `bad` is no read probe: network_timeout counts its run only because the
        // hang checks left that wait to it.
        let outcome = judged_at_black_hole(PROFILE, CheckId::NetworkTimeout, |run, record| {
            if matches!(run.label.as_str(), "list" | "bad") {
                at_hole(record);
            }
        });
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        let failed: Vec<&str> = outcome
            .failures
            .iter()
            .map(|f| f.run.probe.as_str())
            .collect();
        assert_eq!(failed, ["list", "bad"]);
        assert!(
            outcome.failures[0]
                .detail
                .contains("it waited on api.example.com:443 until conform's limit of 5s"),
            "{outcome:#?}"
        );
        assert_eq!(outcome.failures[0].run.stdin, StdinMode::Closed.as_str());
    }

    #[test]
    fn a_wait_on_an_open_stdin_the_help_says_it_reads_is_asked_for() {
        let stdin_wait = WaitingOn::Stdin {
            terminal: false,
            after: None,
        };
        let judged = |declared: bool| {
            crate::checks::skips::judged_planned(
                PROFILE,
                CheckId::NoHangStdinOpen,
                |plan| {
                    for run in &mut plan.runs {
                        run.spec.network = Network::BlackHole;
                        if declared && run.spec.stdin == StdinMode::Open {
                            run.stdin_by_design = Some("--file <PATH> [default: -]".into());
                        }
                    }
                },
                |run, record| {
                    if run.label.starts_with("list") {
                        hung(record, stdin_wait.clone());
                    }
                    true
                },
            )
        };
        let outcome = judged(true);
        assert_passed(&outcome, 2);
        let outcome = judged(false);
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
    }
}
