//! Destructive probes: `destructive_refuses_unconfirmed` (exit 2 without
//! confirmation), `dry_run_preview` (the preview flag exits 0 with an envelope) and
//! the extension `dry_run_stable` (two previews give the same data: a preview that
//! changes between runs acted).

use super::support::data::{first_difference, stable_data_in};
use super::{CheckId, CheckSpec, Context, Family, Judge, Outcome};
use crate::plan::{RunKind, RunRole};
use crate::profile::ProbeKind;

pub(super) const DRY_RUN_PREVIEW: CheckSpec = CheckSpec {
    id: CheckId::DryRunPreview,
    name: "dry_run_preview",
    title: "Destructive commands preview with their dry-run flag",
    level: 1,
    failure_modes: &[23],
    requirements: &["REQ-C-004"],
    extension: false,
    reads: &[RunKind::Preview],
    judge: Judge::Family(&FAMILY),
};

pub(super) const DESTRUCTIVE_REFUSES_UNCONFIRMED: CheckSpec = CheckSpec {
    id: CheckId::DestructiveRefusesUnconfirmed,
    name: "destructive_refuses_unconfirmed",
    title: "Destructive commands refuse with exit 2, before side effects, without confirmation",
    level: 2,
    failure_modes: &[23, 10],
    requirements: &["REQ-C-005", "REQ-O-021"],
    extension: false,
    reads: &[RunKind::Closed],
    judge: Judge::Family(&FAMILY),
};

pub(super) const DRY_RUN_STABLE: CheckSpec = CheckSpec {
    id: CheckId::DryRunStable,
    name: "dry_run_stable",
    title: "A preview gives the same data twice: it changed nothing",
    level: 1,
    failure_modes: &[23],
    requirements: &["REQ-C-004"],
    extension: true,
    reads: &[RunKind::Preview, RunKind::SecondPreview],
    judge: Judge::Family(&FAMILY),
};

/// The three are judged in one pass over a destructive probe's runs.
static FAMILY: Family = Family {
    name: "destructive",
    judge: |ctx| {
        let out = judge(ctx);
        vec![out.refuses, out.preview, out.stable]
    },
};

pub(super) struct DestructiveOutcomes {
    pub refuses: Outcome,
    pub preview: Outcome,
    pub stable: Outcome,
}

const NO_DESTRUCTIVE: &str = "profile declares no destructive probe";

pub(super) fn judge(ctx: &Context<'_>) -> DestructiveOutcomes {
    let mut out = DestructiveOutcomes {
        refuses: Outcome::new(CheckId::DestructiveRefusesUnconfirmed),
        preview: Outcome::new(CheckId::DryRunPreview),
        stable: Outcome::new(CheckId::DryRunStable),
    };
    let probes = &ctx.profile.profile.probes;
    if !ctx.profile.profile.has_probe(ProbeKind::Destructive) {
        out.refuses.skip(NO_DESTRUCTIVE);
        out.preview.skip(NO_DESTRUCTIVE);
        out.stable.skip(NO_DESTRUCTIVE);
        return out;
    }

    let refusals = ctx.probe_runs(RunKind::Closed, ProbeKind::Destructive);
    for run in refusals {
        if !run.finished() {
            continue; // no_hang_stdin_closed reports it
        }
        out.refuses.runs_checked += 1;
        let code = run.record.exit_code();
        if code != Some(2) {
            let why = if code == Some(0) {
                "; it went ahead without confirmation (the kit never confirms, so it may really have acted)"
            } else {
                ""
            };
            out.refuses.fail(
                &run,
                format!(
                    "{} without confirmation, expected 2 (refused before side effects){why}",
                    run.describe_exit()
                ),
            );
        }
    }

    for run in ctx.runs_of(&[RunKind::Preview]) {
        if !out.preview.completed(&run) {
            continue;
        }
        let code = run.record.exit_code();
        if code != Some(0) {
            out.preview.fail(
                &run,
                format!("the preview {}, expected 0", run.describe_exit()),
            );
        } else if let Err(reason) = ctx.envelope(&run) {
            out.preview.fail(
                &run,
                format!("the preview's output is not a valid envelope: {reason}"),
            );
        }
    }

    let mut compared = 0;
    for (index, _) in probes
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == ProbeKind::Destructive)
    {
        let first = ctx.run(RunRole::probe(RunKind::Preview, index));
        let second = ctx.run(RunRole::probe(RunKind::SecondPreview, index));
        let (Some(first), Some(second)) = (first, second) else {
            continue;
        };
        let valid = |run: &super::Judged<'_>| {
            let exited_0 = run.finished() && run.record.exit_code() == Some(0);
            exited_0.then(|| ctx.envelope(run).as_ref().ok()).flatten()
        };
        let (Some(a), Some(b)) = (valid(&first), valid(&second)) else {
            continue;
        };
        compared += 1;
        out.stable.runs_checked += 2;
        let a = stable_data_in(a);
        let b = stable_data_in(b);
        if a != b {
            out.stable.fail(
                &second,
                format!(
                    "the second preview's data differs from the first ({}): a preview that changes between runs acted on the first run (REQ-C-004)",
                    first_difference(&a, &b, "data")
                ),
            );
        }
    }
    if compared == 0 && out.stable.failures.is_empty() {
        out.stable.skip(
            "no destructive probe has two valid previews (dry_run_preview reports broken previews)",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::stable_data;
    use serde_json::json;

    #[test]
    fn volatile_keys_are_dropped_at_any_depth() {
        let a = stable_data(json!({"x": 1, "created_at": 1, "n": [{"request_id": "a", "y": 2}]}));
        assert_eq!(a, json!({"x": 1, "n": [{"y": 2}]}));
    }

    #[test]
    fn difference_names_the_path() {
        let d = first_difference(
            &json!({"a": [1, {"b": 2}]}),
            &json!({"a": [1, {"b": 3}]}),
            "data",
        );
        assert_eq!(d, "data.a[1].b is 2 then 3");
    }
}
