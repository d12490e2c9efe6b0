//! One root cause failing several checks, so that a report shows it once: git's exit
//! 129 for a bad flag fails `exit_code_contract` and `invalid_input_exit_2` on the
//! same run.
//!
//! The rule, simple and deterministic: a cause is **one run that failed two checks
//! or more**. Runs are the same when their argv, stdin, environment changes and
//! ending (exit code, signal, timed out) are equal. Causes are numbered `cause-1`,
//! `cause-2`, ... in the order their first failure appears (catalog order, then the
//! check's own order), and each lists its checks in catalog order. A run that failed
//! one check only is no shared cause.

use serde::Serialize;

use crate::checks::evidence::RunFacts;
use crate::result::CheckReport;

/// One run that failed several checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Cause<'a> {
    /// `cause-1`, `cause-2`, ...: what each of its failures names in `--json-report`.
    pub id: String,
    #[serde(skip)]
    pub run: &'a RunFacts,
    pub probe: &'a str,
    pub argv: &'a [String],
    pub stdin: &'static str,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The checks the run failed, in catalog order.
    pub checks: Vec<&'static str>,
}

/// What makes two failures' runs the same run.
fn same_run(a: &RunFacts, b: &RunFacts) -> bool {
    a.argv == b.argv
        && a.stdin == b.stdin
        && a.env == b.env
        && a.exit_code == b.exit_code
        && a.signal == b.signal
        && a.timed_out == b.timed_out
}

/// The shared causes among `checks`' failures.
pub(crate) fn causes(checks: &[CheckReport]) -> Vec<Cause<'_>> {
    // Every failing run once, with the checks it failed.
    let mut runs: Vec<(&RunFacts, Vec<&'static str>)> = Vec::new();
    for report in checks {
        for failure in &report.check.failures {
            match runs.iter_mut().find(|(run, _)| same_run(run, &failure.run)) {
                Some((_, ids)) => {
                    if !ids.contains(&report.check.id) {
                        ids.push(report.check.id);
                    }
                }
                None => runs.push((&failure.run, vec![report.check.id])),
            }
        }
    }
    runs.into_iter()
        .filter(|(_, ids)| ids.len() > 1)
        .enumerate()
        .map(|(n, (run, checks))| Cause {
            id: format!("cause-{}", n + 1),
            run,
            probe: &run.probe,
            argv: &run.argv,
            stdin: run.stdin,
            exit_code: run.exit_code,
            timed_out: run.timed_out,
            checks,
        })
        .collect()
}

/// The cause `run` belongs to, if any.
pub(crate) fn cause_of<'c, 'a>(causes: &'c [Cause<'a>], run: &RunFacts) -> Option<&'c Cause<'a>> {
    causes.iter().find(|cause| same_run(cause.run, run))
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::*;
    use crate::checks::{CheckId, Evidence, Outcome};

    fn failing(id: CheckId, runs: &[&RunFacts]) -> CheckReport {
        let mut report = CheckReport::from(Outcome::new(id));
        report.check.failures = runs
            .iter()
            .map(|run| Evidence {
                run: (*run).clone(),
                detail: format!("{} failed", id.spec().name),
                observed: false,
                still_running: None,
            })
            .collect();
        report
    }

    #[test]
    fn one_run_failing_several_checks_is_one_cause_and_a_run_failing_one_is_none() {
        let mut bad_flag = run(&["git", "log", "--nope"], &[], "closed");
        bad_flag.exit_code = Some(129);
        // The same call in a sandbox is another run.
        let mut isolated = bad_flag.clone();
        isolated.env = vec!["HOME=<sandbox>/home".into()];
        let mut later = bad_flag.clone();
        later.duration_ms = 9; // timings do not make it another run
        let mut unknown = run(&["git", "nosuch"], &[], "closed");
        unknown.exit_code = Some(1);
        let checks = [
            failing(CheckId::ExitCodeContract, &[&bad_flag]),
            failing(CheckId::InvalidInputExit2, &[&later]),
            failing(CheckId::UnknownCommandExit2, &[&unknown]),
            failing(CheckId::InvalidInputNoSideEffects, &[&isolated]),
        ];
        let found = causes(&checks);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].id, "cause-1");
        assert_eq!(
            found[0].checks,
            ["exit_code_contract", "invalid_input_exit_2"]
        );
        assert_eq!(found[0].exit_code, Some(129));
        assert!(cause_of(&found, &later).is_some());
        assert!(cause_of(&found, &unknown).is_none());
        assert!(cause_of(&found, &isolated).is_none());
    }
}
