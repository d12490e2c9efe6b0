//! The judging loop: every selected check in catalog order, each family in one
//! pass, each judge seeing only the runs it declared, and a panicking judge costing
//! only its own checks.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::{evidence, CheckId, CheckSpec, Context, Judge, Outcome, Status, CATALOG};
use crate::plan::{RunIndex, RunKind};

/// Judge the selected checks over the records of a plan's runs, in catalog order.
/// Each check sees only the runs of the variants it declared, so one that reads a
/// run it did not declare finds nothing, rather than passing on runs that
/// `--only` would not make.
pub(crate) fn judge(ctx: &Context<'_>, selected: &BTreeSet<CheckId>) -> Vec<Outcome> {
    let specs: Vec<&CheckSpec> = CATALOG
        .iter()
        .filter(|spec| selected.contains(&spec.id))
        .collect();
    // Each family's outcomes, from its one pass.
    let mut families: Vec<(&str, Vec<Outcome>)> = Vec::new();
    let mut outcomes = Vec::new();
    for spec in &specs {
        let mut outcome = match spec.judge {
            Judge::Alone(judge) => guarded(ctx, spec.reads.to_vec(), || vec![judge(ctx)])
                .map(|mut one| one.remove(0))
                .unwrap_or_else(|why| panicked(spec.id, &why)),
            Judge::Family(family) => {
                if !families.iter().any(|(name, _)| *name == family.name) {
                    // The family sees what its selected members declared.
                    let mut reads: Vec<RunKind> = specs
                        .iter()
                        .filter(|s| matches!(s.judge, Judge::Family(f) if f.name == family.name))
                        .flat_map(|s| s.reads.iter().copied())
                        .collect();
                    reads.sort();
                    reads.dedup();
                    let judged = guarded(ctx, reads, || (family.judge)(ctx));
                    families.push((
                        family.name,
                        judged.unwrap_or_else(|why| {
                            // Every member reports the panic as its own.
                            CATALOG.iter().map(|s| panicked(s.id, &why)).collect()
                        }),
                    ));
                }
                families
                    .iter_mut()
                    .find(|(name, _)| *name == family.name)
                    .and_then(|(_, judged)| {
                        let at = judged.iter().position(|o| o.id == spec.id)?;
                        Some(judged.swap_remove(at))
                    })
                    .unwrap_or_else(|| panicked(spec.id, "its family gave no outcome for it"))
            }
        };
        outcome.add_still_running();
        set_aside_starved(ctx, spec.reads, &mut outcome);
        if outcome.status() == Status::Pass && outcome.runs_checked == 0 {
            if outcome.left_to_others.is_empty() {
                outcome.skip(nothing_judged(ctx));
            } else {
                let left = outcome.left_to_others.join("; ");
                outcome.skip(format!(
                    "no run to judge: each that hit its limit, with its network at \
                     conform's black hole, waited on what another check judges: {left}"
                ));
            }
        }
        outcomes.push(outcome);
    }
    outcomes
}

/// How the skip of a check begins whose runs were starved on both attempts.
pub(crate) const STARVED: &str = "the machine never gave this run the CPU it needed";

/// A run starved on both attempts says nothing about the tool, so no verdict rests
/// on what it did not do in time: those failures are dropped (what it was seen
/// doing, a sentinel called or a file written, stands), and a check left with no
/// other failure skips, naming it (a pass would only say that the machine hid what
/// the run would show).
/// A check reads such a run when the run is of a kind it declared, or gated runs
/// of those kinds that were therefore not made.
fn set_aside_starved(ctx: &Context<'_>, reads: &[RunKind], outcome: &mut Outcome) {
    if outcome.skipped_reason.is_some() {
        return;
    }
    let unmade_gates: BTreeSet<usize> = ctx
        .plan
        .runs
        .iter()
        .zip(ctx.records.iter())
        .filter(|(planned, record)| record.is_none() && reads.contains(&planned.role.kind))
        .filter_map(|(planned, _)| planned.gate)
        .collect();
    let starved: Vec<String> = ctx
        .all_runs()
        .iter()
        .filter(|run| run.record.starved_again)
        .filter(|run| reads.contains(&run.planned.role.kind) || unmade_gates.contains(&run.index))
        .map(|run| {
            let first = run
                .record
                .first_attempt
                .as_deref()
                .map_or(0.0, |first| first.cpu_wait.longest().as_secs_f64());
            format!(
                "{} (stdin {}) waited {:.1} s for a CPU, and {:.1} s when made again alone",
                evidence::quoted(&run.planned.label),
                run.record.stdin.as_str(),
                first,
                run.record.cpu_wait.longest().as_secs_f64()
            )
        })
        .collect();
    if starved.is_empty() {
        return;
    }
    outcome
        .failures
        .retain(|failure| failure.observed || !failure.run.starved_again);
    if outcome.failures.is_empty() {
        outcome.skip(format!(
            "{STARVED}: {}; both attempts are in the evidence (--json-report)",
            starved.join("; ")
        ));
    }
}

/// Runs a judge seeing only `reads`; a panic in it is returned as its message, so
/// that a bug in one judge costs its checks, not the others or the profile.
fn guarded(
    ctx: &Context<'_>,
    reads: Vec<RunKind>,
    judge: impl FnOnce() -> Vec<Outcome>,
) -> Result<Vec<Outcome>, String> {
    *ctx.reads.borrow_mut() = Some(reads);
    let judged = catch_unwind(AssertUnwindSafe(judge));
    *ctx.reads.borrow_mut() = None;
    judged.map_err(|payload| crate::exit::panic_message(payload.as_ref()).to_string())
}

/// The outcome of a check whose judge panicked: never a pass, never the tool's
/// failure.
fn panicked(id: CheckId, why: &str) -> Outcome {
    let mut outcome = Outcome::new(id);
    outcome.skip(format!(
        "conform could not judge this check: its judge panicked ({why}); this is a bug in conform, not in the tool"
    ));
    outcome
}

/// Why a check judged no run. A check that judged nothing is never a pass: its runs
/// were not made because the probe's stdin-closed run hit the limit, or they did not
/// finish, and the hang checks report those.
fn nothing_judged(ctx: &Context<'_>) -> String {
    // Only a run others wait on keeps them from being made: a probe's
    // stdin-closed run (even when nothing selected is gated on it), a first
    // preview; not `--help` with stdin open.
    let waited_on = |index: RunIndex| {
        ctx.plan.runs.iter().any(|run| {
            run.gate == Some(index)
                || run.after.contains(&index)
                || run.derived.as_ref().is_some_and(|d| {
                    d.baseline == index || d.manifest == Some(index) || d.earlier == Some(index)
                })
        })
    };
    let hung: Vec<String> = ctx
        .all_runs()
        .iter()
        .filter(|run| {
            run.record.timed_out
                && (waited_on(run.index) || run.planned.role.kind == RunKind::Closed)
        })
        .map(|run| {
            format!(
                "{} (stdin {}) hit the {}s limit",
                evidence::quoted(&run.planned.label),
                run.record.stdin.as_str(),
                run.record.limit.as_secs_f64()
            )
        })
        .collect();
    let cut: Vec<String> = ctx
        .all_runs()
        .iter()
        .filter(|run| run.planned.role.kind == RunKind::Closed && run.record.stdout.truncated)
        .map(|run| {
            format!(
                "{} (stdin {}) wrote {} bytes, over the {}-byte capture cap",
                evidence::quoted(&run.planned.label),
                run.record.stdin.as_str(),
                run.record.stdout.total_bytes,
                run.record.stdout.bytes.len()
            )
        })
        .collect();
    let mut why = Vec::new();
    if !hung.is_empty() {
        why.push(format!(
            "{}; the runs that follow a hung run are not made",
            hung.join(", ")
        ));
    }
    if !cut.is_empty() {
        why.push(format!(
            "{}; its data cannot be compared past the cap, so the runs that compare with it are not made (json_envelope fails the cap)",
            cut.join(", ")
        ));
    }
    if why.is_empty() {
        "no run this check reads was made".to_string()
    } else {
        format!("no run could be judged: {}", why.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::reads;
    use crate::exec::RunRecord;
    use crate::plan::{Plan, Records};
    use crate::profile::LoadedProfile;

    /// A context over every run a four-probe profile makes with every check
    /// selected, each record as a run that made nothing.
    fn with_full_context(test: impl FnOnce(&Context<'_>, &Plan)) {
        with_records(|run| Some(RunRecord::new(&run.spec)), test);
    }

    /// As [`with_full_context`], with the records `make` gives (`None`: not made).
    fn with_records(
        make: impl Fn(&crate::plan::PlannedRun) -> Option<RunRecord>,
        test: impl FnOnce(&Context<'_>, &Plan),
    ) {
        let dir = std::env::temp_dir();
        let text = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh", "-c", "exit 0", "sh"], "timeout_seconds": 5,
            "manifest": ["manifest"],
            "argument_order": { "command_path": ["list"], "local_args": ["--limit", "1"], "global_flag": "--format", "value": "json", "alternate_value": "plain", "positional": "p" },
            "probes": [
                { "name": "list", "argv": ["list"], "kind": "read" },
                { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" },
                { "name": "rm", "argv": ["rm"], "kind": "destructive", "dry_run_flag": "--dry-run" },
                { "name": "watch", "argv": ["watch"], "kind": "stream", "signal": "INT", "after_lines": 2 }
            ]
        }"#;
        let (profile, program) = crate::profile::parse(text, &dir).expect("valid profile");
        let loaded = LoadedProfile {
            path: dir.join("p.json"),
            dir,
            profile,
            program,
            locations: crate::profile::Locations::scan(text),
        };
        let plan = crate::plan::plan(
            &loaded,
            &reads(&CheckId::all()),
            crate::plan::RunOptions { capture_limit: 1 },
        );
        let records: Records = plan.runs.iter().map(make).collect();
        test(&Context::new(&loaded, &plan, &records), &plan);
    }

    /// The list probe's stdin-closed run hit its limit on both attempts while the
    /// machine kept it from the CPU, so the runs it gates were not made; every
    /// other run exited 0 with nothing on stdout.
    fn starved_list(run: &crate::plan::PlannedRun) -> Option<RunRecord> {
        use crate::plan::RunRole;
        let list = 0;
        let mut record = RunRecord::new(&run.spec);
        record.exit = crate::exec::Exit::Code(0);
        if run.role == RunRole::probe(RunKind::Closed, list) {
            record.timed_out = true;
            record.exit = crate::exec::Exit::Unknown;
            record.duration = std::time::Duration::from_secs(5);
            record.cpu_wait.kit = std::time::Duration::from_secs(4);
            let first = record.clone();
            record.cpu_wait.kit = std::time::Duration::from_secs(3);
            record.first_attempt = Some(Box::new(first));
            record.starved_again = true;
        } else if run.gate.is_some() && run.role.probe_index() == Some(list) {
            return None;
        }
        Some(record)
    }

    #[test]
    fn a_run_starved_on_both_attempts_makes_the_checks_that_read_it_skip() {
        with_records(starved_list, |ctx, _| {
            let selected: BTreeSet<CheckId> =
                [CheckId::NoHangStdinClosed, CheckId::NoColorHonored].into();
            for outcome in judge(ctx, &selected) {
                assert_eq!(outcome.status(), Status::Skip, "{:?}", outcome.id);
                let reason = outcome.skipped_reason.unwrap_or_default();
                assert!(
                    reason.starts_with(
                        "the machine never gave this run the CPU it needed: \"list\" (stdin closed) waited 4.0 s for a CPU, and 3.0 s when made again alone"
                    ),
                    "{:?}: {reason}",
                    outcome.id
                );
            }
        });
    }

    #[test]
    fn a_failure_of_another_run_still_fails_beside_a_starved_run() {
        with_records(
            starved_list,
            // The other probes print nothing: json_envelope fails on them.
            |ctx, _| {
                let selected: BTreeSet<CheckId> = [CheckId::JsonEnvelope].into();
                let outcome = judge(ctx, &selected).remove(0);
                assert_eq!(outcome.status(), Status::Fail);
                assert!(outcome.failures.iter().all(|f| !f.run.starved_again));
                assert!(outcome.failures.iter().all(|f| f.run.probe != "list"));
            },
        );
    }

    #[test]
    fn what_a_starved_run_was_seen_doing_still_fails_it() {
        // wrangler's `docs` opens the browser, then hangs: on a loaded machine
        // both attempts are starved, but the opener's call was recorded.
        let opened = |run: &crate::plan::PlannedRun| {
            let mut record = starved_list(run)?;
            if record.starved_again {
                record.sandbox = Some(crate::exec::SandboxReport {
                    sentinel_calls: vec![crate::exec::SentinelCall {
                        name: "xdg-open".into(),
                        argv: vec!["https://example.com/docs".into()],
                    }],
                    ..Default::default()
                });
            }
            Some(record)
        };
        with_records(opened, |ctx, _| {
            let selected: BTreeSet<CheckId> =
                [CheckId::BrowserNotLaunched, CheckId::NoHangStdinClosed].into();
            let outcomes = judge(ctx, &selected);
            let browser = outcomes
                .iter()
                .find(|o| o.id == CheckId::BrowserNotLaunched)
                .expect("judged");
            assert_eq!(browser.status(), Status::Fail);
            assert_eq!(browser.failures.len(), 1);
            assert!(browser.failures[0].run.starved_again);
            assert!(
                browser.failures[0].detail.contains("xdg-open"),
                "{}",
                browser.failures[0].detail
            );
            // The hang itself is what the starved CPU may have caused.
            let hang = outcomes
                .iter()
                .find(|o| o.id == CheckId::NoHangStdinClosed)
                .expect("judged");
            assert_eq!(hang.status(), Status::Skip);
        });
    }

    #[test]
    fn a_panicking_judge_costs_its_own_check_and_leaves_the_view_as_it_was() {
        with_full_context(|ctx, _| {
            let judged = guarded(ctx, vec![RunKind::Closed], || panic!("boom"));
            assert_eq!(judged.map(|o| o.len()), Err("boom".to_string()));
            assert!(ctx.reads.borrow().is_none(), "the view is reset");
            let outcome = panicked(CheckId::JsonEnvelope, "boom");
            assert_eq!(outcome.status(), Status::Skip);
            let reason = outcome.skipped_reason.unwrap_or_default();
            assert!(reason.contains("its judge panicked (boom)"), "{reason}");
            assert!(
                reason.contains("a bug in conform, not in the tool"),
                "{reason}"
            );
        });
    }

    #[test]
    fn while_a_check_is_judged_it_sees_only_the_kinds_it_declared() {
        with_full_context(|ctx, plan| {
            for spec in CATALOG {
                assert!(!spec.reads.is_empty(), "{} reads nothing", spec.name);
                *ctx.reads.borrow_mut() = Some(spec.reads.to_vec());
                let seen = ctx.runs(|_| true);
                *ctx.reads.borrow_mut() = None;
                assert!(!seen.is_empty(), "{} sees no run", spec.name);
                for run in seen {
                    let kind = run.planned.role.kind;
                    assert!(spec.reads.contains(&kind), "{} saw {kind:?}", spec.name);
                }
            }
            assert_eq!(ctx.runs(|_| true).len(), plan.runs.len());
        });
    }
}
