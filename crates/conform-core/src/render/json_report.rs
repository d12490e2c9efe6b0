//! `conform run --json-report PATH`: conform's full report as one JSON document, a
//! superset of the envelope's ConformanceResult with every run's evidence. Its
//! schema is `schemas/json-report.schema.json` (`conform schema report`).
//!
//! Besides the results it says what `conform merge` needs to join shards safely:
//! the conform that wrote it, the partition, and each profile's identity with the
//! checks this run selected for it.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::show::causes;
use crate::checks::{CheckId, CATALOG};
use crate::envelope::{ExitStatus, RESULT_SCHEMA_VERSION};
use crate::partition::Partition;
use crate::profile::LoadedProfile;
use crate::result::ProfileReport;

/// The report document's JSON Schema.
pub(crate) const SCHEMA: &str = include_str!("../../schemas/json-report.schema.json");

/// Which profile a result is of, and which checks the run selected for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProfileIdentity {
    /// The profile file as given (`check:TOOL ...` for `conform check`).
    pub profile: String,
    pub tool: String,
    /// A hash of the profile as loaded: two runs of the same profile agree on it,
    /// wherever their checkouts are.
    pub fingerprint: String,
    /// The checks selected for this profile (the shard's share under
    /// `--partition`), in catalog order.
    pub checks: Vec<&'static str>,
}

impl ProfileIdentity {
    pub(crate) fn of(loaded: &LoadedProfile, checks: &BTreeSet<CheckId>) -> ProfileIdentity {
        ProfileIdentity {
            profile: loaded.path.display().to_string(),
            tool: loaded.profile.tool.clone(),
            fingerprint: fingerprint(&loaded.profile),
            checks: names(checks),
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "profile": self.profile,
            "tool": self.tool,
            "fingerprint": self.fingerprint,
            "checks": self.checks,
        })
    }
}

/// FNV-1a (64 bits) of the profile's canonical JSON: an identity, not a secret, so
/// a small hash written here serves and no hashing crate is needed.
pub(crate) fn fingerprint(profile: &crate::profile::Profile) -> String {
    let text = serde_json::to_vec(profile).unwrap_or_default();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The check IDs of `checks`, in catalog order.
pub(crate) fn names(checks: &BTreeSet<CheckId>) -> Vec<&'static str> {
    CATALOG
        .iter()
        .filter(|spec| checks.contains(&spec.id))
        .map(|spec| spec.name)
        .collect()
}

/// What a run was, besides its results: for `conform merge`.
pub(crate) struct RunIdentity<'a> {
    pub selected: &'a BTreeSet<CheckId>,
    pub partition: Option<Partition>,
    pub profiles: &'a [ProfileIdentity],
    /// Where the runs' sandboxes were made ([`sandboxes`] for this conform's own
    /// runs; a merge says what its shards' reports say), or `None` to leave it out.
    pub sandboxes: Option<Value>,
    /// How the runs at the black hole were kept from the network (`namespace`,
    /// `proxy variables only`), when there were any.
    pub network: Option<&'a str>,
}

/// The report of a `conform run` that exits with `status`.
pub(crate) fn document(
    results: &[ProfileReport],
    run: &RunIdentity<'_>,
    status: ExitStatus,
    duration_ms: u64,
) -> Value {
    let partition = run
        .partition
        .map(|p| json!({ "shard": p.shard(), "total": p.total() }));
    let profiles: Vec<Value> = run.profiles.iter().map(ProfileIdentity::to_json).collect();
    let mut document = json!({
        "schema_version": RESULT_SCHEMA_VERSION,
        "conform_version": env!("CARGO_PKG_VERSION"),
        "exit_code": status.code(),
        "cancelled": status.is_cancellation(),
        "duration_ms": duration_ms,
        "selected_checks": names(run.selected),
        "partition": partition,
        "profiles": profiles,
        "results": results.iter().map(with_causes).collect::<Vec<_>>(),
    });
    if let (Some(sandboxes), Some(object)) = (&run.sandboxes, document.as_object_mut()) {
        object.insert("sandboxes".into(), sandboxes.clone());
    }
    if let (Some(network), Some(object)) = (run.network, document.as_object_mut()) {
        object.insert("network".into(), json!(network));
    }
    document
}

/// A profile's report with its shared causes (`show::causes`): the list under
/// `causes`, and on each failure whose run is one of them, its `cause` id; and its
/// findings by failure mode.
fn with_causes(result: &ProfileReport) -> Value {
    let causes = causes::causes(&result.checks);
    let mut value = serde_json::to_value(result).unwrap_or(Value::Null);
    let checks = value.get_mut("checks").and_then(Value::as_array_mut);
    for (report, check) in result.checks.iter().zip(checks.into_iter().flatten()) {
        let failures = check.get_mut("failures").and_then(Value::as_array_mut);
        for (failure, entry) in report
            .check
            .failures
            .iter()
            .zip(failures.into_iter().flatten())
        {
            if let (Some(cause), Some(entry)) = (
                causes::cause_of(&causes, &failure.run),
                entry.as_object_mut(),
            ) {
                entry.insert("cause".into(), json!(cause.id));
            }
        }
    }
    if let Some(object) = value.as_object_mut() {
        object.insert("causes".into(), json!(causes));
        object.insert("findings".into(), crate::findings::to_json(result));
    }
    value
}

/// Where this conform made its sandboxes: a tmpfs, or a disk filesystem.
pub(crate) fn sandboxes() -> Value {
    let root = crate::exec::sandbox_root();
    json!({
        "dir": root.dir.display().to_string(),
        "filesystem": if root.tmpfs { "tmpfs" } else { "other" },
    })
}
