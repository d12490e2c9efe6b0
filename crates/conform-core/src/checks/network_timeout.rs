//! `network_timeout`: a call that goes to the network ends on its own when the
//! network never answers, with an error an agent can act on (REQ-F-011, REQ-F-012,
//! REQ-C-012). Every read probe runs with every proxy variable at a black hole that
//! records what each connection asks for and never answers (in a network namespace
//! where every connection ends there, where the machine allows one: `exec/netns.rs`);
//! no manifest is needed.
//! A run that never reached the listener shows nothing about the network.

use std::time::Duration;

use serde_json::Value;

use super::support::output::printed;
use super::support::proxy::{asks_for_versions, hosts};
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::exec::{Network, ProxyRequest, WaitingOn};
use crate::plan::{RunKind, RunRole};
use crate::profile::ProbeKind;

pub(super) const NETWORK_TIMEOUT: CheckSpec = CheckSpec {
    id: CheckId::NetworkTimeout,
    name: "network_timeout",
    title: "A network call that gets no answer ends on its own with a retryable timeout error",
    level: 1,
    failure_modes: &[11],
    requirements: &["REQ-F-011", "REQ-F-012", "REQ-C-012"],
    extension: true,
    // A stdin-closed run counts where it was itself made at the black hole
    // (`conform check` makes every run there): hung on the listener, it is the
    // network wait, and its black-hole run, gated on it, is never made.
    // The command's help: whether it names a --timeout to bound a long wait.
    // The kit's own `--help`, `--version` and bare call, each in a fresh sandbox:
    // one that waits on the network hides every command behind the wait.
    reads: &[
        RunKind::BlackHole,
        RunKind::Closed,
        RunKind::CommandHelp,
        RunKind::KitIsolated,
    ],
    judge: Judge::Alone(judge),
};

/// What `error.code` of a network failure contains, one of them (a substring).
const NETWORK_CODES: [&str; 3] = ["TIMEOUT", "NETWORK", "UNREACHABLE"];

/// The longest an agent is expected to wait on a call that gets no answer: the
/// spec's example framework default of 30 s (REQ-F-011) plus the 5 s its acceptance
/// criterion allows past it.
const LONGEST_WAIT: Duration = Duration::from_secs(35);

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::NetworkTimeout);
    let mut incidental_only = 0;
    let runs: Vec<Judged<'_>> = ctx.declared_runs();
    for &run in &runs {
        let reached = !run.record.proxy_requests.is_empty();
        // Any wait at the listener: at the limit, or let go on past it.
        let at_hole = run.record.waiting_on == Some(WaitingOn::BlackHole)
            || run.record.held_at_hole.is_some();
        if run.planned.role.kind == RunKind::Closed {
            // A stdin-closed run counts where it was itself made at the black hole
            // (`conform check`), for a read probe or any probe that waited there.
            let read = run
                .planned
                .role
                .probe_index()
                .and_then(|p| ctx.profile.profile.probes.get(p))
                .is_some_and(|probe| probe.kind == ProbeKind::Read);
            if run.planned.spec.network != Network::BlackHole || !(read || at_hole) {
                continue;
            }
            // Hung without ever going for the network: the hang checks' wait.
            if run.record.timed_out && !reached && !at_hole {
                continue;
            }
        }
        if run.planned.role.kind == RunKind::KitIsolated {
            // Only where it was made at the black hole and was still waiting there
            // at its limit: a help that waits on a download (issue 53). One that
            // ended is help_version_pure's, one that hung offline the hang checks'.
            let waited = run.record.timed_out && (reached || at_hole);
            if run.planned.spec.network != Network::BlackHole || !waited {
                continue;
            }
        }
        if run.record.error.is_some() {
            outcome.completed(&run); // fails it with the reason
            continue;
        }
        if run.record.timed_out {
            // Cut at its own limit while another run on the same host was let go
            // on to learn whether the tool gives up: that run's ending decides.
            match measured_by(&runs, &run) {
                Some(measured) if !measured.record.timed_out => continue,
                Some(measured) => {
                    outcome.runs_checked += 1;
                    outcome.fail(&run, cut_short(&run, &measured));
                }
                None => {
                    outcome.runs_checked += 1;
                    outcome.fail(&run, waited_forever(ctx, &run));
                }
            }
            continue;
        }
        if !reached {
            continue; // it never went for the network: nothing to judge
        }
        // Ended on its own, and only asked whether a newer version exists (an
        // update notifier beside a command that needs no network; no_self_update
        // judges it) or opened connections it closed unused (netlify opens one as
        // it exits): the command waited on no answer.
        if run.record.proxy_requests.iter().all(waits_on_nothing) {
            incidental_only += 1;
            continue;
        }
        outcome.runs_checked += 1;
        let took = run.record.duration;
        let head = format!(
            "with every proxy at a listener that never answers, it asked for {} and {} \
             after {:.1}s",
            hosts(&run.record.proxy_requests),
            run.describe_exit(),
            took.as_secs_f64()
        );
        if took > LONGEST_WAIT {
            outcome.fail(
                &run,
                format!(
                    "{head}: it gave up by itself, but later than the {}s an agent can \
                     wait (the spec's example default timeout of 30s, plus the 5s its \
                     acceptance allows: REQ-F-011){}",
                    LONGEST_WAIT.as_secs(),
                    timeout_flag_note(ctx, &run)
                ),
            );
        } else if ctx.envelope(&run).is_err() && run.record.exit_code() != Some(0) {
            // Ended on its own with a failure, which is what this check asks; the
            // missing envelope is json_envelope's failure. The spec's §11 table
            // reads it as row 1 (text and a non-specific exit): noted for it.
            outcome.note(
                &run,
                format!(
                    "{} with no error envelope after {:.1}s, waiting on {} at a listener \
                     that never answers: no TIMEOUT code an agent can read",
                    run.describe_exit(),
                    took.as_secs_f64(),
                    hosts(&run.record.proxy_requests),
                ),
            );
        } else if let Some(problem) = problem(ctx, &run) {
            outcome.fail(
                &run,
                format!(
                    "{head}: {problem}. A network call that gets no answer ends with an \
                     error envelope whose error.code says TIMEOUT, NETWORK or UNREACHABLE \
                     and retryable true (REQ-F-012, REQ-C-012)"
                ),
            );
        }
    }
    if outcome.runs_checked == 0 && outcome.failures.is_empty() {
        outcome.skip(if incidental_only > 0 {
            format!(
                "the {incidental_only} read-probe black-hole run(s) that reached the \
                 listener ended on their own, and only asked whether a newer version \
                 exists (no_self_update judges that) or closed their connections before \
                 any request: no probed command waited on the network"
            )
        } else {
            "no read probe's black-hole run reached the listener: no probed command went \
             for the network through the proxy variables, so no network wait was seen"
                .to_string()
        });
    }
    outcome
}

/// Whether the command's help offers a way to bound the wait: `; its help names
/// no --timeout flag (§11)` when it read the help and found none, else nothing.
fn timeout_flag_note(ctx: &Context<'_>, run: &Judged<'_>) -> String {
    let Some(help) = run
        .planned
        .role
        .probe_index()
        .and_then(|probe| ctx.run(RunRole::probe(RunKind::CommandHelp, probe)))
        .filter(|help| help.finished())
    else {
        return String::new();
    };
    // `--timeout`, `-timeout` (Go's flag package), `--request-timeout`.
    if printed(&help).contains("-timeout") {
        String::new()
    } else {
        "; its help names no --timeout flag, so an agent cannot bound the wait itself \
         (REQ-C-012)"
            .to_string()
    }
}

/// A connection no answer was awaited on: an update lookup, whose wait is
/// `no_self_update`'s, or one closed before it carried a request.
fn waits_on_nothing(request: &ProxyRequest) -> bool {
    request.unsent || asks_for_versions(request)
}

/// The detail of a black-hole run that the kit killed at its limit.
fn waited_forever(ctx: &Context<'_>, run: &Judged<'_>) -> String {
    let limit = run.record.limit.as_secs_f64();
    if run.record.proxy_requests.is_empty() {
        return format!(
            "with every proxy at a listener that never answers, it did not exit within \
             the {limit}s limit and never reached the listener; the kit killed its \
             process group"
        );
    }
    if run
        .record
        .proxy_requests
        .iter()
        .all(|request| request.unsent)
    {
        // netlify's recipes:list: its one connection closed at once, then it hung.
        return format!(
            "with every proxy at a listener that never answers, it closed its \
             connection before sending a request and then did not exit within the \
             {limit}s limit; the kit killed its process group: an agent behind a proxy \
             that does not answer would have waited forever"
        );
    }
    if let Some(held) = run.record.held_at_hole {
        return format!(
            "with every proxy at a listener that never answers, it waited on {} and was \
             still waiting after {:.0}s: conform let it go on past its {limit}s limit \
             (from {:.1}s) to see whether it gives up by itself, and then killed it. \
             An agent would have waited forever: a network call needs a default timeout \
             of its own, well under {}s, that ends it with an error \
             (REQ-F-011){}",
            hosts(&run.record.proxy_requests),
            run.record.duration.as_secs_f64(),
            held.as_secs_f64(),
            LONGEST_WAIT.as_secs(),
            timeout_flag_note(ctx, run)
        );
    }
    format!(
        "with every proxy at a listener that never answers, it waited on {} until \
         conform's limit of {limit}s and the kit killed it: an agent would have waited \
         forever. A network call needs a default timeout of its own that ends it with \
         an error envelope (REQ-F-011, REQ-F-012){}",
        hosts(&run.record.proxy_requests),
        timeout_flag_note(ctx, run)
    )
}

/// The hosts a run asked for and waited on (connections that carried a request).
fn waited_hosts<'a>(run: &Judged<'a>) -> Vec<&'a str> {
    let mut hosts: Vec<&str> = run
        .record
        .proxy_requests
        .iter()
        .filter(|request| !request.unsent)
        .map(|request| request.host.as_deref().unwrap_or_default())
        .collect();
    hosts.sort_unstable();
    hosts.dedup();
    hosts
}

/// The run that measured the wait on the hosts `run` was cut waiting on: one that
/// asked for each of them and was let go on longer (`conform check` spends the
/// network patience once per host: `explore/survey.rs`).
fn measured_by<'a>(runs: &[Judged<'a>], run: &Judged<'_>) -> Option<Judged<'a>> {
    let hosts = waited_hosts(run);
    if hosts.is_empty() {
        return None;
    }
    runs.iter()
        .filter(|other| other.index != run.index)
        .filter(|other| other.record.duration > run.record.duration + Duration::from_secs(1))
        .filter(|other| {
            let theirs = waited_hosts(other);
            hosts.iter().all(|host| theirs.contains(host))
        })
        .max_by_key(|other| other.record.duration)
        .copied()
}

/// The detail of a run cut at its limit on a host whose measured run was still
/// waiting at the end of its patience.
fn cut_short(run: &Judged<'_>, measured: &Judged<'_>) -> String {
    format!(
        "with every proxy at a listener that never answers, it waited on {} until its \
         {:.0}s limit; `{}` measured the wait on that host: still waiting at {:.0}s, \
         when conform killed it. An agent would have waited forever: a network call \
         needs a default timeout of its own, well under {}s, that ends it with an \
         error (REQ-F-011)",
        hosts(&run.record.proxy_requests),
        run.record.duration.as_secs_f64(),
        measured.planned.label,
        measured.record.duration.as_secs_f64(),
        LONGEST_WAIT.as_secs(),
    )
}

/// What is wrong with how a run that reached the listener ended, if anything.
fn problem(ctx: &Context<'_>, run: &Judged<'_>) -> Option<String> {
    if run.record.exit_code() == Some(0) {
        return Some("it exited 0, as if the network had answered".into());
    }
    // No envelope at all: it ended on its own with a failure, which is what this
    // check asks; the missing envelope is json_envelope's finding.
    if ctx.envelope(run).is_err() {
        return None;
    }
    let error = match ctx.error_object(run) {
        Ok(error) => error,
        Err(why) => return Some(why),
    };
    let mut problems = Vec::new();
    match error.get("code").and_then(Value::as_str) {
        Some(code) if NETWORK_CODES.iter().any(|word| code.contains(word)) => {}
        Some(code) => problems.push(format!(
            "error.code is \"{code}\", which names no timeout or network failure"
        )),
        None => problems.push("error.code is missing".into()),
    }
    match error.get("retryable") {
        Some(Value::Bool(true)) => {}
        other => problems.push(format!(
            "error.retryable is {}, but a call that got no answer may work when retried",
            other.map_or_else(|| "missing".to_string(), Value::to_string)
        )),
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::checks::skips::{assert_passed, judged_at_black_hole, judged_with, write};
    use crate::checks::Status;
    use crate::exec::{Exit, ProxyRequest, RunRecord};

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "probes": [
            { "name": "releases", "argv": ["releases"], "kind": "read" },
            { "name": "list", "argv": ["list"], "kind": "read" },
            { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" }
        ]
    }"#;

    const TIMEOUT_ENVELOPE: &str = r#"{"ok":false,"data":null,"error":{"code":"TIMEOUT","message":"no answer","retryable":true},"warnings":[],"meta":{"exit_code":10,"duration_ms":1000}}"#;

    fn connect(host: &str) -> ProxyRequest {
        ProxyRequest {
            host: Some(host.into()),
            port: Some(443),
            path: None,
            unsent: false,
            at: Duration::from_millis(3),
        }
    }

    /// `releases` at the black hole as `black_hole` makes it; `list` never connects.
    fn judged(black_hole: impl Fn(&mut RunRecord)) -> Outcome {
        judged_with(PROFILE, CheckId::NetworkTimeout, |run, record| {
            if run.role.kind == RunKind::BlackHole && run.label.starts_with("releases") {
                black_hole(record);
            }
        })
    }

    fn timed_out_error(record: &mut RunRecord) {
        record.proxy_requests = vec![connect("registry.example")];
        record.exit = Exit::Code(10);
        record.duration = Duration::from_millis(1000);
        write(record, TIMEOUT_ENVELOPE);
    }

    /// `releases` and `list` both at the black hole, each as its closure makes it.
    fn both(releases: impl Fn(&mut RunRecord), list: impl Fn(&mut RunRecord)) -> Outcome {
        judged_with(PROFILE, CheckId::NetworkTimeout, |run, record| {
            if run.role.kind == RunKind::BlackHole {
                if run.label.starts_with("releases") {
                    releases(record);
                } else if run.label.starts_with("list") {
                    list(record);
                }
            }
        })
    }

    fn cut_at_limit(record: &mut RunRecord) {
        record.proxy_requests = vec![connect("api.example")];
        record.timed_out = true;
        record.exit = Exit::Unknown;
        record.duration = Duration::from_secs(5);
    }

    #[test]
    fn a_run_cut_at_its_limit_is_judged_by_the_run_that_measured_its_host() {
        // The measured run waited its whole patience: both fail, the cut one
        // citing it.
        let outcome = both(
            |record| {
                cut_at_limit(record);
                record.duration = Duration::from_secs(40);
            },
            cut_at_limit,
        );
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(outcome.failures.len(), 2, "{:?}", outcome.failures);
        let cut = outcome
            .failures
            .iter()
            .find(|f| f.run.probe.starts_with("list"))
            .expect("the cut run fails");
        assert!(
            cut.detail.contains("`releases (proxies at a black hole)` measured the wait on that host: still waiting at 40s"),
            "{}",
            cut.detail
        );
        // The measured run gave up by itself with a timeout error: the cut run
        // says nothing more.
        let outcome = both(
            |record| {
                timed_out_error(record);
                record.proxy_requests = vec![connect("api.example")];
                record.duration = Duration::from_secs(30);
            },
            cut_at_limit,
        );
        assert_passed(&outcome, 1);
    }

    #[test]
    fn a_retryable_timeout_error_passes_and_runs_that_never_connect_are_not_counted() {
        assert_passed(&judged(timed_out_error), 1);
        for code in ["NETWORK_ERROR", "HOST_UNREACHABLE"] {
            let outcome = judged(|record| {
                timed_out_error(record);
                let envelope = TIMEOUT_ENVELOPE.replace("\"TIMEOUT\"", &format!("\"{code}\""));
                write(record, &envelope);
            });
            assert_passed(&outcome, 1);
        }
    }

    #[test]
    fn a_wait_given_up_in_words_passes_and_is_noted_for_the_findings() {
        let outcome = judged(|record| {
            record.proxy_requests = vec![connect("api.example")];
            record.exit = Exit::Code(1);
            record.duration = Duration::from_millis(2000);
            record.stderr.bytes = b"Error: the request timed out after 2s\n".to_vec();
        });
        assert_passed(&outcome, 1);
        let note = outcome.notes.first().map(|n| n.detail.as_str());
        assert!(
            note.is_some_and(|n| n.contains("exited 1") && n.contains("no error envelope")),
            "{note:?}"
        );
        // An envelope with a TIMEOUT code is no note.
        assert!(judged(timed_out_error).notes.is_empty());
    }

    #[test]
    fn an_update_check_beside_a_command_that_exits_is_left_to_no_self_update() {
        // netlify's update notifier asks the npm registry while `status` exits 0.
        let outcome = judged(|record| {
            record.proxy_requests = vec![connect("registry.npmjs.org")];
            record.exit = Exit::Code(0);
            write(
                record,
                r#"{"ok":true,"data":[],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":1}}"#,
            );
        });
        assert_eq!(outcome.status(), Status::Skip, "{:?}", outcome.failures);
        let reason = outcome.skipped_reason.unwrap_or_default();
        assert!(
            reason.contains("only asked whether a newer version exists"),
            "{reason}"
        );
        // Beside a connection of its own, it is judged as before.
        let outcome = judged(|record| {
            record.proxy_requests = vec![connect("registry.npmjs.org"), connect("api.example")];
            record.exit = Exit::Code(0);
        });
        assert_eq!(outcome.status(), Status::Fail);
        // And a hang on it is still a wait an agent suffers.
        let outcome = judged(|record| {
            record.proxy_requests = vec![connect("registry.npmjs.org")];
            record.timed_out = true;
        });
        assert_eq!(outcome.status(), Status::Fail);
    }

    #[test]
    fn a_connection_closed_before_any_request_is_no_network_wait() {
        // netlify opens a connection as it exits and sends nothing on it.
        let unsent = ProxyRequest {
            host: None,
            port: None,
            path: None,
            unsent: true,
            at: Duration::from_millis(3),
        };
        let outcome = judged(|record| {
            record.proxy_requests = vec![unsent.clone()];
            record.exit = Exit::Code(0);
        });
        assert_eq!(outcome.status(), Status::Skip, "{:?}", outcome.failures);
        let reason = outcome.skipped_reason.unwrap_or_default();
        assert!(
            reason.contains("closed their connections before any request"),
            "{reason}"
        );
        // Beside a request of its own, the exit is judged, and the evidence names both.
        let outcome = judged(|record| {
            record.proxy_requests = vec![unsent.clone(), connect("api.example")];
            record.exit = Exit::Code(0);
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains(
                "it asked for a connection closed before any request, api.example:443 and exited 0"
            ),
            "{detail}"
        );
        // A silent connection still open at the end is not one given up on.
        let outcome = judged(|record| {
            record.proxy_requests = vec![ProxyRequest {
                unsent: false,
                ..unsent.clone()
            }];
            record.exit = Exit::Code(0);
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert!(outcome.failures[0].detail.contains("an unreadable request"));
        // Held until the limit after giving its connection up, it still fails.
        let outcome = judged(|record| {
            record.proxy_requests = vec![unsent.clone()];
            record.timed_out = true;
            record.exit = Exit::Unknown;
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("closed its connection before sending a request and then did not exit"),
            "{detail}"
        );
    }

    #[test]
    fn a_run_held_until_the_limit_names_the_hosts_and_says_an_agent_would_wait_forever() {
        let outcome = judged(|record| {
            record.proxy_requests = vec![
                connect("registry.example"),
                connect("registry.example"),
                ProxyRequest {
                    host: Some("telemetry.example".into()),
                    port: Some(80),
                    path: Some("/v1/ping".into()),
                    unsent: false,
                    at: Duration::from_millis(9),
                },
            ];
            record.timed_out = true;
            record.exit = Exit::Unknown;
        });
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        let detail = &outcome.failures[0].detail;
        for words in [
            "it waited on registry.example:443, telemetry.example:80/v1/ping until conform's limit of 5s",
            "an agent would have waited forever",
        ] {
            assert!(detail.contains(words), "{words:?} not in {detail}");
        }
    }

    #[test]
    fn success_a_wrong_code_or_a_final_error_fails_with_what_it_was() {
        let outcome = judged(|record| {
            record.proxy_requests = vec![connect("registry.example")];
            write(
                record,
                r#"{"ok":true,"data":[],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":1}}"#,
            );
        });
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("it asked for registry.example:443 and exited 0"),
            "{detail}"
        );
        assert!(
            detail.contains("as if the network had answered"),
            "{detail}"
        );

        let outcome = judged(|record| {
            timed_out_error(record);
            write(
                record,
                &TIMEOUT_ENVELOPE
                    .replace("\"TIMEOUT\"", "\"GENERAL_ERROR\"")
                    .replace("\"retryable\":true", "\"retryable\":false"),
            );
        });
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("error.code is \"GENERAL_ERROR\""),
            "{detail}"
        );
        assert!(detail.contains("error.retryable is false"), "{detail}");

        // No envelope at all: it ended by itself, which is this check's subject; the
        // envelope is json_envelope's.
        let outcome = judged(|record| {
            timed_out_error(record);
            write(record, "timed out\n");
        });
        assert_passed(&outcome, 1);
    }

    /// A run let go on past its limit at the listener (`conform check`'s patience):
    /// judged by when it gave up by itself, or that it never did.
    #[test]
    fn a_run_held_past_its_limit_is_judged_by_when_it_gave_up() {
        let gave_up_after = |secs: f64| {
            judged(move |record| {
                record.proxy_requests = vec![connect("pypi.example")];
                record.held_at_hole = Some(Duration::from_secs(5));
                record.duration = Duration::from_secs_f64(secs);
                record.exit = Exit::Code(1);
                write(record, "");
            })
        };
        // pip's version check: 6.6 s, then an error in words.
        assert_passed(&gave_up_after(6.6), 1);
        // 30 s three times over.
        let outcome = gave_up_after(87.0);
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        let detail = &outcome.failures[0].detail;
        for words in [
            "after 87.0s",
            "later than the 35s an agent can wait",
            "REQ-F-011",
        ] {
            assert!(detail.contains(words), "{words:?} not in {detail}");
        }
        let outcome = judged(|record| {
            record.proxy_requests = vec![connect("pypi.example")];
            record.held_at_hole = Some(Duration::from_secs(5));
            record.duration = Duration::from_secs(120);
            record.timed_out = true;
            record.exit = Exit::Unknown;
        });
        let detail = &outcome.failures[0].detail;
        for words in [
            "still waiting after 120s",
            "past its 5s limit",
            "gives up by itself",
        ] {
            assert!(detail.contains(words), "{words:?} not in {detail}");
        }
    }

    /// As `conform check` makes it: the stdin-closed run itself at the black hole,
    /// hung on the listener, so the black-hole run gated on it is never made.
    #[test]
    fn a_stdin_closed_run_hung_on_the_listener_fails_and_one_that_never_connected_does_not() {
        let hang = |record: &mut RunRecord| {
            record.proxy_requests = vec![connect("registry.example")];
            record.timed_out = true;
            record.exit = Exit::Unknown;
        };
        let outcome = judged_at_black_hole(PROFILE, CheckId::NetworkTimeout, |run, record| {
            if run.role.kind == RunKind::Closed && run.label == "releases" {
                hang(record);
            }
        });
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        assert!(
            outcome.failures[0]
                .detail
                .contains("it waited on registry.example:443 until conform's limit"),
            "{outcome:#?}"
        );

        let outcome = judged_at_black_hole(PROFILE, CheckId::NetworkTimeout, |run, record| {
            if run.role.kind == RunKind::Closed && run.label == "releases" {
                record.timed_out = true;
                record.exit = Exit::Unknown;
            }
        });
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
    }
}
