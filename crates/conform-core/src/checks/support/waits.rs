//! Waits at a run's limit that are another check's subject, under `conform check`.
//!
//! Where conform itself put a run's network at its black hole (every run of
//! `conform check`), a run still waiting at its limit on a connection there is
//! `network_timeout`'s finding, one listening on a port is a server, and one
//! reading an open stdin its help says it reads was asked for it. No other check
//! counts such a run, and none fails it for the limit. Under a profile's own
//! network (`conform run`) every run at its limit fails as in the reference kit.

use crate::checks::Judged;
use crate::exec::{Network, WaitingOn};

/// Why the run at its limit is not this check's to judge, in words, if it is not.
pub(crate) fn not_ours(run: &Judged<'_>) -> Option<String> {
    let record = run.record;
    if !record.timed_out || run.planned.spec.network != Network::BlackHole {
        return None;
    }
    let waiting = record.waiting_on.as_ref()?;
    let described = waiting.describe(&record.proxy_requests);
    match waiting {
        // The listener recorded it, so network_timeout counts it.
        WaitingOn::BlackHole if !record.proxy_requests.is_empty() => Some(format!(
            "{described}: network_timeout's finding, not a hang"
        )),
        WaitingOn::Listening { .. } => Some(format!(
            "{described}: a server waits for clients, which is not a hang"
        )),
        // Its help says it reads stdin: the open pipe was a request for input.
        WaitingOn::Stdin {
            terminal: false, ..
        } => run.planned.stdin_by_design.as_ref().map(|line| {
            format!(
                "{described}: its help says it reads stdin (\"{line}\"), so a wait on an \
                 open pipe is what it was asked for, not a deadlock"
            )
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::checks::skips::{judged_at_black_hole, judged_with};
    use crate::checks::{CheckId, Status};
    use crate::exec::{Exit, ProxyRequest, RunRecord, WaitingOn};

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "probes": [ { "name": "status", "argv": ["status"], "kind": "read" } ]
    }"#;

    fn at_hole(record: &mut RunRecord) {
        record.timed_out = true;
        record.exit = Exit::Unknown;
        record.waiting_on = Some(WaitingOn::BlackHole);
        record.proxy_requests = vec![ProxyRequest {
            host: Some("api.example.com".into()),
            port: Some(443),
            path: None,
            unsent: false,
            at: Duration::from_millis(5),
        }];
    }

    #[test]
    fn a_network_wait_fails_no_other_check_under_check_and_every_check_under_run() {
        let locale_run_at_hole = |run: &crate::plan::PlannedRun, record: &mut RunRecord| {
            if run.label.contains("LC_ALL") {
                at_hole(record);
            }
        };
        let outcome = judged_at_black_hole(PROFILE, CheckId::LocaleInvariant, locale_run_at_hole);
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        let reason = outcome.skipped_reason.unwrap_or_default();
        assert!(
            reason.contains("api.example.com:443 at the black hole: network_timeout's finding"),
            "{reason}"
        );
        let outcome = judged_with(PROFILE, CheckId::LocaleInvariant, locale_run_at_hole);
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
    }
}
