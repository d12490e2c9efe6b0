//! The one fix of an argument_order that holds a confirmation flag or runs a
//! destructive command, in words and as JSON Patch operations.

use serde_json::{Map, Value};

use super::child;
use super::flags::{is_confirmation_flag, is_flag};
use super::shape::{is_flag_name, strings, ProbeView};
use super::show_args;
use crate::profile::PatchOperation;
use crate::profile::ProbeKind;

/// Where argument_order is in a profile.
pub(super) const ORDER_AT: &str = "/argument_order";

/// How to mend an argument_order that holds a confirmation flag or runs a destructive
/// command. Every violation of such an argument_order gives this one fix, so the
/// fixes applied together leave a valid argument_order.
pub(super) enum OrderRepair<'a> {
    /// Without its confirmation flags, argument_order runs a read command: keep it.
    Clean {
        command_path: Vec<&'a str>,
        local_args: Vec<&'a str>,
    },
    /// A read probe's command and the option it gives take argument_order's place.
    ReadProbe {
        name: &'a str,
        command_path: Vec<&'a str>,
        local_args: [&'a str; 2],
        /// positional belonged to the command argument_order named before.
        drop_positional: bool,
    },
    /// No read probe gives an option to use: argument_order goes. `read` is a read
    /// probe's command to suggest instead.
    Remove {
        read: Option<(&'a str, Vec<&'a str>)>,
    },
}

impl<'a> OrderRepair<'a> {
    pub(super) fn of(
        order: &'a Map<String, Value>,
        probes: &[(usize, ProbeView<'a>)],
        global_flag: Option<&str>,
        on_destructive: bool,
    ) -> Self {
        let without_confirmation = |key: &str| -> Option<Vec<&'a str>> {
            let items = order.get(key).and_then(strings)?;
            Some(
                items
                    .into_iter()
                    .filter(|a| !is_confirmation_flag(a, false))
                    .collect(),
            )
        };
        if !on_destructive {
            if let (Some(command_path), Some(local_args)) = (
                without_confirmation("command_path"),
                without_confirmation("local_args"),
            ) {
                if !command_path.is_empty() && !command_path.contains(&"") && local_args.len() >= 2
                {
                    return OrderRepair::Clean {
                        command_path,
                        local_args,
                    };
                }
            }
        }
        let destructive: Vec<&ProbeView> = probes
            .iter()
            .map(|(_, p)| p)
            .filter(|p| p.kind == ProbeKind::Destructive)
            .collect();
        let reads = || {
            probes.iter().map(|(_, p)| p).filter(|p| {
                let command = p.command();
                p.kind == ProbeKind::Read
                    && !command.is_empty()
                    && !command.contains(&"")
                    && !destructive.iter().any(|d| d.command() == command)
            })
        };
        // The option may be any flag name but one the kit adds or refuses: a
        // confirmation, format or dry-run flag, or the global flag itself.
        let usable = |option: &str| {
            is_flag_name(option)
                && !is_confirmation_flag(option, true)
                && !is_flag(option, "--json")
                && !matches!(option, "--format" | "--output" | "-o")
                && global_flag != Some(option)
                && !destructive.iter().any(|d| d.dry_run_flag == Some(option))
        };
        for read in reads() {
            let command_path = read.command();
            let options = &read.argv[command_path.len()..];
            let pair = options
                .windows(2)
                .find(|w| usable(w[0]) && !w[1].is_empty() && !w[1].starts_with('-'));
            if let Some(&[option, value]) = pair {
                return OrderRepair::ReadProbe {
                    name: read.name,
                    command_path,
                    local_args: [option, value],
                    drop_positional: order.contains_key("positional"),
                };
            }
        }
        OrderRepair::Remove {
            read: reads().next().map(|p| (p.name, p.command())),
        }
    }

    /// The fix, in words that say what the patch does.
    pub(super) fn fix(&self) -> String {
        match self {
            OrderRepair::Clean {
                command_path,
                local_args,
            } => format!(
                "remove the confirmation flags from argument_order, leaving \"command_path\": {} and \"local_args\": {}",
                show_args(command_path),
                show_args(local_args)
            ),
            OrderRepair::ReadProbe {
                name,
                command_path,
                local_args,
                drop_positional,
            } => format!(
                "point argument_order at read probe \"{name}\": set \"command_path\": {} and \"local_args\": {}, that probe's command and option{}",
                show_args(command_path),
                show_args(local_args),
                if *drop_positional {
                    ", and remove positional, which belongs to the command named before"
                } else {
                    ""
                }
            ),
            OrderRepair::Remove { read } => {
                let instead = match read {
                    Some((name, command)) => format!(
                        "a read command such as \"command_path\": {} from read probe \"{name}\"",
                        show_args(command)
                    ),
                    None => "a side-effect-free command".to_string(),
                };
                format!(
                    "remove argument_order to skip the argument_order check (no read probe gives an option to use), or point it at {instead}, with local_args one of its options and a value that changes its output (a filter or a cursor); never a confirmation or dry-run flag"
                )
            }
        }
    }

    /// The fix as JSON Patch operations.
    pub(super) fn patch(&self) -> Vec<PatchOperation> {
        let replace = |key: &str, value: Value| PatchOperation::Replace {
            path: child(ORDER_AT, key),
            value,
        };
        match self {
            OrderRepair::Clean {
                command_path,
                local_args,
            } => vec![
                replace("command_path", serde_json::json!(command_path)),
                replace("local_args", serde_json::json!(local_args)),
            ],
            OrderRepair::ReadProbe {
                command_path,
                local_args,
                drop_positional,
                ..
            } => {
                let mut patch = vec![
                    replace("command_path", serde_json::json!(command_path)),
                    replace("local_args", serde_json::json!(local_args)),
                ];
                if *drop_positional {
                    patch.push(PatchOperation::Remove {
                        path: child(ORDER_AT, "positional"),
                    });
                }
                patch
            }
            OrderRepair::Remove { .. } => vec![PatchOperation::Remove {
                path: ORDER_AT.to_string(),
            }],
        }
    }
}
