//! What a check reads: the profile, the plan and the made runs, seen through the
//! kinds of run the check being judged declared.

use std::cell::{OnceCell, RefCell};

use serde_json::Value;

use super::{support, Judged};
use crate::plan::{Plan, Records, RunKind, RunRole};
use crate::profile::{LoadedProfile, ProbeKind};

/// Everything the checks read.
pub(crate) struct Context<'a> {
    pub profile: &'a LoadedProfile,
    pub plan: &'a Plan,
    pub records: &'a Records,
    /// Each run's stdout parsed and validated as an envelope, at most once: several
    /// checks read the same runs.
    envelopes: Vec<OnceCell<Result<Value, String>>>,
    /// While a check (or a family) is judged: the kinds it declared, the only runs
    /// it sees.
    pub(super) reads: RefCell<Option<Vec<RunKind>>>,
    /// The manifest's `data` validated as a ManifestResponse, once for every check
    /// that reads it.
    pub(super) manifest_verdict: OnceCell<Result<(), String>>,
    /// The manifest run's `data` read leniently, once: as the planner read it to
    /// shape the runs derived from it.
    manifest_as_read: OnceCell<Option<Value>>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(profile: &'a LoadedProfile, plan: &'a Plan, records: &'a Records) -> Self {
        Context {
            profile,
            plan,
            records,
            envelopes: vec![OnceCell::new(); records.len()],
            reads: RefCell::new(None),
            manifest_verdict: OnceCell::new(),
            manifest_as_read: OnceCell::new(),
        }
    }

    /// Made runs with a role matching `select`, in plan order; while a check is
    /// judged, only of the kinds it declared.
    pub(crate) fn runs(&self, select: impl Fn(&RunRole) -> bool) -> Vec<Judged<'a>> {
        let reads = self.reads.borrow();
        self.all_runs()
            .into_iter()
            .filter(|run| {
                reads
                    .as_ref()
                    .is_none_or(|reads| reads.contains(&run.planned.role.kind))
            })
            .filter(|run| select(&run.planned.role))
            .collect()
    }

    /// Made runs of these kinds, in plan order.
    pub(crate) fn runs_of(&self, kinds: &[RunKind]) -> Vec<Judged<'a>> {
        self.runs(|role| kinds.contains(&role.kind))
    }

    /// Made runs of `kind` made from probes of `probe_kind`, in plan order.
    pub(crate) fn probe_runs(&self, kind: RunKind, probe_kind: ProbeKind) -> Vec<Judged<'a>> {
        let probes = &self.profile.profile.probes;
        self.runs(|role| {
            role.kind == kind
                && role
                    .probe_index()
                    .and_then(|p| probes.get(p))
                    .is_some_and(|p| p.kind == probe_kind)
        })
    }

    /// Every made run of the kinds the check being judged declared.
    pub(crate) fn declared_runs(&self) -> Vec<Judged<'a>> {
        self.runs(|_| true)
    }

    /// Every made run, in plan order, whatever is being judged.
    pub(crate) fn all_runs(&self) -> Vec<Judged<'a>> {
        self.plan
            .runs
            .iter()
            .zip(self.records.iter())
            .enumerate()
            .filter_map(|(index, (planned, record))| {
                record.as_ref().map(|record| Judged {
                    index,
                    planned,
                    record,
                })
            })
            .collect()
    }

    /// The one made run with exactly this role.
    pub(crate) fn run(&self, role: RunRole) -> Option<Judged<'a>> {
        self.runs(|r| *r == role).into_iter().next()
    }

    /// The manifest run's `data` as the planner read it when it shaped the runs
    /// derived from it (leniently: whether it is valid is `manifest_valid`'s), so a
    /// check sees exactly what those runs were made with.
    pub(crate) fn manifest_as_read(&self) -> Option<&Value> {
        self.manifest_as_read
            .get_or_init(|| {
                let run = self.run(RunRole::command(RunKind::Manifest))?;
                crate::manifest::data_of(&run.record.stdout.bytes)
            })
            .as_ref()
    }

    /// The stdin-closed run of the probe `run` was made from, when it finished: what
    /// a probe's other runs are compared with. `None` for a baseline that hung (the
    /// hang checks report it) or a run made from no probe.
    pub(crate) fn baseline(&self, run: &Judged<'_>) -> Option<Judged<'a>> {
        let probe = run.planned.role.probe_index()?;
        self.run(RunRole::probe(RunKind::Closed, probe))
            .filter(Judged::finished)
    }

    /// The run's `error` object, when its stdout is one valid envelope with one; else
    /// why it is no error envelope.
    pub(crate) fn error_object(&self, run: &Judged<'_>) -> Result<&Value, String> {
        let envelope = self
            .envelope(run)
            .as_ref()
            .map_err(|why| format!("stdout is not an error envelope: {why}"))?;
        envelope
            .get("error")
            .filter(|error| error.is_object())
            .ok_or_else(|| "its envelope has no error object".to_string())
    }

    /// The run's stdout as exactly one valid ResponseEnvelope, or why it is not.
    pub(crate) fn envelope(&self, run: &Judged<'_>) -> &Result<Value, String> {
        self.envelopes[run.index].get_or_init(|| support::output::parse(run))
    }
}
