//! Runs that feed the tool hostile input: values with shell metacharacters right
//! after a command path, and stdin payloads at and past a declared cap.

use std::collections::BTreeSet;

use super::derive::{Derived, PAYLOAD_MAKES};
use super::kind::{metachar_value, OrderRun, RunKind, RunRole, Subject, METACHARACTERS};
use super::{Planner, RunIndex};
use crate::exec::StdinMode;
use crate::profile::ProbeKind;

impl Planner<'_> {
    /// One isolated run per metacharacter value, right after the command path:
    /// `argument_order`'s, else the first read probe's words before its first
    /// option. Nothing else is passed, so the value is the only thing to act on.
    pub(super) fn metacharacters(&mut self) {
        let profile = &self.loaded.profile;
        // Where the runs point: `argument_order`, or the probe they were made from.
        let (path, from_probe) = match &profile.argument_order {
            Some(order) => (order.command_path.clone(), None),
            None => {
                let Some((index, probe)) = profile
                    .probes
                    .iter()
                    .enumerate()
                    .find(|(_, probe)| probe.kind == ProbeKind::Read)
                else {
                    return;
                };
                let words = probe
                    .argv
                    .iter()
                    .take_while(|arg| !arg.starts_with('-'))
                    .cloned()
                    .collect();
                (words, Some(index))
            }
        };
        for (n, shown) in METACHARACTERS.iter().enumerate() {
            let Some(value) = metachar_value(n) else {
                continue;
            };
            let argv = [&path[..], &[value][..]].concat();
            let spec = self.shaped(argv, RunKind::Isolated);
            let role = match from_probe {
                Some(probe) => RunRole::probe(RunKind::Metachar, probe),
                None => RunRole {
                    kind: RunKind::Metachar,
                    subject: Subject::Order(OrderRun::Metachar(n)),
                },
            };
            let label = format!(
                "shell metacharacters {} (isolated)",
                shown.replace("{F}", "F").replace('\n', "\\n")
            );
            self.add(label, role, spec, vec![], None);
        }
    }

    /// Per slot, a run over the cap and one at half of it, each completed from the
    /// manifest (the slot's command and its cap) or not made.
    pub(super) fn payloads(&mut self, manifest: RunIndex, needs: &BTreeSet<RunKind>) {
        for (slot, (over, half)) in PAYLOAD_MAKES.into_iter().enumerate() {
            for (kind, make, what) in [
                (RunKind::PayloadOver, over, "max_bytes + 1"),
                (RunKind::PayloadHalf, half, "max_bytes / 2, stdout drained"),
            ] {
                if !needs.contains(&kind) {
                    continue;
                }
                let mut spec = self.spec(Vec::new());
                spec.stdin = StdinMode::Payload(0);
                let derived = Derived::of(&[], manifest, Some(manifest), make);
                let run = self.add(
                    format!(
                        "stdin payload of {what} bytes (capped command {})",
                        slot + 1
                    ),
                    RunRole::command(kind),
                    spec,
                    vec![manifest],
                    Some(manifest),
                );
                self.runs[run].derived = Some(derived);
            }
        }
    }
}
