//! The seed's "common mistakes": confirmation flags where the kit would pass them
//! to the tool, and format flags outside argument_order. The reference kit runs such
//! profiles; conform refuses them, and each violation says so.

use serde_json::Value;

use super::flags::{format_value, is_confirmation_flag, is_flag};
use super::order_repair::OrderRepair;
use super::{child, show_args, Validator, Violation};
use crate::profile::PatchOperation;
use crate::profile::ProbeKind;

/// The row of docs/differences.md's table of differences from the reference kit that states
/// the seed's "common mistakes" as profile errors.
pub(super) const COMMON_MISTAKES: &str = "common mistakes";

impl Validator {
    pub(super) fn confirmation_flags(&mut self, args: &[&str], at: &str, place: Place) {
        let destructive = matches!(
            place,
            Place::Probe {
                kind: Some(ProbeKind::Destructive),
                ..
            }
        );
        // The arguments without their confirmation flags (command keeps its program).
        let without: Vec<&str> = args
            .iter()
            .enumerate()
            .filter(|(i, a)| *i < place.first_argument() || !is_confirmation_flag(a, destructive))
            .map(|(_, a)| *a)
            .collect();
        for (i, arg) in args.iter().enumerate().skip(place.first_argument()) {
            if !is_confirmation_flag(arg, destructive) {
                continue;
            }
            let (why, fix, patch) = match place {
                Place::Command => (
                    "command prefixes every run, so the destructive probes' refusal and preview runs would execute the action for real".to_string(),
                    format!("remove \"{arg}\" from command: the kit never deletes on purpose; destructive probes run without confirmation (expecting refusal) and with their dry_run_flag"),
                    None,
                ),
                Place::ArgumentOrder { repair, on_destructive } => {
                    let fix = match repair {
                        OrderRepair::Clean { .. } => repair.fix(),
                        _ if on_destructive => format!(
                            "removing \"{arg}\" alone leaves argument_order on a destructive command; {}",
                            repair.fix()
                        ),
                        _ => format!(
                            "removing \"{arg}\" alone leaves argument_order without a command and an option to run; {}",
                            repair.fix()
                        ),
                    };
                    (
                        "argument_order's command runs for real several times, and the profile format defines command_path as the \"Path of a side-effect-free command\"".to_string(),
                        fix,
                        Some(repair.patch()),
                    )
                }
                Place::Probe { kind: Some(ProbeKind::Destructive), dry_run_flag } => {
                    let live = if is_flag(arg, "--live") {
                        " (\"--live\" turns a tool's safe default, a preview, into the real action)"
                    } else {
                        ""
                    };
                    let preview = match dry_run_flag {
                        Some(flag) => format!("adds the dry_run_flag \"{flag}\" itself for the preview"),
                        None => "needs a dry_run_flag (e.g. \"--dry-run\") for the preview".to_string(),
                    };
                    (
                        format!("with it every run of this destructive probe executes the action for real{live}. The profile format says: \"Confirmation flags never appear in a probe. Destructive probes run without confirmation and with their declared dry_run_flag; the kit never deletes on purpose\""),
                        format!("remove \"{arg}\" from argv: the kit runs {} without confirmation, expecting a refusal, and {preview}", show_args(&without)),
                        None,
                    )
                }
                Place::Manifest | Place::Probe { .. } => (
                    "with it the kit would execute the action for real".to_string(),
                    format!("remove \"{arg}\"; destructive probes run without confirmation (expecting refusal) and with their dry_run_flag"),
                    None,
                ),
            };
            let patch = patch.unwrap_or_else(|| {
                vec![PatchOperation::Replace {
                    path: at.to_string(),
                    value: Value::from(without.clone()),
                }]
            });
            self.push_violation(
                Violation::new(
                    child(at, i),
                    format!("\"{arg}\" is a confirmation flag: {why}"),
                    fix,
                )
                .stricter_than_reference(COMMON_MISTAKES)
                .with_patch(patch),
            );
        }
    }

    pub(super) fn format_flags(
        &mut self,
        args: &[&str],
        at: &str,
        global_flag: Option<&str>,
        place: Place,
    ) {
        for (i, arg) in args.iter().enumerate().skip(place.first_argument()) {
            let next = args.get(i + 1).copied();
            let named = if is_flag(arg, "--json") {
                Some(format!("\"{arg}\" selects JSON output"))
            } else if global_flag.is_some_and(|g| is_flag(arg, g)) {
                Some(format!(
                    "\"{arg}\" is the profile's argument_order.global_flag"
                ))
            } else {
                format_value(arg, next)
                    .map(|value| format!("\"{arg}\" selects the \"{value}\" output format"))
            };
            let Some(named) = named else { continue };
            let (reach, from) = match place {
                Place::Command => (
                    "command prefixes every run, so it would reach the read, invalid and destructive probes, and ",
                    "command",
                ),
                _ => ("", "argv"),
            };
            self.push_violation(
                Violation::new(
                    child(at, i),
                    format!("{named}: {reach}json_envelope must prove the tool prints JSON without flags when stdout is not a TTY (REQ-F-003)"),
                    format!("remove the format flag from {from}; argument_order is the one place a profile names it"),
                )
                .stricter_than_reference(COMMON_MISTAKES),
            );
        }
    }
}

/// Where a list of arguments sits in the profile, for the wording of its violations.
#[derive(Clone, Copy)]
pub(super) enum Place<'a> {
    /// `command`, whose first element is the program, not an argument.
    Command,
    Manifest,
    ArgumentOrder {
        repair: &'a OrderRepair<'a>,
        /// argument_order runs a destructive command even without the flag.
        on_destructive: bool,
    },
    Probe {
        kind: Option<ProbeKind>,
        dry_run_flag: Option<&'a str>,
    },
}

impl Place<'_> {
    fn first_argument(self) -> usize {
        match self {
            Place::Command => 1,
            _ => 0,
        }
    }
}
