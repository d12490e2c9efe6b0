//! Which checks `conform run` and `conform check` report: `--only`, `--skip` and
//! `--partition`.

use std::collections::BTreeSet;

use crate::checks::{CheckId, CATALOG};
use crate::partition::Partition;

/// The check groups `--only` and `--skip` take besides check IDs.
pub(crate) const GROUPS: [&str; 2] = ["reference", "extension"];

/// The checks `--only` and `--skip` leave selected; `Err` is the first name that
/// is neither a check ID nor a group.
pub(crate) fn select(only: &[String], skip: &[String]) -> Result<BTreeSet<CheckId>, String> {
    let named = |names: &[String]| -> Result<Vec<CheckId>, String> {
        let mut ids = Vec::new();
        for name in names {
            ids.extend(selected_by(name).ok_or_else(|| name.clone())?);
        }
        Ok(ids)
    };
    let mut checks: BTreeSet<CheckId> = if only.is_empty() {
        CheckId::all()
    } else {
        named(only)?.into_iter().collect()
    };
    for id in named(skip)? {
        checks.remove(&id);
    }
    Ok(checks)
}

/// Which checks `conform run` reports: those `--only`/`--skip` select, or the
/// `--partition` shard of them.
pub(super) struct Selection {
    pub(super) checks: BTreeSet<CheckId>,
    pub(super) partition: Option<Partition>,
}

impl Selection {
    /// The checks of each of `profiles` profiles.
    pub(super) fn per_profile(&self, profiles: usize) -> Vec<BTreeSet<CheckId>> {
        match self.partition {
            Some(partition) => partition.split(profiles, &self.checks),
            None => vec![self.checks.clone(); profiles],
        }
    }
}

/// The checks one `--only`/`--skip` value names: a check ID, or the group
/// `reference` (the reference kit's 14) or `extension` (conform's own).
fn selected_by(name: &str) -> Option<Vec<CheckId>> {
    let group = |extension: bool| {
        CATALOG
            .iter()
            .filter(|spec| spec.extension == extension)
            .map(|spec| spec.id)
            .collect()
    };
    match name {
        "reference" => Some(group(false)),
        "extension" => Some(group(true)),
        _ => CheckId::from_name(name).map(|id| vec![id]),
    }
}
